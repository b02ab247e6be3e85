/* addmm_, baddbmm_, addbmm, addmv and addr (include/ctensor/linalg_add.h), with PyTorch
 * 1.13's checks and messages, built on linalg.h's products:
 *  - the in-place forms compute the result and copy it into self once self's shape is
 *    checked (PyTorch's "Bad in-place call"), so self is read before it is written;
 *  - addbmm is one addmm of batch1 laid out as [n, B*k] and batch2 as [B*k, m]: the sum of
 *    the batch's products is that single product;
 *  - addmv is addmm of mat with vec as a column, input (converted to mat's dtype) as one;
 *  - addr is element-wise (PyTorch's TensorIterator kernel): outer, then the scaled sum in
 *    the promoted dtype of the three tensors.
 */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/linalg.h"
#include "ctensor/linalg_add.h"
#include "ctensor/ops.h"
#include "ops/linalg_impl.h"
#include "ops/reduce_impl.h"
#include "tensor/tensor_impl.h"

static bool same_device(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }

bool ct_linalg_impl_scalar_is_zero(ct_scalar s) {
    switch (s.kind) {
    case CT_SCALAR_BOOL:
        return !s.v.b;
    case CT_SCALAR_INT:
        return s.v.i == 0;
    case CT_SCALAR_UINT:
        return s.v.u == 0;
    case CT_SCALAR_FLOAT:
        return s.v.f == 0.0;
    default:
        return s.v.c.re == 0.0 && s.v.c.im == 0.0;
    }
}

ct_status ct_linalg_impl_check_out_device(const ct_tensor *out, const ct_tensor *r) {
    if (same_device(out->device, r->device))
        return CT_OK;
    char want[64], got[64];
    CT_TRY(ct_device_str(r->device, want, sizeof want));
    CT_TRY(ct_device_str(out->device, got, sizeof got));
    return ct_set_error(CT_ERR_RUNTIME, "Expected out tensor to have device %s, but got %s instead",
                        want, got);
}

static bool scalar_is_one(ct_scalar s) {
    switch (s.kind) {
    case CT_SCALAR_BOOL:
        return s.v.b;
    case CT_SCALAR_INT:
        return s.v.i == 1;
    case CT_SCALAR_UINT:
        return s.v.u == 1;
    case CT_SCALAR_FLOAT:
        return s.v.f == 1.0;
    default:
        return s.v.c.re == 1.0 && s.v.c.im == 0.0;
    }
}

static bool same_sizes(const ct_tensor *a, const ct_tensor *b) {
    return a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof a->sizes[0]) == 0;
}

/* Copy the result r into self after PyTorch's in-place shape check; releases r. */
ct_status ct_linalg_impl_resize_copy(ct_tensor *out, const ct_tensor *r) {
    ct_status st = CT_OK;
    if (!same_sizes(out, r)) {
        int64_t old[CT_MAX_DIMS];
        int32_t old_ndim = out->ndim;
        int64_t old_numel = out->numel;
        memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
        st = ct_tensor_impl_resize(out, r->sizes, r->ndim, NULL);
        if (st == CT_OK && old_numel > 0)
            ct_tensor_impl_warn_out_resized(old, old_ndim, r->sizes, r->ndim);
    }
    if (st == CT_OK && out->device.type != CT_DEVICE_META)
        st = ct_tensor_copy_(out, r);
    return st;
}

static ct_status into_self(ct_tensor *self, ct_tensor *r, ct_status st) {
    if (st == CT_OK && !same_sizes(self, r)) {
        char a[400], b[400];
        st = ct_set_error(CT_ERR_RUNTIME,
                          "Bad in-place call: input tensor size %s and output tensor size %s "
                          "should match",
                          ct_tensor_impl_shape_format(a, sizeof a, self->sizes, self->ndim),
                          ct_tensor_impl_shape_format(b, sizeof b, r->sizes, r->ndim));
    }
    if (st == CT_OK)
        st = ct_tensor_copy_(self, r);
    ct_tensor_release(r);
    return st;
}

/* How an out= tensor's dtype is checked: exactly r's (with the out= message, or with
 * addmm's when out is the accumulator, as in addbmm), or one r casts to (element-wise). */
typedef enum out_rule { OUT_EXACT, OUT_ACCUMULATOR, OUT_CAST } out_rule;

