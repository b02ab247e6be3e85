/* Statistical reductions (ctensor/reduce.h, "more reductions"): nansum, nanmean,
 * count_nonzero, logsumexp, var / std (and their means), norm, aminmax.
 *
 * The way of one call: checks and the result dtype here, the output from the plan
 * (src/iter/reduce_plan.h), then the input as O rows of R contiguous elements (float or
 * double: kept dims first in logical order, reduced dims last, a copy only when the memory is
 * not already so), the passes of Note [Statistical reductions] (src/kernels/reduce_stats.h)
 * into O doubles, and one converting copy of them into the output. count_nonzero and aminmax
 * are other reductions (sum of a bool tensor, amin and amax). */
#include <math.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/backend.h"
#include "ctensor/ops.h"
#include "ctensor/reduce.h"
#include "ctensor/unary.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/reduce_plan.h"
#include "kernels/reduce.h"
#include "kernels/reduce_stats.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

static bool is_float(ct_dtype d) { return ct_dtype_is_floating_point(d); }
static bool is_complex(ct_dtype d) { return ct_dtype_is_complex(d); }
/* float16, bfloat16, float32, float64: the floating dtypes with CPU kernels */
static bool float_kernel(ct_dtype d) { return is_float(d) && ct_reduce_impl_has_kernel(d); }

static ct_dtype real_of(ct_dtype d) {
    return d == CT_COMPLEX64 ? CT_FLOAT32 : d == CT_COMPLEX128 ? CT_FLOAT64 : d;
}

static ct_status check_device(const ct_tensor *in, const char *name) {
    if (in->device.type != CT_DEVICE_META && !ct_device_impl_host_accessible(in->device.type) &&
        !ct_reduce_impl_on_launch(in))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet", name,
                            ct_device_type_name(in->device.type));
    return CT_OK;
}

/* The input as O rows of R contiguous elements of dtype `conv` (float32 or float64). With
 * `pair`, in is a complex tensor read as its float pairs: the pair is a kept dim (last), so
 * the rows are the real parts and the imaginary parts in turn. New reference. */
static ct_status rows_of(const ct_tensor *in, const ct_reduce_plan *p, ct_dtype conv, bool pair,
                         ct_tensor **rows) {
    ct_tensor *view = NULL, *c = NULL, *perm = NULL;
    const ct_tensor *src = in;
    bool reduced[CT_MAX_DIMS + 1];
    int32_t nd = in->ndim;
    memcpy(reduced, p->reduced, sizeof p->reduced);
    if (pair) {
        int64_t sizes[CT_MAX_DIMS + 1], strides[CT_MAX_DIMS + 1];
        for (int32_t d = 0; d < nd; d++) {
            sizes[d] = in->sizes[d];
            strides[d] = 2 * in->strides[d];
        }
        sizes[nd] = 2;
        strides[nd] = 1;
        reduced[nd] = false;
        CT_TRY(ct_tensor_from_storage(in->storage, sizes, strides, nd + 1, 2 * in->storage_offset,
                                      real_of(in->dtype), &view));
        src = view;
        nd++;
    }
    ct_status st = ct_tensor_to_dtype(src, conv, &c);
    ct_tensor_release(view);
    if (st != CT_OK)
        return st;
    int64_t order[CT_MAX_DIMS + 1];
    int32_t n = 0;
    for (int32_t d = 0; d < nd; d++)
        if (!reduced[d])
            order[n++] = d;
    for (int32_t d = 0; d < nd; d++)
        if (reduced[d])
            order[n++] = d;
    st = ct_tensor_permute(c, order, nd, &perm);
    ct_tensor_release(c);
    if (st == CT_OK)
        st = ct_tensor_contiguous(perm, CT_MEMFMT_CONTIGUOUS, rows);
    ct_tensor_release(perm);
    return st;
}

/* O doubles on the input's device, shaped as the output (a new contiguous tensor). */
static ct_status doubles(const ct_tensor *in, const ct_reduce_plan *p, ct_tensor **acc) {
    return ct_tensor_empty(p->out_sizes, p->out_ndim, CT_FLOAT64, &in->device, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, acc);
}

static ct_status nomem(const char *name) {
    return ct_set_error(CT_ERR_NOMEM, "%s: out of memory", name);
}

/* The statistic of each row into acc (doubles, O of them; R elements a row). */
typedef enum stat_kind { STAT_NANSUM, STAT_NANMEAN, STAT_LOGSUMEXP, STAT_COUNT } stat_kind;

