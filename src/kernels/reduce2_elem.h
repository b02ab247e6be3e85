/* One step of the REDUCE launches whose accumulator carries more than one number
 * (ctensor/backend.h: CT_LAUNCH_RED_ARGMAX, ARGMIN, VAR, LOGSUMEXP, NANMEAN): how an element is read
 * into an accumulator, how two accumulators combine, and how one becomes the output
 * element(s). Compiled as C (tests/unit/launch_host_reduce2.c) and under nvcc
 * (src/cuda/kernels_reduce2.cu), so what CI checks on the host is what the GPU runs (Note
 * [One definition per element] in src/kernels/binary_elem.h).
 *
 * Every combine is associative and commutative (up to float rounding for VAR and
 * LOGSUMEXP), so any tree of partial results gives the cpu's answer:
 *  - ARGMAX / ARGMIN: (value, index). The first NaN wins (lowest index among NaNs), else the
 *    largest (smallest) value, ties to the lowest index: the cpu's "first occurrence" rule.
 *    Float values are exact in double, integers in int64, so indices are the cpu's bits.
 *  - VAR: (count, sum, M2), combined by Chan et al.'s pairwise update (M2 gains
 *    d^2 na nb / n, d the difference of the two means); the sum rather than the mean is
 *    carried, so the mean is the cpu's sum / count (exact sums give its bits);
 *    var = M2 / max(0, count - correction), std its square root. An infinite or NaN
 *    element makes M2 NaN and the mean follows a sum's rules (inf + -inf is NaN),
 *    as the cpu's x - mean does.
 *  - NANMEAN: VAR's accumulator over the non-NaN elements, its mean written.
 *  - LOGSUMEXP: (max, sum of exp(x - max)), rescaled on combine; an infinite or NaN max is
 *    the result itself (the cpu's "an infinite max shifts by nothing" gives the same).
 * VAR and LOGSUMEXP agree with the cpu's two-pass results to rounding. */
#ifndef CT_KERNELS_REDUCE2_ELEM_H
#define CT_KERNELS_REDUCE2_ELEM_H

#include <math.h>
#include <stdint.h>

#include "ctensor/backend.h"
#include "kernels/reduce_elem.h" /* ct_rload_f / ct_rload_i, CT_HD */

/* ARG: v (float inputs) or iv (integer ones) the best value, n its index (-1: none yet).
 * VAR, NANMEAN: n the count, v the sum, m the sum of squared deviations from the mean.
 * LOGSUMEXP: v the max, m the sum of exp(x - v) (meaningful while v is finite). 32 bytes. */
typedef struct ct_racc2 {
    double v, m;
    int64_t n, iv;
} ct_racc2;

typedef struct ct_r2plan {
    int32_t op;        /* CT_LAUNCH_RED_ARGMAX .. NANMEAN */
    int32_t fl;        /* float input */
    int32_t dt_in;     /* operand 1 */
    int32_t dt_out;    /* operand 0 */
    int32_t dt_out2;   /* operand 2 (nout 2): ARG the values, VAR the mean */
    int32_t nout;      /* outputs: 1, or 2 with operand 2 */
    int32_t sqrt_;     /* VAR: std */
    int32_t pad_;
    double correction; /* VAR */
} ct_r2plan;

static inline int ct_r2dtype_real(ct_dtype d) {
    return d == CT_BOOL || d == CT_UINT8 || d == CT_INT8 || d == CT_INT16 || d == CT_INT32 ||
           d == CT_INT64 || d == CT_FLOAT16 || d == CT_BFLOAT16 || d == CT_FLOAT32 ||
           d == CT_FLOAT64;
}
static inline int ct_r2dtype_float(ct_dtype d) {
    return d == CT_FLOAT16 || d == CT_BFLOAT16 || d == CT_FLOAT32 || d == CT_FLOAT64;
}

