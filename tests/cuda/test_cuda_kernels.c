/* The CUDA backend's kernels against the cpu: every binary op on every dtype pair of
 * launch_diff.h in every layout (contiguous, broadcast, transposed, one-element, 0-dim cpu
 * operand, Python scalar, alpha, out=, in place), every dtype pair of copies in every
 * direction, fills, long operands (the vectorised and grid-stride paths), many dims, integer
 * division by zero and the mixed-device error; the ternary ops (launch_diff_ternary.h);
 * results compared byte for byte (NaN payloads aside). Needs a GPU: exits 77 (skipped) when ct_cuda_init finds no device. */
#include "cmocka_all.h"

#include "ctensor/ctensor.h"
#include "ctensor/cuda.h"
#include "launch_diff.h"
#include "launch_diff_ternary.h"

static void test_binary(void **state) {
    (void)state;
    ld_failures = 0;
    ld_binary_all();
    printf("binary: %ld comparisons\n", ld_checks);
    assert_int_equal(ld_failures, 0);
}

static void test_copy(void **state) {
    (void)state;
    ld_failures = 0;
    ld_copy_all();
    ld_copy_layouts();
    printf("copy: %ld comparisons\n", ld_checks);
    assert_int_equal(ld_failures, 0);
}

static void test_big(void **state) {
    (void)state;
    ld_failures = 0;
    ld_big((1 << 22) + 5);
    assert_int_equal(ld_failures, 0);
}

static void test_f16_exact(void **state) {
    (void)state;
    ld_failures = 0;
    ld_f16_exact();
    assert_int_equal(ld_failures, 0);
}

static void test_errors(void **state) {
    (void)state;
    ld_errors();
    assert_int_equal(ct_cuda_synchronize(0), CT_OK);
}

/* where, clamp, lerp, addcmul, addcdiv, masked_fill: every dtype and layout, out= and in
 * place (launch_diff_ternary.h), and their refusals. */
static void test_ternary(void **state) {
    (void)state;
    ld_failures = 0;
    long before = ld_checks;
    ld_ternary_errors();
    ld_ternary_all();
    printf("ternary: %ld comparisons\n", ld_checks - before);
    assert_int_equal(ld_failures, 0);
    assert_int_equal(ct_cuda_synchronize(0), CT_OK);
}

int main(void) {
    if (ct_cuda_init() != CT_OK) {
        fprintf(stderr, "ct_cuda_init: %s\n", ct_last_error());
        return 1;
    }
    if (ct_cuda_device_count() == 0) {
        fprintf(stderr, "no cuda device: skipped\n");
        return 77;
    }
    ld_device = (ct_device){CT_DEVICE_CUDA, 0};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_big),
        cmocka_unit_test(test_f16_exact),
        cmocka_unit_test(test_ternary),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    /* hand the allocator's cached blocks back, so that compute-sanitizer's leak check
     * (scripts/gpu-check.sh) reports only memory a tensor really lost */
    if (ct_cuda_empty_cache() != CT_OK)
        failed++;
    return failed;
}
