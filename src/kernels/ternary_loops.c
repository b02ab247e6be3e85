/* The ternary math loops of one ISA level (compiled per level: CMakeLists.txt CT_ISA_SOURCES,
 * CT_ISA_SUFFIX). Every loop is stamped from ternary_elem.h. The compiler vectorizes them at
 * -O3 for the level's instruction set: each loop is written once per pattern of contiguous
 * (inc 1) and single-value (inc 0) inputs that occurs in practice (all arrays; a tensor with
 * two scalars: clamp(x, 0, 1); a scalar in the middle: where(c, 0., x), masked_fill; a scalar
 * last: where(c, x, 0.)), so every such loop body has only unit-stride or invariant operands.
 * Other patterns take the general loop. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ternary.h"
#include "kernels/ternary_elem.h"

#define CAT2_(a, b) a##b
#define CAT2(a, b) CAT2_(a, b)

/* ELEM(x1, x2, x3, v) computes one element from inputs of types T1, T2, T3 and value v. */
#define TLOOP(NAME, TO, T1, T2, T3, ELEM) TLOOP_A(, NAME, TO, T1, T2, T3, ELEM)
#define TLOOP_A(ATTR, NAME, TO, T1, T2, T3, ELEM)                                                  \
    static ATTR void NAME(void *o, const void *const *in, const int64_t *inc, int64_t n,               \
                     const void *value) {                                                          \
        TO *y = o;                                                                                 \
        const T1 *x1 = in[0];                                                                      \
        const T2 *x2 = in[1];                                                                      \
        const T3 *x3 = in[2];                                                                      \
        TO v;                                                                                      \
        memcpy(&v, value, sizeof v);                                                               \
        (void)v;                                                                                   \
        if (inc[0] && inc[1] && inc[2]) {                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = ELEM(x1[i], x2[i], x3[i], v);                                               \
        } else if (inc[0] && !inc[1] && !inc[2]) {                                                 \
            T2 b = x2[0];                                                                          \
            T3 c = x3[0];                                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = ELEM(x1[i], b, c, v);                                                       \
        } else if (inc[0] && !inc[1] && inc[2]) {                                                  \
            T2 b = x2[0];                                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = ELEM(x1[i], b, x3[i], v);                                                   \
        } else if (inc[0] && inc[1] && !inc[2]) {                                                  \
            T3 c = x3[0];                                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = ELEM(x1[i], x2[i], c, v);                                                   \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                y[i] = ELEM(x1[i * inc[0]], x2[i * inc[1]], x3[i * inc[2]], v);                    \
        }                                                                                          \
    }

