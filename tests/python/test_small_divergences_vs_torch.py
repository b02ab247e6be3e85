"""Small divergences from torch 1.13, each against torch itself: format() of tensors, alpha=None
in add/sub, meta tensors refused the dtypes cpu refuses, sparse COO is_contiguous / data_ptr,
Generator(device=) validated."""
import pytest

import ctensor
import torch
from test_tensor_common import same

# ---- format ---------------------------------------------------------------------------------

FORMAT_CASES = [
    (lambda L: L.tensor(2.5), ".2f"), (lambda L: L.tensor(7), "05d"), (lambda L: L.tensor(7), ".2f"),
    (lambda L: L.tensor(True), "d"), (lambda L: L.tensor(1 + 2j), ".1f"), (lambda L: L.tensor(2.5), ""),
    (lambda L: L.tensor([1.2345]), ".2f"), (lambda L: L.tensor([1.0, 2.0]), ".2f"),
    (lambda L: L.tensor([1.0, 2.0]), ""), (lambda L: L.tensor([1.2345]), ""),
    (lambda L: L.tensor([]), ".2f"), (lambda L: L.tensor([]), ""),
    (lambda L: L.ones(1, 1), ".2f"), (lambda L: L.tensor([1.5]), ">20"),
    (lambda L: L.ones((), device="meta"), ".2f"), (lambda L: L.ones(1, device="meta"), ".2f"),
    (lambda L: L.ones(1).to_sparse(), ".2f"),
]


@pytest.mark.parametrize("case", range(len(FORMAT_CASES)))
def test_format_like_torch(case):
    make, spec = FORMAT_CASES[case]
    same(lambda L: format(make(L), spec))
    same(lambda L: f"{make(L):{spec}}")


# ---- alpha=None -------------------------------------------------------------------------------

ALPHA_CALLS = [
    lambda L, a, b: L.add(a, b, alpha=None), lambda L, a, b: L.sub(a, b, alpha=None),
    lambda L, a, b: a.add(b, alpha=None), lambda L, a, b: a.clone().add_(b, alpha=None),
    lambda L, a, b: a.sub(b, alpha=None), lambda L, a, b: a.clone().sub_(b, alpha=None),
    lambda L, a, b: L.add(a, b, alpha=None, out=L.empty(2)), lambda L, a, b: L.add(a, 2, alpha=None),
    lambda L, a, b: L.sub(a, 2, alpha=None), lambda L, a, b: a.add(2, alpha=None),
    lambda L, a, b: L.add(a, b, alpha=2), lambda L, a, b: L.add(a, b, alpha="x"),
]


@pytest.mark.parametrize("case", range(len(ALPHA_CALLS)))
def test_alpha_none_like_torch(case):
    same(lambda L: ALPHA_CALLS[case](L, L.ones(2), L.ones(2)))


@pytest.mark.parametrize("name", ["subtract", "subtract_"])
def test_alpha_none_subtract(name):
    # torch lists its overloads ("invalid combination"); the type is what matters here
    for lib in (torch, ctensor):
        with pytest.raises(TypeError):
            getattr(lib.ones(2), name)(lib.ones(2), alpha=None)
    with pytest.raises(TypeError):
        ctensor.subtract(ctensor.ones(2), ctensor.ones(2), alpha=None)


# ---- meta runs cpu's dtype checks --------------------------------------------------------------

META_OPS = {
    "add": lambda L, a, b: L.add(a, b), "sub": lambda L, a, b: L.sub(a, b),
    "mul": lambda L, a, b: L.mul(a, b), "div": lambda L, a, b: L.div(a, b),
    "trunc": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "floor": lambda L, a, b: L.div(a, b, rounding_mode="floor"),
    "floordiv": lambda L, a, b: a // b, "truediv": lambda L, a, b: a / b,
    "add_": lambda L, a, b: a.add_(b), "floor_": lambda L, a, b: a.div_(b, rounding_mode="floor"),
}


def op_outcome(lib, op, dtype, device):
    a = lib.ones(2, dtype=getattr(lib, dtype), device=device)
    b = lib.ones(2, dtype=getattr(lib, dtype), device=device)
    try:
        r = META_OPS[op](lib, a, b)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return ("err", type(e), str(e))
    return ("ok", str(r.dtype).split(".")[1], tuple(r.shape))


@pytest.mark.parametrize("op", sorted(META_OPS))
@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "complex32", "float8_e4m3fn"])
def test_meta_refuses_what_cpu_refuses(op, dtype):
    assert op_outcome(ctensor, op, dtype, "meta") == op_outcome(ctensor, op, dtype, "cpu")


@pytest.mark.parametrize("op", sorted(META_OPS))
def test_bool_cpu_like_torch(op):
    got, want = op_outcome(ctensor, op, "bool", "cpu"), op_outcome(torch, op, "bool", "cpu")
    if want[0] == "err" and "not implemented for" in want[2]:
        want = ("err", NotImplementedError, want[2])  # newest PyTorch's exception type
    assert got == want


# ---- sparse COO -------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda L: L.ones(2).to_sparse().is_contiguous(),
    lambda L: L.ones(2, 2).to_sparse().is_contiguous(memory_format=L.contiguous_format),
    lambda L: L.ones(1, 2, 2, 2).to_sparse().is_contiguous(memory_format=L.channels_last),
    lambda L: L.ones(2).to_sparse().data_ptr(),
    lambda L: L.zeros(2, 3, layout=L.sparse_coo).data_ptr(),
    lambda L: L.ones(2, device="meta").data_ptr(),
], ids=["contig", "contig_fmt", "channels_last", "data_ptr", "zeros_data_ptr", "meta_data_ptr"])
def test_sparse_attributes_like_torch(call):
    same(call)


# ---- Generator(device=) -----------------------------------------------------------------------

GENERATOR_DEVICES = ["cpu", "cpu:1", "meta", "cuda", "cuda:0", "mps", "xla", "hpu", "junk", 1.5,
                     "cpu:-1", None]


@pytest.mark.parametrize("device", GENERATOR_DEVICES, ids=repr)
def test_generator_device_like_torch(device):
    same(lambda L: str(L.Generator(device=device).device))


@pytest.mark.parametrize("device", ["meta", "cuda"])
def test_generator_device_object_like_torch(device):
    same(lambda L: L.Generator(device=L.device(device)).device)
