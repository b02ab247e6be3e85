/* The GPU kernels of BINARY launches: out = a op b, every element computed by
 * ct_kelem_<math> / ct_kop_<math> of src/kernels/binary_plan.h, the same code (and element
 * functions, and conversions) the cpu's kernels are built from (Note [One definition per
 * element] in src/kernels/binary_elem.h). Compiled with --fmad=false (CMakeLists.txt): no
 * contraction, so every float step rounds as on the cpu.
 *
 * Per math dtype (13) two kernels are stamped:
 *  - general: any geometry of the launch (up to CT_LAUNCH_MAX_DIMS dims, innermost first),
 *    passed by value as a __grid_constant__ parameter (about 2.6 KB, within the 4 KB limit),
 *    each element's offsets decoded from its linear index (kernels_geo.h);
 *  - contiguous: every operand either dense (stride = its element size) or one broadcast
 *    element (stride 0), the usual case. For float32 math with all operands in one of
 *    float32, float16, bfloat16 and for int32, the dense body moves 16 bytes per load and
 *    store (4 or 8 elements; an operand of stride 0 is loaded once).
 * Both are grid-stride loops over 64-bit indices, so any numel up to 2^63 works with any
 * grid. The op is a switch on the plan, the same for every thread (no divergence).
 * An integer division by a zero divisor stores 1 in `err` (the launch checks it after the
 * kernel) and leaves that element unwritten, as the cpu stops there. */
#include <cuda_runtime.h>

#include "cuda/kernels_geo.h"
#include "cuda/kernels_impl.h"

#define CT_THREADS 256

/* The integer-division flag: static device memory, one per device, zero at module load and
 * kept 0 between launches (launch.c resets it after a hit). Static, not cudaMalloc'd, so it
 * needs no free at exit and no allocation that can fail. */
static __device__ int ct_kzero_flag;

extern "C" int ct_cuda_impl_zero_flag(int **out) {
    return (int)cudaGetSymbolAddress((void **)out, ct_kzero_flag);
}

/* The general geometry, by value (kernels_geo.h). */
typedef ct_kgeo_n<3> ct_kgeo;
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
    __global__ void __launch_bounds__(CT_THREADS) k_binary_gen_##S(                                \
        const __grid_constant__ ct_kgeo g, const __grid_constant__ ct_kplan p, int *err) {         \
        CT_KGEO_FOR_EACH(3, g,                                                                     \
                         if (ct_kelem_##S(&p, g.data[0] + off[0], g.data[1] + off[1],              \
                                          g.data[2] + off[2]) != CT_KP_OK) *err = 1);              \
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
template <typename ST> __device__ __forceinline__ float ct_kvec_load(ST x);
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
    float y0 = 0.0f;
    if (b_one) /* one element of any dtype, by the plan's route */
        CT_KPLAN_LOAD(p, CT_FLOAT32, p->dt_b, p->via_b, f.data[2], y0);
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

/* float32 math with a and b of two different storage types among float32, float16,
 * bfloat16 and int32 (the benchmarks' mixed pairs), out float32: 4 elements per thread and
 * iteration, each operand loaded as 4 * its size bytes at once. */
template <typename T> struct __align__(4 * sizeof(T)) ct_kquad { T e[4]; };
template <typename T> __device__ __forceinline__ float ct_kmix_load(T x) {
    return ct_kvec_load<T>(x);
}
template <> __device__ __forceinline__ float ct_kmix_load<int32_t>(int32_t x) {
    return (float)x; /* loops.c's ST_F32_I: rounded to nearest */
}

template <typename TA, typename TB>
__device__ __forceinline__ int64_t ct_kvec_mixed(const ct_kflat &f, const ct_kplan *p) {
    int64_t nq = f.n / 4;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const ct_kquad<TA> *a = (const ct_kquad<TA> *)f.data[1];
    const ct_kquad<TB> *b = (const ct_kquad<TB> *)f.data[2];
    float4 *o = (float4 *)f.data[0];
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nq; v += stride) {
        ct_kquad<TA> qa = a[v];
        ct_kquad<TB> qb = b[v];
        float r[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            (void)ct_kop_f32(p, ct_kmix_load<TA>(qa.e[j]), ct_kmix_load<TB>(qb.e[j]), &r[j]);
        o[v] = make_float4(r[0], r[1], r[2], r[3]);
    }
    return nq * 4;
}

