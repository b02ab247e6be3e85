/* Sparse COO arithmetic and conversions (sparse.h): sub, mul on each of PyTorch 1.13's paths,
 * div, neg, clone, to, transpose, t, strides, the unary.def rows (ct_unary), the in-place forms through the op table, and
 * a failing-allocator loop over them. Expected values, flags and messages are PyTorch
 * 1.13's (computed with torch and written in). The whole file runs under a counting
 * allocator, so any leak fails the group teardown. */
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

/* S = sparse([[0, 1, 1], [2, 0, 2]], [3, 4, 5], (2, 3)), uncoalesced flag (nnz 3) */
static ct_tensor *sparse_s(void) {
    return coo(tens(CT_INT64, SHAPE(2, 3), (int64_t[]){0, 1, 1, 2, 0, 2}),
               tens(CT_FLOAT32, SHAPE(3), (float[]){3, 4, 5}), SHAPE(2, 3));
}
/* U = sparse([[1, 0, 1], [2, 2, 2]], [1, 2, 3], (2, 3)): (1, 2) twice */
static ct_tensor *sparse_u(void) {
    return coo(tens(CT_INT64, SHAPE(2, 3), (int64_t[]){1, 0, 1, 2, 2, 2}),
               tens(CT_FLOAT32, SHAPE(3), (float[]){1, 2, 3}), SHAPE(2, 3));
}

static ct_tensor *coalesced(ct_tensor *s) {
    ct_tensor *c = NULL;
    OK(ct_sparse_coalesce(s, &c));
    ct_tensor_release(s);
    return c;
}

/* raw indices, raw float32 values and the flag */
static void expect_coo(const ct_tensor *s, int64_t sd, int64_t nnz, const int64_t *idx,
                       const float *vals, int64_t nvals, bool coalesced) {
    int64_t n = -1, d = -1;
    bool c = !coalesced;
    ct_tensor *i = NULL, *v = NULL;
    assert_int_equal(ct_tensor_layout(s), CT_LAYOUT_SPARSE_COO);
    OK(ct_sparse_nnz(s, &n));
    OK(ct_sparse_dim(s, &d));
    OK(ct_sparse_is_coalesced(s, &c));
    assert_int_equal(n, nnz);
    assert_int_equal(d, sd);
    assert_int_equal(c, coalesced);
    OK(ct_sparse_raw_indices(s, &i));
    OK(ct_sparse_raw_values(s, &v));
    assert_int_equal(ct_tensor_dtype(v), CT_FLOAT32);
    assert_int_equal(ct_tensor_numel(v), nvals);
    if (sd * nnz > 0)
        assert_memory_equal(ct_tensor_data_ptr(i), idx, (size_t)(sd * nnz) * sizeof(int64_t));
    if (nvals > 0)
        assert_memory_equal(ct_tensor_data_ptr(v), vals, (size_t)nvals * sizeof(float));
    ct_tensor_release(i);
    ct_tensor_release(v);
}

/* ---- mul ---------------------------------------------------------------------------------- */

