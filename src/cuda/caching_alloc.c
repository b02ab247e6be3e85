/* The caching device allocator's bookkeeping (caching_alloc.h). Plain C, no CUDA headers.
 *
 * Every block is in exactly one of two chained hash tables: `live` (handed out, keyed by
 * its pointer) or `cached` (free, keyed by device, stream and size class), linked through
 * its `next` field. */
#include "cuda/caching_alloc.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define SMALL_CLASS ((size_t)512)
#define MAX_STEP ((size_t)2 << 20)
#define MAX_ROUNDABLE ((size_t)1 << 62)
#define MIN_BUCKETS 64

typedef struct block {
    void *ptr;
    size_t size; /* the size class (what the raw allocation got) */
    int32_t device;
    void *stream;
    struct block *next;
} block;

typedef struct table {
    block **buckets;
    size_t nbuckets; /* a power of two */
    size_t count;
} table;

typedef struct dev_stats {
    int64_t allocated, max_allocated, reserved, max_reserved, num_device_allocs, cached_blocks;
} dev_stats;

struct ct_cuda_caching_alloc {
    pthread_mutex_t lock;
    ct_cuda_alloc_raw raw;
    table live, cached;
    dev_stats stats[CT_CUDA_ALLOC_MAX_DEVICES];
};

/* ---- sizes ---------------------------------------------------------------------------- */

size_t ct_cuda_impl_alloc_round(size_t size) {
    if (size <= SMALL_CLASS)
        return SMALL_CLASS;
    if (size > MAX_ROUNDABLE)
        return 0;
    size_t p = SMALL_CLASS; /* the largest power of two <= size */
    while (p <= size / 2)
        p *= 2;
    size_t step = p / 4 < MAX_STEP ? p / 4 : MAX_STEP;
    return (size + step - 1) / step * step;
}

void ct_cuda_impl_format_size(uint64_t bytes, char *buf, size_t size) {
    if (bytes < 1024)
        snprintf(buf, size, "%" PRIu64 " bytes", bytes);
    else if (bytes < ((uint64_t)1 << 20))
        snprintf(buf, size, "%.2f KiB", (double)bytes / 1024.0);
    else if (bytes < ((uint64_t)1 << 30))
        snprintf(buf, size, "%.2f MiB", (double)bytes / 1048576.0);
    else
        snprintf(buf, size, "%.2f GiB", (double)bytes / 1073741824.0);
}

/* ---- hash tables ---------------------------------------------------------------------- */

static size_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)h;
}

static size_t live_hash(const void *ptr) { return mix((uint64_t)(uintptr_t)ptr); }

static size_t cached_hash(int32_t device, const void *stream, size_t size) {
    return mix((uint64_t)(uintptr_t)stream * 31u + (uint64_t)size * 131u + (uint64_t)device);
}

static bool table_init(table *t) {
    t->buckets = calloc(MIN_BUCKETS, sizeof *t->buckets);
    t->nbuckets = MIN_BUCKETS;
    t->count = 0;
    return t->buckets != NULL;
}

/* Grow when the load passes 1; a failed grow only keeps chains longer. */
static void table_grow(table *t, bool is_live) {
    if (t->count < t->nbuckets)
        return;
    size_t n = t->nbuckets * 2;
    block **nb = calloc(n, sizeof *nb);
    if (nb == NULL)
        return;
    for (size_t i = 0; i < t->nbuckets; i++) {
        block *b = t->buckets[i];
        while (b != NULL) {
            block *next = b->next;
            size_t h = is_live ? live_hash(b->ptr) : cached_hash(b->device, b->stream, b->size);
            b->next = nb[h & (n - 1)];
            nb[h & (n - 1)] = b;
            b = next;
        }
    }
    free(t->buckets);
    t->buckets = nb;
    t->nbuckets = n;
}

static void live_insert(table *t, block *b) {
    table_grow(t, true);
    size_t i = live_hash(b->ptr) & (t->nbuckets - 1);
    b->next = t->buckets[i];
    t->buckets[i] = b;
    t->count++;
}

static block *live_remove(table *t, const void *ptr) {
    block **link = &t->buckets[live_hash(ptr) & (t->nbuckets - 1)];
    for (; *link != NULL; link = &(*link)->next) {
        if ((*link)->ptr == ptr) {
            block *b = *link;
            *link = b->next;
            b->next = NULL;
            t->count--;
            return b;
        }
    }
    return NULL;
}

static void cached_insert(table *t, block *b) {
    table_grow(t, false);
    size_t i = cached_hash(b->device, b->stream, b->size) & (t->nbuckets - 1);
    b->next = t->buckets[i];
    t->buckets[i] = b;
    t->count++;
}

