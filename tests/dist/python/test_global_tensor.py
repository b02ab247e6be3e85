"""Global tensors: to_global from local tensors (S(0), S(1), B, P on 1-D and 2-D placements,
placements that leave ranks out), logical shape against local shards with uneven splits,
ranks outside the placement, check_meta errors, the broadcast sync from the first rank,
attributes and their errors, to_local, the removed to_consistent API, ctensor.to_global /
to_local over containers, factories with placement= / sbp=, and repr.

Collectives first, assertions last: every rank must reach the same collectives even when
its own values are wrong (conftest.py)."""
import re

import numpy as np
import pytest

import ctensor
from dist_util import (RANK, WORLD, Pl, all_placement, allgather_ints,
                       assert_same_on_all_ranks, balanced, box, escape, local_np,
                       local_tensor, nd_sbp_obj)

S0 = ctensor.sbp.split(0)
S1 = ctensor.sbp.split(1)
B = ctensor.sbp.broadcast
P = ctensor.sbp.partial_sum

needs = lambda n: pytest.mark.skipif(WORLD < n, reason="needs %d ranks" % n)  # noqa: E731
only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the B overwrite warning


def placements_1d():
    """(id, ranks) of the 1-D placements this world allows: all ranks, the first rank alone,
    and ones that leave ranks out."""
    out = [("all", list(range(WORLD))), ("first", [0])]
    if WORLD >= 2:
        out.append(("last", [WORLD - 1]))
    if WORLD >= 3:
        out.append(("tail", list(range(1, WORLD))))
    if WORLD == 4:
        out += [("0-1", [0, 1]), ("2-3", [2, 3]), ("0-1-3", [0, 1, 3])]
    return out


PL_1D = placements_1d()


def logical(rows, cols, seed=0):
    return np.random.default_rng(seed).integers(-50, 50, (rows, cols)).astype(np.float32)


# ---- local -> global on 1-D placements -------------------------------------------------------

@pytest.mark.parametrize("pl_id,ranks", PL_1D, ids=[p[0] for p in PL_1D])
@pytest.mark.parametrize("rows", [7, 4, 1, 0])
def test_from_local_split0_uneven(pl_id, ranks, rows):
    pl = Pl(ranks)
    value = logical(rows, 3, seed=rows)
    pid = pl.pid()
    if pid >= 0:
        b, n = balanced(rows, len(ranks), pid)
        local = local_tensor(value[b:b + n], "float32")
    else:
        local = ctensor.zeros(1)
    g = local.to_global(placement=pl.obj(), sbp=S0)
    got = g.numpy()
    loc = g.to_local()
    assert g.is_global and not g.is_local
    assert type(g) is ctensor.GlobalTensor
    assert isinstance(g, ctensor.Tensor)  # a global tensor is a Tensor (issue 18)
    assert g.shape == ctensor.Size([rows, 3]) and isinstance(g.shape, ctensor.Size)
    assert g.dtype == ctensor.float32
    assert g.placement == pl.obj()
    assert g.sbp == (S0,) and isinstance(g.sbp, tuple)
    assert np.array_equal(got, value)
    if pid >= 0:
        assert tuple(loc.shape) == (balanced(rows, len(ranks), pid)[1], 3)
        assert np.array_equal(loc.numpy(), value[b:b + n])
    else:
        assert tuple(loc.shape) == (0, 0)


@pytest.mark.parametrize("pl_id,ranks", PL_1D, ids=[p[0] for p in PL_1D])
@pytest.mark.parametrize("cols", [7, 5, 1])
def test_from_local_split1_uneven(pl_id, ranks, cols):
    pl = Pl(ranks)
    value = logical(3, cols, seed=10 + cols)
    pid = pl.pid()
    sl = box(value.shape, pl, ("S1",), pid)
    local = local_tensor(value[sl], "float32") if pid >= 0 else ctensor.zeros(2, 2)
    g = local.to_global(placement=pl.obj(), sbp=S1)
    got = g.numpy()
    loc = local_np(g.to_local())
    assert g.shape == (3, cols) and g.sbp == (S1,)
    assert np.array_equal(got, value)
    expect = value[sl] if pid >= 0 else np.zeros((0, 0), np.float32)
    assert loc.shape == expect.shape and np.array_equal(loc, expect)


