"""sort, argsort, msort, topk, kthvalue and unique against torch 1.13: values, stable-sort
indices exactly, result dtypes, shapes and strides; duplicates, NaN (the largest), -0.0 / 0.0,
infinities; every dim, descending, non-contiguous inputs, empty and 0-dim tensors; errors
(type and message) for complex and dtypes without kernels, bad dims and bad k; out= for sort;
the same results for 1 and 2 threads. topk / kthvalue / unsorted results leave the choice
among equal elements open, so there the values are compared and the indices checked to point
at them."""
import numpy as np
import pytest

import ctensor
import torch
from test_tensor_common import same

REAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
        "float64"]
NAN = float("nan")
INF = float("inf")


def data(dtype, shape, seed):
    """Values with many duplicates; floats add NaN, infinities and both zeros."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        v = rng.integers(0, 2, n).astype(np.float64)
    elif dtype == "uint8":
        v = rng.integers(0, 256, n).astype(np.float64)
    elif dtype.startswith("int"):
        v = rng.integers(-100, 100, n).astype(np.float64)
        if n > 2 and dtype != "int8":
            v[0] = {"int16": -32768, "int32": -2**31, "int64": -2**62}[dtype]
    else:
        v = rng.integers(-8, 8, n).astype(np.float64) / 4
        special = [NAN, INF, -INF, -0.0, 0.0, -NAN]
        for i in range(min(n, 6)):
            v[rng.integers(0, n)] = special[i]
    return v.reshape(shape).tolist()


def make(lib, dtype, shape, seed, layout="contiguous"):
    t = lib.tensor(data(dtype, shape, seed), dtype=lib.float64).to(getattr(lib, dtype))
    if layout == "transposed" and t.dim() >= 2:
        t = t.transpose(0, -1).contiguous().transpose(0, -1)
    elif layout == "sliced" and t.dim() >= 1:
        t = lib.cat([t, t], dim=-1)[..., ::2] if t.shape[-1] > 0 else t
    return t


SHAPES = [(), (1,), (7,), (40,), (3, 5), (4, 33), (2, 3, 4), (0,), (3, 0), (200,)]


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort_stable(dtype, shape):
    for layout in ("contiguous", "transposed", "sliced"):
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            for desc in (False, True):
                same(lambda lib: lib.sort(make(lib, dtype, shape, 1, layout), dim=dim,
                                          descending=desc, stable=True))
                same(lambda lib: lib.argsort(make(lib, dtype, shape, 2, layout), dim=dim,
                                             descending=desc, stable=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bfloat16"])
def test_sort_long_rows_and_methods(dtype):
    same(lambda lib: make(lib, dtype, (5000,), 3).sort(stable=True))
    same(lambda lib: make(lib, dtype, (3, 3000), 4).sort(dim=0, descending=True, stable=True))
    same(lambda lib: make(lib, dtype, (300, 70), 5).argsort(dim=1, stable=True))
    same(lambda lib: lib.msort(make(lib, dtype, (60, 3), 6)))
    same(lambda lib: make(lib, dtype, (60, 3), 7).msort())


def test_sort_unstable_values():
    """stable=False (the default): the values are torch's; the indices point at them."""
    for lib in (ctensor,):
        x = make(lib, "float32", (6, 50), 8)
        v, i = lib.sort(x, 1)
        t = torch.tensor(x.tolist())
        tv, _ = torch.sort(t, 1)
        assert torch.equal(torch.tensor(v.tolist()).nan_to_num(9.0), tv.nan_to_num(9.0))
        got = torch.tensor(x.tolist()).gather(1, torch.tensor(i.tolist()))
        assert torch.equal(got.isnan(), tv.isnan())


def test_sort_out():
    same(lambda lib: lib.sort(lib.tensor([3., 1., 2.]), out=(lib.empty(0), lib.empty(0, dtype=lib.int64))))
    same(lambda lib: lib.sort(lib.tensor([3., 1., 2.]), out=(lib.empty(0, dtype=lib.int64), lib.empty(0, dtype=lib.int64))))
    same(lambda lib: lib.sort(lib.tensor([3., 1., 2.]), out=(lib.empty(0), lib.empty(0))))

    def keep(lib):
        v, i = lib.empty(3), lib.empty(3, dtype=lib.int64)
        r = lib.sort(lib.tensor([3., 1., 2.]), descending=True, out=(v, i))
        return r, r[0] is v, r[1] is i, v, i
    same(keep)


def _check_selection(x, v, i, dim):
    """v / i of ctensor's topk or kthvalue: the values at the indices along dim are v."""
    t = torch.tensor(x.tolist(), dtype=getattr(torch, str(x.dtype).split(".")[1]))
    tv = torch.tensor(v.tolist(), dtype=t.dtype)
    ti = torch.tensor(i.tolist())
    if t.dim() == 0 or ti.numel() == 0:
        return
    got = t.gather(dim, ti if ti.dim() == t.dim() else ti.unsqueeze(dim))
    got = got if ti.dim() == t.dim() else got.squeeze(dim)
    assert torch.equal(got.isnan(), tv.isnan()) if t.is_floating_point() else True
    mask = ~tv.isnan() if t.is_floating_point() else torch.ones_like(tv, dtype=torch.bool)
    assert torch.equal(got[mask], tv[mask])


