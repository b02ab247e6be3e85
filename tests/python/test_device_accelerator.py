"""Accelerator rules with the host-emulated backend (ctensor._testing): device(int), device
counts, the current device per thread, set_device and its errors, ctensor.accelerator,
ctensor.utils.rename_privateuse1_backend, and the OneFlow compatibility mode.

The emulated backend runs in host memory but keeps devices apart as a GPU would, so these
rules run for real without one. Registered as 'cuda', device(N) must print what PyTorch 1.13's
device(N) prints (1.13 always meant cuda); that part is checked against torch.
"""
import threading

import pytest

import ctensor
import ctensor.accelerator as acc
import torch
from ctensor import _testing

NONE_AVAILABLE = "Cannot access accelerator device when none is available."
ACCELERATORS = ["privateuseone", "cuda", "mtia", "xpu", "hip", "mps", "hpu"]


def unregister_all():
    for name in ACCELERATORS:
        try:
            _testing.unregister_backend(name)
        except RuntimeError:
            pass


@pytest.fixture(autouse=True)
def clean_devices():
    unregister_all()
    yield
    ctensor.set_compat_mode("pytorch")
    ctensor.set_default_device(None)
    unregister_all()
    assert _testing.default_device_depth() == 0


@pytest.fixture
def npu():
    """PrivateUse1 renamed 'npu', 4 emulated devices."""
    _testing.register_emulated_backend("npu", 4)
    return ctensor.device


# ---- device(int) ---------------------------------------------------------------------------

def test_ordinal_without_accelerator():
    for n in [0, 1, 127]:
        with pytest.raises(RuntimeError, match=f"^{NONE_AVAILABLE}$"):
            ctensor.device(n)
    assert acc.current_accelerator() is None
    assert acc.device_count() == 0 and acc.is_available() is False


@pytest.mark.parametrize("n", [0, 1, 3, 7, 64, 127])
def test_ordinal_on_cuda_matches_torch_113(n):
    _testing.register_emulated_backend("cuda", 2)
    d, t = ctensor.device(n), torch.device(n)
    assert (repr(d), str(d), d.type, d.index, hash(d)) == (repr(t), str(t), t.type, t.index,
                                                            hash(t))
    assert ctensor.device(n) == ctensor.device("cuda", n)  # not checked against the count


def test_ordinal_means_the_current_accelerator(npu):
    assert repr(ctensor.device(0)) == "device(type='npu', index=0)"
    assert str(ctensor.device(5)) == "npu:5"
    # PrivateUse1 wins over everything once it has a backend
    _testing.register_emulated_backend("cuda", 1)
    assert ctensor.device(1) == ctensor.device("npu:1")
    _testing.unregister_backend("npu")
    assert ctensor.device(1) == ctensor.device("cuda:1")
    _testing.unregister_backend("cuda")
    # cuda without any device is no accelerator; mtia comes before xpu
    _testing.register_emulated_backend("cuda", 0)
    _testing.register_emulated_backend("xpu", 2)
    assert repr(ctensor.device(1)) == "device(type='xpu', index=1)"
    _testing.register_emulated_backend("mtia", 1)
    assert ctensor.device(0) == ctensor.device("mtia:0")
    for bad, msg in [(-1, "Device index must not be negative"),
                     (128, "Device index 128 is out of range: device indices must be between 0 "
                           "and 127"),
                     (2**64, "Overflow when unpacking long")]:
        with pytest.raises(RuntimeError, match=f"^{msg}$"):
            ctensor.device(bad)


# ---- counts and the current device ---------------------------------------------------------

