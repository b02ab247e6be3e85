"""ctensor.finfo and ctensor.iinfo against torch 1.13 and PyTorch's documented values."""
import itertools
import pickle

import pytest

import ctensor
import torch
from conftest import ALL, FLOAT8, SHARED, ct, outcome, same_outcome, th

FINFO_SHARED = ["float16", "bfloat16", "float32", "float64", "complex32", "complex64",
                "complex128"]
IINFO_SHARED = ["uint8", "int8", "int16", "int32", "int64"]
FINFO_FIELDS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]
IINFO_FIELDS = ["bits", "min", "max", "dtype"]
FLOAT4 = "float4_e2m1fn_x2"

# finfo: bits, eps, max, min, tiny (= smallest_normal), resolution.
FINFO_NEWEST = {
    "float8_e4m3fn": (8, 0.125, 448.0, -448.0, 2.0**-6, 1.0),
    "float8_e5m2": (8, 0.25, 57344.0, -57344.0, 2.0**-14, 1.0),
    "float8_e4m3fnuz": (8, 0.125, 240.0, -240.0, 2.0**-7, 1.0),
    "float8_e5m2fnuz": (8, 0.125, 57344.0, -57344.0, 2.0**-15, 1.0),
    "float8_e8m0fnu": (8, 1.0, 2.0**127, 2.0**-127, 2.0**-127, 1.0),
}
# iinfo: bits, max, min.
IINFO_NEWEST = {"uint16": (16, 0, 65535), "uint32": (32, 0, 4294967295),
                "uint64": (64, 0, 18446744073709551615)}


def fields(info, names):
    return {n: outcome(getattr, info, n) for n in names}


# ---- finfo ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FINFO_SHARED)
def test_finfo_matches_torch(name):
    ct_info, torch_info = ctensor.finfo(ct(name)), torch.finfo(th(name))
    assert fields(ct_info, FINFO_FIELDS) == fields(torch_info, FINFO_FIELDS)
    assert repr(ct_info) == str(ct_info) == repr(torch_info) == str(torch_info)
    for field in FINFO_FIELDS[1:-1]:
        assert type(getattr(ct_info, field)) is float
    assert type(ct_info.bits) is int and type(ct_info.dtype) is str


@pytest.mark.parametrize("name", [n for n in SHARED if n not in FINFO_SHARED])
def test_finfo_rejects_non_floating_like_torch(name):
    ct_result = outcome(ctensor.finfo, ct(name))
    assert same_outcome(ct_result, outcome(torch.finfo, th(name)))
    # PyTorch's wording names 'torch.finfo' where it means torch.iinfo; kept verbatim.
    assert ct_result == ("err", TypeError, "torch.finfo() requires a floating point input type. "
                                           "Use torch.iinfo to handle 'torch.finfo'")


def test_finfo_without_argument_uses_default(default_dtype):
    assert repr(ctensor.finfo()) == repr(torch.finfo())
    assert ctensor.finfo().dtype == default_dtype


@pytest.mark.parametrize("name", FLOAT8)
def test_finfo_float8_matches_spec(name):
    bits, eps, fmax, fmin, tiny, resolution = FINFO_NEWEST[name]
    info = ctensor.finfo(ct(name))
    assert (info.bits, info.eps, info.max, info.min, info.tiny, info.smallest_normal,
            info.resolution, info.dtype) == (bits, eps, fmax, fmin, tiny, tiny, resolution, name)
    assert repr(info) == ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, "
                          "tiny=%g, dtype=%s)" % (resolution, fmin, fmax, eps, tiny, tiny, name))


