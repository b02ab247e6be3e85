"""A global tensor is a ctensor.Tensor (issue 18): isinstance, the Tensor methods with
OneFlow's meaning (dtype conversions, item / tolist / numpy, copy_, new_*, type_as, data,
the computing ops through the Tensor methods and torch-style functions), the *_like
factories and ctensor.Tensor(*size) with placement= and sbp=, NumPy operands in both orders,
and a clear error (never a crash) for every Tensor method or local function that has no
global form yet.

Every rank runs every test with the same global operations in the same order; errors that do
not depend on the data are raised alike on every rank without a collective.
"""
import numpy as np
import pytest

import ctensor
from dist_util import WORLD, all_placement

B = ctensor.sbp.broadcast
S0 = ctensor.sbp.split(0)
S1 = ctensor.sbp.split(1)
P = ctensor.sbp.partial_sum

VALUE = (np.arange(4 * 6).reshape(4, 6) - 7).astype(np.float32)


def make(sbp, value=VALUE):
    # the logical value (placement= and sbp= of the factory), whatever the world size
    return ctensor.tensor(value, placement=all_placement(), sbp=sbp)


@pytest.mark.parametrize("sbp", [B, S0, S1], ids=["B", "S0", "S1"])
def test_is_a_tensor(sbp):
    g = make(sbp)
    assert isinstance(g, ctensor.Tensor) and type(g) is ctensor.GlobalTensor
    assert ctensor.is_tensor(g) and g.is_global and not g.is_local
    # metadata: logical, read without a collective
    assert g.dim() == 2 and g.ndimension() == 2 and g.numel() == 24 and g.nelement() == 24
    assert g.is_floating_point() and not g.is_complex() and g.element_size() == 4
    assert ctensor.is_floating_point(g) and ctensor.numel(g) == 24
    assert len(g) == 4 and g.itemsize == 4 and g.nbytes == 96
    assert g.data.is_global and g.data.sbp == g.sbp and g.data is not g
    assert np.array_equal(g.data.numpy(), VALUE)


@pytest.mark.parametrize("name,dtype", [("long", "int64"), ("int", "int32"),
                                        ("float", "float32"), ("double", "float64"),
                                        ("half", "float16"), ("bool", "bool")])
@pytest.mark.parametrize("sbp", [B, S0, P], ids=["B", "S0", "P"])
def test_dtype_shortcuts(name, dtype, sbp):
    g = make(sbp) if sbp is not P else make(B).to_global(sbp=P)  # B -> P: the value on one rank
    r = getattr(g, name)()
    via_to = g.to(getattr(ctensor, dtype))
    got, got_to = r.numpy(), via_to.numpy()
    assert r.is_global and r.dtype == getattr(ctensor, dtype)
    assert r.placement == g.placement
    assert np.array_equal(got, VALUE.astype(dtype)) and np.array_equal(got_to, got)


def test_to_same_dtype_and_type_as():
    g = make(S0)
    assert g.to(ctensor.float32) is g and g.to(dtype=ctensor.float32) is g
    i = make(B).long()
    r = g.type_as(i)
    got = r.numpy()
    assert r.dtype == ctensor.int64 and r.sbp == (S0,)
    assert np.array_equal(got, VALUE.astype(np.int64))


def test_item_tolist_numpy_int_float():
    g = make(S0)
    s = g.sum()
    one = make(B, np.array([3]))
    assert g.tolist() == VALUE.tolist()
    assert s.item() == float(VALUE.sum()) and float(s) == float(VALUE.sum())
    assert int(one) == 3 and [10, 20, 30, 40][one] == 40
    assert np.array_equal(np.asarray(g), VALUE)


@pytest.mark.parametrize("src_sbp", [B, S0, S1], ids=["B", "S0", "S1"])
def test_copy_(src_sbp):
    dst = ctensor.zeros(4, 6, dtype=ctensor.float64, placement=all_placement(), sbp=S1)
    src = make(src_sbp)
    r = dst.copy_(src)
    got = dst.numpy()
    assert r is dst and dst.dtype == ctensor.float64 and dst.sbp == (S1,)
    assert np.array_equal(got, VALUE.astype(np.float64))