def test_device_count(npu):
    assert ctensor.device_count("npu") == 4 == ctensor.device_count()
    assert ctensor.device_count(type="npu") == 4
    assert ctensor.device_count(ctensor.device("npu:3")) == 4
    assert ctensor.device_count("privateuseone") == 4
    assert ctensor.device_count("cpu") == 1 and ctensor.device_count("meta") == 1
    assert ctensor.device_count("cuda") == 0 and ctensor.device_count("xla:1") == 0
    _testing.unregister_backend("npu")
    assert ctensor.device_count() == 0
    with pytest.raises(TypeError, match=r"^device\(\) received an invalid combination"):
        ctensor.device_count(1.5)
    with pytest.raises(TypeError, match=r"^device_count\(\) takes from 0 to 1 positional "
                                        r"arguments but 2 were given$"):
        ctensor.device_count("cpu", "cuda")
    with pytest.raises(TypeError, match=r"^device_count\(\) got an unexpected keyword "
                                        r"argument 'device'$"):
        ctensor.device_count(device="cpu")


def test_current_device_and_set_device(npu):
    assert ctensor.current_device("npu") == ctensor.device("npu:0") == ctensor.current_device()
    assert ctensor.current_device("cpu") == ctensor.device("cpu")
    assert ctensor.current_device("meta:0") == ctensor.device("meta")
    ctensor.set_device("npu:2")
    assert ctensor.current_device("npu") == ctensor.device("npu", 2)
    assert acc.current_device_index() == 2
    ctensor.set_device(ctensor.device("npu", 3))
    ctensor.set_device("npu")  # no index: changes nothing
    ctensor.set_device("cpu:3")  # cpu and meta: nothing to change
    ctensor.set_device(device="meta")
    assert ctensor.current_device() == ctensor.device("npu:3")
    ctensor.set_device(1)  # an ordinal of the current accelerator
    assert ctensor.current_device() == ctensor.device("npu:1")
    errors = [
        ("npu:4", RuntimeError, "Device index 4 is out of range for npu: 4 devices are available"),
        (4, RuntimeError, "Device index 4 is out of range for npu: 4 devices are available"),
        ("npu:127", RuntimeError, "Device index 127 is out of range for npu: 4 devices are "
                                  "available"),
        ("npu:128", RuntimeError, "Device index 128 is out of range: device indices must be "
                                  "between 0 and 127"),
        ("cuda:0", RuntimeError, "No backend is registered for device type cuda"),
        ("npu:x", RuntimeError, "Invalid device string: 'npu:x'"),
        (-1, RuntimeError, "Device index must not be negative"),
        (2**70, RuntimeError, "Overflow when unpacking long"),
    ]
    for arg, exc, msg in errors:
        with pytest.raises(exc) as e:
            ctensor.set_device(arg)
        assert str(e.value) == msg, arg
    for arg in [None, 1.5, True]:
        with pytest.raises(TypeError, match=r"^device\(\) received an invalid combination of "
                                            r"arguments - got \((NoneType|float|bool)\)"):
            ctensor.set_device(arg)
    with pytest.raises(TypeError, match=r"^set_device\(\) missing 1 required positional "
                                        r"argument: 'device'$"):
        ctensor.set_device()
    assert ctensor.current_device() == ctensor.device("npu:1")  # errors changed nothing
    with pytest.raises(RuntimeError, match="^No backend is registered for device type cuda$"):
        ctensor.current_device("cuda")
    _testing.unregister_backend("npu")
    with pytest.raises(RuntimeError, match=f"^{NONE_AVAILABLE}$"):
        ctensor.current_device()


def test_cuda_without_devices():
    _testing.register_emulated_backend("cuda", 0)
    assert ctensor.device_count("cuda") == 0
    for fn, arg in [(ctensor.current_device, "cuda"), (ctensor.set_device, "cuda:0")]:
        with pytest.raises(RuntimeError, match="^No cuda devices are available$"):
            fn(arg)


def test_current_device_per_thread(npu):
    """Each thread has its own current device; new threads start at device 0."""
    n = 8
    barrier = threading.Barrier(n)
    seen, errors = {}, []

    def work(i):
        try:
            start = ctensor.current_device("npu").index
            ctensor.set_device(f"npu:{i % 4}")
            barrier.wait()  # everyone has chosen before anyone looks
            for _ in range(50):
                assert ctensor.current_device("npu").index == i % 4
                assert acc.current_device_index() == i % 4
                with ctensor.device("npu"):
                    assert ctensor.get_default_device() == ctensor.device("npu", i % 4)
            seen[i] = start
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ctensor.set_device("npu:3")
    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert seen == {i: 0 for i in range(n)}
    assert ctensor.current_device("npu") == ctensor.device("npu:3")


