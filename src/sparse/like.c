/* The factories that take their geometry from a tensor (zeros_like and the *_like family,
 * Tensor.new_zeros and the new_* family) where a sparse COO tensor is asked for or given,
 * and zero_ of a sparse tensor, as PyTorch 1.13's TensorFactories.cpp routes them: only
 * empty and zeros make a sparse tensor (nnz 0); the factories that write values run
 * fill_/uniform_/normal_/random_ on it, which have no sparse kernel. */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/random.h"
#include "sparse/sparse_impl.h"

/* The aten op whose missing sparse kernel a factory trips on (after empty made the result). */
static const char *const FILL_OP[] = {[CT_SPARSE_FILL_EMPTY] = NULL,
                                      [CT_SPARSE_FILL_ZEROS] = NULL,
                                      [CT_SPARSE_FILL_ONES] = "fill_.Scalar",
                                      [CT_SPARSE_FILL_FULL] = "fill_.Scalar",
                                      [CT_SPARSE_FILL_RAND] = "uniform_",
                                      [CT_SPARSE_FILL_RANDN] = "normal_",
                                      [CT_SPARSE_FILL_RANDINT] = "random_.from"};

static ct_status refuse(const char *op, ct_device device) {
    ct_tensor probe = {.layout = CT_LAYOUT_SPARSE_COO, .device = device};
    char b[64];
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                        "Could not run 'aten::%s' with arguments from the '%s' backend.", op,
                        ct_sparse_impl_backend_name(&probe, b, sizeof b));
}

/* A strided result of `sizes` (a sparse input with layout=strided): an empty tensor of the
 * format asked for, then the dense *_like of it. */
static ct_status strided_result(const int64_t *sizes, int64_t ndim, ct_sparse_fill fill,
                                const ct_sparse_like_options *o, ct_dtype dtype, ct_device dev,
                                ct_tensor **out) {
    ct_memory_format f = o->has_memory_format && o->memory_format != CT_MEMFMT_PRESERVE
                             ? o->memory_format
                             : CT_MEMFMT_CONTIGUOUS;
    ct_tensor *e = NULL;
    CT_TRY(ct_tensor_empty(sizes, ndim, dtype, &dev, CT_LAYOUT_STRIDED, f, &e));
    ct_status st;
    switch (fill) {
    case CT_SPARSE_FILL_EMPTY:
        *out = e;
        return CT_OK;
    case CT_SPARSE_FILL_ZEROS:
        st = ct_tensor_zeros_like(e, dtype, NULL, CT_MEMFMT_PRESERVE, out);
        break;
    case CT_SPARSE_FILL_ONES:
        st = ct_tensor_ones_like(e, dtype, NULL, CT_MEMFMT_PRESERVE, out);
        break;
    case CT_SPARSE_FILL_FULL:
        st = ct_tensor_full_like(e, o->fill_value, dtype, NULL, CT_MEMFMT_PRESERVE, out);
        break;
    case CT_SPARSE_FILL_RAND:
        st = ct_tensor_rand_like(e, NULL, dtype, NULL, CT_MEMFMT_PRESERVE, out);
        break;
    case CT_SPARSE_FILL_RANDN:
        st = ct_tensor_randn_like(e, NULL, dtype, NULL, CT_MEMFMT_PRESERVE, out);
        break;
    default:
        st = ct_set_error(CT_ERR_MISUSE, "ct_sparse_like: randint_like is not supported");
    }
    ct_tensor_release(e);
    return st;
}

static ct_status check_args(ct_sparse_fill fill, const ct_sparse_like_options *o, const char *fn) {
    if ((unsigned)fill > CT_SPARSE_FILL_RANDINT)
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid fill %d", fn, (int)fill);
    if (o->has_layout && o->layout != CT_LAYOUT_STRIDED && o->layout != CT_LAYOUT_SPARSE_COO)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided and sparse_coo layouts", fn);
    return CT_OK;
}

