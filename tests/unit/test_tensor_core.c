/* The tensor object: storages and references, attributes, layout and memory-format names,
 * every stride/contiguity example PyTorch documents, result_type over
 * tensors, item(), the legacy type string. */
#include <pthread.h>

#include "tensor_test_util.h"

#include "tensor/tensor_impl.h"

/* ---- storages ---- */

static int finalized;
static void count_finalize(void *ctx, void *data) {
    assert_ptr_equal(ctx, &finalized);
    (void)data;
    finalized++;
}

static void test_storage(void **state) {
    (void)state;
    ct_storage *s = NULL;
    OK(ct_storage_new(CPU, 24, &s));
    assert_non_null(ct_storage_data(s));
    assert_int_equal(ct_storage_nbytes(s), 24);
    assert_true(ct_device_equal(ct_storage_device(s), CPU));
    assert_int_equal(ct_storage_refcount(s), 1);
    assert_false(ct_storage_is_external(s));
    assert_ptr_equal(ct_storage_retain(s), s);
    assert_int_equal(ct_storage_refcount(s), 2);
    ct_storage_release(s);
    ct_storage_release(s);
    ct_storage_release(NULL);
    assert_null(ct_storage_retain(NULL));
    assert_int_equal(ct_storage_refcount(NULL), 0);

    /* meta: a size, no memory */
    OK(ct_storage_new(META, 1 << 20, &s));
    assert_null(ct_storage_data(s));
    assert_int_equal(ct_storage_nbytes(s), 1 << 20);
    ct_storage_release(s);

    /* cpu:3 loses its index */
    ct_device cpu3 = {CT_DEVICE_CPU, 3};
    OK(ct_storage_new(cpu3, 8, &s));
    assert_int_equal(ct_storage_device(s).index, -1);
    ct_storage_release(s);
    assert_status_msg(ct_storage_new(CPU, 8, NULL), CT_ERR_MISUSE, "ct_storage_new: out is NULL");
}

static void test_storage_wrap(void **state) {
    (void)state;
    float data[6] = {1, 2, 3, 4, 5, 6};
    ct_storage *s = NULL;
    finalized = 0;
    OK(ct_storage_wrap(CPU, data, sizeof data, count_finalize, &finalized, &s));
    assert_true(ct_storage_is_external(s));
    ct_tensor *t = NULL, *v = NULL;
    OK(ct_tensor_from_storage(s, ARR(2, 3), NULL, 2, 0, CT_FLOAT32, &t));
    ct_storage_release(s); /* the tensor keeps it alive */
    assert_int_equal(finalized, 0);
    assert_ptr_equal(ct_tensor_data_ptr(t), data);
    assert_strides(t, 3, 1);
    OK(ct_tensor_select(t, 0, 1, &v));
    ct_tensor_release(t);
    assert_int_equal(finalized, 0);
    assert_ptr_equal(ct_tensor_data_ptr(v), data + 3);
    ct_tensor_release(v);
    assert_int_equal(finalized, 1);

    /* errors take nothing over */
    ct_device npu = {CT_DEVICE_PRIVATEUSEONE, -1};
    assert_status_msg(ct_storage_wrap(npu, data, 4, count_finalize, &finalized, &s), CT_ERR_MISUSE,
                      "ct_storage_wrap: an accelerator device needs an index (privateuseone)");
    assert_null(s);
    assert_int_equal(ct_storage_wrap(CPU, NULL, 4, NULL, NULL, &s), CT_ERR_MISUSE);
    assert_int_equal(finalized, 1);
    /* without finalizer, and an empty wrap */
    OK(ct_storage_wrap(CPU, NULL, 0, NULL, NULL, &s));
    ct_storage_release(s);
}

static void test_from_storage_bounds(void **state) {
    (void)state;
    ct_storage *s = NULL;
    ct_tensor *t = NULL;
    OK(ct_storage_new(CPU, 20, &s));
    assert_status_msg(ct_tensor_from_storage(s, ARR(2, 3), NULL, 2, 0, CT_FLOAT32, &t),
                      CT_ERR_RUNTIME,
                      "setStorage: sizes [2, 3], strides [3, 1], storage offset 0, and itemsize 4 "
                      "requiring a storage size of 24 are out of bounds for storage of size 20");
    assert_null(t);
    assert_status_msg(ct_tensor_from_storage(s, ARR(2), ARR(-1), 1, 0, CT_FLOAT32, &t),
                      CT_ERR_RUNTIME,
                      "as_strided: Negative strides are not supported at the moment, got strides: "
                      "[-1]");
    assert_status_msg(ct_tensor_from_storage(s, ARR(2), NULL, 1, -1, CT_FLOAT32, &t),
                      CT_ERR_RUNTIME, "Tensor: invalid storage offset -1");
    assert_status_msg(ct_tensor_from_storage(s, ARR(-1, 2), NULL, 2, 0, CT_FLOAT32, &t),
                      CT_ERR_RUNTIME,
                      "Trying to create tensor with negative dimension -1: [-1, 2]");
    assert_int_equal(ct_tensor_from_storage(NULL, ARR(2), NULL, 1, 0, CT_FLOAT32, &t),
                     CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_from_storage(s, ARR(2), NULL, 1, 0, (ct_dtype)99, &t),
                     CT_ERR_MISUSE);
    /* empty views may start anywhere */
    OK(ct_tensor_from_storage(s, ARR(0, 3), NULL, 2, 100, CT_FLOAT32, &t));
    ct_tensor_release(t);
    OK(ct_tensor_from_storage(s, ARR(5), NULL, 1, 0, CT_FLOAT32, &t));
    ct_tensor_release(t);
    OK(ct_tensor_from_storage(s, ARR(2), ARR(2), 1, 2, CT_FLOAT32, &t)); /* elements 2 and 4 */
    ct_tensor_release(t);
    ct_storage_release(s);
}

/* Small cpu storages are one block with their data (storage.c, Note [Inline data]); large
 * ones are two. Either way: aligned, writable, and alive as long as a view needs them. */
