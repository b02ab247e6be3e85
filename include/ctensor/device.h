/* ctensor: devices (torch.device), the current device, the default device, device memory.
 *
 * A device is a small value: a device type, numbered exactly as PyTorch's DeviceType, and
 * an index (-1 = "no index"). Device types, names and the string grammar are PyTorch's;
 * error messages are PyTorch's word for word, except where PyTorch silently misbehaves:
 *  - PyTorch keeps indices in an int8 and wraps ('cuda:128' -> -128, 'cuda:255' -> no index);
 *    ctensor keeps the same range, 0..127, and refuses larger indices with
 *    "Device index 128 is out of range: device indices must be between 0 and 127".
 *  - Memory operations on an accelerator index >= its device count fail with
 *    "Device index 4 is out of range for privateuseone: 4 devices are available" (or
 *    "No cuda devices are available" when there are none) instead of a backend-specific
 *    error.
 *
 * Memory lives behind backends (backend.h): cpu and meta are built in, other device types
 * get one when a program registers it; PrivateUse1 can be renamed ("npu") and then parses
 * and prints under that name.
 *
 * Error kinds: problems with a device itself (bad strings and indices, missing backends,
 * unavailable devices, no accelerator) are CT_ERR_RUNTIME, as PyTorch raises RuntimeError
 * for all of them. Copying out of meta and between two accelerator types is
 * CT_ERR_NOT_IMPLEMENTED; memory functions add CT_ERR_NOMEM, CT_ERR_OVERFLOW and
 * CT_ERR_VALUE as documented. NULL out-parameters, device type values outside the enum and
 * wrong buffer sizes are CT_ERR_MISUSE. On failure a ct_device out-parameter is set to
 * CT_DEVICE_UNDEFINED with index -1, pointers to NULL.
 *
 * Threads: every function may be called from any thread. The current device is per thread
 * and per device type; the default-device scope stack is per thread; the global default
 * device and the compatibility mode (compat.h) are process-wide.
 */
#ifndef CTENSOR_DEVICE_H
#define CTENSOR_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** Device types, numbered as PyTorch's c10::DeviceType (values never change). */
typedef enum ct_device_type {
    CT_DEVICE_UNDEFINED = -1, /**< "no device": only in out-parameters after a failure */
    CT_DEVICE_CPU = 0,
    CT_DEVICE_CUDA = 1,
    CT_DEVICE_MKLDNN = 2,
    CT_DEVICE_OPENGL = 3,
    CT_DEVICE_OPENCL = 4,
    CT_DEVICE_IDEEP = 5,
    CT_DEVICE_HIP = 6,
    CT_DEVICE_FPGA = 7,
    CT_DEVICE_MAIA = 8, /**< "ort" in PyTorch 1.13 */
    CT_DEVICE_XLA = 9,
    CT_DEVICE_VULKAN = 10,
    CT_DEVICE_METAL = 11, /**< printable, but the string parser does not accept "metal" */
    CT_DEVICE_XPU = 12,
    CT_DEVICE_MPS = 13,
    CT_DEVICE_META = 14,
    CT_DEVICE_HPU = 15,
    CT_DEVICE_VE = 16,
    CT_DEVICE_LAZY = 17,
    CT_DEVICE_IPU = 18,
    CT_DEVICE_MTIA = 19,
    CT_DEVICE_PRIVATEUSEONE = 20, /**< named "privateuseone" or the name a program registers */
    CT_NUM_DEVICE_TYPES = 21
} ct_device_type;

/** The index of a device that has none ("cuda" rather than "cuda:0"). */
#define CT_DEVICE_NO_INDEX (-1)
/** The largest device index (PyTorch's DeviceIndex is an int8). */
#define CT_DEVICE_MAX_INDEX 127
/** A buffer of this many bytes holds the str or repr of any device. */
#define CT_DEVICE_STRING_MAX 96
/** The alignment ct_device_alloc uses when asked for 0. */
#define CT_DEVICE_DEFAULT_ALIGN 64
/** Scopes of ct_default_device_push one thread may nest. */
#define CT_DEFAULT_DEVICE_MAX_DEPTH 256

