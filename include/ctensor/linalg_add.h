/* ctensor: the remaining "add a product" ops of PyTorch: addmm_, baddbmm_, addbmm, addmv and
 * addr, with their out= and in-place forms (beta * input + alpha * product).
 *
 * They build on linalg.h (addmm's kernel and checks) and share its rules: addmm_,
 * baddbmm_, addbmm and addmv need operands of one dtype (PyTorch's messages), addr promotes
 * as an element-wise op. beta == 0 ignores input's values (NaN included). Ownership as in
 * tensor.h: results are NEW references; on failure *out is NULL, and an out= or in-place
 * target keeps its metadata (its values may have been partly written only by a failing
 * copy, never by a failed check). A NULL tensor is CT_ERR_MISUSE.
 */
#ifndef CTENSOR_LINALG_ADD_H
#define CTENSOR_LINALG_ADD_H

#include "ctensor/export.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** self.addmm_(mat1, mat2, beta=, alpha=): self = beta * self + alpha * mat1 @ mat2.
 *  Errors: those of ct_tensor_addmm; CT_ERR_RUNTIME "Bad in-place call: input tensor size
 *  [1, 5] and output tensor size [3, 5] should match". */
CT_API ct_status ct_tensor_addmm_(ct_tensor *self, const ct_tensor *mat1, const ct_tensor *mat2,
                                  ct_scalar beta, ct_scalar alpha);
/** self.baddbmm_(batch1, batch2, beta=, alpha=). Errors as ct_tensor_baddbmm and the
 *  "Bad in-place call" above. */
CT_API ct_status ct_tensor_baddbmm_(ct_tensor *self, const ct_tensor *batch1,
                                    const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha);

/** torch.addbmm(input, batch1, batch2, beta=, alpha=): beta * input + alpha * the sum over
 *  the batch of batch1[i] @ batch2[i] (one product of [n, B*k] @ [B*k, m]). New reference.
 *  Errors: CT_ERR_RUNTIME "batch1 must be a 3D tensor", "batch2 must be a 3D tensor",
 *  "batch1 and batch2 must have same number of batches, got 2 and 3", "Incompatible matrix
 *  sizes for bmm (3x4 and 3x5)"; those of ct_tensor_addmm (broadcast, dtypes). */
CT_API ct_status ct_tensor_addbmm(const ct_tensor *input, const ct_tensor *batch1,
                                  const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha,
                                  ct_tensor **out);
/** out= form (out resized as PyTorch's resize_output); addbmm_ is addbmm with out = self
 *  (PyTorch 1.13 resizes self too). */
CT_API ct_status ct_tensor_addbmm_out(const ct_tensor *input, const ct_tensor *batch1,
                                      const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha,
                                      ct_tensor *out);
CT_API ct_status ct_tensor_addbmm_(ct_tensor *self, const ct_tensor *batch1,
                                   const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha);

/** torch.addmv(input, mat, vec, beta=, alpha=): beta * input + alpha * mat @ vec; input (of
 *  any dtype: it is converted to mat's) has 1 or mat.size(0) elements. New reference.
 *  Errors: CT_ERR_RUNTIME "vector + matrix @ vector expected, got 1, 3, 1", "size mismatch,
 *  got 2, 3x4,4", "expected scalar type Double but found Float" (mat and vec);
 *  "\"addmv_impl_cpu\" not implemented for 'Bool'". */
CT_API ct_status ct_tensor_addmv(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec,
                                 ct_scalar beta, ct_scalar alpha, ct_tensor **out);
CT_API ct_status ct_tensor_addmv_out(const ct_tensor *input, const ct_tensor *mat,
                                     const ct_tensor *vec, ct_scalar beta, ct_scalar alpha,
                                     ct_tensor *out);
/** self.addmv_: errors as addmv and "Bad in-place call: input tensor size [1] and output
 *  tensor size [3] should match". */
CT_API ct_status ct_tensor_addmv_(ct_tensor *self, const ct_tensor *mat, const ct_tensor *vec,
                                  ct_scalar beta, ct_scalar alpha);

/** torch.addr(input, vec1, vec2, beta=, alpha=): beta * input + alpha * outer(vec1, vec2),
 *  element-wise with PyTorch's type promotion over the three tensors; input broadcast to
 *  [len(vec1), len(vec2)]. New reference. Errors: CT_ERR_RUNTIME "addr: Expected 1-D
 *  argument vec1, but got 2-D", "For integral input tensors, argument beta must not be a
 *  floating point number.", "Boolean beta only supported for Boolean results."; expand's
 *  errors; those of the element-wise ops. */
CT_API ct_status ct_tensor_addr(const ct_tensor *input, const ct_tensor *vec1,
                                const ct_tensor *vec2, ct_scalar beta, ct_scalar alpha,
                                ct_tensor **out);
CT_API ct_status ct_tensor_addr_out(const ct_tensor *input, const ct_tensor *vec1,
                                    const ct_tensor *vec2, ct_scalar beta, ct_scalar alpha,
                                    ct_tensor *out);
/** self.addr_: errors as addr and "size mismatch, input: [1, 4], v1: [3], v2: [4]"; the
 *  result must be castable to self's dtype (the element-wise ops' check). */
CT_API ct_status ct_tensor_addr_(ct_tensor *self, const ct_tensor *vec1, const ct_tensor *vec2,
                                 ct_scalar beta, ct_scalar alpha);

CT_EXTERN_C_END

#endif /* CTENSOR_LINALG_ADD_H */
