"""Element-wise op benchmark: ctensor against PyTorch 1.13 in the same process, with 1 and 2
threads (issue 14's speed goals). Both libraries allocate a new result on every call.

    PYTHONPATH=build/python /usr/bin/python3 bench/ops_bench.py [--n N] [--reps R] [--rounds K]

Prints one line per case and thread count: the best time of each library over R calls in
each of K alternating rounds (best round kept: the machine's neighbours make bandwidth
swing), and the ratio torch / ctensor (above 1: ctensor is faster).

Cases: int32 < float32 (mixed dtypes: the int32 operand is converted to float32 inside the
loop, PyTorch copies it to a float32 temporary first), float32 == float32, and pow, remainder
and bitwise_and (float32 ** float32, float32 ** 2, float32 % float32, int32 % int32,
int32 & int32)."""
import argparse

import ctensor
import torch

from bench_timing import print_ratio_table


def cases(n):
    g = torch.Generator().manual_seed(0)
    xi = torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int32)
    yf = torch.randn(n, generator=g) * 1000
    zf = yf.clone()
    zf[::3] += 1
    ci = ctensor.from_numpy(xi.numpy()) if hasattr(ctensor, "from_numpy") else None
    if ci is None:
        ci = ctensor.tensor(xi.tolist(), dtype=ctensor.int32)
    cy = ctensor.tensor(yf.numpy())
    cz = ctensor.tensor(zf.numpy())
    # pow / remainder / bitwise_and (tests/python/test_binary_ops_vs_torch.py): float32 pow
    # with a tensor exponent (libm powf here, SLEEF's vector pow in torch) and with the
    # exponent 2 (x*x in both), float32 and int32 remainder, int32 bitwise_and
    pe = (torch.rand(n, generator=g) * 4).clone()
    xb = torch.randint(1, 1000, (n,), generator=g, dtype=torch.int32)
    cpe, cxb = ctensor.tensor(pe.numpy()), ctensor.tensor(xb.numpy())
    pa = yf.abs()
    cpa = ctensor.tensor(pa.numpy())
    return [
        ("int32 < float32", lambda: ci < cy, lambda: xi < yf),
        ("float32 == float32", lambda: cy == cz, lambda: yf == zf),
        ("float32 ** float32", lambda: cpa ** cpe, lambda: pa ** pe),
        ("float32 ** 2", lambda: cy ** 2, lambda: yf ** 2),
        ("float32 % float32", lambda: cy % cz, lambda: yf % zf),
        ("int32 % int32", lambda: ci % cxb, lambda: xi % xb),
        ("int32 & int32", lambda: ci & cxb, lambda: xi & xb),
    ] + ternary_cases(g, n, cy, cz, yf, zf)


def ternary_cases(g, n, cy, cz, yf, zf):
    """where(cond, a, b) and clamp on float32 (ctensor/ternary.def)."""
    mask = torch.rand(n, generator=g) < 0.5
    cm = ctensor.tensor(mask.numpy())
    return [
        ("where f32", lambda: ctensor.where(cm, cy, cz), lambda: torch.where(mask, yf, zf)),
        ("clamp f32 scalars", lambda: ctensor.clamp(cy, -500.0, 500.0),
         lambda: torch.clamp(yf, -500.0, 500.0)),
        ("clamp_min f32 scalar", lambda: ctensor.clamp(cy, min=0.0),
         lambda: torch.clamp(yf, min=0.0)),
        ("masked_fill f32", lambda: cy.masked_fill(cm, 0.0), lambda: yf.masked_fill(mask, 0.0)),
        ("addcmul f32", lambda: ctensor.addcmul(cy, cy, cz, value=0.5),
         lambda: torch.addcmul(yf, yf, zf, value=0.5)),
        ("lerp f32", lambda: ctensor.lerp(cy, cz, 0.3), lambda: torch.lerp(yf, zf, 0.3)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    cs = cases(args.n)
    for name, ct_fn, th_fn in cs:  # the same answers first (pow within 1 ulp)
        a, b = ct_fn().tolist()[:1000], th_fn().tolist()[:1000]
        if "**" in name:
            assert all(x == y or abs(x - y) <= 2.4e-7 * abs(y) for x, y in zip(a, b)), name
        else:
            assert a == b, name
    print_ratio_table("case (n=%d)" % args.n, cs, [int(t) for t in args.threads.split(",")],
                      args.rounds, args.reps, (ctensor, torch))


if __name__ == "__main__":
    main()
