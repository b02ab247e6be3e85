/* Conversions between the strided and the sparse COO layout: to_dense() (PyTorch's
 * sparse_to_dense: zeros plus the sparse tensor) and to_sparse(sparse_dim) (PyTorch's
 * dense_to_sparse: the nonzero positions of the leading dims, in order). */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "sparse/sparse_impl.h"

static const ct_device host_device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

/* ---- to_dense ---------------------------------------------------------------------------- */

ct_status ct_sparse_to_dense(const ct_tensor *t, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "to_dense: out is NULL");
    *out = NULL;
    if (t != NULL && t->layout == CT_LAYOUT_STRIDED) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "to_dense", &p));
    if (t->device.type == CT_DEVICE_META) /* the result's metadata needs no index */
        return ct_tensor_zeros(t->sizes, t->ndim, t->dtype, &t->device, CT_LAYOUT_STRIDED, out);
    ct_tensor *h;
    CT_TRY(ct_tensor_zeros(t->sizes, t->ndim, t->dtype, &host_device, CT_LAYOUT_STRIDED, &h));
    ct_status st = ct_sparse_impl_add_into_dense(h, t, ct_scalar_int(1));
    if (st != CT_OK) {
        ct_tensor_release(h);
        return st;
    }
    return ct_sparse_impl_to_device(h, t->device, out);
}

/* ---- to_sparse ----------------------------------------------------------------------------- */

/* x != 0 for one element: NaN counts, -0.0 does not. */
static bool nonzero(ct_dtype dt, const unsigned char *e) {
    uint16_t h;
    uint32_t f;
    uint64_t d;
    switch (dt) {
    case CT_FLOAT16:
    case CT_BFLOAT16:
        memcpy(&h, e, 2);
        return (h & 0x7FFFu) != 0;
    case CT_FLOAT32:
        memcpy(&f, e, 4);
        return (f & 0x7FFFFFFFu) != 0;
    case CT_FLOAT64:
        memcpy(&d, e, 8);
        return (d & 0x7FFFFFFFFFFFFFFFull) != 0;
    case CT_COMPLEX32:
        return nonzero(CT_FLOAT16, e) || nonzero(CT_FLOAT16, e + 2);
    case CT_COMPLEX64:
        return nonzero(CT_FLOAT32, e) || nonzero(CT_FLOAT32, e + 4);
    case CT_COMPLEX128:
        return nonzero(CT_FLOAT64, e) || nonzero(CT_FLOAT64, e + 8);
    default:
        if (ct_dtype_is_float8(dt)) /* the fnuz formats have no -0; e8m0fnu has no 0 */
            return ct_float8_to_float(dt, e[0]) != 0.0f;
        for (size_t i = 0; i < ct_dtype_table[dt].itemsize; i++) /* bool, integers */
            if (e[i] != 0)
                return true;
        return false;
    }
}

static bool block_nonzero(ct_dtype dt, const unsigned char *b, int64_t n) {
    size_t isz = ct_dtype_table[dt].itemsize;
    for (int64_t i = 0; i < n; i++)
        if (nonzero(dt, b + (size_t)i * isz))
            return true;
    return false;
}

/* The sparse tensor of a strided cpu-readable t: positions of the first sd dims whose block
 * of the remaining dims has a nonzero, in C order (= lexicographic = PyTorch's unique_dim). */