/* ---- where (cond, a, b) and masked_fill (self, mask, value) on element widths ------------- */
#define W_WHERE(S, T)                                                                              \
    static inline T where_e_##S(uint8_t c, T a, T b, T v) {                                        \
        (void)v;                                                                                   \
        return ct_ter_where_##S(c, a, b);                                                          \
    }                                                                                              \
    static inline T fill_e_##S(T self, uint8_t m, T value, T v) {                                  \
        (void)v;                                                                                   \
        return ct_ter_where_##S(m, value, self);                                                   \
    }                                                                                              \
    TLOOP(where_##S, T, uint8_t, T, T, where_e_##S)                                                \
    TLOOP(fill_##S, T, T, uint8_t, T, fill_e_##S)
W_WHERE(w1, uint8_t)
W_WHERE(w2, uint16_t)
W_WHERE(w4, uint32_t)
W_WHERE(w8, uint64_t)

W_WHERE(w16, ct_ter_w16) /* complex128: a pair of words (ternary_elem.h) */

/* ---- clamp ---------------------------------------------------------------------------------- */
#define CLAMP_LOOPS(S, T)                                                                          \
    static inline T clamp_e_##S(T x, T lo, T hi, T v) {                                            \
        (void)v;                                                                                   \
        return ct_ter_clamp_##S(x, lo, hi);                                                        \
    }                                                                                              \
    static inline T clamp_min_e_##S(T x, T lo, T unused, T v) {                                    \
        (void)v;                                                                                   \
        (void)unused;                                                                              \
        return ct_ter_clamp_min_##S(x, lo);                                                        \
    }                                                                                              \
    static inline T clamp_max_e_##S(T x, T hi, T unused, T v) {                                    \
        (void)v;                                                                                   \
        (void)unused;                                                                              \
        return ct_ter_clamp_max_##S(x, hi);                                                        \
    }                                                                                              \
    TLOOP(clamp_##S, T, T, T, T, clamp_e_##S)                                                      \
    TLOOP(clamp_min_##S, T, T, T, T, clamp_min_e_##S)                                              \
    TLOOP(clamp_max_##S, T, T, T, T, clamp_max_e_##S)
CLAMP_LOOPS(u8, uint8_t)
CLAMP_LOOPS(i8, int8_t)
CLAMP_LOOPS(i16, int16_t)
CLAMP_LOOPS(i32, int32_t)
CLAMP_LOOPS(i64, int64_t)
CLAMP_LOOPS(f32, float)
CLAMP_LOOPS(f64, double)

/* ---- addcmul, addcdiv, lerp --------------------------------------------------------------- */
#define ARITH_LOOP(OPN, S, T)                                                                      \
    static inline T OPN##_e_##S(T a, T b, T c, T v) { return ct_ter_##OPN##_##S(a, b, c, v); }     \
    TLOOP(OPN##_##S, T, T, T, T, OPN##_e_##S)
#define LERP_LOOP(S, T)                                                                            \
    static inline T lerp_e_##S(T s, T e, T w, T v) {                                               \
        (void)v;                                                                                   \
        return ct_ter_lerp_##S(s, e, w);                                                           \
    }                                                                                              \
    TLOOP(lerp_##S, T, T, T, T, lerp_e_##S)
ARITH_LOOP(addcmul, u8, uint8_t)
ARITH_LOOP(addcmul, i8, int8_t)
ARITH_LOOP(addcmul, i16, int16_t)
ARITH_LOOP(addcmul, i32, int32_t)
ARITH_LOOP(addcmul, i64, int64_t)
#define FLOATING(S, T) ARITH_LOOP(addcmul, S, T) ARITH_LOOP(addcdiv, S, T) LERP_LOOP(S, T)
FLOATING(f32, float)
FLOATING(f64, double)
/* Complex loops are not vectorized: GCC recognizes (ac - bd, ad + bc) as a complex product
 * and emits vfmaddsub, a fused operation that rounds differently from the element function
 * (binary_loops.c has the same guard), which the GPU kernels and the reference compute. */
#if defined(__clang__)
#define TER_NO_VEC
#else
#define TER_NO_VEC __attribute__((optimize("no-tree-vectorize")))
#endif
#define C_ARITH_LOOP(OPN, S, T)                                                                    \
    static inline T OPN##_e_##S(T a, T b, T c, T v) { return ct_ter_##OPN##_##S(a, b, c, v); }     \
    TLOOP_A(TER_NO_VEC, OPN##_##S, T, T, T, T, OPN##_e_##S)
#define C_LERP_LOOP(S, T)                                                                          \
    static inline T lerp_e_##S(T s, T e, T w, T v) {                                               \
        (void)v;                                                                                   \
        return ct_ter_lerp_##S(s, e, w);                                                           \
    }                                                                                              \
    TLOOP_A(TER_NO_VEC, lerp_##S, T, T, T, T, lerp_e_##S)
#define C_FLOATING(S, T)                                                                           \
    C_ARITH_LOOP(addcmul, S, T) C_ARITH_LOOP(addcdiv, S, T) C_LERP_LOOP(S, T)
C_FLOATING(c64, ct_complex64)
C_FLOATING(c128, ct_complex128)

/* ---- the table ------------------------------------------------------------------------------ */
#define WIDTHS(OPN)                                                                                \
    [CT_TERM_W1] = OPN##_w1, [CT_TERM_W2] = OPN##_w2, [CT_TERM_W4] = OPN##_w4,                     \
    [CT_TERM_W8] = OPN##_w8, [CT_TERM_W16] = OPN##_w16
#define INTS(OPN)                                                                                  \
    [CT_TERM_U8] = OPN##_u8, [CT_TERM_I8] = OPN##_i8, [CT_TERM_I16] = OPN##_i16,                   \
    [CT_TERM_I32] = OPN##_i32, [CT_TERM_I64] = OPN##_i64
#define REALS(OPN) [CT_TERM_F32] = OPN##_f32, [CT_TERM_F64] = OPN##_f64
#define COMPLEXES(OPN) [CT_TERM_C64] = OPN##_c64, [CT_TERM_C128] = OPN##_c128
/* bool clamps are the uint8 ones on 0 / 1 */
#define CLAMPS(OPN) {[CT_TERM_B8] = OPN##_u8, INTS(OPN), REALS(OPN)}

const ct_ternary_loop_table CAT2(ct_ternary_loops, CT_ISA_SUFFIX) = {
    [CT_TERK_WHERE] = {WIDTHS(where)},
    [CT_TERK_CLAMP] = CLAMPS(clamp),
    [CT_TERK_CLAMP_MIN] = CLAMPS(clamp_min),
    [CT_TERK_CLAMP_MAX] = CLAMPS(clamp_max),
    [CT_TERK_LERP] = {REALS(lerp), COMPLEXES(lerp)},
    [CT_TERK_ADDCMUL] = {INTS(addcmul), REALS(addcmul), COMPLEXES(addcmul)},
    [CT_TERK_ADDCDIV] = {REALS(addcdiv), COMPLEXES(addcdiv)},
    [CT_TERK_MASKED_FILL] = {WIDTHS(fill)},
};
