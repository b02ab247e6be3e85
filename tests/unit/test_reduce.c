/* Reductions (reduce.h): dims (None, int, negative, tuples, duplicates, out of range),
 * keepdim, dtype rules (int64 sums, mean's float requirement, all/any's bool and uint8),
 * empty tensors, NaN propagation, layouts (transposed, permuted, expanded: the same values),
 * out= (dtype checks, resize with its warning), devices (meta, a host-emulated device, a
 * device without host access), the same bits for every thread count, the cascade sum's
 * accuracy, and allocation failures; the statistics (nansum, nanmean, count_nonzero,
 * logsumexp, var/std, norm, aminmax), the scans (cumsum, cumprod) and max/min's out=. Expected values and messages were checked against
 * torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "ctensor/backend.h"
#include "ctensor/parallel.h"
#include "ctensor/reduce.h"
#include "ctensor/warning.h"
#include "tensor_test_util.h"

#include "fault_loop.h"
#include "warning_capture.h"

#define VALS(...) ((const double[]){__VA_ARGS__})
#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NDIMS(...) ((int64_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define U CT_DTYPE_UNDEFINED

static ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t n, const double *v) {
    ct_tensor *d = NULL, *t = NULL;
    OK(ct_tensor_from_data(sizes, n, CT_FLOAT64, v, &CPU, &d));
    OK(ct_tensor_to(d, dt, NULL, true, CT_MEMFMT_CONTIGUOUS, &t));
    ct_tensor_release(d);
    return t;
}

/* arange(n) as dtype dt, shaped. */
static ct_tensor *ar(ct_dtype dt, const int64_t *sizes, int64_t nd) {
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++)
        n *= sizes[d];
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)i;
    ct_tensor *t = mk(dt, sizes, nd, v);
    free(v);
    return t;
}

static int64_t values(const ct_tensor *t, double *out, int64_t cap) {
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    int64_t n = ct_tensor_numel(d);
    assert_true(n <= cap);
    if (n > 0)
        memcpy(out, ct_tensor_data_ptr(d), (size_t)n * sizeof *out);
    ct_tensor_release(d);
    return n;
}

static void expect(const ct_tensor *t, ct_dtype dt, const double *want, int64_t n) {
    assert_non_null(t);
    if (ct_tensor_dtype(t) != dt)
        fail_msg("dtype %s, want %s", ct_dtype_name(ct_tensor_dtype(t)), ct_dtype_name(dt));
    double got[64];
    assert_int_equal(values(t, got, 64), n);
    for (int64_t i = 0; i < n; i++)
        if (!((isnan(got[i]) && isnan(want[i])) || got[i] == want[i]))
            fail_msg("element %d: got %.17g, want %.17g", (int)i, got[i], want[i]);
}
#define EXPECT(t, dt, ...) expect(t, dt, VALS(__VA_ARGS__), (int64_t)(sizeof(VALS(__VA_ARGS__)) / sizeof(double)))

static void test_dims_and_keepdim(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(2, 3)), *r = NULL;
    OK(ct_reduce(CT_REDUCE_SUM, x, NULL, 0, false, U, &r));
    assert_int_equal(ct_tensor_dim(r), 0);
    EXPECT(r, CT_FLOAT32, 15);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_SUM, x, DIMS(1), 1, false, U, &r));
    assert_sizes(r, 2);
    EXPECT(r, CT_FLOAT32, 3, 12);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_SUM, x, DIMS(-2), 1, true, U, &r));
    assert_sizes(r, 1, 3);
    EXPECT(r, CT_FLOAT32, 3, 5, 7);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_SUM, x, DIMS(1, 0), 2, true, U, &r));
    assert_sizes(r, 1, 1);
    EXPECT(r, CT_FLOAT32, 15);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_SUM, x, DIMS(2), 1, false, U, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    assert_null(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_SUM, x, DIMS(0, -2), 2, false, U, &r), CT_ERR_RUNTIME,
               "dim 0 appears multiple times in the list of dims");
    /* a 0-dim tensor takes dims -1 and 0 */
    ct_tensor *s = mk(CT_FLOAT64, NULL, 0, VALS(5));
    OK(ct_reduce(CT_REDUCE_PROD, s, DIMS(-1), 1, true, U, &r));
    assert_int_equal(ct_tensor_dim(r), 0);
    EXPECT(r, CT_FLOAT64, 5);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_SUM, s, DIMS(1), 1, false, U, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    /* three dims, two of them apart: (0, 2) */
    ct_tensor *y = ar(CT_FLOAT32, SHAPE(2, 3, 4));
    OK(ct_reduce(CT_REDUCE_SUM, y, DIMS(0, 2), 2, false, U, &r));
    EXPECT(r, CT_FLOAT32, 60, 92, 124);
    ct_tensor_release(r);
    ct_tensor_release(y);
    ct_tensor_release(s);
    ct_tensor_release(x);
}

