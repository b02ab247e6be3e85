/* Fault injection: an allocator that fails the Nth allocation, looped N = 1, 2, ... over
 * creation, view, copy and conversion calls until the call succeeds. At every failure the
 * call must report CT_ERR_NOMEM, leave its out-parameter NULL and hold no memory; after
 * success, releasing the result must return every byte. (Run under ASan/LSan too.) */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "tensor_test_util.h"

#include "base/error_impl.h"

static const ct_device NPU = {CT_DEVICE_PRIVATEUSEONE, 0};

#include "fault_loop.h"

static ct_tensor *anchor; /* keeps the emulated backend's bookkeeping allocated */

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    if (ct_set_allocator(&a) != CT_OK || ct_privateuse1_set_name("npu") != CT_OK ||
        ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 1) != CT_OK)
        return -1;
    return ct_tensor_zeros(SHAPE(1), CT_FLOAT32, &NPU, CT_LAYOUT_STRIDED, &anchor) == CT_OK ? 0
                                                                                            : -1;
}

static int teardown(void **state) {
    (void)state;
    ct_tensor_release(anchor);
    ct_status st = ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE);
    bool clean = live_allocs == 0;
    if (!clean)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    ct_set_allocator(NULL);
    return st == CT_OK && clean ? 0 : -1;
}

/* ---- the loop ---- */


/* ---- operations ---- */

static ct_tensor *base2, *base7, *npu_src;

