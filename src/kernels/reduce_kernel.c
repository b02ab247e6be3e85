/* The reduction driver: blocks, tiles, threads and the fixed combination order of
 * Note [Reduction kernels] (reduce.h); the loops are per ISA level (reduce_loops.c). */
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

/* One row of R contiguous elements, serially: the same blocks and order as the threaded
 * path (row_blocks), so both give the same bits. */
typedef struct inner_ctx {
    ct_redk op;
    ct_redt t;
    const char *src;
    int64_t R;
    char *out;
    char *parts; /* row_blocks: one accumulator per block */
    ct_reduce_block_fn block;
} inner_ctx;

static void one_row(const inner_ctx *c, const char *row, char *out) {
    int in = ct_redt_in_size(c->t), acc = ct_redt_acc_size(c->t);
    int64_t nb = (c->R + CT_REDUCE_BLOCK - 1) / CT_REDUCE_BLOCK;
    if (nb <= 1) {
        c->block(c->op, c->t, row, c->R, out);
        return;
    }
    /* rows_body only gets rows of at most 64 blocks (longer ones take the threaded path
     * of ct_reduce_impl_run, with the same blocks and combination) */
    char parts[64 * 16];
    for (int64_t b = 0; b < nb; b++) {
        int64_t s = b * CT_REDUCE_BLOCK;
        int64_t n = c->R - s < CT_REDUCE_BLOCK ? c->R - s : CT_REDUCE_BLOCK;
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
        int64_t s = b * CT_REDUCE_BLOCK;
        int64_t n = c->R - s < CT_REDUCE_BLOCK ? c->R - s : CT_REDUCE_BLOCK;
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
    inner_ctx c = {.op = op, .t = t, .src = src, .R = R, .out = out, .block = block_fn()};
    int64_t nb = (R + CT_REDUCE_BLOCK - 1) / CT_REDUCE_BLOCK;
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

void ct_reduce_impl_arg(int is_max, ct_redt t, const void *src, int64_t O, int64_t R, int64_t I,
                        void *values, int64_t *indices) {
    arg_ctx c = {.is_max = is_max, .t = t, .src = src, .R = R, .I = I, .values = values,
                 .indices = indices};
    int64_t grain = R >= 65536 ? 1 : 65536 / (R > 0 ? R : 1);
    ct_parallel_for(0, O * I, grain, arg_body, &c);
}
