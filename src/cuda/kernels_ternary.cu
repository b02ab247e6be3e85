/* The GPU kernels of TERNARY launches (where, clamp, clamp_min, clamp_max, lerp, addcmul,
 * addcdiv, masked_fill): every element computed by ct_telem_<math> / ct_tsel_<width> of
 * src/kernels/ternary_plan.h, the same code (element functions of ternary_elem.h,
 * conversions of elem_impl.h) the host-executed launches of the tests run and the cpu's
 * loops are built from (Note [One definition per element] in src/kernels/binary_elem.h).
 * Compiled with --fmad=false (CMakeLists.txt): no contraction, every float step rounds as
 * on the cpu (the fused steps of addcmul and lerp are spelled fma there).
 *
 * Kernels:
 *  - general: any geometry (up to CT_LAUNCH_MAX_DIMS dims, innermost first, four operands)
 *    passed by value as a __grid_constant__ parameter (about 3.1 KB), each element's offsets
 *    decoded from its linear index (kernels_geo.h);
 *  - contiguous: every operand dense (stride = its element size) or one broadcast element
 *    (stride 0), the usual case (clamp(x, 0, 1), where(c, x, 0.), x.lerp(y, 0.5)).
 * Both are stamped per math dtype and per select width, so that each body holds only its
 * own element function; the row is switched on at run time (the same branch for every
 * thread).
 * Both are grid-stride loops over 64-bit indices, so any numel works with any grid. No row
 * can fail per element, so there is no error flag. */
#include <cuda_runtime.h>

#include "cuda/kernels_geo.h"
#include "cuda/kernels_impl.h"

#define CT_TTHREADS 256

/* The general geometry, by value (kernels_geo.h). */
typedef ct_kgeo_n<4> ct_tgeo;
static_assert(sizeof(ct_tgeo) + sizeof(ct_tplan) < 4000,
              "kernel parameters stay within the classic 4 KB limit");

/* The contiguous case: element i of operand k is at data[k] + i * step[k]. */
typedef struct ct_tflat {
    int64_t n;
    char *data[4];
    int64_t step[4];
} ct_tflat;

/* The general kernels, stamped like the flat ones: one kernel that switched over every row
 * and dtype (ct_telem) took nvcc four minutes of this file's four and a half (real sm_90
 * code), one function too large to optimise quickly; per math dtype and select width the
 * same code is a dozen small kernels. */
#define CT_TGEN_KERNEL(NAME, FN)                                                                   \
    __global__ void __launch_bounds__(CT_TTHREADS)                                                 \
        NAME(const __grid_constant__ ct_tgeo g, const __grid_constant__ ct_tplan p) {              \
        CT_KGEO_FOR_EACH(4, g,                                                                     \
                         FN(&p, g.data[0] + off[0], g.data[1] + off[1], g.data[2] + off[2],        \
                            g.data[3] + off[3]));                                                  \
    }

#define CT_TFLAT_KERNEL(NAME, FN)                                                                  \
    __global__ void __launch_bounds__(CT_TTHREADS)                                                 \
        NAME(const __grid_constant__ ct_tflat f, const __grid_constant__ ct_tplan p) {             \
        int64_t stride = (int64_t)gridDim.x * blockDim.x;                                          \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < f.n; i += stride)     \
            FN(&p, f.data[0] + i * f.step[0], f.data[1] + i * f.step[1],                           \
               f.data[2] + i * f.step[2], f.data[3] + i * f.step[3]);                              \
    }

