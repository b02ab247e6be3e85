/* ctensor: global tensors (OneFlow's to_global / to_local / boxing), part of libctensor_dist.
 *
 * A global tensor has a logical shape, a dtype, a placement and an nd-sbp (one ct_sbp per
 * hierarchy axis of the placement). Each rank of the placement holds a local component, a
 * plain ct_tensor whose shape follows from the logical shape:
 * for hierarchy axes k = 0, 1, ... in order, split(d) replaces the current size of dim d
 * by this rank's balanced part of h[k] parts (lower coordinates get the extra element);
 * broadcast and partial_sum keep it. The logical value is recovered by concatenating along
 * split axes, summing along partial_sum axes, and taking any replica of broadcast axes.
 * A split of a dim smaller than its number of parts leaves empty components on the last
 * ranks (OneFlow refuses such shapes in eager mode; ctensor allows them). A rank outside
 * the placement has the same metadata and a local component with every size 0 (a 0-dim
 * logical tensor: a 0-dim zero).
 *
 * Every function here is COLLECTIVE over all ranks of the runtime's communicator (MPI_COMM_WORLD
 * unless ct_dist_init_comm chose another; SPMD, dist.h): every
 * rank calls it, in the same order, with the same placement and sbp arguments. Arguments
 * that disagree between ranks (placement, sbp, dtype, shapes that cannot form one logical
 * tensor, or different operations) are detected by one small collective at the start and
 * make every rank return the same CT_ERR_RUNTIME, e.g. "global operation arguments differ
 * across ranks: rank 0 called to_global(...), rank 1 called to_global(...)".
 *
 * Objects: ct_global is immutable metadata plus its local component, reference counted;
 * functions returning one through an out-parameter give a NEW reference (possibly to an
 * input itself, see ct_global_to_global). Local components live on the placement's local
 * device (ct_placement_local_device: cpu, or cuda:(local rank % device count) for a "cuda"
 * placement; a non-member's empty component is on the cpu). Data moves through MPI on host
 * memory: a device whose memory is not host accessible (ct_device_type_host_accessible, a
 * GPU) is staged through it, each member copying its component to the cpu, converting there
 * exactly as a cpu placement of the same ranks would, and copying its result back to its
 * device; so every conversion, sbp layout and error is the cpu one. The element-wise ops and
 * reductions run the local op on each member's device.
 *
 * Reductions (partial_sum -> broadcast/split): MPI_SUM for integer, float32/64 and complex
 * dtypes (integers wrap as C unsigned arithmetic does); logical or for bool (what PyTorch's
 * bool add gives); float16, bfloat16 and complex32 are gathered and summed in parallel-id
 * order in float32, then rounded once, so their results are reproducible and equal the
 * serial sum x0 + x1 + ... computed in float32. Dtypes without addition (float8 family,
 * float4, uint16/32/64) can be split and broadcast but not reduced: CT_ERR_NOT_IMPLEMENTED
 * "partial_sum is not supported for dtype ...".
 *
 * Common errors: CT_ERR_MISUSE for NULL arguments; CT_ERR_VALUE "The number of sbp (2) must
 * match the number of placement hierarchy dims (1)"; CT_ERR_RUNTIME "Split axis out of
 * range (expected to be in range of [0, 1), but got 1!)" (OneFlow's text); CT_ERR_NOMEM.
 */
#ifndef CTENSOR_GLOBAL_H
#define CTENSOR_GLOBAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/ops.h"
#include "ctensor/placement.h"
#include "ctensor/reduce.h"
#include "ctensor/sbp.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"
#include "ctensor/unary.h"

CT_EXTERN_C_BEGIN

typedef struct ct_global ct_global;

/** Flags of the conversions. */
enum {
    /** local -> global: check that the ranks' local shapes form a logical tensor under the
     *  sbp (otherwise the logical shape is the first member's local shape times the
     *  hierarchy sizes of its split axes). global -> global: ignored (the arguments are
     *  always compared across ranks). */
    CT_GLOBAL_CHECK_META = 1u << 0,
    /** Never share memory with the input: copy the local component. */
    CT_GLOBAL_COPY = 1u << 1,
};

