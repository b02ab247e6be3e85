/* The default device of factory functions: a per-thread scope stack over a process-wide
 * default (device.h). */
#include <stdatomic.h>
#include <stdint.h>

#include "base/error_impl.h"
#include "device/device_impl.h"

/* The global default packed into one atomic word: 0 = none, else (type << 8 | uint8 index)
 * + 1, so a reader never sees half of an update. */
static atomic_int global_default;

static _Thread_local ct_device scopes[CT_DEFAULT_DEVICE_MAX_DEPTH];
static _Thread_local size_t depth;

static int pack(ct_device d) { return (((int)d.type << 8) | (int)(uint8_t)d.index) + 1; }

static ct_device unpack(int v) {
    v -= 1;
    ct_device d = {(ct_device_type)(v >> 8), (int32_t)(int8_t)(v & 0xff)};
    return d;
}

ct_status ct_set_default_device(const ct_device *device) {
    if (device == NULL || device->type == CT_DEVICE_UNDEFINED) {
        atomic_store_explicit(&global_default, 0, memory_order_relaxed);
        return CT_OK;
    }
    CT_TRY(ct_device_impl_devval_check(*device));
    atomic_store_explicit(&global_default, pack(*device), memory_order_relaxed);
    return CT_OK;
}

/* The default as set, before an accelerator without index becomes concrete. */
static ct_device default_as_set(void) {
    if (depth > 0)
        return scopes[depth - 1];
    int v = atomic_load_explicit(&global_default, memory_order_relaxed);
    if (v != 0)
        return unpack(v);
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    return cpu;
}

ct_status ct_get_default_device(ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_get_default_device: out is NULL");
    *out = ct_device_impl_undefined();
    ct_device d = default_as_set();
    /* torch.get_default_device keeps an explicit index ('cpu:1' stays) and otherwise
     * answers with the device a new tensor would get. */
    if (d.index != CT_DEVICE_NO_INDEX || d.type == CT_DEVICE_CPU || d.type == CT_DEVICE_META) {
        *out = d;
        return CT_OK;
    }
    return ct_device_resolve(&d, out);
}

ct_status ct_default_device_push(ct_device device, size_t *mark) {
    if (mark != NULL)
        *mark = depth;
    CT_TRY(ct_device_impl_devval_check(device));
    if (depth == CT_DEFAULT_DEVICE_MAX_DEPTH)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Default device scopes are nested too deeply (at most %d)",
                            CT_DEFAULT_DEVICE_MAX_DEPTH);
    scopes[depth++] = device;
    return CT_OK;
}

void ct_default_device_pop(size_t mark) {
    if (mark < depth)
        depth = mark;
}

size_t ct_default_device_depth(void) { return depth; }

ct_status ct_device_resolve(const ct_device *device, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_resolve: out is NULL");
    *out = ct_device_impl_undefined();
    ct_device d = device != NULL ? *device : default_as_set();
    CT_TRY(ct_device_impl_devval_check(d));
    ct_backend b;
    CT_TRY(ct_device_impl_registry_get(d.type, false, &b));
    return ct_device_impl_current_concrete(&b, d, out);
}
