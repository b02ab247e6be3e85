/* NumPy-style joining (ctensor/join.h): atleast_1d / 2d / 3d as views, and hstack, vstack,
 * dstack and column_stack as cat of such views, as PyTorch composes them. */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/join.h"
#include "tensor/tensor_impl.h"

ct_status ct_tensor_atleast(const ct_tensor *tensor, int ndim, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_atleast: out is NULL");
    *out = NULL;
    CT_TRY(ct_tensor_impl_check(tensor, "ct_tensor_atleast"));
    if (ndim < 1 || ndim > 3)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_atleast: ndim %d is not 1, 2 or 3", ndim);
    if (tensor->ndim >= ndim) {
        *out = ct_tensor_retain((ct_tensor *)tensor);
        return CT_OK;
    }
    if (tensor->ndim == 0) { /* a scalar: all ones */
        static const int64_t ones[3] = {1, 1, 1};
        return ct_tensor_reshape(tensor, ones, ndim, out);
    }
    /* PyTorch's views (so its strides): a vector gains a leading dim (and for 3-D a trailing
     * one too), a matrix a trailing one */
    if (tensor->ndim == 1 && ndim == 2)
        return ct_tensor_unsqueeze(tensor, 0, out);
    if (tensor->ndim == 2)
        return ct_tensor_unsqueeze(tensor, -1, out);
    ct_tensor *row = NULL;
    CT_TRY(ct_tensor_unsqueeze(tensor, 0, &row));
    ct_status st = ct_tensor_unsqueeze(row, -1, out);
    ct_tensor_release(row);
    return st;
}

static const char *const kind_names[] = {
    [CT_JOIN_HSTACK] = "hstack",
    [CT_JOIN_VSTACK] = "vstack",
    [CT_JOIN_DSTACK] = "dstack",
    [CT_JOIN_COLUMN_STACK] = "column_stack",
};

/* The views each kind joins, and the dim it joins them along. */
static ct_status views_of(ct_join_kind kind, const ct_tensor *const *tensors, size_t n,
                          ct_tensor ***views, int64_t *dim) {
    ct_tensor **v = ct_tensor_impl_list_alloc((int64_t)n);
    if (v == NULL)
        return CT_ERR_NOMEM;
    ct_status st = CT_OK;
    for (size_t i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *t = tensors[i];
        st = ct_tensor_impl_check(t, kind_names[kind]);
        if (st != CT_OK)
            break;
        switch (kind) {
        case CT_JOIN_HSTACK:
            st = ct_tensor_atleast(t, 1, &v[i]);
            break;
        case CT_JOIN_VSTACK:
            st = ct_tensor_atleast(t, 2, &v[i]);
            break;
        case CT_JOIN_DSTACK:
            st = ct_tensor_atleast(t, 3, &v[i]);
            break;
        case CT_JOIN_COLUMN_STACK: { /* scalars and vectors become columns */
            int64_t col[2] = {t->numel, 1};
            st = t->ndim <= 1 ? ct_tensor_reshape(t, col, 2, &v[i]) : ct_tensor_alias(t, &v[i]);
            break;
        }
        }
    }
    if (st != CT_OK) {
        ct_tensor_list_release(v, (int64_t)n); /* (entries not yet made are NULL) */
        return st;
    }
    /* hstack joins vectors end to end and anything else side by side */
    *dim = kind == CT_JOIN_HSTACK ? (v[0]->ndim == 1 ? 0 : 1)
           : kind == CT_JOIN_VSTACK ? 0
           : kind == CT_JOIN_DSTACK ? 2
                                    : 1;
    *views = v;
    return CT_OK;
}

