/* Differential checks of the classifications (isnan isinf isfinite isposinf isneginf
 * isreal), isclose / allclose / equal and round(decimals=) on a device against the cpu, in
 * every dtype and layout (contiguous, transposed, broadcast, sliced, one-element, 0-dim,
 * empty), with out= where the op has it and the cpu's errors. On top of launch_diff.h; used
 * by tests/unit/test_launch_classify.c (host-executed launches, CI) and
 * tests/cuda/test_cuda_kernels.c (the GPU). The results are bools, or round's values that
 * the GPU computes with the same steps: compared byte for byte. */
#ifndef CT_TESTS_LAUNCH_DIFF_CLASSIFY_H
#define CT_TESTS_LAUNCH_DIFF_CLASSIFY_H

#include "launch_diff.h"

typedef ct_status (*ldc_class_fn)(const ct_tensor *, ct_tensor **);
typedef ct_status (*ldc_class_out_fn)(const ct_tensor *, ct_tensor *);

static const struct {
    const char *name;
    ldc_class_fn fn;
    ldc_class_out_fn out_fn; /* NULL: no out= form */
} ldc_classes[] = {{"isnan", ct_isnan, NULL},
                   {"isinf", ct_isinf, NULL},
                   {"isfinite", ct_isfinite, NULL},
                   {"isposinf", ct_isposinf, ct_isposinf_out},
                   {"isneginf", ct_isneginf, ct_isneginf_out},
                   {"isreal", ct_isreal, NULL}};
#define LDC_NCLASSES (sizeof ldc_classes / sizeof ldc_classes[0])

/* The layouts: a cpu tensor and its device twin (the same layout: broadcast and sliced views
 * are made on each side). */
#define LDC_NLAYOUTS 7
static const char *const ldc_layout_names[LDC_NLAYOUTS] = {
    "contiguous", "transposed", "broadcast", "sliced", "one-element", "0-dim", "empty"};

static void ldc_layouts(ct_dtype dt, unsigned seed, ct_tensor **cpu, ct_tensor **dev) {
    int64_t s49[] = {4, 9}, s94[] = {9, 4}, s9[] = {9}, s1[] = {1}, s0[] = {0, 3},
            s4x12[] = {4, 12};
    ct_tensor *t = NULL;
    cpu[0] = ld_values(dt, s49, 2, seed, false);
    t = ld_values(dt, s94, 2, seed + 1, false);
    LD_CHECK(ct_tensor_t(t, &cpu[1]));
    ct_tensor_release(t);
    ct_tensor *row = ld_values(dt, s9, 1, seed + 2, false);
    LD_CHECK(ct_tensor_expand(row, s49, 2, &cpu[2]));
    t = ld_values(dt, s4x12, 2, seed + 3, false);
    LD_CHECK(ct_tensor_narrow(t, 1, 2, 9, &cpu[3]));
    cpu[4] = ld_values(dt, s1, 1, seed + 4, false);
    cpu[5] = ld_values(dt, NULL, 0, seed + 5, false);
    cpu[6] = ld_values(dt, s0, 2, seed + 6, false);
    for (int k = 0; k < LDC_NLAYOUTS; k++)
        if (k != 2 && k != 3)
            dev[k] = ld_to_dev(cpu[k]);
    ct_tensor *row_d = ld_to_dev(row), *t_d = ld_to_dev(t);
    LD_CHECK(ct_tensor_expand(row_d, s49, 2, &dev[2]));
    LD_CHECK(ct_tensor_narrow(t_d, 1, 2, 9, &dev[3]));
    ct_tensor_release(row);
    ct_tensor_release(row_d);
    ct_tensor_release(t);
    ct_tensor_release(t_d);
}

static void ldc_release(ct_tensor **ts, int n) {
    for (int k = 0; k < n; k++) {
        ct_tensor_release(ts[k]);
        ts[k] = NULL;
    }
}

/* Every classification of x (new and, where it exists, out= into bool and int32). */
static void ldc_classify(const char *what, const ct_tensor *x, const ct_tensor *xd) {
    char name[256], msg[1024];
    ct_dtype in = ct_tensor_dtype(x);
    for (size_t c = 0; c < LDC_NCLASSES; c++) {
        ct_tensor *r1 = NULL, *r2 = NULL;
        ct_status s1 = ldc_classes[c].fn(x, &r1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        ct_status s2 = ldc_classes[c].fn(xd, &r2);
        snprintf(name, sizeof name, "%s %s(%s)", what, ldc_classes[c].name, ct_dtype_name(in));
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, r1, r2);
        ct_tensor_release(r1);
        ct_tensor_release(r2);
        if (ldc_classes[c].out_fn == NULL)
            continue;
        static const ct_dtype outs[] = {CT_BOOL, CT_INT32};
        for (int k = 0; k < 2; k++) {
            ct_tensor *o1 = NULL, *o2 = NULL;
            LD_CHECK(ct_tensor_zeros(ct_tensor_sizes(x), ct_tensor_dim(x), outs[k], &ld_cpu,
                                     CT_LAYOUT_STRIDED, &o1));
            LD_CHECK(ct_tensor_zeros(ct_tensor_sizes(x), ct_tensor_dim(x), outs[k], &ld_device,
                                     CT_LAYOUT_STRIDED, &o2));
            s1 = ldc_classes[c].out_fn(x, o1);
            snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
            s2 = ldc_classes[c].out_fn(xd, o2);
            snprintf(name, sizeof name, "%s %s(%s, out=%s)", what, ldc_classes[c].name,
                     ct_dtype_name(in), ct_dtype_name(outs[k]));
            if (ld_same_outcome(name, s1, msg, s2))
                ld_compare(name, o1, o2);
            ct_tensor_release(o1);
            ct_tensor_release(o2);
        }
    }
}

