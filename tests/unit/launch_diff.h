/* Differential checks of element-wise work on a device against the cpu: the same op or copy
 * on cpu tensors and on copies of them on `ld_device`, the device's result brought back and
 * compared byte for byte (NaN payloads aside: two NaNs in the same place match), errors by
 * status and message. Shared by tests/unit/test_launch_dispatch.c (a host-executed launch
 * backend, in CI) and tests/cuda/test_cuda_kernels.c (the GPU). */
#ifndef CT_TESTS_LAUNCH_DIFF_H
#define CT_TESTS_LAUNCH_DIFF_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

static ct_device ld_device;
static const ct_device ld_cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
static int ld_failures;  /* differences found (each printed); asserted 0 at the end */
static long ld_checks;   /* comparisons made */

#define LD_N_ARITH 16
static const ct_dtype ld_arith[LD_N_ARITH] = {
    CT_BOOL,    CT_UINT8,   CT_INT8,    CT_UINT16,  CT_INT16,     CT_UINT32,
    CT_INT32,   CT_UINT64,  CT_INT64,   CT_FLOAT16, CT_BFLOAT16,  CT_FLOAT32,
    CT_FLOAT64, CT_COMPLEX32, CT_COMPLEX64, CT_COMPLEX128};

#define LD_CHECK(call)                                                                             \
    do {                                                                                           \
        ct_status s_ = (call);                                                                     \
        if (s_ != CT_OK)                                                                           \
            fail_msg("%s:%d: %s: %s", __FILE__, __LINE__, #call, ct_last_error());                 \
    } while (0)

static bool ld_is_int(ct_dtype d) { return d <= CT_INT64; /* bool .. int64 in dtypes.def */ }

/* A tensor of `shape` in dtype dt filled from tables of awkward values (zeros of both signs,
 * infinities, NaN, extremes, subnormals, halves) and a seeded generator. `divisor`: integer
 * values never 0 in any width (their low byte is nonzero). */
static ct_tensor *ld_values(ct_dtype dt, const int64_t *shape, int ndim, unsigned seed,
                            bool divisor) {
    static const double fv[] = {0.0,     -0.0,    1.0,     -1.0,   0.5,     -2.5,    3.0,
                                7.25,    1e-3,    -1e-5,   65504., 1e10,    -3e38,   1e-40,
                                INFINITY, -INFINITY, NAN,  123.456, -0.1,   0x1p-24, 1.0 / 3,
                                843.0,   0.9990234375, -7.0, 2.0,  -3.5,    1e300,   -5e-324};
    static const int64_t iv[] = {0,  1,   -1,   2,     -2,     3,          7,          -7,
                                 100, -128, 127, 255, 32767, -32768, INT32_MAX, INT32_MIN,
                                 INT64_MAX, INT64_MIN, 65535, -9, 12345678901LL, 6, -6, 13};
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    unsigned s = seed * 2654435761u + 12345u;
    ct_tensor *src = NULL, *out = NULL;
    if (ld_is_int(dt)) {
        int64_t *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
        for (int64_t i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            int64_t x = (i + seed) % 3 == 2 ? (int64_t)(s >> 8) % 2001 - 1000
                                            : iv[(i * 7 + seed) % (sizeof iv / sizeof *iv)];
            if (divisor && (x & 0xFF) == 0)
                x += 1;
            v[i] = x;
        }
        LD_CHECK(ct_tensor_from_data(shape, ndim, CT_INT64, v, &ld_cpu, &src));
        free(v);
    } else {
        bool cx = dt == CT_COMPLEX32 || dt == CT_COMPLEX64 || dt == CT_COMPLEX128;
        int64_t m = cx ? 2 * n : n;
        double *v = calloc((size_t)(m > 0 ? m : 1), sizeof *v);
        for (int64_t i = 0; i < m; i++) {
            s = s * 1103515245u + 12345u;
            v[i] = (i + seed) % 3 == 2 ? ((double)(s >> 8) / 65536.0 - 128.0)
                                       : fv[(i * 5 + seed) % (sizeof fv / sizeof *fv)];
        }
        LD_CHECK(ct_tensor_from_data(shape, ndim, cx ? CT_COMPLEX128 : CT_FLOAT64, v, &ld_cpu,
                                     &src));
        free(v);
    }
    LD_CHECK(ct_tensor_to(src, dt, NULL, true, CT_MEMFMT_PRESERVE, &out));
    ct_tensor_release(src);
    return out;
}

/* Element i (C order) of t's bytes into buf. */
static void ld_element(const ct_tensor *t, int64_t i, unsigned char *buf) {
    const int64_t *sz = ct_tensor_sizes(t), *st = ct_tensor_strides(t);
    int nd = (int)ct_tensor_dim(t);
    int64_t off = 0;
    for (int d = nd - 1; d >= 0; d--) {
        off += (i % sz[d]) * st[d];
        i /= sz[d];
    }
    size_t isz = ct_dtype_itemsize(ct_tensor_dtype(t));
    memcpy(buf, (const char *)ct_tensor_data_ptr(t) + off * (int64_t)isz, isz);
}

/* Two elements that differ only as NaN payloads. */
static bool ld_nan_alike(ct_dtype dt, const unsigned char *x, const unsigned char *y) {
    if (ld_is_int(dt))
        return false;
    ct_complex128 a, b;
    if (ct_convert(CT_COMPLEX128, &a, dt, x, 1) != CT_OK ||
        ct_convert(CT_COMPLEX128, &b, dt, y, 1) != CT_OK)
        return false;
    bool re = (isnan(a.re) && isnan(b.re)) || memcmp(&a.re, &b.re, sizeof a.re) == 0;
    bool im = (isnan(a.im) && isnan(b.im)) || memcmp(&a.im, &b.im, sizeof a.im) == 0;
    return re && im && (isnan(a.re) || isnan(a.im));
}

/* Ulps of the result dtype that a value may differ by (0: bit for bit). ld_binary sets it
 * from ld_transcendental_ulps for pow, atan2 and hypot, whose libm forms differ by an ulp
 * or so between glibc, SLEEF (the cpu's AVX2 / AVX-512 pow loops) and CUDA's libdevice. */
static int ld_transcendental_ulps;
static int ld_ulps;

/* Two finite or equal float elements within ld_ulps of the dtype's precision (relative, or
 * absolute near the dtype's smallest normal). */
static bool ld_within_ulps(ct_dtype dt, const unsigned char *x, const unsigned char *y) {
    int mant = dt == CT_FLOAT16 ? 10 : dt == CT_BFLOAT16 ? 7 : dt == CT_FLOAT32 ? 23
               : dt == CT_FLOAT64 ? 52 : -1;
    double tiny = dt == CT_FLOAT16 ? 0x1p-14 : dt == CT_FLOAT64 ? 0x1p-1022 : 0x1p-126;
    if (ld_ulps <= 0 || mant < 0)
        return false;
    double a, b;
    if (ct_convert(CT_FLOAT64, &a, dt, x, 1) != CT_OK ||
        ct_convert(CT_FLOAT64, &b, dt, y, 1) != CT_OK)
        return false;
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
        return false; /* (equal ones were bitwise equal) */
    double m = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= ld_ulps * ldexp(fmax(m, tiny), -mant);
}

/* fmax / fmin of two zeros may be either zero (C's fmax leaves it open: the cpu's vector
 * and scalar loops, glibc and CUDA pick differently): zeros of either sign match then. */
static bool ld_any_zero_sign;

static bool ld_zeros_alike(ct_dtype dt, const unsigned char *x, const unsigned char *y) {
    double a, b;
    if (!ld_any_zero_sign || ld_is_int(dt) || ct_dtype_is_complex(dt) ||
        ct_convert(CT_FLOAT64, &a, dt, x, 1) != CT_OK ||
        ct_convert(CT_FLOAT64, &b, dt, y, 1) != CT_OK)
        return false;
    return a == 0 && b == 0;
}

/* Compare a cpu result with a device result (any device: brought to cpu here). */
static void ld_compare(const char *what, const ct_tensor *want, const ct_tensor *got_any) {
    ld_checks++;
    ct_tensor *got = NULL;
    LD_CHECK(ct_tensor_to_device(got_any, ld_cpu, &got));
    ct_dtype dt = ct_tensor_dtype(want);
    if (dt != ct_tensor_dtype(got) || ct_tensor_dim(want) != ct_tensor_dim(got) ||
        memcmp(ct_tensor_sizes(want), ct_tensor_sizes(got),
               (size_t)ct_tensor_dim(want) * sizeof(int64_t)) != 0) {
        printf("DIFF %s: dtype or shape differs (%s vs %s)\n", what, ct_dtype_name(dt),
               ct_dtype_name(ct_tensor_dtype(got)));
        ld_failures++;
        ct_tensor_release(got);
        return;
    }
    if (ct_tensor_dim(want) > 0 &&
        memcmp(ct_tensor_strides(want), ct_tensor_strides(got),
               (size_t)ct_tensor_dim(want) * sizeof(int64_t)) != 0) {
        printf("DIFF %s: strides differ\n", what);
        ld_failures++;
    }
    size_t isz = ct_dtype_itemsize(dt);
    int64_t n = ct_tensor_numel(want);
    for (int64_t i = 0; i < n; i++) {
        unsigned char x[16], y[16];
        ld_element(want, i, x);
        ld_element(got, i, y);
        if (memcmp(x, y, isz) != 0 && !ld_nan_alike(dt, x, y) && !ld_within_ulps(dt, x, y) &&
            !ld_zeros_alike(dt, x, y)) {
            char hx[40] = "", hy[40] = "";
            for (size_t k = 0; k < isz; k++) {
                sprintf(hx + 2 * k, "%02x", x[isz - 1 - k]);
                sprintf(hy + 2 * k, "%02x", y[isz - 1 - k]);
            }
            printf("DIFF %s (%s): element %lld: cpu 0x%s, device 0x%s\n", what, ct_dtype_name(dt),
                   (long long)i, hx, hy);
            ld_failures++;
            break;
        }
    }
    ct_tensor_release(got);
}

static ct_tensor *ld_to_dev(const ct_tensor *t) {
    ct_tensor *d = NULL;
    LD_CHECK(ct_tensor_to_device(t, ld_device, &d));
    return d;
}

/* Same status, and same message on failure; returns whether both succeeded. */
static bool ld_same_outcome(const char *what, ct_status want, const char *want_msg,
                            ct_status got) {
    ld_checks++;
    if (want != got || (want != CT_OK && strcmp(want_msg, ct_last_error()) != 0)) {
        printf("DIFF %s: cpu status %d \"%s\", device status %d \"%s\"\n", what, (int)want,
               want != CT_OK ? want_msg : "", (int)got, got != CT_OK ? ct_last_error() : "");
        ld_failures++;
        return false;
    }
    return want == CT_OK;
}

/* How the second operand reaches the device op. */
typedef enum { LD_B_DEVICE = 0, LD_B_CPU_SCALAR = 1, LD_A_CPU_SCALAR = 2 } ld_b_mode;

/* op(a, b, alpha) as a new result, out= (out_dtype != UNDEFINED) and in place, on cpu and on
 * the device (a and b on the device, except the 0-dim cpu tensor joining the device op:
 * b for LD_B_CPU_SCALAR, a for LD_A_CPU_SCALAR). */
static void ld_binary(const char *what, ct_op op, const ct_tensor *a, const ct_tensor *b,
                      ct_scalar alpha, ld_b_mode bmode, ct_dtype out_dtype) {
    char name[256], msg[1024];
    ld_ulps = op == CT_OP_POW || op == CT_OP_ATAN2 || op == CT_OP_HYPOT ? ld_transcendental_ulps
                                                                          : 0;
    ld_any_zero_sign = op == CT_OP_FMAX || op == CT_OP_FMIN;
    ct_tensor *ad = bmode == LD_A_CPU_SCALAR ? ct_tensor_retain((ct_tensor *)a) : ld_to_dev(a);
    ct_tensor *bd = bmode == LD_B_CPU_SCALAR ? ct_tensor_retain((ct_tensor *)b) : ld_to_dev(b);
    /* complex pow has no device form: it runs through host memory, the cpu's values */
    /* new result */
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1 = ct_binary(op, a, b, alpha, &r1);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_binary(op, ad, bd, alpha, &r2);
    snprintf(name, sizeof name, "%s %s(%s, %s)", what, ct_op_name(op),
             ct_dtype_name(ct_tensor_dtype(a)), ct_dtype_name(ct_tensor_dtype(b)));
    if (ld_same_outcome(name, s1, msg, s2))
        ld_compare(name, r1, r2);
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    /* out= */
    if (out_dtype != CT_DTYPE_UNDEFINED) {
        ct_tensor *o1 = NULL, *o2 = NULL;
        int64_t zero = 0;
        LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &o1));
        LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &o2));
        s1 = ct_binary_out(op, a, b, alpha, o1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_binary_out(op, ad, bd, alpha, o2);
        snprintf(name, sizeof name, "%s %s(%s, %s, out=%s)", what, ct_op_name(op),
                 ct_dtype_name(ct_tensor_dtype(a)), ct_dtype_name(ct_tensor_dtype(b)),
                 ct_dtype_name(out_dtype));
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, o1, o2);
        ct_tensor_release(o1);
        ct_tensor_release(o2);
    }
    /* in place, on copies of a */
    {
        ct_tensor *i1 = NULL, *i2 = NULL;
        LD_CHECK(ct_tensor_clone(a, CT_MEMFMT_PRESERVE, &i1));
        LD_CHECK(ct_tensor_clone(ad, CT_MEMFMT_PRESERVE, &i2));
        s1 = ct_binary_(op, i1, b, alpha);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_binary_(op, i2, bd, alpha);
        snprintf(name, sizeof name, "%s %s_(%s, %s)", what, ct_op_name(op),
                 ct_dtype_name(ct_tensor_dtype(a)), ct_dtype_name(ct_tensor_dtype(b)));
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, i1, i2);
        ct_tensor_release(i1);
        ct_tensor_release(i2);
    }
    ct_tensor_release(ad);
    ct_tensor_release(bd);
    ld_ulps = 0;
    ld_any_zero_sign = false;
}

