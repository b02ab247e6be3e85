/* ctensor: the CUDA backend (libctensor_cuda).
 *
 * A separate library, built when CMake finds the CUDA toolkit; the core library never links
 * CUDA. It links the CUDA runtime statically, so the only thing it needs at run time is the
 * NVIDIA driver: on a machine without driver or GPU it loads, registers, and reports zero
 * devices, and every cuda tensor operation fails with PyTorch's error.
 *
 * ct_cuda_init registers a backend (backend.h) for CT_DEVICE_CUDA: devices cuda:0 ..
 * cuda:N-1, a current device per thread (cudaSetDevice), memory from a caching allocator
 * (size classes, blocks reused per stream, no cudaMalloc per tensor), copies and fills in
 * the current stream, and element-wise kernels (the `launch` slot) computed from the same
 * per-element definitions as the cpu loops. Results read on the host are always complete:
 * copies to host memory wait for the stream they were issued on.
 *
 * Device arguments: an `int32_t device` is a cuda device index; -1 means the calling
 * thread's current cuda device. Errors for devices: CT_ERR_RUNTIME "Found no NVIDIA driver
 * on your system. ..." (PyTorch's wording) when no device exists at all, and
 * CT_ERR_RUNTIME "CUDA error: invalid device ordinal" (PyTorch's torch.cuda wording) when
 * a function here gets an index at or above the count. Tensors and ct_set_device go through
 * the device layer, which names the index and the count instead ("Device index 2 is out of
 * range for cuda: 1 device is available"), as for every device type.
 */
#ifndef CTENSOR_CUDA_H
#define CTENSOR_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/* ---- set-up and devices ------------------------------------------------------------------ */

/** Register the cuda backend (once; later calls return CT_OK and do nothing). Succeeds with
 *  zero devices when there is no driver or GPU. Thread-safe.
 *  Errors: CT_ERR_RUNTIME "A backend is already registered for device type cuda" when
 *  another (e.g. a host emulation) holds the slot. */
CT_API ct_status ct_cuda_init(void);

/** torch.cuda.is_available(): registered and at least one device. Never fails. */
CT_API bool ct_cuda_is_available(void);

/** torch.cuda.device_count(): 0 without driver or GPU. Never fails. */
CT_API int32_t ct_cuda_device_count(void);

/** torch.cuda.synchronize(device): wait for all work on the device. */
CT_API ct_status ct_cuda_synchronize(int32_t device);

/** The device's name ("NVIDIA H200") and compute capability. `name` gets at most `size`
 *  bytes, NUL-terminated. */
CT_API ct_status ct_cuda_get_device_properties(int32_t device, char *name, size_t size,
                                               int32_t *major, int32_t *minor,
                                               int64_t *total_memory,
                                               int32_t *multi_processor_count);

/* ---- memory (the caching allocator) --------------------------------------------------------- */

/** torch.cuda.memory_stats in brief: bytes held by live tensors (allocated) and by the
 *  cache (reserved = allocated + cached free blocks), each with its peak since the start or
 *  the last reset. */
typedef struct ct_cuda_memory_stats {
    int64_t allocated;
    int64_t max_allocated;
    int64_t reserved;
    int64_t max_reserved;
    int64_t num_device_allocs; /**< cudaMalloc calls so far (tests: the cache reuses) */
} ct_cuda_memory_stats;

/** Fill *out for `device`. */
CT_API ct_status ct_cuda_memory_stats_get(int32_t device, ct_cuda_memory_stats *out);

/** torch.cuda.reset_peak_memory_stats: the peaks become the current values. */
CT_API ct_status ct_cuda_reset_peak_memory_stats(int32_t device);

/** torch.cuda.empty_cache: return every cached free block to the driver (all devices). */
CT_API ct_status ct_cuda_empty_cache(void);

/* ---- streams and events ---------------------------------------------------------------------- */

/** A CUDA stream of one device (torch.cuda.Stream). The default stream of each device is a
 *  stream object too (never freed). */
typedef struct ct_cuda_stream ct_cuda_stream;

/** A new stream on `device` (-1: current), non-blocking with respect to the legacy default
 *  stream, with `priority` (0 normal, negative higher, clamped to the device's range).
 *  Free with ct_cuda_stream_free. */
CT_API ct_status ct_cuda_stream_new(int32_t device, int32_t priority, ct_cuda_stream **out);

