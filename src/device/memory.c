/* Device memory: allocation, copies and fills routed to the right backend (device.h).
 *
 * Every call checks the device values, resolves devices without index to the current one,
 * checks indices against the device count, and only then calls a backend slot, so
 * backends see concrete, valid indices only. Optional slots a backend leaves NULL are
 * emulated here through host memory.
 */
#include <stdint.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "device/device_impl.h"

/* Host staging buffer size for emulated copies and fills. */
#define STAGE_BYTES ((size_t)1 << 20)
#define MAX_PATTERN 64

static ct_status check_align(size_t *align, const char *fn) {
    if (*align == 0)
        *align = CT_DEVICE_DEFAULT_ALIGN;
    if ((*align & (*align - 1)) != 0 || *align > 4096)
        return ct_set_error(CT_ERR_MISUSE, "%s: alignment %zu is not a power of two <= 4096", fn,
                            *align);
    return CT_OK;
}

/* Check a device and find its backend and concrete device. */
static ct_status lookup(ct_device d, ct_backend *b, ct_device *concrete) {
    CT_TRY(ct_device_impl_devval_check(d));
    CT_TRY(ct_device_impl_registry_get(d.type, false, b));
    return ct_device_impl_current_concrete(b, d, concrete);
}

ct_status ct_device_alloc(ct_device device, size_t size, size_t align, void **ptr,
                          ct_device *where) {
    if (where != NULL)
        *where = ct_device_impl_undefined();
    if (ptr == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_alloc: ptr is NULL");
    *ptr = NULL;
    CT_TRY(check_align(&align, "ct_device_alloc"));
    if (size > (size_t)PTRDIFF_MAX)
        return ct_set_error(CT_ERR_OVERFLOW,
                            "Cannot allocate %zu bytes: the size exceeds the largest object size "
                            "(PTRDIFF_MAX)",
                            size);
    CT_TRY(ct_device_impl_devval_check(device));
    ct_backend b;
    /* Reserve first, so the backend cannot be unregistered while we allocate. */
    CT_TRY(ct_device_impl_registry_get(device.type, true, &b));
    ct_device d;
    void *p = NULL;
    ct_status st = ct_device_impl_current_concrete(&b, device, &d);
    if (st == CT_OK)
        st = b.allocate(b.context, ct_device_impl_current_slot_index(&b, d), size, align, &p);
    if (st != CT_OK || p == NULL) /* NULL (meta) owns nothing to count */
        ct_device_impl_registry_release(device.type);
    if (st != CT_OK)
        return st;
    *ptr = p;
    if (where != NULL)
        *where = d;
    return CT_OK;
}

ct_status ct_device_free(ct_device device, void *ptr, size_t size, size_t align) {
    if (ptr == NULL)
        return CT_OK;
    CT_TRY(check_align(&align, "ct_device_free"));
    CT_TRY(ct_device_impl_devval_check(device));
    ct_backend b;
    CT_TRY(ct_device_impl_registry_get(device.type, false, &b));
    if (!(b.flags & CT_BACKEND_INDEXLESS) && device.index == CT_DEVICE_NO_INDEX)
        return ct_set_error(CT_ERR_MISUSE,
                            "ct_device_free: device %s has no index; pass the device "
                            "ct_device_alloc reported",
                            ct_device_type_name(device.type));
    b.free(b.context, ct_device_impl_current_slot_index(&b, device), ptr, size, align);
    ct_device_impl_registry_release(device.type);
    return CT_OK;
}

/* X -> X through host memory, for backends without copy_d2d. */
static ct_status staged_d2d(const ct_backend *b, int32_t di, char *dst, int32_t si, const char *src,
                            size_t n) {
    size_t chunk = n < STAGE_BYTES ? n : STAGE_BYTES;
    char *host = ct_alloc(chunk, 64);
    if (host == NULL)
        return CT_ERR_NOMEM;
    ct_status st = CT_OK;
    /* Overlapping ranges on one device: copy backwards when dst is after src. */
    bool backwards =
        di == si && (uintptr_t)dst > (uintptr_t)src && (uintptr_t)dst - (uintptr_t)src < n;
    for (size_t done = 0; done < n && st == CT_OK; done += chunk) {
        size_t k = n - done < chunk ? n - done : chunk;
        size_t off = backwards ? n - done - k : done;
        st = b->copy_d2h(b->context, si, host, src + off, k);
        if (st == CT_OK)
            st = b->copy_h2d(b->context, di, dst + off, host, k);
    }
    ct_free(host, chunk, 64);
    return st;
}

static void format_device(ct_device d, char *buf) {
    if (ct_device_str(d, buf, CT_DEVICE_STRING_MAX) != CT_OK)
        buf[0] = '\0';
}

ct_status ct_device_copy(ct_device dst_device, void *dst, ct_device src_device, const void *src,
                         size_t nbytes) {
    ct_backend db, sb;
    ct_device dd, sd;
    CT_TRY(lookup(dst_device, &db, &dd));
    CT_TRY(lookup(src_device, &sb, &sd));
    bool dst_meta = dd.type == CT_DEVICE_META, src_meta = sd.type == CT_DEVICE_META;
    if (src_meta && !dst_meta) /* PyTorch's message for meta_tensor.to('cpu') */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    if (nbytes == 0 || dst_meta)
        return CT_OK;
    if (dst == NULL || src == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_copy: NULL %s pointer for %zu bytes",
                            dst == NULL ? "destination" : "source", nbytes);
    int32_t di = ct_device_impl_current_slot_index(&db, dd),
            si = ct_device_impl_current_slot_index(&sb, sd);
    if (sd.type == CT_DEVICE_CPU && dd.type != CT_DEVICE_CPU)
        return db.copy_h2d(db.context, di, dst, src, nbytes);
    if (dd.type == CT_DEVICE_CPU && sd.type != CT_DEVICE_CPU)
        return sb.copy_d2h(sb.context, si, dst, src, nbytes);
    if (dd.type == sd.type) {
        if (db.copy_d2d != NULL)
            return db.copy_d2d(db.context, di, dst, si, src, nbytes);
        return staged_d2d(&db, di, dst, si, src, nbytes);
    }
    char a[CT_DEVICE_STRING_MAX], b[CT_DEVICE_STRING_MAX];
    format_device(sd, a);
    format_device(dd, b);
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                        "Cannot copy between devices %s and %s directly: copy through cpu", a, b);
}

