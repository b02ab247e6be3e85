/* join.c: cat and stack of global tensors (global.h), run by the collective script of
 * multiop.c, and their sbp inference.
 *
 * Per hierarchy axis the first input's sbp decides (the others are boxed to it):
 *   - broadcast stays broadcast;
 *   - split(d) on a dim that is not the joined one stays split(d): each rank joins its
 *     shards, which cover the same slice of d in every input (for stack, a split dim at or
 *     after the new dim is renumbered d + 1);
 *   - split on the cat dim, or partial_sum, cannot be joined shard by shard (the shards of
 *     the cat dim would interleave; OneFlow's concat has no partial signature): the inputs
 *     are boxed to split on the lowest other dim, or to broadcast when there is none.
 * A (0,)-shaped input that cat skips (PyTorch's rule) is boxed to broadcast: its only dim
 * may not exist in the others. */
#include <string.h>

#include "ctensor/join.h"
#include "dist/dist_impl.h"

typedef struct join_args {
    bool stack;
    int64_t dim;
} join_args;

static bool skipped(const join_args *j, const ct_global *g) {
    return !j->stack && ct_global_dim(g) == 1 && ct_global_sizes(g)[0] == 0;
}

/* The sbp every joined input takes on one axis, given the first input's `s`, the joined dim
 * `d` (wrapped) and the inputs' ndim `nd`. */
static ct_sbp target(const join_args *j, ct_sbp s, int64_t d, int64_t nd) {
    const bool ok_split = s.kind == CT_SBP_SPLIT && (j->stack || s.dim != d) &&
                          !(j->stack && s.dim >= d && s.dim + 1 >= CT_SBP_MAX_SPLIT_AXIS);
    if (s.kind == CT_SBP_BROADCAST || ok_split)
        return s;
    for (int64_t e = 0; e < nd && e < CT_SBP_MAX_SPLIT_AXIS; e++) {
        if (!j->stack && e == d)
            continue;
        if (j->stack && e >= d && e + 1 >= CT_SBP_MAX_SPLIT_AXIS)
            continue; /* renumbered past the limit */
        return (ct_sbp){.kind = CT_SBP_SPLIT, .dim = (int32_t)e};
    }
    return (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1};
}

static ct_status signature(const void *ctx, const ct_global *const *x, size_t n,
                           ct_sbp (*in_sbp)[CT_PLACEMENT_MAX_NDIM], ct_sbp *z_sbp) {
    const join_args *j = ctx;
    size_t ref = 0; /* the first input cat does not skip (the local op wraps dim against it) */
    while (ref + 1 < n && skipped(j, x[ref]))
        ref++;
    const int64_t nd = ct_global_dim(x[ref]);
    const int64_t d = j->dim < 0 ? j->dim + nd + (j->stack ? 1 : 0) : j->dim;
    const int64_t nh = ct_placement_ndim(ct_global_placement(x[0]));
    for (int64_t k = 0; k < nh; k++) {
        /* the first input that is not skipped decides */
        const ct_sbp t = target(j, ct_global_sbp(x[ref])[k], d, nd);
        for (size_t i = 0; i < n; i++)
            in_sbp[i][k] = skipped(j, x[i]) && i != ref
                               ? (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1}
                               : t;
        z_sbp[k] = t;
        if (j->stack && t.kind == CT_SBP_SPLIT && t.dim >= d)
            z_sbp[k].dim++;
    }
    return CT_OK;
}

static ct_status apply(const void *ctx, const ct_tensor *const *in, size_t n, ct_tensor **out) {
    const join_args *j = ctx;
    return j->stack ? ct_tensor_stack(in, n, j->dim, out) : ct_tensor_cat(in, n, j->dim, out);
}

static void describe(ct_sb *s, const void *ctx) {
    const join_args *j = ctx;
    ct_sb_appendf(s, ", dim=%lld", (long long)j->dim);
}

static uint64_t hash(uint64_t h, const void *ctx) {
    const join_args *j = ctx;
    const int64_t v[2] = {j->stack, j->dim};
    return ct_hash_bytes(h, v, sizeof v);
}

static ct_status run(const join_args *j, const char *fn, const ct_global *const *tensors,
                     size_t n, ct_global **out) {
    const ct_dist_multiop op = {
        .name = j->stack ? "stack" : "cat",
        .fn = fn,
        .ctx = j,
        .describe = describe,
        .hash = hash,
        .apply = apply,
        .signature = signature,
    };
    return ct_dist_impl_multiop_run(&op, tensors, n, out);
}

ct_status ct_global_cat(const ct_global *const *tensors, size_t n, int64_t dim, ct_global **out) {
    const join_args j = {.stack = false, .dim = dim};
    return run(&j, "ct_global_cat", tensors, n, out);
}

ct_status ct_global_stack(const ct_global *const *tensors, size_t n, int64_t dim,
                          ct_global **out) {
    const join_args j = {.stack = true, .dim = dim};
    return run(&j, "ct_global_stack", tensors, n, out);
}
