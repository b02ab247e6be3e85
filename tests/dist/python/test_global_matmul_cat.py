"""matmul / mm / bmm / @ and cat / concat / stack of global tensors against torch 1.13 on the
logical values (computed on every rank): the result's sbp (global.h: OneFlow's matmul
signatures S(0) x B -> S(0), B x S(1) -> S(1), S(1) x S(0) -> P, P x B -> P, B x P -> P,
B x B -> B, the larger operand keeping its sbp when none matches; cat keeps a split on another
dim or broadcast and boxes a split on the cat dim or a partial sum to split on the lowest other
dim), each rank's to_local(), and the errors, raised alike on every rank.

Values are small multiples of 0.5, so every product and partial sum is exact in float32 and
compared exactly."""
import zlib

import numpy as np
import pytest

import ctensor
from dist_util import (RANK, WORLD, Pl, all_ranks, assert_same_on_all_ranks, box, describe,
                       global_np, local_np, nd_sbp_obj, same_values)
from test_global_arith import SBP_1D, global_of

torch = pytest.importorskip("torch")

MESH = [[0, 1], [2, 3]]
only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")
multi = pytest.mark.skipif(WORLD < 2, reason="needs a second placement")


def values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 9, shape)
    return (a * 0.5).astype(dtype) if dtype.startswith("float") else a.astype(dtype)


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the error is the result
        return None, "%s: %s" % (type(e).__name__, e)


def check_result(z, ref, pl, names):
    """Logical value, sbp and this rank's local of a result that must be `ref` on (pl, names);
    a partial_sum axis: the local has the shape of the rank's box (its values are a part)."""
    assert type(z) is ctensor.GlobalTensor
    assert z.placement == pl.obj()
    got = global_np(z)
    assert same_values(got, ref), "expected %s, got %s" % (describe(ref), describe(got))
    assert z.sbp == nd_sbp_obj(names), "sbp %s, expected %s" % (z.sbp, names)
    local = local_np(z.to_local())
    pid = pl.pid()
    if pid < 0:
        assert local.size == 0
        return
    want = np.array(ref[box(ref.shape, pl, names, pid)])
    if "P" in names:
        assert local.shape == want.shape and local.dtype == want.dtype
    else:
        assert same_values(local, want), "local %s, expected %s" % (describe(local),
                                                                   describe(want))


# ---- matmul: the sbp rule, restated ----------------------------------------------------------

# OneFlow's 2-D signatures (a's sbp, b's sbp, the result's)
SIGS_2D = [("S0", "B", "S0"), ("B", "S1", "S1"), ("S1", "S0", "P"), ("P", "B", "P"),
           ("B", "P", "P"), ("B", "B", "B")]
# the cost order of a conversion (global.h): none, B->S, S->S, P->S, S->B, P->B; never to P
def conv_cost(src, dst):
    if src == dst:
        return 0
    if dst == "P":
        return None
    if src == "B":
        return 1
    if dst.startswith("S"):
        return 2 if src.startswith("S") else 3
    return 4 if src.startswith("S") else 5


def expected_2d(sa, sb, a_larger):
    for x, y, z in SIGS_2D:
        if (x, y) == (sa, sb):
            return z
    for keep_a in ([a_larger, not a_larger]):
        best = None
        for x, y, z in SIGS_2D:
            kept, other, src = (x, y, sb) if keep_a else (y, x, sa)
            if kept != (sa if keep_a else sb):
                continue
            c = conv_cost(src, other)
            if c is not None and (best is None or c < best[0]):
                best = (c, z)
        if best:
            return best[1]
    return "B"


# the brief's named cases, by hand: a [6, 5] is larger than b [5, 4]
NAMED = {("S0", "B"): "S0", ("B", "S1"): "S1", ("S1", "S0"): "P", ("B", "B"): "B",
         ("P", "B"): "P", ("B", "P"): "P", ("S0", "S0"): "S0", ("P", "P"): "P",
         ("S1", "S1"): "P", ("B", "S0"): "S1"}


