"""Sorting and selection: ctensor vs torch 1.13 in the same run, with 1 and 2 threads.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/sort_bench.py [name substrings...]
Each line: the median time of each library and the ratio torch / ctensor (>= 1.0: ctensor
as fast or faster). ctensor shares torch's memory (from_dlpack), so both read the same
bytes. On a shared machine, run it more than once."""
import sys

import torch

import ctensor

from bench_timing import median_seconds


def main():
    torch.manual_seed(0)
    f7 = torch.randn(10**7)
    i7 = torch.randint(-10**6, 10**6, (10**7,), dtype=torch.int32)
    rows = torch.randn(1000, 1000)
    cases = [
        ("sort float32 1e7", f7, lambda a: a.sort()),
        ("sort float32 1e7 stable", f7, lambda a: a.sort(stable=True)),
        ("sort int32 1e7", i7, lambda a: a.sort()),
        ("argsort float32 1e3x1e3 dim=1", rows, lambda a: a.argsort(1)),
        ("sort float32 1e3x1e3 dim=0", rows, lambda a: a.sort(0)),
        ("topk(100) float32 1e7", f7, lambda a: a.topk(100)),
        ("topk(10) float32 1e3x1e3 dim=1", rows, lambda a: a.topk(10, 1)),
        ("kthvalue float32 1e3x1e3 dim=1", rows, lambda a: a.kthvalue(500, 1)),
        ("unique int32 1e7", i7, lambda a: a.unique()),
    ]
    only = sys.argv[1:]  # optional substrings: run only the cases whose name has one
    if only:
        cases = [c for c in cases if any(o in c[0] for o in only)]
    for threads in (1, 2):
        ctensor.set_num_threads(threads)
        torch.set_num_threads(threads)
        for name, t, fn in cases:
            c = ctensor.from_dlpack(t)
            tc = median_seconds(lambda: fn(c), 5, 1)
            tt = median_seconds(lambda: fn(t), 5, 1)
            print(f"{name:32s} threads={threads}  ctensor {tc * 1e3:8.2f} ms  torch "
                  f"{tt * 1e3:8.2f} ms  ratio {tt / tc:5.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
