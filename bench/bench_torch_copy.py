"""PyTorch's side of bench/run_copy.sh (see README.md, "Copies").

  bench_torch_copy.py measure --threads T [--n N] [--reps R]
      with torch.set_num_threads(T), times the copies bench_copy times and prints
      "TORCH <case> <into|alloc> <T> <n> <best ms> <GB/s>" lines:
        float32->bfloat16   out.copy_(x)        x.to(torch.bfloat16)
        int32->float32      out.copy_(x)        x.to(torch.float32)
        float32-transpose   out.copy_(m.t())    m.t().contiguous()   (m is r x r, r = sqrt(n))
        float32-to-cl       out.copy_(x)        x.contiguous(memory_format=torch.channels_last)
                            (x contiguous (n / 10^6, 64, 125, 125), out channels_last)
  bench_torch_copy.py table --ct FILE --torch FILE
      the comparison table from bench_copy's "RESULT"/"REFERENCE" lines and the "TORCH"
      lines; when the files hold several rounds, each cell is its best round.
"""
import argparse
import math
import sys

from bench_timing import best_seconds

CASES = ["float32->bfloat16", "int32->float32", "float32-transpose", "float32-to-cl"]
MODES = ["into", "alloc"]


def measure(args):
    import torch

    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    n, reps, t = args.n, args.reps, args.threads

    def emit(case, mode, count, seconds, nbytes):
        print(f"TORCH {case} {mode} {t} {count} {seconds * 1e3:.3f} {nbytes / seconds / 1e9:.2f}",
              flush=True)

    x = torch.randn(n, generator=gen)
    out = torch.empty(n, dtype=torch.bfloat16)
    nbytes = n * (4 + 2)
    emit("float32->bfloat16", "into", n, best_seconds(lambda: out.copy_(x), reps), nbytes)
    emit("float32->bfloat16", "alloc", n, best_seconds(lambda: x.to(torch.bfloat16), reps), nbytes)

    x = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), dtype=torch.int32, generator=gen)
    out = torch.empty(n, dtype=torch.float32)
    nbytes = n * (4 + 4)
    emit("int32->float32", "into", n, best_seconds(lambda: out.copy_(x), reps), nbytes)
    emit("int32->float32", "alloc", n, best_seconds(lambda: x.to(torch.float32), reps), nbytes)

    r = int(round(math.sqrt(n)))
    m = torch.randn(r, r, generator=gen)
    out = torch.empty(r, r)
    nbytes = r * r * 8
    emit("float32-transpose", "into", r * r, best_seconds(lambda: out.copy_(m.t()), reps), nbytes)
    emit("float32-transpose", "alloc", r * r,
         best_seconds(lambda: m.t().contiguous(), reps), nbytes)

    batch = max(n // (64 * 125 * 125), 1)
    x = torch.randn(batch, 64, 125, 125, generator=gen)
    out = torch.empty_like(x, memory_format=torch.channels_last)
    out.copy_(x)
    count = x.numel()
    nbytes = count * 8
    emit("float32-to-cl", "into", count, best_seconds(lambda: out.copy_(x), reps), nbytes)
    emit("float32-to-cl", "alloc", count,
         best_seconds(lambda: x.contiguous(memory_format=torch.channels_last), reps), nbytes)


def read_best(path, tag):
    """{(case, mode, threads): best GB/s} from lines starting with `tag`."""
    best = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 7 and parts[0] == tag:
                key = (parts[1], parts[2], parts[3])
                best[key] = max(best.get(key, 0.0), float(parts[6]))
            elif len(parts) == 6 and parts[0] == "REFERENCE" and tag == "RESULT":
                key = ("memcpy", "ref", parts[2])
                best[key] = max(best.get(key, 0.0), float(parts[5]))
    return best


def table(args):
    ct = read_best(args.ct, "RESULT")
    th = read_best(args.torch, "TORCH")
    threads = sorted({k[2] for k in ct} | {k[2] for k in th})
    print("GB/s = (bytes read + bytes written) / best time; ratio = ctensor / torch "
          "(above 1: ctensor faster); % memcpy = GB/s over the yardstick's at that thread "
          "count")
    refs = ", ".join(f"{t} thread(s) {ct[('memcpy', 'ref', t)]:.1f} GB/s"
                     for t in threads if ('memcpy', 'ref', t) in ct)
    if refs:
        print(f"yardstick: memcpy of the float32 array: {refs}")
    print()
    head = ("| case | mode | threads | ctensor GB/s | torch GB/s | ctensor/torch "
            "| ctensor % memcpy | torch % memcpy |")
    print(head)
    print("|" + "---|" * 8)
    for case in CASES:
        for mode in MODES:
            for t in threads:
                c, p = ct.get((case, mode, t)), th.get((case, mode, t))
                cs = f"{c:.2f}" if c is not None else "n/a"
                ps = f"{p:.2f}" if p is not None else "n/a"
                rs = f"{c / p:.2f}" if c is not None and p else "n/a"
                ref = ct.get(("memcpy", "ref", t))
                cp = f"{100 * c / ref:.0f}" if c is not None and ref else "n/a"
                pp = f"{100 * p / ref:.0f}" if p is not None and ref else "n/a"
                print(f"| {case} | {mode} | {t} | {cs} | {ps} | {rs} | {cp} | {pp} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--threads", type=int, required=True)
    m.add_argument("--n", type=int, default=10_000_000)
    m.add_argument("--reps", type=int, default=10)
    t = sub.add_parser("table")
    t.add_argument("--ct", required=True)
    t.add_argument("--torch", required=True)
    args = ap.parse_args()
    if args.cmd == "measure":
        measure(args)
    else:
        table(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
