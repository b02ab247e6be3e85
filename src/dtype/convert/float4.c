/* float4_e2m1fn_x2: packing float32 values into E2M1 nibbles and back.
 *
 * E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit; the magnitudes are
 * 0, 0.5, 1, 1.5, 2, 3, 4, 6 and there is no inf or NaN ("fn"). Element 2k goes into the
 * low nibble of byte k, element 2k+1 into its high nibble (PyTorch's packing). */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/convert.h"
#include "dtype/convert/convert_impl.h"

static const float e2m1_values[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

static uint8_t encode_e2m1(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint8_t sign = (uint8_t)((bits >> 28) & 0x8u);
    uint32_t a = bits & 0x7FFFFFFFu;
    /* round to nearest even, then saturate: the format has no inf to overflow into */
    uint32_t code = a >= 0x7F800000u ? 7u : ct_convert_impl_round_to_format(a, 1, 1);
    if (code > 7u)
        code = 7u;
    return (uint8_t)(sign | code); /* the sign is kept, as for the float8 formats: -0 is 0x8 */
}

static float decode_e2m1(uint8_t nibble) {
    float v = e2m1_values[nibble & 0x7u];
    return (nibble & 0x8u) ? -v : v;
}

ct_status ct_float4_pack(uint8_t *dst, const float *src, size_t n) {
    ct_status st = CT_OK;
    if (n == 0)
        return CT_OK;
    CT_CHECK(src != NULL && dst != NULL, CT_ERR_MISUSE,
             "ct_float4_pack: src and dst must not be NULL when n > 0");
    /* check everything first so that nothing is written on error */
    for (size_t i = 0; i < n; i++)
        CT_CHECK(src[i] == src[i], CT_ERR_VALUE, "float4_e2m1fn_x2 cannot represent NaN");
    for (size_t i = 0; i + 1 < n; i += 2)
        dst[i / 2] = (uint8_t)(encode_e2m1(src[i]) | (encode_e2m1(src[i + 1]) << 4));
    if (n % 2 != 0)
        dst[n / 2] = encode_e2m1(src[n - 1]);
    return CT_OK;
fail:
    return st;
}

ct_status ct_float4_unpack(float *dst, const uint8_t *src, size_t n) {
    ct_status st = CT_OK;
    if (n == 0)
        return CT_OK;
    CT_CHECK(src != NULL && dst != NULL, CT_ERR_MISUSE,
             "ct_float4_unpack: src and dst must not be NULL when n > 0");
    for (size_t i = 0; i < n; i++)
        dst[i] = decode_e2m1((uint8_t)(src[i / 2] >> (4 * (i % 2))));
    return CT_OK;
fail:
    return st;
}
