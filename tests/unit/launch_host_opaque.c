/* An emulated accelerator whose memory the host cannot read, with the host launch executor
 * (launch_host.h, host_launch_register_opaque): the library's opaque emulated backend
 * (ct_backend_host_emulated_opaque), whose slots are wrapped here to count transfers and to
 * fail allocations on request. */
#include <stdint.h>

#include "launch_host.h"

static ct_backend opaque_base; /* the emulated backend's own slots (wrapped below) */
volatile int opaque_fail_alloc;
long opaque_d2h, opaque_h2d;

static ct_status dev_allocate(void *ctx, int32_t index, size_t size, size_t align, void **out) {
    if (opaque_fail_alloc)
        return ct_set_error(CT_ERR_NOMEM, "emulated device: out of memory on device %d",
                            (int)index);
    return opaque_base.allocate(ctx, index, size, align, out);
}
static ct_status dev_h2d(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    opaque_h2d++;
    return opaque_base.copy_h2d(ctx, index, dst, src, n);
}
static ct_status dev_d2h(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    opaque_d2h++;
    return opaque_base.copy_d2h(ctx, index, dst, src, n);
}
static ct_status dev_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    ct_kernel_launch real = *l;
    for (int k = 0; k < CT_LAUNCH_MAX_OPERANDS; k++)
        real.data[k] = ct_backend_host_emulated_host_address(real.data[k]);
    return host_launch(ctx, index, &real);
}

ct_status host_launch_register_opaque(ct_device_type type, int32_t count) {
    ct_status st = ct_backend_host_emulated_opaque(type, count, &opaque_base);
    if (st != CT_OK)
        return st;
    ct_backend b = opaque_base;
    b.allocate = dev_allocate;
    b.copy_h2d = dev_h2d;
    b.copy_d2h = dev_d2h;
    b.launch = dev_launch;
    return ct_backend_register(&b);
}
