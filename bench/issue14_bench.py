"""Issue 14's CPU speed targets in one run: ctensor against torch 1.13 in the same process.

    PYTHONPATH=build/python /usr/bin/python3 bench/issue14_bench.py [--reps R] [--threads 1,2]
                                                                    [--reps2 R2] [--only SUBSTR,...]

Each round times every case once per library, ctensor and torch alternating (which one goes
first alternates too), and each cell keeps its best of R rounds (R2 with 2 threads: the
machine's neighbours make single timings swing). float16 rows: torch 1.13 has no CPU kernel
for these ops, so they time ctensor alone (n/a). With 1 thread the clock is the calling
thread's CPU time (time.thread_time: preemption by other jobs is not counted, cache and
memory contention still are); with 2 threads it is the wall clock. ratio = torch time /
ctensor time (> 1: ctensor faster); "met" compares it with the issue's target for that row.

The read-bandwidth probe (the yardstick of the float32 sum of 10^8): numpy's
bitwise_or.reduce over the same 400 MB read as uint64 words, a plain streaming read; with 2
threads, two Python threads each reduce one half (numpy drops the GIL in the loop). It runs
in the same rounds, best round kept; "% probe" = probe time / sum time.

ctensor shares torch's memory where it can (from_dlpack), so both read the same bytes."""
import argparse
import threading
import time

import numpy as np
import torch

import ctensor

UNARY = ["exp", "log", "sin", "tanh", "sigmoid"]


def read_probe(words, threads):
    """numpy's streaming read of `words`, split over `threads` Python threads."""
    if threads == 1:
        return lambda: np.bitwise_or.reduce(words)
    parts = np.array_split(words, threads)

    def run():
        ts = [threading.Thread(target=np.bitwise_or.reduce, args=(p,)) for p in parts[1:]]
        for t in ts:
            t.start()
        np.bitwise_or.reduce(parts[0])
        for t in ts:
            t.join()
    return run


def cases():
    """(name, target, ctensor fn, torch fn, probe bytes or 0); target is a ratio, or
    "probe" for the sum of 10^8 (>= 95% of the probe and >= 1.0x)."""
    g = torch.Generator().manual_seed(0)
    ct = ctensor
    big = torch.randn(10**8, generator=g)
    sq = torch.randn(10**4, 10**4, generator=g)
    i32 = torch.randint(-1000, 1000, (10**7,), generator=g, dtype=torch.int32)
    f7 = torch.randn(10**7, generator=g)
    c_big, c_sq, c_i32, c_f7 = (ct.from_dlpack(t) for t in (big, sq, i32, f7))
    out = [
        ("sum f32 1e8", "probe", lambda: c_big.sum(), lambda: big.sum(), big.numel() * 4),
        ("sum f32 1e4^2 dim=0", 1.0, lambda: c_sq.sum(0), lambda: sq.sum(0), 0),
        ("sum f32 1e4^2 dim=1", 1.0, lambda: c_sq.sum(1), lambda: sq.sum(1), 0),
        ("sum i32 1e7", 1.0, lambda: c_i32.sum(), lambda: i32.sum(), 0),
        ("mean f32 1e7", 1.0, lambda: c_f7.mean(), lambda: f7.mean(), 0),
        ("std f32 1e7", 1.0, lambda: c_f7.std(), lambda: f7.std(), 0),
        ("amax f32 1e7", 1.0, lambda: c_f7.amax(), lambda: f7.amax(), 0),
        ("argmax f32 1e7", 1.0, lambda: c_f7.argmax(), lambda: f7.argmax(), 0),
    ]
    yf = torch.randn(10**7, generator=g) * 1000
    zf = yf.clone()
    zf[::3] += 1
    c_yf, c_zf = ct.from_dlpack(yf), ct.from_dlpack(zf)
    out += [
        ("i32 < f32", 2.0, lambda: c_i32 < c_yf, lambda: i32 < yf, 0),
        ("f32 == f32", 1.0, lambda: c_yf == c_zf, lambda: yf == zf, 0),
    ]
    x = torch.randn(10**7, generator=g)
    pos = x.abs() + 0.01  # log: finite
    for dname, target in (("float32", 1.0), ("bfloat16", 2.0), ("float16", 2.0)):
        dt = getattr(torch, dname)
        short = {"float32": "f32", "bfloat16": "bf16", "float16": "f16"}[dname]
        for op in UNARY:
            t_in = (pos if op == "log" else x).to(dt)
            c_in = ct.from_dlpack(t_in)
            cf, tf = getattr(ct, op), getattr(torch, op)
            out.append((f"{op} {short}", target, (lambda cf=cf, c_in=c_in: cf(c_in)),
                        (lambda tf=tf, t_in=t_in: tf(t_in)), 0))
    mask = torch.rand(10**7, generator=g) < 0.5
    c_mask = ct.from_dlpack(mask.to(torch.uint8)).to(ct.bool)  # dlpack has no bool in 1.13
    out += [
        ("where f32", 1.0, lambda: ct.where(c_mask, c_yf, c_zf),
         lambda: torch.where(mask, yf, zf), 0),
        ("clamp f32", 1.0, lambda: ct.clamp(c_yf, -500.0, 500.0),
         lambda: torch.clamp(yf, -500.0, 500.0), 0),
    ]
    src = torch.randint(-2**31, 2**31 - 1, (10**7,), generator=g, dtype=torch.int32)
    dst_t, dst_c = torch.empty(10**7), ct.empty(10**7)
    c_src = ct.from_dlpack(src.clone())
    out.append(("copy_ i32->f32 1e7", 1.0, lambda: dst_c.copy_(c_src),
                lambda: dst_t.copy_(src), 0))
    return out, big


