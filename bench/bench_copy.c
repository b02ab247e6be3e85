/* Throughput of ctensor's casting and permuting copies (bench/README.md, "Copies").
 *
 * Usage: bench_copy [--n N] [--reps R]
 * Threads: the copy loop reads CT_NUM_THREADS once per process, so run_copy.sh starts this
 * program once per thread count.
 *
 * Cases, each timed two ways:
 *   float32->bfloat16   contiguous n elements: into (dst.copy_(src)), alloc (src.to(bfloat16))
 *   int32->float32      the same
 *   float32-transpose   an r x r matrix (r = round(sqrt(n)), 3162 for 10^7) read through its
 *                       transpose: into (dst.copy_(x.t())), alloc (x.t().contiguous())
 *   float32-to-cl       a contiguous float32 (10, 64, 125, 125) (n = 10^7; other n: the
 *                       batch scales) into channels_last: into (dst channels_last,
 *                       dst.copy_(x)), alloc (x.contiguous(memory_format=channels_last))
 * "into" writes a preallocated output; "alloc" makes (and frees) a new output every call, as
 * PyTorch's .to() and .contiguous() do, so its time includes the page faults of fresh memory.
 *
 * Output, one line per case and mode, then a memcpy of the float32 array as yardstick (split
 * over CT_NUM_THREADS threads with OpenMP when built with it, as the copies are):
 *   RESULT <case> <into|alloc> <threads> <n> <best ms> <GB/s>
 *   REFERENCE memcpy <threads> <n> <best ms> <GB/s>
 * GB/s = (bytes read + bytes written) / the best of R timed runs (after one warm-up run). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "ctensor/ctensor.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint64_t next_random(void) { return xorshift_next(&rng_state); }

static int check(ct_status st, const char *what) {
    if (st != CT_OK) {
        fprintf(stderr, "bench_copy: %s: %s\n", what, ct_last_error());
        return 1;
    }
    return 0;
}

/* A contiguous cpu tensor of `dtype` (float32 or int32) with random values. */
static ct_tensor *random_tensor(ct_dtype dtype, const int64_t *sizes, int64_t ndim) {
    ct_tensor *t = NULL;
    if (check(
            ct_tensor_empty(sizes, ndim, dtype, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t),
            "empty"))
        return NULL;
    int64_t n = ct_tensor_numel(t);
    if (dtype == CT_FLOAT32) {
        float *f = ct_tensor_data_ptr(t);
        for (int64_t i = 0; i < n; i++) /* about N(0, 1): a sum of uniforms */
            f[i] = (float)(((double)(next_random() >> 11) * 0x1p-53 +
                            (double)(next_random() >> 11) * 0x1p-53 - 1.0) *
                           2.449);
    } else {
        int32_t *v = ct_tensor_data_ptr(t);
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)(uint32_t)next_random();
    }
    return t;
}

typedef enum mode { MODE_INTO, MODE_ALLOC } mode;

typedef struct job {
    mode m;
    ct_tensor *dst;       /* MODE_INTO: the preallocated output */
    const ct_tensor *src; /* the source (a transposed view for the permuted case) */
    ct_dtype to;          /* MODE_ALLOC: the dtype of to(), or UNDEFINED for contiguous() */
} job;

static ct_status run_job(const job *j) {
    if (j->m == MODE_INTO)
        return ct_tensor_copy_(j->dst, j->src);
    ct_tensor *out = NULL;
    ct_status st = j->to == CT_DTYPE_UNDEFINED
                       ? ct_tensor_contiguous(j->src, CT_MEMFMT_CONTIGUOUS, &out)
                       : ct_tensor_to_dtype(j->src, j->to, &out);
    ct_tensor_release(out); /* freeing the result is part of the call, as in Python */
    return st;
}

/* Best seconds of `reps` runs after one warm-up; negative on failure. */
static double time_job(const job *j, int reps) {
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
        double t0 = now_seconds();
        if (check(run_job(j), "copy"))
            return -1;
        double dt = now_seconds() - t0;
        if (r > 0 && dt < best)
            best = dt;
    }
    return best;
}

static void report(const char *name, const char *m, const char *threads, int64_t n, double seconds,
                   double bytes) {
    printf("RESULT %s %s %s %lld %.3f %.2f\n", name, m, threads, (long long)n, seconds * 1e3,
           bytes / seconds / 1e9);
    fflush(stdout);
}

static int bench_cast(const char *name, ct_dtype from, ct_dtype to, int64_t n, int reps,
                      const char *threads) {
    ct_tensor *src = random_tensor(from, &n, 1), *dst = NULL;
    if (src == NULL || check(ct_tensor_zeros(&n, 1, to, NULL, CT_LAYOUT_STRIDED, &dst), "zeros"))
        return 1;
    double bytes = (double)n * (double)(ct_dtype_itemsize(from) + ct_dtype_itemsize(to));
    job into = {MODE_INTO, dst, src, to}, alloc = {MODE_ALLOC, NULL, src, to};
    double t1 = time_job(&into, reps), t2 = t1 < 0 ? -1 : time_job(&alloc, reps);
    if (t1 >= 0)
        report(name, "into", threads, n, t1, bytes);
    if (t2 >= 0)
        report(name, "alloc", threads, n, t2, bytes);
    ct_tensor_release(src);
    ct_tensor_release(dst);
    return t1 < 0 || t2 < 0;
}

