"""The exact-value cases of OneFlow's own tests (to_global of local tensors; boxing on
1-D, across placements and on N-D grids):
test_consistent_cast (1n2d, 1n4d), test_eager_boxing (4 ranks) and the mixed 2-D example.

The local layout of a partial_sum result follows OneFlow's boxing (global.h): from a 1-D split
each shard goes to its own rank, or to output parallel id (input id % output size) when its
rank is not in the output placement, in place in zeros (test_eager_boxing's
non_overlapping_placement_s1_to_p); from broadcast the first rank holds the value."""
import warnings

import numpy as np
import pytest

import ctensor
from dist_util import RANK, WORLD, Pl, box

S0 = ctensor.sbp.split(0)
S1 = ctensor.sbp.split(1)
B = ctensor.sbp.broadcast
P = ctensor.sbp.partial_sum

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
only2 = pytest.mark.skipif(WORLD != 2, reason="OneFlow's 1n2d case")
only4 = pytest.mark.skipif(WORLD != 4, reason="OneFlow's 1n4d case")


def pl(ranks):
    return ctensor.placement("cpu", ranks)


def ones_i32(value=1):
    return ctensor.full((16, 16), value, dtype=ctensor.int32)


def np_local(g):
    return g.to_local().numpy()


# ---- 1-D boxing, 1n2d: ones(16, 16) int32 on each rank -------------------------------------

@only2
def test_1n2d_values():
    p = pl([0, 1])
    x = ones_i32().to_global(placement=p, sbp=S0)
    r = {"S0->B": np_local(x.to_global(sbp=B)),
         "S0->P": np_local(x.to_global(sbp=P)),
         "B->P": np_local(ones_i32().to_global(placement=p, sbp=B).to_global(sbp=P)),
         "B->S0": np_local(ones_i32().to_global(placement=p, sbp=B).to_global(sbp=S0)),
         "P->S0": np_local(ones_i32().to_global(placement=p, sbp=P).to_global(sbp=S0)),
         "P->B": np_local(ones_i32().to_global(placement=p, sbp=P).to_global(sbp=B))}
    one = np.ones((16, 16), np.int32)
    assert np.array_equal(r["S0->B"], np.ones((32, 16), np.int32))
    # each rank keeps its shard in place (newer test_consistent_cast.py layout, global.h)
    s0p = np.zeros((32, 16), np.int32)
    s0p[16 * RANK:16 * RANK + 16] = 1
    assert np.array_equal(r["S0->P"], s0p)
    assert np.array_equal(r["B->P"], one * (RANK == 0))
    assert np.array_equal(r["B->S0"], np.ones((8, 16), np.int32))
    assert np.array_equal(r["P->S0"], 2 * np.ones((8, 16), np.int32))
    assert np.array_equal(r["P->B"], 2 * one)


@only2
def test_1n2d_s0_to_s1_exact_arrays():
    a = [np.arange(16, dtype=np.float32).reshape(4, 4) + 100 * r for r in range(2)]
    x = ctensor.tensor(a[RANK]).to_global(placement=pl([0, 1]), sbp=S0)
    y = x.to_global(sbp=S1)
    loc = np_local(y)
    full = np.concatenate(a, axis=0)
    assert loc.shape == (8, 2)
    assert np.array_equal(loc, full[:, 2 * RANK:2 * RANK + 2])


@pytest.mark.skipif(WORLD < 2, reason="needs 2 ranks")
def test_ones_times_rank_any_world():
    # the same family on this world: ones(16, 16) * rank, every sbp pair, exact locals
    value_rows = [np.full((16, 16), r, np.int32) for r in range(WORLD)]
    p = Pl(list(range(WORLD)))
    cat = np.concatenate(value_rows, 0)
    total = np.full((16, 16), sum(range(WORLD)), np.int32)
    x_s = ones_i32(RANK).to_global(placement=p.obj(), sbp=S0)
    x_p = ones_i32(RANK).to_global(placement=p.obj(), sbp=P)
    out = {"S0->B": np_local(x_s.to_global(sbp=B)), "S0->S1": np_local(x_s.to_global(sbp=S1)),
           "P->B": np_local(x_p.to_global(sbp=B)), "P->S0": np_local(x_p.to_global(sbp=S0)),
           "P->S1": np_local(x_p.to_global(sbp=S1)), "S0->P": np_local(x_s.to_global(sbp=P))}
    pid = p.pid()
    assert np.array_equal(out["S0->B"], cat)
    assert np.array_equal(out["S0->S1"], cat[box(cat.shape, p, ("S1",), pid)])
    assert np.array_equal(out["P->B"], total)
    assert np.array_equal(out["P->S0"], total[box(total.shape, p, ("S0",), pid)])
    assert np.array_equal(out["P->S1"], total[box(total.shape, p, ("S1",), pid)])
    in_place = np.zeros_like(cat)
    in_place[box(cat.shape, p, ("S0",), pid)] = cat[box(cat.shape, p, ("S0",), pid)]
    assert np.array_equal(out["S0->P"], in_place)