TOPK_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("dtype", TOPK_DTYPES)
@pytest.mark.parametrize("shape", [(), (7,), (40,), (3, 5), (2, 3, 4), (9000,), (3, 0)])
def test_topk(dtype, shape):
    nd = max(len(shape), 1)
    for dim in range(-nd, nd):
        n = shape[dim] if shape else 1
        # k = 0 of a 0-dim input too: its one-element result is the input, as in PyTorch
        for k in sorted({0, min(1, n), min(2, n), min(50, n), n}):
            for largest in (True, False):
                def values(lib):
                    r = lib.topk(make(lib, dtype, shape, 9, "transposed"), k, dim, largest)
                    return r.values, r.indices.dtype, r.indices.shape, r.indices.stride()
                same(values)
                x = make(ctensor, dtype, shape, 9, "transposed")
                v, i = ctensor.topk(x, k, dim, largest)
                _check_selection(x, v, i, dim)


@pytest.mark.parametrize("dtype", TOPK_DTYPES)
@pytest.mark.parametrize("shape", [(), (7,), (40,), (3, 5), (2, 3, 4)])
def test_kthvalue(dtype, shape):
    nd = max(len(shape), 1)
    for dim in range(-nd, nd):
        n = shape[dim] if shape else 1
        for k in sorted({1, (n + 1) // 2, n}):
            for keepdim in (False, True):
                def values(lib):
                    r = lib.kthvalue(make(lib, dtype, shape, 10, "sliced"), k, dim, keepdim)
                    return r.values, r.indices.dtype, r.indices.shape
                same(values)
                x = make(ctensor, dtype, shape, 10, "sliced")
                v, i = x.kthvalue(k, dim, keepdim=keepdim)
                _check_selection(x, v, i, dim) if keepdim else None


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "bfloat16", "float32", "float64"])
def test_unique(dtype):
    for shape in [(), (0,), (9,), (4, 6), (3000,)]:
        def fn(lib, inv, cnt):
            x = make(lib, dtype, shape, 11, "transposed")
            if x.is_floating_point():  # torch 1.13 gives no consistent answer for NaN
                x = lib.where(x != x, lib.tensor(0.5, dtype=x.dtype), x)
                # torch 1.13 keeps -0.0 and 0.0 apart in bfloat16 (not in float32 / float64)
                x = lib.where(x == 0, lib.tensor(0.0, dtype=x.dtype), x)
            return lib.unique(x, return_inverse=inv, return_counts=cnt)
        for inv in (False, True):
            for cnt in (False, True):
                same(lambda lib: fn(lib, inv, cnt))
    same(lambda lib: lib.tensor([3, 1, 3, 2]).unique(sorted=True, return_counts=True))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_refused(dtype):
    for fn in (lambda lib, x: lib.sort(x), lambda lib, x: lib.argsort(x),
               lambda lib, x: lib.msort(x), lambda lib, x: lib.topk(x, 1),
               lambda lib, x: lib.kthvalue(x, 1), lambda lib, x: lib.unique(x)):
        same(lambda lib: fn(lib, lib.zeros(3, dtype=getattr(lib, dtype))))


def test_kernel_dtypes_refused():
    same(lambda lib: lib.topk(lib.tensor([True, False]), 1))
    same(lambda lib: lib.topk(lib.tensor([1., 2.], dtype=lib.float16), 1))
    same(lambda lib: lib.kthvalue(lib.tensor([True, False]), 1))
    same(lambda lib: lib.kthvalue(lib.tensor([1., 2.], dtype=lib.float16), 1))
    same(lambda lib: lib.unique(lib.tensor([1., 2.], dtype=lib.float16)))


def test_errors():
    x = lambda lib: lib.arange(5.)  # noqa: E731
    same(lambda lib: lib.topk(x(lib), 6))
    same(lambda lib: lib.topk(x(lib), -1))
    same(lambda lib: lib.topk(lib.tensor(3.), 2))
    same(lambda lib: lib.kthvalue(x(lib), 6))
    same(lambda lib: lib.kthvalue(x(lib), 0))
    same(lambda lib: lib.kthvalue(lib.empty(0), 1))
    same(lambda lib: lib.kthvalue(lib.empty(2, 0), 1, 0))
    same(lambda lib: lib.sort(x(lib), dim=2))
    same(lambda lib: lib.sort(lib.tensor(3.), dim=-2))
    same(lambda lib: lib.topk(x(lib), 2, dim=1))
    same(lambda lib: lib.argsort(x(lib), 3))


def test_meta():
    def desc(r):
        return [(tuple(t.shape), t.stride(), str(t.dtype).split(".")[1], str(t.device))
                for t in r]
    same(lambda lib: desc(lib.sort(lib.empty(3, 4, device="meta"), 0)))
    same(lambda lib: desc(lib.topk(lib.empty(3, 4, device="meta"), 2)))
    # torch 1.13 has no meta kthvalue; ctensor gives the shapes
    r = ctensor.kthvalue(ctensor.empty(3, 4, device="meta"), 2, 0)
    assert desc(r) == [((4,), (1,), "float32", "meta"), ((4,), (1,), "int64", "meta")]


def test_threads_same_results():
    old = ctensor.get_num_threads()
    try:
        x = make(ctensor, "float32", (64, 1000), 12)
        ctensor.set_num_threads(1)
        a = ctensor.sort(x, 1, stable=True)
        b = ctensor.topk(x, 10, 1)
        ctensor.set_num_threads(2)
        c = ctensor.sort(x, 1, stable=True)
        d = ctensor.topk(x, 10, 1)
        assert a.indices.tolist() == c.indices.tolist()
        assert b.indices.tolist() == d.indices.tolist()
    finally:
        ctensor.set_num_threads(old)
