/* The CUDA backend's kernels against the cpu: every binary op on every dtype pair of
 * launch_diff.h in every layout (contiguous, broadcast, transposed, one-element, 0-dim cpu
 * operand, Python scalar, alpha, out=, in place), every dtype pair of copies in every
 * direction, fills, long operands (the vectorised and grid-stride paths), many dims, integer
 * division by zero and the mixed-device error; results compared byte for byte (NaN payloads
 * aside); every unary op x dtype x layout (launch_diff_unary.h, a tolerance for the
 * libm-based ones: test_unary); the rows after div, reductions and the ternary ops. Needs a
 * GPU: exits 77 (skipped) when ct_cuda_init finds no device. */
#include "cmocka_all.h"

#include "ctensor/ctensor.h"
#include "ctensor/cuda.h"
#include "ctensor/cpu.h"
#include "launch_diff.h"
#include "launch_diff_unary.h"
#include "launch_diff_reduce.h"
#include "launch_diff_reduce2.h"
#include "launch_diff_ternary.h"
#include "launch_diff_classify.h"
#include "launch_diff_scan.h"

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

/* Every unary op x dtype x layout (launch_diff_unary.h) against the cpu at its baseline ISA
 * level, whose float32 transcendental functions are float64 glibc rounded once, as the GPU
 * computes them with libdevice's float64 functions. Tolerance for the libm-based ops
 * (exp, sin, erfc, sigmoid, hypot for complex abs and sgn, ...): 8 ulps of the result dtype
 * (CUDA documents up to 5 ulps for float64 erfc, 3 for asinh / acosh, 2 for hypot; a
 * float32 or narrower result, rounded from float64, differs by at most 1). Every other op,
 * and all integer and bool results, byte for byte. */
static void test_unary(void **state) {
    (void)state;
    ct_cpu_isa isa = ct_cpu_isa_active();
    assert_int_equal(ct_cpu_set_isa(CT_ISA_BASELINE), CT_OK);
    long checks = ld_checks;
    ld_failures = 0;
    ldu_staged = 0;
    ldu_ulps = 8;
    ldu_unary_all();
    ldu_unary_big((1 << 20) + 5);
    printf("unary: %ld comparisons (%ld through host memory)\n", ld_checks - checks,
           ldu_staged);
    ldu_ulps = 0;
    assert_int_equal(ct_cpu_set_isa(isa), CT_OK);
    assert_int_equal(ct_cuda_synchronize(0), CT_OK);
    assert_int_equal(ld_failures, 0);
}

/* The kernel rows after DIV_FLOOR (kernels_binary2.cu): pow, atan2 and hypot within a few
 * ulps (libdevice against glibc), everything else byte for byte. */
static void test_binary2(void **state) {
    (void)state;
    long checks = ld_checks;
    ld_failures = 0;
    ld_transcendental_ulps = 4;
    ld_binary2_all();
    ld_big2((1 << 20) + 5);
    ld_errors2();
    ld_transcendental_ulps = 0;
    printf("binary2: %ld comparisons\n", ld_checks - checks);
    assert_int_equal(ld_failures, 0);
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

/* max / min with a dim, argmax / argmin, var / std (+ _mean), nanmean, logsumexp (the
 * multi-number accumulators, launch_diff_reduce2.h): every dtype x layout x dims; indices
 * bit for bit, var / logsumexp within LR2_ULPS; then long rows through the split-row and
 * final kernels (ties and a NaN far down the row check the first-occurrence rule). */
static void test_reduce2(void **state) {
    (void)state;
    ld_failures = 0;
    ld_checks = 0;
    lr2_all();
    printf("reduce2: %ld comparisons\n", ld_checks);
    static const int64_t shapes[][2] = {{1, 3000000}, {3, 700000}, {700000, 3}, {2000, 2000}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        static const int64_t d0[] = {0}, d1[] = {1};
        for (int sp = 0; sp < 2; sp++) {
            ct_tensor *x = lr_values(CT_FLOAT32, shapes[k], 2, (unsigned)k, false, sp == 1);
            ct_tensor *xd = ld_to_dev(x);
            for (int mx = 0; mx < 2; mx++) {
                lr2_arg_case("reduce2 big", mx == 1, false, x, xd, NULL, false, false);
                lr2_arg_case("reduce2 big", mx == 1, true, x, xd, d0, false, false);
                lr2_arg_case("reduce2 big", mx == 1, true, x, xd, d1, true, false);
            }
            lr2_var_case("reduce2 big", false, true, x, xd, d1, 1, 1.0, false,
                         CT_DTYPE_UNDEFINED);
            lr2_var_case("reduce2 big", true, false, x, xd, NULL, 0, 1.0, false,
                         CT_DTYPE_UNDEFINED);
            lr2_stat_case("reduce2 big", CT_REDUCE_LOGSUMEXP, x, xd, d0, 1, false,
                          CT_DTYPE_UNDEFINED);
            lr2_stat_case("reduce2 big", CT_REDUCE_NANMEAN, x, xd, NULL, 0, false,
                          CT_DTYPE_UNDEFINED);
            ct_tensor_release(x);
            ct_tensor_release(xd);
        }
    }
    assert_int_equal(ld_failures, 0);
    assert_int_equal(ct_cuda_synchronize(0), CT_OK);
}

/* isnan .. isreal, isclose / allclose / equal, round(decimals=) (launch_diff_classify.h):
 * every dtype and layout, bit for bit. */
static void test_classify(void **state) {
    (void)state;
    ld_failures = 0;
    long before = ld_checks;
    ldc_all();
    ldc_errors();
    printf("classify / isclose / round(decimals): %ld comparisons\n", ld_checks - before);
    assert_int_equal(ld_failures, 0);
    assert_int_equal(ct_cuda_synchronize(0), CT_OK);
}

/* cumsum / cumprod (launch_diff_scan.h): every dtype, layout and dim, bit for bit (the
 * cpu's order), and long lines. */
static void test_scan(void **state) {
    (void)state;
    ld_failures = 0;
    long before = ld_checks;
    lds_all();
    lds_big(64 * 4000);
    printf("cumsum / cumprod: %ld comparisons\n", ld_checks - before);
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
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_binary2),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_reduce_big),
        cmocka_unit_test(test_ternary),
        cmocka_unit_test(test_reduce2),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_scan),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    /* hand the allocator's cached blocks back, so that compute-sanitizer's leak check
     * (scripts/gpu-check.sh) reports only memory a tensor really lost */
    if (ct_cuda_empty_cache() != CT_OK)
        failed++;
    return failed;
}
