"""Errors and warnings of add, sub, mul and div against torch 1.13 (common dtype,
division, output casting, broadcasting, overlap; docs/elementwise.md), and the device rules:
meta tensors differentially, the emulated accelerator against PyTorch's rules.

Every case runs in both libraries (arith_util.check_case or test_tensor_common.same); errors
must have the same type and message, read in newest PyTorch's words (arith_util.torch_error).
"""
import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch
from arith_strategies_util import cases
from arith_compare_util import as_torch, check_case, meta_of, values_mismatch
from arith_util import INTS, NO, Case, run, scalar, tensor
from test_tensor_common import same

ALL_VARIANTS = ["function", "method", "operator", "out", "inplace", "inplace_operator"]
OPS = [("add", NO, NO), ("sub", NO, NO), ("mul", NO, NO), ("div", NO, NO),
       ("div", NO, "trunc"), ("div", NO, "floor")]


def op_id(f):
    return f[0] + ("" if f[2] is NO else "-" + f[2])


def variants_of(op, mode, a_kind="tensor"):
    vs = ["function", "method", "out", "inplace"]
    if (op, mode) != ("div", "trunc"):
        vs += ["operator", "inplace_operator"]
    return vs


# ---- broadcasting -------------------------------------------------------------------

BROADCAST_ERRORS = [((2, 3), (2, 4)), ((5, 2, 3), (4, 1, 3)), ((3,), (4, 2)), ((0,), (2,)),
                    ((2, 0), (3, 1)), ((4, 1, 3), (2, 3, 5)), ((1, 2), (3,))]


@pytest.mark.parametrize("form", OPS, ids=op_id)
@pytest.mark.parametrize("sa,sb", BROADCAST_ERRORS, ids=str)
def test_broadcast_errors_match_torch(form, sa, sb):
    """`The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension
    1`, in every variant (out= and in-place included)."""
    op, alpha, mode = form
    for variant in variants_of(op, mode):
        out = tensor("float32", (7,), 1) if variant == "out" else None
        ct = check_case(Case(op, tensor("float32", sa, 1), tensor("float32", sb, 2, nonzero=True),
                             variant, alpha, mode, out))
        assert ct.error is not None


IN_PLACE_GROWS = [((1,), (3,)), ((2, 1), (2, 3)), ((), (3,)), ((3,), (2, 3)), ((0,), (2, 0))]


@pytest.mark.parametrize("form", OPS, ids=op_id)
@pytest.mark.parametrize("sa,sb", IN_PLACE_GROWS, ids=str)
def test_in_place_cannot_grow_self(form, sa, sb):
    """`output with shape [1] doesn't match the broadcast shape [3]`; also out= naming one of
    the inputs (no resize then)."""
    op, alpha, mode = form
    for variant in ["inplace", "inplace_operator"] if (op, mode) != ("div", "trunc") \
            else ["inplace"]:
        ct = check_case(Case(op, tensor("float64", sa, 1), tensor("float64", sb, 2, nonzero=True),
                             variant, alpha, mode))
        assert ct.error == (RuntimeError, "output with shape %s doesn't match the broadcast "
                            "shape %s" % (list(sa), list(torch.broadcast_shapes(sa, sb))))

    def out_is_input(L):
        x = L.ones(sa, dtype=L.float64)
        kw = {} if mode is NO else {"rounding_mode": mode}
        return getattr(L, op)(x, L.ones(sb, dtype=L.float64), out=x, **kw)
    same(out_is_input)


@settings(max_examples=60, derandomize=True)
@given(case=cases(kinds=[("tensor", "tensor")], max_dims=3))
def test_random_shapes_with_broadcast_errors_match_torch(case):
    """Random cases where a dim often does not broadcast (cases() puts one in 1 of 20 operand
    shapes; here both operands of a 3-dim result)."""
    check_case(case)


# ---- output casting ------------------------------------------------------------------

