"""Shared by the reference-leak tests: run a call many times, error paths included."""
import gc
import tracemalloc
import warnings


def run_ignoring_errors(fn, n):
    """Call fn() n times; exceptions (the error paths under test) and warnings are dropped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            try:
                fn()
            except Exception:  # noqa: BLE001,S110 - error paths are exercised on purpose
                pass


def assert_steady(fn, counts, label=None):
    """Run fn() 2300 times after 200 warm-up calls: counts() (reference counts of the objects
    involved) must come back unchanged, and the memory tracemalloc sees (PyMem allocations
    such as message buffers) must not grow with the number of calls."""
    run_ignoring_errors(fn, 200)  # warm up caches (interned strings, exception machinery)
    # garbage of earlier tests that holds a counted object is not this call's: collected
    # before both counts, so it cannot move one of them in between
    gc.collect()
    before = counts()
    tracemalloc.start()
    run_ignoring_errors(fn, 100)
    first = tracemalloc.get_traced_memory()[0]
    run_ignoring_errors(fn, 2000)
    second = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    gc.collect()
    assert counts() == before, label
    # a little noise is allowed, far less than one allocation per call
    assert second - first < 4096, label
