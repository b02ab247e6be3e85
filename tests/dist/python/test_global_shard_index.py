"""Shard-local basic indexing and Tensor.new on global tensors (issue 18).

x[index] with ints, slices, None and Ellipsis runs on each rank's own shard when it leaves
every shard whole (no int and no partial slice on a split dim): the result keeps the sbp,
a split dim renumbered when an int removes an earlier dim or None inserts one. x[index] =
value writes into each rank's shard likewise (not for partial_sum, which takes the logical
path). Any other index takes the logical value (the result broadcast), as before.

Tensor.new on a global tensor is OneFlow's: self's dtype, placement and sbp (also for data).

Every rank runs every test with the same global operations in the same order.
"""
import numpy as np
import pytest

import ctensor
from dist_util import RANK, WORLD, all_placement

B = ctensor.sbp.broadcast
S0 = ctensor.sbp.split(0)
S1 = ctensor.sbp.split(1)
S2 = ctensor.sbp.split(2)
P = ctensor.sbp.partial_sum

ROWS = 2 * WORLD + 1  # uneven shards
VALUE = (np.arange(ROWS * 6 * 3).reshape(ROWS, 6, 3) - 20).astype(np.float32)


def make(sbp, value=VALUE):
    if sbp is P:
        return ctensor.tensor(value, placement=all_placement(), sbp=B).to_global(sbp=P)
    return ctensor.tensor(value, placement=all_placement(), sbp=sbp)


def shard(value, sbp):
    """This rank's part of `value` under a 1-D sbp over every rank (balanced split)."""
    dims = [d for d in range(value.ndim) if sbp == ctensor.sbp.split(d)]
    if not dims:
        return value
    dim = dims[0]
    n = value.shape[dim]
    base, extra = divmod(n, WORLD)
    begin = RANK * base + min(RANK, extra)
    size = base + (1 if RANK < extra else 0)
    return np.take(value, range(begin, begin + size), axis=dim)


# index, input sbp, result sbp
LOCAL = [
    ((slice(None), 2), S0, S0),
    ((slice(None), slice(1, 5, 2)), S0, S0),
    ((Ellipsis, 1), S0, S0),
    ((slice(None), None, -1), S0, S0),
    ((None, slice(None), 3), S0, S1),
    (1, S1, S0),
    ((2, 3), S2, S0),
    ((-1, slice(None), None), S1, S0),
    ((slice(None), slice(None), 0), S1, S1),
    ((None, 1), S1, S1),
    ((slice(1, None, 2), 0), B, B),
    (0, B, B),
    ((Ellipsis, None), S0, S0),
    ((), S0, S0),
    ((1, slice(None), slice(0, 0)), S1, S0),
    ((1, slice(None), 2), P, P),
    (slice(1, 3), P, P),
]


@pytest.mark.parametrize("index,sbp,expect_sbp", LOCAL, ids=[str(i) for i in range(len(LOCAL))])
def test_getitem_on_the_shards(index, sbp, expect_sbp):
    g = make(sbp)
    r = g[index]
    got = r.numpy()
    expect = VALUE[index]
    assert r.is_global and r.placement == g.placement and r.sbp == (expect_sbp,)
    assert r.shape == expect.shape and r.dtype == g.dtype
    assert np.array_equal(got, expect)
    if expect_sbp is not P:
        assert np.array_equal(r.to_local().numpy(), shard(expect, expect_sbp))
    # a copy: writing into the result leaves g alone
    r.to_local().fill_(1234.0)
    assert np.array_equal(g.numpy(), VALUE)


# indices that touch a split dim: the logical path, a broadcast result
LOGICAL = [(0, S0), ((slice(None), 1), S1), (slice(1, 3), S0), ((Ellipsis, 1), S2),
           ((slice(None, None, 2),), S0)]


@pytest.mark.parametrize("index,sbp", LOGICAL, ids=[str(i) for i in range(len(LOGICAL))])
def test_getitem_on_a_split_dim_takes_the_logical_value(index, sbp):
    g = make(sbp)
    r = g[index]
    got = r.numpy()
    assert r.sbp == (B,) and np.array_equal(got, VALUE[index])


SET = [((slice(None), 2), S0), ((slice(None), slice(1, 5, 2)), S0), ((Ellipsis, 1), S0),
       (1, S1), ((2, 3), S2), ((slice(None), slice(None), 0), S1), ((0, slice(2, 4)), B),
       ((None, slice(None), 1), S0)]


@pytest.mark.parametrize("index,sbp", SET, ids=[str(i) for i in range(len(SET))])
@pytest.mark.parametrize("value_sbp", [B, S0, P], ids=["vB", "vS0", "vP"])
def test_setitem_on_the_shards(index, sbp, value_sbp):
    g = make(sbp)
    local = g.to_local()  # shares g's data: written in place
    shape = VALUE[index].shape
    g[index] = -3
    after_number = g.numpy()
    value = (np.arange(int(np.prod(shape))).reshape(shape) + 100).astype(np.float32)
    if value.ndim and (value_sbp is not S0 or value.shape[0] >= 1):
        g[index] = make(value_sbp, value)
    after_tensor = g.numpy()
    expect = VALUE.copy()
    expect[index] = -3
    assert g.sbp == (sbp,) and np.array_equal(after_number, expect)
    if value.ndim:
        expect[index] = value
    assert np.array_equal(after_tensor, expect)
    assert np.array_equal(local.numpy(), shard(expect, sbp))


