/* One element of a BINARY launch (ctensor/backend.h) as the cpu's prepared kernel computes it.
 *
 * ct_binary_impl_kernel_init_ex (binary_kernel.c) decides per operand how it reaches the
 * math dtype (directly, or rounded to the computation dtype first: float16, bfloat16 and
 * complex32 computations), which loop runs (the reduced-precision trunc / floor divisions,
 * complex32 add) and how the result reaches the output. ct_kplan_init makes the same
 * decisions from a launch, and ct_kelem_<math> computes one element with them, from the
 * element functions of binary_elem.h and the conversions of elem_impl.h. Compiled as C (the
 * host-executed launches of tests/unit/test_launch_dispatch.c) and under nvcc (the GPU
 * kernels of src/cuda/kernels_binary.cu), so that what CI checks on the host is the code the
 * GPU runs (Note [One definition per element] in binary_elem.h). */
#ifndef CT_KERNELS_BINARY_PLAN_H
#define CT_KERNELS_BINARY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ctensor/backend.h"
#include "dtype/convert/elem_impl.h"
#include "kernels/binary_elem.h"

/* What the element computes: the loop binary_kernel.c would pick. */
enum {
    CT_KP_ADD1 = 0,  /* a + b (alpha 1) */
    CT_KP_ADDA,      /* a + alpha * b (fma on real floats, full product on complex) */
    CT_KP_MUL,
    CT_KP_DIV,
    CT_KP_DIVT,
    CT_KP_DIVF,
    CT_KP_DIVT_RF16, /* float16 / bfloat16 trunc and floor division, each step rounded */
    CT_KP_DIVF_RF16,
    CT_KP_DIVT_RBF16,
    CT_KP_DIVF_RBF16,
    CT_KP_ADD_C32    /* complex32 add (alpha * b rounded to complex32 first) */
};

/* The decisions, small enough to pass to a GPU kernel by value. */
typedef struct ct_kplan {
    int32_t op;                   /* CT_KP_* */
    int32_t math, compute;        /* ct_dtype values */
    int32_t dt_out, dt_a, dt_b;   /* the operands' dtypes */
    int32_t math_size;            /* bytes of a math-dtype element */
    bool via_a, via_b, via_out;   /* rounded through the computation dtype */
    bool int_div;                 /* integer DIVT / DIVF: a zero divisor is an error */
    union {
        unsigned char bytes[16];  /* alpha in the math dtype */
        double align_;            /* (aligned for the element loads) */
    } alpha;
    double rtol, atol;            /* isclose (binary_plan2.h) */
    int32_t equal_nan;
} ct_kplan;

/* Kernel error codes (binary.h's CT_KERNEL_ZERO_DIVISION). */
#define CT_KP_OK 0
#define CT_KP_ZERO_DIVISION 1

/* The plan of a BINARY launch, as ct_binary_impl_kernel_init_ex decides for the same op
 * and dtypes (the launch's compute and math come from it). false when the launch asks for
 * a loop the cpu does not have (ops.def's kernel rows: ADD 0, MUL 1, DIV 2, DIV_TRUNC 3,
 * DIV_FLOOR 4), or for dtypes without conversions. Host code only. */