/* ---- object ---------------------------------------------------------------------------- */

/** Add a reference; returns `global`. NULL-safe. */
CT_API ct_global *ct_global_retain(ct_global *global);
/** Drop a reference. NULL-safe. Not collective. */
CT_API void ct_global_release(ct_global *global);

/** The logical number of dims. */
CT_API int64_t ct_global_dim(const ct_global *global);
/** The logical sizes; borrowed, dim() entries. */
CT_API const int64_t *ct_global_sizes(const ct_global *global);
/** The logical number of elements. */
CT_API int64_t ct_global_numel(const ct_global *global);
CT_API ct_dtype ct_global_dtype(const ct_global *global);
/** The placement; borrowed. */
CT_API const ct_placement *ct_global_placement(const ct_global *global);
/** The nd-sbp; borrowed, ct_placement_ndim(placement) entries. */
CT_API const ct_sbp *ct_global_sbp(const ct_global *global);
/** This rank's local component; borrowed (every size 0 outside the placement). */
CT_API const ct_tensor *ct_global_local(const ct_global *global);

/* ---- conversions ----------------------------------------------------------------------- */

/** Tensor.to_global on a local tensor (local_to_global): `local` becomes this rank's local
 *  component of a global tensor on `placement` with nd-sbp `sbp[0..n_sbp)`. It is first made
 *  contiguous and moved to the placement's local device; without CT_GLOBAL_COPY the
 *  component shares memory with `local` when no such change was needed.
 *  split: no data moves; the logical tensor is the concatenation of the components.
 *  partial_sum: no data moves; the logical tensor is their sum.
 *  broadcast: the first rank of each broadcast group (ranks differing only in broadcast
 *  coordinates) sends its data to the others, which overwrite their component (and so
 *  `local` itself, unless CT_GLOBAL_COPY; a warning is issued once, as in OneFlow).
 *  Ranks outside the placement may pass NULL for `local` (anything they pass is ignored)
 *  and receive the metadata. With CT_GLOBAL_CHECK_META, errors (every rank, CT_ERR_RUNTIME):
 *  "Expected all tensors on each rank to be the same dtype, but found at least two dtypes,
 *  ctensor.float32(rank 0) and ctensor.int32(rank 1)!"; "Sizes of tensors in dimension 0
 *  must be same or match balanced split distribution. See https://github.com/Oneflow-Inc/
 *  oneflow/blob/master/oneflow/core/common/balanced_splitter.h for details of balanced
 *  split"; "Sizes of tensors must match except in dimension 1. Expected size 2 but got size
 *  4 for tensor on rank 1!"; different numbers of dims: "Expected all tensors on each rank
 *  to have the same number of dimensions, but found 2(rank 0) and 1(rank 1)!".
 *  New reference in *out. */
CT_API ct_status ct_global_from_local(const ct_tensor *local, const ct_placement *placement,
                                      const ct_sbp *sbp, int64_t n_sbp, unsigned flags,
                                      ct_global **out);

/** Tensor.to_global on a global tensor (boxing): the same logical value on `placement`
 *  (NULL: keep) with nd-sbp `sbp` (NULL: keep; n_sbp must then be 0). Any pair of sbp on
 *  1-D and N-D placements, and any change of placement (ranks, hierarchy, device type),
 *  is supported. When nothing changes, *out is a new reference to `global` itself (a copy
 *  with CT_GLOBAL_COPY). Only the logical value is defined for a partial_sum output; its
 *  layout is OneFlow's: from a 1-D split (any 1-D placement) or a one-rank tensor to 1-D
 *  partial_sum, each shard goes to its own rank when that rank is in the output placement,
 *  else to output parallel id (input parallel id % output size), in place in zeros (so on
 *  the same placement each rank keeps its shard, without communication); otherwise the
 *  first rank of each partial group (coordinate 0 on the axis) holds the value and the
 *  others zeros.
 *  New reference in *out. */
