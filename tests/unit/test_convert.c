/* Element conversions (ctensor/convert.h). Expected values come from PyTorch's conversion
 * and float8 tables (written out here), from NumPy 1.24 on x86-64 for the unsigned targets PyTorch
 * 1.13 lacks, and from the one-element reference converter, which every loop of every ISA
 * level must match byte for byte. tests/python/test_convert_vs_torch.py compares with
 * PyTorch itself. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"
#include "dtype/convert/convert_impl.h"

static uint32_t f2u(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
static float u2f(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}
static double u2d(uint64_t u) {
    double x;
    memcpy(&x, &u, 8);
    return x;
}

static size_t isz(ct_dtype d) { return ct_dtype_itemsize(d); }

static bool is_f8(ct_dtype d) { return d >= CT_FLOAT8_E4M3FN && d <= CT_FLOAT8_E8M0FNU; }

/* The ISA levels this CPU runs; each test that loops over them restores the detected one. */
static int num_levels(void) { return (int)ct_cpu_isa_detected() + 1; }

/* ---- float -> int, int -> int, int -> float -------------------------------------------- */

/* Convert one value through ct_convert (and, for the record, the reference). */
static void convert1(ct_dtype dt, void *out, ct_dtype st, const void *in) {
    unsigned char ref[16];
    assert_int_equal(ct_convert(dt, out, st, in, 1), CT_OK);
    ct_convert_impl_reference(dt, ref, st, in);
    assert_memory_equal(out, ref, isz(dt));
}

/* x (as float32 or float64) converted to the integer dtype dt, read back little-endian:
 * signed results sign-extended, uint64 as its bits. */
static int64_t to_int(ct_dtype dt, double x, ct_dtype src) {
    unsigned char in[8], out[8];
    float f = (float)x;
    if (src == CT_FLOAT32)
        memcpy(in, &f, 4);
    else
        memcpy(in, &x, 8);
    convert1(dt, out, src, in);
    size_t size = isz(dt);
    uint64_t u = (ct_dtype_is_signed(dt) && (out[size - 1] & 0x80)) ? UINT64_MAX : 0;
    for (size_t k = size; k-- > 0;)
        u = (u << 8) | out[k];
    return (int64_t)u;
}

static void test_spec_float_to_int(void **state) {
    (void)state;
    /* PyTorch's observed x86-64 results: value, int64, int32, int16, int8, uint8 */
    static const struct {
        double x;
        int64_t i64, i32, i16, i8, u8;
    } rows[] = {
        {300.0, 300, 300, 300, 44, 44},
        {-300.0, -300, -300, -300, -44, 212},
        {70000.0, 70000, 70000, 4464, 112, 112},
        {3e9, 3000000000, INT32_MIN, 0, 0, 0},
        {-3e9, -3000000000, INT32_MIN, 0, 0, 0},
        {1e10, 10000000000, INT32_MIN, 0, 0, 0},
        {NAN, INT64_MIN, INT32_MIN, 0, 0, 0},
        {INFINITY, INT64_MIN, INT32_MIN, 0, 0, 0},
        {-INFINITY, INT64_MIN, INT32_MIN, 0, 0, 0},
        {-1.0, -1, -1, -1, -1, 255},
        {255.5, 255, 255, 255, -1, 255},
        {256.0, 256, 256, 256, 0, 0},
        {1.7, 1, 1, 1, 1, 1},
        {-1.7, -1, -1, -1, -1, 255},
    };
    ct_dtype srcs[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            double x = rows[i].x;
            assert_true(to_int(CT_INT64, x, srcs[s]) == rows[i].i64);
            assert_true(to_int(CT_INT32, x, srcs[s]) == rows[i].i32);
            assert_true(to_int(CT_INT16, x, srcs[s]) == rows[i].i16);
            assert_true(to_int(CT_INT8, x, srcs[s]) == rows[i].i8);
            assert_true(to_int(CT_UINT8, x, srcs[s]) == rows[i].u8);
        }
        assert_true(to_int(CT_INT64, 1e19, srcs[s]) == INT64_MIN);
        assert_true(to_int(CT_INT64, 0x1p63, srcs[s]) == INT64_MIN);
        assert_true(to_int(CT_INT64, -0x1p63, srcs[s]) == INT64_MIN);
    }
    /* Note [float to int] for the unsigned types, as NumPy 1.24 gives them on x86-64 */
    static const struct {
        double x;
        int64_t u16, u64_bits;
    } un[] = {
        {-1.7, 65535, -1},
        {65536.0, 0, 65536},
        {-70000.0, 61072, -70000},
        {0x1p31, 0, 0x80000000},
        {-3e9, 0, -3000000000},
        {0x1p63, 0, INT64_MIN}, /* 2^63 is exact in uint64 */
        {0x1p64, 0, 0},         /* t64(2^63) fails, bit 63 flipped */
        {1e19, 0, (int64_t)UINT64_C(10000000000000000000)},
        {-1e19, 0, INT64_MIN},
        {1e20, 0, 0},
        {NAN, 0, INT64_MIN},
        {INFINITY, 0, 0},
        {-INFINITY, 0, INT64_MIN},
    };
    for (size_t i = 0; i < sizeof un / sizeof un[0]; i++) {
        assert_true(to_int(CT_UINT16, un[i].x, CT_FLOAT64) == un[i].u16);
        assert_true(to_int(CT_UINT64, un[i].x, CT_FLOAT64) == un[i].u64_bits);
    }
    assert_true(to_int(CT_UINT64, 0x1.0000000000001p63, CT_FLOAT64) ==
                (int64_t)UINT64_C(0x8000000000000800));
    /* uint32: low 32 bits of t64 (agrees with NumPy on [-2^31, 2^32) only) */
    assert_true(to_int(CT_UINT32, 3e9, CT_FLOAT64) == 3000000000);
    assert_true(to_int(CT_UINT32, -1.7, CT_FLOAT64) == 4294967295);
    assert_true(to_int(CT_UINT32, 0x1p32, CT_FLOAT64) == 0);
    assert_true(to_int(CT_UINT32, -3e9, CT_FLOAT64) == 1294967296);
    assert_true(to_int(CT_UINT32, 1e10, CT_FLOAT64) == 1410065408);
    assert_true(to_int(CT_UINT32, NAN, CT_FLOAT64) == 0);
    /* half and bfloat16 sources widen first: f16 [-1, -2.5, 300] -> u8 [255, 254, 44];
     * bf16 [-1, 300, 1e10] -> i8 [-1, 44, 0] */
    uint16_t h[3] = {ct_float_to_half(-1.0f), ct_float_to_half(-2.5f), ct_float_to_half(300.0f)};
    uint16_t b[3] = {ct_float_to_bfloat16(-1.0f), ct_float_to_bfloat16(300.0f),
                     ct_float_to_bfloat16(1e10f)};
    uint8_t u8[3];
    int8_t i8[3];
    assert_int_equal(ct_convert(CT_UINT8, u8, CT_FLOAT16, h, 3), CT_OK);
    assert_int_equal(ct_convert(CT_INT8, i8, CT_BFLOAT16, b, 3), CT_OK);
    assert_true(u8[0] == 255 && u8[1] == 254 && u8[2] == 44);
    assert_true(i8[0] == -1 && i8[1] == 44 && i8[2] == 0);
}