static void test_storage_sizes(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 4, 63, 64, 255, 256, 257, 1000, (size_t)2 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        ct_storage *s = NULL;
        ct_tensor *t = NULL, *v = NULL;
        OK(ct_storage_new(CPU, n, &s));
        unsigned char *d = ct_storage_data(s);
        assert_non_null(d);
        assert_int_equal((uintptr_t)d % 64, 0);
        assert_int_equal(ct_storage_nbytes(s), n);
        assert_int_equal(ct_storage_device(s).index, -1);
        assert_false(ct_storage_is_external(s));
        for (size_t k = 0; k < n; k++)
            d[k] = (unsigned char)k;
        int64_t len = (int64_t)n;
        OK(ct_tensor_from_storage(s, &len, NULL, 1, 0, CT_UINT8, &t));
        ct_storage_release(s);
        int64_t last = n > 0 ? len - 1 : 0;
        OK(ct_tensor_as_strided(t, ARR(n > 0), ARR(1), 1, &last, &v));
        ct_tensor_release(t); /* the view keeps the block alive */
        if (n > 0)
            assert_int_equal(*(unsigned char *)ct_tensor_data_ptr(v), (unsigned char)(n - 1));
        ct_tensor_release(v);
    }
    /* an invalid cpu device is refused as before, not taken for an inline storage */
    ct_storage *s = NULL;
    ct_device bad = {CT_DEVICE_CPU, -7};
    assert_int_equal(ct_storage_new(bad, 8, &s), CT_ERR_RUNTIME);
    assert_null(s);
}

/* The constructor's one-pass check of the common case agrees with the general checks:
 * strides NULL gives the contiguous strides and flags, a view that just fits its storage is
 * accepted, one byte more is refused with PyTorch's message, overflows are reported. */
static void test_constructor_paths(void **state) {
    (void)state;
    static const int64_t shapes[][5] = {{3, 1, 2, 1, 4}, {1, 1, 1, 1, 1}, {2, 3, 4, 5, 6}};
    ct_storage *s = NULL;
    ct_tensor *t = NULL;
    OK(ct_storage_new(CPU, 720 * 4, &s));
    for (size_t k = 0; k < 3; k++) {
        for (int64_t n = 0; n <= 5; n++) {
            const int64_t *sz = shapes[k];
            int64_t want[5];
            OK(ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, sz, n, want));
            OK(ct_tensor_from_storage(s, sz, NULL, n, 0, CT_FLOAT32, &t));
            assert_i64s(ct_tensor_strides(t), n, want, n);
            for (int f = CT_MEMFMT_CONTIGUOUS; f <= CT_MEMFMT_CHANNELS_LAST_3D; f++)
                assert_int_equal(ct_tensor_is_contiguous(t, (ct_memory_format)f),
                                 ct_strides_are_contiguous(sz, want, n, (ct_memory_format)f));
            assert_true(ct_tensor_is_non_overlapping_and_dense(t));
            assert_int_equal(ct_tensor_suggest_memory_format(t, false),
                             ct_strides_suggest_memory_format(sz, want, n, false));
            ct_tensor_release(t);
        }
    }
    ct_storage_release(s);

    OK(ct_storage_new(CPU, 24, &s));
    OK(ct_tensor_from_storage(s, ARR(2, 3), NULL, 2, 0, CT_FLOAT32, &t)); /* exactly 24 */
    assert_int_equal(ct_tensor_numel(t), 6);
    ct_tensor_release(t);
    OK(ct_tensor_from_storage(s, ARR(3), ARR(2), 1, 1, CT_FLOAT32, &t)); /* last byte: 20-23 */
    ct_tensor_release(t);
    assert_status_msg(ct_tensor_from_storage(s, ARR(3), ARR(2), 1, 2, CT_FLOAT32, &t),
                      CT_ERR_RUNTIME,
                      "setStorage: sizes [3], strides [2], storage offset 2, and itemsize 4 "
                      "requiring a storage size of 28 are out of bounds for storage of size 24");
    assert_status_msg(ct_tensor_from_storage(s, ARR(INT64_C(1) << 62, 4), ARR(0, 0), 2, 0,
                                             CT_FLOAT32, &t),
                      CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    assert_status_msg(ct_tensor_from_storage(s, ARR(3, 2), ARR(INT64_C(1) << 62, 0), 2, 0,
                                             CT_FLOAT32, &t),
                      CT_ERR_OVERFLOW,
                      "Storage size calculation overflowed with sizes=[3, 2] and "
                      "strides=[4611686018427387904, 0]");
    assert_null(t);
    ct_storage_release(s);
}

/* ---- references ---- */

static void test_refcounts(void **state) {
    (void)state;
    ct_tensor *base = iota(SHAPE(4, 5));
    ct_storage *s = ct_tensor_storage(base);
    assert_int_equal(ct_tensor_refcount(base), 1);
    assert_int_equal(ct_storage_refcount(s), 1);
    ct_tensor *v1 = NULL, *v2 = NULL, *v3 = NULL;
    OK(ct_tensor_t(base, &v1));
    OK(ct_tensor_select(v1, 0, 2, &v2)); /* a view of a view: same storage */
    OK(ct_tensor_unsqueeze(v2, 0, &v3));
    assert_ptr_equal(ct_tensor_storage(v2), s);
    assert_int_equal(ct_storage_refcount(s), 4);
    assert_int_equal(ct_tensor_refcount(base), 1); /* views never reference tensors */
    ct_tensor_release(base);
    ct_tensor_release(v1);
    /* column 2 of the base: 2, 7, 12, 17 */
    assert_sizes(v3, 1, 4);
    assert_true(at_f32(v3, ARR(0, 3)) == 17.0f);
    assert_int_equal(ct_storage_refcount(s), 2);
    assert_ptr_equal(ct_tensor_retain(v3), v3);
    assert_int_equal(ct_tensor_refcount(v3), 2);
    ct_tensor_release(v3);
    ct_tensor_release(v2);
    ct_tensor_release(v3);
    ct_tensor_release(NULL);
    assert_null(ct_tensor_retain(NULL));
    assert_int_equal(ct_tensor_refcount(NULL), 0);
}

