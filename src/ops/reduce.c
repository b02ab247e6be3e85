/* Reductions (ctensor/reduce.h): the plan (src/iter/reduce_plan.h) decides dims and shapes,
 * this file decides dtypes, errors, the output and the kernel's input, and the kernels
 * (src/kernels/reduce.h) compute O x R x I.
 *
 * The way of one call: the input is converted to the result dtype and then to the kernel's
 * element type where they differ (int32 sums read int32 directly), made dense if it is not
 * (expanded or overlapping inputs), and its dims of size > 1 are taken in memory order; when
 * the reduced ones are adjacent there, the memory is O x R x I as it is (contiguous,
 * transposed and channels_last inputs alike), else a copy puts them last. The kernel writes
 * accumulators for the kept dims in memory order, and one converting copy puts them in the
 * output (new, or out=) in its dtype. mean divides the sum in place (ct_div_), as PyTorch's
 * CPU mean is sum(...).div_(count). */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/backend.h"
#include "ctensor/ops.h"
#include "ctensor/reduce.h"
#include "ctensor/warning.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/reduce_plan.h"
#include "kernels/reduce.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

static const char *const NAMES[CT_NUM_REDUCE_OPS] = {
    [CT_REDUCE_SUM] = "sum",   [CT_REDUCE_PROD] = "prod", [CT_REDUCE_MEAN] = "mean",
    [CT_REDUCE_AMAX] = "amax", [CT_REDUCE_AMIN] = "amin", [CT_REDUCE_ALL] = "all",
    [CT_REDUCE_ANY] = "any",   [CT_REDUCE_MAX] = "max",   [CT_REDUCE_MIN] = "min",
    [CT_REDUCE_NANSUM] = "nansum", [CT_REDUCE_NANMEAN] = "nanmean",
    [CT_REDUCE_COUNT_NONZERO] = "count_nonzero", [CT_REDUCE_LOGSUMEXP] = "logsumexp",
};
/* PyTorch's CPU kernel names, for "not implemented for" errors */
static const char *const KERNEL_NAMES[CT_NUM_REDUCE_OPS] = {
    [CT_REDUCE_SUM] = "sum_cpu",         [CT_REDUCE_PROD] = "prod_out_cpu",
    [CT_REDUCE_MEAN] = "sum_cpu",        [CT_REDUCE_AMAX] = "max_values_cpu",
    [CT_REDUCE_AMIN] = "min_values_cpu", [CT_REDUCE_ALL] = "all_cpu",
    [CT_REDUCE_ANY] = "any_cpu",         [CT_REDUCE_MAX] = "max_all",
    [CT_REDUCE_MIN] = "min_all",
};

const char *ct_reduce_op_name(ct_reduce_op op) {
    return (unsigned)op < CT_NUM_REDUCE_OPS ? NAMES[op] : NULL;
}

static bool is_int_or_bool(ct_dtype d) { return ct_dtype_is_integral(d, true); }

/* The dtypes the CPU reductions take (PyTorch's CPU kernels); complex ones are left out. */
bool ct_reduce_impl_has_kernel(ct_dtype d) {
    switch (d) {
    case CT_BOOL: case CT_UINT8: case CT_INT8: case CT_INT16: case CT_INT32: case CT_INT64:
    case CT_FLOAT16: case CT_BFLOAT16: case CT_FLOAT32: case CT_FLOAT64:
        return true;
    default:
        return false;
    }
}

/* caffe2's TypeMeta names, as "Expected out tensor to have dtype double" prints them */
const char *ct_reduce_impl_meta_name(ct_dtype d) {
    switch (d) {
    case CT_FLOAT32: return "float";
    case CT_FLOAT64: return "double";
    case CT_FLOAT16: return "c10::Half";
    case CT_BFLOAT16: return "c10::BFloat16";
    case CT_INT64: return "long int";
    case CT_INT32: return "int";
    case CT_INT16: return "short int";
    case CT_INT8: return "signed char";
    case CT_UINT8: return "unsigned char";
    case CT_BOOL: return "bool";
    case CT_COMPLEX64: return "c10::complex<float>";
    case CT_COMPLEX128: return "c10::complex<double>";
    default: return ct_dtype_impl_msg_name(d);
    }
}

