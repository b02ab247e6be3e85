"""Shared helpers for the ctensor Python tests.

The tests are differential: they run the same call through `ctensor` and through PyTorch 1.13
(Debian's python3-torch, importable from /usr/bin/python3) and compare results, exception
types and messages. Where newest PyTorch (what ctensor implements) differs from 1.13, the
difference is written out as an expected difference, and newest-only dtypes are checked
against PyTorch's documented tables, written out in the tests.
"""
import os

import pytest
from hypothesis import HealthCheck, settings

import ctensor
import torch


def pytest_configure(config):
    # torch 1.13 warns whenever a complex32 tensor is created; irrelevant here.
    config.addinivalue_line("filterwarnings", "ignore:ComplexHalf support is experimental")


def pytest_collection_modifyitems(config, items):
    # CT_TEST_SHARD=k/n keeps every n-th collected test from the k-th (0-based): ctest runs
    # the suite as n such shards side by side (tests/CMakeLists.txt), so that its -j can use
    # more than one core for it. Tests taken round-robin in collection order spread each
    # file's slow tests over the shards.
    shard = os.environ.get("CT_TEST_SHARD")
    if not shard:
        return
    k, n = (int(x) for x in shard.split("/"))
    keep = [item for i, item in enumerate(items) if i % n == k]
    drop = [item for i, item in enumerate(items) if i % n != k]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture
def npu():
    """A host-emulated accelerator "npu" (one device) for the test, unregistered after it (a
    test module may define its own, with another scope)."""
    from ctensor import _testing
    _testing.register_emulated_backend("npu", 1)
    yield "npu"
    import gc
    gc.collect()
    try:
        _testing.unregister_backend("npu")
    except RuntimeError:
        pass


# gc.freeze of the long-lived objects, as hooks of this conftest (gc_freeze.py says why)
from gc_freeze import pytest_collection_finish, pytest_runtest_setup  # noqa: E402,F401


# No example database: ctest runs from the build tree and nothing should be written there.
# Derandomized: every run draws the same examples, so a failure in CI is one anyone can
# rerun (a test's own @settings inherits this). The autouse fixture below only restores
# the default dtype, so sharing it between the examples of one test is fine.
settings.register_profile("ctensor", deadline=None, database=None, max_examples=300,
                          derandomize=True,
                          suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("ctensor")

# The 13 dtypes PyTorch 1.13 shares with ctensor (in the order of PyTorch's promotion table).
SHARED = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex32", "complex64", "complex128", "bool", "bfloat16"]
# The dtypes only newest PyTorch has (PyTorch's dtype table).
FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
BAREBONES_UNSIGNED = ["uint16", "uint32", "uint64"]
NEWEST_ONLY = BAREBONES_UNSIGNED + FLOAT8 + ["float4_e2m1fn_x2"]
ALL = SHARED + NEWEST_ONLY

# Python aliases: alias -> primary name.
ALIASES = {"short": "int16", "int": "int32", "long": "int64", "half": "float16",
           "float": "float32", "double": "float64", "chalf": "complex32",
           "cfloat": "complex64", "cdouble": "complex128"}

# PyTorch's C++ ScalarType names as error messages print them.
CPP_NAME = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
            "float16": "Half", "float32": "Float", "float64": "Double",
            "complex32": "ComplexHalf", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble", "bool": "Bool", "bfloat16": "BFloat16",
            "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
            "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2",
            "float8_e4m3fnuz": "Float8_e4m3fnuz", "float8_e5m2fnuz": "Float8_e5m2fnuz",
            "float8_e8m0fnu": "Float8_e8m0fnu", "float4_e2m1fn_x2": "Float4_e2m1fn_x2"}

# The floating point dtypes set_default_dtype accepts.
DEFAULTS = ["float32", "float64", "float16", "bfloat16"]


def ct(name):
    return getattr(ctensor, name)


def th(name):
    return getattr(torch, name)


def name_of(dtype):
    """'float32' for ctensor.float32 and for torch.float32."""
    text = str(dtype)
    assert text.startswith(("ctensor.", "torch.")), text
    return text.split(".", 1)[1]


def outcome(fn, *args, **kwargs):
    """('ok', value) with dtypes replaced by their names, or ('err', exception type, message)."""
    try:
        value = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the result being compared
        return ("err", type(e), str(e))
    if isinstance(value, (ctensor.dtype, torch.dtype)):
        value = name_of(value)
    return ("ok", value)


def torch_words(text):
    """A PyTorch message as ctensor words it: the dtype type is 'ctensor.dtype' there."""
    return text.replace("torch.dtype", "ctensor.dtype")


def same_outcome(ct_result, torch_result):
    """Outcomes equal, reading torch's messages with ctensor's type names."""
    if torch_result[0] == "err":
        torch_result = (torch_result[0], torch_result[1], torch_words(torch_result[2]))
    return ct_result == torch_result


@pytest.fixture(autouse=True)
def restore_cuda_backend():
    """A test that registers an emulated 'cuda' (or unregisters 'cuda') takes the real CUDA
    backend out of its slot (ctensor._testing); it goes back after the test."""
    yield
    ctensor._testing.restore_cuda_backend()


@pytest.fixture(autouse=True)
def restore_default_dtype():
    """Every test starts and ends with float32 as default dtype, in both libraries."""
    ctensor.set_default_dtype(ctensor.float32)
    torch.set_default_dtype(torch.float32)
    yield
    ctensor.set_default_dtype(ctensor.float32)
    torch.set_default_dtype(torch.float32)


@pytest.fixture(params=DEFAULTS)
def default_dtype(request):
    """Run the test under each accepted default dtype, set in both libraries."""
    ctensor.set_default_dtype(ct(request.param))
    torch.set_default_dtype(th(request.param))
    return request.param