# PyTorch's in-place and out= casting table, every row about these ops, each a statement on
# 1-D tensors (z_: 0-dim).
CAST_TABLE = [
    ("add", "inplace", ("int32", "scalar", 2.5)),
    ("add", "inplace_operator", ("int32", "scalar", 2.5)),
    ("mul", "inplace_operator", ("int32", "scalar", 2)),
    ("add", "inplace_operator", ("int32", "scalar", True)),
    ("add", "inplace_operator", ("int32", "int64", None)),
    ("add", "inplace_operator", ("int32", "z_float64", None)),
    ("add", "inplace_operator", ("int32", "float32", None)),
    ("div", "inplace_operator", ("int32", "scalar", 2)),
    ("add", "inplace_operator", ("uint8", "scalar", -1)),
    ("add", "inplace_operator", ("uint8", "scalar", 300)),
    ("add", "inplace_operator", ("bool", "scalar", 1)),
    ("mul", "inplace", ("bool", "scalar", 2)),
    ("add", "inplace_operator", ("bool", "scalar", True)),
    ("add", "inplace_operator", ("float32", "scalar", 1j)),
    ("add", "inplace_operator", ("float32", "complex64", None)),
    ("add", "inplace_operator", ("float32", "float64", None)),
    ("add", "inplace_operator", ("float16", "float64", None)),
    ("add", "inplace_operator", ("float16", "scalar", 1e10)),
]


@pytest.mark.parametrize("op,variant,spec", CAST_TABLE, ids=lambda x: str(x))
def test_in_place_casting_table(op, variant, spec):
    self_dtype, other, value = spec
    if other == "scalar":
        b = scalar(value)
    elif other.startswith("z_"):
        b = tensor(other[2:], (), 3)
    else:
        b = tensor(other, (4,), 3)
    check_case(Case(op, tensor(self_dtype, (4,), 2), b, variant))
    if op == "div":
        for mode in ["floor", "trunc"]:  # i32.div_(2, rounding_mode='floor') is fine
            check_case(Case(op, tensor(self_dtype, (4,), 2), b, "inplace", mode=mode))


@pytest.mark.parametrize("a,b,out,op", [
    ("float32", "float32", "int64", "add"), ("int64", "int64", "float32", "add"),
    ("int64", "int64", "bool", "add"), ("int32", "int32", "int32", "div"),
    ("float64", "scalar", "float16", "add"), ("complex64", "float32", "float64", "mul"),
    ("bool", "bool", "bool", "mul"), ("bool", "bool", "uint8", "add"),
    ("int32", "int32", "int32", "div-floor"), ("int8", "float16", "bfloat16", "sub"),
])
def test_out_casting_table(a, b, out, op):
    """`result type Float can't be cast to the desired output type Long` and the allowed
    casts (the result computed in the common dtype, then converted)."""
    op, _, mode = op.partition("-")
    bb = scalar(1) if b == "scalar" else tensor(b, (3,), 2, nonzero=True)
    check_case(Case(op, tensor(a, (3,), 1), bb, "out", mode=mode or NO,
                    out=tensor(out, (3,), 0)))


# ---- out= resizing -------------------------------------------------------------------

@pytest.mark.parametrize("out_shape", [(1,), (2, 7), (), (3,), (0,), (2, 0), (6,)], ids=str)
@pytest.mark.parametrize("form", OPS, ids=op_id)
def test_out_of_another_shape_is_resized_with_a_warning(out_shape, form):
    """An out of another shape with elements is resized with PyTorch's UserWarning (the same
    text); an empty one silently; out's dtype differing from the result's too."""
    op, alpha, mode = form
    for out_dtype in ["float64", "complex128"]:
        check_case(Case(op, tensor("float32", (2, 3), 1), tensor("float32", (3,), 2, nonzero=True),
                        "out", alpha, mode, tensor(out_dtype, out_shape, 0)))
    # transposed input: the resized out gets the strides a new result would get
    check_case(Case(op, tensor("float32", (3, 2), 1, [("permute", (1, 0))]), scalar(2), "out",
                    alpha, mode, tensor("float32", out_shape, 0)))


def test_resize_warning_text():
    with pytest.warns(UserWarning) as w:
        ctensor.add(ctensor.ones(3), 1, out=ctensor.ones(1))
    assert [str(x.message) for x in w] == [
        "An output with one or more elements was resized since it had shape [1], which does "
        "not match the required output shape [3]. This behavior is deprecated, and in a future "
        "PyTorch release outputs will not be resized unless they have zero elements. You can "
        "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
        "t.resize_(0)."]