/* Views made and dropped from several threads at once: the counts end where they began. */
static void *churn(void *arg) {
    ct_tensor *base = arg;
    for (int i = 0; i < 5000; i++) {
        ct_tensor *v = NULL, *w = NULL;
        if (ct_tensor_t(base, &v) != CT_OK || ct_tensor_select(v, 1, i % 4, &w) != CT_OK)
            return (void *)1;
        ct_tensor_release(v);
        ct_tensor_release(ct_tensor_retain(base));
        ct_tensor_release(w);
    }
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    ct_tensor *base = iota(SHAPE(4, 5));
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, churn, base), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        assert_null(r);
    }
    assert_int_equal(ct_tensor_refcount(base), 1);
    assert_int_equal(ct_storage_refcount(ct_tensor_storage(base)), 1);
    ct_tensor_release(base);
}

/* ---- attributes ---- */

static void test_attributes(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3, 4), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &t));
    assert_int_equal(ct_tensor_dim(t), 3);
    assert_sizes(t, 2, 3, 4);
    assert_strides(t, 12, 4, 1);
    assert_int_equal(ct_tensor_numel(t), 24);
    assert_int_equal(ct_tensor_element_size(t), 8);
    assert_int_equal(ct_tensor_nbytes(t), 192);
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT64);
    assert_int_equal(ct_tensor_layout(t), CT_LAYOUT_STRIDED);
    assert_int_equal(ct_tensor_get_device(t), -1);
    assert_true(ct_tensor_is_floating_point(t));
    assert_false(ct_tensor_is_complex(t));
    assert_false(ct_tensor_is_meta(t));
    assert_int_equal(ct_tensor_storage_offset(t), 0);
    assert_non_null(ct_tensor_data_ptr(t));
    int64_t v = 0;
    OK(ct_tensor_size(t, -1, &v));
    assert_int_equal(v, 4);
    OK(ct_tensor_stride(t, 0, &v));
    assert_int_equal(v, 12);
    assert_status_msg(ct_tensor_size(t, 3, &v), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ct_tensor_release(t);

    OK(ct_tensor_empty(NULL, 0, CT_COMPLEX64, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    assert_int_equal(ct_tensor_dim(t), 0);
    assert_int_equal(ct_tensor_numel(t), 1);
    assert_true(ct_tensor_is_complex(t));
    assert_false(ct_tensor_is_floating_point(t));
    assert_true(ct_tensor_is_meta(t));
    assert_null(ct_tensor_data_ptr(t));
    assert_int_equal(ct_tensor_get_device(t), -1);
    assert_non_null(ct_tensor_sizes(t));
    assert_status_msg(ct_tensor_size(t, 0, &v), CT_ERR_INDEX,
                      "Dimension specified as 0 but tensor has no dimensions");
    assert_status_msg(ct_tensor_stride(t, -1, &v), CT_ERR_INDEX,
                      "Dimension specified as -1 but tensor has no dimensions");
    ct_tensor_release(t);

    /* NULL is total */
    assert_int_equal(ct_tensor_dim(NULL), 0);
    assert_null(ct_tensor_sizes(NULL));
    assert_null(ct_tensor_strides(NULL));
    assert_false(ct_tensor_is_contiguous(NULL, CT_MEMFMT_CONTIGUOUS));
    assert_int_equal(ct_tensor_dtype(NULL), CT_DTYPE_UNDEFINED);
    assert_status_msg(ct_tensor_size(NULL, 0, &v), CT_ERR_MISUSE, "ct_tensor_size: tensor is NULL");
}

static void test_names(void **state) {
    (void)state;
    assert_string_equal(ct_layout_name(CT_LAYOUT_STRIDED), "strided");
    assert_string_equal(ct_layout_name(CT_LAYOUT_SPARSE_COO), "sparse_coo");
    assert_string_equal(ct_layout_name(CT_LAYOUT_MKLDNN), "_mkldnn");
    assert_string_equal(ct_layout_name(CT_LAYOUT_JAGGED), "jagged");
    assert_string_equal(ct_layout_cpp_name(CT_LAYOUT_SPARSE_COO), "Sparse");
    assert_string_equal(ct_layout_cpp_name(CT_LAYOUT_SPARSE_BSC), "SparseBsc");
    assert_null(ct_layout_name((ct_layout)8));
    assert_null(ct_layout_cpp_name((ct_layout)-1));
    assert_int_equal(CT_LAYOUT_SPARSE_CSC, 4);
    assert_string_equal(ct_memory_format_name(CT_MEMFMT_CONTIGUOUS), "contiguous_format");
    assert_string_equal(ct_memory_format_name(CT_MEMFMT_PRESERVE), "preserve_format");
    assert_string_equal(ct_memory_format_name(CT_MEMFMT_CHANNELS_LAST), "channels_last");
    assert_string_equal(ct_memory_format_name(CT_MEMFMT_CHANNELS_LAST_3D), "channels_last_3d");
    assert_string_equal(ct_memory_format_cpp_name(CT_MEMFMT_CHANNELS_LAST_3D), "ChannelsLast3d");
    assert_string_equal(ct_memory_format_cpp_name(CT_MEMFMT_PRESERVE), "Preserve");
    assert_null(ct_memory_format_name((ct_memory_format)4));
}

/* ---- contiguous strides, channels-last strides ---- */

static void expect_strides(ct_memory_format mf, const int64_t *sizes, int64_t n,
                           const int64_t *want) {
    int64_t got[CT_MAX_DIMS];
    OK(ct_memory_format_strides(mf, sizes, n, got));
    assert_i64s(got, n, want, n);
    /* and a tensor made in that format gets them */
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(sizes, n, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, mf, &t));
    assert_i64s(ct_tensor_strides(t), n, want, n);
    ct_tensor_release(t);
}

static void test_format_strides(void **state) {
    (void)state;
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(2, 3, 4), ARR(12, 4, 1));
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(2, 0, 4), ARR(4, 4, 1));
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(0), ARR(1));
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(0, 3), ARR(3, 1));
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(3, 0), ARR(1, 1));
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(1, 1, 1), ARR(1, 1, 1));
    expect_strides(CT_MEMFMT_CONTIGUOUS, SHAPE(2, 1, 3), ARR(3, 3, 1));
    expect_strides(CT_MEMFMT_CHANNELS_LAST, SHAPE(2, 3, 4, 5), ARR(60, 1, 15, 3));
    expect_strides(CT_MEMFMT_CHANNELS_LAST, SHAPE(2, 0, 4, 5), ARR(0, 1, 0, 0));
    expect_strides(CT_MEMFMT_CHANNELS_LAST_3D, SHAPE(2, 3, 4, 5, 6), ARR(360, 1, 90, 18, 3));
    int64_t s[8];
    OK(ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, NULL, 0, NULL)); /* 0-dim: () */
    assert_status_msg(ct_memory_format_strides(CT_MEMFMT_CHANNELS_LAST, SHAPE(2, 3, 4), s),
                      CT_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
    assert_status_msg(ct_memory_format_strides(CT_MEMFMT_CHANNELS_LAST_3D, SHAPE(2, 3, 4, 5), s),
                      CT_ERR_RUNTIME, "required rank 5 tensor to use channels_last_3d format");
    assert_status_msg(ct_memory_format_strides(CT_MEMFMT_PRESERVE, SHAPE(2, 3), s), CT_ERR_RUNTIME,
                      "unsupported memory format Preserve");
    assert_int_equal(ct_memory_format_strides((ct_memory_format)7, SHAPE(2), s), CT_ERR_MISUSE);
    /* overflow: contiguous clamps zeros, so an empty tensor can still overflow */
    assert_status_msg(ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS,
                                               SHAPE(0, INT64_C(1) << 40, INT64_C(1) << 40), s),
                      CT_ERR_OVERFLOW, "Stride calculation overflowed");
    assert_status_msg(ct_memory_format_strides(CT_MEMFMT_CHANNELS_LAST,
                                               SHAPE(2, INT64_C(1) << 40, INT64_C(1) << 40, 2), s),
                      CT_ERR_OVERFLOW, "Stride calculation overflowed");
}

