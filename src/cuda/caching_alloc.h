/* The caching device allocator of the cuda backend: bookkeeping only, in plain C.
 *
 * The raw allocation (cudaMalloc / cudaFree in runtime.c, a fake one in the unit test) is
 * passed in, so the rules are tested on machines without a GPU. Rules:
 *  - sizes are rounded up to size classes (ct_cuda_impl_alloc_round): 512 B for small
 *    requests, then four classes per power of two with a step of at most 2 MiB, so a
 *    block wastes less than a quarter of the request and less than 2 MiB;
 *  - a freed block goes back to the cache of its (device, stream, size class) and serves
 *    the next request for that class on that stream without a raw allocation. Reuse on the
 *    stream the block was allocated on is safe without synchronisation, since work on one
 *    stream runs in order (a block used on another stream too is not tracked: PyTorch's
 *    record_stream is not supported);
 *  - cached blocks go back to the raw allocator only at empty_cache, or when a raw
 *    allocation fails: then the cache of that device is emptied and the allocation tried
 *    once more before "CUDA out of memory. Tried to allocate ..." (CT_ERR_NOMEM);
 *  - statistics per device (ct_cuda_memory_stats of ctensor/cuda.h).
 * All functions are thread-safe (one mutex). */
#ifndef CT_CUDA_CACHING_ALLOC_H
#define CT_CUDA_CACHING_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/cuda.h"
#include "ctensor/status.h"

/* Devices the allocator keeps statistics for (ctensor's device index limit). */
#define CT_CUDA_ALLOC_MAX_DEVICES 128

typedef struct ct_cuda_alloc_raw {
    void *ctx;
    /* Allocate `size` bytes on `device`. Returns CT_OK, CT_ERR_NOMEM (out of memory; no
     * message needed: the allocator words it) or another status with its message set. */
    ct_status (*alloc)(void *ctx, int32_t device, size_t size, void **out);
    /* Free memory from alloc (CT_OK, or a status with its message set). */
    ct_status (*free)(void *ctx, int32_t device, void *ptr, size_t size);
    /* (optional) The device's free and total memory, for the out-of-memory message. */
    ct_status (*mem_info)(void *ctx, int32_t device, size_t *free_bytes, size_t *total_bytes);
} ct_cuda_alloc_raw;

typedef struct ct_cuda_caching_alloc ct_cuda_caching_alloc;

/* A new allocator over `raw` (copied). Errors: CT_ERR_NOMEM. */
ct_status ct_cuda_impl_alloc_new(const ct_cuda_alloc_raw *raw, ct_cuda_caching_alloc **out);

/* Return every cached block, forget live ones (their memory stays with whoever holds it),
 * free the allocator. NULL is ignored. */
void ct_cuda_impl_alloc_destroy(ct_cuda_caching_alloc *a);

/* The size class of a request of `size` bytes; 0 when the request is too large to round
 * (above 2^62 bytes). */
size_t ct_cuda_impl_alloc_round(size_t size);

/* A block of at least `size` bytes (> 0) on `device` for work on `stream` (an opaque
 * handle; NULL is the default stream). Errors: CT_ERR_NOMEM "CUDA out of memory. Tried to
 * allocate 2.00 GiB. ..." after emptying the device's cache and retrying once; the raw
 * allocator's other errors; CT_ERR_MISUSE for a device index out of range. */
ct_status ct_cuda_impl_alloc_malloc(ct_cuda_caching_alloc *a, int32_t device, void *stream,
                                    size_t size, void **out);

/* Give a block back to the cache of the stream it was allocated on. NULL is ignored.
 * Errors: CT_ERR_MISUSE for a pointer this allocator did not hand out (nothing changes). */
ct_status ct_cuda_impl_alloc_free(ct_cuda_caching_alloc *a, void *ptr);

/* Return every cached free block of `device` (-1: all devices) to the raw allocator.
 * Every block is tried; the first raw error is returned. */
ct_status ct_cuda_impl_alloc_empty_cache(ct_cuda_caching_alloc *a, int32_t device);

/* The statistics of `device` (0 .. CT_CUDA_ALLOC_MAX_DEVICES-1; others give zeros). */
void ct_cuda_impl_alloc_stats(ct_cuda_caching_alloc *a, int32_t device, ct_cuda_memory_stats *out);

/* The peaks of `device` become the current values. */
void ct_cuda_impl_alloc_reset_peaks(ct_cuda_caching_alloc *a, int32_t device);

/* The number of cached free blocks of `device` (-1: all), for tests. */
int64_t ct_cuda_impl_alloc_cached_blocks(ct_cuda_caching_alloc *a, int32_t device);

/* PyTorch's format_size: "512 bytes", "1.50 KiB", "20.00 MiB", "2.00 GiB" into buf. */
void ct_cuda_impl_format_size(uint64_t bytes, char *buf, size_t size);

#endif /* CT_CUDA_CACHING_ALLOC_H */
