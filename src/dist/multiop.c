/* multiop.c: the collective script of the ops of several global inputs (dist_impl.h,
 * ct_dist_multiop): matmul (matmul.c) and cat / stack (join.c).
 *
 * The steps of oneop.c's script, with n inputs, so that every rank takes the same branch
 * and returns the same status:
 *   1. one agreement over the world with a record of the call (the op's name, its
 *      arguments, every input's metadata): calls that differ between ranks fail everywhere;
 *   2. every input on the first one's placement (binary.c's message);
 *   3. the local op on stand-ins of the LOGICAL inputs, on meta (the result's dtype and
 *      logical shape, PyTorch's shape and dtype errors) and on tiny cpu tensors (the
 *      kernel-support errors meta skips), then a verdict (the stand-ins allocate);
 *   4. the signature: the nd-sbp each input is boxed to and the output's;
 *   5. boxing, the local op on the members' components, a verdict. */
#include <string.h>

#include "dist/dist_impl.h"

static ct_status agree_call(const ct_dist_multiop *op, const ct_global *const *x, size_t n,
                            bool has_out) {
    ct_agree_record rec;
    memset(&rec, 0, sizeof rec);
    ct_sb s;
    ct_sb_init_buf(&s, rec.what, sizeof rec.what);
    ct_sb_appendf(&s, "%s(", op->name);
    for (size_t i = 0; i < n; i++) {
        ct_sb_appendf(&s, "%s", i ? ", " : "");
        ct_dist_impl_sb_global(&s, x ? x[i] : NULL);
    }
    if (op->describe)
        op->describe(&s, op->ctx);
    ct_sb_appendf(&s, ")");
    int64_t head[3] = {(int64_t)has_out, (int64_t)n, x != NULL};
    uint64_t h = ct_hash_bytes(0, head, sizeof head);
    h = ct_hash_bytes(h, op->name, strlen(op->name));
    if (op->hash)
        h = op->hash(h, op->ctx);
    for (size_t i = 0; x && i < n; i++)
        h = ct_dist_impl_hash_global(h, x[i]);
    rec.hash = h;
    const ct_global *first = x && n > 0 ? x[0] : NULL;
    rec.placement = first ? ct_placement_hash(ct_global_placement(first)) : 0;
    rec.dtype = first ? (int32_t)ct_global_dtype(first) : -1;
    return ct_dist_impl_agree_call(&rec, op->name);
}

static void release_all(ct_tensor **t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        ct_tensor_release(t[i]);
        t[i] = NULL;
    }
}

/* Step 3: identical on every rank. `tmp` holds n tensors. */
static ct_status check_logical(const ct_dist_multiop *op, const ct_global *const *x, size_t n,
                               ct_tensor **tmp, ct_dtype *z_dtype, int64_t *z_sizes,
                               int64_t *z_ndim) {
    ct_status st = CT_OK;
    for (int tiny = 0; tiny <= 1 && st == CT_OK; tiny++) {
        ct_tensor *z = NULL;
        for (size_t i = 0; i < n && st == CT_OK; i++)
            st = ct_dist_impl_stand_in(x[i], tiny, &tmp[i]);
        if (st == CT_OK)
            st = op->apply(op->ctx, (const ct_tensor *const *)tmp, n, &z);
        if (st == CT_OK && !tiny) {
            *z_dtype = ct_tensor_dtype(z);
            *z_ndim = ct_tensor_dim(z);
            memcpy(z_sizes, ct_tensor_sizes(z), (size_t)*z_ndim * sizeof(int64_t));
        }
        release_all(tmp, n);
        ct_tensor_release(z);
    }
    return st;
}

/* Steps 4-5 once the call is agreed and checked. `in` holds n tensor pointers, `boxed` n
 * globals, `sbp` n + 1 nd-sbp rows (the last the output's). */
