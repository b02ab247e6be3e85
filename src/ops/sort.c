/* Sorting and selection (ctensor/sort.h): checks, shapes and outputs here; the rows to sort
 * are made contiguous along the sort dim (a transposed copy unless the dim is already the
 * innermost of a contiguous input) and handed to src/kernels/sort_kernel.c, whose results
 * are copied back through the inverse transpose (or written in place when they can be). */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/sort.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/reduce_plan.h"
#include "kernels/sort.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

/* The dtypes of torch 1.13's CPU kernels: the sorts take every real dtype, topk and kthvalue
 * not bool nor float16, unique not float16. */
typedef enum sort_kind { SORT_FULL, SORT_TOPK, SORT_KTH, SORT_UNIQUE } sort_kind;

static bool sort_dtype_ok(sort_kind kind, ct_dtype d) {
    switch (d) {
    case CT_BOOL: return kind != SORT_TOPK && kind != SORT_KTH;
    case CT_FLOAT16: return kind == SORT_FULL;
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
    case CT_BFLOAT16:
    case CT_FLOAT32:
    case CT_FLOAT64: return true;
    default: return false;
    }
}

static const char *const sort_kernel_names[] = {
    [SORT_FULL] = "sorting_kernel_method_name",
    [SORT_TOPK] = "topk_cpu",
    [SORT_KTH] = "kthvalue_cpu",
    [SORT_UNIQUE] = "unique",
};

static ct_status sort_check(sort_kind kind, const char *name, const ct_tensor *in) {
    if (in->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported",
                            name);
    if (!sort_dtype_ok(kind, in->dtype))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                            sort_kernel_names[kind], ct_dtype_impl_msg_name(in->dtype));
    return CT_OK; /* accelerators stage through host memory before this */
}

static ct_status check_out_dtype(const ct_tensor *out, ct_dtype want) {
    if (out != NULL && out->dtype != want)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected out tensor to have dtype %s, but got %s instead",
                            ct_reduce_impl_meta_name(want), ct_reduce_impl_meta_name(out->dtype));
    return CT_OK;
}

/* Sorts (kout < 0: whole rows) or selects the kout first of each row along dim `d0` (already
 * wrapped; n elements), into r (the input's dtype) and ix (int64) of the result shape. */
static ct_status sort_compute(const ct_tensor *in, int64_t d0, int64_t n, int64_t kout,
                              bool desc, ct_tensor *r, ct_tensor *ix) {
    if (in->device.type == CT_DEVICE_META || r->numel == 0)
        return CT_OK;
    int64_t last = in->ndim - 1;
    bool moved = in->ndim > 1 && d0 != last;
    int64_t rows = in->numel / n, width = kout < 0 ? n : kout;
    ct_tensor *tin = NULL, *buf = NULL, *vb = NULL, *ib = NULL, *rv = NULL, *iv = NULL;
    ct_status st = moved ? ct_tensor_transpose(in, d0, last, &tin) : ct_tensor_alias(in, &tin);
    if (st == CT_OK)
        st = ct_tensor_contiguous(tin, CT_MEMFMT_CONTIGUOUS, &buf);
    if (st != CT_OK)
        goto done;
    bool direct = !moved && ct_tensor_is_contiguous(r, CT_MEMFMT_CONTIGUOUS) &&
                  ct_tensor_is_contiguous(ix, CT_MEMFMT_CONTIGUOUS) &&
                  r->storage != buf->storage && ix->storage != buf->storage &&
                  r->storage != ix->storage;
    ct_tensor *dv = r, *di = ix;
    if (!direct) {
        int64_t sizes[CT_MAX_DIMS];
        memcpy(sizes, tin->sizes, (size_t)tin->ndim * sizeof(int64_t));
        if (tin->ndim > 0)
            sizes[last] = width;
        st = ct_tensor_empty(sizes, tin->ndim, in->dtype, &in->device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &vb);
        if (st == CT_OK)
            st = ct_tensor_empty(sizes, tin->ndim, CT_INT64, &in->device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &ib);
        if (st != CT_OK)
            goto done;
        dv = vb;
        di = ib;
    }
    if (kout < 0)
        st = ct_sort_kernel_rows(in->dtype, ct_tensor_data_ptr(buf), ct_tensor_data_ptr(dv),
                                 ct_tensor_data_ptr(di), rows, n, desc);
    else
        st = ct_sort_kernel_topk(in->dtype, ct_tensor_data_ptr(buf), ct_tensor_data_ptr(dv),
                                 ct_tensor_data_ptr(di), rows, n, kout, desc);
    if (st != CT_OK || direct)
        goto done;
    st = moved ? ct_tensor_transpose(r, d0, last, &rv) : ct_tensor_alias(r, &rv);
    if (st == CT_OK)
        st = moved ? ct_tensor_transpose(ix, d0, last, &iv) : ct_tensor_alias(ix, &iv);
    if (st == CT_OK)
        st = ct_tensor_copy_(rv, vb);
    if (st == CT_OK)
        st = ct_tensor_copy_(iv, ib);
done:
    ct_tensor_release(tin);
    ct_tensor_release(buf);
    ct_tensor_release(vb);
    ct_tensor_release(ib);
    ct_tensor_release(rv);
    ct_tensor_release(iv);
    return st;
}