def test_reregistered_backend_starts_at_device_zero(npu):
    ctensor.set_device("npu:3")
    _testing.unregister_backend("npu")
    _testing.register_emulated_backend("npu", 2)
    assert ctensor.current_device() == ctensor.device("npu:0")


# ---- ctensor.accelerator -------------------------------------------------------------------

def test_accelerator_module(npu):
    assert repr(acc.current_accelerator()) == "device(type='npu')"
    assert acc.current_accelerator(check_available=True) == ctensor.device("npu")
    assert acc.device_count() == 4 and acc.is_available() is True
    acc.set_device_index(2)
    assert acc.current_device_index() == 2
    acc.set_device_index("npu:1")
    assert acc.current_device_index() == 1
    acc.set_device_index(ctensor.device("npu", 3))
    assert acc.current_device_index() == 3
    acc.set_device_index(-1)  # a negative index does nothing, as in PyTorch
    assert acc.current_device_index() == 3
    acc.synchronize()
    acc.synchronize(0)
    acc.synchronize("npu")
    acc.synchronize(ctensor.device("npu:2"))
    value_errors = [
        ("npu", "Expected a ctensor.device with a specified index or an integer, but got:npu"),
        (None, "Expected a ctensor.device with a specified index or an integer, but got:None"),
        (1.5, "Expected a ctensor.device with a specified index or an integer, but got:1.5"),
        (True, "Expected a ctensor.device with a specified index or an integer, but got:True"),
        ("cpu:0", "cpu doesn't match the current accelerator npu."),
        ("cuda:0", "cuda doesn't match the current accelerator npu."),
    ]
    for arg, msg in value_errors:
        with pytest.raises(ValueError) as e:
            acc.set_device_index(arg)
        assert str(e.value) == msg
    with pytest.raises(RuntimeError, match="^Device index 4 is out of range for npu: 4 devices "
                                           "are available$"):
        acc.set_device_index(4)
    with pytest.raises(RuntimeError, match="^Device index 9 is out of range for npu"):
        acc.synchronize(9)
    with pytest.raises(ValueError, match="^xpu doesn't match the current accelerator npu.$"):
        acc.synchronize("xpu:0")
    assert acc.current_device_index() == 3


def test_accelerator_argument_errors(npu):
    cases = [
        (lambda: acc.device_count(1),
         "device_count() takes 0 positional arguments but 1 was given"),
        (lambda: acc.is_available(x=1), "is_available() got an unexpected keyword argument 'x'"),
        (lambda: acc.current_device_index(0),
         "current_device_index() takes 0 positional arguments but 1 was given"),
        (lambda: acc.set_device_index(), "set_device_index() missing 1 required positional "
                                         "argument: 'device'"),
        (lambda: acc.set_device_index(device=1),
         "set_device_index() got some positional-only arguments passed as keyword arguments: "
         "'device'"),
        (lambda: acc.set_device_index(1, 2),
         "set_device_index() takes 1 positional argument but 2 were given"),
        (lambda: acc.synchronize(device=0),
         "synchronize() got some positional-only arguments passed as keyword arguments: "
         "'device'"),
        (lambda: acc.synchronize(0, 1),
         "synchronize() takes from 0 to 1 positional arguments but 2 were given"),
        (lambda: acc.current_accelerator(True, 1),
         "current_accelerator() takes from 0 to 1 positional arguments but 2 were given"),
        (lambda: acc.current_accelerator(check=True),
         "current_accelerator() got an unexpected keyword argument 'check'"),
        (lambda: acc.current_accelerator(True, check_available=True),
         "current_accelerator() got multiple values for argument 'check_available'"),
    ]
    for fn, msg in cases:
        with pytest.raises(TypeError) as e:
            fn()
        assert str(e.value) == msg


