/* torch.arange(start, end, step).
 *
 * Note [arange arithmetic]
 * PyTorch converts the bounds to the dtype's accumulate type (int64 for every integer
 * dtype, double for float32 and float64, float for float16 and bfloat16; each conversion
 * range-checked), checks them in that type, and computes the length in double as
 * ceil((end - start) / step) from the original scalars, except for int64, where it uses the
 * accumulate values in integer arithmetic: (end - start + step - sign(step)) / step. So
 * arange(0, 2.5, dtype=int64) has 2 elements (2.5 was truncated to 2 first) but int32 gets
 * 3. Element i is start + step * i in the accumulate type, then converted to the dtype. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

typedef enum { ACC_INT64, ACC_FLOAT, ACC_DOUBLE } acc_kind;

static bool supported(ct_dtype dt, acc_kind *acc) {
    switch (dt) {
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
        *acc = ACC_INT64;
        return true;
    case CT_FLOAT16:
    case CT_BFLOAT16:
        *acc = ACC_FLOAT;
        return true;
    case CT_FLOAT32:
    case CT_FLOAT64:
        *acc = ACC_DOUBLE;
        return true;
    default:
        return false;
    }
}

/* Scalar::to<double>() (after the accumulate conversion succeeded, the value is real). */
static double to_double(ct_scalar v) {
    switch (v.kind) {
    case CT_SCALAR_BOOL:
        return v.v.b ? 1.0 : 0.0;
    case CT_SCALAR_INT:
        return (double)v.v.i;
    case CT_SCALAR_UINT:
        return (double)v.v.u;
    case CT_SCALAR_FLOAT:
        return v.v.f;
    default:
        return v.v.c.re;
    }
}

static ct_status invalid_size(void) {
    return ct_set_error(CT_ERR_RUNTIME, "invalid size, possible overflow?");
}

/* The number of elements (see Note [arange arithmetic]). */
static ct_status arange_size(ct_dtype dt, acc_kind acc, ct_scalar start, ct_scalar end,
                             ct_scalar step, int64_t *xs, int64_t *xst, double *ds, double *dst,
                             int64_t *n) {
    double size_d;
    if (acc == ACC_INT64) {
        int64_t xend;
        CT_TRY(ct_scalar_to_dtype(start, CT_INT64, xs));
        CT_TRY(ct_scalar_to_dtype(end, CT_INT64, &xend));
        CT_TRY(ct_scalar_to_dtype(step, CT_INT64, xst));
        if (*xst == 0)
            return ct_set_error(CT_ERR_RUNTIME, "step must be nonzero");
        if (!((*xst > 0 && xend >= *xs) || (*xst < 0 && xend <= *xs)))
            return ct_set_error(CT_ERR_RUNTIME,
                                "upper bound and larger bound inconsistent with step sign");
        if (dt == CT_INT64) {
            int64_t sgn = *xst > 0 ? 1 : -1, num;
            bool of = __builtin_sub_overflow(xend, *xs, &num) ||
                      ct_checked_add_i64(num, *xst, &num) ||
                      __builtin_sub_overflow(num, sgn, &num);
            if (of)
                return invalid_size();
            *n = num / *xst;
            return CT_OK;
        }
    } else {
        double a, b, c;
        if (acc == ACC_FLOAT) {
            float fa, fb, fc;
            CT_TRY(ct_scalar_to_dtype(start, CT_FLOAT32, &fa));
            CT_TRY(ct_scalar_to_dtype(end, CT_FLOAT32, &fb));
            CT_TRY(ct_scalar_to_dtype(step, CT_FLOAT32, &fc));
            a = fa, b = fb, c = fc;
        } else {
            CT_TRY(ct_scalar_to_dtype(start, CT_FLOAT64, &a));
            CT_TRY(ct_scalar_to_dtype(end, CT_FLOAT64, &b));
            CT_TRY(ct_scalar_to_dtype(step, CT_FLOAT64, &c));
        }
        if (!(c > 0 || c < 0))
            return ct_set_error(CT_ERR_RUNTIME, "step must be nonzero");
        if (!isfinite(a) || !isfinite(b))
            return ct_set_error(CT_ERR_RUNTIME, "unsupported range: %g -> %g", a, b);
        if (!((c > 0 && b >= a) || (c < 0 && b <= a)))
            return ct_set_error(CT_ERR_RUNTIME,
                                "upper bound and larger bound inconsistent with step sign");
        *ds = a;
        *dst = c;
    }
    size_d = ceil((to_double(end) - to_double(start)) / to_double(step));
    if (!(size_d >= 0 && size_d < 9223372036854775808.0))
        return invalid_size();
    *n = (int64_t)size_d;
    return CT_OK;
}

