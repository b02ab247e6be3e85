/* One-operand operations on sparse COO tensors: neg, clone, conversions (new values for the
 * same indices) and transpose, as PyTorch 1.13's neg_sparse, clone_sparse, _to_copy and
 * sparse_transpose_ compute them. */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/unary.h"
#include "sparse/sparse_impl.h"

/* A sparse tensor with t's sizes and flag, a copy of t's indices (on the values' device) and
 * `values` (CONSUMED). */
static ct_status with_new_values(const ct_tensor *t, const ct_sparse_coo *p, ct_tensor *values,
                                 ct_tensor **out) {
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
    return with_new_values(t, p, v, out);
}

ct_status ct_sparse_neg(const ct_tensor *t, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_neg: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "neg", &p));
    ct_tensor *v = NULL;
    CT_TRY(ct_unary(CT_UNOP_NEG, p->values, &v));
    return with_new_values(t, p, v, out);
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
    return with_new_values(t, p, ct_tensor_retain((ct_tensor *)values), out);
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
