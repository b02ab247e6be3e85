"""No reference or memory leaks in the device parts of the module, on success and error paths.

As test_dtype_refcounts.py: each call runs many times; the reference counts of the objects
involved and the memory tracemalloc traces (PyMem allocations such as message buffers and the
scope records of device objects) must not grow with the number of calls.
"""
import pickle
import sys

import pytest

import ctensor
import ctensor.accelerator as acc
from ctensor import _testing
from leak_util import assert_steady

D = ctensor.device
CPU1 = D("cpu", 1)
KEY = "index"
NAME = "cuda"


def scoped():
    with D("meta"):
        with CPU1:
            ctensor.get_default_device()


def scoped_error():
    try:
        with CPU1:
            raise KeyError(KEY)
    except KeyError:
        pass


def accelerator_calls():
    d = D(1)
    ctensor.set_device(d)
    acc.set_device_index(0)
    acc.synchronize(d)
    return (acc.current_accelerator(), acc.device_count(), acc.current_device_index(),
            ctensor.current_device(), ctensor.device_count(NAME))


CALLS = [
    ("string", lambda: D("cuda:1")),
    ("string_bytes", lambda: D(b"meta")),
    ("type_index", lambda: D(NAME, 1)),
    ("keywords", lambda: D(type=NAME, index=None)),
    ("copy", lambda: D(CPU1)),
    ("attrs", lambda: (CPU1.type, CPU1.index, repr(CPU1), str(CPU1), hash(CPU1))),
    ("compare", lambda: (CPU1 == D("cpu"), CPU1 != 1, CPU1 == NAME)),
    ("order_err", lambda: CPU1 < CPU1),
    ("pickle", lambda: pickle.loads(pickle.dumps(CPU1))),
    ("reduce", lambda: CPU1.__reduce__()),
    ("bad_string", lambda: D("cuda:01")),
    ("bad_type", lambda: D("foo:1")),
    ("range", lambda: D("cuda:128")),
    ("nul", lambda: D("cu\0da")),
    ("surrogate", lambda: D("\ud800")),
    ("overflow", lambda: D(NAME, 2**70)),
    ("overflow_type_first", lambda: D("foo", 2**70)),
    ("index_type", lambda: D(NAME, "1")),
    ("combination", lambda: D(True)),
    ("combination_kw", lambda: D(**{KEY: 1})),
    ("missing", lambda: D(device="cpu", index=1)),
    ("extra_kw", lambda: D(NAME, foo=1)),
    ("ordinal_none", lambda: D(0)),
    ("scope", scoped),
    ("scope_error", scoped_error),
    ("exit_unmatched", lambda: D("meta").__exit__(None, None, None)),
    ("default", lambda: (ctensor.set_default_device(CPU1), ctensor.get_default_device(),
                         ctensor.set_default_device(None))),
    ("default_err", lambda: ctensor.set_default_device(1.5)),
    ("default_args", lambda: ctensor.set_default_device(**{KEY: 1})),
    ("compat", lambda: (ctensor.set_compat_mode("pytorch"), ctensor.get_compat_mode())),
    ("compat_err", lambda: ctensor.set_compat_mode("x")),
    ("current_err", lambda: ctensor.current_device(NAME)),
    ("set_device_err", lambda: ctensor.set_device(None)),
    ("accelerator_none", lambda: (acc.current_accelerator(), acc.is_available(),
                                  acc.device_count())),
    ("accelerator_err", lambda: acc.set_device_index(D("cpu"))),
    ("accelerator_args", lambda: acc.set_device_index(device=1)),
    ("rename_err", lambda: ctensor.utils.rename_privateuse1_backend(NAME)),
    ("register_err", lambda: _testing.register_emulated_backend("cpu", 1)),
]


def refcounts():
    objs = [ctensor.device, CPU1, KEY, NAME, acc, ctensor.utils, _testing, int, str]
    return [sys.getrefcount(o) for o in objs]


def check_no_leak(name, fn):
    assert_steady(fn, refcounts, name)


@pytest.mark.parametrize("name,fn", CALLS, ids=[c[0] for c in CALLS])
def test_no_leaks(name, fn):
    check_no_leak(name, fn)
    assert _testing.default_device_depth() == 0
    assert ctensor.get_default_device() == D("cpu")


def test_no_leaks_with_accelerator():
    _testing.register_emulated_backend("cuda", 2)
    try:
        check_no_leak("accelerator", accelerator_calls)
        check_no_leak("register_err", lambda: _testing.register_emulated_backend(NAME, 1))
    finally:
        _testing.unregister_backend("cuda")


def test_register_unregister_cycles():
    def cycle():
        _testing.register_emulated_backend("npu", 3)
        D("npu:2")
        _testing.unregister_backend("npu")
    check_no_leak("cycle", cycle)
