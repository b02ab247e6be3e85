"""max / min with a dim (values and indices), argmax / argmin and cumsum / cumprod of global
tensors against torch 1.13 on the logical values (computed on every rank): the logical result,
every rank's local component (the slice of the torch result its sbp says it holds), and the
sbp global.h promises (OneFlow's reduce_max / argmax / cumsum signatures: a split of the
reduced or scanned dim is gathered to broadcast, another split stays, renumbered when keepdim
is false; partial_sum is reduced first, except through cumsum when it commutes with the sum).
Inputs have many ties and, in float, NaN: torch's index of the first extreme, a NaN winning."""
import zlib

import numpy as np
import pytest

import ctensor
from dist_util import (RANK, WORLD, Pl, all_ranks, assert_same_on_all_ranks, box, describe,
                       global_np, nd_sbp_obj)
from test_global_arith import SBP_1D, global_of
from test_global_unary_reduce import close, global_outcome, torch_outcome

torch = pytest.importorskip("torch")

MESH = [[0, 1], [2, 3]]
only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")
SHAPE = (7, 5)


def values(dtype, seed, nan=True):
    """Few distinct values (ties in every row and column); float32: NaN in a few places."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, SHAPE)
    if dtype == "int64":
        return a.astype("int64")
    a = (a * 0.5).astype(dtype)
    if nan:
        a[1, 3] = np.nan
        a[4, 0] = np.nan
        a[4, 2] = np.nan
    return a


def expected_sbp(kind, s, dim, keepdim, ndim, in_dtype=None, out_dtype=None):
    """global.h's rule for one hierarchy axis of the input."""
    d = None if dim is None else dim % ndim
    if s == "B":
        return "B"
    if s == "P":
        fl = lambda t: t.is_floating_point or t.is_complex  # noqa: E731
        keeps = kind == "cumsum" and ((fl(in_dtype) and fl(out_dtype)) or in_dtype == out_dtype)
        return "P" if keeps else "B"
    j = int(s[1:])
    if d is None or j == d:
        return "B"
    if kind in ("cumsum", "cumprod") or keepdim or j < d:
        return s
    return "S%d" % (j - 1)


def check_locals(z, want, pl, names):
    """This rank's local component against its slice of `want` (split and broadcast axes
    only: a partial_sum output's parts are its own business)."""
    if "P" in names or pl.pid() < 0:
        return None
    got = z.to_local().numpy()
    exp = np.array(np.asarray(want)[box(want.shape, pl, names, pl.pid())])
    if not close(got, exp):
        return "rank %d local: expected %s, got %s" % (RANK, describe(exp), describe(got))
    return None


def run_case(pl, names, dtype, seed, call_g, call_t, kind, dim, keepdim=False):
    """Collectives first (the op, the logical values), assertions last."""
    a = values(dtype, seed)
    x = global_of(pl, names, a, dtype, seed + 1)
    ta = torch.from_numpy(a)
    try:
        r = call_g(x)
        err = None
    except Exception as e:  # noqa: BLE001 - the error is the result
        r, err = None, "%s: %s" % (type(e).__name__, e)
    assert_same_on_all_ranks(str(err))
    want, terr = torch_outcome_multi(lambda: call_t(ta))
    if terr is not None:
        assert err == "%s: %s" % (type(terr).__name__, terr), (err, terr)
        return
    assert err is None, err
    outs = list(r) if isinstance(r, tuple) else [r]
    got = [global_np(z) for z in outs]
    problems = []
    for z, g, w in zip(outs, got, want):
        exp_names = [expected_sbp(kind, s, dim, keepdim, a.ndim, ta.dtype,
                                  torch.from_numpy(w).dtype) for s in names]
        if not close(g, w):
            problems.append("logical: expected %s, got %s" % (describe(w), describe(g)))
        if z.sbp != nd_sbp_obj(exp_names):
            problems.append("sbp %s, expected %s" % (z.sbp, exp_names))
        if z.placement != pl.obj():
            problems.append("placement %s" % z.placement)
        p = check_locals(z, w, pl, exp_names)
        if p:
            problems.append(p)
    assert not problems, problems


