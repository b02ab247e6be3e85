"""Advanced indexing against torch 1.13: getitem and setitem with int64 tensors, lists of
ints, bool masks (tensors and lists) and Python bools, mixed with ints, slices, None and
Ellipsis (the rule that moves separated advanced dims to the front), negative and
out-of-range indices, PyTorch's messages; index_select, nonzero (as_tuple=) and
masked_select, take, index_put(_). A hypothesis test builds random index expressions and compares shapes,
dtypes, values, or the exception type and message."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ctensor
import torch

DTYPES = ["uint8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "bool", "bfloat16"]


def make(L, shape, dtype="float32", layout="contiguous"):
    n = int(np.prod(shape)) if shape else 1
    t = L.tensor([(i * 5) % 11 for i in range(n)], dtype=getattr(L, dtype)).reshape(shape)
    if layout == "transposed" and t.dim() >= 2:
        t = t.transpose(0, -1).contiguous().transpose(0, -1)
    return t


def conv(L, item):
    """An index item description as an object of library L."""
    kind, val = item
    if kind == "tensor":
        return L.tensor(val[0], dtype=getattr(L, val[1]))
    if kind == "slice":
        return slice(*val)
    return val


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - compared by type and message
        return ("error", type(e).__name__, str(e))
    if isinstance(r, tuple):
        return tuple(outcome(lambda q=q: q) for q in r)
    if hasattr(r, "shape"):
        v = r.float().tolist() if r.dtype in (ctensor.bfloat16, torch.bfloat16) else r.tolist()
        return (tuple(r.shape), str(r.dtype).split(".")[-1], v)
    return r


def check(fn):
    c, t = outcome(lambda: fn(ctensor)), outcome(lambda: fn(torch))
    assert c == t


# ---- hand-written cases ---------------------------------------------------------------------

GET = [
    "x[[0, 1]]", "x[:, [2, 0]]", "x[[1], :, [0, 3]]", "x[..., [1, -1]]", "x[:, [0, 1], [1, 2]]",
    "x[None, [0], 1, [1, 2]]", "x[x > 5]", "x[L.tensor([True, False])]",
    "x[:, [True, False, True]]", "x[True]", "x[:, False]", "x[[0, 5]]", "x[:, :, [7]]",
    "x[:, [-4]]", "x[L.tensor([1.])]", "x[[[0, 1]], [[0], [1]]]", "x[[0, 1], [0, 1, 2]]",
    "x[L.ones(3, dtype=L.bool)]", "x[0, [1, 2]]", "x[[1], None, :, [0]]",
    "x[[0], [0], [0], [0]]", "x[L.tensor(True)]", "x[[]]", "x[L.tensor([[1, 0], [0, 1]])]",
    "x[L.ones(2, 3, dtype=L.bool)]", "x[L.ones(2, 4, dtype=L.bool)]",
    "x[L.tensor([1, 0], dtype=L.uint8)]", "x[[1.7, 0]]", "x[L.tensor([0], dtype=L.int32)]",
    "x[1:, [0, 2], ::2]", "x[[0, 1], ..., [1, 2]]",
]


@pytest.mark.parametrize("expr", GET)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_getitem(expr, layout):
    check(lambda L: eval(expr, {"L": L, "x": make(L, (2, 3, 4), layout=layout)}))


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_dtypes(dtype):
    check(lambda L: make(L, (3, 4), dtype)[[2, 0], 1:])
    check(lambda L: make(L, (3, 4), dtype)[make(L, (3, 4), "int64") > 4])


SET = [
    "x[[0, 1]] = 5", "x[:, [2, 0]] = L.ones(4)", "x[[1], :, [0, 3]] = L.zeros(3, 2)",
    "x[x > 5] = 0", "x[x > 5] = L.tensor(1., dtype=L.float64)",
    "x[[0]] = L.zeros(3, 4, dtype=L.float64)", "x[[0, 1]] = L.zeros(5)",
    "x[[0, 1]] = L.zeros(1, 1, 3, 4)", "x[:, [True, False, True]] = -1", "x[[1, 0]] = x",
    "x[[0, 9]] = 1", "x[L.tensor([[True, False, True], [False, False, True]])] = "
    "L.arange(12.).reshape(3, 4)", "x[..., [0]] = 2.5", "x[[0]] = 1e40",
    "x[L.tensor([True, False])] = L.tensor([7.], dtype=L.float64)",
    "x[[0]] = L.tensor(1., dtype=L.float64)", "x[[-1, -2], 0] = L.tensor([1., 2.])",
    "x[[]] = 3",
]


@pytest.mark.parametrize("stmt", SET)
def test_setitem(stmt):
    def run(L):
        x = make(L, (2, 3, 4))
        exec(stmt, {"L": L, "x": x})
        return x
    check(run)


OPS = [
    "L.index_select(x, 1, L.tensor([2, 0]))", "x.index_select(-1, L.tensor([3]))",
    "x.index_select(0, L.tensor([5]))", "x.index_select(0, L.tensor([[0]]))",
    "x.index_select(0, L.tensor([0.]))", "L.tensor(5.).index_select(0, L.tensor([0]))",
    "x.index_select(0, L.tensor(1))", "x.index_select(1, L.tensor([1, 1, 0], dtype=L.int32))",
    "y.nonzero()", "L.nonzero(y, as_tuple=True)", "L.tensor(3).nonzero()",
    "L.tensor(3).nonzero(as_tuple=True)", "L.masked_select(x, x > 4)",
    "x.masked_select(L.tensor([True, False, True, True]))",
    "x.masked_select(L.tensor([1, 0, 1, 1]))", "x.masked_select(L.tensor([True, False]))",
    "L.zeros(0, 3).nonzero()", "x.transpose(0, 2).nonzero()",
    "x.take(L.tensor([[0, 23], [-1, 2]]))", "L.take(x, L.tensor([24]))",
    "x.take(L.tensor([1.]))", "x.transpose(0, 2).take(L.tensor([1, 5]))",
    "x.clone().index_put_((L.tensor([0, 0]),), L.tensor(1.), accumulate=True)",
    "L.index_put(x, (L.tensor([1]), L.tensor([2])), L.tensor(9.))",
    "x.clone().index_put_([L.tensor([1])], L.tensor(1., dtype=L.float64))",
]


@pytest.mark.parametrize("expr", OPS)
def test_ops(expr):
    check(lambda L: eval(expr, {"L": L, "x": make(L, (2, 3, 4)),
                                "y": L.tensor([[0, 1, 0], [2, 0, 3]])}))


# ---- random index expressions ---------------------------------------------------------------

def item_strategy(size):
    """One index item for a dim of `size` (its description, built for each library)."""
    ints = st.integers(-size - 1, size) if size else st.integers(-1, 1)
    return st.one_of(
        ints.map(lambda i: ("plain", i)),
        st.tuples(st.none() | st.integers(-size - 1, size + 1),
                  st.none() | st.integers(-size - 1, size + 1),
                  st.none() | st.integers(1, 3)).map(lambda s: ("slice", s)),
        st.just(("plain", None)),
        st.lists(ints, max_size=3).map(lambda v: ("plain", v)),
        st.lists(ints, min_size=1, max_size=3).map(lambda v: ("tensor", (v, "int64"))),
        st.lists(st.booleans(), min_size=size, max_size=size).map(
            lambda v: ("tensor", (v, "bool"))),
        st.lists(st.booleans(), min_size=max(size, 1), max_size=max(size, 1)).map(
            lambda v: ("plain", v)),
        st.booleans().map(lambda b: ("plain", b)),
    )


@st.composite
def expressions(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))
    n = draw(st.integers(1, len(shape) + 1))
    items = [draw(item_strategy(shape[min(i, len(shape) - 1)])) for i in range(n)]
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), ("plain", Ellipsis))
    return shape, items


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(expressions(), st.booleans())
def test_random_getitem(expr, setvalue):
    shape, items = expr

    def run(L):
        x = make(L, shape)
        index = tuple(conv(L, i) for i in items)
        if not setvalue:
            return x[index]
        x[index] = -1
        return x
    check(run)
