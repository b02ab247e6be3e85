/* Sorting kernels (src/kernels/sort_kernel.c) for ctensor/sort.h. Each works on `rows`
 * contiguous rows of n elements of dtype dt: every real dtype with a CPU kernel (bool,
 * integers, float16, bfloat16, float32, float64). Elements are mapped to unsigned keys whose
 * order is PyTorch's: NaN (every payload, either sign) above +inf, -0.0 equal to 0.0; a
 * descending order complements the keys, so ties keep their input order either way.
 * Errors: CT_ERR_NOMEM (scratch), CT_ERR_NOT_IMPLEMENTED for rows of 2^32 elements or more.
 * Layering: kernels. */
#ifndef CT_KERNELS_SORT_H
#define CT_KERNELS_SORT_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/status.h"

/* A stable sort of each row: sorted values into vals (rows x n, NULL: none) and the source
 * positions into idx (rows x n). */
ct_status ct_sort_kernel_rows(ct_dtype dt, const void *src, void *vals, int64_t *idx,
                              int64_t rows, int64_t n, bool descending);

/* The k smallest (largest) elements of each row in sorted order, ties by position:
 * vals and idx are rows x k. 0 <= k <= n. */
ct_status ct_sort_kernel_topk(ct_dtype dt, const void *src, void *vals, int64_t *idx,
                              int64_t rows, int64_t n, int64_t k, bool largest);

/* unique of n elements: the distinct values ascending into vals (*nunique of them; vals has
 * room for n), the group of each element into inverse (n; NULL: none), the size of each
 * group into counts (room for n; NULL: none). */
ct_status ct_sort_kernel_unique(ct_dtype dt, const void *src, int64_t n, void *vals,
                                int64_t *inverse, int64_t *counts, int64_t *nunique);

#endif /* CT_KERNELS_SORT_H */
