"""Element-wise add, sub, mul and div against torch 1.13, differentially: common
dtype, division, scalar range checks, output casting and output strides (docs/elementwise.md).

Every case runs the same call in ctensor and in torch and compares the outcomes
(arith_util.check_case): result dtype, shape, strides, storage offset, device; values (integers
and bool bitwise, floats bitwise where PyTorch rounds exactly, else within the ulps
arith_util.tolerance documents); NaN positions; the identity of in-place and out= results;
warnings; and for errors the exception type and message.

Operands: random broadcasting shapes with zero-size and 0-dim tensors; contiguous, permuted,
transposed, sliced with steps and offsets, expanded (stride 0) and channels_last inputs; the
13 dtypes torch 1.13 shares with ctensor; Python scalars (bool, int incl. negative and large,
float incl. inf / nan, complex) on either side. Ops: add / sub (with alpha), mul, div (rounding
modes None, 'trunc', 'floor'), each as ctensor.op(...), Tensor.op(...), the operator and the
reflected operator, out=, Tensor.op_(...) and the in-place operator.

Also here: result_type on tensors, Python scalars and 0-dim tensors; the default dtype (int /
int, float and complex scalars under set_default_dtype). Companions: test_arith_rules_vs_torch.py
(single rules, bitwise), test_arith_errors_vs_torch.py (errors, warnings, devices),
test_arith_isa_levels.py (each SIMD level), test_seed_promotion_examples.py (the seed pages).

Hypothesis runs derandomized (the same examples every run) with no example database.
"""
import itertools
import math

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import ctensor
import torch
from arith_strategies_util import cases
from arith_compare_util import check_case
from arith_util import (DTYPES, OP_FORMS, VARIANTS, Case, applicable, dname, int_min_hazard,
                        op_form_id, realize, safe, scalar, tensor)

FEW = settings(max_examples=25, derandomize=True)
SOME = settings(max_examples=60, derandomize=True)
MANY = settings(max_examples=250, derandomize=True)


def check(case):
    """check_case, for cases that would not make torch divide INT_MIN by -1 (SIGFPE)."""
    assume(not int_min_hazard(case, realize(torch, case.a), realize(torch, case.b)))
    ct = check_case(case)
    event("raised" if ct.error else "computed")
    return ct


# ---- random cases -------------------------------------------------------------------------

@MANY
@given(case=cases())
def test_random_cases_match_torch(case):
    check(case)


