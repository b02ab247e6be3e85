/* view.c: basic indexing of a global tensor on each rank's own component (global.h,
 * ct_global_view, ct_global_view_set_).
 *
 * Selection is linear and works dim by dim, so a step on a dim that no hierarchy axis splits
 * does the same thing to every shard as to the logical tensor: broadcast and partial_sum
 * components hold every element of such a dim, and so does a split component of every dim
 * but its split one. The script: one agreement of the call over the world, the steps checked
 * against the logical shape (the same verdict everywhere), the local view of each member's
 * component, a verdict (an allocation can fail on one rank only). */
#include <string.h>

#include "dist/dist_impl.h"

/* The view's shape and nd-sbp after steps[0..n) (the caller sets them to x's first) and
 * whether the index leaves every shard whole. When *t is given, each step that is not the
 * whole dim is applied to it (a member's component; *t replaced by the new view). */
static ct_status walk(const ct_global_step *steps, size_t n, int64_t *sizes, int64_t *ndim,
                      ct_sbp *sbp, int64_t nh, bool *local, ct_tensor **t) {
    *local = true;
    for (size_t i = 0; i < n; i++) {
        const ct_global_step *s = &steps[i];
        const int64_t d = s->dim, nd = *ndim;
        bool split = false;
        for (int64_t k = 0; k < nh; k++)
            split = split || (sbp[k].kind == CT_SBP_SPLIT && sbp[k].dim == d);
        ct_tensor *next = NULL;
        ct_status st = CT_OK;
        switch (s->kind) {
        case CT_GLOBAL_STEP_SELECT:
            if (d < 0 || d >= nd || s->start < 0 || s->start >= sizes[d])
                return ct_set_error(CT_ERR_INDEX, "ct_global_view: step %zu selects %lld of dim "
                                                  "%lld of a %lld-dim view",
                                    i, (long long)s->start, (long long)d, (long long)nd);
            *local = *local && !split;
            if (*local && t && *t)
                st = ct_tensor_select(*t, d, s->start, &next);
            memmove(sizes + d, sizes + d + 1, (size_t)(nd - d - 1) * sizeof *sizes);
            *ndim = nd - 1;
            for (int64_t k = 0; k < nh; k++)
                if (sbp[k].kind == CT_SBP_SPLIT && sbp[k].dim > d)
                    sbp[k].dim--;
            break;
        case CT_GLOBAL_STEP_SLICE: {
            if (d < 0 || d >= nd)
                return ct_set_error(CT_ERR_INDEX, "ct_global_view: step %zu slices dim %lld of a "
                                                  "%lld-dim view",
                                    i, (long long)d, (long long)nd);
            if (s->step <= 0 || s->start < 0 || s->length < 0 ||
                (s->length > 0 && s->start + (s->length - 1) * s->step >= sizes[d]))
                return ct_set_error(CT_ERR_VALUE, "ct_global_view: step %zu (start %lld, length "
                                                  "%lld, step %lld) does not fit dim %lld of size "
                                                  "%lld",
                                    i, (long long)s->start, (long long)s->length,
                                    (long long)s->step, (long long)d, (long long)sizes[d]);
            bool whole = s->length == sizes[d] && (s->length == 0 || s->start == 0) &&
                         (s->step == 1 || s->length <= 1);
            *local = *local && (whole || !split);
            if (*local && !whole && t && *t) {
                int64_t stop = s->length == 0 ? s->start : s->start + (s->length - 1) * s->step + 1;
                st = ct_tensor_slice(*t, d, s->start, stop, s->step, &next);
            }
            sizes[d] = s->length;
            break;
        }
        case CT_GLOBAL_STEP_UNSQUEEZE:
            if (d < 0 || d > nd || nd >= CT_MAX_DIMS)
                return ct_set_error(CT_ERR_INDEX, "ct_global_view: step %zu inserts dim %lld into "
                                                  "a %lld-dim view",
                                    i, (long long)d, (long long)nd);
            if (*local && t && *t)
                st = ct_tensor_unsqueeze(*t, d, &next);
            memmove(sizes + d + 1, sizes + d, (size_t)(nd - d) * sizeof *sizes);
            sizes[d] = 1;
            *ndim = nd + 1;
            for (int64_t k = 0; k < nh; k++)
                if (sbp[k].kind == CT_SBP_SPLIT && sbp[k].dim >= d)
                    sbp[k].dim++;
            break;
        default:
            return ct_set_error(CT_ERR_VALUE, "ct_global_view: step %zu has no kind %d", i,
                                (int)s->kind);
        }
        if (st != CT_OK)
            return st;
        if (next) {
            ct_tensor_release(*t);
            *t = next;
        }
    }
    return CT_OK;
}

