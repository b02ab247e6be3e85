"""pow remainder fmod floor_divide true_divide atan2/arctan2 hypot, bitwise_and/or/xor,
bitwise_left_shift/right_shift and logical_and/or/xor against torch 1.13: functions, methods,
in-place forms, out=, the operators ** % & | ^ << >> (reflected and in-place), for every pair
of a representative set of dtypes with tensor, zero-dim and Python-number operands,
broadcasting, non-contiguous inputs and in-place on views. Compared: dtype, shape, strides and
values (bitwise for the exact ops; float pow, atan2 and hypot within 1 ulp of the computation
dtype: libm here, SLEEF's vector functions in torch), error type and message (a missing
kernel is NotImplementedError as in newest PyTorch).

Operand values are drawn from seeded generators; integer divisors of remainder / fmod are
never 0 or -1 here (torch 1.13 dies of SIGFPE on INT_MIN % -1; ctensor's answer, 0, is
tested on its own), and shift counts include negative ones and counts beyond the width."""
import itertools
import math
import operator
import random
import re
import struct

import ctensor
import pytest
import torch

from test_tensor_common import outcome, plain

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1),
         "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}

# op name -> (operator or None, reflected-capable, inexact floats)
OPS = {
    "pow": (operator.pow, True),
    "remainder": (operator.mod, True),
    "fmod": (None, False),
    "floor_divide": (None, True),
    "true_divide": (None, False),
    "atan2": (None, False),
    "arctan2": (None, False),
    "hypot": (None, False),
    "bitwise_and": (operator.and_, True),
    "bitwise_or": (operator.or_, True),
    "bitwise_xor": (operator.xor, True),
    "bitwise_left_shift": (operator.lshift, True),
    "bitwise_right_shift": (operator.rshift, True),
    "logical_and": (None, False),
    "logical_or": (None, False),
    "logical_xor": (None, False),
}
INPLACE = {"pow": operator.ipow, "remainder": operator.imod, "bitwise_and": operator.iand,
           "bitwise_or": operator.ior, "bitwise_xor": operator.ixor,
           "bitwise_left_shift": operator.ilshift, "bitwise_right_shift": operator.irshift}
INEXACT = {"pow", "atan2", "arctan2", "hypot"}
DIVISION = {"remainder", "fmod", "floor_divide"}


# ---- operands -------------------------------------------------------------------------------

def _values(dtype, n, seed, role, op):
    r = random.Random("%s/%d/%s/%s/%d" % (dtype, seed, role, op, n))
    if dtype == "bool":
        return [r.random() < 0.5 for _ in range(n)]
    if dtype in INTS:
        lo, hi = RANGE[dtype]
        out = []
        for _ in range(n):
            k = r.random()
            if role == "b" and op.startswith("bitwise_") and "shift" in op:
                v = r.randint(-3, 70)
            elif role == "b" and op == "pow":
                v = r.randint(-3, 12) if k < 0.9 else r.randint(13, 70)
            elif k < 0.15:
                v = r.choice([lo, hi, 0, 1, -1, 2, -2])
            elif k < 0.3:
                v = r.randint(lo, hi)
            else:
                v = r.randint(-100, 100)
            v = min(max(v, lo), hi)
            if role == "b" and op in DIVISION and v in (0, -1):
                v = 3
            out.append(v)
        return out
    specials = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -2.0, 0.5, -0.5, float("inf"), float("-inf"),
                float("nan")]

    def real():
        k = r.random()
        if k < 0.25:
            return r.choice(specials)
        if k < 0.5:
            return float(r.randint(-20, 20))
        return r.choice([-1, 1]) * 10 ** r.uniform(-4, 4)
    if dtype.startswith("complex"):
        return [complex(real(), real()) for _ in range(n)]
    return [real() for _ in range(n)]


def make(lib, dtype, shape, seed, role="a", op=""):
    n = math.prod(shape)
    vals = _values(dtype, n, seed, role, op)
    t = lib.tensor(vals, dtype=getattr(lib, dtype))
    return t.reshape(shape)


# ---- comparison ------------------------------------------------------------------------------

def _ordered(x, bits):
    """An integer that orders IEEE values of `bits` width: adjacent floats differ by 1."""
    fmt = {64: ("<d", "<q"), 32: ("<f", "<i")}[bits]
    i = struct.unpack(fmt[1], struct.pack(fmt[0], x))[0]
    return i if i >= 0 else -(i & ((1 << (bits - 1)) - 1))


