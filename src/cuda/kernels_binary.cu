/* The GPU kernels of BINARY launches: out = a op b, every element computed by
 * ct_kelem_<math> / ct_kop_<math> of src/kernels/binary_plan.h, the same code (and element
 * functions, and conversions) the cpu's kernels are built from (Note [One definition per
 * element] in src/kernels/binary_elem.h). Compiled with --fmad=false (CMakeLists.txt): no
 * contraction, so every float step rounds as on the cpu.
 *
 * Per math dtype (13) two kernels are stamped:
 *  - general: any geometry of the launch (up to CT_LAUNCH_MAX_DIMS dims, innermost first),
 *    passed by value as a __grid_constant__ parameter (about 2 KB, within the 4 KB limit),
 *    each element's offsets decoded from its 64-bit linear index;
 *  - contiguous: every operand either dense (stride = its element size) or one broadcast
 *    element (stride 0), the usual case. For float32 math with all operands in one of
 *    float32, float16, bfloat16 and for int32, the dense body moves 16 bytes per load and
 *    store (4 or 8 elements; an operand of stride 0 is loaded once).
 * Both are grid-stride loops over 64-bit indices, so any numel up to 2^63 works with any
 * grid. The op is a switch on the plan, the same for every thread (no divergence).
 * An integer division by a zero divisor stores 1 in `err` (the launch checks it after the
 * kernel) and leaves that element unwritten, as the cpu stops there. */
#include <cuda_runtime.h>

#include "cuda/kernels_impl.h"

#define CT_THREADS 256

/* The general geometry, by value. */
typedef struct ct_kgeo {
    int32_t ndim;
    int64_t numel;
    char *data[3];
    int64_t shape[CT_LAUNCH_MAX_DIMS];
    int64_t strides[3][CT_LAUNCH_MAX_DIMS];
} ct_kgeo;
static_assert(sizeof(ct_kgeo) + sizeof(ct_kplan) + sizeof(int *) < 4000,
              "kernel parameters stay within the classic 4 KB limit");

/* The contiguous case: element i of operand k is at data[k] + i * step[k]. */
typedef struct ct_kflat {
    int64_t n;
    char *data[3];
    int64_t step[3];
} ct_kflat;

/* 16 bytes of elements, for the vectorised loads and stores. */
template <typename E> union ct_kvec {
    uint4 v;
    E e[16 / sizeof(E)];
};

#define CT_KGEN_KERNEL(E, S, T)                                                                    \
    __global__ void __launch_bounds__(CT_THREADS)                                                  \
        k_binary_gen_##S(const __grid_constant__ ct_kgeo g, const __grid_constant__ ct_kplan p,   \
                         int *err) {                                                               \
        int64_t stride = (int64_t)gridDim.x * blockDim.x;                                          \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < g.numel;              \
             i += stride) {                                                                        \
            int64_t r = i, o0 = 0, o1 = 0, o2 = 0;                                                 \
            for (int32_t d = 0; d < g.ndim; d++) {                                                 \
                int64_t size = g.shape[d];                                                         \
                int64_t q = r / size, c = r - q * size;                                            \
                r = q;                                                                             \
                o0 += c * g.strides[0][d];                                                         \
                o1 += c * g.strides[1][d];                                                         \
                o2 += c * g.strides[2][d];                                                         \
            }                                                                                      \
            if (ct_kelem_##S(&p, g.data[0] + o0, g.data[1] + o1, g.data[2] + o2) != CT_KP_OK)      \
                *err = 1;                                                                          \
        }                                                                                          \
    }

/* The scalar body of the contiguous kernel, from element `first` on. */
#define CT_KFLAT_SCALAR(S, first)                                                                  \
    do {                                                                                           \
        int64_t stride_ = (int64_t)gridDim.x * blockDim.x;                                         \
        for (int64_t i = (first) + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < f.n;        \
             i += stride_) {                                                                       \
            if (ct_kelem_##S(&p, f.data[0] + i * f.step[0], f.data[1] + i * f.step[1],             \
                             f.data[2] + i * f.step[2]) != CT_KP_OK)                               \
                *err = 1;                                                                          \
        }                                                                                          \
    } while (0)

/* Vectorised float32-math body for storage type ST (float, or float16 / bfloat16 bits with
 * their codecs; the plan's routes are then plain: no rounding through another dtype). a and
 * out are dense; b dense or one element. Returns the elements done. */
template <typename ST>
__device__ __forceinline__ float ct_kvec_load(ST x);
template <> __device__ __forceinline__ float ct_kvec_load<float>(float x) { return x; }
template <typename ST> __device__ __forceinline__ ST ct_kvec_store(float x);
template <> __device__ __forceinline__ float ct_kvec_store<float>(float x) { return x; }

