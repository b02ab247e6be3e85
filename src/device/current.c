/* Device counts, the current device per thread and type, the current accelerator, and the
 * resolution of a device to the concrete one memory lives on (device.h). */
#include <stdint.h>

#include "base/error_impl.h"
#include "device/device_impl.h"

/* The current index of backends without get_device/set_device: per thread, like CUDA's
 * current device, and 0 until set. */
static _Thread_local int8_t thread_current[CT_NUM_DEVICE_TYPES];

int32_t ct_device_impl_current_count(const ct_backend *b) {
    if (b->device_count == NULL)
        return 1;
    int32_t n = b->device_count(b->context);
    if (n < 0)
        return 0;
    return n > CT_DEVICE_MAX_INDEX + 1 ? CT_DEVICE_MAX_INDEX + 1 : n;
}

int32_t ct_device_impl_current_index(const ct_backend *b, ct_device_type type) {
    if (b->get_device == NULL)
        return thread_current[type];
    int32_t i = b->get_device(b->context);
    return i < 0 ? 0 : i > CT_DEVICE_MAX_INDEX ? CT_DEVICE_MAX_INDEX : i;
}

/* The backend's own wording when it has one (cuda: no driver), else ours. */
static ct_status none_available(const ct_backend *b, ct_device_type type) {
    const char *msg = b->no_devices_message != NULL ? b->no_devices_message(b->context) : NULL;
    if (msg != NULL)
        return ct_set_error(CT_ERR_RUNTIME, "%s", msg);
    return ct_set_error(CT_ERR_RUNTIME, "No %s devices are available", ct_device_type_name(type));
}

/* An explicit index must name an existing device. */
static ct_status check_index(const ct_backend *b, ct_device d) {
    int32_t n = ct_device_impl_current_count(b);
    if (n == 0)
        return none_available(b, d.type);
    if (d.index >= n)
        return ct_set_error(
            CT_ERR_RUNTIME, "Device index %d is out of range for %s: %d device%s available",
            (int)d.index, ct_device_type_name(d.type), (int)n, n == 1 ? " is" : "s are");
    return CT_OK;
}

ct_status ct_device_impl_current_concrete(const ct_backend *b, ct_device d, ct_device *out) {
    *out = ct_device_impl_undefined();
    if (b->flags & CT_BACKEND_INDEXLESS) {
        out->type = d.type;
        return CT_OK;
    }
    if (d.index == CT_DEVICE_NO_INDEX) {
        if (ct_device_impl_current_count(b) == 0)
            return none_available(b, d.type);
        d.index = ct_device_impl_current_index(b, d.type);
    }
    CT_TRY(check_index(b, d));
    *out = d;
    return CT_OK;
}

ct_status ct_device_count(ct_device_type type, int32_t *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_count: out is NULL");
    *out = 0;
    if (!ct_device_impl_type_ok(type))
        return ct_device_impl_devval_check((ct_device){type, CT_DEVICE_NO_INDEX});
    ct_backend b;
    if (ct_device_impl_registry_find(type, &b))
        *out = ct_device_impl_current_count(&b);
    return CT_OK;
}

ct_status ct_current_device(ct_device_type type, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_current_device: out is NULL");
    *out = ct_device_impl_undefined();
    ct_backend b;
    CT_TRY(ct_device_impl_registry_get(type, false, &b));
    return ct_device_impl_current_concrete(&b, (ct_device){type, CT_DEVICE_NO_INDEX}, out);
}

ct_status ct_set_device(ct_device device) {
    CT_TRY(ct_device_impl_devval_check(device));
    ct_backend b;
    CT_TRY(ct_device_impl_registry_get(device.type, false, &b));
    if ((b.flags & CT_BACKEND_INDEXLESS) || device.index == CT_DEVICE_NO_INDEX)
        return CT_OK;
    CT_TRY(check_index(&b, device));
    if (b.set_device != NULL)
        return b.set_device(b.context, device.index);
    thread_current[device.type] = (int8_t)device.index;
    return CT_OK;
}

ct_status ct_device_synchronize(ct_device device) {
    CT_TRY(ct_device_impl_devval_check(device));
    ct_backend b;
    CT_TRY(ct_device_impl_registry_get(device.type, false, &b));
    ct_device d;
    CT_TRY(ct_device_impl_current_concrete(&b, device, &d));
    if (b.synchronize == NULL)
        return CT_OK;
    return b.synchronize(b.context, ct_device_impl_current_slot_index(&b, d));
}

ct_status ct_current_accelerator(ct_device_type *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_current_accelerator: out is NULL");
    *out = CT_DEVICE_UNDEFINED;
    /* PyTorch's order (DeviceAccelerator.cpp): PrivateUse1 whenever it has a backend, then
     * the first built-in accelerator that is available. */
    static const ct_device_type order[] = {CT_DEVICE_CUDA, CT_DEVICE_MTIA, CT_DEVICE_XPU,
                                           CT_DEVICE_HIP,  CT_DEVICE_MPS,  CT_DEVICE_HPU};
    ct_backend b;
    if (ct_device_impl_registry_find(CT_DEVICE_PRIVATEUSEONE, &b)) {
        *out = CT_DEVICE_PRIVATEUSEONE;
        return CT_OK;
    }
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (ct_device_impl_registry_find(order[i], &b) && ct_device_impl_current_count(&b) > 0) {
            *out = order[i];
            return CT_OK;
        }
    }
    return ct_set_error(CT_ERR_RUNTIME, "Cannot access accelerator device when none is available.");
}
