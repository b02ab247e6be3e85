/* Layout and memory-format names, and the stride arithmetic of memory formats:
 * contiguous and channels-last strides, contiguity tests, "strides like channels last",
 * suggest_memory_format and infer_dense_strides, as PyTorch computes them (c10's Contiguity.h
 * and MemoryFormat.h).
 *
 * Note [Channels-last ambiguity]
 * A tensor whose only non-trivial dims are N, or N and C, or H and W with C == 1 (NC11,
 * N1HW, 1C11, N111, and every empty tensor) is at once contiguous and channels-last
 * contiguous: contiguity ignores the strides of size-1 dims. PyTorch keeps both flags true,
 * and suggest_memory_format resolves the tie toward contiguous through two rules of
 * is_channels_last_strides_2d: a zero C stride is never channels last, and when N's stride
 * equals C's (N111 with all strides equal, or N11W sliced on W) it is NCHW. The "min *=
 * size only when size > 1" rule keeps N1H1 and 1C1W permutations apart. We reproduce those
 * rules exactly, since element-wise ops pick their output layout from them. */
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "tensor/tensor_impl.h"

/* ---- names ----------------------------------------------------------------------------- */

static const char *const layout_names[CT_NUM_LAYOUTS] = {"strided",    "sparse_coo", "sparse_csr",
                                                         "_mkldnn",    "sparse_csc", "sparse_bsr",
                                                         "sparse_bsc", "jagged"};
static const char *const layout_cpp_names[CT_NUM_LAYOUTS] = {
    "Strided", "Sparse", "SparseCsr", "Mkldnn", "SparseCsc", "SparseBsr", "SparseBsc", "Jagged"};
static const char *const memfmt_names[CT_NUM_MEMORY_FORMATS] = {
    "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
static const char *const memfmt_cpp_names[CT_NUM_MEMORY_FORMATS] = {
    "Contiguous", "Preserve", "ChannelsLast", "ChannelsLast3d"};

bool ct_layout_is_valid(ct_layout layout) {
    return (int)layout >= 0 && (int)layout < CT_NUM_LAYOUTS;
}
const char *ct_layout_name(ct_layout layout) {
    return ct_layout_is_valid(layout) ? layout_names[layout] : NULL;
}
const char *ct_layout_cpp_name(ct_layout layout) {
    return ct_layout_is_valid(layout) ? layout_cpp_names[layout] : NULL;
}
bool ct_memory_format_is_valid(ct_memory_format format) {
    return (int)format >= 0 && (int)format < CT_NUM_MEMORY_FORMATS;
}
const char *ct_memory_format_name(ct_memory_format format) {
    return ct_memory_format_is_valid(format) ? memfmt_names[format] : NULL;
}
const char *ct_memory_format_cpp_name(ct_memory_format format) {
    return ct_memory_format_is_valid(format) ? memfmt_cpp_names[format] : NULL;
}

/* ---- contiguity tests ------------------------------------------------------------------ */

/* Dims in memory order, innermost first: NCHW -> C, W, H, N; NCDHW -> C, W, H, D, N. */
static const int order_2d[4] = {1, 3, 2, 0};
static const int order_3d[5] = {1, 4, 3, 2, 0};

/* Walk `order` with expected = 1, skipping size-1 dims. Once `expected` overflows no later
 * stride can match it, so such a dim fails. */
static bool walk_contiguous(const int64_t *sizes, const int64_t *strides, const int *order,
                            int64_t n) {
    int64_t expected = 1;
    bool big = false;
    for (int64_t k = 0; k < n; k++) {
        int64_t d = order != NULL ? order[k] : n - 1 - k;
        if (sizes[d] == 1)
            continue;
        if (big || strides[d] != expected)
            return false;
        big = ct_checked_mul_i64(expected, sizes[d], &expected);
    }
    return true;
}

static bool compute_contiguous(const int64_t *sizes, const int64_t *strides, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (sizes[i] == 0)
            return true; /* no elements: any strides */
    return walk_contiguous(sizes, strides, NULL, n);
}

/* PyTorch's is_channels_last_strides_2d_s4 / _3d_s5 (see Note [Channels-last ambiguity]). */
static bool strides_like_cl(const int64_t *sizes, const int64_t *strides, const int *order, int n) {
    if (strides[1] == 0)
        return false;
    int64_t min = 0;
    for (int k = 0; k < n; k++) {
        int d = order[k];
        if (sizes[d] == 0 || strides[d] < min)
            return false;
        if (d == 0 && min == strides[1])
            return false;
        min = strides[d];
        if (sizes[d] > 1 && ct_checked_mul_i64(min, sizes[d], &min))
            min = INT64_MAX; /* nothing can come after an overflowing span anyway */
    }
    return true;
}

/* The general non-overlapping-and-dense test: sort the dims of size >= 2 by stride and
 * require each to continue where the previous ends. */
static bool compute_dense(const int64_t *sizes, const int64_t *strides, int64_t n) {
    int64_t perm[CT_MAX_DIMS];
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (sizes[i] < 2)
            continue;
        int64_t j = m++;
        while (j > 0 && strides[perm[j - 1]] > strides[i]) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = i;
    }
    int64_t required = 1;
    bool big = false;
    for (int64_t k = 0; k < m; k++) {
        if (big || strides[perm[k]] != required)
            return false;
        big = ct_checked_mul_i64(required, sizes[perm[k]], &required);
    }
    return true;
}

