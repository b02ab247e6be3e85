/* reduction.c: reductions of global tensors (global.h, ct_global_reduce), run by the
 * collective script of oneop.c. The rules (OneFlow's sbp inference for reduce_sum and
 * reduce_mean), per hierarchy axis of the input's nd-sbp:
 *  - split(d) on a reduced dim: sum and mean reduce each rank's shard, which makes the
 *    result a partial sum (mean: each shard's sum divided by the global count of reduced
 *    elements); the other ops (prod, amax, amin, all, any, max, min) have no partial form
 *    (OneFlow has no partial_max) and gather the axis to broadcast first;
 *  - split(d) on a kept dim stays split, on d less the reduced dims before it (keepdim
 *    false);
 *  - broadcast stays broadcast;
 *  - partial_sum stays partial_sum through sum and mean when the sum of the parts commutes
 *    with the local reduction: the input is floating or complex and so is the result, or the
 *    result keeps the input's dtype (an int32 input summed in int64 would count the parts'
 *    wrap-arounds; a bool partial is a logical or, not a count); otherwise it is reduced to
 *    broadcast first.
 * A result dtype that cannot be a partial sum (ct_dist_impl_reduce_check_dtype) takes the
 * broadcast forms instead. */
#include <stdio.h>
#include <string.h>

#include "ctensor/reduce.h"
#include "dist/dist_impl.h"

typedef struct reduce_args {
    ct_reduce_op op;
    int64_t dims[CT_MAX_DIMS];
    int64_t ndims; /* 0: every dim */
    bool keepdim;
    ct_dtype dtype; /* CT_DTYPE_UNDEFINED: the op's default */
} reduce_args;

static void describe(ct_sb *s, const void *ctx) {
    const reduce_args *a = ctx;
    ct_sb_appendf(s, ", dim=");
    if (a->ndims == 0) {
        ct_sb_appendf(s, "None");
    } else {
        ct_sb_appendf(s, "[");
        for (int64_t i = 0; i < a->ndims; i++)
            ct_sb_appendf(s, "%s%lld", i ? ", " : "", (long long)a->dims[i]);
        ct_sb_appendf(s, "]");
    }
    ct_sb_appendf(s, ", keepdim=%s", a->keepdim ? "True" : "False");
    if (a->dtype != CT_DTYPE_UNDEFINED) {
        const char *name = ct_dtype_name(a->dtype);
        ct_sb_appendf(s, ", dtype=%s", name ? name : "?");
    }
}

static uint64_t hash(uint64_t h, const void *ctx) {
    const reduce_args *a = ctx;
    int64_t head[4] = {(int64_t)a->op, a->ndims, a->keepdim, (int64_t)a->dtype};
    h = ct_hash_bytes(h, head, sizeof head);
    return ct_hash_bytes(h, a->dims, (size_t)a->ndims * sizeof(int64_t));
}

/* Which logical dims are reduced (the dims were checked by the stand-in). */
static void reduced_dims(const reduce_args *a, int64_t ndim, bool *reduced) {
    for (int64_t d = 0; d < ndim; d++)
        reduced[d] = a->ndims == 0;
    for (int64_t i = 0; i < a->ndims; i++) {
        int64_t d = a->dims[i] < 0 ? a->dims[i] + ndim : a->dims[i];
        if (d >= 0 && d < ndim)
            reduced[d] = true;
    }
}

static bool has_partial(const ct_sbp *sbp, int64_t nh) {
    for (int64_t k = 0; k < nh; k++)
        if (sbp[k].kind == CT_SBP_PARTIAL_SUM)
            return true;
    return false;
}

