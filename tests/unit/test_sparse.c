/* Sparse COO tensors: construction and its checks, accessors, coalesce, to_dense,
 * to_sparse and addition, on cpu, meta and an emulated accelerator, and a failing-allocator
 * loop over the main operations. Expected values and messages are PyTorch 1.13's (computed
 * with torch and written in) unless a comment says why they differ. The whole file runs
 * under a counting allocator, so any leak fails the group teardown. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "sparse_test_util.h"

#include "base/error_impl.h"

static const ct_device NPU = {CT_DEVICE_PRIVATEUSEONE, 0};

#include "fault_loop.h"

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    if (ct_set_allocator(&a) != CT_OK || ct_privateuse1_set_name("npu") != CT_OK ||
        ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 2) != CT_OK)
        return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    ct_status st = ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE);
    bool clean = live_allocs == 0;
    if (!clean)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    ct_set_allocator(NULL);
    return st == CT_OK && clean ? 0 : -1;
}

/* ---- helpers ---- */

static ct_tensor *tens(ct_dtype dt, const int64_t *sizes, int64_t ndim, const void *data) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, ndim, dt, data, &CPU, &t));
    return t;
}

/* a cpu contiguous copy */
static ct_tensor *host(const ct_tensor *t) {
    ct_tensor *a = NULL, *b = NULL;
    OK(ct_tensor_to_device(t, CPU, &a));
    OK(ct_tensor_contiguous(a, CT_MEMFMT_CONTIGUOUS, &b));
    ct_tensor_release(a);
    return b;
}

static void expect_data(const ct_tensor *t, ct_dtype dt, const void *want, int64_t n) {
    assert_int_equal(ct_tensor_layout(t), CT_LAYOUT_STRIDED);
    assert_int_equal(ct_tensor_dtype(t), dt);
    assert_int_equal(ct_tensor_numel(t), n);
    ct_tensor *h = host(t);
    if (n > 0 && memcmp(ct_tensor_data_ptr(h), want, (size_t)n * ct_dtype_itemsize(dt)) != 0)
        fail_msg("data differs");
    ct_tensor_release(h);
}

/* raw indices, raw values and the flag of a sparse tensor */
static void expect_coo(const ct_tensor *s, int64_t sd, int64_t nnz, const int64_t *idx, ct_dtype dt,
                       const void *vals, int64_t nvals, bool coalesced) {
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
    assert_sizes(i, sd, nnz);
    expect_data(i, CT_INT64, idx, sd * nnz);
    expect_data(v, dt, vals, nvals);
    ct_tensor_release(i);
    ct_tensor_release(v);
}

/* ---- construction ---- */

static void test_create(void **state) {
    (void)state;
    ct_tensor *i = tens(CT_INT64, SHAPE(2, 3), (int64_t[]){0, 1, 1, 2, 0, 2});
    ct_tensor *v = tens(CT_FLOAT32, SHAPE(3), (float[]){3, 4, 5});
    ct_tensor *s = NULL, *x = NULL;
    OK(ct_sparse_coo_tensor(i, v, SHAPE(2, 3), NULL, &s));
    assert_true(ct_sparse_is_sparse(s));
    assert_false(ct_sparse_is_sparse(v));
    assert_int_equal(ct_tensor_layout(s), CT_LAYOUT_SPARSE_COO);
    assert_int_equal(ct_tensor_dtype(s), CT_FLOAT32);
    assert_int_equal(ct_tensor_device(s).type, CT_DEVICE_CPU);
    assert_sizes(s, 2, 3);
    assert_int_equal(ct_tensor_numel(s), 6);
    assert_null(ct_tensor_strides(s));
    assert_null(ct_tensor_storage(s));
    char buf[64];
    OK(ct_tensor_type_string(s, buf, sizeof buf));
    assert_string_equal(buf, "torch.sparse.FloatTensor");
    int64_t n;
    OK(ct_sparse_dense_dim(s, &n));
    assert_int_equal(n, 0);
    expect_coo(s, 2, 3, (int64_t[]){0, 1, 1, 2, 0, 2}, CT_FLOAT32, (float[]){3, 4, 5}, 3, false);
    /* _indices()/_values() are the tensors given; indices()/values() need coalesced */
    OK(ct_sparse_raw_values(s, &x));
    assert_ptr_equal(x, v);
    ct_tensor_release(x);
    EXPECT_ERR(ct_sparse_indices(s, &x), CT_ERR_RUNTIME,
               "Cannot get indices on an uncoalesced tensor, please call .coalesce() first");
    assert_null(x);
    EXPECT_ERR(ct_sparse_values(s, &x), CT_ERR_RUNTIME,
               "Cannot get values on an uncoalesced tensor, please call .coalesce() first");
    OK(ct_sparse_set_coalesced(s, true)); /* _coalesced_(True): the caller vouches */
    OK(ct_sparse_values(s, &x));
    assert_true(x != v);
    assert_ptr_equal(ct_tensor_data_ptr(x), ct_tensor_data_ptr(v));
    ct_tensor_release(x);
    OK(ct_sparse_indices(s, &x));
    assert_sizes(x, 2, 3);
    ct_tensor_release(x);
    /* the tensor core refuses non-strided tensors where it needs strides */
    assert_int_equal(ct_tensor_clone(s, CT_MEMFMT_PRESERVE, &x), CT_ERR_NOT_IMPLEMENTED);
    ct_tensor_release(s);
    ct_tensor_release(i);
    ct_tensor_release(v);
}

static void test_create_infer(void **state) {
    (void)state;
    /* max index + 1 per sparse dim, then the dense sizes of the values */
    ct_tensor *s =
        coo(tens(CT_INT64, SHAPE(2, 2), (int64_t[]){0, 4, 2, 1}),
            tens(CT_INT32, SHAPE(2, 3), (int32_t[]){1, 2, 3, 4, 5, 6}), NULL, CT_SPARSE_INFER_SIZE);
    assert_sizes(s, 5, 3, 3);
    int64_t d;
    OK(ct_sparse_dense_dim(s, &d));
    assert_int_equal(d, 1);
    ct_tensor_release(s);
    /* nnz 0: sparse sizes 0; nnz < 2 is coalesced */
    ct_tensor *e = NULL;
    OK(ct_tensor_empty(SHAPE(1, 0), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e));
    ct_tensor *ev = NULL;
    OK(ct_tensor_empty(SHAPE(0, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &ev));
    s = coo(e, ev, NULL, CT_SPARSE_INFER_SIZE);
    assert_sizes(s, 0, 3);
    bool c = false;
    OK(ct_sparse_is_coalesced(s, &c));
    assert_true(c);
    ct_tensor_release(s);
    /* a 0-dim values tensor counts as [1]; a 0-dim sparse tensor */
    OK(ct_tensor_empty(SHAPE(0, 1), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e));
    ct_tensor *five = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_float(5), CT_FLOAT32, &CPU, &five));
    s = coo(e, five, NULL, 0);
    assert_int_equal(ct_tensor_dim(s), 0);
    expect_coo(s, 0, 1, NULL, CT_FLOAT32, (float[]){5}, 1, true);
    ct_tensor *dense = NULL;
    OK(ct_sparse_to_dense(s, &dense));
    expect_data(dense, CT_FLOAT32, (float[]){5}, 1);
    ct_tensor_release(dense);
    ct_tensor_release(s);
    /* zeros */
    OK(ct_sparse_coo_zeros(SHAPE(2, 3), 1, CT_DTYPE_UNDEFINED, NULL, &s));
    expect_coo(s, 1, 0, NULL, CT_FLOAT32, NULL, 0, true);
    OK(ct_sparse_to_dense(s, &dense));
    expect_data(dense, CT_FLOAT32, (float[6]){0}, 6);
    ct_tensor_release(dense);
    ct_tensor_release(s);
    EXPECT_ERR(ct_sparse_coo_zeros(SHAPE(2, 3), 3, CT_FLOAT32, NULL, &s), CT_ERR_RUNTIME,
               "sparse_dim must be in [0, 2], but got 3");
}

