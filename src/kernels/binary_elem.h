/* One element of each (op, math dtype): the semantics every loop shares, on the cpu and on
 * the GPU.
 *
 * Note [One definition per element]
 * This header compiles twice: as C11 for the cpu loops (binary_elem_impl.h stamps the
 * reference and every ISA level from it) and as CUDA C++ under nvcc for the device kernels
 * (src/cuda/kernels_binary.cu). CT_HD qualifies every function: `__host__ __device__
 * __forceinline__` under __CUDACC__, `static inline __attribute__((always_inline))` in C.
 * The recipe for a function to belong here: plain C that is also valid C++ (no compound
 * literals, no designated initialisers, no implicit void * conversions), only <math.h>
 * functions that CUDA provides for the device with IEEE results (fma, fmaf, trunc, fmod,
 * floor, copysign, fabs and their float forms), no contraction: C11 gcc does not fuse a*b+c
 * (clang is told below) and the .cu files are compiled with --fmad=false, so that the GPU
 * rounds every step exactly as the cpu does. The one fused operation (add with alpha) is
 * spelled fma() explicitly, as PyTorch's vectorized add (Vectorized::fmadd) computes it.
 * Element conversions follow the same recipe in src/dtype/convert/codec_impl.h. */
#ifndef CT_KERNELS_BINARY_ELEM_H
#define CT_KERNELS_BINARY_ELEM_H

#include <math.h>
#include <stdint.h>

#include "ctensor/convert.h" /* ct_complex64, ct_complex128 */
#include "dtype/convert/codec_impl.h"

#if defined(__clang__) && !defined(__CUDACC__)
/* clang contracts a*b+c within an expression by default, even in ISO C mode */
#pragma STDC FP_CONTRACT OFF
#endif

#if defined(__CUDACC__)
#define CT_HD __host__ __device__ __forceinline__
#elif !defined(CT_HD)
/* forced inline for the cpu loops; the host launch executors of the tests define it as plain
 * `static inline` (tests/CMakeLists.txt): forcing every element function into their big
 * switches made gcc take minutes per file, longer still under the sanitizers */
#define CT_HD static inline __attribute__((always_inline))
#endif

/* ---- bool: bytes read as != 0, written as 0/1 ------------------------------------------- */
CT_HD uint8_t ct_kadd_b8(uint8_t a, uint8_t b, uint8_t alpha) {
    return (uint8_t)((a != 0) | ((alpha != 0) & (b != 0)));
}
CT_HD uint8_t ct_kmul_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }

/* ---- integers: add and mul wrap (computed unsigned, at least 32 bits wide so that no
 * promotion to int can overflow); division by -1 negates with wrap-around, which gives
 * INT_MIN / -1 == INT_MIN instead of a trap. The callers check b != 0 first. ---- */
#define CT_KINT_COMMON(S, T, W)                                                                    \
    CT_HD T ct_kadd_##S(T a, T b, T alpha) { return (T)((W)a + (W)alpha * (W)b); }            \
    CT_HD T ct_kadd1_##S(T a, T b) { return (T)((W)a + (W)b); }                               \
    CT_HD T ct_kmul_##S(T a, T b) { return (T)((W)a * (W)b); }

#define CT_KINT_SIGNED(S, T, W)                                                                    \
    CT_KINT_COMMON(S, T, W)                                                                        \
    CT_HD T ct_kdivt_##S(T a, T b) {                                                          \
        if (b == -1)                                                                               \
            return (T)((W)0 - (W)a);                                                               \
        return (T)(a / b);                                                                         \
    }                                                                                              \
    CT_HD T ct_kdivf_##S(T a, T b) {                                                          \
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
    CT_HD T ct_kdivt_##S(T a, T b) { return (T)(a / b); }                                     \
    CT_HD T ct_kdivf_##S(T a, T b) { return (T)(a / b); }

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
    CT_HD T ct_kadd1_##S(T a, T b) { return a + b; }                                          \
    CT_HD T ct_kadd_##S(T a, T b, T alpha) { return FMA(alpha, b, a); }                       \
    CT_HD T ct_kmul_##S(T a, T b) { return a * b; }                                           \
    CT_HD T ct_kdiv_##S(T a, T b) { return a / b; }                                           \
    CT_HD T ct_kdivt_##S(T a, T b) { return TRUNC(a / b); }                                   \
    /* PyTorch's div_floor_floating (Python's //): exact via fmod, then the quotient of the        \
     * exact multiple is rounded to the nearest integer, keeping the sign of a zero */             \
    CT_HD T ct_kdivf_##S(T a, T b) {                                                          \
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

