/* Scalars: their own dtype, and the range-checked conversion of a scalar into one element
 * of a dtype (what fill_, full and scalar_tensor write).
 *
 * Note [Scalar overflow check]
 * PyTorch converts a Scalar with checked_convert<T>, which raises "value cannot be
 * converted to type <T> without overflow" when c10::overflows<T>(value) holds, <T> being
 * the C++ spelling of the type in its dtype macros (so "int" for int32, "c10::Half"). The
 * rules differ by the scalar's kind: an integer may be negative for an unsigned target as
 * long as its magnitude fits (so that -1 fills uint8 with 255); a floating value must lie
 * in [lowest, max], with inf allowed only when the target has infinities and NaN only when
 * it has NaN (integers have neither); a complex value overflows any real type when its
 * imaginary part is non-zero, else each part is checked like a float. Converting to bool
 * never overflows (checked_convert skips it). The limits are c10's numeric_limits; note
 * float8_e8m0fnu's lowest is 2^-127, so a float 0.0 overflows it while the integer 0
 * does not (the integer rule never checks lowest for unsigned targets). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

typedef struct limits {
    const char *name; /* C++ type name in PyTorch's overflow message */
    bool integer;
    bool is_unsigned; /* numeric_limits::is_signed == false */
    bool has_inf, has_nan;
    double lowest, max; /* floating targets (complex: per component) */
    int64_t imin;       /* integer targets */
    uint64_t umax;
} limits;

#define INTL(name, uns, lo, hi)                                                                    \
    { name, true, uns, false, false, 0, 0, lo, hi }
#define FLTL(name, uns, inf, nan, lo, hi)                                                          \
    { name, false, uns, inf, nan, lo, hi, 0, 0 }

static const limits limit_table[CT_NUM_DTYPES] = {
    [CT_BOOL] = INTL("bool", true, 0, 1),
    [CT_UINT8] = INTL("uint8_t", true, 0, UINT8_MAX),
    [CT_INT8] = INTL("int8_t", false, INT8_MIN, INT8_MAX),
    [CT_UINT16] = INTL("uint16_t", true, 0, UINT16_MAX),
    [CT_INT16] = INTL("int16_t", false, INT16_MIN, INT16_MAX),
    [CT_UINT32] = INTL("uint32_t", true, 0, UINT32_MAX),
    [CT_INT32] = INTL("int", false, INT32_MIN, INT32_MAX),
    [CT_UINT64] = INTL("uint64_t", true, 0, UINT64_MAX),
    [CT_INT64] = INTL("int64_t", false, INT64_MIN, INT64_MAX),
    [CT_FLOAT16] = FLTL("c10::Half", false, true, true, -65504.0, 65504.0),
    [CT_BFLOAT16] =
        FLTL("c10::BFloat16", false, true, true, -3.3895313892515355e38, 3.3895313892515355e38),
    [CT_FLOAT32] = FLTL("float", false, true, true, -FLT_MAX, FLT_MAX),
    [CT_FLOAT64] = FLTL("double", false, true, true, -DBL_MAX, DBL_MAX),
    [CT_COMPLEX32] = FLTL("c10::complex<c10::Half>", false, true, true, -65504.0, 65504.0),
    [CT_COMPLEX64] = FLTL("c10::complex<float>", false, true, true, -FLT_MAX, FLT_MAX),
    [CT_COMPLEX128] = FLTL("c10::complex<double>", false, true, true, -DBL_MAX, DBL_MAX),
    [CT_FLOAT8_E4M3FN] = FLTL("c10::Float8_e4m3fn", false, false, true, -448.0, 448.0),
    [CT_FLOAT8_E5M2] = FLTL("c10::Float8_e5m2", false, true, true, -57344.0, 57344.0),
    [CT_FLOAT8_E4M3FNUZ] = FLTL("c10::Float8_e4m3fnuz", false, false, true, -240.0, 240.0),
    [CT_FLOAT8_E5M2FNUZ] = FLTL("c10::Float8_e5m2fnuz", false, false, true, -57344.0, 57344.0),
    [CT_FLOAT8_E8M0FNU] = FLTL("c10::Float8_e8m0fnu", true, false, true, 0x1p-127, 0x1p127),
    [CT_FLOAT4_E2M1FN_X2] = FLTL("c10::Float4_e2m1fn_x2", false, false, false, -6.0, 6.0),
};

ct_dtype ct_scalar_dtype(ct_scalar value) {
    switch (value.kind) {
    case CT_SCALAR_BOOL:
        return CT_BOOL;
    case CT_SCALAR_INT:
        return CT_INT64;
    case CT_SCALAR_UINT:
        return CT_UINT64;
    case CT_SCALAR_FLOAT:
        return CT_FLOAT64;
    case CT_SCALAR_COMPLEX:
        return CT_COMPLEX128;
    default:
        return CT_DTYPE_UNDEFINED;
    }
}

