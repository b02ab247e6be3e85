/* The reduction driver: blocks, tiles, threads and the fixed combination order of
 * Note [Reduction kernels] (reduce.h); the loops are per ISA level (reduce_loops.c). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/parallel.h"
#include "ctensor/cpu.h"
#include "kernels/reduce.h"

int ct_reduce_impl_supported(ct_redk op, ct_redt t) {
    switch (op) {
    case CT_REDK_SUM:
        return (t != CT_REDT_U8 && t < CT_REDT_C64) || t == CT_REDT_F32D;
    case CT_REDK_PROD:
        return t != CT_REDT_U8 && t != CT_REDT_F32D && t < CT_REDT_COUNT;
    case CT_REDK_MAX:
    case CT_REDK_MIN:
        return t == CT_REDT_F32 || t == CT_REDT_F64 || t == CT_REDT_I64;
    case CT_REDK_ALL:
    case CT_REDK_ANY:
        return t == CT_REDT_U8;
    default:
        return 0;
    }
}

static ct_reduce_block_fn block_fn(void) {
    switch ((int)ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return ct_reduce_impl_block_avx2;
#endif
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return ct_reduce_impl_block_avx512;
#endif
    default:
        return ct_reduce_impl_block_baseline;
    }
}

static ct_reduce_rows_fn rows_fn(void) {
    switch ((int)ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return ct_reduce_impl_rows_avx2;
#endif
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return ct_reduce_impl_rows_avx512;
#endif
    default:
        return ct_reduce_impl_rows_baseline;
    }
}

/* Pairwise sums of n >= 1 block results (runs of up to 8 in order at the leaves). */
static double pairwise_f64(const double *a, int64_t n) {
    if (n <= 8) {
        double s = a[0];
        for (int64_t i = 1; i < n; i++)
            s += a[i];
        return s;
    }
    return pairwise_f64(a, n / 2) + pairwise_f64(a + n / 2, n - n / 2);
}
static float pairwise_f32(const float *a, int64_t n) {
    if (n <= 8) {
        float s = a[0];
        for (int64_t i = 1; i < n; i++)
            s += a[i];
        return s;
    }
    return pairwise_f32(a, n / 2) + pairwise_f32(a + n / 2, n - n / 2);
}

/* Combine nb >= 1 block results (accumulators) into *out: pairwise for float sums, in order
 * for everything else, which is exact or order-free. */
static void combine(ct_redk op, ct_redt t, const void *parts, int64_t nb, void *out) {
    ct_redt at = ct_redt_acc_type(t);
    if (op == CT_REDK_SUM && at == CT_REDT_F64) {
        double r = pairwise_f64(parts, nb);
        memcpy(out, &r, sizeof r);
        return;
    }
    if (op == CT_REDK_SUM && at == CT_REDT_F32) {
        float r = pairwise_f32(parts, nb);
        memcpy(out, &r, sizeof r);
        return;
    }
    ct_reduce_rows_fn rows = rows_fn();
    /* the accumulators as rows of one element of their own type */
    rows(op, at, parts, nb, 1, 1, out);
}

/* Elements of one inner block: CT_REDUCE_BLOCK where the block is a float32 (or float64)
 * cascade's leaf; 8 times more where the order does not matter (max, min, integers, all,
 * any) or the lanes are double (float32 sums), so the per-block fold costs less. */
static int64_t block_len(ct_redk op, ct_redt t) {
    bool float_sum = (op == CT_REDK_SUM || op == CT_REDK_PROD) &&
                     (t == CT_REDT_F32 || t == CT_REDT_F64 || t == CT_REDT_C64 ||
                      t == CT_REDT_C128);
    return float_sum ? CT_REDUCE_BLOCK : 8 * CT_REDUCE_BLOCK;
}

/* One row of R contiguous elements, serially: the same blocks and order as the threaded
 * path (row_blocks), so both give the same bits. */
