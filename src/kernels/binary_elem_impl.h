/* One element of each (op, math dtype): the semantics every loop shares.
 *
 * binary_reference.c stamps its obvious loops from these, and binary_loops.c (compiled per
 * ISA level) uses the same functions in its scalar tails and strided fallbacks, so every
 * level agrees with the reference bit for bit. Floating-point code here must stay free of
 * contraction: the project builds with -std=c11, where GCC does not fuse a*b+c on its own;
 * the one fused operation (add with alpha) is spelled fma() explicitly, as PyTorch's
 * vectorized add (Vectorized::fmadd) computes it. */
#ifndef CT_KERNELS_BINARY_ELEM_IMPL_H
#define CT_KERNELS_BINARY_ELEM_IMPL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctensor/convert.h"
#include "kernels/binary.h"

#if defined(__clang__)
/* clang contracts a*b+c within an expression by default, even in ISO C mode */
#pragma STDC FP_CONTRACT OFF
#endif

#define CT_KINLINE static inline __attribute__((always_inline))

/* The math dtypes: X(ENUM, suffix, C type, kind, ct_kernel_value field). Kinds: B (bool),
 * S (signed integer), U (unsigned integer), F (real float), C (complex). */
#define CT_KMATH_ROWS(X)                                                                           \
    X(BOOL, b8, uint8_t, B, u8)                                                                    \
    X(UINT8, u8, uint8_t, U, u8)                                                                   \
    X(INT8, i8, int8_t, S, i8)                                                                     \
    X(UINT16, u16, uint16_t, U, u16)                                                               \
    X(INT16, i16, int16_t, S, i16)                                                                 \
    X(UINT32, u32, uint32_t, U, u32)                                                               \
    X(INT32, i32, int32_t, S, i32)                                                                 \
    X(UINT64, u64, uint64_t, U, u64)                                                               \
    X(INT64, i64, int64_t, S, i64)                                                                 \
    X(FLOAT32, f32, float, F, f32)                                                                 \
    X(FLOAT64, f64, double, F, f64)                                                                \
    X(COMPLEX64, c64, ct_complex64, C, c64)                                                        \
    X(COMPLEX128, c128, ct_complex128, C, c128)

/* ---- bool: bytes read as != 0, written as 0/1 ------------------------------------------- */
CT_KINLINE uint8_t ct_kadd_b8(uint8_t a, uint8_t b, uint8_t alpha) {
    return (uint8_t)((a != 0) | ((alpha != 0) & (b != 0)));
}
CT_KINLINE uint8_t ct_kmul_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }

/* ---- integers: add and mul wrap (computed unsigned, at least 32 bits wide so that no
 * promotion to int can overflow); division by -1 negates with wrap-around, which gives
 * INT_MIN / -1 == INT_MIN instead of a trap. The callers check b != 0 first. ---- */
#define CT_KINT_COMMON(S, T, W)                                                                    \
    CT_KINLINE T ct_kadd_##S(T a, T b, T alpha) { return (T)((W)a + (W)alpha * (W)b); }            \
    CT_KINLINE T ct_kadd1_##S(T a, T b) { return (T)((W)a + (W)b); }                               \
    CT_KINLINE T ct_kmul_##S(T a, T b) { return (T)((W)a * (W)b); }

#define CT_KINT_SIGNED(S, T, W)                                                                    \
    CT_KINT_COMMON(S, T, W)                                                                        \
    CT_KINLINE T ct_kdivt_##S(T a, T b) {                                                          \
        if (b == -1)                                                                               \
            return (T)((W)0 - (W)a);                                                               \
        return (T)(a / b);                                                                         \
    }                                                                                              \
    CT_KINLINE T ct_kdivf_##S(T a, T b) {                                                          \
        if (b == -1)                                                                               \
            return (T)((W)0 - (W)a);                                                               \
        T q = (T)(a / b), r = (T)(a % b);                                                          \
        /* truncation rounded towards zero; floor needs one less when the signs differ */          \
        if (r != 0 && ((r < 0) != (b < 0)))                                                        \
            q = (T)(q - 1);                                                                        \
        return q;                                                                                  \
    }