/* ---- contiguity; non-overlapping-and-dense; suggest_memory_format ---- */

typedef struct geo_case {
    int64_t n;
    int64_t sizes[5], strides[5];
    bool contiguous, cl, cl3d, dense;
    ct_memory_format suggest;
} geo_case;

static const geo_case geo_cases[] = {
    /* is_contiguous */
    {2, {1, 3}, {100, 1}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},
    {2, {0, 3}, {7, 100}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},
    {2, {3, 2}, {1, 3}, false, false, false, true, CT_MEMFMT_CONTIGUOUS},  /* empty(2,3).t() */
    {2, {3, 1}, {1, 3}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},   /* empty(1,3).t() */
    {2, {1, 3}, {1, 1}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},   /* empty(3,1).t() */
    {2, {2, 3}, {0, 1}, false, false, false, false, CT_MEMFMT_CONTIGUOUS}, /* expanded */
    {1, {3}, {2}, false, false, false, false, CT_MEMFMT_CONTIGUOUS},       /* x[::2] */
    {0, {0}, {0}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},         /* 0-dim */
    {1, {1}, {5}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},
    /* non-overlapping-and-dense: permutations are dense, gaps are not */
    {3, {4, 2, 3}, {1, 12, 4}, false, false, false, true, CT_MEMFMT_CONTIGUOUS},
    {2, {4, 3}, {6, 2}, false, false, false, false, CT_MEMFMT_CONTIGUOUS},
    {2, {2, 2}, {1, 1}, false, false, false, false, CT_MEMFMT_CONTIGUOUS},
    /* ambiguous cases: both contiguous and channels-last contiguous */
    {4, {2, 1, 4, 5}, {20, 20, 5, 1}, true, true, false, true, CT_MEMFMT_CONTIGUOUS}, /* N1HW */
    {4, {2, 3, 1, 1}, {3, 1, 1, 1}, true, true, false, true, CT_MEMFMT_CONTIGUOUS},   /* NC11 */
    {4, {1, 3, 1, 1}, {3, 1, 1, 1}, true, true, false, true, CT_MEMFMT_CONTIGUOUS},   /* 1C11 */
    {4, {2, 0, 4, 5}, {0, 1, 0, 0}, true, true, false, true, CT_MEMFMT_CONTIGUOUS},   /* empty */
    {4, {2, 3, 0, 5}, {0, 1, 15, 3}, true, true, false, true, CT_MEMFMT_CONTIGUOUS},
    /* N = 1 channels last: CL but not contiguous */
    {4, {1, 3, 4, 5}, {60, 1, 15, 3}, false, true, false, true, CT_MEMFMT_CHANNELS_LAST},
    {4, {2, 3, 4, 5}, {60, 1, 15, 3}, false, true, false, true, CT_MEMFMT_CHANNELS_LAST},
    {4, {2, 3, 4, 5}, {60, 20, 5, 1}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},
    /* suggest_memory_format: N1H1 is channels-last contiguous; N111 resolves to NCHW */
    {4, {2, 1, 4, 1}, {4, 1, 1, 1}, true, true, false, true, CT_MEMFMT_CHANNELS_LAST},
    {4, {2, 1, 1, 1}, {1, 1, 1, 1}, true, true, false, true, CT_MEMFMT_CONTIGUOUS},
    {4, {2, 1, 1, 1}, {5, 5, 5, 5}, false, false, false, false, CT_MEMFMT_CONTIGUOUS},
    /* a sliced channels-last tensor is still "like" channels last, not contiguous */
    {4, {2, 3, 4, 5}, {240, 1, 60, 6}, false, false, false, false, CT_MEMFMT_CHANNELS_LAST},
    /* 3-D: never channels last */
    {3, {3, 4, 5}, {1, 15, 3}, false, false, false, true, CT_MEMFMT_CONTIGUOUS},
    /* 5-D channels_last_3d */
    {5, {2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}, false, false, true, true, CT_MEMFMT_CHANNELS_LAST_3D},
    {5, {2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, true, false, false, true, CT_MEMFMT_CONTIGUOUS},
    {5, {2, 1, 4, 5, 6}, {120, 120, 30, 6, 1}, true, false, true, true, CT_MEMFMT_CONTIGUOUS},
};

#define CHECK_CASE(i, got, want)                                                                   \
    do {                                                                                           \
        if ((got) != (want))                                                                       \
            fail_msg("geometry case %zu: %s is %d, want %d", (i), #got, (int)(got), (int)(want));  \
    } while (0)

static void test_contiguity(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof geo_cases / sizeof geo_cases[0]; i++) {
        const geo_case *c = &geo_cases[i];
        const int64_t *sz = c->sizes, *st = c->strides;
        CHECK_CASE(i, ct_strides_are_contiguous(sz, st, c->n, CT_MEMFMT_CONTIGUOUS), c->contiguous);
        CHECK_CASE(i, ct_strides_are_contiguous(sz, st, c->n, CT_MEMFMT_PRESERVE), c->contiguous);
        CHECK_CASE(i, ct_strides_are_contiguous(sz, st, c->n, CT_MEMFMT_CHANNELS_LAST), c->cl);
        CHECK_CASE(i, ct_strides_are_contiguous(sz, st, c->n, CT_MEMFMT_CHANNELS_LAST_3D), c->cl3d);
        CHECK_CASE(i, ct_strides_are_non_overlapping_and_dense(sz, st, c->n), c->dense);
        CHECK_CASE(i, ct_strides_suggest_memory_format(sz, st, c->n, false), c->suggest);
        /* the tensor's cached flags agree (meta: any strides fit a large storage) */
        ct_tensor *t = NULL;
        ct_storage *s = NULL;
        OK(ct_storage_new(META, 1 << 16, &s));
        OK(ct_tensor_from_storage(s, sz, st, c->n, 0, CT_FLOAT32, &t));
        ct_storage_release(s);
        CHECK_CASE(i, ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS), c->contiguous);
        CHECK_CASE(i, ct_tensor_is_contiguous(t, CT_MEMFMT_CHANNELS_LAST), c->cl);
        CHECK_CASE(i, ct_tensor_is_contiguous(t, CT_MEMFMT_CHANNELS_LAST_3D), c->cl3d);
        CHECK_CASE(i, ct_tensor_is_non_overlapping_and_dense(t), c->dense);
        CHECK_CASE(i, ct_tensor_suggest_memory_format(t, false), c->suggest);
        ct_tensor_release(t);
    }
    assert_false(ct_strides_are_contiguous(NULL, NULL, 2, CT_MEMFMT_CONTIGUOUS));
    assert_false(ct_strides_are_contiguous(ARR(1), ARR(1), 1, (ct_memory_format)9));
}

