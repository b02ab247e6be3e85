"""Unary element-wise ops against torch 1.13, in the same run: exp, log, sin, tanh, sigmoid
on 10^7 elements of float32, bfloat16 and float16, with 1 and 2 threads.

    PYTHONPATH=build/python /usr/bin/python3 bench/unary_bench.py [--n N] [--reps R]

Prints one line per (dtype, op, threads): ctensor's and torch's best time of R calls (after
a warm-up) and the ratio torch / ctensor (> 1: ctensor is faster). torch 1.13 has no CPU
float16 kernel for most of these ops ("exp_vml_cpu" not implemented for 'Half'): those rows
say so and time ctensor alone. Targets (issue 14): float32 >= 1.0x, bfloat16/float16 >= 2x."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_timing import best_seconds  # noqa: E402

import ctensor  # noqa: E402
import torch  # noqa: E402

OPS = ["exp", "log", "sin", "tanh", "sigmoid"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    print(f"isa {ctensor.cpu_isa_active() if hasattr(ctensor, 'cpu_isa_active') else '?'}  "
          f"n={args.n}  torch {torch.__version__}")
    print(f"{'dtype':9} {'op':8} {'thr':>3} {'ctensor ms':>11} {'torch ms':>9} {'ratio':>6}")
    g = torch.Generator().manual_seed(0)
    base = torch.rand(args.n, generator=g) * 4 + 0.01  # positive: log is finite
    for dname in ["float32", "bfloat16", "float16"]:
        tt = base.to(getattr(torch, dname))
        ct = ctensor.from_dlpack(tt) if hasattr(ctensor, "from_dlpack") else None
        if ct is None:
            raise SystemExit("ctensor.from_dlpack is needed")
        for threads in (1, 2):
            torch.set_num_threads(threads)
            ctensor.set_num_threads(threads)
            for op in OPS:
                cf, tf = getattr(ctensor, op), getattr(torch, op)
                c_ms = best_seconds(lambda: cf(ct), args.reps) * 1e3
                try:
                    t_ms = best_seconds(lambda: tf(tt), args.reps) * 1e3
                    ratio = f"{t_ms / c_ms:6.2f}"
                    t_txt = f"{t_ms:9.2f}"
                except RuntimeError:
                    t_txt, ratio = "   no krn", "   n/a"
                print(f"{dname:9} {op:8} {threads:>3} {c_ms:11.2f} {t_txt} {ratio}", flush=True)


if __name__ == "__main__":
    main()
