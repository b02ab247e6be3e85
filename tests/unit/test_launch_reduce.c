/* Reductions on a device through REDUCE launches (backend.h), tested without a GPU: the
 * host-emulated xpu backend of test_launch_dispatch (memory not host accessible, launches
 * executed on the host by tests/unit/launch_host.h with the element code the CUDA kernels
 * compile, src/kernels/reduce_elem.h), compared with the cpu for every op x dtype x layout
 * (tests/unit/launch_diff_reduce.h). */
#include "cmocka_all.h"

#include "ctensor/backend.h"
#include "ctensor/ctensor.h"
/* launch_diff.h's element-wise checks are test_launch_dispatch's, unused here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "launch_diff_reduce2.h"
#include "launch_host.h"

static int setup(void **state) {
    (void)state;
    if (host_launch_register_xpu(host_launch) != CT_OK)
        return -1;
    ld_device = (ct_device){CT_DEVICE_XPU, 0};
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return ct_backend_unregister(CT_DEVICE_XPU) == CT_OK ? 0 : -1;
}

/* Every op x dtype x layout x dims against the cpu; the launches really ran. */
static void test_reduce_all(void **state) {
    (void)state;
    long before = launches_reduce;
    ld_failures = 0;
    ld_checks = 0;
    lr_all();
    printf("reduce: %ld comparisons, %ld launches\n", ld_checks, launches_reduce - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_reduce - before > 5000);
}

/* Sums that are not exact: within rounding of the cpu's. */
static void test_reduce_random(void **state) {
    (void)state;
    ld_failures = 0;
    lr_random(CT_FLOAT32, 7, 3000, -1, 1e-6);
    lr_random(CT_FLOAT32, 7, 3000, 1, 1e-6);
    lr_random(CT_FLOAT32, 3000, 7, 0, 1e-6);
    lr_random(CT_FLOAT16, 50, 300, 1, 1e-3);
    lr_random(CT_BFLOAT16, 50, 300, 0, 1e-2);
    lr_random(CT_FLOAT64, 40, 500, -1, 1e-12);
    lr_big(64 * 300);
    assert_int_equal(ld_failures, 0);
}

/* The launch's fields: the output's stride 0 marks the reduced dims; dims merge. */
static const ct_kernel_launch *seen;
static ct_kernel_launch seen_copy;
static ct_status recording(void *ctx, int32_t index, const ct_kernel_launch *l) {
    if (l->kind == CT_LAUNCH_REDUCE) {
        seen_copy = *l;
        seen = &seen_copy;
    }
    return host_launch(ctx, index, l);
}

static void test_reduce_launch_fields(void **state) {
    (void)state;
    ct_backend b;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = recording;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    int64_t s[] = {6, 4, 5}, dims[] = {1, 2};
    ct_tensor *a = NULL, *r = NULL;
    assert_int_equal(ct_tensor_ones(s, 3, CT_FLOAT16, &ld_device, CT_LAYOUT_STRIDED, &a), CT_OK);
    seen = NULL;
    assert_int_equal(ct_mean(a, dims, 2, false, CT_DTYPE_UNDEFINED, &r), CT_OK);
    assert_non_null(seen);
    assert_int_equal(seen->reduce_op, CT_LAUNCH_RED_SUM);
    assert_int_equal(seen->acc, CT_FLOAT64);
    assert_int_equal(seen->divisor, 20);
    assert_int_equal(seen->noperands, 2);
    assert_int_equal(seen->ndim, 2); /* (4, 5) merged: 20 reduced, then 6 kept */
    assert_int_equal(seen->shape[0], 20);
    assert_int_equal(seen->strides[0][0], 0);
    assert_int_equal(seen->strides[1][0], 2);
    assert_int_equal(seen->shape[1], 6);
    assert_int_equal(seen->strides[0][1], 2);
    assert_int_equal(seen->dtype[0], CT_FLOAT16);
    ct_tensor_release(r);
    seen = NULL;
    assert_int_equal(ct_reduce(CT_REDUCE_PROD, a, NULL, 0, false, CT_DTYPE_UNDEFINED, &r), CT_OK);
    assert_non_null(seen);
    assert_int_equal(seen->acc, CT_FLOAT32);
    assert_int_equal(seen->ndim, 1);
    assert_int_equal(seen->numel, 120);
    ct_tensor_release(r);
    ct_tensor_release(a);
    seen = NULL;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(setup(NULL), 0);
}

/* What has no REDUCE kernel (complex std, complex sum), and every reduction on a backend
 * without a launch slot, runs through host memory (Note [Staging through host memory]):
 * the cpu's values, on the device. */
static void expect_host_value(const ct_tensor *r, double want) {
    assert_non_null(r);
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    ct_tensor *h = NULL;
    assert_int_equal(ct_tensor_to(r, CT_FLOAT64, &(ct_device){CT_DEVICE_CPU, -1}, true,
                                  CT_MEMFMT_CONTIGUOUS, &h),
                     CT_OK);
    assert_true(((const double *)ct_tensor_data_ptr(h))[0] == want);
    ct_tensor_release(h);
}

static void test_reduce_refusals(void **state) {
    (void)state;
    int64_t s[] = {4};
    ct_tensor *a = NULL, *r = NULL, *c = NULL;
    assert_int_equal(ct_tensor_ones(s, 1, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &a), CT_OK);
    assert_int_equal(ct_tensor_to_dtype(a, CT_COMPLEX64, &c), CT_OK);
    assert_int_equal(ct_std_var(c, NULL, 0, 1.0, false, true, NULL, &r, NULL), CT_OK);
    expect_host_value(r, 0.0);
    ct_tensor_release(r);
    assert_int_equal(ct_sum(c, NULL, 0, false, CT_DTYPE_UNDEFINED, &r), CT_OK);
    assert_int_equal(ct_tensor_dtype(r), CT_COMPLEX64);
    expect_host_value(r, 4.0);
    ct_tensor_release(r);
    ct_tensor_release(c);
    ct_backend b;
    ct_tensor_release(a);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    assert_int_equal(ct_tensor_ones(s, 1, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &a), CT_OK);
    assert_int_equal(ct_sum(a, NULL, 0, false, CT_DTYPE_UNDEFINED, &r), CT_OK);
    expect_host_value(r, 4.0);
    ct_tensor_release(r);
    ct_tensor_release(a);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(setup(NULL), 0);
}

/* max / min with a dim, argmax / argmin, var / std (and _mean), nanmean, logsumexp
 * (launch_diff_reduce2.h): every dtype x layout x dims against the cpu; the launches of the
 * multi-number accumulators really ran. */
static void test_reduce2_all(void **state) {
    (void)state;
    long before = launches_reduce2;
    ld_failures = 0;
    ld_checks = 0;
    lr2_all();
    printf("reduce2: %ld comparisons, %ld launches\n", ld_checks, launches_reduce2 - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_reduce2 - before > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_launch_fields),
        cmocka_unit_test(test_reduce_refusals),
        cmocka_unit_test(test_reduce_all),
        cmocka_unit_test(test_reduce_random),
        cmocka_unit_test(test_reduce2_all),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
