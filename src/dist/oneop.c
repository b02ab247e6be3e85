/* oneop.c: the collective script of the ops of one global input (dist_impl.h,
 * ct_dist_oneop): unary.def rows (unary.c), reductions (reduction.c), and max / min with a
 * dim, argmax / argmin, cumsum / cumprod (reduction_arg.c), the first with two outputs.
 *
 * The same steps as binary.c's, so that every rank takes the same branch and returns the
 * same status:
 *   1. one agreement over the world with a record of the call (the op's name, its
 *      arguments, the input's metadata): calls that differ between ranks fail everywhere;
 *   2. the local op on stand-ins of the LOGICAL input, on meta (the result's dtype and
 *      logical shape, PyTorch's shape and dtype errors) and on a tiny cpu tensor (the
 *      kernel-support errors meta skips), then a verdict (the stand-ins allocate);
 *   3. the signature: the nd-sbp the input is boxed to and the output's;
 *   4. boxing, the local op on the members' components, a verdict: an allocation can still
 *      fail on one rank only. */
#include <string.h>

#include "dist/dist_impl.h"

static ct_status agree_call(const ct_dist_oneop *op, const ct_global *x, bool has_out) {
    ct_agree_record rec;
    memset(&rec, 0, sizeof rec);
    ct_sb s;
    ct_sb_init_buf(&s, rec.what, sizeof rec.what);
    ct_sb_appendf(&s, "%s(", op->name);
    ct_dist_impl_sb_global(&s, x);
    if (op->describe)
        op->describe(&s, op->ctx);
    ct_sb_appendf(&s, ")");
    int32_t head[2] = {(int32_t)has_out, (int32_t)op->identity};
    uint64_t h = ct_hash_bytes(0, head, sizeof head);
    h = ct_hash_bytes(h, op->name, strlen(op->name));
    if (op->hash)
        h = op->hash(h, op->ctx);
    rec.hash = ct_dist_impl_hash_global(h, x);
    rec.placement = x ? ct_placement_hash(ct_global_placement(x)) : 0;
    rec.dtype = x ? (int32_t)ct_global_dtype(x) : -1;
    return ct_dist_impl_agree_call(&rec, op->name);
}

/* The op's local computation: one output (apply) or two (apply2); z[1] stays NULL for one. */
static ct_status local_op(const ct_dist_oneop *op, const ct_tensor *in, const ct_global *x,
                          const ct_sbp *z_sbp, ct_tensor **z) {
    z[0] = z[1] = NULL;
    if (op->apply2)
        return op->apply2(op->ctx, in, x, z_sbp, &z[0], &z[1]);
    return op->apply(op->ctx, in, x, z_sbp, &z[0]);
}

static int n_outputs(const ct_dist_oneop *op) { return op->apply2 ? 2 : 1; }

/* Step 2: identical on every rank. */
static ct_status check_logical(const ct_dist_oneop *op, const ct_global *x, ct_dtype *z_dtype,
                               int64_t *z_sizes, int64_t *z_ndim) {
    ct_status st = CT_OK;
    for (int tiny = 0; tiny <= 1 && st == CT_OK; tiny++) {
        ct_tensor *in = NULL, *z[2] = {NULL, NULL};
        st = ct_dist_impl_stand_in(x, tiny, &in);
        if (st == CT_OK)
            st = local_op(op, in, x, NULL, z);
        if (st == CT_OK && !tiny) {
            for (int i = 0; i < n_outputs(op); i++)
                z_dtype[i] = ct_tensor_dtype(z[i]);
            *z_ndim = ct_tensor_dim(z[0]);
            memcpy(z_sizes, ct_tensor_sizes(z[0]), (size_t)*z_ndim * sizeof(int64_t));
        }
        ct_tensor_release(in);
        ct_tensor_release(z[0]);
        ct_tensor_release(z[1]);
    }
    return st;
}

