/* The dispatch of element-wise work to a backend's `launch` slot (backend API version 2, widened in 3),
 * tested without a GPU: a host-emulated xpu backend whose memory is NOT host accessible and
 * whose launch slot executes each launch on the host, element by element, with the same
 * element code the CUDA kernels compile (src/kernels/binary_plan.h for BINARY,
 * src/dtype/convert/elem_impl.h for COPY). So this checks both the dispatch (iterator, ops,
 * copy_, to, fill_ reaching the slot with the right geometry, dtypes, alpha and flags) and
 * the GPU's per-element code against the cpu's kernels, byte for byte. */
#include "cmocka_all.h"

#include "ctensor/backend.h"
#include "ctensor/cpu.h"
#include "ctensor/ctensor.h"
#include "launch_diff.h"
#include "launch_diff_unary.h"
#include "launch_diff_ternary.h"
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
    if (ct_backend_unregister(CT_DEVICE_XPU) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return -1;
    }
    return 0;
}

/* Every op, dtype pair and layout against the cpu; the slot really ran. */
static void test_binary(void **state) {
    (void)state;
    long before = launches_binary;
    ld_failures = 0;
    ld_binary_all();
    printf("binary: %ld comparisons, %ld launches\n", ld_checks, launches_binary - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_binary - before > 1000);
}

static void test_copy(void **state) {
    (void)state;
    long before = launches_copy;
    ld_failures = 0;
    ld_copy_all();
    ld_copy_layouts();
    printf("copy: %ld comparisons, %ld launches\n", ld_checks, launches_copy - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_copy - before > 1000);
}

static void test_big(void **state) {
    (void)state;
    ld_failures = 0;
    ld_big(4099);
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
}

/* The launch of one contiguous add: geometry, dtypes, alpha bytes and flags as the iterator
 * and the prepared kernel have them. */
static const ct_kernel_launch *last;
static ct_kernel_launch last_copy;
static ct_status recording_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    last_copy = *l;
    last = &last_copy;
    return host_launch(ctx, index, l);
}

