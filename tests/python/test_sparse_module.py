"""Sparse COO tensors through the real `ctensor` module, against PyTorch 1.13.

Each case runs one call on both modules and compares the repr of the result (with the
module prefix unified) or the exception type and message. Where ctensor follows newest
PyTorch rather than 1.13 the expected difference is written next to the case. Leak checks
for the same calls are at the end, in the style of test_tensor_refcounts.py.
"""
import gc
import re
import sys
import tracemalloc
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctensor
import torch


def outcome(fn, mod):
    try:
        r = fn(mod)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("raise", type(e).__name__, str(e).split("\n")[0])
    if isinstance(r, (ctensor.Tensor, torch.Tensor)):
        return ("tensor", repr(r).replace("ctensor.", "torch."))
    return ("value", repr(r).replace("ctensor.", "torch."))


def unwrap_suffixes(text):
    # "ctensor." is two characters longer than "torch.", so a line of suffixes that just fits
    # in torch's line width can wrap in ctensor's repr; compare such lines unwrapped
    return re.sub(r",\n +(?=(size|nnz|dtype|layout|device)=)", ", ", text)


def same(fn):
    c, t = outcome(fn, ctensor), outcome(fn, torch)
    if c != t and c[0] == t[0] == "tensor" and "dtype=" in t[1]:
        c, t = (c[0], unwrap_suffixes(c[1])), (t[0], unwrap_suffixes(t[1]))
    assert c == t
    return c


S = lambda m, *a, **k: m.sparse_coo_tensor(*a, **k)  # noqa: E731

# ---- construction -------------------------------------------------------------------------

CONSTRUCT = {
    "lists": lambda m: S(m, [[0, 1], [1, 0]], [1.0, 2.0]),
    "lists_size": lambda m: S(m, [[0, 1]], [1, 2], (5,)),
    "size_kw": lambda m: S(m, [[0, 1]], [1, 2], size=[3]),
    "names_kw": lambda m: S(m, indices=[[0, 1]], values=[1, 2]),
    "float_indices": lambda m: S(m, m.tensor([[0.5, 1.0]]), [1.0, 2.0]),
    "int32_indices": lambda m: S(m, m.tensor([[0, 1]], dtype=m.int32), [1, 2])._indices(),
    "tensor_args": lambda m: S(m, m.tensor([[1, 0, 1]]), m.tensor([[1.5, 2], [3, 4], [5, 6]])),
    "hybrid": lambda m: S(m, [[0, 2]], [[1, 2], [3, 4]], (4, 2)),
    "hybrid_infer": lambda m: S(m, [[0, 2], [1, 1]], [[1.0], [2.0]]),
    "dtype": lambda m: S(m, [[0, 1]], [1, 2], (3,), dtype=m.float64),
    "dtype_half": lambda m: S(m, [[0, 1]], [1, 2], dtype=m.float16),
    "dtype_int8": lambda m: S(m, [[0, 1]], [1, 2], dtype=m.int8),
    "dtype_bool": lambda m: S(m, [[0, 1]], [1, 0], dtype=m.bool),
    "dtype_complex": lambda m: S(m, [[0, 1]], [1j, 2], dtype=m.complex64),
    "device": lambda m: S(m, [[0, 1]], [1.0, 2.0], device="cpu"),
    "zeros_tuple": lambda m: S(m, (2, 3)),
    "zeros_list_dtype": lambda m: S(m, [2, 3], dtype=m.int32),
    "empty": lambda m: S(m, m.zeros(2, 0, dtype=m.long), m.zeros(0)),
    "empty_size": lambda m: S(m, m.zeros(1, 0, dtype=m.long), m.zeros(0, 3), (4, 3)),
    "scalar_values": lambda m: S(m, m.zeros(0, 1, dtype=m.long), m.tensor(2.5), ()),
    "shares_values": lambda m: S(m, [[0]], m.ones(1))._values().data_ptr() > 0,
    "requires_grad_float": lambda m: S(m, [[0]], [1.0], requires_grad=False),
    # errors, with PyTorch's messages
    "err_negative": lambda m: S(m, [[-1]], [1.0]),
    "err_size": lambda m: S(m, [[0, 1]], [1, 2], (1,)),
    "err_nnz": lambda m: S(m, [[0, 1], [0, 1]], [1.0], (3, 3)),
    "err_indices_1d": lambda m: S(m, [0, 1], [1.0], (3, 3)),
    "err_ndim": lambda m: S(m, [[0, 1]], [1.0, 2.0], (3, 3)),
    "err_values_size": lambda m: S(m, [[0, 1]], [[1.0, 2.0], [3, 4]], (3, 3)),
    "err_requires_grad": lambda m: S(m, [[0, 1]], [1, 2], (3,), requires_grad=True),
    "err_str": lambda m: S(m, "a", [1]),
    "err_size_list": lambda m: S(m, [[0, 1]]),
    "err_sparse_indices": lambda m: S(m, S(m, [[0]], [1]), [1.0]),
}


