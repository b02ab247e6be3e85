/* One element of a UNARY launch (ctensor/backend.h) as the cpu's prepared unary kernel
 * (unary_kernel.c) computes it: the input converted to the math dtype (through the
 * computation dtype first where unary_kernel.c does so), the element function of
 * unary_elem.h, the result rounded once to the result dtype and converted to the output's.
 * Compiled as C (the host-executed launches of tests/unit/launch_host_unary.c) and under
 * nvcc (src/cuda/kernels_unary.cu), so that what CI checks on the host is the code the GPU
 * runs (Note [One definition per element] in binary_elem.h).
 *
 * Complex math: unary_elem.h's complex functions are C99 <complex.h>, C only. The ones
 * spelt here on ct_complex64 / ct_complex128 (neg, positive, abs, sgn, logical_not) give
 * the bytes of the C ones (abs is hypot, as glibc's cabs; sgn divides each part by it, as C
 * divides a complex by a real); the other complex ops have no device kernel yet
 * (ct_uplan_init refuses them). */
#ifndef CT_KERNELS_UNARY_PLAN_H
#define CT_KERNELS_UNARY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ctensor/backend.h"
#include "dtype/convert/elem_impl.h"
#include "kernels/unary_elem.h"

/* The rows of unary.def, numbered as ct_unop (kept apart from kernels/unary.h, which is
 * host-only). */
enum {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) CT_UP_##E,
#include "ctensor/unary.def"
#undef CT_UNARY
    CT_UP_COUNT
};

/* The decisions, small enough to pass to a GPU kernel by value. */
typedef struct ct_uplan {
    int32_t op;                  /* CT_UP_* */
    int32_t math, compute;       /* ct_dtype values */
    int32_t out_math, result;    /* the function's result dtype; what it rounds to */
    int32_t dt_out, dt_in;       /* the operands' dtypes */
    bool via_in;                 /* the input is rounded to the computation dtype first */
    bool via_out;                /* the result is rounded to `result` before dt_out */
    /* round(decimals=) (CT_LAUNCH_ROUND_DECIMALS): 10^|decimals| in the math dtype (rounded
     * to float16 / bfloat16 for those), divide first for negative decimals, the rounding of
     * every step (ct_un_round_dec_f32's `narrow`) */
    bool round_dec, round_div;
    int32_t round_narrow;
    double round_m;
} ct_uplan;

/* The math dtype of a computation dtype (unary_kernel.c's math_of). */
static inline ct_dtype ct_uplan_math(ct_dtype compute) {
    switch (compute) {
    case CT_FLOAT16:
    case CT_BFLOAT16:
        return CT_FLOAT32;
    case CT_COMPLEX32:
        return CT_COMPLEX64;
    default:
        return compute;
    }
}

/* Whether a device kernel exists for `op` in math dtype `math`: the cpu's loops (unary_loops.c)
 * for bool, integers and floats; for complex only the ops spelt below. */
static inline bool ct_uplan_supported(int op, ct_dtype math) {
    switch (math) {
    case CT_BOOL:
        return op == CT_UP_SIGN || op == CT_UP_SGN || op == CT_UP_LOGICAL_NOT ||
               op == CT_UP_BITWISE_NOT;
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
        return op == CT_UP_NEG || op == CT_UP_POSITIVE || op == CT_UP_ABS || op == CT_UP_SIGN ||
               op == CT_UP_SGN || op == CT_UP_FLOOR || op == CT_UP_CEIL || op == CT_UP_TRUNC ||
               op == CT_UP_ROUND || op == CT_UP_LOGICAL_NOT || op == CT_UP_BITWISE_NOT ||
               op == CT_UP_RELU;
    case CT_FLOAT32:
    case CT_FLOAT64:
        return op >= 0 && op < CT_UP_COUNT && op != CT_UP_BITWISE_NOT;
    case CT_COMPLEX64:
    case CT_COMPLEX128:
        return op == CT_UP_NEG || op == CT_UP_POSITIVE || op == CT_UP_ABS || op == CT_UP_SGN ||
               op == CT_UP_LOGICAL_NOT;
    default:
        return false;
    }
}

/* The plan of a UNARY launch; false when there is no device kernel for its op and math
 * dtype (the caller reports "\"<name>\" not implemented for '<compute>'"), or the launch is
 * not a UNARY one. Host code only. */
