/* Per-op, per-layout implementations (the way device backends register): the public op
 * entry points (ct_binary and the named ops of ops.h) run strided operands themselves and
 * look other layouts up here. A higher layer fills its slots the first time it makes a
 * tensor of its layout (the sparse layer: ct_sparse_impl_make), so every such tensor finds its
 * slots filled and no lower layer calls a higher one. Slots are written with release
 * stores and read with acquire loads; registering twice stores the same function. Also the
 * argument checks every layout's implementation shares. */
#ifndef CT_OPS_DISPATCH_H
#define CT_OPS_DISPATCH_H

#include "ctensor/ops.h"
#include "ctensor/unary.h"

/* op(a, b) in one form: `target` is the out= tensor (FORM_OUT) or self (FORM_INPLACE, == a),
 * NULL for FORM_NEW, where the result goes to *out. Operands are non-NULL. */
typedef ct_status (*ct_op_layout_fn)(ct_op op, const ct_tensor *a, const ct_tensor *b,
                                     ct_scalar alpha, ct_tensor *target, ct_tensor **out);

/* Fill the sparse COO slot of (op, form). Invalid op or form: ignored. */
void ct_op_impl_register_sparse(ct_op op, ct_op_form form, ct_op_layout_fn fn);
/* The sparse COO slot of (op, form); NULL when empty or invalid. */
ct_op_layout_fn ct_op_impl_sparse(ct_op op, ct_op_form form);

/* PyTorch's alpha_check of an op with alpha against its computation dtype, for every layout:
 * CT_ERR_RUNTIME "Boolean alpha only supported for Boolean results.", "For integral input
 * tensors, argument alpha must not be a floating point number.", "For non-complex input
 * tensors, argument alpha must not be a complex number."; CT_ERR_MISUSE for an invalid
 * scalar kind. */
ct_status ct_op_impl_alpha_check(ct_dtype dtype, ct_scalar alpha);

/* How a unary.def row runs on a sparse COO operand (its `sparse` column). */
typedef enum ct_unop_sparse_mode {
    CT_UNOP_SPARSE_NO,
    CT_UNOP_SPARSE_NO_OUT,
    CT_UNOP_SPARSE_COALESCE,
    CT_UNOP_SPARSE_COALESCE_OUT,
    CT_UNOP_SPARSE_VALUES,
} ct_unop_sparse_mode;

/* Unary op `op` where the input or the out= tensor is not strided, in one form: FORM_NEW
 * (result to *out), FORM_INPLACE (target == t), FORM_OUT (target the out= tensor). */
typedef ct_status (*ct_unop_layout_fn)(ct_unop op, ct_unop_sparse_mode mode, const ct_tensor *t,
                                       ct_tensor *target, ct_op_form form, ct_tensor **out);

/* Fill / read the sparse COO slot of the unary ops (one for all rows; NULL when empty). */
void ct_unop_impl_register_sparse(ct_unop_layout_fn fn);
ct_unop_layout_fn ct_unop_impl_sparse(void);

/* The classifications of ops.h (isnan, isinf, isfinite, isposinf, isneginf, isreal) with a
 * sparse COO input or out= tensor: `name` the op's PyTorch name, `fn` / `fn_out` its strided
 * forms (fn_out NULL: no out= form), `target` the out= tensor (NULL: the result to *out). */
typedef ct_status (*ct_classify_dense_fn)(const ct_tensor *t, ct_tensor **out);
typedef ct_status (*ct_classify_dense_out_fn)(const ct_tensor *t, ct_tensor *out);
typedef ct_status (*ct_classify_layout_fn)(const char *name, ct_classify_dense_fn fn,
                                           ct_classify_dense_out_fn fn_out, const ct_tensor *t,
                                           ct_tensor *target, ct_tensor **out);

/* Fill / read the sparse COO slot of the classifications (NULL when empty). */
void ct_classify_impl_register_sparse(ct_classify_layout_fn fn);
ct_classify_layout_fn ct_classify_impl_sparse(void);

#endif /* CT_OPS_DISPATCH_H */
