/* The host memory cache (include/ctensor/alloc.h), used by the cpu backend.
 *
 * Note [Host cache]
 * glibc serves blocks above its mmap threshold (128 KiB, rising to at most 32 MiB) with
 * fresh mappings and unmaps them on free. A 40 MB result made again and again therefore
 * faults in ten thousand zeroed pages each time, which costs about three times the add that
 * fills them. Keeping a few freed large blocks turns that into plain reuse of warm pages.
 *  - Exact size classes (4 KiB rounding) rather than best fit: a loop asks for the same
 *    sizes again, and a class never hands out a block much larger than asked.
 *  - A small table under a mutex: large allocations are rare next to the work done on
 *    them, and small ones (below CT_HOST_CACHE_MIN_BYTES) never take the lock.
 *  - Sizes of this class are rounded whether or not caching is on, so a block's free always
 *    repeats the size its allocation asked for, whatever the limit did in between.
 *  - Each kept block remembers the allocator that would have freed it; a request only takes
 *    blocks of the allocator in use, and emptying frees each by its own. ct_set_allocator
 *    empties the cache, so an allocator being replaced gets all its blocks back.
 *  - Allocator calls happen outside the lock (an allocator may be slow or call back in).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "base/alloc_impl.h"
#include "base/host_cache.h"
#include "ctensor/alloc.h"

#define PAGE ((size_t)4096)
#define MAX_DEFAULT_LIMIT ((size_t)1 << 31)
#define UNSET SIZE_MAX

typedef struct entry {
    void *ptr;
    size_t size, align; /* as asked of the allocator */
    ct_allocator owner;
    unsigned long long age; /* larger is newer */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry kept[CT_HOST_CACHE_MAX_BLOCKS];
static int nkept;
static size_t kept_bytes;
static size_t limit = UNSET;
static unsigned long long clock_, hits, misses;

/* A quarter of physical memory, at most 2 GiB. */
static size_t default_limit(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0)
        return MAX_DEFAULT_LIMIT / 4;
    uintmax_t quarter = (uintmax_t)pages / 4 * (uintmax_t)psize;
    return quarter < MAX_DEFAULT_LIMIT ? (size_t)quarter : MAX_DEFAULT_LIMIT;
}

/* Under the lock. */
static size_t current_limit(void) {
    if (limit == UNSET)
        limit = default_limit();
    return limit;
}

static bool same_owner(const ct_allocator *a, const ct_allocator *b) {
    return a->ctx == b->ctx && a->alloc == b->alloc && a->free == b->free;
}

/* Under the lock: remove entry i, returning it. */
static entry take(int i) {
    entry e = kept[i];
    kept_bytes -= e.size;
    kept[i] = kept[--nkept];
    return e;
}

static entry take_oldest(void) {
    int old = 0;
    for (int i = 1; i < nkept; i++)
        if (kept[i].age < kept[old].age)
            old = i;
    return take(old);
}

/* Outside the lock: give blocks back to the allocators that made them. */
static void release(const entry *e, int n) {
    for (int i = 0; i < n; i++)
        e[i].owner.free(e[i].owner.ctx, e[i].ptr, e[i].size, e[i].align);
}

static bool cacheable(size_t size) {
    return size >= CT_HOST_CACHE_MIN_BYTES && size <= SIZE_MAX - PAGE;
}

static size_t size_class(size_t size) { return (size + PAGE - 1) & ~(PAGE - 1); }

void *ct_host_cache_impl_alloc(size_t size, size_t align) {
    if (!cacheable(size))
        return ct_alloc(size, align);
    size_t asked = size;
    size = size_class(size);
    ct_allocator cur = ct_get_allocator();
    void *p = NULL;
    pthread_mutex_lock(&lock);
    int pick = -1; /* the newest match: its pages are the likeliest still in cache */
    for (int i = 0; i < nkept; i++)
        if (kept[i].size == size && kept[i].align == align && same_owner(&kept[i].owner, &cur) &&
            (pick < 0 || kept[i].age > kept[pick].age))
            pick = i;
    if (pick >= 0) {
        p = take(pick).ptr;
        hits++;
    } else {
        misses++;
    }
    bool holding = nkept > 0;
    pthread_mutex_unlock(&lock);
    if (p != NULL)
        return p;
    p = ct_alloc(size, align);
    if (p == NULL && holding) { /* kept blocks may be what the allocator is missing */
        ct_host_cache_empty();
        p = ct_alloc(size, align);
    }
    if (p == NULL && ct_last_error_kind() == CT_ERR_NOMEM) /* the size the caller knows */
        ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", asked);
    return p;
}

void ct_host_cache_impl_free(void *ptr, size_t size, size_t align) {
    if (ptr == NULL)
        return;
    if (!cacheable(size)) {
        ct_free(ptr, size, align);
        return;
    }
    entry e = {ptr, size_class(size), align, ct_get_allocator(), 0};
    entry out[CT_HOST_CACHE_MAX_BLOCKS + 1];
    int nout = 0;
    pthread_mutex_lock(&lock);
    size_t lim = current_limit();
    if (e.size > lim) {
        out[nout++] = e;
    } else {
        while (nkept == CT_HOST_CACHE_MAX_BLOCKS || kept_bytes + e.size > lim)
            out[nout++] = take_oldest();
        e.age = ++clock_;
        kept[nkept++] = e;
        kept_bytes += e.size;
    }
    pthread_mutex_unlock(&lock);
    release(out, nout);
}

void ct_host_cache_empty(void) {
    entry out[CT_HOST_CACHE_MAX_BLOCKS];
    int nout = 0;
    pthread_mutex_lock(&lock);
    while (nkept > 0)
        out[nout++] = take(nkept - 1);
    pthread_mutex_unlock(&lock);
    release(out, nout);
}

void ct_host_cache_set_limit(size_t bytes) {
    entry out[CT_HOST_CACHE_MAX_BLOCKS];
    int nout = 0;
    pthread_mutex_lock(&lock);
    limit = bytes == UNSET ? UNSET - 1 : bytes; /* UNSET would mean "the default" */
    while (kept_bytes > limit)
        out[nout++] = take_oldest();
    pthread_mutex_unlock(&lock);
    release(out, nout);
}

ct_host_cache_stats ct_host_cache_get_stats(void) {
    pthread_mutex_lock(&lock);
    ct_host_cache_stats s = {(size_t)nkept, kept_bytes, current_limit(), hits, misses};
    pthread_mutex_unlock(&lock);
    return s;
}
