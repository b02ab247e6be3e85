/* softmax / log_softmax of one contiguous row, compiled once per ISA level (CMake's
 * CT_ISA_SOURCES: CT_ISA_SUFFIX = _baseline, _avx2 or _avx512), with the same level's vector
 * exp (unary_loops.c, SLEEF) and sum (reduce_loops.c). Three passes over the row, as PyTorch's
 * kernel makes:
 *   1. its max (NaN wins: a row holding NaN gives NaN everywhere, as x - max then does);
 *   2. CHUNK elements at a time while they are in L1: x - max, exp, and their sum in double
 *      lanes (softmax keeps the exps in the output; log_softmax only sums them);
 *   3. softmax: times 1 / sum (the reciprocal computed in double and rounded, as PyTorch
 *      multiplies by it); log_softmax: (x - max) - log(sum), log in double, rounded.
 * Apart from the exp, every step is element-wise or a sum in a fixed order (the reduction
 * kernels give every level the same sum), so the levels agree to within the exp loops' ulp
 * bound. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/reduce.h"
#include "kernels/softmax.h"
#include "kernels/unary.h"

#ifndef CT_ISA_SUFFIX
#error "softmax_loops.c is built by CMake with -DCT_ISA_SUFFIX=_<level>"
#endif
#define CAT2_(a, b) a##b
#define CAT2(a, b) CAT2_(a, b)

#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX2__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
enum {
    CHUNK = 1024,  /* elements of one L1 chunk */
    NACC = 4,      /* independent vector accumulators of the max */
    SHORT_SUM = 64 /* shorter chunks are summed by a plain loop */
};

typedef float vf32 __attribute__((vector_size(VBYTES), aligned(4)));
typedef double vf64 __attribute__((vector_size(VBYTES), aligned(8)));
typedef int32_t vi32 __attribute__((vector_size(VBYTES)));
typedef int64_t vi64 __attribute__((vector_size(VBYTES)));

#define ROW_LOOPS(S, T, V, VI, SUMT, UNM)                                                    \
    /* the max of x[0..n), or NaN when it holds one: NACC vector accumulators, a select by the    \
     * comparison's mask (x > m takes x; a NaN compares false, so NaNs are counted apart) */       \
    static T max_##S(const T *x, int64_t n) {                                                      \
        enum { L = VBYTES / sizeof(T) };                                                           \
        int64_t i = 0;                                                                             \
        T m = -(T)INFINITY;                                                                        \
        bool nan = false;                                                                          \
        if (n >= NACC * L) {                                                                       \
            V acc[NACC];                                                                           \
            VI bad = {0};                                                                          \
            for (int k = 0; k < NACC; k++)                                                         \
                acc[k] = *(const V *)(x + k * L);                                                  \
            for (; i + NACC * L <= n; i += NACC * L)                                               \
                for (int k = 0; k < NACC; k++) {                                                   \
                    V v = *(const V *)(x + i + k * L);                                             \
                    VI gt = v > acc[k];                                                            \
                    bad |= v != v;                                                                 \
                    acc[k] = (V)(((VI)v & gt) | ((VI)acc[k] & ~gt));                               \
                }                                                                                  \
            for (int k = 0; k < NACC; k++)                                                         \
                for (int l = 0; l < L; l++) {                                                      \
                    nan |= bad[l] != 0;                                                            \
                    m = acc[k][l] > m ? acc[k][l] : m;                                             \
                }                                                                                  \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            nan |= x[i] != x[i];                                                                   \
            m = x[i] > m ? x[i] : m;                                                               \
        }                                                                                          \
        return nan ? (T)NAN : m;                                                                   \
    }                                                                                              \
    void CAT2(ct_softmax_impl_row_##S, CT_ISA_SUFFIX)(bool take_log, const T *x, T *o, int64_t n) {\
        ct_unary_math_loop exp_loop = CAT2(ct_unary_loops, CT_ISA_SUFFIX)[CT_UNK_EXP][UNM];        \
        T buf[CHUNK];                                                                              \
        T m = max_##S(x, n);                                                                       \
        double s = 0;                                                                              \
        for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {                                                \
            int64_t k = n - i0 < CHUNK ? n - i0 : CHUNK;                                           \
            T *e = take_log ? buf : o + i0;                                                           \
            for (int64_t i = 0; i < k; i++)                                                        \
                e[i] = x[i0 + i] - m;                                                              \
            exp_loop(e, e, k);                                                                     \
            double part = 0;                                                                       \
            if (k >= SHORT_SUM)                                                                    \
                CAT2(ct_reduce_impl_block, CT_ISA_SUFFIX)(CT_REDK_SUM, SUMT, e, k, &part);         \
            else /* the block loop's set-up costs more than a short row */                         \
                for (int64_t i = 0; i < k; i++)                                                    \
                    part += (double)e[i];                                                          \
            s += part;                                                                             \
        }                                                                                          \
        if (!take_log) {                                                                           \
            T inv = (T)(1.0 / s);                                                                  \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = o[i] * inv;                                                                 \
            return;                                                                                \
        }                                                                                          \
        T ls = (T)log(s);                                                                          \
        for (int64_t i = 0; i < n; i++) /* o may be x: each element read, then written */          \
            o[i] = (x[i] - m) - ls;                                                                \
    }
ROW_LOOPS(f32, float, vf32, vi32, CT_REDT_F32D, CT_UNM_F32)
ROW_LOOPS(f64, double, vf64, vi64, CT_REDT_F64, CT_UNM_F64)
