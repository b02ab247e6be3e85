/* float16 and bfloat16 single-value codecs, and the generic rounding helper that float8.c
 * and float4.c share.
 *
 * These are written to be obviously right rather than fast: integer significands, explicit
 * rounding. The array loops use the branch-free versions in codec_impl.h, and the tests
 * hold the two against each other (and against PyTorch, tests/python). */
#include <string.h>

#include "ctensor/convert.h"
#include "dtype/convert/convert_impl.h"

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

uint32_t ct_convert_impl_round_to_format(uint32_t abs_bits, unsigned mbits, int bias) {
    uint32_t biased = abs_bits >> 23;
    uint32_t frac = abs_bits & 0x7FFFFFu;
    /* value = sig * 2^exp2, and 2^e <= value < 2^(e+1) */
    uint64_t sig = biased == 0 ? frac : (frac | 0x800000u);
    if (sig == 0)
        return 0;
    int exp2 = biased == 0 ? -149 : (int)biased - 150;
    int e = exp2 + 63 - __builtin_clzll(sig);
    int emin = 1 - bias;
    int top = e > emin ? e : emin;  /* exponent of the target binade (subnormals: emin) */
    int quantum = top - (int)mbits; /* the target's ulp there is 2^quantum */
    int shift = quantum - exp2;     /* significand bits that are dropped */
    uint64_t kept;
    if (shift <= 0) {
        kept = sig << -shift;
    } else if (shift > 40) {
        kept = 0; /* below a quarter of the smallest subnormal */
    } else {
        kept = sig >> shift;
        uint64_t rest = sig & ((UINT64_C(1) << shift) - 1u);
        uint64_t half = UINT64_C(1) << (shift - 1);
        if (rest > half || (rest == half && (kept & 1u)))
            kept++;
    }
    /* kept counts ulps of the binade: below 2^(mbits+1) it already is mantissa plus the
     * implicit bit, so adding the binade's exponent offset gives the code; a carry out of
     * the mantissa moves into the exponent field by itself. */
    return ((uint32_t)(top - emin) << mbits) + (uint32_t)kept;
}

float ct_convert_impl_decode_format(uint32_t code, unsigned mbits, int bias) {
    uint32_t e = code >> mbits;
    uint32_t m = code & ((1u << mbits) - 1u);
    int scale = (e == 0 ? 1 : (int)e) - bias - (int)mbits;
    double sig = e == 0 ? (double)m : (double)(m | (1u << mbits));
    /* sig * 2^scale, exact in double; then exact in float for every format here */
    double v = sig;
    for (; scale > 0; scale--)
        v *= 2.0;
    for (; scale < 0; scale++)
        v *= 0.5;
    return (float)v;
}

/* ---- float16 ------------------------------------------------------------------------- */

uint16_t ct_float_to_half(float x) {
    uint32_t f = bits_of(x);
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t a = f & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return (uint16_t)(sign | 0x7E00u); /* PyTorch's canonical NaN, sign kept */
    if (a == 0x7F800000u)
        return (uint16_t)(sign | 0x7C00u);
    uint32_t code = ct_convert_impl_round_to_format(a, 10, 15);
    if (code >= 0x7C00u)
        code = 0x7C00u; /* no saturation: overflow is inf */
    return (uint16_t)(sign | code);
}

float ct_half_to_float(uint16_t bits) {
    uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
    uint32_t a = bits & 0x7FFFu;
    if (a >= 0x7C00u) {
        /* inf, or a NaN made quiet with its payload kept, as F16C's vcvtph2ps does (and
         * as PyTorch's float16 -> float32 gives on x86-64) */
        uint32_t nan = a > 0x7C00u ? 0x00400000u : 0u;
        return float_of(sign | 0x7F800000u | nan | ((a & 0x3FFu) << 13));
    }
    return float_of(sign | bits_of(ct_convert_impl_decode_format(a, 10, 15)));
}

/* ---- bfloat16 ------------------------------------------------------------------------ */

/* Note [bfloat16 NaN]
 * PyTorch 1.13 has two answers for float32 NaN -> bfloat16. c10's scalar constructor
 * returns 0x7FC0 (sign dropped), but on x86-64 Tensor.to(torch.bfloat16) of a contiguous
 * float32 tensor runs the vectorized conversion, which produces 0xFFFF for every NaN at
 * every tensor length (verified on this machine, lengths 1..1000; newest PyTorch's
 * AVX2/AVX-512 code does the same). The scalar answer only shows up on other paths: strided
 * tensors, float16/complex sources, and the tails of float64 sources. ctensor must give one
 * answer whatever the path, so it takes the one of the common case, contiguous float32 ->
 * bfloat16: 0xFFFF, for every NaN from every source dtype, in this function and in the
 * array loops alike. tests/python/test_convert_vs_torch.py spells out the paths where
 * PyTorch 1.13 says 0x7FC0 instead. */
uint16_t ct_float_to_bfloat16(float x) {
    uint32_t f = bits_of(x);
    uint32_t a = f & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0xFFFFu;
    uint16_t sign = (uint16_t)(f >> 16 & 0x8000u);
    if (a == 0x7F800000u)
        return (uint16_t)(sign | 0x7F80u);
    /* bfloat16 shares float32's exponent range, so only the mantissa is rounded; the
     * largest values round up into the inf code 0x7F80 */
    uint32_t code = ct_convert_impl_round_to_format(a, 7, 127);
    return (uint16_t)(sign | code);
}

float ct_bfloat16_to_float(uint16_t bits) { return float_of((uint32_t)bits << 16); }
