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

#endif /* CT_DTYPE_TABLE_IMPL_H */
