"""promote_types, can_cast and result_type against torch 1.13 and PyTorch's rules."""
import enum
import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ctensor
import torch
from conftest import (ALL, BAREBONES_UNSIGNED, CPP_NAME, DEFAULTS, FLOAT8, SHARED, ct, outcome,
                      same_outcome, th)

# ---- an independent reading of PyTorch's rules, for the dtypes torch 1.13 lacks -------------

FLOAT4 = "float4_e2m1fn_x2"
COMPLEX = {"complex32", "complex64", "complex128"}
FLOATING = {"float16", "bfloat16", "float32", "float64", FLOAT4} | set(FLOAT8)  # isFloatingType
INTEGRAL = {"uint8", "int8", "int16", "int32", "int64"} | set(BAREBONES_UNSIGNED)
TO_COMPLEX = {"float16": "complex32", "bfloat16": "complex64", "float32": "complex64",
              "float64": "complex128"}
DEFAULT_COMPLEX = {"float32": "complex64", "float64": "complex128", "float16": "complex32",
                   "bfloat16": "complex64"}


class RefError(Exception):
    pass


def ref_promote(a, b):
    """promote_types' checks in PyTorch's order (float8, uint16/32/64, float4 refused), then
    the 13x13 table, which is asked of torch 1.13."""
    if a == b:
        return a
    pair = "%s and %s" % (CPP_NAME[a], CPP_NAME[b])
    if a in FLOAT8 or b in FLOAT8:
        raise RefError("Promotion for Float8 Types is not supported, attempted to promote " + pair)
    if a in BAREBONES_UNSIGNED or b in BAREBONES_UNSIGNED:
        if a in FLOATING:
            return a
        if b in FLOATING:
            return b
        raise RefError("Promotion for uint16, uint32, uint64 types is not supported, "
                       "attempted to promote " + pair)
    if FLOAT4 in (a, b):  # PyTorch: internal assert; ctensor words it like the others
        raise RefError("Promotion for Float4_e2m1fn_x2 is not supported, attempted to promote "
                       + pair)
    return str(torch.promote_types(th(a), th(b))).split(".")[1]


def ref_can_cast(src, dst):
    """can_cast: no float into integral, no complex into non-complex, nothing non-bool into bool."""
    if src in COMPLEX and dst not in COMPLEX:
        return False
    if src in FLOATING and dst in INTEGRAL:
        return False
    return not (src != "bool" and dst == "bool")


def ref_result_type(operands, default):
    """result_type (PyTorch's ResultTypeState) over (dtype name, kind) pairs."""
    slots = {"tensor": None, "zero_dim": None, "scalar": None}

    def promote_skip_undefined(x, y):
        return y if x is None else x if y is None else ref_promote(x, y)

    def combine(higher, lower):
        if higher in COMPLEX:
            return higher
        if lower in COMPLEX:
            if higher in FLOATING:
                if higher not in TO_COMPLEX:
                    raise RefError("Unknown Complex ScalarType for " + CPP_NAME[higher])
                return TO_COMPLEX[higher]
            return lower
        if higher in FLOATING:
            return higher
        if higher == "bool" or lower in FLOATING:
            return promote_skip_undefined(higher, lower)
        return higher if higher is not None else lower

    for name, kind in operands:
        if kind == "scalar" and name in COMPLEX:
            name = DEFAULT_COMPLEX[default]
        elif kind == "scalar" and name in FLOATING:
            name = default
        slots[kind] = promote_skip_undefined(slots[kind], name)
    return combine(slots["tensor"], combine(slots["zero_dim"], slots["scalar"]))


def ref_outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except RefError as e:
        return ("err", RuntimeError, str(e))


# ---- promote_types ----------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", itertools.product(SHARED, SHARED))
def test_promote_types_matches_torch(a, b):
    assert same_outcome(outcome(ctensor.promote_types, ct(a), ct(b)),
                        outcome(torch.promote_types, th(a), th(b)))


@pytest.mark.parametrize("a,b", itertools.product(ALL, ALL))
def test_promote_types_matches_spec_algorithm(a, b):
    assert outcome(ctensor.promote_types, ct(a), ct(b)) == ref_outcome(ref_promote, a, b)


