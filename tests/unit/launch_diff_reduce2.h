/* Differential checks against the cpu of the reductions whose REDUCE launches carry more
 * than one number per accumulator (backend.h CT_LAUNCH_RED_ARGMAX ..): max / min with a dim
 * (values and indices), argmax / argmin (with and without a dim), var / std (correction,
 * var_mean / std_mean), nanmean and logsumexp, for every dtype x layout of
 * launch_diff_reduce.h x dims x keepdim, out=, NaN / infinity / ties, and the errors.
 * Indices and arg values compare bit for bit; var, std, nanmean and logsumexp within
 * LR2_ULPS ulps of the result dtype (a tree of Welford / Chan or rescaled partials here, two
 * passes on the cpu). Shared by tests/unit/test_launch_reduce.c and
 * tests/cuda/test_cuda_kernels.c. */
#ifndef CT_TESTS_LAUNCH_DIFF_REDUCE2_H
#define CT_TESTS_LAUNCH_DIFF_REDUCE2_H

#include "launch_diff_reduce.h"

#define LR2_ULPS 8

static void lr2_dimtxt(char *buf, size_t n, const int64_t *dims, int64_t ndims) {
    if (dims == NULL) {
        snprintf(buf, n, "None");
        return;
    }
    int w = snprintf(buf, n, "(");
    for (int64_t k = 0; k < ndims && (size_t)w < n; k++)
        w += snprintf(buf + w, n - (size_t)w, "%lld,", (long long)dims[k]);
    if ((size_t)w < n)
        snprintf(buf + w, n - (size_t)w, ")");
}

/* max / min (with_values, dim given) or argmax / argmin on the cpu and the device; out:
 * also through the out= forms (into empty tensors, resized). */
static void lr2_arg_case(const char *what, bool is_max, bool with_values, const ct_tensor *x,
                         const ct_tensor *xd, const int64_t *dim, bool keepdim, bool out) {
    char name[320], msg[1024], dt[64];
    lr2_dimtxt(dt, sizeof dt, dim, dim != NULL ? 1 : 0);
    snprintf(name, sizeof name, "%s %s(%s, dim=%s, keepdim=%d%s)", what,
             with_values ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin"),
             ct_dtype_name(ct_tensor_dtype(x)), dt, (int)keepdim, out ? ", out=" : "");
    ct_tensor *v1 = NULL, *i1 = NULL, *v2 = NULL, *i2 = NULL;
    ct_status s1, s2;
    if (out) {
        int64_t zero = 0;
        LD_CHECK(ct_tensor_empty(&zero, 1, ct_tensor_dtype(x), &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &v1));
        LD_CHECK(ct_tensor_empty(&zero, 1, CT_INT64, &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &i1));
        LD_CHECK(ct_tensor_empty(&zero, 1, ct_tensor_dtype(x), &ld_device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &v2));
        LD_CHECK(ct_tensor_empty(&zero, 1, CT_INT64, &ld_device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &i2));
    }
    if (with_values) {
        s1 = out ? (is_max ? ct_max_dim_out : ct_min_dim_out)(x, *dim, keepdim, v1, i1)
                 : (is_max ? ct_max_dim : ct_min_dim)(x, *dim, keepdim, &v1, &i1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = out ? (is_max ? ct_max_dim_out : ct_min_dim_out)(xd, *dim, keepdim, v2, i2)
                 : (is_max ? ct_max_dim : ct_min_dim)(xd, *dim, keepdim, &v2, &i2);
    } else {
        s1 = out ? (is_max ? ct_argmax_out : ct_argmin_out)(x, dim, keepdim, i1)
                 : (is_max ? ct_argmax : ct_argmin)(x, dim, keepdim, &i1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = out ? (is_max ? ct_argmax_out : ct_argmin_out)(xd, dim, keepdim, i2)
                 : (is_max ? ct_argmax : ct_argmin)(xd, dim, keepdim, &i2);
    }
    if (ld_same_outcome(name, s1, msg, s2)) {
        ld_compare(name, i1, i2);
        if (with_values)
            ld_compare(name, v1, v2);
    }
    ct_tensor_release(v1);
    ct_tensor_release(i1);
    ct_tensor_release(v2);
    ct_tensor_release(i2);
}

/* var / std (with_mean: var_mean / std_mean) and, when out_dtype is given, into an out=. */
static void lr2_var_case(const char *what, bool take_sqrt, bool with_mean, const ct_tensor *x,
                         const ct_tensor *xd, const int64_t *dims, int64_t ndims,
                         double correction, bool keepdim, ct_dtype out_dtype) {
    char name[320], msg[1024], dt[64];
    lr2_dimtxt(dt, sizeof dt, dims, ndims);
    snprintf(name, sizeof name, "%s %s%s(%s, dim=%s, correction=%g, keepdim=%d, out=%s)", what,
             take_sqrt ? "std" : "var", with_mean ? "_mean" : "",
             ct_dtype_name(ct_tensor_dtype(x)), dt, correction, (int)keepdim,
             out_dtype != CT_DTYPE_UNDEFINED ? ct_dtype_name(out_dtype) : "None");
    ct_tensor *o1 = NULL, *o2 = NULL, *r1 = NULL, *r2 = NULL, *m1 = NULL, *m2 = NULL;
    if (out_dtype != CT_DTYPE_UNDEFINED) {
        int64_t zero = 0;
        LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &o1));
        LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &o2));
    }
    ct_status s1 = ct_std_var(x, dims, ndims, correction, keepdim, take_sqrt, o1, &r1,
                              with_mean ? &m1 : NULL);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_std_var(xd, dims, ndims, correction, keepdim, take_sqrt, o2, &r2,
                              with_mean ? &m2 : NULL);
    if (ld_same_outcome(name, s1, msg, s2)) {
        ld_ulps = LR2_ULPS;
        ld_compare(name, r1, r2);
        if (with_mean)
            ld_compare(name, m1, m2);
        ld_ulps = 0;
    }
    ct_tensor_release(o1);
    ct_tensor_release(o2);
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    ct_tensor_release(m1);
    ct_tensor_release(m2);
}