static void test_suggest_exact(void **state) {
    (void)state;
    /* (2,3,4,5)@(240,1,60,6) is like channels last but not exactly its strides */
    assert_int_equal(ct_strides_suggest_memory_format(ARR(2, 3, 4, 5), ARR(240, 1, 60, 6), 4, true),
                     CT_MEMFMT_CONTIGUOUS);
    assert_int_equal(ct_strides_suggest_memory_format(ARR(2, 3, 4, 5), ARR(60, 1, 15, 3), 4, true),
                     CT_MEMFMT_CHANNELS_LAST);
    assert_int_equal(
        ct_strides_suggest_memory_format(ARR(2, 3, 4, 5, 6), ARR(360, 1, 90, 18, 3), 5, true),
        CT_MEMFMT_CHANNELS_LAST_3D);
    /* N1H1: strides (4,1,1,1); the exact CL strides are (4,1,1,1) too */
    assert_int_equal(ct_strides_suggest_memory_format(ARR(2, 1, 4, 1), ARR(4, 1, 1, 1), 4, true),
                     CT_MEMFMT_CHANNELS_LAST);
}

/* ---- infer_dense_strides and preserve_format ---- */

static void test_infer_dense_strides(void **state) {
    (void)state;
    int64_t out[8];
    OK(ct_infer_dense_strides(ARR(4, 3), ARR(6, 2), 2, out));
    assert_i64s(out, 2, ARR(3, 1), 2);
    OK(ct_infer_dense_strides(ARR(6, 2), ARR(1, 12), 2, out));
    assert_i64s(out, 2, ARR(1, 6), 2);
    OK(ct_infer_dense_strides(ARR(3, 3, 4), ARR(2, 20, 5), 3, out));
    assert_i64s(out, 3, ARR(1, 12, 3), 3);
    OK(ct_infer_dense_strides(ARR(2, 3, 4, 5), ARR(240, 1, 60, 6), 4, out));
    assert_i64s(out, 4, ARR(60, 1, 15, 3), 4);
    OK(ct_infer_dense_strides(ARR(2, 2, 8, 10), ARR(240, 1, 30, 3), 4, out));
    assert_i64s(out, 4, ARR(160, 1, 20, 2), 4);
    OK(ct_infer_dense_strides(ARR(2, 3), ARR(0, 1), 2, out));
    assert_i64s(out, 2, ARR(3, 1), 2);
    OK(ct_infer_dense_strides(ARR(3, 2), ARR(1, 3), 2, out));
    assert_i64s(out, 2, ARR(1, 3), 2);
    /* PyTorch's own comment: (6,5,4,3,2)@(6,0,120,0,1) sorts to perm (4,3,0,1,2) */
    OK(ct_infer_dense_strides(ARR(6, 5, 4, 3, 2), ARR(6, 0, 120, 0, 1), 5, out));
    assert_i64s(out, 5, ARR(6, 36, 180, 2, 1), 5);
    OK(ct_infer_dense_strides(ARR(7), ARR(3), 1, out));
    assert_i64s(out, 1, ARR(1), 1);
    OK(ct_infer_dense_strides(NULL, NULL, 0, out));
    assert_int_equal(ct_infer_dense_strides(NULL, NULL, 2, out), CT_ERR_MISUSE);
}

