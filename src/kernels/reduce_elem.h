/* One step of a REDUCE launch (ctensor/backend.h): how an element is read into an
 * accumulator, how accumulators combine, and how one becomes an output element. Compiled as
 * C (the host-executed launches of tests/unit/launch_host_reduce.c) and under nvcc (the GPU
 * kernels of src/cuda/kernels_reduce.cu), so what CI checks on the host is the code the GPU
 * runs (Note [One definition per element] in src/kernels/binary_elem.h).
 *
 * The accumulators follow the cpu's (src/ops/reduce.c kernel_choice): integer sums and
 * products in int64 with wrap-around, float sums in double (float32, float16 and bfloat16
 * sums are the double sum rounded once), float32 / float16 / bfloat16 products in float32
 * (each product of two floats is exact in double, so rounding it to float is float32's own
 * multiplication), float64 products in double; max / min exactly in the element's values.
 * Only the order of the float sums differs from the cpu's (a tree here, pairwise blocks
 * there): float results agree to rounding, everything else bit for bit. */
#ifndef CT_KERNELS_REDUCE_ELEM_H
#define CT_KERNELS_REDUCE_ELEM_H

#include <stdint.h>

#include "ctensor/backend.h"
#include "dtype/convert/elem_impl.h"
#include "kernels/binary_elem.h" /* CT_HD */

/* An accumulator: `f` for CT_FLOAT64 / CT_FLOAT32 accumulation, `i` for CT_INT64. */
typedef union ct_racc {
    double f;
    int64_t i;
} ct_racc;

/* What a kernel needs besides the geometry, small enough to pass by value. */
typedef struct ct_rplan {
    int32_t op;      /* CT_LAUNCH_RED_* */
    int32_t fl;      /* 1: float accumulators (f), 0: integer ones (i) */
    int32_t f32;     /* float accumulators rounded to float32 at each step (products) */
    int32_t dt_in;   /* the input's dtype */
    int32_t dt_out;  /* the output's dtype */
    int64_t divisor; /* mean: > 0 */
} ct_rplan;

/* Whether a REDUCE launch asks for something these functions do: the input a real dtype
 * the cpu reduces (bool, uint8, int8 .. int64, float16, bfloat16, float32, float64), the
 * accumulation dtype the op's (see backend.h), the output any real dtype. Host code only. */
static inline int ct_rplan_init(ct_rplan *p, const ct_kernel_launch *l) {
    memset(p, 0, sizeof *p);
    ct_dtype in = l->dtype[1], out = l->dtype[0];
    int in_ok = in == CT_BOOL || in == CT_UINT8 || in == CT_INT8 || in == CT_INT16 ||
                in == CT_INT32 || in == CT_INT64 || in == CT_FLOAT16 || in == CT_BFLOAT16 ||
                in == CT_FLOAT32 || in == CT_FLOAT64;
    int in_float = in == CT_FLOAT16 || in == CT_BFLOAT16 || in == CT_FLOAT32 || in == CT_FLOAT64;
    int out_ok = out == CT_BOOL || out == CT_UINT8 || out == CT_INT8 || out == CT_INT16 ||
                 out == CT_INT32 || out == CT_INT64 || out == CT_FLOAT16 || out == CT_BFLOAT16 ||
                 out == CT_FLOAT32 || out == CT_FLOAT64;
    if (!in_ok || !out_ok || l->reduce_op < 0 || l->reduce_op >= CT_LAUNCH_RED_NUM_OPS)
        return 0;
    p->op = l->reduce_op;
    p->dt_in = in;
    p->dt_out = out;
    p->divisor = l->divisor;
    switch (l->reduce_op) {
    case CT_LAUNCH_RED_SUM:
    case CT_LAUNCH_RED_PROD:
    case CT_LAUNCH_RED_MAX:
    case CT_LAUNCH_RED_MIN:
        if (l->acc == CT_INT64 && !in_float) {
            p->fl = 0;
        } else if (l->acc == CT_FLOAT64 && in_float) {
            p->fl = 1;
        } else if (l->acc == CT_FLOAT32 && l->reduce_op == CT_LAUNCH_RED_PROD && in_float &&
                   in != CT_FLOAT64) {
            p->fl = 1;
            p->f32 = 1;
        } else {
            return 0;
        }
        break;
    case CT_LAUNCH_RED_NANSUM:
        if (l->acc != CT_FLOAT64 || !in_float)
            return 0;
        p->fl = 1;
        break;
    default: /* all, any, count_nonzero: 0/1 tests counted in int64 */
        if (l->acc != CT_INT64)
            return 0;
        break;
    }
    return !(l->divisor != 0 && (l->reduce_op != CT_LAUNCH_RED_SUM || !p->fl));
}

/* ---- reading an element -------------------------------------------------------------- */

CT_HD double ct_rload_f(int32_t dt, const char *p) {
    switch (dt) {
    case CT_FLOAT32: {
        float x;
        ct_cvt_read(&x, p);
        return (double)x;
    }
    case CT_FLOAT64: {
        double x;
        ct_cvt_read(&x, p);
        return x;
    }
    case CT_FLOAT16: {
        uint16_t x;
        ct_cvt_read(&x, p);
        return (double)ct_cvt_f16_to_f32(x);
    }
    default: { /* bfloat16 */
        uint16_t x;
        ct_cvt_read(&x, p);
        return (double)ct_cvt_bf16_to_f32(x);
    }
    }
}