__device__ __forceinline__ int64_t ct_kvec_i32(const ct_kflat &f, const ct_kplan *p, int *err) {
    int64_t nvec = f.n / 4;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const uint4 *a = (const uint4 *)f.data[1];
    const uint4 *b = (const uint4 *)f.data[2];
    uint4 *o = (uint4 *)f.data[0];
    bool b_one = f.step[2] == 0;
    int32_t y0 = 0;
    if (b_one)
        CT_KPLAN_LOAD(p, CT_INT32, p->dt_b, p->via_b, f.data[2], y0);
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

/* vec: 0 none, 1 float32 storage, 2 float16, 3 bfloat16, 4 int32, 5..10 the mixed float32
 * pairs (only stamped where the math dtype matches; the host picks it). */
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
        first = ct_kvec_f32<ct_kbf16>(f, &p);                                                      \
    CT_KVEC_MIXED(5, uint16_t, float)                                                              \
    CT_KVEC_MIXED(6, float, uint16_t)                                                              \
    CT_KVEC_MIXED(7, ct_kbf16, float)                                                              \
    CT_KVEC_MIXED(8, float, ct_kbf16)                                                              \
    CT_KVEC_MIXED(9, int32_t, float)                                                               \
    CT_KVEC_MIXED(10, float, int32_t)
#define CT_KVEC_MIXED(N, TA, TB) else if (vec == N) first = ct_kvec_mixed<TA, TB>(f, &p);
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
static int ct_kvec_mixed_kind(ct_dtype a, ct_dtype b) {
    static const ct_dtype pairs[][2] = {{CT_FLOAT16, CT_FLOAT32},  {CT_FLOAT32, CT_FLOAT16},
                                        {CT_BFLOAT16, CT_FLOAT32}, {CT_FLOAT32, CT_BFLOAT16},
                                        {CT_INT32, CT_FLOAT32},    {CT_FLOAT32, CT_INT32}};
    for (int k = 0; k < 6; k++)
        if (pairs[k][0] == a && pairs[k][1] == b)
            return 5 + k;
    return 0;
}

static int ct_kvec_kind(const ct_kernel_launch *l, const ct_kplan *p, const ct_kflat *f) {
    ct_dtype d = l->dtype[0];
    int mixed = ct_kvec_mixed_kind(l->dtype[1], l->dtype[2]);
    if (mixed != 0)
        return p->math == CT_FLOAT32 && d == CT_FLOAT32 && !p->via_a && !p->via_b && !p->via_out &&
                       f->step[0] == 4 && f->step[1] == ct_cvt_itemsize(l->dtype[1]) &&
                       f->step[2] == ct_cvt_itemsize(l->dtype[2]) &&
                       ((uintptr_t)f->data[0] & 15) == 0 &&
                       ((uintptr_t)f->data[1] % (uintptr_t)(4 * f->step[1])) == 0 &&
                       ((uintptr_t)f->data[2] % (uintptr_t)(4 * f->step[2])) == 0
                   ? mixed
                   : 0;
    if (p->via_a || p->via_out || l->dtype[1] != d)
        return 0;
    /* b: the same dtype, or one element of any dtype (read through the plan's route) */
    if (f->step[2] != 0 && (l->dtype[2] != d || p->via_b))
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

extern "C" int ct_cuda_impl_binary_run(const ct_kernel_launch *l, const ct_kplan *p, int *err_flag,
                                       int sm_count, ct_cuda_impl_stream_t stream) {
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
        int64_t per = vec == 0 ? 1 : vec == 2 || vec == 3 ? 8 : 4; /* elements per thread step */
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
    ct_kgeo_fill(&g, l, 3);
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