/* Whether a REDUCE launch is one of these ops with dtypes they take: ARG an input of a real
 * dtype, operand 0 int64 indices, operand 2 (optional) values in the input's dtype; VAR and
 * LOGSUMEXP a floating input, operand 0 any real dtype, VAR's operand 2 (optional) the mean
 * in any real dtype. Host code only. */
static inline int ct_r2plan_init(ct_r2plan *p, const ct_kernel_launch *l) {
    memset(p, 0, sizeof *p);
    ct_dtype in = l->dtype[1], out = l->dtype[0];
    p->op = l->reduce_op;
    p->dt_in = in;
    p->dt_out = out;
    p->nout = l->noperands == 3 ? 2 : 1;
    p->dt_out2 = p->nout == 2 ? l->dtype[2] : out;
    p->fl = ct_r2dtype_float(in);
    p->sqrt_ = (l->red_flags & CT_LAUNCH_RED_SQRT) != 0;
    p->correction = l->red_correction;
    if (!ct_r2dtype_real(in) || !ct_r2dtype_real(out) || !ct_r2dtype_real((ct_dtype)p->dt_out2))
        return 0;
    switch (l->reduce_op) {
    case CT_LAUNCH_RED_ARGMAX:
    case CT_LAUNCH_RED_ARGMIN:
        return out == CT_INT64 && (p->nout == 1 || l->dtype[2] == in);
    case CT_LAUNCH_RED_VAR:
        return p->fl;
    case CT_LAUNCH_RED_LOGSUMEXP:
    case CT_LAUNCH_RED_NANMEAN:
        return p->fl && p->nout == 1;
    default:
        return 0;
    }
}

CT_HD ct_racc2 ct_r2init(const ct_r2plan *p) {
    ct_racc2 a;
    a.v = p->op == CT_LAUNCH_RED_LOGSUMEXP ? -HUGE_VAL : 0.0;
    a.m = 0.0;
    a.n = p->op == CT_LAUNCH_RED_VAR || p->op == CT_LAUNCH_RED_NANMEAN ? 0 : -1;
    a.iv = 0;
    return a;
}

/* Element r (its index along the reduced dims, in their logical order) read at x. */
CT_HD ct_racc2 ct_r2read(const ct_r2plan *p, const char *x, int64_t r) {
    ct_racc2 a;
    a.m = 0.0;
    a.iv = 0;
    a.v = 0.0;
    if (p->op == CT_LAUNCH_RED_ARGMAX || p->op == CT_LAUNCH_RED_ARGMIN) {
        if (p->fl)
            a.v = ct_rload_f(p->dt_in, x);
        else
            a.iv = ct_rload_i(p->dt_in, x);
        a.n = r;
    } else if (p->op == CT_LAUNCH_RED_VAR || p->op == CT_LAUNCH_RED_NANMEAN) {
        a.v = ct_rload_f(p->dt_in, x);
        a.n = 1;
        if (p->op == CT_LAUNCH_RED_NANMEAN && a.v != a.v) { /* skipped: nothing counted */
            a.v = 0.0;
            a.n = 0;
        } else if (a.v - a.v != 0.0) { /* +-inf or NaN: x - mean is NaN on the cpu */
            a.m = NAN;
        }
    } else { /* logsumexp: exp(x - x) = 1 for a finite x */
        a.v = ct_rload_f(p->dt_in, x);
        a.m = a.v - a.v == 0.0 ? 1.0 : 0.0;
        a.n = 0;
    }
    return a;
}

