/* The cpu loops stamped from the per-element functions of binary_elem.h (Note [One definition
 * per element] there): binary_reference.c stamps its obvious loops from them, and
 * binary_loops.c (compiled per ISA level) uses the same functions in its scalar tails and
 * strided fallbacks, so every level agrees with the reference bit for bit. C only. */
#ifndef CT_KERNELS_BINARY_ELEM_IMPL_H
#define CT_KERNELS_BINARY_ELEM_IMPL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctensor/convert.h"
#include "kernels/binary.h"
#include "kernels/binary_elem.h"

#define CT_KINLINE CT_HD

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

/* maximum minimum fmax fmin (not complex): strided loops and their entries, stamped apart
 * from the loops above (CT_KLOOPS_MM_<K>(P, S, T), CT_KENTRIES_MM_<K>(P, E, S)). */
#define CT_KLOOPS_MM_REAL(P, S, T)                                                                 \
    CT_KLOOP_STRIDED(P##_max_##S, T, r = ct_kmax_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_min_##S, T, r = ct_kmin_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_fmax_##S, T, r = ct_kfmax_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_fmin_##S, T, r = ct_kfmin_##S(x, y))
#define CT_KLOOPS_MM_B CT_KLOOPS_MM_REAL
#define CT_KLOOPS_MM_S CT_KLOOPS_MM_REAL
#define CT_KLOOPS_MM_U CT_KLOOPS_MM_REAL
#define CT_KLOOPS_MM_F CT_KLOOPS_MM_REAL
#define CT_KLOOPS_MM_C(P, S, T)
#define CT_KENTRIES_MM_REAL(P, E, S)                                                               \
    [CT_BINOP_MAXIMUM][CT_##E] = P##_max_##S, [CT_BINOP_MINIMUM][CT_##E] = P##_min_##S,            \
    [CT_BINOP_FMAX][CT_##E] = P##_fmax_##S, [CT_BINOP_FMIN][CT_##E] = P##_fmin_##S,
#define CT_KENTRIES_MM_B CT_KENTRIES_MM_REAL
#define CT_KENTRIES_MM_S CT_KENTRIES_MM_REAL
#define CT_KENTRIES_MM_U CT_KENTRIES_MM_REAL
#define CT_KENTRIES_MM_F CT_KENTRIES_MM_REAL
#define CT_KENTRIES_MM_C(P, E, S)


/* ---- pow remainder fmod atan2 hypot, bitwise ops and shifts ---------------------------------
 * Stamped per math dtype suffix (not per kind: uint16..uint64 have none of these loops, as
 * PyTorch's kernels do not dispatch them): CT_KLOOPS_EXT_<suffix>(P, T) and
 * CT_KENTRIES_EXT_<suffix>(P, E). Complex pow is C99's cpow (C only: no CUDA form yet), as
 * c10::complex's pow is std::pow, i.e. libstdc++'s __builtin_cpow. */
#include <complex.h>
/* (ct_complex64 / 128 have C99 complex's layout: two parts, real first; copied, not cast) */
#define CT_KCPOW(S, CT, T, CPOW, CSQRT)                                                            \
    CT_KINLINE T _Complex ct_kcplx_##S(CT a) {                                                     \
        T _Complex z;                                                                              \
        memcpy(&z, &a, sizeof z);                                                                  \
        return z;                                                                                  \
    }                                                                                              \
    CT_KINLINE CT ct_kpow_##S(CT a, CT b) {                                                        \
        T _Complex r = CPOW(ct_kcplx_##S(a), ct_kcplx_##S(b));                                     \
        CT o;                                                                                      \
        o.re = (T)creal(r);                                                                        \
        o.im = (T)cimag(r);                                                                        \
        return o;                                                                                  \
    }                                                                                              \
    CT_KINLINE CT ct_ksqrt_##S(CT a) {                                                             \
        T _Complex r = CSQRT(ct_kcplx_##S(a));                                                     \
        CT o;                                                                                      \
        o.re = (T)creal(r);                                                                        \
        o.im = (T)cimag(r);                                                                        \
        return o;                                                                                  \
    }                                                                                              \
    /* PyTorch's vectorized complex reciprocal: conj(a) / |a|^2 (1 / 0 is NaN, not inf) */    \
    CT_KINLINE CT ct_krecip_##S(CT a) {                                                            \
        T abs2 = a.re * a.re + a.im * a.im;                                                        \
        CT o;                                                                                      \
        o.re = a.re / abs2;                                                                        \
        o.im = -a.im / abs2;                                                                       \
        return o;                                                                                  \
    }                                                                                              \
    /* pow.Tensor_Scalar's special exponents (real ones only: 0 fills 1, 1 copies; negative    \
     * ones through the reciprocal above), with complex arithmetic */                          \
    CT_KINLINE CT ct_kpows_##S(CT a, CT b) {                                                       \
        const CT one = {1, 0};                                                                     \
        if (b.im == 0) {                                                                           \
            if (b.re == 0)                                                                         \
                return one;                                                                        \
            if (b.re == 1)                                                                         \
                return a;                                                                          \
            if (b.re == 2)                                                                         \
                return ct_kmul_##S(a, a);                                                          \
            if (b.re == 3)                                                                         \
                return ct_kmul_##S(ct_kmul_##S(a, a), a);                                          \
            if (b.re == -2)                                                                        \
                return ct_krecip_##S(ct_kmul_##S(a, a));                                           \
            if (b.re == (T)0.5)                                                                    \
                return ct_ksqrt_##S(a);                                                            \
            if (b.re == (T)-0.5)                                                                   \
                return ct_krecip_##S(ct_ksqrt_##S(a));                                             \
            if (b.re == -1)                                                                        \
                return ct_krecip_##S(a);                                                           \
        }                                                                                          \
        return ct_kpow_##S(a, b);                                                                  \
    }
