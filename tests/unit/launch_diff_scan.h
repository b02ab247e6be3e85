/* Differential checks of cumsum / cumprod on a device (SCAN launches) against the cpu: every
 * dtype x op x layout (contiguous, transposed, broadcast, sliced, one-element, 0-dim, empty)
 * x dim, with dtype=, out= (contiguous and transposed) and in place, and the cpu's errors.
 * On top of launch_diff.h; used by tests/unit/test_launch_scan.c (host-executed launches,
 * CI) and tests/cuda/test_cuda_kernels.c (the GPU). The device scans in the cpu's order with
 * the cpu's steps (src/kernels/scan_elem.h): compared byte for byte. */
#ifndef CT_TESTS_LAUNCH_DIFF_SCAN_H
#define CT_TESTS_LAUNCH_DIFF_SCAN_H

#include "launch_diff.h"

/* op(x, dim, dtype) new, out= into `out_dt` (transposed when out_t and x is 2-d), and in
 * place on a clone of x (when dtype is UNDEFINED). */
static void lds_one(const char *what, bool prod, const ct_tensor *x, const ct_tensor *xd,
                    int64_t dim, ct_dtype dtype, ct_dtype out_dt, bool out_t) {
    char name[256], msg[1024];
    const char *op = prod ? "cumprod" : "cumsum";
    ct_dtype in = ct_tensor_dtype(x);
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1 = ct_cumulative(prod, x, dim, dtype, NULL, &r1);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_cumulative(prod, xd, dim, dtype, NULL, &r2);
    snprintf(name, sizeof name, "%s %s(%s, dim=%lld, dtype=%s)", what, op, ct_dtype_name(in),
             (long long)dim, dtype == CT_DTYPE_UNDEFINED ? "-" : ct_dtype_name(dtype));
    if (ld_same_outcome(name, s1, msg, s2))
        ld_compare(name, r1, r2);
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    if (out_dt != CT_DTYPE_UNDEFINED) {
        ct_tensor *o1 = NULL, *o2 = NULL;
        int64_t nd = ct_tensor_dim(x);
        const int64_t *sz = ct_tensor_sizes(x);
        if (out_t && nd == 2) {
            int64_t rs[2] = {sz[1], sz[0]};
            ct_tensor *b1 = NULL, *b2 = NULL;
            LD_CHECK(ct_tensor_zeros(rs, 2, out_dt, &ld_cpu, CT_LAYOUT_STRIDED, &b1));
            LD_CHECK(ct_tensor_zeros(rs, 2, out_dt, &ld_device, CT_LAYOUT_STRIDED, &b2));
            LD_CHECK(ct_tensor_t(b1, &o1));
            LD_CHECK(ct_tensor_t(b2, &o2));
            ct_tensor_release(b1);
            ct_tensor_release(b2);
        } else {
            LD_CHECK(ct_tensor_zeros(sz, nd, out_dt, &ld_cpu, CT_LAYOUT_STRIDED, &o1));
            LD_CHECK(ct_tensor_zeros(sz, nd, out_dt, &ld_device, CT_LAYOUT_STRIDED, &o2));
        }
        ct_tensor *k1 = NULL, *k2 = NULL;
        s1 = ct_cumulative(prod, x, dim, dtype, o1, &k1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_cumulative(prod, xd, dim, dtype, o2, &k2);
        snprintf(name, sizeof name, "%s %s(%s, dim=%lld, out=%s%s)", what, op, ct_dtype_name(in),
                 (long long)dim, ct_dtype_name(out_dt), out_t ? " transposed" : "");
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, o1, o2);
        ct_tensor_release(k1);
        ct_tensor_release(k2);
        ct_tensor_release(o1);
        ct_tensor_release(o2);
    }
    if (dtype == CT_DTYPE_UNDEFINED) {
        ct_tensor *i1 = NULL, *i2 = NULL;
        LD_CHECK(ct_tensor_clone(x, CT_MEMFMT_PRESERVE, &i1));
        LD_CHECK(ct_tensor_clone(xd, CT_MEMFMT_PRESERVE, &i2));
        s1 = ct_cumulative_(prod, i1, dim, CT_DTYPE_UNDEFINED);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_cumulative_(prod, i2, dim, CT_DTYPE_UNDEFINED);
        snprintf(name, sizeof name, "%s %s_(%s, dim=%lld)", what, op, ct_dtype_name(in),
                 (long long)dim);
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, i1, i2);
        ct_tensor_release(i1);
        ct_tensor_release(i2);
    }
}

