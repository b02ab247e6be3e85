"""torch.rsub(input, other, *, alpha=1) = other - alpha * input: the ops.def row RSUB and the
function the binding generates from it, against torch 1.13 (values, promotion, errors)."""
import pytest

from test_tensor_common import same

CASES = {
    "tensor_tensor": lambda m: m.rsub(m.tensor([1, 2]), m.tensor([10, 20])),
    "number_other": lambda m: m.rsub(m.tensor([1, 2]), 5),
    "alpha": lambda m: m.rsub(m.tensor([1, 2]), 5, alpha=2),
    "alpha_keyword_other": lambda m: m.rsub(m.tensor([1.5]), other=m.tensor([4.0]), alpha=-1),
    "promotion": lambda m: m.rsub(m.tensor([1, 2], dtype=m.int8), 2.5),
    "broadcast": lambda m: m.rsub(m.ones(2, 1), m.tensor([1.0, 2.0, 3.0])),
    "float_alpha_int": lambda m: m.rsub(m.tensor([1]), m.tensor([1]), alpha=1.5),
    "bool_bool": lambda m: m.rsub(m.tensor([True]), m.tensor([True])),
    "bool_one": lambda m: m.rsub(m.tensor([1]), m.tensor([True])),
    "shape_mismatch": lambda m: m.rsub(m.ones(3), m.ones(4)),
}


@pytest.mark.parametrize("name", CASES)
def test_rsub(name):
    same(CASES[name])
