/* Advanced indexing: PyTorch's aten::index and index_put_ on CPU (see ctensor/index.h).
 *
 * An index list is first "planned": masks become their nonzero() columns, the index tensors
 * are broadcast, and self's dims split into outer dims (before the indexed block when the
 * indexed dims are adjacent), the broadcast index dims, and inner dims (every other dim).
 * Element (o, b, i) of the result then reads self at ooff[o] + off(b) + ioff[i]. A single
 * contiguous int64 index reads its values directly (one pass, as PyTorch's kernel) and a
 * single mask over the leading dims of a contiguous tensor is walked without nonzero(). */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "base/parallel.h"
#include "ctensor/index.h"
#include "tensor/index_stage.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

#define IX_GRAIN 32768
#define LIST1(t) ((const ct_tensor *const[]){(t)})

typedef struct {
    const ct_tensor *self;
    int64_t count;                    /* defined index tensors (after mask expansion) */
    ct_tensor *idx[CT_MAX_DIMS];      /* int64, new references */
    int64_t pos[CT_MAX_DIMS];         /* the dim each indexes */
    int64_t bshape[CT_MAX_DIMS], bnd; /* broadcast shape */
    int64_t nb;                       /* its numel */
    int64_t osizes[CT_MAX_DIMS], ostrides[CT_MAX_DIMS], ond;
    int64_t isizes[CT_MAX_DIMS], istrides[CT_MAX_DIMS], ind;
    int64_t rsizes[CT_MAX_DIMS], rnd; /* the result's shape */
} ix_plan;

static void plan_free(ix_plan *p) {
    for (int64_t k = 0; k < p->count; k++)
        ct_tensor_release(p->idx[k]);
    p->count = 0;
}

static bool is_mask(ct_dtype dt) { return dt == CT_BOOL || dt == CT_UINT8; }

/* Accelerators' tensors were staged before (tensor/index_stage.h): this refuses meta ones. */
static ct_status check_cpu(const ct_tensor *t, const char *fn) {
    CT_TRY(ct_tensor_impl_check(t, fn));
    if (t->device.type != CT_DEVICE_CPU)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: ctensor indexes cpu tensors only", fn);
    return CT_OK;
}

static ct_status plan_build(const ct_tensor *self, const ct_tensor *const *indices, size_t n,
                            ix_plan *p) {
    ct_status st = CT_OK;
    memset(p, 0, sizeof *p);
    p->self = self;
    int64_t nd = self->ndim, d = 0;
    char a[256], b[256];
    for (size_t i = 0; i < n; i++) {
        const ct_tensor *ix = indices[i];
        if (ix == NULL) {
            d++;
            continue;
        }
        CT_CHECK(ix->device.type == CT_DEVICE_CPU, CT_ERR_NOT_IMPLEMENTED,
                 "index: ctensor indexes with cpu tensors only");
        CT_CHECK(ix->dtype == CT_INT64 || is_mask(ix->dtype), CT_ERR_INDEX,
                 "tensors used as indices must be long, byte or bool tensors");
        int64_t k = is_mask(ix->dtype) ? ix->ndim : 1;
        CT_CHECK(d + k <= nd, CT_ERR_INDEX, "too many indices for tensor of dimension %" PRId64,
                 nd);
        if (!is_mask(ix->dtype)) {
            p->idx[p->count] = ct_tensor_retain((ct_tensor *)ix);
            p->pos[p->count++] = d++;
            continue;
        }
        for (int64_t j = 0; j < k; j++)
            CT_CHECK(ix->sizes[j] == self->sizes[d + j], CT_ERR_INDEX,
                     "The shape of the mask %s at index %" PRId64
                     " does not match the shape of the indexed tensor %s at index %" PRId64,
                     ct_tensor_impl_shape_format(a, sizeof a, ix->sizes, ix->ndim), j,
                     ct_tensor_impl_shape_format(b, sizeof b, self->sizes, nd), d + j);
        ct_tensor *nz = NULL;
        if ((st = ct_tensor_nonzero(ix, &nz)) != CT_OK)
        goto fail;
        for (int64_t j = 0; j < k && st == CT_OK; j++) {
            st = ct_tensor_select(nz, 1, j, &p->idx[p->count]);
            if (st == CT_OK)
                p->pos[p->count++] = d + j;
        }
        ct_tensor_release(nz);
        if (st != CT_OK)
            goto fail;
        d += k;
    }
    /* broadcast the index shapes */
    for (int64_t k = 0; k < p->count; k++) {
        const ct_tensor *t = p->idx[k];
        if (t->ndim > p->bnd) {
            memmove(p->bshape + (t->ndim - p->bnd), p->bshape, (size_t)p->bnd * sizeof(int64_t));
            for (int64_t j = 0; j < t->ndim - p->bnd; j++)
                p->bshape[j] = 1;
            p->bnd = t->ndim;
        }
        for (int64_t j = 0; j < t->ndim; j++) {
            int64_t *bs = &p->bshape[p->bnd - t->ndim + j], s = t->sizes[j];
            if (*bs == 1)
                *bs = s;
            else if (s != 1 && s != *bs) {
                size_t used = 0;
                a[0] = '\0';
                for (int64_t q = 0; q < p->count && used + 40 < sizeof a; q++) {
                    ct_tensor_impl_shape_format(b, 64, p->idx[q]->sizes, p->idx[q]->ndim);
                    used += (size_t)snprintf(a + used, sizeof a - used, "%s%s", q ? ", " : "", b);
                }
                CT_CHECK(0, CT_ERR_INDEX,
                         "shape mismatch: indexing tensors could not be broadcast together "
                         "with shapes %s",
                         a);
            }
        }
    }
    p->nb = 1;
    for (int64_t j = 0; j < p->bnd; j++)
        p->nb *= p->bshape[j];
    /* PyTorch's AdvancedIndex: an indexed dim of size 0 with a non-empty index shape has
     * no valid index, whatever the other dims. */
    for (int64_t k = 0; k < p->count; k++)
        CT_CHECK(self->sizes[p->pos[k]] != 0 || p->nb == 0, CT_ERR_INDEX,
                 "index is out of bounds for dimension with size 0");
    bool adjacent = p->count == 0 || p->pos[p->count - 1] - p->pos[0] + 1 == p->count;
    bool indexed[CT_MAX_DIMS] = {0};
    for (int64_t k = 0; k < p->count; k++)
        indexed[p->pos[k]] = true;
    int64_t first = p->count ? p->pos[0] : 0;
    for (int64_t j = 0; j < nd; j++) {
        if (indexed[j])
            continue;
        if (adjacent && j < first) {
            p->osizes[p->ond] = self->sizes[j];
            p->ostrides[p->ond++] = self->strides[j];
        } else {
            p->isizes[p->ind] = self->sizes[j];
            p->istrides[p->ind++] = self->strides[j];
        }
    }
    memcpy(p->rsizes, p->osizes, (size_t)p->ond * sizeof(int64_t));
    memcpy(p->rsizes + p->ond, p->bshape, (size_t)p->bnd * sizeof(int64_t));
    memcpy(p->rsizes + p->ond + p->bnd, p->isizes, (size_t)p->ind * sizeof(int64_t));
    p->rnd = p->ond + p->bnd + p->ind;
    CT_CHECK(p->rnd <= CT_MAX_DIMS, CT_ERR_INDEX, "index: too many dimensions in the result");
    return CT_OK;
fail:
    plan_free(p);
    return st;
}

