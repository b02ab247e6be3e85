/* The chunk loops of the statistical reductions, compiled once per ISA level (CMake's
 * CT_ISA_SOURCES, like reduce_loops.c): Note [Statistical reductions] (reduce_stats.h).
 * Each loop keeps 32 double lanes (256 bytes of accumulators, whatever the vector width: lane
 * j holds the elements i with i % 32 == j) and folds them pairwise, so the sums are the same
 * bits at every level; exp (logsumexp) is SLEEF's vector exp at the AVX2 and AVX-512 levels
 * and the C library's at the baseline, within an ulp of each other. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/reduce_stats.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#include <sleef.h>
#endif

#ifndef CT_ISA_SUFFIX
#error "reduce_stats_loops.c is built by CMake with -DCT_ISA_SUFFIX=_<level>"
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
#define LANES 32
#define VL (CT_VBYTES / 8)
#define NV (LANES / VL)

typedef double vd __attribute__((vector_size(CT_VBYTES)));
typedef int64_t vl __attribute__((vector_size(CT_VBYTES)));
typedef float vfh __attribute__((vector_size(CT_VBYTES / 2)));

/* VL elements from i on, as doubles */
static inline vd load(const void *x, bool f64, int64_t i) {
    vd v;
    if (f64) {
        memcpy(&v, (const double *)x + i, sizeof v);
        return v;
    }
#if defined(__AVX512F__)
    return (vd)_mm512_cvtps_pd(_mm256_loadu_ps((const float *)x + i));
#elif defined(__AVX2__)
    return (vd)_mm256_cvtps_pd(_mm_loadu_ps((const float *)x + i));
#else
    vfh h;
    memcpy(&h, (const float *)x + i, sizeof h);
    return __builtin_convertvector(h, vd);
#endif
}

static inline double elem(const void *x, bool f64, int64_t i) {
    return f64 ? ((const double *)x)[i] : (double)((const float *)x)[i];
}

static inline vd vexp(vd v) {
#if defined(__AVX512F__)
    return (vd)Sleef_expd8_u10avx512f((__m512d)v);
#elif defined(__AVX2__)
    return (vd)Sleef_expd4_u10avx2((__m256d)v);
#else
    for (int k = 0; k < VL; k++)
        v[k] = exp(v[k]);
    return v;
#endif
}

#define SPLAT(s) ((vd){0} + (s))
#define VAND(a, m) ((vd)((vl)(a) & (vl)(m)))
#define VSEL(m, x, y) ((vd)(((vl)(x) & (m)) | ((vl)(y) & ~(m))))
static inline double max_nan(double a, double v) { return (v > a || v != v) ? v : a; }
static inline double min_nan(double a, double v) { return (v < a || v != v) ? v : a; }

/* One chunk: NV vector accumulators stepped by VSTEP, the tail into the lanes by SSTEP, the
 * lanes folded pairwise by FOLD. */
#define CHUNK(NAME, INIT, VSTEP, SSTEP, FOLD)                                                      \
    static double NAME(const void *x, bool f64, int64_t n, double c, double p) {                   \
        (void)c;                                                                                   \
        (void)p;                                                                                   \
        const vd vc = SPLAT(c), one = SPLAT(1.0);                                                  \
        const vl absmask = (vl){0} + INT64_MAX;                                                    \
        (void)vc;                                                                                  \
        (void)one;                                                                                 \
        (void)absmask;                                                                             \
        vd a[NV];                                                                                  \
        for (int u = 0; u < NV; u++)                                                               \
            a[u] = SPLAT(INIT);                                                                    \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int u = 0; u < NV; u++) {                                                         \
                vd v = load(x, f64, i + u * VL);                                                   \
                a[u] = VSTEP;                                                                      \
            }                                                                                      \
        double t[LANES];                                                                           \
        memcpy(t, a, sizeof t);                                                                    \
        for (int j = 0; i + j < n; j++) {                                                          \
            double v = elem(x, f64, i + j);                                                        \
            t[j] = SSTEP;                                                                          \
        }                                                                                          \
        for (int s = LANES / 2; s >= 1; s /= 2)                                                    \
            for (int j = 0; j < s; j++)                                                            \
                t[j] = FOLD(t[j], t[j + s]);                                                       \
        return t[0];                                                                               \
    }
