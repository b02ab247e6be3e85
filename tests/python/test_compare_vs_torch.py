"""Comparisons (eq ne lt le gt ge, their aliases, methods, in-place forms, out= and the
operators == != < <= > >=) against torch 1.13: result dtype, shape, strides and values (bool,
exact), errors (type and message; a missing kernel is NotImplementedError as in newest
PyTorch), and `bool(t)`.

Operands come from arith_util (values with the dtype's extremes, zeros, infinities, NaN and
subnormals); every case is computed by both libraries and compared with
test_tensor_common.same."""
import itertools
import operator

import ctensor
import pytest
import torch
from hypothesis import given, settings, strategies as st

from arith_util import DTYPES, realize, scalar, tensor
from test_tensor_common import same

OPS = ["eq", "ne", "lt", "le", "gt", "ge"]
ALIASES = {"not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
           "greater_equal": "ge"}
SYMBOLS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
           "gt": operator.gt, "ge": operator.ge}
SCALARS = [0, 1, -1, 300, 2.5, -0.0, float("nan"), float("inf"), True, False, 1 + 0j, 2j]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)))
def test_function_every_dtype_pair(op, da, db):
    a, b = tensor(da, (3, 4), seed=1), tensor(db, (4,), seed=2)
    same(lambda lib: getattr(lib, op)(realize(lib, a), realize(lib, b)))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_python_scalar_operands(op, da, value):
    a = tensor(da, (5,), seed=3)
    same(lambda lib: getattr(lib, op)(realize(lib, a), value))
    same(lambda lib: SYMBOLS[op](realize(lib, a), value))
    same(lambda lib: SYMBOLS[op](value, realize(lib, a)))  # reflected: value op t


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("da,db", [("int64", "float32"), ("uint8", "int8"), ("float16", "int64"),
                                   ("bool", "int32"), ("bfloat16", "float64"),
                                   ("complex64", "float32")])
def test_zero_dim_operands(op, da, db):
    a, b = tensor(da, (6,), seed=4), tensor(db, (), seed=5)
    same(lambda lib: SYMBOLS[op](realize(lib, a), realize(lib, b)))
    same(lambda lib: SYMBOLS[op](realize(lib, b), realize(lib, a)))
    same(lambda lib: SYMBOLS[op](realize(lib, b), realize(lib, b)))


@pytest.mark.parametrize("op", OPS)
def test_broadcast_and_views(op):
    a = tensor("float32", (4, 5), seed=6, views=(("permute", (1, 0)),))
    b = tensor("int32", (4, 1), seed=7, views=(("permute", (1, 0)),))
    c = tensor("float64", (6, 8), seed=8, views=(("slice", ((0, 6, 2), (1, 8, 3))),))
    d = tensor("int16", (3,), seed=9, views=(("expand", (3, 3)),))
    same(lambda lib: SYMBOLS[op](realize(lib, a), realize(lib, b)))
    same(lambda lib: SYMBOLS[op](realize(lib, c), realize(lib, d)))
    e = tensor("float32", (2, 3, 4, 5), seed=10, views=(("cl",),))
    same(lambda lib: SYMBOLS[op](realize(lib, e), realize(lib, tensor("float32", (2, 3, 4, 5)))))
    same(lambda lib: getattr(lib, op)(realize(lib, tensor("int8", (2, 3))),
                                      realize(lib, tensor("int8", (4, 3)))))


@pytest.mark.parametrize("op", OPS + list(ALIASES))
@pytest.mark.parametrize("dout", DTYPES)
def test_out_every_dtype(op, dout):
    a, b = tensor("int32", (2, 3), seed=11), tensor("float32", (3,), seed=12)

    def f(lib):
        out = lib.empty((2, 3), dtype=getattr(lib, dout))
        r = getattr(lib, op)(realize(lib, a), realize(lib, b), out=out)
        assert r is out
        return out
    same(f)

    def resized(lib):  # an empty out= is resized without a warning
        out = lib.empty(0, dtype=getattr(lib, dout))
        getattr(lib, op)(realize(lib, a), 1.5, out=out)
        return out
    same(resized)


