/* Reduction loops, compiled once per ISA level (CMake's CT_ISA_SOURCES, like binary_loops.c):
 * CT_ISA_SUFFIX = _baseline, _avx2 or _avx512. Note [Reduction kernels] (reduce.h) says what
 * they compute. The many-accumulator loops below are written as plain C over small arrays
 * of independent accumulators: the compiler turns each array into SIMD registers (no
 * reassociation is needed, so no fast-math), and their number hides the add latency. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "kernels/reduce.h"

#ifndef CT_ISA_SUFFIX
#error "reduce_loops.c is built by CMake with -DCT_ISA_SUFFIX=_<level>"
#endif
#define CT_CAT2(a, b) a##b
#define CT_CAT(a, b) CT_CAT2(a, b)
#define CT_FN(name) CT_CAT(name, CT_ISA_SUFFIX)

#if defined(__AVX512F__)
#define CT_VBYTES 64
#elif defined(__AVX2__)
#define CT_VBYTES 32
#else
#define CT_VBYTES 16
#endif
/* Every block loop keeps 256 bytes of accumulators (64 floats, 32 doubles, ...) whatever the
 * vector width, so accumulator j always holds the elements i with i % lanes == j and every
 * ISA level gives the same bits. */
#define ACC_BYTES 256
#define NVEC (ACC_BYTES / CT_VBYTES)

typedef float vf32 __attribute__((vector_size(CT_VBYTES)));
typedef double vf64 __attribute__((vector_size(CT_VBYTES)));
typedef int64_t vi64 __attribute__((vector_size(CT_VBYTES)));
typedef int32_t vi32 __attribute__((vector_size(CT_VBYTES)));
typedef uint64_t vu64 __attribute__((vector_size(CT_VBYTES)));
typedef uint8_t vu8 __attribute__((vector_size(CT_VBYTES)));
typedef int8_t vi8 __attribute__((vector_size(CT_VBYTES)));
typedef int32_t vi32h __attribute__((vector_size(CT_VBYTES / 2)));

/* scalar forms (tails and the final fold) */
#define MAX_OP(a, v) (((v) > (a) || (v) != (v)) ? (v) : (a))
#define MIN_OP(a, v) (((v) < (a) || (v) != (v)) ? (v) : (a))
#define ADD_OP(a, v) ((a) + (v))
#define MUL_OP(a, v) ((a) * (v))
#define AND_OP(a, v) ((uint8_t)((a) & ((v) != 0)))
#define OR_OP(a, v) ((uint8_t)((a) | ((v) != 0)))
/* wrapping integer arithmetic through uint64 */
#define IADD_OP(a, v) ((int64_t)((uint64_t)(a) + (uint64_t)(int64_t)(v)))
#define IMUL_OP(a, v) ((int64_t)((uint64_t)(a) * (uint64_t)(int64_t)(v)))

/* vector forms: a = OP(a, v) on VT vectors, VI the matching integer vector */
#define SEL(m, x, y, VT, VI) ((VT)(((VI)(x) & (m)) | ((VI)(y) & ~(m))))
#define VADD(a, v, VT, VI) ((a) + (v))
#define VMUL(a, v, VT, VI) ((a) * (v))
#define VIADD(a, v, VT, VI) ((VT)((vu64)(a) + (vu64)(v)))
#define VIMUL(a, v, VT, VI) ((VT)((vu64)(a) * (vu64)(v)))
#define VFMAX(a, v, VT, VI) SEL((VI)(((v) > (a)) | ((v) != (v))), v, a, VT, VI)
#define VFMIN(a, v, VT, VI) SEL((VI)(((v) < (a)) | ((v) != (v))), v, a, VT, VI)
#define VIMAX(a, v, VT, VI) SEL((VI)((v) > (a)), v, a, VT, VI)
#define VIMIN(a, v, VT, VI) SEL((VI)((v) < (a)), v, a, VT, VI)
#define VAND(a, v, VT, VI) ((a) & ((VT)((v) != 0) & 1))
#define VOR(a, v, VT, VI) ((a) | ((VT)((v) != 0) & 1))

