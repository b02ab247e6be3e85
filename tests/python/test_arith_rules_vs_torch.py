"""Element-wise arithmetic rules checked one by one against torch 1.13 (bitwise where PyTorch is
exact), each a precise statement a C implementation can miss: how float16 / bfloat16 /
complex32 computations treat scalars and other-dtype inputs, that results are rounded to the
computation dtype before an out= / in-place cast, how float16 trunc / floor division rounds,
complex add's alpha, output strides including the strides PyTorch's CPU input
conversion gives, and ctensor's own defined result for INT_MIN / -1.

Newest-PyTorch rewrites are named where they apply (arith_util.newest_reduced_float).
"""
import math

import pytest

import ctensor
import torch
from arith_compare_util import (as_torch, check_case, floor_overflow, meta_of, newest_reduced_float,
                           values_mismatch)
from arith_util import NO, Case, realize, run, scalar, tensor


# ---- exactness where PyTorch is exact -------------------------------------------------------

def run_ctensor(case):
    r = run(ctensor, case)
    assert r.error is None, (case, r.error)
    return r.result


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_half_precision_tensor_ops_are_correctly_rounded(name, op):
    """float16 / bfloat16 tensor-tensor ops compute in float32 and round once, which is
    correctly rounded (float32 has more than twice the bits): bitwise equal to torch, no ulp of
    slack."""
    a = realize(ctensor, tensor(name, (512,), 1))
    b = realize(ctensor, tensor(name, (512,), 2))
    ta, tb = realize(torch, tensor(name, (512,), 1)), realize(torch, tensor(name, (512,), 2))
    got = getattr(ctensor, op)(a, b)
    want = getattr(torch, op)(ta, tb)
    assert values_mismatch(as_torch(got), want, None) is None


HALF_SCALARS = [0.1, 1 / 3, 1e-3, 70000.0, 1e-6, 2049]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("s", HALF_SCALARS)
def test_half_precision_mul_div_read_the_scalar_in_float32(name, s):
    """Newest PyTorch (named rewrite arith_util.newest_reduced_float): t * s, t / s,
    div(t, s, rounding_mode=...), s * t and s / t (t.reciprocal() * s) with t float16 /
    bfloat16 compute float32(t) op float32(s) and round once; bitwise."""
    t = tensor(name, (256,), 3)
    forms = [("mul", NO, "function"), ("div", NO, "function"), ("div", "trunc", "function"),
             ("div", "floor", "function"), ("mul", NO, "inplace"), ("div", NO, "out")]
    for op, mode, variant in forms:
        case = Case(op, t, scalar(s), variant, mode=mode,
                    out=tensor(name, (256,), 0) if variant == "out" else None)
        check_case(case)  # within the documented ulps
        want = newest_reduced_float(case, realize(torch, t), s)
        got = as_torch(run_ctensor(case))
        loose = floor_overflow(case, realize(torch, t), s, want)
        assert values_mismatch(got, want, None, loose) is None, case
    for op in ["mul", "div"]:
        case = Case(op, scalar(s), t, "operator")
        want = newest_reduced_float(case, s, realize(torch, t))
        assert values_mismatch(as_torch(run_ctensor(case)), want, None) is None, case


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("s", HALF_SCALARS)
def test_half_precision_add_sub_round_the_scalar_first(name, s):
    """t + s, t - s, s - t, add(t, s, alpha=...), and mul / div with the scalar FIRST
    (ctensor.mul(s, t)): newest PyTorch converts the wrapped scalar to the computation dtype
    before computing, as 1.13 does (ufunc add has no float32-scalar path, and is_scalar(2) is
    about the second input only [source: torchgen/dest/ufunc.py, ufunc/add.h,
    BinaryOpsKernel.cpp@newest]); bitwise against torch."""
    t = tensor(name, (256,), 3)
    cases_ = [Case("add", t, scalar(s)), Case("sub", t, scalar(s)),
              Case("sub", scalar(s), t, "operator"), Case("add", scalar(s), t, "operator"),
              Case("mul", scalar(s), t), Case("div", scalar(s), t, mode="trunc")]
    for case in cases_:
        want = run(torch, case).result
        assert values_mismatch(as_torch(run_ctensor(case)), want, None) is None, case


