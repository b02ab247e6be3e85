/* The ternary ops (ctensor/ternary.h) from C: values and PyTorch's rules for where, clamp,
 * clamp_min/max, lerp, addcmul, addcdiv and masked_fill; dtypes, broadcasting, strided
 * inputs, out= and in-place forms, errors, meta tensors, an emulated accelerator, a launch
 * device (a clean CT_ERR_NOT_IMPLEMENTED) and allocation failure at every point. The Python
 * tests (tests/python/test_ternary_vs_torch.py) compare with torch. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "tensor_test_util.h"

#include "fault_loop.h"
#include "warning_capture.h"

#define VALS(...) ((const double[]){__VA_ARGS__})
#define RELEASE(...)                                                                               \
    do {                                                                                           \
        ct_tensor *all_[] = {__VA_ARGS__};                                                         \
        for (size_t i_ = 0; i_ < sizeof all_ / sizeof all_[0]; i_++)                               \
            ct_tensor_release(all_[i_]);                                                           \
    } while (0)

static const ct_scalar ONE = {CT_SCALAR_INT, {.i = 1}};

/* A tensor of dtype dt on `dev` with the given values (C order), converted from float64. */
static ct_tensor *mk_on(ct_dtype dt, const ct_device *dev, const int64_t *sizes, int64_t n,
                        const double *v) {
    ct_tensor *d = NULL, *t = NULL;
    OK(ct_tensor_from_data(sizes, n, CT_FLOAT64, v, &CPU, &d));
    OK(ct_tensor_to(d, dt, dev, true, CT_MEMFMT_CONTIGUOUS, &t));
    ct_tensor_release(d);
    return t;
}
static ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t n, const double *v) {
    return mk_on(dt, &CPU, sizes, n, v);
}
static ct_tensor *num(ct_scalar s) {
    ct_tensor *t = NULL;
    OK(ct_tensor_wrapped_number(s, &t));
    return t;
}

static void expect(const ct_tensor *t, ct_dtype dt, const double *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(ct_tensor_dtype(t), dt);
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    assert_int_equal(ct_tensor_numel(d), n);
    const double *got = ct_tensor_data_ptr(d);
    for (int64_t i = 0; i < n; i++) {
        bool same = (isnan(got[i]) && isnan(want[i])) || got[i] == want[i];
        if (!same)
            fail_msg("element %d: got %.17g, want %.17g", (int)i, got[i], want[i]);
    }
    ct_tensor_release(d);
}
#define EXPECT(t, dt, ...)                                                                         \
    expect(t, dt, VALS(__VA_ARGS__), (int64_t)(sizeof VALS(__VA_ARGS__) / sizeof(double)))

/* ---- where ---- */

