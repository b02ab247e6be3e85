"""Helpers shared by the tensor tests (imported as `test_tensor_common`), and the tests of the
small objects tensors carry: ctensor.Size, ctensor.layout, ctensor.memory_format.

The tensor tests are differential: the same function runs with `ctensor` and with `torch`
(1.13) as its module argument, and the outcomes must agree: for a tensor its shape, strides,
storage offset, dtype, device and values (through tolist); for an error its type and message,
read with ctensor's names. Where newest PyTorch (what ctensor implements) differs from 1.13,
the test says so and gives the newest behaviour explicitly.
"""
import math
import pickle
import re

import pytest

import ctensor
import torch

# ---- outcomes -----------------------------------------------------------------------------

NAMES = ["torch.dtype", "torch.layout", "torch.memory_format", "torch.device", "torch.Size",
         "torch.Generator", "torch.Storage"]


def ct_words(text):
    """A torch 1.13 message in ctensor's words, with the newest spellings: C++ type names
    "c10::Half" (1.13: "at::Half")."""
    for name in NAMES:
        text = text.replace(name, "ctensor." + name.split(".", 1)[1])
    text = text.replace("_TensorBase.", "Tensor.")  # torch.Tensor's C base class
    # the device types newest PyTorch parses
    text = text.replace("fpga, ort, xla, lazy, vulkan, mps, meta, hpu, privateuseone",
                        "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone")
    return text.replace("type at::", "type c10::")


def newest_type(exc_type, msg):
    """Newest PyTorch raises NotImplementedError where its kernels lack a dtype
    ('"arange_cpu" not implemented for 'Bool''); 1.13 raised RuntimeError."""
    if exc_type is RuntimeError and "\" not implemented for '" in msg:
        return NotImplementedError
    return exc_type


def without_defaults(text):
    """ctensor prints signature defaults as newest PyTorch does ("torch.dtype dtype = None");
    1.13 did not. Drop them to compare with 1.13."""
    if "received an invalid combination of arguments" not in text:
        return text
    return re.sub(r" = [^,)\n]+", "", text)


def plain(value):
    """A comparable, NaN-safe description of a result of either library."""
    if isinstance(value, (ctensor.Tensor, torch.Tensor)):
        return ("tensor", tuple(value.shape), value.stride(), value.storage_offset(),
                str(value.dtype).split(".")[1], str(value.device), plain(value.tolist()))
    if isinstance(value, (ctensor.dtype, torch.dtype, ctensor.layout, torch.layout,
                          ctensor.memory_format, torch.memory_format)):
        return str(value).split(".", 1)[1]
    if isinstance(value, (ctensor.device, torch.device)):
        return ("device", str(value))
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, complex):
        return ("complex", plain(value.real), plain(value.imag))
    return value


def sorted_kwargs(text):
    """PyTorch lists keyword arguments in hash-map order in "got (int, dtype=int, ...)",
    ctensor in call order: compare them sorted."""
    m = re.search(r"got \((.*?)\), but expected", text)
    if m is None:
        return text
    parts = [p for p in m.group(1).split(", ") if p]
    args = [p for p in parts if "=" not in p] + sorted(p for p in parts if "=" in p)
    return text[:m.start(1)] + ", ".join(args) + text[m.end(1):]


def outcome(fn, lib):
    try:
        value = fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        msg, typ = str(e), type(e)
        if lib is torch:
            msg = ct_words(msg)
            typ = newest_type(typ, msg)
        else:
            # torch.Tensor is a Python class named "Tensor"; ctensor's type is ctensor.Tensor
            msg = without_defaults(msg).replace("ctensor.Tensor", "Tensor")
        return ("err", typ, sorted_kwargs(msg))
    return ("ok", plain(value))


def same(fn):
    """Run fn(ctensor) and fn(torch); return both outcomes after asserting they agree."""
    a, b = outcome(fn, ctensor), outcome(fn, torch)
    assert a == b, (a, b)
    return a


def lib_dtype(lib, name):
    return getattr(lib, name)


def bytes_of(t):
    """The raw bytes of a tensor's elements in C order, as a list of ints (either library)."""
    c = t.contiguous()
    if c.dim() == 0:
        c = c.reshape(1)
    u8 = ctensor.uint8 if isinstance(t, ctensor.Tensor) else torch.uint8
    return c.view(u8).tolist()


def meta(t):
    """What two tensors of random or uninitialised values have in common."""
    return (tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype).split(".")[1],
            str(t.device))


