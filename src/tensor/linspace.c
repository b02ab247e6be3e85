/* torch.linspace, torch.logspace and torch.eye (include/ctensor/range.h).
 *
 * Note [linspace arithmetic]
 * PyTorch 1.13's cpu linspace is a vectorised nullary loop: element i is
 * start + step * i below steps / 2 and end - step * (steps - 1 - i) from there, but the
 * vector loop (pairs of W-element vectors while 2W elements remain; the rest one by one)
 * computes only each vector's first element that way, with a fused multiply-add, and the
 * others as base + j * step (product rounded, then the sum). W is the AVX2 vector width of
 * the dtype (32 bytes; 16 elements for float16 and bfloat16, whose every operation rounds
 * to the type). Integer dtypes step in double and truncate each value. Reproducing this
 * gives torch's bits on one thread (several threads split the range at other points);
 * tests/python/test_factories_vs_torch.py checks it. logspace is a plain scalar loop in
 * double: base ** (start + step * i), pow in double.
 */
#include <complex.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/convert.h"
#include "ctensor/range.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

/* re + im i without CMPLX (glibc defines it for gcc only): C11 lays a complex number out
 * as an array of its two parts. */
static double complex cplx(double re, double im) {
    double complex z;
    ((double *)&z)[0] = re;
    ((double *)&z)[1] = im;
    return z;
}

typedef enum { LIN_INT, LIN_F32, LIN_F64, LIN_HALF, LIN_BF16, LIN_COMPLEX, LIN_NONE } lin_kind;

static lin_kind kind_of(ct_dtype dt) {
    switch (dt) {
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
        return LIN_INT;
    case CT_FLOAT32:
        return LIN_F32;
    case CT_FLOAT64:
        return LIN_F64;
    case CT_FLOAT16:
        return LIN_HALF;
    case CT_BFLOAT16:
        return LIN_BF16;
    case CT_COMPLEX64:
    case CT_COMPLEX128:
        return LIN_COMPLEX;
    default:
        return LIN_NONE;
    }
}

/* ---- reading converted bounds ----------------------------------------------------------- */

typedef union bound {
    uint8_t u8;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint16_t bits;
    float f;
    double d;
    float cf[2];
    double cd[2];
} bound;

static int64_t int_of(ct_dtype dt, const bound *b) {
    switch (dt) {
    case CT_UINT8:
        return b->u8;
    case CT_INT8:
        return b->i8;
    case CT_INT16:
        return b->i16;
    case CT_INT32:
        return b->i32;
    default:
        return b->i64;
    }
}

/* Store an integer value (in the dtype's range: between the bounds) at element i. */
static void put_int(ct_dtype dt, void *data, int64_t i, int64_t v) {
    switch (dt) {
    case CT_UINT8:
        ((uint8_t *)data)[i] = (uint8_t)v;
        break;
    case CT_INT8:
        ((int8_t *)data)[i] = (int8_t)v;
        break;
    case CT_INT16:
        ((int16_t *)data)[i] = (int16_t)v;
        break;
    case CT_INT32:
        ((int32_t *)data)[i] = (int32_t)v;
        break;
    default:
        ((int64_t *)data)[i] = v;
        break;
    }
}

/* float16 / bfloat16 arithmetic: every result rounded to the type. */
static float r16(lin_kind k, float x) {
    return k == LIN_HALF ? ct_half_to_float(ct_float_to_half(x))
                         : ct_bfloat16_to_float(ct_float_to_bfloat16(x));
}
static float f16(lin_kind k, uint16_t bits) {
    return k == LIN_HALF ? ct_half_to_float(bits) : ct_bfloat16_to_float(bits);
}
static uint16_t b16(lin_kind k, float x) {
    return k == LIN_HALF ? ct_float_to_half(x) : ct_float_to_bfloat16(x);
}

/* ---- linspace values (Note [linspace arithmetic]) ------------------------------------------ */

typedef struct lin {
    lin_kind k;
    ct_dtype dt;
    int64_t steps, half;
    bound s, e;
    double dstep; /* integers, float64 */
    float fstep;  /* float32, float16, bfloat16 */
    int64_t es;   /* float32 / float64: elements between values (2: a complex component) */
} lin;

