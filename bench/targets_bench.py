"""Issue 15's speed targets in one run: every target with its ratio against torch 1.13 (and,
for float32 matmul, against a direct cblas_sgemm into the same OpenBLAS), at 1 and 2 threads.

    PYTHONPATH=build/python CT_LIBCTENSOR=build/libctensor.so /usr/bin/python3 \\
        bench/targets_bench.py [--rounds R] [--threads 1,2] [--only SUBSTR,...]

Each round calls ctensor, then torch (then cblas), once each, so the libraries alternate and
meet the same neighbours; each keeps its best round. With 1 thread both libraries (and
OpenBLAS) run on the calling thread, so the figure is that thread's CPU time
(time.thread_time: other jobs on the machine do not count); with 2 threads it is wall time.
ratio = torch / ctensor (above 1: ctensor faster); for cblas, cblas / ctensor (the fraction
of the direct call's speed ctensor reaches). Before timing, each case checks that both
libraries give the same answer."""
import argparse
import ctypes
import time

import numpy as np

import ctensor
import torch

from bench_timing import load_openblas


BLAS = load_openblas()


def sgemm_fn(n):
    """A direct row-major cblas_sgemm of two n x n float32 matrices (None without OpenBLAS)."""
    if BLAS is None:
        return None
    a, b, c = (np.random.default_rng(1).random(n * n, dtype=np.float32) for _ in range(3))
    f = BLAS.cblas_sgemm
    f.argtypes = [ctypes.c_int] * 6 + [ctypes.c_float, ctypes.c_void_p, ctypes.c_int,
                                       ctypes.c_void_p, ctypes.c_int, ctypes.c_float,
                                       ctypes.c_void_p, ctypes.c_int]
    keep = (a, b, c)  # the closure holds the arrays: ctypes gets bare addresses
    pa, pb, pc = (x.ctypes.data for x in keep)
    return lambda: keep and f(101, 111, 111, n, n, n, 1.0, pa, n, pb, n, 0.0, pc, n)


def timed(fn, cpu):
    clock = time.thread_time if cpu else time.perf_counter
    t0 = clock()
    fn()
    return clock() - t0


def same(c, t, exact):
    c = np.asarray(c.float().numpy() if c.dtype in (ctensor.bfloat16, ctensor.float16)
                   else c.numpy())
    t = np.asarray(t.float().numpy() if t.dtype in (torch.bfloat16, torch.float16)
                   else t.numpy())
    if exact:
        return c.shape == t.shape and np.array_equal(c, t)
    return c.shape == t.shape and np.allclose(c, t, rtol=2e-2, atol=1e-2 * max(1.0, np.abs(t).max()))


