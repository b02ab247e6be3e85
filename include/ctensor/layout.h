/* ctensor: tensor layouts (torch.layout).
 *
 * Values are PyTorch's c10::Layout ordinals and never change. The tensor core makes
 * strided tensors; the other layouts exist so that a tensor can say what it is (a sparse
 * COO tensor reports CT_LAYOUT_SPARSE_COO) and so that factory functions can refuse them
 * with a clear error until a layer implements them.
 */
#ifndef CTENSOR_LAYOUT_H
#define CTENSOR_LAYOUT_H

#include <stdbool.h>

#include "ctensor/export.h"

CT_EXTERN_C_BEGIN

typedef enum ct_layout {
    CT_LAYOUT_STRIDED = 0,    /**< torch.strided: dense, sizes and strides */
    CT_LAYOUT_SPARSE_COO = 1, /**< torch.sparse_coo (C++ "Sparse") */
    CT_LAYOUT_SPARSE_CSR = 2, /**< torch.sparse_csr */
    CT_LAYOUT_MKLDNN = 3,     /**< torch._mkldnn */
    CT_LAYOUT_SPARSE_CSC = 4, /**< torch.sparse_csc */
    CT_LAYOUT_SPARSE_BSR = 5, /**< torch.sparse_bsr */
    CT_LAYOUT_SPARSE_BSC = 6, /**< torch.sparse_bsc */
    CT_LAYOUT_JAGGED = 7,     /**< torch.jagged (nested tensors) */
} ct_layout;

/** The number of ct_layout values (one past the largest). */
#define CT_NUM_LAYOUTS 8

/** true for CT_LAYOUT_STRIDED .. CT_LAYOUT_JAGGED. */
CT_API bool ct_layout_is_valid(ct_layout layout);

/** The Python name without "torch.": "strided", "sparse_coo", "_mkldnn", ...; static
 *  string, NULL for an invalid value. repr/str of a layout is "torch." + this name. */
CT_API const char *ct_layout_name(ct_layout layout);

/** PyTorch's C++ name, as its messages print a layout: "Strided", "Sparse", "SparseCsr",
 *  "Mkldnn", "SparseCsc", "SparseBsr", "SparseBsc", "Jagged"; NULL for an invalid value. */
CT_API const char *ct_layout_cpp_name(ct_layout layout);

CT_EXTERN_C_END

#endif /* CTENSOR_LAYOUT_H */