/* Offsets (in elements) of every position of a dims block, row-major. */
static int64_t *block_offsets(const int64_t *sizes, const int64_t *strides, int64_t nd,
                              int64_t *count) {
    int64_t n = 1;
    for (int64_t j = 0; j < nd; j++)
        n *= sizes[j];
    *count = n;
    int64_t *off = ct_alloc((size_t)(n ? n : 1) * sizeof(int64_t), 64);
    if (off == NULL)
        return NULL;
    int64_t ctr[CT_MAX_DIMS] = {0}, cur = 0;
    for (int64_t e = 0; e < n; e++) {
        off[e] = cur;
        for (int64_t j = nd - 1; j >= 0; j--) {
            cur += strides[j];
            if (++ctr[j] < sizes[j])
                break;
            cur -= strides[j] * sizes[j];
            ctr[j] = 0;
        }
    }
    return off;
}

/* off[b] = sum over index tensors of idx_k[b] * stride(pos_k), bounds checked. */
static ct_status index_offsets(const ix_plan *p, int64_t *off) {
    const ct_tensor *self = p->self;
    for (int64_t b = 0; b < p->nb; b++)
        off[b] = 0;
    for (int64_t k = 0; k < p->count; k++) {
        const ct_tensor *t = p->idx[k];
        int64_t bst[CT_MAX_DIMS] = {0}, ctr[CT_MAX_DIMS] = {0};
        for (int64_t j = 0; j < t->ndim; j++)
            bst[p->bnd - t->ndim + j] = t->sizes[j] == 1 ? 0 : t->strides[j];
        const int64_t *data = (const int64_t *)ct_tensor_data_ptr(t);
        int64_t size = self->sizes[p->pos[k]], stride = self->strides[p->pos[k]], cur = 0;
        for (int64_t b = 0; b < p->nb; b++) {
            int64_t v = data[cur];
            if (size == 0) /* PyTorch's own words for an empty dim */
                return ct_set_error(CT_ERR_INDEX,
                                    "index is out of bounds for dimension with size 0");
            if (v < -size || v >= size)
                return ct_set_error(CT_ERR_INDEX,
                                    "index %" PRId64 " is out of bounds for dimension %" PRId64
                                    " with size %" PRId64,
                                    v, k, size);
            off[b] += (v < 0 ? v + size : v) * stride;
            for (int64_t j = p->bnd - 1; j >= 0; j--) {
                cur += bst[j];
                if (++ctr[j] < p->bshape[j])
                    break;
                cur -= bst[j] * p->bshape[j];
                ctr[j] = 0;
            }
        }
    }
    return CT_OK;
}