static inline bool ct_kplan_init(ct_kplan *p, const ct_kernel_launch *l) {
    memset(p, 0, sizeof *p);
    ct_dtype compute = l->compute, math = l->math;
    int binop = l->binop;
    bool reduced = compute == CT_FLOAT16 || compute == CT_BFLOAT16;
    bool is_int = math == CT_UINT8 || math == CT_INT8 || math == CT_UINT16 || math == CT_INT16 ||
                  math == CT_UINT32 || math == CT_INT32 || math == CT_UINT64 || math == CT_INT64;
    bool is_float = math == CT_FLOAT32 || math == CT_FLOAT64;
    bool is_complex = math == CT_COMPLEX64 || math == CT_COMPLEX128;
    if (l->kind != CT_LAUNCH_BINARY || l->noperands != 3)
        return false;
    if (!(is_int || is_float || is_complex || math == CT_BOOL))
        return false;
    for (int k = 0; k < 3; k++)
        if ((int)l->dtype[k] < 0 || (int)l->dtype[k] >= CT_NUM_DTYPES ||
            l->dtype[k] == CT_FLOAT4_E2M1FN_X2)
            return false;
    bool b_opmath = (l->flags & CT_LAUNCH_B_IS_SCALAR) && reduced && binop != 0;
    switch (binop) {
    case 0: /* ADD */
        p->op = compute == CT_COMPLEX32 ? CT_KP_ADD_C32 : l->has_alpha ? CT_KP_ADDA : CT_KP_ADD1;
        break;
    case 1: /* MUL */
        p->op = CT_KP_MUL;
        break;
    case 2: /* DIV: floats and complex (not complex32) */
        if (!(is_float || is_complex) || compute == CT_COMPLEX32)
            return false;
        p->op = CT_KP_DIV;
        break;
    case 3: /* DIV_TRUNC */
    case 4: /* DIV_FLOOR */
        if (!(is_int || is_float))
            return false;
        p->op = binop == 3 ? CT_KP_DIVT : CT_KP_DIVF;
        if (reduced && !b_opmath)
            p->op = compute == CT_FLOAT16 ? (binop == 3 ? CT_KP_DIVT_RF16 : CT_KP_DIVF_RF16)
                                          : (binop == 3 ? CT_KP_DIVT_RBF16 : CT_KP_DIVF_RBF16);
        p->int_div = is_int;
        break;
    default:
        return false;
    }
    bool via = compute != math;
    p->math = math;
    p->compute = compute;
    p->dt_out = l->dtype[0];
    p->dt_a = l->dtype[1];
    p->dt_b = l->dtype[2];
    p->math_size = ct_cvt_itemsize(math);
    p->via_a = via && l->dtype[1] != compute;
    p->via_b = via && l->dtype[2] != compute && !b_opmath;
    p->via_out = via && l->dtype[0] != compute;
    /* bool add without alpha adds with alpha true (CT_KLOOPS_B) */
    if (math == CT_BOOL && !l->has_alpha)
        p->alpha.bytes[0] = 1;
    else
        memcpy(p->alpha.bytes, l->alpha, sizeof p->alpha.bytes);
    return true;
}

/* An operand's element in the math dtype M (a literal, so that the conversion's store folds
 * and x stays in registers), as binary_kernel.c's stage_input converts it; and the result
 * to the output, as its store_output does. */
#define CT_KPLAN_LOAD(p, M, dt, via, src, x)                                                       \
    do {                                                                                           \
        if (via) {                                                                                 \
            unsigned char tmp_[16];                                                                \
            ct_cvt_elem((ct_dtype)(p)->compute, tmp_, (ct_dtype)(dt), (src));                      \
            ct_cvt_elem(M, &(x), (ct_dtype)(p)->compute, tmp_);                                    \
        } else if ((dt) == M) {                                                                    \
            ct_cvt_read(&(x), (src)); /* as it is: the loops read bool as != 0 */                  \
        } else {                                                                                   \
            ct_cvt_elem(M, &(x), (ct_dtype)(dt), (src));                                           \
        }                                                                                          \
    } while (0)

#define CT_KPLAN_STORE(p, M, out, r)                                                               \
    do {                                                                                           \
        if ((p)->via_out) {                                                                        \
            unsigned char tmp_[16];                                                                \
            ct_cvt_elem((ct_dtype)(p)->compute, tmp_, M, &(r));                                    \
            ct_cvt_elem((ct_dtype)(p)->dt_out, (out), (ct_dtype)(p)->compute, tmp_);               \
        } else if ((p)->dt_out == M) {                                                             \
            ct_cvt_write((out), &(r));                                                             \
        } else {                                                                                   \
            ct_cvt_elem((ct_dtype)(p)->dt_out, (out), M, &(r));                                    \
        }                                                                                          \
    } while (0)

/* ct_kop_<suffix>(plan, x, y, &r): the op on two math-dtype values; ct_kelem_<suffix>(plan,
 * out, a, b): one element from and to memory. Both return CT_KP_OK or CT_KP_ZERO_DIVISION
 * (nothing written then). The op switch is the same for every element of a launch. */
