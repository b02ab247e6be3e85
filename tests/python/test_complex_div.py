"""Complex true division, reciprocal and addcdiv: newest PyTorch's Smith's method, bit for bit.

Newest PyTorch divides complex numbers as NumPy does (Note [Complex division] in
src/kernels/binary_elem.h): with |c| >= |d|, r = d/c and the quotient is ((a + b*r) +
(b - a*r)i) / (c + d*r), the sums fused; 0/0 divides part by part. Two references:
 * smith(): that algorithm in Python, with exact fused multiply-adds (fractions), on a grid of
   special values (0, -0, +-1, huge, tiny, +-inf, nan in every part) and random values;
 * data/complex_div_torch_2_11.npz: what torch 2.11 (cpu; its CUDA kernel gave the same bits)
   returned for 600 operand pairs: 100 random over 50 (complex64) or 400 (complex128) decades
   and the special grid, for a / b, b.reciprocal() and addcdiv(a, a, b, value=2).
torch 1.13 (the local reference elsewhere) divides by the textbook formula, which is NaN where
this is not (x / inf, parts beyond ~1e19 in complex64), so it is compared only within a
tolerance where neither formula over- or underflows (test_arith_vs_torch.py).
"""
import math
import os
from fractions import Fraction

import numpy as np
import pytest

import ctensor

HERE = os.path.dirname(__file__)
BIG = {"complex64": 3e38, "complex128": 1e308}
TINY = {"complex64": 1e-38, "complex128": 1e-308}
DTYPES = ["complex64", "complex128"]
NP = {"complex64": np.complex64, "complex128": np.complex128}
PART = {"complex64": np.float32, "complex128": np.float64}


def parts(dtype):
    return [0.0, -0.0, 1.0, -1.0, BIG[dtype], TINY[dtype], 2.5, -1e-3, 7e10, math.inf,
            -math.inf, math.nan]


def grid(dtype):
    p = parts(dtype)
    return np.array([complex(r, i) for r in p for i in p], dtype=NP[dtype])


def round_to(fr, ft):
    """The exact rational fr rounded to nearest-even in float type ft."""
    try:
        x = ft(float(fr))  # float64 division of the integers is correctly rounded
    except OverflowError:
        return ft(math.inf if fr > 0 else -math.inf)
    if ft is np.float64 or not np.isfinite(x):
        return x
    best = None  # float64 -> float32 may round twice: take the nearest of three neighbours
    for c in (np.nextafter(x, ft(-np.inf)), x, np.nextafter(x, ft(np.inf))):
        if np.isfinite(c):
            e = abs(Fraction(float(c)) - fr)
            if best is None or e < best[0] or (e == best[0] and int(c.view(np.uint32)) % 2 == 0):
                best = (e, c)
    return best[1]


def fma(x, y, z, ft):
    if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
        with np.errstate(all="ignore"):
            return ft(x * y + z)  # an infinity or NaN: rounding does not matter
    fr = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if fr == 0:
        with np.errstate(all="ignore"):
            return ft(x * y + z)  # the sign of an exact zero as IEEE adds
    return round_to(fr, ft)


def smith(x, y, ft):
    a, b, c, d = ft(x.real), ft(x.imag), ft(y.real), ft(y.imag)
    with np.errstate(all="ignore"):
        if abs(c) >= abs(d):
            if abs(c) == 0 and abs(d) == 0:
                return a / abs(c), b / abs(d)
            rat = d / c
            scl = ft(1) / fma(d, rat, c, ft)
            return fma(b, rat, a, ft) * scl, fma(-a, rat, b, ft) * scl
        rat = c / d
        scl = ft(1) / fma(c, rat, d, ft)
        return fma(a, rat, b, ft) * scl, fma(b, rat, -a, ft) * scl


def reference(xs, ys, dtype):
    ft = PART[dtype]
    out = np.empty(len(xs), dtype=NP[dtype])
    for i, (x, y) in enumerate(zip(xs, ys)):
        re, im = smith(x, y, ft)
        out[i] = complex(re, im) if not (np.isnan(re) or np.isnan(im)) else \
            np.array([re, im], dtype=ft).view(NP[dtype])[0]
    return out


def assert_bits(got, want, what):
    """Equal part for part, bit for bit, any NaN matching any NaN."""
    g = np.ascontiguousarray(got).view(got.real.dtype)
    w = np.ascontiguousarray(want).view(g.dtype)
    same = (g.view(np.uint8).reshape(len(g), -1) == w.view(np.uint8).reshape(len(w), -1)).all(1)
    same |= np.isnan(g) & np.isnan(w)
    bad = np.nonzero(~same)[0] // 2
    assert not len(bad), (f"{what}: {len(bad)} parts differ, first at {bad[:4]}: got "
                          f"{got[bad[:4]]} want {want[bad[:4]]}")


def ct_of(x, dtype):
    return ctensor.from_numpy(np.ascontiguousarray(x, dtype=NP[dtype]))


def np_of(t):
    return t.contiguous().numpy()


def pairs(dtype):
    g = grid(dtype)
    return np.repeat(g, len(g)), np.tile(g, len(g))


@pytest.fixture(scope="module", params=DTYPES)
def grid_case(request):
    dtype = request.param
    a, b = pairs(dtype)
    return dtype, a, b, reference(a, b, dtype)


