"""The unary ops of ctensor/unary.def against torch 1.13: every op x every dtype (dimensioned,
zero-dim, empty, non-contiguous), function / method / in-place / out= forms, out= of every
dtype, in-place on views, the operators - + abs ~, round(decimals=), errors, and the
accuracy of the float32 transcendental functions (<= 1 ulp of a float64 reference).

Where torch 1.13 has no float16 kernel ('"exp_vml_cpu" not implemented for 'Half''), newest
PyTorch computes in float32 and rounds once; the expected value is torch 1.13's float32
result rounded to float16, within 1 ulp (ctensor's float32 step is SLEEF's or libm's).
complex32 has neg alone in ctensor (test_complex32_neg_vs_torch.py; torch 1.13 also has abs,
sgn, logical_not, positive for it)."""
import math
import sys
import warnings

import numpy as np
import pytest

import ctensor
import torch
from arith_compare_util import as_torch
from arith_util import torch_error, torch_warning

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
EXACT = ["neg", "positive", "abs", "sign", "sgn", "floor", "ceil", "trunc", "frac", "round",
         "logical_not", "bitwise_not", "relu"]
TRANS = ["reciprocal", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
         "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
         "atanh", "sigmoid", "erf", "erfc"]
OPS = EXACT + TRANS
NO_INPLACE = {"positive"}
NO_OUT = {"relu"}  # torch.relu has no out= overload
REAL_PREC = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53,
             "complex64": 24, "complex128": 53}


def values(name, n, seed=0):
    """Torch values of dtype `name` with the special cases first."""
    g = torch.Generator().manual_seed(seed)
    if name == "bool":
        return torch.rand(n, generator=g) > 0.5
    if name in ("uint8", "int8", "int16", "int32", "int64"):
        info = torch.iinfo(getattr(torch, name))
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        v = torch.randint(lo, hi + 1, (n,), generator=g, dtype=getattr(torch, name))
        k = min(n, 2)
        v[:k] = torch.tensor([info.min, info.max], dtype=v.dtype)[:k]
        return v
    if name.startswith("complex"):
        re = values("float64", n, seed)
        im = values("float64", n, seed + 1)
        return torch.complex(re, im).to(getattr(torch, name))
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, math.inf, -math.inf, math.nan,
               1e-3, 100.0, -100.0, 0.99, -0.99, 3.0]
    v = (torch.rand(n, generator=g, dtype=torch.float64) - 0.5) * 8
    k = min(n, len(special))
    v[:k] = torch.tensor(special[:k], dtype=torch.float64)
    return v.to(getattr(torch, name))


def to_ct(t):
    """The same bytes as a ctensor tensor."""
    name = str(t.dtype).replace("torch.", "")
    flat = t.contiguous().reshape(-1)
    raw = flat.view(torch.uint8).tolist() if flat.numel() else []
    c = ctensor.tensor(raw, dtype=ctensor.uint8)
    return c.view(getattr(ctensor, name)).reshape(tuple(t.shape))


def torch_ref(op, t):
    """torch 1.13's result, or newest PyTorch's where 1.13 has no float16 kernel."""
    try:
        return getattr(torch, op)(t), None
    except RuntimeError as e:
        if (t.dtype == torch.float16 and "not implemented for 'Half'" in str(e)
                and op != "bitwise_not"):
            r = getattr(torch, op)(t.float())
            return (r.half() if r.dtype == torch.float32 else r), None
        return None, e


# SLEEF's 1.0-ulp functions measure up to 1.0000000205 ulp against float64 (tanh, asinh,
# atanh); see test_float32_within_one_ulp_of_float64
ULP_TOL = 1.0 + 1e-7
MIN_EXP = {11: -14, 8: -126, 24: -126, 53: -1022}


def ulps(got, want, prec):
    """Distance in units of the last place of a `prec`-bit format, per element (float64);
    subnormals have the smallest normal's unit."""
    g, w = got.double(), want.double()
    both_nan = torch.isnan(g) & torch.isnan(w)
    same = (g == w) | both_nan
    e = torch.floor(torch.log2(torch.abs(w).clamp(min=1e-300))).clamp(min=MIN_EXP[prec])
    unit = torch.pow(2.0, e - (prec - 1))
    d = torch.abs(g - w) / unit
    d[same] = 0
    d[~same & (torch.isnan(g) | torch.isnan(w) | torch.isinf(g) | torch.isinf(w))] = math.inf
    return d


