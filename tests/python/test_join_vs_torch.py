"""Joining and splitting against torch 1.13: cat (concat, concatenate), stack, split,
chunk, unbind, flatten, unflatten, movedim/moveaxis, swapaxes/swapdims, expand_as.

Every case runs through ctensor and torch and compares shapes, strides, storage offsets,
dtypes, devices and values, or the exception type and message: contiguous, transposed,
channels_last, expanded, sliced and zero-size inputs, mixed dtypes (promotion), the
skipped (0,)-shaped inputs, out= (casting rules, resize warnings, overlap errors), and the
views' sharing of storage. Shell dtypes (float8, ...) are checked against the same cat on
their bytes; meta and the host-emulated accelerator against the cpu result."""
import gc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch
from ctensor import _testing
from test_tensor_common import bytes_of, meta, plain, same

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128", "bool", "bfloat16"]


def make(L, shape, dtype="float32", layout="contiguous", start=0):
    """A tensor of distinct small values in `dtype`, laid out as `layout` says."""
    n = int(np.prod(shape)) if shape else 1
    vals = [(start + i) % 7 for i in range(n)]
    t = L.tensor(vals, dtype=getattr(L, dtype)).reshape(shape)
    if layout == "transposed" and t.dim() >= 2:
        t = t.transpose(0, -1).contiguous().transpose(0, -1)
    elif layout == "channels_last" and t.dim() == 4:
        t = t.contiguous(memory_format=L.channels_last)
    elif layout == "expanded" and t.dim() >= 1:
        t = t.narrow(0, 0, 1).expand(*t.shape)
    elif layout == "sliced" and t.dim() >= 1:
        t = L.cat([t, t], 0)[::2] if t.shape[0] > 0 else t
    return t


# ---- cat ------------------------------------------------------------------------------------

CAT_CASES = [
    lambda L: L.cat([make(L, [2, 3]), make(L, [3, 3], start=1)], 0),
    lambda L: L.cat([make(L, [2, 3]), make(L, [3, 3])], 1),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3])], 2),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3])], -3),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3])], -1),
    lambda L: L.cat([]),
    lambda L: L.cat(()),
    lambda L: L.cat([make(L, [2, 3]), L.zeros(0)], 0),
    lambda L: L.cat([L.zeros(0), make(L, [2, 3])], 1),
    lambda L: L.cat([make(L, [2, 3]), L.zeros(2, 0)], 0),
    lambda L: L.cat([make(L, [2, 3]), L.zeros(2, 0)], 1),
    lambda L: L.cat([make(L, [2, 3]), L.zeros(0, 0)], 0),
    lambda L: L.cat([L.zeros(0), L.zeros(0)], 0),
    lambda L: L.cat([L.zeros(0), L.zeros(0)], 5),
    lambda L: L.cat([L.zeros(0, dtype=L.int64), L.zeros(0, dtype=L.int32)]),
    lambda L: L.cat([L.zeros(0, dtype=L.int32), make(L, [2, 3])]),
    lambda L: L.cat([L.zeros(0, dtype=L.float64), make(L, [2, 3])]),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3, 4])], 0),
    lambda L: L.cat([L.tensor(1.0), make(L, [2, 3])], 0),
    lambda L: L.cat([make(L, [2]), L.tensor(1.0)], 0),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3], "int32")], 0),
    lambda L: L.cat([make(L, [2, 3], "bool"), make(L, [2, 3], "int32")], 0),
    lambda L: L.cat([make(L, [2, 3], "uint8"), make(L, [2, 3], "int8")], 0),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3], "complex64")], 1),
    lambda L: L.cat([make(L, [2, 3], "float16"), make(L, [2, 3], "bfloat16")], 1),
    lambda L: L.cat([make(L, [2, 3], "int64"), make(L, [1, 3], "float16")], 0),
    lambda L: L.cat((make(L, [2, 3]), make(L, [2, 3])), dim=0),
    lambda L: L.cat([make(L, [2, 3]), make(L, [2, 3])], dim=-2),
    lambda L: L.concat([make(L, [2, 3]), make(L, [2, 3])], 1),
    lambda L: L.concatenate([make(L, [2, 3]), make(L, [2, 3])], axis=1),
    lambda L: L.concatenate([make(L, [2, 3]), make(L, [2, 3])]),
    lambda L: L.cat([make(L, [1])], 0),
    lambda L: L.cat([make(L, [2, 3])] * 5, 1),
    # layouts
    lambda L: L.cat([make(L, [3, 4], layout="transposed")] * 2, 0),
    lambda L: L.cat([make(L, [3, 4], layout="transposed"), make(L, [3, 4])], 1),
    lambda L: L.cat([make(L, [3, 4], layout="expanded"), make(L, [2, 4])], 0),
    lambda L: L.cat([make(L, [3, 4], layout="expanded"), make(L, [3, 4], layout="expanded")], 1),
    lambda L: L.cat([make(L, [4, 4], layout="sliced"), make(L, [4, 4], layout="transposed")], 0),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"),
                     make(L, [2, 3, 4, 5], layout="channels_last")], 1),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"),
                     make(L, [2, 2, 4, 5], layout="channels_last")], 1),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"),
                     make(L, [2, 3, 4, 5], layout="channels_last")], 0),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"),
                     make(L, [2, 3, 4, 5], layout="channels_last")], 3),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"), make(L, [2, 3, 4, 5])], 1),
    lambda L: L.cat([make(L, [2, 3, 4, 5]), make(L, [2, 3, 4, 5], layout="channels_last")], 1),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"), L.zeros(0)], 1),
    lambda L: L.cat([make(L, [2, 3, 4, 5], layout="channels_last"),
                     make(L, [2, 3, 4, 5], "float64", layout="channels_last")], 2),
    lambda L: L.cat([make(L, [2, 3, 4, 5, 2]).contiguous(memory_format=L.channels_last_3d)] * 2, 1),
    lambda L: L.cat([make(L, [1, 3, 1, 1], layout="channels_last")] * 2, 1),
    # zero-size
    lambda L: L.cat([L.zeros(0, 3), L.zeros(0, 3)], 0),
    lambda L: L.cat([L.zeros(0, 3), L.zeros(0, 3)], 1),
    lambda L: L.cat([L.zeros(2, 0, 3), make(L, [2, 1, 3])], 1),
    lambda L: L.cat([L.zeros(2, 0, 3), make(L, [2, 1, 3])], 2),
]


