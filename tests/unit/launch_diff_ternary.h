/* Differential checks of the ternary ops (ctensor/ternary.def) on `ld_device` against the
 * cpu, with launch_diff.h's helpers: every op x dtype x layout (contiguous, broadcast
 * condition and bounds, transposed, one element, 0-dim, empty, scalar bounds as Python
 * numbers and as 0-dim cpu tensors), as a new result, out= (contiguous and non-contiguous
 * output) and in place; errors by status and message. Shared by
 * tests/unit/test_launch_dispatch.c (host-executed launches, in CI) and
 * tests/cuda/test_cuda_kernels.c (the GPU). */
#ifndef CT_TESTS_LAUNCH_DIFF_TERNARY_H
#define CT_TESTS_LAUNCH_DIFF_TERNARY_H

#include "launch_diff.h"

/* How input k reaches the device op: bit k set keeps it on the cpu (a 0-dim cpu tensor or
 * a Python number joining the device op), else it is copied to the device. */
static ct_tensor *lt_place(const ct_tensor *t, unsigned keep_cpu, int k) {
    if (t == NULL)
        return NULL;
    if ((keep_cpu >> k) & 1u)
        return ct_tensor_retain((ct_tensor *)t);
    return ld_to_dev(t);
}

/* A non-contiguous tensor of `shape` (2 dims: the transpose of a contiguous one). */
static ct_tensor *lt_noncontig(const ct_tensor *like, ct_dtype dt, const ct_device *dev) {
    const int64_t *sz = ct_tensor_sizes(like);
    int64_t rev[2] = {sz[1], sz[0]};
    ct_tensor *e = NULL, *t = NULL;
    LD_CHECK(ct_tensor_zeros(rev, 2, dt, dev, CT_LAYOUT_STRIDED, &e));
    LD_CHECK(ct_tensor_transpose(e, 0, 1, &t));
    ct_tensor_release(e);
    return t;
}

/* op(a, b, c, value) on cpu and device: new result, out= of dtype out_dtype (resized from
 * empty; also into a non-contiguous output of the result's shape when it has 2 dims) unless
 * CT_DTYPE_UNDEFINED, and in place on a copy of a (not where). */
static void lt_ternary(const char *what, ct_terop op, const ct_tensor *a, const ct_tensor *b,
                       const ct_tensor *c, ct_scalar value, unsigned keep_cpu,
                       ct_dtype out_dtype) {
    char name[320], msg[1024];
    ct_tensor *ad = lt_place(a, keep_cpu, 0), *bd = lt_place(b, keep_cpu, 1),
              *cd = lt_place(c, keep_cpu, 2);
    snprintf(name, sizeof name, "%s %s(%s, %s, %s)", what, ct_terop_name(op),
             ct_dtype_name(ct_tensor_dtype(a)), b ? ct_dtype_name(ct_tensor_dtype(b)) : "None",
             c ? ct_dtype_name(ct_tensor_dtype(c)) : "None");
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1 = ct_ternary(op, a, b, c, value, &r1);
    snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
    ct_status s2 = ct_ternary(op, ad, bd, cd, value, &r2);
    if (ld_same_outcome(name, s1, msg, s2))
        ld_compare(name, r1, r2);
    if (out_dtype != CT_DTYPE_UNDEFINED) {
        char oname[360];
        ct_tensor *o1 = NULL, *o2 = NULL;
        int64_t zero = 0;
        LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_cpu, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &o1));
        LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_device, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &o2));
        snprintf(oname, sizeof oname, "%s out=%s", name, ct_dtype_name(out_dtype));
        s1 = ct_ternary_out(op, a, b, c, value, o1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_ternary_out(op, ad, bd, cd, value, o2);
        if (ld_same_outcome(oname, s1, msg, s2))
            ld_compare(oname, o1, o2);
        ct_tensor_release(o1);
        ct_tensor_release(o2);
        if (r1 != NULL && ct_tensor_dim(r1) == 2) {
            o1 = lt_noncontig(r1, out_dtype, &ld_cpu);
            o2 = lt_noncontig(r1, out_dtype, &ld_device);
            snprintf(oname, sizeof oname, "%s out=%s non-contiguous", name,
                     ct_dtype_name(out_dtype));
            s1 = ct_ternary_out(op, a, b, c, value, o1);
            snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
            s2 = ct_ternary_out(op, ad, bd, cd, value, o2);
            if (ld_same_outcome(oname, s1, msg, s2))
                ld_compare(oname, o1, o2);
            ct_tensor_release(o1);
            ct_tensor_release(o2);
        }
    }
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    if (op != CT_TEROP_WHERE && !((keep_cpu & 1u) && ct_tensor_dim(a) == 0)) {
        char iname[360];
        ct_tensor *i1 = NULL, *i2 = NULL;
        LD_CHECK(ct_tensor_clone(a, CT_MEMFMT_PRESERVE, &i1));
        LD_CHECK(ct_tensor_clone(ad, CT_MEMFMT_PRESERVE, &i2));
        snprintf(iname, sizeof iname, "%s in-place", name);
        s1 = ct_ternary_(op, i1, b, c, value);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_ternary_(op, i2, bd, cd, value);
        if (ld_same_outcome(iname, s1, msg, s2))
            ld_compare(iname, i1, i2);
        ct_tensor_release(i1);
        ct_tensor_release(i2);
    }
    ct_tensor_release(ad);
    ct_tensor_release(bd);
    ct_tensor_release(cd);
}

