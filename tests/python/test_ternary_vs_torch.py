"""The ternary ops of ctensor/ternary.def against torch 1.13: where, clamp / clip (scalar and
tensor bounds, None), clamp_min / clamp_max, lerp (scalar and tensor weight), addcmul,
addcdiv and masked_fill, over dtypes, Python scalars and 0-dim tensors, broadcasting,
non-contiguous operands, function / method / in-place (on views) / out= forms (out= of other
dtypes), and errors (type and message, in newest PyTorch's words: test_tensor_common).

Values: torch computes them. Integers, bool and selects (where, masked_fill, clamp) compare
bitwise; float32 and float64 lerp and addcmul too (ctensor fuses the steps PyTorch's CPU kernels
fuse; measured bit-identical), addcdiv as well; complex and reduced-precision arithmetic within
a few ulps. Where torch 1.13 has no kernel and newest PyTorch has one (clamp and lerp of
float16 / bfloat16) the expectation is torch's float32 result rounded once.

Named divergences (newest PyTorch's behaviour, which ctensor follows):
 - lerp takes the `self + weight * (end - self)` branch when |weight| < 0.5; torch 1.13's CPU
   kernel tests weight < 0.5 for real dtypes (its zabs is the identity there), so weights below
   -0.5 round differently: the weights compared here are above -0.5.
 - addcmul / addcdiv into an out= of another dtype: torch 1.13 fails an internal assert
   (no cast_common_dtype_to_outputs); newest PyTorch computes and casts.
 - float16 addcmul / addcdiv, float16 / bfloat16 lerp and scalar clamp: no kernel in torch
   1.13; newest computes in float32 and rounds once (expected: torch's float32 result).
 - where(c, a, b, out=t) with t of another dtype: torch 1.13 fails an internal assert; newest
   PyTorch checks "Expected out type to be Float but got Double".
 - masked_fill with a non-bool mask: 1.13 accepts a float mask (and warns for uint8); newest
   PyTorch requires bool ("masked_fill_ only supports boolean masks, but got mask with dtype
   float").
"""
import math
import warnings

import pytest

import ctensor
import torch
from arith_compare_util import as_torch
from arith_util import torch_error, torch_warning
from test_tensor_common import without_defaults

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def values(name, shape, seed=0):
    """Torch values of dtype `name`, specials (inf, NaN, -0.) first for floats."""
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    dt = getattr(torch, name)
    if name == "bool":
        v = torch.rand(n, generator=g) > 0.5
    elif name in ("uint8", "int8", "int16", "int32", "int64"):
        lo = 0 if name == "uint8" else -50
        v = torch.randint(lo, 50, (n,), generator=g, dtype=dt)
    elif name.startswith("complex"):
        v = torch.complex(values("float64", shape, seed).reshape(-1),
                          values("float64", shape, seed + 7).reshape(-1)).to(dt)
    else:
        v = ((torch.rand(n, generator=g, dtype=torch.float64) - 0.5) * 20)
        special = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0]
        k = min(n, len(special)) if n > 8 else 0
        v[:k] = torch.tensor(special[:k], dtype=torch.float64)
        v = v.to(dt)
    return v.reshape(shape)


def to_ct(t):
    """The same bytes as a contiguous ctensor tensor."""
    name = str(t.dtype).replace("torch.", "")
    flat = t.contiguous().reshape(-1)
    raw = flat.view(torch.uint8).tolist() if flat.numel() else []
    c = ctensor.tensor(raw, dtype=ctensor.uint8)
    return c.view(getattr(ctensor, name)).reshape(tuple(t.shape))


class Both:
    """One operand in both libraries."""

    def __init__(self, th, ct):
        self.th, self.ct = th, ct

    def view(self, fn):
        return Both(fn(self.th), fn(self.ct))


def T(name, shape, seed=0):
    t = values(name, shape, seed)
    return Both(t, to_ct(t))


def pick(x, lib):
    if isinstance(x, Both):
        return x.th if lib is torch else x.ct
    if isinstance(x, dict):
        return {k: pick(v, lib) for k, v in x.items()}
    return x