/* ---- complex: PyTorch's c10::complex arithmetic ------------------------------------------
 *
 * Note [Complex division]
 * Newest PyTorch divides complex numbers as NumPy does, by Smith's method (c10::complex
 * operator/): with |c| >= |d|, r = d/c and (a + bi) / (c + di) = ((a + b*r) + (b - a*r)i) /
 * (c + d*r), the roles of c and d swapped otherwise, and 0/0 divided part by part. Nothing
 * overflows before the result does: (1+2j) / (inf+0j) is 0, and parts up to the dtype's
 * maximum divide. Its cpu kernels (vectorised or not) and its CUDA kernel both run that
 * scalar code, built with a*b+c contracted to fma, so the three sums here are fma()s and the
 * results are theirs bit for bit (checked against torch 2.11 on cpu and cuda, special values
 * included). Torch 1.13's textbook formula gave NaN there and overflowed for parts beyond
 * ~1e19 (complex64). Complex reciprocal, rsqrt and sigmoid divide the same way
 * (unary_elem.h), and so does addcdiv (ternary_elem.h); binary_loops.c runs the same steps
 * on vectors (CT_COMPLEX_DIV). */
#define CT_KCOMPLEX(S, CT, T, FMA, ABS)                                                             \
    CT_HD CT ct_kadd1_##S(CT a, CT b) {                                                       \
        CT r = {a.re + b.re, a.im + b.im};                                                         \
        return r;                                                                                  \
    }                                                                                              \
    CT_HD CT ct_kmul_##S(CT a, CT b) {                                                        \
        CT r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};                             \
        return r;                                                                                  \
    }                                                                                              \
    /* a + alpha * b with a full complex product (no shortcut for a real alpha: PyTorch's          \
     * complex fmadd multiplies out, so 0 * inf parts give NaN there too) */                       \
    CT_HD CT ct_kadd_##S(CT a, CT b, CT alpha) {                                              \
        return ct_kadd1_##S(a, ct_kmul_##S(alpha, b));                                             \
    }                                                                                              \
    /* Smith's method (Note [Complex division]). The two forms differ only in which        \
     * operands they take, so selects pick them (no data-dependent branch to mispredict); the \
     * bits are the branchy form's. */                                                        \
    CT_HD CT ct_kdiv_##S(CT x, CT y) {                                                        \
        T a = x.re, b = x.im, c = y.re, d = y.im;                                                  \
        T abs_c = ABS(c), abs_d = ABS(d); /* +0 for -0: 1 / (-0 + 0j) is (inf, nan) */          \
        CT r;                                                                                      \
        if (abs_c == 0 && abs_d == 0) { /* a complex infinity or NaN */                            \
            r.re = a / abs_c;                                                                      \
            r.im = b / abs_d;                                                                      \
            return r;                                                                              \
        }                                                                                          \
        int c_big = abs_c >= abs_d; /* false with a NaN part: the second form */                  \
        T big = c_big ? c : d, small = c_big ? d : c;                                              \
        T rat = small / big, scl = (T)1 / FMA(small, rat, big);                                    \
        /* |c| >= |d|: ((a + b*rat), (b - a*rat)); else ((a*rat + b), (b*rat - a)) */              \
        r.re = FMA(c_big ? b : a, rat, c_big ? a : b) * scl;                                       \
        r.im = FMA(c_big ? -a : b, rat, c_big ? b : -a) * scl;                                     \
        return r;                                                                                  \
    }

CT_KCOMPLEX(c64, ct_complex64, float, fmaf, fabsf)
CT_KCOMPLEX(c128, ct_complex128, double, fma, fabs)


