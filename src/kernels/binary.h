/* Binary element-wise kernels: the inner loops of add, sub, mul and div.
 *
 * A kernel sees three base pointers (out, a, b), three byte strides and a count, NumPy-style;
 * shapes, broadcasting and the choice of dtypes were settled by the iterator.
 *
 * Two levels:
 *  - "math loops": out = a op b with all three operands in one math dtype (bool, the integer
 *    types, float32, float64, complex64, complex128). These are the hot loops; they live in
 *    binary_loops.c, which is compiled once per ISA level (baseline, AVX2, AVX-512, as
 *    src/dtype/convert/loops.c) and picked at run time through ct_cpu_isa_active(), so
 *    CT_CPU_ISA / ct_cpu_set_isa() force a lower level. A plain scalar reference loop per
 *    (op, math dtype) is what every level is tested against.
 *  - a prepared kernel (ct_binary_kernel): operands of any dtypes. float16, bfloat16 and
 *    complex32 compute in float32 / complex64 (PyTorch's CPU kernels do the same and round
 *    once), inputs of other dtypes rounded to the computation dtype first; operands whose
 *    dtype is not the math dtype are converted chunk by chunk into
 *    small buffers on the stack inside the loop (never a temporary copy of a whole operand),
 *    with the ISA-dispatched conversion loops of the dtype layer.
 * Layering: kernels use base and dtype only. */
#ifndef CT_KERNELS_BINARY_H
#define CT_KERNELS_BINARY_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"

/* The inner loops, one per CT_OP_KERNEL row of ctensor/ops.def: ADD is a + alpha * b (sub is
 * add with -alpha), MUL a * b (bool: and), DIV true division (floating and complex math
 * dtypes only), DIV_TRUNC C division on integers and trunc(a / b) on floats, DIV_FLOOR
 * Python's floor division. */
typedef enum ct_binop {
#define CT_OP_KERNEL(E, cpu_name) CT_BINOP_##E,
#include "ctensor/ops.def"
#undef CT_OP_KERNEL
    CT_NUM_BINOPS
} ct_binop;

/* Kernel error codes returned by loops (0 = success). */
enum { CT_KERNEL_OK = 0, CT_KERNEL_ZERO_DIVISION = 1 };

/* Bytes enough for one element of any math dtype (complex128). */
typedef union ct_kernel_value {
    bool b;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
    float c64[2];
    double c128[2];
} ct_kernel_value;

/* A math loop: n elements; out, a, b are `so`, `sa`, `sb` bytes apart (any sign; sa and sb
 * may be 0: a broadcast operand; out may alias a or b exactly, never partially; n == 0
 * reads nothing). Bool inputs are bytes read as != 0; bool outputs are 0/1.
 * `alpha` points to a value of the math dtype (used by ADD only; NULL means 1).
 * Returns CT_KERNEL_OK or CT_KERNEL_ZERO_DIVISION (integer DIV_TRUNC / DIV_FLOOR by zero;
 * elements before it may have been written). INT_MIN / -1 wraps to INT_MIN (trunc and
 * floor; x / -1 is computed as a wrapping negation, never a trapping division).
 * Semantics (those of the newest PyTorch CPU kernels, each element rounded once):
 * integers wrap; bool add is a | (alpha & b), mul a & b; float add with alpha is
 * fma(alpha, b, a); DIV_TRUNC on floats trunc(a / b); DIV_FLOOR on floats PyTorch's
 * div_floor_floating (Python's //), on unsigned plain division; complex mul (ac-bd, ad+bc) and
 * div c10::complex's scaled algorithm. Every ISA level is bitwise equal to the reference
 * (NaN payloads aside). */
typedef int (*ct_binary_math_loop)(char *out, const char *a, const char *b, int64_t so,
                                   int64_t sa, int64_t sb, int64_t n, const ct_kernel_value *alpha);

/* The math dtype an operand dtype computes in: float16/bfloat16 -> float32, complex32 ->
 * complex64, the others themselves; CT_DTYPE_UNDEFINED when there is no arithmetic
 * (float8 family, float4_e2m1fn_x2). */
ct_dtype ct_binary_impl_math_dtype(ct_dtype dtype);

/* The loop for (op, math dtype) at the active ISA level; NULL when the op has no loop for it
 * (DIV on integers or bool, DIV_TRUNC/DIV_FLOOR on bool and on complex) or for invalid
 * arguments. */
ct_binary_math_loop ct_binary_impl_math_loop_get(ct_binop op, ct_dtype math);
/* The same at a given level (CT_CPU_ISA_BASELINE.. from cpu.h), for the tests; NULL as above
 * or when the level was not compiled. */
ct_binary_math_loop ct_binary_impl_math_loop_at(ct_binop op, ct_dtype math, int isa_level);
/* The scalar reference loop (one element at a time, obvious code). */
ct_binary_math_loop ct_binary_impl_math_loop_reference(ct_binop op, ct_dtype math);

