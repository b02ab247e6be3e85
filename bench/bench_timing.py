"""Timing shared by the Python sides of the benchmarks (bench_torch*.py, *_bench.py)."""
import ctypes
import ctypes.util
import statistics
import time


def best_seconds(fn, reps, warmup=True):
    """The best of `reps` timed calls of fn, after one warm-up call that is not counted
    (warmup=False: none, for callers that warmed up themselves)."""
    if warmup:
        fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def median_seconds(fn, reps, warm=1):
    """The median of `reps` timed calls of fn, after `warm` calls that are not counted."""
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def best_of_rounds(first, second, rounds, reps):
    """Both functions' best_seconds over `rounds` alternating rounds, best round kept (the
    machine's neighbours make bandwidth and timings noisy): (first's, second's) seconds."""
    b1 = b2 = float("inf")
    for _ in range(rounds):
        b1 = min(b1, best_seconds(first, reps))
        b2 = min(b2, best_seconds(second, reps))
    return b1, b2


def print_ratio_table(label, cases, threads, rounds, reps, libs):
    """One line per thread count and (name, ctensor fn, torch fn) case: both libraries'
    best_of_rounds in ms and the ratio torch/ctensor (> 1: ctensor faster). Each thread count
    is set with set_num_threads on every module of `libs` (ctensor and torch)."""
    print("%-22s %7s %10s %10s %8s" % (label, "threads", "ctensor ms", "torch ms", "torch/ct"))
    for n in threads:
        for lib in libs:
            lib.set_num_threads(n)
        for name, ct_fn, th_fn in cases:
            ct_best, th_best = best_of_rounds(ct_fn, th_fn, rounds, reps)
            print("%-22s %7d %10.3f %10.3f %8.2f" % (name, n, ct_best * 1e3, th_best * 1e3,
                                                      th_best / ct_best))


def load_openblas():
    """The OpenMP build of OpenBLAS (the one ctensor links), for direct cblas calls; None without it."""
    for name in ("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
                 ctypes.util.find_library("openblas")):
        try:
            return ctypes.CDLL(name)
        except (OSError, TypeError):
            continue
    return None