def _ulps(a, b, dtype):
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else math.inf
    if a == b:
        return 0
    if math.isinf(a) or math.isinf(b):
        return math.inf
    if dtype in ("float64", "complex128"):
        return abs(_ordered(a, 64) - _ordered(b, 64))
    d = abs(_ordered(a, 32) - _ordered(b, 32))
    if dtype == "float16":
        return d / 2 ** 13
    if dtype == "bfloat16":
        return d / 2 ** 16
    return d


def close(fn, values=True):
    """Like test_tensor_common.same, but floating values within 1 ulp of their dtype (or,
    values False, not compared)."""
    a, b = outcome(fn, ctensor), outcome(fn, torch)
    if a[0] != "ok" or b[0] != "ok" or a[1][0] != "tensor":
        assert a == b, (a, b)
        return
    assert a[1][:6] == b[1][:6], (a, b)
    dtype = a[1][4]
    if not values:
        return
    xs = ctensor_values(fn, ctensor)
    ys = ctensor_values(fn, torch)
    for x, y in zip(xs, ys):
        if isinstance(x, complex):
            # componentwise within 1 ulp, or (cancellation in one part) within 4 ulps of the
            # larger part (torch's vectorized complex64 arithmetic differs from the scalar);
            # a NaN in either part is "not a number" as a whole (cpow and torch's vectorized
            # reciprocal put them in different parts)
            big = max(abs(y.real), abs(y.imag))
            ok = _ulps(x.real, y.real, dtype) <= 1 and _ulps(x.imag, y.imag, dtype) <= 1
            if not ok and math.isfinite(big) and math.isfinite(abs(x)):
                ok = abs(x - y) <= 4 * math.ulp(big) * (2 ** 29 if dtype == "complex64" else 1)
            if not ok and (x != x) and (y != y):
                ok = True
            assert ok, (x, y)
        elif isinstance(x, float):
            assert _ulps(x, y, dtype) <= 1, (x, y, dtype)
        else:
            assert x == y, (x, y)


def ctensor_values(fn, lib):
    t = fn(lib)
    return t.reshape(-1).tolist()


def check(op, fn):
    if op in INEXACT:
        close(fn)
    elif op == "true_divide":
        # complex division is div's (test_arith_*: torch 1.13 divides by the textbook formula,
        # ctensor by newest PyTorch's Smith's method); real results are exact
        a = outcome(fn, ctensor)
        close(fn, values=not (a[0] == "ok" and a[1][4].startswith("complex")))
    else:
        a, b = outcome(fn, ctensor), outcome(fn, torch)
        assert a == b, (a, b)


# ---- tests ------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)))
def test_function_every_dtype_pair(op, da, db):
    check(op, lambda lib: getattr(lib, op)(make(lib, da, (3, 4), 1, "a", op),
                                           make(lib, db, (4,), 2, "b", op)))


SCALARS = [0, 1, -1, 2, 3, -2, 7, 40, 0.5, -0.5, 2.5, -3.0, True, False, 1j, float("nan")]


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("da", DTYPES)
def test_python_number_operands(op, da):
    sym, reflected = OPS[op]
    for value in SCALARS:
        if op in DIVISION and value in (0, -1, False):
            continue  # integer ZeroDivisionError / INT_MIN % -1 are tested apart
        if op == "floor_divide" and da in ("float16", "bfloat16") and not isinstance(value, bool):
            continue  # div's newest-PyTorch rule for a number divisor (test_arith_*)
        check(op, lambda lib: getattr(lib, op)(make(lib, da, (6,), 3, "a", op), value))
        check(op, lambda lib: getattr(make(lib, da, (6,), 3, "a", op), op)(value))
        # pow(1, t) fills ones in PyTorch; ctensor computes cpow(1, t), NaN for a complex t
        # with non-finite parts (a known difference)
        one_base = op == "pow" and value is not True and value == 1 and da.startswith("complex")
        if reflected and not one_base:
            check(op, lambda lib: getattr(lib, op)(value, make(lib, da, (6,), 4, "b", op)))
        if sym is not None:
            check(op, lambda lib: sym(make(lib, da, (6,), 3, "a", op), value))
            if not one_base:
                check(op, lambda lib: sym(value, make(lib, da, (6,), 4, "b", op)))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("da,db", [("int64", "float32"), ("uint8", "int8"), ("float16", "int64"),
                                   ("bool", "int32"), ("bfloat16", "float64"), ("int32", "int64"),
                                   ("float32", "float64"), ("complex64", "float32")])
