/* Joining and splitting (join.h) and the value factories (range.h): cat's promotion,
 * skipped (0,) inputs, dim wrapping, memory format and messages; out= (cast check, resize
 * with its warning, overlap); stack; split/chunk/unbind/unflatten/movedim views and their
 * errors; devices (meta, a host-emulated device, one without host access); linspace,
 * logspace and eye; the threaded row loop on every thread count; allocation failures.
 * Expected values and messages were checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/backend.h"
#include "ctensor/join.h"
#include "ctensor/parallel.h"
#include "ctensor/range.h"
#include "ctensor/warning.h"
#include "tensor_test_util.h"

#include "fault_loop.h"
#include "warning_capture.h"

#define VALS(...) ((const double[]){__VA_ARGS__})
#define NV(...) ((int64_t)(sizeof(VALS(__VA_ARGS__)) / sizeof(double)))

/* arange(n) shaped, as dtype dt. */
static ct_tensor *ar(ct_dtype dt, const int64_t *sizes, int64_t nd) {
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++)
        n *= sizes[d];
    ct_tensor *a = NULL, *r = NULL;
    OK(ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(n), ct_scalar_int(1), CT_FLOAT64, &CPU,
                        CT_LAYOUT_STRIDED, &a));
    OK(ct_tensor_reshape(a, sizes, nd, &r));
    ct_tensor_release(a);
    OK(ct_tensor_to(r, dt, NULL, true, CT_MEMFMT_CONTIGUOUS, &a));
    ct_tensor_release(r);
    return a;
}

static void expect(const ct_tensor *t, ct_dtype dt, const double *want, int64_t n) {
    assert_non_null(t);
    if (ct_tensor_dtype(t) != dt)
        fail_msg("dtype %s, want %s", ct_dtype_name(ct_tensor_dtype(t)), ct_dtype_name(dt));
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    assert_int_equal(ct_tensor_numel(d), n);
    const double *got = ct_tensor_data_ptr(d);
    for (int64_t i = 0; i < n; i++)
        if (!((isnan(got[i]) && isnan(want[i])) || got[i] == want[i]))
            fail_msg("element %d: got %.17g, want %.17g", (int)i, got[i], want[i]);
    ct_tensor_release(d);
}
#define EXPECT(t, dt, ...) expect(t, dt, VALS(__VA_ARGS__), NV(__VA_ARGS__))

#define LIST(...) ((const ct_tensor *const[]){__VA_ARGS__})
#define NL(...) (sizeof((const ct_tensor *const[]){__VA_ARGS__}) / sizeof(ct_tensor *))

