/* The dtype table generated from include/ctensor/dtypes.def, for the dtype layer. */
#ifndef CT_DTYPE_TABLE_IMPL_H
#define CT_DTYPE_TABLE_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "ctensor/dtype.h"

typedef struct ct_dtype_info {
    const char *name;
    const char *cpp_name;
    const char *abbr;
    const char *alias;
    size_t itemsize;
    ct_dtype_kind kind;
    bool is_signed;
    bool is_shell;
    int promo_index; /* row in the 13x13 table of promote.c, or -1 */
    int dl_code;
    int dl_bits;
} ct_dtype_info;

extern const ct_dtype_info ct_dtype_table[CT_NUM_DTYPES];

static inline bool ct_dtype_impl_valid(ct_dtype d) { return (int)d >= 0 && (int)d < CT_NUM_DTYPES; }

/* The C++ name of d for messages; "Undefined" for an invalid value. */
static inline const char *ct_dtype_impl_msg_name(ct_dtype d) {
    return ct_dtype_impl_valid(d) ? ct_dtype_table[d].cpp_name : "Undefined";
}

/* caffe2's TypeMeta name of d (GCC's spelling of the C++ type), as PyTorch's messages print
 * `tensor.dtype()`: "float", "long int", "unsigned char", "c10::Half"; the C++ ScalarType
 * name for the dtypes without one here. */
static inline const char *ct_dtype_impl_meta_name(ct_dtype d) {
    switch (d) {
    case CT_BOOL: return "bool";
    case CT_UINT8: return "unsigned char";
    case CT_INT8: return "signed char";
    case CT_UINT16: return "short unsigned int";
    case CT_INT16: return "short int";
    case CT_UINT32: return "unsigned int";
    case CT_INT32: return "int";
    case CT_UINT64: return "long unsigned int";
    case CT_INT64: return "long int";
    case CT_FLOAT16: return "c10::Half";
    case CT_BFLOAT16: return "c10::BFloat16";
    case CT_FLOAT32: return "float";
    case CT_FLOAT64: return "double";
    case CT_COMPLEX64: return "c10::complex<float>";
    case CT_COMPLEX128: return "c10::complex<double>";
    default: return ct_dtype_impl_msg_name(d);
    }
}

#endif /* CT_DTYPE_TABLE_IMPL_H */