static void test_create_errors(void **state) {
    (void)state;
    ct_tensor *i = tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1});
    ct_tensor *i1 = tens(CT_INT64, SHAPE(2), (int64_t[]){0, 1});
    ct_tensor *i3 = tens(CT_INT64, SHAPE(1, 1, 2), (int64_t[]){0, 1});
    ct_tensor *ineg = tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, -1});
    ct_tensor *i32 = tens(CT_INT32, SHAPE(1, 2), (int32_t[]){0, 1});
    ct_tensor *v2 = tens(CT_FLOAT32, SHAPE(2), (float[]){1, 2});
    ct_tensor *v3 = tens(CT_FLOAT32, SHAPE(3), (float[]){1, 2, 3});
    ct_tensor *v23 = NULL, *sp = NULL, *s = NULL;
    OK(ct_tensor_ones(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &v23));
    sp = coo(ct_tensor_retain(i), ct_tensor_retain(v2), SHAPE(2));
    EXPECT_ERR(ct_sparse_coo_tensor(i1, v2, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "indices must be sparse_dim x nnz, but got: [2]");
    EXPECT_ERR(ct_sparse_coo_tensor(i3, v2, NULL, CT_SPARSE_INFER_SIZE, NULL, &s), CT_ERR_RUNTIME,
               "indices must be sparse_dim x nnz, but got: [1, 1, 2]");
    EXPECT_ERR(ct_sparse_coo_tensor(i, sp, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "expected values to be a dense tensor, but got values of layout Sparse");
    EXPECT_ERR(ct_sparse_coo_tensor(i, v2, SHAPE(3, 3), NULL, &s), CT_ERR_RUNTIME,
               "number of dimensions must be sparse_dim (1) + dense_dim (0), but got 2");
    EXPECT_ERR(ct_sparse_coo_tensor(i, v23, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "number of dimensions must be sparse_dim (1) + dense_dim (1), but got 1");
    EXPECT_ERR(ct_sparse_coo_tensor(i32, v2, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "indices must be an int64 tensor");
    EXPECT_ERR(ct_sparse_coo_tensor(i, v2, SHAPE(1), NULL, &s), CT_ERR_RUNTIME,
               "size is inconsistent with indices: for dim 0, size is 1 but found index 1");
    EXPECT_ERR(ct_sparse_coo_tensor(ineg, v2, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "found negative index -1 for dim 0");
    EXPECT_ERR(ct_sparse_coo_tensor(ineg, v2, NULL, CT_SPARSE_INFER_SIZE, NULL, &s), CT_ERR_RUNTIME,
               "found negative index -1 for dim 0");
    EXPECT_ERR(ct_sparse_coo_tensor(i, v3, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "indices and values must have same nnz, but got nnz from indices: 2, nnz from "
               "values: 3");
    EXPECT_ERR(ct_sparse_coo_tensor(i, v23, SHAPE(2, 4), NULL, &s), CT_ERR_RUNTIME,
               "values has incorrect size, expected [2, 4], got [2, 3]");
    EXPECT_ERR(ct_sparse_coo_tensor(i, v2, SHAPE(-2), NULL, &s), CT_ERR_RUNTIME,
               "size is inconsistent with indices: for dim 0, size is -2 but found index 1");
    /* without the invariant checks, bounds are not read (negative sizes still fail) */
    ct_sparse_coo_options unchecked = CT_SPARSE_COO_OPTIONS_INIT;
    unchecked.check_invariants = false;
    OK(ct_sparse_coo_tensor(i, v2, SHAPE(1), &unchecked, &s));
    ct_tensor *d = NULL;
    EXPECT_ERR(ct_sparse_to_dense(s, &d), CT_ERR_INDEX,
               "index 1 is out of bounds for dimension 0 with size 1");
    assert_null(d);
    ct_tensor_release(s);
    s = NULL;
    /* is_coalesced=True is verified */
    ct_sparse_coo_options co = CT_SPARSE_COO_OPTIONS_INIT;
    co.is_coalesced = true;
    ct_tensor *idup = tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 1});
    EXPECT_ERR(ct_sparse_coo_tensor(idup, v2, SHAPE(2), &co, &s), CT_ERR_RUNTIME,
               "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor");
    OK(ct_sparse_coo_tensor(i, v2, SHAPE(2), &co, &s));
    bool c = false;
    OK(ct_sparse_is_coalesced(s, &c));
    assert_true(c);
    ct_tensor_release(s);
    /* an inferred size overflows */
    ct_tensor *imax = tens(CT_INT64, SHAPE(1, 1), (int64_t[]){INT64_MAX});
    ct_tensor *v1 = tens(CT_FLOAT32, SHAPE(1), (float[]){1});
    assert_int_equal(ct_sparse_coo_tensor(imax, v1, NULL, CT_SPARSE_INFER_SIZE, NULL, &s),
                     CT_ERR_OVERFLOW);
    /* sizes whose numel overflows */
    ct_tensor *i2 = tens(CT_INT64, SHAPE(2, 1), (int64_t[]){0, 0});
    EXPECT_ERR(ct_sparse_coo_tensor(i2, v1, SHAPE(INT64_MAX, 2), NULL, &s), CT_ERR_OVERFLOW,
               "numel: integer multiplication overflow");
    ct_tensor_release(i2);
    assert_int_equal(ct_sparse_coo_tensor(NULL, v2, SHAPE(2), NULL, &s), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_coo_tensor(i, v2, SHAPE(2), NULL, NULL), CT_ERR_MISUSE);
    assert_null(s);
    ct_tensor *many = NULL; /* 65 sparse dims */
    OK(ct_tensor_empty(SHAPE(65, 0), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &many));
    ct_tensor *v0 = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &v0));
    EXPECT_ERR(ct_sparse_coo_tensor(many, v0, NULL, CT_SPARSE_INFER_SIZE, NULL, &s), CT_ERR_VALUE,
               "maximum supported dimension for a tensor is 64, found 65");
    ct_tensor *all[] = {i, i1, i3, ineg, i32, v2, v3, v23, sp, idup, imax, v1, many, v0};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

static void test_create_devices(void **state) {
    (void)state;
    ct_tensor *i = tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1});
    ct_tensor *v = tens(CT_FLOAT32, SHAPE(2), (float[]){1, 2});
    ct_tensor *vm = NULL, *im = NULL, *s = NULL;
    OK(ct_tensor_to_device(v, META, &vm));
    OK(ct_tensor_to_device(i, META, &im));
    EXPECT_ERR(ct_sparse_coo_tensor(i, vm, SHAPE(2), NULL, &s), CT_ERR_RUNTIME,
               "backend of indices (CPU) must match backend of values (Meta)");
    /* meta: index checks need data and are skipped; inferring sizes is impossible */
    OK(ct_sparse_coo_tensor(im, vm, SHAPE(1), NULL, &s));
    assert_true(ct_tensor_is_meta(s));
    ct_tensor *d = NULL;
    OK(ct_sparse_to_dense(s, &d)); /* metadata only */
    assert_true(ct_tensor_is_meta(d));
    assert_sizes(d, 1);
    ct_tensor_release(d);
    ct_tensor_release(s);
    EXPECT_ERR(ct_sparse_coo_tensor(im, vm, NULL, CT_SPARSE_INFER_SIZE, NULL, &s),
               CT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    /* options: dtype converts the values, device moves both */
    ct_sparse_coo_options o = CT_SPARSE_COO_OPTIONS_INIT;
    o.dtype = CT_FLOAT64;
    o.device = &NPU;
    OK(ct_sparse_coo_tensor(i, v, SHAPE(3), &o, &s));
    assert_int_equal(ct_tensor_device(s).type, CT_DEVICE_PRIVATEUSEONE);
    assert_int_equal(ct_tensor_dtype(s), CT_FLOAT64);
    expect_coo(s, 1, 2, (int64_t[]){0, 1}, CT_FLOAT64, (double[]){1, 2}, 2, false);
    OK(ct_sparse_to_dense(s, &d));
    assert_int_equal(ct_tensor_device(d).type, CT_DEVICE_PRIVATEUSEONE);
    expect_data(d, CT_FLOAT64, (double[]){1, 2, 0}, 3);
    ct_tensor_release(d);
    /* indices on npu:0, values on npu:1 */
    ct_device npu1 = {CT_DEVICE_PRIVATEUSEONE, 1};
    ct_tensor *in = NULL, *vn = NULL;
    OK(ct_tensor_to_device(i, NPU, &in));
    OK(ct_tensor_to_device(v, npu1, &vn));
    ct_tensor *s2 = NULL;
    EXPECT_ERR(ct_sparse_coo_tensor(in, vn, SHAPE(2), NULL, &s2), CT_ERR_RUNTIME,
               "device of indices (0) must match device of values (1)");
    ct_tensor *all[] = {i, v, vm, im, s, in, vn};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

static void test_dense_accessors(void **state) {
    (void)state;
    ct_tensor *d = NULL, *x = NULL;
    OK(ct_tensor_ones(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &d));
    int64_t n = -1;
    OK(ct_sparse_dim(d, &n)); /* newest PyTorch answers for strided tensors */
    assert_int_equal(n, 0);
    OK(ct_sparse_dense_dim(d, &n));
    assert_int_equal(n, 2);
    EXPECT_ERR(ct_sparse_nnz(d, &n), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::_nnz' with arguments from the 'CPU' backend.");
    bool c;
    EXPECT_ERR(ct_sparse_is_coalesced(d, &c), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::is_coalesced' with arguments from the 'CPU' backend.");
    EXPECT_ERR(ct_sparse_raw_indices(d, &x), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::_indices' with arguments from the 'CPU' backend.");
    EXPECT_ERR(ct_sparse_coalesce(d, &x), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::coalesce' with arguments from the 'CPU' backend.");
    OK(ct_sparse_to_dense(d, &x));
    assert_ptr_equal(x, d);
    ct_tensor_release(x);
    /* C API misuse */
    assert_int_equal(ct_sparse_nnz(NULL, &n), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_to_dense(NULL, &x), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_nnz(d, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_dim(d, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_is_coalesced(d, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_values(d, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_coalesce(d, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_to_dense(d, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_to_sparse_dim(d, 1, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_to_sparse_dim(NULL, 1, &x), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_add(d, d, ct_scalar_int(1), NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_add(NULL, d, ct_scalar_int(1), &x), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_coo_zeros(SHAPE(2), 1, CT_FLOAT32, NULL, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_coo_zeros(SHAPE(2), 1, (ct_dtype)99, NULL, &x), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_coo_tensor(d, d, NULL, -2, NULL, &x), CT_ERR_MISUSE);
    assert_int_equal(ct_sparse_coo_tensor(d, d, NULL, 2, NULL, &x), CT_ERR_MISUSE);
    ct_sparse_coo_options bad = CT_SPARSE_COO_OPTIONS_INIT;
    bad.dtype = (ct_dtype)99;
    assert_int_equal(ct_sparse_coo_tensor(d, d, SHAPE(2), &bad, &x), CT_ERR_MISUSE);
    assert_null(x);
    ct_tensor_release(d);
}

/* ---- coalesce ---- */

static void test_coalesce(void **state) {
    (void)state;
    ct_tensor *s = coo(tens(CT_INT64, SHAPE(2, 5), (int64_t[]){1, 0, 1, 0, 1, 2, 1, 2, 1, 0}),
                       tens(CT_FLOAT32, SHAPE(5), (float[]){1, 2, 3, 4, 5}), SHAPE(2, 3));
    ct_tensor *c = NULL, *c2 = NULL, *d = NULL;
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 2, 3, (int64_t[]){0, 1, 1, 1, 0, 2}, CT_FLOAT32, (float[]){6, 5, 4}, 3, true);
    OK(ct_sparse_coalesce(c, &c2)); /* coalesced: itself */
    assert_ptr_equal(c, c2);
    ct_tensor_release(c2);
    OK(ct_sparse_to_dense(s, &d));
    expect_data(d, CT_FLOAT32, (float[]){0, 6, 0, 5, 0, 4}, 6);
    ct_tensor_release(d);
    ct_tensor_release(c);
    ct_tensor_release(s);

    /* uint8 with dense dims: sums wrap */
    uint8_t v[10];
    for (int k = 0; k < 10; k++)
        v[k] = (uint8_t)(30 * (k + 1));
    s = coo(tens(CT_INT64, SHAPE(1, 5), (int64_t[]){1, 0, 1, 0, 1}), tens(CT_UINT8, SHAPE(5, 2), v),
            SHAPE(2, 2));
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 1, 2, (int64_t[]){0, 1}, CT_UINT8, (uint8_t[]){44, 104, 194, 28}, 4, true);
    ct_tensor_release(c);
    ct_tensor_release(s);

    /* float16 rounds after each add: 2048 + 1 + 1 stays 2048 */
    uint16_t h[3] = {ct_float_to_half(2048), ct_float_to_half(1), ct_float_to_half(1)};
    s = coo(tens(CT_INT64, SHAPE(1, 3), (int64_t[]){0, 0, 0}), tens(CT_FLOAT16, SHAPE(3), h),
            SHAPE(1));
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 1, 1, (int64_t[]){0}, CT_FLOAT16, (uint16_t[]){ct_float_to_half(2048)}, 1, true);
    ct_tensor_release(c);
    ct_tensor_release(s);

    /* bool sums are "or"; -0.0 stays as coalesce copies it (to_dense adds it to +0) */
    s = coo(tens(CT_INT64, SHAPE(1, 3), (int64_t[]){0, 0, 1}),
            tens(CT_BOOL, SHAPE(3), (bool[]){false, true, false}), SHAPE(3));
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 1, 2, (int64_t[]){0, 1}, CT_BOOL, (bool[]){true, false}, 2, true);
    OK(ct_sparse_to_dense(s, &d));
    expect_data(d, CT_BOOL, (bool[]){true, false, false}, 3);
    ct_tensor_release(d);
    ct_tensor_release(c);
    ct_tensor_release(s);
    s = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}),
            tens(CT_FLOAT64, SHAPE(2), (double[]){-0.0, -0.0}), SHAPE(2));
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 1, 2, (int64_t[]){0, 1}, CT_FLOAT64, (double[]){-0.0, -0.0}, 2, true);
    OK(ct_sparse_to_dense(s, &d));
    expect_data(d, CT_FLOAT64, (double[]){0.0, 0.0}, 2);
    ct_tensor_release(d);
    ct_tensor_release(c);
    ct_tensor_release(s);

    /* nnz < 2 but flagged uncoalesced: a copy flagged coalesced */
    s = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){1}), tens(CT_INT8, SHAPE(1), (int8_t[]){7}),
            SHAPE(2));
    OK(ct_sparse_set_coalesced(s, false));
    OK(ct_sparse_coalesce(s, &c));
    assert_true(c != s);
    expect_coo(c, 1, 1, (int64_t[]){1}, CT_INT8, (int8_t[]){7}, 1, true);
    ct_tensor_release(c);
    ct_tensor_release(s);
    /* 0-dim with duplicates sums everything */
    s = coo(tens(CT_INT64, SHAPE(0, 2), NULL), tens(CT_INT32, SHAPE(2), (int32_t[]){1, 2}), NULL,
            0);
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 0, 1, NULL, CT_INT32, (int32_t[]){3}, 1, true);
    ct_tensor_release(c);
    ct_tensor_release(s);

    /* complex32 sums fail as in 1.13; without a duplicate there is nothing to sum */
    s = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}),
            tens(CT_COMPLEX32, SHAPE(2), (uint16_t[]){0x3C00, 0, 0x4000, 0}), SHAPE(2));
    OK(ct_sparse_coalesce(s, &c));
    expect_coo(c, 1, 2, (int64_t[]){0, 1}, CT_COMPLEX32, (uint16_t[]){0x4000, 0, 0x3C00, 0}, 2,
               true);
    ct_tensor_release(c);
    EXPECT_ERR(ct_sparse_to_dense(s, &d), CT_ERR_NOT_IMPLEMENTED,
               "\"cpublas_axpy_impl\" not implemented for 'ComplexHalf'");
    ct_tensor_release(s);
    s = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 0}),
            tens(CT_COMPLEX32, SHAPE(2), (uint16_t[]){0x3C00, 0, 0x4000, 0}), SHAPE(2));
    EXPECT_ERR(ct_sparse_coalesce(s, &c), CT_ERR_NOT_IMPLEMENTED,
               "\"cpublas_axpy_impl\" not implemented for 'ComplexHalf'");
    ct_tensor_release(s);
    /* newest-only dtypes: no kernel */
    s = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}),
            tens(CT_UINT16, SHAPE(2), (uint16_t[]){1, 2}), SHAPE(2));
    EXPECT_ERR(ct_sparse_coalesce(s, &c), CT_ERR_NOT_IMPLEMENTED,
               "\"coalesce\" not implemented for 'UInt16'");
    assert_null(c);
    ct_tensor_release(s);
}

