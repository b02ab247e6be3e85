/* A test backend over host memory, registrable under any device type (usually
 * privateuseone): `count` devices, a per-thread current device of its own, and a record of
 * every allocation, so each slot can check that the device layer passed the right index
 * for the pointers it got. Included by the device tests (header-only, all static). */
#ifndef CT_TEST_DEVICE_HOST_BACKEND_H
#define CT_TEST_DEVICE_HOST_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/backend.h"
#include "ctensor/status.h"

#define HB_MAX_ALLOCS 512

typedef struct hb_alloc {
    uintptr_t base;
    size_t size;
    int32_t index;
    bool live;
} hb_alloc;

typedef struct host_backend {
    int32_t count;
    bool fail_alloc; /* next allocations fail with CT_ERR_NOMEM */
    pthread_mutex_t mu;
    hb_alloc allocs[HB_MAX_ALLOCS];
    atomic_int n_alloc, n_free, n_h2d, n_d2h, n_d2d, n_fill, n_sync, n_set;
} host_backend;

/* The current device of every host backend, per thread (as a CUDA runtime keeps it). */
static _Thread_local int32_t hb_current;

static inline void hb_init(host_backend *hb, int32_t count) {
    memset(hb, 0, sizeof *hb);
    hb->count = count;
    pthread_mutex_init(&hb->mu, NULL);
}

static inline void hb_destroy(host_backend *hb) {
    for (int i = 0; i < HB_MAX_ALLOCS; i++)
        if (hb->allocs[i].live)
            free((void *)hb->allocs[i].base);
    pthread_mutex_destroy(&hb->mu);
}

static inline int hb_live(host_backend *hb) {
    int n = 0;
    pthread_mutex_lock(&hb->mu);
    for (int i = 0; i < HB_MAX_ALLOCS; i++)
        n += hb->allocs[i].live;
    pthread_mutex_unlock(&hb->mu);
    return n;
}

/* Does [p, p + n) lie inside a live allocation of device `index`? */
static inline bool hb_owns(host_backend *hb, int32_t index, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    bool ok = false;
    pthread_mutex_lock(&hb->mu);
    for (int i = 0; i < HB_MAX_ALLOCS && !ok; i++) {
        const hb_alloc *r = &hb->allocs[i];
        ok = r->live && r->index == index && a >= r->base && a - r->base <= r->size &&
             n <= r->size - (a - r->base);
    }
    pthread_mutex_unlock(&hb->mu);
    return ok;
}

static inline ct_status hb_not_owned(int32_t index, const void *p) {
    return ct_set_error(CT_ERR_RUNTIME, "host backend: %p is not memory of device %d", p,
                        (int)index);
}

static inline int32_t hb_device_count(void *ctx) { return ((host_backend *)ctx)->count; }
static inline int32_t hb_get_device(void *ctx) {
    (void)ctx;
    return hb_current;
}
static inline ct_status hb_set_device(void *ctx, int32_t index) {
    host_backend *hb = ctx;
    if (index < 0 || index >= hb->count) /* the device layer must have checked already */
        return ct_set_error(CT_ERR_RUNTIME, "host backend: bad index %d", (int)index);
    atomic_fetch_add(&hb->n_set, 1);
    hb_current = index;
    return CT_OK;
}

static inline ct_status hb_allocate(void *ctx, int32_t index, size_t size, size_t align,
                                    void **out) {
    host_backend *hb = ctx;
    *out = NULL;
    if (hb->fail_alloc)
        return ct_set_error(CT_ERR_NOMEM, "host backend: out of memory on device %d", (int)index);
    if (index < 0 || index >= hb->count)
        return ct_set_error(CT_ERR_RUNTIME, "host backend: bad index %d", (int)index);
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) != 0)
        return ct_set_error(CT_ERR_NOMEM, "host backend: out of memory");
    pthread_mutex_lock(&hb->mu);
    int i = 0;
    while (i < HB_MAX_ALLOCS && hb->allocs[i].live)
        i++;
    if (i < HB_MAX_ALLOCS)
        hb->allocs[i] = (hb_alloc){(uintptr_t)p, size, index, true};
    pthread_mutex_unlock(&hb->mu);
    if (i == HB_MAX_ALLOCS) {
        free(p);
        return ct_set_error(CT_ERR_NOMEM, "host backend: too many allocations");
    }
    atomic_fetch_add(&hb->n_alloc, 1);
    *out = p;
    return CT_OK;
}

