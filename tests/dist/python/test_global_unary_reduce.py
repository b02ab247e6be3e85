"""Unary ops (every unary.def row) and reductions (sum, mean, prod, amax, amin, all, any, max,
min) on global tensors against torch 1.13 on the logical values (computed on every rank), the
result's sbp (global.h: element-wise ops keep split and broadcast, and a partial sum only for
neg / positive; sum and mean over a split dim give partial_sum, a kept split is renumbered,
the other reductions gather first), and the errors, raised alike on every rank."""
import zlib

import numpy as np
import pytest

import ctensor
from dist_util import (RANK, WORLD, Pl, all_ranks, assert_same_on_all_ranks, describe, escape,
                       global_np, nd_sbp_obj)
from test_global_arith import SBP_1D, global_of

torch = pytest.importorskip("torch")

MESH = [[0, 1], [2, 3]]
only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")

UNARY = ["neg", "positive", "abs", "sign", "sgn", "floor", "ceil", "trunc", "frac", "round",
         "reciprocal", "logical_not", "bitwise_not", "exp", "expm1", "exp2", "log", "log1p",
         "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
         "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "relu"]
LINEAR = {"neg", "positive"}


def values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 9, shape)
    return (a * 0.5).astype(dtype) if dtype.startswith("float") else a.astype(dtype)


def close(got, want):
    """Same shape and dtype; integers and bools equal, floats within a few ulp (a shard may
    take a kernel's vector path where the whole tensor takes its scalar tail, and partial sums
    add in another order)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if got.dtype.kind in "fc":
        return np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    return np.array_equal(got, want)


def torch_outcome(fn):
    try:
        return fn().numpy(), None
    except Exception as e:  # noqa: BLE001 - the error is the result
        return None, e


def global_outcome(fn):
    try:
        z = fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return None, None, "%s: %s" % (type(e).__name__, e)
    return global_np(z), z, None


# ---- unary ops ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, sa, dtype):
    pl = all_ranks()
    seed = zlib.crc32(("%s%s%s" % (name, sa, dtype)).encode())
    a = values((7, 5), dtype, seed)
    x = global_of(pl, [sa], a, dtype, seed + 1)
    got, z, err = global_outcome(lambda: getattr(x, name)())
    want, terr = torch_outcome(lambda: getattr(torch.from_numpy(a), name)())
    assert_same_on_all_ranks(str(err))
    if terr is not None:  # e.g. frac of int32: an error on every rank, as in torch
        assert err is not None, "torch raised %s" % terr
        return
    assert err is None, err
    assert close(got, want), "expected %s, got %s" % (describe(want), describe(got))
    want_sbp = "B" if sa == "P" and name not in LINEAR else sa
    assert z.sbp == nd_sbp_obj([want_sbp]), z.sbp
    if name == "positive":
        assert z is x


@pytest.mark.parametrize("sa", SBP_1D)
def test_unary_forms(sa):
    """Functions, operators, round's decimals= and a bool input, on every sbp."""
    pl = all_ranks()
    a = values((6, 4), "float32", 1) * np.float32(0.37)
    i = values((6, 4), "int64", 2)
    x = global_of(pl, [sa], a, "float32", 3)
    n = global_of(pl, [sa], i, "int64", 4)
    ta, ti = torch.from_numpy(a), torch.from_numpy(i)
    cases = {
        "-x": (-x, -ta), "+x": (+x, +ta), "abs(x)": (abs(x), abs(ta)), "~n": (~n, ~ti),
        "ctensor.exp(x)": (ctensor.exp(x), torch.exp(ta)),
        "ctensor.round(x, decimals=1)": (ctensor.round(x, decimals=1),
                                         torch.round(ta, decimals=1)),
        "x.round(decimals=-1)": (x.round(decimals=-1), ta.round(decimals=-1)),
        "n.sqrt()": (n.sqrt(), ti.sqrt()), "ctensor.neg(n)": (ctensor.neg(n), torch.neg(ti)),
        "n.logical_not()": (n.logical_not(), ti.logical_not()),
    }
    got = {k: global_np(v[0]) for k, v in cases.items()}
    for k, (_, want) in cases.items():
        assert close(got[k], want.numpy()), (k, describe(got[k]), describe(want))
    assert (+x) is x
    assert (-x).sbp == nd_sbp_obj([sa])
    assert ctensor.round(x, decimals=1).sbp == nd_sbp_obj(["B" if sa == "P" else sa])