def outcome(lib, fn, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(lib, *[pick(a, lib) for a in args], **pick(kwargs, lib)), None
        except Exception as e:  # noqa: BLE001 - every outcome is compared
            return None, e


def same_values(got, want, ulps):
    """got (ctensor) equals want (torch): bitwise, or within `ulps` of want's dtype."""
    g = as_torch(got)
    w = want.contiguous()
    assert g.shape == w.shape
    if not (w.is_floating_point() or w.is_complex()) or ulps == 0:
        if w.is_floating_point() or w.is_complex():
            gv, wv = torch.view_as_real(g) if g.is_complex() else g, \
                torch.view_as_real(w) if w.is_complex() else w
            nan = torch.isnan(wv)
            assert torch.equal(torch.isnan(gv), nan), (g, w)
            assert torch.equal(gv[~nan], wv[~nan]), (g, w)
        else:
            assert torch.equal(g, w), (g, w)
        return
    gv = torch.view_as_real(g).double() if g.is_complex() else g.double()
    wv = torch.view_as_real(w).double() if w.is_complex() else w.double()
    nan = torch.isnan(wv)
    assert torch.equal(torch.isnan(gv), nan), (g, w)
    eps = torch.finfo(w.real.dtype if w.is_complex() else w.dtype).eps
    tol = ulps * eps * wv.abs().clamp(min=1.0)
    if w.is_complex():  # complex products cancel: ulps of the largest magnitude
        finite = wv[torch.isfinite(wv)].abs()
        tol = tol.clamp(min=ulps * eps * float(finite.max() if finite.numel() else 1.0))
    ok = (gv == wv) | ((gv - wv).abs() <= tol)
    assert bool(ok[~nan].all()), (g, w)


def check(fn, *args, ulps=0, expect_th=None, **kwargs):
    """fn(lib, *args, **kwargs) in both libraries: the same error, or the same result (dtype,
    shape, values; the identity of an in-place / out= result is checked by the callers)."""
    th, th_err = outcome(torch, fn, args, kwargs) if expect_th is None else (expect_th(), None)
    ct, ct_err = outcome(ctensor, fn, args, kwargs)
    if th_err is not None:
        exc, msg = torch_error(type(th_err), str(th_err))
        assert ct_err is not None, (msg, ct)
        assert (type(ct_err), without_defaults(str(ct_err))) == (exc, msg)
        return
    assert ct_err is None, (ct_err, th)
    if isinstance(th, torch.Tensor):
        assert str(ct.dtype).split(".")[1] == str(th.dtype).split(".")[1]
        assert tuple(ct.shape) == tuple(th.shape)
        same_values(ct, th, ulps)
    return ct, th


# ---- where ------------------------------------------------------------------------------------

WHERE_PAIRS = [("float32", "float32"), ("int64", "float32"), ("int32", "int64"),
               ("bool", "int8"), ("uint8", "int16"), ("float16", "bfloat16"),
               ("float64", "complex64"), ("complex128", "int32"), ("bool", "bool"),
               ("float16", "float16"), ("bfloat16", "float64")]


@pytest.mark.parametrize("da,db", WHERE_PAIRS)
def test_where_dtypes_broadcast(da, db):
    c = T("bool", (4, 1, 5), 1)
    check(lambda L, c, a, b: L.where(c, a, b), c, T(da, (3, 5), 2), T(db, (4, 3, 1), 3))
    check(lambda L, c, a, b: L.where(c, a, b), c, T(da, (), 2), T(db, (5,), 3))


@pytest.mark.parametrize("s", [2, 2.5, True, 1j, -7])
@pytest.mark.parametrize("d", ["bool", "int32", "float16", "float32", "complex64"])
def test_where_scalars(s, d):
    c = T("bool", (2, 3), 4)
    x = T(d, (2, 3), 5)
    check(lambda L, c, x: L.where(c, x, s), c, x)
    check(lambda L, c, x: L.where(c, s, x), c, x)
    check(lambda L, c: L.where(c, s, 0.5), c)
    check(lambda L, c: L.where(c, s, s), c)
    check(lambda L, c, x: x.where(c, x), c, x)


def test_where_non_contiguous_and_out():
    c = T("bool", (6, 4), 6).view(lambda t: t.t())
    a = T("float32", (12, 4), 7).view(lambda t: t[::2].t())
    b = T("float64", (6, 4), 8).view(lambda t: t.t()[:, 1:2])
    r = check(lambda L, c, a, b: L.where(c, a, b), c, a, b)
    assert r[0].stride() == r[1].stride()
    out = T("float64", (2,), 9)
    got, want = check(lambda L, c, a, b, o: L.where(c, a, b, out=o), c, a, b, out)
    assert got is out.ct and tuple(out.ct.shape) == (4, 6)
    # a 0-dim tensor is its own promotion group: int32 tensor, float64 0-dim -> float32
    check(lambda L, c, a, z: L.where(c, a, z), c, T("int32", (4, 6), 1), T("float64", (), 2))


def test_where_errors():
    c = T("bool", (3,), 1)
    a, b = T("float32", (3,), 2), T("float32", (2,), 3)
    check(lambda L, c, a: L.where(c.float(), a, a), c, a)
    check(lambda L, c, a, b: L.where(c, a, b), c, a, b)
    # out= of another dtype: newest PyTorch's check (torch 1.13 fails an internal assert)
    with pytest.raises(RuntimeError, match="^Expected out type to be Float but got Double$"):
        ctensor.where(c.ct, a.ct, a.ct, out=ctensor.empty(3, dtype=ctensor.float64))
    # where(condition) is nonzero(condition, as_tuple=True): test_scatter_vs_torch.py
    # uint8 conditions still work (with PyTorch's deprecation warning)
    cu = T("uint8", (3,), 4)
    check(lambda L, c, a: L.where(c, a, -a), cu, a)


# ---- clamp --------------------------------------------------------------------------------------

CLAMP_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                "float64"]
SCALAR_BOUNDS = [(0, 5), (-2.5, 3.5), (None, 1), (2, None), (3, -1), (math.nan, 2),
                 (math.nan, None), (None, math.nan), (True, None), (-math.inf, math.inf)]


