"""Matrix products, reordering, triangles, unique and the nuclear norm on an accelerator (the
host-emulated backend registered as 'cuda'): ops without device kernels run through host
memory, so each result must be the cpu's result on the input's device: same values, dtype and
shape, device string 'cuda:N'. Mixed devices keep PyTorch's errors."""
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


DTYPES = [ctensor.float32, ctensor.float64, ctensor.complex64, ctensor.int64]


def operand(shape, dtype, seed, transposed=False):
    g = ctensor.Generator().manual_seed(seed)
    if transposed and len(shape) >= 2:
        s = list(shape)
        s[-1], s[-2] = s[-2], s[-1]
        return (ctensor.randn(*s, generator=g) * 3).to(dtype).transpose(-1, -2)
    return (ctensor.randn(*shape, generator=g) * 3).to(dtype)


def same(got, want, device="cuda:0"):
    assert str(got.device) == device
    assert got.dtype == want.dtype
    assert tuple(got.shape) == tuple(want.shape)
    h = got.cpu()
    if want.dtype.is_floating_point or want.dtype.is_complex:
        assert ctensor.allclose(h, want, rtol=1e-5, atol=1e-5)
    else:
        assert h.tolist() == want.tolist()


SHAPES = [((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 5)), ((4, 3), (3, 5)),
          ((2, 4, 3), (3, 5)), ((2, 4, 3), (2, 3, 5)), ((2, 1, 4, 3), (3, 3, 5))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("transposed", [False, True])
def test_matmul_operator(dtype, transposed):
    for sa, sb in SHAPES:
        a, b = operand(sa, dtype, 1, transposed), operand(sb, dtype, 2, transposed)
        same(a.to("cuda") @ b.to("cuda"), a @ b)
        same(ctensor.matmul(a.to("cuda:1"), b.to("cuda:1")), ctensor.matmul(a, b), "cuda:1")


@pytest.mark.parametrize("dtype", DTYPES)
def test_products(dtype):
    m1, m2 = operand((4, 3), dtype, 3, True), operand((3, 5), dtype, 4)
    b1, b2 = operand((2, 4, 3), dtype, 5), operand((2, 3, 5), dtype, 6)
    v3, v4, v5 = operand((3,), dtype, 7), operand((4,), dtype, 8), operand((5,), dtype, 9)
    g = lambda t: t.to("cuda")  # noqa: E731
    same(ctensor.mm(g(m1), g(m2)), ctensor.mm(m1, m2))
    same(g(m1).mm(g(m2)), m1.mm(m2))
    same(ctensor.bmm(g(b1), g(b2)), ctensor.bmm(b1, b2))
    same(ctensor.mv(g(m1), g(v3)), ctensor.mv(m1, v3))
    same(ctensor.dot(g(v3), g(v3)), ctensor.dot(v3, v3))
    same(ctensor.outer(g(v4), g(v5)), ctensor.outer(v4, v5))
    beta, alpha = (2, 3) if dtype == ctensor.int64 else (0.5, -1.5)
    same(ctensor.addmm(g(v5), g(m1), g(m2), beta=beta, alpha=alpha),
         ctensor.addmm(v5, m1, m2, beta=beta, alpha=alpha))
    same(ctensor.baddbmm(g(v5), g(b1), g(b2), beta=beta, alpha=alpha),
         ctensor.baddbmm(v5, b1, b2, beta=beta, alpha=alpha))
    same(ctensor.addmv(g(v4), g(m1), g(v3), beta=beta, alpha=alpha),
         ctensor.addmv(v4, m1, v3, beta=beta, alpha=alpha))
    same(ctensor.addr(g(v5), g(v4), g(v5), beta=beta, alpha=alpha),
         ctensor.addr(v5, v4, v5, beta=beta, alpha=alpha))
    # out= and in place on a view of a larger device tensor: the other columns stay
    wide = operand((4, 7), dtype, 10)
    gw = wide.to("cuda")
    ctensor.mm(g(m1), g(m2), out=gw[:, 1:6])
    want = wide.clone()
    want[:, 1:6] = ctensor.mm(m1, m2)
    same(gw, want)
    gw[:, 1:6].addmm_(g(m1), g(m2), beta=beta, alpha=alpha)
    want[:, 1:6].addmm_(m1, m2, beta=beta, alpha=alpha)
    same(gw, want)


def test_product_errors():
    a = ctensor.randn(3, 3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, "
                       "but found at least two devices, cuda:0 and cpu!"):
        a.to("cuda") @ a
    with pytest.raises(RuntimeError, match="cpu and cuda:0"):
        ctensor.mm(a, a.to("cuda"))
    with pytest.raises(RuntimeError, match="cuda:0 and cuda:1"):
        ctensor.bmm(a[None].to("cuda:0"), a[None].to("cuda:1"))
    for x, y in [(a, a.double()), (a, ctensor.randn(4, 2))]:
        with pytest.raises(RuntimeError) as cpu_err:
            ctensor.mm(x, y)
        with pytest.raises(RuntimeError) as dev_err:
            ctensor.mm(x.to("cuda"), y.to("cuda"))
        assert str(dev_err.value) == str(cpu_err.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reorder_and_triangles(dtype):
    x = operand((3, 4), dtype, 11, True)
    gx = x.to("cuda:1")
    cases = [
        lambda t: t.flip(0, 1), lambda t: ctensor.fliplr(t), lambda t: ctensor.flipud(t),
        lambda t: t.roll(1, 0), lambda t: ctensor.roll(t, (1, -2), (0, 1)),
        lambda t: t.roll(5), lambda t: t.repeat(2, 1, 3), lambda t: ctensor.tile(t, (2,)),
        lambda t: ctensor.diag(t, 1), lambda t: ctensor.diag(t[0]),
        lambda t: ctensor.diag_embed(t, 1, 0, 2), lambda t: ctensor.tril(t),
        lambda t: t.triu(1), lambda t: ctensor.tril(t, -1),
    ]
    for f in cases:
        same(f(gx), f(x), "cuda:1")
    want, got = x.clone(), gx.clone()
    want[1:].tril_()
    got[1:].tril_()
    same(got, want, "cuda:1")
    out = ctensor.empty(0, dtype=dtype, device="cuda:1")
    ctensor.triu(gx, 1, out=out)
    same(out, ctensor.triu(x, 1), "cuda:1")
    with pytest.raises(IndexError) as cpu_err:
        ctensor.tril(x[0])
    with pytest.raises(IndexError) as dev_err:
        ctensor.tril(gx[0])
    assert str(dev_err.value) == str(cpu_err.value)


def test_unique_and_nuclear_norm():
    x = ctensor.tensor([[1, 2], [3, 4], [1, 2], [1, 2]])
    for kw in [dict(dim=0), dict(dim=1), dict(dim=0, return_inverse=True, return_counts=True)]:
        got, want = ctensor.unique(x.to("cuda"), **kw), ctensor.unique(x, **kw)
        if isinstance(want, tuple):
            for g, w in zip(got, want):
                same(g, w)
        else:
            same(got, want)
    got, want = ctensor.unique_consecutive(x.to("cuda")), ctensor.unique_consecutive(x)
    same(got, want)
    m = operand((2, 4, 3), ctensor.float64, 12)
    same(ctensor.norm(m.to("cuda"), p="nuc", dim=(1, 2)), ctensor.norm(m, p="nuc", dim=(1, 2)))