static const ct_op ld_ops[] = {CT_OP_ADD, CT_OP_SUB, CT_OP_MUL, CT_OP_DIV, CT_OP_DIV_TRUNC,
                               CT_OP_DIV_FLOOR};
#define LD_NOPS (sizeof ld_ops / sizeof ld_ops[0])

/* Every op of `ops` on one dtype pair, in every layout: contiguous, broadcast, transposed, a
 * 1-element b (read as a scalar), a 0-dim cpu b, a wrapped number b, alpha values, out= and
 * in place. */
static void ld_binary_pair_ops(ct_dtype da, ct_dtype db, unsigned seed, const ct_op *ops,
                               size_t nops) {
    int64_t s49[] = {4, 9}, s94[] = {9, 4}, s9[] = {9}, s1[] = {1};
    ct_tensor *a = ld_values(da, s49, 2, seed, false);
    ct_tensor *at_src = ld_values(da, s94, 2, seed + 1, false), *at = NULL;
    LD_CHECK(ct_tensor_t(at_src, &at));
    for (size_t k = 0; k < nops; k++) {
        ct_op op = ops[k];
        bool division = op == CT_OP_DIV_TRUNC || op == CT_OP_DIV_FLOOR || op == CT_OP_DIV ||
                        op == CT_OP_REMAINDER || op == CT_OP_FMOD;
        ct_tensor *b = ld_values(db, s49, 2, seed + 2, division);
        ct_tensor *bb = ld_values(db, s9, 1, seed + 3, division);
        ct_tensor *b1 = ld_values(db, s1, 1, seed + 4, division);
        ct_tensor *b0 = ld_values(db, NULL, 0, seed + 5, division);
        ct_tensor *wn = NULL;
        LD_CHECK(ct_tensor_wrapped_number(ld_is_int(db) ? ct_scalar_int(-3)
                                                        : ct_scalar_float(2.5),
                                          &wn));
        ct_scalar one = ct_scalar_int(1);
        ct_dtype out_alt = ct_dtype_is_complex(da) ? CT_COMPLEX128
                           : ld_is_int(da)         ? CT_FLOAT32
                                                   : CT_FLOAT16;
        ld_binary("contiguous", op, a, b, one, LD_B_DEVICE, out_alt);
        ld_binary("broadcast", op, a, bb, one, LD_B_DEVICE, CT_DTYPE_UNDEFINED);
        ld_binary("transposed", op, at, b, one, LD_B_DEVICE, CT_DTYPE_UNDEFINED);
        ld_binary("one-element", op, a, b1, one, LD_B_DEVICE, CT_DTYPE_UNDEFINED);
        ld_binary("cpu-scalar", op, a, b0, one, LD_B_CPU_SCALAR, CT_DTYPE_UNDEFINED);
        ld_binary("device-0dim", op, b0, a, one, LD_B_DEVICE, CT_DTYPE_UNDEFINED);
        ld_binary("cpu-scalar first", op, b0, a, one, LD_A_CPU_SCALAR, out_alt);
        ld_binary("wrapped", op, a, wn, one, LD_B_CPU_SCALAR, CT_DTYPE_UNDEFINED);
        if (op == CT_OP_ADD || op == CT_OP_SUB) {
            ld_binary("alpha=3", op, a, b, ct_scalar_int(3), LD_B_DEVICE, CT_DTYPE_UNDEFINED);
            ld_binary("alpha=-0.5", op, a, bb, ct_scalar_float(-0.5), LD_B_DEVICE,
                      CT_DTYPE_UNDEFINED);
            ld_binary("alpha=1+2j", op, a, b0, ct_scalar_complex(1, 2), LD_B_CPU_SCALAR,
                      CT_DTYPE_UNDEFINED);
            ld_binary("alpha=true", op, a, b, ct_scalar_bool(true), LD_B_DEVICE,
                      CT_DTYPE_UNDEFINED);
        }
        ct_tensor_release(b);
        ct_tensor_release(bb);
        ct_tensor_release(b1);
        ct_tensor_release(b0);
        ct_tensor_release(wn);
    }
    ct_tensor_release(a);
    ct_tensor_release(at);
    ct_tensor_release(at_src);
}

