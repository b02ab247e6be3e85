/* One element of a TERNARY launch (ctensor/backend.h) as the cpu's prepared ternary kernel
 * (ternary_kernel.c) computes it.
 *
 * ct_ternary_impl_kernel_init decides the math dtype (float32 for float16 / bfloat16
 * arithmetic; where and masked_fill select bits in the computation dtype), how each input
 * reaches it (straight, or rounded to the computation dtype first when its dtype is neither;
 * a Python number always straight) and how the result reaches the output (rounded once to
 * the computation dtype). ct_tplan_init makes the same decisions from a launch, and
 * ct_telem computes one element with them, from the element functions of ternary_elem.h and
 * the conversions of elem_impl.h. Compiled as C (the host-executed launches of
 * tests/unit/launch_host_ternary.c) and under nvcc (src/cuda/kernels_ternary.cu), so that
 * what CI checks on the host is the code the GPU runs (Note [One definition per element] in
 * binary_elem.h). */
#ifndef CT_KERNELS_TERNARY_PLAN_H
#define CT_KERNELS_TERNARY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ctensor/backend.h"
#include "dtype/convert/elem_impl.h"
#include "kernels/binary_plan.h" /* CT_KPLAN_LOAD, CT_KPLAN_STORE */
#include "kernels/ternary_elem.h"

/* ternary.def's rows, counted from 0 (backend.h's `terop`). */
enum {
    CT_TP_WHERE = 0,
    CT_TP_CLAMP,
    CT_TP_CLAMP_MIN,
    CT_TP_CLAMP_MAX,
    CT_TP_LERP,
    CT_TP_ADDCMUL,
    CT_TP_ADDCDIV,
    CT_TP_MASKED_FILL,
    CT_TP_COUNT
};

/* The decisions, small enough to pass to a GPU kernel by value. The field names compute,
 * dt_out and via_out are binary_plan.h's (its load and store macros read them). */
typedef struct ct_tplan {
    int32_t op;                 /* CT_TP_* */
    int32_t nin;                /* inputs: 3, or 2 (no third) */
    int32_t math, compute;      /* ct_dtype values */
    int32_t dt_out, dt[3];      /* the operands' dtypes */
    int32_t size;               /* bytes of a math (select: compute) element */
    bool select;                /* where, masked_fill: bits in compute */
    bool via[3], via_out;       /* rounded through the computation dtype */
    uint32_t by_value;          /* bit k: input k is scalar.bytes[k] */
    union {
        unsigned char bytes[3][16]; /* in the dtype the element reads input k in */
        double align_[6];
    } scalar;
    union {
        unsigned char bytes[16];    /* addcmul / addcdiv's value in the math dtype */
        double align_[2];
    } value;
} ct_tplan;

/* Which computation dtypes each row has a kernel for (ternary.def's dtypes column). */
static inline bool ct_tplan_supports(int op, ct_dtype compute) {
    bool b = compute == CT_BOOL;
    bool i = compute == CT_UINT8 || compute == CT_INT8 || compute == CT_INT16 ||
             compute == CT_INT32 || compute == CT_INT64;
    bool f = compute == CT_FLOAT16 || compute == CT_BFLOAT16 || compute == CT_FLOAT32 ||
             compute == CT_FLOAT64;
    bool c = compute == CT_COMPLEX64 || compute == CT_COMPLEX128;
    switch (op) {
    case CT_TP_WHERE:
    case CT_TP_MASKED_FILL: /* every dtype with an element width (not the packed float4) */
        return (int)compute >= 0 && (int)compute < CT_NUM_DTYPES &&
               compute != CT_FLOAT4_E2M1FN_X2;
    case CT_TP_CLAMP:
        return i || f;
    case CT_TP_CLAMP_MIN:
    case CT_TP_CLAMP_MAX:
        return b || i || f;
    case CT_TP_LERP:
    case CT_TP_ADDCDIV:
        return f || c;
    case CT_TP_ADDCMUL:
        return i || f || c;
    default:
        return false;
    }
}

