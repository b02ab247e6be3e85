/* The reflected operators of a Python number and a tensor (ops.h: ct_rdiv, ct_rdiv_scalar,
 * ct_rsub_scalar) and the dtype torch.full infers (tensor.h: ct_full_dtype). Expected values
 * are torch 1.13's. */
#include <string.h>

#include "cmocka_all.h"
#include "tensor_test_util.h"

static ct_tensor *from_f32(const float *v, int64_t n) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(SHAPE(n), CT_FLOAT32, v, &CPU, &t));
    return t;
}

/* Element i of a 1-d tensor, read as a double through item(). */
static double elem(const ct_tensor *t, int64_t i) {
    ct_tensor *e = NULL;
    OK(ct_tensor_select(t, 0, i, &e));
    double v = item_f64(e);
    ct_tensor_release(e);
    return v;
}

/* 2 / int tensor: true division into the default dtype. */
static void test_rdiv_int(void **state) {
    (void)state;
    const int64_t v[] = {1, 2, 4};
    ct_tensor *t = NULL, *r = NULL;
    OK(ct_tensor_from_data(SHAPE(3), CT_INT64, v, &CPU, &t));
    OK(ct_rdiv_scalar(t, ct_scalar_int(2), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_true(elem(r, 0) == 2.0 && elem(r, 1) == 1.0 && elem(r, 2) == 0.5);
    ct_tensor_release(r);
    ct_tensor_release(t);
}

/* The reciprocal rounds to float16 before the product: 3 / float16(5) is 0.599609375
 * (3 * half(1/5)), where a direct division gives 0.60009765625. */
static void test_rdiv_rounds_reciprocal(void **state) {
    (void)state;
    const float v[] = {5.0f, 3.0f};
    ct_tensor *f = from_f32(v, 2), *t = NULL, *r = NULL;
    OK(ct_tensor_to_dtype(f, CT_FLOAT16, &t));
    OK(ct_rdiv_scalar(t, ct_scalar_int(3), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT16);
    assert_true(elem(r, 0) == 0.599609375);
    assert_true(elem(r, 1) == 1.0);
    ct_tensor_release(r);
    ct_tensor_release(t);
    ct_tensor_release(f);
}

/* The result is laid out as reciprocal(t): (1,3,1) with strides (9,1,15) gives (3,1,1), and
 * a transposed (3,2) int64 tensor stays transposed. */
static void test_rdiv_layout(void **state) {
    (void)state;
    ct_tensor *t = strided(CT_INT32, SHAPE(1, 3, 1), ARR(9, 1, 15)), *r = NULL;
    OK(ct_rdiv_scalar(t, ct_scalar_int(2), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_strides(r, 3, 1, 1);
    ct_tensor_release(r);
    ct_tensor_release(t);
    t = strided(CT_INT64, SHAPE(3, 2), ARR(1, 3));
    OK(ct_rdiv_scalar(t, ct_scalar_int(2), &r));
    assert_strides(r, 1, 3);
    ct_tensor_release(r);
    ct_tensor_release(t);
}

/* A tensor numerator (a 0-dim one, as a NumPy 0-dim array is) and the errors. */
static void test_rdiv_tensor_and_errors(void **state) {
    (void)state;
    const float v[] = {2.0f, 4.0f};
    ct_tensor *t = from_f32(v, 2), *num = NULL, *r = NULL;
    OK(ct_tensor_full(NULL, 0, ct_scalar_float(8.0), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &num));
    OK(ct_rdiv(t, num, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32); /* a 0-dim float64 does not promote */
    assert_true(elem(r, 0) == 4.0 && elem(r, 1) == 2.0);
    ct_tensor_release(r);
    r = (ct_tensor *)1;
    assert_int_equal(ct_rdiv(t, NULL, &r), CT_ERR_MISUSE);
    assert_null(r);
    assert_int_equal(ct_rdiv_scalar(NULL, ct_scalar_int(1), &r), CT_ERR_MISUSE);
    ct_tensor *c = NULL;
    OK(ct_tensor_ones(SHAPE(2), CT_COMPLEX32, &CPU, CT_LAYOUT_STRIDED, &c));
    assert_int_equal(ct_rdiv_scalar(c, ct_scalar_int(2), &r), CT_ERR_NOT_IMPLEMENTED);
    assert_string_equal(ct_last_error(), "\"reciprocal_cpu\" not implemented for 'ComplexHalf'");
    assert_null(r);
    ct_tensor_release(c);
    ct_tensor_release(num);
    ct_tensor_release(t);
}

/* torch.rsub(t, 5, alpha=2) is [3., 1.]; 2 - int64 [1, 2] is [1, 0]; bool is refused. */
static void test_rsub_scalar(void **state) {
    (void)state;
    const float v[] = {1.0f, 2.0f};
    ct_tensor *t = from_f32(v, 2), *r = NULL;
    OK(ct_rsub_scalar(t, ct_scalar_int(5), ct_scalar_int(2), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_true(elem(r, 0) == 3.0 && elem(r, 1) == 1.0);
    ct_tensor_release(r);
    ct_tensor_release(t);
    const int64_t w[] = {1, 2};
    OK(ct_tensor_from_data(SHAPE(2), CT_INT64, w, &CPU, &t));
    OK(ct_rsub_scalar(t, ct_scalar_int(2), ct_scalar_int(1), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_INT64);
    assert_true(elem(r, 0) == 1.0 && elem(r, 1) == 0.0);
    ct_tensor_release(r);
    ct_tensor_release(t);
    OK(ct_tensor_ones(SHAPE(2), CT_BOOL, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_rsub_scalar(t, ct_scalar_bool(true), ct_scalar_int(1), &r),
                     CT_ERR_RUNTIME);
    assert_null(r);
    ct_tensor_release(t);
}

static void test_full_dtype(void **state) {
    (void)state;
    ct_dtype d = CT_DTYPE_UNDEFINED;
    OK(ct_full_dtype(ct_scalar_bool(true), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, CT_BOOL);
    OK(ct_full_dtype(ct_scalar_int(3), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, CT_INT64);
    OK(ct_full_dtype(ct_scalar_uint(UINT64_MAX), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, CT_INT64);
    OK(ct_full_dtype(ct_scalar_float(1.5), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, ct_get_default_dtype());
    OK(ct_full_dtype(ct_scalar_complex(1, 2), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, CT_COMPLEX64);
    OK(ct_set_default_dtype(CT_FLOAT64));
    OK(ct_full_dtype(ct_scalar_complex(1, 2), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, CT_COMPLEX128);
    OK(ct_full_dtype(ct_scalar_float(1.5), CT_DTYPE_UNDEFINED, &d));
    assert_int_equal(d, CT_FLOAT64);
    OK(ct_set_default_dtype(CT_FLOAT32));
    OK(ct_full_dtype(ct_scalar_float(1.5), CT_INT8, &d)); /* a requested dtype wins */
    assert_int_equal(d, CT_INT8);
    assert_int_equal(ct_full_dtype(ct_scalar_int(1), CT_DTYPE_UNDEFINED, NULL), CT_ERR_MISUSE);
    /* ct_tensor_full infers the same */
    ct_tensor *t = NULL;
    OK(ct_tensor_full(SHAPE(1), ct_scalar_int(7), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED,
                      &t));
    assert_int_equal(ct_tensor_dtype(t), CT_INT64);
    ct_tensor_release(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rdiv_int),
        cmocka_unit_test(test_rdiv_rounds_reciprocal),
        cmocka_unit_test(test_rdiv_layout),
        cmocka_unit_test(test_rdiv_tensor_and_errors),
        cmocka_unit_test(test_rsub_scalar),
        cmocka_unit_test(test_full_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