CT_API ct_status ct_global_to_global(const ct_global *global, const ct_placement *placement,
                                     const ct_sbp *sbp, int64_t n_sbp, unsigned flags,
                                     ct_global **out);

/** Tensor.to_local: this rank's local component (a new reference to the same tensor, or a
 *  copy with CT_GLOBAL_COPY). Not collective. */
CT_API ct_status ct_global_to_local(const ct_global *global, unsigned flags, ct_tensor **out);

/** The whole logical value as a contiguous local tensor on the cpu, on every rank of the
 *  world (outside the placement too): what Tensor.numpy() and repr() show. Its operation
 *  name in the agreement is "to_logical". New reference. */
CT_API ct_status ct_global_to_logical(const ct_global *global, ct_tensor **out);

/** ct_global_to_logical under the operation name `op` (NULL: "to_logical"; cut to 31
 *  bytes), e.g. "tolist", "numpy", "repr", "item": the name is the operation's identity in
 *  the opening agreement, so ranks that read the value for different purposes fail with
 *  the "arguments differ across ranks" error instead of going on with different results. */
CT_API ct_status ct_global_to_logical_named(const ct_global *global, const char *op,
                                            ct_tensor **out);

/* ---- failing a global operation on one rank ----------------------------------------------
 * Every global operation opens with one agreement collective in which every rank also says
 * whether its own argument checks passed. A rank whose checks fail still takes part, so
 * that an error on one rank is an error on every rank: the failing rank returns its own
 * error, the others the same status with "global operation div failed on rank 1:
 * ValueError: <the failing rank's message, cut to 255 bytes>". The functions of this
 * header do so themselves for the arguments they check; ct_global_fail is for a caller
 * (a language binding) whose own checks failed before it could call one of them. */

/** Join the opening agreement of the global operation `op` (its name, e.g. "div", only
 *  used in the other ranks' message) as a rank whose own checks failed with `status`, the
 *  calling thread's last error (ct_set_error), which the others see. Collective: the other
 *  ranks are in any global operation of this header (or in ct_global_fail). Returns
 *  `status`, with the last error's message kept; CT_ERR_MISUSE when `status` is CT_OK. */
CT_API ct_status ct_global_fail(const char *op, ct_status status);

/** Open a global operation that the caller builds from `steps` global operations of this
 *  header (a binding's to_global over a list of tensors): every rank states the operation's
 *  name and its number of steps, so that ranks that would take different numbers of steps
 *  all fail here instead of some waiting in a step the others never take. Collective.
 *  Errors: CT_ERR_RUNTIME "global operation arguments differ across ranks: rank 0 called
 *  to_global(2 steps), rank 1 called to_global(3 steps)" on every rank; CT_ERR_VALUE for
 *  negative `steps` (through the agreement, as ct_global_fail); MPI's errors. */
CT_API ct_status ct_global_begin(const char *op, int64_t steps);

/* ---- factories --------------------------------------------------------------------------
 * The logical tensor has `sizes`; each rank materialises only its component. A partial_sum
 * axis is built as broadcast then converted (the first rank of each partial group holds the
 * value, the others zeros), so the logical value is the constant, as in OneFlow. Errors of
 * ct_tensor_empty for the sizes and dtype. New reference in *out. */

CT_API ct_status ct_global_empty(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                 const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                                 ct_global **out);
CT_API ct_status ct_global_full(const int64_t *sizes, int64_t ndim, ct_scalar value, ct_dtype dtype,
                                const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                                ct_global **out);
CT_API ct_status ct_global_zeros(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                 const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                                 ct_global **out);
CT_API ct_status ct_global_ones(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                                ct_global **out);

/** flow.tensor(data, placement=, sbp=): `data` is the logical value. It is taken from the
 *  placement's first rank (sent to the others), then each rank keeps its part. Ranks other
 *  than the first member may pass NULL. New reference in *out. */