static void test_spec_int_and_bool(void **state) {
    (void)state;
    int64_t src[8] = {200, -200, 256, (INT64_C(1) << 40) + 5, -1, -256, 300, 0};
    int8_t i8[8];
    uint8_t u8[8];
    assert_int_equal(ct_convert(CT_INT8, i8, CT_INT64, src, 8), CT_OK);
    assert_int_equal(ct_convert(CT_UINT8, u8, CT_INT64, src, 8), CT_OK);
    int8_t want_i8[8] = {-56, 56, 0, 5, -1, 0, 44, 0};
    uint8_t want_u8[8] = {200, 56, 0, 5, 255, 0, 44, 0};
    assert_memory_equal(i8, want_i8, 8);
    assert_memory_equal(u8, want_u8, 8);
    /* int -> float: RNE; to float16 through float32 */
    int64_t big[5] = {(INT64_C(1) << 24) + 1, 65504, 65520, 100000, 2049};
    float f[5];
    uint16_t hf[5];
    assert_int_equal(ct_convert(CT_FLOAT32, f, CT_INT64, big, 5), CT_OK);
    assert_true(f[0] == 16777216.0f);
    assert_int_equal(ct_convert(CT_FLOAT16, hf, CT_INT64, big, 5), CT_OK);
    uint16_t want_h[5] = {0x7C00, 0x7BFF, 0x7C00, 0x7C00, 0x6800};
    assert_memory_equal(hf, want_h, sizeof want_h);
    /* bool: any nonzero byte is true; -0.0 is false, NaN true; bool -> bool writes 0/1 */
    uint8_t bools[4] = {0, 1, 2, 255}, out[4];
    int32_t ints[4];
    assert_int_equal(ct_convert(CT_INT32, ints, CT_BOOL, bools, 4), CT_OK);
    assert_true(ints[0] == 0 && ints[1] == 1 && ints[2] == 1 && ints[3] == 1);
    assert_int_equal(ct_convert(CT_BOOL, out, CT_BOOL, bools, 4), CT_OK);
    assert_true(out[0] == 0 && out[1] == 1 && out[2] == 1 && out[3] == 1);
    float fz[4] = {-0.0f, NAN, 0.0f, 1e-45f};
    assert_int_equal(ct_convert(CT_BOOL, out, CT_FLOAT32, fz, 4), CT_OK);
    assert_true(out[0] == 0 && out[1] == 1 && out[2] == 0 && out[3] == 1);
    /* complex -> bool looks at both parts (newest PyTorch); complex -> real the real part */
    ct_complex64 c[3] = {{0.0f, 1.0f}, {0.0f, -0.0f}, {2.5f, 7.0f}};
    assert_int_equal(ct_convert(CT_BOOL, out, CT_COMPLEX64, c, 3), CT_OK);
    assert_true(out[0] == 1 && out[1] == 0 && out[2] == 1);
    assert_int_equal(ct_convert(CT_INT32, ints, CT_COMPLEX64, c, 3), CT_OK);
    assert_true(ints[0] == 0 && ints[1] == 0 && ints[2] == 2);
    /* complex128 -> complex32 rounds each part double -> float -> half */
    ct_complex128 cd = {1.0 + 0x1p-11 + 0x1p-40, -(1.0 + 0x1p-11 + 0x1p-40)};
    ct_complex32 ch;
    assert_int_equal(ct_convert(CT_COMPLEX32, &ch, CT_COMPLEX128, &cd, 1), CT_OK);
    assert_true(ch.re == 0x3C00 && ch.im == 0xBC00);
    /* complex32 -> float16 keeps the stored real part; float16 -> complex32 canonicalises */
    ct_complex32 cn = {0x7C01, 0x3C00};
    uint16_t r16;
    assert_int_equal(ct_convert(CT_FLOAT16, &r16, CT_COMPLEX32, &cn, 1), CT_OK);
    assert_int_equal(r16, 0x7C01);
    assert_int_equal(ct_convert(CT_COMPLEX32, &ch, CT_FLOAT16, &r16, 1), CT_OK);
    assert_true(ch.re == 0x7E00 && ch.im == 0);
}

/* ---- float16, bfloat16 ------------------------------------------------------------- */

