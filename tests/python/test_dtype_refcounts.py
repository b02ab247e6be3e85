"""No reference or memory leaks on the module's success and error paths.

Each call is repeated many times; the reference counts of the objects involved and the
memory traced by tracemalloc (which sees PyMem allocations, such as message buffers) must
not grow with the number of calls.
"""
import sys

import pytest

import ctensor
from leak_util import assert_steady

F32, I8 = ctensor.float32, ctensor.int8
KEY = "type1"

CALLS = [
    ("promote", lambda: ctensor.promote_types(F32, I8)),
    ("promote_err", lambda: ctensor.promote_types(ctensor.float8_e5m2, F32)),
    ("promote_argerr", lambda: ctensor.promote_types(F32, 1)),
    ("promote_missing", lambda: ctensor.promote_types(F32)),
    ("promote_kw", lambda: ctensor.promote_types(F32, **{KEY: I8})),
    ("promote_pytype", lambda: ctensor.promote_types(float, int)),
    ("can_cast", lambda: ctensor.can_cast(F32, to=I8)),
    ("result_type", lambda: ctensor.result_type(1, 2.5)),
    ("result_type_overflow", lambda: ctensor.result_type(2**64, 1)),
    ("result_type_invalid", lambda: ctensor.result_type(1, "s")),
    ("result_type_kw_invalid", lambda: ctensor.result_type(tensor=1, other=[1])),
    ("result_type_of", lambda: ctensor._result_type_of((F32, "tensor"), (I8, "scalar"))),
    ("result_type_of_err", lambda: ctensor._result_type_of((F32, "vector"))),
    ("result_type_of_promote_err",
     lambda: ctensor._result_type_of((ctensor.uint16, "tensor"), (I8, "tensor"))),
    ("default", lambda: ctensor.set_default_dtype(ctensor.get_default_dtype())),
    ("default_err", lambda: ctensor.set_default_dtype(I8)),
    ("default_posonly", lambda: ctensor.set_default_dtype(d=F32)),
    ("default_missing", lambda: ctensor.set_default_dtype()),
    ("finfo", lambda: repr(ctensor.finfo(F32)) + str(ctensor.finfo().eps)),
    ("finfo_err", lambda: ctensor.finfo(I8)),
    ("finfo_invalid", lambda: ctensor.finfo(F32, foo=1)),
    ("finfo_float4", lambda: ctensor.finfo(ctensor.float4_e2m1fn_x2).eps),
    ("finfo_float4_repr", lambda: repr(ctensor.finfo(ctensor.float4_e2m1fn_x2))),
    ("iinfo", lambda: repr(ctensor.iinfo(ctensor.uint64)) + str(ctensor.iinfo(I8).min)),
    ("iinfo_err", lambda: ctensor.iinfo(ctensor.bool)),
    ("compare", lambda: ctensor.finfo(F32) == ctensor.iinfo(I8)),
    ("dtype_methods", lambda: (F32.to_complex(), F32.to_real(), F32.__reduce__(), F32.abbr,
                               F32.itemsize, repr(F32))),
    ("dtype_to_complex_err", lambda: I8.to_complex()),
]


def refcounts():
    objs = [ctensor.__dict__[n] for n in dir(ctensor) if isinstance(getattr(ctensor, n),
                                                                      ctensor.dtype)]
    objs += [ctensor.dtype, ctensor.finfo, ctensor.iinfo, float, int, KEY]
    return [sys.getrefcount(o) for o in objs]


@pytest.mark.parametrize("name,fn", CALLS, ids=[c[0] for c in CALLS])
def test_no_leaks(name, fn):
    assert_steady(fn, refcounts, name)