def test_finfo_float4_has_only_bits():
    """Newest PyTorch: finfo(float4_e2m1fn_x2) constructs, but each getter but bits fails in
    its dtype dispatch, naming the numeric_limits member it wanted."""
    info = ctensor.finfo(ctensor.float4_e2m1fn_x2)
    assert info.bits == 8
    members = {"eps": "epsilon", "max": "max", "min": "lowest", "tiny": "min",
               "smallest_normal": "min", "resolution": "digits10", "dtype": "dtype"}
    for field, member in members.items():
        with pytest.raises(RuntimeError) as err:
            getattr(info, field)
        assert type(err.value) is NotImplementedError  # a RuntimeError subclass
        assert str(err.value) == "\"%s\" not implemented for 'Float4_e2m1fn_x2'" % member
    # Its repr hands each failing getter's NULL to PyFloat_AsDouble; CPython's complaint about
    # that is what surfaces.
    for text in (repr, str):
        with pytest.raises(TypeError, match="^bad argument type for built-in operation$"):
            text(info)
    assert info == ctensor.finfo(ctensor.float4_e2m1fn_x2)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_finfo_rejects_barebones_unsigned(name):
    with pytest.raises(TypeError, match="^torch.finfo\\(\\) requires a floating point"):
        ctensor.finfo(ct(name))


def test_finfo_of_python_types():
    assert repr(ctensor.finfo(float)) == repr(torch.finfo(float))
    assert same_outcome(outcome(ctensor.finfo, int), outcome(torch.finfo, int))
    assert same_outcome(outcome(ctensor.finfo, bool), outcome(torch.finfo, bool))
    # Expected difference: newest PyTorch takes `complex` as complex128, 1.13 refused it.
    assert ctensor.finfo(complex) == ctensor.finfo(ctensor.float64)
    with pytest.raises(TypeError, match="must be torch.dtype, not type"):
        torch.finfo(complex)


@pytest.mark.parametrize("args,kwargs", [
    ((1,), {}), ((None,), {}), ((), {"type": None}), (("float32",), {}),
    ((ctensor.float32, ctensor.float32), {}), ((), {"foo": 1}), ((ctensor.float16,), {"foo": 1}),
    ((), {"type": ctensor.float16}), ((ctensor.float32, 1, 2), {}),
])
def test_finfo_argument_errors_match_torch(args, kwargs):
    def to_torch(v):
        return th(str(v).split(".")[1]) if isinstance(v, ctensor.dtype) else v
    ct_result = outcome(lambda: repr(ctensor.finfo(*args, **kwargs)))
    torch_result = outcome(lambda: repr(torch.finfo(*map(to_torch, args),
                                                    **{k: to_torch(v) for k, v in kwargs.items()})))
    assert same_outcome(ct_result, torch_result)


def test_finfo_two_keywords_message():
    assert outcome(ctensor.finfo, foo=1, bar=2) == (
        "err", TypeError, "finfo() received an invalid combination of arguments - got (foo=int, "
                          "bar=int, ), but expected one of:\n * (ctensor.dtype type)\n * ()\n")


# ---- iinfo ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", IINFO_SHARED)
def test_iinfo_matches_torch(name):
    ct_info, torch_info = ctensor.iinfo(ct(name)), torch.iinfo(th(name))
    assert fields(ct_info, IINFO_FIELDS) == fields(torch_info, IINFO_FIELDS)
    assert repr(ct_info) == str(ct_info) == repr(torch_info) == str(torch_info)
    assert type(ct_info.min) is int and type(ct_info.max) is int


@pytest.mark.parametrize("name", [n for n in SHARED if n not in IINFO_SHARED])
def test_iinfo_rejects_non_integers_like_torch(name):
    ct_result = outcome(ctensor.iinfo, ct(name))
    assert same_outcome(ct_result, outcome(torch.iinfo, th(name)))
    if name == "bool":
        assert ct_result[2] == "torch.bool is not supported by torch.iinfo"
    else:
        assert ct_result[2] == ("torch.iinfo() requires an integer input type. Use torch.finfo "
                                "to handle 'torch.iinfo'")


@pytest.mark.parametrize("name", sorted(IINFO_NEWEST))
def test_iinfo_barebones_unsigned_matches_spec(name):
    bits, lo, hi = IINFO_NEWEST[name]
    info = ctensor.iinfo(ct(name))
    assert (info.bits, info.min, info.max, info.dtype) == (bits, lo, hi, name)
    assert repr(info) == "iinfo(min=0, max=%g, dtype=%s)" % (hi, name)


