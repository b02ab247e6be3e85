/* Multiplication and division with sparse COO operands, as PyTorch 1.13's mul_out_sparse_cpu
 * and div_out_sparse_zerodim pick their paths:
 *  - sparse * dense (either order, dense broadcasting): intersection_binary_op_sparse_dense_out;
 *    the dense operand is gathered at the sparse indices and multiplied into the values;
 *  - sparse * sparse with a 0-dim operand: that operand's one value, as a dense 0-dim tensor;
 *  - sparse * sparse of equal sizes, both flagged coalesced: the merge of both index lists
 *    (a coalesced result with the shared columns only);
 *  - any other sparse * sparse: the intersection kernel (every column of one operand, the
 *    "source", meets every equal column of the other), which needs no coalescing;
 *  - sparse / (scalar or 0-dim dense): the values divided.
 * The values are multiplied and divided by the dense ops (ops.h), so dtypes, wrapping and
 * rounding are exactly those of dense tensors. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "base/parallel.h"
#include "ctensor/index.h"
#include "dtype/table_impl.h"
#include "sparse/sparse_impl.h"

static const char intersection_msg[] =
    "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
    "number of sparse dimensions, and shape of sparse dimensions";

/* ---- helpers --------------------------------------------------------------------------------- */

/* PyTorch's infer_size(a, b): the broadcast shape, "a" and "b" named as in its message. */
static ct_status infer_size(const int64_t *a, int64_t na, const int64_t *b, int64_t nb,
                            int64_t *shape, int64_t *n) {
    int64_t m = na > nb ? na : nb;
    for (int64_t i = m - 1; i >= 0; i--) {
        int64_t da = na - m + i, db = nb - m + i;
        int64_t x = da >= 0 ? a[da] : 1, y = db >= 0 ? b[db] : 1;
        if (x != y && x != 1 && y != 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%" PRId64
                                ") must match the size of tensor b (%" PRId64
                                ") at non-singleton dimension %" PRId64,
                                x, y, i);
        shape[i] = x == 1 ? y : x;
    }
    *n = m;
    return CT_OK;
}

/* A sparse result from `indices` and `values` (both CONSUMED), values cast to `dtype`. */
static ct_status finish(ct_tensor *indices, ct_tensor *values, ct_dtype dtype, const int64_t *sizes,
                        int64_t ndim, int64_t sparse_dim, bool coalesced, ct_tensor **out) {
    ct_tensor *v = NULL;
    ct_status st = ct_tensor_to_dtype(values, dtype, &v);
    ct_tensor_release(values);
    if (st != CT_OK) {
        ct_tensor_release(indices);
        return st;
    }
    return ct_sparse_impl_make(indices, v, sizes, ndim, sparse_dim, coalesced, out);
}

/* An empty (nnz 0) sparse result on `device`, values of dense sizes vsizes[1..vn). */
static ct_status empty_result(ct_device device, int64_t sparse_dim, const int64_t *vsizes,
                              int64_t vn, ct_dtype dtype, const int64_t *sizes, int64_t ndim,
                              ct_tensor **out) {
    ct_tensor *i = NULL, *v = NULL;
    int64_t vs[CT_MAX_DIMS + 1];
    memcpy(vs, vsizes, (size_t)vn * sizeof(int64_t));
    vs[0] = 0;
    ct_status st = ct_tensor_empty((const int64_t[]){sparse_dim, 0}, 2, CT_INT64, &device,
                                   CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &i);
    if (st == CT_OK)
        st = ct_tensor_empty(vs, vn, dtype, &device, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &v);
    if (st != CT_OK) {
        ct_tensor_release(i);
        return st;
    }
    return ct_sparse_impl_make(i, v, sizes, ndim, sparse_dim, true, out);
}

/* ---- sparse * dense ------------------------------------------------------------------------ */

/* mul(d, s) where d has more dims than s: s (coalesced) repeats over d's leading "batch"
 * dims, which become new leading sparse dims; the result is coalesced by construction. */