@pytest.mark.parametrize("name", CONSTRUCT)
def test_construction(name):
    same(CONSTRUCT[name])


def test_argument_errors_are_type_errors():
    # the signature lists differ (ctensor.dtype, the newest keywords), the kind does not
    for call in (lambda m: S(m, [[0]], [1], (2,), 5), lambda m: S(m),
                 lambda m: S(m, [[0]], [1], dtype=1)):
        assert outcome(call, ctensor)[:2] == outcome(call, torch)[:2] == ("raise", "TypeError")


def test_negative_size():
    # 1.13 fails inside numel ("numel: integer multiplication overflow"); ctensor raises the
    # error every other factory raises for a negative size
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        ctensor.sparse_coo_tensor((2, -1))
    with pytest.raises(RuntimeError):
        torch.sparse_coo_tensor((2, -1))


def test_newest_keywords():
    # check_invariants= and is_coalesced= are newest PyTorch's (1.13 has neither)
    s = ctensor.sparse_coo_tensor([[0, 5]], [1, 2], (3,), check_invariants=False)
    assert s._nnz() == 2 and s.shape == (3,)
    with pytest.raises(RuntimeError, match="size is inconsistent"):
        ctensor.sparse_coo_tensor([[0, 5]], [1, 2], (3,), check_invariants=True)
    c = ctensor.sparse_coo_tensor([[0, 1]], [1, 2], is_coalesced=True)
    assert c.is_coalesced() and c.indices().tolist() == [[0, 1]]
    with pytest.raises(RuntimeError, match="cannot set is_coalesced to true"):
        ctensor.sparse_coo_tensor([[1, 0]], [1, 2], is_coalesced=True)


def test_indices_and_values_are_shared():
    i, v = ctensor.tensor([[0, 1]]), ctensor.tensor([1.0, 2.0])
    s = ctensor.sparse_coo_tensor(i, v)
    assert s._indices().data_ptr() == i.data_ptr() and s._values().data_ptr() == v.data_ptr()


# ---- methods --------------------------------------------------------------------------------

U = lambda m: S(m, [[1, 0, 1], [2, 0, 2]], [1.0, 2.0, 3.0], (3, 4))  # noqa: E731 - uncoalesced
H = lambda m: S(m, [[2, 0, 2]], [[1, 2], [3, 4], [5, 6]], (3, 2))  # noqa: E731 - hybrid
D = lambda m: m.tensor([[0.0, 1.5, 0.0], [-2.0, 0.0, 0.0]])  # noqa: E731

METHODS = {
    "coalesce": lambda m: U(m).coalesce(),
    "coalesce_hybrid": lambda m: H(m).coalesce(),
    "coalesce_twice_is_self": lambda m: (lambda c: c.coalesce() is c)(U(m).coalesce()),
    "is_coalesced": lambda m: (U(m).is_coalesced(), U(m).coalesce().is_coalesced()),
    "indices": lambda m: U(m).coalesce().indices(),
    "values": lambda m: H(m).coalesce().values(),
    "indices_uncoalesced": lambda m: U(m).indices(),
    "values_uncoalesced": lambda m: U(m).values(),
    "raw": lambda m: (repr(U(m)._indices()), repr(U(m)._values())),
    "dims": lambda m: (H(m).sparse_dim(), H(m).dense_dim(), H(m)._nnz(), U(m).sparse_dim()),
    "to_dense": lambda m: U(m).to_dense(),
    "to_dense_hybrid": lambda m: H(m).to_dense(),
    "to_dense_dtype": lambda m: U(m).to_dense(dtype=m.float64),
    "to_dense_strided": lambda m: (lambda d: d.to_dense() is d)(D(m)),
    "to_sparse": lambda m: D(m).to_sparse(),
    "to_sparse_dim": lambda m: D(m).to_sparse(1),
    "to_sparse_dim_kw": lambda m: D(m).to_sparse(sparse_dim=1),
    "to_sparse_0d": lambda m: m.tensor(3.0).to_sparse(),
    "to_sparse_roundtrip": lambda m: D(m).to_sparse().to_dense(),
    "to_sparse_err": lambda m: D(m).to_sparse(3),
    "to_sparse_err_zero": lambda m: D(m).to_sparse(0),
    "is_sparse": lambda m: (U(m).is_sparse, D(m).is_sparse),
    "layout": lambda m: U(m).layout,
    "shape_dtype": lambda m: (tuple(H(m).shape), H(m).dtype, H(m).dim(), H(m).numel()),
    "nnz_strided": lambda m: D(m)._nnz(),
    "coalesced_strided": lambda m: D(m).is_coalesced(),
    "coalesce_strided": lambda m: D(m).coalesce(),
}

