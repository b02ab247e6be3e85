/* pow remainder fmod atan2 hypot, the bitwise ops and shifts, and the logical ops through the
 * op table (ct_binary / ct_binary_out / ct_binary_ with CT_OP_POW ...): values (integer pow by
 * squaring, Python's and C's remainders, INT_MIN % -1, shift counts beyond the width),
 * pow.Tensor_Scalar's rules for a wrapped-number exponent, result dtypes, PyTorch's errors,
 * devices (host-emulated cuda, meta) and every ISA level against the reference. Expected
 * values and messages were checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/cpu.h"
#include "kernels/binary.h"
#include "tensor_test_util.h"
#include "op_values_util.h"

#include "emulated_cuda.h"

static ct_tensor *num(ct_scalar s) {
    ct_tensor *w = NULL;
    OK(ct_tensor_wrapped_number(s, &w));
    return w;
}

/* op(a, b) into a new tensor, checked, released */
static void check_op(ct_op op, ct_tensor *a, ct_tensor *b, ct_dtype dt, const double *want,
                     int64_t n) {
    ct_tensor *r = NULL;
    OK(ct_binary(op, a, b, ONE, &r));
    expect(r, dt, want, n);
    ct_tensor_release(r);
}
#define CHECK_OP(op, a, b, dt, ...)                                                                \
    check_op(op, a, b, dt, VALS(__VA_ARGS__), (int64_t)(sizeof VALS(__VA_ARGS__) / sizeof(double)))

static void test_pow(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_INT64, SHAPE(4), VALS(3, -1, 2, 0));
    ct_tensor *e = mk(CT_INT64, SHAPE(4), VALS(40, -3, -1, 0));
    /* repeated squaring wraps; negative exponents: -1 -> +-1, others 0 */
    ct_tensor *r = NULL;
    OK(ct_binary(CT_OP_POW, a, e, ONE, &r));
    int64_t want[4] = {(int64_t)12157665459056928801ull, -1, 0, 1};
    assert_memory_equal(ct_tensor_data_ptr(r), want, sizeof want);
    ct_tensor_release(r);
    ct_tensor *i8 = mk(CT_INT8, SHAPE(3), VALS(1, 2, -3));
    ct_tensor *e8 = mk(CT_INT8, SHAPE(3), VALS(7, 8, 3));
    CHECK_OP(CT_OP_POW, i8, e8, CT_INT8, 1, 0, -27);
    /* a wrapped-number exponent: pow.Tensor_Scalar */
    ct_tensor *m1 = num(ct_scalar_int(-1)), *half = num(ct_scalar_float(0.5));
    ct_tensor *two = num(ct_scalar_int(2));
    assert_status_msg(ct_binary(CT_OP_POW, a, m1, ONE, &r), CT_ERR_RUNTIME,
                      "Integers to negative integer powers are not allowed.");
    CHECK_OP(CT_OP_POW, a, two, CT_INT64, 9, 1, 4, 0);
    CHECK_OP(CT_OP_POW, a, half, CT_FLOAT32, sqrtf(3.0f), NAN, sqrtf(2.0f), 0);
    /* 2 ** t: the number is the base, tensor-tensor rules */
    CHECK_OP(CT_OP_POW, two, e8, CT_INT8, 128 - 256, 0, 8);
    /* in-place with a float exponent: the result dtype must be self's */
    ct_tensor *f = mk(CT_FLOAT32, SHAPE(3), VALS(-0.0, INFINITY, -INFINITY));
    CHECK_OP(CT_OP_POW, f, half, CT_FLOAT32, -0.0, INFINITY, NAN); /* sqrt, as PyTorch */
    assert_status_msg(ct_binary_(CT_OP_POW, a, half, ONE), CT_ERR_RUNTIME,
                      "Found dtype Long but expected Float");
    OK(ct_binary_(CT_OP_POW, a, two, ONE));
    EXPECT(a, CT_INT64, 9, 1, 4, 0);
    /* bool has no pow kernel */
    ct_tensor *b = mk(CT_BOOL, SHAPE(2), VALS(1, 0));
    assert_status_msg(ct_binary(CT_OP_POW, b, b, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"pow\" not implemented for 'Bool'");
    RELEASE(a, e, i8, e8, m1, half, two, f, b);
}

