"""Every boxing transition (Tensor.to_global on a global tensor) checked against the same
computation done on one rank.

For each case: the logical value is built with numpy from a fixed seed on every rank; the
input global tensor is made from the slices each rank should hold (for partial_sum, parts
that add up to the value); it is converted; then
  (a) .numpy() of the result equals the value on every rank,
  (b) to_local() equals the slice this rank should hold, computed by the suite's own
      balanced-split model (dist_util.box), with partial_sum outputs in the "first rank
      keeps" layout (coordinate 0 of each partial axis holds the data, the others zeros),
  (c) the input is unchanged, and the result's placement, sbp, shape and dtype are right.
float16 / bfloat16 partial sums on 1-D placements use arbitrary values of the dtype: the
result must be the float32 sum in parallel-id order rounded once (global.h), bit for bit.
"""
import zlib

import numpy as np
import pytest

import ctensor
from dist_util import (DTYPES, NP, RANK, WORLD, Pl, all_ranks, box, describe, empty_local,
                       p_layout_expected, global_np, local_np, make_global,
                       make_value_and_parts, nd_sbp_obj, round_bf16, same_bits)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SBP_1D = ["S0", "S1", "B", "P"]
SBP_2D = [(a, b) for a in SBP_1D for b in SBP_1D]
SHAPES = [(7, 5), (3, 1), (0, 4)]
MESH = [[0, 1], [2, 3]]


def run_case(in_pl, in_names, out_pl, out_names, shape, dtype, case_id):
    """One conversion; returns nothing, asserts everything (after all collectives)."""
    in_names, out_names = tuple(in_names), tuple(out_names)
    rounding = dtype in ("float16", "bfloat16") and len(in_pl.hierarchy) == 1
    seed = zlib.crc32(case_id.encode())
    value, parts = make_value_and_parts(shape, dtype, in_pl, in_names, seed, rounding)
    x, arr_in = make_global(value, parts, dtype, in_pl, in_names)
    y = x.to_global(placement=out_pl.obj(), sbp=nd_sbp_obj(out_names))
    got = global_np(y)  # collective: every rank, before any assertion
    y_local = local_np(y.to_local())
    x_local = local_np(x.to_local())
    meta = (y.placement == out_pl.obj(), y.sbp, tuple(y.shape), y.dtype, y is x)
    # no global tensor may outlive a failure in this frame's traceback (the emulated device
    # of test_device_type_change must be unregistered afterwards)
    del x, y

    identity = in_pl == out_pl and in_names == out_names
    ndim = len(shape)
    pid = out_pl.pid()
    if identity:
        expect = arr_in if arr_in is not None else empty_local(ndim, NP[dtype])
        alternatives = []
    elif pid < 0:
        expect = empty_local(ndim, NP[dtype])
        alternatives = []
    else:
        expect = p_layout_expected(value, in_pl, in_names, out_pl, out_names, pid)
        alternatives = []
        # Partial axes that are partial on both sides of a conversion between the same ranks
        # and mesh (the device type may change) may keep their original parts (the per-axis
        # decomposition of N-D boxing, OneFlow's local copy for a device change) instead of moving
        # everything to coordinate 0: both hold the same logical value.
        alt = kept_parts_expected(parts, in_pl, in_names, out_pl, out_names, pid, shape)
        if alt is not None:
            alternatives.append(alt)

    same_placement, sbp, y_shape, y_dtype, same_object = meta
    assert same_placement
    assert sbp == nd_sbp_obj(out_names)
    assert y_shape == tuple(shape)
    assert y_dtype == getattr(ctensor, dtype)
    if identity:
        assert same_object
    assert same_bits(got, value), "logical value: expected %s, got %s" % (
        describe(value), describe(got))
    assert same_bits(y_local, expect) or any(same_bits(y_local, a) for a in alternatives), \
        "rank %d local: expected %s, got %s" % (RANK, describe(expect), describe(y_local))
    x_expect = arr_in if arr_in is not None else empty_local(ndim, NP[dtype])
    assert same_bits(x_local, x_expect), "input changed on rank %d: %s" % (
        RANK, describe(x_local))


