/* Exports keep alive the memory they hand out (src/tensor/dlpack.c, Note [Exports hold an
 * alias]): a DLPack export taken before the source grows through out= (or resize_) still
 * describes the old memory, with the old shape and strides, and that memory is neither
 * freed nor reused while the export lives. Under AddressSanitizer a violation is a
 * heap-use-after-free; without it, the tensors allocated and filled after the resize take
 * the freed block and the values read through the export change. */
#include "tensor_test_util.h"

#include "ctensor/dlpack.h"
#include "tensor/tensor_impl.h"

/* Grow `t` (float32) to 1000 elements through out=: t's storage is replaced. */
static void grow_through_out(ct_tensor *t) {
    ct_tensor *big = NULL;
    OK(ct_tensor_ones(SHAPE(1000), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &big));
    OK(ct_add_out(big, big, ct_scalar_int(1), t));
    ct_tensor_release(big);
    assert_int_equal(ct_tensor_numel(t), 1000);
}

/* Allocate and fill tensors of every small size, so that a freed block is reused. */
static void churn(ct_tensor **keep, int n) {
    for (int i = 0; i < n; i++)
        OK(ct_tensor_full(SHAPE(1 + i % 16), ct_scalar_float(-99.0), CT_FLOAT32, &CPU,
                          CT_LAYOUT_STRIDED, &keep[i]));
}

static void release_all(ct_tensor **keep, int n) {
    for (int i = 0; i < n; i++)
        ct_tensor_release(keep[i]);
}

/* The exported values 0, 1, ..., n-1 (float32, contiguous), shape [n], strides [1]. */
static void check_iota_export(const ct_dl_tensor *dl, int64_t n) {
    assert_int_equal(dl->ndim, 1);
    assert_int_equal(dl->shape[0], n);
    assert_int_equal(dl->strides[0], 1);
    const float *p = (const float *)((const char *)dl->data + dl->byte_offset);
    for (int64_t i = 0; i < n; i++)
        assert_float_equal(p[i], (float)i, 0);
}

enum { CHURN = 64 };

static void test_dlpack_export_survives_out_growth(void **state) {
    (void)state;
    for (int versioned = 0; versioned < 2; versioned++) {
        ct_tensor *t = iota(SHAPE(4)), *keep[CHURN];
        void *old_data = ct_tensor_data_ptr(t);
        ct_dl_managed_tensor *m = NULL;
        ct_dl_managed_tensor_versioned *mv = NULL;
        if (versioned)
            OK(ct_tensor_to_dlpack_versioned(t, 0, &mv));
        else
            OK(ct_tensor_to_dlpack(t, &m));
        const ct_dl_tensor *dl = versioned ? &mv->dl_tensor : &m->dl_tensor;
        grow_through_out(t);
        assert_ptr_not_equal(ct_tensor_data_ptr(t), old_data);
        churn(keep, CHURN);
        assert_ptr_equal(dl->data, old_data);
        check_iota_export(dl, 4);
        /* the source is independent of the export from now on */
        OK(ct_tensor_fill_(t, ct_scalar_float(7.0)));
        check_iota_export(dl, 4);
        ct_tensor_release(t);
        check_iota_export(dl, 4);
        if (versioned)
            mv->deleter(mv);
        else
            m->deleter(m);
        release_all(keep, CHURN);
    }
}

/* resize_ itself (what out= calls), to more dims than the tensor keeps inline: the
 * export's shape and strides are its own copies. */
static void test_dlpack_export_survives_resize(void **state) {
    (void)state;
    ct_tensor *t = iota(SHAPE(6)), *keep[CHURN];
    ct_dl_managed_tensor *m = NULL;
    OK(ct_tensor_to_dlpack(t, &m));
    OK(ct_tensor_impl_resize(t, SHAPE(2, 3, 4, 2, 2, 2, 2), NULL));
    assert_int_equal(ct_tensor_dim(t), 7);
    churn(keep, CHURN);
    check_iota_export(&m->dl_tensor, 6);
    /* and back down, then up again: still the export's memory */
    OK(ct_tensor_impl_resize(t, SHAPE(1), NULL));
    OK(ct_tensor_impl_resize(t, SHAPE(5000), NULL));
    check_iota_export(&m->dl_tensor, 6);
    ct_tensor_release(t);
    m->deleter(m);
    release_all(keep, CHURN);
}

/* An export of a view; the view grows through out=, the base is untouched. */
static void test_dlpack_export_of_view_survives(void **state) {
    (void)state;
    ct_tensor *base = iota(SHAPE(8)), *v = NULL, *back = NULL, *keep[CHURN];
    OK(ct_tensor_slice(base, 0, 2, 6, 1, &v)); /* 2, 3, 4, 5 */
    ct_dl_managed_tensor_versioned *m = NULL;
    OK(ct_tensor_to_dlpack_versioned(v, 0, &m));
    OK(ct_tensor_from_dlpack_versioned(m, 0, NULL, &back)); /* the import owns the export */
    grow_through_out(v);
    ct_tensor_release(base);
    ct_tensor_release(v);
    churn(keep, CHURN);
    assert_sizes(back, 4);
    for (int64_t i = 0; i < 4; i++)
        assert_float_equal(at_f32(back, ARR(i)), (float)(i + 2), 0);
    ct_tensor_release(back);
    release_all(keep, CHURN);
}

/* Imported memory is not ctensor's to grow: PyTorch's refusal, and the tensor unchanged. */
static void test_imported_tensor_refuses_growth(void **state) {
    (void)state;
    ct_tensor *t = iota(SHAPE(4)), *back = NULL, *big = NULL;
    ct_dl_managed_tensor *m = NULL;
    OK(ct_tensor_to_dlpack(t, &m));
    OK(ct_tensor_from_dlpack(m, &back));
    OK(ct_tensor_ones(SHAPE(1000), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &big));
    assert_int_equal(ct_add_out(big, big, ct_scalar_int(1), back), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(), "Trying to resize storage that is not resizable");
    assert_sizes(back, 4);
    assert_ptr_equal(ct_tensor_data_ptr(back), ct_tensor_data_ptr(t));
    /* a shape that fits the storage is fine (no new storage is needed) */
    ct_tensor *two = NULL;
    OK(ct_tensor_ones(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &two));
    OK(ct_add_out(two, two, ct_scalar_int(1), back));
    assert_sizes(back, 2);
    assert_float_equal(at_f32(t, ARR(0)), 2.0f, 0);
    ct_tensor_release(two);
    ct_tensor_release(big);
    ct_tensor_release(back);
    ct_tensor_release(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlpack_export_survives_out_growth),
        cmocka_unit_test(test_dlpack_export_survives_resize),
        cmocka_unit_test(test_dlpack_export_of_view_survives),
        cmocka_unit_test(test_imported_tensor_refuses_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