static ct_status dense_to_sparse(const ct_tensor *t, int64_t sd, ct_tensor **out) {
    ct_tensor *h = NULL, *ri = NULL, *rv = NULL;
    int64_t block = 1, positions = 0, nnz = 0;
    int64_t vsizes[CT_MAX_DIMS + 1];
    size_t isz = ct_dtype_table[t->dtype].itemsize;
    ct_status st = CT_OK;
    if (t->numel > 0) { /* else nothing is nonzero, and the sparse sizes may not multiply */
        if ((st = ct_sparse_impl_prod(t->sizes, sd, t->ndim, &block)) != CT_OK ||
            (st = ct_sparse_impl_prod(t->sizes, 0, sd, &positions)) != CT_OK ||
            (st = ct_sparse_impl_host(t, CT_DTYPE_UNDEFINED, &h)) != CT_OK)
            goto fail;
    }
    const unsigned char *data = h != NULL ? ct_tensor_data_ptr(h) : NULL;
    size_t bb = (size_t)block * isz;
    for (int64_t k = 0; k < positions; k++)
        nnz += block_nonzero(t->dtype, data + (size_t)k * bb, block);

    vsizes[0] = nnz;
    memcpy(vsizes + 1, t->sizes + sd, (size_t)(t->ndim - sd) * sizeof(int64_t));
    if ((st = ct_sparse_impl_host_empty((const int64_t[]){sd, nnz}, 2, CT_INT64, &ri)) != CT_OK ||
        (st = ct_sparse_impl_host_empty(vsizes, t->ndim - sd + 1, t->dtype, &rv)) != CT_OK)
        goto fail;
    int64_t *rix = ct_tensor_data_ptr(ri);
    unsigned char *rvals = ct_tensor_data_ptr(rv);
    for (int64_t k = 0, r = 0; k < positions; k++) {
        const unsigned char *b = data + (size_t)k * bb;
        if (!block_nonzero(t->dtype, b, block))
            continue;
        for (int64_t d = sd - 1, rest = k; d >= 0; d--) { /* unravel k in C order */
            rix[d * nnz + r] = rest % t->sizes[d];
            rest /= t->sizes[d];
        }
        memcpy(rvals + (size_t)r * bb, b, bb);
        r++;
    }
    st = ct_sparse_impl_make_on(ri, rv, t->device, t->sizes, t->ndim, sd, true, out);
    ri = rv = NULL; /* consumed */
fail:
    ct_tensor_release(h);
    ct_tensor_release(ri);
    ct_tensor_release(rv);
    return st;
}

/* PyTorch's errors for a negative sparse_dim of a 0-dim tensor: making the empty result's
 * indices when the value is zero, narrowing the nonzero() positions otherwise. */
static ct_status negative_sparse_dim(const ct_tensor *t, int64_t sd) {
    ct_tensor *h;
    CT_TRY(ct_sparse_impl_host(t, CT_DTYPE_UNDEFINED, &h));
    bool nz = nonzero(t->dtype, ct_tensor_data_ptr(h));
    ct_tensor_release(h);
    if (!nz)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Trying to create tensor with negative dimension %" PRId64 ": [%" PRId64
                            ", 0]",
                            sd, sd);
    return ct_set_error(CT_ERR_RUNTIME,
                        "start (0) + length (%" PRId64 ") exceeds dimension size (0).", sd);
}

ct_status ct_sparse_to_sparse_dim(const ct_tensor *t, int64_t sd, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "to_sparse: out is NULL");
    *out = NULL;
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "to_sparse: tensor is NULL");
    const ct_sparse_coo *p = ct_sparse_impl_payload(t);
    if (p != NULL) { /* newest PyTorch: the tensor itself, or no conversion at all */
        if (sd == p->sparse_dim) {
            *out = ct_tensor_retain((ct_tensor *)t);
            return CT_OK;
        }
        return ct_set_error(CT_ERR_RUNTIME,
                            "sparse_coo_to_sparse: conversion from Sparse to Sparse with "
                            "sparse_dim argument !=self.sparse_dim() is not supported");
    }
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "to_sparse: layout torch.%s is not supported",
                            ct_layout_name(t->layout));
    if (!(sd > 0 || t->ndim == 0))
        return ct_set_error(CT_ERR_RUNTIME, "sparse_dim must be >0 if dimensionality > 0");
    if (sd > t->ndim)
        return ct_set_error(CT_ERR_RUNTIME, "sparse_dim must be less than or equal to self.dim()");
    if (t->device.type == CT_DEVICE_META) {
        char b[64];
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "Could not run 'aten::to_sparse' with arguments from the '%s' "
                            "backend.",
                            ct_sparse_impl_backend_name(t, b, sizeof b));
    }
    if (t->dtype == CT_FLOAT4_E2M1FN_X2) /* packed pairs: no element to test */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "\"nonzero_cpu\" not implemented for 'Float4_e2m1fn_x2'");
    if (sd < 0) /* a 0-dim tensor: PyTorch fails where its nonzero() result leads it */
        return negative_sparse_dim(t, sd);
    return dense_to_sparse(t, sd, out);
}

ct_status ct_sparse_to_sparse(const ct_tensor *t, ct_tensor **out) {
    const ct_sparse_coo *p = ct_sparse_impl_payload(t);
    return ct_sparse_to_sparse_dim(t, p != NULL ? p->sparse_dim : ct_tensor_dim(t), out);
}