/* Element i computed the scalar way. */
static void lin_scalar(const lin *l, void *data, int64_t i) {
    bool lo = i < l->half;
    double k = lo ? (double)i : (double)(l->steps - i - 1);
    switch (l->k) {
    case LIN_INT: {
        double v = lo ? fma(l->dstep, k, (double)int_of(l->dt, &l->s))
                      : fma(-l->dstep, k, (double)int_of(l->dt, &l->e));
        put_int(l->dt, data, i, (int64_t)v);
        break;
    }
    case LIN_F32:
        ((float *)data)[i * l->es] =
            lo ? fmaf(l->fstep, (float)k, l->s.f) : fmaf(-l->fstep, (float)k, l->e.f);
        break;
    case LIN_F64:
        ((double *)data)[i * l->es] = lo ? fma(l->dstep, k, l->s.d) : fma(-l->dstep, k, l->e.d);
        break;
    default: { /* float16, bfloat16: step * Half(k), then the sum, each rounded */
        float prod = r16(l->k, l->fstep * r16(l->k, (float)k));
        float v = lo ? f16(l->k, l->s.bits) + prod : f16(l->k, l->e.bits) - prod;
        ((uint16_t *)data)[i] = b16(l->k, v);
        break;
    }
    }
}

/* The W elements from i (a vector): the first the scalar way, then base + j * step. */
static void lin_vector(const lin *l, void *data, int64_t i, int64_t w) {
    lin_scalar(l, data, i);
    for (int64_t j = 1; j < w; j++) {
        switch (l->k) {
        case LIN_INT: {
            int64_t base = 0;
            switch (l->dt) { /* read back the stored base */
            case CT_UINT8:
                base = ((uint8_t *)data)[i];
                break;
            case CT_INT8:
                base = ((int8_t *)data)[i];
                break;
            case CT_INT16:
                base = ((int16_t *)data)[i];
                break;
            case CT_INT32:
                base = ((int32_t *)data)[i];
                break;
            default:
                base = ((int64_t *)data)[i];
                break;
            }
            volatile double prod = (double)j * l->dstep; /* rounded before the sum */
            put_int(l->dt, data, i + j, (int64_t)((double)base + prod));
            break;
        }
        case LIN_F32: {
            volatile float prod = (float)j * l->fstep;
            ((float *)data)[(i + j) * l->es] = ((float *)data)[i * l->es] + prod;
            break;
        }
        case LIN_F64: {
            volatile double prod = (double)j * l->dstep;
            ((double *)data)[(i + j) * l->es] = ((double *)data)[i * l->es] + prod;
            break;
        }
        default: {
            float base = f16(l->k, ((uint16_t *)data)[i]);
            float prod = r16(l->k, r16(l->k, (float)j) * l->fstep);
            ((uint16_t *)data)[i + j] = b16(l->k, base + prod);
            break;
        }
        }
    }
}

static void lin_run(const lin *l, void *data, int64_t w) {
    int64_t n = l->steps, i = 0;
    for (; i + 2 * w <= n; i += 2 * w) {
        lin_vector(l, data, i, w);
        lin_vector(l, data, i + w, w);
    }
    for (; i < n; i++)
        lin_scalar(l, data, i);
}

static void lin_fill(const lin *l, void *data) {
    size_t itemsize = ct_dtype_table[l->dt].itemsize;
    int64_t w = l->k == LIN_HALF || l->k == LIN_BF16 ? 16 : (int64_t)(32 / itemsize);
    if (l->k != LIN_COMPLEX) {
        lin_run(l, data, w);
        return;
    }
    /* complex: each component is a real linspace of its own (a product with (j + 0i) is
     * exact per component), interleaved, with the complex vector width */
    bool single = l->dt == CT_COMPLEX64;
    for (int c = 0; c < 2; c++) {
        lin part = *l;
        part.es = 2;
        part.k = single ? LIN_F32 : LIN_F64;
        if (single) {
            part.s.f = l->s.cf[c];
            part.e.f = l->e.cf[c];
            part.fstep = (part.e.f - part.s.f) / (float)(l->steps - 1);
            lin_run(&part, (float *)data + c, w);
        } else {
            part.s.d = l->s.cd[c];
            part.e.d = l->e.cd[c];
            part.dstep = (part.e.d - part.s.d) / (double)(l->steps - 1);
            lin_run(&part, (double *)data + c, w);
        }
    }
}