/* float16 and bfloat16 are both uint16_t bits: a tag type tells them apart */
struct ct_kbf16 {
    uint16_t bits;
};
template <> __device__ __forceinline__ float ct_kvec_load<uint16_t>(uint16_t x) {
    return ct_cvt_f16_to_f32(x);
}
template <> __device__ __forceinline__ uint16_t ct_kvec_store<uint16_t>(float x) {
    return ct_cvt_f32_to_f16(x);
}
template <> __device__ __forceinline__ float ct_kvec_load<ct_kbf16>(ct_kbf16 x) {
    return ct_cvt_bf16_to_f32(x.bits);
}
template <> __device__ __forceinline__ ct_kbf16 ct_kvec_store<ct_kbf16>(float x) {
    ct_kbf16 r;
    r.bits = ct_cvt_f32_to_bf16(x);
    return r;
}

template <typename ST>
__device__ __forceinline__ int64_t ct_kvec_f32(const ct_kflat &f, const ct_kplan *p) {
    const int N = 16 / sizeof(ST);
    int64_t nvec = f.n / N;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const uint4 *a = (const uint4 *)f.data[1];
    const uint4 *b = (const uint4 *)f.data[2];
    uint4 *o = (uint4 *)f.data[0];
    bool b_one = f.step[2] == 0;
    float y0 = b_one ? ct_kvec_load<ST>(*(const ST *)f.data[2]) : 0.0f;
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
        ct_kvec<ST> va, vb, vo;
        va.v = a[v];
        if (!b_one)
            vb.v = b[v];
#pragma unroll
        for (int j = 0; j < N; j++) {
            float r;
            (void)ct_kop_f32(p, ct_kvec_load<ST>(va.e[j]), b_one ? y0 : ct_kvec_load<ST>(vb.e[j]),
                             &r);
            vo.e[j] = ct_kvec_store<ST>(r);
        }
        o[v] = vo.v;
    }
    return nvec * N;
}

__device__ __forceinline__ int64_t ct_kvec_i32(const ct_kflat &f, const ct_kplan *p, int *err) {
    int64_t nvec = f.n / 4;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const uint4 *a = (const uint4 *)f.data[1];
    const uint4 *b = (const uint4 *)f.data[2];
    uint4 *o = (uint4 *)f.data[0];
    bool b_one = f.step[2] == 0;
    int32_t y0 = b_one ? *(const int32_t *)f.data[2] : 0;
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
        ct_kvec<int32_t> va, vb, vo;
        va.v = a[v];
        vb.v = b_one ? va.v : b[v];
        bool ok = true;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int32_t r = 0;
            if (ct_kop_i32(p, va.e[j], b_one ? y0 : vb.e[j], &r) != CT_KP_OK)
                ok = false;
            vo.e[j] = r;
        }
        if (ok) {
            o[v] = vo.v;
        } else {
            /* as the cpu: the other elements are written, the failing one is not */
            *err = 1;
            for (int j = 0; j < 4; j++) {
                int64_t i = v * 4 + j;
                (void)ct_kelem_i32(p, f.data[0] + i * 4, f.data[1] + i * 4,
                                   f.data[2] + i * f.step[2]);
            }
        }
    }
    return nvec * 4;
}

/* vec: 0 none, 1 float32 storage, 2 float16, 3 bfloat16, 4 int32 (only stamped where the math
 * dtype matches; the host picks it). */
#define CT_KFLAT_KERNEL(E, S, T, VEC_BODY)                                                         \
    __global__ void __launch_bounds__(CT_THREADS)                                                  \
        k_binary_flat_##S(const __grid_constant__ ct_kflat f, const __grid_constant__ ct_kplan p,  \
                          int vec, int *err) {                                                     \
        int64_t first = 0;                                                                         \
        VEC_BODY                                                                                   \
        CT_KFLAT_SCALAR(S, first);                                                                 \
    }

#define CT_KVEC_NONE (void)vec;
#define CT_KVEC_F32                                                                                \
    if (vec == 1)                                                                                  \
        first = ct_kvec_f32<float>(f, &p);                                                         \
    else if (vec == 2)                                                                             \
        first = ct_kvec_f32<uint16_t>(f, &p);                                                      \
    else if (vec == 3)                                                                             \
        first = ct_kvec_f32<ct_kbf16>(f, &p);
#define CT_KVEC_I32                                                                                \
    if (vec == 4)                                                                                  \
        first = ct_kvec_i32(f, &p, err);

