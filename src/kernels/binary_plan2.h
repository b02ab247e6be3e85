/* One element of a BINARY launch for the kernel rows after DIV_FLOOR (ctensor/ops.def): the
 * comparisons and logical ops (a bool result), maximum minimum fmax fmin, pow remainder fmod
 * atan2 hypot, the bitwise ops and shifts, pow with a Python-number exponent.
 *
 * The same split as binary_plan.h, whose ct_kplan it fills: ct_kplan_init_all decides on the
 * host what the cpu's prepared kernels (binary_kernel.c, compare.c) decide for the launch's
 * op and dtypes, and ct_kelem2_<math> computes one element with binary_elem.h's functions,
 * compiled as C for the host-executed launches (tests/unit/launch_host.h) and under nvcc for
 * the GPU (src/cuda/kernels_binary2.cu). Kept apart from binary_plan.h so that
 * kernels_binary.cu (add sub mul div) does not compile these ops' code. */
#ifndef CT_KERNELS_BINARY_PLAN2_H
#define CT_KERNELS_BINARY_PLAN2_H

#include "kernels/binary_plan.h"

/* ops.def's kernel rows, counted as the launch's binop counts them */
enum {
#define CT_OP_KERNEL(E, cpu_name) CT_KB_##E,
#include "ctensor/ops.def"
#undef CT_OP_KERNEL
    CT_KB_COUNT
};

/* The plan ops of this header (after binary_plan.h's); EQ..ISCLOSE give a 0/1 bool result. */
enum {
    CT_KP_EQ = 32,
    CT_KP_NE,
    CT_KP_LT,
    CT_KP_LE,
    CT_KP_GT,
    CT_KP_GE,
    CT_KP_LAND,
    CT_KP_LOR,
    CT_KP_LXOR,
    /* the classifications (read x only) and isclose: EQ launches with a cmpop (backend.h) */
    CT_KP_ISNAN,
    CT_KP_ISINF,
    CT_KP_ISFINITE,
    CT_KP_ISPOSINF,
    CT_KP_ISNEGINF,
    CT_KP_ISREAL,
    CT_KP_ISCLOSE, /* the last bool-result op */
    CT_KP_MAX,
    CT_KP_MIN,
    CT_KP_FMAX,
    CT_KP_FMIN,
    CT_KP_POW,
    CT_KP_POWS, /* pow.Tensor_Scalar's special exponents (floats; integers are CT_KP_POW) */
    CT_KP_REM,
    CT_KP_FMOD,
    CT_KP_ATAN2,
    CT_KP_HYPOT,
    CT_KP_BAND,
    CT_KP_BOR,
    CT_KP_BXOR,
    CT_KP_LSH,
    CT_KP_RSH
};

/* Which math dtypes have which ops: the cpu's loop tables (binary_elem_impl.h, compare.c).
 * uint16..uint64 have no pow .. shift loops; complex has eq, ne and the logical ops here
 * (complex pow is C's cpow on the cpu, which has no device form: the core does not launch it). */
static inline bool ct_kplan2_has(int op, ct_dtype math) {
    bool b = math == CT_BOOL;
    bool ext_int = math == CT_UINT8 || math == CT_INT8 || math == CT_INT16 || math == CT_INT32 ||
                   math == CT_INT64;
    bool flt = math == CT_FLOAT32 || math == CT_FLOAT64;
    bool cx = math == CT_COMPLEX64 || math == CT_COMPLEX128;
    switch (op) {
    case CT_KP_EQ:
    case CT_KP_NE:
    case CT_KP_LAND:
    case CT_KP_LOR:
    case CT_KP_LXOR:
        return true;
    case CT_KP_LT:
    case CT_KP_LE:
    case CT_KP_GT:
    case CT_KP_GE:
    case CT_KP_MAX:
    case CT_KP_MIN:
    case CT_KP_FMAX:
    case CT_KP_FMIN:
        return !cx;
    case CT_KP_POW:
    case CT_KP_REM:
    case CT_KP_FMOD:
        return ext_int || flt;
    case CT_KP_POWS:
    case CT_KP_ATAN2:
    case CT_KP_HYPOT:
        return flt;
    case CT_KP_BAND:
    case CT_KP_BOR:
    case CT_KP_BXOR:
        return b || ext_int;
    case CT_KP_LSH:
    case CT_KP_RSH:
        return ext_int;
    /* compare.c's tables: every dtype classifies (complex has no isposinf / isneginf);
     * isclose computes in a float or complex dtype (integers in the default dtype) */
    case CT_KP_ISNAN:
    case CT_KP_ISINF:
    case CT_KP_ISFINITE:
    case CT_KP_ISREAL:
        return true;
    case CT_KP_ISPOSINF:
    case CT_KP_ISNEGINF:
        return !cx;
    case CT_KP_ISCLOSE:
        return flt || cx;
    default:
        return false;
    }
}