def torch_outcome_multi(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001
        return None, e
    if isinstance(r, tuple):
        return [t.numpy() for t in r], None
    return [r.numpy()], None


# ---- max / min with a dim --------------------------------------------------------------------

# every dim once, each keepdim twice (the suite runs on 4 oversubscribed ranks: kept small)
DIM_CASES = [(0, False), (1, True), (-1, False), (-2, True)]


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim,keepdim", DIM_CASES, ids=str)
def test_max_dim(name, dim, keepdim, sa, dtype):
    seed = zlib.crc32(("%s%s%s%s%s" % (name, dim, keepdim, sa, dtype)).encode())
    run_case(all_ranks(), [sa], dtype, seed,
             lambda x: getattr(x, name)(dim, keepdim=keepdim),
             lambda t: tuple(getattr(t, name)(dim, keepdim=keepdim)), name, dim, keepdim)


# ---- argmax / argmin ------------------------------------------------------------------------

ARG_CASES = [(None, False), (None, True), (0, True), (-1, True)] + DIM_CASES


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dim,keepdim", ARG_CASES, ids=str)
def test_argmax(name, dim, keepdim, sa, dtype):
    seed = zlib.crc32(("%s%s%s%s%s" % (name, dim, keepdim, sa, dtype)).encode())
    run_case(all_ranks(), [sa], dtype, seed,
             lambda x: getattr(x, name)(dim, keepdim=keepdim),
             lambda t: getattr(t, name)(dim, keepdim=keepdim), name, dim, keepdim)


# ---- cumsum / cumprod -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype,out_dtype", [("float32", None), ("int64", None),
                                             ("int64", "float32")], ids=str)
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, -1], ids=str)
def test_cumulative(name, dim, sa, dtype, out_dtype):
    seed = zlib.crc32(("%s%s%s%s%s" % (name, dim, sa, dtype, out_dtype)).encode())
    kw = {} if out_dtype is None else {"dtype": getattr(ctensor, out_dtype)}
    tkw = {} if out_dtype is None else {"dtype": getattr(torch, out_dtype)}
    run_case(all_ranks(), [sa], dtype, seed,
             lambda x: getattr(x, name)(dim, **kw),
             lambda t: getattr(t, name)(dim, **tkw), name, dim)


# ---- the 2x2 mesh ---------------------------------------------------------------------------


@only4
@pytest.mark.parametrize("nd", [("S0", "S1"), ("P", "S1"), ("S0", "P"), ("S1", "S1")],
                         ids="".join)
@pytest.mark.parametrize("case", ["max0", "min1k", "argmax", "argmin-1", "cumsum0",
                                  "cumprod-1"])
def test_mesh(nd, case):
    calls = {
        "max0": (lambda x: x.max(0), lambda t: tuple(t.max(0)), "max", 0, False),
        "min1k": (lambda x: x.min(1, True), lambda t: tuple(t.min(1, True)), "min", 1, True),
        "argmax": (lambda x: x.argmax(), lambda t: t.argmax(), "argmax", None, False),
        "argmin-1": (lambda x: x.argmin(-1), lambda t: t.argmin(-1), "argmin", -1, False),
        "cumsum0": (lambda x: x.cumsum(0), lambda t: t.cumsum(0), "cumsum", 0, False),
        "cumsum1": (lambda x: x.cumsum(1), lambda t: t.cumsum(1), "cumsum", 1, False),
        "cumprod-1": (lambda x: x.cumprod(-1), lambda t: t.cumprod(-1), "cumprod", -1, False),
    }
    g, t, kind, dim, keepdim = calls[case]
    run_case(Pl(MESH), list(nd), "float32", zlib.crc32((case + "".join(nd)).encode()), g, t,
             kind, dim, keepdim)


# ---- forms: functions, keywords, named tuples -------------------------------------------------


