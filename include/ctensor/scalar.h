/* ctensor: scalars (PyTorch's c10::Scalar): the value of full(), fill_(), arange() bounds,
 * item(), and the "wrapped numbers" Python scalars become in operations.
 *
 * A scalar is a small value type: a bool, a signed 64-bit integer, an unsigned one (only
 * for integers above INT64_MAX, as PyTorch's Scalar keeps them), a double or a complex
 * double. Construct it with the inline helpers below.
 */
#ifndef CTENSOR_SCALAR_H
#define CTENSOR_SCALAR_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/convert.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

typedef enum ct_scalar_kind {
    CT_SCALAR_BOOL = 0,
    CT_SCALAR_INT = 1,     /**< int64_t */
    CT_SCALAR_UINT = 2,    /**< uint64_t, for integers above INT64_MAX */
    CT_SCALAR_FLOAT = 3,   /**< double */
    CT_SCALAR_COMPLEX = 4, /**< complex double */
} ct_scalar_kind;

typedef struct ct_scalar {
    ct_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double f;
        ct_complex128 c;
    } v;
} ct_scalar;

static inline ct_scalar ct_scalar_bool(bool b) {
    ct_scalar s;
    s.v.c.re = s.v.c.im = 0.0;
    s.kind = CT_SCALAR_BOOL;
    s.v.b = b;
    return s;
}
static inline ct_scalar ct_scalar_int(int64_t i) {
    ct_scalar s;
    s.v.c.re = s.v.c.im = 0.0;
    s.kind = CT_SCALAR_INT;
    s.v.i = i;
    return s;
}
/** An unsigned integer; values up to INT64_MAX become CT_SCALAR_INT, as in PyTorch. */
static inline ct_scalar ct_scalar_uint(uint64_t u) {
    ct_scalar s;
    s.v.c.re = s.v.c.im = 0.0;
    if (u <= (uint64_t)INT64_MAX) {
        s.kind = CT_SCALAR_INT;
        s.v.i = (int64_t)u;
    } else {
        s.kind = CT_SCALAR_UINT;
        s.v.u = u;
    }
    return s;
}
static inline ct_scalar ct_scalar_float(double f) {
    ct_scalar s;
    s.v.c.re = s.v.c.im = 0.0;
    s.kind = CT_SCALAR_FLOAT;
    s.v.f = f;
    return s;
}
static inline ct_scalar ct_scalar_complex(double re, double im) {
    ct_scalar s;
    s.kind = CT_SCALAR_COMPLEX;
    s.v.c.re = re;
    s.v.c.im = im;
    return s;
}

/** The dtype of the scalar's own value, as PyTorch wraps a Python scalar in a tensor:
 *  bool, int64 (uint64 for CT_SCALAR_UINT), float64, complex128. CT_DTYPE_UNDEFINED for an
 *  invalid kind. */
CT_API ct_dtype ct_scalar_dtype(ct_scalar value);

/** PyTorch's Scalar::isIntegral(include_bool). */
CT_API bool ct_scalar_is_integral(ct_scalar value, bool include_bool);

/** Convert `value` to one element of `dtype` at `out` (ct_dtype_itemsize(dtype) bytes),
 *  with the range check PyTorch applies in fill_, full and scalar_tensor:
 *  CT_ERR_OVERFLOW "value cannot be converted to type <T> without overflow", <T> being the
 *  C++ type PyTorch names ("uint8_t", "int", "int64_t", "c10::Half", "c10::BFloat16",
 *  "float", "c10::complex<float>", "c10::Float8_e4m3fn", ...). Rules (c10 overflows()):
 *  bool targets never overflow; a negative integer fits an unsigned type when its magnitude
 *  does (-1 -> 255 for uint8); a float fits when within [lowest, max], inf when the type has
 *  infinities, NaN when it has NaN; a complex with a non-zero imaginary part never fits a
 *  real type. In-range values convert as ct_convert does (floats truncate into integers).
 *  float4_e2m1fn_x2 (where PyTorch has no fill) gets the value in both nibbles of the byte,
 *  range +-6, no inf or NaN (type name "c10::Float4_e2m1fn_x2").
 *  Errors: CT_ERR_MISUSE for an invalid dtype or kind, or NULL out. */
CT_API ct_status ct_scalar_to_dtype(ct_scalar value, ct_dtype dtype, void *out);

CT_EXTERN_C_END

#endif /* CTENSOR_SCALAR_H */