static ct_status run_stat(stat_kind kind, const ct_tensor *rows, int64_t O, int64_t R, double *acc,
                          const char *name) {
    bool f64 = rows->dtype == CT_FLOAT64;
    const void *x = ct_tensor_data_ptr(rows);
    if (kind == STAT_LOGSUMEXP) {
        if (ct_reduce_impl_pass(CT_RPASS_MAX, f64, x, O, R, 0, NULL, acc, NULL) != 0)
            return nomem(name);
        for (int64_t o = 0; o < O; o++)
            if (isinf(acc[o]))
                acc[o] = 0; /* an infinite max shifts by nothing (PyTorch's masked_fill) */
        double *s = ct_alloc((size_t)(O > 0 ? O : 1) * sizeof(double), 64);
        if (s == NULL)
            return nomem(name);
        int rc = ct_reduce_impl_pass(CT_RPASS_EXPSUM, f64, x, O, R, 0, acc, s, NULL);
        if (rc == 0)
            for (int64_t o = 0; o < O; o++)
                acc[o] = log(s[o]) + acc[o];
        ct_free(s, (size_t)(O > 0 ? O : 1) * sizeof(double), 64);
        return rc == 0 ? CT_OK : nomem(name);
    }
    if (kind == STAT_COUNT)
        return ct_reduce_impl_pass(CT_RPASS_NONZERO, f64, x, O, R, 0, NULL, acc, NULL) == 0
                   ? CT_OK
                   : nomem(name);
    if (kind == STAT_NANSUM) /* the sum alone: no counts */
        return ct_reduce_impl_pass(CT_RPASS_NANSUM, f64, x, O, R, 0, NULL, acc, NULL) == 0
                   ? CT_OK
                   : nomem(name);
    double *cnt = ct_alloc((size_t)(O > 0 ? O : 1) * sizeof(double), 64);
    if (cnt == NULL)
        return nomem(name);
    int rc = ct_reduce_impl_pass(CT_RPASS_NANSUM, f64, x, O, R, 0, NULL, acc, cnt);
    if (rc == 0 && kind == STAT_NANMEAN)
        for (int64_t o = 0; o < O; o++)
            acc[o] /= cnt[o];
    ct_free(cnt, (size_t)(O > 0 ? O : 1) * sizeof(double), 64);
    return rc == 0 ? CT_OK : nomem(name);
}

/* The float dtype the rows are read in: float64 when either side is, else float32. */
static ct_dtype rows_dtype(ct_dtype in, ct_dtype res) {
    return in == CT_FLOAT64 || res == CT_FLOAT64 || in == CT_COMPLEX128 ? CT_FLOAT64 : CT_FLOAT32;
}

/* Run `kind` over `in` (real floating) into `r` (the output, any dtype). */
static ct_status stat_into(stat_kind kind, const ct_tensor *in, const ct_reduce_plan *p,
                           ct_tensor *r, const char *name) {
    if (in->device.type == CT_DEVICE_META || p->out_numel == 0)
        return CT_OK;
    if (ct_reduce_impl_on_launch(in)) { /* the input's own floats, summed in double */
        if (kind == STAT_NANSUM)
            return ct_reduce_impl_launch(CT_LAUNCH_RED_NANSUM, name, in, p, r, CT_FLOAT64, false);
        if (kind == STAT_COUNT)
            return ct_reduce_impl_launch(CT_LAUNCH_RED_COUNT_NONZERO, name, in, p, r, CT_INT64,
                                         false);
        if (kind == STAT_NANMEAN)
            return ct_reduce_impl_launch_nanmean(name, in, p, r);
        return ct_reduce_impl_launch_lse(name, in, p, r);
    }
    ct_tensor *rows = NULL, *acc = NULL;
    CT_TRY(rows_of(in, p, rows_dtype(in->dtype, r->dtype), false, &rows));
    ct_status st = doubles(in, p, &acc);
    if (st == CT_OK)
        st = run_stat(kind, rows, p->out_numel, p->count, ct_tensor_data_ptr(acc), name);
    if (st == CT_OK)
        st = ct_tensor_copy_(r, acc);
    ct_tensor_release(acc);
    ct_tensor_release(rows);
    return st;
}

/* nanmean into float16 / bfloat16 as PyTorch computes it: the nansum in that dtype (each
 * element cast first, the sum rounded), divided by the count of non-NaN elements and rounded
 * again; not the double-precision mean rounded once. */
