"""Reductions (sum, mean, prod, amax, amin, all, any) against torch 1.13: every shared dtype x
shapes (0-dim, empty, several dims) x dims (None, int, negative, tuples) x keepdim x layouts
(contiguous, transposed, permuted, expanded, sliced): result dtype, shape, strides and
values (bitwise: the data are small integers, so every summation order gives the same
sums, and the products stay exact), NaN propagation, errors (type and message), argument
forms (positional dim, axis=, keepdim as a keyword, dtype=, out=), and the float32 sum's
accuracy against torch's on a large input."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch
from test_tensor_common import same

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128", "bool", "bfloat16"]
OPS = ["sum", "mean", "prod", "amax", "amin", "all", "any"]


def build(lib, data, dtype, layout):
    """The tensor of `data` (a numpy int array) in `dtype`, laid out as `layout` says."""
    if layout == "sliced" and data.ndim >= 1:
        both = np.repeat(data, 2, axis=0)
        return lib.tensor(both.tolist(), dtype=getattr(lib, dtype))[::2]
    t = lib.tensor(data.tolist(), dtype=getattr(lib, dtype)) if data.ndim else \
        lib.tensor(int(data), dtype=getattr(lib, dtype))
    if layout == "transposed" and t.dim() >= 2:
        t = t.transpose(0, t.dim() - 1).contiguous().transpose(0, t.dim() - 1)
    elif layout == "permuted" and t.dim() >= 3:
        t = t.permute(2, 0, 1).contiguous().permute(1, 2, 0)
    elif layout == "expanded" and t.dim() >= 1 and t.shape[0] == 1:
        t = t.expand(3, *t.shape[1:])
    return t


def call(lib, op, x, dims, keepdim, dtype, method):
    if lib is torch and op == "prod" and x.dtype in (torch.float16, torch.bfloat16) \
            and dtype is None:
        # torch 1.13 has no float16 / bfloat16 prod on the cpu ("prod_cpu" not implemented
        # for 'Half'); newest PyTorch has (prod_out_cpu), computing in float32: so here
        return call(lib, op, x.float(), dims, keepdim, dtype, method).to(x.dtype)
    kw = {}
    if dtype is not None:
        kw["dtype"] = getattr(lib, dtype)
    if op in ("prod", "all", "any") and dims is not None:
        dims = dims[0] if isinstance(dims, tuple) and len(dims) == 1 else dims
    if dims is None:
        return getattr(x, op)(**kw) if method else getattr(lib, op)(x, **kw)
    if method:
        return getattr(x, op)(dims, keepdim=keepdim, **kw)
    return getattr(lib, op)(x, dims, keepdim, **kw)


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4)


@settings(max_examples=700, derandomize=True)
@given(shape=shapes, dtype=st.sampled_from(DTYPES), op=st.sampled_from(OPS),
       layout=st.sampled_from(["contiguous", "transposed", "permuted", "expanded", "sliced"]),
       dimsel=st.integers(0, 15), ndimsel=st.integers(0, 3), keepdim=st.booleans(),
       method=st.booleans(), seed=st.integers(0, 2**16))
def test_reduce_vs_torch(shape, dtype, op, layout, dimsel, ndimsel, keepdim, method, seed):
    rng = np.random.default_rng(seed)
    lo = 0 if dtype in ("uint8", "bool") else -2
    data = rng.integers(lo, 3, size=shape) if shape else np.array(rng.integers(lo, 3))
    if layout == "expanded" and shape:
        data = data[:1]
    nd = len(shape)
    if ndimsel == 0:
        dims = None
    elif nd == 0:
        dims = (-1,) if dimsel % 2 else (0,)
    else:
        k = min(ndimsel, nd)
        dims = tuple(((dimsel + 3 * i) % nd) - (nd if (dimsel + i) % 2 else 0)
                     for i in range(k))
        if len({d % nd for d in dims}) != len(dims):
            dims = dims[:1]
        if op in ("prod", "all", "any"):
            dims = dims[:1]
    same(lambda m: call(m, op, build(m, data, dtype, layout), dims, keepdim, None, method))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "mean", "prod"])
@pytest.mark.parametrize("to", ["float16", "float32", "float64", "int32", "int64",
                                "bfloat16", "complex64"])
def test_dtype_argument(op, dtype, to):
    data = np.array([[1, 2, 0], [2, 1, 1]])

    def fn(m, *dim):
        x = build(m, data, dtype, "contiguous")
        if m is torch and op == "prod" and to in ("float16", "bfloat16"):
            # no float16 / bfloat16 prod in torch 1.13's cpu kernels (newest PyTorch has one,
            # computing in float32): the float32 product, rounded
            return getattr(x.to(getattr(m, to)).float(), op)(*dim).to(getattr(m, to))
        return getattr(x, op)(*dim, dtype=getattr(m, to))

    same(lambda m: fn(m))
    same(lambda m: fn(m, 1))


@pytest.mark.parametrize("src", ["float32", "float64", "int32"])
@pytest.mark.parametrize("op", ["sum", "mean", "nansum", "nanmean"])
@pytest.mark.parametrize("to", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", ["dtype", "out"])
def test_dtype_argument_rounds_the_input_first(src, op, to, form):
    """dtype= (and an out= of another dtype) casts the input before reducing: values that
    float16 / bfloat16 cannot hold are rounded one by one, then summed. The sums of the
    rounded values are exact in float32, so the results are bitwise."""
    if src == "int32" and op in ("mean", "nanmean"):
        pytest.skip("mean of integers takes a floating dtype= only")
    rng = np.random.default_rng(7)
    scale = 1 if src == "int32" else 64
    data = (rng.integers(-40000, 40000, size=(3, 6)) / scale).tolist()
    if src == "int32":
        data = [[int(v) for v in row] for row in data]

    def fn(m):
        x = m.tensor(data, dtype=getattr(m, src))
        if form == "dtype":
            return getattr(m, op)(x, 1, dtype=getattr(m, to))
        if op in ("mean", "nanmean"):
            pytest.skip("mean's out= must have the dtype= or the input's dtype")
        out = m.empty(0, dtype=getattr(m, to))
        getattr(m, op)(x, 1, out=out)
        return out

    same(fn)


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "int8", "uint8", "bool"])
@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("form", ["dtype", "out"])
def test_bool_result_casts_the_input_first(src, op, form):
    """sum / prod into bool cast the input to bool first and then add (or) / multiply (and):
    [2, 1, -3] sums to True although its integer sum is 0, and [0.5, 4.0] has product True
    although 0.5 truncates to 0."""
    data = {"float32": [[0.5, 4.0, 0.0], [-0.0, 0.25, 2.0], [0.0, -0.0, 0.0]],
            "float64": [[0.5, float("nan"), 1.0], [0.0, 0.0, 0.0], [3.0, -0.5, 0.125]],
            "int64": [[2, 1, -3], [0, 5, 0], [0, 0, 0]],
            "int8": [[2, -2, 0], [1, 1, 1], [0, 0, 0]],
            "uint8": [[2, 254, 0], [1, 1, 1], [0, 0, 0]],
            "bool": [[True, False, True], [True, True, True], [False, False, False]]}[src]

    def fn(m, *dim):
        x = m.tensor(data, dtype=getattr(m, src))
        if form == "dtype":
            return getattr(m, op)(x, *dim, dtype=m.bool)
        out = m.empty(0, dtype=m.bool)
        getattr(m, op)(x, *dim, out=out)
        return out

    if form == "dtype":
        same(fn)
    for d in (0, 1):
        same(lambda m: fn(m, d))


NAN = float("nan")
CASES = {
    "nan_amax": lambda m: m.tensor([1.0, NAN, 3.0]).amax(),
    "nan_amin_dim": lambda m: m.tensor([[1.0, NAN], [0.0, 2.0]]).amin(0),
    "nan_sum": lambda m: m.tensor([1.0, NAN]).sum(),
    "inf_amax": lambda m: m.tensor([-math.inf, -1.0]).amax(),
    "nan_all": lambda m: m.tensor([NAN, 1.0]).all(),
    "empty_sum": lambda m: m.zeros(0, 3).sum(),
    "empty_mean": lambda m: m.zeros(0, 3).mean(0),
    "empty_prod": lambda m: m.zeros(0, 3, dtype=m.int32).prod(0),
    "empty_all": lambda m: m.zeros(0).all(),
    "empty_any": lambda m: m.zeros(0, dtype=m.uint8).any(),
    "empty_amax": lambda m: m.zeros(0, 3).amax(),
    "empty_amax_dim": lambda m: m.zeros(0, 3).amax(0),
    "empty_amin_dims": lambda m: m.zeros(2, 0).amin((0, 1)),
    "empty_amax_kept": lambda m: m.zeros(0, 3).amax(1),
    "out_of_range": lambda m: m.zeros(2, 3).sum(2),
    "out_of_range_neg": lambda m: m.zeros(2, 3).mean(-3),
    "out_of_range_0dim": lambda m: m.tensor(1.0).sum(1),
    "duplicate": lambda m: m.zeros(2, 3).sum((0, 0)),
    "duplicate_neg": lambda m: m.zeros(2, 3).amax((1, -1)),
    "mean_int": lambda m: m.zeros(2, dtype=m.int64).mean(),
    "mean_bool": lambda m: m.zeros(2, dtype=m.bool).mean(0),
    "mean_int_dtype": lambda m: m.ones(3, dtype=m.int32).mean(dtype=m.float64),
    "mean_dtype_int": lambda m: m.ones(3).mean(dtype=m.int64),
    "axis": lambda m: m.ones(2, 3).sum(axis=1),
    "axis_fn": lambda m: m.mean(m.ones(2, 3), axis=0),
    "axis_amax": lambda m: m.arange(6.0).reshape(2, 3).amax(axis=1),
    "keepdim_kw": lambda m: m.ones(2, 3).sum(1, keepdim=True),
    "dim_kw": lambda m: m.ones(2, 3).sum(dim=(0, 1)),
    "dim_none": lambda m: m.ones(2, 3).sum(dim=None),
    "dim_list": lambda m: m.ones(2, 3, 4).sum([0, 2]),
    "dim_empty_tuple": lambda m: m.ones(2, 3).sum(()),
    "prod_dim": lambda m: m.arange(1.0, 7.0).reshape(2, 3).prod(1, True),
    "all_dim": lambda m: m.tensor([[1, 0], [1, 1]]).all(1),
    "any_uint8": lambda m: m.tensor([0, 3], dtype=m.uint8).any(),
    "zero_dim": lambda m: m.tensor(3.5).sum(0, keepdim=True),
    "half_sum": lambda m: m.full((100,), 0.1, dtype=m.float16).sum(),
    "bf16_mean": lambda m: m.full((100,), 0.1, dtype=m.bfloat16).mean(),
    "f32_mean": lambda m: m.full((1000,), 0.5).mean(),
    "name_dim": lambda m: m.ones(2, 3).sum("a"),
    "name_dims": lambda m: m.ones(2, 3).mean(["a", "b"]),
    "name_dim_prod": lambda m: m.prod(m.ones(2, 3), "a"),
    "int_wrap": lambda m: m.tensor([2**62, 2**62, 2**62]).sum(),
    "int32_sum": lambda m: m.tensor([2**31 - 1, 2**31 - 1], dtype=m.int32).sum(),
    "int32_sum_dtype": lambda m: m.tensor([2**31 - 1, 1], dtype=m.int32).sum(dtype=m.int32),
    "bool_sum": lambda m: m.tensor([True, True]).sum(),
    "float_to_int": lambda m: m.tensor([1.5, 2.5]).sum(dtype=m.int64),
    "complex_sum": lambda m: m.tensor([1 + 2j, 3 - 1j]).sum(),
    "complex_mean": lambda m: m.tensor([1 + 2j, 3 - 1j]).mean(),
    "amax_complex": lambda m: m.tensor([1 + 2j]).amax(),
    "channels_last": lambda m: m.arange(120.0).reshape(2, 3, 4, 5).contiguous(
        memory_format=m.channels_last).sum(1, keepdim=True),
    "channels_last_hw": lambda m: m.arange(120.0).reshape(2, 3, 4, 5).contiguous(
        memory_format=m.channels_last).amax((2, 3)),
    "bad_dim_type": lambda m: m.ones(2).sum(1.5),
    "bad_keepdim": lambda m: m.ones(2).sum(0, 1),
    "prod_tuple": lambda m: m.ones(2, 3).prod((0, 1)),
    "all_tuple": lambda m: m.all(m.ones(2, 3), (0, 1)),
    "amax_dtype": lambda m: m.ones(2).amax(dtype=m.float64),
    "meta": lambda m: m.ones(2, 3, device="meta").sum(1).shape,
    "meta_dtype": lambda m: m.ones(2, 3, device="meta", dtype=m.int8).sum().dtype,
}


@pytest.mark.parametrize("name", CASES)
def test_cases(name):
    same(CASES[name])


OUT_CASES = {
    "sum_long": lambda m: m.sum(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.long)),
    "sum_double": lambda m: m.sum(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.float64)),
    "sum_dtype_mismatch": lambda m: m.sum(m.ones(2, 3), 1, dtype=m.float64, out=m.zeros(2)),
    "sum_dtype_mismatch_long": lambda m: m.sum(m.ones(2, 3), 1, dtype=m.float32,
                                               out=m.zeros(2, dtype=m.long)),
    "sum_keepdim": lambda m: m.sum(m.ones(2, 3), 0, True, out=m.zeros(1, 3)),
    "sum_resize_empty": lambda m: m.sum(m.ones(2, 3), 0, out=m.zeros(0)),
    "sum_noncontig_out": lambda m: m.sum(m.ones(3, 2), 1, out=m.zeros(3, 2)[:, 0]),
    "mean_double": lambda m: m.mean(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.float64)),
    "mean_int_out": lambda m: m.mean(m.ones(2, 3, dtype=m.long), 1, out=m.zeros(2)),
    "prod_int32": lambda m: m.prod(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.int32)),
    "amax_same": lambda m: m.amax(m.ones(2, 3), 1, out=m.zeros(2)),
    "amax_mismatch": lambda m: m.amax(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.float64)),
    "all_bool": lambda m: m.all(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.bool)),
    "all_double": lambda m: m.all(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.float64)),
    "all_uint8_out": lambda m: m.all(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.uint8)),
    "any_uint8_bool_out": lambda m: m.any(m.ones(2, 3, dtype=m.uint8), 1,
                                          out=m.zeros(2, dtype=m.bool)),
}


@pytest.mark.parametrize("name", OUT_CASES)
def test_out(name):
    same(OUT_CASES[name])


def test_out_resize_warns():
    x, o = ctensor.ones(2, 3), ctensor.zeros(5)
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required "
                                         r"output shape \[2\]"):
        ctensor.sum(x, 1, out=o)
    assert o.tolist() == [3.0, 3.0]


def test_float32_sum_accuracy_and_threads():
    rng = np.random.default_rng(1)
    data = rng.standard_normal(3 * 10**6).astype(np.float32) + 1.0
    ref = float(np.sum(data, dtype=np.float64))
    t = torch.from_numpy(data)
    c = ctensor.from_dlpack(t)
    ct_err = abs(c.sum().item() - ref)
    th_err = abs(t.sum().item() - ref)
    assert ct_err <= max(th_err * 2, abs(ref) * 2e-7), (ct_err, th_err)
    saved = ctensor.get_num_threads()
    try:
        outs = []
        for n in (1, 2):
            ctensor.set_num_threads(n)
            outs.append((c.sum().item(), c.reshape(3000, 1000).sum(0).tolist(),
                         c.reshape(1000, 3000).sum(1).tolist()))
        assert outs[0] == outs[1]
    finally:
        ctensor.set_num_threads(saved)
    # outer and inner reductions agree with torch's closely
    np.testing.assert_allclose(c.reshape(3000, 1000).sum(0).tolist(),
                               t.reshape(3000, 1000).sum(0).tolist(), rtol=1e-5)


# ---- max / min (whole tensor, with a dim: values and indices), argmax / argmin --------------

def unpack(r):
    """A (values, indices) named tuple as both: fields by name, and by unpacking."""
    values, indices = r
    assert r.values is values and r.indices is indices
    return (type(r).__name__, values, indices)


ARG_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
              "bool", "bfloat16", "complex64"]


@settings(max_examples=400, derandomize=True)
@given(shape=shapes, dtype=st.sampled_from(ARG_DTYPES),
       op=st.sampled_from(["max", "min", "argmax", "argmin"]), dimsel=st.integers(-5, 5),
       use_dim=st.booleans(), keepdim=st.booleans(), method=st.booleans(),
       layout=st.sampled_from(["contiguous", "transposed", "permuted", "sliced"]),
       nan=st.booleans(), seed=st.integers(0, 2**16))
def test_arg_vs_torch(shape, dtype, op, dimsel, use_dim, keepdim, method, layout, nan, seed):
    rng = np.random.default_rng(seed)
    lo = 0 if dtype in ("uint8", "bool") else -2
    data = rng.integers(lo, 3, size=shape) if shape else np.array(rng.integers(lo, 3))

    def fn(m):
        x = build(m, data, dtype, layout)
        if nan and dtype.startswith(("float", "bfloat")) and x.numel() > 1:
            x = x.clone() if hasattr(x, "clone") else x
            x.view(-1)[x.numel() // 2] = float("nan") if x.is_contiguous() else 0
        f = getattr(x, op) if method else (lambda *a, **k: getattr(m, op)(x, *a, **k))
        if not use_dim:
            return f(keepdim=keepdim) if op.startswith("arg") else f()
        r = f(dimsel, keepdim=keepdim) if not method else f(dimsel, keepdim)
        return unpack(r) if op in ("max", "min") else r

    same(fn)


ARG_CASES = {
    "max_nan": lambda m: m.tensor([1.0, float("nan"), 3.0, float("nan")]).max(0),
    "argmax_nan": lambda m: m.tensor([[1.0, float("nan")], [5.0, 2.0]]).argmax(),
    "argmin_ties": lambda m: m.tensor([2, 1, 1, 3]).argmin(),
    "max_empty": lambda m: m.zeros(0).max(),
    "min_empty_dim": lambda m: m.zeros(0, 2).min(0),
    "argmax_empty": lambda m: m.zeros(0).argmax(),
    "argmax_empty_dim": lambda m: m.zeros(2, 0).argmax(-1),
    "argmax_kept_empty": lambda m: unpack(m.zeros(0, 2).max(1)),
    "max_complex": lambda m: m.zeros(2, dtype=m.complex64).max(0),
    "argmax_bool": lambda m: m.zeros(2, dtype=m.bool).argmax(),
    "max_name": lambda m: m.ones(2).max("a"),
    "max_dim_kw": lambda m: unpack(m.max(m.arange(6.0).reshape(2, 3), dim=1, keepdim=True)),
    "argmax_keepdim_all": lambda m: m.arange(6.0).reshape(2, 3).argmax(keepdim=True),
    "max_zero_dim": lambda m: unpack(m.tensor(3.0).max(0)),
    "max_out_of_range": lambda m: m.ones(2, 3).max(2),
}


@pytest.mark.parametrize("name", ARG_CASES)
def test_arg_cases(name):
    same(ARG_CASES[name])


@pytest.mark.parametrize("dtype", ["bool", "complex64", "float16", "int64"])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2, 1), (3,), (0, 3), (3, 0), (1, 0)])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_dtypes_without_kernels(dtype, shape, op):
    """argmax / argmin fill 0 along a given dim of size 1 and leave an empty result alone
    whatever the dtype (no kernel runs); over all dims, and for a 0-dim input, bool and
    complex have no kernel."""
    for dim in (None, 0, -1, 1):
        for keepdim in (False, True):
            def fn(m):
                x = m.ones(shape, dtype=getattr(m, dtype))
                if dim is None:
                    return getattr(x, op)(keepdim=keepdim)
                return getattr(x, op)(dim, keepdim=keepdim)
            same(fn)


def test_same_bits_at_every_isa_level():
    """Note [Reduction kernels]: 256 bytes of accumulators at every CPU level, so a float sum
    gives the same bits under CT_CPU_ISA=baseline, avx2 and avx512 (levels above the CPU's
    are lowered to it)."""
    import os
    import subprocess
    import sys
    code = ("import ctensor, torch\n"
            "torch.manual_seed(3); x = torch.randn(1000003); c = ctensor.from_dlpack(x)\n"
            "s = ctensor.from_dlpack(torch.randn(300, 1001))\n"
            "print(c.sum().item().hex(), c.double().sum().item().hex(), s.sum(0).tolist()[:5],"
            " c.amax().item(),"
            " ctensor.from_dlpack(torch.randn(1009, 991)).sum(1).tolist()[:5])\n")
    outs = set()
    for isa in ("baseline", "avx2", "avx512"):
        env = dict(os.environ, CT_CPU_ISA=isa)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True)
        outs.add(r.stdout)
    assert len(outs) == 1, outs


def _long_row_cases():
    """Rows long enough for the vector blocks (several blocks of 32768, arg chunks of 65536
    and a tail), with NaN, infinities and signed zeros placed at block edges."""
    n = 100003
    cases = []
    for pos in ([0], [7], [32767], [32768], [65537], [n - 1], [40000, 9000], [70000, 99999]):
        cases.append((f"nan@{pos}", n, {p: float("nan") for p in pos}))
    cases.append(("nan_and_inf", n, {123: float("inf"), 50000: float("nan"), 7: float("-inf")}))
    cases.append(("inf_both", n, {32768: float("inf"), 99990: float("-inf"), 5: float("inf")}))
    cases.append(("ties", n, {10: 9.0, 32770: 9.0, 99999: 9.0, 11: -9.0, 65600: -9.0}))
    return cases


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _long_row_cases(), ids=lambda c: c[0])
def test_long_row_extremes_vs_torch(case, dtype):
    """amax / amin / max / min / argmax / argmin / max(dim) / aminmax of long contiguous rows
    (the vector loops of reduce_loops.c) against torch 1.13: NaN propagates (argmax and max(dim)
    give the first NaN's index), infinities, ties (the first index), and signed zeros (the
    zero-filled rest: -0.0 and 0.0 mixed), with 1 and 2 threads."""
    name, n, special = case
    g = torch.Generator().manual_seed(len(name))
    base = torch.rand(n, generator=g, dtype=getattr(torch, dtype)) * 2 - 1
    zeros = torch.rand(n, generator=g) < 0.3
    base[zeros] = torch.where(torch.rand(int(zeros.sum()), generator=g) < 0.5, -0.0, 0.0).to(
        base.dtype)
    for p, v in special.items():
        base[p] = v
    variants = [base, base.abs().neg()]  # the second: many -0.0 / 0.0 ties at the top
    saved, saved_torch = ctensor.get_num_threads(), torch.get_num_threads()
    try:
        for t in variants:
            c = ctensor.from_dlpack(t)
            for threads in (1, 2):
                ctensor.set_num_threads(threads)
                torch.set_num_threads(threads)
                for op in ("amax", "amin", "max", "min", "argmax", "argmin"):
                    want, got = getattr(t, op)(), torch.from_dlpack(getattr(c, op)())
                    _same_value(want, got, op)
                for op in ("max", "min"):
                    wv, wi = getattr(t, op)(0)
                    gv, gi = getattr(c, op)(0)
                    _same_value(wv, torch.from_dlpack(gv), op)
                    assert int(torch.from_dlpack(gi)) == int(wi), op
                wmn, wmx = torch.aminmax(t)
                gmn, gmx = ctensor.aminmax(c)
                _same_value(wmn, torch.from_dlpack(gmn), "aminmax")
                _same_value(wmx, torch.from_dlpack(gmx), "aminmax")
    finally:
        ctensor.set_num_threads(saved)
        torch.set_num_threads(saved_torch)


def _same_value(want, got, op):
    if want.dtype == torch.int64:
        assert int(got) == int(want), op
    elif math.isnan(float(want)):
        assert math.isnan(float(got)), op
    else:
        assert float(got) == float(want), op
        assert math.copysign(1, float(got)) == math.copysign(1, float(want)), op
