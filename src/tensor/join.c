/* cat and stack (include/ctensor/join.h).
 *
 * Note [cat]
 * The checks, output shape, dtype and memory format are PyTorch's cat_meta: 1-D tensors of
 * shape (0,) are skipped for everything but the dtype promotion, the dim wraps against the
 * first input that is not skipped, and the output's format is the inputs' common
 * suggest_memory_format. Each input is then copied into its slice of the output (narrow),
 * as PyTorch's cat_out does. On the host, inputs whose slice and own layout reduce to rows
 * of contiguous elements (every contiguous or channels-last input along any dim) are
 * converted by ct_convert in ONE parallel loop over all their elements, instead of one
 * parallel region per input: 64 inputs of 600 KB would otherwise each run serially below
 * the copy loop's threading threshold. The others go through the copy path (copy.c),
 * which converts, threads and handles devices itself.
 */
#include <inttypes.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "base/parallel.h"
#include "ctensor/join.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

/* Elements per parallel chunk of the row loop: 256 KiB of float32. */
#define CAT_GRAIN ((int64_t)1 << 16)

static bool cat_skipped(const ct_tensor *t) { return t->ndim == 1 && t->numel == 0; }

static bool same_device(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }

static ct_status check_list(const ct_tensor *const *tensors, size_t n, const char *fn) {
    if (n > 0 && tensors == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensors is NULL", fn);
    for (size_t i = 0; i < n; i++)
        CT_TRY(ct_tensor_impl_check(tensors[i], fn));
    return CT_OK;
}

/* The output geometry of cat (PyTorch's cat_meta), without out=. */
typedef struct cat_plan {
    size_t valid; /* the first input not skipped; n when all are */
    int64_t dim;
    int64_t sizes[CT_MAX_DIMS];
    int32_t ndim;
    ct_dtype dtype;
    ct_device device;
    ct_memory_format format;
} cat_plan;

static ct_memory_format cat_format(const ct_tensor *const *tensors, size_t n) {
    ct_memory_format format = CT_MEMFMT_CONTIGUOUS;
    for (size_t i = 0; i < n; i++) {
        ct_memory_format f = ct_tensor_suggest_memory_format(tensors[i], false);
        if (f == CT_MEMFMT_CONTIGUOUS || (i > 0 && f != format))
            return CT_MEMFMT_CONTIGUOUS;
        format = f;
    }
    return format;
}

static ct_status cat_prepare(const ct_tensor *const *tensors, size_t n, int64_t dim, cat_plan *p) {
    if (n == 0)
        return ct_set_error(CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    for (size_t i = 0; i < n; i++)
        if (tensors[i]->ndim == 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "zero-dimensional tensor (at position %zu) cannot be concatenated",
                                i);
    p->dtype = tensors[0]->dtype;
    for (size_t i = 1; i < n; i++)
        CT_TRY(ct_promote_types(p->dtype, tensors[i]->dtype, &p->dtype));
    p->format = cat_format(tensors, n);
    p->valid = n;
    for (size_t i = 0; i < n && p->valid == n; i++)
        if (!cat_skipped(tensors[i]))
            p->valid = i;
    p->device = tensors[0]->device;
    if (p->valid == n) { /* every input skipped: an empty 1-D result */
        p->ndim = 1;
        p->sizes[0] = 0;
        p->dim = dim;
        return CT_OK;
    }
    const ct_tensor *ref = tensors[p->valid];
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, ref->ndim, true, &p->dim));
    p->device = ref->device;
    p->ndim = ref->ndim;
    memcpy(p->sizes, ref->sizes, (size_t)ref->ndim * sizeof p->sizes[0]);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const ct_tensor *t = tensors[i];
        if (cat_skipped(t))
            continue;
        if (t->ndim != ref->ndim)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Tensors must have same number of dimensions: got %" PRId32
                                " and %" PRId32,
                                ref->ndim, t->ndim);
        for (int32_t d = 0; d < t->ndim; d++)
            if (d != p->dim && t->sizes[d] != ref->sizes[d])
                return ct_set_error(CT_ERR_RUNTIME,
                                    "Sizes of tensors must match except in dimension %" PRId64
                                    ". Expected size %" PRId64 " but got size %" PRId64
                                    " for tensor number %zu in the list.",
                                    p->dim, ref->sizes[d], t->sizes[d], i);
        if (!same_device(t->device, ref->device))
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected all tensors to be on the same device, but found at "
                                "least two devices, %s and %s!",
                                ct_device_type_name(ref->device.type),
                                ct_device_type_name(t->device.type));
        total += t->sizes[p->dim]; /* each bounded by its storage: no overflow in practice */
    }
    p->sizes[p->dim] = total;
    return CT_OK;
}

/* ---- copying the inputs --------------------------------------------------------------- */

