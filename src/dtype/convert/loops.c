/* The array conversion loops: one function per (dst, src) dtype pair, stamped from the two
 * row lists below, plus hand-written kernels for the hot pairs where intrinsics pay off.
 *
 * This file is compiled once per instruction-set level (CMakeLists.txt, CT_ISA_SOURCES)
 * with CT_ISA_SUFFIX = _baseline, _avx2 or _avx512 and the matching -march; each copy
 * defines its own table (loops_impl.h) and convert.c picks one at run time. The element
 * rules are those of convert.h; every level must produce the same bytes as the reference
 * in convert.c, which test_convert checks pair by pair. */
#include <stdint.h>
#include <string.h>

#include "ctensor/convert.h"
#include "dtype/convert/codec_impl.h"
#include "dtype/convert/loops_impl.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define CT_LOOPS_AVX2 1
#endif
#if defined(CT_LOOPS_AVX2) && defined(__AVX512F__) && defined(__AVX512BW__)
#define CT_LOOPS_AVX512 1
#endif

#ifndef CT_ISA_SUFFIX
#error "loops.c is built by CMake with -DCT_ISA_SUFFIX=_<level>"
#endif

CT_CVT_INLINE ct_complex64 c32_to_c64(ct_complex32 c) {
    ct_complex64 r = {ct_cvt_f16_to_f32(c.re), ct_cvt_f16_to_f32(c.im)};
    return r;
}

/* ---- how each dtype loads ----------------------------------------------------------------
 * A source element becomes a value of one of six kinds: I (an integer of its own C type;
 * bool as 0/1), F (float: float32 and everything narrower, decoded), D (double),
 * CF / CD (complex64 / complex128), CH (complex32 as stored: its real part must reach
 * float16 bit for bit).
 *   X(ENUM, C type, kind, load) */
#define CT_SRC_ROWS(X, ...)                                                                        \
    X(BOOL, uint8_t, I, LD_BOOL, __VA_ARGS__)                                                      \
    X(UINT8, uint8_t, I, LD_SAME, __VA_ARGS__)                                                     \
    X(INT8, int8_t, I, LD_SAME, __VA_ARGS__)                                                       \
    X(UINT16, uint16_t, I, LD_SAME, __VA_ARGS__)                                                   \
    X(INT16, int16_t, I, LD_SAME, __VA_ARGS__)                                                     \
    X(UINT32, uint32_t, I, LD_SAME, __VA_ARGS__)                                                   \
    X(INT32, int32_t, I, LD_SAME, __VA_ARGS__)                                                     \
    X(UINT64, uint64_t, I, LD_SAME, __VA_ARGS__)                                                   \
    X(INT64, int64_t, I, LD_SAME, __VA_ARGS__)                                                     \
    X(FLOAT16, uint16_t, F, ct_cvt_f16_to_f32, __VA_ARGS__)                                        \
    X(BFLOAT16, uint16_t, F, ct_cvt_bf16_to_f32, __VA_ARGS__)                                      \
    X(FLOAT32, float, F, LD_SAME, __VA_ARGS__)                                                     \
    X(FLOAT64, double, D, LD_SAME, __VA_ARGS__)                                                    \
    X(COMPLEX32, ct_complex32, CH, LD_SAME, __VA_ARGS__)                                           \
    X(COMPLEX64, ct_complex64, CF, LD_SAME, __VA_ARGS__)                                           \
    X(COMPLEX128, ct_complex128, CD, LD_SAME, __VA_ARGS__)                                         \
    X(FLOAT8_E4M3FN, uint8_t, F, ct_cvt_e4m3fn_to_f32, __VA_ARGS__)                                \
    X(FLOAT8_E5M2, uint8_t, F, ct_cvt_e5m2_to_f32, __VA_ARGS__)                                    \
    X(FLOAT8_E4M3FNUZ, uint8_t, F, ct_cvt_e4m3fnuz_to_f32, __VA_ARGS__)                            \
    X(FLOAT8_E5M2FNUZ, uint8_t, F, ct_cvt_e5m2fnuz_to_f32, __VA_ARGS__)                            \
    X(FLOAT8_E8M0FNU, uint8_t, F, ct_cvt_e8m0_to_f32, __VA_ARGS__)

