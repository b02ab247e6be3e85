"""ctensor.cuda on a machine without a GPU (every CI machine): importing works, CUDA reports
no devices, and device work raises PyTorch's errors.

With the CUDA backend built (ctensor._testing.CUDA_BUILT), ctensor is PyTorch's CUDA build on
a machine without driver: torch.cuda._lazy_init raises RuntimeError "Found no NVIDIA driver
on your system. ..." for anything that needs a device. torch 1.13 on this machine is a
CPU-only build; where the two agree (is_available, device_count, the memory statistics,
empty_cache, is_pinned, stream(None)) the answers are compared with it; where they differ
(it raises AssertionError "Torch not compiled with CUDA enabled") the CUDA build's behaviour
is written out. Without the backend built, ctensor is the CPU-only build. With a GPU the
no-GPU checks are skipped (GPU tests live elsewhere).
"""
import pytest

import ctensor
import ctensor.cuda
import torch
from ctensor import _testing

NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
             "and installed a driver from http://www.nvidia.com/Download/index.aspx")
NOT_COMPILED = "Torch not compiled with CUDA enabled"

no_gpu = pytest.mark.skipif(ctensor.cuda.is_available(), reason="a CUDA device is present")


def test_import_and_submodule():
    import importlib
    assert importlib.import_module("ctensor.cuda") is ctensor.cuda
    from ctensor.cuda import device_count  # noqa: F401 (importable by name)


@no_gpu
def test_no_devices_like_torch():
    assert ctensor.cuda.is_available() is False is torch.cuda.is_available()
    assert ctensor.cuda.device_count() == 0 == torch.cuda.device_count()
    assert ctensor.cuda.is_initialized() is False is torch.cuda.is_initialized()
    assert ctensor.accelerator.is_available() is False  # zero cuda devices: no accelerator


@no_gpu
@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved",
                                  "max_memory_reserved"])
def test_memory_statistics_are_zero(name):
    """PyTorch reports empty statistics before CUDA is initialised, which it never is here."""
    assert getattr(ctensor.cuda, name)() == 0 == getattr(torch.cuda, name)()
    assert getattr(ctensor.cuda, name)(0) == 0 == getattr(torch.cuda, name)(0)


@no_gpu
def test_memory_stats_and_empty_cache_do_nothing():
    assert ctensor.cuda.memory_stats() == {} == dict(torch.cuda.memory_stats())
    assert ctensor.cuda.empty_cache() is None and torch.cuda.empty_cache() is None


@no_gpu
def test_no_op_context_managers():
    """device(None) and stream(None) do nothing, as documented (torch 1.13's device(None)
    calls current_device() and fails; newest PyTorch's does nothing)."""
    with ctensor.cuda.device(None):
        pass
    with ctensor.cuda.device(-1):
        pass
    with ctensor.cuda.stream(None) as s:
        assert s is None
    with torch.cuda.stream(None):
        pass
    assert ctensor.cuda.set_stream(None) is None
    assert ctensor.cuda.set_device(-1) is None  # a negative index does nothing


@no_gpu
def test_is_pinned_false():
    assert ctensor.ones(2).is_pinned() is False is torch.ones(2).is_pinned()
    assert ctensor.ones(2, device="meta").is_pinned() is False


@no_gpu
def test_event_without_device():
    """An Event binds to a device when first recorded: it can be made, and an unrecorded one
    is complete. Recording needs the current stream."""
    if not _testing.CUDA_BUILT:
        pytest.skip("needs the CUDA backend")
    e = ctensor.cuda.Event(enable_timing=True)
    assert e.query() is True
    e.synchronize()
    with pytest.raises(RuntimeError, match=f"^{NO_DRIVER}$"):
        e.record()


