/* Throughput and latency of ctensor's element-wise add (bench/README.md, "Arithmetic").
 *
 * Usage: bench_arith [--threads T] [--n N] [--n-large N] [--reps R] [--calls C] [--only LIST]
 *   --threads T   ct_set_num_threads(T), and T OpenMP threads in the bandwidth probe
 *                 (default: ct_get_num_threads())
 *   --n N         the size of every case (10^7)
 *   --n-large N   the second size of the float32 out= case and the probe (10^8; 0: none)
 *   --reps R      timed runs per case, after one warm-up run (10)
 *   --calls C     calls per timed run of the 1-element cases (200000)
 *   --only LIST   only these cases, comma-separated (e.g. "contig+cl,f16+f16"; "none" for
 *                 the probe and the 1-element calls alone)
 *
 * Output (one line each; run_arith.sh collects them over rounds and threads):
 *   INFO isa <active level> threads <T> openmp <0|1>
 *   STREAM <threads> <n> <best ms> <GB/s>
 *       the bandwidth probe: c[i] = a[i] + b[i] over float32 arrays, a plain C loop split
 *       statically over the threads (OpenMP), 12 bytes per element; before every case
 *   STREAM_NT <threads> <n> <best ms> <GB/s>
 *       the same loop with streaming stores (x86-64)
 *   RESULT <case> <out|alloc> <threads> <n> <best ms> <GB/s>
 *       out:   ct_add_out(a, b, 1, c) into a preallocated c
 *       alloc: ct_add(a, b, 1, &c) then ct_tensor_release(c), every call
 *   LATENCY <case> <threads> <ns per call>
 *       add-1:     ct_add + ct_tensor_release on 1-element float32 tensors
 *       add_out-1: ct_add_out into a 1-element float32 tensor
 *
 * Cases (n elements each; dtypes a + b -> result):
 *   f32+f32    float32 + float32 -> float32 (also at --n-large, out only)
 *   i32+f32    int32 + float32 -> float32
 *   f16+f32    float16 + float32 -> float32
 *   f16+f16    float16 + float16 -> float16
 *   bf16+bf16  bfloat16 + bfloat16 -> bfloat16
 *   contig+cl  float32, 4-D (10, 64, 125, 125) at n = 10^7: a contiguous, b channels_last;
 *              the result follows a (contiguous)
 *   contig+t   float32, r x r (r = round(sqrt(n)), 3162 at n = 10^7): a contiguous, b the
 *              transpose (a view) of a contiguous r x r tensor; the result follows a
 * GB/s = (bytes read + bytes written, with the dtypes' element sizes) / the best of R runs;
 * the allocating form counts the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bench_util.h"
#include "ctensor/ctensor.h"

static int check(ct_status st, const char *what) {
    if (st != CT_OK) {
        fprintf(stderr, "bench_arith: %s: %s\n", what, ct_last_error());
        return 1;
    }
    return 0;
}

/* ---- the bandwidth probe -----------------------------------------------------------------
 * Two loops over the same float32 arrays, each split statically over the threads:
 *   STREAM     c[i] = a[i] + b[i], a plain C loop (regular stores, as STREAM's add): the
 *              yardstick of the table's "% probe";
 *   STREAM_NT  the same with non-temporal (streaming) stores, which skip the read of c's
 *              cache lines before writing them: the ceiling of a kernel that streams its
 *              output (printed beside the yardstick, x86-64 only).
 * Both count 12 bytes per element. The probe runs before every case of its size, so that it
 * samples the machine as often as the cases do (a shared VM swings within seconds); the table
 * keeps each figure's best. */

typedef struct probe {
    float *a, *b, *c;
    int64_t n;
    int threads;
} probe;

static void probe_free(probe *p) {
    free(p->a);
    free(p->b);
    free(p->c);
    p->a = p->b = p->c = NULL;
}

