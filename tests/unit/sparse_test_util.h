/* Helpers for the tests of sparse COO tensors (test_sparse.c, test_sparse_print.c,
 * test_op_dispatch.c). */
#ifndef CT_TESTS_SPARSE_TEST_UTIL_H
#define CT_TESTS_SPARSE_TEST_UTIL_H

#include "tensor_test_util.h"

/* sparse_coo_tensor(i, v, sizes) with default options: int64 indices [sparse_dim, nnz] and
 * values; consumes i and v. */
static inline ct_tensor *coo(ct_tensor *i, ct_tensor *v, const int64_t *sizes, int64_t ndim) {
    ct_tensor *s = NULL;
    OK(ct_sparse_coo_tensor(i, v, sizes, ndim, NULL, &s));
    ct_tensor_release(i);
    ct_tensor_release(v);
    return s;
}

#endif
