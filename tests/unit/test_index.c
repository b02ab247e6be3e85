/* Advanced indexing (index.h): ct_tensor_index with int64 indices, masks, adjacent and
 * separated index dims, negative indices and PyTorch's messages; index_put_ (broadcast
 * values, accumulate, dtype check, masked fill); nonzero, masked_select, index_select;
 * the threaded gather on 1 and 2 threads; allocation failures. Expected values and
 * messages were checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/index.h"
#include "ctensor/parallel.h"
#include "tensor_test_util.h"

#include "fault_loop.h"

#define VALS(...) ((const double[]){__VA_ARGS__})
#define NV(...) ((int64_t)(sizeof(VALS(__VA_ARGS__)) / sizeof(double)))
#define LIST(...) ((const ct_tensor *const[]){__VA_ARGS__})
#define NL(...) (sizeof((const ct_tensor *const[]){__VA_ARGS__}) / sizeof(ct_tensor *))

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

/* A tensor of dtype dt from the values given. */
static ct_tensor *vals(ct_dtype dt, const double *v, int64_t n) {
    ct_tensor *a = NULL, *r = NULL;
    OK(ct_tensor_from_data(&n, 1, CT_FLOAT64, v, NULL, &a));
    OK(ct_tensor_to(a, dt, NULL, true, CT_MEMFMT_CONTIGUOUS, &r));
    ct_tensor_release(a);
    return r;
}
#define V(dt, ...) vals(dt, VALS(__VA_ARGS__), NV(__VA_ARGS__))

static void expect(const ct_tensor *t, ct_dtype dt, const double *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(ct_tensor_dtype(t), dt);
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    assert_int_equal(ct_tensor_numel(d), n);
    const double *got = ct_tensor_data_ptr(d);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %d: got %.17g, want %.17g", (int)i, got[i], want[i]);
    ct_tensor_release(d);
}
#define EXPECT(t, dt, ...) expect(t, dt, VALS(__VA_ARGS__), NV(__VA_ARGS__))

static void test_index_get(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(2, 3, 4)), *i = V(CT_INT64, 2, -3), *j = V(CT_INT64, 1),
              *r = NULL;
    /* x[:, [2, -3]]: adjacent, in place */
    OK(ct_tensor_index(x, LIST(NULL, i), 2, &r));
    assert_sizes(r, 2, 2, 4);
    EXPECT(r, CT_FLOAT32, 8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15);
    ct_tensor_release(r);
    /* x[[1], :, [2, -3]]: separated, broadcast dims first */
    OK(ct_tensor_index(x, LIST(j, NULL, i), 3, &r));
    assert_sizes(r, 2, 3);
    EXPECT(r, CT_FLOAT32, 14, 18, 22, 13, 17, 21);
    ct_tensor_release(r);
    /* a mask over the first two dims */
    ct_tensor *m = NULL, *five = NULL, *x2 = V(CT_BOOL, 0, 0, 0, 0, 1, 1);
    OK(ct_tensor_reshape(x2, SHAPE(2, 3), &m));
    OK(ct_tensor_index(x, LIST(m), 1, &r));
    assert_sizes(r, 2, 4);
    EXPECT(r, CT_FLOAT32, 16, 17, 18, 19, 20, 21, 22, 23);
    ct_tensor_release(r);
    /* errors in PyTorch's words */
    ct_tensor *big = V(CT_INT64, 5), *f = V(CT_FLOAT32, 0), *m4 = V(CT_BOOL, 1, 0, 1, 1);
    EXPECT_ERR(ct_tensor_index(x, LIST(big), 1, &r), CT_ERR_INDEX,
               "index 5 is out of bounds for dimension 0 with size 2");
    EXPECT_ERR(ct_tensor_index(x, LIST(NULL, NULL, NULL, j), 4, &r), CT_ERR_INDEX,
               "too many indices for tensor of dimension 3");
    EXPECT_ERR(ct_tensor_index(x, LIST(f), 1, &r), CT_ERR_INDEX,
               "tensors used as indices must be long, byte or bool tensors");
    EXPECT_ERR(ct_tensor_index(x, LIST(m4), 1, &r), CT_ERR_INDEX,
               "The shape of the mask [4] at index 0 does not match the shape of the indexed "
               "tensor [2, 3, 4] at index 0");
    ct_tensor *i3 = V(CT_INT64, 0, 1, 0);
    EXPECT_ERR(ct_tensor_index(x, LIST(i, i3), 2, &r), CT_ERR_INDEX,
               "shape mismatch: indexing tensors could not be broadcast together with shapes "
               "[2], [3]");
    assert_null(r);
    ct_tensor *objs[] = {x, i, j, m, five, x2, big, f, m4, i3};
    for (size_t k = 0; k < sizeof objs / sizeof *objs; k++)
        ct_tensor_release(objs[k]);
}

