"""Module functions and in-place transposes on sparse COO tensors against PyTorch 1.13.

torch.neg / negative / clone / t / transpose take sparse tensors as their methods do, and
Tensor.t_() / transpose_() transpose a sparse tensor in place (its indices tensor too: an
alias of _indices() sees the swap, as in PyTorch). Each case runs on both modules and compares
the repr of the result, or the exception type and message.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch


def outcome(fn, mod):
    try:
        r = fn(mod)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("raise", type(e).__name__, str(e).split("\n")[0])
    if isinstance(r, (ctensor.Tensor, torch.Tensor)):
        return ("tensor", repr(r).replace("ctensor.", "torch."))
    return ("value", repr(r).replace("ctensor.", "torch."))


def same(fn):
    c, t = outcome(fn, ctensor), outcome(fn, torch)
    assert c == t
    return c


def S2(m):  # 2x3, uncoalesced, a duplicate
    return m.sparse_coo_tensor([[0, 1, 1, 0], [2, 0, 2, 2]], [3.0, 4.0, 5.0, 1.0], (2, 3))


def S3(m):  # 3 sparse dims
    return m.sparse_coo_tensor([[0, 1], [1, 0], [0, 2]], [1.0, 2.0], (2, 2, 3))


def H(m):  # hybrid: 1 sparse, 1 dense dim
    return m.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2, 2))


def V(m):  # 1-dim
    return m.sparse_coo_tensor([[0, 2]], [1, 2], (4,))


def E(m):  # nnz 0
    return m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.long), m.zeros(0), (2, 3))


def state(s):
    return (s, s.shape, s.is_coalesced(), s._indices())


FUNCTIONS = {
    "neg": lambda m: m.neg(S2(m)),
    "neg_kw": lambda m: m.neg(input=S2(m)),
    "neg_coalesced": lambda m: m.neg(S2(m).coalesce()),
    "neg_int": lambda m: m.neg(V(m)),
    "neg_bool": lambda m: m.neg(V(m).bool()),
    "negative": lambda m: m.negative(S2(m)),
    "negative_hybrid": lambda m: m.negative(H(m)),
    "clone": lambda m: m.clone(S2(m)),
    "clone_coalesced": lambda m: m.clone(S2(m).coalesce()),
    "clone_empty": lambda m: m.clone(E(m)),
    "t": lambda m: m.t(S2(m)),
    "t_1d": lambda m: m.t(V(m)),
    "t_3d": lambda m: m.t(S3(m)),
    "t_hybrid": lambda m: m.t(H(m)),
    "t_empty": lambda m: m.t(E(m).coalesce()),
    "transpose": lambda m: m.transpose(S2(m), 0, 1),
    "transpose_neg_dims": lambda m: m.transpose(S3(m), -1, 0),
    "transpose_same": lambda m: m.transpose(S2(m).coalesce(), 1, 1),
    "transpose_kw": lambda m: m.transpose(input=S2(m), dim0=1, dim1=0),
    "transpose_dense_dim": lambda m: m.transpose(H(m), 0, 1),
    "transpose_range": lambda m: m.transpose(S2(m), 0, 2),
    "strided_t": lambda m: m.t(m.arange(6).reshape(2, 3)),
    "strided_transpose": lambda m: m.transpose(m.arange(6).reshape(2, 3), 0, 1),
    "strided_clone": lambda m: m.clone(m.arange(3)),
    "strided_negative": lambda m: m.negative(m.arange(3)),
    "t_not_tensor": lambda m: m.t(1),
    "clone_not_tensor": lambda m: m.clone([1]),
    "add": lambda m: m.add(S2(m), S2(m), alpha=2),
    "sub": lambda m: m.sub(S2(m), S2(m).coalesce()),
    "mul": lambda m: m.mul(S2(m), S2(m)),
    "div": lambda m: m.div(S2(m), 2),
    "true_divide": lambda m: m.true_divide(S2(m), 4),
    "floor_divide": lambda m: m.floor_divide(S2(m), 2),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions(name):
    same(FUNCTIONS[name])


INPLACE = {
    "t_": lambda m: state(S2(m).t_()),
    "t_coalesced": lambda m: state(S2(m).coalesce().t_()),
    "t_1d": lambda m: state(V(m).coalesce().t_()),
    "t_3d": lambda m: state(S3(m).t_()),
    "t_hybrid": lambda m: state(H(m).t_()),
    "t_empty": lambda m: state(E(m).coalesce().t_()),
    "transpose_": lambda m: state(S3(m).coalesce().transpose_(0, 2)),
    "transpose_neg": lambda m: state(S3(m).transpose_(-1, -2)),
    "transpose_same": lambda m: state(S2(m).coalesce().transpose_(1, -1)),
    "transpose_empty": lambda m: state(E(m).coalesce().transpose_(0, 1)),
    "transpose_hybrid_same": lambda m: state(H(m).transpose_(1, 1)),
    "transpose_dense_dim": lambda m: state(H(m).transpose_(0, 1)),
    "transpose_range": lambda m: state(S2(m).transpose_(0, 5)),
    "transpose_kw": lambda m: state(S2(m).transpose_(dim0=1, dim1=0)),
}


@pytest.mark.parametrize("name", INPLACE)
def test_inplace(name):
    same(INPLACE[name])


def test_inplace_returns_self_and_aliases_see_it():
    for m in (ctensor, torch):
        i = m.tensor([[0, 1, 1], [2, 0, 2]])
        s = m.sparse_coo_tensor(i, m.tensor([3.0, 4.0, 5.0]), (2, 3))
        assert s.t_() is s
        assert s.transpose_(0, 1) is s and s.shape == (2, 3)
        assert s.transpose_(1, 0) is s
    c = ctensor.sparse_coo_tensor(ctensor.tensor([[0, 1, 1], [2, 0, 2]]),
                                  ctensor.tensor([3.0, 4.0, 5.0]), (2, 3))
    t = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1], [2, 0, 2]]),
                                torch.tensor([3.0, 4.0, 5.0]), (2, 3))
    ci, ti = c._indices(), t._indices()
    c.t_()
    t.t_()
    assert ci.tolist() == ti.tolist() == [[2, 0, 2], [0, 1, 1]]


@st.composite
def coo(draw):
    sparse_dim = draw(st.integers(1, 3))
    dense = draw(st.lists(st.integers(1, 3), max_size=1))
    sizes = draw(st.lists(st.integers(1, 4), min_size=sparse_dim, max_size=sparse_dim))
    nnz = draw(st.integers(0, 6))
    idx = [[draw(st.integers(0, s - 1)) for _ in range(nnz)] for s in sizes]
    vals = [[draw(st.integers(-5, 5)) for _ in range(dense[0])] if dense
            else draw(st.integers(-5, 5)) for _ in range(nnz)]
    dims = len(sizes) + len(dense)
    d0 = draw(st.integers(-dims, dims - 1))
    d1 = draw(st.integers(-dims, dims - 1))
    coalesce = draw(st.booleans())
    return idx, vals, tuple(sizes + dense), d0, d1, coalesce


def build(m, idx, vals, size, coalesce):
    i = m.tensor(idx, dtype=m.long).reshape(len(idx), -1)
    v = m.tensor(vals, dtype=m.float32).reshape([len(vals)] + list(size[len(idx):]))
    s = m.sparse_coo_tensor(i, v, size)
    return s.coalesce() if coalesce else s


@settings(max_examples=80, deadline=None)
@given(coo())
def test_hypothesis_functions_and_inplace(case):
    idx, vals, size, d0, d1, co = case
    ops = [
        lambda m, s: m.neg(s), lambda m, s: m.negative(s), lambda m, s: m.clone(s),
        lambda m, s: m.t(s), lambda m, s: m.transpose(s, d0, d1),
        lambda m, s: state(s.t_()), lambda m, s: state(s.transpose_(d0, d1)),
        lambda m, s: state(s.transpose_(d0, d1).transpose_(d1, d0)),
    ]
    for op in ops:
        same(lambda m, op=op: op(m, build(m, idx, vals, size, co)))
