/* Sparse COO tensors: the payload, construction with PyTorch's invariant checks, the
 * accessors, and the host staging every data-reading operation goes through. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "sparse/sparse_impl.h"

static const ct_device host_device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
static const char meta_error[] = "Cannot copy out of meta tensor; no data!";

/* ---- the payload ----------------------------------------------------------------------- */

static void payload_free(void *ext) {
    ct_sparse_coo *p = ext;
    if (p == NULL)
        return;
    ct_tensor_release(p->indices);
    ct_tensor_release(p->values);
    ct_free(p, sizeof *p, _Alignof(ct_sparse_coo));
}

/* The ext_free pointer identifies our payload: another layer could make a COO-layout
 * tensor with a payload of its own. */
const ct_sparse_coo *ct_sparse_impl_payload(const ct_tensor *t) {
    if (t == NULL || t->layout != CT_LAYOUT_SPARSE_COO || t->ext_free != payload_free)
        return NULL;
    return t->ext;
}

const char *ct_sparse_impl_backend_name(const ct_tensor *t, char *buf, size_t size) {
    const char *dev;
    switch (t->device.type) {
    case CT_DEVICE_CPU:
        dev = "CPU";
        break;
    case CT_DEVICE_META:
        dev = "Meta";
        break;
    case CT_DEVICE_PRIVATEUSEONE:
        dev = "PrivateUse1";
        break;
    default:
        dev = ct_device_type_upper_name(t->device.type);
        if (dev == NULL)
            dev = "Undefined";
    }
    snprintf(buf, size, "%s%s", t->layout == CT_LAYOUT_SPARSE_COO ? "Sparse" : "", dev);
    return buf;
}

ct_status ct_sparse_impl_arg(const ct_tensor *t, const char *op, const ct_sparse_coo **out) {
    *out = NULL;
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensor is NULL", op);
    const ct_sparse_coo *p = ct_sparse_impl_payload(t);
    if (p == NULL) {
        char b[64];
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "Could not run 'aten::%s' with arguments from the '%s' backend.", op,
                            ct_sparse_impl_backend_name(t, b, sizeof b));
    }
    *out = p;
    return CT_OK;
}

ct_status ct_sparse_impl_make(ct_tensor *indices, ct_tensor *values, const int64_t *sizes,
                              int64_t ndim, int64_t sparse_dim, bool coalesced, ct_tensor **out) {
    *out = NULL;
    ct_sparse_impl_register_ops(); /* before the first sparse tensor can reach an op */
    ct_sparse_coo *p = ct_alloc(sizeof *p, _Alignof(ct_sparse_coo));
    if (p == NULL) {
        ct_tensor_release(indices);
        ct_tensor_release(values);
        return CT_ERR_NOMEM;
    }
    p->indices = indices;
    p->values = values;
    p->sparse_dim = sparse_dim;
    p->dense_dim = ndim - sparse_dim;
    p->nnz = indices->sizes[1];
    atomic_init(&p->coalesced, coalesced);
    /* the constructor frees the payload (and so both references) when it fails */
    return ct_tensor_impl_new_nonstrided(CT_LAYOUT_SPARSE_COO, values->dtype, values->device, sizes,
                                         ndim, p, payload_free, out);
}

/* ---- host staging ------------------------------------------------------------------------ */

ct_status ct_sparse_impl_host_empty(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                    ct_tensor **out) {
    return ct_tensor_empty(sizes, ndim, dtype, &host_device, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, out);
}

ct_status ct_sparse_impl_host(const ct_tensor *t, ct_dtype dtype, ct_tensor **out) {
    *out = NULL;
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = t->dtype;
    if (t->device.type == CT_DEVICE_CPU && t->dtype == dtype &&
        ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS)) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    ct_tensor *h;
    CT_TRY(ct_sparse_impl_host_empty(t->sizes, t->ndim, dtype, &h));
    /* nothing to read from an empty tensor, not even on meta */
    ct_status st = t->numel > 0 ? ct_tensor_copy_(h, t) : CT_OK;
    if (st != CT_OK) {
        ct_tensor_release(h);
        return st;
    }
    *out = h;
    return CT_OK;
}

