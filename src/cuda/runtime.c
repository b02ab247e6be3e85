/* The cuda backend: registration, devices, the caching allocator over cudaMalloc, and the
 * backend's slots (ctensor/cuda.h, cuda_impl.h).
 *
 * The driver is probed once (cudaGetDeviceCount): without driver or GPU the count is 0, the
 * backend still registers, and the device layer reports PyTorch's no-driver message through
 * the `no_devices_message` slot before any other slot is reached. Every slot makes its device
 * current for the call (a thread's current device may differ from the tensor's) and puts the
 * caller's back. Copies run on the device's current stream; those that touch host memory
 * wait for it, so what the host reads is complete and a pageable source may be reused at
 * once. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ctensor/backend.h"
#include "ctensor/cuda.h"
#include "cuda/caching_alloc.h"
#include "cuda/cuda_impl.h"

/* ---- errors, the probe, devices --------------------------------------------------------- */

ct_status ct_cuda_impl_error(int cuda_error) {
    /* Clear the thread's last error so a non-sticky one does not resurface later. */
    (void)cudaGetLastError();
    return ct_set_error(CT_ERR_RUNTIME, "CUDA error: %s",
                        cudaGetErrorString((cudaError_t)cuda_error));
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int32_t device_count;
static ct_cuda_caching_alloc *allocator; /* NULL only when creating it ran out of memory */

static ct_status raw_alloc(void *ctx, int32_t device, size_t size, void **out) {
    (void)ctx;
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaMalloc(out, size);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: the allocator retries */
        st = CT_ERR_NOMEM;
    } else if (e != cudaSuccess) {
        st = ct_cuda_impl_error(e);
    }
    ct_cuda_impl_device_exit(&g);
    return st;
}

