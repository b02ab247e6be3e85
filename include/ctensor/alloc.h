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
 *  it before creating any object and restore it only after they are all released.
 *  Errors: CT_ERR_MISUSE if a given allocator lacks alloc or free. */
CT_API ct_status ct_set_allocator(const ct_allocator *allocator);

/** The allocator in use (a copy). */
CT_API ct_allocator ct_get_allocator(void);

CT_EXTERN_C_END

#endif /* CTENSOR_ALLOC_H */
