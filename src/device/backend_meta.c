/* The meta backend: devices without data. Allocation hands out no memory (NULL, as
 * PyTorch's meta storages) and every data operation does nothing, so the layers above can
 * run shape, dtype and stride computations unchanged on meta tensors. */
#include "device/device_impl.h"

static ct_status meta_allocate(void *ctx, int32_t index, size_t size, size_t align, void **out) {
    (void)ctx;
    (void)index;
    (void)size;
    (void)align;
    *out = NULL;
    return CT_OK;
}

static void meta_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    (void)ctx;
    (void)index;
    (void)ptr;
    (void)size;
    (void)align;
}

static ct_status meta_copy(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    (void)ctx;
    (void)index;
    (void)dst;
    (void)src;
    (void)n;
    return CT_OK;
}

static ct_status meta_copy_d2d(void *ctx, int32_t dst_index, void *dst, int32_t src_index,
                               const void *src, size_t n) {
    (void)dst_index;
    return meta_copy(ctx, src_index, dst, src, n);
}

static ct_status meta_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                           size_t psize) {
    (void)pattern;
    (void)psize;
    return meta_copy(ctx, index, dst, NULL, n);
}

static const ct_backend meta = {
    .api_version = CT_BACKEND_API_VERSION,
    .device_type = CT_DEVICE_META,
    .name = "meta",
    .flags = CT_BACKEND_INDEXLESS,
    .allocate = meta_allocate,
    .free = meta_free,
    .copy_h2d = meta_copy,
    .copy_d2h = meta_copy,
    .copy_d2d = meta_copy_d2d,
    .fill = meta_fill,
};

const ct_backend *ct_device_impl_meta_backend(void) { return &meta; }
