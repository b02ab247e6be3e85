/* One element of each ternary op (ternary.def) in each math dtype: the semantics every loop
 * shares. Note [One definition per element] (binary_elem.h) applies: CT_HD functions, plain C
 * that is also C++, so a CUDA backend can include this header for its ternary kernels.
 *
 * Every function takes three inputs and the op's `value` (addcmul, addcdiv) in the math
 * dtype; the two-input ops (clamp_min, clamp_max) and where ignore what they do not use.
 * float16 and bfloat16 compute in float32 and round once (the kernel widens and narrows).
 * The fused steps are those PyTorch's CPU kernels compile to (measured against torch 1.13:
 * bit-identical on float32 and float64): addcmul is fma(value * t1, t2, self), lerp is one
 * fma per branch, addcdiv is self + (value * t1) / t2 unfused. */
#ifndef CT_KERNELS_TERNARY_ELEM_H
#define CT_KERNELS_TERNARY_ELEM_H

#include <math.h>
#include <stdint.h>

#include "kernels/binary_elem.h" /* CT_HD, ct_complex64/128 and their products */

/* ---- where: a select of bits, whatever the dtype (cond bytes read as != 0) ---------------- */
#define CT_TER_WHERE(S, T)                                                                         \
    CT_HD T ct_ter_where_##S(uint8_t c, T a, T b) { return c != 0 ? a : b; }
CT_TER_WHERE(w1, uint8_t)
CT_TER_WHERE(w2, uint16_t)
CT_TER_WHERE(w4, uint32_t)
CT_TER_WHERE(w8, uint64_t)
/* 16-byte elements (complex128) have no integer type: a pair of words */
typedef struct ct_ter_w16 {
    uint64_t lo, hi;
} ct_ter_w16;
CT_TER_WHERE(w16, ct_ter_w16)

/* ---- clamp: max(x, lo) then min(., hi), so lo > hi gives hi; a NaN bound gives NaN (a NaN x
 * stays NaN: both comparisons are false). A scalar NaN bound of clamp with only one bound is
 * an infinity by then (src/ops/ternary.c: PyTorch's one-bound kernels ignore it). For
 * integers and bool (0/1) there is no NaN test (NANTEST is CT_TER_NO_NAN). ---- */
#define CT_TER_IS_NAN(v) ((v) != (v))
#define CT_TER_NO_NAN(v) 0
#define CT_TER_CLAMP(S, T, NANTEST)                                                                \
    CT_HD T ct_ter_clamp_##S(T x, T lo, T hi) {                                                    \
        T t = x < lo ? lo : x;                                                                     \
        t = t > hi ? hi : t;                                                                       \
        t = NANTEST(lo) ? lo : t;                                                                  \
        return NANTEST(hi) ? hi : t;                                                               \
    }                                                                                              \
    CT_HD T ct_ter_clamp_min_##S(T x, T lo) {                                                      \
        T t = x < lo ? lo : x;                                                                     \
        return NANTEST(lo) ? lo : t;                                                               \
    }                                                                                              \
    CT_HD T ct_ter_clamp_max_##S(T x, T hi) {                                                      \
        T t = x > hi ? hi : x;                                                                     \
        return NANTEST(hi) ? hi : t;                                                               \
    }
CT_TER_CLAMP(u8, uint8_t, CT_TER_NO_NAN)
CT_TER_CLAMP(i8, int8_t, CT_TER_NO_NAN)
CT_TER_CLAMP(i16, int16_t, CT_TER_NO_NAN)
CT_TER_CLAMP(i32, int32_t, CT_TER_NO_NAN)
CT_TER_CLAMP(i64, int64_t, CT_TER_NO_NAN)
CT_TER_CLAMP(f32, float, CT_TER_IS_NAN)
CT_TER_CLAMP(f64, double, CT_TER_IS_NAN)

/* ---- addcmul on integers: wraps (computed unsigned, at least 32 bits wide) ---------------- */
#define CT_TER_INT(S, T, W)                                                                        \
    CT_HD T ct_ter_addcmul_##S(T s, T a, T b, T v) {                                               \
        return (T)((W)s + (W)v * (W)a * (W)b);                                                     \
    }
CT_TER_INT(u8, uint8_t, uint32_t)
CT_TER_INT(i8, int8_t, uint32_t)
CT_TER_INT(i16, int16_t, uint32_t)
CT_TER_INT(i32, int32_t, uint32_t)
CT_TER_INT(i64, int64_t, uint64_t)

/* ---- real floats -------------------------------------------------------------------------- */
#define CT_TER_FLOAT(S, T, FMA, FABS)                                                              \
    CT_HD T ct_ter_addcmul_##S(T s, T a, T b, T v) { return FMA(v * a, b, s); }                    \
    CT_HD T ct_ter_addcdiv_##S(T s, T a, T b, T v) { return s + (v * a) / b; }                     \
    /* PyTorch's lerp: the branch keeps the result exact at both ends (w 0 gives s, 1 gives e) */  \
    CT_HD T ct_ter_lerp_##S(T s, T e, T w) {                                                       \
        T d = e - s;                                                                               \
        return FABS(w) < (T)0.5 ? FMA(w, d, s) : FMA(-d, (T)1 - w, e);                             \
    }
CT_TER_FLOAT(f32, float, fmaf, fabsf)
CT_TER_FLOAT(f64, double, fma, fabs)

/* ---- complex: c10::complex arithmetic (binary_elem.h's products and quotient) -------------- */
#define CT_TER_COMPLEX(S, CT, T, HYPOT)                                                             \
    CT_HD CT ct_ter_sub_##S(CT a, CT b) {                                                          \
        CT r = {a.re - b.re, a.im - b.im};                                                         \
        return r;                                                                                  \
    }                                                                                              \
    CT_HD CT ct_ter_addcmul_##S(CT s, CT a, CT b, CT v) {                                          \
        return ct_kadd1_##S(s, ct_kmul_##S(ct_kmul_##S(v, a), b));                                 \
    }                                                                                              \
    CT_HD CT ct_ter_addcdiv_##S(CT s, CT a, CT b, CT v) {                                          \
        return ct_kadd1_##S(s, ct_kdiv_##S(ct_kmul_##S(v, a), b));                                 \
    }                                                                                              \
    CT_HD CT ct_ter_lerp_##S(CT s, CT e, CT w) {                                                   \
        CT d = ct_ter_sub_##S(e, s);                                                               \
        if (HYPOT(w.re, w.im) < (T)0.5) /* std::abs */                                              \
            return ct_kadd1_##S(s, ct_kmul_##S(w, d));                                             \
        CT one_w = {(T)1 - w.re, -w.im};                                                           \
        return ct_ter_sub_##S(e, ct_kmul_##S(d, one_w));                                           \
    }
CT_TER_COMPLEX(c64, ct_complex64, float, hypotf)
CT_TER_COMPLEX(c128, ct_complex128, double, hypot)

#endif /* CT_KERNELS_TERNARY_ELEM_H */