/* ---- the gather ---------------------------------------------------------------------- */

typedef struct {
    const char *src;
    char *dst;
    size_t es;
    const int64_t *ooff, *ioff, *off; /* off NULL: read `direct` */
    const int64_t *direct;
    int64_t dsize, dstride;
    int64_t nb, ni;
    atomic_llong bad; /* the first out-of-range index seen, INT64_MIN if none */
    atomic_int failed;
} gather_ctx;

#define COPY_ELEM(es, d, s)                 \
    switch (es) {                           \
    case 1: memcpy(d, s, 1); break;         \
    case 2: memcpy(d, s, 2); break;         \
    case 4: memcpy(d, s, 4); break;         \
    case 8: memcpy(d, s, 8); break;         \
    case 16: memcpy(d, s, 16); break;       \
    default: memcpy(d, s, es); break;       \
    }

static void gather_fail(gather_ctx *c, int64_t v) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&c->failed, &expected, 1))
        atomic_store(&c->bad, v);
}

/* One index over one dim (x[idx] on a vector): the hot loop, typed by element size. */
#define GATHER_1D(T)                                                                        \
    do {                                                                                    \
        const T *src = (const T *)(const void *)c->src;                                     \
        T *dst = (T *)(void *)c->dst;                                                       \
        for (int64_t b = begin; b < end; b++) {                                             \
            int64_t v = c->direct[b], w = v < 0 ? v + c->dsize : v;                         \
            if ((uint64_t)w >= (uint64_t)c->dsize) {                                        \
                gather_fail(c, v);                                                          \
                return;                                                                     \
            }                                                                               \
            dst[b] = src[w * c->dstride];                                                   \
        }                                                                                   \
    } while (0)

static void gather_body(void *vctx, int64_t begin, int64_t end) {
    gather_ctx *c = vctx;
    size_t es = c->es;
    if (c->off == NULL && c->ni == 1 && c->ooff[0] == 0 && c->nb >= end) {
        if (es == 4) {
            GATHER_1D(uint32_t);
            return;
        }
        if (es == 8) {
            GATHER_1D(uint64_t);
            return;
        }
    }
    for (int64_t r = begin; r < end; r++) {
        int64_t o = r / c->nb, b = r % c->nb, boff;
        if (c->off != NULL)
            boff = c->off[b];
        else {
            int64_t v = c->direct[b];
            if (v < -c->dsize || v >= c->dsize) {
                gather_fail(c, v);
                return;
            }
            boff = (v < 0 ? v + c->dsize : v) * c->dstride;
        }
        const char *s = c->src + (c->ooff[o] + boff) * (int64_t)es;
        char *d = c->dst + r * c->ni * (int64_t)es;
        if (c->ni == 1 && es == 4) {
            memcpy(d, s, 4);
            continue;
        }
        for (int64_t i = 0; i < c->ni; i++) {
            COPY_ELEM(es, d + i * (int64_t)es, s + c->ioff[i] * (int64_t)es);
        }
    }
}

/* ---- masks over the leading dims of a contiguous tensor ------------------------------ */

static bool mask_fast(const ct_tensor *self, const ct_tensor *const *indices, size_t n) {
    if (n != 1 || indices[0] == NULL || !is_mask(indices[0]->dtype))
        return false;
    const ct_tensor *m = indices[0];
    if (m->ndim > self->ndim || m->device.type != CT_DEVICE_CPU ||
        !ct_tensor_is_contiguous(m, CT_MEMFMT_CONTIGUOUS) ||
        !ct_tensor_is_contiguous(self, CT_MEMFMT_CONTIGUOUS))
        return false;
    for (int64_t j = 0; j < m->ndim; j++)
        if (m->sizes[j] != self->sizes[j])
            return false;
    return true;
}

static ct_status mask_get(const ct_tensor *self, const ct_tensor *m, ct_tensor **out) {
    const unsigned char *md = ct_tensor_data_ptr(m);
    int64_t nm = m->numel, cnt = 0, block = 1;
    for (int64_t j = m->ndim; j < self->ndim; j++)
        block *= self->sizes[j];
    for (int64_t e = 0; e < nm; e++)
        cnt += md[e] != 0;
    int64_t sizes[CT_MAX_DIMS];
    sizes[0] = cnt;
    memcpy(sizes + 1, self->sizes + m->ndim, (size_t)(self->ndim - m->ndim) * sizeof(int64_t));
    CT_TRY(ct_tensor_empty(sizes, self->ndim - m->ndim + 1, self->dtype, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, out));
    size_t es = ct_dtype_itemsize(self->dtype), bb = (size_t)block * es;
    const char *src = ct_tensor_data_ptr(self);
    char *dst = ct_tensor_data_ptr(*out);
    if (bb == 4) {
        uint32_t *d4 = (uint32_t *)(void *)dst;
        const uint32_t *s4 = (const uint32_t *)(const void *)src;
        int64_t w = 0;
        /* branch-free; stops once every selected element is written (d4[cnt] is past
         * the end) */
        for (int64_t e = 0; e < nm && w < cnt; e++) {
            d4[w] = s4[e];
            w += md[e] != 0;
        }
        return CT_OK;
    }
    for (int64_t e = 0; e < nm; e++)
        if (md[e]) {
            memcpy(dst, src + (size_t)e * bb, bb);
            dst += bb;
        }
    return CT_OK;
}

