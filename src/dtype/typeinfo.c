/* torch.finfo / torch.iinfo values. */
#include <float.h>
#include <stdint.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"

/* Limits of every floating dtype, as PyTorch's numeric_limits report them
 * (torch.finfo's values).
 * min is numeric_limits::lowest(); for e8m0fnu, which has no sign, that is +2^-127.
 * resolution is 10^-digits10 (digits10: 3, 2, 6, 15, and 0 for every float8).
 * float8_e5m2fnuz's eps is 0.125 as PyTorch reports it, although the format's true
 * spacing at 1.0 is 0.25 (PyTorch's epsilon bit pattern assumes bias 15). */
typedef struct finfo_row {
    double eps, max, min, tiny, resolution;
} finfo_row;

static const finfo_row finfo_rows[CT_NUM_DTYPES] = {
    [CT_FLOAT16] = {0x1p-10, 65504.0, -65504.0, 0x1p-14, 1e-3},
    [CT_BFLOAT16] = {0x1p-7, 0x1.fep127, -0x1.fep127, 0x1p-126, 1e-2},
    [CT_FLOAT32] = {FLT_EPSILON, FLT_MAX, -FLT_MAX, FLT_MIN, 1e-6},
    [CT_FLOAT64] = {DBL_EPSILON, DBL_MAX, -DBL_MAX, DBL_MIN, 1e-15},
    [CT_FLOAT8_E4M3FN] = {0x1p-3, 448.0, -448.0, 0x1p-6, 1.0},
    [CT_FLOAT8_E5M2] = {0x1p-2, 57344.0, -57344.0, 0x1p-14, 1.0},
    [CT_FLOAT8_E4M3FNUZ] = {0x1p-3, 240.0, -240.0, 0x1p-7, 1.0},
    [CT_FLOAT8_E5M2FNUZ] = {0x1p-3, 57344.0, -57344.0, 0x1p-15, 1.0},
    [CT_FLOAT8_E8M0FNU] = {1.0, 0x1p127, 0x1p-127, 0x1p-127, 1.0},
};

ct_status ct_finfo_of(ct_dtype dtype, ct_finfo *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_finfo_of: out must not be NULL");
    *out = (ct_finfo){0};
    out->dtype = CT_DTYPE_UNDEFINED;
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_finfo_of: invalid dtype value %d", (int)dtype);
    if (!ct_dtype_is_floating_point(dtype) && !ct_dtype_is_complex(dtype))
        return ct_set_error(CT_ERR_TYPE, "torch.finfo() requires a floating point input type. Use "
                                         "torch.iinfo to handle 'torch.finfo'");
    ct_dtype real = ct_dtype_to_real(dtype);
    out->dtype = real;
    out->bits = (int)(ct_dtype_table[real].itemsize * 8);
    if (real == CT_FLOAT4_E2M1FN_X2)
        return CT_OK; /* has_values stays false: PyTorch defines no limits for it */
    const finfo_row *row = &finfo_rows[real];
    out->eps = row->eps;
    out->max = row->max;
    out->min = row->min;
    out->tiny = row->tiny;
    out->smallest_normal = row->tiny;
    out->resolution = row->resolution;
    out->has_values = true;
    return CT_OK;
}

ct_status ct_iinfo_of(ct_dtype dtype, ct_iinfo *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_iinfo_of: out must not be NULL");
    *out = (ct_iinfo){0, 0, 0, CT_DTYPE_UNDEFINED};
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_iinfo_of: invalid dtype value %d", (int)dtype);
    if (dtype == CT_BOOL)
        return ct_set_error(CT_ERR_TYPE, "torch.bool is not supported by torch.iinfo");
    if (!ct_dtype_is_integral(dtype, false))
        return ct_set_error(CT_ERR_TYPE, "torch.iinfo() requires an integer input type. Use "
                                         "torch.finfo to handle 'torch.iinfo'");
    int bits = (int)(ct_dtype_table[dtype].itemsize * 8);
    out->bits = bits;
    out->dtype = dtype;
    if (ct_dtype_table[dtype].kind == CT_KIND_UINT) {
        out->min = 0;
        out->max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    } else {
        out->max = (UINT64_C(1) << (bits - 1)) - 1;
        out->min = -(int64_t)out->max - 1;
    }
    return CT_OK;
}