/* The result dtype (and checks of dtype and out's dtype). */
static ct_status result_dtype(ct_reduce_op op, const ct_tensor *in, ct_dtype dtype,
                              const ct_tensor *out, ct_dtype *res) {
    const char *name = NAMES[op];
    ct_dtype ind = in->dtype;
    switch (op) {
    case CT_REDUCE_SUM:
    case CT_REDUCE_PROD:
    case CT_REDUCE_MEAN:
        if (op == CT_REDUCE_MEAN) {
            ct_dtype check = dtype != CT_DTYPE_UNDEFINED ? dtype : ind;
            if (!ct_dtype_is_floating_point(check) && !ct_dtype_is_complex(check))
                return ct_set_error(CT_ERR_RUNTIME,
                                    "mean(): could not infer output dtype. %s dtype must be "
                                    "either a floating point or complex dtype. Got: %s",
                                    dtype != CT_DTYPE_UNDEFINED ? "Optional" : "Input",
                                    ct_dtype_impl_msg_name(check));
        }
        if (dtype != CT_DTYPE_UNDEFINED) {
            if (out != NULL && out->dtype != dtype)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "Expected out tensor to have dtype %s, but got %s instead",
                                    ct_reduce_impl_meta_name(dtype), ct_reduce_impl_meta_name(out->dtype));
            *res = dtype;
        } else if (out != NULL) {
            *res = out->dtype;
        } else {
            *res = (op != CT_REDUCE_MEAN && is_int_or_bool(ind)) ? CT_INT64 : ind;
        }
        return CT_OK;
    case CT_REDUCE_AMAX:
    case CT_REDUCE_AMIN:
    case CT_REDUCE_MAX:
    case CT_REDUCE_MIN:
        if (dtype != CT_DTYPE_UNDEFINED)
            return ct_set_error(CT_ERR_MISUSE, "%s: takes no dtype", name);
        if (out != NULL && out->dtype != ind)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected the dtype for input and out to match, but got %s for "
                                "input's dtype and %s for out's dtype.",
                                ct_dtype_impl_msg_name(ind), ct_dtype_impl_msg_name(out->dtype));
        *res = ind;
        return CT_OK;
    default: /* all, any */
        if (dtype != CT_DTYPE_UNDEFINED)
            return ct_set_error(CT_ERR_MISUSE, "%s: takes no dtype", name);
        *res = ind == CT_UINT8 ? CT_UINT8 : CT_BOOL;
        if (out != NULL && out->dtype != CT_UINT8 && out->dtype != CT_BOOL)
            return ct_set_error(CT_ERR_RUNTIME, "%s only supports bool tensor for result, got: %s",
                                name, ct_dtype_impl_msg_name(out->dtype));
        if (out != NULL)
            *res = out->dtype;
        return CT_OK;
    }
}

/* The kernel op and element type, and the dtype the input is converted to for it (the
 * accumulators' dtype in *acc). */
static ct_status kernel_choice(ct_reduce_op op, ct_dtype in_dtype, ct_dtype res, ct_redk *k,
                               ct_redt *t, ct_dtype *conv, ct_dtype *acc, bool *pairs) {
    ct_dtype c = res; /* the dtype the input is reduced in */
    *pairs = false;
    if ((op == CT_REDUCE_SUM || op == CT_REDUCE_MEAN) &&
        (c == CT_COMPLEX64 || c == CT_COMPLEX128) &&
        (ct_reduce_impl_has_kernel(in_dtype) || in_dtype == CT_COMPLEX64 || in_dtype == CT_COMPLEX128)) {
        /* a complex sum is the float sums of the real and imaginary parts: the kernel sees
         * pairs of floats, twice as many columns */
        *k = CT_REDK_SUM;
        *t = c == CT_COMPLEX64 ? CT_REDT_F32D : CT_REDT_F64;
        *conv = c;
        *acc = CT_COMPLEX128;
        *pairs = true;
        return CT_OK;
    }
    if (op == CT_REDUCE_PROD && (c == CT_COMPLEX64 || c == CT_COMPLEX128) &&
        (ct_reduce_impl_has_kernel(in_dtype) || in_dtype == CT_COMPLEX64 || in_dtype == CT_COMPLEX128)) {
        *k = CT_REDK_PROD;
        *t = c == CT_COMPLEX64 ? CT_REDT_C64 : CT_REDT_C128;
        *conv = *acc = c;
        return CT_OK;
    }
    /* into bool, PyTorch casts the input to bool and adds (or) / multiplies (and) there */
    if ((op == CT_REDUCE_SUM || op == CT_REDUCE_PROD) && c == CT_BOOL)
        op = op == CT_REDUCE_SUM ? CT_REDUCE_ANY : CT_REDUCE_ALL;
    if (op == CT_REDUCE_ALL || op == CT_REDUCE_ANY) {
        *k = op == CT_REDUCE_ALL ? CT_REDK_ALL : CT_REDK_ANY;
        *t = CT_REDT_U8;
        *conv = (in_dtype == CT_UINT8 || in_dtype == CT_BOOL) ? in_dtype : CT_BOOL;
        *acc = CT_BOOL;
        return ct_reduce_impl_has_kernel(in_dtype) || in_dtype == CT_COMPLEX32 || in_dtype == CT_COMPLEX64 ||
                       in_dtype == CT_COMPLEX128
                   ? CT_OK
                   : CT_ERR_NOT_IMPLEMENTED;
    }
    *k = op == CT_REDUCE_PROD ? CT_REDK_PROD
         : (op == CT_REDUCE_AMAX || op == CT_REDUCE_MAX) ? CT_REDK_MAX
         : (op == CT_REDUCE_AMIN || op == CT_REDUCE_MIN) ? CT_REDK_MIN
                                : CT_REDK_SUM;
    if (!ct_reduce_impl_has_kernel(c) ||
        !(ct_reduce_impl_has_kernel(in_dtype) || in_dtype == CT_COMPLEX64 || in_dtype == CT_COMPLEX128))
        return CT_ERR_NOT_IMPLEMENTED;
    if ((c == CT_FLOAT32 || c == CT_FLOAT16 || c == CT_BFLOAT16) && *k == CT_REDK_SUM) {
        *t = CT_REDT_F32D; /* float elements, double accumulators */
        *conv = CT_FLOAT32;
        *acc = CT_FLOAT64;
    } else if (c == CT_FLOAT32 || c == CT_FLOAT16 || c == CT_BFLOAT16) {
        *t = CT_REDT_F32;
        *conv = *acc = CT_FLOAT32;
    } else if (c == CT_FLOAT64) {
        *t = CT_REDT_F64;
        *conv = *acc = CT_FLOAT64;
    } else if (in_dtype == CT_INT32 && (c == CT_INT64 || c == CT_INT32) &&
               (*k == CT_REDK_SUM || *k == CT_REDK_PROD)) {
        *t = CT_REDT_I32; /* int32 read directly, int64 accumulators (wrapping sums agree) */
        *conv = CT_INT32;
        *acc = CT_INT64;
    } else {
        *t = CT_REDT_I64;
        *conv = *acc = CT_INT64;
    }
    return CT_OK;
}