/* The plan of any BINARY launch: binary_plan.h's ct_kplan_init for ADD..DIV_FLOOR, the
 * decisions of binary_kernel.c / compare.c for the later rows. false when the cpu has no
 * loop for the op and math dtype, or for dtypes without conversions. Host code only. */
static inline bool ct_kplan_init_all(ct_kplan *p, const ct_kernel_launch *l) {
    if (l->binop <= CT_KB_DIV_FLOOR)
        return ct_kplan_init(p, l);
    memset(p, 0, sizeof *p);
    ct_dtype compute = l->compute, math = l->math;
    int binop = l->binop;
    bool reduced = compute == CT_FLOAT16 || compute == CT_BFLOAT16;
    bool is_int = math == CT_UINT8 || math == CT_INT8 || math == CT_UINT16 || math == CT_INT16 ||
                  math == CT_UINT32 || math == CT_INT32 || math == CT_UINT64 || math == CT_INT64;
    if (l->kind != CT_LAUNCH_BINARY || l->noperands != 3 || binop >= CT_KB_COUNT)
        return false;
    for (int k = 0; k < 3; k++)
        if ((int)l->dtype[k] < 0 || (int)l->dtype[k] >= CT_NUM_DTYPES ||
            l->dtype[k] == CT_FLOAT4_E2M1FN_X2)
            return false;
    int op;
    if (l->cmpop != 0 && binop != CT_KB_EQ)
        return false;
    if (l->cmpop != 0)
        op = l->cmpop >= CT_LAUNCH_CMP_ISNAN && l->cmpop <= CT_LAUNCH_CMP_ISCLOSE
                 ? CT_KP_ISNAN + (l->cmpop - CT_LAUNCH_CMP_ISNAN)
                 : -1;
    else if (binop >= CT_KB_EQ && binop <= CT_KB_GE)
        op = CT_KP_EQ + (binop - CT_KB_EQ);
    else if (binop >= CT_KB_LOGICAL_AND && binop <= CT_KB_LOGICAL_XOR)
        op = CT_KP_LAND + (binop - CT_KB_LOGICAL_AND);
    else if (binop >= CT_KB_MAXIMUM && binop <= CT_KB_FMIN)
        op = CT_KP_MAX + (binop - CT_KB_MAXIMUM);
    else if (binop == CT_KB_POW)
        op = CT_KP_POW;
    else if (binop >= CT_KB_REMAINDER && binop <= CT_KB_RSHIFT)
        op = CT_KP_REM + (binop - CT_KB_REMAINDER); /* REMAINDER.. RSHIFT in the same order */
    else if (binop == CT_KB_POW_SCALAR)
        /* torch 1.13's pow.Tensor_Scalar on Half is std::pow; integers have one pow */
        op = is_int || compute == CT_FLOAT16 ? CT_KP_POW : CT_KP_POWS;
    else
        return false;
    if (!ct_kplan2_has(op, math))
        return false;
    bool bool_result = op <= CT_KP_ISCLOSE;
    if (op == CT_KP_ISCLOSE) {
        if (!(l->cmp_rtol >= 0) || !(l->cmp_atol >= 0))
            return false;
        p->rtol = l->cmp_rtol;
        p->atol = l->cmp_atol;
        p->equal_nan = l->cmp_equal_nan;
    }
    /* newest PyTorch's is_scalar(2) read of b in float32 (binary_kernel.c): the rows before
     * pow, except the comparisons (compare.c has none) */
    bool b_opmath = (l->flags & CT_LAUNCH_B_IS_SCALAR) && reduced && !bool_result &&
                    binop < CT_KB_POW;
    bool via = compute != math;
    p->op = op;
    p->math = math;
    p->compute = compute;
    p->dt_out = l->dtype[0];
    p->dt_a = l->dtype[1];
    p->dt_b = l->dtype[2];
    p->math_size = ct_cvt_itemsize(math);
    p->via_a = via && l->dtype[1] != compute;
    p->via_b = via && l->dtype[2] != compute && !b_opmath;
    p->via_out = via && l->dtype[0] != compute && !bool_result;
    /* integer remainder / fmod: a zero divisor is the cpu's ZeroDivisionError */
    p->int_div = is_int && (op == CT_KP_REM || op == CT_KP_FMOD);
    return true;
}

