"""ctensor.placement (oneflow.placement): construction forms, canonical order, repr, equality
and hash, the attributes, placement.all / env.all_device_placement, and every error of the
API doc and placement.h. Placements are checked on every rank (no data moves)."""
import re
import warnings

import numpy as np
import pytest

import ctensor
from dist_util import RANK, WORLD, assert_same_on_all_ranks, escape

needs = lambda n: pytest.mark.skipif(WORLD < n, reason="needs %d ranks" % n)  # noqa: E731
only4 = pytest.mark.skipif(WORLD != 4, reason="the 2x2 mesh needs exactly 4 ranks")

DEPRECATED_CTOR = ("The way to construct placement is deprecated, and it will be removed in "
                   "next versions. Please use ctensor.placement(type=str, ranks=int list) "
                   "instead")
RANKS_ERR = "placement ranks shoule be an array of long int"


def rp(type, ranks):
    return 'ctensor.placement(type="%s", ranks=%s)' % (type, ranks)


# ---- construction forms ---------------------------------------------------------------------

def test_positional_and_keywords():
    a = ctensor.placement("cpu", [0])
    b = ctensor.placement(type="cpu", ranks=[0])
    c = ctensor.placement("cpu", ranks=[0])
    assert a == b == c
    assert repr(a) == repr(b) == rp("cpu", "[0]")
    assert isinstance(a, ctensor.placement)


@pytest.mark.parametrize("form", ["list", "tuple", "range", "numpy", "numpy32", "np_scalars"])
def test_rank_forms_all_ranks(form):
    ranks = list(range(WORLD))
    arg = {"list": ranks, "tuple": tuple(ranks), "range": range(WORLD),
           "numpy": np.arange(WORLD, dtype=np.int64), "numpy32": np.arange(WORLD, dtype=np.int32),
           "np_scalars": [np.int64(r) for r in ranks]}[form]
    p = ctensor.placement("cpu", arg)
    assert repr(p) == rp("cpu", str(ranks))
    assert p == ctensor.placement("cpu", ranks)
    assert p.ranks.shape == (WORLD,)


def test_bare_int_is_one_rank():
    p = ctensor.placement("cpu", 0)
    assert repr(p) == rp("cpu", "[0]")
    assert p == ctensor.placement("cpu", [0])
    assert p.ranks.tolist() == [0]


def test_numpy_scalar_rank():
    p = ctensor.placement("cpu", np.int64(0))
    assert p == ctensor.placement("cpu", [0])


@needs(2)
def test_nested_one_column():
    p = ctensor.placement("cpu", [[0], [1]])
    assert repr(p) == rp("cpu", "[[0], [1]]")
    assert p.ranks.shape == (2, 1)
    assert p != ctensor.placement("cpu", [0, 1])
    q = ctensor.placement("cpu", [[0, 1]])
    assert repr(q) == rp("cpu", "[[0, 1]]")
    assert q != p and q != ctensor.placement("cpu", [0, 1])


@only4
def test_two_d_mesh():
    p = ctensor.placement("cpu", [[0, 1], [2, 3]])
    assert repr(p) == rp("cpu", "[[0, 1], [2, 3]]")
    assert p.ranks.shape == (2, 2)
    assert p.ranks.dtype == np.int64
    assert p.ranks.tolist() == [[0, 1], [2, 3]]
    assert ctensor.placement("cpu", np.arange(4).reshape(2, 2)) == p


@only4
def test_three_d_mesh():
    p = ctensor.placement("cpu", [[[0], [1]], [[2], [3]]])
    assert repr(p) == rp("cpu", "[[[0], [1]], [[2], [3]]]")
    assert p.ranks.shape == (2, 2, 1)


def test_cuda_type_constructs_without_devices():
    # placement.h: only an unknown type fails at construction; devices are needed at use.
    p = ctensor.placement("cuda", [0])
    assert p.type == "cuda"
    assert repr(p) == rp("cuda", "[0]")
    assert p != ctensor.placement("cpu", [0])


# ---- canonical order -------------------------------------------------------------------------

def test_canonical_order_1d():
    rev = list(reversed(range(WORLD)))
    p = ctensor.placement("cpu", rev)
    assert repr(p) == rp("cpu", str(list(range(WORLD))))
    assert p == ctensor.placement("cpu", list(range(WORLD)))
    assert hash(p) == hash(ctensor.placement("cpu", list(range(WORLD))))
    assert p.ranks.tolist() == list(range(WORLD))


@needs(4)
def test_canonical_order_examples():
    assert repr(ctensor.placement("cpu", [3, 1, 2, 0])) == rp("cpu", "[0, 1, 2, 3]")
    assert repr(ctensor.placement("cpu", [3, 1])) == rp("cpu", "[1, 3]")


@only4
def test_canonical_order_2d():
    p = ctensor.placement("cpu", [[0, 2], [1, 3]])
    assert repr(p) == rp("cpu", "[[0, 1], [2, 3]]")
    assert p == ctensor.placement("cpu", [[0, 1], [2, 3]])
    assert p.ranks.tolist() == [[0, 1], [2, 3]]
    q = ctensor.placement("cpu", [[3, 2], [1, 0]])
    assert q == p and hash(q) == hash(p)