static void test_where(void **state) {
    (void)state;
    ct_tensor *c = mk(CT_BOOL, SHAPE(3), VALS(1, 0, 1));
    ct_tensor *a = mk(CT_INT64, SHAPE(3), VALS(1, 2, 3));
    ct_tensor *b = mk(CT_FLOAT32, SHAPE(3), VALS(1.5, 2.5, 3.5));
    ct_tensor *r = NULL;
    OK(ct_ternary(CT_TEROP_WHERE, c, a, b, ONE, &r));
    EXPECT(r, CT_FLOAT32, 1, 2.5, 3);
    ct_tensor_release(r);
    /* Python numbers join the result type as scalars; two floats give the default dtype */
    ct_tensor *two = num(ct_scalar_int(2)), *h = num(ct_scalar_float(2.5));
    OK(ct_ternary(CT_TEROP_WHERE, c, two, h, ONE, &r));
    EXPECT(r, CT_FLOAT32, 2, 2.5, 2);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_WHERE, c, h, h, ONE, &r));
    EXPECT(r, CT_FLOAT32, 2.5, 2.5, 2.5);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_WHERE, c, a, two, ONE, &r));
    EXPECT(r, CT_INT64, 1, 2, 3);
    ct_tensor_release(r);
    /* broadcasting all three: (2, 1) condition, (3) input, (2, 3) other */
    ct_tensor *c2 = mk(CT_BOOL, SHAPE(2, 1), VALS(1, 0));
    ct_tensor *o = mk(CT_FLOAT32, SHAPE(2, 3), VALS(10, 11, 12, 13, 14, 15));
    OK(ct_ternary(CT_TEROP_WHERE, c2, b, o, ONE, &r));
    assert_sizes(r, 2, 3);
    EXPECT(r, CT_FLOAT32, 1.5, 2.5, 3.5, 13, 14, 15);
    ct_tensor_release(r);
    /* a transposed input: the values follow its indices */
    ct_tensor *ot = NULL, *ct = mk(CT_BOOL, SHAPE(3, 2), VALS(1, 0, 0, 1, 1, 1));
    OK(ct_tensor_transpose(o, 0, 1, &ot));
    OK(ct_ternary(CT_TEROP_WHERE, ct, ot, h, ONE, &r));
    EXPECT(r, CT_FLOAT32, 10, 2.5, 2.5, 14, 12, 15);
    ct_tensor_release(r);
    /* errors */
    EXPECT_ERR(ct_ternary(CT_TEROP_WHERE, b, a, b, ONE, &r), CT_ERR_RUNTIME,
               "where expected condition to be a boolean tensor, but got a tensor with dtype "
               "Float");
    assert_null(r);
    ct_tensor *out = mk(CT_FLOAT64, SHAPE(3), VALS(0, 0, 0));
    EXPECT_ERR(ct_ternary_out(CT_TEROP_WHERE, c, a, b, ONE, out), CT_ERR_RUNTIME,
               "Expected out type to be Float but got Double");
    ct_tensor *a2 = mk(CT_FLOAT32, SHAPE(2), VALS(1, 2));
    EXPECT_ERR(ct_ternary(CT_TEROP_WHERE, c, a2, b, ONE, &r), CT_ERR_RUNTIME,
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
               "dimension 0");
    EXPECT_ERR(ct_ternary_(CT_TEROP_WHERE, c, a, b, ONE), CT_ERR_MISUSE,
               "ct_ternary_: where has no in-place form");
    /* a uint8 condition works, with PyTorch's deprecation warning once per process */
    ct_tensor *cu = mk(CT_UINT8, SHAPE(3), VALS(0, 7, 1));
    ct_set_warning_handler(on_warning, NULL);
    nwarnings = 0;
    OK(ct_ternary(CT_TEROP_WHERE, cu, a, b, ONE, &r));
    EXPECT(r, CT_FLOAT32, 1.5, 2, 3);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_WHERE, cu, a, b, ONE, &r));
    ct_tensor_release(r);
    assert_int_equal(nwarnings, 1);
    assert_non_null(strstr(last_warning, "where received a uint8 condition tensor."));
    ct_set_warning_handler(NULL, NULL);
    RELEASE(c, a, b, two, h, c2, o, ot, ct, out, a2, cu);
}

/* ---- clamp ---- */