static void test_spec_half_bfloat16(void **state) {
    (void)state;
    assert_int_equal(ct_float_to_half(0x1p-25f), 0x0000); /* tie to even */
    assert_int_equal(ct_float_to_half(u2f(f2u(0x1p-25f) + 1)), 0x0001);
    assert_int_equal(ct_float_to_half(3 * 0x1p-26f), 0x0001);
    assert_int_equal(ct_float_to_half(3 * 0x1p-25f), 0x0002); /* 1.5 ulps: tie, even */
    assert_int_equal(ct_float_to_half(65504.0f), 0x7BFF);
    assert_int_equal(ct_float_to_half(u2f(f2u(65520.0f) - 1)), 0x7BFF);
    assert_int_equal(ct_float_to_half(65520.0f), 0x7C00);
    assert_int_equal(ct_float_to_half(-1e9f), 0xFC00);
    assert_int_equal(ct_float_to_half(-0.0f), 0x8000);
    assert_int_equal(ct_float_to_half(0x1p-14f), 0x0400);
    assert_int_equal(ct_float_to_half(u2f(0x7F800001)), 0x7E00);
    assert_int_equal(ct_float_to_half(u2f(0xFFFFFFFF)), 0xFE00);
    assert_int_equal(f2u(ct_half_to_float(0x7C01)), 0x7FC02000); /* quietened, as vcvtph2ps */
    assert_int_equal(f2u(ct_half_to_float(0xFE00)), 0xFFC00000);
    assert_true(ct_half_to_float(0x0001) == 0x1p-24f);
    assert_true(ct_half_to_float(0x7BFF) == 65504.0f);
    /* double rounding through float32: 1 + 2^-11 + 2^-40 -> 1 + 2^-11 -> 1.0 (even) */
    double d = 1.0 + 0x1p-11 + 0x1p-40;
    uint16_t h;
    assert_int_equal(ct_convert(CT_FLOAT16, &h, CT_FLOAT64, &d, 1), CT_OK);
    assert_int_equal(h, 0x3C00);
    assert_int_equal(ct_float_to_half((float)d), 0x3C00);
    assert_int_equal(ct_float_to_half(1.0f + 0x1p-11f + 0x1p-22f), 0x3C01);
    /* float64 -> float32: the C cast, RNE, overflow to inf, underflow to subnormal/zero */
    double dd[6] = {1e300, -DBL_MAX, 1e-300, 0x1.8p-149, 1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-40};
    float ff[6];
    assert_int_equal(ct_convert(CT_FLOAT32, ff, CT_FLOAT64, dd, 6), CT_OK);
    assert_true(ff[0] == INFINITY && ff[1] == -INFINITY && ff[2] == 0.0f);
    assert_true(ff[3] == 0x1p-148f && ff[4] == 1.0f && ff[5] == 1.0f + 0x1p-23f);
    /* bfloat16 */
    assert_int_equal(ct_float_to_bfloat16(1.0f + 0x1p-8f), 0x3F80);
    assert_int_equal(ct_float_to_bfloat16(1.0f + 3 * 0x1p-8f), 0x3F82);
    assert_int_equal(ct_float_to_bfloat16(3.4e38f), 0x7F80);
    assert_int_equal(ct_float_to_bfloat16(-3.4e38f), 0xFF80);
    assert_int_equal(ct_float_to_bfloat16(3.3895313892515355e38f), 0x7F7F);
    assert_int_equal(ct_float_to_bfloat16(0x1p-133f), 0x0001);
    assert_int_equal(ct_float_to_bfloat16(-0.0f), 0x8000);
    assert_int_equal(f2u(ct_bfloat16_to_float(0x7F81)), 0x7F810000); /* no quietening */
    /* Note [bfloat16 NaN]: 0xFFFF for every NaN, from every source */
    uint32_t nans[4] = {0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ct_float_to_bfloat16(u2f(nans[i])), 0xFFFF);
    double dn = NAN;
    uint16_t hn = 0x7E00, bn;
    ct_complex64 cn = {NAN, 0.0f};
    assert_int_equal(ct_convert(CT_BFLOAT16, &bn, CT_FLOAT64, &dn, 1), CT_OK);
    assert_int_equal(bn, 0xFFFF);
    assert_int_equal(ct_convert(CT_BFLOAT16, &bn, CT_FLOAT16, &hn, 1), CT_OK);
    assert_int_equal(bn, 0xFFFF);
    assert_int_equal(ct_convert(CT_BFLOAT16, &bn, CT_COMPLEX64, &cn, 1), CT_OK);
    assert_int_equal(bn, 0xFFFF);
}

/* Every float16 and bfloat16 pattern decodes to its value (checked with ldexp) and encodes
 * back to itself, except NaNs, which become the canonical ones. */
static void test_half_bfloat16_all_patterns(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t e = (h >> 10) & 31, m = h & 0x3FF;
        float f = ct_half_to_float((uint16_t)h);
        if (e == 31 && m != 0) {
            assert_true(isnan(f));
            assert_int_equal(ct_float_to_half(f), (h & 0x8000) | 0x7E00);
            continue;
        }
        double want = e == 31 ? INFINITY : e == 0 ? ldexp(m, -24) : ldexp(m + 1024, (int)e - 25);
        assert_true(fabs((double)f) == want);
        assert_int_equal(signbit(f) != 0, (h & 0x8000) != 0);
        assert_int_equal(ct_float_to_half(f), h);
        float b = ct_bfloat16_to_float((uint16_t)h);
        assert_int_equal(f2u(b), h << 16);
        assert_int_equal(ct_float_to_bfloat16(b), isnan(b) ? 0xFFFF : h);
    }
}

/* ---- float8 ------------------------------------------------------------------------ */

static const ct_dtype f8s[5] = {CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2, CT_FLOAT8_E4M3FNUZ,
                                CT_FLOAT8_E5M2FNUZ, CT_FLOAT8_E8M0FNU};

