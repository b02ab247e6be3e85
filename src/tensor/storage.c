/* Storages: refcounted blocks of bytes on a device, owned (allocated through the backend
 * registry) or wrapped (external memory with a finalizer, for DLPack import). */
#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "tensor/tensor_impl.h"

/* Device allocations of storages use one alignment, generous enough for SIMD loads. */
#define STORAGE_ALIGN 64

static ct_storage *storage_struct(void) {
    ct_storage *s = ct_alloc(sizeof *s, _Alignof(ct_storage));
    if (s != NULL) {
        atomic_init(&s->refcount, 1);
        s->data = NULL;
        s->nbytes = 0;
        s->align = STORAGE_ALIGN;
        s->device.type = CT_DEVICE_CPU;
        s->device.index = CT_DEVICE_NO_INDEX;
        s->external = false;
        s->finalizer = NULL;
        s->finalizer_ctx = NULL;
    }
    return s;
}

ct_status ct_storage_new(ct_device device, size_t nbytes, ct_storage **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_storage_new: out is NULL");
    *out = NULL;
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
    if (s == NULL)
        return;
    /* release/acquire so the thread that frees sees every write made through the block */
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_release) != 1)
        return;
    atomic_thread_fence(memory_order_acquire);
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