static ct_status mul_dense_batched(const ct_tensor *d, const ct_tensor *s, ct_dtype dtype,
                                   const int64_t *shape, int64_t n, ct_tensor **out) {
    ct_tensor *c = NULL, *ex = NULL, *df = NULL, *prod = NULL, *vals = NULL, *hc = NULL;
    ct_tensor *hi = NULL, *ind = NULL;
    ct_tensor *idx[CT_MAX_DIMS] = {NULL};
    CT_TRY(ct_sparse_coalesce(s, &c));
    const ct_sparse_coo *p = ct_sparse_impl_payload(c);
    int64_t nb = d->ndim - s->ndim, sd = p->sparse_dim, dd = p->dense_dim, nnz = p->nnz;
    int64_t batch = 1, vs[CT_MAX_DIMS + 1];
    for (int64_t i = 0; i < nb; i++)
        batch *= shape[i]; /* <= numel of the expanded d, which exists */
    ct_status st = ct_tensor_expand(d, shape, n, &ex);
    for (int64_t i = 0; st == CT_OK && i < sd; i++)
        st = ct_tensor_select(p->indices, 0, i, &idx[nb + i]);
    if (st == CT_OK) /* d[..., i_0, ..., i_sd-1, :]: [batch..., nnz, dense...] */
        st = ct_tensor_index(ex, (const ct_tensor *const *)idx, (size_t)(nb + sd), &df);
    if (st == CT_OK)
        st = ct_binary(CT_OP_MUL, df, p->values, ct_scalar_int(1), &prod);
    if (st == CT_OK) {
        vs[0] = batch * nnz;
        memcpy(vs + 1, shape + n - dd, (size_t)dd * sizeof(int64_t));
        st = ct_tensor_reshape(prod, vs, 1 + dd, &vals);
    }
    if (st == CT_OK)
        st = ct_sparse_impl_host(p->indices, CT_INT64, &hc);
    if (st == CT_OK)
        st = ct_sparse_impl_host_empty((const int64_t[]){nb + sd, batch * nnz}, 2, CT_INT64, &hi);
    if (st == CT_OK) {
        int64_t *ri = ct_tensor_data_ptr(hi), rn = batch * nnz;
        const int64_t *ci = ct_tensor_data_ptr(hc);
        for (int64_t q = 0; q < rn; q++) {
            int64_t b = q / nnz, k = q % nnz;
            for (int64_t i = nb - 1; i >= 0; i--) { /* b's multi-index, row-major */
                ri[i * rn + q] = b % shape[i];
                b /= shape[i];
            }
            for (int64_t i = 0; i < sd; i++)
                ri[(nb + i) * rn + q] = ci[i * nnz + k];
        }
        st = ct_sparse_impl_to_device(hi, s->device, &ind);
        hi = NULL;
    }
    for (int64_t i = 0; i < nb + sd; i++)
        ct_tensor_release(idx[i]);
    ct_tensor *rel[] = {c, ex, df, prod, hc, hi};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        ct_tensor_release(rel[i]);
    if (st != CT_OK) {
        ct_tensor_release(vals);
        ct_tensor_release(ind);
        return st;
    }
    return finish(ind, vals, dtype, shape, n, nb + sd, true, out);
}

/* The direct loop of mul_dense_direct: values[j] = d[indices[:, j]] * svals[j]. */
typedef struct direct_ctx {
    const int64_t *ind; /* [sd, nnz] with strides is0 (row), is1 (column) */
    int64_t is0, is1, sd;
    const int64_t *dsizes, *dstrides;
    const char *d, *sv;
    char *out;
    ct_dtype dtype;
    atomic_bool out_of_range;
} direct_ctx;

/* The element offset in d of column j, or -1 when an index is out of range. */
static inline int64_t direct_offset(const direct_ctx *c, int64_t j) {
    int64_t off = 0;
    for (int64_t r = 0; r < c->sd; r++) {
        int64_t x = c->ind[r * c->is0 + j * c->is1];
        if ((uint64_t)x >= (uint64_t)c->dsizes[r])
            return -1;
        off += x * c->dstrides[r];
    }
    return off;
}

/* The reads of d are random: prefetch the element PREFETCH columns ahead (the loop is bound
 * by their latency, not by arithmetic). */
