/* Internal host allocation through the installed ct_allocator. */
#ifndef CT_BASE_ALLOC_IMPL_H
#define CT_BASE_ALLOC_IMPL_H

#include <stddef.h>

/* Allocate `size` bytes aligned to `align`; on failure sets CT_ERR_NOMEM and returns NULL.
 * size 0 allocates a minimal block (never NULL on success). */
void *ct_alloc(size_t size, size_t align);
/* Free memory from ct_alloc with the same size and alignment. NULL is ignored. */
void ct_free(void *ptr, size_t size, size_t align);

#endif /* CT_BASE_ALLOC_IMPL_H */
