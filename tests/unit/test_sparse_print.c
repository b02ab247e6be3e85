/* repr of sparse COO tensors (ct_sparse_repr, src/sparse/print.c): fixed strings printed by
 * PyTorch 1.13 (meta tensors: newest PyTorch's rule, no nnz), the hand-over of strided
 * tensors to the dense printer, errors, and a failing-allocator loop.
 * tests/python/test_sparse_module.py compares many more reprs with 1.13 directly. */
#define _POSIX_C_SOURCE 200809L
#include "fault_alloc.h"
#include "sparse_test_util.h"

#include "ctensor/sparse.h"

static ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t nd, const void *data,
                     const ct_device *dev) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, nd, dt, data, dev, &t));
    return t;
}

static void expect_named(ct_tensor *t, const ct_print_options *o, const char *name,
                         const char *want) {
    char *s = NULL;
    OK(ct_sparse_repr_named(t, o, name, &s));
    assert_non_null(s);
    if (strcmp(s, want) != 0)
        fail_msg("got\n%s\nwant\n%s", s, want);
    ct_string_free(s);
}

static void expect(ct_tensor *t, const ct_print_options *o, const char *want) {
    expect_named(t, o, NULL, want);
    ct_tensor_release(t);
}

static ct_tensor *example(void) {
    ct_tensor *i = mk(CT_INT64, SHAPE(2, 3), (const int64_t[]){1, 0, 1, 0, 1, 1}, &CPU);
    ct_tensor *v = mk(CT_FLOAT32, SHAPE(3), (const float[]){1.5f, 2.f, -3.f}, &CPU);
    return coo(i, v, SHAPE(2, 2));
}

static void t_basic(void **state) {
    (void)state;
    expect(example(), NULL,
           "tensor(indices=tensor([[1, 0, 1],\n"
           "                       [0, 1, 1]]),\n"
           "       values=tensor([ 1.5000,  2.0000, -3.0000]),\n"
           "       size=(2, 2), nnz=3, layout=torch.sparse_coo)");
    /* hybrid, with a dtype suffix */
    ct_tensor *i = mk(CT_INT64, SHAPE(1, 2), (const int64_t[]){0, 2}, &CPU);
    ct_tensor *v = mk(CT_INT32, SHAPE(2, 2), (const int32_t[]){1, 2, 3, 4}, &CPU);
    expect(coo(i, v, SHAPE(3, 2)), NULL,
           "tensor(indices=tensor([[0, 2]]),\n"
           "       values=tensor([[1, 2],\n"
           "                      [3, 4]]),\n"
           "       size=(3, 2), nnz=2, dtype=torch.int32, layout=torch.sparse_coo)");
}

static void t_empty_and_wrapping(void **state) {
    (void)state;
    ct_tensor *z = NULL;
    OK(ct_sparse_coo_zeros(SHAPE(2, 3), 2, CT_FLOAT32, &CPU, &z));
    expect(z, NULL,
           "tensor(indices=tensor([], size=(2, 0)),\n"
           "       values=tensor([], size=(0,)),\n"
           "       size=(2, 3), nnz=0, layout=torch.sparse_coo)");
    int64_t idx[12];
    double val[12];
    for (int k = 0; k < 12; k++)
        idx[k] = k, val[k] = k;
    ct_tensor *s = coo(mk(CT_INT64, SHAPE(1, 12), idx, &CPU), mk(CT_FLOAT64, SHAPE(12), val, &CPU),
                       NULL, CT_SPARSE_INFER_SIZE);
    ct_print_options o = ct_print_options_default();
    o.linewidth = 40;
    expect(s, &o,
           "tensor(indices=tensor([[ 0,  1,  2,  3,\n"
           "                         4,  5,  6,  7,\n"
           "                         8,  9, 10, 11]]),\n"
           "       values=tensor([ 0.,  1.,  2.,\n"
           "                       3.,  4.,  5.,\n"
           "                       6.,  7.,  8.,\n"
           "                       9., 10., 11.]),\n"
           "       size=(12,), nnz=12,\n"
           "       dtype=torch.float64,\n"
           "       layout=torch.sparse_coo)");
}

static void t_prefix_name_meta_strided(void **state) {
    (void)state;
    ct_tensor *s = example();
    ct_print_options o = ct_print_options_default();
    memcpy(o.prefix, "ctensor.", sizeof "ctensor.");
    expect_named(s, &o, "Sub",
                 "Sub(indices=tensor([[1, 0, 1],\n"
                 "                    [0, 1, 1]]),\n"
                 "    values=tensor([ 1.5000,  2.0000, -3.0000]),\n"
                 "    size=(2, 2), nnz=3, layout=ctensor.sparse_coo)");
    ct_tensor_release(s);

    ct_tensor *m = NULL;
    OK(ct_sparse_coo_zeros(SHAPE(2, 3), 1, CT_FLOAT64, &META, &m));
    expect(m, NULL,
           "tensor(indices=tensor(...),\n"
           "       values=tensor(...),\n"
           "       device='meta', size=(2, 3), dtype=torch.float64, layout=torch.sparse_coo)");

    /* strided tensors go to the dense printer */
    expect(mk(CT_INT64, SHAPE(2), (const int64_t[]){1, 2}, &CPU), NULL, "tensor([1, 2])");
}

static void t_errors(void **state) {
    (void)state;
    char *s = (char *)"x";
    assert_status_msg(ct_sparse_repr(NULL, NULL, &s), CT_ERR_MISUSE,
                      "ct_sparse_repr: tensor is NULL");
    assert_null(s);
    ct_tensor *t = example();
    assert_status_msg(ct_sparse_repr(t, NULL, NULL), CT_ERR_MISUSE, "ct_sparse_repr: out is NULL");
    /* each function names itself */
    assert_status_msg(ct_sparse_repr_named(t, NULL, "x", NULL), CT_ERR_MISUSE,
                      "ct_sparse_repr_named: out is NULL");
    ct_print_options o = ct_print_options_default();
    o.precision = -1;
    s = (char *)"x";
    assert_int_equal(ct_sparse_repr(t, &o, &s), CT_ERR_VALUE);
    assert_null(s);
    ct_tensor_release(t);
}

/* ---- allocation failures ------------------------------------------------------------------- */

static void t_fault_injection(void **state) {
    (void)state;
    ct_allocator fa = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fa));
    ct_tensor *t = example();
    int failures = 0;
    for (long n = 1;; n++) {
        long before = live_allocs;
        calls = 0;
        fail_at = n;
        char *s = (char *)"x";
        ct_status st = ct_sparse_repr(t, NULL, &s);
        fail_at = 0;
        if (calls < n) { /* nothing failed */
            OK(st);
            assert_true(strlen(s) > 100);
            ct_string_free(s);
            assert_int_equal(live_allocs, before);
            break;
        }
        assert_int_equal(st, CT_ERR_NOMEM);
        assert_null(s);
        assert_int_equal(live_allocs, before);
        failures++;
    }
    assert_true(failures >= 3);
    ct_tensor_release(t);
    assert_int_equal(live_allocs, 0);
    OK(ct_set_allocator(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_basic),
        cmocka_unit_test(t_empty_and_wrapping),
        cmocka_unit_test(t_prefix_name_meta_strided),
        cmocka_unit_test(t_errors),
        cmocka_unit_test(t_fault_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