typedef struct {
    char *dst;
    const unsigned char *mask, *value;
    size_t bb, es;
} mfill_ctx;

static void mask_fill_body(void *vctx, int64_t begin, int64_t end) {
    mfill_ctx *c = vctx;
    if (c->bb == 4) {
        uint32_t v, *d = (uint32_t *)(void *)c->dst;
        memcpy(&v, c->value, 4);
        for (int64_t e = begin; e < end; e++) { /* branch-free: vectorises */
            uint32_t mm = (uint32_t)0 - (uint32_t)(c->mask[e] != 0);
            d[e] = (d[e] & ~mm) | (v & mm);
        }
        return;
    }
    for (int64_t e = begin; e < end; e++)
        if (c->mask[e])
            for (size_t q = 0; q < c->bb; q += c->es)
                memcpy(c->dst + (size_t)e * c->bb + q, c->value, c->es);
}

/* ---- public ---------------------------------------------------------------------------- */

ct_status ct_tensor_index(const ct_tensor *self, const ct_tensor *const *indices, size_t n,
                          ct_tensor **out) {
    if (out == NULL || (indices == NULL && n > 0))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_index: NULL argument");
    *out = NULL;
    if (ct_index_stage_wanted(self, NULL, indices, n))
        return ct_index_staged_get(self, indices, n, out);
    CT_TRY(check_cpu(self, "ct_tensor_index"));
    if (mask_fast(self, indices, n))
        return mask_get(self, indices[0], out);
    ix_plan p;
    CT_TRY(plan_build(self, indices, n, &p));
    ct_status st = CT_OK;
    int64_t no = 0, ni = 0, *ooff = NULL, *ioff = NULL, *off = NULL;
    ct_tensor *r = NULL;
    if ((st = ct_tensor_empty(p.rsizes, p.rnd, self->dtype, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &r)) != CT_OK)
        goto fail;
    ooff = block_offsets(p.osizes, p.ostrides, p.ond, &no);
    ioff = block_offsets(p.isizes, p.istrides, p.ind, &ni);
    CT_CHECK(ooff != NULL && ioff != NULL, CT_ERR_NOMEM, "index: out of memory");
    if (r->numel > 0) {
        gather_ctx c = {.src = ct_tensor_data_ptr(self),
                        .dst = ct_tensor_data_ptr(r),
                        .es = ct_dtype_itemsize(self->dtype),
                        .ooff = ooff,
                        .ioff = ioff,
                        .nb = p.nb,
                        .ni = ni};
        atomic_init(&c.bad, INT64_MIN);
        atomic_init(&c.failed, 0);
        const ct_tensor *t0 = p.count == 1 ? p.idx[0] : NULL;
        if (t0 != NULL && t0->ndim == p.bnd && ct_tensor_is_contiguous(t0, CT_MEMFMT_CONTIGUOUS)) {
            c.direct = ct_tensor_data_ptr(t0);
            c.dsize = self->sizes[p.pos[0]];
            c.dstride = self->strides[p.pos[0]];
        } else {
            off = ct_alloc((size_t)(p.nb ? p.nb : 1) * sizeof(int64_t), 64);
            CT_CHECK(off != NULL, CT_ERR_NOMEM, "index: out of memory");
            if ((st = index_offsets(&p, off)) != CT_OK)
        goto fail;
            c.off = off;
        }
        int64_t grain = IX_GRAIN / (ni ? ni : 1);
        ct_parallel_for(0, no * p.nb, grain ? grain : 1, gather_body, &c);
        CT_CHECK(!atomic_load(&c.failed) || c.dsize != 0, CT_ERR_INDEX,
                 "index is out of bounds for dimension with size 0");
        CT_CHECK(!atomic_load(&c.failed), CT_ERR_INDEX,
                 "index %" PRId64 " is out of bounds for dimension 0 with size %" PRId64,
                 (int64_t)atomic_load(&c.bad), c.dsize);
    }
    *out = r;
    r = NULL;
fail:
    ct_tensor_release(r);
    ct_free(ooff, (size_t)(no ? no : 1) * sizeof(int64_t), 64);
    ct_free(ioff, (size_t)(ni ? ni : 1) * sizeof(int64_t), 64);
    ct_free(off, (size_t)(p.nb ? p.nb : 1) * sizeof(int64_t), 64);
    plan_free(&p);
    return st;
}

/* ---- index_put_ ------------------------------------------------------------------------ */

