/* cumsum / cumprod on a device through SCAN launches (backend.h), tested without a GPU: the
 * host-emulated xpu backend (memory not host accessible, launches executed on the host by
 * tests/unit/launch_host_scan.c with src/kernels/scan_elem.h, the code the CUDA kernel
 * compiles), compared with the cpu for every op x dtype x layout x dim
 * (tests/unit/launch_diff_scan.h). */
#include "cmocka_all.h"

#include "ctensor/backend.h"
#include "ctensor/ctensor.h"
/* launch_diff.h's element-wise checks are test_launch_dispatch's, unused here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "launch_diff_scan.h"
#include "launch_host.h"

static ct_kernel_launch seen;

static ct_status record_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    if (l->kind == CT_LAUNCH_SCAN)
        seen = *l;
    return host_launch(ctx, index, l);
}

static int setup(void **state) {
    (void)state;
    if (host_launch_register_xpu(record_launch) != CT_OK)
        return -1;
    ld_device = (ct_device){CT_DEVICE_XPU, 0};
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return ct_backend_unregister(CT_DEVICE_XPU) == CT_OK ? 0 : -1;
}

/* The launch: the dense accumulation buffer and its O x R x I split. */
static void test_scan_launch_fields(void **state) {
    (void)state;
    int64_t s[] = {2, 3, 4};
    ct_tensor *x = NULL, *r = NULL;
    assert_int_equal(ct_tensor_ones(s, 3, CT_INT32, &ld_device, CT_LAYOUT_STRIDED, &x), CT_OK);
    memset(&seen, 0, sizeof seen);
    assert_int_equal(ct_cumulative(true, x, 1, CT_DTYPE_UNDEFINED, NULL, &r), CT_OK);
    assert_int_equal(seen.kind, CT_LAUNCH_SCAN);
    assert_int_equal(seen.scan_op, CT_LAUNCH_SCAN_PROD);
    assert_int_equal(seen.dtype[0], CT_INT64);
    assert_int_equal(seen.noperands, 1);
    assert_int_equal(seen.scan_outer, 2);
    assert_int_equal(seen.scan_len, 3);
    assert_int_equal(seen.scan_inner, 4);
    assert_int_equal(seen.numel, 24);
    assert_int_equal(ct_tensor_dtype(r), CT_INT64);
    ct_tensor_release(r);
    r = NULL;
    /* a dim of size 1 is still scanned (a sum turns -0.0 into +0.0): no dims then */
    int64_t s1[] = {1};
    ct_tensor *one = NULL;
    assert_int_equal(ct_tensor_ones(s1, 1, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &one),
                     CT_OK);
    memset(&seen, 0, sizeof seen);
    assert_int_equal(ct_cumulative(false, one, 0, CT_DTYPE_UNDEFINED, NULL, &r), CT_OK);
    assert_int_equal(seen.kind, CT_LAUNCH_SCAN);
    assert_int_equal(seen.ndim, 0);
    assert_int_equal(seen.numel, 1);
    assert_int_equal(seen.scan_len, 1);
    ct_tensor_release(r);
    ct_tensor_release(one);
    ct_tensor_release(x);
}

static void test_scan_all(void **state) {
    (void)state;
    long before = launches_scan;
    ld_failures = 0;
    ld_checks = 0;
    lds_all();
    lds_big(64 * 200);
    printf("cumsum / cumprod: %ld comparisons, %ld scan launches\n", ld_checks,
           launches_scan - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_scan - before > 500);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_launch_fields),
        cmocka_unit_test(test_scan_all),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
