/* The unary ops (ctensor/unary.h) from C: values against libm and exact rules, dtypes,
 * out= and in-place forms, PyTorch's errors, meta tensors and a launch device (no unary
 * launch kernels yet: a clean CT_ERR_NOT_IMPLEMENTED, and the slot is never called). The
 * Python tests (tests/python/test_unary_vs_torch.py) compare every op and dtype with torch. */
#include "cmocka_all.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctensor/backend.h"
#include "ctensor/cpu.h"
#include "ctensor/ctensor.h"
#include "kernels/unary.h"

static ct_tensor *vec(ct_dtype dtype, const void *data, int64_t n) {
    ct_tensor *t = NULL;
    int64_t shape[1] = {n};
    assert_int_equal(ct_tensor_empty(shape, 1, dtype, NULL, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &t),
                     CT_OK);
    memcpy(ct_tensor_data_ptr(t), data, (size_t)n * ct_dtype_itemsize(dtype));
    return t;
}

static double ulp_f32(float got, double want) {
    if (got == want || (isnan(got) && isnan(want)))
        return 0;
    int e;
    frexp(want, &e);
    return fabs(got - want) / ldexp(1.0, e - 24);
}

static void test_float32_values(void **state) {
    (void)state;
    float x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = (float)(i - 500) / 37.0f;
    ct_tensor *t = vec(CT_FLOAT32, x, 1000), *r;
    assert_int_equal(ct_unary(CT_UNOP_EXP, t, &r), CT_OK);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    const float *y = ct_tensor_data_ptr(r);
    for (int i = 0; i < 1000; i++)
        assert_true(ulp_f32(y[i], exp((double)x[i])) <= 1.0);
    ct_tensor_release(r);
    assert_int_equal(ct_unary(CT_UNOP_TANH, t, &r), CT_OK);
    y = ct_tensor_data_ptr(r);
    for (int i = 0; i < 1000; i++)
        assert_true(ulp_f32(y[i], tanh((double)x[i])) <= 1.0 + 1e-7);
    ct_tensor_release(r);
    assert_int_equal(ct_unary(CT_UNOP_FLOOR, t, &r), CT_OK);
    y = ct_tensor_data_ptr(r);
    for (int i = 0; i < 1000; i++)
        assert_true(y[i] == floorf(x[i]));
    ct_tensor_release(r);
    ct_tensor_release(t);
}

static void test_integers_and_bool(void **state) {
    (void)state;
    int32_t v[4] = {INT32_MIN, -3, 0, 7};
    ct_tensor *t = vec(CT_INT32, v, 4), *r;
    assert_int_equal(ct_unary(CT_UNOP_NEG, t, &r), CT_OK); /* wraps: -INT_MIN is INT_MIN */
    const int32_t *y = ct_tensor_data_ptr(r);
    assert_true(y[0] == INT32_MIN && y[1] == 3 && y[2] == 0 && y[3] == -7);
    ct_tensor_release(r);
    assert_int_equal(ct_unary(CT_UNOP_LOGICAL_NOT, t, &r), CT_OK);
    assert_int_equal(ct_tensor_dtype(r), CT_BOOL);
    const uint8_t *b = ct_tensor_data_ptr(r);
    assert_true(b[0] == 0 && b[2] == 1);
    ct_tensor_release(r);
    assert_int_equal(ct_unary(CT_UNOP_SQRT, t, &r), CT_OK); /* int -> the default dtype */
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    ct_tensor_release(r);
    /* in-place float function on an int tensor */
    assert_int_equal(ct_unary_(CT_UNOP_EXP, t), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(),
                        "result type Float can't be cast to the desired output type Int");
    ct_tensor_release(t);
    uint8_t bv[2] = {0, 1};
    t = vec(CT_BOOL, bv, 2);
    assert_int_equal(ct_unary(CT_UNOP_NEG, t, &r), CT_ERR_RUNTIME);
    assert_null(r);
    assert_true(strstr(ct_last_error(), "Negation, the `-` operator, on a bool tensor") != NULL);
    assert_int_equal(ct_unary(CT_UNOP_BITWISE_NOT, t, &r), CT_OK);
    b = ct_tensor_data_ptr(r);
    assert_true(b[0] == 1 && b[1] == 0);
    ct_tensor_release(r);
    ct_tensor_release(t);
}

