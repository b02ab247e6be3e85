/* ctensor: element-wise arithmetic (add, sub, mul, div) with PyTorch's rules.
 *
 * Every operation comes in three forms, as in PyTorch:
 *   ct_add(a, b, alpha, &result)     torch.add(a, b, alpha=alpha): a new tensor
 *   ct_add_out(a, b, alpha, out)     torch.add(a, b, alpha=alpha, out=out)
 *   ct_add_(self, other, alpha)      self.add_(other, alpha=alpha), self += other
 * and a tensor-scalar convenience (ct_add_scalar) that treats the scalar as a Python number
 * would be treated (a "wrapped number", see ct_tensor_wrapped_number).
 *
 * The rules (PyTorch's TensorIterator; in more detail in docs/elementwise.md):
 *  - Shapes broadcast. "The size of tensor a (3) must match the size of tensor b (4) at
 *    non-singleton dimension 1" (CT_ERR_RUNTIME) otherwise.
 *  - The computation dtype is the inputs' result type (ct_result_type) when their dtypes differ,
 *    else their common dtype. div with rounding mode NONE turns an integral or bool computation
 *    dtype into the default dtype.
 *  - An output (`out`, or `self` of the in-place form) must be able to hold the computation
 *    dtype: "result type Float can't be cast to the desired output type Long"
 *    (CT_ERR_RUNTIME). The result is computed in the computation dtype, then converted.
 *  - An in-place `self` cannot grow: "output with shape [1] doesn't match the broadcast shape
 *    [3]". An `out` of another shape is resized (with a ct_warn warning when it had
 *    elements, as PyTorch's UserWarning).
 *  - Outputs may not overlap themselves or partially overlap an input: "unsupported
 *    operation: more than one element of the written-to tensor refers to a single memory
 *    location. Please clone() the tensor before performing the operation." and "unsupported
 *    operation: some elements of the input tensor and the written-to tensor refer to a
 *    single memory location. Please clone() the tensor before performing the operation."
 *  - Operands share a device; a 0-dim cpu input may join tensors of another device (it is
 *    read as a scalar), at most one: "Trying to pass too many CPU scalars to non-CPU
 *    kernel!", else "Expected all tensors to be on the same device, but found at least two
 *    devices, cuda:0 and cpu!". Meta tensors get shape, dtype and strides only. Devices
 *    whose backend cannot run host kernels: CT_ERR_NOT_IMPLEMENTED.
 *  - New results follow their inputs' memory layout: channels_last stays
 *    channels_last, a transposed input gives a transposed result.
 *  - Sparse COO operands go to the sparse layer (sparse.h) for what it implements (add);
 *    the other ops refuse them (ct_binary_supports).
 *  - Global tensors (ct_global, libctensor_dist) are not ct_tensors: their arithmetic is
 *    ct_global_binary / _scalar / _rscalar of global.h, with the same op rows.
 *
 * Dtypes: every dtype except the float8 family and float4_e2m1fn_x2; bool has no sub and no
 * rounding-mode division, complex has no rounding-mode division, and complex32 has no
 * division. Missing kernels are CT_ERR_NOT_IMPLEMENTED with the newest PyTorch's text
 * ("\"add_stub\" not implemented for 'Float8_e4m3fn'", "\"div_floor_cpu\" not implemented
 * for 'Bool'"). float16, bfloat16 and complex32 compute in float32 / complex64 and round
 * once, as PyTorch's CPU kernels do; add with alpha != 1 computes fma(alpha, b, a).
 *
 * OneFlow-compatible mode (compat.h): a zero-dim tensor promotes like a dimensioned one
 * (int32 tensor + int64 zero-dim tensor is int64), and an in-place operation requires the
 * computation dtype to be self's own ("result type oneflow.float64 can't be cast to the
 * desired output type oneflow.float32").
 *
 * Thread safety: operations on different output tensors may run concurrently; inputs may
 * be shared. Large operations split their work across ct_get_num_threads() threads.
 *
 * Errors common to every function: CT_ERR_MISUSE for NULL arguments; CT_ERR_NOMEM. On
 * error no new tensor is returned and in-place / out= targets keep their metadata (their
 * data may be partly written when a kernel error such as ZeroDivisionError stops the op,
 * as in PyTorch). */
