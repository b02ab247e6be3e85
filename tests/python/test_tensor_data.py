"""Reading tensors against torch 1.13: tolist(), item(), int()/float()/bool()/complex()/
operator.index() with their errors, numpy() and __array__, the attributes
(dim, numel, element_size, get_device, is_floating_point, ...), and result_type with tensors
in their priority groups (dimensioned, 0-dim, wrapped number)."""
import importlib.util
import operator

import numpy as np
import pytest

import ctensor
import torch
from conftest import SHARED
from test_tensor_common import same

pytestmark = pytest.mark.filterwarnings("ignore:Casting complex values to real")

VALUES = [[0, 1, -1, 2.5, -0.0, float("nan"), float("inf"), 300, 1e10], [True, False], [1 + 2j],
          [], [[1, 2], [3, 4]], 3.5, -7, True, 1j]


@pytest.mark.parametrize("dtype", SHARED)
@pytest.mark.parametrize("data", VALUES, ids=repr)
def test_tolist(dtype, data):
    def call(L):
        try:
            t = L.tensor(data).to(getattr(L, dtype))
        except Exception as e:  # noqa: BLE001 - building the input is not what is tested
            return type(e).__name__
        return t.tolist(), t.t().tolist() if t.dim() == 2 else None, t[..., None].tolist()
    if dtype == "bool" and data in ([1 + 2j], 1j):
        return  # complex -> bool differs from 1.13 on purpose (test_tensor_convert)
    same(call)


SCALAR_CASES = [
    "t.item()", "int(t)", "float(t)", "bool(t)", "complex(t)", "operator.index(t)",
]
INPUTS = ["L.tensor(2.7)", "L.tensor(-2.7)", "L.tensor(3)", "L.tensor(True)", "L.tensor(1+2j)",
          "L.tensor(2.0+0j)", "L.tensor(float('nan'))", "L.tensor(float('inf'))", "L.tensor([5])",
          "L.tensor([[5.5]])", "L.tensor([1, 2])", "L.tensor([])", "L.tensor(2**62)",
          "L.tensor(0.0)", "L.tensor(-0.0)", "L.tensor(0j)", "L.tensor(1e-300j)",
          "L.tensor(2.5, dtype=L.float16)", "L.tensor(2.5, dtype=L.bfloat16)",
          "L.tensor(255, dtype=L.uint8)", "L.tensor(1.5, dtype=L.complex32)",
          "L.tensor(2**63 - 1)", "L.tensor(-128, dtype=L.int8)", "L.zeros(2, 0)",
          "L.tensor(1e300)"]


@pytest.mark.parametrize("expr", SCALAR_CASES)
@pytest.mark.parametrize("inp", INPUTS)
def test_python_conversions(expr, inp):
    def call(L):
        t = eval(inp, {"L": L})
        return eval(expr, {"t": t, "operator": operator})
    if expr == "t.item()" and inp in ("L.tensor([1, 2])", "L.tensor([])", "L.zeros(2, 0)"):
        # newest: RuntimeError "a Tensor with 2 elements cannot be converted to Scalar";
        # 1.13: ValueError "only one element tensors can be converted to Python scalars"
        t = eval(inp, {"L": ctensor})
        with pytest.raises(RuntimeError) as e:
            t.item()
        assert str(e.value) == f"a Tensor with {t.numel()} elements cannot be converted to Scalar"
        return
    same(call)


def test_len_iter_errors():
    same(lambda L: len(L.tensor(1.0)))
    same(lambda L: iter(L.tensor(1.0)))
    same(lambda L: len(L.ones(3, 2)))


# ---- attributes ----------------------------------------------------------------------------------

ATTRS = [
    "t.dim()", "t.ndim", "t.ndimension()", "t.numel()", "t.nelement()", "t.element_size()",
    "t.get_device()", "t.is_floating_point()", "t.is_complex()", "t.is_cuda", "t.is_meta",
    "t.is_sparse", "t.is_quantized", "t.requires_grad", "t.is_leaf", "t.grad", "t.layout",
    "t.dtype", "t.device", "t.shape", "t.size()", "t.stride()", "t.storage_offset()",
    "t.is_contiguous()", "t.size(-1)", "t.stride(0)", "t.size(dim=0)",
]


@pytest.mark.parametrize("dtype", SHARED)
@pytest.mark.parametrize("attr", ATTRS)
def test_attributes(dtype, attr):
    same(lambda L: eval(attr, {"t": L.ones(2, 3, dtype=getattr(L, dtype))[:, 1:]}))


def test_meta_attributes():
    same(lambda L: [L.ones(2, device="meta").is_meta, L.ones(2, device="meta").get_device(),
                    L.ones(2, device="meta").device, L.ones(2, device="meta").data_ptr()])


def test_newest_attributes():
    """itemsize and nbytes are newest-only (1.13 lacks them)."""
    t = ctensor.ones(2, 3, dtype=ctensor.float64)
    assert t.itemsize == 8 and t.nbytes == 48
    assert ctensor.ones(3, dtype=ctensor.float4_e2m1fn_x2).itemsize == 1


def test_data_ptr():
    t = ctensor.arange(6.0).reshape(2, 3)
    assert t[1].data_ptr() == t.data_ptr() + 12 and t.data_ptr() % 16 == 0


# ---- numpy ---------------------------------------------------------------------------------------

