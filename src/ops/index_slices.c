/* index_add, index_fill and index_copy (ctensor/scatter.h): whole slices along a dim, named
 * by a 1-D index. Each is a ct_scatter_plan whose index is broadcast (stride 0) over every dim
 * but `dim`; PyTorch 1.13's checks and messages, in its order. */
#include <stdio.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/scatter.h"
#include "ops/scatter_impl.h"
#include "tensor/tensor_impl.h"

/* The plan's dims for self along d (0-dim self: one element), n index positions. */
static void slice_plan(ct_scatter_plan *p, ct_tensor *self, int64_t d, const ct_tensor *index) {
    int64_t tmp[CT_MAX_DIMS];
    p->nd = self->ndim == 0 ? 1 : self->ndim;
    p->dim = d;
    p->t = ct_tensor_data_ptr(self);
    p->dtype = self->dtype;
    ct_scatter_impl_dims(self, p->sizes, p->ts);
    p->tsize = p->sizes[d];
    p->sizes[d] = index->numel;
    memset(p->is, 0, sizeof p->is);
    ct_scatter_impl_dims(index, tmp, &p->is[d]); /* one dim: its stride */
    p->ix = ct_tensor_data_ptr(index);
    p->ix32 = index->dtype == CT_INT32;
    p->err_dim = d;
}

/* A private copy of `source` when it shares memory with self (new ref in *own, or NULL). */
static ct_status unshare(const ct_tensor *self, const ct_tensor **source, ct_tensor **own) {
    *own = NULL;
    if ((*source)->storage != self->storage)
        return CT_OK;
    CT_TRY(ct_tensor_clone(*source, CT_MEMFMT_CONTIGUOUS, own));
    *source = *own;
    return CT_OK;
}

/* Every index in [0, size), else "index out of range in self" (int32 or int64 index). */
static ct_status check_range(const ct_tensor *index, int64_t size) {
    int64_t tmp[1], st[1];
    ct_scatter_impl_dims(index, tmp, st);
    const char *ix = ct_tensor_data_ptr(index);
    for (int64_t k = 0; k < tmp[0]; k++) {
        int64_t v = index->dtype == CT_INT32 ? *(const int32_t *)(const void *)(ix + k * st[0] * 4)
                                             : *(const int64_t *)(const void *)(ix + k * st[0] * 8);
        if (v < 0 || v >= size)
            return ct_set_error(CT_ERR_INDEX, "index out of range in self");
    }
    return CT_OK;
}

/* ---- index_add --------------------------------------------------------------------------- */

/* The source slice (source without dim d) broadcast to self's slice, as add_'s iterator:
 * source strides per self dim in p->ss. */
static ct_status add_broadcast(const ct_tensor *self, int64_t d, const ct_tensor *source,
                               ct_scatter_plan *p) {
    int64_t a[CT_MAX_DIMS], b[CT_MAX_DIMS], bst[CT_MAX_DIMS], na = 0, nb = 0;
    for (int64_t j = 0; j < self->ndim; j++)
        if (j != d)
            a[na++] = self->sizes[j];
    for (int64_t j = 0; j < source->ndim; j++)
        if (j != d) {
            bst[nb] = source->strides[j];
            b[nb++] = source->sizes[j];
        }
    int64_t nr = na > nb ? na : nb, r[CT_MAX_DIMS];
    for (int64_t i = nr - 1; i >= 0; i--) {
        int64_t ia = i - (nr - na), ib = i - (nr - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%lld) must match the size of tensor b "
                                "(%lld) at non-singleton dimension %lld",
                                (long long)sa, (long long)sb, (long long)i);
        r[i] = sa == 1 ? sb : sa;
    }
    bool same = nr == na;
    for (int64_t i = 0; same && i < nr; i++)
        same = r[i] == a[i];
    if (!same) {
        char x[256], y[256];
        return ct_set_error(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                            ct_tensor_impl_shape_format(x, sizeof x, a, na),
                            ct_tensor_impl_shape_format(y, sizeof y, r, nr));
    }
    for (int64_t j = 0, q = 0; j < self->ndim; j++) {
        if (j == d) {
            p->ss[j] = source->strides[d];
            continue;
        }
        int64_t ib = q++ - (na - nb);
        p->ss[j] = ib >= 0 && b[ib] != 1 ? bst[ib] : 0;
    }
    return CT_OK;
}

