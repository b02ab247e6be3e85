"""Sparse COO tensors (include/ctensor/sparse.h) against PyTorch 1.13, element by element.

Until the Python Tensor type exists, the C library is driven through ctypes ($CT_LIBCTENSOR,
set by ctest). Random COO tensors (shapes, duplicates, empty nnz, dense dims, non-contiguous
values, the 13 dtypes 1.13 shares with ctensor) go through coalesce, to_dense, to_sparse and
add in both libraries; results are compared byte for byte (indices, values, dtype, sizes,
the coalesced flag), failures by message. Values are small integers, -0.0 and NaN, so every
sum is exact and the order PyTorch's unstable sort adds duplicates in cannot matter.
Deliberate differences from 1.13, written out where they are tested:
  * "not implemented for" errors are NotImplementedError in newest PyTorch and ctensor
    (CT_ERR_NOT_IMPLEMENTED); 1.13 raises RuntimeError with the same message;
  * to_sparse() of a sparse tensor returns it (newest PyTorch); 1.13 has no kernel;
  * sparse_dim()/dense_dim() of a strided tensor are 0 and dim() (newest PyTorch).
Run with Debian's /usr/bin/python3 (torch 1.13, hypothesis).
"""
import ctypes
import os
import warnings

import pytest
from hypothesis import given, settings, strategies as st

torch = pytest.importorskip("torch")

LIB_PATH = os.environ.get("CT_LIBCTENSOR")
if not LIB_PATH:
    pytest.skip("CT_LIBCTENSOR is not set: run through ctest, or set it to the path of "
                "libctensor.so", allow_module_level=True)

lib = ctypes.CDLL(LIB_PATH)
P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)
I64P = ctypes.POINTER(ctypes.c_int64)


class Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("index", ctypes.c_int32)]


class _ScalarValue(ctypes.Union):
    _fields_ = [("b", ctypes.c_bool), ("i", ctypes.c_int64), ("u", ctypes.c_uint64),
                ("f", ctypes.c_double), ("c", ctypes.c_double * 2)]


class Scalar(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", _ScalarValue)]


class Options(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("device", ctypes.POINTER(Device)),
                ("check_invariants", ctypes.c_bool), ("is_coalesced", ctypes.c_bool)]


def _sig(name, args, res=ctypes.c_int):
    f = getattr(lib, name)
    f.argtypes = args
    f.restype = res


_sig("ct_last_error", [], ctypes.c_char_p)
_sig("ct_last_error_kind", [])
_sig("ct_dtype_from_name", [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)])
_sig("ct_dtype_name", [ctypes.c_int], ctypes.c_char_p)
_sig("ct_dtype_itemsize", [ctypes.c_int], ctypes.c_size_t)
_sig("ct_tensor_from_data", [I64P, ctypes.c_int64, ctypes.c_int, P, ctypes.POINTER(Device), PP])
_sig("ct_tensor_release", [P], None)
_sig("ct_tensor_dim", [P], ctypes.c_int64)
_sig("ct_tensor_sizes", [P], I64P)
_sig("ct_tensor_dtype", [P])
_sig("ct_tensor_layout", [P])
_sig("ct_tensor_numel", [P], ctypes.c_int64)
_sig("ct_tensor_data_ptr", [P], P)
_sig("ct_tensor_to_device", [P, Device, PP])
_sig("ct_tensor_contiguous", [P, ctypes.c_int, PP])
_sig("ct_tensor_transpose", [P, ctypes.c_int64, ctypes.c_int64, PP])
_sig("ct_tensor_slice", [P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, PP])
_sig("ct_sparse_coo_tensor", [P, P, I64P, ctypes.c_int64, ctypes.POINTER(Options), PP])
_sig("ct_sparse_coalesce", [P, PP])
_sig("ct_sparse_to_dense", [P, PP])
_sig("ct_sparse_to_sparse", [P, PP])
_sig("ct_sparse_to_sparse_dim", [P, ctypes.c_int64, PP])
_sig("ct_sparse_add", [P, P, Scalar, PP])
_sig("ct_sparse_nnz", [P, I64P])
_sig("ct_sparse_dim", [P, I64P])
_sig("ct_sparse_dense_dim", [P, I64P])
_sig("ct_sparse_is_coalesced", [P, ctypes.POINTER(ctypes.c_bool)])
_sig("ct_sparse_raw_indices", [P, PP])
_sig("ct_sparse_raw_values", [P, PP])