static int probe_init(probe *p, int64_t n, int threads) {
    size_t bytes = (size_t)n * sizeof(float);
    bytes = (bytes + 63) / 64 * 64; /* aligned_alloc wants a multiple of the alignment */
    p->n = n;
    p->threads = threads;
    p->a = aligned_alloc(64, bytes);
    p->b = aligned_alloc(64, bytes);
    p->c = aligned_alloc(64, bytes);
    if (p->a == NULL || p->b == NULL || p->c == NULL) {
        fprintf(stderr, "bench_arith: out of memory for the probe at n = %lld\n", (long long)n);
        probe_free(p);
        return 1;
    }
    float *restrict a = p->a, *restrict b = p->b, *restrict c = p->c;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
    for (int64_t i = 0; i < n; i++) { /* first touch by the thread that streams it later */
        a[i] = (float)(i & 1023) * 0.25f;
        b[i] = (float)(i & 511) * 0.5f;
        c[i] = 0.0f;
    }
    return 0;
}

static void probe_add(const probe *p) {
    float *restrict c = p->c;
    const float *restrict a = p->a, *restrict b = p->b;
    int64_t n = p->n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(p->threads) schedule(static)
#endif
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

#if defined(__SSE2__)
/* 64-byte blocks (the arrays are 64-byte aligned), statically split; each thread fences its
 * own streaming stores. */
static void probe_add_nt(const probe *p) {
    float *restrict c = p->c;
    const float *restrict a = p->a, *restrict b = p->b;
    int64_t blocks = p->n / 16;
#ifdef _OPENMP
#pragma omp parallel num_threads(p->threads)
#endif
    {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (int64_t k = 0; k < blocks; k++)
            for (int64_t j = 16 * k; j < 16 * k + 16; j += 4)
                _mm_stream_ps(c + j, _mm_add_ps(_mm_load_ps(a + j), _mm_load_ps(b + j)));
        _mm_sfence();
    }
    for (int64_t i = 16 * blocks; i < p->n; i++)
        c[i] = a[i] + b[i];
}
#endif

/* Best of `reps` runs of each loop after a warm-up; prints the STREAM (and STREAM_NT) line. */
static void probe_run(const probe *p, int reps) {
    double best = 1e30, best_nt = 1e30;
    for (int r = 0; r <= reps; r++) {
        double t0 = now_seconds();
        probe_add(p);
        double t1 = now_seconds();
#if defined(__SSE2__)
        probe_add_nt(p);
#endif
        double t2 = now_seconds();
        if (r > 0 && t1 - t0 < best)
            best = t1 - t0;
        if (r > 0 && t2 - t1 < best_nt)
            best_nt = t2 - t1;
    }
    volatile float sink = p->c[p->n / 2]; /* use the result so the loops cannot be dropped */
    (void)sink;
    double bytes = 12.0 * (double)p->n;
    printf("STREAM %d %lld %.3f %.2f\n", p->threads, (long long)p->n, best * 1e3,
           bytes / best / 1e9);
#if defined(__SSE2__)
    printf("STREAM_NT %d %lld %.3f %.2f\n", p->threads, (long long)p->n, best_nt * 1e3,
           bytes / best_nt / 1e9);
#endif
    fflush(stdout);
}

/* ---- inputs -------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint64_t next_random(void) { return xorshift_next(&rng_state); }

/* A contiguous float32 tensor of `sizes` with values uniform in [-100, 100) (exact in
 * float16 range; no subnormals or infinities to slow any path down), converted to `dtype`
 * and laid out in `format`. */
static ct_tensor *random_tensor(ct_dtype dtype, const int64_t *sizes, int64_t ndim,
                                ct_memory_format format) {
    ct_tensor *f = NULL, *t = NULL, *u = NULL;
    if (check(ct_tensor_empty(sizes, ndim, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED,
                              CT_MEMFMT_CONTIGUOUS, &f),
              "empty"))
        return NULL;
    float *p = ct_tensor_data_ptr(f);
    int64_t n = ct_tensor_numel(f);
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)((double)(next_random() >> 40) * 0x1p-24 * 200.0 - 100.0);
    if (dtype == CT_FLOAT32) {
        t = f;
    } else {
        ct_status st = ct_tensor_to_dtype(f, dtype, &t);
        ct_tensor_release(f);
        if (check(st, "to_dtype"))
            return NULL;
    }
    if (format == CT_MEMFMT_CONTIGUOUS)
        return t;
    ct_status st = ct_tensor_contiguous(t, format, &u);
    ct_tensor_release(t);
    return check(st, "contiguous(channels_last)") ? NULL : u;
}

/* The 4-D shape of the channels_last case: (n / (64*125*125), 64, 125, 125), which is
 * (10, 64, 125, 125) at n = 10^7; for n below 64*125*125, (1, 64, h, h) with
 * h = floor(sqrt(n / 64)) (at least 1). bench_torch_arith.py's cl_shape matches. */