@pytest.mark.parametrize("pl_id,ranks", PL_1D, ids=[p[0] for p in PL_1D])
def test_from_local_broadcast(pl_id, ranks):
    pl = Pl(ranks)
    value = logical(5, 4, seed=3)
    member = pl.pid() >= 0
    local = local_tensor(value, "float32") if member else ctensor.zeros(1)
    g = local.to_global(placement=pl.obj(), sbp=B)
    got = g.numpy()
    loc = g.to_local()
    assert g.shape == (5, 4) and g.sbp == (B,)
    assert np.array_equal(got, value)
    if member:
        assert np.array_equal(loc.numpy(), value)
    else:
        assert tuple(loc.shape) == (0, 0)


@pytest.mark.parametrize("pl_id,ranks", PL_1D, ids=[p[0] for p in PL_1D])
def test_from_local_partial_sum(pl_id, ranks):
    pl = Pl(ranks)
    pid = pl.pid()
    # member pid holds (pid + 1) * ones: the logical value is n(n+1)/2 everywhere
    local = ctensor.full((3, 2), float(pid + 1)) if pid >= 0 else ctensor.zeros(1)
    g = local.to_global(placement=pl.obj(), sbp=P)
    got = g.numpy()
    loc = g.to_local()
    n = len(ranks)
    assert g.shape == (3, 2) and g.sbp == (P,)
    assert np.array_equal(got, np.full((3, 2), n * (n + 1) / 2, np.float32))
    if pid >= 0:  # local -> global moves no data for P
        assert np.array_equal(loc.numpy(), np.full((3, 2), pid + 1.0, np.float32))


def test_local_to_global_alias_and_sbp_forms():
    pl = all_placement()
    t = ctensor.ones(2, 3)
    a = t.local_to_global(placement=pl, sbp=S0)
    b = t.to_global(pl, [S0])
    c = t.to_global(pl, (S0,))
    d = t.to_global(pl, S0, check_meta=False)
    shapes = [tuple(x.shape) for x in (a, b, c, d)]
    sbps = [x.sbp for x in (a, b, c, d)]
    assert shapes == [(2 * WORLD, 3)] * 4
    assert sbps == [(S0,)] * 4


def test_from_local_shares_memory_unless_copy():
    pl = all_placement()
    t = ctensor.zeros(2, 3)
    u = ctensor.zeros(2, 3)
    g = t.to_global(placement=pl, sbp=S0)
    h = u.to_global(placement=pl, sbp=S0, copy=True)
    t[0] = 5.0
    u[0] = 5.0
    g_loc = g.to_local().numpy()
    h_loc = h.to_local().numpy()
    h_copy = h.to_local(copy=True)
    h_copy[1] = 7.0
    h_after = h.to_local().numpy()
    assert np.array_equal(g_loc[0], [5.0] * 3)  # shares t's memory
    assert np.array_equal(h_loc, np.zeros((2, 3)))  # copied at to_global
    assert np.array_equal(h_after, np.zeros((2, 3)))  # to_local(copy=True) is a copy


def test_to_local_shares_memory():
    g = ctensor.zeros(2, 3).to_global(placement=all_placement(), sbp=S0)
    a = g.to_local()
    a[1] = 3.0
    b = g.to_local().numpy()
    assert np.array_equal(b[1], [3.0] * 3)
    assert isinstance(a, ctensor.Tensor) and a.is_local and not a.is_global


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16",
                                   "bfloat16", "int8", "uint8", "int16", "bool",
                                   "complex64"])
def test_from_local_dtypes(dtype):
    pl = all_placement()
    value = (np.arange(WORLD * 6).reshape(WORLD * 2, 3) % 5).astype(np.float32)
    pid = RANK
    if dtype == "bfloat16":
        t = local_tensor(value[2 * pid:2 * pid + 2], "bfloat16")
    else:
        t = ctensor.tensor(value[2 * pid:2 * pid + 2]).to(getattr(ctensor, dtype))
    g = t.to_global(placement=pl, sbp=S0)
    full = g.to_global(sbp=B).to_local()
    assert g.dtype == getattr(ctensor, dtype)
    assert full.dtype == getattr(ctensor, dtype)
    expect = ctensor.tensor(value).to(getattr(ctensor, dtype))
    assert full.tolist() == expect.tolist()


# ---- 2-D mesh --------------------------------------------------------------------------------

@only4
@pytest.mark.parametrize("names", [("S0", "S0"), ("S0", "S1"), ("S1", "S0"), ("B", "S0"),
                                   ("S1", "B"), ("B", "B"), ("P", "S0"), ("S0", "P"),
                                   ("P", "P"), ("B", "P")])
