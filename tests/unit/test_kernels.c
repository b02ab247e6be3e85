/* Binary kernels (src/kernels/binary.h): every math loop of every ISA level this CPU runs
 * against the scalar reference on the same inputs (random values and specials, lengths
 * 0..70 and a few long ones, every stride pattern, out aliasing a), exact semantic values
 * (Python's floor division), prepared kernels on mixed dtypes against a slow per-element
 * oracle at every level, and the errors of ct_binary_impl_kernel_init. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"
#include "dtype/convert/convert_impl.h"
#include "kernels/binary.h"

static const ct_dtype math_dtypes[] = {
    CT_BOOL,   CT_UINT8,  CT_INT8,    CT_INT16,   CT_INT32,     CT_INT64,     CT_UINT16,
    CT_UINT32, CT_UINT64, CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128};
#define NUM_MATH (sizeof math_dtypes / sizeof math_dtypes[0])

static size_t isz(ct_dtype d) { return ct_dtype_itemsize(d); }
static int num_levels(void) { return (int)ct_cpu_isa_detected() + 1; }

/* ---- random inputs ---------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static const double float_specials[] = {0.0,  -0.0, INFINITY, -INFINITY, NAN,   1.0,    -1.0,
                                        0.5,  -0.5, 1.5,      -2.5,      7.0,   -7.0,   2.0,
                                        -2.0, 3.0,  1e-310,   -4e-320,   1e300, -1e300, 0.1};
static const float float32_specials[] = {
    0.0f, -0.0f, INFINITY, -INFINITY, NAN,     1.0f,     -1.0f, 0.5f,  -2.5f,   7.0f, -7.0f,
    2.0f, -2.0f, 1e-45f,   -1e-40f,   FLT_MAX, -FLT_MAX, 3.0f,  1e30f, -1e-30f, 0.1f};
#define NSPEC(arr) (sizeof arr / sizeof arr[0])

static float rnd_f32(void) {
    uint64_t r = rnd();
    switch (r % 4) {
    case 0:
        return float32_specials[(r >> 8) % NSPEC(float32_specials)];
    case 1: { /* any bit pattern */
        uint32_t u = (uint32_t)(r >> 16);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    default: /* ordinary values, small integers among them */
        return (r >> 8) % 3 == 0 ? (float)((int64_t)((r >> 16) % 41) - 20)
                                 : (float)((double)(int64_t)(r >> 11) * 0x1p-50);
    }
}

static double rnd_f64(void) {
    uint64_t r = rnd();
    switch (r % 4) {
    case 0:
        return float_specials[(r >> 8) % NSPEC(float_specials)];
    case 1: {
        uint64_t u = rnd();
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    default:
        return (r >> 8) % 3 == 0 ? (double)((int64_t)((r >> 16) % 41) - 20)
                                 : (double)(int64_t)rnd() * 0x1p-60;
    }
}

/* An integer of `size` bytes: specials (0, +-1, min, max, small numbers) or random bits. */
static uint64_t rnd_int(size_t size, bool is_signed) {
    uint64_t r = rnd();
    uint64_t bits = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
    uint64_t min = is_signed ? (uint64_t)1 << (8 * size - 1) : 0;
    uint64_t max = is_signed ? min - 1 : bits;
    switch (r % 8) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return bits; /* -1 / max unsigned */
    case 3:
        return (r >> 8) % 2 ? min : max;
    case 4:
        return ((r >> 8) % 15) - 7;
    default:
        return rnd() & bits;
    }
}

/* Fill n elements of dtype d, `stride` bytes apart. */
static void fill(ct_dtype d, char *p, int64_t stride, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        char *e = p + i * stride;
        switch (d) {
        case CT_BOOL:
            /* bool tensors hold 0/1; now and then another byte checks normalisation */
            e[0] = (char)(rnd() % 16 == 0 ? 0x7F : rnd() % 2);
            break;
        case CT_FLOAT32: {
            float f = rnd_f32();
            memcpy(e, &f, 4);
            break;
        }
        case CT_FLOAT64: {
            double x = rnd_f64();
            memcpy(e, &x, 8);
            break;
        }
        case CT_COMPLEX64: {
            float c[2] = {rnd_f32(), rnd_f32()};
            memcpy(e, c, 8);
            break;
        }
        case CT_COMPLEX128: {
            double c[2] = {rnd_f64(), rnd_f64()};
            memcpy(e, c, 16);
            break;
        }
        case CT_FLOAT16:
        case CT_BFLOAT16:
        case CT_COMPLEX32:
        default:
            if (ct_dtype_is_integral(d, false)) {
                uint64_t u = rnd_int(isz(d), ct_dtype_is_signed(d));
                memcpy(e, &u, isz(d)); /* little-endian */
            } else {
                for (size_t k = 0; k < isz(d); k++)
                    e[k] = (char)rnd();
            }
            break;
        }
    }
}

/* ---- comparison: bytes, except that NaNs only need to agree on being NaN ---------------- */

/* Ulps a real floating lane may differ by: 0, except for pow at the SIMD levels (SLEEF's
 * 1.0-ulp vector pow against the reference's scalar one: binary_loops.c). There also
 * pow(1, y) and pow(x, 0) are 1 for signalling NaNs, as C says for quiet ones and PyTorch's
 * vector path gives, where glibc's pow returns NaN. */
static int tolerance_ulps;

/* Distance in ulps of two finite or infinite lanes of one sign; INT64_MAX otherwise. */
static int64_t ulps_apart(ct_dtype d, const char *x, const char *y) {
    int64_t ix, iy;
    if (isz(d) == 2) {
        int16_t a, b;
        memcpy(&a, x, 2);
        memcpy(&b, y, 2);
        ix = a;
        iy = b;
    } else if (d == CT_FLOAT32) {
        int32_t a, b;
        memcpy(&a, x, 4);
        memcpy(&b, y, 4);
        ix = a;
        iy = b;
    } else {
        memcpy(&ix, x, 8);
        memcpy(&iy, y, 8);
    }
    if ((ix < 0) != (iy < 0))
        return INT64_MAX;
    return ix > iy ? ix - iy : iy - ix;
}

static bool lanes_equal(ct_dtype d, const char *x, const char *y) {
    size_t size = isz(d);
    if (memcmp(x, y, size) == 0)
        return true;
    if (tolerance_ulps > 0 && ct_dtype_kind_of(d) == CT_KIND_FLOAT && isz(d) <= 8) {
        ct_complex128 gx, wy;
        ct_convert_impl_reference(CT_COMPLEX128, &gx, d, x);
        ct_convert_impl_reference(CT_COMPLEX128, &wy, d, y);
        if (ulps_apart(d, x, y) <= tolerance_ulps || (gx.re == 1.0 && isnan(wy.re)))
            return true;
    }
    if (tolerance_ulps > 0 && ct_dtype_kind_of(d) != CT_KIND_FLOAT &&
        ct_dtype_kind_of(d) != CT_KIND_COMPLEX) { /* a float pow cast: a float32 ulp or a unit */
        ct_complex128 gx, wy;
        ct_convert_impl_reference(CT_COMPLEX128, &gx, d, x);
        ct_convert_impl_reference(CT_COMPLEX128, &wy, d, y);
        if (fabs(gx.re - wy.re) <= 1 + fabs(wy.re) * 0x1p-22)
            return true;
    }
    ct_dtype_kind kind = ct_dtype_kind_of(d);
    if (kind != CT_KIND_FLOAT && kind != CT_KIND_COMPLEX)
        return false;
    /* decode both through complex128 and compare part by part */
    ct_complex128 cx, cy;
    ct_convert_impl_reference(CT_COMPLEX128, &cx, d, x);
    ct_convert_impl_reference(CT_COMPLEX128, &cy, d, y);
    bool re = (isnan(cx.re) && isnan(cy.re)) || memcmp(&cx.re, &cy.re, 8) == 0;
    bool im = (isnan(cx.im) && isnan(cy.im)) || memcmp(&cx.im, &cy.im, 8) == 0;
    if (tolerance_ulps > 0 && kind == CT_KIND_COMPLEX && isz(d) <= 16) {
        /* each part within the tolerance: SLEEF's vector pow under a complex pow may round
         * its last bit differently from glibc's, depending on the CPU's variant */
        ct_dtype part = isz(d) == 8 ? CT_FLOAT32 : CT_FLOAT64;
        size_t half = isz(d) / 2;
        if (isz(d) != 4 && ulps_apart(part, x, y) <= tolerance_ulps &&
            ulps_apart(part, x + half, y + half) <= tolerance_ulps)
            return true;
    }
    return re && im && (isnan(cx.re) || isnan(cx.im) || isnan(cy.re) || isnan(cy.im));
}

