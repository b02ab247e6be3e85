"""Element-wise unary ops (ctensor/unary.def rows) on sparse COO tensors against torch 1.13.

The rows' `sparse` column decides: COALESCE rows (abs, sqrt, sin, ..., op(0) == 0) run on the
values of the coalesced input and give a coalesced result, in place only on a coalesced
tensor ("sqrt_ requires coalesced input"), out= into a sparse tensor of any dtype the dense op
can cast to; VALUES rows (neg, positive) keep indices and flag; the others raise PyTorch's
NotImplementedError "Could not run 'aten::exp' with arguments from the 'SparseCPU' backend.".
Every dtype, coalesced and uncoalesced, nnz 0, hybrid (dense dims), meta; also swapaxes /
swapdims (aliases of transpose). Each case runs on both modules and compares the result
(layout, dtype, shape, flag, indices, values) or the exception type and message.
"""
import math

import pytest

import ctensor
import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
ROWS = [name for name in ("neg", "positive", "abs", "sign", "sgn", "floor", "ceil", "trunc",
                          "frac", "round", "reciprocal", "logical_not", "bitwise_not", "exp",
                          "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
                          "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                          "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "relu")]
SUPPORTED = {"abs", "sign", "sgn", "floor", "ceil", "trunc", "round", "expm1", "log1p", "sqrt",
             "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "erf"}


def S(m, dtype, coalesced):  # 2x3; uncoalesced: unsorted with a duplicate
    ind = [[0, 1, 1], [2, 0, 2]] if coalesced else [[1, 0, 0, 1], [0, 2, 2, 0]]
    val = [0.5, -0.25, 0.75] if coalesced else [0.5, -0.25, 0.125, 0.25]
    s = m.sparse_coo_tensor(m.tensor(ind), m.tensor(val, dtype=m.float64).to(getattr(m, dtype)),
                            (2, 3))
    return s.coalesce() if coalesced else s


def H(m):  # hybrid: 1 sparse, 1 dense dim, uncoalesced
    return m.sparse_coo_tensor([[1, 0, 1]], [[0.25, 0.5], [0.75, -0.5], [0.125, 0.0]], (2, 2))


def E(m):  # nnz 0
    return m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.long), m.zeros(0), (2, 3))


def close(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(close, a, b))
    if isinstance(a, complex) or isinstance(b, complex):
        return close(complex(a).real, complex(b).real) and close(complex(a).imag, complex(b).imag)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b or (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-2 if a else 0,
                                                            abs_tol=1e-6))


def outcome(fn, mod):
    try:
        return described(fn(mod))
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("raise", type(e), str(e).split("\n")[0].split(" This could be")[0])


def described(r):
    if r.is_sparse:
        return ("sparse", str(r.dtype).split(".")[-1], tuple(r.shape), r.is_coalesced(),
                r._indices().tolist(), r._values().float().tolist()
                if r.dtype in (ctensor.float16, torch.float16) else r._values().tolist())
    return ("strided", str(r.dtype).split(".")[-1], tuple(r.shape), None, None, r.tolist())


def same(fn):
    c, t = outcome(fn, ctensor), outcome(fn, torch)
    if t[0] == "raise" and "not implemented for 'Half'" in t[2]:
        return  # newest PyTorch computes float16 there, as ctensor's dense ops do
    assert c[0] == t[0], (c, t)
    if t[0] == "raise":
        # ctensor's NotImplementedError subclasses RuntimeError ("not implemented for" errors
        # of the dense kernels raise it, as newest PyTorch)
        assert issubclass(c[1], t[1]) or (c[1].__name__ == t[1].__name__), (c, t)
        assert c[2] == t[2]
        return
    assert c[:5] == t[:5], (c, t)
    assert close(c[5], t[5]), (c, t)


def inplace(name):
    def f(m, dtype, coalesced):
        s = S(m, dtype, coalesced)
        r = getattr(s, name + "_")()
        assert r is s
        return s
    return f


