/* The unary math loops of one ISA level (compiled per level: CMakeLists.txt CT_ISA_SOURCES,
 * CT_ISA_SUFFIX). Every loop is stamped from unary_elem.h; on the AVX2 and AVX-512 levels
 * the float32 transcendental functions are SLEEF's 1.0-ulp vector functions (the library
 * PyTorch uses), with the scalar libm function for the tail. float32 sigmoid and erfc go
 * through SLEEF's float64 functions and round once (see unary_elem.h). */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#include <sleef.h>
#endif

#include "dtype/convert/codec_impl.h"
#include "kernels/unary.h"
#include "kernels/unary_elem.h"

#define LOOP(OPN, S, TI, TO)                                                                       \
    static void loop_##OPN##_##S(void *o, const void *i, int64_t n) {                             \
        TO *y = o;                                                                                 \
        const TI *x = i;                                                                           \
        for (int64_t k = 0; k < n; k++)                                                            \
            y[k] = ct_un_##OPN##_##S(x[k]);                                                        \
    }

/* bool */
LOOP(sign, b8, uint8_t, uint8_t)
LOOP(bitwise_not, b8, uint8_t, uint8_t)
LOOP(logical_not, b8, uint8_t, uint8_t)

/* integers */
#define INT_LOOPS(S, T)                                                                            \
    LOOP(neg, S, T, T) LOOP(positive, S, T, T) LOOP(abs, S, T, T) LOOP(sign, S, T, T)             \
    LOOP(floor, S, T, T) LOOP(bitwise_not, S, T, T) LOOP(logical_not, S, T, uint8_t)           \
    LOOP(relu, S, T, T)
INT_LOOPS(u8, uint8_t)
INT_LOOPS(i8, int8_t)
INT_LOOPS(i16, int16_t)
INT_LOOPS(i32, int32_t)
INT_LOOPS(i64, int64_t)

/* floats: the ops whose float32 form may be a SLEEF vector function are stamped under a
 * scalar name and wrapped below */
#define FLOAT_PLAIN(S, T)                                                                          \
    LOOP(neg, S, T, T) LOOP(positive, S, T, T) LOOP(abs, S, T, T) LOOP(sign, S, T, T)             \
    LOOP(floor, S, T, T) LOOP(ceil, S, T, T) LOOP(trunc, S, T, T) LOOP(frac, S, T, T)             \
    LOOP(round, S, T, T) LOOP(reciprocal, S, T, T) LOOP(logical_not, S, T, uint8_t)           \
    LOOP(relu, S, T, T)
#define TRANSCENDENTAL(X)                                                                          \
    X(exp) X(expm1) X(exp2) X(log) X(log1p) X(log2) X(log10) X(sqrt) X(rsqrt) X(sin) X(cos)        \
    X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(asinh) X(acosh) X(atanh)              \
    X(sigmoid) X(erf) X(erfc)
FLOAT_PLAIN(f32, float)
FLOAT_PLAIN(f64, double)
#define F64_LOOP(OPN) LOOP(OPN, f64, double, double)
TRANSCENDENTAL(F64_LOOP)
#define F32_SCALAR(OPN) LOOP(OPN, f32, float, float)
TRANSCENDENTAL(F32_SCALAR)

/* ---- float32 vector forms ------------------------------------------------------------------ */
#if defined(__AVX512F__)
#define VW 16
#define VF __m512
#define VLOAD _mm512_loadu_ps
#define VSTORE _mm512_storeu_ps
#define SLEEF_F(f) Sleef_##f##f16_u10avx512f
#define VSQRT _mm512_sqrt_ps
#define VDIV _mm512_div_ps
#define VADD _mm512_add_ps
#define VSUB _mm512_sub_ps
#define VSET1 _mm512_set1_ps
#define VSUFFIX35 f16_u35avx512f
#define VABS _mm512_abs_ps
#define VSELECT_GE0(v, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((v), _mm512_setzero_ps(), _CMP_GE_OQ), (b), (a))
#elif defined(__AVX2__)
#define VW 8
#define VF __m256
#define VLOAD _mm256_loadu_ps
#define VSTORE _mm256_storeu_ps
#define SLEEF_F(f) Sleef_##f##f8_u10avx2
#define VSQRT _mm256_sqrt_ps
#define VDIV _mm256_div_ps
#define VADD _mm256_add_ps
#define VSUB _mm256_sub_ps
#define VSET1 _mm256_set1_ps
#define VSUFFIX35 f8_u35avx2
#define VABS(v) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (v))
#define VSELECT_GE0(v, a, b) _mm256_blendv_ps((b), (a), _mm256_cmp_ps((v), _mm256_setzero_ps(), _CMP_GE_OQ))
#endif