static ct_status sort_along(sort_kind kind, const char *name, const ct_tensor *in, int64_t dim,
                            int64_t k, bool desc, ct_tensor *ov, ct_tensor *oi,
                            ct_tensor **values, ct_tensor **indices);

/* sort_along on an accelerator: through host memory (Note [Staging through host memory]). */
static ct_status sort_along_staged(sort_kind kind, const char *name, const ct_tensor *in,
                                   int64_t dim, int64_t k, bool desc, ct_tensor *ov,
                                   ct_tensor *oi, ct_tensor **values, ct_tensor **indices) {
    ct_stage s;
    ct_stage_init(&s, name);
    int a = ct_stage_add(&s, in, 0);
    int b = ct_stage_add(&s, ov, CT_STAGE_WRITTEN);
    int c = ct_stage_add(&s, oi, CT_STAGE_WRITTEN);
    ct_tensor *hv = NULL, *hi = NULL, *v = NULL, *ix = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = sort_along(kind, name, ct_stage_host(&s, a), dim, k, desc, ct_stage_host(&s, b),
                        ct_stage_host(&s, c), &hv, &hi);
    if (st == CT_OK)
        st = ct_stage_result(&s, hv, &v);
    else
        ct_tensor_release(hv);
    if (st == CT_OK)
        st = ct_stage_result(&s, hi, &ix);
    else
        ct_tensor_release(hi);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(v);
        ct_tensor_release(ix);
        return st;
    }
    *values = v;
    *indices = ix;
    return CT_OK;
}

/* The shared driver: checks, the dim, the outputs (kout along the dim; < 0: the dim's size),
 * then sort_compute. *d0 / *n: the wrapped dim and its size. */
