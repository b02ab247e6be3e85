/* tril and triu (include/ctensor/triangle.h), with PyTorch 1.13's shapes and messages.
 *
 * The result is the input copied by the copy path (threaded, any strides, any dtype), then
 * the elements outside the triangle zeroed in place, row by row of the last two dims. The
 * in-place forms only zero; out= resizes as PyTorch's resize_output and puts out's old
 * geometry back when a later step fails. Zero is all-zero bytes (zero_'s pattern), so no
 * value is read or converted. On accelerators each form runs on host mirrors of its tensors
 * (Note [Staging through host memory]). */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/triangle.h"
#include "dtype/table_impl.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

static bool same_device(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }

/* PyTorch wraps dim -2 first (a 1-D input fails there) unless t is empty (1.13 returns
 * before looking). Accelerator tensors get here only as the input of an out= that is not
 * staged with them (another device or layout), which tri_out refuses before touching data. */
static ct_status check_input(const ct_tensor *t, const char *fn) {
    CT_TRY(ct_tensor_impl_check(t, fn));
    int64_t d;
    if (t->numel > 0)
        CT_TRY(ct_tensor_impl_shape_wrap_dim(-2, t->ndim, false, &d));
    if (t->device.type != CT_DEVICE_CPU && t->device.type != CT_DEVICE_META &&
        !ct_stage_wanted(t))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on device %s", fn,
                            ct_device_type_name(t->device.type));
    return CT_OK;
}

/* Zero n elements `stride` elements apart (stride 1: one memset). */
static void zero_run(char *p, int64_t n, int64_t stride, size_t isz) {
    if (n <= 0)
        return;
    if (stride == 1) {
        memset(p, 0, (size_t)n * isz);
        return;
    }
    for (int64_t j = 0; j < n; j++)
        memset(p + j * stride * (int64_t)isz, 0, isz);
}

/* Zero the elements of host tensor t outside the triangle: lower keeps j <= i + k, upper
 * keeps j >= i + k, for row i and column j of the last two dims. */
static void zero_outside(ct_tensor *t, int64_t k, bool lower) {
    if (t->numel == 0 || t->device.type == CT_DEVICE_META)
        return; /* also every 0-D or 1-D t that got here */
    int32_t nd = t->ndim;
    int64_t rows = t->sizes[nd - 2], cols = t->sizes[nd - 1];
    int64_t rs = t->strides[nd - 2], cs = t->strides[nd - 1];
    size_t isz = ct_dtype_table[t->dtype].itemsize;
    int64_t batch = t->numel / (rows * cols), idx[CT_MAX_DIMS] = {0};
    char *base = ct_tensor_data_ptr(t);
    /* past the corners every row is all kept or all zeroed: clamping keeps i + k in range */
    if (k > cols)
        k = cols;
    if (k < -rows)
        k = -rows;
    for (int64_t b = 0; b < batch; b++) {
        int64_t off = 0; /* element offset of this matrix: the batch index's strides */
        for (int32_t d = 0; d < nd - 2; d++)
            off += idx[d] * t->strides[d];
        char *m = base + off * (int64_t)isz;
        for (int64_t i = 0; i < rows; i++) {
            char *row = m + i * rs * (int64_t)isz;
            if (lower) { /* columns i + k + 1 .. cols - 1 */
                int64_t from = i + k + 1 < 0 ? 0 : i + k + 1;
                if (from < cols)
                    zero_run(row + from * cs * (int64_t)isz, cols - from, cs, isz);
            } else { /* columns 0 .. i + k - 1 */
                int64_t to = i + k > cols ? cols : i + k;
                zero_run(row, to, cs, isz);
            }
        }
        for (int32_t d = nd - 3; d >= 0; d--) { /* next batch index */
            if (++idx[d] < t->sizes[d])
                break;
            idx[d] = 0;
        }
    }
}

static ct_status tri(const ct_tensor *t, int64_t k, bool lower, ct_tensor **out, const char *fn);
static ct_status tri_(ct_tensor *t, int64_t k, bool lower, const char *fn);
static ct_status tri_out(const ct_tensor *t, int64_t k, bool lower, ct_tensor *out,
                         const char *fn);

/* One of the three forms on host mirrors: t read, or self written in place, or t read and
 * out written; a new result goes to *res. */
static ct_status tri_staged(const ct_tensor *t, ct_tensor *self, ct_tensor *out, int64_t k,
                            bool lower, const char *fn, ct_tensor **res) {
    ct_stage s;
    ct_stage_init(&s, fn);
    int a = ct_stage_add(&s, self != NULL ? self : t, self != NULL ? CT_STAGE_WRITTEN : 0);
    int o = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *hr = NULL, *r = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK) {
        if (self != NULL)
            st = tri_(ct_stage_host(&s, a), k, lower, fn);
        else if (out != NULL)
            st = tri_out(ct_stage_host(&s, a), k, lower, ct_stage_host(&s, o), fn);
        else
            st = tri(ct_stage_host(&s, a), k, lower, &hr, fn);
    }
    if (st == CT_OK)
        st = ct_stage_result(&s, hr, &r);
    else
        ct_tensor_release(hr);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    if (res != NULL)
        *res = r;
    return CT_OK;
}