static void assert_elems_equal(ct_dtype d, const char *got, int64_t sg, const char *want,
                               int64_t sw, int64_t n, const char *what) {
    for (int64_t i = 0; i < n; i++) {
        if (!lanes_equal(d, got + i * sg, want + i * sw)) {
            char gs[80] = "", ws[80] = "";
            for (size_t k = 0; k < isz(d); k++) {
                snprintf(gs + 2 * k, 3, "%02x",
                         (unsigned char)got[i * sg + (int64_t)isz(d) - 1 - (int64_t)k]);
                snprintf(ws + 2 * k, 3, "%02x",
                         (unsigned char)want[i * sw + (int64_t)isz(d) - 1 - (int64_t)k]);
            }
            fail_msg("%s: %s element %lld of %lld: got 0x%s, want 0x%s", what, ct_dtype_name(d),
                     (long long)i, (long long)n, gs, ws);
        }
    }
}

/* ---- math loops vs the reference --------------------------------------------------------- */

static const char *const op_names[CT_NUM_BINOPS] = {
#define CT_OP_KERNEL(E, cpu_name) [CT_BINOP_##E] = #E,
#include "ctensor/ops.def"
#undef CT_OP_KERNEL
};

typedef struct pattern {
    const char *name;
    int so, sa, sb; /* strides in elements (0: broadcast) */
    bool neg;       /* walk every operand backwards */
    bool alias_a;   /* out is a */
    int misalign;   /* byte offset added to every pointer */
} pattern;

static const pattern patterns[] = {
    {"contiguous", 1, 1, 1, false, false, 0},  {"a broadcast", 1, 0, 1, false, false, 0},
    {"b broadcast", 1, 1, 0, false, false, 0}, {"both broadcast", 1, 0, 0, false, false, 0},
    {"strided", 2, 3, 2, false, false, 0},     {"negative", 1, 1, 1, true, false, 0},
    {"negative b0", 2, 1, 0, true, false, 0},  {"out is a", 1, 1, 1, false, true, 0},
    {"out is a, b0", 1, 1, 0, false, true, 0}, {"out is a, strided", 3, 3, 1, false, true, 0},
    {"misaligned", 1, 1, 1, false, false, 1},
};

/* Integer division by zero aborts a loop midway; make zero divisors rare so most runs
 * compare whole outputs (the loops must agree on the error either way). */
static void avoid_zero_divisors(ct_dtype d, char *p, int64_t stride, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        char *e = p + i * stride;
        bool zero = true;
        for (size_t k = 0; k < isz(d); k++)
            zero = zero && e[k] == 0;
        if (zero && rnd() % 64 != 0)
            e[0] = 3;
    }
}

/* One comparison of `loop` with the reference on fresh random inputs. */
static void check_loop_once(ct_binary_math_loop loop, ct_binary_math_loop ref, ct_binop op,
                            ct_dtype d, int64_t n, const pattern *p, const ct_kernel_value *alpha,
                            const char *what) {
    int64_t size = (int64_t)isz(d);
    int64_t span_a = (p->sa ? n * p->sa : 1) * size, span_b = (p->sb ? n * p->sb : 1) * size;
    int64_t span_o = (n > 0 ? n : 1) * p->so * size;
    int64_t cap = (span_a > span_o ? span_a : span_o) + 64;
    char *buf_a = calloc(1, (size_t)cap), *buf_b = calloc(1, (size_t)span_b + 64);
    char *buf_o = calloc(1, (size_t)cap), *buf_r = calloc(1, (size_t)cap);
    assert_non_null(buf_a);
    assert_non_null(buf_b);
    assert_non_null(buf_o);
    assert_non_null(buf_r);
    int64_t sa = p->sa * size, sb = p->sb * size, so = p->so * size;
    if (p->alias_a)
        sa = so; /* exact aliasing: same pointer, same stride */
    int64_t na = sa ? n : 1, nb = sb ? n : 1;
    /* pointers: start of the walk (the last element when walking backwards) */
    char *a = buf_a + p->misalign, *b = buf_b + p->misalign, *o = buf_o + p->misalign;
    char *r = buf_r + p->misalign;
    if (p->neg) {
        a += (na - 1 > 0 ? na - 1 : 0) * sa;
        b += (nb - 1 > 0 ? nb - 1 : 0) * sb;
        o += (n - 1 > 0 ? n - 1 : 0) * so;
        r += (n - 1 > 0 ? n - 1 : 0) * so;
        sa = -sa;
        sb = -sb;
        so = -so;
    }
    fill(d, a, sa, na);
    fill(d, b, sb, nb);
    if (op != CT_BINOP_ADD && op != CT_BINOP_MUL && ct_dtype_is_integral(d, false))
        avoid_zero_divisors(d, b, sb, nb);

    int want, got;
    if (p->alias_a) {
        /* the reference gets its own copy of a in r; the loop runs in place in o */
        memcpy(buf_r, buf_a, (size_t)cap);
        memcpy(buf_o, buf_a, (size_t)cap);
        want = ref(r, r, b, so, so, sb, n, alpha);
        got = loop(o, o, b, so, so, sb, n, alpha);
    } else {
        want = ref(r, a, b, so, sa, sb, n, alpha);
        got = loop(o, a, b, so, sa, sb, n, alpha);
    }
    if (got != want)
        fail_msg("%s: %s %s %s n=%lld: returned %d, reference %d", what, op_names[op],
                 ct_dtype_name(d), p->name, (long long)n, got, want);
    if (want == CT_KERNEL_OK) {
        char label[160];
        snprintf(label, sizeof label, "%s %s %s n=%lld%s", what, op_names[op], p->name,
                 (long long)n, alpha ? " alpha" : "");
        assert_elems_equal(d, o, so, r, so, n, label);
    }
    free(buf_a);
    free(buf_b);
    free(buf_o);
    free(buf_r);
}

static void random_alpha(ct_dtype d, ct_kernel_value *v) {
    memset(v, 0, sizeof *v);
    fill(d, (char *)v, 0, 1);
    if (d == CT_BOOL)
        v->u8 = (uint8_t)(rnd() % 2);
}

static void test_loops_vs_reference(void **state) {
    (void)state;
    static const int64_t long_lengths[] = {127, 128, 255, 1000, 4099};
    for (int level = 0; level < num_levels(); level++) {
        char what[32];
        snprintf(what, sizeof what, "level %s", ct_cpu_isa_name((ct_cpu_isa)level));
        for (int op = 0; op < CT_NUM_BINOPS; op++) {
            for (size_t di = 0; di < NUM_MATH; di++) {
                ct_dtype d = math_dtypes[di];
                ct_binary_math_loop ref = ct_binary_impl_math_loop_reference((ct_binop)op, d);
                ct_binary_math_loop loop = ct_binary_impl_math_loop_at((ct_binop)op, d, level);
                if (ref == NULL) {
                    assert_null(loop);
                    continue;
                }
                assert_non_null(loop);
                tolerance_ulps = op == CT_BINOP_POW && level > 0 ? 1 : 0;
                for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
                    const pattern *p = &patterns[pi];
                    for (int64_t n = 0; n <= 75 + (int64_t)NSPEC(long_lengths); n++) {
                        int64_t len = n <= 75 ? n : long_lengths[n - 76];
                        ct_kernel_value alpha;
                        check_loop_once(loop, ref, (ct_binop)op, d, len, p, NULL, what);
                        if (op == CT_BINOP_ADD) {
                            random_alpha(d, &alpha);
                            check_loop_once(loop, ref, (ct_binop)op, d, len, p, &alpha, what);
                        }
                    }
                }
                tolerance_ulps = 0;
            }
        }
    }
}

/* Which (op, math dtype) pairs have loops: DIV only for floating and complex, DIV_TRUNC and
 * DIV_FLOOR not for bool nor complex. */
