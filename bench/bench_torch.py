"""PyTorch's side of bench/run.sh (see README.md).

  bench_torch.py measure [--n N] [--reps R]
      times x.to(dtype) (1 thread, all cores) and out.copy_(x) for the conversions
      bench_convert times; prints "TORCH <conversion> <column> <GB/s>" lines.
  bench_torch.py table --ct FILE --torch FILE [--active ISA] [--n N] [--reps R]
      the comparison table from bench_convert's "RESULT ..." lines and the TORCH lines;
      when a file holds several rounds, each cell is the best round.
"""
import argparse
import os

from bench_timing import best_seconds

CONVERSIONS = [  # name, source dtype, destination dtype (None: torch 1.13 has no such dtype)
    ("float32->float16", "float32", "float16"),
    ("float32->bfloat16", "float32", "bfloat16"),
    ("float32->float8_e4m3fn", "float32", None),
    ("int32->float32", "int32", "float32"),
]
ISAS = ["baseline", "avx2", "avx512"]


def time_torch(n, reps):
    """{conversion: {column: GB/s}} for the conversions torch has; {} without torch."""
    try:
        import torch
    except ImportError:
        return {}, None
    default_threads = torch.get_num_threads()
    # torch's default can be 1 (it is on the 2-core VM this was written on: OpenMP reports one
    # thread); the multi-threaded column then uses every core instead
    many = max(default_threads, os.cpu_count() or 1)
    gen = torch.Generator().manual_seed(0)
    results = {}
    for name, src, dst in CONVERSIONS:
        if dst is None:
            continue
        if src == "float32":
            x = torch.randn(n, generator=gen)
        else:
            x = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), dtype=torch.int32, generator=gen)
        dtype = getattr(torch, dst)
        out = torch.empty(n, dtype=dtype)
        nbytes = n * (x.element_size() + out.element_size())
        row = {}
        for label, threads in (("to_1", 1), ("to_n", many)):
            torch.set_num_threads(threads)
            row[label] = nbytes / best_seconds(lambda: x.to(dtype), reps) / 1e9
        torch.set_num_threads(1)
        row["copy_1"] = nbytes / best_seconds(lambda: out.copy_(x), reps) / 1e9
        torch.set_num_threads(default_threads)
        results[name] = row
    return results, (torch.__version__, many, default_threads)


def read_results(path, tag, key_field, value_field):
    """{conversion: {key: best GB/s}} from the lines of `path` starting with `tag`."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == tag:
                row = rows.setdefault(parts[1], {})
                value = float(parts[value_field])
                row[parts[key_field]] = max(value, row.get(parts[key_field], 0.0))
    return rows


def measure(args):
    rows, info = time_torch(args.n, args.reps)
    if info:
        print(f"INFO {info[0]} {info[1]} {info[2]}")
    for name, row in rows.items():
        for column, value in row.items():
            print(f"TORCH {name} {column} {value:.3f}")


def table(args):
    ct = read_results(args.ct, "RESULT", 2, 5)
    torch_rows = read_results(args.torch, "TORCH", 2, 3)
    memcpy = read_results(args.ct, "REFERENCE", 1, 4).get("memcpy", {}).get("memcpy")
    info = None
    with open(args.torch) as f:
        for line in f:
            if line.startswith("INFO "):
                info = line.split()[1:]
    threads = info[1] if info else "?"

    def fmt(v):
        return "n/a" if v is None else f"{v:.2f}"

    def ratio(a, b):
        return "n/a" if a is None or b is None else f"{a / b:.2f}x"

    head = (["conversion"] + [f"ct {i}" for i in ISAS] +
            ["torch .to() 1t", f"torch .to() {threads}t", "torch copy_ 1t",
             "ct/.to() 1t", f"ct/.to() {threads}t", "ct/copy_ 1t"])
    lines = [head]
    for name, _, _ in CONVERSIONS:
        c = ct.get(name, {})
        active = c.get(args.active) if args.active else (c[max(c, key=ISAS.index)] if c else None)
        t = torch_rows.get(name, {})
        lines.append([name] + [fmt(c.get(i)) for i in ISAS] +
                     [fmt(t.get("to_1")), fmt(t.get("to_n")), fmt(t.get("copy_1")),
                      ratio(active, t.get("to_1")), ratio(active, t.get("to_n")),
                      ratio(active, t.get("copy_1"))])
    widths = [max(len(row[k]) for row in lines) for k in range(len(head))]
    print(f"GB/s = (bytes read + bytes written) / best run, n = {args.n}, {args.reps} runs per "
          f"round, best round; ratios use ctensor's {args.active or 'best'} level")
    if memcpy:
        print(f"yardstick: memcpy of the float32 array (read + write) runs at {memcpy:.2f} GB/s")
    if info:
        print(f"torch {info[0]}: default threads {info[2]}, multi-threaded columns use {info[1]}")
    else:
        print("torch not importable: its columns are n/a")
    for k, row in enumerate(lines):
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["measure", "table"])
    ap.add_argument("--ct")
    ap.add_argument("--torch")
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--active", default=None, help="the ISA level ctensor would pick")
    args = ap.parse_args()
    if args.mode == "measure":
        measure(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