static void test_mul_paths(void **state) {
    (void)state;
    ct_tensor *s = sparse_s(), *u = sparse_u(), *r = NULL;
    /* both uncoalesced: the intersection kernel walks U (the source) in order */
    OK(ct_sparse_mul(s, u, &r));
    expect_coo(r, 2, 3, (int64_t[]){1, 0, 1, 2, 2, 2}, (float[]){5, 6, 15}, 3, false);
    ct_tensor_release(r);
    /* both coalesced: the merge, shared columns only */
    ct_tensor *sc = coalesced(sparse_s()), *uc = coalesced(sparse_u());
    OK(ct_sparse_mul(sc, uc, &r));
    expect_coo(r, 2, 2, (int64_t[]){0, 1, 2, 2}, (float[]){6, 20}, 2, true);
    ct_tensor_release(r);
    /* sparse * dense and dense * sparse (broadcast): same indices, same flag */
    ct_tensor *d = tens(CT_FLOAT32, SHAPE(3), (float[]){10, 20, 30});
    OK(ct_sparse_mul(s, d, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){90, 40, 150}, 3, false);
    ct_tensor_release(r);
    OK(ct_sparse_mul(d, sc, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){90, 40, 150}, 3, true);
    ct_tensor_release(r);
    /* a wrapped number: the values' dtype */
    ct_tensor *two = NULL;
    OK(ct_tensor_wrapped_number(ct_scalar_int(2), &two));
    OK(ct_sparse_mul(two, s, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){6, 8, 10}, 3, false);
    ct_tensor_release(r);
    /* a 0-dim sparse operand: its value */
    ct_tensor *z = coo(tens(CT_INT64, SHAPE(0, 1), (int64_t[]){0}),
                       tens(CT_FLOAT32, SHAPE(1), (float[]){2}), NULL, 0);
    OK(ct_sparse_mul(s, z, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){6, 8, 10}, 3, false);
    ct_tensor_release(r);
    /* an empty operand of equal sizes: every dim sparse, nnz 0, coalesced */
    ct_tensor *e = NULL;
    OK(ct_sparse_coo_zeros(SHAPE(2, 3), 1, CT_FLOAT32, NULL, &e));
    OK(ct_sparse_mul(s, e, &r));
    expect_coo(r, 2, 0, NULL, NULL, 0, true);
    ct_tensor_release(r);
    ct_tensor *all[] = {s, u, sc, uc, d, two, z, e};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

static void test_mul_errors(void **state) {
    (void)state;
    ct_tensor *s = coalesced(sparse_s()), *r = NULL, *d = NULL;
    ct_tensor *o = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 0}),
                       tens(CT_FLOAT32, SHAPE(2, 3), (float[]){1, 2, 3, 4, 5, 6}), SHAPE(2, 3));
    EXPECT_ERR(ct_sparse_mul(s, o, &r), CT_ERR_RUNTIME,
               "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal "
               "dimensionality, number of sparse dimensions, and shape of sparse dimensions");
    assert_null(r);
    OK(ct_tensor_ones(SHAPE(3, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &d));
    EXPECT_ERR(ct_sparse_mul(s, d, &r), CT_ERR_RUNTIME,
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
               "dimension 0");
    ct_tensor *b = NULL;
    OK(ct_sparse_to(s, CT_BOOL, NULL, false, &b));
    EXPECT_ERR(ct_sparse_mul(b, b, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"mul_out_sparse\" not implemented for 'Bool'");
    EXPECT_ERR(ct_sparse_mul(d, d, &r), CT_ERR_NOT_IMPLEMENTED,
               "ct_sparse_mul: neither operand is sparse");
    ct_tensor *all[] = {s, o, d, b};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

/* ---- div, sub ---------------------------------------------------------------------------- */

static void test_div_sub(void **state) {
    (void)state;
    ct_tensor *s = sparse_s(), *u = sparse_u(), *r = NULL, *two = NULL, *v = NULL;
    OK(ct_tensor_wrapped_number(ct_scalar_int(2), &two));
    OK(ct_sparse_div(s, two, CT_ROUNDING_NONE, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){1.5f, 2, 2.5f}, 3, false);
    ct_tensor_release(r);
    /* integer values: true division gives the default dtype; a rounding mode keeps int and
     * coalesces first */
    ct_tensor *si = NULL;
    OK(ct_sparse_to(s, CT_INT32, NULL, false, &si));
    OK(ct_sparse_div(si, two, CT_ROUNDING_NONE, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    ct_tensor_release(r);
    OK(ct_sparse_div(si, two, CT_ROUNDING_FLOOR, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_INT32);
    bool c = false;
    OK(ct_sparse_is_coalesced(r, &c));
    assert_true(c);
    ct_tensor_release(r);
    EXPECT_ERR(ct_sparse_div(s, u, CT_ROUNDING_NONE, &r), CT_ERR_RUNTIME,
               "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
               "[2, 3] for divisor)");
    ct_tensor *z = coo(tens(CT_INT64, SHAPE(0, 1), (int64_t[]){0}),
                       tens(CT_FLOAT32, SHAPE(1), (float[]){2}), NULL, 0);
    EXPECT_ERR(ct_sparse_div(s, z, CT_ROUNDING_NONE, &r), CT_ERR_RUNTIME,
               "Sparse division requires a scalar or zero-dim dense tensor divisor (got a "
               "sparse divisor)");
    /* sub: add with -alpha, merging both lists as they come */
    OK(ct_sparse_sub(s, u, ct_scalar_int(1), &r));
    expect_coo(r, 2, 5, (int64_t[]){0, 1, 1, 0, 1, 2, 0, 2, 2, 2}, (float[]){3, 4, 4, -2, -3}, 5,
               false);
    ct_tensor_release(r);
    ct_tensor *b = NULL;
    OK(ct_sparse_to(s, CT_BOOL, NULL, false, &b));
    EXPECT_ERR(ct_sparse_sub(b, b, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
               "`^` or `logical_xor()` operator instead.");
    ct_tensor *all[] = {s, u, two, si, z, b, v};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

/* ---- one operand --------------------------------------------------------------------------- */

static void test_unary(void **state) {
    (void)state;
    ct_tensor *s = sparse_s(), *c = coalesced(sparse_s()), *r = NULL, *v = NULL;
    OK(ct_sparse_neg(c, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){-3, -4, -5}, 3, true);
    ct_tensor_release(r);
    OK(ct_sparse_clone(s, &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){3, 4, 5}, 3, false);
    ct_tensor_release(r);
    /* t(): rows swapped, flag dropped */
    OK(ct_sparse_t(c, &r));
    expect_coo(r, 2, 3, (int64_t[]){2, 0, 2, 0, 1, 1}, (float[]){3, 4, 5}, 3, false);
    assert_sizes(r, 3, 2);
    ct_tensor_release(r);
    OK(ct_sparse_transpose(c, 0, 0, &r)); /* a clone */
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){3, 4, 5}, 3, true);
    ct_tensor_release(r);
    EXPECT_ERR(ct_sparse_transpose(c, 0, 2, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    /* to(): the tensor itself when nothing changes, else new values */
    OK(ct_sparse_to(c, CT_FLOAT32, NULL, false, &r));
    assert_ptr_equal(r, c);
    ct_tensor_release(r);
    OK(ct_sparse_to(c, CT_FLOAT64, NULL, false, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT64);
    ct_tensor_release(r);
    OK(ct_sparse_raw_values(c, &v));
    OK(ct_sparse_with_values(c, v, &r));
    assert_ptr_equal(r, c);
    ct_tensor_release(r);
    ct_tensor_release(v);
    ct_tensor *wrong = tens(CT_FLOAT32, SHAPE(2), (float[]){1, 2});
    EXPECT_ERR(ct_sparse_with_values(c, wrong, &r), CT_ERR_RUNTIME,
               "values has incorrect size, expected [3], got [2]");
    /* strides as 1.13 answers */
    int64_t st[2] = {-1, -1}, one = -1;
    OK(ct_sparse_strides(c, st));
    assert_int_equal(st[0], 1);
    assert_int_equal(st[1], 0);
    OK(ct_sparse_stride(c, -2, &one));
    assert_int_equal(one, 1);
    ct_tensor *h = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
                       tens(CT_FLOAT32, SHAPE(2, 2), (float[]){1, 2, 3, 4}), SHAPE(2, 2));
    EXPECT_ERR(ct_sparse_t(h, &r), CT_ERR_RUNTIME,
               "t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got 1 sparse "
               "and 1 dense dimensions");
    EXPECT_ERR(ct_sparse_transpose(h, 0, 1, &r), CT_ERR_RUNTIME,
               "sparse transpose: transposed dimensions must be sparse Got sparse_dim: 1, d0: 0, "
               "d1: 1");
    /* t_() and transpose_() in place: the rows swapped in the indices tensor itself (an
     * alias sees it, as in 1.13), the flag dropped; equal dims change nothing */
    ct_tensor *w = coalesced(sparse_s()), *wi = NULL;
    OK(ct_sparse_raw_indices(w, &wi));
    OK(ct_sparse_t_(w));
    assert_sizes(w, 3, 2);
    expect_coo(w, 2, 3, (int64_t[]){2, 0, 2, 0, 1, 1}, (float[]){3, 4, 5}, 3, false);
    int64_t swapped[] = {2, 0, 2, 0, 1, 1};
    assert_memory_equal(ct_tensor_data_ptr(wi), swapped, sizeof swapped);
    OK(ct_sparse_transpose_(w, -1, 0));
    assert_sizes(w, 2, 3);
    expect_coo(w, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){3, 4, 5}, 3, false);
    ct_tensor *w2 = coalesced(sparse_s());
    OK(ct_sparse_transpose_(w2, 1, -1));
    expect_coo(w2, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){3, 4, 5}, 3, true);
    EXPECT_ERR(ct_sparse_transpose_(w2, 0, 2), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    EXPECT_ERR(ct_sparse_t_(h), CT_ERR_RUNTIME,
               "t_() expects a tensor with <= 2 sparse and 0 dense dimensions, but got 1 sparse "
               "and 1 dense dimensions");
    EXPECT_ERR(ct_sparse_transpose_(h, 0, 1), CT_ERR_RUNTIME,
               "sparse transpose: transposed dimensions must be sparse Got sparse_dim: 1, d0: 0, "
               "d1: 1");
    ct_tensor *all[] = {s, c, wrong, h, w, wi, w2};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

/* ---- in place through the op table --------------------------------------------------------- */

/* ---- unary.def rows (ct_unary on sparse operands) ---------------------------------------- */

static void test_unary_rows(void **state) {
    (void)state;
    ct_tensor *u = sparse_u(), *s = sparse_s(), *r = NULL, *o = NULL, *d = NULL;
    /* zero-preserving: the values of the coalesced input, a coalesced result */
    OK(ct_unary(CT_UNOP_SQRT, u, &r));
    expect_coo(r, 2, 2, (int64_t[]){0, 1, 2, 2}, (float[]){sqrtf(2.0f), 2.0f}, 2, true);
    ct_tensor_release(r);
    EXPECT_ERR(ct_unary_(CT_UNOP_SQRT, u), CT_ERR_RUNTIME, "sqrt_ requires coalesced input");
    EXPECT_ERR(ct_unary_out(CT_UNOP_SQRT, u, u), CT_ERR_RUNTIME,
               "expected coalesced tensor for inplace operation");
    /* out=: resized to the input's sizes, coalesced */
    OK(ct_sparse_coo_zeros(SHAPE(4), 1, CT_FLOAT32, NULL, &o));
    OK(ct_unary_out(CT_UNOP_ABS, u, o));
    expect_coo(o, 2, 2, (int64_t[]){0, 1, 2, 2}, (float[]){2, 4}, 2, true);
    assert_int_equal(ct_tensor_dim(o), 2);
    assert_int_equal(ct_tensor_sizes(o)[1], 3);
    OK(ct_tensor_zeros(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &d));
    EXPECT_ERR(ct_unary_out(CT_UNOP_SQRT, u, d), CT_ERR_RUNTIME,
               "Expected self.is_sparse() && result.is_sparse() to be true, but got false.  "
               "(Could this error message be improved?  If so, please report an enhancement "
               "request to PyTorch.)");
    /* in place on a coalesced tensor */
    ct_tensor *c = coalesced(sparse_u());
    OK(ct_unary_(CT_UNOP_NEG, c));
    OK(ct_unary_(CT_UNOP_ABS, c));
    expect_coo(c, 2, 2, (int64_t[]){0, 1, 2, 2}, (float[]){2, 4}, 2, true);
    /* neg keeps order and flag */
    OK(ct_unary(CT_UNOP_NEG, u, &r));
    expect_coo(r, 2, 3, (int64_t[]){1, 0, 1, 2, 2, 2}, (float[]){-1, -2, -3}, 3, false);
    ct_tensor_release(r);
    /* positive: the input itself */
    OK(ct_unary(CT_UNOP_POSITIVE, s, &r));
    assert_ptr_equal(r, s);
    ct_tensor_release(r);
    /* rows without a sparse kernel */
    EXPECT_ERR(ct_unary(CT_UNOP_EXP, s, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::exp' with arguments from the 'SparseCPU' backend.");
    EXPECT_ERR(ct_unary_(CT_UNOP_COS, s), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::cos_' with arguments from the 'SparseCPU' backend.");
    EXPECT_ERR(ct_unary_out(CT_UNOP_EXP, d, s), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::exp.out' with arguments from the 'SparseCPU' backend.");
    EXPECT_ERR(ct_unary(CT_UNOP_LOGICAL_NOT, s, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::logical_not.out' with arguments from the 'SparseCPU' "
               "backend.");
    EXPECT_ERR(ct_round_decimals(s, 1, &r), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::round.decimals' with arguments from the 'SparseCPU' "
               "backend.");
    assert_null(r);
    ct_tensor *all[] = {u, s, o, d, c};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

static void test_inplace(void **state) {
    (void)state;
    ct_tensor *s = sparse_s(), *d = NULL, *di = NULL, *two = NULL, *r = NULL;
    OK(ct_tensor_ones(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &d));
    OK(ct_binary_(CT_OP_ADD, d, s, ct_scalar_int(1)));
    float want[] = {1, 1, 4, 5, 1, 6};
    assert_memory_equal(ct_tensor_data_ptr(d), want, sizeof want);
    OK(ct_tensor_ones(SHAPE(2, 3), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &di));
    EXPECT_ERR(ct_binary_(CT_OP_ADD, di, s, ct_scalar_int(1)), CT_ERR_RUNTIME,
               "Can't convert result type Float to output Int in add operation");
    /* a sparse self takes the result; mul by a number drops the flag as 1.13 */
    ct_tensor *c = coalesced(sparse_s());
    OK(ct_tensor_wrapped_number(ct_scalar_int(2), &two));
    OK(ct_binary_(CT_OP_MUL, c, two, ct_scalar_int(1)));
    expect_coo(c, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){6, 8, 10}, 3, false);
    OK(ct_binary_(CT_OP_DIV, c, two, ct_scalar_int(1)));
    expect_coo(c, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, (float[]){3, 4, 5}, 3, false);
    ct_tensor *ci = NULL;
    OK(ct_sparse_to(c, CT_INT32, NULL, false, &ci));
    EXPECT_ERR(ct_binary_(CT_OP_DIV, ci, two, ct_scalar_int(1)), CT_ERR_RUNTIME,
               "result type Float can't be cast to the desired output type Int");
    (void)r;
    ct_tensor *all[] = {s, d, di, two, c, ci};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

/* ---- allocation failures ------------------------------------------------------------------- */

static ct_tensor *f_s, *f_u, *f_c, *f_uc, *f_d, *f_two;

static ct_status op_mul_intersection(ct_tensor **o) { return ct_sparse_mul(f_s, f_u, o); }
static ct_status op_mul_merge(ct_tensor **o) { return ct_sparse_mul(f_c, f_uc, o); }
static ct_status op_mul_dense(ct_tensor **o) { return ct_sparse_mul(f_s, f_d, o); }
static ct_status op_mul_number(ct_tensor **o) { return ct_sparse_mul(f_two, f_s, o); }
static ct_status op_div(ct_tensor **o) { return ct_sparse_div(f_s, f_two, CT_ROUNDING_NONE, o); }
static ct_status op_div_floor(ct_tensor **o) {
    return ct_sparse_div(f_s, f_two, CT_ROUNDING_FLOOR, o);
}
static ct_status op_sub(ct_tensor **o) { return ct_sparse_sub(f_s, f_u, ct_scalar_int(1), o); }
static ct_status op_neg(ct_tensor **o) { return ct_sparse_neg(f_s, o); }
static ct_status op_sqrt(ct_tensor **o) { return ct_unary(CT_UNOP_SQRT, f_u, o); }
static ct_status op_sqrt_out(ct_tensor **o) {
    CT_TRY(ct_sparse_coo_zeros(SHAPE(4), 1, CT_FLOAT64, NULL, o));
    ct_status st = ct_unary_out(CT_UNOP_SQRT, f_u, *o);
    if (st != CT_OK) {
        ct_tensor_release(*o);
        *o = NULL;
    }
    return st;
}
static ct_status op_clone(ct_tensor **o) { return ct_sparse_clone(f_s, o); }
static ct_status op_to(ct_tensor **o) { return ct_sparse_to(f_s, CT_FLOAT64, NULL, false, o); }
static ct_status op_t(ct_tensor **o) { return ct_sparse_t(f_s, o); }
static ct_status op_t_(ct_tensor **o) {
    CT_TRY(ct_sparse_clone(f_s, o));
    ct_status st = ct_sparse_t_(*o);
    if (st != CT_OK) {
        ct_tensor_release(*o);
        *o = NULL;
    }
    return st;
}
static ct_tensor *f_dd;
static ct_status op_mul_dense_direct(ct_tensor **o) { return ct_sparse_mul(f_s, f_dd, o); }
static ct_status op_inplace_dense(ct_tensor **o) {
    CT_TRY(ct_tensor_ones(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, o));
    ct_status st = ct_binary_(CT_OP_SUB, *o, f_s, ct_scalar_int(1));
    if (st != CT_OK) {
        ct_tensor_release(*o);
        *o = NULL;
    }
    return st;
}
static ct_status op_inplace_sparse(ct_tensor **o) {
    CT_TRY(ct_sparse_clone(f_s, o));
    ct_status st = ct_binary_(CT_OP_ADD, *o, f_u, ct_scalar_int(1));
    if (st != CT_OK) {
        ct_tensor_release(*o);
        *o = NULL;
    }
    return st;
}

static void test_faults(void **state) {
    (void)state;
    f_s = sparse_s();
    f_u = sparse_u();
    f_c = coalesced(sparse_s());
    f_uc = coalesced(sparse_u());
    f_d = tens(CT_FLOAT32, SHAPE(3), (float[]){10, 20, 30});
    OK(ct_tensor_wrapped_number(ct_scalar_int(2), &f_two));
    f_dd = tens(CT_FLOAT32, SHAPE(2, 3), (float[]){1, 2, 3, 4, 5, 6});
    struct {
        const char *name;
        op_fn fn;
    } ops[] = {
        {"mul intersection", op_mul_intersection},
        {"mul merge", op_mul_merge},
        {"mul dense", op_mul_dense},
        {"mul number", op_mul_number},
        {"div", op_div},
        {"div floor", op_div_floor},
        {"sub", op_sub},
        {"neg", op_neg},
        {"sqrt", op_sqrt},
        {"sqrt out=", op_sqrt_out},
        {"clone", op_clone},
        {"to", op_to},
        {"t", op_t},
        {"t_", op_t_},
        {"mul dense direct", op_mul_dense_direct},
        {"dense -= sparse", op_inplace_dense},
        {"sparse += sparse", op_inplace_sparse},
    };
    int total = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int k = fault_loop(ops[i].name, ops[i].fn);
        if (k == 0)
            fail_msg("%s: allocates nothing?", ops[i].name);
        total += k;
    }
    print_message("%d allocation failures injected\n", total);
    ct_tensor *all[] = {f_s, f_u, f_c, f_uc, f_d, f_two, f_dd};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

int main(void) {
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul_paths),
        cmocka_unit_test(test_mul_errors),
        cmocka_unit_test(test_div_sub),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_unary_rows),
        cmocka_unit_test(test_inplace),
        cmocka_unit_test(test_faults),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, setup, teardown);
}