static ct_status nanmean_half(const ct_tensor *in, const int64_t *dims, int64_t ndims,
                              bool keepdim, ct_dtype res, ct_tensor *out, ct_tensor **result) {
    ct_tensor *nan = NULL, *kept = NULL, *count = NULL, *sum = NULL;
    ct_status st = ct_isnan(in, &nan);
    if (st == CT_OK)
        st = ct_unary(CT_UNOP_LOGICAL_NOT, nan, &kept);
    if (st == CT_OK)
        st = ct_reduce(CT_REDUCE_SUM, kept, dims, ndims, keepdim, CT_DTYPE_UNDEFINED, &count);
    if (st == CT_OK && out != NULL) {
        st = ct_reduce_out(CT_REDUCE_NANSUM, in, dims, ndims, keepdim, res, out);
        if (st == CT_OK)
            st = ct_div_(out, count, CT_ROUNDING_NONE);
    } else if (st == CT_OK) {
        st = ct_reduce(CT_REDUCE_NANSUM, in, dims, ndims, keepdim, res, &sum);
        if (st == CT_OK)
            st = ct_div_(sum, count, CT_ROUNDING_NONE);
        if (st == CT_OK) {
            *result = sum;
            sum = NULL;
        }
    }
    ct_tensor_release(sum);
    ct_tensor_release(count);
    ct_tensor_release(kept);
    ct_tensor_release(nan);
    return st;
}

ct_status ct_reduce_impl_stat(ct_reduce_op op, const ct_tensor *in, const int64_t *dims,
                              int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                              ct_tensor **result) {
    const char *name = ct_reduce_op_name(op);
    ct_dtype ind = in->dtype, res;
    stat_kind kind;
    ct_tensor *tmp = NULL;
    switch (op) {
    case CT_REDUCE_NANSUM:
    case CT_REDUCE_NANMEAN:
        if (op == CT_REDUCE_NANSUM) { /* the dims are checked first (make_reduction) */
            ct_reduce_plan check;
            CT_TRY(ct_reduce_impl_plan(in, dims, ndims, keepdim, &check));
        }
        if (op == CT_REDUCE_NANSUM && is_complex(ind))
            return ct_set_error(CT_ERR_RUNTIME, "nansum does not support complex inputs");
        if (op == CT_REDUCE_NANMEAN && !is_float(ind))
            return ct_set_error(CT_ERR_RUNTIME,
                                "nanmean(): expected input to have floating point dtype but got %s",
                                ct_dtype_impl_msg_name(ind));
        if (op == CT_REDUCE_NANSUM && ct_dtype_is_integral(ind, true)) /* no NaN: a sum */
            return out != NULL ? ct_reduce_out(CT_REDUCE_SUM, in, dims, ndims, keepdim, dtype, out)
                               : ct_reduce(CT_REDUCE_SUM, in, dims, ndims, keepdim, dtype, result);
        if (dtype != CT_DTYPE_UNDEFINED && out != NULL && out->dtype != dtype)
            return ct_set_error(CT_ERR_RUNTIME,
                                "nansum: provided dtype must match dtype of result. Got %s and %s.",
                                ct_dtype_impl_msg_name(out->dtype), ct_dtype_impl_msg_name(dtype));
        res = dtype != CT_DTYPE_UNDEFINED ? dtype : out != NULL ? out->dtype : ind;
        if (!float_kernel(res) || !float_kernel(ind))
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"nansum_cpu\" not implemented for '%s'",
                                ct_dtype_impl_msg_name(float_kernel(ind) ? res : ind));
        if (op == CT_REDUCE_NANMEAN && (res == CT_FLOAT16 || res == CT_BFLOAT16))
            return nanmean_half(in, dims, ndims, keepdim, res, out, result);
        kind = op == CT_REDUCE_NANSUM ? STAT_NANSUM : STAT_NANMEAN;
        /* the input is cast to the result dtype (dtype=, or out='s) before the reduction, as
         * for sum: that rounding is part of the result (float32 nansum'd into bfloat16
         * rounds each element first) */
        ind = res;
        break;
    case CT_REDUCE_COUNT_NONZERO: {
        if (dtype != CT_DTYPE_UNDEFINED)
            return ct_set_error(CT_ERR_MISUSE, "%s: takes no dtype", name);
        if (!ct_reduce_impl_has_kernel(ind) && !is_complex(ind))
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                                "\"count_nonzero_cpu\" not implemented for '%s'",
                                ct_dtype_impl_msg_name(ind));
        CT_TRY(check_device(in, name));
        if (!is_complex(ind) && in->device.type != CT_DEVICE_META) {
            /* one pass counting x != 0 over the values as floats (a nonzero integer stays
             * nonzero); the counts are exact in double */
            res = CT_INT64;
            kind = STAT_COUNT;
            break;
        }
        CT_TRY(ct_tensor_to_dtype(in, CT_BOOL, &tmp));
        ct_status st = out != NULL
                           ? ct_reduce_out(CT_REDUCE_SUM, tmp, dims, ndims, keepdim, CT_INT64, out)
                           : ct_reduce(CT_REDUCE_SUM, tmp, dims, ndims, keepdim, CT_INT64, result);
        ct_tensor_release(tmp);
        return st;
    }
    default: /* logsumexp */
        if (dtype != CT_DTYPE_UNDEFINED)
            return ct_set_error(CT_ERR_MISUSE, "%s: takes no dtype", name);
        res = out != NULL                       ? out->dtype
              : ct_dtype_is_integral(ind, true) ? ct_get_default_dtype()
                                                : ind;
        if (!is_float(res))
            return ct_set_error(CT_ERR_RUNTIME,
                                "logsumexp(): Expected floating point type for result tensor, "
                                "but got: %s",
                                ct_dtype_impl_msg_name(res));
        if (ct_dtype_is_integral(ind, true)) {
            ind = ct_get_default_dtype();
        } else if (!float_kernel(ind) || ind == CT_FLOAT16 || !float_kernel(res)) {
            ct_dtype bad = !float_kernel(ind) || ind == CT_FLOAT16 ? ind : res;
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"exp_vml_cpu\" not implemented for '%s'",
                                ct_dtype_impl_msg_name(bad));
        }
        kind = STAT_LOGSUMEXP;
        break;
    }
    CT_TRY(check_device(in, name));
    ct_reduce_plan p;
    CT_TRY(ct_reduce_impl_plan(in, dims, ndims, keepdim, &p));
    ct_tensor *r = NULL;
    ct_tensor_impl_saved keep; /* a failure after out's resize gives it its old geometry */
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = ct_reduce_impl_output(in, &p, res, out, &r);
    const ct_tensor *src = in;
    if (st == CT_OK && ind != in->dtype) { /* dtype=, or logsumexp of integers */
        st = ct_tensor_to_dtype(in, ind, &tmp);
        src = tmp;
    }
    if (st == CT_OK)
        st = stat_into(kind, src, &p, r, name);
    ct_tensor_release(tmp);
    return ct_reduce_impl_finish(st, out, &keep, r, result);
}