/* Resize out to r's shape and copy r into it (PyTorch's resize_output then copy_); releases
 * r. On error out keeps its geometry. */
static ct_status deliver(ct_tensor *r, ct_tensor *out, out_rule rule) {
    ct_status st = CT_OK;
    if (rule == OUT_ACCUMULATOR && out->dtype != r->dtype)
        st = ct_set_error(CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    else if (rule == OUT_EXACT && out->dtype != r->dtype)
        st =
            ct_set_error(CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                         ct_reduce_impl_meta_name(r->dtype), ct_reduce_impl_meta_name(out->dtype));
    else if (rule == OUT_CAST && !ct_can_cast(r->dtype, out->dtype))
        st = ct_set_error(CT_ERR_RUNTIME,
                          "result type %s can't be cast to the desired output type %s",
                          ct_dtype_cpp_name(r->dtype), ct_dtype_cpp_name(out->dtype));
    if (st == CT_OK)
        st = ct_linalg_impl_check_out_device(out, r);
    ct_tensor_impl_saved keep;
    if (st == CT_OK)
        st = ct_tensor_impl_save(out, &keep);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    st = ct_linalg_impl_resize_copy(out, r);
    if (st != CT_OK)
        ct_tensor_impl_restore(out, &keep);
    else
        ct_tensor_impl_saved_drop(&keep);
    ct_tensor_release(r);
    return st;
}

#define START(fn)                                                                                  \
    do {                                                                                           \
        if (out == NULL)                                                                           \
            return ct_set_error(CT_ERR_MISUSE, fn ": out is NULL");                                \
        *out = NULL;                                                                               \
    } while (0)

/* ---- addmm_, baddbmm_ ------------------------------------------------------------------- */

ct_status ct_tensor_addmm_(ct_tensor *self, const ct_tensor *mat1, const ct_tensor *mat2,
                           ct_scalar beta, ct_scalar alpha) {
    CT_LINALG_STAGE_ADD_SELF(ct_tensor_addmm_, self, mat1, mat2, beta, alpha);
    CT_TRY(ct_tensor_impl_check(self, "ct_tensor_addmm_"));
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_addmm(self, mat1, mat2, beta, alpha, &r);
    return into_self(self, r, st);
}

ct_status ct_tensor_baddbmm_(ct_tensor *self, const ct_tensor *batch1, const ct_tensor *batch2,
                             ct_scalar beta, ct_scalar alpha) {
    CT_LINALG_STAGE_ADD_SELF(ct_tensor_baddbmm_, self, batch1, batch2, beta, alpha);
    CT_TRY(ct_tensor_impl_check(self, "ct_tensor_baddbmm_"));
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_baddbmm(self, batch1, batch2, beta, alpha, &r);
    return into_self(self, r, st);
}

/* ---- addbmm ----------------------------------------------------------------------------- */

/* addbmm after its 3-D checks (PyTorch's addbmm_out, which the function form runs after
 * broadcasting input). */
static ct_status addbmm_checked(const ct_tensor *input, const ct_tensor *b1, const ct_tensor *b2,
                                ct_scalar beta, ct_scalar alpha, ct_tensor **out) {
    CT_TRY(ct_tensor_impl_check(input, "ct_tensor_addbmm"));
    CT_TRY(ct_tensor_impl_check(b1, "ct_tensor_addbmm"));
    CT_TRY(ct_tensor_impl_check(b2, "ct_tensor_addbmm"));
    if (b1->ndim != 3)
        return ct_set_error(CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b2->ndim != 3)
        return ct_set_error(CT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b1->sizes[0] != b2->sizes[0])
        return ct_set_error(CT_ERR_RUNTIME,
                            "batch1 and batch2 must have same number of batches, got %" PRId64
                            " and %" PRId64,
                            b1->sizes[0], b2->sizes[0]);
    if (b1->sizes[2] != b2->sizes[1])
        return ct_set_error(CT_ERR_RUNTIME,
                            "Incompatible matrix sizes for bmm (%" PRId64 "x%" PRId64
                            " and %" PRId64 "x%" PRId64 ")",
                            b1->sizes[1], b1->sizes[2], b2->sizes[1], b2->sizes[2]);
    int64_t B = b1->sizes[0], n = b1->sizes[1], k = b1->sizes[2], m = b2->sizes[2];
    int64_t perm[3] = {1, 0, 2}, s1[2] = {n, B * k}, s2[2] = {B * k, m};
    ct_tensor *p = NULL, *a = NULL, *b = NULL;
    ct_status st = ct_tensor_permute(b1, perm, 3, &p);
    if (st == CT_OK)
        st = ct_tensor_reshape(p, s1, 2, &a);
    if (st == CT_OK)
        st = ct_tensor_reshape(b2, s2, 2, &b);
    if (st == CT_OK)
        st = ct_tensor_addmm(input, a, b, beta, alpha, out);
    ct_tensor_release(p);
    ct_tensor_release(a);
    ct_tensor_release(b);
    return st;
}

ct_status ct_tensor_addbmm(const ct_tensor *input, const ct_tensor *b1, const ct_tensor *b2,
                           ct_scalar beta, ct_scalar alpha, ct_tensor **out) {
    START("ct_tensor_addbmm");
    CT_LINALG_STAGE_ADD(ct_tensor_addbmm, input, b1, b2, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(input, "ct_tensor_addbmm"));
    CT_TRY(ct_tensor_impl_check(b1, "ct_tensor_addbmm"));
    CT_TRY(ct_tensor_impl_check(b2, "ct_tensor_addbmm"));
    /* PyTorch's function form first broadcasts input to [batch1.size(1), batch2.size(2)] */
    int64_t d1, d2;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(1, b1->ndim, false, &d1));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(2, b2->ndim, false, &d2));
    int64_t sizes[2] = {b1->sizes[d1], b2->sizes[d2]};
    ct_tensor *e = NULL;
    CT_TRY(ct_tensor_expand(input, sizes, 2, &e));
    ct_tensor_release(e);
    return addbmm_checked(input, b1, b2, beta, alpha, out);
}