static void test_coalesce_devices(void **state) {
    (void)state;
    ct_tensor *i = tens(CT_INT64, SHAPE(2, 4), (int64_t[]){1, 0, 1, 0, 0, 2, 0, 2});
    ct_tensor *v = tens(CT_COMPLEX64, SHAPE(4, 1), (float[]){1, 1, 2, 2, 3, 3, 4, 4});
    ct_sparse_coo_options o = CT_SPARSE_COO_OPTIONS_INIT;
    o.device = &NPU;
    ct_tensor *s = NULL, *c = NULL;
    OK(ct_sparse_coo_tensor(i, v, SHAPE(2, 3, 1), &o, &s));
    OK(ct_sparse_coalesce(s, &c));
    assert_int_equal(ct_tensor_device(c).type, CT_DEVICE_PRIVATEUSEONE);
    expect_coo(c, 2, 2, (int64_t[]){0, 1, 2, 0}, CT_COMPLEX64, (float[]){6, 6, 4, 4}, 2, true);
    ct_tensor_release(c);
    /* sparse + sparse and to_dense on the accelerator too */
    ct_tensor *r = NULL, *d = NULL;
    OK(ct_sparse_add(s, s, ct_scalar_int(1), &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_PRIVATEUSEONE);
    expect_coo(r, 2, 4, (int64_t[]){1, 0, 1, 0, 0, 2, 0, 2}, CT_COMPLEX64,
               (float[]){2, 2, 4, 4, 6, 6, 8, 8}, 4, false);
    OK(ct_sparse_to_dense(r, &d));
    expect_data(d, CT_COMPLEX64, (float[]){0, 0, 0, 0, 12, 12, 8, 8, 0, 0, 0, 0}, 6);
    ct_tensor_release(d);
    ct_tensor_release(r);
    ct_tensor_release(s);
    /* meta: nnz >= 2 needs the indices */
    o.device = &META;
    o.check_invariants = false;
    OK(ct_sparse_coo_tensor(i, v, SHAPE(2, 3, 1), &o, &s));
    EXPECT_ERR(ct_sparse_coalesce(s, &c), CT_ERR_NOT_IMPLEMENTED,
               "Cannot copy out of meta tensor; no data!");
    ct_tensor_release(s);
    ct_tensor_release(i);
    ct_tensor_release(v);
}

/* ---- to_sparse ---- */

static void test_to_sparse(void **state) {
    (void)state;
    ct_tensor *x = tens(CT_FLOAT32, SHAPE(3, 3), (float[]){0, 1, 0, 0, 0, 0, 2, 0, -0.0f});
    ct_tensor *s = NULL, *s2 = NULL, *d = NULL;
    OK(ct_sparse_to_sparse(x, &s));
    expect_coo(s, 2, 2, (int64_t[]){0, 2, 1, 0}, CT_FLOAT32, (float[]){1, 2}, 2, true);
    OK(ct_sparse_to_sparse(s, &s2)); /* already sparse: itself */
    assert_ptr_equal(s, s2);
    ct_tensor_release(s2);
    EXPECT_ERR(ct_sparse_to_sparse_dim(s, 1, &s2), CT_ERR_RUNTIME,
               "sparse_coo_to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
               "!=self.sparse_dim() is not supported");
    ct_tensor_release(s);
    OK(ct_sparse_to_sparse_dim(x, 1, &s));
    expect_coo(s, 1, 2, (int64_t[]){0, 2}, CT_FLOAT32, (float[]){0, 1, 0, 2, 0, -0.0f}, 6, true);
    OK(ct_sparse_to_dense(s, &d));
    expect_data(d, CT_FLOAT32, (float[]){0, 1, 0, 0, 0, 0, 2, 0, 0}, 9);
    ct_tensor_release(d);
    ct_tensor_release(s);
    EXPECT_ERR(ct_sparse_to_sparse_dim(x, 0, &s), CT_ERR_RUNTIME,
               "sparse_dim must be >0 if dimensionality > 0");
    EXPECT_ERR(ct_sparse_to_sparse_dim(x, -1, &s), CT_ERR_RUNTIME,
               "sparse_dim must be >0 if dimensionality > 0");
    EXPECT_ERR(ct_sparse_to_sparse_dim(x, 3, &s), CT_ERR_RUNTIME,
               "sparse_dim must be less than or equal to self.dim()");
    ct_tensor_release(x);
    /* NaN counts as nonzero; 0-dim tensors */
    x = tens(CT_FLOAT64, SHAPE(2), (double[]){0, __builtin_nan("")});
    OK(ct_sparse_to_sparse(x, &s));
    int64_t nnz;
    OK(ct_sparse_nnz(s, &nnz));
    assert_int_equal(nnz, 1);
    ct_tensor_release(s);
    ct_tensor_release(x);
    OK(ct_tensor_scalar_tensor(ct_scalar_float(3), CT_FLOAT32, &CPU, &x));
    OK(ct_sparse_to_sparse(x, &s));
    expect_coo(s, 0, 1, NULL, CT_FLOAT32, (float[]){3}, 1, true);
    ct_tensor_release(s);
    EXPECT_ERR(ct_sparse_to_sparse_dim(x, -1, &s), CT_ERR_RUNTIME,
               "start (0) + length (-1) exceeds dimension size (0).");
    ct_tensor_release(x);
    /* empty, bool, dense dims of size 0, an accelerator, meta */
    OK(ct_tensor_zeros(SHAPE(2, 0, 3), CT_BOOL, &CPU, CT_LAYOUT_STRIDED, &x));
    OK(ct_sparse_to_sparse_dim(x, 2, &s));
    expect_coo(s, 2, 0, NULL, CT_BOOL, NULL, 0, true);
    ct_tensor_release(s);
    ct_tensor_release(x);
    ct_tensor *h = tens(CT_INT16, SHAPE(2, 2), (int16_t[]){0, 7, 0, 0});
    OK(ct_tensor_to_device(h, NPU, &x));
    OK(ct_sparse_to_sparse(x, &s));
    assert_int_equal(ct_tensor_device(s).type, CT_DEVICE_PRIVATEUSEONE);
    expect_coo(s, 2, 1, (int64_t[]){0, 1}, CT_INT16, (int16_t[]){7}, 1, true);
    ct_tensor_release(s);
    ct_tensor_release(x);
    OK(ct_tensor_to_device(h, META, &x));
    EXPECT_ERR(ct_sparse_to_sparse(x, &s), CT_ERR_NOT_IMPLEMENTED,
               "Could not run 'aten::to_sparse' with arguments from the 'Meta' backend.");
    ct_tensor_release(x);
    ct_tensor_release(h);
    /* complex: nonzero when either part is */
    x = tens(CT_COMPLEX64, SHAPE(3), (float[]){0, 0, 0, -1, -0.0f, 0});
    OK(ct_sparse_to_sparse(x, &s));
    expect_coo(s, 1, 1, (int64_t[]){1}, CT_COMPLEX64, (float[]){0, -1}, 1, true);
    ct_tensor_release(s);
    ct_tensor_release(x);
    x = tens(CT_COMPLEX32, SHAPE(2), (uint16_t[]){0x8000, 0, 0x3C00, 0});
    OK(ct_sparse_to_sparse(x, &s));
    expect_coo(s, 1, 1, (int64_t[]){1}, CT_COMPLEX32, (uint16_t[]){0x3C00, 0}, 1, true);
    ct_tensor_release(s);
    ct_tensor_release(x);
    /* float8 zero tests through its format: e4m3fn 0x80 is -0 */
    x = tens(CT_FLOAT8_E4M3FN, SHAPE(3), (uint8_t[]){0x80, 0x38, 0x00});
    OK(ct_sparse_to_sparse(x, &s));
    expect_coo(s, 1, 1, (int64_t[]){1}, CT_FLOAT8_E4M3FN, (uint8_t[]){0x38}, 1, true);
    ct_tensor_release(s);
    ct_tensor_release(x);
}

/* ---- addition ---- */

static void test_add_sparse(void **state) {
    (void)state;
    ct_tensor *a = coo(tens(CT_INT64, SHAPE(2, 2), (int64_t[]){0, 2, 1, 1}),
                       tens(CT_INT32, SHAPE(2), (int32_t[]){1, 2}), SHAPE(3, 2));
    ct_tensor *b = coo(tens(CT_INT64, SHAPE(2, 3), (int64_t[]){2, 0, 1, 1, 1, 0}),
                       tens(CT_FLOAT32, SHAPE(3), (float[]){10, 20, 30}), SHAPE(3, 2));
    ct_tensor *ac = NULL, *bc = NULL, *r = NULL;
    /* uncoalesced inputs: PyTorch's merge walk, flag false */
    OK(ct_sparse_add(a, b, ct_scalar_int(2), &r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    expect_coo(r, 2, 4, (int64_t[]){0, 2, 0, 1, 1, 1, 1, 0}, CT_FLOAT32, (float[]){1, 22, 40, 60},
               4, false);
    ct_tensor_release(r);
    /* coalesced inputs give a coalesced result */
    OK(ct_sparse_coalesce(a, &ac));
    OK(ct_sparse_coalesce(b, &bc));
    OK(ct_sparse_add(ac, bc, ct_scalar_int(2), &r));
    expect_coo(r, 2, 3, (int64_t[]){0, 1, 2, 1, 0, 1}, CT_FLOAT32, (float[]){41, 60, 22}, 3, true);
    ct_tensor_release(r);
    /* s + s of an uncoalesced tensor merges element by element */
    ct_tensor *u = coo(tens(CT_INT64, SHAPE(1, 3), (int64_t[]){0, 1, 0}),
                       tens(CT_UINT8, SHAPE(3), (uint8_t[]){1, 1, 1}), SHAPE(2));
    OK(ct_sparse_add(u, u, ct_scalar_int(1), &r));
    expect_coo(r, 1, 3, (int64_t[]){0, 1, 0}, CT_UINT8, (uint8_t[]){2, 2, 2}, 3, false);
    ct_tensor_release(r);
    /* errors */
    ct_tensor *c = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
                       tens(CT_FLOAT32, SHAPE(2, 2), (float[]){1, 1, 1, 1}), SHAPE(2, 2));
    ct_tensor *e = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
                       tens(CT_FLOAT32, SHAPE(2), (float[]){1, 1}), SHAPE(3));
    ct_tensor *bo = NULL, *d = NULL;
    EXPECT_ERR(ct_sparse_add(a, e, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add: expected sizes of 'self' and 'other' to match, but [3, 2] != [3]");
    EXPECT_ERR(ct_sparse_add(bc, c, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add: expected sizes of 'self' and 'other' to match, but [3, 2] != [2, 2]");
    ct_tensor *c2 = coo(tens(CT_INT64, SHAPE(2, 2), (int64_t[]){0, 1, 0, 0}),
                        tens(CT_FLOAT32, SHAPE(2), (float[]){1, 2}), SHAPE(2, 2));
    EXPECT_ERR(ct_sparse_add(c2, c, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add: expected 'self' and 'other' to have same density, but 'self' has 2 sparse "
               "dimensions while 'other' has 1 sparse dimensions");
    EXPECT_ERR(ct_sparse_add(a, b, ct_scalar_bool(true), &r), CT_ERR_RUNTIME,
               "Boolean alpha only supported for Boolean results.");
    EXPECT_ERR(ct_sparse_add(a, a, ct_scalar_float(2.5), &r), CT_ERR_RUNTIME,
               "For integral input tensors, argument alpha must not be a floating point number.");
    EXPECT_ERR(ct_sparse_add(b, b, ct_scalar_complex(0, 1), &r), CT_ERR_RUNTIME,
               "For non-complex input tensors, argument alpha must not be a complex number.");
    OK(ct_sparse_to_dense(a, &d));
    EXPECT_ERR(ct_sparse_add(a, d, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
    EXPECT_ERR(ct_sparse_add(d, d, ct_scalar_int(1), &r), CT_ERR_NOT_IMPLEMENTED,
               "ct_sparse_add: neither operand is sparse (dense addition is not part of the "
               "sparse layer)");
    bo = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
             tens(CT_BOOL, SHAPE(2), (bool[]){true, true}), SHAPE(2));
    EXPECT_ERR(ct_sparse_add(bo, bo, ct_scalar_bool(true), &r), CT_ERR_NOT_IMPLEMENTED,
               "\"cadd_sparse\" not implemented for 'Bool'");
    ct_tensor *au8 = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
                         tens(CT_UINT8, SHAPE(2), (uint8_t[]){1, 1}), SHAPE(2));
    EXPECT_ERR(ct_sparse_add(au8, au8, ct_scalar_int(300), &r), CT_ERR_OVERFLOW,
               "value cannot be converted to type uint8_t without overflow");
    ct_tensor *meta = NULL, *mi = tens(CT_INT64, SHAPE(1, 0), NULL);
    ct_tensor *mv = tens(CT_UINT8, SHAPE(0), NULL);
    ct_sparse_coo_options o = CT_SPARSE_COO_OPTIONS_INIT;
    o.device = &META;
    OK(ct_sparse_coo_tensor(mi, mv, SHAPE(2), &o, &meta));
    ct_tensor_release(mi);
    ct_tensor_release(mv);
    EXPECT_ERR(ct_sparse_add(au8, meta, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cpu and meta!");
    assert_null(r);
    ct_tensor *all[] = {a, b, ac, bc, u, c, e, c2, d, bo, au8, meta};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

static void test_add_sparse_paths(void **state) {
    (void)state;
    ct_tensor *z = NULL, *r = NULL, *d = NULL;
    OK(ct_sparse_coo_zeros(SHAPE(2), 1, CT_UINT8, &CPU, &z));
    ct_tensor *a = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}),
                       tens(CT_UINT8, SHAPE(2), (uint8_t[]){1, 2}), SHAPE(2));
    /* self empty: other times alpha, with the unchecked cast PyTorch's mul makes */
    OK(ct_sparse_add(z, a, ct_scalar_int(300), &r));
    expect_coo(r, 1, 2, (int64_t[]){1, 0}, CT_UINT8, (uint8_t[]){44, 88}, 2, false);
    ct_tensor_release(r);
    /* other empty: a copy of self in the result dtype */
    ct_tensor *zf = NULL;
    OK(ct_sparse_coo_zeros(SHAPE(2), 1, CT_FLOAT64, &CPU, &zf));
    OK(ct_sparse_add(a, zf, ct_scalar_int(2), &r));
    expect_coo(r, 1, 2, (int64_t[]){1, 0}, CT_FLOAT64, (double[]){1, 2}, 2, false);
    ct_tensor_release(r);
    ct_tensor_release(a);
    ct_tensor_release(z);
    ct_tensor_release(zf);
    /* the multiplication by alpha in the values' own arithmetic */
    struct {
        ct_dtype dt;
        const void *vals, *want;
        ct_scalar alpha;
    } muls[] = {
        {CT_BOOL, (bool[]){true, false}, (bool[]){true, false}, ct_scalar_bool(true)},
        {CT_FLOAT16, (uint16_t[]){0x3C00, 0x4200},
         (uint16_t[]){0x2E66, 0x34CC}, /* 3 * half(0.1): a tie, to even */
         ct_scalar_float(0.1)},
        {CT_COMPLEX64, (float[]){1, 2, 3, 0}, (float[]){-2, 1, 0, 3}, ct_scalar_complex(0, 1)},
        {CT_COMPLEX32, (uint16_t[]){0x3C00, 0x4000, 0x4200, 0},
         (uint16_t[]){0xC000, 0x3C00, 0, 0x4200}, ct_scalar_complex(0, 1)},
    };
    for (size_t k = 0; k < sizeof muls / sizeof *muls; k++) {
        ct_tensor *zk = NULL;
        OK(ct_sparse_coo_zeros(SHAPE(2), 1, muls[k].dt, &CPU, &zk));
        a = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
                tens(muls[k].dt, SHAPE(2), muls[k].vals), SHAPE(2));
        OK(ct_sparse_add(zk, a, muls[k].alpha, &r));
        expect_coo(r, 1, 2, (int64_t[]){0, 1}, muls[k].dt, muls[k].want, 2, false);
        ct_tensor_release(r);
        ct_tensor_release(a);
        ct_tensor_release(zk);
    }
    /* meta: the copies need no data */
    ct_tensor *zm = NULL, *am = NULL, *ai = tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1});
    ct_tensor *av = tens(CT_INT32, SHAPE(2), (int32_t[]){1, 2});
    ct_sparse_coo_options om = CT_SPARSE_COO_OPTIONS_INIT;
    om.device = &META;
    OK(ct_sparse_coo_zeros(SHAPE(2), 1, CT_FLOAT32, &META, &zm));
    OK(ct_sparse_coo_tensor(ai, av, SHAPE(2), &om, &am));
    OK(ct_sparse_add(zm, am, ct_scalar_int(3), &r));
    assert_true(ct_tensor_is_meta(r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    ct_tensor_release(r);
    OK(ct_sparse_add(am, zm, ct_scalar_int(3), &r));
    assert_true(ct_tensor_is_meta(r));
    ct_tensor_release(r);
    EXPECT_ERR(ct_sparse_add(am, am, ct_scalar_int(3), &r), CT_ERR_NOT_IMPLEMENTED,
               "Cannot copy out of meta tensor; no data!");
    ct_tensor *ms[] = {zm, am, ai, av};
    for (size_t k = 0; k < sizeof ms / sizeof *ms; k++)
        ct_tensor_release(ms[k]);
    /* non-contiguous values: concatenation, coalesced when nnz > numel, flag false */
    ct_tensor *base = tens(CT_FLOAT32, SHAPE(4), (float[]){1, 9, -0.0f, 9});
    ct_tensor *view = NULL, *s = NULL, *s6 = NULL, *big = NULL;
    OK(ct_tensor_slice(base, 0, 0, CT_SLICE_END, 2, &view)); /* [1, -0.0] */
    s = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}), ct_tensor_retain(view), SHAPE(2));
    OK(ct_sparse_add(s, s, ct_scalar_int(1), &r));
    expect_coo(r, 1, 2, (int64_t[]){0, 1}, CT_FLOAT32, (float[]){-0.0f, 2}, 2, false);
    ct_tensor_release(r);
    ct_tensor *b = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){1}),
                       tens(CT_FLOAT32, SHAPE(1), (float[]){5}), SHAPE(2));
    OK(ct_sparse_add(b, s, ct_scalar_int(2), &r));
    expect_coo(r, 1, 2, (int64_t[]){0, 1}, CT_FLOAT32, (float[]){-0.0f, 7}, 2, false);
    ct_tensor_release(r);
    /* numel 6 >= nnz 3: the plain concatenation */
    big = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){5}), tens(CT_FLOAT32, SHAPE(1), (float[]){5}),
              SHAPE(6));
    s6 = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 0}), ct_tensor_retain(view), SHAPE(6));
    OK(ct_sparse_add(big, s6, ct_scalar_int(3), &r));
    expect_coo(r, 1, 3, (int64_t[]){5, 1, 0}, CT_FLOAT32, (float[]){5, 3, -0.0f}, 3, false);
    OK(ct_sparse_to_dense(r, &d));
    expect_data(d, CT_FLOAT32, (float[]){0, 3, 0, 0, 0, 5}, 6);
    ct_tensor_release(d);
    ct_tensor_release(r);
    ct_tensor *all[] = {base, view, s, b, big, s6};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