#define LD_SAME(x) (x)
#define LD_BOOL(x) ((uint8_t)((x) != 0)) /* any nonzero byte is true */

/* ---- how each dtype stores -----------------------------------------------------------------
 *   Y(ENUM, C type, class, argument of the class) */
#define CT_DST_ROWS(Y)                                                                             \
    Y(BOOL, uint8_t, BOOL, _)                                                                      \
    Y(UINT8, uint8_t, INT, u8)                                                                     \
    Y(INT8, int8_t, INT, i8)                                                                       \
    Y(UINT16, uint16_t, INT, u16)                                                                  \
    Y(INT16, int16_t, INT, i16)                                                                    \
    Y(UINT32, uint32_t, INT, u32)                                                                  \
    Y(INT32, int32_t, INT, i32)                                                                    \
    Y(UINT64, uint64_t, INT, u64)                                                                  \
    Y(INT64, int64_t, INT, i64)                                                                    \
    Y(FLOAT16, uint16_t, F16, f16)                                                                 \
    Y(BFLOAT16, uint16_t, NARROW, bf16)                                                            \
    Y(FLOAT32, float, F32, _)                                                                      \
    Y(FLOAT64, double, F64, _)                                                                     \
    Y(COMPLEX32, ct_complex32, C32, _)                                                             \
    Y(COMPLEX64, ct_complex64, C64, _)                                                             \
    Y(COMPLEX128, ct_complex128, C128, _)                                                          \
    Y(FLOAT8_E4M3FN, uint8_t, NARROW, e4m3fn)                                                      \
    Y(FLOAT8_E5M2, uint8_t, NARROW, e5m2)                                                          \
    Y(FLOAT8_E4M3FNUZ, uint8_t, NARROW, e4m3fnuz)                                                  \
    Y(FLOAT8_E5M2FNUZ, uint8_t, NARROW, e5m2fnuz)                                                  \
    Y(FLOAT8_E8M0FNU, uint8_t, NARROW, e8m0)

/* ST_<class>_<kind>(T, a, v): the element of C type T for value v. */
#define ST_BOOL_I(T, a, v) ((T)((v) != 0))
#define ST_BOOL_F(T, a, v) ((T)((v) != 0.0f)) /* NaN is true, -0.0 false */
#define ST_BOOL_D(T, a, v) ((T)((v) != 0.0))
#define ST_BOOL_CF(T, a, v) ((T)((v).re != 0.0f || (v).im != 0.0f)) /* newest PyTorch */
#define ST_BOOL_CD(T, a, v) ((T)((v).re != 0.0 || (v).im != 0.0))
#define ST_BOOL_CH(T, a, v) ST_BOOL_CF(T, a, c32_to_c64(v))

#define ST_INT_I(T, a, v) ((T)(v)) /* low bits (modular in gcc/clang) */
#define ST_INT_F(T, a, v) ((T)ct_cvt_f32_to_##a(v))
#define ST_INT_D(T, a, v) ((T)ct_cvt_f64_to_##a(v))
#define ST_INT_CF(T, a, v) ST_INT_F(T, a, (v).re)
#define ST_INT_CD(T, a, v) ST_INT_D(T, a, (v).re)
#define ST_INT_CH(T, a, v) ST_INT_F(T, a, ct_cvt_f16_to_f32((v).re))

#define ST_F32_I(T, a, v) ((float)(v))
#define ST_F32_F(T, a, v) (v)
#define ST_F32_D(T, a, v) ((float)(v))
#define ST_F32_CF(T, a, v) ((v).re)
#define ST_F32_CD(T, a, v) ((float)(v).re)
#define ST_F32_CH(T, a, v) ct_cvt_f16_to_f32((v).re)