static void test_cat_basics(void **state) {
    (void)state;
    ct_tensor *a = ar(CT_FLOAT32, SHAPE(2, 2)), *b = ar(CT_INT32, SHAPE(1, 2)), *r = NULL;
    OK(ct_tensor_cat(LIST(a, b), 2, 0, &r));
    assert_sizes(r, 3, 2);
    assert_strides(r, 2, 1);
    EXPECT(r, CT_FLOAT32, 0, 1, 2, 3, 0, 1);
    ct_tensor_release(r);
    ct_tensor *c = ar(CT_FLOAT64, SHAPE(2, 1));
    OK(ct_tensor_cat(LIST(a, c, a), 3, -1, &r));
    assert_sizes(r, 2, 5);
    EXPECT(r, CT_FLOAT64, 0, 1, 0, 0, 1, 2, 3, 1, 2, 3);
    ct_tensor_release(r);
    /* (0,)-shaped inputs are skipped but promote; the dim wraps against the others */
    ct_tensor *e = NULL, *e2 = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_COMPLEX64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e));
    OK(ct_tensor_cat(LIST(e, a), 2, 1, &r));
    assert_sizes(r, 2, 2);
    EXPECT(r, CT_COMPLEX64, 0, 1, 2, 3);
    ct_tensor_release(r);
    OK(ct_tensor_cat(LIST(e, e), 2, 7, &r)); /* every input skipped: no dim check */
    assert_sizes(r, 0);
    ct_tensor_release(r);
    OK(ct_tensor_empty(SHAPE(2, 0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &e2));
    EXPECT_ERR(ct_tensor_cat(LIST(a, e2), 2, 0, &r), CT_ERR_RUNTIME,
               "Sizes of tensors must match except in dimension 0. Expected size 2 but got size "
               "0 for tensor number 1 in the list.");
    assert_null(r);
    EXPECT_ERR(ct_tensor_cat(LIST(a, c), 2, 0, &r), CT_ERR_RUNTIME,
               "Sizes of tensors must match except in dimension 0. Expected size 2 but got size "
               "1 for tensor number 1 in the list.");
    EXPECT_ERR(ct_tensor_cat(NULL, 0, 0, &r), CT_ERR_RUNTIME,
               "torch.cat(): expected a non-empty list of Tensors");
    EXPECT_ERR(ct_tensor_cat(LIST(a, a), 2, 2, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    ct_tensor *s = NULL, *v = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_float(1.0), CT_FLOAT32, &CPU, &s));
    EXPECT_ERR(ct_tensor_cat(LIST(a, s), 2, 0, &r), CT_ERR_RUNTIME,
               "zero-dimensional tensor (at position 1) cannot be concatenated");
    OK(ct_tensor_unsqueeze(a, 0, &v));
    EXPECT_ERR(ct_tensor_cat(LIST(a, v), 2, 0, &r), CT_ERR_RUNTIME,
               "Tensors must have same number of dimensions: got 2 and 3");
    EXPECT_ERR(ct_tensor_cat(LIST(a, NULL), 2, 0, &r), CT_ERR_MISUSE,
               "ct_tensor_cat: tensor is NULL");
    ct_tensor_release(v);
    ct_tensor_release(s);
    ct_tensor_release(e2);
    ct_tensor_release(e);
    ct_tensor_release(c);
    ct_tensor_release(b);
    ct_tensor_release(a);
}

static void test_cat_layouts(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(2, 3, 2, 2)), *cl = NULL, *r = NULL, *t = NULL;
    OK(ct_tensor_contiguous(x, CT_MEMFMT_CHANNELS_LAST, &cl));
    OK(ct_tensor_cat(LIST(cl, cl), 2, 1, &r));
    assert_sizes(r, 2, 6, 2, 2);
    assert_strides(r, 24, 1, 12, 6);
    ct_tensor *ref = NULL;
    OK(ct_tensor_cat(LIST(x, x), 2, 1, &ref)); /* the same values in another layout */
    assert_strides(ref, 24, 4, 2, 1);
    ct_tensor *rc = NULL;
    OK(ct_tensor_contiguous(r, CT_MEMFMT_CONTIGUOUS, &rc));
    assert_memory_equal(ct_tensor_data_ptr(rc), ct_tensor_data_ptr(ref), 48 * sizeof(float));
    ct_tensor_release(rc);
    ct_tensor_release(r);
    OK(ct_tensor_cat(LIST(cl, x), 2, 1, &r)); /* formats differ: contiguous */
    assert_strides(r, 24, 4, 2, 1);
    assert_memory_equal(ct_tensor_data_ptr(r), ct_tensor_data_ptr(ref), 48 * sizeof(float));
    ct_tensor_release(r);
    /* transposed and expanded inputs */
    ct_tensor *m = ar(CT_INT64, SHAPE(3, 2)), *ex = NULL, *row = NULL;
    OK(ct_tensor_t(m, &t));
    OK(ct_tensor_select(m, 0, 1, &row));
    OK(ct_tensor_expand(row, SHAPE(2, 2), &ex));
    OK(ct_tensor_cat(LIST(t, ex), 2, 1, &r));
    assert_sizes(r, 2, 5);
    EXPECT(r, CT_INT64, 0, 2, 4, 2, 3, 1, 3, 5, 2, 3);
    ct_tensor_release(r);
    ct_tensor_release(ex);
    ct_tensor_release(row);
    ct_tensor_release(t);
    ct_tensor_release(m);
    ct_tensor_release(ref);
    ct_tensor_release(cl);
    ct_tensor_release(x);
}

