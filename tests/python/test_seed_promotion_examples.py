"""The type-promotion and casting examples of the five seed documentation pages, run as written
with `import ctensor as torch` (and `import ctensor as oneflow` in the OneFlow mode).

Pages: 003 = newest PyTorch "Tensor Attributes" (source), 002 = PyTorch 1.x page (rendered),
004 = the 2019 change that introduced the rules (its page as it was then, and the examples of
its commit message), 000 = OneFlow's page source, 001 = OneFlow's page rendered.

Each example block is the page's text, verbatim, run through doctest, with three mechanical
readings a REPL session needs, done by `session()`:
* a comment line of the block ("# zero-dim tensors") is a comment statement (">>> # ..."),
  so doctest does not take it for the previous statement's output;
* the pages print dtypes with their module's name ("torch.int64", "oneflow.int64"); ctensor's
  dtypes print as "ctensor.int64": the checker reads the page's module prefix as "ctensor.";
* the "disallowed" casting statements are stated by the page to raise "RuntimeError: result
  type can't be cast to the desired output type"; the expected traceback is inserted after
  each with PyTorch's exact message ("result type X can't be cast to the desired output type
  Y") or, in the OneFlow mode, OneFlow's.
OneFlow's page 000 is stored as one line; its blocks are given with the line breaks of the
reStructuredText source restored (they are 001's blocks with 000's outputs). 001 (rendered)
shows no outputs; the outputs are 000's.

The PyTorch pages' blocks also run with torch 1.13 itself (`lib=torch`): what they print
there is what they print with ctensor (1.13 and newest agree on all of them).
"""
import doctest
import re

import pytest

import ctensor
import torch

# ---- the pages' blocks, verbatim ------------------------------------------------------------

P003_PROMOTION = """
    >>> float_tensor = torch.ones(1, dtype=torch.float)
    >>> double_tensor = torch.ones(1, dtype=torch.double)
    >>> complex_float_tensor = torch.ones(1, dtype=torch.complex64)
    >>> complex_double_tensor = torch.ones(1, dtype=torch.complex128)
    >>> int_tensor = torch.ones(1, dtype=torch.int)
    >>> long_tensor = torch.ones(1, dtype=torch.long)
    >>> uint_tensor = torch.ones(1, dtype=torch.uint8)
    >>> bool_tensor = torch.ones(1, dtype=torch.bool)
    # zero-dim tensors
    >>> long_zerodim = torch.tensor(1, dtype=torch.long)
    >>> int_zerodim = torch.tensor(1, dtype=torch.int)

    >>> torch.add(5, 5).dtype
    torch.int64
    # 5 is an int64, but does not have higher category than int_tensor so is not considered.
    >>> (int_tensor + 5).dtype
    torch.int32
    >>> (int_tensor + long_zerodim).dtype
    torch.int32
    >>> (long_tensor + int_tensor).dtype
    torch.int64
    >>> (bool_tensor + long_tensor).dtype
    torch.int64
    >>> (bool_tensor + uint_tensor).dtype
    torch.uint8
    >>> (float_tensor + double_tensor).dtype
    torch.float64
    >>> (complex_float_tensor + complex_double_tensor).dtype
    torch.complex128
    >>> (bool_tensor + int_tensor).dtype
    torch.int32
    # Since long is a different kind than float, result dtype only needs to be large enough
    # to hold the float.
    >>> torch.add(long_tensor, float_tensor).dtype
    torch.float32
"""

P003_CASTING = """
    # allowed:
    >>> float_tensor *= float_tensor
    >>> float_tensor *= int_tensor
    >>> float_tensor *= uint_tensor
    >>> float_tensor *= bool_tensor
    >>> float_tensor *= double_tensor
    >>> int_tensor *= long_tensor
    >>> int_tensor *= uint_tensor
    >>> uint_tensor *= int_tensor

    # disallowed (RuntimeError: result type can't be cast to the desired output type):
    >>> int_tensor *= float_tensor
    >>> bool_tensor *= int_tensor
    >>> bool_tensor *= uint_tensor
    >>> float_tensor *= complex_float_tensor
"""

