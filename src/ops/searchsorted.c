/* searchsorted and bucketize (ctensor/search.h): torch 1.13's checks in its order, then both
 * operands as contiguous int64 (integer promotion) or float64 (floating) copies, which
 * compare exactly as the promoted dtype does (float32 stays float32), and one binary search
 * per value. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/error_impl.h"
#include "base/parallel.h"
#include "ctensor/search.h"
#include "dtype/table_impl.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

/* Accelerators' tensors were staged before (search_staged): this refuses meta ones. */
static ct_status check(const ct_tensor *t, const char *fn) {
    CT_TRY(ct_tensor_impl_check(t, fn));
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported", fn);
    if (t->device.type != CT_DEVICE_CPU)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet", fn,
                            ct_device_type_name(t->device.type));
    return CT_OK;
}

static bool searchable(ct_dtype d) {
    switch (d) {
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_FLOAT32:
    case CT_FLOAT64: return true;
    default: return false;
    }
}

typedef struct {
    const void *bd, *vals;
    const int64_t *sorter;
    void *out;
    int64_t len;   /* boundaries per row */
    int64_t per;   /* values per row; 0: one row for all */
    ct_dtype dt; /* int64, float32 or float64 */
    bool right, out32;
    atomic_int bad_sorter;
} ss_ctx;

/* PyTorch's cus_lower_bound / cus_upper_bound: !(b >= v) / !(b > v) moves right. */
#define SEARCH(T)                                                                            \
    do {                                                                                     \
        const T *bd = (const T *)c->bd, *vs = (const T *)c->vals;                            \
        for (int64_t e = begin; e < end; e++) {                                              \
            int64_t row = c->per ? e / c->per : 0, lo = 0, hi = c->len;                      \
            const T *b = bd + row * c->len;                                                  \
            const int64_t *srt = c->sorter ? c->sorter + row * c->len : NULL;                \
            T v = vs[e];                                                                     \
            while (lo < hi) {                                                                \
                int64_t mid = lo + (hi - lo) / 2, at = mid;                                  \
                if (srt != NULL) {                                                           \
                    at = srt[mid];                                                           \
                    if (at < 0 || at >= c->len) {                                            \
                        atomic_store(&c->bad_sorter, 1);                                     \
                        return;                                                              \
                    }                                                                        \
                }                                                                            \
                T m = b[at];                                                                 \
                bool go_right = c->right ? !(m > v) : !(m >= v);                             \
                if (go_right)                                                                \
                    lo = mid + 1;                                                            \
                else                                                                         \
                    hi = mid;                                                                \
            }                                                                                \
            if (c->out32)                                                                    \
                ((int32_t *)c->out)[e] = (int32_t)lo;                                        \
            else                                                                             \
                ((int64_t *)c->out)[e] = lo;                                                 \
        }                                                                                    \
    } while (0)

static void ss_body(void *vctx, int64_t begin, int64_t end) {
    ss_ctx *c = vctx;
    if (c->dt == CT_FLOAT64)
        SEARCH(double);
    else if (c->dt == CT_FLOAT32)
        SEARCH(float);
    else
        SEARCH(int64_t);
}

/* Contiguous copy of t in dtype d (new reference). */
static ct_status as_contig(const ct_tensor *t, ct_dtype d, ct_tensor **out) {
    ct_tensor *c = NULL;
    CT_TRY(ct_tensor_to_dtype(t, d, &c));
    ct_status st = ct_tensor_contiguous(c, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(c);
    return st;
}

#define PRE "torch.searchsorted(): "

/* On an accelerator: the cpu op on host mirrors of its tensors (Note [Staging through host
 * memory] in tensor/stage.h), which must all be on one device, as PyTorch's device check
 * wants. `boundaries` NULL: searchsorted, else bucketize. */
static ct_status search_staged(const ct_tensor *bnd, const ct_tensor *input, bool out_int32,
                               bool right, const char *side, const ct_tensor *sorter,
                               const ct_tensor *boundaries, ct_tensor *out, ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, boundaries != NULL ? "bucketize" : "searchsorted");
    /* in PyTorch's argument order, which its device error follows */
    int kb = boundaries != NULL ? -1 : ct_stage_add(&s, bnd, 0);
    int ki = ct_stage_add(&s, input, 0);
    if (boundaries != NULL)
        kb = ct_stage_add(&s, boundaries, 0);
    int ks = ct_stage_add(&s, sorter, 0), ko = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK && boundaries != NULL)
        st = ct_bucketize(ct_stage_host(&s, ki), ct_stage_host(&s, kb), out_int32, right,
                          ct_stage_host(&s, ko), &h);
    else if (st == CT_OK)
        st = ct_searchsorted(ct_stage_host(&s, kb), ct_stage_host(&s, ki), out_int32, right,
                             side, ct_stage_host(&s, ks), ct_stage_host(&s, ko), &h);
    return ct_stage_finish(&s, st, h, result);
}