static void test_dtypes(void **state) {
    (void)state;
    ct_tensor *i32 = ar(CT_INT32, SHAPE(2, 3)), *b = mk(CT_BOOL, SHAPE(3), VALS(1, 0, 1));
    ct_tensor *u8 = mk(CT_UINT8, SHAPE(3), VALS(0, 2, 3)), *r = NULL;
    OK(ct_sum(i32, NULL, 0, false, U, &r));
    EXPECT(r, CT_INT64, 15);
    ct_tensor_release(r);
    OK(ct_sum(i32, DIMS(1), 1, false, CT_INT32, &r));
    EXPECT(r, CT_INT32, 3, 12);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_PROD, b, NULL, 0, false, U, &r));
    EXPECT(r, CT_INT64, 0);
    ct_tensor_release(r);
    OK(ct_sum(b, NULL, 0, false, U, &r));
    EXPECT(r, CT_INT64, 2);
    ct_tensor_release(r);
    EXPECT_ERR(ct_mean(i32, NULL, 0, false, U, &r), CT_ERR_RUNTIME,
               "mean(): could not infer output dtype. Input dtype must be either a floating "
               "point or complex dtype. Got: Int");
    EXPECT_ERR(ct_mean(i32, NULL, 0, false, CT_INT64, &r), CT_ERR_RUNTIME,
               "mean(): could not infer output dtype. Optional dtype must be either a floating "
               "point or complex dtype. Got: Long");
    OK(ct_mean(i32, DIMS(0), 1, false, CT_FLOAT64, &r));
    EXPECT(r, CT_FLOAT64, 1.5, 2.5, 3.5);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_ALL, u8, NULL, 0, false, U, &r));
    EXPECT(r, CT_UINT8, 0);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_ANY, i32, DIMS(1), 1, false, U, &r));
    EXPECT(r, CT_BOOL, 1, 1);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_AMAX, u8, NULL, 0, false, U, &r));
    EXPECT(r, CT_UINT8, 3);
    ct_tensor_release(r);
    /* float16 sums accumulate in float32 and round once: 4096 + 1 + 1 + ... stays exact */
    ct_tensor *h = mk(CT_FLOAT16, SHAPE(5), VALS(2048, 1, 1, 1, 1));
    OK(ct_sum(h, NULL, 0, false, U, &r));
    EXPECT(r, CT_FLOAT16, 2052);
    ct_tensor_release(r);
    /* the input is cast to dtype first */
    ct_tensor *f = mk(CT_FLOAT32, SHAPE(2), VALS(1.5, 2.5));
    OK(ct_sum(f, NULL, 0, false, CT_INT64, &r));
    EXPECT(r, CT_INT64, 3);
    ct_tensor_release(r);
    /* complex sums; amax of complex has no kernel */
    ct_tensor *c = mk(CT_COMPLEX64, SHAPE(3), VALS(1, 2, 3));
    OK(ct_sum(c, NULL, 0, false, U, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_COMPLEX64);
    const float *cv = ct_tensor_data_ptr(r);
    assert_true(cv[0] == 6.0f && cv[1] == 0.0f);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_AMAX, c, NULL, 0, false, U, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"max_values_cpu\" not implemented for 'ComplexFloat'");
    EXPECT_ERR(ct_reduce(CT_REDUCE_AMAX, c, NULL, 0, false, CT_FLOAT32, &r), CT_ERR_MISUSE,
               "amax: takes no dtype");
    ct_tensor *all[] = {i32, b, u8, h, f, c};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        ct_tensor_release(all[k]);
}

static void test_empty_and_nan(void **state) {
    (void)state;
    ct_tensor *e = ar(CT_FLOAT32, SHAPE(0, 3)), *r = NULL;
    OK(ct_sum(e, DIMS(0), 1, false, U, &r));
    EXPECT(r, CT_FLOAT32, 0, 0, 0);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_PROD, e, DIMS(0), 1, false, U, &r));
    EXPECT(r, CT_FLOAT32, 1, 1, 1);
    ct_tensor_release(r);
    OK(ct_mean(e, DIMS(0), 1, false, U, &r));
    EXPECT(r, CT_FLOAT32, NAN, NAN, NAN);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_ALL, e, NULL, 0, false, U, &r));
    EXPECT(r, CT_BOOL, 1);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_AMAX, e, NULL, 0, false, U, &r), CT_ERR_RUNTIME,
               "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify "
               "the reduction dim with the 'dim' argument.");
    EXPECT_ERR(ct_reduce(CT_REDUCE_AMIN, e, DIMS(0), 1, false, U, &r), CT_ERR_INDEX,
               "amin(): Expected reduction dim 0 to have non-zero size.");
    OK(ct_reduce(CT_REDUCE_AMAX, e, DIMS(1), 1, false, U, &r));
    assert_sizes(r, 0);
    ct_tensor_release(r);
    ct_tensor *n = mk(CT_FLOAT64, SHAPE(2, 3), VALS(1, NAN, 3, -1, -2, -INFINITY));
    OK(ct_reduce(CT_REDUCE_AMAX, n, DIMS(1), 1, false, U, &r));
    EXPECT(r, CT_FLOAT64, NAN, -1);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_AMIN, n, DIMS(0), 1, false, U, &r));
    EXPECT(r, CT_FLOAT64, -1, NAN, -INFINITY);
    ct_tensor_release(r);
    ct_tensor_release(n);
    ct_tensor_release(e);
}