#define CT_KSTAMP(E, S, T)                                                                         \
    CT_KGEN_KERNEL(E, S, T)                                                                        \
    CT_KFLAT_KERNEL(E, S, T, CT_KVEC_SEL_##S)

#define CT_KVEC_SEL_b8 CT_KVEC_NONE
#define CT_KVEC_SEL_u8 CT_KVEC_NONE
#define CT_KVEC_SEL_i8 CT_KVEC_NONE
#define CT_KVEC_SEL_u16 CT_KVEC_NONE
#define CT_KVEC_SEL_i16 CT_KVEC_NONE
#define CT_KVEC_SEL_u32 CT_KVEC_NONE
#define CT_KVEC_SEL_i32 CT_KVEC_I32
#define CT_KVEC_SEL_u64 CT_KVEC_NONE
#define CT_KVEC_SEL_i64 CT_KVEC_NONE
#define CT_KVEC_SEL_f32 CT_KVEC_F32
#define CT_KVEC_SEL_f64 CT_KVEC_NONE
#define CT_KVEC_SEL_c64 CT_KVEC_NONE
#define CT_KVEC_SEL_c128 CT_KVEC_NONE

CT_KPLAN_MATH_ROWS(CT_KSTAMP)

/* ---- host side ------------------------------------------------------------------------------ */

static int64_t ct_kblocks(int64_t work, int sm_count) {
    int64_t want = (work + CT_THREADS - 1) / CT_THREADS;
    int64_t cap = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    return want < 1 ? 1 : want > cap ? cap : want;
}

/* Which vectorised body fits: all three dtypes one storage type, the math dtype's plain
 * route (no rounding through another dtype), a and out dense, b dense or one element, every
 * pointer 16-byte aligned. */
static int ct_kvec_kind(const ct_kernel_launch *l, const ct_kplan *p, const ct_kflat *f) {
    ct_dtype d = l->dtype[0];
    if (l->dtype[1] != d || l->dtype[2] != d || p->via_a || p->via_b || p->via_out)
        return 0;
    int64_t size = ct_cvt_itemsize(d);
    if (f->step[0] != size || f->step[1] != size || (f->step[2] != size && f->step[2] != 0))
        return 0;
    if ((((uintptr_t)f->data[0] | (uintptr_t)f->data[1]) & 15) != 0 ||
        (f->step[2] != 0 && ((uintptr_t)f->data[2] & 15) != 0))
        return 0;
    if (p->math == CT_FLOAT32)
        return d == CT_FLOAT32 ? 1 : d == CT_FLOAT16 ? 2 : d == CT_BFLOAT16 ? 3 : 0;
    if (p->math == CT_INT32 && d == CT_INT32)
        return 4;
    return 0;
}

extern "C" int ct_cuda_impl_binary_run(const ct_kernel_launch *l, const ct_kplan *p,
                                       int *err_flag, int sm_count, ct_cuda_impl_stream_t stream) {
    cudaStream_t s = (cudaStream_t)stream;
    /* flat: ndim <= 1 and each operand dense or a single element */
    bool flat = l->ndim <= 1;
    ct_kflat f;
    f.n = l->numel;
    for (int k = 0; k < 3 && flat; k++) {
        int64_t step = l->ndim == 0 ? 0 : l->strides[k][0];
        f.data[k] = l->data[k];
        f.step[k] = step;
        if (step != 0 && step != ct_cvt_itemsize(l->dtype[k]))
            flat = false;
    }
    if (flat && f.step[0] == 0 && f.n > 1)
        flat = false; /* (an output is never broadcast; keep the general path honest) */
    if (flat) {
        int vec = ct_kvec_kind(l, p, &f);
        int64_t per = vec == 0 ? 1 : vec == 2 || vec == 3 ? 8 : 4;
        int64_t blocks = ct_kblocks((f.n + per - 1) / per, sm_count);
        switch (p->math) {
#define CT_KCASE(E, S, T)                                                                          \
    case CT_##E:                                                                                   \
        k_binary_flat_##S<<<(unsigned)blocks, CT_THREADS, 0, s>>>(f, *p, vec, err_flag);           \
        break;
            CT_KPLAN_MATH_ROWS(CT_KCASE)
#undef CT_KCASE
        default:
            return (int)cudaErrorInvalidValue;
        }
        return (int)cudaGetLastError();
    }
    ct_kgeo g;
    g.ndim = l->ndim;
    g.numel = l->numel;
    for (int k = 0; k < 3; k++)
        g.data[k] = l->data[k];
    for (int d = 0; d < CT_LAUNCH_MAX_DIMS; d++) {
        bool in = d < l->ndim;
        g.shape[d] = in ? l->shape[d] : 1;
        for (int k = 0; k < 3; k++)
            g.strides[k][d] = in ? l->strides[k][d] : 0;
    }
    int64_t blocks = ct_kblocks(g.numel, sm_count);
    switch (p->math) {
#define CT_KCASE(E, S, T)                                                                          \
    case CT_##E:                                                                                   \
        k_binary_gen_##S<<<(unsigned)blocks, CT_THREADS, 0, s>>>(g, *p, err_flag);                 \
        break;
        CT_KPLAN_MATH_ROWS(CT_KCASE)
#undef CT_KCASE
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
