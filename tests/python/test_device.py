"""ctensor.device against torch.device (PyTorch 1.13), differentially.

Every corpus entry (device strings, constructor forms, valid and invalid) is run through both
libraries; reprs, str, attributes, hash, pickling, error types and messages must agree. Where
newest PyTorch (what ctensor implements) or ctensor's strictness differs from 1.13, the torch
result is rewritten by one of the NEWEST_* / STRICT_* functions below, each naming the
difference it encodes; nothing is skipped silently.

No accelerator is registered here, so `device(int)` shows the newest rule's error; the
accelerator cases live in test_device_accelerator.py.
"""
import copy
import pickle
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ctensor
import torch

# ---- the documented differences ----------------------------------------------------------

TYPES_113 = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, xla, "
             "lazy, vulkan, mps, meta, hpu, privateuseone")
TYPES_NEWEST = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                "lazy, vulkan, mps, meta, hpu, mtia, privateuseone")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
# Device types newest PyTorch parses and 1.13 does not: name -> (a 1.13 stand-in, type number).
# 'maia' is 1.13's 'ort' renamed (same number 8); 'mtia' (19) is new, xla stands in for it.
NEWEST_TYPES = {"maia": ("ort", 8), "mtia": ("xla", 19)}


def out_of_range(index):
    return ("err", RuntimeError,
            f"Device index {index} is out of range: device indices must be between 0 and 127")


def newest_message(msg):
    """NEWEST_SPELLING: newest PyTorch's parser spells the signature `device(...)` (1.13:
    `Device(...)`), prints defaults ("int index = -1"), lists maia and mtia among the types;
    ctensor's type is ctensor.device."""
    msg = msg.replace(TYPES_113, TYPES_NEWEST)
    msg = msg.replace("Device()", "device()").replace("torch.device", "ctensor.device")
    return msg.replace("(str type, int index)", "(str type, int index = -1)")


def type_part(s):
    return s.split(":", 1)[0]


def string_index(s):
    """The index digits of a syntactically valid string as an int, else None."""
    m = re.fullmatch(r"[A-Za-z_]+:([1-9][0-9]*|0)", s)
    return int(m.group(1)) if m else None


# ---- running a call in both libraries -------------------------------------------------------

class Dev:
    """A corpus placeholder for a device object built from `spec` in the library under test."""

    def __init__(self, spec):
        self.spec = spec

    def __repr__(self):
        return f"Dev({self.spec!r})"


def materialise(lib, value):
    return lib.device(value.spec) if isinstance(value, Dev) else value