typedef struct inner_ctx {
    ct_redk op;
    ct_redt t;
    const char *src;
    int64_t R;
    char *out;
    char *parts; /* row_blocks: one accumulator per block */
    int64_t blk; /* elements of a block (block_len) */
    ct_reduce_block_fn block;
} inner_ctx;

static void one_row(const inner_ctx *c, const char *row, char *out) {
    int in = ct_redt_in_size(c->t), acc = ct_redt_acc_size(c->t);
    int64_t nb = (c->R + c->blk - 1) / c->blk;
    if (nb <= 1) {
        c->block(c->op, c->t, row, c->R, out);
        return;
    }
    /* rows_body only gets rows of at most 64 blocks (longer ones take the threaded path
     * of ct_reduce_impl_run, with the same blocks and combination) */
    char parts[64 * 16];
    for (int64_t b = 0; b < nb; b++) {
        int64_t s = b * c->blk;
        int64_t n = c->R - s < c->blk ? c->R - s : c->blk;
        c->block(c->op, c->t, row + s * in, n, parts + b * acc);
    }
    combine(c->op, c->t, parts, nb, out);
}

static void rows_body(void *ctx, int64_t begin, int64_t end) {
    const inner_ctx *c = ctx;
    int in = ct_redt_in_size(c->t), acc = ct_redt_acc_size(c->t);
    for (int64_t o = begin; o < end; o++)
        one_row(c, c->src + o * c->R * in, c->out + o * acc);
}

static void blocks_body(void *ctx, int64_t begin, int64_t end) {
    const inner_ctx *c = ctx;
    int in = ct_redt_in_size(c->t), acc = ct_redt_acc_size(c->t);
    for (int64_t b = begin; b < end; b++) {
        int64_t s = b * c->blk;
        int64_t n = c->R - s < c->blk ? c->R - s : c->blk;
        c->block(c->op, c->t, c->src + s * in, n, c->parts + b * acc);
    }
}

/* Columns of one outer tile: wider for float32 sums, whose rows add in order in double (the
 * width does not change the bits), so each row is read in longer runs. */
static int64_t tile_width(ct_redt t) { return t == CT_REDT_F32D ? 4 * CT_REDUCE_TILE : CT_REDUCE_TILE; }

typedef struct outer_ctx {
    ct_redk op;
    ct_redt t;
    const char *src;
    int64_t R, I, ntiles, tile;
    char *out;
    ct_reduce_rows_fn rows;
} outer_ctx;

static void tiles_body(void *ctx, int64_t begin, int64_t end) {
    const outer_ctx *c = ctx;
    int in = ct_redt_in_size(c->t), acc = ct_redt_acc_size(c->t);
    for (int64_t k = begin; k < end; k++) {
        int64_t o = k / c->ntiles, tile = k % c->ntiles;
        int64_t i0 = tile * c->tile;
        int64_t w = c->I - i0 < c->tile ? c->I - i0 : c->tile;
        c->rows(c->op, c->t, c->src + (o * c->R * c->I + i0) * in, c->R, c->I, w,
                c->out + (o * c->I + i0) * acc);
    }
}