/* ---- float16 / bfloat16 trunc and floor division with a tensor divisor ----------------------
 * PyTorch computes these with Vectorized<Half> / Vectorized<BFloat16> arithmetic (newest
 * and 1.13: AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, ...) over scalar_t, no float32
 * opmath), where every operation converts to float32, computes and rounds back to the
 * dtype. So trunc(843 / 0.9990234375) truncates the float16 quotient 844, not 843.82; floor
 * follows div_floor_floating_vec step by step. The functions work on float32 values that
 * are already exact in the dtype (the inputs came through it) and return such values. */
#define CT_KREDUCED_DIV(S, TO, FROM)                                                              \
    CT_HD float ct_kround_##S(float x) { return FROM(TO(x)); }                                    \
    CT_HD float ct_kdivt_##S(float a, float b) { return truncf(ct_kround_##S(a / b)); }           \
    CT_HD float ct_kdivf_##S(float a, float b) {                                                  \
        float basic = ct_kround_##S(a / b);                                                       \
        if (b == 0.0f)                                                                            \
            return basic;                                                                         \
        float mod = ct_kround_##S(fmodf(a, b));                                                   \
        float div = ct_kround_##S(ct_kround_##S(a - mod) / b);                                    \
        if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f)))                                          \
            div = ct_kround_##S(div - 1.0f);                                                      \
        if (div == 0.0f)                                                                          \
            return copysignf(0.0f, basic);                                                        \
        float q = floorf(div);                                                                    \
        if (ct_kround_##S(div - q) > 0.5f)                                                        \
            q = ct_kround_##S(q + 1.0f);                                                          \
        return q;                                                                                 \
    }

CT_KREDUCED_DIV(rf16, ct_cvt_f32_to_f16, ct_cvt_f16_to_f32)
CT_KREDUCED_DIV(rbf16, ct_cvt_f32_to_bf16, ct_cvt_bf16_to_f32)

/* complex32 add: PyTorch's ufunc add is `self + alpha * other` in c10::complex<Half>
 * arithmetic (complex32 has no Vectorized specialization; newest and 1.13), where each
 * operation computes in complex<float> and rounds: alpha * other is rounded to complex32
 * before the sum (3 * (x+238.75j) + (inf+0.0005j) has imaginary part 716, not 716.5). Always
 * with alpha (has_alpha is true for complex math dtypes). */
CT_HD ct_complex64 ct_kadd_c32(ct_complex64 x, ct_complex64 y, ct_complex64 alpha) {
    ct_complex64 p = ct_kmul_c64(alpha, y);
    p.re = ct_cvt_f16_to_f32(ct_cvt_f32_to_f16(p.re));
    p.im = ct_cvt_f16_to_f32(ct_cvt_f32_to_f16(p.im));
    return ct_kadd1_c64(x, p);
}

/* ---- comparisons (eq ne lt le gt ge): 0/1 results -----------------------------------------
 * Real types compare as C does (NaN: only ne is true); bool operands are bytes read as != 0;
 * complex types have eq and ne only (both parts equal), as PyTorch. */
#define CT_KCMP_REAL(S, T)                                                                         \
    CT_HD uint8_t ct_keq_##S(T a, T b) { return (uint8_t)(a == b); }                               \
    CT_HD uint8_t ct_kne_##S(T a, T b) { return (uint8_t)(a != b); }                               \
    CT_HD uint8_t ct_klt_##S(T a, T b) { return (uint8_t)(a < b); }                                \
    CT_HD uint8_t ct_kle_##S(T a, T b) { return (uint8_t)(a <= b); }                               \
    CT_HD uint8_t ct_kgt_##S(T a, T b) { return (uint8_t)(a > b); }                                \
    CT_HD uint8_t ct_kge_##S(T a, T b) { return (uint8_t)(a >= b); }