static inline bool ct_uplan_init(ct_uplan *p, const ct_kernel_launch *l) {
    memset(p, 0, sizeof *p);
    if (l->kind != CT_LAUNCH_UNARY || l->noperands != 2)
        return false;
    for (int k = 0; k < 2; k++)
        if ((int)l->dtype[k] < 0 || (int)l->dtype[k] >= CT_NUM_DTYPES ||
            l->dtype[k] == CT_FLOAT4_E2M1FN_X2)
            return false;
    ct_dtype compute = l->compute, math = l->math;
    if ((int)compute < 0 || (int)compute >= CT_NUM_DTYPES || math != ct_uplan_math(compute) ||
        !ct_uplan_supported(l->unop, math))
        return false;
    if (l->flags & CT_LAUNCH_ROUND_DECIMALS) {
        /* unary_kernel.c's ct_unary_impl_kernel_init_round */
        if (l->unop != CT_UP_ROUND || (math != CT_FLOAT32 && math != CT_FLOAT64) ||
            l->decimals == 0)
            return false;
        int64_t d = l->decimals < 0 ? -l->decimals : l->decimals;
        p->round_dec = true;
        p->round_div = l->decimals < 0;
        p->round_narrow = compute == CT_FLOAT16 ? 1 : compute == CT_BFLOAT16 ? 2 : 0;
        p->round_m = math == CT_FLOAT32
                         ? (double)ct_un_narrow_f32(powf(10.0f, (float)d), p->round_narrow)
                         : pow(10.0, (double)d);
    }
    p->op = l->unop;
    p->math = math;
    p->compute = compute;
    p->dt_out = l->dtype[0];
    p->dt_in = l->dtype[1];
    p->out_math = math;
    p->result = compute;
    if (l->unop == CT_UP_LOGICAL_NOT) {
        p->out_math = p->result = CT_BOOL;
    } else if (l->unop == CT_UP_ABS && (math == CT_COMPLEX64 || math == CT_COMPLEX128)) {
        p->out_math = p->result = math == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64;
    }
    /* unary_kernel.c: an input of another dtype than the computation dtype reaches a math
     * dtype of a different width through the computation dtype (int -> float16 -> float32) */
    p->via_in = p->dt_in != compute && compute != math;
    p->via_out = p->result != p->out_math && p->dt_out != p->result;
    return true;
}

#define CT_UPLAN_LOAD(p, M, src, x)                                                                \
    do {                                                                                           \
        if ((p)->via_in) {                                                                         \
            unsigned char tmp_[16];                                                                \
            ct_cvt_elem((ct_dtype)(p)->compute, tmp_, (ct_dtype)(p)->dt_in, (src));                \
            ct_cvt_elem(M, &(x), (ct_dtype)(p)->compute, tmp_);                                    \
        } else if ((p)->dt_in == M) {                                                              \
            ct_cvt_read(&(x), (src));                                                              \
        } else {                                                                                   \
            ct_cvt_elem(M, &(x), (ct_dtype)(p)->dt_in, (src));                                     \
        }                                                                                          \
    } while (0)

#define CT_UPLAN_STORE(p, M, out, r)                                                               \
    do {                                                                                           \
        if ((p)->via_out) {                                                                        \
            unsigned char tmp_[16];                                                                \
            ct_cvt_elem((ct_dtype)(p)->result, tmp_, M, &(r));                                     \
            ct_cvt_elem((ct_dtype)(p)->dt_out, (out), (ct_dtype)(p)->result, tmp_);                \
        } else if ((p)->dt_out == M) {                                                             \
            ct_cvt_write((out), &(r));                                                             \
        } else {                                                                                   \
            ct_cvt_elem((ct_dtype)(p)->dt_out, (out), M, &(r));                                    \
        }                                                                                          \
    } while (0)

/* round, or round(decimals=) as the plan says */
CT_HD float ct_up_round_f32(const ct_uplan *p, float x) {
    return p->round_dec ? ct_un_round_dec_f32(x, (float)p->round_m, p->round_div, p->round_narrow)
                        : ct_un_round_f32(x);
}
CT_HD double ct_up_round_f64(const ct_uplan *p, double x) {
    return p->round_dec ? ct_un_round_dec_f64(x, p->round_m, p->round_div) : ct_un_round_f64(x);
}

