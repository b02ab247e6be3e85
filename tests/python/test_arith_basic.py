"""The Python binding of element-wise arithmetic (python/tensor_arith.c), against torch 1.13.

Focused on the binding itself: the operators and their reflected and in-place forms with
each kind of Python number, what the functions and methods return (out=, in-place), their
keywords (alpha, rounding_mode), argument errors in PyTorch's words, NotImplemented for
foreign operands, sparse operands, the out= resize UserWarning (also when a filter makes it an
error), set_num_threads / get_num_threads, result_type on tensors, and reference leaks. The
broad differential suite of values, dtypes and strides is test_arith_vs_torch.py.
"""
import cmath
import gc
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

import ctensor
import torch
from test_tensor_common import outcome, same
from leak_util import run_ignoring_errors

def same_close(fn):
    """same(), but values within a few ulps: complex division rounds differently in torch
    1.13's textbook formula and newest PyTorch's Smith's method (an ulp), which is the kernels'
    business, not the binding's."""
    a, b = outcome(fn, ctensor), outcome(fn, torch)
    if a[0] == b[0] == "ok":
        _close(a[1], b[1])
        return a
    assert a == b, (a, b)
    return a


def _close(x, y):
    if isinstance(x, tuple) and x and x[0] == "tensor":
        assert isinstance(y, tuple) and x[:6] == y[:6], (x, y)
        tol = 2e-3 if x[4] in ("float16", "bfloat16", "complex32") else 1e-6
        for u, v in zip(_flat(x[6]), _flat(y[6]), strict=True):
            assert u == v or cmath.isclose(_num(u), _num(v), rel_tol=tol), (x, y)
    elif isinstance(x, list):
        assert isinstance(y, list) and len(x) == len(y), (x, y)
        for u, v in zip(x, y):
            _close(u, v)
    else:
        assert x == y, (x, y)


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


def _num(v):
    if isinstance(v, tuple) and v[0] == "complex":
        return complex(_num(v[1]), _num(v[2]))
    return complex("nan") if v == "nan" else v


def check(op, fn):
    """Exact for everything but division with a complex operand."""
    return same_close(fn) if op in ("truediv", "floordiv") else same(fn)


# ---- operators with Python numbers ------------------------------------------------------------

NUMBERS = {
    "bool": lambda m: True,
    "int": lambda m: 3,
    "neg_int": lambda m: -2,
    "float": lambda m: 2.5,
    "complex": lambda m: 1.5 - 2j,
    "np_float64": lambda m: np.float64(2.5),
    "np_float32": lambda m: np.float32(0.75),
    "np_int64": lambda m: np.int64(3),
    "np_int8": lambda m: np.int8(-4),
    "np_bool": lambda m: np.bool_(True),
    "np_complex": lambda m: np.complex64(1 + 1j),
    "np_0d_float": lambda m: np.array(1.5),
    "np_0d_int32": lambda m: np.array(7, dtype=np.int32),
}

TENSORS = {
    "float32": lambda m: m.tensor([1.5, -2.0, 4.0]),
    "float64_0d": lambda m: m.tensor(3.0, dtype=m.float64),
    "int32": lambda m: m.tensor([7, -7, 3], dtype=m.int32),
    "uint8": lambda m: m.tensor([0, 5, 255], dtype=m.uint8),
    "bool": lambda m: m.tensor([True, False, True]),
    "float16": lambda m: m.tensor([1.0, 3.0, -0.5], dtype=m.float16),
    "complex64": lambda m: m.tensor([1 + 2j, -1j, 3.0]),
}

OPERATORS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
}


# Not compared with torch 1.13 operand by operand (tested below): NumPy 0-d arrays, which
# torch leaves to NumPy (NumPy computes, torch wraps NumPy's result; PyTorch's rule, an
# ordinary 0-dim tensor, gives the same dtypes), and np.bool_ / np.complex64, which 1.13
# unpacks as a float (True -> 1.0; the real part of a complex64): ctensor takes them as the
# bool and complex wrapped numbers they are, as result_type does in both.
NOT_LIKE_113 = ("np_0d_float", "np_0d_int32", "np_bool", "np_complex")


