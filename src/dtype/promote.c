/* torch.promote_types and torch.can_cast. */
#include "base/error_impl.h"
#include "dtype/table_impl.h"

/* PyTorch's promotion table over the 13 classic dtypes, written out as PyTorch keeps it
 * (c10/core/ScalarType.cpp); rows and columns in the order of the `promo` column of
 * dtypes.def. Symmetric; checked cell by cell against torch 1.13 in the tests. */
enum { u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf, PROMO_N };

static const ct_dtype promo_dtype[PROMO_N] = {
    [u1] = CT_UINT8,     [i1] = CT_INT8,      [i2] = CT_INT16,      [i4] = CT_INT32,
    [i8] = CT_INT64,     [f2] = CT_FLOAT16,   [f4] = CT_FLOAT32,    [f8] = CT_FLOAT64,
    [c2] = CT_COMPLEX32, [c4] = CT_COMPLEX64, [c8] = CT_COMPLEX128, [b1] = CT_BOOL,
    [bf] = CT_BFLOAT16,
};

/* clang-format off */
static const unsigned char promo_table[PROMO_N][PROMO_N] = {
    /*        u1  i1  i2  i4  i8  f2  f4  f8  c2  c4  c8  b1  bf */
    /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, u1, bf},
    /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, i1, bf},
    /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, i2, bf},
    /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c2, c4, c8, i4, bf},
    /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c2, c4, c8, i8, bf},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c2, c4, c8, f2, f4},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8, f4, f4},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8, f8, f8},
    /* c2 */ {c2, c2, c2, c2, c2, c2, c4, c8, c2, c4, c8, c2, c4},
    /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8, c4, c4},
    /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
    /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf},
    /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c4, c8, bf, bf},
};
/* clang-format on */

ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype *out) {
    if (out != NULL)
        *out = CT_DTYPE_UNDEFINED;
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_promote_types: out must not be NULL");
    if (!ct_dtype_impl_valid(a) || !ct_dtype_impl_valid(b))
        return ct_set_error(CT_ERR_MISUSE, "ct_promote_types: invalid dtype value (%d, %d)", (int)a,
                            (int)b);
    const char *an = ct_dtype_table[a].cpp_name, *bn = ct_dtype_table[b].cpp_name;

    /* The order of these steps is PyTorch's; it decides which error a mixed pair gets. */
    if (a == b) {
        *out = a;
        return CT_OK;
    }
    if (ct_dtype_is_float8(a) || ct_dtype_is_float8(b))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Promotion for Float8 Types is not supported, attempted to promote %s and %s",
                            an, bn);
    if (ct_dtype_is_barebones_unsigned(a) || ct_dtype_is_barebones_unsigned(b)) {
        if (ct_dtype_is_floating_point(a)) {
            *out = a;
            return CT_OK;
        }
        if (ct_dtype_is_floating_point(b)) {
            *out = b;
            return CT_OK;
        }
        return ct_set_error(CT_ERR_RUNTIME,
                            "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                            "promote %s and %s",
                            an, bn);
    }
    int ia = ct_dtype_table[a].promo_index, ib = ct_dtype_table[b].promo_index;
    if (ia < 0 || ib < 0) {
        /* Only float4_e2m1fn_x2 gets here; PyTorch fails an internal assert. */
        const char *odd = ia < 0 ? an : bn;
        return ct_set_error(CT_ERR_RUNTIME,
                            "Promotion for %s is not supported, attempted to promote %s and %s", odd, an,
                            bn);
    }
    *out = promo_dtype[promo_table[ia][ib]];
    return CT_OK;
}

bool ct_can_cast(ct_dtype from, ct_dtype to) {
    if (!ct_dtype_impl_valid(from) || !ct_dtype_impl_valid(to))
        return false;
    if (ct_dtype_is_complex(from) && !ct_dtype_is_complex(to))
        return false;
    if (ct_dtype_is_floating_point(from) && ct_dtype_is_integral(to, false))
        return false;
    if (from != CT_BOOL && to == CT_BOOL)
        return false;
    return true;
}

ct_status ct_check_output_cast(ct_dtype result, ct_dtype out) {
    if (!ct_dtype_impl_valid(result) || !ct_dtype_impl_valid(out))
        return ct_set_error(CT_ERR_MISUSE, "ct_check_output_cast: invalid dtype value (%d, %d)",
                            (int)result, (int)out);
    if (!ct_can_cast(result, out))
        return ct_set_error(CT_ERR_RUNTIME,
                            "result type %s can't be cast to the desired output type %s",
                            ct_dtype_table[result].cpp_name, ct_dtype_table[out].cpp_name);
    return CT_OK;
}
