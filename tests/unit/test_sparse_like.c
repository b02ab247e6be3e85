/* Sparse COO factories from a tensor (ct_sparse_like, ct_sparse_new), ct_sparse_zero_, the
 * classifications and pow with a number exponent through their ops.h entry points, and a
 * failing-allocator loop over them. Expected values, flags and messages are PyTorch 1.13's
 * (computed with torch and written in). The file runs under a counting allocator, so any
 * leak fails the group teardown. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "sparse_test_util.h"

#include "base/error_impl.h"

#include "fault_loop.h"

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    return ct_set_allocator(&a) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    bool clean = live_allocs == 0;
    if (!clean)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    ct_set_allocator(NULL);
    return clean ? 0 : -1;
}

static ct_tensor *tens(ct_dtype dt, const int64_t *sizes, int64_t ndim, const void *data) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, ndim, dt, data, &CPU, &t));
    return t;
}

/* U = sparse([[1, 0, 1], [2, 2, 2]], [1, -inf, 3], (2, 3)): (1, 2) twice, uncoalesced */
static ct_tensor *sparse_u(void) {
    return coo(tens(CT_INT64, SHAPE(2, 3), (int64_t[]){1, 0, 1, 2, 2, 2}),
               tens(CT_FLOAT32, SHAPE(3), (float[]){1, -INFINITY, 3}), SHAPE(2, 3));
}

/* H = sparse([[1, 0]], [[1, 2], [3, 4]], (3, 2)): hybrid, 1 sparse and 1 dense dim */
static ct_tensor *sparse_h(void) {
    return coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}),
               tens(CT_FLOAT32, SHAPE(2, 2), (float[]){1, 2, 3, 4}), SHAPE(3, 2));
}

static void expect_dims(const ct_tensor *s, int64_t sd, int64_t dd, int64_t nnz, bool coalesced) {
    int64_t a = -1, b = -1, n = -1;
    bool c = !coalesced;
    assert_int_equal(ct_tensor_layout(s), CT_LAYOUT_SPARSE_COO);
    OK(ct_sparse_dim(s, &a));
    OK(ct_sparse_dense_dim(s, &b));
    OK(ct_sparse_nnz(s, &n));
    OK(ct_sparse_is_coalesced(s, &c));
    assert_int_equal(a, sd);
    assert_int_equal(b, dd);
    assert_int_equal(n, nnz);
    assert_int_equal(c, coalesced);
}

