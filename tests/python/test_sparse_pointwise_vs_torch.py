"""Sparse COO tensors against torch 1.13: the element-wise ops outside unary.def (isnan, isinf,
isposinf, isneginf, isfinite, isreal; pow with a number exponent and square), the factories
that take a tensor (zeros_like ... randn_like, new_zeros ... new_full), zero_() and
_coalesced_(). Each case runs on both modules and compares the result (layout, dtype, shape,
flag, indices, values) or the exception type and first message line.
"""
import math

import pytest

import ctensor
import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
INF = float("inf")


def S(m, dtype, coalesced):  # 2x3 with nan/inf; uncoalesced: unsorted with a duplicate
    ind = [[0, 1, 1], [2, 0, 2]] if coalesced else [[1, 0, 0, 1], [0, 2, 2, 0]]
    val = [0.5, -INF, math.nan] if coalesced else [0.5, -0.25, INF, 0.25]
    if dtype in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        val = [1.0, -2.0, 3.0] if coalesced else [1.0, 2.0, 0.0, 3.0]
    s = m.sparse_coo_tensor(m.tensor(ind), m.tensor(val, dtype=m.float64).to(getattr(m, dtype)),
                            (2, 3))
    return s.coalesce() if coalesced else s


def F(m, coalesced):  # finite float32 values (pow's complex overflow rules stay out)
    ind = [[0, 1, 1], [2, 0, 2]] if coalesced else [[1, 0, 0, 1], [0, 2, 2, 0]]
    val = [0.5, -1.5, 2.0] if coalesced else [0.5, -0.25, 1.5, 0.25]
    s = m.sparse_coo_tensor(m.tensor(ind), m.tensor(val), (2, 3))
    return s.coalesce() if coalesced else s


def H(m):  # hybrid: 1 sparse, 1 dense dim, uncoalesced
    return m.sparse_coo_tensor([[1, 0, 1]], [[0.25, INF], [0.75, -0.5], [0.125, 0.0]], (2, 2))


def E(m):  # nnz 0
    return m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.long), m.zeros(0), (2, 3))


def META(m):
    return m.sparse_coo_tensor((2, 3), device="meta")


def close(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(close, a, b))
    if isinstance(a, complex) or isinstance(b, complex):
        return close(complex(a).real, complex(b).real) and close(complex(a).imag, complex(b).imag)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b or (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-2 if a else 0,
                                                            abs_tol=1e-6))


def described(r, values=True):
    if not isinstance(r, (ctensor.Tensor, torch.Tensor)):
        return ("other", r)
    if r.is_sparse:
        v = None
        if r.device.type != "meta":
            v = r._values()
            v = v.float().tolist() if str(v.dtype).endswith(("float16", "bfloat16")) else v.tolist()
        return ("sparse", str(r.dtype).split(".")[-1], tuple(r.shape), r.is_coalesced(),
                r.sparse_dim(), r.dense_dim(), r._nnz(), r.device.type,
                r._indices().tolist() if r.device.type != "meta" else None, v)
    return ("strided", str(r.dtype).split(".")[-1], tuple(r.shape), r.device.type,
            r.tolist() if values and r.device.type != "meta" else None)


def outcome(fn, mod, values=True):
    try:
        return described(fn(mod), values)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("raise", type(e), str(e).split("\n")[0].split(" This could be")[0])


def same(fn, values=True):
    c, t = outcome(fn, ctensor, values), outcome(fn, torch, values)
    assert c[0] == t[0], (c, t)
    if t[0] == "raise":
        assert issubclass(c[1], t[1]) or (c[1].__name__ == t[1].__name__), (c, t)
        assert c[2] == t[2], (c, t)
        return
    assert c[:-1] == t[:-1], (c, t)
    assert close(c[-1], t[-1]), (c, t)


# ---- classifications ------------------------------------------------------------------------

CLASSIFY = ["isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal"]


