"""Strides, contiguity and memory formats against torch 1.13: contiguous and
channels-last strides of new tensors for many shapes (size-0 and size-1 dims included),
is_contiguous(memory_format) of dense, permuted, sliced and expanded tensors, the ambiguous
shapes (N1HW, NC11, N111, empty), and the strides that preserve_format gives clone(),
empty_like() and to() (PyTorch's preserve_format examples, then random inputs)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch
from test_tensor_common import meta, same

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


def geometry(t):
    return (tuple(t.shape), t.stride(), t.storage_offset())


@settings(max_examples=80)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=6), st.sampled_from(FORMATS))
def test_new_tensor_strides(shape, fmt):
    same(lambda L: meta(L.empty(shape, memory_format=getattr(L, fmt))))
    same(lambda L: [L.empty(shape).is_contiguous(memory_format=getattr(L, f))
                    for f in FORMATS[:3]])


@st.composite
def inputs(draw):
    """A 3- to 5-D input, possibly permuted, sliced (with steps) and expanded."""
    shape = draw(st.lists(st.integers(0, 4), min_size=3, max_size=5))
    perm = draw(st.permutations(range(len(shape)))) if draw(st.booleans()) else None
    slices = [(draw(st.integers(0, 2)), draw(st.integers(1, 3))) if draw(st.booleans()) else None
              for _ in shape]
    expand = draw(st.integers(0, len(shape) - 1)) if draw(st.booleans()) else None
    start_cl = draw(st.booleans()) and len(shape) in (4, 5)
    return shape, perm, slices, expand, start_cl


def build(L, recipe):
    shape, perm, slices, expand, start_cl = recipe
    n = 1
    for s in shape:
        n *= s
    t = L.arange(float(n)).reshape(shape)
    if start_cl:
        t = t.contiguous(memory_format=L.channels_last if len(shape) == 4 else
                         L.channels_last_3d)
    if perm is not None:
        t = t.permute(*perm)
    index = tuple(slice(s[0], None, s[1]) if s else slice(None) for s in slices)
    t = t[index]
    if expand is not None and t.shape[expand] == 1:
        sizes = list(t.shape)
        sizes[expand] = 3
        t = t.expand(*sizes)
    return t


@settings(max_examples=120)
@given(inputs())
def test_contiguity_flags(recipe):
    same(lambda L: [build(L, recipe).is_contiguous(memory_format=getattr(L, f))
                    for f in FORMATS[:3]] + [build(L, recipe).is_contiguous()])


@settings(max_examples=120)
@given(inputs(), st.sampled_from(FORMATS + [None]),
       st.sampled_from(["clone", "empty_like", "zeros_like", "ones_like", "to", "contiguous",
                        "float64", "rand_like"]))
def test_preserve_format_strides(recipe, fmt, how):
    def call(L):
        t = build(L, recipe)
        kw = {} if fmt is None else {"memory_format": getattr(L, fmt)}
        if how == "clone":
            r = t.clone(**kw)
        elif how == "empty_like":
            return meta(L.empty_like(t, **kw))
        elif how == "rand_like":
            return meta(L.rand_like(t, **kw))
        elif how == "zeros_like":
            r = L.zeros_like(t, **kw)
        elif how == "ones_like":
            r = L.ones_like(t, **kw)
        elif how == "to":
            r = t.to(L.float16, **kw)
        elif how == "float64":
            r = t.double(**kw)
        else:
            r = t.contiguous(**kw)
        return r
    same(call)


# ---- PyTorch's preserve_format examples -----------------------------------------------------

TABLE = [
    (lambda L: L.empty(2, 3, 4, 5).permute(0, 2, 3, 1), {}, (60, 5, 1, 20)),
    (lambda L: L.empty(2, 3, 4, 5).permute(0, 2, 3, 1), {"memory_format": "contiguous_format"},
     (60, 15, 3, 1)),
    (lambda L: L.empty(4, 6)[:, ::2], {}, (3, 1)),
    (lambda L: L.empty(12, 6).t()[:, ::2], {}, (1, 6)),
    (lambda L: L.empty_strided((3, 3, 4), (2, 20, 5)), {}, (1, 12, 3)),
    (lambda L: L.empty(2, 3, 8, 10).contiguous(memory_format=L.channels_last)[:, :, ::2, ::2],
     {}, (60, 1, 15, 3)),
    (lambda L: L.empty(2, 3, 8, 10).contiguous(memory_format=L.channels_last)[:, :2], {},
     (160, 1, 20, 2)),
    (lambda L: L.empty(1, 3).expand(2, 3), {}, (3, 1)),
    (lambda L: L.empty(2, 3).t(), {}, (1, 3)),
    (lambda L: L.empty(2, 3, 4, 5, 6).contiguous(memory_format=L.channels_last_3d), {},
     (360, 1, 90, 18, 3)),
]


@pytest.mark.parametrize("case", range(len(TABLE)))
@pytest.mark.parametrize("how", ["clone", "empty_like"])
def test_spec_table(case, how):
    make, kw, expected = TABLE[case]
    for L in (ctensor, torch):
        x = make(L)
        kwargs = {k: getattr(L, v) for k, v in kw.items()}
        r = x.clone(**kwargs) if how == "clone" else L.empty_like(x, **kwargs)
        assert r.stride() == expected, (L.__name__, r.stride())


# ---- ambiguous shapes and explicit examples ------------------------------------------------------

AMBIGUOUS = [(2, 1, 4, 5), (2, 3, 1, 1), (2, 1, 1, 1), (1, 1, 1, 1), (0, 3, 4, 5), (2, 3, 0, 5),
             (2, 0, 4, 5), (1, 3, 4, 5), (2, 1, 1, 1, 1), (2, 3, 1, 1, 1), (0, 3, 4, 5, 6),
             (2, 1, 4, 5, 6)]


@pytest.mark.parametrize("shape", AMBIGUOUS, ids=repr)
@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "channels_last_3d"])
def test_ambiguous_shapes(shape, fmt):
    def call(L):
        f = getattr(L, fmt)
        if (fmt == "channels_last" and len(shape) != 4) or (fmt == "channels_last_3d" and
                                                            len(shape) != 5):
            return meta(L.empty(shape, memory_format=f))  # the rank error
        x = L.empty(shape, memory_format=f)
        flags = [x.is_contiguous(memory_format=getattr(L, g)) for g in FORMATS[:3]]
        return (meta(x), flags, meta(x.clone()), meta(L.empty_like(x)),
                meta(x.contiguous()), meta(x.to(L.float64)))
    same(call)


SPEC_EXAMPLES = [
    lambda L: L.empty(2, 3, 4).stride(),
    lambda L: L.empty(2, 0, 4).stride(),
    lambda L: L.empty(0).stride(),
    lambda L: L.empty(0, 3).stride(),
    lambda L: L.empty(3, 0).stride(),
    lambda L: L.empty(1, 1, 1).stride(),
    lambda L: L.empty(2, 1, 3).stride(),
    lambda L: L.empty(()).stride(),
    lambda L: L.empty_strided((1, 3), (100, 1)).is_contiguous(),
    lambda L: L.empty_strided((0, 3), (7, 100)).is_contiguous(),
    lambda L: L.empty(2, 3).t().is_contiguous(),
    lambda L: L.empty(1, 3).t().is_contiguous(),
    lambda L: L.empty(3, 1).t().stride(),
    lambda L: L.empty(3, 1).t().is_contiguous(),
    lambda L: L.empty(1, 3).expand(2, 3).is_contiguous(),
    lambda L: L.empty(2, 0, 4, 5, memory_format=L.channels_last).stride(),
    lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).stride(),
    lambda L: L.empty(2, 3, 4, 5, 6, memory_format=L.channels_last_3d).stride(),
    lambda L: L.empty(2, 3, 4, 5).contiguous(memory_format=L.channels_last).is_contiguous(),
    lambda L: L.empty(2, 3).contiguous(memory_format=L.preserve_format).stride(),
    lambda L: L.empty(2, 3).t().contiguous(memory_format=L.preserve_format),
    lambda L: L.zeros_like(L.empty(2, 3, 4, 5, memory_format=L.channels_last)).stride(),
    lambda L: L.ones_like(L.empty(2, 3, 4, 5, memory_format=L.channels_last),
                          memory_format=L.contiguous_format).stride(),
    lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).to(L.float64).stride(),
    lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).float().stride(),
    lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).half().stride(),
]


@pytest.mark.parametrize("case", range(len(SPEC_EXAMPLES)))
def test_spec_examples(case):
    same(SPEC_EXAMPLES[case])


def test_to_returns_self_for_matching_format():
    for L in (ctensor, torch):
        x = L.empty(2, 3, 4, 5, memory_format=L.channels_last)
        assert x.to(memory_format=L.channels_last) is x
        assert x.to(memory_format=L.preserve_format) is x
        assert x.to(memory_format=L.contiguous_format) is not x
        assert x.to(L.float32, copy=True) is not x
        y = L.empty(2, 3).t()
        assert y.to(memory_format=L.contiguous_format) is y  # PyTorch's to_will_alias