/* Both ops over every dim of x (and one out-of-range dim: the cpu's error). */
static void lds_dims(const char *what, const ct_tensor *x, const ct_tensor *xd, bool outs) {
    int64_t nd = ct_tensor_dim(x);
    for (int p = 0; p < 2; p++) {
        for (int64_t d = -1; d < (nd > 0 ? nd : 1); d++) {
            ct_dtype out_dt = outs ? CT_FLOAT32 : CT_DTYPE_UNDEFINED;
            lds_one(what, p == 1, x, xd, d, CT_DTYPE_UNDEFINED, out_dt, false);
            if (outs && d == 0) {
                lds_one(what, p == 1, x, xd, d, CT_FLOAT64, CT_FLOAT64, true);
                lds_one(what, p == 1, x, xd, d, CT_INT64, CT_INT64, false);
                lds_one(what, p == 1, x, xd, d, CT_COMPLEX64, CT_DTYPE_UNDEFINED, false);
                lds_one(what, p == 1, x, xd, d, CT_FLOAT16, CT_DTYPE_UNDEFINED, false);
                lds_one(what, p == 1, x, xd, d, CT_DTYPE_UNDEFINED, CT_BFLOAT16, false);
            }
        }
        lds_one(what, p == 1, x, xd, nd + 1, CT_DTYPE_UNDEFINED, CT_DTYPE_UNDEFINED, false);
    }
}

static void lds_dtype(ct_dtype dt, unsigned seed) {
    int64_t s345[] = {3, 4, 5}, s75[] = {7, 5}, s57[] = {5, 7}, s7[] = {7}, s1[] = {1},
            s0[] = {0, 3}, s5x9[] = {5, 9};
    ct_tensor *a = ld_values(dt, s345, 3, seed, false), *ad = ld_to_dev(a);
    lds_dims("contiguous", a, ad, true);
    ct_tensor *t = ld_values(dt, s57, 2, seed + 1, false), *td = ld_to_dev(t);
    ct_tensor *at = NULL, *atd = NULL;
    LD_CHECK(ct_tensor_t(t, &at));
    LD_CHECK(ct_tensor_t(td, &atd));
    lds_dims("transposed", at, atd, true);
    ct_tensor *row = ld_values(dt, s7, 1, seed + 2, false), *rowd = ld_to_dev(row);
    ct_tensor *bc = NULL, *bcd = NULL;
    int64_t s47[] = {4, 7};
    LD_CHECK(ct_tensor_expand(row, s47, 2, &bc));
    LD_CHECK(ct_tensor_expand(rowd, s47, 2, &bcd));
    lds_dims("broadcast", bc, bcd, false);
    ct_tensor *w = ld_values(dt, s5x9, 2, seed + 3, false), *wd = ld_to_dev(w);
    ct_tensor *sl = NULL, *sld = NULL;
    LD_CHECK(ct_tensor_narrow(w, 1, 1, 7, &sl));
    LD_CHECK(ct_tensor_narrow(wd, 1, 1, 7, &sld));
    lds_dims("sliced", sl, sld, false);
    ct_tensor *one = ld_values(dt, s1, 1, seed + 4, false), *oned = ld_to_dev(one);
    lds_dims("one-element", one, oned, false);
    ct_tensor *z = ld_values(dt, NULL, 0, seed + 5, false), *zd = ld_to_dev(z);
    lds_dims("0-dim", z, zd, false);
    ct_tensor *e = ld_values(dt, s0, 2, seed + 6, false), *ed = ld_to_dev(e);
    lds_dims("empty", e, ed, false);
    ct_tensor *col = ld_values(dt, s75, 2, seed + 7, false), *cold = ld_to_dev(col);
    lds_dims("columns", col, cold, false);
    ct_tensor *objs[] = {a, ad, t, td, at, atd, row, rowd, bc, bcd, w, wd, sl, sld,
                         one, oned, z, zd, e, ed, col, cold};
    for (size_t k = 0; k < sizeof objs / sizeof objs[0]; k++)
        ct_tensor_release(objs[k]);
}

static void lds_all(void) {
    for (int k = 0; k < LD_N_ARITH; k++)
        lds_dtype(ld_arith[k], (unsigned)(k * 11 + 7));
}

/* Long lines and many lines (the GPU's grid of line threads). */
static void lds_big(int64_t n) {
    static const ct_dtype dts[] = {CT_FLOAT32, CT_INT64, CT_FLOAT64, CT_BFLOAT16};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        int64_t s[2] = {n / 64, 64};
        ct_tensor *a = ld_values(dts[k], s, 2, (unsigned)k + 90, false), *ad = ld_to_dev(a);
        for (int p = 0; p < 2; p++)
            for (int64_t d = 0; d < 2; d++)
                lds_one("big", p == 1, a, ad, d, CT_DTYPE_UNDEFINED, CT_DTYPE_UNDEFINED, false);
        ct_tensor_release(a);
        ct_tensor_release(ad);
    }
}

#endif /* CT_TESTS_LAUNCH_DIFF_SCAN_H */
