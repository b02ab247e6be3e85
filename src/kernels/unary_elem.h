/* One element of each unary op (unary.def) in each math dtype: the semantics every loop
 * shares. Note [One definition per element] (binary_elem.h) applies: the real-valued
 * functions are CT_HD, plain C that is also C++, so the CUDA backend can include this header
 * when it gets unary kernels. The complex functions use C99 <complex.h> and are C only
 * (a CUDA port would spell them with cuda::std::complex); they are guarded accordingly.
 *
 * float16 and bfloat16 have no functions here: they compute in float32 (the kernel widens,
 * calls the float32 function and rounds once). The transcendental functions are glibc's
 * libm, the scalar reference; unary_loops.c replaces them by SLEEF's vector functions on the
 * AVX2 and AVX-512 levels (within 1 ulp of the same exact value). */
#ifndef CT_KERNELS_UNARY_ELEM_H
#define CT_KERNELS_UNARY_ELEM_H

#include <math.h>
#include <stdint.h>

#include "kernels/binary_elem.h" /* CT_HD */

/* ---- bool (bytes read as != 0) ------------------------------------------------------------ */
CT_HD uint8_t ct_un_sign_b8(uint8_t x) { return (uint8_t)(x != 0); }
CT_HD uint8_t ct_un_bitwise_not_b8(uint8_t x) { return (uint8_t)(x == 0); }
CT_HD uint8_t ct_un_logical_not_b8(uint8_t x) { return (uint8_t)(x == 0); }

/* ---- integers: neg and abs wrap (INT_MIN stays INT_MIN, as in PyTorch); rounding is the
 * identity ---- */
#define CT_UN_INT(S, T, W, SIGNED)                                                                 \
    CT_HD T ct_un_neg_##S(T x) { return (T)((W)0 - (W)x); }                                     \
    CT_HD T ct_un_positive_##S(T x) { return x; }                                               \
    CT_UN_SIGN_##SIGNED(S, T, W)                                                                 \
    CT_HD T ct_un_floor_##S(T x) { return x; }                                                  \
    CT_HD T ct_un_bitwise_not_##S(T x) { return (T)~x; }                                        \
    CT_HD uint8_t ct_un_logical_not_##S(T x) { return (uint8_t)(x == 0); }
#define CT_UN_SIGN_1(S, T, W)                                                                      \
    CT_HD T ct_un_abs_##S(T x) { return x < 0 ? (T)((W)0 - (W)x) : x; }                         \
    CT_HD T ct_un_sign_##S(T x) { return (T)((x > 0) - (x < 0)); }                              \
    CT_HD T ct_un_relu_##S(T x) { return x < 0 ? (T)0 : x; }
#define CT_UN_SIGN_0(S, T, W)                                                                      \
    CT_HD T ct_un_abs_##S(T x) { return x; }                                                    \
    CT_HD T ct_un_sign_##S(T x) { return (T)(x > 0); }                                          \
    CT_HD T ct_un_relu_##S(T x) { return x; }
CT_UN_INT(u8, uint8_t, uint32_t, 0)
CT_UN_INT(i8, int8_t, uint32_t, 1)
CT_UN_INT(i16, int16_t, uint32_t, 1)
CT_UN_INT(i32, int32_t, uint32_t, 1)
CT_UN_INT(i64, int64_t, uint64_t, 1)

/* ---- float32 and float64 ----------------------------------------------------------------- */
/* sign: PyTorch's (0 < x) - (x < 0), so NaN -> 0 and -0.0 -> 0.0; relu: clamp_min(x, 0)
 * keeps NaN and -0.0 (neither is below 0) */
#define CT_UN_FLOAT(S, T, F)                                                                       \
    CT_HD T ct_un_neg_##S(T x) { return -x; }                                                   \
    CT_HD T ct_un_positive_##S(T x) { return x; }                                               \
    CT_HD T ct_un_abs_##S(T x) { return fabs##F(x); }                                           \
    CT_HD T ct_un_sign_##S(T x) { return (T)((0 < x) - (x < 0)); }                              \
    CT_HD T ct_un_floor_##S(T x) { return floor##F(x); }                                        \
    CT_HD T ct_un_ceil_##S(T x) { return ceil##F(x); }                                          \
    CT_HD T ct_un_trunc_##S(T x) { return trunc##F(x); }                                        \
    CT_HD T ct_un_frac_##S(T x) { return x - trunc##F(x); }                                     \
    CT_HD T ct_un_round_##S(T x) { return nearbyint##F(x); }                                    \
    CT_HD T ct_un_reciprocal_##S(T x) { return (T)1 / x; }                                      \
    CT_HD T ct_un_relu_##S(T x) { return x < 0 ? (T)0 : x; }                                    \
    CT_HD uint8_t ct_un_logical_not_##S(T x) { return (uint8_t)(x == 0); }
