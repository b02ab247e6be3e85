/* The GPU kernels of UNARY launches: out = f(in) for the rows of ctensor/unary.def, every
 * element computed by ct_uelem_<math> of src/kernels/unary_plan.h, the code (element
 * functions of unary_elem.h, conversions of elem_impl.h) the host-executed launches of
 * test_launch_dispatch check against the cpu. Compiled with --fmad=false (CMakeLists.txt).
 * The transcendental functions are CUDA's libdevice ones in float64 (the cpu computes
 * float32 through float64 libm too, unary_elem.h): results may differ from glibc's by an
 * ulp of the float64 value, rarely visible after the rounding to float32.
 *
 * Per math dtype (10) two kernels: general (any geometry, passed by value, offsets decoded
 * from the linear index) and flat (each operand dense or one element). The op is a switch
 * on the plan, the same for every thread. Grid-stride loops over 64-bit indices. */
#include <cuda_runtime.h>

#include "cuda/kernels_geo.h"
#include "cuda/kernels_impl.h"
#include "kernels/unary_plan.h"

#define CT_UTHREADS 256

typedef ct_kgeo_n<2> ct_ugeo; /* kernels_geo.h */
static_assert(sizeof(ct_ugeo) + sizeof(ct_uplan) < 4000,
              "kernel parameters stay within the classic 4 KB limit");

typedef struct ct_uflat {
    int64_t n;
    char *data[2];
    int64_t step[2];
} ct_uflat;

#define CT_USTAMP(E, S, T)                                                                         \
    __global__ void __launch_bounds__(CT_UTHREADS)                                                 \
        k_unary_gen_##S(const __grid_constant__ ct_ugeo g, const __grid_constant__ ct_uplan p) {   \
        CT_KGEO_FOR_EACH(2, g, (void)ct_uelem_##S(&p, g.data[0] + off[0], g.data[1] + off[1]));    \
    }                                                                                              \
    __global__ void __launch_bounds__(CT_UTHREADS)                                                 \
        k_unary_flat_##S(const __grid_constant__ ct_uflat f, const __grid_constant__ ct_uplan p) { \
        int64_t stride = (int64_t)gridDim.x * blockDim.x;                                          \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < f.n; i += stride)     \
            (void)ct_uelem_##S(&p, f.data[0] + i * f.step[0], f.data[1] + i * f.step[1]);          \
    }

CT_UPLAN_MATH_ROWS(CT_USTAMP)

/* ---- host side ------------------------------------------------------------------------------ */

static int64_t ct_ublocks(int64_t work, int sm_count) {
    int64_t want = (work + CT_UTHREADS - 1) / CT_UTHREADS;
    int64_t cap = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    return want < 1 ? 1 : want > cap ? cap : want;
}

extern "C" int ct_cuda_impl_unary_run(const ct_kernel_launch *l, const ct_uplan *p, int sm_count,
                                      ct_cuda_impl_stream_t stream) {
    cudaStream_t s = (cudaStream_t)stream;
    int64_t blocks = ct_ublocks(l->numel, sm_count);
    bool flat = l->ndim <= 1;
    ct_uflat f;
    f.n = l->numel;
    for (int k = 0; k < 2 && flat; k++) {
        int64_t step = l->ndim == 0 ? 0 : l->strides[k][0];
        f.data[k] = l->data[k];
        f.step[k] = step;
        if (step != 0 && step != ct_cvt_itemsize(l->dtype[k]))
            flat = false;
    }
    if (flat && f.step[0] == 0 && f.n > 1)
        flat = false;
    if (flat) {
        switch (p->math) {
#define CT_UCASE_FLAT(E, S, T)                                                                     \
    case CT_##E:                                                                                   \
        k_unary_flat_##S<<<(unsigned)blocks, CT_UTHREADS, 0, s>>>(f, *p);                          \
        break;
            CT_UPLAN_MATH_ROWS(CT_UCASE_FLAT)
#undef CT_UCASE_FLAT
        default:
            return (int)cudaErrorInvalidValue;
        }
        return (int)cudaGetLastError();
    }
    ct_ugeo g;
    ct_kgeo_fill(&g, l, 2);
    switch (p->math) {
#define CT_UCASE_GEN(E, S, T)                                                                      \
    case CT_##E:                                                                                   \
        k_unary_gen_##S<<<(unsigned)blocks, CT_UTHREADS, 0, s>>>(g, *p);                           \
        break;
        CT_UPLAN_MATH_ROWS(CT_UCASE_GEN)
#undef CT_UCASE_GEN
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