/* The local op on this rank's component, its outputs taken as this rank's parts. */
static ct_status member_op(const ct_dist_oneop *op, const ct_global *x, const int64_t *z_sizes,
                           int64_t z_ndim, const ct_sbp *z_sbp, ct_tensor **out) {
    ct_tensor *r[2] = {NULL, NULL};
    ct_status st = local_op(op, ct_global_local(x), x, z_sbp, r);
    for (int i = 0; i < n_outputs(op); i++) {
        if (st == CT_OK) {
            st = ct_dist_impl_own_component(r[i], ct_global_local(x), ct_global_placement(x),
                                            z_sizes, z_ndim, z_sbp, op->name, &out[i]);
        } else {
            ct_tensor_release(r[i]);
        }
    }
    return st;
}

static ct_status run(const ct_dist_oneop *op, const ct_global *x, ct_global **out[2]) {
    const int n = n_outputs(op);
    for (int i = 0; i < n; i++)
        if (out[i])
            *out[i] = NULL;
    ct_status st = agree_call(op, x, out[0] != NULL && (n == 1 || out[1] != NULL));
    if (st != CT_OK)
        return st;
    /* After agreement every rank has the same NULL arguments. */
    if (!x || !out[0] || (n == 2 && !out[1]))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", op->fn);
    ct_dtype z_dtype[2] = {CT_DTYPE_UNDEFINED, CT_DTYPE_UNDEFINED};
    int64_t z_sizes[CT_MAX_DIMS], z_ndim = 0;
    st = ct_dist_impl_agree_outcome(check_logical(op, x, z_dtype, z_sizes, &z_ndim));
    if (st != CT_OK)
        return st;
    if (op->identity) {
        *out[0] = ct_global_retain((ct_global *)x);
        return CT_OK;
    }
    const ct_placement *pl = ct_global_placement(x);
    ct_sbp sx[CT_PLACEMENT_MAX_NDIM], sz[CT_PLACEMENT_MAX_NDIM];
    op->signature(op->ctx, x, z_dtype[0], sx, sz);
    ct_global *bx = NULL, *z[2] = {NULL, NULL};
    ct_tensor *local[2] = {NULL, NULL};
    st = ct_dist_impl_box_to(x, sx, &bx);
    if (st != CT_OK)
        return st; /* boxing is collective: its failure is every rank's */
    if (ct_dist_impl_placement_my_pid(pl) >= 0) {
        st = member_op(op, bx, z_sizes, z_ndim, sz, local);
    } else {
        for (int i = 0; i < n && st == CT_OK; i++)
            st = ct_dist_impl_global_empty_local(z_dtype[i], z_ndim, &local[i]);
    }
    for (int i = 0; i < n && st == CT_OK; i++) {
        st = ct_dist_impl_global_make(z_dtype[i], z_sizes, z_ndim, pl, sz, local[i], &z[i]);
        local[i] = NULL; /* stolen */
    }
    st = ct_dist_impl_agree_outcome(st);
    for (int i = 0; i < n; i++) {
        if (st != CT_OK)
            ct_global_release(z[i]);
        else
            *out[i] = z[i];
        ct_tensor_release(local[i]);
    }
    ct_global_release(bx);
    return st;
}

ct_status ct_dist_impl_oneop_run(const ct_dist_oneop *op, const ct_global *x, ct_global **out) {
    ct_global **outs[2] = {out, NULL};
    if (op->apply2) { /* a two-output op through the one-output door: misuse, every rank */
        if (out)
            *out = NULL;
        return ct_global_fail(op->name, ct_set_error(CT_ERR_MISUSE, "%s: two outputs", op->fn));
    }
    return run(op, x, outs);
}

ct_status ct_dist_impl_oneop_run2(const ct_dist_oneop *op, const ct_global *x, ct_global **out0,
                                  ct_global **out1) {
    ct_global **outs[2] = {out0, out1};
    if (!op->apply2) {
        if (out0)
            *out0 = NULL;
        if (out1)
            *out1 = NULL;
        return ct_global_fail(op->name, ct_set_error(CT_ERR_MISUSE, "%s: one output", op->fn));
    }
    return run(op, x, outs);
}