#define ACC_CASE(ENUM, T)                                                          \
    case ENUM:                                                                     \
        *(T *)(void *)d = (T)(*(T *)(void *)d + *(const T *)(const void *)s); \
        break;

static ct_status acc_elem(ct_dtype dt, char *d, const char *s) {
    switch (dt) {
        ACC_CASE(CT_FLOAT32, float)
        ACC_CASE(CT_FLOAT64, double)
        ACC_CASE(CT_INT64, int64_t)
        ACC_CASE(CT_INT32, int32_t)
        ACC_CASE(CT_INT16, int16_t)
        ACC_CASE(CT_INT8, int8_t)
        ACC_CASE(CT_UINT8, uint8_t)
    case CT_BOOL:
        *d = (char)(*d || *s);
        break;
    default:
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "index_put_ with accumulate=True is not implemented for %s",
                            ct_dtype_cpp_name(dt));
    }
    return CT_OK;
}

/* PyTorch's assert_no_overlap for index_put_: the values may not share bytes with self. */
static ct_status check_no_overlap(const ct_tensor *self, const ct_tensor *values) {
    if (self->numel == 0 || values->numel == 0 || self->storage == NULL ||
        values->storage == NULL || ct_storage_data(self->storage) == NULL ||
        ct_storage_data(self->storage) != ct_storage_data(values->storage) ||
        !ct_tensor_is_non_overlapping_and_dense(self) ||
        !ct_tensor_is_non_overlapping_and_dense(values))
        return CT_OK;
    const char *sb = ct_tensor_data_ptr(self), *vb = ct_tensor_data_ptr(values);
    const char *se = sb + self->numel * (int64_t)ct_dtype_itemsize(self->dtype);
    const char *ve = vb + values->numel * (int64_t)ct_dtype_itemsize(values->dtype);
    if (sb < ve && vb < se)
        return ct_set_error(CT_ERR_RUNTIME,
                            "unsupported operation: some elements of the input tensor and the "
                            "written-to tensor refer to a single memory location. Please clone() "
                            "the tensor before performing the operation.");
    return CT_OK;
}

ct_status ct_tensor_index_put_(ct_tensor *self, const ct_tensor *const *indices, size_t n,
                               const ct_tensor *values, bool accumulate) {
    if (indices == NULL && n > 0)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_index_put_: NULL argument");
    if (self != NULL && values != NULL && ct_index_stage_wanted(self, values, indices, n))
        return ct_index_staged_put(self, indices, n, values, accumulate);
    CT_TRY(check_cpu(self, "ct_tensor_index_put_"));
    CT_TRY(check_cpu(values, "ct_tensor_index_put_"));
    /* PyTorch's canDispatchToMaskedFill: one bool mask and a one-element value fill,
     * the value cast to self's dtype. */
    size_t defined = 0, masks = 0;
    for (size_t i = 0; i < n; i++) {
        defined += indices[i] != NULL;
        masks += indices[i] != NULL && is_mask(indices[i]->dtype);
    }
    if (!accumulate && defined == 1 && masks == 1 && values->numel == 1 &&
        (values->dtype != self->dtype || values->ndim != 0)) {
        ct_scalar v;
        ct_tensor *v0 = NULL;
        CT_TRY(ct_tensor_item(values, &v));
        CT_TRY(ct_tensor_scalar_tensor(v, self->dtype, NULL, &v0));
        ct_status st = ct_tensor_index_put_(self, indices, n, v0, false);
        ct_tensor_release(v0);
        return st;
    }
    if (values->dtype != self->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Index put requires the source and destination dtypes match, got "
                            "%s for the destination and %s for the source.",
                            ct_dtype_cpp_name(self->dtype), ct_dtype_cpp_name(values->dtype));
    size_t es = ct_dtype_itemsize(self->dtype);
    if (!accumulate && values->ndim == 0 && mask_fast(self, indices, n)) {
        const ct_tensor *m = indices[0];
        int64_t block = 1;
        for (int64_t j = m->ndim; j < self->ndim; j++)
            block *= self->sizes[j];
        mfill_ctx c = {.dst = ct_tensor_data_ptr(self),
                       .mask = ct_tensor_data_ptr(m),
                       .value = ct_tensor_data_ptr(values),
                       .bb = (size_t)block * es,
                       .es = es};
        ct_parallel_for(0, m->numel, IX_GRAIN, mask_fill_body, &c);
        return CT_OK;
    }
    if (!(values->ndim == 0 && masks == 1 && defined == 1))
        CT_TRY(check_no_overlap(self, values));
    ix_plan p;
    CT_TRY(plan_build(self, indices, n, &p));
    ct_status st = CT_OK;
    int64_t no = 0, ni = 0, *ooff = NULL, *ioff = NULL, *off = NULL;
    ct_tensor *ev = NULL, *cv = NULL;
    char a[256], b[256];
    bool ok = values->ndim <= p.rnd;
    for (int64_t j = 0; ok && j < values->ndim; j++) {
        int64_t vs = values->sizes[values->ndim - 1 - j], rs = p.rsizes[p.rnd - 1 - j];
        ok = vs == 1 || vs == rs;
    }
    CT_CHECK(ok, CT_ERR_RUNTIME,
             "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result "
             "of shape %s",
             ct_tensor_impl_shape_format(a, sizeof a, values->sizes, values->ndim),
             ct_tensor_impl_shape_format(b, sizeof b, p.rsizes, p.rnd));
    int64_t rnumel = 1;
    for (int64_t j = 0; j < p.rnd; j++)
        rnumel *= p.rsizes[j];
    if (rnumel == 0)
        goto fail; /* nothing to write (st is CT_OK) */
    if ((st = ct_tensor_expand(values, p.rsizes, p.rnd, &ev)) != CT_OK)
        goto fail;
    /* a private contiguous copy: the values may alias self */
    if ((st = ct_tensor_clone(ev, CT_MEMFMT_CONTIGUOUS, &cv)) != CT_OK)
        goto fail;
    ooff = block_offsets(p.osizes, p.ostrides, p.ond, &no);
    ioff = block_offsets(p.isizes, p.istrides, p.ind, &ni);
    off = ct_alloc((size_t)(p.nb ? p.nb : 1) * sizeof(int64_t), 64);
    CT_CHECK(ooff != NULL && ioff != NULL && off != NULL, CT_ERR_NOMEM, "index_put_: out of memory");
    if ((st = index_offsets(&p, off)) != CT_OK)
        goto fail;
    char *dst = ct_tensor_data_ptr(self);
    const char *src = ct_tensor_data_ptr(cv);
    int64_t r = 0;
    for (int64_t o = 0; o < no; o++)
        for (int64_t bb = 0; bb < p.nb; bb++)
            for (int64_t i = 0; i < ni; i++, r++) {
                char *d = dst + (ooff[o] + off[bb] + ioff[i]) * (int64_t)es;
                const char *s = src + r * (int64_t)es;
                if (accumulate) {
                    if ((st = acc_elem(self->dtype, d, s)) != CT_OK)
                        goto fail;
                } else {
                    COPY_ELEM(es, d, s);
                }
            }
fail:
    ct_tensor_release(ev);
    ct_tensor_release(cv);
    ct_free(ooff, (size_t)(no ? no : 1) * sizeof(int64_t), 64);
    ct_free(ioff, (size_t)(ni ? ni : 1) * sizeof(int64_t), 64);
    ct_free(off, (size_t)(p.nb ? p.nb : 1) * sizeof(int64_t), 64);
    plan_free(&p);
    return st;
}