/* The bool-result ops of a math dtype (suffix S): EQ_ROWS eq and ne only (complex) or all
 * six comparisons; every dtype has the logical ops. */
#define CT_KE2_CASE(OP, FN, S)                                                                     \
    case CT_KP_##OP:                                                                               \
        c = ct_k##FN##_##S(x, y);                                                                  \
        break;
#define CT_KE2_RCASE(OP, FN, S)                                                                    \
    case CT_KP_##OP:                                                                               \
        r = ct_k##FN##_##S(x, y);                                                                  \
        break;
#define CT_KE2_CMP_EQ(S) CT_KE2_CASE(EQ, eq, S) CT_KE2_CASE(NE, ne, S)
#define CT_KE2_CMP_ALL(S)                                                                          \
    CT_KE2_CMP_EQ(S) CT_KE2_CASE(LT, lt, S) CT_KE2_CASE(LE, le, S) CT_KE2_CASE(GT, gt, S)         \
        CT_KE2_CASE(GE, ge, S)
#define CT_KE2_LOGICAL(S)                                                                          \
    CT_KE2_CASE(LAND, land, S) CT_KE2_CASE(LOR, lor, S) CT_KE2_CASE(LXOR, lxor, S)
/* the classifications: CLASS4 every dtype, CLASS6 the real ones */
#define CT_KE2_CLASS4(S)                                                                           \
    CT_KE2_CASE(ISNAN, isnan, S) CT_KE2_CASE(ISINF, isinf, S) CT_KE2_CASE(ISFINITE, isfinite, S)  \
        CT_KE2_CASE(ISREAL, isreal, S)
#define CT_KE2_CLASS6(S)                                                                           \
    CT_KE2_CLASS4(S) CT_KE2_CASE(ISPOSINF, isposinf, S) CT_KE2_CASE(ISNEGINF, isneginf, S)
/* isclose as compare.c's close_loop_of: float32 math rounds every step to float16 or
 * bfloat16 when that is the computation dtype; the tolerances in the math's real type */
#define CT_KE2_CLOSE_F32(S)                                                                        \
    case CT_KP_ISCLOSE:                                                                            \
        c = p->compute == CT_FLOAT16                                                               \
                ? ct_kisclose_rf16(x, y, (float)p->rtol, (float)p->atol, p->equal_nan)             \
            : p->compute == CT_BFLOAT16                                                            \
                ? ct_kisclose_rbf16(x, y, (float)p->rtol, (float)p->atol, p->equal_nan)            \
                : ct_kisclose_f32(x, y, (float)p->rtol, (float)p->atol, p->equal_nan);             \
        break;
#define CT_KE2_CLOSE(S, R)                                                                         \
    case CT_KP_ISCLOSE:                                                                            \
        c = ct_kisclose_##S(x, y, (R)p->rtol, (R)p->atol, p->equal_nan);                           \
        break;