/** A device: plain value, compare with ct_device_equal. index is -1 (none) or 0..127. */
typedef struct ct_device {
    ct_device_type type;
    int32_t index;
} ct_device;

/* ---- device types --------------------------------------------------------------------- */

/** true for CT_DEVICE_CPU .. CT_DEVICE_PRIVATEUSEONE. */
CT_API bool ct_device_type_is_valid(ct_device_type type);

/** The lower-case name used by str and the parser ("cuda"); for PrivateUse1 the registered
 *  name, else "privateuseone". Static string (a registered name stays valid for the life of
 *  the process); NULL for an invalid type. */
CT_API const char *ct_device_type_name(ct_device_type type);

/** PyTorch's C++ DeviceTypeName(type, false): "CUDA", "VULKAN", the registered PrivateUse1
 *  name upper-cased, else "PRIVATEUSEONE". Static string; NULL for an invalid type. */
CT_API const char *ct_device_type_upper_name(ct_device_type type);

/* ---- values ----------------------------------------------------------------------------- */

/** true if type is valid and index is -1 or 0..127. */
CT_API bool ct_device_is_valid(ct_device device);

/** Build a device from a type and an index (-1 for none), as C++'s Device(type, index).
 *  Nothing is looked up: any valid type is accepted, metal included.
 *  Errors: CT_ERR_RUNTIME "Device index must be -1 or non-negative, got <i>" and
 *  "Device index <i> is out of range: device indices must be between 0 and 127";
 *  CT_ERR_MISUSE for an invalid type or NULL out. */
CT_API ct_status ct_device_make(ct_device_type type, int64_t index, ct_device *out);

/** Equal iff same type and same index: cpu != cpu:0, cuda != cuda:0 (torch.device.__eq__). */
CT_API bool ct_device_equal(ct_device a, ct_device b);

/** PyTorch's hash: (uint8 type << 16) | uint8 index, so cpu -> 255, cuda:1 -> 65537. */
CT_API uint32_t ct_device_hash(ct_device device);

/** str(device): "cuda:0", "cpu", "npu:1". In the OneFlow mode the index always shows
 *  ("cpu:0"; an accelerator without index shows its current device, or 0 when it has no
 *  backend). Writes a NUL-terminated string; CT_DEVICE_STRING_MAX bytes always suffice.
 *  Errors: CT_ERR_MISUSE for NULL buf, a buffer too small (buf is then ""), or an invalid
 *  device (the message for an unknown type is PyTorch's "Unknown device: <n>. If you have
 *  recently updated the caffe2.proto file to add a new device type, did you forget to update
 *  the DeviceTypeName() function to reflect such recent changes?"). */
CT_API ct_status ct_device_str(ct_device device, char *buf, size_t size);

/** repr(device): "device(type='cuda', index=0)", "device(type='cpu')"; in the OneFlow mode
 *  always with an index, as ct_device_str. Buffer and errors as ct_device_str. */
CT_API ct_status ct_device_repr(ct_device device, char *buf, size_t size);

/* ---- constructors (what torch.device(...) and every `device=` argument accept) ---------- */

/** torch.device(str). Grammar: a type name of ASCII letters and '_' (case-sensitive), then
 *  optionally ':' and a decimal index without sign, spaces or leading zeros.
 *  Errors (CT_ERR_RUNTIME), checked in PyTorch's order:
 *   "Device string must not be empty";
 *   "Invalid device string: '<s>'" (bad character, empty type, ':' without digits, '01', ...);
 *   "Could not parse device index '<digits>' in device string '<s>'" (beyond int32);
 *   "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia,
 *   xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device
 *   string: <type part>" (unknown type, also "metal" and wrong case);
 *   "Device index <i> is out of range: device indices must be between 0 and 127".
 *  CT_ERR_MISUSE for NULL. In the OneFlow mode a missing index is filled in (see compat.h). */
CT_API ct_status ct_device_from_string(const char *str, ct_device *out);