/* logsumexp / nanmean within LR2_ULPS (lr_case compares them with ld_ulps set). */
static void lr2_stat_case(const char *what, ct_reduce_op op, const ct_tensor *x,
                          const ct_tensor *xd, const int64_t *dims, int64_t ndims, bool keepdim,
                          ct_dtype out_dtype) {
    /* logsumexp's max + log(sum) cancels where the result is far below the max: the
     * rounding of the two terms is an ulp of the max, many of a float64 result */
    ld_ulps = op == CT_REDUCE_LOGSUMEXP && (ct_tensor_dtype(x) == CT_FLOAT64 ||
                                            out_dtype == CT_FLOAT64)
                  ? 64
                  : LR2_ULPS;
    lr_case(what, op, x, xd, dims, ndims, keepdim, CT_DTYPE_UNDEFINED, out_dtype, false);
    ld_ulps = 0;
}

/* Every op x layout x dims x keepdim for one dtype, plain and with NaN / infinities. */
static void lr2_dtype_all(ct_dtype dt, unsigned seed) {
    static const int64_t d0[] = {0}, dm1[] = {-1}, d1[] = {1}, d2[] = {2}, d3[] = {3},
                         d02[] = {0, 2}, d1m1[] = {1, -1}, d012[] = {0, 1, 2}, d13[] = {1, 3};
    struct {
        const int64_t *dims;
        int64_t n;
        int min_ndim;
    } dl[] = {{NULL, 0, 0}, {d0, 1, 0}, {dm1, 1, 0}, {d1, 1, 2}, {d2, 1, 3}, {d3, 1, 4},
              {d02, 2, 3},  {d1m1, 2, 3}, {d012, 3, 3}, {d13, 2, 4}};
    bool fl = !ld_is_int(dt) && dt != CT_COMPLEX64 && dt != CT_UINT16;
    for (int lay = 0; lay < LR_NLAYOUTS; lay++) {
        for (int sp = 0; sp < (fl ? 2 : 1); sp++) {
            ct_tensor *b = lr_base((lr_layout)lay, dt, seed + (unsigned)lay, false, sp == 1);
            ct_tensor *bd = ld_to_dev(b);
            ct_tensor *x = lr_view((lr_layout)lay, b), *xd = lr_view((lr_layout)lay, bd);
            int nd = (int)ct_tensor_dim(x);
            char what[64];
            snprintf(what, sizeof what, "reduce2 %s%s", lr_layout_names[lay],
                     sp == 1 ? " specials" : "");
            for (size_t k = 0; k < sizeof dl / sizeof dl[0]; k++) {
                if (nd < dl[k].min_ndim || (nd == 0 && dl[k].dims != NULL &&
                                            dl[k].dims[0] != 0 && dl[k].dims[0] != -1))
                    continue;
                for (int kd = 0; kd < 2; kd++) {
                    bool keep = kd == 1;
                    if (dl[k].n <= 1) {
                        for (int mx = 0; mx < 2; mx++) {
                            lr2_arg_case(what, mx == 1, false, x, xd, dl[k].dims, keep, false);
                            if (dl[k].dims != NULL)
                                lr2_arg_case(what, mx == 1, true, x, xd, dl[k].dims, keep,
                                             false);
                        }
                    }
                    if (dt == CT_COMPLEX64) /* refused on launch devices (test_launch_reduce) */
                        continue;
                    lr2_var_case(what, false, false, x, xd, dl[k].dims, dl[k].n, 1.0, keep,
                                 CT_DTYPE_UNDEFINED);
                    lr2_var_case(what, true, true, x, xd, dl[k].dims, dl[k].n, 0.0, keep,
                                 CT_DTYPE_UNDEFINED);
                    lr2_stat_case(what, CT_REDUCE_LOGSUMEXP, x, xd, dl[k].dims, dl[k].n, keep,
                                  CT_DTYPE_UNDEFINED);
                    lr2_stat_case(what, CT_REDUCE_NANMEAN, x, xd, dl[k].dims, dl[k].n, keep,
                                  CT_DTYPE_UNDEFINED);
                }
            }
            if (lay == LR_CONTIG || lay == LR_TRANSPOSED) { /* out= and corrections */
                for (int mx = 0; mx < 2; mx++) {
                    lr2_arg_case(what, mx == 1, true, x, xd, d1, false, true);
                    lr2_arg_case(what, mx == 1, false, x, xd, dm1, true, true);
                    lr2_arg_case(what, mx == 1, false, x, xd, NULL, false, true);
                }
                if (dt == CT_COMPLEX64)
                    goto next;
                lr2_var_case(what, false, true, x, xd, d1, 1, 2.5, false, CT_DTYPE_UNDEFINED);
                lr2_var_case(what, true, false, x, xd, d0, 1, 5.0, true, CT_DTYPE_UNDEFINED);
                lr2_var_case(what, false, false, x, xd, dm1, 1, 1.0, false, CT_FLOAT64);
                lr2_var_case(what, true, false, x, xd, NULL, 0, 1.0, false, CT_FLOAT16);
                lr2_stat_case(what, CT_REDUCE_LOGSUMEXP, x, xd, d1, 1, false, CT_FLOAT64);
                lr2_stat_case(what, CT_REDUCE_NANMEAN, x, xd, d1, 1, false, CT_FLOAT64);
            }
        next:
            ct_tensor_release(x);
            ct_tensor_release(xd);
            ct_tensor_release(b);
            ct_tensor_release(bd);
        }
    }
}

static void lr2_all(void) {
    for (size_t t = 0; t < LR_NDTYPES; t++)
        lr2_dtype_all(lr_dtypes[t], (unsigned)t + 3);
}

#endif /* CT_TESTS_LAUNCH_DIFF_REDUCE2_H */
