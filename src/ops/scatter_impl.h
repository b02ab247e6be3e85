/* What src/ops/scatter.c and src/ops/index_slices.c share: the one strided loop behind
 * gather, scatter and the index_* family (src/ops/scatter_kernel.c). Layering: ops. */
#ifndef CT_OPS_SCATTER_IMPL_H
#define CT_OPS_SCATTER_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/scatter.h"
#include "ctensor/tensor.h"

/* How a written element combines with the target's. */
typedef enum ct_scatter_op {
    CT_SCATTER_OP_COPY,
    CT_SCATTER_OP_ADD,
    CT_SCATTER_OP_ADD_ALPHA, /* target += src * alpha */
    CT_SCATTER_OP_MUL,
    CT_SCATTER_OP_MAX,
    CT_SCATTER_OP_MIN,
} ct_scatter_op;

/* Which of PyTorch's messages an out-of-range index gets. */
typedef enum ct_scatter_err {
    CT_SCATTER_ERR_GATHER, /* RuntimeError "index 5 is out of bounds for dimension 1 with size 3" */
    CT_SCATTER_ERR_SELF,   /* IndexError "index out of range in self" */
    CT_SCATTER_ERR_FILL,   /* IndexError "index 5 is out of bounds for dimension 1 with size 3" */
    CT_SCATTER_ERR_COPY,   /* IndexError "index_copy_(): index 5 is out of bounds ..." */
} ct_scatter_err;

/* One loop over the positions of an iteration shape `sizes` (nd dims). At position p the
 * index element ix[p . is] (int64, or int32 when ix32) names v; the target element is
 * t[p with p[dim] = v] (strides ts, v in [0, tsize), negative v counts from the end when
 * `wrap`) and the other element s[p . ss]. gather copies target -> other; otherwise the
 * other element is combined into the target by `op` (strides of 0 broadcast; the targets
 * of different positions off `dim` never coincide, so rows along dim run in parallel).
 * Strides are in elements. `alpha` (ADD_ALPHA) is a scalar of the op's compute type. */
typedef struct ct_scatter_plan {
    int64_t nd, dim;
    int64_t sizes[CT_MAX_DIMS];
    char *t;
    int64_t ts[CT_MAX_DIMS], tsize;
    char *s;
    int64_t ss[CT_MAX_DIMS];
    const char *ix;
    int64_t is[CT_MAX_DIMS];
    bool ix32, gather, wrap;
    ct_dtype dtype;
    ct_scatter_op op;
    ct_scalar alpha;
    ct_scatter_err err;
    int64_t err_dim; /* the dim the message names */
} ct_scatter_plan;

/* Whether the loop has op for dtype (copy: every dtype with an itemsize). */
bool ct_scatter_impl_has_op(ct_dtype dtype, ct_scatter_op op);

/* Run the plan. Errors: the out-of-range message `err` names; CT_ERR_NOMEM. */
ct_status ct_scatter_impl_run(const ct_scatter_plan *p);

/* self is a strided cpu tensor (CT_ERR_NOT_IMPLEMENTED otherwise: meta, as accelerators'
 * tensors were staged before; `fn` names the op). */
ct_status ct_scatter_impl_check(const ct_tensor *t, const char *fn);
/* dt is one of the dtypes of torch 1.13's scatter/gather kernels, else CT_ERR_NOT_IMPLEMENTED
 * "\"<kernel>\" not implemented for 'ComplexHalf'". */
ct_status ct_scatter_impl_dtype(ct_dtype dt, const char *kernel);
/* t's sizes and strides, a 0-dim tensor as one element of stride 0. */
void ct_scatter_impl_dims(const ct_tensor *t, int64_t *sizes, int64_t *strides);
/* The out= step: out NULL: *result = r; else r is copied into out (dtype checked, resized)
 * and *result is a new reference to out. r is consumed either way. */
ct_status ct_scatter_impl_finish(ct_tensor *r, ct_tensor *out, ct_tensor **result);

/* ---- on an accelerator (src/ops/scatter_stage.c) -------------------------------------------
 * Through host memory (Note [Staging through host memory] in tensor/stage.h): the public op
 * runs on host mirrors of its tensors, which must all be on one device (PyTorch's device
 * check), and writes self (the in-place forms) or out back. */
typedef enum {
    CT_SCATTER_STAGED_GATHER,
    CT_SCATTER_STAGED_SCATTER_,
    CT_SCATTER_STAGED_SCATTER,
    CT_SCATTER_STAGED_SCATTER_REDUCE_,
    CT_SCATTER_STAGED_SCATTER_REDUCE,
    CT_SCATTER_STAGED_INDEX_ADD_,
    CT_SCATTER_STAGED_INDEX_ADD,
    CT_SCATTER_STAGED_INDEX_FILL_,
    CT_SCATTER_STAGED_INDEX_FILL,
    CT_SCATTER_STAGED_INDEX_COPY_,
    CT_SCATTER_STAGED_INDEX_COPY,
} ct_scatter_staged_op;

/* The arguments of one op besides its tensors. */
typedef struct ct_scatter_staged_args {
    ct_scatter_staged_op op;
    int64_t dim;
    const ct_scalar *value; /* scatter's value (src NULL) */
    ct_scatter_mode reduce;
    bool include_self;
    ct_scalar scalar; /* index_add's alpha, index_fill's value */
} ct_scatter_staged_args;

/* Any of the tensors (NULL allowed) on an accelerator? */
bool ct_scatter_impl_stage_wanted(const ct_tensor *self, const ct_tensor *index,
                                  const ct_tensor *src, const ct_tensor *out);
/* The op on host mirrors; `result` NULL for the in-place forms. */
ct_status ct_scatter_impl_staged(const ct_scatter_staged_args *a, const ct_tensor *self,
                                 const ct_tensor *index, const ct_tensor *src, ct_tensor *out,
                                 ct_tensor **result);

#endif /* CT_OPS_SCATTER_IMPL_H */
