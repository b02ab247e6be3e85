/* Host allocation hooks (include/ctensor/alloc.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "base/alloc_impl.h"
#include "ctensor/alloc.h"

static void *default_alloc(void *ctx, size_t size, size_t align) {
    (void)ctx;
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    if (posix_memalign(&p, align, size ? size : 1) != 0)
        return NULL;
    return p;
}

static void default_free(void *ctx, void *ptr, size_t size, size_t align) {
    (void)ctx;
    (void)size;
    (void)align;
    free(ptr);
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
        ct_set_error(CT_ERR_MISUSE, "ct_alloc: alignment %zu is not a power of two <= 4096", align);
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
