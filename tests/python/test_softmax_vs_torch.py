"""softmax and log_softmax (functions and methods) against torch 1.13 and a float64 reference:
every dim (negative ones too) of 0-dim, empty, one-element and larger inputs in contiguous,
transposed, channels_last, expanded and sliced layouts; dtype=; out= (resize warning, dtype
error); NaN, infinities and values that would overflow exp; the result's dtype, shape and
strides (always contiguous, as torch's); errors with torch's type and message; the meta device
and the emulated accelerator.

Values: torch computes float32 with its own vectorised exp and sums, so results are compared
within a few ulps, both against torch and against the float64 computation rounded to the
dtype. float16 has no CPU kernel in torch 1.13 (newest PyTorch has one, computing in float32
as bfloat16 does): the expected value is torch's float32 result rounded to float16."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch
from arith_util import torch_error

FLOATS = ["float32", "float64", "bfloat16", "float16"]
# relative tolerance per dtype (a few ulps: exp and the sum are each rounded)
RTOL = {"float32": 8 * 2.0 ** -24, "float64": 8 * 2.0 ** -53, "bfloat16": 2 * 2.0 ** -8,
        "float16": 2 * 2.0 ** -11}


def to_ct(t):
    """The same values (bytes) as a ctensor tensor of the same dtype, shape and strides."""
    name = str(t.dtype).replace("torch.", "")
    flat = t.contiguous().reshape(-1)
    raw = flat.view(torch.uint8).tolist() if flat.numel() else []
    c = ctensor.tensor(raw, dtype=ctensor.uint8).view(getattr(ctensor, name))
    c = c.reshape(tuple(t.shape))
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) and \
            not t.is_contiguous():
        c = c.contiguous(memory_format=ctensor.channels_last)
    return c


def layouts(L, t):
    """t (3-D or 4-D) in several layouts, made with library L's own ops (same values)."""
    out = {"contiguous": t}
    out["transposed"] = t.transpose(0, -1).contiguous().transpose(0, -1)
    if t.dim() == 4:
        out["channels_last"] = t.contiguous(memory_format=L.channels_last)
    out["sliced"] = L.cat([t, t], -1)[..., ::2]
    out["expanded"] = t[:1].expand(tuple(t.shape))
    return out


def reference(t, dim, log):
    """The computation in x87 extended precision (numpy's longdouble), as a float64 list:
    y = x - max, then exp(y) / sum(exp(y)) or y - log(sum(exp(y)))."""
    x = np.asarray(t.double().tolist(), dtype=np.longdouble).reshape(tuple(t.shape))
    if x.size == 0:
        return t.double().tolist()
    if x.ndim == 0:
        x = x.reshape(1)
        dim = 0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        y = x - np.max(x, axis=dim, keepdims=True)
        e = np.exp(y)
        s = np.sum(e, axis=dim, keepdims=True)
        r = y - np.log(s) if log else e / s
    return r.astype(np.float64).reshape(tuple(t.shape)).tolist()


def torch_scale(t):
    """torch's log_softmax adds max + log(sum) before subtracting it from x: an error of an ulp
    of the largest |x|, which the comparison with torch allows."""
    v = np.asarray(t.double().tolist(), dtype=np.float64)
    v = v[np.isfinite(v)]
    return 1.0 + (float(np.max(np.abs(v))) if v.size else 0.0)


def close(got, want, dtype, log=False, scale=1.0):
    """Equal NaN positions, equal infinities, else within RTOL (absolute near 0). log_softmax
    is x - max - log(sum): the rounding of the sum is an absolute error of log(sum), so its
    tolerance is RTOL * (1 + |value|)."""
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape
    assert (np.isnan(g) == np.isnan(w)).all()
    fin = np.isfinite(w)
    assert (g[~fin & ~np.isnan(w)] == w[~fin & ~np.isnan(w)]).all()
    floor = scale if log else 1.0 if dtype == "float64" else 2.0 ** -10
    tol = RTOL[dtype] * (np.abs(w[fin]) + floor if log else np.maximum(np.abs(w[fin]), floor))
    assert (np.abs(g[fin] - w[fin]) <= tol).all(), np.max(np.abs(g[fin] - w[fin]) - tol)


