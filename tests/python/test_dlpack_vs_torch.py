"""DLPack between ctensor and PyTorch 1.13 / NumPy 1.24, zero-copy in both directions.

PyTorch 1.13 speaks the unversioned protocol only: its from_dlpack calls __dlpack__() with
no arguments and wants a "dltensor" capsule, and its Tensor.__dlpack__(stream=None) takes
no max_version, so ctensor.from_dlpack falls back to calling it without arguments. NumPy
1.24 is the same. Versioned capsules ("dltensor_versioned") are exercised ctensor to
ctensor.

Each exchange checks: the data pointers are equal (no copy), shape/strides/dtype/values
agree, a write through one side is seen by the other while both live, and after the
other side's handle is gone (del + gc.collect()) the survivor still reads and writes the
memory. Ownership is checked through the producers' own bookkeeping (NumPy arrays' reference
counts and weak references, process memory over many exchanges of large tensors): each
deleter runs exactly once, also when an import fails.

Known differences with PyTorch 1.13, written out where they matter:
 - bool: PyTorch 1.13 neither exports ("Bool type is not supported by dlpack") nor imports
   ("Unsupported code 6") DLPack bool; ctensor exports bool as kDLBool (6, 8, 1) like newest
   PyTorch, and imports it. NumPy 1.24 does not take bool either.
 - Negative strides: PyTorch 1.13 aborts the process when it imports them (a C++ exception
   escapes); ctensor refuses them with ValueError. Only NumPy is used to produce them here.
"""
import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack as tdl

import ctensor
from conftest import ALL, SHARED

# dtypes PyTorch 1.13 exchanges through DLPack (all shared ones but bool)
TORCH_DL = [d for d in SHARED if d != "bool"]
# dtypes NumPy 1.24 exchanges through DLPack
NUMPY_DL = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16",
            "float32", "float64", "complex64", "complex128"]

_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


def capsule_name(cap):
    return _get_name(cap).decode()


def raw(ptr, nbytes):
    """The bytes at an address (the memory a tensor handle points to)."""
    return ctypes.string_at(ptr, nbytes)


def torch_ref(name, shape=(3, 4)):
    """A torch tensor of dtype `name` with distinct, exactly representable values."""
    n = 1
    for s in shape:
        n *= s
    base = torch.arange(n, dtype=torch.float64).reshape(shape) % 11 - 3
    dt = getattr(torch, name)
    if name == "bool":
        return base > 0
    if name.startswith("uint"):
        base = base + 3
    if name.startswith("complex"):
        return torch.complex(base, -base).to(dt)
    return base.to(dt)


def torch_bytes(t):
    t = t.contiguous()
    return raw(t.data_ptr(), t.numel() * t.element_size())


def ct_bytes(c):
    assert c.is_contiguous()
    return raw(c.data_ptr(), c.numel() * c.element_size())


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2 ** 20


# ---- ctensor -> torch ----------------------------------------------------------------------


@pytest.mark.parametrize("name", TORCH_DL)
@pytest.mark.parametrize("via_capsule", [False, True])
def test_ctensor_to_torch(name, via_capsule):
    c = ctensor.zeros(3, 4, dtype=getattr(ctensor, name))
    t = tdl.from_dlpack(c.__dlpack__() if via_capsule else c)
    assert t.data_ptr() == c.data_ptr()  # zero-copy
    assert t.dtype == getattr(torch, name)
    assert tuple(t.shape) == (3, 4) and t.stride() == c.stride() == (4, 1)
    # a write on the torch side is seen by ctensor
    ref = torch_ref(name)
    t.copy_(ref)
    assert ct_bytes(c) == torch_bytes(ref)
    if name != "complex32":  # torch 1.13 has no tolist for complex32
        assert c.tolist() == ref.tolist()
    # and the reverse
    c.fill_(1)
    assert torch_bytes(t) == torch_bytes(torch.ones(3, 4, dtype=t.dtype))
    # torch keeps the memory alive after ctensor's handle is gone
    ptr = c.data_ptr()
    del c
    gc.collect()
    assert t.data_ptr() == ptr
    t.copy_(ref)
    assert torch_bytes(t) == torch_bytes(ref)
    t.zero_()
    assert torch_bytes(t) == bytes(12 * t.element_size())