static ct_status tri(const ct_tensor *t, int64_t k, bool lower, ct_tensor **out, const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    if (ct_stage_wanted(t))
        return tri_staged(t, NULL, NULL, k, lower, fn, out);
    CT_TRY(check_input(t, fn));
    ct_tensor *r;
    CT_TRY(ct_tensor_empty(t->sizes, t->ndim, t->dtype, &t->device, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, &r));
    ct_status st = ct_tensor_impl_copy(r, t, false);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    zero_outside(r, k, lower);
    *out = r;
    return CT_OK;
}

ct_status ct_tensor_tril(const ct_tensor *t, int64_t diagonal, ct_tensor **out) {
    return tri(t, diagonal, true, out, "tril");
}

ct_status ct_tensor_triu(const ct_tensor *t, int64_t diagonal, ct_tensor **out) {
    return tri(t, diagonal, false, out, "triu");
}

static ct_status tri_(ct_tensor *t, int64_t k, bool lower, const char *fn) {
    if (ct_stage_wanted(t))
        return tri_staged(NULL, t, NULL, k, lower, fn, NULL);
    CT_TRY(check_input(t, fn));
    zero_outside(t, k, lower);
    return CT_OK;
}

ct_status ct_tensor_tril_(ct_tensor *t, int64_t diagonal) {
    return tri_(t, diagonal, true, "tril_");
}

ct_status ct_tensor_triu_(ct_tensor *t, int64_t diagonal) {
    return tri_(t, diagonal, false, "triu_");
}

/* Is `out` exactly t's elements (the same memory, offset and strides)? */
static bool same_elements(const ct_tensor *a, const ct_tensor *b) {
    return ct_tensor_data_ptr(a) == ct_tensor_data_ptr(b) && a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof a->sizes[0]) == 0 &&
           memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof a->strides[0]) == 0;
}

static ct_status tri_out(const ct_tensor *t, int64_t k, bool lower, ct_tensor *out,
                         const char *fn) {
    /* out on another device: the checks below give PyTorch's out= device message */
    if (ct_stage_wanted(t) && ct_stage_wanted(out) && ct_device_equal(t->device, out->device))
        return tri_staged(t, NULL, out, k, lower, fn, NULL);
    CT_TRY(ct_tensor_impl_check(out, fn));
    CT_TRY(check_input(t, fn));
    if (out->dtype != t->dtype)
        return ct_set_error(
            CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
            ct_reduce_impl_meta_name(t->dtype), ct_reduce_impl_meta_name(out->dtype));
    if (!same_device(out->device, t->device)) {
        char want[64], got[64];
        CT_TRY(ct_device_str(t->device, want, sizeof want));
        CT_TRY(ct_device_str(out->device, got, sizeof got));
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected out tensor to have device %s, but got %s instead", want, got);
    }
    if (t->device.type != CT_DEVICE_CPU && t->device.type != CT_DEVICE_META) /* out not strided */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on device %s", fn,
                            ct_device_type_name(t->device.type));
    ct_tensor_impl_saved keep;
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = CT_OK;
    if (out->ndim != t->ndim ||
        memcmp(out->sizes, t->sizes, (size_t)t->ndim * sizeof t->sizes[0]) != 0) {
        int64_t old[CT_MAX_DIMS];
        int32_t old_ndim = out->ndim;
        int64_t old_numel = out->numel;
        memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
        st = ct_tensor_impl_resize(out, t->sizes, t->ndim, NULL);
        if (st == CT_OK && old_numel > 0)
            ct_tensor_impl_warn_out_resized(old, old_ndim, t->sizes, t->ndim);
    }
    if (st == CT_OK && !same_elements(out, t))
        st = ct_tensor_impl_copy(out, t, true);
    if (st != CT_OK) {
        ct_tensor_impl_restore(out, &keep);
        return st;
    }
    ct_tensor_impl_saved_drop(&keep);
    zero_outside(out, k, lower);
    return CT_OK;
}

ct_status ct_tensor_tril_out(const ct_tensor *t, int64_t diagonal, ct_tensor *out) {
    return tri_out(t, diagonal, true, out, "tril");
}

ct_status ct_tensor_triu_out(const ct_tensor *t, int64_t diagonal, ct_tensor *out) {
    return tri_out(t, diagonal, false, out, "triu");
}
