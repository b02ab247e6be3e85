"""Comparing the outcomes of arith_util cases: check_case runs a case in ctensor and in torch
1.13 and compares dtype, shape, strides, storage offset, device, identity, warnings, errors and
values (bitwise where PyTorch rounds exactly, else within `tolerance`'s ulps), with the named
rewrites where newest PyTorch differs from 1.13 or where PyTorch's own loops disagree
(newest_reduced_float, floor_overflow, complex_division_extremes; error texts in
arith_util.torch_error / distinct warnings)."""
import math

import ctensor
import torch
from arith_util import (BITS_VIEW, COMPLEX, FLOATS, HALF, INTS, MIN_EXP, NO, PRECISION, Case,
                        _as_tensor_operand, computation_dtype, dname, int_min_hazard,
                        is_complex, is_float, libdtype, realize, run)


# ---- value comparison ---------------------------------------------------------------------

def dense(t):
    """A copy of a torch tensor with contiguous strides (also for its size-1 dims)."""
    return torch.empty(t.shape, dtype=t.dtype).copy_(t)


def as_torch(t):
    """A contiguous torch tensor with the bytes of a ctensor (or torch) tensor's elements."""
    name = dname(t.dtype)
    if isinstance(t, torch.Tensor):
        return dense(t)
    c = ctensor.empty(tuple(t.shape), dtype=t.dtype)
    c.copy_(t)
    c = c.reshape(-1)
    raw = c.view(ctensor.uint8).tolist() if c.numel() else []
    u8 = torch.tensor(raw, dtype=torch.uint8)
    return u8.view(libdtype(torch, name)).reshape(tuple(t.shape))


REAL_OF = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}


def _bits(t):
    """The raw bits of each float component (complex: real and imaginary parts), int64."""
    name = dname(t.dtype)
    flat = dense(t).reshape(-1)
    if name in COMPLEX:
        flat = flat.view(libdtype(torch, REAL_OF[name]))
    return flat.view(libdtype(torch, BITS_VIEW[name])).to(torch.int64)


def _floats(t):
    """Float components as float64 (complex: real, imag interleaved)."""
    name = dname(t.dtype)
    flat = dense(t).reshape(-1)
    if name == "complex32":
        flat = flat.to(torch.complex64)
    if name in COMPLEX:
        return torch.view_as_real(flat.to(torch.complex128)).reshape(-1)
    return flat.to(torch.float64)


def ulp(name, x):
    """One unit in the last place of |x| in dtype `name` (floating or complex component);
    x a Python float or a float64 tensor."""
    if not isinstance(x, torch.Tensor):
        return float(ulp(name, torch.tensor([float(x)], dtype=torch.float64))[0])
    x = x.abs()
    e = torch.frexp(x)[1].to(torch.int64) - 1
    e = torch.where((x == 0) | ~x.isfinite(), torch.full_like(e, MIN_EXP[name]), e)
    e = e.clamp(min=MIN_EXP[name])
    return torch.pow(2.0, (e - PRECISION[name] + 1).to(torch.float64))


def values_mismatch(got, want, tol, loose=None, skip=None):
    """None when the torch tensors `got` (ctensor's values) and `want` (torch's) agree, else a
    description of the first differences. `tol` is None (bitwise; NaNs only need to be NaN in
    the same places) or a float64 tensor (one per float component) of allowed absolute
    errors; infinities must be equal either way. `loose`: a bool tensor (per float
    component) of places where NaN and an infinity of want's sign are both accepted; `skip`:
    places not compared."""
    name = dname(want.dtype)
    if name == "bool" or name in INTS:
        g, w = dense(got).reshape(-1), dense(want).reshape(-1)
        if torch.equal(g, w):
            return None
        idx = (g != w).nonzero().reshape(-1)[:6].tolist()
        return "elements (index, ctensor, torch): %s" % [
            (i, g[i].item(), w[i].item()) for i in idx]
    gf, wf = _floats(got), _floats(want)
    gn, wn = gf.isnan(), wf.isnan()
    bad = gn != wn
    both = ~(gn | wn)
    if tol is None:
        bad |= both & (_bits(got) != _bits(want))
    else:
        inf = gf.isinf() | wf.isinf() | ~tol.isfinite()
        bad |= both & inf & (gf != wf)
        bad |= both & ~inf & ((gf - wf).abs() > tol)
    if loose is not None:
        bad &= ~(loose & (gn | wn | (gf.isinf() & wf.isinf())))
    if skip is not None:
        bad &= ~skip
    if not bool(bad.any()):
        return None
    idx = bad.nonzero().reshape(-1)[:6].tolist()
    return "float components (index, ctensor, torch)%s: %s" % (
        " bitwise" if tol is None else " within tolerance",
        [(i, gf[i].item(), wf[i].item()) for i in idx])


