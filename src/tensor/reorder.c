/* flip, fliplr, flipud, roll, repeat, tile, diag_embed and diag (include/ctensor/reorder.h),
 * with PyTorch 1.13's shapes, memory formats and messages.
 *
 * Note [Reordering copies]
 * None of these reads values, so every dtype works and the element loop is the copy path's:
 *  - flip hands the host copy loop (copy_loop.c) the input with negated strides along the
 *    flipped dims, starting at its last element there. The loop merges, orders, tiles and
 *    threads as for any copy; a flipped contiguous row is one reversed row.
 *  - roll is PyTorch's roll_cpu: a cat of two narrows per dim (so its strides are cat's).
 *  - repeat is PyTorch's: the result viewed as [repeats..., sizes...] (the unfold view) gets
 *    the input expanded along the repeat dims, one copy_ of a broadcast source. Dims of
 *    size 1 on both sides are left out so that 2 * ndim stays within CT_MAX_DIMS.
 * On accelerators each op runs whole on host mirrors (Note [Staging through host memory]):
 * flip's loop reads memory on the host, and one transfer each way beats a copy launch per
 * piece of roll, repeat or diag_embed.
 */
#include <inttypes.h>
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "ctensor/join.h"
#include "ctensor/reorder.h"
#include "dtype/table_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

static ct_status begin(const ct_tensor *t, ct_tensor **out, const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    return ct_tensor_impl_check(t, fn);
}

/* ---- accelerators ---------------------------------------------------------------------- */

typedef enum { RO_FLIP, RO_ROLL, RO_REPEAT, RO_DIAG_EMBED, RO_DIAG, RO_DIAG_OUT } reorder_op;

/* One public call's arguments besides its tensors. */
typedef struct reorder_call {
    reorder_op op;
    const int64_t *v1, *v2;
    int64_t n1, n2, i0, i1, i2;
} reorder_call;

static ct_status reorder_host(const reorder_call *c, const ct_tensor *t, ct_tensor *o,
                              ct_tensor **r) {
    switch (c->op) {
    case RO_FLIP: return ct_tensor_flip(t, c->v1, c->n1, r);
    case RO_ROLL: return ct_tensor_roll(t, c->v1, c->n1, c->v2, c->n2, r);
    case RO_REPEAT: return ct_tensor_repeat(t, c->v1, c->n1, r);
    case RO_DIAG_EMBED: return ct_tensor_diag_embed(t, c->i0, c->i1, c->i2, r);
    case RO_DIAG: return ct_tensor_diag(t, c->i0, r);
    default: return ct_tensor_diag_out(t, c->i0, o);
    }
}

/* The call on host mirrors of t (and the written out=); a new result goes to *out. */
static ct_status reorder_staged(const char *fn, const reorder_call *c, const ct_tensor *t,
                                ct_tensor *o, ct_tensor **out) {
    ct_stage s;
    ct_stage_init(&s, fn);
    int a = ct_stage_add(&s, t, 0);
    int b = ct_stage_add(&s, o, CT_STAGE_WRITTEN);
    ct_tensor *hr = NULL, *r = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = reorder_host(c, ct_stage_host(&s, a), ct_stage_host(&s, b), &hr);
    if (st == CT_OK)
        st = ct_stage_result(&s, hr, &r);
    else
        ct_tensor_release(hr);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    if (out != NULL)
        *out = r;
    return CT_OK;
}

/* ---- flip ------------------------------------------------------------------------------- */

