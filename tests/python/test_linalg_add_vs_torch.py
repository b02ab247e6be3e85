"""addmm_, baddbmm_, addbmm, addmv and addr (with out= and in-place forms) against torch 1.13:
shapes, strides, dtypes, values (small integers, so every summation order is exact) and
errors, on contiguous, transposed and broadcast inputs, with beta and alpha."""
import numpy as np
import pytest

import ctensor
import torch
from test_tensor_common import same


def m(L, shape, dtype="float32", start=0, t=False):
    n = int(np.prod(shape)) if shape else 1
    x = L.tensor([(start + i) % 5 - 2 for i in range(n)], dtype=getattr(L, dtype)).reshape(shape)
    if t and x.dim() >= 2:
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


NAN = float("nan")

CASES = [
    # addmm_, baddbmm_
    lambda L: m(L, [3, 5]).addmm_(m(L, [3, 4], t=True), m(L, [4, 5], start=1)),
    lambda L: m(L, [3, 5]).addmm_(m(L, [3, 4]), m(L, [4, 5]), beta=2, alpha=-1),
    lambda L: m(L, [1, 5]).addmm_(m(L, [3, 4]), m(L, [4, 5])),
    lambda L: m(L, [3, 5], "float64").addmm_(m(L, [3, 4]), m(L, [4, 5])),
    lambda L: m(L, [3, 5], "int32").addmm_(m(L, [3, 4], "int32"), m(L, [4, 5], "int32"), beta=3),
    lambda L: m(L, [5, 3]).t().addmm_(m(L, [3, 4]), m(L, [4, 5])),
    lambda L: m(L, [2, 3, 5]).baddbmm_(m(L, [2, 3, 4]), m(L, [2, 4, 5]), alpha=2),
    lambda L: m(L, [1, 3, 5]).baddbmm_(m(L, [2, 3, 4]), m(L, [2, 4, 5])),
    # addbmm
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4]), m(L, [2, 4, 5], start=2)),
    lambda L: L.addbmm(m(L, [5]), m(L, [2, 3, 4], t=True), m(L, [2, 4, 5]), beta=2, alpha=3),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [0, 3, 4]), m(L, [0, 4, 5]), beta=2),
    lambda L: L.addbmm(m(L, [3, 5]) * NAN, m(L, [2, 3, 4]), m(L, [2, 4, 5]), beta=0),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3]), m(L, [2, 4, 5])),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4]), m(L, [2, 4])),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4]), m(L, [3, 4, 5])),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4]), m(L, [2, 3, 5])),
    lambda L: L.addbmm(m(L, [3, 5], "int32"), m(L, [2, 3, 4]), m(L, [2, 4, 5])),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4], "int32"), m(L, [2, 4, 5])),
    lambda L: L.addbmm(m(L, [2, 3, 5]), m(L, [2, 3, 4]), m(L, [2, 4, 5])),
    lambda L: L.addbmm(m(L, [3, 5], "int64"), m(L, [2, 3, 4], "int64"), m(L, [2, 4, 5], "int64")),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4]), m(L, [2, 4, 5]), out=L.empty(0)),
    lambda L: L.addbmm(m(L, [3, 5]), m(L, [2, 3, 4]), m(L, [2, 4, 5]),
                       out=L.empty(0, dtype=L.float64)),
    lambda L: m(L, [3, 5]).addbmm(m(L, [2, 3, 4]), m(L, [2, 4, 5]), beta=-1),
    lambda L: m(L, [3, 5]).addbmm_(m(L, [2, 3, 4]), m(L, [2, 4, 5])),
    # addmv
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4]), m(L, [4], start=1)),
    lambda L: L.addmv(m(L, [3]), m(L, [4, 3], t=True).t(), m(L, [4]), beta=2, alpha=3),
    lambda L: L.addmv(m(L, [1]), m(L, [3, 4]), m(L, [4])),
    lambda L: L.addmv(m(L, []), m(L, [3, 4]), m(L, [4])),
    lambda L: L.addmv(m(L, [2]), m(L, [3, 4]), m(L, [4])),
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4]), m(L, [5])),
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4, 1]), m(L, [4])),
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4]), m(L, [4, 1])),
    lambda L: L.addmv(m(L, [3, 1]), m(L, [3, 4]), m(L, [4])),
    lambda L: L.addmv(m(L, [3], "float64"), m(L, [3, 4]), m(L, [4])),
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4], "float64"), m(L, [4])),
    lambda L: L.addmv(m(L, [3], "int32"), m(L, [3, 4], "int32"), m(L, [4], "int32"), beta=2),
    lambda L: L.addmv(m(L, [3]) * NAN, m(L, [3, 4]), m(L, [4]), beta=0),
    lambda L: L.addmv(m(L, [1]), m(L, [0, 4]), m(L, [4])),
    lambda L: L.addmv(m(L, []), m(L, [3, 0]), m(L, [0]), beta=2),
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4]), m(L, [4]), out=L.empty(0)),
    lambda L: L.addmv(m(L, [3]), m(L, [3, 4]), m(L, [4]), out=L.empty(0, dtype=L.float64)),
    lambda L: m(L, [3]).addmv(m(L, [3, 4]), m(L, [4]), alpha=-2),
    lambda L: m(L, [3]).addmv_(m(L, [3, 4]), m(L, [4])),
    lambda L: m(L, [1]).addmv_(m(L, [3, 4]), m(L, [4])),
    # addr
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4], start=1)),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4]), beta=2, alpha=3),
    lambda L: L.addr(m(L, [4]), m(L, [3]), m(L, [4])),
    lambda L: L.addr(m(L, [4, 3], t=True).t(), m(L, [3]), m(L, [4])),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3, 1]), m(L, [4])),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [])),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4], "float64")),
    lambda L: L.addr(m(L, [3, 4], "int32"), m(L, [3]), m(L, [4])),
    lambda L: L.addr(m(L, [3, 4], "int32"), m(L, [3], "bool"), m(L, [4], "bool")),
    lambda L: L.addr(m(L, [3, 4], "bool"), m(L, [3], "bool"), m(L, [4], "bool")),
    lambda L: L.addr(m(L, [3, 4], "bool"), m(L, [3], "bool"), m(L, [4], "bool"), beta=False),
    lambda L: L.addr(m(L, [3, 4], "bool"), m(L, [3], "bool"), m(L, [4], "bool"), alpha=2),
    lambda L: L.addr(m(L, [3, 4], "bool"), m(L, [3], "bool"), m(L, [4], "bool"), beta=0.5),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4]), beta=True),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4]), alpha=True),
    lambda L: L.addr(m(L, [3, 4], "int32"), m(L, [3], "int32"), m(L, [4], "int32"), alpha=1.5),
    lambda L: L.addr(m(L, [3, 4], "int64"), m(L, [3], "int32"), m(L, [4], "int8"), beta=-2),
    lambda L: L.addr(m(L, [3, 4], "complex64"), m(L, [3]), m(L, [4]), alpha=1j),
    lambda L: L.addr(m(L, [3, 4]) * NAN, m(L, [3]), m(L, [4]), beta=0),
    lambda L: L.addr(m(L, [2, 4]), m(L, [3]), m(L, [4])),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4]), out=L.empty(0, dtype=L.int32)),
    lambda L: L.addr(m(L, [3, 4]), m(L, [3]), m(L, [4]), out=L.empty(0, dtype=L.float64)),
    lambda L: m(L, [3, 4]).addr(m(L, [3]), m(L, [4]), alpha=2),
    lambda L: m(L, [3, 4]).addr_(m(L, [3]), m(L, [4])),
    lambda L: m(L, [1, 4]).addr_(m(L, [3]), m(L, [4])),
    lambda L: m(L, [3, 4], "int32").addr_(m(L, [3]), m(L, [4])),
    lambda L: m(L, [3, 4]).addr_(m(L, [3], "int32"), m(L, [4], "int32"), alpha=2),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_cases(case):
    same(CASES[case])


