/* The batched matrix-product kernel on host memory (gemm.c, Note [gemm kernels]). */
#ifndef CT_KERNELS_GEMM_H
#define CT_KERNELS_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/status.h"

/* out[b] = beta * out[b] + alpha * a[b] @ b[b] for b < batch; a is [batch, m, k], b
 * [batch, k, n], c [batch, m, n], with element strides a_s, b_s, c_s (non-negative).
 * beta_zero: out is only written (its NaNs do not propagate), as PyTorch for beta == 0.
 * Scalars: alpha_re/im, beta_re/im for floating and complex dtypes, alpha_i/beta_i for
 * integers. For float32/64 and complex c_s[2] must be 1 and c_s[1] >= max(1, n). */
typedef struct ct_gemm_args {
    ct_dtype dtype;
    size_t itemsize;
    int64_t batch, m, n, k;
    const char *a, *b;
    char *c;
    int64_t a_s[3], b_s[3], c_s[3];
    double alpha_re, alpha_im, beta_re, beta_im;
    int64_t alpha_i, beta_i;
    bool beta_zero;
} ct_gemm_args;

/* A new contiguous copy (ct_alloc, 64-byte aligned; free with ct_free(p, *bytes or 1, 64))
 * of a strided [batch, rows, cols] operand of isz-byte elements; NULL when out of memory
 * (no error set). Shared by the kernels of gemm*.c. */
char *ct_gemm_pack_rows(const char *src, int64_t batch, int64_t rows, int64_t cols, int64_t bs,
                        int64_t rs, int64_t cs, size_t isz, size_t *bytes);

/* Runs the product; CT_ERR_NOMEM when a packing buffer cannot be had. */
ct_status ct_gemm_run(const ct_gemm_args *g);

#endif /* CT_KERNELS_GEMM_H */
