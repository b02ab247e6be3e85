/* unique along a dim and unique_consecutive (ctensor/unique.h), as torch 1.13's
 * _unique_dim_cpu_template: the dim swapped to the front and each slice flattened to a row of keys
 * (int64 or double), rows sorted lexicographically by a stable merge sort of their indices
 * (skipped for consecutive), equal neighbours grouped, and the first row of each group taken
 * with index_select. */
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/index.h"
#include "ctensor/unique.h"
#include "dtype/table_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

typedef struct {
    const void *keys;
    int64_t m; /* keys per row */
    bool flt;
} uq_rows;

/* -1, 0, 1: row a against row b with torch's `<` / `>` (NaN compares neither way). */
static int row_cmp(const uq_rows *r, int64_t a, int64_t b) {
    for (int64_t i = 0; i < r->m; i++) {
        if (r->flt) {
            double x = ((const double *)r->keys)[a * r->m + i];
            double y = ((const double *)r->keys)[b * r->m + i];
            if (x < y)
                return -1;
            if (x > y)
                return 1;
        } else {
            int64_t x = ((const int64_t *)r->keys)[a * r->m + i];
            int64_t y = ((const int64_t *)r->keys)[b * r->m + i];
            if (x != y)
                return x < y ? -1 : 1;
        }
    }
    return 0;
}

/* at::equal: every element == (NaN differs from itself). */
static bool row_equal(const uq_rows *r, int64_t a, int64_t b) {
    for (int64_t i = 0; i < r->m; i++) {
        if (r->flt) {
            if (!(((const double *)r->keys)[a * r->m + i] == ((const double *)r->keys)[b * r->m + i]))
                return false;
        } else if (((const int64_t *)r->keys)[a * r->m + i] != ((const int64_t *)r->keys)[b * r->m + i])
            return false;
    }
    return true;
}

static void merge_sort(const uq_rows *r, int64_t *v, int64_t *tmp, int64_t n) {
    if (n < 2)
        return;
    int64_t h = n / 2;
    merge_sort(r, v, tmp, h);
    merge_sort(r, v + h, tmp, n - h);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = row_cmp(r, v[j], v[i]) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, (size_t)n * sizeof(int64_t));
}

static bool uq_dtype_ok(ct_dtype d) {
    switch (d) {
    case CT_BOOL:
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

static ct_status new_long(int64_t n, ct_tensor **out) {
    return ct_tensor_empty(&n, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, out);
}

static void clear3(ct_tensor **o, ct_tensor **i, ct_tensor **c) {
    *o = NULL;
    if (i != NULL)
        *i = NULL;
    if (c != NULL)
        *c = NULL;
}

/* The work of ct_unique_dim with the kernel name for dtype errors. */
static ct_status unique_dim(const ct_tensor *input, int64_t dim, bool consecutive,
                            const char *kernel, ct_tensor **output, ct_tensor **inverse,
                            ct_tensor **counts) {
    CT_TRY(ct_tensor_impl_check(input, kernel));
    if (input->layout != CT_LAYOUT_STRIDED || input->device.type != CT_DEVICE_CPU)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided cpu tensors are supported",
                            kernel);
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, input->ndim, false, &d));
    if (!uq_dtype_ok(input->dtype))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                            ct_dtype_impl_msg_name(input->dtype));
    int64_t zeros = 0;
    for (int64_t j = 0; j < input->ndim; j++)
        zeros += input->sizes[j] == 0;
    int64_t n = input->sizes[d];
    ct_tensor *o = NULL, *inv = NULL, *cnt = NULL, *moved = NULL, *keys = NULL, *sel = NULL;
    int64_t *idx = NULL, *tmp = NULL;
    ct_status st = CT_OK;
    if (n == 0) {
        CT_CHECK(zeros == 1, CT_ERR_RUNTIME,
                 "Number of zero sized dimensions is more than one, so unique cannot be applied ");
        if ((st = ct_tensor_empty(input->sizes, input->ndim, input->dtype, NULL, CT_LAYOUT_STRIDED,
                                  CT_MEMFMT_CONTIGUOUS, &o)) != CT_OK ||
            (st = new_long(0, &inv)) != CT_OK || (st = new_long(0, &cnt)) != CT_OK)
            goto fail;
        goto done;
    }
    CT_CHECK(zeros == 0, CT_ERR_RUNTIME,
             "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    bool flt = ct_dtype_is_floating_point(input->dtype);
    int64_t src = d, dst = 0, m = input->numel / n;
    if ((st = ct_tensor_transpose(input, src, dst, &moved)) != CT_OK ||
        (st = ct_tensor_to_dtype(moved, flt ? CT_FLOAT64 : CT_INT64, &sel)) != CT_OK ||
        (st = ct_tensor_contiguous(sel, CT_MEMFMT_CONTIGUOUS, &keys)) != CT_OK)
        goto fail;
    idx = ct_alloc((size_t)n * sizeof(int64_t), 64);
    tmp = ct_alloc((size_t)n * sizeof(int64_t), 64);
    CT_CHECK(idx != NULL && tmp != NULL, CT_ERR_NOMEM, "unique: out of memory");
    for (int64_t i = 0; i < n; i++)
        idx[i] = i;
    uq_rows rows = {.keys = ct_tensor_data_ptr(keys), .m = m, .flt = flt};
    if (!consecutive)
        merge_sort(&rows, idx, tmp, n);
    if ((st = new_long(n, &inv)) != CT_OK)
        goto fail;
    int64_t *iv = ct_tensor_data_ptr(inv), groups = 0;
    /* tmp now holds each group's first row and, after it, the counts */
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || !row_equal(&rows, idx[i - 1], idx[i]))
            tmp[groups++] = idx[i];
        iv[idx[i]] = groups - 1;
    }
    ct_tensor_release(sel);
    sel = NULL;
    if ((st = new_long(groups, &sel)) != CT_OK || (st = ct_tensor_zeros(&groups, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, &cnt)) != CT_OK)
        goto fail;
    memcpy(ct_tensor_data_ptr(sel), tmp, (size_t)groups * sizeof(int64_t));
    int64_t *cv = ct_tensor_data_ptr(cnt);
    for (int64_t i = 0; i < n; i++)
        cv[iv[i]]++;
    /* torch stacks the kept slices along dim 0 and transposes back: a view for dim > 0 */
    ct_tensor *stacked = NULL;
    if ((st = ct_tensor_index_select(moved, 0, sel, &stacked)) != CT_OK)
        goto fail;
    st = ct_tensor_transpose(stacked, dst, src, &o);
    ct_tensor_release(stacked);
    if (st != CT_OK)
        goto fail;