static void test_index_put(void **state) {
    (void)state;
    ct_tensor *x = ar(CT_FLOAT32, SHAPE(2, 3)), *i = V(CT_INT64, 0, 0), *v = V(CT_FLOAT32, 1, 2),
              *d = V(CT_FLOAT64, 1, 2), *m = V(CT_BOOL, 1, 0), *s = NULL;
    OK(ct_tensor_index_put_(x, LIST(NULL, i), 2, v, true)); /* duplicates add up */
    EXPECT(x, CT_FLOAT32, 3, 1, 2, 6, 4, 5);
    EXPECT_ERR(ct_tensor_index_put_(x, LIST(i), 1, d, false), CT_ERR_RUNTIME,
               "Index put requires the source and destination dtypes match, got Float for the "
               "destination and Double for the source.");
    ct_tensor *v4 = V(CT_FLOAT32, 1, 2, 3, 4);
    EXPECT_ERR(ct_tensor_index_put_(x, LIST(i), 1, v4, false), CT_ERR_RUNTIME,
               "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result "
               "of shape [2, 3]");
    OK(ct_tensor_scalar_tensor(ct_scalar_float(7.5), CT_FLOAT64, NULL, &s));
    OK(ct_tensor_index_put_(x, LIST(m), 1, s, false)); /* the masked fill casts */
    EXPECT(x, CT_FLOAT32, 7.5, 7.5, 7.5, 6, 4, 5);
    EXPECT_ERR(ct_tensor_index_put_(x, LIST(i), 1, x, false), CT_ERR_RUNTIME,
               "unsupported operation: some elements of the input tensor and the written-to "
               "tensor refer to a single memory location. Please clone() the tensor before "
               "performing the operation.");
    ct_tensor *objs[] = {x, i, v, d, m, s, v4};
    for (size_t k = 0; k < sizeof objs / sizeof *objs; k++)
        ct_tensor_release(objs[k]);
}

/* The out= forms: results written into out (resized), dtype checks with PyTorch's words. */
static void test_out_forms(void **state) {
    (void)state;
    ct_tensor *y = V(CT_INT64, 0, 3, 0, 2), *x = ar(CT_FLOAT32, SHAPE(2, 3));
    ct_tensor *oi = V(CT_INT64, 9), *of = V(CT_FLOAT32, 9), *i = V(CT_INT64, 2, 0);
    ct_tensor *m = V(CT_BOOL, 1, 0, 1);
    OK(ct_tensor_nonzero_out(y, oi));
    assert_sizes(oi, 2, 1);
    EXPECT(oi, CT_INT64, 1, 3);
    EXPECT_ERR(ct_tensor_nonzero_out(y, of), CT_ERR_RUNTIME,
               "nonzero: Expected out tensor to have scalar type Long but got scalar typeFloat");
    OK(ct_tensor_index_select_out(x, 1, i, of));
    assert_sizes(of, 2, 2);
    EXPECT(of, CT_FLOAT32, 2, 0, 5, 3);
    EXPECT_ERR(ct_tensor_index_select_out(x, 1, i, oi), CT_ERR_RUNTIME,
               "index_select(): self and result must have the same scalar type");
    OK(ct_tensor_take_out(x, i, of));
    EXPECT(of, CT_FLOAT32, 2, 0);
    EXPECT_ERR(ct_tensor_take_out(x, i, oi), CT_ERR_RUNTIME,
               "take(): self and out expected to have the same dtype, but got self.dtype = Float "
               "and out.dtype = Long");
    OK(ct_tensor_masked_select_out(x, m, of));
    EXPECT(of, CT_FLOAT32, 0, 2, 3, 5);
    EXPECT_ERR(ct_tensor_masked_select_out(x, m, oi), CT_ERR_RUNTIME,
               "masked_select(): self and result must have the same scalar type");
    ct_tensor *objs[] = {y, x, oi, of, i, m};
    for (size_t k = 0; k < sizeof objs / sizeof *objs; k++)
        ct_tensor_release(objs[k]);
}