/* The input as the kernel reads it: converted to `res` (where the math is in res), then to
 * `conv`. New reference. */
static ct_status kernel_input(const ct_tensor *in, ct_dtype res, ct_dtype conv, ct_tensor **out) {
    ct_tensor *a = NULL;
    if (res != conv && in->dtype != res && res != CT_BOOL && conv != CT_BOOL) {
        /* cast to the result dtype first: its rounding is part of the result (int8 summed
         * in float16 rounds each element to float16; so does float32 summed in bfloat16,
         * although the kernel then reads it as float32 again) */
        bool widening = (res == CT_INT64 && is_int_or_bool(in->dtype));
        if (!widening)
            CT_TRY(ct_tensor_to_dtype(in, res, &a));
    }
    const ct_tensor *src = a != NULL ? a : in;
    ct_status st = CT_OK;
    if (src->dtype != conv) {
        ct_tensor *b = NULL;
        st = ct_tensor_to_dtype(src, conv, &b);
        ct_tensor_release(a);
        a = b;
    } else if (a == NULL) {
        a = ct_tensor_retain((ct_tensor *)in);
    }
    if (st != CT_OK)
        return st;
    if (!ct_tensor_is_non_overlapping_and_dense(a)) {
        ct_tensor *c = NULL;
        st = ct_tensor_contiguous(a, CT_MEMFMT_CONTIGUOUS, &c);
        ct_tensor_release(a);
        a = c;
        if (st != CT_OK)
            return st;
    }
    *out = a;
    return CT_OK;
}

/* The output: a new contiguous tensor, or `out` checked and resized. */
ct_status ct_reduce_impl_output(const ct_tensor *in, const ct_reduce_plan *p, ct_dtype res,
                               ct_tensor *out, ct_tensor **result) {
    if (out == NULL)
        return ct_tensor_empty(p->out_sizes, p->out_ndim, res, &in->device, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, result);
    if (out->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: out= must be a strided tensor", "reduce");
    if (out->device.type != in->device.type || out->device.index != in->device.index)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s!",
                            ct_device_type_name(out->device.type),
                            ct_device_type_name(in->device.type));
    bool same = out->ndim == p->out_ndim;
    for (int32_t d = 0; same && d < p->out_ndim; d++)
        same = out->sizes[d] == p->out_sizes[d];
    if (!same) {
        int64_t old_numel = out->numel, old[CT_MAX_DIMS];
        int32_t old_ndim = out->ndim;
        memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
        CT_TRY(ct_tensor_impl_resize(out, p->out_sizes, p->out_ndim, NULL));
        if (old_numel > 0)
            ct_tensor_impl_warn_out_resized(old, old_ndim, p->out_sizes, p->out_ndim);
    }
    *result = ct_tensor_retain(out);
    return CT_OK;
}

/* Fill the output from the kernel's accumulators: `acc` holds the kept dims of size > 1 in
 * memory order (perm), contiguous. */
static ct_status write_output(const ct_tensor *in, const ct_reduce_plan *p, const int32_t *perm,
                              int32_t nperm, const ct_tensor *acc, ct_tensor *res) {
    int32_t nd = in->ndim;
    int64_t sizes[CT_MAX_DIMS], src_st[CT_MAX_DIMS], dst_st[CT_MAX_DIMS];
    for (int32_t d = 0; d < nd; d++) {
        sizes[d] = p->reduced[d] ? 1 : in->sizes[d];
        src_st[d] = 0;
    }
    int64_t next = 1;
    for (int32_t k = nperm - 1; k >= 0; k--) {
        int32_t d = perm[k];
        if (p->reduced[d])
            continue;
        src_st[d] = next;
        next *= in->sizes[d];
    }
    int32_t j = 0;
    bool keep = res->ndim == nd;
    for (int32_t d = 0; d < nd; d++) {
        if (p->reduced[d] && !keep) {
            dst_st[d] = 0;
            continue;
        }
        dst_st[d] = res->strides[j++];
    }
    return ct_tensor_impl_copy_host(ct_tensor_data_ptr(res), res->dtype, dst_st,
                                    ct_tensor_data_ptr(acc), acc->dtype, src_st, sizes, nd);
}