/* ---- var / std --------------------------------------------------------------------------- */

/* var (and mean) of the rows into v[O] (and m[O], may be NULL): the corrected two-pass
 * algorithm, sum (x - mean)^2 - (sum (x - mean))^2 / N, which cancels the mean's rounding. */
static ct_status var_rows(const ct_tensor *rows, int64_t O, int64_t R, double correction, double *v,
                          double *m) {
    bool f64 = rows->dtype == CT_FLOAT64;
    const void *x = ct_tensor_data_ptr(rows);
    size_t bytes = (size_t)(O > 0 ? O : 1) * sizeof(double);
    double *mean = ct_alloc(bytes, 64), *s1 = ct_alloc(bytes, 64);
    int rc = mean != NULL && s1 != NULL ? 0 : -1;
    if (rc == 0)
        rc = ct_reduce_impl_pass(CT_RPASS_SUM, f64, x, O, R, 0, NULL, mean, NULL);
    if (rc == 0) {
        for (int64_t o = 0; o < O; o++)
            mean[o] /= (double)R;
        rc = ct_reduce_impl_pass(CT_RPASS_DEV, f64, x, O, R, 0, mean, v, s1);
    }
    if (rc == 0) {
        double n = (double)R, dof = n - correction > 0 ? n - correction : 0;
        for (int64_t o = 0; o < O; o++) {
            double m2 = v[o] - s1[o] * s1[o] / n;
            if (m2 < 0)
                m2 = 0;
            if (R == 0)
                m2 = NAN;
            v[o] = m2 / dof;
            if (m != NULL)
                m[o] = mean[o];
        }
    }
    ct_free(mean, bytes, 64);
    ct_free(s1, bytes, 64);
    return rc == 0 ? CT_OK : nomem("var");
}

