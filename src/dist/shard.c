/* shard.c: balanced splitting and the box (slice of the logical tensor) each rank holds
 * (lower parallel ids get the extra elements; docs/global-tensors.md). */
#include <string.h>

#include "dist/dist_impl.h"

void ct_dist_impl_balanced_part(int64_t total, int64_t n, int64_t i, int64_t *begin, int64_t *len) {
    int64_t base = total / n, rem = total % n;
    /* Lower parts take the remainder, one element each. */
    if (i < rem) {
        *begin = (base + 1) * i;
        *len = base + 1;
    } else {
        *begin = (base + 1) * rem + base * (i - rem);
        *len = base;
    }
}

void ct_dist_impl_local_box(const int64_t *sizes, int64_t ndim, const ct_placement *placement,
                            const ct_sbp *sbp, int64_t pid, ct_box *out) {
    memset(out, 0, sizeof(*out));
    out->ndim = ndim;
    if (pid < 0)
        return;
    for (int64_t d = 0; d < ndim; d++)
        out->len[d] = sizes[d];
    int64_t coords[CT_PLACEMENT_MAX_NDIM];
    ct_dist_impl_placement_coords(placement, pid, coords);
    /* Axis by axis: each split divides what the previous axes left of that dim. */
    for (int64_t k = 0; k < placement->ndim; k++) {
        if (sbp[k].kind != CT_SBP_SPLIT)
            continue;
        int64_t d = sbp[k].dim, b, l;
        ct_dist_impl_balanced_part(out->len[d], placement->hierarchy[k], coords[k], &b, &l);
        out->begin[d] += b;
        out->len[d] = l;
    }
}

void ct_dist_impl_box_intersect(const ct_box *a, const ct_box *b, ct_box *out) {
    ct_box r;
    memset(&r, 0, sizeof(r));
    r.ndim = a->ndim;
    for (int64_t d = 0; d < a->ndim; d++) {
        int64_t lo = a->begin[d] > b->begin[d] ? a->begin[d] : b->begin[d];
        int64_t ea = a->begin[d] + a->len[d], eb = b->begin[d] + b->len[d];
        int64_t hi = ea < eb ? ea : eb;
        r.begin[d] = lo;
        r.len[d] = hi > lo ? hi - lo : 0;
    }
    *out = r;
}

int64_t ct_dist_impl_box_numel(const ct_box *box) {
    int64_t n = 1;
    for (int64_t d = 0; d < box->ndim; d++)
        n *= box->len[d];
    return n;
}

bool ct_dist_impl_box_equal(const ct_box *a, const ct_box *b) {
    if (a->ndim != b->ndim)
        return false;
    for (int64_t d = 0; d < a->ndim; d++)
        if (a->begin[d] != b->begin[d] || a->len[d] != b->len[d])
            return false;
    return true;
}

ct_status ct_dist_impl_own_component(ct_tensor *r, const ct_tensor *input_local,
                                     const ct_placement *placement, const int64_t *z_sizes,
                                     int64_t z_ndim, const ct_sbp *z_sbp, const char *what,
                                     ct_tensor **out) {
    ct_box box;
    ct_dist_impl_local_box(z_sizes, z_ndim, placement, z_sbp,
                           ct_dist_impl_placement_my_pid(placement), &box);
    bool match = ct_tensor_dim(r) == z_ndim;
    for (int64_t i = 0; match && i < z_ndim; i++)
        match = ct_tensor_sizes(r)[i] == box.len[i];
    if (!match) {
        ct_tensor_release(r);
        return ct_set_error(CT_ERR_RUNTIME, "internal error: %s of the local components gave a "
                                            "result that is not this rank's part of the output",
                            what);
    }
    if (!ct_tensor_is_contiguous(r, CT_MEMFMT_CONTIGUOUS) || r == input_local) {
        ct_tensor *c = NULL;
        ct_status st = ct_tensor_clone(r, CT_MEMFMT_CONTIGUOUS, &c);
        ct_tensor_release(r);
        if (st != CT_OK)
            return st;
        r = c;
    }
    *out = r;
    return CT_OK;
}
