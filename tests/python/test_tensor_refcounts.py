"""No reference or memory leaks in the tensor API, on success and error paths.

Each call is repeated many times; afterwards the Python reference counts of the singletons
and types involved, the C reference counts of a base tensor and its storage (views hold the
storage), the host blocks ctensor holds (ctensor._live_allocations(), a counting allocator
the module installs) and the memory tracemalloc sees must all be back where they started.
"""
import gc
import sys
import tracemalloc

import numpy as np
import pytest

import ctensor
from leak_util import run_ignoring_errors

F32, I8 = ctensor.float32, ctensor.int8
BASE = ctensor.arange(24.0).reshape(2, 3, 4)
EMPTY = ctensor.zeros(0, 3)
ARRAY = np.arange(6.0).reshape(2, 3).T
REVERSED = np.arange(3)[::-1]


def _setitem(index, value):
    t = ctensor.zeros(2, 3)
    t[index] = value


CALLS = [
    # factories and their errors
    ("zeros", lambda: ctensor.zeros(2, 3, dtype=I8)),
    ("zeros_err_size", lambda: ctensor.zeros(2, "a")),
    ("zeros_err_kw", lambda: ctensor.zeros(2, dtype=1)),
    ("zeros_err_neg", lambda: ctensor.zeros(-1)),
    ("empty_cl", lambda: ctensor.empty(2, 3, 4, 5, memory_format=ctensor.channels_last)),
    ("full", lambda: ctensor.full((2,), 1.5)),
    ("full_overflow", lambda: ctensor.full((2,), 300, dtype=ctensor.uint8)),
    ("arange", lambda: ctensor.arange(0, 10, 3)),
    ("arange_err", lambda: ctensor.arange(0, 10, 0)),
    ("rand", lambda: ctensor.rand(3, generator=ctensor.default_generator)),
    ("randn_err", lambda: ctensor.randn(3, dtype=ctensor.int32)),
    ("like", lambda: ctensor.empty_like(BASE.permute(2, 0, 1), dtype=I8)),
    ("like_err", lambda: ctensor.zeros_like(BASE, memory_format=ctensor.channels_last)),
    ("requires_grad", lambda: ctensor.zeros(2, requires_grad=True)),
    ("layout", lambda: ctensor.zeros(2, layout=ctensor.sparse_coo)),
    ("meta", lambda: ctensor.ones(2, device="meta")),
    ("device_err", lambda: ctensor.ones(2, device="cuda:0")),
    ("manual_seed", lambda: ctensor.manual_seed(3)),
    ("generator", lambda: ctensor.Generator().manual_seed(2).get_state()),
    # tensor(data)
    ("tensor", lambda: ctensor.tensor([[1, 2.5], [3, 4]])),
    ("tensor_ragged", lambda: ctensor.tensor([[1, 2], [3]])),
    ("tensor_str", lambda: ctensor.tensor([1, "a"])),
    ("tensor_overflow", lambda: ctensor.tensor([300], dtype=ctensor.uint8)),
    ("tensor_long", lambda: ctensor.tensor([2**70])),
    ("tensor_of_tensors", lambda: ctensor.tensor([BASE[0, 0, 0], BASE[0, 0, 1]])),
    ("tensor_numpy", lambda: ctensor.tensor(ARRAY)),
    ("tensor_numpy_err", lambda: ctensor.tensor(REVERSED)),
    ("tensor_copy", lambda: ctensor.tensor(BASE)),
    ("legacy", lambda: ctensor.Tensor([1, 2]).shape),
    ("legacy_sizes", lambda: ctensor.Tensor(2, 3)),
    ("legacy_err", lambda: ctensor.Tensor(2.5)),
    ("size", lambda: ctensor.Size([2, 3]) + (4,)),
    ("size_err", lambda: ctensor.Size([2.5])),
    # views
    ("view", lambda: BASE.view(6, 4)),
    ("view_err", lambda: BASE.permute(2, 1, 0).view(24)),
    ("view_dtype", lambda: BASE.view(ctensor.int16)),
    ("reshape_copy", lambda: BASE.permute(2, 1, 0).reshape(24)),
    ("views", lambda: (BASE.transpose(0, 2), BASE.permute(1, 0, 2), BASE.expand(2, 2, 3, 4),
                       BASE.narrow(2, 1, 2), BASE.select(1, 0), BASE.unsqueeze(0).squeeze(),
                       BASE.flatten(), BASE.as_strided((2, 2), (1, 2)), BASE.unbind(1),
                       BASE.T, BASE[0].mT, BASE[0].t(), BASE.contiguous())),
    ("transpose_err", lambda: BASE.transpose(0, 5)),
    ("expand_err", lambda: BASE.expand(3, 3, 4)),
    ("permute_err", lambda: BASE.permute(0, 0, 1)),
    ("size_name", lambda: BASE.size("a")),
    ("contiguous_cl", lambda: ctensor.ones(2, 3, 4, 5).contiguous(
        memory_format=ctensor.channels_last)),
    # indexing
    ("getitem", lambda: BASE[1, ::2, None, ..., -1]),
    ("getitem_err", lambda: BASE[5]),
    ("getitem_adv", lambda: BASE[[0, 1]]),
    ("getitem_float", lambda: BASE[1.5]),
    ("setitem", lambda: _setitem((0, slice(1, None)), 7)),
    ("setitem_tensor", lambda: _setitem(0, ctensor.ones(1, 3))),
    ("setitem_err", lambda: _setitem(0, ctensor.ones(2))),
    ("setitem_overflow", lambda: _setitem(0, 2**63)),
    ("setitem_list", lambda: _setitem(0, [1, 2, 3])),
    ("iter", lambda: list(BASE)),
    ("len_err", lambda: len(ctensor.tensor(1.0))),
    # conversions
    ("to", lambda: BASE.to(ctensor.float16)),
    ("to_self", lambda: BASE.to(F32)),
    ("to_meta", lambda: BASE.to("meta")),
    ("to_err", lambda: BASE.to("cuda")),
    ("to_number", lambda: BASE.to(2.5)),
    ("casts", lambda: (BASE.int(), BASE.bool(), BASE.cdouble().float(), BASE.half())),
    ("type", lambda: (BASE.type(), BASE.type("torch.IntTensor"))),
    ("type_err", lambda: BASE.type("torch.Foo")),
    ("cuda_err", lambda: BASE.cuda()),
    ("copy", lambda: ctensor.zeros(3, 4).copy_(BASE[0])),
    ("copy_number", lambda: ctensor.zeros(3).copy_(2.5)),
    ("copy_err", lambda: ctensor.zeros(3).copy_(BASE)),
    ("clone", lambda: BASE.permute(2, 0, 1).clone()),
    ("fill", lambda: ctensor.zeros(3).fill_(ctensor.tensor(2))),
    ("fill_err", lambda: ctensor.zeros(3, dtype=I8).fill_(1000)),
    # data
    ("tolist", lambda: BASE.permute(2, 0, 1).tolist()),
    ("item", lambda: BASE[0, 0, 0].item()),
    ("item_err", lambda: BASE.item()),
    ("scalars", lambda: (int(BASE[0, 0, 1]), float(BASE[0, 0, 1]), bool(BASE[0, 0, 1]))),
    ("bool_err", lambda: bool(BASE)),
    ("numpy", lambda: BASE.numpy().sum()),
    ("numpy_err", lambda: BASE.bfloat16().numpy()),
    ("result_type", lambda: ctensor.result_type(BASE, 2.5)),
    ("repr", lambda: repr(BASE[0]) + str(EMPTY)),
]