static void test_spec_float8_encode(void **state) {
    (void)state;
    /* PyTorch's encodings of selected values: x, e4m3fn, e5m2, e4m3fnuz, e5m2fnuz */
    static const struct {
        float x;
        uint8_t c[4];
    } rows[] = {
        {0.0f, {0x00, 0x00, 0x00, 0x00}},      {-0.0f, {0x80, 0x80, 0x00, 0x00}},
        {1.0f, {0x38, 0x3C, 0x40, 0x40}},      {-1.0f, {0xB8, 0xBC, 0xC0, 0xC0}},
        {0.1f, {0x1D, 0x2E, 0x25, 0x32}},      {240.0f, {0x77, 0x5C, 0x7F, 0x60}},
        {248.0f, {0x78, 0x5C, 0x80, 0x60}},    {448.0f, {0x7E, 0x5F, 0x80, 0x63}},
        {464.0f, {0x7E, 0x5F, 0x80, 0x63}},    {465.0f, {0x7F, 0x5F, 0x80, 0x63}},
        {480.0f, {0x7F, 0x60, 0x80, 0x64}},    {57344.0f, {0x7F, 0x7B, 0x80, 0x7F}},
        {61439.0f, {0x7F, 0x7B, 0x80, 0x7F}},  {61440.0f, {0x7F, 0x7C, 0x80, 0x80}},
        {INFINITY, {0x7F, 0x7C, 0x80, 0x80}},  {-INFINITY, {0xFF, 0xFC, 0x80, 0x80}},
        {NAN, {0x7F, 0x7F, 0x80, 0x80}},       {0x1p-10f, {0x00, 0x14, 0x01, 0x18}},
        {-0x1p-20f, {0x80, 0x80, 0x00, 0x00}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        for (int k = 0; k < 4; k++) {
            uint8_t got = ct_float_to_float8(f8s[k], rows[i].x), arr;
            assert_int_equal(got, rows[i].c[k]);
            convert1(f8s[k], &arr, CT_FLOAT32, &rows[i].x);
            assert_int_equal(arr, rows[i].c[k]);
        }
    }
    /* decoded values of the examples */
    assert_true(ct_float8_to_float(CT_FLOAT8_E4M3FN, 0x1D) == 0.1015625f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E5M2, 0x2E) == 0.09375f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E4M3FN, 0x7E) == 448.0f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E4M3FN, 0x08) == 0x1p-6f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E4M3FN, 0x01) == 0x1p-9f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E5M2, 0x7B) == 57344.0f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E5M2, 0x01) == 0x1p-16f);
    assert_true(isinf(ct_float8_to_float(CT_FLOAT8_E5M2, 0xFC)));
    assert_true(ct_float8_to_float(CT_FLOAT8_E4M3FNUZ, 0x7F) == 240.0f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E4M3FNUZ, 0x01) == 0x1p-10f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E5M2FNUZ, 0x7F) == 57344.0f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E5M2FNUZ, 0x01) == 0x1p-17f);
    /* NaN patterns as PyTorch's decoders produce them */
    assert_int_equal(f2u(ct_float8_to_float(CT_FLOAT8_E4M3FN, 0xFF)), 0xFFF00000);
    assert_int_equal(f2u(ct_float8_to_float(CT_FLOAT8_E5M2, 0x7D)), 0x7FE00000);
    assert_int_equal(f2u(ct_float8_to_float(CT_FLOAT8_E4M3FNUZ, 0x80)), 0x7F800001);
    assert_int_equal(f2u(ct_float8_to_float(CT_FLOAT8_E8M0FNU, 0xFF)), 0x7F800001);
    /* e8m0fnu examples */
    static const struct {
        float x;
        uint8_t c;
    } e8[] = {
        {1.0f, 0x7F},     {1.4f, 0x7F},      {1.5f, 0x80},      {3.0f, 0x81},        {0.75f, 0x7F},
        {-4.0f, 0x81},    {0x1p-126f, 0x01}, {0x1p127f, 0xFE},  {FLT_MAX, 0xFF},     {0.0f, 0x00},
        {INFINITY, 0xFF}, {NAN, 0xFF},       {0x1p-127f, 0x00}, {0x1.8p-127f, 0x01},
    };
    for (size_t i = 0; i < sizeof e8 / sizeof e8[0]; i++)
        assert_int_equal(ct_float_to_float8(CT_FLOAT8_E8M0FNU, e8[i].x), e8[i].c);
    assert_true(ct_float8_to_float(CT_FLOAT8_E8M0FNU, 0x00) == 0x1p-127f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E8M0FNU, 0xFE) == 0x1p127f);
    assert_true(ct_float8_to_float(CT_FLOAT8_E8M0FNU, 0x7F) == 1.0f);
    /* not a float8 format */
    assert_int_equal(ct_float_to_float8(CT_FLOAT32, 1.0f), 0);
    assert_int_equal(ct_float_to_float8((ct_dtype)99, 1.0f), 0);
    assert_true(isnan(ct_float8_to_float(CT_FLOAT16, 0x38)));
    assert_true(isnan(ct_float8_to_float(CT_DTYPE_UNDEFINED, 0x38)));
}

/* All 256 codes of each format: decode, check the value independently, encode back. */
static void test_float8_all_codes(void **state) {
    (void)state;
    static const struct { int mbits, bias; } fmt[4] = {{3, 7}, {2, 15}, {3, 8}, {2, 16}};
    for (int k = 0; k < 5; k++) {
        for (int c = 0; c < 256; c++) {
            float f = ct_float8_to_float(f8s[k], (uint8_t)c);
            uint8_t back = ct_float_to_float8(f8s[k], f);
            if (k == 4) { /* e8m0: 2^(c-127), c = 0 included; 0xFF NaN */
                if (c == 0xFF)
                    assert_true(isnan(f));
                else
                    assert_true(f == ldexpf(1.0f, c - 127));
                assert_int_equal(back, c);
                continue;
            }
            int mb = fmt[k].mbits, e = (c & 0x7F) >> mb, m = c & ((1 << mb) - 1);
            bool nan = (k == 0 && (c & 0x7F) == 0x7F) || (k == 1 && (c & 0x7F) > 0x7C) ||
                       (k >= 2 && c == 0x80);
            if (nan) {
                assert_true(isnan(f));
                /* e5m2's three NaN codes canonicalise to 0x7F | sign; the others are the
                 * format's only NaN codes already */
                assert_int_equal(back, k == 1 ? (c & 0x80) | 0x7F : c);
                continue;
            }
            if (k == 1 && (c & 0x7F) == 0x7C) {
                assert_true(isinf(f));
            } else {
                double v = e == 0 ? ldexp(m, 1 - fmt[k].bias - mb)
                                  : ldexp(m + (1 << mb), e - fmt[k].bias - mb);
                assert_true(fabs((double)f) == v);
            }
            assert_int_equal(signbit(f) != 0, (c & 0x80) != 0);
            assert_int_equal(back, c);
        }
    }
}