def test_ctensor_to_torch_strided():
    base = ctensor.arange(24, dtype=ctensor.float32).view(4, 6)
    for c in (base.t(), base.narrow(1, 1, 3), base.select(1, 2), base.permute(1, 0)[::2]):
        t = tdl.from_dlpack(c)
        assert t.data_ptr() == c.data_ptr()
        assert t.stride() == c.stride() and tuple(t.shape) == tuple(c.shape)
        assert t.tolist() == c.tolist()
    t = tdl.from_dlpack(base.t())
    del base
    gc.collect()
    assert t[5].tolist() == [5.0, 11.0, 17.0, 23.0]


def test_ctensor_to_torch_zero_size_and_zero_dim():
    e = ctensor.zeros(0, 3)
    t = tdl.from_dlpack(e)
    assert tuple(t.shape) == (0, 3)
    s = ctensor.tensor(2.5, dtype=ctensor.float64)
    t = tdl.from_dlpack(s)
    assert t.dim() == 0 and t.item() == 2.5 and t.data_ptr() == s.data_ptr()
    del s
    gc.collect()
    assert t.item() == 2.5


def test_bool_torch_113_refuses_cleanly():
    c = ctensor.ones(3, dtype=ctensor.bool)
    with pytest.raises(RuntimeError, match="Unsupported code 6"):
        tdl.from_dlpack(c)
    # ctensor's own import reads kDLBool
    back = ctensor.from_dlpack(c)
    assert back.dtype == ctensor.bool and back.tolist() == [True] * 3
    assert back.data_ptr() == c.data_ptr()
    with pytest.raises(RuntimeError, match="Bool type is not supported by dlpack"):
        ctensor.from_dlpack(torch.ones(3, dtype=torch.bool))


# ---- torch -> ctensor ----------------------------------------------------------------------


@pytest.mark.parametrize("name", TORCH_DL)
@pytest.mark.parametrize("via_capsule", [False, True])
def test_torch_to_ctensor(name, via_capsule):
    ref = torch_ref(name)
    t = ref.clone()
    c = ctensor.from_dlpack(tdl.to_dlpack(t) if via_capsule else t)
    assert c.data_ptr() == t.data_ptr()  # zero-copy
    assert c.dtype == getattr(ctensor, name)
    assert tuple(c.shape) == (3, 4) and c.stride() == (4, 1)
    assert ct_bytes(c) == torch_bytes(ref)
    if name != "complex32":
        assert c.tolist() == ref.tolist()
    # writes are shared both ways while both live
    t.zero_()
    assert ct_bytes(c) == torch_bytes(torch.zeros_like(ref))
    c.fill_(1)
    assert torch_bytes(t) == torch_bytes(torch.ones_like(ref))
    # ctensor keeps torch's memory alive after torch's handle is gone
    ptr = t.data_ptr()
    del t
    gc.collect()
    assert c.data_ptr() == ptr
    assert ct_bytes(c) == torch_bytes(torch.ones_like(ref))
    c.zero_()
    assert ct_bytes(c) == bytes(12 * c.element_size())
    # and hands it on again: the memory travels back to torch, still shared
    t2 = tdl.from_dlpack(c)
    assert t2.data_ptr() == ptr
    del c
    gc.collect()
    t2.copy_(ref)
    assert torch_bytes(t2) == torch_bytes(ref)


def test_torch_to_ctensor_strided():
    base = torch.arange(24.0).reshape(4, 6)
    for t in (base.t(), base[:, 1::2], base[2], base[1:3, 2:5], base.expand(2, 4, 6)):
        c = ctensor.from_dlpack(t)
        assert c.data_ptr() == t.data_ptr()
        assert c.stride() == t.stride() and tuple(c.shape) == tuple(t.shape)
        assert c.tolist() == t.tolist()
    c = ctensor.from_dlpack(base[:, 1::2])
    del base
    gc.collect()
    assert c.tolist() == [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0], [13.0, 15.0, 17.0],
                          [19.0, 21.0, 23.0]]


def test_torch_to_ctensor_zero_size_and_zero_dim():
    c = ctensor.from_dlpack(torch.zeros(2, 0))
    assert tuple(c.shape) == (2, 0) and c.numel() == 0
    t = torch.tensor(7, dtype=torch.int16)
    c = ctensor.from_dlpack(t)
    assert c.dim() == 0 and c.item() == 7 and c.data_ptr() == t.data_ptr()


def test_torch_capsule_consumed_once():
    t = torch.arange(4)
    cap = tdl.to_dlpack(t)
    c = ctensor.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor"
    with pytest.raises(ValueError, match="already consumed"):
        ctensor.from_dlpack(cap)
    with pytest.raises(RuntimeError):  # torch sees the rename too
        tdl.from_dlpack(cap)
    del cap, t
    gc.collect()
    assert c.tolist() == [0, 1, 2, 3]