def _skip_complex32(tensor, number):
    if tensor == "float16" and "complex" in number:
        pytest.skip("complex32 kernels (newest PyTorch's kernel names): test_arith_vs_torch.py")


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("number", [n for n in NUMBERS if n not in NOT_LIKE_113])
@pytest.mark.parametrize("tensor", TENSORS)
def test_tensor_op_number(op, number, tensor):
    _skip_complex32(tensor, number)
    check(op, lambda m: OPERATORS[op](TENSORS[tensor](m), NUMBERS[number](m)))


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("tensor", TENSORS)
def test_numpy_bool_and_complex_are_wrapped_numbers(op, tensor):
    """np.bool_(True) acts as True, np.complex64(1+1j) as (1+1j), in the operators too."""
    for number, python in (("np_bool", True), ("np_complex", 1 + 1j)):
        c = outcome(lambda m: OPERATORS[op](TENSORS[tensor](m), NUMBERS[number](m)), ctensor)
        p = outcome(lambda m: OPERATORS[op](TENSORS[tensor](m), python), ctensor)
        assert c == p
        assert ctensor.result_type(TENSORS[tensor](ctensor), NUMBERS[number](ctensor)) == \
            ctensor.result_type(TENSORS[tensor](ctensor), python)


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("number", [n for n in NUMBERS if not n.startswith("np_")])
@pytest.mark.parametrize("tensor", TENSORS)
def test_number_op_tensor(op, number, tensor):
    """The reflected forms: 1 + t is t.add(1), 2 - t rsub, 2 / t t.reciprocal() * 2,
    2 // t floor_divide(2, t)."""
    _skip_complex32(tensor, number)
    check(op, lambda m: OPERATORS[op](NUMBERS[number](m), TENSORS[tensor](m)))


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("pair", [("float32", "int32"), ("int32", "float64_0d"),
                                  ("uint8", "bool"), ("float16", "complex64"),
                                  ("bool", "bool"), ("int32", "int32")])
def test_tensor_op_tensor(op, pair):
    check(op, lambda m: OPERATORS[op](TENSORS[pair[0]](m), TENSORS[pair[1]](m)))


def test_numpy_0d_arrays():
    """A 0-d NumPy array is an ordinary 0-dim tensor, not a wrapped number: priority by category."""
    f16 = ctensor.ones(2, dtype=ctensor.float16)
    assert (f16 + np.array(1.5)).dtype == ctensor.float16
    i32 = ctensor.ones(2, dtype=ctensor.int32)
    assert (i32 + np.array(2.5)).dtype == ctensor.float64  # z_f64 beats i32 by category
    assert (i32 * np.array(7, dtype=np.int64)).tolist() == [7, 7]
    assert (i32 * np.array(7, dtype=np.int64)).dtype == ctensor.int32
    assert (ctensor.ones(2) - np.array(0.5)).tolist() == [0.5, 0.5]


def test_numpy_scalars_on_the_left():
    """NumPy scalars defer to the tensor, as they do to torch's."""
    for m in (ctensor, torch):
        t = m.tensor([1.0, 2.0])
        for r in (np.float64(2) + t, np.int32(2) * t, np.float32(1) - t):
            assert isinstance(r, m.Tensor)
    same(lambda m: np.float64(2) + m.tensor([1.0, 2.0]))
    same(lambda m: np.int32(2) * m.tensor([1, 2], dtype=m.int8))


@pytest.mark.parametrize("op", OPERATORS)
def test_python_int_overflow(op):
    for big in (2**63, -2**63 - 1, 2**64):
        same(lambda m: OPERATORS[op](m.ones(2), big))
        same(lambda m: OPERATORS[op](big, m.ones(2)))
    same(lambda m: m.ones(2, dtype=m.int64) + (2**63 - 1))


# ---- foreign operands: NotImplemented -> Python's TypeError ------------------------------------

FOREIGN = {"str": "a", "list": [1], "tuple": (1,), "None": None, "dict": {}, "object": object()}


@pytest.mark.parametrize("op", ["add", "sub", "truediv", "floordiv"])
@pytest.mark.parametrize("other", FOREIGN)
def test_foreign_operands(op, other):
    same(lambda m: OPERATORS[op](m.ones(2), FOREIGN[other]))
    same(lambda m: OPERATORS[op](FOREIGN[other], m.ones(2)))


def test_foreign_operand_messages():
    t = ctensor.ones(2)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: "
                                        r"'ctensor.Tensor' and 'str'"):
        t + "a"  # noqa: B018
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for -=: "
                                        r"'ctensor.Tensor' and 'NoneType'"):
        t -= None
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for /: "
                                        r"'dict' and 'ctensor.Tensor'"):
        {} / t  # noqa: B018
    # str * tensor is sequence repetition: the tensor is asked for an index, as in torch
    same(lambda m: m.ones(2) * "a")
    same(lambda m: "ab" * m.tensor(2))