CPU = Device(0, -1)
CT_ERR_NOT_IMPLEMENTED = 5
LAYOUT_SPARSE_COO = 1
INFER = -1

# The dtypes 1.13 shares with ctensor.
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex32", "complex64", "complex128"]
FLOATS = {"float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128"}


class CtError(Exception):
    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind


def check(status):
    if status != 0:
        raise CtError(status, lib.ct_last_error().decode())


def ct_enum(name):
    out = ctypes.c_int()
    check(lib.ct_dtype_from_name(name.encode(), ctypes.byref(out)))
    return out.value


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


class Ct:
    """An owned ctensor tensor."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            lib.ct_tensor_release(self.ptr)

    @staticmethod
    def call(fn, *args):
        """fn(*args, &out) as a new Ct; Ct arguments stay alive (args holds them) while fn
        runs."""
        out = ctypes.c_void_p()
        check(fn(*[a.ptr if isinstance(a, Ct) else a for a in args], ctypes.byref(out)))
        return Ct(out.value)

    @property
    def sizes(self):
        n = lib.ct_tensor_dim(self.ptr)
        s = lib.ct_tensor_sizes(self.ptr)
        return tuple(s[i] for i in range(n))

    @property
    def dtype(self):
        return lib.ct_dtype_name(lib.ct_tensor_dtype(self.ptr)).decode()

    def raw(self):
        """Element bytes in C order (a contiguous cpu copy)."""
        h = Ct.call(lib.ct_tensor_to_device, self, CPU)
        c = Ct.call(lib.ct_tensor_contiguous, h, 0)
        n = lib.ct_tensor_numel(c.ptr) * lib.ct_dtype_itemsize(lib.ct_tensor_dtype(c.ptr))
        return ctypes.string_at(lib.ct_tensor_data_ptr(c.ptr), n) if n else b""

    def i64(self, fn):
        out = ctypes.c_int64()
        check(fn(self.ptr, ctypes.byref(out)))
        return out.value

    def coalesced(self):
        out = ctypes.c_bool()
        check(lib.ct_sparse_is_coalesced(self.ptr, ctypes.byref(out)))
        return out.value


def raw(t):
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()) if t.numel() else b""


def to_ct(t):
    """A ctensor copy of a strided torch tensor (same strides only when contiguous)."""
    data = raw(t)
    sizes = (ctypes.c_int64 * max(1, t.dim()))(*t.shape)
    buf = ctypes.create_string_buffer(data, max(1, len(data)))
    return Ct.call(lib.ct_tensor_from_data, sizes, t.dim(), ct_enum(dtype_name(t)), buf,
                   ctypes.byref(CPU))


def doubled(values):
    """Each row twice (a copy): values equals doubled(values)[::2], a strided view."""
    n = values.shape[0]
    return values.unsqueeze(1).expand(n, 2, *values.shape[1:]).contiguous().reshape(
        2 * n, *values.shape[1:])


def ct_coo(indices, values, size, strided_values=False, check_invariants=True):
    """ct_sparse_coo_tensor of torch indices/values; strided_values passes the rows of
    doubled(values) with step 2, as the torch side does."""
    i = to_ct(indices)
    if strided_values:
        v2 = to_ct(doubled(values))
        v = Ct.call(lib.ct_tensor_slice, v2, 0, 0, 2**63 - 1, 2)
    else:
        v = to_ct(values)
    opts = Options(-1, None, check_invariants, False)
    if size is None:
        return Ct.call(lib.ct_sparse_coo_tensor, i, v, None, INFER, ctypes.byref(opts))
    sizes = (ctypes.c_int64 * max(1, len(size)))(*size)
    return Ct.call(lib.ct_sparse_coo_tensor, i, v, sizes, len(size), ctypes.byref(opts))


def torch_coo(indices, values, size, strided_values=False):
    if strided_values:
        values = doubled(values)[::2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if size is None:
            return torch.sparse_coo_tensor(indices, values)
        return torch.sparse_coo_tensor(indices, values, size)


def scalar(x):
    s = Scalar()
    if isinstance(x, bool):
        s.kind, s.v.b = 0, x
    elif isinstance(x, int):
        s.kind, s.v.i = 1, x
    elif isinstance(x, float):
        s.kind, s.v.f = 3, x
    else:
        s.kind = 4
        s.v.c[0], s.v.c[1] = x.real, x.imag
    return s


def assert_dense_equal(got, want):
    assert got.sizes == tuple(want.shape)
    assert got.dtype == dtype_name(want)
    g, w = got.raw(), raw(want)
    assert g == w, f"values differ:\n  ctensor {g.hex()}\n  torch   {w.hex()}"


def assert_sparse_equal(got, want):
    assert lib.ct_tensor_layout(got.ptr) == LAYOUT_SPARSE_COO
    assert got.sizes == tuple(want.shape)
    assert got.dtype == dtype_name(want)
    assert got.i64(lib.ct_sparse_nnz) == want._nnz()
    assert got.i64(lib.ct_sparse_dim) == want.sparse_dim()
    assert got.i64(lib.ct_sparse_dense_dim) == want.dense_dim()
    assert got.coalesced() == want.is_coalesced()
    assert_dense_equal(Ct.call(lib.ct_sparse_raw_indices, got), want._indices())
    assert_dense_equal(Ct.call(lib.ct_sparse_raw_values, got), want._values())


def same_outcome(ct_fn, torch_fn, compare):
    """Run both; equal results, or both failing with the same message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = torch_fn()
    except (RuntimeError, NotImplementedError) as e:
        msg = str(e).split("\n")[0]
        with pytest.raises(CtError) as got:
            ct_fn()
        assert got.value.args[0] == msg
        if msg.startswith('"') and "not implemented for" in msg:  # newest PyTorch's kind
            assert got.value.kind == CT_ERR_NOT_IMPLEMENTED
        return
    compare(ct_fn(), want)