def meta_of(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset(), dname(t.dtype),
            str(t.device))


def tolerance(case, ta, tb, want):
    """None for bitwise comparison, else per-float-component allowed errors.

    Exact (bitwise): add / sub without alpha (or alpha 1) and mul in float32 / float64 (and
    their complex add / sub, componentwise); div with rounding_mode trunc / floor in float32 /
    float64 (PyTorch's formulas are exact functions of the operands); the reflected `s / t`,
    which PyTorch computes as t.reciprocal() * s (two exactly rounded steps); everything
    integral.
    Within tolerance, in units in the last place (ulps) of the computation dtype at the scale
    of the exact result's terms:
    * float16 / bfloat16 / complex32 computations: 1 ulp (PyTorch rounds scalars to the
      computation dtype first and computes in float32);
    * add / sub with alpha ≠ 1: 1 ulp of max(|a|, |alpha*b|) (fused multiply-add or not);
    * true division: 1 ulp of |a/b| (real), complex multiplication: 2 ulps of |a|*|b| per
      component, complex division: 4 ulps of |a/b| per component (algorithms differ);
    * a result narrower than the computation dtype adds 1 ulp of the result dtype.
    """
    op, mode, ta, tb = aten_operands(case, ta, tb)  # `s / t` is t.reciprocal() * s
    comp = computation_dtype(Case(op, case.a, case.b, mode=mode), ta, tb)
    res = dname(want.dtype)
    if res == "bool" or res in INTS or comp == "bool" or comp in INTS:
        return None  # integral computations are exact
    alpha_one = case.alpha is NO or (not isinstance(case.alpha, (complex, float))
                                     and case.alpha == 1) or \
        (isinstance(case.alpha, float) and case.alpha == 1.0)
    cplx = comp in COMPLEX
    if op in ("add", "sub") and alpha_one:
        ulps, scale = 0, "result"
    elif op == "mul":
        ulps, scale = (2, "product") if cplx else (0, "result")
    elif op in ("add", "sub"):
        ulps, scale = 1, "terms"
    elif mode in ("trunc", "floor"):
        ulps, scale = 0, "result"
    else:
        ulps, scale = (4, "quotient") if cplx else (1, "result")
    if comp in HALF:
        ulps = max(ulps, 1)
    if ulps == 0:
        return None  # exactly rounded in the computation dtype, then converted: bitwise
    # per-element scale, from float64 / complex128 copies of the broadcast operands
    wide = torch.complex128 if (cplx or res in COMPLEX) else torch.float64
    try:
        xa = _as_tensor_operand(ta).to(wide)
        xb = _as_tensor_operand(tb).to(wide)
        xa, xb = torch.broadcast_tensors(xa, xb)
    except RuntimeError:
        return torch.full((want.numel() * (2 if res in COMPLEX else 1),), math.inf,
                          dtype=torch.float64)
    xa, xb = xa.reshape(-1), xb.reshape(-1)
    wv = want.reshape(-1).to(torch.complex128 if res in COMPLEX else torch.float64)
    if scale == "terms":
        al = complex(case.alpha) if not isinstance(case.alpha, bool) else float(case.alpha)
        s = xa.abs() + (xb * al).abs()
    elif scale == "product":
        s = xa.abs() * xb.abs()
    elif scale == "quotient":
        s = (xa / xb).abs()
    else:
        s = wv.abs()
    s = torch.maximum(s, wv.abs())
    t = torch.where(s.isfinite(), ulps * ulp(comp, s), torch.full_like(s, math.inf))
    if res != comp:
        t = t + ulp(res, wv.abs())
    return t.repeat_interleave(2) if res in COMPLEX else t


# ---- the comparison ---------------------------------------------------------------------------

