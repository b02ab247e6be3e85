/* ctensor: element-wise ops of up to three tensors (where, clamp, clamp_min, clamp_max, lerp,
 * addcmul, addcdiv, masked_fill) with PyTorch's rules. The ops are the rows of
 * ctensor/ternary.def.
 *
 *   ct_ternary(op, a, b, c, value, &r)   torch.<op>(a, b, c): a new tensor
 *   ct_ternary_out(op, a, b, c, value, out)   the same with out=out
 *   ct_ternary_(op, self, b, c, value)   self.<op>_(b, c) (self is a)
 *
 * The operands of each op (a Python number is a wrapped number, ct_tensor_wrapped_number):
 *   WHERE        a condition (bool; uint8 is accepted with PyTorch's deprecation warning,
 *                ct_warn, once per process), b input, c other. No in-place form.
 *   CLAMP        a input, b min, c max; either bound may be NULL, not both. Bounds that are
 *                all wrapped numbers select PyTorch's scalar overload (clamp(x, 0, 1)).
 *   CLAMP_MIN    a input, b min (c NULL); CLAMP_MAX: a input, b max (c NULL).
 *   LERP         a start, b end, c weight (a tensor, or a wrapped number: the scalar weight).
 *   ADDCMUL      a input, b tensor1, c tensor2, value: a + value * b * c.
 *   ADDCDIV      a input, b tensor1, c tensor2, value: a + value * b / c.
 *   MASKED_FILL  a self, b mask (bool), c value (a 0-dim tensor or wrapped number).
 * `value` is read by ADDCMUL and ADDCDIV only (pass ct_scalar_int(1) otherwise).
 *
 * The rules (PyTorch's TensorIterator, ternary.def's dtype_rule column):
 *  - Shapes broadcast (all three; masked_fill_'s mask broadcasts to self, which cannot grow:
 *    "output with shape [3] doesn't match the broadcast shape [2, 3]").
 *  - Dtypes: where gives result_type(b, c) and its out= must be exactly that ("Expected out
 *    type to be Float but got Double"); a non-bool condition: "where expected condition to be
 *    a boolean tensor, but got a tensor with dtype Float". clamp with tensor bounds promotes
 *    all of them and casts to out= as add does; with scalar bounds a floating input keeps its
 *    dtype, others take result_type(input, bounds), out= must be exactly that ("Found dtype
 *    Long but expected Float"), an in-place input must be that ("result type Float can't be
 *    cast to the desired output type long int"), and a bound that does not fit it fails
 *    ("value cannot be converted to type int8_t without overflow"). Complex: "clamp is not
 *    supported for complex types". Neither bound: "torch.clamp: At least one of 'min' or
 *    'max' must not be None". lerp requires end and a weight tensor of start's dtype
 *    ("expected dtype float for `end` but got dtype double"). addcmul / addcdiv promote all
 *    three; addcdiv of two integral tensors fails with PyTorch's "Integer division with
 *    addcdiv is no longer supported, ..." message. masked_fill keeps self's dtype; the mask
 *    must be bool ("masked_fill_ only supports boolean masks, but got mask with dtype
 *    float"), the value 0-dim ("masked_fill_ only supports a 0-dimensional value tensor, but
 *    got tensor with 1 dimension(s).") and convertible to self's dtype; masked_fill_ on an
 *    expanded self warns as PyTorch does, masked_fill's result is contiguous.
 *  - NaN: clamp propagates a NaN input and a NaN tensor bound; a NaN scalar bound with the
 *    other given gives NaN everywhere, and so does a NaN scalar bound of CT_TEROP_CLAMP_MIN /
 *    CT_TEROP_CLAMP_MAX; a lone NaN scalar bound of CT_TEROP_CLAMP leaves the input
 *    unchanged; min > max gives max.
 *  - Computation: float16 and bfloat16 compute in float32 and round once; addcmul is
 *    fma(value * b, c, a), lerp one fma per branch, addcdiv a + (value * b) / c, as PyTorch's
 *    CPU kernels compute them.
 *  - out= resize, overlap and device errors as ops.h says.
 *  - Missing kernels: CT_ERR_NOT_IMPLEMENTED "\"clamp_scalar_cpu\" not implemented for
 *    'Bool'", "\"lerp_kernel_scalar\" not implemented for 'Long'", "\"addcmul_cpu_out\" not
 *    implemented for 'Bool'", the shell dtypes for every op.
 *  - Devices: cpu and host-emulated devices compute; meta gives shape, dtype and strides; a
 *    device whose memory host code cannot touch (cuda) fails with CT_ERR_NOT_IMPLEMENTED
 *    "<name>: not implemented on cuda yet". Sparse operands: CT_ERR_NOT_IMPLEMENTED.
 * All functions: CT_ERR_MISUSE for NULL required arguments, an invalid op or an in-place
 * where. On error *out is NULL and no out= / in-place target has changed. */
#ifndef CTENSOR_TERNARY_H
#define CTENSOR_TERNARY_H

#include "ctensor/export.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The ternary ops, one per row of ctensor/ternary.def. */
typedef enum ct_terop {
#define CT_TERNARY(E, name, cpu_name, scalar_cpu_name, nin, rule, dtypes, has_value) CT_TEROP_##E,
#include "ctensor/ternary.def"
#undef CT_TERNARY
    CT_NUM_TEROPS
} ct_terop;

/** PyTorch's name of `op` ("where"); NULL for an invalid op. */
CT_API const char *ct_terop_name(ct_terop op);

/** op(a, b, c) as a new tensor in *out (new reference). Operands are borrowed. */
CT_API ct_status ct_ternary(ct_terop op, const ct_tensor *a, const ct_tensor *b,
                            const ct_tensor *c, ct_scalar value, ct_tensor **out);
/** op(a, b, c, out=out): out (borrowed) is resized to the broadcast shape when it differs
 *  (warning when it had elements). */
CT_API ct_status ct_ternary_out(ct_terop op, const ct_tensor *a, const ct_tensor *b,
                                const ct_tensor *c, ct_scalar value, ct_tensor *out);
/** self.op_(b, c): self (borrowed) keeps its shape and dtype. */
CT_API ct_status ct_ternary_(ct_terop op, ct_tensor *self, const ct_tensor *b,
                             const ct_tensor *c, ct_scalar value);

#ifdef __cplusplus
}
#endif

#endif /* CTENSOR_TERNARY_H */