def test_copy_from_local_is_an_error():
    dst = make(B)
    with pytest.raises(RuntimeError, match="Expected all tensors to be global"):
        dst.copy_(ctensor.ones(4, 6))


def test_new_factories():
    g = make(S0)
    z, o = g.new_zeros(8, 2), g.new_ones((8, 2), dtype=ctensor.int32)
    f, e = g.new_full([WORLD, 3], 2.5), g.new_empty(8)
    b = g.new_zeros(2, 2, placement=all_placement(), sbp=B)
    n = g.new(8, 3)
    got = z.numpy(), o.numpy(), f.numpy(), b.numpy()
    assert z.sbp == (S0,) and z.dtype == ctensor.float32 and z.placement == g.placement
    assert o.dtype == ctensor.int32 and e.shape == (8,) and b.sbp == (B,)
    assert n.shape == (8, 3) and n.dtype == g.dtype and n.sbp == (S0,)
    assert np.array_equal(got[0], np.zeros((8, 2))) and np.array_equal(got[1], np.ones((8, 2)))
    assert np.array_equal(got[2], np.full((WORLD, 3), 2.5)) and np.array_equal(got[3],
                                                                              np.zeros((2, 2)))


@pytest.mark.parametrize("fn,expect", [
    ("zeros_like", 0.0), ("ones_like", 1.0), ("empty_like", None), ("full_like", 7.0),
    ("rand_like", None)])
def test_like_keeps_placement_and_sbp(fn, expect):
    g = make(S1)
    args = (g, 7.0) if fn == "full_like" else (g,)
    r = getattr(ctensor, fn)(*args)
    r64 = getattr(ctensor, fn)(*args, dtype=ctensor.float64)
    got = r.numpy()
    assert r.is_global and r.sbp == (S1,) and r.placement == g.placement
    assert r.shape == g.shape and r.dtype == ctensor.float32 and r64.dtype == ctensor.float64
    if expect is not None:
        assert np.array_equal(got, np.full(VALUE.shape, expect, np.float32))
    if fn == "rand_like":
        assert ((got >= 0) & (got < 1)).all()


def test_like_with_placement_and_sbp():
    t = ctensor.ones(4, 3)
    r = ctensor.zeros_like(t, placement=all_placement(), sbp=S0)
    g = make(B)
    q = ctensor.ones_like(g, placement=all_placement(), sbp=S1)
    got = r.numpy(), q.numpy()
    assert r.is_global and r.sbp == (S0,) and r.shape == (4, 3)
    assert q.sbp == (S1,) and np.array_equal(got[1], np.ones((4, 6), np.float32))
    assert np.array_equal(got[0], np.zeros((4, 3), np.float32))


def test_tensor_constructor_with_placement():
    g = ctensor.Tensor(4, 2, placement=all_placement(), sbp=S0)
    z = ctensor.Tensor(0, 3, placement=all_placement(), sbp=B)
    e = ctensor.zeros(0, placement=all_placement(), sbp=S0)
    got = z.numpy(), e.numpy()
    assert g.is_global and g.shape == (4, 2) and g.dtype == ctensor.float32 and g.sbp == (S0,)
    assert got[0].shape == (0, 3) and got[1].shape == (0,)