CT_API ct_status ct_global_from_tensor(const ct_tensor *data, const ct_placement *placement,
                                       const ct_sbp *sbp, int64_t n_sbp, ct_global **out);

/* ---- element-wise arithmetic ------------------------------------------------------------
 * The rules of ops.h (promotion, broadcasting, alpha, rounding modes, errors) apply to the
 * logical tensors. Both operands must share one placement: CT_ERR_RUNTIME "Expected all
 * tensors to be on the same placement, but found at least two placements, ctensor.placement(
 * type=\"cpu\", ranks=[0, 1]) and ctensor.placement(type=\"cpu\", ranks=[0])!".
 *
 * The result's nd-sbp is chosen per hierarchy axis from OneFlow's candidate signatures for
 * broadcast binary ops: S(i),S(i)->S(i) for dims both operands
 * have (size != 1); B,S(i)->S(i) / S(i),B->S(i) where one operand broadcasts; P,P->P for
 * add and sub; P,B->P and B,P->P for mul; P,B->P for true division; B,B->B always. Among
 * them the cheapest by OneFlow's eager copy cost wins (0 for an unchanged operand, 1 for
 * B->S, bytes*(n-1)/n for S(i)->S(j), bytes*(n-1) for P->S and S->B, 2*bytes*(n-1) for
 * P->B; never converting to P), ties going to the first candidate: splits by ascending dim,
 * then partial, then broadcast. Operands whose sbp differs are boxed first. So
 * add(S(0), S(0)) = S(0), add(P, P) = P, mul(P, B) = P, add(P, B) = S(0).
 * New reference in *out. */

/* One entry point per operand shape for every row of the op table (ct_op, ops.h; div's rows
 * carry the rounding mode), the way ct_binary is for local tensors. A ct_global is its own
 * object, not a layout of ct_tensor, so ct_binary / ct_add and the other functions of ops.h
 * never receive one: these are their global counterparts, and the C entry point of global
 * arithmetic (the Python operators and functions call exactly one of them per call). The
 * named functions below are shorthands for them. `alpha` is used by rows that take it
 * (ct_op_has_alpha) and ignored by the others. There are no out= or in-place forms: a global
 * tensor's operations always make a new one (Python raises for x += y and out=, as OneFlow).
 * An invalid op: CT_ERR_MISUSE "ct_global_binary: invalid op 99" (the function's name) on
 * every rank. Errors otherwise as the named functions. */

/** op(a, b): both operands global. New reference in *out. */
CT_API ct_status ct_global_binary(ct_op op, const ct_global *a, const ct_global *b,
                                  ct_scalar alpha, ct_global **out);
/** op(a, b) with a number on the right (a wrapped number): x + 2, x / 2. New reference. */
CT_API ct_status ct_global_binary_scalar(ct_op op, const ct_global *a, ct_scalar b,
                                         ct_scalar alpha, ct_global **out);
/** op(a, b) with a number on the left: 2 - x (Python's reflected operators), and
 *  ctensor.add(2, x, alpha=3). add and mul are computed as x + 2 and x * 2 (with alpha != 1,
 *  add scales the tensor first: (alpha * x) + 2, two global operations); sub as
 *  ct_global_rsub_scalar; rsub as ct_global_sub_scalar; the other rows with the number as
 *  the left operand (2 / x, 2 // x: ct_global_rdiv_scalar). New reference in *out. */
CT_API ct_status ct_global_binary_rscalar(ct_op op, ct_scalar a, const ct_global *b,
                                          ct_scalar alpha, ct_global **out);

CT_API ct_status ct_global_add(const ct_global *a, const ct_global *b, ct_scalar alpha, ct_global **out);
CT_API ct_status ct_global_sub(const ct_global *a, const ct_global *b, ct_scalar alpha, ct_global **out);
CT_API ct_status ct_global_mul(const ct_global *a, const ct_global *b, ct_global **out);
CT_API ct_status ct_global_div(const ct_global *a, const ct_global *b, ct_rounding_mode mode,
                               ct_global **out);