#define ADD(a, b) ((a) + (b))

CHUNK(c_sum, 0.0, a[u] + v, t[j] + v, ADD)
CHUNK(c_nansum, 0.0, a[u] + VAND(v, v == v), t[j] + (v == v ? v : 0.0), ADD)
CHUNK(c_nancount, 0.0, a[u] + VAND(one, v == v), t[j] + (v == v ? 1.0 : 0.0), ADD)
CHUNK(c_dev2, 0.0, a[u] + (v - vc) * (v - vc), t[j] + (v - c) * (v - c), ADD)
CHUNK(c_dev, 0.0, a[u] + (v - vc), t[j] + (v - c), ADD)
CHUNK(c_sq, 0.0, a[u] + v * v, t[j] + v * v, ADD)
CHUNK(c_sqscaled, 0.0, a[u] + (v / vc) * (v / vc), t[j] + (v / c) * (v / c), ADD)
CHUNK(c_abs, 0.0, a[u] + VAND(v, absmask), t[j] + fabs(v), ADD)
CHUNK(c_nonzero, 0.0, a[u] + VAND(one, v != 0.0), t[j] + (v != 0.0 ? 1.0 : 0.0), ADD)
CHUNK(c_expsum, 0.0, a[u] + vexp(v - vc), t[j] + exp(v - c), ADD)
CHUNK(c_absmax, 0.0, VSEL((VAND(v, absmask) > a[u]) | (v != v), VAND(v, absmask), a[u]),
      max_nan(t[j], fabs(v)), max_nan)
CHUNK(c_absmin, INFINITY, VSEL((VAND(v, absmask) < a[u]) | (v != v), VAND(v, absmask), a[u]),
      min_nan(t[j], fabs(v)), min_nan)
CHUNK(c_max, -INFINITY, VSEL((v > a[u]) | (v != v), v, a[u]), max_nan(t[j], v), max_nan)

/* |x|^p for any p: the C library's pow, element by element (no vector pow needed here) */
static double c_abspow(const void *x, bool f64, int64_t n, double c, double p) {
    (void)c;
    double t[LANES] = {0};
    for (int64_t i = 0; i < n; i++)
        t[i % LANES] += pow(fabs(elem(x, f64, i)), p);
    for (int s = LANES / 2; s >= 1; s /= 2)
        for (int j = 0; j < s; j++)
            t[j] += t[j + s];
    return t[0];
}

double CT_FN(ct_reduce_impl_chunk)(ct_rchunk f, bool f64, const void *x, int64_t n, double c,
                                   double p) {
    switch (f) {
    case CT_RCHUNK_SUM:
        return c_sum(x, f64, n, c, p);
    case CT_RCHUNK_NANSUM:
        return c_nansum(x, f64, n, c, p);
    case CT_RCHUNK_NANCOUNT:
        return c_nancount(x, f64, n, c, p);
    case CT_RCHUNK_DEV2:
        return c_dev2(x, f64, n, c, p);
    case CT_RCHUNK_DEV:
        return c_dev(x, f64, n, c, p);
    case CT_RCHUNK_SQ:
        return c_sq(x, f64, n, c, p);
    case CT_RCHUNK_SQSCALED:
        return c_sqscaled(x, f64, n, c, p);
    case CT_RCHUNK_ABS:
        return c_abs(x, f64, n, c, p);
    case CT_RCHUNK_ABSPOW:
        return c_abspow(x, f64, n, c, p);
    case CT_RCHUNK_NONZERO:
        return c_nonzero(x, f64, n, c, p);
    case CT_RCHUNK_EXPSUM:
        return c_expsum(x, f64, n, c, p);
    case CT_RCHUNK_ABSMAX:
        return c_absmax(x, f64, n, c, p);
    case CT_RCHUNK_ABSMIN:
        return c_absmin(x, f64, n, c, p);
    default:
        return c_max(x, f64, n, c, p);
    }
}
