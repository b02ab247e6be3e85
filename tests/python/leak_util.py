"""Shared by the reference-leak tests: run a call many times, error paths included."""
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
