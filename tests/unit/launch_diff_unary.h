/* Differential checks of the unary ops (ctensor/unary.def) on a device against the cpu, on
 * top of launch_diff.h: every op x every dtype of ld_arith x layouts (contiguous, transposed,
 * broadcast input, 0-dim, one element, empty, a non-contiguous output), the new-result,
 * out= and in-place forms, and the errors (same status and message as the cpu). Where the
 * device has no kernel for a complex op (src/kernels/unary_plan.h: only neg, positive, abs,
 * sgn and logical_not run on complex) it must refuse with
 * "\"<op>\" not implemented for 'ComplexFloat'" where the cpu computes.
 *
 * ldu_ulps: 0 compares bytes (the host-executed launches against the cpu at the baseline ISA
 * level, whose loops are the same element functions); the GPU sets a tolerance in units in
 * the last place of the result dtype for the ops that call libm functions (ldu_inexact),
 * whose CUDA versions may differ from glibc's. */
#ifndef CT_TESTS_LAUNCH_DIFF_UNARY_H
#define CT_TESTS_LAUNCH_DIFF_UNARY_H

#include "launch_diff.h"

static int ldu_ulps;    /* tolerance for ldu_inexact ops; 0: bytes */
static long ldu_staged; /* ops the device has no kernel for, run through the host */

/* The ops whose results come from libm functions (exp, sin, hypot, ...): everything but
 * the exact ones (sqrt and divisions are correctly rounded on both devices). */
static bool ldu_inexact(ct_unop op, ct_dtype in) {
    switch (op) {
    case CT_UNOP_NEG:
    case CT_UNOP_POSITIVE:
    case CT_UNOP_SIGN:
    case CT_UNOP_FLOOR:
    case CT_UNOP_CEIL:
    case CT_UNOP_TRUNC:
    case CT_UNOP_FRAC:
    case CT_UNOP_ROUND:
    case CT_UNOP_RECIPROCAL:
    case CT_UNOP_LOGICAL_NOT:
    case CT_UNOP_BITWISE_NOT:
    case CT_UNOP_SQRT:
    case CT_UNOP_RSQRT:
        return false;
    case CT_UNOP_ABS:
    case CT_UNOP_SGN:
        return ct_dtype_is_complex(in); /* hypot */
    default:
        return true;
    }
}

/* Whether the device has a kernel for op on a complex computation (unary_plan.h). */
static bool ldu_device_complex_ok(ct_unop op) {
    return op == CT_UNOP_NEG || op == CT_UNOP_POSITIVE || op == CT_UNOP_ABS || op == CT_UNOP_SGN ||
           op == CT_UNOP_LOGICAL_NOT;
}

/* The real dtype of a complex one (the dtype itself otherwise). */
static ct_dtype ldu_real_of(ct_dtype d) {
    return d == CT_COMPLEX32    ? CT_FLOAT16
           : d == CT_COMPLEX64  ? CT_FLOAT32
           : d == CT_COMPLEX128 ? CT_FLOAT64
                                : d;
}

/* The stored mantissa bits of a floating dtype; 0 for the others. */
static int ldu_mantissa_bits(ct_dtype d) {
    return d == CT_FLOAT16    ? 10
           : d == CT_BFLOAT16 ? 7
           : d == CT_FLOAT32  ? 23
           : d == CT_FLOAT64  ? 52
                              : 0;
}

/* a and b (doubles of a result dtype dt) within n units in the last place of dt. */
static bool ldu_close(ct_dtype dt, double a, double b, int n) {
    if (a == b || (isnan(a) && isnan(b)))
        return true;
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
        return false;
    int mant = ldu_mantissa_bits(dt);
    int emin = dt == CT_FLOAT16 ? -14 : dt == CT_FLOAT64 ? -1022 : -126;
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    int e;
    (void)frexp(m, &e);
    e -= 1; /* m in [2^e, 2^(e+1)) */
    if (e < emin)
        e = emin;
    return fabs(a - b) <= n * ldexp(1.0, e - mant);
}