CALLS = {
    "ones_device": lambda: ctensor.ones(1, device="cuda"),
    "ones_device0": lambda: ctensor.ones(1, device="cuda:0"),
    "zeros_device_obj": lambda: ctensor.zeros(2, device=ctensor.device("cuda", 1)),
    "tensor": lambda: ctensor.tensor([1.0], device="cuda"),
    "arange": lambda: ctensor.arange(3, device="cuda"),
    "empty_strided": lambda: ctensor.empty_strided((2,), (1,), device="cuda"),
    "dot_cuda": lambda: ctensor.ones(1).cuda(),
    "dot_cuda1": lambda: ctensor.ones(1).cuda(1),
    "to": lambda: ctensor.ones(1).to("cuda"),
    "to_nonblocking": lambda: ctensor.ones(1).to("cuda", non_blocking=True),
    "to_dtype": lambda: ctensor.ones(1).to("cuda:0", ctensor.float64),
    "type": lambda: ctensor.ones(1).type("torch.cuda.FloatTensor"),
    "set_device": lambda: ctensor.cuda.set_device(0),
    "set_device_str": lambda: ctensor.cuda.set_device("cuda:0"),
    "current_device": lambda: ctensor.cuda.current_device(),
    "synchronize": lambda: ctensor.cuda.synchronize(),
    "synchronize0": lambda: ctensor.cuda.synchronize(0),
    "init": lambda: ctensor.cuda.init(),
    "device_enter": lambda: ctensor.cuda.device(0).__enter__(),
    "get_device_name": lambda: ctensor.cuda.get_device_name(),
    "get_device_capability": lambda: ctensor.cuda.get_device_capability(0),
    "get_device_properties": lambda: ctensor.cuda.get_device_properties(0),
    "reset_peak": lambda: ctensor.cuda.reset_peak_memory_stats(),
    "stream": lambda: ctensor.cuda.Stream(),
    "current_stream": lambda: ctensor.cuda.current_stream(),
    "default_stream": lambda: ctensor.cuda.default_stream(0),
    "pin_memory": lambda: ctensor.ones(1).pin_memory(),
    "pin_memory_factory": lambda: ctensor.empty(2, pin_memory=True),
}


@no_gpu
@pytest.mark.parametrize("name", list(CALLS))
def test_device_work_raises(name):
    """With the backend: PyTorch's CUDA-build error without driver (RuntimeError). Without
    it: what the CPU-only build raises (AssertionError, or NotImplementedError for pinned
    memory, which ctensor then does not support)."""
    fn = CALLS[name]
    if _testing.CUDA_BUILT:
        with pytest.raises(RuntimeError) as e:
            fn()
        assert str(e.value) == NO_DRIVER
    elif name.startswith("pin_memory"):
        with pytest.raises((NotImplementedError, AttributeError)):
            fn()
    elif name.startswith(("ones", "zeros", "tensor", "arange", "empty", "to")):
        with pytest.raises(RuntimeError):  # no backend for cuda
            fn()
    else:
        with pytest.raises(AssertionError, match=f"^{NOT_COMPILED}$"):
            fn()


@no_gpu
def test_default_device_cuda_initialises():
    """A cuda default device is initialised when a factory uses it; *_like follow their
    input."""
    if not _testing.CUDA_BUILT:
        pytest.skip("needs the CUDA backend")
    with ctensor.device("cuda"):
        with pytest.raises(RuntimeError, match=f"^{NO_DRIVER}$"):
            ctensor.ones(2)
        with pytest.raises(RuntimeError, match=f"^{NO_DRIVER}$"):
            ctensor.tensor([1])
        assert ctensor.ones_like(ctensor.ones(2, device="cpu")).device == ctensor.device("cpu")
    assert ctensor.ones(2).device == ctensor.device("cpu")


@no_gpu
def test_synchronous_paths_unchanged():
    """non_blocking copies that involve no cuda tensor are the plain ones."""
    a = ctensor.ones(3)
    b = ctensor.zeros(3)
    assert b.copy_(a, non_blocking=True).tolist() == [1.0, 1.0, 1.0]
    assert a.to("cpu", non_blocking=True) is a
    assert a.to(ctensor.float64, non_blocking=True).dtype is ctensor.float64


def test_device_argument_errors():
    """torch.cuda._get_device_index's checks come before any device is needed."""
    if not _testing.CUDA_BUILT:
        pytest.skip("needs the CUDA backend")
    with pytest.raises(ValueError, match="^Expected a cuda device, but got: cpu$"):
        ctensor.cuda.set_device("cpu")
    with pytest.raises(ValueError, match="^Expected a ctensor.device with a specified index"):
        ctensor.cuda.set_device("cuda")
    with pytest.raises(TypeError):
        ctensor.cuda.Stream(device=1.5)
    with pytest.raises(TypeError):
        ctensor.cuda.set_stream(3)
    with pytest.raises(TypeError):
        ctensor.cuda.stream(3)


def test_not_compiled_module():
    """Without the backend, ctensor.cuda is the CPU-only build's."""
    if _testing.CUDA_BUILT:
        pytest.skip("built with the CUDA backend")
    assert ctensor.cuda.is_available() is False and ctensor.cuda.device_count() == 0
    for fn in [ctensor.cuda.current_device, ctensor.cuda.synchronize, ctensor.cuda.Stream,
               ctensor.cuda.Event, lambda: ctensor.cuda.device(0)]:
        with pytest.raises(AssertionError, match=f"^{NOT_COMPILED}$"):
            fn()