/* One block: NVEC vector accumulators of type VT (T elements, the input type too), a scalar
 * tail into the lanes, and a pairwise fold of the lanes. */
#define VEC_BLOCK(NAME, T, VT, VI, INIT, VOP, SOP)                                                \
    static T NAME(const T *restrict x, int64_t n) {                                              \
        enum { L = CT_VBYTES / (int)sizeof(T), LANES = ACC_BYTES / (int)sizeof(T) };             \
        VT a[NVEC];                                                                              \
        for (int u = 0; u < NVEC; u++)                                                           \
            for (int j = 0; j < L; j++)                                                          \
                a[u][j] = (INIT);                                                                \
        int64_t i = 0;                                                                           \
        for (; i + LANES <= n; i += LANES)                                                       \
            for (int u = 0; u < NVEC; u++) {                                                     \
                VT v;                                                                            \
                memcpy(&v, x + i + u * L, sizeof v);                                             \
                a[u] = VOP(a[u], v, VT, VI);                                                     \
            }                                                                                    \
        T t[LANES];                                                                              \
        memcpy(t, a, sizeof t);                                                                  \
        for (int j = 0; i + j < n; j++)                                                          \
            t[j] = SOP(t[j], x[i + j]);                                                          \
        for (int s = LANES / 2; s >= 1; s /= 2)                                                  \
            for (int j = 0; j < s; j++)                                                          \
                t[j] = SOP(t[j], t[j + s]);                                                      \
        return t[0];                                                                             \
    }
VEC_BLOCK(sum_f32, float, vf32, vi32, 0.0f, VADD, ADD_OP)
VEC_BLOCK(sum_f64, double, vf64, vi64, 0.0, VADD, ADD_OP)
VEC_BLOCK(prod_f32, float, vf32, vi32, 1.0f, VMUL, MUL_OP)
VEC_BLOCK(prod_f64, double, vf64, vi64, 1.0, VMUL, MUL_OP)
#if defined(__AVX2__) || defined(__AVX512F__)
/* Float max / min on x86: the instruction (one op; it keeps the accumulator on ties and when
 * the element is a NaN) with NaNs caught apart, one unordered compare per two vectors; a
 * block that holds a NaN gives its first NaN. The same lanes as VEC_BLOCK (256 bytes), so the
 * same result at AVX2 and AVX-512. 256-bit vectors at the AVX-512 level too: this loop only
 * streams memory, and on AMD Zen 4 (which splits a 512-bit load in two) the 256-bit form
 * reads 10^7 float32 about 15% faster, level with or ahead of PyTorch's. */
#define FMM_BLOCK(NAME, T, VT, NV, LOADU, SET1, MAXMIN, STOREU, UNORD)                            \
    static T NAME(const T *restrict x, int64_t n, T init) {                                      \
        enum { L = 32 / (int)sizeof(T), LANES = ACC_BYTES / (int)sizeof(T) };                    \
        VT a[NV];                                                                                \
        for (int u = 0; u < NV; u++)                                                             \
            a[u] = SET1(init);                                                                   \
        VT nan = SET1(0);                                                                        \
        int64_t i = 0;                                                                           \
        for (; i + LANES <= n; i += LANES)                                                       \
            for (int u = 0; u < NV; u += 2) {                                                    \
                VT v0 = LOADU(x + i + u * L), v1 = LOADU(x + i + (u + 1) * L);                   \
                nan = UNORD(nan, v0, v1);                                                        \
                a[u] = MAXMIN(v0, a[u]);                                                         \
                a[u + 1] = MAXMIN(v1, a[u + 1]);                                                 \
            }                                                                                    \
        T t[LANES];                                                                              \
        for (int u = 0; u < NV; u++)                                                             \
            STOREU(t + u * L, a[u]);                                                             \
        T f[L];                                                                                  \
        STOREU(f, nan);                                                                          \
        int any = 0;                                                                             \
        for (int j = 0; j < L; j++)                                                              \
            any |= f[j] != 0;                                                                    \
        return fmm_finish(t, LANES, x, i, n, any);                                               \
    }
