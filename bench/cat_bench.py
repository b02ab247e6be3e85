"""cat benchmark: ctensor against PyTorch 1.13 in the same process, with 1 and 2 threads
(issue 15's goal: cat of 64 tensors totalling 10^7 float32 at least 1.0x torch). Both
libraries allocate a new result on every call.

    PYTHONPATH=build/python /usr/bin/python3 bench/cat_bench.py [--n N] [--parts P] [--reps R]

Prints one line per case and thread count: the best time of each library over R calls in
each of K alternating rounds (best round kept: the machine's neighbours make bandwidth
swing), and the ratio torch / ctensor (above 1: ctensor is faster).

Cases: 64 contiguous float32 tensors along dim 0 into a preallocated out= (the copy alone:
no fresh pages for either library) and into a new result (the goal), along dim 1 (rows of
each input interleave in the result), and mixed float32/float16 inputs (converted while
copied)."""
import argparse

import numpy as np

import ctensor
import torch

from bench_timing import print_ratio_table


def cases(n, parts):
    rng = np.random.default_rng(0)
    per = n // parts
    xs = [rng.standard_normal(per, dtype=np.float32) for _ in range(parts)]
    t0 = [torch.from_numpy(x) for x in xs]
    c0 = [ctensor.tensor(x) for x in xs]
    rows = 64
    t1 = [torch.from_numpy(x[: per // rows * rows].reshape(rows, -1)) for x in xs]
    c1 = [ctensor.tensor(x[: per // rows * rows].reshape(rows, -1)) for x in xs]
    th = [t if i % 2 else t.half() for i, t in enumerate(t0)]
    ch = [c if i % 2 else c.half() for i, c in enumerate(c0)]
    co = ctensor.empty(per * parts)
    to = torch.empty(per * parts)
    return [
        ("cat dim 0 out=", lambda: ctensor.cat(c0, 0, out=co), lambda: torch.cat(t0, 0, out=to)),
        ("cat dim 0", lambda: ctensor.cat(c0, 0), lambda: torch.cat(t0, 0)),
        ("cat dim 1", lambda: ctensor.cat(c1, 1), lambda: torch.cat(t1, 1)),
        ("cat f32+f16", lambda: ctensor.cat(ch, 0), lambda: torch.cat(th, 0)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--parts", type=int, default=64)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    cs = cases(args.n, args.parts)
    for name, ct_fn, th_fn in cs:  # the same answers first
        assert np.array_equal(ct_fn().numpy(), th_fn().numpy()), name
    print_ratio_table("case (n=%d, %d parts)" % (args.n, args.parts), cs,
                      [int(t) for t in args.threads.split(",")], args.rounds, args.reps,
                      (ctensor, torch))


if __name__ == "__main__":
    main()