static void test_add_dense(void **state) {
    (void)state;
    ct_tensor *b = coo(tens(CT_INT64, SHAPE(2, 3), (int64_t[]){2, 0, 1, 1, 1, 0}),
                       tens(CT_FLOAT32, SHAPE(3), (float[]){10, 20, 30}), SHAPE(3, 2));
    ct_tensor *d = tens(CT_FLOAT32, SHAPE(3, 2), (float[]){0, 1, 2, 3, 4, 5});
    ct_tensor *r = NULL, *x = NULL;
    OK(ct_sparse_add(d, b, ct_scalar_int(-1), &r));
    expect_data(r, CT_FLOAT32, (float[]){0, -19, -28, 3, 4, -5}, 6);
    ct_tensor_release(r);
    /* promotion: int32 dense + float32 sparse -> float32; the input is not written */
    ct_tensor *di = tens(CT_INT32, SHAPE(3, 2), (int32_t[]){1, 1, 1, 1, 1, 1});
    OK(ct_sparse_add(di, b, ct_scalar_int(1), &r));
    expect_data(r, CT_FLOAT32, (float[]){1, 21, 31, 1, 1, 11}, 6);
    expect_data(di, CT_INT32, (int32_t[]){1, 1, 1, 1, 1, 1}, 6);
    ct_tensor_release(r);
    /* dense dims; transposed dense input */
    ct_tensor *s = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){1, 1}),
                       tens(CT_FLOAT32, SHAPE(2, 2), (float[]){1, 2, 3, 4}), SHAPE(2, 2));
    ct_tensor *t = NULL;
    OK(ct_tensor_t(d, &x)); /* 2x3 */
    EXPECT_ERR(ct_sparse_add(x, s, ct_scalar_int(1), &r), CT_ERR_RUNTIME,
               "add: expected 'self' and 'other' to have same size, but self has size [2, 3] "
               "while other has size [2, 2] (FYI: dense-sparse addition does not currently "
               "support broadcasting)");
    ct_tensor_release(x);
    ct_tensor *sq = tens(CT_FLOAT32, SHAPE(2, 2), (float[]){1, 2, 3, 4});
    OK(ct_tensor_t(sq, &t));
    OK(ct_sparse_add(t, s, ct_scalar_int(1), &r));
    assert_true(ct_tensor_is_contiguous(r, CT_MEMFMT_CONTIGUOUS));
    expect_data(r, CT_FLOAT32, (float[]){1, 3, 6, 10}, 4);
    ct_tensor_release(r);
    /* dense uint8 + sparse with alpha out of range */
    ct_tensor *u = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){0}),
                       tens(CT_UINT8, SHAPE(1), (uint8_t[]){1}), SHAPE(2));
    ct_tensor *du = tens(CT_UINT8, SHAPE(2), (uint8_t[]){1, 1});
    EXPECT_ERR(ct_sparse_add(du, u, ct_scalar_int(300), &r), CT_ERR_OVERFLOW,
               "value cannot be converted to type uint8_t without overflow");
    OK(ct_sparse_add(du, u, ct_scalar_int(255), &r));
    expect_data(r, CT_UINT8, (uint8_t[]){0, 1}, 2);
    ct_tensor_release(r);
    /* npu and meta */
    ct_tensor *dn = NULL, *sn = NULL, *dm = NULL, *sm = NULL;
    OK(ct_tensor_to_device(d, NPU, &dn));
    ct_sparse_coo_options o = CT_SPARSE_COO_OPTIONS_INIT;
    o.device = &NPU;
    ct_tensor *bi = NULL, *bv = NULL;
    OK(ct_sparse_raw_indices(b, &bi));
    OK(ct_sparse_raw_values(b, &bv));
    OK(ct_sparse_coo_tensor(bi, bv, SHAPE(3, 2), &o, &sn));
    OK(ct_sparse_add(dn, sn, ct_scalar_int(-1), &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_PRIVATEUSEONE);
    expect_data(r, CT_FLOAT32, (float[]){0, -19, -28, 3, 4, -5}, 6);
    ct_tensor_release(r);
    o.device = &META;
    OK(ct_sparse_coo_tensor(bi, bv, SHAPE(3, 2), &o, &sm));
    OK(ct_tensor_to_device(di, META, &dm));
    OK(ct_sparse_add(dm, sm, ct_scalar_int(1), &r));
    assert_true(ct_tensor_is_meta(r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_sizes(r, 3, 2);
    ct_tensor_release(r);
    ct_tensor *all[] = {b, d, di, s, sq, t, u, du, dn, sn, dm, sm, bi, bv};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

/* dense + sparse follows PyTorch's choice of loop, which decides what complex32 supports */
static void test_add_dense_paths(void **state) {
    (void)state;
    ct_tensor *d = NULL, *r = NULL;
    OK(ct_tensor_ones(SHAPE(2), CT_COMPLEX32, &CPU, CT_LAYOUT_STRIDED, &d));
    uint16_t one[2] = {0x3C00, 0}, two[4] = {0x3C00, 0, 0x3C00, 0};
    /* coalesced, no dense dim: scalar arithmetic, fine */
    ct_tensor *s1 = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){1}),
                        tens(CT_COMPLEX32, SHAPE(1), one), SHAPE(2));
    OK(ct_sparse_add(d, s1, ct_scalar_int(1), &r));
    expect_data(r, CT_COMPLEX32, (uint16_t[]){0x3C00, 0, 0x4000, 0}, 2);
    ct_tensor_release(r);
    /* uncoalesced: the per-column loop uses cpublas axpy */
    ct_tensor *s2 = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}),
                        tens(CT_COMPLEX32, SHAPE(2), two), SHAPE(2));
    EXPECT_ERR(ct_sparse_add(d, s2, ct_scalar_int(1), &r), CT_ERR_NOT_IMPLEMENTED,
               "\"cpublas_axpy_impl\" not implemented for 'ComplexHalf'");
    /* non-contiguous values: coalesce, then the dense add kernel, fine */
    ct_tensor *v4 = tens(CT_COMPLEX32, SHAPE(4), (uint16_t[]){0x3C00, 0, 0, 0, 0x3C00, 0, 0, 0});
    ct_tensor *v2 = NULL;
    OK(ct_tensor_slice(v4, 0, 0, CT_SLICE_END, 2, &v2));
    ct_tensor *s3 = coo(tens(CT_INT64, SHAPE(1, 2), (int64_t[]){0, 1}), v2, SHAPE(2));
    OK(ct_sparse_add(d, s3, ct_scalar_int(2), &r));
    expect_data(r, CT_COMPLEX32, (uint16_t[]){0x4200, 0, 0x4200, 0}, 2);
    ct_tensor_release(r);
    /* dense dims: cpublas axpy again */
    ct_tensor *d2 = NULL;
    OK(ct_tensor_ones(SHAPE(2, 1), CT_COMPLEX32, &CPU, CT_LAYOUT_STRIDED, &d2));
    ct_tensor *s4 = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){1}),
                        tens(CT_COMPLEX32, SHAPE(1, 1), one), SHAPE(2, 1));
    EXPECT_ERR(ct_sparse_add(d2, s4, ct_scalar_int(1), &r), CT_ERR_NOT_IMPLEMENTED,
               "\"cpublas_axpy_impl\" not implemented for 'ComplexHalf'");
    /* newest-only dtypes have no loop */
    ct_tensor *du = tens(CT_UINT16, SHAPE(2), (uint16_t[]){1, 1});
    ct_tensor *su = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){1}),
                        tens(CT_UINT16, SHAPE(1), (uint16_t[]){1}), SHAPE(2));
    EXPECT_ERR(ct_sparse_add(du, su, ct_scalar_int(1), &r), CT_ERR_NOT_IMPLEMENTED,
               "\"add_dense_sparse_non_hybrid\" not implemented for 'UInt16'");
    /* bfloat16 arithmetic makes every NaN 0x7FC0 (c10's rounding), a payload included */
    ct_tensor *sb = coo(tens(CT_INT64, SHAPE(1, 1), (int64_t[]){0}),
                        tens(CT_BFLOAT16, SHAPE(1), (uint16_t[]){0x7FC1}), SHAPE(1));
    OK(ct_sparse_to_dense(sb, &r));
    expect_data(r, CT_BFLOAT16, (uint16_t[]){0x7FC0}, 1);
    ct_tensor_release(r);
    ct_tensor *all[] = {d, s1, s2, v4, s3, d2, s4, du, su, sb};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