def reference(op, tt, dtype):
    """A float64 (complex128) reference of op(tt), rounded to the computation dtype (that of
    torch's op(tt), newest PyTorch's for float16), then to `dtype`. Also the computation
    dtype."""
    compute = torch_ref(op, tt)[0].dtype
    hi = torch.complex128 if tt.is_complex() else torch.float64
    x = tt.to(compute) if not tt.is_complex() and compute.is_floating_point else tt
    return getattr(torch, op)(x.to(hi)).to(compute).to(dtype), compute


def check_values(op, got, want, tt):
    """got (ctensor) against torch's want: bitwise for exact ops; for the others within 1 ulp
    (of the computation dtype) of the float64 reference, and complex results close to the
    complex128 reference where it is finite."""
    complex_input = tt.is_complex()
    got = as_torch(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.numel() == 0:
        return
    if op in EXACT and not want.is_complex() and not complex_input:
        if want.is_floating_point():
            # bitwise, except NaN payloads (the sign of a NaN is not specified)
            nan = torch.isnan(want)
            assert torch.equal(torch.isnan(got), nan), (got, want)
            bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[want.element_size()]
            assert torch.equal(got.masked_fill(nan, 0).view(bits),
                               want.masked_fill(nan, 0).contiguous().view(bits)), (got, want)
        else:
            assert torch.equal(got, want)
        return
    compute = want.dtype
    torch_result = want
    if op in TRANS or complex_input:
        want, compute = reference(op, tt, want.dtype)
    if want.is_complex() or complex_input:
        # C99's and PyTorch's complex functions differ in the last bits and at infinities
        # and NaNs (which component is NaN): compare where the reference is finite. Where
        # torch's own result is NaN there (sigmoid of -100-100j: exp overflows, and Smith's
        # division of 1 by inf-inf j is NaN), ctensor's must be NaN too.
        # (isfinite / isnan of a complex tensor look at both parts)
        fin = torch.isfinite(want)
        torch_nan = fin & torch.isnan(torch_result)
        if bool(torch_nan.any()):
            assert bool(torch.isnan(got[torch_nan]).all()), (got, torch_result)
            fin = fin & ~torch_nan
        single = want.dtype in (torch.complex64, torch.float32)
        assert torch.allclose(got[fin], want[fin], rtol=1e-5 if single else 1e-12,
                              atol=1e-6 if single else 1e-14), (got, want)
        return
    if want.is_floating_point() and compute.is_floating_point:
        name = str(compute).replace("torch.", "")
        # float64 computes with libm against torch's float64 reference: 2 ulps
        tol = 2 if name == "float64" else ULP_TOL
        assert float(ulps(got, want, REAL_PREC[name]).max()) <= tol, (op, got, want)
        return
    assert torch.equal(got, want)


def run_both(op, tt, form):
    ct = to_ct(tt)
    want, err = torch_ref(op, tt)
    try:
        if form == "function":
            got = getattr(ctensor, op)(ct)
        elif form == "method":
            got = getattr(ct, op)()
        else:
            got = getattr(ct, op + "_")()
            assert got is ct
    except Exception as e:
        assert err is not None, f"{op} {tt.dtype}: ctensor raised {e!r}, torch gave {want}"
        etype, emsg = torch_error(type(err), str(err))
        assert (type(e), str(e)) == (etype, emsg)
        return
    assert err is None, f"{op} {tt.dtype}: torch raised {err!r}, ctensor gave {got.dtype}"
    if form == "inplace":  # the result cast back to self's dtype (checked by both above)
        want = want.to(tt.dtype)
    check_values(op, got, want, tt)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_function_values_dtypes_errors(op, dtype):
    run_both(op, values(dtype, 64), "function")
    run_both(op, values(dtype, 1).reshape(()), "function")           # zero-dim
    run_both(op, values(dtype, 0).reshape(0, 3), "function")         # empty
    run_both(op, values(dtype, 60).reshape(6, 10)[:, ::3].t(), "function")  # non-contiguous


@pytest.mark.parametrize("op", [o for o in OPS if o not in NO_INPLACE])
@pytest.mark.parametrize("dtype", DTYPES)
def test_method_and_inplace(op, dtype):
    run_both(op, values(dtype, 24, 3), "method")
    tt = values(dtype, 24, 3).reshape(4, 6)
    ct = to_ct(tt)
    view_t, view_c = tt[:, 1::2], ct[:, 1::2]
    orig = tt.clone()
    try:
        want = getattr(torch, op)(view_t)
        werr = None
    except RuntimeError as e:
        werr = e
        if (dtype == "float16" and "not implemented for 'Half'" in str(e)
                and op != "bitwise_not"):
            werr = None
            want = getattr(torch, op)(view_t.float()).half()
    if werr is None and want.dtype != view_t.dtype:  # in-place of a float op on ints
        try:
            getattr(view_t, op + "_")()
        except RuntimeError as e:
            werr = e
    try:
        got = getattr(view_c, op + "_")()
    except Exception as e:
        assert werr is not None, repr(e)
        etype, emsg = torch_error(type(werr), str(werr))
        assert (type(e), str(e)) == (etype, emsg)
        assert torch.equal(as_torch(ct).view(torch.uint8), orig.view(torch.uint8))  # unchanged
        return
    assert werr is None, repr(werr)
    assert got is view_c
    check_values(op, view_c, torch_ref(op, orig[:, 1::2])[0].to(view_t.dtype), orig[:, 1::2])
    # the other columns unchanged
    base = as_torch(ct)
    assert torch.equal(base[:, 0::2].contiguous().view(torch.uint8),
                       orig[:, 0::2].contiguous().view(torch.uint8))


OUT_DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("op", [o for o in OPS if o != "positive" and o not in NO_OUT])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64", "bool"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_every_dtype(op, dtype, out_dtype):
    tt = values(dtype, 12, 5).reshape(3, 4)
    ct = to_ct(tt)
    tout = torch.empty(3, 4, dtype=getattr(torch, out_dtype))
    cout = ctensor.empty(3, 4, dtype=getattr(ctensor, out_dtype))
    try:
        want = getattr(torch, op)(tt, out=tout)
        werr = None
    except RuntimeError as e:
        werr = e
    try:
        got = getattr(ctensor, op)(ct, out=cout)
    except Exception as e:
        assert werr is not None, repr(e)
        etype, emsg = torch_error(type(werr), str(werr))
        assert (type(e), str(e)) == (etype, emsg)
        return
    assert werr is None, repr(werr)
    assert got is cout
    check_values(op, cout, tout, tt)


def test_out_resize_warns_like_torch():
    ct = to_ct(values("float32", 6))
    out = ctensor.empty(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ctensor.exp(ct, out=out)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.exp(values("float32", 6), out=torch.empty(2))
    assert [str(x.message) for x in w] == [torch_warning(str(x.message)) for x in wt]
    assert tuple(out.shape) == (6,)


def test_inplace_int_of_float_function():
    for op in TRANS:
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                               "output type Long"):
            getattr(ctensor.tensor([1, 2]), op + "_")()


def test_operators():
    tt = values("float32", 20)
    ct = to_ct(tt)
    check_values("neg", -ct, -tt, tt)
    check_values("abs", abs(ct), abs(tt), tt)
    assert +ct is ct
    ti = values("int32", 20)
    check_values("bitwise_not", ~to_ct(ti), ~ti, ti)
    tb = values("bool", 20)
    check_values("bitwise_not", ~to_ct(tb), ~tb, tb)
    with pytest.raises(RuntimeError) as e:
        -to_ct(tb)
    assert str(e.value) == ("Negation, the `-` operator, on a bool tensor is not supported. If "
                            "you are trying to invert a mask, use the `~` or `logical_not()` "
                            "operator instead.")
    # the operator refuses floating and complex tensors itself (PyTorch's THPVariable_invert,
    # 1.13 and newest); the function's kernel error stays
    with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on integer "
                                        "and Boolean-type tensors$"):
        ~ct
    with pytest.raises(TypeError):
        ~tt
    with pytest.raises(NotImplementedError, match="\"bitwise_not_cpu\" not implemented for "
                                                  "'Float'"):
        ct.bitwise_not()
    assert torch.positive(tt) is tt and ctensor.positive(ct) is ct


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 2, 3])
def test_round_decimals(dtype, decimals):
    tt = (values("float64", 200, 9) * 1000).to(getattr(torch, dtype))
    ct = to_ct(tt)
    check_values("round", ctensor.round(ct, decimals=decimals),
                 torch.round(tt, decimals=decimals), tt)
    check_values("round", ct.round(decimals=decimals), tt.round(decimals=decimals), tt)
    ct.round_(decimals=decimals)
    check_values("round", ct, tt.clone().round_(decimals=decimals), tt)