static ct_status raw_free(void *ctx, int32_t device, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaFree(ptr);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

static ct_status raw_mem_info(void *ctx, int32_t device, size_t *free_bytes, size_t *total) {
    (void)ctx;
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaMemGetInfo(free_bytes, total);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

static void probe(void) {
    int n = 0;
    /* No driver, an old driver, no GPU: all mean zero devices here. */
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
    }
    device_count = n < 0 ? 0 : n > CT_CUDA_ALLOC_MAX_DEVICES ? CT_CUDA_ALLOC_MAX_DEVICES : n;
    ct_cuda_alloc_raw raw = {.alloc = raw_alloc, .free = raw_free, .mem_info = raw_mem_info};
    if (ct_cuda_impl_alloc_new(&raw, &allocator) != CT_OK)
        allocator = NULL;
}

int32_t ct_cuda_impl_device_count(void) {
    pthread_once(&probe_once, probe);
    return device_count;
}

ct_status ct_cuda_impl_check_device(int32_t device, int32_t *out) {
    *out = -1;
    int32_t n = ct_cuda_impl_device_count();
    if (n == 0)
        return ct_set_error(CT_ERR_RUNTIME, CT_CUDA_NO_DRIVER_MESSAGE);
    if (device == -1) {
        int d = 0;
        cudaError_t e = cudaGetDevice(&d);
        if (e != cudaSuccess)
            return ct_cuda_impl_error(e);
        device = d;
    }
    if (device < 0 || device >= n)
        return ct_set_error(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    *out = device;
    return CT_OK;
}

ct_status ct_cuda_impl_device_enter(int32_t device, ct_cuda_impl_guard *guard) {
    guard->previous = -1;
    guard->device = device;
    int cur = 0;
    cudaError_t e = cudaGetDevice(&cur);
    if (e != cudaSuccess)
        return ct_cuda_impl_error(e);
    if (cur != device) {
        e = cudaSetDevice(device);
        if (e != cudaSuccess)
            return ct_cuda_impl_error(e);
    }
    guard->previous = cur;
    return CT_OK;
}

void ct_cuda_impl_device_exit(const ct_cuda_impl_guard *guard) {
    /* Switching back to a device that was current before cannot fail in practice; if it
     * does, the error is left for the next call to report rather than hidden here. */
    if (guard->previous >= 0 && guard->previous != guard->device)
        (void)cudaSetDevice(guard->previous);
}

/* ---- the backend's slots ------------------------------------------------------------------ */

static int32_t slot_device_count(void *ctx) {
    (void)ctx;
    return ct_cuda_impl_device_count();
}

static int32_t slot_get_device(void *ctx) {
    (void)ctx;
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return d;
}

static ct_status slot_set_device(void *ctx, int32_t index) {
    (void)ctx;
    cudaError_t e = cudaSetDevice(index);
    return e == cudaSuccess ? CT_OK : ct_cuda_impl_error(e);
}

static ct_status slot_allocate(void *ctx, int32_t index, size_t size, size_t align, void **out) {
    (void)ctx;
    *out = NULL;
    if (size == 0) /* like PyTorch: empty tensors own no device memory */
        return CT_OK;
    if (allocator == NULL)
        return ct_set_error(CT_ERR_NOMEM, "The cuda caching allocator could not be created");
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(index, &g);
    if (st != CT_OK)
        return st;
    void *p = NULL;
    st = ct_cuda_impl_alloc_malloc(allocator, index, ct_cuda_impl_current_stream(index), size, &p);
    /* cudaMalloc aligns to at least 256 bytes, which covers every alignment ctensor asks for
     * in practice; check rather than assume for the larger ones. */
    if (st == CT_OK && ((uintptr_t)p & (align - 1)) != 0) {
        (void)ct_cuda_impl_alloc_free(allocator, p);
        st = ct_set_error(CT_ERR_RUNTIME, "cudaMalloc returned memory not aligned to %zu bytes",
                          align);
        p = NULL;
    }
    ct_cuda_impl_device_exit(&g);
    *out = p;
    return st;
}

static void slot_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    (void)ctx, (void)index, (void)size, (void)align;
    /* Only bookkeeping: the block goes back to the cache of its stream, no CUDA call. */
    (void)ct_cuda_impl_alloc_free(allocator, ptr);
}

/* cudaMemcpyAsync on the device's current stream; `wait` waits for the stream. */
static ct_status copy_on_stream(int32_t index, void *dst, const void *src, size_t n,
                                enum cudaMemcpyKind kind, bool wait) {
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(index, &g);
    if (st != CT_OK)
        return st;
    cudaStream_t s = (cudaStream_t)ct_cuda_impl_current_stream(index);
    cudaError_t e = cudaMemcpyAsync(dst, src, n, kind, s);
    if (e == cudaSuccess && wait)
        e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

static ct_status slot_copy_h2d(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    (void)ctx;
    return copy_on_stream(index, dst, src, n, cudaMemcpyHostToDevice, true);
}

static ct_status slot_copy_d2h(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    (void)ctx;
    return copy_on_stream(index, dst, src, n, cudaMemcpyDeviceToHost, true);
}

/* Overlapping ranges on one device: cudaMemcpy's result is undefined for them, so copy
 * through a temporary block (stream-ordered, so it can go back to the cache at once). */
static ct_status copy_overlapping(int32_t index, char *dst, const char *src, size_t n) {
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(index, &g);
    if (st != CT_OK)
        return st;
    cudaStream_t s = (cudaStream_t)ct_cuda_impl_current_stream(index);
    void *tmp = NULL;
    st = ct_cuda_impl_alloc_malloc(allocator, index, s, n, &tmp);
    if (st == CT_OK) {
        cudaError_t e = cudaMemcpyAsync(tmp, src, n, cudaMemcpyDeviceToDevice, s);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(dst, tmp, n, cudaMemcpyDeviceToDevice, s);
        if (e != cudaSuccess)
            st = ct_cuda_impl_error(e);
        (void)ct_cuda_impl_alloc_free(allocator, tmp);
    }
    ct_cuda_impl_device_exit(&g);
    return st;
}

/* Make `waiter` (a stream of device `wdev`) wait for the work queued so far on `signal` (a
 * stream of device `sdev`). */
static ct_status stream_barrier(int32_t sdev, cudaStream_t signal, int32_t wdev, cudaStream_t waiter) {
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(sdev, &g);
    if (st != CT_OK)
        return st;
    cudaEvent_t ev = NULL;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventRecord(ev, signal);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    if (st == CT_OK) {
        st = ct_cuda_impl_device_enter(wdev, &g);
        if (st == CT_OK) {
            e = cudaStreamWaitEvent(waiter, ev, 0);
            if (e != cudaSuccess)
                st = ct_cuda_impl_error(e);
            ct_cuda_impl_device_exit(&g);
        }
    }
    if (ev != NULL) /* the wait has captured the event's state: destroying it is safe */
        (void)cudaEventDestroy(ev);
    return st;
}

static ct_status slot_copy_d2d(void *ctx, int32_t dst_index, void *dst, int32_t src_index,
                               const void *src, size_t n) {
    (void)ctx;
    if (dst_index == src_index) {
        uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
        if (d != s && (d < s ? s - d < n : d - s < n))
            return copy_overlapping(dst_index, dst, src, n);
        if (d == s)
            return CT_OK;
        return copy_on_stream(dst_index, dst, src, n, cudaMemcpyDeviceToDevice, false);
    }
    /* Between devices, as PyTorch does: the copy runs on the source's current stream after
     * the destination's current stream has caught up, and the destination's stream then
     * waits for the copy. */
    cudaStream_t ss = (cudaStream_t)ct_cuda_impl_current_stream(src_index);
    cudaStream_t ds = (cudaStream_t)ct_cuda_impl_current_stream(dst_index);
    ct_status st = stream_barrier(dst_index, ds, src_index, ss);
    if (st != CT_OK)
        return st;
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(src_index, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaMemcpyPeerAsync(dst, dst_index, src, src_index, n, ss);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    if (st == CT_OK)
        st = stream_barrier(src_index, ss, dst_index, ds);
    return st;
}

static ct_status slot_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                           size_t pattern_size) {
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(index, &g);
    if (st != CT_OK)
        return st;
    st = ct_cuda_impl_fill(ctx, index, dst, n, pattern, pattern_size);
    ct_cuda_impl_device_exit(&g);
    return st;
}

static ct_status slot_launch(void *ctx, int32_t index, const ct_kernel_launch *launch) {
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(index, &g);
    if (st != CT_OK)
        return st;
    st = ct_cuda_impl_launch(ctx, index, launch);
    ct_cuda_impl_device_exit(&g);
    return st;
}

static ct_status slot_synchronize(void *ctx, int32_t index) {
    (void)ctx;
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(index, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

static const char *slot_no_devices_message(void *ctx) {
    (void)ctx;
    return CT_CUDA_NO_DRIVER_MESSAGE;
}

/* ---- the public API ------------------------------------------------------------------------- */

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool registered;

ct_status ct_cuda_init(void) {
    (void)ct_cuda_impl_device_count(); /* the probe */
    /* A mutex rather than a once: a registration refused because another backend held the
     * slot may be tried again after that one is unregistered. */
    pthread_mutex_lock(&init_lock);
    ct_status st = CT_OK;
    /* ct_backend_unregister (tests, shutdown) may have removed it since: register again. */
    if (registered && !ct_backend_is_registered(CT_DEVICE_CUDA))
        registered = false;
    if (!registered) {
        ct_backend b = {
            .api_version = CT_BACKEND_API_VERSION,
            .device_type = CT_DEVICE_CUDA,
            .device_count = slot_device_count,
            .get_device = slot_get_device,
            .set_device = slot_set_device,
            .allocate = slot_allocate,
            .free = slot_free,
            .copy_h2d = slot_copy_h2d,
            .copy_d2h = slot_copy_d2h,
            .copy_d2d = slot_copy_d2d,
            .fill = slot_fill,
            .synchronize = slot_synchronize,
            .launch = slot_launch,
            .no_devices_message = slot_no_devices_message,
        };
        st = ct_backend_register(&b);
        registered = st == CT_OK;
    }
    pthread_mutex_unlock(&init_lock);
    return st;
}

bool ct_cuda_is_available(void) {
    pthread_mutex_lock(&init_lock);
    bool r = registered && ct_backend_is_registered(CT_DEVICE_CUDA);
    pthread_mutex_unlock(&init_lock);
    return r && ct_cuda_impl_device_count() > 0;
}

int32_t ct_cuda_device_count(void) { return ct_cuda_impl_device_count(); }

ct_status ct_cuda_synchronize(int32_t device) {
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    return slot_synchronize(NULL, d);
}

ct_status ct_cuda_get_device_properties(int32_t device, char *name, size_t size, int32_t *major,
                                        int32_t *minor, int64_t *total_memory,
                                        int32_t *multi_processor_count) {
    if (name != NULL && size > 0)
        name[0] = '\0';
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    cudaError_t e = cudaGetDeviceProperties(&prop, d);
    if (e != cudaSuccess)
        return ct_cuda_impl_error(e);
    if (name != NULL && size > 0)
        snprintf(name, size, "%s", prop.name);
    if (major != NULL)
        *major = prop.major;
    if (minor != NULL)
        *minor = prop.minor;
    if (total_memory != NULL)
        *total_memory = (int64_t)prop.totalGlobalMem;
    if (multi_processor_count != NULL)
        *multi_processor_count = prop.multiProcessorCount;
    return CT_OK;
}

ct_status ct_cuda_memory_stats_get(int32_t device, ct_cuda_memory_stats *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_memory_stats_get: out is NULL");
    *out = (ct_cuda_memory_stats){0};
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    ct_cuda_impl_alloc_stats(allocator, d, out);
    return CT_OK;
}

ct_status ct_cuda_reset_peak_memory_stats(int32_t device) {
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    ct_cuda_impl_alloc_reset_peaks(allocator, d);
    return CT_OK;
}

ct_status ct_cuda_empty_cache(void) {
    (void)ct_cuda_impl_device_count(); /* the probe creates the allocator */
    return ct_cuda_impl_alloc_empty_cache(allocator, -1);
}
