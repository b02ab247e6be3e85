"""A seeded random driver of the Python API (not collected by pytest: no test_ prefix).

Each sequence builds a pool of tensors and runs random calls over it: factories, views, in-place
and out= arithmetic (out aliasing an input, out a view, out that must grow), copy_, casts,
clones, exports to NumPy and DLPack followed by growth of their source, printing, tolist, and
(some sequences) several threads working on shared tensors. Any call may raise an ordinary
Python exception; those are counted. A failure is: a crash or a sanitizer report (the process
dies), an exception of a type no API call should raise (SystemError: the binding returned
NULL without an exception, ...), an exported value that changes after an operation that did
not write the export's memory, or a new allocation at the address of memory an export still
holds.

    python3 tests/python/api_driver.py --seconds 60 --seed 1
    python3 tests/python/api_driver.py --seed 1 --sequence 17 --verbose   # replay one

A sequence is determined by (seed, index); the threaded ones only up to thread scheduling.
The last line is "api driver: N passed, F failed"; the exit status is non-zero on failure.
"""
import argparse
import random
import sys
import threading
import time
import traceback
import warnings

import numpy as np

import ctensor

try:
    import torch
except ImportError:  # the driver runs without PyTorch too
    torch = None

# What API calls may raise for bad arguments; anything else is a defect.
ALLOWED = (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError, BufferError,
           OverflowError, ZeroDivisionError, AttributeError, KeyError)

DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
               "uint8", "bool", "complex64", "complex128"]
DTYPES = [getattr(ctensor, n) for n in DTYPE_NAMES if hasattr(ctensor, n)]
DEVICES = ["cpu"] * 6 + ["meta"]


class Failure(Exception):
    pass


def span(x):
    """The bytes [lo, hi) a ctensor or torch tensor or NumPy array addresses; None if none."""
    try:
        if isinstance(x, np.ndarray):
            if x.size == 0:
                return None
            lo = x.__array_interface__["data"][0]
            steps = x.strides
            item = x.itemsize
        else:
            if x.is_meta or x.numel() == 0:
                return None
            lo = x.data_ptr()
            item = x.element_size()
            steps = [s * item for s in x.stride()]
        if not lo:
            return None
        return lo, lo + sum((n - 1) * s for n, s in zip(x.shape, steps)) + item
    except ALLOWED:
        return None


def overlap(a, b):
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


class Export:
    """Something that shares a tensor's memory, with a snapshot of what it reads."""

    def __init__(self, kind, obj, where, read):
        self.kind, self.obj, self.where, self.read = kind, obj, where, read
        self.snapshot = read()


def read_numpy(a):
    return lambda: (a.shape, a.tobytes())


def read_list(t):
    return lambda: repr(t.tolist())


