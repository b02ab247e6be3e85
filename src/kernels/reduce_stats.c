/* Statistical row reductions and scans: Note [Statistical reductions] (reduce_stats.h). */
#include "kernels/reduce_stats.h"

#include <math.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/parallel.h"
#include "ctensor/cpu.h"
#include "kernels/scan_elem.h"

/* NaN-propagating max / min of doubles */
static inline double max_nan(double a, double v) { return (v > a || v != v) ? v : a; }
static inline double min_nan(double a, double v) { return (v < a || v != v) ? v : a; }

static ct_rchunk_fn chunk_fn(void) {
    switch ((int)ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return ct_reduce_impl_chunk_avx2;
#endif
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return ct_reduce_impl_chunk_avx512;
#endif
    default:
        return ct_reduce_impl_chunk_baseline;
    }
}

/* The pass's chunk sums: its first and second (-1: none). */
static void chunk_ids(ct_rpass pass, int *f0, int *f1) {
    static const int first[] = {
        [CT_RPASS_SUM] = CT_RCHUNK_SUM,          [CT_RPASS_NANSUM] = CT_RCHUNK_NANSUM,
        [CT_RPASS_DEV] = CT_RCHUNK_DEV2,         [CT_RPASS_SQ] = CT_RCHUNK_SQ,
        [CT_RPASS_SQSCALED] = CT_RCHUNK_SQSCALED, [CT_RPASS_ABS] = CT_RCHUNK_ABS,
        [CT_RPASS_ABSPOW] = CT_RCHUNK_ABSPOW,    [CT_RPASS_NONZERO] = CT_RCHUNK_NONZERO,
        [CT_RPASS_ABSMAX] = CT_RCHUNK_ABSMAX,    [CT_RPASS_ABSMIN] = CT_RCHUNK_ABSMIN,
        [CT_RPASS_MAX] = CT_RCHUNK_MAX,          [CT_RPASS_EXPSUM] = CT_RCHUNK_EXPSUM,
    };
    *f0 = first[pass];
    *f1 = pass == CT_RPASS_NANSUM ? CT_RCHUNK_NANCOUNT : pass == CT_RPASS_DEV ? CT_RCHUNK_DEV : -1;
}

/* How a pass's chunk results combine: by addition, or max / min. */
static double combine(ct_rpass pass, double a, double b) {
    switch (pass) {
    case CT_RPASS_ABSMAX:
    case CT_RPASS_MAX: return max_nan(a, b);
    case CT_RPASS_ABSMIN: return min_nan(a, b);
    default: return a + b;
    }
}

static double identity(ct_rpass pass) {
    switch (pass) {
    case CT_RPASS_ABSMIN: return INFINITY;
    case CT_RPASS_MAX: return -INFINITY;
    default: return 0.0;
    }
}

typedef struct pass_ctx {
    ct_rpass pass;
    ct_rchunk_fn chunk;
    bool f64;
    int f0, f1;
    const char *src;
    int esize;
    int64_t R, nchunks;
    double p;
    const double *c;
    double *r0, *r1; /* per (row, chunk) */
} pass_ctx;

static void pass_body(void *ctx, int64_t begin, int64_t end) {
    const pass_ctx *k = ctx;
    for (int64_t t = begin; t < end; t++) {
        int64_t o = t / k->nchunks, ch = t % k->nchunks;
        int64_t s = ch * CT_RSTAT_CHUNK;
        int64_t n = k->R - s < CT_RSTAT_CHUNK ? k->R - s : CT_RSTAT_CHUNK;
        const char *x = k->src + (o * k->R + s) * k->esize;
        double c = k->c != NULL ? k->c[o] : 0.0;
        k->r0[t] = k->chunk((ct_rchunk)k->f0, k->f64, x, n, c, k->p);
        if (k->f1 >= 0)
            k->r1[t] = k->chunk((ct_rchunk)k->f1, k->f64, x, n, c, k->p);
    }
}

int ct_reduce_impl_pass(ct_rpass pass, bool f64, const void *src, int64_t O, int64_t R, double p,
                        const double *c, double *s0, double *s1) {
    if (O <= 0)
        return 0;
    int f0, f1;
    chunk_ids(pass, &f0, &f1);
    if (s1 == NULL)
        f1 = -1;
    if (f1 < 0)
        s1 = NULL;
    int64_t nchunks = (R + CT_RSTAT_CHUNK - 1) / CT_RSTAT_CHUNK;
    if (nchunks == 0) {
        for (int64_t o = 0; o < O; o++) {
            s0[o] = identity(pass);
            if (s1 != NULL)
                s1[o] = 0.0;
        }
        return 0;
    }
    pass_ctx k = {.pass = pass, .chunk = chunk_fn(), .f64 = f64, .f0 = f0, .f1 = f1,
                  .src = src, .esize = f64 ? 8 : 4, .R = R,
                  .nchunks = nchunks, .p = p, .c = c, .r0 = s0, .r1 = s1};
    int64_t tasks = O * nchunks;
    size_t bytes = 0;
    double *scratch = NULL;
    if (nchunks > 1) { /* per-chunk results, combined below in chunk order */
        bytes = (size_t)tasks * 2 * sizeof(double);
        scratch = ct_alloc(bytes, 64);
        if (scratch == NULL)
            return -1;
        k.r0 = scratch;
        k.r1 = scratch + tasks;
    }
    int64_t per = R < CT_RSTAT_CHUNK ? R : CT_RSTAT_CHUNK;
    int64_t grain = per >= 65536 ? 1 : 65536 / (per > 0 ? per : 1);
    ct_parallel_for(0, tasks, grain, pass_body, &k);
    if (scratch != NULL) {
        for (int64_t o = 0; o < O; o++) {
            double a = k.r0[o * nchunks], b = f1 >= 0 ? k.r1[o * nchunks] : 0.0;
            for (int64_t ch = 1; ch < nchunks; ch++) {
                a = combine(pass, a, k.r0[o * nchunks + ch]);
                if (f1 >= 0)
                    b += k.r1[o * nchunks + ch];
            }
            s0[o] = a;
            if (s1 != NULL)
                s1[o] = b;
        }
        ct_free(scratch, bytes, 64);
    }
    return 0;
}