def test_dtype_operand_is_foreign():
    with pytest.raises(TypeError, match="unsupported operand"):
        ctensor.ones(2) + ctensor.float32  # noqa: B018


# ---- in-place operators -------------------------------------------------------------------------

INPLACE = {
    "iadd": lambda a, b: a.__iadd__(b),
    "isub": lambda a, b: a.__isub__(b),
    "imul": lambda a, b: a.__imul__(b),
    "itruediv": lambda a, b: a.__itruediv__(b),
    "ifloordiv": lambda a, b: a.__ifloordiv__(b),
}


def _inplace_statement(name, a, b):
    if name == "iadd":
        a += b
    elif name == "isub":
        a -= b
    elif name == "imul":
        a *= b
    elif name == "itruediv":
        a /= b
    else:
        a //= b
    return a


@pytest.mark.parametrize("op", INPLACE)
@pytest.mark.parametrize("other", ["int", "float", "bool", "complex", "tensor", "tensor_0d_f64"])
@pytest.mark.parametrize("tensor", ["float32", "int32", "bool", "complex64"])
def test_inplace_operators(op, other, tensor):
    def make_other(m):
        if other == "tensor":
            return m.tensor([2, 2, 2], dtype=m.int64)
        if other == "tensor_0d_f64":
            return m.tensor(0.5, dtype=m.float64)
        return NUMBERS[other](m)

    def run(m):
        a = TENSORS[tensor](m)
        r = _inplace_statement(op, a, make_other(m))
        return r, a

    result = check("truediv" if op in ("itruediv", "ifloordiv") else op, run)
    if result[0] == "ok":
        c_self = TENSORS[tensor](ctensor)
        assert _inplace_statement(op, c_self, make_other(ctensor)) is c_self


def test_inplace_returns_the_same_object():
    t = ctensor.tensor([1.0, 2.0])
    alias = t
    t += 1
    t -= 0.5
    t *= 2
    t /= 4
    t //= 1
    assert t is alias and t.tolist() == [0.0, 1.0]
    assert t.add_(1) is t and t.sub_(1) is t and t.mul_(3) is t and t.div_(3) is t
    assert t.div_(2, rounding_mode="floor") is t
    for name in ("subtract_", "multiply_", "divide_", "true_divide_"):
        assert getattr(t, name)(1) is t


def test_inplace_on_a_view_writes_the_base():
    base = ctensor.zeros(2, 3)
    v = base[1]
    v += ctensor.tensor([1.0, 2.0, 3.0])
    assert base.tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]


def test_subclass_operands():
    class Sub(ctensor.Tensor):
        pass

    s = Sub([1.0, 2.0])
    assert (s + s).tolist() == [2.0, 4.0]
    assert (1 - s).tolist() == [0.0, -1.0]
    assert (s * ctensor.ones(2)).tolist() == [1.0, 2.0]
    alias = s
    s += 1
    assert s is alias and type(s) is Sub and s.tolist() == [2.0, 3.0]


# ---- functions and methods ----------------------------------------------------------------------

