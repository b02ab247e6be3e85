"""Helpers of the element-wise arithmetic tests (test_arith_*.py): building the same operands
in ctensor and in torch 1.13, running one call of add / sub / mul / div in any of its forms,
and comparing the outcomes.

A test case is plain data (`Case`): the op, its alpha / rounding_mode, two operands (`Operand`:
a tensor described by dtype, shape, the view operations that give it its strides, and a seed
for its values; or a Python scalar), the variant (function, method, operator, out=, in-place,
in-place operator) and, for out=, the out tensor. `run(lib, case)` realises the operands in
`lib` (ctensor or torch) and calls it; `arith_compare_util.check_case(case)` runs both and
compares:

* errors: the same exception type and message (torch's words translated to newest PyTorch's,
  see `torch_error`);
* results: the same shape, strides, storage offset, dtype and device, the same identity (an
  in-place form returns its self, out= returns out), and the same values: integers and bool
  bitwise; floating values bitwise where PyTorch's result is exactly rounded, else within
  `ulps` units in the last place of the computation dtype (arith_compare_util.tolerance says which
  is which);
  NaN in the same places;
* warnings: the same UserWarning texts (out= resizing).

Values are never hard-coded: torch 1.13 computes them. The only expectations written here are
the named newest-PyTorch rewrites of `torch_error`, `distinct` (warnings) and
arith_compare_util.newest_reduced_float.
"""
import dataclasses
import functools
import math
import re
import warnings
from typing import Any, Optional, Tuple

import ctensor
import torch
from test_tensor_common import ct_words, newest_type

# ---- dtypes -------------------------------------------------------------------------------

BOOL = ["bool"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex32", "complex64", "complex128"]
# The 13 dtypes torch 1.13 shares with ctensor. complex32 is in: torch 1.13 adds, subtracts
# and multiplies it on the CPU; true division of complex32 has no CPU kernel in 1.13 nor in
# newest PyTorch (div_true_kernel dispatches float, complex64/128, half, bfloat16 only):
# '"div_cpu" not implemented for 'ComplexHalf'' (NotImplementedError in newest).
DTYPES = BOOL + INTS + FLOATS + COMPLEX
HALF = {"float16", "bfloat16", "complex32"}
PRECISION = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53,
             "complex32": 11, "complex64": 24, "complex128": 53}
MIN_EXP = {"float16": -14, "bfloat16": -126, "float32": -126, "float64": -1022,
           "complex32": -14, "complex64": -126, "complex128": -1022}
INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1),
             "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
BITS_VIEW = {"float16": "int16", "bfloat16": "int16", "float32": "int32", "float64": "int64",
             "complex32": "int16", "complex64": "int32", "complex128": "int64"}


def dname(dtype):
    """'float32' for ctensor.float32 and torch.float32."""
    return str(dtype).split(".", 1)[1]


def libdtype(lib, name):
    return getattr(lib, name)


def is_int(name):
    return name in INTS


def is_float(name):
    return name in FLOATS


def is_complex(name):
    return name in COMPLEX


# ---- values ---------------------------------------------------------------------------------

def _special_floats(name):
    p, emin = PRECISION[name], MIN_EXP[name]
    if name in ("float16", "complex32"):
        big = 65504.0
    elif name in ("bfloat16",):
        big = float(torch.finfo(torch.bfloat16).max)
    elif name in ("float32", "complex64"):
        big = float(torch.finfo(torch.float32).max)
    else:
        big = float(torch.finfo(torch.float64).max)
    sub = 2.0 ** (emin - p + 1)
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, math.inf, -math.inf, math.nan, big, -big,
            sub, -sub, 2.0 ** emin, 1.0 + 2.0 ** (1 - p)]


INT_SPECIALS = [0, 1, -1, 2, -2, 7, -7]


