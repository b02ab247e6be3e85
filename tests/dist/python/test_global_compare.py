"""Comparisons and maximum / minimum on global tensors (the functions ctensor.eq(x, y), ...,
the operators == != < <= > >= and the GlobalTensor methods with torch's aliases) against torch
1.13 on the logical values: a partial-sum operand never stays partial through a comparison (the
sum of the comparisons is not the comparison of the sums: ops.def's partial column NONE), so
the values are those of the summed tensor. Also bool(x), the operands the operators refuse, and
OneFlow's compatibility mode, all alike on every rank."""
import zlib

import numpy as np
import pytest

import ctensor

from dist_util import (RANK, WORLD, all_ranks, assert_same_on_all_ranks, describe, escape,
                       global_np, nd_sbp_obj, same_values)
from test_global_arith import SBP_1D, global_of, operands, torch_ref

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("sb", SBP_1D)
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "ge", "maximum", "fmin"])
def test_compare_1d(op, sa, sb):
    pl = all_ranks()
    seed = zlib.crc32(("%s%s%s" % (op, sa, sb)).encode())
    a, b = operands((7, 5), (7, 5), "float32", "float32", seed)
    x = global_of(pl, [sa], a, "float32", seed + 1)
    y = global_of(pl, [sb], b, "float32", seed + 2)
    z = getattr(ctensor, op)(x, y)
    got, ref = global_np(z), torch_ref(op, a, b)
    assert tuple(z.shape) == (7, 5)
    assert same_values(got, ref), "expected %s, got %s" % (describe(ref), describe(got))
    if WORLD >= 2:
        assert nd_sbp_obj(["P"]) != z.sbp  # never partial
        if sa == sb and sa != "P":
            assert z.sbp == nd_sbp_obj([sa]), z.sbp


@pytest.mark.parametrize("sa", SBP_1D)
def test_compare_scalar(sa):
    pl = all_ranks()
    a, _ = operands((6, 3), (6, 3), seed=5)
    x = global_of(pl, [sa], a, "float32", 6)
    z = ctensor.lt(x, 0.5)
    assert same_values(global_np(z), torch_ref("lt", a, 0.5))
    if WORLD >= 2:
        assert nd_sbp_obj(["P"]) != z.sbp


OPERATORS = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__",
             "ge": "__ge__"}


@pytest.mark.parametrize("sb", SBP_1D)
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operators(op, sa, sb):
    pl = all_ranks()
    seed = zlib.crc32(("op%s%s%s" % (op, sa, sb)).encode())
    a, b = operands((7, 5), (7, 5), "float32", "float32", seed)
    b[::2] = a[::2]  # equal elements too
    x = global_of(pl, [sa], a, "float32", seed + 1)
    y = global_of(pl, [sb], b, "float32", seed + 2)
    z = getattr(x, OPERATORS[op])(y)
    assert type(z) is ctensor.GlobalTensor and z.dtype == ctensor.bool
    got, ref = global_np(z), torch_ref(op, a, b)
    assert same_values(got, ref), "expected %s, got %s" % (describe(ref), describe(got))
    if WORLD >= 2:
        assert z.sbp != nd_sbp_obj(["P"])
        if sa == sb and sa != "P":
            assert z.sbp == nd_sbp_obj([sa]), z.sbp


@pytest.mark.parametrize("sa", SBP_1D)
def test_operator_forms(sa):
    """x < 2, 2 < x (Python reflects it to x > 2), the methods and their aliases, maximum
    ... fmin as methods: the same values as torch."""
    pl = all_ranks()
    a, b = operands((6, 4), (6, 4), seed=11)
    x = global_of(pl, [sa], a, "float32", 12)
    y = global_of(pl, ["B"], b, "float32", 13)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    cases = {
        "x<1": (x < 1, ta < 1), "1<x": (1 < x, 1 < ta), "x==0.5": (x == 0.5, ta == 0.5),
        "2!=x": (2 != x, 2 != ta), "x>=y": (x >= y, ta >= tb), "x.le(y)": (x.le(y), ta.le(tb)),
        "x.less(y)": (x.less(y), ta.less(tb)), "x.not_equal(1)": (x.not_equal(1), ta.ne(1)),
        "x.greater_equal(y)": (x.greater_equal(y), ta >= tb),
        "x.maximum(y)": (x.maximum(y), ta.maximum(tb)), "x.fmin(y)": (x.fmin(y), ta.fmin(tb)),
        "ctensor.gt(x, 0)": (ctensor.gt(x, 0), torch.gt(ta, 0)),
        "ctensor.minimum(x, y)": (ctensor.minimum(x, y), torch.minimum(ta, tb)),
    }
    got = {k: global_np(v[0]) for k, v in cases.items()}
    for k, (_, want) in cases.items():
        assert same_values(got[k], want.numpy()), (k, describe(got[k]), describe(want))
    # a number keeps the tensor's sbp, except that a partial sum is reduced first
    assert cases["x<1"][0].sbp == nd_sbp_obj(["B" if sa == "P" else sa])


