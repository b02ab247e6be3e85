/* The integer matrix micro-kernels, compiled once per ISA level (CMake's CT_ISA_SOURCES):
 * Note [integer gemm] (gemm_int.c).
 *
 * The vectors are the level's native width (16, 32 or 64 bytes) and a panel of B is two of
 * them, so mr x 2 accumulators, the two loads of B and the broadcast of A fit the level's
 * register file (16 registers below AVX-512: mr 6 leaves 3; 32 at AVX-512: mr 8). Wider
 * GNU vectors than the target has are split by the compiler and spilled on every k: a
 * 64-byte kernel built for AVX2 ran int32 512 x 512 ten times slower than this one. */
#include <stdint.h>
#include <string.h>

#include "kernels/gemm_int.h"

#ifndef CT_ISA_SUFFIX
#error "gemm_int_loops.c is built by CMake with -DCT_ISA_SUFFIX=_<level>"
#endif
#define CT_CAT2(a, b) a##b
#define CT_CAT(a, b) CT_CAT2(a, b)
#define CT_FN(name) CT_CAT(name, CT_ISA_SUFFIX)

#if defined(__AVX512F__)
#define GI_VBYTES 64
#define GI_MR 8
#elif defined(__AVX2__)
#define GI_VBYTES 32
#define GI_MR 6
#else
#define GI_VBYTES 16
#define GI_MR 6
#endif
_Static_assert(GI_MR <= CT_GEMM_INT_MR_MAX && 2 * GI_VBYTES <= CT_GEMM_INT_PANEL_MAX,
               "gemm_int.h's bounds size the callers' scratch");

/* Fixed-count loops over the rows: the compiler unrolls them and keeps c0/c1 in registers.
 * Unsigned vectors wrap as PyTorch's integers do (no signed-overflow UB), and wrapping sums
 * do not depend on their order. */
#define GI_MICRO(U)                                                                                \
    typedef U gi_vec_##U __attribute__((vector_size(GI_VBYTES)));                                  \
    static void micro_##U(const void *a_, int64_t lda, int64_t rows, const void *bp_, int64_t k,   \
                          void *t_) {                                                              \
        enum { per_vec = GI_VBYTES / sizeof(U) };                                                  \
        const U *a = a_, *restrict bp = bp_;                                                       \
        const U *ar[GI_MR];                                                                        \
        for (int r = 0; r < GI_MR; r++)                                                            \
            ar[r] = a + (r < rows ? r : rows - 1) * lda;                                           \
        gi_vec_##U c0[GI_MR], c1[GI_MR];                                                           \
        for (int r = 0; r < GI_MR; r++)                                                            \
            c0[r] = c1[r] = (gi_vec_##U){0};                                                       \
        for (int64_t p = 0; p < k; p++, bp += 2 * per_vec) {                                       \
            gi_vec_##U b0, b1;                                                                     \
            memcpy(&b0, bp, sizeof b0);                                                            \
            memcpy(&b1, bp + per_vec, sizeof b1);                                                  \
            for (int r = 0; r < GI_MR; r++) {                                                      \
                gi_vec_##U v = (gi_vec_##U){0} + ar[r][p];                                         \
                c0[r] += v * b0;                                                                   \
                c1[r] += v * b1;                                                                   \
            }                                                                                      \
        }                                                                                          \
        U *t = t_;                                                                                 \
        for (int r = 0; r < GI_MR; r++) {                                                          \
            memcpy(t + 2 * r * per_vec, &c0[r], sizeof c0[r]);                                     \
            memcpy(t + (2 * r + 1) * per_vec, &c1[r], sizeof c1[r]);                               \
        }                                                                                          \
    }
GI_MICRO(uint8_t)
GI_MICRO(uint16_t)
GI_MICRO(uint32_t)
GI_MICRO(uint64_t)

const ct_gemm_int_kernels CT_FN(ct_gemm_int_kernels) = {
    .mr = GI_MR,
    .panel_bytes = 2 * GI_VBYTES,
    .micro = {micro_uint8_t, micro_uint16_t, micro_uint32_t, micro_uint64_t},
};
