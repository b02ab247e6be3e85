/* A counting allocator that can fail on demand, for tests that drive every allocation
 * point of an operation to failure (install with ct_set_allocator({NULL, fa_alloc, fa_free})).
 *  - live_allocs: blocks currently allocated (0 after a clean teardown means no leak);
 *  - calls: allocations attempted so far;
 *  - fail_at: the call number (1-based) that returns NULL; 0 = never.
 * Header-only with file-local state: include it from one test file per executable. */
#ifndef CT_TEST_FAULT_ALLOC_H
#define CT_TEST_FAULT_ALLOC_H

#include <stdlib.h>

static long live_allocs, calls, fail_at;

static void *fa_alloc(void *ctx, size_t size, size_t align) {
    (void)ctx;
    if (++calls == fail_at)
        return NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    if (posix_memalign(&p, align, size ? size : 1) != 0)
        return NULL;
    live_allocs++;
    return p;
}

static void fa_free(void *ctx, void *p, size_t size, size_t align) {
    (void)ctx;
    (void)size;
    (void)align;
    if (p != NULL) {
        live_allocs--;
        free(p);
    }
}

#endif /* CT_TEST_FAULT_ALLOC_H */