def aten_operands(case, ta, tb):
    """(op, mode, first, second): the ATen call a variant makes. Python's reflected operators
    call the tensor's method: `s * t` is t.mul(s), `s / t` is t.reciprocal() * s (PyTorch's
    __rdiv__); the others keep the order (`s - t` is rsub(t, s) = s - t, `s // t` is
    floor_divide(s, t))."""
    if case.variant == "operator" and case.a.kind == "scalar":
        if case.op == "mul":
            return "mul", NO, tb, ta
        if case.op == "div" and case.mode in (NO, None):
            return "mul", NO, tb.reciprocal(), ta
    return case.op, case.mode, ta, tb


def newest_reduced_float(case, ta, tb):
    """Newest PyTorch's mul and div (all rounding modes) for a float16 / bfloat16 computation
    whose second input has one element (TensorIterator.is_scalar(2)): the scalar is read from
    the original operand in float32 (`iter.original_scalar_value<opmath_t>(2)`), not rounded
    to the computation dtype first, and the op computes in float32 and rounds once
    [source: aten/src/ATen/native/cpu/BinaryOpsKernel.cpp@newest, mul_kernel,
    div_true_kernel, div_trunc_kernel, div_floor_kernel]. torch 1.13 rounds the scalar to the
    computation dtype first. Returns the newest values (a torch tensor of the computation
    dtype, broadcast shape), or None where the rule does not apply (add and sub have no such
    path in newest PyTorch either: ufunc add converts every input to the computation dtype)."""
    op, mode, first, second = aten_operands(case, ta, tb)
    if op not in ("mul", "div"):
        return None
    try:
        comp = computation_dtype(Case(op, case.a, case.b, mode=mode), first, second)
    except RuntimeError:
        return None
    if comp not in ("float16", "bfloat16"):
        return None
    second = _as_tensor_operand(second)
    if second.numel() != 1:
        return None
    af = _as_tensor_operand(first).to(libdtype(torch, comp)).to(torch.float32)
    bf = second.to(torch.float32)
    if op == "mul":
        r = af * bf
    elif mode in (NO, None):
        r = af / bf
    else:
        r = torch.div(af, bf, rounding_mode=mode)
    return r.to(libdtype(torch, comp))


def newest_reduced_add_alpha(case, ta, tb):
    """Newest PyTorch's add and sub with alpha != 1 in a float16 / bfloat16 computation: the
    ufunc add kernel computes vec::fmadd(other, alpha, self) on Vectorized<Half/BFloat16>,
    which widens to float32, fuses, and rounds once [source: aten/src/ATen/native/ufunc/add.h
    @newest, the Vectorized<Half> fmadd of ATen/cpu/vec]. torch 1.13 rounds alpha * other to
    the computation dtype first, so `-inf + 2 * 65504` is NaN there and -inf in newest.
    Returns the newest values (computation dtype, broadcast shape) or None."""
    if case.op not in ("add", "sub") or case.alpha is NO or case.alpha in (1, True):
        return None
    if isinstance(case.alpha, complex):
        return None
    try:
        comp = computation_dtype(case, ta, tb)
    except RuntimeError:
        return None
    if comp not in ("float16", "bfloat16"):
        return None
    dt = libdtype(torch, comp)
    try:
        a64 = _as_tensor_operand(ta).to(dt).to(torch.float64)
        b64 = _as_tensor_operand(tb).to(dt).to(torch.float64)
        alpha = torch.tensor(case.alpha, dtype=torch.float64).to(dt).item()
    except RuntimeError:
        return None
    if case.op == "sub":
        alpha = -alpha
    # exact enough in float64 for half operands; then one rounding (via float32, as fma's)
    return (a64 + alpha * b64).to(torch.float32).to(dt)


def floor_overflow(case, ta, tb, want):
    """Where floor division's quotient overflows the dtype it is computed in, PyTorch's own
    loops disagree: the scalar loop (c10::div_floor_floating) gives ±inf, the vectorised one
    (Sleef fmod) NaN (torch 1.13: div(tensor([-3.3895e38]*20), 0.1, rounding_mode='floor')
    is NaN, the same for 6 elements -inf). Both are accepted there. None, or a bool tensor per
    float component of `want`."""
    if case.op != "div" or case.mode != "floor" or not (is_float(dname(want.dtype)) or want.is_complex()):
        return None
    try:
        comp = computation_dtype(case, ta, tb)
        xa, xb = torch.broadcast_tensors(_as_tensor_operand(ta).to(torch.float64),
                                         _as_tensor_operand(tb).to(torch.float64))
    except RuntimeError:
        return None
    if comp not in FLOATS:
        return None
    big = torch.finfo(torch.float64 if comp == "float64" else torch.float32).max
    q = (xa / xb).reshape(-1)
    mask = q.abs() > big / 2
    if want.is_complex():  # components are compared as (re, im) pairs: both parts
        mask = mask.repeat_interleave(2)
    return mask


