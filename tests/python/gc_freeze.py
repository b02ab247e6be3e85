"""pytest hooks that keep garbage collection cheap in a long run (imported by the conftest.py
of the Python suite and of the global-tensor suite, which defines them by importing them).

Many tests call gc.collect() to prove that nothing is left alive, or to free tensors before
their backend goes, and a full collection walks every object the interpreter tracks: torch,
numpy, hypothesis and every collected test module (and whatever long-lived objects the run
has made so far) cost close to a second per collection late in a run. Objects alive at
collection time, and every 256 tests, are moved out of the collector's reach (gc.freeze):
they are still freed when their last reference goes, and a test's own objects are collected
as before."""
import gc

_FREEZE_EVERY = 256
_tests_since_freeze = 0


def _freeze_survivors():
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session):
    _freeze_survivors()


def pytest_runtest_setup(item):
    global _tests_since_freeze
    _tests_since_freeze += 1
    if _tests_since_freeze >= _FREEZE_EVERY:
        _tests_since_freeze = 0
        _freeze_survivors()
