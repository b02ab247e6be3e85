/* add, sub, mul, div (ops.h): values (alpha, rounding modes, INT_MIN / -1, division by
 * zero), PyTorch's op-specific errors (bool subtraction, alpha, kernels without a dtype),
 * dtypes and output casts through the ops, out= resizing with its warning, in-place forms,
 * scalars, devices (host-emulated cuda, meta), the fast path, the OneFlow mode, and
 * allocation failures in every form. Expected values and messages were checked against
 * torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/compat.h"
#include "ctensor/warning.h"
#include "tensor_test_util.h"
#include "op_values_util.h"

#include "fault_loop.h"
#include "emulated_cuda.h"
#include "warning_capture.h"

/* ---- helpers ---- */

static ct_tensor *scalar_t(ct_dtype dt, double v) { return mk(dt, NULL, 0, VALS(v)); }

static int64_t i64_at(const ct_tensor *t, int64_t i) {
    return ((const int64_t *)ct_tensor_data_ptr(t))[i];
}

/* ---- values ---- */

static void test_add_sub_mul(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_FLOAT32, SHAPE(4), VALS(1, 2.5, -3, 0));
    ct_tensor *b = mk(CT_FLOAT32, SHAPE(4), VALS(10, 20, 30, 40));
    ct_tensor *r = NULL;
    OK(ct_add(a, b, ONE, &r));
    EXPECT(r, CT_FLOAT32, 11, 22.5, 27, 40);
    ct_tensor_release(r);
    OK(ct_add(a, b, ct_scalar_float(0.5), &r));
    EXPECT(r, CT_FLOAT32, 6, 12.5, 12, 20);
    ct_tensor_release(r);
    OK(ct_sub(a, b, ONE, &r));
    EXPECT(r, CT_FLOAT32, -9, -17.5, -33, -40);
    ct_tensor_release(r);
    OK(ct_sub(a, b, ct_scalar_int(2), &r));
    EXPECT(r, CT_FLOAT32, -19, -37.5, -63, -80);
    ct_tensor_release(r);
    OK(ct_mul(a, b, &r));
    EXPECT(r, CT_FLOAT32, 10, 50, -90, 0);
    ct_tensor_release(r);
    /* broadcasting (3, 1) with (1, 4) */
    ct_tensor *col = mk(CT_INT32, SHAPE(3, 1), VALS(1, 2, 3));
    ct_tensor *row = mk(CT_INT32, SHAPE(1, 4), VALS(10, 20, 30, 40));
    OK(ct_add(col, row, ct_scalar_int(3), &r));
    assert_sizes(r, 3, 4);
    EXPECT(r, CT_INT32, 31, 61, 91, 121, 32, 62, 92, 122, 33, 63, 93, 123);
    ct_tensor_release(r);
    /* mixed dtypes compute in the common dtype */
    ct_tensor *i = mk(CT_INT32, SHAPE(3), VALS(1, 2, 3));
    OK(ct_add_scalar(i, ct_scalar_float(2.5), ONE, &r));
    EXPECT(r, CT_FLOAT32, 3.5, 4.5, 5.5);
    ct_tensor_release(r);
    ct_tensor *u8 = mk(CT_UINT8, SHAPE(2), VALS(0, 3));
    OK(ct_add_scalar(u8, ct_scalar_int(300), ONE, &r));
    EXPECT(r, CT_UINT8, 44, 47);
    ct_tensor_release(r);
    OK(ct_mul_scalar(u8, ct_scalar_int(1000), &r));
    EXPECT(r, CT_UINT8, 0, 184);
    ct_tensor_release(r);
    OK(ct_add_scalar(u8, ct_scalar_int(-1), ONE, &r));
    EXPECT(r, CT_UINT8, 255, 2);
    ct_tensor_release(r);
    /* bool: add is or, mul is and */
    ct_tensor *bt = mk(CT_BOOL, SHAPE(4), VALS(0, 0, 1, 1)), *bu = mk(CT_BOOL, SHAPE(4), VALS(0, 1, 0, 1));
    OK(ct_add(bt, bu, ONE, &r));
    EXPECT(r, CT_BOOL, 0, 1, 1, 1);
    ct_tensor_release(r);
    OK(ct_mul(bt, bu, &r));
    EXPECT(r, CT_BOOL, 0, 0, 0, 1);
    ct_tensor_release(r);
    OK(ct_add_scalar(bt, ct_scalar_int(5), ONE, &r));
    EXPECT(r, CT_INT64, 5, 5, 6, 6);
    ct_tensor_release(r);
    /* float16 computes in float32 and rounds once; f16 + 1e10 -> inf */
    ct_tensor *h = mk(CT_FLOAT16, SHAPE(2), VALS(1, 2048));
    OK(ct_add_scalar(h, ct_scalar_float(1), ONE, &r));
    EXPECT(r, CT_FLOAT16, 2, 2048);
    ct_tensor_release(r);
    OK(ct_add_scalar(h, ct_scalar_float(1e10), ONE, &r));
    EXPECT(r, CT_FLOAT16, INFINITY, INFINITY);
    ct_tensor_release(r);
    /* complex */
    ct_tensor *c = mk(CT_COMPLEX64, SHAPE(2), VALS(1, 2));
    OK(ct_mul_scalar(c, ct_scalar_complex(0, 1), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_COMPLEX64);
    const float *cv = ct_tensor_data_ptr(r);
    assert_true(cv[0] == 0 && cv[1] == 1 && cv[2] == 0 && cv[3] == 2);
    ct_tensor_release(r);
    /* two Python floats stay float64; an int and a float give the default dtype */
    ct_tensor *w = NULL;
    OK(ct_tensor_wrapped_number(ct_scalar_float(5), &w));
    OK(ct_add_scalar(w, ct_scalar_float(5), ONE, &r));
    EXPECT(r, CT_FLOAT64, 10);
    assert_int_equal(ct_tensor_dim(r), 0);
    assert_false(ct_tensor_is_wrapped_number(r));
    ct_tensor_release(r);
    ct_tensor_release(w);
    OK(ct_tensor_wrapped_number(ct_scalar_int(5), &w));
    OK(ct_add_scalar(w, ct_scalar_float(5), ONE, &r));
    EXPECT(r, CT_FLOAT32, 10);
    ct_tensor_release(r);
    OK(ct_add_scalar(w, ct_scalar_int(5), ONE, &r));
    EXPECT(r, CT_INT64, 10);
    ct_tensor_release(r);
    ct_tensor_release(w);
    RELEASE(a, b, col, row, i, u8, bt, bu, h, c);
}

