"""Advanced-indexing benchmark: ctensor against PyTorch 1.13 in the same process, with 1
and 2 threads (issue 15's goal: at least 1.0x torch).

    PYTHONPATH=build/python /usr/bin/python3 bench/index_bench.py [--n N] [--k K] [--reps R]

Cases: x[idx] with K random int64 indices into N float32 (a gather), x[mask] (N elements,
about half true) and x[mask] = 0. Prints the best time of each library over R calls in
alternating rounds, and the ratio torch / ctensor (above 1: ctensor is faster)."""
import argparse
import time

import numpy as np

import ctensor
import torch


def best_of(fn, reps):
    fn()  # warm-up
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


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

    cases = [
        ("x[idx] (1e6 int64 into 1e7 f32)", lambda: tx[ti], lambda: cx[ci]),
        ("x[mask] (1e7)", lambda: tx[tm], lambda: cx[cm]),
        ("x[mask] = 0 (1e7)", tset, cset),
    ]
    for threads in (1, 2):
        torch.set_num_threads(threads)
        ctensor.set_num_threads(threads)
        for name, tf, cf in cases:
            bt = bc = float("inf")
            for _ in range(a.rounds):
                bt = min(bt, best_of(tf, a.reps))
                bc = min(bc, best_of(cf, a.reps))
            print(f"{threads} thread(s)  {name:34s} torch {bt * 1e3:8.2f} ms  "
                  f"ctensor {bc * 1e3:8.2f} ms  ratio {bt / bc:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
