"""Exports keep alive the memory they hand out.

numpy(), np.asarray (the buffer exporter and __array__) and __dlpack__ (both protocol
versions, and every consumer: ctensor.from_dlpack, np.from_dlpack, torch.from_dlpack) share
the tensor's memory. An out= that later grows the tensor gives the tensor a new storage; the
export must keep the old memory, shape and strides, unchanged by whatever is allocated and
written afterwards (without the rule, the freed block is reused by the next tensors: an
AddressSanitizer build reports a heap-use-after-free, a normal one reads their values).
Memory ctensor did not allocate (imported through DLPack) is never grown: PyTorch's
"Trying to resize storage that is not resizable".
"""
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import torch

import ctensor

# out= resizing a non-empty tensor warns (PyTorch's deprecation); that is the point here
pytestmark = pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")


def grow(t, n=1000):
    """Grow t (an out= target) to n elements: its storage is replaced."""
    ctensor.add(ctensor.ones(n, dtype=t.dtype), 1, out=t)
    assert t.shape == (n,)


def churn():
    """Allocate and fill tensors of every small size, to reuse a freed block."""
    return [ctensor.full((k,), -99.0) for k in range(1, 17) for _ in range(4)]


def source():
    return ctensor.tensor([1.0, 2.0, 3.0, 4.0])


EXPECTED = [1.0, 2.0, 3.0, 4.0]

NUMPY_EXPORTS = {
    "numpy": lambda t: t.numpy(),
    "asarray": lambda t: np.asarray(t),
    "__array__": lambda t: t.__array__(),
    "__array__same_dtype": lambda t: t.__array__(np.float32),
    "memoryview_of_numpy": lambda t: np.asarray(memoryview(t.numpy())),
}


@pytest.mark.parametrize("name", sorted(NUMPY_EXPORTS))
def test_numpy_export_survives_out_growth(name):
    t = source()
    a = NUMPY_EXPORTS[name](t)
    grow(t)
    keep = churn()
    assert a.shape == (4,) and a.strides == (4,)
    assert a.tolist() == EXPECTED
    t.zero_()
    assert a.tolist() == EXPECTED
    del t, keep
    assert a.tolist() == EXPECTED


def test_numpy_export_of_view_survives():
    base = ctensor.arange(12, dtype=ctensor.float32).view(3, 4)
    v = base.t()  # non-contiguous: the array has the view's strides
    a = v.numpy()
    grow(v, 50)
    keep = churn()
    assert a.shape == (4, 3)
    assert a.tolist() == np.arange(12, dtype=np.float32).reshape(3, 4).T.tolist()
    del keep


def test_numpy_export_still_shares_until_growth():
    t = source()
    a = t.numpy()
    t.add_(1)  # in place: same storage, seen by the array
    assert a.tolist() == [2.0, 3.0, 4.0, 5.0]
    a[0] = 10.0
    assert t.tolist()[0] == 10.0
    ctensor.add(ctensor.ones(2), 0, out=t)  # shrinking keeps the storage: still shared
    assert t.tolist() == [1.0, 1.0]
    assert a.tolist() == [1.0, 1.0, 4.0, 5.0]


DLPACK_CONSUMERS = {
    "ctensor": lambda t: ctensor.from_dlpack(t).tolist(),
    "ctensor_capsule_v0": lambda t: ctensor.from_dlpack(t.__dlpack__()).tolist(),
    "ctensor_capsule_v1": lambda t: ctensor.from_dlpack(
        t.__dlpack__(max_version=(1, 0))).tolist(),
    "numpy": lambda t: np.from_dlpack(t),
    "torch": lambda t: torch.from_dlpack(t),
    "torch_capsule": lambda t: torch.utils.dlpack.from_dlpack(t.__dlpack__()),
}


def as_list(x):
    return x if isinstance(x, list) else x.tolist()


@pytest.mark.parametrize("name", sorted(DLPACK_CONSUMERS))
def test_dlpack_export_survives_out_growth(name):
    t = source()
    if name.startswith("ctensor"):
        # keep the imported tensor itself, not its list, across the growth
        cap = {"ctensor": lambda: t, "ctensor_capsule_v0": lambda: t.__dlpack__(),
               "ctensor_capsule_v1": lambda: t.__dlpack__(max_version=(1, 0))}[name]()
        imported = ctensor.from_dlpack(cap)
        read = imported.tolist
    else:
        imported = DLPACK_CONSUMERS[name](t)
        read = imported.tolist
    grow(t)
    keep = churn()
    assert read() == EXPECTED
    t.zero_()
    del t
    assert read() == EXPECTED
    del keep


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_unconsumed_capsule_survives_out_growth(max_version):
    t = source()
    cap = t.__dlpack__(max_version=max_version)
    grow(t)
    keep = churn()
    assert ctensor.from_dlpack(cap).tolist() == EXPECTED
    del keep


@pytest.mark.parametrize("producer", ["numpy", "torch", "ctensor_export"])
def test_imported_memory_refuses_growth(producer):
    if producer == "numpy":
        x = ctensor.from_dlpack(np.array(EXPECTED, dtype=np.float32))
    elif producer == "torch":
        x = ctensor.from_dlpack(torch.tensor(EXPECTED))
    else:
        x = ctensor.from_dlpack(source())
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        grow(x)
    assert x.shape == (4,)
    assert x.tolist() == EXPECTED
    # PyTorch refuses the same for memory it wraps
    tx = torch.from_numpy(np.array(EXPECTED, dtype=np.float32))
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        torch.add(torch.ones(1000), 1, out=tx)


def test_dlpack_copy_against_concurrent_resizes():
    """__dlpack__(copy=True) copies without the GIL; another thread resizing the same tensor
    meanwhile must not make it read freed sizes or memory. Every copy has the shape of one of
    the states the tensor was in, 8 dims (more than a tensor keeps inline, so the sizes live
    in a block a resize frees) or 3 dims, and values the resizer wrote (1 or 2). Each round
    publishes a fresh tensor so that its growth frees a storage as well."""
    small = (1, 1, 1, 1, 1, 1, 1, 3)
    big_shape = (4, 50, 60)
    ones = ctensor.ones(*small)
    twos = ctensor.full(big_shape, 2.0)
    current = [ctensor.ones(*small)]
    stop = threading.Event()
    errors = []

    def resizer():
        try:
            while not stop.is_set():
                s = ctensor.ones(*small)
                current[0] = s
                ctensor.add(twos, 0, out=s)  # grows: a new storage and sizes block
                ctensor.add(ones, 0, out=s)  # back to 8 dims in the big storage
                ctensor.add(twos, 0, out=s)
        except BaseException as e:  # reported below
            errors.append(e)

    def exporter():
        try:
            while not stop.is_set():
                for mv in (None, (1, 0)):
                    cap = current[0].__dlpack__(copy=True, max_version=mv)
                    a = ctensor.from_dlpack(cap).numpy()
                    assert a.shape in (small, big_shape), a.shape
                    assert np.isin(a, [1.0, 2.0]).all(), a
        except BaseException as e:
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # out= resized a non-empty tensor
            threads = [threading.Thread(target=resizer)]
            threads += [threading.Thread(target=exporter) for _ in range(2)]
            for th in threads:
                th.start()
            time.sleep(1.5)
            stop.set()
            for th in threads:
                th.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[0]
