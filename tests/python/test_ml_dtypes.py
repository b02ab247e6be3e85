"""NumPy exchange of the float8 dtypes through ml_dtypes (PyPI, scripts/pydeps.sh), and
ml_dtypes as an independent reference for ctensor's float8 / e8m0 / float4 conversions.

Exchange: Tensor.numpy() and np.asarray(t) of a float8 tensor are arrays of ml_dtypes' type
of the same name sharing the tensor's memory (any strides); ctensor.from_numpy of such an
array shares the array's memory. float4_e2m1fn_x2 packs two values per byte while
ml_dtypes.float4_e2m1fn holds one per byte: both directions copy, the byte's two values
becoming two elements of a last dim twice as long.

Reference: every 8-bit code -> float32 (ct_convert), and a large fixed-seed sample of float32
-> each 8-bit format, must match ml_dtypes bit for bit; float4 through ct_float4_pack /
ct_float4_unpack against ml_dtypes.float4_e2m1fn nibbles. Where they differ, ctensor follows
PyTorch; the differences are listed in KNOWN_DIFFERENCES below and checked to be exactly those.
"""
import ctypes
import os

import numpy as np
import pytest

import ctensor
from pydeps_util import need

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]


def random_float8(name, shape, seed=0):
    raw = np.random.default_rng(seed).integers(0, 256, int(np.prod(shape)), dtype=np.uint8)
    return ctensor.from_numpy(raw).view(getattr(ctensor, name)).reshape(shape)


@pytest.mark.parametrize("name", FLOAT8)
def test_numpy_of_float8_shares_memory(name):
    ml = need("ml_dtypes")
    base = random_float8(name, [4, 6])
    for t in (base, base.t(), base[1:, ::2]):
        for a in (t.numpy(), np.asarray(t)):
            assert a.dtype == np.dtype(getattr(ml, name))
            assert a.shape == tuple(t.shape)
            assert a.strides == tuple(s * 1 for s in t.stride())
            assert a.ctypes.data == t.data_ptr()
            assert a.view(np.uint8).tobytes() == t.contiguous().view(ctensor.uint8).numpy().tobytes()
    a = base.numpy()
    a[0, 0] = a.dtype.type(1.0)  # writes show in the tensor
    assert base[0, 0].view(ctensor.uint8).item() == a[:1, :1].view(np.uint8)[0, 0]