def torch_result(op, t, dim, dtype):
    """torch 1.13's result, or newest PyTorch's for float16 (float32, rounded once)."""
    if dtype == "float16":
        return getattr(torch, op)(t.float(), dim).half()
    return getattr(torch, op)(t, dim)


def check(op, t, c, dim, dtype, layout_name="contiguous"):
    """t (torch) and c (ctensor): the same values of `dtype`, maybe in another layout."""
    got = getattr(ctensor, op)(c, dim)
    want = torch_result(op, t, dim, dtype)
    assert str(got.dtype) == "ctensor." + dtype
    assert tuple(got.shape) == tuple(want.shape)
    assert got.is_contiguous(), layout_name
    g = got.float().tolist() if dtype in ("bfloat16", "float16") else got.tolist()
    w = want.float().tolist() if dtype in ("bfloat16", "float16") else want.tolist()
    log = op == "log_softmax"
    close(g, w, dtype, log, torch_scale(t))
    # and against the computation in extended precision
    close(g, reference(t, dim, log), dtype, log)
    # the method form gives the same bytes
    assert getattr(c, op)(dim).tolist() == got.tolist()


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 1, 7), (1,), (4, 129)])
def test_every_dim_and_layout(op, dtype, shape):
    g = torch.Generator().manual_seed(len(shape) * 7 + FLOATS.index(dtype))
    base = (torch.randn(shape, generator=g, dtype=torch.float64) * 4).to(getattr(torch, dtype))
    if base.dim() >= 3:
        tv, cv = layouts(torch, base), layouts(ctensor, to_ct(base))
    else:
        tv, cv = {"contiguous": base}, {"contiguous": to_ct(base)}
    for name in tv:
        t, c = tv[name], cv[name]
        assert tuple(c.stride()) == tuple(t.stride()), name
        for dim in range(-t.dim(), t.dim()):
            check(op, t, c, dim, dtype, name)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_special_values(op):
    inf, nan = math.inf, math.nan
    rows = [[1.0, 2.0, 3.0], [-inf, 0.0, 1.0], [-inf, -inf, -inf], [nan, 1.0, 2.0],
            [inf, 1.0, 2.0], [1e30, 1e30, -1e30], [-1e30, -1e30, 0.0], [0.0, 0.0, 0.0],
            [88.0, 89.0, 90.0], [-1000.0, 0.0, 1000.0]]
    for dtype in ["float32", "float64", "bfloat16"]:
        t = torch.tensor(rows, dtype=getattr(torch, dtype))
        for dim in (0, 1):
            got = getattr(ctensor, op)(to_ct(t), dim)
            want = getattr(torch, op)(t, dim)
            close(got.float().tolist(), want.float().tolist(), dtype, op == "log_softmax")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_zero_dim_empty_and_one_element(op):
    for t in [torch.tensor(3.5), torch.tensor(-math.inf), torch.ones(0, 3), torch.ones(2, 0),
              torch.ones(1, 1), torch.ones(0)]:
        for dim in range(-max(t.dim(), 1), max(t.dim(), 1)):
            want = getattr(torch, op)(t, dim)
            got = getattr(ctensor, op)(to_ct(t), dim)
            assert tuple(got.shape) == tuple(want.shape)
            assert tuple(got.stride()) == tuple(want.stride())
            close(got.tolist(), want.tolist(), "float32", op == "log_softmax")


def test_long_rows_accurate():
    """10^5 elements in a row: the sum of exps is accurate (the result sums to 1)."""
    g = torch.Generator().manual_seed(5)
    t = torch.randn(3, 100000, generator=g)
    got = ctensor.softmax(to_ct(t), 1)
    close(got.tolist(), reference(t, 1, False), "float32")
    sums = torch.tensor(got.double().tolist()).sum(1)
    assert (abs(sums - 1) < 1e-6).all()


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_dtype_argument(op):
    cases = [(torch.tensor([[1, 2], [3, 5]]), "float32"), (torch.tensor([[1, 2], [3, 5]]), "float64"),
             (torch.tensor([[1.5, 2.0]]), "float64"), (torch.tensor([[1.5, 2.0]]).half(), "float32"),
             (torch.tensor([True, False]), "bfloat16")]
    for t, dt in cases:
        for form in ("function", "method", "keyword"):
            def call(L, x):
                d = getattr(L, dt)
                if form == "function":
                    return getattr(L, op)(x, -1, d)
                if form == "method":
                    return getattr(x, op)(-1, d)
                return getattr(L, op)(x, dim=-1, dtype=d)
            want, got = call(torch, t), call(ctensor, to_ct(t))
            assert str(got.dtype) == "ctensor." + dt
            close(got.float().tolist(), want.float().tolist(), dt, op == "log_softmax")


