/* Host memory of the dist layer through the ct_allocator hooks (include/ctensor/alloc.h
 * promises them for all of ctensor's host memory). libctensor_dist cannot reach the core's
 * hidden ct_alloc, so each block carries a small header: the size the allocator was asked
 * for and the allocator that made it, so that a block is freed by its own allocator even if
 * another was installed meanwhile (the communicator cache outlives test allocators). */
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "ctensor/alloc.h"
#include "dist/dist_impl.h"

typedef struct block_head {
    ct_allocator allocator;
    size_t size; /* bytes asked of the allocator, header included */
} block_head;

/* The header rounded up so the user part keeps max_align_t alignment. */
#define HEAD_BYTES                                                                                 \
    ((sizeof(block_head) + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t))

void *ct_dist_impl_alloc(size_t size) {
    if (size > SIZE_MAX - HEAD_BYTES) {
        ct_set_error(CT_ERR_NOMEM, "out of memory (%zu bytes)", size);
        return NULL;
    }
    ct_allocator a = ct_get_allocator();
    size_t total = HEAD_BYTES + (size ? size : 1);
    char *p = a.alloc(a.ctx, total, alignof(max_align_t));
    if (p == NULL) {
        ct_set_error(CT_ERR_NOMEM, "out of memory (%zu bytes)", size);
        return NULL;
    }
    block_head *h = (block_head *)(void *)p;
    h->allocator = a;
    h->size = total;
    return p + HEAD_BYTES;
}

void *ct_dist_impl_calloc(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) {
        ct_set_error(CT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
        return NULL;
    }
    void *p = ct_dist_impl_alloc(n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

static block_head *head_of(void *ptr) { return (block_head *)(void *)((char *)ptr - HEAD_BYTES); }

void *ct_dist_impl_realloc(void *ptr, size_t size) {
    if (ptr == NULL)
        return ct_dist_impl_alloc(size);
    void *q = ct_dist_impl_alloc(size);
    if (q == NULL)
        return NULL; /* like realloc: the old block stays valid */
    size_t old = head_of(ptr)->size - HEAD_BYTES;
    memcpy(q, ptr, old < size ? old : size);
    ct_dist_impl_free(ptr);
    return q;
}

void ct_dist_impl_free(void *ptr) {
    if (ptr == NULL)
        return;
    block_head *h = head_of(ptr);
    ct_allocator a = h->allocator;
    a.free(a.ctx, h, h->size, alignof(max_align_t));
}