#define UNORD_PS(n, a, b) _mm256_or_ps(n, _mm256_cmp_ps(a, b, _CMP_UNORD_Q))
#define UNORD_PD(n, a, b) _mm256_or_pd(n, _mm256_cmp_pd(a, b, _CMP_UNORD_Q))
#define FMM_ARGS_F32 float, __m256, 8, _mm256_loadu_ps, _mm256_set1_ps
#define FMM_ARGS_F64 double, __m256d, 8, _mm256_loadu_pd, _mm256_set1_pd
#define STORE_PS _mm256_storeu_ps
#define STORE_PD _mm256_storeu_pd
#define MAX_PS _mm256_max_ps
#define MIN_PS _mm256_min_ps
#define MAX_PD _mm256_max_pd
#define MIN_PD _mm256_min_pd
/* The lanes folded (ties keep the first), the tail, and the first NaN of a block that has one
 * (its bits kept). */
#define FMM_FINISH(NAME, T, OP)                                                                   \
    static T NAME(T *t, int lanes, const T *x, int64_t i, int64_t n, int nan) {                  \
        if (nan)                                                                                 \
            for (int64_t k = 0; k < i; k++)                                                      \
                if (x[k] != x[k])                                                                \
                    return x[k];                                                                 \
        for (int j = 0; i + j < n; j++)                                                          \
            t[j] = OP(t[j], x[i + j]);                                                           \
        for (int s = lanes / 2; s >= 1; s /= 2)                                                  \
            for (int j = 0; j < s; j++)                                                          \
                t[j] = OP(t[j], t[j + s]);                                                       \
        return t[0];                                                                             \
    }
#define FMM_BLOCK_(...) FMM_BLOCK(__VA_ARGS__) /* expands the argument lists first */
FMM_FINISH(fmm_max_f32_finish, float, MAX_OP)
FMM_FINISH(fmm_min_f32_finish, float, MIN_OP)
FMM_FINISH(fmm_max_f64_finish, double, MAX_OP)
FMM_FINISH(fmm_min_f64_finish, double, MIN_OP)
#define fmm_finish fmm_max_f32_finish
FMM_BLOCK_(fmm_max_f32, FMM_ARGS_F32, MAX_PS, STORE_PS, UNORD_PS)
#undef fmm_finish
#define fmm_finish fmm_min_f32_finish
FMM_BLOCK_(fmm_min_f32, FMM_ARGS_F32, MIN_PS, STORE_PS, UNORD_PS)
#undef fmm_finish
#define fmm_finish fmm_max_f64_finish
FMM_BLOCK_(fmm_max_f64, FMM_ARGS_F64, MAX_PD, STORE_PD, UNORD_PD)
#undef fmm_finish
#define fmm_finish fmm_min_f64_finish
FMM_BLOCK_(fmm_min_f64, FMM_ARGS_F64, MIN_PD, STORE_PD, UNORD_PD)
#undef fmm_finish
static float max_f32(const float *restrict x, int64_t n) { return fmm_max_f32(x, n, -INFINITY); }
static float min_f32(const float *restrict x, int64_t n) { return fmm_min_f32(x, n, INFINITY); }
static double max_f64(const double *restrict x, int64_t n) { return fmm_max_f64(x, n, -INFINITY); }
static double min_f64(const double *restrict x, int64_t n) { return fmm_min_f64(x, n, INFINITY); }
#else
VEC_BLOCK(max_f32, float, vf32, vi32, -INFINITY, VFMAX, MAX_OP)
VEC_BLOCK(max_f64, double, vf64, vi64, -INFINITY, VFMAX, MAX_OP)
VEC_BLOCK(min_f32, float, vf32, vi32, INFINITY, VFMIN, MIN_OP)
VEC_BLOCK(min_f64, double, vf64, vi64, INFINITY, VFMIN, MIN_OP)
#endif
VEC_BLOCK(sum_i64, int64_t, vi64, vi64, 0, VIADD, IADD_OP)
VEC_BLOCK(prod_i64, int64_t, vi64, vi64, 1, VIMUL, IMUL_OP)
VEC_BLOCK(max_i64, int64_t, vi64, vi64, INT64_MIN, VIMAX, MAX_OP)
VEC_BLOCK(min_i64, int64_t, vi64, vi64, INT64_MAX, VIMIN, MIN_OP)
VEC_BLOCK(all_u8, uint8_t, vu8, vu8, 1, VAND, AND_OP)
VEC_BLOCK(any_u8, uint8_t, vu8, vu8, 0, VOR, OR_OP)