int ct_reduce_impl_run(ct_redk op, ct_redt t, const void *src, int64_t O, int64_t R, int64_t I,
                       void *out) {
    if (O <= 0 || I <= 0)
        return 0;
    int in = ct_redt_in_size(t), acc = ct_redt_acc_size(t);
    if (I > 1) {
        outer_ctx c = {.op = op, .t = t, .src = src, .R = R, .I = I, .out = out, .rows = rows_fn()};
        c.tile = tile_width(t);
        c.ntiles = (I + c.tile - 1) / c.tile;
        /* a tile costs R * w reads: a grain of tiles worth about 64K elements */
        int64_t per = R * (I < c.tile ? I : c.tile);
        int64_t grain = per >= 65536 ? 1 : 65536 / (per > 0 ? per : 1);
        ct_parallel_for(0, O * c.ntiles, grain, tiles_body, &c);
        return 0;
    }
    inner_ctx c = {.op = op, .t = t, .src = src, .R = R, .out = out, .block = block_fn(),
                   .blk = block_len(op, t)};
    int64_t nb = (R + c.blk - 1) / c.blk;
    if (nb <= 64) { /* rows of at most 64 blocks: threads over rows */
        int64_t grain = R >= 65536 ? 1 : 65536 / (R > 0 ? R : 1);
        ct_parallel_for(0, O, grain, rows_body, &c);
        return 0;
    }
    /* long rows: every row's blocks in parallel, then combined in order */
    size_t bytes = (size_t)nb * (size_t)acc;
    c.parts = ct_alloc(bytes, 64);
    if (c.parts == NULL)
        return -1;
    for (int64_t o = 0; o < O; o++) {
        c.src = (const char *)src + o * R * in;
        ct_parallel_for(0, nb, 16, blocks_body, &c);
        combine(op, t, c.parts, nb, (char *)out + o * acc);
    }
    ct_free(c.parts, bytes, 64);
    return 0;
}

/* ---- arg reductions ---------------------------------------------------------------------- */

typedef struct arg_ctx {
    int is_max;
    ct_redt t;
    const char *src;
    int64_t R, I;
    char *values;
    int64_t *indices;
} arg_ctx;

/* Whether v replaces the best b so far: larger (smaller), or a NaN where b is none. */
#define ARG_BODY(T)                                                                               \
    for (int64_t k = begin; k < end; k++) {                                                      \
        int64_t o = k / c->I, i = k % c->I;                                                      \
        const T *x = (const T *)(const void *)c->src + o * c->R * c->I + i;                      \
        T best = x[0];                                                                           \
        int64_t at = 0;                                                                          \
        if (best == best)                                                                        \
            for (int64_t r = 1; r < c->R; r++) {                                                 \
                T v = x[r * c->I];                                                               \
                if (v != v) {                                                                    \
                    best = v;                                                                    \
                    at = r;                                                                      \
                    break;                                                                       \
                }                                                                                \
                if (c->is_max ? v > best : v < best) {                                           \
                    best = v;                                                                    \
                    at = r;                                                                      \
                }                                                                                \
            }                                                                                    \
        if (c->values != NULL)                                                                   \
            ((T *)(void *)c->values)[k] = best;                                                  \
        c->indices[k] = at;                                                                      \
    }

static void arg_body(void *ctx, int64_t begin, int64_t end) {
    const arg_ctx *c = ctx;
    switch (c->t) {
    case CT_REDT_F32: ARG_BODY(float) break;
    case CT_REDT_F64: ARG_BODY(double) break;
    default: ARG_BODY(int64_t) break;
    }
}

/* Contiguous rows (I == 1): blocks of ARG_BLOCK elements, each reduced by the vector max /
 * min loop first; only a block whose extreme beats the best so far (strictly: the first of
 * equal ones stays), or holds a NaN, is scanned for the index. The row's parts of
 * ARG_CHUNK elements go to the threads, their (value, index) pairs are combined in order. */
#define ARG_BLOCK 2048
#define ARG_CHUNK (1 << 16)

typedef struct arg_part {
    double v; /* F32 / F64 values (exact in double), or int64 in i */
    int64_t i, at;
    int nan; /* the part holds a NaN, at its first */
} arg_part;

/* Whether value a beats the best b (strictly). */
#define ARG_BEATS(is_max, a, b) ((is_max) ? (a) > (b) : (a) < (b))