/* x's shape and nd-sbp walked through the steps. */
static ct_status plan(const ct_global *x, const ct_global_step *steps, size_t n, int64_t *sizes,
                      int64_t *ndim, ct_sbp *sbp, bool *local, ct_tensor **t) {
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    *ndim = ct_global_dim(x);
    memcpy(sizes, ct_global_sizes(x), (size_t)*ndim * sizeof *sizes);
    memcpy(sbp, ct_global_sbp(x), (size_t)nh * sizeof *sbp);
    return walk(steps, n, sizes, ndim, sbp, nh, local, t);
}

bool ct_global_view_is_local(const ct_global *x, const ct_global_step *steps, size_t n,
                             bool for_write) {
    if (!x || (n > 0 && !steps))
        return false;
    int64_t sizes[CT_MAX_DIMS], ndim;
    ct_sbp sbp[CT_PLACEMENT_MAX_NDIM];
    bool local = false;
    ct_status st = plan(x, steps, n, sizes, &ndim, sbp, &local, NULL);
    if (st != CT_OK) {
        ct_clear_error();
        return false;
    }
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    return local && !(for_write && ct_dist_impl_nd_sbp_has_partial(ct_global_sbp(x), nh));
}

/* The opening agreement: the op, x, the steps field by field (no padding read), the value,
 * which pointers are NULL (a misuse must be every rank's). */
static ct_status agree_view(const char *op, const ct_global *x, const ct_global_step *steps,
                            size_t n, bool null_out, const ct_global *value,
                            const ct_scalar *fill) {
    ct_agree_record rec;
    memset(&rec, 0, sizeof rec);
    ct_sb s;
    ct_sb_init_buf(&s, rec.what, sizeof rec.what);
    ct_sb_appendf(&s, "%s(", op);
    ct_dist_impl_sb_global(&s, x);
    ct_sb_appendf(&s, ", %zu steps", n);
    if (value) {
        ct_sb_appendf(&s, ", ");
        ct_dist_impl_sb_global(&s, value);
    }
    ct_sb_appendf(&s, ")");
    int64_t head[4] = {(int64_t)n, steps != NULL, fill != NULL, null_out};
    uint64_t h = ct_hash_bytes(0, head, sizeof head);
    for (size_t i = 0; steps && i < n; i++) {
        int64_t f[5] = {(int64_t)steps[i].kind, steps[i].dim, steps[i].start, steps[i].length,
                        steps[i].step};
        h = ct_hash_bytes(h, f, sizeof f);
    }
    if (fill)
        h = ct_dist_impl_hash_scalar(h, *fill);
    h = ct_dist_impl_hash_global(h, value);
    rec.hash = ct_dist_impl_hash_global(h, x);
    rec.placement = x ? ct_placement_hash(ct_global_placement(x)) : 0;
    rec.dtype = x ? (int32_t)ct_global_dtype(x) : -1;
    return ct_dist_impl_agree_call(&rec, op);
}

/* What the agreed steps make of x: the view's logical shape and nd-sbp. */
typedef struct view_plan {
    int64_t sizes[CT_MAX_DIMS];
    int64_t ndim;
    ct_sbp sbp[CT_PLACEMENT_MAX_NDIM];
} view_plan;

/* The opening of both entry points: the agreement, the arguments, the steps against x's
 * shape and the locality rule, every verdict the same on every rank. */
static ct_status open_view(const char *op, const char *fn, const ct_global *x,
                           const ct_global_step *steps, size_t n, bool null_out,
                           const ct_global *value, const ct_scalar *fill, bool for_write,
                           view_plan *vp) {
    ct_status st = agree_view(op, x, steps, n, null_out, value, fill);
    if (st != CT_OK)
        return st;
    if (!x || null_out || (n > 0 && !steps)) /* the same on every rank after the agreement */
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    bool local = false;
    if ((st = plan(x, steps, n, vp->sizes, &vp->ndim, vp->sbp, &local, NULL)) != CT_OK)
        return st;
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    if (!local || (for_write && ct_dist_impl_nd_sbp_has_partial(ct_global_sbp(x), nh)))
        return ct_set_error(CT_ERR_VALUE, "%s: the index does not leave every shard whole (a "
                                          "select or part of a split dim%s)",
                            fn, for_write ? ", or a partial_sum to write into" : "");
    return CT_OK;
}