/* ---- complex elements (see the top) -------------------------------------------------------- */
#define CT_UP_COMPLEX(S, T, R, F)                                                                  \
    CT_HD T ct_up_neg_##S(T x) {                                                                   \
        T r;                                                                                       \
        r.re = -x.re;                                                                              \
        r.im = -x.im;                                                                              \
        return r;                                                                                  \
    }                                                                                              \
    CT_HD R ct_up_abs_##S(T x) { return hypot##F(x.re, x.im); }                                    \
    CT_HD T ct_up_sgn_##S(T x) {                                                                   \
        R a = hypot##F(x.re, x.im);                                                                \
        T r;                                                                                       \
        r.re = a == 0 ? (R)0 : x.re / a;                                                           \
        r.im = a == 0 ? (R)0 : x.im / a;                                                           \
        return r;                                                                                  \
    }                                                                                              \
    CT_HD uint8_t ct_up_logical_not_##S(T x) { return (uint8_t)(x.re == 0 && x.im == 0); }
CT_UP_COMPLEX(c64, ct_complex64, float, f)
CT_UP_COMPLEX(c128, ct_complex128, double, )

/* ct_uelem_<math>(plan, out, in): one element from and to memory; 0, or 1 for an op the
 * plan never has for that math dtype (nothing written). */