# What ctensor does the newest way, with the 1.13 behaviour it replaces.
NEWEST_METHODS = {
    "to_sparse_same": (lambda m: (lambda s: s.to_sparse(1) is s)(S(m, [[0, 1]], [1, 2])), True),
    "sparse_dim_strided": (lambda m: (D(m).sparse_dim(), D(m).dense_dim()), (0, 2)),
}


@pytest.mark.parametrize("name", METHODS)
def test_methods(name):
    c, t = outcome(METHODS[name], ctensor), outcome(METHODS[name], torch)
    if c[0] == "raise" and t[0] == "raise" and t[2].startswith("Could not run"):
        # PyTorch's dispatcher message goes on with its backend lists and may name the
        # operator coalesce() calls first; ctensor keeps the first sentence
        assert c[1] == t[1] and c[2].startswith("Could not run 'aten::")
    else:
        assert c == t


@pytest.mark.parametrize("name", NEWEST_METHODS)
def test_newest_methods(name):
    fn, expected = NEWEST_METHODS[name]
    assert fn(ctensor) == expected
    assert outcome(fn, torch)[:2] == ("raise", "NotImplementedError")


# ---- addition -------------------------------------------------------------------------------

A = lambda m: S(m, [[0, 1]], [1, 2], (3,))  # noqa: E731
B = lambda m: S(m, [[2, 1, 2]], [10, 20, 30], (3,))  # noqa: E731

ADD = {
    "sparse_sparse": lambda m: A(m) + B(m),
    "sparse_sparse_alpha": lambda m: A(m).add(B(m), alpha=2),
    "sparse_sparse_promote": lambda m: A(m) + S(m, [[0]], [0.5], (3,)),
    "coalesced_merge": lambda m: A(m).coalesce() + B(m).coalesce(),
    "dense_sparse": lambda m: m.zeros(3, dtype=m.long) + A(m),
    "dense_sparse_alpha": lambda m: m.ones(3).add(B(m), alpha=-1),
    "dense_sparse_hybrid": lambda m: m.ones(3, 2, dtype=m.long) + H(m),
    "sparse_dense": lambda m: A(m) + m.zeros(3),
    "sparse_number": lambda m: A(m) + 1,
    "number_sparse": lambda m: 1 + A(m),
    "alpha_float_int": lambda m: A(m).add(B(m), alpha=2.5),
    "alpha_complex": lambda m: S(m, [[0]], [1.0], (3,)).add(A(m), alpha=1j),
    "size_mismatch": lambda m: A(m) + S(m, [[0]], [1], (4,)),
    "density_mismatch": lambda m: H(m) + S(m, [[0], [1]], [1], (3, 2)),
    "dense_size_mismatch": lambda m: m.zeros(4) + A(m),
    "zero_nnz": lambda m: S(m, [3]) + A(m),
}


@pytest.mark.parametrize("name", ADD)
def test_add(name):
    same(ADD[name])


def test_add_bool_is_not_implemented():
    # newest PyTorch raises NotImplementedError for dtypes a kernel lacks; 1.13 RuntimeError
    b = lambda m: S(m, [[0, 1]], [True, False])  # noqa: E731
    c, t = outcome(lambda m: b(m) + b(m), ctensor), outcome(lambda m: b(m) + b(m), torch)
    assert c[2] == t[2] == "\"cadd_sparse\" not implemented for 'Bool'"
    assert (c[1], t[1]) == ("NotImplementedError", "RuntimeError")


def test_strided_plus_strided_is_dense_arithmetic():
    # dense + dense is the element-wise add of ops.h, not the sparse path
    x = ctensor.ones(2)
    assert (x + x).layout == ctensor.strided
    assert (x + x).tolist() == [2.0, 2.0]
    assert (x + 1).tolist() == [2.0, 2.0]
    assert x.add(x).tolist() == [2.0, 2.0]


# ---- repr -----------------------------------------------------------------------------------