static void test_launch_fields(void **state) {
    (void)state;
    ct_backend b;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = recording_launch;
    assert_int_equal(ct_backend_register(&b), CT_OK);

    int64_t s[] = {3, 4, 5};
    ct_tensor *a = NULL, *h = NULL, *r = NULL, *ad = NULL, *hd = NULL;
    assert_int_equal(ct_tensor_ones(s, 3, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &a),
                     CT_OK);
    assert_int_equal(ct_tensor_ones(s + 2, 1, CT_FLOAT16, &ld_device, CT_LAYOUT_STRIDED, &h),
                     CT_OK);
    /* float32 [3,4,5] - 2.5 * float16 [5]: one launch, 2 dims after coalescing */
    assert_int_equal(ct_sub(a, h, ct_scalar_float(2.5), &r), CT_OK);
    assert_non_null(last);
    assert_int_equal(last->kind, CT_LAUNCH_BINARY);
    assert_int_equal(last->binop, 0);
    assert_string_equal(last->name, "sub");
    assert_int_equal(last->noperands, 3);
    assert_int_equal(last->dtype[0], CT_FLOAT32);
    assert_int_equal(last->dtype[1], CT_FLOAT32);
    assert_int_equal(last->dtype[2], CT_FLOAT16);
    assert_int_equal(last->compute, CT_FLOAT32);
    assert_int_equal(last->math, CT_FLOAT32);
    assert_true(last->has_alpha);
    float alpha;
    memcpy(&alpha, last->alpha, sizeof alpha);
    assert_true(alpha == -2.5f);
    assert_int_equal(last->flags, 0);
    assert_int_equal(last->numel, 60);
    assert_int_equal(last->ndim, 2);
    assert_int_equal(last->shape[0], 5);
    assert_int_equal(last->shape[1], 12);
    assert_int_equal(last->strides[0][0], 4);
    assert_int_equal(last->strides[0][1], 20);
    assert_int_equal(last->strides[2][0], 2);
    assert_int_equal(last->strides[2][1], 0);
    ct_tensor_release(r);
    r = NULL;
    /* a comparison: the compare kernel's dtypes, a bool output, no alpha */
    assert_int_equal(ct_lt(a, h, &r), CT_OK);
    assert_int_equal(last->binop, 7); /* ops.def's LT kernel row */
    assert_string_equal(last->name, "lt");
    assert_int_equal(last->dtype[0], CT_BOOL);
    assert_int_equal(last->compute, CT_FLOAT32);
    assert_int_equal(last->math, CT_FLOAT32);
    assert_false(last->has_alpha);
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_maximum(a, h, &r), CT_OK);
    assert_int_equal(last->binop, 11); /* MAXIMUM */
    assert_int_equal(last->dtype[0], CT_FLOAT32);
    ct_tensor_release(r);
    r = NULL;
    /* a classification is an EQ launch saying which (test_launch_classify checks values) */
    last = NULL;
    assert_int_equal(ct_isnan(a, &r), CT_OK);
    assert_non_null(last);
    assert_int_equal(last->binop, 5); /* EQ */
    assert_int_equal(last->cmpop, CT_LAUNCH_CMP_ISNAN);
    assert_int_equal(last->dtype[0], CT_BOOL);
    ct_tensor_release(r);
    r = NULL;
    /* a 0-dim cpu operand arrives as device memory, one element, with the scalar flag */
    ct_tensor *z = NULL;
    assert_int_equal(ct_tensor_scalar_tensor(ct_scalar_float(3), CT_FLOAT64, &ld_cpu, &z), CT_OK);
    assert_int_equal(ct_tensor_to(h, CT_FLOAT16, NULL, true, CT_MEMFMT_PRESERVE, &hd), CT_OK);
    assert_int_equal(ct_mul(hd, z, &r), CT_OK);
    assert_int_equal(last->flags, CT_LAUNCH_B_IS_SCALAR);
    assert_int_equal(last->compute, CT_FLOAT16);
    assert_int_equal(last->math, CT_FLOAT32);
    assert_int_equal(last->ndim, 1);
    assert_int_equal(last->strides[2][0], 0);
    assert_ptr_not_equal(last->data[2], ct_tensor_data_ptr(z));
    ct_tensor_release(r);
    r = NULL;
    /* a transposed copy on the device: COPY with broadcast-free strides, innermost first */
    ct_tensor *t = NULL;
    assert_int_equal(ct_tensor_transpose(a, 0, 2, &t), CT_OK);
    assert_int_equal(ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &ad), CT_OK);
    assert_int_equal(last->kind, CT_LAUNCH_COPY);
    assert_int_equal(last->noperands, 2);
    assert_int_equal(last->numel, 60);
    assert_int_equal(last->strides[0][0], 4);
    assert_int_equal(last->strides[1][0], 80);
    ct_tensor_release(t);
    ct_tensor_release(ad);
    ct_tensor_release(hd);
    ct_tensor_release(z);
    ct_tensor_release(a);
    ct_tensor_release(h);
    last = NULL;
}

/* Without a launch slot (and without host access) element-wise work runs through host memory
 * (Note [Staging through host memory]): the cpu's values. */
static void test_no_launch(void **state) {
    (void)state;
    ct_backend b;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    int64_t s[] = {4};
    ct_tensor *a = NULL, *r = NULL;
    assert_int_equal(ct_tensor_ones(s, 1, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &a), CT_OK);
    assert_int_equal(ct_add(a, a, ct_scalar_int(1), &r), CT_OK);
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    ct_tensor *rh = NULL;
    assert_int_equal(ct_tensor_to_device(r, (ct_device){CT_DEVICE_CPU, -1}, &rh), CT_OK);
    for (int k = 0; k < 4; k++)
        assert_true(((const float *)ct_tensor_data_ptr(rh))[k] == 2.0f);
    ct_tensor_release(rh);
    ct_tensor_release(r);
    /* copies with a dtype change still work, through the host */
    assert_int_equal(ct_tensor_to_dtype(a, CT_FLOAT16, &r), CT_OK);
    ct_tensor_release(r);
    ct_tensor_release(a);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(setup(NULL), 0);
}

