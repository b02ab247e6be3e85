"""ctensor.dtype objects: names, aliases, identity, repr, pickling, attributes."""
import copy
import pickle
import re

import pytest

import ctensor
import torch
from conftest import ALIASES, ALL, CPP_NAME, NEWEST_ONLY, SHARED, ct, name_of, th

# PyTorch's dtype facts for every ctensor dtype:
# itemsize, is_floating_point, is_complex, is_signed, abbr.
SPEC_TABLE = {
    "uint8": (1, False, False, False, "u8"),
    "int8": (1, False, False, True, "i8"),
    "int16": (2, False, False, True, "i16"),
    "int32": (4, False, False, True, "i32"),
    "int64": (8, False, False, True, "i64"),
    "float16": (2, True, False, True, "f16"),
    "float32": (4, True, False, True, "f32"),
    "float64": (8, True, False, True, "f64"),
    "complex32": (4, False, True, True, "c32"),
    "complex64": (8, False, True, True, "c64"),
    "complex128": (16, False, True, True, "c128"),
    "bool": (1, False, False, False, "b8"),
    "bfloat16": (2, True, False, True, "bf16"),
    "float8_e5m2": (1, True, False, True, "f8e5m2"),
    "float8_e4m3fn": (1, True, False, True, "f8e4m3fn"),
    "float8_e5m2fnuz": (1, True, False, True, "f8e5m2fnuz"),
    "float8_e4m3fnuz": (1, True, False, True, "f8e4m3fnuz"),
    "uint16": (2, False, False, False, "u16"),
    "uint32": (4, False, False, False, "u32"),
    "uint64": (8, False, False, False, "u64"),
    "float8_e8m0fnu": (1, True, False, False, "f8e8m0fnu"),
    "float4_e2m1fn_x2": (1, True, False, True, "f4e2m1fnx2"),
}

# to_complex() per newest PyTorch (toComplexType); None: RuntimeError.
TO_COMPLEX = {"float16": "complex32", "bfloat16": "complex64", "float32": "complex64",
              "float64": "complex128", "complex32": "complex32", "complex64": "complex64",
              "complex128": "complex128"}
TO_REAL = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}


def ct_dtype_attributes(module):
    return {n: getattr(module, n) for n in dir(module)
            if isinstance(getattr(module, n), module.dtype)}


# ---- names and identity ---------------------------------------------------------------------

def test_every_dtype_and_alias_is_a_module_attribute():
    attrs = ct_dtype_attributes(ctensor)
    assert set(attrs) == set(ALL) | set(ALIASES)
    assert len({id(d) for d in attrs.values()}) == len(ALL) == 22
    for alias, primary in ALIASES.items():
        assert getattr(ctensor, alias) is getattr(ctensor, primary)


def test_names_match_torch_for_shared_dtypes():
    """Every torch 1.13 name of a shared dtype exists in ctensor, bound the same way."""
    torch_attrs = ct_dtype_attributes(torch)
    shared_torch = {n: name_of(d) for n, d in torch_attrs.items() if name_of(d) in SHARED}
    ct_attrs = {n: name_of(d) for n, d in ct_dtype_attributes(ctensor).items()
                if name_of(d) in SHARED}
    assert shared_torch == ct_attrs


@pytest.mark.parametrize("name", ALL)
def test_repr_and_str_use_primary_name(name):
    d = ct(name)
    assert repr(d) == str(d) == "ctensor." + name
    if name in SHARED:
        assert repr(d) == repr(th(name)).replace("torch.", "ctensor.")


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_repr_of_alias_is_primary(alias):
    assert repr(getattr(ctensor, alias)) == "ctensor." + ALIASES[alias]
    assert repr(getattr(torch, alias)) == "torch." + ALIASES[alias]


def test_type_object():
    d = ctensor.float32
    assert type(d) is ctensor.dtype
    assert isinstance(d, ctensor.dtype)
    assert ctensor.dtype.__name__ == "dtype" == torch.dtype.__name__
    assert ctensor.dtype.__module__ == "ctensor"
    assert d.__module__ == "ctensor"  # torch.float32.__module__ == 'torch'
    assert torch.float32.__module__ == "torch"
    assert ctensor.dtype.__mro__ == (ctensor.dtype, object)


def test_cannot_instantiate():
    with pytest.raises(TypeError) as ct_err:
        ctensor.dtype()
    with pytest.raises(TypeError) as torch_err:
        torch.dtype()
    assert str(ct_err.value) == "cannot create 'ctensor.dtype' instances"
    assert str(ct_err.value) == str(torch_err.value).replace("torch.", "ctensor.")


def test_cannot_subclass():
    with pytest.raises(TypeError, match=r"^type 'ctensor\.dtype' is not an acceptable base type$"):
        type("Sub", (ctensor.dtype,), {})
    with pytest.raises(TypeError, match=r"^type 'torch\.dtype' is not an acceptable base type$"):
        type("Sub", (torch.dtype,), {})


# ---- equality, hashing, ordering ------------------------------------------------------------