def test_named_cases_match_the_model():
    for (sa, sb), z in NAMED.items():
        assert expected_2d(sa, sb, True) == z, (sa, sb)


@pytest.mark.parametrize("shapes", [((6, 5), (5, 4)), ((3, 5), (5, 8))])
@pytest.mark.parametrize("sb", SBP_1D)
@pytest.mark.parametrize("sa", SBP_1D)
def test_matmul_2d(sa, sb, shapes):
    pl = all_ranks()
    seed = zlib.crc32(("%s%s%s" % (sa, sb, shapes)).encode())
    a, b = values(shapes[0], "float32", seed), values(shapes[1], "float32", seed + 1)
    x = global_of(pl, [sa], a, "float32", seed + 2)
    y = global_of(pl, [sb], b, "float32", seed + 3)
    ref = torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    want = expected_2d(sa, sb, a.size >= b.size)
    check_result(ctensor.matmul(x, y), ref, pl, [want])


@pytest.mark.parametrize("form", ["function", "operator", "method", "mm", "mm_method"])
def test_matmul_forms(form):
    pl = all_ranks()
    a, b = values((4, 3), "float32", 1), values((3, 5), "float32", 2)
    x = global_of(pl, ["S0"], a, "float32", 3)
    y = global_of(pl, ["B"], b, "float32", 4)
    z = {"function": lambda: ctensor.matmul(x, y), "operator": lambda: x @ y,
         "method": lambda: x.matmul(y), "mm": lambda: ctensor.mm(x, y),
         "mm_method": lambda: x.mm(y)}[form]()
    check_result(z, (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), pl, ["S0"])


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_matmul_dtypes(dtype):
    pl = all_ranks()
    a, b = values((5, 6), dtype, 7), values((6, 3), dtype, 8)
    x = global_of(pl, ["S1"], a, dtype, 9)
    y = global_of(pl, ["S0"], b, dtype, 10)
    check_result(x @ y, (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), pl, ["P"])


# 1-D and batched operands: (shape a, sbp a, shape b, sbp b, the result's sbp)
ND_CASES = [
    ((5,), "S0", (5,), "S0", "P"),          # dot
    ((5,), "B", (5, 4), "S1", "S0"),        # vector @ matrix: n split
    ((5,), "S0", (5, 4), "S0", "P"),
    ((6, 5), "S0", (5,), "B", "S0"),        # matrix @ vector: m split
    ((6, 5), "S1", (5,), "S0", "P"),
    ((4, 3, 5), "S0", (4, 5, 2), "S0", "S0"),   # batch split
    ((4, 3, 5), "S1", (4, 5, 2), "B", "S1"),    # m split
    ((4, 3, 5), "B", (4, 5, 2), "S2", "S2"),    # n split
    ((4, 3, 5), "S2", (4, 5, 2), "S1", "P"),    # k split
    ((2, 4, 3, 5), "S1", (5, 6), "B", "S1"),    # b broadcasts along the batch
    ((4, 3, 5), "S0", (5, 2), "S0", "S0"),      # mismatch: a larger keeps S(0), b to B
]


@pytest.mark.parametrize("case", ND_CASES, ids=lambda c: "%s%sx%s%s" % c[:4])
def test_matmul_nd(case):
    shape_a, sa, shape_b, sb, want = case
    pl = all_ranks()
    seed = zlib.crc32(repr(case).encode())
    a, b = values(shape_a, "float32", seed), values(shape_b, "float32", seed + 1)
    x = global_of(pl, [sa], a, "float32", seed + 2)
    y = global_of(pl, [sb], b, "float32", seed + 3)
    ref = np.asarray(torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy())
    check_result(ctensor.matmul(x, y), ref, pl, [want])


def test_bmm():
    pl = all_ranks()
    a, b = values((4, 3, 5), "float32", 11), values((4, 5, 2), "float32", 12)
    x = global_of(pl, ["S0"], a, "float32", 13)
    y = global_of(pl, ["S0"], b, "float32", 14)
    ref = torch.bmm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    check_result(ctensor.bmm(x, y), ref, pl, ["S0"])
    check_result(x.bmm(y), ref, pl, ["S0"])


