/* The op table's entry points route by layout (ops.h): ct_add and ct_binary on sparse COO
 * operands reach the sparse layer, giving what the Python operators and functions give
 * (tests/python/test_sparse_module.py's expectations, PyTorch 1.13's values); forms and ops
 * the sparse layer does not implement (out=, other ops) are refused, and ct_binary_supports
 * says so, which is how the binding answers NotImplemented for `s % t`. */
#include <math.h>

#include "sparse_test_util.h"

static ct_tensor *tens(ct_dtype dt, const int64_t *sizes, int64_t ndim, const void *data) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, ndim, dt, data, NULL, &t));
    return t;
}

/* A = sparse([[0, 1]], [1, 2], (3,)), B = sparse([[2, 1, 2]], [10, 20, 30], (3,)) */
static ct_tensor *sparse_a(void) {
    return coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
               tens(CT_INT64, SHAPE(2), (int64_t[]){1, 2}), SHAPE(3));
}
static ct_tensor *sparse_b(void) {
    return coo(tens(CT_INT64, SHAPE(1, 3), (int64_t[]){2, 1, 2}),
               tens(CT_INT64, SHAPE(3), (int64_t[]){10, 20, 30}), SHAPE(3));
}

static void expect_dense_i64(const ct_tensor *t, const int64_t *want, int64_t n) {
    ct_tensor *d = NULL;
    OK(ct_sparse_to_dense(t, &d));
    assert_int_equal(ct_tensor_dtype(d), CT_INT64);
    assert_int_equal(ct_tensor_numel(d), n);
    assert_memory_equal(ct_tensor_data_ptr(d), want, (size_t)n * sizeof(int64_t));
    ct_tensor_release(d);
}