#define ARG_SCAN(T, KT)                                                                           \
    static void arg_scan_##KT(int is_max, const T *x, int64_t n, int64_t base,                   \
                              ct_reduce_block_fn block, arg_part *p) {                           \
        T best = 0;                                                                              \
        int64_t at = -1;                                                                         \
        for (int64_t s = 0; s < n; s += ARG_BLOCK) {                                             \
            int64_t m = n - s < ARG_BLOCK ? n - s : ARG_BLOCK;                                   \
            T e;                                                                                 \
            block(is_max ? CT_REDK_MAX : CT_REDK_MIN, CT_REDT_##KT, x + s, m, &e);              \
            if (e != e) { /* the first NaN */                                                    \
                int64_t j = 0;                                                                   \
                while (x[s + j] == x[s + j])                                                     \
                    j++;                                                                         \
                p->nan = 1;                                                                      \
                p->at = base + s + j;                                                            \
                return;                                                                          \
            }                                                                                    \
            if (at < 0 || ARG_BEATS(is_max, e, best)) {                                          \
                int64_t j = 0;                                                                   \
                while (x[s + j] != e)                                                            \
                    j++;                                                                         \
                best = e;                                                                        \
                at = base + s + j;                                                               \
            }                                                                                    \
        }                                                                                        \
        p->nan = 0;                                                                              \
        p->at = at;                                                                              \
        p->v = (double)best;                                                                     \
        p->i = (int64_t)best;                                                                    \
    }
ARG_SCAN(float, F32)
ARG_SCAN(double, F64)
ARG_SCAN(int64_t, I64)

typedef struct arg_row_ctx {
    int is_max;
    ct_redt t;
    const char *src;
    int64_t R, nchunks;
    arg_part *parts;
    ct_reduce_block_fn block;
} arg_row_ctx;

static void arg_row_body(void *ctx, int64_t begin, int64_t end) {
    const arg_row_ctx *c = ctx;
    int in = ct_redt_in_size(c->t);
    for (int64_t k = begin; k < end; k++) {
        int64_t o = k / c->nchunks, ch = k % c->nchunks;
        int64_t s = ch * ARG_CHUNK, n = c->R - s < ARG_CHUNK ? c->R - s : ARG_CHUNK;
        const char *x = c->src + (o * c->R + s) * in;
        if (c->t == CT_REDT_F32)
            arg_scan_F32(c->is_max, (const float *)(const void *)x, n, s, c->block, &c->parts[k]);
        else if (c->t == CT_REDT_F64)
            arg_scan_F64(c->is_max, (const double *)(const void *)x, n, s, c->block,
                         &c->parts[k]);
        else
            arg_scan_I64(c->is_max, (const int64_t *)(const void *)x, n, s, c->block,
                         &c->parts[k]);
    }
}

/* Row by row, the parts in order: the first NaN, else the first strictly better value. */
static int arg_rows(int is_max, ct_redt t, const void *src, int64_t O, int64_t R, void *values,
                    int64_t *indices) {
    int64_t nchunks = (R + ARG_CHUNK - 1) / ARG_CHUNK;
    size_t bytes = (size_t)(O * nchunks) * sizeof(arg_part);
    arg_part *parts = ct_alloc(bytes, 64);
    if (parts == NULL)
        return -1;
    arg_row_ctx c = {.is_max = is_max, .t = t, .src = src, .R = R, .nchunks = nchunks,
                     .parts = parts, .block = block_fn()};
    ct_parallel_for(0, O * nchunks, 1, arg_row_body, &c);
    int in = ct_redt_in_size(t);
    for (int64_t o = 0; o < O; o++) {
        const arg_part *best = &parts[o * nchunks];
        for (int64_t ch = 1; ch < nchunks && !best->nan; ch++) {
            const arg_part *p = &parts[o * nchunks + ch];
            bool better = t == CT_REDT_I64 ? ARG_BEATS(is_max, p->i, best->i)
                                           : ARG_BEATS(is_max, p->v, best->v);
            if (p->nan || better)
                best = p;
        }
        indices[o] = best->at;
        if (values != NULL) /* the element itself (a NaN keeps its bits) */
            memcpy((char *)values + o * in, (const char *)src + (o * R + best->at) * in,
                   (size_t)in);
    }
    ct_free(parts, bytes, 64);
    return 0;
}

int ct_reduce_impl_arg(int is_max, ct_redt t, const void *src, int64_t O, int64_t R, int64_t I,
                       void *values, int64_t *indices) {
    if (I == 1 && R >= ARG_BLOCK)
        return arg_rows(is_max, t, src, O, R, values, indices);
    arg_ctx c = {.is_max = is_max, .t = t, .src = src, .R = R, .I = I, .values = values,
                 .indices = indices};
    int64_t grain = R >= 65536 ? 1 : 65536 / (R > 0 ? R : 1);
    ct_parallel_for(0, O * I, grain, arg_body, &c);
    return 0;
}

/* ---- min and max together ------------------------------------------------------------------ */

#define MM_BLOCK 8192 /* elements read twice from cache */

typedef struct mm_ctx {
    ct_redt t;
    const char *src;
    int64_t R, nchunks;
    double *lo, *hi; /* per (row, chunk): float and double values are exact in double */
    ct_reduce_block_fn block;
} mm_ctx;

static double nan_max(double a, double v) { return (v > a || v != v) ? v : a; }
static double nan_min(double a, double v) { return (v < a || v != v) ? v : a; }

static void mm_body(void *ctx, int64_t begin, int64_t end) {
    const mm_ctx *c = ctx;
    int in = ct_redt_in_size(c->t);
    for (int64_t k = begin; k < end; k++) {
        int64_t o = k / c->nchunks, ch = k % c->nchunks;
        int64_t s0 = ch * ARG_CHUNK, n = c->R - s0 < ARG_CHUNK ? c->R - s0 : ARG_CHUNK;
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t s = 0; s < n; s += MM_BLOCK) {
            int64_t m = n - s < MM_BLOCK ? n - s : MM_BLOCK;
            const char *x = c->src + (o * c->R + s0 + s) * in;
            double a, b;
            if (c->t == CT_REDT_F32) {
                float fa, fb;
                c->block(CT_REDK_MIN, CT_REDT_F32, x, m, &fa);
                c->block(CT_REDK_MAX, CT_REDT_F32, x, m, &fb);
                a = fa;
                b = fb;
            } else {
                c->block(CT_REDK_MIN, CT_REDT_F64, x, m, &a);
                c->block(CT_REDK_MAX, CT_REDT_F64, x, m, &b);
            }
            lo = nan_min(lo, a);
            hi = nan_max(hi, b);
        }
        c->lo[k] = lo;
        c->hi[k] = hi;
    }
}