#define CAT3__(a, b, c) a##b##c
#define CAT3_(a, b, c) CAT3__(a, b, c)
#define CAT2_(a, b) a##b
#define CAT2(a, b) CAT2_(a, b)

#if defined(VW)
#define VEC_LOOP(OPN, VEXPR)                                                                       \
    static void vloop_##OPN(void *o, const void *i, int64_t n) {                                  \
        float *y = o;                                                                              \
        const float *x = i;                                                                        \
        int64_t k = 0;                                                                             \
        for (; k + VW <= n; k += VW) {                                                             \
            VF v = VLOAD(x + k);                                                                   \
            VSTORE(y + k, VEXPR);                                                                  \
        }                                                                                          \
        loop_##OPN##_f32(y + k, x + k, n - k);                                                     \
    }
#define SLEEF_LOOP(OPN) VEC_LOOP(OPN, SLEEF_F(OPN)(v))
SLEEF_LOOP(exp)
SLEEF_LOOP(expm1)
SLEEF_LOOP(exp2)
SLEEF_LOOP(log)
SLEEF_LOOP(log2)
SLEEF_LOOP(log10)
SLEEF_LOOP(sin)
SLEEF_LOOP(cos)
SLEEF_LOOP(tan)
SLEEF_LOOP(asin)
SLEEF_LOOP(acos)
SLEEF_LOOP(atan)
SLEEF_LOOP(tanh)
SLEEF_LOOP(atanh)
SLEEF_LOOP(erf)
VEC_LOOP(sqrt, VSQRT(v))

/* sigmoid and erfc: float64 lanes, rounded once */
#if defined(__AVX512F__)
#define DW 8
#define DLOAD(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
#define DSTORE(p, v) _mm256_storeu_ps((p), _mm512_cvtpd_ps(v))
#define DONE _mm512_set1_pd(1.0)
#define DADD _mm512_add_pd
#define DDIV _mm512_div_pd
#define DSUB _mm512_sub_pd
#define DZERO _mm512_setzero_pd()
#define DSLEEF(f) Sleef_##f##d8_u10avx512f
#define DSQRT _mm512_sqrt_pd
#define DERFC Sleef_erfcd8_u15avx512f
#define DV __m512d
#else
#define DW 4
#define DLOAD(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define DSTORE(p, v) _mm_storeu_ps((p), _mm256_cvtpd_ps(v))
#define DONE _mm256_set1_pd(1.0)
#define DADD _mm256_add_pd
#define DDIV _mm256_div_pd
#define DSUB _mm256_sub_pd
#define DZERO _mm256_setzero_pd()
#define DSLEEF(f) Sleef_##f##d4_u10avx2
#define DSQRT _mm256_sqrt_pd
#define DERFC Sleef_erfcd4_u15avx2
#define DV __m256d
#endif
/* float64 lanes, rounded once to float32 (unary_elem.h says why for each) */
#define DVEC_LOOP(OPN, DEXPR)                                                                      \
    static void vloop_##OPN(void *o, const void *i, int64_t n) {                                  \
        float *y = o;                                                                              \
        const float *x = i;                                                                        \
        int64_t k = 0;                                                                             \
        for (; k + DW <= n; k += DW) {                                                             \
            DV v = DLOAD(x + k);                                                                   \
            DSTORE(y + k, DEXPR);                                                                  \
        }                                                                                          \
        loop_##OPN##_f32(y + k, x + k, n - k);                                                     \
    }