/* ---- allocation failures ---- */

static ct_tensor *f_ind, *f_val, *f_sparse, *f_sparse_nc, *f_dense, *f_npu, *f_dense_npu;

static ct_status op_create(ct_tensor **o) {
    return ct_sparse_coo_tensor(f_ind, f_val, SHAPE(3, 4, 2), NULL, o);
}
static ct_status op_create_infer_npu(ct_tensor **o) {
    ct_sparse_coo_options opt = CT_SPARSE_COO_OPTIONS_INIT;
    opt.device = &NPU;
    opt.dtype = CT_FLOAT64;
    return ct_sparse_coo_tensor(f_ind, f_val, NULL, CT_SPARSE_INFER_SIZE, &opt, o);
}
static ct_status op_zeros(ct_tensor **o) {
    return ct_sparse_coo_zeros(SHAPE(2, 3, 4), 2, CT_INT8, &NPU, o);
}
static ct_status op_coalesce(ct_tensor **o) { return ct_sparse_coalesce(f_sparse, o); }
static ct_status op_coalesce_npu(ct_tensor **o) { return ct_sparse_coalesce(f_npu, o); }
static ct_status op_to_dense(ct_tensor **o) { return ct_sparse_to_dense(f_sparse, o); }
static ct_status op_to_dense_npu(ct_tensor **o) { return ct_sparse_to_dense(f_npu, o); }
static ct_status op_to_sparse(ct_tensor **o) { return ct_sparse_to_sparse_dim(f_dense, 2, o); }
static ct_status op_to_sparse_npu(ct_tensor **o) { return ct_sparse_to_sparse(f_dense_npu, o); }
static ct_status op_add_merge(ct_tensor **o) {
    return ct_sparse_add(f_sparse, f_sparse, ct_scalar_int(2), o);
}
static ct_status op_add_merge_npu(ct_tensor **o) {
    return ct_sparse_add(f_npu, f_npu, ct_scalar_int(-1), o);
}
static ct_status op_add_concat(ct_tensor **o) {
    return ct_sparse_add(f_sparse_nc, f_sparse_nc, ct_scalar_int(3), o);
}
static ct_status op_add_dense(ct_tensor **o) {
    return ct_sparse_add(f_dense, f_sparse, ct_scalar_int(2), o);
}
static ct_status op_add_dense_npu(ct_tensor **o) {
    return ct_sparse_add(f_dense_npu, f_npu, ct_scalar_int(1), o);
}
static ct_status op_indices(ct_tensor **o) {
    ct_tensor *c = NULL;
    CT_TRY(ct_sparse_coalesce(f_sparse, &c));
    ct_status st = ct_sparse_indices(c, o);
    ct_tensor_release(c);
    return st;
}