static ct_status sort_along(sort_kind kind, const char *name, const ct_tensor *in, int64_t dim,
                            int64_t k, bool desc, ct_tensor *ov, ct_tensor *oi,
                            ct_tensor **values, ct_tensor **indices) {
    if (in == NULL || values == NULL || indices == NULL || ((ov == NULL) != (oi == NULL)))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", name);
    if (ct_stage_wanted(in) || ct_stage_wanted(ov) || ct_stage_wanted(oi))
        return sort_along_staged(kind, name, in, dim, k, desc, ov, oi, values, indices);
    CT_TRY(sort_check(kind, name, in));
    ct_reduce_plan p; /* for the dim check and its message */
    CT_TRY(ct_reduce_impl_plan(in, &dim, 1, true, &p));
    int64_t d0 = in->ndim == 0 ? 0 : (dim < 0 ? dim + in->ndim : dim);
    int64_t n = in->ndim == 0 ? 1 : in->sizes[d0];
    int64_t kout = -1;
    if (kind == SORT_TOPK) {
        if (k < 0 || k > n)
            return ct_set_error(CT_ERR_RUNTIME, "selected index k out of range");
        /* a 0-dim result holds one element whatever k (0 or 1) is: PyTorch gives the input */
        kout = in->ndim == 0 ? 1 : k;
    } else if (kind == SORT_KTH) {
        if (n == 0)
            return ct_set_error(CT_ERR_INDEX,
                                "kthvalue(): Expected reduction dim %lld to have non-zero size.",
                                (long long)d0);
        if (k < 1 || k > n)
            return ct_set_error(CT_ERR_RUNTIME,
                                "kthvalue(): selected number k out of range for dimension %lld",
                                (long long)d0);
        kout = k;
    }
    CT_TRY(check_out_dtype(ov, in->dtype));
    CT_TRY(check_out_dtype(oi, CT_INT64));
    ct_reduce_plan shape;
    CT_TRY(ct_reduce_impl_plan(in, NULL, 0, true, &shape));
    shape.out_ndim = in->ndim;
    memcpy(shape.out_sizes, in->sizes, (size_t)in->ndim * sizeof(int64_t));
    if (in->ndim > 0 && kout >= 0)
        shape.out_sizes[d0] = kout;
    ct_tensor *r = NULL, *ix = NULL;
    ct_status st;
    if (kind == SORT_FULL && ov == NULL) { /* sort's outputs take the input's strides */
        st = ct_tensor_empty_like(in, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE, &r);
        if (st == CT_OK)
            st = ct_tensor_empty_like(in, CT_INT64, NULL, CT_MEMFMT_PRESERVE, &ix);
    } else {
        st = ct_reduce_impl_output(in, &shape, in->dtype, ov, &r);
        if (st == CT_OK)
            st = ct_reduce_impl_output(in, &shape, CT_INT64, oi, &ix);
    }
    if (st == CT_OK)
        st = sort_compute(in, d0, n, kout, desc, r, ix);
    if (st != CT_OK) {
        ct_tensor_release(r);
        ct_tensor_release(ix);
        return st;
    }
    *values = r;
    *indices = ix;
    return CT_OK;
}

ct_status ct_sort(const ct_tensor *input, int64_t dim, bool descending, bool stable,
                  ct_tensor *out_values, ct_tensor *out_indices, ct_tensor **values,
                  ct_tensor **indices) {
    (void)stable; /* always stable: one of the orders PyTorch allows without it */
    if (values != NULL)
        *values = NULL;
    if (indices != NULL)
        *indices = NULL;
    return sort_along(SORT_FULL, "sort", input, dim, 0, descending, out_values, out_indices,
                      values, indices);
}

ct_status ct_argsort(const ct_tensor *input, int64_t dim, bool descending, bool stable,
                     ct_tensor **indices) {
    (void)stable;
    if (indices == NULL)
        return ct_set_error(CT_ERR_MISUSE, "argsort: NULL argument");
    *indices = NULL;
    ct_tensor *v = NULL;
    CT_TRY(sort_along(SORT_FULL, "argsort", input, dim, 0, descending, NULL, NULL, &v, indices));
    ct_tensor_release(v);
    return CT_OK;
}

ct_status ct_msort(const ct_tensor *input, ct_tensor **values) {
    if (values == NULL)
        return ct_set_error(CT_ERR_MISUSE, "msort: NULL argument");
    *values = NULL;
    ct_tensor *ix = NULL;
    CT_TRY(sort_along(SORT_FULL, "msort", input, 0, 0, false, NULL, NULL, values, &ix));
    ct_tensor_release(ix);
    return CT_OK;
}

