/* Reduction kernels (src/ops/reduce.c drives them; the plan comes from src/iter/reduce_plan.h).
 *
 * Note [Reduction kernels]
 * A reduction reaches the kernels as a dense array of O x R x I elements of one kernel type
 * (ct_redt) that is reduced over R into O x I accumulators:
 *  - I == 1 ("inner"): each of the O rows of R contiguous elements becomes one value. A row is
 *    cut into fixed blocks of CT_REDUCE_BLOCK elements; a block is summed with many
 *    independent accumulators (SIMD lanes, ct_reduce_impl_block), and the block results are
 *    combined pairwise (a binary-counter cascade) for float sums, in order otherwise.
 *    float32 sums accumulate short float runs into double lanes (CT_REDT_F32D).
 *  - I > 1 ("outer"): the R rows of I elements are added element-wise, vectorised across I,
 *    in tiles of CT_REDUCE_TILE columns (ct_reduce_impl_rows); float sums cascade over rows
 *    (leaves of CT_REDUCE_LEAF rows, combined pairwise); float32 sums add the rows in
 *    double, in order.
 * The blocks and tiles do not depend on the thread count, and the combination order is
 * fixed, so the result is the same bits for any ct_set_num_threads. */
#ifndef CT_KERNELS_REDUCE_H
#define CT_KERNELS_REDUCE_H

#include <stdint.h>

/* What a kernel computes. */
typedef enum ct_redk {
    CT_REDK_SUM = 0,
    CT_REDK_PROD,
    CT_REDK_MAX, /* NaN propagates */
    CT_REDK_MIN, /* NaN propagates */
    CT_REDK_ALL, /* u8 only: every element != 0 -> 1 */
    CT_REDK_ANY, /* u8 only */
    CT_REDK_COUNT
} ct_redk;

/* The element and accumulator types a kernel works in. */
typedef enum ct_redt {
    CT_REDT_F32 = 0, /* float in, float accumulators */
    CT_REDT_F64,     /* double in, double */
    CT_REDT_I64,     /* int64 in, int64 (wrapping) */
    CT_REDT_I32,     /* int32 in, int64 accumulators (sum / prod of int32 give int64) */
    CT_REDT_U8,      /* uint8 / bool in, uint8 (all / any) */
    CT_REDT_C64,     /* complex64 in and out (prod only: complex sums are float sums) */
    CT_REDT_C128,    /* complex128 (prod only) */
    CT_REDT_F32D,    /* float in, double accumulators (sum only: float32, float16 and bfloat16
                        sums; short float runs flushed into double lanes, far more accurate
                        than a float32 cascade) */
    CT_REDT_COUNT
} ct_redt;

#define CT_REDUCE_BLOCK 4096 /* elements of one inner block */
#define CT_REDUCE_TILE 512   /* columns of one outer tile */
#define CT_REDUCE_LEAF 16    /* rows summed plainly before the cascade (outer) */

/* Bytes of one accumulator. */
static inline int ct_redt_acc_size(ct_redt t) {
    return t == CT_REDT_F32 ? 4 : t == CT_REDT_U8 ? 1 : t == CT_REDT_C128 ? 16 : 8;
}
/* The type of a kernel's accumulators read as elements (combining block results). */
static inline ct_redt ct_redt_acc_type(ct_redt t) {
    return t == CT_REDT_I32 ? CT_REDT_I64 : t == CT_REDT_F32D ? CT_REDT_F64 : t;
}
/* Bytes of one input element. */
static inline int ct_redt_in_size(ct_redt t) {
    return t == CT_REDT_F32 || t == CT_REDT_I32 || t == CT_REDT_F32D ? 4
           : t == CT_REDT_U8                                          ? 1
           : t == CT_REDT_C128                                        ? 16
                                                                      : 8;
}

/* Per ISA level (reduce_loops.c): reduce n >= 0 contiguous elements at src into *acc (the
 * op's identity for n == 0). */
typedef void (*ct_reduce_block_fn)(ct_redk op, ct_redt t, const void *src, int64_t n, void *acc);
/* Per ISA level: reduce R >= 0 rows of w contiguous elements (w <= CT_REDUCE_TILE, except
 * for CT_REDT_F32D sums: any w), row r
 * starting at src + r * row_stride elements, into out[0 .. w) accumulators. */
typedef void (*ct_reduce_rows_fn)(ct_redk op, ct_redt t, const void *src, int64_t R,
                                  int64_t row_stride, int64_t w, void *out);

#define CT_REDUCE_DECLARE(SUF)                                                                    \
    void ct_reduce_impl_block##SUF(ct_redk op, ct_redt t, const void *src, int64_t n, void *acc); \
    void ct_reduce_impl_rows##SUF(ct_redk op, ct_redt t, const void *src, int64_t R,              \
                                  int64_t row_stride, int64_t w, void *out);
CT_REDUCE_DECLARE(_baseline)
CT_REDUCE_DECLARE(_avx2)
CT_REDUCE_DECLARE(_avx512)

/* Whether a kernel exists for (op, t). */
int ct_reduce_impl_supported(ct_redk op, ct_redt t);

/* Reduce the dense O x R x I array `src` of type t over R into out[O * I] accumulators
 * (reduce_kernel.c; threads with ct_parallel_for). Returns 0, or -1 when scratch memory could
 * not be allocated (nothing is set: the caller reports CT_ERR_NOMEM). */
int ct_reduce_impl_run(ct_redk op, ct_redt t, const void *src, int64_t O, int64_t R, int64_t I,
                       void *out);

/* Arg reductions (max / min with dim, argmax, argmin): for each of the O x I outputs of the
 * dense O x R x I array `src` of type t (F32, F64 or I64), the index r of the largest
 * (is_max) or smallest element: the first one of equal ones, the first NaN where there is
 * one (PyTorch's rule). Writes the value into values[O * I] (when not NULL; t's type) and the
 * index into indices[O * I] (int64). Threads over O x I (and over parts of long rows);
 * R >= 1. Returns 0, or -1 when scratch memory could not be allocated (nothing set: the
 * caller reports CT_ERR_NOMEM). */
int ct_reduce_impl_arg(int is_max, ct_redt t, const void *src, int64_t O, int64_t R, int64_t I,
                        void *values, int64_t *indices);

/* min and max together (aminmax) of O contiguous rows of R >= 1 elements of type t (F32 or
 * F64), NaN-propagating, into lo[O] and hi[O]: each block is read twice while it is in cache,
 * so the memory is read once. Threads over rows and parts of rows. Returns 0, or -1 when
 * scratch memory could not be allocated (nothing set: the caller reports CT_ERR_NOMEM). */
int ct_reduce_impl_minmax(ct_redt t, const void *src, int64_t O, int64_t R, void *lo, void *hi);

#endif /* CT_KERNELS_REDUCE_H */