/* One input as rows of contiguous elements: row r of length `len` goes from src + r * ss to
 * dst + r * ds (element strides). `first` is the index of its first element in the loop. */
typedef struct cat_rows {
    char *dst;
    const char *src;
    int64_t rows, len, ds, ss, first;
    ct_dtype st;
} cat_rows;

typedef struct cat_job {
    const cat_rows *r;
    size_t n;
    ct_dtype dt;
} cat_job;

/* Describe copying src into dst (same shape, host memory) as rows, if it reduces to them:
 * dims of size 1 dropped, dims in dst's memory order, neighbours merged where both operands
 * are contiguous across them; at most two dims left, the inner one of stride 1 in both. */
static bool as_rows(const ct_tensor *dst, const ct_tensor *src, cat_rows *out) {
    int32_t order[CT_MAX_DIMS], m = 0;
    for (int32_t d = 0; d < dst->ndim; d++)
        if (dst->sizes[d] != 1)
            order[m++] = d;
    /* insertion sort by dst stride, innermost first (m is tiny) */
    for (int32_t i = 1; i < m; i++)
        for (int32_t j = i; j > 0 && dst->strides[order[j]] < dst->strides[order[j - 1]]; j--) {
            int32_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    int64_t size[2] = {1, 1}, ds[2] = {1, 0}, ss[2] = {1, 0};
    int k = -1;
    for (int32_t i = 0; i < m; i++) {
        int32_t d = order[i];
        if (k >= 0 && dst->strides[d] == ds[k] * size[k] && src->strides[d] == ss[k] * size[k]) {
            size[k] *= dst->sizes[d];
            continue;
        }
        if (++k == 2)
            return false;
        size[k] = dst->sizes[d];
        ds[k] = dst->strides[d];
        ss[k] = src->strides[d];
    }
    if (k >= 0 && (ds[0] != 1 || ss[0] != 1))
        return false;
    *out = (cat_rows){
        .dst = ct_tensor_data_ptr(dst),
        .src = ct_tensor_data_ptr(src),
        .rows = size[1],
        .len = size[0],
        .ds = ds[1],
        .ss = ss[1],
        .st = src->dtype,
    };
    return true;
}

/* Elements [lo, hi) of the concatenated row inputs. */
static void cat_rows_run(void *ctx, int64_t lo, int64_t hi) {
    const cat_job *j = ctx;
    size_t dsz = ct_dtype_table[j->dt].itemsize;
    /* the first input reaching lo: binary search over the `first` offsets */
    size_t a = 0, b = j->n;
    while (b - a > 1) {
        size_t mid = (a + b) / 2;
        if (j->r[mid].first <= lo)
            a = mid;
        else
            b = mid;
    }
    for (size_t i = a; i < j->n && lo < hi; i++) {
        const cat_rows *r = &j->r[i];
        size_t ssz = ct_dtype_table[r->st].itemsize;
        int64_t end = r->first + r->rows * r->len;
        int64_t stop = hi < end ? hi : end;
        while (lo < stop) {
            int64_t k = lo - r->first, row = k / r->len, col = k % r->len;
            int64_t cnt = r->len - col < stop - lo ? r->len - col : stop - lo;
            char *d = r->dst + (size_t)(row * r->ds + col) * dsz;
            const char *s = r->src + (size_t)(row * r->ss + col) * ssz;
            /* same dtype: libc's memcpy (its large-copy stores); bool goes through the
             * conversion, which writes 0/1 as copy_ does. Cannot fail: the dtypes were
             * checked (float4 only with itself). */
            if (r->st == j->dt && j->dt != CT_BOOL)
                memcpy(d, s, (size_t)cnt * dsz);
            else
                (void)ct_convert(j->dt, d, r->st, s, (size_t)cnt);
            lo += cnt;
        }
    }
}

/* Copy every non-skipped input into its slice of `out` along p->dim. */
static ct_status cat_copy(const ct_tensor *const *tensors, size_t n, int64_t dim, ct_tensor *out) {
    if (out->numel == 0 || out->device.type == CT_DEVICE_META)
        return CT_OK;
    cat_rows *rows = ct_alloc(n * sizeof *rows, _Alignof(cat_rows));
    if (rows == NULL)
        return CT_ERR_NOMEM;
    size_t nrows = 0;
    int64_t offset = 0, total = 0;
    ct_status st = CT_OK;
    for (size_t i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *t = tensors[i];
        if (cat_skipped(t))
            continue;
        int64_t len = t->sizes[dim];
        ct_tensor *slice = NULL;
        st = ct_tensor_narrow(out, dim, offset, len, &slice);
        offset += len;
        if (st != CT_OK || t->numel == 0) {
            ct_tensor_release(slice);
            continue;
        }
        bool fast = out->device.type == CT_DEVICE_CPU && t->device.type == CT_DEVICE_CPU &&
                    (out->dtype == CT_FLOAT4_E2M1FN_X2) == (t->dtype == CT_FLOAT4_E2M1FN_X2) &&
                    as_rows(slice, t, &rows[nrows]);
        if (fast) {
            rows[nrows].first = total;
            total += t->numel;
            nrows++;
        } else {
            st = ct_tensor_impl_copy(slice, t, false);
        }
        ct_tensor_release(slice);
    }
    if (st == CT_OK && nrows > 0) {
        cat_job job = {.r = rows, .n = nrows, .dt = out->dtype};
        ct_parallel_for(0, total, CAT_GRAIN, cat_rows_run, &job);
    }
    ct_free(rows, n * sizeof *rows, _Alignof(cat_rows));
    return st;
}

/* ---- overlap (PyTorch's assert_no_internal_overlap / assert_no_overlap) ------------------ */

static size_t span_bytes(const ct_tensor *t) {
    int64_t last = 0;
    for (int32_t i = 0; i < t->ndim; i++)
        last += (t->sizes[i] - 1) * t->strides[i];
    return (size_t)(last + 1) * ct_dtype_table[t->dtype].itemsize;
}

static ct_status check_overlap(const ct_tensor *out, const ct_tensor *const *tensors, size_t n) {
    if (out->numel == 0 || out->device.type == CT_DEVICE_META)
        return CT_OK;
    if (!(out->flags & CT_TF_NON_OVERLAPPING_DENSE))
        for (int32_t i = 0; i < out->ndim; i++)
            if (out->sizes[i] > 1 && out->strides[i] == 0)
                return ct_set_error(
                    CT_ERR_RUNTIME,
                    "unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
    const char *o = ct_tensor_data_ptr(out);
    size_t ospan = span_bytes(out);
    for (size_t i = 0; i < n; i++) {
        const ct_tensor *t = tensors[i];
        /* PyTorch answers "too hard" (no error) unless both are non-overlapping and dense */
        if (t->numel == 0 || !same_device(t->device, out->device) ||
            !(t->flags & CT_TF_NON_OVERLAPPING_DENSE) ||
            !(out->flags & CT_TF_NON_OVERLAPPING_DENSE))
            continue;
        const char *s = ct_tensor_data_ptr(t);
        if (s < o + ospan && o < s + span_bytes(t))
            return ct_set_error(CT_ERR_RUNTIME,
                                "unsupported operation: some elements of the input tensor and "
                                "the written-to tensor refer to a single memory location. "
                                "Please clone() the tensor before performing the operation.");
    }
    return CT_OK;
}

/* ---- public ------------------------------------------------------------------------------ */

ct_status ct_tensor_cat(const ct_tensor *const *tensors, size_t n, int64_t dim, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_cat: out is NULL");
    *out = NULL;
    CT_TRY(check_list(tensors, n, "ct_tensor_cat"));
    cat_plan p;
    CT_TRY(cat_prepare(tensors, n, dim, &p));
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_empty(p.sizes, p.ndim, p.dtype, &p.device, CT_LAYOUT_STRIDED, p.format, &r));
    ct_status st = p.valid < n ? cat_copy(tensors, n, p.dim, r) : CT_OK;
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_tensor_cat_out(const ct_tensor *const *tensors, size_t n, int64_t dim,
                            ct_tensor *out) {
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_cat_out"));
    CT_TRY(check_list(tensors, n, "ct_tensor_cat_out"));
    cat_plan p;
    CT_TRY(cat_prepare(tensors, n, dim, &p));
    if (!ct_can_cast(p.dtype, out->dtype))
        return ct_set_error(CT_ERR_RUNTIME,
                            "torch.cat(): input types can't be cast to the desired output type %s",
                            ct_dtype_cpp_name(out->dtype));
    if (!same_device(p.device, out->device)) {
        char want[64], got[64];
        CT_TRY(ct_device_str(p.device, want, sizeof want));
        CT_TRY(ct_device_str(out->device, got, sizeof got));
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected out tensor to have device %s, but got %s instead", want, got);
    }
    /* a failure after the resize gives out its old geometry back */
    ct_tensor_impl_saved keep;
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = CT_OK;
    if (out->ndim != p.ndim ||
        memcmp(out->sizes, p.sizes, (size_t)p.ndim * sizeof p.sizes[0]) != 0) {
        int64_t old[CT_MAX_DIMS], strides[CT_MAX_DIMS];
        int32_t old_ndim = out->ndim;
        int64_t old_numel = out->numel;
        memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
        st = ct_memory_format_strides(p.format, p.sizes, p.ndim, strides);
        if (st == CT_OK)
            st = ct_tensor_impl_resize(out, p.sizes, p.ndim, strides);
        if (st == CT_OK && old_numel > 0)
            ct_tensor_impl_warn_out_resized(old, old_ndim, p.sizes, p.ndim);
    }
    if (st == CT_OK)
        st = check_overlap(out, tensors, n);
    if (st == CT_OK && p.valid < n)
        st = cat_copy(tensors, n, p.dim, out);
    if (st != CT_OK)
        ct_tensor_impl_restore(out, &keep);
    else
        ct_tensor_impl_saved_drop(&keep);
    return st;
}

/* stack's common part: the wrapped dim and the shape check (PyTorch's check_stack_inputs). */
static ct_status stack_prepare(const ct_tensor *const *tensors, size_t n, int64_t dim,
                               const char *fn, int64_t *wrapped) {
    CT_TRY(check_list(tensors, n, fn));
    if (n == 0)
        return ct_set_error(CT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    const ct_tensor *first = tensors[0];
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, first->ndim + 1, false, wrapped));
    for (size_t i = 1; i < n; i++) {
        const ct_tensor *t = tensors[i];
        if (t->ndim != first->ndim ||
            memcmp(t->sizes, first->sizes, (size_t)t->ndim * sizeof t->sizes[0]) != 0) {
            char a[400], b[400];
            return ct_set_error(CT_ERR_RUNTIME,
                                "stack expects each tensor to be equal size, but got %s at entry "
                                "0 and %s at entry %zu",
                                ct_tensor_impl_shape_format(a, sizeof a, first->sizes, first->ndim),
                                ct_tensor_impl_shape_format(b, sizeof b, t->sizes, t->ndim), i);
        }
    }
    return CT_OK;
}

/* The inputs unsqueezed at dim (new references in `views`). */
static ct_status unsqueeze_all(const ct_tensor *const *tensors, size_t n, int64_t dim,
                               ct_tensor ***views) {
    ct_tensor **v = ct_tensor_impl_list_alloc((int64_t)n);
    if (v == NULL)
        return CT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        ct_status st = ct_tensor_unsqueeze(tensors[i], dim, &v[i]);
        if (st != CT_OK) {
            ct_tensor_list_release(v, (int64_t)i);
            return st;
        }
    }
    *views = v;
    return CT_OK;
}

