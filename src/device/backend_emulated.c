/* An accelerator emulated in host memory (backend.h), for tests and development.
 *
 * It behaves like a real accelerator as far as the device layer can tell: a fixed number of
 * devices, a current device per thread, memory that belongs to one device. Every allocation
 * is recorded with its device index, and each copy or fill checks that the device pointers it
 * receives lie inside live allocations of the device it was told, so a layer that passes the
 * wrong index fails here as it would fault on a GPU, instead of silently working on the host.
 *
 * One state per device type, reset whenever a fresh backend is made for that type (the
 * registry allows one backend per type, and refuses to unregister one that still owns
 * memory, so a reset never drops live allocations). Threads that chose a current device for
 * an earlier backend of the same type start again at device 0: each thread's choice carries
 * the generation of the backend it was made for.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "device/device_impl.h"

typedef struct emu_alloc {
    uintptr_t base;
    size_t size, align;
    int32_t index;
} emu_alloc;

typedef struct emulated {
    ct_device_type type;
    int32_t count;
    atomic_uint generation;
    emu_alloc *allocs; /* live allocations, unordered; under `lock` */
    size_t n, cap;
} emulated;

static emulated states[CT_NUM_DEVICE_TYPES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct current_choice {
    unsigned generation; /* 0: never chosen (generations start at 1) */
    int32_t index;
} current_choice;

static _Thread_local current_choice current[CT_NUM_DEVICE_TYPES];

static const char *name_of(const emulated *e) { return ct_device_type_name(e->type); }

static ct_status bad_index(const emulated *e, int32_t index) {
    return ct_set_error(CT_ERR_RUNTIME, "host-emulated %s: there is no device %d (%d devices)",
                        name_of(e), (int)index, (int)e->count);
}

/* Does [p, p + n) lie inside a live allocation of device `index`? */
static bool owns(emulated *e, int32_t index, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    bool ok = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < e->n && !ok; i++) {
        const emu_alloc *r = &e->allocs[i];
        ok = r->index == index && a >= r->base && a - r->base <= r->size &&
             n <= r->size - (a - r->base);
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

static ct_status not_owned(const emulated *e, int32_t index, const void *p, size_t n) {
    return ct_set_error(CT_ERR_RUNTIME,
                        "host-emulated %s: %zu bytes at %p are not memory of device %d", name_of(e),
                        n, p, (int)index);
}

/* ---- slots ---- */

static int32_t emu_device_count(void *ctx) { return ((emulated *)ctx)->count; }

static int32_t emu_get_device(void *ctx) {
    emulated *e = ctx;
    current_choice c = current[e->type];
    if (c.generation != atomic_load_explicit(&e->generation, memory_order_relaxed))
        return 0;
    return c.index;
}

static ct_status emu_set_device(void *ctx, int32_t index) {
    emulated *e = ctx;
    if (index < 0 || index >= e->count) /* the device layer checks first; stay safe anyway */
        return bad_index(e, index);
    current[e->type].generation = atomic_load_explicit(&e->generation, memory_order_relaxed);
    current[e->type].index = index;
    return CT_OK;
}

static ct_status emu_allocate(void *ctx, int32_t index, size_t size, size_t align, void **out) {
    emulated *e = ctx;
    *out = NULL;
    if (index < 0 || index >= e->count)
        return bad_index(e, index);
    void *p = ct_alloc(size, align); /* through the allocator hooks, so tests can fail it */
    if (p == NULL)
        return ct_last_error_kind();
    ct_status st = CT_OK;
    pthread_mutex_lock(&lock);
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16;
        emu_alloc *grown = ct_alloc(cap * sizeof *grown, _Alignof(emu_alloc));
        if (grown == NULL) {
            st = CT_ERR_NOMEM;
        } else {
            if (e->n > 0)
                memcpy(grown, e->allocs, e->n * sizeof *grown);
            ct_free(e->allocs, e->cap * sizeof *grown, _Alignof(emu_alloc));
            e->allocs = grown;
            e->cap = cap;
        }
    }
    if (st == CT_OK)
        e->allocs[e->n++] = (emu_alloc){(uintptr_t)p, size, align, index};
    pthread_mutex_unlock(&lock);
    if (st != CT_OK) {
        ct_free(p, size, align);
        return st;
    }
    *out = p;
    return CT_OK;
}

static void emu_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    emulated *e = ctx;
    bool found = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < e->n; i++) {
        emu_alloc *r = &e->allocs[i];
        if (r->base == (uintptr_t)ptr && r->index == index && r->size == size) {
            align = r->align; /* as allocated: ct_device_free may have defaulted a 0 */
            *r = e->allocs[--e->n];
            found = true;
            break;
        }
    }
    if (e->n == 0 && e->allocs != NULL) {
        ct_free(e->allocs, e->cap * sizeof *e->allocs, _Alignof(emu_alloc));
        e->allocs = NULL;
        e->cap = 0;
    }
    pthread_mutex_unlock(&lock);
    /* A pointer this backend never handed out (or the wrong device or size) is left alone:
     * freeing it could corrupt the host heap, and a free slot cannot report errors. */
    if (found)
        ct_free(ptr, size, align);
}

static ct_status emu_copy_h2d(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    emulated *e = ctx;
    if (!owns(e, index, dst, n))
        return not_owned(e, index, dst, n);
    memcpy(dst, src, n);
    return CT_OK;
}

static ct_status emu_copy_d2h(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    emulated *e = ctx;
    if (!owns(e, index, src, n))
        return not_owned(e, index, src, n);
    memcpy(dst, src, n);
    return CT_OK;
}

