/* copy_: broadcasting, overlap rules, meta, and moving data between devices. The element
 * loop itself is copy_loop.c.
 *
 * Note [Copies between devices]
 * Data crosses devices only through ct_device_copy. When dtype and layout agree and the
 * destination is dense, the whole block is one ct_device_copy (host to device, device to
 * host, or device to device). Otherwise the work is done on the host: a source that is not
 * in host memory is brought over as the byte span its elements cover, the destination (if
 * not in host memory) gets a host buffer for its span, the host loop converts, and the
 * buffer is copied back. A destination with gaps (not dense) is read first so that the
 * bytes between its elements survive the write-back. Two different accelerator types go
 * through the host in the same way. Devices whose backends run launches convert on the
 * device instead (Note [Copies on a launch device]). */
#include <inttypes.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

static const ct_device host = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

/* Bytes from element 0 (the lowest address: strides are >= 0) to the end of the last. */
static size_t span_bytes(const ct_tensor *t) {
    int64_t last = 0;
    for (int32_t i = 0; i < t->ndim; i++)
        last += (t->sizes[i] - 1) * t->strides[i]; /* bounded by the storage: no overflow */
    return (size_t)(last + 1) * ct_dtype_table[t->dtype].itemsize;
}

/* Strides of src broadcast to dst's shape (PyTorch's TensorIterator shape rules with an
 * output that may not be resized). */
static ct_status broadcast(const ct_tensor *dst, const ct_tensor *src, int64_t *sstr) {
    int64_t nd = dst->ndim, ns = src->ndim, n = nd > ns ? nd : ns;
    int64_t shape[CT_MAX_DIMS];
    for (int64_t i = n - 1; i >= 0; i--) {
        int64_t da = nd - n + i, db = ns - n + i;
        int64_t a = da >= 0 ? dst->sizes[da] : 1, b = db >= 0 ? src->sizes[db] : 1;
        if (a != b && a != 1 && b != 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%" PRId64
                                ") must match the size of tensor b (%" PRId64
                                ") at non-singleton dimension %" PRId64,
                                a, b, i);
        shape[i] = a == 1 ? b : a;
    }
    if (n != nd || (nd > 0 && memcmp(shape, dst->sizes, (size_t)nd * sizeof *shape) != 0)) {
        char x[400], y[400];
        return ct_set_error(CT_ERR_RUNTIME,
                            "output with shape %s doesn't match the broadcast shape %s",
                            ct_tensor_impl_shape_format(x, sizeof x, dst->sizes, nd),
                            ct_tensor_impl_shape_format(y, sizeof y, shape, n));
    }
    for (int64_t i = 0; i < nd; i++) {
        int64_t db = i - (nd - ns);
        sstr[i] = db >= 0 && src->sizes[db] == dst->sizes[i] ? src->strides[db] : 0;
    }
    return CT_OK;
}

/* PyTorch's has_internal_overlap == Yes: some dim of size > 1 has stride 0. */
static bool internal_overlap(const ct_tensor *t) {
    if (t->flags & CT_TF_NON_OVERLAPPING_DENSE)
        return false;
    for (int32_t i = 0; i < t->ndim; i++)
        if (t->sizes[i] > 1 && t->strides[i] == 0)
            return true;
    return false;
}

static bool same_device(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }

/* Do the byte spans of a and b share memory? (Pointer ranges on one device: this also
 * catches two storages wrapping the same memory.) */
static bool spans_intersect(const ct_tensor *a, const ct_tensor *b) {
    if (!same_device(a->device, b->device))
        return false;
    const char *a0 = ct_tensor_data_ptr(a), *b0 = ct_tensor_data_ptr(b);
    return a0 < b0 + span_bytes(b) && b0 < a0 + span_bytes(a);
}

/* PyTorch's get_overlap_status == Partial, for two non-empty tensors. */
static bool partial_overlap(const ct_tensor *a, const ct_tensor *b) {
    if (!(a->flags & CT_TF_NON_OVERLAPPING_DENSE) || !(b->flags & CT_TF_NON_OVERLAPPING_DENSE))
        return false; /* "too hard": allowed, resolved below by copying src first */
    if (!spans_intersect(a, b))
        return false;
    const char *a0 = ct_tensor_data_ptr(a), *b0 = ct_tensor_data_ptr(b);
    if (a0 == b0 && span_bytes(a) == span_bytes(b))
        return a->ndim != b->ndim ||
               memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof(int64_t)) != 0;
    return true;
}