static void cl_shape(int64_t n, int64_t sizes[4]) {
    const int64_t c = 64, hw = 125;
    int64_t batch = n / (c * hw * hw);
    if (batch >= 1) {
        sizes[0] = batch, sizes[1] = c, sizes[2] = hw, sizes[3] = hw;
        return;
    }
    int64_t h = (int64_t)floor(sqrt((double)(n / c)));
    while ((h + 1) * (h + 1) <= n / c)
        h++;
    while (h > 1 && h * h > n / c)
        h--;
    if (h < 1)
        h = 1;
    sizes[0] = 1, sizes[1] = c, sizes[2] = h, sizes[3] = h;
}

/* ---- timed cases --------------------------------------------------------------------------- */

typedef struct arith_case {
    const char *name;
    ct_dtype a, b, out;
    int channels_last; /* b channels_last, 4-D */
    int large;         /* also at --n-large (out= only) */
    int transposed;    /* b a transposed view, 2-D */
} arith_case;

static const arith_case cases[] = {
    {.name = "f32+f32", .a = CT_FLOAT32, .b = CT_FLOAT32, .out = CT_FLOAT32, .large = 1},
    {.name = "i32+f32", .a = CT_INT32, .b = CT_FLOAT32, .out = CT_FLOAT32},
    {.name = "f16+f32", .a = CT_FLOAT16, .b = CT_FLOAT32, .out = CT_FLOAT32},
    {.name = "f16+f16", .a = CT_FLOAT16, .b = CT_FLOAT16, .out = CT_FLOAT16},
    {.name = "bf16+bf16", .a = CT_BFLOAT16, .b = CT_BFLOAT16, .out = CT_BFLOAT16},
    {.name = "contig+cl", .a = CT_FLOAT32, .b = CT_FLOAT32, .out = CT_FLOAT32, .channels_last = 1},
    {.name = "contig+t", .a = CT_FLOAT32, .b = CT_FLOAT32, .out = CT_FLOAT32, .transposed = 1},
};

/* Operand b of case k with `sizes`: contiguous, channels_last, or the transpose of a
 * contiguous tensor of the swapped 2-D sizes. */
static ct_tensor *operand_b(const arith_case *k, const int64_t *sizes, int64_t ndim) {
    if (!k->transposed)
        return random_tensor(k->b, sizes, ndim,
                             k->channels_last ? CT_MEMFMT_CHANNELS_LAST : CT_MEMFMT_CONTIGUOUS);
    int64_t swapped[2] = {sizes[1], sizes[0]};
    ct_tensor *x = random_tensor(k->b, swapped, 2, CT_MEMFMT_CONTIGUOUS), *t = NULL;
    if (x == NULL)
        return NULL;
    ct_status st = ct_tensor_t(x, &t);
    ct_tensor_release(x); /* the view keeps the storage */
    return check(st, "t") ? NULL : t;
}

/* Best seconds of `reps` runs after one warm-up; negative on failure. out == NULL: the
 * allocating form. */
static double time_add(const ct_tensor *a, const ct_tensor *b, ct_tensor *out, int reps) {
    ct_scalar one = ct_scalar_int(1);
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
        ct_status st;
        double t0 = now_seconds();
        if (out != NULL) {
            st = ct_add_out(a, b, one, out);
        } else {
            ct_tensor *c = NULL;
            st = ct_add(a, b, one, &c);
            ct_tensor_release(c); /* freeing the result is part of the call, as in Python */
        }
        double dt = now_seconds() - t0;
        if (check(st, out != NULL ? "ct_add_out" : "ct_add"))
            return -1;
        if (r > 0 && dt < best)
            best = dt;
    }
    return best;
}

static void report(const arith_case *k, const char *mode, int threads, int64_t n, double seconds) {
    double bytes = (double)n * (double)(ct_dtype_itemsize(k->a) + ct_dtype_itemsize(k->b) +
                                        ct_dtype_itemsize(k->out));
    printf("RESULT %s %s %d %lld %.3f %.2f\n", k->name, mode, threads, (long long)n, seconds * 1e3,
           bytes / seconds / 1e9);
    fflush(stdout);
}

