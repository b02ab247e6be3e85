"""Matrix products against torch 1.13: matmul (every 1-D/2-D/batched broadcasting case and
the @ operator), mm, bmm, mv, dot, outer/ger, addmm, baddbmm (beta, alpha), their methods
and out= forms.

Each case runs through ctensor and torch and compares shape, dtype and values (floats
within a tolerance, integers exactly, wrapping included), or the exception type and
message. Inputs come contiguous, transposed (the BLAS transpose flag), sliced (no unit
stride: packed) and expanded. float16 is the one deliberate difference: torch 1.13 has no
CPU kernel for it, ctensor has (float32 accumulation), so it is compared with torch's
float32 result rounded to float16. meta tensors give the cpu result's shape and dtype."""
import warnings

import numpy as np
import pytest

import ctensor
import torch

FLOATS = ["float32", "float64", "complex64", "complex128", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def make(L, shape, dtype="float32", layout="contiguous", seed=0):
    rng = np.random.default_rng(seed + 7 * len(shape) + sum(shape))
    n = int(np.prod(shape)) if shape else 1
    if dtype in INTS:
        vals = rng.integers(-100 if dtype != "uint8" else 0, 100, size=n).tolist()
    else:
        vals = rng.uniform(-1, 1, size=n).tolist()
    t = L.tensor(vals, dtype=getattr(L, "float64" if "complex" in dtype else dtype))
    t = t.reshape(shape)
    if "complex" in dtype:
        t = (t * (1 + 0.5j)).to(getattr(L, dtype))
    if layout == "transposed" and t.dim() >= 2:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    elif layout == "sliced" and t.dim() >= 1:
        t = L.stack([t, t], -1)[..., 0]
    elif layout == "expanded" and t.dim() >= 1 and t.shape[0] > 0:
        t = t.narrow(0, 0, 1).expand(*t.shape)
    return t


def tol(dtype):
    return {"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4, "complex128": 1e-10,
            "bfloat16": 2e-2, "float16": 2e-3}.get(dtype, 0)


def compare(c, t, dtype):
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    a = np.asarray(c.to(ctensor.float64 if dtype == "bfloat16" else c.dtype).tolist())
    b = np.asarray(t.to(torch.float64 if dtype == "bfloat16" else t.dtype).tolist())
    if tol(dtype):
        np.testing.assert_allclose(a, b, rtol=tol(dtype), atol=tol(dtype) * 10)
    else:
        np.testing.assert_array_equal(a, b)


class _TorchFixedDot:
    """torch 1.13 with its complex dot fixed: in this build torch.dot (and 1-D @ 1-D) of
    complex vectors returns 0 (its BLAS cdotu call); the reference is then sum(a * b)."""

    def __getattr__(self, name):
        return getattr(torch, name)

    @staticmethod
    def _dot(a, b, out=None):
        if a.is_complex() and a.dim() == 1 and b.dim() == 1 and a.dtype == b.dtype \
                and a.shape == b.shape:
            return (a * b).sum()
        return torch.dot(a, b) if out is None else torch.dot(a, b, out=out)

    def dot(self, a, b, **kw):
        return self._dot(a, b, **kw)

    def matmul(self, a, b, **kw):
        if a.dim() == 1 and b.dim() == 1 and not kw:
            return self._dot(a, b)
        return torch.matmul(a, b, **kw)


TORCH = _TorchFixedDot()


def run_both(fn):
    try:
        t = fn(TORCH)
        terr = None
    except Exception as e:  # noqa: BLE001
        t, terr = None, e
    if terr is not None:
        with pytest.raises(type(terr)) as info:
            fn(ctensor)
        assert str(info.value).split("\n")[0] == str(terr).split("\n")[0]
        return None, None
    return fn(ctensor), t


MATMUL_SHAPES = [
    ([3], [3]), ([2, 3], [3]), ([3], [3, 4]), ([2, 3], [3, 4]),
    ([5, 2, 3], [3]), ([5, 2, 3], [3, 4]), ([3], [5, 3, 4]), ([2, 3], [5, 3, 4]),
    ([5, 2, 3], [5, 3, 4]), ([5, 2, 3], [1, 3, 4]), ([1, 2, 3], [5, 3, 4]),
    ([6, 1, 2, 3], [5, 3, 4]), ([2, 1, 2, 3], [1, 4, 3, 2]), ([4, 5, 2, 3], [3]),
    ([0, 3], [3, 4]), ([2, 0], [0, 4]), ([2, 3], [3, 0]), ([0], [0]), ([3, 2, 0], [0, 5]),
    ([1, 1], [1, 1]), ([1, 7], [7, 1]),
]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_shapes(sa, sb, dtype):
    c, t = run_both(lambda L: L.matmul(make(L, sa, dtype), make(L, sb, dtype, seed=1)))
    if t is not None:
        compare(c, t, dtype)


@pytest.mark.parametrize("la", ["contiguous", "transposed", "sliced", "expanded"])
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "sliced", "expanded"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "bfloat16"])
def test_layouts(la, lb, dtype):
    for sa, sb in [([4, 3], [3, 5]), ([2, 4, 3], [2, 3, 5]), ([4, 1], [1, 5]), ([1, 3], [3, 1])]:
        c, t = run_both(lambda L: L.matmul(make(L, sa, dtype, la), make(L, sb, dtype, lb, 1)))
        compare(c, t, dtype)


