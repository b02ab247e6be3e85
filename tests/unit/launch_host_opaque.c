/* An emulated accelerator whose memory the host cannot read (launch_host.h,
 * host_launch_register_opaque). */
#include <stdint.h>

#include "launch_host.h"

/* Note [Device addresses the host cannot read]: the emulated device memory is host memory,
 * which a careless host loop could read without staging. So the backend hands out addresses
 * with bit 62 set (non-canonical on x86-64 and AArch64: any host access faults) and its slots
 * clear it again; code that skips the staging crashes the test instead of passing by
 * accident. */
#define DEV_BIT ((uintptr_t)1 << 62)

static ct_backend opaque_base; /* the emulated backend's own slots (wrapped below) */
volatile int opaque_fail_alloc;
long opaque_d2h, opaque_h2d;

static void *dev_addr(void *p) { return p ? (void *)((uintptr_t)p ^ DEV_BIT) : p; }
static const void *dev_caddr(const void *p) {
    return p ? (const void *)((uintptr_t)p ^ DEV_BIT) : p;
}

static ct_status dev_allocate(void *ctx, int32_t index, size_t size, size_t align, void **out) {
    if (opaque_fail_alloc)
        return ct_set_error(CT_ERR_NOMEM, "emulated device: out of memory on device %d",
                            (int)index);
    ct_status st = opaque_base.allocate(ctx, index, size, align, out);
    if (st == CT_OK)
        *out = dev_addr(*out);
    return st;
}
static void dev_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    opaque_base.free(ctx, index, dev_addr(ptr), size, align);
}
static ct_status dev_h2d(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    opaque_h2d++;
    return opaque_base.copy_h2d(ctx, index, dev_addr(dst), src, n);
}
static ct_status dev_d2h(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    opaque_d2h++;
    return opaque_base.copy_d2h(ctx, index, dst, dev_caddr(src), n);
}
static ct_status dev_d2d(void *ctx, int32_t di, void *dst, int32_t si, const void *src, size_t n) {
    return opaque_base.copy_d2d(ctx, di, dev_addr(dst), si, dev_caddr(src), n);
}
static ct_status dev_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                          size_t pattern_size) {
    return opaque_base.fill(ctx, index, dev_addr(dst), n, pattern, pattern_size);
}
static ct_status dev_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    ct_kernel_launch real = *l;
    for (int k = 0; k < CT_LAUNCH_MAX_OPERANDS; k++)
        if ((uintptr_t)real.data[k] & DEV_BIT)
            real.data[k] = dev_addr(real.data[k]);
    return host_launch(ctx, index, &real);
}

ct_status host_launch_register_opaque(ct_device_type type, int32_t count) {
    ct_status st = ct_backend_host_emulated(type, count, &opaque_base);
    if (st != CT_OK)
        return st;
    opaque_base.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    ct_backend b = opaque_base;
    b.allocate = dev_allocate;
    b.free = dev_free;
    b.copy_h2d = dev_h2d;
    b.copy_d2h = dev_d2h;
    b.copy_d2d = opaque_base.copy_d2d ? dev_d2d : NULL;
    b.fill = opaque_base.fill ? dev_fill : NULL;
    b.launch = dev_launch;
    return ct_backend_register(&b);
}