NUMPY_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                "complex64", "complex128", "bool"]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_like_torch(dtype):
    for make in [lambda L: L.arange(6).reshape(2, 3), lambda L: L.arange(6).reshape(2, 3).t(),
                 lambda L: L.arange(12).reshape(3, 4)[1:, ::2], lambda L: L.tensor(5),
                 lambda L: L.zeros(0, 3), lambda L: L.ones(1, 3).expand(2, 3)]:
        a = make(ctensor).to(getattr(ctensor, dtype)).numpy()
        b = make(torch).to(getattr(torch, dtype)).numpy()
        assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
        np.testing.assert_array_equal(a, b)


def test_numpy_shares_memory():
    t = ctensor.zeros(2, 3)
    a = t.numpy()
    a[0, 1] = 5
    assert t.tolist() == [[0.0, 5.0, 0.0], [0.0, 0.0, 0.0]]
    t[1, 2] = 7
    assert a[1, 2] == 7
    del t
    assert a.sum() == 12  # the array keeps the memory alive


def test_numpy_errors():
    same(lambda L: L.ones(2, dtype=L.bfloat16).numpy())
    same(lambda L: L.ones(2, dtype=L.complex32).numpy())
    same(lambda L: L.ones(2, device="meta").numpy())
    same(lambda L: L.ones(2).numpy(1))
    if importlib.util.find_spec("ml_dtypes") is None:  # else an ml_dtypes array (test_ml_dtypes)
        with pytest.raises(TypeError, match="Got unsupported ScalarType Float8_e4m3fn"):
            ctensor.ones(2, dtype=ctensor.float8_e4m3fn).numpy()
        with pytest.raises(TypeError, match="Got unsupported ScalarType Float4_e2m1fn_x2"):
            ctensor.ones(2, dtype=ctensor.float4_e2m1fn_x2).numpy()


def test_array_protocol():
    t = ctensor.arange(4.0)
    np.testing.assert_array_equal(np.asarray(t), [0.0, 1.0, 2.0, 3.0])
    assert np.asarray(t, dtype=np.int32).dtype == np.int32
    assert np.array(ctensor.tensor([[1, 2]])).tolist() == [[1, 2]]


def test_uint64_values():
    t = ctensor.tensor([2**64 - 1, 0], dtype=ctensor.uint64)
    assert t.tolist() == [2**64 - 1, 0] and t[0].item() == 2**64 - 1
    assert t.numpy().tolist() == [2**64 - 1, 0]
    with pytest.raises(RuntimeError, match="int64_t without overflow"):
        int(t[0])


def test_float4_tolist_refused():
    with pytest.raises(NotImplementedError):
        ctensor.zeros(2, dtype=ctensor.float4_e2m1fn_x2).tolist()


# ---- result_type with tensors --------------------------------------------------------------------

OPERANDS = {
    "i32": lambda L: L.ones(2, dtype=L.int32), "u8": lambda L: L.ones(2, dtype=L.uint8),
    "f16": lambda L: L.ones(2, dtype=L.float16), "bf16": lambda L: L.ones(2, dtype=L.bfloat16),
    "f64": lambda L: L.ones(2, dtype=L.float64), "c64": lambda L: L.ones(2, dtype=L.complex64),
    "b": lambda L: L.ones(2, dtype=L.bool), "z_i64": lambda L: L.tensor(1),
    "z_f64": lambda L: L.tensor(1.0, dtype=L.float64), "z_c128": lambda L: L.tensor(1j,
                                                                               dtype=L.complex128),
    "z_i8": lambda L: L.tensor(1, dtype=L.int8), "z_u8": lambda L: L.tensor(1, dtype=L.uint8),
    "z_b": lambda L: L.tensor(True), "z_f16": lambda L: L.tensor(1.0, dtype=L.float16),
    "5": lambda L: 5, "2.5": lambda L: 2.5, "1j": lambda L: 1j, "True": lambda L: True,
}


@pytest.mark.parametrize("a", sorted(OPERANDS))
@pytest.mark.parametrize("b", sorted(OPERANDS))
def test_result_type_priority_groups(a, b):
    same(lambda L: L.result_type(OPERANDS[a](L), OPERANDS[b](L)))


def test_result_type_default_dtype(default_dtype):
    for a, b in [("i32", "2.5"), ("z_i64", "2.5"), ("b", "1j"), ("z_f16", "1j"), ("5", "2.5")]:
        same(lambda L: L.result_type(OPERANDS[a](L), OPERANDS[b](L)))


def test_result_type_numpy_scalars():
    same(lambda L: L.result_type(L.ones(2, dtype=L.int32), np.float32(2.5)))
    same(lambda L: L.result_type(np.int64(2), L.ones(2, dtype=L.uint8)))


# ---- bool elements whose byte is neither 0 nor 1 ------------------------------------------------

def test_bool_bytes_other_than_0_and_1():
    # empty(), NumPy and DLPack can leave any byte in a bool element; reading it must not
    # load an invalid C bool (undefined behaviour, reported by UBSan). Nonzero is True.
    t = ctensor.zeros(4, dtype=ctensor.bool)
    t.numpy().view(np.uint8)[:] = [0, 1, 190, 255]
    r = torch.zeros(4, dtype=torch.bool)
    r.numpy().view(np.uint8)[:] = [0, 1, 190, 255]
    assert t.tolist() == r.tolist() == [False, True, True, True]
    assert [t[i].item() for i in range(4)] == [False, True, True, True]
    assert [bool(t[i]) for i in range(4)] == [False, True, True, True]