@pytest.mark.parametrize("case", range(len(CAT_CASES)))
def test_cat_cases(case):
    same(CAT_CASES[case])


CAT_ARG_CASES = [
    lambda L: L.cat(make(L, [2, 3]), 0),
    lambda L: L.cat([make(L, [2, 3]), 1], 0),
    lambda L: L.cat([make(L, [2, 3]), None], 0),
    lambda L: L.stack(make(L, [2, 3]), 0),
    lambda L: L.stack([make(L, [2, 3]), 1.5], 0),
    lambda L: L.cat([make(L, [2, 3])], 0.5),
]


@pytest.mark.parametrize("case", range(len(CAT_ARG_CASES)))
def test_cat_argument_errors(case):
    a, b = [], []
    for L, out in ((ctensor, a), (torch, b)):
        with pytest.raises(TypeError) as e:
            CAT_ARG_CASES[case](L)
        out.append(str(e.value))
    # the element errors have PyTorch's words; the overload lists differ in layout only
    if "element" in b[0] or "must be tuple of Tensors" in b[0]:
        assert a == b


# ---- out= ------------------------------------------------------------------------------------

def cat_out(L, out_dtype, out_shape, inputs, dim=0, fn="cat"):
    out = L.zeros(out_shape, dtype=getattr(L, out_dtype))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = getattr(L, fn)(inputs, dim, out=out)
    assert r is out
    return r, len(w), [str(x.message).split(" (Triggered")[0] for x in w]


