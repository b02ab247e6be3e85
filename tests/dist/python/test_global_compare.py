"""Comparisons and maximum / minimum on global tensors (ctensor.eq(x, y), ...: the functions;
GlobalTensor has no comparison operators or methods yet) against torch 1.13 on the logical
values: a partial-sum operand never stays partial through a comparison (the sum of the
comparisons is not the comparison of the sums: ops.def's partial column NONE), so the values
are those of the summed tensor."""
import zlib

import pytest

import ctensor
from dist_util import WORLD, all_ranks, describe, global_np, nd_sbp_obj, same_values
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