/* int32 in, int64 accumulators: half a vector of int32 widened per step */
#define I32_BLOCK(NAME, INIT, VOP, SOP)                                                           \
    static int64_t NAME(const int32_t *restrict x, int64_t n) {                                  \
        enum { L = CT_VBYTES / 8, LANES = ACC_BYTES / 8 };                                       \
        vi64 a[NVEC];                                                                            \
        for (int u = 0; u < NVEC; u++)                                                           \
            for (int j = 0; j < L; j++)                                                          \
                a[u][j] = (INIT);                                                                \
        int64_t i = 0;                                                                           \
        for (; i + LANES <= n; i += LANES)                                                       \
            for (int u = 0; u < NVEC; u++) {                                                     \
                vi32h h;                                                                         \
                memcpy(&h, x + i + u * L, sizeof h);                                             \
                vi64 v = __builtin_convertvector(h, vi64);                                       \
                a[u] = VOP(a[u], v, vi64, vi64);                                                 \
            }                                                                                    \
        int64_t t[LANES];                                                                        \
        memcpy(t, a, sizeof t);                                                                  \
        for (int j = 0; i + j < n; j++)                                                          \
            t[j] = SOP(t[j], x[i + j]);                                                          \
        for (int s = LANES / 2; s >= 1; s /= 2)                                                  \
            for (int j = 0; j < s; j++)                                                          \
                t[j] = SOP(t[j], t[j + s]);                                                      \
        return t[0];                                                                             \
    }
I32_BLOCK(sum_i32, 0, VIADD, IADD_OP)
I32_BLOCK(prod_i32, 1, VIMUL, IMUL_OP)

/* float in, double accumulators, in two stages. The input is cut into runs of F32D_RUN
 * elements. Inside a run, 32 float lanes add every 32nd element (lane j the elements with
 * i % 32 == j, in order, from 0); at the end of the run each float lane is added into its
 * double lane, and the 32 double lanes are folded pairwise at the end. A float lane adds only
 * F32D_RUN / 32 = 16 values (PyTorch's float cascade has leaves of 16 to 32 and float levels
 * above them), so each value sees at most 15 float roundings, and the long accumulation is
 * double. Why not widen every element to double: on a memory-bound stream (a float32 sum of
 * 10^8) the converts and double adds per cache line slowed the read by 15-25% on an AVX2
 * Zen 3, where plain float adds keep up with memory. The lanes and runs are the same at
 * every ISA level, so every level gives the same bits. */
#define F32D_LANES 32
#define F32D_RUN 512
static double sum_f32d(const float *restrict x, int64_t n) {
    double t[F32D_LANES] = {0};
    int64_t i = 0;
#if defined(__AVX512F__)
    __m512d d[4];
    for (int u = 0; u < 4; u++)
        d[u] = _mm512_setzero_pd();
    for (; i + F32D_RUN <= n; i += F32D_RUN) {
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
        for (int k = 0; k < F32D_RUN; k += F32D_LANES) {
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + i + k));
            a1 = _mm512_add_ps(a1, _mm512_loadu_ps(x + i + k + 16));
        }
        /* lanes 0-7, 8-15 of a0, then 16-23, 24-31 of a1 */
        __m256 h[4] = {_mm512_castps512_ps256(a0),
                       _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a0), 1)),
                       _mm512_castps512_ps256(a1),
                       _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a1), 1))};
        for (int u = 0; u < 4; u++)
            d[u] = _mm512_add_pd(d[u], _mm512_cvtps_pd(h[u]));
    }
    for (int u = 0; u < 4; u++)
        _mm512_storeu_pd(t + 8 * u, d[u]);