#define CT_KINT_UNSIGNED(S, T, W)                                                                  \
    CT_KINT_COMMON(S, T, W)                                                                        \
    CT_KINLINE T ct_kdivt_##S(T a, T b) { return (T)(a / b); }                                     \
    CT_KINLINE T ct_kdivf_##S(T a, T b) { return (T)(a / b); }

CT_KINT_UNSIGNED(u8, uint8_t, uint32_t)
CT_KINT_SIGNED(i8, int8_t, uint32_t)
CT_KINT_UNSIGNED(u16, uint16_t, uint32_t)
CT_KINT_SIGNED(i16, int16_t, uint32_t)
CT_KINT_UNSIGNED(u32, uint32_t, uint32_t)
CT_KINT_SIGNED(i32, int32_t, uint32_t)
CT_KINT_UNSIGNED(u64, uint64_t, uint64_t)
CT_KINT_SIGNED(i64, int64_t, uint64_t)

/* ---- real floats ------------------------------------------------------------------------- */
#define CT_KFLOAT(S, T, FMA, TRUNC, FMOD, FLOOR, COPYSIGN)                                         \
    CT_KINLINE T ct_kadd1_##S(T a, T b) { return a + b; }                                          \
    CT_KINLINE T ct_kadd_##S(T a, T b, T alpha) { return FMA(alpha, b, a); }                       \
    CT_KINLINE T ct_kmul_##S(T a, T b) { return a * b; }                                           \
    CT_KINLINE T ct_kdiv_##S(T a, T b) { return a / b; }                                           \
    CT_KINLINE T ct_kdivt_##S(T a, T b) { return TRUNC(a / b); }                                   \
    /* PyTorch's div_floor_floating (Python's //): exact via fmod, then the quotient of the        \
     * exact multiple is rounded to the nearest integer, keeping the sign of a zero */             \
    CT_KINLINE T ct_kdivf_##S(T a, T b) {                                                          \
        if (b == 0)                                                                                \
            return a / b;                                                                          \
        T mod = FMOD(a, b);                                                                        \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                                    \
            div -= (T)1;                                                                           \
        if (div == 0)                                                                              \
            return COPYSIGN((T)0, a / b);                                                          \
        T q = FLOOR(div);                                                                          \
        if (div - q > (T)0.5)                                                                      \
            q += (T)1;                                                                             \
        return q;                                                                                  \
    }

CT_KFLOAT(f32, float, fmaf, truncf, fmodf, floorf, copysignf)
CT_KFLOAT(f64, double, fma, trunc, fmod, floor, copysign)

/* ---- complex: PyTorch's c10::complex arithmetic ------------------------------------------ */
#define CT_KCOMPLEX(S, CT, T, FABS)                                                                \
    CT_KINLINE CT ct_kadd1_##S(CT a, CT b) {                                                       \
        CT r = {a.re + b.re, a.im + b.im};                                                         \
        return r;                                                                                  \
    }                                                                                              \
    CT_KINLINE CT ct_kmul_##S(CT a, CT b) {                                                        \
        CT r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};                             \
        return r;                                                                                  \
    }                                                                                              \
    /* a + alpha * b with a full complex product (no shortcut for a real alpha: PyTorch's          \
     * complex fmadd multiplies out, so 0 * inf parts give NaN there too) */                       \
    CT_KINLINE CT ct_kadd_##S(CT a, CT b, CT alpha) {                                              \
        return ct_kadd1_##S(a, ct_kmul_##S(alpha, b));                                             \
    }                                                                                              \
    /* c10::complex operator/ (NumPy's algorithm): scale by the larger of |c|, |d| so that         \
     * c*c + d*d never overflows */                                                                \
    CT_KINLINE CT ct_kdiv_##S(CT x, CT y) {                                                        \
        T a = x.re, b = x.im, c = y.re, d = y.im;                                                  \
        T abs_c = FABS(c), abs_d = FABS(d);                                                        \
        CT r;                                                                                      \
        if (abs_c >= abs_d) {                                                                      \
            if (abs_c == 0 && abs_d == 0) {                                                        \
                r.re = a / abs_c;                                                                  \
                r.im = b / abs_d;                                                                  \
            } else {                                                                               \
                T rat = d / c;                                                                     \
                T scl = (T)1 / (c + d * rat);                                                      \
                r.re = (a + b * rat) * scl;                                                        \
                r.im = (b - a * rat) * scl;                                                        \
            }                                                                                      \
        } else {                                                                                   \
            T rat = c / d;                                                                         \
            T scl = (T)1 / (d + c * rat);                                                          \
            r.re = (a * rat + b) * scl;                                                            \
            r.im = (b * rat - a) * scl;                                                            \
        }                                                                                          \
        return r;                                                                                  \
    }