static void ld_binary_pair(ct_dtype da, ct_dtype db, unsigned seed) {
    ld_binary_pair_ops(da, db, seed, ld_ops, LD_NOPS);
}

/* Mixed pairs worth a look beyond the same-dtype ones: the benchmarks' (float16 + float32,
 * int32 + float32), every promotion category, float16/bfloat16 with other dtypes (the
 * rounding through the computation dtype), complex with real. */
static const ct_dtype ld_mixed[][2] = {
    {CT_FLOAT16, CT_FLOAT32},  {CT_FLOAT32, CT_FLOAT16},   {CT_INT32, CT_FLOAT32},
    {CT_FLOAT32, CT_INT32},    {CT_BFLOAT16, CT_FLOAT16},  {CT_FLOAT16, CT_BFLOAT16},
    {CT_UINT8, CT_INT8},       {CT_INT64, CT_FLOAT16},     {CT_BOOL, CT_FLOAT32},
    {CT_FLOAT32, CT_BOOL},     {CT_COMPLEX64, CT_FLOAT64}, {CT_FLOAT32, CT_COMPLEX128},
    {CT_INT32, CT_BFLOAT16},   {CT_COMPLEX32, CT_FLOAT32}, {CT_FLOAT16, CT_COMPLEX32},
    {CT_INT16, CT_UINT8},      {CT_UINT64, CT_INT64},      {CT_UINT32, CT_INT8},
    {CT_BOOL, CT_INT32},       {CT_FLOAT64, CT_FLOAT16},   {CT_BFLOAT16, CT_FLOAT64},
    {CT_INT8, CT_COMPLEX64},   {CT_COMPLEX64, CT_COMPLEX128}, {CT_FLOAT16, CT_INT64}};