def test_ctensor_capsule_consumed_by_torch_once():
    c = ctensor.arange(4)
    cap = c.__dlpack__()
    assert capsule_name(cap) == "dltensor"
    t = tdl.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor"
    with pytest.raises(ValueError, match="already consumed"):
        ctensor.from_dlpack(cap)
    del cap, c
    gc.collect()
    assert t.tolist() == [0, 1, 2, 3]


def test_torch_113_refuses_versioned_capsule_cleanly():
    c = ctensor.arange(3)
    cap = c.__dlpack__(max_version=(1, 1))
    assert capsule_name(cap) == "dltensor_versioned"
    with pytest.raises(RuntimeError):
        tdl.from_dlpack(cap)
    assert capsule_name(cap) == "dltensor_versioned"  # not consumed: its destructor frees it
    assert ctensor.from_dlpack(cap).tolist() == [0, 1, 2]


# ---- ctensor -> ctensor (both capsule forms, every dtype) -----------------------------------


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("max_version", [None, (0, 8), (1, 0), (1, 1), (2, 0)])
def test_ctensor_round_trip(name, max_version):
    c = ctensor.ones(2, 3, dtype=getattr(ctensor, name))
    cap = c.__dlpack__(max_version=max_version)
    versioned = max_version is not None and max_version[0] >= 1
    assert capsule_name(cap) == ("dltensor_versioned" if versioned else "dltensor")
    back = ctensor.from_dlpack(cap)
    assert capsule_name(cap) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert back.data_ptr() == c.data_ptr() and back.dtype == c.dtype
    assert tuple(back.shape) == (2, 3) and back.stride() == (3, 1)
    del c
    gc.collect()
    assert ct_bytes(back) == ct_bytes(ctensor.ones(2, 3, dtype=back.dtype))
    # from_dlpack(tensor) itself asks for max_version=(1, 1)
    again = ctensor.from_dlpack(back)
    assert again.data_ptr() == back.data_ptr()


def test_dlpack_device_and_arguments():
    c = ctensor.arange(3.0)
    assert c.__dlpack_device__() == (1, 0)
    assert capsule_name(c.__dlpack__(stream=None)) == "dltensor"
    assert capsule_name(c.__dlpack__(None)) == "dltensor"
    assert capsule_name(c.__dlpack__(stream=-1)) == "dltensor"
    assert capsule_name(c.__dlpack__(dl_device=(1, 0))) == "dltensor"
    with pytest.raises(ValueError, match="ctensor has no streams"):
        c.__dlpack__(stream=5)
    with pytest.raises(TypeError):
        c.__dlpack__(stream=1.5)
    with pytest.raises(TypeError):
        c.__dlpack__(max_version=1)
    with pytest.raises(BufferError, match="cannot export"):
        c.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError):
        c.__dlpack__(copy=1)
    # copy=True: a fresh copy, flagged IS_COPIED in the versioned form
    cp = ctensor.from_dlpack(c.__dlpack__(max_version=(1, 0), copy=True))
    assert cp.data_ptr() != c.data_ptr() and cp.tolist() == c.tolist()


def test_from_dlpack_copy_and_device():
    t = torch.arange(5.0)
    c = ctensor.from_dlpack(t, copy=True)  # torch 1.13 cannot copy: ctensor copies
    assert c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()
    c = ctensor.from_dlpack(t, copy=False)
    assert c.data_ptr() == t.data_ptr()
    c = ctensor.from_dlpack(t, device="cpu")
    assert c.data_ptr() == t.data_ptr()
    own = ctensor.arange(3)
    assert ctensor.from_dlpack(own, copy=True).data_ptr() != own.data_ptr()
    assert ctensor.from_dlpack(own, device=ctensor.device("cpu")).data_ptr() == own.data_ptr()
    with pytest.raises(TypeError, match="expected an object with a __dlpack__ method"):
        ctensor.from_dlpack([1, 2])
    with pytest.raises(TypeError):
        ctensor.from_dlpack(t, copy="yes")


def test_meta_and_unexportable():
    m = ctensor.zeros(2, device="meta")
    with pytest.raises(BufferError, match="Cannot pack tensors on meta"):
        m.__dlpack__()
    with pytest.raises(BufferError, match="Cannot pack tensors on meta"):
        m.__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError, match="Cannot pack tensors on meta"):
        m.__dlpack_device__()