static void test_clamp(void **state) {
    (void)state;
    const double nan = NAN;
    ct_tensor *x = mk(CT_FLOAT32, SHAPE(4), VALS(1, nan, 5, -3));
    ct_tensor *z = num(ct_scalar_int(0)), *two = num(ct_scalar_int(2)),
              *three = num(ct_scalar_int(3)), *n = num(ct_scalar_float(nan)), *r = NULL;
    OK(ct_ternary(CT_TEROP_CLAMP, x, z, two, ONE, &r));
    EXPECT(r, CT_FLOAT32, 1, nan, 2, 0);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_CLAMP, x, three, two, ONE, &r)); /* min > max: max */
    EXPECT(r, CT_FLOAT32, 2, nan, 2, 2);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_CLAMP, x, n, two, ONE, &r)); /* a NaN scalar with the other: NaN */
    EXPECT(r, CT_FLOAT32, nan, nan, nan, nan);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_CLAMP, x, n, NULL, ONE, &r)); /* a lone NaN scalar: unchanged */
    EXPECT(r, CT_FLOAT32, 1, nan, 5, -3);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_CLAMP_MAX, x, n, NULL, ONE, &r)); /* clamp_max itself: NaN */
    EXPECT(r, CT_FLOAT32, nan, nan, nan, nan);
    ct_tensor_release(r);
    /* tensor bounds propagate NaN element by element */
    ct_tensor *lo = mk(CT_FLOAT32, SHAPE(4), VALS(0, 0, nan, 0));
    OK(ct_ternary(CT_TEROP_CLAMP, x, lo, NULL, ONE, &r));
    EXPECT(r, CT_FLOAT32, 1, nan, nan, 0);
    ct_tensor_release(r);
    /* integers: float scalar bounds give the default dtype; tensor bounds promote */
    ct_tensor *i = mk(CT_INT64, SHAPE(3), VALS(1, 2, 3));
    ct_tensor *half = num(ct_scalar_float(0.5)), *lo3 = mk(CT_FLOAT32, SHAPE(3), VALS(0.5, 1, 1));
    OK(ct_ternary(CT_TEROP_CLAMP, i, half, two, ONE, &r));
    EXPECT(r, CT_FLOAT32, 1, 2, 2);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_CLAMP_MIN, i, lo3, NULL, ONE, &r));
    EXPECT(r, CT_FLOAT32, 1, 2, 3);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_CLAMP, i, two, NULL, ONE, &r));
    EXPECT(r, CT_INT64, 2, 2, 3);
    ct_tensor_release(r);
    /* bool: tensor bounds compute, scalar bounds have no kernel */
    ct_tensor *bl = mk(CT_BOOL, SHAPE(3), VALS(1, 0, 1)), *f0 = mk(CT_BOOL, SHAPE(1), VALS(1));
    OK(ct_ternary(CT_TEROP_CLAMP, bl, f0, NULL, ONE, &r));
    EXPECT(r, CT_BOOL, 1, 1, 1);
    ct_tensor_release(r);
    ct_tensor *t = num(ct_scalar_bool(true)), *f = num(ct_scalar_bool(false));
    EXPECT_ERR(ct_ternary(CT_TEROP_CLAMP, bl, f, t, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"clamp_scalar_cpu\" not implemented for 'Bool'");
    /* errors */
    EXPECT_ERR(ct_ternary(CT_TEROP_CLAMP, x, NULL, NULL, ONE, &r), CT_ERR_RUNTIME,
               "torch.clamp: At least one of 'min' or 'max' must not be None");
    ct_tensor *cx = mk(CT_COMPLEX64, SHAPE(1), VALS(1));
    EXPECT_ERR(ct_ternary(CT_TEROP_CLAMP, cx, z, NULL, ONE, &r), CT_ERR_RUNTIME,
               "clamp is not supported for complex types");
    ct_tensor *cz = num(ct_scalar_complex(0, 1));
    EXPECT_ERR(ct_ternary(CT_TEROP_CLAMP, x, cz, NULL, ONE, &r), CT_ERR_OVERFLOW,
               "value cannot be converted to type float without overflow");
    ct_tensor *i8 = mk(CT_INT8, SHAPE(2), VALS(1, 2)), *big = num(ct_scalar_int(1000));
    EXPECT_ERR(ct_ternary(CT_TEROP_CLAMP, i8, big, NULL, ONE, &r), CT_ERR_OVERFLOW,
               "value cannot be converted to type int8_t without overflow");
    EXPECT_ERR(ct_ternary_(CT_TEROP_CLAMP, i, half, NULL, ONE), CT_ERR_RUNTIME,
               "result type Float can't be cast to the desired output type long int");
    EXPECT_ERR(ct_ternary_(CT_TEROP_CLAMP, i, lo3, NULL, ONE), CT_ERR_RUNTIME,
               "result type Float can't be cast to the desired output type Long");
    ct_tensor *od = mk(CT_FLOAT64, SHAPE(3), VALS(0, 0, 0));
    EXPECT_ERR(ct_ternary_out(CT_TEROP_CLAMP, i, half, NULL, ONE, od), CT_ERR_RUNTIME,
               "Found dtype Double but expected Float");
    OK(ct_ternary_out(CT_TEROP_CLAMP, i, lo3, NULL, ONE, od)); /* tensor bounds: cast */
    EXPECT(od, CT_FLOAT64, 1, 2, 3);
    /* in place on a view: only the view's elements change */
    ct_tensor *base = mk(CT_FLOAT32, SHAPE(2, 3), VALS(-5, 0, 5, -5, 0, 5)), *row = NULL;
    OK(ct_tensor_select(base, 0, 1, &row));
    OK(ct_ternary_(CT_TEROP_CLAMP, row, z, two, ONE));
    EXPECT(base, CT_FLOAT32, -5, 0, 5, 0, 0, 2);
    RELEASE(x, z, two, three, n, lo, i, half, lo3, bl, f0, t, f, cx, cz, i8, big, od, base, row);
}