def cases():
    """(name, target text, target ratio, ctensor fn, torch fn, cblas fn or None, check).
    check: "exact" or "close" (ctensor's answer against torch's), a function of ctensor's
    answer, or None."""
    rng = np.random.default_rng(0)
    out = []

    def both(make):
        return make(ctensor), make(torch)

    def from_np(lib, x):
        return ctensor.tensor(x) if lib is ctensor else torch.from_numpy(x.copy())

    # matrix products
    a32 = rng.random((2048, 2048), dtype=np.float32)
    b32 = rng.random((2048, 2048), dtype=np.float32)
    (ca, cb), (ta, tb) = both(lambda L: (from_np(L, a32), from_np(L, b32)))
    out.append(("f32 matmul 2048", ">=1.0x torch, >=0.9x cblas", 1.0,
                lambda: ctensor.matmul(ca, cb), lambda: torch.matmul(ta, tb), sgemm_fn(2048),
                "close"))
    x3 = rng.random((64, 256, 256), dtype=np.float32)
    y3 = rng.random((64, 256, 256), dtype=np.float32)
    (cx3, cy3), (tx3, ty3) = both(lambda L: (from_np(L, x3), from_np(L, y3)))
    out.append(("f32 bmm 64x256x256", ">=1.0x torch", 1.0, lambda: ctensor.bmm(cx3, cy3),
                lambda: torch.bmm(tx3, ty3), None, "close"))
    h1 = rng.random((1024, 1024), dtype=np.float32)
    h2 = rng.random((1024, 1024), dtype=np.float32)
    ch1, ch2 = ctensor.tensor(h1).half(), ctensor.tensor(h2).half()
    tf1, tf2 = torch.from_numpy(h1.copy()), torch.from_numpy(h2.copy())
    out.append(("f16 matmul 1024 (torch f32)", ">=2x torch (torch: no f16)", 2.0,
                lambda: ctensor.matmul(ch1, ch2), lambda: torch.matmul(tf1, tf2), None, None))
    cbf1, cbf2 = ctensor.tensor(h1).bfloat16(), ctensor.tensor(h2).bfloat16()
    tbf1, tbf2 = torch.from_numpy(h1.copy()).bfloat16(), torch.from_numpy(h2.copy()).bfloat16()
    # Checked against float64 products of the bfloat16 inputs, not against torch: 1.13's
    # CPU bfloat16 matmul without AVX512-BF16 accumulates in bfloat16 (on an AVX2-only Zen 3,
    # errors of 13.5 on sums near 100 where ctensor's float32 accumulation is within 0.5, one
    # bfloat16 rounding).
    bf_ref = tbf1.double() @ tbf2.double()
    out.append(("bf16 matmul 1024", ">=2x torch (>=1x at 2 thr)", 2.0,
                lambda: ctensor.matmul(cbf1, cbf2), lambda: torch.matmul(tbf1, tbf2), None,
                lambda c: same(c, bf_ref.float(), False)))
    i1 = rng.integers(-9, 9, (512, 512), dtype=np.int32)
    i2 = rng.integers(-9, 9, (512, 512), dtype=np.int32)
    (ci1, ci2), (ti1, ti2) = both(lambda L: (from_np(L, i1), from_np(L, i2)))
    out.append(("i32 matmul 512", ">=1.0x torch", 1.0, lambda: ctensor.matmul(ci1, ci2),
                lambda: torch.matmul(ti1, ti2), None, "exact"))

    # indexing
    x = rng.standard_normal(10**7, dtype=np.float32)
    idx = rng.integers(0, 10**7, 10**6, dtype=np.int64)
    mask = rng.random(10**7) < 0.5
    cx, tx = ctensor.tensor(x), torch.from_numpy(x.copy())
    ci, ti = ctensor.tensor(idx), torch.from_numpy(idx.copy())
    cm, tm = ctensor.tensor(mask), torch.from_numpy(mask.copy())
    out.append(("x[idx] 1e6 int64 of 1e7 f32", ">=1.0x torch", 1.0, lambda: cx[ci],
                lambda: tx[ti], None, "exact"))
    out.append(("x[mask] 1e7", ">=1.0x torch", 1.0, lambda: cx[cm], lambda: tx[tm], None,
                "exact"))
    cz, tz = ctensor.tensor(x), torch.from_numpy(x.copy())

    def cset():
        cz[cm] = 0
        return cz

    def tset():
        tz[tm] = 0
        return tz

    out.append(("x[mask] = 0 1e7", ">=1.0x torch", 1.0, cset, tset, None, "exact"))

    # sorting
    cs, ts = ctensor.tensor(x), torch.from_numpy(x.copy())
    out.append(("sort f32 1e7", ">=1.0x torch", 1.0, lambda: cs.sort()[0],
                lambda: ts.sort()[0], None, "exact"))
    out.append(("topk(100) f32 1e7", ">=1.0x torch", 1.0, lambda: cs.topk(100)[0],
                lambda: ts.topk(100)[0], None, "exact"))

    # cat
    per = 10**7 // 64
    parts = [rng.standard_normal(per, dtype=np.float32) for _ in range(64)]
    cparts = [ctensor.tensor(p) for p in parts]
    tparts = [torch.from_numpy(p.copy()) for p in parts]
    out.append(("cat 64 x 156250 f32", ">=1.0x torch", 1.0, lambda: ctensor.cat(cparts),
                lambda: torch.cat(tparts), None, "exact"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names")
    args = ap.parse_args()
    cs = cases()
    if args.only:
        keys = args.only.split(",")
        cs = [c for c in cs if any(k in c[0] for k in keys)]
    for name, _, _, cf, tf, _, check in cs:
        if callable(check):
            assert check(cf()), "wrong answer: " + name
        elif check is not None:
            assert same(cf(), tf(), check == "exact"), "different answers: " + name
    print("%-28s %3s %5s %10s %10s %7s %10s %7s  %-28s %s" % (
        "target", "thr", "clock", "ctensor ms", "torch ms", "ratio", "cblas ms", "cb/ct",
        "goal", "met"))
    met = total = 0
    for threads in [int(t) for t in args.threads.split(",")]:
        ctensor.set_num_threads(threads)
        torch.set_num_threads(threads)
        if BLAS is not None:
            BLAS.openblas_set_num_threads(threads)
        cpu = threads == 1
        for name, goal, want, cf, tf, bf, _ in cs:
            fns = [cf, tf] + ([bf] if bf else [])
            for f in fns:  # warm-up
                f()
            best = [float("inf")] * len(fns)
            for _ in range(args.rounds):
                for i, f in enumerate(fns):
                    best[i] = min(best[i], timed(f, cpu))
            ratio = best[1] / best[0]
            ok = ratio >= want
            if name.startswith("bf16") and threads > 1:
                ok = ratio >= 1.0  # 2x is out of reach (same instruction at peak): parity
            cb = ""
            if bf:
                cb = "%10.2f %7.2f" % (best[2] * 1e3, best[2] / best[0])
                ok = ok and best[2] / best[0] >= 0.9
            else:
                cb = "%10s %7s" % ("", "")
            met += ok
            total += 1
            print("%-28s %3d %5s %10.2f %10.2f %7.2f %s  %-28s %s" % (
                name, threads, "cpu" if cpu else "wall", best[0] * 1e3, best[1] * 1e3, ratio,
                cb, goal, "met" if ok else "NOT met"), flush=True)
    print("targets met: %d of %d" % (met, total))


if __name__ == "__main__":
    main()