CALLS = {
    # plain calls, numbers as tensors
    "add": lambda m: m.add(m.tensor([1, 2]), m.tensor([3.5, 4])),
    "add_numbers": lambda m: m.add(5, 5),
    "add_floats": lambda m: m.add(5.0, 5.0),
    "add_bools": lambda m: m.add(True, True),
    "add_bool_int": lambda m: m.add(True, 5),
    "add_int_complex": lambda m: m.add(2, 2.5j),
    "add_number_first": lambda m: m.add(2, m.tensor([1, 2], dtype=m.int8)),
    "mul_numbers": lambda m: m.mul(True, 2),
    "div_numbers": lambda m: m.div(7, 2),
    "div_numbers_floor": lambda m: m.div(7, 2, rounding_mode="floor"),
    "div_numbers_trunc": lambda m: m.div(-7, 2, rounding_mode="trunc"),
    "true_divide": lambda m: m.true_divide(m.tensor([1, 2], dtype=m.int32), 2),
    "subtract": lambda m: m.subtract(m.ones(2), 2, alpha=3),
    "subtract_scalar_sig": lambda m: m.subtract(m.ones(2), 2, 3),
    "multiply": lambda m: m.multiply(m.ones(2), 3),
    "divide": lambda m: m.divide(m.ones(2), 4),
    "divide_mode": lambda m: m.divide(m.tensor([7, -7]), 2, rounding_mode="floor"),
    "keywords": lambda m: m.mul(input=m.ones(2), other=m.ones(2)),
    "keyword_other": lambda m: m.add(m.ones(2), other=m.ones(2), alpha=2),
    # alpha
    "alpha_int": lambda m: m.add(m.ones(2, dtype=m.int32), 2, alpha=3),
    "alpha_float": lambda m: m.sub(m.ones(2), m.ones(2), alpha=0.5),
    "alpha_complex": lambda m: m.add(m.ones(2, dtype=m.cfloat), 1, alpha=1j),
    "alpha_0d_tensor": lambda m: m.add(m.ones(2), 1, alpha=m.tensor(2)),
    "alpha_np": lambda m: m.add(m.ones(2), 1, alpha=np.float64(2)),
    "alpha_float_on_int": lambda m: m.add(m.ones(2, dtype=m.int32), 1, alpha=1.5),
    "alpha_bool_on_float": lambda m: m.add(m.ones(2, dtype=m.int32), 1, alpha=True),
    "alpha_complex_on_real": lambda m: m.add(m.ones(2), 1, alpha=1j),
    "alpha_overflow": lambda m: m.add(m.ones(2), 2**63),
    "alpha_str": lambda m: m.add(m.ones(2), 1, alpha="x"),
    "method_alpha": lambda m: m.ones(2).sub(m.ones(2), alpha=2),
    "method_subtract_scalar_sig": lambda m: m.ones(2).subtract(2, 3),
    # rounding_mode
    "rounding_none": lambda m: m.div(m.tensor([7, -7]), 2, rounding_mode=None),
    "rounding_trunc": lambda m: m.div(m.tensor([7, -7]), 2, rounding_mode="trunc"),
    "rounding_floor": lambda m: m.tensor([7.0, -7.0]).div(2, rounding_mode="floor"),
    "rounding_bytes": lambda m: m.tensor([7, -7]).div(2, rounding_mode=b"floor"),
    "rounding_bad": lambda m: m.div(m.ones(2), 2, rounding_mode="round"),
    "rounding_bad_method": lambda m: m.ones(2).div(m.ones(2), rounding_mode="x"),
    "rounding_bad_inplace": lambda m: m.ones(2).div_(2, rounding_mode="Floor"),
    "rounding_int": lambda m: m.div(m.ones(2), 2, rounding_mode=3),
    "rounding_on_true_divide": lambda m: m.true_divide(m.ones(2), 2, rounding_mode="floor"),
    "zero_division": lambda m: m.div(m.tensor([1, 2]), 0, rounding_mode="floor"),
    # in-place methods
    "add_": lambda m: m.ones(2, dtype=m.int32).add_(2, alpha=2),
    "sub_bool": lambda m: m.ones(2, dtype=m.bool).sub_(True),
    "mul_cast_error": lambda m: m.ones(2, dtype=m.int32).mul_(2.5),
    "div_cast_error": lambda m: m.ones(2, dtype=m.int32).div_(2),
    "div_floor_int": lambda m: m.tensor([7, -7], dtype=m.int32).div_(2, rounding_mode="floor"),
    "inplace_broadcast": lambda m: m.ones(1).add_(m.ones(3)),
    # out=
    "out": lambda m: m.add(m.ones(2), 1, out=m.empty(2)),
    "out_cast": lambda m: m.mul(m.ones(2, dtype=m.int64), 3, out=m.empty(2)),
    "out_cast_error": lambda m: m.add(m.ones(2), m.ones(2), out=m.empty(2, dtype=m.int32)),
    "out_div_error": lambda m: m.div(m.ones(2, dtype=m.int32), 2, out=m.empty(2, dtype=m.int32)),
    "out_none": lambda m: m.add(m.ones(2), 1, out=None),
    "out_of_numbers": lambda m: m.mul(5, 5, out=m.empty(0, dtype=m.int64)),
    "out_div_mode": lambda m: m.div(m.tensor([7, -7]), 2, rounding_mode="trunc",
                                    out=m.empty(2, dtype=m.int64)),
    # deprecated overload (the warning is tested below)
    "deprecated_add": lambda m: m.add(m.ones(2), 2, m.ones(2)),
    "deprecated_sub_method": lambda m: m.ones(2).sub(2, m.ones(2)),
    "deprecated_add_out": lambda m: m.add(m.ones(2), 2.5, m.ones(2), out=m.empty(2)),
    # broadcasting and bool errors come from the C layer; the binding passes them on
    "broadcast_error": lambda m: m.ones(2, 3) + m.ones(2, 4),
    "bool_sub": lambda m: m.tensor([True]) - m.tensor([False]),
    "bool_rsub": lambda m: 1 - m.tensor([True]),
    "bool_rsub_bool": lambda m: True - m.tensor([True]),
}