# ---- strategies ---------------------------------------------------------------------------

SPECIAL = [-0.0, float("nan")]


def values_of(draw, dtype, shape):
    n = 1
    for s in shape:
        n *= s
    if dtype == "bool":
        vals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif dtype == "uint8":
        vals = draw(st.lists(st.integers(0, 255), min_size=n, max_size=n))
    elif dtype == "int8":
        vals = draw(st.lists(st.integers(-128, 127), min_size=n, max_size=n))
    elif dtype in FLOATS:
        vals = draw(st.lists(st.one_of(st.integers(-3, 3).map(float), st.sampled_from(SPECIAL)),
                             min_size=n, max_size=n))
    else:
        vals = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    t = torch.tensor(vals, dtype=torch.float64 if dtype in FLOATS else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype in ("complex32", "complex64", "complex128"):
            im = draw(st.lists(st.integers(-2, 2).map(float), min_size=n, max_size=n))
            t = torch.complex(t, torch.tensor(im, dtype=torch.float64))
        return t.to(getattr(torch, dtype)).reshape(shape)


@st.composite
def coo_args(draw, dtype=None, sparse_dim=None, dense_shape=None, sizes=None):
    """(indices, values, size, strided_values) of a valid COO tensor."""
    dtype = dtype or draw(st.sampled_from(DTYPES))
    if sizes is None:
        sd = draw(st.integers(0, 3)) if sparse_dim is None else sparse_dim
        dense = draw(st.lists(st.integers(0, 3), max_size=2)) if dense_shape is None else dense_shape
        sparse = draw(st.lists(st.integers(0, 4), min_size=sd, max_size=sd))
        sizes = tuple(sparse) + tuple(dense)
    else:
        sd = sparse_dim
    sparse, dense = sizes[:sd], sizes[sd:]
    empty = any(s == 0 for s in sparse)
    nnz = 0 if empty else draw(st.integers(0, 7))
    cols = [[draw(st.integers(0, s - 1)) for s in sparse] for _ in range(nnz)]
    indices = torch.tensor(cols, dtype=torch.int64).reshape(nnz, sd).t().contiguous()
    values = values_of(draw, dtype, (nnz,) + tuple(dense))
    # strided values: the concatenating add and the coalescing dense + sparse paths. Not
    # for nnz 1: such a view counts as contiguous, and 1.13's dense + sparse loops then take
    # values.stride(0) (here twice the row) as the row length and read past the row
    strided = nnz != 1 and draw(st.booleans())
    return indices, values, sizes, strided


# ---- creation -------------------------------------------------------------------------------


@settings(max_examples=120, deadline=None, database=None)
@given(coo_args(), st.booleans())
def test_create_and_attributes(args, infer):
    i, v, size, strided = args
    size = None if infer else size
    same_outcome(lambda: ct_coo(i, v, size, strided), lambda: torch_coo(i, v, size, strided),
                 assert_sparse_equal)


INVALID = [
    # (indices, values, size)
    ([[0, 2]], [1.0, 2.0], (2,)),
    ([[0, -1]], [1.0, 2.0], (2,)),
    ([[0, -1]], [1.0, 2.0], None),
    ([[0, 1]], [1.0, 2.0, 3.0], (2,)),
    ([0, 1], [1.0, 2.0], (2,)),
    ([[[0, 1]]], [1.0, 2.0], None),
    ([[0, 1]], [1.0, 2.0], (3, 3)),
    ([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2,)),
    ([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2, 3)),
    ([[0, 1]], [1.0, 2.0], (-2,)),
    ([[0, 5]], [1.0, 2.0, 3.0], (2,)),
    ([[1, 0], [0, 7]], [1.0, 2.0], (2, 7)),
]


@pytest.mark.parametrize("indices,values,size", INVALID)
def test_create_errors(indices, values, size):
    i, v = torch.tensor(indices), torch.tensor(values)
    same_outcome(lambda: ct_coo(i, v, size), lambda: torch_coo(i, v, size), assert_sparse_equal)


def test_int32_indices():
    """torch.sparse_coo_tensor converts indices to int64 in Python; the C function (like
    PyTorch's C++ one) refuses them."""
    i = torch.tensor([[0, 1]], dtype=torch.int32)
    with pytest.raises(CtError, match="^indices must be an int64 tensor$"):
        ct_coo(i, torch.tensor([1.0, 2.0]), (2,))


# ---- coalesce, to_dense, to_sparse ---------------------------------------------------------------


@settings(max_examples=150, deadline=None, database=None)
@given(coo_args())
def test_coalesce(args):
    i, v, size, strided = args
    same_outcome(lambda: Ct.call(lib.ct_sparse_coalesce, ct_coo(i, v, size, strided)),
                 lambda: torch_coo(i, v, size, strided).coalesce(), assert_sparse_equal)


@settings(max_examples=150, deadline=None, database=None)
@given(coo_args())
def test_to_dense(args):
    i, v, size, strided = args
    same_outcome(lambda: Ct.call(lib.ct_sparse_to_dense, ct_coo(i, v, size, strided)),
                 lambda: torch_coo(i, v, size, strided).to_dense(), assert_dense_equal)


@st.composite
def dense_and_dim(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    t = values_of(draw, dtype, shape)
    mask = torch.tensor(draw(st.lists(st.booleans(), min_size=t.numel(), max_size=t.numel())),
                        dtype=torch.bool).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.where(mask, t, torch.zeros((), dtype=t.dtype))  # many zeros
    sd = draw(st.one_of(st.none(), st.integers(-1, len(shape) + 1)))
    return t, sd


@settings(max_examples=150, deadline=None, database=None)
@given(dense_and_dim())
def test_to_sparse(args):
    t, sd = args
    if sd is None:
        same_outcome(lambda: Ct.call(lib.ct_sparse_to_sparse, to_ct(t)), lambda: t.to_sparse(),
                     assert_sparse_equal)
    else:
        same_outcome(lambda: Ct.call(lib.ct_sparse_to_sparse_dim, to_ct(t), sd),
                     lambda: t.to_sparse(sd), assert_sparse_equal)


def test_to_sparse_of_sparse():
    """Newest PyTorch returns a sparse tensor itself; 1.13 has no kernel for it."""
    s = ct_coo(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2,))
    r = Ct.call(lib.ct_sparse_to_sparse, s)
    assert r.ptr == s.ptr
    lib.ct_tensor_release(r.ptr)  # both wrappers own one reference of the same tensor
    r.ptr = None
    with pytest.raises(NotImplementedError):
        torch_coo(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2,)).to_sparse()


