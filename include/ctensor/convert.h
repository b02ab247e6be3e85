/* ctensor: element conversion between dtypes, single values and whole arrays.
 *
 * The rules are PyTorch's (c10::convert, and what Tensor.to() produces on x86-64):
 *  - complex -> real takes the real part; complex -> bool is (re != 0 || im != 0)
 *    (newest PyTorch; 1.13 looked at the real part only); real -> complex is (x, 0).
 *  - any -> bool is x != 0 (NaN -> true); bool -> number is 0 or 1.
 *  - integer -> narrower integer keeps the low bits (two's complement wrap).
 *  - integer -> float rounds to nearest even; to float16/bfloat16/float8 it goes through
 *    float32 first, as PyTorch does.
 *  - float -> integer truncates toward zero. Where C leaves the result undefined (NaN, inf,
 *    out of range) ctensor defines it as x86-64 PyTorch computes it: int64 and uint8 targets
 *    take a 64-bit truncation whose failure value is INT64_MIN, then keep the low bits;
 *    int32/int16/int8/uint16 targets a 32-bit truncation whose failure value is INT32_MIN,
 *    then keep the low bits; uint32 a 64-bit truncation, low 32 bits; uint64 values >= 2^63
 *    are truncated after subtracting 2^63 (so [2^63, 2^64) convert exactly), everything
 *    else through the 64-bit truncation. See Note [float to int] in src/dtype/convert/.
 *  - float64 -> float16/bfloat16/float8 rounds twice (through float32), as PyTorch does.
 *  - float32 -> float16: round to nearest even, overflow to inf, NaN -> 0x7E00 | sign.
 *  - float32 -> bfloat16: round to nearest even on the top 16 bits, overflow to inf; every
 *    NaN -> 0xFFFF, what Tensor.to(torch.bfloat16) gives on x86-64 (Note [bfloat16 NaN] in
 *    src/dtype/convert/half.c says why).
 *  - float8: round to nearest even, subnormals kept, never saturating: e4m3fn and the fnuz
 *    formats overflow to NaN, e5m2 to inf; e8m0fnu ignores the sign, rounds up from 1.5,
 *    maps 0 to 2^-127 and overflow to NaN.
 *  - float4_e2m1fn_x2 holds two values per byte (element 0 in the low nibble); as in
 *    PyTorch there is no element conversion to or from it (only a byte copy to itself). Use
 *    ct_float4_pack / ct_float4_unpack to encode and decode values.
 */
#ifndef CTENSOR_CONVERT_H
#define CTENSOR_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** Storage layouts of the complex dtypes: real part first, as in C, C++, NumPy and DLPack. */
typedef struct ct_complex32 {
    uint16_t re, im; /* float16 bit patterns */
} ct_complex32;
typedef struct ct_complex64 {
    float re, im;
} ct_complex64;
typedef struct ct_complex128 {
    double re, im;
} ct_complex128;

/* ---- single values of the narrow float formats (bit patterns in, bit patterns out) ---- */

CT_API uint16_t ct_float_to_half(float x);
CT_API float ct_half_to_float(uint16_t bits);
CT_API uint16_t ct_float_to_bfloat16(float x);
CT_API float ct_bfloat16_to_float(uint16_t bits);

/** Encode `x` in a float8 `format` (one of the five CT_FLOAT8_* dtypes; any other dtype
 *  gives 0). */
CT_API uint8_t ct_float_to_float8(ct_dtype format, float x);
/** Decode a float8 bit pattern (NaN for a dtype that is not a float8 format). */
CT_API float ct_float8_to_float(ct_dtype format, uint8_t bits);

/** Encode the `n` floats at `src` as E2M1 nibbles into ceil(n/2) bytes at `dst` (destination
 *  first, as ct_convert and memcpy): value 2k in the low nibble of
 *  byte k, value 2k+1 in its high nibble (0 when n is odd). Rounds to nearest even and
 *  saturates to +-6 (the format has no inf).
 *  Errors: CT_ERR_VALUE "float4_e2m1fn_x2 cannot represent NaN" (nothing written);
 *  CT_ERR_MISUSE for NULL pointers with n > 0. */
CT_API ct_status ct_float4_pack(uint8_t *dst, const float *src, size_t n);
/** Decode `n` E2M1 values from ceil(n/2) bytes, in the order ct_float4_pack writes them.
 *  Errors: CT_ERR_MISUSE for NULL pointers with n > 0. */
CT_API ct_status ct_float4_unpack(float *dst, const uint8_t *src, size_t n);

/* ---- arrays ---------------------------------------------------------------------------- */

/** Convert `n` contiguous elements of `src_dtype` at `src` into `dst_dtype` at `dst`.
 *  The buffers must not overlap unless dst == src and both dtypes have the same size.
 *  Uses the fastest loop the active CPU level offers; results are identical at every level.
 *  Errors: CT_ERR_NOT_IMPLEMENTED "\"copy_\" not implemented for 'Float4_e2m1fn_x2'" when
 *  exactly one side is float4_e2m1fn_x2; CT_ERR_MISUSE for an invalid dtype or NULL
 *  pointers with n > 0. Nothing is written on error. */
CT_API ct_status ct_convert(ct_dtype dst_dtype, void *dst, ct_dtype src_dtype, const void *src,
                            size_t n);

/** As ct_convert, for elements `dst_stride` and `src_stride` BYTES apart (negative and zero
 *  strides allowed; a zero source stride broadcasts one value). */
CT_API ct_status ct_convert_strided(ct_dtype dst_dtype, void *dst, ptrdiff_t dst_stride,
                                    ct_dtype src_dtype, const void *src, ptrdiff_t src_stride,
                                    size_t n);

CT_EXTERN_C_END

#endif /* CTENSOR_CONVERT_H */