/* The math dtype of a row for a computation dtype (ct_ternary_impl_math_dtype). */
static inline ct_dtype ct_tplan_math(int op, ct_dtype compute) {
    bool select = op == CT_TP_WHERE || op == CT_TP_MASKED_FILL;
    if (!select && (compute == CT_FLOAT16 || compute == CT_BFLOAT16))
        return CT_FLOAT32;
    return compute;
}

/* The dtype input k is read in: the math dtype, or its own for a condition / mask. */
static inline ct_dtype ct_tplan_in_math(int op, int k, ct_dtype math, ct_dtype dt) {
    if ((op == CT_TP_WHERE && k == 0) || (op == CT_TP_MASKED_FILL && k == 1))
        return dt;
    return math;
}

/* ternary_kernel.c's convert_in: an input goes from its dtype to `to` through `via` (the
 * computation dtype; `to` itself for a Python number) unless it is one of them already or
 * they are the same. */
static inline bool ct_tplan_needs_via(ct_dtype from, ct_dtype to, ct_dtype via) {
    return !(from == to || from == via || via == to);
}

/* The plan of a TERNARY launch. false when the launch asks for a row or dtype the cpu has
 * no kernel for, or is inconsistent (math not the row's math dtype, a condition that is not
 * bool or uint8). Host code only. */
static inline bool ct_tplan_init(ct_tplan *p, const ct_kernel_launch *l) {
    memset(p, 0, sizeof *p);
    int op = l->terop;
    if (l->kind != CT_LAUNCH_TERNARY || op < 0 || op >= CT_TP_COUNT)
        return false;
    int nin = op == CT_TP_CLAMP_MIN || op == CT_TP_CLAMP_MAX ? 2 : 3;
    if (l->noperands != nin + 1)
        return false;
    for (int k = 0; k <= nin; k++)
        if ((int)l->dtype[k] < 0 || (int)l->dtype[k] >= CT_NUM_DTYPES ||
            l->dtype[k] == CT_FLOAT4_E2M1FN_X2)
            return false;
    if (!ct_tplan_supports(op, l->compute) || l->math != ct_tplan_math(op, l->compute))
        return false;
    p->op = op;
    p->nin = nin;
    p->math = l->math;
    p->compute = l->compute;
    p->dt_out = l->dtype[0];
    p->select = op == CT_TP_WHERE || op == CT_TP_MASKED_FILL;
    p->size = ct_cvt_itemsize(l->math);
    for (int k = 0; k < nin; k++) {
        ct_dtype dt = l->dtype[k + 1];
        ct_dtype to = ct_tplan_in_math(op, k, l->math, dt);
        if (to == dt && to != l->math && dt != CT_BOOL && dt != CT_UINT8)
            return false; /* a condition / mask is bool or uint8 */
        bool number = (l->ter_number >> k) & 1u;
        p->dt[k] = dt;
        p->via[k] = ct_tplan_needs_via(dt, to, number ? to : l->compute);
        if ((l->ter_by_value >> k) & 1u) {
            p->by_value |= 1u << k;
            memcpy(p->scalar.bytes[k], l->ter_scalar[k], 16);
        }
    }
    p->via_out = l->compute != l->math && l->dtype[0] != l->compute;
    memcpy(p->value.bytes, l->ter_value, sizeof p->value.bytes);
    return true;
}

/* Input k of a plan into x (math type M): by value, or from memory by the plan's route. */
#define CT_TPLAN_LOAD(p, M, k, src, x)                                                             \
    do {                                                                                           \
        if (((p)->by_value >> (k)) & 1u)                                                           \
            memcpy(&(x), (p)->scalar.bytes[k], sizeof(x));                                         \
        else                                                                                       \
            CT_KPLAN_LOAD(p, M, (p)->dt[k], (p)->via[k], src, x);                                  \
    } while (0)