static void test_cat_out(void **state) {
    (void)state;
    ct_set_warning_handler(on_warning, NULL);
    ct_tensor *a = ar(CT_FLOAT32, SHAPE(2, 2)), *o = NULL, *oi = NULL;
    OK(ct_tensor_zeros(SHAPE(1), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &o));
    nwarnings = 0;
    OK(ct_tensor_cat_out(LIST(a, a), 2, 0, o));
    assert_int_equal(nwarnings, 1);
    assert_sizes(o, 4, 2);
    EXPECT(o, CT_FLOAT64, 0, 1, 2, 3, 0, 1, 2, 3);
    OK(ct_tensor_cat_out(LIST(a, a), 2, 0, o)); /* the right shape: no warning */
    assert_int_equal(nwarnings, 1);
    OK(ct_tensor_zeros(SHAPE(4, 2), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &oi));
    EXPECT_ERR(ct_tensor_cat_out(LIST(a, a), 2, 0, oi), CT_ERR_RUNTIME,
               "torch.cat(): input types can't be cast to the desired output type Int");
    /* out overlapping an input */
    ct_tensor *half = NULL;
    OK(ct_tensor_narrow(o, 0, 0, 2, &half));
    EXPECT_ERR(ct_tensor_cat_out(LIST(half, a), 2, 0, o), CT_ERR_RUNTIME,
               "unsupported operation: some elements of the input tensor and the written-to "
               "tensor refer to a single memory location. Please clone() the tensor before "
               "performing the operation.");
    ct_tensor *meta_out = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &meta_out));
    EXPECT_ERR(ct_tensor_cat_out(LIST(a, a), 2, 0, meta_out), CT_ERR_RUNTIME,
               "Expected out tensor to have device cpu, but got meta instead");
    /* stack into out */
    ct_tensor *so = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &so));
    OK(ct_tensor_stack_out(LIST(a, a), 2, 2, so));
    assert_sizes(so, 2, 2, 2);
    EXPECT(so, CT_FLOAT32, 0, 0, 1, 1, 2, 2, 3, 3);
    ct_tensor_release(so);
    ct_tensor_release(meta_out);
    ct_tensor_release(half);
    ct_tensor_release(oi);
    ct_tensor_release(o);
    ct_tensor_release(a);
    ct_set_warning_handler(NULL, NULL);
}

static void test_stack(void **state) {
    (void)state;
    ct_tensor *a = ar(CT_FLOAT32, SHAPE(2, 3)), *b = ar(CT_INT8, SHAPE(2, 3)), *r = NULL;
    OK(ct_tensor_stack(LIST(a, b), 2, 0, &r));
    assert_sizes(r, 2, 2, 3);
    assert_strides(r, 6, 3, 1);
    ct_tensor_release(r);
    OK(ct_tensor_stack(LIST(a, b), 2, -1, &r));
    assert_sizes(r, 2, 3, 2);
    EXPECT(r, CT_FLOAT32, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5);
    ct_tensor_release(r);
    ct_tensor *c = ar(CT_FLOAT32, SHAPE(3, 3));
    EXPECT_ERR(ct_tensor_stack(LIST(a, c), 2, 0, &r), CT_ERR_RUNTIME,
               "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and "
               "[3, 3] at entry 1");
    EXPECT_ERR(ct_tensor_stack(NULL, 0, 0, &r), CT_ERR_RUNTIME,
               "stack expects a non-empty TensorList");
    EXPECT_ERR(ct_tensor_stack(LIST(a, a), 2, 3, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ct_tensor *s = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_int(4), CT_INT64, &CPU, &s));
    OK(ct_tensor_stack(LIST(s, s, s), 3, 0, &r));
    assert_sizes(r, 3);
    EXPECT(r, CT_INT64, 4, 4, 4);
    ct_tensor_release(r);
    ct_tensor_release(s);
    ct_tensor_release(c);
    ct_tensor_release(b);
    ct_tensor_release(a);
}

