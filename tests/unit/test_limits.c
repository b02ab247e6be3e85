/* Overflow and limits: sizes whose product or byte count overflows, negative
 * sizes, strides and offsets that reach out of storage, too many dims, huge or negative
 * dims and indices, huge device ordinals, huge arange ranges. Each must be a clear error
 * (the documented ct_status and message, out-parameter NULL), never a crash, a hang or a
 * huge allocation: a guard allocator refuses every request above GUARD_LIMIT and records
 * it, and every case checks that no such request was made. Cases are tables; each row
 * names its expected status and a piece of its message, so each row can fail. */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"
#include "tensor_test_util.h"

#define GUARD_LIMIT ((size_t)64 << 20)
#define BIG INT64_MAX
#define SMALL INT64_MIN

static size_t guard_largest; /* the largest refused request since the last check */

static void *guard_alloc(void *ctx, size_t size, size_t align) {
    (void)ctx;
    if (size > GUARD_LIMIT) {
        if (size > guard_largest)
            guard_largest = size;
        return NULL;
    }
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

static void guard_free(void *ctx, void *p, size_t size, size_t align) {
    (void)ctx;
    (void)size;
    (void)align;
    free(p);
}

static int setup(void **state) {
    (void)state;
    static const ct_allocator guard = {NULL, guard_alloc, guard_free};
    return ct_set_allocator(&guard) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return ct_set_allocator(NULL) == CT_OK ? 0 : -1;
}

/* Check one failing call: its status, a piece of its message, and no huge request. */
static void check_err(const char *what, int row, ct_status got, ct_status want, const char *msg) {
    const char *err = ct_last_error();
    if (got != want)
        fail_msg("%s row %d: got %s (%s), want %s", what, row, ct_status_name(got), err,
                 ct_status_name(want));
    if (msg != NULL && strstr(err, msg) == NULL)
        fail_msg("%s row %d: message \"%s\" lacks \"%s\"", what, row, err, msg);
    if (guard_largest != 0 && want != CT_ERR_NOMEM) /* only a NOMEM row may ask */
        fail_msg("%s row %d: asked the allocator for %zu bytes", what, row, guard_largest);
}

/* A call whose tensor out-parameter must come back NULL on failure (OK: released). */
#define EXPECT_T(what, row, want, msg, call)                                                     \
    do {                                                                                           \
        ct_tensor *o = (ct_tensor *)&guard_largest; /* a non-NULL sentinel */                    \
        guard_largest = 0;                                                                         \
        ct_status st_ = (call);                                                                    \
        check_err(what, row, st_, want, msg);                                                      \
        if (st_ != CT_OK && o != NULL)                                                             \
            fail_msg("%s row %d: out-parameter not NULL on failure", what, row);                 \
        if (st_ == CT_OK)                                                                          \
            ct_tensor_release(o);                                                                  \
    } while (0)

static int64_t ones65[65] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                             1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                             1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

/* ---- factories ------------------------------------------------------------------------- */

typedef struct {
    int64_t sizes[4];
    int64_t ndim;
    ct_dtype dtype;
    ct_status want;
    const char *msg;
} shape_row;

static const shape_row factory_rows[] = {
    /* element count beyond int64 */
    {{BIG, 2}, 2, CT_FLOAT32, CT_ERR_OVERFLOW, "overflow"},
    {{(int64_t)1 << 32, (int64_t)1 << 32}, 2, CT_UINT8, CT_ERR_OVERFLOW, "overflow"},
    {{BIG, BIG, BIG}, 3, CT_BOOL, CT_ERR_OVERFLOW, "overflow"},
    /* element count fits, bytes do not */
    {{(int64_t)1 << 62}, 1, CT_FLOAT32, CT_ERR_OVERFLOW, "overflow"},
    {{(int64_t)1 << 61}, 1, CT_COMPLEX128, CT_ERR_OVERFLOW, "overflow"},
    {{BIG / 2 + 1}, 1, CT_INT16, CT_ERR_OVERFLOW, "overflow"},
    /* a stride (product of the later sizes) overflows although the tensor is empty */
    {{0, BIG, BIG}, 3, CT_FLOAT32, CT_ERR_OVERFLOW, "overflow"},
    /* negative sizes */
    {{-1, 3}, 2, CT_FLOAT32, CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -1: [-1, 3]"},
    {{SMALL}, 1, CT_FLOAT32, CT_ERR_RUNTIME, "negative dimension -9223372036854775808"},
    {{BIG, -2}, 2, CT_FLOAT32, CT_ERR_RUNTIME, "negative dimension -2"},
    /* ndim */
    {{0}, 65, CT_FLOAT32, CT_ERR_VALUE, "maximum supported dimension for a tensor is 64, found 65"},
    {{0}, BIG, CT_FLOAT32, CT_ERR_VALUE, "maximum supported dimension for a tensor is 64, found 9223372036854775807"},
    {{0}, -1, CT_FLOAT32, CT_ERR_MISUSE, NULL},
    {{0}, SMALL, CT_FLOAT32, CT_ERR_MISUSE, NULL},
};

/* The sizes of a row: ndim > 4 uses 65 ones (the row's ndim only matters for the count). */
static const int64_t *row_sizes(const shape_row *r) { return r->ndim > 4 ? ones65 : r->sizes; }

static void test_factories(void **state) {
    (void)state;
    for (int i = 0; i < (int)(sizeof factory_rows / sizeof *factory_rows); i++) {
        const shape_row *r = &factory_rows[i];
        const int64_t *s = row_sizes(r);
        int64_t nd = r->ndim;
        EXPECT_T("empty", i, r->want, r->msg,
                 ct_tensor_empty(s, nd, r->dtype, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
        EXPECT_T("empty(meta)", i, r->want, r->msg,
                 ct_tensor_empty(s, nd, r->dtype, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
        EXPECT_T("zeros", i, r->want, r->msg,
                 ct_tensor_zeros(s, nd, r->dtype, &CPU, CT_LAYOUT_STRIDED, &o));
        EXPECT_T("ones", i, r->want, r->msg,
                 ct_tensor_ones(s, nd, r->dtype, &CPU, CT_LAYOUT_STRIDED, &o));
        EXPECT_T("full", i, r->want, r->msg,
                 ct_tensor_full(s, nd, ct_scalar_int(1), r->dtype, &CPU, CT_LAYOUT_STRIDED, &o));
        EXPECT_T("from_data", i, r->want, r->msg,
                 ct_tensor_from_data(s, nd, r->dtype, ones65, &CPU, &o));
        /* empty_strided with strides of 1: the storage is 1 + sum(size - 1) elements, so
         * the same errors except where that sum fits (skipped) or the tensor is empty */
        if (r->sizes[0] == (int64_t)1 << 32)
            continue; /* 2^33 bytes: fits, would be a (refused) huge request */
        bool empty = r->want == CT_ERR_OVERFLOW && r->sizes[0] == 0;
        EXPECT_T("empty_strided", i, empty ? CT_OK : r->want, empty ? NULL : r->msg,
                 ct_tensor_empty_strided(s, ones65, nd, r->dtype, &CPU, CT_LAYOUT_STRIDED, &o));
    }
    /* the limit itself is fine: 64 dims of size 1 */
    EXPECT_T("empty64", 0, CT_OK, NULL,
             ct_tensor_empty(ones65, 64, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
    /* a size that fits but cannot be allocated: a clean CT_ERR_NOMEM, nothing huge kept */
    ct_tensor *t = NULL;
    ct_status st = ct_tensor_empty(ARR((int64_t)1 << 40), 1, CT_UINT8, &CPU, CT_LAYOUT_STRIDED,
                                   CT_MEMFMT_CONTIGUOUS, &t);
    assert_int_equal(st, CT_ERR_NOMEM);
    assert_null(t);
    guard_largest = 0;
}

typedef struct {
    int64_t sizes[2], strides[2];
    ct_status want;
    const char *msg;
} strided_row;

static const strided_row empty_strided_rows[] = {
    {{2, 1}, {BIG, 1}, CT_ERR_OVERFLOW, "Storage size calculation overflowed"},
    {{BIG, 2}, {1, BIG}, CT_ERR_OVERFLOW, "overflow"},
    {{3, 3}, {BIG / 2, BIG / 2}, CT_ERR_OVERFLOW, "overflow"},
    {{2, 2}, {-1, 1}, CT_ERR_RUNTIME, "empty_strided: Negative strides are not supported at the moment, got strides: [-1, 1]"},
    {{2, 2}, {1, SMALL}, CT_ERR_RUNTIME, "Negative strides"},
    {{-1, 2}, {1, 1}, CT_ERR_RUNTIME, "negative dimension -1"},
    /* empty: any stride is fine (PyTorch sizes the storage 0) */
    {{0, 2}, {BIG, BIG}, CT_OK, NULL},
};

static void test_empty_strided(void **state) {
    (void)state;
    for (int i = 0; i < (int)(sizeof empty_strided_rows / sizeof *empty_strided_rows); i++) {
        const strided_row *r = &empty_strided_rows[i];
        EXPECT_T("empty_strided", i, r->want, r->msg,
                 ct_tensor_empty_strided(r->sizes, r->strides, 2, CT_FLOAT32, &CPU,
                                         CT_LAYOUT_STRIDED, &o));
    }
    EXPECT_T("empty_strided65", 0, CT_ERR_VALUE, "found 65",
             ct_tensor_empty_strided(ones65, ones65, 65, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &o));
}

/* ---- storages: from_storage and as_strided --------------------------------------------- */

typedef struct {
    int64_t sizes[2], strides[2];
    int64_t ndim, offset;
    ct_status want;
    const char *msg;
} view_row;

/* Against a 16-byte storage (4 float32). */
static const view_row storage_rows[] = {
    {{5}, {1}, 1, 0, CT_ERR_RUNTIME, "setStorage: sizes [5], strides [1], storage offset 0, and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 16"},
    {{2}, {3}, 1, 0, CT_OK, NULL}, /* needs exactly the 16 bytes */
    {{2}, {4}, 1, 0, CT_ERR_RUNTIME, "requiring a storage size of 20"},
    {{1}, {1}, 1, 4, CT_ERR_RUNTIME, "storage offset 4"},
    {{2}, {BIG}, 1, 0, CT_ERR_OVERFLOW, "Storage size calculation overflowed with sizes=[2] and strides=[9223372036854775807]"},
    {{2, 2}, {BIG / 2, BIG / 2}, 2, 0, CT_ERR_OVERFLOW, "overflowed"},
    {{1}, {1}, 1, BIG, CT_ERR_OVERFLOW, "overflowed"},
    {{2}, {1}, 1, BIG - 1, CT_ERR_OVERFLOW, "overflowed"},
    {{1}, {1}, 1, BIG / 4, CT_ERR_OVERFLOW, "overflowed"}, /* (offset + 1) * 4 overflows */
    {{1}, {1}, 1, BIG / 8, CT_ERR_RUNTIME, "out of bounds"},
    {{1}, {1}, 1, -1, CT_ERR_RUNTIME, "Tensor: invalid storage offset -1"},
    {{1}, {1}, 1, SMALL, CT_ERR_RUNTIME, "invalid storage offset -9223372036854775808"},
    {{2}, {-1}, 1, 1, CT_ERR_RUNTIME, "as_strided: Negative strides are not supported at the moment, got strides: [-1]"},
    {{2}, {SMALL}, 1, 1, CT_ERR_RUNTIME, "Negative strides"},
    {{-1}, {1}, 1, 0, CT_ERR_RUNTIME, "negative dimension -1"},
    {{SMALL}, {1}, 1, 0, CT_ERR_RUNTIME, "negative dimension"},
    {{BIG, BIG}, {0, 0}, 2, 0, CT_ERR_OVERFLOW, "overflow"}, /* stride 0: in bounds, numel overflows */
    {{(int64_t)1 << 62}, {0}, 1, 0, CT_ERR_OVERFLOW, "overflow"}, /* numel fits, nbytes does not */
    {{0}, {1}, 65, 0, CT_ERR_VALUE, "maximum supported dimension for a tensor is 64, found 65"},
    {{0}, {1}, -1, 0, CT_ERR_MISUSE, NULL},
    /* empty views: strides and offset address nothing, PyTorch accepts them */
    {{0, 2}, {BIG, BIG}, 2, 0, CT_OK, NULL},
    {{0}, {1}, 1, 1000, CT_OK, NULL},
};

static void test_from_storage_and_as_strided(void **state) {
    (void)state;
    ct_storage *s = NULL;
    OK(ct_storage_new(CPU, 16, &s));
    ct_tensor *base = NULL;
    OK(ct_tensor_from_storage(s, ARR(4), NULL, 1, 0, CT_FLOAT32, &base));
    for (int i = 0; i < (int)(sizeof storage_rows / sizeof *storage_rows); i++) {
        const view_row *r = &storage_rows[i];
        ct_status want = r->want;
        const char *msg = r->msg;
        const int64_t *sz = r->ndim > 2 ? ones65 : r->sizes;
        const int64_t *st = r->ndim > 2 ? ones65 : r->strides;
        EXPECT_T("from_storage", i, want, msg,
                 ct_tensor_from_storage(s, sz, st, r->ndim, r->offset, CT_FLOAT32, &o));
        EXPECT_T("as_strided", i, want, msg,
                 ct_tensor_as_strided(base, sz, st, r->ndim, &r->offset, &o));
    }
    /* an empty view with an offset whose byte count overflows: refused, since data_ptr()
     * would compute offset * itemsize (UBSan caught the overflow there); one that fits is
     * fine, and data_ptr() and a copy of it work */
    EXPECT_T("from_storage(empty, huge offset)", 0, CT_ERR_OVERFLOW, "Storage offset calculation overflowed",
             ct_tensor_from_storage(s, ARR(0), ARR(1), 1, BIG, CT_FLOAT64, &o));
    EXPECT_T("as_strided(empty, huge offset)", 0, CT_ERR_OVERFLOW, "overflowed",
             ct_tensor_as_strided(base, ARR(0), ARR(1), 1, &(int64_t){BIG / 2}, &o));
    ct_tensor *e = NULL, *c = NULL;
    OK(ct_tensor_from_storage(s, ARR(0), ARR(1), 1, BIG / 8, CT_FLOAT64, &e));
    assert_non_null(ct_tensor_data_ptr(e));
    assert_int_equal(ct_tensor_nbytes(e), 0);
    OK(ct_tensor_contiguous(e, CT_MEMFMT_CONTIGUOUS, &c));
    ct_tensor *k = NULL;
    OK(ct_tensor_clone(e, CT_MEMFMT_PRESERVE, &k));
    assert_int_equal(ct_tensor_numel(k), 0);
    ct_tensor_release(k);
    ct_tensor_release(c);
    ct_tensor_release(e);
    ct_tensor_release(base);
    ct_storage_release(s);
    EXPECT_T("from_storage(NULL)", 0, CT_ERR_MISUSE, NULL,
             ct_tensor_from_storage(NULL, ARR(1), NULL, 1, 0, CT_FLOAT32, &o));
}

/* ---- shape-taking views: view, reshape, expand, permute -------------------------------- */

static void test_shape_views(void **state) {
    (void)state;
    ct_tensor *one = iota(ARR(1), 1), *six = iota(ARR(2, 3), 2);
    /* INT64_MAX * INT64_MAX wraps to 1 in int64: must not pass as a 1-element shape */
    EXPECT_T("view", 0, CT_ERR_RUNTIME, "is invalid for input of size 1", ct_tensor_view(one, SHAPE(BIG, BIG), &o));
    EXPECT_T("view", 1, CT_ERR_RUNTIME, "is invalid for input of size 1", ct_tensor_view(one, SHAPE(-1, BIG, BIG), &o));
    EXPECT_T("view", 2, CT_ERR_RUNTIME, "is invalid for input of size 6", ct_tensor_view(six, SHAPE(BIG, 2), &o));
    EXPECT_T("view", 3, CT_ERR_RUNTIME, "invalid shape dimension -9223372036854775808", ct_tensor_view(six, SHAPE(SMALL, 1), &o));
    EXPECT_T("view", 4, CT_ERR_RUNTIME, "invalid shape dimension -2", ct_tensor_view(six, SHAPE(-2, -3), &o));
    EXPECT_T("view", 5, CT_ERR_RUNTIME, "only one dimension can be inferred", ct_tensor_view(six, SHAPE(-1, -1), &o));
    EXPECT_T("view", 6, CT_ERR_VALUE, "found 65", ct_tensor_view(one, ones65, 65, &o));
    EXPECT_T("view", 7, CT_ERR_MISUSE, NULL, ct_tensor_view(one, ones65, -1, &o));
    EXPECT_T("view", 8, CT_OK, NULL, ct_tensor_view(one, ones65, 64, &o));
    EXPECT_T("reshape", 0, CT_ERR_RUNTIME, "is invalid for input of size 1", ct_tensor_reshape(one, SHAPE(BIG, BIG), &o));
    EXPECT_T("reshape", 1, CT_ERR_RUNTIME, "is invalid for input of size 6", ct_tensor_reshape(six, SHAPE(-1, BIG, BIG), &o));
    EXPECT_T("reshape", 2, CT_ERR_VALUE, "found 65", ct_tensor_reshape(six, ones65, 65, &o));
    /* 0 elements: -1 with a huge other size must not divide by or multiply into garbage */
    ct_tensor *zero = NULL;
    OK(ct_tensor_empty(ARR(0), 1, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &zero));
    EXPECT_T("view0", 0, CT_ERR_RUNTIME, "cannot reshape tensor of 0 elements", ct_tensor_view(zero, SHAPE(0, -1), &o));
    EXPECT_T("view0", 1, CT_ERR_OVERFLOW, "overflow", ct_tensor_view(zero, SHAPE(0, BIG, BIG), &o));
    EXPECT_T("view0", 2, CT_OK, NULL, ct_tensor_view(zero, SHAPE(BIG, 0), &o));

    /* expand: stride-0 dims never reach out of storage, but numel must still fit */
    EXPECT_T("expand", 0, CT_ERR_OVERFLOW, "overflow", ct_tensor_expand(one, SHAPE(BIG, BIG), &o));
    EXPECT_T("expand", 1, CT_ERR_OVERFLOW, "overflow", ct_tensor_expand(one, SHAPE((int64_t)1 << 62), &o));
    EXPECT_T("expand", 2, CT_ERR_OVERFLOW, "overflow", ct_tensor_expand(one, SHAPE(BIG), &o)); /* nbytes */
    EXPECT_T("expand", 8, CT_OK, NULL, ct_tensor_expand(one, SHAPE((int64_t)1 << 60), &o));
    EXPECT_T("expand", 3, CT_ERR_RUNTIME, "negative dimension", ct_tensor_expand(one, SHAPE(SMALL, 1), &o));
    EXPECT_T("expand", 4, CT_ERR_RUNTIME, "isn't allowed in a leading, non-existing dimension 0", ct_tensor_expand(one, SHAPE(-1, 1), &o));
    EXPECT_T("expand", 5, CT_ERR_VALUE, "found 65", ct_tensor_expand(one, ones65, 65, &o));
    EXPECT_T("expand", 6, CT_ERR_MISUSE, NULL, ct_tensor_expand(one, ones65, -1, &o));
    EXPECT_T("expand", 7, CT_ERR_RUNTIME, "must match the existing size (3)", ct_tensor_expand(six, SHAPE(2, BIG), &o));

    /* permute */
    EXPECT_T("permute", 0, CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got -9223372036854775808)", ct_tensor_permute(six, SHAPE(SMALL, 0), &o));
    EXPECT_T("permute", 1, CT_ERR_INDEX, "but got 9223372036854775807", ct_tensor_permute(six, SHAPE(0, BIG), &o));
    EXPECT_T("permute", 2, CT_ERR_RUNTIME, "input.dim() = 2 is not equal to len(dims) = 65", ct_tensor_permute(six, ones65, 65, &o));
    EXPECT_T("permute", 3, CT_ERR_RUNTIME, "duplicate dims", ct_tensor_permute(six, SHAPE(-1, 1), &o));
    ct_tensor_release(one);
    ct_tensor_release(six);
    ct_tensor_release(zero);
}

/* ---- dims and indices: narrow, select, slice, transpose, squeeze, unsqueeze, flatten ---- */

typedef struct {
    int64_t a, b, c, d;
    ct_status want;
    const char *msg;
} idx_row;

static const idx_row narrow_rows[] = { /* dim, start, length on [2, 3] */
    {SMALL, 0, 1, 0, CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got -9223372036854775808)"},
    {BIG, 0, 1, 0, CT_ERR_INDEX, "but got 9223372036854775807"},
    {1, BIG, 1, 0, CT_ERR_INDEX, "start out of range (expected to be in range of [-3, 3], but got 9223372036854775807)"},
    {1, SMALL, 1, 0, CT_ERR_INDEX, "but got -9223372036854775808"},
    {1, 0, BIG, 0, CT_ERR_RUNTIME, "start (0) + length (9223372036854775807) exceeds dimension size (3)."},
    {1, 2, BIG, 0, CT_ERR_RUNTIME, "start (2) + length (9223372036854775807) exceeds dimension size (3)."},
    {1, -1, BIG, 0, CT_ERR_RUNTIME, "exceeds dimension size (3)."},
    {1, 0, SMALL, 0, CT_ERR_RUNTIME, "narrow(): length must be non-negative."},
    {1, 3, 0, 0, CT_OK, NULL},
};

static const idx_row select_rows[] = { /* dim, index on [2, 3] */
    {SMALL, 0, 0, 0, CT_ERR_INDEX, "but got -9223372036854775808"},
    {BIG, 0, 0, 0, CT_ERR_INDEX, "but got 9223372036854775807"},
    {0, BIG, 0, 0, CT_ERR_INDEX, "select(): index 9223372036854775807 out of range for tensor of size [2, 3] at dimension 0"},
    {0, SMALL, 0, 0, CT_ERR_INDEX, "select(): index -9223372036854775808 out of range"},
    {1, -3, 0, 0, CT_OK, NULL},
};

static const idx_row slice_rows[] = { /* dim, start, stop, step on [2, 5] */
    {SMALL, 0, 1, 1, CT_ERR_INDEX, "but got -9223372036854775808"},
    {BIG, 0, 1, 1, CT_ERR_INDEX, "but got 9223372036854775807"},
    {1, 0, 5, SMALL, CT_ERR_VALUE, "step must be greater than zero"},
    {1, 0, 5, 0, CT_ERR_VALUE, "step must be greater than zero"},
    /* clamped bounds and a huge step: one element, not an overflowed size */
    {1, SMALL, BIG, BIG, CT_OK, NULL},
    {1, 0, CT_SLICE_END, BIG - 1, CT_OK, NULL},
    {1, BIG, SMALL, 1, CT_OK, NULL},
    {1, 1, BIG, BIG / 2 + 1, CT_OK, NULL},
};

static const idx_row dim_pair_rows[] = { /* transpose(a, b), flatten(a, b) on [2, 3] */
    {SMALL, 0, 0, 0, CT_ERR_INDEX, "but got -9223372036854775808"},
    {0, BIG, 0, 0, CT_ERR_INDEX, "but got 9223372036854775807"},
    {-3, 0, 0, 0, CT_ERR_INDEX, "[-2, 1], but got -3"},
    {0, 2, 0, 0, CT_ERR_INDEX, "[-2, 1], but got 2"},
};

static void test_dims_and_indices(void **state) {
    (void)state;
    ct_tensor *t = iota(ARR(2, 3), 2), *u = iota(ARR(2, 5), 2), *s = NULL;
    OK(ct_tensor_empty(NULL, 0, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &s));
    for (int i = 0; i < (int)(sizeof narrow_rows / sizeof *narrow_rows); i++) {
        const idx_row *r = &narrow_rows[i];
        EXPECT_T("narrow", i, r->want, r->msg, ct_tensor_narrow(t, r->a, r->b, r->c, &o));
    }
    for (int i = 0; i < (int)(sizeof select_rows / sizeof *select_rows); i++) {
        const idx_row *r = &select_rows[i];
        EXPECT_T("select", i, r->want, r->msg, ct_tensor_select(t, r->a, r->b, &o));
    }
    for (int i = 0; i < (int)(sizeof slice_rows / sizeof *slice_rows); i++) {
        const idx_row *r = &slice_rows[i];
        ct_tensor *o2 = NULL;
        EXPECT_T("slice", i, r->want, r->msg, ct_tensor_slice(u, r->a, r->b, r->c, r->d, &o));
        if (r->want == CT_OK) { /* sizes from Python's slice semantics */
            OK(ct_tensor_slice(u, r->a, r->b, r->c, r->d, &o2));
            int64_t lo = r->b < -5 ? 0 : r->b < 0 ? r->b + 5 : r->b > 5 ? 5 : r->b;
            int64_t hi = r->c < -5 ? 0 : r->c < 0 ? r->c + 5 : r->c > 5 ? 5 : r->c;
            int64_t want = hi <= lo ? 0 : (hi - lo - 1) / r->d + 1;
            assert_sizes(o2, 2, want);
            ct_tensor_release(o2);
        }
    }
    for (int i = 0; i < (int)(sizeof dim_pair_rows / sizeof *dim_pair_rows); i++) {
        const idx_row *r = &dim_pair_rows[i];
        EXPECT_T("transpose", i, r->want, r->msg, ct_tensor_transpose(t, r->a, r->b, &o));
        EXPECT_T("flatten", i, r->want, r->msg, ct_tensor_flatten(t, r->a, r->b, &o));
    }
    static const int64_t dims[] = {SMALL, BIG, -4, 3};
    for (int i = 0; i < 4; i++) {
        int64_t d = dims[i];
        EXPECT_T("squeeze_dim", i, CT_ERR_INDEX, "Dimension out of range", ct_tensor_squeeze_dim(t, d, &o));
        EXPECT_T("unsqueeze", i, CT_ERR_INDEX, "Dimension out of range", ct_tensor_unsqueeze(t, d, &o));
        int64_t v = 7;
        check_err("size", i, ct_tensor_size(t, d, &v), CT_ERR_INDEX, "Dimension out of range");
        check_err("stride", i, ct_tensor_stride(t, d, &v), CT_ERR_INDEX, "Dimension out of range");
        assert_int_equal(v, 0);
        /* a 0-dim tensor accepts only -1 and 0 */
        EXPECT_T("narrow(0-dim)", i, CT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.", ct_tensor_narrow(s, d, 0, 1, &o));
        EXPECT_T("select(0-dim)", i, CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.", ct_tensor_select(s, d, 0, &o));
        EXPECT_T("unsqueeze(0-dim)", i, CT_ERR_INDEX, "Dimension out of range", ct_tensor_unsqueeze(s, d, &o));
        EXPECT_T("flatten(0-dim)", i, CT_ERR_INDEX, "Dimension out of range", ct_tensor_flatten(s, d, 0, &o));
    }
    /* unsqueeze beyond 64 dims */
    ct_tensor *d64 = NULL;
    OK(ct_tensor_empty(ones65, 64, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &d64));
    EXPECT_T("unsqueeze(64)", 0, CT_ERR_VALUE, "maximum supported dimension for a tensor is 64, found 65", ct_tensor_unsqueeze(d64, 0, &o));
    EXPECT_T("unsqueeze(64)", 1, CT_ERR_INDEX, "[-65, 64], but got 65", ct_tensor_unsqueeze(d64, 65, &o));
    EXPECT_T("expand(64)", 0, CT_ERR_VALUE, "found 65", ct_tensor_expand(d64, ones65, 65, &o));
    ct_tensor_release(d64);
    ct_tensor_release(t);
    ct_tensor_release(u);
    ct_tensor_release(s);
}

/* ---- arange ----------------------------------------------------------------------------- */

typedef struct {
    ct_scalar start, end, step;
    ct_dtype dtype;
    ct_status want;
    const char *msg;
} arange_row;

#define I(x) ct_scalar_int(x)
#define F(x) ct_scalar_float(x)

static void test_arange(void **state) {
    (void)state;
    const arange_row rows[] = {
        {F(0), F(1e300), F(1e-300), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {F(0), F(1), F(1e-300), CT_FLOAT64, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {F(-1e300), F(1e300), F(1), CT_FLOAT32, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {F(0), F(1.0 / 0.0), F(1), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "unsupported range: 0 -> inf"},
        {F(0), F(0.0 / 0.0), F(1), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "unsupported range"},
        {F(0), F(10), F(0.0 / 0.0), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, NULL},
        {I(0), I(1), I(0), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "step must be nonzero"},
        /* int64: end - start overflows int64 (PyTorch 1.13 silently makes 0 elements) */
        {I(SMALL), I(BIG), I(1), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {I(SMALL), I(BIG), I(BIG), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {I(BIG), I(SMALL), I(SMALL), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {I(-(BIG / 4)), I(BIG / 4 + 1), I(BIG / 4), CT_DTYPE_UNDEFINED, CT_OK, NULL}, /* 3 */
        /* end - start + step overflows although 3 elements would do: refused like above */
        {I(-(BIG / 2)), I(BIG / 2 + 1), I(BIG / 2), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "invalid size"},
        {I(0), I(BIG), I(1), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "invalid size, possible overflow?"},
        {I(0), I(BIG - 1), I(1), CT_DTYPE_UNDEFINED, CT_ERR_OVERFLOW, "overflow"}, /* bytes */
        {I(0), I(BIG / 2), I(1), CT_INT16, CT_ERR_OVERFLOW, "overflow"},
        {I(0), I((int64_t)1 << 40), I(1), CT_DTYPE_UNDEFINED, CT_ERR_NOMEM, NULL},
        {I(0), I(BIG), I(-1), CT_DTYPE_UNDEFINED, CT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign"},
        {ct_scalar_uint(UINT64_MAX), I(0), I(-1), CT_DTYPE_UNDEFINED, CT_ERR_OVERFLOW, "without overflow"},
        {F(0), F(1e19), F(1), CT_INT64, CT_ERR_OVERFLOW, NULL},
        /* representable but not allocatable: refused by the allocator, cleanly */
        {F(0), F(9.2e18), F(1), CT_UINT8, CT_ERR_NOMEM, NULL},
    };
    for (int i = 0; i < (int)(sizeof rows / sizeof *rows); i++) {
        const arange_row *r = &rows[i];
        EXPECT_T("arange", i, r->want, r->msg,
                 ct_tensor_arange(r->start, r->end, r->step, r->dtype, &CPU, CT_LAYOUT_STRIDED, &o));
    }
    ct_tensor *t = NULL;
    OK(ct_tensor_arange(I(-(BIG / 4)), I(BIG / 4 + 1), I(BIG / 4), CT_DTYPE_UNDEFINED, &CPU,
                        CT_LAYOUT_STRIDED, &t));
    assert_sizes(t, 3);
    assert_int_equal(((const int64_t *)ct_tensor_data_ptr(t))[2], BIG / 4);
    ct_tensor_release(t);
}

/* ---- devices ---------------------------------------------------------------------------- */

static void test_devices(void **state) {
    (void)state;
    static const struct {
        const char *s;
        const char *msg;
    } strings[] = {
        {"cuda:99999999999999999999", "Could not parse device index '99999999999999999999' in device string 'cuda:99999999999999999999'"},
        {"cuda:9223372036854775808", "Could not parse device index"},
        {"cpu:18446744073709551616", "Could not parse device index"},
        {"cuda:4294967296", "Could not parse device index"},
        {"cuda:2147483648", "Could not parse device index"},
        {"cuda:2147483647", "Device index 2147483647 is out of range: device indices must be between 0 and 127"},
        {"cuda:128", "Device index 128 is out of range"},
        {"cuda:-1", "Invalid device string: 'cuda:-1'"},
        {"meta:00000000000000000000000001", "Invalid device string"},
    };
    for (int i = 0; i < (int)(sizeof strings / sizeof *strings); i++) {
        ct_device d = {CT_DEVICE_CUDA, 5};
        guard_largest = 0;
        check_err("device_from_string", i, ct_device_from_string(strings[i].s, &d), CT_ERR_RUNTIME,
                  strings[i].msg);
    }
    static const struct {
        int64_t index;
        const char *msg;
    } indices[] = {
        {BIG, "Device index 9223372036854775807 is out of range"},
        {(int64_t)1 << 32, "Device index 4294967296 is out of range"}, /* not truncated to 0 */
        {((int64_t)1 << 32) - 1, "out of range"},                      /* nor to -1 */
        {128, "Device index 128 is out of range"},
        {SMALL, "Device index must be -1 or non-negative, got -9223372036854775808"},
        {-2, "got -2"},
    };
    for (int i = 0; i < (int)(sizeof indices / sizeof *indices); i++) {
        ct_device d;
        guard_largest = 0;
        check_err("device_make", i, ct_device_make(CT_DEVICE_CUDA, indices[i].index, &d), CT_ERR_RUNTIME,
                  indices[i].msg);
        check_err("device_make(cpu)", i, ct_device_make(CT_DEVICE_CPU, indices[i].index, &d),
                  CT_ERR_RUNTIME, indices[i].msg);
        if (indices[i].index >= 0) {
            check_err("device_from_type", i, ct_device_from_type("cuda", &indices[i].index, &d),
                      CT_ERR_RUNTIME, "out of range");
            check_err("device_from_ordinal", i, ct_device_from_ordinal(indices[i].index, &d),
                      CT_ERR_RUNTIME, NULL);
        } else {
            check_err("device_from_type", i, ct_device_from_type("cuda", &indices[i].index, &d),
                      CT_ERR_RUNTIME, "Device index must not be negative");
            check_err("device_from_ordinal", i, ct_device_from_ordinal(indices[i].index, &d),
                      CT_ERR_RUNTIME, "Device index must not be negative");
        }
    }
    /* a hand-made device with a huge index is refused wherever it is used */
    ct_device bad = {CT_DEVICE_CPU, INT32_MAX};
    assert_false(ct_device_is_valid(bad));
    EXPECT_T("zeros(bad device)", 0, CT_ERR_RUNTIME, "Device index 2147483647 is out of range", ct_tensor_zeros(ARR(1), 1, CT_FLOAT32, &bad, CT_LAYOUT_STRIDED, &o));
    ct_storage *s = (ct_storage *)&guard_largest;
    guard_largest = 0;
    check_err("storage_new(bad device)", 0, ct_storage_new(bad, 4, &s), CT_ERR_RUNTIME, "out of range");
    assert_null(s);
}

/* ---- DLPack import ---------------------------------------------------------------------- */

static int deleted;
static void count_deleter(ct_dl_managed_tensor *m) {
    (void)m;
    deleted++;
}

typedef struct {
    int32_t ndim;
    int64_t shape[2], strides[2];
    bool has_strides;
    uint64_t byte_offset;
    ct_status want;
    const char *msg;
} dl_row;

static void test_dlpack_import(void **state) {
    (void)state;
    static float data[16] __attribute__((aligned(64)));
    const dl_row rows[] = {
        {65, {1}, {1}, false, 0, CT_ERR_VALUE, NULL},
        {INT32_MAX, {1}, {1}, false, 0, CT_ERR_VALUE, NULL},
        {-1, {1}, {1}, false, 0, CT_ERR_VALUE, NULL},
        {INT32_MIN, {1}, {1}, false, 0, CT_ERR_VALUE, NULL},
        {2, {BIG, 2}, {0}, false, 0, CT_ERR_OVERFLOW, NULL},
        {2, {(int64_t)1 << 31, (int64_t)1 << 31}, {0}, false, 0, CT_ERR_OVERFLOW, NULL},
        {1, {(int64_t)1 << 62}, {0}, false, 0, CT_ERR_OVERFLOW, NULL},
        {1, {-1}, {1}, false, 0, CT_ERR_VALUE, NULL},
        {1, {SMALL}, {1}, true, 0, CT_ERR_VALUE, NULL},
        {1, {2}, {BIG}, true, 0, CT_ERR_OVERFLOW, NULL},
        {1, {2}, {SMALL}, true, 0, CT_ERR_VALUE, NULL},
        {2, {3, 3}, {BIG / 2, BIG / 2}, true, 0, CT_ERR_OVERFLOW, NULL},
        {1, {1}, {1}, false, UINT64_MAX - 3, CT_ERR_OVERFLOW, NULL},
        {1, {1}, {1}, false, UINT64_MAX - 63, CT_ERR_OVERFLOW, NULL}, /* aligned, wraps */
        {1, {2}, {(int64_t)1 << 61}, true, 0, CT_ERR_OVERFLOW, NULL}, /* extent > int64 */
        {1, {0}, {1}, false, UINT64_MAX - 63, CT_ERR_OVERFLOW, NULL}, /* refused even empty */
        {1, {4}, {1}, true, 16, CT_OK, NULL},
    };
    for (int i = 0; i < (int)(sizeof rows / sizeof *rows); i++) {
        const dl_row *r = &rows[i];
        int64_t shape[2] = {r->shape[0], r->shape[1]}, strides[2] = {r->strides[0], r->strides[1]};
        ct_dl_managed_tensor m = {0};
        m.dl_tensor.data = data;
        m.dl_tensor.device.device_type = CT_DL_CPU;
        m.dl_tensor.ndim = r->ndim;
        m.dl_tensor.dtype.code = CT_DL_FLOAT;
        m.dl_tensor.dtype.bits = 32;
        m.dl_tensor.dtype.lanes = 1;
        m.dl_tensor.shape = shape;
        m.dl_tensor.strides = r->has_strides ? strides : NULL;
        m.dl_tensor.byte_offset = r->byte_offset;
        m.deleter = count_deleter;
        deleted = 0;
        ct_tensor *o = (ct_tensor *)&guard_largest;
        guard_largest = 0;
        ct_status st = ct_tensor_from_dlpack(&m, &o);
        if (r->want == CT_OK) {
            check_err("dlpack", i, st, CT_OK, NULL);
            ct_tensor_release(o);
        } else {
            if (st != CT_ERR_VALUE && st != CT_ERR_OVERFLOW)
                fail_msg("dlpack row %d: got %s (%s)", i, ct_status_name(st), ct_last_error());
            if (st != r->want)
                fail_msg("dlpack row %d: got %s (%s), want %s", i, ct_status_name(st),
                         ct_last_error(), ct_status_name(r->want));
            assert_null(o);
            assert_true(strlen(ct_last_error()) > 0);
        }
        assert_int_equal(deleted, 1); /* consumed exactly once, success or not */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factories),
        cmocka_unit_test(test_empty_strided),
        cmocka_unit_test(test_from_storage_and_as_strided),
        cmocka_unit_test(test_shape_views),
        cmocka_unit_test(test_dims_and_indices),
        cmocka_unit_test(test_arange),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_dlpack_import),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