/* t /= count, in place (mean). A contiguous complex t is divided as its float pairs: both
 * parts by the real count, as PyTorch's complex-by-real division does. */
static ct_status divide_by(ct_tensor *t, int64_t count) {
    ct_tensor *n = NULL, *view = NULL;
    CT_TRY(ct_tensor_wrapped_number(ct_scalar_int(count), &n));
    ct_status st = CT_OK;
    ct_tensor *target = t;
    if ((t->dtype == CT_COMPLEX64 || t->dtype == CT_COMPLEX128) &&
        ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS)) {
        int64_t len = 2 * t->numel;
        st = ct_tensor_from_storage(t->storage, &len, NULL, 1, 2 * t->storage_offset,
                                    t->dtype == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64, &view);
        target = view;
    }
    if (st == CT_OK)
        st = ct_div_(target, n, CT_ROUNDING_NONE);
    ct_tensor_release(view);
    ct_tensor_release(n);
    return st;
}

/* The computation as a REDUCE launch: the input is read in the dtype the cpu's kernel
 * reads it in (converted on the device where that differs), the accumulators are the cpu's
 * (kernel_choice); only complex sums and products are left to the cpu. */
static ct_status launch_compute(ct_reduce_op op, const ct_tensor *in, const ct_reduce_plan *p,
                                ct_tensor *res, bool mean) {
    ct_dtype r = res->dtype, ind = in->dtype, read = ind, acc = CT_INT64;
    bool r_float = ct_dtype_is_floating_point(r);
    int32_t rop;
    switch (op) {
    case CT_REDUCE_ALL:
    case CT_REDUCE_ANY:
        rop = op == CT_REDUCE_ALL ? CT_LAUNCH_RED_ALL : CT_LAUNCH_RED_ANY;
        if (!ct_reduce_impl_has_kernel(ind)) /* complex: x != 0 through a bool copy */
            read = CT_BOOL;
        break;
    case CT_REDUCE_AMAX:
    case CT_REDUCE_AMIN:
    case CT_REDUCE_MAX:
    case CT_REDUCE_MIN:
        rop = (op == CT_REDUCE_AMAX || op == CT_REDUCE_MAX) ? CT_LAUNCH_RED_MAX : CT_LAUNCH_RED_MIN;
        acc = r_float ? CT_FLOAT64 : CT_INT64;
        break;
    default: /* sum (and mean), prod */
        rop = op == CT_REDUCE_PROD ? CT_LAUNCH_RED_PROD : CT_LAUNCH_RED_SUM;
        if (r == CT_BOOL) { /* any / all of the input cast to bool, as on the cpu */
            rop = op == CT_REDUCE_PROD ? CT_LAUNCH_RED_ALL : CT_LAUNCH_RED_ANY;
            if (!ct_reduce_impl_has_kernel(ind))
                read = CT_BOOL;
        } else if (!(r == CT_INT64 && is_int_or_bool(ind)))
            read = r; /* the rounding to the result dtype is part of the result */
        if (r_float)
            acc = (op == CT_REDUCE_PROD && r != CT_FLOAT64) ? CT_FLOAT32 : CT_FLOAT64;
        break;
    }
    if (!ct_reduce_impl_has_kernel(read) || !ct_reduce_impl_has_kernel(r))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented on %s for '%s'",
                            NAMES[op], ct_device_type_name(in->device.type),
                            ct_dtype_impl_msg_name(ct_reduce_impl_has_kernel(r) ? read : r));
    ct_tensor *conv = NULL;
    if (read != ind)
        CT_TRY(ct_tensor_to_dtype(in, read, &conv));
    /* a mean into an integer out= fails in div_, as on the cpu */
    ct_status st = ct_reduce_impl_launch(rop, NAMES[op], conv != NULL ? conv : in, p, res, acc,
                                         mean && r_float);
    ct_tensor_release(conv);
    if (st == CT_OK && mean && !r_float)
        st = divide_by(res, p->count);
    return st;
}