uint32_t ct_tensor_impl_memfmt_flags(const int64_t *sizes, const int64_t *strides, int64_t ndim) {
    uint32_t f = 0;
    bool contiguous = compute_contiguous(sizes, strides, ndim);
    bool cl = false, cl3d = false;
    if (contiguous)
        f |= CT_TF_CONTIGUOUS;
    /* Dims 0-3 are never channels-last 3d and only 4-D is channels-last 2d (PyTorch's
     * refresh_contiguous). */
    if (ndim == 4) {
        cl = walk_contiguous(sizes, strides, order_2d, 4);
        if (strides_like_cl(sizes, strides, order_2d, 4))
            f |= CT_TF_CHANNELS_LAST;
    } else if (ndim == 5) {
        cl3d = walk_contiguous(sizes, strides, order_3d, 5);
        if (strides_like_cl(sizes, strides, order_3d, 5))
            f |= CT_TF_CHANNELS_LAST_3D;
    }
    if (cl)
        f |= CT_TF_CL_CONTIGUOUS;
    if (cl3d)
        f |= CT_TF_CL3D_CONTIGUOUS;
    if (contiguous || cl || cl3d || compute_dense(sizes, strides, ndim))
        f |= CT_TF_NON_OVERLAPPING_DENSE;
    return f;
}

ct_memory_format ct_tensor_impl_memfmt_suggest(uint32_t flags, const int64_t *sizes,
                                               const int64_t *strides, int64_t ndim,
                                               bool exact_match) {
    ct_memory_format mf = CT_MEMFMT_CONTIGUOUS;
    if (flags & CT_TF_CHANNELS_LAST)
        mf = CT_MEMFMT_CHANNELS_LAST;
    else if (flags & CT_TF_CHANNELS_LAST_3D)
        mf = CT_MEMFMT_CHANNELS_LAST_3D;
    if (mf != CT_MEMFMT_CONTIGUOUS && exact_match) {
        int64_t s[5];
        if (ct_memory_format_strides(mf, sizes, ndim, s) != CT_OK)
            return CT_MEMFMT_CONTIGUOUS;
        if (memcmp(s, strides, (size_t)ndim * sizeof *s) != 0)
            return CT_MEMFMT_CONTIGUOUS;
    }
    return mf;
}

/* ---- public array functions ------------------------------------------------------------ */

static bool arrays_ok(const int64_t *sizes, const int64_t *strides, int64_t ndim) {
    return ndim >= 0 && ndim <= CT_MAX_DIMS && (ndim == 0 || (sizes != NULL && strides != NULL));
}

bool ct_strides_are_contiguous(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                               ct_memory_format format) {
    if (!arrays_ok(sizes, strides, ndim) || !ct_memory_format_is_valid(format))
        return false;
    uint32_t f = ct_tensor_impl_memfmt_flags(sizes, strides, ndim);
    switch (format) {
    case CT_MEMFMT_CHANNELS_LAST:
        return (f & CT_TF_CL_CONTIGUOUS) != 0;
    case CT_MEMFMT_CHANNELS_LAST_3D:
        return (f & CT_TF_CL3D_CONTIGUOUS) != 0;
    default:
        return (f & CT_TF_CONTIGUOUS) != 0;
    }
}

bool ct_strides_are_non_overlapping_and_dense(const int64_t *sizes, const int64_t *strides,
                                              int64_t ndim) {
    if (!arrays_ok(sizes, strides, ndim))
        return false;
    return (ct_tensor_impl_memfmt_flags(sizes, strides, ndim) & CT_TF_NON_OVERLAPPING_DENSE) != 0;
}

