"""neg on complex32 (chalf) against PyTorch 1.13, bit for bit: 1.13 negates each float16 part
through float32 (c10::Half's operator-), so NaNs come out as float16's canonical quiet NaN with
the sign flipped; the other unary ops on complex32 stay refused with 1.13's message."""
import warnings

import pytest

import ctensor
import torch
from test_tensor_common import same

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

PARTS = [0.0, -0.0, 1.0, -1.5, 65504.0, 6e-8, float("inf"), float("-inf"), float("nan")]


def grid(L):
    vals = [complex(r, i) for r in PARTS for i in PARTS]
    return L.tensor(vals, dtype=L.complex64).to(L.complex32)


def bits(L, t):
    return t.contiguous().view(L.int16).tolist()


CASES = {
    "neg": lambda L: bits(L, L.neg(grid(L))),
    "operator": lambda L: bits(L, -grid(L)),
    "method": lambda L: bits(L, grid(L).neg()),
    "in_place": lambda L: bits(L, grid(L).neg_()),
    "strided": lambda L: bits(L, grid(L)[::3].neg()),
    "out": lambda L: bits(L, L.neg(grid(L), out=L.empty(81, dtype=L.complex32))),
    "zero_dim": lambda L: bits(L, L.neg(L.tensor(1 - 2j, dtype=L.complex32))),
    "empty": lambda L: L.neg(L.zeros(0, 3, dtype=L.complex32)).shape,
    "to_complex64_out": lambda L: L.neg(grid(L), out=L.empty(81, dtype=L.complex64)).tolist(),
    "sqrt_refused": lambda L: L.sqrt(grid(L)),
    "exp_refused": lambda L: L.exp(grid(L)),
}


@pytest.mark.parametrize("name", CASES)
def test_complex32_neg(name):
    same(CASES[name])