/* Input k's dtype for op with data dtype dt: where's condition and masked_fill's mask are
 * bool. */
static ct_dtype lt_in_dtype(ct_terop op, int k, ct_dtype dt) {
    if ((op == CT_TEROP_WHERE && k == 0) || (op == CT_TEROP_MASKED_FILL && k == 1))
        return CT_BOOL;
    return dt;
}

static const ct_terop lt_ops[] = {CT_TEROP_WHERE, CT_TEROP_CLAMP,   CT_TEROP_CLAMP_MIN,
                                  CT_TEROP_CLAMP_MAX, CT_TEROP_LERP, CT_TEROP_ADDCMUL,
                                  CT_TEROP_ADDCDIV, CT_TEROP_MASKED_FILL};
#define LT_NOPS (sizeof lt_ops / sizeof lt_ops[0])

static int lt_nin(ct_terop op) {
    return op == CT_TEROP_CLAMP_MIN || op == CT_TEROP_CLAMP_MAX ? 2 : 3;
}

/* A Python number of the dtype's kind. */
static ct_tensor *lt_number(ct_dtype dt, int which) {
    ct_tensor *t = NULL;
    ct_scalar s = dt == CT_BOOL            ? ct_scalar_bool(which != 0)
                  : ld_is_int(dt)          ? ct_scalar_int(which == 0 ? -2 : 5)
                  : ct_dtype_is_complex(dt) ? ct_scalar_complex(0.25, which == 0 ? -1 : 0.5)
                                           : ct_scalar_float(which == 0 ? -0.3 : 0.7);
    LD_CHECK(ct_tensor_wrapped_number(s, &t));
    return t;
}

/* Every layout of one op on data dtype dt (inputs of the other data dtype dt2 where the
 * op promotes). */