/* Can one ct_device_copy move the data? Same dtype, same strides on every dim that has
 * more than one element, dst dense, and a device pair ct_device_copy serves. */
static bool block_copy(const ct_tensor *dst, const ct_tensor *src, const int64_t *sstr) {
    if (dst->dtype != src->dtype || !(dst->flags & CT_TF_NON_OVERLAPPING_DENSE))
        return false;
    for (int32_t i = 0; i < dst->ndim; i++)
        if (dst->sizes[i] > 1 && dst->strides[i] != sstr[i])
            return false;
    ct_device_type a = dst->device.type, b = src->device.type;
    return a == b || a == CT_DEVICE_CPU || b == CT_DEVICE_CPU;
}

/* ---- converting on a device (Note [Copies on a launch device]) -------------------------- */

/* A device whose memory the host cannot touch but whose backend runs launches. */
static bool launch_capable(ct_device_type t) {
    return t != CT_DEVICE_CPU && t != CT_DEVICE_META && !ct_device_impl_host_accessible(t) &&
           ct_device_impl_has_launch(t);
}

/* One COPY launch on `device`: dst (dtype dt, element strides dstr) = src (dtype st,
 * element strides sstr, already broadcast to dst's shape), both in that device's memory.
 * The loop geometry is the copy loop's (Note [Copy loop order] 1-3): size-1 dims dropped,
 * dims sorted by the destination's stride, innermost first, and merged where both operands
 * continue. */
static ct_status launch_copy(ct_device device, char *d, ct_dtype dt, const int64_t *dstr,
                             const char *s, ct_dtype st, const int64_t *sstr, const int64_t *sizes,
                             int32_t ndim, int64_t numel) {
    ct_kernel_launch *l = ct_alloc(sizeof *l, 64); /* 4.7 KB: not on the stack */
    if (l == NULL)
        return CT_ERR_NOMEM;
    memset(l, 0, sizeof *l);
    l->kind = CT_LAUNCH_COPY;
    l->name = "copy_";
    l->noperands = 2;
    l->dtype[0] = l->compute = l->math = dt;
    l->dtype[1] = st;
    l->data[0] = d;
    l->data[1] = (char *)(uintptr_t)s; /* read only: the launch's operands are char * */
    l->numel = numel;
    int64_t dsz = (int64_t)ct_dtype_table[dt].itemsize, ssz = (int64_t)ct_dtype_table[st].itemsize;
    int n = 0;
    for (int32_t i = 0; i < ndim; i++) {
        if (sizes[i] == 1)
            continue;
        int64_t size = sizes[i], ds = dstr[i] * dsz, ss = sstr[i] * ssz;
        int j = n++; /* insertion sort by (ds, ss), stable */
        while (j > 0 && (l->strides[0][j - 1] > ds ||
                         (l->strides[0][j - 1] == ds && l->strides[1][j - 1] > ss))) {
            l->shape[j] = l->shape[j - 1];
            l->strides[0][j] = l->strides[0][j - 1];
            l->strides[1][j] = l->strides[1][j - 1];
            j--;
        }
        l->shape[j] = size;
        l->strides[0][j] = ds;
        l->strides[1][j] = ss;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && l->strides[0][i] == l->strides[0][m - 1] * l->shape[m - 1] &&
            l->strides[1][i] == l->strides[1][m - 1] * l->shape[m - 1]) {
            l->shape[m - 1] *= l->shape[i];
            continue;
        }
        l->shape[m] = l->shape[i];
        l->strides[0][m] = l->strides[0][i];
        l->strides[1][m] = l->strides[1][i];
        m++;
    }
    for (int i = m; i < n; i++)
        l->shape[i] = l->strides[0][i] = l->strides[1][i] = 0;
    l->ndim = m;
    ct_status st_ = ct_device_impl_launch(device, l);
    ct_free(l, sizeof *l, 64);
    return st_;
}

/* Contiguous element strides of a shape. */
static void contiguous_strides(const int64_t *sizes, int32_t ndim, int64_t *strides) {
    int64_t next = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        strides[i] = next;
        next *= sizes[i] > 1 ? sizes[i] : 1;
    }
}