#elif defined(__AVX2__)
    __m256d d[8];
    for (int u = 0; u < 8; u++)
        d[u] = _mm256_setzero_pd();
    for (; i + F32D_RUN <= n; i += F32D_RUN) {
        __m256 a[4];
        for (int u = 0; u < 4; u++)
            a[u] = _mm256_setzero_ps();
        for (int k = 0; k < F32D_RUN; k += F32D_LANES)
            for (int u = 0; u < 4; u++)
                a[u] = _mm256_add_ps(a[u], _mm256_loadu_ps(x + i + k + 8 * u));
        for (int u = 0; u < 4; u++) {
            __m128 lo = _mm256_castps256_ps128(a[u]), hi = _mm256_extractf128_ps(a[u], 1);
            d[2 * u] = _mm256_add_pd(d[2 * u], _mm256_cvtps_pd(lo));
            d[2 * u + 1] = _mm256_add_pd(d[2 * u + 1], _mm256_cvtps_pd(hi));
        }
    }
    for (int u = 0; u < 8; u++)
        _mm256_storeu_pd(t + 4 * u, d[u]);
#endif
    /* the runs left (all of them at the baseline level; the last, partial one elsewhere) */
    while (i < n) {
        int64_t len = n - i < F32D_RUN ? n - i : F32D_RUN, k = 0;
        float f[F32D_LANES] = {0};
        for (; k + F32D_LANES <= len; k += F32D_LANES)
            for (int j = 0; j < F32D_LANES; j++)
                f[j] += x[i + k + j];
        for (int j = 0; k + j < len; j++)
            f[j] += x[i + k + j];
        for (int j = 0; j < F32D_LANES; j++)
            t[j] += (double)f[j];
        i += len;
    }
    for (int s = F32D_LANES / 2; s >= 1; s /= 2)
        for (int j = 0; j < s; j++)
            t[j] += t[j + s];
    return t[0];
}

/* complex products, in order: (a + bi)(c + di) = (ac - bd) + (ad + bc)i */
#define CPROD(NAME, T)                                                                            \
    static void NAME(const T *restrict x, int64_t n, int64_t step, T *restrict acc) {            \
        T re = 1, im = 0;                                                                        \
        for (int64_t i = 0; i < n; i++) {                                                        \
            T c = x[2 * i * step], d = x[2 * i * step + 1];                                      \
            T r = re * c - im * d;                                                               \
            im = re * d + im * c;                                                                \
            re = r;                                                                              \
        }                                                                                        \
        acc[0] = re;                                                                             \
        acc[1] = im;                                                                             \
    }
CPROD(cprod_f32, float)
CPROD(cprod_f64, double)

void CT_FN(ct_reduce_impl_block)(ct_redk op, ct_redt t, const void *src, int64_t n, void *acc) {
    if (op == CT_REDK_PROD && t == CT_REDT_C64) {
        cprod_f32(src, n, 1, acc);
        return;
    }
    if (op == CT_REDK_PROD && t == CT_REDT_C128) {
        cprod_f64(src, n, 1, acc);
        return;
    }
#define CASE(K, T, FN, TACC)                                                                      \
    if (op == K && t == T) {                                                                     \
        TACC r = FN(src, n);                                                                     \
        memcpy(acc, &r, sizeof r);                                                               \
        return;                                                                                  \
    }
    CASE(CT_REDK_SUM, CT_REDT_F32, sum_f32, float)
    CASE(CT_REDK_SUM, CT_REDT_F32D, sum_f32d, double)
    CASE(CT_REDK_SUM, CT_REDT_F64, sum_f64, double)
    CASE(CT_REDK_SUM, CT_REDT_I64, sum_i64, int64_t)
    CASE(CT_REDK_SUM, CT_REDT_I32, sum_i32, int64_t)
    CASE(CT_REDK_PROD, CT_REDT_F32, prod_f32, float)
    CASE(CT_REDK_PROD, CT_REDT_F64, prod_f64, double)
    CASE(CT_REDK_PROD, CT_REDT_I64, prod_i64, int64_t)
    CASE(CT_REDK_PROD, CT_REDT_I32, prod_i32, int64_t)
    CASE(CT_REDK_MAX, CT_REDT_F32, max_f32, float)
    CASE(CT_REDK_MAX, CT_REDT_F64, max_f64, double)
    CASE(CT_REDK_MAX, CT_REDT_I64, max_i64, int64_t)
    CASE(CT_REDK_MIN, CT_REDT_F32, min_f32, float)
    CASE(CT_REDK_MIN, CT_REDT_F64, min_f64, double)
    CASE(CT_REDK_MIN, CT_REDT_I64, min_i64, int64_t)
    CASE(CT_REDK_ALL, CT_REDT_U8, all_u8, uint8_t)
    CASE(CT_REDK_ANY, CT_REDT_U8, any_u8, uint8_t)
#undef CASE
}

