/* The CUDA backend's kernels against the cpu: every binary op on every dtype pair of
 * launch_diff.h in every layout (contiguous, broadcast, transposed, one-element, 0-dim cpu
 * operand, Python scalar, alpha, out=, in place), every dtype pair of copies in every
 * direction, fills, long operands (the vectorised and grid-stride paths), many dims, integer
 * division by zero and the mixed-device error; results compared byte for byte (NaN payloads
 * aside). Needs a GPU: exits 77 (skipped) when ct_cuda_init finds no device. */
#include "cmocka_all.h"

#include "ctensor/ctensor.h"
#include "ctensor/cuda.h"
#include "launch_diff.h"
#include "launch_diff_reduce.h"

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

/* Reductions (REDUCE launches): every op x dtype x layout x dims, exact values byte for
 * byte; long and many rows (the split-row, two-pass and outer kernels); random float sums
 * within rounding of the cpu's. */
static void test_reduce(void **state) {
    (void)state;
    ld_failures = 0;
    ld_checks = 0;
    lr_all();
    printf("reduce: %ld comparisons\n", ld_checks);
    assert_int_equal(ld_failures, 0);
}

static void test_reduce_big(void **state) {
    (void)state;
    ld_failures = 0;
    lr_big((int64_t)64 * 65536 + 64 * 3);
    lr_random(CT_FLOAT32, 1, 10000000, -1, 1e-6);
    lr_random(CT_FLOAT32, 5, 2000000, 1, 1e-6);
    lr_random(CT_FLOAT32, 2000000, 5, 0, 1e-6);
    lr_random(CT_FLOAT32, 3, 1000, 0, 1e-6);
    lr_random(CT_FLOAT16, 1000, 3000, 1, 1e-3);
    lr_random(CT_BFLOAT16, 3000, 1000, 0, 1e-2);
    lr_random(CT_FLOAT64, 1, 3000000, -1, 1e-12);
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
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_reduce_big),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    /* hand the allocator's cached blocks back, so that compute-sanitizer's leak check
     * (scripts/gpu-check.sh) reports only memory a tensor really lost */
    if (ct_cuda_empty_cache() != CT_OK)
        failed++;
    return failed;
}