OPS = ["add", "sub", "mul", "div"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("op", OPS)
@FEW
@given(data=st.data())
def test_each_op_and_variant_matches_torch(op, variant, data):
    kinds = [("tensor", "tensor"), ("tensor", "tensor"), ("tensor", "scalar")]
    if not variant.startswith("inplace") and variant != "method":
        kinds.append(("scalar", "tensor"))  # the reflected operator, ctensor.add(5, t)
    case = data.draw(cases(ops=[op], variants=[variant], kinds=kinds))
    if variant not in applicable(case.op, case.alpha, case.mode, case.a.kind, case.b.kind):
        # e.g. div with rounding_mode='trunc' has no operator: the function form instead
        assume(False)
    assert case.variant == variant
    check(case)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"], ids=["true", "trunc", "floor"])
@SOME
@given(data=st.data())
def test_div_rounding_modes_match_torch(mode, data):
    check(data.draw(cases(ops=["div"], modes=[mode])))


@SOME
@given(case=cases(kinds=[("tensor", "tensor")], mismatch=False, max_dims=4,
                  layouts=["contiguous", "channels_last", "permuted", "expanded"]))
def test_output_strides_match_torch(case):
    """Stride propagation: contiguous, channels_last, permuted and expanded inputs of
    up to 4 dims."""
    check(case)


@SOME
@given(case=cases(kinds=[("tensor", "scalar"), ("scalar", "tensor"), ("scalar", "scalar")]))
def test_python_scalars_match_torch(case):
    check(case)


# ---- every dtype pair, deterministically ------------------------------------------------------

@pytest.mark.parametrize("form", OP_FORMS, ids=[op_form_id(f) for f in OP_FORMS])
def test_every_dtype_pair_matches_torch(form):
    """All 13 x 13 dtype pairs: (2,3) + (3,), (2,3) + 0-dim, 0-dim + (3,) (transposed and
    sliced operands among them). Divisors without integral zeros (ZeroDivisionError has its
    own tests); a pair torch refuses is checked once."""
    op, alpha, mode = form
    nz = op == "div"
    for i, (x, y) in enumerate(itertools.product(DTYPES, DTYPES)):
        pairs = [(tensor(x, (3, 2), i, [("permute", (1, 0))]), tensor(y, (3,), i + 1, nonzero=nz)),
                 (tensor(x, (2, 3), i + 2), tensor(y, (), i + 3, nonzero=nz)),
                 (tensor(x, (), i + 4), tensor(y, (7,), i + 5, [("slice", ((1, 7, 2),))],
                                               nonzero=nz))]
        for a, b in pairs:
            if check_case(safe(Case(op, a, b, "function", alpha, mode))).error:
                break


@pytest.mark.parametrize("form", OP_FORMS, ids=[op_form_id(f) for f in OP_FORMS])
def test_every_dtype_with_every_kind_of_scalar_matches_torch(form):
    op, alpha, mode = form
    scalars = [True, False, 0, 3, -7, 300, -2**31, 2**40, 1.5, -0.0, math.inf, math.nan, 0.1,
               2j, 1.5 - 0.5j]
    for i, x in enumerate(DTYPES):
        for s in scalars:
            if op == "div" and s in (0, False) and not isinstance(s, float):
                continue  # ZeroDivisionError: tested on its own
            t = tensor(x, (5,), i, nonzero=op == "div")
            for a, b in [(t, scalar(s)), (scalar(s), t)]:
                check_case(safe(Case(op, a, b, "function", alpha, mode)))


@pytest.mark.parametrize("form", OP_FORMS, ids=[op_form_id(f) for f in OP_FORMS])
def test_in_place_and_out_casting_for_every_dtype_pair(form):
    """self.op_(other) and out= for all 13 x 13 (self / out dtype, other dtype) pairs: the
    allowed casts compute and convert, the others raise "result type X can't be cast to the
    desired output type Y"."""
    op, alpha, mode = form
    nz = op == "div"
    for i, (x, y) in enumerate(itertools.product(DTYPES, DTYPES)):
        check_case(safe(Case(op, tensor(x, (2, 3), i), tensor(y, (3,), i + 1, nonzero=nz),
                             "inplace", alpha, mode)))
        check_case(safe(Case(op, tensor(y, (3,), i), tensor(y, (2, 1), i + 1, nonzero=nz),
                             "out", alpha, mode, out=tensor(x, (2, 3), i + 2))))

# ---- result_type on tensors -----------------------------------------------------------------

@st.composite
def result_type_operands(draw):
    kind = draw(st.sampled_from(["tensor", "zero_dim", "scalar"]))
    if kind == "scalar":
        return scalar(draw(st.one_of(st.booleans(), st.integers(-2**63, 2**63 - 1),
                                     st.floats(), st.complex_numbers(max_magnitude=10))))
    return tensor(draw(st.sampled_from(DTYPES)), (2,) if kind == "tensor" else (), 0)


@SOME
@given(a=result_type_operands(), b=result_type_operands(),
       default=st.sampled_from(["float32", "float64", "float16", "bfloat16"]))
def test_result_type_on_tensors_matches_torch(a, b, default):
    from test_tensor_common import same
    ctensor.set_default_dtype(getattr(ctensor, default))
    torch.set_default_dtype(getattr(torch, default))
    same(lambda L: dname(L.result_type(realize(L, a), realize(L, b))))


# ---- the default dtype ----------------------------------------------------------------------

@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
@FEW
@given(case=cases(ops=["div", "add", "mul"], dtypes=["bool", "uint8", "int32", "int64",
                                                     "float32", "complex64"]))
def test_cases_under_another_default_dtype(default, case):
    """int / int gives the default dtype; float scalars with integral tensors too; complex
    scalars the default complex dtype. Set in both libraries (conftest restores it)."""
    ctensor.set_default_dtype(getattr(ctensor, default))
    torch.set_default_dtype(getattr(torch, default))
    check(case)


@pytest.mark.parametrize("default", ["float32", "float64", "float16", "bfloat16"])
def test_integer_true_division_gives_the_default_dtype(default):
    ctensor.set_default_dtype(getattr(ctensor, default))
    torch.set_default_dtype(getattr(torch, default))
    for x, y in [("int32", "int32"), ("int64", "uint8"), ("bool", "bool"), ("int8", "bool")]:
        for variant in ["function", "operator", "method"]:
            check_case(Case("div", tensor(x, (4,), 1), tensor(y, (4,), 2), variant))
        check_case(Case("div", tensor(x, (4,), 1), scalar(3), "operator"))
        check_case(Case("div", scalar(7), tensor(x, (4,), 1), "operator"))
    check_case(Case("div", scalar(7), scalar(2), "function"))
    check_case(Case("add", scalar(7), scalar(2.5), "function"))
    check_case(Case("mul", tensor("int32", (3,), 0), scalar(2j), "function"))