static void test_loop_availability(void **state) {
    (void)state;
    for (size_t di = 0; di < NUM_MATH; di++) {
        ct_dtype d = math_dtypes[di];
        bool fl = ct_dtype_is_floating_point(d), cx = ct_dtype_is_complex(d);
        assert_non_null(ct_binary_impl_math_loop_reference(CT_BINOP_ADD, d));
        assert_non_null(ct_binary_impl_math_loop_reference(CT_BINOP_MUL, d));
        assert_true((ct_binary_impl_math_loop_reference(CT_BINOP_DIV, d) != NULL) == (fl || cx));
        assert_true((ct_binary_impl_math_loop_reference(CT_BINOP_DIV_TRUNC, d) != NULL) ==
                    (d != CT_BOOL && !cx));
        assert_true((ct_binary_impl_math_loop_reference(CT_BINOP_DIV_FLOOR, d) != NULL) ==
                    (d != CT_BOOL && !cx));
        assert_true(ct_binary_impl_math_loop_get(CT_BINOP_ADD, d) ==
                    ct_binary_impl_math_loop_at(CT_BINOP_ADD, d, (int)ct_cpu_isa_active()));
    }
    assert_null(ct_binary_impl_math_loop_reference(CT_BINOP_ADD, CT_FLOAT16));
    assert_null(ct_binary_impl_math_loop_get(CT_BINOP_ADD, CT_DTYPE_UNDEFINED));
    assert_null(ct_binary_impl_math_loop_at(CT_BINOP_ADD, CT_FLOAT32, 99));
    assert_null(ct_binary_impl_math_loop_at(CT_NUM_BINOPS, CT_FLOAT32, 0));

    assert_int_equal(ct_binary_impl_math_dtype(CT_FLOAT16), CT_FLOAT32);
    assert_int_equal(ct_binary_impl_math_dtype(CT_BFLOAT16), CT_FLOAT32);
    assert_int_equal(ct_binary_impl_math_dtype(CT_COMPLEX32), CT_COMPLEX64);
    assert_int_equal(ct_binary_impl_math_dtype(CT_UINT16), CT_UINT16);
    assert_int_equal(ct_binary_impl_math_dtype(CT_COMPLEX128), CT_COMPLEX128);
    assert_int_equal(ct_binary_impl_math_dtype(CT_FLOAT8_E5M2), CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_binary_impl_math_dtype(CT_FLOAT4_E2M1FN_X2), CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_binary_impl_math_dtype(CT_DTYPE_UNDEFINED), CT_DTYPE_UNDEFINED);
}

/* ---- exact values ------------------------------------------------------------------------ */

/* Run (op, d) at every level and with the reference, contiguous, and return the reference's
 * status after checking that all agree. */
static int run_all(ct_binop op, ct_dtype d, void *out, const void *a, const void *b, int64_t n,
                   const ct_kernel_value *alpha) {
    int64_t s = (int64_t)isz(d);
    char want[256];
    assert_true(n * s <= (int64_t)sizeof want);
    int rc = ct_binary_impl_math_loop_reference(op, d)(want, a, b, s, s, s, n, alpha);
    for (int level = 0; level < num_levels(); level++) {
        char got[256];
        memset(got, 0, sizeof got);
        int lrc = ct_binary_impl_math_loop_at(op, d, level)(got, a, b, s, s, s, n, alpha);
        assert_int_equal(lrc, rc);
        if (rc == CT_KERNEL_OK)
            assert_elems_equal(d, got, s, want, s, n, ct_cpu_isa_name((ct_cpu_isa)level));
    }
    memcpy(out, want, (size_t)(n * s));
    return rc;
}

static void test_integer_division(void **state) {
    (void)state;
    int32_t a[4] = {7, -7, 7, -7}, b[4] = {2, 2, -2, -2}, r[4];
    assert_int_equal(run_all(CT_BINOP_DIV_TRUNC, CT_INT32, r, a, b, 4, NULL), CT_KERNEL_OK);
    assert_int_equal(r[0], 3);
    assert_int_equal(r[1], -3);
    assert_int_equal(r[2], -3);
    assert_int_equal(r[3], 3);
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_INT32, r, a, b, 4, NULL), CT_KERNEL_OK);
    assert_int_equal(r[0], 3);
    assert_int_equal(r[1], -4);
    assert_int_equal(r[2], -4);
    assert_int_equal(r[3], 3);

    int64_t a64[3] = {INT64_MIN, INT64_MIN, -9}, b64[3] = {-1, 1, 4}, r64[3];
    assert_int_equal(run_all(CT_BINOP_DIV_TRUNC, CT_INT64, r64, a64, b64, 3, NULL), CT_KERNEL_OK);
    assert_true(r64[0] == INT64_MIN && r64[1] == INT64_MIN && r64[2] == -2);
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_INT64, r64, a64, b64, 3, NULL), CT_KERNEL_OK);
    assert_true(r64[0] == INT64_MIN && r64[1] == INT64_MIN && r64[2] == -3);

    int32_t a32[2] = {INT32_MIN, 5}, b32[2] = {-1, -1}, r32[2];
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_INT32, r32, a32, b32, 2, NULL), CT_KERNEL_OK);
    assert_true(r32[0] == INT32_MIN && r32[1] == -5);
    int16_t a16[1] = {INT16_MIN}, b16[1] = {-1}, r16[1];
    assert_int_equal(run_all(CT_BINOP_DIV_TRUNC, CT_INT16, r16, a16, b16, 1, NULL), CT_KERNEL_OK);
    assert_int_equal(r16[0], INT16_MIN);
    int8_t a8[2] = {-128, -7}, b8[2] = {-1, 2}, r8[2];
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_INT8, r8, a8, b8, 2, NULL), CT_KERNEL_OK);
    assert_true(r8[0] == -128 && r8[1] == -4);

    /* unsigned: plain division, 255 is not -1 */
    uint8_t ua[2] = {255, 7}, ub[2] = {255, 2}, ur[2];
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_UINT8, ur, ua, ub, 2, NULL), CT_KERNEL_OK);
    assert_true(ur[0] == 1 && ur[1] == 3);

    /* zero divisors, any integer dtype, tensor or broadcast */
    int32_t z[4] = {1, 2, 0, 4};
    assert_int_equal(run_all(CT_BINOP_DIV_TRUNC, CT_INT32, r, a, z, 4, NULL),
                     CT_KERNEL_ZERO_DIVISION);
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_INT32, r, a, z, 4, NULL),
                     CT_KERNEL_ZERO_DIVISION);
    uint8_t uz[2] = {0, 0};
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_UINT8, ur, ua, uz, 2, NULL),
                     CT_KERNEL_ZERO_DIVISION);
    for (int level = 0; level < num_levels(); level++) {
        int32_t zero = 0, out[4];
        assert_int_equal(ct_binary_impl_math_loop_at(CT_BINOP_DIV_TRUNC, CT_INT32, level)(
                             (char *)out, (const char *)a, (const char *)&zero, 4, 4, 0, 4, NULL),
                         CT_KERNEL_ZERO_DIVISION);
    }
}

static void test_float_division(void **state) {
    (void)state;
    double a[] = {7, -7, 7, -7, 1, -1, 1, -1, 0, -0.0, 0.5, INFINITY, 5, -0.0};
    double b[] = {2, 2, -2, -2, INFINITY, INFINITY, 0, 0, 0, 1, -1, 1, 0.5, -3};
    enum { N = sizeof a / sizeof a[0] };
    double r[N];
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_FLOAT64, r, a, b, N, NULL), CT_KERNEL_OK);
    double want_floor[N] = {3, -4, -4, 3, 0, -1, INFINITY, -INFINITY, NAN, -0.0, -1, NAN, 10, 0.0};
    for (int i = 0; i < N; i++) {
        if (isnan(want_floor[i]))
            assert_true(isnan(r[i]));
        else
            assert_true(r[i] == want_floor[i] && !signbit(r[i]) == !signbit(want_floor[i]));
    }
    assert_int_equal(run_all(CT_BINOP_DIV_TRUNC, CT_FLOAT64, r, a, b, N, NULL), CT_KERNEL_OK);
    assert_true(r[0] == 3 && r[1] == -3 && r[2] == -3 && r[3] == 3);
    assert_true(r[5] == 0 && signbit(r[5])); /* -1 / inf -> -0 */
    assert_true(r[9] == 0 && signbit(r[9]));
    assert_true(r[12] == 10);
    assert_true(isnan(r[8]));

    float fa[2] = {-1.0f, 7.0f}, fb[2] = {2.0f, 2.0f}, fr[2];
    assert_int_equal(run_all(CT_BINOP_DIV_TRUNC, CT_FLOAT32, fr, fa, fb, 2, NULL), CT_KERNEL_OK);
    assert_true(fr[0] == 0.0f && signbit(fr[0]) && fr[1] == 3.0f);
    assert_int_equal(run_all(CT_BINOP_DIV, CT_FLOAT32, fr, fa, fb, 2, NULL), CT_KERNEL_OK);
    assert_true(fr[0] == -0.5f && fr[1] == 3.5f);
    assert_int_equal(run_all(CT_BINOP_DIV_FLOOR, CT_FLOAT32, fr, fa, fb, 2, NULL), CT_KERNEL_OK);
    assert_true(fr[0] == -1.0f && fr[1] == 3.0f);
}

