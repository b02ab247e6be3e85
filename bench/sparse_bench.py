"""Sparse COO arithmetic benchmark: ctensor against PyTorch 1.13 in the same process, one
thread.

    PYTHONPATH=build/python /usr/bin/python3 bench/sparse_bench.py [--n N] [--nnz K] [--reps R]

Cases on an N x N float32 sparse tensor with K random (coalesced) entries: sparse + sparse,
sparse * dense (N x N), sparse * 2.5 and dense + sparse. Prints the best time of each
library over R calls in alternating rounds, and the ratio torch / ctensor (above 1:
ctensor is faster)."""
import argparse

import numpy as np

import ctensor
import torch

from bench_timing import best_of_rounds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--nnz", type=int, default=200000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)

    def make(m):
        ind = rng.integers(0, a.n, (2, a.nnz), dtype=np.int64)
        val = rng.standard_normal(a.nnz, dtype=np.float32)
        return ind, val

    (i1, v1), (i2, v2) = make(None), make(None)
    dense = rng.standard_normal((a.n, a.n), dtype=np.float32)
    t1 = torch.sparse_coo_tensor(torch.from_numpy(i1), torch.from_numpy(v1), (a.n, a.n)).coalesce()
    t2 = torch.sparse_coo_tensor(torch.from_numpy(i2), torch.from_numpy(v2), (a.n, a.n)).coalesce()
    c1 = ctensor.sparse_coo_tensor(ctensor.tensor(i1), ctensor.tensor(v1), (a.n, a.n)).coalesce()
    c2 = ctensor.sparse_coo_tensor(ctensor.tensor(i2), ctensor.tensor(v2), (a.n, a.n)).coalesce()
    td, cd = torch.from_numpy(dense.copy()), ctensor.tensor(dense)
    cases = [
        ("sparse + sparse", lambda: t1 + t2, lambda: c1 + c2),
        ("sparse * sparse", lambda: t1 * t2, lambda: c1 * c2),
        ("sparse * dense", lambda: t1 * td, lambda: c1 * cd),
        ("sparse * 2.5", lambda: t1 * 2.5, lambda: c1 * 2.5),
        ("dense + sparse", lambda: td + t1, lambda: cd + c1),
    ]
    torch.set_num_threads(1)
    ctensor.set_num_threads(1)
    for name, tf, cf in cases:
        bt, bc = best_of_rounds(tf, cf, a.rounds, a.reps)
        print(f"{name:18s} torch {bt * 1e3:8.2f} ms  ctensor {bc * 1e3:8.2f} ms  "
              f"ratio {bt / bc:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