@only4
@pytest.mark.parametrize("nd", [("P", "S1"), ("S0", "P"), ("B", "S0"), ("P", "P")],
                         ids=lambda s: "".join(s))
def test_unary_2d(nd):
    pl = Pl(MESH)
    a = values((6, 4), "float64", 5)
    x = global_of(pl, list(nd), a, "float64", 6)
    for name in ["neg", "exp", "abs"]:
        z = getattr(x, name)()
        assert close(global_np(z), getattr(torch.from_numpy(a), name)().numpy())
        want = [s if (s != "P" or name == "neg") else "B" for s in nd]
        assert z.sbp == nd_sbp_obj(want), (name, z.sbp)


def test_unary_errors():
    pl = all_ranks()
    b = ctensor.ones(2, 2, dtype=ctensor.bool).to_global(placement=pl.obj(),
                                                         sbp=ctensor.sbp.split(0))
    x = ctensor.ones(2, 2).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    with pytest.raises(RuntimeError, match="^Negation, the `-` operator, on a bool tensor"):
        -b
    with pytest.raises(RuntimeError, match="in-place operations are not supported"):
        x.exp_()
    with pytest.raises(RuntimeError, match="out= is not supported for global tensors"):
        ctensor.exp(x, out=x)
    with pytest.raises(TypeError, match=escape("exp() takes no arguments")):
        x.exp(1)
    with pytest.raises(RuntimeError, match="^Expected all tensors to be global"):
        ctensor.exp(x, out=ctensor.ones(2, 2))
    # the operator's TypeError, as for a local float tensor; integer and bool tensors invert
    with pytest.raises(TypeError, match=escape("~ (operator.invert) is only implemented on "
                                               "integer and Boolean-type tensors")):
        ~x
    assert not global_np(~b).any()  # each rank's ones are one shard of the split
    i = ctensor.tensor([[1, -2], [0, 3]]).to_global(placement=pl.obj(), sbp=ctensor.sbp.split(1))
    assert (global_np(~i) == np.tile([[-2, 1], [-1, -4]], (1, WORLD))).all()


@pytest.mark.skipif(WORLD < 2, reason="needs a second rank")
def test_unary_one_rank_differs():
    x = ctensor.ones(3).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.broadcast)
    try:
        (x.sin() if RANK == 1 else x.exp())
        got = "no error"
    except RuntimeError as e:
        got = str(e)
    assert got.startswith("global operation arguments differ across ranks"), got
    # a bad argument on one rank: its own error there, the others hear of it
    try:
        x.round(decimals="1" if RANK == 1 else 1)
        got = "no error"
    except (RuntimeError, TypeError) as e:
        got = "%s: %s" % (type(e).__name__, e)
    if RANK == 1:
        assert got.startswith("TypeError: round() received an invalid combination"), got
    else:
        assert "failed on rank 1" in got, got


# ---- reductions --------------------------------------------------------------------------------

DIMS = [None, 0, 1, -1, (0, 1), [1, 0]]


