/* Views that split or reorder a tensor (include/ctensor/join.h): split, split_with_sizes,
 * chunk, unbind, unflatten, movedim. Messages and edge cases are PyTorch 1.13's. */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/join.h"
#include "tensor/tensor_impl.h"

static ct_status begin_list(const ct_tensor *t, ct_tensor ***out, int64_t *n, const char *fn) {
    if (out == NULL || n == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    *n = 0;
    return ct_tensor_impl_check(t, fn);
}

/* narrow views of t along d of the given lengths (all checked by the caller). */
static ct_status narrow_all(const ct_tensor *t, int64_t d, const int64_t *lens, int64_t count,
                            int64_t split_size, ct_tensor ***out, int64_t *n) {
    ct_tensor **v = ct_tensor_impl_list_alloc(count);
    if (v == NULL)
        return CT_ERR_NOMEM;
    int64_t start = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t len = lens != NULL ? lens[i] : split_size;
        if (lens == NULL && start + len > t->sizes[d])
            len = t->sizes[d] - start;
        ct_status st = ct_tensor_narrow(t, d, start, len, &v[i]);
        if (st != CT_OK) {
            ct_tensor_list_release(v, count);
            return st;
        }
        start += len;
    }
    *out = v;
    *n = count;
    return CT_OK;
}

ct_status ct_tensor_split(const ct_tensor *t, int64_t split_size, int64_t dim, ct_tensor ***out,
                          int64_t *n) {
    CT_TRY(begin_list(t, out, n, "ct_tensor_split"));
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    if (split_size < 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "split expects split_size be non-negative, but got split_size=%" PRId64,
                            split_size);
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    int64_t size = t->sizes[d];
    if (split_size == 0 && size != 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "split_size can only be 0 if dimension size is 0, but got dimension "
                            "size of %" PRId64,
                            size);
    /* at least one piece, even of an empty dim */
    int64_t count = split_size == 0 ? 1 : (size + split_size - 1) / split_size;
    if (count < 1)
        count = 1;
    return narrow_all(t, d, NULL, count, split_size, out, n);
}

ct_status ct_tensor_split_with_sizes(const ct_tensor *t, const int64_t *sizes, int64_t nsizes,
                                     int64_t dim, ct_tensor ***out, int64_t *n) {
    CT_TRY(begin_list(t, out, n, "ct_tensor_split_with_sizes"));
    if (nsizes < 0 || (nsizes > 0 && sizes == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_split_with_sizes: invalid sizes");
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    char buf[400];
    int64_t sum = 0;
    bool negative = false, overflow = false;
    for (int64_t i = 0; i < nsizes; i++) {
        negative = negative || sizes[i] < 0;
        if (sizes[i] > 0 && sum > INT64_MAX - sizes[i])
            overflow = true;
        else
            sum += sizes[i];
    }
    if (negative)
        return ct_set_error(CT_ERR_RUNTIME,
                            "split_with_sizes expects split_sizes have only non-negative entries, "
                            "but got split_sizes=%s",
                            ct_tensor_impl_shape_format(buf, sizeof buf, sizes, nsizes));
    if (overflow || sum != t->sizes[d])
        return ct_set_error(
            CT_ERR_RUNTIME,
            "split_with_sizes expects split_sizes to sum exactly to %" PRId64
            " (input tensor's size at dimension %" PRId64 "), but got split_sizes=%s",
            t->sizes[d], d, ct_tensor_impl_shape_format(buf, sizeof buf, sizes, nsizes));
    return narrow_all(t, d, sizes, nsizes, 0, out, n);
}

ct_status ct_tensor_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor ***out,
                          int64_t *n) {
    CT_TRY(begin_list(t, out, n, "ct_tensor_chunk"));
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "chunk expects `chunks` to be greater than 0, got: %" PRId64, chunks);
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    int64_t size = t->sizes[d];
    int64_t split_size = size / chunks + (size % chunks != 0);
    if (split_size == 0 && size == 0) { /* `chunks` empty pieces, as PyTorch */
        if (chunks > (int64_t)1 << 40)
            return ct_set_error(CT_ERR_NOMEM, "chunk: too many chunks (%" PRId64 ")", chunks);
        return narrow_all(t, d, NULL, chunks, 0, out, n);
    }
    return ct_tensor_split(t, split_size, d, out, n);
}

ct_status ct_tensor_unbind(const ct_tensor *t, int64_t dim, ct_tensor ***out, int64_t *n) {
    CT_TRY(begin_list(t, out, n, "ct_tensor_unbind"));
    int64_t d;
    /* a 0-dim tensor: dim checked as for one dim, then PyTorch's "no dimensions" error */
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    int64_t count = t->sizes[d];
    ct_tensor **v = ct_tensor_impl_list_alloc(count);
    if (v == NULL)
        return CT_ERR_NOMEM;
    for (int64_t i = 0; i < count; i++) {
        ct_status st = ct_tensor_select(t, d, i, &v[i]);
        if (st != CT_OK) {
            ct_tensor_list_release(v, count);
            return st;
        }
    }
    *out = v;
    *n = count;
    return CT_OK;
}