/* The computation on host memory into res. */
static ct_status compute(ct_reduce_op op, const ct_tensor *in, const ct_reduce_plan *p,
                         ct_tensor *res, bool mean) {
    /* mean divides the accumulators when they are in the result's dtype (the same
     * rounding), else the result after its rounding (float16, bfloat16: PyTorch's
     * sum(...).div_(count)) */
    ct_redk k;
    ct_redt t;
    ct_dtype conv, accd;
    bool pairs;
    if (kernel_choice(op, in->dtype, res->dtype, &k, &t, &conv, &accd, &pairs) != CT_OK)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                            KERNEL_NAMES[op],
                            ct_dtype_impl_msg_name(ct_reduce_impl_has_kernel(in->dtype) ? res->dtype : in->dtype));
    if (p->out_numel == 0)
        return CT_OK;
    if (ct_reduce_impl_on_launch(in))
        return launch_compute(op, in, p, res, mean);
    ct_tensor *src = NULL, *acc = NULL, *perm_src = NULL;
    int32_t perm[CT_MAX_DIMS], nperm = 0;
    ct_status st = CT_OK;
    if (in->numel == 0) { /* nothing to reduce: the identity (sum 0, prod 1, all 1, any 0) */
        for (int32_t d = 0; d < in->ndim; d++)
            if (!p->reduced[d] && in->sizes[d] != 1)
                perm[nperm++] = d;
        int64_t n = p->out_numel;
        ct_scalar id =
            (k == CT_REDK_PROD || k == CT_REDK_ALL) ? ct_scalar_int(1) : ct_scalar_int(0);
        st = ct_tensor_full(&n, 1, id, accd, &in->device, CT_LAYOUT_STRIDED, &acc);
        if (st == CT_OK && mean)
            st = divide_by(acc, p->count);
        if (st == CT_OK)
            st = write_output(in, p, perm, nperm, acc, res);
        ct_tensor_release(acc);
        return st;
    }
    CT_TRY(kernel_input(in, res->dtype, conv, &src));
    bool one_group;
    int64_t O, R, I;
    ct_reduce_impl_geometry(src, p, perm, &nperm, &one_group, &O, &R, &I);
    const ct_tensor *kin = src;
    if (!one_group) { /* kept dims (memory order) first, then the reduced ones */
        int64_t order[CT_MAX_DIMS];
        int32_t n = 0;
        for (int32_t k2 = 0; k2 < nperm; k2++)
            if (!p->reduced[perm[k2]])
                order[n++] = perm[k2];
        for (int32_t k2 = 0; k2 < nperm; k2++)
            if (p->reduced[perm[k2]])
                order[n++] = perm[k2];
        for (int32_t d = 0; d < src->ndim; d++)
            if (src->sizes[d] == 1)
                order[n++] = d;
        ct_tensor *v = NULL;
        st = ct_tensor_permute(src, order, src->ndim, &v);
        if (st == CT_OK)
            st = ct_tensor_contiguous(v, CT_MEMFMT_CONTIGUOUS, &perm_src);
        ct_tensor_release(v);
        O = p->out_numel;
        R = p->count;
        I = 1;
        kin = perm_src;
    }
    if (st == CT_OK) {
        int64_t n = O * I;
        st = ct_tensor_empty(&n, 1, accd, &in->device, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                             &acc);
    }
    if (st == CT_OK) {
        /* the kernel reads from the first element (a dense tensor's lowest address) */
        const char *base = ct_tensor_data_ptr(kin);
        if (ct_reduce_impl_run(k, t, base, O, R, pairs ? 2 * I : I, ct_tensor_data_ptr(acc)) != 0)
            st = ct_set_error(CT_ERR_NOMEM, "%s: out of memory", NAMES[op]);
    }
    bool divide_acc = mean && accd == res->dtype;
    if (st == CT_OK && divide_acc)
        st = divide_by(acc, p->count);
    if (st == CT_OK)
        st = write_output(in, p, perm, nperm, acc, res);
    if (st == CT_OK && mean && !divide_acc)
        st = divide_by(res, p->count);
    ct_tensor_release(acc);
    ct_tensor_release(perm_src);
    ct_tensor_release(src);
    return st;
}

