"""hstack, vstack (row_stack), dstack, column_stack and atleast_1d / 2d / 3d against torch
1.13: result dtype, shape, strides, values and identity (atleast_* return the tensor itself
when it has the dims), out= with its resize warning, views of the input (atleast_* write
through), promotion of mixed dtypes, 0-dim, empty and non-contiguous inputs, and the errors
with torch's type and message; a hypothesis sweep over random shapes."""
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch


def describe(L, r):
    if isinstance(r, tuple) and r and hasattr(r[0], "dtype"):
        return tuple(describe(L, x) for x in r)
    if hasattr(r, "dtype"):
        return (str(r.dtype).split(".")[1], tuple(r.shape), tuple(r.stride()), r.tolist())
    return r


def outcome(L, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            res = ("ok", describe(L, f(L)))
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            res = ("err", type(e).__name__, str(e).replace("torch.", "ctensor."))
    return res, [str(x.message).split(" (Triggered internally")[0] for x in w]


def a(L):
    return L.arange(3)


def b(L):
    return L.arange(3, 6)


def m(L):
    return L.ones(2, 3)


CALLS = [
    lambda L: L.hstack([a(L), b(L)]),
    lambda L: L.vstack([a(L), b(L)]),
    lambda L: L.row_stack((a(L), b(L))),
    lambda L: L.dstack([a(L), b(L)]),
    lambda L: L.column_stack([a(L), b(L)]),
    lambda L: L.hstack([m(L), m(L)]),
    lambda L: L.vstack([m(L), a(L)]),
    lambda L: L.hstack([L.tensor(1), L.tensor(2)]),
    lambda L: L.vstack((a(L), b(L).float())),
    lambda L: L.hstack([a(L).to(L.int8), L.tensor([True, False])]),
    lambda L: L.column_stack([m(L), a(L).view(3, 1).t()]),
    lambda L: L.column_stack([L.tensor(1), L.tensor(2)]),
    lambda L: L.column_stack([m(L).t(), m(L).t()]),
    lambda L: L.dstack([L.ones(2, 3, 4), L.ones(2, 3)]),
    lambda L: L.dstack([m(L).t(), m(L).t()]),
    lambda L: L.vstack([L.ones(0), L.ones(0)]),
    lambda L: L.hstack([L.ones(0, 2), L.ones(0, 3)]),
    lambda L: L.hstack([a(L), b(L)], out=L.empty(6, dtype=L.int64)),
    lambda L: L.vstack([a(L), b(L)], out=L.empty(1)),
    lambda L: L.column_stack([a(L), b(L)], out=L.empty(0, dtype=L.float64)),
    lambda L: L.atleast_1d(L.tensor(1)),
    lambda L: L.atleast_2d(a(L)),
    lambda L: L.atleast_2d(L.tensor(1.5)),
    lambda L: L.atleast_3d(m(L)),
    lambda L: L.atleast_3d(a(L)),
    lambda L: L.atleast_3d(L.tensor(1.0)),
    lambda L: L.atleast_3d(m(L).t()),
    lambda L: L.atleast_3d(L.arange(8.0)[::2]),
    lambda L: L.atleast_2d(L.ones(0)),
    lambda L: L.atleast_2d(a(L), b(L)),
    lambda L: L.atleast_1d([a(L)]),
    lambda L: L.atleast_3d((a(L), m(L), L.tensor(2))),
    lambda L: L.atleast_1d(),
    lambda L: L.atleast_1d(a(L)) is not None,
    # errors
    lambda L: L.hstack([]),
    lambda L: L.vstack([]),
    lambda L: L.dstack(()),
    lambda L: L.column_stack([]),
    lambda L: L.row_stack([]),
    lambda L: L.hstack([a(L), m(L)]),
    lambda L: L.vstack([m(L), L.ones(4)]),
    lambda L: L.hstack(a(L)),
    lambda L: L.hstack([a(L), 1]),
    lambda L: L.hstack([a(L)], 0),
    lambda L: L.vstack([a(L), b(L)], out=L.empty(6, dtype=L.bool)),
    lambda L: L.atleast_1d(a(L), 1),
    lambda L: L.atleast_1d([a(L), 1]),
    lambda L: L.atleast_1d("x"),
    lambda L: L.atleast_1d(input=a(L)),
    lambda L: L.atleast_2d(None),
]


@pytest.mark.parametrize("k", range(len(CALLS)))
def test_like_torch(k):
    assert outcome(ctensor, CALLS[k]) == outcome(torch, CALLS[k])


def test_atleast_identity_and_views():
    for L in (torch, ctensor):
        x, y = L.arange(3.0), L.ones(2, 3)
        assert L.atleast_1d(x) is x and L.atleast_2d(y) is y and L.atleast_3d(L.ones(1, 1, 1, 1)).dim() == 4
        assert L.atleast_2d((x, y))[1] is y
        v = L.atleast_3d(x)
        v[0, 1, 0] = 7  # a view
        assert x.tolist() == [0.0, 7.0, 2.0]
        s = L.tensor(4.0)
        L.atleast_2d(s)[0, 0] = 5
        assert s.item() == 5.0


@settings(max_examples=80, deadline=None, derandomize=True)
@given(kind=st.sampled_from(["hstack", "vstack", "dstack", "column_stack"]),
       ndim=st.integers(0, 3), n=st.integers(1, 3), size=st.integers(0, 3),
       cat_size=st.lists(st.integers(0, 3), min_size=3, max_size=3),
       transposed=st.booleans(), dtypes=st.lists(st.sampled_from(["int32", "float32", "bool"]),
                                                  min_size=3, max_size=3))
def test_hypothesis_like_torch(kind, ndim, n, size, cat_size, transposed, dtypes):
    def call(L):
        ts = []
        for i in range(n):
            shape = [size + 1] * ndim
            if ndim:  # the joined dim may differ between inputs
                along = {"hstack": 0 if ndim == 1 else 1, "vstack": 0, "dstack": 2,
                         "column_stack": 1}[kind]
                if along < ndim:
                    shape[along] = cat_size[i]
            t = L.arange(int(__import__("math").prod(shape)) or 1)[:int(
                __import__("math").prod(shape))].reshape(shape).to(getattr(L, dtypes[i]))
            if transposed and ndim >= 2:
                t = t.transpose(0, 1).contiguous().transpose(0, 1)
            ts.append(t)
        return getattr(L, kind)(ts)
    assert outcome(ctensor, call) == outcome(torch, call)


MESH = [
    lambda L: L.meshgrid(L.arange(3), L.arange(3), indexing="ij"),
    lambda L: L.meshgrid([L.arange(3), L.arange(3) + 1, L.arange(2)], indexing="xy"),
    lambda L: L.meshgrid((L.arange(4.0), L.arange(2.0)), indexing="xy"),
    lambda L: L.meshgrid(L.arange(3), indexing="xy"),
    lambda L: L.meshgrid(L.tensor(1), L.arange(3), indexing="ij"),
    lambda L: L.meshgrid(L.arange(3), L.ones(0, dtype=L.int64), indexing="ij"),
    lambda L: L.meshgrid(L.arange(6)[::2], L.arange(2), L.arange(2), indexing="ij"),
    lambda L: L.meshgrid(L.arange(3), L.arange(2.0), indexing="ij"),
    lambda L: L.meshgrid(indexing="ij"),
    lambda L: L.meshgrid([], indexing="ij"),
    lambda L: L.meshgrid(L.arange(3), indexing="ab"),
    lambda L: L.meshgrid(L.arange(3), 1, indexing="ij"),
    lambda L: L.meshgrid(L.arange(3), indexing="ij", sparse=True),
]


@pytest.mark.parametrize("k", range(len(MESH)))
def test_meshgrid_like_torch(k):
    assert outcome(ctensor, MESH[k]) == outcome(torch, MESH[k])


def test_meshgrid_views_and_errors():
    x, y = ctensor.arange(3), ctensor.arange(2)
    gx, gy = ctensor.meshgrid(x, y, indexing="ij")
    x[1] = 9  # views of the inputs
    assert gx.tolist() == [[0, 0], [9, 9], [2, 2]] and gy.tolist() == [[0, 1]] * 3
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        ctensor.meshgrid(ctensor.ones(2, 2), indexing="ij")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        torch.meshgrid(torch.ones(2, 2), indexing="ij")


def test_meshgrid_warns_once_without_indexing():
    """PyTorch's TORCH_WARN_ONCE: the first call without indexing= in a process warns."""
    import subprocess
    import sys
    script = ("import warnings, ctensor\n"
              "warnings.simplefilter('always')\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    a, b = ctensor.meshgrid(ctensor.arange(2), ctensor.arange(3))\n"
              "    ctensor.meshgrid(ctensor.arange(2))\n"
              "print(len(w), tuple(a.shape), w[0].message if w else '')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == ("1 (2, 3) torch.meshgrid: in an upcoming release, it will be required to "
                   "pass the indexing argument.")