@pytest.mark.parametrize("name", CALLS)
def test_calls(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(CALLS[name])


def test_out_returns_out():
    out = ctensor.empty(3)
    for fn, kw in [(ctensor.add, {"alpha": 2}), (ctensor.sub, {}), (ctensor.mul, {}),
                   (ctensor.div, {}), (ctensor.div, {"rounding_mode": "floor"}),
                   (ctensor.subtract, {}), (ctensor.multiply, {}), (ctensor.divide, {}),
                   (ctensor.true_divide, {})]:
        assert fn(ctensor.ones(3), 2, out=out, **kw) is out
    assert ctensor.add(ctensor.ones(3), 2, out=out).tolist() == [3.0, 3.0, 3.0]
    assert out._refcounts()[0] == 1


def test_function_results_are_not_wrapped_numbers():
    """torch.add(5, 5) is a 0-dim int64 tensor that counts as a tensor afterwards."""
    r = ctensor.add(5, 5)
    assert r.dim() == 0 and r.dtype == ctensor.int64
    assert (ctensor.ones(2, dtype=ctensor.int8) + r).dtype == ctensor.int8
    assert ctensor.result_type(r, ctensor.ones(2, dtype=ctensor.int8)) == ctensor.int8
    assert (ctensor.tensor(5) + ctensor.tensor(2.5)).dtype == ctensor.float32


# ---- argument errors ------------------------------------------------------------------------------

ARG_ERRORS = {
    "add_nothing": lambda m: m.add(),
    "add_one": lambda m: m.add(m.ones(2)),
    "add_str": lambda m: m.add(m.ones(2), "a"),
    "add_str_first": lambda m: m.add("a", m.ones(2)),
    "add_str_only": lambda m: m.add("a"),
    "add_none": lambda m: m.add(m.ones(2), None),
    "add_three": lambda m: m.add(m.ones(2), m.ones(2), m.ones(2)),
    "add_five": lambda m: m.add(m.ones(2), m.ones(2), m.ones(2), m.ones(2), m.ones(2)),
    "add_unknown_kw": lambda m: m.add(m.ones(2), m.ones(2), foo=1),
    "add_missing_other_kw": lambda m: m.add(m.ones(2), alpha=2),
    "add_alpha_str": lambda m: m.add(m.ones(2), m.ones(2), alpha="x"),
    "method_add_nothing": lambda m: m.ones(2).add(),
    "method_add_str": lambda m: m.ones(2).add("a"),
    "method_add__str": lambda m: m.ones(2).add_("a"),
    "method_add_two": lambda m: m.ones(2).add(m.ones(2), m.ones(2)),
    "method_add_three_ints": lambda m: m.ones(2).add(1, 2, 3),
    "sub_nothing": lambda m: m.sub(),
    "sub_str": lambda m: m.sub(m.ones(2), "a"),
    "subtract_nothing": lambda m: m.subtract(),
    "subtract_str": lambda m: m.subtract(m.ones(2), "a"),
    "method_subtract_nothing": lambda m: m.ones(2).subtract(),
    "mul_nothing": lambda m: m.mul(),
    "mul_one": lambda m: m.mul(m.ones(2)),
    "mul_str": lambda m: m.mul(m.ones(2), "a"),
    "mul_alpha": lambda m: m.ones(2).mul(m.ones(2), alpha=2),
    "mul_three": lambda m: m.mul(m.ones(2), 2, m.ones(2)),
    "method_mul_nothing": lambda m: m.ones(2).mul(),
    "multiply_nothing": lambda m: m.multiply(),
    "div_nothing": lambda m: m.div(),
    "div_str": lambda m: m.div(m.ones(2), "a"),
    "method_div_nothing": lambda m: m.ones(2).div(),
    "divide_nothing": lambda m: m.divide(),
    "true_divide_nothing": lambda m: m.true_divide(),
    "true_divide_two": lambda m: m.ones(2).true_divide(m.ones(2), m.ones(2)),
}


@pytest.mark.parametrize("name", ARG_ERRORS)
def test_argument_errors(name):
    result = same(ARG_ERRORS[name])
    assert result[0] == "err"


def test_argument_error_details():
    # torch's parser takes a number for out= too (numbers as tensors), then fails in the op;
    # ctensor refuses it as the parameter's type
    with pytest.raises(TypeError, match="^add\\(\\): argument 'out' must be Tensor, not int$"):
        ctensor.add(ctensor.ones(2), 1, out=3)
    with pytest.raises(TypeError, match=r"^ctensor.get_num_threads\(\) takes no arguments "
                                        r"\(1 given\)$"):
        ctensor.get_num_threads(1)


def test_deprecated_overload_warns_once_like_torch():
    """PyTorch warns once per process for its deprecated overloads (TORCH_WARN_ONCE). Other
    tests may have triggered it already, so only the text is checked when it appears."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ctensor.add(ctensor.ones(2), 2, ctensor.ones(2))
        r2 = ctensor.add(ctensor.ones(2), 2, ctensor.ones(2))
    assert r.tolist() == r2.tolist() == [3.0, 3.0]
    texts = [str(w.message) for w in caught]
    assert len(texts) <= 1
    for text in texts:
        assert text.startswith("This overload of add is deprecated:\n\tadd(Tensor input, "
                               "Number alpha, Tensor other, *, Tensor out)\nConsider using")


# ---- sparse operands ------------------------------------------------------------------------------

def _A(m):
    return m.sparse_coo_tensor([[0, 1]], [1, 2], (3,))


def _B(m):
    return m.sparse_coo_tensor([[2, 1, 2]], [10, 20, 30], (3,))


def _dense(t):
    return (str(t.layout).split(".")[1], t.to_dense())


SPARSE = {
    "sparse_sparse": lambda m: _dense(_A(m) + _B(m)),
    "sparse_sparse_method": lambda m: _dense(_A(m).add(_B(m), alpha=2)),
    "sparse_sparse_function": lambda m: _dense(m.add(_A(m), _B(m), alpha=-1)),
    "dense_sparse": lambda m: m.zeros(3, dtype=m.long) + _A(m),
    "dense_sparse_function": lambda m: m.add(m.ones(3), _B(m)),
    "sparse_dense": lambda m: _A(m) + m.zeros(3),
    "sparse_number": lambda m: _A(m) + 1,
    "number_sparse": lambda m: 1 + _A(m),
    "function_sparse_number": lambda m: m.add(_A(m), 1),
    "function_number_sparse": lambda m: m.add(1, _A(m)),
}


@pytest.mark.parametrize("name", SPARSE)
def test_sparse_addition(name):
    same(SPARSE[name])


def test_sparse_inplace_and_other_ops():
    # as PyTorch: in place keeps the object; - and * work, / by a sparse tensor and out= do
    # not (test_sparse_arith_vs_torch.py compares all of it with torch)
    a = _A(ctensor)
    alias = a
    a += _B(ctensor)
    assert a is alias and a.to_dense().tolist() == [1, 22, 40]
    assert (_A(ctensor) - _A(ctensor)).to_dense().tolist() == [0, 0, 0]
    assert (_A(ctensor) * _A(ctensor)).to_dense().tolist() == [1, 4, 0]
    for op in ("truediv", "floordiv"):
        with pytest.raises(RuntimeError, match="Sparse division requires"):
            OPERATORS[op](_A(ctensor), _A(ctensor))
    with pytest.raises(NotImplementedError):
        ctensor.add(_A(ctensor), _A(ctensor), out=ctensor.zeros(3))
    d = ctensor.zeros(3, dtype=ctensor.int64)
    assert d.add_(_A(ctensor)) is d and d.tolist() == [1, 2, 0]


# ---- warnings -------------------------------------------------------------------------------------

RESIZE = ("An output with one or more elements was resized since it had shape [1], which does "
          "not match the required output shape [3]")


def test_out_resize_warns():
    out = ctensor.zeros(1)
    with pytest.warns(UserWarning) as record:
        r = ctensor.add(ctensor.ones(3), 1, out=out)
    assert r is out and out.tolist() == [2.0, 2.0, 2.0]
    assert [str(w.message).startswith(RESIZE) for w in record] == [True]
    # the warning points at the caller
    assert record[0].filename == __file__
    # zero-element outs are resized silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ctensor.mul(ctensor.ones(3), 2, out=ctensor.empty(0)).tolist() == [2.0] * 3


def test_out_resize_warning_as_error():
    """A filter that makes the warning an error makes the op raise it after finishing, as
    torch does (out was already resized and written)."""
    for m in (ctensor, torch):
        out = m.zeros(1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning, match=r"An output with one or more elements"):
                m.add(m.ones(3), 1, out=out)
        assert out.tolist() == [2.0, 2.0, 2.0]
    # nothing stays pending: the next operations are unaffected
    assert (ctensor.ones(2) + 1).tolist() == [2.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            ctensor.sub(ctensor.ones(3), 1, out=ctensor.zeros(2))
        # an operation error wins over the warning
        with pytest.raises(RuntimeError, match="can't be cast"):
            ctensor.add(ctensor.ones(3), 1, out=ctensor.zeros(1, dtype=ctensor.int32))
    assert ctensor.add(ctensor.ones(1), 1).tolist() == [2.0]


# ---- threads --------------------------------------------------------------------------------------

def test_num_threads():
    old = ctensor.get_num_threads()
    try:
        assert old >= 1
        assert ctensor.set_num_threads(1) is None
        assert ctensor.get_num_threads() == 1
        ctensor.set_num_threads(np.int64(2))
        assert ctensor.get_num_threads() == 2
        assert (ctensor.ones(10**6) + 1).tolist()[-1] == 2.0
    finally:
        ctensor.set_num_threads(old)
    assert ctensor.get_num_threads() == old


@pytest.mark.parametrize("arg", [0, -1, "a", 1.5, True, None, 2**32])
def test_set_num_threads_errors(arg):
    old_c, old_t = ctensor.get_num_threads(), torch.get_num_threads()
    try:
        c = outcome(lambda m: m.set_num_threads(arg), ctensor)
        t = outcome(lambda m: m.set_num_threads(arg), torch)
        assert c == t
        assert c[0] == "err"
    finally:
        ctensor.set_num_threads(old_c)
        torch.set_num_threads(old_t)


def test_set_num_threads_overflow():
    """torch 1.13 dies here (its C++ exception escapes: std::terminate); ctensor raises the
    message torch's exception carries."""
    with pytest.raises(RuntimeError, match="^Overflow when unpacking long$"):
        ctensor.set_num_threads(2**70)


def test_set_num_threads_call_errors():
    with pytest.raises(TypeError):
        ctensor.set_num_threads()
    with pytest.raises(TypeError):
        ctensor.set_num_threads(1, 2)


# ---- result_type ----------------------------------------------------------------------------------

RESULT_TYPES = {
    "tensor_tensor": lambda m: m.result_type(m.ones(2, dtype=m.int32), m.ones(2)),
    "tensor_0d": lambda m: m.result_type(m.ones(2, dtype=m.int32), m.tensor(2.5, dtype=m.float64)),
    "0d_0d": lambda m: m.result_type(m.tensor(1, dtype=m.int8), m.tensor(1, dtype=m.uint8)),
    "tensor_int": lambda m: m.result_type(m.ones(2, dtype=m.uint8), 1000),
    "tensor_float": lambda m: m.result_type(m.ones(2, dtype=m.int32), 2.5),
    "float_tensor": lambda m: m.result_type(2.5, m.ones(2, dtype=m.float16)),
    "complex_0d": lambda m: m.result_type(m.tensor(1.0, dtype=m.float16), 1j),
    "bool_tensor_int": lambda m: m.result_type(m.ones(2, dtype=m.bool), 5),
    "np_scalar": lambda m: m.result_type(m.ones(2, dtype=m.int32), np.float32(2)),
    "computed_result": lambda m: m.result_type(m.add(5, 5), m.ones(2, dtype=m.int8)),
    "keywords": lambda m: m.result_type(tensor=m.ones(2), other=m.ones(2, dtype=m.int8)),
}


@pytest.mark.parametrize("name", RESULT_TYPES)
def test_result_type(name):
    same(RESULT_TYPES[name])


@pytest.mark.parametrize("tensor", TENSORS)
@pytest.mark.parametrize("number", ["bool", "int", "float", "complex"])
def test_result_type_matches_the_operation(tensor, number):
    t, n = TENSORS[tensor](ctensor), NUMBERS[number](ctensor)
    assert ctensor.result_type(t, n) == (t * n).dtype


# ---- reference leaks ------------------------------------------------------------------------------

BASE = ctensor.arange(6.0).reshape(2, 3)
SPARSE_A = _A(ctensor)
LEAK_CALLS = [
    ("add", lambda: BASE + BASE),
    ("sub_mul_div", lambda: (BASE - BASE, BASE * BASE, BASE / BASE, BASE // BASE)),
    ("numbers", lambda: (BASE + 1, 2.5 - BASE, BASE * True, 1j / BASE, 3 // BASE)),
    ("numpy", lambda: (BASE + np.float32(2), BASE * np.int64(2), BASE - np.array(1.5))),
    ("inplace", lambda: BASE.clone().__iadd__(1).__imul__(BASE).__itruediv__(2)),
    ("inplace_err", lambda: BASE.int().__itruediv__(2)),
    ("overflow", lambda: BASE + 2**64),
    ("foreign", lambda: BASE + "a"),
    ("foreign_inplace", lambda: BASE.clone().__iadd__(None)),
    ("broadcast_err", lambda: BASE + ctensor.ones(4)),
    ("function", lambda: ctensor.add(BASE, 2, alpha=3)),
    ("function_numbers", lambda: ctensor.add(5, 5.5)),
    ("function_out", lambda: ctensor.mul(BASE, 2, out=ctensor.empty(2, 3))),
    ("function_out_err", lambda: ctensor.add(BASE, 1, out=ctensor.empty(2, 3, dtype=ctensor.int8))),
    ("function_out_resize", lambda: ctensor.add(BASE, 1, out=ctensor.empty(1))),
    ("div_modes", lambda: (ctensor.div(BASE, 2, rounding_mode="floor"),
                           BASE.div(2, rounding_mode="trunc"))),
    ("div_mode_err", lambda: ctensor.div(BASE, 2, rounding_mode="x")),
    ("zero_division", lambda: ctensor.div(BASE.long(), 0, rounding_mode="trunc")),
    ("alpha_err", lambda: ctensor.add(BASE.int(), 1, alpha=1.5)),
    ("parse_err", lambda: ctensor.add(BASE, "a")),
    ("parse_err_single", lambda: ctensor.add()),
    ("parse_err_many", lambda: ctensor.divide(BASE, "a")),
    ("deprecated", lambda: ctensor.add(BASE, 2, BASE)),
    ("methods", lambda: (BASE.add(1), BASE.subtract(1, 2), BASE.multiply(2),
                         BASE.true_divide(BASE))),
    ("sparse", lambda: (SPARSE_A + SPARSE_A, ctensor.zeros(3) + SPARSE_A)),
    ("sparse_err", lambda: SPARSE_A + 1),
    ("sparse_refused", lambda: SPARSE_A * SPARSE_A),
    ("threads", lambda: ctensor.set_num_threads(ctensor.get_num_threads())),
    ("threads_err", lambda: ctensor.set_num_threads(0)),
    ("result_type", lambda: ctensor.result_type(BASE, BASE.int())),
]


def _state():
    objs = [ctensor.Tensor, ctensor.float32, ctensor.int32, ctensor.int64, ctensor.float64,
            float, int, str, type(None), np.float32, np.int64]
    return ([sys.getrefcount(o) for o in objs], BASE._refcounts(), SPARSE_A._refcounts(),
            ctensor._live_allocations())


@pytest.mark.parametrize("name,fn", LEAK_CALLS, ids=[c[0] for c in LEAK_CALLS])
def test_no_leaks(name, fn):
    run_ignoring_errors(fn, 50)
    gc.collect()
    before = _state()
    tracemalloc.start()
    run_ignoring_errors(fn, 50)
    first = tracemalloc.get_traced_memory()[0]
    run_ignoring_errors(fn, 500)
    second = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    gc.collect()
    assert _state() == before, name
    assert second - first < 4096, name


def test_warning_as_error_leaks_nothing():
    def fn():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                ctensor.add(BASE, 1, out=ctensor.empty(1))
            except UserWarning:
                pass

    for _ in range(20):
        fn()
    gc.collect()
    before = _state()
    for _ in range(200):
        fn()
    gc.collect()
    assert _state() == before