/** torch.device(type, index): `type` is parsed as by ct_device_from_string and must not
 *  carry an index; `index` NULL means None (no index).
 *  Errors: those of the parser; then CT_ERR_RUNTIME "type (string) must not include an index
 *  because index was passed explicitly: <type>" (also when index is NULL, as PyTorch's
 *  two-argument form), "Device index must not be negative", and the out-of-range message. */
CT_API ct_status ct_device_from_type(const char *type, const int64_t *index, ct_device *out);

/** torch.device(ordinal): the device `ordinal` of the current accelerator
 *  (ct_current_accelerator); in the OneFlow mode always CUDA (OneFlow's legacy rule).
 *  Errors (CT_ERR_RUNTIME): "Device index must not be negative", the out-of-range message,
 *  "Cannot access accelerator device when none is available.". The ordinal is not checked
 *  against the device count here (torch.device(5) is fine on a one-GPU machine); memory
 *  operations check it. */
CT_API ct_status ct_device_from_ordinal(int64_t ordinal, ct_device *out);

/* ---- accelerators and the current device ------------------------------------------------ */

/** The current accelerator type (torch.accelerator.current_accelerator): PrivateUse1 when a
 *  backend is registered under it, else the first of cuda, mtia, xpu, hip, mps, hpu whose
 *  registered backend reports at least one device.
 *  Errors: CT_ERR_RUNTIME "Cannot access accelerator device when none is available."; out is
 *  then CT_DEVICE_UNDEFINED. */
CT_API ct_status ct_current_accelerator(ct_device_type *out);

/** Number of devices of a type: what its backend reports (cpu and meta: 1), 0 when no
 *  backend is registered. Errors: CT_ERR_MISUSE for an invalid type or NULL out. */
CT_API ct_status ct_device_count(ct_device_type type, int32_t *out);

/** Whether memory of a device type can be read and written by the host directly: cpu yes,
 *  meta no (it has no memory), a registered backend when it sets CT_BACKEND_HOST_ACCESSIBLE
 *  (backend.h), an unregistered type no. Lets a layer built on the public API (the global
 *  tensors' MPI transfers) decide whether to stage through host memory. No error set. */
CT_API bool ct_device_type_host_accessible(ct_device_type type);

/** The calling thread's current device of a type (torch.cuda.current_device()): cpu and
 *  meta give the device without index.
 *  Errors (CT_ERR_RUNTIME): "No backend is registered for device type <name>";
 *  "No <name> devices are available". */
CT_API ct_status ct_current_device(ct_device_type type, ct_device *out);

/** Make `device` the calling thread's current device of its type (torch.cuda.set_device).
 *  A device without index, and any cpu or meta device, changes nothing.
 *  Errors (CT_ERR_RUNTIME): no backend; "Device index 4 is out of range for <name>: 4
 *  devices are available"; "No <name> devices are available"; errors of the backend. */
CT_API ct_status ct_set_device(ct_device device);

/** Wait for the device's pending work (without index: the current device). cpu and meta
 *  return at once. Errors: as ct_set_device. */
CT_API ct_status ct_device_synchronize(ct_device device);

/* ---- the default device for factory functions ------------------------------------------- */

/** torch.set_default_device: the process-wide default device, or none with NULL (or a
 *  device of type CT_DEVICE_UNDEFINED). The device is stored as given ('cuda' stays
 *  unindexed and means the current device when used); no backend is needed to set it.
 *  Errors: CT_ERR_MISUSE/CT_ERR_RUNTIME for an invalid device value (nothing changes). */
CT_API ct_status ct_set_default_device(const ct_device *device);

/** torch.get_default_device: the innermost scope of the calling thread, else the global
 *  default, else cpu. A result without index that is an accelerator becomes the current
 *  device of its type ('cuda' -> 'cuda:0'); cpu and meta stay as they are.
 *  Errors: those of ct_current_device for such an accelerator. */
CT_API ct_status ct_get_default_device(ct_device *out);

/** Enter a default-device scope on the calling thread (`with torch.device(d):`).
 *  `*mark` (may be NULL) receives the depth before the push, also when the push fails;
 *  ct_default_device_pop(mark) then restores exactly the state before this call, so an error
 *  path may always pop. Errors: invalid device; CT_ERR_RUNTIME "Default device scopes are
 *  nested too deeply (at most 256)". */
