"""ct_tensor_repr against str() of PyTorch 1.13 tensors, character for character.

The C library is loaded with ctypes from $CT_LIBCTENSOR (ctest sets it): each case builds
the same tensor in torch and in ctensor (ct_tensor_from_data, then the same views), prints
the ctensor one with the dtype prefix "torch." and the options torch currently has, and
compares with str(t). Run with Debian's /usr/bin/python3 (it has torch 1.13).

ctensor prints as newest PyTorch does. Where that differs from 1.13 the oracle is adjusted,
and the difference is spelled out:
  * sci_mode forced on or off: newest measures the column width in the forced notation,
    1.13 in the notation it would have picked itself. The `newest_widths` fixture patches
    1.13's _Formatter to measure as newest does (its own code, not PyTorch's), and
    test_sci_mode_width_differs_from_1_13 pins the difference down.
  * edgeitems=0: newest prints "[...]" plus a size= suffix; 1.13 printed the whole last dim
    or raised. Checked against fixed strings (test_edgeitems_zero).
  * dtypes 1.13 lacks (uint16/32/64, float8, float4_e2m1fn_x2): newest prints float8 values
    through float16 and float4 bytes as uint8 values in a floating formatter; the oracle is
    1.13's own _tensor_str / _add_suffixes applied to a tensor with those values.
"""
import contextlib
import ctypes
import math
import os
import struct

import pytest
from hypothesis import given, settings, strategies as st

torch = pytest.importorskip("torch")
import torch._tensor_str as tstr  # noqa: E402

LIB_PATH = os.environ.get("CT_LIBCTENSOR")
if not LIB_PATH:
    pytest.skip("CT_LIBCTENSOR is not set: run through ctest, or set it to the path of "
                "libctensor.so", allow_module_level=True)

lib = ctypes.CDLL(LIB_PATH)
P = ctypes.c_void_p


class Opts(ctypes.Structure):
    """ct_print_options (include/ctensor/print.h)."""
    _fields_ = [("precision", ctypes.c_int32), ("threshold", ctypes.c_double),
                ("edgeitems", ctypes.c_int64), ("linewidth", ctypes.c_int64),
                ("sci_mode", ctypes.c_int), ("prefix", ctypes.c_char * 32)]


