"""pow remainder fmod atan2 hypot, the bitwise ops and shifts, and the logical ops on global
tensors (the functions and the operators ** % & | ^ << >>) against torch 1.13 on the logical
values: a partial-sum operand never stays partial through them (ops.def's partial column
NONE), so the values are those of the summed tensor."""
import operator
import zlib

import numpy as np
import pytest

import ctensor
from dist_util import WORLD, all_ranks, describe, global_np, nd_sbp_obj, same_values
from test_global_arith import SBP_1D, global_of, operands, torch_ref

torch = pytest.importorskip("torch")

FUNCS = {"float32": ["pow", "remainder", "fmod", "atan2", "hypot", "logical_and", "logical_xor"],
         "int64": ["pow", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
                   "bitwise_left_shift", "bitwise_right_shift", "logical_or"]}
SYMBOLS = {"pow": operator.pow, "remainder": operator.mod, "bitwise_and": operator.and_,
           "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
           "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift}


@pytest.mark.parametrize("sb", SBP_1D)
@pytest.mark.parametrize("sa", SBP_1D)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_functions_1d(dtype, sa, sb):
    pl = all_ranks()
    for op in FUNCS[dtype]:
        seed = zlib.crc32(("%s%s%s%s" % (op, sa, sb, dtype)).encode())
        a, b = operands((7, 5), (7, 5), dtype, dtype, seed, divisor=True)
        if op == "pow" and dtype == "int64":
            b = np.abs(b)
        x = global_of(pl, [sa], a, dtype, seed + 1)
        y = global_of(pl, [sb], b, dtype, seed + 2)
        z = getattr(ctensor, op)(x, y)
        got, ref = global_np(z), torch_ref(op, a, b)
        assert tuple(z.shape) == (7, 5)
        # float pow atan2 hypot: libm here, SLEEF in torch (within 1 ulp)
        match = same_values if dtype != "float32" or op not in ("pow", "atan2", "hypot") else \
            (lambda g, r: g.dtype == r.dtype and np.allclose(g, r, rtol=2e-7, atol=0,
                                                             equal_nan=True))
        assert match(got, ref), "%s: expected %s, got %s" % (op, describe(ref), describe(got))
        if op in SYMBOLS:
            got = global_np(SYMBOLS[op](x, y))
            assert match(got, ref), op
        if WORLD >= 2:
            assert nd_sbp_obj(["P"]) != z.sbp  # never partial


@pytest.mark.parametrize("sa", SBP_1D)
def test_operators_with_numbers(sa):
    pl = all_ranks()
    a, _ = operands((6, 3), (6, 3), "int64", "int64", seed=7)
    x = global_of(pl, [sa], a, "int64", 8)
    ta = torch.from_numpy(np.ascontiguousarray(a))
    for f in (lambda t: t ** 2, lambda t: t % 3, lambda t: 3 % (t * 0 + 5),
              lambda t: t & 6, lambda t: 6 | t, lambda t: t ^ 5, lambda t: t << 2,
              lambda t: 1 << (t * 0 + 3), lambda t: t >> 1):
        assert same_values(global_np(f(x)), f(ta).numpy())
    with pytest.raises(RuntimeError, match="in-place operations are not supported"):
        x **= 2