@pytest.mark.parametrize("sbp", [B, S0], ids=["B", "S0"])
def test_computing_ops_through_tensor_api(sbp):
    g = make(sbp)
    results = [ctensor.exp(g / 10), g.exp(), (g > 0), ctensor.abs(g), g.sum(), g.sum(dim=0),
               ctensor.sum(g, 1), g.mean(), -g, g * 2 + 1, ctensor.add(g, g)]
    got = [r.numpy() for r in results]
    assert all(r.is_global for r in results)
    assert np.allclose(got[0], np.exp(VALUE / 10), rtol=1e-6)
    assert np.allclose(got[1], np.exp(VALUE), rtol=1e-6)
    assert np.array_equal(got[2], VALUE > 0) and np.array_equal(got[3], np.abs(VALUE))
    assert got[4] == VALUE.sum() and np.array_equal(got[5], VALUE.sum(0))
    assert np.array_equal(got[6], VALUE.sum(1)) and np.isclose(got[7], VALUE.mean())
    assert np.array_equal(got[8], -VALUE) and np.array_equal(got[9], VALUE * 2 + 1)
    assert np.array_equal(got[10], VALUE * 2)


OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
       "/": lambda a, b: a / b, "//": lambda a, b: a // b}


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("sbp", [B, S0], ids=["B", "S0"])
def test_numpy_operand_both_orders(op, sbp):
    g = make(sbp)
    arr = (np.arange(6, dtype=np.float64) % 4 + 1)  # broadcast over the rows
    left, right = OPS[op](g, arr), OPS[op](arr, g)
    scalar_left = OPS[op](np.float32(3.0), g)
    got = left.numpy(), right.numpy(), scalar_left.numpy()
    assert type(left) is ctensor.GlobalTensor and type(right) is ctensor.GlobalTensor
    # the array takes the tensor's dtype (float32), as OneFlow converts it
    a32 = arr.astype(np.float32)
    assert left.dtype == ctensor.float32 and left.placement == g.placement
    with np.errstate(divide="ignore", invalid="ignore"):  # VALUE has a zero
        expect = OPS[op](VALUE, a32), OPS[op](a32, VALUE), OPS[op](np.float32(3.0), VALUE)
    assert np.allclose(got[0], expect[0]) and np.allclose(got[1], expect[1])
    assert np.allclose(got[2], expect[2])


INDEXES = [0, -1, (1, 2), (slice(1, 3), slice(None, None, 2)), (Ellipsis, 4), (None, 2),
           slice(0, 0)]


@pytest.mark.parametrize("index", INDEXES, ids=[str(i) for i in range(len(INDEXES))])
@pytest.mark.parametrize("sbp", [B, S0, S1, P], ids=["B", "S0", "S1", "P"])
def test_getitem_setitem_on_the_logical_value(index, sbp):
    g = make(sbp) if sbp is not P else make(B).to_global(sbp=P)
    r = g[index]
    got = r.numpy()
    g[index] = -100.0
    after_number = g.numpy()
    src = make(B, np.full(VALUE[index].shape, 5.0, np.float32)) if VALUE[index].ndim else None
    if src is not None:
        g[index] = src
    after_tensor = g.numpy()
    assert r.is_global and r.placement == g.placement and g.sbp == ((sbp,) if sbp is not P
                                                                    else (P,))
    assert np.array_equal(got, VALUE[index])
    expect = VALUE.copy()
    expect[index] = -100.0
    assert np.array_equal(after_number, expect)
    if src is not None:
        expect[index] = 5.0
    assert np.array_equal(after_tensor, expect)


def test_index_errors_on_every_rank():
    g = make(S0)
    with pytest.raises(IndexError):
        g[10]
    with pytest.raises(RuntimeError, match="Expected all tensors to be global"):
        g[0] = ctensor.ones(6)
    assert np.array_equal(g.numpy(), VALUE)  # still in step, unchanged


def test_full_with_a_global_fill_value():
    s = make(B).sum()  # a zero-dim global tensor
    f = ctensor.full((2, 3), s)
    h = ctensor.full((WORLD, 2), s, placement=all_placement(), sbp=S0)
    got = f.numpy(), h.numpy()
    assert f.is_global and f.sbp == (B,) and f.placement == s.placement
    assert h.sbp == (S0,)
    assert np.array_equal(got[0], np.full((2, 3), VALUE.sum(), np.float32))
    assert np.array_equal(got[1], np.full((WORLD, 2), VALUE.sum(), np.float32))


