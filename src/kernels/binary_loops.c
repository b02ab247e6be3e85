/* The math loops of one instruction-set level.
 *
 * This file is compiled once per level (CMakeLists.txt, CT_ISA_SOURCES) with
 * CT_ISA_SUFFIX = _baseline, _avx2 or _avx512 and the matching -march; each copy defines
 * its own table and binary_kernel.c picks one at run time. Every loop must give the same
 * bytes as the reference (binary_reference.c): the scalar parts call the same element
 * functions (binary_elem_impl.h), and the vector parts only use operations that round the
 * same way lane by lane (+, -, *, / and fused multiply-add for add with alpha). The one
 * exception: float32 / float64 pow at the AVX2 and AVX-512 levels (SLEEF, within an ulp).
 *
 * Fast paths: all operands contiguous, or one input broadcast (stride 0) with the others
 * contiguous, and every pointer aligned to its type. They are written with GCC's vector
 * extensions at the level's register width (16, 32 or 64 bytes), which compile to plain
 * SIMD loads, arithmetic and stores; explicit vector loads before stores also make an
 * output that aliases an input exactly safe without run-time alias checks. Everything
 * else goes to the generic strided loops stamped from binary_elem_impl.h. */
#include <stdint.h>
#include <string.h>

#include "dtype/convert/loops_impl.h" /* CT_CAT */
#include "kernels/binary_elem_impl.h"

#ifndef CT_ISA_SUFFIX
#error "binary_loops.c is built by CMake with -DCT_ISA_SUFFIX=_<level>"
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)
#define CT_VBYTES 64
#elif defined(__AVX2__)
#define CT_VBYTES 32
#else
#define CT_VBYTES 16
#endif
#include <immintrin.h> /* streaming stores (SSE2 and up), FMA */
#if defined(__FMA__) || defined(__AVX512F__)
#define CT_HAVE_VFMA 1
#endif

typedef float vf32 __attribute__((vector_size(CT_VBYTES)));
typedef double vf64 __attribute__((vector_size(CT_VBYTES)));
typedef uint8_t vu8 __attribute__((vector_size(CT_VBYTES)));
typedef uint16_t vu16 __attribute__((vector_size(CT_VBYTES)));
typedef uint32_t vu32 __attribute__((vector_size(CT_VBYTES)));
typedef uint64_t vu64 __attribute__((vector_size(CT_VBYTES)));

/* ---- the generic strided loops (also the fallback of every fast loop) ------------------- */
#define CT_GEN_LOOPS(E, S, T, K, F) CT_KLOOPS_##K(gen, S, T, F)
CT_KMATH_ROWS(CT_GEN_LOOPS)
#undef CT_GEN_LOOPS

#define CT_ALIGNED(p, T) ((((uintptr_t)(p)) & (_Alignof(T) - 1)) == 0)

/* True when the fast paths apply: some elements (the fast loops read a broadcast value
 * up front), out contiguous, each input contiguous or broadcast (not both broadcast: that
 * is one value, not worth a vector), all aligned. */
#define CT_FAST_OK(T)                                                                              \
    (n > 0 && so == (int64_t)sizeof(T) && (sa == (int64_t)sizeof(T) || sa == 0) &&                 \
     (sb == (int64_t)sizeof(T) || sb == 0) && (sa | sb) != 0 && CT_ALIGNED(out, T) &&              \
     CT_ALIGNED(a, T) && CT_ALIGNED(b, T))

/* Streaming (non-temporal) stores for long outputs: an output that cannot stay in cache
 * anyway is written without first reading its lines (write-allocate), a third less memory
 * traffic for a + b. Not when out is an input (its lines are in cache already), nor for
 * short runs, whose results the next operation likely reads from cache. */
#define CT_NT_MIN_BYTES ((int64_t)4 << 20)
#if CT_VBYTES == 64
#define CT_NT_STORE(p, v) _mm512_stream_si512((void *)(p), (__m512i)(v))
#elif CT_VBYTES == 32
#define CT_NT_STORE(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (__m256i)(v))
#else
#define CT_NT_STORE(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#endif
#define CT_USE_NT(bytes) ((bytes) >= CT_NT_MIN_BYTES && out != a && out != b)

/* A fast loop: PRO declares what the ops use (alpha), VOP(va, vb) is the vector operation on
 * VT, SOP(x, y) the scalar one on T (the element function, for the ends). A broadcast input
 * is a splat vector, so one loop serves the three cases (GCC unswitches the invariant
 * tests). */