/* Fill through a host buffer and copy_h2d, for backends without fill. */
static ct_status staged_fill(const ct_backend *b, int32_t index, char *dst, size_t n,
                             const void *pattern, size_t psize) {
    size_t chunk = STAGE_BYTES - STAGE_BYTES % psize;
    if (chunk > n)
        chunk = n;
    char *host = ct_alloc(chunk, 64);
    if (host == NULL)
        return CT_ERR_NOMEM;
    for (size_t i = 0; i < chunk; i += psize)
        memcpy(host + i, pattern, psize);
    ct_status st = CT_OK;
    for (size_t done = 0; done < n && st == CT_OK; done += chunk) {
        size_t k = n - done < chunk ? n - done : chunk;
        st = b->copy_h2d(b->context, index, dst + done, host, k);
    }
    ct_free(host, chunk, 64);
    return st;
}

ct_status ct_device_fill(ct_device device, void *dst, size_t nbytes, const void *pattern,
                         size_t pattern_size) {
    if (pattern == NULL || pattern_size == 0 || pattern_size > MAX_PATTERN)
        return ct_set_error(CT_ERR_MISUSE,
                            "ct_device_fill: the pattern must be 1 to %d bytes (got %zu%s)",
                            MAX_PATTERN, pattern_size, pattern == NULL ? ", NULL" : "");
    if (nbytes % pattern_size != 0)
        return ct_set_error(CT_ERR_VALUE,
                            "Cannot fill %zu bytes with a pattern of %zu bytes: not a multiple",
                            nbytes, pattern_size);
    ct_backend b;
    ct_device d;
    CT_TRY(lookup(device, &b, &d));
    if (nbytes == 0 || d.type == CT_DEVICE_META)
        return CT_OK;
    if (dst == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_fill: dst is NULL for %zu bytes", nbytes);
    int32_t index = ct_device_impl_current_slot_index(&b, d);
    if (b.fill != NULL)
        return b.fill(b.context, index, dst, nbytes, pattern, pattern_size);
    return staged_fill(&b, index, dst, nbytes, pattern, pattern_size);
}