static void test_errors(void **state) {
    (void)state;
    float x[2] = {1, 2};
    ct_tensor *t = vec(CT_FLOAT32, x, 2), *r;
    assert_int_equal(ct_unary(CT_UNOP_BITWISE_NOT, t, &r), CT_ERR_NOT_IMPLEMENTED);
    assert_string_equal(ct_last_error(), "\"bitwise_not_cpu\" not implemented for 'Float'");
    assert_int_equal(ct_unary(CT_NUM_UNOPS, t, &r), CT_ERR_MISUSE);
    assert_int_equal(ct_unary(CT_UNOP_EXP, NULL, &r), CT_ERR_MISUSE);
    assert_int_equal(ct_unary(CT_UNOP_EXP, t, NULL), CT_ERR_MISUSE);
    assert_string_equal(ct_unop_name(CT_UNOP_SIGMOID), "sigmoid");
    assert_null(ct_unop_name(CT_NUM_UNOPS));
    /* out= of an integer dtype for a float function; a same-dtype op's out= */
    int64_t two[1] = {2};
    ct_tensor *o;
    assert_int_equal(ct_tensor_empty(two, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &o),
                     CT_OK);
    assert_int_equal(ct_unary_out(CT_UNOP_EXP, t, o), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(),
                        "result type Float can't be cast to the desired output type Long");
    assert_int_equal(ct_unary_out(CT_UNOP_NEG, t, o), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(), "Found dtype Long but expected Float");
    ct_tensor_release(o);
    /* complex */
    float c[4] = {3, 4, 0, 1};
    ct_tensor *z = vec(CT_COMPLEX64, c, 2);
    assert_int_equal(ct_unary(CT_UNOP_SIGN, z, &r), CT_ERR_RUNTIME);
    assert_int_equal(ct_unary_(CT_UNOP_ABS, z), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(), "In-place abs is not supported for complex tensors.");
    assert_int_equal(ct_unary(CT_UNOP_ABS, z, &r), CT_OK);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_true(((const float *)ct_tensor_data_ptr(r))[0] == 5.0f);
    ct_tensor_release(r);
    ct_tensor_release(z);
    ct_tensor_release(t);
}

static void test_round_decimals_and_half(void **state) {
    (void)state;
    double x[3] = {1.2345, -2.5, 1234.5};
    ct_tensor *t = vec(CT_FLOAT64, x, 3), *r;
    assert_int_equal(ct_round_decimals(t, 2, &r), CT_OK);
    const double *y = ct_tensor_data_ptr(r);
    assert_true(y[0] == nearbyint(1.2345 * 100) / 100 && y[1] == -2.5);
    ct_tensor_release(r);
    assert_int_equal(ct_round_decimals(t, -2, &r), CT_OK);
    y = ct_tensor_data_ptr(r);
    assert_true(y[2] == 1200.0);
    ct_tensor_release(r);
    ct_tensor_release(t);
    int32_t i[1] = {5};
    t = vec(CT_INT32, i, 1);
    assert_int_equal(ct_round_decimals(t, 1, &r), CT_ERR_NOT_IMPLEMENTED);
    ct_tensor_release(t);
    /* float16 computes in float32 and rounds once: exp(1) = 2.71875 in float16 */
    uint16_t one = 0x3C00;
    t = vec(CT_FLOAT16, &one, 1);
    assert_int_equal(ct_unary(CT_UNOP_EXP, t, &r), CT_OK);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT16);
    assert_int_equal(*(const uint16_t *)ct_tensor_data_ptr(r), 0x4170);
    ct_tensor_release(r);
    ct_tensor_release(t);
}

static int launches;
static ct_status count_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    (void)ctx, (void)index, (void)l;
    launches++;
    return CT_OK;
}