#define CT_UELEM_HEAD(E, S, T)                                                                     \
    CT_HD int ct_uelem_##S(const ct_uplan *p, char *o, const char *i) {                            \
        T x, r;                                                                                    \
        CT_UPLAN_LOAD(p, CT_##E, i, x);                                                            \
        switch (p->op) {
#define CT_UCASE(OP, FN)                                                                           \
    case CT_UP_##OP:                                                                               \
        r = FN(x);                                                                                 \
        break;
#define CT_UCASE_BOOL(FN)                                                                          \
    case CT_UP_LOGICAL_NOT: {                                                                      \
        uint8_t b_ = FN(x);                                                                        \
        CT_UPLAN_STORE(p, CT_BOOL, o, b_);                                                         \
        return 0;                                                                                  \
    }
#define CT_UELEM_END(E)                                                                            \
    default:                                                                                       \
        return 1;                                                                                  \
        }                                                                                          \
        CT_UPLAN_STORE(p, CT_##E, o, r);                                                           \
        return 0;                                                                                  \
        }

CT_UELEM_HEAD(BOOL, b8, uint8_t)
CT_UCASE(SIGN, ct_un_sign_b8)
CT_UCASE(SGN, ct_un_sign_b8)
CT_UCASE(BITWISE_NOT, ct_un_bitwise_not_b8)
CT_UCASE_BOOL(ct_un_logical_not_b8)
CT_UELEM_END(BOOL)

#define CT_UELEM_INT(E, S, T)                                                                      \
    CT_UELEM_HEAD(E, S, T)                                                                         \
    CT_UCASE(NEG, ct_un_neg_##S)                                                                   \
    CT_UCASE(POSITIVE, ct_un_positive_##S)                                                         \
    CT_UCASE(ABS, ct_un_abs_##S)                                                                   \
    CT_UCASE(SIGN, ct_un_sign_##S)                                                                 \
    CT_UCASE(SGN, ct_un_sign_##S)                                                                  \
    CT_UCASE(FLOOR, ct_un_floor_##S)                                                               \
    CT_UCASE(CEIL, ct_un_floor_##S)                                                                \
    CT_UCASE(TRUNC, ct_un_floor_##S)                                                               \
    CT_UCASE(ROUND, ct_un_floor_##S)                                                               \
    CT_UCASE(BITWISE_NOT, ct_un_bitwise_not_##S)                                                   \
    CT_UCASE(RELU, ct_un_relu_##S)                                                                 \
    CT_UCASE_BOOL(ct_un_logical_not_##S)                                                           \
    CT_UELEM_END(E)
CT_UELEM_INT(UINT8, u8, uint8_t)
CT_UELEM_INT(INT8, i8, int8_t)
CT_UELEM_INT(INT16, i16, int16_t)
CT_UELEM_INT(INT32, i32, int32_t)
CT_UELEM_INT(INT64, i64, int64_t)

#define CT_UELEM_FLOAT(E, S, T)                                                                    \
    CT_UELEM_HEAD(E, S, T)                                                                         \
    CT_UCASE(NEG, ct_un_neg_##S)                                                                   \
    CT_UCASE(POSITIVE, ct_un_positive_##S)                                                         \
    CT_UCASE(ABS, ct_un_abs_##S)                                                                   \
    CT_UCASE(SIGN, ct_un_sign_##S)                                                                 \
    CT_UCASE(SGN, ct_un_sgn_##S)                                                                   \
    CT_UCASE(FLOOR, ct_un_floor_##S)                                                               \
    CT_UCASE(CEIL, ct_un_ceil_##S)                                                                 \
    CT_UCASE(TRUNC, ct_un_trunc_##S)                                                               \
    CT_UCASE(FRAC, ct_un_frac_##S)                                                                 \
    case CT_UP_ROUND:                                                                              \
        r = ct_up_round_##S(p, x);                                                                 \
        break;                                                                                     \
    CT_UCASE(RECIPROCAL, ct_un_reciprocal_##S)                                                     \
    CT_UCASE(EXP, ct_un_exp_##S)                                                                   \
    CT_UCASE(EXPM1, ct_un_expm1_##S)                                                               \
    CT_UCASE(EXP2, ct_un_exp2_##S)                                                                 \
    CT_UCASE(LOG, ct_un_log_##S)                                                                   \
    CT_UCASE(LOG1P, ct_un_log1p_##S)                                                               \
    CT_UCASE(LOG2, ct_un_log2_##S)                                                                 \
    CT_UCASE(LOG10, ct_un_log10_##S)                                                               \
    CT_UCASE(SQRT, ct_un_sqrt_##S)                                                                 \
    CT_UCASE(RSQRT, ct_un_rsqrt_##S)                                                               \
    CT_UCASE(SIN, ct_un_sin_##S)                                                                   \
    CT_UCASE(COS, ct_un_cos_##S)                                                                   \
    CT_UCASE(TAN, ct_un_tan_##S)                                                                   \
    CT_UCASE(ASIN, ct_un_asin_##S)                                                                 \
    CT_UCASE(ACOS, ct_un_acos_##S)                                                                 \
    CT_UCASE(ATAN, ct_un_atan_##S)                                                                 \
    CT_UCASE(SINH, ct_un_sinh_##S)                                                                 \
    CT_UCASE(COSH, ct_un_cosh_##S)                                                                 \
    CT_UCASE(TANH, ct_un_tanh_##S)                                                                 \
    CT_UCASE(ASINH, ct_un_asinh_##S)                                                               \
    CT_UCASE(ACOSH, ct_un_acosh_##S)                                                               \
    CT_UCASE(ATANH, ct_un_atanh_##S)                                                               \
    CT_UCASE(SIGMOID, ct_un_sigmoid_##S)                                                           \
    CT_UCASE(ERF, ct_un_erf_##S)                                                                   \
    CT_UCASE(ERFC, ct_un_erfc_##S)                                                                 \
    CT_UCASE(RELU, ct_un_relu_##S)                                                                 \
    CT_UCASE_BOOL(ct_un_logical_not_##S)                                                           \
    CT_UELEM_END(E)
CT_UELEM_FLOAT(FLOAT32, f32, float)
CT_UELEM_FLOAT(FLOAT64, f64, double)

/* complex: abs stores the real result (its out_math) */
#define CT_UELEM_COMPLEX(E, S, T, RE)                                                              \
    CT_UELEM_HEAD(E, S, T)                                                                         \
    CT_UCASE(NEG, ct_up_neg_##S)                                                                   \
    case CT_UP_POSITIVE:                                                                           \
        r = x;                                                                                     \
        break;                                                                                     \
    CT_UCASE(SGN, ct_up_sgn_##S)                                                                   \
    case CT_UP_ABS: {                                                                              \
        ct_up_real_##RE a_ = ct_up_abs_##S(x);                                                     \
        CT_UPLAN_STORE(p, CT_##RE, o, a_);                                                         \
        return 0;                                                                                  \
    }                                                                                              \
    CT_UCASE_BOOL(ct_up_logical_not_##S)                                                           \
    CT_UELEM_END(E)
typedef float ct_up_real_FLOAT32;
typedef double ct_up_real_FLOAT64;
CT_UELEM_COMPLEX(COMPLEX64, c64, ct_complex64, FLOAT32)
CT_UELEM_COMPLEX(COMPLEX128, c128, ct_complex128, FLOAT64)

/* The math dtypes with their element function suffix and C type. */
#define CT_UPLAN_MATH_ROWS(X)                                                                      \
    X(BOOL, b8, uint8_t)                                                                           \
    X(UINT8, u8, uint8_t)                                                                          \
    X(INT8, i8, int8_t)                                                                            \
    X(INT16, i16, int16_t)                                                                         \
    X(INT32, i32, int32_t)                                                                         \
    X(INT64, i64, int64_t)                                                                         \
    X(FLOAT32, f32, float)                                                                         \
    X(FLOAT64, f64, double)                                                                        \
    X(COMPLEX64, c64, ct_complex64)                                                                \
    X(COMPLEX128, c128, ct_complex128)

#endif /* CT_KERNELS_UNARY_PLAN_H */