#define ST_F64_I(T, a, v) ((double)(v))
#define ST_F64_F(T, a, v) ((double)(v))
#define ST_F64_D(T, a, v) (v)
#define ST_F64_CF(T, a, v) ((double)(v).re)
#define ST_F64_CD(T, a, v) ((v).re)
#define ST_F64_CH(T, a, v) ((double)ct_cvt_f16_to_f32((v).re))

/* narrow floats: always from float32, so integers and doubles round twice, as in PyTorch */
#define ST_NARROW_I(T, a, v) ct_cvt_f32_to_##a((float)(v))
#define ST_NARROW_F(T, a, v) ct_cvt_f32_to_##a(v)
#define ST_NARROW_D(T, a, v) ct_cvt_f32_to_##a((float)(v))
#define ST_NARROW_CF(T, a, v) ct_cvt_f32_to_##a((v).re)
#define ST_NARROW_CD(T, a, v) ct_cvt_f32_to_##a((float)(v).re)
#define ST_NARROW_CH(T, a, v) ct_cvt_f32_to_##a(ct_cvt_f16_to_f32((v).re))

#define ST_F16_I ST_NARROW_I
#define ST_F16_F ST_NARROW_F
#define ST_F16_D ST_NARROW_D
#define ST_F16_CF ST_NARROW_CF
#define ST_F16_CD ST_NARROW_CD
#define ST_F16_CH(T, a, v) ((v).re) /* the stored real part, payload and all */

#define CT_C32(re, im) ((ct_complex32){ct_cvt_f32_to_f16(re), ct_cvt_f32_to_f16(im)})
#define ST_C32_I(T, a, v) CT_C32((float)(v), 0.0f)
#define ST_C32_F(T, a, v) CT_C32((v), 0.0f)
#define ST_C32_D(T, a, v) CT_C32((float)(v), 0.0f)
#define ST_C32_CF(T, a, v) CT_C32((v).re, (v).im)
#define ST_C32_CD(T, a, v) CT_C32((float)(v).re, (float)(v).im)
#define ST_C32_CH(T, a, v) (v)

#define ST_C64_I(T, a, v) ((ct_complex64){(float)(v), 0.0f})
#define ST_C64_F(T, a, v) ((ct_complex64){(v), 0.0f})
#define ST_C64_D(T, a, v) ((ct_complex64){(float)(v), 0.0f})
#define ST_C64_CF(T, a, v) (v)
#define ST_C64_CD(T, a, v) ((ct_complex64){(float)(v).re, (float)(v).im})
#define ST_C64_CH(T, a, v) c32_to_c64(v)

#define ST_C128_I(T, a, v) ((ct_complex128){(double)(v), 0.0})
#define ST_C128_F(T, a, v) ((ct_complex128){(double)(v), 0.0})
#define ST_C128_D(T, a, v) ((ct_complex128){(v), 0.0})
#define ST_C128_CF(T, a, v) ((ct_complex128){(double)(v).re, (double)(v).im})
#define ST_C128_CD(T, a, v) (v)
#define ST_C128_CH(T, a, v) ST_C128_CF(T, a, c32_to_c64(v))

/* The case the typed loops take: unit strides and aligned pointers (a typed access through
 * a misaligned pointer would be undefined). */
#define CT_DENSE(DT, ST)                                                                           \
    (ds == (ptrdiff_t)sizeof(DT) && ss == (ptrdiff_t)sizeof(ST) &&                                 \
     (uintptr_t)dst % _Alignof(DT) == 0 && (uintptr_t)src % _Alignof(ST) == 0)

/* ---- the stamped pair loops --------------------------------------------------------------
 * The dense path is a plain indexed loop the compiler vectorizes (no restrict: dst may
 * equal src). Anything else goes element by element through memcpy, which also covers
 * misaligned buffers. Marked unused because some pairs are stamped but never used (a fast
 * kernel or a byte copy replaces them in the table); clang warns even for `static inline`. */