@functools.lru_cache(maxsize=4096)
def _base(name, shape, seed, nonzero=False):
    """(contiguous torch tensor, its exact values as a flat list); values drawn from `seed`,
    a fifth of them special (extremes, zeros, infinities, NaN, subnormals). `nonzero`: no
    integral zeros (divisors that do not raise ZeroDivisionError)."""
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    dt = libdtype(torch, name)

    def rand(k):
        return torch.rand(k, generator=g, dtype=torch.float64)

    def pick(k, pool):
        pool = torch.tensor(pool, dtype=torch.float64 if isinstance(pool[0], float)
                            else torch.int64)
        return pool[torch.randint(len(pool), (k,), generator=g)]

    if name == "bool":
        t = (rand(n) < 0.5) | nonzero
    elif name in INTS:
        lo, hi = INT_RANGE[name]
        small = torch.randint(max(lo, -100), min(hi, 100) + 1, (n,), generator=g)
        full = torch.randint(lo, hi, (n,), generator=g)
        sp = pick(n, [x for x in INT_SPECIALS if lo <= x <= hi] + [lo, hi, lo + 1, hi - 1])
        t = torch.where(rand(n) < 0.7, small, full)
        t = torch.where(rand(n) < 0.2, sp, t)
        if nonzero:
            t = torch.where(t == 0, torch.ones_like(t), t)
        t = t.to(dt)
    else:
        k = 2 * n if name in COMPLEX else n
        sign = torch.where(rand(k) < 0.5, -1.0, 1.0).to(torch.float64)
        x = sign * torch.pow(10.0, rand(k) * 8 - 4)
        x = torch.where(rand(k) < 0.3,
                        torch.randint(-20, 21, (k,), generator=g).to(torch.float64), x)
        x = torch.where(rand(k) < 0.2, pick(k, _special_floats(name)).to(torch.float64), x)
        if name in COMPLEX:
            x = torch.view_as_complex(x.reshape(n, 2)).to(torch.complex64 if name ==
                                                          "complex32" else torch.complex128)
        t = x.to(dt)
    t = t.reshape(shape)
    return t, flat_values(t)


def torch_base(name, shape, seed):
    """A contiguous torch tensor of `shape` with values drawn from `seed`."""
    return _base(name, tuple(shape), seed)[0].clone()


def flat_values(t):
    """Exact Python values of a contiguous torch tensor, flattened."""
    if dname(t.dtype) == "complex32":
        return t.to(torch.complex64).reshape(-1).tolist()
    return t.reshape(-1).tolist()


# ---- operands -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Operand:
    """A tensor (dtype, base shape, view ops, seed) or a Python scalar (value)."""
    kind: str  # "tensor" or "scalar"
    dtype: str = ""
    base_shape: Tuple[int, ...] = ()
    views: Tuple[Any, ...] = ()
    seed: int = 0
    value: Any = None
    device: str = "cpu"
    nonzero: bool = False  # no integral zeros

    def __repr__(self):
        if self.kind == "scalar":
            return "scalar(%r)" % (self.value,)
        v = "".join("." + describe_view(x) for x in self.views)
        dev = "" if self.device == "cpu" else ", device=%r" % self.device
        nz = ", nonzero" if self.nonzero else ""
        return "T(%s%s, %s%s%s)%s" % (self.dtype, list(self.base_shape), self.seed, dev, nz, v)

    @property
    def shape(self):
        """The logical shape after the views (computed with torch on the meta device)."""
        if self.kind == "scalar":
            return None
        t = torch.empty(self.base_shape, device="meta")
        return tuple(apply_views(torch, t, self.views).shape)


def describe_view(v):
    if v[0] == "slice":
        return "[%s]" % ", ".join("%d:%d:%d" % s for s in v[1])
    if v[0] == "index":
        return "[%d]" % v[1]
    if v[0] == "cl":
        return "contiguous(channels_last)"
    return "%s%s" % (v[0], tuple(v[1]))


def apply_views(lib, t, views):
    for v in views:
        if v[0] == "permute":
            t = t.permute(*v[1])
        elif v[0] == "slice":
            t = t[tuple(slice(a, b, c) for a, b, c in v[1])]
        elif v[0] == "expand":
            t = t.expand(*v[1])
        elif v[0] == "index":
            t = t[v[1]]
        elif v[0] == "cl":
            t = t.contiguous(memory_format=lib.channels_last)
        else:
            raise AssertionError(v)
    return t


