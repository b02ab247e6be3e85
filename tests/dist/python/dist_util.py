"""Helpers of the global-tensor suite (imported by the test files and by conftest.py).

Every rank runs the whole suite (mpirun -np N python3 -m pytest ...), so everything here is
deterministic and every collective helper is called by every rank in the same order.

The suite keeps its own small model of placements and sbp (plain Python: sorted ranks, a
hierarchy shape, sbp names "S0", "S1", "B", "P") and computes from it, independently of the
library, which slice of the logical tensor each rank must hold (docs/global-tensors.md: the
balanced split, lower parallel ids getting the extra element, applied hierarchy axis by axis).
"""
import re
import zlib

import numpy as np

import ctensor

RANK = ctensor.env.get_rank()
WORLD = ctensor.env.get_world_size()

# ---- placements and sbp: the suite's model ---------------------------------------------------


class Pl:
    """A placement as the tests see it: `nested` as written, sorted ranks, hierarchy shape."""

    def __init__(self, nested, type="cpu"):
        arr = np.array(nested, dtype=np.int64)
        self.nested = nested
        self.type = type
        self.hierarchy = tuple(arr.shape) if arr.ndim else (1,)
        self.ranks = sorted(int(r) for r in arr.ravel())

    def obj(self):
        return ctensor.placement(self.type, self.nested)

    def pid(self, rank=None):
        rank = RANK if rank is None else rank
        return self.ranks.index(rank) if rank in self.ranks else -1

    def coords(self, pid):
        return tuple(int(c) for c in np.unravel_index(pid, self.hierarchy))

    def __eq__(self, other):
        return (self.type, self.ranks, self.hierarchy) == (other.type, other.ranks,
                                                          other.hierarchy)

    def __repr__(self):
        return str(self.nested).replace(" ", "")


def all_ranks():
    return Pl(list(range(WORLD)))


def sbp_obj(name):
    if name == "B":
        return ctensor.sbp.broadcast
    if name == "P":
        return ctensor.sbp.partial_sum
    assert name[0] == "S", name
    return ctensor.sbp.split(int(name[1:]))


def nd_sbp_obj(names):
    return tuple(sbp_obj(n) for n in names)


def balanced(total, n, i):
    """(begin, length) of part i of `total` split into n balanced parts."""
    base, rem = divmod(total, n)
    if i < rem:
        return (base + 1) * i, base + 1
    return (base + 1) * rem + base * (i - rem), base


def box(shape, pl, names, pid):
    """The slices (one per dim) of the logical tensor parallel id `pid` holds, or None for a
    non-member (pid < 0)."""
    if pid < 0:
        return None
    begin = [0] * len(shape)
    length = list(shape)
    coords = pl.coords(pid)
    for k, name in enumerate(names):
        if name[0] == "S":
            d = int(name[1:])
            b, n = balanced(length[d], pl.hierarchy[k], coords[k])
            begin[d] += b
            length[d] = n
    return tuple(slice(b, b + n) for b, n in zip(begin, length))


def empty_local(ndim, np_dtype):
    """What a rank outside the placement holds: every size 0 (a 0-dim zero for 0-dim)."""
    return np.zeros((0,) * ndim, dtype=np_dtype)


def partial_group(pl, names, pid):
    """Index of the partial-sum part a member holds: the row-major index of its coordinates
    on the P axes (B and S axes do not change which part it holds)."""
    p_axes = [k for k, n in enumerate(names) if n == "P"]
    coords = pl.coords(pid)
    idx = 0
    for k in p_axes:
        idx = idx * pl.hierarchy[k] + coords[k]
    return idx


def n_partial_parts(pl, names):
    n = 1
    for k, name in enumerate(names):
        if name == "P":
            n *= pl.hierarchy[k]
    return n


def p_layout_expected(value, in_pl, in_names, out_pl, out_names, pid):
    """The local a member holds of `value` after a conversion to (out_pl, out_names), per
    global.h (OneFlow's layouts): from a 1-D split, or a one-rank input, to 1-D partial_sum,
    each input member's shard goes to its own rank when that rank is in the output placement,
    else to output parallel id (input id % output size), in place in zeros (on the same
    placement: each shard stays where it is); otherwise every partial_sum axis is held by its
    first rank (first_keeps_expected)."""
    if (len(in_names) == 1 and len(out_names) == 1 and out_names[0] == "P"
            and (in_names[0].startswith("S") or len(in_pl.ranks) == 1)
            and not (in_pl == out_pl and in_names[0] == "P")):
        local = np.zeros_like(value)
        for i, r in enumerate(in_pl.ranks):
            dest = out_pl.pid(r)
            if dest < 0:
                dest = i % len(out_pl.ranks)
            if dest == pid:
                sl = box(value.shape, in_pl, in_names, i)
                local[sl] = value[sl]
        return local
    return first_keeps_expected(value, out_pl, out_names, pid)


def first_keeps_expected(value, pl, names, pid):
    """The local a member holds of `value` under (pl, names) when every partial_sum axis is
    held by its first rank (coordinate 0) and the others hold zeros."""
    part = np.ascontiguousarray(value[box(value.shape, pl, names, pid)])
    coords = pl.coords(pid)
    if any(n == "P" and coords[k] != 0 for k, n in enumerate(names)):
        return np.zeros_like(part)
    return part


# ---- dtypes ---------------------------------------------------------------------------------

DTYPES = ["float32", "float64", "int64", "int32", "float16", "bfloat16"]
# numpy storage of each dtype; bfloat16 values are kept as float32 holding bf16 values
NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32,
      "float16": np.float16, "bfloat16": np.float32, "bool": np.bool_}


