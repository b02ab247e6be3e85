"""bfloat16 matrix products (src/kernels/gemm_bf16.c, Note [bf16 gemm]): against a float64
reference and torch 1.13, at the best ISA level (the AVX512-BF16 kernel where the CPU has
it) and, in a subprocess with CT_CPU_ISA=avx2, on the float32 sgemm path.

Tolerances: each output is one bfloat16 rounding (relative 2^-8) of a float32 sum of exact
products, so the float64 reference of the same bf16 inputs agrees within 2^-8 of the result
plus float32 summation error scaled by sum(|a| |b|). torch 1.13 is looser (for small sizes it
rounds partial sums to bf16), so it is compared within 2^-6 of |ref| + sum(|a| |b|)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ctensor
import torch

SIZES = [1, 3, 17, 33, 100, 257]


def pair(shape, seed):
    """The same bf16 values in ctensor and torch (float64 lists, rounded by each to bf16)."""
    rng = np.random.default_rng(seed)
    vals = rng.uniform(-1, 1, size=shape)
    t = torch.tensor(vals, dtype=torch.float64).to(torch.bfloat16)
    c = ctensor.tensor(vals.tolist(), dtype=ctensor.float64).to(ctensor.bfloat16)
    assert c.to(ctensor.float64).tolist() == t.double().tolist()
    return c, t


def f64(x):
    if isinstance(x, torch.Tensor):
        return x.double().numpy()
    return np.asarray(x.to(ctensor.float64).tolist(), dtype=np.float64)


def check(c_out, t_out, ref, scale):
    """c_out: ctensor result; t_out: torch's; ref, scale: float64 exact value and
    sum |a||b| (the size of the summation error)."""
    got = f64(c_out)
    assert got.shape == ref.shape
    bound = 2.0 ** -8 * np.abs(ref) + 2.0 ** -20 * scale + 1e-30
    assert np.all(np.abs(got - ref) <= bound), np.max(np.abs(got - ref) - bound)
    tv = f64(t_out)
    # torch 1.13 rounds partial sums to bf16 on its small-size path: a few bf16 ulps
    assert np.all(np.abs(got - tv) <= 2.0 ** -6 * (np.abs(ref) + scale) + 1e-30)


def mm_ref(a, b):
    return f64(a) @ f64(b), np.abs(f64(a)) @ np.abs(f64(b))


@pytest.mark.parametrize("m", SIZES)
@pytest.mark.parametrize("k", SIZES)
def test_mm_sizes(m, k):
    for n in [1, 17, 33, 257] if m in (1, 33, 257) else [3, 100]:
        a, ta = pair((m, k), m * 1000 + k)
        b, tb = pair((k, n), m * 1000 + k + 1)
        ref, scale = mm_ref(ta, tb)
        check(ctensor.mm(a, b), torch.mm(ta, tb), ref, scale)


@pytest.mark.parametrize("la", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "strided"])
def test_layouts(la, lb):
    """Transposed operands (k contiguous or not) and operands with no unit stride."""
    def lay(x, L, how):
        if how == "transposed":
            return x.t().contiguous().t()
        if how == "strided":
            return L.stack([x, x], -1)[..., 1]
        return x

    for m, k, n in [(33, 17, 100), (100, 257, 33), (3, 1, 5)]:
        a, ta = pair((m, k), 11 * m + k)
        b, tb = pair((k, n), 13 * k + n)
        ref, scale = mm_ref(ta, tb)
        c = ctensor.matmul(lay(a, ctensor, la), lay(b, ctensor, lb))
        t = torch.matmul(lay(ta, torch, la), lay(tb, torch, lb))
        check(c, t, ref, scale)


def test_strided_out():
    """out= a transposed (non-unit inner stride) view."""
    a, ta = pair((33, 40), 1)
    b, tb = pair((40, 17), 2)
    out = ctensor.zeros(17, 33, dtype=ctensor.bfloat16).t()
    tout = torch.zeros(17, 33, dtype=torch.bfloat16).t()
    ctensor.mm(a, b, out=out)
    torch.mm(ta, tb, out=tout)
    ref, scale = mm_ref(ta, tb)
    check(out, tout, ref, scale)


def test_batched():
    """bmm, batched matmul with broadcasting, baddbmm and addmm (alpha, beta)."""
    a, ta = pair((4, 33, 17), 3)
    b, tb = pair((4, 17, 100), 4)
    ref = np.einsum("bik,bkj->bij", f64(ta), f64(tb))
    scale = np.einsum("bik,bkj->bij", np.abs(f64(ta)), np.abs(f64(tb)))
    check(ctensor.bmm(a, b), torch.bmm(ta, tb), ref, scale)
    b1, tb1 = pair((17, 100), 5)
    ref = f64(ta) @ f64(tb1)
    check(ctensor.matmul(a, b1), torch.matmul(ta, tb1), ref, np.abs(f64(ta)) @ np.abs(f64(tb1)))
    c, tc = pair((4, 33, 100), 6)
    ref = 0.5 * f64(tc) + 2.0 * np.einsum("bik,bkj->bij", f64(ta), f64(tb))
    scale = np.abs(f64(tc)) + 2.0 * np.einsum("bik,bkj->bij", np.abs(f64(ta)), np.abs(f64(tb)))
    check(ctensor.baddbmm(c, a, b, beta=0.5, alpha=2.0),
          torch.baddbmm(tc, ta, tb, beta=0.5, alpha=2.0), ref, scale)
    c2, tc2 = pair((33, 100), 7)
    ref = -1.0 * f64(tc2) + 0.25 * (f64(ta[0]) @ f64(tb[0]))
    scale = np.abs(f64(tc2)) + 0.25 * (np.abs(f64(ta[0])) @ np.abs(f64(tb[0])))
    check(ctensor.addmm(c2, a[0], b[0], beta=-1.0, alpha=0.25),
          torch.addmm(tc2, ta[0], tb[0], beta=-1.0, alpha=0.25), ref, scale)


def test_k_zero():
    a = ctensor.ones(5, 0, dtype=ctensor.bfloat16)
    b = ctensor.ones(0, 7, dtype=ctensor.bfloat16)
    assert ctensor.mm(a, b).tolist() == [[0.0] * 7] * 5
    c = ctensor.full((5, 7), 3.0, dtype=ctensor.bfloat16)
    assert ctensor.addmm(c, a, b, beta=0.5).tolist() == [[1.5] * 7] * 5


def test_special_values():
    """inf and NaN propagate; a large sum overflows to inf as in torch."""
    a = ctensor.tensor([[1.0, float("inf")], [2.0, float("nan")], [3e38, 3e38]],
                       dtype=ctensor.bfloat16)
    b = ctensor.tensor([[1.0, 2.0], [1.0, 0.5]], dtype=ctensor.bfloat16)
    t = torch.tensor([[1.0, float("inf")], [2.0, float("nan")], [3e38, 3e38]],
                     dtype=torch.bfloat16) @ torch.tensor([[1.0, 2.0], [1.0, 0.5]],
                                                          dtype=torch.bfloat16)
    got = (a @ b).to(ctensor.float32).tolist()
    want = t.float().tolist()
    for g, w in zip(sum(got, []), sum(want, [])):
        assert (g != g and w != w) or g == w


def test_large_against_torch():
    """Sizes past every block (mc, NC, the k pairs) and an odd k."""
    a, ta = pair((301, 517), 8)
    b, tb = pair((517, 290), 9)
    ref, scale = mm_ref(ta, tb)
    check(a @ b, ta @ tb, ref, scale)


def test_threads_agree():
    """The same bytes at 1 and 2 threads (each output is computed by one micro-kernel)."""
    a, _ = pair((130, 300), 10)
    b, _ = pair((300, 270), 11)
    old = ctensor.get_num_threads()
    try:
        ctensor.set_num_threads(1)
        one = (a @ b).tolist()
        ctensor.set_num_threads(2)
        two = (a @ b).tolist()
    finally:
        ctensor.set_num_threads(old)
    assert one == two


def test_sgemm_path_in_subprocess():
    """CT_CPU_ISA=avx2 forces the widen-to-float32 sgemm path (the path of CPUs without
    AVX512-BF16): this file's tests again there."""
    if os.environ.get("CT_CPU_ISA"):
        pytest.skip("already in the subprocess")
    env = dict(os.environ, CT_CPU_ISA="avx2", PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-k", "not sgemm_path", os.path.abspath(__file__)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
