"""The default device of factory functions: `with device:` scopes (nested, overridden,
restored on error, per thread), set_default_device / get_default_device (device, str, int,
None), and their argument errors.

One documented difference from PyTorch: ctensor.set_default_device sets a process-wide
default (the C API's), while newest PyTorch keeps it in a threading.local. Scopes are per
thread in both (test_scopes_are_per_thread).
"""
import threading

import pytest

import ctensor
from ctensor import _testing

D = ctensor.device


@pytest.fixture(autouse=True)
def clean_default():
    yield
    ctensor.set_default_device(None)
    for name in ["privateuseone", "cuda"]:
        try:
            _testing.unregister_backend(name)
        except RuntimeError:
            pass
    assert _testing.default_device_depth() == 0


def test_initial_default_is_cpu():
    assert ctensor.get_default_device() == D("cpu")
    assert repr(ctensor.get_default_device()) == "device(type='cpu')"


def test_with_device_nests_and_restores():
    meta = D("meta")
    with meta as entered:
        assert entered is meta  # __enter__ returns the device
        assert ctensor.get_default_device() == meta
        assert _testing.default_device_depth() == 1
        with D("cpu", 1):
            assert ctensor.get_default_device() == D("cpu:1")  # an explicit index stays
            with D("xla:2"):
                assert ctensor.get_default_device() == D("xla:2")  # no backend needed
            assert ctensor.get_default_device() == D("cpu:1")
        assert ctensor.get_default_device() == meta
    assert ctensor.get_default_device() == D("cpu")
    assert _testing.default_device_depth() == 0


def test_scope_overrides_global_default():
    ctensor.set_default_device("meta")
    assert ctensor.get_default_device() == D("meta")
    with D("cpu"):
        assert ctensor.get_default_device() == D("cpu")
        ctensor.set_default_device("xla:1")  # changes the global default, not the scope
        assert ctensor.get_default_device() == D("cpu")
    assert ctensor.get_default_device() == D("xla:1")
    ctensor.set_default_device(None)
    assert ctensor.get_default_device() == D("cpu")


def test_restored_on_error():
    with pytest.raises(KeyError):
        with D("meta"):
            with D("cpu:0"):
                raise KeyError("boom")
    assert ctensor.get_default_device() == D("cpu") and _testing.default_device_depth() == 0
    # an inner scope entered by hand and never left is dropped with its outer one
    with D("meta"):
        D("xla:0").__enter__()
        assert _testing.default_device_depth() == 2
    assert _testing.default_device_depth() == 0


def test_same_object_entered_twice():
    d = D("meta")
    with d:
        with d:
            assert _testing.default_device_depth() == 2
        assert _testing.default_device_depth() == 1
    assert _testing.default_device_depth() == 0
    assert d.__enter__() is d
    assert d.__exit__(None, None, None) is None
    with pytest.raises(RuntimeError, match=r"^device.__exit__\(\) without a matching "
                                           r"__enter__\(\) on this thread$"):
        d.__exit__(None, None, None)


def test_depth_limit():
    devices = [D("cpu", i % 128) for i in range(256)]
    for d in devices:
        d.__enter__()
    with pytest.raises(RuntimeError, match=r"^Default device scopes are nested too deeply "
                                           r"\(at most 256\)$"):
        with D("meta"):
            pass
    assert ctensor.get_default_device() == D("cpu:127")
    devices[0].__exit__(None, None, None)
    assert _testing.default_device_depth() == 0
    for d in devices[1:]:  # already left with the outermost one: nothing more to undo
        assert d.__exit__(None, None, None) is None
        assert _testing.default_device_depth() == 0