/* A double converted to an integer dtype as PyTorch's compiled conversion does on x86:
 * truncation through a 32-bit signed conversion for dtypes of at most 4 bytes (64-bit for
 * int64), whose out-of-range and NaN result is the "integer indefinite" INT_MIN. C leaves
 * these conversions undefined; logspace of an integer dtype meets them for large powers. */
static int64_t x86_trunc(ct_dtype dt, double v) {
    if (dt == CT_INT64)
        return v >= -0x1p63 && v < 0x1p63 ? (int64_t)v : INT64_MIN;
    return v > -0x1p31 - 1.0 && v < 0x1p31 ? (int64_t)(int32_t)v : (int64_t)INT32_MIN;
}

/* ---- logspace values ------------------------------------------------------------------------ */

/* base ** z as libstdc++'s std::pow(double, complex<double>) (what PyTorch calls): for a
 * positive base, polar(pow(base, re z), im z * log(base)). */
static double complex pow_real_complex(double base, double complex z) {
    if (base > 0) {
        double mag = pow(base, creal(z)), ang = cimag(z) * log(base);
        return cplx(mag * cos(ang), mag * sin(ang));
    }
    return cpow(base, z);
}

typedef struct logsp {
    lin l; /* kind, dtype, steps, bounds */
    double base;
} logsp;

static void log_fill(const logsp *g, void *data) {
    const lin *l = &g->l;
    int64_t n = l->steps;
    if (l->k == LIN_COMPLEX) {
        double complex s, e;
        if (l->dt == CT_COMPLEX64) {
            s = cplx(l->s.cf[0], l->s.cf[1]);
            e = cplx(l->e.cf[0], l->e.cf[1]);
        } else {
            s = cplx(l->s.cd[0], l->s.cd[1]);
            e = cplx(l->e.cd[0], l->e.cd[1]);
        }
        double step = creal(e - s) / (double)(n - 1);
        for (int64_t i = 0; i < n; i++) {
            double complex x = i < l->half ? s + step * (double)i : e - step * (double)(n - i - 1);
            double complex v = pow_real_complex(g->base, x);
            if (l->dt == CT_COMPLEX64) {
                ((float *)data)[2 * i] = (float)creal(v);
                ((float *)data)[2 * i + 1] = (float)cimag(v);
            } else {
                ((double *)data)[2 * i] = creal(v);
                ((double *)data)[2 * i + 1] = cimag(v);
            }
        }
        return;
    }
    double s, e, diff;
    switch (l->k) {
    case LIN_INT:
        s = (double)int_of(l->dt, &l->s);
        e = (double)int_of(l->dt, &l->e);
        diff = e - s;
        break;
    case LIN_F32:
        s = l->s.f;
        e = l->e.f;
        diff = (double)(l->e.f - l->s.f); /* the difference in float */
        break;
    case LIN_F64:
        s = l->s.d;
        e = l->e.d;
        diff = e - s;
        break;
    default:
        s = f16(l->k, l->s.bits);
        e = f16(l->k, l->e.bits);
        diff = r16(l->k, (float)e - (float)s); /* in the 16-bit type */
        break;
    }
    /* integer dtypes raise a float base (PyTorch: "use float to avoid promotion") */
    double base = l->k == LIN_INT ? (double)(float)g->base : g->base;
    double step = diff / (double)(n - 1);
    for (int64_t i = 0; i < n; i++) {
        volatile double prod = i < l->half ? step * (double)i : step * (double)(n - i - 1);
        double v = pow(base, i < l->half ? s + prod : e - prod);
        switch (l->k) {
        case LIN_INT:
            put_int(l->dt, data, i, x86_trunc(l->dt, v));
            break;
        case LIN_F32:
            ((float *)data)[i] = (float)v;
            break;
        case LIN_F64:
            ((double *)data)[i] = v;
            break;
        default:
            ((uint16_t *)data)[i] = b16(l->k, (float)v);
            break;
        }
    }
}