static int run_case(const arith_case *k, int64_t n, int reps, int threads, int with_alloc) {
    int64_t sizes[4] = {n, 1, 1, 1};
    int64_t ndim = 1;
    if (k->channels_last) {
        cl_shape(n, sizes);
        ndim = 4;
    } else if (k->transposed) {
        sizes[0] = sizes[1] = (int64_t)llround(sqrt((double)n));
        ndim = 2;
    }
    ct_tensor *a = random_tensor(k->a, sizes, ndim, CT_MEMFMT_CONTIGUOUS);
    ct_tensor *b = operand_b(k, sizes, ndim);
    ct_tensor *c = NULL;
    int bad = a == NULL || b == NULL ||
              check(ct_tensor_empty(sizes, ndim, k->out, NULL, CT_LAYOUT_STRIDED,
                                    CT_MEMFMT_CONTIGUOUS, &c),
                    "empty");
    if (!bad) {
        int64_t numel = ct_tensor_numel(c);
        double t = time_add(a, b, c, reps);
        if (t >= 0)
            report(k, "out", threads, numel, t);
        else
            bad = 1;
        ct_tensor_release(c); /* before the allocating form, which makes its own */
        c = NULL;
        if (with_alloc) {
            t = time_add(a, b, NULL, reps);
            if (t >= 0)
                report(k, "alloc", threads, numel, t);
            else
                bad = 1;
        }
    }
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(c);
    return bad;
}

/* ---- 1-element latency --------------------------------------------------------------------- */

static int latency(int calls, int reps, int threads) {
    int64_t one_size = 1;
    ct_tensor *a = NULL, *b = NULL, *c = NULL;
    if (check(ct_tensor_full(&one_size, 1, ct_scalar_float(1.5), CT_FLOAT32, NULL,
                             CT_LAYOUT_STRIDED, &a),
              "full") ||
        check(ct_tensor_full(&one_size, 1, ct_scalar_float(2.25), CT_FLOAT32, NULL,
                             CT_LAYOUT_STRIDED, &b),
              "full") ||
        check(ct_tensor_empty(&one_size, 1, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED,
                              CT_MEMFMT_CONTIGUOUS, &c),
              "empty")) {
        ct_tensor_release(a);
        ct_tensor_release(b);
        return 1;
    }
    ct_scalar alpha = ct_scalar_int(1);
    double best_alloc = 1e30, best_out = 1e30;
    int bad = 0;
    for (int r = 0; r <= reps && !bad; r++) {
        double t0 = now_seconds();
        for (int i = 0; i < calls; i++) {
            ct_tensor *r1 = NULL;
            if (ct_add(a, b, alpha, &r1) != CT_OK) {
                bad = check(CT_ERR_RUNTIME, "ct_add (1 element)");
                break;
            }
            ct_tensor_release(r1);
        }
        double t1 = now_seconds();
        for (int i = 0; i < calls && !bad; i++)
            if (ct_add_out(a, b, alpha, c) != CT_OK)
                bad = check(CT_ERR_RUNTIME, "ct_add_out (1 element)");
        double t2 = now_seconds();
        if (r > 0 && t1 - t0 < best_alloc)
            best_alloc = t1 - t0;
        if (r > 0 && t2 - t1 < best_out)
            best_out = t2 - t1;
    }
    if (!bad) {
        float v = *(const float *)ct_tensor_data_ptr(c);
        if (v != 3.75f) {
            fprintf(stderr, "bench_arith: 1.5 + 2.25 gave %g\n", (double)v);
            bad = 1;
        }
    }
    if (!bad) {
        printf("LATENCY add-1 %d %.1f\n", threads, best_alloc / calls * 1e9);
        printf("LATENCY add_out-1 %d %.1f\n", threads, best_out / calls * 1e9);
        fflush(stdout);
    }
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(c);
    return bad;
}

/* A check that the adds compute a + b, on small inputs of each case (a benchmark of a wrong
 * kernel would be meaningless): every output element against float arithmetic. */
