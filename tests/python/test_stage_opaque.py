"""Every kind of op on an accelerator the host cannot read (ct_backend_host_emulated_opaque,
Note [Device addresses the host cannot read]): an emulated device with no kernels whose addresses fault if
the host reads them, so each op must run through host memory (Note [Staging through host
memory], src/tensor/stage.h) or move data through the copy slots. Each result must be the
cpu's: device, dtype, shape, strides, values (bit for bit), or the same exception and
message. A direct host read of device memory crashes this test."""
import gc
import math
import warnings

import pytest

import ctensor
from ctensor import _testing

DEV = "xpu:1"


@pytest.fixture(autouse=True, scope="module")
def opaque():
    _testing.register_emulated_backend("xpu", 2, host_accessible=False)
    yield
    gc.collect()
    try:
        _testing.unregister_backend("xpu")
    except RuntimeError:
        pass  # tensors kept alive by a failed test's traceback: that failure is the report


def inputs():
    g = ctensor.Generator().manual_seed(7)
    x = ctensor.randn(3, 4, generator=g)
    y = ctensor.randn(3, 4, generator=g)
    return {
        "x": x, "y": y, "xt": ctensor.randn(4, 3, generator=g).t(),
        "i": ctensor.randint(-5, 6, (3, 4), generator=g),
        "j": ctensor.randint(1, 4, (3, 4), generator=g),
        "c": ctensor.randn(3, 4, dtype=ctensor.complex64, generator=g),
        "b": ctensor.randn(3, 4, generator=g) > 0,
        "m": ctensor.randn(4, 5, generator=g),
        "v": ctensor.randn(4, generator=g),
        "bm": ctensor.randn(2, 3, 4, generator=g),
        "bn": ctensor.randn(2, 4, 2, generator=g),
        "idx": ctensor.tensor([2, 0, 1, 0]),
        "s": ctensor.tensor(2.5),
    }


def same(got, want, what):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{what}[{k}]")
        return
    if not isinstance(want, ctensor.Tensor):
        assert got == want or (isinstance(want, float) and math.isnan(want) and math.isnan(got)), \
            f"{what}: {got!r} != {want!r}"
        return
    assert isinstance(got, ctensor.Tensor), what
    assert str(got.device) == DEV, f"{what}: on {got.device}"
    assert got.dtype == want.dtype, f"{what}: {got.dtype} != {want.dtype}"
    assert tuple(got.shape) == tuple(want.shape), f"{what}: {tuple(got.shape)}"
    assert got.stride() == want.stride(), f"{what}: strides {got.stride()} != {want.stride()}"
    g, w = got.cpu(), want
    if w.dtype.is_floating_point or w.dtype.is_complex:
        ok = ((g == w) | ((g != g) & (w != w))).all().item()
    else:
        ok = g.equal(w)
    assert ok, f"{what}: values differ\n{g}\n{w}"


def to_dev(v):
    return v.to(DEV) if isinstance(v, ctensor.Tensor) else v