/* Write elements [i0, i0 + k) of the sequence at dst. */
#define CHUNK 1024
static void fill_values(ct_dtype dt, acc_kind acc, char *dst, int64_t i0, int64_t k, int64_t xs,
                        int64_t xst, double ds, double dst_step) {
    size_t isz = ct_dtype_table[dt].itemsize;
    union {
        int64_t i[CHUNK];
        float f[CHUNK];
        double d[CHUNK];
    } buf;
    for (int64_t done = 0; done < k; done += CHUNK) {
        int64_t m = k - done < CHUNK ? k - done : CHUNK;
        int64_t base = i0 + done;
        for (int64_t j = 0; j < m; j++) {
            int64_t idx = base + j;
            if (acc == ACC_INT64) /* wraps like PyTorch's int64 arithmetic */
                buf.i[j] = (int64_t)((uint64_t)xs + (uint64_t)xst * (uint64_t)idx);
            else if (acc == ACC_FLOAT)
                buf.f[j] = (float)ds + (float)dst_step * (float)idx;
            else
                buf.d[j] = ds + dst_step * (double)idx;
        }
        ct_dtype from = acc == ACC_INT64 ? CT_INT64 : acc == ACC_FLOAT ? CT_FLOAT32 : CT_FLOAT64;
        (void)ct_convert(dt, dst + done * (int64_t)isz, from, &buf, (size_t)m);
    }
}

ct_status ct_tensor_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype,
                           const ct_device *device, ct_layout layout, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_arange: out is NULL");
    *out = NULL;
    if (!ct_layout_is_valid(layout))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_arange: invalid layout value %d",
                            (int)layout);
    if (layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "ct_tensor_arange: layout torch.%s is not supported by the tensor core",
                            ct_layout_name(layout));
    if (dtype == CT_DTYPE_UNDEFINED) {
        bool integral = ct_scalar_is_integral(start, true) && ct_scalar_is_integral(end, true) &&
                        ct_scalar_is_integral(step, true);
        dtype = integral ? CT_INT64 : ct_get_default_dtype();
    }
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_arange: invalid dtype value %d", (int)dtype);
    acc_kind acc;
    if (!supported(dtype, &acc))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"arange_cpu\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(dtype));
    ct_device dev;
    CT_TRY(ct_device_resolve(device, &dev));
    int64_t n = 0, xs = 0, xst = 0;
    double ds = 0, dstep = 0;
    CT_TRY(arange_size(dtype, acc, start, end, step, &xs, &xst, &ds, &dstep, &n));
    CT_TRY(ct_tensor_empty(&n, 1, dtype, &dev, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, out));
    ct_tensor *t = *out;
    if (n == 0 || dev.type == CT_DEVICE_META)
        return CT_OK;
    size_t nbytes = (size_t)n * ct_dtype_table[dtype].itemsize;
    if (dev.type == CT_DEVICE_CPU) {
        fill_values(dtype, acc, ct_tensor_data_ptr(t), 0, n, xs, xst, ds, dstep);
        return CT_OK;
    }
    char *host = ct_alloc(nbytes, 64);
    ct_status st = host != NULL ? CT_OK : CT_ERR_NOMEM;
    if (st == CT_OK) {
        fill_values(dtype, acc, host, 0, n, xs, xst, ds, dstep);
        ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        st = ct_device_copy(dev, ct_tensor_data_ptr(t), cpu, host, nbytes);
        ct_free(host, nbytes, 64);
    }
    if (st != CT_OK) {
        ct_tensor_release(t);
        *out = NULL;
    }
    return st;
}