CT_UN_FLOAT(f32, float, f)
CT_UN_FLOAT(f64, double, )

/* round(decimals=d): PyTorch's steps, each in the scalar type: m = 10^|d| (computed by the
 * caller in the math dtype), x * m rounded to an integer then / m, or x / m rounded then * m
 * for d < 0. float16 / bfloat16 compute in float32 and round after every step (`narrow`: 0
 * none, 1 float16, 2 bfloat16), as unary_kernel.c's round_block does with this function. */
CT_HD float ct_un_narrow_f32(float v, int narrow) {
    return narrow == 1 ? ct_kround_rf16(v) : narrow == 2 ? ct_kround_rbf16(v) : v;
}
CT_HD float ct_un_round_dec_f32(float x, float m, int div, int narrow) {
    return div ? ct_un_narrow_f32(nearbyintf(ct_un_narrow_f32(x / m, narrow)) * m, narrow)
               : ct_un_narrow_f32(nearbyintf(ct_un_narrow_f32(x * m, narrow)) / m, narrow);
}
CT_HD double ct_un_round_dec_f64(double x, double m, int div) {
    return div ? nearbyint(x / m) * m : nearbyint(x * m) / m;
}
/* The transcendental functions: float64 libm; float32 through it, rounded once (within
 * 0.5 ulp + 2^-29: glibc's own float32 tanhf and atanhf are 2-ulp functions). These are the
 * baseline level's loops and the tails of the SLEEF loops. */
#define CT_UN_TRANS(N)                                                                             \
    CT_HD float ct_un_##N##_f32(float x) { return (float)N((double)x); }                         \
    CT_HD double ct_un_##N##_f64(double x) { return N(x); }
CT_UN_TRANS(exp)
CT_UN_TRANS(expm1)
CT_UN_TRANS(exp2)
CT_UN_TRANS(log)
CT_UN_TRANS(log2)
CT_UN_TRANS(log10)
CT_UN_TRANS(sqrt)
CT_UN_TRANS(sin)
CT_UN_TRANS(cos)
CT_UN_TRANS(tan)
CT_UN_TRANS(asin)
CT_UN_TRANS(acos)
CT_UN_TRANS(atan)
CT_UN_TRANS(tanh)
CT_UN_TRANS(atanh)
CT_UN_TRANS(erf)
/* float32 erfc, sigmoid, rsqrt, sinh, cosh and acosh in float64, rounded once: within 1 ulp
 * where the float32 forms are not (SLEEF's erfcf is 1.5 ulp; 1 / (1 + expf(-x)) and
 * 1 / sqrtf(x) round more than once, 1.46 ulp; SLEEF's sinhf and coshf overflow from
 * |x| > 88.5 where the result is finite up to 89.4, and its acoshf from x > 1.8e19) */
CT_HD float ct_un_rsqrt_f32(float x) { return (float)(1.0 / sqrt((double)x)); }
CT_HD double ct_un_rsqrt_f64(double x) { return 1.0 / sqrt(x); }
CT_HD float ct_un_sinh_f32(float x) { return (float)sinh((double)x); }
CT_HD double ct_un_sinh_f64(double x) { return sinh(x); }
CT_HD float ct_un_cosh_f32(float x) { return (float)cosh((double)x); }
CT_HD double ct_un_cosh_f64(double x) { return cosh(x); }
CT_HD float ct_un_acosh_f32(float x) { return (float)acosh((double)x); }
/* (SLEEF's log1pf overflows from x > 1e38, its asinhf from |x| > 1.8e19) */
CT_HD float ct_un_log1p_f32(float x) { return (float)log1p((double)x); }
CT_HD double ct_un_log1p_f64(double x) { return log1p(x); }
CT_HD float ct_un_asinh_f32(float x) { return (float)asinh((double)x); }
CT_HD double ct_un_asinh_f64(double x) { return asinh(x); }
CT_HD double ct_un_acosh_f64(double x) { return acosh(x); }
CT_HD float ct_un_erfc_f32(float x) { return (float)erfc((double)x); }
CT_HD double ct_un_erfc_f64(double x) { return erfc(x); }
CT_HD float ct_un_sigmoid_f32(float x) { return (float)(1.0 / (1.0 + exp(-(double)x))); }
CT_HD double ct_un_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
#define ct_un_sgn_f32 ct_un_sign_f32
#define ct_un_sgn_f64 ct_un_sign_f64

