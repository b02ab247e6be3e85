/* softmax and log_softmax along one dim (ctensor/reduce.h): PyTorch's checks and result rules
 * here; on the cpu along the last dim one fused pass per row (kernels/softmax.h), elsewhere
 * the arithmetic through the library's own ops, so that every device that runs those runs
 * these (meta gives the shape and dtype).
 *
 * The input (cast to dtype= first, as PyTorch does) is copied once, unless the fused rows can
 * read it as it is, into a contiguous buffer of the computation dtype (float32 for float16
 * and bfloat16: one rounding at the end, as PyTorch's CPU kernels, which compute in float),
 * and the steps run in place on it:
 *   y = x - max(x)  (along dim; a line with NaN, or only -inf, becomes NaN, as in PyTorch)
 *   softmax:      exp(y) / sum(exp(y))
 *   log_softmax:  y - log(sum(exp(y)))
 * The result is contiguous whatever the input's layout (PyTorch's softmax output is too). */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/ops.h"
#include "ctensor/reduce.h"
#include "ctensor/unary.h"
#include "dtype/table_impl.h"
#include "iter/reduce_plan.h"
#include "kernels/softmax.h"
#include "ops/reduce_impl.h"
#include "tensor/tensor_impl.h"

/* PyTorch's CPU kernels: float32, float64, bfloat16 and (the newest PyTorch) float16. */
static bool softmax_kernel(ct_dtype d) {
    return d == CT_FLOAT32 || d == CT_FLOAT64 || d == CT_BFLOAT16 || d == CT_FLOAT16;
}

/* The steps on y, a fresh contiguous buffer of the computation dtype, in place. */
static ct_status softmax_steps(bool log, ct_tensor *y, int64_t dim) {
    ct_tensor *m = NULL, *e = NULL, *s = NULL;
    ct_status st = ct_reduce(CT_REDUCE_AMAX, y, &dim, 1, true, CT_DTYPE_UNDEFINED, &m);
    if (st == CT_OK)
        st = ct_binary_(CT_OP_SUB, y, m, ct_scalar_int(1));
    if (st == CT_OK && !log) {
        st = ct_unary_(CT_UNOP_EXP, y);
        if (st == CT_OK)
            st = ct_sum(y, &dim, 1, true, CT_DTYPE_UNDEFINED, &s);
        if (st == CT_OK)
            st = ct_binary_(CT_OP_DIV, y, s, ct_scalar_int(1));
    } else if (st == CT_OK) {
        st = ct_unary(CT_UNOP_EXP, y, &e);
        if (st == CT_OK)
            st = ct_sum(e, &dim, 1, true, CT_DTYPE_UNDEFINED, &s);
        if (st == CT_OK)
            st = ct_unary_(CT_UNOP_LOG, s);
        if (st == CT_OK)
            st = ct_binary_(CT_OP_SUB, y, s, ct_scalar_int(1));
    }
    ct_tensor_release(m);
    ct_tensor_release(e);
    ct_tensor_release(s);
    return st;
}

/* The result of x (a softmax dtype) along dim d: written into r when r is not NULL (the
 * output that ct_reduce_impl_output made or resized), else a new tensor in *res. */