/* ---- nonzero, masked_select, index_select ------------------------------------------------ */

/* self as a contiguous bool tensor (new reference). */
static ct_status as_bool(const ct_tensor *self, ct_tensor **out) {
    ct_tensor *b = NULL;
    CT_TRY(ct_tensor_to_dtype(self, CT_BOOL, &b));
    ct_status st = ct_tensor_contiguous(b, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(b);
    return st;
}

ct_status ct_tensor_nonzero(const ct_tensor *self, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_nonzero: out is NULL");
    *out = NULL;
    if (ct_stage_wanted(self))
        return ct_index_staged_op_run(CT_INDEX_STAGED_NONZERO, self, 0, NULL, NULL, out);
    CT_TRY(check_cpu(self, "ct_tensor_nonzero"));
    ct_tensor *b = NULL;
    CT_TRY(as_bool(self, &b));
    const unsigned char *md = ct_tensor_data_ptr(b);
    int64_t cnt = 0, nd = self->ndim;
    for (int64_t e = 0; e < b->numel; e++)
        cnt += md[e] != 0;
    /* column-major, as PyTorch's CPU nonzero: strides (1, cnt), so that each column (the
     * as_tuple / where(condition) results) is contiguous */
    int64_t sizes[2] = {nd, cnt}, tsizes[2] = {cnt, nd}, tstrides[2] = {1, cnt};
    ct_status st = ct_tensor_empty(sizes, 2, CT_INT64, NULL, CT_LAYOUT_STRIDED,
                                   CT_MEMFMT_CONTIGUOUS, out);
    if (st == CT_OK)
        st = ct_tensor_impl_resize(*out, tsizes, 2, tstrides);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    if (st == CT_OK) {
        int64_t *w = ct_tensor_data_ptr(*out), ctr[CT_MAX_DIMS] = {0}, row = 0;
        for (int64_t e = 0; e < b->numel; e++) {
            if (md[e]) {
                for (int64_t j = 0; j < nd; j++)
                    w[j * cnt + row] = ctr[j];
                row++;
            }
            for (int64_t j = nd - 1; j >= 0; j--) {
                if (++ctr[j] < self->sizes[j])
                    break;
                ctr[j] = 0;
            }
        }
    }
    ct_tensor_release(b);
    return st;
}

ct_status ct_tensor_masked_select(const ct_tensor *self, const ct_tensor *mask, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_masked_select: out is NULL");
    *out = NULL;
    if (ct_stage_wanted(self) || ct_stage_wanted(mask))
        return ct_index_staged_op_run(CT_INDEX_STAGED_MASKED_SELECT, self, 0, mask, NULL, out);
    CT_TRY(check_cpu(self, "ct_tensor_masked_select"));
    CT_TRY(check_cpu(mask, "ct_tensor_masked_select"));
    if (!is_mask(mask->dtype))
        return ct_set_error(CT_ERR_RUNTIME,
                            "masked_select: expected BoolTensor or ByteTensor for mask");
    int64_t nd = self->ndim > mask->ndim ? self->ndim : mask->ndim, shape[CT_MAX_DIMS];
    for (int64_t j = 0; j < nd; j++) {
        int64_t ja = self->ndim - nd + j, jb = mask->ndim - nd + j;
        int64_t sa = ja >= 0 ? self->sizes[ja] : 1, sb = jb >= 0 ? mask->sizes[jb] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%" PRId64
                                ") must match the size of tensor b (%" PRId64
                                ") at non-singleton dimension %" PRId64,
                                sb, sa, j); /* PyTorch names the mask first */
        shape[j] = sa == 1 ? sb : sa;
    }
    ct_tensor *es = NULL, *em = NULL, *cs = NULL, *cm = NULL, *flat_s = NULL, *flat_m = NULL;
    int64_t total = 1;
    for (int64_t j = 0; j < nd; j++)
        total *= shape[j];
    ct_status st = ct_tensor_expand(self, shape, nd, &es);
    if (st == CT_OK)
        st = ct_tensor_expand(mask, shape, nd, &em);
    if (st == CT_OK)
        st = ct_tensor_contiguous(es, CT_MEMFMT_CONTIGUOUS, &cs);
    if (st == CT_OK)
        st = ct_tensor_contiguous(em, CT_MEMFMT_CONTIGUOUS, &cm);
    if (st == CT_OK)
        st = ct_tensor_view(cs, &total, 1, &flat_s);
    if (st == CT_OK)
        st = ct_tensor_view(cm, &total, 1, &flat_m);
    if (st == CT_OK)
        st = mask_get(flat_s, flat_m, out);
    ct_tensor_release(es);
    ct_tensor_release(em);
    ct_tensor_release(cs);
    ct_tensor_release(cm);
    ct_tensor_release(flat_s);
    ct_tensor_release(flat_m);
    return st;
}

