"""ctensor's CUDA backend against torch on CUDA, in one run (README.md, "GPU").

    PYTHONPATH=build-gpu/python python3 bench/cuda_bench.py [--n N] [--reps R]

Cases (issue 16): float32 add of 10^8 elements, float16 + float32, int32 + float32,
contiguous + channels_last float32 (10, 64, 125, 125), each as GB/s counting bytes read plus
written and as a fraction of a device-to-device copy of as many bytes measured in the same
run by the same library (copy_); a one-element `a + b` per call (host time, including the
new result tensor); pinned 256 MB host->device and device->host copy_(non_blocking=True).
Each library is timed with its own CUDA events on its current stream, the median of R runs
after two warm-ups (host wall clock and a final synchronize for the one-element add).
float32 sums of 10^8 elements: everything (sum_f32), the rows and the columns of a
(10^5, 1000) view (sum_f32_rows, sum_f32_cols), as GB/s of the input read.

Prints a table: case, ctensor ms, torch ms, ctensor/torch time (below 1: ctensor is faster),
each library's GB/s and its fraction of its own copy. Exit status 1 when a ctensor case
failed, 77 without a usable cuda device.
"""
import argparse
import statistics
import sys
import time
import traceback

import ctensor

try:
    import torch
    TORCH = torch.cuda.is_available()
except ImportError:
    torch = None
    TORCH = False


def timed(lib, fn, reps):
    """Median milliseconds of fn() between two CUDA events of `lib` (ctensor or torch)."""
    for _ in range(2):
        fn()
    lib.cuda.synchronize()
    out = []
    for _ in range(reps):
        start = lib.cuda.Event(enable_timing=True)
        end = lib.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end))
    return statistics.median(out)


def per_call_us(lib, fn, calls=20000, rounds=5):
    """Median over `rounds` of the host time per call of `calls` calls, then synchronize."""
    fn()
    lib.cuda.synchronize()
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        lib.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6 / calls)
    return statistics.median(out)


class Row:
    def __init__(self, case, unit="ms"):
        self.case, self.unit = case, unit
        self.ct = self.th = None          # time
        self.ct_gbs = self.th_gbs = None
        self.ct_frac = self.th_frac = None  # fraction of the library's own copy bandwidth
        self.error = None


