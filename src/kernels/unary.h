/* Unary kernels (the rows of ctensor/unary.def): per-ISA math loops over contiguous arrays
 * of a math dtype (unary_loops.c, stamped from unary_elem.h) and the prepared kernel that
 * converts operands of other dtypes and strides in blocks around them (unary_kernel.c). */
#ifndef CT_KERNELS_UNARY_H
#define CT_KERNELS_UNARY_H

#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/status.h"
#include "dtype/convert/loops_impl.h"

/* The kernel rows: one per row of ctensor/unary.def, in its order (ct_unop of the public
 * unary.h, which sits in the ops layer above, has the same values: src/ops/unary.c checks). */
typedef enum ct_unary_kop {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) CT_UNK_##E,
#include "ctensor/unary.def"
#undef CT_UNARY
    CT_NUM_UNKS
} ct_unary_kop;

/* unary.def's dtypes column: the computation dtype classes with kernels (CT_UN_H: complex32,
 * computed in complex64 and rounded back, as PyTorch's c10::complex<Half> does per part). */
enum { CT_UN_B = 1, CT_UN_I = 2, CT_UN_F = 4, CT_UN_C = 8, CT_UN_H = 16 };

/* The math dtypes a loop computes in (float16 and bfloat16 compute in float32). */
typedef enum ct_unary_math {
    CT_UNM_B8, CT_UNM_U8, CT_UNM_I8, CT_UNM_I16, CT_UNM_I32, CT_UNM_I64,
    CT_UNM_F32, CT_UNM_F64, CT_UNM_C64, CT_UNM_C128, CT_UNM_COUNT
} ct_unary_math;

/* n elements: out[i] = op(in[i]), both contiguous (out may equal in). */
typedef void (*ct_unary_math_loop)(void *out, const void *in, int64_t n);
typedef ct_unary_math_loop ct_unary_loop_table[CT_NUM_UNKS][CT_UNM_COUNT];

/* float32 loops for float16 and bfloat16 computations, where only the rounded 8- or 11-bit
 * result must be right: SLEEF's 3.5-ulp functions and the float32 sigmoid formula, much
 * faster than the 1-ulp ones and as exact after rounding (an error of a few float32 ulps
 * moves a bfloat16 or float16 result only when it lies within that distance of a rounding
 * boundary, as any float32 computation, PyTorch's included, does). NULL entries: use the
 * float32 loop of ct_unary_loop_table. */
typedef ct_unary_math_loop ct_unary_reduced_table[CT_NUM_UNKS];
extern const ct_unary_reduced_table ct_unary_reduced_baseline;
extern const ct_unary_reduced_table ct_unary_reduced_avx2;
extern const ct_unary_reduced_table ct_unary_reduced_avx512;

/* float16 / bfloat16 computations in registers: the element's 16 bits in, its rounded 16 bits
 * out, the same bytes as widening to float32, the float32 loop of the tables above and
 * rounding once. NULL entries: go through float32 buffers. */
enum { CT_UNH_BF16, CT_UNH_F16, CT_UNH_COUNT };
typedef ct_unary_math_loop ct_unary_half_table[CT_NUM_UNKS][CT_UNH_COUNT];
extern const ct_unary_half_table ct_unary_half_baseline;
extern const ct_unary_half_table ct_unary_half_avx2;
extern const ct_unary_half_table ct_unary_half_avx512;

/* float16 / bfloat16 by a 65536-entry table of the half table's results, filled on first
 * use (the same bytes as ct_unary_half_table's loop of the same level, faster for the costly
 * ops that have one). NULL entries: use ct_unary_half_table. */
extern const ct_unary_half_table ct_unary_lut_baseline;
extern const ct_unary_half_table ct_unary_lut_avx2;
extern const ct_unary_half_table ct_unary_lut_avx512;

extern const ct_unary_loop_table ct_unary_loops_baseline;
extern const ct_unary_loop_table ct_unary_loops_avx2;
extern const ct_unary_loop_table ct_unary_loops_avx512;

/* A prepared kernel: which loop, and how the operands convert to and from its math dtypes. */
typedef struct ct_unary_kernel {
    ct_unary_math_loop loop;      /* NULL for round(decimals) */
    ct_dtype in, out;             /* the operands' dtypes */
    ct_dtype compute;             /* the computation dtype (the iterator's common dtype) */
    ct_dtype in_math, out_math;   /* the loop's input and output dtypes */
    ct_dtype result;              /* what the result rounds to before the output's dtype */
    double round_m;               /* round(decimals): 10^|decimals| */
    int round_div;                /* round(decimals): decimals < 0 */
    const ct_convert_loop_table *cvt;
} ct_unary_kernel;

/* Choose the kernel of `op` for computation dtype `compute`, reading `in` and writing `out`
 * dtypes. The row's dtypes column decides which computation dtypes have one. Errors: CT_ERR_NOT_IMPLEMENTED "\"<cpu_name>\" not implemented for 'Half'" when the
 * row has no kernel for `compute`. */
ct_status ct_unary_impl_kernel_init(ct_unary_kernel *k, ct_unary_kop op, ct_dtype compute,
                                    ct_dtype out, ct_dtype in);

/* round(decimals=d), d != 0: float computation dtypes only ("round_cpu" otherwise). */
ct_status ct_unary_impl_kernel_init_round(ct_unary_kernel *k, int64_t decimals,
                                          ct_dtype compute, ct_dtype out, ct_dtype in);

/* One row of n elements, byte strides; returns 0. */
int ct_unary_impl_kernel_run(const ct_unary_kernel *k, char *out, const char *in,
                             int64_t out_stride, int64_t in_stride, int64_t n);

#endif /* CT_KERNELS_UNARY_H */