#define CT_PAIR(S, ST, K, LD, D, DT, C, A)                                                         \
    __attribute__((unused)) static inline void cvt_##D##_##S(                                      \
        void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n) {                        \
        if (CT_DENSE(DT, ST)) {                                                                    \
            DT *d = dst;                                                                           \
            const ST *s = src;                                                                     \
            for (size_t i = 0; i < n; i++)                                                         \
                d[i] = ST_##C##_##K(DT, A, LD(s[i]));                                              \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            ST x;                                                                                  \
            memcpy(&x, (const char *)src + (ptrdiff_t)i * ss, sizeof x);                           \
            DT y = ST_##C##_##K(DT, A, LD(x));                                                     \
            memcpy((char *)dst + (ptrdiff_t)i * ds, &y, sizeof y);                                 \
        }                                                                                          \
    }
#define CT_STAMP_DST(D, DT, C, A) CT_SRC_ROWS(CT_PAIR, D, DT, C, A)
CT_DST_ROWS(CT_STAMP_DST)

/* ---- same dtype: the bytes unchanged, as PyTorch's copy_ (bool excepted: normalised) --- */
#define CT_COPY(size)                                                                              \
    static void copy_##size(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n) {    \
        if (ds == size && ss == size) {                                                            \
            if (dst != src)                                                                        \
                memmove(dst, src, n *size);                                                        \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            memmove((char *)dst + (ptrdiff_t)i * ds, (const char *)src + (ptrdiff_t)i * ss, size); \
    }
CT_COPY(1)
CT_COPY(2)
CT_COPY(4)
CT_COPY(8)
CT_COPY(16)

#define CT_FAST_UINT8_UINT8 ~, copy_1
#define CT_FAST_INT8_INT8 ~, copy_1
#define CT_FAST_UINT16_UINT16 ~, copy_2
#define CT_FAST_INT16_INT16 ~, copy_2
#define CT_FAST_UINT32_UINT32 ~, copy_4
#define CT_FAST_INT32_INT32 ~, copy_4
#define CT_FAST_UINT64_UINT64 ~, copy_8
#define CT_FAST_INT64_INT64 ~, copy_8
#define CT_FAST_FLOAT16_FLOAT16 ~, copy_2
#define CT_FAST_BFLOAT16_BFLOAT16 ~, copy_2
#define CT_FAST_FLOAT32_FLOAT32 ~, copy_4
#define CT_FAST_FLOAT64_FLOAT64 ~, copy_8
#define CT_FAST_COMPLEX32_COMPLEX32 ~, copy_4
#define CT_FAST_COMPLEX64_COMPLEX64 ~, copy_8
#define CT_FAST_COMPLEX128_COMPLEX128 ~, copy_16
#define CT_FAST_FLOAT8_E4M3FN_FLOAT8_E4M3FN ~, copy_1
#define CT_FAST_FLOAT8_E5M2_FLOAT8_E5M2 ~, copy_1
#define CT_FAST_FLOAT8_E4M3FNUZ_FLOAT8_E4M3FNUZ ~, copy_1
#define CT_FAST_FLOAT8_E5M2FNUZ_FLOAT8_E5M2FNUZ ~, copy_1
#define CT_FAST_FLOAT8_E8M0FNU_FLOAT8_E8M0FNU ~, copy_1

/* ---- hand-written kernels ------------------------------------------------------------------
 * Each takes the contiguous, aligned case and hands everything else to the stamped loop.
 * Tails use the same scalar codecs as the stamped loops. */
#if defined(CT_LOOPS_AVX2)

/* vcvtps2ph rounds like ct_cvt_f32_to_f16 but keeps NaN payload bits; PyTorch (and so
 * ctensor) writes the canonical 0x7E00 | sign, so clear them. Only NaN inputs give NaN. */
CT_CVT_INLINE __m128i f16_canonical_nan_128(__m128i h) {
    __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7FFF));
    __m128i nan = _mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7C00));
    return _mm_andnot_si128(_mm_and_si128(nan, _mm_set1_epi16(0x01FF)), h);
}