int ct_reduce_impl_minmax(ct_redt t, const void *src, int64_t O, int64_t R, void *lo, void *hi) {
    int64_t nchunks = (R + ARG_CHUNK - 1) / ARG_CHUNK;
    size_t bytes = (size_t)(O * nchunks) * 2 * sizeof(double);
    double *parts = ct_alloc(bytes, 64);
    if (parts == NULL)
        return -1;
    mm_ctx c = {.t = t, .src = src, .R = R, .nchunks = nchunks, .lo = parts,
                .hi = parts + O * nchunks, .block = block_fn()};
    ct_parallel_for(0, O * nchunks, 1, mm_body, &c);
    for (int64_t o = 0; o < O; o++) {
        double a = c.lo[o * nchunks], b = c.hi[o * nchunks];
        for (int64_t ch = 1; ch < nchunks; ch++) {
            a = nan_min(a, c.lo[o * nchunks + ch]);
            b = nan_max(b, c.hi[o * nchunks + ch]);
        }
        if (t == CT_REDT_F32) {
            ((float *)lo)[o] = (float)a;
            ((float *)hi)[o] = (float)b;
        } else {
            ((double *)lo)[o] = a;
            ((double *)hi)[o] = b;
        }
    }
    ct_free(parts, bytes, 64);
    return 0;
}