def realize(lib, op):
    """The operand as an object of `lib`."""
    if op.kind == "scalar":
        return op.value
    base, flat = _base(op.dtype, tuple(op.base_shape), op.seed, op.nonzero)
    if lib is torch:
        t = base.clone()
        if op.device != "cpu":
            t = t.to(op.device)
    else:
        t = ctensor.tensor(flat, dtype=libdtype(ctensor, op.dtype))
        t = t.reshape(op.base_shape)
        if op.device != "cpu":
            t = t.to(op.device)
    return apply_views(lib, t, op.views)


def tensor(dtype, shape, seed=0, views=(), device="cpu", nonzero=False):
    return Operand("tensor", dtype, tuple(shape), tuple(views), seed, device=device,
                   nonzero=nonzero)


def scalar(value):
    return Operand("scalar", value=value)


# ---- cases --------------------------------------------------------------------------------

NO = "<not passed>"

# variant -> what it calls
VARIANTS = ["function", "method", "operator", "out", "inplace", "inplace_operator"]
OPERATOR = {("add", NO): "+", ("sub", NO): "-", ("mul", NO): "*", ("div", NO): "/",
            ("div", None): "/", ("div", "floor"): "//"}


@dataclasses.dataclass(frozen=True)
class Case:
    op: str  # add / sub / mul / div
    a: Operand
    b: Operand
    variant: str = "function"
    alpha: Any = NO  # add / sub
    mode: Any = NO  # div: NO, None, 'trunc', 'floor' (or a wrong value)
    out: Optional[Operand] = None

    def __repr__(self):
        extra = ""
        if self.alpha is not NO:
            extra += ", alpha=%r" % (self.alpha,)
        if self.mode is not NO:
            extra += ", rounding_mode=%r" % (self.mode,)
        if self.out is not None:
            extra += ", out=%r" % (self.out,)
        return "%s[%s](%r, %r%s)" % (self.op, self.variant, self.a, self.b, extra)


def applicable(op, alpha, mode, a_kind, b_kind):
    """The variants that exist for these operands."""
    vs = []
    if a_kind == "scalar" and b_kind == "scalar":
        return ["function", "out"]
    vs += ["function", "out"]
    if a_kind == "tensor":
        vs += ["method", "inplace"]
    key = (op, mode)
    if alpha is NO and key in OPERATOR:
        vs.append("operator")
        if a_kind == "tensor":
            vs.append("inplace_operator")
    return vs


def _kwargs(case):
    kw = {}
    if case.alpha is not NO:
        kw["alpha"] = case.alpha
    if case.mode is not NO:
        kw["rounding_mode"] = case.mode
    return kw


def call(lib, case, a, b, out):
    """Run the case's call with realised operands; returns the result object."""
    kw = _kwargs(case)
    v = case.variant
    if v == "function":
        return getattr(lib, case.op)(a, b, **kw)
    if v == "out":
        return getattr(lib, case.op)(a, b, out=out, **kw)
    if v == "method":
        return getattr(a, case.op)(b, **kw)
    if v == "inplace":
        return getattr(a, case.op + "_")(b, **kw)
    sym = OPERATOR[(case.op, case.mode)]
    if v == "operator":
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "/": lambda: a / b, "//": lambda: a // b}[sym]()
    if v == "inplace_operator":
        x = a
        if sym == "+":
            x += b
        elif sym == "-":
            x -= b
        elif sym == "*":
            x *= b
        elif sym == "/":
            x /= b
        else:
            x //= b
        return x
    raise AssertionError(v)


# ---- outcomes -------------------------------------------------------------------------------

# Warnings that are torch 1.13 noise, not part of the op's behaviour.
NOISE = ("ComplexHalf support is experimental",)
TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.S)


def torch_error(exc_type, msg):
    """A torch 1.13 error as newest PyTorch (and so ctensor) raises it. Named rewrites:
    - torch's type names in ctensor's words, C++ type spelling "c10::Half" (1.13 spells it
      "at::Half"):
      test_tensor_common.ct_words;
    - a kernel missing for a dtype is NotImplementedError in newest PyTorch, RuntimeError in
      1.13: test_tensor_common.newest_type;
    - "Trying to pass too many CPU scalars to CUDA kernel!" is "... to non-CPU kernel!"
      (the cross-device rule)."""
    msg = ct_words(msg).replace("CPU scalars to CUDA kernel!", "CPU scalars to non-CPU kernel!")
    return newest_type(exc_type, msg), msg