static void test_bool_and_wrap(void **state) {
    (void)state;
    uint8_t a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1}, r[4];
    run_all(CT_BINOP_ADD, CT_BOOL, r, a, b, 4, NULL);
    assert_memory_equal(r, ((uint8_t[]){0, 1, 1, 1}), 4);
    ct_kernel_value f;
    memset(&f, 0, sizeof f);
    run_all(CT_BINOP_ADD, CT_BOOL, r, a, b, 4, &f); /* alpha False: a */
    assert_memory_equal(r, a, 4);
    run_all(CT_BINOP_MUL, CT_BOOL, r, a, b, 4, NULL);
    assert_memory_equal(r, ((uint8_t[]){0, 0, 0, 1}), 4);

    uint8_t ua[3] = {250, 16, 3}, ub[3] = {10, 16, 255}, ur[3];
    run_all(CT_BINOP_ADD, CT_UINT8, ur, ua, ub, 3, NULL);
    assert_memory_equal(ur, ((uint8_t[]){4, 32, 2}), 3);
    run_all(CT_BINOP_MUL, CT_UINT8, ur, ua, ub, 3, NULL);
    assert_memory_equal(ur, ((uint8_t[]){196, 0, 253}), 3);
    ct_kernel_value al;
    al.u8 = 255; /* sub: alpha -1 wrapped */
    run_all(CT_BINOP_ADD, CT_UINT8, ur, ua, ub, 3, &al);
    assert_memory_equal(ur, ((uint8_t[]){240, 0, 4}), 3);

    int32_t ia[2] = {INT32_MAX, INT32_MIN}, ib[2] = {1, -1}, ir[2];
    run_all(CT_BINOP_ADD, CT_INT32, ir, ia, ib, 2, NULL);
    assert_true(ir[0] == INT32_MIN && ir[1] == INT32_MAX);
    run_all(CT_BINOP_MUL, CT_INT32, ir, ia, ib, 2, NULL);
    assert_true(ir[0] == INT32_MAX && ir[1] == INT32_MIN);
    int64_t la[1] = {INT64_MAX}, lb[1] = {INT64_MAX}, lr[1];
    run_all(CT_BINOP_MUL, CT_INT64, lr, la, lb, 1, NULL);
    assert_true(lr[0] == 1);
}

static void test_float_and_complex_arith(void **state) {
    (void)state;
    /* add with alpha is one fused multiply-add, as PyTorch's vectorized add */
    float a[3] = {-0.3f, 1.0f, 1e8f}, b[3] = {3.0f, 1.0f / 3.0f, -1.0f}, r[3];
    ct_kernel_value al;
    al.f32 = 0.1f;
    run_all(CT_BINOP_ADD, CT_FLOAT32, r, a, b, 3, &al);
    for (int i = 0; i < 3; i++)
        assert_true(r[i] == fmaf(0.1f, b[i], a[i]));

    ct_complex64 ca[3] = {{1, 2}, {1, 2}, {1, 0}}, cb[3] = {{3, 4}, {0, 0}, {1, INFINITY}};
    ct_complex64 cr[3];
    run_all(CT_BINOP_MUL, CT_COMPLEX64, cr, ca, cb, 1, NULL);
    assert_true(cr[0].re == -5.0f && cr[0].im == 10.0f);
    run_all(CT_BINOP_DIV, CT_COMPLEX64, cr, ca, cb, 3, NULL);
    assert_true(fabsf(cr[0].re - 0.44f) < 1e-6f && fabsf(cr[0].im - 0.08f) < 1e-6f);
    /* (1+2j) / 0 -> (inf, inf): Smith's method divides part by part by |0| */
    assert_true(isinf(cr[1].re) && cr[1].re > 0 && isinf(cr[1].im) && cr[1].im > 0);
    /* (1+0j) / (1+inf j) -> 0 (the textbook formula's inf / inf gave NaN) */
    assert_true(cr[2].re == 0.0f && cr[2].im == 0.0f);
    /* complex add with alpha 1+0j multiplies out, as PyTorch: 0 * inf gives a NaN real part */
    ct_kernel_value one;
    one.c64[0] = 1.0f;
    one.c64[1] = 0.0f;
    run_all(CT_BINOP_ADD, CT_COMPLEX64, cr, ca, cb, 3, &one);
    assert_true(isnan(cr[2].re) && isinf(cr[2].im));
    run_all(CT_BINOP_ADD, CT_COMPLEX64, cr, ca, cb, 3, NULL);
    assert_true(cr[2].re == 2.0f && isinf(cr[2].im));

    /* a huge divisor: Smith's ratio keeps every step in range (the textbook c*c + d*d
     * overflowed to NaN) */
    ct_complex128 da[1] = {{1e300, 1e300}}, db[1] = {{1e300, 1e300}}, dr[1];
    run_all(CT_BINOP_DIV, CT_COMPLEX128, dr, da, db, 1, NULL);
    assert_true(dr[0].re == 1.0 && dr[0].im == 0.0);
}

/* ---- prepared kernels on mixed dtypes ----------------------------------------------------- */

/* The slow oracle, written from the rules (binary.h) rather than from the kernel's fields:
 * each element goes through the computation dtype when that is not its math dtype (inputs
 * of other dtypes are rounded to it first, except a scalar b of newest PyTorch's float16 /
 * bfloat16 mul / div paths), one element of the reference loop, and back through the
 * computation dtype to the output; with the reference converter throughout. */
static void via_dtype(ct_dtype to, void *dst, ct_dtype mid, ct_dtype from, const void *src) {
    ct_kernel_value t;
    ct_convert_impl_reference(mid, &t, from, src);
    ct_convert_impl_reference(to, dst, mid, &t);
}

/* x rounded to a float16 / bfloat16 value, in float32 */
static float round_to(ct_dtype d, float x) {
    ct_kernel_value t;
    float r;
    ct_convert_impl_reference(d, &t, CT_FLOAT32, &x);
    ct_convert_impl_reference(CT_FLOAT32, &r, d, &t);
    return r;
}

/* float16 / bfloat16 trunc and floor with a tensor divisor: PyTorch's Vectorized<Half>
 * steps (div_floor_floating_vec), each one rounded to the dtype */
static float reduced_divide(ct_binop op, ct_dtype d, float x, float y) {
    float basic = round_to(d, x / y);
    if (op == CT_BINOP_DIV_TRUNC)
        return truncf(basic);
    if (y == 0.0f)
        return basic;
    float mod = round_to(d, fmodf(x, y));
    float div = round_to(d, round_to(d, x - mod) / y);
    if (mod != 0.0f && ((y < 0.0f) != (mod < 0.0f)))
        div = round_to(d, div - 1.0f);
    if (div == 0.0f)
        return copysignf(0.0f, basic);
    float q = floorf(div);
    if (round_to(d, div - q) > 0.5f)
        q = round_to(d, q + 1.0f);
    return q;
}

static int oracle(const ct_binary_kernel *k, unsigned flags, char *out, const char *a,
                  const char *b, int64_t so, int64_t sa, int64_t sb, int64_t n) {
    ct_dtype c = k->compute, m = k->math;
    bool reduced_float = c == CT_FLOAT16 || c == CT_BFLOAT16;
    bool b_opmath = (flags & CT_BINARY_B_IS_SCALAR) && reduced_float && k->op != CT_BINOP_ADD &&
                    k->op < CT_BINOP_POW;
    /* float16 pow with a number exponent is plain pow (no special exponents) */
    ct_binop rop = c == CT_FLOAT16 && k->op == CT_BINOP_POW_SCALAR ? CT_BINOP_POW : k->op;
    ct_binary_math_loop ref = ct_binary_impl_math_loop_reference(rop, m);
    const ct_kernel_value *alpha = k->has_alpha ? &k->alpha : NULL;
    for (int64_t i = 0; i < n; i++) {
        ct_kernel_value x, y, r;
        via_dtype(m, &x, c, k->a_dtype, a + i * sa);
        if (b_opmath)
            ct_convert_impl_reference(m, &y, k->b_dtype, b + i * sb);
        else
            via_dtype(m, &y, c, k->b_dtype, b + i * sb);
        if (reduced_float && !b_opmath &&
            (k->op == CT_BINOP_DIV_TRUNC || k->op == CT_BINOP_DIV_FLOOR)) {
            r.f32 = reduced_divide(k->op, c, x.f32, y.f32);
        } else if (c == CT_COMPLEX32 && k->op == CT_BINOP_ADD) {
            /* c10::complex<Half>: alpha * b is rounded before the sum */
            ct_kernel_value p;
            ct_binary_impl_math_loop_reference(CT_BINOP_MUL, m)((char *)&p, (const char *)alpha,
                                                                (const char *)&y, 0, 0, 0, 1, NULL);
            p.c64[0] = round_to(CT_FLOAT16, p.c64[0]);
            p.c64[1] = round_to(CT_FLOAT16, p.c64[1]);
            ct_binary_impl_math_loop_reference(CT_BINOP_ADD, m)((char *)&r, (const char *)&x,
                                                                (const char *)&p, 0, 0, 0, 1, NULL);
        } else {
            int rc = ref((char *)&r, (const char *)&x, (const char *)&y, 0, 0, 0, 1, alpha);
            if (rc != CT_KERNEL_OK)
                return rc;
        }
        via_dtype(k->out_dtype, out + i * so, c, m, &r);
    }
    return CT_KERNEL_OK;
}