static ct_status op_empty(ct_tensor **o) {
    return ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           o);
}
static ct_status op_empty7(ct_tensor **o) {
    return ct_tensor_empty(SHAPE(1, 2, 1, 2, 1, 2, 3), CT_INT8, &CPU, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, o);
}
static ct_status op_zeros_npu(ct_tensor **o) {
    return ct_tensor_zeros(SHAPE(4, 4), CT_FLOAT64, &NPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_full(ct_tensor **o) {
    return ct_tensor_full(SHAPE(3), ct_scalar_float(2), CT_BFLOAT16, &CPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_cl(ct_tensor **o) {
    return ct_tensor_empty(SHAPE(2, 3, 4, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CHANNELS_LAST, o);
}
static ct_status op_arange_npu(ct_tensor **o) {
    return ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(10), ct_scalar_int(1), CT_INT16, &NPU,
                            CT_LAYOUT_STRIDED, o);
}
static ct_status op_rand_npu(ct_tensor **o) {
    return ct_tensor_rand(SHAPE(5), NULL, CT_COMPLEX64, &NPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_randn_like(ct_tensor **o) {
    return ct_tensor_randn_like(base2, NULL, CT_FLOAT64, NULL, CT_MEMFMT_PRESERVE, o);
}
static ct_status op_from_data(ct_tensor **o) {
    const int32_t d[4] = {1, 2, 3, 4};
    return ct_tensor_from_data(SHAPE(2, 2), CT_INT32, d, &NPU, o);
}
static ct_status op_scalar(ct_tensor **o) {
    return ct_tensor_scalar_tensor(ct_scalar_complex(1, 2), CT_DTYPE_UNDEFINED, NULL, o);
}
static ct_status op_wrapped(ct_tensor **o) { return ct_tensor_wrapped_number(ct_scalar_int(3), o); }
static ct_status op_ones_like(ct_tensor **o) {
    return ct_tensor_ones_like(base7, CT_DTYPE_UNDEFINED, &NPU, CT_MEMFMT_PRESERVE, o);
}

static ct_status op_view(ct_tensor **o) { return ct_tensor_view(base2, SHAPE(3, -1), o); }
static ct_status op_view7(ct_tensor **o) {
    return ct_tensor_view(base7, SHAPE(2, 1, 1, 2, 1, 2, 3), o);
}
static ct_status op_reshape_copy(ct_tensor **o) {
    ct_tensor *t = NULL;
    CT_TRY(ct_tensor_t(base2, &t));
    ct_status st = ct_tensor_reshape(t, SHAPE(6), o);
    ct_tensor_release(t);
    return st;
}
static ct_status op_permute7(ct_tensor **o) {
    return ct_tensor_permute(base7, SHAPE(6, 5, 4, 3, 2, 1, 0), o);
}
static ct_status op_expand(ct_tensor **o) { return ct_tensor_expand(base2, SHAPE(5, 2, 3), o); }
static ct_status op_slice(ct_tensor **o) { return ct_tensor_slice(base2, 1, 0, 3, 2, o); }
static ct_status op_select(ct_tensor **o) { return ct_tensor_select(base2, 0, 1, o); }
static ct_status op_narrow(ct_tensor **o) { return ct_tensor_narrow(base2, 1, 1, 2, o); }
static ct_status op_squeeze(ct_tensor **o) { return ct_tensor_squeeze(base7, o); }
static ct_status op_unsqueeze(ct_tensor **o) { return ct_tensor_unsqueeze(base7, 2, o); }
static ct_status op_flatten(ct_tensor **o) { return ct_tensor_flatten(base7, 1, 5, o); }
static ct_status op_as_strided(ct_tensor **o) {
    return ct_tensor_as_strided(base2, ARR(2, 2), ARR(1, 2), 2, NULL, o);
}
static ct_status op_contiguous(ct_tensor **o) {
    ct_tensor *t = NULL;
    CT_TRY(ct_tensor_transpose(base7, 0, 6, &t));
    ct_status st = ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, o);
    ct_tensor_release(t);
    return st;
}

static ct_status op_clone_npu(ct_tensor **o) {
    return ct_tensor_clone(npu_src, CT_MEMFMT_PRESERVE, o);
}
static ct_status op_to_npu_cast(ct_tensor **o) {
    ct_tensor *t = NULL;
    CT_TRY(ct_tensor_t(base2, &t));
    ct_status st = ct_tensor_to(t, CT_FLOAT16, &NPU, false, CT_MEMFMT_CONTIGUOUS, o);
    ct_tensor_release(t);
    return st;
}
static ct_status op_to_cpu_strided(ct_tensor **o) {
    ct_tensor *t = NULL;
    CT_TRY(ct_tensor_slice(npu_src, 0, 0, CT_SLICE_END, 2, &t));
    ct_status st = ct_tensor_to(t, CT_INT64, &CPU, false, CT_MEMFMT_PRESERVE, o);
    ct_tensor_release(t);
    return st;
}
/* in-place calls: out stays NULL */
static ct_status op_copy_overlap(ct_tensor **o) {
    (void)o;
    ct_tensor *d = NULL, *s = NULL;
    ct_status st = ct_tensor_as_strided(base2, ARR(2), ARR(2), 1, ARR(2), &d);
    if (st == CT_OK)
        st = ct_tensor_as_strided(base2, ARR(2), ARR(2), 1, ARR(0), &s);
    if (st == CT_OK)
        st = ct_tensor_copy_(d, s);
    ct_tensor_release(d);
    ct_tensor_release(s);
    return st;
}
static ct_status op_copy_into_npu_gaps(ct_tensor **o) {
    (void)o;
    ct_tensor *v = NULL, *d = NULL; /* rows 0 and 2 of npu_src viewed as (4, 3) */
    ct_status st = ct_tensor_view(npu_src, SHAPE(4, 3), &v);
    if (st == CT_OK)
        st = ct_tensor_slice(v, 0, 0, CT_SLICE_END, 2, &d);
    if (st == CT_OK)
        st = ct_tensor_copy_(d, base2);
    ct_tensor_release(d);
    ct_tensor_release(v);
    return st;
}
static ct_status op_fill_strided(ct_tensor **o) {
    (void)o;
    ct_tensor *d = NULL;
    ct_status st = ct_tensor_slice(npu_src, 0, 1, CT_SLICE_END, 3, &d);
    if (st == CT_OK)
        st = ct_tensor_fill_(d, ct_scalar_int(9));
    ct_tensor_release(d);
    return st;
}

static void test_faults(void **state) {
    (void)state;
    OK(ct_tensor_zeros(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &base2));
    OK(ct_tensor_zeros(SHAPE(1, 2, 1, 2, 1, 2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &base7));
    OK(ct_tensor_ones(SHAPE(12), CT_INT32, &NPU, CT_LAYOUT_STRIDED, &npu_src));
    struct {
        const char *name;
        op_fn fn;
    } ops[] = {
        {"empty", op_empty},
        {"empty 7-D", op_empty7},
        {"zeros npu", op_zeros_npu},
        {"full", op_full},
        {"channels last", op_cl},
        {"arange npu", op_arange_npu},
        {"rand npu", op_rand_npu},
        {"randn_like", op_randn_like},
        {"from_data npu", op_from_data},
        {"scalar", op_scalar},
        {"wrapped", op_wrapped},
        {"ones_like npu", op_ones_like},
        {"view", op_view},
        {"view 7-D", op_view7},
        {"reshape copy", op_reshape_copy},
        {"permute 7-D", op_permute7},
        {"expand", op_expand},
        {"slice", op_slice},
        {"select", op_select},
        {"narrow", op_narrow},
        {"squeeze", op_squeeze},
        {"unsqueeze", op_unsqueeze},
        {"flatten", op_flatten},
        {"as_strided", op_as_strided},
        {"contiguous", op_contiguous},
        {"clone npu", op_clone_npu},
        {"to npu cast", op_to_npu_cast},
        {"to cpu strided", op_to_cpu_strided},
        {"copy overlap", op_copy_overlap},
        {"copy into npu gaps", op_copy_into_npu_gaps},
        {"fill strided", op_fill_strided},
    };
    int total = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int k = fault_loop(ops[i].name, ops[i].fn);
        if (k == 0)
            fail_msg("%s: allocates nothing? the loop tested no failure", ops[i].name);
        total += k;
    }
    print_message("%d allocation failures injected\n", total);
    ct_tensor_release(base2);
    ct_tensor_release(base7);
    ct_tensor_release(npu_src);
}

/* Storages and generators fail cleanly too. */
static void test_fault_misc(void **state) {
    (void)state;
    long before = live_allocs;
    calls = 0;
    fail_at = 1;
    ct_storage *s = NULL;
    assert_int_equal(ct_storage_new(CPU, 16, &s), CT_ERR_NOMEM);
    assert_null(s);
    calls = 0;
    fail_at = 2; /* the data, after the struct (small cpu storages are one block) */
    assert_int_equal(ct_storage_new(CPU, 4096, &s), CT_ERR_NOMEM);
    calls = 0;
    fail_at = 1;
    float mem[2];
    assert_int_equal(ct_storage_wrap(CPU, mem, sizeof mem, NULL, NULL, &s), CT_ERR_NOMEM);
    calls = 0;
    fail_at = 1;
    ct_generator *g = NULL;
    assert_int_equal(ct_generator_new(1, &g), CT_ERR_NOMEM);
    assert_null(g);
    fail_at = 0;
    assert_int_equal(live_allocs, before);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_fault_misc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