P002_PROMOTION = """
>>> float_tensor = torch.ones(1, dtype=torch.float)
>>> double_tensor = torch.ones(1, dtype=torch.double)
>>> complex_float_tensor = torch.ones(1, dtype=torch.complex64)
>>> complex_double_tensor = torch.ones(1, dtype=torch.complex128)
>>> int_tensor = torch.ones(1, dtype=torch.int)
>>> long_tensor = torch.ones(1, dtype=torch.long)
>>> uint_tensor = torch.ones(1, dtype=torch.uint8)
>>> double_tensor = torch.ones(1, dtype=torch.double)
>>> bool_tensor = torch.ones(1, dtype=torch.bool)
# zero-dim tensors
>>> long_zerodim = torch.tensor(1, dtype=torch.long)
>>> int_zerodim = torch.tensor(1, dtype=torch.int)
>>> torch.add(5, 5).dtype
torch.int64
# 5 is an int64, but does not have higher category than int_tensor so is not considered.
>>> (int_tensor + 5).dtype
torch.int32
>>> (int_tensor + long_zerodim).dtype
torch.int32
>>> (long_tensor + int_tensor).dtype
torch.int64
>>> (bool_tensor + long_tensor).dtype
torch.int64
>>> (bool_tensor + uint_tensor).dtype
torch.uint8
>>> (float_tensor + double_tensor).dtype
torch.float64
>>> (complex_float_tensor + complex_double_tensor).dtype
torch.complex128
>>> (bool_tensor + int_tensor).dtype
torch.int32
# Since long is a different kind than float, result dtype only needs to be large enough
# to hold the float.
>>> torch.add(long_tensor, float_tensor).dtype
torch.float32
"""

P002_CASTING = """
# allowed:
>>> float_tensor *= double_tensor
>>> float_tensor *= int_tensor
>>> float_tensor *= uint_tensor
>>> float_tensor *= bool_tensor
>>> float_tensor *= double_tensor
>>> int_tensor *= long_tensor
>>> int_tensor *= uint_tensor
>>> uint_tensor *= int_tensor
# disallowed (RuntimeError: result type can't be cast to the desired output type):
>>> int_tensor *= float_tensor
>>> bool_tensor *= int_tensor
>>> bool_tensor *= uint_tensor
>>> float_tensor *= complex_float_tensor
"""

P004_PROMOTION = """
>>> float_tensor = torch.ones(1, dtype=torch.float)
>>> double_tensor = torch.ones(1, dtype=torch.double)
>>> int_tensor = torch.ones(1, dtype=torch.int)
>>> long_tensor = torch.ones(1, dtype=torch.long)
>>> uint_tensor = torch.ones(1, dtype=torch.uint8)
>>> double_tensor = torch.ones(1, dtype=torch.double)
>>> bool_tensor = torch.ones(1, dtype=torch.bool)
# zero-dim tensors
>>> long_zerodim = torch.tensor(1, dtype=torch.long)
>>> int_zerodim = torch.tensor(1, dtype=torch.int)
>>> torch.add(5, 5).dtype
torch.int64
# 5 is an int64, but does not have higher category than int_tensor so is not considered.
>>> (int_tensor + 5).dtype
torch.int32
>>> (int_tensor + long_zerodim).dtype
torch.int32
>>> (long_tensor + int_tensor).dtype
torch.int64
>>> (bool_tensor + long_tensor).dtype
torch.int64
>>> (bool_tensor + uint_tensor).dtype
torch.uint8
>>> (float_tensor + double_tensor).dtype
torch.float64
>>> (bool_tensor + int_tensor).dtype
torch.int32
# Since long is a different kind than float, result dtype only needs to be large enough
# to hold the float.
>>> torch.add(long_tensor, float_tensor).dtype
torch.float32
"""

P004_CASTING = """
# allowed:
>>> float_tensor *= double_tensor
>>> float_tensor *= int_tensor
>>> float_tensor *= uint_tensor
>>> float_tensor *= bool_tensor
>>> float_tensor *= double_tensor
>>> int_tensor *= long_tensor
>>> int_tensor *= uint_tensor
>>> uint_tensor *= int_tensor
# disallowed (RuntimeError: result type can't be cast to the desired output type):
>>> int_tensor *= float_tensor
>>> bool_tensor *= int_tensor
>>> bool_tensor *= uint_tensor
"""

