/* The math loops of one instruction-set level.
 *
 * This file is compiled once per level (CMakeLists.txt, CT_ISA_SOURCES) with
 * CT_ISA_SUFFIX = _baseline, _avx2 or _avx512 and the matching -march; each copy defines
 * its own table and binary_kernel.c picks one at run time. Every loop must give the same
 * bytes as the reference (binary_reference.c): the scalar parts call the same element
 * functions (binary_elem_impl.h), and the vector parts only use operations that round the
 * same way lane by lane (+, -, *, / and fused multiply-add for add with alpha).
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
#define CT_VFMA_f32(x, y) ((vf32)_mm512_fmadd_ps((__m512)val, (__m512)(y), (__m512)(x)))
#define CT_VFMA_f64(x, y) ((vf64)_mm512_fmadd_pd((__m512d)val, (__m512d)(y), (__m512d)(x)))
#elif defined(CT_HAVE_VFMA) && CT_VBYTES == 32
#define CT_VFMA_f32(x, y) ((vf32)_mm256_fmadd_ps((__m256)val, (__m256)(y), (__m256)(x)))
#define CT_VFMA_f64(x, y) ((vf64)_mm256_fmadd_pd((__m256d)val, (__m256d)(y), (__m256d)(x)))
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
 * a + b with both contiguous is a real add over twice the elements. The other loops are not
 * vectorized: GCC 12 recognizes (ac - bd, ad + bc) as a complex product and emits
 * vfmaddsub, a fused operation that rounds differently from PyTorch's and the reference's,
 * even with contraction off. */
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
    CT_TYPED_LOOP_A(fast_div_##S, CT, CT_NOTHING, ct_kdiv_##S, gen_div_##S, CT_NO_VEC)

CT_COMPLEX_LOOPS(c64, ct_complex64, f32)
CT_COMPLEX_LOOPS(c128, ct_complex128, f64)

/* ---- the table ------------------------------------------------------------------------------ */
#define CT_FAST_ENTRIES(E, S, T, K, F) CT_KENTRIES_##K(fast, E, S)
const ct_binary_loop_table CT_CAT(ct_binary_loops,
                                  CT_ISA_SUFFIX) = {CT_KMATH_ROWS(CT_FAST_ENTRIES)};
#undef CT_FAST_ENTRIES