def test_mixed_dtype_inputs_are_converted_to_the_computation_dtype_first():
    """PyTorch converts every input to the computation dtype before computing (TensorIterator
    on the CPU), so an int32 70000 in a float16 computation is inf, an int64 2049 is 2048;
    bitwise against torch."""
    pairs = [(("int32", [70000, 2049, 1]), ("float16", [-65504.0, 0.5, 0.0])),
             (("int64", [2**62, 2049, 257]), ("float16", [float("-inf"), 0.5, 0.5])),
             (("int32", [2**31 - 1, 257, 3]), ("bfloat16", [-0.0, 0.5, 0.5])),
             (("float64", [70000.0, 1.0 + 2**-20, 3.0]), ("float16", [-65504.0, 0.5, 2.0])),
             (("float32", [1e39 / 1e1, 1.0 + 2**-20, 3.0]), ("bfloat16", [-3e38, 0.5, 2.0]))]
    for (x, xv), (y, yv) in pairs:
        for op in ["add", "sub", "mul", "div"]:
            c = getattr(ctensor, op)(ctensor.tensor(xv, dtype=getattr(ctensor, x)),
                                     ctensor.tensor(yv, dtype=getattr(ctensor, y)))
            w = getattr(torch, op)(torch.tensor(xv, dtype=getattr(torch, x)),
                                   torch.tensor(yv, dtype=getattr(torch, y)))
            problem = values_mismatch(as_torch(c), w, None)
            assert problem is None, (op, x, xv, y, yv, problem)

# ---- INT_MIN / -1 ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["int32", "int64"])
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_int_min_divided_by_minus_one_wraps(name, mode):
    """torch dies of SIGFPE here; ctensor defines the result: INT_MIN (it wraps, as int8 and
    int16 do in PyTorch). Never sent to torch."""
    lo = -2**31 if name == "int32" else -2**63
    dt = getattr(ctensor, name)
    t = ctensor.tensor([lo, lo, 7, lo], dtype=dt)
    m = ctensor.tensor([-1, 1, -1, -1], dtype=dt)
    want = [lo, lo, -7, lo]
    assert ctensor.div(t, m, rounding_mode=mode).tolist() == want
    assert ctensor.div(t, -1, rounding_mode=mode).tolist() == [lo, lo, -7, lo]
    assert ctensor.div(ctensor.tensor(lo, dtype=dt), m, rounding_mode=mode).tolist() == \
        [lo, lo, lo, lo]
    out = ctensor.empty(4, dtype=dt)
    ctensor.div(t, m, rounding_mode=mode, out=out)
    assert out.tolist() == want
    u = t.clone()
    u.div_(m, rounding_mode=mode)
    assert u.tolist() == want
    if mode == "floor":
        assert (t // m).tolist() == want
        u = t.clone()
        u //= -1
        assert u.tolist() == [lo, lo, -7, lo]
    # int8 / int16 do the same in torch, which does not crash there: differential
    for small in ["int8", "int16"]:
        check_case(Case("div", tensor(small, (4,), 0), tensor(small, (4,), 0), "function",
                        mode=mode))
        mn = -128 if small == "int8" else -2**15
        c = ctensor.div(ctensor.tensor([mn], dtype=getattr(ctensor, small)), -1,
                        rounding_mode=mode)
        w = torch.div(torch.tensor([mn], dtype=getattr(torch, small)), -1, rounding_mode=mode)
        assert c.tolist() == w.tolist() == [mn]


# ---- rounding to the computation dtype ------------------------------------------------------

def _bitwise(fn):
    """fn(L) in ctensor and torch: same dtype / shape / strides, bitwise values (NaN = NaN)."""
    c, t = fn(ctensor), fn(torch)
    assert meta_of(c) == meta_of(t), (meta_of(c), meta_of(t))
    problem = values_mismatch(as_torch(c), t, None)
    assert problem is None, problem


def _t(L, values, dtype):
    """The values rounded to dtype by torch, the same elements in L (ctensor gets torch's
    exact values, so that only the op under test can differ)."""
    from arith_util import flat_values
    t = torch.tensor(values, dtype=torch.complex128 if any(isinstance(v, complex)
                                                           for v in values)
                     else torch.float64)
    t = t.to(torch.complex64).to(torch.complex32) if dtype == "complex32" else \
        t.to(getattr(torch, dtype))
    if L is torch:
        return t
    return ctensor.tensor(flat_values(t), dtype=getattr(ctensor, dtype))


@pytest.mark.parametrize("comp,out", [("float16", "bfloat16"), ("float16", "float32"),
                                      ("bfloat16", "float32"), ("float16", "complex64"),
                                      ("float32", "float64")])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "div-trunc", "div-floor"])
