"""randint against torch 1.13: bounds errors per dtype (types and messages), the precision
warnings of floating dtypes, argument forms, devices, and the values ctensor draws (its
generator is Philox, so values are compared by range and spread, not one by one).

Newest-only dtypes (uint16, uint32, uint64) are checked against newest PyTorch's rule: the
bounds of the dtype, for uint64 both bounds in [0, 2**63)."""
import warnings

import pytest

import ctensor
import torch
from conftest import SHARED
from test_tensor_common import meta, same

I64_MIN, I64_MAX = -2**63, 2**63 - 1

BOUND_CASES = [
    # (low, high) per dtype name: inside, at and past the dtype's limits
    ("uint8", 0, 256), ("uint8", 0, 257), ("uint8", -1, 3), ("uint8", 255, 256),
    ("int8", -128, 128), ("int8", -129, 0), ("int8", 0, 129),
    ("int16", -2**15, 2**15), ("int16", -2**15 - 1, 0), ("int16", 0, 2**15 + 1),
    ("int32", -2**31, 2**31), ("int32", 0, 2**31 + 1), ("int32", -2**31 - 1, 0),
    ("int64", I64_MIN, I64_MAX), ("int64", 0, I64_MAX),
    ("bool", 0, 2), ("bool", 0, 3), ("bool", -1, 1), ("bool", 1, 2),
    ("float16", 0, 2049), ("float16", 0, 65505), ("float16", 0, 65506),
    ("float16", -65504, 1), ("float16", -65505, 1), ("float16", 0, 2**40),
    ("float16", 4097, 4099), ("float16", 4097, 4100), ("float16", 4096, 4100),
    ("bfloat16", 0, 257), ("bfloat16", 0, 2**40), ("bfloat16", 257, 259),
    ("float32", 0, 2**24 + 1), ("float32", I64_MIN, I64_MAX),
    ("float64", 0, 2**53 + 1), ("float64", 2**60 + 1, 2**60 + 5), ("float64", I64_MIN, 0),
    ("complex64", 0, 2), ("complex128", 5, 5), ("complex32", 0, 1),
    ("int64", 5, 5), ("int64", 6, 5), ("uint8", 5, 5),
]


def run(L, dtype, low, high, size=(4,), **kw):
    t = L.randint(low, high, size, dtype=getattr(L, dtype), **kw)
    return meta(t)


@pytest.mark.filterwarnings("ignore:.*is out of bounds")
@pytest.mark.parametrize("size", [(4,), (0,), (2, 3)], ids=repr)
@pytest.mark.parametrize("case", BOUND_CASES, ids=repr)
def test_bounds_like_torch(case, size):
    dtype, low, high = case
    same(lambda L: run(L, dtype, low, high, size))
    same(lambda L: run(L, dtype, low, high, size, device="meta"))