#ifndef CTENSOR_OPS_H
#define CTENSOR_OPS_H

#include "ctensor/export.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** The rounding_mode of div. */
typedef enum ct_rounding_mode {
    CT_ROUNDING_NONE = 0,  /**< true division (an int -> float op) */
    CT_ROUNDING_TRUNC = 1, /**< round toward zero; integers stay integers */
    CT_ROUNDING_FLOOR = 2, /**< round toward -inf (Python's //); integers stay integers */
} ct_rounding_mode;

/* ---- the op table ------------------------------------------------------------------------
 * Every op is a row of ctensor/ops.def; ct_op names it. The generic entry points below
 * take an op and route by layout: strided operands to the element-wise iterator, sparse
 * COO operands to the sparse layer (sparse.h) where it implements the op. The named
 * functions (ct_add, ...) are these with the op filled in. */

/** What shape of op a row is. */
typedef enum ct_op_kind {
    CT_OP_KIND_BINARY = 0, /**< element-wise, two operands (a op alpha * b where it has alpha) */
    CT_OP_KIND_COMPARE = 1, /**< element-wise comparison of two operands: a bool result */
} ct_op_kind;

/** The ops, in ops.def's row order. */
typedef enum ct_op {
#define CT_OP(E, ...) CT_OP_##E,
#include "ctensor/ops.def"
#undef CT_OP
    CT_NUM_OPS
} ct_op;

/** The op's name as PyTorch's messages say it ("add"; "div" for every rounding mode); NULL
 *  for an invalid op. */
CT_API const char *ct_op_name(ct_op op);
/** Whether the op takes alpha (add, sub). false for an invalid op. */
CT_API bool ct_op_has_alpha(ct_op op);
/** The rounding mode a row implements (CT_ROUNDING_NONE for every op but div's rows);
 *  CT_ROUNDING_NONE for an invalid op. */
CT_API ct_rounding_mode ct_op_rounding(ct_op op);
/** The div row of a rounding mode: CT_OP_DIV, CT_OP_DIV_TRUNC or CT_OP_DIV_FLOOR. Errors:
 *  CT_ERR_MISUSE "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found
 *  rounding mode value 7" (*out untouched). */
CT_API ct_status ct_op_div(ct_rounding_mode mode, ct_op *out);

/** The form of a call: a new result, out=, or in-place. */
typedef enum ct_op_form {
    CT_OP_FORM_NEW = 0,     /**< torch.op(a, b) */
    CT_OP_FORM_OUT = 1,     /**< torch.op(a, b, out=out) */
    CT_OP_FORM_INPLACE = 2, /**< a.op_(b) */
} ct_op_form;

/** Whether ct_binary (form NEW), ct_binary_out (OUT) or ct_binary_ (INPLACE) has an
 *  implementation for op on operands of these layouts: every op and form for two strided
 *  operands; with a sparse COO operand, what the sparse layer registered (add, new result,
 *  see ct_sparse_add). It says nothing about the operands' other properties (dtypes,
 *  sizes): the call itself checks those. false for NULL operands or an invalid op. */
CT_API bool ct_binary_supports(ct_op op, ct_op_form form, const ct_tensor *a, const ct_tensor *b);

/** op(a, b) into a new tensor: a op alpha * b (alpha ignored by ops without it; pass
 *  ct_scalar_int(1)), with the operands exchanged first for rows that swap. Errors: those of
 *  the named function (ct_add, ...) for strided operands, of the sparse layer's function
 *  (ct_sparse_add) for sparse COO ones; CT_ERR_NOT_IMPLEMENTED "sub(): sparse COO operands
 *  are supported by add() only" where ct_binary_supports is false; CT_ERR_MISUSE for an
 *  invalid op. New reference in *out. */
CT_API ct_status ct_binary(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                           ct_tensor **out);
/** op(a, b, out=out). Errors as ct_binary. */
CT_API ct_status ct_binary_out(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                               ct_tensor *out);
/** self.op_(other). Errors as ct_binary. */
CT_API ct_status ct_binary_(ct_op op, ct_tensor *self, const ct_tensor *other, ct_scalar alpha);