ct_status ct_topk(const ct_tensor *input, int64_t k, int64_t dim, bool largest, bool sorted,
                  ct_tensor **values, ct_tensor **indices) {
    (void)sorted; /* always sorted: one of the orders PyTorch allows for sorted=False */
    if (values != NULL)
        *values = NULL;
    if (indices != NULL)
        *indices = NULL;
    return sort_along(SORT_TOPK, "topk", input, dim, k, largest, NULL, NULL, values, indices);
}

/* Column k-1 of a selection along d0, keepdim or not, as a new contiguous tensor. */
static ct_status kth_column(const ct_tensor *t, int64_t d0, int64_t k, bool keepdim,
                            ct_tensor **out) {
    if (t->ndim == 0)
        return ct_tensor_alias(t, out);
    ct_tensor *col = NULL;
    ct_status st = keepdim ? ct_tensor_narrow(t, d0, k - 1, 1, &col)
                           : ct_tensor_select(t, d0, k - 1, &col);
    if (st == CT_OK)
        st = ct_tensor_to(col, CT_DTYPE_UNDEFINED, NULL, true, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(col);
    return st;
}

ct_status ct_kthvalue(const ct_tensor *input, int64_t k, int64_t dim, bool keepdim,
                      ct_tensor **values, ct_tensor **indices) {
    if (values != NULL)
        *values = NULL;
    if (indices != NULL)
        *indices = NULL;
    ct_tensor *tv = NULL, *ti = NULL;
    CT_TRY(sort_along(SORT_KTH, "kthvalue", input, dim, k, false, NULL, NULL, &tv, &ti));
    int64_t d0 = input->ndim == 0 ? 0 : (dim < 0 ? dim + input->ndim : dim);
    ct_tensor *v = NULL, *ix = NULL;
    ct_status st = kth_column(tv, d0, k, keepdim, &v);
    if (st == CT_OK)
        st = kth_column(ti, d0, k, keepdim, &ix);
    ct_tensor_release(tv);
    ct_tensor_release(ti);
    if (st != CT_OK) {
        ct_tensor_release(v);
        ct_tensor_release(ix);
        return st;
    }
    *values = v;
    *indices = ix;
    return CT_OK;
}

/* The first m elements of a 1-D tensor as a new contiguous tensor. */
static ct_status first_of(const ct_tensor *t, int64_t m, ct_tensor **out) {
    ct_tensor *part = NULL;
    CT_TRY(ct_tensor_narrow(t, 0, 0, m, &part));
    ct_status st = ct_tensor_to(part, CT_DTYPE_UNDEFINED, NULL, true, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(part);
    return st;
}

/* unique on an accelerator: through host memory (Note [Staging through host memory]). */
static ct_status unique_staged(const ct_tensor *input, bool sorted, ct_tensor **output,
                               ct_tensor **inverse, ct_tensor **counts) {
    ct_stage s;
    ct_stage_init(&s, "unique");
    int a = ct_stage_add(&s, input, 0);
    ct_tensor *h[3] = {NULL, NULL, NULL}, *d[3] = {NULL, NULL, NULL};
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = ct_unique(ct_stage_host(&s, a), sorted, &h[0], inverse != NULL ? &h[1] : NULL,
                       counts != NULL ? &h[2] : NULL);
    for (int i = 0; i < 3; i++) {
        if (st == CT_OK)
            st = ct_stage_result(&s, h[i], &d[i]);
        else
            ct_tensor_release(h[i]);
    }
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        for (int i = 0; i < 3; i++)
            ct_tensor_release(d[i]);
        return st;
    }
    *output = d[0];
    if (inverse != NULL)
        *inverse = d[1];
    if (counts != NULL)
        *counts = d[2];
    return CT_OK;
}

ct_status ct_unique(const ct_tensor *input, bool sorted, ct_tensor **output, ct_tensor **inverse,
                    ct_tensor **counts) {
    (void)sorted; /* always sorted: one of the orders PyTorch allows for sorted=False */
    if (input == NULL || output == NULL)
        return ct_set_error(CT_ERR_MISUSE, "unique: NULL argument");
    *output = NULL;
    if (inverse != NULL)
        *inverse = NULL;
    if (counts != NULL)
        *counts = NULL;
    if (ct_stage_wanted(input))
        return unique_staged(input, sorted, output, inverse, counts);
    CT_TRY(sort_check(SORT_UNIQUE, "unique", input));
    if (input->device.type == CT_DEVICE_META) /* the result's size depends on the data */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "unique: not implemented on meta tensors");
    int64_t n = input->numel;
    ct_tensor *buf = NULL, *vals = NULL, *cnt = NULL, *inv = NULL, *ov = NULL, *oc = NULL;
    int64_t u = 0;
    ct_status st = ct_tensor_contiguous(input, CT_MEMFMT_CONTIGUOUS, &buf);
    if (st == CT_OK)
        st = ct_tensor_empty(&n, 1, input->dtype, &input->device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &vals);
    if (st == CT_OK && counts != NULL)
        st = ct_tensor_empty(&n, 1, CT_INT64, &input->device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &cnt);
    if (st == CT_OK && inverse != NULL)
        st = ct_tensor_empty(input->sizes, input->ndim, CT_INT64, &input->device,
                             CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &inv);
    if (st == CT_OK)
        st = ct_sort_kernel_unique(input->dtype, ct_tensor_data_ptr(buf),
                                   n, ct_tensor_data_ptr(vals),
                                   inv != NULL ? ct_tensor_data_ptr(inv) : NULL,
                                   cnt != NULL ? ct_tensor_data_ptr(cnt) : NULL, &u);
    if (st == CT_OK)
        st = first_of(vals, u, &ov);
    if (st == CT_OK && cnt != NULL)
        st = first_of(cnt, u, &oc);
    ct_tensor_release(buf);
    ct_tensor_release(vals);
    ct_tensor_release(cnt);
    if (st != CT_OK) {
        ct_tensor_release(inv);
        ct_tensor_release(ov);
        ct_tensor_release(oc);
        return st;
    }
    *output = ov;
    if (inverse != NULL)
        *inverse = inv;
    if (counts != NULL)
        *counts = oc;
    return CT_OK;
}

