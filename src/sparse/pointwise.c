/* The element-wise ops outside unary.def that PyTorch 1.13 runs on sparse COO tensors:
 * isnan, isinf, isposinf, isneginf (SparseUnaryOps.cpp's coalesced_unary_ufunc: the strided
 * op on the values of the coalesced input) and pow with a number exponent
 * (pow_out_sparse_scalar: coalesced, then the values' pow computed into values of the
 * input's dtype). square is pow 2 above this layer. */
#include <string.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "sparse/sparse_impl.h"

static ct_status not_run(const char *op, const ct_tensor *s) {
    char b[64];
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                        "Could not run 'aten::%s' with arguments from the '%s' backend.", op,
                        ct_sparse_impl_backend_name(s, b, sizeof b));
}

static ct_status expected_sparse(void) {
    return ct_set_error(CT_ERR_RUNTIME,
                        "Expected self.is_sparse() && result.is_sparse() to be true, but got "
                        "false.  (Could this error message be improved?  If so, please report "
                        "an enhancement request to PyTorch.)");
}

/* ---- classifications ---------------------------------------------------------------------- */

/* isfinite and isreal are composites in 1.13 whose first step has no sparse kernel: the op
 * named, or ones_like's memory-format check (integral isfinite; non-complex isreal). */
static ct_status composite_refusal(const char *name, const ct_tensor *s) {
    bool finite = strcmp(name, "isfinite") == 0;
    if (ct_dtype_is_complex(s->dtype))
        return not_run("view_as_real", s);
    if (finite && ct_dtype_is_floating_point(s->dtype)) /* meta gets one step further */
        return not_run(s->device.type == CT_DEVICE_META ? "abs.out" : "ne.Scalar", s);
    return ct_set_error(CT_ERR_RUNTIME,
                        "memory format option is only supported by strided tensors");
}

ct_status ct_sparse_impl_classify(const char *name, ct_classify_dense_fn fn,
                                  ct_classify_dense_out_fn fn_out, const ct_tensor *t,
                                  ct_tensor *target, ct_tensor **out) {
    const ct_tensor *s = t->layout != CT_LAYOUT_STRIDED ? t : target;
    if (strcmp(name, "isfinite") == 0 || strcmp(name, "isreal") == 0)
        return composite_refusal(name, s);
    if (s->device.type == CT_DEVICE_META) { /* no SparseMeta kernels in 1.13 */
        if (strcmp(name, "isinf") == 0)     /* its SparseMeta entry is a stub that says so */
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "nyi isinf for SparseMeta");
        return not_run(name, s);
    }
    const ct_sparse_coo *p = ct_sparse_impl_payload(t);
    if (target != NULL && (p == NULL || ct_sparse_impl_payload(target) == NULL))
        return expected_sparse();
    if (p == NULL || (target != NULL && fn_out == NULL))
        return not_run(name, s);
    if (target == t) { /* 1.13's in-place branch: the coalesced values themselves */
        if (!atomic_load(&p->coalesced))
            return ct_set_error(CT_ERR_RUNTIME, "expected coalesced tensor for inplace operation");
        return fn_out(p->values, p->values);
    }
    ct_tensor *c = NULL, *v = NULL, *r = NULL;
    CT_TRY(ct_sparse_coalesce(t, &c));
    const ct_sparse_coo *q = ct_sparse_impl_payload(c);
    ct_status st;
    if (target == NULL) {
        st = fn(q->values, &v);
    } else {
        st = ct_tensor_empty(q->values->sizes, q->values->ndim, target->dtype, &q->values->device,
                             CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &v);
        if (st == CT_OK)
            st = fn_out(q->values, v);
    }
    if (st == CT_OK) {
        st = ct_sparse_impl_with_new_values(c, q, v, target == NULL ? out : &r); /* consumes v */
        v = NULL;
    }
    if (st == CT_OK && target != NULL)
        st = ct_sparse_impl_adopt(target, r);
    ct_tensor_release(v);
    ct_tensor_release(r);
    ct_tensor_release(c);
    return st;
}

/* ---- pow(sparse, number) ------------------------------------------------------------------ */

/* The backend of the sparse operand in the refusals. */
static const ct_tensor *sparse_of(const ct_tensor *a, const ct_tensor *b) {
    return a->layout != CT_LAYOUT_STRIDED ? a : b;
}

