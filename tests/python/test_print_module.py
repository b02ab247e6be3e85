"""repr/str of ctensor.Tensor and ctensor.set_printoptions / get_printoptions / printoptions,
against PyTorch 1.13 (dtype names spelled "ctensor." instead of "torch.").

The detailed formatting rules are compared in test_print_vs_torch.py through the C API;
here the same tensors are made through the Python factories of both libraries, and the
option functions are driven through the same calls. 1.13 has no get_printoptions or
printoptions (newest PyTorch does): its state is read from torch._tensor_str.PRINT_OPTS.
"""
import math
import re

import pytest

import ctensor
import torch
import torch._tensor_str as tstr

if not hasattr(ctensor, "Tensor") or not hasattr(ctensor, "set_printoptions"):
    pytest.skip("ctensor.Tensor or the printing functions are not built in", allow_module_level=True)


def torch_options():
    o = tstr.PRINT_OPTS
    return {"precision": o.precision, "threshold": o.threshold, "edgeitems": o.edgeitems,
            "linewidth": o.linewidth, "sci_mode": o.sci_mode}


@pytest.fixture(autouse=True)
def newest_widths(monkeypatch):
    """With sci_mode forced, newest PyTorch measures column widths in the forced notation,
    1.13 in the one it would have chosen (see test_print_vs_torch.py): make 1.13 measure as
    newest does."""
    original = tstr._Formatter.__init__

    def init(self, tensor):
        original(self, tensor)
        if tstr.PRINT_OPTS.sci_mode is None or not self.floating_dtype:
            return
        vals = [v for v in tensor.reshape(-1).tolist() if math.isfinite(v) and v != 0]
        if vals:
            self.max_width = 1
            self.max_width = max([1] + [len(self.format(v)) for v in vals])

    monkeypatch.setattr(tstr._Formatter, "__init__", init)


@pytest.fixture(autouse=True)
def restore_options():
    yield
    torch.set_printoptions(profile="default")
    ctensor.set_printoptions(profile="default")


def unwrap_suffixes(s):
    """Suffixes on one line: "ctensor." is two characters longer than "torch.", so near the
    line width a suffix may move to its own line in one and not in the other."""
    return re.sub(r",\n *(?=(dtype|device|size)=)", ", ", s)


def same(make):
    """make(T) builds a tensor with module T; both must print alike."""
    want = str(make(torch)).replace("torch.", "ctensor.")
    t = make(ctensor)
    assert repr(t) == str(t)
    if tstr.PRINT_OPTS.linewidth >= 80:
        assert str(t) == want
    else:
        assert unwrap_suffixes(str(t)) == unwrap_suffixes(want)


FACTORIES = [
    lambda T: T.arange(10),
    lambda T: T.arange(10, dtype=T.int32),
    lambda T: T.arange(0, 2, 0.25),
    lambda T: T.arange(0, 2, 0.25, dtype=T.float64),
    lambda T: T.arange(2000, dtype=T.float32),
    lambda T: T.arange(5000, dtype=T.int16),
    lambda T: T.zeros(2, 3),
    lambda T: T.zeros(2, 3, dtype=T.complex64),
    lambda T: T.ones(2, 1, 3, dtype=T.bool),
    lambda T: T.ones(4, dtype=T.uint8),
    lambda T: T.full((2, 2), 1.5e-7),
    lambda T: T.full((3,), -2.5, dtype=T.bfloat16),
    lambda T: T.full((), 7),
    lambda T: T.full((2, 3), float("nan"), dtype=T.float16),
    lambda T: T.zeros(0, 3),
    lambda T: T.zeros(0, dtype=T.int64),
    lambda T: T.empty(2, 3, device="meta"),
    lambda T: T.empty(4, dtype=T.int8, device="meta"),
]


@pytest.mark.parametrize("make", FACTORIES)
def test_repr_like_torch(make):
    same(make)