/* clone()/empty_like strides of PyTorch's preserve_format examples (torch 1.13) */
static void expect_clone(const int64_t *sizes, const int64_t *strides, int64_t n,
                         ct_memory_format mf, const int64_t *want) {
    ct_storage *s = NULL;
    ct_tensor *t = NULL, *c = NULL, *e = NULL;
    OK(ct_storage_new(CPU, 4096, &s));
    OK(ct_tensor_from_storage(s, sizes, strides, n, 0, CT_FLOAT32, &t));
    ct_storage_release(s);
    OK(ct_tensor_zero_(t));
    OK(ct_tensor_clone(t, mf, &c));
    assert_i64s(ct_tensor_strides(c), n, want, n);
    OK(ct_tensor_empty_like(t, CT_DTYPE_UNDEFINED, NULL, mf, &e));
    assert_i64s(ct_tensor_strides(e), n, want, n);
    ct_tensor_release(e);
    OK(ct_tensor_to(t, CT_FLOAT64, NULL, false, mf, &e)); /* cl.to(float64) keeps CL strides */
    assert_i64s(ct_tensor_strides(e), n, want, n);
    ct_tensor_release(e);
    ct_tensor_release(c);
    ct_tensor_release(t);
}

static void test_preserve_format(void **state) {
    (void)state;
    const ct_memory_format P = CT_MEMFMT_PRESERVE;
    expect_clone(ARR(2, 4, 5, 3), ARR(60, 5, 1, 20), 4, P, ARR(60, 5, 1, 20));
    expect_clone(ARR(2, 4, 5, 3), ARR(60, 5, 1, 20), 4, CT_MEMFMT_CONTIGUOUS, ARR(60, 15, 3, 1));
    expect_clone(ARR(4, 3), ARR(6, 2), 2, P, ARR(3, 1));
    expect_clone(ARR(6, 2), ARR(1, 12), 2, P, ARR(1, 6));
    expect_clone(ARR(3, 3, 4), ARR(2, 20, 5), 3, P, ARR(1, 12, 3));
    expect_clone(ARR(2, 3, 4, 5), ARR(240, 1, 60, 6), 4, P, ARR(60, 1, 15, 3));
    expect_clone(ARR(2, 2, 8, 10), ARR(240, 1, 30, 3), 4, P, ARR(160, 1, 20, 2));
    expect_clone(ARR(2, 3), ARR(0, 1), 2, P, ARR(3, 1));
    expect_clone(ARR(3, 2), ARR(1, 3), 2, P, ARR(1, 3));
    expect_clone(ARR(2, 3, 4, 5, 6), ARR(360, 1, 90, 18, 3), 5, P, ARR(360, 1, 90, 18, 3));
    expect_clone(ARR(2, 3, 4, 5), ARR(60, 1, 15, 3), 4, CT_MEMFMT_CHANNELS_LAST, ARR(60, 1, 15, 3));
    expect_clone(ARR(2, 3, 4, 5), ARR(60, 20, 5, 1), 4, CT_MEMFMT_CHANNELS_LAST, ARR(60, 1, 15, 3));

    /* zeros_like(cl) keeps CL; ones_like(cl, contiguous) is contiguous */
    ct_tensor *cl = NULL, *z = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3, 4, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CHANNELS_LAST, &cl));
    OK(ct_tensor_zeros_like(cl, CT_DTYPE_UNDEFINED, NULL, P, &z));
    assert_strides(z, 60, 1, 15, 3);
    ct_tensor_release(z);
    OK(ct_tensor_ones_like(cl, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_CONTIGUOUS, &z));
    assert_strides(z, 60, 20, 5, 1);
    ct_tensor_release(z);
    assert_status_msg(
        ct_tensor_empty_like(cl, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_CHANNELS_LAST_3D, &z),
        CT_ERR_RUNTIME, "required rank 5 tensor to use channels_last_3d format");
    ct_tensor_release(cl);
}

/* ---- contiguous() and to() identities ---- */

static void test_contiguous_identity(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3)), *y = NULL, *t = NULL;
    OK(ct_tensor_contiguous(x, CT_MEMFMT_CONTIGUOUS, &y));
    assert_ptr_equal(x, y);
    assert_int_equal(ct_tensor_refcount(x), 2);
    ct_tensor_release(y);
    OK(ct_tensor_contiguous(x, CT_MEMFMT_PRESERVE, &y)); /* succeeds iff already contiguous */
    assert_ptr_equal(x, y);
    ct_tensor_release(y);
    OK(ct_tensor_t(x, &t));
    assert_status_msg(ct_tensor_contiguous(t, CT_MEMFMT_PRESERVE, &y), CT_ERR_RUNTIME,
                      "preserve memory format is unsupported by the contiguous operator");
    assert_null(y);
    OK(ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &y));
    assert_ptr_not_equal(y, t);
    assert_strides(y, 2, 1);
    assert_true(at_f32(y, ARR(2, 1)) == 5.0f);
    assert_ptr_not_equal(ct_tensor_storage(y), ct_tensor_storage(x));
    ct_tensor_release(y);
    assert_status_msg(ct_tensor_contiguous(t, CT_MEMFMT_CHANNELS_LAST, &y), CT_ERR_RUNTIME,
                      "required rank 4 tensor to use channels_last format");
    ct_tensor_release(t);

    /* to(): same dtype and device returns self; copy=true forces a copy */
    OK(ct_tensor_to(x, CT_FLOAT32, &CPU, false, CT_MEMFMT_PRESERVE, &y));
    assert_ptr_equal(x, y);
    ct_tensor_release(y);
    ct_device cpu0 = {CT_DEVICE_CPU, 0};
    OK(ct_tensor_to_device(x, cpu0, &y)); /* 'cpu:0' is where x lives */
    assert_ptr_equal(x, y);
    ct_tensor_release(y);
    OK(ct_tensor_to(x, CT_DTYPE_UNDEFINED, NULL, true, CT_MEMFMT_PRESERVE, &y));
    assert_ptr_not_equal(x, y);
    assert_true(at_f32(y, ARR(1, 2)) == 5.0f);
    ct_tensor_release(y);
    OK(ct_tensor_to(x, CT_DTYPE_UNDEFINED, NULL, false, CT_MEMFMT_CONTIGUOUS, &y));
    assert_ptr_equal(x, y); /* suggest_memory_format() is contiguous already */
    ct_tensor_release(y);
    OK(ct_tensor_to_dtype(x, CT_INT32, &y));
    assert_int_equal(ct_tensor_dtype(y), CT_INT32);
    assert_int_equal(((const int32_t *)ct_tensor_data_ptr(y))[5], 5);
    ct_tensor_release(y);
    ct_tensor_release(x);

    /* channels-last tensors asked for channels last: self */
    OK(ct_tensor_empty(SHAPE(2, 3, 4, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CHANNELS_LAST, &x));
    OK(ct_tensor_contiguous(x, CT_MEMFMT_CHANNELS_LAST, &y));
    assert_ptr_equal(x, y);
    ct_tensor_release(y);
    OK(ct_tensor_to(x, CT_DTYPE_UNDEFINED, NULL, false, CT_MEMFMT_CHANNELS_LAST, &y));
    assert_ptr_equal(x, y);
    ct_tensor_release(y);
    OK(ct_tensor_to(x, CT_DTYPE_UNDEFINED, NULL, false, CT_MEMFMT_CONTIGUOUS, &y));
    assert_ptr_not_equal(x, y);
    assert_strides(y, 60, 20, 5, 1);
    ct_tensor_release(y);
    ct_tensor_release(x);
}

