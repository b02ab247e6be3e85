/* Internal host allocation through the installed ct_allocator. */
#ifndef CT_BASE_ALLOC_IMPL_H
#define CT_BASE_ALLOC_IMPL_H

#include <stddef.h>

/* Allocate `size` bytes aligned to `align`; on failure sets CT_ERR_NOMEM and returns NULL.
 * size 0 allocates a minimal block (never NULL on success). */
void *ct_alloc(size_t size, size_t align);
/* Free memory from ct_alloc with the same size and alignment. NULL is ignored. */
void ct_free(void *ptr, size_t size, size_t align);

/* Parts of a block that nobody may touch (padding carved around aligned or inline data),
 * marked for AddressSanitizer so that overruns into them are still reported. No-ops in
 * other builds. */
#if defined(__SANITIZE_ADDRESS__)
#define CT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CT_ASAN 1
#endif
#endif
#ifdef CT_ASAN
#include <sanitizer/asan_interface.h>
#define CT_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define CT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define CT_POISON(p, n) ((void)(p), (void)(n))
#define CT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif /* CT_BASE_ALLOC_IMPL_H */