/* ---- scans ------------------------------------------------------------------------------ */

typedef struct scan_ctx {
    bool prod;
    ct_scan_type t;
    char *x;
    int64_t R, I;
} scan_ctx;

_Static_assert((int)CT_SCAN_F64 == (int)CT_SCAN_ELEM_F64 &&
                   (int)CT_SCAN_I64 == (int)CT_SCAN_ELEM_I64 &&
                   (int)CT_SCAN_C128 == (int)CT_SCAN_ELEM_C128,
               "scan_elem.h numbers the accumulation types as ct_scan_type");

/* Columns [begin, end) of the O x I columns: each is scanned along R with stride I; a run of
 * columns of one o goes row by row, so the inner loop is contiguous in i. */
static void scan_body(void *ctx, int64_t begin, int64_t end) {
    const scan_ctx *k = ctx;
    int64_t I = k->I, R = k->R;
    while (begin < end) {
        int64_t o = begin / I, i0 = begin % I;
        int64_t i1 = (o + 1) * I < end ? I : end - o * I;
        int64_t isz = k->t == CT_SCAN_C128 ? 16 : 8;
        for (int64_t i = i0; i < i1; i++) /* the accumulator starts at the identity */
            ct_scan_first((int)k->t, k->prod, k->x + (o * R * I + i) * isz);
        for (int64_t r = 1; r < R; r++) {
            int64_t base = (o * R + r) * I, prev = base - I;
            /* the element steps are scan_elem.h's, shared with the device scans */
            switch (k->t) {
            case CT_SCAN_F64: {
                double *x = (double *)(void *)k->x;
                for (int64_t i = i0; i < i1; i++)
                    x[base + i] = ct_scan_f64(k->prod, x[prev + i], x[base + i]);
                break;
            }
            case CT_SCAN_I64: {
                int64_t *x = (int64_t *)(void *)k->x;
                for (int64_t i = i0; i < i1; i++)
                    x[base + i] = ct_scan_i64(k->prod, x[prev + i], x[base + i]);
                break;
            }
            default: {
                double *x = (double *)(void *)k->x;
                for (int64_t i = i0; i < i1; i++)
                    ct_scan_c128(k->prod, x + 2 * (prev + i), x + 2 * (base + i));
                break;
            }
            }
        }
        begin = o * I + i1;
    }
}

void ct_reduce_impl_scan(bool prod, ct_scan_type t, void *x, int64_t O, int64_t R, int64_t I) {
    if (O <= 0 || R < 1 || I <= 0)
        return;
    scan_ctx k = {.prod = prod, .t = t, .x = x, .R = R, .I = I};
    int64_t grain = R >= 65536 ? 1 : 65536 / R;
    ct_parallel_for(0, O * I, grain, scan_body, &k);
}

typedef struct scan_f32_ctx {
    bool prod;
    const float *x;
    float *y;
    int64_t R;
} scan_f32_ctx;

static void scan_f32_body(void *ctx, int64_t begin, int64_t end) {
    const scan_f32_ctx *k = ctx;
    for (int64_t o = begin; o < end; o++) {
        const float *x = k->x + o * k->R;
        float *y = k->y + o * k->R;
        double acc = k->prod ? 1.0 : 0.0;
        if (k->prod)
            for (int64_t r = 0; r < k->R; r++) {
                acc *= (double)x[r];
                y[r] = (float)acc;
            }
        else
            for (int64_t r = 0; r < k->R; r++) {
                acc += (double)x[r];
                y[r] = (float)acc;
            }
    }
}

void ct_reduce_impl_scan_f32(bool prod, const float *x, float *y, int64_t O, int64_t R) {
    if (O <= 0 || R <= 0)
        return;
    scan_f32_ctx k = {.prod = prod, .x = x, .y = y, .R = R};
    int64_t grain = R >= 65536 ? 1 : 65536 / R;
    ct_parallel_for(0, O, grain, scan_f32_body, &k);
}