/* ---- the factories ----------------------------------------------------------------------------
 */

typedef void (*fill_fn)(const void *ctx, void *data);

static void lin_fill_cb(const void *ctx, void *data) { lin_fill(ctx, data); }
static void log_fill_cb(const void *ctx, void *data) { log_fill(ctx, data); }

/* Check the arguments, make the 1-D result and fill it (on the host, then copied to its
 * device). `one` is the value of a single step (start for linspace). */
static ct_status range_make(const char *kernel, const char *fn, ct_scalar start, ct_scalar end,
                            int64_t steps, ct_dtype dtype, const ct_device *device,
                            ct_layout layout, lin *l, ct_scalar one, fill_fn fill, const void *ctx,
                            ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    if (!ct_layout_is_valid(layout))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid layout value %d", fn, (int)layout);
    if (layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "%s: layout torch.%s is not supported by the tensor core", fn,
                            ct_layout_name(layout));
    if (steps < 0)
        return ct_set_error(CT_ERR_RUNTIME, "number of steps must be non-negative");
    bool complex_bounds = start.kind == CT_SCALAR_COMPLEX || end.kind == CT_SCALAR_COMPLEX;
    if (complex_bounds) {
        ct_dtype dflt = ct_get_default_complex_dtype();
        if (dtype != CT_DTYPE_UNDEFINED && ct_dtype_impl_valid(dtype) &&
            !ct_dtype_is_complex(dtype))
            return ct_set_error(
                CT_ERR_RUNTIME, "%s(): inferred dtype %s can't be safely cast to passed dtype %s",
                kernel[0] == 'l' && kernel[1] == 'o' ? "torch.logspace" : "torch.linspace",
                /* PyTorch prints the inferred type's C++ name here */
                dflt == CT_COMPLEX128 ? "c10::complex<double>" : "c10::complex<float>",
                ct_dtype_impl_msg_name(dtype));
        if (dtype == CT_DTYPE_UNDEFINED)
            dtype = dflt;
    }
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = ct_get_default_dtype();
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid dtype value %d", fn, (int)dtype);
    l->k = kind_of(dtype);
    if (l->k == LIN_NONE && steps >= 2) /* the kernel is reached from 2 steps on */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                            ct_dtype_impl_msg_name(dtype));
    l->dt = dtype;
    l->es = 1;
    l->steps = steps;
    l->half = steps / 2;
    memset(&l->s, 0, sizeof l->s);
    memset(&l->e, 0, sizeof l->e);
    if (steps >= 2) { /* PyTorch converts the bounds in the kernel only */
        CT_TRY(ct_scalar_to_dtype(start, dtype, &l->s));
        CT_TRY(ct_scalar_to_dtype(end, dtype, &l->e));
    }
    switch (l->k) {
    case LIN_INT:
        l->dstep =
            ((double)int_of(dtype, &l->e) - (double)int_of(dtype, &l->s)) / (double)(steps - 1);
        break;
    case LIN_F32:
        l->fstep = (l->e.f - l->s.f) / (float)(steps - 1);
        break;
    case LIN_F64:
        l->dstep = (l->e.d - l->s.d) / (double)(steps - 1);
        break;
    case LIN_HALF:
    case LIN_BF16: {
        float diff = r16(l->k, f16(l->k, l->e.bits) - f16(l->k, l->s.bits));
        l->fstep = r16(l->k, diff / r16(l->k, (float)(steps - 1)));
        break;
    }
    default:
        break;
    }
    ct_device dev;
    CT_TRY(ct_device_resolve(device, &dev));
    ct_tensor *t = NULL;
    CT_TRY(ct_tensor_empty(&steps, 1, dtype, &dev, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    ct_status st = CT_OK;
    if (steps == 1) {
        st = ct_tensor_fill_(t, one);
    } else if (steps > 1 && dev.type != CT_DEVICE_META) {
        size_t nbytes = (size_t)steps * ct_dtype_table[dtype].itemsize;
        if (dev.type == CT_DEVICE_CPU) {
            fill(ctx, ct_tensor_data_ptr(t));
        } else {
            char *host = ct_alloc(nbytes, 64);
            st = host != NULL ? CT_OK : CT_ERR_NOMEM;
            if (st == CT_OK) {
                fill(ctx, host);
                ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
                st = ct_device_copy(dev, ct_tensor_data_ptr(t), cpu, host, nbytes);
                ct_free(host, nbytes, 64);
            }
        }
    }
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

ct_status ct_tensor_linspace(ct_scalar start, ct_scalar end, int64_t steps, ct_dtype dtype,
                             const ct_device *device, ct_layout layout, ct_tensor **out) {
    lin l = {.k = LIN_NONE};
    return range_make("linspace_cpu", "ct_tensor_linspace", start, end, steps, dtype, device,
                      layout, &l, start, lin_fill_cb, &l, out);
}

ct_status ct_tensor_logspace(ct_scalar start, ct_scalar end, int64_t steps, double base,
                             ct_dtype dtype, const ct_device *device, ct_layout layout,
                             ct_tensor **out) {
    logsp g = {.base = base};
    /* a single step: base ** start, as a double (or complex) filled into the dtype */
    ct_scalar one;
    if (start.kind == CT_SCALAR_COMPLEX || end.kind == CT_SCALAR_COMPLEX ||
        (dtype != CT_DTYPE_UNDEFINED && ct_dtype_impl_valid(dtype) && ct_dtype_is_complex(dtype))) {
        double complex z = start.kind == CT_SCALAR_COMPLEX
                               ? cplx(start.v.c.re, start.v.c.im)
                               : cplx(start.kind == CT_SCALAR_FLOAT  ? start.v.f
                                      : start.kind == CT_SCALAR_INT  ? (double)start.v.i
                                      : start.kind == CT_SCALAR_UINT ? (double)start.v.u
                                                                     : (double)start.v.b,
                                      0.0);
        double complex v = pow_real_complex(base, z);
        one = (ct_scalar){.kind = CT_SCALAR_COMPLEX, .v.c = {creal(v), cimag(v)}};
    } else {
        double s = start.kind == CT_SCALAR_FLOAT  ? start.v.f
                   : start.kind == CT_SCALAR_INT  ? (double)start.v.i
                   : start.kind == CT_SCALAR_UINT ? (double)start.v.u
                                                  : (double)start.v.b;
        one = (ct_scalar){.kind = CT_SCALAR_FLOAT, .v.f = pow(base, s)};
    }
    return range_make("logspace_cpu", "ct_tensor_logspace", start, end, steps, dtype, device,
                      layout, &g.l, one, log_fill_cb, &g, out);
}

ct_status ct_tensor_eye(int64_t n, int64_t m, ct_dtype dtype, const ct_device *device,
                        ct_layout layout, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_eye: out is NULL");
    *out = NULL;
    if (n < 0)
        return ct_set_error(CT_ERR_RUNTIME, "n must be greater or equal to 0, got %" PRId64, n);
    if (m < 0)
        return ct_set_error(CT_ERR_RUNTIME, "m must be greater or equal to 0, got %" PRId64, m);
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = ct_get_default_dtype();
    int64_t sizes[2] = {n, m};
    ct_tensor *t = NULL, *diag = NULL;
    CT_TRY(ct_tensor_zeros(sizes, 2, dtype, device, layout, &t));
    int64_t k = n < m ? n : m, stride = m + 1;
    ct_status st = CT_OK;
    if (k > 0) {
        st = ct_tensor_as_strided(t, &k, &stride, 1, NULL, &diag);
        if (st == CT_OK)
            st = ct_tensor_fill_(diag, ct_scalar_int(1));
        ct_tensor_release(diag);
    }
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}