def warnings_of(L, *args, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        L.randint(*args, **kw)
    # torch appends where in its C++ sources the warning came from
    return [(x.category, str(x.message).split(" (Triggered internally")[0]) for x in w]


@pytest.mark.parametrize("case", [c for c in BOUND_CASES if c[0].startswith(("float", "bf"))],
                         ids=repr)
def test_precision_warnings_like_torch(case):
    dtype, low, high = case
    try:
        want = warnings_of(torch, low, high, (3,), dtype=getattr(torch, dtype))
    except RuntimeError:
        return  # an error case: test_bounds_like_torch
    got = warnings_of(ctensor, low, high, (3,), dtype=getattr(ctensor, dtype))
    assert got == want


@pytest.mark.parametrize("args", [
    (10, (3,)), (0, (3,)), (-1, (3,)), (300, (3,)), (2**63, (3,)), (0, 2**63, (3,)),
    (-2**63 - 1, 0, (3,)), (0, 5, (3, -1)), (3, [2, 2]), (1, 2, ()),
], ids=repr)
def test_argument_forms_like_torch(args):
    same(lambda L: meta(L.randint(*args)))
    same(lambda L: meta(L.randint(*args, dtype=L.uint8)))


@pytest.mark.parametrize("args", [(True, (3,)), (2.5, (3,)), (0, 5, 3)], ids=repr)
def test_argument_type_errors(args):
    # the overload lists differ (1.13 lists four, newest's defaults): compare the type only
    for kw in ({}, {"dtype": "uint8"}):
        with pytest.raises(TypeError):
            torch.randint(*args, **{k: getattr(torch, v) for k, v in kw.items()})
        with pytest.raises(TypeError):
            ctensor.randint(*args, **{k: getattr(ctensor, v) for k, v in kw.items()})


def test_options_like_torch():
    same(lambda L: meta(L.randint(0, 5, (3,), dtype=L.float32, device="meta")))
    same(lambda L: meta(L.randint(high=5, size=(3,), low=1)))
    same(lambda L: meta(L.randint(5, size=(3,), generator=L.Generator())))
    same(lambda L: meta(L.randint(0, 5, (3,), requires_grad=False)))


@pytest.mark.parametrize("dtype", [d for d in SHARED if not d.startswith("complex")])
def test_values_in_range(dtype):
    lo, hi = (0, 2) if dtype == "bool" else (-3, 4) if dtype != "uint8" else (250, 256)
    g = ctensor.Generator().manual_seed(1)
    v = ctensor.randint(lo, hi, (2000,), dtype=getattr(ctensor, dtype), generator=g)
    assert v.dtype == getattr(ctensor, dtype)
    seen = sorted(set(int(x) for x in v.tolist()))
    assert seen == list(range(lo, hi))


def test_wide_ranges():
    g = ctensor.Generator().manual_seed(2)
    v = ctensor.randint(I64_MIN, I64_MAX, (2000,), generator=g).tolist()
    assert min(v) < -2**61 and max(v) > 2**61  # both signs, spread over the range
    v = ctensor.randint(0, 2**60 + 1, (2000,), generator=g).tolist()
    assert 800 < sum(x & 1 for x in v) < 1200  # odd values: no double in the way
    v = ctensor.randint(I64_MAX - 2, I64_MAX, (200,), generator=g).tolist()
    assert set(v) == {I64_MAX - 2, I64_MAX - 1}
    v = ctensor.randint(0, I64_MAX, (4,), dtype=ctensor.uint64, generator=g)
    assert v.dtype == ctensor.uint64 and all(0 <= x < I64_MAX for x in v.tolist())


@pytest.mark.parametrize("dtype,low,high,msg", [
    ("uint16", 0, 65537, "to - 1 is out of bounds for short unsigned int"),
    ("uint16", -1, 5, "from is out of bounds for short unsigned int"),
    ("uint32", 0, 2**32 + 1, "to - 1 is out of bounds for unsigned int"),
    ("uint64", -1, 5, "from is out of bounds for long unsigned int"),
    ("uint16", 0, 65536, None), ("uint32", 0, 2**32, None), ("uint64", 0, I64_MAX, None),
    ("float8_e4m3fn", 0, 2, "\"random_update_from_to\" not implemented for 'Float8_e4m3fn'"),
])
def test_newest_only_dtypes(dtype, low, high, msg):
    call = lambda: ctensor.randint(low, high, (64,), dtype=getattr(ctensor, dtype))  # noqa: E731
    if msg is None:
        v = call().tolist()
        assert all(low <= x < high for x in v)
        return
    with pytest.raises(NotImplementedError if "not implemented" in msg else RuntimeError) as e:
        call()
    assert str(e.value) == msg


def test_generator_determinism():
    a = ctensor.randint(0, 10**12, (50,), generator=ctensor.Generator().manual_seed(3))
    b = ctensor.randint(0, 10**12, (50,), generator=ctensor.Generator().manual_seed(3))
    assert a.tolist() == b.tolist()
    ctensor.manual_seed(4)
    x = ctensor.randint(10, (20,)).tolist()
    ctensor.manual_seed(4)
    assert ctensor.randint(10, (20,)).tolist() == x