/** Tensor-scalar forms (the scalar is a wrapped number, ops.h). The result keeps the
 *  operand's nd-sbp, except that partial_sum axes are first reduced to broadcast for add,
 *  sub and rounding-mode div (which are not linear), and kept for mul and true div. */
CT_API ct_status ct_global_add_scalar(const ct_global *a, ct_scalar b, ct_scalar alpha, ct_global **out);
CT_API ct_status ct_global_sub_scalar(const ct_global *a, ct_scalar b, ct_scalar alpha, ct_global **out);
CT_API ct_status ct_global_mul_scalar(const ct_global *a, ct_scalar b, ct_global **out);
CT_API ct_status ct_global_div_scalar(const ct_global *a, ct_scalar b, ct_rounding_mode mode,
                                      ct_global **out);
/** Reflected forms for a scalar on the left: b - alpha * a and b / a (Python's 2 - x, 2 / x).
 *  partial_sum axes are reduced first. */
CT_API ct_status ct_global_rsub_scalar(const ct_global *a, ct_scalar b, ct_scalar alpha, ct_global **out);
CT_API ct_status ct_global_rdiv_scalar(const ct_global *a, ct_scalar b, ct_rounding_mode mode,
                                       ct_global **out);

/* ---- element-wise ops of one tensor (unary.def) ---------------------------------------------
 * The rules of unary.h (result dtype, kernel support, errors) apply to the logical tensor;
 * the errors come back on every rank alike, as for the binary ops. The result has the input's
 * placement and nd-sbp, per hierarchy axis: split and broadcast pass through unchanged; a
 * partial_sum axis stays partial_sum for the rows whose `partial` column is LINEAR (neg,
 * positive: the op of a sum is the sum of the ops; not for bool, whose partial sum is a
 * logical or) and is reduced to broadcast first for the others (exp of a sum is not the sum
 * of the exps). positive(x) returns x itself (a new reference), as ct_unary does. There are
 * no out= or in-place forms. An invalid op: CT_ERR_MISUSE "ct_global_unary: invalid op 99" on
 * every rank. New reference in *out. */

/** op(x) for any row of unary.def. */
CT_API ct_status ct_global_unary(ct_unop op, const ct_global *x, ct_global **out);
/** round(x, decimals=d) (ct_round_decimals); d == 0 is ct_global_unary(CT_UNOP_ROUND, ...). A
 *  partial_sum axis is reduced to broadcast first. New reference in *out. */
CT_API ct_status ct_global_round_decimals(const ct_global *x, int64_t decimals, ct_global **out);

/* ---- reductions (reduce.h) -----------------------------------------------------------------
 * ct_reduce's arguments and rules (dims, keepdim, dtype, errors) applied to the logical tensor;
 * the result is on the input's placement. Its nd-sbp follows OneFlow's inference, per
 * hierarchy axis of the input:
 *  - split(d) on a reduced dim: sum gives partial_sum (each rank sums its shard), mean gives
 *    partial_sum too (each rank's sum divided by the global count of reduced elements); prod,
 *    amax, amin, all, any, max and min gather the axis first and give broadcast (there is no
 *    partial max);
 *  - split(d) on a kept dim stays split, on dim d minus the reduced dims before d when keepdim
 *    is false;
 *  - broadcast stays broadcast;
 *  - partial_sum stays partial_sum for sum and mean when the input and result are both
 *    floating (or complex) or the result keeps the input's dtype; otherwise (an integer sum
 *    widened to int64, a bool input, the other ops) it is reduced to broadcast first.
 * So sum(S(0)) over every dim is partial_sum, sum(S(0), dim=1) stays S(0) and
 * sum(S(1), dim=0) becomes S(0). Float results of a partial sum may differ from the local
 * reduction of the whole tensor in the last bits (the summation order differs). Errors:
 * ct_reduce's, on every rank alike; CT_ERR_MISUSE "ct_global_reduce: invalid op 99",
 * "ct_global_reduce: invalid dims (-1 of them)" for ndims outside [0, CT_MAX_DIMS] or NULL
 * dims with ndims > 0. New reference in *out. */