ct_status ct_tensor_flip(const ct_tensor *t, const int64_t *dims, int64_t ndims, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_flip"));
    if (ct_stage_wanted(t))
        return reorder_staged("flip", &(reorder_call){.op = RO_FLIP, .v1 = dims, .n1 = ndims}, t,
                              NULL, out);
    if (ndims < 0 || (ndims > 0 && dims == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_flip: invalid dims");
    bool flip[CT_MAX_DIMS] = {false};
    for (int64_t i = 0; i < ndims; i++) {
        int64_t d;
        CT_TRY(ct_tensor_impl_shape_wrap_dim(dims[i], t->ndim, true, &d));
        if (flip[d]) /* a 0-dim tensor flips along its "dim 0" (once) to itself */
            return ct_set_error(CT_ERR_RUNTIME,
                                "dim %" PRId64 " appears multiple times in the "
                                "list of dims",
                                d);
        flip[d] = true;
    }
    bool host = t->device.type == CT_DEVICE_CPU, meta = t->device.type == CT_DEVICE_META;
    if (!host && !meta)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "flip: not implemented on device %s",
                            ct_device_type_name(t->device.type));
    ct_tensor *r;
    CT_TRY(ct_tensor_impl_empty_like(t, t->dtype, t->device, CT_MEMFMT_PRESERVE, &r));
    if (r->numel == 0 || meta) {
        *out = r;
        return CT_OK;
    }
    int64_t sstr[CT_MAX_DIMS];
    const char *src = ct_tensor_data_ptr(t);
    size_t isz = ct_dtype_table[t->dtype].itemsize;
    for (int32_t i = 0; i < t->ndim; i++) {
        sstr[i] = flip[i] ? -t->strides[i] : t->strides[i];
        if (flip[i]) /* start at the last element along this dim */
            src += (t->sizes[i] - 1) * t->strides[i] * (int64_t)isz;
    }
    ct_status st = ct_tensor_impl_copy_host(ct_tensor_data_ptr(r), r->dtype, r->strides, src,
                                            t->dtype, sstr, t->sizes, t->ndim);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_tensor_fliplr(const ct_tensor *t, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_fliplr"));
    if (t->ndim < 2)
        return ct_set_error(CT_ERR_RUNTIME, "Input must be >= 2-d.");
    static const int64_t one = 1;
    return ct_tensor_flip(t, &one, 1, out);
}

ct_status ct_tensor_flipud(const ct_tensor *t, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_flipud"));
    if (t->ndim < 1)
        return ct_set_error(CT_ERR_RUNTIME, "Input must be >= 1-d.");
    static const int64_t zero = 0;
    return ct_tensor_flip(t, &zero, 1, out);
}

/* ---- roll ------------------------------------------------------------------------------- */

/* One dim (PyTorch's roll_cpu for a single shift). */
static ct_status roll_one(const ct_tensor *t, int64_t shift, int64_t dim, ct_tensor **out) {
    if (t->numel == 0)
        return ct_tensor_clone(t, CT_MEMFMT_PRESERVE, out);
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, false, &d));
    int64_t size = t->sizes[d], start = (size - shift % size) % size;
    if (start < 0)
        start += size;
    ct_tensor *parts[2] = {NULL, NULL};
    ct_status st = ct_tensor_narrow(t, d, start, size - start, &parts[0]);
    if (st == CT_OK)
        st = ct_tensor_narrow(t, d, 0, start, &parts[1]);
    if (st == CT_OK)
        st = ct_tensor_cat((const ct_tensor *const *)parts, 2, d, out);
    ct_tensor_release(parts[0]);
    ct_tensor_release(parts[1]);
    return st;
}