def test_resize_warning_can_be_an_error():
    """A warnings filter that turns the UserWarning into an exception makes the call raise it
    (as PyTorch's warning handler does)."""
    import warnings
    for L in (ctensor, torch):
        out = L.ones(1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning, match="was resized"):
                L.add(L.ones(3), 1, out=out)


# ---- overlap ------------------------------------------------------------------------

def _ops(L):
    return [lambda x, y, **k: L.add(x, y, **k), lambda x, y, **k: L.sub(x, y, **k),
            lambda x, y, **k: L.mul(x, y, **k), lambda x, y, **k: L.div(x, y, **k),
            lambda x, y, **k: L.div(x, y, rounding_mode="floor", **k)]


OVERLAP_CASES = {
    "expanded_out": lambda L, f: f(L.ones(4), 1, out=L.ones(4).expand(2, 4)),
    "expanded_self": lambda L, f: getattr(L.arange(4.).expand(2, 4), f.__name__)(1),
    "partial_out": lambda L, f: (lambda y: f(y[:3], 1, out=y[1:]))(L.arange(6.)),
    "partial_other": lambda L, f: (lambda y: f(2, y[:3], out=y[1:4]))(L.arange(6.) + 1),
    "transposed_input_out": lambda L, f: (lambda x: f(x.t(), 1, out=x))(
        L.arange(4.).reshape(2, 2) + 1),
    "same_tensor_out": lambda L, f: (lambda x: (f(x, 1, out=x), x)[1])(L.arange(4.) + 1),
    "same_tensor_both": lambda L, f: (lambda x: (f(x, x, out=x), x)[1])(L.arange(4.) + 1),
    "equal_views_out": lambda L, f: (lambda x: (f(x[:], 2, out=x[:]), x)[1])(L.arange(4.) + 1),
    "disjoint_halves": lambda L, f: (lambda y: (f(y[:3], 2, out=y[3:]), y)[1])(L.arange(6.) + 1),
    "empty_view": lambda L, f: (lambda y: f(y[:0], 1, out=y[1:1]))(L.arange(6.)),
    "non_dense_input": lambda L, f: (lambda y: (f(y[::2], 1, out=y[3:6])).shape)(L.arange(6.) + 1),
}


@pytest.mark.parametrize("k", range(5), ids=["add", "sub", "mul", "div", "div-floor"])
@pytest.mark.parametrize("name", sorted(OVERLAP_CASES))
def test_memory_overlap_matches_torch(name, k):
    """Internal overlap of the written-to tensor ("more than one element of the written-to
    tensor refers to a single memory location"), partial overlap with an input ("some elements
    of the input tensor and the written-to tensor refer to a single memory location"), and the
    allowed cases: the same tensor, equal views, disjoint ranges, empty views, and non-dense
    inputs ("too hard": allowed; compared by shape only, as the element order of such a
    computation is unspecified)."""
    if name == "expanded_self":
        method = ["add_", "sub_", "mul_", "div_", "div_"][k]

        def fn(L):
            t = L.arange(4.).expand(2, 4)
            return getattr(t, method)(1)
        same(fn)
        return
    same(lambda L: OVERLAP_CASES[name](L, _ops(L)[k]))


def test_in_place_with_an_overlapping_other():
    """z[1:].mul_(z[:-1]) and friends (partial overlap)."""
    for m in ["add_", "sub_", "mul_", "div_"]:
        same(lambda L: (lambda z: getattr(z[1:], m)(z[:-1]))(L.arange(5.) + 1))
        same(lambda L: (lambda z: getattr(z, m)(z))(L.arange(5.) + 1))
        same(lambda L: (lambda z: getattr(z[:2], m)(z[2:4]))(L.arange(5.) + 1))


# ---- bool, alpha, rounding_mode, ZeroDivisionError ------------------------------------------