/** Free a stream made by ct_cuda_stream_new (waits for its work first). NULL is ignored;
 *  a default stream is ignored. If it is some thread's current stream, that thread goes
 *  back to the default stream. */
CT_API void ct_cuda_stream_free(ct_cuda_stream *stream);

/** The calling thread's current stream of `device` (-1: current device): borrowed. */
CT_API ct_status ct_cuda_current_stream(int32_t device, ct_cuda_stream **out);

/** The default stream of `device` (-1: current): borrowed. */
CT_API ct_status ct_cuda_default_stream(int32_t device, ct_cuda_stream **out);

/** Make `stream` the calling thread's current stream of its device (torch.cuda.set_stream);
 *  ops on tensors of that device are issued on it from now on. */
CT_API ct_status ct_cuda_set_stream(ct_cuda_stream *stream);

/** The stream's device index. */
CT_API int32_t ct_cuda_stream_device(const ct_cuda_stream *stream);

/** The cudaStream_t, as a pointer-sized integer (DLPack's and torch's `cuda_stream`):
 *  0 for the legacy default stream. */
CT_API uintptr_t ct_cuda_stream_handle(const ct_cuda_stream *stream);

/** Wait until all work on the stream is done. */
CT_API ct_status ct_cuda_stream_synchronize(ct_cuda_stream *stream);

/** Whether all work on the stream is done (*done). */
CT_API ct_status ct_cuda_stream_query(ct_cuda_stream *stream, bool *done);

/** A CUDA event (torch.cuda.Event). */
typedef struct ct_cuda_event ct_cuda_event;

/** A new event; `enable_timing` allows ct_cuda_event_elapsed_ms. Free with
 *  ct_cuda_event_free. The event belongs to the device that is current when it is first
 *  recorded. */
CT_API ct_status ct_cuda_event_new(bool enable_timing, ct_cuda_event **out);
/** Free an event (NULL is ignored). */
CT_API void ct_cuda_event_free(ct_cuda_event *event);
/** Record the event on `stream` (NULL: the current stream of the current device). */
CT_API ct_status ct_cuda_event_record(ct_cuda_event *event, ct_cuda_stream *stream);
/** Make `stream` (NULL: current) wait for the event's last record. */
CT_API ct_status ct_cuda_stream_wait_event(ct_cuda_stream *stream, ct_cuda_event *event);
/** Wait for the event's last record to complete. */
CT_API ct_status ct_cuda_event_synchronize(ct_cuda_event *event);
/** Whether the event's last record has completed (*done; true if never recorded). */
CT_API ct_status ct_cuda_event_query(ct_cuda_event *event, bool *done);
/** Milliseconds between two recorded events made with timing enabled. Errors:
 *  CT_ERR_RUNTIME when either was not recorded or has not completed, or lacks timing. */
CT_API ct_status ct_cuda_event_elapsed_ms(ct_cuda_event *start, ct_cuda_event *end, float *ms);

/* ---- pinned host memory ------------------------------------------------------------------------- */

/** Tensor.pin_memory(): a new cpu tensor with the same values, dtype, shape and strides in
 *  page-locked memory (cudaHostAlloc), from which copies to a cuda device can be
 *  asynchronous. A tensor that is already pinned is returned retained. Errors: CT_ERR_RUNTIME
 *  "cannot pin '<type>' only dense CPU tensors can be pinned" for tensors not on the cpu
 *  and for sparse ones; the driver's errors (no GPU: PyTorch's no-driver message). */
CT_API ct_status ct_cuda_pin_memory(const ct_tensor *tensor, ct_tensor **out);

/** Tensor.is_pinned(): whether the tensor's memory is page-locked host memory. false
 *  without a driver, for other devices, and for NULL. */
CT_API bool ct_cuda_is_pinned(const ct_tensor *tensor);

/** dst.copy_(src, non_blocking=True) between a pinned cpu tensor and a cuda tensor of the
 *  same dtype and dense layout: issued on the current stream of the cuda tensor's device and
 *  not waited for (synchronize the stream or an event before reading the host side). Other
 *  pairs fall back to ct_tensor_copy_ (which waits). Errors: those of ct_tensor_copy_. */
CT_API ct_status ct_cuda_copy_async(ct_tensor *dst, const ct_tensor *src);

CT_EXTERN_C_END

#endif /* CTENSOR_CUDA_H */