ct_status ct_tensor_addbmm_out(const ct_tensor *input, const ct_tensor *b1, const ct_tensor *b2,
                               ct_scalar beta, ct_scalar alpha, ct_tensor *out) {
    CT_LINALG_STAGE_ADD_OUT(ct_tensor_addbmm_out, input, b1, b2, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_addbmm_out"));
    ct_tensor *r = NULL;
    CT_TRY(addbmm_checked(input, b1, b2, beta, alpha, &r));
    return deliver(r, out, OUT_ACCUMULATOR);
}

ct_status ct_tensor_addbmm_(ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                            ct_scalar beta, ct_scalar alpha) {
    CT_LINALG_STAGE_ADD_SELF(ct_tensor_addbmm_, self, b1, b2, beta, alpha);
    return ct_tensor_addbmm_out(self, b1, b2, beta, alpha, self);
}

/* ---- addmv ------------------------------------------------------------------------------ */

ct_status ct_tensor_addmv(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec,
                          ct_scalar beta, ct_scalar alpha, ct_tensor **out) {
    START("ct_tensor_addmv");
    CT_LINALG_STAGE_ADD(ct_tensor_addmv, input, mat, vec, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(input, "ct_tensor_addmv"));
    CT_TRY(ct_tensor_impl_check(mat, "ct_tensor_addmv"));
    CT_TRY(ct_tensor_impl_check(vec, "ct_tensor_addmv"));
    if (mat->ndim != 2 || vec->ndim != 1 || input->ndim > 1)
        return ct_set_error(CT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                            (int)input->ndim, (int)mat->ndim, (int)vec->ndim);
    if (mat->sizes[1] != vec->sizes[0] || (mat->sizes[0] != input->numel && input->numel != 1))
        return ct_set_error(CT_ERR_RUNTIME,
                            "size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64,
                            input->ndim > 0 ? input->sizes[0] : input->numel, mat->sizes[0],
                            mat->sizes[1], vec->sizes[0]);
    ct_status st;
    if (mat->numel == 0) {
        /* PyTorch's shortcut, before any dtype or kernel check: a result of vec's dtype,
         * zeros for beta 0, else input * beta (beta as a tensor of input's dtype) */
        if (ct_linalg_impl_scalar_is_zero(beta)) {
            int64_t n = mat->sizes[0];
            return ct_tensor_zeros(&n, 1, vec->dtype, &vec->device, CT_LAYOUT_STRIDED, out);
        }
        ct_tensor *w = NULL, *r = NULL;
        st = ct_tensor_scalar_tensor(beta, input->dtype, &input->device, &w);
        if (st == CT_OK)
            st = ct_binary(CT_OP_MUL, input, w, ct_scalar_int(1), &r);
        if (st == CT_OK)
            st = ct_check_output_cast(r->dtype, vec->dtype);
        if (st == CT_OK)
            st = ct_tensor_to_dtype(r, vec->dtype, out);
        ct_tensor_release(w);
        ct_tensor_release(r);
        return st;
    }
    /* mv's device, kernel and dtype checks, on one row of mat */
    ct_tensor *row = NULL, *probe = NULL;
    CT_TRY(ct_tensor_narrow(mat, 0, 0, 1, &row));
    st = ct_tensor_mv(row, vec, &probe);
    ct_tensor_release(row);
    ct_tensor_release(probe);
    CT_TRY(st);
    ct_tensor *in = NULL;
    CT_TRY(ct_tensor_to_dtype(input, mat->dtype, &in));
    int64_t icol[2] = {input->numel, 1}, vcol[2] = {vec->sizes[0], 1};
    ct_tensor *ic = NULL, *vc = NULL, *r = NULL;
    st = ct_tensor_reshape(in, icol, 2, &ic);
    if (st == CT_OK)
        st = ct_tensor_reshape(vec, vcol, 2, &vc);
    if (st == CT_OK)
        st = ct_tensor_addmm(ic, mat, vc, beta, alpha, &r);
    if (st == CT_OK)
        st = ct_tensor_squeeze_dim(r, 1, out);
    ct_tensor_release(in);
    ct_tensor_release(ic);
    ct_tensor_release(vc);
    ct_tensor_release(r);
    return st;
}

ct_status ct_tensor_addmv_out(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec,
                              ct_scalar beta, ct_scalar alpha, ct_tensor *out) {
    CT_LINALG_STAGE_ADD_OUT(ct_tensor_addmv_out, input, mat, vec, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_addmv_out"));
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_addmv(input, mat, vec, beta, alpha, &r));
    return deliver(r, out, OUT_EXACT);
}

ct_status ct_tensor_addmv_(ct_tensor *self, const ct_tensor *mat, const ct_tensor *vec,
                           ct_scalar beta, ct_scalar alpha) {
    CT_LINALG_STAGE_ADD_SELF(ct_tensor_addmv_, self, mat, vec, beta, alpha);
    CT_TRY(ct_tensor_impl_check(self, "ct_tensor_addmv_"));
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_addmv(self, mat, vec, beta, alpha, &r);
    return into_self(self, r, st);
}

/* ---- addr ------------------------------------------------------------------------------- */

/* PyTorch's check_addr_scalar. */
static ct_status check_addr_scalar(ct_dtype dt, ct_scalar s, const char *name) {
    if (s.kind == CT_SCALAR_BOOL && dt != CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME, "Boolean %s only supported for Boolean results.", name);
    if (ct_dtype_is_integral(dt, true) &&
        (s.kind == CT_SCALAR_FLOAT || s.kind == CT_SCALAR_COMPLEX))
        return ct_set_error(CT_ERR_RUNTIME,
                            "For integral input tensors, argument %s must not be a floating "
                            "point number.",
                            name);
    return CT_OK;
}

/* t * s (s a wrapped number), or a new reference to t when s is 1. */
static ct_status scaled(const ct_tensor *t, ct_scalar s, ct_tensor **out) {
    if (scalar_is_one(s)) {
        *out = ct_tensor_retain((ct_tensor *)(uintptr_t)t);
        return CT_OK;
    }
    ct_tensor *w = NULL;
    CT_TRY(ct_tensor_wrapped_number(s, &w));
    ct_status st = ct_binary(CT_OP_MUL, t, w, ct_scalar_int(1), out);
    ct_tensor_release(w);
    return st;
}

ct_status ct_tensor_addr(const ct_tensor *input, const ct_tensor *v1, const ct_tensor *v2,
                         ct_scalar beta, ct_scalar alpha, ct_tensor **out) {
    START("ct_tensor_addr");
    CT_LINALG_STAGE_ADD(ct_tensor_addr, input, v1, v2, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(input, "ct_tensor_addr"));
    CT_TRY(ct_tensor_impl_check(v1, "ct_tensor_addr"));
    CT_TRY(ct_tensor_impl_check(v2, "ct_tensor_addr"));
    if (v1->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME, "addr: Expected 1-D argument vec1, but got %d-D",
                            (int)v1->ndim);
    if (v2->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME, "addr: Expected 1-D argument vec2, but got %d-D",
                            (int)v2->ndim);
    const ct_tensor *all[3] = {input, v1, v2};
    ct_dtype dt;
    CT_TRY(ct_tensor_result_type(all, 3, &dt));
    CT_TRY(check_addr_scalar(dt, beta, "beta"));
    CT_TRY(check_addr_scalar(dt, alpha, "alpha"));
    int64_t sizes[2] = {v1->sizes[0], v2->sizes[0]};
    ct_tensor *e = NULL, *o = NULL, *oc = NULL, *ec = NULL, *a = NULL, *b = NULL, *s = NULL;
    ct_status st = ct_tensor_expand(input, sizes, 2, &e);
    if (st == CT_OK)
        st = ct_tensor_outer(v1, v2, &o);
    /* every step in the result dtype, as PyTorch's kernel computes */
    if (st == CT_OK)
        st = ct_tensor_to_dtype(o, dt, &oc);
    if (st == CT_OK)
        st = scaled(oc, alpha, &a);
    if (st == CT_OK && ct_linalg_impl_scalar_is_zero(beta)) { /* input's values are ignored (NaN too) */
        st = ct_tensor_to_dtype(a, dt, &s);
    } else if (st == CT_OK) {
        st = ct_tensor_to_dtype(e, dt, &ec);
        if (st == CT_OK)
            st = scaled(ec, beta, &b);
        if (st == CT_OK)
            st = ct_binary(CT_OP_ADD, b, a, ct_scalar_int(1), &s);
    }
    if (st == CT_OK)
        st = ct_tensor_to_dtype(s, dt, out);
    ct_tensor_release(e);
    ct_tensor_release(o);
    ct_tensor_release(oc);
    ct_tensor_release(ec);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(s);
    return st;
}

ct_status ct_tensor_addr_out(const ct_tensor *input, const ct_tensor *v1, const ct_tensor *v2,
                             ct_scalar beta, ct_scalar alpha, ct_tensor *out) {
    CT_LINALG_STAGE_ADD_OUT(ct_tensor_addr_out, input, v1, v2, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_addr_out"));
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_addr(input, v1, v2, beta, alpha, &r));
    return deliver(r, out, OUT_CAST);
}

ct_status ct_tensor_addr_(ct_tensor *self, const ct_tensor *v1, const ct_tensor *v2, ct_scalar beta,
                          ct_scalar alpha) {
    CT_LINALG_STAGE_ADD_SELF(ct_tensor_addr_, self, v1, v2, beta, alpha);
    CT_TRY(ct_tensor_impl_check(self, "ct_tensor_addr_"));
    CT_TRY(ct_tensor_impl_check(v1, "ct_tensor_addr_"));
    CT_TRY(ct_tensor_impl_check(v2, "ct_tensor_addr_"));
    if (v1->ndim == 1 && v2->ndim == 1 &&
        (self->ndim != 2 || self->sizes[0] != v1->sizes[0] || self->sizes[1] != v2->sizes[0]))
        return ct_set_error(
            CT_ERR_RUNTIME, "size mismatch, input: %s, v1: [%" PRId64 "], v2: [%" PRId64 "]",
            ct_tensor_impl_shape_format((char[400]){0}, 400, self->sizes, self->ndim), v1->sizes[0],
            v2->sizes[0]);
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_addr(self, v1, v2, beta, alpha, &r));
    if (!ct_can_cast(r->dtype, self->dtype)) {
        ct_status st = ct_set_error(CT_ERR_RUNTIME,
                                    "result type %s can't be cast to the desired output type %s",
                                    ct_dtype_cpp_name(r->dtype), ct_dtype_cpp_name(self->dtype));
        ct_tensor_release(r);
        return st;
    }
    return into_self(self, r, CT_OK);
}
