"""The indexing family on an accelerator (the host-emulated backend registered as 'cuda'):
getitem/setitem, index_select, gather, scatter, take, masked_select, nonzero, searchsorted and
friends run there through host memory and must give the cpu's values, dtypes and errors,
with PyTorch's device rules (advanced indexing takes cpu index tensors; other ops want one
device)."""
import gc

import pytest

import ctensor
from ctensor import _testing


@pytest.fixture(autouse=True)
def cuda():
    _testing.register_emulated_backend("cuda", 2)
    yield
    ctensor.set_default_device(None)
    gc.collect()
    try:
        _testing.unregister_backend("cuda")
    except RuntimeError:
        # tensors kept alive by a failed test's traceback: let that failure be the report
        pass


def same(d, c, device="cuda:0"):
    assert str(d.device) == device
    assert d.dtype == c.dtype
    assert d.shape == c.shape
    h = d.cpu()
    assert h.stride() == c.stride()
    assert h.tolist() == c.tolist()


def base(dtype=ctensor.float32):
    g = ctensor.Generator().manual_seed(3)
    return (ctensor.randn(4, 5, 3, generator=g) * 4).to(dtype).transpose(0, 1)  # (5, 4, 3)


DTYPES = [ctensor.float32, ctensor.float64, ctensor.int32, ctensor.int64]
INDICES = [
    lambda: (ctensor.tensor([3, -1, 0, 3]),),
    lambda: (slice(None), ctensor.tensor([[1], [0]])),
    lambda: (ctensor.tensor([True, False, True, True, False]),),
    lambda: (ctensor.tensor([1, 2]), slice(None), ctensor.tensor([0, 2])),
    lambda: (Ellipsis, [2, 0]),
    lambda: (1, ctensor.tensor([True, False, True, False])),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", range(len(INDICES)))
@pytest.mark.parametrize("index_on", ["cpu", "cuda"])
def test_getitem(dtype, k, index_on):
    c = base(dtype)
    d = c.to("cuda")
    ix = INDICES[k]()
    ixd = tuple(i.to(index_on) if isinstance(i, ctensor.Tensor) else i for i in ix)
    same(d[ixd], c[ix])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", range(len(INDICES)))
def test_setitem_on_a_view(dtype, k):
    cw = ctensor.zeros(6, 4, 5, 3, dtype=dtype)
    dw = cw.to("cuda:1")
    c, d = cw[1].transpose(0, 1), dw[1].transpose(0, 1)  # views: neighbours must stay
    ix = INDICES[k]()
    c[ix] = 7
    d[ix] = 7
    same(dw, cw, "cuda:1")
    shape = c[ix].shape
    v = ctensor.arange(shape.numel()).reshape(shape).to(dtype)
    c[ix] = v
    d[ix] = v.to("cuda:1")
    same(dw, cw, "cuda:1")
    d[ix] = ctensor.tensor(5, dtype=dtype)  # a 0-dim cpu value
    c[ix] = ctensor.tensor(5, dtype=dtype)
    same(dw, cw, "cuda:1")


def test_index_errors():
    c = base()
    d = c.to("cuda")
    with pytest.raises(IndexError) as e1:
        c[ctensor.tensor([9])]
    with pytest.raises(IndexError) as e2:
        d[ctensor.tensor([9])]
    assert str(e1.value) == str(e2.value)
    with pytest.raises(IndexError, match=r"same device as the indexed tensor \(cuda:0\)"):
        d[ctensor.tensor([1]).to("cuda:1")]
    with pytest.raises(IndexError, match=r"same device as the indexed tensor \(cpu\)"):
        c[ctensor.tensor([1]).to("cuda")]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        d.index_select(0, ctensor.tensor([1]))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        d[ctensor.tensor([0, 1])] = ctensor.zeros(2, 4, 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_selection_ops(dtype):
    c = base(dtype)
    d = c.to("cuda")
    i = ctensor.tensor([2, 0, 2])
    same(d.index_select(1, i.cuda()), c.index_select(1, i))
    same(ctensor.take(d, ctensor.tensor([[0, -1], [7, 7]]).cuda()),
         ctensor.take(c, ctensor.tensor([[0, -1], [7, 7]])))
    m = c > 0
    same(ctensor.masked_select(d, m.cuda()), ctensor.masked_select(c, m))
    same(ctensor.nonzero(d), ctensor.nonzero(c))
    for a, b in zip(ctensor.nonzero(d, as_tuple=True), ctensor.nonzero(c, as_tuple=True)):
        same(a, b)
    out = ctensor.zeros(0, dtype=dtype, device="cuda")
    r = ctensor.index_select(d, 1, i.cuda(), out=out)
    assert r is out
    same(out, c.index_select(1, i))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_scatter(dtype):
    c = base(dtype)[0]  # (4, 3)
    d = c.to("cuda")
    ix = ctensor.tensor([[0, 2, 1], [3, 3, 0]])
    src = ctensor.arange(6).reshape(2, 3).to(dtype)
    same(ctensor.gather(d, 0, ix.cuda()), ctensor.gather(c, 0, ix))
    same(d.scatter(0, ix.cuda(), src.cuda()), c.scatter(0, ix, src))
    same(d.scatter(0, ix.cuda(), 5), c.scatter(0, ix, 5))
    same(d.scatter_add(0, ix.cuda(), src.cuda()), c.scatter_add(0, ix, src))
    same(d.scatter_reduce(0, ix.cuda(), src.cuda(), "amax", include_self=False),
         c.scatter_reduce(0, ix, src, "amax", include_self=False))
    j = ctensor.tensor([2, 0])
    same(d.index_add(0, j.cuda(), src.cuda(), alpha=2), c.index_add(0, j, src, alpha=2))
    same(d.index_fill(1, j.cuda(), -1), c.index_fill(1, j, -1))
    same(d.index_copy(0, j.cuda(), src.cuda()), c.index_copy(0, j, src))
    # in place on views of a wider tensor
    cw = ctensor.zeros(4, 7, dtype=dtype)
    dw = cw.cuda()
    cv, dv = cw[:, 2:5], dw[:, 2:5]
    cv.scatter_(0, ix, src)
    dv.scatter_(0, ix.cuda(), src.cuda())
    cv.index_add_(0, j, src)
    dv.index_add_(0, j.cuda(), src.cuda())
    cv.index_fill_(1, j, ctensor.tensor(3))
    dv.index_fill_(1, j.cuda(), ctensor.tensor(3))
    same(dw, cw)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ctensor.gather(d, 0, ix)
    with pytest.raises(RuntimeError) as e1:
        c.scatter(0, ix + 5, src)
    with pytest.raises(RuntimeError) as e2:
        d.scatter(0, (ix + 5).cuda(), src.cuda())
    assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("dtype", [ctensor.float32, ctensor.float64, ctensor.int64])
def test_searchsorted(dtype):
    b = ctensor.tensor([[1, 3, 5, 7], [2, 4, 6, 8]]).to(dtype)
    v = ctensor.tensor([[0, 3, 9], [4, 5, 8]]).to(dtype)
    bd, vd = b.to("cuda:1"), v.to("cuda:1")
    same(ctensor.searchsorted(bd, vd), ctensor.searchsorted(b, v), "cuda:1")
    same(ctensor.searchsorted(bd, vd, right=True, out_int32=True),
         ctensor.searchsorted(b, v, right=True, out_int32=True), "cuda:1")
    s = ctensor.tensor([[1, 0, 3, 2], [0, 1, 2, 3]])
    same(ctensor.searchsorted(bd, vd, sorter=s.to("cuda:1")),
         ctensor.searchsorted(b, v, sorter=s), "cuda:1")
    same(ctensor.bucketize(vd, bd[0]), ctensor.bucketize(v, b[0]), "cuda:1")
    with pytest.raises(RuntimeError, match="cuda:1 and cpu"):
        ctensor.searchsorted(bd, v)


def test_setitem_one_element_cpu_value():
    c = base()
    d = c.to("cuda")
    m = c > 0
    c[m] = ctensor.tensor([[2.5]])
    d[m] = ctensor.tensor([[2.5]])  # setitem drops the leading 1s: a 0-dim cpu value
    same(d, c)
    d[m.cuda()] = ctensor.tensor([-1.0])
    c[m] = ctensor.tensor([-1.0])
    same(d, c)
