"""Element-wise add / sub / mul / div on global tensors against torch 1.13 on the logical
values (computed on every rank), the output sbp of the unambiguous cases (docs/global-tensors.md,
global.h), scalars on either side, and the errors, raised alike on every rank.

Values are small multiples of 0.5 and divisors are powers of two, so every result (and every
partial-sum reduction, in any order) is exact and compared exactly (values and dtype; a zero's
sign may differ where a product is distributed over partial parts)."""
import zlib

import numpy as np
import pytest

import ctensor
from dist_util import (RANK, WORLD, Pl, all_ranks, assert_same_on_all_ranks, describe, escape,
                       global_np, make_global, make_value_and_parts, nd_sbp_obj, same_values)

torch = pytest.importorskip("torch")

SBP_1D = ["S0", "S1", "B", "P"]
MESH = [[0, 1], [2, 3]]
only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")
TORCH_DT = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
            "int32": torch.int32}


def global_of(pl, names, value, dtype, seed):
    """A global tensor on (pl, names) holding the numpy `value` (exact partial parts)."""
    v, parts = make_value_and_parts(value.shape, dtype, pl, names, seed, value=value)
    return make_global(v, parts, dtype, pl, names)[0]


def operands(shape_a, shape_b, dtype_a="float32", dtype_b="float32", seed=0, divisor=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 9, shape_a) * (0.5 if dtype_a.startswith("float") else 1)
    if divisor:  # nonzero powers of two: exact quotients
        b = rng.choice([-4.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 4.0], shape_b)
        if not dtype_b.startswith("float"):
            b = rng.choice([-4, -2, -1, 1, 2, 4], shape_b)
    else:
        b = rng.integers(-8, 9, shape_b) * (0.5 if dtype_b.startswith("float") else 1)
    return a.astype(dtype_a), b.astype(dtype_b)


