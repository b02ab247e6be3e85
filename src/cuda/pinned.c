/* Page-locked host memory: pin_memory, is_pinned, and asynchronous copies between pinned
 * host memory and a cuda device (ctensor/cuda.h). */
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "ctensor/cuda.h"
#include "cuda/cuda_impl.h"

static void free_host(void *ctx, void *data) {
    (void)ctx;
    if (data != NULL && cudaFreeHost(data) != cudaSuccess)
        (void)cudaGetLastError(); /* a finalizer cannot report */
}

/* The bytes a strided tensor spans from its first element (PyTorch's
 * computeStorageNbytes; strides are never negative in ctensor). */
static size_t span_bytes(const ct_tensor *t) {
    if (ct_tensor_numel(t) == 0)
        return 0;
    const int64_t *sizes = ct_tensor_sizes(t), *strides = ct_tensor_strides(t);
    int64_t last = 0;
    for (int64_t i = 0; i < ct_tensor_dim(t); i++)
        last += (sizes[i] - 1) * strides[i];
    return (size_t)(last + 1) * ct_tensor_element_size(t);
}

ct_status ct_cuda_pin_memory(const ct_tensor *tensor, ct_tensor **out) {
    if (tensor == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_pin_memory: NULL argument");
    *out = NULL;
    if (ct_tensor_device(tensor).type != CT_DEVICE_CPU ||
        ct_tensor_layout(tensor) != CT_LAYOUT_STRIDED) {
        char type[64];
        if (ct_tensor_type_string(tensor, type, sizeof type) != CT_OK)
            type[0] = '\0';
        return ct_set_error(CT_ERR_RUNTIME, "cannot pin '%s' only dense CPU tensors can be pinned",
                            type);
    }
    if (ct_cuda_impl_device_count() == 0)
        return ct_set_error(CT_ERR_RUNTIME, CT_CUDA_NO_DRIVER_MESSAGE);
    if (ct_cuda_is_pinned(tensor)) {
        *out = ct_tensor_retain((ct_tensor *)tensor);
        return CT_OK;
    }
    /* Same sizes and strides from offset 0, as PyTorch's pin_memory does. */
    size_t nbytes = span_bytes(tensor);
    void *data = NULL;
    /* Portable: pinned for every device's context. One byte at least, so that even an empty
     * tensor's memory reads as pinned. */
    cudaError_t e = cudaHostAlloc(&data, nbytes > 0 ? nbytes : 1, cudaHostAllocPortable);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return ct_set_error(CT_ERR_NOMEM, "Cannot pin %zu bytes of host memory: out of memory",
                            nbytes);
    }
    if (e != cudaSuccess)
        return ct_cuda_impl_error(e);
    ct_storage *storage = NULL;
    ct_status st = ct_storage_wrap((ct_device){CT_DEVICE_CPU, -1}, data, nbytes, free_host, NULL,
                                   &storage);
    if (st != CT_OK) {
        free_host(NULL, data);
        return st;
    }
    ct_tensor *t = NULL;
    st = ct_tensor_from_storage(storage, ct_tensor_sizes(tensor), ct_tensor_strides(tensor),
                                ct_tensor_dim(tensor), 0, ct_tensor_dtype(tensor), &t);
    ct_storage_release(storage); /* the tensor holds it now, or it is freed */
    if (st == CT_OK)
        st = ct_tensor_copy_(t, tensor);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

bool ct_cuda_is_pinned(const ct_tensor *tensor) {
    if (tensor == NULL || ct_tensor_device(tensor).type != CT_DEVICE_CPU ||
        ct_tensor_layout(tensor) != CT_LAYOUT_STRIDED || ct_cuda_impl_device_count() == 0)
        return false;
    const void *p = ct_storage_data(ct_tensor_storage(tensor));
    if (p == NULL)
        return false;
    struct cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

/* Whether the pair qualifies for one cudaMemcpyAsync: one pinned cpu and one cuda tensor of
 * the same dtype, sizes and strides, both dense (so both span numel * itemsize bytes from
 * their data pointers, in the same order). */
static bool direct_pair(const ct_tensor *dst, const ct_tensor *src, int32_t *device,
                        enum cudaMemcpyKind *kind) {
    ct_device dd = ct_tensor_device(dst), sd = ct_tensor_device(src);
    const ct_tensor *host;
    if (dd.type == CT_DEVICE_CUDA && sd.type == CT_DEVICE_CPU) {
        host = src;
        *device = dd.index;
        *kind = cudaMemcpyHostToDevice;
    } else if (dd.type == CT_DEVICE_CPU && sd.type == CT_DEVICE_CUDA) {
        host = dst;
        *device = sd.index;
        *kind = cudaMemcpyDeviceToHost;
    } else {
        return false;
    }
    if (ct_tensor_layout(dst) != CT_LAYOUT_STRIDED || ct_tensor_layout(src) != CT_LAYOUT_STRIDED ||
        ct_tensor_dtype(dst) != ct_tensor_dtype(src) || ct_tensor_dim(dst) != ct_tensor_dim(src) ||
        !ct_tensor_is_non_overlapping_and_dense(dst) ||
        !ct_tensor_is_non_overlapping_and_dense(src))
        return false;
    const int64_t *ds = ct_tensor_sizes(dst), *ss = ct_tensor_sizes(src);
    const int64_t *dt = ct_tensor_strides(dst), *st = ct_tensor_strides(src);
    for (int64_t i = 0; i < ct_tensor_dim(dst); i++)
        if (ds[i] != ss[i] || (ds[i] > 1 && dt[i] != st[i]))
            return false;
    return ct_cuda_is_pinned(host);
}

ct_status ct_cuda_copy_async(ct_tensor *dst, const ct_tensor *src) {
    if (dst == NULL || src == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_copy_async: NULL argument");
    int32_t device = -1;
    enum cudaMemcpyKind kind;
    if (!direct_pair(dst, src, &device, &kind) || ct_tensor_numel(dst) == 0)
        return ct_tensor_copy_(dst, src); /* checks, converts and waits */
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(d, &g);
    if (st != CT_OK)
        return st;
    size_t n = (size_t)ct_tensor_numel(dst) * ct_tensor_element_size(dst);
    cudaError_t e = cudaMemcpyAsync(ct_tensor_data_ptr(dst), ct_tensor_data_ptr(src), n, kind,
                                    (cudaStream_t)ct_cuda_impl_current_stream(d));
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}