static ct_status emu_copy_d2d(void *ctx, int32_t dst_index, void *dst, int32_t src_index,
                              const void *src, size_t n) {
    emulated *e = ctx;
    if (!owns(e, dst_index, dst, n))
        return not_owned(e, dst_index, dst, n);
    if (!owns(e, src_index, src, n))
        return not_owned(e, src_index, src, n);
    memmove(dst, src, n); /* one device: the ranges may overlap */
    return CT_OK;
}

static ct_status emu_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                          size_t psize) {
    emulated *e = ctx;
    if (!owns(e, index, dst, n))
        return not_owned(e, index, dst, n);
    for (size_t i = 0; i < n; i += psize)
        memcpy((char *)dst + i, pattern, psize);
    return CT_OK;
}

static ct_status emu_synchronize(void *ctx, int32_t index) {
    emulated *e = ctx;
    return index >= 0 && index < e->count ? CT_OK : bad_index(e, index);
}

/* Note [Device addresses the host cannot read]
 * The opaque variant keeps the memory but hands out addresses with bit 62 set, which is
 * non-canonical on x86-64 and AArch64: any host access through them faults. Its slots clear
 * the bit again. So code that reads device memory without going through the backend's copy
 * slots (a host loop that forgot to stage) crashes a test instead of passing by accident on
 * memory a real GPU would not expose. */
#define OPAQUE_BIT ((uintptr_t)1 << 62)

static void *tagged(void *p) { return p != NULL ? (void *)((uintptr_t)p | OPAQUE_BIT) : p; }
static void *untagged(void *p) { return (void *)((uintptr_t)p & ~OPAQUE_BIT); }
static const void *cuntagged(const void *p) { return (const void *)((uintptr_t)p & ~OPAQUE_BIT); }

static ct_status opaque_allocate(void *ctx, int32_t index, size_t size, size_t align,
                                 void **out) {
    ct_status st = emu_allocate(ctx, index, size, align, out);
    if (st == CT_OK)
        *out = tagged(*out);
    return st;
}
static void opaque_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    emu_free(ctx, index, untagged(ptr), size, align);
}
static ct_status opaque_copy_h2d(void *ctx, int32_t index, void *dst, const void *src,
                                 size_t n) {
    return emu_copy_h2d(ctx, index, untagged(dst), src, n);
}
static ct_status opaque_copy_d2h(void *ctx, int32_t index, void *dst, const void *src,
                                 size_t n) {
    return emu_copy_d2h(ctx, index, dst, cuntagged(src), n);
}
static ct_status opaque_copy_d2d(void *ctx, int32_t dst_index, void *dst, int32_t src_index,
                                 const void *src, size_t n) {
    return emu_copy_d2d(ctx, dst_index, untagged(dst), src_index, cuntagged(src), n);
}
static ct_status opaque_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                             size_t pattern_size) {
    return emu_fill(ctx, index, untagged(dst), n, pattern, pattern_size);
}

/* ---- public ---- */

ct_status ct_backend_host_emulated(ct_device_type type, int device_count, ct_backend *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_backend_host_emulated: out is NULL");
    memset(out, 0, sizeof *out);
    CT_TRY(ct_device_impl_devval_check((ct_device){type, CT_DEVICE_NO_INDEX}));
    if (type == CT_DEVICE_CPU || type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_MISUSE, "Cannot emulate the built-in %s backend",
                            ct_device_type_name(type));
    if (device_count < 0 || device_count > CT_DEVICE_MAX_INDEX + 1)
        return ct_set_error(CT_ERR_VALUE,
                            "Cannot emulate %d devices: the count must be between 0 and %d",
                            device_count, CT_DEVICE_MAX_INDEX + 1);
    /* Never reset the state of a registered backend: its memory and devices are in use. */
    if (ct_backend_is_registered(type))
        return ct_set_error(CT_ERR_RUNTIME, "A backend is already registered for device type %s",
                            ct_device_type_name(type));
    emulated *e = &states[type];
    pthread_mutex_lock(&lock);
    e->type = type;
    e->count = device_count;
    unsigned gen = atomic_load_explicit(&e->generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&e->generation, gen ? gen : 1, memory_order_relaxed);
    pthread_mutex_unlock(&lock);

    out->api_version = CT_BACKEND_API_VERSION;
    out->device_type = type;
    if (type == CT_DEVICE_PRIVATEUSEONE) {
        const char *name = ct_privateuse1_name();
        out->name = name != NULL ? name : "privateuseone";
    }
    out->context = e;
    out->flags = CT_BACKEND_HOST_ACCESSIBLE; /* its memory is host memory */
    out->device_count = emu_device_count;
    out->get_device = emu_get_device;
    out->set_device = emu_set_device;
    out->allocate = emu_allocate;
    out->free = emu_free;
    out->copy_h2d = emu_copy_h2d;
    out->copy_d2h = emu_copy_d2h;
    out->copy_d2d = emu_copy_d2d;
    out->fill = emu_fill;
    out->synchronize = emu_synchronize;
    return CT_OK;
}

ct_status ct_backend_register_host_emulated(ct_device_type type, int device_count) {
    ct_backend b;
    CT_TRY(ct_backend_host_emulated(type, device_count, &b));
    return ct_backend_register(&b);
}

ct_status ct_backend_host_emulated_opaque(ct_device_type type, int device_count,
                                          ct_backend *out) {
    CT_TRY(ct_backend_host_emulated(type, device_count, out));
    out->flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    out->allocate = opaque_allocate;
    out->free = opaque_free;
    out->copy_h2d = opaque_copy_h2d;
    out->copy_d2h = opaque_copy_d2h;
    out->copy_d2d = opaque_copy_d2d;
    out->fill = opaque_fill;
    return CT_OK;
}

void *ct_backend_host_emulated_host_address(const void *device_ptr) {
    return untagged((void *)(uintptr_t)device_ptr);
}
