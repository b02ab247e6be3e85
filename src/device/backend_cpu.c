/* The cpu backend: host memory from the allocator of alloc.h, large blocks through the host
 * cache (Note [Host cache]). */
#include <string.h>

#include "base/host_cache.h"
#include "device/device_impl.h"

static ct_status cpu_allocate(void *ctx, int32_t index, size_t size, size_t align, void **out) {
    (void)ctx;
    (void)index;
    *out = ct_host_cache_impl_alloc(size, align); /* sets CT_ERR_NOMEM itself */
    return *out != NULL ? CT_OK : ct_last_error_kind();
}

static void cpu_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    (void)ctx;
    (void)index;
    ct_host_cache_impl_free(ptr, size, align);
}

static ct_status cpu_copy(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    (void)ctx;
    (void)index;
    memcpy(dst, src, n);
    return CT_OK;
}

static ct_status cpu_copy_d2d(void *ctx, int32_t dst_index, void *dst, int32_t src_index,
                              const void *src, size_t n) {
    (void)ctx;
    (void)dst_index;
    (void)src_index;
    memmove(dst, src, n); /* one host: the ranges may overlap */
    return CT_OK;
}

static ct_status cpu_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                          size_t psize) {
    (void)ctx;
    (void)index;
    unsigned char *p = dst;
    if (psize == 1) {
        memset(p, *(const unsigned char *)pattern, n);
        return CT_OK;
    }
    /* Write one pattern, then double the filled prefix: log(n) memcpy calls. */
    memcpy(p, pattern, psize);
    size_t done = psize;
    while (done < n) {
        size_t k = done <= n - done ? done : n - done;
        memcpy(p + done, p, k);
        done += k;
    }
    return CT_OK;
}

static const ct_backend cpu = {
    .api_version = CT_BACKEND_API_VERSION,
    .device_type = CT_DEVICE_CPU,
    .name = "cpu",
    .flags = CT_BACKEND_INDEXLESS,
    .allocate = cpu_allocate,
    .free = cpu_free,
    .copy_h2d = cpu_copy,
    .copy_d2h = cpu_copy,
    .copy_d2d = cpu_copy_d2d,
    .fill = cpu_fill,
};

const ct_backend *ct_device_impl_cpu_backend(void) { return &cpu; }