DVEC_LOOP(sigmoid, DDIV(DONE, DADD(DONE, DSLEEF(exp)(DSUB(DZERO, v)))))
DVEC_LOOP(erfc, DERFC(v))
DVEC_LOOP(sinh, DSLEEF(sinh)(v))
DVEC_LOOP(cosh, DSLEEF(cosh)(v))
DVEC_LOOP(acosh, DSLEEF(acosh)(v))
DVEC_LOOP(log1p, DSLEEF(log1p)(v))
DVEC_LOOP(asinh, DSLEEF(asinh)(v))
DVEC_LOOP(rsqrt, DDIV(DONE, DSQRT(v)))
/* float16 / bfloat16 computations (unary.h, ct_unary_reduced_table) */
#define SLEEF_F35(f) CAT3_(Sleef_, f, VSUFFIX35)
#define RLOOP(OPN) VEC_LOOP(r_##OPN, SLEEF_F35(OPN)(v))
static void loop_r_sin_f32(void *o, const void *i, int64_t n) { loop_sin_f32(o, i, n); }
static void loop_r_cos_f32(void *o, const void *i, int64_t n) { loop_cos_f32(o, i, n); }
static void loop_r_tan_f32(void *o, const void *i, int64_t n) { loop_tan_f32(o, i, n); }
static void loop_r_log_f32(void *o, const void *i, int64_t n) { loop_log_f32(o, i, n); }
static void loop_r_log2_f32(void *o, const void *i, int64_t n) { loop_log2_f32(o, i, n); }
static void loop_r_tanh_f32(void *o, const void *i, int64_t n) { loop_tanh_f32(o, i, n); }
static void loop_r_atan_f32(void *o, const void *i, int64_t n) { loop_atan_f32(o, i, n); }
static void loop_r_exp2_f32(void *o, const void *i, int64_t n) { loop_exp2_f32(o, i, n); }
static void loop_r_sigmoid_f32(void *o, const void *i, int64_t n) { loop_sigmoid_f32(o, i, n); }
RLOOP(sin)
RLOOP(cos)
RLOOP(tan)
RLOOP(log)
RLOOP(log2)
RLOOP(tanh)
RLOOP(atan)
RLOOP(exp2)
/* sigmoid without overflow: e = exp(-|x|), then 1 / (1 + e) for x >= 0, e / (1 + e) below */
static inline VF r_sigmoid(VF v) {
    VF e = SLEEF_F(exp)(VSUB(VSET1(0.0f), VABS(v)));
    return VDIV(VSELECT_GE0(v, VSET1(1.0f), e), VADD(VSET1(1.0f), e));
}
VEC_LOOP(r_sigmoid, r_sigmoid(v))
#define REDUCED(OPN, E) [CT_UNK_##E] = vloop_r_##OPN,
const ct_unary_reduced_table CAT2(ct_unary_reduced, CT_ISA_SUFFIX) = {
    REDUCED(sin, SIN) REDUCED(cos, COS) REDUCED(tan, TAN) REDUCED(log, LOG) REDUCED(log2, LOG2)
    REDUCED(tanh, TANH) REDUCED(atan, ATAN) REDUCED(exp2, EXP2) REDUCED(sigmoid, SIGMOID)
};

/* ---- float16 / bfloat16 in registers (unary.h, ct_unary_half_table) ------------------------
 * The same float32 vector function as the loops above, with the widening before it and the
 * rounding after it done on the registers: the bytes of the block pipeline (widen exactly,
 * compute, round once to nearest even as fast_bf16_from_f32 / fast_f16_from_f32 in
 * src/dtype/convert/loops.c), without its two trips through float32 buffers. The tail (fewer
 * than VW elements, where the float32 loop goes scalar too) takes the float32 loop itself. */