def test_accelerator_without_devices():
    _testing.register_emulated_backend("npu", 0)  # PrivateUse1 is the accelerator, without devices
    assert acc.current_accelerator() == ctensor.device("npu")
    assert acc.current_accelerator(check_available=True) is None
    assert acc.device_count() == 0 and not acc.is_available()
    with pytest.raises(RuntimeError, match="^No npu devices are available$"):
        acc.current_device_index()
    _testing.unregister_backend("npu")
    for fn in [acc.current_device_index, acc.synchronize, lambda: acc.set_device_index(0)]:
        with pytest.raises(RuntimeError, match=f"^{NONE_AVAILABLE}$"):
            fn()
    acc.set_device_index(-3)  # nothing to do, even without an accelerator (as PyTorch)


def test_submodules_import():
    import importlib
    import sys
    assert importlib.import_module("ctensor.accelerator") is ctensor.accelerator
    assert sys.modules["ctensor.utils"] is ctensor.utils
    from ctensor.utils import rename_privateuse1_backend
    assert rename_privateuse1_backend is ctensor.utils.rename_privateuse1_backend
    assert ctensor.accelerator.__name__ == "ctensor.accelerator"
    assert ctensor._testing.__name__ == "ctensor._testing"


# ---- rename_privateuse1_backend ----------------------------------------------------------------

def test_rename_privateuse1_backend():
    rename = ctensor.utils.rename_privateuse1_backend
    for name in ["cpu", "cuda", "hip", "mps", "xpu", "mtia", "maia", "meta", "xla"]:
        with pytest.raises(RuntimeError) as e:
            rename(name)
        assert str(e.value) == f"Cannot register privateuse1 backend with in-tree device name: {name}"
    for name in ["NPU", "npu1", "", "n-pu", "a" * 64]:
        with pytest.raises(RuntimeError) as e:
            rename(name)
        assert str(e.value) == (f"Invalid privateuse1 backend name '{name}': use 1 to 63 "
                                "lower-case ASCII letters or '_'")
    with pytest.raises(RuntimeError, match=r"^Invalid privateuse1 backend name 'np\\x00u'"):
        rename("np\0u")
    with pytest.raises(TypeError, match=r"^rename_privateuse1_backend\(\): argument "
                                        r"'backend_name' must be str, not bytes$"):
        rename(b"npu")
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: "
                                        r"'backend_name'$"):
        rename()
    rename("privateuseone")  # the default name itself is fine
    _testing.unregister_backend("privateuseone")
    rename(backend_name="npu")
    rename("npu")  # the same name again is fine
    assert ctensor.device("npu", 2) == ctensor.device("privateuseone:2")
    assert repr(ctensor.device("privateuseone")) == "device(type='npu')"
    for other in ["tpu", "np\0u"]:
        with pytest.raises(RuntimeError) as e:
            rename(other)
        assert str(e.value) == ("torch.register_privateuse1_backend() has already been set! "
                                "Current backend: npu")
    # a name alone gives no accelerator: PrivateUse1 needs a backend for that
    with pytest.raises(RuntimeError, match=f"^{NONE_AVAILABLE}$"):
        ctensor.device(0)
    _testing.register_emulated_backend("npu", 1)
    assert ctensor.device(0) == ctensor.device("npu:0")


