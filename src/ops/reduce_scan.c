/* cumsum and cumprod (ctensor/reduce.h): the result dtype and checks here; the input is cast
 * to the result dtype (its rounding is part of the result, as in PyTorch), then copied into a
 * contiguous buffer of the accumulation type (double, int64 or complex double: torch's CPU
 * accumulation types for float32, integers and complex), scanned in place along the dim
 * (src/kernels/reduce_stats.h) and copied into the output with one rounding per element. On a
 * device whose memory host code cannot touch, the same buffer lives on the device and the
 * scan is one SCAN launch (backend.h; scan_elem.h's steps, the cpu's). */
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/backend.h"
#include "ctensor/reduce.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/reduce_plan.h"
#include "kernels/reduce_stats.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

/* The result dtypes with a scan kernel (torch 1.13's cumsum_out_cpu: no float16, no bool). */
static bool scan_kernel(ct_dtype d) {
    return (ct_reduce_impl_has_kernel(d) && d != CT_FLOAT16 && d != CT_BOOL) || d == CT_COMPLEX64 ||
           d == CT_COMPLEX128;
}

/* The in-place scan of the dense O x R x I buffer on its device: one SCAN launch
 * (ctensor/backend.h), the steps of ct_reduce_impl_scan in the same order. */
static ct_status scan_launch(bool prod, ct_scan_type t, ct_tensor *buf, int64_t O, int64_t R,
                             int64_t I) {
    if (R < 1 || O == 0 || I == 0)
        return CT_OK;
    ct_kernel_launch *l = ct_alloc(sizeof *l, 64); /* about 4 KB: not on the stack */
    if (l == NULL)
        return CT_ERR_NOMEM;
    memset(l, 0, sizeof *l);
    l->kind = CT_LAUNCH_SCAN;
    l->name = prod ? "cumprod" : "cumsum";
    l->noperands = 1;
    l->dtype[0] = l->compute = l->math = buf->dtype;
    l->data[0] = ct_tensor_data_ptr(buf);
    l->numel = O * R * I;
    l->ndim = l->numel > 1 ? 1 : 0; /* (one element: no dims, as backend.h's loops) */
    l->shape[0] = l->numel;
    l->strides[0][0] = (int64_t)ct_dtype_table[buf->dtype].itemsize;
    l->scan_op = prod ? CT_LAUNCH_SCAN_PROD : CT_LAUNCH_SCAN_SUM;
    l->scan_outer = O;
    l->scan_len = R;
    l->scan_inner = I;
    (void)t; /* (the buffer's dtype says it) */
    ct_status st = ct_device_impl_launch(buf->device, l);
    ct_free(l, sizeof *l, 64);
    return st;
}