static void test_select_ops(void **state) {
    (void)state;
    ct_tensor *y = V(CT_INT64, 0, 3, 0, 2), *y2 = NULL, *r = NULL, *x = ar(CT_FLOAT32, SHAPE(2, 3));
    OK(ct_tensor_reshape(y, SHAPE(2, 2), &y2));
    OK(ct_tensor_nonzero(y2, &r));
    assert_sizes(r, 2, 2);
    EXPECT(r, CT_INT64, 0, 1, 1, 1);
    ct_tensor_release(r);
    ct_tensor *m = V(CT_BOOL, 1, 0, 1);
    OK(ct_tensor_masked_select(x, m, &r));
    EXPECT(r, CT_FLOAT32, 0, 2, 3, 5);
    ct_tensor_release(r);
    EXPECT_ERR(ct_tensor_masked_select(x, y, &r), CT_ERR_RUNTIME,
               "masked_select: expected BoolTensor or ByteTensor for mask");
    ct_tensor *i = V(CT_INT64, 2, 0);
    OK(ct_tensor_index_select(x, -1, i, &r));
    EXPECT(r, CT_FLOAT32, 2, 0, 5, 3);
    ct_tensor_release(r);
    ct_tensor *bad = V(CT_INT64, 3);
    EXPECT_ERR(ct_tensor_index_select(x, 1, bad, &r), CT_ERR_INDEX, "index out of range in self");
    ct_tensor *objs[] = {y, y2, x, m, i, bad};
    for (size_t k = 0; k < sizeof objs / sizeof *objs; k++)
        ct_tensor_release(objs[k]);
}

/* The threaded gather gives the same answer on 1 and 2 threads, and reports a bad index. */
static void test_threads(void **state) {
    (void)state;
    int64_t n = 1 << 18;
    ct_tensor *x = ar(CT_FLOAT32, &n, 1), *rev = NULL, *r = NULL, *k = NULL, *nn = NULL, *a = NULL;
    int64_t *data = malloc((size_t)n * sizeof *data);
    assert_non_null(data);
    for (int64_t e = 0; e < n; e++)
        data[e] = n - 1 - e;
    OK(ct_tensor_from_data(&n, 1, CT_INT64, data, NULL, &rev));
    free(data);
    for (int th = 1; th <= 2; th++) {
        ct_set_num_threads(th);
        OK(ct_tensor_index(x, LIST(rev), 1, &r));
        const float *d = ct_tensor_data_ptr(r);
        for (int64_t e = 0; e < n; e += 4097)
            assert_true(d[e] == (float)(n - 1 - e));
        ct_tensor_release(r);
        r = NULL;
    }
    OK(ct_tensor_scalar_tensor(ct_scalar_int(n), CT_INT64, NULL, &k));
    a = V(CT_INT64, 7);
    OK(ct_tensor_index_put_(rev, LIST(a), 1, k, false));
    EXPECT_ERR(ct_tensor_index(x, LIST(rev), 1, &r), CT_ERR_INDEX,
               "index 262144 is out of bounds for dimension 0 with size 262144");
    ct_tensor *objs[] = {x, rev, k, nn, a};
    for (size_t q = 0; q < sizeof objs / sizeof *objs; q++)
        ct_tensor_release(objs[q]);
}

static ct_tensor *fx, *fi, *fm;
static ct_status f_index(ct_tensor **out) { return ct_tensor_index(fx, LIST(NULL, fi), 2, out); }
static ct_status f_mask(ct_tensor **out) { return ct_tensor_index(fx, LIST(fm), 1, out); }
static ct_status f_sep(ct_tensor **out) {
    return ct_tensor_index(fx, LIST(fi, NULL, fi), 3, out);
}
static ct_status f_nonzero(ct_tensor **out) { return ct_tensor_nonzero(fx, out); }
static ct_status f_masked_select(ct_tensor **out) {
    return ct_tensor_masked_select(fx, fm, out);
}
static ct_status f_index_select(ct_tensor **out) {
    return ct_tensor_index_select(fx, 2, fi, out);
}
static ct_status f_put(ct_tensor **out) {
    ct_tensor *c = NULL;
    ct_status st = ct_tensor_clone(fx, CT_MEMFMT_CONTIGUOUS, &c);
    if (st == CT_OK)
        st = ct_tensor_index_put_(c, LIST(fi), 1, fx, true);
    if (st != CT_OK) {
        ct_tensor_release(c);
        c = NULL;
    }
    *out = c;
    return st;
}

static void test_fault_injection(void **state) {
    (void)state;
    fx = ar(CT_FLOAT32, SHAPE(2, 2, 2));
    fi = V(CT_INT64, 1, 0);
    fm = V(CT_BOOL, 0, 1);
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("index", f_index) > 0);
    assert_true(fault_loop("index mask", f_mask) > 0);
    assert_true(fault_loop("index separated", f_sep) > 0);
    assert_true(fault_loop("nonzero", f_nonzero) > 0);
    assert_true(fault_loop("masked_select", f_masked_select) > 0);
    assert_true(fault_loop("index_select", f_index_select) > 0);
    assert_true(fault_loop("index_put_", f_put) > 0);
    OK(ct_set_allocator(&prev));
    ct_tensor_release(fx);
    ct_tensor_release(fi);
    ct_tensor_release(fm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_get), cmocka_unit_test(test_index_put),
        cmocka_unit_test(test_select_ops), cmocka_unit_test(test_threads),
        cmocka_unit_test(test_out_forms),
        cmocka_unit_test(test_fault_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