/* pow(a, b) for sparse a and a wrapped-number b, as pow_sparse_scalar. */
static ct_status pow_new(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor **out) {
    if (a->layout == CT_LAYOUT_STRIDED || !ct_tensor_is_wrapped_number(b) ||
        ct_tensor_is_wrapped_number(a))
        return not_run("pow.Tensor_Tensor", sparse_of(a, b));
    if (a->device.type == CT_DEVICE_META)
        return not_run("pow.Tensor_Scalar", a);
    ct_scalar e;
    CT_TRY(ct_tensor_item(b, &e));
    /* c10::Scalar::toDouble of the exponent: a complex one does not convert */
    if (e.kind == CT_SCALAR_COMPLEX)
        return ct_set_error(CT_ERR_RUNTIME,
                            "value cannot be converted to type double without overflow");
    bool zero = e.kind == CT_SCALAR_BOOL   ? !e.v.b
                : e.kind == CT_SCALAR_INT  ? e.v.i == 0
                : e.kind == CT_SCALAR_UINT ? e.v.u == 0
                                           : e.v.f == 0.0;
    if (zero)
        return ct_set_error(CT_ERR_RUNTIME, "pow: cannot raise to zeroth power on sparse tensor; "
                                            "it would make the result tensor dense");
    ct_tensor *c = NULL, *v = NULL;
    CT_TRY(ct_sparse_coalesce(a, &c));
    const ct_sparse_coo *q = ct_sparse_impl_payload(c);
    ct_status st = ct_binary(CT_OP_POW, q->values, b, alpha, &v);
    /* 1.13 computes into values of the input's dtype, a structured out= that must match */
    if (st == CT_OK && v->dtype != q->values->dtype)
        st = ct_set_error(CT_ERR_RUNTIME, "Found dtype %s but expected %s",
                          ct_dtype_impl_msg_name(q->values->dtype),
                          ct_dtype_impl_msg_name(v->dtype));
    if (st == CT_OK) {
        st = ct_sparse_impl_with_new_values(c, q, v, out); /* consumes v */
        v = NULL;
    }
    ct_tensor_release(v);
    ct_tensor_release(c);
    return st;
}

static ct_status pow_new_slot(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                              ct_tensor *target, ct_tensor **out) {
    (void)op;
    (void)target;
    return pow_new(a, b, alpha, out);
}

static ct_status pow_out_slot(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                              ct_tensor *target, ct_tensor **out) {
    (void)op;
    (void)out;
    if (a->layout != CT_LAYOUT_STRIDED && ct_tensor_is_wrapped_number(b) &&
        target->layout == CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_RUNTIME,
                            "r.is_sparse() INTERNAL ASSERT FAILED at "
                            "\"./aten/src/ATen/native/sparse/SparseTensorMath.cpp\":179, please "
                            "report a bug to PyTorch. ");
    if (target->layout == CT_LAYOUT_STRIDED || a->layout == CT_LAYOUT_STRIDED)
        return not_run("pow.Tensor_Tensor_out", sparse_of(a, b));
    ct_tensor *r = NULL;
    CT_TRY(pow_new(a, b, alpha, &r));
    ct_status st = CT_OK;
    if (r->dtype != target->dtype)
        st = ct_set_error(CT_ERR_RUNTIME, "Found dtype %s but expected %s",
                          ct_dtype_impl_msg_name(target->dtype), ct_dtype_impl_msg_name(r->dtype));
    if (st == CT_OK)
        st = ct_sparse_impl_adopt(target, r);
    ct_tensor_release(r);
    return st;
}

/* 1.13's pow_ has no sparse kernel (the coalesce pow needs cannot happen in place). */
static ct_status pow_inplace_slot(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                                  ct_tensor *target, ct_tensor **out) {
    (void)op;
    (void)alpha;
    (void)target;
    (void)out;
    return not_run(ct_tensor_is_wrapped_number(b) ? "pow_.Scalar" : "pow_.Tensor", sparse_of(a, b));
}

void ct_sparse_impl_register_pow(void) {
    ct_op_impl_register_sparse(CT_OP_POW, CT_OP_FORM_NEW, pow_new_slot);
    ct_op_impl_register_sparse(CT_OP_POW, CT_OP_FORM_OUT, pow_out_slot);
    ct_op_impl_register_sparse(CT_OP_POW, CT_OP_FORM_INPLACE, pow_inplace_slot);
    ct_classify_impl_register_sparse(ct_sparse_impl_classify);
}
