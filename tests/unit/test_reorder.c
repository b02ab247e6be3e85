/* Reordering and reshaping (reorder.h) and triangles (triangle.h): values, shapes, strides of
 * the views and of the copies (memory formats), messages, meta tensors, shell dtypes (bit
 * patterns, never values), in-place metadata ops and resize_. Expected values and messages
 * were checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "tensor_test_util.h"

#define VALS(...) ((const float[]){__VA_ARGS__})
#define NV(...) ((int64_t)(sizeof(VALS(__VA_ARGS__)) / sizeof(float)))

/* t (float32, any strides) equals want in C order. */
static void expect(const ct_tensor *t, const float *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT32);
    assert_int_equal(ct_tensor_numel(t), n);
    int64_t idx[CT_MAX_DIMS] = {0}, nd = ct_tensor_dim(t);
    for (int64_t i = 0; i < n; i++) {
        float got = at_f32(t, idx);
        if (got != want[i])
            fail_msg("element %d: got %g, want %g", (int)i, (double)got, (double)want[i]);
        for (int64_t d = nd - 1; d >= 0; d--) {
            if (++idx[d] < ct_tensor_sizes(t)[d])
                break;
            idx[d] = 0;
        }
    }
}
#define EXPECT(t, ...) expect(t, VALS(__VA_ARGS__), NV(__VA_ARGS__))

static ct_tensor *transposed(const int64_t *sizes, int64_t nd) {
    ct_tensor *a = iota(sizes, nd), *r = NULL;
    OK(ct_tensor_transpose(a, 0, 1, &r));
    ct_tensor_release(a);
    return r;
}

static void test_flip(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 3)), *r = NULL;
    OK(ct_tensor_flip(a, SHAPE(1), &r));
    assert_strides(r, 3, 1);
    EXPECT(r, 2, 1, 0, 5, 4, 3);
    ct_tensor_release(r);
    OK(ct_tensor_flip(a, SHAPE(0, -1), &r));
    EXPECT(r, 5, 4, 3, 2, 1, 0);
    ct_tensor_release(r);
    OK(ct_tensor_flip(a, NULL, 0, &r));
    EXPECT(r, 0, 1, 2, 3, 4, 5);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_flip(a, SHAPE(1, -1), &r), CT_ERR_RUNTIME,
               "dim 1 appears multiple times in the list of dims");
    assert_null(r);
    EXPECT_ERR(ct_tensor_flip(a, SHAPE(2), &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    OK(ct_tensor_fliplr(a, &r));
    EXPECT(r, 2, 1, 0, 5, 4, 3);
    ct_tensor_release(r);
    OK(ct_tensor_flipud(a, &r));
    EXPECT(r, 3, 4, 5, 0, 1, 2);
    ct_tensor_release(r);
    ct_tensor_release(a);
    /* a transposed input keeps its strides (empty_like preserve) */
    a = transposed(SHAPE(3, 2)); /* (2, 3) strides (1, 2): [[0 2 4] [1 3 5]] */
    OK(ct_tensor_flip(a, SHAPE(1), &r));
    assert_strides(r, 1, 2);
    EXPECT(r, 4, 2, 0, 5, 3, 1);
    ct_tensor_release(r);
    ct_tensor_release(a);
    a = iota(SHAPE(3));
    EXPECT_ERR(ct_tensor_fliplr(a, &r), CT_ERR_RUNTIME, "Input must be >= 2-d.");
    ct_tensor_release(a);
    /* a large flip runs through the threaded copy loop */
    OK(ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(3000000), ct_scalar_int(1), CT_FLOAT32,
                        &CPU, CT_LAYOUT_STRIDED, &a));
    OK(ct_tensor_flip(a, SHAPE(0), &r));
    const float *p = ct_tensor_data_ptr(r);
    for (int64_t i = 0; i < 3000000; i += 9973)
        assert_true(p[i] == (float)(2999999 - i));
    ct_tensor_release(r);
    ct_tensor_release(a);
}