#define PREFETCH 16
#define DIRECT_LOOP(T)                                                                             \
    do {                                                                                           \
        const T *dv = (const T *)(const void *)c->d, *sv = (const T *)(const void *)c->sv;         \
        T *o = (T *)(void *)c->out;                                                                \
        for (int64_t j = begin; j < end; j++) {                                                    \
            if (j + PREFETCH < end) {                                                              \
                int64_t ahead = direct_offset(c, j + PREFETCH);                                    \
                if (ahead >= 0)                                                                    \
                    __builtin_prefetch(dv + ahead);                                                \
            }                                                                                      \
            int64_t off = direct_offset(c, j);                                                     \
            if (off < 0) {                                                                         \
                atomic_store(&c->out_of_range, true);                                              \
                return;                                                                            \
            }                                                                                      \
            o[j] = dv[off] * sv[j];                                                                \
        }                                                                                          \
    } while (0)

static void direct_body(void *ctx, int64_t begin, int64_t end) {
    direct_ctx *c = ctx;
    if (c->dtype == CT_FLOAT32)
        DIRECT_LOOP(float);
    else
        DIRECT_LOOP(double);
}

/* mul(d, s) for the common case, without the gather through advanced indexing: cpu, one
 * real float dtype everywhere, d of s's sizes, no dense dims, contiguous values (a float
 * product is one rounding, so the values are those of the general path). Returns false
 * (nothing done) where the case does not apply, and when an index is out of range (s made
 * without checks): the general path reports that. */
static bool mul_dense_direct(const ct_tensor *d, const ct_tensor *s, const ct_sparse_coo *p,
                             ct_dtype dtype, ct_status *st, ct_tensor **out) {
    const ct_tensor *v = p->values, *ind = p->indices;
    if ((dtype != CT_FLOAT32 && dtype != CT_FLOAT64) || d->dtype != dtype || v->dtype != dtype ||
        d->device.type != CT_DEVICE_CPU || s->device.type != CT_DEVICE_CPU ||
        d->layout != CT_LAYOUT_STRIDED || p->dense_dim != 0 || d->ndim != s->ndim ||
        memcmp(d->sizes, s->sizes, (size_t)d->ndim * sizeof(int64_t)) != 0 ||
        !(v->flags & CT_TF_CONTIGUOUS))
        return false;
    int64_t nnz = p->nnz;
    ct_tensor *vals = NULL, *indc = NULL;
    *st =
        ct_tensor_empty(&nnz, 1, dtype, &s->device, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &vals);
    if (*st != CT_OK)
        return true;
    direct_ctx c = {.ind = ct_tensor_data_ptr(ind),
                    .is0 = ind->strides[0],
                    .is1 = ind->strides[1],
                    .sd = p->sparse_dim,
                    .dsizes = d->sizes,
                    .dstrides = d->strides,
                    .d = ct_tensor_data_ptr(d),
                    .sv = ct_tensor_data_ptr(v),
                    .out = ct_tensor_data_ptr(vals),
                    .dtype = dtype};
    atomic_init(&c.out_of_range, false);
    ct_parallel_for(0, nnz, 32768, direct_body, &c);
    if (atomic_load(&c.out_of_range)) {
        ct_tensor_release(vals);
        return false;
    }
    *st = ct_tensor_clone(ind, CT_MEMFMT_CONTIGUOUS, &indc);
    if (*st != CT_OK) {
        ct_tensor_release(vals);
        return true;
    }
    *st = ct_sparse_impl_make(indc, vals, s->sizes, s->ndim, p->sparse_dim,
                              atomic_load(&p->coalesced), out);
    return true;
}

/* mul(d, s) where d is strided: PyTorch's intersection_binary_op_sparse_dense_out, values
 * computed as mul(d at s's indices, s's values). */
