/* ctensor: matrix products (PyTorch's matmul, mm, bmm, mv, dot, outer, addmm, baddbmm).
 *
 * Ownership as in tensor.h: each result is a NEW reference in *out (NULL on failure); the
 * *_out forms write into `out`, resized as PyTorch's resize_output (a warning when it had
 * elements and another shape), and return nothing new. Inputs are borrowed. A NULL tensor is
 * CT_ERR_MISUSE. Nothing is left allocated on failure.
 *
 * Dtypes: both operands (and addmm's/baddbmm's input) must share a dtype; there is no
 * promotion (outer excepted: it is a broadcasting multiply). float32/float64/complex use
 * OpenBLAS; float16/bfloat16 accumulate in float32 and round once (torch 1.13 refuses
 * float16 on the CPU; ctensor accepts it, as later PyTorch does); integers wrap. bool and
 * shell dtypes: CT_ERR_RUNTIME "\"addmm_impl_cpu_\" not implemented for 'Bool'" (mm, addmm,
 * 2-D matmul), "\"bmm\" ...", "\"baddbmm\" ...", "\"addmv_impl_cpu\" ..." (mv), "\"dot\" ...".
 * Devices: cpu and meta (shapes and dtypes only); on other devices (cuda) every function here
 * and in linalg_add.h runs on the cpu through host memory when all its tensors are on one
 * device (copied to the host, results and out= / in-place targets back: correct, not fast;
 * a device BLAS is future work). Tensors on two devices: CT_ERR_RUNTIME "Expected all tensors
 * to be on the same device, but found at least two devices, cuda:0 and cpu!" (out= on
 * another device: "Expected out tensor to have device cuda:0, but got cpu instead").
 *
 * Errors (CT_ERR_RUNTIME, PyTorch 1.13's wording): "expected scalar type Float but found
 * Double"; "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"; "self must be a matrix",
 * "mat2 must be a matrix" (mm); "mat1 must be a matrix, got 1-D tensor" (addmm); "batch1 must
 * be a 3D tensor"; "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but
 * got: [3, 3]."; "vector + matrix @ vector expected, got 1, 2, 2"; "size mismatch, got 2,
 * 2x3,4" (mv); "1D tensors expected, but got 2D and 1D tensors", "dot : expected both vectors
 * to have same dtype, but found Float and Double", "inconsistent tensor size, expected tensor
 * [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively"
 * (dot); "both arguments to matmul need to be at least 1D, but they are 0D and 1D"; the
 * broadcast error of matmul's batch dims; "Expected out tensor to have dtype float, but got
 * double instead" (out=); CT_ERR_NOMEM.
 */
#ifndef CTENSOR_LINALG_H
#define CTENSOR_LINALG_H

#include "ctensor/export.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.matmul(a, b): every 1-D/2-D/batched broadcasting case. New reference. */
CT_API ct_status ct_tensor_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_tensor_matmul_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/** torch.mm(a, b): 2-D @ 2-D. */
CT_API ct_status ct_tensor_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_tensor_mm_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/** torch.bmm(a, b): [B, n, k] @ [B, k, m]. */
CT_API ct_status ct_tensor_bmm(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_tensor_bmm_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/** torch.mv(mat, vec). */
CT_API ct_status ct_tensor_mv(const ct_tensor *mat, const ct_tensor *vec, ct_tensor **out);
CT_API ct_status ct_tensor_mv_out(const ct_tensor *mat, const ct_tensor *vec, ct_tensor *out);

/** torch.dot(a, b): a 0-D result. */
CT_API ct_status ct_tensor_dot(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_tensor_dot_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/** torch.outer(a, b) (alias ger): a[:, None] * b[None, :], with the multiply's promotion.
 *  Errors: "outer: Expected 1-D argument self, but got 2-D" (vec2 for the second). */
CT_API ct_status ct_tensor_outer(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_tensor_outer_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/** torch.ger: outer; the out= form warns (ct_warn) "torch.ger is deprecated and will be
 *  removed in a future PyTorch release. Use torch.outer instead." as torch 1.13 does. */
CT_API ct_status ct_tensor_ger(const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_tensor_ger_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/** torch.addmm(input, mat1, mat2, beta=, alpha=): beta * input + alpha * mat1 @ mat2, input
 *  broadcast to the product's shape (expand's errors); beta == 0 ignores input's values. */
CT_API ct_status ct_tensor_addmm(const ct_tensor *input, const ct_tensor *mat1,
                                 const ct_tensor *mat2, ct_scalar beta, ct_scalar alpha,
                                 ct_tensor **out);
CT_API ct_status ct_tensor_addmm_out(const ct_tensor *input, const ct_tensor *mat1,
                                     const ct_tensor *mat2, ct_scalar beta, ct_scalar alpha,
                                     ct_tensor *out);

/** torch.baddbmm(input, batch1, batch2, beta=, alpha=). */
CT_API ct_status ct_tensor_baddbmm(const ct_tensor *input, const ct_tensor *batch1,
                                   const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha,
                                   ct_tensor **out);
CT_API ct_status ct_tensor_baddbmm_out(const ct_tensor *input, const ct_tensor *batch1,
                                       const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha,
                                       ct_tensor *out);

CT_EXTERN_C_END

#endif /* CTENSOR_LINALG_H */