def complex_division_extremes(case, ta, tb, want):
    """Complex true division where a textbook formula over- or underflows: an operand part
    that is inf or NaN, a zero divisor, or |c|^2 + |d|^2 or |a|*|b| beyond the computation
    dtype's range. torch 1.13 divides as (a*conj(b))/|b|^2 there and gets NaN or infinity;
    ctensor divides as newest PyTorch and NumPy do (Smith's method, Note [Complex division],
    tested bit for bit in test_complex_div.py), so 1 / (inf+0j) is 0. Such elements are not
    compared (both components). The reflected `s / t` computes t.reciprocal() * s; its
    reciprocal has the same split.
    None, or a bool tensor per float component of `want`."""
    if case.op != "div" or case.mode not in (NO, None) or not is_complex(dname(want.dtype)):
        return None
    try:
        xa, xb = torch.broadcast_tensors(_as_tensor_operand(ta).to(torch.complex128),
                                         _as_tensor_operand(tb).to(torch.complex128))
    except RuntimeError:
        return None
    comp = computation_dtype(case, ta, tb)
    lim = 1e300 if comp == "complex128" else 1e37
    xa, xb = xa.reshape(-1), xb.reshape(-1)
    fin = torch.view_as_real(xa).isfinite().all(-1) & torch.view_as_real(xb).isfinite().all(-1)
    n2 = xb.abs() ** 2
    m = ~fin | (xb == 0) | (n2 > lim) | (n2 < 1 / lim) | (xa.abs() * xb.abs() > lim) | \
        (xa.abs() > lim) | ((xa.abs() < 1 / lim) & (xa != 0))
    return m.repeat_interleave(2)


def check_case(case, torch_case=None):
    """Run the case in both libraries and assert the outcomes agree. Returns ctensor's.
    `torch_case`: another spelling of the same call for torch (a named rewrite), if any."""
    th_a, th_b = realize(torch, case.a), realize(torch, case.b)
    assert not int_min_hazard(case, th_a, th_b), "never send INT_MIN / -1 to torch"
    th = run(torch, torch_case or case)
    ct = run(ctensor, case)
    if th.error is not None:
        assert ct.error == th.error, "%r:\n ctensor: %r\n torch:   %r" % (
            case, ct.error if ct.error else meta_of(ct.result), th.error)
        return ct
    assert ct.error is None, "%r:\n ctensor raised %r\n torch gave %r" % (
        case, ct.error, meta_of(th.result))
    assert ct.warnings == th.warnings, "%r: warnings\n ctensor: %r\n torch:   %r" % (
        case, ct.warnings, th.warnings)
    if th.target is not None:
        assert th.result is th.target
        assert ct.result is ct.target, "%r: the result is not the %s tensor" % (
            case, "out" if case.variant == "out" else "self")
    assert isinstance(ct.result, ctensor.Tensor), (case, type(ct.result))
    assert meta_of(ct.result) == meta_of(th.result), "%r:\n ctensor: %r\n torch:   %r" % (
        case, meta_of(ct.result), meta_of(th.result))
    if th.result.device.type == "meta":
        return ct
    want = dense(th.result)
    newest = newest_reduced_float(case, th_a, th_b)
    if newest is None:
        newest = newest_reduced_add_alpha(case, th_a, th_b)
    if newest is not None:  # the named rewrite: newest PyTorch's values
        want = newest.to(want.dtype).expand(want.shape).contiguous()
    got = as_torch(ct.result)
    problem = values_mismatch(got, want, tolerance(case, th_a, th_b, want),
                              floor_overflow(case, th_a, th_b, want),
                              complex_division_extremes(case, th_a, th_b, want))
    assert problem is None, "%r: %s%s" % (
        case, problem, " (newest PyTorch's float32 rule)" if newest is not None else "")
    return ct
