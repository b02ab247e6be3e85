"""ct_convert against PyTorch 1.13's Tensor.to(), byte for byte.

The C library is loaded with ctypes from $CT_LIBCTENSOR (ctest sets it). Inputs are whole
bit-pattern spaces (every float16 and bfloat16 pattern), values at and around every rounding
boundary, and the special values PyTorch's conversion rules
single out. Where ctensor deliberately differs
from PyTorch 1.13, the difference is written out next to the comparison:
  * NaN -> bfloat16 is always 0xFFFF in ctensor (Note [bfloat16 NaN] in
    src/dtype/convert/half.c); 1.13 gives 0xFFFF only on its vectorized float32 path and
    0x7FC0 on the others (float16/complex sources, the scalar tails of float64 sources);
  * complex -> bool is (re != 0 or im != 0) as in newest PyTorch; 1.13 looks at re only.
uint16/uint32/uint64 targets, which 1.13 lacks, are compared with NumPy where NumPy follows
the rule ctensor implements (Note [float to int] in src/dtype/convert/codec_impl.h).
Run with Debian's /usr/bin/python3 (it has torch 1.13 and numpy).
"""
import ctypes
import os
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

LIB_PATH = os.environ.get("CT_LIBCTENSOR")
if not LIB_PATH:
    pytest.skip("CT_LIBCTENSOR is not set: run through ctest, or set it to the path of "
                "libctensor.so", allow_module_level=True)

lib = ctypes.CDLL(LIB_PATH)
lib.ct_convert.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                           ctypes.c_size_t]
lib.ct_convert.restype = ctypes.c_int
lib.ct_last_error.restype = ctypes.c_char_p
lib.ct_dtype_from_name.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
lib.ct_dtype_itemsize.argtypes = [ctypes.c_int]
lib.ct_dtype_itemsize.restype = ctypes.c_size_t
lib.ct_float_to_bfloat16.argtypes = [ctypes.c_float]
lib.ct_float_to_bfloat16.restype = ctypes.c_uint16


def enum(name):
    out = ctypes.c_int()
    assert lib.ct_dtype_from_name(name.encode(), ctypes.byref(out)) == 0, name
    return out.value


# Every dtype torch 1.13 has in common with ctensor.
TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex32", "complex64", "complex128"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


def raw(t):
    """The bytes of a tensor, in element order."""
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def ct_to(dst, src_bytes, src, n):
    """ct_convert of n elements of dtype `src` (given as bytes) to dtype `dst`; bytes."""
    out = ctypes.create_string_buffer(max(1, n * lib.ct_dtype_itemsize(enum(dst))))
    status = lib.ct_convert(enum(dst), out, enum(src), src_bytes, n)
    assert status == 0, lib.ct_last_error().decode()
    return out.raw[: n * lib.ct_dtype_itemsize(enum(dst))]


def torch_to(t, dst):
    """PyTorch's conversion. For the same dtype .to() returns the tensor itself, so compare
    with copy_ then, which is what ct_convert is (and which writes bool as 0/1)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real, complex32 creation
        if t.dtype == getattr(torch, dst):
            return raw(torch.empty_like(t).copy_(t))
        return raw(t.to(getattr(torch, dst)))


def as_elements(data, size):
    return [data[i:i + size] for i in range(0, len(data), size)]


def assert_same(got, want, src_bytes, src_size, dst_size, what):
    if got == want:
        return
    g, w, s = as_elements(got, dst_size), as_elements(want, dst_size), as_elements(src_bytes, src_size)
    bad = [i for i in range(len(w)) if g[i] != w[i]]
    lines = [f"{s[i][::-1].hex()} -> ctensor {g[i][::-1].hex()}, expected {w[i][::-1].hex()}"
             for i in bad[:8]]
    pytest.fail(f"{what}: {len(bad)} of {len(w)} elements differ, e.g.\n  " + "\n  ".join(lines))


def bf16_nan_rule(want, src_is_nan):
    """Note [bfloat16 NaN]: ctensor writes 0xFFFF for every NaN, whatever 1.13's path did."""
    w = np.frombuffer(want, dtype=np.uint16).copy()
    w[src_is_nan] = 0xFFFF
    return w.tobytes()