def test_inplace_returns_self():
    for name, args in (("addmm_", ([3, 4], [4, 5])), ("baddbmm_", ([2, 3, 4], [2, 4, 5])),
                       ("addbmm_", ([2, 3, 4], [2, 4, 5])), ("addmv_", ([3, 4], [4])),
                       ("addr_", ([3], [5]))):
        shape = {"baddbmm_": [2, 3, 5], "addmv_": [3]}.get(name, [3, 5])
        t = m(ctensor, shape)
        assert getattr(t, name)(*[m(ctensor, a) for a in args]) is t


def test_large_addbmm_close():
    a, b, c = torch.randn(8, 30, 40), torch.randn(8, 40, 50), torch.randn(30, 50)
    r = ctensor.addbmm(ctensor.from_numpy(c.numpy()), ctensor.from_numpy(a.numpy()),
                       ctensor.from_numpy(b.numpy()), beta=0.5, alpha=2)
    assert np.allclose(r.numpy(), torch.addbmm(c, a, b, beta=0.5, alpha=2).numpy(), atol=1e-4)


# addmv / mv with bool and mixed dtypes: 1.13 dispatches on mat's dtype before it reads vec
# (so a bool mat is "not implemented" whatever vec is), and an empty mat takes a shortcut
# with no dtype checks at all (a result of vec's dtype: zeros for beta 0, else input * beta)
def mv_case(inp, mat, vec, **kw):
    def f(L):
        return L.addmv(L.ones(*inp[1], dtype=getattr(L, inp[0])),
                       L.ones(*mat[1], dtype=getattr(L, mat[0])),
                       L.ones(*vec[1], dtype=getattr(L, vec[0])), **kw)
    return f