#define LD_NMIXED (sizeof ld_mixed / sizeof ld_mixed[0])

static void ld_binary_all(void) {
    for (int i = 0; i < LD_N_ARITH; i++)
        ld_binary_pair(ld_arith[i], ld_arith[i], (unsigned)i);
    for (size_t i = 0; i < LD_NMIXED; i++)
        ld_binary_pair(ld_mixed[i][0], ld_mixed[i][1], (unsigned)(100 + i));
}

/* Copies with a dtype change between every pair of dtypes: cpu -> device, on the device,
 * device -> cpu, against the cpu's own conversion; with a transposed source. */
static void ld_copy_pair(ct_dtype from, ct_dtype to, unsigned seed) {
    char name[160];
    int64_t s49[] = {4, 9};
    bool f4 = from == CT_FLOAT4_E2M1FN_X2 || to == CT_FLOAT4_E2M1FN_X2;
    ct_tensor *x = NULL;
    if (from == CT_FLOAT4_E2M1FN_X2) {
        unsigned char raw[36];
        for (int i = 0; i < 36; i++)
            raw[i] = (unsigned char)(i * 37 + seed);
        LD_CHECK(ct_tensor_from_data(s49, 2, from, raw, &ld_cpu, &x));
    } else {
        x = ld_values(from, s49, 2, seed, false);
    }
    ct_tensor *xt = NULL;
    LD_CHECK(ct_tensor_t(x, &xt));
    ct_tensor *want = NULL, *want_t = NULL;
    ct_status s1 = ct_tensor_to(x, to, NULL, true, CT_MEMFMT_PRESERVE, &want);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    if (f4) {
        /* only float4 -> float4 copies; the refusal must be the cpu's */
        ct_tensor *g = NULL;
        ct_status s2 = ct_tensor_to(x, to, &ld_device, true, CT_MEMFMT_PRESERVE, &g);
        snprintf(name, sizeof name, "to(%s -> %s, device)", ct_dtype_name(from), ct_dtype_name(to));
        if (ld_same_outcome(name, s1, msg, s2))
            ld_compare(name, want, g);
        ct_tensor_release(g);
        ct_tensor_release(want);
        ct_tensor_release(xt);
        ct_tensor_release(x);
        return;
    }
    assert_int_equal(s1, CT_OK);
    LD_CHECK(ct_tensor_to(xt, to, NULL, true, CT_MEMFMT_CONTIGUOUS, &want_t));
    ct_tensor *g = NULL, *xd = ld_to_dev(x), *g2 = NULL, *g3 = NULL, *g4 = NULL;
    /* cpu -> device with the conversion */
    LD_CHECK(ct_tensor_to(x, to, &ld_device, true, CT_MEMFMT_PRESERVE, &g));
    snprintf(name, sizeof name, "to(%s -> %s): cpu -> device", ct_dtype_name(from),
             ct_dtype_name(to));
    ld_compare(name, want, g);
    /* on the device */
    LD_CHECK(ct_tensor_to(xd, to, NULL, true, CT_MEMFMT_PRESERVE, &g2));
    snprintf(name, sizeof name, "to(%s -> %s): on the device", ct_dtype_name(from),
             ct_dtype_name(to));
    ld_compare(name, want, g2);
    /* device -> cpu */
    LD_CHECK(ct_tensor_to(xd, to, &ld_cpu, true, CT_MEMFMT_PRESERVE, &g3));
    snprintf(name, sizeof name, "to(%s -> %s): device -> cpu", ct_dtype_name(from),
             ct_dtype_name(to));
    ld_compare(name, want, g3);
    /* a transposed source into a contiguous device tensor */
    int64_t s94[] = {9, 4};
    LD_CHECK(ct_tensor_empty(s94, 2, to, &ld_device, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &g4));
    LD_CHECK(ct_tensor_copy_(g4, xt));
    snprintf(name, sizeof name, "copy_(%s <- %s transposed): cpu -> device", ct_dtype_name(to),
             ct_dtype_name(from));
    ld_compare(name, want_t, g4);
    ct_tensor_release(g);
    ct_tensor_release(g2);
    ct_tensor_release(g3);
    ct_tensor_release(g4);
    ct_tensor_release(xd);
    ct_tensor_release(want);
    ct_tensor_release(want_t);
    ct_tensor_release(xt);
    ct_tensor_release(x);
}

static void ld_copy_all(void) {
    for (int f = 0; f < CT_NUM_DTYPES; f++)
        for (int t = 0; t < CT_NUM_DTYPES; t++)
            ld_copy_pair((ct_dtype)f, (ct_dtype)t, (unsigned)(f * 31 + t));
}

/* Layout cases of copy_: gapped and expanded sources and destinations, same-device
 * transposes, 0-dim and empty tensors, fill of strided device views. */