def test_dims_of_strided():
    """Newest PyTorch: sparse_dim() 0 and dense_dim() dim() for strided tensors."""
    d = to_ct(torch.ones(2, 3))
    assert d.i64(lib.ct_sparse_dim) == 0
    assert d.i64(lib.ct_sparse_dense_dim) == 2
    with pytest.raises(CtError, match="^Could not run 'aten::_nnz' with arguments from the "
                                      "'CPU' backend.$"):
        d.i64(lib.ct_sparse_nnz)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::_nnz' with arguments "
                                                  "from the 'CPU' backend."):
        torch.ones(2, 3)._nnz()


# ---- addition ---------------------------------------------------------------------------------------


# 1, 2, -1, 0 for every dtype; True, floats and complexes exercise alpha_check too.
ALPHAS = [1, 2, -1, 0, True, 0.5, -1.5, 1j, 1 + 1j]


@st.composite
def sparse_pair(draw):
    a_dtype, b_dtype = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    sd = draw(st.integers(0, 3))
    dense = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    sparse = tuple(draw(st.lists(st.integers(1, 4), min_size=sd, max_size=sd)))
    a = draw(coo_args(a_dtype, sd, sizes=sparse + dense))
    if draw(st.integers(0, 9)) == 0:  # sometimes another shape or density
        b = draw(coo_args(b_dtype))
    else:
        b = draw(coo_args(b_dtype, sd, sizes=sparse + dense))
    alpha = draw(st.sampled_from(ALPHAS))
    return a, b, alpha


