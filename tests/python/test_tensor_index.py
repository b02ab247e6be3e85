"""Basic indexing against torch 1.13: t[index] with ints, slices (steps, negative and
out-of-range bounds), None, Ellipsis and tuples of them, on random shapes and strided inputs;
t[index] = value with numbers (range-checked) and tensors (broadcast); the errors; len() and
iteration. Advanced indexing is not implemented: NotImplementedError."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch
from conftest import SHARED
from test_tensor_common import outcome, same

BOUND = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from([2**40, -(2**40)]))
ITEM = st.one_of(
    st.integers(-5, 5),
    st.builds(slice, BOUND, BOUND, st.one_of(st.none(), st.integers(1, 3))),
    st.just(None),
    st.just(Ellipsis),
)
INDEX = st.one_of(ITEM, st.lists(ITEM, max_size=5).map(tuple))


@st.composite
def bases(draw):
    shape = draw(st.lists(st.integers(0, 4), max_size=4))
    transpose = len(shape) >= 2 and draw(st.booleans())
    return shape, transpose


def build(L, recipe, dtype="float32"):
    shape, transpose = recipe
    n = 1
    for s in shape:
        n *= s
    t = L.arange(n).to(getattr(L, dtype)).reshape(shape)
    return t.transpose(0, 1) if transpose else t


@settings(max_examples=300)
@given(bases(), INDEX)
def test_getitem_like_torch(recipe, index):
    call_outcome(lambda L: build(L, recipe)[index])


@settings(max_examples=150)
@given(bases(), INDEX, st.one_of(st.integers(-300, 300), st.floats(-1e3, 1e3), st.booleans()),
       st.sampled_from(["float32", "int32", "uint8", "bool", "float16"]))
def test_setitem_number_like_torch(recipe, index, value, dtype):
    def call(L):
        t = build(L, recipe, dtype)
        t[index] = value
        return t
    call_outcome(call)


@settings(max_examples=150)
@given(bases(), INDEX, st.lists(st.integers(0, 3), max_size=3),
       st.sampled_from(["float64", "int64"]))
def test_setitem_tensor_like_torch(recipe, index, value_shape, value_dtype):
    def call(L):
        t = build(L, recipe)
        n = 1
        for s in value_shape:
            n *= s
        t[index] = L.arange(n).to(getattr(L, value_dtype)).reshape(value_shape)
        return t
    call_outcome(call)


CASES = [
    "z[0]", "z[1]", "z[-1]", "z[...]", "z[None]", "z[:]", "z[()]", "z[(0,)]", "z[None, ...]",
    "t[5]", "t[-3]", "t[0, 5]", "t[0, 0, 0]", "t[..., ...]", "t[::0]", "t[::-1]",
    "t[:, 10:]", "t[2**70]", "t[1.5]", "t['a']", "t[b'a']", "t[[0, 1]]", "t[L.tensor([0])]",
    "t[L.tensor(1)]", "t[L.tensor(1.)]", "t[True]", "t[None, ..., None]",
    "t[(0,)]", "t[np.int64(1)]", "t[0:2**65]", "t[[slice(None), 0]]", "t[[0, slice(None)]]",
    "t[(slice(None), None, 0)]", "t[..., 1]", "t[1, ...]", "t[..., 1, ...]", "t[:, -1]",
    "t[-1:-3]", "t[-100:100:2]", "t[{}]", "t[object()]", "t[[None]]", "t[[[0]]]",
    "t[L.tensor(True)]", "t[np.array([0])]",
]


@pytest.mark.parametrize("expr", CASES)
def test_getitem_cases(expr):
    def call(L):
        t = L.arange(6.0).reshape(2, 3)
        return eval(expr, {"t": t, "z": L.tensor(5.0), "np": np, "L": L})
    call_outcome(call)


def call_outcome(call):
    """Compare, letting ctensor refuse advanced indexing (which torch implements) and indices
    after a second Ellipsis that point past the last dim (where torch reads out of bounds);
    returns ctensor's outcome when it refused."""
    a, b = outcome(call, ctensor), outcome(call, torch)
    if a[0] == "err" and a[1] is NotImplementedError and "advanced indexing" in a[2]:
        return a
    if a == ("err", IndexError, "an index can only have a single ellipsis ('...')"):
        return a
    assert a == b, (a, b)
    return None