#define CT_TMATH_STAMP(E, S, T)                                                                    \
    CT_TFLAT_KERNEL(k_ternary_flat_##S, ct_telem_##S)                                              \
    CT_TGEN_KERNEL(k_ternary_gen_##S, ct_telem_##S)
CT_TPLAN_MATH_ROWS(CT_TMATH_STAMP)
#undef CT_TMATH_STAMP
#define CT_TSEL_STAMP(S)                                                                           \
    CT_TFLAT_KERNEL(k_ternary_sel_##S, ct_tsel_##S)                                                \
    CT_TGEN_KERNEL(k_ternary_gsel_##S, ct_tsel_##S)
CT_TSEL_STAMP(w1)
CT_TSEL_STAMP(w2)
CT_TSEL_STAMP(w4)
CT_TSEL_STAMP(w8)
CT_TSEL_STAMP(w16)
#undef CT_TSEL_STAMP

/* ---- host side ------------------------------------------------------------------------------ */

static int64_t ct_tblocks(int64_t work, int sm_count) {
    int64_t want = (work + CT_TTHREADS - 1) / CT_TTHREADS;
    int64_t cap = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    return want < 1 ? 1 : want > cap ? cap : want;
}

/* One select width W: its case of CT_TLAUNCH's switch. */
#define CT_TSEL_CASE(SEL, W, ARG)                                                                  \
    case W:                                                                                        \
        SEL##w##W<<<(unsigned)blocks, CT_TTHREADS, 0, s>>>(ARG, *p);                               \
        break;
/* Launch on ARG (the flat f or the general g) the kernel stamped for plan p: SEL<width> for
 * a select, else the math dtype's by MATH_CASE; returns from the caller. */
#define CT_TLAUNCH(SEL, MATH_CASE, ARG)                                                            \
    do {                                                                                           \
        if (p->select) {                                                                           \
            switch (p->size) {                                                                     \
                CT_TSEL_CASE(SEL, 1, ARG)                                                          \
                CT_TSEL_CASE(SEL, 2, ARG)                                                          \
                CT_TSEL_CASE(SEL, 4, ARG)                                                          \
                CT_TSEL_CASE(SEL, 8, ARG)                                                          \
                CT_TSEL_CASE(SEL, 16, ARG)                                                         \
            default:                                                                               \
                return (int)cudaErrorInvalidValue;                                                 \
            }                                                                                      \
        } else {                                                                                   \
            switch (p->math) {                                                                     \
                CT_TPLAN_MATH_ROWS(MATH_CASE)                                                      \
            default:                                                                               \
                return (int)cudaErrorInvalidValue;                                                 \
            }                                                                                      \
        }                                                                                          \
        return (int)cudaGetLastError();                                                            \
    } while (0)
#define CT_TCASE_FLAT(E, S, T)                                                                     \
    case CT_##E:                                                                                   \
        k_ternary_flat_##S<<<(unsigned)blocks, CT_TTHREADS, 0, s>>>(f, *p);                        \
        break;
#define CT_TCASE_GEN(E, S, T)                                                                      \
    case CT_##E:                                                                                   \
        k_ternary_gen_##S<<<(unsigned)blocks, CT_TTHREADS, 0, s>>>(g, *p);                         \
        break;

extern "C" int ct_cuda_impl_ternary_run(const ct_kernel_launch *l, const ct_tplan *p, int sm_count,
                                        ct_cuda_impl_stream_t stream) {
    cudaStream_t s = (cudaStream_t)stream;
    int nops = 1 + p->nin;
    /* flat: ndim <= 1 and each operand dense or a single element */
    bool flat = l->ndim <= 1;
    ct_tflat f;
    memset(&f, 0, sizeof f);
    f.n = l->numel;
    for (int k = 0; k < nops && flat; k++) {
        int64_t step = l->ndim == 0 ? 0 : l->strides[k][0];
        f.data[k] = l->data[k];
        f.step[k] = step;
        if (step != 0 && step != ct_cvt_itemsize(l->dtype[k]))
            flat = false;
    }
    if (flat && f.step[0] == 0 && f.n > 1)
        flat = false; /* (an output is never broadcast; keep the general path honest) */
    int64_t blocks = ct_tblocks(l->numel, sm_count);
    if (flat)
        CT_TLAUNCH(k_ternary_sel_, CT_TCASE_FLAT, f);
    ct_tgeo g;
    ct_kgeo_fill(&g, l, nops);
    CT_TLAUNCH(k_ternary_gsel_, CT_TCASE_GEN, g);
}