ct_status ct_sparse_like(const ct_tensor *t, ct_sparse_fill fill, const ct_sparse_like_options *o,
                         ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_like: out is NULL");
    *out = NULL;
    ct_sparse_like_options dflt = CT_SPARSE_LIKE_OPTIONS_INIT;
    if (o == NULL)
        o = &dflt;
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_like: tensor is NULL");
    CT_TRY(check_args(fill, o, "ct_sparse_like"));
    ct_layout layout = o->has_layout ? o->layout : t->layout;
    ct_dtype dtype = o->dtype != CT_DTYPE_UNDEFINED ? o->dtype : t->dtype;
    ct_device dev = t->device;
    if (o->device != NULL)
        CT_TRY(ct_device_resolve(o->device, &dev));
    if (layout == CT_LAYOUT_STRIDED) {
        if (t->layout == CT_LAYOUT_STRIDED)
            return ct_set_error(CT_ERR_MISUSE, "ct_sparse_like: neither the input nor the "
                                               "result is sparse");
        return strided_result(t->sizes, t->ndim, fill, o, dtype, dev, out);
    }
    /* PyTorch's empty_like check, before any allocation */
    if (o->has_memory_format)
        return ct_set_error(CT_ERR_RUNTIME,
                            "memory format option is only supported by strided tensors");
    const ct_sparse_coo *p = ct_sparse_impl_payload(t);
    /* zeros_like resizes a sparse result itself; empty_like only for a sparse input (a
     * strided one goes to empty_strided, which has no sparse kernel; so does zeros_like
     * on meta, whose composite 1.13 runs there); the others fill the empty_like result */
    if (p == NULL && (fill != CT_SPARSE_FILL_ZEROS || dev.type == CT_DEVICE_META))
        return refuse("empty_strided", dev);
    if (FILL_OP[fill] != NULL)
        return refuse(FILL_OP[fill], dev);
    int64_t sparse_dim = p != NULL ? p->sparse_dim : t->ndim;
    return ct_sparse_coo_zeros(t->sizes, t->ndim, sparse_dim, dtype, &dev, out);
}

ct_status ct_sparse_new(const ct_tensor *t, ct_sparse_fill fill, const int64_t *sizes, int64_t ndim,
                        const ct_sparse_like_options *o, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_new: out is NULL");
    *out = NULL;
    ct_sparse_like_options dflt = CT_SPARSE_LIKE_OPTIONS_INIT;
    if (o == NULL)
        o = &dflt;
    if (t == NULL || (sizes == NULL && ndim > 0))
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_new: NULL argument");
    CT_TRY(check_args(fill, o, "ct_sparse_new"));
    if (fill == CT_SPARSE_FILL_RAND || fill == CT_SPARSE_FILL_RANDN ||
        fill == CT_SPARSE_FILL_RANDINT)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_new: no new_* form of that fill");
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    ct_layout layout = o->has_layout ? o->layout : t->layout;
    ct_dtype dtype = o->dtype != CT_DTYPE_UNDEFINED ? o->dtype : t->dtype;
    ct_device dev = t->device;
    if (o->device != NULL)
        CT_TRY(ct_device_resolve(o->device, &dev));
    if (layout == CT_LAYOUT_STRIDED)
        return strided_result(sizes, ndim, fill, o, dtype, dev, out);
    /* new_zeros / new_empty are zeros / empty with self's options: every dim sparse;
     * new_ones and new_full fill that result */
    if (FILL_OP[fill] != NULL)
        return refuse(FILL_OP[fill], dev);
    return ct_sparse_coo_zeros(sizes, ndim, ndim, dtype, &dev, out);
}

/* PyTorch's zero_ of a sparse tensor is zeros_out(self, self.sizes()): every dim becomes
 * sparse, nnz 0, coalesced. The payload is replaced in place (as ops.c's in-place ops do),
 * so, like any in-place operation, not while another thread reads the tensor. */
ct_status ct_sparse_zero_(ct_tensor *t) {
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "zero_", &p));
    ct_tensor *z = NULL;
    CT_TRY(ct_sparse_coo_zeros(t->sizes, t->ndim, t->ndim, t->dtype, &t->device, &z));
    void *ext = t->ext;
    t->ext = z->ext;
    z->ext = ext; /* the old payload goes with z */
    ct_tensor_release(z);
    return CT_OK;
}