static const ct_dtype operand_dtypes[] = {
    CT_BOOL,    CT_UINT8,     CT_INT8,      CT_INT16,      CT_INT32,         CT_INT64,
    CT_UINT16,  CT_UINT32,    CT_UINT64,    CT_FLOAT16,    CT_BFLOAT16,      CT_FLOAT32,
    CT_FLOAT64, CT_COMPLEX32, CT_COMPLEX64, CT_COMPLEX128, CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2};
#define NUM_OPERAND (sizeof operand_dtypes / sizeof operand_dtypes[0])

static void check_kernel_flags(ct_binop op, ct_dtype compute, ct_dtype od, ct_dtype ad,
                               ct_dtype bd, ct_scalar alpha, int64_t n, int pattern_kind,
                               unsigned flags, const char *what) {
    ct_binary_kernel k;
    if (ct_binary_impl_kernel_init_ex(&k, op, NULL, compute, od, ad, bd, alpha, flags) != CT_OK)
        return; /* no loop for this op and dtype, or alpha does not fit: tested elsewhere */
    int64_t os = (int64_t)isz(od), as = (int64_t)isz(ad), bs = (int64_t)isz(bd);
    int64_t so = os, sa = as, sb = bs;
    bool alias = false;
    switch (pattern_kind) {
    case 1:
        sa = 0;
        break;
    case 2:
        sb = 0;
        break;
    case 3:
        so = 2 * os;
        sa = 3 * as;
        sb = 2 * bs;
        break;
    case 4: /* in place when out and a share the dtype */
        alias = od == ad;
        break;
    default:
        break;
    }
    size_t cap = (size_t)((n + 1) * 3 * 16 + 64);
    char *a = calloc(1, cap), *b = calloc(1, cap), *o = calloc(1, cap), *r = calloc(1, cap);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(o);
    assert_non_null(r);
    fill(ad, a, sa ? sa : as, sa ? n : 1);
    fill(bd, b, sb ? sb : bs, sb ? n : 1);
    int want, got;
    if (alias) {
        memcpy(o, a, cap);
        memcpy(r, a, cap);
        want = oracle(&k, flags, r, r, b, so, so, sb, n);
        got = ct_binary_impl_kernel_run(&k, o, o, b, so, so, sb, n);
    } else {
        want = oracle(&k, flags, r, a, b, so, sa, sb, n);
        got = ct_binary_impl_kernel_run(&k, o, a, b, so, sa, sb, n);
    }
    if (got != want)
        fail_msg("%s: %s %s = %s op %s in %s: returned %d, oracle %d", what, op_names[op],
                 ct_dtype_name(od), ct_dtype_name(ad), ct_dtype_name(bd), ct_dtype_name(compute),
                 got, want);
    if (want == CT_KERNEL_OK) {
        char label[200];
        snprintf(label, sizeof label, "%s: %s %s = %s, %s in %s (pattern %d, n %lld)", what,
                 op_names[op], ct_dtype_name(od), ct_dtype_name(ad), ct_dtype_name(bd),
                 ct_dtype_name(compute), pattern_kind, (long long)n);
        assert_elems_equal(od, o, so, r, so, n, label);
    }
    free(a);
    free(b);
    free(o);
    free(r);
}

static void check_kernel(ct_binop op, ct_dtype compute, ct_dtype od, ct_dtype ad, ct_dtype bd,
                         ct_scalar alpha, int64_t n, int pattern_kind, const char *what) {
    check_kernel_flags(op, compute, od, ad, bd, alpha, n, pattern_kind, 0, what);
    /* b broadcast: also as newest PyTorch's is_scalar(2) operand */
    if (pattern_kind == 2)
        check_kernel_flags(op, compute, od, ad, bd, alpha, n, pattern_kind,
                           CT_BINARY_B_IS_SCALAR, what);
}

static void test_kernel_mixed(void **state) {
    (void)state;
    static const ct_dtype computes[] = {CT_BOOL,    CT_UINT8,     CT_INT8,      CT_INT16,
                                        CT_INT32,   CT_INT64,     CT_UINT16,    CT_UINT32,
                                        CT_UINT64,  CT_FLOAT16,   CT_BFLOAT16,  CT_FLOAT32,
                                        CT_FLOAT64, CT_COMPLEX32, CT_COMPLEX64, CT_COMPLEX128};
    ct_cpu_isa detected = ct_cpu_isa_detected();
    for (int level = 0; level <= (int)detected; level++) {
        assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)level), CT_OK);
        const char *what = ct_cpu_isa_name((ct_cpu_isa)level);
        for (size_t ci = 0; ci < sizeof computes / sizeof computes[0]; ci++) {
            ct_dtype c = computes[ci];
            for (int op = 0; op < CT_NUM_BINOPS; op++) {
                /* the benchmark's shapes, then random operand dtypes */
                for (int trial = 0; trial < 14; trial++) {
                    ct_dtype od = c, ad = c, bd = c;
                    if (trial >= 2) {
                        ad = operand_dtypes[rnd() % NUM_OPERAND];
                        bd = trial % 2 ? c : operand_dtypes[rnd() % NUM_OPERAND];
                        od = trial % 3 ? c : operand_dtypes[rnd() % NUM_OPERAND];
                    }
                    int64_t n = trial == 1 ? 3000 : (int64_t)(rnd() % 2100);
                    ct_scalar alpha = ct_scalar_int(1);
                    if (op == CT_BINOP_ADD && trial % 4 == 3)
                        alpha = c == CT_BOOL                    ? ct_scalar_bool(false)
                                : ct_dtype_is_complex(c)        ? ct_scalar_complex(0.5, -2)
                                : ct_dtype_is_floating_point(c) ? ct_scalar_float(-0.1)
                                                                : ct_scalar_int(-3);
                    tolerance_ulps = op == CT_BINOP_POW && level > 0 ? 1 : 0;
                    check_kernel((ct_binop)op, c, od, ad, bd, alpha, n, trial % 5, what);
                    tolerance_ulps = 0;
                }
            }
        }
        /* the hot mixed pairs, long enough for several chunks, every pattern */
        static const ct_dtype hot[][4] = {
            {CT_FLOAT32, CT_FLOAT32, CT_INT32, CT_FLOAT32},
            {CT_FLOAT32, CT_FLOAT32, CT_FLOAT16, CT_FLOAT32},
            {CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16},
            {CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16},
            {CT_COMPLEX32, CT_COMPLEX32, CT_COMPLEX32, CT_COMPLEX32},
            {CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT32}, /* out cast */
        };
        for (size_t h = 0; h < sizeof hot / sizeof hot[0]; h++)
            for (int pk = 0; pk < 5; pk++)
                for (int op = 0; op < CT_NUM_BINOPS; op++) {
                    tolerance_ulps = op == CT_BINOP_POW && level > 0 ? 1 : 0;
                    check_kernel((ct_binop)op, hot[h][0], hot[h][1], hot[h][2], hot[h][3],
                                 op == CT_BINOP_ADD && pk == 3 ? ct_scalar_float(0.3)
                                                               : ct_scalar_int(1),
                                 5000 + pk, pk, what);
                    tolerance_ulps = 0;
                }
    }
    assert_int_equal(ct_cpu_set_isa(detected), CT_OK);
}

/* ---- long runs: the streaming-store paths (outputs of 4 MiB and more) ------------------- */