I64P = ctypes.POINTER(ctypes.c_int64)
for name, args, res in [
        ("ct_last_error", [], ctypes.c_char_p),
        ("ct_dtype_from_name", [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        ("ct_tensor_from_data", [I64P, ctypes.c_int64, ctypes.c_int, P, P, ctypes.POINTER(P)],
         ctypes.c_int),
        ("ct_tensor_empty", [I64P, ctypes.c_int64, ctypes.c_int, P, ctypes.c_int, ctypes.c_int,
                             ctypes.POINTER(P)], ctypes.c_int),
        ("ct_tensor_transpose", [P, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(P)],
         ctypes.c_int),
        ("ct_tensor_slice", [P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                             ctypes.POINTER(P)], ctypes.c_int),
        ("ct_tensor_expand", [P, I64P, ctypes.c_int64, ctypes.POINTER(P)], ctypes.c_int),
        ("ct_tensor_select", [P, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(P)],
         ctypes.c_int),
        ("ct_tensor_repr", [P, ctypes.POINTER(Opts), ctypes.POINTER(P)], ctypes.c_int),
        ("ct_string_free", [P], None),
        ("ct_tensor_release", [P], None),
        ("ct_set_default_dtype", [ctypes.c_int], ctypes.c_int),
        ("ct_set_printoptions", [ctypes.POINTER(Opts)], ctypes.c_int),
        ("ct_get_printoptions", [], Opts),
        ("ct_print_options_default", [], Opts),
        ("ct_print_options_apply_profile", [ctypes.POINTER(Opts), ctypes.c_char_p], ctypes.c_int),
        ("ct_float8_to_float", [ctypes.c_int, ctypes.c_uint8], ctypes.c_float)]:
    fn = getattr(lib, name)
    fn.argtypes = args
    fn.restype = res

META = (ctypes.c_int * 2)(14, -1)  # ct_device {CT_DEVICE_META, -1}

TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex32", "complex64", "complex128"]
FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e8m0fnu"]


def enum(name):
    out = ctypes.c_int()
    assert lib.ct_dtype_from_name(name.encode(), ctypes.byref(out)) == 0, name
    return out.value


def check(status):
    assert status == 0, lib.ct_last_error().decode()


def dtype_name(t):
    return str(t.dtype).split(".")[1]


def shape_arg(shape):
    return (ctypes.c_int64 * max(1, len(shape)))(*shape), len(shape)


class CT:
    """An owned ctensor handle."""

    def __init__(self, handle):
        self.h = handle

    def __del__(self):
        lib.ct_tensor_release(self.h)

    def view(self, fn, *args):
        out = P()
        check(fn(self.h, *args, ctypes.byref(out)))
        return CT(out)


def ct_raw(dtype, shape, data):
    """A contiguous ctensor of `dtype` holding the bytes `data`."""
    out = P()
    sizes, nd = shape_arg(shape)
    buf = ctypes.create_string_buffer(data, max(1, len(data)))
    check(lib.ct_tensor_from_data(sizes, nd, enum(dtype), buf if data else None, None,
                                  ctypes.byref(out)))
    return CT(out)


def ct_from_torch(t):
    c = t.contiguous()
    data = ctypes.string_at(c.data_ptr(), c.numel() * c.element_size()) if c.numel() else b""
    return ct_raw(dtype_name(t), list(c.shape), data)


def current_opts(prefix="torch."):
    o = tstr.PRINT_OPTS
    sci = -1 if o.sci_mode is None else int(bool(o.sci_mode))
    return Opts(o.precision, float(o.threshold), o.edgeitems, o.linewidth, sci, prefix.encode())


def ct_str(ct, opts=None):
    s = P()
    check(lib.ct_tensor_repr(ct.h, ctypes.byref(opts if opts is not None else current_opts()),
                             ctypes.byref(s)))
    try:
        return ctypes.string_at(s.value).decode()
    finally:
        lib.ct_string_free(s)


def assert_same(t, ct=None):
    if ct is None:
        ct = ct_from_torch(t)
    want, got = str(t), ct_str(ct)
    assert got == want, f"\n--- torch 1.13:\n{want}\n--- ctensor:\n{got}"


@contextlib.contextmanager
def printoptions(**kw):
    """torch.set_printoptions for one block (1.13 has no printoptions context manager)."""
    o = tstr.PRINT_OPTS
    saved = (o.precision, o.threshold, o.edgeitems, o.linewidth, o.sci_mode)
    torch.set_printoptions(**kw)
    try:
        yield
    finally:
        o.precision, o.threshold, o.edgeitems, o.linewidth, o.sci_mode = saved


@contextlib.contextmanager
def default_dtype(name):
    torch.set_default_dtype(getattr(torch, name))
    check(lib.ct_set_default_dtype(enum(name)))
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)
        check(lib.ct_set_default_dtype(enum("float32")))


@pytest.fixture(autouse=True)
def newest_widths(monkeypatch):
    """Make 1.13's _Formatter measure widths in the final notation, as newest PyTorch
    does when sci_mode is forced (see the module docstring)."""
    original = tstr._Formatter.__init__

    def init(self, tensor):
        original(self, tensor)
        if tstr.PRINT_OPTS.sci_mode is None or not self.floating_dtype:
            return
        flat = tensor.reshape(-1)
        vals = [v for v in flat.tolist() if math.isfinite(v) and v != 0]
        if not vals:
            return
        self.max_width = 1
        self.max_width = max([1] + [len(self.format(v)) for v in vals])

    monkeypatch.setattr(tstr._Formatter, "__init__", init)
    yield


# ---- values ------------------------------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.125, 1e-5, 1e-4, 9.99e-5, 1e8,
           1.0000001e8, 123456789.0, 1e20, -1e-30, 3.14159265, 1000.0, 1001.0, 0.1, 0.3333,
           65504.0, math.inf, -math.inf, math.nan]

FLOAT_SETS = {
    "ints": [1.0, 2.0, -3.0, 10.0, 0.0],
    "fixed": [0.1, -2.25, 3.14159, 100.5, 0.0],
    "sci_ratio": [1.0, 1001.0, 0.5],
    "sci_big": [1.5e9, 2.0, -3.0],
    "sci_small": [1e-5, 0.5, 0.25],
    "int_big": [1e8, 2e8, 3.0e8],
    "int_ratio": [1.0, 1001.0],
    "nonfinite": [math.nan, math.inf, -math.inf],
    "mixed": [math.nan, 1.5, -math.inf, -0.0, 2.0],
    "zeros": [0.0, -0.0, 0.0],
    "halves": [0.5, 1.5, 2.5, 3.5, -0.5, 0.00005],
    "rounding": [0.12345, 0.00015, 1.99995, 9.99995, -0.99995],
}