static void test_faults(void **state) {
    (void)state;
    f_ind = tens(CT_INT64, SHAPE(2, 4), (int64_t[]){2, 0, 2, 1, 3, 1, 3, 0});
    f_val = tens(CT_FLOAT32, SHAPE(4, 2), (float[]){1, 2, 3, 4, 5, 6, 7, 8});
    OK(ct_sparse_coo_tensor(f_ind, f_val, SHAPE(3, 4, 2), NULL, &f_sparse));
    ct_tensor *wide = NULL, *sl = NULL;
    OK(ct_tensor_zeros(SHAPE(4, 4), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &wide));
    OK(ct_tensor_slice(wide, 1, 0, CT_SLICE_END, 2, &sl));
    OK(ct_sparse_coo_tensor(f_ind, sl, SHAPE(3, 4, 2), NULL, &f_sparse_nc));
    ct_tensor_release(sl);
    ct_tensor_release(wide);
    OK(ct_sparse_to_dense(f_sparse, &f_dense));
    ct_sparse_coo_options o = CT_SPARSE_COO_OPTIONS_INIT;
    o.device = &NPU;
    OK(ct_sparse_coo_tensor(f_ind, f_val, SHAPE(3, 4, 2), &o, &f_npu));
    OK(ct_tensor_to_device(f_dense, NPU, &f_dense_npu));
    struct {
        const char *name;
        op_fn fn;
    } ops[] = {
        {"create", op_create},
        {"create infer npu", op_create_infer_npu},
        {"zeros", op_zeros},
        {"coalesce", op_coalesce},
        {"coalesce npu", op_coalesce_npu},
        {"to_dense", op_to_dense},
        {"to_dense npu", op_to_dense_npu},
        {"to_sparse", op_to_sparse},
        {"to_sparse npu", op_to_sparse_npu},
        {"add merge", op_add_merge},
        {"add merge npu", op_add_merge_npu},
        {"add concat", op_add_concat},
        {"add dense", op_add_dense},
        {"add dense npu", op_add_dense_npu},
        {"indices", op_indices},
    };
    int total = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int k = fault_loop(ops[i].name, ops[i].fn);
        if (k == 0)
            fail_msg("%s: allocates nothing?", ops[i].name);
        total += k;
    }
    print_message("%d allocation failures injected\n", total);
    ct_tensor *all[] = {f_ind, f_val, f_sparse, f_sparse_nc, f_dense, f_npu, f_dense_npu};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        ct_tensor_release(all[k]);
}

int main(void) {
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_create_infer),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_create_devices),
        cmocka_unit_test(test_dense_accessors),
        cmocka_unit_test(test_coalesce),
        cmocka_unit_test(test_coalesce_devices),
        cmocka_unit_test(test_to_sparse),
        cmocka_unit_test(test_add_sparse),
        cmocka_unit_test(test_add_sparse_paths),
        cmocka_unit_test(test_add_dense),
        cmocka_unit_test(test_add_dense_paths),
        cmocka_unit_test(test_faults),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, setup, teardown);
}