def test_results_are_rounded_to_the_computation_dtype_before_the_output_cast(comp, out, op):
    """torch.mul(f16, f16, out=bf16) computes in float16 (overflowing to inf), then converts
    (computation happens in the common dtype before the final cast)."""
    op, _, mode = op.partition("-")
    kw = {"rounding_mode": mode} if mode else {}
    a = [60000.0, 1000.0, 3.0, 0.1, -7.0, 300.0, 1e-3]
    b = [1.5, 300.0, 1 / 3, 7.0, 0.3, -250.0, 1e-4]
    _bitwise(lambda L: getattr(L, op)(_t(L, a, comp), _t(L, b, comp),
                                      out=L.empty(7, dtype=getattr(L, out)), **kw))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_half_precision_trunc_floor_with_a_tensor_divisor(name, mode):
    """div(a, b, rounding_mode=...) in float16 / bfloat16 with a tensor divisor computes in the
    dtype's own arithmetic: the quotient is rounded to float16 before trunc / floor (torch 1.13
    and newest: AT_DISPATCH over Half with scalar_t arithmetic, no float32 opmath there), so
    843 / 1.0009765625 is 842.1767... -> 842.0 in float16 -> 842, and 842.9 rounds up to 843
    first. (With a one-element divisor newest PyTorch computes in float32 instead:
    test_half_precision_mul_div_read_the_scalar_in_float32.)"""
    a = [float(i) for i in range(1, 2049)]
    b = [(2049 - i) / 7 for i in range(1, 2049)]
    _bitwise(lambda L: L.div(_t(L, a, name), _t(L, b, name), rounding_mode=mode))
    _bitwise(lambda L: L.div(_t(L, [843.0, 2047.0, -843.0], name),
                             _t(L, [0.9990234375, 0.99951171875, 0.9990234375], name),
                             rounding_mode=mode))


# ---- complex add / sub ----------------------------------------------------------------------

def test_complex_add_multiplies_by_alpha():
    """PyTorch computes add / sub as self + alpha * other in the complex dtype, also for alpha
    = 1 (ufunc add: `self + alpha * other`, vectorised fmadd; newest and 1.13), so an infinite
    part of `other` makes a NaN: (1+0j) + (0+inf j) is nan+inf j, (2+0j) + (inf+1j) is
    inf+nan j."""
    inf = math.inf
    for dtype in ["complex64", "complex128", "complex32"]:
        for op in ["add", "sub"]:
            _bitwise(lambda L: getattr(L, op)(_t(L, [1 + 0j, 2 + 0j, 3 + 1j], dtype),
                                              _t(L, [complex(0, inf), complex(inf, 1), 1j],
                                                 dtype)))
            _bitwise(lambda L: getattr(L, op)(_t(L, [1 + 0j, 2 + 0j], dtype), complex(0, inf)))


# ---- output strides -----------------------------------------------------------------