static ct_status std_var_once(const ct_tensor *input, const int64_t *dims, int64_t ndims,
                              double correction, bool keepdim, bool take_sqrt, ct_tensor *out,
                              ct_tensor **result, ct_tensor **mean) {
    const char *name = take_sqrt ? "std" : "var";
    if (result == NULL || input == NULL || (ndims > 0 && dims == NULL))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", name);
    *result = NULL;
    if (mean != NULL)
        *mean = NULL;
    if (input->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported", name);
    ct_dtype ind = input->dtype;
    if (!is_float(ind) && !is_complex(ind))
        return ct_set_error(CT_ERR_RUNTIME, "%s only support floating point and complex dtypes",
                            mean == NULL ? "std and var"
                            : take_sqrt  ? "std_mean"
                                         : "var_mean");
    bool cplx = is_complex(ind);
    if ((cplx && ind != CT_COMPLEX64 && ind != CT_COMPLEX128) || (!cplx && !float_kernel(ind)))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"std_var_cpu\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(ind));
    CT_TRY(check_device(input, name));
    ct_reduce_plan p;
    CT_TRY(ct_reduce_impl_plan(input, dims, ndims, keepdim, &p));
    bool on_launch = ct_reduce_impl_on_launch(input);
    if (on_launch && cplx)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented on %s for '%s'", name,
                            ct_device_type_name(input->device.type), ct_dtype_impl_msg_name(ind));
    ct_dtype res = out != NULL ? out->dtype : real_of(ind);
    ct_tensor *r = NULL, *mr = NULL, *rows = NULL, *acc = NULL, *macc = NULL;
    ct_tensor_impl_saved keep; /* a failure after out's resize gives it its old geometry */
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = ct_reduce_impl_output(input, &p, res, out, &r);
    if (st == CT_OK && mean != NULL) {
        if (cplx) /* a complex mean: the plain mean */
            st = ct_reduce(CT_REDUCE_MEAN, input, dims, ndims, keepdim, CT_DTYPE_UNDEFINED, &mr);
        else
            st = ct_reduce_impl_output(input, &p, ind, NULL, &mr);
    }
    if (st == CT_OK && on_launch)
        st = ct_reduce_impl_launch_var(name, input, &p, correction, take_sqrt, r, mr);
    bool compute = st == CT_OK && !on_launch && input->device.type != CT_DEVICE_META &&
                   p.out_numel > 0;
    if (compute)
        st = rows_of(input, &p, rows_dtype(ind, res), cplx, &rows);
    if (compute && st == CT_OK) {
        int64_t O = p.out_numel * (cplx ? 2 : 1);
        st = ct_tensor_empty(&O, 1, CT_FLOAT64, &input->device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &acc);
        if (st == CT_OK && mean != NULL && !cplx)
            st = doubles(input, &p, &macc);
        if (st == CT_OK)
            st = var_rows(rows, O, p.count, correction, ct_tensor_data_ptr(acc),
                          macc != NULL ? ct_tensor_data_ptr(macc) : NULL);
        if (st == CT_OK) {
            double *v = ct_tensor_data_ptr(acc);
            if (cplx) /* the parts' variances summed: row 2o is the real part, 2o+1 the imaginary */
                for (int64_t o = 0; o < p.out_numel; o++)
                    v[o] = v[2 * o] + v[2 * o + 1];
            if (take_sqrt)
                for (int64_t o = 0; o < p.out_numel; o++)
                    v[o] = sqrt(v[o]);
            ct_tensor *view = NULL;
            st = ct_tensor_from_storage(acc->storage, p.out_sizes, NULL, p.out_ndim, 0, CT_FLOAT64,
                                        &view);
            if (st == CT_OK)
                st = ct_tensor_copy_(r, view);
            ct_tensor_release(view);
        }
        if (st == CT_OK && macc != NULL)
            st = ct_tensor_copy_(mr, macc);
    }
    ct_tensor_release(rows);
    ct_tensor_release(acc);
    ct_tensor_release(macc);
    if (st != CT_OK) {
        ct_tensor_release(mr);
        mr = NULL;
    }
    CT_TRY(ct_reduce_impl_finish(st, out, &keep, r, result));
    if (mean != NULL)
        *mean = mr;
    return CT_OK;
}

/* ---- norm -------------------------------------------------------------------------------- */