static void test_alpha(void **state) {
    (void)state;
    ct_tensor *i = mk(CT_INT64, SHAPE(1), VALS(1)), *j = mk(CT_INT64, SHAPE(1), VALS(2));
    ct_tensor *f = mk(CT_FLOAT32, SHAPE(1), VALS(1)), *b = mk(CT_BOOL, SHAPE(1), VALS(1));
    ct_tensor *r = NULL, *o = mk(CT_FLOAT32, SHAPE(1), VALS(0));
    const char *float_alpha =
        "For integral input tensors, argument alpha must not be a floating point number.";
    assert_status_msg(ct_add(i, j, ct_scalar_float(2.5), &r), CT_ERR_RUNTIME, float_alpha);
    assert_null(r);
    /* the computation dtype decides, not the out= dtype */
    assert_status_msg(ct_add_out(i, j, ct_scalar_float(2.5), o), CT_ERR_RUNTIME, float_alpha);
    assert_status_msg(ct_add(i, j, ct_scalar_bool(true), &r), CT_ERR_RUNTIME,
                      "Boolean alpha only supported for Boolean results.");
    OK(ct_add(b, b, ct_scalar_bool(true), &r));
    EXPECT(r, CT_BOOL, 1);
    ct_tensor_release(r);
    assert_status_msg(ct_add(f, f, ct_scalar_complex(0, 1), &r), CT_ERR_RUNTIME,
                      "For non-complex input tensors, argument alpha must not be a complex "
                      "number.");
    assert_status_msg(ct_add(i, i, ct_scalar_complex(0, 1), &r), CT_ERR_RUNTIME, float_alpha);
    assert_status_msg(ct_sub_(i, j, ct_scalar_float(1)), CT_ERR_RUNTIME, float_alpha);
    /* sub negates alpha as PyTorch's Scalar::operator-: -INT64_MIN wraps to INT64_MIN, for
     * integer and floating results alike */
    OK(ct_sub(i, j, ct_scalar_int(INT64_MIN), &r));
    EXPECT(r, CT_INT64, 1);
    ct_tensor_release(r);
    ct_tensor *d = mk(CT_FLOAT64, SHAPE(1), VALS(2));
    OK(ct_sub(f, d, ct_scalar_int(INT64_MIN), &r));
    EXPECT(r, CT_FLOAT64, 1 - 2 * 9223372036854775808.0);
    ct_tensor_release(r);
    /* sub(int32[1], 1.5, alpha=-2**63): float32, 1 + INT64_MIN * 1.5 */
    ct_tensor *i1 = mk(CT_INT32, SHAPE(1), VALS(1));
    OK(ct_sub_scalar(i1, ct_scalar_float(1.5), ct_scalar_int(INT64_MIN), &r));
    EXPECT(r, CT_FLOAT32, -1.5 * 9223372036854775808.0);
    ct_tensor_release(r);
    ct_tensor_release(i1);
    OK(ct_sub(d, d, ct_scalar_float(-0.5), &r));
    EXPECT(r, CT_FLOAT64, 3);
    ct_tensor_release(r);
    OK(ct_add(i, j, ct_scalar_int(-3), &r));
    EXPECT(r, CT_INT64, -5);
    ct_tensor_release(r);
    RELEASE(i, j, f, b, o, d);
}