static ct_status reduce_once(ct_reduce_op op, const ct_tensor *in, const int64_t *dims,
                             int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                             ct_tensor **result) {
    if ((unsigned)op >= CT_NUM_REDUCE_OPS)
        return ct_set_error(CT_ERR_MISUSE, "ct_reduce: invalid op %d", (int)op);
    if (in == NULL || (ndims > 0 && dims == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_reduce: NULL argument");
    if (dtype != CT_DTYPE_UNDEFINED && !ct_dtype_is_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_reduce: invalid dtype %d", (int)dtype);
    const char *name = NAMES[op];
    if (in->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported",
                            name);
    if (op >= CT_REDUCE_NANSUM)
        return ct_reduce_impl_stat(op, in, dims, ndims, keepdim, dtype, out, result);
    ct_dtype res = CT_DTYPE_UNDEFINED;
    CT_TRY(result_dtype(op, in, dtype, out, &res));
    if ((op == CT_REDUCE_AMAX || op == CT_REDUCE_AMIN) && dims != NULL) {
        /* PyTorch's zero_numel_check_dims: each dim in turn, before the duplicate check */
        for (int64_t k = 0; k < ndims; k++) {
            ct_reduce_plan one;
            CT_TRY(ct_reduce_impl_plan(in, dims + k, 1, false, &one));
            if (one.count == 0)
                return ct_set_error(CT_ERR_INDEX,
                                    "%s(): Expected reduction dim %lld to have non-zero size.",
                                    name, (long long)dims[k]);
        }
    }
    ct_reduce_plan p;
    CT_TRY(ct_reduce_impl_plan(in, dims, ndims, keepdim, &p));
    if ((op == CT_REDUCE_AMAX || op == CT_REDUCE_AMIN || op == CT_REDUCE_MAX ||
         op == CT_REDUCE_MIN) && p.count == 0) {
        if (dims == NULL || ndims == 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "%s(): Expected reduction dim to be specified for input.numel() "
                                "== 0. Specify the reduction dim with the 'dim' argument.",
                                name);
        return ct_set_error(CT_ERR_INDEX,
                            "%s(): Expected reduction dim %lld to have non-zero size.", name,
                            (long long)p.first_empty_arg);
    }
    bool is_meta = in->device.type == CT_DEVICE_META;
    if (!is_meta && !ct_device_impl_host_accessible(in->device.type) &&
        !ct_reduce_impl_on_launch(in))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet", name,
                            ct_device_type_name(in->device.type));
    /* the kernel check fails on meta too, as the cpu would */
    {
        ct_redk k;
        ct_redt t;
        ct_dtype conv, accd;
        bool pairs;
        if (kernel_choice(op, in->dtype, res, &k, &t, &conv, &accd, &pairs) != CT_OK)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                                KERNEL_NAMES[op],
                                ct_dtype_impl_msg_name(ct_reduce_impl_has_kernel(in->dtype) ? res : in->dtype));
    }
    ct_tensor *r = NULL;
    ct_tensor_impl_saved keep; /* a failure after out's resize gives it its old geometry */
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = ct_reduce_impl_output(in, &p, res, out, &r);
    if (st == CT_OK && !is_meta) {
        st = compute(op == CT_REDUCE_MEAN ? CT_REDUCE_SUM : op, in, &p, r,
                     op == CT_REDUCE_MEAN);
    }
    return ct_reduce_impl_finish(st, out, &keep, r, result);
}

/* reduce_once through host memory (Note [Staging through host memory]): for what a device
 * has no kernel for (complex sums, products and statistics, a backend without launches). */
static ct_status reduce_staged(ct_reduce_op op, const ct_tensor *in, const int64_t *dims,
                               int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                               ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, NAMES[op]);
    int ki = ct_stage_add(&s, in, 0);
    int ko = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = reduce_once(op, ct_stage_host(&s, ki), dims, ndims, keepdim, dtype,
                         ct_stage_host(&s, ko), result != NULL ? &h : NULL);
    return ct_stage_finish(&s, st, h, result);
}

static ct_status reduce_impl(ct_reduce_op op, const ct_tensor *in, const int64_t *dims,
                             int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                             ct_tensor **result) {
    ct_status st = reduce_once(op, in, dims, ndims, keepdim, dtype, out, result);
    if (st == CT_ERR_NOT_IMPLEMENTED && (unsigned)op < CT_NUM_REDUCE_OPS &&
        (ct_stage_wanted(in) || ct_stage_wanted(out)))
        st = reduce_staged(op, in, dims, ndims, keepdim, dtype, out, result);
    return st;
}

ct_status ct_reduce(ct_reduce_op op, const ct_tensor *input, const int64_t *dims, int64_t ndims,
                    bool keepdim, ct_dtype dtype, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_reduce: NULL argument");
    *out = NULL;
    return reduce_impl(op, input, dims, ndims, keepdim, dtype, NULL, out);
}

ct_status ct_reduce_out(ct_reduce_op op, const ct_tensor *input, const int64_t *dims,
                        int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_reduce_out: NULL argument");
    return reduce_impl(op, input, dims, ndims, keepdim, dtype, out, NULL);
}

ct_status ct_sum(const ct_tensor *input, const int64_t *dims, int64_t ndims, bool keepdim,
                 ct_dtype dtype, ct_tensor **out) {
    return ct_reduce(CT_REDUCE_SUM, input, dims, ndims, keepdim, dtype, out);
}

ct_status ct_mean(const ct_tensor *input, const int64_t *dims, int64_t ndims, bool keepdim,
                  ct_dtype dtype, ct_tensor **out) {
    return ct_reduce(CT_REDUCE_MEAN, input, dims, ndims, keepdim, dtype, out);
}

/* ---- arg reductions -------------------------------------------------------------------------- */