static void fast_f16_from_f32(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n) {
    if (!CT_DENSE(uint16_t, float)) {
        cvt_FLOAT16_FLOAT32(dst, ds, src, ss, n);
        return;
    }
    uint16_t *d = dst;
    const float *s = src;
    size_t i = 0;
#if defined(CT_LOOPS_AVX512)
    for (; i + 32 <= n; i += 32) {
        __m256i h0 = _mm512_cvtps_ph(_mm512_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT);
        __m256i h1 = _mm512_cvtps_ph(_mm512_loadu_ps(s + i + 16), _MM_FROUND_TO_NEAREST_INT);
        __m512i h = _mm512_inserti64x4(_mm512_castsi256_si512(h0), h1, 1);
        __mmask32 nan = _mm512_cmpgt_epu16_mask(_mm512_and_si512(h, _mm512_set1_epi16(0x7FFF)),
                                                _mm512_set1_epi16(0x7C00));
        h = _mm512_mask_blend_epi16(nan, h, _mm512_and_si512(h, _mm512_set1_epi16((short)0xFE00)));
        _mm512_storeu_si512((void *)(d + i), h);
    }
#endif
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((void *)(d + i), f16_canonical_nan_128(h));
    }
    for (; i < n; i++)
        d[i] = ct_cvt_f32_to_f16(s[i]);
}
#define CT_FAST_FLOAT16_FLOAT32 ~, fast_f16_from_f32

/* vcvtph2ps is exact and quietens NaNs exactly as ct_cvt_f16_to_f32 does. */
static void fast_f32_from_f16(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n) {
    if (!CT_DENSE(float, uint16_t)) {
        cvt_FLOAT32_FLOAT16(dst, ds, src, ss, n);
        return;
    }
    float *d = dst;
    const uint16_t *s = src;
    size_t i = 0;
#if defined(CT_LOOPS_AVX512)
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(d + i, _mm512_cvtph_ps(_mm256_loadu_si256((const void *)(s + i))));
#endif
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const void *)(s + i))));
    for (; i < n; i++)
        d[i] = ct_cvt_f16_to_f32(s[i]);
}
#define CT_FAST_FLOAT32_FLOAT16 ~, fast_f32_from_f16

/* bfloat16: the integer round-to-nearest-even of ct_cvt_f32_to_bf16, 8 or 16 lanes at a
 * time; NaN lanes become 0xFFFF (Note [bfloat16 NaN]). AVX512-BF16's vcvtneps2bf16 is not
 * used: it flushes subnormal inputs to zero. */
CT_CVT_INLINE __m256i bf16_round_256(__m256 v) {
    __m256i b = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7FFF)), lsb);
    r = _mm256_srli_epi32(r, 16);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_or_si256(r, _mm256_srli_epi32(nan, 16));
}

static void fast_bf16_from_f32(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n) {
    if (!CT_DENSE(uint16_t, float)) {
        cvt_BFLOAT16_FLOAT32(dst, ds, src, ss, n);
        return;
    }
    uint16_t *d = dst;
    const float *s = src;
    size_t i = 0;
#if defined(CT_LOOPS_AVX512)
    /* the rounded bfloat16 is the high half of each 32-bit sum: one two-source word permute
     * picks the 32 high halves of two vectors (NaN lanes are all ones, so 0xFFFF) */
    const __m512i high =
        _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29, 27,
                         25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    for (; i + 32 <= n; i += 32) {
        __m512i r[2];
        for (int k = 0; k < 2; k++) {
            __m512 v = _mm512_loadu_ps(s + i + 16 * k);
            __m512i b = _mm512_castps_si512(v);
            __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
            r[k] = _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7FFF)), lsb);
            r[k] = _mm512_mask_mov_epi32(r[k], _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                                         _mm512_set1_epi32(-1));
        }
        _mm512_storeu_si512((void *)(d + i), _mm512_permutex2var_epi16(r[0], high, r[1]));
    }