def test_setitem_broadcasts_the_value():
    g = make(S0)
    g[:, 1:3] = make(B, np.array([7.0, 8.0, 9.0], np.float32))  # (3,) -> (ROWS, 2, 3)
    g[:, 4] = make(B, np.ones((1, 1, 3), np.float32))  # leading size-1 dims dropped
    got = g.numpy()
    expect = VALUE.copy()
    expect[:, 1:3] = [7.0, 8.0, 9.0]
    expect[:, 4] = 1.0
    assert np.array_equal(got, expect)


def test_setitem_partial_sum_takes_the_logical_path():
    g = make(P)
    g[:, 1] = 5.0
    got = g.numpy()
    expect = VALUE.copy()
    expect[:, 1] = 5.0
    assert g.sbp == (P,) and np.array_equal(got, expect)


def test_setitem_int_dtype_and_range():
    g = make(S0, np.arange(ROWS * 4).reshape(ROWS, 4).astype(np.int32))
    g[:, 1] = 7
    with pytest.raises(RuntimeError):
        g[:, 2] = 2**40  # checked before the index, on every rank
    got = g.numpy()
    assert np.array_equal(got[:, 1], np.full(ROWS, 7)) and got.dtype == np.int32


def test_shard_index_errors_on_every_rank():
    g = make(S0)
    with pytest.raises(IndexError, match="out of bounds for dimension 1 with size 6"):
        g[:, 6]
    with pytest.raises(IndexError, match="too many indices"):
        g[:, 1, 2, 3]
    with pytest.raises(RuntimeError):
        g[:, 1] = make(B, np.ones(4, np.float32))  # (4,) does not expand to (ROWS, 3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be global"):
        g[:, 1] = ctensor.ones(3)
    assert np.array_equal(g.numpy(), VALUE)  # still in step, unchanged


@pytest.mark.skipif(WORLD < 2, reason="needs ranks that differ")
def test_index_differing_across_ranks_fails_everywhere():
    g = make(S0)
    with pytest.raises(RuntimeError, match="differ across ranks"):
        g[:, RANK % 2]
    with pytest.raises(RuntimeError):
        g[(slice(None), 0) if RANK == 0 else 0]  # one rank local, the others logical
    with pytest.raises(RuntimeError):
        g[:, RANK % 2] = 1.0
    assert np.array_equal(g.numpy(), VALUE)


@pytest.mark.skipif(WORLD != 4, reason="a 2 x 2 mesh")
def test_two_d_mesh():
    pl = ctensor.placement("cpu", [[0, 1], [2, 3]])
    g = ctensor.tensor(VALUE, placement=pl, sbp=(S0, S2))
    r = g[:, 1]
    got = r.numpy()
    assert r.sbp == (S0, S1) and np.array_equal(got, VALUE[:, 1])
    r2 = g[:, :, 1]  # a select on a split dim: the logical path
    got2 = r2.numpy()
    assert r2.sbp == (B, B) and np.array_equal(got2, VALUE[:, :, 1])
    g[:, 2:4] = -1.0
    got3 = g.numpy()
    expect = VALUE.copy()
    expect[:, 2:4] = -1.0
    assert np.array_equal(got3, expect)


# ---- Tensor.new ------------------------------------------------------------------------------


@pytest.mark.parametrize("sbp", [B, S0, S1], ids=["B", "S0", "S1"])
def test_new_with_data_keeps_dtype_placement_and_sbp(sbp):
    g = make(sbp, VALUE[:, :, 0].astype(np.int32))
    data = [[1, 2, 3], [4, 5, 6]] * WORLD
    n = g.new(data)
    a = g.new(np.array(data, dtype=np.float64))
    t = g.new(((WORLD, 2), (3, 4)))  # a tuple is data too, as PyTorch
    got = n.numpy(), a.numpy(), t.numpy()
    assert n.is_global and n.dtype == ctensor.int32 and n.placement == g.placement
    assert n.sbp == (sbp,) and a.sbp == (sbp,) and a.dtype == ctensor.int32
    assert np.array_equal(got[0], np.array(data)) and np.array_equal(got[1], np.array(data))
    assert t.shape == (2, 2) and np.array_equal(got[2], [[WORLD, 2], [3, 4]])


def test_new_sizes_forms():
    g = make(S0)
    e, s, z = g.new(), g.new(4, 2), g.new(ctensor.Size([3, 2]))
    assert e.shape == (0,) and e.sbp == (S0,) and e.dtype == g.dtype
    assert s.shape == (4, 2) and z.shape == (3, 2) and z.sbp == (S0,)


def test_new_errors_on_every_rank():
    g = make(S1)
    with pytest.raises(RuntimeError, match=r"Tensor.new\(Tensor\) only support local tensor"):
        g.new(g)
    with pytest.raises(RuntimeError, match=r"Tensor.new\(Tensor\) only support local tensor"):
        g.new(ctensor.ones(2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        g.new([1, 2], dtype=ctensor.int64)
    with pytest.raises(RuntimeError, match="Split axis out of range"):
        g.new([1.0, 2.0])  # S(1) of a 1-d value
    with pytest.raises(TypeError, match="new"):
        g.new("ab")
    assert np.array_equal(g.numpy(), VALUE)  # still in step
