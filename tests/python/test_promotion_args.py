"""Argument errors of promote_types, can_cast and result_type, in torch 1.13's words with
ctensor's type names (torch's PythonArgParser and format_invalid_args)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ctensor
import torch
from conftest import outcome, same_outcome

_OBJECT = object()

# Arguments as (ctensor value, torch value). Python's `complex` type is left out: newest
# PyTorch accepts it as a dtype, 1.13 does not (test_promotion.py covers it).
POOL = [(ctensor.float32, torch.float32), (ctensor.int8, torch.int8), (1, 1), (1.5, 1.5),
        (True, True), (1j, 1j), (None, None), ("s", "s"), ([1], [1]), ((1,), (1,)),
        (float, float), (int, int), (bool, bool), (_OBJECT, _OBJECT), (2**70, 2**70)]


def calls(keywords, max_kwargs):
    """(positional pool indices, {keyword: pool index}) for random calls."""
    return st.tuples(
        st.lists(st.integers(0, len(POOL) - 1), max_size=3),
        st.dictionaries(st.sampled_from(keywords), st.integers(0, len(POOL) - 1),
                        max_size=max_kwargs))


def run_both(ct_fn, torch_fn, call, torch_keyword=lambda k: k):
    positional, keywords = call
    ct_result = outcome(ct_fn, *[POOL[i][0] for i in positional],
                        **{k: POOL[i][0] for k, i in keywords.items()})
    torch_result = outcome(torch_fn, *[POOL[i][1] for i in positional],
                           **{torch_keyword(k): POOL[i][1] for k, i in keywords.items()})
    return ct_result, torch_result


@given(call=calls(["type1", "type2", "foo"], 2))
def test_promote_types_calls_match_torch(call):
    assert same_outcome(*run_both(ctensor.promote_types, torch.promote_types, call))


def from_underscore(result):
    """torch 1.13 calls can_cast's first parameter 'from'; newest PyTorch calls it 'from_'."""
    if result[0] == "ok":
        return result
    return (result[0], result[1],
            result[2].replace("'from'", "'from_'").replace('"from"', '"from_"'))


@given(call=calls(["from_", "to", "foo"], 2))
def test_can_cast_calls_match_torch(call):
    ct_result, torch_result = run_both(ctensor.can_cast, torch.can_cast, call,
                                       lambda k: "from" if k == "from_" else k)
    assert same_outcome(ct_result, from_underscore(torch_result))


# At most one keyword: with several, torch lists them in std::unordered_map order (below).
@given(call=calls(["tensor", "other", "scalar", "scalar1", "scalar2", "foo"], 1))
def test_result_type_calls_match_torch(call):
    assert same_outcome(*run_both(ctensor.result_type, torch.result_type, call))


@pytest.mark.parametrize("args,kwargs,message", [
    ((1, ctensor.float32), {},
     "promote_types(): argument 'type1' (position 1) must be ctensor.dtype, not int"),
    ((ctensor.float32,), {"type2": None},
     "promote_types(): argument 'type2' must be ctensor.dtype, not NoneType"),
    ((ctensor.float32,), {}, 'promote_types() missing 1 required positional arguments: "type2"'),
    ((), {}, 'promote_types() missing 2 required positional argument: "type1", "type2"'),
    ((ctensor.float32,) * 3, {}, "promote_types() takes 2 positional arguments but 3 were given"),
    ((ctensor.float32, ctensor.int8), {"foo": 1},
     "promote_types() got an unexpected keyword argument 'foo'"),
    ((ctensor.float32, ctensor.int8), {"type1": 1},
     "promote_types() got multiple values for argument 'type1'"),
    ((ctensor.float32,), {"foo": 1}, 'promote_types() missing 1 required positional arguments: '
                                     '"type2"'),
])
def test_promote_types_messages(args, kwargs, message):
    """The wording chosen, PyTorch's plural quirk included."""
    assert outcome(ctensor.promote_types, *args, **kwargs) == ("err", TypeError, message)


def test_keywords_must_be_strings():
    for fn in [ctensor.promote_types, ctensor.can_cast, ctensor.result_type]:
        with pytest.raises(TypeError, match="^keywords must be strings$"):
            fn(ctensor.float32, **{1: 2})


def test_can_cast_from_keyword_is_an_expected_difference():
    """1.13 named the parameter 'from' (usable only through **); newest PyTorch says from_."""
    assert torch.can_cast(**{"from": torch.float32, "to": torch.int32}) is False
    # PyTorch's parser reports the missing parameter before looking at unknown keywords, and
    # names every parameter from the first missing one on.
    assert outcome(ctensor.can_cast, **{"from": ctensor.float32, "to": ctensor.int32}) == (
        "err", TypeError, 'can_cast() missing 2 required positional argument: "from_", "to"')
    assert outcome(ctensor.can_cast, ctensor.float32, ctensor.int32, **{"from": 1}) == (
        "err", TypeError, "can_cast() got an unexpected keyword argument 'from'")
    assert outcome(ctensor.can_cast, 1, ctensor.int8) == (
        "err", TypeError, "can_cast(): argument 'from_' (position 1) must be ctensor.dtype, "
                          "not int")
    assert outcome(torch.can_cast, 1, torch.int8) == (
        "err", TypeError, "can_cast(): argument 'from' (position 1) must be torch.dtype, not int")
    assert outcome(ctensor.can_cast) == (
        "err", TypeError, 'can_cast() missing 2 required positional argument: "from_", "to"')


RESULT_TYPE_OPTIONS = (" * (Tensor tensor, Tensor other)\n{0} * (Number scalar, Tensor tensor)\n"
                       "{1} * (Tensor tensor, Number other)\n{2} * (Number scalar1, Number "
                       "scalar2)\n{3}")


def test_result_type_invalid_combination_message():
    bad = "      didn't match because some of the arguments have invalid types: (!int!, !str!)\n"
    expected = ("result_type() received an invalid combination of arguments - got (int, str), "
                "but expected one of:\n" + RESULT_TYPE_OPTIONS.format(bad, bad, bad, bad))
    assert outcome(ctensor.result_type, 1, "a") == ("err", TypeError, expected)
    assert outcome(torch.result_type, 1, "a") == ("err", TypeError, expected)


def test_result_type_wrong_count_message():
    expected = ("result_type() received an invalid combination of arguments - got (int), but "
                "expected one of:\n" + RESULT_TYPE_OPTIONS.format("", "", "", ""))
    assert outcome(ctensor.result_type, 1) == ("err", TypeError, expected)


def test_result_type_keyword_order_is_an_expected_difference():
    """With several keywords, torch prints them in its std::unordered_map's order in the
    'got (...)' part; ctensor prints them in call order. The rest of the message is equal."""
    ct_result = outcome(ctensor.result_type, tensor=1, other=2)
    torch_result = outcome(torch.result_type, tensor=1, other=2)
    assert ct_result[2].startswith("result_type() received an invalid combination of arguments "
                                   "- got (tensor=int, other=int, ), but expected one of:\n")
    assert torch_result[2].startswith("result_type() received an invalid combination of "
                                      "arguments - got (other=int, tensor=int, ), but expected")
    tail = "but expected one of:\n"
    assert ct_result[2].split(tail)[1] == torch_result[2].split(tail)[1].replace(
        "incorrect: other, tensor", "incorrect: tensor, other")


def test_functions_are_module_functions():
    for name in ["promote_types", "can_cast", "result_type", "get_default_dtype",
                 "set_default_dtype", "_result_type_of"]:
        fn = getattr(ctensor, name)
        assert fn.__name__ == name and fn.__module__ == "ctensor"
        assert fn.__doc__
