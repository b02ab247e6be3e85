/* Running an element-wise iterator: its loop geometry handed to the shared walk
 * (dtype/convert/walk.c, Note [Iterator run order]), which copy_ uses as well. */
#include "dtype/convert/walk_impl.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"

_Static_assert(CT_CONVERT_WALK_MAX_OPERANDS >= CT_ITER_MAX_OPERANDS,
               "the walk takes every operand");
_Static_assert(CT_CONVERT_WALK_MAX_DIMS >= CT_MAX_DIMS, "and every dim");

int ct_iter_run(const ct_iter *it, ct_iter_loop loop, void *ctx, int64_t grain) {
    if (it->is_meta || it->numel == 0)
        return 0;
    ct_convert_walk w = {.nops = it->ntensors, .ndim = it->ndim, .shape = it->shape, .move = false};
    for (int k = 0; k < it->ntensors; k++) {
        w.strides[k] = it->strides[k];
        w.data[k] = it->data[k];
        w.itemsize[k] = (int64_t)ct_dtype_table[it->dtype[k]].itemsize;
    }
    return ct_convert_walk_run(&w, loop, ctx, grain);
}