static void test_long_runs(void **state) {
    (void)state;
    /* float32 add / mul / div, contiguous and broadcast, out misaligned for the vector width
     * (the streaming stores align it first) and out == a (no streaming) */
    const int64_t n = ((int64_t)4 << 20) / 4 + 37;
    static const pattern long_patterns[] = {
        {"contiguous", 1, 1, 1, false, false, 0},
        {"a broadcast", 1, 0, 1, false, false, 0},
        {"b broadcast", 1, 1, 0, false, false, 0},
        {"out is a", 1, 1, 1, false, true, 0},
    };
    for (int level = 0; level < num_levels(); level++) {
        const char *what = ct_cpu_isa_name((ct_cpu_isa)level);
        for (int op = 0; op <= CT_BINOP_DIV; op++) {
            ct_binary_math_loop ref = ct_binary_impl_math_loop_reference((ct_binop)op, CT_FLOAT32);
            ct_binary_math_loop loop = ct_binary_impl_math_loop_at((ct_binop)op, CT_FLOAT32, level);
            for (size_t pi = 0; pi < sizeof long_patterns / sizeof long_patterns[0]; pi++)
                check_loop_once(loop, ref, (ct_binop)op, CT_FLOAT32, n + (int64_t)pi,
                                &long_patterns[pi], NULL, what);
        }
        ct_kernel_value alpha;
        alpha.f64 = -0.75;
        check_loop_once(ct_binary_impl_math_loop_at(CT_BINOP_ADD, CT_FLOAT64, level),
                        ct_binary_impl_math_loop_reference(CT_BINOP_ADD, CT_FLOAT64), CT_BINOP_ADD,
                        CT_FLOAT64, n / 2 + 3, &long_patterns[0], &alpha, what);
        check_loop_once(ct_binary_impl_math_loop_at(CT_BINOP_MUL, CT_INT8, level),
                        ct_binary_impl_math_loop_reference(CT_BINOP_MUL, CT_INT8), CT_BINOP_MUL,
                        CT_INT8, 4 * n + 1, &long_patterns[0], NULL, what);

        /* out starting 4 bytes past a vector boundary */
        float *a = malloc((size_t)(n + 16) * 4), *b = malloc((size_t)(n + 16) * 4);
        float *o = malloc((size_t)(n + 16) * 4), *r = malloc((size_t)(n + 16) * 4);
        assert_true(a && b && o && r);
        fill(CT_FLOAT32, (char *)a, 4, n + 16);
        fill(CT_FLOAT32, (char *)b, 4, n + 16);
        ct_binary_impl_math_loop_reference(CT_BINOP_ADD, CT_FLOAT32)((char *)(r + 1), (char *)a,
                                                                     (char *)b, 4, 4, 4, n, NULL);
        assert_int_equal(ct_binary_impl_math_loop_at(CT_BINOP_ADD, CT_FLOAT32, level)(
                             (char *)(o + 1), (char *)a, (char *)b, 4, 4, 4, n, NULL),
                         CT_KERNEL_OK);
        assert_elems_equal(CT_FLOAT32, (char *)(o + 1), 4, (char *)(r + 1), 4, n, what);
        free(a);
        free(b);
        free(o);
        free(r);
    }
    /* prepared kernels streaming their chunks (out in the math dtype or converted), from a
     * lowered threshold (the default 4 MiB made each run cost seconds under the sanitizers)
     * and once at the default */
    ct_cpu_isa detected = ct_cpu_isa_detected();
    int64_t was = ct_binary_impl_set_stream_bytes(16384);
    for (int level = 0; level <= (int)detected; level++) {
        assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)level), CT_OK);
        const char *what = ct_cpu_isa_name((ct_cpu_isa)level);
        check_kernel(CT_BINOP_ADD, CT_FLOAT32, CT_FLOAT32, CT_INT32, CT_FLOAT32, ct_scalar_int(1),
                     16384 / 4 + 5, 0, what);
        check_kernel(CT_BINOP_MUL, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, ct_scalar_int(1),
                     16384 / 2 + 7, 1, what);
        check_kernel(CT_BINOP_ADD, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16,
                     ct_scalar_float(2.5), 16384 / 2 + 1, 2, what);
    }
    ct_binary_impl_set_stream_bytes(was);
    check_kernel(CT_BINOP_ADD, CT_FLOAT32, CT_FLOAT32, CT_INT32, CT_FLOAT32, ct_scalar_int(1),
                 ((int64_t)4 << 20) / 4 + 5, 0, ct_cpu_isa_name(detected));
    assert_int_equal(ct_cpu_set_isa(detected), CT_OK);
}

/* ---- fused float16 / bfloat16 loops -------------------------------------------------------
 * Prepared f16 / bf16 add, sub (alpha -1) and mul with every operand in the dtype take the
 * fused loops at the AVX2 and AVX-512 levels; they must give the bytes of the chunked path
 * (the same kernel with the fused loop removed) and, NaNs aside, of the oracle. Inputs mix
 * random bits with special values: NaNs of both signs and payloads, infinities, subnormals,
 * values whose sum or product overflows, and pairs whose exact result sits halfway between
 * two values of the dtype (ties to even). */

static const uint16_t f16_specials[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01,
                                        0xFD55, 0x7FFF, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400,
                                        0x8400, 0x7BFF, 0xFBFF, 0x7BFE, 0x3C00, 0xBC00, 0x3C01,
                                        0x1400, 0x0200, 0x6800, 0x3800, 0x5BFF, 0x0002, 0x3555};
static const uint16_t bf16_specials[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81,
                                         0xFFAA, 0x7FFF, 0x0001, 0x8001, 0x007F, 0x807F, 0x0080,
                                         0x8080, 0x7F7F, 0xFF7F, 0x7F7E, 0x3F80, 0xBF80, 0x3F81,
                                         0x3B80, 0x0040, 0x4B00, 0x3F00, 0x437F, 0x0002, 0x3EAB};

static void fill_half(ct_dtype d, uint16_t *p, int64_t n) {
    const uint16_t *sp = d == CT_FLOAT16 ? f16_specials : bf16_specials;
    size_t ns = d == CT_FLOAT16 ? NSPEC(f16_specials) : NSPEC(bf16_specials);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        switch (r % 4) {
        case 0:
            p[i] = sp[(r >> 8) % ns];
            break;
        case 1: /* small exponents: subnormal sums and products, near-ties */
            p[i] = (uint16_t)((r >> 8) & (d == CT_FLOAT16 ? 0x87FF : 0x80FF));
            break;
        default: /* a narrow exponent band: many exact halfway sums */
            p[i] = (uint16_t)(((r >> 8) & 0x80FF) | (d == CT_FLOAT16 ? 0x3C00 : 0x3F00));
            if (r % 8 == 2)
                p[i] = (uint16_t)(r >> 16);
            break;
        }
    }
}

static void check_fused_once(ct_dtype d, ct_binop op, ct_scalar alpha, int64_t n, int pk,
                             const char *what) {
    ct_binary_kernel k;
    assert_int_equal(ct_binary_impl_kernel_init(&k, op, NULL, d, d, d, d, alpha), CT_OK);
    ct_binary_kernel chunked = k;
    chunked.fused = NULL;
    /* offset 1 element: out not 64-byte aligned for the streamed runs */
    int64_t cap = n + 64;
    uint16_t *a = calloc((size_t)cap, 2), *b = calloc((size_t)cap, 2);
    uint16_t *o = calloc((size_t)cap, 2), *c = calloc((size_t)cap, 2), *r = calloc((size_t)cap, 2);
    assert_true(a && b && o && c && r);
    int64_t sa = pk == 1 ? 0 : 2, sb = pk == 2 ? 0 : 2;
    fill_half(d, a + 1, sa ? n : 1);
    fill_half(d, b + 1, sb ? n : 1);
    char *pa = (char *)(a + 1), *pb = (char *)(b + 1);
    char *po = (char *)(o + 1), *pc = (char *)(c + 1), *pr = (char *)(r + 1);
    if (pk == 3) { /* out is a */
        memcpy(o, a, (size_t)cap * 2);
        memcpy(c, a, (size_t)cap * 2);
        memcpy(r, a, (size_t)cap * 2);
        assert_int_equal(ct_binary_impl_kernel_run(&k, po, po, pb, 2, 2, sb, n), CT_KERNEL_OK);
        assert_int_equal(ct_binary_impl_kernel_run(&chunked, pc, pc, pb, 2, 2, sb, n),
                         CT_KERNEL_OK);
        assert_int_equal(oracle(&k, 0, pr, pr, pb, 2, 2, sb, n), CT_KERNEL_OK);
    } else {
        assert_int_equal(ct_binary_impl_kernel_run(&k, po, pa, pb, 2, sa, sb, n), CT_KERNEL_OK);
        assert_int_equal(ct_binary_impl_kernel_run(&chunked, pc, pa, pb, 2, sa, sb, n),
                         CT_KERNEL_OK);
        assert_int_equal(oracle(&k, 0, pr, pa, pb, 2, sa, sb, n), CT_KERNEL_OK);
    }
    char label[160];
    snprintf(label, sizeof label, "%s fused %s%s (pattern %d, n %lld)", what, op_names[op],
             k.has_alpha ? " with alpha" : "", pk, (long long)n);
    /* Bytes equal, except one thing neither path defines: when both inputs are NaN, which
     * one the float32 instruction returns depends on the operand order the compiler picked
     * (the chunked path itself differs there between its vector body and its tail), and a
     * float16 result keeps that NaN's sign. bfloat16 NaNs are all 0xFFFF. */
    uint16_t mag = d == CT_FLOAT16 ? 0x7C00 : 0x7F80;
    for (int64_t i = 0; i < n; i++) {
        uint16_t x = pk == 1 ? a[1] : a[1 + i], y = b[1 + (sb ? i : 0)];
        bool both_nan = (x & 0x7FFF) > mag && (y & 0x7FFF) > mag;
        bool ok =
            o[i + 1] == c[i + 1] || (both_nan && d == CT_FLOAT16 && (o[i + 1] & 0x7FFF) == 0x7E00 &&
                                     (c[i + 1] & 0x7FFF) == 0x7E00);
        if (!ok)
            fail_msg("%s: %s element %lld: fused 0x%04x, chunked 0x%04x (a 0x%04x, b 0x%04x)",
                     label, ct_dtype_name(d), (long long)i, o[i + 1], c[i + 1], x, y);
    }
    assert_elems_equal(d, po, 2, pr, 2, n, label);
    /* nothing written outside [0, n) */
    assert_true(o[0] == (pk == 3 ? a[0] : 0) && o[n + 1] == (pk == 3 ? a[n + 1] : 0));
    free(a);
    free(b);
    free(o);
    free(c);
    free(r);
}

