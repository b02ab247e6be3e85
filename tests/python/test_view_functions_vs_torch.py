"""The module forms of the view methods (reshape, permute, narrow, select, broadcast_to, and
Tensor.broadcast_to) against torch 1.13: on contiguous, transposed, channels_last and
expanded inputs the result's shape, strides, storage offset, values and whether it is a view
of the input; argument errors with torch's exception type and message."""
import pytest

import ctensor
import torch

LAYOUTS = ["contiguous", "transposed", "channels_last", "expanded"]


def make(L, layout):
    base = L.arange(2 * 3 * 4 * 5, dtype=L.float32).reshape(2, 3, 4, 5)
    if layout == "transposed":  # the same shape, dims 1 and 3 exchanged in memory
        return L.arange(2 * 3 * 4 * 5, dtype=L.float32).reshape(2, 5, 4, 3).transpose(1, 3)
    if layout == "channels_last":
        return base.contiguous(memory_format=L.channels_last)
    if layout == "expanded":
        return L.arange(5, dtype=L.float32).expand(2, 3, 4, 5)
    return base


CALLS = [
    ("reshape", lambda L, x: L.reshape(x, (6, -1))),
    ("reshape_flat", lambda L, x: L.reshape(x, [-1])),
    ("reshape_kw", lambda L, x: L.reshape(input=x, shape=(2, 60))),
    ("permute", lambda L, x: L.permute(x, (3, 1, 0, 2))),
    ("permute_kw", lambda L, x: L.permute(x, dims=[0, 2, 3, 1])),
    ("narrow", lambda L, x: L.narrow(x, 2, 1, 2)),
    ("narrow_neg_dim", lambda L, x: L.narrow(x, -1, 0, 3)),
    ("narrow_tensor_start", lambda L, x: L.narrow(x, 1, L.tensor(1), 2)),
    ("narrow_kw", lambda L, x: L.narrow(x, dim=0, start=1, length=1)),
    ("select", lambda L, x: L.select(x, 1, 2)),
    ("select_neg", lambda L, x: L.select(x, -1, -1)),
    ("broadcast_to", lambda L, x: L.broadcast_to(x[:1], (3, 3, 4, 5))),
    ("broadcast_to_new_dims", lambda L, x: L.broadcast_to(x[0, 0], (2, 2, 4, 5))),
    ("broadcast_to_keep", lambda L, x: L.broadcast_to(x, (-1, 3, -1, 5))),
    ("method_broadcast_to", lambda L, x: x[:, :1].broadcast_to(2, 7, 4, 5)),
    ("method_broadcast_to_tuple", lambda L, x: x[:, :1].broadcast_to((2, 7, 4, 5))),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_like_torch(name, call, layout):
    tx, cx = make(torch, layout), make(ctensor, layout)
    t, c = call(torch, tx), call(ctensor, cx)
    assert tuple(c.shape) == tuple(t.shape)
    assert c.tolist() == t.tolist()
    t_view = t.data_ptr() - t.storage_offset() * 4 == tx.data_ptr() - tx.storage_offset() * 4
    c_view = c.data_ptr() - c.storage_offset() * 4 == cx.data_ptr() - cx.storage_offset() * 4
    assert c_view == t_view, (name, layout)
    if t_view:  # a view: the same strides and offset as torch's
        assert tuple(c.stride()) == tuple(t.stride())
        assert c.storage_offset() == t.storage_offset()


def test_views_write_through():
    x = ctensor.zeros(2, 3)
    ctensor.select(ctensor.permute(x, (1, 0)), 0, 2).fill_(7)
    ctensor.narrow(ctensor.reshape(x, (6,)), 0, 1, 1).fill_(5)
    assert x.tolist() == [[0.0, 5.0, 7.0], [0.0, 0.0, 7.0]]


ERRORS = [
    lambda L, x: L.reshape(x, 2, 3),
    lambda L, x: L.reshape(x, (4,)),
    lambda L, x: L.reshape(x, (-1, -1)),
    lambda L, x: L.reshape(x, "a"),
    lambda L, x: L.reshape([1, 2], (2,)),
    lambda L, x: L.permute(x.reshape(2, 3), 1, 0),
    lambda L, x: L.permute(x.reshape(2, 3), (0,)),
    lambda L, x: L.permute(x.reshape(2, 3), (0, 0)),
    lambda L, x: L.narrow(x, 0, 5, 3),
    lambda L, x: L.narrow(x, 1, 0, 1),
    lambda L, x: L.narrow(x, 0, -1, 1),
    lambda L, x: L.narrow(x, 0, L.tensor([1, 2]), 1),
    lambda L, x: L.narrow(x, 0, L.tensor(1.0), 1),
    lambda L, x: L.narrow(x, 0, 1),
    lambda L, x: L.select(x, 1, 0),
    lambda L, x: L.select(x, 0, -7),
    lambda L, x: L.select(x, 0, 6),
    lambda L, x: L.select(x, 0),
    lambda L, x: L.broadcast_to(x, (2,)),
    lambda L, x: L.broadcast_to(x, 2, 6),
    lambda L, x: L.broadcast_to(x, (2, 3, 6), implicit=True),
    lambda L, x: x.broadcast_to((6,), 1),
    lambda L, x: x.broadcast_to(size=(3,)),
]


def outcome(L, f):
    try:
        r = f(L, L.arange(6.0))
        return ("ok", tuple(r.shape), r.tolist())
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("err", type(e).__name__, str(e))


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_like_torch(k):
    want, got = outcome(torch, ERRORS[k]), outcome(ctensor, ERRORS[k])
    if want[0] == "err" and "torch." in want[2]:  # a type named in torch's message
        want = (want[0], want[1], want[2].replace("torch.", "ctensor."))
    assert got == want


def test_type_as_like_torch():
    """type_as(other) is self.to(other's dtype and device): self itself when those are
    self's; memory format preserved."""
    for L in (torch, ctensor):
        x = L.ones(2, dtype=L.int32)
        assert x.type_as(L.zeros(1, dtype=L.int32)) is x
        assert str(x.type_as(L.ones(1, dtype=L.float64)).dtype).endswith("float64")
        assert str(x.type_as(L.ones(1, device="meta")).device) == "meta"
    cases = [lambda L: L.arange(6).reshape(2, 3).t().type_as(L.ones(1, dtype=L.float16)),
             lambda L: L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last).type_as(
                 L.ones(1, dtype=L.bfloat16)),
             lambda L: L.tensor([1.7, -2.5]).type_as(L.ones(1, dtype=L.int8))]
    for f in cases:
        t, c = f(torch), f(ctensor)
        assert (tuple(c.shape), tuple(c.stride()), c.tolist()) == \
            (tuple(t.shape), tuple(t.stride()), t.tolist())
    for f in [lambda L: L.ones(2).type_as(3), lambda L: L.ones(2).type_as()]:
        with pytest.raises(TypeError) as want:
            f(torch)
        with pytest.raises(TypeError) as got:
            f(ctensor)
        assert str(got.value) == str(want.value)