/* ---- float4 ----------------------------------------------------------------------------- */

static void test_float4_pack_unpack(void **state) {
    (void)state;
    static const float vals[16] = {0,     0.5f,  1,  1.5f,  2,  3,  4,  6,
                                   -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
    uint8_t packed[8];
    float back[16];
    assert_int_equal(ct_float4_pack(packed, vals, 16), CT_OK);
    for (int i = 0; i < 8; i++) /* element 2k in the low nibble: codes 2k, 2k+1 */
        assert_int_equal(packed[i], (uint8_t)((2 * i) | ((2 * i + 1) << 4)));
    assert_int_equal(ct_float4_unpack(back, packed, 16), CT_OK);
    assert_memory_equal(back, vals, sizeof vals);
    /* rounding: ties to even, saturation at 6 */
    static const struct {
        float x;
        uint8_t code;
    } r[] = {
        {0.25f, 0x0},     {0.26f, 0x1}, {0.75f, 0x2}, {1.25f, 0x2},
        {1.75f, 0x4},     {2.5f, 0x4},  {3.5f, 0x6},  {5.0f, 0x6},
        {5.1f, 0x7},      {7.0f, 0x7},  {1e30f, 0x7}, {INFINITY, 0x7},
        {-INFINITY, 0xF}, {-0.1f, 0x8}, {-5.0f, 0xE}, {0x1p-140f, 0x0},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        uint8_t b = 0xAA;
        assert_int_equal(ct_float4_pack(&b, &r[i].x, 1), CT_OK);
        assert_int_equal(b, r[i].code); /* odd n: the high nibble is 0 */
    }
    float two[2] = {1.0f, -2.0f};
    assert_int_equal(ct_float4_pack(packed, two, 2), CT_OK);
    assert_int_equal(packed[0], 0xC2);
    float three[3];
    uint8_t in[2] = {0x72, 0xF5};
    assert_int_equal(ct_float4_unpack(three, in, 3), CT_OK);
    assert_true(three[0] == 1.0f && three[1] == 6.0f && three[2] == 3.0f);
    /* errors: NaN (nothing written), NULL */
    float withnan[3] = {1.0f, NAN, 2.0f};
    memset(packed, 0x5A, sizeof packed);
    assert_status_msg(ct_float4_pack(packed, withnan, 3), CT_ERR_VALUE,
                      "float4_e2m1fn_x2 cannot represent NaN");
    assert_int_equal(packed[0], 0x5A);
    assert_int_equal(packed[1], 0x5A);
    assert_int_equal(ct_float4_pack(packed, NULL, 1), CT_ERR_MISUSE);
    assert_int_equal(ct_float4_pack(NULL, vals, 1), CT_ERR_MISUSE);
    assert_int_equal(ct_float4_unpack(back, NULL, 1), CT_ERR_MISUSE);
    assert_int_equal(ct_float4_unpack(NULL, packed, 1), CT_ERR_MISUSE);
    assert_int_equal(ct_float4_pack(NULL, NULL, 0), CT_OK);
    assert_int_equal(ct_float4_unpack(NULL, NULL, 0), CT_OK);
}

/* ---- errors ------------------------------------------------------------------------------ */

static void test_errors(void **state) {
    (void)state;
    unsigned char dst[16], src[16] = {0x12, 0x34};
    const char *msg = "\"copy_\" not implemented for 'Float4_e2m1fn_x2'";
    for (int d = 0; d < CT_NUM_DTYPES; d++) {
        if (d == CT_FLOAT4_E2M1FN_X2)
            continue;
        memset(dst, 0xEE, sizeof dst);
        assert_status_msg(ct_convert(CT_FLOAT4_E2M1FN_X2, dst, (ct_dtype)d, src, 1),
                          CT_ERR_NOT_IMPLEMENTED, msg);
        assert_status_msg(ct_convert((ct_dtype)d, dst, CT_FLOAT4_E2M1FN_X2, src, 1),
                          CT_ERR_NOT_IMPLEMENTED, msg);
        assert_status_msg(ct_convert_strided((ct_dtype)d, dst, 1, CT_FLOAT4_E2M1FN_X2, src, 1, 0),
                          CT_ERR_NOT_IMPLEMENTED, msg);
        assert_int_equal(dst[0], 0xEE);
    }
    assert_int_equal(ct_convert(CT_FLOAT4_E2M1FN_X2, dst, CT_FLOAT4_E2M1FN_X2, src, 2), CT_OK);
    assert_true(dst[0] == 0x12 && dst[1] == 0x34);
    ct_dtype bad[4] = {CT_DTYPE_UNDEFINED, CT_NUM_DTYPES, (ct_dtype)100, (ct_dtype)-7};
    char want[64];
    for (int i = 0; i < 4; i++) {
        snprintf(want, sizeof want, "ct_convert: invalid dtype value %d", (int)bad[i]);
        assert_status_msg(ct_convert(bad[i], dst, CT_FLOAT32, src, 1), CT_ERR_MISUSE, want);
        assert_int_equal(ct_convert(CT_FLOAT32, dst, bad[i], src, 1), CT_ERR_MISUSE);
        assert_int_equal(ct_convert(CT_FLOAT32, dst, bad[i], src, 0), CT_ERR_MISUSE);
        snprintf(want, sizeof want, "ct_convert_strided: invalid dtype value %d", (int)bad[i]);
        assert_status_msg(ct_convert_strided(bad[i], dst, 4, CT_FLOAT32, src, 4, 1), CT_ERR_MISUSE,
                          want);
    }
    assert_int_equal(ct_convert(CT_FLOAT32, NULL, CT_INT32, src, 1), CT_ERR_MISUSE);
    assert_int_equal(ct_last_error_kind(), CT_ERR_MISUSE);
    assert_int_equal(ct_convert(CT_FLOAT32, dst, CT_INT32, NULL, 1), CT_ERR_MISUSE);
    assert_int_equal(ct_convert_strided(CT_FLOAT32, NULL, 4, CT_INT32, src, 4, 3), CT_ERR_MISUSE);
    assert_int_equal(ct_convert(CT_FLOAT32, NULL, CT_INT32, NULL, 0), CT_OK);
}

/* ---- every pair, every ISA level, against the reference --------------------------------- */

static uint64_t rng = 0x2545F4914F6CDD1Du;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* clang-format off */
static const float special_f32[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 1.7f, -1.7f, 255.5f, 256.0f,
    300.0f, -300.0f, 70000.0f, -70000.0f, 65504.0f, 65519.0f, 65520.0f, 65536.0f, 448.0f,
    464.0f, 465.0f, 480.0f, 240.0f, 248.0f, 57344.0f, 61439.0f, 61440.0f, 0.1f, 0x1p-6f,
    0x1p-7f, 0x1p-9f, 0x1p-10f, 0x1p-14f, 0x1p-15f, 0x1p-16f, 0x1p-17f, 0x1p-20f, 0x1p-24f,
    0x1p-25f, 0x1.000002p-25f, 3 * 0x1p-26f, 0x1p-126f, 0x1p-127f, 0x1p-149f, FLT_MAX,
    -FLT_MAX, 3.4e38f, 3e9f, -3e9f, 1e10f, -1e10f, 0x1p31f, -0x1p31f, 2147483520.0f, 0x1p32f,
    4294967040.0f, 0x1p63f, -0x1p63f, 0x1p64f, 1e19f, -1e19f, 1e20f, 16777216.0f, 1.4f,
    3.0f, 0.75f, 0x1p127f, 6.0f, 5.0f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-11f,
    INFINITY, -INFINITY, 127.5f, -128.5f, 32767.5f, -32768.5f, 65535.5f, 4294967296.0f,
};
static const uint32_t special_f32_bits[] = {0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF,
                                            0xFF800001, 0x7FA00000, 0x00000001, 0x807FFFFF};
static const double special_f64[] = {
    1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-8 + 0x1p-40, 2147483647.9, -2147483648.9,
    -2147483649.0, 2147483648.5, 0x1p63 - 1024, 0x1p64 - 2048, 0x1p53 + 2, -0x1p63 - 4096,
    1e300, -1e300, 4.9e-324, DBL_MAX, 65519.999, 1e-300, 0x1.000001p0, 4294967295.7,
    -4294967296.5, 18446744073709549568.0, 0x1.0000000000001p63,
};
static const uint64_t special_f64_bits[] = {0x7FF0000000000001, 0x7FF8000000000001,
                                            0xFFF8000000000000, 0x7FF4000000000000};
static const int64_t special_int[] = {
    0, 1, -1, 127, 128, 255, 256, -128, -129, 200, -200, 300, 32767, 32768, 65535, 65536,
    70000, 2147483647, 2147483648, -2147483648LL, -2147483649LL, 4294967295LL, 4294967296LL,
    (1LL << 40) + 5, (1LL << 53) + 1, INT64_MAX, INT64_MIN, 16777217, 65504, 65519, 65520,
    100000, 2049, -65520, (1LL << 62) + 1,
};
/* clang-format on */

#define NSPECIAL(a) (sizeof(a) / sizeof((a)[0]))

/* Source values of a dtype, as raw elements: every pattern of the 8- and 16-bit float
 * formats, specials plus random bit patterns for the others. Returns the count. */
static size_t make_values(ct_dtype dt, unsigned char **out) {
    size_t size = isz(dt), cap = 70000, n = 0;
    unsigned char *buf = malloc(cap * size);
    assert_non_null(buf);
#define PUSH(ptr) (memcpy(buf + size * n++, (ptr), size))
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16) {
        for (uint32_t h = 0; h < 0x10000; h++) {
            uint16_t v = (uint16_t)h;
            PUSH(&v);
        }
    } else if (is_f8(dt) || dt == CT_BOOL) {
        for (uint32_t h = 0; h < 0x100; h++) {
            uint8_t v = (uint8_t)h;
            PUSH(&v);
        }
    } else if (dt == CT_FLOAT32 || dt == CT_FLOAT64) {
        for (size_t i = 0; i < NSPECIAL(special_f32) + NSPECIAL(special_f32_bits) + 3000; i++) {
            float f = i < NSPECIAL(special_f32) ? special_f32[i]
                      : i < NSPECIAL(special_f32) + NSPECIAL(special_f32_bits)
                          ? u2f(special_f32_bits[i - NSPECIAL(special_f32)])
                          : u2f((uint32_t)next_u64());
            double d = f;
            if (dt == CT_FLOAT32)
                PUSH(&f);
            else
                PUSH(&d);
        }
        for (size_t i = 0; dt == CT_FLOAT64 && i < NSPECIAL(special_f64) + 3000; i++) {
            double d = i < NSPECIAL(special_f64) ? special_f64[i] : u2d(next_u64());
            PUSH(&d);
            d = -d;
            PUSH(&d);
        }
        for (size_t i = 0; dt == CT_FLOAT64 && i < NSPECIAL(special_f64_bits); i++) {
            double d = u2d(special_f64_bits[i]);
            PUSH(&d);
        }
    } else if (ct_dtype_is_complex(dt)) {
        /* pairs of a few interesting parts, then random ones */
        static const uint32_t parts[] = {0x00000000, 0x80000000, 0x3F800000, 0xBF800000,
                                         0x7FC00000, 0x7F800001, 0x7F800000, 0x00000001,
                                         0x477FF000, 0x4F000000, 0x3F000001, 0x40200000};
        for (size_t i = 0; i < NSPECIAL(parts) * NSPECIAL(parts) + 2000; i++) {
            bool fixed = i < NSPECIAL(parts) * NSPECIAL(parts);
            float re = u2f(fixed ? parts[i / NSPECIAL(parts)] : (uint32_t)next_u64());
            float im = u2f(fixed ? parts[i % NSPECIAL(parts)] : (uint32_t)next_u64());
            ct_complex32 c32 = {ct_float_to_half(re), ct_float_to_half(im)};
            ct_complex64 c64 = {re, im};
            ct_complex128 c128 = {re, im};
            if (!fixed && dt == CT_COMPLEX32) {
                c32.re = (uint16_t)next_u64();
                c32.im = (uint16_t)next_u64();
            }
            if (!fixed && dt == CT_COMPLEX128) {
                c128.re = u2d(next_u64());
                c128.im = u2d(next_u64());
            }
            PUSH(dt == CT_COMPLEX32   ? (void *)&c32
                 : dt == CT_COMPLEX64 ? (void *)&c64
                                      : (void *)&c128);
        }
    } else { /* integers: specials (low bytes) and random bits */
        for (size_t i = 0; i < NSPECIAL(special_int) + 3000; i++) {
            uint64_t v = i < NSPECIAL(special_int) ? (uint64_t)special_int[i] : next_u64();
            if (i >= NSPECIAL(special_int) && i % 2)
                v >>= (next_u64() % 64); /* small magnitudes too */
            unsigned char le[8];
            for (int k = 0; k < 8; k++)
                le[k] = (unsigned char)(v >> (8 * k));
            PUSH(le);
        }
    }
#undef PUSH
    *out = buf;
    return n;
}