# The commit message of 004: "Previously `torch.tensor(10) * 1.9` => `tensor(10)` because the
# 1.9 was downcast to `1`. Now the result will be the more intuitive `tensor(19)`" and "Now
# `int_tensor *= float` will error, since the floating point result of this operation can't
# be cast into the in-place integral type result." Written as a session (the message gives
# the statements and their results in prose; tensor(19) prints as tensor(19.), a float32).
P004_COMMIT = """
>>> torch.tensor(10) * 1.9
tensor(19.)
>>> int_tensor = torch.ones(1, dtype=torch.int)
>>> (int_tensor * 1.9).dtype
torch.float32
>>> int_tensor *= 1.9
"""

# OneFlow's page source (000), its blocks with the source's line breaks restored.
P000_PROMOTION = """
>>> float_tensor = oneflow.ones(1, dtype=oneflow.float)
>>> double_tensor = oneflow.ones(1, dtype=oneflow.double)
>>> int_tensor = oneflow.ones(1, dtype=oneflow.int)
>>> long_tensor = oneflow.ones(1, dtype=oneflow.long)
>>> uint_tensor = oneflow.ones(1, dtype=oneflow.uint8)
>>> double_tensor = oneflow.ones(1, dtype=oneflow.double)
>>> bool_tensor = oneflow.ones(1, dtype=oneflow.bool)
# zero-dim tensors
>>> long_zerodim = oneflow.tensor(1, dtype=oneflow.long)
>>> int_zerodim = oneflow.tensor(1, dtype=oneflow.int)
>>> a,b=oneflow.tensor(5),oneflow.tensor(5)
>>> oneflow.add(a, b).dtype
oneflow.int64
# 5 is an int64, but does not have higher category than int_tensor so is not considered.
>>> (int_tensor + 5).dtype
oneflow.int32
>>> (int_tensor + long_zerodim).dtype
oneflow.int64
>>> (long_tensor + int_tensor).dtype
oneflow.int64
>>> (bool_tensor + long_tensor).dtype
oneflow.int64
>>> (bool_tensor + uint_tensor).dtype
oneflow.uint8
>>> (float_tensor + double_tensor).dtype
oneflow.float64
>>> (bool_tensor + int_tensor).dtype
oneflow.int32
# Since long is a different kind than float, result dtype only needs to be large enough
# to hold the float.
>>> oneflow.add(long_tensor, float_tensor).dtype
oneflow.float32
"""

P000_CASTING = """
# allowed:
>>> float_tensor *= float_tensor
>>> float_tensor *= int_tensor
>>> float_tensor *= uint_tensor
>>> float_tensor *= bool_tensor
>>> int_tensor *= uint_tensor
# disallowed (RuntimeError: result type can't be cast to the desired output type):
>>> float_tensor *= double_tensor
>>> int_tensor *= float_tensor
>>> int_tensor *= long_tensor
>>> uint_tensor *= int_tensor
>>> bool_tensor *= int_tensor
>>> bool_tensor *= uint_tensor
"""

# 001 (rendered): the same statements, no outputs printed; the outputs are 000's.
P001_PROMOTION = P000_PROMOTION
P001_CASTING = P000_CASTING

# The page's "disallowed" statements and the error each raises: PyTorch's message
# and, in the OneFlow mode, OneFlow's (in-place ops never cast there, shared/spec
# OneFlow's in-place casting; dtype names as OneFlow prints them).
PYTORCH_RAISES = {
    "int_tensor *= float_tensor": "result type Float can't be cast to the desired output type Int",
    "bool_tensor *= int_tensor": "result type Int can't be cast to the desired output type Bool",
    "bool_tensor *= uint_tensor": "result type Byte can't be cast to the desired output type Bool",
    "float_tensor *= complex_float_tensor":
        "result type ComplexFloat can't be cast to the desired output type Float",
    "int_tensor *= 1.9": "result type Float can't be cast to the desired output type Int",
}
ONEFLOW_RAISES = {
    "float_tensor *= double_tensor": ("float64", "float32"),
    "int_tensor *= float_tensor": ("float32", "int32"),
    "int_tensor *= long_tensor": ("int64", "int32"),
    "uint_tensor *= int_tensor": ("int32", "uint8"),
    "bool_tensor *= int_tensor": ("int32", "bool"),
    "bool_tensor *= uint_tensor": ("uint8", "bool"),
}
ONEFLOW_RAISES = {k: "result type oneflow.%s can't be cast to the desired output type "
                     "oneflow.%s" % v for k, v in ONEFLOW_RAISES.items()}