# ---- to_global of local tensors / N-D boxing, 1n4d: the 2-D mesh -----------------------------

@only4
def test_mixed_2d_p_s0_from_local():
    # ones(16, 16) * rank, [[0, 1], [2, 3]], (P, S(0)): rows 0-15 = 0 + 2, rows 16-31 = 1 + 3
    x = ones_i32(RANK).to_global(placement=pl([[0, 1], [2, 3]]), sbp=[P, S0])
    got = x.numpy()
    assert x.shape == (32, 16)
    assert np.array_equal(got[:16], np.full((16, 16), 2, np.int32))
    assert np.array_equal(got[16:], np.full((16, 16), 4, np.int32))


@only4
def test_2d_p_s0_to_s0_s0():
    x = ones_i32(RANK).to_global(placement=pl([[0, 1], [2, 3]]), sbp=[P, S0])
    loc = np_local(x.to_global(sbp=[S0, S0]))
    assert np.array_equal(loc, np.full((8, 16), 2 if RANK < 2 else 4, np.int32))


@only4
def test_2d_s0_p_to_s0_s0():
    x = ones_i32(RANK).to_global(placement=pl([[0, 1], [2, 3]]), sbp=[S0, P])
    loc = np_local(x.to_global(sbp=[S0, S0]))
    assert np.array_equal(loc, np.full((8, 16), 1 if RANK < 2 else 5, np.int32))


@only4
def test_2d_s0_p_to_b_b():
    # OneFlow's case uses plain ones here: each axis-1 pair sums to 2
    x = ones_i32().to_global(placement=pl([[0, 1], [2, 3]]), sbp=[S0, P])
    loc = np_local(x.to_global(sbp=[B, B]))
    assert np.array_equal(loc, np.full((32, 16), 2, np.int32))
    # and with ones * rank: rows 0-15 = 0 + 1, rows 16-31 = 2 + 3
    y = ones_i32(RANK).to_global(placement=pl([[0, 1], [2, 3]]), sbp=[S0, P])
    loc2 = np_local(y.to_global(sbp=[B, B]))
    assert np.array_equal(loc2, np.concatenate([np.full((16, 16), 1, np.int32),
                                                np.full((16, 16), 5, np.int32)]))


@only4
def test_flatten_hierarchy_p_p():
    # test_to_global_flatten_hierarchy: (P, P) on (2, 2) -> (P,) on [0, 1, 2, 3]
    x = ones_i32(RANK).to_global(placement=pl([[0, 1], [2, 3]]), sbp=[P, P])
    y = x.to_global(placement=pl([0, 1, 2, 3]), sbp=P)
    got = y.numpy()
    loc = np_local(y)
    assert y.placement == pl([0, 1, 2, 3]) and y.sbp == (P,)
    assert np.array_equal(got, np.full((16, 16), 6, np.int32))
    # either OneFlow's relabelling (each rank keeps its part) or "first rank keeps"
    relabel = np.full((16, 16), RANK, np.int32)
    first = np.full((16, 16), 6 if RANK == 0 else 0, np.int32)
    assert np.array_equal(loc, relabel) or np.array_equal(loc, first)


# ---- boxing across placements, test_eager_boxing: placement changes on 4 ranks ---------------

def arrays():
    return [np.arange(16, dtype=np.float32).reshape(4, 4) * (r + 1) + 10 * r for r in range(4)]


def eager(in_ranks, in_sbp, out_ranks, out_sbp, in_placement=None):
    a = arrays()
    x = ctensor.tensor(a[RANK]).to_global(
        placement=in_placement if in_placement is not None else pl(in_ranks), sbp=in_sbp)
    y = x.to_global(placement=pl(out_ranks), sbp=out_sbp)
    return a, y, np_local(y), y.numpy()


@only4
def test_eager_p_to_other_placement_s1():
    a, y, loc, _ = eager([0, 1], P, [2, 3], S1)
    s = a[0] + a[1]
    expect = {2: s[:, 0:2], 3: s[:, 2:4]}
    assert y.placement == pl([2, 3]) and y.sbp == (S1,)
    assert np.array_equal(loc, expect[RANK]) if RANK in expect else loc.shape == (0, 0)