static void expect_same(ct_dtype dt, ct_dtype st, int isa, const char *how,
                        const unsigned char *got, const unsigned char *want,
                        const unsigned char *src, size_t n) {
    size_t ds = isz(dt), ss = isz(st);
    for (size_t i = 0; i < n; i++) {
        if (memcmp(got + i * ds, want + i * ds, ds) != 0) {
            char s[40] = "", g[40] = "", w[40] = "";
            for (size_t k = ss; k-- > 0;)
                sprintf(s + strlen(s), "%02x", src[i * ss + k]);
            for (size_t k = ds; k-- > 0;) {
                sprintf(g + strlen(g), "%02x", got[i * ds + k]);
                sprintf(w + strlen(w), "%02x", want[i * ds + k]);
            }
            fail_msg("%s -> %s (%s, %s) element %zu: 0x%s gave 0x%s, reference 0x%s",
                     ct_dtype_name(st), ct_dtype_name(dt), ct_cpu_isa_name((ct_cpu_isa)isa), how, i,
                     s, g, w);
        }
    }
}

static void test_every_pair_every_isa(void **state) {
    (void)state;
    for (int s = 0; s < CT_NUM_DTYPES; s++) {
        if (s == CT_FLOAT4_E2M1FN_X2)
            continue;
        ct_dtype st = (ct_dtype)s;
        unsigned char *src;
        size_t n = make_values(st, &src), ss = isz(st);
        /* the same values spaced two apart and shifted by one byte: strided and misaligned */
        unsigned char *spaced = calloc(2 * n * ss + 1, 1);
        for (size_t i = 0; i < n; i++)
            memcpy(spaced + 1 + 2 * i * ss, src + i * ss, ss);
        for (int d = 0; d < CT_NUM_DTYPES; d++) {
            if (d == CT_FLOAT4_E2M1FN_X2)
                continue;
            ct_dtype dt = (ct_dtype)d;
            size_t ds = isz(dt);
            unsigned char *want = malloc(n * ds), *got = malloc(n * ds + 1);
            for (size_t i = 0; i < n; i++)
                ct_convert_impl_reference(dt, want + i * ds, st, src + i * ss);
            for (int isa = 0; isa < num_levels(); isa++) {
                assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)isa), CT_OK);
                memset(got, 0xCD, n * ds);
                assert_int_equal(ct_convert(dt, got, st, src, n), CT_OK);
                expect_same(dt, st, isa, "contiguous", got, want, src, n);
                /* every prefix length hits the vector tails: check a few short ones */
                for (size_t len = 1; len < 40 && len < n; len += 7) {
                    memset(got, 0xCD, n * ds);
                    assert_int_equal(ct_convert(dt, got, st, src + 3 * ss, len), CT_OK);
                    expect_same(dt, st, isa, "short", got, want + 3 * ds, src + 3 * ss, len);
                }
                /* reversed destination, source two elements apart and misaligned */
                memset(got, 0xCD, n * ds);
                assert_int_equal(ct_convert_strided(dt, got + (n - 1) * ds, -(ptrdiff_t)ds, st,
                                                    spaced + 1, 2 * (ptrdiff_t)ss, n),
                                 CT_OK);
                for (size_t i = 0; i < n / 2; i++) { /* un-reverse, then compare */
                    unsigned char t[16];
                    memcpy(t, got + i * ds, ds);
                    memcpy(got + i * ds, got + (n - 1 - i) * ds, ds);
                    memcpy(got + (n - 1 - i) * ds, t, ds);
                }
                expect_same(dt, st, isa, "strided", got, want, src, n);
                /* misaligned contiguous destination */
                assert_int_equal(ct_convert(dt, got + 1, st, src, n), CT_OK);
                memmove(got, got + 1, n * ds);
                expect_same(dt, st, isa, "misaligned", got, want, src, n);
            }
            free(want);
            free(got);
        }
        free(src);
        free(spaced);
    }
    assert_int_equal(ct_cpu_set_isa(ct_cpu_isa_detected()), CT_OK);
}

