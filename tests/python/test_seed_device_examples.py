"""The device examples of the seed documentation pages, run as written with
`import ctensor as torch` (and `import ctensor as oneflow` in the OneFlow mode).

Each example is the page's text, copied verbatim, run through doctest: the printed results
and exceptions must be the page's. The examples that need accelerators run with the
host-emulated backend registered under the type the page names ('cuda', 'xpu'). The examples
that allocate tensors (torch.randn(..., device=...)) and those that add tensors
(torch.ones(()) + torch.ones(1).cuda(), a zero-dim cpu tensor carried to the other operand's
device) run too.

Pages: 003 = newest PyTorch "Tensor Attributes" (source), 002 = PyTorch 1.x page (rendered),
001 = OneFlow's page (rendered).
"""
import doctest
import gc

import pytest

import ctensor
from ctensor import _testing


def setup(kind):
    """'none': no accelerator; 'cuda' / 'xpu': that type emulated with 2 devices; 'oneflow':
    the OneFlow mode with cuda emulated (the page's machine has GPUs)."""
    if kind in ("cuda", "xpu"):
        _testing.register_emulated_backend(kind, 2)
    elif kind == "oneflow":
        _testing.register_emulated_backend("cuda", 2)
        ctensor.set_compat_mode("oneflow")


@pytest.fixture(autouse=True)
def clean():
    yield
    ctensor.set_compat_mode("pytorch")
    ctensor.set_default_device(None)
    gc.collect()  # tensors of the examples must be gone before their backend goes
    for name in ["cuda", "xpu"]:
        try:
            _testing.unregister_backend(name)
        except RuntimeError:
            pass


