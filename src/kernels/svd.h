/* Singular values on host memory through LAPACK (svd.c). */
#ifndef CT_KERNELS_SVD_H
#define CT_KERNELS_SVD_H

#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/status.h"

/* The sum of the singular values (the nuclear norm) of each of `batch` row-major rows x cols
 * matrices of dtype float32, float64, complex64 or complex128, stored one after another in a,
 * which is overwritten. sums[b] gets matrix b's (NaN for a matrix with an infinity). Errors:
 * CT_ERR_NOMEM; CT_ERR_RUNTIME for a matrix with a NaN (as PyTorch: LAPACK does not converge
 * on one) or one too big for LAPACK's 32-bit sizes. */
ct_status ct_svd_nuclear_sums(ct_dtype dtype, int64_t batch, int64_t rows, int64_t cols, void *a,
                              double *sums);

#endif /* CT_KERNELS_SVD_H */
