/* The sparse layer's slots in the op table (ops/dispatch.h): add, sub, mul and div with a
 * sparse COO operand, new results and in-place forms, as PyTorch 1.13 routes them.
 *
 * In place, a strided self (dense += sparse, dense *= sparse) gets the new result copied
 * in, after PyTorch's cast check. A sparse self gets the new result's indices and values:
 * its payload is replaced, as PyTorch replaces a sparse tensor's indices and values in
 * place. Like any in-place operation, that is not safe while another thread reads the
 * tensor. out= with sparse operands has no slot (PyTorch 1.13 supports it for sparse out
 * tensors only, and fails with an internal assert for strided ones). */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "ops/dispatch.h"
#include "sparse/sparse_impl.h"

/* PyTorch's sub_check (the same words as the strided sub). */
static ct_status sub_check(const ct_tensor *a, const ct_tensor *b) {
    if (a->dtype == CT_BOOL && b->dtype == CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with two bool tensors is not "
                            "supported. Use the `^` or `logical_xor()` operator instead.");
    if (a->dtype == CT_BOOL || b->dtype == CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with a bool tensor is not supported. "
                            "If you are trying to invert a mask, use the `~` or `logical_not()` "
                            "operator instead.");
    return CT_OK;
}

/* -alpha as c10::Scalar negates it (integers wrap). */
static ct_scalar negate(ct_scalar a) {
    switch (a.kind) {
    case CT_SCALAR_INT:
        a.v.i = (int64_t)(0u - (uint64_t)a.v.i);
        return a;
    case CT_SCALAR_UINT:
        return ct_scalar_float(-(double)a.v.u);
    case CT_SCALAR_FLOAT:
        a.v.f = -a.v.f;
        return a;
    case CT_SCALAR_COMPLEX:
        a.v.c.re = -a.v.c.re;
        a.v.c.im = -a.v.c.im;
        return a;
    default:
        return a;
    }
}

ct_status ct_sparse_sub(const ct_tensor *self, const ct_tensor *other, ct_scalar alpha,
                        ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_sub: out is NULL");
    *out = NULL;
    if (self == NULL || other == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_sub: tensor is NULL");
    CT_TRY(sub_check(self, other));
    return ct_sparse_add(self, other, negate(alpha), out);
}

static ct_status new_result(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                            ct_tensor **out) {
    switch (op) {
    case CT_OP_ADD:
        return ct_sparse_add(a, b, alpha, out);
    case CT_OP_SUB:
        return ct_sparse_sub(a, b, alpha, out);
    case CT_OP_MUL:
        return ct_sparse_mul(a, b, out);
    default: /* the three divisions */
        return ct_sparse_div(a, b, ct_op_rounding(op), out);
    }
}

static ct_status new_slot(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                          ct_tensor *target, ct_tensor **out) {
    (void)target;
    return new_result(op, a, b, alpha, out);
}

/* Which of PyTorch's mul paths self *= other (self sparse) takes, for its cast check. */
typedef enum { MUL_SHORTCUT, MUL_DENSE, MUL_MERGE, MUL_INTERSECTION } mul_path;

static mul_path mul_path_of(const ct_tensor *self, const ct_tensor *other) {
    const ct_sparse_coo *p = ct_sparse_impl_payload(self), *q = ct_sparse_impl_payload(other);
    if (q == NULL || other->ndim == 0 || self->ndim == 0) /* the dense operand's path */
        return p->nnz == 0 || self->numel == 0 || other->numel == 0 ? MUL_SHORTCUT : MUL_DENSE;
    if (self->ndim != other->ndim ||
        memcmp(self->sizes, other->sizes, (size_t)self->ndim * sizeof(int64_t)) != 0)
        return MUL_INTERSECTION;
    if (p->nnz == 0 || q->nnz == 0)
        return MUL_SHORTCUT;
    return atomic_load(&p->coalesced) && atomic_load(&q->coalesced) ? MUL_MERGE : MUL_INTERSECTION;
}

/* The cast check of PyTorch's in-place kernel for op. */
static ct_status inplace_cast_check(ct_op op, ct_dtype result, ct_tensor *self,
                                    const ct_tensor *other) {
    const char *r = ct_dtype_impl_msg_name(result), *o = ct_dtype_impl_msg_name(self->dtype);
    if (op == CT_OP_MUL && self->layout != CT_LAYOUT_STRIDED) {
        switch (mul_path_of(self, other)) {
        case MUL_SHORTCUT:
            return CT_OK;
        case MUL_DENSE: /* the new values are stored without a cast */
            if (result != self->dtype)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "dtype of values (%s) must match dtype of sparse tensor (%s)",
                                    r, o);
            return CT_OK;
        case MUL_MERGE:
            if (!ct_can_cast(result, self->dtype))
                return ct_set_error(CT_ERR_RUNTIME,
                                    "Can't convert result type %s to output %s in mul operation", r,
                                    o);
            return CT_OK;
        default:
            if (!ct_can_cast(result, self->dtype))
                return ct_set_error(CT_ERR_RUNTIME, "Can't convert result type %s to output %s", r,
                                    o);
            return CT_OK;
        }
    }
    if (ct_can_cast(result, self->dtype))
        return CT_OK;
    if (op == CT_OP_ADD || op == CT_OP_SUB || op == CT_OP_MUL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Can't convert result type %s to output %s in add operation", r, o);
    return ct_check_output_cast(result, self->dtype);
}

/* self op= other with a strided self: the sparse or strided result, densified, copied in. */
static ct_status inplace_dense(ct_op op, ct_tensor *self, const ct_tensor *r) {
    CT_TRY(inplace_cast_check(op, r->dtype, self, NULL));
    ct_tensor *d = NULL;
    CT_TRY(ct_sparse_to_dense(r, &d));
    char x[400], y[400];
    ct_status st = CT_OK;
    if (d->ndim != self->ndim ||
        memcmp(d->sizes, self->sizes, (size_t)d->ndim * sizeof(int64_t)) != 0)
        st = ct_set_error(CT_ERR_RUNTIME,
                          "output with shape %s doesn't match the broadcast shape %s",
                          ct_tensor_impl_shape_format(x, sizeof x, self->sizes, self->ndim),
                          ct_tensor_impl_shape_format(y, sizeof y, d->sizes, d->ndim));
    if (st == CT_OK)
        st = ct_tensor_copy_(self, d);
    ct_tensor_release(d);
    return st;
}

/* self op= other with a sparse self: self takes the result's payload. */
static ct_status inplace_sparse(ct_op op, ct_tensor *self, const ct_tensor *other, ct_tensor *r) {
    CT_TRY(inplace_cast_check(op, r->dtype, self, other));
    if (!ct_sparse_is_sparse(r) || r->ndim != self->ndim ||
        memcmp(r->sizes, self->sizes, (size_t)r->ndim * sizeof(int64_t)) != 0) {
        char x[400], y[400];
        return ct_set_error(CT_ERR_RUNTIME,
                            "output with shape %s doesn't match the broadcast shape %s",
                            ct_tensor_impl_shape_format(x, sizeof x, self->sizes, self->ndim),
                            ct_tensor_impl_shape_format(y, sizeof y, r->sizes, r->ndim));
    }
    ct_tensor *c = NULL;
    if (r->dtype != self->dtype)
        CT_TRY(ct_sparse_to(r, self->dtype, NULL, false, &c));
    ct_tensor *src = c != NULL ? c : r;
    /* PyTorch's in-place mul stores new indices and values into self, which drops self's
     * flag (nnz < 2 sets it again) before the kernel reads it back as an operand's */
    ct_sparse_coo *rp = src->ext;
    if (op == CT_OP_MUL) {
        mul_path path = mul_path_of(self, other);
        if (path == MUL_DENSE)
            atomic_store(&rp->coalesced, rp->nnz < 2);
        else if (path == MUL_INTERSECTION)
            atomic_store(&rp->coalesced,
                         rp->nnz < 2 && atomic_load(&ct_sparse_impl_payload(other)->coalesced));
    }
    void *ext = self->ext;
    self->ext = src->ext;
    src->ext = ext; /* the old payload goes with src */
    ct_tensor_release(c);
    return CT_OK;
}

static bool same_sizes(const ct_tensor *a, const ct_tensor *b) {
    return a->ndim == b->ndim && memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t)) == 0;
}