ct_status ct_tensor_roll(const ct_tensor *t, const int64_t *shifts, int64_t nshifts,
                         const int64_t *dims, int64_t ndims, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_roll"));
    if (ct_stage_wanted(t))
        return reorder_staged("roll",
                              &(reorder_call){.op = RO_ROLL, .v1 = shifts, .n1 = nshifts,
                                              .v2 = dims, .n2 = ndims},
                              t, NULL, out);
    if (nshifts < 0 || ndims < 0 || (nshifts > 0 && shifts == NULL) || (ndims > 0 && dims == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_roll: invalid shifts or dims");
    if (ndims == 1 && nshifts == 1)
        return roll_one(t, shifts[0], dims[0], out);
    if (nshifts == 0)
        return ct_set_error(CT_ERR_RUNTIME, "`shifts` required");
    if (ndims == 0 && nshifts == 1) { /* the flattened tensor, shape restored */
        int64_t flat = -1, zero = 0;
        ct_tensor *f = NULL, *r = NULL;
        ct_status st = ct_tensor_view(t, &flat, 1, &f);
        if (st == CT_ERR_RUNTIME) /* not viewable: PyTorch's flatten copies */
            st = ct_tensor_reshape(t, &flat, 1, &f);
        if (st == CT_OK)
            st = roll_one(f, shifts[0], zero, &r);
        ct_tensor_release(f);
        if (st == CT_OK)
            st = ct_tensor_view(r, t->sizes, t->ndim, out);
        ct_tensor_release(r);
        return st;
    }
    if (nshifts != ndims)
        return ct_set_error(CT_ERR_RUNTIME,
                            "shifts and dimensions must align. shifts: %" PRId64 ", dims:%" PRId64,
                            nshifts, ndims);
    /* PyTorch's roll_common: the first dim, then the others on its result */
    ct_tensor *first = NULL;
    CT_TRY(roll_one(t, shifts[0], dims[0], &first));
    ct_status st = ct_tensor_roll(first, shifts + 1, nshifts - 1, dims + 1, ndims - 1, out);
    ct_tensor_release(first);
    return st;
}

/* ---- repeat, tile ----------------------------------------------------------------------- */

ct_status ct_tensor_repeat(const ct_tensor *t, const int64_t *repeats, int64_t n, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_repeat"));
    if (ct_stage_wanted(t))
        return reorder_staged("repeat",
                              &(reorder_call){.op = RO_REPEAT, .v1 = repeats, .n1 = n}, t, NULL,
                              out);
    if (n < 0 || n > CT_MAX_DIMS || (n > 0 && repeats == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_repeat: invalid repeats");
    if (n < t->ndim)
        return ct_set_error(CT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be "
                                            "smaller than number of dimensions of tensor");
    int64_t pad = n - t->ndim, padded[CT_MAX_DIMS], pstr[CT_MAX_DIMS], target[CT_MAX_DIMS] = {0};
    bool zero = false;
    for (int64_t i = 0; i < n; i++) {
        padded[i] = i < pad ? 1 : t->sizes[i - pad];
        pstr[i] = i < pad ? 0 : t->strides[i - pad];
        if (ct_checked_mul_i64(padded[i], repeats[i], &target[i]))
            return ct_set_error(CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
        zero = zero || repeats[i] == 0;
    }
    ct_tensor *r;
    CT_TRY(ct_tensor_empty(target, n, t->dtype, &t->device, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &r));
    if (zero || r->numel == 0) {
        *out = r;
        return CT_OK;
    }
    /* the unfold view [repeats..., sizes...] of r and the input broadcast to it */
    int64_t vs[CT_MAX_DIMS], rs[CT_MAX_DIMS], ss[CT_MAX_DIMS];
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (repeats[i] != 1) {
            vs[k] = repeats[i];
            rs[k] = r->strides[i] * padded[i];
            ss[k++] = 0;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (padded[i] != 1) {
            if (k == CT_MAX_DIMS)
                break; /* unreachable: repeats != 1 and sizes != 1 make 2 * 32 dims at most */
            vs[k] = padded[i];
            rs[k] = r->strides[i];
            ss[k++] = pstr[i];
        }
    }
    ct_tensor *dst = NULL, *src = NULL;
    ct_status st = ct_tensor_impl_view(r, vs, rs, k, 0, &dst);
    if (st == CT_OK)
        st = ct_tensor_impl_view(t, vs, ss, k, t->storage_offset, &src);
    if (st == CT_OK)
        st = ct_tensor_impl_copy(dst, src, false);
    ct_tensor_release(dst);
    ct_tensor_release(src);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_tensor_tile(const ct_tensor *t, const int64_t *reps, int64_t n, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_tile"));
    if (n < 0 || n > CT_MAX_DIMS || (n > 0 && reps == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_tile: invalid reps");
    if (n >= t->ndim)
        return ct_tensor_repeat(t, reps, n, out);
    int64_t padded[CT_MAX_DIMS], pad = t->ndim - n;
    for (int64_t i = 0; i < t->ndim; i++)
        padded[i] = i < pad ? 1 : reps[i - pad];
    return ct_tensor_repeat(t, padded, t->ndim, out);
}

/* ---- diag_embed, diag -------------------------------------------------------------------- */

ct_status ct_tensor_diag_embed(const ct_tensor *t, int64_t offset, int64_t dim1, int64_t dim2,
                               ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_diag_embed"));
    if (ct_stage_wanted(t))
        return reorder_staged("diag_embed",
                              &(reorder_call){.op = RO_DIAG_EMBED, .i0 = offset, .i1 = dim1,
                                              .i2 = dim2},
                              t, NULL, out);
    if (t->ndim >= CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE, "diag_embed: too many dimensions (at most %d)",
                            CT_MAX_DIMS);
    int64_t nd = t->ndim + 1, d1, d2, last;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim1, nd, true, &d1));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim2, nd, true, &d2));
    if (d1 == d2)
        return ct_set_error(CT_ERR_RUNTIME,
                            "diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, dim1,
                            dim2);
    CT_TRY(ct_tensor_impl_shape_wrap_dim(-1, t->ndim, false, &last));
    int64_t len;
    if (offset == INT64_MIN ||
        ct_checked_add_i64(offset < 0 ? -offset : offset, t->sizes[last], &len))
        return ct_set_error(CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    /* input's dims but the last, with the two new ones inserted at their places */
    int64_t sizes[CT_MAX_DIMS], lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1, k = 0;
    for (int64_t i = 0; i < nd; i++)
        sizes[i] = i == lo || i == hi ? len : t->sizes[k++];
    ct_tensor *r = NULL, *dv = NULL;
    CT_TRY(ct_tensor_zeros(sizes, nd, t->dtype, &t->device, CT_LAYOUT_STRIDED, &r));
    ct_status st = ct_tensor_diagonal(r, offset, d1, d2, &dv);
    if (st == CT_OK)
        st = ct_tensor_impl_copy(dv, t, false);
    ct_tensor_release(dv);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_tensor_diag(const ct_tensor *t, int64_t diagonal, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_diag"));
    if (ct_stage_wanted(t))
        return reorder_staged("diag", &(reorder_call){.op = RO_DIAG, .i0 = diagonal}, t, NULL,
                              out);
    if (t->ndim == 1)
        return ct_tensor_diag_embed(t, diagonal, 0, 1, out);
    if (t->ndim != 2)
        return ct_set_error(CT_ERR_RUNTIME, "matrix or a vector expected");
    int64_t rows = t->sizes[0], cols = t->sizes[1], len;
    if (diagonal >= 0)
        len = diagonal > cols ? -1 : (rows < cols - diagonal ? rows : cols - diagonal);
    else
        len = diagonal < -rows ? -1 : (rows + diagonal < cols ? rows + diagonal : cols);
    if (len < 0) /* PyTorch 1.13 resizes its result to this negative size */
        return ct_set_error(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
    ct_tensor *dv = NULL;
    CT_TRY(ct_tensor_diagonal(t, diagonal, 0, 1, &dv));
    ct_status st = ct_tensor_clone(dv, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(dv);
    return st;
}

ct_status ct_tensor_diag_out(const ct_tensor *t, int64_t diagonal, ct_tensor *out) {
    /* out on another device: the unstaged path's diag(t) then its own device message */
    if (ct_stage_wanted(t) && ct_stage_wanted(out) && ct_device_equal(t->device, out->device))
        return reorder_staged("diag", &(reorder_call){.op = RO_DIAG_OUT, .i0 = diagonal}, t, out,
                              NULL);
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_diag_out"));
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_diag(t, diagonal, &r));
    ct_status st = CT_OK;
    if (out->dtype != r->dtype)
        st = ct_set_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                          ct_dtype_cpp_name(r->dtype), ct_dtype_cpp_name(out->dtype));
    else if (out->device.type != r->device.type || out->device.index != r->device.index)
        st = ct_set_error(CT_ERR_RUNTIME, "diag: expected out on device %s, got %s",
                          ct_device_type_name(r->device.type),
                          ct_device_type_name(out->device.type));
    ct_tensor_impl_saved keep;
    if (st == CT_OK)
        st = ct_tensor_impl_save(out, &keep);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    if (out->ndim != r->ndim ||
        memcmp(out->sizes, r->sizes, (size_t)r->ndim * sizeof r->sizes[0]) != 0) {
        int64_t old[CT_MAX_DIMS];
        int32_t old_ndim = out->ndim;
        int64_t old_numel = out->numel;
        memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
        st = ct_tensor_impl_resize(out, r->sizes, r->ndim, NULL);
        if (st == CT_OK && old_numel > 0)
            ct_tensor_impl_warn_out_resized(old, old_ndim, r->sizes, r->ndim);
    }
    if (st == CT_OK)
        st = ct_tensor_impl_copy(out, r, true);
    if (st != CT_OK)
        ct_tensor_impl_restore(out, &keep);
    else
        ct_tensor_impl_saved_drop(&keep);
    ct_tensor_release(r);
    return st;
}