ct_status ct_searchsorted(const ct_tensor *bnd, const ct_tensor *input, bool out_int32,
                          bool right, const char *side, const ct_tensor *sorter, ct_tensor *out,
                          ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_searchsorted: result is NULL");
    *result = NULL;
    if (ct_stage_wanted(bnd) || ct_stage_wanted(input) || ct_stage_wanted(sorter) ||
        ct_stage_wanted(out))
        return search_staged(bnd, input, out_int32, right, side, sorter, NULL, out, result);
    CT_TRY(check(bnd, "searchsorted"));
    CT_TRY(check(input, "searchsorted"));
    if (sorter != NULL)
        CT_TRY(check(sorter, "searchsorted"));
    if (out != NULL)
        CT_TRY(check(out, "searchsorted"));
    char a[256], b[256];
    if (side != NULL) {
        bool is_left = strcmp(side, "left") == 0, is_right = strcmp(side, "right") == 0;
        if (!is_left && !is_right)
            return ct_set_error(CT_ERR_RUNTIME, PRE "side can only be 'left' or 'right' but got %s",
                                side);
        if (right && !is_right)
            return ct_set_error(CT_ERR_RUNTIME,
                                PRE "side and right can't be set to opposites, got side of %s "
                                    "while right was True",
                                side);
        right = is_right;
    }
    if (sorter != NULL) {
        bool same = sorter->ndim == bnd->ndim;
        for (int64_t j = 0; same && j < bnd->ndim; j++)
            same = sorter->sizes[j] == bnd->sizes[j];
        if (!same)
            return ct_set_error(CT_ERR_RUNTIME,
                                PRE "boundary and sorter must have the same size, but got "
                                    "boundary tensor %sand got sorter tensor %s",
                                ct_tensor_impl_shape_format(a, sizeof a, bnd->sizes, bnd->ndim),
                                ct_tensor_impl_shape_format(b, sizeof b, sorter->sizes, sorter->ndim));
        if (sorter->dtype != CT_INT64)
            return ct_set_error(CT_ERR_RUNTIME,
                                PRE "sorter must be a tensor of long dtype but got dtype %s",
                                ct_dtype_cpp_name(sorter->dtype));
    }
    if (!(input->ndim > 0 || (input->numel == 1 && bnd->ndim == 1)))
        return ct_set_error(CT_ERR_RUNTIME,
                            PRE "input value can be a scalar only when boundaries tensor dimension "
                                "is 1, but we got boundaries tensor dim(%lld) and input value's "
                                "dim(%lld) numel(%lld)",
                            (long long)bnd->ndim, (long long)input->ndim, (long long)input->numel);
    if (bnd->ndim == 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            PRE "boundaries tensor should have positive dimension, but got 0 "
                                "dimension");
    bool matched = bnd->ndim == input->ndim;
    for (int64_t j = 0; matched && j + 1 < bnd->ndim; j++)
        matched = bnd->sizes[j] == input->sizes[j];
    if (bnd->ndim != 1 && !matched)
        return ct_set_error(CT_ERR_RUNTIME,
                            PRE "boundaries tensor should be 1 dimension or the first N-1 "
                                "dimensions of boundaries tensor and input value tensor must "
                                "match, but we got boundaries tensor %s and input value tensor %s",
                            ct_tensor_impl_shape_format(a, sizeof a, bnd->sizes, bnd->ndim),
                            ct_tensor_impl_shape_format(b, sizeof b, input->sizes, input->ndim));
    ct_dtype odt = out_int32 ? CT_INT32 : CT_INT64;
    if (out != NULL && out->dtype != odt)
        return ct_set_error(CT_ERR_RUNTIME,
                            PRE "output tensor's dtype is wrong, it can only be Int(int32) or "
                                "Long(int64) depending on whether out_int32 flag is True, but we "
                                "got output tensor's dtype %s and out_int32 flag is %s",
                            ct_dtype_cpp_name(out->dtype), out_int32 ? "True" : "False");
    int64_t len = bnd->sizes[bnd->ndim - 1];
    if (out_int32 && len >= INT32_MAX)
        return ct_set_error(CT_ERR_RUNTIME,
                            PRE "the size of boundaries' last dimension should be less than "
                                "2147483647, but we got %lld",
                            (long long)len);
    ct_tensor *r = NULL, *cb = NULL, *cv = NULL, *cs = NULL;
    CT_TRY(ct_tensor_empty(input->sizes, input->ndim, odt, NULL, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, &r));
    ct_status st = CT_OK;
    if (input->numel > 0) {
        ct_dtype common;
        st = ct_promote_types(bnd->dtype, input->dtype, &common);
        if (st == CT_OK && !searchable(common))
            st = ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                              "\"searchsorted_out_cpu\" not implemented for '%s'",
                              ct_dtype_impl_msg_name(common));
        /* float32 searches as itself (half the memory traffic); the other floats compare
         * exactly as float64, integers as int64 */
        ct_dtype sdt = common == CT_FLOAT32                  ? CT_FLOAT32
                       : ct_dtype_is_floating_point(common) ? CT_FLOAT64
                                                            : CT_INT64;
        if (st == CT_OK)
            st = as_contig(bnd, sdt, &cb);
        if (st == CT_OK)
            st = as_contig(input, sdt, &cv);
        if (st == CT_OK && sorter != NULL)
            st = ct_tensor_contiguous(sorter, CT_MEMFMT_CONTIGUOUS, &cs);
        if (st == CT_OK) {
            ss_ctx c = {.bd = ct_tensor_data_ptr(cb),
                        .vals = ct_tensor_data_ptr(cv),
                        .sorter = cs != NULL ? ct_tensor_data_ptr(cs) : NULL,
                        .out = ct_tensor_data_ptr(r),
                        .len = len,
                        .per = bnd->ndim == 1 ? 0 : input->sizes[input->ndim - 1],
                        .dt = sdt,
                        .right = right,
                        .out32 = out_int32};
            atomic_init(&c.bad_sorter, 0);
            ct_parallel_for(0, input->numel, 4096, ss_body, &c);
            if (atomic_load(&c.bad_sorter))
                st = ct_set_error(CT_ERR_RUNTIME, PRE "sorter index out of range");
        }
    }
    ct_tensor_release(cb);
    ct_tensor_release(cv);
    ct_tensor_release(cs);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    if (out == NULL) {
        *result = r;
        return CT_OK;
    }
    st = ct_reduce_impl_fill_out(out, r);
    ct_tensor_release(r);
    if (st == CT_OK)
        *result = ct_tensor_retain(out);
    return st;
}

ct_status ct_bucketize(const ct_tensor *input, const ct_tensor *boundaries, bool out_int32,
                       bool right, ct_tensor *out, ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_bucketize: result is NULL");
    *result = NULL;
    if (ct_stage_wanted(input) || ct_stage_wanted(boundaries) || ct_stage_wanted(out))
        return search_staged(NULL, input, out_int32, right, NULL, NULL, boundaries, out, result);
    CT_TRY(check(boundaries, "bucketize"));
    if (boundaries->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME, "boundaries tensor must be 1 dimension, but got dim(%lld)",
                            (long long)boundaries->ndim);
    return ct_searchsorted(boundaries, input, out_int32, right, NULL, NULL, out, result);
}