static void lt_op_dtype(ct_terop op, ct_dtype dt, ct_dtype dt2, unsigned seed) {
    int64_t s34[] = {3, 4}, s43[] = {4, 3}, s4[] = {4}, s31[] = {3, 1}, s1[] = {1},
            s04[] = {0, 4};
    int nin = lt_nin(op);
    bool fill = op == CT_TEROP_MASKED_FILL;
    ct_scalar value = ld_is_int(dt) ? ct_scalar_int(3) : ct_scalar_float(0.5);
    ct_dtype dts[3] = {lt_in_dtype(op, 0, dt), lt_in_dtype(op, 1, dt2), lt_in_dtype(op, 2, dt)};
    ct_dtype out_dtype = dt;
    /* contiguous; broadcast ([3,4], [4], [3,1]); one element; 0-dim; empty */
    const int64_t *shapes[][3] = {{s34, s34, s34}, {s34, s4, s31}, {s4, s34, s31},
                                  {s1, s1, s1},    {NULL, NULL, NULL}, {s04, s4, s04}};
    const int ndims[][3] = {{2, 2, 2}, {2, 1, 2}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {2, 1, 2}};
    const char *names[] = {"contiguous", "broadcast", "broadcast first", "one-element",
                           "0-dim",      "empty"};
    for (int L = 0; L < 6; L++) {
        ct_tensor *in[3] = {NULL, NULL, NULL};
        for (int k = 0; k < nin; k++) {
            bool zero_dim = fill && k == 2; /* masked_fill's value */
            in[k] = ld_values(dts[k], zero_dim ? NULL : shapes[L][k], zero_dim ? 0 : ndims[L][k],
                              seed + 10 * (unsigned)L + (unsigned)k, false);
        }
        lt_ternary(names[L], op, in[0], in[1], in[2], value, 0, L == 0 ? out_dtype
                                                                       : CT_DTYPE_UNDEFINED);
        for (int k = 0; k < nin; k++)
            ct_tensor_release(in[k]);
    }
    /* transposed inputs, and a mixed-dtype third input (promotion, rounding through the
     * computation dtype) */
    {
        ct_tensor *src = ld_values(dts[0], s43, 2, seed + 70, false), *a = NULL;
        LD_CHECK(ct_tensor_t(src, &a));
        ct_tensor *b = ld_values(dts[1], s34, 2, seed + 71, false);
        ct_tensor *c = nin == 3 ? ld_values(fill ? dt2 : dts[2], fill ? NULL : s4, fill ? 0 : 1,
                                            seed + 72, false)
                                : NULL;
        lt_ternary("transposed", op, a, b, c, value, 0, out_dtype);
        ct_tensor_release(src);
        ct_tensor_release(a);
        ct_tensor_release(b);
        ct_tensor_release(c);
    }
    /* scalars: Python numbers and 0-dim cpu tensors as the later inputs */
    {
        ct_tensor *a = ld_values(dts[0], s34, 2, seed + 80, false);
        ct_tensor *b = ld_values(dts[1], s34, 2, seed + 81, false);
        ct_tensor *c = nin == 3 ? ld_values(dts[2], s34, 2, seed + 82, false) : NULL;
        ct_tensor *n1 = lt_number(dts[1], 0), *n2 = lt_number(dts[2], 1);
        ct_tensor *z2 = ld_values(dt2, NULL, 0, seed + 83, false);
        if (op == CT_TEROP_CLAMP || op == CT_TEROP_CLAMP_MIN || op == CT_TEROP_CLAMP_MAX) {
            lt_ternary("number bounds", op, a, n1, nin == 3 ? n2 : NULL, value, 6u, out_dtype);
            if (op == CT_TEROP_CLAMP) {
                lt_ternary("number min only", op, a, n1, NULL, value, 2u, CT_DTYPE_UNDEFINED);
                lt_ternary("number max only", op, a, NULL, n2, value, 4u, CT_DTYPE_UNDEFINED);
                lt_ternary("tensor min only", op, a, b, NULL, value, 0u, CT_DTYPE_UNDEFINED);
            }
            if (!ld_is_int(dt)) { /* a NaN bound: all NaN, or ignored by one-bound clamp */
                ct_tensor *nan = NULL;
                LD_CHECK(ct_tensor_wrapped_number(ct_scalar_float(NAN), &nan));
                lt_ternary("NaN bound", op, a, nan, nin == 3 ? n2 : NULL, value, 6u,
                           CT_DTYPE_UNDEFINED);
                ct_tensor_release(nan);
            }
        } else if (op == CT_TEROP_WHERE) {
            lt_ternary("number other", op, a, b, n2, value, 4u, out_dtype);
            lt_ternary("number both", op, a, n1, n2, value, 6u, CT_DTYPE_UNDEFINED);
            lt_ternary("cpu-scalar self", op, a, z2, b, value, 2u, CT_DTYPE_UNDEFINED);
        } else if (op == CT_TEROP_LERP) {
            lt_ternary("number weight", op, a, b, n2, value, 4u, out_dtype);
        } else if (op == CT_TEROP_MASKED_FILL) {
            ct_tensor *z = ld_values(dt2, NULL, 0, seed + 84, false);
            lt_ternary("number value", op, a, b, n2, value, 4u, out_dtype);
            lt_ternary("cpu-scalar value", op, a, b, z, value, 4u, CT_DTYPE_UNDEFINED);
            lt_ternary("device value", op, a, b, z, value, 0u, CT_DTYPE_UNDEFINED);
            ct_tensor_release(z);
        } else { /* addcmul, addcdiv: a 0-dim cpu tensor1 and value variants */
            lt_ternary("cpu-scalar tensor2", op, a, b, z2, ct_scalar_int(-2), 4u, out_dtype);
            lt_ternary("value=1", op, a, b, c, ct_scalar_int(1), 0u, CT_DTYPE_UNDEFINED);
            if (ct_dtype_is_complex(dt))
                lt_ternary("value=1-2j", op, a, b, c, ct_scalar_complex(1, -2), 0u,
                           CT_DTYPE_UNDEFINED);
        }
        ct_tensor_release(a);
        ct_tensor_release(b);
        ct_tensor_release(c);
        ct_tensor_release(n1);
        ct_tensor_release(n2);
        ct_tensor_release(z2);
    }
}