static void ld_copy_layouts(void) {
    int64_t s49[] = {4, 9}, s43[] = {4, 3}, s45[] = {4, 5};
    ct_tensor *x = ld_values(CT_FLOAT32, s49, 2, 7, false);
    ct_tensor *xd = ld_to_dev(x);
    /* a cpu source with gaps (span copy: step 2; compact host copy: step 4), to float64 */
    for (int step = 2; step <= 4; step += 2) {
        ct_tensor *v = NULL, *want = NULL, *g = NULL;
        LD_CHECK(ct_tensor_slice(x, 1, 0, 9, step, &v));
        LD_CHECK(ct_tensor_to(v, CT_FLOAT64, NULL, true, CT_MEMFMT_CONTIGUOUS, &want));
        LD_CHECK(ct_tensor_empty(step == 2 ? s45 : s43, 2, CT_FLOAT64, &ld_device,
                                 CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &g));
        LD_CHECK(ct_tensor_copy_(g, v));
        ld_compare(step == 2 ? "copy_ gapped cpu source (span)" : "copy_ gapped cpu source (compact)",
                   want, g);
        /* and the same dtype (a layout change only) */
        ct_tensor *want2 = NULL, *g2 = NULL;
        LD_CHECK(ct_tensor_contiguous(v, CT_MEMFMT_CONTIGUOUS, &want2));
        LD_CHECK(ct_tensor_empty(step == 2 ? s45 : s43, 2, CT_FLOAT32, &ld_device,
                                 CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &g2));
        LD_CHECK(ct_tensor_copy_(g2, v));
        ld_compare("copy_ gapped cpu source, same dtype", want2, g2);
        ct_tensor_release(want2);
        ct_tensor_release(g2);
        ct_tensor_release(v);
        ct_tensor_release(want);
        ct_tensor_release(g);
    }
    /* a device source into a gapped cpu destination (the bytes between stay) */
    {
        ct_tensor *big1 = ld_values(CT_FLOAT16, s49, 2, 9, false), *big2 = NULL, *v1 = NULL,
                  *v2 = NULL, *src = NULL, *srcd = NULL;
        LD_CHECK(ct_tensor_clone(big1, CT_MEMFMT_PRESERVE, &big2));
        LD_CHECK(ct_tensor_slice(big1, 1, 1, 9, 2, &v1));
        LD_CHECK(ct_tensor_slice(big2, 1, 1, 9, 2, &v2));
        int64_t s44[] = {4, 4};
        src = ld_values(CT_INT32, s44, 2, 11, false);
        srcd = ld_to_dev(src);
        LD_CHECK(ct_tensor_copy_(v1, src));
        LD_CHECK(ct_tensor_copy_(v2, srcd));
        ld_compare("copy_ device -> gapped cpu destination", big1, big2);
        ct_tensor_release(big1);
        ct_tensor_release(big2);
        ct_tensor_release(v1);
        ct_tensor_release(v2);
        ct_tensor_release(src);
        ct_tensor_release(srcd);
    }
    /* same device: a transposed view into a new tensor, with and without a dtype change */
    {
        ct_tensor *xt = NULL, *xdt = NULL, *want = NULL, *g = NULL;
        LD_CHECK(ct_tensor_t(x, &xt));
        LD_CHECK(ct_tensor_t(xd, &xdt));
        for (int k = 0; k < 2; k++) {
            ct_dtype to = k == 0 ? CT_FLOAT32 : CT_BFLOAT16;
            LD_CHECK(ct_tensor_to(xt, to, NULL, true, CT_MEMFMT_CONTIGUOUS, &want));
            LD_CHECK(ct_tensor_to(xdt, to, NULL, true, CT_MEMFMT_CONTIGUOUS, &g));
            ld_compare("contiguous() of a transposed device tensor", want, g);
            ct_tensor_release(want);
            ct_tensor_release(g);
        }
        ct_tensor_release(xt);
        ct_tensor_release(xdt);
    }
    /* broadcast: a [9] cpu source expanded into a [4, 9] device tensor; 0-dim tensors */
    {
        int64_t s9[] = {9};
        ct_tensor *row = ld_values(CT_INT64, s9, 1, 3, false), *want = NULL, *g = NULL;
        LD_CHECK(ct_tensor_empty(s49, 2, CT_FLOAT64, &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &want));
        LD_CHECK(ct_tensor_empty(s49, 2, CT_FLOAT64, &ld_device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &g));
        LD_CHECK(ct_tensor_copy_(want, row));
        LD_CHECK(ct_tensor_copy_(g, row));
        ld_compare("copy_ broadcast cpu row into a device tensor", want, g);
        ct_tensor *z = ld_values(CT_FLOAT64, NULL, 0, 5, false), *zw = NULL, *zd = NULL;
        LD_CHECK(ct_tensor_to(z, CT_INT16, NULL, true, CT_MEMFMT_PRESERVE, &zw));
        LD_CHECK(ct_tensor_to(z, CT_INT16, &ld_device, true, CT_MEMFMT_PRESERVE, &zd));
        ld_compare("0-dim to(int16, device)", zw, zd);
        ct_tensor_release(row);
        ct_tensor_release(want);
        ct_tensor_release(g);
        ct_tensor_release(z);
        ct_tensor_release(zw);
        ct_tensor_release(zd);
    }
    /* empty tensors: nothing moves, nothing fails */
    {
        int64_t s0[] = {0, 3};
        ct_tensor *e = NULL, *ed = NULL;
        LD_CHECK(ct_tensor_empty(s0, 2, CT_FLOAT32, &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &e));
        LD_CHECK(ct_tensor_to(e, CT_FLOAT16, &ld_device, true, CT_MEMFMT_PRESERVE, &ed));
        ct_tensor *r = NULL;
        LD_CHECK(ct_add(ed, ed, ct_scalar_int(1), &r));
        assert_int_equal(ct_tensor_numel(r), 0);
        ct_tensor_release(r);
        ct_tensor_release(e);
        ct_tensor_release(ed);
    }
    /* fill_ of dense and strided device views, every pattern size */
    {
        static const ct_dtype fd[] = {CT_BOOL,     CT_INT8,    CT_FLOAT16,    CT_INT32,
                                      CT_FLOAT64,  CT_COMPLEX128, CT_BFLOAT16, CT_COMPLEX32,
                                      CT_FLOAT8_E5M2};
        for (size_t k = 0; k < sizeof fd / sizeof fd[0]; k++) {
            ct_tensor *c = NULL, *d = NULL, *cv = NULL, *dv = NULL;
            LD_CHECK(ct_tensor_zeros(s49, 2, fd[k], &ld_cpu, CT_LAYOUT_STRIDED, &c));
            LD_CHECK(ct_tensor_zeros(s49, 2, fd[k], &ld_device, CT_LAYOUT_STRIDED, &d));
            LD_CHECK(ct_tensor_slice(c, 1, 0, 9, 3, &cv));
            LD_CHECK(ct_tensor_slice(d, 1, 0, 9, 3, &dv));
            ct_scalar v = fd[k] == CT_COMPLEX128 ? ct_scalar_complex(1.5, -2) : ct_scalar_float(-2.75);
            if (fd[k] == CT_BOOL || fd[k] == CT_INT8 || fd[k] == CT_INT32)
                v = ct_scalar_int(fd[k] == CT_BOOL ? 1 : -3);
            LD_CHECK(ct_tensor_fill_(cv, v));
            LD_CHECK(ct_tensor_fill_(dv, v));
            ld_compare("fill_ of a strided device view", c, d);
            LD_CHECK(ct_tensor_fill_(c, ct_scalar_int(1)));
            LD_CHECK(ct_tensor_fill_(d, ct_scalar_int(1)));
            ld_compare("fill_ of a dense device tensor", c, d);
            ct_tensor_release(c);
            ct_tensor_release(d);
            ct_tensor_release(cv);
            ct_tensor_release(dv);
        }
    }
    ct_tensor_release(x);
    ct_tensor_release(xd);
}