def newest_clamp(fn, x, *bounds):
    """torch 1.13 has no scalar clamp for float16 / bfloat16; newest PyTorch computes it (a
    select, so exact): torch's float32 result in the input's dtype."""
    def ref():
        r = fn(torch, x.th.float(), *[b.th.float() if isinstance(b, Both) else b
                                      for b in bounds])
        return r.to(x.th.dtype) if r.dtype == torch.float32 else r
    return ref


@pytest.mark.parametrize("d", CLAMP_DTYPES)
@pytest.mark.parametrize("lo,hi", SCALAR_BOUNDS)
def test_clamp_scalar_bounds(d, lo, hi):
    x = T(d, (3, 7), 11)
    if d in ("uint8", "int8") and isinstance(lo, float) and math.isnan(lo):
        return  # NaN bounds make a float result; covered by the wider ints
    fn = lambda L, x: L.clamp(x, lo, hi)  # noqa: E731
    if lo is None and hi is None:
        return
    th_fails = d in ("float16", "bfloat16")
    check(fn, x, expect_th=newest_clamp(fn, x) if th_fails else None)
    if not th_fails:
        check(lambda L, x: x.clip(min=lo, max=hi), x)


@pytest.mark.parametrize("d,bd", [("float32", "float32"), ("int32", "float32"),
                                  ("int64", "int32"), ("float64", "float32"), ("bool", "bool"),
                                  ("int16", "float64")])
def test_clamp_tensor_bounds(d, bd):
    x = T(d, (4, 5), 12)
    lo, hi = T(bd, (5,), 13), T(bd, (4, 1), 14)
    check(lambda L, x, lo, hi: L.clamp(x, lo, hi), x, lo, hi)
    check(lambda L, x, lo: L.clamp(x, min=lo), x, lo)
    check(lambda L, x, hi: L.clamp(x, max=hi), x, hi)
    check(lambda L, x, lo: L.clamp_min(x, lo), x, lo)
    check(lambda L, x, hi: L.clamp_max(x, hi), x, hi)
    check(lambda L, x, hi: x.clamp_max(hi), x, hi)
    # a 0-dim bound
    check(lambda L, x, z: L.clamp(x, z), x, T(bd, (), 15))


def test_clamp_nan_tensor_bounds():
    x = Both(torch.tensor([1., math.nan, 5., -3.]), ctensor.tensor([1., math.nan, 5., -3.]))
    lo = Both(torch.tensor([0., 0., math.nan, 0.]), ctensor.tensor([0., 0., math.nan, 0.]))
    check(lambda L, x, lo: L.clamp(x, lo), x, lo)
    check(lambda L, x, lo: L.clamp(x, lo, lo), x, lo)
    check(lambda L, x, lo: L.clamp(x, max=lo), x, lo)