@only4
@pytest.mark.parametrize("case", [
    (("S0", "S1"), ("B", "S0"), ("S0", "P")),
    (("S0", "B"), ("B", "S1"), ("S0", "S1")),
    (("B", "S1"), ("S1", "S0"), ("S1", "P")),
    (("S0", "S0"), ("B", "B"), ("S0", "S0")),
])
def test_matmul_mesh(case):
    sa, sb, want = case
    pl = Pl(MESH)
    a, b = values((8, 6), "float32", 21), values((6, 4), "float32", 22)
    x = global_of(pl, list(sa), a, "float32", 23)
    y = global_of(pl, list(sb), b, "float32", 24)
    check_result(x @ y, (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), pl, list(want))


def test_matmul_on_part_of_the_world():
    pl = Pl([0]) if WORLD == 1 else Pl(list(range(1, WORLD)))
    a, b = values((5, 4), "float32", 31), values((4, 3), "float32", 32)
    x = global_of(pl, ["S0"], a, "float32", 33)
    y = global_of(pl, ["B"], b, "float32", 34)
    check_result(x @ y, (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), pl, ["S0"])


# ---- matmul errors, on every rank alike ------------------------------------------------------


def torch_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return "%s: %s" % (type(e).__name__, e)
    raise AssertionError("torch did not raise")


def test_matmul_dtype_mismatch():
    pl = all_ranks()
    x = global_of(pl, ["S0"], values((4, 3), "float32", 1), "float32", 2)
    y = global_of(pl, ["B"], values((3, 2), "float64", 3), "float64", 4)
    _, err = outcome(lambda: x @ y)
    assert_same_on_all_ranks(str(err))
    assert err == torch_error(lambda: torch.ones(4, 3) @ torch.ones(3, 2, dtype=torch.float64))


@pytest.mark.parametrize("fn", ["matmul", "mm"])
def test_matmul_shape_mismatch(fn):
    pl = all_ranks()
    x = global_of(pl, ["S0"], values((4, 3), "float32", 1), "float32", 2)
    y = global_of(pl, ["S1"], values((5, 2), "float32", 3), "float32", 4)
    _, err = outcome(lambda: getattr(ctensor, fn)(x, y))
    assert_same_on_all_ranks(str(err))
    assert err == torch_error(lambda: getattr(torch, fn)(torch.ones(4, 3), torch.ones(5, 2)))


def test_mm_needs_matrices():
    pl = all_ranks()
    x = global_of(pl, ["B"], values((4, 3, 2), "float32", 1), "float32", 2)
    y = global_of(pl, ["B"], values((2, 2), "float32", 3), "float32", 4)
    _, err = outcome(lambda: ctensor.mm(x, y))
    assert_same_on_all_ranks(str(err))
    assert err == torch_error(lambda: torch.mm(torch.ones(4, 3, 2), torch.ones(2, 2)))


@multi
def test_matmul_placement_mismatch():
    a, b = values((4, 3), "float32", 1), values((3, 2), "float32", 2)
    x = global_of(all_ranks(), ["S0"], a, "float32", 3)
    y = global_of(Pl([0]), ["B"], b, "float32", 4)
    _, err = outcome(lambda: x @ y)
    assert_same_on_all_ranks(str(err))
    assert err.startswith("RuntimeError: Expected all tensors to be on the same placement, "
                          "but found at least two placements"), err


def test_matmul_local_operand():
    pl = all_ranks()
    x = global_of(pl, ["S0"], values((4, 3), "float32", 1), "float32", 2)
    _, err = outcome(lambda: x @ ctensor.ones(3, 2))
    assert_same_on_all_ranks(str(err))
    assert err == "RuntimeError: Expected all tensors to be global, but found a local tensor"
    _, err = outcome(lambda: ctensor.matmul(ctensor.ones(2, 4), x))
    assert err == "RuntimeError: Expected all tensors to be global, but found a local tensor"