#endif
    for (; i + 16 <= n; i += 16) {
        __m256i r0 = bf16_round_256(_mm256_loadu_ps(s + i));
        __m256i r1 = bf16_round_256(_mm256_loadu_ps(s + i + 8));
        /* values are <= 0xFFFF, so the unsigned-saturating pack is exact; it interleaves
         * 128-bit lanes, which the permute puts back in order */
        __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(r0, r1), 0xD8);
        _mm256_storeu_si256((void *)(d + i), p);
    }
    for (; i < n; i++)
        d[i] = ct_cvt_f32_to_bf16(s[i]);
}
#define CT_FAST_BFLOAT16_FLOAT32 ~, fast_bf16_from_f32

/* float8 (all but e8m0fnu): ct_cvt_f8_encode's steps, 8 or 16 lanes at a time, with the
 * format's row as literal arguments: subnormals through the FP add, normals by integer
 * rounding clamped at the overflow code (which covers overflow, inf and, unless the format
 * has its own NaN code, NaN), then the sign bit. These loops do enough work per cache line
 * that the hardware prefetcher falls behind on large arrays (measured: e4m3fn about 10 GB/s
 * without, 17 with), so they prefetch 4 KiB ahead themselves. */
#define F8_PREFETCH 1024 /* elements */
#define F8_ROUND(mbits, bias) ((1u << (22u - (mbits))) - 1u - ((127u - (bias)) << 23))
#define F8_KBITS(mbits, bias) ((151u - (bias) - (mbits)) << 23)
#define F8_MINNORM(bias) ((128u - (bias)) << 23)

CT_CVT_INLINE __m256i f8_code_256(__m256 v, unsigned mbits, unsigned bias, uint32_t over,
                                  uint32_t nan, int family) {
    __m256i f = _mm256_castps_si256(v);
    __m256i a = _mm256_and_si256(f, _mm256_set1_epi32(0x7FFFFFFF));
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(a, (int)(23 - mbits)), _mm256_set1_epi32(1));
    __m256i nrm = _mm256_add_epi32(a, _mm256_set1_epi32((int)F8_ROUND(mbits, bias)));
    nrm = _mm256_srli_epi32(_mm256_add_epi32(nrm, lsb), (int)(23 - mbits));
    nrm = _mm256_min_epu32(nrm, _mm256_set1_epi32((int)over));
    __m256 k = _mm256_castsi256_ps(_mm256_set1_epi32((int)F8_KBITS(mbits, bias)));
    __m256i sub = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), k)),
                                   _mm256_set1_epi32((int)F8_KBITS(mbits, bias)));
    __m256i small = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)F8_MINNORM(bias)), a);
    __m256i code = _mm256_blendv_epi8(nrm, sub, small);
    if (nan != over) {
        __m256i isnan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F800000));
        code = _mm256_blendv_epi8(code, _mm256_set1_epi32((int)nan), isnan);
    }
    __m256i sign = _mm256_srli_epi32(_mm256_xor_si256(f, a), 24);
    if (family == CT_F8_FNUZ) /* no negative zero */
        sign = _mm256_andnot_si256(_mm256_cmpeq_epi32(code, _mm256_setzero_si256()), sign);
    return _mm256_or_si256(code, sign);
}