@only4
def test_eager_b_to_other_placement_s1():
    a, y, loc, _ = eager([0, 1], B, [2, 3], S1)  # B takes rank 0's data
    expect = {2: a[0][:, 0:2], 3: a[0][:, 2:4]}
    assert np.array_equal(loc, expect[RANK]) if RANK in expect else loc.shape == (0, 0)


@only4
def test_eager_s0_to_other_placement_s1():
    a, y, loc, got = eager([0, 1], S0, [2, 3], S1)
    full = np.concatenate([a[0], a[1]])
    expect = {2: full[:, 0:2], 3: full[:, 2:4]}
    assert np.array_equal(got, full)
    assert np.array_equal(loc, expect[RANK]) if RANK in expect else loc.shape == (0, 0)


@only4
def test_eager_s0_to_other_placement_p():
    a, y, loc, got = eager([0, 1], S0, [2, 3], P)
    full = np.concatenate([a[0], a[1]])
    z = np.zeros_like(a[0])
    # rank 0's shard goes to output parallel id 0 (rank 2), rank 1's to id 1 (rank 3)
    expect = {2: np.concatenate([a[0], z]), 3: np.concatenate([z, a[1]])}
    assert y.sbp == (P,)
    assert np.array_equal(got, full)
    assert np.array_equal(loc, expect[RANK]) if RANK in expect else loc.shape == (0, 0)


@only4
def test_eager_s1_to_other_placement_p():
    # OneFlow's test_eager_boxing_with_non_overlapping_placement_s1_to_p
    a = arrays()
    x = ctensor.tensor(a[RANK]).to_global(placement=pl([0, 1]), sbp=S0).to_global(sbp=S1)
    y = x.to_global(placement=pl([2, 3]), sbp=P)
    loc, got = np_local(y), y.numpy()
    full = np.concatenate([a[0], a[1]])
    left, right = full.copy(), full.copy()
    left[:, 2:] = 0
    right[:, :2] = 0
    expect = {2: left, 3: right}
    assert np.array_equal(got, full)
    assert np.array_equal(loc, expect[RANK]) if RANK in expect else loc.shape == (0, 0)


@only4
def test_eager_p_subset_to_all_s1():
    a, y, loc, _ = eager([0, 1, 3], P, [0, 1, 2, 3], S1)
    s = a[0] + a[1] + a[3]
    assert np.array_equal(loc, s[:, RANK:RANK + 1])


@only4
def test_eager_b_subset_to_all_s1():
    a, y, loc, _ = eager([0, 1, 3], B, [0, 1, 2, 3], S1)
    assert np.array_equal(loc, a[0][:, RANK:RANK + 1])


@only4
def test_eager_s0_subset_to_all_s1():
    a, y, loc, got = eager([0, 1, 3], S0, [0, 1, 2, 3], S1)
    full = np.concatenate([a[0], a[1], a[3]])
    assert got.shape == (12, 4)
    assert np.array_equal(loc, full[:, RANK:RANK + 1])


@only4
def test_eager_dict_placement_b_to_s0():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p_in = ctensor.placement("cpu", {0: [0, 2, 1, 3]})  # = [0, 1, 2, 3]
    a, y, loc, _ = eager(None, B, [1, 3], S0, in_placement=p_in)
    expect = {1: a[0][0:2], 3: a[0][2:4]}
    assert p_in == pl([0, 1, 2, 3])
    assert np.array_equal(loc, expect[RANK]) if RANK in expect else loc.shape == (0, 0)


@only4
def test_eager_s1_all_to_subset_p():
    a, y, loc, got = eager([0, 1, 2, 3], S1, [1, 3], P)
    full = np.concatenate(a, axis=1)
    # columns of ranks 1 and 3 stay there; rank 0's go to id 0 (rank 1), rank 2's to id 0 too
    keep = {1: [0, 1, 2], 3: [3]}
    expect = np.zeros_like(full)
    for r in keep.get(RANK, []):
        expect[:, 4 * r:4 * r + 4] = full[:, 4 * r:4 * r + 4]
    assert np.array_equal(got, full)
    assert np.array_equal(loc, expect) if RANK in keep else loc.shape == (0, 0)


@only2
def test_inconsistent_placement_across_ranks():
    # OneFlow's test_multi_input_with_diff_device_or_placement / parallel_desc check
    x = ctensor.ones(2, 3)
    p = pl([0, 1]) if RANK == 0 else pl([0])
    with pytest.raises(RuntimeError, match="Inconsistent parallel description"):
        x.to_global(placement=p, sbp=S1)


@only4
def test_eager_placements_reported():
    a, y, loc, _ = eager([0, 1], P, [1, 2, 3], B)
    assert y.placement == pl([1, 2, 3])
    assert np.array_equal(loc, a[0] + a[1]) if RANK != 0 else loc.shape == (0, 0)
