/* The ops of ctensor/index.h on an accelerator, through host memory (Note [Staging through
 * host memory] in tensor/stage.h): each runs the cpu op on host mirrors of its tensors. */
#ifndef CT_TENSOR_INDEX_STAGE_H
#define CT_TENSOR_INDEX_STAGE_H

#include "ctensor/index.h"

/* Should the op stage: any of self, `extra` and the n indices on an accelerator? */
bool ct_index_stage_wanted(const ct_tensor *self, const ct_tensor *extra,
                           const ct_tensor *const *indices, size_t n);

ct_status ct_index_staged_get(const ct_tensor *self, const ct_tensor *const *indices, size_t n,
                              ct_tensor **out);
ct_status ct_index_staged_put(ct_tensor *self, const ct_tensor *const *indices, size_t n,
                              const ct_tensor *values, bool accumulate);

/* The ops of one or two tensors and an optional out= tensor (which this writes). */
typedef enum {
    CT_INDEX_STAGED_NONZERO,       /* (a) */
    CT_INDEX_STAGED_MASKED_SELECT, /* (a, mask b) */
    CT_INDEX_STAGED_INDEX_SELECT,  /* (a, dim, index b) */
    CT_INDEX_STAGED_TAKE,          /* (a, index b) */
} ct_index_staged_op;

ct_status ct_index_staged_op_run(ct_index_staged_op op, const ct_tensor *a, int64_t dim,
                                 const ct_tensor *b, ct_tensor *out, ct_tensor **result);

#endif /* CT_TENSOR_INDEX_STAGE_H */