def test_bad_capsules():
    keep = ctypes.c_int(1)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    other = new(ctypes.addressof(keep), b"something_else", None)
    with pytest.raises(ValueError, match="expected a capsule named 'dltensor' or "
                                         "'dltensor_versioned', got 'something_else'"):
        ctensor.from_dlpack(other)


# ---- NumPy -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NUMPY_DL)
def test_numpy_from_ctensor(name):
    c = ctensor.ones(2, 5, dtype=getattr(ctensor, name))
    a = np.from_dlpack(c)
    assert a.ctypes.data == c.data_ptr()
    assert a.dtype == np.dtype(name) and a.shape == (2, 5)
    assert a.strides == tuple(s * a.itemsize for s in c.stride())
    assert not a.flags.writeable  # NumPy 1.24 marks every DLPack import read-only
    c.fill_(3)
    assert (a == 3).all()
    del c
    gc.collect()
    assert (a == 3).all() and a.sum() == 30


@pytest.mark.parametrize("name", NUMPY_DL)
def test_ctensor_from_numpy(name):
    a = np.arange(10).astype(name).reshape(2, 5)[:, ::2]
    before = sys.getrefcount(a)
    c = ctensor.from_dlpack(a)
    assert sys.getrefcount(a) == before + 1  # NumPy's managed tensor holds the array
    assert c.data_ptr() == a.ctypes.data
    assert c.stride() == tuple(s // a.itemsize for s in a.strides)
    assert c.tolist() == a.tolist()
    c.fill_(4)
    assert (a == 4).all()
    del c
    gc.collect()
    assert sys.getrefcount(a) == before  # the deleter ran, exactly once


def test_numpy_negative_strides_refused_and_released():
    a = np.arange(6.0)
    w = weakref.ref(a)
    before = sys.getrefcount(a)
    with pytest.raises(ValueError, match="negative strides"):
        ctensor.from_dlpack(a[::-1])
    gc.collect()
    assert sys.getrefcount(a) == before  # the failed import still ran the deleter
    del a
    gc.collect()
    assert w() is None


def test_numpy_keeps_alive_until_ctensor_lets_go():
    a = np.arange(4.0)
    w = weakref.ref(a)
    c = ctensor.from_dlpack(a)
    del a
    gc.collect()
    assert w() is not None
    assert c.tolist() == [0.0, 1.0, 2.0, 3.0]
    del c
    gc.collect()
    assert w() is None


# ---- no leaks --------------------------------------------------------------------------------


def _no_growth(step, rounds=40, tolerance_mb=64):
    # warm-up: glibc keeps a few freed 16 MB blocks before it reuses them (the process grows
    # by about 7 of them, then stays flat); a leak grows by every step, forever
    for _ in range(12):
        step()
    gc.collect()
    start = rss_mb()
    for _ in range(rounds):
        step()
    gc.collect()
    grown = rss_mb() - start
    assert grown < tolerance_mb, f"process memory grew by {grown:.0f} MB"


N_BIG = 4 * 1024 * 1024  # 16 MB of float32 per tensor: 40 leaks would be 640 MB


def test_no_leak_unconsumed_capsules():
    def step():
        c = ctensor.ones(N_BIG)
        cap1 = c.__dlpack__()
        cap2 = c.__dlpack__(max_version=(1, 0))
        del c, cap1, cap2
    _no_growth(step)


def test_no_leak_ctensor_to_torch():
    def step():
        c = ctensor.ones(N_BIG)
        t = tdl.from_dlpack(c)
        del c
        t.add_(1)
        del t
    _no_growth(step)


def test_no_leak_torch_to_ctensor():
    def step():
        t = torch.ones(N_BIG)
        c = ctensor.from_dlpack(t)
        del t
        c.fill_(2)
        del c
    _no_growth(step)


def test_no_leak_ctensor_round_trips_and_failures():
    def step():
        c = ctensor.ones(N_BIG)
        for mv in (None, (1, 1)):
            back = ctensor.from_dlpack(c.__dlpack__(max_version=mv))
            del back
        b = ctensor.ones(N_BIG // 4, dtype=ctensor.bool)
        try:
            tdl.from_dlpack(b)  # refused by torch 1.13: the capsule's destructor frees it
        except RuntimeError:
            pass
        a = np.ones(N_BIG)
        try:
            ctensor.from_dlpack(a[::-1])  # refused by ctensor: the deleter frees NumPy's
        except ValueError:
            pass
        del c, b, a
    _no_growth(step)
