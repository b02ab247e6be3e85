/* The classifications (isnan .. isreal), isclose / allclose / equal and round(decimals=) on
 * a device, tested without a GPU: the host-emulated xpu backend of test_launch_dispatch
 * (memory not host accessible, launches executed on the host by tests/unit/launch_host.h
 * with the element code the CUDA kernels compile: binary_plan2.h's classification and
 * isclose cases, unary_plan.h's round), compared with the cpu for every op x dtype x layout
 * (tests/unit/launch_diff_classify.h). */
#include "cmocka_all.h"

#include "ctensor/backend.h"
#include "ctensor/ctensor.h"
/* launch_diff.h's element-wise checks are test_launch_dispatch's, unused here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "launch_diff_classify.h"
#include "launch_host.h"

static ct_kernel_launch seen;
static int nseen;

/* host_launch, keeping a copy of the last launch */
static ct_status record_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    seen = *l;
    nseen++;
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

/* What the launches carry: an EQ launch with the classification or isclose's tolerances,
 * a UNARY ROUND launch with the decimals. */
static void test_classify_launch_fields(void **state) {
    (void)state;
    int64_t s[] = {2, 3};
    ct_tensor *x = NULL, *h = NULL, *r = NULL;
    assert_int_equal(ct_tensor_ones(s, 2, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &x), CT_OK);
    assert_int_equal(ct_isneginf(x, &r), CT_OK);
    assert_int_equal(seen.kind, CT_LAUNCH_BINARY);
    assert_int_equal(seen.binop, 5); /* the EQ kernel row */
    assert_int_equal(seen.cmpop, CT_LAUNCH_CMP_ISNEGINF);
    assert_int_equal(seen.dtype[0], CT_BOOL);
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_tensor_to_dtype(x, CT_FLOAT16, &h), CT_OK);
    assert_int_equal(ct_isclose(h, h, 0.25, 0.5, true, &r), CT_OK);
    assert_int_equal(seen.cmpop, CT_LAUNCH_CMP_ISCLOSE);
    assert_true(seen.cmp_rtol == 0.25 && seen.cmp_atol == 0.5 && seen.cmp_equal_nan);
    assert_int_equal(seen.compute, CT_FLOAT16);
    assert_int_equal(seen.math, CT_FLOAT32);
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_eq(x, x, &r), CT_OK);
    assert_int_equal(seen.cmpop, 0);
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_round_decimals(h, -2, &r), CT_OK);
    assert_int_equal(seen.kind, CT_LAUNCH_UNARY);
    assert_true(seen.flags & CT_LAUNCH_ROUND_DECIMALS);
    assert_int_equal(seen.decimals, -2);
    ct_tensor_release(r);
    r = NULL;
    /* allclose reduces on the device: an isclose launch, then an ALL reduction */
    bool v = false;
    nseen = 0;
    assert_int_equal(ct_allclose(x, x, 1e-5, 1e-8, false, &v), CT_OK);
    assert_true(v);
    assert_int_equal(seen.kind, CT_LAUNCH_REDUCE);
    assert_true(nseen >= 2);
    ct_tensor_release(x);
    ct_tensor_release(h);
}

/* Every op x dtype x layout against the cpu. */
static void test_classify_all(void **state) {
    (void)state;
    long before = launches_binary + launches_unary;
    ld_failures = 0;
    ld_checks = 0;
    ldc_all();
    ldc_errors();
    printf("classify / isclose / round(decimals): %ld comparisons, %ld launches\n", ld_checks,
           launches_binary + launches_unary - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_binary + launches_unary - before > 2000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_launch_fields),
        cmocka_unit_test(test_classify_all),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