# Consequences of promote_types' rules worth testing.
F8_F32 = ("Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn "
          "and Float")
U16 = "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt16 and "


@pytest.mark.parametrize("a,b,expected", [
    ("float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn"),
    ("float8_e4m3fn", "float32", F8_F32),
    ("float8_e4m3fn", "uint16", "Promotion for Float8 Types is not supported, attempted to "
                                "promote Float8_e4m3fn and UInt16"),
    ("uint16", "float32", "float32"),
    ("bfloat16", "uint64", "bfloat16"),
    ("uint16", "uint8", U16 + "Byte"),
    ("uint16", "int32", U16 + "Int"),
    ("uint16", "bool", U16 + "Bool"),
    ("uint16", "uint32", U16 + "UInt32"),
    ("uint16", "complex64", U16 + "ComplexFloat"),
    ("float4_e2m1fn_x2", "uint16", "float4_e2m1fn_x2"),
    ("float4_e2m1fn_x2", "float32", "Promotion for Float4_e2m1fn_x2 is not supported, "
                                    "attempted to promote Float4_e2m1fn_x2 and Float"),
])
def test_promote_types_spec_consequences(a, b, expected):
    result = outcome(ctensor.promote_types, ct(a), ct(b))
    if expected in ALL:
        assert result == ("ok", expected)
    else:
        assert result == ("err", RuntimeError, expected)


@pytest.mark.parametrize("pytype,name", [(float, "float64"), (int, "int64"), (bool, "bool")])
def test_python_types_stand_for_dtypes(pytype, name):
    for other in SHARED:
        assert same_outcome(outcome(ctensor.promote_types, pytype, ct(other)),
                            outcome(torch.promote_types, pytype, th(other)))
        assert same_outcome(outcome(ctensor.can_cast, ct(other), pytype),
                            outcome(torch.can_cast, th(other), pytype))
    assert ctensor.promote_types(pytype, pytype) is ct(name)


def test_python_complex_type_is_an_expected_difference():
    """Newest PyTorch accepts `complex` as complex128 where a dtype goes; 1.13 did not."""
    assert ctensor.promote_types(complex, ctensor.float32) is ctensor.complex128
    assert ctensor.can_cast(complex, ctensor.float64) is False
    with pytest.raises(TypeError, match="must be torch.dtype, not type"):
        torch.promote_types(complex, torch.float32)


# ---- can_cast -------------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", itertools.product(SHARED, SHARED))
def test_can_cast_matches_torch(a, b):
    assert same_outcome(outcome(ctensor.can_cast, ct(a), ct(b)),
                        outcome(torch.can_cast, th(a), th(b)))


@pytest.mark.parametrize("a,b", itertools.product(ALL, ALL))
def test_can_cast_matches_spec_rule(a, b):
    assert ctensor.can_cast(ct(a), ct(b)) is ref_can_cast(a, b)


def test_can_cast_keywords():
    assert ctensor.can_cast(from_=ctensor.float32, to=ctensor.int32) is False
    assert ctensor.can_cast(ctensor.int32, to=ctensor.float32) is True


# ---- result_type with Python scalars --------------------------------------------------------

class MyInt(int):
    pass


class MyFloat(float):
    pass


class MyComplex(complex):
    pass


class Color(enum.IntEnum):
    RED = 1


SCALARS = [True, False, 0, 1, -7, 2**63 - 1, -2**63, 1.5, -0.0, math.inf, math.nan, 1j, 2 + 3j,
           MyInt(3), MyFloat(1.5), MyComplex(1j), Color.RED]


@pytest.mark.parametrize("a,b", itertools.product(SCALARS, SCALARS))
def test_result_type_of_python_scalars_matches_torch(a, b, default_dtype):
    assert same_outcome(outcome(ctensor.result_type, a, b), outcome(torch.result_type, a, b))


@pytest.mark.parametrize("big", [2**63, -2**63 - 1, 2**64, -2**100, MyInt(2**70)])
@pytest.mark.parametrize("other", [1, 1.5, True, 1j, 2**63])
def test_result_type_int_overflow_matches_torch(big, other):
    for args in [(big, other), (other, big)]:
        ct_result = outcome(ctensor.result_type, *args)
        assert ct_result == ("err", RuntimeError, "Overflow when unpacking long")
        assert same_outcome(ct_result, outcome(torch.result_type, *args))