/* ---- UNARY launches ------------------------------------------------------------------------
 * Compared byte for byte with the cpu at the baseline ISA level, whose loops are the element
 * functions of unary_elem.h (the AVX2 / AVX-512 levels use SLEEF's vector functions for the
 * float32 transcendental ops, within 1 ulp of them). */
static void test_unary(void **state) {
    (void)state;
    ct_cpu_isa isa = ct_cpu_isa_active();
    assert_int_equal(ct_cpu_set_isa(CT_ISA_BASELINE), CT_OK);
    long before = launches_unary, checks = ld_checks;
    ld_failures = 0;
    ldu_staged = 0;
    ldu_unary_all();
    ldu_unary_big(1027);
    printf("unary: %ld comparisons (%ld through the host), %ld launches\n",
           ld_checks - checks, ldu_staged, launches_unary - before);
    assert_int_equal(ct_cpu_set_isa(isa), CT_OK);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_unary - before > 1000);
    assert_true(ldu_staged > 100);
}

/* The fields of a UNARY launch, and what the device refuses. */
static void test_unary_fields(void **state) {
    (void)state;
    ct_backend b;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = recording_launch;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    int64_t s[] = {3, 4};
    ct_tensor *h = NULL, *r = NULL, *i = NULL, *c = NULL, *t = NULL;
    assert_int_equal(ct_tensor_ones(s, 2, CT_FLOAT16, &ld_device, CT_LAYOUT_STRIDED, &h), CT_OK);
    last = NULL;
    assert_int_equal(ct_unary(CT_UNOP_EXP, h, &r), CT_OK);
    assert_non_null(last);
    assert_int_equal(last->kind, CT_LAUNCH_UNARY);
    assert_int_equal(last->unop, CT_UNOP_EXP);
    assert_string_equal(last->name, "exp");
    assert_int_equal(last->noperands, 2);
    assert_int_equal(last->dtype[0], CT_FLOAT16);
    assert_int_equal(last->dtype[1], CT_FLOAT16);
    assert_int_equal(last->compute, CT_FLOAT16);
    assert_int_equal(last->math, CT_FLOAT32);
    assert_int_equal(last->numel, 12);
    assert_int_equal(last->ndim, 1);
    ct_tensor_release(r);
    r = NULL;
    /* int -> the default float dtype; logical_not -> bool; in place keeps the dtype */
    assert_int_equal(ct_tensor_ones(s, 2, CT_INT32, &ld_device, CT_LAYOUT_STRIDED, &i), CT_OK);
    assert_int_equal(ct_unary(CT_UNOP_SQRT, i, &r), CT_OK);
    assert_int_equal(last->dtype[0], CT_FLOAT32);
    assert_int_equal(last->dtype[1], CT_INT32);
    assert_int_equal(last->compute, CT_FLOAT32);
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_unary(CT_UNOP_LOGICAL_NOT, h, &r), CT_OK);
    assert_int_equal(last->unop, CT_UNOP_LOGICAL_NOT);
    assert_int_equal(last->dtype[0], CT_BOOL);
    assert_int_equal(last->compute, CT_FLOAT16);
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_tensor_transpose(h, 0, 1, &t), CT_OK);
    assert_int_equal(ct_unary_(CT_UNOP_NEG, t), CT_OK);
    assert_int_equal(last->unop, CT_UNOP_NEG);
    assert_ptr_equal(last->data[0], last->data[1]);
    /* complex: abs runs (real result), exp is refused by the device and runs through host
     * memory instead; round(decimals) launches; nothing launched for an empty tensor */
    assert_int_equal(ct_tensor_ones(s, 2, CT_COMPLEX64, &ld_device, CT_LAYOUT_STRIDED, &c), CT_OK);
    assert_int_equal(ct_unary(CT_UNOP_ABS, c, &r), CT_OK);
    assert_int_equal(last->dtype[0], CT_FLOAT32);
    assert_int_equal(last->compute, CT_COMPLEX64);
    assert_int_equal(last->math, CT_COMPLEX64);
    ct_tensor_release(r);
    r = NULL;
    last = NULL;
    assert_int_equal(ct_unary(CT_UNOP_EXP, c, &r), CT_OK);
    assert_non_null(last); /* the refused launch */
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    ct_tensor_release(r);
    r = NULL;
    /* round(decimals=): a UNARY ROUND launch with the decimals */
    assert_int_equal(ct_round_decimals(h, 2, &r), CT_OK);
    assert_true(last->flags & CT_LAUNCH_ROUND_DECIMALS);
    assert_int_equal(last->decimals, 2);
    ct_tensor_release(r);
    r = NULL;
    ct_tensor_release(t);
    ct_tensor_release(c);
    ct_tensor_release(i);
    ct_tensor_release(h);
    last = NULL;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(setup(NULL), 0);
}

