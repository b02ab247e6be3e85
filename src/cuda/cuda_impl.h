/* Internals of the cuda backend shared between its files.
 *
 * Files: runtime.c (registration, devices, the backend's slots), caching_alloc.c (the caching
 * allocator's bookkeeping, plain C with the raw allocation passed in, so it is tested on
 * machines without a GPU), stream.c (streams, events, the current stream per thread and
 * device), pinned.c (page-locked host memory), launch.c (the `launch` and `fill` slots:
 * checks, then the kernels), kernels_*.cu (the device code, stamped from the same
 * per-element definitions as the cpu loops).
 * Layering: cuda uses base, dtype, device, tensor and the kernels' element definitions. */
#ifndef CT_CUDA_CUDA_IMPL_H
#define CT_CUDA_CUDA_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/backend.h"
#include "ctensor/status.h"

/* A cudaStream_t without including the runtime headers everywhere. */
typedef struct CUstream_st *ct_cuda_impl_stream_t;

/* ---- runtime.c / stream.c ---- */

/* Set the error for a failed CUDA runtime call (an int cudaError_t): CT_ERR_RUNTIME
 * "CUDA error: <cudaGetErrorString>" as PyTorch words it; returns that status. */
ct_status ct_cuda_impl_error(int cuda_error);

/* The calling thread's current stream of `device` (a valid index). */
ct_cuda_impl_stream_t ct_cuda_impl_current_stream(int32_t device);

/* The number of cuda devices (the driver is asked once; 0 without driver or GPU). */
int32_t ct_cuda_impl_device_count(void);

/* A device argument of the public API: -1 means the calling thread's current device.
 * Stores the concrete index in *out. Errors: CT_ERR_RUNTIME with PyTorch's no-driver
 * message when there is no device; "CUDA error: invalid device ordinal" out of range. */
ct_status ct_cuda_impl_check_device(int32_t device, int32_t *out);

/* A scoped device switch: ct_cuda_impl_device_enter makes `device` (a valid index) the
 * thread's current device and remembers the previous one, ct_cuda_impl_device_exit puts it
 * back. The backend's slots run inside one, so `launch` and `fill` find their device
 * current. */
typedef struct ct_cuda_impl_guard {
    int previous;
    int32_t device;
} ct_cuda_impl_guard;
ct_status ct_cuda_impl_device_enter(int32_t device, ct_cuda_impl_guard *guard);
void ct_cuda_impl_device_exit(const ct_cuda_impl_guard *guard);

/* PyTorch's message for a cuda tensor on a machine without driver or GPU. */
#define CT_CUDA_NO_DRIVER_MESSAGE                                                             \
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "  \
    "installed a driver from http://www.nvidia.com/Download/index.aspx"

/* ---- launch.c ---- */

/* The backend's `launch` slot. */
ct_status ct_cuda_impl_launch(void *ctx, int32_t index, const ct_kernel_launch *launch);
/* The backend's `fill` slot. */
ct_status ct_cuda_impl_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                            size_t pattern_size);

#endif /* CT_CUDA_CUDA_IMPL_H */