@pytest.mark.parametrize("d", ["float32", "float64", "int32", "int64"])
def test_clamp_min_max_nan_scalar(d):
    """clamp_min / clamp_max (function, method, in-place) fill their result with a NaN scalar
    bound; clamp with that bound alone ignores it; clamp with two bounds fills again."""
    x = T(d, (3, 5), 23)
    nan = math.nan
    for fn in (lambda L, x: L.clamp_min(x, nan), lambda L, x: L.clamp_max(x, nan),
               lambda L, x: x.clamp_min(nan), lambda L, x: x.clamp_max(nan),
               lambda L, x: L.clamp(x, nan), lambda L, x: L.clamp(x, max=nan),
               lambda L, x: x.clip(min=nan), lambda L, x: L.clamp(x, nan, 1),
               lambda L, x: L.clamp(x, -1, nan)):
        check(fn, x)
    if d.startswith("float"):
        for name in ("clamp_min_", "clamp_max_"):
            check(lambda L, x: getattr(x.clone()[1:, ::2], name)(nan), x)


def test_clamp_forms():
    base = T("float32", (4, 6), 16)
    # in place on a view: only the view changes
    for name in ("clamp_", "clip_"):
        th, ct = base.th.clone(), base.ct.clone()
        vth, vct = th[1:, ::2], ct[1:, ::2]
        assert getattr(vct, name)(-1.0, 1.0) is vct
        getattr(vth, name)(-1.0, 1.0)
        same_values(ct, th, 0)
    th, ct = base.th.clone(), base.ct.clone()
    bt = T("float32", (6,), 17)
    ct.t().clamp_min_(bt.ct[:4]), th.t().clamp_min_(bt.th[:4])
    same_values(ct, th, 0)
    ct.clamp_max_(0.5), th.clamp_max_(0.5)
    same_values(ct, th, 0)
    # out= of other dtypes: tensor bounds cast, scalar bounds must match exactly
    x = T("int32", (3, 4), 18)
    for od in ("float64", "int64", "float32", "int32"):
        out = T(od, (3, 4), 19)
        check(lambda L, x, lo, o: L.clamp(x, lo, out=o), x, T("float32", (4,), 20), out)
        check(lambda L, x, o: L.clamp(x, 0.5, out=o), x, out)
        check(lambda L, x, o: L.clamp(x, 1, 3, out=o), x, out)


def test_clamp_errors():
    x, i = T("float32", (3,), 21), T("int64", (3,), 22)
    check(lambda L, x: L.clamp(x), x)
    check(lambda L, x: L.clamp(x, None, None), x)
    check(lambda L, x: x.clamp(), x)
    check(lambda L, x: L.clamp(x.to(L.complex64), 0), x)
    check(lambda L, x: L.clamp(x, 1j), x)
    check(lambda L, x: L.clamp(x.bool(), False, True), x)
    check(lambda L, i: i.clone().clamp_(0.5), i)
    check(lambda L, i: i.clone().clamp_(i.float()), i)
    check(lambda L, i: L.clamp(i.to(L.int8), 1000), i)
    check(lambda L, x: L.clamp_min(x, None), x)
    check(lambda L, x, i: L.clamp(x, i[:2]), x, i)
    check(lambda L, x: x.clone()[:1].clamp_(L.zeros(3)), x)



def test_clamp_mixed_bounds():
    """A tensor bound with a number matches neither of torch's overloads (TypeError), unless
    the tensor is 0-dim: the Number overload takes it as a number, so the result has x's type
    promoted by a Python float (float32 here), where a lone 0-dim bound is a Tensor."""
    x, t = T("int32", (6,), 23), T("float32", (6,), 24)
    check(lambda L, x, t: L.clamp(x, t, 2), x, t)
    check(lambda L, x, t: L.clamp(x, 1, t), x, t)
    check(lambda L, x, t: x.clamp(t, 2), x, t)
    check(lambda L, x, t: x.clone().clamp_(t, 2), x, t)
    check(lambda L, x, t: L.clip(x, 0.5, t), x, t)
    check(lambda L, x: L.clamp(x, L.tensor(1.5, dtype=L.float64), 4), x)
    check(lambda L, x: x.clamp(1, L.tensor(4.5, dtype=L.float64)), x)
    check(lambda L, x: L.clamp(x, L.tensor(1.5, dtype=L.float64)), x)
    check(lambda L, x: L.clamp(x, None, L.tensor(4.5, dtype=L.float64)), x)
    check(lambda L, x: L.lerp(x.float(), x.float(), L.tensor(0.5, dtype=L.float64)), x)