@settings(max_examples=200, deadline=None, database=None)
@given(sparse_pair())
def test_add_sparse_sparse(args):
    (ai, av, asz, ast), (bi, bv, bsz, bst), alpha = args

    def ct():
        a, b = ct_coo(ai, av, asz, ast), ct_coo(bi, bv, bsz, bst)
        return Ct.call(lib.ct_sparse_add, a, b, scalar(alpha))

    def th():
        return torch.add(torch_coo(ai, av, asz, ast), torch_coo(bi, bv, bsz, bst), alpha=alpha)

    same_outcome(ct, th, assert_sparse_equal)


@st.composite
def dense_sparse_pair(draw):
    """(dense, (indices, values, size, strided), alpha): mostly of the same sizes."""
    (ai, av, asz, ast), b, alpha = draw(sparse_pair())
    dense = values_of(draw, draw(st.sampled_from(DTYPES)), asz)
    return dense, b, alpha


@settings(max_examples=200, deadline=None, database=None)
@given(dense_sparse_pair(), st.booleans())
def test_add_dense_sparse(args, transposed):
    dense, (bi, bv, bsz, bst), alpha = args
    transposed = transposed and dense.dim() >= 2

    def ct():
        if transposed:  # the same non-contiguous operand as torch's
            d = Ct.call(lib.ct_tensor_transpose, to_ct(dense.transpose(0, 1).contiguous()), 0, 1)
        else:
            d = to_ct(dense)
        b = ct_coo(bi, bv, bsz, bst)
        return Ct.call(lib.ct_sparse_add, d, b, scalar(alpha))

    def th():
        d = dense.transpose(0, 1).contiguous().transpose(0, 1) if transposed else dense
        return torch.add(d, torch_coo(bi, bv, bsz, bst), alpha=alpha)

    same_outcome(ct, th, assert_dense_equal)


def test_add_sparse_dense_refused():
    s = torch_coo(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2,))
    d = torch.ones(2)
    same_outcome(lambda: Ct.call(lib.ct_sparse_add, ct_coo(s._indices(), s._values(), (2,)),
                                 to_ct(d), scalar(1)),
                 lambda: s + d, assert_dense_equal)