#if defined(CT_LOOPS_AVX512)
CT_CVT_INLINE __m512i f8_code_512(__m512 v, unsigned mbits, unsigned bias, uint32_t over,
                                  uint32_t nan, int family) {
    __m512i f = _mm512_castps_si512(v);
    __m512i a = _mm512_and_si512(f, _mm512_set1_epi32(0x7FFFFFFF));
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(a, 23 - mbits), _mm512_set1_epi32(1));
    __m512i nrm = _mm512_add_epi32(a, _mm512_set1_epi32((int)F8_ROUND(mbits, bias)));
    nrm = _mm512_srli_epi32(_mm512_add_epi32(nrm, lsb), 23 - mbits);
    nrm = _mm512_min_epu32(nrm, _mm512_set1_epi32((int)over));
    __m512 k = _mm512_castsi512_ps(_mm512_set1_epi32((int)F8_KBITS(mbits, bias)));
    __m512i sub = _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), k)),
                                   _mm512_set1_epi32((int)F8_KBITS(mbits, bias)));
    __mmask16 small = _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32((int)F8_MINNORM(bias)));
    __m512i code = _mm512_mask_mov_epi32(nrm, small, sub);
    if (nan != over) {
        __mmask16 isnan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F800000));
        code = _mm512_mask_mov_epi32(code, isnan, _mm512_set1_epi32((int)nan));
    }
    __m512i sign = _mm512_srli_epi32(f, 24);
    if (family == CT_F8_FNUZ) /* no negative zero */
        return _mm512_mask_ternarylogic_epi32(code, _mm512_test_epi32_mask(code, code), sign,
                                              _mm512_set1_epi32(0x80), 0xF8);
    /* code | (sign & 0x80) in one ternary-logic op */
    return _mm512_ternarylogic_epi32(code, sign, _mm512_set1_epi32(0x80), 0xF8);
}
#endif

CT_CVT_INLINE void f8_encode_dense(uint8_t *d, const float *s, size_t n, unsigned mbits,
                                   unsigned bias, uint32_t over, uint32_t nan, int family) {
    size_t i = 0;
#if defined(CT_LOOPS_AVX512)
    /* 64 lanes, packed 32 -> 16 -> 8 bits (exact: codes are <= 0xFF) into one 64-byte
     * store; the packs interleave 128-bit lanes, the permute restores element order */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    for (; i + 64 <= n; i += 64) {
        if (i + F8_PREFETCH + 64 <= n) {
            for (int k = 0; k < 64; k += 16)
                _mm_prefetch((const char *)(s + i + F8_PREFETCH + k), _MM_HINT_T0);
        }
        __m512i c[4];
        for (int k = 0; k < 4; k++)
            c[k] = f8_code_512(_mm512_loadu_ps(s + i + 16 * k), mbits, bias, over, nan, family);
        __m512i b =
            _mm512_packus_epi16(_mm512_packus_epi32(c[0], c[1]), _mm512_packus_epi32(c[2], c[3]));
        _mm512_storeu_si512((void *)(d + i), _mm512_permutexvar_epi32(order, b));
    }
#endif
    for (; i + 32 <= n; i += 32) {
        if (i + F8_PREFETCH + 32 <= n) {
            _mm_prefetch((const char *)(s + i + F8_PREFETCH), _MM_HINT_T0);
            _mm_prefetch((const char *)(s + i + F8_PREFETCH + 16), _MM_HINT_T0);
        }
        __m256i c[4];
        for (int k = 0; k < 4; k++)
            c[k] = f8_code_256(_mm256_loadu_ps(s + i + 8 * k), mbits, bias, over, nan, family);
        /* as above, with 256-bit vectors */
        __m256i b =
            _mm256_packus_epi16(_mm256_packus_epi32(c[0], c[1]), _mm256_packus_epi32(c[2], c[3]));
        b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((void *)(d + i), b);
    }
    for (; i < n; i++)
        d[i] = ct_cvt_f8_encode(s[i], mbits, bias, over, nan, family);
}

/* One kernel per format; the arguments are the rows of codec_impl.h. */
#define CT_F8_KERNEL(D, mbits, bias, over, nan, family)                                            \
    static void fast_##D##_from_f32(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss,        \
                                    size_t n) {                                                    \
        if (!CT_DENSE(uint8_t, float)) {                                                           \
            cvt_##D##_FLOAT32(dst, ds, src, ss, n);                                                \
            return;                                                                                \
        }                                                                                          \
        f8_encode_dense(dst, src, n, mbits, bias, over, nan, family);                              \
    }
