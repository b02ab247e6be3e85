"""The grad-mode switches (no_grad, enable_grad, set_grad_enabled, inference_mode,
is_grad_enabled, is_inference_mode_enabled) and Tensor.detach / requires_grad_ / grad_fn / the
requires_grad setter, against torch 1.13 where it has the same forms: the state they leave in
every nesting, per thread, after exceptions and through decorated functions and methods; the
errors with torch's type and message. Two forms follow the newest PyTorch, not 1.13, and are
checked on ctensor alone: the decorator without parentheses (`@no_grad`, `@inference_mode`),
and `@set_grad_enabled(False)`, which restores the mode its construction set (1.13 leaves grad
mode off after decorating)."""
import sys
import threading

import pytest

import ctensor
import torch
from leak_util import assert_steady


@pytest.fixture(autouse=True)
def grad_mode_on():
    """Every test starts and ends with PyTorch's default state in both libraries."""
    for L in (ctensor, torch):
        L.set_grad_enabled(True)
    yield
    for L in (ctensor, torch):
        assert L.is_grad_enabled() and not L.is_inference_mode_enabled()


def trace(L):
    """The grad / inference state at each step of a script run with library L."""
    seen = [("start", L.is_grad_enabled(), L.is_inference_mode_enabled())]

    def note(tag):
        seen.append((tag, L.is_grad_enabled(), L.is_inference_mode_enabled()))

    with L.no_grad():
        note("no_grad")
        with L.enable_grad():
            note("enable_grad inside no_grad")
            with L.set_grad_enabled(False):
                note("set_grad_enabled(False)")
            note("after set_grad_enabled")
        note("after enable_grad")
        with L.inference_mode():
            note("inference_mode")
            with L.inference_mode(False):
                note("inference_mode(False) inside")
            with L.enable_grad():
                note("enable_grad inside inference_mode")
        note("after inference_mode")
    note("after no_grad")
    L.set_grad_enabled(False)
    note("set_grad_enabled(False) called")
    L.set_grad_enabled(True)
    note("set_grad_enabled(True) called")
    try:
        with L.no_grad():
            raise ValueError("inside")
    except ValueError:
        note("after an exception in no_grad")
    ctx = L.no_grad()
    note("no_grad() made, not entered")
    ctx.__enter__()
    note("entered by hand")
    ctx.__exit__(None, None, None)
    note("left by hand")
    s = L.set_grad_enabled(False)
    note("set_grad_enabled object made")
    with s:
        note("inside its with")
    note("after its with")
    with L.inference_mode(mode=False):
        note("inference_mode(mode=False)")
    return seen


def test_states_like_torch():
    assert trace(ctensor) == trace(torch)


def decorated(L):
    out = []

    @L.no_grad()
    def off(x):
        """off's doc"""
        return L.is_grad_enabled(), x

    @L.enable_grad()
    def on():
        return L.is_grad_enabled()

    @L.inference_mode()
    def infer():
        return L.is_grad_enabled(), L.is_inference_mode_enabled()

    class Model:
        scale = 3

        @L.no_grad()
        def forward(self, x):
            return L.is_grad_enabled(), x * self.scale

    out.append(("off", off(2), off.__name__, off.__doc__))
    out.append(("off by keyword", off(x=5)))
    with L.no_grad():
        out.append(("on inside no_grad", on(), L.is_grad_enabled()))
    out.append(("infer", infer(), L.is_inference_mode_enabled()))
    out.append(("method", Model().forward(2), Model.forward.__name__))
    return out


def test_decorators_like_torch():
    assert decorated(ctensor) == decorated(torch)


def test_decorators_without_parentheses():
    """The newest PyTorch's @no_grad / @enable_grad / @inference_mode (no call)."""
    @ctensor.no_grad
    def off():
        return ctensor.is_grad_enabled()

    @ctensor.inference_mode
    def infer():
        return ctensor.is_inference_mode_enabled(), ctensor.is_grad_enabled()

    with ctensor.no_grad():
        @ctensor.enable_grad
        def on():
            return ctensor.is_grad_enabled()

        assert on() is True
        assert ctensor.is_grad_enabled() is False
    assert off() is False and ctensor.is_grad_enabled() is True
    assert infer() == (True, False) and ctensor.is_inference_mode_enabled() is False
    assert off.__wrapped__.__name__ == "off"
    with pytest.raises(TypeError, match="must be callable"):
        ctensor.no_grad(1)