ct_status ct_sparse_impl_to_device(ct_tensor *h, ct_device device, ct_tensor **out) {
    *out = NULL;
    if (device.type == CT_DEVICE_CPU) {
        *out = h;
        return CT_OK;
    }
    ct_status st = ct_tensor_to_device(h, device, out);
    ct_tensor_release(h);
    return st;
}

ct_status ct_sparse_impl_make_on(ct_tensor *hi, ct_tensor *hv, ct_device device,
                                 const int64_t *sizes, int64_t ndim, int64_t sparse_dim,
                                 bool coalesced, ct_tensor **out) {
    ct_tensor *di = NULL, *dv = NULL;
    *out = NULL;
    ct_status st = ct_sparse_impl_to_device(hi, device, &di);
    if (st != CT_OK) {
        ct_tensor_release(hv);
        return st;
    }
    if ((st = ct_sparse_impl_to_device(hv, device, &dv)) != CT_OK) {
        ct_tensor_release(di);
        return st;
    }
    return ct_sparse_impl_make(di, dv, sizes, ndim, sparse_dim, coalesced, out);
}

ct_status ct_sparse_impl_prod(const int64_t *sizes, int64_t from, int64_t to, int64_t *out) {
    int64_t n = 1;
    for (int64_t i = from; i < to; i++)
        if (ct_checked_mul_i64(n, sizes[i], &n))
            return ct_set_error(CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    *out = n;
    return CT_OK;
}

/* ---- construction ------------------------------------------------------------------------ */

/* Per sparse dim, the smallest and largest index (nnz > 0, sd > 0): host-side, as PyTorch
 * copies min/max to the cpu. `mins`/`maxs` have sd entries. */
static ct_status index_extremes(const ct_tensor *indices, int64_t *mins, int64_t *maxs) {
    ct_tensor *h;
    CT_TRY(ct_sparse_impl_host(indices, CT_INT64, &h));
    const int64_t *ix = ct_tensor_data_ptr(h);
    int64_t sd = indices->sizes[0], nnz = indices->sizes[1];
    for (int64_t d = 0; d < sd; d++) {
        const int64_t *row = ix + d * nnz;
        int64_t lo = row[0], hi = row[0];
        for (int64_t k = 1; k < nnz; k++) {
            lo = row[k] < lo ? row[k] : lo;
            hi = row[k] > hi ? row[k] : hi;
        }
        mins[d] = lo;
        maxs[d] = hi;
    }
    ct_tensor_release(h);
    return CT_OK;
}

/* Are the columns strictly increasing (sorted, no duplicates)? */
static ct_status indices_coalesced(const ct_tensor *indices, bool *out) {
    ct_tensor *h;
    CT_TRY(ct_sparse_impl_host(indices, CT_INT64, &h));
    const int64_t *ix = ct_tensor_data_ptr(h);
    int64_t sd = indices->sizes[0], nnz = indices->sizes[1];
    *out = true;
    for (int64_t k = 1; k < nnz && *out; k++)
        *out = ct_sparse_impl_cmp_cols(ix, nnz, k - 1, ix, nnz, k, sd) < 0;
    ct_tensor_release(h);
    return CT_OK;
}

/* Replace *t by the result of a conversion (the old reference is dropped). `next` is read
 * after the call that fills it has run. */
static ct_status swap_in(ct_tensor **t, ct_status st, ct_tensor **next) {
    if (st != CT_OK)
        return st;
    ct_tensor_release(*t);
    *t = *next;
    *next = NULL;
    return CT_OK;
}

/* Checks that read index values: bounds against `sizes`, or the inferred sizes. */
static ct_status check_index_values(const ct_tensor *ind, bool infer, bool check, int64_t *sizes) {
    int64_t sd = ind->sizes[0];
    if (ind->numel == 0 || (!infer && !check))
        return CT_OK;
    if (ind->device.type == CT_DEVICE_META) {
        if (infer) /* no data to infer from */
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, meta_error);
        return CT_OK; /* meta tensors have no index values to be wrong */
    }
    int64_t mins[CT_MAX_DIMS], maxs[CT_MAX_DIMS];
    CT_TRY(index_extremes(ind, mins, maxs));
    for (int64_t d = 0; d < sd; d++) {
        if (mins[d] < 0)
            return ct_set_error(CT_ERR_RUNTIME, "found negative index %" PRId64 " for dim %" PRId64,
                                mins[d], d);
        if (infer) {
            if (ct_checked_add_i64(maxs[d], 1, &sizes[d]))
                return ct_set_error(CT_ERR_OVERFLOW,
                                    "size of dim %" PRId64 " inferred from index %" PRId64
                                    " overflows int64",
                                    d, maxs[d]);
        } else if (maxs[d] >= sizes[d]) {
            return ct_set_error(CT_ERR_RUNTIME,
                                "size is inconsistent with indices: for dim %" PRId64
                                ", size is %" PRId64 " but found index %" PRId64,
                                d, sizes[d], maxs[d]);
        }
    }
    return CT_OK;
}

