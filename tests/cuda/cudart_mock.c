/* A host-memory stand-in for the CUDA runtime functions the cuda backend's runtime uses
 * (runtime.c, stream.c, pinned.c), so test_cuda_runtime.c also runs on machines without a
 * GPU (test_cuda_runtime_mock). It is strict where a real GPU would be: device memory must be
 * used while its device is current, streams and events only on their own device, copies
 * must not overlap, frees must match their allocation; a violation aborts the test with a
 * message. Work is done at once (nothing is asynchronous), so it checks bookkeeping and
 * device discipline, not stream ordering. MOCK_CUDA_DEVICES sets the device count (default
 * 2, at most 16). It also provides the backend's `fill` (in host memory) and a `launch`
 * that reports CT_ERR_NOT_IMPLEMENTED, in place of launch.c and the kernels. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_impl.h"
#include "launch_host.h"

#define MAX_DEVICES 16
#define STREAM_MAGIC 0x5757
#define EVENT_MAGIC 0xE7E7

struct CUstream_st {
    int device;
    int magic;
};

struct CUevent_st {
    int device;
    bool timing;
    bool recorded;
    int magic;
};

/* Every allocation, device or pinned host memory. */
typedef struct region {
    char *p;
    size_t n;
    int device; /* -1 for pinned host memory */
    struct region *next;
} region;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static region *regions;
static size_t used[MAX_DEVICES];
static _Thread_local int current_device;
static _Thread_local cudaError_t last_error;

#define VIOLATION(...)                                     \
    do {                                                   \
        fprintf(stderr, "cudart mock: CUDA misuse: ");     \
        fprintf(stderr, __VA_ARGS__);                      \
        fprintf(stderr, "\n");                             \
        abort();                                           \
    } while (0)

static int device_count(void) {
    const char *e = getenv("MOCK_CUDA_DEVICES");
    int n = e != NULL ? atoi(e) : 2;
    return n < 0 ? 0 : n > MAX_DEVICES ? MAX_DEVICES : n;
}

static cudaError_t fail(cudaError_t e) {
    last_error = e;
    return e;
}

/* The region holding [p, p + n), or NULL. */
static region *find(const void *p, size_t n) {
    pthread_mutex_lock(&lock);
    region *r = regions;
    for (; r != NULL; r = r->next)
        if ((const char *)p >= r->p && (const char *)p + n <= r->p + (r->n > 0 ? r->n : 1))
            break;
    pthread_mutex_unlock(&lock);
    return r;
}

static void *add_region(size_t n, int device) {
    region *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->p = aligned_alloc(256, (n + 255) / 256 * 256 + 256);
    if (r->p == NULL) {
        free(r);
        return NULL;
    }
    memset(r->p, 0xAB, n); /* never zero by luck */
    r->n = n;
    r->device = device;
    pthread_mutex_lock(&lock);
    r->next = regions;
    regions = r;
    if (device >= 0)
        used[device] += n;
    pthread_mutex_unlock(&lock);
    return r->p;
}

static void remove_region(void *p, int device_or_host) {
    pthread_mutex_lock(&lock);
    for (region **link = &regions; *link != NULL; link = &(*link)->next) {
        region *r = *link;
        if (r->p != p)
            continue;
        if ((r->device < 0) != (device_or_host < 0))
            VIOLATION("%p freed with the wrong function", p);
        *link = r->next;
        if (r->device >= 0)
            used[r->device] -= r->n;
        pthread_mutex_unlock(&lock);
        free(r->p);
        free(r);
        return;
    }
    pthread_mutex_unlock(&lock);
    VIOLATION("free of %p, which is not an allocation", p);
}

static void check_device_memory(const void *p, size_t n, int device, const char *what) {
    region *r = find(p, n);
    if (r == NULL || r->device < 0)
        VIOLATION("%s: %zu bytes at %p are not device memory", what, n, p);
    if (r->device != device)
        VIOLATION("%s: memory of device %d used as device %d", what, r->device, device);
}

static void check_stream(cudaStream_t s, const char *what) {
    if (s != NULL && s->magic != STREAM_MAGIC)
        VIOLATION("%s: not a live stream", what);
    if (s != NULL && s->device != current_device)
        VIOLATION("%s: a stream of device %d used while device %d is current", what, s->device,
                  current_device);
}

static void check_event(cudaEvent_t e, const char *what) {
    if (e == NULL || e->magic != EVENT_MAGIC)
        VIOLATION("%s: not a live event", what);
}

/* ---- errors and devices ---- */

cudaError_t cudaGetLastError(void) {
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess:
        return "no error";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected";
    case cudaErrorNotReady:
        return "device not ready";
    default:
        return "unknown error (cudart mock)";
    }
}

cudaError_t cudaGetDeviceCount(int *n) {
    *n = device_count();
    return *n == 0 ? fail(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaGetDevice(int *d) {
    *d = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d >= device_count())
        return fail(cudaErrorInvalidDevice);
    current_device = d;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d) {
    if (d < 0 || d >= device_count())
        return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "cudart mock device %d", d);
    p->major = 9;
    p->minor = 0;
    p->totalGlobalMem = (size_t)80 << 30;
    p->multiProcessorCount = 132;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    *total = (size_t)80 << 30;
    pthread_mutex_lock(&lock);
    *free_bytes = *total - used[current_device];
    pthread_mutex_unlock(&lock);
    return cudaSuccess;
}