CT_HD uint8_t ct_keq_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) == (b != 0)); }
CT_HD uint8_t ct_kne_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) != (b != 0)); }
CT_HD uint8_t ct_klt_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) < (b != 0)); }
CT_HD uint8_t ct_kle_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) <= (b != 0)); }
CT_HD uint8_t ct_kgt_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) > (b != 0)); }
CT_HD uint8_t ct_kge_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) >= (b != 0)); }
CT_KCMP_REAL(u8, uint8_t)
CT_KCMP_REAL(i8, int8_t)
CT_KCMP_REAL(u16, uint16_t)
CT_KCMP_REAL(i16, int16_t)
CT_KCMP_REAL(u32, uint32_t)
CT_KCMP_REAL(i32, int32_t)
CT_KCMP_REAL(u64, uint64_t)
CT_KCMP_REAL(i64, int64_t)
CT_KCMP_REAL(f32, float)
CT_KCMP_REAL(f64, double)

#define CT_KCMP_COMPLEX(S, CT)                                                                     \
    CT_HD uint8_t ct_keq_##S(CT a, CT b) { return (uint8_t)(a.re == b.re && a.im == b.im); }       \
    CT_HD uint8_t ct_kne_##S(CT a, CT b) { return (uint8_t)!(a.re == b.re && a.im == b.im); }
CT_KCMP_COMPLEX(c64, ct_complex64)
CT_KCMP_COMPLEX(c128, ct_complex128)

/* ---- maximum minimum (NaN-propagating) and fmax fmin (NaN-ignoring) ---------------------------
 * Floats: maximum is NaN when either operand is; otherwise a > b ? a : b (so of two zeros
 * the second, as PyTorch's vectorized _mm_max_ps). fmax / fmin are C's. Integers compare;
 * bool is or / and. */
CT_HD uint8_t ct_kmax_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) | (b != 0)); }
CT_HD uint8_t ct_kmin_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }
CT_HD uint8_t ct_kfmax_b8(uint8_t a, uint8_t b) { return ct_kmax_b8(a, b); }
CT_HD uint8_t ct_kfmin_b8(uint8_t a, uint8_t b) { return ct_kmin_b8(a, b); }
#define CT_KMINMAX_INT(S, T)                                                                       \
    CT_HD T ct_kmax_##S(T a, T b) { return a > b ? a : b; }                                        \
    CT_HD T ct_kmin_##S(T a, T b) { return a < b ? a : b; }                                        \
    CT_HD T ct_kfmax_##S(T a, T b) { return a > b ? a : b; }                                       \
    CT_HD T ct_kfmin_##S(T a, T b) { return a < b ? a : b; }
CT_KMINMAX_INT(u8, uint8_t)
CT_KMINMAX_INT(i8, int8_t)
CT_KMINMAX_INT(u16, uint16_t)
CT_KMINMAX_INT(i16, int16_t)
CT_KMINMAX_INT(u32, uint32_t)
CT_KMINMAX_INT(i32, int32_t)
CT_KMINMAX_INT(u64, uint64_t)
CT_KMINMAX_INT(i64, int64_t)
#define CT_KMINMAX_FLOAT(S, T, FMAX, FMIN)                                                         \
    CT_HD T ct_kmax_##S(T a, T b) { return (a != a || b != b) ? a + b : (a > b ? a : b); }         \
    CT_HD T ct_kmin_##S(T a, T b) { return (a != a || b != b) ? a + b : (a < b ? a : b); }         \
    CT_HD T ct_kfmax_##S(T a, T b) { return FMAX(a, b); }                                          \
    CT_HD T ct_kfmin_##S(T a, T b) { return FMIN(a, b); }
CT_KMINMAX_FLOAT(f32, float, fmaxf, fminf)
CT_KMINMAX_FLOAT(f64, double, fmax, fmin)

/* ---- classification (isnan isinf isfinite isposinf isneginf isreal): the comparison
 * loops' shape, the second operand ignored ------------------------------------------------- */
