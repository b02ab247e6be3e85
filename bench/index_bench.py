"""Advanced-indexing benchmark: ctensor against PyTorch 1.13 in the same process, with 1
and 2 threads (issue 15's goal: at least 1.0x torch).

    PYTHONPATH=build/python /usr/bin/python3 bench/index_bench.py [--n N] [--k K] [--reps R]

Cases: x[idx] with K random int64 indices into N float32 (a gather), x[mask] (N elements,
about half true) and x[mask] = 0; torch.gather along dim 1 (1000 x 10000 float32, 1000 x 1000
indices) and along dims 0 and 1 of 10^4 x 10^3 float32 (an index of that shape),
scatter_add_ along dim 1 (10^7 values into 1000 x 1000) and along a 1-D tensor (10^6 values into 10^5), searchsorted of 10^6 float32 values in 10^5 sorted boundaries. Prints the best time of each library over R calls in
alternating rounds, and the ratio torch / ctensor (above 1: ctensor is faster)."""
import argparse

import numpy as np

import ctensor
import torch

from bench_timing import best_of_rounds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--k", type=int, default=10**6)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(a.n, dtype=np.float32)
    idx = rng.integers(0, a.n, a.k, dtype=np.int64)
    mask = rng.random(a.n) < 0.5
    tx, cx = torch.from_numpy(x.copy()), ctensor.tensor(x)
    ti, ci = torch.from_numpy(idx), ctensor.tensor(idx)
    tm, cm = torch.from_numpy(mask), ctensor.tensor(mask)

    def tset():
        tx[tm] = 0

    def cset():
        cx[cm] = 0

    g = rng.standard_normal((1000, 10000), dtype=np.float32)
    gi = rng.integers(0, 10000, (1000, 1000), dtype=np.int64)
    h = rng.standard_normal((10**4, 10**3), dtype=np.float32)
    hi0 = rng.integers(0, 10**4, (10**4, 10**3), dtype=np.int64)
    hi1 = rng.integers(0, 10**3, (10**4, 10**3), dtype=np.int64)
    si = rng.integers(0, 1000, (1000, 10000), dtype=np.int64)
    i1 = rng.integers(0, 10**5, 10**6, dtype=np.int64)
    v1 = rng.standard_normal(10**6, dtype=np.float32)
    bnd = np.sort(rng.standard_normal(10**5, dtype=np.float32))
    T, C = {}, {}
    for lib, d in ((torch, T), (ctensor, C)):
        conv = (lambda v: torch.from_numpy(v.copy())) if lib is torch else ctensor.tensor
        d.update(h=conv(h), hi0=conv(hi0), hi1=conv(hi1))
        d.update(g=conv(g), gi=conv(gi), si=conv(si), i1=conv(i1), v1=conv(v1), bnd=conv(bnd),
                 acc=lib.zeros(1000, 1000), acc1=lib.zeros(10**5))
    cases = [
        ("x[idx] (1e6 int64 into 1e7 f32)", lambda: tx[ti], lambda: cx[ci]),
        ("x[mask] (1e7)", lambda: tx[tm], lambda: cx[cm]),
        ("x[mask] = 0 (1e7)", tset, cset),
        ("gather dim 1 (1e6 from 1e7 f32)", lambda: torch.gather(T["g"], 1, T["gi"]),
         lambda: ctensor.gather(C["g"], 1, C["gi"])),
        ("gather dim 0 (1e4 x 1e3, full index)", lambda: torch.gather(T["h"], 0, T["hi0"]),
         lambda: ctensor.gather(C["h"], 0, C["hi0"])),
        ("gather dim 1 (1e4 x 1e3, full index)", lambda: torch.gather(T["h"], 1, T["hi1"]),
         lambda: ctensor.gather(C["h"], 1, C["hi1"])),
        ("scatter_add_ dim 1 (1e7 into 1e6)", lambda: T["acc"].scatter_add_(1, T["si"], T["g"]),
         lambda: C["acc"].scatter_add_(1, C["si"], C["g"])),
        ("scatter_add_ 1-D (1e6 into 1e5)", lambda: T["acc1"].scatter_add_(0, T["i1"], T["v1"]),
         lambda: C["acc1"].scatter_add_(0, C["i1"], C["v1"])),
        ("searchsorted (1e6 in 1e5 f32)", lambda: torch.searchsorted(T["bnd"], T["v1"]),
         lambda: ctensor.searchsorted(C["bnd"], C["v1"])),
    ]
    for threads in (1, 2):
        torch.set_num_threads(threads)
        ctensor.set_num_threads(threads)
        for name, tf, cf in cases:
            bt, bc = best_of_rounds(tf, cf, a.rounds, a.reps)
            print(f"{threads} thread(s)  {name:34s} torch {bt * 1e3:8.2f} ms  "
                  f"ctensor {bc * 1e3:8.2f} ms  ratio {bt / bc:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