ct_status ct_index_add_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                        const ct_tensor *source, ct_scalar alpha) {
    if (ct_scatter_impl_stage_wanted(self, index, source, NULL))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_INDEX_ADD_, .dim = dim,
                                      .scalar = alpha}, self, index,
            source, NULL, NULL);
    CT_TRY(ct_scatter_impl_check(self, "index_add_"));
    CT_TRY(ct_scatter_impl_check(index, "index_add_"));
    CT_TRY(ct_scatter_impl_check(source, "index_add_"));
    int64_t d;
    char a[256];
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, self->ndim, true, &d));
    int64_t n = index->numel;
    if (index->ndim > 1)
        return ct_set_error(CT_ERR_INDEX,
                            "index_add_(): Index is supposed to be a vector, but got dim: %lld "
                            "with type: %s and size: %s",
                            (long long)index->ndim, ct_dtype_cpp_name(index->dtype),
                            ct_tensor_impl_shape_format(a, sizeof a, index->sizes, index->ndim));
    if (index->dtype != CT_INT64 && index->dtype != CT_INT32)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_add_(): Expected dtype int32/int64 for index but got: %s",
                            ct_dtype_cpp_name(index->dtype));
    if (self->dtype != source->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_add_(): self (%s) and source (%s) must have the same scalar "
                            "type",
                            ct_dtype_cpp_name(self->dtype), ct_dtype_cpp_name(source->dtype));
    if (!(d == 0 || d < source->ndim))
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_add_(): Indexing dim %lld is out of bounds of the source "
                            "tensor with dim %lld",
                            (long long)d, (long long)source->ndim);
    int64_t ssize = source->ndim == 0 ? 1 : source->sizes[d];
    if (n != ssize)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_add_(): Number of indices (%lld) should be equal to "
                            "source.size(dim): (%lld), for dim: %lld",
                            (long long)n, (long long)ssize, (long long)d);
    if (!ct_scatter_impl_has_op(self->dtype, CT_SCATTER_OP_ADD_ALPHA))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"index_add_cpu_\" not implemented for '%s'",
                            ct_dtype_cpp_name(self->dtype));
    ct_scatter_plan p = {.op = CT_SCATTER_OP_ADD_ALPHA, .alpha = alpha,
                         .err = CT_SCATTER_ERR_SELF};
    if (self->ndim > 1) {
        if (n == 0)
            return CT_OK;
        if (self->sizes[d] == 0) /* torch 1.13 takes the slice at 0 first */
            return ct_set_error(CT_ERR_INDEX,
                                "select(): index 0 out of range for tensor of size %s at "
                                "dimension %lld",
                                ct_tensor_impl_shape_format(a, sizeof a, self->sizes, self->ndim),
                                (long long)d);
        if (self->numel == 0) /* nothing to add, but torch 1.13 still checks the indices */
            return check_range(index, self->sizes[d]);
        if (source->ndim == 0)
            return ct_set_error(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    } else if (source->ndim > 1)
        return ct_set_error(CT_ERR_RUNTIME,
                            "source.dim() (%lld) must one or zero for given self.dim() (%lld)",
                            (long long)source->ndim, (long long)self->ndim);
    ct_tensor *own = NULL;
    CT_TRY(unshare(self, &source, &own));
    slice_plan(&p, self, d, index);
    ct_status st = CT_OK;
    if (self->ndim > 1)
        st = add_broadcast(self, d, source, &p);
    else {
        int64_t tmp[CT_MAX_DIMS];
        p.tsize = self->numel;
        ct_scatter_impl_dims(source, tmp, p.ss);
    }
    p.s = ct_tensor_data_ptr(source);
    if (st == CT_OK)
        st = ct_scatter_impl_run(&p);
    ct_tensor_release(own);
    return st;
}