static void test_roll(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 3)), *r = NULL;
    OK(ct_tensor_roll(a, SHAPE(1), SHAPE(1), &r));
    EXPECT(r, 2, 0, 1, 5, 3, 4);
    ct_tensor_release(r);
    OK(ct_tensor_roll(a, SHAPE(-4), SHAPE(-1), &r));
    EXPECT(r, 1, 2, 0, 4, 5, 3);
    ct_tensor_release(r);
    OK(ct_tensor_roll(a, SHAPE(2), NULL, 0, &r)); /* flattened */
    assert_sizes(r, 2, 3);
    EXPECT(r, 4, 5, 0, 1, 2, 3);
    ct_tensor_release(r);
    OK(ct_tensor_roll(a, SHAPE(1, 1), SHAPE(0, 1), &r));
    EXPECT(r, 5, 3, 4, 2, 0, 1);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_roll(a, NULL, 0, NULL, 0, &r), CT_ERR_RUNTIME, "`shifts` required");
    EXPECT_ERR(ct_tensor_roll(a, SHAPE(1, 2), SHAPE(0), &r), CT_ERR_RUNTIME,
               "shifts and dimensions must align. shifts: 2, dims:1");
    ct_tensor_release(a);
    ct_tensor *z = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_float(1), CT_FLOAT32, &CPU, &z));
    EXPECT_ERR(ct_tensor_roll(z, SHAPE(1), SHAPE(0), &r), CT_ERR_INDEX,
               "Dimension specified as 0 but tensor has no dimensions");
    OK(ct_tensor_roll(z, SHAPE(1), NULL, 0, &r));
    assert_int_equal(ct_tensor_dim(r), 0);
    ct_tensor_release(r);
    ct_tensor_release(z);
}

static void test_repeat_tile(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2)), *r = NULL;
    OK(ct_tensor_repeat(a, SHAPE(2, 2), &r));
    assert_sizes(r, 2, 4);
    assert_strides(r, 4, 1);
    EXPECT(r, 0, 1, 0, 1, 0, 1, 0, 1);
    ct_tensor_release(r);
    OK(ct_tensor_repeat(a, SHAPE(0, 2), &r));
    assert_sizes(r, 0, 4);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_repeat(a, NULL, 0, &r), CT_ERR_RUNTIME,
               "Number of dimensions of repeat dims can not be smaller than number of dimensions "
               "of tensor");
    EXPECT_ERR(ct_tensor_repeat(a, SHAPE(-1), &r), CT_ERR_RUNTIME,
               "Trying to create tensor with negative dimension -2: [-2]");
    ct_tensor_release(a);
    a = transposed(SHAPE(3, 2)); /* [[0 2 4] [1 3 5]] */
    OK(ct_tensor_repeat(a, SHAPE(2, 1), &r));
    EXPECT(r, 0, 2, 4, 1, 3, 5, 0, 2, 4, 1, 3, 5);
    ct_tensor_release(r);
    OK(ct_tensor_tile(a, SHAPE(2), &r)); /* reps padded to (1, 2) */
    assert_sizes(r, 2, 6);
    EXPECT(r, 0, 2, 4, 0, 2, 4, 1, 3, 5, 1, 3, 5);
    ct_tensor_release(r);
    ct_tensor_release(a);
}

static void test_triangles(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(3, 3)), *r = NULL;
    OK(ct_tensor_tril(a, 0, &r));
    EXPECT(r, 0, 0, 0, 3, 4, 0, 6, 7, 8);
    ct_tensor_release(r);
    OK(ct_tensor_triu(a, 1, &r));
    EXPECT(r, 0, 1, 2, 0, 0, 5, 0, 0, 0);
    ct_tensor_release(r);
    OK(ct_tensor_tril(a, -5, &r));
    EXPECT(r, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    ct_tensor_release(r);
    OK(ct_tensor_triu(a, INT64_MIN, &r));
    EXPECT(r, 0, 1, 2, 3, 4, 5, 6, 7, 8);
    ct_tensor_release(r);
    ct_tensor *t = transposed(SHAPE(3, 3));
    OK(ct_tensor_tril(t, 0, &r));
    assert_strides(r, 3, 1);
    EXPECT(r, 0, 0, 0, 1, 4, 0, 2, 5, 8);
    ct_tensor_release(r);
    OK(ct_tensor_triu_(t, 0)); /* in place keeps the strides */
    assert_strides(t, 1, 3);
    EXPECT(t, 0, 3, 6, 0, 4, 7, 0, 0, 8);
    ct_tensor_release(t);
    /* out= */
    ct_tensor *o = NULL, *i = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
    OK(ct_tensor_tril_out(a, 1, o));
    EXPECT(o, 0, 1, 0, 3, 4, 5, 6, 7, 8);
    OK(ct_tensor_empty(SHAPE(3, 3), CT_INT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &i));
    EXPECT_ERR(ct_tensor_tril_out(a, 0, i), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype float, but got int instead");
    ct_tensor_release(i);
    ct_tensor_release(o);
    ct_tensor_release(a);
    a = iota(SHAPE(3));
    EXPECT_ERR(ct_tensor_tril(a, 0, &r), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    ct_tensor_release(a);
    /* batched */
    a = iota(SHAPE(2, 2, 2));
    OK(ct_tensor_triu(a, 0, &r));
    EXPECT(r, 0, 1, 0, 3, 4, 5, 0, 7);
    ct_tensor_release(r);
    ct_tensor_release(a);
}

static void test_diagonal_unfold(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 3, 4)), *r = NULL;
    OK(ct_tensor_diagonal(a, -1, 1, 2, &r));
    assert_sizes(r, 2, 2);
    assert_strides(r, 12, 5);
    assert_int_equal(ct_tensor_storage_offset(r), 4);
    EXPECT(r, 4, 9, 16, 21);
    ct_tensor_release(r);
    OK(ct_tensor_diagonal(a, 1, 2, 0, &r));
    assert_sizes(r, 3, 1);
    assert_strides(r, 4, 13);
    EXPECT(r, 12, 16, 20);
    ct_tensor_release(r);
    OK(ct_tensor_diagonal(a, 5, 0, 1, &r));
    assert_sizes(r, 4, 0);
    assert_int_equal(ct_tensor_storage_offset(r), 0);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_diagonal(a, 0, 1, -2, &r), CT_ERR_RUNTIME,
               "diagonal dimensions cannot be identical 1, -2");
    ct_tensor_release(a);
    a = iota(SHAPE(5, 4));
    OK(ct_tensor_unfold(a, 0, 2, 2, &r));
    assert_sizes(r, 2, 4, 2);
    assert_strides(r, 8, 1, 4);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_unfold(a, 0, 6, 1, &r), CT_ERR_RUNTIME,
               "maximum size for tensor at dimension 0 is 5 but size is 6");
    EXPECT_ERR(ct_tensor_unfold(a, 1, 2, 0, &r), CT_ERR_RUNTIME, "step is 0 but must be > 0");
    ct_tensor_release(a);
}