static void test_div(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_INT32, SHAPE(4), VALS(7, -7, 7, -7));
    ct_tensor *b = mk(CT_INT32, SHAPE(4), VALS(2, 2, -2, -2));
    ct_tensor *r = NULL;
    OK(ct_div(a, b, CT_ROUNDING_NONE, &r));
    EXPECT(r, CT_FLOAT32, 3.5, -3.5, -3.5, 3.5);
    ct_tensor_release(r);
    OK(ct_div(a, b, CT_ROUNDING_TRUNC, &r));
    EXPECT(r, CT_INT32, 3, -3, -3, 3);
    ct_tensor_release(r);
    OK(ct_div(a, b, CT_ROUNDING_FLOOR, &r));
    EXPECT(r, CT_INT32, 3, -4, -4, 3);
    ct_tensor_release(r);
    /* true division by zero: inf / nan */
    OK(ct_div_scalar(a, ct_scalar_int(0), CT_ROUNDING_NONE, &r));
    EXPECT(r, CT_FLOAT32, INFINITY, -INFINITY, INFINITY, -INFINITY);
    ct_tensor_release(r);
    /* integer division by zero */
    assert_status_msg(ct_div_scalar(a, ct_scalar_int(0), CT_ROUNDING_TRUNC, &r), CT_ERR_RUNTIME,
                      "ZeroDivisionError");
    assert_null(r);
    ct_tensor *z = mk(CT_INT32, SHAPE(4), VALS(1, 0, 1, 1));
    assert_status_msg(ct_div(a, z, CT_ROUNDING_FLOOR, &r), CT_ERR_RUNTIME, "ZeroDivisionError");
    ct_tensor *u = mk(CT_UINT8, SHAPE(2), VALS(7, 9)), *u0 = mk(CT_UINT8, SHAPE(2), VALS(0, 0));
    assert_status_msg(ct_div_(u, u0, CT_ROUNDING_TRUNC), CT_ERR_RUNTIME, "ZeroDivisionError");
    /* INT_MIN / -1 wraps to INT_MIN (PyTorch dies of SIGFPE) */
    ct_tensor *m32 = mk(CT_INT32, SHAPE(2), VALS(-2147483648.0, 6));
    ct_tensor *m1 = mk(CT_INT32, SHAPE(2), VALS(-1, -1));
    OK(ct_div(m32, m1, CT_ROUNDING_TRUNC, &r));
    EXPECT(r, CT_INT32, -2147483648.0, -6);
    ct_tensor_release(r);
    OK(ct_div(m32, m1, CT_ROUNDING_FLOOR, &r));
    EXPECT(r, CT_INT32, -2147483648.0, -6);
    ct_tensor_release(r);
    ct_tensor *m64 = mk_i64(SHAPE(2), (const int64_t[]){INT64_MIN, 9});
    OK(ct_div_scalar(m64, ct_scalar_int(-1), CT_ROUNDING_FLOOR, &r));
    assert_true(i64_at(r, 0) == INT64_MIN && i64_at(r, 1) == -9);
    ct_tensor_release(r);
    OK(ct_div_scalar(m64, ct_scalar_int(-1), CT_ROUNDING_TRUNC, &r));
    assert_true(i64_at(r, 0) == INT64_MIN && i64_at(r, 1) == -9);
    ct_tensor_release(r);
    /* float floor and trunc */
    ct_tensor *fa = mk(CT_FLOAT64, SHAPE(4), VALS(7, -7, -1, 5)),
              *fb = mk(CT_FLOAT64, SHAPE(4), VALS(2, 2, 2, 0));
    OK(ct_div(fa, fb, CT_ROUNDING_FLOOR, &r));
    EXPECT(r, CT_FLOAT64, 3, -4, -1, INFINITY);
    ct_tensor_release(r);
    OK(ct_div(fa, fb, CT_ROUNDING_TRUNC, &r));
    EXPECT(r, CT_FLOAT64, 3, -3, -0.0, INFINITY);
    ct_tensor_release(r);
    /* bool and complex have no rounding kernels; bool true division is a float op */
    ct_tensor *bt = mk(CT_BOOL, SHAPE(2), VALS(1, 1)), *c = mk(CT_COMPLEX64, SHAPE(1), VALS(1));
    assert_status_msg(ct_div(bt, bt, CT_ROUNDING_TRUNC, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"div_trunc_cpu\" not implemented for 'Bool'");
    assert_status_msg(ct_div(bt, bt, CT_ROUNDING_FLOOR, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"div_floor_cpu\" not implemented for 'Bool'");
    assert_status_msg(ct_div(c, c, CT_ROUNDING_FLOOR, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"div_floor_cpu\" not implemented for 'ComplexFloat'");
    OK(ct_div(bt, bt, CT_ROUNDING_NONE, &r));
    EXPECT(r, CT_FLOAT32, 1, 1);
    ct_tensor_release(r);
    assert_int_equal(ct_div(a, b, (ct_rounding_mode)7, &r), CT_ERR_MISUSE);
    assert_null(r);
    RELEASE(a, b, z, u, u0, m32, m1, m64, fa, fb, bt, c);
}

static void test_bool_and_dtype_errors(void **state) {
    (void)state;
    ct_tensor *b = mk(CT_BOOL, SHAPE(2), VALS(1, 0)), *i = mk(CT_INT32, SHAPE(3), VALS(1, 2, 3));
    ct_tensor *r = NULL;
    const char *two = "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                      "the `^` or `logical_xor()` operator instead.";
    const char *one = "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                      "are trying to invert a mask, use the `~` or `logical_not()` operator "
                      "instead.";
    assert_status_msg(ct_sub(b, b, ONE, &r), CT_ERR_RUNTIME, two);
    assert_status_msg(ct_sub_scalar(b, ct_scalar_int(1), ONE, &r), CT_ERR_RUNTIME, one);
    /* before the broadcast check, as in PyTorch */
    assert_status_msg(ct_sub(b, i, ONE, &r), CT_ERR_RUNTIME, one);
    assert_status_msg(ct_sub_(b, b, ONE), CT_ERR_RUNTIME, two);
    /* float8 has no arithmetic */
    ct_tensor *f8 = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_FLOAT8_E4M3FN, &CPU, CT_LAYOUT_STRIDED, &f8));
    assert_status_msg(ct_add(f8, f8, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"add_stub\" not implemented for 'Float8_e4m3fn'");
    /* output casts */
    ct_tensor *o = mk(CT_INT32, SHAPE(3), VALS(0, 0, 0));
    assert_status_msg(ct_div_(o, i, CT_ROUNDING_NONE), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Int");
    OK(ct_add_scalar(i, ct_scalar_float(1), ONE, &r));
    EXPECT(r, CT_FLOAT32, 2, 3, 4);
    ct_tensor_release(r);
    assert_status_msg(ct_add_(o, b, ONE), CT_ERR_RUNTIME,
                      "The size of tensor a (3) must match the size of tensor b (2) at "
                      "non-singleton dimension 0");
    assert_status_msg(ct_add(NULL, i, ONE, &r), CT_ERR_MISUSE, "ct_add: NULL argument");
    RELEASE(b, i, f8, o);
}

/* ---- out= and in-place ---- */

static void test_out_and_inplace(void **state) {
    (void)state;
    ct_set_warning_handler(on_warning, NULL);
    ct_tensor *a = mk(CT_INT64, SHAPE(3), VALS(1, 2, 3)), *o = mk(CT_FLOAT32, SHAPE(1), VALS(0));
    nwarnings = 0;
    OK(ct_add_out(a, a, ONE, o));
    assert_int_equal(nwarnings, 1);
    assert_string_equal(last_warning,
                        "An output with one or more elements was resized since it had shape [1], "
                        "which does not match the required output shape [3]. This behavior is "
                        "deprecated, and in a future PyTorch release outputs will not be resized "
                        "unless they have zero elements. You can explicitly reuse an out tensor t "
                        "by resizing it, inplace, to zero elements with t.resize_(0).");
    EXPECT(o, CT_FLOAT32, 2, 4, 6);
    /* the right shape: no warning, written in place */
    OK(ct_mul_out(a, a, o));
    assert_int_equal(nwarnings, 1);
    EXPECT(o, CT_FLOAT32, 1, 4, 9);
    /* out= errors leave the out tensor alone */
    ct_tensor *small = mk(CT_INT64, SHAPE(1), VALS(5)), *bo = mk(CT_BOOL, SHAPE(1), VALS(0));
    assert_status_msg(ct_add_out(a, a, ONE, bo), CT_ERR_RUNTIME,
                      "result type Long can't be cast to the desired output type Bool");
    assert_sizes(bo, 1);
    ct_tensor *f8 = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_FLOAT8_E5M2, &CPU, CT_LAYOUT_STRIDED, &f8));
    assert_status_msg(ct_add_out(f8, f8, ONE, o), CT_ERR_NOT_IMPLEMENTED,
                      "\"add_stub\" not implemented for 'Float8_e5m2'");
    assert_sizes(o, 3);
    ct_tensor *o1 = mk(CT_FLOAT32, SHAPE(1), VALS(0));
    assert_status_msg(ct_add_out(f8, f8, ONE, o1), CT_ERR_NOT_IMPLEMENTED,
                      "\"add_stub\" not implemented for 'Float8_e5m2'");
    assert_sizes(o1, 1);
    ct_tensor_release(o1);
    assert_status_msg(ct_add_out(a, a, ct_scalar_float(0.5), small), CT_ERR_RUNTIME,
                      "For integral input tensors, argument alpha must not be a floating point "
                      "number.");
    assert_sizes(small, 1);
    assert_int_equal(nwarnings, 1);
    /* in-place: self is computed in the common dtype, then cast */
    ct_tensor *i32 = mk(CT_INT32, SHAPE(3), VALS(1, 2, 3));
    ct_tensor *big = mk_i64(SHAPE(3), (const int64_t[]){(int64_t)1 << 32, 10, -4});
    OK(ct_add_(i32, big, ONE));
    EXPECT(i32, CT_INT32, 1, 12, -1);
    OK(ct_mul_(i32, small)); /* broadcast other */
    EXPECT(i32, CT_INT32, 5, 60, -5);
    OK(ct_div_(i32, small, CT_ROUNDING_FLOOR));
    EXPECT(i32, CT_INT32, 1, 12, -1);
    ct_tensor *h = mk(CT_FLOAT16, SHAPE(2), VALS(1, 2)), *d = mk(CT_FLOAT64, SHAPE(2), VALS(0.25, 1e10));
    OK(ct_add_(h, d, ONE));
    EXPECT(h, CT_FLOAT16, 1.25, INFINITY);
    OK(ct_sub_(i32, small, ct_scalar_int(-1)));
    EXPECT(i32, CT_INT32, 6, 17, 4);
    /* torch.add(x, 1, out=x) */
    OK(ct_add_out(i32, i32, ONE, i32));
    EXPECT(i32, CT_INT32, 12, 34, 8);
    /* a transposed out keeps its strides */
    ct_tensor *m = mk(CT_FLOAT32, SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)), *ot = NULL;
    ct_tensor *base = mk(CT_FLOAT32, SHAPE(3, 2), VALS(0, 0, 0, 0, 0, 0));
    OK(ct_tensor_t(base, &ot));
    OK(ct_add_out(m, m, ONE, ot));
    assert_strides(ot, 1, 2);
    EXPECT(ot, CT_FLOAT32, 2, 4, 6, 8, 10, 12);
    EXPECT(base, CT_FLOAT32, 2, 8, 4, 10, 6, 12);
    ct_set_warning_handler(NULL, NULL);
    RELEASE(a, o, small, bo, f8, i32, big, h, d, m, ot, base);
}