def test_set_grad_enabled_decorator():
    """The newest PyTorch's: decorating restores the mode the construction set."""
    @ctensor.set_grad_enabled(False)
    def off():
        return ctensor.is_grad_enabled()

    assert ctensor.is_grad_enabled() is True
    assert off() is False and ctensor.is_grad_enabled() is True
    with ctensor.no_grad():
        @ctensor.set_grad_enabled(True)
        def on():
            return ctensor.is_grad_enabled()

        assert ctensor.is_grad_enabled() is False
        assert on() is True and ctensor.is_grad_enabled() is False


def test_exception_in_decorated_function_restores():
    @ctensor.no_grad()
    def boom():
        raise KeyError("x")

    with pytest.raises(KeyError):
        boom()
    assert ctensor.is_grad_enabled() is True


def per_thread(L):
    seen = []
    with L.no_grad():
        t = threading.Thread(target=lambda: seen.append(L.is_grad_enabled()))
        t.start()
        t.join()
        seen.append(L.is_grad_enabled())

    def worker():
        L.set_grad_enabled(False)
        seen.append(L.is_grad_enabled())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    seen.append(L.is_grad_enabled())
    return seen


def test_state_is_per_thread_like_torch():
    assert per_thread(ctensor) == per_thread(torch) == [True, False, False, True]


def outcome(f):
    try:
        r = f()
        return ("ok", r if isinstance(r, (bool, type(None))) else type(r).__name__)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("err", type(e).__name__, str(e))


ERRORS = [
    lambda L: L.set_grad_enabled(),
    lambda L: L.set_grad_enabled(1),
    lambda L: L.set_grad_enabled(mode="yes"),
    lambda L: L.ones(2, dtype=L.int64).requires_grad_(),
    lambda L: L.ones(2, dtype=L.int64).requires_grad_(True),
    lambda L: L.ones(2, dtype=L.int64).requires_grad_(False).requires_grad,
    lambda L: L.ones(2).requires_grad_(False).requires_grad,
    lambda L: L.ones(2).requires_grad_(1),
    lambda L: setattr(L.ones(2), "requires_grad", 1),
    lambda L: setattr(L.ones(2, dtype=L.int32), "requires_grad", True),
    lambda L: setattr(L.ones(2), "requires_grad", False),
    lambda L: L.ones(2).grad_fn,
    lambda L: L.ones(2).detach().requires_grad,
    lambda L: L.ones(2).detach().is_leaf,
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_like_torch(k):
    assert outcome(lambda: ERRORS[k](ctensor)) == outcome(lambda: ERRORS[k](torch))


def test_requires_grad_true_refused():
    """torch would start recording; ctensor has no autograd and says so."""
    for f in [lambda: ctensor.ones(2).requires_grad_(),
              lambda: setattr(ctensor.ones(2, dtype=ctensor.complex64), "requires_grad", True)]:
        with pytest.raises(NotImplementedError, match="no autograd"):
            f()


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "expanded"])
def test_detach_like_torch(layout):
    def make(L):
        x = L.arange(12.0).reshape(3, 4)
        return {"contiguous": x, "transposed": x.t(), "sliced": x[1:, ::2],
                "expanded": L.arange(4.0).expand(3, 4)}[layout]

    for L in (ctensor, torch):
        x = make(L)
        d = x.detach()
        assert d is not x
        assert (tuple(d.shape), tuple(d.stride()), d.storage_offset(), d.data_ptr()) == \
            (tuple(x.shape), tuple(x.stride()), x.storage_offset(), x.data_ptr())
    c, t = make(ctensor).detach(), make(torch).detach()
    assert c.tolist() == t.tolist()
    x = ctensor.zeros(3)
    x.detach()[1] = 4  # the same memory
    assert x.tolist() == [0.0, 4.0, 0.0]


def test_no_reference_leaks():
    def func(v):
        return v

    def use():
        with ctensor.no_grad():
            pass
        f = ctensor.no_grad()(func)
        f(1)
        ctensor.inference_mode(func)(2)
        with ctensor.set_grad_enabled(False):
            pass
        ctensor.ones(1).detach()
        ctensor.set_grad_enabled(1)

    assert_steady(use, lambda: (sys.getrefcount(func), sys.getrefcount(ctensor.no_grad)))