def test_equality_and_hash_are_identity():
    for a in ALL:
        for b in ALL:
            assert (ct(a) == ct(b)) == (a == b)
            assert (ct(a) != ct(b)) == (a != b)
    assert hash(ctensor.float) == hash(ctensor.float32)
    assert ctensor.float32 != "float32" and ctensor.float32 != torch.float32
    assert not (ctensor.float32 == 1)
    assert {ctensor.float: 1}[ctensor.float32] == 1
    assert len({ct(n) for n in ALL} | {getattr(ctensor, a) for a in ALIASES}) == 22


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_ordering_raises_type_error_like_torch(op):
    def compare(x, y):
        return eval("x %s y" % op)  # noqa: S307 - fixed operator strings
    with pytest.raises(TypeError) as ct_err:
        compare(ctensor.float32, ctensor.int32)
    with pytest.raises(TypeError) as torch_err:
        compare(torch.float32, torch.int32)
    assert str(ct_err.value) == str(torch_err.value).replace("torch.", "ctensor.")
    assert str(ct_err.value) == ("'%s' not supported between instances of 'ctensor.dtype' and "
                                 "'ctensor.dtype'" % op)


def test_attributes_are_read_only_like_torch():
    for attr in ["is_signed", "is_complex", "is_floating_point"]:
        with pytest.raises(AttributeError) as ct_err:
            setattr(ctensor.float32, attr, True)
        with pytest.raises(AttributeError) as torch_err:
            setattr(torch.float32, attr, True)
        assert str(ct_err.value) == str(torch_err.value).replace("torch.", "ctensor.")
    for obj, lib in [(ctensor.float32, "ctensor"), (torch.float32, "torch")]:
        with pytest.raises(AttributeError, match="'%s.dtype' object has no attribute 'foo'" % lib):
            obj.foo = 1
        with pytest.raises(AttributeError, match="'%s.dtype' object has no attribute 'foo'" % lib):
            obj.foo  # noqa: B018


# ---- pickling and copying -------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL + sorted(ALIASES))
def test_pickle_round_trips_to_the_singleton(name):
    d = getattr(ctensor, name)
    primary = ALIASES.get(name, name)
    assert d.__reduce__() == primary
    if primary in SHARED:
        assert getattr(torch, name).__reduce__() == primary
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(d, protocol=protocol)) is d
    assert copy.copy(d) is d
    assert copy.deepcopy(d) is d


def test_pickle_stores_a_module_reference():
    assert pickle.dumps(ctensor.half, protocol=0) == b"cctensor\nfloat16\np0\n."
    assert pickle.dumps(torch.half, protocol=0) == b"ctorch\nfloat16\np0\n."


# ---- properties -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHARED)
def test_predicates_match_torch(name):
    for attr in ["is_floating_point", "is_complex", "is_signed"]:
        assert getattr(ct(name), attr) is getattr(th(name), attr), attr


@pytest.mark.parametrize("name", ALL)
def test_properties_match_spec_table(name):
    itemsize, is_fp, is_complex, is_signed, abbr = SPEC_TABLE[name]
    d = ct(name)
    assert d.itemsize == itemsize
    assert d.is_floating_point is is_fp
    assert d.is_complex is is_complex
    assert d.is_signed is is_signed
    assert d.abbr == abbr


@pytest.mark.parametrize("name", SHARED)
def test_itemsize_matches_torch_element_size(name):
    assert ct(name).itemsize == torch.empty(0, dtype=th(name)).element_size()


def test_dir_matches_torch_plus_newest_attributes():
    """Expected difference: newest PyTorch added itemsize, abbr, to_real(), to_complex()."""
    extra = {"itemsize", "abbr", "to_real", "to_complex"}
    assert set(dir(ctensor.float32)) == set(dir(torch.float32)) | extra
    for attr in extra:
        with pytest.raises(AttributeError, match="'torch.dtype' object has no attribute"):
            getattr(torch.float32, attr)


@pytest.mark.parametrize("name", ALL)
def test_to_real(name):
    assert ct(name).to_real() is ct(TO_REAL.get(name, name))


@pytest.mark.parametrize("name", ALL)
def test_to_complex(name):
    if name in TO_COMPLEX:
        assert ct(name).to_complex() is ct(TO_COMPLEX[name])
    else:
        with pytest.raises(RuntimeError) as err:
            ct(name).to_complex()
        assert type(err.value) is RuntimeError
        assert str(err.value) == "Unknown Complex ScalarType for " + CPP_NAME[name]


def test_to_real_and_to_complex_take_no_arguments():
    with pytest.raises(TypeError, match=r"takes no arguments \(1 given\)"):
        ctensor.float32.to_complex(1)
    with pytest.raises(TypeError, match=r"takes no arguments \(1 given\)"):
        ctensor.float32.to_real(1)


@pytest.mark.parametrize("name", NEWEST_ONLY)
def test_newest_only_dtypes_are_absent_from_torch_113(name):
    """Expected difference: torch 1.13 has none of the newest-only dtypes."""
    assert not hasattr(torch, name)
    assert isinstance(ct(name), ctensor.dtype)


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", ctensor.__version__)