def reduced_set(dim, ndim):
    if dim is None:
        return set(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return {d % ndim for d in dims}


def expected_sbp(name, s, dim, keepdim, ndim, in_dtype, out_dtype):
    """global.h's rule, per axis."""
    red = reduced_set(dim, ndim)
    linear = name in ("sum", "mean")
    if s.startswith("S"):
        d = int(s[1:])
        if d in red:
            return "P" if linear else "B"
        return "S%d" % (d if keepdim else d - len([r for r in red if r < d]))
    if s == "P":
        fl = lambda t: t.is_floating_point or t.is_complex  # noqa: E731
        keeps = linear and ((fl(in_dtype) and fl(out_dtype)) or in_dtype == out_dtype)
        return "P" if keeps else "B"
    return "B"


def torch_reduce(name, t, dim, keepdim, **kw):
    if name in ("max", "min"):
        return getattr(t, name)()
    if dim is None and name in ("amax", "amin"):
        return getattr(t, name)(keepdim=keepdim) if keepdim else getattr(t, name)()
    if dim is None and not keepdim:
        return getattr(t, name)(**kw)
    if dim is None:  # torch 1.13 takes keepdim only with dims: name them all
        dim = tuple(range(t.dim()))
    if name in ("prod", "all", "any") and isinstance(dim, (tuple, list)):
        r = t
        for d in sorted(reduced_set(dim, t.dim()), reverse=True):
            r = getattr(r, name)(d, keepdim=keepdim)
        return r
    return getattr(t, name)(dim, keepdim=keepdim, **kw)


def call_global(name, x, dim, keepdim, **kw):
    if name in ("max", "min"):
        return getattr(x, name)()
    return getattr(x, name)(dim, keepdim=keepdim, **kw)


# (name, dim, keepdim); max and min with a dim: test_global_arg_scan.py
REDUCE_CASES = [(n, d, k) for n in ["sum", "mean", "prod", "amax", "amin", "all", "any"]
                for d in DIMS for k in (False, True)] + [("max", None, False), ("min", None, False)]


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("name,dim,keepdim", REDUCE_CASES, ids=lambda v: str(v))
def test_reduce(name, dim, keepdim, sa, dtype):
    pl = all_ranks()
    seed = zlib.crc32(("%s%s%s%s%s" % (name, dim, keepdim, sa, dtype)).encode())
    a = values((7, 5), dtype, seed)
    if name == "prod":
        a = np.where(a == 0, 1, a).astype(dtype)  # nonzero products, exact in float32
        a = np.clip(a, -2, 2).astype(dtype)
    x = global_of(pl, [sa], a, dtype, seed + 1)
    got, z, err = global_outcome(lambda: call_global(name, x, dim, keepdim))
    want, terr = torch_outcome(lambda: torch_reduce(name, torch.from_numpy(a), dim, keepdim))
    assert_same_on_all_ranks(str(err))
    if terr is not None:  # mean of int32: an error on every rank, with torch's words
        assert err == "%s: %s" % (type(terr).__name__, terr), (err, terr)
        return
    assert err is None, err
    assert close(got, want), "expected %s, got %s" % (describe(want), describe(got))
    want_sbp = expected_sbp(name, sa, None if name in ("max", "min") else dim, keepdim, 2,
                            torch.from_numpy(a).dtype, torch.from_numpy(want).dtype)
    assert z.sbp == nd_sbp_obj([want_sbp]), z.sbp


@pytest.mark.parametrize("case", [
    # (name, in dtype, sbp, dim, keepdim, dtype=, expected sbp): global.h's examples
    ("sum", "float32", "S0", None, False, None, "P"),
    ("sum", "float32", "S0", 1, False, None, "S0"),
    ("sum", "float32", "S1", 0, False, None, "S0"),
    ("sum", "float32", "S1", 0, True, None, "S1"),
    ("mean", "float32", "S0", 0, False, None, "P"),
    ("amax", "float32", "S0", 0, False, None, "B"),
    ("sum", "float32", "P", 1, False, "float64", "P"),
    ("sum", "int32", "P", 1, False, None, "B"),
    ("sum", "int32", "P", 1, False, "int32", "P"),
    ("sum", "int64", "P", None, False, None, "P"),
    ("sum", "int32", "S0", 0, False, "float64", "P"),
    ("mean", "int32", "S1", None, False, "float64", "P"),
], ids=lambda c: "-".join(str(v) for v in c))
def test_reduce_sbp_and_dtype(case):
    name, dt, sa, dim, keepdim, out_dt, want_sbp = case
    pl = all_ranks()
    a = values((7, 5), dt, 7)
    x = global_of(pl, [sa], a, dt, 8)
    kw = {} if out_dt is None else {"dtype": getattr(ctensor, out_dt)}
    tkw = {} if out_dt is None else {"dtype": getattr(torch, out_dt)}
    z = getattr(x, name)(dim, keepdim=keepdim, **kw)
    got = global_np(z)
    want = torch_reduce(name, torch.from_numpy(a), dim, keepdim, **tkw).numpy()
    assert close(got, want), (describe(got), describe(want))
    if WORLD >= 2:
        assert z.sbp == nd_sbp_obj([want_sbp]), z.sbp


@pytest.mark.parametrize("sa", SBP_1D)
def test_reduce_functions(sa):
    pl = all_ranks()
    a = values((6, 4), "float64", 9)
    x = global_of(pl, [sa], a, "float64", 10)
    ta = torch.from_numpy(a)
    cases = {
        "ctensor.sum(x)": (ctensor.sum(x), torch.sum(ta)),
        "ctensor.sum(x, 1, True)": (ctensor.sum(x, 1, True), torch.sum(ta, 1, True)),
        "ctensor.mean(x, dim=(0, 1))": (ctensor.mean(x, dim=(0, 1)), torch.mean(ta, (0, 1))),
        "ctensor.amax(x, 0)": (ctensor.amax(x, 0), torch.amax(ta, 0)),
        "ctensor.max(x)": (ctensor.max(x), torch.max(ta)),
        "ctensor.min(x)": (ctensor.min(x), torch.min(ta)),
        "ctensor.prod(x, 1)": (ctensor.prod(x, 1), torch.prod(ta, 1)),
        "ctensor.any(x > 1, 0)": (ctensor.any(x > 1, 0), torch.any(ta > 1, 0)),
        "x.sum(axis=0, keepdims=True)": (x.sum(axis=0, keepdims=True), ta.sum(0, True)),
        "x.sum(dtype=float32)": (x.sum(dtype=ctensor.float32), ta.sum(dtype=torch.float32)),
        "(x - x.mean(0)).abs().sum()": ((x - x.mean(0)).abs().sum(),
                                        (ta - ta.mean(0)).abs().sum()),
    }
    got = {k: global_np(v[0]) for k, v in cases.items()}
    for k, (_, want) in cases.items():
        assert close(got[k], want.numpy()), (k, describe(got[k]), describe(want))
    assert x.sum().item() == pytest.approx(ta.sum().item())


@only4
@pytest.mark.parametrize("nd", [("S0", "S1"), ("P", "S0"), ("S1", "P"), ("B", "S0"),
                                ("S0", "S0"), ("P", "P")], ids=lambda s: "".join(s))
@pytest.mark.parametrize("dim", [None, 0, 1], ids=str)
def test_reduce_2d(nd, dim):
    pl = Pl(MESH)
    a = values((6, 5), "float32", 11)
    x = global_of(pl, list(nd), a, "float32", 12)
    ta = torch.from_numpy(a)
    for name in ["sum", "mean", "amax"]:
        z = getattr(x, name)(dim)
        want = torch_reduce(name, ta, dim, False).numpy()
        assert close(global_np(z), want), (name, describe(want))
        exp = [expected_sbp(name, s, dim, False, 2, ta.dtype, ta.dtype) for s in nd]
        assert z.sbp == nd_sbp_obj(exp), (name, z.sbp, exp)


def test_reduce_errors():
    pl = all_ranks()
    x = ctensor.ones(7, 5).to_global(placement=pl.obj(), sbp=ctensor.sbp.split(0))
    i = ctensor.ones(7, 5, dtype=ctensor.int32).to_global(placement=pl.obj(),
                                                          sbp=ctensor.sbp.split(0))
    with pytest.raises(RuntimeError, match=escape(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            "or complex dtype. Got: Int")):
        i.mean()
    with pytest.raises(IndexError, match=escape(
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)")):
        x.sum(2)
    with pytest.raises(TypeError, match="argument 'dim' must be int"):
        x.max((0, 1))
    with pytest.raises(RuntimeError, match="out= is not supported for global tensors"):
        ctensor.sum(x, 0, out=x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        x.amax(0, dtype=ctensor.float64)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        x.sum((0, "a"))
    with pytest.raises(RuntimeError, match="^Expected all tensors to be global"):
        ctensor.sum(x, 0, out=ctensor.ones(5))


@pytest.mark.skipif(WORLD < 2, reason="needs a second rank")
def test_reduce_one_rank_differs():
    x = ctensor.ones(4, 3).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.split(0))
    outs = []
    for fn in [lambda: x.sum(1 if RANK == 1 else 0),
               lambda: x.sum(0, keepdim=RANK == 1),
               lambda: x.sum() if RANK == 1 else x.mean(),
               lambda: x.sum(dim="a" if RANK == 1 else 0)]:
        try:
            fn()
            outs.append("no error")
        except (RuntimeError, TypeError) as e:
            outs.append("%s: %s" % (type(e).__name__, e))
    for o in outs[:3]:
        assert o.startswith("RuntimeError: global operation arguments differ across ranks"), o
    if RANK == 1:
        assert outs[3].startswith("TypeError: sum(): argument 'dim'"), outs[3]
    else:
        assert "failed on rank 1" in outs[3], outs[3]
