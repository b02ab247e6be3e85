/* reduction_arg.c: max / min with a dim (values and indices), argmax / argmin and cumsum /
 * cumprod of global tensors (global.h), run by the collective script of oneop.c.
 *
 * The signatures follow OneFlow's sbp inference for these ops (oneflow/user/ops/
 * reduce_ops.cpp: reduce_max / reduce_min have split signatures on the kept dims only and no
 * partial form; argmax_op.cpp: split on the dims other than the reduced one; cum_ops.cpp:
 * cumsum / cumprod split on dims other than `dim`), per hierarchy axis of the input:
 *  - split(d) on the reduced / scanned dim: gathered to broadcast first (a max's index and a
 *    prefix both need the whole dim; the result is then computed as torch computes it, ties
 *    and NaN included), the result is broadcast;
 *  - split(d) on another dim stays split (on d less one when the reduced dim was before d and
 *    keepdim is false);
 *  - broadcast stays broadcast;
 *  - partial_sum: max, min and the arg ops need the sum, so it is reduced to broadcast first;
 *    cumsum keeps it under sum's rule (reduction.c: the input and result both floating or
 *    complex, or the result in the input's dtype; a cumulative sum of a sum is the sum of the
 *    parts' cumulative sums); cumprod reduces it to broadcast.
 * OneFlow restricts cumsum's splits to dims after `dim` (a kernel layout choice); any other
 * dim is as correct and moves nothing, so ctensor keeps them all. */
#include <string.h>

#include "ctensor/reduce.h"
#include "dist/dist_impl.h"

typedef enum arg_kind {
    ARG_MAX_DIM,
    ARG_MIN_DIM,
    ARG_ARGMAX,
    ARG_ARGMIN,
    ARG_CUMSUM,
    ARG_CUMPROD
} arg_kind;

static const char *const NAMES[] = {
    [ARG_MAX_DIM] = "max",   [ARG_MIN_DIM] = "min",   [ARG_ARGMAX] = "argmax",
    [ARG_ARGMIN] = "argmin", [ARG_CUMSUM] = "cumsum", [ARG_CUMPROD] = "cumprod",
};

typedef struct arg_args {
    arg_kind kind;
    bool has_dim; /* argmax / argmin: false for the flattened input */
    int64_t dim;
    bool keepdim;
    ct_dtype dtype; /* cumsum / cumprod; CT_DTYPE_UNDEFINED: the op's default */
} arg_args;

static bool is_cumulative(arg_kind k) { return k == ARG_CUMSUM || k == ARG_CUMPROD; }

static void describe(ct_sb *s, const void *ctx) {
    const arg_args *a = ctx;
    if (a->has_dim)
        ct_sb_appendf(s, ", dim=%lld", (long long)a->dim);
    else
        ct_sb_appendf(s, ", dim=None");
    if (is_cumulative(a->kind)) {
        if (a->dtype != CT_DTYPE_UNDEFINED) {
            const char *name = ct_dtype_name(a->dtype);
            ct_sb_appendf(s, ", dtype=%s", name ? name : "?");
        }
    } else {
        ct_sb_appendf(s, ", keepdim=%s", a->keepdim ? "True" : "False");
    }
}

static uint64_t hash(uint64_t h, const void *ctx) {
    const arg_args *a = ctx;
    int64_t v[5] = {(int64_t)a->kind, a->has_dim, a->dim, a->keepdim, (int64_t)a->dtype};
    return ct_hash_bytes(h, v, sizeof v);
}

static ct_status apply(const void *ctx, const ct_tensor *in, const ct_global *x,
                       const ct_sbp *z_sbp, ct_tensor **out) {
    const arg_args *a = ctx;
    (void)x;
    (void)z_sbp; /* every signature computes the same local op on the component */
    switch (a->kind) {
    case ARG_ARGMAX:
        return ct_argmax(in, a->has_dim ? &a->dim : NULL, a->keepdim, out);
    case ARG_ARGMIN:
        return ct_argmin(in, a->has_dim ? &a->dim : NULL, a->keepdim, out);
    default:
        return ct_cumulative(a->kind == ARG_CUMPROD, in, a->dim, a->dtype, NULL, out);
    }
}

static ct_status apply2(const void *ctx, const ct_tensor *in, const ct_global *x,
                        const ct_sbp *z_sbp, ct_tensor **values, ct_tensor **indices) {
    const arg_args *a = ctx;
    (void)x;
    (void)z_sbp;
    return (a->kind == ARG_MAX_DIM ? ct_max_dim : ct_min_dim)(in, a->dim, a->keepdim, values,
                                                              indices);
}

static bool is_float_or_complex(ct_dtype t) {
    return ct_dtype_is_floating_point(t) || ct_dtype_is_complex(t);
}

