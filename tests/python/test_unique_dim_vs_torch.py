"""unique(dim=) and unique_consecutive (dim=None and dim=) against torch 1.13: values, dtypes,
shapes, strides of output / inverse / counts, every dtype torch's CPU takes and its errors,
empty and non-contiguous inputs; random small-valued tensors through hypothesis (there the
strides of outputs with a size-1 dim are not compared)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from test_tensor_common import same

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64"]


def ten(L, dtype, shape, seed=0, layout="contiguous"):
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 2 if dtype == "bool" else 3, int(np.prod(shape))).reshape(shape)
    t = L.tensor(v.tolist(), dtype=L.float64).to(getattr(L, dtype))
    if layout == "transposed" and t.dim() >= 2:
        t = t.transpose(0, -1).contiguous().transpose(0, -1)
    return t


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(dtype):
    for dim in (0, 1, -1):
        same(lambda L: L.unique(ten(L, dtype, (6, 3)), dim=dim, return_inverse=True,
                                return_counts=True))
        same(lambda L: L.unique_consecutive(ten(L, dtype, (6, 3)), dim=dim, return_inverse=True,
                                            return_counts=True))
    same(lambda L: L.unique_consecutive(ten(L, dtype, (6, 3)), return_inverse=True,
                                        return_counts=True))
    same(lambda L: ten(L, dtype, (4, 2)).unique_consecutive())


def test_cases():
    x = lambda L: L.tensor([[1, 2], [1, 2], [0, 5], [1, 2]])
    cases = [
        lambda L: L.unique(x(L), dim=0, return_inverse=True),
        lambda L: L.unique(x(L), dim=1, sorted=False, return_counts=True),
        lambda L: x(L).unique(dim=0),
        lambda L: L.unique(x(L), dim=2),
        lambda L: L.unique(L.zeros(0, 2), dim=0, return_counts=True, return_inverse=True),
        lambda L: L.unique(L.zeros(2, 0), dim=0),
        lambda L: L.unique(L.zeros(2, 0), dim=1),
        lambda L: L.unique(L.zeros(0, 0), dim=0),
        lambda L: L.unique_consecutive(L.zeros(0, 2), dim=1),
        lambda L: L.unique_consecutive(L.zeros(0, 2), return_inverse=True, return_counts=True),
        lambda L: L.unique(L.tensor(3.), dim=0),
        lambda L: L.unique_consecutive(L.tensor(3.), return_inverse=True, return_counts=True),
        lambda L: L.unique_consecutive(L.tensor(3.), dim=0),
        lambda L: x(L).unique_consecutive(dim=-1),
        lambda L: x(L).unique_consecutive(return_counts=True),
        lambda L: x(L).t().unique_consecutive(dim=0, return_inverse=True),
        lambda L: L.unique(L.tensor([True, False, True]), dim=0, return_inverse=True),
    ]
    for c in cases:
        same(c)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3).flatmap(lambda nd: st.tuples(
    st.lists(st.integers(1, 5), min_size=nd, max_size=nd), st.integers(-nd, nd - 1),
    st.sampled_from(["int64", "float32", "bool", "int8"]), st.integers(0, 1000),
    st.sampled_from(["contiguous", "transposed"]), st.booleans())))
def test_random(c):
    shape, dim, dtype, seed, layout, consecutive = c
    f = "unique_consecutive" if consecutive else "unique"

    def run(L):
        o, i, c = getattr(L, f)(ten(L, dtype, tuple(shape), seed, layout), dim=dim,
                                return_inverse=True, return_counts=True)
        # the strides of size-1 dims of a view are torch's view arithmetic, not semantics
        return (o.clone(memory_format=L.contiguous_format) if 1 in o.shape else o), i, c
    same(run)
    if consecutive:
        same(lambda L: L.unique_consecutive(ten(L, dtype, tuple(shape), seed, layout),
                                            return_inverse=True, return_counts=True))