/* Every layout of the same values gives the same result. */
static void test_layouts(void **state) {
    (void)state;
    /* values 1, 2, 1, 2, ...: sums and products exact in any order */
    double v[60];
    for (int i = 0; i < 60; i++)
        v[i] = 1 + i % 2;
    ct_tensor *x = mk(CT_FLOAT64, SHAPE(3, 4, 5), v), *p = NULL, *c = NULL, *e = NULL;
    OK(ct_tensor_permute(x, DIMS(2, 0, 1), 3, &p));
    OK(ct_tensor_contiguous(p, CT_MEMFMT_CONTIGUOUS, &c));
    const int64_t dimsets[][2] = {{0, -1}, {1, -1}, {2, -1}, {0, 1}, {0, 2}, {1, 2}};
    for (size_t k = 0; k < sizeof dimsets / sizeof dimsets[0]; k++) {
        int64_t nd = dimsets[k][1] < 0 ? 1 : 2;
        for (int op = 0; op < CT_NUM_REDUCE_OPS; op++) {
            ct_tensor *r1 = NULL, *r2 = NULL;
            OK(ct_reduce((ct_reduce_op)op, p, dimsets[k], nd, k % 2 == 0, U, &r1));
            OK(ct_reduce((ct_reduce_op)op, c, dimsets[k], nd, k % 2 == 0, U, &r2));
            double a[64], b[64];
            int64_t na = values(r1, a, 64), nb = values(r2, b, 64);
            assert_int_equal(na, nb);
            assert_memory_equal(a, b, (size_t)na * sizeof(double));
            ct_tensor_release(r1);
            ct_tensor_release(r2);
        }
    }
    /* expanded: a stride-0 dim */
    ct_tensor *row = ar(CT_INT64, SHAPE(1, 3)), *r = NULL;
    OK(ct_tensor_expand(row, SHAPE(4, 3), &e));
    OK(ct_sum(e, DIMS(0), 1, false, U, &r));
    EXPECT(r, CT_INT64, 0, 4, 8);
    ct_tensor_release(r);
    ct_tensor_release(row);
    ct_tensor_release(e);
    ct_tensor_release(x);
    ct_tensor_release(p);
    ct_tensor_release(c);
}

