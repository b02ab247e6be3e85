"""ctensor.save_file / load_file against the safetensors package (PyPI, scripts/pydeps.sh).

Both ways, every dtype the format shares with ctensor: files the package writes (from raw
bytes through safetensors.serialize_file, from torch tensors through safetensors.torch and
from NumPy arrays through safetensors.numpy) are read by ctensor bit for bit, and files
ctensor writes are read by the package (safetensors.deserialize gives the raw bytes, dtype
strings and shapes; safetensors.torch.load_file the torch tensors). Malformed files are
refused by both. The C parser's messages are checked in tests/unit/test_safetensors.c."""
import os
import struct

import numpy as np
import pytest
import torch

import ctensor
from pydeps_util import need

# ctensor dtype -> safetensors dtype string (include/ctensor/safetensors.h)
FORMAT = {
    "bool": "BOOL", "uint8": "U8", "int8": "I8", "uint16": "U16", "int16": "I16",
    "uint32": "U32", "int32": "I32", "uint64": "U64", "int64": "I64", "float16": "F16",
    "bfloat16": "BF16", "float32": "F32", "float64": "F64", "complex64": "C64",
    "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2", "float8_e4m3fnuz": "F8_E4M3FNUZ",
    "float8_e5m2fnuz": "F8_E5M2FNUZ", "float8_e8m0fnu": "F8_E8M0", "float4_e2m1fn_x2": "F4",
}
TORCH_SHARED = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex64"]


def random_tensor(name, shape, seed=0):
    """A ctensor tensor of dtype `name` holding random bytes (bool: 0 or 1)."""
    dt = getattr(ctensor, name)
    itemsize = ctensor.empty(0, dtype=dt).element_size()
    n = int(np.prod(shape)) * itemsize
    raw = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
    if name == "bool":
        raw &= 1
    return ctensor.from_numpy(raw).view(dt).reshape(shape) if n else ctensor.empty(shape, dtype=dt)


def raw_bytes(t):
    """The bytes of a ctensor tensor, in C order."""
    t = t.contiguous()
    return bytes(t.reshape(-1).view(ctensor.uint8).numpy().tobytes()) if t.numel() else b""


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "t.safetensors")


@pytest.mark.parametrize("name", sorted(FORMAT))
def test_package_writes_ctensor_reads(name, path):
    st = need("safetensors")
    shapes = {"a": [3, 4], "b": [], "c": [2, 0, 3], "d": [5]}
    if name == "float4_e2m1fn_x2":
        shapes["b"] = [1]  # no 0-dim F4
    tensors = {k: random_tensor(name, s, seed=i) for i, (k, s) in enumerate(shapes.items())}
    keep = {k: np.frombuffer(raw_bytes(t), np.uint8).copy() for k, t in tensors.items()}
    spec = {k: st.TensorSpec(dtype=name, shape=list(tensors[k].shape),
                             data_ptr=a.ctypes.data, data_len=a.nbytes) for k, a in keep.items()}
    st.serialize_file(spec, path, {"format": "raw", "é": "ü"})
    got = ctensor.load_file(path)
    assert sorted(got) == sorted(tensors)
    for k, t in tensors.items():
        assert got[k].dtype == t.dtype and got[k].shape == t.shape, k
        assert got[k].is_contiguous()
        assert raw_bytes(got[k]) == keep[k].tobytes(), k
    assert ctensor.safetensors.load_metadata(path) == {"format": "raw", "é": "ü"}


@pytest.mark.parametrize("name", sorted(FORMAT))
def test_ctensor_writes_package_reads(name, path):
    st = need("safetensors")
    base = random_tensor(name, [4, 6], seed=3)
    tensors = {
        "plain": base,
        "transposed": base.t(),                   # non-contiguous: written contiguous
        "sliced": base[1:, ::2],                  # storage offset and strides
        "expanded": base[:1].expand(3, 6),        # stride 0
        "empty": base[:0],
    }
    if name != "float4_e2m1fn_x2":
        tensors["scalar"] = base[1, 2]
    ctensor.save_file(tensors, path, metadata={"k": "v"})
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    assert (8 + n) % 8 == 0  # the header is padded, as the package pads it
    got = dict(st.deserialize(data))
    assert sorted(got) == sorted(tensors)
    for k, t in tensors.items():
        shape = list(t.shape)
        if name == "float4_e2m1fn_x2":
            shape[-1] *= 2  # the file counts 4-bit values
        assert got[k]["dtype"] == FORMAT[name], k
        assert list(got[k]["shape"]) == shape, k
        assert bytes(got[k]["data"]) == raw_bytes(t), k
    with st.safe_open(path, "np") as f:
        assert f.metadata() == {"k": "v"}
    back = ctensor.load_file(path)
    for k, t in tensors.items():
        assert back[k].shape == t.shape and raw_bytes(back[k]) == raw_bytes(t)