def compare_all(t, src, dsts=TORCH_DTYPES, nan_mask=None):
    """t.to(dst) in torch and in ctensor, for every dst; NaN -> bfloat16 per our rule (a
    bfloat16 -> bfloat16 copy keeps every pattern, in both)."""
    src_bytes = raw(t)
    n = t.numel()
    for dst in dsts:
        want = torch_to(t, dst)
        if dst == "bfloat16" and src != "bfloat16" and nan_mask is not None:
            want = bf16_nan_rule(want, nan_mask)
        got = ct_to(dst, src_bytes, src, n)
        assert_same(got, want, src_bytes, t.element_size(), lib.ct_dtype_itemsize(enum(dst)),
                    f"{src} -> {dst}")


def from_bits16(bits, dtype):
    return torch.from_numpy(np.asarray(bits, dtype=np.uint16).view(np.int16)).view(dtype)


def from_bits32(bits):
    return torch.from_numpy(np.asarray(bits, dtype=np.uint32).view(np.float32))


def from_bits64(bits):
    return torch.from_numpy(np.asarray(bits, dtype=np.uint64).view(np.float64))


ALL16 = np.arange(0x10000, dtype=np.uint32)


# ---- whole 16-bit spaces -------------------------------------------------------------------


def test_every_float16_pattern_to_every_dtype():
    h = from_bits16(ALL16, torch.float16)
    nan = ((ALL16 & 0x7C00) == 0x7C00) & ((ALL16 & 0x3FF) != 0)
    # 1.13 converts float16 NaN to bfloat16 on its scalar path (0x7FC0): we write 0xFFFF
    assert set(np.frombuffer(torch_to(h, "bfloat16"), np.uint16)[nan]) == {0x7FC0}
    compare_all(h, "float16", nan_mask=nan)


def test_every_bfloat16_pattern_to_every_dtype():
    b = from_bits16(ALL16, torch.bfloat16)
    nan = ((ALL16 & 0x7F80) == 0x7F80) & ((ALL16 & 0x7F) != 0)
    compare_all(b, "bfloat16", nan_mask=nan)


def test_small_integers_every_value_to_every_dtype():
    compare_all(torch.arange(256, dtype=torch.int32).to(torch.uint8), "uint8")
    compare_all(torch.arange(-128, 128, dtype=torch.int32).to(torch.int8), "int8")
    compare_all(torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16), "int16")
    bools = torch.tensor([0, 1, 2, 255, 1, 0], dtype=torch.uint8).view(torch.bool)
    compare_all(bools, "bool")  # any nonzero byte is true


# ---- rounding boundaries ---------------------------------------------------------------


def neighbours(bits, spread=2):
    """Every float32 pattern within `spread` ulps of the given ones, both signs."""
    bits = np.asarray(bits, dtype=np.int64)
    out = np.concatenate([bits + k for k in range(-spread, spread + 1)])
    out = out[(out >= 0) & (out < 0x7F800000)]
    return np.concatenate([out, out | 0x80000000]).astype(np.uint32)


SPECIAL_F32 = np.array([0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                        0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000, 0x00000001, 0x807FFFFF],
                       dtype=np.uint32)


def test_float32_around_float16_boundaries():
    codes = np.arange(0x7C00, dtype=np.float64)  # every finite non-negative float16
    vals = from_bits16(codes.astype(np.uint32), torch.float16).double().numpy()
    mids = (vals[:-1] + vals[1:]) / 2  # exact in float32 (and in double)
    mids = np.append(mids, [65520.0, 65536.0, 2.0 ** -25, 2.0 ** -26])
    exact = vals.astype(np.float32).view(np.uint32)
    bits = np.concatenate([neighbours(mids.astype(np.float32).view(np.uint32)),
                           neighbours(exact, 1), SPECIAL_F32])
    t = from_bits32(bits)
    compare_all(t, "float32", dsts=["float16", "complex32"])


def test_float32_around_bfloat16_boundaries():
    codes = np.arange(0x7F80, dtype=np.uint32)
    mids = (codes << 16) | 0x8000  # halfway between code and code + 1
    bits = np.concatenate([neighbours(mids), neighbours(codes << 16, 1), SPECIAL_F32])
    t = from_bits32(bits)
    # contiguous float32 -> bfloat16 is 1.13's vectorized path: NaN is 0xFFFF there too
    compare_all(t, "float32", dsts=["bfloat16"])