/* ---- lerp, addcmul, addcdiv ---- */

static void test_arith(void **state) {
    (void)state;
    ct_tensor *s = mk(CT_FLOAT32, SHAPE(3), VALS(1, 2, 3));
    ct_tensor *e = mk(CT_FLOAT32, SHAPE(3), VALS(10, 20, 30)), *r = NULL;
    ct_tensor *w = num(ct_scalar_float(0.25)), *w3 = mk(CT_FLOAT32, SHAPE(3), VALS(0, 0.5, 1));
    OK(ct_ternary(CT_TEROP_LERP, s, e, w, ONE, &r));
    EXPECT(r, CT_FLOAT32, 3.25, 6.5, 9.75);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_LERP, s, e, w3, ONE, &r)); /* exact at both ends */
    EXPECT(r, CT_FLOAT32, 1, 11, 30);
    ct_tensor_release(r);
    ct_tensor *ed = mk(CT_FLOAT64, SHAPE(3), VALS(1, 1, 1));
    EXPECT_ERR(ct_ternary(CT_TEROP_LERP, s, ed, w, ONE, &r), CT_ERR_RUNTIME,
               "expected dtype float for `end` but got dtype double");
    ct_tensor *wi = mk(CT_INT64, SHAPE(3), VALS(1, 1, 1));
    EXPECT_ERR(ct_ternary(CT_TEROP_LERP, s, e, wi, ONE, &r), CT_ERR_RUNTIME,
               "expected dtype float for `weight` but got dtype long int");
    ct_tensor *i = mk(CT_INT64, SHAPE(3), VALS(1, 2, 3));
    EXPECT_ERR(ct_ternary(CT_TEROP_LERP, i, i, w, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"lerp_kernel_scalar\" not implemented for 'Long'");
    /* addcmul: fma(value * t1, t2, input); integers wrap */
    OK(ct_ternary(CT_TEROP_ADDCMUL, s, s, e, ct_scalar_int(2), &r));
    EXPECT(r, CT_FLOAT32, 21, 82, 183);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_ADDCMUL, i, i, i, ct_scalar_float(2.5), &r)); /* value -> 2 */
    EXPECT(r, CT_INT64, 3, 10, 21);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_ADDCMUL, i, i, s, ct_scalar_int(2), &r));
    EXPECT(r, CT_FLOAT32, 3, 10, 21);
    ct_tensor_release(r);
    EXPECT_ERR(ct_ternary(CT_TEROP_ADDCMUL, s, s, s, ct_scalar_complex(0, 1), &r),
               CT_ERR_OVERFLOW, "value cannot be converted to type float without overflow");
    ct_tensor *bl = mk(CT_BOOL, SHAPE(3), VALS(1, 0, 1));
    EXPECT_ERR(ct_ternary(CT_TEROP_ADDCMUL, bl, bl, bl, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"addcmul_cpu_out\" not implemented for 'Bool'");
    ct_tensor *u16 = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_UINT16, &CPU, CT_LAYOUT_STRIDED, &u16));
    EXPECT_ERR(ct_ternary(CT_TEROP_ADDCMUL, u16, u16, u16, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"addcmul_cpu_out\" not implemented for 'UInt16'");
    /* addcdiv: input + (value * t1) / t2 */
    OK(ct_ternary(CT_TEROP_ADDCDIV, s, s, e, ct_scalar_int(2), &r));
    EXPECT(r, CT_FLOAT32, 1.2f, 2.2f, 3.2f);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_ADDCDIV, i, s, s, ONE, &r));
    EXPECT(r, CT_FLOAT32, 2, 3, 4);
    ct_tensor_release(r);
    ct_status st = ct_ternary(CT_TEROP_ADDCDIV, s, i, bl, ONE, &r);
    assert_int_equal(st, CT_ERR_RUNTIME);
    assert_non_null(strstr(ct_last_error(), "Integer division with addcdiv is no longer supported"));
    ct_tensor *ol = mk(CT_INT64, SHAPE(3), VALS(0, 0, 0));
    EXPECT_ERR(ct_ternary_out(CT_TEROP_ADDCMUL, s, i, i, ONE, ol), CT_ERR_RUNTIME,
               "result type Float can't be cast to the desired output type Long");
    RELEASE(s, e, w, w3, ed, wi, i, bl, u16, ol);
}