/* The arithmetic rows in math dtype M (suffix S, type T); FN(S) lists the row cases. */
#define CT_TELEM_HEAD(E, S, T)                                                                     \
    CT_HD void ct_telem_##S(const ct_tplan *p, char *o, const char *a, const char *b,              \
                            const char *c) {                                                       \
        T x, y, z, v, r;                                                                           \
        memcpy(&v, p->value.bytes, sizeof v);                                                      \
        CT_TPLAN_LOAD(p, CT_##E, 0, a, x);                                                         \
        CT_TPLAN_LOAD(p, CT_##E, 1, b, y);                                                         \
        if (p->nin == 3)                                                                           \
            CT_TPLAN_LOAD(p, CT_##E, 2, c, z);                                                     \
        else                                                                                       \
            z = y;                                                                                 \
        (void)v;                                                                                   \
        (void)z;                                                                                   \
        switch (p->op) {
#define CT_TELEM_TAIL(E, S, T)                                                                     \
        default: /* ct_tplan_init never makes one */                                               \
            r = x;                                                                                 \
            break;                                                                                 \
        }                                                                                          \
        CT_KPLAN_STORE(p, CT_##E, o, r);                                                           \
    }
#define CT_TELEM_CLAMPS(S)                                                                         \
    case CT_TP_CLAMP:                                                                              \
        r = ct_ter_clamp_##S(x, y, z);                                                             \
        break;                                                                                     \
    case CT_TP_CLAMP_MIN:                                                                          \
        r = ct_ter_clamp_min_##S(x, y);                                                            \
        break;                                                                                     \
    case CT_TP_CLAMP_MAX:                                                                          \
        r = ct_ter_clamp_max_##S(x, y);                                                            \
        break;
#define CT_TELEM_ARITH(S)                                                                          \
    case CT_TP_LERP:                                                                               \
        r = ct_ter_lerp_##S(x, y, z);                                                              \
        break;                                                                                     \
    case CT_TP_ADDCMUL:                                                                            \
        r = ct_ter_addcmul_##S(x, y, z, v);                                                        \
        break;                                                                                     \
    case CT_TP_ADDCDIV:                                                                            \
        r = ct_ter_addcdiv_##S(x, y, z, v);                                                        \
        break;

/* bool: the uint8 clamps on 0 / 1 (ternary_loops.c's B8 slot) */
#define CT_TELEM_B(E, S, T)                                                                        \
    CT_TELEM_HEAD(E, S, T)                                                                         \
    CT_TELEM_CLAMPS(u8)                                                                            \
    CT_TELEM_TAIL(E, S, T)
#define CT_TELEM_INT(E, S, T)                                                                      \
    CT_TELEM_HEAD(E, S, T)                                                                         \
    CT_TELEM_CLAMPS(S)                                                                             \
    case CT_TP_ADDCMUL:                                                                            \
        r = ct_ter_addcmul_##S(x, y, z, v);                                                        \
        break;                                                                                     \
        CT_TELEM_TAIL(E, S, T)
#define CT_TELEM_F(E, S, T)                                                                        \
    CT_TELEM_HEAD(E, S, T)                                                                         \
    CT_TELEM_CLAMPS(S)                                                                             \
    CT_TELEM_ARITH(S)                                                                              \
    CT_TELEM_TAIL(E, S, T)
#define CT_TELEM_C(E, S, T)                                                                        \
    CT_TELEM_HEAD(E, S, T)                                                                         \
    CT_TELEM_ARITH(S)                                                                              \
    CT_TELEM_TAIL(E, S, T)

CT_TELEM_B(BOOL, b8, uint8_t)
CT_TELEM_INT(UINT8, u8, uint8_t)
CT_TELEM_INT(INT8, i8, int8_t)
CT_TELEM_INT(INT16, i16, int16_t)
CT_TELEM_INT(INT32, i32, int32_t)
CT_TELEM_INT(INT64, i64, int64_t)
CT_TELEM_F(FLOAT32, f32, float)
CT_TELEM_F(FLOAT64, f64, double)
CT_TELEM_C(COMPLEX64, c64, ct_complex64)
CT_TELEM_C(COMPLEX128, c128, ct_complex128)

/* The arithmetic math dtypes with their suffix and C type. */
#define CT_TPLAN_MATH_ROWS(X)                                                                      \
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

/* A select value of any width, aligned for every dtype's element. */
typedef union ct_tsel_buf {
    unsigned char b[16];
    ct_complex128 c;
} ct_tsel_buf;

/* where (cond a, values b and c) and masked_fill (self a, mask b, value c) on element width
 * W (type T): the values in the computation dtype's bits, the condition as != 0. */
#define CT_TSEL_LOAD(p, T, k, src, x)                                                              \
    do {                                                                                           \
        if (((p)->by_value >> (k)) & 1u)                                                           \
            memcpy(&(x), (p)->scalar.bytes[k], sizeof(x));                                         \
        else if ((p)->dt[k] == (p)->compute)                                                       \
            ct_cvt_read(&(x), (src));                                                              \
        else {                                                                                     \
            ct_tsel_buf u_ = {{0}}; /* the compiler cannot see compute is x's width */             \
            ct_cvt_elem((ct_dtype)(p)->compute, u_.b, (ct_dtype)(p)->dt[k], (src));                \
            memcpy(&(x), u_.b, sizeof(x));                                                         \
        }                                                                                          \
    } while (0)
#define CT_TSEL_WIDTH(S, T)                                                                        \
    CT_HD void ct_tsel_##S(const ct_tplan *p, char *o, const char *a, const char *b,               \
                           const char *c) {                                                        \
        int ck = p->op == CT_TP_WHERE ? 0 : 1; /* the condition's input */                         \
        const char *cs = ck == 0 ? a : b;                                                          \
        uint8_t m;                                                                                 \
        if ((p->by_value >> ck) & 1u)                                                              \
            m = p->scalar.bytes[ck][0];                                                            \
        else                                                                                       \
            ct_cvt_read(&m, cs);                                                                   \
        T r;                                                                                       \
        if (p->op == CT_TP_WHERE) {                                                                \
            if (m != 0)                                                                            \
                CT_TSEL_LOAD(p, T, 1, b, r);                                                       \
            else                                                                                   \
                CT_TSEL_LOAD(p, T, 2, c, r);                                                       \
        } else {                                                                                   \
            if (m != 0)                                                                            \
                CT_TSEL_LOAD(p, T, 2, c, r);                                                       \
            else                                                                                   \
                CT_TSEL_LOAD(p, T, 0, a, r);                                                       \
        }                                                                                          \
        if (p->dt_out == p->compute) {                                                             \
            ct_cvt_write(o, &r);                                                                   \
        } else {                                                                                   \
            ct_tsel_buf u_;                                                                        \
            memcpy(u_.b, &r, sizeof r);                                                            \
            ct_cvt_elem((ct_dtype)p->dt_out, o, (ct_dtype)p->compute, u_.b);                       \
        }                                                                                          \
    }
CT_TSEL_WIDTH(w1, uint8_t)
CT_TSEL_WIDTH(w2, uint16_t)
CT_TSEL_WIDTH(w4, uint32_t)
CT_TSEL_WIDTH(w8, uint64_t)
CT_TSEL_WIDTH(w16, ct_ter_w16)

/* One element of any plan: the switch is the same for every element of a launch. */
CT_HD void ct_telem(const ct_tplan *p, char *o, const char *a, const char *b, const char *c) {
    if (p->select) {
        switch (p->size) {
        case 1: ct_tsel_w1(p, o, a, b, c); return;
        case 2: ct_tsel_w2(p, o, a, b, c); return;
        case 4: ct_tsel_w4(p, o, a, b, c); return;
        case 8: ct_tsel_w8(p, o, a, b, c); return;
        default: ct_tsel_w16(p, o, a, b, c); return;
        }
    }
    switch (p->math) {
#define CT_TCASE(E, S, T)                                                                          \
    case CT_##E:                                                                                   \
        ct_telem_##S(p, o, a, b, c);                                                               \
        return;
        CT_TPLAN_MATH_ROWS(CT_TCASE)
#undef CT_TCASE
    default:
        return;
    }
}

#endif /* CT_KERNELS_TERNARY_PLAN_H */