def test_testing_hooks_errors():
    reg, unreg = _testing.register_emulated_backend, _testing.unregister_backend
    cases = [
        (lambda: reg("cpu", 1), RuntimeError, "Cannot emulate the built-in cpu backend"),
        (lambda: reg("meta", 1), RuntimeError, "Cannot emulate the built-in meta backend"),
        (lambda: reg("cuda", -1), ValueError,
         "Cannot emulate -1 devices: the count must be between 0 and 128"),
        (lambda: reg("cuda", 129), ValueError,
         "Cannot emulate 129 devices: the count must be between 0 and 128"),
        (lambda: reg("cuda", 2**40), ValueError,
         "Cannot emulate 1099511627776 devices: the count must be between 0 and 128"),
        (lambda: reg("cuda", 2**70), RuntimeError, "Overflow when unpacking long"),
        (lambda: reg("cuda:1", 1), ValueError,
         "type_name must be a device type without index, not 'cuda:1'"),
        (lambda: reg("cuda", 1.0), TypeError, "device_count must be int, not float"),
        (lambda: reg(1, 1), TypeError, "type_name must be str, not int"),
        (lambda: reg("CUDA", 1), RuntimeError, "Expected one of cpu, cuda, ipu, xpu, mkldnn, "
         "opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, "
         "privateuseone device type at start of device string: CUDA"),
        (lambda: unreg("cuda"), RuntimeError, "No backend is registered for device type cuda"),
        (lambda: unreg("npu"), RuntimeError, "No backend is registered for device type npu"),
        (lambda: unreg("cpu"), RuntimeError, "The built-in cpu backend cannot be unregistered"),
    ]
    for fn, exc, msg in cases:
        with pytest.raises(exc) as e:
            fn()
        assert str(e.value) == msg
    assert ctensor.device_count("cuda") == 0
    with pytest.raises(RuntimeError, match="device type at start of device string: npu$"):
        ctensor.device("npu")  # nothing was named by the failures above
    reg("cuda", 128)
    with pytest.raises(RuntimeError, match="^A backend is already registered for device type "
                                           "cuda$"):
        reg("cuda", 1)
    assert ctensor.device_count("cuda") == 128
    reg("npu", 2)
    with pytest.raises(RuntimeError, match="^A backend is already registered for device type "
                                           "npu$"):
        reg("tpu", 2)
    unreg("privateuseone")
    ctensor.utils.rename_privateuse1_backend("npu")  # a name without backend
    with pytest.raises(RuntimeError, match="has already been set! Current backend: npu$"):
        reg("tpu", 1)
    reg("npu", 1)
    assert ctensor.device_count("npu") == 1


# ---- the OneFlow compatibility mode ------------------------------------------------------------

def test_compat_mode_switch():
    assert ctensor.get_compat_mode() == "pytorch"
    d = ctensor.device("cuda")
    ctensor.set_compat_mode("oneflow")
    assert ctensor.get_compat_mode() == "oneflow"
    assert repr(d) == "device(type='cuda', index=0)"  # shown with its index ...
    assert d.index is None  # ... but built in PyTorch mode, it has none
    assert repr(ctensor.device("cpu")) == "device(type='cpu', index=0)"
    assert str(ctensor.device("cpu")) == "cpu:0" and ctensor.device("cpu").index == 0
    assert ctensor.device(1) == ctensor.device("cuda", 1)  # legacy: an ordinal is cuda
    ctensor.set_compat_mode(mode="pytorch")
    assert repr(ctensor.device("cpu")) == "device(type='cpu')"
    with pytest.raises(ValueError, match="^Unknown compatibility mode 'torch': expected "
                                         "'pytorch' or 'oneflow'$"):
        ctensor.set_compat_mode("torch")
    with pytest.raises(TypeError, match=r"^set_compat_mode\(\): argument 'mode' must be str, "
                                        r"not NoneType$"):
        ctensor.set_compat_mode(None)
    with pytest.raises(TypeError, match=r"^get_compat_mode\(\) takes 0 positional arguments "
                                        r"but 1 was given$"):
        ctensor.get_compat_mode("oneflow")
    assert ctensor.get_compat_mode() == "pytorch"


def test_oneflow_unindexed_accelerator_is_current_device():
    _testing.register_emulated_backend("cuda", 4)
    ctensor.set_device("cuda:2")
    ctensor.set_compat_mode("oneflow")
    assert repr(ctensor.device("cuda")) == "device(type='cuda', index=2)"
    assert ctensor.device("cuda", None).index == 2
    assert ctensor.device("cpu", 0) == ctensor.device("cpu")
    assert ctensor.device(3) == ctensor.device("cuda:3")