def supported(fn):
    try:
        fn()
        return True
    except RuntimeError:  # torch 1.13 lacks most float16 CPU kernels
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--reps2", type=int, default=15,
                    help="rounds with more than one thread (wall clock: more rounds to catch "
                         "the moments when both threads run)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default="", help="comma-separated name substrings")
    args = ap.parse_args()
    todo, big = cases()
    if args.only:
        keys = args.only.split(",")
        todo = [c for c in todo if any(k in c[0] for k in keys)]
    todo = [c + (supported(c[3]),) for c in todo]
    words = big.numpy().view(np.uint64)
    print(f"torch {torch.__version__}, best of {args.reps} (1 thread) / {args.reps2} interleaved rounds; "
          f"ratio = torch / ctensor")
    print(f"{'case':20} {'thr':>3} {'clock':6} {'ctensor ms':>10} {'torch ms':>9} {'ratio':>6} "
          f"{'target':>14} {'met':>4}")
    met = total = 0
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        ctensor.set_num_threads(threads)
        clock = time.thread_time if threads == 1 else time.perf_counter
        clock_name = "thread" if threads == 1 else "wall"
        probe = read_probe(words, threads)
        best = {}

        def timed(key, fn):
            t0 = clock()
            fn()
            best[key] = min(best.get(key, float("inf")), clock() - t0)

        probe()
        for _, _, f_ct, f_th, _, ok in todo:
            f_ct()
            if ok:
                f_th()
        for r in range(args.reps if threads == 1 else args.reps2):
            timed("probe", probe)
            for name, _, f_ct, f_th, _, ok in todo:
                pair = [(name, "ct", f_ct)] + ([(name, "th", f_th)] if ok else [])
                for n, lib, f in (pair if r % 2 == 0 else pair[::-1]):
                    timed((n, lib), f)
        for name, target, _, _, nbytes, ok in todo:
            ct_s = best[(name, "ct")]
            if not ok:
                print(f"{name:20} {threads:>3} {clock_name:6} {ct_s * 1e3:10.2f} "
                      f"{'no kernel':>9} {'n/a':>6} {'':>14} {'n/a':>4}")
                continue
            th_s = best[(name, "th")]
            ratio = th_s / ct_s
            if target == "probe":
                pct = 100 * best["probe"] / ct_s
                ok_t = ratio >= 1.0 and pct >= 95
                tgt = ">=95%p,>=1x"
                extra = (f"  {pct:.0f}% of probe ({nbytes / best['probe'] / 1e9:.1f} GB/s, "
                         f"ctensor {nbytes / ct_s / 1e9:.1f} GB/s)")
            else:
                ok_t = ratio >= target
                tgt = f">={target:g}x"
                extra = ""
            met += ok_t
            total += 1
            print(f"{name:20} {threads:>3} {clock_name:6} {ct_s * 1e3:10.2f} {th_s * 1e3:9.2f} "
                  f"{ratio:6.2f} {tgt:>14} {'yes' if ok_t else 'NO':>4}{extra}", flush=True)
    print(f"targets met: {met} of {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