def test_from_local_2d(names):
    pl = Pl([[0, 1], [2, 3]])
    rng = np.random.default_rng(5)
    value = rng.integers(-9, 9, (7, 6)).astype(np.float32)
    pid = pl.pid()
    coords = pl.coords(pid)
    part = value[box(value.shape, pl, names, pid)].copy()
    # partial axes: coordinate 0 holds the value, the others zeros
    if any(n == "P" and coords[k] != 0 for k, n in enumerate(names)):
        part[:] = 0
    local = local_tensor(part, "float32")
    g = local.to_global(placement=pl.obj(), sbp=nd_sbp_obj(names))
    got = g.numpy()
    loc = g.to_local().numpy()
    assert g.shape == (7, 6)
    assert g.sbp == nd_sbp_obj(names)
    assert np.array_equal(got, value)
    assert np.array_equal(loc, part)


@only4
def test_two_d_sbp_length_must_match():
    t = ctensor.ones(4, 4)
    pl2 = ctensor.placement("cpu", [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match=escape(
            "The number of sbp (1) must match the number of placement hierarchy dims (2)")):
        t.to_global(placement=pl2, sbp=S0)


def test_sbp_length_must_match_1d():
    with pytest.raises(ValueError, match=escape(
            "The number of sbp (2) must match the number of placement hierarchy dims (1)")):
        ctensor.ones(4, 4).to_global(placement=all_placement(), sbp=[S0, B])


# ---- ranks outside the placement -------------------------------------------------------------

@needs(2)
def test_outside_ranks_get_metadata():
    # OneFlow's test_to_global_broadcast_shape_dtype: ranks outside pass a float (1,) tensor;
    # placement [0, 1] (here: [0] on 2 ranks), S(0) of int32 (16, 16) per member
    members = [0, 1] if WORLD >= 3 else [0]
    pl = ctensor.placement("cpu", members)
    if RANK in members:
        t = ctensor.ones(16, 16, dtype=ctensor.int32)
    else:
        t = ctensor.ones(1, dtype=ctensor.float32)
    g = t.to_global(placement=pl, sbp=S0)
    got = g.numpy()
    loc = g.to_local()
    assert g.shape == (16 * len(members), 16)
    assert g.dtype == ctensor.int32
    assert g.placement == pl and g.sbp == (S0,)
    assert np.array_equal(got, np.ones((16 * len(members), 16), np.int32))
    if RANK in members:
        assert tuple(loc.shape) == (16, 16)
    else:
        assert tuple(loc.shape) == (0, 0)
        assert loc.dtype == ctensor.int32


@needs(2)
def test_outside_rank_zero_dim():
    pl = ctensor.placement("cpu", [0])
    g = ctensor.tensor(3.5).to_global(placement=pl, sbp=B)
    got = g.numpy()
    loc = g.to_local()
    assert g.shape == () and g.ndim == 0
    assert float(got) == 3.5
    if RANK == 0:
        assert loc.tolist() == 3.5
    else:  # global.h: a 0-dim logical tensor is a 0-dim zero outside
        assert tuple(loc.shape) == () and loc.tolist() == 0.0


# ---- check_meta -------------------------------------------------------------------------------

SPLIT_MSG = ("Sizes of tensors in dimension 0 must be same or match balanced split "
             "distribution. See https://github.com/Oneflow-Inc/oneflow/blob/master/oneflow/"
             "core/common/balanced_splitter.h for details of balanced split")


def outcome(fn):
    """'Type: message' of what fn (a collective) raised on this rank, or 'no error'. Every
    exception is caught, so that every rank goes on to compare outcomes (a rank leaving the
    test early would leave the others waiting in the comparison)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return "%s: %s" % (type(e).__name__, e)
    return "no error"


@needs(2)
def test_check_meta_split_sizes():
    # rank 0 holds 2 rows, the others 4: no balanced split of the sum gives that
    t = ctensor.ones(2 if RANK == 0 else 4, 4)
    got = outcome(lambda: t.to_global(placement=all_placement(), sbp=S0))
    assert_same_on_all_ranks(got)
    assert got == "RuntimeError: " + SPLIT_MSG


@needs(2)
def test_check_meta_split_sizes_dim1():
    t = ctensor.ones(4, 2 if RANK == 0 else 4)
    msg = SPLIT_MSG.replace("dimension 0", "dimension 1")
    got = outcome(lambda: t.to_global(placement=all_placement(), sbp=S1))
    assert_same_on_all_ranks(got)
    assert got == "RuntimeError: " + msg


@needs(2)
def test_check_meta_other_dims():
    # OneFlow's example: S(1), rank 0 (2, 4), rank 1 (4, 4)
    t = ctensor.ones(2 if RANK == 0 else 4, 4)
    msg = ("Sizes of tensors must match except in dimension 1. Expected size 2 but got size 4 "
           "for tensor on rank 1!")
    got = outcome(lambda: t.to_global(placement=all_placement(), sbp=S1))
    assert_same_on_all_ranks(got)
    assert got == "RuntimeError: " + msg


@needs(2)
def test_check_meta_balanced_is_fine():
    # (3, 4), (2, 4), (2, 4) over 3 ranks is balanced; generally: the balanced parts of 7
    b, n = balanced(7, WORLD, RANK)
    g = ctensor.ones(n, 4).to_global(placement=all_placement(), sbp=S0)
    assert g.shape == (7, 4)


@needs(2)
def test_check_meta_dtypes():
    t = ctensor.ones(2, 2, dtype=ctensor.float32 if RANK == 0 else ctensor.int32)
    msg = ("Expected all tensors on each rank to be the same dtype, but found at least two "
           "dtypes, ctensor.float32(rank 0) and ctensor.int32(rank 1)!")
    got = outcome(lambda: t.to_global(placement=all_placement(), sbp=S0))
    assert_same_on_all_ranks(got)
    assert got == "RuntimeError: " + msg


@needs(2)
def test_check_meta_ndims():
    t = ctensor.ones(2, 2) if RANK == 0 else ctensor.ones(2)
    msg = ("Expected all tensors on each rank to have the same number of dimensions, but "
           "found 2(rank 0) and 1(rank 1)!")
    got = outcome(lambda: t.to_global(placement=all_placement(), sbp=S0))
    assert_same_on_all_ranks(got)
    assert got == "RuntimeError: " + msg


@needs(2)
@pytest.mark.parametrize("sbp", ["B", "P"])
def test_check_meta_without_split_shapes_differ(sbp):
    t = ctensor.ones(2 if RANK == 0 else 3, 2)
    got = outcome(lambda: t.to_global(
        placement=all_placement(), sbp=nd_sbp_obj([sbp])))
    assert_same_on_all_ranks(got)
    assert got.startswith("RuntimeError: "), got


@needs(2)
def test_check_meta_false_trusts_the_first_member():
    # no communication: logical = local shape times the split axis's size
    t = ctensor.full((3, 2), float(RANK))
    g = t.to_global(placement=all_placement(), sbp=S0, check_meta=False)
    got = g.numpy()
    assert g.shape == (3 * WORLD, 2)
    assert np.array_equal(got, np.repeat(np.arange(WORLD, dtype=np.float32), 3)[:, None]
                          * np.ones((1, 2), np.float32))


def test_split_axis_out_of_range():
    msg = "Split axis out of range (expected to be in range of [0, 1), but got 1!)"
    t = ctensor.ones(4)
    with pytest.raises(RuntimeError, match=escape(msg)):
        t.to_global(placement=all_placement(), sbp=S1)
    g = t.to_global(placement=all_placement(), sbp=B)
    with pytest.raises(RuntimeError, match=escape(msg)):
        g.to_global(sbp=S1)
    msg2 = "Split axis out of range (expected to be in range of [0, 2), but got 5!)"
    with pytest.raises(RuntimeError, match=escape(msg2)):
        ctensor.ones(2, 2).to_global(placement=all_placement(), sbp=ctensor.sbp.split(5))


# ---- broadcast: data from the first rank ----------------------------------------------------

@needs(2)
def test_local_to_global_broadcast_data():
    # OneFlow's test_local_to_global_broadcast_data: rank 0 ones, the others zeros -> all ones
    t = ctensor.ones(4, 4) if RANK == 0 else ctensor.zeros(4, 4)
    g = t.to_global(placement=all_placement(), sbp=B)
    got = g.numpy()
    loc = g.to_local().numpy()
    after = t.numpy()  # without copy=True the input itself is overwritten
    assert np.array_equal(got, np.ones((4, 4), np.float32))
    assert np.array_equal(loc, np.ones((4, 4), np.float32))
    assert np.array_equal(after, np.ones((4, 4), np.float32))


@needs(2)
def test_local_to_global_broadcast_copy_keeps_input():
    t = ctensor.ones(4, 4) if RANK == 0 else ctensor.zeros(4, 4)
    g = t.to_global(placement=all_placement(), sbp=B, copy=True)
    loc = g.to_local().numpy()
    after = t.numpy()
    assert np.array_equal(loc, np.ones((4, 4), np.float32))
    assert np.array_equal(after, np.full((4, 4), 1.0 if RANK == 0 else 0.0, np.float32))


@needs(3)
def test_broadcast_first_member_is_the_smallest_rank():
    members = list(range(1, WORLD))[::-1]  # written backwards: the first is still rank 1
    t = ctensor.full((2,), float(RANK * 10))
    g = t.to_global(placement=ctensor.placement("cpu", members), sbp=B)
    got = g.numpy()
    assert np.array_equal(got, [10.0, 10.0])


@only4
def test_broadcast_groups_2d():
    # (B, S(0)) on [[0, 1], [2, 3]]: groups {0, 2} and {1, 3}; 0 and 1 send
    t = ctensor.full((2, 2), float(RANK))
    g = t.to_global(placement=ctensor.placement("cpu", [[0, 1], [2, 3]]), sbp=[B, S0])
    got = g.numpy()
    loc = g.to_local().numpy()
    assert np.array_equal(got, np.array([[0, 0], [0, 0], [1, 1], [1, 1]], np.float32))
    assert np.array_equal(loc, np.full((2, 2), float(RANK % 2), np.float32))


# ---- attributes and their errors ------------------------------------------------------------

LOCAL_PLACEMENT_MSG = ("Only global tensors have 'placement'. Placement is used to describe the "
                       "distribution of global tensor in multiple GPUs. Please use '.device' for "
                       "local tensors.")


def test_local_tensor_attributes():
    t = ctensor.ones(2)
    assert t.is_local is True and t.is_global is False
    with pytest.raises(RuntimeError, match=escape(LOCAL_PLACEMENT_MSG)):
        t.placement
    with pytest.raises(RuntimeError, match="^" + re.escape("Local tensor has no sbp property.")):
        t.sbp


def test_global_tensor_attributes():
    g = ctensor.ones(2, 3).to_global(placement=all_placement(), sbp=S0)
    assert g.is_global is True and g.is_local is False
    with pytest.raises(RuntimeError, match=escape(
            "Only local tensors have 'device'. Please use '.placement' for global tensors.")):
        g.device
    assert g.shape == ctensor.Size([2 * WORLD, 3])
    assert g.size() == ctensor.Size([2 * WORLD, 3])
    assert g.size(0) == 2 * WORLD and g.size(1) == 3 and g.size(-1) == 3
    assert g.dim() == 2 and g.ndim == 2
    assert g.numel() == 6 * WORLD
    assert g.dtype == ctensor.float32
    assert g.placement == all_placement()
    assert g.sbp == (S0,)


def test_global_tensor_has_no_local_methods():
    g = ctensor.ones(2).to_global(placement=all_placement(), sbp=B)
    # a global tensor is a Tensor: the Tensor methods without a global form raise (abs, sum,
    # the other element-wise ops and reductions, copy_ are global methods now)
    for name in ["view", "reshape", "t", "flip", "roll"]:
        with pytest.raises(NotImplementedError, match="not implemented for global tensors"):
            getattr(g, name)(0)
    assert not hasattr(g, "numpy_")


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
def test_no_inplace_forms_on_global(name):
    # the API allows either no such method or one that raises saying so
    g = ctensor.ones(2).to_global(placement=all_placement(), sbp=B)
    if hasattr(g, name):
        with pytest.raises((TypeError, RuntimeError), match="in-place|inplace"):
            getattr(g, name)(g)
    got = g.numpy()
    assert np.array_equal(got, np.ones(2, np.float32))


def test_no_out_forms_on_global():
    g = ctensor.ones(2).to_global(placement=all_placement(), sbp=B)
    with pytest.raises((TypeError, RuntimeError)):
        ctensor.add(g, g, out=g)


def test_to_local_errors():
    t = ctensor.ones(2)
    with pytest.raises(RuntimeError, match=escape(
            "Expected global tensor for to_local but got local tensor!")):
        t.to_local()
    with pytest.raises(RuntimeError, match=escape(
            "Expected global tensor for global_to_global but got local tensor!")):
        t.global_to_global(placement=all_placement(), sbp=B)
    g = t.to_global(placement=all_placement(), sbp=B)
    with pytest.raises(RuntimeError, match=escape(
            "Expected local tensor for local_to_global but got global tensor!")):
        g.local_to_global(placement=all_placement(), sbp=B)


def test_to_consistent_removed():
    t = ctensor.ones(2)
    with pytest.raises(RuntimeError, match=escape(
            ".to_consistent has been removed, please use .to_global instead")):
        t.to_consistent(placement=all_placement(), sbp=B)
    with pytest.raises(RuntimeError, match=escape(
            ".is_consistent has been removed, please use .is_global instead")):
        t.is_consistent


def test_to_global_argument_errors():
    t = ctensor.ones(2)
    pl = all_placement()
    msg = "Converting a local tensor to global tensor must have placement and sbp parameters."
    with pytest.raises(ValueError, match=escape(msg)):
        t.to_global()
    with pytest.raises(ValueError, match=escape(msg)):
        t.to_global(placement=pl)
    with pytest.raises(ValueError, match=escape(msg)):
        t.to_global(sbp=B)
    with pytest.raises(TypeError, match=escape(
            "Invalid parameter placement with type <class 'str'>")):
        t.to_global(placement="cpu", sbp=B)
    with pytest.raises(TypeError, match=escape(
            "sbp parameter must be type of ctensor.sbp.sbp or list/tuple of ctensor.sbp.sbp")):
        t.to_global(placement=pl, sbp=[B, 1])
    with pytest.raises(TypeError, match=escape(
            "sbp parameter must be type of ctensor.sbp.sbp or list/tuple of ctensor.sbp.sbp")):
        t.to_global(placement=pl, sbp=("B",))
    with pytest.raises(TypeError, match=escape("Invalid parameter sbp with type <class 'int'>")):
        t.to_global(placement=pl, sbp=0)


def test_global_to_global_same_object():
    g = ctensor.ones(2, 2).to_global(placement=all_placement(), sbp=S0)
    same = [g.to_global() is g, g.to_global(placement=g.placement) is g,
            g.to_global(sbp=S0) is g, g.to_global(placement=all_placement(), sbp=[S0]) is g,
            g.global_to_global(sbp=S0) is g, g.to_global(sbp=S0, grad_sbp=B) is g]
    c = g.to_global(sbp=S0, copy=True)
    c_loc = c.to_local()
    c_loc[0] = 9.0
    g_loc = g.to_local().numpy()
    assert same == [True] * 6
    assert c is not g and c.sbp == (S0,)
    assert np.array_equal(g_loc, np.ones((2, 2), np.float32))


def test_numpy_and_tolist_everywhere():
    value = np.arange(4 * WORLD, dtype=np.float32).reshape(WORLD, 4)
    g = ctensor.tensor(value[RANK:RANK + 1]).to_global(placement=all_placement(), sbp=S0)
    a = g.numpy()
    b = g.tolist()
    assert np.array_equal(a, value) and a.dtype == np.float32
    assert b == value.tolist()


# ---- ctensor.to_global / to_local over containers ------------------------------------------

def test_to_global_containers():
    pl = all_placement()
    a = ctensor.ones(2)
    b = ctensor.zeros(1, 2)
    marker = object()
    obj = [a, (b, {"k": a, "n": 5}), "s", marker]
    out = ctensor.to_global(obj, placement=pl, sbp=S0)
    back = ctensor.to_local(out)
    assert type(out) is list and type(out[1]) is tuple and type(out[1][1]) is dict
    assert type(out[0]) is ctensor.GlobalTensor and out[0].shape == (2 * WORLD,)
    assert out[1][0].shape == (WORLD, 2)
    assert out[1][1]["k"].shape == (2 * WORLD,)
    assert out[1][1]["n"] == 5 and out[2] == "s" and out[3] is marker
    assert type(back) is list and type(back[1]) is tuple and type(back[1][1]) is dict
    assert isinstance(back[0], ctensor.Tensor) and tuple(back[0].shape) == (2,)
    assert tuple(back[1][0].shape) == (1, 2)
    assert back[2] == "s" and back[3] is marker


def test_to_global_function_on_tensors_and_globals():
    pl = all_placement()
    g = ctensor.to_global(ctensor.ones(2, 2), placement=pl, sbp=S0)
    h = ctensor.to_global(g, sbp=B)  # boxing through the function too
    got = h.numpy()
    loc = ctensor.to_local(h)
    passthrough = ctensor.to_global(7, placement=pl, sbp=B)
    assert g.sbp == (S0,) and h.sbp == (B,)
    assert np.array_equal(got, np.ones((2 * WORLD, 2), np.float32))
    assert tuple(loc.shape) == (2 * WORLD, 2)
    assert passthrough == 7
    with pytest.raises(ValueError):
        ctensor.to_global([ctensor.ones(1)], placement=pl)


# ---- factories -------------------------------------------------------------------------------

@pytest.mark.parametrize("names", [("S0",), ("S1",), ("B",), ("P",)])
@pytest.mark.parametrize("fn", ["zeros", "ones", "full", "empty"])
def test_factories(fn, names):
    pl = Pl(list(range(WORLD)))
    shape = (7, 3)
    sbp = nd_sbp_obj(names)
    if fn == "full":
        g = ctensor.full(shape, 2.5, placement=pl.obj(), sbp=sbp)
    else:
        g = getattr(ctensor, fn)(*shape, placement=pl.obj(), sbp=sbp)
    got = g.numpy() if fn != "empty" else None
    loc = g.to_local().numpy()
    fill = {"zeros": 0.0, "ones": 1.0, "full": 2.5, "empty": None}[fn]
    assert type(g) is ctensor.GlobalTensor
    assert g.shape == shape and g.sbp == sbp and g.placement == pl.obj()
    assert g.dtype == ctensor.float32
    pid = pl.pid()
    expect_shape = tuple(s.stop - s.start for s in box(shape, pl, names, pid))
    assert loc.shape == expect_shape
    if fill is not None:
        assert np.array_equal(got, np.full(shape, fill, np.float32))
        # P: the first rank holds the value, the others zeros (logical = the constant)
        own = fill if (names != ("P",) or pid == 0) else 0.0
        assert np.array_equal(loc, np.full(expect_shape, own, np.float32))


def test_factory_dtype_and_size_forms():
    pl = all_placement()
    a = ctensor.zeros((2, 3), dtype=ctensor.int64, placement=pl, sbp=B)
    b = ctensor.ones([4], placement=pl, sbp=S0, dtype=ctensor.float64)
    c = ctensor.empty(ctensor.Size([3]), placement=pl, sbp=B)
    assert a.dtype == ctensor.int64 and a.shape == (2, 3)
    assert b.dtype == ctensor.float64 and b.shape == (4,)
    assert c.shape == (3,)


def test_arange_and_tensor_factories():
    pl = Pl(list(range(WORLD)))
    a = ctensor.arange(10, placement=pl.obj(), sbp=S0)
    a_np = a.numpy()
    a_loc = a.to_local().numpy()
    data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    t = ctensor.tensor(data, placement=pl.obj(), sbp=S1)
    t_np = t.numpy()
    t_loc = t.to_local().numpy()
    assert np.array_equal(a_np, np.arange(10))
    assert np.array_equal(a_loc, np.arange(10)[box((10,), pl, ("S0",), pl.pid())])
    assert t.shape == (2, 3) and t.sbp == (S1,)
    assert np.array_equal(t_np, np.array(data, np.float32))
    assert np.array_equal(t_loc, np.array(data, np.float32)[box((2, 3), pl, ("S1",), pl.pid())])


@needs(2)
def test_tensor_data_taken_from_first_rank():
    members = list(range(1, WORLD)) if WORLD >= 3 else [0, 1]
    pl = ctensor.placement("cpu", members)
    t = ctensor.tensor([[float(RANK)] * 2] * 2, placement=pl, sbp=B)
    got = t.numpy()
    assert np.array_equal(got, np.full((2, 2), float(members[0]), np.float32))


@pytest.mark.parametrize("fn", ["randn", "rand", "randint"])
def test_random_factories_agree(fn):
    if not hasattr(ctensor, fn):
        pytest.skip("ctensor has no %s (local or global)" % fn)
    pl = all_placement()
    if fn == "randint":
        g = ctensor.randint(0, 1000, (WORLD + 2, 3), placement=pl, sbp=S0)
    else:
        g = getattr(ctensor, fn)(WORLD + 2, 3, placement=pl, sbp=S0)
    mine = g.numpy()
    # every rank contributes its view of the logical value as one row: all rows equal
    rows = ctensor.tensor(mine.reshape(1, -1)).to_global(placement=pl, sbp=S0).numpy()
    assert g.shape == (WORLD + 2, 3)
    assert all(np.array_equal(rows[0], rows[r]) for r in range(WORLD))
    assert len(np.unique(mine)) > 1


def test_factory_argument_errors():
    pl = all_placement()
    with pytest.raises(ValueError, match=escape("placement and sbp must be given together")):
        ctensor.zeros(2, placement=pl)
    with pytest.raises(ValueError, match=escape("placement and sbp must be given together")):
        ctensor.ones(2, sbp=B)
    with pytest.raises(ValueError, match=escape("device and placement cannot be given together")):
        ctensor.zeros(2, placement=pl, sbp=B, device="cpu")
    with pytest.raises(ValueError, match=escape("placement and sbp must be given together")):
        ctensor.tensor([1.0], placement=pl)


# ---- repr ------------------------------------------------------------------------------------
# OneFlow's template (_tensor_str.py): the data as the local print shows it, then the suffixes
# placement=, sbp=, size= (empty tensors that are not 1-D) and dtype= (always), each appended
# PyTorch's way: on the same line while it stays within 80 columns, else on a new line
# indented by len("tensor(").

def add_suffixes(tensor_str, suffixes, indent=7, linewidth=80):
    out = [tensor_str]
    last = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    out.append(")")
    return "".join(out)


def expected_repr(local_value, placement, sbp):
    text = repr(local_value)
    text = re.sub(r",\s*dtype=ctensor\.\w+\)$", ")", text)
    text = re.sub(r",\s*size=\([0-9, ]*\)\)$", ")", text)
    suffixes = ["placement=%r" % placement, "sbp=%r" % (tuple(sbp),)]
    if local_value.numel() == 0 and local_value.dim() != 1:
        suffixes.append("size=%s" % (tuple(local_value.shape),))
    suffixes.append("dtype=%s" % local_value.dtype)
    return add_suffixes(text[:-1], suffixes)


def test_repr_exact():
    pl = ctensor.placement("cpu", [0])
    g = ctensor.tensor([1.0, 2.0, 3.0, 4.0], placement=pl, sbp=S0)
    text = repr(g)
    assert text == ('tensor([1., 2., 3., 4.], placement=ctensor.placement(type="cpu", '
                    'ranks=[0]),\n       sbp=(ctensor.sbp.split(dim=0),), dtype=ctensor.float32)')
    assert str(g) == text


@pytest.mark.parametrize("case", ["f32", "f32_2d", "i64", "f64", "bf16", "empty", "zero_dim"])
def test_repr_data_part_is_the_local_print(case):
    pl = all_placement()
    value = {"f32": ctensor.tensor([1.0, 2.0, 3.0, 4.0]),
             "f32_2d": ctensor.tensor([[1.5, -2.0], [3.0, 4.25]]),
             "i64": ctensor.tensor([1, 2, 3]),
             "f64": ctensor.tensor([1.0, 2.0], dtype=ctensor.float64),
             "bf16": ctensor.tensor([1.0, 2.0]).to(ctensor.bfloat16),
             "empty": ctensor.zeros(0, 4),
             "zero_dim": ctensor.tensor(2.5)}[case]
    sbp = (S0,) if case in ("f32", "i64") else (B,)
    if case == "empty":
        g = ctensor.zeros(0, 4, placement=pl, sbp=sbp)
    else:
        g = ctensor.tensor(value.tolist(), placement=pl, sbp=sbp, dtype=value.dtype)
    text = repr(g)
    assert text == expected_repr(value, pl, sbp)


@only4
def test_repr_2d():
    pl = ctensor.placement("cpu", [[0, 1], [2, 3]])
    g = ctensor.tensor([[1.0, 2.0], [3.0, 4.0]], placement=pl, sbp=[B, S0])
    text = repr(g)
    assert text == ('tensor([[1., 2.],\n        [3., 4.]],\n       placement=ctensor.placement('
                    'type="cpu", ranks=[[0, 1], [2, 3]]),\n       sbp=(ctensor.sbp.broadcast, '
                    'ctensor.sbp.split(dim=0)),\n       dtype=ctensor.float32)')
    assert text == expected_repr(ctensor.tensor([[1.0, 2.0], [3.0, 4.0]]), pl, (B, S0))


def test_allgather_helper_sanity():
    # the suite's own collective helper, used to compare ranks
    rows = allgather_ints([RANK, 7])
    assert rows.tolist() == [[r, 7] for r in range(WORLD)]