/* The kernel rows after DIV_FLOOR (src/kernels/binary_plan2.h): every op, dtype pair and
 * layout against the cpu, pow with Python-number exponents, long operands, errors. */
static void test_binary2(void **state) {
    (void)state;
    long before = launches_binary, checks = ld_checks;
    ld_failures = 0;
    ld_transcendental_ulps = 1; /* the cpu's SLEEF pow at AVX2 / AVX-512, glibc's here */
    ld_binary2_all();
    ld_transcendental_ulps = 0;
    printf("binary2: %ld comparisons, %ld launches\n", ld_checks - checks,
           launches_binary - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_binary - before > 1000);
}

static void test_big2(void **state) {
    (void)state;
    ld_failures = 0;
    ld_transcendental_ulps = 1;
    ld_big2(4099);
    ld_transcendental_ulps = 0;
    assert_int_equal(ld_failures, 0);
}

static void test_errors2(void **state) {
    (void)state;
    ld_errors2();
}

/* ---- TERNARY launches (where, clamp, lerp, addcmul, addcdiv, masked_fill) ---------------- */

/* Every ternary op x dtype x layout against the cpu; the slot really ran. */
static void test_ternary(void **state) {
    (void)state;
    long before = launches_ternary, checks = ld_checks;
    ld_failures = 0;
    ld_ternary_all();
    printf("ternary: %ld comparisons, %ld launches\n", ld_checks - checks,
           launches_ternary - before);
    assert_int_equal(ld_failures, 0);
    assert_true(launches_ternary - before > 1000);
}

static void test_ternary_errors(void **state) {
    (void)state;
    ld_failures = 0;
    ld_ternary_errors();
    assert_int_equal(ld_failures, 0);
}

/* The launch of clamp(float16 x, 0.25, tensor hi) and of masked_fill with a 0-dim cpu value:
 * kind, row, compute and math dtypes, the by-value inputs converted as the cpu would. */