static void test_split_views(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(5, 4)), **l = NULL;
    int64_t n = 0;
    OK(ct_tensor_split(x, 2, 0, &l, &n));
    assert_int_equal(n, 3);
    assert_sizes(l[2], 1, 4);
    assert_int_equal(ct_tensor_storage_offset(l[2]), 16);
    assert_ptr_equal(ct_tensor_storage(l[1]), ct_tensor_storage(x));
    ct_tensor_list_release(l, n);
    OK(ct_tensor_split_with_sizes(x, ARR(1, 0, 3), 3, -1, &l, &n));
    assert_int_equal(n, 3);
    assert_sizes(l[2], 5, 3);
    assert_int_equal(ct_tensor_storage_offset(l[2]), 1);
    ct_tensor_list_release(l, n);
    EXPECT_ERR(ct_tensor_split_with_sizes(x, ARR(1, 1), 2, 0, &l, &n), CT_ERR_RUNTIME,
               "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at "
               "dimension 0), but got split_sizes=[1, 1]");
    assert_null(l);
    assert_int_equal(n, 0);
    EXPECT_ERR(ct_tensor_split(x, 0, 0, &l, &n), CT_ERR_RUNTIME,
               "split_size can only be 0 if dimension size is 0, but got dimension size of 5");
    EXPECT_ERR(ct_tensor_split(x, -1, 0, &l, &n), CT_ERR_RUNTIME,
               "split expects split_size be non-negative, but got split_size=-1");
    OK(ct_tensor_chunk(x, 3, 1, &l, &n)); /* ceil(4 / 3) = 2: two pieces */
    assert_int_equal(n, 2);
    ct_tensor_list_release(l, n);
    EXPECT_ERR(ct_tensor_chunk(x, 0, 1, &l, &n), CT_ERR_RUNTIME,
               "chunk expects `chunks` to be greater than 0, got: 0");
    ct_tensor *z = NULL;
    OK(ct_tensor_empty(SHAPE(0, 2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &z));
    OK(ct_tensor_chunk(z, 3, 0, &l, &n));
    assert_int_equal(n, 3);
    ct_tensor_list_release(l, n);
    OK(ct_tensor_unbind(z, 0, &l, &n));
    assert_int_equal(n, 0);
    ct_tensor_list_release(l, n);
    OK(ct_tensor_unbind(x, 1, &l, &n));
    assert_int_equal(n, 4);
    assert_sizes(l[3], 5);
    assert_strides(l[3], 4);
    assert_int_equal(ct_tensor_storage_offset(l[3]), 3);
    ct_tensor_list_release(l, n);
    ct_tensor *s = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_int(4), CT_INT64, &CPU, &s));
    EXPECT_ERR(ct_tensor_unbind(s, 0, &l, &n), CT_ERR_INDEX,
               "Dimension specified as 0 but tensor has no dimensions");
    EXPECT_ERR(ct_tensor_unbind(s, 1, &l, &n), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    EXPECT_ERR(ct_tensor_split(s, 1, 0, &l, &n), CT_ERR_RUNTIME,
               "split expects at least a 1-dimensional tensor");
    /* unflatten, movedim */
    ct_tensor *u = NULL;
    OK(ct_tensor_unflatten(x, 1, ARR(2, -1), 2, &u));
    assert_sizes(u, 5, 2, 2);
    assert_strides(u, 4, 2, 1);
    ct_tensor_release(u);
    EXPECT_ERR(ct_tensor_unflatten(x, 0, ARR(2, 2), 2, &u), CT_ERR_RUNTIME,
               "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 0 (5) in "
               "the input tensor");
    EXPECT_ERR(ct_tensor_unflatten(x, 0, NULL, 0, &u), CT_ERR_RUNTIME,
               "unflatten: sizes must be non-empty");
    ct_tensor *y = ar(CT_FLOAT32, SHAPE(2, 3, 4));
    OK(ct_tensor_movedim(y, ARR(0, 1), 2, ARR(2, 0), 2, &u));
    assert_sizes(u, 3, 4, 2);
    assert_strides(u, 4, 1, 12);
    ct_tensor_release(u);
    EXPECT_ERR(ct_tensor_movedim(y, ARR(0, 1), 2, ARR(0), 1, &u), CT_ERR_RUNTIME,
               "movedim: Invalid source or destination dims: source ([0, 1] dims) should "
               "contain the same number of dims as destination ([0] dims)");
    EXPECT_ERR(ct_tensor_movedim(y, ARR(0, -3), 2, ARR(0, 1), 2, &u), CT_ERR_RUNTIME,
               "movedim: repeated dim in `source` ([0, -3])");
    EXPECT_ERR(ct_tensor_movedim(y, ARR(0, 1), 2, ARR(1, 1), 2, &u), CT_ERR_RUNTIME,
               "movedim: repeated dim in `destination` ([1, 1])");
    EXPECT_ERR(ct_tensor_movedim(y, ARR(3), 1, ARR(1), 1, &u), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ct_tensor_release(y);
    ct_tensor_release(s);
    ct_tensor_release(z);
    ct_tensor_release(x);
}

static void test_devices(void **state) {
    (void)state;
    ct_tensor *m = NULL, *r = NULL, *a = ar(CT_FLOAT32, SHAPE(2, 2));
    OK(ct_tensor_empty(SHAPE(2, 2), CT_FLOAT16, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &m));
    OK(ct_tensor_cat(LIST(m, m), 2, 0, &r));
    assert_true(ct_tensor_is_meta(r));
    assert_sizes(r, 4, 2);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_cat(LIST(a, m), 2, 0, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cpu and meta!");
    /* a host-emulated device */
    OK(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 1));
    ct_device cu = {CT_DEVICE_CUDA, 0};
    ct_tensor *ac = NULL, *bc = NULL, *b = ar(CT_INT16, SHAPE(2, 1));
    OK(ct_tensor_to_device(a, cu, &ac));
    OK(ct_tensor_to_device(b, cu, &bc));
    OK(ct_tensor_cat(LIST(ac, bc), 2, 1, &r));
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_CUDA);
    EXPECT(r, CT_FLOAT32, 0, 1, 0, 2, 3, 1);
    ct_tensor_release(r);
    ct_tensor_release(bc);
    ct_tensor_release(ac);
    OK(ct_backend_unregister(CT_DEVICE_CUDA));
    /* a device without host access: through the copy path's staging */
    ct_backend be;
    OK(ct_backend_host_emulated(CT_DEVICE_XPU, 1, &be));
    be.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    OK(ct_backend_register(&be));
    ct_device xpu = {CT_DEVICE_XPU, 0};
    OK(ct_tensor_to_device(a, xpu, &ac));
    OK(ct_tensor_to_device(b, xpu, &bc));
    OK(ct_tensor_cat(LIST(ac, bc, ac), 3, 1, &r));
    EXPECT(r, CT_FLOAT32, 0, 1, 0, 0, 1, 2, 3, 1, 2, 3);
    ct_tensor_release(r);
    ct_tensor_release(bc);
    ct_tensor_release(ac);
    OK(ct_backend_unregister(CT_DEVICE_XPU));
    ct_tensor_release(b);
    ct_tensor_release(a);
    ct_tensor_release(m);
}