@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", CLASSIFY)
def test_classify(name, dtype, coalesced):
    same(lambda m: getattr(m, name)(S(m, dtype, coalesced)))
    same(lambda m: getattr(S(m, dtype, coalesced), name)())


@pytest.mark.parametrize("name", CLASSIFY)
def test_classify_hybrid_empty_meta(name):
    same(lambda m: getattr(m, name)(H(m)))
    same(lambda m: getattr(m, name)(E(m)))
    same(lambda m: getattr(m, name)(META(m)))


@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("name", ["isposinf", "isneginf"])
def test_classify_out(name, coalesced):
    def into(dtype):
        def f(m):
            o = m.sparse_coo_tensor((4,), dtype=getattr(m, dtype))
            r = getattr(m, name)(S(m, "float32", coalesced), out=o)
            assert r is o
            return o
        return f
    same(into("bool"))
    same(into("float32"))
    same(lambda m: getattr(m, name)(S(m, "float32", coalesced), out=m.zeros(2, 3, dtype=m.bool)))
    same(lambda m: getattr(m, name)(m.ones(2, 3), out=S(m, "bool", coalesced)))
    same(lambda m: (lambda s: (getattr(m, name)(s, out=s), s)[1])(S(m, "bool", coalesced)))


# ---- pow, square ------------------------------------------------------------------------------

@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("exponent", [2, 3, -1, 0.5, 2.5, 0, 0.0, True, False])
def test_pow_scalar(exponent, dtype, coalesced):
    if dtype.startswith("complex") or dtype in ("float16", "bfloat16"):
        if isinstance(exponent, float) and exponent not in (0.0,):
            return  # complex/half pow rounding differs in the last bits (dense rules)
    same(lambda m: m.pow(S(m, dtype, coalesced).to(getattr(m, dtype)), exponent)
         if not dtype.startswith(("float", "bfloat", "complex"))
         else m.pow(F(m, coalesced).to(getattr(m, dtype)), exponent))


@pytest.mark.parametrize("coalesced", [True, False])
def test_pow_forms(coalesced):
    same(lambda m: F(m, coalesced) ** 2)
    same(lambda m: F(m, coalesced).pow(3))
    same(lambda m: m.pow(F(m, coalesced), exponent=2))
    same(lambda m: m.pow(F(m, coalesced), 2j))
    same(lambda m: m.pow(F(m, coalesced), m.tensor(2.0)))
    same(lambda m: 2 ** F(m, coalesced))
    same(lambda m: m.pow(m.ones(2, 3), F(m, coalesced)))
    same(lambda m: F(m, coalesced).pow_(2))
    same(lambda m: F(m, coalesced).pow_(m.tensor(2.0)))
    same(lambda m: m.pow(H(m), 2))
    same(lambda m: m.pow(E(m), 2))
    same(lambda m: m.pow(META(m), 2))

    def iop(m):
        s = F(m, coalesced)
        s **= 2
        return s
    same(iop)


@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
def test_pow_out(out_dtype, coalesced):
    def f(m):
        o = m.sparse_coo_tensor((4,), dtype=getattr(m, out_dtype))
        r = m.pow(F(m, coalesced), 2, out=o)
        assert r is o
        return o
    same(f)

    def self_out(m):
        s = F(m, coalesced)
        m.pow(s, 2, out=s)
        return s
    same(self_out)
    same(lambda m: m.pow(F(m, coalesced), 2, out=m.zeros(2, 3)))