static ct_status apply(const void *ctx, const ct_tensor *in, const ct_global *x,
                       const ct_sbp *z_sbp, ct_tensor **out) {
    const reduce_args *a = ctx;
    const int64_t *dims = a->ndims ? a->dims : NULL;
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    if (a->op != CT_REDUCE_MEAN || !z_sbp || !has_partial(z_sbp, nh))
        return ct_reduce(a->op, in, dims, a->ndims, a->keepdim, a->dtype, out);
    /* A partial mean: this rank's sum over the global count. */
    bool reduced[CT_MAX_DIMS];
    int64_t count = 1;
    reduced_dims(a, ct_global_dim(x), reduced);
    for (int64_t d = 0; d < ct_global_dim(x); d++)
        if (reduced[d])
            count *= ct_global_sizes(x)[d];
    ct_tensor *sum = NULL;
    ct_status st = ct_reduce(CT_REDUCE_SUM, in, dims, a->ndims, a->keepdim, a->dtype, &sum);
    if (st == CT_OK)
        st = ct_div_scalar(sum, ct_scalar_int(count), CT_ROUNDING_NONE, out);
    ct_tensor_release(sum);
    return st;
}

static bool is_float_or_complex(ct_dtype t) {
    return ct_dtype_is_floating_point(t) || ct_dtype_is_complex(t);
}

static void signature(const void *ctx, const ct_global *x, ct_dtype z_dtype, ct_sbp *in_sbp,
                      ct_sbp *z_sbp) {
    const reduce_args *a = ctx;
    const ct_sbp b = {.kind = CT_SBP_BROADCAST, .dim = -1};
    const ct_sbp p = {.kind = CT_SBP_PARTIAL_SUM, .dim = -1};
    const int64_t nh = ct_placement_ndim(ct_global_placement(x)), ndim = ct_global_dim(x);
    const ct_dtype in_dtype = ct_global_dtype(x);
    bool reduced[CT_MAX_DIMS];
    reduced_dims(a, ndim, reduced);
    const bool linear = (a->op == CT_REDUCE_SUM || a->op == CT_REDUCE_MEAN) &&
                        ct_dist_impl_reduce_check_dtype(z_dtype) == CT_OK;
    const bool keeps_p = linear && ((is_float_or_complex(in_dtype) && is_float_or_complex(z_dtype)) ||
                                    in_dtype == z_dtype);
    for (int64_t k = 0; k < nh; k++) {
        const ct_sbp s = ct_global_sbp(x)[k];
        in_sbp[k] = s;
        z_sbp[k] = s;
        if (s.kind == CT_SBP_SPLIT && reduced[s.dim]) {
            if (linear) {
                z_sbp[k] = p;
            } else {
                in_sbp[k] = b;
                z_sbp[k] = b;
            }
        } else if (s.kind == CT_SBP_SPLIT && !a->keepdim) {
            int64_t before = 0;
            for (int64_t d = 0; d < s.dim; d++)
                before += reduced[d];
            z_sbp[k].dim = (int32_t)(s.dim - before);
        } else if (s.kind == CT_SBP_PARTIAL_SUM && !keeps_p) {
            in_sbp[k] = b;
            z_sbp[k] = b;
        }
    }
}

ct_status ct_global_reduce(ct_reduce_op op, const ct_global *x, const int64_t *dims,
                           int64_t ndims, bool keepdim, ct_dtype dtype, ct_global **out) {
    static const char fn[] = "ct_global_reduce";
    const char *name = ct_reduce_op_name(op);
    ct_status st = CT_OK;
    if (!name)
        st = ct_set_error(CT_ERR_MISUSE, "%s: invalid op %d", fn, (int)op);
    else if (ndims < 0 || ndims > CT_MAX_DIMS || (ndims > 0 && !dims))
        st = ct_set_error(CT_ERR_MISUSE, "%s: invalid dims (%lld of them)", fn, (long long)ndims);
    if (st != CT_OK) {
        if (out)
            *out = NULL;
        return ct_global_fail(name ? name : "reduce", st);
    }
    reduce_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.ndims = ndims;
    if (ndims > 0)
        memcpy(a.dims, dims, (size_t)ndims * sizeof(int64_t));
    a.keepdim = keepdim;
    a.dtype = dtype;
    const ct_dist_oneop one = {
        .name = name,
        .fn = fn,
        .ctx = &a,
        .describe = describe,
        .hash = hash,
        .apply = apply,
        .signature = signature,
        .identity = false,
    };
    return ct_dist_impl_oneop_run(&one, x, out);
}