/* ---- outer reductions: rows added element-wise ------------------------------------------ */

/* Float sums: leaves of CT_REDUCE_LEAF rows added plainly, leaves combined by a binary
 * counter (level k holds the sum of 2^k leaves), as a pairwise tree over the rows. */
#define SUM_ROWS(NAME, T)                                                                         \
    static void NAME(const T *restrict src, int64_t R, int64_t rs, int64_t w, T *restrict out) { \
        enum { LEVELS = 32 };                                                                    \
        T lvl[LEVELS][CT_REDUCE_TILE];                                                           \
        T leaf[CT_REDUCE_TILE];                                                                  \
        uint64_t count = 0;                                                                      \
        int top = 0; /* levels in use: 0 .. top-1 */                                             \
        for (int64_t r0 = 0; r0 < R; r0 += CT_REDUCE_LEAF) {                                     \
            int64_t r1 = r0 + CT_REDUCE_LEAF < R ? r0 + CT_REDUCE_LEAF : R;                      \
            const T *row = src + r0 * rs;                                                        \
            for (int64_t i = 0; i < w; i++)                                                      \
                leaf[i] = row[i];                                                                \
            for (int64_t r = r0 + 1; r < r1; r++) {                                              \
                row = src + r * rs;                                                              \
                for (int64_t i = 0; i < w; i++)                                                  \
                    leaf[i] += row[i];                                                           \
            }                                                                                    \
            int k = 0;                                                                           \
            while (k < LEVELS - 1 && ((count >> k) & 1u)) {                                      \
                for (int64_t i = 0; i < w; i++)                                                  \
                    leaf[i] = lvl[k][i] + leaf[i];                                               \
                k++;                                                                             \
            }                                                                                    \
            if (k == LEVELS - 1 && ((count >> k) & 1u)) {                                        \
                for (int64_t i = 0; i < w; i++)                                                  \
                    lvl[k][i] += leaf[i];                                                        \
            } else {                                                                             \
                memcpy(lvl[k], leaf, (size_t)w * sizeof(T));                                     \
            }                                                                                    \
            count++;                                                                             \
            if (k + 1 > top)                                                                     \
                top = k + 1;                                                                     \
        }                                                                                        \
        int first = 1;                                                                           \
        for (int k = 0; k < top; k++) {                                                          \
            if (!((count >> k) & 1u) && !(k == LEVELS - 1 && count >> k))                        \
                continue;                                                                        \
            if (first) {                                                                         \
                memcpy(out, lvl[k], (size_t)w * sizeof(T));                                      \
                first = 0;                                                                       \
            } else {                                                                             \
                for (int64_t i = 0; i < w; i++)                                                  \
                    out[i] = lvl[k][i] + out[i];                                                 \
            }                                                                                    \
        }                                                                                        \
        if (first)                                                                               \
            for (int64_t i = 0; i < w; i++)                                                      \
                out[i] = 0;                                                                      \
    }
SUM_ROWS(sum_rows_f32, float)
SUM_ROWS(sum_rows_f64, double)

#define FOLD_ROWS(NAME, TIN, TACC, INIT, OP)                                                      \
    static void NAME(const TIN *restrict src, int64_t R, int64_t rs, int64_t w,                  \
                     TACC *restrict out) {                                                       \
        for (int64_t i = 0; i < w; i++)                                                          \
            out[i] = (INIT);                                                                     \
        for (int64_t r = 0; r < R; r++) {                                                        \
            const TIN *row = src + r * rs;                                                       \
            for (int64_t i = 0; i < w; i++)                                                      \
                out[i] = OP(out[i], row[i]);                                                     \
        }                                                                                        \
    }
