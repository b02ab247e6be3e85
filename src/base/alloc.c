/* Host allocation hooks (include/ctensor/alloc.h).
 *
 * Note [Default aligned allocation]
 * glibc's posix_memalign/aligned_alloc take a slow path (a search and a split) for every
 * alignment above 16, about five times the cost of a malloc from its per-thread cache. A
 * small tensor allocates its data 64-aligned, so the default allocator serves alignments
 * above malloc's own with malloc(size + align) and keeps the pointer malloc returned in the
 * word just before the aligned address; free finds it there (its caller repeats the
 * alignment). Under AddressSanitizer the unused head and tail are poisoned, so an overrun
 * of the asked size is still reported. */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/alloc_impl.h"
#include "ctensor/alloc.h"

/* What malloc guarantees by itself. */
#define MALLOC_ALIGN alignof(max_align_t)

static void *default_alloc(void *ctx, size_t size, size_t align) {
    (void)ctx;
    if (size == 0)
        size = 1;
    if (align <= MALLOC_ALIGN)
        return malloc(size);
    if (size > SIZE_MAX - align)
        return NULL;
    /* raw is MALLOC_ALIGN-aligned, so the aligned address leaves at least that much room
     * before it for the raw pointer, and at least `size` bytes after it */
    char *raw = malloc(size + align);
    if (raw == NULL)
        return NULL;
    char *p = (char *)(((uintptr_t)raw + align) & ~(uintptr_t)(align - 1));
    ((void **)p)[-1] = raw;
    CT_POISON(raw, (size_t)(p - raw));
    CT_POISON(p + size, (size_t)(raw + size + align - (p + size)));
    return p;
}

static void default_free(void *ctx, void *ptr, size_t size, size_t align) {
    (void)ctx;
    (void)size;
    if (align <= MALLOC_ALIGN) {
        free(ptr);
        return;
    }
    void **slot = (void **)ptr - 1;
    CT_UNPOISON(slot, sizeof *slot);
    free(*slot);
}

static ct_allocator current = {NULL, default_alloc, default_free};

ct_status ct_set_allocator(const ct_allocator *allocator) {
    if (allocator != NULL && (allocator->alloc == NULL || allocator->free == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_set_allocator: alloc and free must both be set");
    ct_host_cache_empty(); /* kept blocks go back to the allocator that made them */
    current = allocator != NULL ? *allocator : (ct_allocator){NULL, default_alloc, default_free};
    return CT_OK;
}

ct_allocator ct_get_allocator(void) { return current; }

void *ct_alloc(size_t size, size_t align) {
    if (align == 0 || (align & (align - 1)) != 0 || align > 4096) {
        ct_set_error(CT_ERR_MISUSE, "allocation alignment %zu is not a power of two <= 4096", align);
        return NULL;
    }
    void *p = current.alloc(current.ctx, size, align);
    if (p == NULL)
        ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", size);
    return p;
}

void ct_free(void *ptr, size_t size, size_t align) {
    if (ptr != NULL)
        current.free(current.ctx, ptr, size, align);
}
