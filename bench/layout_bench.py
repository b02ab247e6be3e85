"""Layout changes (issue 14) against torch 1.13 and the machine's yardsticks, in one process.

    PYTHONPATH=build/python /usr/bin/python3 bench/layout_bench.py [--reps R] [--threads 1,2]
                                                                   [--clock thread|wall]

Cases (10^7 float32 elements, 40 MB per operand):
  add contig+cl     torch.add(a, b, out=c): a, c (10, 64, 125, 125) contiguous, b channels_last
  add contig+t      the same with a 3162 x 3162 matrix and b = x.t()
  t().contiguous()  x.t().contiguous() of a 3162 x 3162 matrix (a new result every call)
  t() copy_ into    c.copy_(x.t()) into a preallocated c
  to channels_last  c.copy_(x), c channels_last, x contiguous (10, 64, 125, 125)
  int32->float32    c.copy_(x) into a preallocated float32 c, x int32 (10^7)

Yardsticks, in the same rounds: the bandwidth probe (numpy's c = a + b over contiguous float32,
regular stores, as STREAM's add) for the adds and numpy's copyto of the float32 array (memcpy)
for the copies. "% yard" = yardstick time / case time for the same number of elements (12
bytes per element for an add, 8 for a copy): 100 means the case moves its bytes as fast as the
yardstick. numpy is single-threaded, so the yardstick is the 1-thread one; with 2 threads the
column is still against it (above 100 is then possible).

Each round times every case once per library, ctensor and torch alternating, and each cell
keeps its best of R rounds. --clock thread (the default with 1 thread) times the calling
thread's CPU time, which a machine shared with other jobs disturbs far less than wall time
(preemption is not counted; cache and memory contention still are); with 2 threads the wall
clock is used. ratio = torch time / ctensor time (> 1: ctensor is faster)."""
import argparse
import os
import sys
import time

import numpy as np

import ctensor  # noqa: E402
import torch  # noqa: E402

N_SIDE = 3162


def cases(threads):
    g = torch.Generator().manual_seed(0)
    ct = ctensor

    def both(t):
        """torch tensor t and a ctensor copy of it (own memory, same layout)."""
        return t, ct.from_dlpack(t.clone(memory_format=torch.preserve_format))

    out = []
    # add contig + channels_last, out=
    a_t, a_c = both(torch.randn(10, 64, 125, 125, generator=g))
    b0 = torch.randn(10, 64, 125, 125, generator=g)
    b_t = b0.contiguous(memory_format=torch.channels_last)
    b_c = ct.from_dlpack(b_t.clone(memory_format=torch.preserve_format))
    o_t, o_c = torch.empty_like(a_t), ct.empty_like(a_c)
    out.append(("add contig+cl", "probe", a_t.numel(),
                lambda: ct.add(a_c, b_c, out=o_c), lambda: torch.add(a_t, b_t, out=o_t)))
    # add contig + transposed, out=
    m_t, m_c = both(torch.randn(N_SIDE, N_SIDE, generator=g))
    x_t, x_c = both(torch.randn(N_SIDE, N_SIDE, generator=g))
    xt_t, xt_c = x_t.t(), x_c.t()
    p_t, p_c = torch.empty_like(m_t), ct.empty_like(m_c)
    out.append(("add contig+t", "probe", m_t.numel(),
                lambda: ct.add(m_c, xt_c, out=p_c), lambda: torch.add(m_t, xt_t, out=p_t)))
    # transposing copies
    out.append(("t().contiguous()", "memcpy", x_t.numel(),
                lambda: xt_c.contiguous(), lambda: xt_t.contiguous()))
    q_t, q_c = torch.empty_like(x_t), ct.empty_like(x_c)
    out.append(("t() copy_ into", "memcpy", x_t.numel(),
                lambda: q_c.copy_(xt_c), lambda: q_t.copy_(xt_t)))
    cl_t = torch.empty_like(a_t, memory_format=torch.channels_last)
    cl_c = ct.from_dlpack(cl_t.clone(memory_format=torch.preserve_format))
    out.append(("to channels_last", "memcpy", a_t.numel(),
                lambda: cl_c.copy_(a_c), lambda: cl_t.copy_(a_t)))
    # int32 -> float32 into an existing tensor
    i_t, i_c = both(torch.randint(-2**31, 2**31 - 1, (10**7,), dtype=torch.int32, generator=g))
    f_t, f_c = torch.empty(10**7), ct.empty(10**7)
    out.append(("int32->float32", "memcpy", i_t.numel(),
                lambda: f_c.copy_(i_c), lambda: f_t.copy_(i_t)))
    return out


def yardsticks():
    n = 10**7
    a = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    b = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    c = np.empty_like(a)
    return {"probe": lambda: np.add(a, b, out=c), "memcpy": lambda: np.copyto(c, a)}


def timed(fn, clock):
    t0 = clock()
    fn()
    return clock() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--clock", choices=["auto", "thread", "wall"], default="auto")
    args = ap.parse_args()
    print(f"torch {torch.__version__}, best of {args.reps} interleaved rounds; "
          f"ratio = torch / ctensor; % yard = yardstick time / case time")
    print(f"{'case':18} {'thr':>3} {'clock':6} {'ctensor ms':>10} {'torch ms':>9} "
          f"{'ratio':>6} {'ct % yard':>9} {'th % yard':>9}  yardstick")
    yard = yardsticks()
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        ctensor.set_num_threads(threads)
        clock_name = args.clock if args.clock != "auto" else ("thread" if threads == 1 else "wall")
        clock = time.thread_time if clock_name == "thread" else time.perf_counter
        todo = cases(threads)
        best = {}
        for fn in list(yard.values()) + [f for c in todo for f in c[3:]]:
            fn()  # warm-up: first touch, caches of both libraries
        for _ in range(args.reps):
            for name, fn in yard.items():
                best[name] = min(best.get(name, float("inf")), timed(fn, time.thread_time))
            for name, _, _, f_ct, f_th in todo:
                best[(name, "ct")] = min(best.get((name, "ct"), float("inf")), timed(f_ct, clock))
                best[(name, "th")] = min(best.get((name, "th"), float("inf")), timed(f_th, clock))
        for name, ys, n, _, _ in todo:
            ct_s, th_s = best[(name, "ct")], best[(name, "th")]
            y = best[ys] * n / 10**7
            print(f"{name:18} {threads:>3} {clock_name:6} {ct_s * 1e3:10.2f} {th_s * 1e3:9.2f} "
                  f"{th_s / ct_s:6.2f} {100 * y / ct_s:8.0f}% {100 * y / th_s:8.0f}%  "
                  f"{ys} {best[ys] * 1e3:.2f} ms")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
