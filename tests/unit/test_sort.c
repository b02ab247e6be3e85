/* Sorting and selection (sort.h): stable order with duplicates, NaN last (first descending),
 * -0.0 equal to 0.0, integers at their extremes, every dim of a non-contiguous input, topk
 * (small rows and the histogram path), kthvalue, msort, unique with inverse and counts, out=,
 * 0-dim and empty tensors, errors (dims, k, dtypes), meta and host-emulated devices, the
 * same results for 1 and 2 threads, and allocation failures. Expected values and messages
 * were checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/backend.h"
#include "ctensor/parallel.h"
#include "ctensor/sort.h"
#include "tensor_test_util.h"

#include "fault_loop.h"

#define VALS(...) ((const double[]){__VA_ARGS__})
#define NVALS(...) ((int64_t)(sizeof(VALS(__VA_ARGS__)) / sizeof(double)))

static ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t n, const double *v) {
    ct_tensor *d = NULL, *t = NULL;
    OK(ct_tensor_from_data(sizes, n, CT_FLOAT64, v, &CPU, &d));
    OK(ct_tensor_to(d, dt, NULL, true, CT_MEMFMT_CONTIGUOUS, &t));
    ct_tensor_release(d);
    return t;
}
#define MK1(dt, ...) mk(dt, (const int64_t[]){NVALS(__VA_ARGS__)}, 1, VALS(__VA_ARGS__))

static void expect(const ct_tensor *t, ct_dtype dt, const double *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(ct_tensor_dtype(t), dt);
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    assert_int_equal(ct_tensor_numel(d), n);
    const double *got = ct_tensor_data_ptr(d);
    for (int64_t i = 0; i < n; i++)
        if (!((isnan(got[i]) && isnan(want[i])) || got[i] == want[i]))
            fail_msg("element %d: got %.17g, want %.17g", (int)i, got[i], want[i]);
    ct_tensor_release(d);
}
#define EXPECT(t, dt, ...) expect(t, dt, VALS(__VA_ARGS__), NVALS(__VA_ARGS__))

static void test_sort_order(void **state) {
    (void)state;
    ct_tensor *x = MK1(CT_FLOAT32, 2, NAN, -0.0, 1, 0.0, -INFINITY, 2, NAN, INFINITY, -1);
    ct_tensor *v = NULL, *i = NULL;
    OK(ct_sort(x, -1, false, true, NULL, NULL, &v, &i));
    EXPECT(v, CT_FLOAT32, -INFINITY, -1, -0.0, 0.0, 1, 2, 2, INFINITY, NAN, NAN);
    EXPECT(i, CT_INT64, 5, 9, 2, 4, 3, 0, 6, 8, 1, 7);
    assert_true(signbit(((const float *)ct_tensor_data_ptr(v))[2]));
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_sort(x, 0, true, true, NULL, NULL, &v, &i));
    EXPECT(v, CT_FLOAT32, NAN, NAN, INFINITY, 2, 2, 1, -0.0, 0.0, -1, -INFINITY);
    EXPECT(i, CT_INT64, 1, 7, 8, 0, 6, 3, 2, 4, 9, 5);
    ct_tensor_release(v);
    ct_tensor_release(i);
    ct_tensor_release(x);
    /* every dtype: integers at their extremes, float16 / bfloat16 with NaN */
    const ct_dtype dts[] = {CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_UINT8,
                            CT_FLOAT16, CT_BFLOAT16, CT_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        x = MK1(dts[k], 5, -128, 3, 0, 127, 3, -1);
        if (dts[k] == CT_UINT8) {
            ct_tensor_release(x);
            x = MK1(dts[k], 5, 255, 3, 0, 127, 3, 1);
        }
        OK(ct_sort(x, 0, false, true, NULL, NULL, &v, &i));
        if (dts[k] == CT_UINT8)
            EXPECT(i, CT_INT64, 3, 6, 2, 5, 0, 4, 1);
        else
            EXPECT(i, CT_INT64, 1, 6, 3, 2, 5, 0, 4);
        ct_tensor_release(v);
        ct_tensor_release(i);
        ct_tensor_release(x);
    }
    x = MK1(CT_BOOL, 1, 0, 1, 0);
    OK(ct_argsort(x, 0, true, true, &i));
    EXPECT(i, CT_INT64, 0, 2, 1, 3);
    ct_tensor_release(i);
    ct_tensor_release(x);
    x = MK1(CT_FLOAT16, 1, NAN, -2, 65504);
    OK(ct_sort(x, 0, false, true, NULL, NULL, &v, &i));
    EXPECT(v, CT_FLOAT16, -2, 1, 65504, NAN);
    ct_tensor_release(v);
    ct_tensor_release(i);
    ct_tensor_release(x);
}