/* float32 -> the narrow formats over a sample of all 2^32 patterns (every 4093rd) and the
 * patterns within 3 ulps of every float8 rounding midpoint, at each level. */
static void test_float32_to_narrow_sample(void **state) {
    (void)state;
    const ct_dtype narrow[7] = {CT_FLOAT16,       CT_BFLOAT16,        CT_FLOAT8_E4M3FN,
                                CT_FLOAT8_E5M2,   CT_FLOAT8_E4M3FNUZ, CT_FLOAT8_E5M2FNUZ,
                                CT_FLOAT8_E8M0FNU};
    size_t n = 0, cap = (size_t)(0x100000000 / 4093) + 5 * 256 * 7 + 16;
    float *src = malloc(cap * sizeof *src);
    for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 4093)
        src[n++] = u2f((uint32_t)u);
    for (int k = 0; k < 5; k++) {
        for (int c = 0; c < 255; c++) {
            double lo = ct_float8_to_float(f8s[k], (uint8_t)c);
            double hi = ct_float8_to_float(f8s[k], (uint8_t)(c + 1));
            if (!isfinite(lo) || !isfinite(hi))
                continue;
            uint32_t mid = f2u((float)((lo + hi) / 2));
            for (int off = -3; off <= 3; off++)
                src[n++] = u2f(mid + (uint32_t)off);
        }
    }
    uint16_t *got = malloc(n * 2), *want = malloc(n * 2);
    for (int k = 0; k < 7; k++) {
        size_t ds = isz(narrow[k]);
        for (size_t i = 0; i < n; i++) {
            uint16_t w = narrow[k] == CT_FLOAT16    ? ct_float_to_half(src[i])
                         : narrow[k] == CT_BFLOAT16 ? ct_float_to_bfloat16(src[i])
                                                    : ct_float_to_float8(narrow[k], src[i]);
            memcpy((unsigned char *)want + i * ds, &w, ds); /* little-endian low byte */
        }
        for (int isa = 0; isa < num_levels(); isa++) {
            assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)isa), CT_OK);
            assert_int_equal(ct_convert(narrow[k], got, CT_FLOAT32, src, n), CT_OK);
            expect_same(narrow[k], CT_FLOAT32, isa, "sample", (unsigned char *)got,
                        (unsigned char *)want, (unsigned char *)src, n);
        }
    }
    assert_int_equal(ct_cpu_set_isa(ct_cpu_isa_detected()), CT_OK);
    free(src);
    free(got);
    free(want);
}