ct_status ct_tensor_stack(const ct_tensor *const *tensors, size_t n, int64_t dim, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_stack: out is NULL");
    *out = NULL;
    int64_t d;
    CT_TRY(stack_prepare(tensors, n, dim, "ct_tensor_stack", &d));
    const ct_tensor *first = tensors[0];
    if (d < first->ndim) { /* PyTorch's fast path: cat along d, then split d with a view */
        int64_t sizes[CT_MAX_DIMS];
        memcpy(sizes, first->sizes, (size_t)d * sizeof sizes[0]);
        sizes[d] = (int64_t)n;
        memcpy(sizes + d + 1, first->sizes + d, (size_t)(first->ndim - d) * sizeof sizes[0]);
        ct_tensor *c = NULL;
        CT_TRY(ct_tensor_cat(tensors, n, d, &c));
        ct_status st = ct_tensor_view(c, sizes, first->ndim + 1, out);
        ct_tensor_release(c);
        return st;
    }
    ct_tensor **v = NULL;
    CT_TRY(unsqueeze_all(tensors, n, d, &v));
    ct_status st = ct_tensor_cat((const ct_tensor *const *)v, n, d, out);
    ct_tensor_list_release(v, (int64_t)n);
    return st;
}

ct_status ct_tensor_stack_out(const ct_tensor *const *tensors, size_t n, int64_t dim,
                              ct_tensor *out) {
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_stack_out"));
    int64_t d;
    CT_TRY(stack_prepare(tensors, n, dim, "ct_tensor_stack_out", &d));
    ct_tensor **v = NULL;
    CT_TRY(unsqueeze_all(tensors, n, d, &v));
    ct_status st = ct_tensor_cat_out((const ct_tensor *const *)v, n, d, out);
    ct_tensor_list_release(v, (int64_t)n);
    return st;
}

void ct_tensor_list_release(ct_tensor **list, int64_t n) {
    if (list == NULL)
        return;
    for (int64_t i = 0; i < n; i++)
        ct_tensor_release(list[i]);
    ct_free(list, (size_t)(n > 0 ? n : 1) * sizeof *list, _Alignof(ct_tensor *));
}

ct_tensor **ct_tensor_impl_list_alloc(int64_t n) {
    /* at least one slot: an empty list is still a valid array to release */
    ct_tensor **v = ct_alloc((size_t)(n > 0 ? n : 1) * sizeof *v, _Alignof(ct_tensor *));
    if (v != NULL)
        memset(v, 0, (size_t)(n > 0 ? n : 1) * sizeof *v);
    return v;
}