/* The steps on this member's component: a view of x's storage. New reference in *view. */
static ct_status member_view(const ct_global *x, const ct_global_step *steps, size_t n,
                             ct_tensor **view) {
    view_plan again;
    bool local;
    *view = ct_tensor_retain(x->local);
    return plan(x, steps, n, again.sizes, &again.ndim, again.sbp, &local, view);
}

ct_status ct_global_view(const ct_global *x, const ct_global_step *steps, size_t n,
                         ct_global **out) {
    if (out)
        *out = NULL;
    view_plan vp;
    ct_status st = open_view("getitem", "ct_global_view", x, steps, n, out == NULL, NULL, NULL,
                             false, &vp);
    if (st != CT_OK)
        return st;
    const ct_placement *pl = ct_global_placement(x);
    ct_tensor *comp = NULL;
    if (ct_dist_impl_placement_my_pid(pl) >= 0) {
        ct_tensor *view = NULL, *copy = NULL;
        st = member_view(x, steps, n, &view);
        if (st == CT_OK)
            st = ct_tensor_clone(view, CT_MEMFMT_CONTIGUOUS, &copy);
        ct_tensor_release(view);
        if (st == CT_OK)
            st = ct_dist_impl_own_component(copy, ct_global_local(x), pl, vp.sizes, vp.ndim,
                                            vp.sbp, "getitem", &comp);
    } else {
        st = ct_dist_impl_global_empty_local(ct_global_dtype(x), vp.ndim, &comp);
    }
    ct_global *z = NULL;
    if (st == CT_OK)
        st = ct_dist_impl_global_make(ct_global_dtype(x), vp.sizes, vp.ndim, pl, vp.sbp, comp,
                                      &z);
    st = ct_dist_impl_agree_outcome(st);
    if (st != CT_OK) {
        ct_global_release(z);
        return st;
    }
    *out = z;
    return CT_OK;
}

/* PyTorch's copy_to for the whole logical value `full` (a broadcast component) into the view
 * of shape vp: without its leading size-1 dims (slicePrefix1sDims), expanded to that shape,
 * then this rank's box of it copied into `dst`. */
static ct_status copy_part(ct_tensor *dst, const ct_tensor *full, const view_plan *vp,
                           const ct_placement *pl) {
    ct_tensor *cur = ct_tensor_retain((ct_tensor *)full), *next = NULL;
    ct_status st = CT_OK;
    while (st == CT_OK && ct_tensor_dim(cur) > 0 && ct_tensor_sizes(cur)[0] == 1) {
        st = ct_tensor_select(cur, 0, 0, &next);
        ct_tensor_release(cur);
        cur = next;
        next = NULL;
    }
    if (st == CT_OK) {
        st = ct_tensor_expand(cur, vp->sizes, vp->ndim, &next);
        ct_tensor_release(cur);
        cur = next;
    }
    ct_box box;
    ct_dist_impl_local_box(vp->sizes, vp->ndim, pl, vp->sbp, ct_dist_impl_placement_my_pid(pl),
                           &box);
    for (int64_t d = 0; st == CT_OK && d < vp->ndim; d++) {
        if (box.len[d] == vp->sizes[d])
            continue;
        next = NULL;
        st = ct_tensor_slice(cur, d, box.begin[d], box.begin[d] + box.len[d], 1, &next);
        ct_tensor_release(cur);
        cur = next;
    }
    if (st == CT_OK)
        st = ct_tensor_copy_(dst, cur);
    ct_tensor_release(cur);
    return st;
}

ct_status ct_global_view_set_(ct_global *x, const ct_global_step *steps, size_t n,
                              const ct_global *value, ct_scalar fill) {
    view_plan vp;
    ct_status st = open_view("setitem", "ct_global_view_set_", x, steps, n, false, value,
                             value ? NULL : &fill, true, &vp);
    if (st != CT_OK)
        return st;
    const ct_placement *pl = ct_global_placement(x);
    ct_global *vb = NULL;
    if (value) {
        const int64_t nh = ct_placement_ndim(pl);
        ct_sbp b[CT_PLACEMENT_MAX_NDIM];
        for (int64_t k = 0; k < nh; k++)
            b[k] = (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1};
        st = ct_global_to_global(value, pl, b, nh, 0, &vb);
        if (st != CT_OK)
            return st; /* collective: every rank's */
    }
    if (ct_dist_impl_placement_my_pid(pl) >= 0) {
        ct_tensor *view = NULL;
        st = member_view(x, steps, n, &view);
        if (st == CT_OK)
            st = vb ? copy_part(view, ct_global_local(vb), &vp, pl) : ct_tensor_fill_(view, fill);
        ct_tensor_release(view);
    }
    ct_global_release(vb);
    return ct_dist_impl_agree_outcome(st);
}