static void test_out(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(2, 3)), *o = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &o));
    OK(ct_reduce_out(CT_REDUCE_SUM, x, DIMS(1), 1, false, U, o));
    EXPECT(o, CT_INT64, 3, 12);
    EXPECT_ERR(ct_reduce_out(CT_REDUCE_SUM, x, DIMS(1), 1, false, CT_FLOAT64, o), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype double, but got long int instead");
    EXPECT_ERR(ct_reduce_out(CT_REDUCE_AMAX, x, DIMS(1), 1, false, U, o), CT_ERR_RUNTIME,
               "Expected the dtype for input and out to match, but got Float for input's dtype "
               "and Long for out's dtype.");
    EXPECT_ERR(ct_reduce_out(CT_REDUCE_ANY, x, DIMS(1), 1, false, U, o), CT_ERR_RUNTIME,
               "any only supports bool tensor for result, got: Long");
    ct_tensor_release(o);
    /* resized, with the warning when it had elements */
    OK(ct_tensor_zeros(SHAPE(5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &o));
    nwarnings = 0;
    ct_set_warning_handler(on_warning, NULL);
    OK(ct_reduce_out(CT_REDUCE_MEAN, x, DIMS(0), 1, true, U, o));
    ct_set_warning_handler(NULL, NULL);
    assert_int_equal(nwarnings, 1);
    assert_non_null(strstr(last_warning, "had shape [5], which does not match the required "
                                         "output shape [1, 3]"));
    assert_sizes(o, 1, 3);
    EXPECT(o, CT_FLOAT32, 1.5, 2.5, 3.5);
    ct_tensor_release(o);
    ct_tensor_release(x);
}

/* argmax / argmin out=: int64 out resized as reductions resize theirs; dtype checked. */
static void test_arg_out(void **state) {
    (void)state;
    ct_tensor *x = mk(CT_FLOAT32, DIMS(2, 3), 2, VALS(1, 5, 2, 7, 0, 3)), *o = NULL, *bad = NULL;
    int64_t zero = 0, dim = 1;
    OK(ct_tensor_empty(&zero, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
    OK(ct_tensor_empty(&zero, 1, CT_INT32, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &bad));
    OK(ct_argmax_out(x, &dim, false, o));
    EXPECT(o, CT_INT64, 1, 0);
    OK(ct_argmin_out(x, NULL, false, o));
    assert_int_equal(ct_tensor_dim(o), 0);
    EXPECT(o, CT_INT64, 4);
    EXPECT_ERR(ct_argmax_out(x, &dim, false, bad), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype long int, but got int instead");
    ct_tensor_release(bad);
    ct_tensor_release(o);
    ct_tensor_release(x);
}

static void test_devices(void **state) {
    (void)state;
    ct_tensor *m = NULL, *r = NULL;
    OK(ct_tensor_empty(SHAPE(4, 5), CT_INT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &m));
    OK(ct_sum(m, DIMS(1), 1, true, U, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_META);
    assert_int_equal(ct_tensor_dtype(r), CT_INT64);
    assert_sizes(r, 4, 1);
    ct_tensor_release(r);
    EXPECT_ERR(ct_mean(m, NULL, 0, false, U, &r), CT_ERR_RUNTIME,
               "mean(): could not infer output dtype. Input dtype must be either a floating "
               "point or complex dtype. Got: Int");
    ct_tensor_release(m);
    /* a device without host access and without a reduction launch: through host memory */
    ct_backend b;
    OK(ct_backend_host_emulated(CT_DEVICE_XPU, 1, &b));
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    OK(ct_backend_register(&b));
    ct_device xpu = {CT_DEVICE_XPU, 0};
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(SHAPE(3), CT_FLOAT32, &xpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    OK(ct_tensor_fill_(t, ct_scalar_float(1.5))); /* then summed through host memory */
    OK(ct_sum(t, NULL, 0, false, U, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    ct_tensor *rh = NULL;
    OK(ct_tensor_to_device(r, CPU, &rh));
    assert_true(item_f64(rh) == 4.5);
    ct_tensor_release(rh);
    ct_tensor_release(r);
    r = NULL;
    ct_tensor_release(t);
    OK(ct_backend_unregister(CT_DEVICE_XPU));
    /* a host-emulated (host-accessible) device computes */
    OK(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 1));
    ct_device cu = {CT_DEVICE_CUDA, 0};
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(2, 3)), *xc = NULL;
    OK(ct_tensor_to_device(x, cu, &xc));
    OK(ct_reduce(CT_REDUCE_AMAX, xc, DIMS(0), 1, false, U, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_CUDA);
    EXPECT(r, CT_FLOAT32, 3, 4, 5);
    ct_tensor_release(r);
    ct_tensor_release(xc);
    ct_tensor_release(x);
    OK(ct_backend_unregister(CT_DEVICE_CUDA));
}

/* Large sums: the same bits for 1 and 2 threads; the cascade keeps float32 accurate. */
static void test_threads_and_accuracy(void **state) {
    (void)state;
    int64_t n = 3000017;
    ct_tensor *x = NULL;
    OK(ct_tensor_empty(&n, 1, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    float *v = ct_tensor_data_ptr(x);
    double ref = 0;
    uint32_t s = 12345;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (float)((s >> 8) * (1.0 / 16777216.0)) + 0.5f;
        ref += v[i];
    }
    int saved = ct_get_num_threads();
    float got[2];
    ct_tensor *x2 = NULL;
    OK(ct_tensor_view(x, SHAPE(3000017, 1), &x2));
    for (int th = 1; th <= 2; th++) {
        OK(ct_set_num_threads(th));
        ct_tensor *r = NULL;
        OK(ct_sum(x, NULL, 0, false, U, &r));
        got[th - 1] = *(const float *)ct_tensor_data_ptr(r);
        ct_tensor_release(r);
        OK(ct_sum(x2, DIMS(0), 1, false, U, &r)); /* the outer (row) cascade */
        float outer = *(const float *)ct_tensor_data_ptr(r);
        assert_true(fabs(outer - ref) / ref < 1e-6);
        ct_tensor_release(r);
    }
    OK(ct_set_num_threads(saved));
    assert_memory_equal(&got[0], &got[1], sizeof(float));
    assert_true(fabs(got[0] - ref) / ref < 1e-6);
    ct_tensor_release(x2);
    ct_tensor_release(x);
}


/* ---- more reductions: nansum, nanmean, count_nonzero, logsumexp, var/std, norm, aminmax,
 * cumsum/cumprod, max/min out= (expected values and messages checked against torch 1.13) */

static void test_nan_and_counts(void **state) {
    (void)state;
    ct_tensor *x = mk(CT_FLOAT32, SHAPE(2, 3), VALS(1, NAN, 2, NAN, NAN, NAN)), *r = NULL;
    OK(ct_reduce(CT_REDUCE_NANSUM, x, DIMS(1), 1, false, U, &r));
    EXPECT(r, CT_FLOAT32, 3, 0);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_NANMEAN, x, DIMS(-1), 1, true, U, &r));
    assert_sizes(r, 2, 1);
    EXPECT(r, CT_FLOAT32, 1.5, NAN);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_NANSUM, x, NULL, 0, false, CT_FLOAT64, &r));
    EXPECT(r, CT_FLOAT64, 3);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_NANSUM, x, NULL, 0, false, CT_INT64, &r),
               CT_ERR_NOT_IMPLEMENTED, "\"nansum_cpu\" not implemented for 'Long'");
    OK(ct_reduce(CT_REDUCE_COUNT_NONZERO, x, DIMS(0), 1, false, U, &r));
    EXPECT(r, CT_INT64, 2, 2, 2); /* NaN counts */
    ct_tensor_release(r);
    ct_tensor *i = ar(CT_INT32, SHAPE(2, 3)), *c = NULL;
    OK(ct_reduce(CT_REDUCE_NANSUM, i, NULL, 0, false, U, &r)); /* integers: a sum */
    EXPECT(r, CT_INT64, 15);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_NANMEAN, i, NULL, 0, false, U, &r), CT_ERR_RUNTIME,
               "nanmean(): expected input to have floating point dtype but got Int");
    OK(ct_reduce(CT_REDUCE_COUNT_NONZERO, i, DIMS(0, 1), 2, false, U, &r));
    EXPECT(r, CT_INT64, 5);
    ct_tensor_release(r);
    OK(ct_tensor_to_dtype(x, CT_COMPLEX64, &c));
    EXPECT_ERR(ct_reduce(CT_REDUCE_NANSUM, c, NULL, 0, false, U, &r), CT_ERR_RUNTIME,
               "nansum does not support complex inputs");
    ct_tensor_release(c);
    /* logsumexp: stable, integers in the default dtype, infinities */
    ct_tensor *big = mk(CT_FLOAT64, SHAPE(2, 2), VALS(1000, 1000, -INFINITY, -INFINITY));
    OK(ct_reduce(CT_REDUCE_LOGSUMEXP, big, DIMS(1), 1, false, U, &r));
    double want0 = 1000 + log(2.0);
    EXPECT(r, CT_FLOAT64, want0, -INFINITY);
    ct_tensor_release(r);
    OK(ct_reduce(CT_REDUCE_LOGSUMEXP, i, DIMS(0), 1, false, U, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    ct_tensor_release(r);
    EXPECT_ERR(ct_reduce(CT_REDUCE_LOGSUMEXP, x, DIMS(0), 1, false, CT_FLOAT64, &r), CT_ERR_MISUSE,
               "logsumexp: takes no dtype");
    ct_tensor *h = NULL;
    OK(ct_tensor_to_dtype(x, CT_FLOAT16, &h));
    EXPECT_ERR(ct_reduce(CT_REDUCE_LOGSUMEXP, h, DIMS(0), 1, false, U, &r),
               CT_ERR_NOT_IMPLEMENTED, "\"exp_vml_cpu\" not implemented for 'Half'");
    ct_tensor *o = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &o));
    EXPECT_ERR(ct_reduce_out(CT_REDUCE_LOGSUMEXP, big, DIMS(1), 1, false, U, o), CT_ERR_RUNTIME,
               "logsumexp(): Expected floating point type for result tensor, but got: Long");
    ct_tensor_release(o);
    ct_tensor_release(h);
    ct_tensor_release(big);
    ct_tensor_release(i);
    ct_tensor_release(x);
}

