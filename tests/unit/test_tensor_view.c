/* Views: view, reshape, t, transpose, permute, expand, narrow, select, slice, squeeze,
 * unsqueeze, flatten, as_strided; their PyTorch errors; overflow and dimension limits. */
#include "tensor_test_util.h"

static ct_tensor *v_; /* the view under test, released by each check */

static void release_v(void) {
    ct_tensor_release(v_);
    v_ = NULL;
}

/* ---- view / reshape ---- */

static void test_view(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3));
    OK(ct_tensor_view(x, SHAPE(3, 2), &v_));
    assert_sizes(v_, 3, 2);
    assert_strides(v_, 2, 1);
    assert_ptr_equal(ct_tensor_storage(v_), ct_tensor_storage(x));
    assert_true(at_f32(v_, ARR(2, 1)) == 5.0f);
    release_v();
    OK(ct_tensor_view(x, SHAPE(-1), &v_));
    assert_sizes(v_, 6);
    release_v();
    OK(ct_tensor_view(x, SHAPE(-1, 3), &v_));
    assert_sizes(v_, 2, 3);
    release_v();
    OK(ct_tensor_view(x, SHAPE(1, 2, 1, 3, 1), &v_));
    assert_strides(v_, 6, 3, 3, 1, 1);
    release_v();
    assert_status_msg(ct_tensor_view(x, SHAPE(2, -1, -1), &v_), CT_ERR_RUNTIME,
                      "only one dimension can be inferred");
    assert_null(v_);
    assert_status_msg(ct_tensor_view(x, SHAPE(-2, 3), &v_), CT_ERR_RUNTIME,
                      "invalid shape dimension -2");
    assert_status_msg(ct_tensor_view(x, SHAPE(2, 5), &v_), CT_ERR_RUNTIME,
                      "shape '[2, 5]' is invalid for input of size 6");
    assert_status_msg(ct_tensor_view(x, SHAPE(4, -1), &v_), CT_ERR_RUNTIME,
                      "shape '[4, -1]' is invalid for input of size 6");
    /* a product that overflows int64 can never match */
    assert_status_msg(ct_tensor_view(x, SHAPE(INT64_C(1) << 40, INT64_C(1) << 40), &v_),
                      CT_ERR_RUNTIME,
                      "shape '[1099511627776, 1099511627776]' is invalid for input of size 6");

    /* transposed: only shapes that keep the memory chunks */
    ct_tensor *t = NULL;
    OK(ct_tensor_t(x, &t)); /* (3,2)@(1,3) */
    assert_status_msg(ct_tensor_view(t, SHAPE(6), &v_), CT_ERR_RUNTIME,
                      "view size is not compatible with input tensor's size and stride (at least "
                      "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                      "instead.");
    OK(ct_tensor_view(t, SHAPE(3, 1, 2), &v_));
    assert_strides(v_, 1, 6, 3);
    release_v();
    ct_tensor_release(t);

    /* a (4, 6) tensor sliced to (4, 3) columns: rows stay separate chunks */
    ct_tensor *big = iota(SHAPE(4, 6)), *cols = NULL;
    OK(ct_tensor_narrow(big, 1, 0, 3, &cols));
    OK(ct_tensor_view(cols, SHAPE(2, 2, 3), &v_));
    assert_strides(v_, 12, 6, 1);
    release_v();
    assert_int_equal(ct_tensor_view(cols, SHAPE(12), &v_), CT_ERR_RUNTIME);
    ct_tensor_release(cols);
    ct_tensor_release(big);

    /* 0-dim and empty tensors */
    ct_tensor *s = NULL, *e = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_float(1.5), CT_DTYPE_UNDEFINED, &CPU, &s));
    OK(ct_tensor_view(s, SHAPE(-1), &v_));
    assert_sizes(v_, 1);
    release_v();
    OK(ct_tensor_view(s, SHAPE(1, 1), &v_));
    assert_strides(v_, 1, 1);
    release_v();
    OK(ct_tensor_view(s, NULL, 0, &v_));
    assert_int_equal(ct_tensor_dim(v_), 0);
    release_v();
    ct_tensor_release(s);
    OK(ct_tensor_empty_strided(ARR(0, 3), ARR(7, 100), 2, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &e));
    OK(ct_tensor_view(e, SHAPE(0, 3), &v_));
    assert_strides(v_, 7, 100); /* same shape: strides kept, as NumPy */
    release_v();
    OK(ct_tensor_view(e, SHAPE(3, 0, 2), &v_));
    assert_strides(v_, 2, 2, 1);
    release_v();
    assert_status_msg(ct_tensor_view(e, SHAPE(0, -1), &v_), CT_ERR_RUNTIME,
                      "cannot reshape tensor of 0 elements into shape [0, -1] because the "
                      "unspecified dimension size -1 can be any value and is ambiguous");
    OK(ct_tensor_view(e, SHAPE(-1, 5), &v_));
    assert_sizes(v_, 0, 5);
    release_v();
    ct_tensor_release(e);
    ct_tensor_release(x);
}