CT_KCOMPLEX(c64, ct_complex64, float, fabsf)
CT_KCOMPLEX(c128, ct_complex128, double, fabs)

/* ---- strided loops stamped from the element functions ------------------------------------
 * CT_KLOOP_SIG is the ct_binary_math_loop signature. Elements go through memcpy: strided
 * operands need not be aligned to their type. */
#define CT_KLOOP_SIG(NAME)                                                                         \
    int NAME(char *out, const char *a, const char *b, int64_t so, int64_t sa, int64_t sb,          \
             int64_t n, const ct_kernel_value *alpha)

/* BODY computes r from x and y (and al, for ADD); it may return an error code. */
#define CT_KLOOP_STRIDED(NAME, T, BODY)                                                            \
    static CT_KLOOP_SIG(NAME) {                                                                    \
        (void)alpha;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x, y, r;                                                                             \
            memcpy(&x, a + i * sa, sizeof x);                                                      \
            memcpy(&y, b + i * sb, sizeof y);                                                      \
            BODY;                                                                                  \
            memcpy(out + i * so, &r, sizeof r);                                                    \
        }                                                                                          \
        return CT_KERNEL_OK;                                                                       \
    }

/* The generic loops of one math dtype, named PREFIX_<op>_<suffix>. */
#define CT_KLOOPS_ADD_MUL(P, S, T, F)                                                              \
    CT_KLOOP_STRIDED(P##_add1_##S, T, r = ct_kadd1_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_adda_##S, T, r = ct_kadd_##S(x, y, alpha->F))                             \
    static CT_KLOOP_SIG(P##_add_##S) {                                                             \
        if (alpha == NULL)                                                                         \
            return P##_add1_##S(out, a, b, so, sa, sb, n, alpha);                                  \
        return P##_adda_##S(out, a, b, so, sa, sb, n, alpha);                                      \
    }                                                                                              \
    CT_KLOOP_STRIDED(P##_mul_##S, T, r = ct_kmul_##S(x, y))

#define CT_KLOOPS_B(P, S, T, F)                                                                    \
    CT_KLOOP_STRIDED(P##_add_##S, T, r = ct_kadd_##S(x, y, alpha ? alpha->F : 1))                  \
    CT_KLOOP_STRIDED(P##_mul_##S, T, r = ct_kmul_##S(x, y))

#define CT_KLOOPS_INT(P, S, T, F)                                                                  \
    CT_KLOOPS_ADD_MUL(P, S, T, F)                                                                  \
    CT_KLOOP_STRIDED(P##_divt_##S, T, if (y == 0) return CT_KERNEL_ZERO_DIVISION;                  \
                     r = ct_kdivt_##S(x, y))                                                       \
    CT_KLOOP_STRIDED(P##_divf_##S, T, if (y == 0) return CT_KERNEL_ZERO_DIVISION;                  \
                     r = ct_kdivf_##S(x, y))
#define CT_KLOOPS_S CT_KLOOPS_INT
#define CT_KLOOPS_U CT_KLOOPS_INT

#define CT_KLOOPS_F(P, S, T, F)                                                                    \
    CT_KLOOPS_ADD_MUL(P, S, T, F)                                                                  \
    CT_KLOOP_STRIDED(P##_div_##S, T, r = ct_kdiv_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_divt_##S, T, r = ct_kdivt_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_divf_##S, T, r = ct_kdivf_##S(x, y))

#define CT_KLOOPS_C(P, S, T, F)                                                                    \
    CT_KLOOP_STRIDED(P##_add1_##S, T, r = ct_kadd1_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_adda_##S, T, {                                                            \
        T al_;                                                                                     \
        memcpy(&al_, alpha->F, sizeof al_);                                                        \
        r = ct_kadd_##S(x, y, al_);                                                                \
    })                                                                                             \
    static CT_KLOOP_SIG(P##_add_##S) {                                                             \
        if (alpha == NULL)                                                                         \
            return P##_add1_##S(out, a, b, so, sa, sb, n, alpha);                                  \
        return P##_adda_##S(out, a, b, so, sa, sb, n, alpha);                                      \
    }                                                                                              \
    CT_KLOOP_STRIDED(P##_mul_##S, T, r = ct_kmul_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_div_##S, T, r = ct_kdiv_##S(x, y))

/* Table entries [op][math dtype] for the loops stamped with prefix P. */
#define CT_KENTRIES_B(P, E, S)                                                                     \
    [CT_BINOP_ADD][CT_##E] = P##_add_##S, [CT_BINOP_MUL][CT_##E] = P##_mul_##S,
#define CT_KENTRIES_INT(P, E, S)                                                                   \
    CT_KENTRIES_B(P, E, S)                                                                         \
    [CT_BINOP_DIV_TRUNC][CT_##E] = P##_divt_##S, [CT_BINOP_DIV_FLOOR][CT_##E] = P##_divf_##S,
#define CT_KENTRIES_S CT_KENTRIES_INT
#define CT_KENTRIES_U CT_KENTRIES_INT
#define CT_KENTRIES_F(P, E, S) CT_KENTRIES_INT(P, E, S)[CT_BINOP_DIV][CT_##E] = P##_div_##S,
#define CT_KENTRIES_C(P, E, S) CT_KENTRIES_B(P, E, S)[CT_BINOP_DIV][CT_##E] = P##_div_##S,

/* [op][math dtype] -> loop; NULL where the op has no loop. */
typedef ct_binary_math_loop ct_binary_loop_table[CT_NUM_BINOPS][CT_NUM_DTYPES];

extern const ct_binary_loop_table ct_binary_loops_reference;
extern const ct_binary_loop_table ct_binary_loops_baseline;
extern const ct_binary_loop_table ct_binary_loops_avx2;
extern const ct_binary_loop_table ct_binary_loops_avx512;

/* Fused float16 / bfloat16 loops (binary_loops.c, AVX2 and AVX-512 levels; the baseline
 * table is empty): out = a op b with all three operands in the 16-bit dtype, widened to
 * float32 in registers, computed there and rounded once, bit for bit what the chunked path
 * of ct_binary_impl_kernel_run gives (the dtype layer's conversions and the float32 math loop).
 * out is contiguous; a and b are contiguous or, when a_bcast / b_bcast, one element read
 * once. alpha (float32) is used by the ADD_ALPHA entry only. The loop does the longest
 * prefix that is a whole number of its vectors (at most 32 elements) and returns its
 * length; the caller finishes the rest through the chunked path. With `stream` the stores
 * are streaming (out must then be 64-byte aligned), fenced before returning. */
typedef int64_t (*ct_binary_fused_loop)(uint16_t *out, const uint16_t *a, const uint16_t *b,
                                        bool a_bcast, bool b_bcast, int64_t n, float alpha,
                                        bool stream);
enum { CT_FUSED_ADD = 0, CT_FUSED_ADD_ALPHA = 1, CT_FUSED_MUL = 2, CT_NUM_FUSED = 3 };
enum { CT_FUSED_F16 = 0, CT_FUSED_BF16 = 1 };
typedef ct_binary_fused_loop ct_binary_fused_table[CT_NUM_FUSED][2];

extern const ct_binary_fused_table ct_binary_fused_baseline;
extern const ct_binary_fused_table ct_binary_fused_avx2;
extern const ct_binary_fused_table ct_binary_fused_avx512;

#endif /* CT_KERNELS_BINARY_ELEM_IMPL_H */