ct_status ct_tensor_unflatten(const ct_tensor *t, int64_t dim, const int64_t *sizes, int64_t nsizes,
                              ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_unflatten: out is NULL");
    *out = NULL;
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_unflatten"));
    if (nsizes < 0 || (nsizes > 0 && sizes == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_unflatten: invalid sizes");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    if (nsizes == 0)
        return ct_set_error(CT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
    if (t->ndim - 1 + nsizes > CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE,
                            "maximum supported dimension for a tensor is %d, found %" PRId64,
                            CT_MAX_DIMS, t->ndim - 1 + nsizes);
    int64_t size = t->ndim == 0 ? 1 : t->sizes[d];
    /* PyTorch's infer_size on the given sizes against the dim's size */
    int64_t prod = 1, infer = -1;
    for (int64_t i = 0; i < nsizes; i++) {
        if (sizes[i] == -1) {
            if (infer >= 0)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "unflatten got an unexpected error:\nonly one dimension can "
                                    "be inferred");
            infer = i;
        } else if (sizes[i] < 0) {
            return ct_set_error(CT_ERR_RUNTIME,
                                "unflatten got an unexpected error:\ninvalid shape dimension "
                                "%" PRId64,
                                sizes[i]);
        } else if (sizes[i] != 0 && prod > INT64_MAX / sizes[i]) {
            prod = -1; /* cannot match any size */
            break;
        } else {
            prod *= sizes[i];
        }
    }
    bool ok = infer >= 0 ? prod > 0 && size % prod == 0 : prod == size;
    if (!ok) {
        char buf[400];
        return ct_set_error(CT_ERR_RUNTIME,
                            "unflatten: Provided sizes %s don't multiply up to the size of dim "
                            "%" PRId64 " (%" PRId64 ") in the input tensor",
                            ct_tensor_impl_shape_format(buf, sizeof buf, sizes, nsizes), dim, size);
    }
    int64_t shape[CT_MAX_DIMS];
    int64_t k = 0;
    for (int64_t i = 0; i < d; i++)
        shape[k++] = t->sizes[i];
    for (int64_t i = 0; i < nsizes; i++)
        shape[k++] = i == infer ? size / prod : sizes[i];
    for (int64_t i = d + 1; i < t->ndim; i++)
        shape[k++] = t->sizes[i];
    return ct_tensor_view(t, shape, k, out);
}

ct_status ct_tensor_movedim(const ct_tensor *t, const int64_t *source, int64_t nsource,
                            const int64_t *destination, int64_t ndest, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_movedim: out is NULL");
    *out = NULL;
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_movedim"));
    if (nsource < 0 || ndest < 0 || (nsource > 0 && source == NULL) ||
        (ndest > 0 && destination == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_movedim: invalid dims");
    char a[400], b[400];
    if (nsource != ndest)
        return ct_set_error(CT_ERR_RUNTIME,
                            "movedim: Invalid source or destination dims: source (%s dims) should "
                            "contain the same number of dims as destination (%s dims)",
                            ct_tensor_impl_shape_format(a, sizeof a, source, nsource),
                            ct_tensor_impl_shape_format(b, sizeof b, destination, ndest));
    int64_t ndims = nsource, n = t->ndim, w;
    for (int64_t i = 0; i < ndims; i++)
        CT_TRY(ct_tensor_impl_shape_wrap_dim(source[i], n, true, &w));
    for (int64_t i = 0; i < ndims; i++)
        CT_TRY(ct_tensor_impl_shape_wrap_dim(destination[i], n, true, &w));
    /* wrapped dims lie in [0, 64]: a list longer than that repeats one, found below */
    bool src_seen[CT_MAX_DIMS + 1] = {false}, dst_seen[CT_MAX_DIMS + 1] = {false};
    int64_t order[CT_MAX_DIMS];
    for (int64_t i = 0; i < n; i++)
        order[i] = -1;
    for (int64_t i = 0; i < ndims; i++) {
        (void)ct_tensor_impl_shape_wrap_dim(source[i], n, true, &w);
        if (src_seen[w])
            return ct_set_error(CT_ERR_RUNTIME, "movedim: repeated dim in `source` (%s)",
                                ct_tensor_impl_shape_format(a, sizeof a, source, ndims));
        src_seen[w] = true;
    }
    for (int64_t i = 0; i < ndims; i++) {
        int64_t sw;
        (void)ct_tensor_impl_shape_wrap_dim(destination[i], n, true, &w);
        if (dst_seen[w])
            return ct_set_error(CT_ERR_RUNTIME, "movedim: repeated dim in `destination` (%s)",
                                ct_tensor_impl_shape_format(b, sizeof b, destination, ndims));
        dst_seen[w] = true;
        (void)ct_tensor_impl_shape_wrap_dim(source[i], n, true, &sw);
        if (n > 0)
            order[w] = sw; /* order[dst[i]] = src[i] */
    }
    if (n == 0)
        return ct_tensor_alias(t, out);
    /* the remaining destinations take the remaining sources in order */
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) {
        if (order[i] >= 0)
            continue;
        while (src_seen[next])
            next++;
        order[i] = next++;
    }
    return ct_tensor_permute(t, order, n, out);
}
