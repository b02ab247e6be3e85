"""PyTorch's side of bench/run_arith.sh, and its table (see README.md, "Arithmetic").

  bench_torch_arith.py measure --threads T [--n N] [--n-large N] [--reps R]
      with torch.set_num_threads(T), times the adds bench_arith times and prints
      "TORCH <case> <out|alloc> <T> <n> <best ms> <GB/s>" lines:
        out    torch.add(a, b, out=c) into a preallocated c
        alloc  a + b, the result dropped at once
      cases f32+f32 (also at --n-large, out only), i32+f32, f16+f32, f16+f16, bf16+bf16 and
      contig+cl (4-D float32, a contiguous + b channels_last), as in bench_arith.c.
  bench_torch_arith.py latency --threads T [--calls C] [--reps R]
      `a + b` on 1-element float32 tensors from Python, best of R timeit runs of C calls:
      "PYLAT torch <T> <ns per call>" and, when `import ctensor` works (PYTHONPATH=<build>/python)
      and its tensors add, "PYLAT ctensor <T> <ns per call>", else "PYLAT ctensor <T> n/a".
  bench_torch_arith.py table --results FILE
      the comparison table, from the STREAM/RESULT/LATENCY lines of bench_arith, the
      CPPTORCH lines of bench_arith_torch and the TORCH/PYLAT lines above, all in FILE; when
      FILE holds several rounds, each cell is its best round (fastest).
"""
import argparse
import math
import sys
import timeit

from bench_timing import best_seconds

# (case, dtype of a, dtype of b, dtype of the result, layout of b, also at --n-large);
# layouts: None (contiguous), "cl" (channels_last, 4-D), "t" (a transposed r x r view)
CASES = [
    ("f32+f32", "float32", "float32", "float32", None, True),
    ("i32+f32", "int32", "float32", "float32", None, False),
    ("f16+f32", "float16", "float32", "float32", None, False),
    ("f16+f16", "float16", "float16", "float16", None, False),
    ("bf16+bf16", "bfloat16", "bfloat16", "bfloat16", None, False),
    ("contig+cl", "float32", "float32", "float32", "cl", False),
    ("contig+t", "float32", "float32", "float32", "t", False),
]
ITEMSIZE = {"float32": 4, "int32": 4, "float16": 2, "bfloat16": 2}

# Speed targets: (case, mode, size) -> (kind, value); kinds:
#   "probe+torch": ctensor >= value x the STREAM probe and >= torch; "torch": >= value x torch;
#   "probe": ctensor >= value x the STREAM probe
TARGETS = {
    ("f32+f32", "out", "n"): ("probe+torch", 0.95),
    ("f32+f32", "out", "n_large"): ("probe+torch", 0.95),
    ("f32+f32", "alloc", "n"): ("torch", 2.0),
    ("i32+f32", "out", "n"): ("torch", 3.0),
    ("i32+f32", "alloc", "n"): ("torch", 3.0),
    ("f16+f32", "out", "n"): ("torch", 4.0),
    ("f16+f32", "alloc", "n"): ("torch", 4.0),
    ("f16+f16", "out", "n"): ("torch", 6.0),
    ("f16+f16", "alloc", "n"): ("torch", 6.0),
    ("bf16+bf16", "out", "n"): ("torch", 1.0),
    ("bf16+bf16", "alloc", "n"): ("torch", 1.0),
    ("contig+cl", "out", "n"): ("torch", 5.0),
    ("contig+cl", "alloc", "n"): ("torch", 5.0),
    # issue 14: mixed layouts at 70% of the probe
    ("contig+t", "out", "n"): ("probe", 0.70),
    ("contig+t", "alloc", "n"): ("probe", 0.70),
}
C_LATENCY_TARGET_NS = 100.0
PY_LATENCY_TARGET_NS = 500.0


def t_shape(n):
    """The 2-D shape of the transposed case: r x r, r = round(sqrt(n)) as bench_arith.c."""
    r = int(round(math.sqrt(n)))
    return (r, r)


def shape_of(layout, n):
    if layout == "cl":
        return cl_shape(n)
    if layout == "t":
        return t_shape(n)
    return (n,)