#define CT_FAST_LOOP(NAME, T, VT, PRO, VOP, SOP, GEN)                                              \
    static CT_KLOOP_SIG(NAME) {                                                                    \
        if (!CT_FAST_OK(T))                                                                        \
            return GEN(out, a, b, so, sa, sb, n, alpha);                                           \
        PRO;                                                                                       \
        enum { L = CT_VBYTES / sizeof(T) };                                                        \
        T *o = (T *)(void *)out;                                                                   \
        const T *x = (const T *)(const void *)a, *y = (const T *)(const void *)b;                  \
        const int64_t ia = sa != 0, ib = sb != 0;                                                  \
        VT va, vb;                                                                                 \
        for (int k_ = 0; k_ < (int)L; k_++) {                                                      \
            va[k_] = x[0];                                                                         \
            vb[k_] = y[0];                                                                         \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        if (CT_USE_NT(n * (int64_t)sizeof(T))) {                                                   \
            for (; i < n && ((uintptr_t)(o + i) & (CT_VBYTES - 1)) != 0; i++)                      \
                o[i] = SOP(x[i * ia], y[i * ib]);                                                  \
            for (; i + L <= n; i += L) {                                                           \
                if (ia)                                                                            \
                    memcpy(&va, x + i, sizeof va);                                                 \
                if (ib)                                                                            \
                    memcpy(&vb, y + i, sizeof vb);                                                 \
                VT vr = VOP(va, vb);                                                               \
                CT_NT_STORE(o + i, vr);                                                            \
            }                                                                                      \
            _mm_sfence(); /* order the streaming stores before whatever follows */                 \
        } else {                                                                                   \
            for (; i + L <= n; i += L) {                                                           \
                if (ia)                                                                            \
                    memcpy(&va, x + i, sizeof va);                                                 \
                if (ib)                                                                            \
                    memcpy(&vb, y + i, sizeof vb);                                                 \
                VT vr = VOP(va, vb);                                                               \
                memcpy(o + i, &vr, sizeof vr);                                                     \
            }                                                                                      \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            o[i] = SOP(x[i * ia], y[i * ib]);                                                      \
        return CT_KERNEL_OK;                                                                       \
    }

/* A loop that dispatches between the no-alpha and the alpha variant. */
#define CT_ALPHA_SPLIT(NAME, NO_ALPHA, WITH_ALPHA)                                                 \
    static CT_KLOOP_SIG(NAME) {                                                                    \
        return alpha == NULL ? NO_ALPHA(out, a, b, so, sa, sb, n, alpha)                           \
                             : WITH_ALPHA(out, a, b, so, sa, sb, n, alpha);                        \
    }

#define CT_NOTHING (void)0
#define CT_VADD(x, y) ((x) + (y))
#define CT_VMUL(x, y) ((x) * (y))
#define CT_VDIV(x, y) ((x) / (y))

/* A typed loop without vectors for ops that have no vector form here (complex products,
 * rounding divisions): the same three cases, plain indexing, which GCC may still vectorize;
 * mostly it saves the memcpy per element of the generic loops. */
#define CT_TYPED_LOOP(NAME, T, PRO, SOP, GEN) CT_TYPED_LOOP_A(NAME, T, PRO, SOP, GEN, )
#define CT_TYPED_LOOP_A(NAME, T, PRO, SOP, GEN, ATTR)                                              \
    ATTR static CT_KLOOP_SIG(NAME) {                                                               \
        if (!CT_FAST_OK(T))                                                                        \
            return GEN(out, a, b, so, sa, sb, n, alpha);                                           \
        PRO;                                                                                       \
        T *o = (T *)(void *)out;                                                                   \
        const T *x = (const T *)(const void *)a, *y = (const T *)(const void *)b;                  \
        if (sa != 0 && sb != 0) {                                                                  \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = SOP(x[i], y[i]);                                                            \
        } else if (sa == 0) {                                                                      \
            const T x0 = x[0];                                                                     \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = SOP(x0, y[i]);                                                              \
        } else {                                                                                   \
            const T y0 = y[0];                                                                     \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = SOP(x[i], y0);                                                              \
        }                                                                                          \
        return CT_KERNEL_OK;                                                                       \
    }

/* Integer division: the zero check is part of the loop (elements before a zero divisor may
 * have been written, as binary.h allows). */
#define CT_IDIV_LOOP(NAME, T, SOP, GEN)                                                            \
    static CT_KLOOP_SIG(NAME) {                                                                    \
        if (!CT_FAST_OK(T))                                                                        \
            return GEN(out, a, b, so, sa, sb, n, alpha);                                           \
        T *o = (T *)(void *)out;                                                                   \
        const T *x = (const T *)(const void *)a, *y = (const T *)(const void *)b;                  \
        const int64_t ia = sa != 0, ib = sb != 0;                                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T d = y[i * ib];                                                                       \
            if (d == 0)                                                                            \
                return CT_KERNEL_ZERO_DIVISION;                                                    \
            o[i] = SOP(x[i * ia], d);                                                              \
        }                                                                                          \
        return CT_KERNEL_OK;                                                                       \
    }

#define CT_SPLAT(v, VT, value)                                                                     \
    VT v;                                                                                          \
    for (int k_ = 0; k_ < (int)(sizeof(VT) / sizeof(v[0])); k_++)                                  \
    v[k_] = (value)

/* ---- bool: inputs are bytes read as != 0 ---------------------------------------------------
 * A vector comparison gives 0 / -1 per lane; & 1 turns that into 0 / 1. */
#define CT_VB_ADD(x, y) (((vu8)((x) != 0) | (valb & (vu8)((y) != 0))) & 1)
#define CT_VB_MUL(x, y) ((vu8)(((x) != 0) & ((y) != 0)) & 1)
#define CT_SB_ADD(x, y) ct_kadd_b8(x, y, alb)
CT_FAST_LOOP(fast_add_b8, uint8_t, vu8, const uint8_t alb = alpha ? (uint8_t)(alpha->u8 != 0) : 1;
             CT_SPLAT(valb, vu8, alb ? 0xFF : 0), CT_VB_ADD, CT_SB_ADD, gen_add_b8)
CT_FAST_LOOP(fast_mul_b8, uint8_t, vu8, CT_NOTHING, CT_VB_MUL, ct_kmul_b8, gen_mul_b8)

/* ---- integers: unsigned vector lanes of the same width (wrap-around, bit-identical) ----- */
#define CT_VI_ADDA(x, y) ((x) + val * (y))
#define CT_INT_LOOPS(S, T, VT, UT, F)                                                              \
    CT_FAST_LOOP(fast_add1_##S, T, VT, CT_NOTHING, CT_VADD, ct_kadd1_##S, gen_add_##S)             \
    CT_FAST_LOOP(fast_adda_##S, T, VT, const T al = alpha->F;                                      \
                 CT_SPLAT(val, VT, (UT)al), CT_VI_ADDA, CT_SI_ADDA_##S, gen_add_##S)               \
    CT_ALPHA_SPLIT(fast_add_##S, fast_add1_##S, fast_adda_##S)                                     \
    CT_FAST_LOOP(fast_mul_##S, T, VT, CT_NOTHING, CT_VMUL, ct_kmul_##S, gen_mul_##S)               \
    CT_IDIV_LOOP(fast_divt_##S, T, ct_kdivt_##S, gen_divt_##S)                                     \
    CT_IDIV_LOOP(fast_divf_##S, T, ct_kdivf_##S, gen_divf_##S)

#define CT_SI_ADDA_u8(x, y) ct_kadd_u8(x, y, al)
#define CT_SI_ADDA_i8(x, y) ct_kadd_i8(x, y, al)
#define CT_SI_ADDA_u16(x, y) ct_kadd_u16(x, y, al)
#define CT_SI_ADDA_i16(x, y) ct_kadd_i16(x, y, al)
#define CT_SI_ADDA_u32(x, y) ct_kadd_u32(x, y, al)
#define CT_SI_ADDA_i32(x, y) ct_kadd_i32(x, y, al)
#define CT_SI_ADDA_u64(x, y) ct_kadd_u64(x, y, al)
#define CT_SI_ADDA_i64(x, y) ct_kadd_i64(x, y, al)

CT_INT_LOOPS(u8, uint8_t, vu8, uint8_t, u8)
CT_INT_LOOPS(i8, int8_t, vu8, uint8_t, i8)
CT_INT_LOOPS(u16, uint16_t, vu16, uint16_t, u16)
CT_INT_LOOPS(i16, int16_t, vu16, uint16_t, i16)
CT_INT_LOOPS(u32, uint32_t, vu32, uint32_t, u32)
CT_INT_LOOPS(i32, int32_t, vu32, uint32_t, i32)
CT_INT_LOOPS(u64, uint64_t, vu64, uint64_t, u64)
CT_INT_LOOPS(i64, int64_t, vu64, uint64_t, i64)

/* ---- real floats ---------------------------------------------------------------------------
 * Add with alpha is fma(alpha, b, a) everywhere: one fused instruction per vector when the
 * level has FMA, else the scalar fma() of the generic loop (same rounding). */
#if defined(CT_HAVE_VFMA) && CT_VBYTES == 64
#define CT_VFMA3_f32(x, y, z) ((vf32)_mm512_fmadd_ps((__m512)(x), (__m512)(y), (__m512)(z)))
#define CT_VFMA3_f64(x, y, z) ((vf64)_mm512_fmadd_pd((__m512d)(x), (__m512d)(y), (__m512d)(z)))
#elif defined(CT_HAVE_VFMA) && CT_VBYTES == 32
#define CT_VFMA3_f32(x, y, z) ((vf32)_mm256_fmadd_ps((__m256)(x), (__m256)(y), (__m256)(z)))
#define CT_VFMA3_f64(x, y, z) ((vf64)_mm256_fmadd_pd((__m256d)(x), (__m256d)(y), (__m256d)(z)))
#endif
#if defined(CT_VFMA3_f32) /* x + alpha * y, alpha splat in `val` */
#define CT_VFMA_f32(x, y) CT_VFMA3_f32(val, y, x)
#define CT_VFMA_f64(x, y) CT_VFMA3_f64(val, y, x)
#endif
#define CT_SF_ADDA_f32(x, y) ct_kadd_f32(x, y, al)
#define CT_SF_ADDA_f64(x, y) ct_kadd_f64(x, y, al)

#if defined(CT_VFMA_f32)
#define CT_FLOAT_ADDA(S, T, VT, F)                                                                 \
    CT_FAST_LOOP(fast_adda_##S, T, VT, const T al = alpha->F;                                      \
                 CT_SPLAT(val, VT, al), CT_VFMA_##S, CT_SF_ADDA_##S, gen_add_##S)
#else
#define CT_FLOAT_ADDA(S, T, VT, F)                                                                 \
    CT_TYPED_LOOP(fast_adda_##S, T, const T al = alpha->F, CT_SF_ADDA_##S, gen_add_##S)
#endif

#define CT_FLOAT_LOOPS(S, T, VT, F)                                                                \
    CT_FAST_LOOP(fast_add1_##S, T, VT, CT_NOTHING, CT_VADD, ct_kadd1_##S, gen_add_##S)             \
    CT_FLOAT_ADDA(S, T, VT, F)                                                                     \
    CT_ALPHA_SPLIT(fast_add_##S, fast_add1_##S, fast_adda_##S)                                     \
    CT_FAST_LOOP(fast_mul_##S, T, VT, CT_NOTHING, CT_VMUL, ct_kmul_##S, gen_mul_##S)               \
    CT_FAST_LOOP(fast_div_##S, T, VT, CT_NOTHING, CT_VDIV, ct_kdiv_##S, gen_div_##S)               \
    CT_TYPED_LOOP(fast_divt_##S, T, CT_NOTHING, ct_kdivt_##S, gen_divt_##S)                        \
    CT_TYPED_LOOP(fast_divf_##S, T, CT_NOTHING, ct_kdivf_##S, gen_divf_##S)

CT_FLOAT_LOOPS(f32, float, vf32, f32)
CT_FLOAT_LOOPS(f64, double, vf64, f64)

/* ---- complex ---------------------------------------------------------------------------------
 * a + b with both contiguous is a real add over twice the elements; division is vectorized
 * by hand (CT_COMPLEX_DIV). The other loops are not vectorized: GCC 12 recognizes (ac - bd,
 * ad + bc) as a complex product and emits vfmaddsub, a fused operation that rounds
 * differently from PyTorch's and the reference's, even with contraction off. */
#if defined(__clang__)
#define CT_NO_VEC
#else
#define CT_NO_VEC __attribute__((optimize("no-tree-vectorize")))
#endif
#define CT_SC_ADDA_c64(x, y) ct_kadd_c64(x, y, al)
#define CT_SC_ADDA_c128(x, y) ct_kadd_c128(x, y, al)
#define CT_COMPLEX_LOOPS(S, CT, RS)                                                                \
    CT_TYPED_LOOP_A(typed_add1_##S, CT, CT_NOTHING, ct_kadd1_##S, gen_add_##S, CT_NO_VEC)          \
    static CT_KLOOP_SIG(fast_add1_##S) {                                                           \
        if (CT_FAST_OK(CT) && sa != 0 && sb != 0)                                                  \
            return fast_add1_##RS(out, a, b, so / 2, sa / 2, sb / 2, 2 * n, alpha);                \
        return typed_add1_##S(out, a, b, so, sa, sb, n, alpha);                                    \
    }                                                                                              \
    CT_TYPED_LOOP_A(fast_adda_##S, CT, CT al;                                                      \
                    memcpy(&al, alpha->S, sizeof al), CT_SC_ADDA_##S, gen_add_##S, CT_NO_VEC)      \
    CT_ALPHA_SPLIT(fast_add_##S, fast_add1_##S, fast_adda_##S)                                     \
    CT_TYPED_LOOP_A(fast_mul_##S, CT, CT_NOTHING, ct_kmul_##S, gen_mul_##S, CT_NO_VEC)             \
    CT_COMPLEX_DIV(S, CT, RS)

/* Smith's division (Note [Complex division]). With vector FMA, the fast case computes
 * ct_kdiv's steps lane by lane on L quotients at a time: the parts de-interleaved into
 * vectors of real and of imaginary parts, the two forms and the 0/0 case chosen by masks
 * (every lane computes all three and keeps one), the same divisions, fmas and products, so
 * the same bits. Without vector FMA, the generic loop. */
#if defined(CT_VFMA3_f32)
/* the even / odd lanes of two L-lane vectors, and two vectors' lanes interleaved (low and
 * high halves) */
#define CT_EVENS_4 0, 2, 4, 6
#define CT_ODDS_4 1, 3, 5, 7
#define CT_ZIPLO_4 0, 4, 1, 5
#define CT_ZIPHI_4 2, 6, 3, 7
#define CT_EVENS_8 0, 2, 4, 6, 8, 10, 12, 14
#define CT_ODDS_8 1, 3, 5, 7, 9, 11, 13, 15
#define CT_ZIPLO_8 0, 8, 1, 9, 2, 10, 3, 11
#define CT_ZIPHI_8 4, 12, 5, 13, 6, 14, 7, 15
#define CT_EVENS_16 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define CT_ODDS_16 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define CT_ZIPLO_16 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define CT_ZIPHI_16 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#define CT_SHUF(x, y, ...) __builtin_shufflevector(x, y, __VA_ARGS__)
#define CT_VSEL(VT, VU, m, x, y) ((VT)(((VU)(x) & (m)) | ((VU)(y) & ~(m))))
/* the two vectors of operand P at element i (a broadcast operand: its value repeated) */
#define CT_CDIV_LOAD(V0, V1, P, SP, BC, T, L)                                                      \
    if (SP) {                                                                                      \
        memcpy(&V0, (const T *)(const void *)(P) + 2 * i, sizeof V0);                              \
        memcpy(&V1, (const T *)(const void *)(P) + 2 * i + L, sizeof V1);                          \
    } else {                                                                                       \
        V0 = V1 = BC;                                                                              \
    }
#define CT_CDIV_VEC(S, CT, RS, T, VT, VU, L, EV, OD, LO, HI)                                       \
    static CT_KLOOP_SIG(fast_div_##S) {                                                            \
        if (!CT_FAST_OK(CT) || n < L)                                                              \
            return gen_div_##S(out, a, b, so, sa, sb, n, alpha);                                   \
        T pa[2], pb[2];                                                                            \
        memcpy(pa, a, sizeof pa);                                                                  \
        memcpy(pb, b, sizeof pb);                                                                  \
        VT ba, bb, one, zero_v = {0}; /* broadcast operands, as (re, im) pairs */                  \
        VU mag;                                                                                    \
        for (int k_ = 0; k_ < L; k_++) {                                                           \
            ba[k_] = pa[k_ % 2];                                                                   \
            bb[k_] = pb[k_ % 2];                                                                   \
            one[k_] = 1;                                                                           \
            mag[k_] = (__typeof__(mag[0]))-1 >> 1; /* every bit but the sign */                    \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + L <= n; i += L) {                                                               \
            VT x0, x1, y0, y1;                                                                     \
            CT_CDIV_LOAD(x0, x1, a, sa, ba, T, L)                                                  \
            CT_CDIV_LOAD(y0, y1, b, sb, bb, T, L)                                                  \
            VT va = CT_SHUF(x0, x1, EV), vb = CT_SHUF(x0, x1, OD);                                 \
            VT vc = CT_SHUF(y0, y1, EV), vd = CT_SHUF(y0, y1, OD);                                 \
            VT abs_c = (VT)((VU)vc & mag), abs_d = (VT)((VU)vd & mag);                             \
            VU c_big = (VU)(abs_c >= abs_d), zero = (VU)((abs_c == zero_v) & (abs_d == zero_v)); \
            VT big = CT_VSEL(VT, VU, c_big, vc, vd), small = CT_VSEL(VT, VU, c_big, vd, vc);       \
            VT rat = small / big, scl = one / CT_VFMA3_##RS(small, rat, big), na = -va;            \
            VT re = CT_VFMA3_##RS(CT_VSEL(VT, VU, c_big, vb, va), rat,                             \
                                  CT_VSEL(VT, VU, c_big, va, vb)) * scl;                           \
            VT im = CT_VFMA3_##RS(CT_VSEL(VT, VU, c_big, na, vb), rat,                             \
                                  CT_VSEL(VT, VU, c_big, vb, na)) * scl;                           \
            re = CT_VSEL(VT, VU, zero, va / abs_c, re);                                            \
            im = CT_VSEL(VT, VU, zero, vb / abs_d, im);                                            \
            VT o0 = CT_SHUF(re, im, LO), o1 = CT_SHUF(re, im, HI);                                 \
            memcpy((T *)(void *)out + 2 * i, &o0, sizeof o0);                                      \
            memcpy((T *)(void *)out + 2 * i + L, &o1, sizeof o1);                                  \
        }                                                                                          \
        if (i == n)                                                                                \
            return CT_KERNEL_OK;                                                                   \
        return gen_div_##S(out + i * so, a + i * sa, b + i * sb, so, sa, sb, n - i, alpha);        \
    }
#define CT_CDIV_VEC_L(S, CT, RS, T, VT, VU, L)                                                     \
    CT_CDIV_VEC(S, CT, RS, T, VT, VU, L, CT_EVENS_##L, CT_ODDS_##L, CT_ZIPLO_##L, CT_ZIPHI_##L)
#define CT_COMPLEX_DIV(S, CT, RS) CT_COMPLEX_DIV_##RS(S, CT)
#if CT_VBYTES == 64
#define CT_COMPLEX_DIV_f32(S, CT) CT_CDIV_VEC_L(S, CT, f32, float, vf32, vu32, 16)
#define CT_COMPLEX_DIV_f64(S, CT) CT_CDIV_VEC_L(S, CT, f64, double, vf64, vu64, 8)
#else
#define CT_COMPLEX_DIV_f32(S, CT) CT_CDIV_VEC_L(S, CT, f32, float, vf32, vu32, 8)
#define CT_COMPLEX_DIV_f64(S, CT) CT_CDIV_VEC_L(S, CT, f64, double, vf64, vu64, 4)
#endif
#else
#define CT_COMPLEX_DIV(S, CT, RS)                                                                  \
    static CT_KLOOP_SIG(fast_div_##S) { return gen_div_##S(out, a, b, so, sa, sb, n, alpha); }
#endif

CT_COMPLEX_LOOPS(c64, ct_complex64, f32)
CT_COMPLEX_LOOPS(c128, ct_complex128, f64)

/* ---- fused float16 / bfloat16 loops (binary_elem_impl.h) ---------------------------------
 * The chunked path converts a chunk of each input to float32 in a stack buffer, runs the
 * float32 loop and converts the results back, with the dtype layer's conversion loops. Here
 * the same three steps happen in registers, with the same instructions lane by lane:
 * vcvtph2ps (exact, quietens NaNs as the dtype layer does) or a 16-bit left shift (bfloat16
 * widening is exact); vaddps / vmulps / vfmadd (add with alpha is fma(alpha, b, a)); and
 * vcvtps2ph in round-to-nearest-even with NaNs made the canonical 0x7E00 | sign, or
 * bfloat16's integer round-to-nearest-even with NaN -> 0xFFFF (Note [bfloat16 NaN]),
 * exactly the dtype layer's float32 -> float16 / bfloat16 loops (dtype/convert/loops.c). */
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__F16C__)
#define CT_HAVE_FUSED 1
#define CT_HL 16 /* float32 lanes per vector */
typedef __m512 ct_hv;
typedef __m256i ct_hh; /* CT_HL 16-bit values */
#define CT_H_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define CT_H_SPLAT(h) _mm256_set1_epi16((short)(h))
#define CT_V_SET1(x) _mm512_set1_ps(x)
#define CT_V_ADD(x, y) _mm512_add_ps(x, y)
#define CT_V_MUL(x, y) _mm512_mul_ps(x, y)
#define CT_V_FMA(al, y, x) _mm512_fmadd_ps(al, y, x)
CT_KINLINE ct_hv widen_f16(ct_hh h) { return _mm512_cvtph_ps(h); }
CT_KINLINE ct_hv widen_bf16(ct_hh h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
CT_KINLINE ct_hh narrow_f16(ct_hv v) {
    ct_hh h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    /* vcvtps2ph keeps NaN payload bits; only NaN lanes give NaN, so test the float32 */
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm256_mask_blend_epi16(nan, h, _mm256_and_si256(h, _mm256_set1_epi16((short)0xFE00)));
}
CT_KINLINE ct_hh narrow_bf16(ct_hv v) {
    __m512i b = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7FFF)), lsb);
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_set1_epi32(-1));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)); /* values <= 0xFFFF: exact */
}
/* two results (2 * CT_HL values) at p */
CT_KINLINE void store2(uint16_t *p, ct_hh r0, ct_hh r1, bool stream) {
    __m512i r = _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
    if (stream)
        _mm512_stream_si512((void *)p, r);
    else
        _mm512_storeu_si512((void *)p, r);
}
#elif defined(__AVX2__) && defined(__F16C__) && defined(__FMA__)
#define CT_HAVE_FUSED 1
#define CT_HL 8
typedef __m256 ct_hv;
typedef __m128i ct_hh;
#define CT_H_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define CT_H_SPLAT(h) _mm_set1_epi16((short)(h))
#define CT_V_SET1(x) _mm256_set1_ps(x)
#define CT_V_ADD(x, y) _mm256_add_ps(x, y)
#define CT_V_MUL(x, y) _mm256_mul_ps(x, y)
#define CT_V_FMA(al, y, x) _mm256_fmadd_ps(al, y, x)
CT_KINLINE ct_hv widen_f16(ct_hh h) { return _mm256_cvtph_ps(h); }
CT_KINLINE ct_hv widen_bf16(ct_hh h) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
CT_KINLINE ct_hh narrow_f16(ct_hv v) {
    ct_hh h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    /* canonical NaN: clear the payload bits below the quiet bit of NaN lanes */
    __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7FFF));
    __m128i nan = _mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7C00));
    return _mm_andnot_si128(_mm_and_si128(nan, _mm_set1_epi16(0x01FF)), h);
}
CT_KINLINE ct_hh narrow_bf16(ct_hv v) {
    __m256i b = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7FFF)), lsb);
    r = _mm256_srli_epi32(r, 16);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_or_si256(r, _mm256_srli_epi32(nan, 16));
    /* lanes are <= 0xFFFF, so the unsigned-saturating pack is exact */
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}
CT_KINLINE void store2(uint16_t *p, ct_hh r0, ct_hh r1, bool stream) {
    __m256i r = _mm256_inserti128_si256(_mm256_castsi128_si256(r0), r1, 1);
    if (stream)
        _mm256_stream_si256((__m256i *)(void *)p, r);
    else
        _mm256_storeu_si256((__m256i *)(void *)p, r);
}
#endif

#if defined(CT_HAVE_FUSED)
#define CT_FOP_ADD(x, y) CT_V_ADD(x, y)
#define CT_FOP_ADDA(x, y) CT_V_FMA(val, y, x)
#define CT_FOP_MUL(x, y) CT_V_MUL(x, y)
/* A broadcast input is widened once into a splat vector; two vectors per step. */
#define CT_FUSED_LOOP(NAME, S, FOP)                                                                \
    static int64_t NAME(uint16_t *out, const uint16_t *a, const uint16_t *b, bool a_bcast,         \
                        bool b_bcast, int64_t n, float alpha, bool stream) {                       \
        const ct_hv val = CT_V_SET1(alpha);                                                        \
        (void)val;                                                                                 \
        if (n < 2 * CT_HL)                                                                         \
            return 0; /* nothing to read: a broadcast input may not even exist */                  \
        const ct_hv va = widen_##S(CT_H_SPLAT(a[0])), vb = widen_##S(CT_H_SPLAT(b[0]));            \
        int64_t i = 0;                                                                             \
        for (; i + 2 * CT_HL <= n; i += 2 * CT_HL) {                                               \
            ct_hv x0 = a_bcast ? va : widen_##S(CT_H_LOAD(a + i));                                 \
            ct_hv x1 = a_bcast ? va : widen_##S(CT_H_LOAD(a + i + CT_HL));                         \
            ct_hv y0 = b_bcast ? vb : widen_##S(CT_H_LOAD(b + i));                                 \
            ct_hv y1 = b_bcast ? vb : widen_##S(CT_H_LOAD(b + i + CT_HL));                         \
            store2(out + i, narrow_##S(FOP(x0, y0)), narrow_##S(FOP(x1, y1)), stream);             \
        }                                                                                          \
        if (stream)                                                                                \
            _mm_sfence(); /* order the streaming stores before whatever follows */                 \
        return i;                                                                                  \
    }
CT_FUSED_LOOP(fused_add1_f16, f16, CT_FOP_ADD)
CT_FUSED_LOOP(fused_adda_f16, f16, CT_FOP_ADDA)
CT_FUSED_LOOP(fused_mul_f16, f16, CT_FOP_MUL)
CT_FUSED_LOOP(fused_add1_bf16, bf16, CT_FOP_ADD)
CT_FUSED_LOOP(fused_adda_bf16, bf16, CT_FOP_ADDA)
CT_FUSED_LOOP(fused_mul_bf16, bf16, CT_FOP_MUL)
const ct_binary_fused_table CT_CAT(ct_binary_fused, CT_ISA_SUFFIX) = {
    [CT_FUSED_ADD] = {[CT_FUSED_F16] = fused_add1_f16, [CT_FUSED_BF16] = fused_add1_bf16},
    [CT_FUSED_ADD_ALPHA] = {[CT_FUSED_F16] = fused_adda_f16, [CT_FUSED_BF16] = fused_adda_bf16},
    [CT_FUSED_MUL] = {[CT_FUSED_F16] = fused_mul_f16, [CT_FUSED_BF16] = fused_mul_bf16},
};
#else
/* no F16C at this level: the chunked path only */
const ct_binary_fused_table CT_CAT(ct_binary_fused, CT_ISA_SUFFIX) = {{NULL, NULL}};
#endif

/* maximum minimum fmax fmin: the strided loops, compiled at this level */
#define CT_FAST_MM_LOOPS(E, S, T, K, F) CT_KLOOPS_MM_##K(fast, S, T)
CT_KMATH_ROWS(CT_FAST_MM_LOOPS)
#undef CT_FAST_MM_LOOPS

/* ---- pow remainder fmod atan2 hypot, bitwise ops and shifts ------------------------------
 * The generic strided loops, and typed loops for the fast cases (plain indexing, which GCC
 * vectorizes where the element function allows: the shifts, integer pow); the bitwise ops
 * are explicit vectors (unsigned lanes of the same width: the same bits). */
#define CT_GEN_EXT_LOOPS(E, S, T, K, F) CT_KLOOPS_EXT_##S(gen, S, T)
CT_KMATH_ROWS(CT_GEN_EXT_LOOPS)
#undef CT_GEN_EXT_LOOPS

#define CT_VAND(x, y) ((x) & (y))
#define CT_VOR(x, y) ((x) | (y))
#define CT_VXOR(x, y) ((x) ^ (y))
#define CT_FAST_EXT_BITS(S, T, VT)                                                                 \
    CT_FAST_LOOP(fast_band_##S, T, VT, CT_NOTHING, CT_VAND, ct_kband_##S, gen_band_##S)            \
    CT_FAST_LOOP(fast_bor_##S, T, VT, CT_NOTHING, CT_VOR, ct_kbor_##S, gen_bor_##S)                \
    CT_FAST_LOOP(fast_bxor_##S, T, VT, CT_NOTHING, CT_VXOR, ct_kbxor_##S, gen_bxor_##S)
#define CT_FAST_EXT_INT(S, T, VT)                                                                  \
    CT_FAST_EXT_BITS(S, T, VT)                                                                     \
    CT_TYPED_LOOP(fast_lsh_##S, T, CT_NOTHING, ct_klshift_##S, gen_lsh_##S)                        \
    CT_TYPED_LOOP(fast_rsh_##S, T, CT_NOTHING, ct_krshift_##S, gen_rsh_##S)                        \
    CT_TYPED_LOOP(fast_pow_##S, T, CT_NOTHING, ct_kpow_##S, gen_pow_##S)                           \
    CT_IDIV_LOOP(fast_rem_##S, T, ct_krem_##S, gen_rem_##S)                                        \
    CT_IDIV_LOOP(fast_fmod_##S, T, ct_kfmod_##S, gen_fmod_##S)
#define CT_FAST_EXT_FLOAT(S, T)                                                                    \
    CT_TYPED_LOOP(fast_pows_##S, T, CT_NOTHING, ct_kpows_##S, gen_pows_##S)                        \
    CT_TYPED_LOOP(fast_rem_##S, T, CT_NOTHING, ct_krem_##S, gen_rem_##S)                           \
    CT_TYPED_LOOP(fast_fmod_##S, T, CT_NOTHING, ct_kfmod_##S, gen_fmod_##S)                        \
    CT_TYPED_LOOP(fast_atan2_##S, T, CT_NOTHING, ct_katan2_##S, gen_atan2_##S)                     \
    CT_TYPED_LOOP(fast_hypot_##S, T, CT_NOTHING, ct_khypot_##S, gen_hypot_##S)
#define CT_FAST_EXT_COMPLEX(S, T)                                                                  \
    CT_TYPED_LOOP_A(fast_pow_##S, T, CT_NOTHING, ct_kpow_##S, gen_pow_##S, CT_NO_VEC)              \
    CT_TYPED_LOOP_A(fast_pows_##S, T, CT_NOTHING, ct_kpows_##S, gen_pows_##S, CT_NO_VEC)

#define CT_VB_AND(x, y) ((vu8)(((x) != 0) & ((y) != 0)) & 1)
#define CT_VB_OR(x, y) ((vu8)(((x) != 0) | ((y) != 0)) & 1)
#define CT_VB_XOR(x, y) ((vu8)(((x) != 0) ^ ((y) != 0)) & 1)
CT_FAST_LOOP(fast_band_b8, uint8_t, vu8, CT_NOTHING, CT_VB_AND, ct_kband_b8, gen_band_b8)
CT_FAST_LOOP(fast_bor_b8, uint8_t, vu8, CT_NOTHING, CT_VB_OR, ct_kbor_b8, gen_bor_b8)
CT_FAST_LOOP(fast_bxor_b8, uint8_t, vu8, CT_NOTHING, CT_VB_XOR, ct_kbxor_b8, gen_bxor_b8)
CT_FAST_EXT_INT(u8, uint8_t, vu8)
CT_FAST_EXT_INT(i8, int8_t, vu8)
CT_FAST_EXT_INT(i16, int16_t, vu16)
CT_FAST_EXT_INT(i32, int32_t, vu32)
CT_FAST_EXT_INT(i64, int64_t, vu64)
CT_FAST_EXT_FLOAT(f32, float)
CT_FAST_EXT_FLOAT(f64, double)
CT_FAST_EXT_COMPLEX(c64, ct_complex64)
CT_FAST_EXT_COMPLEX(c128, ct_complex128)

/* pow of float32 and float64 tensors: SLEEF's 1.0-ulp vector pow at the AVX2 and AVX-512
 * levels (the functions PyTorch's vectorized CPU pow calls), not a scalar pow per element;
 * so these levels' pow may differ from the reference (scalar powf / pow) by an ulp, where
 * every other loop here gives the same bytes. The tail goes through the vector function in
 * a padded block so that every element of a tensor is computed the same way. */
#if defined(__AVX512F__) || defined(__AVX2__)
#include <sleef.h>
#if defined(__AVX512F__)
#define CT_SPOW_F32(x, y) Sleef_powf16_u10avx512f((x), (y))
#define CT_SPOW_F64(x, y) Sleef_powd8_u10avx512f((x), (y))
#define CT_SPOW_VF32 __m512
#define CT_SPOW_VF64 __m512d
#define CT_SPOW_LD_f32 _mm512_loadu_ps
#define CT_SPOW_LD_f64 _mm512_loadu_pd
#define CT_SPOW_ST_f32 _mm512_storeu_ps
#define CT_SPOW_ST_f64 _mm512_storeu_pd
#define CT_SPOW_SET_f32 _mm512_set1_ps
#define CT_SPOW_SET_f64 _mm512_set1_pd
#define CT_SPOW_BYTES 64
#else
#define CT_SPOW_F32(x, y) Sleef_powf8_u10avx2((x), (y))
#define CT_SPOW_F64(x, y) Sleef_powd4_u10avx2((x), (y))
#define CT_SPOW_VF32 __m256
#define CT_SPOW_VF64 __m256d
#define CT_SPOW_LD_f32 _mm256_loadu_ps
#define CT_SPOW_LD_f64 _mm256_loadu_pd
#define CT_SPOW_ST_f32 _mm256_storeu_ps
#define CT_SPOW_ST_f64 _mm256_storeu_pd
#define CT_SPOW_SET_f32 _mm256_set1_ps
#define CT_SPOW_SET_f64 _mm256_set1_pd
#define CT_SPOW_BYTES 32
#endif
#define CT_SLEEF_POW_LOOP(S, T, VT, VPOW)                                                          \
    static CT_KLOOP_SIG(fast_pow_##S) {                                                            \
        if (!CT_FAST_OK(T))                                                                        \
            return gen_pow_##S(out, a, b, so, sa, sb, n, alpha);                                   \
        enum { W = CT_SPOW_BYTES / sizeof(T) };                                                    \
        T *o = (T *)(void *)out;                                                                   \
        const T *x = (const T *)(const void *)a, *y = (const T *)(const void *)b;                  \
        const VT x0 = CT_SPOW_SET_##S(x[0]), y0 = CT_SPOW_SET_##S(y[0]);                           \
        int64_t i = 0;                                                                             \
        for (; i + W <= n; i += W) {                                                               \
            VT vx = sa != 0 ? CT_SPOW_LD_##S(x + i) : x0;                                          \
            VT vy = sb != 0 ? CT_SPOW_LD_##S(y + i) : y0;                                          \
            CT_SPOW_ST_##S(o + i, VPOW(vx, vy));                                                   \
        }                                                                                          \
        if (i < n) {                                                                               \
            T bx[W], by[W], bo[W];                                                                 \
            for (int k = 0; k < W; k++) {                                                          \
                bx[k] = i + k < n && sa != 0 ? x[i + k] : x[0];                                    \
                by[k] = i + k < n && sb != 0 ? y[i + k] : y[0];                                    \
            }                                                                                      \
            CT_SPOW_ST_##S(bo, VPOW(CT_SPOW_LD_##S(bx), CT_SPOW_LD_##S(by)));                      \
            memcpy(o + i, bo, (size_t)(n - i) * sizeof(T));                                        \
        }                                                                                          \
        return CT_KERNEL_OK;                                                                       \
    }
CT_SLEEF_POW_LOOP(f32, float, CT_SPOW_VF32, CT_SPOW_F32)
CT_SLEEF_POW_LOOP(f64, double, CT_SPOW_VF64, CT_SPOW_F64)
#else
CT_TYPED_LOOP(fast_pow_f32, float, CT_NOTHING, ct_kpow_f32, gen_pow_f32)
CT_TYPED_LOOP(fast_pow_f64, double, CT_NOTHING, ct_kpow_f64, gen_pow_f64)
#endif

/* ---- the table ------------------------------------------------------------------------------ */
#define CT_FAST_ENTRIES(E, S, T, K, F)                                                             \
    CT_KENTRIES_##K(fast, E, S) CT_KENTRIES_MM_##K(fast, E, S) CT_KENTRIES_EXT_##S(fast, E, S)
const ct_binary_loop_table CT_CAT(ct_binary_loops,
                                  CT_ISA_SUFFIX) = {CT_KMATH_ROWS(CT_FAST_ENTRIES)};
#undef CT_FAST_ENTRIES