static int bench_transpose(int64_t r, int reps, const char *threads) {
    int64_t sizes[2] = {r, r};
    ct_tensor *x = random_tensor(CT_FLOAT32, sizes, 2), *xt = NULL, *dst = NULL;
    if (x == NULL || check(ct_tensor_t(x, &xt), "t") ||
        check(ct_tensor_zeros(sizes, 2, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, &dst), "zeros"))
        return 1;
    double bytes = (double)(r * r) * 8.0;
    job into = {MODE_INTO, dst, xt, CT_DTYPE_UNDEFINED};
    job alloc = {MODE_ALLOC, NULL, xt, CT_DTYPE_UNDEFINED};
    double t1 = time_job(&into, reps), t2 = t1 < 0 ? -1 : time_job(&alloc, reps);
    if (t1 >= 0)
        report("float32-transpose", "into", threads, r * r, t1, bytes);
    if (t2 >= 0)
        report("float32-transpose", "alloc", threads, r * r, t2, bytes);
    ct_tensor_release(x);
    ct_tensor_release(xt);
    ct_tensor_release(dst);
    return t1 < 0 || t2 < 0;
}

static int bench_to_channels_last(int64_t n, int reps, const char *threads) {
    int64_t batch = n / (64 * 125 * 125) > 0 ? n / (64 * 125 * 125) : 1;
    int64_t sizes[4] = {batch, 64, 125, 125};
    ct_tensor *x = random_tensor(CT_FLOAT32, sizes, 4), *dst = NULL;
    if (x == NULL || check(ct_tensor_empty(sizes, 4, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED,
                                           CT_MEMFMT_CHANNELS_LAST, &dst),
                           "empty"))
        return 1;
    if (check(ct_tensor_copy_(dst, x), "copy")) /* first touch outside the timing */
        return 1;
    int64_t count = ct_tensor_numel(x);
    double bytes = (double)count * 8.0;
    job into = {MODE_INTO, dst, x, CT_DTYPE_UNDEFINED};
    double t1 = time_job(&into, reps), t2 = -1;
    if (t1 >= 0) { /* alloc: contiguous(channels_last) */
        t2 = 1e30;
        for (int r = 0; r <= reps && t2 >= 0; r++) {
            ct_tensor *out = NULL;
            double t0 = now_seconds();
            if (check(ct_tensor_contiguous(x, CT_MEMFMT_CHANNELS_LAST, &out), "contiguous"))
                t2 = -1;
            ct_tensor_release(out);
            double dt = now_seconds() - t0;
            if (t2 >= 0 && r > 0 && dt < t2)
                t2 = dt;
        }
    }
    if (t1 >= 0)
        report("float32-to-cl", "into", threads, count, t1, bytes);
    if (t2 >= 0)
        report("float32-to-cl", "alloc", threads, count, t2, bytes);
    ct_tensor_release(x);
    ct_tensor_release(dst);
    return t1 < 0 || t2 < 0;
}

static int bench_memcpy(int64_t n, int reps, const char *threads) {
    size_t bytes = (size_t)n * 4;
    char *a = malloc(bytes), *b = malloc(bytes);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "bench_copy: out of memory\n");
        return 1;
    }
    memset(a, 1, bytes);
    memset(b, 0, bytes);
    int nt = atoi(threads) > 0 ? atoi(threads) : 1;
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
        double t0 = now_seconds();
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
        for (int k = 0; k < nt; k++) { /* one static chunk per thread */
            size_t lo = bytes / (size_t)nt * (size_t)k;
            size_t hi = k == nt - 1 ? bytes : bytes / (size_t)nt * (size_t)(k + 1);
            memcpy(b + lo, a + lo, hi - lo);
        }
        double dt = now_seconds() - t0;
        if (r > 0 && dt < best)
            best = dt;
    }
    printf("REFERENCE memcpy %s %lld %.3f %.2f\n", threads, (long long)n, best * 1e3,
           2.0 * (double)bytes / best / 1e9);
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv) {
    int64_t n = 10000000;
    int reps = 10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_copy [--n N] [--reps R]\n");
            return 2;
        }
    }
    if (n < 1 || reps < 1) {
        fprintf(stderr, "bench_copy: --n and --reps must be positive\n");
        return 2;
    }
    const char *threads = getenv("CT_NUM_THREADS");
    if (threads == NULL || *threads == '\0')
        threads = "default";
    int64_t r = (int64_t)llround(sqrt((double)n));
    int bad = bench_cast("float32->bfloat16", CT_FLOAT32, CT_BFLOAT16, n, reps, threads);
    bad |= bench_cast("int32->float32", CT_INT32, CT_FLOAT32, n, reps, threads);
    bad |= bench_transpose(r, reps, threads);
    bad |= bench_to_channels_last(n, reps, threads);
    bad |= bench_memcpy(n, reps, threads);
    return bad;
}