/* ---- result type, wrapped numbers, item, type strings ---- */

static ct_tensor *make(ct_dtype dt, int64_t ndim) {
    ct_tensor *t = NULL;
    OK(ct_tensor_zeros(ARR(2, 2), ndim, dt, &CPU, CT_LAYOUT_STRIDED, &t));
    return t;
}

static void test_result_type(void **state) {
    (void)state;
    ct_tensor *i32 = make(CT_INT32, 1), *z64 = make(CT_INT64, 0), *f16 = make(CT_FLOAT16, 1);
    ct_tensor *zf64 = make(CT_FLOAT64, 0), *w_int = NULL, *w_float = NULL, *w_c = NULL;
    OK(ct_tensor_wrapped_number(ct_scalar_int(5), &w_int));
    OK(ct_tensor_wrapped_number(ct_scalar_float(2.5), &w_float));
    OK(ct_tensor_wrapped_number(ct_scalar_complex(0, 1), &w_c));
    assert_true(ct_tensor_is_wrapped_number(w_int));
    assert_int_equal(ct_tensor_dtype(w_float), CT_FLOAT64);
    assert_false(ct_tensor_is_wrapped_number(z64));
    ct_dtype r;
    const ct_tensor *a[] = {i32, z64};
    OK(ct_tensor_result_type(a, 2, &r));
    assert_int_equal(r, CT_INT32); /* priority beats size */
    const ct_tensor *b[] = {i32, w_int};
    OK(ct_tensor_result_type(b, 2, &r));
    assert_int_equal(r, CT_INT32);
    const ct_tensor *c[] = {i32, w_float};
    OK(ct_tensor_result_type(c, 2, &r));
    assert_int_equal(r, CT_FLOAT32); /* a wrapped float counts as the default dtype */
    const ct_tensor *d[] = {f16, zf64};
    OK(ct_tensor_result_type(d, 2, &r));
    assert_int_equal(r, CT_FLOAT16);
    const ct_tensor *e[] = {z64, w_float};
    OK(ct_tensor_result_type(e, 2, &r));
    assert_int_equal(r, CT_FLOAT32);
    const ct_tensor *f[] = {f16, w_c};
    OK(ct_tensor_result_type(f, 2, &r));
    assert_int_equal(r, CT_COMPLEX32);
    const ct_tensor *g[] = {w_int, w_float};
    OK(ct_tensor_result_type(g, 2, &r));
    assert_int_equal(r, CT_FLOAT32);
    assert_status_msg(ct_tensor_result_type(NULL, 0, &r), CT_ERR_VALUE, "result_type: no operands");
    ct_result_type_state st = CT_RESULT_TYPE_STATE_INIT;
    OK(ct_result_type_update_tensor(&st, zf64));
    assert_int_equal(st.zero_dim, CT_FLOAT64);
    assert_int_equal(ct_result_type_update_tensor(&st, NULL), CT_ERR_MISUSE);
    /* the flag: only on 0-dim tensors */
    assert_status_msg(ct_tensor_set_wrapped_number(i32, true), CT_ERR_RUNTIME,
                      "wrapped number flag can only be set on 0-dim tensors, got a 1-dim tensor");
    OK(ct_tensor_set_wrapped_number(z64, true));
    assert_true(ct_tensor_is_wrapped_number(z64));
    OK(ct_tensor_set_wrapped_number(z64, false));
    assert_false(ct_tensor_is_wrapped_number(z64));
    ct_tensor *like = NULL;
    OK(ct_tensor_empty_like(w_int, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE, &like));
    assert_false(ct_tensor_is_wrapped_number(like));
    ct_tensor_release(like);
    assert_status_msg(ct_tensor_wrapped_number(ct_scalar_uint(UINT64_MAX), &like), CT_ERR_OVERFLOW,
                      "value cannot be converted to type int64_t without overflow");
    ct_tensor *all[] = {i32, z64, f16, zf64, w_int, w_float, w_c};
    for (size_t i = 0; i < 7; i++)
        ct_tensor_release(all[i]);
}

