"""An error on one rank is an error on every rank: the last rank makes a mistake (a bad
argument, a local tensor, a different operation) while the others call the operation
correctly. Every rank must raise, the failing rank its own exception (the message it raises
alone), the others "global operation <op> failed on rank <r>: ..." of the same class, and
afterwards every rank must still be in step (a correct collective works). With one rank the
only rank is the failing one."""
import pytest

import ctensor
from dist_util import RANK, WORLD, all_placement

BAD = WORLD - 1
S0 = ctensor.sbp.split(0)
B = ctensor.sbp.broadcast


def make_x():
    return ctensor.ones(4, 3).to_global(placement=all_placement(), sbp=S0)


def outcome(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared below
        return e


def check(good, bad, exc, op, own=None):
    x = make_x()
    err = outcome(lambda: (bad if RANK == BAD else good)(x))
    # collective first: every rank must be back in step, whatever happened above
    in_step = x.tolist()
    assert in_step == [[1.0] * 3] * (4 * WORLD)
    assert err is not None, "rank %d did not raise" % RANK
    assert type(err) is exc, (type(err), err)
    if RANK == BAD:
        if own is not None:
            assert str(err) == own
    else:
        prefix = "global operation %s failed on rank %d: " % (op, BAD)
        assert str(err).startswith(prefix), str(err)


ROUNDING = ("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            "'bogus'")


def test_bad_rounding_mode():
    check(lambda x: ctensor.div(x, x, rounding_mode="floor"),
          lambda x: ctensor.div(x, x, rounding_mode="bogus"), RuntimeError, "div", ROUNDING)


def test_bad_rounding_mode_method():
    check(lambda x: x.div(x, rounding_mode="trunc"), lambda x: x.div(x, rounding_mode="bogus"),
          RuntimeError, "div", ROUNDING)


def test_wrong_length_sbp():
    check(lambda x: x.to_global(sbp=[B]), lambda x: x.to_global(sbp=[B, B]), ValueError,
          "to_global",
          "The number of sbp (2) must match the number of placement hierarchy dims (1)")


def test_string_for_sbp():
    check(lambda x: x.to_global(sbp=B), lambda x: x.to_global(sbp="B"), TypeError, "to_global",
          "Invalid parameter sbp with type <class 'str'>")


def test_string_for_placement():
    check(lambda x: x.to_global(placement=all_placement(), sbp=B),
          lambda x: x.to_global(placement="cpu", sbp=B), TypeError, "to_global",
          "Invalid parameter placement with type <class 'str'>")


def test_local_to_global_bad_sbp():
    check(lambda x: ctensor.ones(2).to_global(placement=all_placement(), sbp=S0),
          lambda x: ctensor.ones(2).to_global(placement=all_placement(), sbp=7), TypeError,
          "to_global")


def test_local_to_global_missing_sbp():
    check(lambda x: ctensor.ones(2).to_global(placement=all_placement(), sbp=S0),
          lambda x: ctensor.ones(2).to_global(placement=all_placement()), ValueError,
          "to_global",
          "Converting a local tensor to global tensor must have placement and sbp parameters.")


def test_none_operand():
    check(lambda x: x + x, lambda x: x + None, TypeError, "add",
          "unsupported operand type(s) for +: 'ctensor.GlobalTensor' and 'NoneType'")


def test_none_operand_reflected():
    check(lambda x: x // 2, lambda x: None // x, TypeError, "div",
          "unsupported operand type(s) for //: 'NoneType' and 'ctensor.GlobalTensor'")


@pytest.mark.parametrize("other", ["ab", [1], (1,)], ids=["str", "list", "tuple"])
def test_builtin_sequence_operand(other):
    # str and list define __rmul__, yet know nothing of global tensors: still an error
    # through the agreement, never one rank's own TypeError.
    name = type(other).__name__
    check(lambda x: x * 2, lambda x: x * other, TypeError, "mul",
          "unsupported operand type(s) for *: 'ctensor.GlobalTensor' and '%s'" % name)
    check(lambda x: 2 * x, lambda x: other * x, TypeError, "mul")


def test_bad_alpha():
    check(lambda x: ctensor.add(x, x, alpha=2), lambda x: ctensor.add(x, x, alpha="a"),
          TypeError, "add", "add(): argument 'alpha' must be Number, not str")


def test_bad_dtype_in_factory():
    p = all_placement()
    check(lambda x: ctensor.ones(2, 3, dtype=ctensor.float32, placement=p, sbp=B),
          lambda x: ctensor.ones(2, 3, dtype="bogus", placement=p, sbp=B), TypeError, "ones")


def test_factory_placement_without_sbp():
    p = all_placement()
    check(lambda x: ctensor.zeros(4, placement=p, sbp=S0),
          lambda x: ctensor.zeros(4, placement=p), ValueError, "zeros",
          "placement and sbp must be given together")


def test_random_factory_bad_argument():
    p = all_placement()
    check(lambda x: ctensor.randint(0, 5, (4,), placement=p, sbp=S0),
          lambda x: ctensor.randint(5, 0, (4,), placement=p, sbp=S0), RuntimeError, "randint")


def test_local_tensor_mixed_in():
    check(lambda x: x * x, lambda x: x * ctensor.ones(4, 3), RuntimeError, "mul",
          "Expected all tensors to be global, but found a local tensor")


def test_local_tensor_on_the_left():
    check(lambda x: x - x, lambda x: ctensor.ones(4, 3) - x, RuntimeError, "sub",
          "Expected all tensors to be global, but found a local tensor")


def test_inplace_on_one_rank():
    def bad(x):
        x += 1

    check(lambda x: x + 1, bad, RuntimeError, "add")


def test_local_tensor_where_global_belongs():
    check(lambda x: x.global_to_global(sbp=B),
          lambda x: ctensor.ones(2).global_to_global(sbp=B), RuntimeError, "to_global",
          "Expected global tensor for global_to_global but got local tensor!")


def test_module_to_global_bad_argument():
    p = all_placement()
    check(lambda x: ctensor.to_global(x, placement=p, sbp=B),
          lambda x: ctensor.to_global(x, placement=p, sbp=B, bogus=1), TypeError, "to_global")


# ---- different operations on different ranks ----------------------------------------------

DIFFER = "global operation arguments differ across ranks: "


def check_differ(first, others):
    x = make_x()
    err = outcome(lambda: (first if RANK == 0 else others)(x))
    in_step = x.tolist()
    assert in_step == [[1.0] * 3] * (4 * WORLD)
    assert isinstance(err, RuntimeError), repr(err)
    assert str(err).startswith(DIFFER), str(err)


needs_two = pytest.mark.skipif(WORLD < 2, reason="one rank cannot disagree with itself")


@needs_two
def test_add_against_to_global():
    check_differ(lambda x: x + x, lambda x: x.to_global(sbp=B))


@needs_two
def test_add_against_tolist():
    check_differ(lambda x: x + x, lambda x: x.tolist())


@needs_two
@pytest.mark.parametrize("a,b", [("tolist", "numpy"), ("numpy", "item"), ("tolist", "repr")])
def test_reads_against_each_other(a, b):
    def read(name):
        return (lambda x: repr(x)) if name == "repr" else (lambda x: getattr(x, name)())

    check_differ(read(a), read(b))


@needs_two
def test_to_global_different_sbp():
    check_differ(lambda x: x.to_global(sbp=B), lambda x: x.to_global(sbp=ctensor.sbp.split(1)))


@needs_two
def test_tolist_against_boxing_to_broadcast():
    check_differ(lambda x: x.tolist(), lambda x: x.to_global(sbp=B))


# ---- what stays as it was -------------------------------------------------------------------


def test_none_operand_everywhere():
    x = make_x()
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \*: "
                       r"'ctensor.GlobalTensor' and 'NoneType'$"):
        x * None
    assert x.tolist() == [[1.0] * 3] * (4 * WORLD)


def test_reflected_method_of_the_other_operand_is_used():
    class Other:
        def __radd__(self, other):
            return "radd"

        def __rtruediv__(self, other):
            return "rtruediv"

    x = make_x()
    assert x + Other() == "radd"
    assert x / Other() == "rtruediv"


def test_item():
    one = ctensor.full((1,), 3.5, placement=all_placement(), sbp=B)
    assert one.item() == 3.5
    x = make_x()
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()


def test_container_with_one_tensor_more():
    # ctensor.to_global over a list converts tensor by tensor: a rank with one more tensor
    # must not wait in a conversion the others never start
    p = all_placement()
    good = lambda x: ctensor.to_global([ctensor.ones(2), ctensor.ones(2)], placement=p, sbp=B)
    bad = lambda x: ctensor.to_global([ctensor.ones(2)] * 3, placement=p, sbp=B)
    if WORLD == 1:
        assert len(bad(None)) == 3
        return
    x = make_x()
    err = outcome(lambda: (bad if RANK == BAD else good)(x))
    assert x.tolist() == [[1.0] * 3] * (4 * WORLD)
    assert type(err) is RuntimeError, err
    assert str(err).startswith("global operation arguments differ across ranks"), str(err)
