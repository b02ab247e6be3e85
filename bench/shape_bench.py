"""Reordering benchmark: flip, repeat, tile, roll and tril of ctensor against PyTorch 1.13 in
the same process, with 1 and 2 threads (issue 15: flip of 10^7 float32 and repeat/tile at
least 1.0x torch). Both libraries allocate a new result on every call.

    PYTHONPATH=build/python /usr/bin/python3 bench/shape_bench.py [--n N] [--reps R]

Prints one line per case and thread count: the best time of each library over R calls in
each of K alternating rounds (best round kept: the machine's neighbours make bandwidth
swing), and the ratio torch / ctensor (above 1: ctensor is faster)."""
import argparse

import numpy as np

import ctensor
import torch

from bench_timing import print_ratio_table


def cases(n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    c1, t1 = ctensor.tensor(x), torch.from_numpy(x)
    side = int(np.sqrt(n))
    m = x[: side * side].reshape(side, side)
    c2, t2 = ctensor.tensor(m), torch.from_numpy(m)
    q = n // 4  # repeat/tile inputs: a quarter, repeated to n
    r = x[:q].reshape(q // 1000, 1000)
    c3, t3 = ctensor.tensor(r), torch.from_numpy(r)
    return [
        ("flip 1-D", lambda: c1.flip(0), lambda: t1.flip(0)),
        ("flip 2-D dim 0", lambda: c2.flip(0), lambda: t2.flip(0)),
        ("flip 2-D dim 1", lambda: c2.flip(1), lambda: t2.flip(1)),
        ("flip 2-D both", lambda: c2.flip(0, 1), lambda: t2.flip(0, 1)),
        ("repeat (2, 2)", lambda: c3.repeat(2, 2), lambda: t3.repeat(2, 2)),
        ("repeat (4, 1)", lambda: c3.repeat(4, 1), lambda: t3.repeat(4, 1)),
        ("tile (1, 4)", lambda: c3.tile((1, 4)), lambda: t3.tile((1, 4))),
        ("roll 1-D", lambda: c1.roll(12345), lambda: t1.roll(12345)),
        ("roll 2-D dim 1", lambda: c2.roll(7, 1), lambda: t2.roll(7, 1)),
        ("tril 2-D", lambda: c2.tril(), lambda: t2.tril()),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    cs = cases(args.n)
    for name, ct_fn, th_fn in cs:  # the same answers first
        assert np.array_equal(ct_fn().numpy(), th_fn().numpy()), name
    print_ratio_table("case (n=%d)" % args.n, cs, [int(t) for t in args.threads.split(",")],
                      args.rounds, args.reps, (ctensor, torch))


if __name__ == "__main__":
    main()