static void test_like(void **state) {
    (void)state;
    ct_tensor *h = sparse_h(), *r = NULL, *d = NULL;
    ct_sparse_like_options o = CT_SPARSE_LIKE_OPTIONS_INIT;
    OK(ct_sparse_like(h, CT_SPARSE_FILL_ZEROS, NULL, &r));
    expect_dims(r, 1, 1, 0, true);
    assert_sizes(r, 3, 2);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    ct_tensor_release(r);
    o.dtype = CT_INT32;
    OK(ct_sparse_like(h, CT_SPARSE_FILL_EMPTY, &o, &r));
    expect_dims(r, 1, 1, 0, true);
    assert_int_equal(ct_tensor_dtype(r), CT_INT32);
    ct_tensor_release(r);
    /* layout=strided: the dense factory */
    o = (ct_sparse_like_options)CT_SPARSE_LIKE_OPTIONS_INIT;
    o.has_layout = true;
    o.fill_value = ct_scalar_float(2.5);
    OK(ct_sparse_like(h, CT_SPARSE_FILL_FULL, &o, &r));
    assert_int_equal(ct_tensor_layout(r), CT_LAYOUT_STRIDED);
    assert_sizes(r, 3, 2);
    assert_true(((float *)ct_tensor_data_ptr(r))[5] == 2.5f);
    ct_tensor_release(r);
    /* a strided input with layout=sparse_coo: zeros makes every dim sparse */
    OK(ct_tensor_zeros(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &d));
    o = (ct_sparse_like_options)CT_SPARSE_LIKE_OPTIONS_INIT;
    o.has_layout = true;
    o.layout = CT_LAYOUT_SPARSE_COO;
    OK(ct_sparse_like(d, CT_SPARSE_FILL_ZEROS, &o, &r));
    expect_dims(r, 2, 0, 0, true);
    ct_tensor_release(r);
    EXPECT_ERR(ct_sparse_like(d, CT_SPARSE_FILL_EMPTY, &o, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::empty_strided' with arguments from the 'SparseCPU' "
               "backend.");
    assert_null(r);
    o.has_memory_format = true;
    EXPECT_ERR(ct_sparse_like(d, CT_SPARSE_FILL_ZEROS, &o, &r), CT_ERR_RUNTIME,
               "memory format option is only supported by strided tensors");
    EXPECT_ERR(ct_sparse_like(h, CT_SPARSE_FILL_ONES, NULL, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::fill_.Scalar' with arguments from the 'SparseCPU' "
               "backend.");
    EXPECT_ERR(ct_sparse_like(h, CT_SPARSE_FILL_RANDN, NULL, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::normal_' with arguments from the 'SparseCPU' backend.");
    assert_int_equal(ct_sparse_like(d, CT_SPARSE_FILL_ZEROS, NULL, &r), CT_ERR_MISUSE);
    ct_tensor_release(d);
    ct_tensor_release(h);
}

static void test_new_and_zero_(void **state) {
    (void)state;
    ct_tensor *h = sparse_h(), *r = NULL;
    OK(ct_sparse_new(h, CT_SPARSE_FILL_ZEROS, SHAPE(2, 2, 2), NULL, &r));
    expect_dims(r, 3, 0, 0, true);
    ct_tensor_release(r);
    EXPECT_ERR(ct_sparse_new(h, CT_SPARSE_FILL_FULL, SHAPE(2), NULL, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::fill_.Scalar' with arguments from the 'SparseCPU' "
               "backend.");
    /* zero_ makes every dim sparse (1.13's zeros_out) */
    OK(ct_sparse_zero_(h));
    expect_dims(h, 2, 0, 0, true);
    assert_sizes(h, 3, 2);
    ct_tensor_release(h);
    ct_tensor *d = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &d));
    EXPECT_ERR(ct_sparse_zero_(d), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::zero_' with arguments from the 'CPU' backend.");
    ct_tensor_release(d);
}

static void test_classify_pow(void **state) {
    (void)state;
    ct_tensor *u = sparse_u(), *r = NULL, *v = NULL, *w = NULL;
    /* isneginf(U): coalesced [[0, 1], [2, 2]] -> [true, false] */
    OK(ct_isneginf(u, &r));
    expect_dims(r, 2, 0, 2, true);
    assert_int_equal(ct_tensor_dtype(r), CT_BOOL);
    OK(ct_sparse_raw_values(r, &v));
    assert_memory_equal(ct_tensor_data_ptr(v), ((bool[]){true, false}), 2);
    ct_tensor_release(v);
    ct_tensor_release(r);
    ct_tensor *f = NULL;
    OK(ct_tensor_zeros(SHAPE(2, 3), CT_BOOL, &CPU, CT_LAYOUT_STRIDED, &f));
    EXPECT_ERR(ct_isposinf_out(u, f), CT_ERR_RUNTIME,
               "Expected self.is_sparse() && result.is_sparse() to be true, but got false.  "
               "(Could this error message be improved?  If so, please report an enhancement "
               "request to PyTorch.)");
    ct_tensor_release(f);
    EXPECT_ERR(ct_isfinite(u, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::ne.Scalar' with arguments from the 'SparseCPU' backend.");
    /* pow(U, 2): coalesced values [inf, 16] */
    OK(ct_tensor_wrapped_number(ct_scalar_int(2), &w));
    OK(ct_binary(CT_OP_POW, u, w, ct_scalar_int(1), &r));
    expect_dims(r, 2, 0, 2, true);
    OK(ct_sparse_raw_values(r, &v));
    assert_true(isinf(((float *)ct_tensor_data_ptr(v))[0]));
    assert_true(((float *)ct_tensor_data_ptr(v))[1] == 16.0f);
    ct_tensor_release(v);
    ct_tensor_release(r);
    EXPECT_ERR(ct_binary_(CT_OP_POW, u, w, ct_scalar_int(1)), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::pow_.Scalar' with arguments from the 'SparseCPU' backend.");
    ct_tensor_release(w);
    OK(ct_tensor_wrapped_number(ct_scalar_float(0.0), &w));
    EXPECT_ERR(ct_binary(CT_OP_POW, u, w, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "pow: cannot raise to zeroth power on sparse tensor; it would make the result "
               "tensor dense");
    ct_tensor_release(w);
    ct_tensor_release(u);
}

/* ---- faults ------------------------------------------------------------------------------ */

static ct_tensor *f_h, *f_u, *f_three; /* operands made before the injected range */

static ct_status f_like(ct_tensor **out) {
    return ct_sparse_like(f_h, CT_SPARSE_FILL_ZEROS, NULL, out);
}

static ct_status f_isnan(ct_tensor **out) { return ct_isnan(f_u, out); }

static ct_status f_pow(ct_tensor **out) {
    return ct_binary(CT_OP_POW, f_u, f_three, ct_scalar_int(1), out);
}

static ct_status f_zero_(ct_tensor **out) {
    CT_TRY(ct_sparse_clone(f_h, out));
    ct_status st = ct_sparse_zero_(*out);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

static void test_faults(void **state) {
    (void)state;
    f_h = sparse_h();
    f_u = sparse_u();
    OK(ct_tensor_wrapped_number(ct_scalar_int(3), &f_three));
    static const struct {
        const char *name;
        op_fn fn;
    } ops[] = {{"like", f_like}, {"isnan", f_isnan}, {"pow", f_pow}, {"zero_", f_zero_}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (fault_loop(ops[i].name, ops[i].fn) == 0)
            fail_msg("%s: allocates nothing?", ops[i].name);
    ct_tensor_release(f_h);
    ct_tensor_release(f_u);
    ct_tensor_release(f_three);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_new_and_zero_),
        cmocka_unit_test(test_classify_pow),
        cmocka_unit_test(test_faults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