CT_API ct_status ct_global_reduce(ct_reduce_op op, const ct_global *x, const int64_t *dims,
                                  int64_t ndims, bool keepdim, ct_dtype dtype, ct_global **out);

/* ---- max / min with a dim, argmax / argmin, cumsum / cumprod (reduce.h) ----------------------
 * ct_max_dim's, ct_argmax's and ct_cumulative's arguments and rules (dims, keepdim, dtypes,
 * ties: the first index of the extreme, a NaN wins; errors) applied to the logical tensor;
 * the results are on the input's placement, with one nd-sbp (values and indices alike), per
 * hierarchy axis of the input (OneFlow's reduce_max / argmax / cumsum signatures):
 *  - split(d) on the reduced or scanned dim (every dim for argmax without a dim): the axis
 *    is gathered to broadcast first and the result is broadcast (the whole dim is needed for
 *    an index or a prefix; OneFlow has no partial max);
 *  - split(d) on another dim stays split, on d - 1 when d is after the reduced dim and
 *    keepdim is false (cumsum and cumprod keep every dim);
 *  - broadcast stays broadcast;
 *  - partial_sum is reduced to broadcast first, except through cumsum when the input and
 *    result are both floating (or complex) or the result keeps the input's dtype (sum's rule
 *    above): it stays partial_sum.
 * So max(S(0), dim=1) is S(0) with its indices S(0), argmax(S(1), dim=0) is S(0),
 * cumsum(S(1), dim=0) stays S(1) and cumsum(S(0), dim=0) is broadcast. There are no out=
 * forms. Errors: the local functions', on every rank alike. New references in *values and
 * *indices (both or neither), *out. */

/** torch.max(x, dim, keepdim) of a global tensor: (values, indices). */
CT_API ct_status ct_global_max_dim(const ct_global *x, int64_t dim, bool keepdim,
                                   ct_global **values, ct_global **indices);
/** torch.min(x, dim, keepdim): (values, indices). */
CT_API ct_status ct_global_min_dim(const ct_global *x, int64_t dim, bool keepdim,
                                   ct_global **values, ct_global **indices);
/** torch.argmax(x, dim, keepdim); dim NULL: the index in the flattened logical tensor. */
CT_API ct_status ct_global_argmax(const ct_global *x, const int64_t *dim, bool keepdim,
                                  ct_global **out);
/** torch.argmin(x, dim, keepdim); dim NULL: the flattened logical tensor. */
CT_API ct_status ct_global_argmin(const ct_global *x, const int64_t *dim, bool keepdim,
                                  ct_global **out);
/** torch.cumsum / torch.cumprod (prod) of x along dim, in `dtype` (CT_DTYPE_UNDEFINED: the
 *  default of ct_cumulative). */
CT_API ct_status ct_global_cumulative(bool prod, const ct_global *x, int64_t dim, ct_dtype dtype,
                                      ct_global **out);

/** The global tensor `x` in `dtype` (Tensor.to(dtype) of a global tensor), collective: the
 *  local ct_tensor_to on every member's component. split and broadcast axes stay; a
 *  partial_sum axis stays partial_sum when the cast commutes with the sum (floating to
 *  floating, integer to integer, integer to floating), else it is reduced to broadcast first
 *  (floating to integer, to or from bool). The same dtype returns `x` itself (a new
 *  reference). Errors: ct_tensor_to's, on every rank alike; CT_ERR_MISUSE "ct_global_to_dtype:
 *  invalid dtype 99". New reference in *out. */
CT_API ct_status ct_global_to_dtype(const ct_global *x, ct_dtype dtype, ct_global **out);