@pytest.mark.parametrize("op", OPS + list(ALIASES))
@pytest.mark.parametrize("dself", DTYPES)
def test_inplace_keeps_dtype(op, dself):
    def f(lib):
        base = realize(lib, tensor(dself, (4, 3), seed=13))
        view = base.t()[1:]
        r = getattr(view, op + "_")(realize(lib, tensor("float64", (3,), seed=14)))
        assert r is view
        return base
    same(f)
    same(lambda lib: getattr(realize(lib, tensor(dself, (3,), seed=15)), op + "_")(2))


@pytest.mark.parametrize("op", OPS + list(ALIASES))
def test_methods_and_aliases(op):
    a, b = tensor("int64", (3, 2), seed=16), tensor("bfloat16", (2,), seed=17)
    same(lambda lib: getattr(realize(lib, a), op)(realize(lib, b)))
    same(lambda lib: getattr(realize(lib, a), op)(0.5))
    same(lambda lib: getattr(lib, op)(input=realize(lib, a), other=3))


def test_errors():
    a = tensor("float32", (2, 3))
    same(lambda lib: realize(lib, a).eq_(realize(lib, tensor("float32", (4, 2, 3)))))
    same(lambda lib: lib.lt(realize(lib, a), realize(lib, tensor("float32", (4,)))))
    same(lambda lib: lib.eq(realize(lib, a)))
    same(lambda lib: lib.eq(realize(lib, a), "x"))
    same(lambda lib: realize(lib, a) < "x")
    same(lambda lib: realize(lib, a) == None)  # noqa: E711 - identity fallback: False
    same(lambda lib: realize(lib, a) != "x")
    same(lambda lib: lib.gt(realize(lib, tensor("complex128", (2,))), 0))
    same(lambda lib: realize(lib, tensor("complex64", (2,))) <= 1j)

    def overlap(lib):
        t = realize(lib, tensor("float32", (3,)))
        return lib.eq(t, 1.0, out=t.expand(2, 3))
    same(overlap)


def test_meta_and_hash():
    m = ctensor.ones(2, 3, device="meta") < ctensor.ones(3, device="meta")
    assert m.dtype == ctensor.bool and m.shape == (2, 3) and m.device.type == "meta"
    with pytest.raises(NotImplementedError, match="lt_cpu"):
        ctensor.ones(2, dtype=ctensor.complex64, device="meta") < 1
    t = ctensor.ones(2)
    assert hash(t) == id(t) and {t: 1}[t] == 1
    assert (t == t).tolist() == [True, True]


@pytest.mark.parametrize("value,dtype", [(0, "int64"), (3, "int8"), (0.0, "float32"),
                                         (float("nan"), "float64"), (0j, "complex64"),
                                         (True, "bool"), (1, "float16")])
def test_bool_of_one_element(value, dtype):
    same(lambda lib: bool(lib.tensor([value], dtype=getattr(lib, dtype))))
    same(lambda lib: bool(lib.tensor(value, dtype=getattr(lib, dtype))))


def test_bool_ambiguous():
    same(lambda lib: bool(lib.ones(2)))
    same(lambda lib: bool(lib.ones(0)))
    same(lambda lib: "yes" if lib.tensor([1, 2]) == lib.tensor([1, 2]) else "no")


@pytest.mark.parametrize("element", ["1", "7", "1.0", "True", "2+0j", "np.int64(3)",
                                     "np.float32(7)", "lib.tensor(1)", "lib.tensor([1, 3])",
                                     "lib.tensor([[1], [5]])", "lib.tensor([1, 2, 3])",
                                     "lib.tensor([], dtype=lib.int64)", "'a'", "None", "[1]"])
def test_in(element):
    """`element in t` is (element == t).any() for a tensor or a number, PyTorch's error for
    anything else; a tensor element broadcasts (or fails to) against t."""
    import numpy as np  # noqa: F401 - used by the element expressions

    def fn(lib):
        return eval(element) in lib.tensor([1, 3])
    same(fn)
    same(lambda lib: eval(element) in lib.tensor([], dtype=lib.float32))