def outcome(L, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f(L)
            res = ("ok", str(r.dtype).split(".")[1], tuple(r.shape))
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            t, m = (type(e), str(e))
            if L is torch:
                t, m = torch_error(t, m)
            res = ("err", t.__name__, m.replace("torch.", "ctensor."))
    texts = [str(x.message).split(" (Triggered internally")[0] for x in w
             if issubclass(x.category, UserWarning)]
    return res, texts


CALLS = [
    lambda L: L.softmax(L.tensor([1, 2]), 0),
    lambda L: L.softmax(L.ones(2, 3, dtype=L.int32), 0),
    lambda L: L.log_softmax(L.ones(2, 3, dtype=L.int32), 1),
    lambda L: L.log_softmax(L.ones(2, 3, dtype=L.int32), 0),
    lambda L: L.softmax(L.tensor([True]), 0),
    lambda L: L.softmax(L.ones(2, dtype=L.complex64), 0),
    lambda L: L.softmax(L.ones(2, 3), 0, L.int64),
    lambda L: L.softmax(L.ones(2, 3), 2),
    lambda L: L.log_softmax(L.ones(2, 3), -3),
    lambda L: L.softmax(L.tensor(1.0), 1),
    lambda L: L.softmax(L.ones(2, 3), 1, out=L.empty(2, 3, dtype=L.float64)),
    lambda L: L.softmax(L.ones(2, 3), 1, L.float64, out=L.empty(2, 3)),
    lambda L: L.softmax(L.ones(2, 3), 1, out=L.empty(3)),
    lambda L: L.softmax(L.ones(2, 3), 1, out=L.empty(0)),
    lambda L: L.log_softmax(L.ones(2, 3), 1, out=L.empty(2, 3)),
    lambda L: L.ones(2, 3).softmax("a"),
    lambda L: L.softmax(L.ones(2, 3), "a"),
]


@pytest.mark.parametrize("k", range(len(CALLS)))
def test_errors_and_out_like_torch(k):
    assert outcome(ctensor, CALLS[k]) == outcome(torch, CALLS[k])


def test_out_returns_out_and_writes_it():
    x = ctensor.tensor([[1.0, 2.0], [3.0, 3.0]])
    out = ctensor.empty(2, 2)
    r = ctensor.log_softmax(x, 1, out=out)
    assert r is out
    close(out.tolist(), torch.log_softmax(torch.tensor([[1.0, 2.0], [3.0, 3.0]]), 1).tolist(),
          "float32", True)
    h = ctensor.empty(2, 2, dtype=ctensor.float16)  # through the float32 buffer
    ctensor.softmax(x.half(), 0, out=h)
    close(h.float().tolist(), torch.softmax(torch.tensor([[1.0, 2.0], [3.0, 3.0]]), 0).tolist(),
          "float16")


def test_type_errors():
    for f in [lambda L: L.softmax(L.ones(2)), lambda L: L.softmax(L.ones(2), 1.0),
              lambda L: L.ones(2).softmax(), lambda L: L.ones(2).softmax(0, out=L.ones(2)),
              lambda L: L.softmax([1.0], 0)]:
        with pytest.raises(TypeError):
            f(torch)
        with pytest.raises(TypeError):
            f(ctensor)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_meta_and_accelerator(op, npu):
    g = torch.Generator().manual_seed(3)
    t = torch.randn(3, 4, 5, generator=g)
    c = to_ct(t)
    for dim in (0, 2):
        cpu = getattr(ctensor, op)(c, dim)
        m = getattr(ctensor, op)(c.to("meta"), dim)
        assert (str(m.device), str(m.dtype), tuple(m.shape), tuple(m.stride())) == \
            ("meta", "ctensor.float32", tuple(cpu.shape), tuple(cpu.stride()))
        a = getattr(ctensor, op)(c.to(npu), dim)
        assert str(a.device).startswith(npu)
        # the cpu's fused rows (last dim) and the accelerator's composite steps round apart
        close(a.to("cpu").tolist(), cpu.tolist(), "float32", op == "log_softmax")
        del a
    with pytest.raises(NotImplementedError):
        getattr(ctensor, op)(ctensor.ones(2, dtype=ctensor.int64, device="meta"), 0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(0, 6), min_size=0, max_size=4),
       dtype=st.sampled_from(["float32", "float64", "bfloat16"]),
       op=st.sampled_from(["softmax", "log_softmax"]),
       transpose=st.booleans(), seed=st.integers(0, 2 ** 16), data=st.data())