/* ---- masked_fill ---- */

static void test_masked_fill(void **state) {
    (void)state;
    ct_tensor *x = mk(CT_FLOAT32, SHAPE(3), VALS(1, 2, 3));
    ct_tensor *m = mk(CT_BOOL, SHAPE(3), VALS(1, 0, 1)), *r = NULL;
    ct_tensor *v = num(ct_scalar_float(2.5)), *i = mk(CT_INT64, SHAPE(3), VALS(1, 2, 3));
    OK(ct_ternary(CT_TEROP_MASKED_FILL, x, m, v, ONE, &r));
    EXPECT(r, CT_FLOAT32, 2.5, 2, 2.5);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_MASKED_FILL, i, m, v, ONE, &r)); /* self's dtype: 2.5 -> 2 */
    EXPECT(r, CT_INT64, 2, 2, 2);
    ct_tensor_release(r);
    /* out of place: self broadcast with the mask, contiguous */
    ct_tensor *x23 = iota(SHAPE(2, 3)), *xt = NULL;
    OK(ct_tensor_transpose(x23, 0, 1, &xt)); /* (3, 2) */
    ct_tensor *m2 = mk(CT_BOOL, SHAPE(2), VALS(0, 1));
    OK(ct_ternary(CT_TEROP_MASKED_FILL, xt, m2, v, ONE, &r));
    assert_sizes(r, 3, 2);
    assert_strides(r, 2, 1);
    EXPECT(r, CT_FLOAT32, 0, 2.5, 1, 2.5, 2, 2.5);
    ct_tensor_release(r);
    ct_tensor *m23 = mk(CT_BOOL, SHAPE(2, 3), VALS(1, 1, 1, 0, 0, 0));
    OK(ct_ternary(CT_TEROP_MASKED_FILL, x, m23, v, ONE, &r));
    assert_sizes(r, 2, 3);
    EXPECT(r, CT_FLOAT32, 2.5, 2.5, 2.5, 1, 2, 3);
    ct_tensor_release(r);
    /* in place: the mask broadcasts to self, never the other way */
    ct_tensor *m3 = mk(CT_BOOL, SHAPE(3), VALS(0, 1, 0));
    OK(ct_ternary_(CT_TEROP_MASKED_FILL, x23, m3, v, ONE));
    EXPECT(x23, CT_FLOAT32, 0, 2.5, 2, 3, 2.5, 5);
    RELEASE(xt, m3);
    /* errors */
    EXPECT_ERR(ct_ternary_(CT_TEROP_MASKED_FILL, x, m23, v, ONE), CT_ERR_RUNTIME,
               "output with shape [3] doesn't match the broadcast shape [2, 3]");
    ct_tensor *mf = mk(CT_FLOAT32, SHAPE(3), VALS(1, 0, 1));
    EXPECT_ERR(ct_ternary(CT_TEROP_MASKED_FILL, x, mf, v, ONE, &r), CT_ERR_RUNTIME,
               "masked_fill_ only supports boolean masks, but got mask with dtype float");
    ct_tensor *v1 = mk(CT_FLOAT32, SHAPE(1), VALS(1));
    EXPECT_ERR(ct_ternary(CT_TEROP_MASKED_FILL, x, m, v1, ONE, &r), CT_ERR_RUNTIME,
               "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
               "dimension(s).");
    ct_tensor *i32 = mk(CT_INT32, SHAPE(3), VALS(1, 2, 3)), *big = num(ct_scalar_float(1e20));
    EXPECT_ERR(ct_ternary_(CT_TEROP_MASKED_FILL, i32, m, big, ONE), CT_ERR_OVERFLOW,
               "value cannot be converted to type int without overflow");
    /* an expanded self warns (PyTorch's deprecation) and is written */
    ct_tensor *one = mk(CT_FLOAT32, SHAPE(3), VALS(1, 1, 1)), *ex = NULL;
    OK(ct_tensor_expand(one, SHAPE(2, 3), &ex));
    ct_set_warning_handler(on_warning, NULL);
    nwarnings = 0;
    OK(ct_ternary_(CT_TEROP_MASKED_FILL, ex, m, v, ONE));
    assert_int_equal(nwarnings, 1);
    assert_non_null(strstr(last_warning, "Use of masked_fill_ on expanded tensors is deprecated"));
    ct_set_warning_handler(NULL, NULL);
    EXPECT(one, CT_FLOAT32, 2.5, 1, 2.5);
    RELEASE(x, m, v, i, x23, m2, m23, mf, v1, i32, big, one, ex);
}