/* ---- layouts through the ops ---- */

static void test_layouts(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 3, 4, 5)), *cl = NULL, *r = NULL;
    OK(ct_tensor_contiguous(a, CT_MEMFMT_CHANNELS_LAST, &cl));
    OK(ct_add(cl, a, ONE, &r));
    assert_strides(r, 60, 1, 15, 3);
    for (int64_t i = 0; i < 120; i++)
        assert_true(at_f32(r, (int64_t[]){i / 60, i / 20 % 3, i / 5 % 4, i % 5}) == 2.0f * (float)i);
    ct_tensor_release(r);
    OK(ct_add(a, cl, ONE, &r));
    assert_strides(r, 60, 20, 5, 1);
    ct_tensor_release(r);
    OK(ct_add(cl, cl, ONE, &r));
    assert_strides(r, 60, 1, 15, 3);
    ct_tensor_release(r);
    /* the fast path: contiguous inputs whose size-1 dims have odd strides */
    ct_tensor *x = strided(CT_FLOAT32, SHAPE(1, 3), ARR(100, 1));
    float *px = ct_tensor_data_ptr(x);
    px[0] = 1, px[1] = 2, px[2] = 3;
    OK(ct_mul(x, x, &r));
    assert_strides(r, 3, 1);
    EXPECT(r, CT_FLOAT32, 1, 4, 9);
    ct_tensor_release(r);
    /* dense permuted inputs with equal strides keep them */
    ct_tensor *p = NULL;
    OK(ct_tensor_permute(a, SHAPE(0, 2, 3, 1), &p));
    OK(ct_sub(p, p, ONE, &r));
    assert_strides(r, 60, 5, 1, 20);
    ct_tensor_release(r);
    /* 0-dim with 0-dim, zero-size */
    ct_tensor *z = scalar_t(CT_FLOAT32, 2), *e = iota(SHAPE(0, 3));
    OK(ct_mul(z, z, &r));
    assert_int_equal(ct_tensor_dim(r), 0);
    EXPECT(r, CT_FLOAT32, 4);
    ct_tensor_release(r);
    OK(ct_add(e, z, ONE, &r));
    assert_sizes(r, 0, 3);
    ct_tensor_release(r);
    RELEASE(a, cl, x, p, z, e);
}