/* Integer division by zero fails as on cpu; a cpu tensor with dims does not join. */
static void ld_errors(void) {
    int64_t s4[] = {4};
    int32_t av[] = {1, 2, 3, 4}, bv[] = {1, 0, 1, 1};
    ct_tensor *a = NULL, *b = NULL, *r = NULL;
    LD_CHECK(ct_tensor_from_data(s4, 1, CT_INT32, av, &ld_cpu, &a));
    LD_CHECK(ct_tensor_from_data(s4, 1, CT_INT32, bv, &ld_cpu, &b));
    ct_tensor *ad = ld_to_dev(a), *bd = ld_to_dev(b);
    for (int mode = CT_ROUNDING_TRUNC; mode <= CT_ROUNDING_FLOOR; mode++) {
        assert_int_equal(ct_div(ad, bd, (ct_rounding_mode)mode, &r), CT_ERR_RUNTIME);
        assert_string_equal(ct_last_error(), "ZeroDivisionError");
        assert_int_equal(ct_div_(ad, bd, (ct_rounding_mode)mode), CT_ERR_RUNTIME);
        assert_string_equal(ct_last_error(), "ZeroDivisionError");
    }
    /* and the device keeps working afterwards */
    LD_CHECK(ct_div(ad, ad, CT_ROUNDING_TRUNC, &r));
    ct_tensor_release(r);
    r = NULL;
    assert_int_equal(ct_add(ad, b, ct_scalar_int(1), &r), CT_ERR_RUNTIME);
    assert_non_null(strstr(ct_last_error(),
                           "Expected all tensors to be on the same device, but found at least two "
                           "devices, "));
    assert_null(r);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(ad);
    ct_tensor_release(bd);
}

/* Long operands (the GPU's vectorised and grid-stride paths, misaligned starts) and a
 * geometry of many dims (the general kernel), against the cpu. */
static void ld_big(int64_t n) {
    static const ct_dtype pairs[][2] = {
        {CT_FLOAT32, CT_FLOAT32}, {CT_FLOAT16, CT_FLOAT16}, {CT_BFLOAT16, CT_BFLOAT16},
        {CT_INT32, CT_INT32},     {CT_FLOAT16, CT_FLOAT32}, {CT_INT32, CT_FLOAT32},
        {CT_FLOAT64, CT_FLOAT64}, {CT_UINT8, CT_UINT8}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        int64_t len = n + 3;
        ct_tensor *a = ld_values(pairs[k][0], &len, 1, (unsigned)k, false);
        ct_tensor *b = ld_values(pairs[k][1], &len, 1, (unsigned)k + 9, true);
        ct_tensor *a1 = NULL, *b1 = NULL, *a0 = NULL, *b0 = NULL;
        LD_CHECK(ct_tensor_narrow(a, 0, 1, n, &a1)); /* starts 1 element in: not 16-aligned */
        LD_CHECK(ct_tensor_narrow(b, 0, 1, n, &b1));
        LD_CHECK(ct_tensor_narrow(a, 0, 0, n, &a0));
        LD_CHECK(ct_tensor_narrow(b, 0, 0, n, &b0));
        ct_tensor *s0 = ld_values(pairs[k][1], NULL, 0, 77, true);
        for (size_t o = 0; o < LD_NOPS; o++) {
            ld_binary("long", ld_ops[o], a0, b0, ct_scalar_int(1), LD_B_DEVICE,
                      CT_DTYPE_UNDEFINED);
            ld_binary("long misaligned", ld_ops[o], a1, b1, ct_scalar_int(1), LD_B_DEVICE,
                      CT_DTYPE_UNDEFINED);
            ld_binary("long with a scalar", ld_ops[o], a0, s0, ct_scalar_int(1), LD_B_CPU_SCALAR,
                      CT_DTYPE_UNDEFINED);
        }
        ld_binary("long alpha", CT_OP_ADD, a0, b0, ct_scalar_int(2), LD_B_DEVICE,
                  CT_DTYPE_UNDEFINED);
        ct_tensor *want = NULL, *got = NULL, *ad = ld_to_dev(a0);
        LD_CHECK(ct_tensor_to_dtype(a0, CT_FLOAT8_E4M3FN, &want));
        LD_CHECK(ct_tensor_to_dtype(ad, CT_FLOAT8_E4M3FN, &got));
        ld_compare("long to(float8_e4m3fn)", want, got);
        ct_tensor_release(want);
        ct_tensor_release(got);
        ct_tensor_release(ad);
        ct_tensor_release(s0);
        ct_tensor_release(a);
        ct_tensor_release(b);
        ct_tensor_release(a1);
        ct_tensor_release(b1);
        ct_tensor_release(a0);
        ct_tensor_release(b0);
    }
    /* 20 dims of size 2, the second operand permuted (no dims coalesce) */
    int64_t shape[20], perm[20];
    for (int d = 0; d < 20; d++) {
        shape[d] = 2;
        perm[d] = (d * 7) % 20;
    }
    ct_tensor *x = ld_values(CT_FLOAT32, shape, 20, 3, false);
    ct_tensor *y0 = ld_values(CT_FLOAT16, shape, 20, 4, false), *y = NULL;
    LD_CHECK(ct_tensor_permute(y0, perm, 20, &y));
    /* The indexing of 20 dims is the same for every op: two of them (each of the 2^20
     * elements runs the host copy of the GPU code, about 1.5 s per op under the sanitizers;
     * every op meets every layout on small shapes above) */
    static const ct_op ops20[] = {CT_OP_ADD, CT_OP_DIV_FLOOR};
    for (size_t o = 0; o < sizeof ops20 / sizeof ops20[0]; o++)
        ld_binary("20 dims", ops20[o], x, y, ct_scalar_int(1), LD_B_DEVICE, CT_DTYPE_UNDEFINED);
    ct_tensor *want = NULL, *got = NULL, *yd = ld_to_dev(y);
    LD_CHECK(ct_tensor_contiguous(y, CT_MEMFMT_CONTIGUOUS, &want));
    LD_CHECK(ct_tensor_contiguous(yd, CT_MEMFMT_CONTIGUOUS, &got));
    ld_compare("20 dims contiguous()", want, got);
    ct_tensor_release(want);
    ct_tensor_release(got);
    ct_tensor_release(yd);
    ct_tensor_release(x);
    ct_tensor_release(y0);
    ct_tensor_release(y);
}

