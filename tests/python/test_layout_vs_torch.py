"""Layout changes (issue 14) against torch 1.13, bit for bit: transposing and permuting copies
(contiguous(), copy_ into a given layout, casts on the way), element-wise ops over mixed
layouts (contiguous with channels_last or transposed operands, broadcast operands of stride
0, in-place on a channels_last self) and the large copies into channels_last that stream
their tiles (Note [Streamed tiles] in src/dtype/convert/walk.c). Sizes straddle the walk's
tile edges (1, 7, 33, 65, 127) and include zero-size tensors; every element size 1..16 bytes.
Results must equal torch's in values (bits) and strides."""
import itertools

import pytest

import ctensor
import torch

DTYPES = ["bool", "uint8", "int16", "float16", "bfloat16", "int32", "float32", "int64",
          "float64", "complex64", "complex128"]
BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
CT_BITS = {1: ctensor.uint8, 2: ctensor.int16, 4: ctensor.int32, 8: ctensor.int64}


def make(name, shape, seed=0):
    """A contiguous torch tensor of dtype `name` with varied values."""
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    if name == "bool":
        return (torch.rand(n, generator=g) > 0.5).reshape(shape)
    if name.startswith("complex"):
        real = torch.randn(n, 2, generator=g, dtype=torch.float64) * 100
        return torch.view_as_complex(real).to(getattr(torch, name)).reshape(shape)
    if name in ("uint8", "int16", "int32", "int64"):
        return torch.randint(0, 120, (n,), generator=g).to(getattr(torch, name)).reshape(shape)
    return (torch.randn(n, generator=g, dtype=torch.float64) * 100).to(
        getattr(torch, name)).reshape(shape)


def to_ct(t):
    """A ctensor tensor with t's bytes, sizes and strides (own memory)."""
    c = t.clone(memory_format=torch.preserve_format)
    if c.dtype == torch.bool:  # torch 1.13's dlpack has no bool
        return ctensor.from_dlpack(c.view(torch.uint8)).view(ctensor.bool)
    return ctensor.from_dlpack(c)


def bits_ct(c):
    """The elements' bits of ctensor tensor c as a torch tensor with c's strides."""
    size = c.element_size()
    if size == 16:
        return torch.view_as_real(torch.from_dlpack(c)).view(torch.int64)
    return torch.from_dlpack(c.view(CT_BITS[size]))


def bits_torch(t):
    if t.element_size() == 16:
        return torch.view_as_real(t).view(torch.int64)
    return t.view(BITS[t.element_size()])


def check_same(c, t):
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    if t.numel() > 1:  # the strides of size-1 dims are free (contiguous() keeps torch's)
        big = [d for d in range(t.dim()) if t.shape[d] > 1]
        assert [c.stride()[d] for d in big] == [t.stride()[d] for d in big]
    if t.numel() == 0:
        return
    assert torch.equal(bits_ct(c), bits_torch(t))


SHAPES_2D = [(1, 7), (7, 33), (33, 65), (65, 127), (127, 1), (64, 64), (0, 5), (130, 9)]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES_2D)
def test_transpose_contiguous(name, shape):
    t = make(name, shape)
    c = to_ct(t)
    check_same(c.t().contiguous(), t.t().contiguous())
    # copy_ into an existing tensor
    dt, dc = torch.empty(shape[::-1], dtype=t.dtype), to_ct(torch.zeros(shape[::-1], dtype=t.dtype))
    dt.copy_(t.t())
    dc.copy_(c.t())
    check_same(dc, dt)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(7, 33, 5), (3, 65, 9), (33, 1, 127), (2, 7, 33, 5),
                                   (1, 65, 3, 66), (2, 0, 3, 4)])
def test_permuted_contiguous(name, shape):
    t = make(name, shape, seed=1)
    c = to_ct(t)
    perms = list(itertools.permutations(range(len(shape))))
    for perm in perms[1:] if len(shape) == 3 else perms[1::5]:
        check_same(c.permute(perm).contiguous(), t.permute(perm).contiguous())


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(2, 7, 9, 33), (1, 65, 7, 7), (3, 3, 65, 2), (2, 64, 9, 9)])
def test_channels_last_copies(name, shape):
    t = make(name, shape, seed=2)
    c = to_ct(t)
    cl = torch.channels_last
    check_same(c.contiguous(memory_format=ctensor.channels_last), t.contiguous(memory_format=cl))
    tcl = t.contiguous(memory_format=cl)
    ccl = to_ct(tcl)
    check_same(ccl.contiguous(), tcl.contiguous())
    dt = torch.empty_like(t, memory_format=cl)
    dc = to_ct(torch.zeros_like(t, memory_format=cl))
    dt.copy_(t)
    dc.copy_(c)
    check_same(dc, dt)