/* PyTorch's SparseTensorImpl::set_indices_and_values_unsafe checks. */
static ct_status check_pair(const ct_tensor *ind, const ct_tensor *val, const int64_t *sizes,
                            int64_t sd) {
    char a[64], b[64];
    if (ind->device.type != val->device.type)
        return ct_set_error(CT_ERR_RUNTIME,
                            "backend of indices (%s) must match backend of values (%s)",
                            ct_sparse_impl_backend_name(ind, a, sizeof a),
                            ct_sparse_impl_backend_name(val, b, sizeof b));
    if (ind->device.index != val->device.index)
        return ct_set_error(CT_ERR_RUNTIME,
                            "device of indices (%d) must match device of values (%d)",
                            (int)ind->device.index, (int)val->device.index);
    if (ind->sizes[1] != val->sizes[0])
        return ct_set_error(CT_ERR_RUNTIME,
                            "indices and values must have same nnz, but got nnz from indices: "
                            "%" PRId64 ", nnz from values: %" PRId64,
                            ind->sizes[1], val->sizes[0]);
    int64_t dd = val->ndim - 1;
    if (dd > 0 && memcmp(val->sizes + 1, sizes + sd, (size_t)dd * sizeof(int64_t)) != 0) {
        int64_t want[CT_MAX_DIMS + 1];
        want[0] = val->sizes[0];
        memcpy(want + 1, sizes + sd, (size_t)dd * sizeof(int64_t));
        char x[400], y[400];
        return ct_set_error(CT_ERR_RUNTIME, "values has incorrect size, expected %s, got %s",
                            ct_tensor_impl_shape_format(x, sizeof x, want, dd + 1),
                            ct_tensor_impl_shape_format(y, sizeof y, val->sizes, val->ndim));
    }
    return CT_OK;
}

/* The body of ct_sparse_coo_tensor once both arguments are held: *ind and *val are
 * replaced as they are converted; the caller releases whatever they hold at the end. */
