/* Internals of the sparse COO layer shared between its files: the payload a sparse tensor
 * carries in its `ext` slot, its constructor, host staging and the typed element kernels. */
#ifndef CT_SPARSE_SPARSE_IMPL_H
#define CT_SPARSE_SPARSE_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctensor/sparse.h"
#include "ops/dispatch.h"
#include "tensor/tensor_impl.h"

/* The payload of a sparse COO tensor (ct_tensor.ext). Everything but the flag is fixed at
 * creation; the flag is atomic because _coalesced_ may race with readers. */
typedef struct ct_sparse_coo {
    ct_tensor *indices; /* int64 [sparse_dim, nnz], strided, on the tensor's device */
    ct_tensor *values;  /* [nnz, dense sizes...], strided, same device and dtype */
    int64_t sparse_dim;
    int64_t dense_dim;
    int64_t nnz;
    atomic_bool coalesced;
} ct_sparse_coo;

/* ---- coo.c ---- */

/* The payload of t, or NULL when t is not a sparse COO tensor of this layer. */
const ct_sparse_coo *ct_sparse_impl_payload(const ct_tensor *t);

/* The payload of a sparse argument. CT_ERR_MISUSE for NULL; CT_ERR_NOT_IMPLEMENTED
 * "Could not run 'aten::<op>' with arguments from the '<backend>' backend." otherwise. */
ct_status ct_sparse_impl_arg(const ct_tensor *t, const char *op, const ct_sparse_coo **out);

/* PyTorch's backend name of a tensor for messages: "CPU", "SparseCPU", "Meta", "CUDA", ... */
const char *ct_sparse_impl_backend_name(const ct_tensor *t, char *buf, size_t size);

/* Build a sparse tensor from indices [sparse_dim, nnz] and values [nnz, ...] that the caller
 * has checked. CONSUMES both references (released on failure too). */
/* Fill the sparse slots of the op table (ops/dispatch.h, filled in ops.c): add, sub, mul and
 * the divisions, new results and in place. Once per process; ct_sparse_impl_make calls it,
 * so every sparse tensor finds them filled. */
void ct_sparse_impl_register_ops(void);
ct_status ct_sparse_impl_make(ct_tensor *indices, ct_tensor *values, const int64_t *sizes,
                              int64_t ndim, int64_t sparse_dim, bool coalesced, ct_tensor **out);

/* A contiguous cpu tensor with t's elements in `dtype` (UNDEFINED: t's): t itself (a new
 * reference) when it already is one, else a copy (so meta fails: "Cannot copy out of meta
 * tensor; no data!"). */
ct_status ct_sparse_impl_host(const ct_tensor *t, ct_dtype dtype, ct_tensor **out);

/* An uninitialised contiguous cpu tensor. */
ct_status ct_sparse_impl_host_empty(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                    ct_tensor **out);

/* Move a host tensor to `device` (itself for cpu). CONSUMES `h`. */
ct_status ct_sparse_impl_to_device(ct_tensor *h, ct_device device, ct_tensor **out);

/* ct_sparse_impl_make for host indices and values: moves both to `device` first. CONSUMES hi
 * and hv (released on failure too). */
ct_status ct_sparse_impl_make_on(ct_tensor *hi, ct_tensor *hv, ct_device device,
                                 const int64_t *sizes, int64_t ndim, int64_t sparse_dim,
                                 bool coalesced, ct_tensor **out);

/* Compare column a of the [sd, na] int64 matrix ia with column b of [sd, nb] matrix ib
 * lexicographically: <0, 0, >0. */
static inline int ct_sparse_impl_cmp_cols(const int64_t *ia, int64_t na, int64_t a,
                                          const int64_t *ib, int64_t nb, int64_t b, int64_t sd) {
    for (int64_t d = 0; d < sd; d++) {
        int64_t x = ia[d * na + a], y = ib[d * nb + b];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

/* The product of sizes[from..to), overflow-checked (CT_ERR_OVERFLOW). */
ct_status ct_sparse_impl_prod(const int64_t *sizes, int64_t from, int64_t to, int64_t *out);

/* ---- coalesce.c ---- */

/* coalesce() of a sparse tensor whose payload is p. */
ct_status ct_sparse_impl_coalesce(const ct_tensor *t, const ct_sparse_coo *p, ct_tensor **out);

/* ---- arith.c ---- */

/* y[i] += alpha * x[i] for n elements of `dtype`, alpha one element of `dtype`, in PyTorch's
 * scalar arithmetic for that dtype. `blas`: where PyTorch calls cpublas::axpy, which in
 * 1.13 refuses complex32 ("\"cpublas_axpy_impl\" not implemented for 'ComplexHalf'").
 * Dtypes without a kernel fail with "\"<fn>\" not implemented for '<Name>'". */
ct_status ct_sparse_impl_axpy(ct_dtype dtype, void *y, const void *x, int64_t n, const void *alpha,
                              bool blas, const char *fn);

/* Whether ct_sparse_impl_axpy computes in `dtype` (the 13 dtypes PyTorch 1.13 has). */
bool ct_sparse_impl_axpy_dtype(ct_dtype dtype);

/* dense += alpha * sparse (PyTorch's add_out_dense_sparse_cpu after its checks): `dense` a
 * contiguous cpu tensor of sparse's sizes in the computation dtype. */
ct_status ct_sparse_impl_add_into_dense(ct_tensor *dense, const ct_tensor *sparse, ct_scalar alpha);

/* ---- mul.c ---- */

/* mul(d, s) with d strided, s sparse, the result of dtype `dtype` (result_type of the
 * operands): PyTorch's _mul_dense_sparse_out. */
ct_status ct_sparse_impl_mul_dense(const ct_tensor *d, const ct_tensor *s, ct_dtype dtype,
                                   ct_tensor **out);

/* ---- unary.c ---- */

/* The unary ops' sparse slot (ops/dispatch.h): unary.def row `op` on a sparse operand as
 * its `sparse` column `mode` says. */
ct_status ct_sparse_impl_unary(ct_unop op, ct_unop_sparse_mode mode, const ct_tensor *t,
                               ct_tensor *target, ct_op_form form, ct_tensor **out);

/* A sparse tensor with t's sizes and flag, a copy of t's indices (payload p, on the values'
 * device) and `values` (CONSUMED, released on failure too). */
ct_status ct_sparse_impl_with_new_values(const ct_tensor *t, const ct_sparse_coo *p,
                                         ct_tensor *values, ct_tensor **out);

/* out= takes the result r's payload and geometry (PyTorch resizes a sparse out= tensor); r
 * keeps target's old payload. The sizes block is rewritten in place, so a change of dim
 * count needs the inline block (CT_ERR_NOT_IMPLEMENTED otherwise). */
ct_status ct_sparse_impl_adopt(ct_tensor *target, ct_tensor *r);

/* ---- pointwise.c ---- */

/* The classifications' sparse slot (ops/dispatch.h) and pow's op slots; ops.c registers them. */
ct_status ct_sparse_impl_classify(const char *name, ct_classify_dense_fn fn,
                                  ct_classify_dense_out_fn fn_out, const ct_tensor *t,
                                  ct_tensor *target, ct_tensor **out);
void ct_sparse_impl_register_pow(void);

#endif /* CT_SPARSE_SPARSE_IMPL_H */