CT_F8_KERNEL(FLOAT8_E4M3FN, 3u, 7u, 0x7Fu, 0x7Fu, CT_F8_FN)
CT_F8_KERNEL(FLOAT8_E5M2, 2u, 15u, 0x7Cu, 0x7Fu, CT_F8_IEEE)
CT_F8_KERNEL(FLOAT8_E4M3FNUZ, 3u, 8u, 0x80u, 0x80u, CT_F8_FNUZ)
CT_F8_KERNEL(FLOAT8_E5M2FNUZ, 2u, 16u, 0x80u, 0x80u, CT_F8_FNUZ)
#define CT_FAST_FLOAT8_E4M3FN_FLOAT32 ~, fast_FLOAT8_E4M3FN_from_f32
#define CT_FAST_FLOAT8_E5M2_FLOAT32 ~, fast_FLOAT8_E5M2_from_f32
#define CT_FAST_FLOAT8_E4M3FNUZ_FLOAT32 ~, fast_FLOAT8_E4M3FNUZ_from_f32
#define CT_FAST_FLOAT8_E5M2FNUZ_FLOAT32 ~, fast_FLOAT8_E5M2FNUZ_from_f32

#endif /* CT_LOOPS_AVX2 */

/* ---- the table ------------------------------------------------------------------------------
 * CT_PICK(CT_FAST_<dst>_<src>, default) is the fast kernel when one is #defined above (as
 * "~, name"), the stamped loop otherwise. */
#define CT_SECOND(a, b, ...) b
#define CT_PICK_(...) CT_SECOND(__VA_ARGS__)
#define CT_PICK(probe, fallback) CT_PICK_(probe, fallback, ~)

#define CT_ENTRY(S, ST, K, LD, D, DT, C, A)                                                        \
    [CT_##D][CT_##S] = CT_PICK(CT_FAST_##D##_##S, cvt_##D##_##S),
#define CT_TABLE_DST(D, DT, C, A) CT_SRC_ROWS(CT_ENTRY, D, DT, C, A)

const ct_convert_loop_table CT_CAT(ct_convert_loops, CT_ISA_SUFFIX) = {
    /* clang-format off */
    CT_DST_ROWS(CT_TABLE_DST)
    [CT_FLOAT4_E2M1FN_X2][CT_FLOAT4_E2M1FN_X2] = copy_1,
    /* clang-format on */
};

/* ---- streaming forms (loops_impl.h, Note [Streamed copy rows] in tensor/copy_loop.c) ------
 * A large dense copy's row without the L1 buffer copy_loop.c otherwise converts into: the
 * conversion's vectors go straight to memory with streaming stores. int32 -> float32,
 * 10^7 elements, one thread, on the 2-vCPU AMD EPYC (Zen 4) VM: 2.8 ms through the buffer,
 * 2.2 ms fused. 256-bit vectors at the AVX-512 level too: no faster with 512 on Zen 4.
 * vcvtdq2ps rounds to nearest even as the C conversion of the stamped loop does. */
#if defined(CT_LOOPS_AVX2)
static void stream_f32_from_i32(void *dst, const void *src, size_t n) {
    float *d = dst;
    const int32_t *s = src;
    size_t i = 0;
    for (; i < n && ((uintptr_t)(d + i) & 31) != 0; i++) /* to a 32-byte boundary */
        d[i] = (float)s[i];
    for (; i + 32 <= n; i += 32)
        for (int u = 0; u < 4; u++)
            _mm256_stream_ps(d + i + 8 * u,
                             _mm256_cvtepi32_ps(_mm256_loadu_si256((const void *)(s + i + 8 * u))));
    for (; i + 8 <= n; i += 8)
        _mm256_stream_ps(d + i, _mm256_cvtepi32_ps(_mm256_loadu_si256((const void *)(s + i))));
    _mm_sfence(); /* order the streaming stores before whatever follows */
    for (; i < n; i++)
        d[i] = (float)s[i];
}
const ct_convert_stream_table CT_CAT(ct_convert_stream, CT_ISA_SUFFIX) = {
    [CT_FLOAT32][CT_INT32] = stream_f32_from_i32,
};
#else
const ct_convert_stream_table CT_CAT(ct_convert_stream, CT_ISA_SUFFIX) = {{NULL}};
#endif