def torch_warning(msg):
    """newest PyTorch appends where in its C++ a warning was raised; ctensor does not."""
    return TRIGGERED.sub("", msg)


def distinct(texts):
    """Warning texts without repeats, in order. PyTorch (1.13 and newest: TensorIterator's
    set_output_raw_strided resizes the temporary it computes in as well as the out tensor)
    warns twice about one out= resize when out's dtype is not the computation dtype; the
    texts are the same, and Python's default warning filter shows them once."""
    return tuple(dict.fromkeys(texts))


@dataclasses.dataclass
class Outcome:
    error: Optional[Tuple[type, str]] = None
    result: Any = None  # the returned object
    target: Any = None  # what identity it must have: self (in-place), out (out=), or None
    warnings: Tuple[str, ...] = ()


def run(lib, case):
    a, b = realize(lib, case.a), realize(lib, case.b)
    out = realize(lib, case.out) if case.out is not None else None
    target = a if case.variant.startswith("inplace") else out if case.variant == "out" else None
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = call(lib, case, a, b, out)
            err = None
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            r, err = None, (type(e), str(e))
    texts = tuple(str(x.message) for x in w if not str(x.message).startswith(NOISE))
    if lib is torch:
        texts = distinct(torch_warning(t) for t in texts)
        if err is not None:
            err = torch_error(*err)
    return Outcome(err, r, target, texts)


# ---- computation dtype -----------------------------------------------------------------------

def operand_dtype(x):
    """The dtype of a torch operand; a Python number's as a wrapped number (bool, int64, float64
    or complex128)."""
    if isinstance(x, torch.Tensor):
        return dname(x.dtype)
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int64"
    if isinstance(x, float):
        return "float64"
    return "complex128"


def computation_dtype(case, ta, tb):
    """The dtype the op computes in, as TensorIterator picks it: the inputs' common dtype
    (result_type only when their dtypes differ, so two Python floats compute in float64), or
    the default dtype for true division of integers / bool. ta, tb: torch operands."""
    da, db = operand_dtype(ta), operand_dtype(tb)
    name = da if da == db else dname(torch.result_type(ta, tb))
    if case.op == "div" and case.mode in (NO, None) and (name == "bool" or name in INTS):
        name = dname(torch.get_default_dtype())
    return name


def _as_tensor_operand(x):
    if isinstance(x, torch.Tensor):
        return x
    return torch.tensor(x, dtype=libdtype(torch, operand_dtype(x)))


# ---- INT_MIN / -1 ---------------------------------------------------------------------------

def int_min_hazard(case, ta, tb):
    """True if torch would divide INT_MIN by -1 in int32 / int64 (it dies of SIGFPE, spec
    PyTorch does not define it): never send such a case to torch."""
    if case.op != "div" or case.mode not in ("trunc", "floor"):
        return False
    if any(isinstance(x, torch.Tensor) and x.device.type != "cpu" for x in (ta, tb)):
        return False  # no values
    try:
        comp = computation_dtype(case, ta, tb)
    except RuntimeError:
        return False
    if comp not in ("int32", "int64"):
        return False
    try:
        xa = _as_tensor_operand(ta).to(libdtype(torch, comp))
        xb = _as_tensor_operand(tb).to(libdtype(torch, comp))
        xa, xb = torch.broadcast_tensors(xa, xb)
    except RuntimeError:
        return False
    lo = INT_RANGE[comp][0]
    return bool(((xa == lo) & (xb == -1)).any())


# ---- fixed op forms ---------------------------------------------------------------------------

# (op, alpha, mode)
OP_FORMS = [("add", NO, NO), ("add", 2, NO), ("sub", NO, NO), ("sub", -3, NO), ("mul", NO, NO),
            ("div", NO, NO), ("div", NO, "trunc"), ("div", NO, "floor")]


def op_form_id(f):
    op, alpha, mode = f
    return op + ("" if alpha is NO else "-alpha%s" % alpha) + ("" if mode is NO else "-" + mode)


def safe(case):
    """The case, or with other values if torch would divide INT_MIN by -1 (never sent)."""
    while int_min_hazard(case, realize(torch, case.a), realize(torch, case.b)):
        case = dataclasses.replace(case, a=dataclasses.replace(case.a, seed=case.a.seed + 1000))
    return case
