"""The Python binding of the CUDA backend on a GPU: ctensor.cuda's devices, memory statistics,
Stream / Event / StreamContext objects, pinned memory and non_blocking copies, and DLPack with
torch's CUDA tensors (streams both ways). Skipped without a CUDA device; the element-wise
kernels' own tests live elsewhere. Written without a GPU at hand: first run on the GPU
machine.
"""
import gc

import pytest

import ctensor
import ctensor.cuda as cc
import torch

pytestmark = pytest.mark.skipif(not cc.is_available(), reason="needs a CUDA device")


def test_devices_and_properties():
    assert cc.device_count() >= 1 and cc.is_initialized()
    assert cc.current_device() == 0
    p = cc.get_device_properties(0)
    assert p.name == cc.get_device_name() == cc.get_device_name("cuda:0") != ""
    assert (p.major, p.minor) == cc.get_device_capability(0) and p.major >= 1
    assert p.total_memory > 0 and p.multi_processor_count > 0
    assert repr(p).startswith("_CudaDeviceProperties(name=")
    assert ctensor.accelerator.current_accelerator() == ctensor.device("cuda")
    with pytest.raises(AssertionError, match="^Invalid device id$"):
        cc.get_device_properties(cc.device_count())
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cc.set_device(cc.device_count())


def test_device_context_and_set_device():
    with cc.device(0):
        assert cc.current_device() == 0
    for d in ["cuda:0", ctensor.device("cuda", 0), None, -1]:
        with cc.device(d):
            pass
    with cc.device_of(ctensor.ones(1, device="cuda")):
        assert cc.current_device() == 0
    cc.set_device(0)
    cc.set_device("cuda:0")
    cc.synchronize()
    cc.synchronize(0)
    cc.synchronize("cuda")


def test_tensors_move():
    assert ctensor.ones(3, device="cuda").cpu().tolist() == [1.0, 1.0, 1.0]
    x = ctensor.arange(4.0).cuda()
    assert x.is_cuda and str(x.device) == "cuda:0" and x.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ctensor.arange(2.0).cuda(0).device == ctensor.device("cuda:0")
    assert ctensor.ones(2).type("torch.cuda.FloatTensor").type() == "torch.cuda.FloatTensor"


def test_memory_statistics():
    cc.synchronize()
    gc.collect()
    before = cc.memory_allocated()
    x = ctensor.empty(1 << 20, device="cuda")  # 4 MiB
    assert cc.memory_allocated() >= before + 4 * (1 << 20)
    assert cc.max_memory_allocated() >= cc.memory_allocated()
    assert cc.memory_reserved() >= cc.memory_allocated()
    assert cc.max_memory_reserved() >= cc.memory_reserved()
    stats = cc.memory_stats()
    assert stats["allocated_bytes.all.current"] == cc.memory_allocated()
    assert stats["num_device_alloc"] >= 1
    del x
    assert cc.memory_allocated() == before
    cc.reset_peak_memory_stats()
    assert cc.max_memory_allocated() == cc.memory_allocated()
    cc.empty_cache()
    assert cc.memory_reserved() >= cc.memory_allocated()


def test_pinned_memory_and_non_blocking_copies():
    p = ctensor.arange(1000.0).pin_memory()
    assert p.is_pinned() and not ctensor.ones(2).is_pinned()
    assert p.pin_memory() is p
    assert ctensor.zeros(4, pin_memory=True).is_pinned()
    assert ctensor.tensor([1, 2], pin_memory=True).is_pinned()
    with pytest.raises(RuntimeError):
        ctensor.ones(2, device="cuda").pin_memory()
    g = p.to("cuda", non_blocking=True)
    h = g.to("cpu", non_blocking=True)
    assert h.is_pinned()  # as PyTorch: a non_blocking copy to the host lands in pinned memory
    cc.synchronize()
    assert h.tolist() == p.tolist()
    z = ctensor.zeros(1000, pin_memory=True)
    z.copy_(g, non_blocking=True)
    cc.current_stream().synchronize()
    assert z.tolist() == p.tolist()
    c = ctensor.zeros(1000).cuda(non_blocking=True)
    c.copy_(p, non_blocking=True)
    assert c.cpu().tolist() == p.tolist()  # a read on the host waits


def test_streams():
    s = cc.Stream()
    cur, d = cc.current_stream(), cc.default_stream()
    assert cur == d and hash(cur) == hash(d) and d.cuda_stream == 0
    assert s != d and s.cuda_stream != 0 and s.device == ctensor.device("cuda:0")
    assert repr(s) == f"<ctensor.cuda.Stream device=cuda:0 cuda_stream={s.cuda_stream:#x}>"
    with cc.stream(s) as entered:
        assert entered is s and cc.current_stream() is s
        x = ctensor.ones(100000, device="cuda")
    assert cc.current_stream() == d
    e = s.record_event()
    e.synchronize()
    assert e.query()
    s.synchronize()
    assert s.query()
    cur.wait_stream(s)
    cur.wait_event(e)
    cc.set_stream(s)
    assert cc.current_stream() == s
    cc.set_stream(d)
    assert cc.Stream(priority=-1) != s
    assert x.cpu().tolist()[:2] == [1.0, 1.0]


def test_freed_current_stream_falls_back_to_default():
    s = cc.Stream()
    cc.set_stream(s)
    del s
    gc.collect()
    assert cc.current_stream() == cc.default_stream()


def test_events():
    a, b = cc.Event(enable_timing=True), cc.Event(enable_timing=True)
    a.record()
    x = ctensor.ones(1 << 22, device="cuda")
    b.record()
    b.synchronize()
    assert a.elapsed_time(b) >= 0
    e = cc.Event()
    e.record(cc.current_stream())
    e.wait()
    e.synchronize()
    assert e.query() and x.device.type == "cuda"
    with pytest.raises(RuntimeError):
        cc.Event().elapsed_time(cc.Event())


def test_dlpack_to_torch():
    x = ctensor.arange(5.0).cuda()
    assert x.__dlpack_device__() == (2, 0)
    t = torch.from_dlpack(x)
    assert t.device == torch.device("cuda:0") and t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    s = torch.cuda.Stream()
    t2 = torch.from_dlpack(x.__dlpack__(stream=s.cuda_stream))
    assert t2.tolist() == t.tolist()
    t.add_(1)  # zero-copy: we see torch's write
    torch.cuda.synchronize()
    assert x.cpu().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_dlpack_from_torch():
    t = torch.arange(5.0, device="cuda")
    x = ctensor.from_dlpack(t)
    assert str(x.device) == "cuda:0" and x.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    t.add_(1)
    torch.cuda.synchronize()
    assert x.cpu().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    del t
    gc.collect()
    assert x.cpu().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]  # the capsule keeps torch's memory
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t3 = torch.full((4,), 7.0, device="cuda")
        x3 = ctensor.from_dlpack(t3)  # torch orders its stream before ours
    assert x3.cpu().tolist() == [7.0] * 4
    assert ctensor.from_dlpack(ctensor.arange(3.0).cuda(), device="cpu").tolist() == [0.0, 1.0,
                                                                                         2.0]