def run_example(text, kind, name):
    setup(kind)
    globs = {"torch": ctensor, "oneflow": ctensor, "flow": ctensor}
    test = doctest.DocTestParser().get_doctest(text, globs, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries > 0


# (id, setup, the page's text)
EXAMPLES = [
    # ---- 003: newest PyTorch --------------------------------------------------------------
    ("003-string-cuda0", "none", """
    >>> torch.device('cuda:0')
    device(type='cuda', index=0)
"""),
    ("003-string-cpu", "none", """
    >>> torch.device('cpu')
    device(type='cpu')
"""),
    ("003-string-mps", "none", """
    >>> torch.device('mps')
    device(type='mps')
"""),
    ("003-string-cuda", "none", """
    >>> torch.device('cuda')  # implicit index is the "current device index"
    device(type='cuda')
"""),
    ("003-type-ordinal-cuda", "none", """
    >>> torch.device('cuda', 0)
    device(type='cuda', index=0)
"""),
    ("003-type-ordinal-mps", "none", """
    >>> torch.device('mps', 0)
    device(type='mps', index=0)
"""),
    ("003-type-ordinal-cpu", "none", """
    >>> torch.device('cpu', 0)
    device(type='cpu', index=0)
"""),
    ("003-ordinal-cuda", "cuda", """
    >>> torch.device(0)  # the current accelerator is cuda
    device(type='cuda', index=0)
"""),
    ("003-ordinal-xpu", "xpu", """
    >>> torch.device(1)  # the current accelerator is xpu
    device(type='xpu', index=1)
"""),
    ("003-ordinal-none", "none", """
    >>> torch.device(0)  # no current accelerator detected
    Traceback (most recent call last):
      File "<stdin>", line 1, in <module>
    RuntimeError: Cannot access accelerator device when none is available.
"""),
    # ---- 002: PyTorch 1.x ----------------------------------------------------------------
    ("002-string-cuda0", "none", """
>>> torch.device('cuda:0')
device(type='cuda', index=0)
"""),
    ("002-string-cpu", "none", """
>>> torch.device('cpu')
device(type='cpu')
"""),
    ("002-string-cuda", "none", """
>>> torch.device('cuda') # current cuda device
device(type='cuda')
"""),
    ("002-type-ordinal-cuda", "none", """
>>> torch.device('cuda', 0)
device(type='cuda', index=0)
"""),
    ("002-type-ordinal-cpu", "none", """
>>> torch.device('cpu', 0)
device(type='cpu', index=0)
"""),
    # "treated as a cuda device" (legacy); newest PyTorch: the current accelerator, here cuda
    ("002-ordinal-legacy", "cuda", """
>>> torch.device(1)
device(type='cuda', index=1)
"""),
    # ---- 001: OneFlow, in the OneFlow mode ----------------------------------------------------
    ("001-string-cuda0", "oneflow", """
>>> oneflow.device('cuda:0')
device(type='cuda', index=0)
"""),
    ("001-string-cpu", "oneflow", """
>>> oneflow.device('cpu')
device(type='cpu', index=0)
"""),
    ("001-string-cuda", "oneflow", """
>>> oneflow.device('cuda')  # current cuda device
device(type='cuda', index=0)
"""),
    ("001-type-ordinal-cuda", "oneflow", """
>>> oneflow.device('cuda', 0)
device(type='cuda', index=0)
"""),
    ("001-type-ordinal-cpu", "oneflow", """
>>> oneflow.device('cpu', 0)
device(type='cpu', index=0)
"""),
    ("001-ordinal-legacy", "oneflow", """
>>> oneflow.device(1)
device(type='cuda', index=1)
"""),
]

# Examples that allocate tensors, verbatim. The pages print no output for them; a printed
# tensor is expected (matched with ELLIPSIS: "tensor(..., device='cuda:1')").
TENSOR_EXAMPLES = [
    ("003-context-manager", "cuda", """
    >>> with torch.device('cuda:1'):
    ...     r = torch.randn(2, 3)
    >>> r.device
    device(type='cuda', index=1)
"""),
    ("003-device-argument", "cuda", """
   >>> # Example of a function that takes in a torch.device
   >>> cuda1 = torch.device('cuda:1')
   >>> torch.randn((2,3), device=cuda1)
   tensor(..., device='cuda:1')

   >>> # You can substitute the torch.device with a string
   >>> torch.randn((2,3), device='cuda:1')
   tensor(..., device='cuda:1')
"""),
    ("003-device-argument-forms", "cuda", """
   >>> torch.randn((2,3), device=torch.device('cuda:1'))
   tensor(..., device='cuda:1')
   >>> torch.randn((2,3), device='cuda:1')
   tensor(..., device='cuda:1')
   >>> torch.randn((2,3), device=1)  # equivalent to 'cuda:1' if the current accelerator is cuda
   tensor(..., device='cuda:1')
"""),
    ("002-device-argument", "cuda", """
>>> # Example of a function that takes in a torch.device
>>> cuda1 = torch.device('cuda:1')
>>> torch.randn((2,3), device=cuda1)
tensor(..., device='cuda:1')
>>> # You can substitute the torch.device with a string
>>> torch.randn((2,3), device='cuda:1')
tensor(..., device='cuda:1')
"""),
    ("002-device-argument-forms", "cuda", """
>>> torch.randn((2,3), device=torch.device('cuda:1'))
tensor(..., device='cuda:1')
>>> torch.randn((2,3), device='cuda:1')
tensor(..., device='cuda:1')
>>> torch.randn((2,3), device=1) # legacy
tensor(..., device='cuda:1')
"""),
    ("001-device-argument", "oneflow", """
>>> # Example of a function that takes in a oneflow.device
>>> cuda1 = oneflow.device('cuda:1')
>>> oneflow.randn((2,3), device=cuda1)
tensor(..., device='cuda:1')
>>> # You can substitute the oneflow.device with a string
>>> oneflow.randn((2,3), device='cuda:1')
tensor(..., device='cuda:1')
"""),
    ("001-device-argument-forms", "oneflow", """
>>> oneflow.randn((2,3), device=oneflow.device('cuda:1'))
tensor(..., device='cuda:1')
>>> oneflow.randn((2,3), device='cuda:1')
tensor(..., device='cuda:1')
>>> oneflow.randn((2,3), device=1)  # legacy
tensor(..., device='cuda:1')
"""),
]


# Examples that add tensors: verbatim (results printed as above, on the current device
# cuda:0).
ARITH_EXAMPLES = [
    ("003-scalar-transfer-two-scalars", "cuda", """
   >>> # two scalars
   >>> torch.ones(()) + torch.ones(()).cuda()  # OK, scalar auto-transferred from CPU to GPU
   tensor(..., device='cuda:0')
   >>> torch.ones(()).cuda() + torch.ones(())  # OK, scalar auto-transferred from CPU to GPU
   tensor(..., device='cuda:0')
"""),
    ("003-scalar-transfer-cpu-scalar", "cuda", """
   >>> # one scalar (CPU), one vector (GPU)
   >>> torch.ones(()) + torch.ones(1).cuda()  # OK, scalar auto-transferred from CPU to GPU
   tensor(..., device='cuda:0')
   >>> torch.ones(1).cuda() + torch.ones(())  # OK, scalar auto-transferred from CPU to GPU
   tensor(..., device='cuda:0')
"""),
    ("003-scalar-transfer-gpu-scalar", "cuda", """
   >>> # one scalar (GPU), one vector (CPU)
   >>> torch.ones(()).cuda() + torch.ones(1)  # Fail, scalar not auto-transferred from GPU to CPU and non-scalar not auto-transferred from CPU to GPU
   Traceback (most recent call last):
   RuntimeError: ...
   >>> torch.ones(1) + torch.ones(()).cuda()  # Fail, scalar not auto-transferred from GPU to CPU and non-scalar not auto-transferred from CPU to GPU
   Traceback (most recent call last):
   RuntimeError: ...
"""),
]


@pytest.mark.parametrize("name,kind,text", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example(name, kind, text):
    run_example(text, kind, name)


@pytest.mark.parametrize("name,kind,text", TENSOR_EXAMPLES, ids=[e[0] for e in TENSOR_EXAMPLES])
def test_tensor_example(name, kind, text):
    run_example(text, kind, name)


@pytest.mark.parametrize("name,kind,text", ARITH_EXAMPLES, ids=[e[0] for e in ARITH_EXAMPLES])
def test_arithmetic_example(name, kind, text):
    run_example(text, kind, name)


def test_context_manager_half_of_the_003_example():
    """What `with torch.device('cuda:1'):` does to the default device itself: it is cuda:1
    inside the block, and back to cpu after it."""
    setup("cuda")
    with ctensor.device("cuda:1"):
        assert repr(ctensor.get_default_device()) == "device(type='cuda', index=1)"
    assert repr(ctensor.get_default_device()) == "device(type='cpu')"