# ---- lerp ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", ["float32", "float64", "complex64", "complex128"])
def test_lerp(d):
    s, e = T(d, (4, 5), 31), T(d, (5,), 32)
    for w in (0.0, 0.25, 0.5, 0.75, 1.0, -0.25, 3.5):
        check(lambda L, s, e: L.lerp(s, e, w), s, e, ulps=0 if "float" in d else 4)
    w = Both(torch.rand(4, 1, generator=torch.Generator().manual_seed(3)).to(s.th.dtype) * 2 - 0.4,
             None)
    w.ct = to_ct(w.th)
    check(lambda L, s, e, w: L.lerp(s, e, w), s, e, w, ulps=0 if "float" in d else 4)
    check(lambda L, s, e, w: s.lerp(e, w), s, e, w, ulps=0 if "float" in d else 4)
    # in place on a transposed view, out= of a wider dtype (scalar weight)
    th, ct = s.th.clone(), s.ct.clone()
    ct.t().lerp_(e.ct[:4], 0.3), th.t().lerp_(e.th[:4], 0.3)
    same_values(ct, th, 0 if "float" in d else 4)
    if d == "float32":
        check(lambda L, s, e, o: L.lerp(s, e, 0.3, out=o), s, e, T("float64", (4, 5), 1))
        check(lambda L, s, e, w, o: L.lerp(s, e, w, out=o), s, e, w, T("float64", (4, 5), 1))


@pytest.mark.parametrize("d", ["float16", "bfloat16"])
def test_lerp_reduced(d):
    """torch 1.13 has no float16 / bfloat16 lerp; newest computes in float32, rounded once."""
    s, e = T(d, (50,), 33), T(d, (50,), 34)
    ref = lambda: torch.lerp(s.th.float(), e.th.float(), 0.3).to(s.th.dtype)  # noqa: E731
    check(lambda L, s, e: L.lerp(s, e, 0.3), s, e, expect_th=ref, ulps=1)


def test_lerp_errors():
    s = T("float32", (3,), 35)
    check(lambda L, s: L.lerp(s, s.double(), 0.5), s)
    check(lambda L, s: L.lerp(s, s, s.double()), s)
    check(lambda L, s: L.lerp(s, s, s.long()), s)
    check(lambda L, s: L.lerp(s.long(), s.long(), 0.5), s)
    check(lambda L, s: L.lerp(s, s, 1j), s)
    check(lambda L, s: L.lerp(s, s, s, out=L.empty(3, dtype=L.float64)), s)
    check(lambda L, s: s.clone()[:1].lerp_(s, 0.5), s)


# ---- addcmul, addcdiv ----------------------------------------------------------------------

ADDC = [("float32", "float32", "float32"), ("float64", "float32", "int64"),
        ("int64", "int64", "int64"), ("int32", "int16", "uint8"), ("int8", "int8", "int8"),
        ("int64", "float32", "float32"), ("complex64", "float32", "complex64"),
        ("complex128", "complex128", "complex128"), ("float16", "float16", "float16"),
        ("bfloat16", "bfloat16", "float32")]


@pytest.mark.parametrize("da,db,dc", ADDC)
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addc(op, da, db, dc):
    a, b, c = T(da, (3, 1, 4), 41), T(db, (5, 1), 42), T(dc, (4,), 43)
    ulps = 0 if da in ("float32", "float64") and "complex" not in db + dc else 4
    if op == "addcdiv":
        c = c.view(lambda t: t + 1 if t.dtype == torch.bool else t)
    half = (da, db, dc) == ("float16",) * 3

    def newest(value):
        """no float16 kernel in torch 1.13: its float32 result, rounded once"""
        return lambda: getattr(torch, op)(a.th.float(), b.th.float(), c.th.float(),
                                          value=value).half()
    for value in (1, 2, -0.5, True):
        if isinstance(value, float) and "int" in da + db + dc and "float" not in da + db + dc:
            continue
        check(lambda L, a, b, c: getattr(L, op)(a, b, c, value=value), a, b, c,
              ulps=1 if half else ulps, expect_th=newest(value) if half else None)
    if not half:
        check(lambda L, a, b, c: getattr(a, op)(b, c), a, b, c, ulps=ulps)