static ct_status build(ct_tensor **ind, ct_tensor **val, const int64_t *given, int64_t ndim,
                       const ct_sparse_coo_options *opt, ct_tensor **out) {
    ct_tensor *next = NULL;
    char a[400];
    bool infer = ndim == CT_SPARSE_INFER_SIZE;
    if ((*ind)->ndim != 2)
        return ct_set_error(CT_ERR_RUNTIME, "indices must be sparse_dim x nnz, but got: %s",
                            ct_tensor_impl_shape_format(a, sizeof a, (*ind)->sizes, (*ind)->ndim));
    if ((*ind)->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_RUNTIME,
                            "expected indices to be a dense tensor, but got indices of layout %s",
                            ct_layout_cpp_name((*ind)->layout));
    if ((*val)->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_RUNTIME,
                            "expected values to be a dense tensor, but got values of layout %s",
                            ct_layout_cpp_name((*val)->layout));
    if (opt->dtype != CT_DTYPE_UNDEFINED && opt->dtype != (*val)->dtype)
        CT_TRY(swap_in(val, ct_tensor_to_dtype(*val, opt->dtype, &next), &next));
    if (opt->device != NULL) {
        const ct_device *dev = opt->device;
        ct_memory_format keep = CT_MEMFMT_PRESERVE;
        CT_TRY(
            swap_in(ind, ct_tensor_to(*ind, CT_DTYPE_UNDEFINED, dev, false, keep, &next), &next));
        CT_TRY(
            swap_in(val, ct_tensor_to(*val, CT_DTYPE_UNDEFINED, dev, false, keep, &next), &next));
    }
    if ((*val)->ndim == 0) /* PyTorch treats a 0-dim values tensor as shape [1] */
        CT_TRY(swap_in(val, ct_tensor_expand(*val, (const int64_t[]){1}, 1, &next), &next));

    int64_t sd = (*ind)->sizes[0], dd = (*val)->ndim - 1, total;
    bool overflow = ct_checked_add_i64(sd, dd, &total);
    if (!infer && (overflow || ndim != total))
        return ct_set_error(CT_ERR_RUNTIME,
                            "number of dimensions must be sparse_dim (%" PRId64
                            ") + dense_dim (%" PRId64 "), but got %" PRId64,
                            sd, dd, ndim);
    if (overflow || total > CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE,
                            "maximum supported dimension for a tensor is %d, found %" PRId64,
                            CT_MAX_DIMS, overflow ? sd : total);
    if ((*ind)->dtype != CT_INT64)
        return ct_set_error(CT_ERR_RUNTIME, "indices must be an int64 tensor");

    int64_t sizes[CT_MAX_DIMS];
    if (infer) {
        for (int64_t d = 0; d < sd; d++)
            sizes[d] = 0; /* no index: nothing known, PyTorch says 0 */
        for (int64_t d = 0; d < dd; d++)
            sizes[sd + d] = (*val)->sizes[d + 1];
    } else if (total > 0) {
        memcpy(sizes, given, (size_t)total * sizeof(int64_t));
    }
    CT_TRY(check_index_values(*ind, infer, opt->check_invariants, sizes));
    CT_TRY(check_pair(*ind, *val, sizes, sd));

    int64_t nnz = (*ind)->sizes[1];
    bool coalesced = nnz < 2;
    if (opt->is_coalesced && !coalesced) {
        coalesced = true;
        bool ok = true;
        if (opt->check_invariants && (*ind)->device.type != CT_DEVICE_META)
            CT_TRY(indices_coalesced(*ind, &ok));
        if (!ok)
            return ct_set_error(CT_ERR_RUNTIME, "cannot set is_coalesced to true if indices "
                                                "correspond to uncoalesced COO tensor");
    }
    ct_tensor *i = *ind, *v = *val;
    *ind = *val = NULL; /* make() consumes them */
    return ct_sparse_impl_make(i, v, sizes, total, sd, coalesced, out);
}

