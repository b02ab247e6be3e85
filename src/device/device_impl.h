/* Internals of the device layer shared between its files. */
#ifndef CT_DEVICE_DEVICE_IMPL_H
#define CT_DEVICE_DEVICE_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "ctensor/backend.h"
#include "ctensor/device.h"

/* The neutral value out-parameters get on failure. */
static inline ct_device ct_device_impl_undefined(void) {
    ct_device d = {CT_DEVICE_UNDEFINED, CT_DEVICE_NO_INDEX};
    return d;
}

static inline bool ct_device_impl_type_ok(ct_device_type t) {
    return (int)t >= 0 && (int)t < CT_NUM_DEVICE_TYPES;
}

/* ---- device.c: names and value checks ---- */

/* Check a device value; sets PyTorch's "Unknown device" (misuse) or an index message. */
ct_status ct_device_impl_devval_check(ct_device d);
/* Set the out-of-range message for an index above CT_DEVICE_MAX_INDEX; returns its status. */
ct_status ct_device_impl_devval_index_range_error(int64_t index);
/* The type whose parser name is the `n` bytes at `name` (built-ins, then the PrivateUse1
 * name); false when none matches. "metal" never matches. */
bool ct_device_impl_devval_lookup_name(const char *name, size_t n, ct_device_type *out);
/* true when `name` (NUL-terminated) is a built-in parser name. */
bool ct_device_impl_devval_is_builtin_name(const char *name);
/* The index a device shows in the OneFlow mode: its own, else 0 for indexless types and
 * types without backend, else the current device. */
int32_t ct_device_impl_devval_oneflow_index(ct_device d);

/* ---- registry.c: the backend table ---- */

/* Copy the backend of `type` into *out; CT_ERR_RUNTIME "No backend is registered for device
 * type <name>" when there is none. With `reserve`, also count one allocation in flight, so
 * the backend cannot be unregistered until ct_device_impl_registry_release. */
ct_status ct_device_impl_registry_get(ct_device_type type, bool reserve, ct_backend *out);
/* Quietly copy the backend of `type` into *out; false (no error set) when there is none. */
bool ct_device_impl_registry_find(ct_device_type type, ct_backend *out);
/* Whether host kernels may run on memory of device type `type`: cpu yes, meta no (it has
 * no memory), a registered backend when it sets CT_BACKEND_HOST_ACCESSIBLE. No error set. */
bool ct_device_impl_host_accessible(ct_device_type type);
/* Whether a registered backend of `type` runs element-wise launches itself (its `launch`
 * slot is set; never for cpu and meta). No error set. */
bool ct_device_impl_has_launch(ct_device_type type);
/* Run one launch on `device` (concrete: an accelerator with its index) through its backend's
 * `launch` slot. CT_ERR_NOT_IMPLEMENTED "<name>: no kernels for device type <type>" when the
 * backend has none; otherwise whatever the slot reports. */
ct_status ct_device_impl_launch(ct_device device, const ct_kernel_launch *launch);
/* Undo one reservation of ct_device_impl_registry_get. */
void ct_device_impl_registry_release(ct_device_type type);
/* The interned lower-case / upper-case PrivateUse1 name, NULL when unset. Lock-free. */
const char *ct_device_impl_registry_pu1_name(bool upper);
/* The "No backend is registered for device type <name>" error. */
ct_status ct_device_impl_registry_missing_error(ct_device_type type);

/* ---- current.c: current device and resolution ---- */

/* Device count reported by a backend, clamped to 0..128. */
int32_t ct_device_impl_current_count(const ct_backend *b);
/* The calling thread's current index for `type` (no checks, no error). */
int32_t ct_device_impl_current_index(const ct_backend *b, ct_device_type type);
/* The memory-level device: indexless types lose the index, an accelerator without index
 * becomes the calling thread's current device, and the index must be below the count. */
ct_status ct_device_impl_current_concrete(const ct_backend *b, ct_device d, ct_device *out);
/* The index to pass to slots for a concrete device (-1 for indexless backends). */
static inline int32_t ct_device_impl_current_slot_index(const ct_backend *b, ct_device d) {
    return (b->flags & CT_BACKEND_INDEXLESS) ? CT_DEVICE_NO_INDEX : d.index;
}

/* ---- built-in backends ---- */

const ct_backend *ct_device_impl_cpu_backend(void);
const ct_backend *ct_device_impl_meta_backend(void);

#endif /* CT_DEVICE_DEVICE_IMPL_H */