/* ---- devices ---- */

static void test_devices(void **state) {
    (void)state;
    ct_tensor *c = mk(CT_FLOAT32, SHAPE(3), VALS(1, 2, 3)), *g = NULL, *r = NULL;
    OK(ct_tensor_to_device(c, CUDA0, &g));
    ct_tensor *two = scalar_t(CT_FLOAT64, 2);
    OK(ct_mul(g, two, &r)); /* the cpu 0-dim operand is read from host memory */
    assert_true(ct_device_equal(ct_tensor_device(r), CUDA0));
    EXPECT(r, CT_FLOAT32, 2, 4, 6);
    ct_tensor_release(r);
    OK(ct_add_scalar(g, ct_scalar_int(1), ONE, &r));
    EXPECT(r, CT_FLOAT32, 2, 3, 4);
    ct_tensor_release(r);
    OK(ct_sub_(g, g, ONE));
    EXPECT(g, CT_FLOAT32, 0, 0, 0);
    assert_status_msg(ct_add(g, c, ONE, &r), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, cuda:0 and cpu!");
    /* meta: metadata only, no kernel */
    ct_tensor *m = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3), CT_INT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &m));
    OK(ct_div(m, two, CT_ROUNDING_NONE, &r));
    assert_true(ct_tensor_is_meta(r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT64); /* int32 + float64 0-dim */
    assert_sizes(r, 2, 3);
    ct_tensor_release(r);
    OK(ct_div_(m, m, CT_ROUNDING_FLOOR));
    RELEASE(c, g, two, m);
}

