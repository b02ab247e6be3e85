"""The layout and memory-format parts of the seed documentation pages, run with
`import ctensor as torch`.

The examples are the pages' text, verbatim, run through doctest (003 = newest PyTorch
"Tensor Attributes" source, 002 = the 1.x rendered page). The statements the pages make in
prose (the stride orders of each memory format, what preserve_format does, which layouts
exist) are checked as written, and against torch 1.13 where it runs them.
"""
import doctest

import pytest

import ctensor
import torch


def run_example(text, name):
    globs = {"torch": ctensor}
    test = doctest.DocTestParser().get_doctest(text, globs, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries > 0


EXAMPLES = [
    ("003-strides", """
    >>> x = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
    >>> x.stride()
    (5, 1)

    >>> x.t().stride()
    (1, 5)
"""),
    ("002-strides", """
>>> x = torch.Tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
>>> x.stride()
(5, 1)
>>> x.t().stride()
(1, 5)
"""),
]


@pytest.mark.parametrize("name,text", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example(name, text):
    run_example(text, name)


@pytest.mark.parametrize("lib", [ctensor, torch], ids=["ctensor", "torch"])
def test_example_values(lib):
    """The example's tensors hold what the page wrote (values through tolist)."""
    x = lib.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
    assert x.tolist() == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]
    assert x.t().tolist() == [[1, 6], [2, 7], [3, 8], [4, 9], [5, 10]]
    assert x.dtype == lib.int64
    y = lib.Tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
    assert y.dtype == lib.float32 and y.tolist() == [[float(v) for v in r] for r in x.tolist()]


def test_every_tensor_has_dtype_device_layout():
    """"Each torch.Tensor has a torch.dtype, torch.device, and torch.layout." """
    t = ctensor.ones(2)
    assert isinstance(t.dtype, ctensor.dtype) and isinstance(t.device, ctensor.device)
    assert isinstance(t.layout, ctensor.layout)


def test_layouts_of_the_page():
    """"Currently, we support torch.strided (dense Tensors) and have beta support for
    torch.sparse_coo (sparse COO Tensors)." Dense tensors are strided; sparse_coo exists as a
    layout (the sparse layer builds such tensors)."""
    assert ctensor.ones(2).layout is ctensor.strided
    assert repr(ctensor.strided) == "ctensor.strided"
    assert repr(ctensor.sparse_coo) == "ctensor.sparse_coo"
    assert type(ctensor.sparse_coo) is ctensor.layout


# ---- memory formats as the pages describe them --------------------------------------------------

def test_contiguous_format_strides_decrease():
    """contiguous_format: "Strides represented by values in decreasing order"."""
    for L in (ctensor, torch):
        s = L.empty(2, 3, 4, 5, memory_format=L.contiguous_format).stride()
        assert list(s) == sorted(s, reverse=True) and s == (60, 20, 5, 1)


def test_channels_last_strides():
    """channels_last: "strides[0] > strides[2] > strides[3] > strides[1] == 1 aka NHWC"."""
    for L in (ctensor, torch):
        s = L.empty(2, 3, 4, 5, memory_format=L.channels_last).stride()
        assert s[0] > s[2] > s[3] > s[1] == 1 and s == (60, 1, 15, 3)


def test_channels_last_3d_strides():
    """channels_last_3d (003): "strides[0] > strides[2] > strides[3] > strides[4] >
    strides[1] == 1 aka NDHWC order"."""
    s = ctensor.empty(2, 3, 4, 5, 6, memory_format=ctensor.channels_last_3d).stride()
    assert s[0] > s[2] > s[3] > s[4] > s[1] == 1
    assert s == torch.empty(2, 3, 4, 5, 6, memory_format=torch.channels_last_3d).stride()


def test_preserve_format():
    """preserve_format: "If input tensor is allocated in dense non-overlapping memory, the
    output tensor strides will be copied from the input. Otherwise output strides will follow
    torch.contiguous_format". The first half holds as written; for other inputs PyTorch
    (and ctensor) keeps the input's dimension order rather than falling back to
    contiguous strides, so that half is checked against torch itself."""
    for L in (ctensor, torch):
        dense = L.empty(2, 3, 4, 5).permute(0, 2, 3, 1)
        assert dense.clone(memory_format=L.preserve_format).stride() == dense.stride()
        assert L.empty_like(dense).stride() == dense.stride()
        sliced = L.empty(4, 6)[:, ::2]
        assert sliced.clone().stride() == (3, 1)  # contiguous here
    odd = [lambda L: L.empty(12, 6).t()[:, ::2],
           lambda L: L.empty(2, 3, 8, 10, memory_format=L.channels_last)[:, :2]]
    for make in odd:
        assert make(ctensor).clone().stride() == make(torch).clone().stride()


def test_memory_format_objects():
    for name in ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]:
        obj = getattr(ctensor, name)
        assert type(obj) is ctensor.memory_format and repr(obj) == "ctensor." + name
