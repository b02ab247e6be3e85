/* softmax / log_softmax of contiguous rows on the cpu: one row per call at each ISA level
 * (softmax_loops.c), threads over rows at the active level (softmax_kernel.c). */
#ifndef CT_KERNELS_SOFTMAX_H
#define CT_KERNELS_SOFTMAX_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/dtype.h"

/* softmax, or log_softmax (log), of the n >= 1 contiguous elements at x into o (which may be
 * x). */
#define CT_SOFTMAX_DECLARE(SUF)                                                                    \
    void ct_softmax_impl_row_f32##SUF(bool log, const float *x, float *o, int64_t n);              \
    void ct_softmax_impl_row_f64##SUF(bool log, const double *x, double *o, int64_t n);
CT_SOFTMAX_DECLARE(_baseline)
CT_SOFTMAX_DECLARE(_avx2)
CT_SOFTMAX_DECLARE(_avx512)

/* `rows` rows of n contiguous float32 (f64 false) or float64 elements, from x into out (which
 * may be x): softmax, or log_softmax (log), of each row, at the CPU's active ISA level, split
 * across threads by rows. */
void ct_softmax_impl_rows(bool log, bool f64, const void *x, void *out, int64_t rows, int64_t n);

/* The longest rows ct_softmax_impl_rows_half takes (one float32 row on each thread's
 * stack). */
#define CT_SOFTMAX_HALF_ROW 4096

/* The same for float16 or bfloat16 rows (dtype), n <= CT_SOFTMAX_HALF_ROW: each row widened
 * to float32 on the stack, computed as a float32 row and rounded once into out (the bytes of
 * converting the whole input to float32 first). */
void ct_softmax_impl_rows_half(bool log, ct_dtype dtype, const void *x, void *out, int64_t rows,
                               int64_t n);

#endif /* CT_KERNELS_SOFTMAX_H */