def outcome(lib, args, kwargs):
    args = tuple(materialise(lib, a) for a in args)
    kwargs = {k: materialise(lib, v) for k, v in kwargs.items()}
    try:
        d = lib.device(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("err", type(e), str(e))
    fn, reduced = d.__reduce__()
    assert fn is lib.device
    try:  # 1.13 cannot unpickle the devices whose index it wrapped to a negative value
        back = pickle.loads(pickle.dumps(d))
        assert back == d and hash(back) == hash(d) and repr(back) == repr(d)
        assert copy.deepcopy(d) == d and copy.copy(d) == d
    except RuntimeError:
        reduced = "unpicklable"
    return ("ok", repr(d), str(d), d.type, d.index, hash(d), reduced)


def newest_numbering(result):
    """NEWEST_NUMBERING: newest PyTorch numbers PrivateUse1 20 (1.13: 19, the number MTIA took
    since), which shows in the hash."""
    if result[0] == "ok" and result[3] == "privateuseone":
        return result[:5] + ((20 << 16) | (result[5] & 0xFFFF),) + result[6:]
    return result


def rename_type(result, old, new, number):
    """A torch result for a stand-in type, rewritten for the newest-only type."""
    if result[0] == "err":
        return result
    _, rep, text, _, index, h, reduced = result
    return ("ok", rep.replace(f"'{old}'", f"'{new}'"), new + text[len(old):], new, index,
            (number << 16) | (h & 0xFFFF), (new,) + reduced[1:])


def expected_string(s, standin=False):
    """What newest PyTorch, as ctensor implements it, gives for torch.device(s); `standin`:
    s is a 1.13 stand-in for a newest-only type."""
    if isinstance(s, str) and "\0" in s:
        # STRICT_NUL: 1.13 stops the message at the NUL (C string); ctensor shows it whole.
        return ("err", RuntimeError, f"Invalid device string: '{s}'")
    text = s.decode() if isinstance(s, bytes) else s
    part = type_part(text)
    if part in NEWEST_TYPES and re.fullmatch(r"[A-Za-z_]+(:.*)?", text, re.S):
        # NEWEST_TYPES: run the 1.13 stand-in and rename the result.
        old, number = NEWEST_TYPES[part]
        sub = old + text[len(part):]
        result = expected_string(sub, standin=True)
        if result[0] == "err":
            return ("err", result[1], result[2].replace(sub, text))
        return rename_type(result, old, part, number)
    result = outcome(torch, (s,), {})
    if part == "ort" and result[0] == "ok" and not standin:
        # NEWEST_TYPES: 'ort' was renamed 'maia'; newest PyTorch no longer parses 'ort'.
        return ("err", RuntimeError, "Expected one of " + TYPES_NEWEST +
                " device type at start of device string: ort")
    if result[0] == "err":
        return ("err", result[1], newest_message(result[2]))
    index = string_index(text)
    if index is not None and index > 127:
        return out_of_range(index)  # STRICT_RANGE: 1.13 wraps the index into an int8
    return newest_numbering(result)


def expected_call(args, kwargs, standin=False):
    """What newest PyTorch, as ctensor implements it, gives for torch.device(*args, **kw)."""
    params = list(args) + list(kwargs.values())
    if len(params) == 1 and (args or "device" in kwargs):
        only = params[0]
        if isinstance(only, (str, bytes)):
            return expected_string(only)
        if isinstance(only, (int, np.integer)) and not isinstance(only, (bool, np.bool_)):
            result = outcome(torch, args, kwargs)
            if result[0] == "err":  # negative, overflow: both versions agree
                return result
            # NEWEST_ORDINAL: newest PyTorch reads an int as an index of the current
            # accelerator (1.13: always cuda); ctensor checks the range first (STRICT_RANGE).
            return out_of_range(int(only)) if only > 127 else ("err", RuntimeError,
                                                               NO_ACCELERATOR)
    type_arg = args[0] if args else kwargs.get("type")
    index_arg = args[1] if len(args) > 1 else kwargs.get("index")
    two_arg_form = (type_arg is not None and len(params) <= 2 and isinstance(type_arg, str)
                    and set(kwargs) <= {"type", "index"})
    if two_arg_form and type_part(type_arg) in NEWEST_TYPES and "\0" not in type_arg:
        old, number = NEWEST_TYPES[type_part(type_arg)]
        sub = old + type_arg[len(type_part(type_arg)):]
        new_args = (sub,) + tuple(args[1:]) if args else args
        new_kwargs = dict(kwargs, type=sub) if "type" in kwargs else kwargs
        result = expected_call(new_args, new_kwargs, standin=True)
        if result[0] == "err":
            return ("err", result[1], result[2].replace(sub, type_arg))
        return rename_type(result, old, type_part(type_arg), number)
    if two_arg_form and "\0" in type_arg:
        return ("err", RuntimeError, f"Invalid device string: '{type_arg}'")  # STRICT_NUL
    result = outcome(torch, args, kwargs)
    if two_arg_form and isinstance(index_arg, (int, np.integer)) and not isinstance(
            index_arg, (bool, np.bool_)) and not -2**63 <= index_arg < 2**63:
        base = expected_call((type_arg, None), {}, standin)  # the type's errors come first
        return base if base[0] == "err" else ("err", RuntimeError,
                                              "Overflow when unpacking long")
    if two_arg_form and isinstance(index_arg, (int, np.integer)) and not isinstance(
            index_arg, (bool, np.bool_)) and (index_arg < 0 or index_arg > 127):
        # STRICT_RANGE: 1.13 casts the index to int32 then int8 (300 -> 44, 2**63-1 ->
        # "must not be negative", -2**63 -> 0); ctensor refuses every index outside 0..127.
        base = expected_call((type_arg, None), {}, standin)  # the type's errors come first
        if base[0] == "err":
            return base
        if index_arg < 0:
            return ("err", RuntimeError, "Device index must not be negative")
        return out_of_range(int(index_arg))
    if result[0] == "err" and "Overflow" not in result[2]:
        return ("err", result[1], newest_message(result[2]))
    if two_arg_form and type_part(type_arg) == "ort" and result[0] == "ok" and not standin:
        return ("err", RuntimeError, "Expected one of " + TYPES_NEWEST +
                " device type at start of device string: ort")
    return newest_numbering(result)


# ---- the corpus -----------------------------------------------------------------------------

GOOD_TYPES = ["cpu", "cuda", "xpu", "meta", "privateuseone", "mps", "xla", "hip", "ipu", "hpu",
              "ve", "fpga", "lazy", "vulkan", "mkldnn", "opengl", "opencl", "ideep", "ort",
              "maia", "mtia"]
BAD_TYPES = ["metal", "CUDA", "Cuda", "foo", "_", "cu_da", "cuda_x", "autort", "msnpu", "mlc",
             "npu", "Cpu", "META"]
SUFFIXES = ["", ":0", ":1", ":7", ":127", ":128", ":255", ":256", ":01", ":00", ":-1", ":",
            ":a", ":1a", ":+1", ":1.0", ": 1", ":1:2", ":2147483647", ":2147483648",
            ":99999999999999999999", "::1", ":0x1"]
ODD = ["", " cuda", "cuda ", "0", "1", ":0", "cuda1", "cudä", "cuda:１", "cuda:٣", "٣", "cpu:0:0",
       "cuda:32767", "cuda:65535", "cuda:383", "\tcuda", "cuda\n", "cuda:1 ", "ä" * 300,
       "x" * 600, "cuda:" + "9" * 200, "cuda\0", "cuda\0:1", "\0", b"cuda", b"cuda:1", b"meta",
       b"", b"foo:1", b"cuda:128", b"maia:2"]

STRINGS = ([t + s for t in ["cpu", "cuda", "maia", "mtia", "ort"] for s in SUFFIXES]
           + [t + s for t in GOOD_TYPES for s in ["", ":3"]]
           + [t + s for t in BAD_TYPES for s in ["", ":0", ":01"]]
           + ODD)

CALLS = [
    # (type, index)
    (("cuda", 0), {}), (("cuda", 3), {}), (("cpu", 0), {}), (("cpu", 1), {}), (("meta", 0), {}),
    (("cuda", None), {}), (("cuda", -1), {}), (("cuda", -2), {}), (("cuda:1", 0), {}),
    (("cuda:1", None), {}), (("cuda", 127), {}), (("cuda", 128), {}), (("cuda", 255), {}),
    (("cuda", 300), {}), (("cuda", 383), {}), (("cuda", 2**40), {}), (("cuda", 2**63 - 1), {}),
    (("cuda", -2**63), {}), (("cuda", 2**63), {}), (("cuda", -2**63 - 1), {}),
    (("cuda", 2**70), {}), (("foo", 2**70), {}), (("cuda:1", 2**70), {}), (("foo", 1), {}),
    (("", 1), {}), (("cuda:", 1), {}), (("cuda", "1"), {}), (("cuda", 1.0), {}),
    (("cuda", True), {}), (("cuda", np.int64(3)), {}), (("cuda", np.uint8(2)), {}),
    (("maia", 1), {}), (("ort", 1), {}), (("mtia", 2), {}), (("mtia:1", 2), {}),
    (("maia", 200), {}), ((b"cuda", 1), {}), (("cuda\0", 1), {}), ((bytearray(b"x"), 1), {}),
    (("metal", 0), {}), (("CUDA", 0), {}), (("privateuseone", 5), {}), (("xla", None), {}),
    # one argument
    ((True,), {}), ((False,), {}), ((1.0,), {}), ((None,), {}), ((), {}), (([],), {}),
    (((),), {}), ((bytearray(b"cuda"),), {}), ((Dev("cuda:1"),), {}), ((Dev("cpu"),), {}),
    ((Dev("meta:0"),), {}), ((0,), {}), ((3,), {}), ((127,), {}), ((128,), {}), ((-1,), {}),
    ((-2**70,), {}), ((2**63,), {}), ((2**63 - 1,), {}), ((np.int64(2),), {}),
    ((np.uint8(1),), {}), ((np.bool_(True),), {}), ((np.float64(1.0),), {}),
    ((1 + 2j,), {}), ((object(),), {}),
    # three arguments
    (("cuda", 1, 2), {}), (("cuda", 1, None), {}),
    # keywords
    ((), {"type": "cuda"}), ((), {"type": "cuda", "index": 1}), ((), {"type": "cuda", "index": None}),
    ((), {"type": "cuda:1"}), ((), {"type": "maia", "index": 2}), ((), {"device": "cpu"}),
    ((), {"device": Dev("cuda:1")}), ((), {"device": 0}), ((), {"device": None}),
    ((), {"device": 1.5}), ((), {"index": 1}), ((), {"type": 1}), ((), {"foo": 1}),
    ((), {"type": "cuda", "idx": 1}), ((), {"device": "cpu", "index": 1}),
    (("cuda",), {"type": "cpu"}), (("cuda",), {"index": 1}), (("cuda",), {"index": "1"}),
    (("cuda",), {"index": 500}), (("cuda",), {"foo": 1}), (("cuda",), {"device": "cpu"}),
    ((), {"type": "cuda", "index": 2**70}), ((), {"type": "cuda", "index": True}),
]


def test_corpus_size():
    assert len(STRINGS) >= 200, len(STRINGS)
    assert len(STRINGS) + len(CALLS) >= 300


@pytest.mark.parametrize("s", STRINGS, ids=[repr(s)[:40] for s in STRINGS])
def test_device_string(s):
    assert outcome(ctensor, (s,), {}) == expected_string(s)


@pytest.mark.parametrize("args,kwargs", CALLS, ids=[repr(c)[:60] for c in CALLS])
def test_constructor_form(args, kwargs):
    assert outcome(ctensor, args, kwargs) == expected_call(args, kwargs)


NAMES = ["cpu", "cuda", "meta", "xla", "maia", "mtia", "ort", "metal", "foo", "Cuda", ""]


@given(st.one_of(st.text(alphabet="cudaxpimetlor_:0123456789 -", max_size=14),
                 st.text(max_size=10),
                 st.builds(lambda n, i: f"{n}:{i}", st.sampled_from(NAMES),
                           st.integers(0, 2**40))))
def test_random_strings(s):
    assert outcome(ctensor, (s,), {}) == expected_string(s)


@given(st.sampled_from(NAMES + ["cuda:1", "cuda:", "cuda:01"]),
       st.one_of(st.none(), st.integers(-2**70, 2**70), st.integers(-3, 300)))
def test_random_type_and_index(name, index):
    assert outcome(ctensor, (name, index), {}) == expected_call((name, index), {})


@given(st.one_of(st.integers(-2**70, 2**70), st.integers(-3, 300)))
def test_random_ordinals(n):
    assert outcome(ctensor, (n,), {}) == expected_call((n,), {})


def test_newest_spelling_written_out():
    """The newest-PyTorch spelling of the two constructor errors, literally."""
    with pytest.raises(TypeError) as e:
        ctensor.device(True)
    assert str(e.value) == (
        "device() received an invalid combination of arguments - got (bool), but expected one "
        "of:\n * (ctensor.device device)\n      didn't match because some of the arguments "
        "have invalid types: (!bool!)\n * (str type, int index = -1)\n")
    with pytest.raises(TypeError, match=r"^device\(\): argument 'index' \(position 2\) must be "
                                        r"int, not str$"):
        ctensor.device("cuda", "1")


def test_keyword_order_in_messages():
    """ctensor lists keyword arguments in call order (PyTorch 1.13: hash-map order)."""
    with pytest.raises(TypeError) as e:
        ctensor.device(type="cuda", index=1, foo=2)
    assert str(e.value) == (
        "device() received an invalid combination of arguments - got (type=str, index=int, "
        "foo=int, ), but expected one of:\n * (ctensor.device device)\n * (str type, int index "
        "= -1)\n")
    with pytest.raises(TypeError, match="got multiple values for argument 'type'"):
        ctensor.device("cuda", **{"type": "cpu"})
    with pytest.raises(TypeError, match="^keywords must be strings$"):
        ctensor.device(**{1: "cpu"})


def test_long_strings_are_cut_not_broken():
    """C messages stop at 1023 bytes; the exception stays well-formed (differs from PyTorch,
    which shows the whole string)."""
    with pytest.raises(RuntimeError) as e:
        ctensor.device("a" * 2000)
    msg = str(e.value)
    assert msg.startswith("Expected one of " + TYPES_NEWEST + " device type at start of")
    assert msg.endswith("a") and len(msg) == 1023
    with pytest.raises(RuntimeError) as e:
        ctensor.device("ä" * 2000)  # cut inside a UTF-8 sequence: the last byte is escaped
    msg = str(e.value)
    assert msg.startswith("Invalid device string: 'ää") and msg.endswith("ä\\xc3")
    with pytest.raises(RuntimeError, match=r"^Invalid device string: '\\xff'$"):
        ctensor.device(b"\xff")  # PyTorch 1.13: RuntimeError with an empty message
    with pytest.raises(RuntimeError, match="^error unpacking string as utf-8$"):
        ctensor.device("\ud800")
    with pytest.raises(RuntimeError, match="^error unpacking string as utf-8$"):
        ctensor.device("\ud800", 1)


# ---- the device object ----------------------------------------------------------------------

VALID = ["cpu", "cpu:0", "cpu:1", "cuda", "cuda:0", "cuda:1", "cuda:127", "meta", "meta:0",
         "xla:3", "privateuseone", "privateuseone:0", "mps:0", "maia:1", "mtia:2", "hip"]


def pairs(lib):
    devs = [lib.device(s) for s in VALID]
    return [(a == b, a != b, hash(a) == hash(b)) for a in devs for b in devs]


def test_equality_and_hash_match_torch():
    theirs = [lib_s.replace("maia", "ort").replace("mtia", "xla") for lib_s in VALID]
    tdevs = [torch.device(s) for s in theirs]
    expected = [(a == b, a != b, hash(a) == hash(b)) for a in tdevs for b in tdevs]
    assert pairs(ctensor) == expected
    # PyTorch's hash formula: (uint8 type << 16) | uint8 index
    assert [hash(ctensor.device(s)) for s in ["cpu", "cpu:0", "cuda:1", "cuda", "mtia:2"]] == [
        255, 0, 65537, 65791, (19 << 16) | 2]
    assert {ctensor.device("cuda:0"): 1}[ctensor.device("cuda", 0)] == 1
    assert len({ctensor.device("cpu"), ctensor.device("cpu"), ctensor.device("cpu:0")}) == 2


@pytest.mark.parametrize("other", ["cpu", 0, None, 1.5, torch.device("cpu"), object()])
def test_equality_with_other_types(other):
    d = ctensor.device("cpu")
    assert (d == other) is False and (d != other) is True
    assert d.__eq__(other) is NotImplemented
    assert torch.device("cpu").__eq__("cpu") is NotImplemented


def test_ordering_not_implemented():
    a, b = ctensor.device("cuda:0"), ctensor.device("cuda:1")
    for op in ["__lt__", "__le__", "__gt__", "__ge__"]:
        with pytest.raises(TypeError, match="^comparison not implemented$"):
            getattr(a, op)(b)
        with pytest.raises(TypeError, match="^comparison not implemented$"):
            getattr(torch.device("cuda:0"), op)(torch.device("cuda:1"))
    with pytest.raises(TypeError, match="'<' not supported between instances of "
                                        "'ctensor.device' and 'int'"):
        a < 1  # noqa: B015


def test_reduce_and_pickle():
    assert ctensor.device("cuda", 1).__reduce__() == (ctensor.device, ("cuda", 1))
    assert ctensor.device("cpu").__reduce__() == (ctensor.device, ("cpu",))
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        for s in VALID:
            d = ctensor.device(s)
            back = pickle.loads(pickle.dumps(d, proto))
            assert type(back) is ctensor.device and back == d and back is not d
    assert b"ctensor" in pickle.dumps(ctensor.device("cuda:1"))


def test_type_object():
    d = ctensor.device("cuda:1")
    assert type(d) is ctensor.device and ctensor.device.__name__ == "device"
    assert ctensor.device.__module__ == "ctensor" and ctensor.device.__qualname__ == "device"
    assert {"type", "index", "__reduce__", "__enter__", "__exit__"} <= set(dir(d))
    # newest torch.device also has __enter__/__exit__; the other public names are the same
    public = {n for n in dir(d) if not n.startswith("_")}
    assert public == {n for n in dir(torch.device("cuda:1")) if not n.startswith("_")}
    with pytest.raises(TypeError, match="type 'ctensor.device' is not an acceptable base type"):
        type("D", (ctensor.device,), {})
    with pytest.raises(AttributeError, match="attribute 'index' of 'ctensor.device' objects is "
                                             "not writable"):
        d.index = 2
    with pytest.raises(AttributeError, match="attribute 'type' of 'ctensor.device' objects is "
                                             "not writable"):
        d.type = "cpu"
    with pytest.raises(AttributeError):
        d.foo = 1
    assert isinstance(d.index, int) and ctensor.device("cuda").index is None
    assert isinstance(d.type, str)
    assert ctensor.device(d) == d and ctensor.device(d) is not d


def test_privateuseone_prints_its_registered_name():
    d = ctensor.device("privateuseone:1")
    ctensor.utils.rename_privateuse1_backend("npu")
    try:
        assert (repr(d), str(d), d.type) == ("device(type='npu', index=1)", "npu:1", "npu")
        assert ctensor.device("npu:1") == d == ctensor.device("privateuseone", 1)
        assert d.__reduce__() == (ctensor.device, ("npu", 1))
        assert pickle.loads(pickle.dumps(d)) == d
        assert hash(d) == (20 << 16) | 1
    finally:
        ctensor._testing.unregister_backend("privateuseone")
    assert str(d) == "privateuseone:1"
    with pytest.raises(RuntimeError, match="device type at start of device string: npu$"):
        ctensor.device("npu")