#define CT_KCLASS_EXACT(S, T)                                                                      \
    CT_HD uint8_t ct_kisnan_##S(T a, T b) { (void)a; (void)b; return 0; }                          \
    CT_HD uint8_t ct_kisinf_##S(T a, T b) { (void)a; (void)b; return 0; }                          \
    CT_HD uint8_t ct_kisfinite_##S(T a, T b) { (void)a; (void)b; return 1; }                       \
    CT_HD uint8_t ct_kisposinf_##S(T a, T b) { (void)a; (void)b; return 0; }                       \
    CT_HD uint8_t ct_kisneginf_##S(T a, T b) { (void)a; (void)b; return 0; }                       \
    CT_HD uint8_t ct_kisreal_##S(T a, T b) { (void)a; (void)b; return 1; }
CT_KCLASS_EXACT(b8, uint8_t)
CT_KCLASS_EXACT(u8, uint8_t)
CT_KCLASS_EXACT(i8, int8_t)
CT_KCLASS_EXACT(u16, uint16_t)
CT_KCLASS_EXACT(i16, int16_t)
CT_KCLASS_EXACT(u32, uint32_t)
CT_KCLASS_EXACT(i32, int32_t)
CT_KCLASS_EXACT(u64, uint64_t)
CT_KCLASS_EXACT(i64, int64_t)

#define CT_KCLASS_FLOAT(S, T, INF)                                                                 \
    CT_HD uint8_t ct_kisnan_##S(T a, T b) { (void)b; return (uint8_t)(a != a); }                  \
    CT_HD uint8_t ct_kisinf_##S(T a, T b) { (void)b; return (uint8_t)(a == INF || a == -INF); }   \
    CT_HD uint8_t ct_kisfinite_##S(T a, T b) {                                                     \
        (void)b;                                                                                   \
        return (uint8_t)(a == a && a != INF && a != -INF);                                         \
    }                                                                                              \
    CT_HD uint8_t ct_kisposinf_##S(T a, T b) { (void)b; return (uint8_t)(a == INF); }             \
    CT_HD uint8_t ct_kisneginf_##S(T a, T b) { (void)b; return (uint8_t)(a == -INF); }            \
    CT_HD uint8_t ct_kisreal_##S(T a, T b) { (void)a; (void)b; return 1; }
CT_KCLASS_FLOAT(f32, float, (float)INFINITY)
CT_KCLASS_FLOAT(f64, double, (double)INFINITY)

/* complex: NaN / inf in either part; finite and real ask both / the imaginary part */
#define CT_KCLASS_COMPLEX(S, CT, R)                                                                \
    CT_HD uint8_t ct_kisnan_##S(CT a, CT b) {                                                      \
        (void)b;                                                                                   \
        return (uint8_t)(ct_kisnan_##R(a.re, a.re) | ct_kisnan_##R(a.im, a.im));                   \
    }                                                                                              \
    CT_HD uint8_t ct_kisinf_##S(CT a, CT b) {                                                      \
        (void)b;                                                                                   \
        return (uint8_t)(ct_kisinf_##R(a.re, a.re) | ct_kisinf_##R(a.im, a.im));                   \
    }                                                                                              \
    CT_HD uint8_t ct_kisfinite_##S(CT a, CT b) {                                                   \
        (void)b;                                                                                   \
        return (uint8_t)(ct_kisfinite_##R(a.re, a.re) & ct_kisfinite_##R(a.im, a.im));             \
    }                                                                                              \
    CT_HD uint8_t ct_kisreal_##S(CT a, CT b) { (void)b; return (uint8_t)(a.im == 0); }
CT_KCLASS_COMPLEX(c64, ct_complex64, f32)
CT_KCLASS_COMPLEX(c128, ct_complex128, f64)

/* ---- isclose: |a - b| <= atol + |rtol * b| (finite), or a == b, or both NaN with equal_nan --
 * Each step rounds to the dtype, as PyTorch's composite isclose computes it with tensor ops:
 * ROUND is the identity for float32 / float64 and ct_kround_rf16 / rbf16 for float16 /
 * bfloat16 (float32 math); rtol multiplies in float32 there (newest PyTorch's mul reads a
 * scalar operand in float32), atol is rounded to the dtype before the sum. */