static void test_fused_half(void **state) {
    (void)state;
    static const ct_dtype ds[] = {CT_FLOAT16, CT_BFLOAT16};
    ct_cpu_isa detected = ct_cpu_isa_detected();
    for (int level = 0; level <= (int)detected; level++) {
        assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)level), CT_OK);
        const char *what = ct_cpu_isa_name((ct_cpu_isa)level);
        for (size_t di = 0; di < 2; di++) {
            ct_binary_kernel k;
            assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, ds[di], ds[di],
                                                        ds[di], ds[di], ct_scalar_int(1)),
                             CT_OK);
            /* the fused loops exist exactly where F16C does (AVX2 and up) */
            assert_true((k.fused != NULL) == (level >= (int)CT_ISA_AVX2));
            /* not for mixed operands, other ops, or with flags */
            assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, ds[di], CT_FLOAT32,
                                                        ds[di], ds[di], ct_scalar_int(1)),
                             CT_OK);
            assert_null(k.fused);
            assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV, NULL, ds[di], ds[di],
                                                        ds[di], ds[di], ct_scalar_int(1)),
                             CT_OK);
            assert_null(k.fused);
            assert_int_equal(ct_binary_impl_kernel_init_ex(&k, CT_BINOP_MUL, NULL, ds[di], ds[di],
                                                           ds[di], ds[di], ct_scalar_int(1),
                                                           CT_BINARY_B_IS_SCALAR),
                             CT_OK);
            assert_null(k.fused);

            for (int v = 0; v < 5; v++) {
                /* add, sub (alpha -1), add with alpha 2.5 / a value rounded to the dtype,
                 * mul */
                ct_binop op = v == 4 ? CT_BINOP_MUL : CT_BINOP_ADD;
                ct_scalar al = v == 1   ? ct_scalar_int(-1)
                               : v == 2 ? ct_scalar_float(2.5)
                               : v == 3 ? ct_scalar_float(-0.1)
                                        : ct_scalar_int(1);
                for (int pk = 0; pk < 4; pk++) {
                    for (int64_t n = 0; n <= 100; n++)
                        check_fused_once(ds[di], op, al, n, pk, what);
                    check_fused_once(ds[di], op, al, 1000 + pk, pk, what);
                    /* streamed stores (from 4 MiB of output by default: lowered here, or
                     * these runs took three quarters of the sanitizer builds' test time) */
                    int64_t was = ct_binary_impl_set_stream_bytes(8192);
                    check_fused_once(ds[di], op, al, 4096 + 37 + pk, pk, what);
                    check_fused_once(ds[di], op, al, 9000 + pk, pk, what);
                    ct_binary_impl_set_stream_bytes(was);
                }
            }
        }
    }
    assert_int_equal(ct_cpu_set_isa(detected), CT_OK);
}

/* n == 0 reads and writes nothing: NULL pointers are fine. */
static void test_empty(void **state) {
    (void)state;
    for (int level = 0; level < num_levels(); level++)
        for (int op = 0; op < CT_NUM_BINOPS; op++)
            for (size_t di = 0; di < NUM_MATH; di++) {
                ct_binary_math_loop loop =
                    ct_binary_impl_math_loop_at((ct_binop)op, math_dtypes[di], level);
                if (loop == NULL)
                    continue;
                int64_t s = (int64_t)isz(math_dtypes[di]);
                assert_int_equal(loop(NULL, NULL, NULL, s, s, s, 0, NULL), CT_KERNEL_OK);
                assert_int_equal(loop(NULL, NULL, NULL, s, 0, s, 0, NULL), CT_KERNEL_OK);
                assert_int_equal(loop(NULL, NULL, NULL, s, s, 0, 0, NULL), CT_KERNEL_OK);
            }
    ct_binary_kernel k;
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_FLOAT16, CT_FLOAT16,
                                                CT_FLOAT16, CT_FLOAT16, ct_scalar_int(1)),
                     CT_OK);
    assert_int_equal(ct_binary_impl_kernel_run(&k, NULL, NULL, NULL, 2, 0, 0, 0), CT_KERNEL_OK);
}

/* ---- the rounding rules of float16 / bfloat16 / complex32 computations ------------------ */

/* One element through a prepared kernel at every ISA level; the result as float64 (real
 * part for complex). */
static void run1(ct_binop op, ct_dtype c, ct_dtype od, ct_dtype ad, ct_dtype bd, double x,
                 double y, ct_scalar alpha, unsigned flags, double want) {
    ct_cpu_isa detected = ct_cpu_isa_detected();
    for (int level = 0; level <= (int)detected; level++) {
        assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)level), CT_OK);
        ct_binary_kernel k;
        assert_int_equal(ct_binary_impl_kernel_init_ex(&k, op, NULL, c, od, ad, bd, alpha, flags),
                         CT_OK);
        ct_kernel_value a, b, o;
        double got;
        ct_convert_impl_reference(ad, &a, CT_FLOAT64, &x);
        ct_convert_impl_reference(bd, &b, CT_FLOAT64, &y);
        /* a run of 3 (b broadcast) so the vector loops see it too */
        ct_kernel_value av[3] = {a, a, a}, ov[3];
        assert_int_equal(ct_binary_impl_kernel_run(&k, (char *)ov, (const char *)av,
                                                   (const char *)&b, (int64_t)isz(od),
                                                   (int64_t)sizeof a, 0, 3),
                         CT_KERNEL_OK);
        memcpy(&o, (const char *)ov + 2 * isz(od), isz(od));
        if (ct_dtype_is_complex(od)) {
            ct_kernel_value w;
            ct_convert_impl_reference(CT_COMPLEX128, &w, od, &o);
            got = w.c128[0];
        } else {
            ct_convert_impl_reference(CT_FLOAT64, &got, od, &o);
        }
        if (!((isnan(got) && isnan(want)) || got == want))
            fail_msg("%s %s: %s = %s op %s in %s: got %.17g, want %.17g",
                     ct_cpu_isa_name((ct_cpu_isa)level), op_names[op], ct_dtype_name(od),
                     ct_dtype_name(ad), ct_dtype_name(bd), ct_dtype_name(c), got, want);
    }
    assert_int_equal(ct_cpu_set_isa(detected), CT_OK);
}