def test_operator_and_methods():
    for L in (ctensor, torch):
        pass
    a, b = make(ctensor, [2, 3]), make(ctensor, [3, 4], seed=1)
    ta, tb = make(torch, [2, 3]), make(torch, [3, 4], seed=1)
    compare(a @ b, ta @ tb, "float32")
    compare(a.matmul(b), ta.matmul(tb), "float32")
    compare(a.mm(b), ta.mm(tb), "float32")
    x = a.clone()
    x @= make(ctensor, [3, 3])
    tx = ta.clone()
    tx @= make(torch, [3, 3])
    compare(x, tx, "float32")
    with pytest.raises(TypeError):
        a @ 2
    with pytest.raises(TypeError):
        ta @ 2


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_ops(dtype):
    cases = [
        lambda L: L.mm(make(L, [4, 3], dtype), make(L, [3, 2], dtype, "transposed", 1)),
        lambda L: L.bmm(make(L, [3, 4, 5], dtype, "sliced"), make(L, [3, 5, 2], dtype, seed=1)),
        lambda L: L.mv(make(L, [4, 3], dtype, "transposed"), make(L, [3], dtype, seed=1)),
        lambda L: L.dot(make(L, [5], dtype), make(L, [5], dtype, "sliced", 1)),
        lambda L: L.outer(make(L, [5], dtype), make(L, [3], dtype, seed=1)),
        lambda L: L.ger(make(L, [5], dtype), make(L, [3], dtype, seed=1)),
        lambda L: make(L, [4, 3], dtype).mv(make(L, [3], dtype, seed=1)),
        lambda L: (make(L, [5], dtype).dot(make(L, [5], dtype, seed=1)) if L is ctensor
                   else L.dot(make(L, [5], dtype), make(L, [5], dtype, seed=1))),
        lambda L: make(L, [3, 4, 5], dtype).bmm(make(L, [3, 5, 2], dtype, seed=1)),
        lambda L: L.addmm(make(L, [4, 2], dtype, seed=2), make(L, [4, 3], dtype),
                          make(L, [3, 2], dtype, seed=1)),
        lambda L: L.addmm(make(L, [2], dtype, seed=2), make(L, [4, 3], dtype),
                          make(L, [3, 2], dtype, seed=1), beta=2, alpha=3),
        lambda L: L.addmm(make(L, [4, 2], dtype, seed=2), make(L, [4, 3], dtype),
                          make(L, [3, 2], dtype, seed=1), beta=0),
        lambda L: make(L, [4, 2], dtype, seed=2).addmm(make(L, [4, 3], dtype),
                                                       make(L, [3, 2], dtype, seed=1), alpha=2),
        lambda L: L.baddbmm(make(L, [3, 4, 2], dtype, seed=2), make(L, [3, 4, 5], dtype),
                            make(L, [3, 5, 2], dtype, seed=1), beta=3, alpha=-1),
        lambda L: L.baddbmm(make(L, [1, 4, 1], dtype, seed=2), make(L, [3, 4, 5], dtype),
                            make(L, [3, 5, 2], dtype, seed=1)),
        lambda L: make(L, [3, 4, 2], dtype, seed=2).baddbmm(make(L, [3, 4, 5], dtype),
                                                           make(L, [3, 5, 2], dtype, seed=1)),
    ]
    for f in cases:
        c, t = run_both(f)
        if t is not None:
            compare(c, t, dtype)