CT_HD float ct_kround_id_f32(float x) { return x; }
CT_HD double ct_kround_id_f64(double x) { return x; }
#define CT_KISCLOSE(S, T, ABS, ROUND)                                                              \
    CT_HD uint8_t ct_kisclose_##S(T a, T b, T rtol, T atol, int equal_nan) {                       \
        if (a == b)                                                                                \
            return 1;                                                                              \
        if (equal_nan && a != a && b != b)                                                         \
            return 1;                                                                              \
        if (rtol == 0 && atol == 0)                                                                \
            return 0;                                                                              \
        T allowed = ROUND(ROUND(atol) + ABS(ROUND(rtol * b)));                                     \
        T actual = ABS(ROUND(a - b));                                                              \
        return (uint8_t)(actual == actual && actual != (T)INFINITY && actual <= allowed);          \
    }
CT_KISCLOSE(f32, float, fabsf, ct_kround_id_f32)
CT_KISCLOSE(f64, double, fabs, ct_kround_id_f64)
CT_KISCLOSE(rf16, float, fabsf, ct_kround_rf16)
CT_KISCLOSE(rbf16, float, fabsf, ct_kround_rbf16)

#define CT_KISCLOSE_COMPLEX(S, CT, T, HYPOT)                                                       \
    CT_HD uint8_t ct_kisclose_##S(CT a, CT b, T rtol, T atol, int equal_nan) {                     \
        if (a.re == b.re && a.im == b.im)                                                          \
            return 1;                                                                              \
        if (equal_nan && (a.re != a.re || a.im != a.im) && (b.re != b.re || b.im != b.im))         \
            return 1;                                                                              \
        if (rtol == 0 && atol == 0)                                                                \
            return 0;                                                                              \
        T allowed = atol + HYPOT(rtol * b.re, rtol * b.im);                                        \
        T actual = HYPOT(a.re - b.re, a.im - b.im);                                                \
        return (uint8_t)(actual == actual && actual != (T)INFINITY && actual <= allowed);          \
    }
CT_KISCLOSE_COMPLEX(c64, ct_complex64, float, hypotf)
CT_KISCLOSE_COMPLEX(c128, ct_complex128, double, hypot)


/* ---- pow remainder fmod atan2 hypot, bitwise ops and shifts --------------------------------
 * Integers: pow by repeated squaring with wrap-around (computed unsigned, W bits); a negative
 * exponent gives 1 for a base of 1, +-1 for -1 (odd exponents -1), else 0 (PyTorch's powi).
 * remainder takes the divisor's sign (Python's %), fmod the dividend's (C's %); x % -1 is 0
 * without a division (INT_MIN % -1 would trap). The callers check b != 0 first.
 * Shifts: torch 1.13's CPU results, which are x86's: the count is taken modulo the width of
 * the type the operation is done in (32 bits for 8, 16 and 32-bit types after C's integer
 * promotion, 64 for 64-bit types), so a count of 32 on int32 shifts by 0 and -1 by 31; the
 * result is truncated to the type. Left shifts are done unsigned (no signed overflow). */
#define CT_KINT_EXT_COMMON(S, T, W, SW)                                                            \
    CT_HD T ct_kband_##S(T a, T b) { return (T)(a & b); }                                          \
    CT_HD T ct_kbor_##S(T a, T b) { return (T)(a | b); }                                           \
    CT_HD T ct_kbxor_##S(T a, T b) { return (T)(a ^ b); }                                          \
    CT_HD T ct_klshift_##S(T a, T b) {                                                             \
        return (T)((SW)(W)a << ((unsigned)b & (unsigned)(sizeof(SW) * 8 - 1)));                    \
    }                                                                                              \
    CT_HD T ct_kpowpos_##S(T a, T b) {                                                             \
        W r = 1, x = (W)a;                                                                         \
        for (W e = (W)b; e != 0; e >>= 1) {                                                        \
            if (e & 1u)                                                                            \
                r *= x;                                                                            \
            x *= x;                                                                                \
        }                                                                                          \
        return (T)r;                                                                               \
    }