@pytest.mark.parametrize("coalesced", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_square(dtype, coalesced):
    src = (lambda m: F(m, coalesced).to(getattr(m, dtype))) if dtype[0] in "fbc" and \
        dtype != "bool" else (lambda m: S(m, dtype, coalesced))
    same(lambda m: m.square(src(m)))
    same(lambda m: src(m).square())
    same(lambda m: src(m).square_())


# ---- *_like, new_*, zero_, _coalesced_ ------------------------------------------------------

LIKE = ["empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"]


def like(name, src, **kw):
    def f(m):
        args = (src(m), 2.5) if name == "full_like" else (src(m),)
        return getattr(m, name)(*args, **kw)
    return f


@pytest.mark.parametrize("name", LIKE)
def test_like_sparse_input(name):
    vals = name in ("zeros_like", "ones_like", "full_like")
    for src in (lambda m: S(m, "float32", False), H, E, META,
                lambda m: S(m, "int64", True)):
        same(like(name, src))
        same(like(name, src, dtype=None))
    for kw in ({"dtype": "float64"}, {"dtype": "int32"}, {"layout": "strided"},
               {"layout": "sparse_coo"}, {"memory_format": "contiguous_format"},
               {"memory_format": "preserve_format"}, {"layout": "strided",
                                                      "memory_format": "channels_last"},
               {"device": "meta"}, {"device": "cpu"}):
        def f(m, kw=kw):
            k = {key: (getattr(m, v) if key != "device" else v) for key, v in kw.items()}
            return like(name, lambda mm: S(mm, "float32", False), **k)(m)
        same(f, values=vals)


@pytest.mark.parametrize("name", LIKE)
def test_like_strided_input_sparse_layout(name):
    same(like(name, lambda m: m.ones(2, 3), layout=None), values=name != "empty_like"
         and not name.startswith("rand"))

    def f(m):
        return like(name, lambda mm: mm.ones(2, 3), layout=m.sparse_coo)(m)
    same(f)

    def g(m):
        return like(name, lambda mm: mm.ones(2, 3), layout=m.sparse_coo,
                    memory_format=m.preserve_format)(m)
    same(g)

    def h(m):
        return like(name, lambda mm: mm.ones(2, device="meta"), layout=m.sparse_coo)(m)
    same(h)


@pytest.mark.parametrize("name", ["new_empty", "new_zeros", "new_ones", "new_full"])
def test_new(name):
    def call(src, *size, **kw):
        def f(m):
            k = {key: (getattr(m, v) if key != "device" else v) for key, v in kw.items()}
            args = (size, 1.5) if name == "new_full" else size
            return getattr(src(m), name)(*args, **k)
        return f
    s = lambda m: S(m, "float32", False)  # noqa: E731
    same(call(s, 2, 2))
    same(call(H, 3))
    same(call(s, 2, dtype="int64"))
    same(call(s, 2, layout="strided"), values=name != "new_empty")
    same(call(s, 2, device="meta"))
    same(call(META, 2, 3))
    same(call(s))
    same(call(lambda m: m.ones(2), 2, 2, layout="sparse_coo"))


def test_zero_():
    for src in (lambda m: S(m, "float32", False), lambda m: S(m, "int64", True), H, E, META):
        def f(m, src=src):
            s = src(m)
            r = s.zero_()
            assert r is s
            return s
        same(f)
    same(lambda m: m.zeros(2).zero_())


def test_coalesced_flag():
    def flag(src, value):
        def f(m):
            s = src(m)
            r = s._coalesced_(value)
            assert r is s
            return (s.is_coalesced(), described(s))
        return f
    for src in (lambda m: S(m, "float32", False), lambda m: S(m, "float32", True), H, E, META):
        for v in (True, False):
            c, t = flag(src, v)(ctensor), flag(src, v)(torch)
            assert c[0] == t[0] and c[1][:-1] == t[1][:-1], (c, t)
    same(lambda m: m.zeros(2)._coalesced_(True))
    same(lambda m: m.zeros(2).is_coalesced())
    same(lambda m: S(m, "float32", False)._coalesced_(1))
    same(lambda m: S(m, "float32", False)._coalesced_())
    same(lambda m: S(m, "float32", False)._coalesced_(coalesced=True))
    # the flag is what ops read: a tensor flagged coalesced is not coalesced again
    same(lambda m: S(m, "float32", False)._coalesced_(True).coalesce())
    same(lambda m: m.sqrt(S(m, "float32", False).abs()._coalesced_(False)))