def test_emulated_cuda_swaps_the_real_backend_out():
    """ctensor._testing: an emulated 'cuda' takes the slot from the real backend, which comes
    back with restore_cuda_backend (conftest does it after each test)."""
    _testing.register_emulated_backend("cuda", 2)
    try:
        t = ctensor.ones(2, device="cuda:1")
        assert str(t.device) == "cuda:1" and t.cpu().tolist() == [1.0, 1.0]
        del t
    finally:
        _testing.unregister_backend("cuda")
    assert _testing.restore_cuda_backend() is _testing.CUDA_BUILT
    assert _testing.restore_cuda_backend() is False
    if _testing.CUDA_BUILT and not ctensor.cuda.is_available():
        with pytest.raises(RuntimeError, match=f"^{NO_DRIVER}$"):
            ctensor.ones(1, device="cuda")


def test_emulated_cuda_refused_with_live_allocations():
    """The real backend is not taken out while it holds memory (with a GPU only)."""
    if not ctensor.cuda.is_available():
        pytest.skip("needs a CUDA device")
    t = ctensor.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match="allocations are still live"):
        _testing.register_emulated_backend("cuda", 2)
    assert t.device.type == "cuda"


# ---- DLPack streams ---------------------------------------------------------------------------

class Producer:
    """A DLPack producer that claims a device and hands out a cpu tensor's capsule, recording
    the keywords from_dlpack passes."""

    def __init__(self, device):
        self.device, self.calls = device, []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return ctensor.arange(3.0).__dlpack__(max_version=kwargs.get("max_version"))


def test_from_dlpack_passes_a_stream_only_to_cuda_producers():
    """Our current stream (1 for the legacy default) goes to a kDLCUDA producer when we have
    that device; a cpu producer, or any without a device here, gets none."""
    cpu = Producer((1, 0))
    assert ctensor.from_dlpack(cpu).tolist() == [0.0, 1.0, 2.0]
    assert "stream" not in cpu.calls[0]
    cuda = Producer((2, 0))
    ctensor.from_dlpack(cuda)
    if ctensor.cuda.is_available():
        handle = ctensor.cuda.current_stream(0).cuda_stream
        assert cuda.calls[0]["stream"] == (handle or 1)
    else:
        assert "stream" not in cuda.calls[0]


def test_from_dlpack_old_producer_gets_the_stream_too():
    class Old(Producer):
        def __dlpack__(self, stream=None):  # no max_version: DLPack 0.x
            self.calls.append({"stream": stream})
            return ctensor.arange(2.0).__dlpack__()
    p = Old((2, 0))
    assert ctensor.from_dlpack(p).tolist() == [0.0, 1.0]
    assert (p.calls[-1]["stream"] is not None) is ctensor.cuda.is_available()


def test_dlpack_stream_of_cpu_and_emulated_tensors():
    """Only tensors of the real CUDA backend take a consumer's stream; an emulated cuda
    tensor (host memory) has none, like a cpu tensor."""
    for stream in [None, -1]:
        ctensor.ones(2).__dlpack__(stream=stream)
    with pytest.raises(TypeError, match="stream must be ``int`` or ``none``"):
        ctensor.ones(2).__dlpack__(stream="1")
    _testing.register_emulated_backend("cuda", 2)
    try:
        t = ctensor.ones(2, device="cuda:1")
        assert t.__dlpack_device__() == (2, 1)
        t.__dlpack__(stream=-1)
        with pytest.raises(ValueError, match="ctensor has no streams"):
            t.__dlpack__(stream=1)
        with pytest.raises(TypeError, match="stream must be ``int`` or ``none``"):
            t.__dlpack__(stream=True)
        del t
    finally:
        _testing.unregister_backend("cuda")


# ---- references -------------------------------------------------------------------------------

LEAK_CALLS = [lambda: ctensor.cuda.set_device("cuda:0"), lambda: ctensor.cuda.Stream(),
              lambda: ctensor.cuda.Event().query(), lambda: ctensor.cuda.memory_allocated(0),
              lambda: ctensor.cuda.device(None).__enter__(), lambda: ctensor.cuda.stream(None),
              lambda: ctensor.cuda.get_device_properties("cuda"), lambda: ctensor.ones(2).cuda(),
              lambda: ctensor.zeros(2, pin_memory=True), lambda: ctensor.ones(2).is_pinned(),
              lambda: ctensor.cuda.set_device("cpu"), lambda: ctensor.cuda.Stream(priority="x"),
              lambda: ctensor.from_dlpack(Producer((2, 0)))]


@pytest.mark.parametrize("i", range(len(LEAK_CALLS)))
def test_no_reference_or_memory_leaks(i):
    import sys
    from leak_util import assert_steady
    objs = [ctensor.cuda, ctensor.device, ctensor.cuda.Stream, int, str]
    assert_steady(LEAK_CALLS[i], lambda: [sys.getrefcount(o) for o in objs], i)