#define CT_KE2_CMP_INT(S) CT_KE2_CMP_ALL(S) CT_KE2_CLASS6(S)
#define CT_KE2_CMP_F32(S) CT_KE2_CMP_ALL(S) CT_KE2_CLASS6(S) CT_KE2_CLOSE_F32(S)
#define CT_KE2_CMP_F64(S) CT_KE2_CMP_ALL(S) CT_KE2_CLASS6(S) CT_KE2_CLOSE(S, double)
#define CT_KE2_CMP_C64(S) CT_KE2_CMP_EQ(S) CT_KE2_CLASS4(S) CT_KE2_CLOSE(S, float)
#define CT_KE2_CMP_C128(S) CT_KE2_CMP_EQ(S) CT_KE2_CLASS4(S) CT_KE2_CLOSE(S, double)
#define CT_KE2_MINMAX(S)                                                                           \
    CT_KE2_RCASE(MAX, max, S) CT_KE2_RCASE(MIN, min, S) CT_KE2_RCASE(FMAX, fmax, S)               \
        CT_KE2_RCASE(FMIN, fmin, S)
#define CT_KE2_BITS(S)                                                                             \
    CT_KE2_RCASE(BAND, band, S) CT_KE2_RCASE(BOR, bor, S) CT_KE2_RCASE(BXOR, bxor, S)
/* integers: pow (pow.Tensor_Scalar too), remainder and fmod after a zero check, shifts */
#define CT_KE2_INT_EXT(S)                                                                          \
    CT_KE2_BITS(S)                                                                                 \
    CT_KE2_RCASE(LSH, lshift, S)                                                                   \
    CT_KE2_RCASE(RSH, rshift, S)                                                                   \
    CT_KE2_RCASE(POW, pow, S)                                                                      \
    case CT_KP_REM:                                                                                \
        if (y == 0)                                                                                \
            return CT_KP_ZERO_DIVISION;                                                            \
        r = ct_krem_##S(x, y);                                                                     \
        break;                                                                                     \
    case CT_KP_FMOD:                                                                               \
        if (y == 0)                                                                                \
            return CT_KP_ZERO_DIVISION;                                                            \
        r = ct_kfmod_##S(x, y);                                                                    \
        break;
#define CT_KE2_FLOAT_EXT(S)                                                                        \
    CT_KE2_RCASE(POW, pow, S)                                                                      \
    CT_KE2_RCASE(POWS, pows, S)                                                                    \
    CT_KE2_RCASE(REM, rem, S)                                                                      \
    CT_KE2_RCASE(FMOD, fmod, S) CT_KE2_RCASE(ATAN2, atan2, S) CT_KE2_RCASE(HYPOT, hypot, S)
#define CT_KE2_NONE(S)

/* ct_kcmp2_<S>(plan, x, y): the 0/1 result of a bool-result op; ct_kop2_<S>(plan, x, y, &r):
 * the others, CT_KP_OK or CT_KP_ZERO_DIVISION (nothing written then); ct_kelem2_<S>(plan,
 * out, a, b): one element from and to memory (a bool result converted to the output's dtype,
 * as compare.c's cvt_out). The op switch is the same for every element of a launch. */