/** Tensor.to("cuda") / .cuda() / .cpu() of a global tensor (OneFlow's meaning: a device type
 *  names the placement's type): the same logical value on the placement with x's ranks and
 *  hierarchy on device type `type` (CT_DEVICE_CPU or CT_DEVICE_CUDA), with x's nd-sbp and,
 *  for partial_sum, x's layout; each member's component moves to its device (staged through
 *  host memory for a GPU, see the top of this file). The placement's own type returns `x`
 *  itself (a new reference). Collective, as ct_global_to_global (whose errors apply, e.g. the
 *  missing backend's on every rank). Another type: CT_ERR_RUNTIME "Expected one of cpu, cuda
 *  device type at start of device string: xpu" on every rank; CT_ERR_MISUSE for an invalid
 *  one. New reference in *out. */
CT_API ct_status ct_global_to_device_type(const ct_global *x, ct_device_type type, ct_global **out);

/* ---- matrix products (linalg.h) -------------------------------------------------------------
 * ct_tensor_matmul's / ct_tensor_mm's / ct_tensor_bmm's rules (shapes, the same dtype for both
 * operands, PyTorch 1.13's messages: "expected scalar type Float but found Double", "mat1 and
 * mat2 shapes cannot be multiplied (2x3 and 4x5)", ...) apply to the logical tensors, and the
 * errors come back on every rank alike. Both operands must share one placement (binary
 * arithmetic's message, "Expected all tensors to be on the same placement, ..."). Each rank
 * multiplies its components with the local op; the result is on that placement with the
 * nd-sbp chosen per hierarchy axis from OneFlow's matmul signatures, for a [..., m, k] and b
 * [..., k, n]:
 *   S(m) x B -> S(m);  B x S(n) -> S(n);  S(k) x S(k) -> P (each rank's product is a part of
 *   the sum);  P x B -> P;  B x P -> P;  B x B -> B;  and S(batch) x S(batch) -> S(batch) for
 *   a batch dim both have (an operand broadcasting along it or lacking it stays B).
 * 1-D operands take part as their PyTorch meaning: a vector a [k] has only k (S(0) x S(0) -> P
 * for a dot product), a vector b [k] only k. When no signature matches an axis's pair of sbp,
 * the larger operand (by element count; a on a tie) keeps its sbp and the other is boxed to the
 * cheapest signature with that sbp (B->S a slice, then S->S, P->S, S->B, P->B; never to P):
 * S(0) x S(0) with a at least as large as b boxes b to B (S(0)); with b larger, a to S(1)
 * (giving P); P x P boxes the smaller to B (giving P). New reference in *out. */

/** torch.matmul(a, b) of global tensors: every 1-D/2-D/batched case. Collective. */
CT_API ct_status ct_global_matmul(const ct_global *a, const ct_global *b, ct_global **out);
/** torch.mm(a, b): 2-D @ 2-D ("self must be a matrix" otherwise). Collective. */
CT_API ct_status ct_global_mm(const ct_global *a, const ct_global *b, ct_global **out);
/** torch.bmm(a, b): [B, n, k] @ [B, k, m] ("batch1 must be a 3D tensor"). Collective. */
CT_API ct_status ct_global_bmm(const ct_global *a, const ct_global *b, ct_global **out);

/* ---- joining (join.h) ------------------------------------------------------------------------
 * ct_tensor_cat's / ct_tensor_stack's rules (dim wrapping, dtype promotion, size checks, the
 * skipped (0,)-shaped inputs of cat, PyTorch's messages) apply to the logical tensors, and the
 * errors come back on every rank alike; n == 0 is cat's "torch.cat(): expected a non-empty list
 * of Tensors" / stack's "stack expects a non-empty TensorList". Every input must be on the first
 * one's placement (binary arithmetic's message). Per hierarchy axis the first input's sbp
 * decides and the other inputs are boxed to it (mixed sbp: every input takes the first one's):
 * broadcast stays broadcast; split(d) with d not the cat dim stays split(d) and each rank joins
 * its shards (stack: a split dim >= the new dim becomes d + 1); split on the cat dim and
 * partial_sum are first boxed to split on the lowest other dim (broadcast when the inputs have
 * no other dim). So cat([S(0), S(0)], dim=1) is S(0), cat([S(0), B], dim=1) boxes the second
 * to S(0), cat([S(0), S(0)], dim=0) boxes both to S(1), cat([P, P], dim=0) to S(1) and a 1-D
 * cat of S(0) to B. A NULL list with n > 0 or a NULL entry: CT_ERR_MISUSE "ct_global_cat: NULL
 * argument". New reference in *out. */