static void test_remainder_fmod(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_INT32, SHAPE(4), VALS(-3, 3, -7, 7));
    ct_tensor *b = mk(CT_INT32, SHAPE(4), VALS(2, -2, -1, 0));
    ct_tensor *r = NULL;
    /* division by zero: the project's ZeroDivisionError */
    assert_status_msg(ct_binary(CT_OP_REMAINDER, a, b, ONE, &r), CT_ERR_RUNTIME,
                      "ZeroDivisionError");
    assert_status_msg(ct_binary(CT_OP_FMOD, a, b, ONE, &r), CT_ERR_RUNTIME, "ZeroDivisionError");
    ct_tensor *b2 = mk(CT_INT32, SHAPE(4), VALS(2, -2, -1, 5));
    CHECK_OP(CT_OP_REMAINDER, a, b2, CT_INT32, 1, -1, 0, 2);
    CHECK_OP(CT_OP_FMOD, a, b2, CT_INT32, -1, 1, 0, 2);
    /* INT_MIN % -1 is 0, not a trap (torch 1.13 dies of SIGFPE) */
    int64_t mn[2] = {INT64_MIN, INT64_MIN}, m1[2] = {-1, -1};
    ct_tensor *x = mk_i64(SHAPE(2), mn), *y = mk_i64(SHAPE(2), m1);
    CHECK_OP(CT_OP_REMAINDER, x, y, CT_INT64, 0, 0);
    CHECK_OP(CT_OP_FMOD, x, y, CT_INT64, 0, 0);
    ct_tensor *i8 = mk(CT_INT8, SHAPE(1), VALS(-128)), *n1 = mk(CT_INT8, SHAPE(1), VALS(-1));
    CHECK_OP(CT_OP_REMAINDER, i8, n1, CT_INT8, 0);
    /* floats: the divisor's sign, with PyTorch's zero and infinity rules */
    ct_tensor *f = mk(CT_FLOAT32, SHAPE(4), VALS(5.5, -5.5, -1, 1));
    ct_tensor *g = mk(CT_FLOAT32, SHAPE(4), VALS(2, 0, INFINITY, -INFINITY));
    CHECK_OP(CT_OP_REMAINDER, f, g, CT_FLOAT32, 1.5, NAN, INFINITY, -INFINITY);
    CHECK_OP(CT_OP_FMOD, f, g, CT_FLOAT32, 1.5, NAN, -1, 1);
    /* complex and bool have no kernels */
    ct_tensor *c = mk(CT_COMPLEX64, SHAPE(1), VALS(1));
    assert_status_msg(ct_binary(CT_OP_REMAINDER, c, c, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"remainder_cpu\" not implemented for 'ComplexFloat'");
    ct_tensor *bl = mk(CT_BOOL, SHAPE(1), VALS(1));
    assert_status_msg(ct_binary(CT_OP_FMOD, bl, bl, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"fmod_cpu\" not implemented for 'Bool'");
    RELEASE(a, b, b2, x, y, i8, n1, f, g, c, bl);
}

static void test_atan2_hypot(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_INT64, SHAPE(2), VALS(1, 0)), *b = mk(CT_INT64, SHAPE(2), VALS(1, -1));
    ct_tensor *r = NULL;
    /* atan2 turns integers into the default dtype; hypot has no integer kernel */
    CHECK_OP(CT_OP_ATAN2, a, b, CT_FLOAT32, atan2f(1, 1), atan2f(0, -1));
    assert_status_msg(ct_binary(CT_OP_HYPOT, a, b, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"hypot_cpu\" not implemented for 'Long'");
    ct_tensor *f = mk(CT_FLOAT64, SHAPE(2), VALS(3, INFINITY)), *g = mk(CT_FLOAT64, SHAPE(2), VALS(4, NAN));
    CHECK_OP(CT_OP_HYPOT, f, g, CT_FLOAT64, 5, INFINITY);
    ct_tensor *h = mk(CT_FLOAT16, SHAPE(1), VALS(1));
    assert_status_msg(ct_binary(CT_OP_ATAN2, h, h, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"atan2_cpu\" not implemented for 'Half'");
    ct_tensor *u = mk(CT_UINT16, SHAPE(1), VALS(1));
    assert_status_msg(ct_binary(CT_OP_REMAINDER, u, u, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"remainder_cpu\" not implemented for 'UInt16'");
    RELEASE(a, b, f, g, h, u);
}

static void test_bitwise_and_shifts(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_INT32, SHAPE(3), VALS(12, -1, 5)), *b = mk(CT_INT32, SHAPE(3), VALS(10, 7, -6));
    CHECK_OP(CT_OP_BITWISE_AND, a, b, CT_INT32, 8, 7, 0);
    CHECK_OP(CT_OP_BITWISE_OR, a, b, CT_INT32, 14, -1, -1);
    CHECK_OP(CT_OP_BITWISE_XOR, a, b, CT_INT32, 6, -8, -1);
    ct_tensor *t = mk(CT_BOOL, SHAPE(2), VALS(1, 0)), *u = mk(CT_BOOL, SHAPE(2), VALS(1, 1));
    CHECK_OP(CT_OP_BITWISE_XOR, t, u, CT_BOOL, 0, 1);
    ct_tensor *f = mk(CT_FLOAT32, SHAPE(1), VALS(1)), *r = NULL;
    assert_status_msg(ct_binary(CT_OP_BITWISE_AND, f, f, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"bitwise_and_cpu\" not implemented for 'Float'");
    assert_status_msg(ct_binary(CT_OP_BITWISE_LEFT_SHIFT, t, u, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"lshift_cpu\" not implemented for 'Bool'");
    /* counts modulo the width of the promoted type (torch 1.13 on x86) */
    ct_tensor *one = mk(CT_INT32, SHAPE(6), VALS(1, 1, 1, 1, 1, 1));
    ct_tensor *cnt = mk(CT_INT32, SHAPE(6), VALS(31, 32, 33, -1, 64, 100));
    CHECK_OP(CT_OP_BITWISE_LEFT_SHIFT, one, cnt, CT_INT32, INT32_MIN, 1, 2, INT32_MIN, 1, 16);
    ct_tensor *m8 = mk(CT_INT32, SHAPE(6), VALS(-8, -8, -8, -8, -8, -8));
    CHECK_OP(CT_OP_BITWISE_RIGHT_SHIFT, m8, cnt, CT_INT32, -1, -8, -4, -1, -8, -1);
    ct_tensor *i8 = mk(CT_INT8, SHAPE(4), VALS(1, 1, 1, 1)), *c8 = mk(CT_INT8, SHAPE(4), VALS(7, 8, -1, 100));
    CHECK_OP(CT_OP_BITWISE_LEFT_SHIFT, i8, c8, CT_INT8, -128, 0, 0, 16);
    int64_t ones[3] = {1, 1, 1}, c64[3] = {63, 64, 100};
    ct_tensor *x = mk_i64(SHAPE(3), ones), *y = mk_i64(SHAPE(3), c64);
    OK(ct_binary(CT_OP_BITWISE_LEFT_SHIFT, x, y, ONE, &r));
    int64_t want[3] = {INT64_MIN, 1, (int64_t)1 << 36};
    assert_memory_equal(ct_tensor_data_ptr(r), want, sizeof want);
    ct_tensor_release(r);
    RELEASE(a, b, t, u, f, one, cnt, m8, i8, c8, x, y);
}

static void test_logical(void **state) {
    (void)state;
    ct_tensor *a = mk(CT_COMPLEX64, SHAPE(3), VALS(1, 0, 0));
    ct_tensor *b = mk(CT_FLOAT32, SHAPE(3), VALS(NAN, 2, 0));
    CHECK_OP(CT_OP_LOGICAL_AND, a, b, CT_BOOL, 1, 0, 0);
    CHECK_OP(CT_OP_LOGICAL_OR, a, b, CT_BOOL, 1, 1, 0);
    CHECK_OP(CT_OP_LOGICAL_XOR, a, b, CT_BOOL, 0, 1, 0);
    /* out= of any dtype gets the 0/1 values; in-place keeps self's dtype */
    ct_tensor *out = mk(CT_FLOAT64, SHAPE(3), VALS(7, 7, 7));
    OK(ct_binary_out(CT_OP_LOGICAL_OR, a, b, ONE, out));
    EXPECT(out, CT_FLOAT64, 1, 1, 0);
    ct_tensor *i = mk(CT_INT16, SHAPE(3), VALS(5, 0, 3));
    OK(ct_binary_(CT_OP_LOGICAL_XOR, i, b, ONE));
    EXPECT(i, CT_INT16, 0, 1, 1);
    RELEASE(a, b, out, i);
}

static void test_devices(void **state) {
    (void)state;
    ct_tensor *c = mk(CT_INT32, SHAPE(3), VALS(7, -7, 9)), *g = NULL, *r = NULL;
    OK(ct_tensor_to_device(c, CUDA0, &g));
    ct_tensor *three = mk(CT_INT64, NULL, 0, VALS(3));
    OK(ct_binary(CT_OP_REMAINDER, g, three, ONE, &r)); /* the cpu 0-dim operand joins */
    assert_true(ct_device_equal(ct_tensor_device(r), CUDA0));
    EXPECT(r, CT_INT32, 1, 2, 0);
    ct_tensor_release(r);
    OK(ct_binary(CT_OP_LOGICAL_AND, g, g, ONE, &r));
    EXPECT(r, CT_BOOL, 1, 1, 1);
    ct_tensor_release(r);
    ct_tensor *m = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3), CT_INT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &m));
    OK(ct_binary(CT_OP_ATAN2, m, m, ONE, &r));
    assert_true(ct_tensor_is_meta(r));
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT32);
    ct_tensor_release(r);
    assert_status_msg(ct_binary(CT_OP_HYPOT, m, m, ONE, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"hypot_cpu\" not implemented for 'Int'");
    RELEASE(c, g, three, m);
}

/* Whether an element of a float or complex dtype is NaN in some part (payloads may differ). */
static bool is_nan(ct_dtype dt, const unsigned char *p) {
    if (dt == CT_FLOAT32 || dt == CT_COMPLEX64) {
        float v[2] = {0, 0};
        memcpy(v, p, dt == CT_FLOAT32 ? 4 : 8);
        return isnan(v[0]) || isnan(v[1]);
    }
    if (dt == CT_FLOAT64 || dt == CT_COMPLEX128) {
        double v[2] = {0, 0};
        memcpy(v, p, dt == CT_FLOAT64 ? 8 : 16);
        return isnan(v[0]) || isnan(v[1]);
    }
    return false;
}

/* Every new kernel row: each ISA level's loop gives the reference's bytes on varied inputs
 * (contiguous, broadcast and strided), integer divisors nonzero. */
/* pow at the SIMD levels is SLEEF's 1.0-ulp vector pow (binary_loops.c): within an ulp of the
 * reference's scalar pow, and 1 where glibc gives NaN for pow(1, sNaN) and pow(sNaN, 0). */
static bool sleef_pow_close(ct_dtype d, const unsigned char *got, const unsigned char *want) {
    if (d == CT_FLOAT32) {
        int32_t g, w;
        float gf;
        memcpy(&g, got, 4);
        memcpy(&w, want, 4);
        memcpy(&gf, got, 4);
        return (gf == 1.0f && is_nan(d, want)) || ((g < 0) == (w < 0) && llabs((long long)g - w) <= 1);
    }
    if (d == CT_FLOAT64) {
        int64_t g, w;
        double gd;
        memcpy(&g, got, 8);
        memcpy(&w, want, 8);
        memcpy(&gd, got, 8);
        return (gd == 1.0 && is_nan(d, want)) ||
               ((g < 0) == (w < 0) && (g > w ? g - w : w - g) <= 1);
    }
    return false;
}

static void test_levels_match_reference(void **state) {
    (void)state;
    enum { N = 203 };
    static const ct_dtype dts[] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64,
                                   CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128};
    unsigned seed = 12345;
    for (int op = CT_BINOP_POW; op < CT_NUM_BINOPS; op++) {
        if (op >= CT_BINOP_LOGICAL_AND && op <= CT_BINOP_LOGICAL_XOR)
            continue; /* comparison kernels (compare.c) */
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
            ct_binary_math_loop ref = ct_binary_impl_math_loop_reference((ct_binop)op, dts[di]);
            if (ref == NULL)
                continue;
            size_t isz = ct_dtype_itemsize(dts[di]);
            unsigned char *a = calloc(N, isz), *b = calloc(N, isz), *o = calloc(N, isz),
                          *w = calloc(N, isz);
            assert_non_null(a);
            assert_non_null(b);
            assert_non_null(o);
            assert_non_null(w);
            for (size_t k = 0; k < N * isz; k++) {
                seed = seed * 1103515245u + 12345u;
                a[k] = (unsigned char)(seed >> 16);
                seed = seed * 1103515245u + 12345u;
                b[k] = (unsigned char)(seed >> 16);
            }
            if (dts[di] == CT_BOOL)
                for (size_t k = 0; k < N; k++)
                    a[k] &= 1, b[k] &= 1;
            if (ct_dtype_is_integral(dts[di], false))
                for (size_t k = 0; k < N; k++)
                    b[k * isz] |= 1; /* odd: never zero */
            /* the levels this CPU can run (AVX-512 code faults without AVX-512) */
            for (int level = 0; level <= (int)ct_cpu_isa_detected(); level++) {
                ct_binary_math_loop loop = ct_binary_impl_math_loop_at((ct_binop)op, dts[di], level);
                if (loop == NULL)
                    continue;
                int64_t s = (int64_t)isz;
                const int64_t sb[3] = {s, 0, 2 * s};
                for (int p = 0; p < 3; p++) {
                    int64_t n = p == 2 ? N / 2 : N;
                    assert_int_equal(ref((char *)w, (char *)a, (char *)b, s, s, sb[p], n, NULL),
                                     loop((char *)o, (char *)a, (char *)b, s, s, sb[p], n, NULL));
                    for (int64_t k = 0; k < n; k++)
                        if (memcmp(o + k * (int64_t)isz, w + k * (int64_t)isz, isz) != 0 &&
                            !(is_nan(dts[di], o + k * (int64_t)isz) &&
                              is_nan(dts[di], w + k * (int64_t)isz)) &&
                            !(op == CT_BINOP_POW && level > 0 &&
                              sleef_pow_close(dts[di], o + k * (int64_t)isz,
                                              w + k * (int64_t)isz)))
                            fail_msg("op %d %s level %d pattern %d element %lld differs", op,
                                     ct_dtype_name(dts[di]), level, p, (long long)k);
                }
            }
            free(a);
            free(b);
            free(o);
            free(w);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pow),
        cmocka_unit_test(test_remainder_fmod),
        cmocka_unit_test(test_atan2_hypot),
        cmocka_unit_test(test_bitwise_and_shifts),
        cmocka_unit_test(test_logical),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_levels_match_reference),
    };
    return cmocka_run_group_tests(tests, emulated_cuda_setup, emulated_cuda_teardown);
}