def test_float_scalars():
    for L in (ctensor, torch):
        pass
    c, t = run_both(lambda L: L.addmm(make(L, [4, 2], "float64"), make(L, [4, 3], "float64"),
                                      make(L, [3, 2], "float64", seed=1), beta=0.5, alpha=1.5))
    compare(c, t, "float64")
    c, t = run_both(lambda L: L.addmm(make(L, [4, 2], "complex64"), make(L, [4, 3], "complex64"),
                                      make(L, [3, 2], "complex64", seed=1), beta=1j, alpha=2 - 1j))
    compare(c, t, "complex64")


def test_beta_zero_ignores_nan():
    c, t = run_both(lambda L: L.addmm(L.full((2, 2), float("nan")), make(L, [2, 3]),
                                      make(L, [3, 2], seed=1), beta=0))
    compare(c, t, "float32")


def test_integer_wraps():
    c, t = run_both(lambda L: L.mm(L.full((2, 3), 100, dtype=L.int8), L.full((3, 2), 100, dtype=L.int8)))
    compare(c, t, "int8")
    c, t = run_both(lambda L: L.mm(L.full((2, 3), 2**62, dtype=L.int64), L.full((3, 2), 3, dtype=L.int64)))
    compare(c, t, "int64")


def test_float16_against_float32():
    a, b = make(ctensor, [8, 6], "float16"), make(ctensor, [6, 5], "float16", seed=1)
    ta = torch.tensor(a.to(ctensor.float32).tolist())
    tb = torch.tensor(b.to(ctensor.float32).tolist())
    compare(a @ b, (ta @ tb).to(torch.float16), "float16")
    compare(ctensor.bmm(a[None], b[None])[0], (ta @ tb).to(torch.float16), "float16")