@pytest.mark.parametrize("name", TORCH_SHARED)
def test_torch_round_trip(name, path):
    st_torch = need("safetensors.torch")
    a = torch.from_numpy(np.random.default_rng(1).integers(0, 256, 96, dtype=np.uint8))
    if name == "bool":
        a &= 1
    t = a.view(getattr(torch, name)).reshape(4, -1)
    written = {"w": t, "v": t[:, 1:].t().contiguous()}  # the package wants contiguous ones
    st_torch.save_file(written, path)
    got = ctensor.load_file(path)
    for k, want in written.items():
        assert got[k].shape == want.shape
        assert raw_bytes(got[k]) == want.contiguous().view(torch.uint8).numpy().tobytes()
    ctensor.save_file({"x": got["w"][:, 1:].t()}, path)  # ctensor writes any strides
    back = st_torch.load_file(path)["x"]
    assert back.dtype == t.dtype and torch.equal(back.view(torch.uint8),
                                                 t[:, 1:].t().contiguous().view(torch.uint8))


def test_numpy_writer(path):
    st_np = need("safetensors.numpy")
    arrays = {"u16": np.arange(6, dtype=np.uint16).reshape(2, 3),
              "u64": np.array([2**64 - 1, 0], dtype=np.uint64),
              "f16": np.array([1.5, -0.0, np.inf], dtype=np.float16)}
    st_np.save_file(arrays, path)
    got = ctensor.load_file(path)
    for k, a in arrays.items():
        assert got[k].numpy().tobytes() == a.tobytes() and got[k].shape == a.shape


def test_load_is_a_view_of_the_mapping(path):
    t = ctensor.arange(1000.0)
    ctensor.save_file({"t": t}, path)
    got = ctensor.load_file(path)["t"]
    got.add_(1)  # copy-on-write: the file keeps its bytes
    assert ctensor.equal(ctensor.load_file(path)["t"], t)
    ctensor.save_file({"t": got}, path)  # overwriting a loaded file: a new file replaces it
    assert got[999].item() == 1000.0 and ctensor.equal(ctensor.load_file(path)["t"], got)
    os.remove(path)  # the mapping outlives the name
    assert got[999].item() == 1000.0
    assert not [f for f in os.listdir(os.path.dirname(path)) if ".ct-tmp-" in f]


def test_devices_and_errors(path):
    t = ctensor.arange(6.0).reshape(2, 3)
    ctensor.save_file({"t": t}, path)
    m = ctensor.load_file(path, device="meta")["t"]
    assert m.device.type == "meta" and m.shape == (2, 3)
    assert ctensor.safetensors.load_file is not None
    with pytest.raises(ValueError, match=r"Expected a dict of \[str, torch.Tensor\]"):
        ctensor.save_file([t], path)
    with pytest.raises(ValueError, match="Key `t` is invalid"):
        ctensor.save_file({"t": 1}, path)
    with pytest.raises(TypeError, match="complex128 of 'c' has no safetensors dtype"):
        ctensor.save_file({"c": ctensor.zeros(1, dtype=ctensor.complex128)}, path)
    with pytest.raises(NotImplementedError, match="meta tensor"):
        ctensor.save_file({"m": ctensor.zeros(1, device="meta")}, path)
    sp = ctensor.sparse_coo_tensor([[0]], [1.0], (2,))
    with pytest.raises(ValueError, match="sparse tensor"):
        ctensor.save_file({"s": sp}, path)
    with pytest.raises(RuntimeError, match="No such file"):
        ctensor.load_file(path + ".missing")


MALFORMED = [
    b"\x01\x00",                                                   # shorter than the length
    struct.pack("<Q", 2**40) + b"{}",                              # header too large
    struct.pack("<Q", 10) + b"{}",                                 # header beyond the file
    struct.pack("<Q", 2) + b"[]",                                  # not an object
    struct.pack("<Q", 6) + b'{"a":}',                              # bad JSON
    struct.pack("<Q", 48) + b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}'[:48],
]


def header(obj_text, ndata):
    h = obj_text.encode()
    return struct.pack("<Q", len(h)) + h + bytes(ndata)


MALFORMED += [
    header('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}', 4),   # size mismatch
    header('{"a":{"dtype":"X9","shape":[1],"data_offsets":[0,4]}}', 4),    # unknown dtype
    header('{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
           '"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}', 3),     # overlap
    header('{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', 9),    # not covered
    header('{"a":{"dtype":"U8","shape":[-2],"data_offsets":[0,2]}}', 2),   # negative
    header('{"__metadata__":{"k":3}}', 0),                                 # non-string value
]


@pytest.mark.parametrize("i", range(len(MALFORMED)))
def test_malformed_refused_by_both(i, path):
    st = need("safetensors")
    with open(path, "wb") as f:
        f.write(MALFORMED[i])
    with pytest.raises(st.SafetensorError):
        st.deserialize(MALFORMED[i])
    with pytest.raises(ValueError, match="Error while deserializing header"):
        ctensor.load_file(path)