CT_API ct_status ct_default_device_push(ct_device device, size_t *mark);

/** Leave scopes: drop every scope entered at depth >= mark on the calling thread (the
 *  scope pushed with that mark and any inner one left open). A mark at or above the current
 *  depth does nothing, so popping twice or after a failed push is harmless. */
CT_API void ct_default_device_pop(size_t mark);

/** The calling thread's number of open default-device scopes. */
CT_API size_t ct_default_device_depth(void);

/** The device a factory function allocates on. Factory functions (empty, zeros, ones,
 *  full, arange, ...) take `const ct_device *device` and call this first: a non-NULL device
 *  (an explicit `device=` argument) wins; NULL means the default device (innermost scope,
 *  else global default, else cpu). The result is where memory actually lives: cpu and meta
 *  lose any index ('cpu:1' -> 'cpu', as PyTorch's CPU tensors), an accelerator without
 *  index becomes the current device, and the index is checked against the device count.
 *  Ops on existing tensors and *_like functions must not call this with NULL: they follow
 *  their inputs' device. Errors: those of ct_current_device and ct_set_device. */
CT_API ct_status ct_device_resolve(const ct_device *device, ct_device *out);

/* ---- device memory ---------------------------------------------------------------------- */

/** Allocate `size` bytes aligned to `align` (a power of two <= 4096; 0 means
 *  CT_DEVICE_DEFAULT_ALIGN) on `device`, resolved as ct_device_resolve does. `*where`
 *  (may be NULL) receives that concrete device: pass it to ct_device_free. cpu memory comes
 *  from the allocator of alloc.h; meta memory does not exist (`*ptr` is NULL with CT_OK);
 *  size 0 gives a valid, distinct pointer on cpu.
 *  Errors: CT_ERR_OVERFLOW "Cannot allocate <n> bytes: the size exceeds the largest object
 *  size (PTRDIFF_MAX)"; CT_ERR_NOMEM; device errors as ct_device_resolve; CT_ERR_MISUSE for a
 *  bad alignment or NULL ptr. */
CT_API ct_status ct_device_alloc(ct_device device, size_t size, size_t align, void **ptr,
                                 ct_device *where);

/** Free memory of ct_device_alloc; `device`, `size` and `align` as at allocation (device as
 *  reported in `where`). NULL ptr does nothing.
 *  Errors: CT_ERR_MISUSE for an accelerator device without index; no backend. */
CT_API ct_status ct_device_free(ct_device device, void *ptr, size_t size, size_t align);

/** Copy `nbytes` from `src` on `src_device` to `dst` on `dst_device`: cpu -> cpu moves
 *  host memory (overlap allowed), cpu -> X uses X's host-to-device copy, X -> cpu its
 *  device-to-host copy, X -> X (any two indices) its device-to-device copy. Devices without
 *  index mean the current one. Nothing else moves data between devices.
 *  Errors: CT_ERR_NOT_IMPLEMENTED "Cannot copy out of meta tensor; no data!" (copying into
 *  meta does nothing) and "Cannot copy between devices <a> and <b> directly: copy through
 *  cpu" for two accelerator types; device errors as ct_device_resolve; CT_ERR_MISUSE for NULL
 *  pointers with nbytes > 0 (meta pointers may be NULL). */
CT_API ct_status ct_device_copy(ct_device dst_device, void *dst, ct_device src_device,
                                const void *src, size_t nbytes);

/** Fill `nbytes` at `dst` with copies of the `pattern_size`-byte pattern (1..64 bytes, one
 *  element). Meta: nothing. Errors: CT_ERR_VALUE "Cannot fill <n> bytes with a pattern of
 *  <p> bytes: not a multiple"; CT_ERR_MISUSE for NULL pointers or a bad pattern size;
 *  device errors as ct_device_resolve. */
CT_API ct_status ct_device_fill(ct_device device, void *dst, size_t nbytes, const void *pattern,
                                size_t pattern_size);

CT_EXTERN_C_END

#endif /* CTENSOR_DEVICE_H */