static void test_ternary_fields(void **state) {
    (void)state;
    ct_backend b;
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = recording_launch;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    int64_t s[] = {3, 4};
    ct_tensor *x = NULL, *hi = NULL, *lo = NULL, *r = NULL, *m = NULL, *v = NULL;
    assert_int_equal(ct_tensor_ones(s, 2, CT_FLOAT16, &ld_device, CT_LAYOUT_STRIDED, &x), CT_OK);
    assert_int_equal(ct_tensor_ones(s + 1, 1, CT_FLOAT16, &ld_device, CT_LAYOUT_STRIDED, &hi),
                     CT_OK);
    assert_int_equal(ct_tensor_wrapped_number(ct_scalar_float(0.1), &lo), CT_OK);
    last = NULL;
    assert_int_equal(ct_ternary(CT_TEROP_CLAMP, x, lo, hi, ct_scalar_int(0), &r), CT_OK);
    assert_non_null(last);
    assert_int_equal(last->kind, CT_LAUNCH_TERNARY);
    assert_int_equal(last->terop, 1);
    assert_string_equal(last->name, "clamp");
    assert_int_equal(last->noperands, 4);
    assert_int_equal(last->compute, CT_FLOAT16);
    assert_int_equal(last->math, CT_FLOAT32);
    assert_int_equal(last->ter_by_value, 2u); /* input 1 (min), operand 2 */
    assert_int_equal(last->ter_number, 2u);
    assert_null(last->data[2]);
    float f;
    memcpy(&f, last->ter_scalar[1], sizeof f);
    assert_true(f == 0.1f); /* a number goes straight to float32, not through float16 */
    assert_int_equal(last->numel, 12);
    ct_tensor_release(r);
    r = NULL;
    /* clamp_min: three operands */
    assert_int_equal(ct_ternary(CT_TEROP_CLAMP, x, hi, NULL, ct_scalar_int(0), &r), CT_OK);
    assert_int_equal(last->terop, 2);
    assert_int_equal(last->noperands, 3);
    assert_int_equal(last->ter_by_value, 0u);
    ct_tensor_release(r);
    r = NULL;
    /* masked_fill_ with a 0-dim float64 cpu tensor: by value, rounded to float16 */
    assert_int_equal(ct_tensor_ones(s + 1, 1, CT_BOOL, &ld_device, CT_LAYOUT_STRIDED, &m),
                     CT_OK);
    assert_int_equal(ct_tensor_scalar_tensor(ct_scalar_float(1.0 / 3), CT_FLOAT64, &ld_cpu, &v),
                     CT_OK);
    assert_int_equal(ct_ternary_(CT_TEROP_MASKED_FILL, x, m, v, ct_scalar_int(0)), CT_OK);
    assert_int_equal(last->terop, 7);
    assert_int_equal(last->compute, CT_FLOAT16);
    assert_int_equal(last->math, CT_FLOAT16);
    assert_int_equal(last->ter_by_value, 4u);
    assert_int_equal(last->ter_number, 0u);
    assert_ptr_equal(last->data[0], ct_tensor_data_ptr(x));
    uint16_t h;
    memcpy(&h, last->ter_scalar[2], sizeof h);
    assert_int_equal(h, 0x3555); /* 1/3 in float16 */
    /* an empty op launches nothing */
    int64_t zero[] = {0};
    ct_tensor *e = NULL;
    assert_int_equal(ct_tensor_ones(zero, 1, CT_FLOAT32, &ld_device, CT_LAYOUT_STRIDED, &e),
                     CT_OK);
    last = NULL;
    assert_int_equal(ct_ternary(CT_TEROP_LERP, e, e, e, ct_scalar_int(0), &r), CT_OK);
    assert_null(last);
    ct_tensor_release(r);
    ct_tensor_release(e);
    ct_tensor_release(x);
    ct_tensor_release(hi);
    ct_tensor_release(lo);
    ct_tensor_release(m);
    ct_tensor_release(v);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_int_equal(setup(NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_fields),
        cmocka_unit_test(test_no_launch),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_big),
        cmocka_unit_test(test_f16_exact),
        cmocka_unit_test(test_unary_fields),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_binary2),
        cmocka_unit_test(test_big2),
        cmocka_unit_test(test_errors2),
        cmocka_unit_test(test_ternary_fields),
        cmocka_unit_test(test_ternary_errors),
        cmocka_unit_test(test_ternary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
