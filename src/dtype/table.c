/* dtype traits, all derived from include/ctensor/dtypes.def. */
#include <string.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"

const ct_dtype_info ct_dtype_table[CT_NUM_DTYPES] = {
#define CT_DTYPE(E, name, cpp, abbr, alias, size, kind, sign, shell, promo, dl_code, dl_bits) \
    [CT_##E] = {name, cpp, abbr, alias, size, kind, sign, shell, promo, dl_code, dl_bits},
#include "ctensor/dtypes.def"
#undef CT_DTYPE
};

bool ct_dtype_is_valid(ct_dtype dtype) { return ct_dtype_impl_valid(dtype); }

const char *ct_dtype_name(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].name : NULL;
}

const char *ct_dtype_cpp_name(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].cpp_name : NULL;
}

const char *ct_dtype_abbr(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].abbr : NULL;
}

const char *ct_dtype_alias(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].alias : NULL;
}

size_t ct_dtype_itemsize(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].itemsize : 0;
}

ct_dtype_kind ct_dtype_kind_of(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].kind : CT_KIND_BOOL;
}

bool ct_dtype_is_floating_point(ct_dtype d) {
    return ct_dtype_impl_valid(d) && ct_dtype_table[d].kind == CT_KIND_FLOAT;
}

bool ct_dtype_is_complex(ct_dtype d) {
    return ct_dtype_impl_valid(d) && ct_dtype_table[d].kind == CT_KIND_COMPLEX;
}

bool ct_dtype_is_signed(ct_dtype d) {
    return ct_dtype_impl_valid(d) && ct_dtype_table[d].is_signed;
}

bool ct_dtype_is_integral(ct_dtype d, bool include_bool) {
    if (!ct_dtype_impl_valid(d))
        return false;
    ct_dtype_kind k = ct_dtype_table[d].kind;
    return k == CT_KIND_UINT || k == CT_KIND_INT || (include_bool && k == CT_KIND_BOOL);
}

bool ct_dtype_is_float8(ct_dtype d) {
    return d == CT_FLOAT8_E4M3FN || d == CT_FLOAT8_E5M2 || d == CT_FLOAT8_E4M3FNUZ ||
           d == CT_FLOAT8_E5M2FNUZ || d == CT_FLOAT8_E8M0FNU;
}

bool ct_dtype_is_reduced_floating(ct_dtype d) {
    return ct_dtype_is_floating_point(d) && ct_dtype_table[d].itemsize < 4;
}

bool ct_dtype_is_barebones_unsigned(ct_dtype d) {
    return d == CT_UINT16 || d == CT_UINT32 || d == CT_UINT64;
}

bool ct_dtype_is_shell(ct_dtype d) { return ct_dtype_impl_valid(d) && ct_dtype_table[d].is_shell; }

int ct_dtype_dlpack_code(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].dl_code : -1;
}

int ct_dtype_dlpack_bits(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].dl_bits : 0;
}

ct_status ct_dtype_from_name(const char *name, ct_dtype *out) {
    if (out != NULL)
        *out = CT_DTYPE_UNDEFINED;
    if (name == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_dtype_from_name: name and out must not be NULL");
    for (int i = 0; i < CT_NUM_DTYPES; i++) {
        const ct_dtype_info *info = &ct_dtype_table[i];
        if (strcmp(name, info->name) == 0 || (info->alias && strcmp(name, info->alias) == 0)) {
            *out = (ct_dtype)i;
            return CT_OK;
        }
    }
    return ct_set_error(CT_ERR_VALUE, "unknown dtype name '%s'", name);
}

ct_dtype ct_dtype_to_real(ct_dtype d) {
    switch (d) {
    case CT_COMPLEX32: return CT_FLOAT16;
    case CT_COMPLEX64: return CT_FLOAT32;
    case CT_COMPLEX128: return CT_FLOAT64;
    default: return d;
    }
}

ct_status ct_dtype_to_complex(ct_dtype d, ct_dtype *out) {
    ct_dtype r = CT_DTYPE_UNDEFINED;
    switch (d) {
    case CT_FLOAT16: r = CT_COMPLEX32; break;
    case CT_BFLOAT16:
    case CT_FLOAT32: r = CT_COMPLEX64; break;
    case CT_FLOAT64: r = CT_COMPLEX128; break;
    case CT_COMPLEX32:
    case CT_COMPLEX64:
    case CT_COMPLEX128: r = d; break;
    default: break;
    }
    if (out != NULL)
        *out = r;
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_dtype_to_complex: out must not be NULL");
    if (r == CT_DTYPE_UNDEFINED)
        return ct_set_error(CT_ERR_RUNTIME, "Unknown Complex ScalarType for %s",
                            ct_dtype_impl_msg_name(d));
    return CT_OK;
}
