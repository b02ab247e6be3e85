"""Matrix products: ctensor vs torch 1.13 (its own BLAS) vs a direct cblas_sgemm call into
the OpenBLAS that ctensor links, in one run, at 1 and 2 threads.

    PYTHONPATH=build/python CT_LIBCTENSOR=build/libctensor.so python3 bench/matmul_bench.py

Prints the best-of-N time of each and the ratios torch/ctensor (>1: ctensor faster) and
ctensor/cblas (fraction of the direct call's speed)."""
import ctypes
import sys
import time

import ctensor
import torch

from bench_timing import load_openblas

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def best(fn, reps=REPS):
    fn()
    t = float("inf")
    for _ in range(reps):
        s = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - s)
    return t


BLAS = load_openblas()


def cblas_sgemm_time(n):
    if BLAS is None:
        return None
    a = (ctypes.c_float * (n * n))()
    b = (ctypes.c_float * (n * n))()
    c = (ctypes.c_float * (n * n))()
    f = BLAS.cblas_sgemm
    f.argtypes = [ctypes.c_int] * 6 + [ctypes.c_float, ctypes.c_void_p, ctypes.c_int,
                                       ctypes.c_void_p, ctypes.c_int, ctypes.c_float,
                                       ctypes.c_void_p, ctypes.c_int]
    return best(lambda: f(101, 111, 111, n, n, n, 1.0, a, n, b, n, 0.0, c, n))


def case(name, mk, op, extra=None):
    xs = [mk(ctensor), mk(torch)]
    tc = best(lambda: op(ctensor, *xs[0]))
    tt = best(lambda: op(torch, *xs[1]))
    line = f"{name:32s} ctensor {tc * 1e3:9.2f} ms  torch {tt * 1e3:9.2f} ms  torch/ctensor {tt / tc:5.2f}x"
    if extra is not None:
        te = extra()
        if te is not None:
            line += f"  cblas {te * 1e3:9.2f} ms  ctensor/cblas speed {te / tc:5.2f}"
    print(line, flush=True)


def main():
    for threads in (1, 2):
        ctensor.set_num_threads(threads)
        torch.set_num_threads(threads)
        if BLAS is not None:
            BLAS.openblas_set_num_threads(threads)
        print(f"--- {threads} thread(s)")
        case("float32 matmul 2048", lambda L: (L.rand(2048, 2048), L.rand(2048, 2048)),
             lambda L, a, b: L.matmul(a, b), lambda: cblas_sgemm_time(2048))
        case("float32 bmm 64x256x256", lambda L: (L.rand(64, 256, 256), L.rand(64, 256, 256)),
             lambda L, a, b: L.bmm(a, b))
        case("float16 matmul 1024 (torch: f32)",
             lambda L: (L.rand(1024, 1024).to(L.float16 if L is ctensor else L.float32),
                        L.rand(1024, 1024).to(L.float16 if L is ctensor else L.float32)),
             lambda L, a, b: L.matmul(a, b))
        case("bfloat16 matmul 1024",
             lambda L: (L.rand(1024, 1024).to(L.bfloat16), L.rand(1024, 1024).to(L.bfloat16)),
             lambda L, a, b: L.matmul(a, b))
        case("int32 matmul 512",
             lambda L: (L.randint(-9, 9, (512, 512), dtype=L.int32),
                        L.randint(-9, 9, (512, 512), dtype=L.int32)),
             lambda L, a, b: L.matmul(a, b))


if __name__ == "__main__":
    main()
