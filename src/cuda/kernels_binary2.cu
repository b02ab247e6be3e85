/* The GPU kernels of BINARY launches for the kernel rows after DIV_FLOOR (ctensor/ops.def):
 * comparisons and logical ops (bool results), maximum minimum fmax fmin, pow remainder fmod
 * atan2 hypot, the bitwise ops and shifts, pow with a Python-number exponent. Every element
 * is ct_kelem2_<math> of src/kernels/binary_plan2.h, from binary_elem.h's element functions,
 * the code the cpu's loops and the host-executed test launches run (Note [One definition per
 * element]); pow, atan2 and hypot call CUDA's libdevice, within an ulp or so of glibc.
 * Compiled with --fmad=false (CMakeLists.txt).
 *
 * Per math dtype (13) two kernels, the op a switch on the plan (the same for every thread):
 *  - general: any geometry (as kernels_binary.cu's, by value), offsets decoded per element;
 *  - flat: every operand dense or one broadcast element (ndim <= 1), the usual case; the
 *    element loads and stores of consecutive threads are consecutive, so no vectorised body
 *    is stamped (these ops are not the bandwidth benchmarks, and kernels stay few: the PTX
 *    compile stays well under a minute).
 * An integer remainder / fmod by a zero divisor stores 1 in `err` (launch.c waits for it)
 * and leaves that element unwritten, as the cpu stops there. Kept apart from
 * kernels_binary.cu so that each file compiles in reasonable time. */
#include <cuda_runtime.h>

#include "cuda/kernels_geo.h"
#include "cuda/kernels_impl.h"
#include "kernels/binary_plan2.h"

#define CT_THREADS2 256

typedef ct_kgeo_n<3> ct_kgeo2; /* kernels_geo.h */
static_assert(sizeof(ct_kgeo2) + sizeof(ct_kplan) + sizeof(int *) < 4000,
              "kernel parameters stay within the classic 4 KB limit");

typedef struct ct_kflat2 {
    int64_t n;
    char *data[3];
    int64_t step[3];
} ct_kflat2;

#define CT_KSTAMP2(E, S, T)                                                                        \
    __global__ void __launch_bounds__(CT_THREADS2) k_binary2_gen_##S(                              \
        const __grid_constant__ ct_kgeo2 g, const __grid_constant__ ct_kplan p, int *err) {        \
        CT_KGEO_FOR_EACH(3, g,                                                                     \
                         if (ct_kelem2_##S(&p, g.data[0] + off[0], g.data[1] + off[1],             \
                                           g.data[2] + off[2]) != CT_KP_OK) *err = 1);             \
    }                                                                                              \
    __global__ void __launch_bounds__(CT_THREADS2) k_binary2_flat_##S(                             \
        const __grid_constant__ ct_kflat2 f, const __grid_constant__ ct_kplan p, int *err) {       \
        int64_t stride = (int64_t)gridDim.x * blockDim.x;                                          \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < f.n; i += stride) {   \
            if (ct_kelem2_##S(&p, f.data[0] + i * f.step[0], f.data[1] + i * f.step[1],            \
                              f.data[2] + i * f.step[2]) != CT_KP_OK)                              \
                *err = 1;                                                                          \
        }                                                                                          \
    }

CT_KPLAN_MATH_ROWS(CT_KSTAMP2)

static int64_t ct_kblocks2(int64_t work, int sm_count) {
    int64_t want = (work + CT_THREADS2 - 1) / CT_THREADS2;
    int64_t cap = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    return want < 1 ? 1 : want > cap ? cap : want;
}

extern "C" int ct_cuda_impl_binary2_run(const ct_kernel_launch *l, const ct_kplan *p, int *err_flag,
                                        int sm_count, ct_cuda_impl_stream_t stream) {
    cudaStream_t s = (cudaStream_t)stream;
    bool flat = l->ndim <= 1;
    ct_kflat2 f;
    f.n = l->numel;
    for (int k = 0; k < 3 && flat; k++) {
        int64_t step = l->ndim == 0 ? 0 : l->strides[k][0];
        f.data[k] = l->data[k];
        f.step[k] = step;
        if (step != 0 && step != ct_cvt_itemsize(l->dtype[k]))
            flat = false;
    }
    if (flat && f.step[0] == 0 && f.n > 1)
        flat = false;
    int64_t blocks = ct_kblocks2(l->numel, sm_count);
    if (flat) {
        switch (p->math) {
#define CT_KCASE2(E, S, T)                                                                         \
    case CT_##E:                                                                                   \
        k_binary2_flat_##S<<<(unsigned)blocks, CT_THREADS2, 0, s>>>(f, *p, err_flag);              \
        break;
            CT_KPLAN_MATH_ROWS(CT_KCASE2)
#undef CT_KCASE2
        default:
            return (int)cudaErrorInvalidValue;
        }
        return (int)cudaGetLastError();
    }
    ct_kgeo2 g;
    ct_kgeo_fill(&g, l, 3);
    switch (p->math) {
#define CT_KCASE2(E, S, T)                                                                         \
    case CT_##E:                                                                                   \
        k_binary2_gen_##S<<<(unsigned)blocks, CT_THREADS2, 0, s>>>(g, *p, err_flag);               \
        break;
        CT_KPLAN_MATH_ROWS(CT_KCASE2)
#undef CT_KCASE2
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