def test_result_type_keywords():
    assert ctensor.result_type(scalar1=1, scalar2=2.5) is ctensor.float32
    assert ctensor.result_type(1, scalar2=True) is ctensor.int64
    assert same_outcome(outcome(ctensor.result_type, scalar2=1j, scalar1=1),
                        outcome(torch.result_type, scalar2=1j, scalar1=1))


# ---- result_type over the three operand groups ------------------------------------------------

SCALAR_VALUES = {"bool": True, "int64": 3, "float64": 2.5, "complex128": 1j}


def torch_operand(name, kind):
    if kind == "tensor":
        return torch.ones(2, dtype=th(name))
    if kind == "zero_dim":
        return torch.ones((), dtype=th(name))
    return SCALAR_VALUES[name]


def shared_operands():
    tensors = st.tuples(st.sampled_from(SHARED), st.sampled_from(["tensor", "zero_dim"]))
    scalars = st.tuples(st.sampled_from(sorted(SCALAR_VALUES)), st.just("scalar"))
    return st.one_of(tensors, scalars)


def any_operands():
    tensors = st.tuples(st.sampled_from(ALL), st.sampled_from(["tensor", "zero_dim"]))
    scalars = st.tuples(st.sampled_from(sorted(SCALAR_VALUES)), st.just("scalar"))
    return st.one_of(tensors, scalars)


def ct_result_type_of(operands):
    return outcome(ctensor._result_type_of, *[(ct(n), k) for n, k in operands])


@pytest.mark.parametrize("default", DEFAULTS)
@given(a=shared_operands(), b=shared_operands())
def test_result_type_pairs_match_torch(default, a, b):
    ctensor.set_default_dtype(ct(default))
    torch.set_default_dtype(th(default))
    expected = outcome(torch.result_type, torch_operand(*a), torch_operand(*b))
    assert same_outcome(ct_result_type_of([a, b]), expected)
    # The scalar-only overloads of ctensor.result_type agree as well.
    if a[1] == b[1] == "scalar":
        assert same_outcome(outcome(ctensor.result_type, SCALAR_VALUES[a[0]],
                                    SCALAR_VALUES[b[0]]), expected)


@given(ops=st.lists(st.tuples(st.sampled_from(SHARED), st.sampled_from(["tensor", "zero_dim"])),
                    min_size=3, max_size=3))
def test_result_type_of_three_tensors_matches_torch(ops):
    """addcmul promotes its three inputs with result_type; on the meta device only the dtype
    is computed, so every dtype combination works."""
    meta = [torch.ones(2 if k == "tensor" else (), dtype=th(n), device="meta") for n, k in ops]
    expected = outcome(lambda: torch.addcmul(*meta).dtype)
    assert same_outcome(ct_result_type_of(ops), expected)


@pytest.mark.parametrize("default", DEFAULTS)
@given(ops=st.lists(any_operands(), min_size=1, max_size=6))
def test_result_type_of_lists_matches_spec_algorithm(default, ops):
    ctensor.set_default_dtype(ct(default))
    assert ct_result_type_of(ops) == ref_outcome(ref_result_type, ops, default)


def T(name):
    return (name, "tensor")


def Z(name):
    return (name, "zero_dim")


def S(name):
    return (name, "scalar")