def test_methods_without_global_form_raise():
    g = make(S0)
    for call in (lambda: g.permute(1, 0), lambda: g.view(24), lambda: g.mv(g),
                 lambda: g.clone(), lambda: g.transpose(0, 1), lambda: g.contiguous()):
        with pytest.raises(NotImplementedError, match="not implemented for global tensors"):
            call()
    with pytest.raises(NotImplementedError, match="Tensor.is_cuda"):
        g.is_cuda
    with pytest.raises(NotImplementedError, match="iteration"):
        list(g)
    with pytest.raises(TypeError, match="cannot create 'ctensor.GlobalTensor'"):
        ctensor.GlobalTensor()


@pytest.mark.parametrize("call", [
    lambda g: ctensor.flip(g, [0]), lambda g: ctensor.cat([ctensor.ones(4, 6), g]),
    lambda g: ctensor.index_select(g, 0, ctensor.tensor([0])), lambda g: ctensor.ones(2).add_(g),
    lambda g: ctensor.where(g > 0, g, g), lambda g: ctensor.tensor(3.0).expand_as(g),
    lambda g: ctensor.matmul(ctensor.ones(6, 4), g), lambda g: ctensor.ones(4, 6).copy_(g)],
    ids=["flip", "cat", "index_select", "local_add_", "where", "expand_as", "matmul",
         "local_copy_"])
def test_local_functions_refuse_globals_cleanly(call):
    g = make(B)
    with pytest.raises((RuntimeError, TypeError, NotImplementedError)) as info:
        call(g)
    # the error names the problem; never a crash, never a silent local computation
    assert "global" in str(info.value) or "GlobalTensor" in str(info.value) or \
        "meta" in str(info.value) or "Tensor" in str(info.value)


@pytest.mark.parametrize("call", [lambda g: ctensor.Tensor.permute(g, 1, 0),
                                  lambda g: ctensor.Tensor.cumsum(g, 0),
                                  lambda g: ctensor.Tensor.exp(g),
                                  lambda g: ctensor.Tensor.numpy(g)],
                         ids=["permute", "cumsum", "exp", "numpy"])
def test_unbound_base_methods_never_see_local_data(call):
    # Tensor.<method>(g) through the base class reaches the local method: it sees the meta
    # stand-in (logical sizes, no data) and either fails or returns a meta tensor
    g = make(S0)
    try:
        r = call(g)
    except (RuntimeError, TypeError, NotImplementedError):
        return
    assert isinstance(r, ctensor.Tensor) and r.is_meta


def test_local_function_error_wording():
    g = make(B)
    with pytest.raises(RuntimeError, match=r"^flip\(\): Expected all tensors to be local, "
                                           r"but found a global tensor"):
        ctensor.flip(g, [0])


@pytest.mark.parametrize("call", [lambda g: ctensor.hstack([g, g]),
                                  lambda g: ctensor.column_stack((ctensor.ones(4), g)),
                                  lambda g: ctensor.atleast_2d(g),
                                  lambda g: ctensor.atleast_3d([g]),
                                  lambda g: ctensor.meshgrid(g, indexing="ij"),
                                  lambda g: ctensor.softmax(g, 0),
                                  lambda g: ctensor.reshape(g, (-1,)),
                                  lambda g: ctensor.broadcast_to(g, (2, 4))],
                         ids=["hstack", "column_stack", "atleast_2d", "atleast_3d", "meshgrid",
                              "softmax", "reshape", "broadcast_to"])
def test_local_only_functions_refuse_global_tensors(call):
    """The functions without a global form: OneFlow's mixing error, never a TypeError or a
    result computed on the meta stand-in."""
    g = make(B)
    with pytest.raises(RuntimeError, match=r"\(\): Expected all tensors to be local, "
                                           r"but found a global tensor"):
        call(g)