def test_meta_and_default_dtype():
    m = ctensor.empty(2, 3, device="meta", dtype=ctensor.int32)
    r = ctensor.exp(m)
    assert r.device.type == "meta" and r.dtype == ctensor.float32 and tuple(r.shape) == (2, 3)
    old = ctensor.get_default_dtype()
    ctensor.set_default_dtype(ctensor.float64)
    try:
        assert ctensor.sin(ctensor.tensor([1, 2])).dtype == ctensor.float64
    finally:
        ctensor.set_default_dtype(old)
    # output layout follows the input (channels_last stays channels_last)
    t = torch.rand(2, 3, 4, 5).to(memory_format=torch.channels_last)
    c = to_ct(t.contiguous()).contiguous(memory_format=ctensor.channels_last)
    assert tuple(ctensor.exp(c).stride()) == tuple(torch.exp(t).stride())


def test_type_error_for_non_tensor():
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not int"):
        ctensor.exp(3)


@pytest.mark.parametrize("op", sorted(NO_OUT))
def test_no_out_like_torch(op):
    """Rows without out= (their `out` column) refuse it with torch's TypeError."""
    calls = [lambda L: getattr(L, op)(L.ones(2), out=L.empty(2)),
             lambda L: getattr(L, op)(L.ones(2), L.ones(2)),
             lambda L: getattr(L, op)(),
             lambda L: getattr(L, op)(3)]
    for call in calls:
        with pytest.raises(TypeError) as want:
            call(torch)
        with pytest.raises(TypeError) as got:
            call(ctensor)
        assert str(got.value) == str(want.value)
    assert getattr(ctensor, op)(input=ctensor.ones(2)).tolist() == [1.0, 1.0]