done:
    *output = o;
    o = NULL;
    if (inverse != NULL) {
        *inverse = inv;
        inv = NULL;
    }
    if (counts != NULL) {
        *counts = cnt;
        cnt = NULL;
    }
fail:
    ct_tensor_release(o);
    ct_tensor_release(inv);
    ct_tensor_release(cnt);
    ct_tensor_release(moved);
    ct_tensor_release(keys);
    ct_tensor_release(sel);
    if (idx != NULL)
        ct_free(idx, (size_t)n * sizeof(int64_t), 64);
    if (tmp != NULL)
        ct_free(tmp, (size_t)n * sizeof(int64_t), 64);
    return st;
}

/* ct_unique_dim or, with `flat`, ct_unique_consecutive on a host mirror of an accelerator
 * input (Note [Staging through host memory]). */
static ct_status unique_dim_staged(const ct_tensor *input, int64_t dim, bool consecutive,
                                   bool flat, ct_tensor **output, ct_tensor **inverse,
                                   ct_tensor **counts) {
    ct_stage s;
    ct_stage_init(&s, "unique_dim");
    int a = ct_stage_add(&s, input, 0);
    ct_tensor *h[3] = {NULL, NULL, NULL}, *d[3] = {NULL, NULL, NULL};
    ct_status st = ct_stage_begin(&s);
    ct_tensor **hi = inverse != NULL ? &h[1] : NULL, **hc = counts != NULL ? &h[2] : NULL;
    if (st == CT_OK && flat)
        st = ct_unique_consecutive(ct_stage_host(&s, a), &h[0], hi, hc);
    else if (st == CT_OK)
        st = ct_unique_dim(ct_stage_host(&s, a), dim, consecutive, &h[0], hi, hc);
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

ct_status ct_unique_dim(const ct_tensor *input, int64_t dim, bool consecutive,
                        ct_tensor **output, ct_tensor **inverse, ct_tensor **counts) {
    if (output == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_unique_dim: output is NULL");
    clear3(output, inverse, counts);
    if (ct_stage_wanted(input))
        return unique_dim_staged(input, dim, consecutive, false, output, inverse, counts);
    return unique_dim(input, dim, consecutive, "unique_dim", output, inverse, counts);
}

ct_status ct_unique_consecutive(const ct_tensor *input, ct_tensor **output, ct_tensor **inverse,
                                ct_tensor **counts) {
    if (output == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_unique_consecutive: output is NULL");
    clear3(output, inverse, counts);
    if (ct_stage_wanted(input))
        return unique_dim_staged(input, 0, true, true, output, inverse, counts);
    CT_TRY(ct_tensor_impl_check(input, "unique_consecutive"));
    ct_tensor *flat = NULL, *inv = NULL;
    int64_t all = input->numel;
    CT_TRY(ct_tensor_reshape(input, &all, 1, &flat));
    ct_status st = unique_dim(flat, 0, true, "unique", output, &inv, counts);
    ct_tensor_release(flat);
    if (st == CT_OK && inverse != NULL)
        st = ct_tensor_reshape(inv, input->sizes, input->ndim, inverse);
    ct_tensor_release(inv);
    if (st != CT_OK) {
        ct_tensor_release(*output);
        if (counts != NULL) {
            ct_tensor_release(*counts);
            *counts = NULL;
        }
        *output = NULL;
    }
    return st;
}