OUT_CASES = [
    lambda L: cat_out(L, "float32", [4, 3], [make(L, [2, 3]), make(L, [2, 3], start=3)]),
    lambda L: cat_out(L, "float32", [0], [make(L, [2, 3]), make(L, [2, 3])]),
    lambda L: cat_out(L, "float32", [5], [make(L, [2, 3]), make(L, [2, 3])]),
    lambda L: cat_out(L, "float64", [4, 3], [make(L, [2, 3]), make(L, [2, 3], "int32")]),
    lambda L: cat_out(L, "int32", [4, 3], [make(L, [2, 3]), make(L, [2, 3])]),
    lambda L: cat_out(L, "int64", [4, 3], [make(L, [2, 3], "uint8"), make(L, [2, 3], "bool")]),
    lambda L: cat_out(L, "bool", [4, 3], [make(L, [2, 3], "int8"), make(L, [2, 3], "int8")]),
    lambda L: cat_out(L, "float16", [2, 6], [make(L, [2, 3]), make(L, [2, 3], "float64")], 1),
    lambda L: cat_out(L, "complex64", [2, 6], [make(L, [2, 3]), make(L, [2, 3])], 1),
    lambda L: cat_out(L, "float32", [0], [make(L, [2, 3, 4, 5], layout="channels_last")] * 2, 1),
    lambda L: cat_out(L, "float32", [2, 3], [make(L, [2, 3])] * 2, 1),
    lambda L: cat_out(L, "float32", [0], [make(L, [2, 3]), make(L, [2, 3])], 0, "stack"),
    lambda L: cat_out(L, "float32", [2, 2, 3], [make(L, [2, 3]), make(L, [2, 3])], 0, "stack"),
    lambda L: cat_out(L, "float32", [3], [make(L, [2, 3]), make(L, [2, 3])], 2, "stack"),
    lambda L: cat_out(L, "int32", [0], [make(L, [2, 3]), make(L, [2, 3])], 1, "stack"),
]


@pytest.mark.parametrize("case", range(len(OUT_CASES)))
def test_out_cases(case):
    same(OUT_CASES[case])


def test_out_overlap():
    def f(L):
        x = make(L, [4, 3])
        return L.cat([x[2:], x[1:3]], 0, out=x.narrow(0, 0, 4))
    same(f)

    def g(L):
        x = make(L, [4, 3])
        return L.cat([x[:2], x[2:]], 0, out=x)
    same(g)

    def h(L):
        return L.cat([make(L, [1, 3]), make(L, [1, 3])], 0, out=L.zeros(3).expand(2, 3))
    same(h)


# ---- random cat against torch ------------------------------------------------------------------

@settings(max_examples=250, derandomize=True)
@given(rank=st.integers(1, 4), n=st.integers(1, 4), dim=st.integers(-4, 3),
       dtypes=st.lists(st.sampled_from(DTYPES), min_size=4, max_size=4),
       layouts=st.lists(st.sampled_from(["contiguous", "transposed", "channels_last",
                                         "expanded", "sliced"]), min_size=4, max_size=4),
       sizes=st.lists(st.integers(0, 3), min_size=4, max_size=4),
       base=st.lists(st.integers(1, 3), min_size=4, max_size=4))
def test_cat_random(rank, n, dim, dtypes, layouts, sizes, base):
    d = dim % rank if -rank <= dim < rank else dim

    def f(L):
        ts = []
        for i in range(n):
            shape = list(base[:rank])
            if 0 <= d < rank:
                shape[d] = sizes[i]
            ts.append(make(L, shape, dtypes[i], layouts[i], start=i))
        return L.cat(ts, dim)
    same(f)


@settings(max_examples=120, derandomize=True)
@given(rank=st.integers(0, 3), n=st.integers(1, 3), dim=st.integers(-4, 4),
       dtypes=st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3),
       layouts=st.lists(st.sampled_from(["contiguous", "transposed", "expanded", "sliced",
                                         "channels_last"]), min_size=3, max_size=3),
       base=st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_stack_random(rank, n, dim, dtypes, layouts, base):
    shape = base[:rank] if layouts[0] != "channels_last" else [2, 3, 2, 2]

    def f(L):
        return L.stack([make(L, shape, dtypes[i], layouts[i], start=i) for i in range(n)], dim)
    same(f)


STACK_CASES = [
    lambda L: L.stack([make(L, [2, 3]), make(L, [2, 3])], 0),
    lambda L: L.stack([make(L, [2, 3]), make(L, [2, 3])], 2),
    lambda L: L.stack([make(L, [2, 3]), make(L, [2, 3])], 3),
    lambda L: L.stack([make(L, [2, 3]), make(L, [2, 3])], -4),
    lambda L: L.stack([make(L, [2, 3]), make(L, [3, 3])], 0),
    lambda L: L.stack([make(L, [2, 3]), make(L, [2, 3, 1])], 0),
    lambda L: L.stack([]),
    lambda L: L.stack([L.tensor(1.0), L.tensor(2)], 0),
    lambda L: L.stack([L.tensor(1.0), L.tensor(2)], -1),
    lambda L: L.stack([L.tensor(1.0), L.tensor(2)], 1),
    lambda L: L.stack([make(L, [2, 3]), make(L, [2, 3], "int32")], 1),
    lambda L: L.stack([make(L, [2, 3, 4, 5], layout="channels_last")] * 2, 1),
    lambda L: L.stack([make(L, [2, 3, 4, 5], layout="channels_last")] * 2, 4),
    lambda L: L.stack([L.zeros(0), L.zeros(0)], 0),
    lambda L: L.stack([L.zeros(0, 2), L.zeros(0, 2)], 1),
    lambda L: L.stack((make(L, [3], layout="expanded"), make(L, [3])), dim=1),
]