BOOL_SUB = [
    Case("sub", tensor("bool", (3,), 1), tensor("bool", (3,), 2)),
    Case("sub", tensor("bool", (3,), 1), tensor("bool", (3,), 2), "operator"),
    Case("sub", tensor("bool", (3,), 1), tensor("bool", (), 2), "inplace"),
    Case("sub", tensor("bool", (3,), 1), scalar(True), "inplace_operator"),
    Case("sub", tensor("bool", (3,), 1), scalar(1), "operator"),
    Case("sub", scalar(1), tensor("bool", (3,), 1), "operator"),
    Case("sub", scalar(True), tensor("bool", (3,), 1), "operator"),
    Case("sub", tensor("bool", (3,), 1), tensor("int32", (3,), 2)),
    Case("sub", tensor("int32", (3,), 1), tensor("bool", (3,), 2)),
    Case("sub", tensor("bool", (3,), 1), tensor("bool", (3,), 2), "out",
         out=tensor("int64", (3,))),
    Case("sub", tensor("bool", (3,), 1), tensor("float32", (3,), 2), alpha=2),
    Case("sub", scalar(True), scalar(False)),
    Case("sub", tensor("bool", (0,), 1), tensor("bool", (0,), 2)),
    Case("div", tensor("bool", (3,), 1), tensor("bool", (3,), 2), mode="trunc"),
    Case("div", tensor("bool", (3,), 1), tensor("bool", (3,), 2), "operator", mode="floor"),
    Case("div", tensor("bool", (3,), 1), tensor("bool", (3,), 2)),
    Case("div", tensor("complex64", (3,), 1), tensor("complex64", (3,), 2), mode="floor"),
    Case("div", tensor("complex64", (3,), 1), tensor("complex64", (3,), 2), mode="trunc"),
    Case("div", tensor("complex128", (3,), 1), scalar(2), "operator", mode="floor"),
]


@pytest.mark.parametrize("case", BOOL_SUB, ids=repr)
def test_bool_and_complex_restrictions(case):
    """Bool subtraction (both messages), and the kernels PyTorch lacks: div trunc / floor for
    bool, floor for complex ("div_floor_cpu" not implemented for 'ComplexFloat';
    NotImplementedError in newest PyTorch, see test_tensor_common.newest_type)."""
    check_case(case)


ALPHAS = [2, -1, 0, 2.5, 1.0, True, False, 1j, 1 + 0j, 2**40, -2**63]


@pytest.mark.parametrize("alpha", ALPHAS, ids=repr)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "complex64"])
def test_alpha_rules(alpha, dtype):
    """`For integral input tensors, argument alpha must not be a floating point number.`,
    `Boolean alpha only supported for Boolean results.`, `For non-complex input tensors,
    argument alpha must not be a complex number.`, for add and sub in every variant that takes
    alpha; the result dtype decides (an int tensor plus a float scalar with a float alpha is
    fine)."""
    for op in ["add", "sub"]:
        for variant in ["function", "method", "inplace", "out"]:
            out = tensor(dtype, (3,), 0) if variant == "out" else None
            check_case(Case(op, tensor(dtype, (3,), 1), tensor(dtype, (3,), 2), variant, alpha,
                            out=out))
        check_case(Case(op, tensor(dtype, (3,), 1), scalar(1.5), "function", alpha))
        check_case(Case(op, scalar(3), tensor(dtype, (3,), 1), "function", alpha))


@pytest.mark.parametrize("mode", ["round", "", "Floor", "true", "TRUNC", "floor "])
def test_rounding_mode_errors(mode):
    """`div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'`."""
    for variant in ["function", "method", "inplace", "out"]:
        out = tensor("float32", (3,)) if variant == "out" else None
        check_case(Case("div", tensor("float32", (3,), 1), tensor("float32", (3,), 2), variant,
                        mode=mode, out=out))
    check_case(Case("div", tensor("int32", (3,), 1), scalar(2), "function", mode=mode))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_integer_division_by_zero(dtype, mode):
    """RuntimeError "ZeroDivisionError" for integer trunc / floor division (`//` too) by a zero
    tensor element or a zero scalar, in every variant; true division gives inf / nan; an empty
    tensor divides by zero silently."""
    for variant in ["function", "method", "out", "inplace"] + \
            (["operator", "inplace_operator"] if mode == "floor" else []):
        out = tensor(dtype, (2, 3)) if variant == "out" else None
        ct = check_case(Case("div", tensor(dtype, (2, 3), 1), scalar(0), variant, mode=mode,
                             out=out))
        assert ct.error == (RuntimeError, "ZeroDivisionError")
    check_case(Case("div", tensor(dtype, (4,), 1, nonzero=True), scalar(False), mode=mode))
    check_case(Case("div", scalar(7), tensor("int32", (2,), 0), mode=mode))
    check_case(Case("div", scalar(7), scalar(0), mode=mode))
    check_case(Case("div", tensor(dtype, (0,), 1), scalar(0), mode=mode))
    check_case(Case("div", tensor(dtype, (2, 3), 1), scalar(0)))  # true division: no error

    def with_zero_tensor(L):
        a = L.tensor([7, 8, 9], dtype=getattr(L, dtype))
        b = L.tensor([1, 0, 2], dtype=getattr(L, dtype))
        return L.div(a, b, rounding_mode=mode)
    same(with_zero_tensor)


