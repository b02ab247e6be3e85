/* Comparison kernels: eq ne lt le gt ge with a bool (0/1) result (ops.def rows of kind
 * CT_OP_KIND_COMPARE).
 *
 * The operands are converted to the computation dtype (the iterator's common dtype) and
 * compared in its math dtype (float16 / bfloat16 compare as float32, complex32 as complex64:
 * exact, since the conversions widen), chunk by chunk through stack buffers as the binary
 * kernels do; the 0/1 result is converted to the output's dtype when it is not bool (out=
 * and in-place targets of any dtype). The element functions are binary_elem.h's
 * ct_keq_<s> ... ct_kge_<s> (Note [One definition per element]).
 * Layering: kernels use base and dtype only. */
#ifndef CT_KERNELS_COMPARE_H
#define CT_KERNELS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/status.h"

/* The comparisons, in ops.def's kernel-row order from CT_BINOP_EQ. */
typedef enum ct_cmp { CT_CMP_EQ = 0, CT_CMP_NE, CT_CMP_LT, CT_CMP_LE, CT_CMP_GT, CT_CMP_GE,
                      /* classifications: one operand (b is a and is not read) */
                      CT_CMP_ISNAN, CT_CMP_ISINF, CT_CMP_ISFINITE, CT_CMP_ISPOSINF,
                      CT_CMP_ISNEGINF, CT_CMP_ISREAL,
                      /* isclose: two operands and the parameters below */
                      CT_CMP_ISCLOSE,
                      /* logical_and logical_or logical_xor (ops.def's LOGICAL_AND.. kernel
                       * rows, in this order) */
                      CT_CMP_LOGICAL_AND, CT_CMP_LOGICAL_OR, CT_CMP_LOGICAL_XOR,
                      CT_NUM_CMPS } ct_cmp;

/* A loop: n elements, out written as 0/1 bytes `so` bytes apart, a and b in the math dtype
 * `sa`, `sb` bytes apart (0: broadcast). */
typedef void (*ct_compare_loop)(char *out, const char *a, const char *b, int64_t so, int64_t sa,
                                int64_t sb, int64_t n);

typedef struct ct_compare_kernel {
    ct_cmp cmp;
    ct_dtype compute, math, out_dtype, a_dtype, b_dtype;
    ct_compare_loop loop;
    /* conversion loops (ct_convert_loop_fn, opaque here); NULL: not needed.
     * pre_x: operand -> compute (when compute is not its math dtype), cvt_x: (operand or
     * compute) -> math, cvt_out: bool -> out dtype. */
    void *pre_a, *pre_b, *cvt_a, *cvt_b, *cvt_out;
    /* isclose's parameters (set by the caller after init) and the computation's rounding */
    double rtol, atol;
    bool equal_nan;
} ct_compare_kernel;

/* The loop of (cmp, math dtype), NULL when there is none (complex lt/le/gt/ge; dtypes that
 * are not math dtypes). */
ct_compare_loop ct_compare_impl_loop(ct_cmp cmp, ct_dtype math);

/* Prepare a comparison in `compute` for operands of these dtypes. Errors:
 * CT_ERR_NOT_IMPLEMENTED "\"<name>\" not implemented for '<Dtype>'" (name: eq_cpu, ...; the
 * dtype is the computation dtype, or an operand without conversions: float4_e2m1fn_x2);
 * CT_ERR_MISUSE for invalid arguments. */
ct_status ct_compare_impl_kernel_init(ct_compare_kernel *k, ct_cmp cmp, const char *name,
                                      ct_dtype compute, ct_dtype out_dtype, ct_dtype a_dtype,
                                      ct_dtype b_dtype);

/* Run on n elements (byte strides so, sa, sb; any sign; 0 for broadcast inputs). Thread-safe. */
void ct_compare_impl_kernel_run(const ct_compare_kernel *k, char *out, const char *a,
                                const char *b, int64_t so, int64_t sa, int64_t sb, int64_t n);

#endif /* CT_KERNELS_COMPARE_H */