def test_hypothesis_like_torch(shape, dtype, op, transpose, seed, data):
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(shape, generator=g, dtype=torch.float64) * 10).to(getattr(torch, dtype))
    if transpose and t.dim() >= 2:
        t = t.transpose(0, -1)
    ndim = max(t.dim(), 1)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    want = getattr(torch, op)(t, dim)
    got = getattr(ctensor, op)(to_ct(t.contiguous()).transpose(0, -1).contiguous().transpose(0, -1)
                               if transpose and t.dim() >= 2 else to_ct(t), dim)
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride())
    log = op == "log_softmax"
    close(got.float().tolist(), want.float().tolist(), dtype, log, torch_scale(t))
    close(got.double().tolist(), reference(t, dim, log), dtype, log)


_LEVEL_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
import numpy as np
import torch, ctensor
from test_softmax_vs_torch import reference, to_ct
g = torch.Generator().manual_seed(11)
out = []
for dtype in (torch.float32, torch.float64):
    for shape, dim in [((7, 3000), 1), ((50, 33), -1), ((2000,), 0), ((3, 5), 1)]:
        t = (torch.randn(shape, generator=g, dtype=torch.float64) * 6).to(dtype)
        t.view(-1)[0] = float("-inf")
        for log in (False, True):
            got = (ctensor.log_softmax if log else ctensor.softmax)(to_ct(t), dim)
            w = np.asarray(reference(t, dim, log))
            d = np.abs(np.asarray(got.double().tolist()) - w)
            fin = np.isfinite(w)
            assert (np.asarray(got.double().tolist())[~fin] == w[~fin]).all()
            eps = 2.0 ** -24 if dtype == torch.float32 else 2.0 ** -53
            scale = (np.abs(w) + 1) if log else np.maximum(np.abs(w), 2.0 ** -10)
            out.append(float(np.max(d[fin] / (eps * scale[fin]))))
print(max(out))
"""


@pytest.mark.parametrize("isa", ["baseline", "avx2", "avx512"])
def test_each_isa_level(isa):
    """The fused rows at every ISA level (libm's exp at the baseline, SLEEF's above) stay
    within a few ulps of the extended-precision computation, -inf entries included."""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, CT_CPU_ISA=isa, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _LEVEL_SCRIPT.format(here=here)], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert float(out.strip().splitlines()[-1]) <= 8


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_rows_same_bytes_as_float32(dtype):
    """float16 / bfloat16 rows (widened one at a time up to 4096 elements, through a float32
    buffer beyond) give the bytes of the float32 computation rounded once; out= may be the
    input itself."""
    g = torch.Generator().manual_seed(7)
    for n in (1, 5, 4096, 4097):
        t = (torch.randn(3, n, generator=g) * 5).to(getattr(torch, dtype))
        t[0, 0] = -math.inf
        c = to_ct(t)
        for op in ("softmax", "log_softmax"):
            want = getattr(ctensor, op)(c.float(), 1).to(getattr(ctensor, dtype))
            got = getattr(ctensor, op)(c, 1)
            assert got.view(ctensor.int16).tolist() == want.view(ctensor.int16).tolist()
            same = c.clone()
            assert getattr(ctensor, op)(same, 1, out=same) is same
            assert same.view(ctensor.int16).tolist() == want.view(ctensor.int16).tolist()