static void test_var_std(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT64, SHAPE(2, 3)), *r = NULL, *m = NULL;
    OK(ct_std_var(x, DIMS(0), 1, 1, false, false, NULL, &r, NULL));
    EXPECT(r, CT_FLOAT64, 4.5, 4.5, 4.5);
    ct_tensor_release(r);
    OK(ct_std_var(x, DIMS(1), 1, 0, true, false, NULL, &r, &m));
    assert_sizes(r, 2, 1);
    EXPECT(r, CT_FLOAT64, 2.0 / 3, 2.0 / 3);
    EXPECT(m, CT_FLOAT64, 1, 4);
    ct_tensor_release(r);
    ct_tensor_release(m);
    OK(ct_std_var(x, NULL, 0, 1, false, true, NULL, &r, NULL));
    EXPECT(r, CT_FLOAT64, sqrt(3.5));
    ct_tensor_release(r);
    /* degrees of freedom <= 0: inf, or nan for 0 / 0 (torch 1.13, no warning) */
    ct_tensor *two = mk(CT_FLOAT32, SHAPE(2), VALS(1, 2)), *same = mk(CT_FLOAT32, SHAPE(2), VALS(1, 1));
    OK(ct_std_var(two, NULL, 0, 3, false, false, NULL, &r, NULL));
    EXPECT(r, CT_FLOAT32, INFINITY);
    ct_tensor_release(r);
    OK(ct_std_var(same, NULL, 0, 2, false, false, NULL, &r, NULL));
    EXPECT(r, CT_FLOAT32, NAN);
    ct_tensor_release(r);
    /* complex: the parts' variances summed, in the real dtype */
    ct_tensor *c = NULL;
    OK(ct_tensor_to_dtype(x, CT_COMPLEX64, &c));
    OK(ct_std_var(c, DIMS(1), 1, 1, false, false, NULL, &r, NULL));
    EXPECT(r, CT_FLOAT32, 1, 1);
    ct_tensor_release(r);
    ct_tensor *i = ar(CT_INT64, SHAPE(3));
    EXPECT_ERR(ct_std_var(i, NULL, 0, 1, false, false, NULL, &r, NULL), CT_ERR_RUNTIME,
               "std and var only support floating point and complex dtypes");
    EXPECT_ERR(ct_std_var(i, NULL, 0, 1, false, true, NULL, &r, &m), CT_ERR_RUNTIME,
               "std_mean only support floating point and complex dtypes");
    assert_null(r);
    assert_null(m);
    /* out= of another dtype, empty inputs */
    ct_tensor *o = NULL, *e = NULL;
    OK(ct_tensor_zeros(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &o));
    OK(ct_std_var(x, DIMS(0), 1, 1, false, false, o, &r, NULL));
    assert_ptr_equal(r, o);
    EXPECT(o, CT_FLOAT32, 4.5, 4.5, 4.5);
    ct_tensor_release(r);
    OK(ct_tensor_zeros(SHAPE(0, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &e));
    OK(ct_std_var(e, DIMS(0), 1, 1, false, false, NULL, &r, &m));
    EXPECT(r, CT_FLOAT32, NAN, NAN, NAN);
    EXPECT(m, CT_FLOAT32, NAN, NAN, NAN);
    ct_tensor_release(r);
    ct_tensor_release(m);
    ct_tensor_release(e);
    ct_tensor_release(o);
    ct_tensor_release(i);
    ct_tensor_release(c);
    ct_tensor_release(same);
    ct_tensor_release(two);
    ct_tensor_release(x);
}