# ---- running them ----------------------------------------------------------------------------

def session(text, raises):
    """The block as a REPL session: comment lines become comment statements, and each
    statement of `raises` gets its expected traceback."""
    out = []
    for line in text.split("\n"):
        indent = line[:len(line) - len(line.lstrip())]
        body = line.strip()
        if body.startswith("#"):
            out.append(indent + ">>> " + body)
            continue
        out.append(line)
        stmt = body[4:] if body.startswith(">>> ") else None
        if stmt in raises:
            out += [indent + "Traceback (most recent call last):", indent + "    ...",
                    indent + "RuntimeError: " + raises[stmt]]
    return "\n".join(out)


class ModuleNames(doctest.OutputChecker):
    """Reads the page's "torch." / "oneflow." before a dtype name as the module at hand."""

    def __init__(self, module):
        self.module = module

    def check_output(self, want, got, optionflags):
        want = re.sub(r"^(torch|oneflow)\.(?=[a-z0-9]+$)", self.module + ".", want,
                      flags=re.M)
        return super().check_output(want, got, optionflags)


def run_blocks(name, blocks, lib=ctensor, mode="pytorch", raises=PYTORCH_RAISES):
    """Run the page's blocks in one session (the casting block uses the promotion block's
    tensors). Returns the number of statements run."""
    ctensor.set_compat_mode(mode)
    try:
        globs = {"torch": lib, "oneflow": lib}
        text = "\n".join(session(b, raises) for b in blocks)
        test = doctest.DocTestParser().get_doctest(text, globs, name, None, 0)
        runner = doctest.DocTestRunner(checker=ModuleNames(lib.__name__),
                                       optionflags=doctest.ELLIPSIS)
        out = []
        runner.run(test, out=out.append)
        assert runner.failures == 0, "".join(out)
        comments = sum(1 for e in test.examples if e.source.lstrip().startswith("#"))
        return runner.tries - comments
    finally:
        ctensor.set_compat_mode("pytorch")


def statements(blocks):
    return sum(1 for b in blocks for line in b.split("\n") if line.strip().startswith(">>> "))


PYTORCH_PAGES = [
    ("003-promotion-and-casting", [P003_PROMOTION, P003_CASTING]),
    ("002-promotion-and-casting", [P002_PROMOTION, P002_CASTING]),
    ("004-promotion-and-casting", [P004_PROMOTION, P004_CASTING]),
    ("004-commit-message", [P004_COMMIT]),
]
ONEFLOW_PAGES = [
    ("000-promotion-and-casting", [P000_PROMOTION, P000_CASTING]),
    ("001-promotion-and-casting", [P001_PROMOTION, P001_CASTING]),
]
# The pages' statements (">>> " lines; promotion block + casting block), the report's count:
# 003: 20 + 12, 002: 21 + 12, 004: 18 + 11 (+ 4 from its commit message), 000: 19 + 11,
# 001: 19 + 11.
COUNTS = {"003-promotion-and-casting": 32, "002-promotion-and-casting": 33,
          "004-promotion-and-casting": 29, "004-commit-message": 4,
          "000-promotion-and-casting": 30, "001-promotion-and-casting": 30}


@pytest.mark.parametrize("name,blocks", PYTORCH_PAGES, ids=[p[0] for p in PYTORCH_PAGES])
def test_pytorch_page_examples(name, blocks):
    assert run_blocks(name, blocks) == COUNTS[name] == statements(blocks)


@pytest.mark.parametrize("name,blocks", PYTORCH_PAGES, ids=[p[0] for p in PYTORCH_PAGES])
def test_pytorch_page_examples_in_torch(name, blocks):
    """The same sessions with torch 1.13: the expectations are PyTorch's."""
    assert run_blocks(name, blocks, lib=torch) == COUNTS[name]