#if !defined(__CUDACC__)
/* ---- complex64 and complex128 (C99 <complex.h>; C only) ------------------------------------ */
#include <complex.h>
#include <string.h> /* memcpy */
/* 1 / x as c10::complex divides, by Smith's method (Note [Complex division]): reciprocal,
 * rsqrt and sigmoid divide this way in PyTorch. */
#define CT_UN_COMPLEX(S, T, R, F, CT)                                                              \
    static inline T ct_un_inv_##S(T x) {                                                         \
        CT one = {1, 0}, y, r;                                                                     \
        memcpy(&y, &x, sizeof y); /* C11: a complex is laid out as its (re, im) array */          \
        r = ct_kdiv_##S(one, y);                                                                   \
        memcpy(&x, &r, sizeof x);                                                                  \
        return x;                                                                                  \
    }                                                                                            \
    CT_HD T ct_un_neg_##S(T x) { return -x; }                                                   \
    CT_HD T ct_un_positive_##S(T x) { return x; }                                               \
    CT_HD R ct_un_abs_##S(T x) { return cabs##F(x); }                                           \
    CT_HD T ct_un_sgn_##S(T x) {                                                                 \
        R a = cabs##F(x);                                                                        \
        return a == 0 ? (T)0 : x / a;                                                            \
    }                                                                                            \
    CT_HD T ct_un_reciprocal_##S(T x) { return ct_un_inv_##S(x); }                              \
    CT_HD uint8_t ct_un_logical_not_##S(T x) { return (uint8_t)(x == 0); }                      \
    CT_HD T ct_un_exp_##S(T x) { return cexp##F(x); }                                           \
    CT_HD T ct_un_log_##S(T x) { return clog##F(x); }                                           \
    CT_HD T ct_un_log2_##S(T x) { return clog##F(x) / (R)0.693147180559945309417232121458176568; } \
    CT_HD T ct_un_log10_##S(T x) { return clog##F(x) / (R)2.30258509299404568401799145468436421; } \
    CT_HD T ct_un_sqrt_##S(T x) { return csqrt##F(x); }                                         \
    CT_HD T ct_un_rsqrt_##S(T x) { return ct_un_inv_##S(csqrt##F(x)); }                         \
    CT_HD T ct_un_sin_##S(T x) { return csin##F(x); }                                           \
    CT_HD T ct_un_cos_##S(T x) { return ccos##F(x); }                                           \
    CT_HD T ct_un_tan_##S(T x) { return ctan##F(x); }                                           \
    CT_HD T ct_un_asin_##S(T x) { return casin##F(x); }                                         \
    CT_HD T ct_un_acos_##S(T x) { return cacos##F(x); }                                         \
    CT_HD T ct_un_atan_##S(T x) { return catan##F(x); }                                         \
    CT_HD T ct_un_sinh_##S(T x) { return csinh##F(x); }                                         \
    CT_HD T ct_un_cosh_##S(T x) { return ccosh##F(x); }                                         \
    CT_HD T ct_un_tanh_##S(T x) { return ctanh##F(x); }                                         \
    CT_HD T ct_un_asinh_##S(T x) { return casinh##F(x); }                                       \
    CT_HD T ct_un_acosh_##S(T x) { return cacosh##F(x); }                                       \
    CT_HD T ct_un_atanh_##S(T x) { return catanh##F(x); }                                       \
    CT_HD T ct_un_sigmoid_##S(T x) { return ct_un_inv_##S((T)1 + cexp##F(-x)); }
_Static_assert(sizeof(float _Complex) == sizeof(ct_complex64), "complex64 layouts agree");
_Static_assert(sizeof(double _Complex) == sizeof(ct_complex128), "complex128 layouts agree");
CT_UN_COMPLEX(c64, float _Complex, float, f, ct_complex64)
CT_UN_COMPLEX(c128, double _Complex, double, , ct_complex128)
#endif

#endif /* CT_KERNELS_UNARY_ELEM_H */