static void test_diag(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2)), *r = NULL, *o = NULL;
    OK(ct_tensor_diag_embed(a, 1, -2, -1, &r));
    assert_sizes(r, 3, 3);
    EXPECT(r, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_diag_embed(a, 0, 0, -2, &r), CT_ERR_RUNTIME,
               "diagonal dimensions cannot be identical 0, -2");
    OK(ct_tensor_diag(a, -1, &r));
    EXPECT(r, 0, 0, 0, 0, 0, 0, 0, 1, 0);
    ct_tensor_release(r);
    ct_tensor_release(a);
    a = iota(SHAPE(2, 3));
    OK(ct_tensor_diag(a, 1, &r));
    assert_sizes(r, 2);
    EXPECT(r, 1, 5);
    ct_tensor_release(r);
    OK(ct_tensor_empty(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
    OK(ct_tensor_diag_out(a, 0, o));
    EXPECT(o, 0, 4);
    ct_tensor_release(o);
    ct_tensor_release(a);
    a = iota(SHAPE(2, 2, 2));
    EXPECT_ERR(ct_tensor_diag(a, 0, &r), CT_ERR_RUNTIME, "matrix or a vector expected");
    ct_tensor_release(a);
}

static void test_inplace_views(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 1, 4));
    OK(ct_tensor_transpose_(a, 0, 2));
    assert_sizes(a, 4, 1, 2);
    assert_strides(a, 1, 4, 4);
    OK(ct_tensor_squeeze_(a));
    assert_sizes(a, 4, 2);
    OK(ct_tensor_unsqueeze_(a, 2));
    assert_sizes(a, 4, 2, 1);
    assert_strides(a, 1, 4, 1);
    OK(ct_tensor_squeeze_dim_(a, -1));
    OK(ct_tensor_t_(a));
    assert_sizes(a, 2, 4);
    assert_strides(a, 4, 1);
    OK(ct_tensor_as_strided_(a, ARR(2, 2), ARR(1, 2), 2, &(int64_t){1}));
    assert_int_equal(ct_tensor_storage_offset(a), 1);
    EXPECT(a, 1, 3, 2, 4);
    EXPECT_ERR(ct_tensor_as_strided_(a, ARR(200, 2), ARR(1, 2), 2, NULL), CT_ERR_RUNTIME,
               "setStorage: sizes [200, 2], strides [1, 2], storage offset 1, and itemsize 4 "
               "requiring a storage size of 812 are out of bounds for storage of size 32");
    assert_sizes(a, 2, 2); /* unchanged */
    ct_tensor_release(a);
    a = iota(SHAPE(2, 3, 4));
    EXPECT_ERR(ct_tensor_t_(a), CT_ERR_RUNTIME,
               "t_() expects a tensor with <= 2 dimensions, but self is 3D");
    ct_tensor_release(a);
}

