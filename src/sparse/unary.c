/* One-operand operations on sparse COO tensors: neg, clone, conversions (new values for the
 * same indices) and transpose, as PyTorch 1.13's neg_sparse, clone_sparse, _to_copy and
 * sparse_transpose_ compute them. */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/unary.h"
#include "sparse/sparse_impl.h"

ct_status ct_sparse_impl_with_new_values(const ct_tensor *t, const ct_sparse_coo *p,
                                         ct_tensor *values, ct_tensor **out) {
    ct_tensor *ind = NULL;
    ct_status st = ct_tensor_to(p->indices, CT_DTYPE_UNDEFINED, &values->device, true,
                                CT_MEMFMT_CONTIGUOUS, &ind);
    if (st != CT_OK) {
        ct_tensor_release(values);
        return st;
    }
    return ct_sparse_impl_make(ind, values, t->sizes, t->ndim, p->sparse_dim,
                               atomic_load(&p->coalesced), out);
}

ct_status ct_sparse_clone(const ct_tensor *t, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_clone: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "clone", &p));
    ct_tensor *v = NULL;
    CT_TRY(ct_tensor_clone(p->values, CT_MEMFMT_CONTIGUOUS, &v));
    return ct_sparse_impl_with_new_values(t, p, v, out);
}

ct_status ct_sparse_neg(const ct_tensor *t, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_neg: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "neg", &p));
    ct_tensor *v = NULL;
    CT_TRY(ct_unary(CT_UNOP_NEG, p->values, &v));
    return ct_sparse_impl_with_new_values(t, p, v, out);
}

ct_status ct_sparse_with_values(const ct_tensor *t, const ct_tensor *values, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_with_values: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "_sparse_coo_tensor_with_dims_and_tensors", &p));
    if (values == NULL || values->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_with_values: values must be strided");
    if (values == p->values) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    if (values->ndim != p->values->ndim ||
        memcmp(values->sizes, p->values->sizes, (size_t)values->ndim * sizeof(int64_t)) != 0) {
        char x[400], y[400];
        return ct_set_error(
            CT_ERR_RUNTIME, "values has incorrect size, expected %s, got %s",
            ct_tensor_impl_shape_format(x, sizeof x, p->values->sizes, p->values->ndim),
            ct_tensor_impl_shape_format(y, sizeof y, values->sizes, values->ndim));
    }
    return ct_sparse_impl_with_new_values(t, p, ct_tensor_retain((ct_tensor *)values), out);
}

ct_status ct_sparse_to(const ct_tensor *t, ct_dtype dtype, const ct_device *device, bool copy,
                       ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_to: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "_to_copy", &p));
    ct_tensor *v = NULL;
    CT_TRY(ct_tensor_to(p->values, dtype, device, copy, CT_MEMFMT_PRESERVE, &v));
    ct_status st = ct_sparse_with_values(t, v, out);
    ct_tensor_release(v);
    return st;
}

/* ---- transpose ---------------------------------------------------------------------------------
 */

ct_status ct_sparse_transpose(const ct_tensor *t, int64_t dim0, int64_t dim1, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_transpose: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "transpose.int", &p));
    int64_t d0, d1;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim0, t->ndim, true, &d0));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim1, t->ndim, true, &d1));
    if (d0 == d1) /* PyTorch returns a clone */
        return ct_sparse_clone(t, out);
    if (d0 >= p->sparse_dim || d1 >= p->sparse_dim)
        return ct_set_error(CT_ERR_RUNTIME,
                            "sparse transpose: transposed dimensions must be sparse Got "
                            "sparse_dim: %" PRId64 ", d0: %" PRId64 ", d1: %" PRId64,
                            p->sparse_dim, d0, d1);
    /* index rows swapped (a fresh copy), values copied; the order changes, so the flag
     * drops as in PyTorch (nnz 0 keeps it) */
    ct_tensor *hi = NULL, *hv = NULL, *ind = NULL, *v = NULL;
    ct_status st = ct_sparse_impl_host(p->indices, CT_INT64, &hi);
    if (st == CT_OK)
        st = ct_sparse_impl_host_empty(p->indices->sizes, 2, CT_INT64, &hv);
    if (st == CT_OK) {
        int64_t n = p->nnz, *dst = ct_tensor_data_ptr(hv);
        const int64_t *src = ct_tensor_data_ptr(hi);
        for (int64_t d = 0; d < p->sparse_dim && n > 0; d++) {
            int64_t from = d == d0 ? d1 : d == d1 ? d0 : d;
            memcpy(dst + d * n, src + from * n, (size_t)n * sizeof(int64_t));
        }
        st = ct_sparse_impl_to_device(hv, t->device, &ind);
        hv = NULL;
    }
    ct_tensor_release(hi);
    ct_tensor_release(hv);
    if (st == CT_OK)
        st = ct_tensor_clone(p->values, CT_MEMFMT_CONTIGUOUS, &v);
    if (st != CT_OK) {
        ct_tensor_release(ind);
        return st;
    }
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    sizes[d0] = t->sizes[d1];
    sizes[d1] = t->sizes[d0];
    return ct_sparse_impl_make(ind, v, sizes, t->ndim, p->sparse_dim,
                               p->nnz == 0 && atomic_load(&p->coalesced), out);
}