@pytest.mark.parametrize("case", range(len(STACK_CASES)))
def test_stack_cases(case):
    same(STACK_CASES[case])


# ---- split, chunk, unbind and the other views ---------------------------------------------------

VIEW_CASES = [
    lambda L: make(L, [5, 4]).split(2),
    lambda L: make(L, [5, 4]).split(2, 1),
    lambda L: make(L, [5, 4]).split(2, dim=-1),
    lambda L: make(L, [5, 4]).split(5),
    lambda L: make(L, [5, 4]).split(7),
    lambda L: make(L, [5, 4]).split(-1),
    lambda L: make(L, [5, 4]).split(0),
    lambda L: L.zeros(0, 2).split(0),
    lambda L: L.zeros(0, 2).split(3),
    lambda L: L.tensor(1.0).split(1),
    lambda L: make(L, [5, 4]).split([1, 4]),
    lambda L: make(L, [5, 4]).split((2, 0, 3)),
    lambda L: make(L, [5, 4]).split([1, 1]),
    lambda L: make(L, [5, 4]).split([-1, 6]),
    lambda L: make(L, [5, 4]).split([2, 2], 1),
    lambda L: make(L, [5, 4]).split(2, 2),
    lambda L: L.split(make(L, [5, 4]), 2),
    lambda L: L.split(make(L, [5, 4]), [3, 2], 0),
    lambda L: L.split(make(L, [5, 4]), split_size_or_sections=3, dim=1),
    lambda L: make(L, [4, 6], layout="transposed").split(2, 1),
    lambda L: make(L, [2, 3, 4, 5], layout="channels_last").split(2, 1),
    lambda L: make(L, [5, 4]).chunk(2),
    lambda L: make(L, [5, 4]).chunk(3, 1),
    lambda L: make(L, [5]).chunk(4),
    lambda L: make(L, [6]).chunk(4),
    lambda L: make(L, [5]).chunk(10),
    lambda L: make(L, [5]).chunk(0),
    lambda L: make(L, [5]).chunk(-1),
    lambda L: L.zeros(0, 2).chunk(3),
    lambda L: L.zeros(2, 0).chunk(3, 1),
    lambda L: L.tensor(1.0).chunk(1),
    lambda L: L.chunk(make(L, [5, 4]), 2, 1),
    lambda L: L.chunk(make(L, [5, 4]), 2, 2),
    lambda L: make(L, [3, 4]).unbind(),
    lambda L: make(L, [3, 4]).unbind(1),
    lambda L: make(L, [3, 4]).unbind(-1),
    lambda L: make(L, [3, 4]).unbind(2),
    lambda L: L.zeros(0, 3).unbind(0),
    lambda L: L.tensor(1.0).unbind(0),
    lambda L: L.tensor(1.0).unbind(1),
    lambda L: L.unbind(make(L, [3, 4], layout="transposed"), 1),
    lambda L: L.unbind(make(L, [2, 3, 4, 5], layout="channels_last"), 1),
]


@pytest.mark.parametrize("case", range(len(VIEW_CASES)))
def test_split_views(case):
    def f(L):
        r = VIEW_CASES[case](L)
        assert isinstance(r, tuple)
        return list(r)
    same(f)


def test_pieces_are_views():
    for L in (ctensor, torch):
        x = make(L, [6, 4])
        for piece in list(x.split(2)) + list(x.chunk(3, 1)) + list(x.unbind(1)):
            piece.fill_(0) if piece.numel() else None
        assert x.sum().item() == 0
        y = make(L, [6, 4])
        assert x.unflatten(0, (2, 3)).data_ptr() == x.data_ptr()
        assert y.movedim(0, 1).data_ptr() == y.data_ptr()