CT_HD ct_racc2 ct_r2combine(const ct_r2plan *p, ct_racc2 a, ct_racc2 b) {
    if (p->op == CT_LAUNCH_RED_ARGMAX || p->op == CT_LAUNCH_RED_ARGMIN) {
        if (b.n < 0)
            return a;
        if (a.n < 0)
            return b;
        int first = a.n <= b.n; /* a comes first */
        int max = p->op == CT_LAUNCH_RED_ARGMAX;
        if (p->fl) {
            int an = a.v != a.v, bn = b.v != b.v;
            if (an || bn)
                return (an && bn) ? (first ? a : b) : (an ? a : b);
            if (max ? a.v > b.v : a.v < b.v)
                return a;
            if (max ? b.v > a.v : b.v < a.v)
                return b;
        } else {
            if (max ? a.iv > b.iv : a.iv < b.iv)
                return a;
            if (max ? b.iv > a.iv : b.iv < a.iv)
                return b;
        }
        return first ? a : b;
    }
    ct_racc2 r;
    r.iv = 0;
    if (p->op == CT_LAUNCH_RED_VAR || p->op == CT_LAUNCH_RED_NANMEAN) {
        if (a.n == 0)
            return b;
        if (b.n == 0)
            return a;
        double na = (double)a.n, nb = (double)b.n, n = na + nb;
        r.n = a.n + b.n;
        r.v = a.v + b.v;
        if (r.v - r.v != 0.0) { /* a non-finite sum: x - mean is NaN on the cpu */
            r.m = NAN;
            return r;
        }
        double d = b.v / nb - a.v / na;
        r.m = a.m + b.m + d * d * (na * nb / n);
        return r;
    }
    /* logsumexp */
    r.n = 0;
    if (a.v != a.v || b.v != b.v) {
        r.v = a.v != a.v ? a.v : b.v;
        r.m = 0.0;
        return r;
    }
    r.v = a.v > b.v ? a.v : b.v;
    if (r.v - r.v != 0.0) { /* +-inf: the result itself */
        r.m = 0.0;
        return r;
    }
    r.m = (a.m == 0.0 ? 0.0 : a.m * exp(a.v - r.v)) + (b.m == 0.0 ? 0.0 : b.m * exp(b.v - r.v));
    return r;
}

CT_HD void ct_r2store_d(int32_t dt, char *o, double x) {
    ct_cvt_value v;
    v.s = 0;
    v.u = 0;
    v.f = v.fi = 0.0f;
    v.di = 0.0;
    v.h.re = v.h.im = 0;
    v.kind = CT_CV_D;
    v.d = x;
    ct_cvt_store((ct_dtype)dt, o, &v);
}

/* Write the result: o the operand 0 element, o2 operand 2's (nout 2). */
CT_HD void ct_r2finish(const ct_r2plan *p, ct_racc2 a, char *o, char *o2) {
    if (p->op == CT_LAUNCH_RED_ARGMAX || p->op == CT_LAUNCH_RED_ARGMIN) {
        int64_t at = a.n < 0 ? 0 : a.n;
        ct_cvt_write(o, &at);
        if (p->nout == 2) {
            if (p->fl) {
                ct_r2store_d(p->dt_out2, o2, a.v);
            } else {
                ct_cvt_value v;
                v.u = 0;
                v.f = v.fi = 0.0f;
                v.d = v.di = 0.0;
                v.h.re = v.h.im = 0;
                v.kind = CT_CV_S;
                v.s = a.iv;
                ct_cvt_store((ct_dtype)p->dt_out2, o2, &v);
            }
        }
        return;
    }
    if (p->op == CT_LAUNCH_RED_VAR) {
        double n = (double)a.n, dof = n - p->correction > 0 ? n - p->correction : 0.0;
        double m2 = a.m < 0 ? 0.0 : a.m;
        double var = a.n == 0 ? NAN : m2 / dof;
        ct_r2store_d(p->dt_out, o, p->sqrt_ ? sqrt(var) : var);
        if (p->nout == 2)
            ct_r2store_d(p->dt_out2, o2, a.n == 0 ? NAN : a.v / (double)a.n);
        return;
    }
    if (p->op == CT_LAUNCH_RED_NANMEAN) {
        ct_r2store_d(p->dt_out, o, a.n == 0 ? NAN : a.v / (double)a.n);
        return;
    }
    ct_r2store_d(p->dt_out, o, a.v - a.v == 0.0 ? a.v + log(a.m) : a.v);
}

#endif /* CT_KERNELS_REDUCE2_ELEM_H */