ct_status ct_index_add(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                       const ct_tensor *source, ct_scalar alpha, ct_tensor *out,
                       ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_index_add: result is NULL");
    *result = NULL;
    ct_tensor *r = NULL;
    if (ct_scatter_impl_stage_wanted(self, index, source, out))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_INDEX_ADD, .dim = dim,
                                      .scalar = alpha}, self, index,
            source, out, result);
    CT_TRY(ct_scatter_impl_check(self, "index_add"));
    CT_TRY(ct_tensor_clone(self, CT_MEMFMT_CONTIGUOUS, &r));
    ct_status st = ct_index_add_(r, dim, index, source, alpha);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct_scatter_impl_finish(r, out, result);
}

/* ---- index_fill -------------------------------------------------------------------------- */

ct_status ct_index_fill_(ct_tensor *self, int64_t dim, const ct_tensor *index, ct_scalar value) {
    if (ct_scatter_impl_stage_wanted(self, index, NULL, NULL))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_INDEX_FILL_, .dim = dim,
                                      .scalar = value}, self, index,
            NULL, NULL, NULL);
    CT_TRY(ct_scatter_impl_check(self, "index_fill_"));
    CT_TRY(ct_scatter_impl_check(index, "index_fill_"));
    if (index->dtype != CT_INT64)
        return ct_set_error(CT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    if (!ct_dtype_is_complex(self->dtype) && value.kind == CT_SCALAR_COMPLEX)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_fill_(): Converting complex Scalar to non-complex type is not "
                            "supported");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, self->ndim == 0 ? 1 : self->ndim, true, &d));
    if (index->ndim > 1)
        return ct_set_error(CT_ERR_RUNTIME, "Index has to be a vector/scalar");
    CT_TRY(ct_scatter_impl_dtype(self->dtype, "index_fill_cpu"));
    unsigned char vbuf[16] = {0};
    CT_TRY(ct_scalar_to_dtype(value, self->dtype, vbuf));
    ct_scatter_plan p = {.op = CT_SCATTER_OP_COPY, .wrap = true, .s = (char *)vbuf,
                         .err = CT_SCATTER_ERR_FILL};
    slice_plan(&p, self, d, index); /* p.ss stays 0: the value broadcasts */
    return ct_scatter_impl_run(&p);
}

ct_status ct_index_fill_tensor_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                                const ct_tensor *value) {
    CT_TRY(ct_tensor_impl_check(value, "index_fill_"));
    if (value->ndim != 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_fill_ only supports a 0-dimensional value tensor, but got "
                            "tensor with %lld dimension(s).",
                            (long long)value->ndim);
    ct_scalar v;
    CT_TRY(ct_tensor_item(value, &v));
    return ct_index_fill_(self, dim, index, v);
}

ct_status ct_index_fill(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                        ct_scalar value, ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_index_fill: result is NULL");
    *result = NULL;
    ct_tensor *r = NULL;
    if (ct_scatter_impl_stage_wanted(self, index, NULL, NULL))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_INDEX_FILL, .dim = dim,
                                      .scalar = value}, self, index,
            NULL, NULL, result);
    CT_TRY(ct_scatter_impl_check(self, "index_fill"));
    CT_TRY(ct_tensor_clone(self, CT_MEMFMT_PRESERVE, &r));
    ct_status st = ct_index_fill_(r, dim, index, value);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *result = r;
    return CT_OK;
}

/* ---- index_copy -------------------------------------------------------------------------- */

/* sizes without dim d, as c10 prints a vector: "3 4" */
static void sliced(char *buf, size_t cap, const ct_tensor *t, int64_t d) {
    size_t used = 0;
    buf[0] = '\0';
    for (int64_t j = 0; j < t->ndim && used + 24 < cap; j++)
        if (j != d)
            used += (size_t)snprintf(buf + used, cap - used, "%s%lld", used ? " " : "",
                                     (long long)t->sizes[j]);
}