static ct_status inplace_slot(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                              ct_tensor *target, ct_tensor **out) {
    (void)out;
    /* PyTorch checks the cast before computing where its kernel computes into self (add,
     * sub; mul of two sparse tensors), after its size checks */
    bool sparse_self = target->layout != CT_LAYOUT_STRIDED;
    if (op == CT_OP_SUB)
        CT_TRY(sub_check(a, b));
    if (same_sizes(a, b) &&
        (op == CT_OP_ADD || op == CT_OP_SUB ||
         (op == CT_OP_MUL && sparse_self && mul_path_of(target, b) >= MUL_MERGE))) {
        ct_dtype expected;
        if (op == CT_OP_MUL)
            CT_TRY(ct_tensor_result_type((const ct_tensor *[]){a, b}, 2, &expected));
        else
            CT_TRY(ct_promote_types(a->dtype, b->dtype, &expected));
        CT_TRY(inplace_cast_check(op, expected, target, b));
    }
    ct_tensor *r = NULL;
    CT_TRY(new_result(op, a, b, alpha, &r));
    ct_status st = target->layout == CT_LAYOUT_STRIDED ? inplace_dense(op, target, r)
                                                       : inplace_sparse(op, target, b, r);
    ct_tensor_release(r);
    return st;
}

void ct_sparse_impl_register_ops(void) {
    static atomic_flag done = ATOMIC_FLAG_INIT;
    static const ct_op ops[] = {CT_OP_ADD, CT_OP_SUB,       CT_OP_MUL,
                                CT_OP_DIV, CT_OP_DIV_TRUNC, CT_OP_DIV_FLOOR};
    if (atomic_flag_test_and_set_explicit(&done, memory_order_acq_rel))
        return;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        ct_op_impl_register_sparse(ops[i], CT_OP_FORM_NEW, new_slot);
        ct_op_impl_register_sparse(ops[i], CT_OP_FORM_INPLACE, inplace_slot);
    }
    ct_unop_impl_register_sparse(ct_sparse_impl_unary);
    ct_sparse_impl_register_pow(); /* and the classifications (pointwise.c) */
}
