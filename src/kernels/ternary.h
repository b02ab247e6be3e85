/* Ternary kernels (the rows of ctensor/ternary.def): per-ISA math loops over arrays of a math
 * dtype (ternary_loops.c, stamped from ternary_elem.h) and the prepared kernel that converts
 * operands of other dtypes and strides in blocks around them (ternary_kernel.c). */
#ifndef CT_KERNELS_TERNARY_H
#define CT_KERNELS_TERNARY_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/status.h"
#include "dtype/convert/loops_impl.h"

/* The kernel rows: one per row of ctensor/ternary.def, in its order (ct_terop of the public
 * ternary.h, in the ops layer above, has the same values: src/ops/ternary.c checks). */
typedef enum ct_ternary_kop {
#define CT_TERNARY(E, name, cpu_name, scalar_cpu_name, nin, rule, dtypes, has_value) CT_TERK_##E,
#include "ctensor/ternary.def"
#undef CT_TERNARY
    CT_NUM_TERKS
} ct_ternary_kop;

/* ternary.def's dtypes column: the computation dtype classes with kernels. */
enum { CT_TER_B = 1, CT_TER_I = 2, CT_TER_F = 4, CT_TER_C = 8, CT_TER_ANY = 16 };

/* The math dtypes a loop computes in (float16 and bfloat16 compute in float32); the selects
 * (where, masked_fill) work on element widths. */
typedef enum ct_ternary_math {
    CT_TERM_B8, CT_TERM_U8, CT_TERM_I8, CT_TERM_I16, CT_TERM_I32, CT_TERM_I64,
    CT_TERM_F32, CT_TERM_F64, CT_TERM_C64, CT_TERM_C128,
    CT_TERM_W1, CT_TERM_W2, CT_TERM_W4, CT_TERM_W8, CT_TERM_W16, CT_TERM_COUNT
} ct_ternary_math;

/* n elements: out[i] = op(in[0][i * inc[0]], in[1][i * inc[1]], in[2][i * inc[2]], *value),
 * each inc 0 (one value for every element) or 1 (contiguous); out is contiguous and may be
 * one of the inputs exactly. `value` points to the op's scalar in the math dtype (addcmul,
 * addcdiv), else it is unused. Two-input rows read in[2] never. */
typedef void (*ct_ternary_math_loop)(void *out, const void *const *in, const int64_t *inc,
                                     int64_t n, const void *value);
typedef ct_ternary_math_loop ct_ternary_loop_table[CT_NUM_TERKS][CT_TERM_COUNT];

extern const ct_ternary_loop_table ct_ternary_loops_baseline;
extern const ct_ternary_loop_table ct_ternary_loops_avx2;
extern const ct_ternary_loop_table ct_ternary_loops_avx512;

#define CT_TERNARY_MAX_VALUE 16 /* bytes of the largest math dtype (complex128) */

/* A prepared kernel: the loop, and how each operand converts to and from its math dtype. */
typedef struct ct_ternary_kernel {
    ct_ternary_math_loop loop;
    int nin;                      /* inputs the loop reads (2 or 3) */
    ct_dtype in[3], out;          /* the operands' dtypes */
    ct_dtype in_math[3];          /* the loop's input dtypes */
    ct_dtype out_math;            /* the loop's output dtype */
    ct_dtype result;              /* what the result rounds to before the output's dtype */
    /* inputs that are Python numbers (wrapped numbers): converted straight to the math
     * dtype, as PyTorch passes a Scalar to a float16 kernel as a float32 (opmath) value;
     * tensor inputs round to the computation dtype first. The caller sets these. */
    bool number[3];
    _Alignas(16) unsigned char value[CT_TERNARY_MAX_VALUE]; /* in the math dtype */
    const ct_convert_loop_table *cvt;
} ct_ternary_kernel;

/* Choose the kernel of `op` for computation dtype `compute`, reading inputs of dtypes
 * in[0 .. nin) and writing `out`. where and masked_fill read their condition (in[0] of where,
 * in[1] of masked_fill) as bytes != 0 and select the others' bits in `compute`. `value`
 * (NULL: none) is the op's scalar as `compute`'s math dtype holds it. Errors:
 * CT_ERR_NOT_IMPLEMENTED "\"<cpu_name>\" not implemented for 'Half'" when the row's dtypes
 * column has no kernel for `compute` (cpu_name: the caller's, scalar or tensor overload). */
ct_status ct_ternary_impl_kernel_init(ct_ternary_kernel *k, ct_ternary_kop op, const char *cpu_name,
                                      ct_dtype compute, ct_dtype out, const ct_dtype *in, int nin);

/* The math dtype of computation dtype `compute` for op (where: compute itself). */
ct_dtype ct_ternary_impl_math_dtype(ct_ternary_kop op, ct_dtype compute);

/* One row of n elements: data[0] the output, data[1 ..] the inputs, byte strides. Returns 0. */
int ct_ternary_impl_kernel_run(const ct_ternary_kernel *k, char *const *data,
                               const int64_t *strides, int64_t n);

#endif /* CT_KERNELS_TERNARY_H */