@pytest.mark.parametrize("kwargs", [
    {"precision": 2}, {"precision": 0}, {"threshold": 5}, {"threshold": 5, "edgeitems": 1},
    {"linewidth": 30}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"},
    {"profile": "full"}, {"profile": "short", "precision": 6}, {"profile": "no such"},
    {"threshold": math.inf}, {"threshold": 2.5}, {"edgeitems": 2, "linewidth": 200},
])
def test_set_printoptions_like_torch(kwargs):
    torch.set_printoptions(**kwargs)
    ctensor.set_printoptions(**kwargs)
    assert ctensor.get_printoptions() == torch_options()
    for make in FACTORIES:
        same(make)


def test_positional_arguments_and_sci_mode_reset():
    torch.set_printoptions(3, 50, 1, 60, None, True)
    ctensor.set_printoptions(3, 50, 1, 60, None, True)
    assert ctensor.get_printoptions() == torch_options()
    # like torch, a call without sci_mode resets it to None
    torch.set_printoptions(precision=5)
    ctensor.set_printoptions(precision=5)
    assert ctensor.get_printoptions() == torch_options()
    assert ctensor.get_printoptions()["sci_mode"] is None


def test_get_printoptions_round_trip():
    assert ctensor.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                          "linewidth": 80, "sci_mode": None}
    ctensor.set_printoptions(profile="full", sci_mode=False)
    opts = ctensor.get_printoptions()
    assert opts["threshold"] == math.inf and opts["sci_mode"] is False
    ctensor.set_printoptions(profile="default")
    ctensor.set_printoptions(**opts)
    assert ctensor.get_printoptions() == opts


def test_printoptions_context():
    t = ctensor.full((2,), 1.0 / 3)
    with ctensor.printoptions(precision=2):
        assert str(t) == "tensor([0.33, 0.33])"
        with ctensor.printoptions(sci_mode=True):
            assert str(t) == "tensor([3.33e-01, 3.33e-01])"
        assert str(t) == "tensor([0.33, 0.33])"
    assert str(t) == "tensor([0.3333, 0.3333])"
    with pytest.raises(ZeroDivisionError):
        with ctensor.printoptions(precision=1):
            1 / 0
    assert ctensor.get_printoptions()["precision"] == 4
    with pytest.raises(TypeError):
        ctensor.printoptions(2)
    with pytest.raises(TypeError):
        with ctensor.printoptions(colour=True):
            pass
    assert ctensor.get_printoptions()["precision"] == 4


def test_argument_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        ctensor.set_printoptions(colour=1)
    with pytest.raises(TypeError):
        ctensor.set_printoptions(1, 2, 3, 4, 5, 6, 7)
    with pytest.raises(TypeError, match="precision must be an int, not float"):
        ctensor.set_printoptions(precision=2.0)
    with pytest.raises(TypeError, match="threshold must be a number, not str"):
        ctensor.set_printoptions(threshold="big")
    with pytest.raises(ValueError, match="precision must be between 0 and 500, got -1"):
        ctensor.set_printoptions(precision=-1)
    with pytest.raises(ValueError, match="edgeitems must be non-negative, got -3"):
        ctensor.set_printoptions(edgeitems=-3)
    assert ctensor.get_printoptions()["precision"] == 4  # nothing changed
    ctensor.set_printoptions(threshold=10**400)  # an int beyond any double
    assert ctensor.get_printoptions()["threshold"] == math.inf
    with pytest.raises(TypeError):
        ctensor.get_printoptions(1)


def test_default_dtype_suffix():
    for name in ("float64", "float16", "bfloat16"):
        torch.set_default_dtype(getattr(torch, name))
        ctensor.set_default_dtype(getattr(ctensor, name))
        try:
            for make in FACTORIES:
                same(make)
        finally:
            torch.set_default_dtype(torch.float32)
            ctensor.set_default_dtype(ctensor.float32)


def test_subclass_name():
    class Param(ctensor.Tensor):
        pass

    t = ctensor.zeros(2, 2)
    try:
        sub = t.as_subclass(Param)
    except AttributeError:
        pytest.skip("Tensor.as_subclass is not there yet")
    assert str(sub) == "Param([[0., 0.],\n       [0., 0.]])"