# ---- ctensor.Size -------------------------------------------------------------------------

SIZE_CASES = [
    lambda L: repr(L.Size([2, 3])).split(".", 1)[1],
    lambda L: repr(L.Size()).split(".", 1)[1],
    lambda L: L.Size([2.5]),
    lambda L: L.Size(3),
    lambda L: L.Size([True, 2]),
    lambda L: L.Size([-1]),
    lambda L: L.Size((2, 3), 4),
    lambda L: L.Size(x=[1]),
    lambda L: L.Size(["a"]),
    lambda L: L.Size([None]),
    lambda L: L.Size("ab"),
    lambda L: L.Size(range(3)),
    lambda L: type(L.Size([1]) + (2,)).__name__,
    lambda L: type((2,) + L.Size([1])).__name__,
    lambda L: L.Size([1]) + (2,),
    lambda L: type(L.Size([1, 2]) * 2).__name__,
    lambda L: type(2 * L.Size([1, 2])).__name__,
    lambda L: type(L.Size([1, 2])[1:]).__name__,
    lambda L: L.Size([1, 2])[1],
    lambda L: L.Size([2, 3]).numel(),
    lambda L: L.Size([]).numel(),
    lambda L: L.Size([2, 0, 3]).numel(),
    lambda L: L.Size([2**62, 4]).numel(),
    lambda L: L.Size([2, 3]) == (2, 3),
    lambda L: hash(L.Size([2, 3])) == hash((2, 3)),
    lambda L: L.Size([1]) + [1],
    lambda L: L.Size([L.tensor(3)]),
    lambda L: L.Size([L.tensor(3.0)]),
    lambda L: pickle.loads(pickle.dumps(L.Size([4, 5]))),
    lambda L: L.ones(2, 3).shape,
    lambda L: L.ones(2, 3).size(),
    lambda L: type(L.ones(2, 3).shape).__name__,
]


@pytest.mark.parametrize("case", range(len(SIZE_CASES)))
def test_size_like_torch(case):
    same(SIZE_CASES[case])


def test_size_overflow_refused_at_construction():
    """torch keeps the int and fails when printing; ctensor refuses it at once."""
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        ctensor.Size([2**70])


def test_size_is_a_tuple():
    s = ctensor.Size([2, 3])
    assert isinstance(s, tuple) and s == (2, 3) and list(s) == [2, 3]
    assert s.__reduce__() == (ctensor.Size, ((2, 3),))


# ---- layouts and memory formats -------------------------------------------------------------

LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "_mkldnn", "sparse_csc", "sparse_bsr",
           "sparse_bsc"]
FORMATS = ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]


@pytest.mark.parametrize("name", LAYOUTS + FORMATS)
def test_singletons_like_torch(name):
    c, t = getattr(ctensor, name), getattr(torch, name)
    assert repr(c) == "ctensor." + name and str(c) == "ctensor." + name
    assert repr(t) == "torch." + name
    assert c is getattr(ctensor, name)
    # Like ctensor.dtype, reduce gives the attribute name, so pickle finds ctensor.<name>
    # (torch 1.13 cannot pickle layouts and reduces memory formats to 'torch.<name>').
    assert c.__reduce__() == name
    assert pickle.loads(pickle.dumps(c)) is c
    assert type(c).__module__ == "ctensor"
    assert c == c and hash(c) == hash(getattr(ctensor, name))


def test_jagged_layout_is_newest_only():
    assert repr(ctensor.jagged) == "ctensor.jagged"
    assert not hasattr(torch, "jagged")


@pytest.mark.parametrize("typ", ["layout", "memory_format"])
def test_types_cannot_be_instantiated_or_subclassed(typ):
    for lib in (ctensor, torch):
        with pytest.raises(TypeError) as e:
            getattr(lib, typ)()
        assert str(e.value) == f"cannot create '{lib.__name__}.{typ}' instances"
        with pytest.raises(TypeError):
            type("Sub", (getattr(lib, typ),), {})


def test_layouts_and_formats_are_distinct():
    objs = [getattr(ctensor, n) for n in LAYOUTS + FORMATS + ["jagged"]]
    assert len({id(o) for o in objs}) == len(objs)
    assert ctensor.strided != ctensor.sparse_coo
    with pytest.raises(TypeError):
        ctensor.strided < ctensor.sparse_coo  # noqa: B015


def test_tensor_attributes_use_the_singletons():
    t = ctensor.ones(2)
    assert t.layout is ctensor.strided
    assert t.dtype is ctensor.float32
