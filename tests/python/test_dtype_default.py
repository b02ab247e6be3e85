"""get_default_dtype / set_default_dtype and what the default dtype changes, the default complex
dtype included."""
import pytest

import ctensor
import torch
from conftest import ALL, CPP_NAME, DEFAULTS, FLOAT8, SHARED, ct, outcome, same_outcome, th


def test_initial_default_is_float32():
    assert ctensor.get_default_dtype() is ctensor.float32
    assert ctensor.get_default_dtype() is ctensor.float


@pytest.mark.parametrize("name", SHARED)
def test_set_default_dtype_matches_torch(name):
    ct_result = outcome(ctensor.set_default_dtype, ct(name))
    torch_result = outcome(torch.set_default_dtype, th(name))
    assert same_outcome(ct_result, torch_result)
    assert ctensor.get_default_dtype() is ct(name if ct_result[0] == "ok" else "float32")
    assert str(torch.get_default_dtype()).split(".")[1] == (
        name if torch_result[0] == "ok" else "float32")


@pytest.mark.parametrize("name", [n for n in ALL if n not in SHARED])
def test_set_default_dtype_newest_only(name):
    """set_default_dtype: float8/float4 are floating but have no storage class; uint* are not
    floating. The default stays as it was."""
    ctensor.set_default_dtype(ctensor.float64)
    with pytest.raises(TypeError) as err:
        ctensor.set_default_dtype(ct(name))
    if name in FLOAT8 or name == "float4_e2m1fn_x2":
        assert str(err.value) == "couldn't find storage object %sStorage" % CPP_NAME[name]
    else:
        assert str(err.value) == "only floating-point types are supported as the default type"
    assert ctensor.get_default_dtype() is ctensor.float64


@pytest.mark.parametrize("value", [float, int, None, 1, "float32", torch.float32, ctensor.finfo()])
def test_set_default_dtype_rejects_non_dtypes(value):
    ct_result = outcome(ctensor.set_default_dtype, value)
    torch_value = ctensor.float32 if value is torch.float32 else value
    assert same_outcome(ct_result, outcome(torch.set_default_dtype, torch_value))
    assert ct_result == ("err", TypeError, "invalid dtype object: only floating-point types "
                         "are supported as the default type")


def posonly_reference(d, /):
    """The signature of newest torch.set_default_dtype(d, /), to compare call errors with."""


def reference_error(*args, **kwargs):
    result = outcome(posonly_reference, *args, **kwargs)
    assert result[0] == "err"
    return ("err", result[1], result[2].replace("posonly_reference", "set_default_dtype"))


@pytest.mark.parametrize("args,kwargs", [
    ((), {}),
    ((ctensor.float64, ctensor.float64), {}),
    ((ctensor.float64, 1, 2), {}),
    ((), {"d": ctensor.float64}),
    ((ctensor.float64,), {"d": ctensor.float64}),
    ((ctensor.float64,), {"x": 1}),
    ((), {"x": 1}),
    ((), {"x": 1, "d": ctensor.float64}),
    ((ctensor.float64, 1), {"x": 1}),
])
def test_set_default_dtype_call_errors_are_cpythons(args, kwargs):
    ct_result = outcome(ctensor.set_default_dtype, *args, **kwargs)
    assert ct_result == reference_error(*args, **kwargs)
    assert ctensor.get_default_dtype() is ctensor.float32


def test_set_default_dtype_keyword_is_an_expected_difference():
    """torch 1.13's set_default_dtype(d) accepted d=...; newest made d positional-only."""
    assert torch.set_default_dtype(d=torch.float64) is None
    assert torch.get_default_dtype() is torch.float64
    with pytest.raises(TypeError) as err:
        ctensor.set_default_dtype(d=ctensor.float64)
    assert str(err.value) == ("set_default_dtype() got some positional-only arguments passed as "
                              "keyword arguments: 'd'")


def test_get_default_dtype_takes_no_arguments():
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((), {"x": 1})]:
        ct_result = outcome(ctensor.get_default_dtype, *args, **kwargs)
        torch_result = outcome(torch.get_default_dtype, *args, **kwargs)
        assert ct_result[:2] == torch_result[:2] == ("err", TypeError)
        assert ct_result[2] == torch_result[2].replace("torch.", "ctensor.")


def test_default_dtype_round_trip(default_dtype):
    assert ctensor.get_default_dtype() is ct(default_dtype)
    assert ctensor.finfo() == ctensor.finfo(ct(default_dtype))
    assert repr(ctensor.finfo()) == repr(torch.finfo())


# The wrapped complex scalar takes the default complex dtype.
DEFAULT_COMPLEX = {"float32": "complex64", "float64": "complex128", "float16": "complex32",
                   "bfloat16": "complex64"}


def test_default_dtype_drives_python_scalars(default_dtype):
    assert ctensor.result_type(1, 1.5) is ct(default_dtype)
    assert ctensor.result_type(1.5, 2.5) is ct(default_dtype)
    assert ctensor.result_type(True, 1j) is ct(DEFAULT_COMPLEX[default_dtype])
    assert ctensor._result_type_of((ctensor.float64, "scalar")) is ct(default_dtype)
    assert ctensor._result_type_of((ctensor.complex128, "scalar")) is ct(
        DEFAULT_COMPLEX[default_dtype])
    for a, b in [(1, 1.5), (1.5, 2.5), (True, 1j), (1.5, 1j), (3, True)]:
        assert same_outcome(outcome(ctensor.result_type, a, b),
                            outcome(torch.result_type, a, b))


def test_default_dtype_leaves_tensor_operands_alone(default_dtype):
    """Only wrapped numbers follow the default: tensors of float64/complex128 keep theirs."""
    assert ctensor._result_type_of((ctensor.float64, "zero_dim")) is ctensor.float64
    assert ctensor._result_type_of((ctensor.int32, "tensor"), (ctensor.float64, "zero_dim")) \
        is ctensor.float64
    assert ctensor._result_type_of((ctensor.int32, "tensor"), (ctensor.float64, "scalar")) \
        is ct(default_dtype)
    assert ctensor._result_type_of((ctensor.complex128, "tensor")) is ctensor.complex128


@pytest.mark.parametrize("name", DEFAULTS)
def test_default_dtype_is_process_state_not_torchs(name):
    """ctensor's default dtype is its own: changing torch's does not move it."""
    torch.set_default_dtype(th(name))
    assert ctensor.get_default_dtype() is ctensor.float32