@pytest.mark.parametrize("name", FLOAT8)
def test_from_numpy_float8_shares_memory(name):
    ml = need("ml_dtypes")
    a = np.random.default_rng(1).standard_normal((4, 6)).astype(getattr(ml, name))
    for arr in (a, a.T, a[1:, ::2]):
        t = ctensor.from_numpy(arr)
        assert t.dtype == getattr(ctensor, name)
        assert t.data_ptr() == arr.ctypes.data
        assert tuple(t.stride()) == tuple(s // arr.itemsize for s in arr.strides)
        assert t.numpy().view(np.uint8).tobytes() == arr.view(np.uint8).tobytes()


def test_float4_exchange_both_ways():
    """float4_e2m1fn_x2 <-> ml_dtypes.float4_e2m1fn: byte b of the tensor holds values
    (b & 15, b >> 4), which become two consecutive elements of the array's last dim (twice
    as long); a copy both ways, every 4-bit code, any strides."""
    ml = need("ml_dtypes")
    raw = np.random.default_rng(3).integers(0, 256, (3, 8), dtype=np.uint8)
    base = ctensor.from_numpy(raw).view(ctensor.float4_e2m1fn_x2)
    for t, r in ((base, raw), (base.t(), raw.T), (base[1:, ::3], raw[1:, ::3]),
                 (base[0, 0], raw[0, 0])):
        for a in (t.numpy(), np.asarray(t)):
            assert a.dtype == np.dtype(ml.float4_e2m1fn)
            want = np.stack((r & 15, r >> 4), axis=-1).reshape(r.shape[:-1] + (-1,)) \
                if r.ndim else np.array([r & 15, r >> 4])
            assert np.array_equal(a.view(np.uint8), want)
            # ml_dtypes decodes each code as ct_float4_unpack does
            values = np.arange(16, dtype=np.uint8).view(ml.float4_e2m1fn).astype(np.float32)
            assert np.array_equal(a.astype(np.float32), values[want], equal_nan=True)
            back = ctensor.from_numpy(a)
            assert back.dtype == ctensor.float4_e2m1fn_x2 and back.shape == (t.shape or (1,))
            assert np.array_equal(back.view(ctensor.uint8).numpy(),
                                  r.reshape(back.shape) if r.ndim else r.reshape(1))
    arr = np.array([[0.5, -6.0, 1.5, 0.0]], dtype=ml.float4_e2m1fn)
    t = ctensor.from_numpy(arr)
    assert t.shape == (1, 2) and t.numpy().astype(np.float32).tolist() == [[0.5, -6.0, 1.5, 0.0]]
    with pytest.raises(ValueError, match="last dimension must have an even size"):
        ctensor.from_numpy(np.zeros(3, dtype=ml.float4_e2m1fn))
    with pytest.raises(TypeError, match="bfloat16"):  # bfloat16 arrays: not float8
        ctensor.from_numpy(np.zeros(4, dtype=ml.bfloat16))


def test_float4_without_ml_dtypes_is_refused(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import fails
    t = ctensor.zeros(2, dtype=ctensor.uint8).view(ctensor.float4_e2m1fn_x2)
    with pytest.raises(TypeError, match="Got unsupported ScalarType Float4_e2m1fn_x2"):
        t.numpy()


# ---- ml_dtypes as a reference for the conversions --------------------------------------------

LIB_PATH = os.environ.get("CT_LIBCTENSOR")


def clib():
    if not LIB_PATH:
        pytest.skip("CT_LIBCTENSOR is not set: run through ctest")
    lib = ctypes.CDLL(LIB_PATH)
    lib.ct_convert.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                               ctypes.c_size_t]
    lib.ct_dtype_from_name.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    lib.ct_float4_pack.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.ct_float4_unpack.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return lib


def enum(lib, name):
    out = ctypes.c_int()
    assert lib.ct_dtype_from_name(name.encode(), ctypes.byref(out)) == 0
    return out.value


def ct_convert(lib, dst, src, arr, out_dtype):
    out = np.empty(arr.size, dtype=out_dtype)
    assert lib.ct_convert(enum(lib, dst), out.ctypes.data, enum(lib, src), arr.ctypes.data,
                          arr.size) == 0
    return out


def sample_float32(n=1 << 20, seed=1234):
    """Random bit patterns (every exponent, NaNs, infs, subnormals), plus values crowded
    around the 8-bit formats' range (where rounding and overflow decide)."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n // 2, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = (rng.standard_normal(n // 2) * 2.0 ** rng.integers(-30, 20, n // 2)).astype(np.float32)
    return np.concatenate([bits, near, np.float32([0.0, -0.0, np.inf, -np.inf, np.nan])])


# Where PyTorch's rule (which ctensor follows) and ml_dtypes' differ: float32 -> e8m0fnu of
# a negative number or zero. PyTorch's cast keeps only the exponent field, so the sign is
# dropped (-8.0 -> the code of 8.0) and +-0 (exponent field 0) becomes code 0x00 (2^-127);
# ml_dtypes gives NaN (0xFF) for all of them, the format having no sign and no zero. Every
# other input, in every format, matches bit for bit (NaN codes: both NaN).
def known_difference(name, x):
    """The inputs where ctensor follows PyTorch away from ml_dtypes (a bool mask)."""
    if name == "float8_e8m0fnu":
        return ~np.isnan(x) & (np.signbit(x) | (x == 0))
    return np.zeros(x.shape, bool)


@pytest.mark.parametrize("name", FLOAT8)
def test_every_code_to_float32_matches_ml_dtypes(name):
    ml = need("ml_dtypes")
    lib = clib()
    codes = np.arange(256, dtype=np.uint8)
    ours = ct_convert(lib, "float32", name, codes, np.float32)
    theirs = codes.view(getattr(ml, name)).astype(np.float32)
    same = (ours.view(np.uint32) == theirs.view(np.uint32)) | (np.isnan(ours) & np.isnan(theirs))
    assert same.all(), [(hex(c), ours[c], theirs[c]) for c in np.nonzero(~same)[0]]


@pytest.mark.parametrize("name", FLOAT8)
def test_float32_sample_to_float8_matches_ml_dtypes(name):
    ml = need("ml_dtypes")
    lib = clib()
    x = sample_float32()
    ours = ct_convert(lib, name, "float32", x, np.uint8)
    theirs = x.astype(getattr(ml, name)).view(np.uint8)
    nan_ours = np.isnan(ours.view(getattr(ml, name)).astype(np.float32))
    nan_theirs = np.isnan(theirs.view(getattr(ml, name)).astype(np.float32))
    known = known_difference(name, x)
    diff = np.nonzero((ours != theirs) & ~(nan_ours & nan_theirs) & ~known)[0]
    assert diff.size == 0, [(x[i], hex(ours[i]), hex(theirs[i])) for i in diff[:10]]
    if known.any():  # PyTorch's rule there: the code of |x| (0 -> 0x00); ml_dtypes: NaN
        mag = ct_convert(lib, name, "float32", np.abs(x[known]), np.uint8)
        assert (ours[known] == np.where(x[known] == 0, 0, mag)).all()
        assert (theirs[known] == 0xFF).all()


def test_float4_matches_ml_dtypes():
    ml = need("ml_dtypes")
    lib = clib()
    codes = np.arange(16, dtype=np.uint8)
    packed = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)  # value 2k in the low nibble
    ours = np.empty(16, np.float32)
    assert lib.ct_float4_unpack(ours.ctypes.data, packed.ctypes.data, 16) == 0
    theirs = codes.view(ml.float4_e2m1fn).astype(np.float32)
    assert ours.view(np.uint32).tolist() == theirs.view(np.uint32).tolist()
    x = sample_float32()
    x = x[~np.isnan(x)]  # ct_float4_pack refuses NaN (the format has none): PyTorch's rule
    x = x[: x.size // 2 * 2]
    out = np.empty(x.size // 2, np.uint8)
    assert lib.ct_float4_pack(out.ctypes.data, x.ctypes.data, x.size) == 0
    ours = np.stack([out & 15, out >> 4], axis=1).reshape(-1)
    theirs = x.astype(ml.float4_e2m1fn).view(np.uint8) & 15
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, [(x[i], ours[i], theirs[i]) for i in diff[:10]]