SET_CASES = [
    ("t[0]", "1e20", "int32"), ("t[0]", "L.tensor(1e20)", "int32"),
    ("t[:]", "L.tensor([1e20, 1, 1])", "int32"), ("t[0]", "2**63", "int32"),
    ("t[0]", "[1, 2]", "int32"), ("t[0]", "'a'", "int32"), ("t[0]", "None", "float32"),
    ("t[0]", "1+2j", "int32"), ("t[0]", "L.ones(1, 1, 3)", "int32"), ("t[0]", "L.ones(2)", "int32"),
    ("t[0]", "L.ones(2, 3)", "int32"), ("t[0, 5:6]", "2**40", "int32"), ("t[0]", "-1", "uint8"),
    ("t[0]", "256", "uint8"), ("t[0]", "-256", "uint8"), ("t[...]", "2.7", "int64"),
    ("t[...]", "2.7", "bool"), ("t[1:]", "t[:-1]", "float32"), ("t[:]", "t", "float32"),
    ("t[0]", "t[1]", "float32"), ("t[0]", "np.float32(2.5)", "float32"),
    ("t[0]", "np.int64(3)", "uint8"), ("t[0]", "True", "float32"), ("t[0]", "1j", "complex64"),
    ("t[0]", "L.tensor(3)", "float32"), ("t[0]", "L.tensor([[[3]]])", "float32"),
    ("t[True]", "1", "float32"), ("t[[0]]", "1", "float32"), ("t[1.5]", "1", "float32"),
    ("t[0]", "L.tensor(300)", "uint8"), ("t[0]", "L.tensor([300, 1, 2])", "uint8"),
]


@pytest.mark.parametrize("index,value,dtype", SET_CASES)
def test_setitem_cases(index, value, dtype):
    def call(L):
        t = L.arange(6.0).reshape(2, 3).to(getattr(L, dtype))
        v = eval(value, {"L": L, "t": t, "np": np})
        exec(f"{index} = v", {"t": t, "v": v})
        return t
    call_outcome(call)


def test_several_ellipses():
    """PyTorch lets every Ellipsis skip the unnamed dims; where that points past the last dim
    it reads out of bounds, and ctensor refuses as NumPy does."""
    same(lambda L: L.ones(2, 3)[..., ...])
    same(lambda L: L.arange(6).reshape(2, 3)[..., 1, ...])
    with pytest.raises(IndexError, match="single ellipsis"):
        ctensor.ones(2, 3)[..., ..., 0]


def test_delitem():
    same(lambda L: L.ones(2).__delitem__(0))


def test_setitem_shares_memory_with_views():
    t = ctensor.zeros(3, 4)
    v = t[1:, ::2]
    v[0] = 7
    t[..., -1] = ctensor.tensor([1.0, 2.0, 3.0])
    expected = torch.zeros(3, 4)
    expected[1:, ::2][0] = 7
    expected[..., -1] = torch.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == expected.tolist()


@pytest.mark.parametrize("dtype", SHARED)
def test_setitem_all_dtypes(dtype):
    def call(L):
        t = L.zeros(4, dtype=getattr(L, dtype))
        t[1] = 1
        t[2:] = L.tensor([True, False])
        return t
    same(call)


def test_advanced_indexing_matches_torch():
    # the full coverage is test_index_vs_torch.py
    for index in ["[0, 1]", "L.tensor([0])", "True", "(0, [1])", "L.tensor([True, False])"]:
        same(lambda L: L.arange(6.0).reshape(2, 3)[eval(index, {"L": L})])


# ---- len and iteration ------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (0, 2), (2, 0)], ids=repr)
def test_len_and_iter(shape):
    same(lambda L: len(L.ones(shape)))
    same(lambda L: list(L.ones(shape)))
    same(lambda L: [x.shape for x in L.ones(shape)])
    same(lambda L: L.ones(shape).unbind(0) if shape else L.ones(shape).unbind())