def test_zero_dim_operands(op, da, db):
    check(op, lambda lib: getattr(lib, op)(make(lib, da, (5,), 5, "a", op),
                                           make(lib, db, (), 6, "b", op)))
    check(op, lambda lib: getattr(lib, op)(make(lib, db, (), 7, "a", op),
                                           make(lib, da, (5,), 8, "b", op)))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", ["int32", "float32", "int16", "float64"])
def test_broadcast_and_views(op, dtype):
    def f(lib):
        a = make(lib, dtype, (4, 5), 9, "a", op).t()
        b = make(lib, dtype, (4, 1), 10, "b", op).t()
        return getattr(lib, op)(a, b)
    check(op, f)

    def g(lib):
        a = make(lib, dtype, (6, 8), 11, "a", op)[::2, 1::3]
        b = make(lib, dtype, (3,), 12, "b", op).expand(3, 3)
        return getattr(lib, op)(a, b)
    check(op, g)

    def h(lib):
        a = make(lib, dtype, (2, 3, 4, 5), 13, "a", op).contiguous(memory_format=lib.channels_last)
        return getattr(lib, op)(a, make(lib, dtype, (2, 3, 4, 5), 14, "b", op))
    check(op, h)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dout", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                  "float64", "complex64"])
@pytest.mark.parametrize("da,db", [("int32", "int32"), ("int32", "float32"), ("bool", "bool"),
                                   ("float64", "float64")])
def test_out_with_casts(op, dout, da, db):
    def f(lib):
        out = lib.zeros((2, 3), dtype=getattr(lib, dout))
        r = getattr(lib, op)(make(lib, da, (2, 3), 15, "a", op), make(lib, db, (3,), 16, "b", op),
                             out=out)
        assert r is out
        return out
    check(op, f)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("da,db", [("int32", "int32"), ("int64", "float32"), ("float32", "int64"),
                                   ("bool", "bool"), ("uint8", "bool"), ("float64", "float16")])
def test_inplace_on_views(op, da, db):
    def method(lib):
        base = make(lib, da, (4, 6), 17, "a", op)
        v = base[1:, ::2]
        r = getattr(v, op + "_")(make(lib, db, (3,), 18, "b", op))
        assert r is v
        return base
    check(op, method)
    if op in INPLACE:
        def oper(lib):
            base = make(lib, da, (4, 6), 17, "a", op)
            v = base.t()[::2]
            w = INPLACE[op](v, make(lib, db, (4,), 19, "b", op))
            assert w is v
            return base
        check(op, oper)


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, 0.5, -0.5, 2.5, -3.0, 40, True, False,
                                      1j])
def test_pow_tensor_scalar(da, exponent):
    """pow.Tensor_Scalar: the special exponents, negative integer powers of integers, and
    out= / in-place with exactly the result dtype."""
    check("pow", lambda lib: make(lib, da, (7,), 20, "a", "pow") ** exponent)
    check("pow", lambda lib: make(lib, da, (7,), 20, "a", "pow").pow_(exponent))
    check("pow", lambda lib: lib.pow(make(lib, da, (7,), 20, "a", "pow"), exponent,
                                     out=lib.empty(7, dtype=lib.float32)))
    if not (exponent is not True and exponent == 1 and da.startswith("complex")):
        # (pow(1, t): see test_python_number_operands)
        check("pow", lambda lib: lib.pow(exponent, make(lib, da, (7,), 21, "b", "pow")))
    check("pow", lambda lib: lib.pow(make(lib, da, (7,), 20, "a", "pow"),
                                     lib.tensor(exponent)))


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("exponent", [127, 128, 255, 256, -129, 2**31, 2**40, 65504.0, 1e10,
                                      -1e10, 3e38, 1e39, float("inf"), float("nan")])