static ct_status arg_impl(bool is_max, bool with_values, const ct_tensor *in, const int64_t *dim,
                          bool keepdim, ct_tensor **values, ct_tensor **indices) {
    const char *name = with_values ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin");
    if (in == NULL || indices == NULL || (with_values && values == NULL))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", name);
    if (in->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported",
                            name);
    ct_dtype d = in->dtype;
    ct_reduce_plan p;
    if (dim == NULL && in->numel == 0)
        return ct_set_error(CT_ERR_INDEX,
                            "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                            name);
    CT_TRY(ct_reduce_impl_plan(in, dim, dim != NULL ? 1 : 0, keepdim, &p));
    if (p.count == 0)
        return ct_set_error(CT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                            name, (int)p.first_empty);
    /* PyTorch's argmax / argmin fill 0 for a given dim of size 1, and leave an empty result
     * alone, before choosing a kernel: whatever the dtype. Over all dims (and of a 0-dim
     * input) they need one. */
    if (!with_values && dim != NULL && in->ndim > 0 && (p.count == 1 || p.out_numel == 0))
        return ct_tensor_zeros(p.out_sizes, p.out_ndim, CT_INT64, &in->device,
                               CT_LAYOUT_STRIDED, indices);
    if (with_values && (d == CT_COMPLEX32 || d == CT_COMPLEX64 || d == CT_COMPLEX128))
        return ct_set_error(CT_ERR_RUNTIME, "%s(): does not support complex input", name);
    if (!ct_reduce_impl_has_kernel(d) || (!with_values && d == CT_BOOL))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s_cpu\" not implemented for '%s'", name,
                            ct_dtype_impl_msg_name(d));
    bool is_meta = in->device.type == CT_DEVICE_META;
    bool on_launch = ct_reduce_impl_on_launch(in);
    if (!is_meta && !ct_device_impl_host_accessible(in->device.type) && !on_launch)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet", name,
                            ct_device_type_name(in->device.type));
    ct_tensor *v = NULL, *ix = NULL, *src = NULL, *acc_v = NULL, *acc_i = NULL;
    ct_status st = CT_OK;
    if (with_values)
        st = ct_tensor_empty(p.out_sizes, p.out_ndim, d, &in->device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &v);
    if (st == CT_OK)
        st = ct_tensor_empty(p.out_sizes, p.out_ndim, CT_INT64, &in->device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &ix);
    if (st == CT_OK && on_launch) {
        st = ct_reduce_impl_launch_arg(is_max, name, in, &p, ix, v);
    } else if (st == CT_OK && !is_meta && p.out_numel > 0) {
        ct_redt t;
        ct_dtype conv;
        if (d == CT_FLOAT32 || d == CT_FLOAT16 || d == CT_BFLOAT16) {
            t = CT_REDT_F32;
            conv = CT_FLOAT32;
        } else if (d == CT_FLOAT64) {
            t = CT_REDT_F64;
            conv = CT_FLOAT64;
        } else {
            t = CT_REDT_I64;
            conv = CT_INT64;
        }
        /* logical order: the index counts along the dim (or the flattened input) */
        ct_tensor *c = NULL;
        st = d != conv ? ct_tensor_to_dtype(in, conv, &c)
                       : (c = ct_tensor_retain((ct_tensor *)in), CT_OK);
        if (st == CT_OK) {
            st = ct_tensor_contiguous(c, CT_MEMFMT_CONTIGUOUS, &src);
            ct_tensor_release(c);
        }
        /* O x R x I in logical order: dims before the reduced one, it, dims after */
        int64_t O = 1, R = 1, I = 1;
        int32_t perm[CT_MAX_DIMS], nperm = 0;
        bool before = true;
        for (int32_t k = 0; k < in->ndim; k++) {
            if (p.reduced[k]) {
                R *= in->sizes[k];
                before = false;
            } else if (before && dim != NULL) {
                O *= in->sizes[k];
            } else {
                I *= in->sizes[k];
            }
            if (!p.reduced[k] && in->sizes[k] != 1)
                perm[nperm++] = k;
        }
        int64_t n = O * I;
        if (st == CT_OK)
            st = ct_tensor_empty(&n, 1, conv, &in->device, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                                 &acc_v);
        if (st == CT_OK)
            st = ct_tensor_empty(&n, 1, CT_INT64, &in->device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &acc_i);
        if (st == CT_OK) {
            if (ct_reduce_impl_arg(is_max, t, ct_tensor_data_ptr(src), O, R, I,
                                   ct_tensor_data_ptr(acc_v), ct_tensor_data_ptr(acc_i)) != 0)
                st = ct_set_error(CT_ERR_NOMEM, "%s: out of memory", name);
            if (st == CT_OK && with_values)
                st = write_output(in, &p, perm, nperm, acc_v, v);
            if (st == CT_OK)
                st = write_output(in, &p, perm, nperm, acc_i, ix);
        }
    }
    ct_tensor_release(src);
    ct_tensor_release(acc_v);
    ct_tensor_release(acc_i);
    if (st != CT_OK) {
        ct_tensor_release(v);
        ct_tensor_release(ix);
        return st;
    }
    if (with_values)
        *values = v;
    *indices = ix;
    return CT_OK;
}

static ct_status arg_entry(bool is_max, bool with_values, const ct_tensor *in, const int64_t *dim,
                           bool keepdim, ct_tensor **values, ct_tensor **indices) {
    if (values != NULL)
        *values = NULL;
    if (indices != NULL)
        *indices = NULL;
    ct_status st = arg_impl(is_max, with_values, in, dim, keepdim, values, indices);
    if (st != CT_ERR_NOT_IMPLEMENTED || !ct_stage_wanted(in))
        return st;
    /* through host memory where the device has no kernel (Note [Staging through host memory]) */
    ct_stage s;
    ct_stage_init(&s, with_values ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin"));
    int ki = ct_stage_add(&s, in, 0);
    ct_tensor *hv = NULL, *hi = NULL, *v = NULL, *ix = NULL;
    st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = arg_impl(is_max, with_values, ct_stage_host(&s, ki), dim, keepdim,
                      with_values ? &hv : NULL, &hi);
    if (st == CT_OK)
        st = ct_stage_result(&s, hv, &v);
    else
        ct_tensor_release(hv);
    if (st == CT_OK)
        st = ct_stage_result(&s, hi, &ix);
    else
        ct_tensor_release(hi);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(v);
        ct_tensor_release(ix);
        return st;
    }
    if (with_values)
        *values = v;
    *indices = ix;
    return CT_OK;
}