/* The p-norm of each row into v[O]. */
static ct_status norm_rows(const ct_tensor *rows, int64_t O, int64_t R, double p, double *v) {
    bool f64 = rows->dtype == CT_FLOAT64;
    const void *x = ct_tensor_data_ptr(rows);
    int rc = 0;
    if (R == 0) {
        for (int64_t o = 0; o < O; o++)
            v[o] = 0; /* torch.norm of nothing is 0 for every p */
        return CT_OK;
    }
    if (p == 2) {
        rc = ct_reduce_impl_pass(CT_RPASS_SQ, f64, x, O, R, 0, NULL, v, NULL);
        /* float64 squares can overflow or underflow where the norm does not: those rows
         * again, scaled by their largest |x| (float32 squares fit a double) */
        for (int64_t o = 0; rc == 0 && o < O; o++) {
            if (f64 && !(v[o] >= 0x1p-960 && v[o] <= 0x1p960) && v[o] == v[o]) {
                const char *row = (const char *)x + o * R * 8;
                double scale, s;
                rc = ct_reduce_impl_pass(CT_RPASS_ABSMAX, true, row, 1, R, 0, NULL, &scale, NULL);
                if (rc == 0 && scale > 0 && isfinite(scale)) {
                    rc = ct_reduce_impl_pass(CT_RPASS_SQSCALED, true, row, 1, R, 0, &scale, &s,
                                             NULL);
                    v[o] = scale * sqrt(s);
                } else {
                    v[o] = scale;
                }
            } else {
                v[o] = sqrt(v[o]);
            }
        }
    } else if (p == 1) {
        rc = ct_reduce_impl_pass(CT_RPASS_ABS, f64, x, O, R, 0, NULL, v, NULL);
    } else if (isinf(p)) {
        rc = ct_reduce_impl_pass(p > 0 ? CT_RPASS_ABSMAX : CT_RPASS_ABSMIN, f64, x, O, R, 0, NULL,
                                 v, NULL);
    } else if (p == 0) {
        rc = ct_reduce_impl_pass(CT_RPASS_NONZERO, f64, x, O, R, 0, NULL, v, NULL);
    } else {
        rc = ct_reduce_impl_pass(CT_RPASS_ABSPOW, f64, x, O, R, p, NULL, v, NULL);
        for (int64_t o = 0; rc == 0 && o < O; o++)
            v[o] = pow(v[o], 1.0 / p);
    }
    return rc == 0 ? CT_OK : nomem("norm");
}

static ct_status norm_once(const ct_tensor *input, double p, const int64_t *dims, int64_t ndims,
                           bool keepdim, ct_dtype dtype, ct_tensor *out, ct_tensor **result) {
    if (result == NULL || input == NULL || (ndims > 0 && dims == NULL))
        return ct_set_error(CT_ERR_MISUSE, "norm: NULL argument");
    *result = NULL;
    if (input->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "norm: only strided tensors are supported");
    ct_dtype ind = input->dtype;
    if (!is_float(ind) && !is_complex(ind))
        return ct_set_error(CT_ERR_RUNTIME,
                            "norm(): input dtype should be either floating point or complex. "
                            "Got %s instead.",
                            ct_dtype_impl_msg_name(ind));
    if (dtype != CT_DTYPE_UNDEFINED && !is_float(dtype) && !is_complex(dtype))
        return ct_set_error(CT_ERR_RUNTIME,
                            "norm(): the desired output dtype should be either floating point or "
                            "complex. Got %s instead.",
                            ct_dtype_impl_msg_name(dtype));
    ct_dtype cd = dtype != CT_DTYPE_UNDEFINED ? dtype : ind; /* computed in */
    bool ok_in = float_kernel(ind) || ind == CT_COMPLEX64 || ind == CT_COMPLEX128;
    bool ok_cd = float_kernel(cd) || cd == CT_COMPLEX64 || cd == CT_COMPLEX128;
    if (!ok_in || !ok_cd)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"norm_cpu\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(ok_in ? cd : ind));
    CT_TRY(check_device(input, "norm"));
    ct_reduce_plan pl;
    CT_TRY(ct_reduce_impl_plan(input, dims, ndims, keepdim, &pl));
    ct_dtype res = dtype != CT_DTYPE_UNDEFINED ? dtype : out != NULL ? out->dtype : real_of(ind);
    ct_tensor *r = NULL, *cast = NULL, *mag = NULL, *rows = NULL, *acc = NULL;
    ct_tensor_impl_saved keep; /* a failure after out's resize gives it its old geometry */
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = ct_reduce_impl_output(input, &pl, res, out, &r);
    if (st == CT_OK && input->device.type != CT_DEVICE_META && pl.out_numel > 0) {
        const ct_tensor *src = input;
        if (cd != ind) {
            st = ct_tensor_to_dtype(input, cd, &cast);
            src = cast;
        }
        if (st == CT_OK && is_complex(cd)) { /* |x| */
            st = ct_unary(CT_UNOP_ABS, src, &mag);
            src = mag;
        }
        if (st == CT_OK)
            st = rows_of(src, &pl, rows_dtype(src->dtype, real_of(res)), false, &rows);
        if (st == CT_OK)
            st = doubles(input, &pl, &acc);
        if (st == CT_OK)
            st = norm_rows(rows, pl.out_numel, pl.count, p, ct_tensor_data_ptr(acc));
        if (st == CT_OK)
            st = ct_tensor_copy_(r, acc);
    }
    ct_tensor_release(cast);
    ct_tensor_release(mag);
    ct_tensor_release(rows);
    ct_tensor_release(acc);
    return ct_reduce_impl_finish(st, out, &keep, r, result);
}