#define CT_KINT_EXT_SIGNED(S, T, W, SW, SP)                                                        \
    CT_KINT_EXT_COMMON(S, T, W, SW)                                                                \
    CT_HD T ct_kpow_##S(T a, T b) {                                                                \
        if (b >= 0)                                                                                \
            return ct_kpowpos_##S(a, b);                                                           \
        if (a == 1)                                                                                \
            return 1;                                                                              \
        if (a == -1)                                                                               \
            return (T)(((W)b & 1u) ? -1 : 1);                                                      \
        return 0;                                                                                  \
    }                                                                                              \
    CT_HD T ct_krem_##S(T a, T b) {                                                                \
        if (b == -1)                                                                               \
            return 0;                                                                              \
        T r = (T)(a % b);                                                                          \
        if (r != 0 && ((r < 0) != (b < 0)))                                                        \
            r = (T)((W)r + (W)b);                                                                  \
        return r;                                                                                  \
    }                                                                                              \
    CT_HD T ct_kfmod_##S(T a, T b) { return b == -1 ? (T)0 : (T)(a % b); }                         \
    /* arithmetic shift of the promoted value (sign fill) */                                       \
    CT_HD T ct_krshift_##S(T a, T b) {                                                             \
        return (T)((SP)a >> ((unsigned)b & (unsigned)(sizeof(SP) * 8 - 1)));                       \
    }

#define CT_KINT_EXT_UNSIGNED(S, T, W, SW)                                                          \
    CT_KINT_EXT_COMMON(S, T, W, SW)                                                                \
    CT_HD T ct_kpow_##S(T a, T b) { return ct_kpowpos_##S(a, b); }                                 \
    CT_HD T ct_krem_##S(T a, T b) { return (T)(a % b); }                                           \
    CT_HD T ct_kfmod_##S(T a, T b) { return (T)(a % b); }                                          \
    CT_HD T ct_krshift_##S(T a, T b) {                                                             \
        return (T)((SW)a >> ((unsigned)b & (unsigned)(sizeof(SW) * 8 - 1)));                       \
    }

CT_KINT_EXT_UNSIGNED(u8, uint8_t, uint32_t, uint32_t)
CT_KINT_EXT_SIGNED(i8, int8_t, uint32_t, uint32_t, int32_t)
CT_KINT_EXT_SIGNED(i16, int16_t, uint32_t, uint32_t, int32_t)
CT_KINT_EXT_SIGNED(i32, int32_t, uint32_t, uint32_t, int32_t)
CT_KINT_EXT_SIGNED(i64, int64_t, uint64_t, uint64_t, int64_t)

/* bool: the bitwise ops are logical on bytes read as != 0 */
CT_HD uint8_t ct_kband_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }
CT_HD uint8_t ct_kbor_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) | (b != 0)); }
CT_HD uint8_t ct_kbxor_b8(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) ^ (b != 0)); }

/* Floats: pow is the libm's (SLEEF's vector pow in PyTorch; both within 1 ulp), remainder
 * PyTorch's fmod-then-adjust (the adjustment rounds once), atan2 and hypot the libm's.
 * ct_kpows is pow with a Python-number exponent (pow.Tensor_Scalar): PyTorch computes the
 * exponents 2, 3, -2, 0.5, -0.5 and -1 as x*x, x*x*x, 1/(x*x), sqrt, 1/sqrt and 1/x, which
 * round differently from pow (and treat -0 and -inf differently for 0.5). */
/* float32 fmod, exact like fmodf and 3x faster than glibc's: while |a| < 2^24 |b| the
 * quotient truncated in float64 is right or one too large in magnitude, and a - q*b is exact
 * in float64 (q*b has at most 48 significant bits); the too-large case shows as a remainder
 * of the wrong sign and is undone by adding |b|. Other cases (a or b not finite, b zero,
 * huge quotients) are fmodf's. Checked against fmodf on 2e8 random bit patterns. */
CT_HD float ct_kfmod_exact_f32(float a, float b) {
    if (!(fabsf(a) < fabsf(b) * 16777216.0f) || fabsf(b) == (float)INFINITY)
        return fmodf(a, b);
    double x = a, y = b;
    double q = trunc(x / y);
    double r = x - q * y;
    if (r != 0 && ((r < 0) != (x < 0)))
        r += copysign(fabs(y), x);
    if (r == 0)
        return copysignf(0.0f, a);
    return (float)r;
}