def test_float64_double_rounding():
    # float16 / bfloat16 midpoints nudged by far less than a float32 ulp: float32 rounds
    # them back onto the midpoint, then the tie goes to even (double rounding, as PyTorch)
    h = from_bits16(np.arange(0x7C00, dtype=np.uint32), torch.float16).double().numpy()
    b = from_bits16(np.arange(0x7F7F, dtype=np.uint32), torch.bfloat16).double().numpy()
    mids = np.concatenate([(h[:-1] + h[1:]) / 2, (b[:-1] + b[1:]) / 2])
    mids = mids[np.isfinite(mids) & (mids > 0)]
    vals = np.concatenate([mids, mids * (1 + 2.0 ** -40), mids * (1 - 2.0 ** -40),
                           np.nextafter(mids, np.inf), np.nextafter(mids, 0)])
    vals = np.concatenate([vals, -vals, [1 + 2.0 ** -11 + 2.0 ** -40, 65519.99, 1e300,
                                         np.inf, -np.inf, 5e-324]])
    t = torch.from_numpy(vals)
    compare_all(t, "float64", dsts=["float16", "bfloat16", "float32", "complex32"])
    assert ct_to("float16", raw(torch.tensor([1 + 2.0 ** -11 + 2.0 ** -40], dtype=torch.float64)),
                 "float64", 1) == b"\x00\x3c"


def test_float64_nan_to_bfloat16():
    # 1.13 gives 0xFFFF for the 16-element vector blocks of a float64 -> bfloat16 copy and
    # 0x7FC0 for the scalar tail; ctensor gives 0xFFFF everywhere
    t = torch.full((37,), float("nan"), dtype=torch.float64)
    torch_bits = set(np.frombuffer(torch_to(t, "bfloat16"), np.uint16))
    assert torch_bits == {0xFFFF, 0x7FC0}
    assert set(np.frombuffer(ct_to("bfloat16", raw(t), "float64", 37), np.uint16)) == {0xFFFF}
    for payload in [0x7F800001, 0xFFC00000, 0x7FFFFFFF]:
        assert lib.ct_float_to_bfloat16(from_bits32([payload]).item()) == 0xFFFF


# ---- float -> integer --------------------------------------------------------------------

INT_SPECIALS = [0.0, -0.0, 0.5, -0.5, 1.7, -1.7, -1.0, 127.5, -128.5, 255.5, 256.0, 300.0,
                -300.0, 32767.5, -32768.9, 65535.9, 65536.0, 70000.0, -70000.0, 2.0 ** 31 - 128,
                2.0 ** 31, -2.0 ** 31, -2.0 ** 31 - 256, 3e9, -3e9, 2.0 ** 32, 1e10, -1e10,
                2.0 ** 62, 2.0 ** 63, -2.0 ** 63, 1e19, -1e19, 1e20, float("inf"),
                float("-inf"), float("nan")]


def tiled(values, dtype):
    # long enough for PyTorch's vectorized loops, odd so there is a scalar tail as well
    return torch.tensor(values * 29, dtype=dtype)


@pytest.mark.parametrize("src", ["float32", "float64"])
def test_float_to_int_specials(src):
    t = tiled(INT_SPECIALS + [2147483647.9, -2147483648.9, 4294967295.5], getattr(torch, src))
    compare_all(t, src, dsts=INT_DTYPES + ["bool"])