ct_status ct_sparse_coo_tensor(const ct_tensor *indices, const ct_tensor *values,
                               const int64_t *sizes, int64_t ndim,
                               const ct_sparse_coo_options *options, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_coo_tensor: out is NULL");
    *out = NULL;
    ct_sparse_coo_options opt = CT_SPARSE_COO_OPTIONS_INIT;
    if (options != NULL)
        opt = *options;
    if (indices == NULL || values == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_coo_tensor: tensor is NULL");
    if (opt.dtype != CT_DTYPE_UNDEFINED && !ct_dtype_impl_valid(opt.dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_coo_tensor: invalid dtype value %d",
                            (int)opt.dtype);
    if (ndim != CT_SPARSE_INFER_SIZE) {
        if (ndim < 0)
            return ct_set_error(CT_ERR_MISUSE, "negative number of dimensions %" PRId64, ndim);
        if (ndim > 0 && sizes == NULL)
            return ct_set_error(CT_ERR_MISUSE, "sizes is NULL for %" PRId64 " dimensions", ndim);
    }
    ct_tensor *ind = ct_tensor_retain((ct_tensor *)indices);
    ct_tensor *val = ct_tensor_retain((ct_tensor *)values);
    ct_status st = build(&ind, &val, sizes, ndim, &opt, out);
    ct_tensor_release(ind);
    ct_tensor_release(val);
    return st;
}

ct_status ct_sparse_coo_zeros(const int64_t *sizes, int64_t ndim, int64_t sparse_dim,
                              ct_dtype dtype, const ct_device *device, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_coo_zeros: out is NULL");
    *out = NULL;
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    if (sparse_dim < 0 || sparse_dim > ndim)
        return ct_set_error(CT_ERR_RUNTIME,
                            "sparse_dim must be in [0, %" PRId64 "], but got %" PRId64, ndim,
                            sparse_dim);
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = ct_get_default_dtype();
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_coo_zeros: invalid dtype value %d",
                            (int)dtype);
    ct_device dev;
    CT_TRY(ct_device_resolve(device, &dev));
    int64_t vsizes[CT_MAX_DIMS + 1] = {0};
    if (ndim > sparse_dim)
        memcpy(vsizes + 1, sizes + sparse_dim, (size_t)(ndim - sparse_dim) * sizeof(int64_t));
    ct_tensor *ind = NULL, *val = NULL;
    ct_status st = ct_tensor_empty((const int64_t[]){sparse_dim, 0}, 2, CT_INT64, &dev,
                                   CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &ind);
    if (st == CT_OK)
        st = ct_tensor_empty(vsizes, ndim - sparse_dim + 1, dtype, &dev, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &val);
    if (st != CT_OK) {
        ct_tensor_release(ind);
        return st;
    }
    return ct_sparse_impl_make(ind, val, sizes, ndim, sparse_dim, true, out);
}

/* ---- accessors ------------------------------------------------------------------------- */

bool ct_sparse_is_sparse(const ct_tensor *t) {
    return t != NULL && t->layout == CT_LAYOUT_SPARSE_COO;
}

/* sparse_dim()/dense_dim() also answer for strided tensors (newest PyTorch). */
static ct_status dims_of(const ct_tensor *t, int64_t *out, bool sparse, const char *op) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", op);
    *out = 0;
    if (t != NULL && t->layout == CT_LAYOUT_STRIDED) {
        *out = sparse ? 0 : t->ndim;
        return CT_OK;
    }
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, op, &p));
    *out = sparse ? p->sparse_dim : p->dense_dim;
    return CT_OK;
}

ct_status ct_sparse_dim(const ct_tensor *t, int64_t *out) {
    return dims_of(t, out, true, "sparse_dim");
}

ct_status ct_sparse_dense_dim(const ct_tensor *t, int64_t *out) {
    return dims_of(t, out, false, "dense_dim");
}

ct_status ct_sparse_nnz(const ct_tensor *t, int64_t *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "_nnz: out is NULL");
    *out = 0;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "_nnz", &p));
    *out = p->nnz;
    return CT_OK;
}

ct_status ct_sparse_is_coalesced(const ct_tensor *t, bool *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "is_coalesced: out is NULL");
    *out = false;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "is_coalesced", &p));
    *out = atomic_load_explicit(&p->coalesced, memory_order_relaxed);
    return CT_OK;
}

ct_status ct_sparse_set_coalesced(ct_tensor *t, bool coalesced) {
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "_coalesced_", &p));
    atomic_store_explicit(&((ct_sparse_coo *)p)->coalesced, coalesced, memory_order_relaxed);
    return CT_OK;
}

/* indices()/values() (alias of a coalesced tensor's part) and _indices()/_values() (the
 * part itself, any state). */
static ct_status part(const ct_tensor *t, ct_tensor **out, bool values, bool raw, const char *op) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", op);
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, op, &p));
    ct_tensor *x = values ? p->values : p->indices;
    if (raw) {
        *out = ct_tensor_retain(x);
        return CT_OK;
    }
    if (!atomic_load_explicit(&p->coalesced, memory_order_relaxed))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Cannot get %s on an uncoalesced tensor, please call .coalesce() "
                            "first",
                            values ? "values" : "indices");
    return ct_tensor_alias(x, out);
}

ct_status ct_sparse_indices(const ct_tensor *t, ct_tensor **out) {
    return part(t, out, false, false, "indices");
}
ct_status ct_sparse_values(const ct_tensor *t, ct_tensor **out) {
    return part(t, out, true, false, "values");
}
ct_status ct_sparse_raw_indices(const ct_tensor *t, ct_tensor **out) {
    return part(t, out, false, true, "_indices");
}
ct_status ct_sparse_raw_values(const ct_tensor *t, ct_tensor **out) {
    return part(t, out, true, true, "_values");
}
