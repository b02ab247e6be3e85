/* coalesce(): sort the columns, sum the values of equal columns (PyTorch's
 * _coalesce_sparse_cpu).
 *
 * PyTorch sorts the columns by their linearised index; we compare columns
 * lexicographically, which orders in-range indices identically and cannot overflow (the
 * product of the sparse sizes may exceed int64 when a dense size is 0). The sort is stable,
 * so duplicates are summed in their original order: with floats that order decides the
 * rounding, and it is the order an unstable sort of distinct keys cannot promise anyway. */
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "sparse/sparse_impl.h"

/* Bottom-up merge sort of perm[0..n) (column numbers) by their columns in ix [sd, nnz];
 * tmp has n entries. Stable: on ties the left run goes first. */
static void sort_columns(int64_t *perm, int64_t *tmp, int64_t n, const int64_t *ix, int64_t nnz,
                         int64_t sd) {
    int64_t *src = perm, *dst = tmp;
    /* n counts allocated int64s, so n + 2 * width cannot overflow */
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = mid + width < n ? mid + width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = ct_sparse_impl_cmp_cols(ix, nnz, src[j], ix, nnz, src[i], sd) < 0
                               ? src[j++]
                               : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        int64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != perm)
        memcpy(perm, src, (size_t)n * sizeof *perm);
}

/* The data path: t has nnz >= 2 and is not flagged coalesced. */
static ct_status coalesce_data(const ct_tensor *t, const ct_sparse_coo *p, ct_tensor **out) {
    ct_tensor *hi = NULL, *hv = NULL, *ri = NULL, *rv = NULL;
    int64_t *perm = NULL, *tmp = NULL;
    int64_t sd = p->sparse_dim, nnz = p->nnz, block, unique = 0;
    size_t pbytes = 0, isz = ct_dtype_table[t->dtype].itemsize;
    unsigned char one[16];
    int64_t vsizes[CT_MAX_DIMS + 1];
    ct_status st = CT_OK;
    /* PyTorch dispatches on the dtype before looking at any column */
    CT_CHECK(ct_sparse_impl_axpy_dtype(t->dtype), CT_ERR_NOT_IMPLEMENTED,
             "\"coalesce\" not implemented for '%s'", ct_dtype_impl_msg_name(t->dtype));
    CT_CHECK(!ct_checked_mul_size((size_t)nnz, sizeof(int64_t), &pbytes), CT_ERR_OVERFLOW,
             "coalesce: nnz too large");
    if ((st = ct_scalar_to_dtype(ct_scalar_int(1), t->dtype, one)) != CT_OK ||
        (st = ct_sparse_impl_prod(t->sizes, sd, t->ndim, &block)) != CT_OK ||
        (st = ct_sparse_impl_host(p->indices, CT_INT64, &hi)) != CT_OK ||
        (st = ct_sparse_impl_host(p->values, CT_DTYPE_UNDEFINED, &hv)) != CT_OK)
        goto fail;
    perm = ct_alloc(pbytes, _Alignof(int64_t));
    tmp = perm != NULL ? ct_alloc(pbytes, _Alignof(int64_t)) : NULL;
    if (tmp == NULL) {
        st = CT_ERR_NOMEM;
        goto fail;
    }
    const int64_t *ix = ct_tensor_data_ptr(hi);
    for (int64_t k = 0; k < nnz; k++)
        perm[k] = k;
    sort_columns(perm, tmp, nnz, ix, nnz, sd);
    for (int64_t k = 0; k < nnz; k++)
        unique +=
            k == 0 || ct_sparse_impl_cmp_cols(ix, nnz, perm[k - 1], ix, nnz, perm[k], sd) != 0;

    vsizes[0] = unique;
    memcpy(vsizes + 1, t->sizes + sd, (size_t)(t->ndim - sd) * sizeof(int64_t));
    if ((st = ct_sparse_impl_host_empty((const int64_t[]){sd, unique}, 2, CT_INT64, &ri)) !=
            CT_OK ||
        (st = ct_sparse_impl_host_empty(vsizes, t->ndim - sd + 1, t->dtype, &rv)) != CT_OK)
        goto fail;
    int64_t *rix = ct_tensor_data_ptr(ri);
    const char *vals = ct_tensor_data_ptr(hv);
    char *rvals = ct_tensor_data_ptr(rv);
    size_t bb = (size_t)block * isz; /* bounded by the values' bytes */
    for (int64_t k = 0, r = -1; k < nnz; k++) {
        int64_t pos = perm[k];
        if (k > 0 && ct_sparse_impl_cmp_cols(ix, nnz, perm[k - 1], ix, nnz, pos, sd) == 0) {
            if (block > 0 &&
                (st = ct_sparse_impl_axpy(t->dtype, rvals + (size_t)r * bb, vals + (size_t)pos * bb,
                                          block, one, true, "coalesce")) != CT_OK)
                goto fail;
            continue;
        }
        r++;
        for (int64_t d = 0; d < sd; d++)
            rix[d * unique + r] = ix[d * nnz + pos];
        if (bb > 0)
            memcpy(rvals + (size_t)r * bb, vals + (size_t)pos * bb, bb);
    }
    st = ct_sparse_impl_make_on(ri, rv, t->device, t->sizes, t->ndim, sd, true, out);
    ri = rv = NULL; /* consumed */
fail:
    ct_free(tmp, pbytes, _Alignof(int64_t));
    ct_free(perm, pbytes, _Alignof(int64_t));
    ct_tensor_release(ri);
    ct_tensor_release(rv);
    ct_tensor_release(hi);
    ct_tensor_release(hv);
    return st;
}

ct_status ct_sparse_impl_coalesce(const ct_tensor *t, const ct_sparse_coo *p, ct_tensor **out) {
    *out = NULL;
    if (atomic_load_explicit(&p->coalesced, memory_order_relaxed)) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    if (p->nnz < 2) { /* a copy flagged coalesced; works on meta too */
        ct_tensor *i = NULL, *v = NULL;
        ct_status st = ct_tensor_clone(p->indices, CT_MEMFMT_PRESERVE, &i);
        if (st == CT_OK)
            st = ct_tensor_clone(p->values, CT_MEMFMT_PRESERVE, &v);
        if (st != CT_OK) {
            ct_tensor_release(i);
            return st;
        }
        return ct_sparse_impl_make(i, v, t->sizes, t->ndim, p->sparse_dim, true, out);
    }
    return coalesce_data(t, p, out);
}

ct_status ct_sparse_coalesce(const ct_tensor *t, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "coalesce: out is NULL");
    *out = NULL;
    const ct_sparse_coo *p;
    CT_TRY(ct_sparse_impl_arg(t, "coalesce", &p));
    return ct_sparse_impl_coalesce(t, p, out);
}