ct_status ct_norm_str(const ct_tensor *input, const char *p, const int64_t *dims, int64_t ndims,
                      bool keepdim, ct_dtype dtype, ct_tensor *out, ct_tensor **result) {
    if (result == NULL || input == NULL || p == NULL)
        return ct_set_error(CT_ERR_MISUSE, "norm: NULL argument");
    *result = NULL;
    if (strcmp(p, "fro") == 0) {
        if (dtype != CT_DTYPE_UNDEFINED)
            return ct_set_error(CT_ERR_VALUE, "dtype argument is not supported in frobenius norm");
        /* torch.norm passes every dim as a list when dim is None but out is given */
        int64_t all[CT_MAX_DIMS];
        if (dims == NULL && out != NULL) {
            for (int64_t d = 0; d < input->ndim; d++)
                all[d] = d;
            dims = all;
            ndims = input->ndim;
        }
        if (ndims > 2)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected at most 2 dimensions, but got %lld dimensions instead.",
                                (long long)ndims);
        return ct_norm(input, 2.0, dims, ndims, keepdim, CT_DTYPE_UNDEFINED, out, result);
    }
    if (strcmp(p, "nuc") == 0) {
        if (dtype != CT_DTYPE_UNDEFINED)
            return ct_set_error(CT_ERR_VALUE, "dtype argument is not supported in nuclear norm");
        return ct_reduce_impl_norm_nuc(input, dims, ndims, keepdim, out, result);
    }
    return ct_set_error(CT_ERR_RUNTIME, "only valid string values are 'fro' and 'nuc', found %s",
                        p);
}

/* std / var (and _mean) and norm through host memory (Note [Staging through host memory])
 * when the device has no kernel for them (complex inputs, a backend without launches). */
static ct_status std_var_staged(const ct_tensor *input, const int64_t *dims, int64_t ndims,
                                double correction, bool keepdim, bool take_sqrt, ct_tensor *out,
                                ct_tensor **result, ct_tensor **mean) {
    ct_stage s;
    ct_stage_init(&s, take_sqrt ? "std" : "var");
    int ki = ct_stage_add(&s, input, 0);
    int ko = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL, *hm = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = std_var_once(ct_stage_host(&s, ki), dims, ndims, correction, keepdim, take_sqrt,
                          ct_stage_host(&s, ko), &h, mean != NULL ? &hm : NULL);
    if (st == CT_OK)
        st = ct_stage_result(&s, h, result);
    else
        ct_tensor_release(h);
    if (st == CT_OK && mean != NULL)
        st = ct_stage_result(&s, hm, mean);
    else
        ct_tensor_release(hm);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(*result);
        *result = NULL;
        if (mean != NULL) {
            ct_tensor_release(*mean);
            *mean = NULL;
        }
    }
    return st;
}

ct_status ct_std_var(const ct_tensor *input, const int64_t *dims, int64_t ndims, double correction,
                     bool keepdim, bool take_sqrt, ct_tensor *out, ct_tensor **result,
                     ct_tensor **mean) {
    ct_status st =
        std_var_once(input, dims, ndims, correction, keepdim, take_sqrt, out, result, mean);
    if (st == CT_ERR_NOT_IMPLEMENTED && (ct_stage_wanted(input) || ct_stage_wanted(out)))
        st = std_var_staged(input, dims, ndims, correction, keepdim, take_sqrt, out, result,
                            mean);
    return st;
}

static ct_status norm_staged(const ct_tensor *input, double p, const int64_t *dims,
                             int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                             ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, "norm");
    int ki = ct_stage_add(&s, input, 0);
    int ko = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = norm_once(ct_stage_host(&s, ki), p, dims, ndims, keepdim, dtype,
                       ct_stage_host(&s, ko), &h);
    return ct_stage_finish(&s, st, h, result);
}

ct_status ct_norm(const ct_tensor *input, double p, const int64_t *dims, int64_t ndims,
                  bool keepdim, ct_dtype dtype, ct_tensor *out, ct_tensor **result) {
    ct_status st = norm_once(input, p, dims, ndims, keepdim, dtype, out, result);
    if (st == CT_ERR_NOT_IMPLEMENTED && (ct_stage_wanted(input) || ct_stage_wanted(out)))
        st = norm_staged(input, p, dims, ndims, keepdim, dtype, out, result);
    return st;
}