static void test_reshape(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3)), *t = NULL;
    OK(ct_tensor_reshape(x, SHAPE(-1), &v_));
    assert_ptr_equal(ct_tensor_storage(v_), ct_tensor_storage(x)); /* a view */
    release_v();
    OK(ct_tensor_t(x, &t));
    OK(ct_tensor_reshape(t, SHAPE(6), &v_)); /* a copy, in logical order */
    assert_ptr_not_equal(ct_tensor_storage(v_), ct_tensor_storage(x));
    const float want[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(ct_tensor_data_ptr(v_), want, sizeof want);
    assert_strides(v_, 1);
    release_v();
    OK(ct_tensor_reshape(t, SHAPE(2, -1), &v_));
    assert_sizes(v_, 2, 3);
    assert_strides(v_, 3, 1);
    release_v();
    assert_status_msg(ct_tensor_reshape(t, SHAPE(5), &v_), CT_ERR_RUNTIME,
                      "shape '[5]' is invalid for input of size 6");
    ct_tensor_release(t);
    ct_tensor_release(x);
}

/* ---- reordering ---- */

static void test_transpose(void **state) {
    (void)state;
    ct_tensor *x = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &x));
    OK(ct_tensor_t(x, &v_));
    assert_sizes(v_, 3, 2);
    assert_strides(v_, 1, 3);
    release_v();
    assert_status_msg(ct_tensor_transpose(x, 0, 2, &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    OK(ct_tensor_transpose(x, -1, -2, &v_));
    assert_strides(v_, 1, 3);
    release_v();
    OK(ct_tensor_transpose(x, 1, 1, &v_)); /* an alias */
    assert_ptr_not_equal(v_, x);
    assert_strides(v_, 3, 1);
    release_v();
    ct_tensor_release(x);
    OK(ct_tensor_empty(SHAPE(2, 3, 4), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &x));
    OK(ct_tensor_transpose(x, 0, 2, &v_));
    assert_sizes(v_, 4, 3, 2);
    assert_strides(v_, 1, 4, 12);
    release_v();
    assert_status_msg(ct_tensor_t(x, &v_), CT_ERR_RUNTIME,
                      "t() expects a tensor with <= 2 dimensions, but self is 3D");
    ct_tensor_release(x);
    /* 0-D and 1-D: t() is a view with the same shape */
    OK(ct_tensor_empty(SHAPE(5), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    OK(ct_tensor_t(x, &v_));
    assert_sizes(v_, 5);
    release_v();
    ct_tensor_release(x);
    OK(ct_tensor_empty(NULL, 0, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    OK(ct_tensor_t(x, &v_));
    assert_int_equal(ct_tensor_dim(v_), 0);
    release_v();
    OK(ct_tensor_transpose(x, 0, -1, &v_));
    release_v();
    assert_status_msg(ct_tensor_transpose(x, 0, 1, &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    ct_tensor_release(x);
}

static void test_permute(void **state) {
    (void)state;
    ct_tensor *x = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3, 4), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &x));
    OK(ct_tensor_permute(x, SHAPE(2, 0, 1), &v_));
    assert_sizes(v_, 4, 2, 3);
    assert_strides(v_, 1, 12, 4);
    assert_true(ct_tensor_is_non_overlapping_and_dense(v_));
    release_v();
    OK(ct_tensor_permute(x, SHAPE(-1, -3, 1), &v_));
    assert_strides(v_, 1, 12, 4);
    release_v();
    assert_status_msg(
        ct_tensor_permute(x, SHAPE(1, 0), &v_), CT_ERR_RUNTIME,
        "permute(sparse_coo): number of dimensions in the tensor input does not match "
        "the length of the desired ordering of dimensions i.e. input.dim() = 3 is not "
        "equal to len(dims) = 2");
    assert_status_msg(ct_tensor_permute(x, SHAPE(0, 1, 1), &v_), CT_ERR_RUNTIME,
                      "permute(): duplicate dims are not allowed.");
    assert_status_msg(ct_tensor_permute(x, SHAPE(0, 1, 3), &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ct_tensor_release(x);
    OK(ct_tensor_empty(NULL, 0, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    OK(ct_tensor_permute(x, NULL, 0, &v_));
    release_v();
    ct_tensor_release(x);
}

/* ---- expand ---- */

static void test_expand(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(1, 3)), *y = NULL;
    OK(ct_tensor_expand(x, SHAPE(2, 3), &v_));
    assert_strides(v_, 0, 1);
    assert_false(ct_tensor_is_contiguous(v_, CT_MEMFMT_CONTIGUOUS));
    assert_true(at_f32(v_, ARR(1, 2)) == 2.0f);
    release_v();
    OK(ct_tensor_expand(x, SHAPE(4, -1, -1), &v_));
    assert_sizes(v_, 4, 1, 3);
    assert_strides(v_, 0, 3, 1);
    release_v();
    OK(ct_tensor_expand(x, SHAPE(5, 2, 3), &v_));
    assert_strides(v_, 0, 0, 1);
    release_v();
    OK(ct_tensor_view(x, SHAPE(3, 1), &y));
    OK(ct_tensor_expand(y, SHAPE(2, -1, 4), &v_));
    assert_sizes(v_, 2, 3, 4);
    assert_strides(v_, 0, 1, 0);
    release_v();
    ct_tensor_release(y);
    assert_status_msg(ct_tensor_expand(x, SHAPE(3), &v_), CT_ERR_RUNTIME,
                      "expand(torch.FloatTensor{[1, 3]}, size=[3]): the number of sizes provided "
                      "(1) must be greater or equal to the number of dimensions in the tensor (2)");
    assert_status_msg(ct_tensor_expand(x, SHAPE(2, 4), &v_), CT_ERR_RUNTIME,
                      "The expanded size of the tensor (4) must match the existing size (3) at "
                      "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [1, 3]");
    assert_status_msg(ct_tensor_expand(x, SHAPE(-1, 1, 3), &v_), CT_ERR_RUNTIME,
                      "The expanded size of the tensor (-1) isn't allowed in a leading, "
                      "non-existing dimension 0");
    assert_status_msg(ct_tensor_expand(x, SHAPE(-2, 3), &v_), CT_ERR_RUNTIME,
                      "Trying to create tensor with negative dimension -2: [-2, 3]");
    assert_status_msg(ct_tensor_expand(x, SHAPE(INT64_C(1) << 40, INT64_C(1) << 40, 3), &v_),
                      CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    ct_tensor_release(x);
    /* 0-dim: every dim is new and broadcast */
    OK(ct_tensor_scalar_tensor(ct_scalar_int(4), CT_DTYPE_UNDEFINED, &CPU, &x));
    OK(ct_tensor_expand(x, SHAPE(2, 3), &v_));
    assert_strides(v_, 0, 0);
    release_v();
    OK(ct_tensor_expand(x, SHAPE(1), &v_));
    assert_strides(v_, 0);
    release_v();
    assert_status_msg(ct_tensor_expand(x, SHAPE(-1), &v_), CT_ERR_RUNTIME,
                      "The expanded size of the tensor (-1) isn't allowed in a leading, "
                      "non-existing dimension 0");
    ct_tensor_release(x);
}

/* ---- cutting ---- */

static void test_narrow_select(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(4, 5));
    OK(ct_tensor_narrow(x, 1, 1, 3, &v_));
    assert_sizes(v_, 4, 3);
    assert_strides(v_, 5, 1);
    assert_int_equal(ct_tensor_storage_offset(v_), 1);
    assert_true(at_f32(v_, ARR(3, 2)) == 18.0f);
    release_v();
    OK(ct_tensor_narrow(x, 0, -2, 2, &v_));
    assert_int_equal(ct_tensor_storage_offset(v_), 10);
    release_v();
    OK(ct_tensor_narrow(x, -1, 5, 0, &v_)); /* empty at the end */
    assert_sizes(v_, 4, 0);
    release_v();
    assert_status_msg(ct_tensor_narrow(x, 0, 0, -1, &v_), CT_ERR_RUNTIME,
                      "narrow(): length must be non-negative.");
    assert_status_msg(ct_tensor_narrow(x, 0, 5, 0, &v_), CT_ERR_INDEX,
                      "start out of range (expected to be in range of [-4, 4], but got 5)");
    assert_status_msg(ct_tensor_narrow(x, 0, -5, 1, &v_), CT_ERR_INDEX,
                      "start out of range (expected to be in range of [-4, 4], but got -5)");
    assert_status_msg(ct_tensor_narrow(x, 0, 3, 2, &v_), CT_ERR_RUNTIME,
                      "start (3) + length (2) exceeds dimension size (4).");
    assert_status_msg(ct_tensor_narrow(x, 2, 0, 1, &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)");

    OK(ct_tensor_select(x, 0, 1, &v_));
    assert_sizes(v_, 5);
    assert_int_equal(ct_tensor_storage_offset(v_), 5);
    release_v();
    OK(ct_tensor_select(x, 1, -1, &v_));
    assert_sizes(v_, 4);
    assert_strides(v_, 5);
    assert_int_equal(ct_tensor_storage_offset(v_), 4);
    release_v();
    assert_status_msg(ct_tensor_select(x, 0, 4, &v_), CT_ERR_INDEX,
                      "select(): index 4 out of range for tensor of size [4, 5] at dimension 0");
    assert_status_msg(ct_tensor_select(x, -1, -6, &v_), CT_ERR_INDEX,
                      "select(): index -6 out of range for tensor of size [4, 5] at dimension 1");
    ct_tensor *s = NULL;
    OK(ct_tensor_select(x, 0, 0, &s));
    OK(ct_tensor_select(s, 0, 3, &v_)); /* down to 0-dim */
    ct_tensor_release(s);
    assert_int_equal(ct_tensor_dim(v_), 0);
    assert_true(item_f64(v_) == 3.0);
    assert_status_msg(ct_tensor_select(v_, 0, 0, &s), CT_ERR_INDEX,
                      "select() cannot be applied to a 0-dim tensor.");
    assert_status_msg(ct_tensor_narrow(v_, 0, 0, 0, &s), CT_ERR_RUNTIME,
                      "narrow() cannot be applied to a 0-dim tensor.");
    assert_status_msg(ct_tensor_slice(v_, 0, 0, 1, 1, &s), CT_ERR_INDEX,
                      "slice() cannot be applied to a 0-dim tensor.");
    release_v();
    ct_tensor_release(x);
}

static void test_slice(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(10));
    OK(ct_tensor_slice(x, 0, 2, 8, 3, &v_)); /* 2, 5 */
    assert_sizes(v_, 2);
    assert_strides(v_, 3);
    assert_int_equal(ct_tensor_storage_offset(v_), 2);
    release_v();
    OK(ct_tensor_slice(x, 0, -3, CT_SLICE_END, 1, &v_));
    assert_sizes(v_, 3);
    assert_int_equal(ct_tensor_storage_offset(v_), 7);
    release_v();
    OK(ct_tensor_slice(x, 0, -100, 100, 1, &v_));
    assert_sizes(v_, 10);
    release_v();
    OK(ct_tensor_slice(x, 0, 8, 2, 1, &v_));
    assert_sizes(v_, 0);
    release_v();
    OK(ct_tensor_slice(x, 0, 0, 10, 4, &v_)); /* 0, 4, 8 */
    assert_sizes(v_, 3);
    assert_strides(v_, 4);
    release_v();
    OK(ct_tensor_slice(x, 0, 1, CT_SLICE_END, 2, &v_));
    const float *p = ct_tensor_data_ptr(v_);
    assert_true(p[0] == 1.0f && p[2 * 4] == 9.0f);
    assert_false(ct_tensor_is_contiguous(v_, CT_MEMFMT_CONTIGUOUS));
    release_v();
    OK(ct_tensor_slice(x, 0, 3, CT_SLICE_END, INT64_MAX, &v_)); /* stride would overflow */
    assert_sizes(v_, 1);
    assert_int_equal(ct_tensor_storage_offset(v_), 3);
    release_v();
    OK(ct_tensor_slice(x, 0, INT64_MIN, -8, 1, &v_));
    assert_sizes(v_, 2);
    release_v();
    assert_status_msg(ct_tensor_slice(x, 0, 0, 5, 0, &v_), CT_ERR_VALUE,
                      "step must be greater than zero");
    assert_status_msg(ct_tensor_slice(x, 0, 5, 0, -1, &v_), CT_ERR_VALUE,
                      "step must be greater than zero");
    assert_status_msg(ct_tensor_slice(x, 1, 0, 5, 1, &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    ct_tensor_release(x);
}

static void test_squeeze_unsqueeze(void **state) {
    (void)state;
    ct_tensor *x = NULL;
    OK(ct_tensor_empty(SHAPE(1, 3, 1, 2), CT_FLOAT32, &META, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CONTIGUOUS, &x));
    OK(ct_tensor_squeeze(x, &v_));
    assert_sizes(v_, 3, 2);
    assert_strides(v_, 2, 1);
    release_v();
    OK(ct_tensor_squeeze_dim(x, 0, &v_));
    assert_sizes(v_, 3, 1, 2);
    release_v();
    OK(ct_tensor_squeeze_dim(x, 1, &v_));
    assert_sizes(v_, 1, 3, 1, 2);
    release_v();
    OK(ct_tensor_squeeze_dim(x, -2, &v_));
    assert_sizes(v_, 1, 3, 2);
    release_v();
    assert_status_msg(ct_tensor_squeeze_dim(x, 4, &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
    ct_tensor_release(x);

    OK(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &x));
    OK(ct_tensor_unsqueeze(x, 0, &v_));
    assert_sizes(v_, 1, 2, 3);
    assert_strides(v_, 6, 3, 1);
    release_v();
    OK(ct_tensor_unsqueeze(x, 1, &v_));
    assert_strides(v_, 3, 3, 1);
    release_v();
    OK(ct_tensor_unsqueeze(x, -1, &v_));
    assert_sizes(v_, 2, 3, 1);
    assert_strides(v_, 3, 1, 1);
    release_v();
    assert_status_msg(ct_tensor_unsqueeze(x, 3, &v_), CT_ERR_INDEX,
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ct_tensor_release(x);

    OK(ct_tensor_empty(NULL, 0, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    OK(ct_tensor_squeeze(x, &v_));
    release_v();
    OK(ct_tensor_squeeze_dim(x, -1, &v_));
    assert_int_equal(ct_tensor_dim(v_), 0);
    release_v();
    OK(ct_tensor_unsqueeze(x, 0, &v_));
    assert_sizes(v_, 1);
    assert_strides(v_, 1);
    release_v();
    assert_int_equal(ct_tensor_unsqueeze(x, 1, &v_), CT_ERR_INDEX);
    ct_tensor_release(x);
}

static void test_flatten(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3, 4)), *t = NULL;
    OK(ct_tensor_flatten(x, 0, -1, &v_));
    assert_sizes(v_, 24);
    assert_ptr_equal(ct_tensor_storage(v_), ct_tensor_storage(x));
    release_v();
    OK(ct_tensor_flatten(x, 1, 2, &v_));
    assert_sizes(v_, 2, 12);
    release_v();
    OK(ct_tensor_flatten(x, 1, 1, &v_));
    assert_ptr_equal(v_, x); /* start == end: the tensor itself */
    release_v();
    assert_status_msg(ct_tensor_flatten(x, 2, 1, &v_), CT_ERR_RUNTIME,
                      "flatten() has invalid args: start_dim cannot come after end_dim");
    assert_int_equal(ct_tensor_flatten(x, 0, 3, &v_), CT_ERR_INDEX);
    OK(ct_tensor_transpose(x, 0, 2, &t));
    OK(ct_tensor_flatten(t, 0, 1, &v_)); /* not viewable: a copy */
    assert_sizes(v_, 12, 2);
    assert_ptr_not_equal(ct_tensor_storage(v_), ct_tensor_storage(x));
    assert_true(at_f32(v_, ARR(1, 1)) == 16.0f); /* t[0][1][1] = x[1][1][0] */
    release_v();
    ct_tensor_release(t);
    ct_tensor_release(x);
    OK(ct_tensor_scalar_tensor(ct_scalar_int(7), CT_DTYPE_UNDEFINED, &CPU, &x));
    OK(ct_tensor_flatten(x, 0, -1, &v_));
    assert_sizes(v_, 1);
    release_v();
    ct_tensor_release(x);
}

/* ---- as_strided, overflow, dims ---- */

static void test_as_strided(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(6));
    OK(ct_tensor_as_strided(x, ARR(2, 2), ARR(1, 2), 2, NULL, &v_));
    assert_true(at_f32(v_, ARR(1, 1)) == 3.0f);
    release_v();
    int64_t off = 2;
    OK(ct_tensor_as_strided(x, ARR(2), ARR(3), 1, &off, &v_));
    assert_int_equal(ct_tensor_storage_offset(v_), 2);
    assert_true(at_f32(v_, ARR(1)) == 5.0f);
    release_v();
    OK(ct_tensor_as_strided(x, ARR(3, 2), ARR(0, 1), 2, NULL, &v_)); /* overlapping is fine */
    release_v();
    assert_status_msg(ct_tensor_as_strided(x, ARR(4), ARR(2), 1, NULL, &v_), CT_ERR_RUNTIME,
                      "setStorage: sizes [4], strides [2], storage offset 0, and itemsize 4 "
                      "requiring a storage size of 28 are out of bounds for storage of size 24");
    off = 5;
    assert_status_msg(ct_tensor_as_strided(x, ARR(2), ARR(1), 1, &off, &v_), CT_ERR_RUNTIME,
                      "setStorage: sizes [2], strides [1], storage offset 5, and itemsize 4 "
                      "requiring a storage size of 28 are out of bounds for storage of size 24");
    assert_status_msg(ct_tensor_as_strided(x, ARR(2), ARR(-1), 1, NULL, &v_), CT_ERR_RUNTIME,
                      "as_strided: Negative strides are not supported at the moment, got strides: "
                      "[-1]");
    assert_status_msg(ct_tensor_as_strided(x, ARR(-2), ARR(1), 1, NULL, &v_), CT_ERR_RUNTIME,
                      "Trying to create tensor with negative dimension -2: [-2]");
    assert_status_msg(ct_tensor_as_strided(x, ARR(2), ARR(INT64_C(1) << 62), 1, NULL, &v_),
                      CT_ERR_OVERFLOW,
                      "Storage size calculation overflowed with sizes=[2] and "
                      "strides=[4611686018427387904]");
    off = -1;
    assert_status_msg(ct_tensor_as_strided(x, ARR(2), ARR(1), 1, &off, &v_), CT_ERR_RUNTIME,
                      "Tensor: invalid storage offset -1");
    off = 1000; /* an empty view may start past the end */
    OK(ct_tensor_as_strided(x, ARR(0), ARR(1), 1, &off, &v_));
    release_v();
    ct_tensor_release(x);
}

static void test_limits(void **state) {
    (void)state;
    int64_t ones[70];
    for (int i = 0; i < 70; i++)
        ones[i] = 1;
    ct_tensor *x = NULL;
    OK(ct_tensor_empty(ones, 64, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x));
    assert_int_equal(ct_tensor_dim(x), 64);
    assert_status_msg(ct_tensor_unsqueeze(x, 0, &v_), CT_ERR_VALUE,
                      "maximum supported dimension for a tensor is 64, found 65");
    OK(ct_tensor_squeeze(x, &v_));
    assert_int_equal(ct_tensor_dim(v_), 0);
    release_v();
    OK(ct_tensor_transpose(x, 0, 63, &v_)); /* heap-held sizes */
    release_v();
    assert_status_msg(ct_tensor_view(x, ones, 65, &v_), CT_ERR_VALUE,
                      "maximum supported dimension for a tensor is 64, found 65");
    assert_status_msg(ct_tensor_expand(x, ones, 65, &v_), CT_ERR_VALUE,
                      "maximum supported dimension for a tensor is 64, found 65");
    ct_tensor_release(x);
    assert_status_msg(
        ct_tensor_empty(ones, 65, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x),
        CT_ERR_VALUE, "maximum supported dimension for a tensor is 64, found 65");
    assert_null(x);

    /* sizes whose product overflows */
    const int64_t big = INT64_C(1) << 40;
    assert_status_msg(ct_tensor_empty(SHAPE(big, big), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                                      CT_MEMFMT_CONTIGUOUS, &x),
                      CT_ERR_OVERFLOW,
                      "Storage size calculation overflowed with sizes=[1099511627776, "
                      "1099511627776]");
    assert_status_msg(ct_tensor_empty(SHAPE(INT64_C(1) << 61, 8), CT_INT8, &META, CT_LAYOUT_STRIDED,
                                      CT_MEMFMT_CONTIGUOUS, &x),
                      CT_ERR_OVERFLOW,
                      "Storage size calculation overflowed with sizes=[2305843009213693952, 8]");
    assert_status_msg(ct_tensor_empty(SHAPE(INT64_C(1) << 61, 2), CT_FLOAT32, &META,
                                      CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &x),
                      CT_ERR_OVERFLOW,
                      "Storage size calculation overflowed with sizes=[2305843009213693952, 2]");
    /* an empty tensor with huge other sizes: storage 0, but the strides overflow */
    assert_status_msg(ct_tensor_empty(SHAPE(0, big, big), CT_FLOAT32, &META, CT_LAYOUT_STRIDED,
                                      CT_MEMFMT_CONTIGUOUS, &x),
                      CT_ERR_OVERFLOW, "Stride calculation overflowed");
    OK(ct_tensor_empty(SHAPE(big, big, 0), CT_FLOAT32, &META, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CONTIGUOUS, &x));
    assert_int_equal(ct_tensor_numel(x), 0);
    ct_tensor_release(x);
    /* a meta tensor can be big; its views too */
    OK(ct_tensor_empty(SHAPE(big, 1024), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &x));
    assert_int_equal(ct_tensor_nbytes(x), big * 4096);
    OK(ct_tensor_t(x, &v_));
    release_v();
    OK(ct_tensor_unsqueeze(x, 0, &v_));
    assert_strides(v_, big * 1024, 1024, 1);
    release_v();
    assert_status_msg(ct_tensor_expand(x, SHAPE(1 << 22, big, 1024), &v_), CT_ERR_OVERFLOW,
                      "numel: integer multiplication overflow");
    ct_tensor_release(x);
    /* negative sizes */
    assert_status_msg(ct_tensor_empty(SHAPE(2, -1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                                      CT_MEMFMT_CONTIGUOUS, &x),
                      CT_ERR_RUNTIME,
                      "Trying to create tensor with negative dimension -1: [2, -1]");
}

static void test_misuse(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2));
    assert_status_msg(ct_tensor_view(NULL, SHAPE(2), &v_), CT_ERR_MISUSE,
                      "ct_tensor_view: tensor is NULL");
    assert_status_msg(ct_tensor_view(x, SHAPE(2), NULL), CT_ERR_MISUSE,
                      "ct_tensor_view: out is NULL");
    assert_int_equal(ct_tensor_expand(x, NULL, 2, &v_), CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_permute(x, NULL, 1, &v_), CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_as_strided(x, ARR(1), NULL, 1, NULL, &v_), CT_ERR_MISUSE);
    OK(ct_tensor_alias(x, &v_));
    assert_ptr_not_equal(v_, x);
    assert_ptr_equal(ct_tensor_data_ptr(v_), ct_tensor_data_ptr(x));
    release_v();
    ct_tensor_release(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view),      cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_transpose), cmocka_unit_test(test_permute),
        cmocka_unit_test(test_expand),    cmocka_unit_test(test_narrow_select),
        cmocka_unit_test(test_slice),     cmocka_unit_test(test_squeeze_unsqueeze),
        cmocka_unit_test(test_flatten),   cmocka_unit_test(test_as_strided),
        cmocka_unit_test(test_limits),    cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