@settings(max_examples=150, derandomize=True, deadline=None)
@given(op=st.sampled_from(OPS), da=st.sampled_from(DTYPES), db=st.sampled_from(DTYPES),
       sa=st.sampled_from([(), (1,), (3,), (2, 3), (2, 1), (0,), (1, 3)]),
       sb=st.sampled_from([(), (1,), (3,), (2, 3), (2, 1), (0, 3)]),
       seed=st.integers(0, 1000), form=st.sampled_from(["fn", "op", "method"]))
def test_random_pairs(op, da, db, sa, sb, seed, form):
    a, b = tensor(da, sa, seed=seed), tensor(db, sb, seed=seed + 1)
    if form == "fn":
        same(lambda lib: getattr(lib, op)(realize(lib, a), realize(lib, b)))
    elif form == "op":
        same(lambda lib: SYMBOLS[op](realize(lib, a), realize(lib, b)))
    else:
        same(lambda lib: getattr(realize(lib, a), op)(realize(lib, b)))


def test_large_mixed_threads():
    """Many elements (several threads, chunked conversion) agree with torch."""
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-50, 50, (70001,), generator=g, dtype=torch.int32)
    y = (torch.rand(70001, generator=g) * 100 - 50).round()
    cx, cy = ctensor.tensor(x.tolist(), dtype=ctensor.int32), ctensor.tensor(y.tolist())
    for op in OPS:
        assert getattr(ctensor, op)(cx, cy).tolist() == getattr(torch, op)(x, y).tolist()
        assert getattr(ctensor, op)(cy, cy[0]).tolist() == getattr(torch, op)(y, y[0]).tolist()


# ---- classification: isnan isinf isfinite isposinf isneginf isreal --------------------------

CLASSIFY = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal"]


@pytest.mark.parametrize("fn", CLASSIFY)
@pytest.mark.parametrize("dt", DTYPES)
def test_classify_every_dtype(fn, dt):
    a = tensor(dt, (4, 6), seed=21)
    v = tensor(dt, (4, 6), seed=22, views=(("permute", (1, 0)),))
    z = tensor(dt, (), seed=23)
    same(lambda lib: getattr(lib, fn)(realize(lib, a)))
    same(lambda lib: getattr(realize(lib, v), fn)())
    same(lambda lib: getattr(lib, fn)(realize(lib, z)))


@pytest.mark.parametrize("fn", ["isposinf", "isneginf"])
@pytest.mark.parametrize("dout", DTYPES)
def test_classify_out(fn, dout):
    def f(lib):
        out = lib.empty(0, dtype=getattr(lib, dout))
        r = getattr(lib, fn)(realize(lib, tensor("float32", (5,), seed=24)), out=out)
        assert r is out
        return out
    same(f)


@pytest.mark.parametrize("fn", CLASSIFY)
def test_classify_errors(fn):
    same(lambda lib: getattr(lib, fn)(realize(lib, tensor("float32", (2,))), out=None))
    same(lambda lib: getattr(lib, fn)(2.0))
    same(lambda lib: getattr(lib, fn)())
    m = getattr(ctensor, fn)(ctensor.ones(2, 3, device="meta"))
    assert m.dtype == ctensor.bool and m.shape == (2, 3)


# ---- maximum minimum fmax fmin ----------------------------------------------------------------

MINMAX = ["maximum", "minimum", "fmax", "fmin"]


@pytest.mark.parametrize("fn", MINMAX)
@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)))
def test_minmax_every_dtype_pair(fn, da, db):
    a, b = tensor(da, (3, 4), seed=31), tensor(db, (4,), seed=32)
    same(lambda lib: getattr(lib, fn)(realize(lib, a), realize(lib, b)))