/* Negative, zero and mixed strides; dst == src in place. */
static void test_strides_and_in_place(void **state) {
    (void)state;
    for (int isa = 0; isa < num_levels(); isa++) {
        assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)isa), CT_OK);
        float f[5] = {1.5f, -2.5f, 3e9f, NAN, 7.0f};
        int32_t out[5];
        /* reversed source */
        assert_int_equal(ct_convert_strided(CT_INT32, out, 4, CT_FLOAT32, f + 4, -4, 5), CT_OK);
        assert_true(out[0] == 7 && out[1] == INT32_MIN && out[2] == INT32_MIN && out[3] == -2 &&
                    out[4] == 1);
        /* zero source stride broadcasts */
        uint16_t h[64];
        assert_int_equal(ct_convert_strided(CT_FLOAT16, h, 2, CT_FLOAT32, f, 0, 64), CT_OK);
        for (int i = 0; i < 64; i++)
            assert_int_equal(h[i], 0x3E00);
        /* zero destination stride: the last element is what remains */
        double dd = 0;
        assert_int_equal(ct_convert_strided(CT_FLOAT64, &dd, 0, CT_FLOAT32, f, 4, 5), CT_OK);
        assert_true(dd == 7.0);
        /* same dtype strided: a byte copy keeping NaN payloads */
        uint32_t nanbits[3] = {0x7F800001, 0x11111111, 0xFFC00123}, copy[3];
        assert_int_equal(ct_convert_strided(CT_FLOAT32, copy + 2, -4, CT_FLOAT32, nanbits, 4, 3),
                         CT_OK);
        assert_true(copy[2] == 0x7F800001 && copy[0] == 0xFFC00123);
        /* in place between same-size dtypes, long enough for the vector loops */
        enum { N = 301 };
        static int32_t buf[N];
        static float ref[N];
        for (int i = 0; i < N; i++) {
            buf[i] = (int32_t)(next_u64() >> 40) - (1 << 23);
            ref[i] = (float)buf[i];
        }
        assert_int_equal(ct_convert(CT_FLOAT32, buf, CT_INT32, buf, N), CT_OK);
        assert_memory_equal(buf, ref, sizeof ref);
        assert_int_equal(ct_convert(CT_INT32, buf, CT_FLOAT32, buf, N), CT_OK);
        for (int i = 0; i < N; i++)
            assert_true(buf[i] == (int32_t)ref[i]);
        static uint16_t hb[N], want[N];
        for (int i = 0; i < N; i++) {
            hb[i] = (uint16_t)next_u64();
            want[i] = ct_float_to_bfloat16(ct_half_to_float(hb[i]));
        }
        assert_int_equal(ct_convert(CT_BFLOAT16, hb, CT_FLOAT16, hb, N), CT_OK);
        assert_memory_equal(hb, want, sizeof want);
    }
    assert_int_equal(ct_cpu_set_isa(ct_cpu_isa_detected()), CT_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_float_to_int),
        cmocka_unit_test(test_spec_int_and_bool),
        cmocka_unit_test(test_spec_half_bfloat16),
        cmocka_unit_test(test_half_bfloat16_all_patterns),
        cmocka_unit_test(test_spec_float8_encode),
        cmocka_unit_test(test_float8_all_codes),
        cmocka_unit_test(test_float4_pack_unpack),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_every_pair_every_isa),
        cmocka_unit_test(test_float32_to_narrow_sample),
        cmocka_unit_test(test_strides_and_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