FOLD_ROWS(prod_rows_f32, float, float, 1.0f, MUL_OP)
FOLD_ROWS(prod_rows_f64, double, double, 1.0, MUL_OP)
FOLD_ROWS(max_rows_f32, float, float, -INFINITY, MAX_OP)
FOLD_ROWS(max_rows_f64, double, double, -INFINITY, MAX_OP)
FOLD_ROWS(min_rows_f32, float, float, INFINITY, MIN_OP)
FOLD_ROWS(min_rows_f64, double, double, INFINITY, MIN_OP)
FOLD_ROWS(sum_rows_i64, int64_t, int64_t, 0, IADD_OP)
FOLD_ROWS(prod_rows_i64, int64_t, int64_t, 1, IMUL_OP)
FOLD_ROWS(max_rows_i64, int64_t, int64_t, INT64_MIN, MAX_OP)
FOLD_ROWS(min_rows_i64, int64_t, int64_t, INT64_MAX, MIN_OP)
FOLD_ROWS(sum_rows_i32, int32_t, int64_t, 0, IADD_OP)
FOLD_ROWS(sum_rows_f32d, float, double, 0.0, ADD_OP)
FOLD_ROWS(prod_rows_i32, int32_t, int64_t, 1, IMUL_OP)
FOLD_ROWS(all_rows_u8, uint8_t, uint8_t, 1, AND_OP)
FOLD_ROWS(any_rows_u8, uint8_t, uint8_t, 0, OR_OP)

void CT_FN(ct_reduce_impl_rows)(ct_redk op, ct_redt t, const void *src, int64_t R,
                                int64_t row_stride, int64_t w, void *out) {
    if (op == CT_REDK_PROD && (t == CT_REDT_C64 || t == CT_REDT_C128)) {
        for (int64_t i = 0; i < w; i++) {
            if (t == CT_REDT_C64)
                cprod_f32((const float *)src + 2 * i, R, row_stride, (float *)out + 2 * i);
            else
                cprod_f64((const double *)src + 2 * i, R, row_stride, (double *)out + 2 * i);
        }
        return;
    }
#define CASE(K, T, FN)                                                                            \
    if (op == K && t == T) {                                                                     \
        FN(src, R, row_stride, w, out);                                                          \
        return;                                                                                  \
    }
    CASE(CT_REDK_SUM, CT_REDT_F32, sum_rows_f32)
    CASE(CT_REDK_SUM, CT_REDT_F64, sum_rows_f64)
    CASE(CT_REDK_SUM, CT_REDT_I64, sum_rows_i64)
    CASE(CT_REDK_SUM, CT_REDT_I32, sum_rows_i32)
    CASE(CT_REDK_SUM, CT_REDT_F32D, sum_rows_f32d)
    CASE(CT_REDK_PROD, CT_REDT_F32, prod_rows_f32)
    CASE(CT_REDK_PROD, CT_REDT_F64, prod_rows_f64)
    CASE(CT_REDK_PROD, CT_REDT_I64, prod_rows_i64)
    CASE(CT_REDK_PROD, CT_REDT_I32, prod_rows_i32)
    CASE(CT_REDK_MAX, CT_REDT_F32, max_rows_f32)
    CASE(CT_REDK_MAX, CT_REDT_F64, max_rows_f64)
    CASE(CT_REDK_MAX, CT_REDT_I64, max_rows_i64)
    CASE(CT_REDK_MIN, CT_REDT_F32, min_rows_f32)
    CASE(CT_REDK_MIN, CT_REDT_F64, min_rows_f64)
    CASE(CT_REDK_MIN, CT_REDT_I64, min_rows_i64)
    CASE(CT_REDK_ALL, CT_REDT_U8, all_rows_u8)
    CASE(CT_REDK_ANY, CT_REDT_U8, any_rows_u8)
#undef CASE
}