@pytest.mark.parametrize("name", FLOAT8 + [FLOAT4])
def test_iinfo_rejects_newest_floats(name):
    with pytest.raises(TypeError, match="^torch.iinfo\\(\\) requires an integer input type"):
        ctensor.iinfo(ct(name))


@pytest.mark.parametrize("args,kwargs", [
    ((), {}), ((None,), {}), ((1,), {}), ((), {"type": None}), ((float,), {}), ((bool,), {}),
    ((int,), {}), ((ctensor.int8, ctensor.int8), {}), ((ctensor.int8,), {"foo": 1}),
    ((), {"type": ctensor.int8}), ((), {"foo": 1}), ((ctensor.int8,), {"type": ctensor.int8}),
])
def test_iinfo_argument_errors_match_torch(args, kwargs):
    def to_torch(v):
        return th(str(v).split(".")[1]) if isinstance(v, ctensor.dtype) else v
    ct_result = outcome(lambda: repr(ctensor.iinfo(*args, **kwargs)))
    torch_result = outcome(lambda: repr(torch.iinfo(*map(to_torch, args),
                                                    **{k: to_torch(v) for k, v in kwargs.items()})))
    assert same_outcome(ct_result, torch_result)


# ---- object behaviour -----------------------------------------------------------------------

def info_of(lib, name):
    make = lib.finfo if name in FINFO_SHARED else lib.iinfo
    return make(getattr(lib, name))


@pytest.mark.parametrize("a,b", itertools.product(FINFO_SHARED + IINFO_SHARED, repeat=2))
def test_equality_matches_torch(a, b):
    x, y = info_of(ctensor, a), info_of(ctensor, b)
    tx, ty = info_of(torch, a), info_of(torch, b)
    assert (x == y) == (tx == ty)
    assert (x != y) == (tx != ty)
    assert x is not info_of(ctensor, a)  # not cached


def test_equality_with_other_objects():
    info = ctensor.finfo(ctensor.float32)
    for other in [1, None, "finfo", ctensor.float32, torch.finfo(torch.float32)]:
        assert not (info == other) and info != other
    assert ctensor.finfo(ctensor.complex64) == ctensor.finfo(ctensor.float32)
    assert ctensor.finfo(ctensor.float8_e5m2) != ctensor.finfo(ctensor.float8_e5m2fnuz)
    assert ctensor.iinfo(ctensor.uint16) != ctensor.iinfo(ctensor.int16)


@pytest.mark.parametrize("kind,name", [("finfo", "float32"), ("iinfo", "int32")])
def test_object_behaviour_matches_torch(kind, name):
    x = getattr(ctensor, kind)(ct(name))
    tx = getattr(torch, kind)(th(name))

    def rename(result):
        return result if result[0] == "ok" else (result[0], result[1],
                                                 result[2].replace("torch.", "ctensor."))
    assert type(x).__name__ == kind and type(x).__module__ == "ctensor"
    assert outcome(hash, x) == rename(outcome(hash, tx)) == (
        "err", TypeError, "unhashable type: 'ctensor.%s'" % kind)
    assert outcome(lambda: x < x) == rename(outcome(lambda: tx < tx))
    assert outcome(setattr, x, "bits", 1) == rename(outcome(setattr, tx, "bits", 1))
    assert outcome(setattr, x, "foo", 1) == rename(outcome(setattr, tx, "foo", 1))
    assert outcome(pickle.dumps, x) == rename(outcome(pickle.dumps, tx))
    assert set(dir(x)) == set(dir(tx))


@pytest.mark.parametrize("name", ALL)
def test_every_dtype_has_exactly_one_of_finfo_and_iinfo(name):
    """bool has neither; every other dtype has one."""
    has_finfo = outcome(ctensor.finfo, ct(name))[0] == "ok"
    has_iinfo = outcome(ctensor.iinfo, ct(name))[0] == "ok"
    assert (has_finfo, has_iinfo) != (True, True)
    assert (has_finfo or has_iinfo) == (name != "bool")
    if has_finfo:
        assert ctensor.finfo(ct(name)).bits == 8 * ct(name).to_real().itemsize
    if has_iinfo:
        assert ctensor.iinfo(ct(name)).bits == 8 * ct(name).itemsize