CASTS = [("int32", "float32"), ("float32", "bfloat16"), ("float64", "float16"),
         ("bool", "float32"), ("complex64", "complex128"), ("uint8", "int64"),
         ("float32", "bool"), ("int16", "complex64")]


@pytest.mark.parametrize("src,dst", CASTS)
@pytest.mark.parametrize("shape", [(33, 65), (7, 127), (2, 7, 9, 33)])
def test_casting_permuted_copy(src, dst, shape):
    t = make(src, shape, seed=3)
    c = to_ct(t)
    perm = tuple(reversed(range(len(shape))))
    want = torch.empty(t.permute(perm).shape, dtype=getattr(torch, dst))
    got = to_ct(torch.zeros_like(want))
    want.copy_(t.permute(perm))
    got.copy_(c.permute(perm))
    check_same(got, want)


BINARY = [("float32", "float32"), ("int32", "float32"), ("float16", "float16"),
          ("bfloat16", "float32"), ("float64", "int16"), ("complex64", "complex64"),
          ("complex128", "float64"), ("uint8", "uint8"), ("bool", "bool"), ("int64", "int32")]


@pytest.mark.parametrize("da,db", BINARY)
@pytest.mark.parametrize("shape", [(2, 7, 9, 33), (1, 65, 7, 7), (2, 64, 9, 9), (3, 33, 1, 65),
                                   (0, 3, 4, 5)])
def test_add_mixed_layouts(da, db, shape):
    ta, tb = make(da, shape, seed=4), make(db, shape, seed=5)
    cl = torch.channels_last
    tb_cl = tb.contiguous(memory_format=cl)
    ca, cb_cl = to_ct(ta), to_ct(tb_cl)
    check_same(ctensor.add(ca, cb_cl), torch.add(ta, tb_cl))
    check_same(ctensor.add(cb_cl, ca), torch.add(tb_cl, ta))
    # out= of each layout
    for fmt in (torch.contiguous_format, cl):
        want = torch.empty_like(torch.add(ta, tb_cl), memory_format=fmt)
        got = to_ct(torch.zeros_like(want, memory_format=fmt))
        torch.add(ta, tb_cl, out=want)
        ctensor.add(ca, cb_cl, out=got)
        check_same(got, want)


@pytest.mark.parametrize("da,db", BINARY)
@pytest.mark.parametrize("shape", [(7, 33), (33, 65), (65, 127), (127, 7), (64, 64)])
def test_add_transposed(da, db, shape):
    ta, tx = make(da, shape, seed=6), make(db, shape[::-1], seed=7)
    ca, cx = to_ct(ta), to_ct(tx)
    check_same(ctensor.add(ca, cx.t()), torch.add(ta, tx.t()))
    got, want = ctensor.mul(cx.t(), ca), torch.mul(tx.t(), ta)
    if da != "complex64":
        check_same(got, want)
    else:  # complex64 products round unlike torch 1.13's in any layout: against ctensor's own
        ref = ctensor.mul(to_ct(tx.t().contiguous()), ca)
        assert tuple(got.stride()) == tuple(want.stride())
        assert torch.equal(bits_ct(got), bits_ct(ref))


@pytest.mark.parametrize("name", ["float32", "int16", "complex128", "bool"])
def test_broadcast_operands(name):
    # a stride-0 (expanded) operand next to a transposed one, and a column against a row
    col, row = make(name, (65, 1), seed=8), make(name, (1, 33), seed=9)
    tt = make(name, (33, 65), seed=10).t()
    ccol, crow, ctt = to_ct(col), to_ct(row), to_ct(tt.t().contiguous()).t()
    check_same(ctensor.add(ccol.expand(65, 33), ctt), torch.add(col.expand(65, 33), tt))
    check_same(ctensor.add(ctt, crow), torch.add(tt, row))
    check_same(ctensor.add(ccol, crow), torch.add(col, row))
    check_same(ccol.expand(65, 33).t().contiguous(), col.expand(65, 33).t().contiguous())


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "complex64", "bfloat16"])
def test_inplace_channels_last_self(name):
    shape = (2, 65, 7, 9)
    ta, tb = make(name, shape, seed=11), make(name, shape, seed=12)
    ta = ta.contiguous(memory_format=torch.channels_last)
    ca, cb = to_ct(ta), to_ct(tb)
    ta.add_(tb)
    ca.add_(cb)
    check_same(ca, ta)
    ta.mul_(tb.permute(0, 1, 3, 2).transpose(2, 3))
    ca.mul_(cb.permute(0, 1, 3, 2).transpose(2, 3))
    check_same(ca, ta)