ct_status ct_tensor_index_select(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                                 ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_index_select: out is NULL");
    *out = NULL;
    if (ct_stage_wanted(self) || ct_stage_wanted(index))
        return ct_index_staged_op_run(CT_INDEX_STAGED_INDEX_SELECT, self, dim, index, NULL, out);
    CT_TRY(check_cpu(self, "ct_tensor_index_select"));
    CT_TRY(check_cpu(index, "ct_tensor_index_select"));
    if (index->ndim > 1)
        return ct_set_error(CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    if (index->dtype != CT_INT64 && index->dtype != CT_INT32)
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_select(): Expected dtype int32 or int64 for index");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, self->ndim, true, &d));
    ct_tensor *ix = NULL, *ix1 = NULL, *base = NULL;
    const ct_tensor *list[CT_MAX_DIMS] = {0};
    int64_t len = index->numel;
    ct_status st = ct_tensor_to_dtype(index, CT_INT64, &ix);
    if (st == CT_OK)
        st = ct_tensor_reshape(ix, &len, 1, &ix1);
    int64_t size = self->ndim == 0 ? 1 : self->sizes[d];
    if (st == CT_OK) {
        const int64_t *v = ct_tensor_data_ptr(ix1);
        int64_t stride = ix1->strides[0];
        for (int64_t e = 0; e < len && st == CT_OK; e++)
            if (v[e * stride] < 0 || v[e * stride] >= size)
                st = ct_set_error(CT_ERR_INDEX, "index out of range in self");
    }
    if (st == CT_OK)
        st = self->ndim == 0 ? ct_tensor_reshape(self, &size, 1, &base) : ct_tensor_alias(self, &base);
    if (st == CT_OK) {
        list[d] = ix1;
        st = ct_tensor_index(base, list, (size_t)d + 1, out);
    }
    if (st == CT_OK && self->ndim == 0) { /* a 0-dim self stays 0-dim */
        ct_tensor *r = *out;
        st = ct_tensor_view(r, NULL, 0, out);
        ct_tensor_release(r);
    }
    ct_tensor_release(ix);
    ct_tensor_release(ix1);
    ct_tensor_release(base);
    return st;
}

ct_status ct_tensor_take(const ct_tensor *self, const ct_tensor *index, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_take: out is NULL");
    *out = NULL;
    if (ct_stage_wanted(self) || ct_stage_wanted(index))
        return ct_index_staged_op_run(CT_INDEX_STAGED_TAKE, self, 0, index, NULL, out);
    CT_TRY(check_cpu(self, "ct_tensor_take"));
    CT_TRY(check_cpu(index, "ct_tensor_take"));
    if (index->dtype != CT_INT64)
        return ct_set_error(CT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got %s",
                            ct_dtype_cpp_name(index->dtype));
    ct_tensor *flat = NULL, *ci = NULL;
    int64_t all = self->numel;
    ct_status st = ct_tensor_reshape(self, &all, 1, &flat);
    if (st == CT_OK)
        st = ct_tensor_contiguous(index, CT_MEMFMT_CONTIGUOUS, &ci);
    if (st == CT_OK) {
        const int64_t *v = ct_tensor_data_ptr(ci);
        for (int64_t e = 0; e < ci->numel && st == CT_OK; e++)
            if (v[e] < -all || v[e] >= all)
                st = ct_set_error(CT_ERR_INDEX,
                                  "out of range: tried to access index %" PRId64
                                  " on a tensor of %" PRId64 " elements.",
                                  v[e], all);
    }
    if (st == CT_OK)
        st = ct_tensor_index(flat, LIST1(ci), 1, out);
    ct_tensor_release(flat);
    ct_tensor_release(ci);
    return st;
}

/* ---- out= forms ---------------------------------------------------------------------------- */

/* r (new reference, consumed) written into out as PyTorch's resize_output writes a result:
 * out keeps its geometry when its shape is r's, else takes r's shape and strides (with
 * PyTorch's warning when it had elements). */
static ct_status write_out(ct_status st, ct_tensor *r, ct_tensor *out) {
    if (st != CT_OK)
        return st;
    bool same = out->ndim == r->ndim;
    for (int32_t d = 0; same && d < r->ndim; d++)
        same = out->sizes[d] == r->sizes[d];
    int64_t old[CT_MAX_DIMS], old_numel = out->numel;
    int32_t old_ndim = out->ndim;
    memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
    if (!same)
        st = ct_tensor_impl_resize(out, r->sizes, r->ndim, r->strides);
    if (st == CT_OK && !same && old_numel > 0)
        ct_tensor_impl_warn_out_resized(old, old_ndim, r->sizes, r->ndim);
    if (st == CT_OK)
        st = ct_tensor_copy_(out, r);
    ct_tensor_release(r);
    return st;
}

ct_status ct_tensor_nonzero_out(const ct_tensor *self, ct_tensor *out) {
    if (self == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_nonzero_out: NULL argument");
    if (ct_stage_wanted(self) || ct_stage_wanted(out))
        return ct_index_staged_op_run(CT_INDEX_STAGED_NONZERO, self, 0, NULL, out, NULL);
    if (out->dtype != CT_INT64) /* PyTorch's words, without the space */
        return ct_set_error(CT_ERR_RUNTIME,
                            "nonzero: Expected out tensor to have scalar type Long but got "
                            "scalar type%s",
                            ct_dtype_cpp_name(out->dtype));
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_nonzero(self, &r);
    return write_out(st, r, out);
}

ct_status ct_tensor_index_select_out(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                                     ct_tensor *out) {
    if (self == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_index_select_out: NULL argument");
    if (ct_stage_wanted(self) || ct_stage_wanted(out) || ct_stage_wanted(index))
        return ct_index_staged_op_run(CT_INDEX_STAGED_INDEX_SELECT, self, dim, index, out, NULL);
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_index_select(self, dim, index, &r);
    if (st == CT_OK && out->dtype != self->dtype) {
        ct_tensor_release(r);
        return ct_set_error(CT_ERR_RUNTIME,
                            "index_select(): self and result must have the same scalar type");
    }
    return write_out(st, r, out);
}

ct_status ct_tensor_take_out(const ct_tensor *self, const ct_tensor *index, ct_tensor *out) {
    if (self == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_take_out: NULL argument");
    if (ct_stage_wanted(self) || ct_stage_wanted(out) || ct_stage_wanted(index))
        return ct_index_staged_op_run(CT_INDEX_STAGED_TAKE, self, 0, index, out, NULL);
    if (out->dtype != self->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "take(): self and out expected to have the same dtype, but got "
                            "self.dtype = %s and out.dtype = %s",
                            ct_dtype_cpp_name(self->dtype), ct_dtype_cpp_name(out->dtype));
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_take(self, index, &r);
    return write_out(st, r, out);
}

ct_status ct_tensor_masked_select_out(const ct_tensor *self, const ct_tensor *mask,
                                      ct_tensor *out) {
    if (self == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_masked_select_out: NULL argument");
    if (ct_stage_wanted(self) || ct_stage_wanted(out) || ct_stage_wanted(mask))
        return ct_index_staged_op_run(CT_INDEX_STAGED_MASKED_SELECT, self, 0, mask, out, NULL);
    if (out->dtype != self->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "masked_select(): self and result must have the same scalar type");
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_masked_select(self, mask, &r);
    return write_out(st, r, out);
}