static void test_oneflow(void **state) {
    (void)state;
    ct_tensor *i = mk(CT_INT32, SHAPE(2), VALS(1, 2)), *z = scalar_t(CT_INT64, 3), *r = NULL;
    OK(ct_set_compat_mode(CT_COMPAT_ONEFLOW));
    OK(ct_add(i, z, ONE, &r));
    EXPECT(r, CT_INT64, 4, 5);
    ct_tensor_release(r);
    OK(ct_add_scalar(i, ct_scalar_int(5), ONE, &r));
    EXPECT(r, CT_INT32, 6, 7);
    ct_tensor_release(r);
    ct_tensor *f = mk(CT_FLOAT32, SHAPE(2), VALS(1, 2)), *d = mk(CT_FLOAT64, SHAPE(2), VALS(1, 2));
    assert_status_msg(ct_mul_(f, d), CT_ERR_RUNTIME,
                      "result type oneflow.float64 can't be cast to the desired output type "
                      "oneflow.float32");
    OK(ct_mul_(f, i));
    EXPECT(f, CT_FLOAT32, 1, 4);
    OK(ct_set_compat_mode(CT_COMPAT_PYTORCH));
    OK(ct_add(i, z, ONE, &r));
    EXPECT(r, CT_INT32, 4, 5);
    ct_tensor_release(r);
    OK(ct_mul_(f, d));
    RELEASE(i, z, f, d);
}

/* ---- the fast path computes what the iterator computes ---- */

static void test_fast_path_matches(void **state) {
    (void)state;
    static const ct_dtype dts[] = {CT_BOOL,    CT_UINT8,   CT_INT8,     CT_INT16,     CT_INT32,
                                   CT_INT64,   CT_FLOAT32, CT_FLOAT64,  CT_COMPLEX64, CT_COMPLEX128,
                                   CT_FLOAT16, CT_UINT16};
    const double av[] = {7, -7, 100, 3.5, -128, 0.25, 1e3, -0.0, 5};
    const double bv[] = {2, 3, -6, 1, -1, 4, 7, 2, -3};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        ct_dtype dt = dts[i];
        ct_tensor *a = mk(dt, SHAPE(9), av), *b = mk(dt, SHAPE(9), bv);
        for (int op = 0; op < 6; op++) {
            bool integral = ct_dtype_is_integral(dt, true);
            if (dt == CT_BOOL && op != 0 && op != 2)
                continue; /* sub and division of bool are errors */
            if (op == 3 && integral)
                continue; /* true division of integers is a float op: no fast path */
            if (op >= 4 && ct_dtype_is_complex(dt))
                continue;
            ct_tensor *fast = NULL, *slow = mk(dt, SHAPE(9), av);
            ct_rounding_mode mode = op == 4 ? CT_ROUNDING_TRUNC : CT_ROUNDING_FLOOR;
            switch (op) {
            case 0: OK(ct_add(a, b, ONE, &fast)); OK(ct_add_out(a, b, ONE, slow)); break;
            case 1: OK(ct_sub(a, b, ONE, &fast)); OK(ct_sub_out(a, b, ONE, slow)); break;
            case 2: OK(ct_mul(a, b, &fast)); OK(ct_mul_out(a, b, slow)); break;
            case 3:
                OK(ct_div(a, b, CT_ROUNDING_NONE, &fast));
                OK(ct_div_out(a, b, CT_ROUNDING_NONE, slow));
                break;
            default: OK(ct_div(a, b, mode, &fast)); OK(ct_div_out(a, b, mode, slow)); break;
            }
            if (memcmp(ct_tensor_data_ptr(fast), ct_tensor_data_ptr(slow),
                       (size_t)ct_tensor_nbytes(fast)) != 0)
                fail_msg("%s op %d: fast path and iterator differ", ct_dtype_name(dt), op);
            ct_tensor_release(fast);
            ct_tensor_release(slow);
        }
        RELEASE(a, b);
    }
}

/* ---- threads and sizes above the grain ---- */

static void test_large(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(8, 16, 40, 40)), *cl = NULL, *r = NULL;
    OK(ct_tensor_contiguous(a, CT_MEMFMT_CHANNELS_LAST, &cl));
    for (int threads = 1; threads <= 2; threads++) {
        OK(ct_set_num_threads(threads));
        OK(ct_add(a, cl, ct_scalar_int(2), &r));
        const float *pr = ct_tensor_data_ptr(r);
        for (int64_t i = 0; i < ct_tensor_numel(r); i += 97)
            assert_true(pr[i] == 3.0f * (float)i);
        ct_tensor_release(r);
    }
    OK(ct_set_num_threads(1));
    RELEASE(a, cl);
}

/* ---- allocation failures ---- */

static ct_tensor *fa, *fb;