@pytest.mark.parametrize("name", ["float32", "int16", "complex128", "float16"])
def test_unary_mixed_layouts(name):
    shape = (2, 33, 9, 65)
    t = make(name, shape, seed=13).contiguous(memory_format=torch.channels_last)
    c = to_ct(t)
    check_same(ctensor.neg(c), torch.neg(t))
    want = torch.empty(shape, dtype=t.dtype)
    got = to_ct(torch.zeros(shape, dtype=t.dtype))
    torch.neg(t, out=want)
    ctensor.neg(c, out=got)
    check_same(got, want)


# large enough (>= 4 MB written) for the streamed tiles of Note [Streamed tiles]
@pytest.mark.parametrize("name,shape", [("float32", (2, 64, 96, 97)), ("uint8", (4, 64, 128, 129)),
                                        ("complex128", (2, 64, 48, 49)),
                                        ("int16", (2, 33, 130, 250))])
def test_large_to_channels_last(name, shape):
    t = make(name, shape, seed=14)
    c = to_ct(t)
    check_same(c.contiguous(memory_format=ctensor.channels_last),
               t.contiguous(memory_format=torch.channels_last))
    dt = torch.empty_like(t, memory_format=torch.channels_last)
    dc = to_ct(torch.zeros_like(t, memory_format=torch.channels_last))
    dt.copy_(t)
    dc.copy_(c)
    check_same(dc, dt)


# large enough (>= 4 MB written) for the line-aligned streamed rows of 4-byte transposes
# (Note [Line-aligned streamed rows]): odd sizes, sliced sources (storage offsets, row pitches
# that are not a line), a destination slice whose rows start at every offset within a line,
# a batch of transposes
@pytest.mark.parametrize("name", ["float32", "int32"])
def test_large_transposes(name):
    t = make(name, (1031, 1100), seed=15)
    c = to_ct(t)
    check_same(c.t().contiguous(), t.t().contiguous())
    check_same(c[1:, 3:].t().contiguous(), t[1:, 3:].t().contiguous())
    dt = torch.zeros((1100, 1043), dtype=t.dtype)
    dc = to_ct(dt)
    dt[:, 5:5 + 1031].copy_(t.t())
    dc[:, 5:5 + 1031].copy_(c.t())
    check_same(dc, dt)
    b = make(name, (4, 601, 499), seed=16)
    check_same(to_ct(b).permute(0, 2, 1).contiguous(), b.permute(0, 2, 1).contiguous())


# dim 0 (the output's fastest dim) longer than a stack tile, so the gathered inputs go through
# heap tiles sized to dim 0 (walk.c, TILE_BYTES): shorter than one heap tile, one and a bit,
# several with a short last one; the widest element (complex128) has the fewest per tile
@pytest.mark.parametrize("da,db", [("float32", "float32"), ("int8", "float64"),
                                   ("complex128", "complex128"), ("bfloat16", "float32")])
@pytest.mark.parametrize("shape", [(2, 64, 20, 25), (1, 64, 47, 47), (1, 70, 73, 71)])
def test_add_mixed_layouts_long_tiles(da, db, shape):
    ta, tb = make(da, shape, seed=8), make(db, shape, seed=9)
    tb_cl = tb.contiguous(memory_format=torch.channels_last)
    check_same(ctensor.add(to_ct(ta), to_ct(tb_cl)), torch.add(ta, tb_cl))
    tx = make(db, (shape[2] * shape[3], 67), seed=10)
    ty = make(da, (67, shape[2] * shape[3]), seed=11)
    check_same(ctensor.add(to_ct(ty), to_ct(tx).t()), torch.add(ty, tx.t()))