/* The row loop on large inputs: the same bytes for 1, 2 and 3 threads, mixed dtypes too. */
static void test_threads(void **state) {
    (void)state;
    ct_tensor *a = ar(CT_FLOAT32, SHAPE(300, 700)), *b = ar(CT_INT32, SHAPE(300, 500));
    ct_tensor *r[3] = {NULL, NULL, NULL};
    int saved = ct_get_num_threads();
    for (int k = 0; k < 3; k++) {
        OK(ct_set_num_threads(k + 1));
        OK(ct_tensor_cat(LIST(a, b, a), 3, 1, &r[k]));
    }
    OK(ct_set_num_threads(saved));
    const float *v = ct_tensor_data_ptr(r[0]);
    assert_true(v[700] == 0.0f && v[699] == 699.0f && v[1900] == 700.0f);
    for (int k = 1; k < 3; k++)
        assert_memory_equal(ct_tensor_data_ptr(r[k]), v, 300 * 1900 * sizeof(float));
    for (int k = 0; k < 3; k++)
        ct_tensor_release(r[k]);
    ct_tensor_release(b);
    ct_tensor_release(a);
}

static void test_ranges(void **state) {
    (void)state;
    ct_tensor *r = NULL;
    OK(ct_tensor_linspace(ct_scalar_int(0), ct_scalar_int(10), 4, CT_INT64, NULL, CT_LAYOUT_STRIDED,
                          &r));
    EXPECT(r, CT_INT64, 0, 3, 6, 10);
    ct_tensor_release(r);
    OK(ct_tensor_linspace(ct_scalar_float(-1), ct_scalar_float(1), 5, CT_DTYPE_UNDEFINED, NULL,
                          CT_LAYOUT_STRIDED, &r));
    EXPECT(r, CT_FLOAT32, -1, -0.5, 0, 0.5, 1);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_linspace(ct_scalar_int(0), ct_scalar_int(1), -1, CT_FLOAT32, NULL,
                                  CT_LAYOUT_STRIDED, &r),
               CT_ERR_RUNTIME, "number of steps must be non-negative");
    EXPECT_ERR(ct_tensor_linspace(ct_scalar_int(0), ct_scalar_int(1), 3, CT_BOOL, NULL,
                                  CT_LAYOUT_STRIDED, &r),
               CT_ERR_NOT_IMPLEMENTED, "\"linspace_cpu\" not implemented for 'Bool'");
    OK(ct_tensor_logspace(ct_scalar_int(0), ct_scalar_int(3), 4, 2.0, CT_INT32, NULL,
                          CT_LAYOUT_STRIDED, &r));
    EXPECT(r, CT_INT32, 1, 2, 4, 8);
    ct_tensor_release(r);
    OK(ct_tensor_eye(2, 3, CT_INT8, NULL, CT_LAYOUT_STRIDED, &r));
    EXPECT(r, CT_INT8, 1, 0, 0, 0, 1, 0);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_eye(2, -1, CT_INT8, NULL, CT_LAYOUT_STRIDED, &r), CT_ERR_RUNTIME,
               "m must be greater or equal to 0, got -1");
    OK(ct_tensor_eye(3, 3, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, &r));
    assert_true(ct_tensor_is_meta(r));
    ct_tensor_release(r);
}