ct_status ct_max_dim(const ct_tensor *input, int64_t dim, bool keepdim, ct_tensor **values,
                     ct_tensor **indices) {
    return arg_entry(true, true, input, &dim, keepdim, values, indices);
}
ct_status ct_min_dim(const ct_tensor *input, int64_t dim, bool keepdim, ct_tensor **values,
                     ct_tensor **indices) {
    return arg_entry(false, true, input, &dim, keepdim, values, indices);
}
ct_status ct_argmax(const ct_tensor *input, const int64_t *dim, bool keepdim, ct_tensor **out) {
    return arg_entry(true, false, input, dim, keepdim, NULL, out);
}
ct_status ct_argmin(const ct_tensor *input, const int64_t *dim, bool keepdim, ct_tensor **out) {
    return arg_entry(false, false, input, dim, keepdim, NULL, out);
}

ct_status ct_reduce_impl_check_out(const ct_tensor *out, const ct_tensor *src) {
    if (out->dtype != src->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                            ct_reduce_impl_meta_name(src->dtype),
                            ct_reduce_impl_meta_name(out->dtype));
    if (out->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: out= must be a strided tensor", "reduce");
    if (out->device.type != src->device.type || out->device.index != src->device.index)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s!",
                            ct_device_type_name(out->device.type),
                            ct_device_type_name(src->device.type));
    return CT_OK;
}

ct_status ct_reduce_impl_finish(ct_status st, ct_tensor *out, ct_tensor_impl_saved *keep,
                                ct_tensor *r, ct_tensor **result) {
    if (st != CT_OK) {
        ct_tensor_release(r);
        ct_tensor_impl_restore(out, keep);
        return st;
    }
    ct_tensor_impl_saved_drop(keep);
    if (result != NULL)
        *result = r;
    else
        ct_tensor_release(r);
    return CT_OK;
}

ct_status ct_reduce_impl_fill_out(ct_tensor *out, const ct_tensor *src) {
    CT_TRY(ct_reduce_impl_check_out(out, src));
    bool same = out->ndim == src->ndim;
    for (int32_t d = 0; same && d < src->ndim; d++)
        same = out->sizes[d] == src->sizes[d];
    if (!same) {
        int64_t old_numel = out->numel, old[CT_MAX_DIMS];
        int32_t old_ndim = out->ndim;
        memcpy(old, out->sizes, (size_t)old_ndim * sizeof old[0]);
        CT_TRY(ct_tensor_impl_resize(out, src->sizes, src->ndim, NULL));
        if (old_numel > 0)
            ct_tensor_impl_warn_out_resized(old, old_ndim, src->sizes, src->ndim);
    }
    if (src->device.type == CT_DEVICE_META)
        return CT_OK;
    return ct_tensor_copy_(out, src);
}

static ct_status arg_out(bool is_max, const ct_tensor *input, int64_t dim, bool keepdim,
                         ct_tensor *values, ct_tensor *indices) {
    if (values == NULL || indices == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", is_max ? "max" : "min");
    ct_tensor *v = NULL, *ix = NULL;
    CT_TRY(arg_entry(is_max, true, input, &dim, keepdim, &v, &ix));
    ct_status st = ct_reduce_impl_check_out(values, v);
    if (st == CT_OK)
        st = ct_reduce_impl_check_out(indices, ix);
    if (st == CT_OK)
        st = ct_reduce_impl_fill_out(values, v);
    if (st == CT_OK)
        st = ct_reduce_impl_fill_out(indices, ix);
    ct_tensor_release(v);
    ct_tensor_release(ix);
    return st;
}

ct_status ct_max_dim_out(const ct_tensor *input, int64_t dim, bool keepdim, ct_tensor *values,
                         ct_tensor *indices) {
    return arg_out(true, input, dim, keepdim, values, indices);
}
ct_status ct_min_dim_out(const ct_tensor *input, int64_t dim, bool keepdim, ct_tensor *values,
                         ct_tensor *indices) {
    return arg_out(false, input, dim, keepdim, values, indices);
}

/* argmax / argmin with out=: computed as the functional form, then written into out as
 * reductions write theirs (int64 required, resized with PyTorch's warning). */
static ct_status arg_index_out(bool is_max, const ct_tensor *input, const int64_t *dim,
                               bool keepdim, ct_tensor *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", is_max ? "argmax" : "argmin");
    ct_tensor *ix = NULL;
    CT_TRY(arg_entry(is_max, false, input, dim, keepdim, NULL, &ix));
    ct_status st = ct_reduce_impl_fill_out(out, ix);
    ct_tensor_release(ix);
    return st;
}

ct_status ct_argmax_out(const ct_tensor *input, const int64_t *dim, bool keepdim,
                        ct_tensor *out) {
    return arg_index_out(true, input, dim, keepdim, out);
}
ct_status ct_argmin_out(const ct_tensor *input, const int64_t *dim, bool keepdim,
                        ct_tensor *out) {
    return arg_index_out(false, input, dim, keepdim, out);
}