static void test_dims_and_layouts(void **state) {
    (void)state;
    /* [[3, 1, 2], [0, 5, 4]] stored transposed */
    ct_tensor *b = mk(CT_INT32, SHAPE(3, 2), VALS(3, 0, 1, 5, 2, 4)), *x = NULL;
    OK(ct_tensor_transpose(b, 0, 1, &x));
    ct_tensor *v = NULL, *i = NULL;
    OK(ct_sort(x, 1, false, false, NULL, NULL, &v, &i));
    assert_sizes(v, 2, 3);
    assert_strides(v, 1, 2); /* the input's strides, as empty_like */
    EXPECT(v, CT_INT32, 1, 2, 3, 0, 4, 5);
    EXPECT(i, CT_INT64, 1, 2, 0, 0, 2, 1);
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_sort(x, 0, true, true, NULL, NULL, &v, &i));
    EXPECT(v, CT_INT32, 3, 5, 4, 0, 1, 2);
    EXPECT(i, CT_INT64, 0, 1, 1, 1, 0, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_msort(x, &v));
    EXPECT(v, CT_INT32, 0, 1, 2, 3, 5, 4);
    ct_tensor_release(v);
    OK(ct_topk(x, 2, 1, true, true, &v, &i));
    assert_sizes(v, 2, 2);
    EXPECT(v, CT_INT32, 3, 2, 5, 4);
    EXPECT(i, CT_INT64, 0, 2, 1, 2);
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_kthvalue(x, 2, 0, false, &v, &i));
    assert_sizes(v, 3);
    EXPECT(v, CT_INT32, 3, 5, 4);
    EXPECT(i, CT_INT64, 0, 1, 1);
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_kthvalue(x, 1, -1, true, &v, &i));
    assert_sizes(v, 2, 1);
    EXPECT(v, CT_INT32, 1, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    ct_tensor_release(x);
    ct_tensor_release(b);
    /* 0-dim and empty */
    ct_tensor *s = NULL, *e = NULL;
    OK(ct_tensor_from_data(NULL, 0, CT_FLOAT64, VALS(7), &CPU, &s));
    OK(ct_sort(s, -1, false, false, NULL, NULL, &v, &i));
    assert_int_equal(ct_tensor_dim(v), 0);
    EXPECT(v, CT_FLOAT64, 7);
    EXPECT(i, CT_INT64, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_topk(s, 1, 0, true, true, &v, &i));
    EXPECT(v, CT_FLOAT64, 7);
    ct_tensor_release(v);
    ct_tensor_release(i);
    EXPECT_ERR(ct_topk(s, 2, 0, true, true, &v, &i), CT_ERR_RUNTIME,
               "selected index k out of range");
    EXPECT_ERR(ct_sort(s, 1, false, false, NULL, NULL, &v, &i), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    ct_tensor_release(s);
    OK(ct_tensor_empty(SHAPE(3, 0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e));
    OK(ct_sort(e, 0, false, false, NULL, NULL, &v, &i));
    assert_sizes(i, 3, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_topk(e, 0, 1, true, true, &v, &i));
    assert_sizes(v, 3, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    EXPECT_ERR(ct_kthvalue(e, 1, 1, false, &v, &i), CT_ERR_INDEX,
               "kthvalue(): Expected reduction dim 1 to have non-zero size.");
    ct_tensor_release(e);
}

static void test_topk_large(void **state) {
    (void)state;
    /* the histogram path: 20000 elements, many ties, a NaN */
    int64_t n = 20000;
    double *d = malloc((size_t)n * sizeof *d);
    assert_non_null(d);
    for (int64_t k = 0; k < n; k++)
        d[k] = (double)((k * 7919) % 1000);
    d[123] = NAN;
    ct_tensor *x = mk(CT_FLOAT32, &n, 1, d), *v = NULL, *i = NULL;
    free(d);
    OK(ct_topk(x, 4, 0, true, true, &v, &i));
    EXPECT(v, CT_FLOAT32, NAN, 999, 999, 999);
    const int64_t *ix = ct_tensor_data_ptr(i);
    assert_int_equal(ix[0], 123);
    assert_true(ix[1] < ix[2] && ix[2] < ix[3]); /* ties: the first ones, in order */
    ct_tensor_release(v);
    ct_tensor_release(i);
    OK(ct_topk(x, 3, 0, false, false, &v, &i));
    EXPECT(v, CT_FLOAT32, 0, 0, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    /* k = 40 > the insertion buffer's 32: the histogram path; 20 zeros, then 20 ones */
    OK(ct_topk(x, 40, 0, false, true, &v, &i));
    ix = ct_tensor_data_ptr(i);
    const float *fv = ct_tensor_data_ptr(v);
    for (int k = 0; k < 40; k++) {
        assert_true(fv[k] == (k < 20 ? 0.0f : 1.0f));
        assert_true(k == 0 || k == 20 || ix[k - 1] < ix[k]);
    }
    ct_tensor_release(v);
    ct_tensor_release(i);
    /* the same indices for 1 and 2 threads */
    ct_tensor *x2 = NULL, *a = NULL, *c = NULL;
    OK(ct_tensor_view(x, SHAPE(40, 500), &x2));
    int saved = ct_get_num_threads();
    OK(ct_set_num_threads(1));
    OK(ct_argsort(x2, 1, false, true, &a));
    OK(ct_set_num_threads(2));
    OK(ct_argsort(x2, 1, false, true, &c));
    OK(ct_set_num_threads(saved));
    assert_memory_equal(ct_tensor_data_ptr(a), ct_tensor_data_ptr(c), 20000 * sizeof(int64_t));
    ct_tensor_release(a);
    ct_tensor_release(c);
    ct_tensor_release(x2);
    ct_tensor_release(x);
}

static void test_unique(void **state) {
    (void)state;
    ct_tensor *x = mk(CT_INT64, SHAPE(2, 3), VALS(3, 1, 3, -2, 1, 3)), *o = NULL, *inv = NULL,
              *cnt = NULL;
    OK(ct_unique(x, true, &o, &inv, &cnt));
    EXPECT(o, CT_INT64, -2, 1, 3);
    assert_sizes(inv, 2, 3);
    EXPECT(inv, CT_INT64, 2, 1, 2, 0, 1, 2);
    EXPECT(cnt, CT_INT64, 1, 2, 3);
    ct_tensor_release(o);
    ct_tensor_release(inv);
    ct_tensor_release(cnt);
    OK(ct_unique(x, true, &o, NULL, NULL));
    EXPECT(o, CT_INT64, -2, 1, 3);
    ct_tensor_release(o);
    ct_tensor_release(x);
    x = MK1(CT_FLOAT16, 1, 2);
    EXPECT_ERR(ct_unique(x, true, &o, NULL, NULL), CT_ERR_NOT_IMPLEMENTED,
               "\"unique\" not implemented for 'Half'");
    ct_tensor_release(x);
}

static void test_out_and_errors(void **state) {
    (void)state;
    ct_tensor *x = MK1(CT_FLOAT32, 3, 1, 2), *ov = NULL, *oi = NULL, *v = NULL, *i = NULL;
    OK(ct_tensor_empty(SHAPE(3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &ov));
    OK(ct_tensor_empty(SHAPE(3), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &oi));
    OK(ct_sort(x, 0, false, false, ov, oi, &v, &i));
    assert_ptr_equal(v, ov);
    EXPECT(ov, CT_FLOAT32, 1, 2, 3);
    EXPECT(oi, CT_INT64, 1, 2, 0);
    ct_tensor_release(v);
    ct_tensor_release(i);
    EXPECT_ERR(ct_sort(x, 0, false, false, oi, oi, &v, &i), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype float, but got long int instead");
    EXPECT_ERR(ct_sort(x, 0, false, false, ov, ov, &v, &i), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype long int, but got float instead");
    EXPECT_ERR(ct_topk(x, 4, 0, true, true, &v, &i), CT_ERR_RUNTIME,
               "selected index k out of range");
    EXPECT_ERR(ct_kthvalue(x, 0, -1, false, &v, &i), CT_ERR_RUNTIME,
               "kthvalue(): selected number k out of range for dimension 0");
    ct_tensor_release(ov);
    ct_tensor_release(oi);
    ct_tensor_release(x);
    x = MK1(CT_COMPLEX64, 1, 2);
    EXPECT_ERR(ct_sort(x, 0, false, false, NULL, NULL, &v, &i), CT_ERR_NOT_IMPLEMENTED,
               "\"sorting_kernel_method_name\" not implemented for 'ComplexFloat'");
    EXPECT_ERR(ct_topk(x, 1, 0, true, true, &v, &i), CT_ERR_NOT_IMPLEMENTED,
               "\"topk_cpu\" not implemented for 'ComplexFloat'");
    ct_tensor_release(x);
    x = MK1(CT_BOOL, 1, 0);
    EXPECT_ERR(ct_kthvalue(x, 1, 0, false, &v, &i), CT_ERR_NOT_IMPLEMENTED,
               "\"kthvalue_cpu\" not implemented for 'Bool'");
    ct_tensor_release(x);
    x = MK1(CT_FLOAT8_E4M3FN, 1, 0);
    EXPECT_ERR(ct_sort(x, 0, false, false, NULL, NULL, &v, &i), CT_ERR_NOT_IMPLEMENTED,
               "\"sorting_kernel_method_name\" not implemented for 'Float8_e4m3fn'");
    ct_tensor_release(x);
}

static void test_devices(void **state) {
    (void)state;
    ct_tensor *m = NULL, *v = NULL, *i = NULL;
    OK(ct_tensor_empty(SHAPE(4, 5), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &m));
    OK(ct_topk(m, 2, 1, true, true, &v, &i));
    assert_int_equal(ct_tensor_device(v).type, CT_DEVICE_META);
    assert_sizes(i, 4, 2);
    ct_tensor_release(v);
    ct_tensor_release(i);
    ct_tensor_release(m);
    OK(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 1));
    ct_device cu = {CT_DEVICE_CUDA, 0};
    ct_tensor *x = MK1(CT_INT16, 4, -3, 9), *xc = NULL;
    OK(ct_tensor_to_device(x, cu, &xc));
    OK(ct_sort(xc, 0, true, true, NULL, NULL, &v, &i));
    assert_int_equal(ct_tensor_device(v).type, CT_DEVICE_CUDA);
    EXPECT(v, CT_INT16, 9, 4, -3);
    EXPECT(i, CT_INT64, 2, 0, 1);
    ct_tensor_release(v);
    ct_tensor_release(i);
    ct_tensor_release(xc);
    ct_tensor_release(x);
    OK(ct_backend_unregister(CT_DEVICE_CUDA));
}

static ct_tensor *fx;
static ct_status f_sort(ct_tensor **out) {
    ct_tensor *i = NULL;
    ct_status st = ct_sort(fx, 0, true, true, NULL, NULL, out, &i);
    ct_tensor_release(i);
    return st;
}
static ct_status f_topk(ct_tensor **out) {
    ct_tensor *v = NULL;
    ct_status st = ct_topk(fx, 2, 1, true, true, &v, out);
    ct_tensor_release(v);
    return st;
}
static ct_status f_kth(ct_tensor **out) {
    ct_tensor *v = NULL;
    ct_status st = ct_kthvalue(fx, 2, 0, false, &v, out);
    ct_tensor_release(v);
    return st;
}
static ct_status f_unique(ct_tensor **out) {
    ct_tensor *inv = NULL, *cnt = NULL;
    ct_status st = ct_unique(fx, true, out, &inv, &cnt);
    ct_tensor_release(inv);
    ct_tensor_release(cnt);
    return st;
}

static void test_fault_injection(void **state) {
    (void)state;
    ct_tensor *b = mk(CT_FLOAT32, SHAPE(3, 4), VALS(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8));
    OK(ct_tensor_transpose(b, 0, 1, &fx));
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("sort", f_sort) > 0);
    assert_true(fault_loop("topk", f_topk) > 0);
    assert_true(fault_loop("kthvalue", f_kth) > 0);
    assert_true(fault_loop("unique", f_unique) > 0);
    OK(ct_set_allocator(&prev));
    ct_tensor_release(fx);
    ct_tensor_release(b);
}

/* topk / kthvalue out=: the functional results written into out, resized; dtype checks. */
static void test_select_out(void **state) {
    (void)state;
    ct_tensor *x = MK1(CT_FLOAT32, 3, 1, 4, 1, 5);
    ct_tensor *ov = NULL, *oi = NULL;
    int64_t zero = 0;
    OK(ct_tensor_empty(&zero, 1, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &ov));
    OK(ct_tensor_empty(&zero, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &oi));
    OK(ct_topk_out(x, 2, 0, true, true, ov, oi));
    EXPECT(ov, CT_FLOAT32, 5, 4);
    EXPECT(oi, CT_INT64, 4, 2);
    OK(ct_kthvalue_out(x, 1, 0, false, ov, oi));
    assert_int_equal(ct_tensor_dim(ov), 0);
    EXPECT(ov, CT_FLOAT32, 1);
    ct_tensor *bad = NULL;
    OK(ct_tensor_empty(&zero, 1, CT_FLOAT64, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &bad));
    EXPECT_ERR(ct_topk_out(x, 2, 0, true, true, bad, oi), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype float, but got double instead");
    EXPECT_ERR(ct_kthvalue_out(x, 9, 0, false, ov, oi), CT_ERR_RUNTIME,
               "kthvalue(): selected number k out of range for dimension 0");
    ct_tensor_release(bad);
    ct_tensor_release(ov);
    ct_tensor_release(oi);
    ct_tensor_release(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_out),
        cmocka_unit_test(test_sort_order),   cmocka_unit_test(test_dims_and_layouts),
        cmocka_unit_test(test_topk_large),   cmocka_unit_test(test_unique),
        cmocka_unit_test(test_out_and_errors), cmocka_unit_test(test_devices),
        cmocka_unit_test(test_fault_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