RESHAPE_CASES = [
    lambda L: make(L, [3, 4]).unflatten(0, [])
    if L is torch else make(L, [3, 4]).unflatten(0, ()),
    lambda L: make(L, [3, 4]).unflatten(0, [2, 2]),
    lambda L: make(L, [3, 4]).unflatten(1, [2, -1]),
    lambda L: make(L, [3, 4]).unflatten(1, (2, 2)),
    lambda L: make(L, [3, 4]).unflatten(-1, [-1, 2]),
    lambda L: make(L, [3, 4]).unflatten(1, [-1, -1]),
    lambda L: make(L, [3, 4]).unflatten(1, [4, 1, 1]),
    lambda L: make(L, [3, 4]).unflatten(2, [4]),
    lambda L: make(L, [3, 4], layout="transposed").unflatten(1, [2, 2]),
    lambda L: make(L, [3, 4]).t().unflatten(0, [2, 2]),
    lambda L: L.zeros(0, 4).unflatten(0, [0, 5]),
    lambda L: L.zeros(0, 4).unflatten(0, [-1, 5]),
    lambda L: L.unflatten(make(L, [6]), 0, (2, 3)),
    lambda L: L.zeros(2, 3, 4).movedim([0, 1], [0]),
    lambda L: L.zeros(2, 3, 4).movedim([0, 0], [0, 1]),
    lambda L: L.zeros(2, 3, 4).movedim([0, 1], [1, 1]),
    lambda L: L.zeros(2, 3, 4).movedim([0, 1], [2, 0]),
    lambda L: L.zeros(2, 3, 4).movedim(0, -1),
    lambda L: L.zeros(2, 3, 4).movedim(3, -1),
    lambda L: L.zeros(2, 3, 4).movedim(1, 5),
    lambda L: L.zeros(2, 3, 4).movedim((0, 2), (2, 1)),
    lambda L: L.zeros(2, 3, 4).movedim([-3, 1], [0, -3]),
    lambda L: L.zeros(2, 3, 4).movedim([], []),
    lambda L: L.tensor(1.0).movedim(0, 0),
    lambda L: L.tensor(1.0).movedim(-1, 0),
    lambda L: L.tensor(1.0).movedim(1, 0),
    lambda L: make(L, [2, 3, 4]).moveaxis(0, 2),
    lambda L: L.movedim(make(L, [2, 3, 4]), 0, 2),
    lambda L: L.moveaxis(make(L, [2, 3, 4]), [0, 1], [2, 0]),
    lambda L: L.movedim(make(L, [2, 3, 4, 5], layout="channels_last"), 1, -1),
    lambda L: L.swapaxes(make(L, [2, 3, 4]), 0, 2),
    lambda L: L.swapdims(make(L, [2, 3, 4]), 0, -1),
    lambda L: L.swapaxes(make(L, [2, 3, 4]), 0, 3),
    lambda L: make(L, [2, 3, 4]).swapdims(1, 2),
    lambda L: L.flatten(make(L, [2, 3, 4])),
    lambda L: L.flatten(make(L, [2, 3, 4]), 1),
    lambda L: L.flatten(make(L, [2, 3, 4], layout="transposed"), 0, 1),
    lambda L: L.flatten(make(L, [2, 3, 4]), start_dim=1, end_dim=2),
    lambda L: L.flatten(L.tensor(2.0)),
    lambda L: L.flatten(make(L, [2, 3, 4]), 2, 1),
    lambda L: make(L, [1, 3]).expand_as(make(L, [2, 3])),
    lambda L: make(L, [3, 1]).expand_as(make(L, [2, 3])),
]


@pytest.mark.parametrize("case", range(len(RESHAPE_CASES)))
def test_reshape_views(case):
    same(RESHAPE_CASES[case])


# ---- shell dtypes, meta, the emulated accelerator -----------------------------------------------

@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "uint16",
                                   "uint32", "uint64", "float4_e2m1fn_x2"])