@pytest.mark.parametrize("fn", MINMAX)
@pytest.mark.parametrize("dout", DTYPES)
def test_minmax_out_and_forms(fn, dout):
    a = tensor("float32", (4, 3), seed=33, views=(("permute", (1, 0)),))
    b = tensor("int16", (), seed=34)

    def f(lib):
        out = lib.empty((3, 4), dtype=getattr(lib, dout))
        r = getattr(lib, fn)(realize(lib, a), realize(lib, b), out=out)
        assert r is out
        return out
    same(f)
    same(lambda lib: getattr(realize(lib, a), fn)(realize(lib, b)))
    same(lambda lib: getattr(lib, fn)(realize(lib, a), 2))
    same(lambda lib: getattr(realize(lib, a), fn + "_")(realize(lib, b)))


def test_minmax_large():
    """Long runs (threads, ISA loops) with NaN in both operands."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(50003, generator=g)
    y = torch.randn(50003, generator=g)
    x[::7] = float("nan")
    y[::11] = float("nan")
    cx, cy = ctensor.tensor(x.tolist()), ctensor.tensor(y.tolist())
    for fn in MINMAX:
        want = getattr(torch, fn)(x, y)
        got = getattr(ctensor, fn)(cx, cy)
        assert [v if v == v else "nan" for v in got.tolist()] == \
            [v if v == v else "nan" for v in want.tolist()], fn


# ---- isclose allclose equal -------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"rtol": 0.5}, {"atol": 1.0}, {"rtol": 0, "atol": 0},
                                {"equal_nan": True}, {"rtol": 1e-3, "atol": 1e-2,
                                                      "equal_nan": True}], ids=repr)
def test_isclose_allclose_every_dtype(dt, kw):
    a, b = tensor(dt, (3, 4), seed=41), tensor(dt, (4,), seed=41)
    c = tensor(dt, (3, 4), seed=42)
    same(lambda lib: lib.isclose(realize(lib, a), realize(lib, b), **kw))
    same(lambda lib: lib.isclose(realize(lib, a), realize(lib, c), **kw))
    same(lambda lib: realize(lib, a).isclose(realize(lib, a), **kw))
    same(lambda lib: lib.allclose(realize(lib, a), realize(lib, c), **kw))
    same(lambda lib: realize(lib, a).allclose(realize(lib, a), **kw))


def test_isclose_near_values():
    def f(lib):
        x = lib.tensor([1.0, 2.0, 100.0, -3.0, 0.0, 1e-9])
        y = lib.tensor([1.000001, 2.1, 100.0001, -3.00001, 1e-8, 0.0])
        return [lib.isclose(x, y), lib.isclose(x.half(), y.half()),
                lib.isclose(x.bfloat16(), y.bfloat16(), rtol=0.01),
                lib.isclose(x.double(), y.double(), atol=0)]
    same(f)


def test_close_and_equal_errors():
    same(lambda lib: lib.isclose(lib.tensor([1]), lib.tensor([1.0])))
    same(lambda lib: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0]), rtol=-1))
    same(lambda lib: lib.allclose(lib.tensor([1.0]), lib.tensor([1.0]), atol=-0.5))
    same(lambda lib: lib.isclose(lib.tensor([1.0]), 1.0))
    same(lambda lib: lib.isclose(lib.ones(2), lib.ones(3)))
    same(lambda lib: lib.equal(lib.tensor([1]), 1))


@pytest.mark.parametrize("da,db", [("int64", "float32"), ("float32", "float32"),
                                   ("bool", "uint8"), ("complex64", "float64"),
                                   ("float16", "bfloat16")])
def test_equal(da, db):
    a = tensor(da, (3, 4), seed=43)
    same(lambda lib: lib.equal(realize(lib, a), realize(lib, tensor(db, (3, 4), seed=43))))
    same(lambda lib: lib.equal(realize(lib, a), realize(lib, tensor(db, (4, 3), seed=43))))
    same(lambda lib: realize(lib, a).equal(realize(lib, tensor(db, (3, 4), seed=44))))
    same(lambda lib: lib.equal(realize(lib, tensor(da, (4, 3), seed=1, views=(("permute", (1, 0)),))),
                               realize(lib, tensor(da, (4, 3), seed=1)).t().contiguous()))