static void test_reduced_rules(void **state) {
    (void)state;
    const ct_scalar one = ct_scalar_int(1);
    const double inf = INFINITY;
    /* inputs of other dtypes are rounded to the computation dtype first: 70000 is inf in
     * float16; int32 2049 is 2048; 1e10 is inf, and -inf + inf is NaN */
    run1(CT_BINOP_ADD, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT64, -65504, 70000, one, 0, inf);
    run1(CT_BINOP_ADD, CT_FLOAT16, CT_FLOAT16, CT_INT32, CT_FLOAT16, 2049, 0.5, one, 0, 2048);
    run1(CT_BINOP_ADD, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT64, -inf, 1e10, one, 0, NAN);
    run1(CT_BINOP_ADD, CT_FLOAT16, CT_FLOAT16, CT_INT64, CT_FLOAT16, 4611686018427387904.0, -inf,
         one, 0, NAN);
    run1(CT_BINOP_ADD, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, CT_FLOAT64, -0.115234375, 0.1, one,
         CT_BINARY_B_IS_SCALAR, -0.01513671875); /* add has no float32 scalar path */
    run1(CT_BINOP_MUL, CT_BFLOAT16, CT_BFLOAT16, CT_FLOAT64, CT_BFLOAT16, 0.1, 0.87109375, one, 0,
         0.08740234375);
    /* newest PyTorch's is_scalar(2) paths read b in float32 from its own dtype */
    run1(CT_BINOP_MUL, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, CT_FLOAT64, 0.87109375, 0.1, one,
         CT_BINARY_B_IS_SCALAR, 0.0869140625);
    run1(CT_BINOP_MUL, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, CT_FLOAT64, 0.87109375, 0.1, one, 0,
         0.08740234375);
    run1(CT_BINOP_DIV, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT64, 1, 70000, one,
         CT_BINARY_B_IS_SCALAR, 1.430511474609375e-05);
    run1(CT_BINOP_DIV, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT64, 1, 70000, one, 0, 0);
    /* complex32: -2**31 is -inf+0j first, so 6e-8 * -2**31 is -inf, not -128 */
    run1(CT_BINOP_MUL, CT_COMPLEX32, CT_COMPLEX32, CT_FLOAT16, CT_INT64, 6e-8, -2147483648.0, one,
         0, -inf);
    /* results round to the computation dtype before the out cast */
    run1(CT_BINOP_MUL, CT_FLOAT16, CT_FLOAT32, CT_FLOAT16, CT_FLOAT16, 300, 300, one, 0, inf);
    run1(CT_BINOP_ADD, CT_FLOAT16, CT_FLOAT32, CT_FLOAT16, CT_FLOAT16, 60000, 1.5, one, 0, 60000);
    run1(CT_BINOP_MUL, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT16, CT_FLOAT16, 300, 300, one, 0, inf);
    run1(CT_BINOP_MUL, CT_FLOAT16, CT_FLOAT64, CT_FLOAT16, CT_FLOAT64, 300, 300, one,
         CT_BINARY_B_IS_SCALAR, inf);
    /* trunc / floor with a tensor divisor round the quotient to float16 first (843.82 -> 844);
     * a scalar divisor computes in float32 */
    run1(CT_BINOP_DIV_TRUNC, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, 843, 0.9990234375, one,
         0, 844);
    run1(CT_BINOP_DIV_TRUNC, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, 843, 0.9990234375, one,
         CT_BINARY_B_IS_SCALAR, 843);
    run1(CT_BINOP_DIV_TRUNC, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, CT_BFLOAT16, 254, 0.99609375,
         one, 0, 255);
    run1(CT_BINOP_DIV_FLOOR, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, -843, 0.9990234375,
         one, 0, -844);
    run1(CT_BINOP_DIV_FLOOR, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, 1, -0.0, one, 0, -inf);
    run1(CT_BINOP_DIV_FLOOR, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, CT_FLOAT16, 2047, 0.99951171875,
         one, 0, 2048);
    /* complex32 add: alpha * b rounds to complex32 before the sum (716.25 -> 716) */
    run1(CT_BINOP_ADD, CT_COMPLEX32, CT_COMPLEX32, CT_COMPLEX32, CT_COMPLEX32, 0.0005, 238.75,
         ct_scalar_int(3), 0, 716);
}

/* ---- ct_binary_impl_kernel_init ----------------------------------------------------------------
 */

static void test_kernel_init(void **state) {
    (void)state;
    ct_binary_kernel k;
    ct_scalar one = ct_scalar_int(1);
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_FLOAT8_E4M3FN,
                                                 CT_FLOAT8_E4M3FN, CT_FLOAT8_E4M3FN,
                                                 CT_FLOAT8_E4M3FN, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"add_stub\" not implemented for 'Float8_e4m3fn'");
    assert_null(k.loop);
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, "add_cpu", CT_FLOAT4_E2M1FN_X2,
                                                 CT_FLOAT4_E2M1FN_X2, CT_FLOAT4_E2M1FN_X2,
                                                 CT_FLOAT4_E2M1FN_X2, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"add_cpu\" not implemented for 'Float4_e2m1fn_x2'");
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV_FLOOR, NULL, CT_BOOL, CT_BOOL,
                                                 CT_BOOL, CT_BOOL, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"div_floor_cpu\" not implemented for 'Bool'");
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV_TRUNC, NULL, CT_BOOL, CT_BOOL,
                                                 CT_BOOL, CT_BOOL, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"div_trunc_cpu\" not implemented for 'Bool'");
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV_FLOOR, NULL, CT_COMPLEX64,
                                                 CT_COMPLEX64, CT_COMPLEX64, CT_COMPLEX64, one),
                      CT_ERR_NOT_IMPLEMENTED,
                      "\"div_floor_cpu\" not implemented for 'ComplexFloat'");
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV_TRUNC, NULL, CT_COMPLEX128,
                                                 CT_COMPLEX128, CT_COMPLEX128, CT_COMPLEX128, one),
                      CT_ERR_NOT_IMPLEMENTED,
                      "\"div_trunc_cpu\" not implemented for 'ComplexDouble'");
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV, NULL, CT_INT32, CT_INT32,
                                                 CT_INT32, CT_INT32, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"div_cpu\" not implemented for 'Int'");
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_DIV, NULL, CT_COMPLEX32, CT_COMPLEX32,
                                                 CT_COMPLEX32, CT_COMPLEX32, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"div_cpu\" not implemented for 'ComplexHalf'");
    /* an operand no conversion reaches */
    assert_status_msg(ct_binary_impl_kernel_init(&k, CT_BINOP_MUL, "mul_cpu", CT_FLOAT32,
                                                 CT_FLOAT32, CT_FLOAT4_E2M1FN_X2, CT_FLOAT32, one),
                      CT_ERR_NOT_IMPLEMENTED, "\"mul_cpu\" not implemented for 'Float4_e2m1fn_x2'");
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_NUM_BINOPS, NULL, CT_FLOAT32, CT_FLOAT32,
                                                CT_FLOAT32, CT_FLOAT32, one),
                     CT_ERR_MISUSE);
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_DTYPE_UNDEFINED,
                                                CT_FLOAT32, CT_FLOAT32, CT_FLOAT32, one),
                     CT_ERR_MISUSE);
    assert_int_equal(ct_binary_impl_kernel_init(NULL, CT_BINOP_ADD, NULL, CT_FLOAT32, CT_FLOAT32,
                                                CT_FLOAT32, CT_FLOAT32, one),
                     CT_ERR_MISUSE);

    /* alpha goes through the common dtype (PyTorch's Scalar::to<scalar_t>), with its check */
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_INT8, CT_INT8, CT_INT8,
                                                CT_INT8, ct_scalar_int(1000)),
                     CT_ERR_OVERFLOW);
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_FLOAT16, CT_FLOAT16,
                                                CT_FLOAT16, CT_FLOAT16, ct_scalar_float(0.1)),
                     CT_OK);
    assert_int_equal(k.math, CT_FLOAT32);
    assert_true(k.has_alpha);
    assert_true(k.alpha.f32 == ct_half_to_float(ct_float_to_half(0.1f)));
    assert_non_null(k.cvt_a);
    assert_non_null(k.cvt_b);
    assert_non_null(k.cvt_out);

    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_FLOAT32, CT_FLOAT32,
                                                CT_INT32, CT_FLOAT32, ct_scalar_int(1)),
                     CT_OK);
    assert_false(k.has_alpha);
    assert_non_null(k.cvt_a);
    assert_null(k.cvt_b);
    assert_null(k.cvt_out);
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_INT64, CT_INT64,
                                                CT_INT64, CT_INT64, ct_scalar_int(-1)),
                     CT_OK);
    assert_true(k.has_alpha && k.alpha.i64 == -1);
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_BOOL, CT_BOOL, CT_BOOL,
                                                CT_BOOL, ct_scalar_bool(true)),
                     CT_OK);
    assert_false(k.has_alpha);
    /* complex: alpha always applied (PyTorch multiplies out even 1+0j) */
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_ADD, NULL, CT_COMPLEX64, CT_COMPLEX64,
                                                CT_COMPLEX64, CT_COMPLEX64, ct_scalar_int(1)),
                     CT_OK);
    assert_true(k.has_alpha && k.alpha.c64[0] == 1.0f && k.alpha.c64[1] == 0.0f);
    /* ops other than add ignore alpha */
    assert_int_equal(ct_binary_impl_kernel_init(&k, CT_BINOP_MUL, NULL, CT_INT8, CT_INT8, CT_INT8,
                                                CT_INT8, ct_scalar_int(1000)),
                     CT_OK);
    assert_false(k.has_alpha);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_availability),
        cmocka_unit_test(test_integer_division),
        cmocka_unit_test(test_float_division),
        cmocka_unit_test(test_bool_and_wrap),
        cmocka_unit_test(test_float_and_complex_arith),
        cmocka_unit_test(test_reduced_rules),
        cmocka_unit_test(test_kernel_init),
        cmocka_unit_test(test_loops_vs_reference),
        cmocka_unit_test(test_kernel_mixed),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_fused_half),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
