"""Loading a safetensors file: ctensor.load_file against `cat file > /dev/null` with the file
in the page cache (issue 17's goal: at most 1.2x cat), and proof of no second copy.

    PYTHONPATH=build/python .pyenv/bin/python bench/safetensors_bench.py [--mb 1024] [--reps 5]

Writes a file of --mb MiB of float32 tensors (16 tensors) in --dir (default /tmp), reads it
once to warm the page cache, then times, best of --reps:
  cat          `cat file > /dev/null` (a subprocess, as the issue states it)
  load         ctensor.load_file: map the file, parse the header, make the views
  load+touch   load_file, then read one byte of every 4 KiB page of every tensor (so every
               page is really mapped: what any first use of the data costs)
  load+read    load_file, then read every byte (an int64 sum over each tensor's bytes)
  safetensors  safetensors.torch.load_file (the package; copies into torch tensors), when
               installed
and the process's anonymous memory (RssAnon) before and after load+touch: the tensors are
the page cache's pages, so it grows by about nothing (no second copy), while RssFile grows
by the file's size."""
import argparse
import os
import subprocess

import numpy as np

import ctensor

from bench_timing import best_seconds


def rss():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("RssAnon", "RssFile")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out


def touch(tensors):
    """One byte of every page of every tensor (a strided view: no copy of the data)."""
    s = 0
    for t in tensors.values():
        b = t.view(ctensor.uint8).reshape(-1)
        s += int(b[::4096].sum().item())
    return s


def read_all(tensors):
    """Every byte of every tensor (summed as int64: one pass over the memory)."""
    return sum(int(t.view(ctensor.int64).sum().item()) for t in tensors.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dir", default="/tmp")
    args = ap.parse_args()
    path = os.path.join(args.dir, f"ct_bench_{os.getpid()}.safetensors")
    n = args.mb * (1 << 20) // 4 // 16
    try:
        ctensor.save_file({f"w{i}": ctensor.full((n,), float(i)) for i in range(16)}, path)
        size = os.path.getsize(path)
        subprocess.run(f"cat {path} > /dev/null", shell=True, check=True)  # warm the cache
        t_cat = best_seconds(lambda: subprocess.run(f"cat {path} > /dev/null", shell=True,
                                                    check=True), args.reps, warmup=False)
        t_load = best_seconds(lambda: ctensor.load_file(path), args.reps, warmup=False)
        t_touch = best_seconds(lambda: touch(ctensor.load_file(path)), args.reps, warmup=False)
        t_read = best_seconds(lambda: read_all(ctensor.load_file(path)), args.reps, warmup=False)
        before = rss()
        kept = ctensor.load_file(path)
        touch(kept)
        after = rss()
        print(f"file: {size / 2**20:.0f} MiB, best of {args.reps}")
        print(f"  cat > /dev/null     {t_cat * 1e3:9.1f} ms")
        print(f"  load_file           {t_load * 1e3:9.3f} ms   ({t_load / t_cat:.3f}x cat)")
        print(f"  load_file + touch   {t_touch * 1e3:9.1f} ms   ({t_touch / t_cat:.3f}x cat)")
        print(f"  load_file + read    {t_read * 1e3:9.1f} ms   ({t_read / t_cat:.3f}x cat)")
        try:
            import safetensors.torch as st_torch
            t_pkg = best_seconds(lambda: st_torch.load_file(path), max(1, args.reps // 2),
                                 warmup=False)
            print(f"  safetensors.torch   {t_pkg * 1e3:9.1f} ms   ({t_pkg / t_cat:.3f}x cat)")
        except ImportError:
            pass
        grow_anon = after["RssAnon"] - before["RssAnon"]
        grow_file = after["RssFile"] - before["RssFile"]
        print(f"  after load+touch: RssAnon +{grow_anon / 2**20:.1f} MiB, "
              f"RssFile +{grow_file / 2**20:.1f} MiB (the file: {size / 2**20:.0f} MiB)")
        del kept
    finally:
        if os.path.exists(path):
            os.remove(path)


if __name__ == "__main__":
    main()