static ct_tensor *fa, *fb;
static ct_status f_cat(ct_tensor **out) { return ct_tensor_cat(LIST(fa, fb, fa), 3, 1, out); }
static ct_status f_stack(ct_tensor **out) { return ct_tensor_stack(LIST(fa, fa), 2, 2, out); }
static ct_status f_split(ct_tensor **out) {
    ct_tensor **l = NULL;
    int64_t n = 0;
    ct_status st = ct_tensor_chunk(fa, 2, 1, &l, &n);
    if (st == CT_OK) {
        *out = ct_tensor_retain(l[0]);
        ct_tensor_list_release(l, n);
    }
    return st;
}
static ct_status f_linspace(ct_tensor **out) {
    return ct_tensor_linspace(ct_scalar_int(0), ct_scalar_int(9), 40, CT_FLOAT16, NULL,
                              CT_LAYOUT_STRIDED, out);
}
static ct_status f_eye(ct_tensor **out) {
    return ct_tensor_eye(3, 4, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, out);
}

static void test_fault_injection(void **state) {
    (void)state;
    fa = ar(CT_FLOAT32, SHAPE(3, 4));
    fb = ar(CT_INT32, SHAPE(3, 2));
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("cat", f_cat) > 0);
    assert_true(fault_loop("stack", f_stack) > 0);
    assert_true(fault_loop("chunk", f_split) > 0);
    assert_true(fault_loop("linspace", f_linspace) > 0);
    assert_true(fault_loop("eye", f_eye) > 0);
    OK(ct_set_allocator(&prev));
    ct_tensor_release(fb);
    ct_tensor_release(fa);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cat_basics),      cmocka_unit_test(test_cat_layouts),
        cmocka_unit_test(test_cat_out),         cmocka_unit_test(test_stack),
        cmocka_unit_test(test_split_views),     cmocka_unit_test(test_devices),
        cmocka_unit_test(test_threads),         cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_fault_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