def make(values, dtype, shape=None):
    t = torch.tensor(values, dtype=torch.float64)
    if dtype in ("complex32", "complex64", "complex128"):
        t = torch.complex(t, torch.flip(t, [0]) * -0.5)
    t = t.to(getattr(torch, dtype))
    return t if shape is None else t.reshape(shape)


# ---- fixed cases ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex32",
                                   "complex64", "complex128"])
@pytest.mark.parametrize("kind", sorted(FLOAT_SETS))
def test_float_value_sets(dtype, kind):
    vals = FLOAT_SETS[kind]
    assert_same(make(vals, dtype))
    assert_same(make(vals[:1], dtype, ()))  # 0-dim
    assert_same(make(vals * 4, dtype, (2, 2, len(vals))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values(dtype):
    t = torch.tensor(SPECIAL, dtype=getattr(torch, dtype))
    assert_same(t)
    for v in SPECIAL:
        assert_same(torch.tensor(v, dtype=getattr(torch, dtype)))
        assert_same(torch.tensor([v, 1.0], dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integers(dtype):
    info = torch.iinfo(getattr(torch, dtype))
    vals = [0, 1, info.max, info.min, info.max // 3, 7]
    t = torch.tensor(vals, dtype=getattr(torch, dtype))
    assert_same(t)
    assert_same(t[2])
    assert_same(t.reshape(2, 3))
    assert_same(torch.arange(40, dtype=getattr(torch, dtype)).reshape(2, 4, 5))


def test_bool():
    assert_same(torch.tensor(True))
    assert_same(torch.tensor(False))
    assert_same(torch.tensor([True, False, True]))
    assert_same(torch.tensor([[True], [True]]))
    assert_same((torch.arange(2000) % 3 == 0).reshape(40, 50))


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (5,), (1, 1), (2, 3), (3, 1, 2), (1, 2, 1, 3),
                                   (2, 2, 2, 2, 2), (0,), (0, 3), (3, 0), (2, 0, 4), (1, 0)])
def test_shapes(dtype, shape):
    n = math.prod(shape)
    t = torch.arange(n, dtype=torch.float64).reshape(shape)
    t = (t - n / 3) * 0.75
    t = t.to(getattr(torch, dtype)) if dtype != "bool" else t > 0
    assert_same(t)


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex64", "bool", "int16", "float16"])
@pytest.mark.parametrize("shape", [(1001,), (2000,), (7, 7, 7, 7), (3, 400), (400, 3),
                                   (1, 1, 1001), (10, 101), (2, 3, 4, 50)])
def test_summarized(dtype, shape):
    n = math.prod(shape)
    t = (torch.arange(n, dtype=torch.float64) * 0.37 - 11).reshape(shape)
    t = t.to(getattr(torch, dtype)) if dtype != "bool" else t.reshape(shape) > 0
    assert_same(t)


def test_linewidth_wrapping():
    for n in (10, 20, 26, 27, 28, 60):
        assert_same(torch.arange(n) * 1000)
        assert_same(torch.arange(n, dtype=torch.float32) / 7)
        assert_same(torch.arange(n * 2, dtype=torch.float32).reshape(2, n) * 1e6)
        assert_same(torch.complex(torch.arange(n, dtype=torch.float32), -torch.ones(n)))
    for lw in (-5, 0, 1, 10, 30, 79, 80, 81, 200):
        with printoptions(linewidth=lw):
            assert_same(torch.arange(30, dtype=torch.float32).reshape(3, 10) / 3)
            assert_same(torch.arange(30, dtype=torch.int32))
            assert_same(torch.tensor([], dtype=torch.int32).reshape(0, 2))


def test_suffix_wrapping():
    # the dtype suffix moves to its own line when the last line would pass the line width
    for n in range(1, 14):
        assert_same(torch.arange(n, dtype=torch.int16) * 1111)
        assert_same(torch.full((n,), 1.5, dtype=torch.float64))
        assert_same(torch.full((2, n), 2.5, dtype=torch.float64))
    assert_same(torch.zeros(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, dtype=torch.complex128))


@pytest.mark.parametrize("precision", [0, 1, 2, 4, 6, 10, 17])
@pytest.mark.parametrize("sci_mode", [None, True, False])
def test_precision_and_sci_mode(precision, sci_mode):
    with printoptions(precision=precision, sci_mode=sci_mode):
        for vals in FLOAT_SETS.values():
            assert_same(torch.tensor(vals))
            assert_same(torch.tensor(vals, dtype=torch.float64).reshape(1, -1))
            assert_same(make(vals, "complex64"))
        assert_same(torch.tensor(SPECIAL, dtype=torch.float64))
        assert_same(torch.tensor(2.5))


def test_sci_mode_width_differs_from_1_13(monkeypatch):
    monkeypatch.undo()  # 1.13's own _Formatter
    t = torch.tensor([1.0, 1e9])
    with printoptions(sci_mode=False):
        assert str(t) == "tensor([        1., 1000000000.])"
        assert ct_str(ct_from_torch(t)) == "tensor([         1., 1000000000.])"
    with printoptions(sci_mode=True):
        t = torch.tensor([1.0, 2.0])
        assert str(t) == "tensor([1.0000e+00, 2.0000e+00])"  # same here: 1.13 padded to 2
        assert ct_str(ct_from_torch(t)) == "tensor([1.0000e+00, 2.0000e+00])"
        t = torch.tensor([[1.0, 2.0]]).expand(3, 2)
        assert ct_str(ct_from_torch(t)) == str(t)


@pytest.mark.parametrize("threshold,edgeitems", [(0, 1), (5, 1), (5, 2), (10, 3), (10, 4),
                                                 (20, 5), (100, 3), (math.inf, 3)])
def test_threshold_edgeitems(threshold, edgeitems):
    with printoptions(threshold=threshold, edgeitems=edgeitems):
        for shape in [(), (4,), (9,), (12,), (3, 9), (9, 3), (2, 5, 11), (11, 1, 4)]:
            n = math.prod(shape)
            base = torch.arange(n, dtype=torch.float64).reshape(shape)
            assert_same(base.to(torch.int32))
            assert_same(base / 3)
            assert_same(torch.complex(base, -base).to(torch.complex64))
            assert_same((base * 1e5).to(torch.float32))


def test_edgeitems_zero():
    opts = current_opts()
    opts.edgeitems = 0
    opts.threshold = 5
    big = ct_from_torch(torch.arange(12, dtype=torch.float32).reshape(3, 4))
    assert ct_str(big, opts) == "tensor([...], size=(3, 4))"
    assert ct_str(ct_from_torch(torch.arange(12)), opts) == "tensor([...], size=(12,))"
    assert ct_str(ct_from_torch(torch.tensor([1, 2], dtype=torch.int8)), opts) == \
        "tensor([1, 2], size=(2,), dtype=torch.int8)"
    assert ct_str(ct_from_torch(torch.tensor(3.0)), opts) == "tensor(3., size=())"
    assert ct_str(ct_from_torch(torch.zeros(0, 2)), opts) == "tensor([], size=(0, 2))"


@pytest.mark.parametrize("profile", ["default", "short", "full"])
def test_profiles(profile):
    with printoptions(profile=profile):
        opts = lib.ct_print_options_default()
        check(lib.ct_print_options_apply_profile(ctypes.byref(opts), profile.encode()))
        want = current_opts()
        for f in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode"):
            assert getattr(opts, f) == getattr(want, f), f
        t = torch.arange(1500, dtype=torch.float32) / 7
        assert ct_str(ct_from_torch(t), opts) == str(t)


def test_global_options():
    saved = lib.ct_get_printoptions()
    try:
        opts = current_opts()
        opts.precision = 2
        opts.prefix = b"ctensor."
        check(lib.ct_set_printoptions(ctypes.byref(opts)))
        got = lib.ct_get_printoptions()
        assert (got.precision, got.prefix) == (2, b"ctensor.")
        s = P()
        ct = ct_from_torch(torch.tensor([1.234, 2.0], dtype=torch.float64))
        check(lib.ct_tensor_repr(ct.h, None, ctypes.byref(s)))
        assert ctypes.string_at(s.value) == b"tensor([1.23, 2.00], dtype=ctensor.float64)"
        lib.ct_string_free(s)
        opts.precision = -1
        assert lib.ct_set_printoptions(ctypes.byref(opts)) != 0
        assert lib.ct_get_printoptions().precision == 2
    finally:
        check(lib.ct_set_printoptions(ctypes.byref(saved)))


# ---- default dtype ---------------------------------------------------------------------------

@pytest.mark.parametrize("default", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_default_dtype_suffix(default, dtype):
    with default_dtype(default):
        t = torch.tensor([1.5, -2.0, 0.0], dtype=torch.float64).to(getattr(torch, dtype))
        assert_same(t)
        assert_same(t[0])
        assert_same(t[:0])
        assert_same(t[:0].reshape(0, 1, 0))
        m = torch.empty(2, 3, dtype=getattr(torch, dtype), device="meta")
        sizes, nd = shape_arg([2, 3])
        out = P()
        check(lib.ct_tensor_empty(sizes, nd, enum(dtype), META, 0, 0, ctypes.byref(out)))
        assert_same(m, CT(out))


@pytest.mark.parametrize("shape", [(), (0,), (4,), (2, 0, 3), (1, 2, 3, 4)])
def test_meta(shape):
    for dtype in ("float32", "int64", "bool", "complex128"):
        m = torch.empty(shape, dtype=getattr(torch, dtype), device="meta")
        sizes, nd = shape_arg(list(shape))
        out = P()
        check(lib.ct_tensor_empty(sizes, nd, enum(dtype), META, 0, 0, ctypes.byref(out)))
        assert_same(m, CT(out))


# ---- non-contiguous tensors ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int32", "complex128", "bool", "bfloat16"])
def test_views(dtype):
    base = torch.arange(120, dtype=torch.float64).reshape(4, 5, 6) / 4 - 7
    base = base.to(getattr(torch, dtype)) if dtype != "bool" else base > 0
    cb = ct_from_torch(base)
    assert_same(base.transpose(0, 2), cb.view(lib.ct_tensor_transpose, 0, 2))
    assert_same(base[:, 1:5:2], cb.view(lib.ct_tensor_slice, 1, 1, 5, 2))
    assert_same(base[..., ::3], cb.view(lib.ct_tensor_slice, 2, 0, 2**63 - 1, 3))
    assert_same(base[2], cb.view(lib.ct_tensor_select, 0, 2))
    assert_same(base[1, 2, 3], cb.view(lib.ct_tensor_select, 0, 1)
                .view(lib.ct_tensor_select, 0, 2).view(lib.ct_tensor_select, 0, 3))
    sizes, nd = shape_arg([3, 4, 5, 6])
    assert_same(base.expand(3, 4, 5, 6), cb.view(lib.ct_tensor_expand, sizes, nd))
    # summarized and non-contiguous at once
    big = torch.arange(3000, dtype=torch.float64).reshape(30, 100) - 1500
    big = big.to(getattr(torch, dtype)) if dtype != "bool" else big > 0
    assert_same(big.t(), ct_from_torch(big).view(lib.ct_tensor_transpose, 0, 1))


# ---- dtypes 1.13 lacks: the oracle is 1.13's own layout of the same values -------------------

def oracle(values_tensor, dtype):
    """What newest PyTorch prints for a tensor of `dtype` whose values print like
    `values_tensor` (1.13's _tensor_str and _add_suffixes, with the dtype suffix of the
    dtype 1.13 lacks)."""
    suffixes = [] if values_tensor.numel() else ["size=" + str(tuple(values_tensor.shape))]
    body = tstr._tensor_str(values_tensor, len("tensor("))
    return tstr._add_suffixes("tensor(" + body, suffixes + ["dtype=torch." + dtype],
                              len("tensor("), False)


@pytest.mark.parametrize("dtype", FLOAT8)
def test_float8_every_pattern(dtype):
    bits = list(range(256))
    vals = [lib.ct_float8_to_float(enum(dtype), b) for b in bits]
    for shape in [(256,), (16, 16), (2, 2, 64)]:
        ct = ct_raw(dtype, list(shape), bytes(bits))
        want = oracle(torch.tensor(vals, dtype=torch.float32).reshape(shape), dtype)
        assert ct_str(ct) == want
    for chunk in range(0, 256, 7):  # small tensors: every notation and width
        part = bits[chunk:chunk + 5]
        ct = ct_raw(dtype, [len(part)], bytes(part))
        want = oracle(torch.tensor([vals[b] for b in part], dtype=torch.float32), dtype)
        assert ct_str(ct) == want
        ct0 = ct_raw(dtype, [], bytes(part[:1]))
        assert ct_str(ct0) == oracle(torch.tensor(vals[part[0]], dtype=torch.float32), dtype)


def test_float4_prints_bytes():
    data = bytes([0x00, 0x21, 0xF7, 0x88, 0x10])
    ct = ct_raw("float4_e2m1fn_x2", [5], data)
    assert ct_str(ct) == oracle(torch.tensor(list(data), dtype=torch.float32),
                                "float4_e2m1fn_x2")
    assert ct_str(ct) == "tensor([  0.,  33., 247., 136.,  16.], dtype=torch.float4_e2m1fn_x2)"


@pytest.mark.parametrize("dtype,fmt", [("uint16", "H"), ("uint32", "I"), ("uint64", "Q")])
def test_barebones_unsigned(dtype, fmt):
    top = {"uint16": 2**16 - 1, "uint32": 2**32 - 1, "uint64": 2**63 - 1}[dtype]
    vals = [0, 1, 300, top // 5, top]
    for shape in [(5,), (5, 1)]:
        ct = ct_raw(dtype, list(shape), struct.pack("<5" + fmt, *vals))
        assert ct_str(ct) == oracle(torch.tensor(vals, dtype=torch.int64).reshape(shape), dtype)
    if dtype == "uint64":  # beyond int64, where torch 1.13 has no tensor to compare with
        vals[-1] = 2**64 - 1
        ct = ct_raw(dtype, [5], struct.pack("<5Q", *vals))
        assert ct_str(ct) == (
            "tensor([" + ", ".join(f"{v:20d}" for v in vals[:3]) + ",\n"
            + " " * 8 + ", ".join(f"{v:20d}" for v in vals[3:]) + "], dtype=torch.uint64)")


# ---- random tensors --------------------------------------------------------------------------

FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.floats(min_value=-1e4, max_value=1e4),
    st.integers(-10**6, 10**6).map(float),
    st.sampled_from(SPECIAL),
    st.floats(min_value=-1e-3, max_value=1e-3))


@st.composite
def tensors(draw):
    shape = draw(st.lists(st.integers(1, 5), min_size=0, max_size=4))
    if shape and draw(st.integers(0, 3)) == 0:  # sometimes a long dim, to summarize
        shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(6, 1100))
    if shape and draw(st.integers(0, 9)) == 0:  # sometimes empty
        shape[draw(st.integers(0, len(shape) - 1))] = 0
    n = math.prod(shape)
    if n > 4000:
        shape = [min(s, 3) for s in shape]
        n = math.prod(shape)
    dtype = draw(st.sampled_from(TORCH_DTYPES))
    vals = draw(st.lists(FLOATS, min_size=min(n, 8), max_size=min(n, 8))) if n else []
    scale = draw(st.sampled_from([1.0, 1e-6, 1e6, 1e12]))
    data = torch.tensor(vals * (n // max(1, len(vals))) + vals[: n % max(1, len(vals))],
                        dtype=torch.float64).reshape(shape) * scale
    if dtype == "bool":
        return data != 0
    if dtype in ("uint8", "int8", "int16", "int32", "int64"):
        data = torch.nan_to_num(data, nan=0.0, posinf=1e6, neginf=-1e6).clamp(-1e9, 1e9)
        return data.to(torch.int64).to(getattr(torch, dtype))
    if dtype.startswith("complex"):
        data = torch.complex(data, torch.flip(data, [0] if data.dim() else []) * 0.5)
    return data.to(getattr(torch, dtype))


OPTIONS = st.fixed_dictionaries({
    "precision": st.integers(0, 8),
    "threshold": st.sampled_from([1000, 10, 50, 0, math.inf]),
    "edgeitems": st.integers(1, 4),
    "linewidth": st.sampled_from([80, 40, 120, 10]),
    "sci_mode": st.sampled_from([None, None, True, False]),
})


@settings(max_examples=400, deadline=None)
@given(t=tensors(), options=OPTIONS, default=st.sampled_from(["float32", "float32", "float64",
                                                              "float16"]))
def test_random(t, options, default):
    with printoptions(**options), default_dtype(default):
        assert_same(t)