/* topk / kthvalue with out=: the functional result written into (values, indices) as
 * reductions write theirs (dtypes checked, resized with PyTorch's warning). */
static ct_status select_out(ct_status st, ct_tensor *v, ct_tensor *ix, ct_tensor *out_values,
                            ct_tensor *out_indices) {
    if (st == CT_OK)
        st = ct_reduce_impl_check_out(out_values, v);
    if (st == CT_OK)
        st = ct_reduce_impl_check_out(out_indices, ix);
    if (st == CT_OK)
        st = ct_reduce_impl_fill_out(out_values, v);
    if (st == CT_OK)
        st = ct_reduce_impl_fill_out(out_indices, ix);
    ct_tensor_release(v);
    ct_tensor_release(ix);
    return st;
}

ct_status ct_topk_out(const ct_tensor *input, int64_t k, int64_t dim, bool largest, bool sorted,
                      ct_tensor *out_values, ct_tensor *out_indices) {
    if (out_values == NULL || out_indices == NULL)
        return ct_set_error(CT_ERR_MISUSE, "topk: NULL argument");
    ct_tensor *v = NULL, *ix = NULL;
    ct_status st = ct_topk(input, k, dim, largest, sorted, &v, &ix);
    return select_out(st, v, ix, out_values, out_indices);
}

ct_status ct_kthvalue_out(const ct_tensor *input, int64_t k, int64_t dim, bool keepdim,
                          ct_tensor *out_values, ct_tensor *out_indices) {
    if (out_values == NULL || out_indices == NULL)
        return ct_set_error(CT_ERR_MISUSE, "kthvalue: NULL argument");
    ct_tensor *v = NULL, *ix = NULL;
    ct_status st = ct_kthvalue(input, k, dim, keepdim, &v, &ix);
    return select_out(st, v, ix, out_values, out_indices);
}
