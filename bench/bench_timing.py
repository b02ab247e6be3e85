"""Timing shared by the Python sides of the benchmarks (bench_torch*.py)."""
import time


def best_seconds(fn, reps):
    """The best of `reps` timed calls of fn, after one warm-up call that is not counted."""
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