#define CT_KELEM2(E, S, T, CMP, VALUE)                                                             \
    CT_HD uint8_t ct_kcmp2_##S(const ct_kplan *p, T x, T y) {                                      \
        uint8_t c = 0;                                                                             \
        switch (p->op) {                                                                           \
            CMP(S)                                                                                 \
            CT_KE2_LOGICAL(S)                                                                      \
        default: /* ct_kplan_init_all never makes one */                                           \
            break;                                                                                 \
        }                                                                                          \
        return c;                                                                                  \
    }                                                                                              \
    CT_HD int ct_kop2_##S(const ct_kplan *p, T x, T y, T *rp) {                                    \
        T r = x;                                                                                   \
        (void)y; /* (complex: no value ops here) */                                                \
        switch (p->op) {                                                                           \
            VALUE(S)                                                                               \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        *rp = r;                                                                                   \
        return CT_KP_OK;                                                                           \
    }                                                                                              \
    CT_HD int ct_kelem2_##S(const ct_kplan *p, char *o, const char *a, const char *b) {            \
        T x, y;                                                                                    \
        CT_KPLAN_LOAD(p, CT_##E, p->dt_a, p->via_a, a, x);                                         \
        CT_KPLAN_LOAD(p, CT_##E, p->dt_b, p->via_b, b, y);                                         \
        if (p->op <= CT_KP_ISCLOSE) {                                                              \
            uint8_t c = ct_kcmp2_##S(p, x, y);                                                     \
            if (p->dt_out == CT_BOOL)                                                              \
                *(uint8_t *)o = c;                                                                 \
            else                                                                                   \
                ct_cvt_elem((ct_dtype)p->dt_out, o, CT_BOOL, &c);                                  \
            return CT_KP_OK;                                                                       \
        }                                                                                          \
        T r;                                                                                       \
        int code = ct_kop2_##S(p, x, y, &r);                                                       \
        if (code != CT_KP_OK)                                                                      \
            return code;                                                                           \
        CT_KPLAN_STORE(p, CT_##E, o, r);                                                           \
        return CT_KP_OK;                                                                           \
    }

#define CT_KE2_V_B8(S) CT_KE2_MINMAX(S) CT_KE2_BITS(S)
#define CT_KE2_V_INT(S) CT_KE2_MINMAX(S) CT_KE2_INT_EXT(S)
#define CT_KE2_V_UWIDE(S) CT_KE2_MINMAX(S)
#define CT_KE2_V_FLOAT(S) CT_KE2_MINMAX(S) CT_KE2_FLOAT_EXT(S)

CT_KELEM2(BOOL, b8, uint8_t, CT_KE2_CMP_INT, CT_KE2_V_B8)
CT_KELEM2(UINT8, u8, uint8_t, CT_KE2_CMP_INT, CT_KE2_V_INT)
CT_KELEM2(INT8, i8, int8_t, CT_KE2_CMP_INT, CT_KE2_V_INT)
CT_KELEM2(UINT16, u16, uint16_t, CT_KE2_CMP_INT, CT_KE2_V_UWIDE)
CT_KELEM2(INT16, i16, int16_t, CT_KE2_CMP_INT, CT_KE2_V_INT)
CT_KELEM2(UINT32, u32, uint32_t, CT_KE2_CMP_INT, CT_KE2_V_UWIDE)
CT_KELEM2(INT32, i32, int32_t, CT_KE2_CMP_INT, CT_KE2_V_INT)
CT_KELEM2(UINT64, u64, uint64_t, CT_KE2_CMP_INT, CT_KE2_V_UWIDE)
CT_KELEM2(INT64, i64, int64_t, CT_KE2_CMP_INT, CT_KE2_V_INT)
CT_KELEM2(FLOAT32, f32, float, CT_KE2_CMP_F32, CT_KE2_V_FLOAT)
CT_KELEM2(FLOAT64, f64, double, CT_KE2_CMP_F64, CT_KE2_V_FLOAT)
CT_KELEM2(COMPLEX64, c64, ct_complex64, CT_KE2_CMP_C64, CT_KE2_NONE)
CT_KELEM2(COMPLEX128, c128, ct_complex128, CT_KE2_CMP_C128, CT_KE2_NONE)

/* One element of any plan op: binary_plan.h's ct_kelem_<S> below CT_KP_EQ, else ct_kelem2. */
#define CT_KELEM_ANY(S, p, o, a, b)                                                                \
    ((p)->op >= CT_KP_EQ ? ct_kelem2_##S((p), (o), (a), (b)) : ct_kelem_##S((p), (o), (a), (b)))

#endif /* CT_KERNELS_BINARY_PLAN2_H */
