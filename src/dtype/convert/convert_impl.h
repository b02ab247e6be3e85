/* Internal interface of the element conversions (src/dtype/convert/).
 *
 * half.c, float8.c and float4.c hold the scalar codecs, written for clarity: they are the
 * reference the branch-free array loops (codec_impl.h, loops.c) are tested against.
 * convert.c holds the argument checks, the dispatch and the one-element reference
 * converter the tests compare every loop with. */
#ifndef CT_DTYPE_CONVERT_CONVERT_IMPL_H
#define CT_DTYPE_CONVERT_CONVERT_IMPL_H

#include <stdint.h>

#include "ctensor/dtype.h"

/* Round a finite, non-negative float32 (its bits, sign bit clear) to nearest-even in a
 * binary format with `mbits` stored mantissa bits and exponent bias `bias`, subnormals
 * included. Returns the code (biased exponent << mbits | mantissa); there is no overflow
 * handling: past the format's largest exponent the code simply keeps growing, so callers
 * compare it with their largest finite code. */
uint32_t ct_convert_impl_round_to_format(uint32_t abs_bits, unsigned mbits, int bias);

/* The value of a code of such a format (no special codes: every exponent is normal). */
float ct_convert_impl_decode_format(uint32_t code, unsigned mbits, int bias);

/* Convert ONE element, the slow and obvious way: load it as bool, int64, uint64, float,
 * double, complex float or complex double, then store it. Every pair except those with
 * exactly one float4_e2m1fn_x2 side; the same dtype is a byte copy (bool: normalised to
 * 0/1). Used as the oracle by the tests; no argument checks. */
void ct_convert_impl_reference(ct_dtype dst_dtype, void *dst, ct_dtype src_dtype, const void *src);

#endif /* CT_DTYPE_CONVERT_CONVERT_IMPL_H */