ct_status ct_sparse_impl_mul_dense(const ct_tensor *d, const ct_tensor *s, ct_dtype dtype,
                                   ct_tensor **out) {
    const ct_sparse_coo *p = ct_sparse_impl_payload(s);
    int64_t shape[CT_MAX_DIMS], n;
    CT_TRY(infer_size(d->sizes, d->ndim, s->sizes, s->ndim, shape, &n));
    if (p->nnz == 0 || s->numel == 0 || d->numel == 0) /* resized and cleared: all sparse */
        return empty_result(s->device, n, (const int64_t[]){0}, 1, dtype, shape, n, out);
    if (d->ndim > s->ndim)
        return mul_dense_batched(d, s, dtype, shape, n, out);
    ct_status direct_st = CT_OK;
    if (mul_dense_direct(d, s, p, dtype, &direct_st, out))
        return direct_st;
    ct_tensor *ex = NULL, *df = NULL, *vals = NULL, *ind = NULL;
    ct_tensor *rows[CT_MAX_DIMS] = {NULL};
    int64_t k = d->ndim - p->dense_dim; /* d's dims indexed by s's last sparse dims */
    ct_status st = CT_OK;
    if (k <= 0) {
        st = ct_binary(CT_OP_MUL, d, p->values, ct_scalar_int(1), &vals);
    } else {
        int64_t first = s->ndim - d->ndim;
        st = ct_tensor_expand(d, shape + (n - d->ndim), d->ndim, &ex);
        for (int64_t i = 0; st == CT_OK && i < k; i++)
            st = ct_tensor_select(p->indices, 0, first + i, &rows[i]);
        if (st == CT_OK)
            st = ct_tensor_index(ex, (const ct_tensor *const *)rows, (size_t)k, &df);
        if (st == CT_OK)
            st = ct_binary(CT_OP_MUL, df, p->values, ct_scalar_int(1), &vals);
    }
    if (st == CT_OK)
        st = ct_tensor_clone(p->indices, CT_MEMFMT_CONTIGUOUS, &ind);
    for (int64_t i = 0; i < k; i++)
        ct_tensor_release(rows[i]);
    ct_tensor_release(ex);
    ct_tensor_release(df);
    if (st != CT_OK) {
        ct_tensor_release(vals);
        ct_tensor_release(ind);
        return st;
    }
    return finish(ind, vals, dtype, shape, n, p->sparse_dim, atomic_load(&p->coalesced), out);
}

/* ---- sparse * sparse ----------------------------------------------------------------------- */

/* The one value of a 0-dim sparse tensor as a 0-dim strided tensor (zero when nnz is 0,
 * where PyTorch reads an uninitialised element). */
static ct_status scalar_of(const ct_tensor *z, ct_tensor **out) {
    const ct_sparse_coo *p = ct_sparse_impl_payload(z);
    if (p->nnz == 1)
        return ct_tensor_squeeze_dim(p->values, 0, out);
    return ct_tensor_zeros(NULL, 0, z->dtype, &z->device, CT_LAYOUT_STRIDED, out);
}

/* PyTorch's _mul_sparse_sparse_zero_dim_out: z is 0-dim. */
static ct_status mul_zero_dim(const ct_tensor *z, const ct_tensor *o, ct_dtype dtype,
                              ct_tensor **out) {
    const ct_tensor *keep = o;
    ct_tensor *c = NULL, *v = NULL;
    ct_status st;
    if (atomic_load(&ct_sparse_impl_payload(z)->coalesced)) {
        st = scalar_of(z, &v);
    } else if (o->ndim == 0 && atomic_load(&ct_sparse_impl_payload(o)->coalesced)) {
        st = scalar_of(o, &v);
        keep = z;
    } else {
        st = ct_sparse_coalesce(z, &c);
        if (st == CT_OK)
            st = scalar_of(c, &v);
    }
    if (st == CT_OK)
        st = ct_sparse_impl_mul_dense(v, keep, dtype, out);
    ct_tensor_release(v);
    ct_tensor_release(c);
    return st;
}

/* A 1-D int64 cpu tensor of n elements copied from v. CONSUMES nothing. */
static ct_status index_tensor(const int64_t *v, int64_t n, ct_tensor **out) {
    CT_TRY(ct_sparse_impl_host_empty(&n, 1, CT_INT64, out));
    if (n > 0)
        memcpy(ct_tensor_data_ptr(*out), v, (size_t)n * sizeof(int64_t));
    return CT_OK;
}

