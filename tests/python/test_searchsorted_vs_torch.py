"""searchsorted and bucketize against torch 1.13: results (dtype, shape, strides, values) for
1-D and N-D sorted sequences, left / right / side=, out_int32, sorter=, scalar values, mixed
dtypes, NaN, empty and non-contiguous inputs, out=; errors with torch's type and message.
Random sorted rows through hypothesis."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ctensor
import torch
from test_tensor_common import same

warnings.filterwarnings("ignore", message="torch.searchsorted")
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def srt(L, dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    v = np.sort(rng.integers(0, 20, int(np.prod(shape))).reshape(shape), axis=-1)
    return L.tensor(v.tolist(), dtype=L.float64).to(getattr(L, dtype))


def vals(L, dtype, shape, seed=1):
    rng = np.random.default_rng(seed)
    return L.tensor(rng.integers(-2, 23, int(np.prod(shape))).reshape(shape).tolist(),
                    dtype=L.float64).to(getattr(L, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(dtype):
    for right in (False, True):
        same(lambda L: L.searchsorted(srt(L, dtype, (10,)), vals(L, dtype, (3, 4)), right=right))
        same(lambda L: L.searchsorted(srt(L, dtype, (3, 10)), vals(L, dtype, (3, 4)), right=right,
                                      out_int32=True))
        same(lambda L: L.bucketize(vals(L, dtype, (5,)), srt(L, dtype, (7,)), right=right))


def test_cases():
    s = lambda L: L.tensor([1., 3, 5, 7])
    v = lambda L: L.tensor([[3., 6, 9], [0, 1, 7]])
    cases = [
        lambda L: L.searchsorted(s(L), v(L), side="right"),
        lambda L: L.searchsorted(s(L), v(L), side="left"),
        lambda L: L.searchsorted(s(L), v(L), side="left", right=True),
        lambda L: L.searchsorted(s(L), v(L), side="right", right=True),
        lambda L: L.searchsorted(s(L), v(L), side="foo"),
        lambda L: L.searchsorted(s(L), 5),
        lambda L: L.searchsorted(s(L), 5.5, right=True),
        lambda L: L.searchsorted(s(L), L.tensor(5)),
        lambda L: L.searchsorted(s(L).int(), v(L)),
        lambda L: L.searchsorted(s(L), v(L).double()),
        lambda L: L.searchsorted(s(L).long(), L.tensor([2**60, -2**60])),
        lambda L: L.searchsorted(L.tensor([[1, 3], [2, 4]]), L.tensor([[2], [3]])),
        lambda L: L.searchsorted(L.tensor([[1, 3], [2, 4]]), L.tensor([[2], [3], [4]])),
        lambda L: L.searchsorted(L.tensor([[1, 3], [2, 4]]), L.tensor([2, 3])),
        lambda L: L.searchsorted(L.tensor([[1, 3], [2, 4]]), L.tensor(2)),
        lambda L: L.searchsorted(L.tensor(1.), L.tensor([2.])),
        lambda L: L.searchsorted(L.tensor([3., 1, 2]), L.tensor([2., 0, 5]),
                                 sorter=L.tensor([1, 2, 0])),
        lambda L: L.searchsorted(L.tensor([3., 1, 2]), L.tensor([2., 0, 5]), side="right",
                                 sorter=L.tensor([1, 2, 0])),
        lambda L: L.searchsorted(L.tensor([3., 1, 2]), L.tensor([2.]), sorter=L.tensor([1, 2])),
        lambda L: L.searchsorted(L.tensor([3., 1, 2]), L.tensor([2.]),
                                 sorter=L.tensor([1, 2, 0]).int()),
        lambda L: L.searchsorted(s(L), v(L), out=L.zeros(2, 3, dtype=L.int32)),
        lambda L: L.searchsorted(s(L), v(L), out_int32=True, out=L.zeros(2, 3, dtype=L.int64)),
        lambda L: L.searchsorted(s(L), v(L), out=L.zeros(0, dtype=L.int64)),
        lambda L: L.searchsorted(s(L), v(L), out_int32=True, out=L.zeros(0, dtype=L.int32)),
        lambda L: L.searchsorted(L.tensor([1., float("nan")]), L.tensor([float("nan"), 2., 0.])),
        lambda L: L.searchsorted(L.tensor([1., float("nan")]), L.tensor([float("nan"), 2.]),
                                 right=True),
        lambda L: L.bucketize(v(L), s(L)),
        lambda L: L.bucketize(v(L), s(L), right=True, out_int32=True),
        lambda L: L.bucketize(5, s(L)),
        lambda L: L.bucketize(v(L), s(L).reshape(2, 2)),
        lambda L: L.bucketize(v(L), s(L).int()),
        lambda L: L.bucketize(v(L), s(L), out=L.zeros(0, dtype=L.long)),
        lambda L: L.searchsorted(L.zeros(0), v(L)),
        lambda L: L.searchsorted(L.zeros(2, 0), L.zeros(2, 3)),
        lambda L: L.searchsorted(s(L).bool(), v(L).bool()),
        lambda L: L.searchsorted(s(L).bool(), L.zeros(0, dtype=L.bool)),
        lambda L: L.searchsorted(s(L).to(L.complex64), v(L).to(L.complex64)),
        lambda L: L.searchsorted(s(L)[::2], v(L)[:, ::2]),
        lambda L: L.searchsorted(L.tensor([[1., 2, 3], [4, 5, 6]]).t().contiguous().t(),
                                 L.tensor([[2., 5], [0, 7]])),
        lambda L: L.searchsorted(s(L), L.zeros(2, 0)),
        lambda L: L.searchsorted(L.tensor([[1., 2], [3, 4]]), L.tensor([[2.], [9.]]),
                                 sorter=L.tensor([[0, 1], [1, 0]])),
    ]
    for c in cases:
        same(c)


@st.composite
def case(draw):
    lead = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2))))
    n = draw(st.integers(0, 9))
    m = draw(st.integers(0, 6))
    one_d = draw(st.booleans())
    dtype = draw(st.sampled_from(["int64", "float32", "int16", "float64"]))
    vdtype = draw(st.sampled_from(["int64", "float32", "int16", "float64"]))
    return lead, n, m, one_d, dtype, vdtype, draw(st.booleans()), draw(st.booleans()), \
        draw(st.integers(0, 1000))


@settings(max_examples=200, deadline=None)
@given(case())
def test_random(c):
    lead, n, m, one_d, dtype, vdtype, right, i32, seed = c
    bshape = (n,) if one_d else lead + (n,)
    vshape = lead + (m,)
    same(lambda L: L.searchsorted(srt(L, dtype, bshape, seed), vals(L, vdtype, vshape, seed),
                                  right=right, out_int32=i32))

    def with_sorter(L):
        b = srt(L, dtype, bshape, seed)
        rng = np.random.default_rng(seed)
        perm = np.argsort(rng.random(bshape), axis=-1) if n else np.zeros(bshape, np.int64)
        shuffled = L.tensor(np.take_along_axis(np.array(b.tolist()), perm, -1).tolist(),
                            dtype=b.dtype)
        sorter = L.tensor(np.argsort(perm, axis=-1, kind="stable").tolist(), dtype=L.int64)
        return L.searchsorted(shuffled, vals(L, vdtype, vshape, seed), right=right,
                              sorter=sorter.reshape(bshape))
    if n:
        same(with_sorter)


def test_threads_agree():
    old = ctensor.get_num_threads()
    try:
        outs = []
        for t in (1, 2):
            ctensor.set_num_threads(t)
            outs.append(ctensor.searchsorted(srt(ctensor, "float32", (1000,)),
                                             vals(ctensor, "float32", (50000,))).tolist())
        assert outs[0] == outs[1] == torch.searchsorted(srt(torch, "float32", (1000,)),
                                                        vals(torch, "float32", (50000,))).tolist()
    finally:
        ctensor.set_num_threads(old)