ct_memory_format ct_strides_suggest_memory_format(const int64_t *sizes, const int64_t *strides,
                                                  int64_t ndim, bool exact_match) {
    if (!arrays_ok(sizes, strides, ndim))
        return CT_MEMFMT_CONTIGUOUS;
    return ct_tensor_impl_memfmt_suggest(ct_tensor_impl_memfmt_flags(sizes, strides, ndim), sizes,
                                         strides, ndim, exact_match);
}

ct_status ct_memory_format_strides(ct_memory_format format, const int64_t *sizes, int64_t ndim,
                                   int64_t *strides) {
    if (!ct_memory_format_is_valid(format))
        return ct_set_error(CT_ERR_MISUSE, "invalid memory format value %d", (int)format);
    if (ndim > 0 && strides == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_memory_format_strides: strides is NULL");
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    switch (format) {
    case CT_MEMFMT_PRESERVE:
        return ct_set_error(CT_ERR_RUNTIME, "unsupported memory format Preserve");
    case CT_MEMFMT_CHANNELS_LAST:
        if (ndim != 4)
            return ct_set_error(CT_ERR_RUNTIME,
                                "required rank 4 tensor to use channels_last format");
        break;
    case CT_MEMFMT_CHANNELS_LAST_3D:
        if (ndim != 5)
            return ct_set_error(CT_ERR_RUNTIME,
                                "required rank 5 tensor to use channels_last_3d format");
        break;
    default: {
        /* contiguous: stride[i] = stride[i+1] * max(size[i+1], 1) */
        int64_t s[CT_MAX_DIMS];
        bool overflow = false;
        for (int64_t i = ndim - 1; i >= 0; i--) {
            if (i == ndim - 1)
                s[i] = 1;
            else
                overflow |=
                    ct_checked_mul_i64(s[i + 1], sizes[i + 1] > 1 ? sizes[i + 1] : 1, &s[i]);
        }
        if (overflow)
            return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
        if (ndim > 0)
            memcpy(strides, s, (size_t)ndim * sizeof *s);
        return CT_OK;
    }
    }
    /* channels last: no clamping of zero sizes ((2,0,4,5) -> (0,1,0,0)) */
    const int *order = ndim == 4 ? order_2d : order_3d;
    int64_t s[5], acc = 1;
    bool overflow = false;
    for (int64_t k = 0; k < ndim; k++) {
        s[order[k]] = acc;
        if (k + 1 < ndim)
            overflow |= ct_checked_mul_i64(acc, sizes[order[k]], &acc);
    }
    if (overflow)
        return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
    memcpy(strides, s, (size_t)ndim * sizeof *s);
    return CT_OK;
}

ct_status ct_infer_dense_strides(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                 int64_t *out) {
    if (!arrays_ok(sizes, strides, ndim) || (ndim > 0 && out == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_infer_dense_strides: bad arguments");
    if (ndim == 0)
        return CT_OK;
    if (ndim == 1) {
        out[0] = 1;
        return CT_OK;
    }
    /* perm starts as n-1, ..., 0 (innermost first) and is insertion-sorted with
     * TensorIterator's comparison: a zero stride on either side is ambiguous and never
     * moves a dim; equal strides put the smaller size first. */
    int64_t perm[CT_MAX_DIMS];
    for (int64_t i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int64_t i = 1; i < ndim; i++) {
        int64_t dim1 = i;
        for (int64_t j = 1; j <= i; j++) {
            int64_t dim0 = i - j;
            int64_t a = perm[dim0], b = perm[dim1];
            int cmp = 0;
            if (strides[a] != 0 && strides[b] != 0) {
                if (strides[a] < strides[b])
                    cmp = -1;
                else if (strides[a] > strides[b])
                    cmp = 1;
                else if (sizes[a] > sizes[b])
                    cmp = 1;
            }
            if (cmp > 0) {
                perm[dim0] = b;
                perm[dim1] = a;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    int64_t s[CT_MAX_DIMS], cur = 1;
    bool overflow = false;
    for (int64_t i = 0; i < ndim; i++) {
        s[perm[i]] = cur;
        if (sizes[perm[i]] > 1 && i + 1 < ndim)
            overflow |= ct_checked_mul_i64(cur, sizes[perm[i]], &cur);
    }
    if (overflow)
        return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
    memcpy(out, s, (size_t)ndim * sizeof *s);
    return CT_OK;
}