def torch_ref(op, a, b, **kw):
    ta = torch.from_numpy(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a
    tb = torch.from_numpy(np.ascontiguousarray(b)) if isinstance(b, np.ndarray) else b
    return getattr(torch, op)(ta, tb, **kw).numpy()


# sbp the library must choose (n >= 2 ranks, non-empty operands): the unambiguous cases of
# docs/global-tensors.md
EXPECTED_SBP = {
    ("add", "S0", "S0"): "S0", ("sub", "S0", "S0"): "S0", ("mul", "S0", "S0"): "S0",
    ("div", "S0", "S0"): "S0", ("add", "S1", "S1"): "S1", ("sub", "S1", "S1"): "S1",
    ("mul", "S1", "S1"): "S1", ("div", "S1", "S1"): "S1",
    ("add", "B", "B"): "B", ("sub", "B", "B"): "B", ("mul", "B", "B"): "B", ("div", "B", "B"): "B",
    ("add", "P", "P"): "P", ("sub", "P", "P"): "P",
    ("mul", "P", "B"): "P", ("mul", "B", "P"): "P", ("div", "P", "B"): "P",
    ("add", "P", "B"): "S0", ("add", "S0", "B"): "S0",
}


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("sb", SBP_1D)
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_1d(op, sa, sb, dtype):
    pl = all_ranks()
    seed = zlib.crc32(("%s%s%s%s" % (op, sa, sb, dtype)).encode())
    a, b = operands((7, 5), (7, 5), dtype, dtype, seed, divisor=(op == "div"))
    x = global_of(pl, [sa], a, dtype, seed + 1)
    y = global_of(pl, [sb], b, dtype, seed + 2)
    z = getattr(ctensor, op)(x, y)
    got = global_np(z)
    ref = torch_ref(op, a, b)
    assert type(z) is ctensor.GlobalTensor
    assert z.placement == pl.obj() and tuple(z.shape) == (7, 5)
    assert str(z.dtype) == str(torch.from_numpy(ref).dtype).replace("torch.", "ctensor.")
    assert same_values(got, ref), "expected %s, got %s" % (describe(ref), describe(got))
    want = EXPECTED_SBP.get((op, sa, sb))
    if want is not None and WORLD >= 2:
        assert z.sbp == nd_sbp_obj([want]), z.sbp


@pytest.mark.parametrize("form", ["operator", "method", "function"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_forms(op, form):
    pl = all_ranks()
    a, b = operands((6, 3), (6, 3), seed=3, divisor=True)
    x = global_of(pl, ["S0"], a, "float32", 1)
    y = global_of(pl, ["B"], b, "float32", 2)
    sym = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__"}[op]
    if form == "operator":
        z = getattr(x, sym)(y)
    elif form == "method":
        z = getattr(x, op)(y)
    else:
        z = getattr(ctensor, op)(x, y)
    got = global_np(z)
    assert same_values(got, torch_ref(op, a, b))


@pytest.mark.parametrize("alias,op", [("subtract", "sub"), ("multiply", "mul"),
                                      ("divide", "div"), ("true_divide", "div")])
def test_aliases(alias, op):
    pl = all_ranks()
    a, b = operands((4, 3), (4, 3), seed=4, divisor=True)
    x = global_of(pl, ["S1"], a, "float32", 1)
    y = global_of(pl, ["S1"], b, "float32", 2)
    got = global_np(getattr(ctensor, alias)(x, y))
    assert same_values(got, torch_ref(op, a, b))


@pytest.mark.parametrize("sb", SBP_1D)
@pytest.mark.parametrize("sa", SBP_1D)
def test_alpha_and_rounding_modes(sa, sb):
    pl = all_ranks()
    a, b = operands((5, 4), (5, 4), seed=5, divisor=True)
    a = a * 3  # floor / trunc differ from true division
    x = global_of(pl, [sa], a, "float32", 1)
    y = global_of(pl, [sb], b, "float32", 2)
    r = [global_np(x.add(y, alpha=2)), global_np(x.sub(y, alpha=3)),
         global_np(x.div(y, rounding_mode="floor")), global_np(x.div(y, rounding_mode="trunc")),
         global_np(x // y)]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    ref = [torch.add(ta, tb, alpha=2).numpy(), torch.sub(ta, tb, alpha=3).numpy(),
           torch.div(ta, tb, rounding_mode="floor").numpy(),
           torch.div(ta, tb, rounding_mode="trunc").numpy(), (ta // tb).numpy()]
    for got, want in zip(r, ref):
        assert same_values(got, want), (describe(got), describe(want))


@pytest.mark.parametrize("case", ["row", "col", "vec", "scalar_tensor"])
@pytest.mark.parametrize("sa", ["S0", "S1", "B", "P"])
def test_broadcasting(sa, case):
    pl = all_ranks()
    shape_b = {"row": (1, 5), "col": (7, 1), "vec": (5,), "scalar_tensor": ()}[case]
    a, b = operands((7, 5), shape_b, seed=6)
    x = global_of(pl, [sa], a, "float32", 1)
    y = global_of(pl, ["B"], b, "float32", 2)
    z1 = x + y
    z2 = y * x
    got1, got2 = global_np(z1), global_np(z2)
    assert same_values(got1, torch_ref("add", a, b))
    assert same_values(got2, torch_ref("mul", b, a))
    assert tuple(z1.shape) == (7, 5)
    if WORLD >= 2 and sa in ("S0", "S1"):
        # the broadcast operand is sliced (cost 1) rather than the split one gathered:
        # S(i), B -> S(i) (or S(i), S(i) -> S(i) after B -> S(i))
        assert z1.sbp == nd_sbp_obj([sa]), z1.sbp


@pytest.mark.parametrize("sa", SBP_1D)
def test_scalars_both_sides(sa):
    pl = all_ranks()
    rng = np.random.default_rng(8)
    a = rng.choice([-4.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 4.0], (6, 3)).astype(np.float32)
    x = global_of(pl, [sa], a, "float32", 1)
    results = {
        "x+2": x + 2, "2+x": 2 + x, "x-1.5": x - 1.5, "1.5-x": 1.5 - x, "x*3": x * 3,
        "3*x": 3 * x, "x/2": x / 2, "2/x": 2 / x, "x//2": x // 2, "add_fn": ctensor.add(x, 2),
        "x*0.5": x * 0.5,
    }
    got = {k: global_np(v) for k, v in results.items()}
    sbps = {k: v.sbp for k, v in results.items()}
    ta = torch.from_numpy(a)
    ref = {"x+2": ta + 2, "2+x": 2 + ta, "x-1.5": ta - 1.5, "1.5-x": 1.5 - ta, "x*3": ta * 3,
           "3*x": 3 * ta, "x/2": ta / 2, "2/x": 2 / ta, "x//2": ta // 2,
           "add_fn": torch.add(ta, 2), "x*0.5": ta * 0.5}
    for k in results:
        assert same_values(got[k], ref[k].numpy()), (k, describe(got[k]), describe(ref[k]))
    # global.h: the operand's sbp is kept; partial_sum is reduced to broadcast first for the
    # non-linear forms (add, sub, reflected sub and div, rounding div), kept for mul and div
    linear = {"x*3", "3*x", "x/2", "x*0.5"}
    for k, s in sbps.items():
        want = sa if (sa != "P" or k in linear) else "B"
        assert s == nd_sbp_obj([want]), (k, s)


@pytest.mark.parametrize("dtype_a,dtype_b", [("int64", "float32"), ("int32", "int64"),
                                             ("float32", "float64"), ("int32", "float32")])
def test_promotion(dtype_a, dtype_b):
    pl = all_ranks()
    a, b = operands((4, 2), (4, 2), dtype_a, dtype_b, seed=9, divisor=True)
    x = global_of(pl, ["S0"], a, dtype_a, 1)
    y = global_of(pl, ["B"], b, dtype_b, 2)
    outs = [x + y, x * y, x / y, x + 2.5, x * 2]
    got = [global_np(o) for o in outs]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    ref = [ta + tb, ta * tb, ta / tb, ta + 2.5, ta * 2]
    for o, g, r in zip(outs, got, ref):
        assert str(o.dtype) == str(r.dtype).replace("torch.", "ctensor.")
        assert same_values(g, r.numpy())


@only4
@pytest.mark.parametrize("sb", [("S0", "B"), ("B", "S1"), ("P", "B"), ("B", "B"),
                                ("S1", "S0"), ("P", "P")], ids=lambda s: "".join(s))
@pytest.mark.parametrize("sa", [("S0", "S1"), ("B", "S0"), ("P", "S0"), ("S0", "P"),
                                ("B", "B"), ("P", "P")], ids=lambda s: "".join(s))
@pytest.mark.parametrize("op", ["add", "mul"])
def test_binary_2d(op, sa, sb):
    pl = Pl(MESH)
    a, b = operands((7, 6), (7, 6), seed=10)
    x = global_of(pl, sa, a, "float32", 1)
    y = global_of(pl, sb, b, "float32", 2)
    z = getattr(ctensor, op)(x, y)
    got = global_np(z)
    assert z.placement == pl.obj() and len(z.sbp) == 2
    assert same_values(got, torch_ref(op, a, b))
    if sa == sb and "P" not in sa:
        assert z.sbp == nd_sbp_obj(sa)


@pytest.mark.skipif(WORLD < 2, reason="needs a second placement")
def test_inputs_on_other_ranks_only():
    # a placement that leaves ranks out: they compute nothing but keep the metadata
    pl = Pl([WORLD - 1])
    a, b = operands((3, 2), (3, 2), seed=11)
    x = global_of(pl, ["B"], a, "float32", 1)
    y = global_of(pl, ["B"], b, "float32", 2)
    z = x - y
    got = global_np(z)
    loc = z.to_local()
    assert same_values(got, a - b)
    if RANK != WORLD - 1:
        assert tuple(loc.shape) == (0, 0)


# ---- errors, on every rank alike ------------------------------------------------------------

def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return "%s: %s" % (type(e).__name__, e)
    return "no error"


@pytest.mark.skipif(WORLD < 2, reason="needs two different placements")
def test_error_different_placements():
    p_all = ctensor.placement("cpu", list(range(WORLD)))
    p0 = ctensor.placement("cpu", [0])
    x = ctensor.ones(2, 2).to_global(placement=p_all, sbp=ctensor.sbp.broadcast)
    y = ctensor.ones(2, 2).to_global(placement=p0, sbp=ctensor.sbp.broadcast)
    got = [outcome(lambda: x + y), outcome(lambda: ctensor.mul(x, y)),
           outcome(lambda: y.sub(x))]
    assert_same_on_all_ranks("\n".join(got))
    msg = ("RuntimeError: Expected all tensors to be on the same placement, but found at least "
           "two placements, %r and %r!")
    assert got == [msg % (p_all, p0), msg % (p_all, p0), msg % (p0, p_all)]


@only4
def test_error_same_ranks_other_hierarchy():
    x = ctensor.ones(2, 2).to_global(placement=ctensor.placement("cpu", [0, 1, 2, 3]),
                                     sbp=ctensor.sbp.broadcast)
    y = ctensor.ones(2, 2).to_global(placement=ctensor.placement("cpu", MESH),
                                     sbp=[ctensor.sbp.broadcast, ctensor.sbp.broadcast])
    got = outcome(lambda: x + y)
    assert_same_on_all_ranks(got)
    assert got.startswith("RuntimeError: Expected all tensors to be on the same placement")


def test_error_local_and_global():
    x = ctensor.ones(2, 2).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.broadcast)
    t = ctensor.ones(2, 2)
    prefix = "Expected all tensors to be global, but found a local tensor"
    for fn in [lambda: x + t, lambda: t + x, lambda: ctensor.add(t, x), lambda: x.mul(t),
               lambda: ctensor.div(x, t), lambda: t * x]:
        with pytest.raises(RuntimeError, match="^" + prefix):
            fn()


def test_error_broadcast_mismatch():
    pl = all_ranks()
    x = ctensor.ones(7, 5).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    y = ctensor.ones(4).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    msg = ("The size of tensor a (5) must match the size of tensor b (4) at non-singleton "
           "dimension 1")
    with pytest.raises(RuntimeError, match=escape(msg)):
        x + y
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.mul(x, y)


def test_error_no_inplace():
    x = ctensor.ones(2).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.broadcast)
    with pytest.raises((TypeError, RuntimeError)):
        ctensor.mul(x, x, out=x)
    with pytest.raises((TypeError, RuntimeError, AttributeError)):
        x.add_(x)


def test_error_messages_identical():
    pl = all_ranks()
    x = ctensor.ones(7, 5).to_global(placement=pl.obj(), sbp=ctensor.sbp.split(0))
    y = ctensor.ones(4).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    got = [outcome(lambda: x + y), outcome(lambda: x + ctensor.ones(1)),
           outcome(lambda: x.div(y, rounding_mode="bad"))]
    assert_same_on_all_ranks("\n".join(got))
    assert all(g != "no error" for g in got), got
    assert RANK >= 0