#if defined(__AVX512F__)
#define BF16_WIDEN(p)                                                                              \
    _mm512_castsi512_ps(                                                                           \
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)(p))), 16))
static inline void bf16_narrow(uint16_t *p, __m512 v) {
    __m512i b = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7FFF)), lsb);
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_set1_epi32(-1));
    _mm256_storeu_si256((void *)p, _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
}
#define F16_WIDEN(p) _mm512_cvtph_ps(_mm256_loadu_si256((const void *)(p)))
#define F16_ROUND(v) _mm512_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT)
#define HV __m256i
#define HSTORE(p, h) _mm256_storeu_si256((void *)(p), (h))
#define H_AND _mm256_and_si256
#define H_ANDNOT _mm256_andnot_si256
#define H_GT16 _mm256_cmpgt_epi16
#define H_SET16 _mm256_set1_epi16
#else
#define BF16_WIDEN(p)                                                                              \
    _mm256_castsi256_ps(                                                                           \
        _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)(p))), 16))
static inline void bf16_narrow(uint16_t *p, __m256 v) {
    __m256i b = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7FFF)), lsb);
    r = _mm256_srli_epi32(r, 16);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_or_si256(r, _mm256_srli_epi32(nan, 16));
    /* lanes are <= 0xFFFF: the unsigned-saturating pack is exact */
    _mm_storeu_si128((void *)p, _mm_packus_epi32(_mm256_castsi256_si128(r),
                                                  _mm256_extracti128_si256(r, 1)));
}
#define F16_WIDEN(p) _mm256_cvtph_ps(_mm_loadu_si128((const void *)(p)))
#define F16_ROUND(v) _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT)
#define HV __m128i
#define HSTORE(p, h) _mm_storeu_si128((void *)(p), (h))
#define H_AND _mm_and_si128
#define H_ANDNOT _mm_andnot_si128
#define H_GT16 _mm_cmpgt_epi16
#define H_SET16 _mm_set1_epi16
#endif
/* vcvtps2ph keeps NaN payload bits; ctensor writes the canonical 0x7E00 | sign */
static inline void f16_narrow(uint16_t *p, VF v) {
    HV h = F16_ROUND(v);
    HV nan = H_GT16(H_AND(h, H_SET16(0x7FFF)), H_SET16(0x7C00));
    HSTORE(p, H_ANDNOT(H_AND(nan, H_SET16(0x01FF)), h));
}
#define bf16_widen_1 ct_cvt_bf16_to_f32
#define bf16_round_1 ct_cvt_f32_to_bf16
#define f16_widen_1 ct_cvt_f16_to_f32
#define f16_round_1 ct_cvt_f32_to_f16
#define BF16_NARROW bf16_narrow
#define F16_NARROW f16_narrow
#define HALF_LOOP(OPN, H, h, VEXPR, F32LOOP)                                                       \
    static void hloop_##OPN##_##h(void *o, const void *i, int64_t n) {                            \
        uint16_t *y = o;                                                                           \
        const uint16_t *x = i;                                                                     \
        int64_t k = 0;                                                                             \
        for (; k + VW <= n; k += VW) {                                                             \
            VF v = H##_WIDEN(x + k);                                                               \
            H##_NARROW(y + k, VEXPR);                                                              \
        }                                                                                          \
        if (k < n) {                                                                               \
            float t[VW];                                                                           \
            for (int64_t j = 0; k + j < n; j++)                                                    \
                t[j] = h##_widen_1(x[k + j]);                                                      \
            F32LOOP(t, t, n - k);                                                                  \
            for (int64_t j = 0; k + j < n; j++)                                                    \
                y[k + j] = h##_round_1(t[j]);                                                      \
        }                                                                                          \
    }
#define HALF_LOOPS(OPN, VEXPR, F32LOOP)                                                            \
    HALF_LOOP(OPN, BF16, bf16, VEXPR, F32LOOP) HALF_LOOP(OPN, F16, f16, VEXPR, F32LOOP)