# ---- equality and hash -----------------------------------------------------------------------

def test_equality_and_hash():
    a = ctensor.placement("cpu", [0])
    b = ctensor.placement("cpu", [0])
    assert a == b and not (a != b)
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    assert {a: 1}[b] == 1
    assert a != ctensor.placement("cuda", [0])


def test_equality_with_other_types():
    a = ctensor.placement("cpu", [0])
    assert (a == 1) is False
    assert (a != "cpu") is True
    assert (a == None) is False  # noqa: E711 - the comparison is what is tested
    assert a.__eq__(1) is NotImplemented
    assert a.__ne__(1) is NotImplemented


@needs(2)
def test_equality_depends_on_ranks_and_hierarchy():
    a = ctensor.placement("cpu", [0, 1])
    assert a != ctensor.placement("cpu", [0])
    assert a != ctensor.placement("cpu", [1])
    assert a == ctensor.placement("cpu", [1, 0])
    assert a != ctensor.placement("cpu", [[0, 1]])
    assert a != ctensor.placement("cpu", [[0], [1]])
    assert len({a, ctensor.placement("cpu", [1, 0]), ctensor.placement("cpu", [[0], [1]])}) == 2


@only4
def test_1d_and_2d_differ():
    assert ctensor.placement("cpu", [0, 1, 2, 3]) != ctensor.placement("cpu", [[0, 1], [2, 3]])
    assert ctensor.placement("cpu", [[0, 1], [2, 3]]) != ctensor.placement("cpu", [[0, 1, 2, 3]])


# ---- attributes ------------------------------------------------------------------------------

def test_type_and_ranks_attributes():
    p = ctensor.placement("cpu", list(range(WORLD)))
    assert p.type == "cpu" and isinstance(p.type, str)
    assert isinstance(p.ranks, np.ndarray)
    assert p.ranks.dtype == np.int64
    assert p.ranks.tolist() == list(range(WORLD))
    assert list(p.ranks) == list(range(WORLD))


def test_hierarchy_warns():
    p = ctensor.placement("cpu", list(range(WORLD)))
    with pytest.warns((DeprecationWarning, UserWarning),
                      match=re.escape("placement.hierarchy is deprecated, please use "
                                      "placement.ranks.shape instead")):
        h = p.hierarchy
    assert isinstance(h, ctensor.Size)
    assert h == ctensor.Size([WORLD])
    assert tuple(h) == p.ranks.shape


@only4
def test_hierarchy_2d():
    p = ctensor.placement("cpu", [[0, 1], [2, 3]])
    with pytest.warns((DeprecationWarning, UserWarning), match="deprecated"):
        h = p.hierarchy
    assert h == ctensor.Size([2, 2])


def test_device_type_warns():
    p = ctensor.placement("cpu", [0])
    with pytest.warns((DeprecationWarning, UserWarning), match="deprecated"):
        t = p.device_type
    assert t == "cpu"


def test_attributes_are_read_only():
    p = ctensor.placement("cpu", [0])
    with pytest.raises(AttributeError):
        p.type = "cuda"
    assert p.type == "cpu"


# ---- deprecated dict form --------------------------------------------------------------------

def test_dict_form_warns_and_equals():
    with pytest.warns(UserWarning, match=re.escape(DEPRECATED_CTOR)):
        p = ctensor.placement("cpu", {0: [0]})
    assert p == ctensor.placement("cpu", [0])
    assert repr(p) == rp("cpu", "[0]")


@pytest.mark.parametrize("value", ["int", "list", "range"])
def test_dict_form_values(value):
    v = {"int": 0, "list": list(range(WORLD)), "range": range(WORLD)}[value]
    with pytest.warns(UserWarning, match="deprecated"):
        p = ctensor.placement("cpu", {0: v})
    expect = [0] if value == "int" else list(range(WORLD))
    assert p == ctensor.placement("cpu", expect)


def test_dict_form_hierarchy():
    with pytest.warns(UserWarning, match="deprecated"):
        p = ctensor.placement("cpu", {0: range(WORLD)}, hierarchy=(WORLD, 1))
    assert p.ranks.shape == (WORLD, 1)
    assert p == ctensor.placement("cpu", [[r] for r in range(WORLD)])


@only4
def test_dict_form_hierarchy_2x2_unsorted():
    # test_eager_boxing's {0: [0, 2, 1, 3]} is the sorted [0, 1, 2, 3]
    with pytest.warns(UserWarning, match="deprecated"):
        p = ctensor.placement("cpu", {0: [0, 2, 1, 3]})
        q = ctensor.placement("cpu", {0: [0, 1, 2, 3]}, hierarchy=(2, 2))
    assert p == ctensor.placement("cpu", [0, 1, 2, 3])
    assert q == ctensor.placement("cpu", [[0, 1], [2, 3]])