def kept_parts_expected(parts, in_pl, in_names, out_pl, out_names, pid, shape):
    """The local of a member when the partial axes kept from the input (partial on both
    sides, same ranks and mesh) hold what they held before, summed over the input's other
    partial axes, and the new partial axes are held by coordinate 0; None when no partial
    axis is kept."""
    if in_pl.ranks != out_pl.ranks or in_pl.hierarchy != out_pl.hierarchy:
        return None
    p_in = [k for k, n in enumerate(in_names) if n == "P"]
    kept = [k for k in p_in if out_names[k] == "P"]
    if not kept:
        return None
    coords = out_pl.coords(pid)
    total = None
    for j, part in enumerate(parts):
        cj = np.unravel_index(j, [in_pl.hierarchy[k] for k in p_in]) if p_in else ()
        if all(int(cj[p_in.index(k)]) == coords[k] for k in kept):
            total = part.copy() if total is None else (total + part).astype(part.dtype)
    local = np.ascontiguousarray(total[box(shape, out_pl, out_names, pid)])
    if any(n == "P" and k not in kept and coords[k] != 0 for k, n in enumerate(out_names)):
        return np.zeros_like(local)
    return local


# ---- 1-D, all ranks, every sbp pair, shapes and dtypes --------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=["7x5", "3x1", "0x4"])
@pytest.mark.parametrize("dst", SBP_1D)
@pytest.mark.parametrize("src", SBP_1D)
def test_1d_same_placement(src, dst, shape, dtype):
    pl = all_ranks()
    run_case(pl, [src], pl, [dst], shape, dtype, "1d-%s-%s-%s-%s" % (src, dst, shape, dtype))


@pytest.mark.parametrize("dst", ["S0", "S1", "S2", "B", "P"])
@pytest.mark.parametrize("src", ["S0", "S1", "S2", "B", "P"])
def test_1d_three_dims(src, dst):
    pl = all_ranks()
    run_case(pl, [src], pl, [dst], (4, 3, 5), "float32", "3d-%s-%s" % (src, dst))


@pytest.mark.parametrize("dst", ["S0", "B", "P"])
@pytest.mark.parametrize("src", ["S0", "B", "P"])
def test_1d_one_dim_and_scalar_like(src, dst):
    pl = all_ranks()
    run_case(pl, [src], pl, [dst], (10,), "float32", "1dim-%s-%s" % (src, dst))
    run_case(pl, [src], pl, [dst], (1,), "int64", "1elem-%s-%s" % (src, dst))


# ---- placement changes ----------------------------------------------------------------------

def placement_pairs():
    a = list(range(WORLD))
    pairs = []
    if WORLD >= 2:
        pairs += [(a, [0]), ([0], a), ([1], [0]), (a, [WORLD - 1])]
    if WORLD >= 3:
        pairs += [([0, 1], [1, 2]), ([2], a), (a, [1, 2])]
    if WORLD == 4:
        pairs += [([0, 1], [1, 2, 3]), ([0, 1], [2, 3]), ([0, 1, 3], a), (a, [1, 3]),
                  ([3, 2], [0, 1])]
    return pairs


PAIRS = placement_pairs()
PAIR_IDS = ["%s->%s" % (Pl(a), Pl(b)) for a, b in PAIRS]
CHANGE_KINDS = [((7, 5), d) for d in ("float32", "int64", "float16", "bfloat16", "int32",
                                      "float64")] + [((3, 1), "float32"), ((0, 4), "float32")]


@pytest.mark.skipif(not PAIRS, reason="one rank: no other placement")
@pytest.mark.parametrize("kind", CHANGE_KINDS,
                         ids=["%dx%d-%s" % (s[0], s[1], d) for s, d in CHANGE_KINDS])
@pytest.mark.parametrize("dst", SBP_1D)
@pytest.mark.parametrize("src", SBP_1D)
@pytest.mark.parametrize("pair", PAIRS or [None], ids=PAIR_IDS or ["none"])
def test_1d_placement_change(pair, src, dst, kind):
    shape, dtype = kind
    in_ranks, out_ranks = pair
    run_case(Pl(in_ranks), [src], Pl(out_ranks), [dst], shape, dtype,
             "pc-%s-%s-%s-%s-%s-%s" % (in_ranks, out_ranks, src, dst, shape, dtype))