static inline void hb_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    host_backend *hb = ctx;
    (void)align;
    pthread_mutex_lock(&hb->mu);
    for (int i = 0; i < HB_MAX_ALLOCS; i++) {
        hb_alloc *r = &hb->allocs[i];
        if (r->live && r->base == (uintptr_t)ptr && r->index == index && r->size == size) {
            r->live = false;
            free(ptr);
            atomic_fetch_add(&hb->n_free, 1);
            break;
        }
    }
    pthread_mutex_unlock(&hb->mu);
}

static inline ct_status hb_copy_h2d(void *ctx, int32_t index, void *dst, const void *src,
                                    size_t n) {
    host_backend *hb = ctx;
    if (!hb_owns(hb, index, dst, n))
        return hb_not_owned(index, dst);
    atomic_fetch_add(&hb->n_h2d, 1);
    memcpy(dst, src, n);
    return CT_OK;
}

static inline ct_status hb_copy_d2h(void *ctx, int32_t index, void *dst, const void *src,
                                    size_t n) {
    host_backend *hb = ctx;
    if (!hb_owns(hb, index, src, n))
        return hb_not_owned(index, src);
    atomic_fetch_add(&hb->n_d2h, 1);
    memcpy(dst, src, n);
    return CT_OK;
}

static inline ct_status hb_copy_d2d(void *ctx, int32_t di, void *dst, int32_t si, const void *src,
                                    size_t n) {
    host_backend *hb = ctx;
    if (!hb_owns(hb, di, dst, n))
        return hb_not_owned(di, dst);
    if (!hb_owns(hb, si, src, n))
        return hb_not_owned(si, src);
    atomic_fetch_add(&hb->n_d2d, 1);
    memmove(dst, src, n);
    return CT_OK;
}

static inline ct_status hb_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                                size_t psize) {
    host_backend *hb = ctx;
    if (!hb_owns(hb, index, dst, n))
        return hb_not_owned(index, dst);
    atomic_fetch_add(&hb->n_fill, 1);
    for (size_t i = 0; i < n; i += psize)
        memcpy((char *)dst + i, pattern, psize);
    return CT_OK;
}

static inline ct_status hb_synchronize(void *ctx, int32_t index) {
    host_backend *hb = ctx;
    if (index < 0 || index >= hb->count)
        return ct_set_error(CT_ERR_RUNTIME, "host backend: bad index %d", (int)index);
    atomic_fetch_add(&hb->n_sync, 1);
    return CT_OK;
}

/* A backend over `hb`. full = false leaves every optional slot NULL (device_count too, so
 * the layer's defaults run: one device, ctensor's own current index, staged copies). */
static inline ct_backend hb_backend(host_backend *hb, ct_device_type type, const char *name,
                                    bool full) {
    ct_backend b;
    memset(&b, 0, sizeof b);
    b.api_version = CT_BACKEND_API_VERSION;
    b.device_type = type;
    b.name = name;
    b.context = hb;
    b.allocate = hb_allocate;
    b.free = hb_free;
    b.copy_h2d = hb_copy_h2d;
    b.copy_d2h = hb_copy_d2h;
    if (full) {
        b.device_count = hb_device_count;
        b.get_device = hb_get_device;
        b.set_device = hb_set_device;
        b.copy_d2d = hb_copy_d2d;
        b.fill = hb_fill;
        b.synchronize = hb_synchronize;
    }
    return b;
}

#endif