static block *cached_take(table *t, int32_t device, void *stream, size_t size) {
    block **link = &t->buckets[cached_hash(device, stream, size) & (t->nbuckets - 1)];
    for (; *link != NULL; link = &(*link)->next) {
        block *b = *link;
        if (b->device == device && b->stream == stream && b->size == size) {
            *link = b->next;
            b->next = NULL;
            t->count--;
            return b;
        }
    }
    return NULL;
}

/* ---- the allocator -------------------------------------------------------------------- */

ct_status ct_cuda_impl_alloc_new(const ct_cuda_alloc_raw *raw, ct_cuda_caching_alloc **out) {
    if (out == NULL || raw == NULL || raw->alloc == NULL || raw->free == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_impl_alloc_new: NULL argument or callback");
    *out = NULL;
    ct_cuda_caching_alloc *a = calloc(1, sizeof *a);
    if (a == NULL)
        return ct_set_error(CT_ERR_NOMEM, "Out of memory for the cuda caching allocator");
    a->raw = *raw;
    if (!table_init(&a->live) || !table_init(&a->cached) ||
        pthread_mutex_init(&a->lock, NULL) != 0) {
        free(a->live.buckets);
        free(a->cached.buckets);
        free(a);
        return ct_set_error(CT_ERR_NOMEM, "Out of memory for the cuda caching allocator");
    }
    *out = a;
    return CT_OK;
}

static void bump(int64_t *value, int64_t *peak, int64_t delta) {
    *value += delta;
    if (*value > *peak)
        *peak = *value;
}

/* Return the cached blocks of `device` (-1: all); the lock is held. */
static ct_status release_cached(ct_cuda_caching_alloc *a, int32_t device) {
    ct_status first = CT_OK;
    char first_msg[256] = "";
    for (size_t i = 0; i < a->cached.nbuckets; i++) {
        block **link = &a->cached.buckets[i];
        while (*link != NULL) {
            block *b = *link;
            if (device >= 0 && b->device != device) {
                link = &b->next;
                continue;
            }
            *link = b->next;
            a->cached.count--;
            ct_status st = a->raw.free(a->raw.ctx, b->device, b->ptr, b->size);
            if (st != CT_OK && first == CT_OK) {
                first = st;
                snprintf(first_msg, sizeof first_msg, "%s", ct_last_error());
            }
            /* Counted as returned even if the driver complained: the block is unusable. */
            dev_stats *s = &a->stats[b->device];
            s->reserved -= (int64_t)b->size;
            s->cached_blocks--;
            free(b);
        }
    }
    if (first != CT_OK)
        return ct_set_error(first, "%s", first_msg);
    return CT_OK;
}

void ct_cuda_impl_alloc_destroy(ct_cuda_caching_alloc *a) {
    if (a == NULL)
        return;
    release_cached(a, -1);
    for (size_t i = 0; i < a->live.nbuckets; i++) {
        block *b = a->live.buckets[i];
        while (b != NULL) {
            block *next = b->next;
            free(b);
            b = next;
        }
    }
    free(a->live.buckets);
    free(a->cached.buckets);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

static ct_status out_of_memory(ct_cuda_caching_alloc *a, int32_t device, size_t size) {
    char want[32], total[32], avail[32], used[32], unused[32];
    const dev_stats *s = &a->stats[device];
    ct_cuda_impl_format_size(size, want, sizeof want);
    ct_cuda_impl_format_size((uint64_t)s->allocated, used, sizeof used);
    ct_cuda_impl_format_size((uint64_t)(s->reserved - s->allocated), unused, sizeof unused);
    size_t free_bytes = 0, total_bytes = 0;
    char capacity[128] = "";
    if (a->raw.mem_info != NULL &&
        a->raw.mem_info(a->raw.ctx, device, &free_bytes, &total_bytes) == CT_OK) {
        ct_cuda_impl_format_size(total_bytes, total, sizeof total);
        ct_cuda_impl_format_size(free_bytes, avail, sizeof avail);
        snprintf(capacity, sizeof capacity, " GPU %d has a total capacity of %s of which %s is free.",
                 (int)device, total, avail);
    }
    return ct_set_error(CT_ERR_NOMEM,
                        "CUDA out of memory. Tried to allocate %s.%s Of the allocated memory %s is "
                        "allocated by ctensor, and %s is reserved by ctensor but unallocated. If "
                        "reserved but unallocated memory is large, ct_cuda_empty_cache() returns "
                        "it to the driver.",
                        want, capacity, used, unused);
}

ct_status ct_cuda_impl_alloc_malloc(ct_cuda_caching_alloc *a, int32_t device, void *stream,
                                    size_t size, void **out) {
    if (a == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_impl_alloc_malloc: NULL argument");
    *out = NULL;
    if (device < 0 || device >= CT_CUDA_ALLOC_MAX_DEVICES)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_impl_alloc_malloc: device %d out of range",
                            (int)device);
    size_t rounded = ct_cuda_impl_alloc_round(size);
    pthread_mutex_lock(&a->lock);
    ct_status st = CT_OK;
    dev_stats *s = &a->stats[device];
    block *b = rounded == 0 ? NULL : cached_take(&a->cached, device, stream, rounded);
    if (b != NULL) {
        s->cached_blocks--;
    } else if (rounded == 0) {
        st = out_of_memory(a, device, size);
    } else {
        b = malloc(sizeof *b);
        if (b == NULL) {
            st = ct_set_error(CT_ERR_NOMEM, "Out of memory for the cuda caching allocator");
            goto done;
        }
        void *p = NULL;
        st = a->raw.alloc(a->raw.ctx, device, rounded, &p);
        if (st == CT_ERR_NOMEM) {
            /* PyTorch's rule: free the device's cached blocks, then try once more. */
            (void)release_cached(a, device);
            st = a->raw.alloc(a->raw.ctx, device, rounded, &p);
        }
        if (st != CT_OK) {
            free(b);
            b = NULL;
            if (st == CT_ERR_NOMEM)
                st = out_of_memory(a, device, rounded);
            goto done;
        }
        *b = (block){.ptr = p, .size = rounded, .device = device, .stream = stream};
        s->num_device_allocs++;
        bump(&s->reserved, &s->max_reserved, (int64_t)rounded);
    }
    if (b != NULL) {
        live_insert(&a->live, b);
        bump(&s->allocated, &s->max_allocated, (int64_t)b->size);
        *out = b->ptr;
    }
done:
    pthread_mutex_unlock(&a->lock);
    return st;
}

ct_status ct_cuda_impl_alloc_free(ct_cuda_caching_alloc *a, void *ptr) {
    if (a == NULL || ptr == NULL)
        return CT_OK;
    pthread_mutex_lock(&a->lock);
    block *b = live_remove(&a->live, ptr);
    if (b != NULL) {
        dev_stats *s = &a->stats[b->device];
        s->allocated -= (int64_t)b->size;
        s->cached_blocks++;
        cached_insert(&a->cached, b);
    }
    pthread_mutex_unlock(&a->lock);
    if (b == NULL)
        return ct_set_error(CT_ERR_MISUSE,
                            "cuda caching allocator: %p was not allocated by it (or freed twice)",
                            ptr);
    return CT_OK;
}

ct_status ct_cuda_impl_alloc_empty_cache(ct_cuda_caching_alloc *a, int32_t device) {
    if (a == NULL)
        return CT_OK;
    pthread_mutex_lock(&a->lock);
    ct_status st = release_cached(a, device);
    pthread_mutex_unlock(&a->lock);
    return st;
}

void ct_cuda_impl_alloc_stats(ct_cuda_caching_alloc *a, int32_t device, ct_cuda_memory_stats *out) {
    *out = (ct_cuda_memory_stats){0};
    if (a == NULL || device < 0 || device >= CT_CUDA_ALLOC_MAX_DEVICES)
        return;
    pthread_mutex_lock(&a->lock);
    const dev_stats *s = &a->stats[device];
    *out = (ct_cuda_memory_stats){
        .allocated = s->allocated,
        .max_allocated = s->max_allocated,
        .reserved = s->reserved,
        .max_reserved = s->max_reserved,
        .num_device_allocs = s->num_device_allocs,
    };
    pthread_mutex_unlock(&a->lock);
}

void ct_cuda_impl_alloc_reset_peaks(ct_cuda_caching_alloc *a, int32_t device) {
    if (a == NULL || device < 0 || device >= CT_CUDA_ALLOC_MAX_DEVICES)
        return;
    pthread_mutex_lock(&a->lock);
    dev_stats *s = &a->stats[device];
    s->max_allocated = s->allocated;
    s->max_reserved = s->reserved;
    pthread_mutex_unlock(&a->lock);
}

int64_t ct_cuda_impl_alloc_cached_blocks(ct_cuda_caching_alloc *a, int32_t device) {
    if (a == NULL)
        return 0;
    pthread_mutex_lock(&a->lock);
    int64_t n = 0;
    for (int32_t d = 0; d < CT_CUDA_ALLOC_MAX_DEVICES; d++)
        if (device < 0 || d == device)
            n += a->stats[d].cached_blocks;
    pthread_mutex_unlock(&a->lock);
    return n;
}