ct_status ct_sparse_t(const ct_tensor *t, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_t: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "t", &p));
    if (p->sparse_dim > 2 || p->dense_dim > 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "t() expects a tensor with <= 2 sparse and 0 dense dimensions, but "
                            "got %" PRId64 " sparse and %" PRId64 " dense dimensions",
                            p->sparse_dim, p->dense_dim);
    return ct_sparse_transpose(t, 0, t->ndim < 2 ? 0 : 1, out);
}

/* transpose_ as PyTorch 1.13's sparse_transpose_: the two index rows are swapped in place
 * (every alias of the indices sees it, as in PyTorch), the sizes swapped, and the flag
 * dropped unless the tensor holds no elements (then only the sizes change). Equal dims leave
 * the tensor as it is. */
ct_status ct_sparse_transpose_(ct_tensor *t, int64_t dim0, int64_t dim1) {
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "transpose_", &p));
    int64_t d0, d1;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim0, t->ndim, true, &d0));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim1, t->ndim, true, &d1));
    if (d0 == d1)
        return CT_OK;
    if (d0 >= p->sparse_dim || d1 >= p->sparse_dim)
        return ct_set_error(CT_ERR_RUNTIME,
                            "sparse transpose: transposed dimensions must be sparse Got "
                            "sparse_dim: %" PRId64 ", d0: %" PRId64 ", d1: %" PRId64,
                            p->sparse_dim, d0, d1);
    if (p->indices->numel != 0 || p->values->numel != 0) {
        ct_tensor *r0 = NULL, *r1 = NULL, *tmp = NULL;
        ct_status st = ct_tensor_select(p->indices, 0, d0, &r0);
        if (st == CT_OK)
            st = ct_tensor_select(p->indices, 0, d1, &r1);
        if (st == CT_OK)
            st = ct_tensor_clone(r0, CT_MEMFMT_CONTIGUOUS, &tmp);
        if (st == CT_OK)
            st = ct_tensor_copy_(r0, r1);
        if (st == CT_OK)
            st = ct_tensor_copy_(r1, tmp);
        ct_tensor_release(r0);
        ct_tensor_release(r1);
        ct_tensor_release(tmp);
        CT_TRY(st);
        atomic_store(&((ct_sparse_coo *)t->ext)->coalesced, false);
    }
    int64_t s = t->sizes[d0];
    t->sizes[d0] = t->sizes[d1];
    t->sizes[d1] = s;
    return CT_OK;
}

ct_status ct_sparse_t_(ct_tensor *t) {
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "t_", &p));
    if (p->sparse_dim > 2 || p->dense_dim > 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "t_() expects a tensor with <= 2 sparse and 0 dense dimensions, but "
                            "got %" PRId64 " sparse and %" PRId64 " dense dimensions",
                            p->sparse_dim, p->dense_dim);
    return ct_sparse_transpose_(t, 0, t->ndim < 2 ? 0 : 1);
}

/* ---- strides ------------------------------------------------------------------------------------
 */

/* PyTorch 1.13 keeps the strides its sparse tensors get from their first (1-dim, empty)
 * shape when they are resized: 1 for dim 0, 0 for the others. */
ct_status ct_sparse_strides(const ct_tensor *t, int64_t *out) {
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "stride", &p));
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_strides: out is NULL");
    for (int64_t d = 0; d < t->ndim; d++)
        out[d] = d == 0 ? 1 : 0;
    return CT_OK;
}

ct_status ct_sparse_stride(const ct_tensor *t, int64_t dim, int64_t *out) {
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "stride", &p));
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_stride: out is NULL");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, false, &d));
    *out = d == 0 ? 1 : 0;
    return CT_OK;
}

/* ---- element-wise unary ops --------------------------------------------------------------------
 * The rows of ctensor/unary.def on sparse COO tensors, as their `sparse` column says
 * (PyTorch 1.13's SparseUnaryOps.cpp): the dense op runs on the values, so dtypes, promotion
 * and the dense refusals are the strided op's. */

static ct_status unary_refuse(ct_unop op, ct_unop_sparse_mode mode, const ct_tensor *s,
                              ct_op_form form) {
    char b[64];
    const char *suffix = mode == CT_UNOP_SPARSE_NO_OUT || mode == CT_UNOP_SPARSE_COALESCE_OUT
                             ? ".out"
                         : form == CT_OP_FORM_INPLACE ? "_"
                         : form == CT_OP_FORM_OUT     ? ".out"
                                                      : "";
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                        "Could not run 'aten::%s%s' with arguments from the '%s' backend.",
                        ct_unop_name(op), suffix, ct_sparse_impl_backend_name(s, b, sizeof b));
}