def cl_shape(n):
    """The 4-D shape of the channels_last case; bench_arith.c's cl_shape matches."""
    c, hw = 64, 125
    batch = n // (c * hw * hw)
    if batch >= 1:
        return (batch, c, hw, hw)
    return (1, c, max(1, math.isqrt(n // c)), max(1, math.isqrt(n // c)))


def measure(args):
    import torch

    torch.set_num_threads(args.threads)
    t = torch.get_num_threads()
    gen = torch.Generator().manual_seed(0)

    def make(dtype, shape, layout):
        # uniform in [-100, 100), as bench_arith.c
        if layout == "t":
            return make(dtype, shape[::-1], None).t()
        x = torch.rand(shape, generator=gen) * 200 - 100
        x = x.to(getattr(torch, dtype))
        if layout == "cl":
            x = x.contiguous(memory_format=torch.channels_last)
        return x

    def run(case, da, db, dc, layout, n, modes):
        shape = shape_of(layout, n)
        a = make(da, shape, None)
        b = make(db, shape, layout)
        c = torch.empty(shape, dtype=getattr(torch, dc))
        numel = c.numel()
        nbytes = numel * (ITEMSIZE[da] + ITEMSIZE[db] + ITEMSIZE[dc])
        check = a + b
        assert check.dtype == c.dtype and check.is_contiguous(), case
        del check
        for mode in modes:
            if mode == "out":
                s = best_seconds(lambda: torch.add(a, b, out=c), args.reps)
            else:
                s = best_seconds(lambda: a + b, args.reps)
            print(f"TORCH {case} {mode} {t} {numel} {s * 1e3:.3f} {nbytes / s / 1e9:.2f}",
                  flush=True)

    for case, da, db, dc, layout, _ in CASES:
        run(case, da, db, dc, layout, args.n, ("out", "alloc"))
    if args.n_large > 0:
        for case, da, db, dc, layout, large in CASES:
            if large:
                run(case, da, db, dc, layout, args.n_large, ("out",))


def latency(args):
    import torch

    torch.set_num_threads(args.threads)
    t = torch.get_num_threads()

    def per_call_ns(a, b):
        timer = timeit.Timer("a + b", globals={"a": a, "b": b})
        timer.timeit(number=min(args.calls, 10000))  # warm-up
        return min(timer.repeat(repeat=args.reps, number=args.calls)) / args.calls * 1e9

    a, b = torch.full((1,), 1.5), torch.full((1,), 2.25)
    print(f"PYLAT torch {t} {per_call_ns(a, b):.1f}", flush=True)
    try:
        import ctensor

        if hasattr(ctensor, "set_num_threads"):
            ctensor.set_num_threads(args.threads)
        ca, cb = ctensor.full((1,), 1.5), ctensor.full((1,), 2.25)
        r = ca + cb
        if float(r[0]) != 3.75:
            raise RuntimeError(f"1.5 + 2.25 gave {r}")
        print(f"PYLAT ctensor {t} {per_call_ns(ca, cb):.1f}", flush=True)
    except Exception as e:  # the module missing, or its tensors without `+` yet
        print(f"PYLAT ctensor {t} n/a  # {type(e).__name__}: {e}".splitlines()[0], flush=True)


# ---- the table --------------------------------------------------------------------------------

def read_results(path):
    """Best value per key over the rounds in `path` (GB/s: highest; ns: lowest)."""
    gbs, ns, stream, stream_nt, info = {}, {}, {}, {}, {}

    def keep_max(d, k, v):
        d[k] = max(d.get(k, 0.0), v)

    def keep_min(d, k, v):
        d[k] = min(d.get(k, float("inf")), v)

    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            try:
                if p[0] in ("RESULT", "TORCH") and len(p) == 7:
                    keep_max(gbs, (p[0], p[1], p[2], int(p[3]), int(p[4])), float(p[6]))
                elif p[0] in ("STREAM", "STREAM_NT") and len(p) == 5:
                    keep_max(stream if p[0] == "STREAM" else stream_nt, (int(p[1]), int(p[2])),
                             float(p[4]))
                elif p[0] in ("LATENCY", "CPPTORCH") and len(p) == 4:
                    keep_min(ns, (p[0], p[1], int(p[2])), float(p[3]))
                elif p[0] == "PYLAT" and len(p) >= 4 and p[3] != "n/a":
                    keep_min(ns, ("PYLAT", p[1], int(p[2])), float(p[3]))
                elif p[0] == "INFO" and len(p) >= 7:
                    info["isa"], info["openmp"] = p[2], p[6]
            except ValueError:
                continue
    return gbs, ns, stream, stream_nt, info


def fmt(v, spec=".2f"):
    return "n/a" if v is None else format(v, spec)


def table(args):
    gbs, ns, stream, stream_nt, info = read_results(args.results)
    threads = sorted({k[3] for k in gbs} | {k[0] for k in stream} | {k[2] for k in ns})
    sizes = sorted({k[4] for k in gbs if k[1] == "f32+f32"})
    n_small = sizes[0] if sizes else None
    n_large = sizes[-1] if len(sizes) > 1 else None

    def sci(n):
        e = int(round(math.log10(n))) if n else 0
        return f"1e{e}" if n == 10 ** e else str(n)

    print("GB/s = (bytes read + bytes written) / best time; ctensor/torch above 1: ctensor faster;")
    print("% probe = GB/s / the STREAM-like probe (c[i] = a[i] + b[i], float32, plain C loop, "
          "same n and threads, same run);")
    print("probe NT = the same loop with streaming stores (no read of c before writing it): "
          "a kernel that streams its output can pass 100% of the plain probe, up to this.")
    print(f"ctensor kernels: {info.get('isa', '?')}; probe threads via OpenMP: "
          f"{'yes' if info.get('openmp') == '1' else 'no (1 thread)'}")
    for t in threads:
        probes = ", ".join(
            f"n={sci(n)}: {stream[(tt, n)]:.2f} GB/s"
            + (f" (NT {stream_nt[(tt, n)]:.2f})" if (tt, n) in stream_nt else "")
            for (tt, n) in sorted(stream) if tt == t)
        print(f"probe, {t} thread(s): {probes or 'n/a'}")
    print()
    print("| case | mode | n | threads | ctensor GB/s | torch GB/s | ctensor/torch "
          "| ctensor % probe | torch % probe | target | met |")
    print("|" + "---|" * 11)
    tally = {"met": 0, "NOT met": 0, "n/a": 0}
    rows = []
    layouts = {c[0]: c[4] for c in CASES}
    for case, _da, _db, _dc, _layout, large in CASES:
        for size_name, n in (("n", n_small), ("n_large", n_large)):
            if n is None or (size_name == "n_large" and not large):
                continue
            for mode in ("out", "alloc"):
                if size_name == "n_large" and mode == "alloc":
                    continue
                for t in threads:
                    rows.append((case, mode, size_name, n, t))
    for case, mode, size_name, n, t in rows:
        n_key = n
        if layouts[case] is not None:  # its numel is the 4-D or 2-D shape's
            n_key = math.prod(shape_of(layouts[case], n))
        c = gbs.get(("RESULT", case, mode, t, n_key))
        p = gbs.get(("TORCH", case, mode, t, n_key))
        probe = stream.get((t, n))
        ratio = c / p if c is not None and p else None
        cpct = 100 * c / probe if c is not None and probe else None
        ppct = 100 * p / probe if p is not None and probe else None
        target = TARGETS.get((case, mode, size_name))
        tstr, met = "", ""
        if target:
            kind, v = target
            if kind == "probe+torch":
                tstr = f">= {v:.0%} probe, >= torch"
                ok = None if cpct is None or ratio is None else (cpct >= 100 * v and ratio >= 1.0)
            elif kind == "probe":
                tstr = f">= {v:.0%} probe"
                ok = None if cpct is None else cpct >= 100 * v
            else:
                tstr = f">= {v:g}x torch"
                ok = None if ratio is None else ratio >= v
            met = "n/a" if ok is None else ("met" if ok else "NOT met")
            tally[met] += 1
        print(f"| {case} | {mode} | {sci(n_key)} | {t} | {fmt(c)} | {fmt(p)} | {fmt(ratio)} "
              f"| {fmt(cpct, '.0f')} | {fmt(ppct, '.0f')} | {tstr} | {met} |")

    print()
    print("1-element float32 add, per call (lower is better):")
    print()
    print("| call | threads | ctensor | torch | torch/ctensor | target | met |")
    print("|" + "---|" * 7)
    lat_rows = [
        ("C: ct_add + release vs C++ at::add", "LATENCY", "CPPTORCH", "add-1", C_LATENCY_TARGET_NS),
        ("C: ct_add_out vs C++ at::add_out", "LATENCY", "CPPTORCH", "add_out-1", None),
        ("Python: a + b", "PYLAT", "PYLAT", None, PY_LATENCY_TARGET_NS),
    ]
    for label, ctag, ttag, name, target in lat_rows:
        for t in threads:
            if ctag == "PYLAT":
                c, p = ns.get(("PYLAT", "ctensor", t)), ns.get(("PYLAT", "torch", t))
            else:
                c, p = ns.get((ctag, name, t)), ns.get((ttag, name, t))
            ratio = p / c if c and p else None
            tstr, met = "", ""
            if target is not None:
                tstr = f"<= {target:g} ns"
                ok = None if c is None else c <= target
                met = "n/a" if ok is None else ("met" if ok else "NOT met")
                tally[met] += 1
            cs = "n/a" if c is None else f"{c:.0f} ns"
            ps = "n/a" if p is None else f"{p / 1e3:.2f} us"
            print(f"| {label} | {t} | {cs} | {ps} | {fmt(ratio, '.1f')} | {tstr} | {met} |")
    print()
    print(f"targets: {tally['met']} met, {tally['NOT met']} not met, {tally['n/a']} not measured "
          f"(of {sum(tally.values())})")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--threads", type=int, required=True)
    m.add_argument("--n", type=int, default=10_000_000)
    m.add_argument("--n-large", type=int, default=100_000_000)
    m.add_argument("--reps", type=int, default=10)
    lt = sub.add_parser("latency")
    lt.add_argument("--threads", type=int, required=True)
    lt.add_argument("--calls", type=int, default=200_000)
    lt.add_argument("--reps", type=int, default=5)
    t = sub.add_parser("table")
    t.add_argument("--results", required=True)
    args = ap.parse_args()
    {"measure": measure, "latency": latency, "table": table}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