def test_pow_scalar_exponent_range(da, exponent):
    """pow.Tensor_Scalar takes the exponent into an integral, float16 or bfloat16 computation
    with a range check ("value cannot be converted to type int8_t without overflow"); float,
    double and complex computations take any exponent."""
    check("pow", lambda lib: make(lib, da, (5,), 22, "a", "pow") ** exponent)
    check("pow", lambda lib: make(lib, da, (5,), 22, "a", "pow").pow_(exponent))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero(dtype):
    for op in ("remainder", "fmod", "floor_divide"):
        check(op, lambda lib: getattr(lib, op)(lib.tensor([5, 0, 7], dtype=getattr(lib, dtype)),
                                               lib.tensor([2, 0, 0], dtype=getattr(lib, dtype))))
        check(op, lambda lib: getattr(lib, op)(lib.tensor([5, 1], dtype=getattr(lib, dtype)), 0))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_int_min_by_minus_one_is_zero(dtype):
    """torch 1.13 dies of SIGFPE here; ctensor defines the result: 0."""
    lo = RANGE[dtype][0]
    for op in ("remainder", "fmod"):
        a = ctensor.tensor([lo, lo, 5, -5], dtype=getattr(ctensor, dtype))
        b = ctensor.tensor([-1, -1, -1, -1], dtype=getattr(ctensor, dtype))
        assert getattr(ctensor, op)(a, b).tolist() == [0, 0, 0, 0]
        assert getattr(ctensor, op)(a, -1).tolist() == [0, 0, 0, 0]
        assert (a % b).tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("op", list(OPS))
def test_meta_and_accelerator(op, npu):
    """Meta tensors get the dtype and shape (and the same errors); the host-emulated
    accelerator computes as the cpu."""
    for da, db in [("int32", "int32"), ("float32", "float32"), ("bool", "bool"),
                   ("complex64", "complex64"), ("float32", "int64")]:
        a = make(ctensor, da, (3, 4), 22, "a", op)
        b = make(ctensor, db, (4,), 23, "b", op)
        def meta(t):
            return (tuple(t.shape), t.stride(), str(t.dtype), t.device.type)
        try:
            want = meta(getattr(ctensor, op)(a, b))
        except Exception as e:  # noqa: BLE001 - the same error on meta
            with pytest.raises(type(e), match=re.escape(str(e))):
                getattr(ctensor, op)(a.to("meta"), b.to("meta"))
            continue
        assert meta(getattr(ctensor, op)(a.to("meta"), b.to("meta"))) == want[:3] + ("meta",)
        r = getattr(ctensor, op)(a.to(npu), b.to(npu))
        assert meta(r)[:3] == want[:3] and r.device.type == npu
        assert plain(r.cpu()) == plain(getattr(ctensor, op)(a, b))


def test_shell_dtypes_not_implemented():
    for op in ("pow", "remainder", "fmod", "bitwise_and", "bitwise_left_shift"):
        for dt in ("uint16", "uint32", "uint64"):
            if not hasattr(ctensor, dt):
                continue
            t = ctensor.ones(3, dtype=getattr(ctensor, dt))
            with pytest.raises(NotImplementedError, match="not implemented for 'UInt"):
                getattr(ctensor, op)(t, t)
    for dt in ("float8_e4m3fn", "float8_e5m2"):
        if not hasattr(ctensor, dt):
            continue
        t = ctensor.ones(3, dtype=getattr(ctensor, dt))
        for op in OPS:
            with pytest.raises((NotImplementedError, RuntimeError)):
                getattr(ctensor, op)(t, t)


def test_operators_refuse_other_types():
    t = ctensor.ones(3, dtype=ctensor.int32)
    for f in (lambda: t ** "x", lambda: t % [1], lambda: t & None, lambda: "a" << t,
              lambda: pow(t, 2, 3)):
        with pytest.raises(TypeError):
            f()


def test_argument_errors():
    for f in (lambda lib: lib.atan2(lib.ones(2), 3), lambda lib: lib.hypot(3, lib.ones(2)),
              lambda lib: lib.logical_and(lib.ones(2), 2.5),
              lambda lib: lib.fmod(3, lib.ones(2)), lambda lib: lib.pow(),
              lambda lib: lib.remainder(lib.ones(2), "x"),
              lambda lib: lib.ones(2).bitwise_and(lib.ones(2), lib.ones(2))):
        a, b = outcome(f, ctensor), outcome(f, torch)
        assert a[0] == b[0] == "err" and a[1] == b[1], (a, b)


def test_plain_values_spot_checks():
    """A few values spelled out (the differential tests above compare with torch only)."""
    t = ctensor.tensor([1, 2, 3])
    assert (t ** 2).tolist() == [1, 4, 9]
    assert (2 ** t).tolist() == [2, 4, 8]
    assert plain(ctensor.tensor([-3, 3]) % ctensor.tensor([2, -2])) == \
        plain(torch.tensor([-3, 3]) % torch.tensor([2, -2]))
    assert (ctensor.tensor([1], dtype=ctensor.int32) << 32).tolist() == [1]
    assert (ctensor.tensor([-8], dtype=ctensor.int32) >> -1).tolist() == [-1]