/** torch.cat(tensors, dim) of global tensors. Collective. */
CT_API ct_status ct_global_cat(const ct_global *const *tensors, size_t n, int64_t dim,
                               ct_global **out);
/** torch.stack(tensors, dim) of global tensors. Collective. */
CT_API ct_status ct_global_stack(const ct_global *const *tensors, size_t n, int64_t dim,
                                 ct_global **out);

/* ---- basic indexing on the shards -------------------------------------------------------------
 * x[index] with ints, slices, None and Ellipsis, given as the steps PyTorch's indexing takes on
 * the logical tensor, each on the view the previous ones left: SELECT removes dim `dim` at
 * `start` (0 <= start < size), SLICE keeps `length` elements of dim `dim` from `start`, `step`
 * apart (step > 0; start >= 0 and the last element inside the dim when length > 0), UNSQUEEZE
 * inserts a size-1 dim at `dim` (0 <= dim <= the view's ndim). A step that does not fit the
 * view: CT_ERR_INDEX, or CT_ERR_VALUE for a bad step or length.
 *
 * The index runs on each rank's own component, without communication beyond the opening
 * agreement, when it leaves every shard whole: no SELECT and no slice other than the whole
 * dim (start 0, every element, step 1) on a dim a hierarchy axis splits. Broadcast and
 * partial_sum axes keep their sbp (selection is linear), a split dim keeps its split and is
 * renumbered when an earlier dim is removed or inserted. Other indices are the caller's to
 * run on the logical value (ct_global_to_logical_named). */

typedef enum ct_global_step_kind {
    CT_GLOBAL_STEP_SELECT,
    CT_GLOBAL_STEP_SLICE,
    CT_GLOBAL_STEP_UNSQUEEZE,
} ct_global_step_kind;

typedef struct ct_global_step {
    ct_global_step_kind kind;
    int64_t dim;    /* in the view the previous steps left */
    int64_t start;  /* SELECT: the index; SLICE: the first element */
    int64_t length; /* SLICE: how many elements */
    int64_t step;   /* SLICE: the distance between them, > 0 */
} ct_global_step;

/** Whether x[steps] runs on the shards (the rule above); with `for_write` also that no axis is
 *  partial_sum (writing a value into a partial sum is not local). False for steps that do not
 *  fit x. Pure: no communication, the same on every rank for the same arguments. */
CT_API bool ct_global_view_is_local(const ct_global *x, const ct_global_step *steps, size_t n,
                                    bool for_write);
/** x[steps] computed on each rank's component, a copy (never x's storage), with x's
 *  placement and the sbp of the rule above. Collective. An index that is not local:
 *  CT_ERR_VALUE on every rank. New reference in *out. */
CT_API ct_status ct_global_view(const ct_global *x, const ct_global_step *steps, size_t n,
                                ct_global **out);
/** x[steps] = value written into each rank's component of x: `value` (a global tensor; NULL:
 *  the number `fill`) is brought to broadcast on x's placement, loses its leading size-1 dims
 *  and is broadcast to the view's logical shape (expand's errors), and every rank copies its
 *  part. Collective. Not local for writing (partial_sum included): CT_ERR_VALUE on every
 *  rank. */
CT_API ct_status ct_global_view_set_(ct_global *x, const ct_global_step *steps, size_t n,
                                     const ct_global *value, ct_scalar fill);

CT_EXTERN_C_END

#endif /* CTENSOR_GLOBAL_H */