/* Rows `sel` (n of them, host) of t (on any device) along dim. */
static ct_status gather(const ct_tensor *t, int64_t dim, const int64_t *sel, int64_t n,
                        ct_tensor **out) {
    ct_tensor *h = NULL, *ix = NULL;
    *out = NULL;
    ct_status st = index_tensor(sel, n, &h);
    if (st == CT_OK)
        st = ct_sparse_impl_to_device(h, t->device, &ix);
    if (st == CT_OK)
        st = ct_tensor_index_select(t, dim, ix, out);
    ct_tensor_release(ix);
    return st;
}

/* The product of rows ta[sa] and tb[sb] of two values tensors, n pairs, computed as
 * mul(ta rows, tb rows). */
static ct_status mul_rows(const ct_tensor *ta, const int64_t *sa, const ct_tensor *tb,
                          const int64_t *sb, int64_t n, ct_tensor **out) {
    ct_tensor *a = NULL, *b = NULL;
    ct_status st = gather(ta, 0, sa, n, &a);
    if (st == CT_OK)
        st = gather(tb, 0, sb, n, &b);
    if (st == CT_OK)
        st = ct_binary(CT_OP_MUL, a, b, ct_scalar_int(1), out);
    ct_tensor_release(a);
    ct_tensor_release(b);
    return st;
}

/* Both flagged coalesced, equal sizes: PyTorch's merge ("mul_out_sparse"). */
static ct_status mul_merge(const ct_tensor *t, const ct_tensor *s, ct_dtype dtype,
                           ct_tensor **out) {
    const ct_sparse_coo *tp = ct_sparse_impl_payload(t), *sp = ct_sparse_impl_payload(s);
    ct_dtype common;
    CT_TRY(ct_promote_types(t->dtype, s->dtype, &common));
    /* 1.13's scalar loop (no dense dims) and addcmul_ (dense dims, called per match) lack
     * some dtypes */
    bool hybrid = tp->dense_dim > 0;
    bool refused = common == CT_BOOL || common == CT_COMPLEX32 ||
                   (hybrid && common == CT_FLOAT16) || !ct_sparse_impl_axpy_dtype(common);
    if (refused && !hybrid)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"mul_out_sparse\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(common));
    ct_tensor *ti = NULL, *si = NULL, *tv = NULL, *sv = NULL, *ind = NULL, *vals = NULL;
    int64_t sd = sp->sparse_dim, tn = tp->nnz, sn = sp->nnz, m = tn < sn ? tn : sn, r = 0;
    int64_t *buf = ct_alloc((size_t)(2 * m + 1) * sizeof(int64_t), _Alignof(int64_t));
    if (buf == NULL)
        return CT_ERR_NOMEM;
    int64_t *at = buf, *as = buf + m;
    ct_status st = ct_sparse_impl_host(tp->indices, CT_INT64, &ti);
    if (st == CT_OK)
        st = ct_sparse_impl_host(sp->indices, CT_INT64, &si);
    if (st == CT_OK) {
        const int64_t *tix = ct_tensor_data_ptr(ti), *six = ct_tensor_data_ptr(si);
        int64_t i = 0, j = 0;
        while (i < tn && j < sn) {
            int c = ct_sparse_impl_cmp_cols(tix, tn, i, six, sn, j, sd);
            if (c < 0) {
                i++;
            } else if (c > 0) {
                j++;
            } else {
                at[r] = i++;
                as[r++] = j++;
            }
        }
        st = ct_sparse_impl_host_empty((const int64_t[]){sd, r}, 2, CT_INT64, &ind);
        if (st == CT_OK)
            for (int64_t d = 0; d < sd; d++)
                for (int64_t q = 0; q < r; q++)
                    ((int64_t *)ct_tensor_data_ptr(ind))[d * r + q] = tix[d * tn + at[q]];
    }
    if (st == CT_OK && refused && r > 0)
        st = ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"addcmul_cpu_out\" not implemented for '%s'",
                          ct_dtype_impl_msg_name(common));
    if (st == CT_OK)
        st = ct_tensor_to_dtype(tp->values, common, &tv);
    if (st == CT_OK)
        st = ct_tensor_to_dtype(sp->values, common, &sv);
    if (st == CT_OK)
        st = mul_rows(tv, at, sv, as, r, &vals);
    if (st == CT_OK && tp->dense_dim > 0) { /* PyTorch accumulates into zeros (addcmul_) */
        ct_tensor *z = NULL, *sum = NULL;
        st = ct_tensor_zeros(vals->sizes, vals->ndim, vals->dtype, &vals->device, CT_LAYOUT_STRIDED,
                             &z);
        if (st == CT_OK)
            st = ct_binary(CT_OP_ADD, z, vals, ct_scalar_int(1), &sum);
        ct_tensor_release(z);
        ct_tensor_release(vals);
        vals = sum;
    }
    ct_free(buf, (size_t)(2 * m + 1) * sizeof(int64_t), _Alignof(int64_t));
    ct_tensor_release(ti);
    ct_tensor_release(si);
    ct_tensor_release(tv);
    ct_tensor_release(sv);
    ct_tensor *dind = NULL;
    if (st == CT_OK) {
        st = ct_sparse_impl_to_device(ind, s->device, &dind);
        ind = NULL;
    }
    if (st != CT_OK) {
        ct_tensor_release(ind);
        ct_tensor_release(vals);
        return st;
    }
    return finish(dind, vals, dtype, s->sizes, s->ndim, sd, true, out);
}