static ct_status scan_impl(bool prod, const ct_tensor *in, int64_t dim, ct_dtype dtype,
                           ct_tensor *out, ct_tensor **result) {
    const char *kname = prod ? "cumprod_out_cpu" : "cumsum_out_cpu";
    if (in == NULL || result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", prod ? "cumprod" : "cumsum");
    if (in->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported",
                            prod ? "cumprod" : "cumsum");
    if (dtype != CT_DTYPE_UNDEFINED && !ct_dtype_is_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "cumsum: invalid dtype %d", (int)dtype);
    ct_reduce_plan p; /* for the dim check and its message */
    CT_TRY(ct_reduce_impl_plan(in, &dim, 1, true, &p));
    ct_dtype res;
    if (dtype != CT_DTYPE_UNDEFINED) {
        if (out != NULL && out->dtype != dtype)
            return ct_set_error(
                CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                ct_reduce_impl_meta_name(dtype), ct_reduce_impl_meta_name(out->dtype));
        res = dtype;
    } else if (out != NULL) {
        res = out->dtype;
    } else {
        res = ct_dtype_is_integral(in->dtype, true) ? CT_INT64 : in->dtype;
    }
    bool in_ok = ct_reduce_impl_has_kernel(in->dtype) || in->dtype == CT_COMPLEX64 ||
                 in->dtype == CT_COMPLEX128;
    /* a 0-dim or empty input is copied, not scanned: no kernel check (as torch 1.13) */
    if ((!scan_kernel(res) || !in_ok) && in->ndim > 0 && in->numel > 0)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kname,
                            ct_dtype_impl_msg_name(in_ok ? res : in->dtype));
    /* memory host code cannot touch: the scan is a SCAN launch (scan_launch) */
    bool on_launch = ct_reduce_impl_on_launch(in);
    if (in->device.type != CT_DEVICE_META && !ct_device_impl_host_accessible(in->device.type) &&
        !on_launch)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet",
                            prod ? "cumprod" : "cumsum", ct_device_type_name(in->device.type));
    /* the output has the input's shape: a plan without reduced dims gives it */
    ct_reduce_plan shape;
    CT_TRY(ct_reduce_impl_plan(in, NULL, 0, true, &shape));
    shape.out_ndim = in->ndim;
    memcpy(shape.out_sizes, in->sizes, (size_t)in->ndim * sizeof(int64_t));
    ct_tensor *r = NULL, *cast = NULL, *buf = NULL;
    CT_TRY(ct_reduce_impl_output(in, &shape, res, out, &r));
    ct_status st = CT_OK;
    if (in->device.type != CT_DEVICE_META && in->numel > 0) {
        ct_scan_type t;
        ct_dtype acc;
        /* a 0-dim input is a copy (torch's fill_: -0.0 stays -0.0), with or without a kernel */
        if (in->ndim == 0 || !scan_kernel(res) || !in_ok) {
            st = ct_tensor_copy_(r, in);
            goto done;
        }
        int64_t d0 = in->ndim == 0 ? 0 : (dim < 0 ? dim + in->ndim : dim);
        int64_t inner = 1;
        for (int64_t k = d0 + 1; k < in->ndim; k++)
            inner *= in->sizes[k];
        if (!on_launch && res == CT_FLOAT32 && in->dtype == CT_FLOAT32 && inner == 1 &&
            ct_tensor_is_contiguous(in, CT_MEMFMT_CONTIGUOUS) &&
            ct_tensor_is_contiguous(r, CT_MEMFMT_CONTIGUOUS) &&
            (r == in || r->storage != in->storage)) {
            /* float32 rows along the last dim: straight from input to output (no buffers);
             * in place (cumsum_) too, as each element is read before it is written */
            int64_t R = in->ndim == 0 ? 1 : in->sizes[d0];
            ct_reduce_impl_scan_f32(prod, ct_tensor_data_ptr(in), ct_tensor_data_ptr(r),
                                    in->numel / R, R);
            goto done;
        }
        if (ct_dtype_is_complex(res)) {
            t = CT_SCAN_C128;
            acc = CT_COMPLEX128;
        } else if (ct_dtype_is_floating_point(res)) {
            t = CT_SCAN_F64;
            acc = CT_FLOAT64;
        } else {
            t = CT_SCAN_I64;
            acc = CT_INT64;
        }
        const ct_tensor *src = in;
        if (in->dtype != res && res != acc) {
            st = ct_tensor_to_dtype(in, res, &cast);
            src = cast;
        }
        if (st == CT_OK) /* a new contiguous buffer, scanned in place */
            st = ct_tensor_to(src, acc, NULL, true, CT_MEMFMT_CONTIGUOUS, &buf);
        if (st == CT_OK) {
            int64_t d = in->ndim == 0 ? 0 : (dim < 0 ? dim + in->ndim : dim);
            int64_t O = 1, R = 1, I = 1;
            for (int64_t k = 0; k < in->ndim; k++) {
                if (k < d)
                    O *= in->sizes[k];
                else if (k == d)
                    R = in->sizes[k];
                else
                    I *= in->sizes[k];
            }
            if (on_launch)
                st = scan_launch(prod, t, buf, O, R, I);
            else
                ct_reduce_impl_scan(prod, t, ct_tensor_data_ptr(buf), O, R, I);
            if (st == CT_OK)
                st = ct_tensor_copy_(r, buf);
        }
    }
done:
    ct_tensor_release(cast);
    ct_tensor_release(buf);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *result = r;
    return CT_OK;
}

/* scan_impl through host memory where the device has no kernel (Note [Staging through host
 * memory]). */
static ct_status scan_staged(bool prod, const ct_tensor *in, int64_t dim, ct_dtype dtype,
                             ct_tensor *out, ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, prod ? "cumprod" : "cumsum");
    int ki = ct_stage_add(&s, in, out == in ? CT_STAGE_WRITTEN : 0u);
    int ko = out == in ? ki : ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = scan_impl(prod, ct_stage_host(&s, ki), dim, dtype, ct_stage_host(&s, ko), &h);
    return ct_stage_finish(&s, st, h, result);
}

static ct_status scan_any(bool prod, const ct_tensor *in, int64_t dim, ct_dtype dtype,
                          ct_tensor *out, ct_tensor **result) {
    ct_status st = scan_impl(prod, in, dim, dtype, out, result);
    if (st == CT_ERR_NOT_IMPLEMENTED && (ct_stage_wanted(in) || ct_stage_wanted(out)))
        st = scan_staged(prod, in, dim, dtype, out, result);
    return st;
}

ct_status ct_cumulative(bool prod, const ct_tensor *input, int64_t dim, ct_dtype dtype,
                        ct_tensor *out, ct_tensor **result) {
    if (result != NULL)
        *result = NULL;
    return scan_any(prod, input, dim, dtype, out, result);
}

ct_status ct_cumulative_(bool prod, ct_tensor *self, int64_t dim, ct_dtype dtype) {
    if (self == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s_: NULL argument", prod ? "cumprod" : "cumsum");
    if (dtype != CT_DTYPE_UNDEFINED && dtype != self->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Bad in-place call: input tensor dtype %s and output tensor dtype %s "
                            "should match",
                            ct_reduce_impl_meta_name(self->dtype), ct_reduce_impl_meta_name(dtype));
    ct_tensor *r = NULL;
    CT_TRY(scan_any(prod, self, dim, dtype, self, &r));
    ct_tensor_release(r);
    return CT_OK;
}