/* float16 <-> float32 conversions and float16 mul, exact to the bit, NaNs included: every
 * float16 pattern and 2^16 seeded float32 patterns with the special ones (the GPU converts
 * float16 with cvt instructions plus the codec's NaN rule; this holds it to the codec). */
static void ld_f16_exact(void) {
    static uint16_t hv[65536];
    static uint32_t fv[65536];
    uint32_t st = 1;
    for (int i = 0; i < 65536; i++) {
        hv[i] = (uint16_t)i;
        st = st * 1664525u + 1013904223u;
        fv[i] = st;
    }
    static const uint32_t special[] = {0x7F800001u, 0xFFC12345u, 0x7F800000u, 0xFF800000u,
                                       0x33800000u, 0x33000000u, 0x33000001u, 0x477FF000u,
                                       0x477FEFFFu, 0x387FE000u, 0x38800000u, 0x80000000u};
    memcpy(fv, special, sizeof special);
    int64_t n = 65536;
    ct_tensor *h = NULL, *f = NULL, *hd, *fd, *w1 = NULL, *w2 = NULL, *g1 = NULL, *g2 = NULL;
    ct_tensor *m1 = NULL, *m2 = NULL;
    LD_CHECK(ct_tensor_from_data(&n, 1, CT_FLOAT16, hv, &ld_cpu, &h));
    LD_CHECK(ct_tensor_from_data(&n, 1, CT_FLOAT32, fv, &ld_cpu, &f));
    hd = ld_to_dev(h);
    fd = ld_to_dev(f);
    LD_CHECK(ct_tensor_to(h, CT_FLOAT32, NULL, true, CT_MEMFMT_PRESERVE, &w1));
    LD_CHECK(ct_tensor_to(hd, CT_FLOAT32, &ld_cpu, true, CT_MEMFMT_PRESERVE, &g1));
    LD_CHECK(ct_tensor_to(f, CT_FLOAT16, NULL, true, CT_MEMFMT_PRESERVE, &w2));
    LD_CHECK(ct_tensor_to(fd, CT_FLOAT16, &ld_cpu, true, CT_MEMFMT_PRESERVE, &g2));
    assert_memory_equal(ct_tensor_data_ptr(w1), ct_tensor_data_ptr(g1), 4 * 65536);
    assert_memory_equal(ct_tensor_data_ptr(w2), ct_tensor_data_ptr(g2), 2 * 65536);
    /* mul and add of float16 tensors: the inputs' NaNs pass through float32 arithmetic,
     * whose payload rules differ between cpu and GPU, so only non-NaN results are exact */
    LD_CHECK(ct_mul(h, h, &m1));
    LD_CHECK(ct_mul(hd, hd, &m2));
    ld_compare("float16 * float16, every pattern", m1, m2);
    ct_tensor *objs[] = {h, f, hd, fd, w1, w2, g1, g2, m1, m2};
    for (size_t k = 0; k < sizeof objs / sizeof objs[0]; k++)
        ct_tensor_release(objs[k]);
}

/* ---- the kernel rows after DIV_FLOOR (src/kernels/binary_plan2.h): comparisons, logical
 * ops, maximum .. fmin, pow .. shifts ---------------------------------------------------- */
static const ct_op ld_ops2[] = {
    CT_OP_EQ,          CT_OP_NE,          CT_OP_LT,          CT_OP_LE,
    CT_OP_GT,          CT_OP_GE,          CT_OP_LOGICAL_AND, CT_OP_LOGICAL_OR,
    CT_OP_LOGICAL_XOR, CT_OP_MAXIMUM,     CT_OP_MINIMUM,     CT_OP_FMAX,
    CT_OP_FMIN,        CT_OP_POW,         CT_OP_REMAINDER,   CT_OP_FMOD,
    CT_OP_ATAN2,       CT_OP_HYPOT,       CT_OP_BITWISE_AND, CT_OP_BITWISE_OR,
    CT_OP_BITWISE_XOR, CT_OP_BITWISE_LEFT_SHIFT, CT_OP_BITWISE_RIGHT_SHIFT};
#define LD_NOPS2 (sizeof ld_ops2 / sizeof ld_ops2[0])

/* pow with a Python-number exponent (pow.Tensor_Scalar: the special exponents 2, 3, -2, 0.5,
 * -0.5, -1; others through pow; integer ones; a negative integer one refused for integer
 * bases; a bool one), new, out= and in place. */
static void ld_pow_scalars(ct_dtype da, unsigned seed) {
    static const double fx[] = {2.0, 3.0, -2.0, 0.5, -0.5, -1.0, 1.5, -3.25, 0.0, 1.0};
    static const int64_t ix[] = {2, 3, 0, 1, 5, -1, -2};
    int64_t s49[] = {4, 9};
    ct_tensor *a = ld_values(da, s49, 2, seed, false);
    for (size_t k = 0; k < sizeof fx / sizeof fx[0] + sizeof ix / sizeof ix[0] + 1; k++) {
        ct_scalar e = k < sizeof fx / sizeof fx[0] ? ct_scalar_float(fx[k])
                      : k < sizeof fx / sizeof fx[0] + sizeof ix / sizeof ix[0]
                          ? ct_scalar_int(ix[k - sizeof fx / sizeof fx[0]])
                          : ct_scalar_bool(true);
        ct_tensor *wn = NULL;
        LD_CHECK(ct_tensor_wrapped_number(e, &wn));
        ld_binary("pow scalar", CT_OP_POW, a, wn, ct_scalar_int(1), LD_B_CPU_SCALAR,
                  ld_is_int(da) ? CT_FLOAT64 : CT_DTYPE_UNDEFINED);
        ct_tensor_release(wn);
    }
    ct_tensor_release(a);
}

static void ld_binary2_all(void) {
    for (int i = 0; i < LD_N_ARITH; i++) {
        ld_binary_pair_ops(ld_arith[i], ld_arith[i], (unsigned)i, ld_ops2, LD_NOPS2);
        ld_pow_scalars(ld_arith[i], (unsigned)(50 + i));
    }
    for (size_t i = 0; i < LD_NMIXED; i++)
        ld_binary_pair_ops(ld_mixed[i][0], ld_mixed[i][1], (unsigned)(100 + i), ld_ops2,
                           LD_NOPS2);
}