bool ct_scalar_is_integral(ct_scalar value, bool include_bool) {
    return value.kind == CT_SCALAR_INT || value.kind == CT_SCALAR_UINT ||
           (include_bool && value.kind == CT_SCALAR_BOOL);
}

ct_status ct_full_dtype(ct_scalar value, ct_dtype requested, ct_dtype *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_full_dtype: out is NULL");
    if (requested != CT_DTYPE_UNDEFINED) {
        *out = requested; /* checked by whoever makes the tensor, with its own message */
        return CT_OK;
    }
    switch (value.kind) {
    case CT_SCALAR_BOOL:
        *out = CT_BOOL;
        break;
    case CT_SCALAR_INT:
    case CT_SCALAR_UINT:
        *out = CT_INT64;
        break;
    case CT_SCALAR_COMPLEX:
        /* infer_full_options: complex128 only with a float64 default, else complex64 */
        *out = ct_get_default_dtype() == CT_FLOAT64 ? CT_COMPLEX128 : CT_COMPLEX64;
        break;
    default:
        *out = ct_get_default_dtype();
        break;
    }
    return CT_OK;
}

/* overflows<To, double>(d) for a floating or integer target. */
static bool double_overflows(const limits *l, double d) {
    if (isinf(d) && l->has_inf)
        return false;
    if (isnan(d))
        return !l->has_nan;
    if (l->integer)
        return d < (double)l->imin || d > (double)l->umax;
    return d < l->lowest || d > l->max;
}

static bool overflows(ct_dtype dtype, ct_scalar v) {
    const limits *l = &limit_table[dtype];
    if (dtype == CT_BOOL)
        return false;
    switch (v.kind) {
    case CT_SCALAR_BOOL:
        return false;
    case CT_SCALAR_INT:
        if (l->integer) {
            if (l->is_unsigned) /* a negative value wraps when its magnitude fits */
                return v.v.i < 0 ? (uint64_t)0 - (uint64_t)v.v.i > l->umax
                                 : (uint64_t)v.v.i > l->umax;
            return v.v.i < l->imin || v.v.i > (int64_t)l->umax;
        }
        if (l->is_unsigned) /* float8_e8m0fnu: the integer rule for unsigned targets */
            return v.v.i > 0 && (double)v.v.i > l->max;
        return (double)v.v.i < l->lowest || (double)v.v.i > l->max;
    case CT_SCALAR_UINT:
        if (l->integer)
            return v.v.u > l->umax;
        return (double)v.v.u > l->max;
    case CT_SCALAR_FLOAT:
        return double_overflows(l, v.v.f);
    case CT_SCALAR_COMPLEX:
        if (!ct_dtype_is_complex(dtype) && v.v.c.im != 0.0)
            return true;
        return double_overflows(l, v.v.c.re) || double_overflows(l, v.v.c.im);
    }
    return true;
}

/* The value as a double, for float4 packing. */
static double as_double(ct_scalar v) {
    switch (v.kind) {
    case CT_SCALAR_BOOL:
        return v.v.b ? 1.0 : 0.0;
    case CT_SCALAR_INT:
        return (double)v.v.i;
    case CT_SCALAR_UINT:
        return (double)v.v.u;
    case CT_SCALAR_FLOAT:
        return v.v.f;
    default:
        return v.v.c.re;
    }
}

ct_status ct_scalar_to_dtype(ct_scalar value, ct_dtype dtype, void *out) {
    if (out == NULL || !ct_dtype_impl_valid(dtype) || (int)value.kind < 0 ||
        (int)value.kind > CT_SCALAR_COMPLEX)
        return ct_set_error(CT_ERR_MISUSE, "ct_scalar_to_dtype: bad arguments");
    if (overflows(dtype, value))
        return ct_set_error(CT_ERR_OVERFLOW,
                            "value cannot be converted to type %s without overflow",
                            limit_table[dtype].name);
    if (dtype == CT_FLOAT4_E2M1FN_X2) {
        /* two values per byte: the same value in both nibbles */
        float f[2];
        f[0] = f[1] = (float)as_double(value);
        return ct_float4_pack(out, f, 2);
    }
    unsigned char b = 0;
    const void *src = &value.v;
    if (value.kind == CT_SCALAR_BOOL) { /* read the bool member only when it is the one set */
        b = value.v.b ? 1 : 0;
        src = &b;
    }
    return ct_convert(dtype, out, ct_scalar_dtype(value), src, 1);
}