static int verify(void) {
    const int64_t n = 1000;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !bad; i++) {
        const arith_case *k = &cases[i];
        int64_t sizes[4] = {n, 1, 1, 1}, ndim = 1;
        if (k->channels_last) {
            int64_t s[4] = {2, 3, 4, 5};
            memcpy(sizes, s, sizeof s);
            ndim = 4;
        } else if (k->transposed) {
            sizes[0] = 37, sizes[1] = 29;
            ndim = 2;
        }
        ct_tensor *a = random_tensor(k->a, sizes, ndim, CT_MEMFMT_CONTIGUOUS);
        ct_tensor *b = operand_b(k, sizes, ndim);
        ct_tensor *c = NULL, *a32 = NULL, *b32 = NULL, *c32 = NULL, *bc = NULL;
        bad = a == NULL || b == NULL || check(ct_add(a, b, ct_scalar_int(1), &c), "ct_add") ||
              check(ct_tensor_to_dtype(a, CT_FLOAT32, &a32), "to") ||
              check(ct_tensor_to_dtype(b, CT_FLOAT32, &b32), "to") ||
              check(ct_tensor_contiguous(b32, CT_MEMFMT_CONTIGUOUS, &bc), "contiguous") ||
              check(ct_tensor_to_dtype(c, CT_FLOAT32, &c32), "to");
        if (!bad &&
            (ct_tensor_dtype(c) != k->out || !ct_tensor_is_contiguous(c, CT_MEMFMT_CONTIGUOUS))) {
            fprintf(stderr, "bench_arith: %s: unexpected result dtype or layout\n", k->name);
            bad = 1;
        }
        if (!bad) {
            const float *pa = ct_tensor_data_ptr(a32), *pb = ct_tensor_data_ptr(bc),
                        *pc = ct_tensor_data_ptr(c32);
            int64_t m = ct_tensor_numel(c32);
            /* the reduced-precision results round once: relative error 2^-8 covers bfloat16 */
            double tol = k->out == CT_FLOAT32 ? 1e-6 : 1.0 / 256;
            for (int64_t j = 0; j < m && !bad; j++) {
                double want = (double)pa[j] + (double)pb[j];
                if (fabs((double)pc[j] - want) > tol * fabs(want) + 1e-30) {
                    fprintf(stderr, "bench_arith: %s: element %lld is %g, expected %g\n", k->name,
                            (long long)j, (double)pc[j], want);
                    bad = 1;
                }
            }
        }
        ct_tensor_release(a);
        ct_tensor_release(b);
        ct_tensor_release(c);
        ct_tensor_release(a32);
        ct_tensor_release(b32);
        ct_tensor_release(c32);
        ct_tensor_release(bc);
    }
    return bad;
}

/* Whether `name` is in the comma-separated `list` (NULL: every case). */
static int selected(const char *list, const char *name) {
    if (list == NULL)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t l = end != NULL ? (size_t)(end - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        p += l + (end != NULL);
    }
    return 0;
}

int main(int argc, char **argv) {
    int64_t n = 10000000, n_large = 100000000;
    int reps = 10, calls = 200000, threads = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--n-large") == 0 && i + 1 < argc)
            n_large = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: bench_arith [--threads T] [--n N] [--n-large N] [--reps R] "
                            "[--calls C] [--only LIST]\n");
            return 2;
        }
    }
    if (n < 1 || n_large < 0 || reps < 1 || calls < 1 || threads < 0) {
        fprintf(stderr, "bench_arith: --n, --reps, --calls must be positive\n");
        return 2;
    }
    if (threads > 0 && check(ct_set_num_threads(threads), "set_num_threads"))
        return 2;
    threads = ct_get_num_threads();
#ifdef _OPENMP
    int have_openmp = 1;
#else
    int have_openmp = 0;
#endif
    printf("INFO isa %s threads %d openmp %d\n", ct_cpu_isa_name(ct_cpu_isa_active()), threads,
           have_openmp);
    if (verify())
        return 1;

    probe pr = {0};
    if (probe_init(&pr, n, threads))
        return 1;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (selected(only, cases[i].name)) {
            probe_run(&pr, reps);
            bad |= run_case(&cases[i], n, reps, threads, 1);
        }
    probe_run(&pr, reps);
    probe_free(&pr);
    if (n_large > 0) {
        if (probe_init(&pr, n_large, threads))
            return 1;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (cases[i].large && selected(only, cases[i].name)) {
                probe_run(&pr, reps);
                bad |= run_case(&cases[i], n_large, reps, threads, 0);
            }
        probe_run(&pr, reps);
        probe_free(&pr);
    }
    bad |= latency(calls, 5, threads);
    return bad;
}
