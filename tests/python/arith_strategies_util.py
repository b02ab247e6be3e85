"""Hypothesis strategies of the element-wise arithmetic tests: random cases (arith_util.Case)
with broadcasting shapes, zero-size and 0-dim tensors, the layouts (contiguous, permuted,
transposed, sliced with steps, expanded, channels_last), the 13 dtypes, Python scalars of every
kind, alpha values, rounding modes, variants and out= tensors."""
import dataclasses
import math

from hypothesis import strategies as st

import torch
from arith_util import DTYPES, NO, Case, applicable, computation_dtype, realize, scalar, tensor


# ---- hypothesis strategies ----------------------------------------------------------------


SIZES = [1, 1, 2, 2, 3, 3, 4, 5, 0]


@st.composite
def result_shapes(draw, max_dims=4):
    """The broadcast shape of a case: 0 to 4 dims, sizes 0 to 5."""
    n = draw(st.integers(0, max_dims))
    return tuple(draw(st.sampled_from(SIZES)) for _ in range(n))


@st.composite
def operand_shapes(draw, result, mismatch=True):
    """A shape that broadcasts to `result`: trailing dims of it, some of them 1; rarely (1 in
    20, if `mismatch`) a dim that does not broadcast."""
    n = len(result)
    m = draw(st.integers(0, n))
    shape = list(result[n - m:])
    for i in range(m):
        if draw(st.integers(0, 3)) == 0:
            shape[i] = 1
    if mismatch and m and draw(st.integers(0, 19)) == 0:
        i = draw(st.integers(0, m - 1))
        shape[i] += 2
    return tuple(shape)


def _inverse(order):
    inv = [0] * len(order)
    for i, o in enumerate(order):
        inv[o] = i
    return tuple(inv)


@st.composite
def _sliced(draw, shape):
    """A base shape and the slice that cuts `shape` out of it with steps and offsets."""
    base, sl = [], []
    for size in shape:
        step = draw(st.sampled_from([1, 2, 2, 3]))
        start = draw(st.integers(0, 1))
        base.append(start + step * size + draw(st.integers(0, 1)))
        sl.append((start, start + step * size, step))
    return tuple(base), ("slice", tuple(sl))


LAYOUTS = ["contiguous", "index", "permuted", "transposed", "sliced", "permuted_sliced",
           "expanded", "channels_last"]


def layouts_for(n):
    ls = ["contiguous"]
    if n == 0:
        ls += ["index"]
    if n >= 1:
        ls += ["sliced", "expanded"]
    if n >= 2:
        ls += ["permuted", "transposed", "permuted_sliced"]
    if n == 4:
        ls += ["channels_last", "channels_last"]
    return ls


@st.composite
def laid_out(draw, shape, layouts=None):
    """(base_shape, views) giving a tensor of `shape` with one of the layouts: contiguous, a
    0-dim element of a 1-D tensor (storage offset), permuted, transposed, sliced with steps,
    permuted and sliced, expanded (stride 0, fewer dims), channels_last (4-D)."""
    n = len(shape)
    choices = [x for x in layouts_for(n) if layouts is None or x in layouts] or ["contiguous"]
    kind = draw(st.sampled_from(choices))
    if kind == "contiguous":
        return tuple(shape), ()
    if kind == "index":
        return (3,), (("index", draw(st.integers(0, 2))),)
    if kind in ("permuted", "transposed", "permuted_sliced"):
        if kind == "transposed":
            order = list(range(n))
            order[-1], order[-2] = order[-2], order[-1]
        else:
            order = draw(st.permutations(list(range(n))))
        pshape = tuple(shape[o] for o in order)
        perm = ("permute", _inverse(order))
        if kind == "permuted_sliced":
            base, sl = draw(_sliced(pshape))
            return base, (sl, perm)
        return pshape, (perm,)
    if kind == "sliced":
        base, sl = draw(_sliced(shape))
        return base, (sl,)
    if kind == "expanded":
        m = draw(st.integers(0, n))
        base = [1 if draw(st.booleans()) else s for s in shape[n - m:]]
        return tuple(base), (("expand", tuple(shape)),)
    return tuple(shape), (("cl",),)


INT_SCALARS = [0, 1, -1, 2, -3, 7, 100, 127, 128, 255, 256, -129, 1000, 2**31 - 1, -2**31,
               2**40, 2**63 - 1, -2**63]