static void test_resize(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 3));
    OK(ct_tensor_resize_(a, SHAPE(4), NULL)); /* keeps the data prefix */
    EXPECT(a, 0, 1, 2, 3);
    OK(ct_tensor_resize_(a, SHAPE(2, 2, 2, 2), &(ct_memory_format){CT_MEMFMT_CHANNELS_LAST}));
    assert_strides(a, 8, 1, 4, 2);
    OK(ct_tensor_resize_(a, SHAPE(2, 2, 2, 2), NULL)); /* same sizes: strides kept */
    assert_strides(a, 8, 1, 4, 2);
    EXPECT_ERR(ct_tensor_resize_(a, SHAPE(2, 2), &(ct_memory_format){CT_MEMFMT_CHANNELS_LAST}),
               CT_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
    EXPECT_ERR(ct_tensor_resize_(a, SHAPE(2, 2), &(ct_memory_format){CT_MEMFMT_PRESERVE}),
               CT_ERR_RUNTIME, "Unsupported memory formatPreserve");
    EXPECT_ERR(ct_tensor_resize_(a, SHAPE(-1), NULL), CT_ERR_RUNTIME,
               "numel: integer multiplication overflow");
    ct_tensor *t = transposed(SHAPE(3, 2));
    OK(ct_tensor_resize_as_(a, t, NULL));
    assert_sizes(a, 2, 3);
    assert_strides(a, 3, 1);
    ct_tensor_release(t);
    ct_tensor_release(a);
    /* memory the tensor does not own cannot grow */
    float buf[4] = {0};
    ct_storage *s = NULL;
    OK(ct_storage_wrap(CPU, buf, sizeof buf, NULL, NULL, &s));
    OK(ct_tensor_from_storage(s, ARR(4), NULL, 1, 0, CT_FLOAT32, &a));
    ct_storage_release(s);
    EXPECT_ERR(ct_tensor_resize_(a, SHAPE(10), NULL), CT_ERR_RUNTIME,
               "Trying to resize storage that is not resizable");
    OK(ct_tensor_resize_(a, SHAPE(2), NULL));
    ct_tensor_release(a);
}

static void test_meta_and_shell(void **state) {
    (void)state;
    ct_tensor *m = NULL, *r = NULL;
    OK(ct_tensor_empty(SHAPE(3, 4), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &m));
    OK(ct_tensor_flip(m, SHAPE(0), &r));
    assert_true(ct_tensor_is_meta(r));
    ct_tensor_release(r);
    OK(ct_tensor_repeat(m, SHAPE(2, 1), &r));
    assert_sizes(r, 6, 4);
    ct_tensor_release(r);
    OK(ct_tensor_tril(m, 0, &r));
    ct_tensor_release(r);
    OK(ct_tensor_roll(m, SHAPE(1), SHAPE(0), &r));
    ct_tensor_release(r);
    ct_tensor_release(m);
    /* a shell dtype: bytes move, nothing is read */
    static const ct_dtype shells[] = {CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2, CT_UINT16, CT_UINT32,
                                      CT_UINT64};
    for (size_t k = 0; k < sizeof shells / sizeof shells[0]; k++) {
        ct_tensor *a = NULL, *u = NULL;
        OK(ct_tensor_empty(SHAPE(2, 3), shells[k], &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &a));
        size_t isz = ct_tensor_element_size(a);
        unsigned char *p = ct_tensor_data_ptr(a);
        for (size_t i = 0; i < 6 * isz; i++)
            p[i] = (unsigned char)(i / isz + 1); /* element i has every byte i + 1 */
        OK(ct_tensor_flip(a, SHAPE(1), &r));
        const unsigned char *q = ct_tensor_data_ptr(r);
        assert_int_equal(q[0], 3);
        assert_int_equal(q[5 * isz], 4);
        ct_tensor_release(r);
        OK(ct_tensor_tril(a, 0, &r));
        q = ct_tensor_data_ptr(r);
        assert_int_equal(q[0], 1);
        assert_int_equal(q[isz], 0);
        assert_int_equal(q[4 * isz], 5);
        ct_tensor_release(r);
        OK(ct_tensor_tile(a, SHAPE(2), &r));
        q = ct_tensor_data_ptr(r);
        assert_int_equal(q[3 * isz], 1);
        assert_int_equal(q[11 * isz], 6);
        ct_tensor_release(r);
        OK(ct_tensor_roll(a, SHAPE(1), SHAPE(0), &u));
        q = ct_tensor_data_ptr(u);
        assert_int_equal(q[0], 4);
        ct_tensor_release(u);
        ct_tensor_release(a);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flip),
        cmocka_unit_test(test_roll),
        cmocka_unit_test(test_repeat_tile),
        cmocka_unit_test(test_triangles),
        cmocka_unit_test(test_diagonal_unfold),
        cmocka_unit_test(test_diag),
        cmocka_unit_test(test_inplace_views),
        cmocka_unit_test(test_resize),
        cmocka_unit_test(test_meta_and_shell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