def test_imatmul_refused():
    pl = all_ranks()
    x = global_of(pl, ["B"], values((3, 3), "float32", 1), "float32", 2)

    def inplace():
        y = x
        y @= x
    _, err = outcome(inplace)
    assert_same_on_all_ranks(str(err))
    assert err.startswith("RuntimeError: @=: in-place operations are not supported"), err


# ---- cat and stack ---------------------------------------------------------------------------

# (fn, dim, sbp of each input, the result's sbp), inputs [4, 6] (stack) or [4, 6] and [4, 3]
# / [3, 6] (cat along 1 / 0)
JOIN_CASES = [
    ("cat", 1, ["S0", "S0"], "S0"),       # split on another dim: shards joined in place
    ("cat", 0, ["S1", "S1"], "S1"),
    ("cat", 1, ["B", "B"], "B"),
    ("cat", -1, ["S0", "S0"], "S0"),
    ("cat", 0, ["S0", "S0"], "S1"),       # split on the cat dim: boxed to S(1)
    ("cat", 1, ["S1", "S1"], "S0"),
    ("cat", 0, ["P", "P"], "S1"),         # partial sum: boxed to S(1)
    ("cat", 1, ["P", "B"], "S0"),
    ("cat", 1, ["S0", "B"], "S0"),        # mixed: the first input's sbp
    ("cat", 0, ["B", "S1"], "B"),
    ("cat", 1, ["S0", "P", "S1"], "S0"),
    ("stack", 0, ["S0", "S0"], "S1"),     # stack renumbers a split at or after the new dim
    ("stack", 1, ["S1", "S1"], "S2"),
    ("stack", 1, ["S0", "S0"], "S0"),
    ("stack", -1, ["S1", "B"], "S1"),
    ("stack", 0, ["P", "P"], "S1"),
    ("stack", 2, ["B", "B", "B"], "B"),
]


def join_shapes(fn, dim, n):
    if fn == "stack":
        return [(4, 6)] * n
    return [(4, 6)] + [((3, 6) if dim == 0 else (4, 3))] * (n - 1)


@pytest.mark.parametrize("case", JOIN_CASES, ids=lambda c: "%s%d-%s" % (c[0], c[1], "".join(c[2])))
def test_join(case):
    fn, dim, names, want = case
    pl = all_ranks()
    seed = zlib.crc32(repr(case).encode())
    shapes = join_shapes(fn, dim, len(names))
    vals = [values(s, "float32", seed + i) for i, s in enumerate(shapes)]
    xs = [global_of(pl, [n], v, "float32", seed + 10 + i) for i, (n, v) in
          enumerate(zip(names, vals))]
    ref = getattr(torch, fn)([torch.from_numpy(v) for v in vals], dim).numpy()
    check_result(getattr(ctensor, fn)(xs, dim), ref, pl, [want])


def test_cat_1d_split_gathers():
    pl = all_ranks()
    a, b = values((5,), "float32", 1), values((3,), "float32", 2)
    xs = [global_of(pl, ["S0"], a, "float32", 3), global_of(pl, ["S0"], b, "float32", 4)]
    check_result(ctensor.cat(xs), np.concatenate([a, b]), pl, ["B"])


@pytest.mark.parametrize("fn", ["cat", "concat", "concatenate"])
def test_cat_aliases_and_tuple(fn):
    pl = all_ranks()
    a, b = values((4, 2), "float32", 1), values((4, 3), "float32", 2)
    xs = (global_of(pl, ["S0"], a, "float32", 3), global_of(pl, ["S0"], b, "float32", 4))
    check_result(getattr(ctensor, fn)(xs, 1), np.concatenate([a, b], 1), pl, ["S0"])