REPRS = {
    "1d": lambda m: A(m),
    "2d_uncoalesced": lambda m: U(m),
    "hybrid": lambda m: H(m),
    "int32": lambda m: S(m, [[0, 1]], [1, 2], dtype=m.int32),
    "float64": lambda m: S(m, [[0, 1]], [1, 2], dtype=m.float64),
    "complex": lambda m: S(m, [[0, 1]], [1j, 2.5]),
    "bool": lambda m: S(m, [[0, 1]], [True, False]),
    "bfloat16": lambda m: S(m, [[0, 1]], [1.25, 2], dtype=m.bfloat16),
    "empty": lambda m: S(m, (2, 3)),
    "empty_int": lambda m: S(m, (0,), dtype=m.int16),
    "0d": lambda m: S(m, m.zeros(0, 1, dtype=m.long), m.tensor(2.5), ()),
    "long_row": lambda m: S(m, [list(range(40))], [i * 1.5 for i in range(40)]),
    "summarized": lambda m: S(m, [list(range(1200))], list(range(1200))),
    "sci": lambda m: S(m, [[0, 1]], [1e-8, 1e8]),
}


@pytest.mark.parametrize("name", REPRS)
def test_repr(name):
    c, t = REPRS[name](ctensor), REPRS[name](torch)
    assert repr(c).replace("ctensor.", "torch.") == repr(t)
    assert str(c) == repr(c)
    assert outcome(REPRS[name], ctensor)[1] == outcome(REPRS[name], torch)[1]


def test_repr_follows_printoptions():
    try:
        for m in (ctensor, torch):
            m.set_printoptions(precision=2, linewidth=40)
        c, t = REPRS["long_row"](ctensor), REPRS["long_row"](torch)
        assert repr(c).replace("ctensor.", "torch.") == repr(t)
    finally:
        for m in (ctensor, torch):
            m.set_printoptions(profile="default")