@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ROWS)
def test_function_method_inplace(name, dtype, coalesced):
    same(lambda m: getattr(m, name)(S(m, dtype, coalesced)))
    same(lambda m: getattr(S(m, dtype, coalesced), name)())
    if hasattr(torch.Tensor, name + "_"):
        same(lambda m: inplace(name)(m, dtype, coalesced))


@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("out_dtype", ["float64", "float32", "int64", "bool", "complex64"])
@pytest.mark.parametrize("name", [n for n in ROWS if n != "positive"])  # torch: no out=
def test_out(name, out_dtype, coalesced):
    def f(m):  # out= of another shape and dtype: resized, coalesced
        o = m.sparse_coo_tensor((4,), dtype=getattr(m, out_dtype))
        r = getattr(m, name)(S(m, "float32", coalesced), out=o)
        assert r is o
        return o
    same(f)

    def self_out(m):  # out= is the input
        s = S(m, "float32", coalesced)
        getattr(m, name)(s, out=s)
        return s
    same(self_out)
    same(lambda m: getattr(m, name)(S(m, "float32", coalesced), out=m.zeros(2, 3)))
    same(lambda m: getattr(m, name)(m.ones(2, 3), out=S(m, "float32", coalesced)))


@pytest.mark.parametrize("name", ROWS)
def test_hybrid_empty_meta(name):
    same(lambda m: getattr(m, name)(H(m)))
    same(lambda m: getattr(m, name)(E(m)))
    same(lambda m: getattr(m, name)(m.sparse_coo_tensor((2, 3), device="meta")))
    if hasattr(torch.Tensor, name + "_"):
        same(lambda m: (lambda s: (getattr(s, name + "_")(), s)[1])(H(m)))
        same(lambda m: (lambda s: (getattr(s, name + "_")(), s)[1])(H(m).coalesce()))
        same(lambda m: (lambda s: (getattr(s, name + "_")(), s)[1])(E(m)))


def test_supported_set_is_the_tables():
    # the rows torch 1.13 runs on SparseCPU are exactly the table's COALESCE rows
    for name in ROWS:
        if name in ("neg", "positive", "logical_not"):
            continue
        c = outcome(lambda m: getattr(m, name)(S(m, "float64", True)), ctensor)
        assert (c[0] == "sparse") == (name in SUPPORTED), (name, c)


def test_round_decimals_and_operators():
    same(lambda m: m.round(S(m, "float32", True), decimals=1))
    same(lambda m: m.round(S(m, "float32", True), decimals=0))
    same(lambda m: S(m, "float32", True).round(decimals=2))
    same(lambda m: S(m, "float32", True).round_(decimals=2))
    same(lambda m: m.round(S(m, "float32", True), decimals=1, out=S(m, "float32", True)))
    same(lambda m: abs(S(m, "float32", False)))
    same(lambda m: -S(m, "int64", False))
    same(lambda m: ~S(m, "bool", True))
    same(lambda m: m.round(m.tensor([0.25, 1.5]), decimals=1))
    s = S(ctensor, "float32", False)
    assert +s is s and ctensor.positive(s) is s


def test_result_owns_its_indices():
    for m in (ctensor, torch):
        s = S(m, "float32", True)
        r = m.sqrt(s)
        r._indices()[0, 0] = 1
        assert s._indices()[0, 0].item() == 0


@pytest.mark.parametrize("name", ["swapaxes", "swapdims"])
def test_swapaxes_swapdims(name):
    same(lambda m: getattr(m, name)(S(m, "float32", False), 0, 1))
    same(lambda m: getattr(S(m, "float32", True), name)(1, 0))
    same(lambda m: getattr(S(m, "float32", True), name)(1, 1))
    same(lambda m: getattr(S(m, "float32", True), name)(0, 2))
    same(lambda m: getattr(m, name)(H(m), 0, 1))
    same(lambda m: (lambda s: (getattr(s, name + "_")(0, -1), s)[1])(S(m, "float32", False)))
    same(lambda m: (lambda s: (getattr(s, name + "_")(0, 1), s)[1])(H(m)))
    kw = {"axis0": 0, "axis1": 1} if name == "swapaxes" else {"dim0": 0, "dim1": 1}
    same(lambda m: getattr(S(m, "float32", True), name)(**kw))