/* Long operands (the GPU's flat and grid-stride paths, misaligned starts) and 20 dims. */
static void ld_big2(int64_t n) {
    static const ct_dtype pairs[][2] = {{CT_FLOAT32, CT_FLOAT32}, {CT_FLOAT16, CT_FLOAT16},
                                        {CT_INT32, CT_INT32},     {CT_FLOAT16, CT_FLOAT32},
                                        {CT_INT64, CT_INT64},     {CT_UINT8, CT_UINT8}};
    static const ct_op ops[] = {CT_OP_EQ,  CT_OP_LT,        CT_OP_LOGICAL_XOR, CT_OP_MAXIMUM,
                                CT_OP_FMIN, CT_OP_POW,      CT_OP_REMAINDER,   CT_OP_FMOD,
                                CT_OP_BITWISE_AND, CT_OP_BITWISE_LEFT_SHIFT};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        int64_t len = n + 3;
        ct_tensor *a = ld_values(pairs[k][0], &len, 1, (unsigned)k, false);
        ct_tensor *b = ld_values(pairs[k][1], &len, 1, (unsigned)k + 9, true);
        ct_tensor *a1 = NULL, *b1 = NULL, *a0 = NULL, *b0 = NULL;
        LD_CHECK(ct_tensor_narrow(a, 0, 1, n, &a1));
        LD_CHECK(ct_tensor_narrow(b, 0, 1, n, &b1));
        LD_CHECK(ct_tensor_narrow(a, 0, 0, n, &a0));
        LD_CHECK(ct_tensor_narrow(b, 0, 0, n, &b0));
        ct_tensor *s0 = ld_values(pairs[k][1], NULL, 0, 77, true);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ld_binary("long", ops[o], a0, b0, ct_scalar_int(1), LD_B_DEVICE, CT_DTYPE_UNDEFINED);
            ld_binary("long misaligned", ops[o], a1, b1, ct_scalar_int(1), LD_B_DEVICE,
                      CT_DTYPE_UNDEFINED);
            ld_binary("long with a scalar", ops[o], a0, s0, ct_scalar_int(1), LD_B_CPU_SCALAR,
                      CT_DTYPE_UNDEFINED);
        }
        ct_tensor *objs[] = {a, b, a1, b1, a0, b0, s0};
        for (size_t j = 0; j < sizeof objs / sizeof objs[0]; j++)
            ct_tensor_release(objs[j]);
    }
    int64_t shape[20], perm[20];
    for (int d = 0; d < 20; d++) {
        shape[d] = 2;
        perm[d] = (d * 7) % 20;
    }
    ct_tensor *x = ld_values(CT_FLOAT32, shape, 20, 3, false);
    ct_tensor *y0 = ld_values(CT_FLOAT16, shape, 20, 4, false), *y = NULL;
    LD_CHECK(ct_tensor_permute(y0, perm, 20, &y));
    /* a sample of the kinds (bool result, NaN rules, pow, floor division, two-argument
     * math): the 20-dim indexing is the same for every op, as in ld_big */
    static const ct_op ops20[] = {CT_OP_EQ,        CT_OP_LOGICAL_XOR, CT_OP_FMAX,
                                  CT_OP_POW,       CT_OP_REMAINDER,   CT_OP_ATAN2};
    for (size_t o = 0; o < sizeof ops20 / sizeof ops20[0]; o++)
        ld_binary("20 dims", ops20[o], x, y, ct_scalar_int(1), LD_B_DEVICE, CT_DTYPE_UNDEFINED);
    ct_tensor_release(x);
    ct_tensor_release(y0);
    ct_tensor_release(y);
}

/* Integer remainder and fmod by zero fail as on the cpu (and the device keeps working);
 * complex pow is refused on the device with its own message. */
static void ld_errors2(void) {
    int64_t s4[] = {4};
    int32_t av[] = {1, 2, 3, 4}, bv[] = {1, 0, 1, 1};
    ct_tensor *a = NULL, *b = NULL, *r = NULL;
    LD_CHECK(ct_tensor_from_data(s4, 1, CT_INT32, av, &ld_cpu, &a));
    LD_CHECK(ct_tensor_from_data(s4, 1, CT_INT32, bv, &ld_cpu, &b));
    ct_tensor *ad = ld_to_dev(a), *bd = ld_to_dev(b);
    static const ct_op ops[] = {CT_OP_REMAINDER, CT_OP_FMOD};
    for (size_t k = 0; k < 2; k++) {
        char msg[256];
        ct_status s1 = ct_binary(ops[k], a, b, ct_scalar_int(1), &r);
        assert_int_not_equal(s1, CT_OK);
        snprintf(msg, sizeof msg, "%s", ct_last_error());
        assert_int_equal(ct_binary(ops[k], ad, bd, ct_scalar_int(1), &r), s1);
        assert_string_equal(ct_last_error(), msg);
        assert_null(r);
        assert_int_equal(ct_binary_(ops[k], ad, bd, ct_scalar_int(1)), s1);
        assert_string_equal(ct_last_error(), msg);
    }
    /* (ad was partly written in place above: a fresh copy) */
    ct_tensor *a2 = ld_to_dev(a);
    LD_CHECK(ct_binary(CT_OP_REMAINDER, a2, a2, ct_scalar_int(1), &r));
    ct_tensor_release(r);
    ct_tensor_release(a2);
    r = NULL;
    ct_tensor *c = NULL, *cd = NULL;
    LD_CHECK(ct_tensor_to_dtype(a, CT_COMPLEX64, &c));
    cd = ld_to_dev(c);
    /* complex pow runs through host memory (Note [Staging through host memory]) */
    ct_tensor *rc = NULL;
    LD_CHECK(ct_binary(CT_OP_POW, c, c, ct_scalar_int(1), &rc));
    LD_CHECK(ct_binary(CT_OP_POW, cd, cd, ct_scalar_int(1), &r));
    ld_compare("complex pow through the host", rc, r);
    ct_tensor_release(rc);
    ct_tensor_release(r);
    r = NULL;
    ct_tensor *objs[] = {a, b, ad, bd, c, cd};
    for (size_t j = 0; j < sizeof objs / sizeof objs[0]; j++)
        ct_tensor_release(objs[j]);
}

#endif /* CT_TESTS_LAUNCH_DIFF_H */