/* Whether cumsum keeps a partial_sum input partial (reduction.c's rule for sum). */
static bool cumsum_keeps_partial(ct_dtype in, ct_dtype z) {
    if (ct_dist_impl_reduce_check_dtype(z) != CT_OK)
        return false;
    return (is_float_or_complex(in) && is_float_or_complex(z)) || in == z;
}

static void signature(const void *ctx, const ct_global *x, ct_dtype z_dtype, ct_sbp *in_sbp,
                      ct_sbp *z_sbp) {
    const arg_args *a = ctx;
    const ct_sbp b = {.kind = CT_SBP_BROADCAST, .dim = -1};
    const int64_t nh = ct_placement_ndim(ct_global_placement(x)), ndim = ct_global_dim(x);
    /* the dim was checked by the stand-ins; a 0-dim input has no split to renumber */
    const int64_t d = !a->has_dim ? -1 : (a->dim < 0 ? a->dim + (ndim > 0 ? ndim : 1) : a->dim);
    const bool cum = is_cumulative(a->kind);
    const bool keep_p = a->kind == ARG_CUMSUM && cumsum_keeps_partial(ct_global_dtype(x), z_dtype);
    for (int64_t k = 0; k < nh; k++) {
        const ct_sbp s = ct_global_sbp(x)[k];
        in_sbp[k] = s;
        z_sbp[k] = s;
        if (s.kind == CT_SBP_SPLIT) {
            if (!a->has_dim || s.dim == d) {
                in_sbp[k] = b;
                z_sbp[k] = b;
            } else if (!cum && !a->keepdim && s.dim > d) {
                z_sbp[k].dim = s.dim - 1;
            }
        } else if (s.kind == CT_SBP_PARTIAL_SUM && !keep_p) {
            in_sbp[k] = b;
            z_sbp[k] = b;
        }
    }
}

static ct_dist_oneop make_op(const arg_args *a, const char *fn) {
    return (ct_dist_oneop){
        .name = NAMES[a->kind],
        .fn = fn,
        .ctx = a,
        .describe = describe,
        .hash = hash,
        .apply = a->kind == ARG_MAX_DIM || a->kind == ARG_MIN_DIM ? NULL : apply,
        .signature = signature,
        .identity = false,
        .apply2 = a->kind == ARG_MAX_DIM || a->kind == ARG_MIN_DIM ? apply2 : NULL,
    };
}

static ct_status dim_run(arg_kind kind, const char *fn, const ct_global *x, int64_t dim,
                         bool keepdim, ct_global **values, ct_global **indices) {
    const arg_args a = {
        .kind = kind, .has_dim = true, .dim = dim, .keepdim = keepdim, .dtype = CT_DTYPE_UNDEFINED};
    const ct_dist_oneop op = make_op(&a, fn);
    return ct_dist_impl_oneop_run2(&op, x, values, indices);
}

ct_status ct_global_max_dim(const ct_global *x, int64_t dim, bool keepdim, ct_global **values,
                            ct_global **indices) {
    return dim_run(ARG_MAX_DIM, "ct_global_max_dim", x, dim, keepdim, values, indices);
}

ct_status ct_global_min_dim(const ct_global *x, int64_t dim, bool keepdim, ct_global **values,
                            ct_global **indices) {
    return dim_run(ARG_MIN_DIM, "ct_global_min_dim", x, dim, keepdim, values, indices);
}

static ct_status arg_run(arg_kind kind, const char *fn, const ct_global *x, const int64_t *dim,
                         bool keepdim, ct_global **out) {
    const arg_args a = {.kind = kind,
                        .has_dim = dim != NULL,
                        .dim = dim ? *dim : 0,
                        .keepdim = keepdim,
                        .dtype = CT_DTYPE_UNDEFINED};
    const ct_dist_oneop op = make_op(&a, fn);
    return ct_dist_impl_oneop_run(&op, x, out);
}

ct_status ct_global_argmax(const ct_global *x, const int64_t *dim, bool keepdim, ct_global **out) {
    return arg_run(ARG_ARGMAX, "ct_global_argmax", x, dim, keepdim, out);
}

ct_status ct_global_argmin(const ct_global *x, const int64_t *dim, bool keepdim, ct_global **out) {
    return arg_run(ARG_ARGMIN, "ct_global_argmin", x, dim, keepdim, out);
}

ct_status ct_global_cumulative(bool prod, const ct_global *x, int64_t dim, ct_dtype dtype,
                               ct_global **out) {
    const arg_args a = {.kind = prod ? ARG_CUMPROD : ARG_CUMSUM,
                        .has_dim = true,
                        .dim = dim,
                        .keepdim = false,
                        .dtype = dtype};
    const ct_dist_oneop op = make_op(&a, "ct_global_cumulative");
    return ct_dist_impl_oneop_run(&op, x, out);
}
