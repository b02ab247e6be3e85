"""pickle, copy.copy and copy.deepcopy of tensors (python/tensor_pickle.c), compared with
torch 1.13: pickle keeps the whole storage, the strides and the storage offset; copy.copy
shares the storage; deepcopy copies it once per call, so views of one base stay views of one
new storage. Every dtype (the shell dtypes too, as raw bytes), cpu and meta, sparse COO, and
a round trip through multiprocessing (spawned processes)."""
import copy
import multiprocessing
import pickle

import numpy as np
import pytest
import torch

import ctensor
from conftest import ALL, SHARED


def random_tensor(lib, name, shape, seed=0):
    """Random bytes seen as dtype `name` (bool: 0 or 1), in lib (ctensor or torch)."""
    dt = getattr(lib, name)
    n = int(np.prod(shape)) * lib.empty(0, dtype=dt).element_size()
    raw = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
    if name == "bool":
        raw &= 1
    return lib.from_numpy(raw).view(dt).reshape(shape)


def raw(t):
    return t.contiguous().reshape(-1).view(ctensor.uint8).numpy().tobytes()


def geometry(t):
    return (tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype).split(".")[-1])


VIEWS = {
    "plain": lambda b: b,
    "transposed": lambda b: b.t(),
    "sliced": lambda b: b.t()[1:, ::2],
    "expanded": lambda b: b[:1].expand(3, 6),
    "scalar": lambda b: b[1, 2],
    "empty": lambda b: b[:0],
}


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_pickle_every_dtype_and_view(name, view, protocol):
    t = VIEWS[view](random_tensor(ctensor, name, [4, 6]))
    back = pickle.loads(pickle.dumps(t, protocol=protocol))
    assert type(back) is ctensor.Tensor
    assert geometry(back) == geometry(t)
    assert raw(back) == raw(t)
    assert back.data_ptr() != t.data_ptr() or t.numel() == 0
    if name in SHARED and name != "complex32" and view != "empty":  # 1.13 cannot pickle complex32
        tt = VIEWS[view](random_tensor(torch, name, [4, 6]))
        assert geometry(pickle.loads(pickle.dumps(tt))) == geometry(back)


@pytest.mark.parametrize("name", ["float32", "float8_e5m2", "complex128", "bool"])
def test_copy_and_deepcopy(name):
    base = random_tensor(ctensor, name, [4, 6])
    v = base.t()[1:]
    c = copy.copy(v)
    assert c is not v and c.data_ptr() == v.data_ptr() and geometry(c) == geometry(v)
    d = copy.deepcopy(v)
    assert d.data_ptr() != v.data_ptr() and geometry(d) == geometry(v) and raw(d) == raw(v)
    # one deepcopy call copies a storage once: views stay views of the same new storage
    x, y = copy.deepcopy((base, base[1]))
    assert y.data_ptr() - x.data_ptr() == 6 * base.element_size()
    tx, ty = copy.deepcopy((torch.zeros(4, 6), torch.zeros(4, 6)[1]))  # torch: the same rule
    bt = torch.zeros(4, 6)
    tx, ty = copy.deepcopy((bt, bt[1]))
    assert ty.data_ptr() - tx.data_ptr() == 6 * bt.element_size()
    x[1, 0] = x[1, 1]  # and writes through one show in the other
    assert raw(y[0]) == raw(x[1, 1])


def test_meta():
    t = ctensor.empty(2, 3, device="meta").t()
    for back in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t), copy.copy(t)):
        assert back.device.type == "meta" and geometry(back) == geometry(t)
    tm = torch.empty(2, 3, device="meta").t()
    assert geometry(pickle.loads(pickle.dumps(tm))) == geometry(t)


@pytest.mark.parametrize("coalesce", [False, True])
def test_sparse_coo(coalesce):
    s = ctensor.sparse_coo_tensor([[1, 0, 1], [2, 0, 2]], [1.0, 2.0, 3.0], (3, 4))
    if coalesce:
        s = s.coalesce()
    for back in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
        assert back.layout == ctensor.sparse_coo and back.shape == s.shape
        assert back.is_coalesced() == s.is_coalesced()
        assert ctensor.equal(back._indices(), s._indices())
        assert ctensor.equal(back._values(), s._values())
        assert ctensor.equal(back.to_dense(), s.to_dense())


def _echo(t):
    """In the child: the tensor back, its strides and its bytes as the child sees them."""
    return t, t.stride(), raw(t)


def test_multiprocessing_round_trip():
    base = ctensor.arange(24.0).reshape(4, 6)
    items = [base, base.t(), base[1:, ::2], ctensor.ones(3, dtype=ctensor.float8_e4m3fn)]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.map(_echo, items)
    for t, (r, stride, seen) in zip(items, results):
        assert stride == t.stride() and r.stride() == t.stride()
        assert seen == raw(t) and raw(r) == raw(t)


def test_refuses_what_has_no_bytes():
    with pytest.raises(TypeError):
        ctensor._rebuild_tensor(b"", 0, "cpu", "float32", (), (), 0)  # dtype must be a dtype
    with pytest.raises(ValueError, match="inconsistent"):
        ctensor._rebuild_tensor(b"ab", 3, "cpu", ctensor.uint8, (2,), (1,), 0)
    with pytest.raises(RuntimeError, match="out of bounds"):
        ctensor._rebuild_tensor(b"ab", 2, "cpu", ctensor.uint8, (3,), (1,), 0)