/* Note [Copies on a launch device]
 * A device whose backend runs launches converts on the device, never on the host:
 *  - dst on such a device: src is made available in dst's device memory (used in place when
 *    it is there already and does not share memory with dst; else its byte span is copied
 *    into a temporary there, after a compacting host copy when a cpu source has large gaps),
 *    then one COPY launch converts and lays out.
 *  - dst in host memory, src on such a device: a COPY launch converts into a temporary with
 *    dst's dtype on src's device (dst's strides when dst is dense, else contiguous), which
 *    comes back as one block (and, when dst has gaps, is placed by the host loop, a same-
 *    dtype copy).
 * Anything else (two different accelerator types, host-accessible backends) stays on the
 * host path. Temporaries are freed right after the launch: a stream-ordered backend must
 * order their reuse after it (the cuda allocator reuses per stream). */
static ct_status device_copy(ct_tensor *dst, const ct_tensor *src, const int64_t *sstr,
                             bool *handled) {
    size_t dsz = ct_dtype_table[dst->dtype].itemsize, ssz = ct_dtype_table[src->dtype].itemsize;
    char *d = ct_tensor_data_ptr(dst);
    const char *s = ct_tensor_data_ptr(src);
    ct_status st = CT_OK;
    if (launch_capable(dst->device.type) &&
        (src->device.type == dst->device.type || src->device.type == CT_DEVICE_CPU)) {
        *handled = true;
        if (same_device(dst->device, src->device) && !spans_intersect(dst, src))
            return launch_copy(dst->device, d, dst->dtype, dst->strides, s, src->dtype, sstr,
                               dst->sizes, dst->ndim, dst->numel);
        /* stage src in dst's device memory: its span, or a compact host copy */
        int64_t sstr2[CT_MAX_DIMS];
        memcpy(sstr2, sstr, (size_t)dst->ndim * sizeof *sstr2);
        size_t span = span_bytes(src), bytes = span;
        char *host_buf = NULL;
        if (src->device.type == CT_DEVICE_CPU && span > 2 * (size_t)src->numel * ssz) {
            int64_t cstr[CT_MAX_DIMS];
            contiguous_strides(src->sizes, src->ndim, cstr);
            bytes = (size_t)src->numel * ssz;
            host_buf = ct_alloc(bytes, 64);
            if (host_buf == NULL)
                return CT_ERR_NOMEM;
            st = ct_tensor_impl_copy_host(host_buf, src->dtype, cstr, s, src->dtype,
                                          src->strides, src->sizes, src->ndim);
            s = host_buf;
            /* the compact copy's strides, broadcast to dst's shape as sstr was */
            for (int32_t i = 0; i < dst->ndim; i++) {
                int32_t j = i - (dst->ndim - src->ndim);
                sstr2[i] = j >= 0 && src->sizes[j] == dst->sizes[i] ? cstr[j] : 0;
            }
        }
        void *tmp = NULL;
        ct_device where;
        if (st == CT_OK)
            st = ct_device_alloc(dst->device, bytes, 64, &tmp, &where);
        if (st == CT_OK)
            st = ct_device_copy(where, tmp, src->device, s, bytes);
        if (st == CT_OK)
            st = launch_copy(dst->device, d, dst->dtype, dst->strides, tmp, src->dtype, sstr2,
                             dst->sizes, dst->ndim, dst->numel);
        if (tmp != NULL)
            (void)ct_device_free(where, tmp, bytes, 64);
        ct_free(host_buf, bytes, 64);
        return st;
    }
    if (launch_capable(src->device.type) && dst->device.type == CT_DEVICE_CPU) {
        *handled = true;
        bool dense = (dst->flags & CT_TF_NON_OVERLAPPING_DENSE) != 0;
        int64_t tstr[CT_MAX_DIMS];
        if (dense)
            memcpy(tstr, dst->strides, (size_t)dst->ndim * sizeof *tstr);
        else
            contiguous_strides(dst->sizes, dst->ndim, tstr);
        size_t bytes = (size_t)dst->numel * dsz; /* dense: exactly dst's span */
        void *tmp = NULL;
        ct_device where;
        char *host_buf = NULL;
        st = ct_device_alloc(src->device, bytes, 64, &tmp, &where);
        if (st == CT_OK)
            st = launch_copy(where, tmp, dst->dtype, tstr, s, src->dtype, sstr, dst->sizes,
                             dst->ndim, dst->numel);
        if (st == CT_OK && dense) {
            st = ct_device_copy(dst->device, d, where, tmp, bytes);
        } else if (st == CT_OK) {
            host_buf = ct_alloc(bytes, 64);
            if (host_buf == NULL)
                st = CT_ERR_NOMEM;
            if (st == CT_OK)
                st = ct_device_copy(host, host_buf, where, tmp, bytes);
            if (st == CT_OK)
                st = ct_tensor_impl_copy_host(d, dst->dtype, dst->strides, host_buf, dst->dtype,
                                              tstr, dst->sizes, dst->ndim);
        }
        ct_free(host_buf, bytes, 64);
        if (tmp != NULL)
            (void)ct_device_free(where, tmp, bytes, 64);
        return st;
    }
    return CT_OK; /* not handled: the host path */
}

