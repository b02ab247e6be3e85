/* Helpers of the C tests of element-wise ops (test_ops.c, test_binary_ops.c): small tensors
 * built from float64 literals, and their values read back as float64 and compared exactly
 * (NaN equals NaN; -0.0 differs from 0.0, because ops must get the sign of zero right).
 * Header-only, all static; include after tensor_test_util.h. */
#ifndef CT_TEST_OP_VALUES_UTIL_H
#define CT_TEST_OP_VALUES_UTIL_H

#include <math.h>

#include "tensor_test_util.h"

#define VALS(...) ((const double[]){__VA_ARGS__})

static const ct_scalar ONE = {CT_SCALAR_INT, {.i = 1}};

/* A cpu tensor of dtype dt with the given values (C order), converted from float64. */
static inline ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t n, const double *v) {
    ct_tensor *d = NULL, *t = NULL;
    OK(ct_tensor_from_data(sizes, n, CT_FLOAT64, v, &CPU, &d));
    OK(ct_tensor_to(d, dt, NULL, true, CT_MEMFMT_CONTIGUOUS, &t));
    ct_tensor_release(d);
    return t;
}
static inline ct_tensor *mk_i64(const int64_t *sizes, int64_t n, const int64_t *v) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, n, CT_INT64, v, &CPU, &t));
    return t;
}

/* Every element as float64 (any device), C order, into out (at most 64). */
static inline int64_t values(const ct_tensor *t, double *out) {
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    int64_t n = ct_tensor_numel(d);
    assert_true(n <= 64);
    if (n > 0)
        memcpy(out, ct_tensor_data_ptr(d), (size_t)n * sizeof *out);
    ct_tensor_release(d);
    return n;
}

static inline void expect(const ct_tensor *t, ct_dtype dt, const double *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(ct_tensor_dtype(t), dt);
    double got[64];
    assert_int_equal(values(t, got), n);
    for (int64_t i = 0; i < n; i++) {
        bool same = (isnan(got[i]) && isnan(want[i])) ||
                    (got[i] == want[i] && signbit(got[i]) == signbit(want[i]));
        if (!same)
            fail_msg("element %d: got %.17g, want %.17g", (int)i, got[i], want[i]);
    }
}
#define EXPECT(t, dt, ...)                                                                         \
    expect(t, dt, VALS(__VA_ARGS__), (int64_t)(sizeof VALS(__VA_ARGS__) / sizeof(double)))

#define RELEASE(...)                                                                               \
    do {                                                                                           \
        ct_tensor *all_[] = {__VA_ARGS__};                                                         \
        for (size_t i_ = 0; i_ < sizeof all_ / sizeof all_[0]; i_++)                               \
            ct_tensor_release(all_[i_]);                                                           \
    } while (0)

#endif /* CT_TEST_OP_VALUES_UTIL_H */