_Static_assert(sizeof(ct_complex64) == sizeof(float _Complex), "complex64 layout");
_Static_assert(sizeof(ct_complex128) == sizeof(double _Complex), "complex128 layout");
CT_KCPOW(c64, ct_complex64, float, cpowf, csqrtf)
CT_KCPOW(c128, ct_complex128, double, cpow, csqrt)


#define CT_KLOOP_IDIV(NAME, T, FN)                                                                 \
    CT_KLOOP_STRIDED(NAME, T, if (y == 0) return CT_KERNEL_ZERO_DIVISION; r = FN(x, y))

#define CT_KLOOPS_EXT_BITS(P, S, T)                                                                \
    CT_KLOOP_STRIDED(P##_band_##S, T, r = ct_kband_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_bor_##S, T, r = ct_kbor_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_bxor_##S, T, r = ct_kbxor_##S(x, y))
#define CT_KENTRIES_EXT_BITS(P, E, S)                                                              \
    [CT_BINOP_BITWISE_AND][CT_##E] = P##_band_##S, [CT_BINOP_BITWISE_OR][CT_##E] = P##_bor_##S,    \
    [CT_BINOP_BITWISE_XOR][CT_##E] = P##_bxor_##S,

#define CT_KLOOPS_EXT_INT(P, S, T)                                                                 \
    CT_KLOOPS_EXT_BITS(P, S, T)                                                                    \
    CT_KLOOP_STRIDED(P##_lsh_##S, T, r = ct_klshift_##S(x, y))                                     \
    CT_KLOOP_STRIDED(P##_rsh_##S, T, r = ct_krshift_##S(x, y))                                     \
    CT_KLOOP_STRIDED(P##_pow_##S, T, r = ct_kpow_##S(x, y))                                        \
    CT_KLOOP_IDIV(P##_rem_##S, T, ct_krem_##S)                                                     \
    CT_KLOOP_IDIV(P##_fmod_##S, T, ct_kfmod_##S)
#define CT_KENTRIES_EXT_INT(P, E, S)                                                               \
    CT_KENTRIES_EXT_BITS(P, E, S)                                                                  \
    [CT_BINOP_LSHIFT][CT_##E] = P##_lsh_##S, [CT_BINOP_RSHIFT][CT_##E] = P##_rsh_##S,              \
    [CT_BINOP_POW][CT_##E] = P##_pow_##S, [CT_BINOP_POW_SCALAR][CT_##E] = P##_pow_##S,             \
    [CT_BINOP_REMAINDER][CT_##E] = P##_rem_##S, [CT_BINOP_FMOD][CT_##E] = P##_fmod_##S,

#define CT_KLOOPS_EXT_FLOAT(P, S, T)                                                               \
    CT_KLOOP_STRIDED(P##_pow_##S, T, r = ct_kpow_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_pows_##S, T, r = ct_kpows_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_rem_##S, T, r = ct_krem_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_fmod_##S, T, r = ct_kfmod_##S(x, y))                                      \
    CT_KLOOP_STRIDED(P##_atan2_##S, T, r = ct_katan2_##S(x, y))                                    \
    CT_KLOOP_STRIDED(P##_hypot_##S, T, r = ct_khypot_##S(x, y))
#define CT_KENTRIES_EXT_FLOAT(P, E, S)                                                             \
    [CT_BINOP_POW][CT_##E] = P##_pow_##S, [CT_BINOP_POW_SCALAR][CT_##E] = P##_pows_##S,            \
    [CT_BINOP_REMAINDER][CT_##E] = P##_rem_##S, [CT_BINOP_FMOD][CT_##E] = P##_fmod_##S,            \
    [CT_BINOP_ATAN2][CT_##E] = P##_atan2_##S, [CT_BINOP_HYPOT][CT_##E] = P##_hypot_##S,

#define CT_KLOOPS_EXT_COMPLEX(P, S, T)                                                             \
    CT_KLOOP_STRIDED(P##_pow_##S, T, r = ct_kpow_##S(x, y))                                        \
    CT_KLOOP_STRIDED(P##_pows_##S, T, r = ct_kpows_##S(x, y))
#define CT_KENTRIES_EXT_COMPLEX(P, E, S)                                                           \
    [CT_BINOP_POW][CT_##E] = P##_pow_##S, [CT_BINOP_POW_SCALAR][CT_##E] = P##_pows_##S,

#define CT_KLOOPS_EXT_b8 CT_KLOOPS_EXT_BITS
#define CT_KENTRIES_EXT_b8 CT_KENTRIES_EXT_BITS
#define CT_KLOOPS_EXT_u8 CT_KLOOPS_EXT_INT
#define CT_KENTRIES_EXT_u8 CT_KENTRIES_EXT_INT
#define CT_KLOOPS_EXT_i8 CT_KLOOPS_EXT_INT
#define CT_KENTRIES_EXT_i8 CT_KENTRIES_EXT_INT
#define CT_KLOOPS_EXT_i16 CT_KLOOPS_EXT_INT
#define CT_KENTRIES_EXT_i16 CT_KENTRIES_EXT_INT
#define CT_KLOOPS_EXT_i32 CT_KLOOPS_EXT_INT
#define CT_KENTRIES_EXT_i32 CT_KENTRIES_EXT_INT
#define CT_KLOOPS_EXT_i64 CT_KLOOPS_EXT_INT
#define CT_KENTRIES_EXT_i64 CT_KENTRIES_EXT_INT
#define CT_KLOOPS_EXT_u16(P, S, T)
#define CT_KENTRIES_EXT_u16(P, E, S)
#define CT_KLOOPS_EXT_u32(P, S, T)
#define CT_KENTRIES_EXT_u32(P, E, S)
#define CT_KLOOPS_EXT_u64(P, S, T)
#define CT_KENTRIES_EXT_u64(P, E, S)
#define CT_KLOOPS_EXT_f32 CT_KLOOPS_EXT_FLOAT
#define CT_KENTRIES_EXT_f32 CT_KENTRIES_EXT_FLOAT
#define CT_KLOOPS_EXT_f64 CT_KLOOPS_EXT_FLOAT
#define CT_KENTRIES_EXT_f64 CT_KENTRIES_EXT_FLOAT
#define CT_KLOOPS_EXT_c64 CT_KLOOPS_EXT_COMPLEX
#define CT_KENTRIES_EXT_c64 CT_KENTRIES_EXT_COMPLEX
#define CT_KLOOPS_EXT_c128 CT_KLOOPS_EXT_COMPLEX
#define CT_KENTRIES_EXT_c128 CT_KENTRIES_EXT_COMPLEX

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