/* ---- aminmax ----------------------------------------------------------------------------- */

ct_status ct_aminmax(const ct_tensor *input, const int64_t *dim, bool keepdim, ct_tensor *out_min,
                     ct_tensor *out_max, ct_tensor **min, ct_tensor **max) {
    if (input == NULL || min == NULL || max == NULL)
        return ct_set_error(CT_ERR_MISUSE, "aminmax: NULL argument");
    *min = *max = NULL;
    ct_dtype ind = input->dtype;
    if (dim == NULL && input->numel == 0)
        return ct_set_error(CT_ERR_RUNTIME, "aminmax(): cannot compute aminmax over an empty "
                                            "dimension as the operation has no identity.");
    if (dim != NULL) {
        ct_reduce_plan one;
        CT_TRY(ct_reduce_impl_plan(input, dim, 1, keepdim, &one));
        if (one.count == 0)
            return ct_set_error(CT_ERR_INDEX,
                                "aminmax: Expected reduction dim %lld to have non-zero size.",
                                (long long)one.first_empty);
    }
    /* torch 1.13's whole-tensor kernel takes bfloat16, its per-dim one does not */
    if (!ct_reduce_impl_has_kernel(ind) || ind == CT_FLOAT16 || (ind == CT_BFLOAT16 && dim != NULL))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"aminmax_cpu\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(ind));
    ct_tensor *lo = NULL, *hi = NULL;
    int64_t n = dim != NULL ? 1 : 0;
    ct_status st;
    bool last = dim == NULL || input->ndim == 0 || *dim == -1 || *dim == input->ndim - 1;
    if ((ind == CT_FLOAT32 || ind == CT_FLOAT64) && last && input->numel > 0 &&
        input->device.type != CT_DEVICE_META && ct_device_impl_host_accessible(input->device.type) &&
        ct_tensor_is_contiguous(input, CT_MEMFMT_CONTIGUOUS)) {
        /* contiguous float rows: min and max in one read of the memory */
        ct_reduce_plan p;
        CT_TRY(ct_reduce_impl_plan(input, dim, n, keepdim, &p));
        st = ct_reduce_impl_output(input, &p, ind, NULL, &lo);
        if (st == CT_OK)
            st = ct_reduce_impl_output(input, &p, ind, NULL, &hi);
        if (st == CT_OK && ct_reduce_impl_minmax(ind == CT_FLOAT32 ? CT_REDT_F32 : CT_REDT_F64,
                                                 ct_tensor_data_ptr(input), p.out_numel, p.count,
                                                 ct_tensor_data_ptr(lo),
                                                 ct_tensor_data_ptr(hi)) != 0)
            st = nomem("aminmax");
    } else {
        st = ct_reduce(CT_REDUCE_AMIN, input, dim, n, keepdim, CT_DTYPE_UNDEFINED, &lo);
        if (st == CT_OK)
            st = ct_reduce(CT_REDUCE_AMAX, input, dim, n, keepdim, CT_DTYPE_UNDEFINED, &hi);
    }
    if (st == CT_OK && input->ndim == 0 && dim != NULL && keepdim) {
        /* torch 1.13 keeps the dim of a 0-dim input as size 1: shape [1] */
        int64_t one = 1;
        ct_tensor *a = NULL, *b = NULL;
        st = ct_tensor_view(lo, &one, 1, &a);
        if (st == CT_OK)
            st = ct_tensor_view(hi, &one, 1, &b);
        ct_tensor_release(lo);
        ct_tensor_release(hi);
        lo = a;
        hi = b;
        if (st != CT_OK) {
            ct_tensor_release(lo);
            ct_tensor_release(hi);
            return st;
        }
    }
    if (st == CT_OK && out_min != NULL)
        st = ct_reduce_impl_check_out(out_min, lo);
    if (st == CT_OK && out_max != NULL)
        st = ct_reduce_impl_check_out(out_max, hi);
    if (st == CT_OK && out_min != NULL) {
        st = ct_reduce_impl_fill_out(out_min, lo);
        ct_tensor_release(lo);
        lo = st == CT_OK ? ct_tensor_retain(out_min) : NULL;
    }
    if (st == CT_OK && out_max != NULL) {
        st = ct_reduce_impl_fill_out(out_max, hi);
        ct_tensor_release(hi);
        hi = st == CT_OK ? ct_tensor_retain(out_max) : NULL;
    }
    if (st != CT_OK) {
        ct_tensor_release(lo);
        ct_tensor_release(hi);
        return st;
    }
    *min = lo;
    *max = hi;
    return CT_OK;
}