def gbs(nbytes, ms):
    return nbytes / (ms * 1e6)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10**8)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    n, reps = args.n, args.reps

    if getattr(ctensor, "cuda", None) is None or not ctensor.cuda.is_available():
        print("cuda_bench.py: ctensor sees no cuda device: skipped")
        return 77
    print(f"ctensor cuda devices: {ctensor.cuda.device_count()}; torch "
          f"{torch.__version__ if torch else 'missing'}, cuda available: {TORCH}; "
          f"n = {n}, median of {reps}")
    libs = [("ct", ctensor)] + ([("th", torch)] if TORCH else [])
    rows = []
    failed = False

    def run_case(row, body):
        """body(lib_name, lib) -> (ms, nbytes or None, copy GB/s or None) for each library."""
        nonlocal failed
        for key, lib in libs:
            try:
                ms, nbytes, copy_gbs = body(key, lib)
            except Exception:  # noqa: BLE001 - report and go on with the other cases
                traceback.print_exc()
                row.error = f"{key}: {sys.exc_info()[1]!s:.60}"
                failed = failed or key == "ct"
                continue
            setattr(row, key, ms)
            if nbytes is not None:
                setattr(row, key + "_gbs", gbs(nbytes, ms))
                if copy_gbs:
                    setattr(row, key + "_frac", gbs(nbytes, ms) / copy_gbs)
        rows.append(row)
        ct_gbs = f"{row.ct_gbs:.1f}" if row.ct_gbs else "-"
        print(f"RESULT {row.case} ct={row.ct} th={row.th} ct_GB/s={ct_gbs}", flush=True)

    # ---- the yardstick and the big adds (one set of tensors per library) ----------------------
    copy_gbs = {}
    big = {}

    def setup(key, lib):
        big[key] = {
            "a32": lib.full((n,), 1.5, dtype=lib.float32, device="cuda"),
            "b32": lib.full((n,), 2.25, dtype=lib.float32, device="cuda"),
            "o32": lib.empty((n,), dtype=lib.float32, device="cuda"),
        }

    def copy_body(key, lib):
        if key not in big:
            setup(key, lib)
        t = big[key]
        ms = timed(lib, lambda: t["o32"].copy_(t["a32"]), reps)
        copy_gbs[key] = gbs(8 * n, ms)
        return ms, 8 * n, None

    run_case(Row("copy_f32_d2d"), copy_body)

    def add_body(a_name, a_dtype, nbytes):
        def body(key, lib):
            t = big[key]
            if a_name not in t:
                t[a_name] = lib.full((n,), 3, dtype=getattr(lib, a_dtype), device="cuda")
            a, b, o = t[a_name], t["b32"], t["o32"]
            ms = timed(lib, lambda: lib.add(a, b, out=o), reps)
            return ms, nbytes, copy_gbs.get(key)
        return body

    run_case(Row("add_f32_f32"), add_body("a32", "float32", 12 * n))
    run_case(Row("add_f16_f32"), add_body("a16", "float16", 10 * n))
    run_case(Row("add_i32_f32"), add_body("ai32", "int32", 12 * n))

    # ---- reductions: a full float32 sum, and rows / columns of a (n / 1000, 1000) matrix ---
    def sum_body(dim):
        def body(key, lib):
            a = big[key]["a32"]
            if dim is None:
                ms = timed(lib, lambda: lib.sum(a), reps)
            else:
                m2 = a.view(n // 1000, 1000)
                ms = timed(lib, lambda: lib.sum(m2, dim), reps)
            return ms, 4 * n, copy_gbs.get(key)
        return body

    run_case(Row("sum_f32"), sum_body(None))
    if n % 1000 == 0:
        run_case(Row("sum_f32_rows"), sum_body(1))
        run_case(Row("sum_f32_cols"), sum_body(0))
    big.clear()
    for key, lib in libs:
        lib.cuda.synchronize()
        lib.cuda.empty_cache()

    # ---- contiguous + channels_last -----------------------------------------------------------
    shape = (10, 64, 125, 125)
    m = 10 * 64 * 125 * 125
    cl = {}

    def cl_body(second_channels_last):
        def body(key, lib):
            if key not in cl:
                x = lib.full(shape, 1.0, device="cuda")
                cl[key] = {"x": x,
                           "y": lib.full(shape, 2.0, device="cuda").contiguous(
                               memory_format=lib.channels_last),
                           "o": lib.empty(shape, device="cuda")}
                c = cl[key]
                c["copy_gbs"] = gbs(8 * m, timed(lib, lambda: c["o"].copy_(c["x"]), reps))
            c = cl[key]
            y = c["y"] if second_channels_last else c["x"]
            ms = timed(lib, lambda: lib.add(c["x"], y, out=c["o"]), reps)
            return ms, 12 * m, c["copy_gbs"]
        return body

    run_case(Row("add_contig_chlast"), cl_body(True))
    run_case(Row("add_contig_contig"), cl_body(False))
    cl.clear()

    # ---- one-element add, host time per call ---------------------------------------------------
    def tiny_body(key, lib):
        a = lib.ones(1, device="cuda")
        b = lib.ones(1, device="cuda")
        return per_call_us(lib, lambda: a + b), None, None

    run_case(Row("add_1elem a+b", unit="us/call"), tiny_body)

    def tiny_out_body(key, lib):
        a = lib.ones(1, device="cuda")
        b = lib.ones(1, device="cuda")
        o = lib.empty(1, device="cuda")
        return per_call_us(lib, lambda: lib.add(a, b, out=o)), None, None

    run_case(Row("add_1elem out=", unit="us/call"), tiny_out_body)

    # ---- pinned host <-> device, 256 MB --------------------------------------------------------
    nb = 256 << 20
    pinned = {}

    def pin_setup(key, lib):
        if key not in pinned:
            host = lib.full((nb,), 7, dtype=lib.uint8).pin_memory()
            assert host.is_pinned()
            pinned[key] = (host, lib.empty((nb,), dtype=lib.uint8, device="cuda"))
        return pinned[key]

    def h2d_body(key, lib):
        host, dev = pin_setup(key, lib)
        return timed(lib, lambda: dev.copy_(host, non_blocking=True), reps), nb, None

    def d2h_body(key, lib):
        host, dev = pin_setup(key, lib)
        return timed(lib, lambda: host.copy_(dev, non_blocking=True), reps), nb, None

    run_case(Row("h2d_pinned_256MB"), h2d_body)
    run_case(Row("d2h_pinned_256MB"), d2h_body)
    pinned.clear()

    # ---- the table ---------------------------------------------------------------------------
    def f(x, fmt):
        return format(x, fmt) if x is not None else "-".rjust(int(fmt.split(".")[0]))

    print()
    print(f"{'case':<20} {'unit':>8} {'ctensor':>10} {'torch':>10} {'ct/torch':>9} "
          f"{'ct GB/s':>9} {'th GB/s':>9} {'ct/copy':>8} {'th/copy':>8}")
    for r in rows:
        ratio = r.ct / r.th if r.ct and r.th else None
        print(f"{r.case:<20} {r.unit:>8} {f(r.ct, '10.4f')} {f(r.th, '10.4f')} "
              f"{f(ratio, '9.3f')} {f(r.ct_gbs, '9.1f')} {f(r.th_gbs, '9.1f')} "
              f"{f(r.ct_frac, '8.3f')} {f(r.th_frac, '8.3f')}"
              + (f"  ERROR {r.error}" if r.error else ""))
    print("ct/torch: ctensor time / torch time (below 1: ctensor faster); x/copy: the case's "
          "GB/s over the same library's device-to-device copy")
    print("sum_*: GB/s of the input read (x/copy: against the copy's bytes read plus written)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
