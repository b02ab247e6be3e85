"""Global tensors on "cuda" placements, OneFlow's semantics, on the host-emulated accelerator
registered as 'cuda' with two devices (ctensor._testing), so that each rank's component lives on
cuda:(local rank % 2): to("cuda") / cuda() / cpu() change the placement's type and keep the
ranks and the sbp; to_global of a cuda local tensor; factories; element-wise ops and
reductions with the cpu's sbp. Every value is compared with the same computation on the cpu
placement. (The emulated memory is host accessible here; the staging of memory that is not is
tested in C: tests/dist/test_dist_cuda_staged.c.)"""
import gc

import numpy as np
import pytest

import ctensor
from dist_util import RANK, WORLD, all_placement, global_np

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the B overwrite warning

S0 = ctensor.sbp.split(0)
S1 = ctensor.sbp.split(1)
B = ctensor.sbp.broadcast
P = ctensor.sbp.partial_sum


@pytest.fixture
def cuda2():
    from ctensor import _testing
    if ctensor.cuda.is_available():
        pytest.skip("a real cuda backend is registered")
    _testing.register_emulated_backend("cuda", 2)
    yield
    gc.collect()  # the global tensors on the emulated devices go before their backend
    try:
        _testing.unregister_backend("cuda")
    except RuntimeError:
        pass  # tensors kept alive by a failed test's traceback: let that failure report


def cuda_placement():
    return ctensor.placement("cuda", list(range(WORLD)))


def value():
    return ctensor.arange(24, dtype=ctensor.float32).reshape(4, 6) - 7


def cpu_global(sbp):
    # P from S(0) through boxing: the parts are not all on the first rank
    return value().to_global(placement=all_placement(), sbp=B).to_global(sbp=S0).to_global(sbp=sbp)


def test_components_on_local_rank_mod_count(cuda2):
    x = ctensor.ones(4, 6, placement=cuda_placement(), sbp=S0)
    got = global_np(x)
    dev = x.to_local().device
    assert dev.type == "cuda" and dev.index == RANK % 2  # one node: local rank == rank
    np.testing.assert_array_equal(got, np.ones((4, 6), np.float32))


@pytest.mark.parametrize("sbp", [S0, S1, B, P], ids=["S0", "S1", "B", "P"])
def test_to_cuda_and_back(cuda2, sbp):
    x = cpu_global(sbp)
    y = x.to("cuda")
    z = y.cpu()
    w = x.cuda()
    v = x.to(device="cuda", dtype=ctensor.float64)
    u = x.to("gpu", ctensor.int64)
    gx, gy, gz, gw, gv, gu = (global_np(t) for t in (x, y, z, w, v, u))
    assert y.placement == cuda_placement() and y.sbp == x.sbp
    assert z.placement == x.placement and z.sbp == x.sbp
    assert y.cuda() is y and y.to("cuda") is y and z.cpu() is z
    assert y.to_local().device == ctensor.device("cuda", RANK % 2)
    assert z.to_local().device == ctensor.device("cpu")
    np.testing.assert_array_equal(y.to_local().cpu().numpy(), x.to_local().numpy())
    for g in (gy, gz, gw):
        np.testing.assert_array_equal(g, gx)
    assert v.dtype == ctensor.float64 and v.placement == cuda_placement()
    assert u.dtype == ctensor.int64 and u.placement == cuda_placement()
    np.testing.assert_array_equal(gv, gx.astype(np.float64))
    np.testing.assert_array_equal(gu, gx.astype(np.int64))


def test_cuda_device_index_refused(cuda2):
    x = cpu_global(B)
    with pytest.raises(RuntimeError, match="Only string device without device id"):
        x.cuda(0)
    with pytest.raises(RuntimeError, match="Only string device without device id"):
        x.to("cuda:1")


def test_to_global_of_cuda_local(cuda2):
    # a fresh local tensor each: to_global with B overwrites its input on the other ranks
    outs = [ctensor.full((2, 3), float(RANK + 1), device="cuda:%d" % (RANK % 2))
            .to_global(placement=cuda_placement(), sbp=s) for s in (S0, P, B)]
    got = [global_np(g) for g in outs]
    want_s0 = np.concatenate([np.full((2, 3), r + 1.0, np.float32) for r in range(WORLD)])
    np.testing.assert_array_equal(got[0], want_s0)
    np.testing.assert_array_equal(got[1], np.full((2, 3), sum(range(1, WORLD + 1)), np.float32))
    np.testing.assert_array_equal(got[2], np.full((2, 3), 1.0, np.float32))
    for g in outs:
        assert g.to_local().device == ctensor.device("cuda", RANK % 2)


@pytest.mark.parametrize("sbp", [S0, S1, B, P], ids=["S0", "S1", "B", "P"])
def test_ops_match_cpu(cuda2, sbp):
    xc = cpu_global(sbp)
    x = xc.to("cuda")
    pairs = [(x + x, xc + xc), (x * 2, xc * 2), (x < 3, xc < 3), (x.sum(0), xc.sum(0)),
             (x.sum(1), xc.sum(1)), (x.amax(), xc.amax()), (x.exp(), xc.exp())]
    got = [(global_np(a), global_np(b)) for a, b in pairs]
    for (a, b), (ga, gb) in zip(pairs, got):
        assert a.sbp == b.sbp and a.dtype == b.dtype
        assert a.placement == cuda_placement()
        np.testing.assert_array_equal(ga, gb)
    if sbp == S0:  # OneFlow: a sum over the split dim is partial_sum
        assert pairs[3][0].sbp == (P,)