#define CT_KELEM_HEAD(E, S, T)                                                                     \
    CT_HD int ct_kop_##S(const ct_kplan *p, T x, T y, T *rp) {                                     \
        T r, al;                                                                                   \
        memcpy(&al, p->alpha.bytes, sizeof al);                                                    \
        (void)al;                                                                                  \
        switch (p->op) {
#define CT_KELEM_TAIL(E, S, T)                                                                     \
        default: /* ct_kplan_init never makes one */                                               \
            r = x;                                                                                 \
            break;                                                                                 \
        }                                                                                          \
        *rp = r;                                                                                   \
        return CT_KP_OK;                                                                           \
    }                                                                                              \
    CT_HD int ct_kelem_##S(const ct_kplan *p, char *o, const char *a, const char *b) {             \
        T x, y, r;                                                                                 \
        CT_KPLAN_LOAD(p, CT_##E, p->dt_a, p->via_a, a, x);                                         \
        CT_KPLAN_LOAD(p, CT_##E, p->dt_b, p->via_b, b, y);                                         \
        int code = ct_kop_##S(p, x, y, &r);                                                        \
        if (code != CT_KP_OK)                                                                      \
            return code;                                                                           \
        CT_KPLAN_STORE(p, CT_##E, o, r);                                                           \
        return CT_KP_OK;                                                                           \
    }

#define CT_KELEM_B(E, S, T)                                                                           \
    CT_KELEM_HEAD(E, S, T)                                                                            \
    case CT_KP_ADD1:                                                                               \
    case CT_KP_ADDA:                                                                               \
        r = ct_kadd_##S(x, y, al);                                                                 \
        break;                                                                                     \
    case CT_KP_MUL:                                                                                \
        r = ct_kmul_##S(x, y);                                                                     \
        break;                                                                                     \
        CT_KELEM_TAIL(E, S, T)

#define CT_KELEM_INT(E, S, T)                                                                         \
    CT_KELEM_HEAD(E, S, T)                                                                            \
    case CT_KP_ADD1:                                                                               \
        r = ct_kadd1_##S(x, y);                                                                    \
        break;                                                                                     \
    case CT_KP_ADDA:                                                                               \
        r = ct_kadd_##S(x, y, al);                                                                 \
        break;                                                                                     \
    case CT_KP_MUL:                                                                                \
        r = ct_kmul_##S(x, y);                                                                     \
        break;                                                                                     \
    case CT_KP_DIVT:                                                                               \
        if (y == 0)                                                                                \
            return CT_KP_ZERO_DIVISION;                                                            \
        r = ct_kdivt_##S(x, y);                                                                    \
        break;                                                                                     \
    case CT_KP_DIVF:                                                                               \
        if (y == 0)                                                                                \
            return CT_KP_ZERO_DIVISION;                                                            \
        r = ct_kdivf_##S(x, y);                                                                    \
        break;                                                                                     \
        CT_KELEM_TAIL(E, S, T)

#define CT_KELEM_F_COMMON(S)                                                                       \
    case CT_KP_ADD1:                                                                               \
        r = ct_kadd1_##S(x, y);                                                                    \
        break;                                                                                     \
    case CT_KP_ADDA:                                                                               \
        r = ct_kadd_##S(x, y, al);                                                                 \
        break;                                                                                     \
    case CT_KP_MUL:                                                                                \
        r = ct_kmul_##S(x, y);                                                                     \
        break;                                                                                     \
    case CT_KP_DIV:                                                                                \
        r = ct_kdiv_##S(x, y);                                                                     \
        break;                                                                                     \
    case CT_KP_DIVT:                                                                               \
        r = ct_kdivt_##S(x, y);                                                                    \
        break;                                                                                     \
    case CT_KP_DIVF:                                                                               \
        r = ct_kdivf_##S(x, y);                                                                    \
        break;

/* float32 also runs the float16 / bfloat16 divisions (their math dtype) */
#define CT_KELEM_F32(E, S, T)                                                                         \
    CT_KELEM_HEAD(E, S, T)                                                                            \
    CT_KELEM_F_COMMON(S)                                                                           \
    case CT_KP_DIVT_RF16:                                                                          \
        r = ct_kdivt_rf16(x, y);                                                                   \
        break;                                                                                     \
    case CT_KP_DIVF_RF16:                                                                          \
        r = ct_kdivf_rf16(x, y);                                                                   \
        break;                                                                                     \
    case CT_KP_DIVT_RBF16:                                                                         \
        r = ct_kdivt_rbf16(x, y);                                                                  \
        break;                                                                                     \
    case CT_KP_DIVF_RBF16:                                                                         \
        r = ct_kdivf_rbf16(x, y);                                                                  \
        break;                                                                                     \
        CT_KELEM_TAIL(E, S, T)

#define CT_KELEM_F64(E, S, T)                                                                         \
    CT_KELEM_HEAD(E, S, T)                                                                            \
    CT_KELEM_F_COMMON(S)                                                                           \
    CT_KELEM_TAIL(E, S, T)

/* complex64 also runs complex32's add (its math dtype) */
#define CT_KELEM_C(E, S, T)                                                                           \
    CT_KELEM_HEAD(E, S, T)                                                                            \
    case CT_KP_ADD1:                                                                               \
        r = ct_kadd1_##S(x, y);                                                                    \
        break;                                                                                     \
    case CT_KP_ADDA:                                                                               \
        r = ct_kadd_##S(x, y, al);                                                                 \
        break;                                                                                     \
    case CT_KP_ADD_C32:                                                                            \
        r = ct_kadd_c32_##S(x, y, al);                                                             \
        break;                                                                                     \
    case CT_KP_MUL:                                                                                \
        r = ct_kmul_##S(x, y);                                                                     \
        break;                                                                                     \
    case CT_KP_DIV:                                                                                \
        r = ct_kdiv_##S(x, y);                                                                     \
        break;                                                                                     \
        CT_KELEM_TAIL(E, S, T)

/* complex32 add exists for complex64 only; complex128 never gets CT_KP_ADD_C32 */
#define ct_kadd_c32_c64 ct_kadd_c32
#define ct_kadd_c32_c128 ct_kadd_c128

CT_KELEM_B(BOOL, b8, uint8_t)
CT_KELEM_INT(UINT8, u8, uint8_t)
CT_KELEM_INT(INT8, i8, int8_t)
CT_KELEM_INT(UINT16, u16, uint16_t)
CT_KELEM_INT(INT16, i16, int16_t)
CT_KELEM_INT(UINT32, u32, uint32_t)
CT_KELEM_INT(INT32, i32, int32_t)
CT_KELEM_INT(UINT64, u64, uint64_t)
CT_KELEM_INT(INT64, i64, int64_t)
CT_KELEM_F32(FLOAT32, f32, float)
CT_KELEM_F64(FLOAT64, f64, double)
CT_KELEM_C(COMPLEX64, c64, ct_complex64)
CT_KELEM_C(COMPLEX128, c128, ct_complex128)

/* The math dtypes with their element function suffix and C type. */
#define CT_KPLAN_MATH_ROWS(X)                                                                      \
    X(BOOL, b8, uint8_t)                                                                           \
    X(UINT8, u8, uint8_t)                                                                          \
    X(INT8, i8, int8_t)                                                                            \
    X(UINT16, u16, uint16_t)                                                                       \
    X(INT16, i16, int16_t)                                                                         \
    X(UINT32, u32, uint32_t)                                                                       \
    X(INT32, i32, int32_t)                                                                         \
    X(UINT64, u64, uint64_t)                                                                       \
    X(INT64, i64, int64_t)                                                                         \
    X(FLOAT32, f32, float)                                                                         \
    X(FLOAT64, f64, double)                                                                        \
    X(COMPLEX64, c64, ct_complex64)                                                                \
    X(COMPLEX128, c128, ct_complex128)

#endif /* CT_KERNELS_BINARY_PLAN_H */