static ct_status join_kind(ct_join_kind kind, const ct_tensor *const *tensors, size_t n,
                           ct_tensor *out, ct_tensor **result) {
    if ((unsigned)kind > (unsigned)CT_JOIN_COLUMN_STACK)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_join_kind: invalid kind %d", (int)kind);
    if (n > 0 && tensors == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensors is NULL", kind_names[kind]);
    if (n == 0)
        return ct_set_error(CT_ERR_RUNTIME, "%s expects a non-empty TensorList",
                            kind_names[kind]);
    ct_tensor **v = NULL;
    int64_t dim = 0;
    CT_TRY(views_of(kind, tensors, n, &v, &dim));
    ct_status st = out != NULL ? ct_tensor_cat_out((const ct_tensor *const *)v, n, dim, out)
                               : ct_tensor_cat((const ct_tensor *const *)v, n, dim, result);
    ct_tensor_list_release(v, (int64_t)n);
    return st;
}

ct_status ct_tensor_join_kind(ct_join_kind kind, const ct_tensor *const *tensors, size_t n,
                              ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_join_kind: out is NULL");
    *out = NULL;
    return join_kind(kind, tensors, n, NULL, out);
}

ct_status ct_tensor_join_kind_out(ct_join_kind kind, const ct_tensor *const *tensors, size_t n,
                                  ct_tensor *out) {
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_join_kind_out"));
    return join_kind(kind, tensors, n, out, NULL);
}

ct_status ct_tensor_meshgrid(const ct_tensor *const *tensors, size_t n, bool xy,
                             ct_tensor ***out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_meshgrid: out is NULL");
    *out = NULL;
    if (n > 0 && tensors == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_meshgrid: tensors is NULL");
    if (n == 0)
        return ct_set_error(CT_ERR_RUNTIME, "meshgrid expects a non-empty TensorList");
    if (n > CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE,
                            "maximum supported dimension for a tensor is %d, found %zu",
                            CT_MAX_DIMS, n);
    for (size_t i = 0; i < n; i++)
        CT_TRY(ct_tensor_impl_check(tensors[i], "ct_tensor_meshgrid"));
    for (size_t i = 0; i + 1 < n; i++) { /* PyTorch checks these before the dims */
        if (tensors[i]->dtype != tensors[i + 1]->dtype)
            return ct_set_error(CT_ERR_RUNTIME, "meshgrid expects all tensors to have the same dtype");
        if (!ct_device_equal(tensors[i]->device, tensors[i + 1]->device))
            return ct_set_error(CT_ERR_RUNTIME,
                                "meshgrid expects all tensors to have the same device");
    }
    for (size_t i = 0; i < n; i++)
        if (tensors[i]->ndim > 1) { /* (PyTorch prints the tensor itself; its sizes here) */
            char shape[128];
            return ct_set_error(CT_ERR_RUNTIME,
                                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                                "got a tensor of sizes %s",
                                ct_tensor_impl_shape_format(shape, sizeof shape, tensors[i]->sizes,
                                                            tensors[i]->ndim));
        }
    /* 'xy' is 'ij' with the first two inputs exchanged, and their grids exchanged back */
    const ct_tensor *in[CT_MAX_DIMS];
    for (size_t i = 0; i < n; i++)
        in[i] = tensors[i];
    bool swap = xy && n >= 2;
    if (swap) {
        in[0] = tensors[1];
        in[1] = tensors[0];
    }
    int64_t sizes[CT_MAX_DIMS];
    for (size_t i = 0; i < n; i++)
        sizes[i] = in[i]->numel;
    ct_tensor **grids = ct_tensor_impl_list_alloc((int64_t)n);
    if (grids == NULL)
        return CT_ERR_NOMEM;
    ct_status st = CT_OK;
    for (size_t i = 0; i < n && st == CT_OK; i++) { /* input i along dim i, expanded */
        int64_t shape[CT_MAX_DIMS];
        for (size_t k = 0; k < n; k++)
            shape[k] = k == i ? sizes[i] : 1;
        ct_tensor *v = NULL;
        st = ct_tensor_view(in[i], shape, (int64_t)n, &v);
        if (st == CT_OK)
            st = ct_tensor_expand(v, sizes, (int64_t)n, &grids[swap && i < 2 ? 1 - i : i]);
        ct_tensor_release(v);
    }
    if (st != CT_OK) {
        ct_tensor_list_release(grids, (int64_t)n);
        return st;
    }
    *out = grids;
    return CT_OK;
}
