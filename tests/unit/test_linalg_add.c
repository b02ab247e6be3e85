/* addmm_, baddbmm_, addbmm, addmv, addr (linalg_add.h): values, in-place shape checks,
 * out= dtype rules and messages, checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/linalg_add.h"
#include "tensor_test_util.h"

#define ONE ct_scalar_int(1)

static void expect_all(const ct_tensor *t, float want) {
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT32);
    int64_t idx[CT_MAX_DIMS] = {0}, nd = ct_tensor_dim(t);
    for (int64_t i = 0; i < ct_tensor_numel(t); i++) {
        float got = at_f32(t, idx);
        if (got != want)
            fail_msg("element %d: got %g, want %g", (int)i, (double)got, (double)want);
        for (int64_t d = nd - 1; d >= 0; d--) {
            if (++idx[d] < ct_tensor_sizes(t)[d])
                break;
            idx[d] = 0;
        }
    }
}

static ct_tensor *ones(const int64_t *sizes, int64_t nd) {
    ct_tensor *t = NULL;
    OK(ct_tensor_ones(sizes, nd, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &t));
    return t;
}

static void test_inplace(void **state) {
    (void)state;
    ct_tensor *s = ones(SHAPE(3, 5)), *a = ones(SHAPE(3, 4)), *b = ones(SHAPE(4, 5));
    OK(ct_tensor_addmm_(s, a, b, ct_scalar_int(2), ct_scalar_int(3)));
    expect_all(s, 14);
    ct_tensor *s1 = ones(SHAPE(1, 5));
    EXPECT_ERR(ct_tensor_addmm_(s1, a, b, ONE, ONE), CT_ERR_RUNTIME,
               "Bad in-place call: input tensor size [1, 5] and output tensor size [3, 5] should "
               "match");
    assert_sizes(s1, 1, 5);
    expect_all(s1, 1);
    ct_tensor *b1 = ones(SHAPE(2, 3, 4)), *b2 = ones(SHAPE(2, 4, 5)), *s3 = ones(SHAPE(2, 3, 5));
    OK(ct_tensor_baddbmm_(s3, b1, b2, ONE, ct_scalar_int(-1)));
    expect_all(s3, -3);
    OK(ct_tensor_addbmm_(s1, b1, b2, ONE, ONE)); /* resized, as PyTorch 1.13 */
    assert_sizes(s1, 3, 5);
    expect_all(s1, 9);
    ct_tensor *v = ones(SHAPE(3)), *w = ones(SHAPE(4));
    OK(ct_tensor_addmv_(v, a, w, ONE, ct_scalar_int(2)));
    expect_all(v, 9);
    ct_tensor *m = ones(SHAPE(3, 4)), *u = ones(SHAPE(3));
    OK(ct_tensor_addr_(m, u, w, ct_scalar_float(0.5), ONE));
    expect_all(m, 1.5);
    ct_tensor *objs[] = {s, a, b, s1, b1, b2, s3, v, w, m, u};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++)
        ct_tensor_release(objs[i]);
}

static void test_errors(void **state) {
    (void)state;
    ct_tensor *in = ones(SHAPE(3, 5)), *b1 = ones(SHAPE(2, 3, 4)), *b2 = ones(SHAPE(3, 4, 5)),
              *r = NULL;
    EXPECT_ERR(ct_tensor_addbmm(in, b1, b2, ONE, ONE, &r), CT_ERR_RUNTIME,
               "batch1 and batch2 must have same number of batches, got 2 and 3");
    assert_null(r);
    ct_tensor *v3 = ones(SHAPE(3)), *m = ones(SHAPE(3, 4)), *v5 = ones(SHAPE(5));
    EXPECT_ERR(ct_tensor_addmv(v3, m, v5, ONE, ONE, &r), CT_ERR_RUNTIME,
               "size mismatch, got 3, 3x4,5");
    EXPECT_ERR(ct_tensor_addmv(in, m, v5, ONE, ONE, &r), CT_ERR_RUNTIME,
               "vector + matrix @ vector expected, got 2, 2, 1");
    EXPECT_ERR(ct_tensor_addr(in, m, v5, ONE, ONE, &r), CT_ERR_RUNTIME,
               "addr: Expected 1-D argument vec1, but got 2-D");
    ct_tensor *i34 = NULL;
    OK(ct_tensor_ones(SHAPE(3, 4), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &i34));
    ct_tensor *i3 = NULL, *i4 = NULL;
    OK(ct_tensor_ones(SHAPE(3), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &i3));
    OK(ct_tensor_ones(SHAPE(4), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &i4));
    EXPECT_ERR(ct_tensor_addr(i34, i3, i4, ct_scalar_float(1.5), ONE, &r), CT_ERR_RUNTIME,
               "For integral input tensors, argument beta must not be a floating point number.");
    ct_tensor *objs[] = {in, b1, b2, v3, m, v5, i34, i3, i4};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++)
        ct_tensor_release(objs[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inplace),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