static void test_meta_and_launch_device(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3};
    ct_device meta = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
    ct_tensor *m, *r;
    assert_int_equal(ct_tensor_empty(shape, 2, CT_INT64, &meta, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &m),
                     CT_OK);
    assert_int_equal(ct_unary(CT_UNOP_LOG, m, &r), CT_OK);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_META);
    ct_tensor_release(r);
    ct_tensor_release(m);

    ct_backend b;
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_XPU, 1, &b), CT_OK);
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = count_launch;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    ct_device xpu = {CT_DEVICE_XPU, 0};
    ct_tensor *x;
    assert_int_equal(ct_tensor_empty(shape, 2, CT_FLOAT32, &xpu, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &x),
                     CT_OK);
    /* one UNARY launch each (test_launch_dispatch checks what they compute) */
    assert_int_equal(ct_unary(CT_UNOP_EXP, x, &r), CT_OK);
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_XPU);
    ct_tensor_release(r);
    assert_int_equal(ct_unary_(CT_UNOP_NEG, x), CT_OK);
    assert_int_equal(launches, 2);
    /* round(decimals=): one UNARY launch too */
    r = NULL;
    assert_int_equal(ct_round_decimals(x, 2, &r), CT_OK);
    ct_tensor_release(r);
    assert_int_equal(launches, 3);
    ct_tensor_release(x);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
}

/* The 16-bit table loops (unary.h, ct_unary_lut_table), at each level the CPU has: for every
 * bit pattern the bytes of the vector loop that fills the table. Calls of odd lengths cover
 * the lookup's tail; the first call may fill the table, the second reads it. */
static void check_lut_level(const ct_unary_half_table *lut, const ct_unary_half_table *half) {
    enum { N = 65536 };
    static uint16_t x[N], want[N], got[N];
    for (int32_t i = 0; i < N; i++)
        x[i] = (uint16_t)i;
    for (int op = 0; op < CT_NUM_UNKS; op++)
        for (int h = 0; h < CT_UNH_COUNT; h++) {
            if ((*lut)[op][h] == NULL)
                continue;
            assert_non_null((*half)[op][h]);
            (*half)[op][h](want, x, N); /* N is whole vectors: no scalar tail */
            for (int pass = 0; pass < 2; pass++) {
                memset(got, 0, sizeof got);
                for (int64_t s = 0; s < N;) {
                    int64_t m = N - s < 509 ? N - s : 509;
                    (*lut)[op][h](got + s, x + s, m);
                    s += m;
                }
                assert_memory_equal(got, want, sizeof want);
            }
        }
}

static void test_half_lookup_tables(void **state) {
    (void)state;
    check_lut_level(&ct_unary_lut_baseline, &ct_unary_half_baseline);
#if defined(CT_HAVE_ISA_AVX2)
    if (ct_cpu_isa_detected() >= CT_ISA_AVX2)
        check_lut_level(&ct_unary_lut_avx2, &ct_unary_half_avx2);
#endif
#if defined(CT_HAVE_ISA_AVX512)
    if (ct_cpu_isa_detected() >= CT_ISA_AVX512)
        check_lut_level(&ct_unary_lut_avx512, &ct_unary_half_avx512);
#endif
#if defined(CT_HAVE_ISA_AVX2)
    /* the tables are in use: bfloat16's transcendental functions and float16 sigmoid */
    if (ct_cpu_isa_detected() >= CT_ISA_AVX2) {
        assert_non_null(ct_unary_lut_avx2[CT_UNK_EXP][CT_UNH_BF16]);
        assert_non_null(ct_unary_lut_avx2[CT_UNK_LOG][CT_UNH_BF16]);
        assert_non_null(ct_unary_lut_avx2[CT_UNK_SIN][CT_UNH_BF16]);
        assert_non_null(ct_unary_lut_avx2[CT_UNK_SIGMOID][CT_UNH_F16]);
    }
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float32_values),
        cmocka_unit_test(test_integers_and_bool),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_round_decimals_and_half),
        cmocka_unit_test(test_meta_and_launch_device),
        cmocka_unit_test(test_half_lookup_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