/* the reduced table's functions where it has one, the float32 table's otherwise */
#define HALF_R35(OPN) HALF_LOOPS(OPN, SLEEF_F35(OPN)(v), vloop_r_##OPN)
#define HALF_U10(OPN) HALF_LOOPS(OPN, SLEEF_F(OPN)(v), vloop_##OPN)
HALF_R35(sin)
HALF_R35(cos)
HALF_R35(tan)
HALF_R35(log)
HALF_R35(log2)
HALF_R35(tanh)
HALF_R35(atan)
HALF_R35(exp2)
HALF_LOOPS(sigmoid, r_sigmoid(v), vloop_r_sigmoid)
HALF_U10(exp)
HALF_U10(expm1)
HALF_U10(log10)
HALF_U10(asin)
HALF_U10(acos)
HALF_U10(atanh)
HALF_U10(erf)
HALF_LOOPS(sqrt, VSQRT(v), vloop_sqrt)
#define HALF(OPN, E) [CT_UNK_##E] = {[CT_UNH_BF16] = hloop_##OPN##_bf16, [CT_UNH_F16] = hloop_##OPN##_f16},
const ct_unary_half_table CAT2(ct_unary_half, CT_ISA_SUFFIX) = {
    HALF(sin, SIN) HALF(cos, COS) HALF(tan, TAN) HALF(log, LOG) HALF(log2, LOG2) HALF(tanh, TANH)
    HALF(atan, ATAN) HALF(exp2, EXP2) HALF(sigmoid, SIGMOID) HALF(exp, EXP) HALF(expm1, EXPM1)
    HALF(log10, LOG10) HALF(asin, ASIN) HALF(acos, ACOS) HALF(atanh, ATANH) HALF(erf, ERF)
    HALF(sqrt, SQRT)
};

/* ---- float16 / bfloat16 through a table (unary.h, ct_unary_lut_table) -----------------------
 * The result of a 16-bit element is a function of its 16 bits: for the costly ops a table of
 * all 65536 results, filled once by the loop above (whole vectors of every bit pattern, so
 * the bytes of its vector path; a block's last few elements, which that loop hands to the
 * scalar float32 function, get them too), turns an element into two loads and a share of a
 * store: about memcpy's speed, 1.3x bfloat16 exp's vector code and 1.6x sigmoid's.
 * 128 KiB a table, of which a tensor's values touch a few lines.
 * The first caller fills it (state EMPTY -> FILLING -> READY, published with release); any
 * caller that finds it not READY computes with the loop, so nobody waits. */
#define LUT_N 65536
#define LUT_FILL_BLOCK 512 /* a multiple of VW: the fill never takes the scalar tail */
enum { LUT_EMPTY, LUT_FILLING, LUT_READY };
typedef struct lut {
    _Atomic int state;
    uint16_t v[LUT_N];
} lut;

static void lut_fill(lut *t, ct_unary_math_loop compute) {
    uint16_t x[LUT_FILL_BLOCK];
    for (int32_t base = 0; base < LUT_N; base += LUT_FILL_BLOCK) {
        for (int32_t j = 0; j < LUT_FILL_BLOCK; j++)
            x[j] = (uint16_t)(base + j);
        compute(t->v + base, x, LUT_FILL_BLOCK);
    }
    atomic_store_explicit(&t->state, LUT_READY, memory_order_release);
}

static void lut_run(lut *t, ct_unary_math_loop compute, void *o, const void *i, int64_t n) {
    if (atomic_load_explicit(&t->state, memory_order_acquire) != LUT_READY) {
        int empty = LUT_EMPTY;
        if (atomic_compare_exchange_strong(&t->state, &empty, LUT_FILLING))
            lut_fill(t, compute);
        else {
            compute(o, i, n);
            return;
        }
    }
    /* Scalar loads, four results to one 8-byte store (x86: little-endian): a 2-byte store
     * per element is 20% slower (the store queue fills), AVX-512 gathers no faster. Each
     * index is its own zero-extending load: loads have ports to spare, and splitting one
     * 8-byte load with shifts and masks cost 5-20% more (AVX2 Zen 3, 10^7 bfloat16). */
    uint16_t *y = o;
    const uint16_t *x = i;
    const uint16_t *v = t->v;
    int64_t k = 0;
    for (; k + 4 <= n; k += 4) {
        uint64_t r = (uint64_t)v[x[k]] | (uint64_t)v[x[k + 1]] << 16 |
                     (uint64_t)v[x[k + 2]] << 32 | (uint64_t)v[x[k + 3]] << 48;
        memcpy(y + k, &r, sizeof r);
    }
    for (; k < n; k++)
        y[k] = v[x[k]];
}
#define LUT_LOOP(OPN, h)                                                                           \
    static lut lut_##OPN##_##h;                                                                    \
    static void tloop_##OPN##_##h(void *o, const void *i, int64_t n) {                            \
        lut_run(&lut_##OPN##_##h, hloop_##OPN##_##h, o, i, n);                                     \
    }