def test_dict_form_bad_key():
    with pytest.raises(RuntimeError,
                       match=escape("The key (node id) of placement device_ids must be int64.")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctensor.placement("cpu", {"0": [0]})


def test_dict_form_hierarchy_mismatch_is_value_error():
    with pytest.raises(ValueError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctensor.placement("cpu", {0: [0]}, hierarchy=(2,))


# ---- placement.all / env.all_device_placement ------------------------------------------------

def test_all_cpu():
    p = ctensor.placement.all("cpu")
    q = ctensor.env.all_device_placement("cpu")
    assert p == q == ctensor.placement("cpu", list(range(WORLD)))
    assert repr(p) == rp("cpu", str(list(range(WORLD))))
    assert p.ranks.shape == (WORLD,)


def test_all_unknown_type():
    with pytest.raises(RuntimeError, match=escape(
            "Expected one of cpu, cuda device type at start of device string: xpu")):
        ctensor.placement.all("xpu")


def test_all_cuda_without_devices():
    msg = "Can't construct placement with \"cuda\" type because there is no device!"
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.placement.all("cuda")
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.env.all_device_placement("cuda")


def test_all_cuda_with_emulated_devices(emulated_cuda):
    p = ctensor.env.all_device_placement("cuda")
    assert p == ctensor.placement.all("cuda") == ctensor.placement("cuda", list(range(WORLD)))
    assert repr(p) == rp("cuda", str(list(range(WORLD))))


@needs(2)
def test_all_cuda_fewer_devices_than_processes():
    # k = min(processes per node, devices): one device -> only local rank 0 of the node
    from ctensor import _testing
    _testing.register_emulated_backend("cuda", 1)
    try:
        p = ctensor.placement.all("cuda")
    finally:
        _testing.unregister_backend("cuda")
    assert p == ctensor.placement("cuda", [0])


def test_env_functions():
    assert ctensor.env.get_rank() == RANK
    assert ctensor.env.get_world_size() == WORLD
    # one node (mpirun on this machine): local rank == rank
    assert ctensor.env.get_local_rank() == RANK
    assert ctensor.env.get_node_size() == 1


# ---- errors (every rank raises the same) -----------------------------------------------------

@pytest.mark.parametrize("ranks", [[], [[0, 1], [2]], [0.0], [1.5], [True], ["0"], [[]],
                                   [None], np.array([0.0])],
                         ids=["empty", "ragged", "float0", "float", "bool", "str", "empty2",
                              "none", "npfloat"])
def test_bad_ranks(ranks):
    with pytest.raises(RuntimeError, match=escape(RANKS_ERR)):
        ctensor.placement("cpu", ranks)


@pytest.mark.parametrize("type", ["xpu", "npu", "foo"])
def test_unknown_type(type):
    msg = "Expected one of cpu, cuda device type at start of device string: %s" % type
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.placement(type, [0])


def test_rank_not_less_than_world_size():
    msg = "Placement is invalid because rank must be less than world size!"
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.placement("cpu", [WORLD])
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.placement("cpu", [1000])
    with pytest.raises(RuntimeError, match=escape(msg)):
        ctensor.placement("cpu", list(range(WORLD + 1)))


def test_negative_rank():
    with pytest.raises(RuntimeError, match=escape(
            "Placement is invalid because rank must be non-negative, but got -1!")):
        ctensor.placement("cpu", [-1])


@needs(2)
def test_duplicate_rank():
    with pytest.raises(RuntimeError, match=escape(
            "Placement is invalid because rank 1 appears more than once!")):
        ctensor.placement("cpu", [1, 0, 1])
    with pytest.raises(RuntimeError, match=escape(
            "Placement is invalid because rank 0 appears more than once!")):
        ctensor.placement("cpu", [[0, 1], [0, 1]])


def test_duplicate_rank_one():
    with pytest.raises(RuntimeError, match=escape(
            "Placement is invalid because rank 0 appears more than once!")):
        ctensor.placement("cpu", [0, 0])


def test_too_many_hierarchy_dims():
    with pytest.raises(ValueError):
        ctensor.placement("cpu", [[[[[[[0]]]]]]])  # 7 axes > CT_PLACEMENT_MAX_NDIM


def test_six_hierarchy_dims_ok():
    p = ctensor.placement("cpu", [[[[[[0]]]]]])
    assert p.ranks.shape == (1,) * 6


def test_missing_arguments():
    with pytest.raises(TypeError):
        ctensor.placement()
    with pytest.raises(TypeError):
        ctensor.placement(ranks=[0])


def test_errors_identical_on_all_ranks():
    texts = []
    for args in [("xpu", [0]), ("cpu", []), ("cpu", [WORLD]), ("cpu", [-1])]:
        try:
            ctensor.placement(*args)
            texts.append("no error")
        except Exception as e:  # noqa: BLE001 - comparing what every rank got
            texts.append("%s: %s" % (type(e).__name__, e))
    assert_same_on_all_ranks("\n".join(texts))
    assert "no error" not in texts, texts
    assert RANK >= 0