class Sequence:
    def __init__(self, rng, check_values=True, log=None):
        self.rng = rng
        self.pool = []
        self.exports = []
        self.raised = 0
        self.check_values = check_values
        self.log = log
        self.lock = threading.Lock()

    # ---- helpers --------------------------------------------------------------------
    def shape(self, max_dims=3):
        r = self.rng
        return tuple(r.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(r.randint(0, max_dims)))

    def pick(self):
        with self.lock:
            if not self.pool:
                return None
            return self.rng.choice(self.pool)

    def add(self, t):
        if isinstance(t, ctensor.Tensor):
            with self.lock:
                self.pool.append(t)
                if len(self.pool) > 14:
                    self.pool.pop(self.rng.randrange(len(self.pool)))
        return t

    def scalar(self):
        r = self.rng
        return r.choice([0, 1, -2, 2.5, True, 1 + 2j, 1e30, float("nan"), 7])

    def operand(self):
        if self.rng.random() < 0.3:
            return self.scalar()
        t = self.pick()
        return t if t is not None else self.scalar()

    # ---- operations -------------------------------------------------------------------
    def op_factory(self):
        r = self.rng
        dtype = r.choice(DTYPES)
        device = r.choice(DEVICES)
        shape = self.shape()
        kind = r.choice(["zeros", "ones", "full", "arange", "empty", "rand", "randn", "tensor"])
        if kind == "full":
            t = ctensor.full(shape, self.scalar(), dtype=dtype, device=device)
        elif kind == "arange":
            t = ctensor.arange(r.randint(0, 12), dtype=dtype, device=device)
        elif kind == "tensor":
            vals = [r.choice([0, 1, -3, 2.5, True]) for _ in range(r.randint(0, 6))]
            t = ctensor.tensor(vals, dtype=dtype if r.random() < 0.7 else None)
        else:
            t = getattr(ctensor, kind)(*shape, dtype=dtype, device=device)
        return self.fresh(t)

    def fresh(self, t):
        """A newly allocated tensor: its memory must not be memory an export holds."""
        self.check_new_memory(span(t), "a new tensor")
        return self.add(t)

    def check_new_memory(self, where, what):
        if not self.check_values:  # threads: another one may have exported it meanwhile
            return
        for e in self.exports:
            if overlap(where, e.where):
                raise Failure("%s was allocated at %r, inside memory a %s export still holds "
                              "(%r)" % (what, where, e.kind, e.where))

    def op_view(self):
        t = self.pick()
        if t is None:
            return None
        r = self.rng
        n = t.dim()
        d = r.randint(-n, n - 1) if n else 0
        kind = r.choice(["slice", "index", "transpose", "permute", "view", "reshape", "expand",
                         "as_strided", "unsqueeze", "squeeze", "narrow", "select", "t",
                         "contiguous", "T"])
        if kind == "slice":
            v = t[r.randint(-3, 3):r.choice([None, r.randint(-3, 5)]):r.choice([1, 1, 2, 3])]
        elif kind == "index":
            v = t[r.randint(-3, 3)]
        elif kind == "transpose":
            v = t.transpose(d, r.randint(-n, n - 1) if n else 0)
        elif kind == "permute":
            p = list(range(n))
            r.shuffle(p)
            v = t.permute(*p)
        elif kind in ("view", "reshape"):
            shape = [t.numel()] if r.random() < 0.5 else [-1] + [1] * r.randint(0, 2)
            if r.random() < 0.2:
                shape = list(self.shape())
            v = getattr(t, kind)(*shape)
        elif kind == "expand":
            v = t.expand(r.randint(1, 3), *t.shape)
        elif kind == "as_strided":
            shape = self.shape(2)
            v = t.as_strided(shape, [r.randint(0, 3) for _ in shape], r.randint(0, 3))
        elif kind == "unsqueeze":
            v = t.unsqueeze(r.randint(-n - 1, n))
        elif kind == "squeeze":
            v = t.squeeze() if r.random() < 0.5 else t.squeeze(d)
        elif kind == "narrow":
            v = t.narrow(d, r.randint(0, 2), r.randint(0, 2))
        elif kind == "select":
            v = t.select(d, r.randint(-2, 2))
        elif kind == "t":
            v = t.t()
        elif kind == "T":
            v = t.T
        else:
            v = t.contiguous()
        return self.add(v)

    def op_cast(self):
        t = self.pick()
        if t is None:
            return None
        r = self.rng
        kind = r.choice(["to", "clone", "copy_", "zero_", "type"])
        if kind == "to":
            return self.add(t.to(r.choice(DTYPES)))
        if kind == "clone":
            return self.fresh(t.clone())
        if kind == "type":
            return self.add(t.to(dtype=r.choice(DTYPES), copy=True))
        if kind == "zero_":
            return self.write(t, lambda: t.zero_())
        src = self.operand()
        if not isinstance(src, ctensor.Tensor):
            return None
        return self.write(t, lambda: t.copy_(src))

    def write(self, target, fn):
        """Run fn, which writes target; exports of target's memory may change."""
        before, ptr = span(target), target.data_ptr()
        try:
            return fn()
        finally:
            after = span(target)
            if after is not None and (ptr == 0 or target.data_ptr() != ptr):
                self.check_new_memory(after, "the new storage of an out= tensor")
            self.refresh(before)
            self.refresh(after)

    def refresh(self, where):
        for e in self.exports:
            if overlap(where, e.where):
                e.snapshot = e.read()

    def op_inplace(self):
        t = self.pick()
        if t is None:
            return None
        r = self.rng
        name = r.choice(["add_", "sub_", "mul_", "div_"])
        other = self.operand()
        return self.write(t, lambda: getattr(t, name)(other))

    def op_out(self):
        r = self.rng
        a, b = self.operand(), self.operand()
        fn = getattr(ctensor, r.choice(["add", "sub", "mul", "div"]))
        choice = r.random()
        if choice < 0.3 and isinstance(a, ctensor.Tensor):
            out = a  # out is an input
        elif choice < 0.5 and isinstance(a, ctensor.Tensor) and a.dim():
            out = a[r.randint(0, 1):]  # out is a view of an input
        elif choice < 0.7:
            out = ctensor.empty(r.randint(0, 2), dtype=r.choice(DTYPES))  # must grow
        else:
            out = self.pick()
        if out is None:
            return None
        self.write(out, lambda: fn(a, b, out=out))
        return self.add(out)

    def op_binary(self):
        a, b = self.operand(), self.operand()
        fn = getattr(ctensor, self.rng.choice(["add", "sub", "mul", "div"]))
        return self.fresh(fn(a, b))

    def op_export(self):
        t = self.pick()
        if t is None:
            return None
        r = self.rng
        kind = r.choice(["numpy", "asarray", "array_dtype", "ct_dlpack", "ct_dlpack_v1",
                         "ct_copy", "np_dlpack", "torch_dlpack", "capsule"])
        where = span(t)
        if kind == "numpy":
            a = t.numpy()
            e = Export(kind, a, span(a), read_numpy(a))
        elif kind == "asarray":
            a = np.asarray(t)
            e = Export(kind, a, span(a), read_numpy(a))
        elif kind == "array_dtype":
            a = t.__array__(np.float64)  # a copy unless t is float64
            e = Export(kind, a, span(a), read_numpy(a))
        elif kind in ("ct_dlpack", "ct_dlpack_v1", "ct_copy"):
            if kind == "ct_dlpack":
                x = ctensor.from_dlpack(t)
            elif kind == "ct_dlpack_v1":
                x = ctensor.from_dlpack(t.__dlpack__(max_version=(1, 0)))
            else:
                x = ctensor.from_dlpack(t.__dlpack__(copy=True, max_version=(1, 1)))
            # the export reads its own alias: out= may legitimately reshape x, in the pool
            mine = x.as_strided(x.shape, x.stride(), x.storage_offset())
            e = Export(kind, mine, span(mine), read_list(mine))
            self.add(x)  # imported memory goes back into the pool: out= must refuse growth
        elif kind == "np_dlpack":
            a = np.from_dlpack(t)
            e = Export(kind, a, span(a), read_numpy(a))
        elif kind == "torch_dlpack":
            if torch is None:
                return None
            x = torch.from_dlpack(t)
            e = Export(kind, x, span(x), lambda: repr(x.tolist()))
        else:
            cap = t.__dlpack__(max_version=r.choice([None, (1, 0)]))
            box = {}

            def read():
                if "t" not in box:  # import when first read: the capsule lives until then
                    box["t"] = ctensor.from_dlpack(cap)
                return repr(box["t"].tolist())
            e = Export(kind, cap, where, lambda: None)
            e.read = read
            if r.random() < 0.5:
                e.snapshot = None  # compare from the first read on
            else:
                e.snapshot = read()
        with self.lock:
            self.exports.append(e)
            if len(self.exports) > 8:
                self.exports.pop(0)
        # then grow the source, the point of all this
        if r.random() < 0.6:
            big = ctensor.ones(r.randint(50, 400), dtype=t.dtype)
            self.write(t, lambda: ctensor.add(big, 0, out=t))
        return None

    def op_write_export(self):
        if not self.exports:
            return None
        e = self.rng.choice(self.exports)
        if isinstance(e.obj, np.ndarray) and e.obj.size and e.obj.flags.writeable:
            e.obj.flat[0] = 1
            self.refresh(e.where)
        return None

    def op_read(self):
        t = self.pick()
        if t is None:
            return None
        kind = self.rng.choice(["repr", "tolist", "item", "str", "bool"])
        if kind == "repr":
            repr(t)
        elif kind == "str":
            str(t)
        elif kind == "tolist":
            t.tolist()
        elif kind == "item":
            t.item()
        else:
            bool(t)
        return None

    def op_drop(self):
        with self.lock:
            if self.pool and self.rng.random() < 0.5:
                self.pool.pop(self.rng.randrange(len(self.pool)))
            elif self.exports:
                self.exports.pop(self.rng.randrange(len(self.exports)))
        return None

    OPS = [("op_factory", 4), ("op_view", 5), ("op_cast", 3), ("op_inplace", 3), ("op_out", 4),
           ("op_binary", 2), ("op_export", 4), ("op_write_export", 1), ("op_read", 2),
           ("op_drop", 2)]

    def step(self):
        names = [n for n, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        name = self.rng.choices(names, weights)[0]
        if self.log:
            self.log(name)
        try:
            getattr(self, name)()
        except Failure:
            raise
        except ALLOWED:
            self.raised += 1
        except Exception as e:  # SystemError and the like: the binding misbehaved
            raise Failure("%s raised %s: %s" % (name, type(e).__name__, e)) from e
        if self.check_values:
            self.check()

    def check(self):
        for e in self.exports:
            now = e.read()
            if e.snapshot is None:
                e.snapshot = now
            elif now != e.snapshot:
                raise Failure("the values of a %s export changed after an unrelated operation:"
                              "\n  before %r\n  after  %r" % (e.kind, e.snapshot, now))


def dlpack_copy_race(seq, rng, stop_at):
    """__dlpack__(copy=True) in one thread while another resizes the same tensor."""
    shared = [ctensor.ones(1, 1, 1, 1, 1, 1, 1, 3)]
    big = ctensor.full((3, 40), 2.0)
    small = ctensor.ones(1, 1, 1, 1, 1, 1, 1, 3)

    def resizer():
        while time.monotonic() < stop_at:
            s = ctensor.ones(1, 1, 1, 1, 1, 1, 1, 3)
            shared[0] = s
            ctensor.add(big, 0, out=s)
            ctensor.add(small, 0, out=s)

    th = threading.Thread(target=resizer)
    th.start()
    try:
        while time.monotonic() < stop_at:
            a = ctensor.from_dlpack(shared[0].__dlpack__(copy=True)).numpy()
            # Only the geometry is checked: the resize publishes new, not yet written storage
            # before the add fills it, and reading elements another thread is writing is the
            # caller's data race (Note [Releasing the GIL] in python/dlpack.c), as in PyTorch.
            if a.shape not in ((1, 1, 1, 1, 1, 1, 1, 3), (3, 40)):
                raise Failure("__dlpack__(copy=True) read a shape the tensor never had: %r"
                              % (a.shape,))
    finally:
        th.join()


def run_threaded(seed, index, steps):
    """A few threads running random calls on one shared pool (no value checks: their
    interleaving is not deterministic), plus the __dlpack__(copy=True) race."""
    rng = random.Random(seed * 1000003 + index)
    seq = Sequence(rng, check_values=False)
    for _ in range(6):
        try:
            seq.op_factory()
        except ALLOWED:
            pass
    failures = []

    def worker(k):
        s = Sequence(random.Random(seed * 1000003 + index * 17 + k), check_values=False)
        s.pool, s.exports, s.lock = seq.pool, seq.exports, seq.lock
        try:
            for _ in range(steps):
                s.step()
        except Failure as e:
            failures.append(e)
        except Exception as e:  # pragma: no cover - reported as a failure
            failures.append(Failure("thread %d: %s" % (k, traceback.format_exc())))
        seq.raised += s.raised

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for th in threads:
        th.start()
    dlpack_copy_race(seq, rng, time.monotonic() + 0.05)
    for th in threads:
        th.join()
    if failures:
        raise failures[0]
    return seq.raised


def run_sequence(seed, index, steps, verbose=False):
    if index % 10 == 9:
        return run_threaded(seed, index, steps // 2)
    rng = random.Random(seed * 1000003 + index)
    log = (lambda name: print("  %d: %s" % (index, name), file=sys.stderr)) if verbose else None
    seq = Sequence(rng, log=log)
    for _ in range(steps):
        seq.step()
    return seq.raised


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=40, help="calls per sequence")
    p.add_argument("--sequence", type=int, default=None, help="run only this sequence")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")  # out= resize warnings and the like
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # threads switch often: more interleavings
    passed = failed = raised = 0
    deadline = time.monotonic() + args.seconds
    indices = [args.sequence] if args.sequence is not None else None
    index = 0
    try:
        while True:
            if indices is not None:
                if not indices:
                    break
                index = indices.pop()
            elif time.monotonic() >= deadline:
                break
            try:
                raised += run_sequence(args.seed, index, args.steps, args.verbose)
                passed += 1
            except Failure as e:
                failed += 1
                print("api driver: seed %d sequence %d failed: %s" % (args.seed, index, e),
                      file=sys.stderr)
                if failed >= 5:
                    break
            index += 1
    finally:
        sys.setswitchinterval(old_interval)
    print("api driver: %d passed, %d failed (seed %d, %d exceptions raised by calls)"
          % (passed, failed, args.seed, raised))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