static void test_item(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    ct_scalar s;
    OK(ct_tensor_full(NULL, 0, ct_scalar_float(2.5), CT_FLOAT16, &CPU, CT_LAYOUT_STRIDED, &t));
    OK(ct_tensor_item(t, &s));
    assert_int_equal(s.kind, CT_SCALAR_FLOAT);
    assert_true(s.v.f == 2.5);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(1, 1), ct_scalar_int(-7), CT_INT8, &CPU, CT_LAYOUT_STRIDED, &t));
    OK(ct_tensor_item(t, &s));
    assert_int_equal(s.kind, CT_SCALAR_INT);
    assert_int_equal(s.v.i, -7);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(1), ct_scalar_uint(UINT64_MAX), CT_UINT64, &CPU, CT_LAYOUT_STRIDED,
                      &t));
    OK(ct_tensor_item(t, &s));
    assert_int_equal(s.kind, CT_SCALAR_UINT);
    assert_true(s.v.u == UINT64_MAX);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(1), ct_scalar_bool(true), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED,
                      &t));
    assert_int_equal(ct_tensor_dtype(t), CT_BOOL);
    OK(ct_tensor_item(t, &s));
    assert_int_equal(s.kind, CT_SCALAR_BOOL);
    assert_true(s.v.b);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(1), ct_scalar_complex(1, -2), CT_COMPLEX64, &CPU, CT_LAYOUT_STRIDED,
                      &t));
    OK(ct_tensor_item(t, &s));
    assert_int_equal(s.kind, CT_SCALAR_COMPLEX);
    assert_true(s.v.c.re == 1 && s.v.c.im == -2);
    ct_tensor_release(t);
    OK(ct_tensor_zeros(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_status_msg(ct_tensor_item(t, &s), CT_ERR_RUNTIME,
                      "a Tensor with 6 elements cannot be converted to Scalar");
    ct_tensor_release(t);
    OK(ct_tensor_zeros(NULL, 0, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, &t));
    assert_status_msg(ct_tensor_item(t, &s), CT_ERR_NOT_IMPLEMENTED,
                      "Tensor.item() cannot be called on meta tensors");
    ct_tensor_release(t);
    OK(ct_tensor_zeros(NULL, 0, CT_FLOAT4_E2M1FN_X2, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_status_msg(ct_tensor_item(t, &s), CT_ERR_NOT_IMPLEMENTED,
                      "\"item\" not implemented for 'Float4_e2m1fn_x2'");
    ct_tensor_release(t);
}

static void test_type_string(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    char buf[64];
    OK(ct_tensor_empty(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    OK(ct_tensor_type_string(t, buf, sizeof buf));
    assert_string_equal(buf, "torch.FloatTensor");
    assert_int_equal(ct_tensor_type_string(t, buf, 8), CT_ERR_MISUSE);
    assert_string_equal(buf, "");
    ct_tensor_release(t);
    OK(ct_tensor_empty(SHAPE(2), CT_COMPLEX64, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    OK(ct_tensor_type_string(t, buf, sizeof buf));
    assert_string_equal(buf, "torch.meta.ComplexFloatTensor");
    ct_tensor_release(t);
    assert_int_equal(ct_tensor_type_string(NULL, buf, sizeof buf), CT_ERR_MISUSE);
}

/* ---- tensors of other layouts, as the sparse layer will build them ---- */

static int ext_freed;
static void free_ext(void *ext) {
    assert_ptr_equal(ext, &ext_freed);
    ext_freed++;
}

static void test_nonstrided(void **state) {
    (void)state;
    ct_tensor *t = NULL, *v = NULL;
    ext_freed = 0;
    OK(ct_tensor_impl_new_nonstrided(CT_LAYOUT_SPARSE_COO, CT_FLOAT32, CPU, ARR(2, 3), 2,
                                     &ext_freed, free_ext, &t));
    assert_int_equal(ct_tensor_layout(t), CT_LAYOUT_SPARSE_COO);
    assert_sizes(t, 2, 3);
    assert_null(ct_tensor_strides(t));
    assert_null(ct_tensor_data_ptr(t));
    assert_null(ct_tensor_storage(t));
    /* as torch 1.13's sparse tensors: contiguous, in no channels-last format */
    assert_true(ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS));
    assert_false(ct_tensor_is_contiguous(t, CT_MEMFMT_CHANNELS_LAST));
    assert_int_equal(ct_tensor_numel(t), 6);
    char buf[64];
    OK(ct_tensor_type_string(t, buf, sizeof buf));
    assert_string_equal(buf, "torch.sparse.FloatTensor");
    assert_status_msg(ct_tensor_view(t, SHAPE(6), &v), CT_ERR_NOT_IMPLEMENTED,
                      "ct_tensor_view: not supported for layout torch.sparse_coo");
    assert_int_equal(ct_tensor_clone(t, CT_MEMFMT_PRESERVE, &v), CT_ERR_NOT_IMPLEMENTED);
    ct_dtype r;
    const ct_tensor *ts[] = {t};
    OK(ct_tensor_result_type(ts, 1, &r));
    assert_int_equal(r, CT_FLOAT32);
    ct_tensor_release(t);
    assert_int_equal(ext_freed, 1);
    /* a failing call still frees the payload */
    assert_int_equal(ct_tensor_impl_new_nonstrided(CT_LAYOUT_SPARSE_COO, CT_FLOAT32, CPU, ARR(-1),
                                                   1, &ext_freed, free_ext, &t),
                     CT_ERR_RUNTIME);
    assert_int_equal(ext_freed, 2);
    assert_int_equal(ct_tensor_impl_new_nonstrided(CT_LAYOUT_STRIDED, CT_FLOAT32, CPU, ARR(1), 1,
                                                   NULL, NULL, &t),
                     CT_ERR_MISUSE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_storage),
        cmocka_unit_test(test_storage_wrap),
        cmocka_unit_test(test_from_storage_bounds),
        cmocka_unit_test(test_storage_sizes),
        cmocka_unit_test(test_constructor_paths),
        cmocka_unit_test(test_refcounts),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_format_strides),
        cmocka_unit_test(test_contiguity),
        cmocka_unit_test(test_suggest_exact),
        cmocka_unit_test(test_infer_dense_strides),
        cmocka_unit_test(test_preserve_format),
        cmocka_unit_test(test_contiguous_identity),
        cmocka_unit_test(test_result_type),
        cmocka_unit_test(test_item),
        cmocka_unit_test(test_type_string),
        cmocka_unit_test(test_nonstrided),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