/* ---- memory ---- */

cudaError_t cudaMalloc(void **p, size_t n) {
    *p = NULL;
    if (n > ((size_t)1 << 40)) /* more than the mock's devices have */
        return fail(cudaErrorMemoryAllocation);
    *p = add_region(n, current_device);
    return *p == NULL ? fail(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t cudaFree(void *p) {
    if (p != NULL)
        remove_region(p, 0);
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) {
    (void)flags;
    *p = add_region(n, -1);
    return *p == NULL ? fail(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t cudaFreeHost(void *p) {
    remove_region(p, -1);
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
    memset(a, 0, sizeof *a);
    region *r = find(p, 0);
    a->type = r == NULL ? cudaMemoryTypeUnregistered
                        : r->device < 0 ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
    a->device = r != NULL && r->device >= 0 ? r->device : 0;
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                            cudaStream_t s) {
    check_stream(s, "cudaMemcpyAsync");
    bool to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (to_device)
        check_device_memory(dst, n, current_device, "cudaMemcpyAsync destination");
    else if (find(dst, n) != NULL && find(dst, n)->device >= 0)
        VIOLATION("cudaMemcpyAsync: a host destination %p is device memory", dst);
    if (from_device)
        check_device_memory(src, n, current_device, "cudaMemcpyAsync source");
    else if (find(src, n) != NULL && find(src, n)->device >= 0)
        VIOLATION("cudaMemcpyAsync: a host source %p is device memory", src);
    if ((const char *)dst < (const char *)src + n && (const char *)src < (const char *)dst + n)
        VIOLATION("cudaMemcpyAsync: overlapping ranges");
    memcpy(dst, src, n);
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                size_t n, cudaStream_t s) {
    check_stream(s, "cudaMemcpyPeerAsync");
    check_device_memory(dst, n, dst_device, "cudaMemcpyPeerAsync destination");
    check_device_memory(src, n, src_device, "cudaMemcpyPeerAsync source");
    memcpy(dst, src, n);
    return cudaSuccess;
}

/* ---- streams and events ---- */

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    *least = 0;
    *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int priority) {
    if (flags != cudaStreamNonBlocking || priority < -5 || priority > 0)
        VIOLATION("cudaStreamCreateWithPriority: flags %u, priority %d", flags, priority);
    *s = calloc(1, sizeof **s);
    if (*s == NULL)
        return fail(cudaErrorMemoryAllocation);
    (*s)->device = current_device;
    (*s)->magic = STREAM_MAGIC;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (s == NULL)
        VIOLATION("cudaStreamDestroy of the default stream");
    check_stream(s, "cudaStreamDestroy");
    s->magic = 0;
    free(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    check_stream(s, "cudaStreamSynchronize");
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t s) {
    check_stream(s, "cudaStreamQuery");
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
    *e = calloc(1, sizeof **e);
    if (*e == NULL)
        return fail(cudaErrorMemoryAllocation);
    (*e)->device = current_device;
    (*e)->timing = !(flags & cudaEventDisableTiming);
    (*e)->magic = EVENT_MAGIC;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
    check_event(e, "cudaEventDestroy");
    e->magic = 0;
    free(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    check_event(e, "cudaEventRecord");
    check_stream(s, "cudaEventRecord");
    if (e->device != current_device)
        VIOLATION("cudaEventRecord: an event of device %d recorded on device %d", e->device,
                  current_device);
    e->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
    (void)flags;
    check_event(e, "cudaStreamWaitEvent");
    check_stream(s, "cudaStreamWaitEvent");
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    check_event(e, "cudaEventSynchronize");
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e) {
    check_event(e, "cudaEventQuery");
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    check_event(start, "cudaEventElapsedTime");
    check_event(end, "cudaEventElapsedTime");
    if (!start->timing || !end->timing || !start->recorded || !end->recorded)
        return fail(cudaErrorInvalidResourceHandle);
    *ms = 0.5f;
    return cudaSuccess;
}

/* ---- the backend's kernel slots, in place of launch.c ---- */

ct_status ct_cuda_impl_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                            size_t pattern_size) {
    (void)ctx;
    if (index != current_device)
        VIOLATION("fill on device %d while device %d is current", (int)index, current_device);
    check_device_memory(dst, n, index, "fill");
    for (size_t i = 0; i < n; i += pattern_size)
        memcpy((char *)dst + i, pattern, pattern_size);
    return CT_OK;
}

/* Launches run on the host with the GPU kernels' element code (tests/unit/launch_host.h):
 * copies with a dtype or layout change and fills of strided views reach this slot. */
ct_status ct_cuda_impl_launch(void *ctx, int32_t index, const ct_kernel_launch *launch) {
    if (index != current_device)
        VIOLATION("launch on device %d while device %d is current", (int)index, current_device);
    return host_launch(ctx, index, launch);
}
