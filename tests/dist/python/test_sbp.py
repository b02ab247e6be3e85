"""ctensor.sbp (oneflow.sbp): split / broadcast / partial_sum, reprs, equality, hash, pickle,
the axis= warning, the errors and max_split_axis. No data moves."""
import pickle
import re

import pytest

import ctensor
from dist_util import escape

sbp = ctensor.sbp


def test_module_forms():
    import ctensor.sbp as m
    from ctensor.sbp import broadcast, partial_sum, split
    assert m is ctensor.sbp
    assert split(0) == sbp.split(0)
    assert broadcast is sbp.broadcast and partial_sum is sbp.partial_sum


@pytest.mark.parametrize("dim", [0, 1, 2, 3, 4, 5])
def test_split_forms_and_repr(dim):
    a = sbp.split(dim)
    b = sbp.split(dim=dim)
    assert a == b
    assert repr(a) == "ctensor.sbp.split(dim=%d)" % dim
    assert str(a) == repr(a)
    assert isinstance(a, sbp.sbp)


def test_split_axis_keyword_warns():
    with pytest.warns(Warning, match=re.escape("'axis' is deprecated and will be updated to "
                                               "'dim'")):
        a = sbp.split(axis=1)
    assert a == sbp.split(1)
    assert repr(a) == "ctensor.sbp.split(dim=1)"


def test_broadcast_and_partial_sum_singletons():
    assert sbp.broadcast() is sbp.broadcast
    assert sbp.partial_sum() is sbp.partial_sum
    assert sbp.broadcast()() is sbp.broadcast
    assert repr(sbp.broadcast) == str(sbp.broadcast) == "ctensor.sbp.broadcast"
    assert repr(sbp.partial_sum) == str(sbp.partial_sum) == "ctensor.sbp.partial_sum"
    assert isinstance(sbp.broadcast, sbp.sbp)
    assert isinstance(sbp.partial_sum, sbp.sbp)


def test_max_split_axis():
    assert sbp.max_split_axis == 6
    assert type(sbp.max_split_axis) is int


def test_equality():
    assert sbp.split(0) == sbp.split(0)
    assert sbp.split(0) != sbp.split(1)
    assert sbp.split(0) != sbp.broadcast
    assert sbp.broadcast != sbp.partial_sum
    assert sbp.broadcast == sbp.broadcast()
    assert not (sbp.split(2) != sbp.split(dim=2))


def test_equality_with_other_types():
    assert (sbp.split(0) == 0) is False
    assert (sbp.broadcast != "B") is True


def test_hash():
    assert hash(sbp.split(1)) == hash(sbp.split(dim=1))
    assert hash(sbp.broadcast) == hash(sbp.broadcast())
    values = {sbp.split(0), sbp.split(0), sbp.split(1), sbp.broadcast, sbp.partial_sum,
              sbp.broadcast()}
    assert len(values) == 4
    assert {sbp.split(3): "s3"}[sbp.split(dim=3)] == "s3"


@pytest.mark.parametrize("value", ["S0", "S5", "B", "P"])
def test_pickle(value):
    obj = {"S0": sbp.split(0), "S5": sbp.split(5), "B": sbp.broadcast,
           "P": sbp.partial_sum}[value]
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(obj, protocol=proto))
        assert back == obj
        assert repr(back) == repr(obj)
        assert hash(back) == hash(obj)
    # inside containers too (a tuple is what Tensor.sbp returns)
    nd = (obj, sbp.broadcast)
    assert pickle.loads(pickle.dumps(nd)) == nd


def test_nd_sbp_tuple_reprs():
    assert repr((sbp.split(0),)) == "(ctensor.sbp.split(dim=0),)"
    assert repr((sbp.broadcast, sbp.split(0))) == \
        "(ctensor.sbp.broadcast, ctensor.sbp.split(dim=0))"


@pytest.mark.parametrize("dim,msg", [
    (-1, "Split axis must not be negative, but got -1!"),
    (-7, "Split axis must not be negative, but got -7!"),
    (6, "Expected split axis to be less than the supported maximum axis (6), but got 6!"),
    (7, "Expected split axis to be less than the supported maximum axis (6), but got 7!"),
    (100, "Expected split axis to be less than the supported maximum axis (6), but got 100!"),
])
def test_split_errors(dim, msg):
    with pytest.raises(RuntimeError, match=escape(msg)):
        sbp.split(dim)
    with pytest.raises(RuntimeError, match=escape(msg)):
        sbp.split(dim=dim)


@pytest.mark.parametrize("dim", [1.0, True, False, "0", None, [0]])
def test_split_dim_must_be_int(dim):
    with pytest.raises(TypeError):
        sbp.split(dim)


def test_split_needs_a_dim():
    with pytest.raises(TypeError):
        sbp.split(0, 1)
    with pytest.raises(TypeError):
        sbp.split(dim=0, foo=1)