def ct_dtype(name):
    return getattr(ctensor, name)


def round_bf16(a):
    """float32 -> nearest-even bfloat16, kept as float32 (what torch's .to(bfloat16) does)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(np.float32)


def round_to(name, a):
    a = np.asarray(a, dtype=np.float32)
    if name == "bfloat16":
        return round_bf16(a)
    return a.astype(NP[name])


def local_tensor(arr, name):
    """A local ctensor.Tensor of dtype `name` holding numpy `arr`."""
    arr = np.ascontiguousarray(arr)
    if name == "bfloat16":
        return ctensor.tensor(arr.astype(np.float32)).to(ctensor.bfloat16)
    return ctensor.tensor(arr.astype(NP[name]))


def local_np(t):
    """A local tensor's values as numpy (bfloat16 as float32, exactly), from any device."""
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == ctensor.bfloat16:
        return t.to(ctensor.float32).numpy()
    return t.numpy()


def global_np(g):
    """A global tensor's logical value as numpy (collective)."""
    if g.dtype == ctensor.bfloat16:
        return np.array(g.tolist(), dtype=np.float32).reshape(tuple(g.shape))
    return g.numpy()


def same_bits(a, b):
    """Equal shapes, dtypes and bytes (floats compared bit for bit)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        u = "u%d" % a.dtype.itemsize
        return np.array_equal(np.ascontiguousarray(a).view(u), np.ascontiguousarray(b).view(u))
    return np.array_equal(a, b)


def same_values(a, b):
    """Equal shapes, dtypes and values (0.0 == -0.0: arithmetic on partial sums distributes
    a product over the parts, which may turn a -0.0 into 0.0)."""
    a = np.asarray(a)
    b = np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


def describe(a):
    a = np.asarray(a)
    return "%s %s %s" % (a.dtype, a.shape, np.array2string(a, threshold=40))


# ---- collectives built on the library (every rank must call them) ---------------------------

_ALL = None


def all_placement():
    global _ALL
    if _ALL is None:
        _ALL = ctensor.placement("cpu", list(range(WORLD)))
    return _ALL


def allgather_ints(values):
    """Every rank's list of ints (same length everywhere) -> a (WORLD, len) numpy array."""
    t = ctensor.tensor([list(values)], dtype=ctensor.int64)
    return t.to_global(placement=all_placement(), sbp=ctensor.sbp.split(0)).numpy()


def gather_text_crc(text):
    """CRC-32 of `text` on every rank (collective), to check that all ranks agree."""
    return allgather_ints([zlib.crc32(text.encode())])[:, 0].tolist()


def assert_same_on_all_ranks(text):
    crcs = gather_text_crc(text)
    assert len(set(crcs)) == 1, "rank %d: %r; the ranks' texts differ (crc32 %s)" % (
        RANK, text, crcs)


def escape(msg):
    """A pytest.raises(match=...) pattern for the exact message."""
    return "^" + re.escape(msg) + "$"


# ---- inputs of a boxing case -----------------------------------------------------------------


def make_value_and_parts(shape, name, pl, names, seed, rounding=False, value=None):
    """(logical value, partial parts) for a global tensor of `shape` and dtype `name` given on
    (pl, names). Without partial_sum axes there is one part, the value itself.

    Exact mode: small multiples of 0.5 (integers for integer dtypes) whose partial sums are
    exact in every dtype, in any order. Rounding mode (float16/bfloat16 only): parts are
    arbitrary values of the dtype and the value is their float32 sum in parallel-id order
    rounded once, which is what the library promises for these dtypes (global.h). `value`
    replaces the random value in exact mode."""
    rng = np.random.default_rng(seed)
    n = n_partial_parts(pl, names)
    is_float = name not in ("int64", "int32")
    scale = 0.5 if is_float else 1
    if rounding and n > 1:
        assert name in ("float16", "bfloat16")
        parts = [round_to(name, rng.uniform(-4, 4, shape)) for _ in range(n)]
        acc = parts[0].astype(np.float32)
        for p in parts[1:]:
            acc = (acc + p.astype(np.float32)).astype(np.float32)
        value = round_to(name, acc)
    else:
        if value is None:
            value = (rng.integers(-8, 9, shape) * scale).astype(NP[name])
        value = np.asarray(value).astype(NP[name])
        others = [(rng.integers(-4, 5, shape) * scale).astype(NP[name]) for _ in range(n - 1)]
        first = value.copy()
        for o in others:
            first = (first - o).astype(NP[name])
        parts = [first] + others
    fix = (lambda a: a + np.zeros((), a.dtype)) if is_float else (lambda a: a)  # no -0.0
    return fix(value), [fix(p) for p in parts]


def member_input(parts, pl, names, pid):
    """The local a member passes to to_global for (pl, names)."""
    part = parts[partial_group(pl, names, pid)]
    return np.ascontiguousarray(part[box(part.shape, pl, names, pid)])


def make_global(value, parts, name, pl, names, copy=False):
    """The global tensor (pl, names) holding `value` (partial parts `parts`); this rank's
    local input (None outside the placement) is returned too. Collective."""
    pid = pl.pid()
    if pid >= 0:
        arr = member_input(parts, pl, names, pid)
        local = local_tensor(arr, name)
    else:
        arr = None
        local = ctensor.zeros(1)  # ignored outside the placement
    g = local.to_global(placement=pl.obj(), sbp=nd_sbp_obj(names), copy=copy)
    return g, arr