def test_cat_shell_dtypes(dtype):
    """cat never reads values: the bytes of a shell-dtype cat are the cat of the bytes."""
    dt = getattr(ctensor, dtype)
    size = ctensor.tensor([], dtype=dt).element_size()
    u = {1: ctensor.uint8, 2: ctensor.int16, 4: ctensor.int32, 8: ctensor.int64}[size]
    a = make(ctensor, [2, 3], "int64", start=1).to(u)
    b = make(ctensor, [2, 2], "int64", start=4).to(u)
    for dim, (x, y) in ((1, (a, b)), (0, (a.t(), b.t()))):
        r = ctensor.cat([x.view(dt), y.view(dt)], dim)
        assert r.dtype == dt
        assert bytes_of(r) == bytes_of(ctensor.cat([x, y], dim))
    s = ctensor.stack([a.view(dt), a.view(dt)], 1)
    assert s.dtype == dt and bytes_of(s) == bytes_of(ctensor.stack([a, a], 1))


META_CASES = [
    lambda L, d: L.cat([L.zeros(2, 3, device=d), L.zeros(3, 3, device=d)], 0),
    lambda L, d: L.cat([L.zeros(2, 3, device=d), L.zeros(2, 1, device=d, dtype=L.int8)], 1),
    lambda L, d: L.cat([L.zeros(2, 3, device=d), L.zeros(0, device=d)], 0),
    lambda L, d: L.cat([L.zeros(2, 3, 4, 5, device=d).contiguous(memory_format=L.channels_last)]
                       * 2, 1),
    lambda L, d: L.cat([L.zeros(2, 3, device=d), L.zeros(3, 2, device=d)], 0),
    lambda L, d: L.stack([L.zeros(2, 3, device=d), L.zeros(2, 3, device=d)], 1),
    lambda L, d: L.zeros(5, 3, device=d).split(2),
]


@pytest.mark.parametrize("case", range(len(META_CASES)))
def test_meta(case):
    """On meta the result's geometry is torch's (and the cpu one's); no data."""
    def f(L):
        r = META_CASES[case](L, "meta")
        return [meta(t) for t in r] if isinstance(r, tuple) else meta(r)
    r = same(f)
    if r[0] == "ok":
        cpu = META_CASES[case](ctensor, "cpu")
        cpu = [meta(t) for t in cpu] if isinstance(cpu, tuple) else meta(cpu)
        assert repr(r[1]).replace("meta", "cpu") == repr(plain(cpu))


@pytest.fixture
def emulated():
    _testing.register_emulated_backend("cuda", 2)
    yield
    ctensor.set_default_device(None)
    gc.collect()
    try:
        _testing.unregister_backend("cuda")
    except RuntimeError:
        pass


def test_cat_emulated_accelerator(emulated):
    xs = [make(ctensor, [2, 3], "float32", start=1), make(ctensor, [2, 3], "int32", start=2),
          make(ctensor, [3, 2], "float64", layout="transposed").t()]
    cpu = ctensor.cat(xs, 1)
    dev = ctensor.cat([x.to("cuda:1") for x in xs], 1)
    assert str(dev.device) == "cuda:1"
    assert dev.dtype == cpu.dtype and dev.stride() == cpu.stride()
    assert dev.cpu().tolist() == cpu.tolist()
    st = ctensor.stack([x.to("cuda") for x in xs], 2)
    assert st.cpu().tolist() == ctensor.stack(xs, 2).tolist()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ctensor.cat([xs[0], xs[1].to("cuda")], 0)
    out = ctensor.zeros(0)
    with pytest.raises(RuntimeError, match="Expected out tensor to have device cuda:0, but got "
                                           "cpu instead"):
        ctensor.cat([x.to("cuda") for x in xs], 1, out=out)
    pieces = dev.split(2, 1)
    assert [p.cpu().tolist() for p in pieces] == [p.tolist() for p in cpu.split(2, 1)]


def test_cat_large_threads():
    """Large inputs go through the threaded row loop; every thread count gives one result."""
    xs = [ctensor.rand(97, 1000 + 13 * i) for i in range(9)]
    ys = [torch.from_numpy(x.numpy()) for x in xs]
    old = ctensor.get_num_threads()
    try:
        for n in (1, 2, 3):
            ctensor.set_num_threads(n)
            r = ctensor.cat(xs, 1)
            assert np.array_equal(r.numpy(), torch.cat(ys, 1).numpy())
            h = ctensor.cat([x.half() for x in xs], 1)
            assert np.array_equal(h.numpy(), torch.cat([y.half() for y in ys], 1).numpy())
            m = ctensor.cat([xs[0].double(), xs[1]], 1)
            assert np.array_equal(m.numpy(), torch.cat([ys[0].double(), ys[1]], 1).numpy())
    finally:
        ctensor.set_num_threads(old)