FLOAT_SCALARS = [0.0, -0.0, 0.5, -1.5, 0.1, 3.0, 2.5, 1e10, -1e-40, 1e300, 65504.0, 70000.0,
                 math.inf, -math.inf, math.nan]
COMPLEX_SCALARS = [1j, -2.5 + 0.5j, 3 + 0j, complex(math.inf, 0), complex(0, math.nan),
                   0.1 - 1e10j]


def python_scalars():
    return st.one_of(st.booleans(), st.sampled_from(INT_SCALARS), st.integers(-1000, 1000),
                     st.sampled_from(FLOAT_SCALARS), st.floats(-1e6, 1e6),
                     st.sampled_from(COMPLEX_SCALARS),
                     st.complex_numbers(max_magnitude=1e4, allow_nan=False))


ALPHAS = [1, 2, -1, 0, 3, True, False, 0.5, -2.5, 1.0, 1.5j, 2**40]


def alphas():
    return st.one_of(st.just(NO), st.just(NO), st.sampled_from(ALPHAS))


MODES = [NO, None, "trunc", "floor"]


@st.composite
def tensor_operands(draw, shape, dtypes=DTYPES, layouts=None, device="cpu"):
    base, views = draw(laid_out(shape, layouts))
    return tensor(draw(st.sampled_from(dtypes)), base, draw(st.integers(0, 2**16)), views,
                  device)


def expected_dtype(case, ta, tb):
    """What dtype torch gives the function form (for choosing out= dtypes), or None."""
    try:
        return computation_dtype(case, ta, tb)
    except (RuntimeError, TypeError):
        return None


@st.composite
def out_operands(draw, case, dtypes=DTYPES):
    """An out= tensor: of the result's dtype or another, of the broadcast shape (contiguous or
    with other strides), of another shape (resized with a warning), or empty (resized
    silently)."""
    ta, tb = realize(torch, case.a), realize(torch, case.b)
    want = expected_dtype(case, ta, tb)
    if want is not None and draw(st.booleans()):
        dtype = want
    else:
        dtype = draw(st.sampled_from(dtypes))
    shapes = [getattr(x, "shape", ()) for x in (ta, tb)]
    try:
        shape = tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        shape = (1,)
    how = draw(st.sampled_from(["exact", "exact", "exact_laid_out", "other", "empty"]))
    if how == "exact":
        base, views = shape, ()
    elif how == "exact_laid_out":
        base, views = draw(laid_out(shape, [x for x in LAYOUTS if x != "expanded"]))
    elif how == "other":
        base, views = draw(st.sampled_from([(1,), (2, 7), (3,), ()])), ()
    else:
        base, views = (0,), ()
    return tensor(dtype, base, draw(st.integers(0, 2**16)), views)


@st.composite
def cases(draw, ops=("add", "sub", "mul", "div"), variants=None, dtypes=DTYPES,
          kinds=None, mismatch=True, max_dims=4, layouts=None, modes=None):
    """A random Case. `kinds`: which of (tensor, tensor), (tensor, scalar), (scalar, tensor),
    (scalar, scalar) to draw from."""
    op = draw(st.sampled_from(list(ops)))
    alpha = draw(alphas()) if op in ("add", "sub") else NO
    mode = draw(st.sampled_from(modes or MODES)) if op == "div" else NO
    result = draw(result_shapes(max_dims))
    kinds = kinds or [("tensor", "tensor")] * 4 + [("tensor", "scalar"), ("scalar", "tensor"),
                                                   ("scalar", "scalar")]
    ka, kb = draw(st.sampled_from(kinds))
    ops_ = []
    for k in (ka, kb):
        if k == "scalar":
            ops_.append(scalar(draw(python_scalars())))
        else:
            ops_.append(draw(tensor_operands(draw(operand_shapes(result, mismatch)), dtypes,
                                             layouts)))
    a, b = ops_
    vs = applicable(op, alpha, mode, ka, kb)
    if variants is not None:
        vs = [v for v in vs if v in variants]
    if not vs:
        vs = ["function"]
    variant = draw(st.sampled_from(vs))
    case = Case(op, a, b, variant, alpha, mode)
    if variant == "out":
        case = dataclasses.replace(case, out=draw(out_operands(case, dtypes)))
    return case