def test_bool():
    pl = all_ranks()
    one = ctensor.tensor([2.0]).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    many = ctensor.ones(3).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    assert bool(one > 1) and not bool(one < 1)
    assert (1 if one == 2 else 0) == 1
    with pytest.raises(RuntimeError, match=escape(
            "Boolean value of Tensor with more than one value is ambiguous")):
        bool(many)
    with pytest.raises(RuntimeError, match="no values"):
        bool(ctensor.ones(0).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast))


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return "%s: %s" % (type(e).__name__, e)
    return repr(r) if isinstance(r, bool) else "a %s" % type(r).__name__


def test_other_operands():
    pl = all_ranks()
    x = ctensor.ones(2, 2).to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast)
    got = [outcome(lambda: x == None), outcome(lambda: x != "a"),  # noqa: E711
           outcome(lambda: x < "a"), outcome(lambda: [1] >= x), outcome(lambda: x == x),
           outcome(lambda: ctensor.maximum(x, 2)), outcome(lambda: x.fmax(1.5))]
    assert_same_on_all_ranks("\n".join(got))
    assert got[:3] == ["False", "True", "TypeError: '<' not supported between instances of "
                                         "'ctensor.GlobalTensor' and 'str'"]
    assert got[3].startswith("TypeError: '<=' not supported")
    assert got[4] == "a GlobalTensor"
    assert got[5].startswith("TypeError: maximum(): argument 'other' must be Tensor")
    assert got[6].startswith("TypeError: fmax(): argument 'other' must be Tensor")
    # a local tensor with a global one, on either side
    t = ctensor.ones(2, 2)
    for fn in [lambda: x == t, lambda: t < x, lambda: x.eq(t), lambda: ctensor.ge(t, x)]:
        with pytest.raises(RuntimeError, match="^Expected all tensors to be global"):
            fn()
    with pytest.raises(RuntimeError, match="in-place operations are not supported"):
        x.eq_(x)
    # hashable by identity, as local tensors
    assert len({x, x}) == 1


class Cmp:
    """A Python class with its own comparison decides against a global tensor."""

    def __eq__(self, other):
        return "Cmp.__eq__"

    def __gt__(self, other):
        return "Cmp.__gt__"


def test_python_class_decides():
    x = ctensor.ones(2).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.broadcast)
    assert (x == Cmp()) == "Cmp.__eq__"
    assert (x < Cmp()) == "Cmp.__gt__"


@pytest.mark.skipif(WORLD < 2, reason="needs a second rank")
def test_one_rank_compares_with_none():
    """x == None on one rank while the others compare with a tensor: every rank raises."""
    x = ctensor.ones(2).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.broadcast)
    got = outcome(lambda: x == (None if RANK == 1 else x))
    assert got.startswith("RuntimeError: global operation arguments differ across ranks"), got


@pytest.mark.skipif(WORLD < 2, reason="needs a second rank")
def test_one_rank_bad_operand():
    x = ctensor.ones(2).to_global(placement=all_ranks().obj(), sbp=ctensor.sbp.broadcast)
    got = outcome(lambda: x < ("a" if RANK == 1 else 1))
    if RANK == 1:
        assert got.startswith("TypeError: '<' not supported"), got
    else:
        assert "failed on rank 1" in got and "not supported" in got, got


@pytest.mark.parametrize("sa", ["S0", "B", "P"])
def test_compat_mode_zero_dim(sa):
    """OneFlow's mode (compat.h): a zero-dim int64 operand promotes like a dimensioned one, so
    int8 == 259 compares in int64 (nothing equal) where PyTorch compares in int8 (259 wraps to
    3): the global comparison follows the mode as the local one does."""
    pl = all_ranks()
    a = np.array([[1, 3, 5], [3, -2, 7]], dtype=np.int8)
    x = ctensor.tensor(a)
    g = x.to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast, copy=True)
    if sa != "B":
        g = g.to_global(sbp=nd_sbp_obj([sa]))
    y = ctensor.tensor(259)
    gy = y.to_global(placement=pl.obj(), sbp=ctensor.sbp.broadcast, copy=True)
    before = ctensor.get_compat_mode()
    try:
        results = {}
        for mode in ["pytorch", "oneflow"]:
            ctensor.set_compat_mode(mode)
            results[mode] = (global_np(g == gy), (x == y).numpy(), (g + gy).dtype)
    finally:
        ctensor.set_compat_mode(before)
    assert same_values(results["pytorch"][0], results["pytorch"][1])
    assert same_values(results["oneflow"][0], results["oneflow"][1])
    assert results["pytorch"][0].sum() == 2 and results["oneflow"][0].sum() == 0
    assert results["pytorch"][2] == ctensor.int8 and results["oneflow"][2] == ctensor.int64