CT_HD int64_t ct_rload_i(int32_t dt, const char *p) {
    switch (dt) {
    case CT_BOOL: {
        uint8_t x;
        ct_cvt_read(&x, p);
        return x != 0;
    }
    case CT_UINT8: {
        uint8_t x;
        ct_cvt_read(&x, p);
        return x;
    }
    case CT_INT8: {
        int8_t x;
        ct_cvt_read(&x, p);
        return x;
    }
    case CT_INT16: {
        int16_t x;
        ct_cvt_read(&x, p);
        return x;
    }
    case CT_INT32: {
        int32_t x;
        ct_cvt_read(&x, p);
        return x;
    }
    default: { /* int64 */
        int64_t x;
        ct_cvt_read(&x, p);
        return x;
    }
    }
}

/* x != 0 for any input dtype (NaN is nonzero, -0.0 is zero) */
CT_HD int ct_rnonzero(int32_t dt, const char *p) {
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16 || dt == CT_FLOAT32 || dt == CT_FLOAT64)
        return ct_rload_f(dt, p) != 0.0;
    return ct_rload_i(dt, p) != 0;
}

/* ---- accumulating -------------------------------------------------------------------- */

/* The op's identity (max / min: the far end of the accumulator's range, which any element
 * replaces: -inf and +inf lose to every float, NaN wins). */
CT_HD ct_racc ct_rinit(const ct_rplan *p) {
    ct_racc a;
    a.i = 0;
    if (p->op == CT_LAUNCH_RED_MAX || p->op == CT_LAUNCH_RED_MIN) {
        int hi = p->op == CT_LAUNCH_RED_MIN;
        if (p->fl)
            a.f = hi ? HUGE_VAL : -HUGE_VAL;
        else
            a.i = hi ? INT64_MAX : INT64_MIN;
    } else if (p->op == CT_LAUNCH_RED_PROD) {
        if (p->fl)
            a.f = 1.0;
        else
            a.i = 1;
    } else if (p->op == CT_LAUNCH_RED_ALL) {
        a.i = 1;
    } else if (p->fl) {
        a.f = 0.0;
    }
    return a;
}

/* a op b, both accumulators (b an element already read, or another partial result). NaN
 * propagates through max and min: a NaN on either side wins. */
CT_HD ct_racc ct_rcombine(const ct_rplan *p, ct_racc a, ct_racc b) {
    ct_racc r;
    switch (p->op) {
    case CT_LAUNCH_RED_SUM:
    case CT_LAUNCH_RED_NANSUM:
        if (p->fl)
            r.f = a.f + b.f;
        else
            r.i = (int64_t)((uint64_t)a.i + (uint64_t)b.i);
        return r;
    case CT_LAUNCH_RED_PROD:
        if (p->f32)
            r.f = (double)(float)(a.f * b.f);
        else if (p->fl)
            r.f = a.f * b.f;
        else
            r.i = (int64_t)((uint64_t)a.i * (uint64_t)b.i);
        return r;
    case CT_LAUNCH_RED_MAX:
        if (p->fl)
            return (a.f != a.f || a.f > b.f) ? a : b;
        return a.i >= b.i ? a : b;
    case CT_LAUNCH_RED_MIN:
        if (p->fl)
            return (a.f != a.f || a.f < b.f) ? a : b;
        return a.i <= b.i ? a : b;
    case CT_LAUNCH_RED_ALL:
        r.i = a.i & b.i;
        return r;
    case CT_LAUNCH_RED_ANY:
        r.i = a.i | b.i;
        return r;
    default: /* count_nonzero */
        r.i = a.i + b.i;
        return r;
    }
}

/* One input element as an accumulator of the op (NANSUM: NaN reads as 0). */
CT_HD ct_racc ct_rread(const ct_rplan *p, const char *x) {
    ct_racc a;
    if (p->op >= CT_LAUNCH_RED_ALL && p->op != CT_LAUNCH_RED_NANSUM) {
        a.i = ct_rnonzero(p->dt_in, x);
    } else if (p->fl) {
        a.f = ct_rload_f(p->dt_in, x);
        if (p->op == CT_LAUNCH_RED_NANSUM && a.f != a.f)
            a.f = 0.0;
    } else {
        a.i = ct_rload_i(p->dt_in, x);
    }
    return a;
}

/* a op element x */
CT_HD ct_racc ct_rstep(const ct_rplan *p, ct_racc a, const char *x) {
    return ct_rcombine(p, a, ct_rread(p, x));
}

/* Write accumulator a as the output element at o: converted as the cpu's copy converts
 * from the accumulation dtype (double, float32 or int64), then divided for mean. */
CT_HD void ct_rfinish(const ct_rplan *p, ct_racc a, char *o) {
    ct_cvt_value v;
    v.s = 0;
    v.u = 0;
    v.f = v.fi = 0.0f;
    v.d = v.di = 0.0;
    v.h.re = v.h.im = 0;
    if (p->fl && p->f32) {
        v.kind = CT_CV_F;
        v.f = (float)a.f;
    } else if (p->fl) {
        v.kind = CT_CV_D;
        v.d = a.f;
    } else {
        v.kind = CT_CV_S;
        v.s = a.i;
    }
    if (p->divisor > 0) {
        /* the sum rounded to the output dtype, then divided as div_(count) divides it */
        ct_cvt_store((ct_dtype)p->dt_out, o, &v);
        if (p->dt_out == CT_FLOAT64) {
            double s;
            ct_cvt_read(&s, o);
            v.kind = CT_CV_D;
            v.d = s / (double)p->divisor;
        } else {
            float s = (float)ct_rload_f(p->dt_out, o);
            v.kind = CT_CV_F;
            v.f = s / (float)p->divisor;
        }
    }
    ct_cvt_store((ct_dtype)p->dt_out, o, &v);
}

#endif /* CT_KERNELS_REDUCE_ELEM_H */
