/* gather, scatter and the index_* family on an accelerator (ops/scatter_impl.h): the cpu op on
 * host mirrors of self, index, src and out. PyTorch's device check wants them all on self's
 * device (its "Expected all tensors to be on the same device" error otherwise). */
#include "base/error_impl.h"
#include "ctensor/scatter.h"
#include "ops/scatter_impl.h"
#include "tensor/stage.h"

static const char *const STAGED_NAMES[] = {
    "gather",    "scatter_",   "scatter",     "scatter_reduce_", "scatter_reduce", "index_add_",
    "index_add", "index_fill_", "index_fill", "index_copy_",     "index_copy",
};

bool ct_scatter_impl_stage_wanted(const ct_tensor *self, const ct_tensor *index,
                                  const ct_tensor *src, const ct_tensor *out) {
    return ct_stage_wanted(self) || ct_stage_wanted(index) || ct_stage_wanted(src) ||
           ct_stage_wanted(out);
}

static bool in_place(ct_scatter_staged_op op) {
    return op == CT_SCATTER_STAGED_SCATTER_ || op == CT_SCATTER_STAGED_SCATTER_REDUCE_ ||
           op == CT_SCATTER_STAGED_INDEX_ADD_ || op == CT_SCATTER_STAGED_INDEX_FILL_ ||
           op == CT_SCATTER_STAGED_INDEX_COPY_;
}

static ct_status run_cpu(const ct_scatter_staged_args *a, ct_tensor *self, const ct_tensor *index,
                         const ct_tensor *src, ct_tensor *out, ct_tensor **r) {
    int64_t d = a->dim;
    switch (a->op) {
    case CT_SCATTER_STAGED_GATHER: return ct_gather(self, d, index, out, r);
    case CT_SCATTER_STAGED_SCATTER_: return ct_scatter_(self, d, index, src, a->value, a->reduce);
    case CT_SCATTER_STAGED_SCATTER:
        return ct_scatter(self, d, index, src, a->value, a->reduce, out, r);
    case CT_SCATTER_STAGED_SCATTER_REDUCE_:
        return ct_scatter_reduce_(self, d, index, src, a->reduce, a->include_self);
    case CT_SCATTER_STAGED_SCATTER_REDUCE:
        return ct_scatter_reduce(self, d, index, src, a->reduce, a->include_self, out, r);
    case CT_SCATTER_STAGED_INDEX_ADD_: return ct_index_add_(self, d, index, src, a->scalar);
    case CT_SCATTER_STAGED_INDEX_ADD: return ct_index_add(self, d, index, src, a->scalar, out, r);
    case CT_SCATTER_STAGED_INDEX_FILL_: return ct_index_fill_(self, d, index, a->scalar);
    case CT_SCATTER_STAGED_INDEX_FILL: return ct_index_fill(self, d, index, a->scalar, r);
    case CT_SCATTER_STAGED_INDEX_COPY_: return ct_index_copy_(self, d, index, src);
    case CT_SCATTER_STAGED_INDEX_COPY: return ct_index_copy(self, d, index, src, out, r);
    }
    return ct_set_error(CT_ERR_MISUSE, "ct_scatter_impl_staged: unknown op");
}

ct_status ct_scatter_impl_staged(const ct_scatter_staged_args *a, const ct_tensor *self,
                                 const ct_tensor *index, const ct_tensor *src, ct_tensor *out,
                                 ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, STAGED_NAMES[a->op]);
    int ks = ct_stage_add(&s, self, in_place(a->op) ? CT_STAGE_WRITTEN : 0);
    int ki = ct_stage_add(&s, index, 0), kr = ct_stage_add(&s, src, 0);
    int ko = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = run_cpu(a, ct_stage_host(&s, ks), ct_stage_host(&s, ki), ct_stage_host(&s, kr),
                     ct_stage_host(&s, ko), &h);
    return ct_stage_finish(&s, st, h, result);
}