static void test_add_routes_sparse(void **state) {
    (void)state;
    ct_tensor *a = sparse_a(), *b = sparse_b(), *r = NULL, *z = NULL;
    /* A + B and A.add(B, alpha=2): sparse results, as ct_sparse_add */
    OK(ct_add(a, b, ct_scalar_int(1), &r));
    assert_int_equal(ct_tensor_layout(r), CT_LAYOUT_SPARSE_COO);
    expect_dense_i64(r, (int64_t[]){1, 22, 40}, 3);
    ct_tensor_release(r);
    OK(ct_binary(CT_OP_ADD, a, b, ct_scalar_int(2), &r));
    expect_dense_i64(r, (int64_t[]){1, 42, 80}, 3);
    ct_tensor_release(r);
    /* zeros(3, long) + A: a strided result */
    OK(ct_tensor_zeros(SHAPE(3), CT_INT64, NULL, CT_LAYOUT_STRIDED, &z));
    OK(ct_add(z, a, ct_scalar_int(1), &r));
    assert_int_equal(ct_tensor_layout(r), CT_LAYOUT_STRIDED);
    assert_memory_equal(ct_tensor_data_ptr(r), ((int64_t[]){1, 2, 0}), 3 * sizeof(int64_t));
    ct_tensor_release(r);
    /* A + zeros and A + 1 are refused, as PyTorch */
    EXPECT_ERR(ct_add(a, z, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
    assert_null(r);
    EXPECT_ERR(ct_add_scalar(a, ct_scalar_int(1), ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
    assert_null(r);
    ct_tensor_release(z);
    ct_tensor_release(a);
    ct_tensor_release(b);
}

static void test_unsupported_sparse_forms(void **state) {
    (void)state;
    ct_tensor *a = sparse_a(), *b = sparse_b(), *r = NULL;
    /* what the sparse layer registered: add, sub, mul and the divisions, new results and in
     * place; pow in every form (its in-place slot raises PyTorch's refusal); no other out= */
    const ct_op reg[] = {CT_OP_ADD, CT_OP_SUB,       CT_OP_MUL,      CT_OP_DIV,
                         CT_OP_POW, CT_OP_DIV_TRUNC, CT_OP_DIV_FLOOR};
    for (int op = 0; op < CT_NUM_OPS; op++) {
        bool want = false;
        for (size_t k = 0; k < sizeof reg / sizeof reg[0]; k++)
            want = want || reg[k] == (ct_op)op;
        assert_int_equal(ct_binary_supports((ct_op)op, CT_OP_FORM_NEW, a, b), want);
        assert_int_equal(ct_binary_supports((ct_op)op, CT_OP_FORM_INPLACE, a, b), want);
        assert_int_equal(ct_binary_supports((ct_op)op, CT_OP_FORM_OUT, a, b), op == CT_OP_POW);
    }
    /* A - B is A + (-1) B; A * B the shared columns; A / B refused with PyTorch's message */
    OK(ct_sub(a, b, ct_scalar_int(1), &r));
    expect_dense_i64(r, (int64_t[]){1, -18, -40}, 3);
    ct_tensor_release(r);
    OK(ct_mul(a, b, &r));
    expect_dense_i64(r, (int64_t[]){0, 40, 0}, 3);
    ct_tensor_release(r);
    EXPECT_ERR(ct_div(a, b, CT_ROUNDING_FLOOR, &r), CT_ERR_RUNTIME,
               "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
               "[3] for divisor)");
    assert_null(r);
    EXPECT_ERR(ct_add_out(a, b, ct_scalar_int(1), a), CT_ERR_NOT_IMPLEMENTED,
               "add(): sparse COO operands are not supported with out=");
    expect_dense_i64(a, (int64_t[]){1, 2, 0}, 3); /* untouched */
    /* in place, a sparse self takes the result */
    OK(ct_add_(a, b, ct_scalar_int(1)));
    expect_dense_i64(a, (int64_t[]){1, 22, 40}, 3);
    ct_tensor_release(a);
    ct_tensor_release(b);
}

static void test_table(void **state) {
    (void)state;
    ct_op op = CT_OP_ADD;
    assert_string_equal(ct_op_name(CT_OP_SUB), "sub");
    assert_string_equal(ct_op_name(CT_OP_DIV_FLOOR), "div");
    assert_null(ct_op_name(CT_NUM_OPS));
    assert_true(ct_op_has_alpha(CT_OP_ADD));
    assert_false(ct_op_has_alpha(CT_OP_MUL));
    OK(ct_op_div(CT_ROUNDING_TRUNC, &op));
    assert_int_equal(op, CT_OP_DIV_TRUNC);
    assert_int_equal(ct_op_rounding(CT_OP_DIV_FLOOR), CT_ROUNDING_FLOOR);
    EXPECT_ERR(ct_op_div((ct_rounding_mode)7, &op), CT_ERR_MISUSE,
               "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
               "rounding mode value 7");
    /* the generic entry points are the named ones */
    ct_tensor *x = tens(CT_INT32, SHAPE(2), (int32_t[]){7, -7}), *y = NULL, *r = NULL;
    y = tens(CT_INT32, SHAPE(2), (int32_t[]){2, 2});
    OK(ct_binary(CT_OP_DIV_FLOOR, x, y, ct_scalar_int(1), &r));
    assert_memory_equal(ct_tensor_data_ptr(r), ((int32_t[]){3, -4}), 2 * sizeof(int32_t));
    OK(ct_binary_(CT_OP_SUB, r, y, ct_scalar_int(2)));
    assert_memory_equal(ct_tensor_data_ptr(r), ((int32_t[]){-1, -8}), 2 * sizeof(int32_t));
    OK(ct_binary_out(CT_OP_MUL, x, y, ct_scalar_int(1), r));
    assert_memory_equal(ct_tensor_data_ptr(r), ((int32_t[]){14, -14}), 2 * sizeof(int32_t));
    ct_tensor_release(r);
    assert_int_equal(ct_binary(CT_NUM_OPS, x, y, ct_scalar_int(1), &r), CT_ERR_MISUSE);
    assert_null(r);
    ct_tensor_release(x);
    ct_tensor_release(y);
}

/* torch.rsub(input, other, alpha) = other - alpha * input, a table row */
static void test_rsub(void **state) {
    (void)state;
    ct_tensor *x = tens(CT_INT64, SHAPE(2), (int64_t[]){1, 2}), *r = NULL;
    ct_tensor *y = tens(CT_INT64, SHAPE(2), (int64_t[]){10, 20});
    ct_tensor *t = tens(CT_BOOL, SHAPE(1), (bool[]){true});
    OK(ct_binary(CT_OP_RSUB, x, y, ct_scalar_int(2), &r));
    assert_memory_equal(ct_tensor_data_ptr(r), ((int64_t[]){8, 16}), 2 * sizeof(int64_t));
    OK(ct_binary_out(CT_OP_RSUB, x, y, ct_scalar_int(1), r));
    assert_memory_equal(ct_tensor_data_ptr(r), ((int64_t[]){9, 18}), 2 * sizeof(int64_t));
    ct_tensor_release(r);
    EXPECT_ERR(ct_binary(CT_OP_RSUB, x, y, ct_scalar_float(1.5), &r), CT_ERR_RUNTIME,
               "For integral input tensors, argument alpha must not be a floating point number.");
    EXPECT_ERR(ct_binary(CT_OP_RSUB, t, t, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
               "`^` or `logical_xor()` operator instead.");
    /* PyTorch has no rsub_ */
    assert_false(ct_binary_supports(CT_OP_RSUB, CT_OP_FORM_INPLACE, x, y));
    ct_tensor_release(t);
    ct_tensor_release(x);
    ct_tensor_release(y);
}

/* ---- comparisons (ops.def rows of kind COMPARE) ---- */

static void expect_bools(const ct_tensor *t, const bool *want, int64_t n) {
    assert_int_equal(ct_tensor_dtype(t), CT_BOOL);
    assert_int_equal(ct_tensor_numel(t), n);
    assert_memory_equal(ct_tensor_data_ptr(t), want, (size_t)n);
}

/* int32 [1, 2, 3] against float32 2.5 and a Python-number 2.5 (promoted to float: 2 < 2.5) */
static void test_compare_values(void **state) {
    (void)state;
    ct_tensor *x = tens(CT_INT32, SHAPE(3), (int32_t[]){1, 2, 3});
    ct_tensor *y = tens(CT_FLOAT32, SHAPE(3), (float[]){1.0f, 2.5f, 2.5f}), *r = NULL;
    OK(ct_eq(x, y, &r));
    expect_bools(r, (bool[]){true, false, false}, 3);
    ct_tensor_release(r);
    OK(ct_binary(CT_OP_NE, x, y, ct_scalar_int(1), &r));
    expect_bools(r, (bool[]){false, true, true}, 3);
    ct_tensor_release(r);
    OK(ct_lt(x, y, &r));
    expect_bools(r, (bool[]){false, true, false}, 3);
    ct_tensor_release(r);
    OK(ct_le_scalar(x, ct_scalar_float(2.5), &r));
    expect_bools(r, (bool[]){true, true, false}, 3);
    ct_tensor_release(r);
    OK(ct_gt_scalar(x, ct_scalar_int(1), &r));
    expect_bools(r, (bool[]){false, true, true}, 3);
    ct_tensor_release(r);
    OK(ct_ge(y, x, &r));
    expect_bools(r, (bool[]){true, true, false}, 3);
    /* out= of another dtype gets the values cast; in-place keeps self's dtype */
    ct_tensor *o = tens(CT_FLOAT64, SHAPE(3), (double[]){7, 7, 7});
    OK(ct_lt_out(x, y, o));
    assert_memory_equal(ct_tensor_data_ptr(o), ((double[]){0, 1, 0}), 3 * sizeof(double));
    OK(ct_ge_(x, y));
    assert_int_equal(ct_tensor_dtype(x), CT_INT32);
    assert_memory_equal(ct_tensor_data_ptr(x), ((int32_t[]){1, 0, 1}), 3 * sizeof(int32_t));
    OK(ct_eq_out(x, y, r));
    expect_bools(r, (bool[]){true, false, false}, 3);
    /* NaN: only ne holds */
    ct_tensor *n = tens(CT_FLOAT64, SHAPE(1), (double[]){NAN}), *q = NULL;
    OK(ct_ne(n, n, &q));
    expect_bools(q, (bool[]){true}, 1);
    ct_tensor_release(q);
    OK(ct_eq_scalar(n, ct_scalar_float(NAN), &q));
    expect_bools(q, (bool[]){false}, 1);
    ct_tensor_release(q);
    ct_tensor_release(n);
    ct_tensor_release(o);
    ct_tensor_release(r);
    ct_tensor_release(x);
    ct_tensor_release(y);
}

static void test_compare_errors(void **state) {
    (void)state;
    ct_tensor *c = tens(CT_COMPLEX64, SHAPE(1), (float[]){1, 2}), *r = NULL;
    ct_tensor *x = tens(CT_FLOAT32, SHAPE(2), (float[]){1, 2});
    ct_tensor *y = tens(CT_FLOAT32, SHAPE(3), (float[]){1, 2, 3});
    EXPECT_ERR(ct_lt(c, c, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"lt_cpu\" not implemented for 'ComplexFloat'");
    assert_null(r);
    EXPECT_ERR(ct_ge_scalar(c, ct_scalar_int(0), &r), CT_ERR_NOT_IMPLEMENTED,
               "\"ge_cpu\" not implemented for 'ComplexFloat'");
    OK(ct_eq(c, c, &r));
    expect_bools(r, (bool[]){true}, 1);
    ct_tensor_release(r);
    EXPECT_ERR(ct_eq(x, y, &r), CT_ERR_RUNTIME,
               "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
               "dimension 0");
    assert_int_equal(ct_eq(NULL, y, &r), CT_ERR_MISUSE);
    assert_false(ct_op_has_alpha(CT_OP_EQ));
    assert_string_equal(ct_op_name(CT_OP_GE), "ge");
    ct_tensor_release(c);
    ct_tensor_release(x);
    ct_tensor_release(y);
}

/* classification, maximum / minimum / fmax / fmin, isclose / allclose / equal */
static void test_compare_family(void **state) {
    (void)state;
    ct_tensor *x = tens(CT_FLOAT32, SHAPE(4), (float[]){1.0f, NAN, INFINITY, -INFINITY});
    ct_tensor *i = tens(CT_INT32, SHAPE(4), (int32_t[]){1, 5, -2, 0}), *r = NULL;
    OK(ct_isnan(x, &r));
    expect_bools(r, (bool[]){false, true, false, false}, 4);
    ct_tensor_release(r);
    OK(ct_isinf(x, &r));
    expect_bools(r, (bool[]){false, false, true, true}, 4);
    ct_tensor_release(r);
    OK(ct_isfinite(i, &r));
    expect_bools(r, (bool[]){true, true, true, true}, 4);
    OK(ct_isposinf_out(x, r));
    expect_bools(r, (bool[]){false, false, true, false}, 4);
    ct_tensor_release(r);
    OK(ct_isneginf(x, &r));
    expect_bools(r, (bool[]){false, false, false, true}, 4);
    ct_tensor_release(r);
    OK(ct_isreal(x, &r));
    expect_bools(r, (bool[]){true, true, true, true}, 4);
    EXPECT_ERR(ct_isposinf_out(x, i), CT_ERR_RUNTIME,
               "isposinf does not support non-boolean outputs.");
    ct_tensor_release(r);
    /* maximum propagates NaN, fmax ignores it; int32 with float32 is float32 */
    OK(ct_maximum(i, x, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    const float *f = ct_tensor_data_ptr(r);
    assert_true(f[0] == 1.0f && isnan(f[1]) && f[2] == INFINITY && f[3] == 0.0f);
    ct_tensor_release(r);
    OK(ct_fmin(i, x, &r));
    f = ct_tensor_data_ptr(r);
    assert_true(f[0] == 1.0f && f[1] == 5.0f && f[2] == -2.0f && f[3] == -INFINITY);
    ct_tensor_release(r);
    ct_tensor *c = tens(CT_COMPLEX64, SHAPE(1), (float[]){1, 2});
    EXPECT_ERR(ct_minimum(c, c, &r), CT_ERR_RUNTIME,
               "minimum not implemented for complex tensors.");
    EXPECT_ERR(ct_fmax_out(x, x, i), CT_ERR_RUNTIME,
               "result type Float can't be cast to the desired output type Int");
    /* isclose, allclose, equal */
    ct_tensor *y = tens(CT_FLOAT32, SHAPE(4), (float[]){1.000001f, NAN, INFINITY, -1.0f});
    OK(ct_isclose(x, y, 1e-5, 1e-8, true, &r));
    expect_bools(r, (bool[]){true, true, true, false}, 4);
    ct_tensor_release(r);
    bool b = true;
    OK(ct_allclose(x, y, 1e-5, 1e-8, false, &b));
    assert_false(b);
    OK(ct_allclose(x, x, 0, 0, true, &b));
    assert_true(b);
    EXPECT_ERR(ct_isclose(x, i, 1e-5, 1e-8, false, &r), CT_ERR_RUNTIME, "Float did not match Int");
    EXPECT_ERR(ct_isclose(x, x, -1, 1e-8, false, &r), CT_ERR_RUNTIME,
               "rtol must be greater than or equal to zero, but got -1");
    OK(ct_equal(i, i, &b));
    assert_true(b);
    OK(ct_equal(x, x, &b)); /* NaN != NaN */
    assert_false(b);
    ct_tensor *j = tens(CT_FLOAT64, SHAPE(4), (double[]){1, 5, -2, 0});
    OK(ct_equal(i, j, &b));
    assert_true(b);
    OK(ct_equal(i, c, &b)); /* sizes differ */
    assert_false(b);
    ct_tensor_release(j);
    ct_tensor_release(y);
    ct_tensor_release(c);
    ct_tensor_release(x);
    ct_tensor_release(i);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_routes_sparse),
        cmocka_unit_test(test_unsupported_sparse_forms),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_rsub),
        cmocka_unit_test(test_compare_values),
        cmocka_unit_test(test_compare_errors),
        cmocka_unit_test(test_compare_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