def test_device_type_change(emulated_cuda):
    # cpu -> cuda (emulated, host memory) on the same ranks, then back
    for src in SBP_1D:
        for dst in SBP_1D:
            run_case(all_ranks(), [src], Pl(list(range(WORLD)), "cuda"), [dst], (7, 5),
                     "float32", "dev-%s-%s" % (src, dst))
            run_case(Pl(list(range(WORLD)), "cuda"), [src], all_ranks(), [dst], (7, 5),
                     "float32", "dev2-%s-%s" % (src, dst))


# ---- 2-D mesh (world == 4) ------------------------------------------------------------------

only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")
ids2 = ["".join(p) for p in SBP_2D]


@only4
@pytest.mark.parametrize("kind", [((7, 5), "float32"), ((3, 1), "bfloat16"), ((6, 4), "int32")],
                         ids=["7x5-f32", "3x1-bf16", "6x4-i32"])
@pytest.mark.parametrize("dst", SBP_2D, ids=ids2)
@pytest.mark.parametrize("src", SBP_2D, ids=ids2)
def test_2d_same_placement(src, dst, kind):
    shape, dtype = kind
    pl = Pl(MESH)
    run_case(pl, src, pl, dst, shape, dtype, "2d-%s-%s-%s-%s" % (src, dst, shape, dtype))


@only4
@pytest.mark.parametrize("dst", SBP_2D, ids=ids2)
@pytest.mark.parametrize("src", SBP_2D, ids=ids2)
def test_2d_same_placement_zero_rows(src, dst):
    pl = Pl(MESH)
    run_case(pl, src, pl, dst, (0, 4), "float64", "2d0-%s-%s" % (src, dst))


@only4
@pytest.mark.parametrize("dst", SBP_1D)
@pytest.mark.parametrize("src", SBP_2D, ids=ids2)
@pytest.mark.parametrize("out_ranks", [[0, 1, 2, 3], [0], [1, 2]], ids=["all", "0", "1-2"])
def test_2d_to_1d(out_ranks, src, dst):
    run_case(Pl(MESH), src, Pl(out_ranks), [dst], (7, 5), "float32",
             "2d1d-%s-%s-%s" % (out_ranks, src, dst))


@only4
@pytest.mark.parametrize("dst", SBP_2D, ids=ids2)
@pytest.mark.parametrize("src", SBP_1D)
@pytest.mark.parametrize("in_ranks", [[0, 1, 2, 3], [1], [2, 3]], ids=["all", "1", "2-3"])
def test_1d_to_2d(in_ranks, src, dst):
    run_case(Pl(in_ranks), [src], Pl(MESH), dst, (7, 5), "float32",
             "1d2d-%s-%s-%s" % (in_ranks, src, dst))


@only4
@pytest.mark.parametrize("dst", SBP_2D, ids=ids2)
@pytest.mark.parametrize("src", [("S0", "S1"), ("P", "B"), ("B", "P"), ("P", "P"), ("S1", "S1")],
                         ids=["S0S1", "PB", "BP", "PP", "S1S1"])
@pytest.mark.parametrize("out_mesh", [[[0], [1]], [[2, 3]], [[3, 1], [2, 0]]],
                         ids=["2x1", "1x2", "2x2-unsorted"])
def test_2d_to_other_2d(out_mesh, src, dst):
    run_case(Pl(MESH), src, Pl(out_mesh), dst, (7, 5), "float32",
             "2d2d-%s-%s-%s" % (out_mesh, src, dst))


# ---- float16 / bfloat16 partial sums: summed in float32 in parallel-id order, rounded once ---

def test_bf16_rounding_model_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).uniform(-1000, 1000, 4096).astype(np.float32)
    x[:4] = [1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -(1.0 + 2 ** -8), 0.0]  # ties
    mine = round_bf16(x)
    ref = torch.from_numpy(x).to(torch.bfloat16).to(torch.float32).numpy()
    assert same_bits(mine, ref)