B2, B22, F2, F22 = ("bool", [2]), ("bool", [2, 2]), ("float32", [2]), ("float32", [2, 2])
MV_CASES = [
    mv_case(B2, B22, B2), mv_case(F2, B22, B2), mv_case(B2, F22, F2), mv_case(F2, B22, F2),
    mv_case(F2, F22, B2), mv_case(B2, B22, B2, beta=0), mv_case(B2, B22, B2, beta=1.5),
    mv_case(B2, B22, B2, alpha=2), mv_case(("bool", [1]), B22, B2),
    mv_case(("bool", [0]), ("bool", [0, 2]), B2), mv_case(B2, ("bool", [2, 0]), ("bool", [0])),
    mv_case(B2, ("bool", [2, 0]), ("bool", [0]), beta=0),
    mv_case(F2, ("bool", [2, 0]), ("int64", [0])),
    mv_case(("int64", [2]), ("bool", [2, 0]), ("float32", [0])),
    mv_case(("int64", [2]), ("int64", [2, 0]), ("int64", [0]), beta=1.5),
    mv_case(("float32", [0]), ("bool", [0, 2]), F2), mv_case(B2, ("float32", [2, 0]), ("float32", [0])),
    mv_case(("float64", [2]), ("float32", [2, 0]), ("float32", [0])),
    lambda L: L.ones(2).addmv_(L.ones(2, 2, dtype=L.bool), L.ones(2)),
    lambda L: L.addmv(L.ones(2), L.ones(2, 2, dtype=L.bool), L.ones(2), out=L.ones(2)),
    lambda L: L.mv(L.ones(2, 2, dtype=L.bool), L.ones(2)),
    lambda L: L.mv(L.ones(2, 2), L.ones(2, dtype=L.bool)),
    lambda L: L.mv(L.ones(2, 0, dtype=L.bool), L.ones(0, dtype=L.bool)),
    lambda L: L.mv(L.ones(0, 2, dtype=L.bool), L.ones(2, dtype=L.bool)),
    lambda L: L.mv(L.ones(2, 0, dtype=L.bool), L.ones(0)),
]


@pytest.mark.parametrize("case", range(len(MV_CASES)))
def test_addmv_bool_and_mixed_dtypes(case):
    same(MV_CASES[case])