/* ---- devices ---- */

static int launches;
static ct_kernel_launch last_launch;
static ct_status count_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    (void)ctx, (void)index;
    last_launch = *l;
    launches++;
    return CT_OK;
}

static void test_devices(void **state) {
    (void)state;
    ct_tensor *m = NULL, *c = NULL, *r = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &m));
    OK(ct_tensor_empty(SHAPE(3), CT_BOOL, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &c));
    ct_tensor *h = num(ct_scalar_float(0.5));
    OK(ct_ternary(CT_TEROP_WHERE, c, m, h, ONE, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_META);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_sizes(r, 2, 3);
    ct_tensor_release(r);
    OK(ct_ternary(CT_TEROP_ADDCMUL, m, m, m, ONE, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_META);
    ct_tensor_release(r);
    RELEASE(m, c);

    /* an emulated accelerator whose memory the host reaches: computed as on the cpu */
    ct_backend b;
    OK(ct_backend_host_emulated(CT_DEVICE_XPU, 1, &b));
    OK(ct_backend_register(&b));
    ct_device xpu = {CT_DEVICE_XPU, 0};
    ct_tensor *x = mk_on(CT_FLOAT32, &xpu, SHAPE(3), VALS(-1, 0.25, 3));
    ct_tensor *lo = num(ct_scalar_int(0)), *hi = num(ct_scalar_int(1));
    OK(ct_ternary(CT_TEROP_CLAMP, x, lo, hi, ONE, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    EXPECT(r, CT_FLOAT32, 0, 0.25, 1);
    ct_tensor_release(r);
    /* a 0-dim cpu tensor joins it (the cross-device rule); a dimensioned one does not */
    ct_tensor *z = mk(CT_FLOAT32, NULL, 0, VALS(2)), *z1 = mk(CT_FLOAT32, SHAPE(1), VALS(2));
    OK(ct_ternary(CT_TEROP_LERP, x, x, z, ONE, &r));
    EXPECT(r, CT_FLOAT32, -1, 0.25, 3);
    ct_tensor_release(r);
    EXPECT_ERR(ct_ternary(CT_TEROP_LERP, x, x, z1, ONE, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "xpu:0 and cpu!");
    RELEASE(x);
    OK(ct_backend_unregister(CT_DEVICE_XPU));

    /* a device only a launch can compute on: one TERNARY launch, the numbers by value
     * (test_launch_dispatch compares what such launches compute with the cpu) */
    OK(ct_backend_host_emulated(CT_DEVICE_XPU, 1, &b));
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = count_launch;
    OK(ct_backend_register(&b));
    ct_tensor *y = NULL;
    OK(ct_tensor_empty(SHAPE(2), CT_FLOAT32, &xpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &y));
    OK(ct_ternary(CT_TEROP_CLAMP, y, lo, hi, ONE, &r));
    assert_int_equal(launches, 1);
    assert_int_equal(last_launch.kind, CT_LAUNCH_TERNARY);
    assert_int_equal(last_launch.terop, (int)CT_TEROP_CLAMP);
    assert_int_equal(last_launch.noperands, 4);
    assert_int_equal(last_launch.ter_by_value, 6u);
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    RELEASE(y, h, lo, hi, z, z1, r);
    OK(ct_backend_unregister(CT_DEVICE_XPU));
}

/* ---- allocation failure at every point ---- */

static ct_tensor *fc, *fx, *fy, *fs;
static ct_status f_where(ct_tensor **o) { return ct_ternary(CT_TEROP_WHERE, fc, fx, fs, ONE, o); }
static ct_status f_clamp(ct_tensor **o) { return ct_ternary(CT_TEROP_CLAMP, fy, fs, NULL, ONE, o); }
static ct_status f_addcmul(ct_tensor **o) {
    return ct_ternary(CT_TEROP_ADDCMUL, fx, fy, fx, ct_scalar_float(0.5), o);
}
static ct_status f_fill(ct_tensor **o) {
    return ct_ternary(CT_TEROP_MASKED_FILL, fx, fc, fs, ONE, o);
}
static ct_status f_out(ct_tensor **o) {
    ct_tensor *t = NULL;
    ct_status st = ct_tensor_empty(SHAPE(1), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED,
                                   CT_MEMFMT_CONTIGUOUS, &t);
    if (st == CT_OK)
        st = ct_ternary_out(CT_TEROP_LERP, fx, fx, fs, ONE, t);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *o = t;
    return CT_OK;
}
static ct_status f_inplace(ct_tensor **o) {
    ct_tensor *t = NULL;
    ct_status st = ct_tensor_zeros(SHAPE(4, 3, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &t);
    if (st == CT_OK)
        st = ct_ternary_(CT_TEROP_MASKED_FILL, t, fc, fs, ONE);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *o = t;
    return CT_OK;
}

static void test_fault_injection(void **state) {
    (void)state;
    fc = mk(CT_BOOL, SHAPE(3, 1), VALS(1, 0, 1));
    fx = iota(SHAPE(3, 5));
    fy = mk(CT_INT32, SHAPE(5), VALS(1, 2, 3, 4, 5));
    fs = num(ct_scalar_float(1.5));
    ct_set_warning_handler(on_warning, NULL);
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("where", f_where) > 0);
    assert_true(fault_loop("clamp", f_clamp) > 0);
    assert_true(fault_loop("addcmul", f_addcmul) > 0);
    assert_true(fault_loop("masked_fill", f_fill) > 0);
    assert_true(fault_loop("lerp out=", f_out) > 0);
    assert_true(fault_loop("masked_fill_", f_inplace) > 0);
    OK(ct_set_allocator(&prev));
    ct_set_warning_handler(NULL, NULL);
    RELEASE(fc, fx, fy, fs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_arith),
        cmocka_unit_test(test_masked_fill),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_fault_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