ct_status ct_sparse_impl_adopt(ct_tensor *target, ct_tensor *r) {
    if (r->ndim != target->ndim &&
        (r->ndim > CT_TENSOR_INLINE_DIMS || target->sizes != target->inline_dims))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "sparse out=: a result of %d dims into an out= tensor of %d dims is "
                            "not supported",
                            (int)r->ndim, (int)target->ndim);
    target->ndim = r->ndim;
    target->strides = target->sizes + r->ndim;
    if (r->ndim > 0) {
        memcpy(target->sizes, r->sizes, (size_t)r->ndim * sizeof(int64_t));
        memcpy(target->strides, r->strides, (size_t)r->ndim * sizeof(int64_t));
    }
    target->numel = r->numel;
    void *ext = target->ext;
    target->ext = r->ext;
    r->ext = ext; /* the old payload goes with r */
    return CT_OK;
}

/* op(t, out=target) into a distinct sparse target: the values of t (coalesced first for
 * COALESCE rows) through the dense out= op into new values of target's dtype. */
static ct_status unary_into(ct_unop op, ct_unop_sparse_mode mode, const ct_tensor *t,
                            ct_tensor *target) {
    ct_tensor *c = NULL, *v = NULL, *r = NULL;
    if (mode == CT_UNOP_SPARSE_COALESCE)
        CT_TRY(ct_sparse_coalesce(t, &c));
    else
        c = ct_tensor_retain((ct_tensor *)t);
    const ct_sparse_coo *p = ct_sparse_impl_payload(c);
    ct_status st = ct_tensor_empty(p->values->sizes, p->values->ndim, target->dtype,
                                   &p->values->device, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &v);
    if (st == CT_OK)
        st = ct_unary_out(op, p->values, v);
    if (st == CT_OK) {
        st = ct_sparse_impl_with_new_values(c, p, v, &r); /* consumes v */
        v = NULL;
    }
    if (st == CT_OK)
        st = ct_sparse_impl_adopt(target, r);
    ct_tensor_release(v);
    ct_tensor_release(r);
    ct_tensor_release(c);
    return st;
}

ct_status ct_sparse_impl_unary(ct_unop op, ct_unop_sparse_mode mode, const ct_tensor *t,
                               ct_tensor *target, ct_op_form form, ct_tensor **out) {
    if (mode == CT_UNOP_SPARSE_COALESCE_OUT && t->device.type != CT_DEVICE_META &&
        (target == NULL || target->device.type != CT_DEVICE_META))
        mode = CT_UNOP_SPARSE_COALESCE;
    const ct_tensor *s = t->layout != CT_LAYOUT_STRIDED ? t : target;
    if (mode == CT_UNOP_SPARSE_NO || mode == CT_UNOP_SPARSE_NO_OUT ||
        s->device.type == CT_DEVICE_META) /* PyTorch has no SparseMeta kernels for them */
        return unary_refuse(op, mode, s, form);
    const ct_sparse_coo *p = ct_sparse_impl_payload(t);
    if (form == CT_OP_FORM_OUT && mode == CT_UNOP_SPARSE_VALUES) {
        /* PyTorch's neg_out_sparse: self copied into out's dtype, the copy's values negated */
        if (p == NULL || ct_sparse_impl_payload(target) == NULL)
            return ct_set_error(CT_ERR_RUNTIME, "Tensor should be sparse");
        ct_tensor *c = NULL;
        CT_TRY(ct_sparse_to(t, target->dtype, NULL, true, &c));
        ct_status st = ct_unary_(op, ct_sparse_impl_payload(c)->values);
        if (st == CT_OK)
            st = ct_sparse_impl_adopt(target, c);
        ct_tensor_release(c);
        return st;
    }
    if (form == CT_OP_FORM_OUT && (p == NULL || ct_sparse_impl_payload(target) == NULL))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected self.is_sparse() && result.is_sparse() to be true, but got "
                            "false.  (Could this error message be improved?  If so, please report "
                            "an enhancement request to PyTorch.)");
    if (p == NULL)
        return unary_refuse(op, mode, s, form);
    bool coalesced = atomic_load(&p->coalesced);
    switch (form) {
    case CT_OP_FORM_INPLACE:
        if (mode == CT_UNOP_SPARSE_COALESCE && !coalesced)
            return ct_set_error(CT_ERR_RUNTIME, "%s_ requires coalesced input", ct_unop_name(op));
        return ct_unary_(op, p->values);
    case CT_OP_FORM_OUT:
        if (target != t)
            return unary_into(op, mode, t, target);
        if (mode == CT_UNOP_SPARSE_COALESCE && !coalesced)
            return ct_set_error(CT_ERR_RUNTIME, "expected coalesced tensor for inplace operation");
        return ct_unary_out(op, p->values, p->values);
    default: {
        ct_tensor *c = NULL, *v = NULL;
        if (mode == CT_UNOP_SPARSE_COALESCE)
            CT_TRY(ct_sparse_coalesce(t, &c));
        else
            c = ct_tensor_retain((ct_tensor *)t);
        const ct_sparse_coo *q = ct_sparse_impl_payload(c);
        ct_status st = ct_unary(op, q->values, &v);
        if (st == CT_OK)
            st = ct_sparse_impl_with_new_values(c, q, v, out); /* consumes v */
        ct_tensor_release(c);
        return st;
    }
    }
}
