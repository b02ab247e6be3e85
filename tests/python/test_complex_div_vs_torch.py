"""Complex true division against PyTorch 1.13, bit for bit, on a grid of special values.

PyTorch 1.13 divides complex numbers by the textbook formula (Note [Complex division] in
src/kernels/binary_elem.h): its vector body rounds every step, its scalar loops (the end of a
row that does not fill two vectors, and rows of other strides) are fused by the compiler. The
grid puts 0, -0, +-1, huge, tiny, +-inf and nan in both parts of both operands; the cases
cover both kinds of loop: long contiguous rows (body and end), one-element and strided rows
(scalar loop only), and a Python or 0-dim divisor.
"""
import math

import numpy as np
import pytest

import ctensor
import torch

BIG = {"complex64": 3e38, "complex128": 1e308}
TINY = {"complex64": 1e-38, "complex128": 1e-308}


def parts(dtype):
    return [0.0, -0.0, 1.0, -1.0, BIG[dtype], TINY[dtype], 1e308, 1e-308, 2.5, math.inf,
            -math.inf, math.nan]


def grid(dtype):
    p = parts(dtype)
    return [complex(r, i) for r in p for i in p]


def bits(t):
    a = np.ascontiguousarray(t.numpy())
    real = a.real.view(np.uint32 if a.dtype == np.complex64 else np.uint64)
    imag = a.imag.view(np.uint32 if a.dtype == np.complex64 else np.uint64)
    return np.stack([real, imag]).tolist()


def both(fn):
    c, t = fn(ctensor), fn(torch)
    assert str(c.dtype).replace("ctensor.", "") == str(t.dtype).replace("torch.", "")
    assert bits(c) == bits(t)


DTYPES = ["complex64", "complex128"]


def pairs(m, dtype):
    g = grid(dtype)
    dt = getattr(m, dtype)
    a = m.tensor([x for x in g for _ in g], dtype=dt)
    b = m.tensor([y for _ in g for y in g], dtype=dt)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_by_tensor_contiguous(dtype):
    both(lambda m: (lambda a, b: a / b)(*pairs(m, dtype)))
    both(lambda m: (lambda a, b: m.true_divide(a, b))(*pairs(m, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 4, 7, 8, 9, 17])
def test_row_lengths(dtype, n):
    # every (body, end) split of a row: the first n elements of the grid pairs, shifted
    for start in range(0, 144 * 144 - n, 997):
        both(lambda m: (lambda a, b: a[start:start + n] / b[start:start + n])(*pairs(m, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided(dtype):
    both(lambda m: (lambda a, b: a[::2] / b[::2])(*pairs(m, dtype)))
    both(lambda m: (lambda a, b: a[1::3] / b[::3])(*pairs(m, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_element_and_zero_dim(dtype):
    g = grid(dtype)
    for x in g[::7]:
        for y in g[::5]:
            both(lambda m: m.tensor([x], dtype=getattr(m, dtype)) / m.tensor([y], dtype=getattr(m, dtype)))
            both(lambda m: m.tensor(x, dtype=getattr(m, dtype)) / m.tensor(y, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_by_scalar(dtype):
    g = grid(dtype)
    for y in g:
        both(lambda m: m.tensor(g, dtype=getattr(m, dtype)) / y)
        both(lambda m: m.true_divide(m.tensor(g, dtype=getattr(m, dtype)), y))
        both(lambda m: m.tensor(g, dtype=getattr(m, dtype)) / m.tensor(y, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_and_random(dtype):
    def run(m):
        g = torch.Generator().manual_seed(0)
        a = torch.randn(1000, dtype=getattr(torch, dtype), generator=g) * 1e3
        b = torch.randn(1000, dtype=getattr(torch, dtype), generator=g)
        a, b = m.tensor(a.tolist(), dtype=getattr(m, dtype)), m.tensor(b.tolist(), dtype=getattr(m, dtype))
        a.div_(b)
        return a
    both(run)


def test_issue_examples():
    assert (ctensor.tensor([1 + 0j]) / 0).tolist()[0].__repr__() == "(nan+nanj)"
    c = ctensor.tensor([3 + 0j], dtype=ctensor.complex128) / 2.5
    t = torch.tensor([3 + 0j], dtype=torch.complex128) / 2.5
    assert c.tolist() == t.tolist() == [(1.2 + 0j)]