static ct_status f_add(ct_tensor **out) { return ct_add(fa, fb, ct_scalar_int(2), out); }
static ct_status f_div(ct_tensor **out) { return ct_div(fa, fb, CT_ROUNDING_NONE, out); }
static ct_status f_scalar(ct_tensor **out) {
    return ct_sub_scalar(fa, ct_scalar_float(1.5), ONE, out);
}
static ct_status f_fast(ct_tensor **out) { return ct_mul(fa, fa, out); }
static ct_status f_add_out(ct_tensor **out) {
    ct_tensor *o = NULL;
    ct_status st = ct_tensor_empty(SHAPE(2), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED,
                                   CT_MEMFMT_CONTIGUOUS, &o);
    if (st != CT_OK)
        return st;
    st = ct_add_out(fa, fb, ONE, o);
    if (st != CT_OK) {
        assert_sizes(o, 2);
        ct_tensor_release(o);
        return st;
    }
    *out = o;
    return CT_OK;
}
static ct_status f_add_(ct_tensor **out) {
    ct_tensor *self = NULL;
    ct_status st = ct_tensor_zeros(SHAPE(4, 3, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &self);
    if (st != CT_OK)
        return st;
    st = ct_add_(self, fb, ONE);
    if (st != CT_OK) {
        ct_tensor_release(self);
        return st;
    }
    *out = self;
    return CT_OK;
}

static void test_fault_injection(void **state) {
    (void)state;
    fa = iota(SHAPE(3, 1));
    fb = iota(SHAPE(3, 5));
    ct_set_warning_handler(on_warning, NULL);
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("ct_add", f_add) > 0);
    assert_true(fault_loop("ct_div", f_div) > 0);
    assert_true(fault_loop("ct_sub_scalar", f_scalar) > 0);
    assert_true(fault_loop("ct_mul fast", f_fast) > 0);
    assert_true(fault_loop("ct_add_out", f_add_out) > 0);
    assert_true(fault_loop("ct_add_", f_add_) > 0);
    OK(ct_set_allocator(&prev));
    ct_set_warning_handler(NULL, NULL);
    RELEASE(fa, fb);
}

/* float16 / bfloat16 / complex32 computations (PyTorch's CPU TensorIterator): inputs of other
 * dtypes are rounded to the computation dtype first, results are rounded to it before an
 * out= cast; newest PyTorch's mul / div read a one-element second input in float32; float16
 * trunc / floor division with a tensor divisor rounds the quotient to float16. */