@pytest.mark.parametrize("src", ["float32", "float64"])
def test_float_to_unsigned_vs_numpy(src):
    values = np.array(INT_SPECIALS + [2.0 ** 64 - 2048, 2.0 ** 63 + 2048, -2.0 ** 63 - 4096],
                      dtype=src)
    with np.errstate(invalid="ignore"):
        for dst in ["uint16", "uint64"]:  # NumPy agrees with the rule everywhere
            want = values.astype(dst).tobytes()
            got = ct_to(dst, values.tobytes(), src, len(values))
            assert_same(got, want, values.tobytes(), values.itemsize, np.dtype(dst).itemsize,
                        f"{src} -> {dst}")
        # uint32: NumPy agrees on [-2^31, 2^32) only (beyond, it returns 0 or 2^31 and its
        # scalar and vector loops disagree on -inf); outside, the rule is t64's low bits
        inside = values[(values >= -2.0 ** 31) & (values < 2.0 ** 32)]
        want = inside.astype("uint32").tobytes()
        got = ct_to("uint32", inside.tobytes(), src, len(inside))
        assert_same(got, want, inside.tobytes(), inside.itemsize, 4, f"{src} -> uint32")
        outside = np.array([-3e9, 1e10, 2.0 ** 32 + 5, float("nan"), float("inf")], dtype=src)
        got = np.frombuffer(ct_to("uint32", outside.tobytes(), src, 5), np.uint32)
        want_t64 = [(-3000000000) % 2 ** 32, 10000000000 % 2 ** 32,
                    (2 ** 32 + 5 if src == "float64" else 2 ** 32) % 2 ** 32, 0, 0]
        assert list(got) == want_t64


# ---- integer -> float, integer -> integer ---------------------------------------------------


def test_int64_edges_to_every_dtype():
    edges = [0, 1, -1, 2 ** 24 + 1, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 65504, 65519, 65520,
             -65520, 100000, 2049, 2 ** 31, -2 ** 31 - 1, 2 ** 40 + 5, 200, -200, 256, 300,
             2 ** 62 + 2 ** 39 + 1, 3 * 2 ** 60 + 1]
    rng = np.random.default_rng(1)
    rand = list(rng.integers(-2 ** 63, 2 ** 63 - 1, 2000, dtype=np.int64))
    rand += [int(v) >> int(s) for v, s in zip(rand, rng.integers(0, 63, 2000))]
    compare_all(torch.tensor(edges + rand, dtype=torch.int64), "int64")


def test_int32_random_to_every_dtype():
    rng = np.random.default_rng(2)
    v = rng.integers(-2 ** 31, 2 ** 31 - 1, 5000, dtype=np.int64).astype(np.int32)
    compare_all(torch.from_numpy(v), "int32")


def test_float32_random_bits_to_every_dtype():
    rng = np.random.default_rng(3)
    bits = np.concatenate([rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32),
                           SPECIAL_F32])
    t = from_bits32(bits)
    f = t.numpy()
    compare_all(t, "float32", nan_mask=np.isnan(f))


# ---- complex -----------------------------------------------------------------------------

PARTS = [0.0, -0.0, 1.0, -1.5, 0.1, 2.5, 300.0, 65520.0, 3e9, 1e-8, float("inf"), float("nan")]


def complex_tensor(dtype):
    re = torch.tensor([a for a in PARTS for _ in PARTS], dtype=torch.float64)
    im = torch.tensor([b for _ in PARTS for b in PARTS], dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.complex(re, im).to(dtype)
        parts = torch.view_as_real(t).double().numpy()  # the stored parts (complex32 rounds)
        return t, parts[:, 0], parts[:, 1]


@pytest.mark.parametrize("src", ["complex32", "complex64", "complex128"])
def test_complex_to_every_dtype(src):
    t, re, im = complex_tensor(getattr(torch, src))
    src_bytes = raw(t)
    others = [d for d in TORCH_DTYPES if d != "bool"]
    compare_all(t, src, dsts=others, nan_mask=np.isnan(re))
    # complex -> bool: newest PyTorch (and ctensor) is re != 0 or im != 0; 1.13 is re != 0
    got = np.frombuffer(ct_to("bool", src_bytes, src, t.numel()), np.uint8)
    torch_113 = np.frombuffer(torch_to(t, "bool"), np.uint8)
    assert list(torch_113) == list(((re != 0)).astype(np.uint8))
    assert list(got) == list(((re != 0) | (im != 0)).astype(np.uint8))
    assert any(got != torch_113)  # the difference is really exercised (e.g. 1j)


def test_real_to_complex():
    for src in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64"]:
        t = torch.tensor([0, 1, -3, 100, 65520, 1e10, float("nan")] * 5).to(getattr(torch, src))
        compare_all(t, src, dsts=["complex32", "complex64", "complex128"])