ERRORS = [
    lambda L: L.matmul(L.ones(2, 3), L.ones(3, 4, dtype=L.float64)),
    lambda L: L.mm(L.ones(2, 3), L.ones(3, 4, dtype=L.float64)),
    lambda L: L.bmm(L.ones(1, 2, 3), L.ones(1, 3, 4, dtype=L.float64)),
    lambda L: L.mv(L.ones(2, 3), L.ones(3, dtype=L.float64)),
    lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64)),
    lambda L: L.addmm(L.ones(2, 4), L.ones(2, 3), L.ones(3, 4, dtype=L.float64)),
    lambda L: L.addmm(L.ones(2, 4, dtype=L.float64), L.ones(2, 3), L.ones(3, 4, dtype=L.float64)),
    lambda L: L.baddbmm(L.ones(1, 2, 4), L.ones(1, 2, 3), L.ones(1, 3, 4, dtype=L.float64)),
    lambda L: L.mm(L.ones(2, 3), L.ones(4, 5)),
    lambda L: L.matmul(L.ones(2, 3), L.ones(4, 5)),
    lambda L: L.matmul(L.tensor(1.), L.ones(3)),
    lambda L: L.matmul(L.ones(3), L.tensor(1.)),
    lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 3, 4)),
    lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 4, 4)),
    lambda L: L.bmm(L.ones(2, 3), L.ones(2, 3, 4)),
    lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 4)),
    lambda L: L.mm(L.ones(3), L.ones(3, 4)),
    lambda L: L.mm(L.ones(2, 3), L.ones(3)),
    lambda L: L.mv(L.ones(2, 3), L.ones(4)),
    lambda L: L.mv(L.ones(3), L.ones(3)),
    lambda L: L.mv(L.ones(2, 3), L.ones(3, 1)),
    lambda L: L.dot(L.ones(3), L.ones(4)),
    lambda L: L.dot(L.ones(3, 1), L.ones(3)),
    lambda L: L.outer(L.ones(3, 1), L.ones(3)),
    lambda L: L.outer(L.ones(3), L.ones(3, 1)),
    lambda L: L.matmul(L.ones(3), L.ones(4)),
    lambda L: L.matmul(L.ones(2, 2, 3), L.ones(3, 3, 4)),
    lambda L: L.matmul(L.ones(2, 3), L.ones(4)),
    lambda L: L.matmul(L.ones(3), L.ones(4, 2)),
    lambda L: L.matmul(L.ones(2, 2, 3), L.ones(2, 4, 4)),
    lambda L: L.addmm(L.ones(3, 4), L.ones(2, 3), L.ones(3, 4)),
    lambda L: L.baddbmm(L.ones(2, 2, 5), L.ones(1, 2, 3), L.ones(1, 3, 4)),
    lambda L: L.addmm(L.ones(2, 4), L.ones(3), L.ones(3, 4)),
    lambda L: L.addmm(L.ones(2, 4), L.ones(2, 3), L.ones(3)),
    lambda L: L.mm(L.ones(2, 3), L.ones(3, 4), out=L.empty(0, dtype=L.float64)),
    lambda L: L.matmul(L.ones(2, 3), L.ones(3, 4), out=L.empty(0, dtype=L.float64)),
    lambda L: L.mm(L.ones(2, 3, dtype=L.bool), L.ones(3, 4, dtype=L.bool)),
    lambda L: L.matmul(L.ones(2, 3, dtype=L.bool), L.ones(3, 4, dtype=L.bool)),
    lambda L: L.bmm(L.ones(1, 2, 3, dtype=L.bool), L.ones(1, 3, 4, dtype=L.bool)),
    lambda L: L.mv(L.ones(2, 3, dtype=L.bool), L.ones(3, dtype=L.bool)),
    lambda L: L.dot(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)),
    lambda L: L.baddbmm(L.ones(1, 2, 4, dtype=L.bool), L.ones(1, 2, 3, dtype=L.bool),
                        L.ones(1, 3, 4, dtype=L.bool)),
    lambda L: L.mm(L.ones(2, 3), 2),
    lambda L: L.mm(L.ones(2, 3)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    c, t = run_both(ERRORS[i])
    assert t is None, "torch did not raise"


def test_bool_outer():
    c, t = run_both(lambda L: L.outer(L.tensor([True, False]), L.tensor([True, True, False])))
    compare(c, t, "bool")


@pytest.mark.parametrize("name", ["matmul", "mm", "bmm", "mv", "dot", "outer", "ger"])
def test_out(name):
    shapes = {"matmul": ([2, 3], [3, 4]), "mm": ([2, 3], [3, 4]), "bmm": ([2, 2, 3], [2, 3, 4]),
              "mv": ([2, 3], [3]), "dot": ([3], [3]), "outer": ([3], [2]), "ger": ([3], [2])}
    sa, sb = shapes[name]
    for out_shape in ([0], [7, 7]):
        res = []
        for L in (ctensor, torch):
            out = L.empty(out_shape)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = getattr(L, name)(make(L, sa), make(L, sb, seed=1), out=out)
            assert r is out
            res.append((out, len(w)))
        compare(res[0][0], res[1][0], "float32")
        assert res[0][1] == res[1][1]


def test_addmm_baddbmm_out():
    res = []
    for L in (ctensor, torch):
        o1, o2 = L.empty(0), L.empty(0)
        L.addmm(make(L, [2, 4]), make(L, [2, 3]), make(L, [3, 4], seed=1), beta=2, out=o1)
        L.baddbmm(make(L, [2, 2, 4]), make(L, [2, 2, 3]), make(L, [2, 3, 4], seed=1), alpha=2,
                  out=o2)
        res.append((o1, o2))
    compare(res[0][0], res[1][0], "float32")
    compare(res[0][1], res[1][1], "float32")


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_meta(sa, sb):
    a = ctensor.empty(sa, device="meta")
    b = ctensor.empty(sb, device="meta")
    try:
        r = ctensor.matmul(ctensor.ones(sa), ctensor.ones(sb))
    except RuntimeError:
        return
    m = ctensor.matmul(a, b)
    assert m.device.type == "meta" and tuple(m.shape) == tuple(r.shape)


def test_large_against_torch():
    for dtype in ["float32", "int32", "bfloat16"]:
        c, t = run_both(lambda L: make(L, [70, 300], dtype) @ make(L, [300, 90], dtype, "transposed", 1))
        compare(c, t, dtype)
    c, t = run_both(lambda L: L.bmm(make(L, [9, 33, 40]), make(L, [9, 40, 17], seed=1)))
    compare(c, t, "float32")


@pytest.fixture
def emulated():
    from ctensor import _testing
    import gc
    _testing.register_emulated_backend("cuda", 2)
    yield
    ctensor.set_default_device(None)
    gc.collect()
    try:
        _testing.unregister_backend("cuda")
    except RuntimeError:
        pass


def test_emulated_accelerator(emulated):
    for dtype in ["float32", "int32", "bfloat16"]:
        a, b = make(ctensor, [3, 4, 5], dtype), make(ctensor, [5, 2], dtype, "transposed", 1)
        cpu = a @ b
        dev = a.to("cuda:1") @ b.to("cuda:1")
        assert str(dev.device) == "cuda:1"
        assert dev.cpu().tolist() == cpu.tolist()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ctensor.mm(ctensor.ones(2, 2), ctensor.ones(2, 2).to("cuda"))