static void test_norm(void **state) {
    (void)state;
    ct_tensor *x = mk(CT_FLOAT32, SHAPE(2, 2), VALS(3, -4, 0, 1)), *r = NULL;
    OK(ct_norm(x, 2, NULL, 0, false, U, NULL, &r));
    EXPECT(r, CT_FLOAT32, (float)sqrt(26.0));
    ct_tensor_release(r);
    OK(ct_norm(x, 1, DIMS(1), 1, true, U, NULL, &r));
    assert_sizes(r, 2, 1);
    EXPECT(r, CT_FLOAT32, 7, 1);
    ct_tensor_release(r);
    OK(ct_norm(x, INFINITY, DIMS(0), 1, false, U, NULL, &r));
    EXPECT(r, CT_FLOAT32, 3, 4);
    ct_tensor_release(r);
    OK(ct_norm(x, -INFINITY, NULL, 0, false, CT_FLOAT64, NULL, &r));
    EXPECT(r, CT_FLOAT64, 0);
    ct_tensor_release(r);
    OK(ct_norm(x, 0, NULL, 0, false, U, NULL, &r));
    EXPECT(r, CT_FLOAT32, 3);
    ct_tensor_release(r);
    OK(ct_norm_str(x, "fro", DIMS(0, 1), 2, false, U, NULL, &r));
    EXPECT(r, CT_FLOAT32, (float)sqrt(26.0));
    ct_tensor_release(r);
    EXPECT_ERR(ct_norm_str(x, "fro", NULL, 0, false, CT_FLOAT64, NULL, &r), CT_ERR_VALUE,
               "dtype argument is not supported in frobenius norm");
    EXPECT_ERR(ct_norm_str(x, "abc", NULL, 0, false, U, NULL, &r), CT_ERR_RUNTIME,
               "only valid string values are 'fro' and 'nuc', found abc");
    /* the nuclear norm of [[3, -4], [0, 1]]: singular values sqrt(13 +- sqrt(160)) */
    OK(ct_norm_str(x, "nuc", NULL, 0, false, U, NULL, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    double nuc = sqrt(13 + sqrt(160.0)) + sqrt(13 - sqrt(160.0)); /* LAPACK's: to an ulp */
    assert_true(fabs(*(const float *)ct_tensor_data_ptr(r) - nuc) < 4 * FLT_EPSILON * nuc);
    ct_tensor_release(r);
    OK(ct_norm_str(x, "nuc", DIMS(1, 0), 2, true, U, NULL, &r));
    assert_sizes(r, 1, 1);
    ct_tensor_release(r);
    EXPECT_ERR(ct_norm_str(x, "nuc", DIMS(0), 1, false, U, NULL, &r), CT_ERR_RUNTIME,
               "nuclear norm requires a 'dim' argument of size 2");
    EXPECT_ERR(ct_norm_str(x, "nuc", DIMS(1, -1), 2, false, U, NULL, &r), CT_ERR_RUNTIME,
               "duplicate or invalid dimensions");
    EXPECT_ERR(ct_norm_str(x, "nuc", NULL, 0, false, CT_FLOAT64, NULL, &r), CT_ERR_VALUE,
               "dtype argument is not supported in nuclear norm");
    EXPECT_ERR(ct_norm(x, 2, NULL, 0, false, CT_INT64, NULL, &r), CT_ERR_RUNTIME,
               "norm(): the desired output dtype should be either floating point or complex. "
               "Got Long instead.");
    ct_tensor *i = ar(CT_INT64, SHAPE(3));
    EXPECT_ERR(ct_norm(i, 2, NULL, 0, false, U, NULL, &r), CT_ERR_RUNTIME,
               "norm(): input dtype should be either floating point or complex. Got Long "
               "instead.");
    /* careful: float64 squares that overflow or underflow */
    ct_tensor *big = mk(CT_FLOAT64, SHAPE(2), VALS(3e200, 4e200));
    ct_tensor *small = mk(CT_FLOAT64, SHAPE(2), VALS(3e-200, 4e-200));
    OK(ct_norm(big, 2, NULL, 0, false, U, NULL, &r));
    double v = *(const double *)ct_tensor_data_ptr(r);
    assert_true(fabs(v - 5e200) <= 5e200 * 1e-15);
    ct_tensor_release(r);
    OK(ct_norm(small, 2, NULL, 0, false, U, NULL, &r));
    v = *(const double *)ct_tensor_data_ptr(r);
    assert_true(fabs(v - 5e-200) <= 5e-200 * 1e-15);
    ct_tensor_release(r);
    ct_tensor_release(small);
    ct_tensor_release(big);
    ct_tensor_release(i);
    ct_tensor_release(x);
}

static void test_aminmax_and_max_out(void **state) {
    (void)state;
    ct_tensor *x = mk(CT_FLOAT32, SHAPE(2, 2), VALS(1, -2, 3, 0.5)), *lo = NULL, *hi = NULL;
    OK(ct_aminmax(x, NULL, false, NULL, NULL, &lo, &hi));
    EXPECT(lo, CT_FLOAT32, -2);
    EXPECT(hi, CT_FLOAT32, 3);
    ct_tensor_release(lo);
    ct_tensor_release(hi);
    OK(ct_aminmax(x, DIMS(1), true, NULL, NULL, &lo, &hi));
    assert_sizes(lo, 2, 1);
    EXPECT(lo, CT_FLOAT32, -2, 0.5);
    EXPECT(hi, CT_FLOAT32, 1, 3);
    ct_tensor_release(lo);
    ct_tensor_release(hi);
    ct_tensor *e = NULL;
    OK(ct_tensor_zeros(SHAPE(0, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &e));
    EXPECT_ERR(ct_aminmax(e, NULL, false, NULL, NULL, &lo, &hi), CT_ERR_RUNTIME,
               "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
               "no identity.");
    EXPECT_ERR(ct_aminmax(e, DIMS(-2), false, NULL, NULL, &lo, &hi), CT_ERR_INDEX,
               "aminmax: Expected reduction dim 0 to have non-zero size.");
    /* max(dim, out=(values, indices)): dtype checks before anything is written, resize */
    ct_tensor *v = NULL, *ix = NULL, *bad = NULL;
    OK(ct_tensor_zeros(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &v));
    OK(ct_tensor_zeros(SHAPE(0), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &ix));
    OK(ct_tensor_zeros(SHAPE(0), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &bad));
    EXPECT_ERR(ct_max_dim_out(x, 1, false, v, bad), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype long int, but got int instead");
    assert_sizes(v, 0);
    EXPECT_ERR(ct_min_dim_out(x, 1, false, bad, ix), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype float, but got int instead");
    OK(ct_max_dim_out(x, 1, false, v, ix));
    EXPECT(v, CT_FLOAT32, 1, 3);
    EXPECT(ix, CT_INT64, 0, 0);
    OK(ct_min_dim_out(x, 0, true, v, ix));
    assert_sizes(v, 1, 2);
    EXPECT(v, CT_FLOAT32, 1, -2);
    EXPECT(ix, CT_INT64, 0, 0);
    ct_tensor_release(bad);
    ct_tensor_release(ix);
    ct_tensor_release(v);
    ct_tensor_release(e);
    ct_tensor_release(x);
}

static void test_scan(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_INT32, SHAPE(2, 3)), *r = NULL, *t = NULL;
    OK(ct_cumulative(false, x, 1, U, NULL, &r));
    EXPECT(r, CT_INT64, 0, 1, 3, 3, 7, 12);
    ct_tensor_release(r);
    OK(ct_cumulative(true, x, 0, CT_FLOAT64, NULL, &r));
    EXPECT(r, CT_FLOAT64, 0, 1, 2, 0, 4, 10);
    ct_tensor_release(r);
    /* a transposed input scans along its logical dim */
    OK(ct_tensor_transpose(x, 0, 1, &t));
    OK(ct_cumulative(false, t, 0, CT_INT32, NULL, &r));
    assert_sizes(r, 3, 2);
    EXPECT(r, CT_INT32, 0, 3, 1, 7, 3, 12);
    ct_tensor_release(r);
    EXPECT_ERR(ct_cumulative(false, x, 2, U, NULL, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    EXPECT_ERR(ct_cumulative(false, x, 0, CT_FLOAT16, NULL, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"cumsum_out_cpu\" not implemented for 'Half'");
    EXPECT_ERR(ct_cumulative(true, x, 0, CT_BOOL, NULL, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"cumprod_out_cpu\" not implemented for 'Bool'");
    /* in place: the dtype must be self's */
    EXPECT_ERR(ct_cumulative_(false, x, 1, CT_FLOAT32), CT_ERR_RUNTIME,
               "Bad in-place call: input tensor dtype int and output tensor dtype float should "
               "match");
    OK(ct_cumulative_(false, x, 1, U));
    EXPECT(x, CT_INT32, 0, 1, 3, 3, 7, 12);
    /* float32 accumulates in double: 0.1 added 1000 times */
    int64_t n = 1000;
    ct_tensor *f = NULL;
    OK(ct_tensor_full(&n, 1, ct_scalar_float(0.1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &f));
    OK(ct_cumulative(false, f, 0, U, NULL, &r));
    float last = ((const float *)ct_tensor_data_ptr(r))[999];
    assert_true(last == (float)(1000 * (double)0.1f));
    ct_tensor_release(r);
    /* out= */
    ct_tensor *o = NULL;
    OK(ct_tensor_zeros(SHAPE(0), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &o));
    EXPECT_ERR(ct_cumulative(false, f, 0, CT_FLOAT32, o, &r), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype float, but got double instead");
    OK(ct_cumulative(false, f, 0, U, o, &r));
    assert_ptr_equal(r, o);
    assert_sizes(o, 1000);
    ct_tensor_release(r);
    ct_tensor_release(o);
    ct_tensor_release(f);
    ct_tensor_release(t);
    ct_tensor_release(x);
}

/* The statistics over long rows: the same bits for 1 and 2 threads. */
static void test_stats_threads(void **state) {
    (void)state;
    int64_t n = 300013;
    ct_tensor *x = NULL, *x2 = NULL;
    OK(ct_tensor_empty(&n, 1, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    float *v = ct_tensor_data_ptr(x);
    uint32_t s = 777;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (float)((s >> 8) * (1.0 / 16777216.0)) * 4.0f - 1.0f;
    }
    int64_t shape2[2] = {7, 42859};
    OK(ct_tensor_view(x, shape2, 2, &x2));
    int saved = ct_get_num_threads();
    double got[2][6];
    for (int th = 1; th <= 2; th++) {
        OK(ct_set_num_threads(th));
        ct_tensor *r[6] = {NULL};
        OK(ct_std_var(x, NULL, 0, 1, false, false, NULL, &r[0], NULL));
        OK(ct_norm(x, 2, NULL, 0, false, CT_FLOAT64, NULL, &r[1]));
        OK(ct_reduce(CT_REDUCE_LOGSUMEXP, x, DIMS(0), 1, false, CT_DTYPE_UNDEFINED, &r[2]));
        OK(ct_reduce(CT_REDUCE_NANSUM, x2, DIMS(1), 1, false, CT_FLOAT64, &r[3]));
        OK(ct_cumulative(false, x2, 1, CT_FLOAT64, NULL, &r[4]));
        OK(ct_argmax(x, NULL, false, &r[5]));
        for (int k = 0; k < 6; k++) {
            ct_tensor *d = NULL;
            OK(ct_tensor_to_dtype(r[k], CT_FLOAT64, &d));
            const double *dv = ct_tensor_data_ptr(d);
            got[th - 1][k] = dv[ct_tensor_numel(d) - 1];
            ct_tensor_release(d);
            ct_tensor_release(r[k]);
        }
    }
    OK(ct_set_num_threads(saved));
    assert_memory_equal(got[0], got[1], sizeof got[0]);
    assert_true(fabs(got[0][0] - 4.0 / 3) < 1e-2); /* uniform on [-1, 3): variance 4/3 */
    ct_tensor_release(x2);
    ct_tensor_release(x);
}

static ct_tensor *fx;
static ct_status f_sum(ct_tensor **out) { return ct_sum(fx, DIMS(1), 1, false, U, out); }
static ct_status f_mean(ct_tensor **out) { return ct_mean(fx, DIMS(0, 2), 2, true, U, out); }
static ct_status f_all(ct_tensor **out) { return ct_reduce(CT_REDUCE_ALL, fx, NULL, 0, false, U, out); }
static ct_status f_var(ct_tensor **out) {
    ct_tensor *m = NULL;
    ct_status st = ct_std_var(fx, DIMS(0, 2), 2, 1, false, true, NULL, out, &m);
    ct_tensor_release(m);
    return st;
}
static ct_status f_norm(ct_tensor **out) { return ct_norm(fx, 3, DIMS(1), 1, true, U, NULL, out); }
static ct_status f_lse(ct_tensor **out) {
    return ct_reduce(CT_REDUCE_LOGSUMEXP, fx, DIMS(2), 1, false, U, out);
}
static ct_status f_nanmean(ct_tensor **out) {
    return ct_reduce(CT_REDUCE_NANMEAN, fx, DIMS(0), 1, false, U, out);
}
static ct_status f_count(ct_tensor **out) {
    return ct_reduce(CT_REDUCE_COUNT_NONZERO, fx, NULL, 0, false, U, out);
}
static ct_status f_cumsum(ct_tensor **out) { return ct_cumulative(false, fx, 1, U, NULL, out); }
static ct_status f_aminmax(ct_tensor **out) {
    ct_tensor *lo = NULL;
    ct_status st = ct_aminmax(fx, DIMS(1), false, NULL, NULL, &lo, out);
    ct_tensor_release(lo);
    return st;
}
static ct_status f_argmax(ct_tensor **out) { return ct_argmax(fx, NULL, false, out); }

static void test_fault_injection(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT16, SHAPE(3, 4, 5));
    OK(ct_tensor_permute(x, DIMS(1, 0, 2), 3, &fx));
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("sum", f_sum) > 0);
    assert_true(fault_loop("mean", f_mean) > 0);
    assert_true(fault_loop("all", f_all) > 0);
    assert_true(fault_loop("std_mean", f_var) > 0);
    assert_true(fault_loop("norm", f_norm) > 0);
    assert_true(fault_loop("nanmean", f_nanmean) > 0);
    assert_true(fault_loop("count_nonzero", f_count) > 0);
    OK(ct_set_allocator(&prev));
    ct_tensor_release(fx);
    ct_tensor_release(x);
    /* float32 inputs (aminmax has no float16 kernel) */
    x = ar(CT_FLOAT32, SHAPE(3, 4, 5));
    OK(ct_tensor_permute(x, DIMS(1, 0, 2), 3, &fx));
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("aminmax", f_aminmax) > 0);
    assert_true(fault_loop("argmax", f_argmax) > 0);
    assert_true(fault_loop("logsumexp", f_lse) > 0);
    assert_true(fault_loop("cumsum", f_cumsum) > 0);
    OK(ct_set_allocator(&prev));
    ct_tensor_release(fx);
    ct_tensor_release(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dims_and_keepdim),  cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_empty_and_nan),     cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_out),               cmocka_unit_test(test_devices),
        cmocka_unit_test(test_arg_out),
        cmocka_unit_test(test_threads_and_accuracy), cmocka_unit_test(test_fault_injection),
        cmocka_unit_test(test_nan_and_counts),    cmocka_unit_test(test_var_std),
        cmocka_unit_test(test_norm),              cmocka_unit_test(test_aminmax_and_max_out),
        cmocka_unit_test(test_scan),              cmocka_unit_test(test_stats_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
