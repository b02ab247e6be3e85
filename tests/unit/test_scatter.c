/* gather / scatter / index_* (scatter.h) and searchsorted / bucketize (search.h): values on
 * contiguous and transposed tensors, in place on views, reductions, out=, and PyTorch's
 * messages (checked against torch 1.13). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/scatter.h"
#include "ctensor/search.h"
#include "tensor_test_util.h"

/* An int64 tensor of `sizes` holding v (C order). */
static ct_tensor *lng(const int64_t *v, const int64_t *sizes, int64_t nd) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(sizes, nd, CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    int64_t n = 1;
    for (int64_t j = 0; j < nd; j++)
        n *= sizes[j];
    memcpy(ct_tensor_data_ptr(t), v, (size_t)n * sizeof(int64_t));
    return t;
}

/* Every element of a float32 tensor, C order, equals want. */
static void assert_f32s(const ct_tensor *t, const float *want) {
    ct_tensor *c = NULL;
    OK(ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &c));
    const float *p = ct_tensor_data_ptr(c);
    for (int64_t e = 0; e < ct_tensor_numel(c); e++)
        if (p[e] != want[e])
            fail_msg("element %lld: got %g, want %g", (long long)e, p[e], want[e]);
    ct_tensor_release(c);
}

static void test_gather(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3)), *xt = NULL, *r = NULL;
    ct_tensor *i = lng(ARR(2, 0, 1, 1), SHAPE(2, 2));
    OK(ct_gather(x, 1, i, NULL, &r));
    assert_sizes(r, 2, 2);
    assert_f32s(r, (const float[]){2, 0, 4, 4});
    ct_tensor_release(r);
    OK(ct_tensor_transpose(x, 0, 1, &xt)); /* (3, 2): xt[i][j] = x[j][i] */
    OK(ct_gather(xt, 0, i, NULL, &r));
    assert_f32s(r, (const float[]){2, 3, 1, 4});
    ct_tensor_release(r);
    ct_tensor *bad = lng(ARR(3), SHAPE(1, 1)), *neg = lng(ARR(-1), SHAPE(1, 1));
    EXPECT_ERR(ct_gather(x, 1, bad, NULL, &r), CT_ERR_RUNTIME,
               "index 3 is out of bounds for dimension 1 with size 3");
    EXPECT_ERR(ct_gather(x, 0, neg, NULL, &r), CT_ERR_RUNTIME,
               "index -1 is out of bounds for dimension 0 with size 2");
    EXPECT_ERR(ct_gather(x, 2, i, NULL, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    ct_tensor *fi = NULL, *i3 = lng(ARR(0, 0, 0, 0), SHAPE(1, 4));
    OK(ct_tensor_to_dtype(i, CT_FLOAT32, &fi));
    EXPECT_ERR(ct_gather(x, 1, fi, NULL, &r), CT_ERR_RUNTIME,
               "gather(): Expected dtype int64 for index");
    EXPECT_ERR(ct_gather(x, 0, i3, NULL, &r), CT_ERR_RUNTIME,
               "Size does not match at dimension 1 expected index [1, 4] to be smaller than self "
               "[2, 3] apart from dimension 0");
    assert_null(r);
    ct_tensor_release(fi);
    ct_tensor_release(i3);
    ct_tensor_release(bad);
    ct_tensor_release(neg);
    ct_tensor_release(i);
    ct_tensor_release(xt);
    ct_tensor_release(x);
}

/* dim 0 with a last dim of 16 or more: the line-wise loop; the first bad index in row-major
 * order (torch 1.13: "index 5 ...", computed with torch) */
static void test_gather_lines(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(3, 20)), *r = NULL;
    int64_t iv[40], want_bad[40];
    for (int k = 0; k < 40; k++) {
        iv[k] = (k * 7) % 3;
        want_bad[k] = 0;
    }
    ct_tensor *i = lng(iv, SHAPE(2, 20));
    OK(ct_gather(x, 0, i, NULL, &r));
    assert_sizes(r, 2, 20);
    float want[40];
    for (int k = 0; k < 40; k++)
        want[k] = (float)(iv[k] * 20 + k % 20);
    assert_f32s(r, want);
    ct_tensor_release(r);
    want_bad[3] = 5;
    want_bad[21] = -1;
    ct_tensor *bad = lng(want_bad, SHAPE(2, 20));
    EXPECT_ERR(ct_gather(x, 0, bad, NULL, &r), CT_ERR_RUNTIME,
               "index 5 is out of bounds for dimension 0 with size 3");
    assert_null(r);
    ct_tensor_release(bad);
    ct_tensor_release(i);
    ct_tensor_release(x);
}