/* ---- comparisons: eq ne lt le gt ge ---------------------------------------------------------
 * a OP b element by element, computed in the promoted dtype of a and b (result_type: a
 * Python number from ct_*_scalar is a wrapped number, so int64 tensor == 2.5 compares in the
 * default float dtype), broadcast; the result is bool. out= and in-place (self keeps its
 * dtype) take any dtype: the bool values are cast (true -> 1). alpha is not taken.
 * Errors: the iterator's (broadcast shapes, devices, overlap); CT_ERR_NOT_IMPLEMENTED
 * "\"lt_cpu\" not implemented for 'ComplexFloat'" for lt/le/gt/ge on complex, and for
 * computation dtypes without comparison (complex32, float8 family, float4); on a device
 * computed by launches (cuda): CT_ERR_NOT_IMPLEMENTED "eq: not implemented on cuda yet".
 * New reference in *out. ct_binary(CT_OP_EQ, ...) etc. are the same calls. */
CT_API ct_status ct_eq(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_eq_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_eq_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_eq_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);
CT_API ct_status ct_ne(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ne_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_ne_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_ne_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);
CT_API ct_status ct_lt(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_lt_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_lt_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_lt_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);
CT_API ct_status ct_le(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_le_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_le_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_le_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);
CT_API ct_status ct_gt(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_gt_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_gt_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_gt_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);
CT_API ct_status ct_ge(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ge_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_ge_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_ge_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);

/* ---- pow remainder fmod atan2 hypot, bitwise ops and shifts, logical ops ----------------------
 * No named functions: ct_binary / ct_binary_out / ct_binary_ with CT_OP_POW, CT_OP_REMAINDER,
 * CT_OP_FMOD, CT_OP_ATAN2, CT_OP_HYPOT, CT_OP_BITWISE_AND / _OR / _XOR,
 * CT_OP_BITWISE_LEFT_SHIFT / _RIGHT_SHIFT, CT_OP_LOGICAL_AND / _OR / _XOR (alpha ignored; new
 * reference in *out as for every op). torch 1.13's semantics:
 *  - pow: integers by repeated squaring (wrapping; a negative exponent gives 1 for 1, +-1 for
 *    -1, else 0), floats libm's pow, complex cpow; no bool kernel. With a wrapped-number
 *    exponent b (ct_tensor_wrapped_number: Python's t ** 2) it is pow.Tensor_Scalar:
 *    CT_ERR_RUNTIME "Integers to negative integer powers are not allowed." for an integral
 *    or bool base and a negative integral exponent, CT_ERR_OVERFLOW "value cannot be
 *    converted to type int8_t without overflow" for an exponent outside an integral, float16
 *    or bfloat16 result dtype, an out= / self of exactly the result
 *    dtype ("Found dtype Long but expected Float"), and x*x, x*x*x, 1/(x*x), sqrt, 1/sqrt,
 *    1/x for the exponents 2, 3, -2, 0.5, -0.5, -1 (float16: plain pow).
 *  - remainder (Python's %, the divisor's sign) and fmod (C's): integer division by zero is
 *    CT_ERR_RUNTIME "ZeroDivisionError"; x % -1 is 0 (INT_MIN included); floats PyTorch's
 *    fmod-then-adjust. No bool or complex kernels.
 *  - atan2 computes integers in the default dtype; hypot has float, double and bfloat16
 *    kernels only; neither has float16 nor complex ones.
 *  - bitwise and / or / xor: integers and bool. Shifts: integers; the count is taken modulo
 *    32 for 8- to 32-bit types and 64 for int64 (torch 1.13 on x86), left shifts wrap.
 *  - logical and / or / xor: a bool result computed in the promoted dtype (!= 0, NaN true,
 *    complex: either part), out= of any dtype, every dtype but complex32.
 * Missing kernels (uint16, uint32, uint64 for all but the logical ops; the float8 family):
 * CT_ERR_NOT_IMPLEMENTED "\"remainder_cpu\" not implemented for 'UInt16'" with the kernel
 * names of ops.def. Launch devices (cuda): CT_ERR_NOT_IMPLEMENTED for now. */