@pytest.mark.parametrize("sa", SBP_1D)
def test_forms(sa):
    pl = all_ranks()
    a = values("float32", 21, nan=False)
    x = global_of(pl, [sa], a, "float32", 22)
    y = global_of(pl, [sa], values("float32", 23, nan=False), "float32", 24)
    ta, ty = torch.from_numpy(a), torch.from_numpy(values("float32", 23, nan=False))
    m = ctensor.max(x, dim=1)
    cases = {
        "ctensor.max(x, dim=1).values": (m.values, torch.max(ta, dim=1).values),
        "ctensor.max(x, dim=1).indices": (m.indices, torch.max(ta, dim=1).indices),
        "ctensor.min(x, 0, True)[0]": (ctensor.min(x, 0, True)[0], torch.min(ta, 0, True)[0]),
        "ctensor.min(x, 0, keepdim=True)[1]": (ctensor.min(x, 0, keepdim=True)[1],
                                               torch.min(ta, 0, keepdim=True)[1]),
        "ctensor.argmax(x)": (ctensor.argmax(x), torch.argmax(ta)),
        "ctensor.argmin(x, dim=-1, keepdim=True)": (ctensor.argmin(x, dim=-1, keepdim=True),
                                                    torch.argmin(ta, dim=-1, keepdim=True)),
        "ctensor.argmax(input=x, dim=0)": (ctensor.argmax(input=x, dim=0),
                                           torch.argmax(input=ta, dim=0)),
        "ctensor.cumsum(x, 0)": (ctensor.cumsum(x, 0), torch.cumsum(ta, 0)),
        "ctensor.cumprod(x, dim=1, dtype=float64)": (
            ctensor.cumprod(x, dim=1, dtype=ctensor.float64),
            torch.cumprod(ta, dim=1, dtype=torch.float64)),
        "x.cumsum(dim=-1)": (x.cumsum(dim=-1), ta.cumsum(dim=-1)),
        "x.max()": (x.max(), ta.max()),
        "ctensor.min(x)": (ctensor.min(x), torch.min(ta)),
        "x.max(y)": (x.max(y), ta.max(ty)),
        "ctensor.min(x, y)": (ctensor.min(x, y), torch.min(ta, ty)),
        "x.argmax(keepdim=True)": (x.argmax(keepdim=True), ta.argmax(keepdim=True)),
    }
    got = {k: global_np(v[0]) for k, v in cases.items()}
    for k, (_, want) in cases.items():
        assert close(got[k], want.numpy()), (k, describe(got[k]), describe(want))
    assert type(m).__name__ == "max" and isinstance(m, tuple) and len(m) == 2
    assert type(m.values).__name__ == "GlobalTensor" and m.indices.dtype == ctensor.int64
    assert m.values.sbp == m.indices.sbp


def test_errors():
    pl = all_ranks()
    x = ctensor.ones(7, 5).to_global(placement=pl.obj(), sbp=ctensor.sbp.split(0))
    e = ctensor.ones(3, 0).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    outs = []
    for fn in [lambda: x.max(2), lambda: x.argmax(-3), lambda: x.cumsum(5),
               lambda: e.max(1), lambda: e.argmax(), lambda: x.max(0, out=None, keepdim=1),
               lambda: ctensor.max(x, 0, out=(x, x)), lambda: x.cumsum(),
               lambda: ctensor.cumsum(x, 0, out=x), lambda: x.argmax(dim="a")]:
        try:
            fn()
            outs.append("no error")
        except Exception as err:  # noqa: BLE001
            outs.append("%s: %s" % (type(err).__name__, err))
    assert_same_on_all_ranks("\n".join(outs))
    assert outs[0] == "IndexError: Dimension out of range (expected to be in range of [-2, 1], " \
                      "but got 2)", outs[0]
    assert outs[3] == "IndexError: max(): Expected reduction dim 1 to have non-zero size.", outs[3]
    assert outs[4].startswith("IndexError: argmax(): Expected reduction dim to be specified"), \
        outs[4]
    assert outs[1] == "IndexError: Dimension out of range (expected to be in range of [-2, 1], " \
                      "but got -3)", outs[1]
    assert outs[2] == "IndexError: Dimension out of range (expected to be in range of [-2, 1], " \
                      "but got 5)", outs[2]
    assert outs[5] == "TypeError: max() got an unexpected keyword argument 'out'", outs[5]
    assert "out= is not supported for global tensors" in outs[6], outs[6]
    assert outs[7] == "TypeError: cumsum() missing required argument 'dim'", outs[7]
    assert "out= is not supported for global tensors" in outs[8], outs[8]
    assert outs[9].startswith("TypeError: argmax(): argument 'dim' must be int"), outs[9]


@pytest.mark.skipif(WORLD < 2, reason="needs a second rank")
def test_one_rank_differs():
    x = ctensor.ones(4, 3).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.split(0))
    outs = []
    for fn in [lambda: x.max(1 if RANK == 1 else 0),
               lambda: x.argmax(0, keepdim=RANK == 1),
               lambda: x.cumsum(0) if RANK == 1 else x.cumprod(0),
               lambda: x.argmin() if RANK == 1 else x.argmax(),
               lambda: x.max(dim="a" if RANK == 1 else 0),
               lambda: x.cumsum(5 if RANK == 1 else 0)]:
        try:
            fn()
            outs.append("no error")
        except (RuntimeError, TypeError, IndexError) as e:
            outs.append("%s: %s" % (type(e).__name__, e))
    for o in outs[:4]:
        assert o.startswith("RuntimeError: global operation arguments differ across ranks"), o
    if RANK == 1:
        assert outs[4].startswith("TypeError: max(): argument 'dim' must be int"), outs[4]
    else:
        assert "failed on rank 1" in outs[4], outs[4]
    # a dim out of range on one rank only: the arguments differ, every rank fails
    assert outs[5].startswith("RuntimeError: global operation arguments differ"), outs[5]
