/* ctensor: element-wise ops of one tensor (neg, abs, floor, exp, sin, ...) with PyTorch's
 * rules. The ops are the rows of ctensor/unary.def.
 *
 *   ct_unary(CT_UNOP_EXP, t, &r)      torch.exp(t): a new tensor
 *   ct_unary_out(CT_UNOP_EXP, t, out) torch.exp(t, out=out)
 *   ct_unary_(CT_UNOP_EXP, self)      self.exp_()
 *
 * The rules (PyTorch's unary TensorIterator):
 *  - The computation dtype is the input's, except for the rows whose result is FLOAT, where
 *    an integral or bool input computes in the default dtype (ct_get_default_dtype). abs of
 *    a complex tensor gives its real dtype; logical_not gives bool (out= of any dtype).
 *  - float16 and bfloat16 compute in float32 and round once.
 *  - out= and in-place targets must hold the result: "result type Float can't be cast to the
 *    desired output type Long" (CT_ERR_RUNTIME); out= of another shape is resized (with
 *    PyTorch's warning when it had elements); overlap errors as ops.h says.
 *  - A computation dtype without a kernel: CT_ERR_NOT_IMPLEMENTED "\"exp_vml_cpu\" not
 *    implemented for 'Half'"-style messages with the row's cpu_name, and PyTorch's own
 *    errors: neg of bool ("Negation, the `-` operator, on a bool tensor is not supported.
 *    ..."), positive of bool, sign of complex ("Unlike NumPy, torch.sign is not intended to
 *    support complex numbers. Please use torch.sgn instead."), floor/ceil/trunc of complex
 *    ("floor is not supported for complex inputs"), in-place abs of complex ("In-place abs is
 *    not supported for complex tensors."). complex32 (ComplexHalf) has no unary kernels.
 *  - Devices: cpu computes; meta gives shape, dtype and strides; a device whose memory host
 *    code cannot touch (cuda) fails with CT_ERR_NOT_IMPLEMENTED "<name>: not implemented on
 *    cuda yet".
 *  - Sparse COO operands (input or out=), as the row's `sparse` column says (PyTorch 1.13):
 *    zero-preserving rows (abs, sqrt, sin, ...) compute the dense op on the values of the
 *    coalesced input: a new sparse result flagged coalesced (indices copied); in place only
 *    on a coalesced tensor (CT_ERR_RUNTIME "sqrt_ requires coalesced input"); out= must be
 *    sparse (CT_ERR_RUNTIME "Expected self.is_sparse() && result.is_sparse() to be true, but
 *    got false. ...") and takes the result's sizes, indices and flag, its values in out's
 *    dtype (the dense cast check). neg keeps the indices' order and flag (out=: the input
 *    converted to out's dtype, then negated; "Tensor should be sparse"); positive returns the
 *    input. Other rows, meta sparse tensors and round(decimals=): CT_ERR_NOT_IMPLEMENTED
 *    "Could not run 'aten::exp' with arguments from the 'SparseCPU' backend." ('aten::exp_',
 *    'aten::exp.out' for the other forms).
 * All functions: CT_ERR_MISUSE for NULL arguments or an invalid op. On error *out is NULL
 * and no out=/in-place target has changed. */
#ifndef CTENSOR_UNARY_H
#define CTENSOR_UNARY_H

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The unary ops, one per row of ctensor/unary.def. */
typedef enum ct_unop {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) CT_UNOP_##E,
#include "ctensor/unary.def"
#undef CT_UNARY
    CT_NUM_UNOPS
} ct_unop;

/** PyTorch's name of `op` ("exp"); NULL for an invalid op. */
CT_API const char *ct_unop_name(ct_unop op);

/** op(t) as a new tensor in *out. */
CT_API ct_status ct_unary(ct_unop op, const ct_tensor *t, ct_tensor **out);
/** op(t, out=out): out is resized to t's shape when it differs (warning when it had
 *  elements); its dtype must hold the result. */
CT_API ct_status ct_unary_out(ct_unop op, const ct_tensor *t, ct_tensor *out);
/** self.op_(): self's dtype must hold the result. */
CT_API ct_status ct_unary_(ct_unop op, ct_tensor *self);

/** torch.round(t, decimals=d), t.round(decimals=d) and its in-place and out= forms: for
 *  d != 0, nearbyint(t * 10^d) / 10^d (d > 0) or nearbyint(t / 10^-d) * 10^-d (d < 0) in t's
 *  floating dtype (float16 and bfloat16 in float32), ties to even, as PyTorch; d == 0 is
 *  CT_UNOP_ROUND. Integral and complex inputs: CT_ERR_NOT_IMPLEMENTED "\"round_cpu\" not
 *  implemented for 'Long'". Other errors: ct_unary's. */
CT_API ct_status ct_round_decimals(const ct_tensor *t, int64_t decimals, ct_tensor **out);
CT_API ct_status ct_round_decimals_out(const ct_tensor *t, int64_t decimals, ct_tensor *out);
CT_API ct_status ct_round_decimals_(ct_tensor *self, int64_t decimals);

#ifdef __cplusplus
}
#endif

#endif /* CTENSOR_UNARY_H */