/* A prepared kernel for one op on operands of given dtypes. */
typedef struct ct_binary_kernel {
    ct_binop op;
    ct_dtype compute;             /* the iterator's common dtype */
    ct_dtype math;                /* dtype the loop computes in */
    ct_dtype out_dtype, a_dtype, b_dtype;
    ct_binary_math_loop loop;     /* at the active ISA level */
    ct_kernel_value alpha;        /* in the math dtype */
    bool has_alpha;               /* ADD: alpha != 1, or a complex math dtype */
    /* conversion loops (dtype layer, active ISA), kept opaque here (ct_convert_loop_fn).
     * cvt_a / cvt_b: to the math dtype, from the operand's dtype or, when pre_a / pre_b is
     * set, from the compute dtype; pre_a / pre_b: operand dtype -> compute dtype (float16,
     * bfloat16 and complex32 computations round their other-dtype inputs first, as
     * PyTorch's TensorIterator casts them to the common dtype). cvt_out: from the math
     * dtype or, when post_out is set, from the compute dtype; post_out: math -> compute
     * (results round to the computation dtype before an out= cast). NULL: not needed. */
    void *cvt_a, *cvt_b, *cvt_out;
    void *pre_a, *pre_b, *post_out;
    /* float16 / bfloat16 add, sub and mul with all operands in that dtype: a loop that
     * converts in registers instead of through the chunk buffers (a ct_binary_fused_loop of
     * binary_elem_impl.h, active ISA; NULL: none). Same bytes as the chunked path; used
     * for contiguous outputs with contiguous or broadcast inputs. */
    void *fused;
} ct_binary_kernel;

/* ct_binary_impl_kernel_init_ex flags. */
enum {
    /* b is one element broadcast over the whole iteration (PyTorch's iter.is_scalar(2): no
     * dim where b has a stride and the shape is not 1). Newest PyTorch's mul, div and
     * div trunc / floor in float16 / bfloat16 then read b in float32 from its ORIGINAL dtype
     * (iter.original_scalar_value<opmath_t>(2)) instead of rounding it to the computation
     * dtype, and compute in float32 rounding once; add and the other dtypes ignore it. */
    CT_BINARY_B_IS_SCALAR = 1u
};

/* Prepare a kernel computing `op` in `compute` (the iterator's common dtype) for operands of
 * dtypes out_dtype, a_dtype, b_dtype. Semantics of PyTorch's CPU kernels: inputs are
 * converted to `compute`, the op computes in the math dtype (float16 / bfloat16 / complex32:
 * float32 / complex64, rounding once to `compute`), the result is converted to out_dtype.
 * Except: with CT_BINARY_B_IS_SCALAR, see above; and float16 / bfloat16 DIV_TRUNC /
 * DIV_FLOOR with a tensor divisor follow PyTorch's Vectorized<Half> arithmetic, where each
 * step (the quotient; for floor (a - fmod(a, b)) / b and its corrections) rounds to the
 * dtype. ADD: alpha is converted to `compute` first, as
 * PyTorch's Scalar::to<scalar_t>() does (same rounding, same range check and error:
 * CT_ERR_OVERFLOW "value cannot be converted to type int8_t without overflow"), then to the
 * math dtype; has_alpha is false when it equals 1, except for complex math dtypes, where
 * PyTorch always multiplies out alpha * b (so (1+0j) * (x+infj) gives a NaN real part) and so
 * do we. Other ops ignore alpha. Add with alpha on real floats is fma(alpha, b, a), as
 * PyTorch's vectorized add.
 * Errors: CT_ERR_NOT_IMPLEMENTED (newest PyTorch raises NotImplementedError from its dispatch
 * macros; 1.13 raised RuntimeError) "\"<name>\" not implemented for '<Dtype>'" when there is
 * no loop for `compute` (e.g. "\"add_stub\" not implemented for 'Float8_e4m3fn'",
 * "\"div_floor_cpu\" not implemented for 'Bool'", "\"div_cpu\" not implemented for
 * 'ComplexHalf'": PyTorch's CPU division kernels skip ComplexHalf) or when an operand is
 * float4_e2m1fn_x2 (no conversion); `name` is the op name to use in that message, NULL for
 * newest PyTorch's CPU names: "add_stub", "mul_cpu", "div_cpu" (div_true_kernel's dispatch
 * name), "div_trunc_cpu", "div_floor_cpu". CT_ERR_MISUSE for a NULL kernel, an invalid op,
 * dtype or flag. */
ct_status ct_binary_impl_kernel_init_ex(ct_binary_kernel *k, ct_binop op, const char *name,
                                        ct_dtype compute, ct_dtype out_dtype, ct_dtype a_dtype,
                                        ct_dtype b_dtype, ct_scalar alpha, unsigned flags);
/* ct_binary_impl_kernel_init_ex with no flags. */
ct_status ct_binary_impl_kernel_init(ct_binary_kernel *k, ct_binop op, const char *name,
                                     ct_dtype compute, ct_dtype out_dtype, ct_dtype a_dtype,
                                     ct_dtype b_dtype, ct_scalar alpha);

/* Run a prepared kernel on n elements (out, a, b at byte strides so, sa, sb; n == 0 reads
 * nothing). Converts operands chunk by chunk when needed (2 KiB stack buffers), or in
 * registers with the fused loop when the kernel has one and the strides allow it. Long
 * contiguous outputs (4 MiB and more per call, not aliasing an input) are written with
 * streaming stores. Returns CT_KERNEL_OK or a kernel error code. Thread-safe (the kernel is
 * read only; it uses the conversion loops of the ISA level active at init). */
int ct_binary_impl_kernel_run(const ct_binary_kernel *k, char *out, const char *a, const char *b,
                              int64_t so, int64_t sa, int64_t sb, int64_t n);

/* Sets the output length (bytes, per call) from which ct_binary_impl_kernel_run streams its
 * stores; a negative value restores the default (4 MiB). Returns the previous value. For
 * tests: the streamed path then runs on short inputs. */
int64_t ct_binary_impl_set_stream_bytes(int64_t bytes);

#endif /* CT_KERNELS_BINARY_H */
