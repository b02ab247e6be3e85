"""Reductions: ctensor vs torch 1.13 in the same run, with 1 and 2 threads, and a
read-bandwidth probe.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/reduce_bench.py [name substrings...]
Each line: the median time of each library and the ratio torch / ctensor (>= 1.0: ctensor
as fast or faster). The probe is numpy's bitwise_or.reduce over the float32 10^8 array read
as uint64 words: a plain streaming read (one integer OR per 8 bytes, single-threaded); the
float32 sum of 10^8 is reported as a fraction of it. ctensor shares torch's memory
(from_dlpack), so both read the same bytes. On a shared machine, run it more than once."""
import sys

import numpy as np
import torch

import ctensor

from bench_timing import median_seconds


def main():
    torch.manual_seed(0)
    big = torch.randn(10**8)
    words = big.numpy().view(np.uint64)
    probe = big.numel() * 4 / median_seconds(lambda: np.bitwise_or.reduce(words), 5, 2)
    print(f"read probe (numpy bitwise_or.reduce, 1 thread): {probe / 1e9:.1f} GB/s")
    sq = torch.randn(10**4, 10**4)
    i32 = torch.randint(-1000, 1000, (10**7,), dtype=torch.int32)
    f7 = torch.randn(10**7)
    rows = torch.randn(4096, 1024)
    nchw = torch.randn(16, 32, 64, 64)
    rows16 = rows.bfloat16()
    cases = [
        ("sum float32 1e8", big, lambda a: a.sum(), big.numel() * 4),
        ("sum float32 1e4x1e4 dim=0", sq, lambda a: a.sum(0), None),
        ("sum float32 1e4x1e4 dim=1", sq, lambda a: a.sum(1), None),
        ("sum int32 1e7", i32, lambda a: a.sum(), None),
        ("mean float32 1e7", f7, lambda a: a.mean(), None),
        ("amax float32 1e7", f7, lambda a: a.amax(), None),
        ("argmax float32 1e7", f7, lambda a: a.argmax(), None),
        ("std float32 1e7", f7, lambda a: a.std(), None),
        ("var float32 1e3x1e4 dim=1", sq[:1000], lambda a: a.var(1), None),
        ("nansum float32 1e7", f7, lambda a: a.nansum(), None),
        ("norm float32 1e7", f7, lambda a: a.norm(), None),
        ("logsumexp float32 1e7", f7, lambda a: a.logsumexp(0), None),
        ("cumsum float32 1e7", f7, lambda a: a.cumsum(0), None),
        ("cumsum float32 1e3x1e4 dim=0", sq[:1000], lambda a: a.cumsum(0), None),
        ("aminmax float32 1e7", f7, lambda a: a.aminmax(), None),
        ("count_nonzero float32 1e7", f7, lambda a: a.count_nonzero(), None),
        ("softmax float32 4096x1024 dim=1", rows, lambda a: a.softmax(1), None),
        ("softmax float32 4096x1024 dim=0", rows, lambda a: a.softmax(0), None),
        ("log_softmax float32 4096x1024 dim=1", rows, lambda a: a.log_softmax(1), None),
        ("softmax float32 64x1000 dim=1", rows[:64, :1000], lambda a: a.softmax(1), None),
        ("softmax float32 16x32x64x64 dim=1", nchw, lambda a: a.softmax(1), None),
        ("softmax bfloat16 4096x1024 dim=1", rows16, lambda a: a.softmax(1), None),
    ]
    only = sys.argv[1:]  # optional substrings: run only the cases whose name has one
    if only:
        cases = [c for c in cases if any(o in c[0] for o in only)]
    for threads in (1, 2):
        ctensor.set_num_threads(threads)
        torch.set_num_threads(threads)
        for name, t, fn, nbytes in cases:
            c = ctensor.from_dlpack(t)
            tc = median_seconds(lambda: fn(c), 7, 2)
            tt = median_seconds(lambda: fn(t), 7, 2)
            line = (f"{name:28s} threads={threads}  ctensor {tc * 1e3:8.2f} ms  torch "
                    f"{tt * 1e3:8.2f} ms  ratio {tt / tc:5.2f}x")
            if nbytes:
                line += f"  {nbytes / tc / probe * 100:5.1f}% of the probe"
            print(line, flush=True)
    if only and not any("1e8" in o for o in only):
        return 0
    ref = float(big.double().sum())
    ec = abs(ctensor.from_dlpack(big).sum().item() - ref)
    et = abs(big.sum().item() - ref)
    print(f"float32 sum of 1e8 normal values, |error| vs float64: ctensor {ec:.3g}, "
          f"torch {et:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
