/* ctensor: host memory allocation hooks.
 *
 * All host memory ctensor allocates for its own objects goes through one hook table, so
 * that a program can route it to its own allocator, count it, or make it fail on purpose
 * (tests drive every allocation point to failure this way).
 */
#ifndef CTENSOR_ALLOC_H
#define CTENSOR_ALLOC_H

#include <stddef.h>

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** An allocator. `alloc` returns memory aligned to `align` (a power of two, at most 4096)
 *  or NULL; `free` receives the size and alignment that were asked for. */
typedef struct ct_allocator {
    void *ctx;
    void *(*alloc)(void *ctx, size_t size, size_t align);
    void (*free)(void *ctx, void *ptr, size_t size, size_t align);
} ct_allocator;

/** Install `allocator` for all later host allocations, or restore the default (aligned
 *  malloc) when it is NULL. Memory must be freed by the allocator that made it, so install
 *  it before creating any object and restore it only after they are all released. Empties
 *  the host memory cache first (below), through the allocator that made each block.
 *  Errors: CT_ERR_MISUSE if a given allocator lacks alloc or free. */
CT_API ct_status ct_set_allocator(const ct_allocator *allocator);

/** The allocator in use (a copy). */
CT_API ct_allocator ct_get_allocator(void);

/* ---- the host memory cache ------------------------------------------------------------
 * Freed cpu tensor memory of at least CT_HOST_CACHE_MIN_BYTES is kept for reuse instead of
 * going back to the allocator at once: an operation that makes a large result again and
 * again (c = a + b in a loop) then reuses the pages it touched last time rather than
 * faulting in fresh ones from the OS. A request takes a kept block of exactly its size
 * class (the size rounded up to 4 KiB, and the same alignment) made by the allocator in
 * use; otherwise it goes to the allocator, and if that fails, the cache is emptied and the
 * request retried once. Blocks of this size are asked of the allocator rounded up too.
 * The cache holds at most CT_HOST_CACHE_MAX_BLOCKS blocks and at most a byte limit
 * (default: a quarter of physical memory, at most 2 GiB); the oldest go first. Installing
 * an allocator (ct_set_allocator) empties it, each block freed by the allocator that made
 * it. Like torch.cuda's caching allocator, kept blocks count as allocated for the
 * allocator. Thread-safe. */
#define CT_HOST_CACHE_MIN_BYTES ((size_t)1 << 20)
#define CT_HOST_CACHE_MAX_BLOCKS 16

/** Free every kept block (torch.cuda.empty_cache()). */
CT_API void ct_host_cache_empty(void);

/** Keep at most `bytes` bytes of freed blocks; 0 turns the cache off. Blocks beyond a
 *  lowered limit are freed at once. */
CT_API void ct_host_cache_set_limit(size_t bytes);

/** What the cache holds and has done since the process started. */
typedef struct ct_host_cache_stats {
    size_t blocks;             /* kept blocks */
    size_t bytes;              /* their bytes */
    size_t limit;              /* the byte limit (0: off) */
    unsigned long long hits;   /* requests served from the cache */
    unsigned long long misses; /* cacheable requests that went to the allocator */
} ct_host_cache_stats;

CT_API ct_host_cache_stats ct_host_cache_get_stats(void);

CT_EXTERN_C_END

#endif /* CTENSOR_ALLOC_H */