def test_set_default_device_forms():
    _testing.register_emulated_backend("npu", 4)
    ctensor.set_default_device(D("cpu", 1))
    assert ctensor.get_default_device() == D("cpu:1")
    ctensor.set_default_device(2)  # an ordinal of the current accelerator
    assert ctensor.get_default_device() == D("npu:2")
    ctensor.set_default_device("npu")  # no index: the current device, when asked
    assert ctensor.get_default_device() == D("npu:0")
    ctensor.set_device("npu:3")
    assert ctensor.get_default_device() == D("npu:3")
    with D("npu"):
        assert ctensor.get_default_device() == D("npu:3")
    ctensor.set_default_device(device=b"meta")
    assert ctensor.get_default_device() == D("meta")
    ctensor.set_default_device("cuda")  # allowed without backend; asking then fails
    if not ctensor.cuda.is_available():
        # with the CUDA backend but no device, PyTorch's get_default_device makes a tensor
        # there and fails with the no-driver error of a CUDA build
        msg = ("^Found no NVIDIA driver on your system" if _testing.CUDA_BUILT
               else "^No backend is registered for device type cuda$")
        with pytest.raises(RuntimeError, match=msg):
            ctensor.get_default_device()
    with D("cpu"):
        assert ctensor.get_default_device() == D("cpu")
    ctensor.set_default_device("cuda:1")
    assert ctensor.get_default_device() == D("cuda:1")


def test_set_default_device_errors():
    ctensor.set_default_device("meta")
    cases = [
        (lambda: ctensor.set_default_device("cuda:128"), RuntimeError,
         "Device index 128 is out of range: device indices must be between 0 and 127"),
        (lambda: ctensor.set_default_device("foo"), RuntimeError,
         "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
         "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
         "device string: foo"),
        (lambda: ctensor.set_default_device(0), RuntimeError,
         "Cannot access accelerator device when none is available."),
        (lambda: ctensor.set_default_device(1.5), TypeError,
         "device() received an invalid combination of arguments - got (float), but expected one "
         "of:\n * (ctensor.device device)\n      didn't match because some of the arguments have "
         "invalid types: (!float!)\n * (str type, int index = -1)\n"),
        (lambda: ctensor.set_default_device(), TypeError,
         "set_default_device() missing 1 required positional argument: 'device'"),
        (lambda: ctensor.set_default_device("meta", 1), TypeError,
         "set_default_device() takes 1 positional argument but 2 were given"),
        (lambda: ctensor.set_default_device(dev="meta"), TypeError,
         "set_default_device() got an unexpected keyword argument 'dev'"),
        (lambda: ctensor.set_default_device("meta", device="cpu"), TypeError,
         "set_default_device() got multiple values for argument 'device'"),
        (lambda: ctensor.get_default_device(1), TypeError,
         "get_default_device() takes 0 positional arguments but 1 was given"),
        (lambda: ctensor.get_default_device(device=1), TypeError,
         "get_default_device() got an unexpected keyword argument 'device'"),
    ]
    for fn, exc, msg in cases:
        with pytest.raises(exc) as e:
            fn()
        assert str(e.value) == msg
    assert ctensor.get_default_device() == D("meta")  # no failure changed it
    with pytest.raises(RuntimeError, match="out of range"):
        with D("cpu"):
            D("cuda", 5).__enter__()
            raise RuntimeError("out of range")
    assert _testing.default_device_depth() == 0


def test_scopes_are_per_thread():
    ctensor.set_default_device("meta")  # process-wide in ctensor (PyTorch: per thread)
    n = 6
    barrier = threading.Barrier(n + 1)
    results, errors = {}, []

    def work(i):
        try:
            seen = [ctensor.get_default_device()]
            with D("cpu", i):
                barrier.wait()  # every thread and the main one are inside their own scope
                for _ in range(100):
                    assert ctensor.get_default_device() == D("cpu", i)
                barrier.wait()
            seen.append(ctensor.get_default_device())
            seen.append(_testing.default_device_depth())
            results[i] = seen
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    with D("xla:7"):
        for t in threads:
            t.start()
        barrier.wait()
        assert ctensor.get_default_device() == D("xla:7")
        barrier.wait()
        for t in threads:
            t.join()
    assert not errors, errors
    assert results == {i: [D("meta"), D("meta"), 0] for i in range(n)}
    assert ctensor.get_default_device() == D("meta")


def test_one_object_entered_by_two_threads():
    d = D("meta")
    inside, leave = threading.Event(), threading.Event()
    depth = []

    def other():
        with d:
            inside.set()
            leave.wait(10)
            depth.append(_testing.default_device_depth())

    with d:
        t = threading.Thread(target=other)
        t.start()
        inside.wait(10)
    # the main thread left; the other thread's scope is its own and still open
    assert _testing.default_device_depth() == 0
    leave.set()
    t.join()
    assert depth == [1]