/* Stable sort of perm by the columns of ix [sd, nnz] (qsort with the position as tie-break). */
typedef struct col_key {
    const int64_t *ix;
    int64_t nnz, sd, pos;
} col_key;

static int col_key_cmp(const void *a, const void *b) {
    const col_key *x = a, *y = b;
    int c = ct_sparse_impl_cmp_cols(x->ix, x->nnz, x->pos, y->ix, y->nnz, y->pos, x->sd);
    return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* First position in sorted perm[0..n) whose column is >= (upper: >) column j of ix2. */
static int64_t bound(const int64_t *perm, int64_t n, const int64_t *ix, int64_t nnz,
                     const int64_t *ix2, int64_t nnz2, int64_t j, int64_t sd, bool upper) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = ct_sparse_impl_cmp_cols(ix, nnz, perm[mid], ix2, nnz2, j, sd);
        if (c < 0 || (upper && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* PyTorch's _sparse_binary_op_intersection_kernel_impl with mul. */
static ct_status mul_intersection(const ct_tensor *x, const ct_tensor *y, ct_dtype dtype,
                                  ct_tensor **out) {
    const ct_sparse_coo *xp = ct_sparse_impl_payload(x), *yp = ct_sparse_impl_payload(y);
    if (x->ndim != y->ndim || xp->sparse_dim != yp->sparse_dim ||
        memcmp(x->sizes, y->sizes, (size_t)xp->sparse_dim * sizeof(int64_t)) != 0)
        return ct_set_error(CT_ERR_RUNTIME, "%s", intersection_msg);
    int64_t shape[CT_MAX_DIMS], n;
    CT_TRY(infer_size(x->sizes, x->ndim, y->sizes, y->ndim, shape, &n));
    bool xc = atomic_load(&xp->coalesced), yc = atomic_load(&yp->coalesced);
    /* "probably coalesced" (searched) and "source" (walked in order) */
    const ct_tensor *pc = x, *src = y;
    if (xc != yc ? yc : xp->nnz < yp->nnz) {
        pc = y;
        src = x;
    }
    const ct_sparse_coo *pp = ct_sparse_impl_payload(pc), *sp = ct_sparse_impl_payload(src);
    int64_t sd = sp->sparse_dim, pn = pp->nnz, sn = sp->nnz;
    ct_tensor *pi = NULL, *si = NULL, *ind = NULL, *vals = NULL;
    int64_t *perm = NULL, *ssel = NULL, *psel = NULL, total = 0, cap = 0;
    col_key *keys = NULL;
    ct_status st = ct_sparse_impl_host(pp->indices, CT_INT64, &pi);
    if (st == CT_OK)
        st = ct_sparse_impl_host(sp->indices, CT_INT64, &si);
    if (st != CT_OK)
        goto done;
    const int64_t *pix = ct_tensor_data_ptr(pi), *six = ct_tensor_data_ptr(si);
    perm = ct_alloc((size_t)(pn + 1) * sizeof(int64_t), _Alignof(int64_t));
    keys = ct_alloc((size_t)(pn + 1) * sizeof(col_key), _Alignof(col_key));
    if (perm == NULL || keys == NULL) {
        st = CT_ERR_NOMEM;
        goto done;
    }
    for (int64_t i = 0; i < pn; i++)
        keys[i] = (col_key){.ix = pix, .nnz = pn, .sd = sd, .pos = i};
    if (!atomic_load(&pp->coalesced) && pn > 1)
        qsort(keys, (size_t)pn, sizeof *keys, col_key_cmp);
    for (int64_t i = 0; i < pn; i++)
        perm[i] = keys[i].pos;
    /* count the matches first, then fill */
    for (int64_t j = 0; j < sn; j++)
        total += bound(perm, pn, pix, pn, six, sn, j, sd, true) -
                 bound(perm, pn, pix, pn, six, sn, j, sd, false);
    cap = total + 1;
    ssel = ct_alloc((size_t)cap * sizeof(int64_t), _Alignof(int64_t));
    psel = ct_alloc((size_t)cap * sizeof(int64_t), _Alignof(int64_t));
    if (ssel == NULL || psel == NULL) {
        st = CT_ERR_NOMEM;
        goto done;
    }
    for (int64_t j = 0, r = 0; j < sn; j++) {
        int64_t lo = bound(perm, pn, pix, pn, six, sn, j, sd, false);
        int64_t hi = bound(perm, pn, pix, pn, six, sn, j, sd, true);
        for (int64_t q = lo; q < hi; q++, r++) {
            ssel[r] = j;
            psel[r] = perm[q];
        }
    }
    ct_tensor *hind = NULL;
    st = ct_sparse_impl_host_empty((const int64_t[]){sd, total}, 2, CT_INT64, &hind);
    if (st == CT_OK) {
        int64_t *rix = ct_tensor_data_ptr(hind);
        for (int64_t d = 0; d < sd; d++)
            for (int64_t q = 0; q < total; q++)
                rix[d * total + q] = six[d * sn + ssel[q]];
        st = ct_sparse_impl_to_device(hind, src->device, &ind);
    }
    if (st == CT_OK)
        st = mul_rows(sp->values, ssel, pp->values, psel, total, &vals);
done:
    ct_free(perm, (size_t)(pn + 1) * sizeof(int64_t), _Alignof(int64_t));
    ct_free(keys, (size_t)(pn + 1) * sizeof(col_key), _Alignof(col_key));
    ct_free(ssel, (size_t)cap * sizeof(int64_t), _Alignof(int64_t));
    ct_free(psel, (size_t)cap * sizeof(int64_t), _Alignof(int64_t));
    ct_tensor_release(pi);
    ct_tensor_release(si);
    if (st != CT_OK) {
        ct_tensor_release(ind);
        ct_tensor_release(vals);
        return st;
    }
    return finish(ind, vals, dtype, shape, n, sd,
                  atomic_load(&sp->coalesced) && atomic_load(&pp->coalesced), out);
}

static ct_status mul_sparse_sparse(const ct_tensor *t, const ct_tensor *s, ct_dtype dtype,
                                   ct_tensor **out) {
    if (s->ndim == 0)
        return mul_zero_dim(s, t, dtype, out);
    if (t->ndim == 0)
        return mul_zero_dim(t, s, dtype, out);
    bool equal =
        t->ndim == s->ndim && memcmp(t->sizes, s->sizes, (size_t)t->ndim * sizeof(int64_t)) == 0;
    if (!equal)
        return mul_intersection(t, s, dtype, out);
    const ct_sparse_coo *tp = ct_sparse_impl_payload(t), *sp = ct_sparse_impl_payload(s);
    if (tp->nnz == 0 || sp->nnz == 0) /* r.resize_as_(t).zero_(): every dim sparse */
        return empty_result(t->device, t->ndim, (const int64_t[]){0}, 1, dtype, t->sizes, t->ndim,
                            out);
    if (!atomic_load(&tp->coalesced) || !atomic_load(&sp->coalesced))
        return mul_intersection(t, s, dtype, out);
    return mul_merge(t, s, dtype, out);
}

/* ---- entry points ------------------------------------------------------------------------------
 */

static ct_status same_device(const ct_tensor *a, const ct_tensor *b) {
    if (ct_device_equal(a->device, b->device) ||
        (a->layout == CT_LAYOUT_STRIDED && a->ndim == 0 && a->device.type == CT_DEVICE_CPU) ||
        (b->layout == CT_LAYOUT_STRIDED && b->ndim == 0 && b->device.type == CT_DEVICE_CPU))
        return CT_OK;
    char x[CT_DEVICE_STRING_MAX], y[CT_DEVICE_STRING_MAX];
    CT_TRY(ct_device_str(a->device, x, sizeof x));
    CT_TRY(ct_device_str(b->device, y, sizeof y));
    return ct_set_error(CT_ERR_RUNTIME,
                        "Expected all tensors to be on the same device, but found at least two "
                        "devices, %s and %s!",
                        x, y);
}

static ct_status check_pair(const ct_tensor *a, const ct_tensor *b, ct_tensor **out,
                            const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    if (a == NULL || b == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensor is NULL", fn);
    const ct_tensor *both[2] = {a, b};
    for (int k = 0; k < 2; k++)
        if (both[k]->layout != CT_LAYOUT_STRIDED && ct_sparse_impl_payload(both[k]) == NULL)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: layout torch.%s is not supported", fn,
                                ct_layout_name(both[k]->layout));
    if (!ct_sparse_is_sparse(a) && !ct_sparse_is_sparse(b))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: neither operand is sparse", fn);
    return CT_OK;
}

ct_status ct_sparse_mul(const ct_tensor *self, const ct_tensor *other, ct_tensor **out) {
    CT_TRY(check_pair(self, other, out, "ct_sparse_mul"));
    ct_dtype dtype;
    CT_TRY(ct_tensor_result_type((const ct_tensor *[]){self, other}, 2, &dtype));
    CT_TRY(same_device(self, other));
    if (!ct_sparse_is_sparse(other))
        return ct_sparse_impl_mul_dense(other, self, dtype, out);
    if (!ct_sparse_is_sparse(self))
        return ct_sparse_impl_mul_dense(self, other, dtype, out);
    return mul_sparse_sparse(self, other, dtype, out);
}

ct_status ct_sparse_div(const ct_tensor *self, const ct_tensor *other, ct_rounding_mode mode,
                        ct_tensor **out) {
    CT_TRY(check_pair(self, other, out, "ct_sparse_div"));
    char b[400];
    if (other->ndim != 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Sparse division requires a scalar or zero-dim dense tensor divisor "
                            "(got shape %s for divisor)",
                            ct_tensor_impl_shape_format(b, sizeof b, other->sizes, other->ndim));
    if (ct_sparse_is_sparse(other))
        return ct_set_error(CT_ERR_RUNTIME, "Sparse division requires a scalar or zero-dim dense "
                                            "tensor divisor (got a sparse divisor)");
    ct_dtype dtype;
    CT_TRY(ct_tensor_result_type((const ct_tensor *[]){self, other}, 2, &dtype));
    if (mode == CT_ROUNDING_NONE && !ct_dtype_is_floating_point(dtype) &&
        !ct_dtype_is_complex(dtype))
        dtype = ct_get_default_dtype(); /* true division of integers */
    CT_TRY(same_device(self, other));
    ct_op op;
    CT_TRY(ct_op_div(mode, &op));
    /* rounding does not distribute over the sum of duplicates: coalesce first */
    ct_tensor *c = NULL, *vals = NULL, *ind = NULL;
    if (mode != CT_ROUNDING_NONE)
        CT_TRY(ct_sparse_coalesce(self, &c));
    const ct_sparse_coo *p = ct_sparse_impl_payload(c != NULL ? c : self);
    ct_status st = ct_binary(op, p->values, other, ct_scalar_int(1), &vals);
    if (st == CT_OK)
        st = ct_tensor_clone(p->indices, CT_MEMFMT_CONTIGUOUS, &ind);
    bool coalesced = atomic_load(&p->coalesced);
    ct_tensor_release(c);
    if (st != CT_OK) {
        ct_tensor_release(vals);
        return st;
    }
    return finish(ind, vals, dtype, self->sizes, self->ndim,
                  ct_sparse_impl_payload(self)->sparse_dim, coalesced, out);
}
