/* The general (strided) geometry of an element-wise launch with N operands, as the kernels
 * take it by value, and the decoding of a linear element index into every operand's byte
 * offset (dims innermost first). One copy for kernels_binary.cu, kernels_binary2.cu,
 * kernels_unary.cu, kernels_ternary.cu and kernels_copy.cu. CUDA C++ only.
 *
 * Two decodings, chosen per launch by `fast`:
 *  - fast (numel < 2^31 and every byte stride within int32, nearly every launch): 32-bit
 *    indices divided by the host-made dividers of index_div.h, and each offset step one
 *    32 x 32 -> 64-bit multiply-add;
 *  - otherwise 64-bit indices, divisions and multiplies.
 * The outermost dimension needs no division: what is left of the index is its coordinate. */
#ifndef CT_CUDA_KERNELS_GEO_H
#define CT_CUDA_KERNELS_GEO_H

#include <string.h>

#include "cuda/index_div.h"
#include "cuda/kernels_impl.h"

template <int N> struct ct_kgeo_n {
    int32_t ndim;
    int32_t fast;
    int64_t numel;
    char *data[N];
    int64_t shape[CT_LAUNCH_MAX_DIMS];
    int64_t strides[N][CT_LAUNCH_MAX_DIMS];
    ct_kdiv div[CT_LAUNCH_MAX_DIMS]; /* shape[d]'s divider, set when fast */
};

/* The geometry of launch l's first `nops` operands (the rest zero). */
template <int N> static void ct_kgeo_fill(ct_kgeo_n<N> *g, const ct_kernel_launch *l, int nops) {
    memset(g, 0, sizeof *g);
    g->ndim = l->ndim;
    g->numel = l->numel;
    bool fast = l->numel < ((int64_t)1 << 31);
    for (int k = 0; k < nops; k++)
        g->data[k] = l->data[k];
    for (int d = 0; d < CT_LAUNCH_MAX_DIMS; d++) {
        bool in = d < l->ndim;
        g->shape[d] = in ? l->shape[d] : 1;
        for (int k = 0; k < nops; k++) {
            int64_t st = in ? l->strides[k][d] : 0;
            g->strides[k][d] = st;
            if (st != (int64_t)(int32_t)st)
                fast = false;
        }
    }
    g->fast = fast;
    if (fast)
        for (int d = 0; d < l->ndim; d++)
            g->div[d] = ct_kdiv_make((uint32_t)l->shape[d]); /* 1 <= shape < 2^31: numel > 0 */
}

/* One dimension's step of each decoding: the quotient by shape[d] and a coordinate times a
 * stride. Fast (uint32_t index): the host-made divider and a 32 x 32 -> 64-bit multiply
 * (g.fast says the strides fit in 32 bits); otherwise 64-bit arithmetic. */
__device__ __forceinline__ uint32_t ct_kgeo_quot(const ct_kdiv &v, int64_t, uint32_t r) {
    return ct_kdiv_quot(v, r);
}
__device__ __forceinline__ int64_t ct_kgeo_quot(const ct_kdiv &, int64_t size, int64_t r) {
    return r / size;
}
__device__ __forceinline__ int64_t ct_kgeo_mul(uint32_t c, int64_t stride) {
    return (int64_t)(int32_t)c * (int32_t)stride;
}
__device__ __forceinline__ int64_t ct_kgeo_mul(int64_t c, int64_t stride) { return c * stride; }

/* off[k] = the byte offset of element i in operand k (I = uint32_t: i < numel < 2^31 and
 * g.fast; I = int64_t: any i < numel). */
template <int N, typename I>
__device__ __forceinline__ void ct_kgeo_offsets(const ct_kgeo_n<N> &g, I i, int64_t off[N]) {
#pragma unroll
    for (int k = 0; k < N; k++)
        off[k] = 0;
    if (g.ndim == 0)
        return;
    I r = i;
    int32_t last = g.ndim - 1;
    for (int32_t d = 0; d < last; d++) {
        I q = ct_kgeo_quot(g.div[d], g.shape[d], r);
        I c = r - q * (I)g.shape[d];
        r = q;
#pragma unroll
        for (int k = 0; k < N; k++)
            off[k] += ct_kgeo_mul(c, g.strides[k][d]);
    }
#pragma unroll
    for (int k = 0; k < N; k++)
        off[k] += ct_kgeo_mul(r, g.strides[k][last]);
}

/* A grid-stride loop over every element of g, the statement in the variable arguments run
 * with `off` set (index type I: the fast or the 64-bit decoding). */
#define CT_KGEO_LOOP(N, g, I, ...)                                                                 \
    do {                                                                                           \
        I stride_ = (I)gridDim.x * blockDim.x, n_ = (I)(g).numel;                                  \
        for (I i_ = (I)blockIdx.x * blockDim.x + threadIdx.x; i_ < n_; i_ += stride_) {            \
            int64_t off[N];                                                                        \
            ct_kgeo_offsets<N>((g), i_, off);                                                      \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)

/* Both decodings, chosen by g.fast. */
#define CT_KGEO_FOR_EACH(N, g, ...)                                                                \
    do {                                                                                           \
        if ((g).fast)                                                                              \
            CT_KGEO_LOOP(N, g, uint32_t, __VA_ARGS__);                                             \
        else                                                                                       \
            CT_KGEO_LOOP(N, g, int64_t, __VA_ARGS__);                                              \
    } while (0)

#endif /* CT_CUDA_KERNELS_GEO_H */