def test_tensor_by_tensor(grid_case):
    dtype, a, b, want = grid_case
    ta, tb = ct_of(a, dtype), ct_of(b, dtype)
    assert_bits(np_of(ta / tb), want, "a / b")
    assert_bits(np_of(ctensor.true_divide(ta, tb)), want, "true_divide")
    assert_bits(np_of(ctensor.div(ta, tb)), want, "div")
    t = ta.clone()
    t.div_(tb)
    assert_bits(np_of(t), want, "div_")
    out = ctensor.empty(len(a), dtype=getattr(ctensor, dtype))
    ctensor.div(ta, tb, out=out)
    assert_bits(np_of(out), want, "out=")


def test_strided_and_short_rows(grid_case):
    dtype, a, b, want = grid_case
    ta, tb = ct_of(a, dtype), ct_of(b, dtype)
    assert_bits(np_of(ta[::2] / tb[::2]), want[::2], "a[::2] / b[::2]")
    assert_bits(np_of(ta[1::3] / tb[1::3]), want[1::3], "a[1::3] / b[1::3]")
    for start, n in ((0, 1), (5, 3), (100, 7), (999, 9), (4000, 17)):
        assert_bits(np_of(ta[start:start + n] / tb[start:start + n]), want[start:start + n],
                    f"a row of {n}")
    # a transposed 2-d view
    m = int(math.isqrt(len(a)))
    got = ta.reshape(m, m).t() / tb.reshape(m, m).t()
    assert_bits(np_of(got).reshape(-1), want.reshape(m, m).T.reshape(-1), "transposed")


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_and_zero_dim_divisors(dtype):
    g = grid(dtype)
    tg = ct_of(g, dtype)
    for y in list(g[::5]) + [3, 2.5, complex(2, -1)]:
        yc = NP[dtype](y)
        want = reference(g, np.full(len(g), yc), dtype)
        assert_bits(np_of(tg / complex(yc)), want, f"tensor / {y}")
        assert_bits(np_of(tg / ctensor.tensor(complex(yc), dtype=getattr(ctensor, dtype))), want,
                    f"tensor / 0-dim {y}")
        # a broadcast dividend (the vector loop's other broadcast operand)
        want = reference(np.full(len(g), yc), g, dtype)
        assert_bits(np_of(ctensor.tensor(complex(yc), dtype=getattr(ctensor, dtype)) / tg), want,
                    f"0-dim {y} / tensor")
        one = ctensor.tensor([complex(yc)], dtype=getattr(ctensor, dtype))
        assert_bits(np_of(one.expand(len(g)) / tg), want, f"expanded {y} / tensor")
        assert_bits(np_of(tg / one.expand(len(g))), reference(g, np.full(len(g), yc), dtype),
                    f"tensor / expanded {y}")


def test_reciprocal_and_reflected(grid_case):
    dtype, a, b, _ = grid_case
    g = grid(dtype)
    want = reference(np.ones(len(g), dtype=NP[dtype]), g, dtype)
    tg = ct_of(g, dtype)
    assert_bits(np_of(tg.reciprocal()), want, "reciprocal")
    assert_bits(np_of(ctensor.reciprocal(tg)), want, "ctensor.reciprocal")
    # a number over a tensor is the tensor's reciprocal times the number, as PyTorch's
    # __rtruediv__ computes it: (inf+nanj) * (1+0j) is nan+nanj, not 1 / (0+0j)
    assert_bits(np_of(1 / tg), np_of(tg.reciprocal() * 1), "1 / t")
    assert_bits(np_of(2.5 / tg), np_of(tg.reciprocal() * 2.5), "2.5 / t")


@pytest.mark.parametrize("dtype", DTYPES)
def test_random(dtype):
    rng = np.random.default_rng(7)
    e = 30 if dtype == "complex64" else 250
    n = 600
    mag = lambda: 10.0 ** rng.uniform(-e, e, n) * rng.choice([-1, 1], n)
    a = (mag() + 1j * mag()).astype(NP[dtype])
    b = (mag() + 1j * mag()).astype(NP[dtype])
    assert_bits(np_of(ct_of(a, dtype) / ct_of(b, dtype)), reference(a, b, dtype), "random")


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_2_11_results(dtype):
    d = np.load(os.path.join(HERE, "data", "complex_div_torch_2_11.npz"))
    a, b = ct_of(d[f"{dtype}_a"], dtype), ct_of(d[f"{dtype}_b"], dtype)
    assert_bits(np_of(a / b), d[f"{dtype}_div"], "a / b against torch 2.11")
    assert_bits(np_of(b.reciprocal()), d[f"{dtype}_reciprocal"], "reciprocal against torch 2.11")
    assert_bits(np_of(ctensor.addcdiv(a, a, b, value=2)), d[f"{dtype}_addcdiv2"],
                "addcdiv against torch 2.11")
    # and the Python reference agrees with torch 2.11 there
    assert_bits(reference(d[f"{dtype}_a"], d[f"{dtype}_b"], dtype), d[f"{dtype}_div"],
                "smith() against torch 2.11")


def test_examples():
    # newest PyTorch: 1 / (0+0j) divides part by part; x / inf is 0
    assert repr((ctensor.tensor([1 + 0j]) / 0).tolist()[0]) == "(inf+nanj)"
    assert (ctensor.tensor([1 + 2j]) / ctensor.tensor([complex(math.inf, 0)])).tolist() == [0j]
    big = ctensor.tensor([complex(1e30, 1e30)], dtype=ctensor.complex64)
    assert (big / big).tolist() == [(1 + 0j)]
    # a real divisor is the complex (2.5+0j): 3 * (1 / 2.5), rounded twice, as newest PyTorch
    c = ctensor.tensor([3 + 0j], dtype=ctensor.complex128) / 2.5
    assert c.tolist() == [(3 * (1 / 2.5) + 0j)] == [(1.2000000000000002 + 0j)]