def test_python_scalar_errors():
    """Python ints that do not fit int64, and operands that are not numbers."""
    for big in [2**63, -2**63 - 1, 2**64]:
        check_case(Case("add", tensor("int64", (2,), 1), scalar(big)))
        check_case(Case("mul", scalar(big), tensor("float32", (2,), 1), "operator"))
        check_case(Case("add", tensor("int64", (2,), 1), tensor("int64", (2,), 2), alpha=big))
    for bad in ["a", None, [1, 2], (1,), object()]:
        for sym in ["+", "-", "*", "/", "//"]:
            same(lambda L: eval("t %s bad" % sym, {"t": L.ones(2), "bad": bad}))
            same(lambda L: eval("bad %s t" % sym, {"t": L.ones(2), "bad": bad}))
    same(lambda L: L.add(L.ones(2), "a"))
    same(lambda L: L.add(L.ones(2), 2, alpha="x"))
    same(lambda L: L.div(L.ones(2), 2, rounding_mode=3))
    same(lambda L: L.mul(L.ones(2), 2, alpha=2))


def test_deprecated_add_overload_warns():
    """add(input, alpha, other) works with PyTorch's one-time deprecation UserWarning."""
    import warnings
    for L in (ctensor, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = L.add(L.ones(2), 2, L.ones(2))
        assert r.tolist() == [3.0, 3.0]
        assert len(w) <= 1  # one-time: torch may have warned already in this process


# ---- devices ---------------------------------------------------------------------------

META_CASES = [
    (("meta", (3,)), ("cpu", ())), (("cpu", ()), ("meta", (3,))), (("meta", (3,)), ("cpu", (3,))),
    (("cpu", (3,)), ("meta", (3,))), (("meta", ()), ("cpu", (3,))),
    (("meta", (2, 3)), ("meta", (3,))),
    (("meta", ()), ("cpu", ())), (("cpu", ()), ("meta", ())),
]


@pytest.mark.parametrize("form", OPS, ids=op_id)
@pytest.mark.parametrize("da,db", META_CASES, ids=str)
def test_meta_device_matches_torch(form, da, db):
    """Meta tensors compute shape, dtype and strides only; a 0-dim cpu tensor joins them, a
    1-d one is "Expected all tensors to be on the same device, but found at least two devices,
    meta and cpu!"; out= and self count."""
    op, alpha, mode = form
    a = tensor("float32", da[1], 1, device=da[0])
    b = tensor("int32", db[1], 2, device=db[0], nonzero=True)
    for variant in variants_of(op, mode):
        out = tensor("float32", (2, 3), 0, device="meta") if variant == "out" else None
        case = Case(op, a, b, variant, alpha, mode, out)
        check_case(case, torch_case=meta_floor_divide(case))
    check_case(Case(op, tensor("float32", (3,), 1), tensor("float32", (3,), 2), "out", alpha,
                    mode, tensor("float32", (3,), 0, device="meta")))
    check_case(Case(op, tensor("float32", (), 1), tensor("float32", (), 2), "out", alpha,
                    mode, tensor("float32", (3,), 0, device="meta")))
    check_case(Case(op, tensor("float32", (), 1), scalar(5), "out", alpha, mode,
                    tensor("float32", (3,), 0, device="meta")))


def meta_floor_divide(case):
    """The case torch 1.13 is asked for the same answer on the meta device. `a // b` and
    `a //= b` are floor_divide, which torch 1.13 runs on the meta device through a Python
    reference implementation with its own device check ("Expected divisor (b) to be on the
    same device (cpu) as dividend (a), but it is found on meta!", and meta // cpu accepted);
    newest PyTorch's floor_divide is the TensorIterator op div(rounding_mode='floor') with the
    cross-device rule. So those are compared with torch's div(..., rounding_mode='floor')."""
    import dataclasses
    if case.mode == "floor" and case.variant in ("operator", "inplace_operator"):
        return dataclasses.replace(case, variant="function" if case.variant == "operator"
                                   else "inplace")
    return None


@settings(max_examples=40, derandomize=True)
@given(data=st.data())
def test_meta_strides_and_dtypes_match_torch(data):
    """Random meta cases (no values): strides and dtypes as torch's meta kernels give them.
    NB: on the meta device PyTorch does not convert mixed-dtype inputs first, so strides can
    differ from the same case on the CPU; ctensor must follow both."""
    import dataclasses
    case = data.draw(cases(kinds=[("tensor", "tensor"), ("tensor", "scalar")]))

    def meta(op):
        return op if op is None or op.kind == "scalar" else dataclasses.replace(op, device="meta")
    cpu_case = case
    case = dataclasses.replace(case, a=meta(case.a), b=meta(case.b), out=meta(case.out))
    # torch's meta kernels skip the dtype checks of its cpu kernels; ctensor's meta tensors
    # run them (bool // bool fails on both): there, meta is compared with torch's cpu outcome
    from arith_util import realize, run
    from arith_compare_util import int_min_hazard
    if not int_min_hazard(cpu_case, realize(torch, cpu_case.a), realize(torch, cpu_case.b)):
        cpu = run(torch, cpu_case)
        if cpu.error is not None and "not implemented for" in cpu.error[1]:
            check_case(case, torch_case=cpu_case)
            return
    check_case(case, torch_case=meta_floor_divide(case))


@pytest.fixture
def cuda():
    ctensor._testing.register_emulated_backend("cuda", 2)
    yield
    gc.collect()
    try:
        ctensor._testing.unregister_backend("cuda")
    except RuntimeError:
        pass


def on_device(case, device):
    """The case's ctensor outcome with the tensors named in `device` on the emulated cuda,
    checked against torch's outcome on the CPU (values, dtype, shape, strides) and the device
    the cross-device rule says the result is on."""
    import dataclasses

    def move(op, where):
        return op if op is None or op.kind == "scalar" or where != "cuda" else \
            dataclasses.replace(op, device="cuda:0")
    moved = dataclasses.replace(case, a=move(case.a, device[0]), b=move(case.b, device[1]),
                                out=move(case.out, device[2] if len(device) > 2 else None))
    return moved


CUDA_OK = [("cuda", "cpu0"), ("cpu0", "cuda"), ("cuda", "scalar"), ("scalar", "cuda"),
           ("cuda", "cuda")]


@pytest.mark.parametrize("form", OPS, ids=op_id)
@pytest.mark.parametrize("where", CUDA_OK, ids=str)
def test_cpu_scalars_join_accelerator_tensors(cuda, form, where):
    """A 0-dim cpu tensor or a Python number combines with a cuda tensor; the result is on
    cuda:0 (the common device), with the values, dtype, shape and strides torch gives on the CPU."""
    op, alpha, mode = form
    import dataclasses

    def operand(kind, seed):
        if kind == "scalar":
            return scalar(3)
        shape = () if kind == "cpu0" else (2, 3)
        return tensor("float32", shape, seed, nonzero=True)
    case = Case(op, operand(where[0], 1), operand(where[1], 2), "function", alpha, mode)
    want = run(torch, case)
    assert want.error is None

    def move(o, kind):
        return dataclasses.replace(o, device="cuda:0") if kind == "cuda" else o
    for variant in ["function", "method", "inplace"] if where[0] == "cuda" else ["function"]:
        c = dataclasses.replace(case, a=move(case.a, where[0]), b=move(case.b, where[1]),
                                variant=variant)
        got = run(ctensor, c)
        assert got.error is None, (c, got.error)
        assert str(got.result.device) == "cuda:0", c
        w = run(torch, dataclasses.replace(case, variant=variant)).result
        assert meta_of(got.result)[:4] == meta_of(w)[:4], c
        assert values_mismatch(as_torch(got.result.cpu()), w, None) is None, c


def test_cpu_scalar_joins_an_accelerator_out(cuda):
    """The common device is the first non-cpu operand, outputs first."""
    r = ctensor.add(ctensor.ones(()), ctensor.ones((), device="cuda:1"),
                    out=ctensor.empty(0, device="cuda:1"))
    assert str(r.device) == "cuda:1" and r.cpu().tolist() == 2.0
    with pytest.raises(RuntimeError) as e:
        ctensor.add(ctensor.ones(()), ctensor.ones((), device="cuda:0"),
                    out=ctensor.empty(0, device="cuda:1"))
    assert str(e.value) == ("Expected all tensors to be on the same device, but found at least "
                            "two devices, cuda:1 and cuda:0!")


DEVICE_ERRORS = [
    # (a, b, out) devices -> message (the common device is named first)
    ("cpu1", "cuda", None, "Expected all tensors to be on the same device, but found at least "
                           "two devices, cuda:0 and cpu!"),
    ("cuda", "cpu1", None, "Expected all tensors to be on the same device, but found at least "
                           "two devices, cuda:0 and cpu!"),
    ("cuda0", "cpu1", None, "Expected all tensors to be on the same device, but found at least "
                            "two devices, cuda:0 and cpu!"),
    ("cpu1", "cuda0", None, "Expected all tensors to be on the same device, but found at least "
                            "two devices, cuda:0 and cpu!"),
    ("cuda", "cuda1:1", None, "Expected all tensors to be on the same device, but found at "
                              "least two devices, cuda:0 and cuda:1!"),
    ("cpu0", "cpu0", "cuda", "Trying to pass too many CPU scalars to non-CPU kernel!"),
    ("cpu0", "scalar", "cuda", "Trying to pass too many CPU scalars to non-CPU kernel!"),
    ("cpu1", "cpu1", "cuda", "Expected all tensors to be on the same device, but found at "
                             "least two devices, cuda:0 and cpu!"),
    ("cuda", "cuda", "cpu1", "Expected all tensors to be on the same device, but found at "
                             "least two devices, cuda:0 and cpu!"),
]


def _dev_tensor(L, kind):
    if kind == "scalar":
        return 3
    shape = () if kind in ("cpu0", "cuda0") else (3,)
    t = L.ones(shape)
    if kind.startswith("cuda"):
        t = t.to("cuda:1" if kind.endswith(":1") else "cuda:0")
    return t


@pytest.mark.parametrize("a,b,out,message", DEVICE_ERRORS,
                         ids=["%s+%s->%s" % e[:3] for e in DEVICE_ERRORS])
def test_device_errors(cuda, a, b, out, message):
    """PyTorch's cross-device messages, for every op and form; torch 1.13 gives the same on the meta
    device (test_meta_device_matches_torch)."""
    for op in ["add", "sub", "mul", "div"]:
        x, y = _dev_tensor(ctensor, a), _dev_tensor(ctensor, b)
        fn = getattr(ctensor, op)
        with pytest.raises(RuntimeError) as e:
            if out is None:
                fn(x, y)
            else:
                fn(x, y, out=_dev_tensor(ctensor, out))
        assert str(e.value) == message
        if out is None and a != "scalar" and x.dim() >= y.dim():
            with pytest.raises(RuntimeError) as e:
                getattr(x, op + "_")(y)
            assert str(e.value) == message


def test_accelerator_scalar_does_not_move_to_cpu(cuda):
    """The newest page's example: a 0-dim cuda tensor plus a 1-d cpu tensor fails, either
    order."""
    for x, y in [(ctensor.ones(()).cuda(), ctensor.ones(1)),
                 (ctensor.ones(1), ctensor.ones(()).cuda())]:
        with pytest.raises(RuntimeError) as e:
            x + y
        assert str(e.value) == ("Expected all tensors to be on the same device, but found at "
                                "least two devices, cuda:0 and cpu!")
