"""Reductions: ctensor vs torch 1.13 in the same run, 1 and 2 threads, plus a read-bandwidth
probe (numpy's sum of the same bytes read as int64 via a dot with nothing to write: we use
the fastest of ctensor's and torch's int64 max as a plain streaming read would be too slow in
Python; see read_probe). Run: PYTHONPATH=build/python /usr/bin/python3 bench/reduce_bench.py
Prints one line per case: times (median ms) and the ratio torch/ctensor (>= 1.0: ctensor is
as fast or faster), and for the 10^8 sum the fraction of the probe's bandwidth."""
import statistics
import sys
import time

import numpy as np
import torch

import ctensor


def timeit(fn, reps=7, warm=2):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def read_probe(nbytes_array):
    """Read bandwidth: numpy's np.add.reduce over uint64 words is a plain streaming read
    with one add per 8 bytes (integer adds are not the limit); the best of a few runs."""
    words = nbytes_array.view(np.uint64)
    t = min(timeit(lambda: np.bitwise_or.reduce(words), reps=5) for _ in range(2))
    return nbytes_array.nbytes / t


def case(name, make, ct_fn, th_fn, nbytes=None, probe=None):
    a_np = make()
    a_ct = ctensor.from_numpy(a_np) if hasattr(ctensor, "from_numpy") else ctensor.tensor(a_np)
    a_th = torch.from_numpy(a_np)
    for threads in (1, 2):
        ctensor.set_num_threads(threads)
        torch.set_num_threads(threads)
        tc = timeit(lambda: ct_fn(a_ct))
        tt = timeit(lambda: th_fn(a_th))
        line = f"{name:34s} threads={threads} ctensor {tc*1e3:8.2f} ms  torch {tt*1e3:8.2f} ms  ratio {tt/tc:5.2f}x"
        if nbytes is not None and probe is not None:
            line += f"  {nbytes / tc / probe[threads] * 100:5.1f}% of probe ({nbytes/tc/1e9:.1f} GB/s)"
        print(line, flush=True)


def main():
    rng = np.random.default_rng(0)
    big = rng.standard_normal(10**8, dtype=np.float32)
    probe = {}
    for threads in (1, 2):
        # numpy is single-threaded: the probe for 2 threads is ctensor's own int64 copy-free
        # read with 2 threads would be circular; use 1-thread numpy bandwidth * measured scale
        probe[threads] = read_probe(big)
    print(f"read probe (numpy bitwise_or.reduce over the 400 MB): {probe[1]/1e9:.1f} GB/s")
    sq = rng.standard_normal((10**4, 10**4), dtype=np.float32)
    i32 = rng.integers(-1000, 1000, 10**7, dtype=np.int32)
    f7 = big[: 10**7].copy()
    tests = [
        ("sum float32 1e8", lambda: big, lambda a: a.sum(), lambda a: a.sum(), big.nbytes),
        ("sum float32 1e4x1e4 dim=0", lambda: sq, lambda a: a.sum(0), lambda a: a.sum(0), None),
        ("sum float32 1e4x1e4 dim=1", lambda: sq, lambda a: a.sum(1), lambda a: a.sum(1), None),
        ("sum int32 1e7", lambda: i32, lambda a: a.sum(), lambda a: a.sum(), None),
        ("mean float32 1e7", lambda: f7, lambda a: a.mean(), lambda a: a.mean(), None),
        ("amax float32 1e7", lambda: f7, lambda a: a.amax(), lambda a: a.amax(), None),
    ]
    for name, make, cf, tf, nbytes in tests:
        case(name, make, cf, tf, nbytes, probe)
    # accuracy: float32 sum of 1e8 against a float64 reference
    ref = float(np.sum(big, dtype=np.float64))
    a_ct = ctensor.tensor(big) if not hasattr(ctensor, "from_numpy") else ctensor.from_numpy(big)
    ec = abs(float(a_ct.sum().item()) - ref)
    et = abs(float(torch.from_numpy(big).sum().item()) - ref)
    print(f"float32 sum of 1e8 |error| vs float64: ctensor {ec:.3g}, torch {et:.3g}")


if __name__ == "__main__":
    sys.exit(main())
