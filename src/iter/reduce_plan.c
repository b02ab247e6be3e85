/* The plan of a reduction: dims, output shape, memory geometry (reduce_plan.h). */
#include "iter/reduce_plan.h"

#include "base/error_impl.h"
#include "tensor/tensor_impl.h"

ct_status ct_reduce_impl_plan(const ct_tensor *t, const int64_t *dims, int64_t ndims, bool keepdim,
                              ct_reduce_plan *p) {
    if (ndims < 0 || ndims > CT_MAX_DIMS)
        return ct_set_error(CT_ERR_MISUSE, "reduce: %lld dims given", (long long)ndims);
    int32_t nd = t->ndim;
    p->ndim = nd;
    bool all = dims == NULL || ndims == 0;
    bool any_empty = false;
    p->first_empty_arg = -1;
    for (int32_t d = 0; d < CT_MAX_DIMS; d++)
        p->reduced[d] = all && d < nd;
    if (!all) {
        int64_t lo = nd > 0 ? -(int64_t)nd : -1, hi = nd > 0 ? nd - 1 : 0;
        for (int64_t k = 0; k < ndims; k++) {
            int64_t d = dims[k];
            if (d < lo || d > hi)
                return ct_set_error(CT_ERR_INDEX,
                                    "Dimension out of range (expected to be in range of "
                                    "[%lld, %lld], but got %lld)",
                                    (long long)lo, (long long)hi, (long long)d);
            if (d < 0)
                d += nd > 0 ? nd : 1;
            if (nd == 0)
                continue; /* the one "dim" of a 0-dim tensor: nothing to mark */
            if (t->sizes[d] == 0 && !any_empty) {
                any_empty = true;
                p->first_empty_arg = dims[k];
            }
            if (p->reduced[d])
                return ct_set_error(CT_ERR_RUNTIME, "dim %lld appears multiple times in the list "
                                                    "of dims",
                                    (long long)d);
            p->reduced[d] = true;
        }
    }
    p->out_ndim = 0;
    p->count = 1;
    p->out_numel = 1;
    p->first_empty = -1;
    for (int32_t d = 0; d < nd; d++) {
        if (p->reduced[d]) {
            p->count *= t->sizes[d];
            if (t->sizes[d] == 0 && p->first_empty < 0) {
                p->first_empty = d;
                if (!any_empty)
                    p->first_empty_arg = d;
                any_empty = true;
            }
            if (keepdim)
                p->out_sizes[p->out_ndim++] = 1;
        } else {
            p->out_sizes[p->out_ndim++] = t->sizes[d];
            p->out_numel *= t->sizes[d];
        }
    }
    return CT_OK;
}

void ct_reduce_impl_geometry(const ct_tensor *t, const ct_reduce_plan *p, int32_t *perm,
                             int32_t *nperm, bool *one_group, int64_t *O, int64_t *R, int64_t *I) {
    /* the dims of size > 1 in memory order: largest stride first (a dense tensor's are
     * distinct); size-1 dims do not matter to the geometry */
    int32_t n = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 1)
            continue;
        int32_t j = n++;
        while (j > 0 && t->strides[perm[j - 1]] < t->strides[d]) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = d;
    }
    *nperm = n;
    int state = 0; /* 0: before the reduced group, 1: in it, 2: after it */
    bool ok = true;
    int64_t o = 1, r = 1, i = 1;
    for (int32_t k = 0; k < n; k++) {
        int32_t d = perm[k];
        int64_t s = t->sizes[d];
        bool red = p->reduced[d];
        if (red && state == 2)
            ok = false;
        if (red && state == 0)
            state = 1;
        if (!red && state == 1)
            state = 2;
        if (red)
            r *= s;
        else if (state == 0)
            o *= s;
        else
            i *= s;
    }
    *one_group = ok;
    *O = o;
    *R = r;
    *I = i;
}