/* ---- maximum minimum fmax fmin ---------------------------------------------------------------
 * Element-wise larger / smaller of a and b in their promoted dtype (with add's output-cast
 * check for out=). maximum / minimum propagate NaN; fmax / fmin return the other operand when
 * one is NaN (C's fmax). bool: or / and. Errors: CT_ERR_RUNTIME "maximum not implemented for
 * complex tensors." (also minimum, fmax, fmin), the iterator's (shapes, devices, output
 * cast, overlap). New reference in *out. ct_binary(CT_OP_MAXIMUM, ...) is the same call. */
CT_API ct_status ct_maximum(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_maximum_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_minimum(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_minimum_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_fmax(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_fmax_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_fmin(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_fmin_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/* ---- isclose, allclose, equal ----------------------------------------------------------------
 * ct_isclose: a bool tensor (broadcast shape): a == b, or |a - b| finite and <= atol +
 * |rtol * b| computed in the dtype (integers and bool in the default dtype; float16 /
 * bfloat16 rounding every step as PyTorch's tensor ops do), or both NaN when equal_nan.
 * Errors: CT_ERR_RUNTIME "Long did not match Float" (the dtypes must be equal), "rtol must be
 * greater than or equal to zero, but got -1" (atol likewise), the iterator's broadcast and
 * device errors. ct_allclose: whether every element of ct_isclose is true (*out), same
 * errors. ct_equal: whether a and b have the same sizes and equal values (computed in the
 * promoted dtype as ct_eq; NaN is not equal), *out; CT_ERR_RUNTIME "Cannot compare two
 * tensors on different devices. Got: cpu and meta" for different devices. Meta tensors:
 * CT_ERR_NOT_IMPLEMENTED (no values) for allclose and equal. */
CT_API ct_status ct_isclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol,
                            bool equal_nan, ct_tensor **out);
CT_API ct_status ct_allclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol,
                             bool equal_nan, bool *out);
CT_API ct_status ct_equal(const ct_tensor *a, const ct_tensor *b, bool *out);

/* ---- classification: isnan isinf isfinite isposinf isneginf isreal ---------------------------
 * A bool tensor of t's shape (and layout): floating and complex values classified (complex:
 * NaN / inf in either part, finite in both, real when the imaginary part is 0); integers and
 * bool give all false (isnan, isinf, isposinf, isneginf) or all true (isfinite, isreal), as
 * PyTorch. Errors: CT_ERR_RUNTIME "isposinf does not support complex inputs." (also isneginf),
 * "isposinf does not support non-boolean outputs." for an out= that is not bool;
 * CT_ERR_NOT_IMPLEMENTED "\"isnan\" not implemented for 'Float8_e4m3fn'" for dtypes without
 * arithmetic, and "isnan: not implemented on cuda yet" on launch devices; CT_ERR_MISUSE for
 * NULL arguments. New reference in *out (the _out forms write into out, resized as add's). */
CT_API ct_status ct_isnan(const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_isinf(const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_isfinite(const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_isposinf(const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_isposinf_out(const ct_tensor *t, ct_tensor *out);
CT_API ct_status ct_isneginf(const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_isneginf_out(const ct_tensor *t, ct_tensor *out);
CT_API ct_status ct_isreal(const ct_tensor *t, ct_tensor **out);

/* ---- add: a + alpha * b ----------------------------------------------------------------
 * alpha: a float alpha with an integral result dtype → CT_ERR_RUNTIME "For integral input
 * tensors, argument alpha must not be a floating point number."; a bool alpha with a
 * non-bool result → "Boolean alpha only supported for Boolean results."; a complex alpha
 * with a non-complex result → "For non-complex input tensors, argument alpha must not be a
 * complex number.". Pass ct_scalar_int(1) for plain addition. */

/** torch.add(a, b, alpha=alpha). New reference in *out. */
CT_API ct_status ct_add(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor **out);
/** torch.add(a, b, alpha=alpha, out=out): writes into `out` (resized if its shape differs). */
CT_API ct_status ct_add_out(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                            ct_tensor *out);
/** self.add_(other, alpha=alpha), self += other. */
CT_API ct_status ct_add_(ct_tensor *self, const ct_tensor *other, ct_scalar alpha);
/** a + b for a Python-style scalar b (a wrapped number). New reference in *out. */
CT_API ct_status ct_add_scalar(const ct_tensor *a, ct_scalar b, ct_scalar alpha, ct_tensor **out);

/* ---- sub: a - alpha * b ----------------------------------------------------------------
 * Bool operands: CT_ERR_RUNTIME "Subtraction, the `-` operator, with two bool tensors is not
 * supported. Use the `^` or `logical_xor()` operator instead." (both bool) or "Subtraction,
 * the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask,
 * use the `~` or `logical_not()` operator instead." (one). alpha as for add. */

CT_API ct_status ct_sub(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor **out);
CT_API ct_status ct_sub_out(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                            ct_tensor *out);
CT_API ct_status ct_sub_(ct_tensor *self, const ct_tensor *other, ct_scalar alpha);
CT_API ct_status ct_sub_scalar(const ct_tensor *a, ct_scalar b, ct_scalar alpha, ct_tensor **out);
/** torch.rsub(t, value, alpha=alpha), Python's `value - t`: value - alpha * t for a
 *  Python-style scalar `value` (a wrapped number). New reference in *out. Errors as ct_sub
 *  (with the wrapped number as its first operand). */
CT_API ct_status ct_rsub_scalar(const ct_tensor *t, ct_scalar value, ct_scalar alpha,
                                ct_tensor **out);

/* ---- mul: a * b (bool: logical and) ------------------------------------------------------ */

CT_API ct_status ct_mul(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_mul_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
CT_API ct_status ct_mul_(ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_mul_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out);

/* ---- div: a / b ---------------------------------------------------------------------------
 * NONE: IEEE division in a floating dtype (integers and bool become the default dtype;
 * x / 0 gives inf or nan). TRUNC and FLOOR keep integer dtypes; integer division by zero is
 * CT_ERR_RUNTIME "ZeroDivisionError" (PyTorch's RuntimeError text). Unlike PyTorch, which
 * dies of SIGFPE, the minimum of a signed integer type divided by -1 is defined: it wraps
 * to the minimum itself (INT_MIN / -1 == INT_MIN), as int8 and int16 already do in
 * PyTorch. Float floor division follows Python (the
 * result takes the divisor's sign). Bool or complex with a rounding mode:
 * CT_ERR_NOT_IMPLEMENTED "\"div_trunc_cpu\" not implemented for 'Bool'" (and
 * "div_floor_cpu", 'ComplexFloat', ...). An invalid mode: CT_ERR_MISUSE. */

CT_API ct_status ct_div(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode,
                        ct_tensor **out);
CT_API ct_status ct_div_out(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode,
                            ct_tensor *out);
CT_API ct_status ct_div_(ct_tensor *self, const ct_tensor *other, ct_rounding_mode mode);
CT_API ct_status ct_div_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode,
                               ct_tensor **out);

/* ---- reflected division: other / t ------------------------------------------------------ */

/** Python's `other / t` for a tensor t, as PyTorch's Tensor.__rdiv__: t.reciprocal() * other.
 *  The reciprocal 1 / t is computed in t's dtype when it is floating or complex, else in the
 *  default dtype, rounded to that dtype before the product, and laid out as
 *  torch.reciprocal(t) lays out its result (on cpu and meta; other devices keep the
 *  division's output). `other` is usually a wrapped number (ct_rdiv_scalar) or a 0-dim
 *  tensor; the product follows ct_mul's rules. New reference in *out.
 *  Errors: those of ct_div and ct_mul; a dtype without true division is
 *  CT_ERR_NOT_IMPLEMENTED under the reciprocal's name, as PyTorch fails the unary op first
 *  ("\"reciprocal_cpu\" not implemented for 'ComplexHalf'"). */
CT_API ct_status ct_rdiv(const ct_tensor *t, const ct_tensor *other, ct_tensor **out);
/** ct_rdiv with a Python-style scalar `value` (a wrapped number): `value / t`. New reference
 *  in *out. Errors as ct_rdiv. */
CT_API ct_status ct_rdiv_scalar(const ct_tensor *t, ct_scalar value, ct_tensor **out);

CT_EXTERN_C_END

#endif /* CTENSOR_OPS_H */
