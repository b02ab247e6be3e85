/* The GPU kernels of COPY launches and of the fill slot.
 *
 * COPY: dst = src converted element by element with ct_cvt_elem (src/dtype/convert/
 * elem_impl.h), the cpu copy's rule spelt per element over the codecs of codec_impl.h
 * (Note [One definition per element] in src/kernels/binary_elem.h), so a cast on the GPU
 * gives the cpu's bytes. Kernels: a general one (any geometry by value, each element's
 * offsets decoded from its linear index by kernels_geo.h) and a flat one (both operands dense or
 * the source one element); a same-dtype dense copy is one cudaMemcpyAsync. The dtypes are kernel
 * arguments: the switch in ct_cvt_elem is the same for every thread.
 * Fill: cudaMemsetAsync when every byte of the pattern is equal, else a grid-stride kernel
 * storing 2, 4, 8 or 16 bytes at a time where the pattern size and alignment allow, bytes
 * otherwise. */
#include <cuda_runtime.h>

#include "cuda/kernels_geo.h"
#include "cuda/kernels_impl.h"

#define CT_THREADS 256

/* dst is operand 0, src operand 1 (kernels_geo.h) */
typedef ct_kgeo_n<2> ct_kcopy_geo;
static_assert(sizeof(ct_kcopy_geo) + 2 * sizeof(int32_t) < 4000,
              "kernel parameters stay within 4 KB");

__global__ void __launch_bounds__(CT_THREADS)
    k_copy_gen(const __grid_constant__ ct_kcopy_geo g, int32_t dt, int32_t st) {
    CT_KGEO_FOR_EACH(
        2, g, ct_cvt_elem((ct_dtype)dt, g.data[0] + off[0], (ct_dtype)st, g.data[1] + off[1]));
}

__global__ void __launch_bounds__(CT_THREADS)
    k_copy_flat(char *dst, const char *src, int64_t n, int64_t dstep, int64_t sstep, int32_t dt,
                int32_t st) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        ct_cvt_elem((ct_dtype)dt, dst + i * dstep, (ct_dtype)st, src + i * sstep);
}

static int64_t ct_kblocks(int64_t work, int sm_count) {
    int64_t want = (work + CT_THREADS - 1) / CT_THREADS;
    int64_t cap = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    return want < 1 ? 1 : want > cap ? cap : want;
}

extern "C" int ct_cuda_impl_copy_run(const ct_kernel_launch *l, int sm_count,
                                     ct_cuda_impl_stream_t stream) {
    cudaStream_t s = (cudaStream_t)stream;
    int64_t dsz = ct_cvt_itemsize(l->dtype[0]), ssz = ct_cvt_itemsize(l->dtype[1]);
    int64_t dstep = l->ndim == 0 ? 0 : l->strides[0][0];
    int64_t sstep = l->ndim == 0 ? 0 : l->strides[1][0];
    if (l->ndim <= 1 && (l->ndim == 0 || dstep == dsz) && (sstep == ssz || sstep == 0)) {
        /* same dtype, both dense: the bytes (not bool: the cpu copy normalises it to 0/1) */
        if (l->dtype[0] == l->dtype[1] && l->dtype[0] != CT_BOOL && sstep == ssz)
            return (int)cudaMemcpyAsync(l->data[0], l->data[1], (size_t)(l->numel * dsz),
                                        cudaMemcpyDeviceToDevice, s);
        k_copy_flat<<<(unsigned)ct_kblocks(l->numel, sm_count), CT_THREADS, 0, s>>>(
            l->data[0], l->data[1], l->numel, dsz, sstep, (int32_t)l->dtype[0],
            (int32_t)l->dtype[1]);
        return (int)cudaGetLastError();
    }
    ct_kcopy_geo g;
    ct_kgeo_fill(&g, l, 2);
    k_copy_gen<<<(unsigned)ct_kblocks(g.numel, sm_count), CT_THREADS, 0, s>>>(
        g, (int32_t)l->dtype[0], (int32_t)l->dtype[1]);
    return (int)cudaGetLastError();
}

/* ---- fill ---------------------------------------------------------------------------- */

#define CT_KFILL(NAME, T)                                                                          \
    __global__ void __launch_bounds__(CT_THREADS) NAME(T *dst, int64_t n, T value) {               \
        int64_t stride = (int64_t)gridDim.x * blockDim.x;                                          \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)       \
            dst[i] = value;                                                                        \
    }
CT_KFILL(k_fill_2, uint16_t)
CT_KFILL(k_fill_4, uint32_t)
CT_KFILL(k_fill_8, unsigned long long)
CT_KFILL(k_fill_16, uint4)

typedef struct ct_kpattern {
    unsigned char b[64];
} ct_kpattern;

__global__ void __launch_bounds__(CT_THREADS)
    k_fill_bytes(unsigned char *dst, int64_t n, ct_kpattern pat, int32_t size) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = pat.b[i % size];
}

extern "C" int ct_cuda_impl_fill_run(void *dst, size_t n, const void *pattern, size_t pattern_size,
                                     int sm_count, ct_cuda_impl_stream_t stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const unsigned char *p = (const unsigned char *)pattern;
    bool same = true;
    for (size_t k = 1; k < pattern_size; k++)
        same = same && p[k] == p[0];
    if (same)
        return (int)cudaMemsetAsync(dst, p[0], n, s);
    int64_t count = (int64_t)(n / pattern_size);
    unsigned blocks = (unsigned)ct_kblocks(count, sm_count);
    bool aligned = ((uintptr_t)dst % pattern_size) == 0;
    if (aligned && pattern_size == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        k_fill_2<<<blocks, CT_THREADS, 0, s>>>((uint16_t *)dst, count, v);
    } else if (aligned && pattern_size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        k_fill_4<<<blocks, CT_THREADS, 0, s>>>((uint32_t *)dst, count, v);
    } else if (aligned && pattern_size == 8) {
        unsigned long long v;
        memcpy(&v, p, 8);
        k_fill_8<<<blocks, CT_THREADS, 0, s>>>((unsigned long long *)dst, count, v);
    } else if (aligned && pattern_size == 16) {
        uint4 v;
        memcpy(&v, p, 16);
        k_fill_16<<<blocks, CT_THREADS, 0, s>>>((uint4 *)dst, count, v);
    } else {
        ct_kpattern pat;
        memset(&pat, 0, sizeof pat);
        memcpy(pat.b, p, pattern_size);
        k_fill_bytes<<<(unsigned)ct_kblocks((int64_t)n, sm_count), CT_THREADS, 0, s>>>(
            (unsigned char *)dst, (int64_t)n, pat, (int32_t)pattern_size);
    }
    return (int)cudaGetLastError();
}