@pytest.mark.parametrize("name,blocks", ONEFLOW_PAGES, ids=[p[0] for p in ONEFLOW_PAGES])
def test_oneflow_page_examples_in_oneflow_mode(name, blocks):
    """OneFlow's pages in the OneFlow mode: int32 tensor + int64 0-dim tensor is int64
    (0-dim tensors promote like dimensioned ones), and in-place ops do not cast (float *=
    double, int *= long, uint8 *= int raise)."""
    assert run_blocks(name, blocks, mode="oneflow", raises=ONEFLOW_RAISES) == COUNTS[name] == \
        statements(blocks)


def test_oneflow_differences_are_only_in_the_oneflow_mode():
    """The OneFlow pages' statements whose results differ from PyTorch's give PyTorch's
    results in the default mode."""
    i32 = ctensor.ones(1, dtype=ctensor.int)
    assert (i32 + ctensor.tensor(1, dtype=ctensor.long)).dtype is ctensor.int32
    f = ctensor.ones(1)
    f *= ctensor.ones(1, dtype=ctensor.double)
    i32 *= ctensor.ones(1, dtype=ctensor.long)
    u8 = ctensor.ones(1, dtype=ctensor.uint8)
    u8 *= ctensor.ones(1, dtype=ctensor.int)
    assert (f.dtype, i32.dtype, u8.dtype) == (ctensor.float32, ctensor.int32, ctensor.uint8)


def test_oneflow_mode_keeps_the_other_rules():
    """In the OneFlow mode the remaining promotion rules are PyTorch's: a Python int does not
    widen an int32 tensor, casting out= still follows can_cast, and 1-D tensors promote."""
    ctensor.set_compat_mode("oneflow")
    try:
        i32 = ctensor.ones(2, dtype=ctensor.int32)
        assert (i32 + 5).dtype is ctensor.int32
        assert (i32 + ctensor.ones(2, dtype=ctensor.int64)).dtype is ctensor.int64
        assert ctensor.add(i32, i32, out=ctensor.empty(2)).dtype is ctensor.float32
        i32 *= ctensor.ones(2, dtype=ctensor.uint8)  # int *= uint8 is allowed
        assert i32.tolist() == [1, 1]
    finally:
        ctensor.set_compat_mode("pytorch")


# ---- what the pages state in prose -----------------------------------------------------------

@pytest.mark.parametrize("default", ["float32", "float64", "float16", "bfloat16"])
def test_float_scalar_has_the_default_dtype(default):
    """"A floating point scalar operand has dtype torch.get_default_dtype() and an integral
    non-boolean scalar operand has dtype torch.int64." (003, 002, 004; OneFlow's too)."""
    for L in (ctensor, torch):
        L.set_default_dtype(getattr(L, default))
        t = L.ones(1, dtype=L.int32)
        assert str((t + 5.5).dtype).split(".")[1] == default
        assert str((L.ones(1, dtype=L.bool) + 5).dtype).split(".")[1] == "int64"
        assert str(L.result_type(t, 2.5)).split(".")[1] == default


def test_values_are_not_inspected():
    """"Unlike numpy, we do not inspect values when determining the minimum dtypes of an
    operand": uint8 + 1000 stays uint8 (and wraps), int32 + 2**40 stays int32."""
    for L in (ctensor, torch):
        assert (L.ones(1, dtype=L.uint8) + 1000).tolist() == [233]
        assert (L.ones(1, dtype=L.int32) + 2**40).dtype == L.int32
        assert (L.ones(1, dtype=L.float16) + L.tensor(1e10, dtype=L.float64)).dtype == L.float16


def test_out_casting_rules_of_the_pages():
    """"When the output tensor of an arithmetic operation is specified, we allow casting to
    its dtype except that: An integral output tensor cannot accept a floating point tensor. A
    boolean output tensor cannot accept a non-boolean tensor. A non-complex output tensor cannot
    accept a complex tensor" — with out= (the pages' examples use *=)."""
    cases = [("float32", "int32", False), ("int64", "bool", False), ("int32", "bool", False),
             ("complex64", "float64", False), ("int64", "float16", True),
             ("bool", "bool", True), ("float64", "complex64", True), ("int64", "int8", True)]
    for src, out, ok in cases:
        for L in (ctensor, torch):
            x = L.ones(2, dtype=getattr(L, src))
            o = L.empty(2, dtype=getattr(L, out))
            if ok:
                assert L.add(x, x, out=o) is o
            else:
                with pytest.raises(RuntimeError, match="can't be cast to the desired output"):
                    L.add(x, x, out=o)