/* ld_compare, or within ldu_ulps for an inexact op. */
static void ldu_compare(const char *what, ct_unop op, ct_dtype in, const ct_tensor *want,
                        const ct_tensor *got_any) {
    ct_dtype dt = ct_tensor_dtype(want);
    bool expanded = false; /* positive(x) is x itself: an expanded x stays expanded */
    for (int64_t d = 0; d < ct_tensor_dim(want); d++)
        expanded = expanded || (ct_tensor_strides(want)[d] == 0 && ct_tensor_sizes(want)[d] > 1);
    if (expanded) {
        ct_tensor *wc = NULL, *gh = NULL, *gc = NULL;
        LD_CHECK(ct_tensor_contiguous(want, CT_MEMFMT_CONTIGUOUS, &wc));
        LD_CHECK(ct_tensor_to_device(got_any, ld_cpu, &gh));
        LD_CHECK(ct_tensor_contiguous(gh, CT_MEMFMT_CONTIGUOUS, &gc));
        ldu_compare(what, op, in, wc, gc);
        ct_tensor_release(wc);
        ct_tensor_release(gh);
        ct_tensor_release(gc);
        return;
    }
    if (ldu_ulps == 0 || !ldu_inexact(op, in) || ld_is_int(dt)) {
        ld_compare(what, want, got_any);
        return;
    }
    ld_checks++;
    ct_tensor *got = NULL;
    LD_CHECK(ct_tensor_to_device(got_any, ld_cpu, &got));
    if (dt != ct_tensor_dtype(got) || ct_tensor_numel(want) != ct_tensor_numel(got)) {
        printf("DIFF %s: dtype or shape differs\n", what);
        ld_failures++;
        ct_tensor_release(got);
        return;
    }
    /* a complex result's parts are judged in its real dtype; a float or complex input
     * narrower than the result was computed in its own precision and then widened (abs of
     * complex64 into a float64 out= is a float32 hypot), so ulps count in that precision */
    ct_dtype part = ldu_real_of(dt), in_part = ldu_real_of(in);
    if (ldu_mantissa_bits(in_part) > 0 && ldu_mantissa_bits(in_part) < ldu_mantissa_bits(part))
        part = in_part;
    for (int64_t i = 0; i < ct_tensor_numel(want); i++) {
        unsigned char x[16], y[16];
        ct_complex128 a, b;
        ld_element(want, i, x);
        ld_element(got, i, y);
        LD_CHECK(ct_convert(CT_COMPLEX128, &a, dt, x, 1));
        LD_CHECK(ct_convert(CT_COMPLEX128, &b, dt, y, 1));
        if (!ldu_close(part, a.re, b.re, ldu_ulps) || !ldu_close(part, a.im, b.im, ldu_ulps)) {
            printf("DIFF %s (%s): element %lld: cpu %.17g%+.17gj, device %.17g%+.17gj "
                   "(over %d ulps)\n",
                   what, ct_dtype_name(dt), (long long)i, a.re, a.im, b.re, b.im, ldu_ulps);
            ld_failures++;
            break;
        }
    }
    ct_tensor_release(got);
}

/* The device's outcome against the cpu's: the same. A complex op without a device kernel is
 * refused by the device and runs through host memory (counted in ldu_staged; nothing is
 * launched for an empty tensor). Returns whether both succeeded. */
static bool ldu_outcome(const char *what, ct_unop op, ct_dtype in, int64_t numel, ct_status want,
                        const char *want_msg, ct_status got) {
    if (want == CT_OK && ct_dtype_is_complex(in) && !ldu_device_complex_ok(op) && numel > 0)
        ldu_staged++;
    return ld_same_outcome(what, want, want_msg, got);
}

/* op(x) new, out= (each of outs, shaped like x: contiguous, or transposed when x is 2-d and
 * out_t), and in place on clones of x. */