/* Not float16 exp: float16's 1024 values an octave spread a tensor over more of the table
 * (randn * 4: about 70 KiB, past the L1 cache), where exp's vector code is 15% faster. */
/* bfloat16: every function with a vector loop above but sqrt (one instruction) and sigmoid
 * (below, with float16's); its 128 values
 * an octave keep a tensor's share of the table in L1. On an AVX2-only Zen 3, 10^7 bfloat16
 * log took 11.3 ms and sin 9.7 ms in the vector loops (torch 1.13: 16.5, 15.6); a table runs
 * near memcpy's speed whatever the function costs. */
#define LUT_BF16(X)                                                                                    X(exp, EXP) X(sin, SIN) X(cos, COS) X(tan, TAN) X(log, LOG) X(log2, LOG2)      X(tanh, TANH) X(atan, ATAN) X(exp2, EXP2) X(expm1, EXPM1) X(log10, LOG10) X(asin, ASIN)            X(acos, ACOS) X(atanh, ATANH) X(erf, ERF)
#define LUT_LOOP_BF16(OPN, E) LUT_LOOP(OPN, bf16)
LUT_BF16(LUT_LOOP_BF16)
LUT_LOOP(sigmoid, bf16)
LUT_LOOP(sigmoid, f16)
#define LUT_ROW_BF16(OPN, E) [CT_UNK_##E] = {[CT_UNH_BF16] = tloop_##OPN##_bf16},
const ct_unary_half_table CAT2(ct_unary_lut, CT_ISA_SUFFIX) = {
    LUT_BF16(LUT_ROW_BF16) /* sigmoid: both half types */
    [CT_UNK_SIGMOID] = {[CT_UNH_BF16] = tloop_sigmoid_bf16, [CT_UNH_F16] = tloop_sigmoid_f16},
};
#define F32(OPN) vloop_##OPN
#else
const ct_unary_reduced_table CAT2(ct_unary_reduced, CT_ISA_SUFFIX) = {NULL};
const ct_unary_half_table CAT2(ct_unary_half, CT_ISA_SUFFIX) = {{NULL}};
const ct_unary_half_table CAT2(ct_unary_lut, CT_ISA_SUFFIX) = {{NULL}};
#define F32(OPN) loop_##OPN##_f32
#endif

/* ---- complex ------------------------------------------------------------------------------- */
#define CLOOP(OPN, S, T) LOOP(OPN, S, T, T)
#define COMPLEX_LOOPS(S, T, R)                                                                     \
    CLOOP(neg, S, T) CLOOP(positive, S, T) LOOP(abs, S, T, R) CLOOP(sgn, S, T)                    \
    CLOOP(reciprocal, S, T) LOOP(logical_not, S, T, uint8_t) CLOOP(exp, S, T) CLOOP(log, S, T)    \
    CLOOP(log2, S, T) CLOOP(log10, S, T) CLOOP(sqrt, S, T) CLOOP(rsqrt, S, T) CLOOP(sin, S, T)    \
    CLOOP(cos, S, T) CLOOP(tan, S, T) CLOOP(asin, S, T) CLOOP(acos, S, T) CLOOP(atan, S, T)       \
    CLOOP(sinh, S, T) CLOOP(cosh, S, T) CLOOP(tanh, S, T) CLOOP(asinh, S, T) CLOOP(acosh, S, T)   \
    CLOOP(atanh, S, T) CLOOP(sigmoid, S, T)
COMPLEX_LOOPS(c64, float _Complex, float)
COMPLEX_LOOPS(c128, double _Complex, double)