static const struct {
    double rtol, atol;
    bool equal_nan;
} ldc_tols[] = {{1e-5, 1e-8, false}, {1e-3, 1e-2, true}, {0, 0, false}, {0.1, 1.0, true},
                {0, 0, true}};
#define LDC_NTOLS (sizeof ldc_tols / sizeof ldc_tols[0])

/* isclose(a, b) (and allclose, equal) for every tolerance set, cpu against device. */
static void ldc_isclose(const char *what, const ct_tensor *a, const ct_tensor *b,
                        const ct_tensor *ad, const ct_tensor *bd) {
    char name[256], msg[1024];
    ct_dtype da = ct_tensor_dtype(a), db = ct_tensor_dtype(b);
    for (size_t k = 0; k < LDC_NTOLS; k++) {
        ct_tensor *r1 = NULL, *r2 = NULL;
        double rt = ldc_tols[k].rtol, at = ldc_tols[k].atol;
        bool en = ldc_tols[k].equal_nan;
        ct_status s1 = ct_isclose(a, b, rt, at, en, &r1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        ct_status s2 = ct_isclose(ad, bd, rt, at, en, &r2);
        snprintf(name, sizeof name, "%s isclose(%s, %s, rtol=%g, atol=%g, equal_nan=%d)", what,
                 ct_dtype_name(da), ct_dtype_name(db), rt, at, (int)en);
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, r1, r2);
        ct_tensor_release(r1);
        ct_tensor_release(r2);
        bool v1 = false, v2 = false;
        s1 = ct_allclose(a, b, rt, at, en, &v1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_allclose(ad, bd, rt, at, en, &v2);
        snprintf(name, sizeof name, "%s allclose(%s, %s, rtol=%g, atol=%g, equal_nan=%d)", what,
                 ct_dtype_name(da), ct_dtype_name(db), rt, at, (int)en);
        if (ld_same_outcome(name, s1, msg, s2) && v1 != v2) {
            printf("DIFF %s: cpu %d, device %d\n", name, (int)v1, (int)v2);
            ld_failures++;
        }
    }
    bool v1 = false, v2 = false;
    ct_status s1 = ct_equal(a, b, &v1);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_equal(ad, bd, &v2);
    snprintf(name, sizeof name, "%s equal(%s, %s)", what, ct_dtype_name(da), ct_dtype_name(db));
    if (ct_tensor_device(ad).type != ct_tensor_device(bd).type) {
        /* (a cpu scalar beside a device tensor: equal refuses mixed devices) */
        ld_checks++;
        if (s2 == CT_OK) {
            printf("DIFF %s: mixed devices accepted\n", name);
            ld_failures++;
        }
    } else if (ld_same_outcome(name, s1, msg, s2) && v1 != v2) {
        printf("DIFF %s: cpu %d, device %d\n", name, (int)v1, (int)v2);
        ld_failures++;
    }
}

/* b: a scaled by (1 + 1e-4) in the default dtype and brought back to a's dtype (near, but
 * not always equal). */
static ct_tensor *ldc_near(const ct_tensor *a) {
    ct_tensor *w = NULL, *m = NULL, *b = NULL;
    LD_CHECK(ct_tensor_wrapped_number(ct_scalar_float(1.0001), &w));
    ct_status st = ct_binary(CT_OP_MUL, a, w, ct_scalar_int(1), &m);
    if (st != CT_OK) /* (bool * float: use a itself) */
        LD_CHECK(ct_tensor_clone(a, CT_MEMFMT_PRESERVE, &m));
    LD_CHECK(ct_tensor_to_dtype(m, ct_tensor_dtype(a), &b));
    ct_tensor_release(w);
    ct_tensor_release(m);
    return b;
}

/* round(x, decimals=d): new, out= (float64 and x's dtype), in place. */
static void ldc_round(const char *what, const ct_tensor *x, const ct_tensor *xd, int64_t d) {
    char name[256], msg[1024];
    ct_dtype in = ct_tensor_dtype(x);
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1 = ct_round_decimals(x, d, &r1);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_round_decimals(xd, d, &r2);
    snprintf(name, sizeof name, "%s round(%s, decimals=%lld)", what, ct_dtype_name(in),
             (long long)d);
    if (ld_same_outcome(name, s1, msg, s2))
        ld_compare(name, r1, r2);
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    const ct_dtype outs[] = {CT_FLOAT64, in};
    for (int k = 0; k < 2; k++) {
        ct_tensor *o1 = NULL, *o2 = NULL;
        LD_CHECK(ct_tensor_zeros(ct_tensor_sizes(x), ct_tensor_dim(x), outs[k], &ld_cpu,
                                 CT_LAYOUT_STRIDED, &o1));
        LD_CHECK(ct_tensor_zeros(ct_tensor_sizes(x), ct_tensor_dim(x), outs[k], &ld_device,
                                 CT_LAYOUT_STRIDED, &o2));
        s1 = ct_round_decimals_out(x, d, o1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_round_decimals_out(xd, d, o2);
        snprintf(name, sizeof name, "%s round(%s, decimals=%lld, out=%s)", what,
                 ct_dtype_name(in), (long long)d, ct_dtype_name(outs[k]));
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, o1, o2);
        ct_tensor_release(o1);
        ct_tensor_release(o2);
    }
    ct_tensor *i1 = NULL, *i2 = NULL;
    LD_CHECK(ct_tensor_clone(x, CT_MEMFMT_CONTIGUOUS, &i1));
    LD_CHECK(ct_tensor_clone(xd, CT_MEMFMT_CONTIGUOUS, &i2));
    s1 = ct_round_decimals_(i1, d);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    s2 = ct_round_decimals_(i2, d);
    snprintf(name, sizeof name, "%s round_(%s, decimals=%lld)", what, ct_dtype_name(in),
             (long long)d);
    if (ld_same_outcome(name, s1, msg, s2))
        ld_compare(name, i1, i2);
    ct_tensor_release(i1);
    ct_tensor_release(i2);
}

/* Every op of this header on one dtype in every layout. */
static void ldc_dtype(ct_dtype dt, unsigned seed) {
    ct_tensor *cpu[LDC_NLAYOUTS] = {NULL}, *dev[LDC_NLAYOUTS] = {NULL};
    ldc_layouts(dt, seed, cpu, dev);
    static const int64_t decimals[] = {1, 2, 3, -1, -2};
    for (int k = 0; k < LDC_NLAYOUTS; k++) {
        const char *what = ldc_layout_names[k];
        ldc_classify(what, cpu[k], dev[k]);
        ct_tensor *b = ldc_near(cpu[k]), *bd = ld_to_dev(b);
        ldc_isclose(what, cpu[k], b, dev[k], bd);   /* near */
        ldc_isclose(what, cpu[k], cpu[k], dev[k], dev[k]); /* itself (NaN vs NaN) */
        ct_tensor_release(b);
        ct_tensor_release(bd);
        for (size_t d = 0; d < sizeof decimals / sizeof decimals[0]; d++)
            ldc_round(what, cpu[k], dev[k], decimals[d]);
    }
    /* against another layout (broadcast b, transposed a) and a 0-dim cpu b joining */
    ldc_isclose("transposed x broadcast", cpu[1], cpu[2], dev[1], dev[2]);
    ldc_isclose("cpu scalar b", cpu[0], cpu[5], dev[0], cpu[5]);
    ldc_release(cpu, LDC_NLAYOUTS);
    ldc_release(dev, LDC_NLAYOUTS);
}

static void ldc_all(void) {
    for (int k = 0; k < LD_N_ARITH; k++)
        ldc_dtype(ld_arith[k], (unsigned)(k * 13 + 5));
}

/* The cpu's errors: mixed dtypes, negative tolerances, isposinf of complex and into a
 * non-bool out=, round(decimals=) of integers. */
static void ldc_errors(void) {
    int64_t s[] = {3};
    ct_tensor *f = ld_values(CT_FLOAT32, s, 1, 1, false), *i = ld_values(CT_INT32, s, 1, 2, false);
    ct_tensor *fd = ld_to_dev(f), *id = ld_to_dev(i);
    ldc_isclose("mixed dtypes", f, i, fd, id);
    char msg[1024];
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1 = ct_isclose(f, f, -1.0, 0.0, false, &r1);
    snprintf(msg, sizeof msg, "%s", ct_last_error());
    ct_status s2 = ct_isclose(fd, fd, -1.0, 0.0, false, &r2);
    ld_same_outcome("isclose rtol < 0", s1, msg, s2);
    assert_int_not_equal(s1, CT_OK);
    s1 = ct_isclose(f, f, 0.0, -1.0, false, &r1);
    snprintf(msg, sizeof msg, "%s", ct_last_error());
    s2 = ct_isclose(fd, fd, 0.0, -1.0, false, &r2);
    ld_same_outcome("isclose atol < 0", s1, msg, s2);
    ct_tensor_release(f);
    ct_tensor_release(i);
    ct_tensor_release(fd);
    ct_tensor_release(id);
}

#endif /* CT_TESTS_LAUNCH_DIFF_CLASSIFY_H */