static void ldu_unary_dev(const char *what, ct_unop op, const ct_tensor *x, const ct_tensor *x_dev,
                          const ct_dtype *outs, int nouts, bool out_t) {
    char name[256], msg[1024];
    ct_dtype in = ct_tensor_dtype(x);
    ct_tensor *xd = x_dev != NULL ? ct_tensor_retain((ct_tensor *)x_dev) : ld_to_dev(x);
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1 = ct_unary(op, x, &r1);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_unary(op, xd, &r2);
    snprintf(name, sizeof name, "%s %s(%s)", what, ct_unop_name(op), ct_dtype_name(in));
    if (ldu_outcome(name, op, in, ct_tensor_numel(x), s1, msg, s2))
        ldu_compare(name, op, in, r1, r2);
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    for (int k = 0; k < nouts; k++) {
        ct_tensor *o1 = NULL, *o2 = NULL;
        int64_t nd = ct_tensor_dim(x);
        const int64_t *sz = ct_tensor_sizes(x);
        if (out_t && nd == 2) {
            /* a [n, m] view of a contiguous [m, n] tensor: the output keeps its strides */
            int64_t rs[2] = {sz[1], sz[0]};
            ct_tensor *b1 = NULL, *b2 = NULL;
            LD_CHECK(ct_tensor_zeros(rs, 2, outs[k], &ld_cpu, CT_LAYOUT_STRIDED, &b1));
            LD_CHECK(ct_tensor_zeros(rs, 2, outs[k], &ld_device, CT_LAYOUT_STRIDED, &b2));
            LD_CHECK(ct_tensor_t(b1, &o1));
            LD_CHECK(ct_tensor_t(b2, &o2));
            ct_tensor_release(b1);
            ct_tensor_release(b2);
        } else {
            LD_CHECK(ct_tensor_zeros(sz, nd, outs[k], &ld_cpu, CT_LAYOUT_STRIDED, &o1));
            LD_CHECK(ct_tensor_zeros(sz, nd, outs[k], &ld_device, CT_LAYOUT_STRIDED, &o2));
        }
        s1 = ct_unary_out(op, x, o1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_unary_out(op, xd, o2);
        snprintf(name, sizeof name, "%s %s(%s, out=%s%s)", what, ct_unop_name(op),
                 ct_dtype_name(in), ct_dtype_name(outs[k]), out_t ? " transposed" : "");
        if (ldu_outcome(name, op, in, ct_tensor_numel(x), s1, msg, s2))
            ldu_compare(name, op, in, o1, o2);
        ct_tensor_release(o1);
        ct_tensor_release(o2);
    }
    {
        ct_tensor *i1 = NULL, *i2 = NULL;
        LD_CHECK(ct_tensor_clone(x, CT_MEMFMT_PRESERVE, &i1));
        LD_CHECK(ct_tensor_clone(xd, CT_MEMFMT_PRESERVE, &i2));
        s1 = ct_unary_(op, i1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_unary_(op, i2);
        snprintf(name, sizeof name, "%s %s_(%s)", what, ct_unop_name(op), ct_dtype_name(in));
        if (ldu_outcome(name, op, in, ct_tensor_numel(x), s1, msg, s2))
            ldu_compare(name, op, in, i1, i2);
        ct_tensor_release(i1);
        ct_tensor_release(i2);
    }
    ct_tensor_release(xd);
}

/* ldu_unary_dev with x copied to the device. */
static void ldu_unary(const char *what, ct_unop op, const ct_tensor *x, const ct_dtype *outs,
                      int nouts, bool out_t) {
    ldu_unary_dev(what, op, x, NULL, outs, nouts, out_t);
}

/* Every op on one dtype in every layout. */
static void ldu_unary_dtype(ct_dtype dt, unsigned seed) {
    int64_t s49[] = {4, 9}, s94[] = {9, 4}, s9[] = {9}, s1[] = {1}, s0[] = {0, 3};
    ct_tensor *a = ld_values(dt, s49, 2, seed, false);
    ct_tensor *at_src = ld_values(dt, s94, 2, seed + 1, false), *at = NULL;
    LD_CHECK(ct_tensor_t(at_src, &at));
    ct_tensor *row = ld_values(dt, s9, 1, seed + 2, false), *bc = NULL;
    LD_CHECK(ct_tensor_expand(row, s49, 2, &bc));
    ct_tensor *row_d = ld_to_dev(row), *bc_d = NULL; /* expanded on the device too */
    LD_CHECK(ct_tensor_expand(row_d, s49, 2, &bc_d));
    ct_tensor *one = ld_values(dt, s1, 1, seed + 3, false);
    ct_tensor *zero_dim = ld_values(dt, NULL, 0, seed + 4, false);
    ct_tensor *empty = ld_values(dt, s0, 2, seed + 5, false);
    const ct_dtype outs[] = {CT_FLOAT64, CT_FLOAT16, CT_BOOL, CT_COMPLEX64, CT_INT32};
    for (int k = 0; k < (int)CT_NUM_UNOPS; k++) {
        ct_unop op = (ct_unop)k;
        ldu_unary("contiguous", op, a, outs, 5, false);
        ldu_unary("transposed", op, at, outs, 1, true);
        ldu_unary_dev("broadcast", op, bc, bc_d, outs, 1, false);
        ldu_unary("one-element", op, one, NULL, 0, false);
        ldu_unary("0-dim", op, zero_dim, outs + 1, 1, false);
        ldu_unary("empty", op, empty, outs, 1, false);
    }
    ct_tensor *objs[] = {a, at_src, at, row, bc, row_d, bc_d, one, zero_dim, empty};
    for (size_t k = 0; k < sizeof objs / sizeof objs[0]; k++)
        ct_tensor_release(objs[k]);
}

static void ldu_unary_all(void) {
    for (int k = 0; k < LD_N_ARITH; k++)
        ldu_unary_dtype(ld_arith[k], (unsigned)(k * 17 + 3));
}

/* Long operands (the GPU's flat and grid-stride paths, a misaligned start) for the ops and
 * dtypes of the fast paths. */
static void ldu_unary_big(int64_t n) {
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16,
                                   CT_FLOAT64, CT_INT32,   CT_UINT8};
    static const ct_unop ops[] = {CT_UNOP_NEG,  CT_UNOP_ABS,     CT_UNOP_EXP,
                                  CT_UNOP_SQRT, CT_UNOP_SIGMOID, CT_UNOP_LOGICAL_NOT,
                                  CT_UNOP_TANH, CT_UNOP_ROUND};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        int64_t len = n + 1;
        ct_tensor *a = ld_values(dts[k], &len, 1, (unsigned)k + 40, false), *a1 = NULL;
        LD_CHECK(ct_tensor_narrow(a, 0, 1, n, &a1)); /* one element in: not 16-aligned */
        const ct_dtype outs[] = {CT_FLOAT32};
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ldu_unary("long", ops[o], a, outs, 1, false);
            ldu_unary("long misaligned", ops[o], a1, NULL, 0, false);
        }
        ct_tensor_release(a);
        ct_tensor_release(a1);
    }
}

#endif /* CT_TESTS_LAUNCH_DIFF_UNARY_H */