#define CT_KFLOAT_EXT(S, T, POW, FMOD, ATAN2, HYPOT, SQRT)                                         \
    CT_HD T ct_kpow_##S(T a, T b) { return POW(a, b); }                                            \
    CT_HD T ct_krem_##S(T a, T b) {                                                                \
        T mod = FMOD(a, b);                                                                        \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                                    \
            mod += b;                                                                              \
        return mod;                                                                                \
    }                                                                                              \
    CT_HD T ct_kfmod_##S(T a, T b) { return FMOD(a, b); }                                          \
    CT_HD T ct_katan2_##S(T a, T b) { return ATAN2(a, b); }                                        \
    CT_HD T ct_khypot_##S(T a, T b) { return HYPOT(a, b); }                                        \
    CT_HD T ct_kpows_##S(T a, T b) {                                                               \
        if (b == (T)2)                                                                             \
            return a * a;                                                                          \
        if (b == (T)3)                                                                             \
            return a * a * a;                                                                      \
        if (b == (T)-2)                                                                            \
            return (T)1 / (a * a);                                                                 \
        if (b == (T)0.5)                                                                           \
            return SQRT(a);                                                                        \
        if (b == (T)-0.5)                                                                          \
            return (T)1 / SQRT(a);                                                                 \
        if (b == (T)-1)                                                                            \
            return (T)1 / a;                                                                       \
        return POW(a, b);                                                                          \
    }
CT_KFLOAT_EXT(f32, float, powf, ct_kfmod_exact_f32, atan2f, hypotf, sqrtf)
CT_KFLOAT_EXT(f64, double, pow, fmod, atan2, hypot, sqrt)

/* ---- logical_and logical_or logical_xor: 0/1 of the operands' truth (!= 0; NaN is true;
 * complex: either part != 0), every math dtype ------------------------------------------ */
#define CT_KLOGICAL_REAL(S, T)                                                                     \
    CT_HD uint8_t ct_kland_##S(T a, T b) { return (uint8_t)((a != 0) & (b != 0)); }                \
    CT_HD uint8_t ct_klor_##S(T a, T b) { return (uint8_t)((a != 0) | (b != 0)); }                 \
    CT_HD uint8_t ct_klxor_##S(T a, T b) { return (uint8_t)((a != 0) ^ (b != 0)); }
#define CT_KLOGICAL_COMPLEX(S, CT)                                                                 \
    CT_HD uint8_t ct_kland_##S(CT a, CT b) {                                                       \
        return (uint8_t)((a.re != 0 || a.im != 0) & (b.re != 0 || b.im != 0));                     \
    }                                                                                              \
    CT_HD uint8_t ct_klor_##S(CT a, CT b) {                                                        \
        return (uint8_t)((a.re != 0 || a.im != 0) | (b.re != 0 || b.im != 0));                     \
    }                                                                                              \
    CT_HD uint8_t ct_klxor_##S(CT a, CT b) {                                                       \
        return (uint8_t)((a.re != 0 || a.im != 0) ^ (b.re != 0 || b.im != 0));                     \
    }
CT_KLOGICAL_REAL(b8, uint8_t)
CT_KLOGICAL_REAL(u8, uint8_t)
CT_KLOGICAL_REAL(i8, int8_t)
CT_KLOGICAL_REAL(u16, uint16_t)
CT_KLOGICAL_REAL(i16, int16_t)
CT_KLOGICAL_REAL(u32, uint32_t)
CT_KLOGICAL_REAL(i32, int32_t)
CT_KLOGICAL_REAL(u64, uint64_t)
CT_KLOGICAL_REAL(i64, int64_t)
CT_KLOGICAL_REAL(f32, float)
CT_KLOGICAL_REAL(f64, double)
CT_KLOGICAL_COMPLEX(c64, ct_complex64)
CT_KLOGICAL_COMPLEX(c128, ct_complex128)

#endif /* CT_KERNELS_BINARY_ELEM_H */