def test_cat_dtype_promotion():
    pl = all_ranks()
    a, b = values((4, 2), "int64", 1), values((4, 3), "float32", 2)
    xs = [global_of(pl, ["S0"], a, "int64", 3), global_of(pl, ["S0"], b, "float32", 4)]
    ref = torch.cat([torch.from_numpy(a), torch.from_numpy(b)], 1).numpy()
    check_result(ctensor.cat(xs, dim=1), ref, pl, ["S0"])


@only4
@pytest.mark.parametrize("case", [
    ("cat", 1, ("S0", "B"), ("S0", "B")),
    ("cat", 0, ("S0", "S1"), ("S1", "S1")),
    ("cat", 0, ("P", "S1"), ("S1", "S1")),
    ("stack", 0, ("S0", "S1"), ("S1", "S2")),
])
def test_join_mesh(case):
    fn, dim, names, want = case
    pl = Pl(MESH)
    shapes = join_shapes(fn, dim, 2)
    vals = [values(s, "float32", 40 + i) for i, s in enumerate(shapes)]
    xs = [global_of(pl, list(names), v, "float32", 50 + i) for i, v in enumerate(vals)]
    ref = getattr(torch, fn)([torch.from_numpy(v) for v in vals], dim).numpy()
    check_result(getattr(ctensor, fn)(xs, dim), ref, pl, list(want))


def test_join_on_part_of_the_world():
    pl = Pl([0]) if WORLD == 1 else Pl(list(range(1, WORLD)))
    vals = [values((3, 4), "float32", 61), values((3, 2), "float32", 62)]
    xs = [global_of(pl, ["S0"], v, "float32", 63 + i) for i, v in enumerate(vals)]
    check_result(ctensor.cat(xs, 1), np.concatenate(vals, 1), pl, ["S0"])


# ---- cat / stack errors, on every rank alike -------------------------------------------------


def test_cat_shape_mismatch():
    pl = all_ranks()
    xs = [global_of(pl, ["S0"], values((4, 2), "float32", 1), "float32", 2),
          global_of(pl, ["B"], values((3, 3), "float32", 3), "float32", 4)]
    _, err = outcome(lambda: ctensor.cat(xs, 1))
    assert_same_on_all_ranks(str(err))
    assert err == torch_error(lambda: torch.cat([torch.ones(4, 2), torch.ones(3, 3)], 1))


def test_stack_shape_mismatch():
    pl = all_ranks()
    xs = [global_of(pl, ["S0"], values((4, 2), "float32", 1), "float32", 2),
          global_of(pl, ["S0"], values((4, 3), "float32", 3), "float32", 4)]
    _, err = outcome(lambda: ctensor.stack(xs))
    assert_same_on_all_ranks(str(err))
    assert err == torch_error(lambda: torch.stack([torch.ones(4, 2), torch.ones(4, 3)]))


def test_cat_dim_out_of_range():
    pl = all_ranks()
    xs = [global_of(pl, ["S0"], values((4, 2), "float32", 1), "float32", 2)] * 2
    _, err = outcome(lambda: ctensor.cat(xs, 2))
    assert_same_on_all_ranks(str(err))
    assert err == torch_error(lambda: torch.cat([torch.ones(4, 2)] * 2, 2))


@multi
def test_cat_placement_mismatch():
    xs = [global_of(all_ranks(), ["S0"], values((4, 2), "float32", 1), "float32", 2),
          global_of(Pl([0]), ["B"], values((4, 2), "float32", 3), "float32", 4)]
    _, err = outcome(lambda: ctensor.cat(xs, 1))
    assert_same_on_all_ranks(str(err))
    assert err.startswith("RuntimeError: Expected all tensors to be on the same placement"), err


def test_cat_local_in_list():
    pl = all_ranks()
    x = global_of(pl, ["S0"], values((4, 2), "float32", 1), "float32", 2)
    _, err = outcome(lambda: ctensor.cat([x, ctensor.ones(4, 2)], 1))
    assert_same_on_all_ranks(str(err))
    assert err == "RuntimeError: Expected all tensors to be global, but found a local tensor"