ct_status ct_tensor_impl_copy(ct_tensor *dst, const ct_tensor *src, bool check_overlap) {
    if (dst == src)
        return CT_OK;
    if ((dst->dtype == CT_FLOAT4_E2M1FN_X2) != (src->dtype == CT_FLOAT4_E2M1FN_X2))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
    int64_t sstr[CT_MAX_DIMS];
    CT_TRY(broadcast(dst, src, sstr));
    if (dst->device.type == CT_DEVICE_META) /* copies into meta only check shapes */
        return CT_OK;
    if (src->device.type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    if (dst->numel == 0)
        return CT_OK;
    if (check_overlap && internal_overlap(dst))
        return ct_set_error(CT_ERR_RUNTIME,
                            "unsupported operation: more than one element of the written-to "
                            "tensor refers to a single memory location. Please clone() the "
                            "tensor before performing the operation.");
    if (check_overlap && partial_overlap(dst, src))
        return ct_set_error(CT_ERR_RUNTIME,
                            "unsupported operation: some elements of the input tensor and the "
                            "written-to tensor refer to a single memory location. Please clone() "
                            "the tensor before performing the operation.");
    if (block_copy(dst, src, sstr))
        return ct_device_copy(dst->device, ct_tensor_data_ptr(dst), src->device,
                              ct_tensor_data_ptr(src),
                              (size_t)dst->numel * ct_dtype_table[dst->dtype].itemsize);

    if (launch_capable(dst->device.type) || launch_capable(src->device.type)) {
        bool handled = false;
        CT_TRY(device_copy(dst, src, sstr, &handled));
        if (handled)
            return CT_OK;
    }

    /* the host path (Note [Copies between devices]) */
    bool snapshot = spans_intersect(dst, src); /* read src before anything is written */
    size_t sspan = span_bytes(src), dspan = span_bytes(dst);
    char *sbuf = NULL, *dbuf = NULL;
    const char *s = ct_tensor_data_ptr(src);
    char *d = ct_tensor_data_ptr(dst);
    ct_status st = CT_OK;
    if (snapshot || src->device.type != CT_DEVICE_CPU) {
        sbuf = ct_alloc(sspan, 64);
        if (sbuf == NULL)
            return CT_ERR_NOMEM;
        st = ct_device_copy(host, sbuf, src->device, s, sspan);
        s = sbuf;
    }
    if (st == CT_OK && dst->device.type != CT_DEVICE_CPU) {
        dbuf = ct_alloc(dspan, 64);
        if (dbuf == NULL)
            st = CT_ERR_NOMEM;
        else if (!(dst->flags & CT_TF_NON_OVERLAPPING_DENSE))
            st = ct_device_copy(host, dbuf, dst->device, d, dspan); /* keep the gaps */
    }
    if (st == CT_OK)
        st = ct_tensor_impl_copy_host(dbuf != NULL ? dbuf : d, dst->dtype, dst->strides, s,
                                      src->dtype, sstr, dst->sizes, dst->ndim);
    if (st == CT_OK && dbuf != NULL)
        st = ct_device_copy(dst->device, d, host, dbuf, dspan);
    ct_free(dbuf, dspan, 64);
    ct_free(sbuf, sspan, 64);
    return st;
}

ct_status ct_tensor_copy_(ct_tensor *dst, const ct_tensor *src) {
    CT_TRY(ct_tensor_impl_check(dst, "ct_tensor_copy_"));
    CT_TRY(ct_tensor_impl_check(src, "ct_tensor_copy_"));
    return ct_tensor_impl_copy(dst, src, true);
}
