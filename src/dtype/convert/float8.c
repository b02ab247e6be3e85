/* The five float8 formats (PyTorch's Float8_*.h): one generic encoder and decoder driven by a
 * row per format. Round to nearest even, subnormals kept, never saturating.
 *
 * Like half.c this is the readable reference; codec_impl.h has the branch-free copy the
 * array loops use, and the tests check that the two agree. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ctensor/convert.h"
#include "dtype/convert/convert_impl.h"

/* Which codes are special. */
typedef enum f8_family {
    F8_FN,   /* e4m3fn: S.1111.111 is NaN, no inf; overflow is NaN */
    F8_IEEE, /* e5m2: exponent all ones is inf/NaN as in IEEE; overflow is inf */
    F8_FNUZ, /* e4m3fnuz, e5m2fnuz: 0x80 is the only NaN, no -0, no inf; overflow is NaN */
    F8_E8M0, /* e8m0fnu: exponent only, no sign, 0xFF is NaN */
} f8_family;

typedef struct f8_format {
    ct_dtype dtype;
    f8_family family;
    unsigned mbits;
    int bias;
    uint8_t max_finite; /* largest finite code with the sign bit clear */
    uint8_t overflow;   /* code of magnitudes that round above max_finite, and of inf */
    uint8_t nan;        /* code of NaN */
} f8_format;

static const f8_format formats[] = {
    {CT_FLOAT8_E4M3FN, F8_FN, 3, 7, 0x7E, 0x7F, 0x7F},
    {CT_FLOAT8_E5M2, F8_IEEE, 2, 15, 0x7B, 0x7C, 0x7F},
    {CT_FLOAT8_E4M3FNUZ, F8_FNUZ, 3, 8, 0x7F, 0x80, 0x80},
    {CT_FLOAT8_E5M2FNUZ, F8_FNUZ, 2, 16, 0x7F, 0x80, 0x80},
    {CT_FLOAT8_E8M0FNU, F8_E8M0, 0, 127, 0xFE, 0xFF, 0xFF},
};

static const f8_format *find_format(ct_dtype dtype) {
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (formats[i].dtype == dtype)
            return &formats[i];
    }
    return NULL;
}

static uint32_t bits_of(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* PyTorch's e8m0 rounding: keep the float32 exponent field and add one when the first
 * dropped mantissa bit is set and either a lower bit is set or the implicit bit is (x is
 * normal). That is round-to-nearest-even with the implicit bit as the kept lsb. */
static uint8_t encode_e8m0(float x) {
    uint32_t f = bits_of(x);
    uint32_t e = (f >> 23) & 0xFFu;
    if (e == 0xFFu)
        return 0xFF; /* inf and NaN */
    int guard = (f & 0x400000u) != 0;
    int sticky = (f & 0x3FFFFFu) != 0;
    int lsb = e != 0;
    if (guard && (sticky || lsb))
        e++; /* 254 -> 255 makes NaN: no saturation */
    return (uint8_t)e;
}

uint8_t ct_float_to_float8(ct_dtype format, float x) {
    const f8_format *f = find_format(format);
    if (f == NULL)
        return 0;
    if (f->family == F8_E8M0)
        return encode_e8m0(x);
    uint32_t bits = bits_of(x);
    uint32_t sign = (bits >> 24) & 0x80u;
    uint32_t a = bits & 0x7FFFFFFFu;
    uint32_t code;
    if (a > 0x7F800000u) {
        code = f->nan;
    } else if (a == 0x7F800000u) {
        code = f->overflow;
    } else {
        code = ct_convert_impl_round_to_format(a, f->mbits, f->bias);
        if (code > f->max_finite)
            code = f->overflow;
    }
    if (f->family == F8_FNUZ && (code == 0 || code == 0x80u))
        return (uint8_t)code; /* fnuz: zero has no sign, and NaN is 0x80 whatever the sign */
    return (uint8_t)(code | sign);
}

/* The NaN codes decode to the float32 patterns PyTorch's decoders give (its bit-level
 * e4m3fn decoder leaves payload bits set; the fnuz and e8m0 ones return 0x7F800001). */
float ct_float8_to_float(ct_dtype format, uint8_t bits) {
    const f8_format *f = find_format(format);
    if (f == NULL)
        return NAN;
    uint32_t sign = (uint32_t)(bits & 0x80u) << 24;
    uint32_t a = bits & 0x7Fu;
    switch (f->family) {
    case F8_E8M0:
        if (bits == 0xFF)
            return float_of(0x7F800001u);
        return float_of(bits == 0 ? 0x00400000u : (uint32_t)bits << 23); /* 0 means 2^-127 */
    case F8_IEEE:
        return ct_half_to_float((uint16_t)(bits << 8)); /* e5m2 is float16's top byte */
    case F8_FNUZ:
        if (bits == 0x80)
            return float_of(0x7F800001u);
        break;
    case F8_FN:
        if (a == 0x7F)
            return float_of(sign | 0x7FF00000u);
        break;
    }
    return float_of(sign | bits_of(ct_convert_impl_decode_format(a, f->mbits, f->bias)));
}
