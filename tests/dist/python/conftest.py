"""The global-tensor suite runs on every rank: `mpirun -np N python3 -m pytest -q -x ...`.

Rules every test follows, because N copies of it run at once and meet in collectives:
- deterministic: fixed seeds, parametrize instead of random draws;
- the same global operations in the same order on every rank; a test that cannot run on this
  world size is skipped on every rank alike (by the world size, never by a rank's data);
- collectives first, assertions last, so a failing rank does not leave the others waiting.

After each test the ranks compare their outcomes (one small collective, below): a test that
failed on any rank fails on all, so that -x stops every rank at the same test instead of
leaving the others to hang until the launch's timeout.
"""
import gc
import os
import sys

import pytest

import ctensor

if not hasattr(ctensor, "placement"):
    pytest.exit("ctensor was built without global tensors (libctensor_dist): "
                "the module has no ctensor.placement", returncode=1)

import dist_util  # noqa: E402 - after the check above
from dist_util import RANK, WORLD  # noqa: E402

# gc.freeze of the long-lived objects, as hooks of this conftest: the emulated-cuda fixtures
# collect garbage after every test, 0.4-0.5 s each without it (tests/python/gc_freeze.py)
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from gc_freeze import pytest_collection_finish, pytest_runtest_setup  # noqa: E402,F401


def pytest_report_header(config):
    return "global tensors: rank %d of %d" % (RANK, WORLD)


# Width of the outcome exchange: different from every collective a test makes, so that if
# ranks get out of step (one in the exchange, another still in a test's to_global), the
# library's argument check fails them all instead of mixing the two.
_OUTCOME_WIDTH = 7
_OUTCOME_MAGIC = 0x0F1E2D3C


def _exchange_outcomes(failed):
    t = ctensor.tensor([[1 if failed else 0, _OUTCOME_MAGIC, RANK, 0, 0, 0, 0]],
                       dtype=ctensor.int64)
    assert t.shape[1] == _OUTCOME_WIDTH
    rows = t.to_global(placement=dist_util.all_placement(), sbp=ctensor.sbp.split(0)).numpy()
    return [int(r) for r in range(rows.shape[0]) if rows[r, 0]]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or WORLD == 1:
        return
    try:
        failed_ranks = _exchange_outcomes(report.failed)
    except Exception as e:  # noqa: BLE001 - any failure to agree is a failure of the test
        if not report.failed:
            report.outcome = "failed"
            report.longrepr = "rank %d: the ranks could not compare outcomes: %s: %s" % (
                RANK, type(e).__name__, e)
        return
    others = [r for r in failed_ranks if r != RANK]
    if others and not report.failed:
        report.outcome = "failed"
        report.longrepr = "passed on rank %d but failed on rank(s) %s" % (RANK, others)


@pytest.fixture
def emulated_cuda():
    """The host-emulated accelerator registered as 'cuda' with one device per rank of this
    (single) node, so that cuda placements have devices; removed afterwards."""
    from ctensor import _testing
    _testing.register_emulated_backend("cuda", WORLD)
    yield
    gc.collect()  # global tensors on the emulated devices must go before their backend
    try:
        _testing.unregister_backend("cuda")
    except RuntimeError:
        pass  # tensors kept alive by a failed test's traceback: let that failure report