static void test_scatter(void **state) {
    (void)state;
    ct_tensor *z = NULL, *src = iota(SHAPE(2, 2)), *r = NULL;
    ct_tensor *i = lng(ARR(0, 0, 1, 0), SHAPE(2, 2));
    OK(ct_tensor_zeros(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &z));
    OK(ct_scatter_add(z, 1, i, src, NULL, &r));
    assert_f32s(r, (const float[]){1, 0, 0, 3, 2, 0});
    ct_tensor_release(r);
    ct_scalar v = ct_scalar_float(2.5);
    OK(ct_scatter(z, 1, i, NULL, &v, CT_SCATTER_REDUCE_NONE, NULL, &r));
    assert_f32s(r, (const float[]){2.5f, 0, 0, 2.5f, 2.5f, 0});
    ct_tensor_release(r);
    /* in place on a transposed view */
    ct_tensor *base = NULL, *view = NULL;
    OK(ct_tensor_zeros(SHAPE(3, 2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &base));
    OK(ct_tensor_transpose(base, 0, 1, &view));
    OK(ct_scatter_(view, 1, i, src, NULL, CT_SCATTER_REDUCE_SUM));
    assert_f32s(base, (const float[]){1, 3, 0, 2, 0, 0});
    ct_scatter_mode m;
    OK(ct_scatter_reduce_parse("multiply", false, &m));
    assert_int_equal(m, CT_SCATTER_REDUCE_PROD);
    EXPECT_ERR(ct_scatter_reduce_parse("sum", false, &m), CT_ERR_RUNTIME,
               "reduce argument must be either add or multiply.");
    EXPECT_ERR(ct_scatter_reduce_parse("max", true, &m), CT_ERR_RUNTIME,
               "reduce argument must be either sum, prod, mean, amax or amin.");
    /* mean without self: (0 + 1) / 2 at [0][0] */
    OK(ct_scatter_reduce(z, 1, i, src, CT_SCATTER_REDUCE_MEAN, false, NULL, &r));
    assert_f32s(r, (const float[]){0.5f, 0, 0, 3, 2, 0});
    ct_tensor_release(r);
    ct_tensor *d = NULL, *big = lng(ARR(7), SHAPE(1, 1));
    OK(ct_tensor_to_dtype(src, CT_FLOAT64, &d));
    EXPECT_ERR(ct_scatter(z, 1, i, d, NULL, CT_SCATTER_REDUCE_NONE, NULL, &r), CT_ERR_RUNTIME,
               "scatter(): Expected self.dtype to be equal to src.dtype");
    EXPECT_ERR(ct_scatter(z, 1, big, NULL, &v, CT_SCATTER_REDUCE_NONE, NULL, &r), CT_ERR_RUNTIME,
               "index 7 is out of bounds for dimension 1 with size 3");
    ct_tensor *one = NULL;
    OK(ct_tensor_ones(SHAPE(1, 1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &one));
    EXPECT_ERR(ct_scatter_add(z, 1, i, one, NULL, &r), CT_ERR_RUNTIME,
               "Expected index [2, 2] to be smaller than self [2, 3] apart from dimension 1 and "
               "to be smaller size than src [1, 1]");
    assert_null(r);
    ct_tensor_release(one);
    ct_tensor_release(d);
    ct_tensor_release(big);
    ct_tensor_release(view);
    ct_tensor_release(base);
    ct_tensor_release(i);
    ct_tensor_release(src);
    ct_tensor_release(z);
}

static void test_index_slices(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3)), *r = NULL, *src = NULL;
    ct_tensor *i = lng(ARR(1, 1), SHAPE(2));
    OK(ct_tensor_ones(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &src));
    OK(ct_index_add(x, 0, i, src, ct_scalar_int(2), NULL, &r));
    assert_f32s(r, (const float[]){0, 1, 2, 7, 8, 9});
    ct_tensor_release(r);
    ct_tensor *i2 = lng(ARR(0, -1), SHAPE(2));
    OK(ct_index_fill(x, 1, i2, ct_scalar_int(-1), &r));
    assert_f32s(r, (const float[]){-1, 1, -1, -1, 4, -1});
    ct_tensor_release(r);
    EXPECT_ERR(ct_index_add(x, 0, i2, src, ct_scalar_int(1), NULL, &r), CT_ERR_INDEX,
               "index out of range in self");
    EXPECT_ERR(ct_index_copy(x, 0, i2, src, NULL, &r), CT_ERR_INDEX,
               "index_copy_(): index -1 is out of bounds for dimension 0 with size 2");
    ct_tensor *i3 = lng(ARR(1, 0), SHAPE(2));
    OK(ct_index_copy(x, 0, i3, x, NULL, &r)); /* source aliases self */
    assert_f32s(r, (const float[]){3, 4, 5, 0, 1, 2});
    ct_tensor_release(r);
    r = NULL;
    ct_tensor *t = NULL;
    OK(ct_tensor_transpose(x, 0, 1, &t)); /* in place on a view of x */
    OK(ct_index_fill_(t, 0, i3, ct_scalar_int(9)));
    assert_f32s(x, (const float[]){9, 9, 2, 9, 9, 5});
    ct_tensor *v1 = NULL;
    OK(ct_tensor_ones(SHAPE(1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &v1));
    EXPECT_ERR(ct_index_fill_tensor_(x, 0, i3, v1), CT_ERR_RUNTIME,
               "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
               "dimension(s).");
    EXPECT_ERR(ct_index_fill_(x, 0, i3, ct_scalar_complex(1, 1)), CT_ERR_RUNTIME,
               "index_fill_(): Converting complex Scalar to non-complex type is not supported");
    assert_null(r);
    ct_tensor_release(v1);
    ct_tensor_release(t);
    ct_tensor_release(i3);
    ct_tensor_release(i2);
    ct_tensor_release(i);
    ct_tensor_release(src);
    ct_tensor_release(x);
}

static void test_searchsorted(void **state) {
    (void)state;
    ct_tensor *s = iota(SHAPE(4)), *v = NULL, *r = NULL, *r32 = NULL;
    OK(ct_tensor_full(SHAPE(2), ct_scalar_float(1.5), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &v));
    ((double *)ct_tensor_data_ptr(v))[1] = 3;
    OK(ct_searchsorted(s, v, false, false, NULL, NULL, NULL, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_INT64);
    assert_i64s(ct_tensor_data_ptr(r), 2, ARR(2, 3), 2);
    ct_tensor_release(r);
    OK(ct_searchsorted(s, v, true, false, "right", NULL, NULL, &r32));
    assert_int_equal(ct_tensor_dtype(r32), CT_INT32);
    assert_int_equal(((const int32_t *)ct_tensor_data_ptr(r32))[1], 4);
    ct_tensor_release(r32);
    OK(ct_bucketize(v, s, false, true, NULL, &r));
    assert_i64s(ct_tensor_data_ptr(r), 2, ARR(2, 4), 2);
    ct_tensor_release(r);
    EXPECT_ERR(ct_searchsorted(s, v, false, true, "left", NULL, NULL, &r), CT_ERR_RUNTIME,
               "torch.searchsorted(): side and right can't be set to opposites, got side of left "
               "while right was True");
    EXPECT_ERR(ct_searchsorted(s, v, false, false, "up", NULL, NULL, &r), CT_ERR_RUNTIME,
               "torch.searchsorted(): side can only be 'left' or 'right' but got up");
    ct_tensor *s2 = iota(SHAPE(2, 2));
    EXPECT_ERR(ct_bucketize(v, s2, false, false, NULL, &r), CT_ERR_RUNTIME,
               "boundaries tensor must be 1 dimension, but got dim(2)");
    assert_null(r);
    ct_tensor_release(s2);
    ct_tensor_release(v);
    ct_tensor_release(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_gather_lines),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_index_slices),
        cmocka_unit_test(test_searchsorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