def test_addc_forms_and_errors():
    a, b, i = T("float32", (4, 6), 44), T("float32", (6,), 45), T("int64", (6,), 46)
    th, ct = a.th.clone(), a.ct.clone()
    ct[1:].addcmul_(b.ct, b.ct, value=0.5), th[1:].addcmul_(b.th, b.th, value=0.5)
    same_values(ct, th, 0)
    ct.t().addcdiv_(b.ct[:4], b.ct[1:5]), th.t().addcdiv_(b.th[:4], b.th[1:5])
    same_values(ct, th, 0)
    o = T("float64", (2,), 47)
    check(lambda L, a, b, o: L.addcmul(a, b, b, out=o), a, b, o,
          expect_th=lambda: torch.addcmul(a.th, b.th, b.th).double())
    check(lambda L, a, i, o: L.addcmul(a, i, i, out=o), a, i, T("int64", (4, 6), 47))
    check(lambda L, i: L.addcdiv(i, i, i), i)
    check(lambda L, a, i: L.addcdiv(a, i, i.bool()), a, i)
    check(lambda L, i: L.addcmul(i.bool(), i.bool(), i.bool()), i)
    check(lambda L, a: L.addcmul(a, a, a, value=1j), a)
    check(lambda L, i, a: i.clone().addcmul_(a, a), i, a)
    check(lambda L, a, b: L.addcmul(a, b[:5], b), a, b)


# ---- masked_fill --------------------------------------------------------------------------------

@pytest.mark.parametrize("d", DTYPES)
def test_masked_fill(d):
    x, m = T(d, (3, 4), 51), T("bool", (4,), 52)
    for v in (0, 1, -1.5, True):
        if d == "uint8" and v == -1.5:
            continue
        check(lambda L, x, m: x.masked_fill(m, v), x, m)
    check(lambda L, x, m, z: x.masked_fill(m, z), x, m, T(d, (), 53))
    check(lambda L, x, m: L.masked_fill(x, m, 1), x, m)
    # self broadcast by the mask (out of place), contiguous result
    m2 = T("bool", (2, 3, 4), 54)
    r = check(lambda L, x, m: x.t().masked_fill(m.transpose(1, 2), 1), x, m2)
    assert r[0].stride() == r[1].stride()
    # in place on a view
    th, ct = x.th.clone(), x.ct.clone()
    assert ct[:, 1:].masked_fill_(m.ct[1:], 1) is not None
    th[:, 1:].masked_fill_(m.th[1:], 1)
    same_values(ct, th, 0)


def test_masked_fill_errors():
    x, m = T("float32", (3,), 55), T("bool", (3,), 56)
    check(lambda L, x, m: x.masked_fill(m, L.tensor([1.0])), x, m)
    check(lambda L, x, m: x.masked_fill(m, L.tensor([1.0, 2.0])), x, m)
    check(lambda L, x, m: x.clone().masked_fill_(m.expand(2, 3), 0), x, m)
    check(lambda L, x, m: x.int().masked_fill_(m, 1e20), x, m)
    check(lambda L, x, m: x.long().masked_fill(m, 1j), x, m)
    check(lambda L, x, m: x.to(L.int8).masked_fill(m, 1000), x, m)
    check(lambda L, x, m: x.masked_fill(m, L.tensor(2.0, dtype=L.float64)), x, m)
    # newest PyTorch: bool masks only (torch 1.13 accepts float, warns for uint8)
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got "
                                           "mask with dtype float$"):
        x.ct.masked_fill(m.ct.float(), 0)
    with pytest.raises(RuntimeError, match="with dtype unsigned char$"):
        x.ct.masked_fill(m.ct.to(ctensor.uint8), 0)
    # an expanded self: PyTorch's deprecation warning, then written
    th, ct = torch.zeros(3), ctensor.zeros(3)
    with pytest.warns(UserWarning) as rec:
        ct.expand(2, 3).masked_fill_(m.ct.expand(2, 3), 1)
    with pytest.warns(UserWarning) as rec_th:
        th.expand(2, 3).masked_fill_(m.th.expand(2, 3), 1)
    assert str(rec[0].message) == torch_warning(str(rec_th[0].message))
    same_values(ct, th, 0)


# ---- meta -----------------------------------------------------------------------------------

def test_meta_shapes_and_dtypes():
    def mk(L, shape, dt):
        return L.empty(shape, dtype=getattr(L, dt), device="meta")
    for fn in (lambda L: L.where(mk(L, (2, 1), "bool"), mk(L, (3,), "int32"), 2.5),
               lambda L: L.clamp(mk(L, (2, 3), "int64"), 0.5),
               lambda L: L.addcmul(mk(L, (2, 3), "float32"), mk(L, (3,), "float64"),
                                   mk(L, (2, 1), "int64")),
               lambda L: L.lerp(mk(L, (2, 3), "float32"), mk(L, (3,), "float32"), 0.5)):
        ct, th = fn(ctensor), fn(torch)
        assert str(ct.device) == "meta"
        assert tuple(ct.shape) == tuple(th.shape)
        assert str(ct.dtype).split(".")[1] == str(th.dtype).split(".")[1]
