/* Internal entry points of the host memory cache (include/ctensor/alloc.h). */
#ifndef CT_BASE_HOST_CACHE_H
#define CT_BASE_HOST_CACHE_H

#include <stddef.h>

/* Like ct_alloc / ct_free (alloc_impl.h), through the cache for large blocks. A block must
 * be freed by the same pair it came from, with the size and alignment it was asked with. */
void *ct_host_cache_impl_alloc(size_t size, size_t align);
void ct_host_cache_impl_free(void *ptr, size_t size, size_t align);

#endif /* CT_BASE_HOST_CACHE_H */
