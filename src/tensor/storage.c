/* Storages: refcounted blocks of bytes on a device, owned (allocated through the backend
 * registry) or wrapped (external memory with a finalizer, for DLPack import).
 *
 * Note [Inline data]
 * A small cpu storage is one block: the struct, then its data at the next STORAGE_ALIGN
 * boundary, ending exactly at the block's end (so sanitizers still see overruns). One
 * allocator call instead of two and no backend call, for what the cpu backend would have
 * done anyway: ask the same allocator (its host cache only keeps blocks of 1 MiB and more).
 * A storage never grows in place (resize gives a tensor a new storage), so the data never
 * has to move. Larger storages keep a separate block, which the host cache can reuse. */
#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "tensor/tensor_impl.h"

/* Device allocations of storages use one alignment, generous enough for SIMD loads. */
#define STORAGE_ALIGN 64
/* Where inline data starts in its block, and the largest inline storage. Under ASan a
 * poisoned gap separates the data from the struct, so that underruns are reported as they
 * are for a separate block. */
#define INLINE_STRUCT ((sizeof(ct_storage) + STORAGE_ALIGN - 1) & ~(size_t)(STORAGE_ALIGN - 1))
#ifdef CT_ASAN
#define INLINE_GAP ((size_t)STORAGE_ALIGN)
#else
#define INLINE_GAP ((size_t)0)
#endif
#define INLINE_OFFSET (INLINE_STRUCT + INLINE_GAP)
#define INLINE_MAX 256

static void storage_init(ct_storage *s) {
    atomic_init(&s->refcount, 1);
    s->data = NULL;
    s->nbytes = 0;
    s->align = STORAGE_ALIGN;
    s->device.type = CT_DEVICE_CPU;
    s->device.index = CT_DEVICE_NO_INDEX;
    s->external = false;
    s->inline_data = false;
    s->finalizer = NULL;
    s->finalizer_ctx = NULL;
}

static ct_storage *storage_struct(void) {
    ct_storage *s = ct_alloc(sizeof *s, _Alignof(ct_storage));
    if (s != NULL)
        storage_init(s);
    return s;
}

/* A storage with inline data (Note [Inline data]), for a valid cpu device. */
static ct_status storage_new_inline(size_t nbytes, ct_storage **out) {
    ct_storage *s = ct_alloc(INLINE_OFFSET + nbytes, STORAGE_ALIGN);
    if (s == NULL) /* the size the caller knows, as the backend path reports it */
        return ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", nbytes);
    storage_init(s);
    CT_POISON((char *)s + INLINE_STRUCT, INLINE_GAP);
    s->data = (char *)s + INLINE_OFFSET;
    s->nbytes = nbytes;
    s->inline_data = true; /* device: cpu, which never carries an index */
    *out = s;
    return CT_OK;
}

ct_status ct_storage_new(ct_device device, size_t nbytes, ct_storage **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_storage_new: out is NULL");
    *out = NULL;
    if (device.type == CT_DEVICE_CPU && nbytes <= INLINE_MAX && ct_device_is_valid(device))
        return storage_new_inline(nbytes, out);
    ct_storage *s = storage_struct();
    if (s == NULL)
        return CT_ERR_NOMEM;
    ct_device where;
    ct_status st = ct_device_alloc(device, nbytes, STORAGE_ALIGN, &s->data, &where);
    if (st != CT_OK) {
        ct_free(s, sizeof *s, _Alignof(ct_storage));
        return st;
    }
    s->nbytes = nbytes;
    s->device = where;
    *out = s;
    return CT_OK;
}

ct_status ct_storage_wrap(ct_device device, void *data, size_t nbytes,
                          ct_storage_finalizer finalizer, void *ctx, ct_storage **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_storage_wrap: out is NULL");
    *out = NULL;
    if (!ct_device_is_valid(device))
        return ct_set_error(CT_ERR_MISUSE, "ct_storage_wrap: invalid device");
    bool indexless = device.type == CT_DEVICE_CPU || device.type == CT_DEVICE_META;
    if (!indexless && device.index == CT_DEVICE_NO_INDEX)
        return ct_set_error(CT_ERR_MISUSE,
                            "ct_storage_wrap: an accelerator device needs an index (%s)",
                            ct_device_type_name(device.type));
    if (data == NULL && nbytes > 0 && device.type != CT_DEVICE_META)
        return ct_set_error(CT_ERR_MISUSE, "ct_storage_wrap: data is NULL for %zu bytes", nbytes);
    ct_storage *s = storage_struct();
    if (s == NULL)
        return CT_ERR_NOMEM;
    if (indexless)
        device.index = CT_DEVICE_NO_INDEX; /* cpu tensors never carry an index */
    s->data = device.type == CT_DEVICE_META ? NULL : data;
    s->nbytes = nbytes;
    s->device = device;
    s->external = true;
    s->finalizer = finalizer;
    s->finalizer_ctx = ctx;
    *out = s;
    return CT_OK;
}

ct_storage *ct_storage_retain(ct_storage *storage) {
    if (storage != NULL)
        atomic_fetch_add_explicit(&storage->refcount, 1, memory_order_relaxed);
    return storage;
}

void ct_storage_release(ct_storage *s) {
    if (s == NULL || !ct_tensor_impl_refcount_drop(&s->refcount))
        return;
    if (s->inline_data) {
        ct_free(s, INLINE_OFFSET + s->nbytes, STORAGE_ALIGN);
        return;
    }
    if (s->external) {
        if (s->finalizer != NULL)
            s->finalizer(s->finalizer_ctx, s->data);
    } else {
        /* Nothing can be reported from a release; the free of a valid allocation only fails
         * for misuse (a backend unregistered while its memory lives). */
        (void)ct_device_free(s->device, s->data, s->nbytes, s->align);
    }
    ct_free(s, sizeof *s, _Alignof(ct_storage));
}

void *ct_storage_data(const ct_storage *s) { return s != NULL ? s->data : NULL; }
size_t ct_storage_nbytes(const ct_storage *s) { return s != NULL ? s->nbytes : 0; }
ct_device ct_storage_device(const ct_storage *s) {
    ct_device d = {CT_DEVICE_UNDEFINED, CT_DEVICE_NO_INDEX};
    return s != NULL ? s->device : d;
}
int64_t ct_storage_refcount(const ct_storage *s) {
    return s != NULL
               ? (int64_t)atomic_load_explicit(&((ct_storage *)s)->refcount, memory_order_relaxed)
               : 0;
}
bool ct_storage_is_external(const ct_storage *s) { return s != NULL && s->external; }