OPS = {
    # element-wise: unary, binary, comparisons, ternary, in place and out=
    "neg": lambda t: -t["x"], "abs": lambda t: t["i"].abs(), "exp": lambda t: t["xt"].exp(),
    "exp complex": lambda t: t["c"].exp(), "log int": lambda t: t["j"].log(),
    "sigmoid": lambda t: ctensor.sigmoid(t["x"]), "round dec": lambda t: t["x"].round(decimals=2),
    "bitwise_not": lambda t: ~t["i"], "logical_not": lambda t: t["b"].logical_not(),
    "add": lambda t: t["x"] + t["xt"], "add alpha": lambda t: ctensor.add(t["x"], t["y"], alpha=2),
    "sub scalar": lambda t: t["x"] - 1.5, "mul int float": lambda t: t["i"] * t["x"],
    "div floor": lambda t: ctensor.div(t["i"], t["j"], rounding_mode="floor"),
    "div by zero int": lambda t: t["i"] // (t["j"] * 0),
    "pow complex": lambda t: t["c"] ** t["c"], "pow int neg": lambda t: t["j"] ** -1,
    "remainder": lambda t: t["i"] % t["j"], "atan2": lambda t: ctensor.atan2(t["x"], t["y"]),
    "bitwise_and": lambda t: t["i"] & t["j"], "shift": lambda t: t["j"] << 2,
    "eq": lambda t: t["x"] == t["y"], "lt mixed": lambda t: t["i"] < t["x"],
    "maximum": lambda t: ctensor.maximum(t["x"], t["y"]),
    "isclose": lambda t: ctensor.isclose(t["x"], t["y"], atol=1),
    "isnan": lambda t: (t["x"] / t["x"] * 0).isnan(),
    "equal": lambda t: ctensor.equal(t["x"], t["x"].clone()),
    "allclose": lambda t: ctensor.allclose(t["x"], t["y"]),
    "where": lambda t: ctensor.where(t["b"], t["x"], t["y"]),
    "where scalar": lambda t: ctensor.where(t["b"], t["x"], 0.0),
    "clamp": lambda t: t["x"].clamp(-0.5, 0.5), "clamp t": lambda t: t["x"].clamp(min=t["y"]),
    "lerp": lambda t: ctensor.lerp(t["x"], t["y"], 0.25),
    "addcmul": lambda t: ctensor.addcmul(t["x"], t["y"], t["xt"], value=0.5),
    "masked_fill": lambda t: t["x"].masked_fill(t["b"], -1.0),
    "inplace view": lambda t: t["x"].clone().t().mul_(2).t(),
    "out=": lambda t: ctensor.add(t["x"], t["y"], out=ctensor.empty(0, device=t["x"].device)),
    "0-dim cpu joins": lambda t: t["x"] * ctensor.tensor(3.0),
    "type promotion": lambda t: t["i"] + t["b"],
    "to dtype": lambda t: t["x"].to(ctensor.float16), "to int": lambda t: t["x"].int(),
    "contiguous cl": lambda t: t["bm"].unsqueeze(0).contiguous(memory_format=ctensor.channels_last),
    # reductions and scans
    "sum": lambda t: t["x"].sum(), "sum int": lambda t: t["i"].sum(1),
    "sum complex": lambda t: t["c"].sum(0), "mean": lambda t: t["xt"].mean(0, keepdim=True),
    "prod": lambda t: t["j"].prod(), "amax": lambda t: t["x"].amax((0, 1)),
    "max dim": lambda t: tuple(t["x"].max(1)), "argmin": lambda t: t["x"].argmin(),
    "std": lambda t: t["x"].std(0), "var complex": lambda t: t["c"].var(),
    "norm": lambda t: t["x"].norm(), "logsumexp": lambda t: ctensor.logsumexp(t["x"], 1),
    "all": lambda t: t["b"].all(), "any": lambda t: t["b"].any(0),
    "count_nonzero": lambda t: ctensor.count_nonzero(t["i"]),
    "cumsum": lambda t: t["i"].cumsum(1), "cumprod": lambda t: t["x"].cumprod(0),
    "aminmax": lambda t: tuple(ctensor.aminmax(t["x"])),
    "max empty": lambda t: t["x"][:0].max(),
    "item": lambda t: t["x"].sum().item(), "tolist": lambda t: t["i"].tolist(),
    "bool": lambda t: bool(t["s"] > 0),
    # sorting and selection
    "sort": lambda t: tuple(t["xt"].sort(0, descending=True)),
    "argsort": lambda t: t["x"].argsort(1), "topk": lambda t: tuple(t["x"].topk(2)),
    "kthvalue": lambda t: tuple(t["x"].kthvalue(2, 0)), "unique": lambda t: t["i"].unique(),
    # joining, reordering, views
    "cat": lambda t: ctensor.cat([t["x"], t["xt"]]), "stack": lambda t: ctensor.stack([t["x"], t["y"]], 1),
    "split": lambda t: t["x"].split(2, 1), "chunk": lambda t: t["x"].chunk(2),
    "flip": lambda t: t["x"].flip(0), "roll": lambda t: t["x"].roll(1, 1),
    "repeat": lambda t: t["x"].repeat(2, 1), "tile": lambda t: t["v"].tile(2),
    "tril": lambda t: t["x"].tril(), "triu": lambda t: t["m"].triu(1),
    "diag": lambda t: t["v"].diag(), "diagonal": lambda t: t["x"].diagonal(),
    "transpose reshape": lambda t: t["x"].t().reshape(-1), "expand": lambda t: t["v"].expand(3, 4) + 0,
    # indexing
    "basic index": lambda t: t["x"][1:, ::2], "int index": lambda t: t["x"][t["idx"][:3]],
    "mask index": lambda t: t["x"][t["b"]], "index_select": lambda t: t["m"].index_select(1, t["idx"]),
    "gather": lambda t: t["x"].gather(1, t["j"].abs() % 4),
    "nonzero": lambda t: t["i"].nonzero(), "masked_select": lambda t: t["x"].masked_select(t["b"]),
    "take": lambda t: t["x"].take(t["idx"]),
    "setitem": lambda t: _setitem(t["x"].clone(), t["b"]),
    "index_put": lambda t: t["x"].clone().index_put_((t["idx"][:2],), ctensor.tensor(9.0)),
    "scatter_add": lambda t: ctensor.zeros(3, 4, device=t["x"].device).scatter_add(1, t["j"] % 4, t["x"]),
    "searchsorted": lambda t: ctensor.searchsorted(t["v"].sort()[0], t["x"]),
    # matrix products
    "matmul": lambda t: t["x"] @ t["m"], "mv": lambda t: t["x"].mv(t["v"]),
    "bmm": lambda t: t["bm"].bmm(t["bn"]), "matmul bcast": lambda t: t["bm"] @ t["m"],
    "dot": lambda t: t["v"].dot(t["v"]), "addmm": lambda t: ctensor.addmm(t["y"][:, :1], t["x"], t["m"][:, :1]),
    "matmul dtype error": lambda t: t["x"] @ t["m"].double(),
}


def _setitem(x, mask):
    x[mask] = 0.0
    x[0, 1:3] = 7.0
    return x


def outcome(fn, tensors):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn(tensors))
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("err", type(e), str(e))


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_on_opaque_device(name):
    cpu = inputs()
    dev = {k: (v if k == "s" else to_dev(v)) for k, v in cpu.items()}
    want = outcome(OPS[name], cpu)
    got = outcome(OPS[name], dev)
    assert got[0] == want[0], f"{name}: device {got}, cpu {want}"
    if want[0] == "err":
        assert got[1] is want[1] and got[2] == want[2], f"{name}: device {got}, cpu {want}"
    else:
        same(got[1], want[1], name)


def test_warns_once_per_op():
    x = ctensor.randn(5).to(DEV)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x.cosh()
        x.cosh()
    # each op warns once per process: the first call here, unless an earlier test ran cosh
    assert len([m for m in w if "'cosh' is not currently supported on the xpu device" in
                str(m.message)]) <= 1