ct_status ct_index_copy_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                         const ct_tensor *source) {
    if (ct_scatter_impl_stage_wanted(self, index, source, NULL))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_INDEX_COPY_, .dim = dim}, self, index,
            source, NULL, NULL);
    CT_TRY(ct_scatter_impl_check(self, "index_copy_"));
    CT_TRY(ct_scatter_impl_check(index, "index_copy_"));
    CT_TRY(ct_scatter_impl_check(source, "index_copy_"));
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, self->ndim, true, &d));
    if (index->ndim >= 2)
        return ct_set_error(CT_ERR_INDEX,
                            "index_copy_(): Index should have dimension 1 or 0 (got %lld)",
                            (long long)index->ndim);
    int64_t n = index->numel;
    if (source->ndim == 0 && n != 1)
        return ct_set_error(CT_ERR_INDEX,
                            "index_copy_(): When source is scalar, index should have one element "
                            "(got %lld)",
                            (long long)n);
    if (source->ndim != self->ndim && source->ndim != 0 && self->ndim != 0)
        return ct_set_error(CT_ERR_INDEX,
                            "index_copy_(): When source and destination are not scalars, their "
                            "dimensionality must match. Source dimensionality (%lld), destination "
                            "dimensionality (%lld)",
                            (long long)source->ndim, (long long)self->ndim);
    if (index->dtype != CT_INT64)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_copy_(): Expected a long tensor for index, but got %s",
                            ct_dtype_cpp_name(index->dtype));
    if (self->dtype != source->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_copy_(): self and source expected to have the same dtype, but "
                            "got (self) %s and (source) %s",
                            ct_dtype_cpp_name(self->dtype), ct_dtype_cpp_name(source->dtype));
    bool same = (self->ndim == 0 ? 0 : self->ndim - 1) == (source->ndim == 0 ? 0 : source->ndim - 1);
    for (int64_t j = 0; same && j < self->ndim; j++)
        same = j == d || self->sizes[j] == source->sizes[j];
    if (!same) {
        char a[256], b[256];
        sliced(a, sizeof a, self, d);
        sliced(b, sizeof b, source, d);
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_copy_(): Source/destination tensor must have same slice "
                            "shapes. Destination slice shape: %s at dimension %lld and source "
                            "slice shape: %s at dimension 0.",
                            a, (long long)d, b);
    }
    if (source->ndim != 0 && n != source->sizes[d])
        return ct_set_error(CT_ERR_INDEX,
                            "index_copy_(): Number of indices (%lld) should be equal to "
                            "source.size(dim) (%lld)",
                            (long long)n, (long long)source->sizes[d]);
    CT_TRY(ct_scatter_impl_dtype(self->dtype, "index_copy_cpu"));
    ct_scatter_plan p = {.op = CT_SCATTER_OP_COPY, .err = CT_SCATTER_ERR_COPY};
    ct_tensor *own = NULL;
    CT_TRY(unshare(self, &source, &own));
    slice_plan(&p, self, d, index);
    int64_t tmp[CT_MAX_DIMS];
    ct_scatter_impl_dims(source, tmp, p.ss);
    p.s = ct_tensor_data_ptr(source);
    ct_status st = ct_scatter_impl_run(&p);
    ct_tensor_release(own);
    return st;
}

ct_status ct_index_copy(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                        const ct_tensor *source, ct_tensor *out, ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_index_copy: result is NULL");
    *result = NULL;
    ct_tensor *r = NULL;
    if (ct_scatter_impl_stage_wanted(self, index, source, out))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_INDEX_COPY, .dim = dim}, self, index,
            source, out, result);
    CT_TRY(ct_scatter_impl_check(self, "index_copy"));
    CT_TRY(ct_tensor_clone(self, CT_MEMFMT_CONTIGUOUS, &r));
    ct_status st = ct_index_copy_(r, dim, index, source);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct_scatter_impl_finish(r, out, result);
}