# ---- accuracy of the float32 transcendental functions ------------------------------------
DOMAIN = {"log": (1e-30, 1e30), "log1p": (-0.999, 3e38), "asinh": (-3e38, 3e38), "log2": (1e-30, 1e30),
          "log10": (1e-30, 1e30), "sqrt": (0, 1e30), "rsqrt": (1e-30, 1e30),
          "asin": (-1, 1), "acos": (-1, 1), "acosh": (1, 1e30), "atanh": (-1, 1),
          "exp": (-100, 90), "expm1": (-100, 90), "exp2": (-150, 128), "sinh": (-90, 90),
          "cosh": (-90, 90), "sin": (-1e4, 1e4), "cos": (-1e4, 1e4), "tan": (-1e4, 1e4)}


def _accuracy_inputs(op, n=100000):
    g = torch.Generator().manual_seed(14)
    lo, hi = DOMAIN.get(op, (-1e4, 1e4))
    lin = lo + (hi - lo) * torch.rand(n // 2, generator=g, dtype=torch.float64)
    # log-spaced magnitudes too (small arguments)
    mag = torch.pow(10.0, torch.rand(n // 2, generator=g, dtype=torch.float64) * 12 - 8)
    sign = torch.where(torch.rand(n // 2, generator=g) > 0.5, 1.0, -1.0).double()
    small = (mag * (sign if lo < 0 else 1)).clamp(lo, hi)
    return torch.cat([lin, small]).float()


@pytest.mark.parametrize("isa", ["current"])
@pytest.mark.parametrize("op", TRANS)
def test_float32_within_one_ulp_of_float64(op, isa):
    x = _accuracy_inputs(op)
    ref = getattr(torch, op)(x.double())
    got = as_torch(getattr(ctensor, op)(to_ct(x)))
    d = ulps(got, ref, 24)
    finite = torch.isfinite(ref) & (ref.abs() <= torch.finfo(torch.float32).max)
    d = d[finite & (ref.abs() >= torch.finfo(torch.float32).tiny)]
    assert float(d.max()) <= ULP_TOL, (op, float(d.max()))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", TRANS)
def test_reduced_floats_every_value_within_one_ulp(op, dtype):
    """Every float16 / bfloat16 value: within 1 ulp (of the dtype) of the float64 result
    rounded to the dtype (the 3.5-ulp float32 loops of unary.h's reduced table included)."""
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16)
    x = bits.view(getattr(torch, dtype))
    x = x[torch.isfinite(x)]
    ref = getattr(torch, op)(x.double()).to(x.dtype)
    got = as_torch(getattr(ctensor, op)(to_ct(x)))
    d = ulps(got, ref, REAL_PREC[dtype])
    assert float(d.max()) <= 1.0, (op, dtype, float(d.max()))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", ["exp", "sigmoid"])
def test_table_ops_every_value(op, dtype):
    """bfloat16 exp and sigmoid and float16 sigmoid go through a 65536-entry table
    (unary_loops.c), float16 exp through the vector code that fills such tables: every bit
    pattern, NaN and inf included, gives the float64 result rounded to the dtype
    (float16 sigmoid: one value a float32 ulp off a rounding boundary), at any thread count.
    bfloat16 exp is byte for byte torch 1.13's; its sigmoid too, except that 1.13 flushes
    the subnormal results of x <= -89 (1 / (1 + exp(89)) in float32) to 0."""
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16)
    x = bits.view(getattr(torch, dtype))
    ref = getattr(torch, op)(x.double()).to(x.dtype)
    old = ctensor.get_num_threads()
    for threads in (1, 2):
        ctensor.set_num_threads(threads)
        try:
            got = as_torch(getattr(ctensor, op)(to_ct(x)))
        finally:
            ctensor.set_num_threads(old)
        assert torch.equal(torch.isnan(got), torch.isnan(ref))
        ok = torch.isnan(ref) | (got.view(torch.int16) == ref.view(torch.int16))
        assert int((~ok).sum()) <= (1 if (op, dtype) == ("sigmoid", "float16") else 0)
        if dtype == "bfloat16":
            t = getattr(torch, op)(x)
            same = torch.isnan(t) | (got.view(torch.int16) == t.view(torch.int16))
            if op == "sigmoid":
                same |= (t == 0) & (x <= -89) & (got.abs() < torch.finfo(x.dtype).tiny)
            assert bool(same.all())


_LEVEL_SCRIPT = """
import sys, torch, ctensor
sys.path.insert(0, {here!r})
from test_unary_vs_torch import _accuracy_inputs, ulps, to_ct, TRANS
from arith_compare_util import as_torch
worst = 0.0
for op in TRANS:
    x = _accuracy_inputs(op, 20000)
    ref = getattr(torch, op)(x.double()).float()
    got = as_torch(getattr(ctensor, op)(to_ct(x)))
    w = float(ulps(got, ref.double(), 24).max())
    print(op, w)
    worst = max(worst, w)
print(worst)
"""


@pytest.mark.parametrize("isa", ["baseline", "avx2", "avx512"])
def test_each_isa_level_within_one_ulp(isa):
    """The libm loops (baseline) and the SLEEF loops (avx2, avx512): every float32
    transcendental within 1 ulp of float64 rounded to float32 (+ its half ulp)."""
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, CT_CPU_ISA=isa, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _LEVEL_SCRIPT.format(here=here)], env=env,
                         capture_output=True, text=True, check=True).stdout
    # against the float32-rounded reference: 1 ulp of the exact value + 0.5 of rounding
    assert float(out.strip().splitlines()[-1]) <= 1.5 + 1e-7


@pytest.mark.parametrize("op", ["exp", "sqrt", "sigmoid", "tanh", "reciprocal", "sinh", "log1p"])
@pytest.mark.parametrize("dt", ["bfloat16"])  # (torch 1.13's cpu has no float16 exp)
def test_half_into_float32_out_rounds_to_half(op, dt):
    # the result rounds to the computation dtype before the cast to out=, as in PyTorch
    vals = [0.1, 3.3, -2.7, 7.9, 0.51, 12.25, 1.0 / 3, 100.5]
    want = torch.empty(len(vals))
    getattr(torch, op)(torch.tensor(vals, dtype=getattr(torch, dt)).abs(), out=want)
    got = ctensor.empty(len(vals))
    getattr(ctensor, op)(ctensor.tensor(vals, dtype=getattr(ctensor, dt)).abs(), out=got)
    assert got.tolist() == want.tolist()