/* Mixed dtype pairs beyond the same-dtype ones (data dtype, other input's dtype). */
static const ct_dtype lt_mixed[][2] = {
    {CT_FLOAT16, CT_FLOAT32}, {CT_BFLOAT16, CT_FLOAT64}, {CT_INT32, CT_FLOAT32},
    {CT_FLOAT32, CT_INT64},   {CT_INT64, CT_FLOAT16},    {CT_UINT8, CT_INT8},
    {CT_FLOAT16, CT_BFLOAT16}, {CT_COMPLEX64, CT_FLOAT64}, {CT_BOOL, CT_INT32}};
#define LT_NMIXED (sizeof lt_mixed / sizeof lt_mixed[0])

static void ld_ternary_all(void) {
    for (size_t o = 0; o < LT_NOPS; o++) {
        for (int i = 0; i < LD_N_ARITH; i++)
            lt_op_dtype(lt_ops[o], ld_arith[i], ld_arith[i], (unsigned)(i + 20 * o));
        for (size_t i = 0; i < LT_NMIXED; i++)
            lt_op_dtype(lt_ops[o], lt_mixed[i][0], lt_mixed[i][1], (unsigned)(500 + i + 20 * o));
    }
}

/* The refusals: the same status and message on the device as on the cpu. */
static void ld_ternary_errors(void) {
    int64_t s4[] = {4}, s2[] = {2}, s1[] = {1};
    ct_tensor *o1 = ld_values(CT_FLOAT32, s1, 1, 6, false);
    ct_tensor *f = ld_values(CT_FLOAT32, s4, 1, 1, false);
    ct_tensor *i = ld_values(CT_INT32, s4, 1, 2, false);
    ct_tensor *m = ld_values(CT_BOOL, s4, 1, 3, false);
    ct_tensor *f2 = ld_values(CT_FLOAT32, s2, 1, 4, false);
    ct_tensor *cx = ld_values(CT_COMPLEX64, s4, 1, 5, false);
    ct_scalar one = ct_scalar_int(1);
    /* where with a float condition; lerp of mixed dtypes; addcdiv of integers; clamp of
     * complex; masked_fill with a float mask and with a 1-dim value; shapes that do not
     * broadcast; an in-place result that would need a larger self */
    lt_ternary("float cond", CT_TEROP_WHERE, f, f, f, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("mixed lerp", CT_TEROP_LERP, f, i, f, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("int addcdiv", CT_TEROP_ADDCDIV, f, i, i, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("complex clamp", CT_TEROP_CLAMP, cx, cx, cx, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("float mask", CT_TEROP_MASKED_FILL, f, f, f2, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("1-dim value", CT_TEROP_MASKED_FILL, f, m, f2, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("no broadcast", CT_TEROP_ADDCMUL, f, f2, f, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("in-place grows", CT_TEROP_ADDCMUL, o1, f, f, one, 0, CT_DTYPE_UNDEFINED);
    lt_ternary("out cast", CT_TEROP_ADDCMUL, f, f, f, one, 0, CT_INT32);
    lt_ternary("where out dtype", CT_TEROP_WHERE, m, f, f, one, 0, CT_FLOAT64);
    ct_tensor_release(f);
    ct_tensor_release(i);
    ct_tensor_release(m);
    ct_tensor_release(f2);
    ct_tensor_release(cx);
    ct_tensor_release(o1);
}

#endif /* CT_TESTS_LAUNCH_DIFF_TERNARY_H */