static ct_status compute(const ct_dist_multiop *op, const ct_global *const *x, size_t n,
                         ct_dtype z_dtype, const int64_t *z_sizes, int64_t z_ndim,
                         const ct_tensor **in, ct_global **boxed, ct_sbp (*sbp)[CT_PLACEMENT_MAX_NDIM],
                         ct_global **out) {
    const ct_placement *pl = ct_global_placement(x[0]);
    ct_status st = op->signature(op->ctx, x, n, sbp, sbp[n]);
    if (st != CT_OK)
        return st; /* pure and identical on every rank */
    for (size_t i = 0; i < n && st == CT_OK; i++)
        st = ct_dist_impl_box_to(x[i], sbp[i], &boxed[i]);
    if (st != CT_OK)
        return st; /* boxing is collective: its failure is every rank's */
    ct_tensor *local = NULL;
    ct_global *z = NULL;
    if (ct_dist_impl_placement_my_pid(pl) >= 0) {
        ct_tensor *r = NULL;
        for (size_t i = 0; i < n; i++)
            in[i] = ct_global_local(boxed[i]); /* borrowed */
        st = op->apply(op->ctx, in, n, &r);
        if (st == CT_OK)
            st = ct_dist_impl_own_component(r, in[0], pl, z_sizes, z_ndim, sbp[n], op->name,
                                            &local);
    } else {
        st = ct_dist_impl_global_empty_local(z_dtype, z_ndim, &local);
    }
    if (st == CT_OK) {
        st = ct_dist_impl_global_make(z_dtype, z_sizes, z_ndim, pl, sbp[n], local, &z);
        local = NULL; /* stolen */
    }
    st = ct_dist_impl_agree_outcome(st);
    if (st != CT_OK)
        ct_global_release(z);
    else
        *out = z;
    ct_tensor_release(local);
    return st;
}

ct_status ct_dist_impl_multiop_run(const ct_dist_multiop *op, const ct_global *const *x, size_t n,
                                   ct_global **out) {
    if (out)
        *out = NULL;
    ct_status st = agree_call(op, x, n, out != NULL);
    if (st != CT_OK)
        return st;
    /* After agreement every rank has the same NULL arguments and the same n. */
    if (!out || (n > 0 && !x))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", op->fn);
    for (size_t i = 0; i < n; i++)
        if (!x[i])
            return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", op->fn);
    if (n == 0) { /* the local op words the error (cat's "expected a non-empty list") */
        ct_tensor *none = NULL;
        st = op->apply(op->ctx, NULL, 0, &none);
        ct_tensor_release(none);
        return st != CT_OK ? st : ct_set_error(CT_ERR_MISUSE, "%s: no inputs", op->fn);
    }
    for (size_t i = 1; i < n && st == CT_OK; i++)
        st = ct_dist_impl_same_placement(ct_global_placement(x[0]), ct_global_placement(x[i]));
    if (st != CT_OK)
        return st;
    /* One block for the scratch arrays: a rank that cannot get it says so in the verdict. */
    const size_t bytes = n * (sizeof(ct_tensor *) + sizeof(ct_global *) + sizeof(ct_tensor *)) +
                         (n + 1) * sizeof(ct_sbp[CT_PLACEMENT_MAX_NDIM]);
    void *block = ct_dist_impl_calloc(1, bytes);
    ct_sbp(*sbp)[CT_PLACEMENT_MAX_NDIM] = block;
    ct_tensor **tmp = block ? (ct_tensor **)(sbp + n + 1) : NULL;
    ct_global **boxed = block ? (ct_global **)(tmp + n) : NULL;
    const ct_tensor **in = block ? (const ct_tensor **)(boxed + n) : NULL;
    ct_dtype z_dtype = CT_DTYPE_UNDEFINED;
    int64_t z_sizes[CT_MAX_DIMS], z_ndim = 0;
    st = block ? check_logical(op, x, n, tmp, &z_dtype, z_sizes, &z_ndim) : CT_ERR_NOMEM;
    st = ct_dist_impl_agree_outcome(st);
    if (st == CT_OK)
        st = compute(op, x, n, z_dtype, z_sizes, z_ndim, in, boxed, sbp, out);
    for (size_t i = 0; block && i < n; i++)
        ct_global_release(boxed[i]);
    ct_dist_impl_free(block);
    return st;
}
