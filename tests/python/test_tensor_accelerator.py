"""Tensors on an accelerator, with the host-emulated backend registered as 'cuda' (and as a
PrivateUse1 backend): where factories put tensors (device argument, `with device`,
set_default_device, the current device), to()/cuda()/cpu() moves, copies between devices,
reading values back, and the device errors. torch 1.13 here has no accelerator, so these are
checked against PyTorch's device rules (tensors never move implicitly; factories use the
default device) rather than differentially."""
import gc

import pytest

import ctensor
from ctensor import _testing

pytestmark = pytest.mark.filterwarnings("ignore:To copy construct from a tensor")


@pytest.fixture(autouse=True)
def cuda():
    _testing.register_emulated_backend("cuda", 2)
    yield
    ctensor.set_default_device(None)
    ctensor.set_device("cuda:0")
    gc.collect()
    try:
        _testing.unregister_backend("cuda")
    except RuntimeError:
        # tensors kept alive by a failed test's traceback: let that failure be the report
        pass


def dev(t):
    return str(t.device)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_place_tensors(fn):
    f = getattr(ctensor, fn)
    assert dev(f(2, device="cuda")) == "cuda:0"  # the current device, made concrete
    assert dev(f(2, device="cuda:1")) == "cuda:1"
    assert dev(f(2, device=ctensor.device("cuda", 1))) == "cuda:1"
    assert dev(f(2, device=1)) == "cuda:1"  # newest: an index of the current accelerator
    assert dev(f(2)) == "cpu"
    assert f(2, device="cuda:1").get_device() == 1 and f(2, device="cuda").is_cuda


def test_other_factories_place_tensors():
    for make in [lambda d: ctensor.full((2,), 3, device=d), lambda d: ctensor.arange(3, device=d),
                 lambda d: ctensor.tensor([1, 2], device=d),
                 lambda d: ctensor.empty_strided((2,), (1,), device=d),
                 lambda d: ctensor.scalar_tensor(1, device=d),
                 lambda d: ctensor.Tensor(2, device=d)]:
        assert dev(make("cuda:1")) == "cuda:1"
        assert dev(make(None)) == "cpu"


def test_current_device_decides_unindexed():
    ctensor.set_device("cuda:1")
    assert dev(ctensor.zeros(2, device="cuda")) == "cuda:1"
    assert dev(ctensor.ones(2).to("cuda")) == "cuda:1"
    assert dev(ctensor.ones(2).cuda()) == "cuda:1"


def test_device_context_and_default_device():
    with ctensor.device("cuda:1"):
        r = ctensor.randn(2, 3)
        assert dev(r) == "cuda:1"
        assert dev(ctensor.tensor([1.0])) == "cuda:1"
        assert dev(ctensor.zeros(2, device="cpu")) == "cpu"  # an explicit device wins
        assert dev(ctensor.zeros_like(ctensor.ones(2, device="cpu"))) == "cpu"
    assert dev(ctensor.zeros(2)) == "cpu"
    ctensor.set_default_device("cuda")
    assert dev(ctensor.zeros(2)) == "cuda:0"
    ctensor.set_device("cuda:1")
    assert dev(ctensor.zeros(2)) == "cuda:1"  # 'cuda' means the current device when used
    ctensor.set_default_device(None)
    assert dev(ctensor.zeros(2)) == "cpu"


def test_values_survive_round_trips():
    x = ctensor.arange(12.0).reshape(3, 4)
    g = x.to("cuda:1")
    assert dev(g) == "cuda:1" and g.tolist() == x.tolist()
    assert g.t().tolist() == x.t().tolist()
    assert g[1:, ::2].tolist() == x[1:, ::2].tolist()
    assert g.to("cuda:0").cpu().tolist() == x.tolist()
    assert g.to(ctensor.int8).tolist() == x.to(ctensor.int8).tolist()
    assert g[2, 3].item() == 11.0 and float(g[0, 1]) == 1.0 and bool(g[0, 1])
    h = ctensor.zeros(3, 4, device="cuda:0")
    h.copy_(x)
    h[0] = 7
    h[1, :2] = ctensor.tensor([5.0, 6.0])
    assert h.cpu().tolist()[:2] == [[7.0] * 4, [5.0, 6.0, 6.0, 7.0]]
    c = ctensor.zeros(3, 4)
    c.copy_(g.t().t())
    assert c.tolist() == x.tolist()


def test_to_identity_and_moves():
    g = ctensor.ones(2, device="cuda:1")
    assert g.to("cuda:1") is g and g.cuda(1) is g and g.to(g) is g
    assert g.cuda() is not g  # the current device is cuda:0
    assert dev(g.cpu()) == "cpu" and dev(g.to(ctensor.ones(1))) == "cpu"
    assert dev(ctensor.ones(2).to(g)) == "cuda:1"
    assert dev(ctensor.ones(2).cuda("cuda:1")) == "cuda:1"
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        ctensor.ones(2).cuda("cpu")
    assert ctensor.ones(2).type("torch.cuda.IntTensor").device == ctensor.device("cuda:0")
    assert g.type() == "torch.cuda.FloatTensor"
    assert dev(g.type("torch.FloatTensor")) == "cpu"


def test_like_functions_follow_the_input():
    g = ctensor.ones(2, 3, device="cuda:1")
    for fn in [ctensor.empty_like, ctensor.zeros_like, ctensor.ones_like, ctensor.rand_like,
               ctensor.randn_like]:
        assert dev(fn(g)) == "cuda:1"
        assert dev(fn(g, device="cpu")) == "cpu"
    assert ctensor.full_like(g, 7).tolist() == [[7.0] * 3] * 2
    assert dev(g.clone()) == "cuda:1" and dev(g.contiguous()) == "cuda:1"
    assert dev(ctensor.tensor(g)) == "cuda:1"  # tensor(t) keeps t's device


def test_device_errors():
    with pytest.raises(RuntimeError, match="out of range for cuda: 2 devices are available"):
        ctensor.zeros(2, device="cuda:5")
    with pytest.raises(RuntimeError):
        ctensor.zeros(2, device="xpu")
    with pytest.raises(TypeError) as e:
        ctensor.ones(2, device="cuda").numpy()
    assert str(e.value) == ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")
    assert ctensor.ones(2, device="cuda").numpy(force=True).tolist() == [1.0, 1.0]


def test_meta_tensors():
    m = ctensor.ones(2, 3, device="meta")
    assert m.is_meta and m.t().is_meta and dev(m.to(ctensor.int8)) == "meta"
    for read in [lambda: m.tolist(), lambda: m.item(), lambda: m.cpu()]:
        with pytest.raises((NotImplementedError, RuntimeError)):
            read()
    m[0] = 1  # writes into meta tensors do nothing
    assert dev(ctensor.ones(2).to("meta")) == "meta"


def test_privateuse1_backend():
    """A PrivateUse1 backend named 'npu' is the current accelerator (newest PyTorch)."""
    _testing.register_emulated_backend("npu", 1)
    try:
        t = ctensor.arange(3.0, device="npu")
        assert dev(t) == "npu:0" and t.tolist() == [0.0, 1.0, 2.0]
        assert dev(ctensor.zeros(1, device=0)) == "npu:0"
        assert t.type() == "torch.npu.FloatTensor"
        assert dev(t.cpu()) == "cpu"
        del t
    finally:
        gc.collect()
        _testing.unregister_backend("npu")