# PyTorch's result_type examples (checked against torch 1.13); S(...) is a Python scalar of
# that dtype.
WORKED_EXAMPLES = [
    ([S("int64"), S("int64")], "int64"), ([S("float64"), S("float64")], "float32"),
    ([S("int64"), S("bool")], "int64"),
    ([T("int32"), S("int64")], "int32"), ([T("int32"), S("bool")], "int32"),
    ([T("int32"), S("float64")], "float32"), ([T("int32"), S("complex128")], "complex64"),
    ([T("bool"), S("bool")], "bool"), ([T("bool"), S("int64")], "int64"),
    ([T("bool"), S("float64")], "float32"),
    ([T("uint8"), S("int64")], "uint8"), ([T("uint8"), Z("int8")], "uint8"),
    ([T("uint8"), Z("int64")], "uint8"),
    ([T("int32"), Z("int64")], "int32"), ([T("int32"), Z("float64")], "float64"),
    ([T("int32"), Z("complex128")], "complex128"),
    ([T("float16"), Z("float64")], "float16"), ([T("float16"), S("float64")], "float16"),
    ([T("bfloat16"), S("float64")], "bfloat16"), ([T("float16"), S("complex128")], "complex32"),
    ([T("bfloat16"), S("complex128")], "complex64"),
    ([T("float16"), Z("complex128")], "complex32"), ([T("bfloat16"), Z("complex128")], "complex64"),
    ([T("float64"), Z("complex64")], "complex128"), ([T("float64"), S("complex128")], "complex128"),
    ([T("complex64"), Z("float64")], "complex64"), ([T("complex64"), T("float64")], "complex128"),
    ([T("complex64"), Z("complex128")], "complex64"),
    ([T("float16"), T("bfloat16")], "float32"), ([T("int64"), T("float16")], "float16"),
    ([Z("int64"), Z("float32")], "float32"), ([Z("int64"), S("float64")], "float32"),
    ([Z("float64"), S("float64")], "float64"), ([Z("float64"), T("float32")], "float32"),
    ([Z("float64"), T("int32")], "float64"), ([Z("bool"), S("int64")], "int64"),
    ([Z("bool"), T("int8")], "int8"), ([Z("int8"), S("int64")], "int8"),
    ([Z("int8"), S("float64")], "float32"), ([Z("int8"), Z("int64")], "int64"),
    ([Z("int8"), Z("uint8")], "int16"), ([T("uint8"), Z("int8")], "uint8"),
    ([Z("float16"), S("complex128")], "complex32"), ([Z("float64"), S("complex128")], "complex128"),
    ([T("int8"), Z("complex64")], "complex64"),
]


@pytest.mark.parametrize("ops,expected", WORKED_EXAMPLES)
def test_result_type_worked_examples(ops, expected):
    assert ct_result_type_of(ops) == ("ok", expected)
    assert outcome(torch.result_type, *[torch_operand(*o) for o in ops]) == ("ok", expected)


# result_type examples that hold only in the newest PyTorch.
@pytest.mark.parametrize("ops,expected", [
    ([T("uint16"), S("int64")], "uint16"),
    ([T("uint16"), S("float64")], "float32"),
    ([T("uint16"), T("int32")], "Promotion for uint16, uint32, uint64 types is not supported, "
                                "attempted to promote UInt16 and Int"),
    ([T("uint16"), T("bool")], "Promotion for uint16, uint32, uint64 types is not supported, "
                               "attempted to promote UInt16 and Bool"),
    ([T("float8_e4m3fn"), S("float64")], "float8_e4m3fn"),
    ([T("float8_e4m3fn"), Z("float32")], "float8_e4m3fn"),
    ([T("float8_e4m3fn"), T("float32")], F8_F32),
    ([T("float8_e4m3fn"), S("complex128")], "Unknown Complex ScalarType for Float8_e4m3fn"),
])
def test_result_type_newest_only_consequences(ops, expected):
    result = ct_result_type_of(ops)
    assert result == (("ok", expected) if expected in ALL else ("err", RuntimeError, expected))


def test_result_type_of_argument_errors():
    assert outcome(ctensor._result_type_of) == ("err", ValueError, "result_type: no operands")
    bad_kind = outcome(ctensor._result_type_of, (ctensor.int8, "vector"))
    assert bad_kind[:2] == ("err", ValueError)
    for item in [1, (ctensor.int8,), (ctensor.int8, "tensor", 1), ("int8", "tensor"),
                 [ctensor.int8, "tensor"], (torch.int8, "tensor")]:
        assert outcome(ctensor._result_type_of, item)[:2] == ("err", TypeError)
    with pytest.raises(TypeError, match="takes no keyword arguments"):
        ctensor._result_type_of(a=(ctensor.int8, "tensor"))