/* ---- the table ----------------------------------------------------------------------------- */
#define INTS(OPN)                                                                                  \
    [CT_UNM_U8] = loop_##OPN##_u8, [CT_UNM_I8] = loop_##OPN##_i8, [CT_UNM_I16] = loop_##OPN##_i16, \
    [CT_UNM_I32] = loop_##OPN##_i32, [CT_UNM_I64] = loop_##OPN##_i64
#define FLOATS(OPN) [CT_UNM_F32] = loop_##OPN##_f32, [CT_UNM_F64] = loop_##OPN##_f64
#define VFLOATS(OPN) [CT_UNM_F32] = F32(OPN), [CT_UNM_F64] = loop_##OPN##_f64
#define COMPLEXES(OPN) [CT_UNM_C64] = loop_##OPN##_c64, [CT_UNM_C128] = loop_##OPN##_c128
#define TRANS_ROW(OPN, E) [CT_UNK_##E] = {VFLOATS(OPN), COMPLEXES(OPN)},

const ct_unary_loop_table CAT2(ct_unary_loops, CT_ISA_SUFFIX) = {
    [CT_UNK_NEG] = {INTS(neg), FLOATS(neg), COMPLEXES(neg)},
    [CT_UNK_POSITIVE] = {INTS(positive), FLOATS(positive), COMPLEXES(positive)},
    [CT_UNK_ABS] = {INTS(abs), FLOATS(abs), COMPLEXES(abs)},
    [CT_UNK_SIGN] = {[CT_UNM_B8] = loop_sign_b8, INTS(sign), FLOATS(sign)},
    [CT_UNK_SGN] = {[CT_UNM_B8] = loop_sign_b8, INTS(sign), FLOATS(sign), COMPLEXES(sgn)},
    [CT_UNK_FLOOR] = {INTS(floor), FLOATS(floor)},
    [CT_UNK_CEIL] = {INTS(floor), FLOATS(ceil)},
    [CT_UNK_TRUNC] = {INTS(floor), FLOATS(trunc)},
    [CT_UNK_FRAC] = {FLOATS(frac)},
    [CT_UNK_ROUND] = {INTS(floor), FLOATS(round)},
    [CT_UNK_RECIPROCAL] = {FLOATS(reciprocal), COMPLEXES(reciprocal)},
    [CT_UNK_LOGICAL_NOT] = {[CT_UNM_B8] = loop_logical_not_b8, INTS(logical_not),
                             FLOATS(logical_not), COMPLEXES(logical_not)},
    [CT_UNK_BITWISE_NOT] = {[CT_UNM_B8] = loop_bitwise_not_b8, INTS(bitwise_not)},
    [CT_UNK_EXP] = {VFLOATS(exp), COMPLEXES(exp)},
    [CT_UNK_EXPM1] = {VFLOATS(expm1)},
    [CT_UNK_EXP2] = {VFLOATS(exp2)},
    [CT_UNK_LOG] = {VFLOATS(log), COMPLEXES(log)},
    [CT_UNK_LOG1P] = {VFLOATS(log1p)},
    TRANS_ROW(log2, LOG2) TRANS_ROW(log10, LOG10) TRANS_ROW(sqrt, SQRT) TRANS_ROW(rsqrt, RSQRT)
    TRANS_ROW(sin, SIN) TRANS_ROW(cos, COS) TRANS_ROW(tan, TAN) TRANS_ROW(asin, ASIN)
    TRANS_ROW(acos, ACOS) TRANS_ROW(atan, ATAN) TRANS_ROW(sinh, SINH) TRANS_ROW(cosh, COSH)
    TRANS_ROW(tanh, TANH) TRANS_ROW(asinh, ASINH) TRANS_ROW(acosh, ACOSH) TRANS_ROW(atanh, ATANH)
    TRANS_ROW(sigmoid, SIGMOID)
    [CT_UNK_ERF] = {VFLOATS(erf)},
    [CT_UNK_ERFC] = {VFLOATS(erfc)},
    [CT_UNK_RELU] = {INTS(relu), FLOATS(relu)},
};