@pytest.mark.parametrize("dst", ["B", "S0", "S1"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_partial_sum_rounds_once(dtype, dst):
    """Parts whose step-by-step rounded sum differs from the once-rounded one (with 3 or more
    ranks): rank 0 holds 1, the others half an ulp of 1 each."""
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dtype)
    half_ulp = 2.0 ** -11 if dtype == "float16" else 2.0 ** -8
    parts = [np.full((3, 2), 1.0 if r == 0 else half_ulp, np.float32) for r in range(WORLD)]
    pl = all_ranks()
    local = ctensor.tensor(parts[RANK]).to(getattr(ctensor, dtype))
    x = local.to_global(placement=pl.obj(), sbp=ctensor.sbp.partial_sum)
    y = x.to_global(sbp=nd_sbp_obj([dst]))
    full = y.to_global(sbp=ctensor.sbp.broadcast).to_local()
    bits = full.view(ctensor.int16).numpy()
    mine = y.to_local().view(ctensor.int16).numpy()
    # the reference on one rank: torch, float32 sum in rank order, one rounding
    acc = torch.zeros((3, 2), dtype=torch.float32)
    for p in parts:
        acc = acc + torch.from_numpy(p)
    ref = acc.to(tdt).view(torch.int16).numpy()
    stepwise = torch.from_numpy(parts[0]).to(tdt)
    for p in parts[1:]:
        stepwise = stepwise + torch.from_numpy(p).to(tdt)
    assert y.dtype == getattr(ctensor, dtype)
    assert np.array_equal(bits, ref), (bits, ref)
    sl = box((3, 2), pl, (dst,), pl.pid())
    assert np.array_equal(mine, ref[sl])
    if WORLD >= 3:  # the case is built so that rounding at every step would differ
        assert not np.array_equal(ref, stepwise.view(torch.int16).numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_partial_sum_random_matches_torch(dtype):
    """Random parts: the library's P -> B equals torch's float32 serial sum rounded once."""
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dtype)
    rng = np.random.default_rng(77)
    raw = [rng.uniform(-3, 3, (5, 4)).astype(np.float32) for _ in range(WORLD)]
    parts = [torch.from_numpy(r).to(tdt) for r in raw]  # values of the dtype
    local = ctensor.tensor(parts[RANK].to(torch.float32).numpy()).to(getattr(ctensor, dtype))
    y = local.to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.partial_sum).to_global(
        sbp=ctensor.sbp.broadcast)
    bits = y.to_local().view(ctensor.int16).numpy()
    acc = torch.zeros((5, 4), dtype=torch.float32)
    for p in parts:
        acc = acc + p.to(torch.float32)
    ref = acc.to(tdt).view(torch.int16).numpy()
    assert np.array_equal(bits, ref)


# ---- conversions in a row keep the value ----------------------------------------------------

def test_chain_of_conversions():
    # test_boxing.py's chain S -> B -> P -> S -> P -> B -> S, on all ranks
    pl = all_ranks()
    value = np.arange(WORLD * 6, dtype=np.float32).reshape(WORLD * 2, 3)
    x = ctensor.tensor(value[2 * RANK:2 * RANK + 2]).to_global(placement=pl.obj(),
                                                               sbp=ctensor.sbp.split(0))
    seen = []
    for name in ["B", "P", "S1", "P", "B", "S0", "S1", "B"]:
        x = x.to_global(sbp=nd_sbp_obj([name]))
        seen.append((x.sbp == nd_sbp_obj([name]), global_np(x)))
    for ok, got in seen:
        assert ok
        assert np.array_equal(got, value)


def test_many_iterations():
    # OneFlow loops conversions; a leak or a stale communicator would show up here
    pl = all_ranks()
    g = ctensor.ones(4, 4).to_global(placement=pl.obj(), sbp=ctensor.sbp.split(0))
    for i in range(200):
        g = g.to_global(sbp=nd_sbp_obj([("B", "S1", "P", "S0")[i % 4]]))
    got = g.numpy()
    assert g.sbp == (ctensor.sbp.split(0),)
    assert np.array_equal(got, np.ones((4 * WORLD, 4), np.float32))