def state():
    objs = [getattr(ctensor, n) for n in dir(ctensor)
            if isinstance(getattr(ctensor, n), (ctensor.dtype, ctensor.layout,
                                                ctensor.memory_format))]
    objs += [ctensor.Tensor, ctensor.Size, ctensor.dtype, ctensor.device, ctensor.Generator,
             ctensor.default_generator, float, int]
    return ([sys.getrefcount(o) for o in objs], BASE._refcounts(), EMPTY._refcounts(),
            ctensor._live_allocations())


@pytest.mark.parametrize("name,fn", CALLS, ids=[c[0] for c in CALLS])
def test_no_leaks(name, fn):
    run_ignoring_errors(fn, 50)  # warm up caches (interned strings, exception machinery, NumPy)
    gc.collect()
    before = state()
    tracemalloc.start()
    run_ignoring_errors(fn, 50)
    first = tracemalloc.get_traced_memory()[0]
    run_ignoring_errors(fn, 500)
    second = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert state() == before, name
    assert second - first < 4096, name


def test_views_outlive_their_base():
    x = ctensor.arange(6.0).reshape(2, 3)
    v = x.t()[1]
    assert x._refcounts() == (1, 2)  # the view holds the storage, not the tensor
    del x
    assert v.tolist() == [1.0, 4.0] and v._refcounts() == (1, 1)


def test_weakref_and_subclass_dealloc():
    import weakref

    class Sub(ctensor.Tensor):
        pass

    gc.collect()  # garbage of earlier tests would be collected below, not counted
    before = ctensor._live_allocations()
    t = Sub([1.0, 2.0])
    t.cycle = t
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is None and ctensor._live_allocations() == before
