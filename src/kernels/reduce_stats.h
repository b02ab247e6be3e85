/* Statistical row reductions (nansum, nanmean, var/std, norm, logsumexp; src/ops/reduce_stats.c
 * drives them) and scans (cumsum, cumprod).
 *
 * Note [Statistical reductions]
 * The input reaches these kernels as O contiguous rows of R elements (float or double); every
 * statistic is made of passes, and a pass maps each row to two double sums. A row is cut into
 * fixed chunks of CT_RSTAT_CHUNK elements, the chunks of all rows are spread over the threads,
 * and each row's chunk results are added in chunk order, so the result is the same bits for
 * any thread count. Inside a chunk, 8 independent double accumulators (the loop vectorises)
 * keep the error small: float32 data are summed in double, as torch's float32 cumsum is.
 * The chunk loops are compiled per ISA level (reduce_stats_loops.c). */
#ifndef CT_KERNELS_REDUCE_STATS_H
#define CT_KERNELS_REDUCE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define CT_RSTAT_CHUNK 32768 /* elements of one chunk */

/* What a pass sums over a row (c: the row's parameter, p: the op's). */
typedef enum ct_rpass {
    CT_RPASS_SUM = 0,  /* s0 = sum x */
    CT_RPASS_NANSUM,   /* s0 = sum of the non-NaN x, s1 = how many */
    CT_RPASS_DEV,      /* s0 = sum (x - c)^2, s1 = sum (x - c) */
    CT_RPASS_SQ,       /* s0 = sum x^2 */
    CT_RPASS_SQSCALED, /* s0 = sum (x / c)^2 */
    CT_RPASS_ABS,      /* s0 = sum |x| */
    CT_RPASS_ABSPOW,   /* s0 = sum |x|^p */
    CT_RPASS_NONZERO,  /* s0 = how many x != 0 (NaN counts) */
    CT_RPASS_ABSMAX,   /* s0 = max |x| (NaN propagates; 0 for no elements) */
    CT_RPASS_ABSMIN,   /* s0 = min |x| (NaN propagates; inf for no elements) */
    CT_RPASS_MAX,      /* s0 = max x (NaN propagates; -inf for no elements) */
    CT_RPASS_EXPSUM,   /* s0 = sum exp(x - c) */
} ct_rpass;

/* The sums a chunk loop computes (reduce_stats_loops.c, per ISA level). */
typedef enum ct_rchunk {
    CT_RCHUNK_SUM = 0,
    CT_RCHUNK_NANSUM,
    CT_RCHUNK_NANCOUNT,
    CT_RCHUNK_DEV2,
    CT_RCHUNK_DEV,
    CT_RCHUNK_SQ,
    CT_RCHUNK_SQSCALED,
    CT_RCHUNK_ABS,
    CT_RCHUNK_ABSPOW,
    CT_RCHUNK_NONZERO,
    CT_RCHUNK_EXPSUM,
    CT_RCHUNK_ABSMAX,
    CT_RCHUNK_ABSMIN,
    CT_RCHUNK_MAX,
} ct_rchunk;

/* f over n contiguous elements at x (double when f64, else float), with parameters c, p. */
typedef double (*ct_rchunk_fn)(ct_rchunk f, bool f64, const void *x, int64_t n, double c, double p);
double ct_reduce_impl_chunk_baseline(ct_rchunk f, bool f64, const void *x, int64_t n, double c,
                                     double p);
double ct_reduce_impl_chunk_avx2(ct_rchunk f, bool f64, const void *x, int64_t n, double c,
                                 double p);
double ct_reduce_impl_chunk_avx512(ct_rchunk f, bool f64, const void *x, int64_t n, double c,
                                   double p);

/* Run one pass over O rows of R >= 0 contiguous elements at src (double when f64, else
 * float): row o's parameter is c[o] (c may be NULL when the pass takes none), its sums go to
 * s0[o] and s1[o] (s1 may be NULL). Returns 0, or -1 when scratch memory could not be
 * allocated (nothing set: the caller reports CT_ERR_NOMEM). */
int ct_reduce_impl_pass(ct_rpass pass, bool f64, const void *src, int64_t O, int64_t R, double p,
                        const double *c, double *s0, double *s1);

/* Scans, in place over a dense O x R x I array (logical order: the scanned dim is R). */
typedef enum ct_scan_type {
    CT_SCAN_F64 = 0,
    CT_SCAN_I64,  /* wrapping */
    CT_SCAN_C128, /* complex double pairs */
} ct_scan_type;

/* x[o, r, i] = x[o, r - 1, i] (+ or *) x[o, r, i] for r = 1 .. R-1; threads over O x I. */
void ct_reduce_impl_scan(bool prod, ct_scan_type t, void *x, int64_t O, int64_t R, int64_t I);

/* float32 rows scanned straight into float32 rows (y may be x): O rows of R contiguous
 * elements, each step accumulated in double and rounded, as the general scan does; threads
 * over rows. */
void ct_reduce_impl_scan_f32(bool prod, const float *x, float *y, int64_t O, int64_t R);

#endif /* CT_KERNELS_REDUCE_STATS_H */