STRIDE_TABLE = {
    "cl+c": lambda L: L.empty(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
    + L.empty(2, 3, 4, 5),
    "c+cl": lambda L: L.empty(2, 3, 4, 5) + L.empty(2, 3, 4, 5).contiguous(
        memory_format=L.channels_last),
    "cl+1": lambda L: L.empty(2, 3, 4, 5).contiguous(memory_format=L.channels_last) + 1,
    "cl+(3,1,1)": lambda L: L.empty(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
    + L.empty(3, 1, 1),
    "(3,1,1)+cl": lambda L: L.empty(3, 1, 1) + L.empty(2, 3, 4, 5).contiguous(
        memory_format=L.channels_last),
    "(1,3,4,5)+cl": lambda L: L.empty(1, 3, 4, 5) + L.empty(2, 3, 4, 5).contiguous(
        memory_format=L.channels_last),
    "t+t": lambda L: (lambda t: t + t)(L.empty(3, 4).t()),
    "t+c": lambda L: L.empty(3, 4).t() + L.empty(4, 3),
    "c+t": lambda L: L.empty(4, 3) + L.empty(3, 4).t(),
    "t+(3,)": lambda L: L.empty(3, 4).t() + L.empty(3),
    "t+(4,1)": lambda L: L.empty(3, 4).t() + L.empty(4, 1),
    "(2,1,4,1)@(4,1,1,1)+1": lambda L: L.empty_strided((2, 1, 4, 1), (4, 1, 1, 1)) + 1,
    "(2,3)@(1,2)+1": lambda L: L.empty_strided((2, 3), (1, 2)) + 1,
    "NC11_cl+NC11": lambda L: L.empty(2, 3, 1, 1).contiguous(memory_format=L.channels_last)
    + L.empty(2, 3, 1, 1),
    "cl3d+1": lambda L: L.empty(2, 3, 4, 5, 6).contiguous(memory_format=L.channels_last_3d) + 1,
    "expanded+permuted": lambda L: L.ones(2, 1, 2).expand(2, 2, 2).permute(2, 1, 0)
    + L.ones(2, 2, 2).permute(1, 2, 0),
    "empty_cl+1": lambda L: L.empty(2, 0, 4, 5).contiguous(memory_format=L.channels_last) + 1,
    "empty+empty_cl": lambda L: L.empty(0, 3, 1, 0) + L.empty(0, 3, 1, 0).contiguous(
        memory_format=L.channels_last),
}


@pytest.mark.parametrize("name", sorted(STRIDE_TABLE))
def test_output_strides_table(name):
    """PyTorch's output-stride examples (docs/elementwise.md), same dtypes, against torch."""
    c, t = STRIDE_TABLE[name](ctensor), STRIDE_TABLE[name](torch)
    assert (tuple(c.shape), c.stride()) == (tuple(t.shape), t.stride())


MIXED_STRIDES = {
    # PyTorch's CPU path converts an input of another dtype with .to(common dtype) before it
    # orders dimensions (TensorIteratorBase::compute_types: "Promotes inputs by creating
    # temporaries of the correct dtype"); the copy of a non-dense input is dense, so the output
    # strides are those the converted input gives. Not on the meta device.
    "expanded_0dim_f32+permuted_c64": lambda L: L.tensor(1.).expand(2, 2, 2)
    + L.ones(2, 2, 2, dtype=L.complex64).permute(0, 2, 1),
    "expanded_0dim_c64+permuted_c64": lambda L: L.tensor(1., dtype=L.complex64).expand(2, 2, 2)
    + L.ones(2, 2, 2, dtype=L.complex64).permute(0, 2, 1),
    "sliced_permuted_u8+f32": lambda L: L.ones(1, 2, 1).permute(0, 2, 1)
    + L.ones(2, 1, 3, dtype=L.uint8)[:, :, 1::2].permute(1, 2, 0),
    "bool_view+empty_cl_i64": lambda L: L.ones(3, 6, 4, dtype=L.bool)[0:2:2, 0:6:2, 1:3:2]
    .permute(1, 2, 0) + L.ones(0, 3, 1, 0, dtype=L.int64).contiguous(
        memory_format=L.channels_last),
    "f16_expanded-bf16_view": lambda L: L.ones(1, 1, 1, dtype=L.float16).expand(1, 4, 3)
    - L.ones(9, 9, 3, 11, dtype=L.bfloat16)[0:8:2, 0:8:2, 0:2:2, 1:10:3].permute(1, 2, 0, 3),
    "i32_expanded*f64": lambda L: L.ones(3, 1, dtype=L.int32).expand(3, 4)
    * L.ones(4, 3, dtype=L.float64).t(),
}


@pytest.mark.parametrize("name", sorted(MIXED_STRIDES))
def test_output_strides_with_converted_inputs(name):
    c, t = MIXED_STRIDES[name](ctensor), MIXED_STRIDES[name](torch)
    assert (tuple(c.shape), c.stride(), str(c.dtype)[8:]) == \
        (tuple(t.shape), t.stride(), str(t.dtype)[6:])


def test_reflected_division_strides():
    """`s / t` is t.reciprocal() * s in PyTorch: a unary op first (its output follows t with
    the fast setup), then the product; so a contiguous-with-odd-size-1-strides t gives
    plainly contiguous strides."""
    for dtype in ["float32", "complex64", "int32"]:
        def fn(L):
            t = L.ones(3, 5, 3, dtype=getattr(L, dtype))[1:2, 1:4:3, 0:3].permute(1, 2, 0)
            return 944 / t
        _bitwise(fn)


# ---- the OneFlow mode (compat.h) ------------------------------------------------------------

@pytest.fixture
def oneflow_mode():
    ctensor.set_compat_mode("oneflow")
    yield
    ctensor.set_compat_mode("pytorch")


def _outcome(fn):
    try:
        r = fn()
        return ("ok", str(r.dtype).split(".")[1])
    except RuntimeError as e:
        return ("err", str(e))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_oneflow_mode_for_every_dtype_pair(oneflow_mode, op):
    """In the OneFlow mode (compat.h): a 0-dim tensor promotes like a dimensioned one (so the
    result is torch's for the 0-dim operand made a 1-element 1-D tensor); an in-place op needs
    the computation dtype to be self's ("result type oneflow.float64 can't be cast to the
    desired output type oneflow.float32"); Python numbers and out= keep PyTorch's rules. Each
    pair's outcome (dtype or error) against torch with those rewrites."""
    from arith_util import DTYPES, computation_dtype
    for x in DTYPES:
        for y in DTYPES:
            a, b = tensor(x, (3,), 1), tensor(y, (), 2, nonzero=True)
            ca, cb = realize(ctensor, a), realize(ctensor, b)
            ta, tb = realize(torch, a), realize(torch, b).reshape(1)
            got = _outcome(lambda: getattr(ctensor, op)(ca, cb))
            want = _outcome(lambda: getattr(torch, op)(ta, tb))
            if want[0] == "err":
                want = ("err", want[1].replace("CPU scalars to CUDA", "CPU scalars to non-CPU"))
                assert got[0] == "err", (op, x, y, got, want)
            else:
                assert got == want, (op, x, y, got, want)
            # in-place: exact dtype or OneFlow's error (when torch computes at all)
            tb3 = realize(torch, tensor(y, (3,), 2, nonzero=True))
            cb3 = realize(ctensor, tensor(y, (3,), 2, nonzero=True))
            case = Case(op, a, tensor(y, (3,), 2))
            try:
                comp = computation_dtype(case, ta, tb3)
            except RuntimeError:
                continue
            w = _outcome(lambda: getattr(ta.clone(), op + "_")(tb3))
            g = _outcome(lambda: getattr(realize(ctensor, a), op + "_")(cb3))
            if w[0] == "ok" and comp != x:
                w = ("err", "result type oneflow.%s can't be cast to the desired output type "
                            "oneflow.%s" % (comp, x))
            if w[0] == "err":
                assert g[0] == "err", (op, x, y, g, w)
                if w[1].startswith("result type oneflow"):
                    assert g == w, (op, x, y, g, w)
            else:
                assert g == w, (op, x, y, g, w)


def test_oneflow_mode_python_numbers_and_out(oneflow_mode):
    """Python numbers count by category only (int32 + 5 is int32, int32 * 2.5 is float32,
    so int32 *= 2.5 is an error; bool *= 2 too), out= casts as in PyTorch."""
    i32 = ctensor.ones(3, dtype=ctensor.int32)
    assert (i32 + 5).dtype is ctensor.int32 and (i32 * 2.5).dtype is ctensor.float32
    i32 *= 2
    for t, s, comp, own in [(i32, 2.5, "float32", "int32"), (ctensor.ones(2, dtype=ctensor.bool),
                                                          2, "int64", "bool")]:
        with pytest.raises(RuntimeError) as e:
            t *= s
        assert str(e.value) == ("result type oneflow.%s can't be cast to the desired output "
                                "type oneflow.%s" % (comp, own))
    out = ctensor.empty(3, dtype=ctensor.float16)
    assert ctensor.mul(i32, ctensor.ones(3, dtype=ctensor.int64), out=out) is out