def test_repr_of_subclass_and_strided_unchanged():
    class Sub(ctensor.Tensor):
        pass

    assert repr(ctensor.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(Sub([1.0, 2.0])) == "Sub([1., 2.])"
    with pytest.raises(TypeError, match="unsupported operand.*'ctensor.Tensor' and 'str'"):
        A(ctensor) + "a"  # noqa: B018


def test_repr_default_dtype_float64():
    old = ctensor.get_default_dtype()
    try:
        for m in (ctensor, torch):
            m.set_default_dtype(m.float64)
        for name in ("1d", "float64", "complex", "2d_uncoalesced"):
            c, t = REPRS[name](ctensor), REPRS[name](torch)
            assert repr(c).replace("ctensor.", "torch.") == repr(t), name
    finally:
        ctensor.set_default_dtype(old)
        torch.set_default_dtype(torch.float32)


# ---- hypothesis -----------------------------------------------------------------------------


@st.composite
def coo(draw):
    sparse_dim = draw(st.integers(1, 3))
    dense = draw(st.lists(st.integers(1, 3), max_size=1))
    sizes = draw(st.lists(st.integers(1, 4), min_size=sparse_dim, max_size=sparse_dim))
    nnz = draw(st.integers(0, 6))
    idx = [[draw(st.integers(0, s - 1)) for _ in range(nnz)] for s in sizes]
    kind = draw(st.sampled_from(["int", "float"]))
    elem = st.integers(-5, 5) if kind == "int" else st.floats(-4, 4, width=32).map(
        lambda x: round(x, 2))
    vals = [[draw(elem) for _ in range(dense[0])] if dense else draw(elem) for _ in range(nnz)]
    return idx, vals, tuple(sizes + dense), kind


def build(m, idx, vals, size, kind):
    dtype = m.long if kind == "int" else m.float32
    i = m.tensor(idx, dtype=m.long).reshape(len(idx), -1)
    v = m.tensor(vals, dtype=dtype).reshape([len(vals)] + list(size[len(idx):]))
    return m.sparse_coo_tensor(i, v, size)


@settings(max_examples=60)
@given(coo())
def test_hypothesis_ops(case):
    idx, vals, size, kind = case
    for op in (lambda s: s, lambda s: s.coalesce(), lambda s: s.to_dense(),
               lambda s: s + s, lambda s: s.to_dense() + s, lambda s: s.to_dense().to_sparse(),
               lambda s: s.coalesce().to_dense().to_sparse(s.sparse_dim()),
               lambda s: (s.sparse_dim(), s.dense_dim(), s._nnz(), s.is_coalesced())):
        same(lambda m, op=op: op(build(m, idx, vals, size, kind)))


@settings(max_examples=40)
@given(coo(), st.sampled_from([1, -1, 2, 0]))
def test_hypothesis_add_alpha(case, alpha):
    idx, vals, size, kind = case
    same(lambda m: build(m, idx, vals, size, kind).add(build(m, idx, vals, size, kind).coalesce(),
                                                       alpha=alpha))
    same(lambda m: m.ones(size, dtype=m.long if kind == "int" else m.float32).add(
        build(m, idx, vals, size, kind), alpha=alpha))


@settings(max_examples=40)
@given(coo())
def test_hypothesis_construct_from_lists(case):
    idx, vals, size, kind = case
    if not idx[0]:
        return  # lists of empty lists infer shape [n, 0], which both refuse the same way
    same(lambda m: m.sparse_coo_tensor(idx, vals))
    same(lambda m: m.sparse_coo_tensor(idx, vals, size, dtype=m.float64))


# ---- leaks ----------------------------------------------------------------------------------

LEAK_CALLS = [(n, f) for n, f in list(CONSTRUCT.items()) + list(METHODS.items())
              + list(ADD.items())] + [("repr_" + n, lambda f=f: repr(f(ctensor)))
                                      for n, f in REPRS.items() if n != "summarized"]


def run(fn, n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            try:
                fn(ctensor) if fn.__code__.co_argcount == 1 else fn()
            except Exception:  # noqa: BLE001,S110 - error paths are exercised on purpose
                pass


def state():
    objs = [ctensor.Tensor, ctensor.sparse_coo, ctensor.strided, ctensor.float32,
            ctensor.int64, int, float]
    return [sys.getrefcount(o) for o in objs], ctensor._live_allocations()


@pytest.mark.parametrize("name,fn", LEAK_CALLS, ids=[c[0] for c in LEAK_CALLS])
def test_no_leaks(name, fn):
    run(fn, 100)  # warm up: the interpreter's caches grow once for a new call site
    gc.collect()
    before = state()
    tracemalloc.start()
    run(fn, 200)  # keyword calls grow a cache once (~7 KB) after tracing starts
    first = tracemalloc.get_traced_memory()[0]
    run(fn, 500)
    second = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    gc.collect()
    assert state() == before, name
    assert second - first < 4096, name


def test_results_hold_their_parts():
    i, v = ctensor.tensor([[0, 1]]), ctensor.tensor([1.0, 2.0])
    base_i, base_v = i._refcounts()[0], v._refcounts()[0]
    s = ctensor.sparse_coo_tensor(i, v)
    assert i._refcounts()[0] == base_i + 1 and v._refcounts()[0] == base_v + 1
    del s
    gc.collect()
    assert i._refcounts()[0] == base_i and v._refcounts()[0] == base_v


# ---- layout=sparse_coo in the factories ---------------------------------------------------

@pytest.mark.parametrize("fname", ["zeros", "empty"])
@pytest.mark.parametrize("shape", [(2, 3), (4,), (0, 2), (1, 2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_factory_sparse_layout_matches_torch(fname, shape, dtype):
    import torch
    import ctensor
    t = getattr(torch, fname)(*shape, layout=torch.sparse_coo, dtype=getattr(torch, dtype))
    c = getattr(ctensor, fname)(*shape, layout=ctensor.sparse_coo, dtype=getattr(ctensor, dtype))
    assert c.layout is ctensor.sparse_coo
    assert (c.sparse_dim(), c.dense_dim(), c._nnz()) == (t.sparse_dim(), t.dense_dim(), t._nnz())
    assert c.is_coalesced() == t.is_coalesced()
    assert str(c).replace("ctensor.", "torch.") == str(t)


def test_factory_sparse_layout_default_dtype_and_device():
    import ctensor
    assert ctensor.zeros(2, layout=ctensor.sparse_coo).dtype is ctensor.get_default_dtype()
    with ctensor.device("meta"):
        assert ctensor.zeros(2, 2, layout=ctensor.sparse_coo).device == ctensor.device("meta")
    assert ctensor.zeros(2, layout=ctensor.sparse_coo, device="meta").device.type == "meta"


@pytest.mark.parametrize("call", ["ones(2, layout={m}.sparse_coo)",
                                  "full((2,), 1.0, layout={m}.sparse_coo)",
                                  "rand(2, layout={m}.sparse_coo)",
                                  "randn(2, layout={m}.sparse_coo)"])
def test_factory_sparse_layout_errors_match_torch(call):
    import torch
    import ctensor
    with pytest.raises(Exception) as te:
        eval("torch." + call.format(m="torch"))
    with pytest.raises(Exception) as ce:
        eval("ctensor." + call.format(m="ctensor"))
    assert type(ce.value) is type(te.value)
    assert str(te.value).startswith(str(ce.value))