static void test_reduced_precision_rounding(void **state) {
    (void)state;
    const double inf = INFINITY;
    ct_tensor *r = NULL;
    /* the scalar 70000 is inf in float16 */
    ct_tensor *h = mk(CT_FLOAT16, SHAPE(1), VALS(-65504));
    OK(ct_add_scalar(h, ct_scalar_float(70000.0), ct_scalar_int(1), &r));
    EXPECT(r, CT_FLOAT16, inf);
    ct_tensor_release(r);
    /* in place: -inf + round(1e10) = -inf + inf */
    ct_tensor *hi = mk(CT_FLOAT16, SHAPE(1), VALS(-inf));
    ct_tensor *w = scalar_t(CT_FLOAT64, 1e10);
    OK(ct_add_(hi, w, ct_scalar_int(1)));
    EXPECT(hi, CT_FLOAT16, NAN);
    /* a tensor of another dtype: int32 70000 -> inf, 2049 -> 2048 in float16 */
    ct_tensor *i = mk(CT_INT32, SHAPE(2), VALS(70000, 2049));
    ct_tensor *h2 = mk(CT_FLOAT16, SHAPE(2), VALS(-65504, 0.5));
    OK(ct_add(i, h2, ct_scalar_int(1), &r));
    EXPECT(r, CT_FLOAT16, inf, 2048);
    ct_tensor_release(r);
    /* bfloat16 + 0.1: 0.1 is 0.10009765625 first */
    ct_tensor *bf = mk(CT_BFLOAT16, SHAPE(1), VALS(-0.115234375));
    OK(ct_add_scalar(bf, ct_scalar_float(0.1), ct_scalar_int(1), &r));
    EXPECT(r, CT_BFLOAT16, -0.01513671875);
    ct_tensor_release(r);
    /* mul: the scalar FIRST is rounded to bfloat16; SECOND (is_scalar(2)) read in float32 */
    ct_tensor *bm = mk(CT_BFLOAT16, SHAPE(1), VALS(0.87109375));
    ct_tensor *p1 = scalar_t(CT_FLOAT64, 0.1);
    OK(ct_mul(p1, bm, &r));
    EXPECT(r, CT_BFLOAT16, 0.08740234375);
    ct_tensor_release(r);
    OK(ct_mul(bm, p1, &r));
    EXPECT(r, CT_BFLOAT16, 0.0869140625);
    ct_tensor_release(r);
    OK(ct_mul_scalar(bm, ct_scalar_float(0.1), &r));
    EXPECT(r, CT_BFLOAT16, 0.0869140625);
    ct_tensor_release(r);
    /* one element expanded is still is_scalar(2): 0.87109375 * 257 in float32 is 223.87,
     * 224 in bfloat16; with 257 rounded to 256 first it would be 223 */
    ct_tensor *bm2 = mk(CT_BFLOAT16, SHAPE(2), VALS(0.87109375, 0.87109375));
    ct_tensor *f1 = mk(CT_INT64, SHAPE(1), VALS(257)), *fx = NULL;
    OK(ct_tensor_expand(f1, SHAPE(2), &fx));
    OK(ct_mul(bm2, fx, &r));
    EXPECT(r, CT_BFLOAT16, 224, 224);
    ct_tensor_release(r);
    /* two distinct elements: each rounded to bfloat16 first */
    ct_tensor *f2 = mk(CT_INT64, SHAPE(2), VALS(257, 257));
    OK(ct_mul(bm2, f2, &r));
    EXPECT(r, CT_BFLOAT16, 223, 223);
    ct_tensor_release(r);
    ct_tensor_release(f2);
    /* add has no such path (ufunc add converts every input) */
    OK(ct_add(bm, p1, ct_scalar_int(1), &r));
    EXPECT(r, CT_BFLOAT16, 0.97265625);
    ct_tensor_release(r);
    /* complex32: -2**31 is -inf+0j first, times alpha 1+0j gives a NaN imaginary part */
    ct_tensor *c = NULL, *c16 = mk(CT_FLOAT16, SHAPE(1), VALS(-19));
    OK(ct_tensor_to(c16, CT_COMPLEX32, NULL, true, CT_MEMFMT_CONTIGUOUS, &c));
    ct_tensor_release(c16);
    ct_tensor *cr = NULL;
    OK(ct_add_scalar(c, ct_scalar_int(-2147483648LL), ct_scalar_int(1), &cr));
    ct_tensor *re = NULL;
    OK(ct_tensor_to(cr, CT_COMPLEX64, NULL, false, CT_MEMFMT_CONTIGUOUS, &re));
    const float *cv = ct_tensor_data_ptr(re);
    assert_true(isinf(cv[0]) && cv[0] < 0 && isnan(cv[1]));
    ct_tensor_release(re);
    ct_tensor_release(cr);
    /* results round to the computation dtype before the out= cast */
    ct_tensor *h300 = mk(CT_FLOAT16, SHAPE(1), VALS(300)), *o32 = NULL, *obf = NULL;
    ct_tensor *h6 = mk(CT_FLOAT16, SHAPE(1), VALS(60000)), *h15 = mk(CT_FLOAT16, SHAPE(1), VALS(1.5));
    OK(ct_tensor_empty(SHAPE(1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o32));
    OK(ct_tensor_empty(SHAPE(1), CT_BFLOAT16, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &obf));
    OK(ct_mul_out(h300, h300, o32));
    EXPECT(o32, CT_FLOAT32, inf);
    OK(ct_add_out(h6, h15, ct_scalar_int(1), o32));
    EXPECT(o32, CT_FLOAT32, 60000);
    OK(ct_mul_out(h300, h300, obf));
    EXPECT(obf, CT_BFLOAT16, inf);
    /* trunc / floor with a tensor divisor: 843 / 0.9990234375 = 843.82 is 844 in float16 */
    ct_tensor *num = mk(CT_FLOAT16, SHAPE(2), VALS(843, -843));
    ct_tensor *den = mk(CT_FLOAT16, SHAPE(2), VALS(0.9990234375, 0.9990234375));
    OK(ct_div(num, den, CT_ROUNDING_TRUNC, &r));
    EXPECT(r, CT_FLOAT16, 844, -844);
    ct_tensor_release(r);
    OK(ct_div(num, den, CT_ROUNDING_FLOOR, &r));
    EXPECT(r, CT_FLOAT16, 843, -844);
    ct_tensor_release(r);
    /* a one-element divisor: newest PyTorch's float32 path, 843.82 -> 843 */
    ct_tensor *den1 = mk(CT_FLOAT16, SHAPE(1), VALS(0.9990234375));
    OK(ct_div(num, den1, CT_ROUNDING_TRUNC, &r));
    EXPECT(r, CT_FLOAT16, 843, -843);
    ct_tensor_release(r);
    /* complex32 true division is not implemented, under div_true_kernel's dispatch name */
    assert_status_msg(ct_div(c, c, CT_ROUNDING_NONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"div_cpu\" not implemented for 'ComplexHalf'");
    ct_tensor *all[] = {h, hi, w, i, h2, bf, bm, p1, bm2, f1, fx, c, h300, o32, obf, h6, h15,
                        num, den, den1};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        ct_tensor_release(all[k]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_sub_mul),
        cmocka_unit_test(test_alpha),
        cmocka_unit_test(test_div),
        cmocka_unit_test(test_bool_and_dtype_errors),
        cmocka_unit_test(test_out_and_inplace),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_oneflow),
        cmocka_unit_test(test_fast_path_matches),
        cmocka_unit_test(test_reduced_precision_rounding),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_fault_injection),
    };
    return cmocka_run_group_tests(tests, emulated_cuda_setup, emulated_cuda_teardown);
}