static ct_status compute(bool log, const ct_tensor *x, int64_t d, ct_tensor *r, ct_tensor **res) {
    ct_dtype math = x->dtype == CT_FLOAT16 || x->dtype == CT_BFLOAT16 ? CT_FLOAT32 : x->dtype;
    /* on the cpu, along the last dim of float32 / float64 rows: one fused pass per row
     * (kernels/softmax.h), straight from the input when it is contiguous */
    bool rows = x->device.type == CT_DEVICE_CPU && (x->ndim == 0 || d == x->ndim - 1) &&
                (math == CT_FLOAT32 || math == CT_FLOAT64);
    int64_t n = x->ndim == 0 ? 1 : x->sizes[d];
    if (rows && r == NULL && ct_tensor_is_contiguous(x, CT_MEMFMT_CONTIGUOUS)) {
        CT_TRY(ct_tensor_empty(x->sizes, x->ndim, math, &x->device, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, res));
        ct_softmax_impl_rows(log, math == CT_FLOAT64, ct_tensor_data_ptr(x),
                             ct_tensor_data_ptr(*res), x->numel / n, n);
        return CT_OK;
    }
    if (rows && math != x->dtype && r != NULL && n <= CT_SOFTMAX_HALF_ROW &&
        ct_tensor_is_contiguous(x, CT_MEMFMT_CONTIGUOUS) &&
        ct_tensor_is_contiguous(r, CT_MEMFMT_CONTIGUOUS) && r->dtype == x->dtype &&
        (r->storage != x->storage || r == x)) {
        /* float16 / bfloat16 rows widened one at a time (the same bytes as the buffer) */
        ct_softmax_impl_rows_half(log, x->dtype, ct_tensor_data_ptr(x), ct_tensor_data_ptr(r),
                                  x->numel / n, n);
        return CT_OK;
    }
    ct_tensor *y = NULL; /* a fresh contiguous buffer in the math dtype, worked in place */
    ct_status st = ct_tensor_to(x, math, NULL, true, CT_MEMFMT_CONTIGUOUS, &y);
    if (st == CT_OK && rows)
        ct_softmax_impl_rows(log, math == CT_FLOAT64, ct_tensor_data_ptr(y),
                             ct_tensor_data_ptr(y), x->numel / n, n);
    else if (st == CT_OK)
        st = softmax_steps(log, y, d);
    if (st == CT_OK && r != NULL) /* one rounding to float16 / bfloat16, or into out= */
        st = ct_tensor_copy_(r, y);
    if (st == CT_OK && r == NULL) {
        *res = y;
        return CT_OK;
    }
    ct_tensor_release(y);
    return st;
}

ct_status ct_softmax(bool log, const ct_tensor *input, int64_t dim, ct_dtype dtype,
                     ct_tensor *out, ct_tensor **result) {
    const char *name = log ? "log_softmax" : "softmax";
    if (result != NULL)
        *result = NULL;
    if (input == NULL || result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", name);
    if (input->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported",
                            name);
    if (dtype != CT_DTYPE_UNDEFINED && !ct_dtype_is_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid dtype %d", name, (int)dtype);
    ct_reduce_plan shape; /* the dim's check and message; then the output's shape */
    CT_TRY(ct_reduce_impl_plan(input, &dim, 1, true, &shape));
    int64_t d = input->ndim == 0 ? 0 : (dim < 0 ? dim + input->ndim : dim);
    ct_tensor *cast = NULL;
    const ct_tensor *x = input;
    if (dtype != CT_DTYPE_UNDEFINED && dtype != input->dtype) { /* dtype= casts first */
        CT_TRY(ct_tensor_to_dtype(input, dtype, &cast));
        x = cast;
    }
    ct_status st = CT_OK;
    if (!softmax_kernel(x->dtype)) {
        /* PyTorch's kernel names: the last dim's apart (a 0-dim input is viewed as 1-D), and
         * log_softmax along another dim dispatches under softmax's name */
        bool last = x->ndim == 0 || d == x->ndim - 1;
        st = ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                          last ? (log ? "log_softmax_lastdim_kernel_impl"
                                      : "softmax_lastdim_kernel_impl")
                               : "softmax_kernel_impl",
                          ct_dtype_impl_msg_name(x->dtype));
    } else if (out != NULL && out->dtype != x->dtype) {
        st = ct_set_error(CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                          ct_reduce_impl_meta_name(x->dtype), ct_reduce_impl_meta_name(out->dtype));
    }
    if (st != CT_OK) {
        ct_tensor_release(cast);
        return st;
    }
    /* the output first where there is one to fill: out=, float16 / bfloat16 (computed in a
     * float32 buffer), or nothing to compute (meta, no elements) */
    bool fill = out != NULL || x->dtype == CT_FLOAT16 || x->dtype == CT_BFLOAT16 ||
                x->device.type == CT_DEVICE_META || x->numel == 0;
    ct_tensor *r = NULL;
    ct_tensor_impl_saved keep; /* a failure after out's resize gives it its old geometry */
    st = ct_tensor_impl_save(out, &keep);
    if (st != CT_OK) {
        ct_tensor_release(cast);
        return st;
    }
    if (fill) {
        shape.out_ndim = x->ndim;
        memcpy(shape.out_sizes, x->sizes, (size_t)x->ndim * sizeof(int64_t));
        st = ct_reduce_impl_output(x, &shape, x->dtype, out, &r);
    }
    if (st == CT_OK && x->device.type != CT_DEVICE_META && x->numel > 0)
        st = compute(log, x, d, r, fill ? NULL : &r);
    ct_tensor_release(cast);
    return ct_reduce_impl_finish(st, out, &keep, r, result);
}
