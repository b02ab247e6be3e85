/* Matrix products (linalg.h): values of mm/bmm/mv/dot/outer/addmm/baddbmm/matmul against
 * a naive loop for every kernel dtype, transposed and sliced operands (the BLAS transpose
 * flag and the packing path), beta/alpha, integer wrapping, meta shapes, PyTorch 1.13's
 * error messages, out= and allocation failures. Messages checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "ctensor/cpu.h"
#include "ctensor/linalg.h"
#include "ctensor/parallel.h"
#include "tensor_test_util.h"

#include "fault_loop.h"

static ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t nd, int seed) {
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++)
        n *= sizes[d];
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        /* 8-bit: small non-negative values, so the naive double check does not overflow */
        v[i] = dt == CT_INT8 || dt == CT_UINT8 ? (double)((i * 7 + seed * 3) % 3)
                                               : (double)((i * 7 + seed * 3) % 11) - 5.0;
    ct_tensor *d = NULL, *t = NULL;
    OK(ct_tensor_from_data(sizes, nd, CT_FLOAT64, v, &CPU, &d));
    OK(ct_tensor_to(d, dt, NULL, true, CT_MEMFMT_CONTIGUOUS, &t));
    ct_tensor_release(d);
    free(v);
    return t;
}

static double *vals(const ct_tensor *t) {
    ct_tensor *d = NULL;
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, true, CT_MEMFMT_CONTIGUOUS, &d));
    int64_t n = ct_tensor_numel(d);
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    assert_non_null(v);
    if (n > 0)
        memcpy(v, ct_tensor_data_ptr(d), (size_t)n * sizeof *v);
    ct_tensor_release(d);
    return v;
}

/* r ([m, n]) == beta * c + alpha * a @ b computed naively in double. */
static void check_mm(const ct_tensor *r, const ct_tensor *c, const ct_tensor *a,
                     const ct_tensor *b, double beta, double alpha) {
    int64_t m = ct_tensor_sizes(a)[0], k = ct_tensor_sizes(a)[1], n = ct_tensor_sizes(b)[1];
    double *va = vals(a), *vb = vals(b), *vr = vals(r), *vc = c ? vals(c) : NULL;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += va[i * k + p] * vb[p * n + j];
            double want = alpha * s + (vc ? beta * vc[i * n + j] : 0);
            if (fabs(vr[i * n + j] - want) > 1e-3 * (1 + fabs(want)))
                fail_msg("[%d, %d]: got %g, want %g", (int)i, (int)j, vr[i * n + j], want);
        }
    free(va);
    free(vb);
    free(vr);
    free(vc);
}

static const ct_dtype KERNEL_DTYPES[] = {CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128,
                                         CT_FLOAT16, CT_BFLOAT16, CT_INT8, CT_UINT8,
                                         CT_INT16, CT_INT32, CT_INT64};

static void test_mm_values(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof KERNEL_DTYPES / sizeof KERNEL_DTYPES[0]; i++) {
        ct_dtype dt = KERNEL_DTYPES[i];
        ct_tensor *a = mk(dt, SHAPE(5, 4), 1), *b = mk(dt, SHAPE(4, 3), 2), *r = NULL;
        OK(ct_tensor_mm(a, b, &r));
        assert_int_equal(ct_tensor_dtype(r), dt);
        check_mm(r, NULL, a, b, 0, 1);
        ct_tensor_release(r);
        /* transposed operands: a.t() of a [4, 5] and b.t() of a [3, 4] */
        ct_tensor *at = mk(dt, SHAPE(4, 5), 3), *bt = mk(dt, SHAPE(3, 4), 4), *ta = NULL,
                  *tb = NULL;
        OK(ct_tensor_transpose(at, 0, 1, &ta));
        OK(ct_tensor_transpose(bt, 0, 1, &tb));
        OK(ct_tensor_mm(ta, tb, &r));
        check_mm(r, NULL, ta, tb, 0, 1);
        ct_tensor_release(r);
        /* addmm with beta and alpha (integers take the integer values) */
        ct_tensor *c = mk(dt, SHAPE(5, 3), 5);
        OK(ct_tensor_addmm(c, a, tb, ct_scalar_int(2), ct_scalar_int(3), &r));
        check_mm(r, c, a, tb, 2, 3);
        ct_tensor_release(r);
        ct_tensor_release(c);
        ct_tensor_release(ta);
        ct_tensor_release(tb);
        ct_tensor_release(at);
        ct_tensor_release(bt);
        ct_tensor_release(a);
        ct_tensor_release(b);
    }
}

static void test_sliced_and_batched(void **state) {
    (void)state;
    /* a [6, 8] sliced to every other column: neither stride unit, so it is packed */
    ct_tensor *big = mk(CT_FLOAT32, SHAPE(6, 8), 1), *a = NULL, *b = mk(CT_FLOAT32, SHAPE(4, 2), 2);
    OK(ct_tensor_as_strided(big, (const int64_t[]){6, 4}, (const int64_t[]){8, 2}, 2, NULL, &a));
    ct_tensor *r = NULL, *a3 = NULL, *b3 = NULL, *r3 = NULL;
    OK(ct_tensor_mm(a, b, &r));
    check_mm(r, NULL, a, b, 0, 1);
    /* bmm of the same matrices three times (expanded batch: stride 0) */
    ct_tensor *ua = NULL, *ub = NULL;
    OK(ct_tensor_unsqueeze(a, 0, &ua));
    OK(ct_tensor_unsqueeze(b, 0, &ub));
    OK(ct_tensor_expand(ua, SHAPE(3, 6, 4), &a3));
    OK(ct_tensor_expand(ub, SHAPE(3, 4, 2), &b3));
    OK(ct_tensor_bmm(a3, b3, &r3));
    assert_sizes(r3, 3, 6, 2);
    double *v1 = vals(r), *v3 = vals(r3);
    for (int i = 0; i < 3 * 12; i++)
        assert_true(v3[i] == v1[i % 12]);
    free(v1);
    free(v3);
    ct_tensor *m = NULL;
    OK(ct_tensor_matmul(a3, b, &m)); /* folded into one mm */
    assert_sizes(m, 3, 6, 2);
    ct_tensor_release(m);
    assert_int_equal(ct_tensor_matmul(b, a3, &m), CT_ERR_RUNTIME); /* 2 != 6 */
    assert_null(m);
    ct_tensor *v = mk(CT_FLOAT32, SHAPE(4), 3);
    OK(ct_tensor_matmul(v, b, &m));
    assert_sizes(m, 2);
    ct_tensor_release(m);
    OK(ct_tensor_matmul(a3, v, &m));
    assert_sizes(m, 3, 6);
    ct_tensor_release(m);
    OK(ct_tensor_mv(a, v, &m));
    assert_sizes(m, 6);
    ct_tensor_release(m);
    OK(ct_tensor_dot(v, v, &m));
    assert_int_equal(ct_tensor_dim(m), 0);
    double *d = vals(m), *vv = vals(v), s = 0;
    for (int i = 0; i < 4; i++)
        s += vv[i] * vv[i];
    assert_true(d[0] == s);
    free(d);
    free(vv);
    ct_tensor_release(m);
    OK(ct_tensor_outer(v, v, &m));
    assert_sizes(m, 4, 4);
    ct_tensor_release(m);
    ct_tensor *c = mk(CT_FLOAT32, SHAPE(3, 6, 2), 4);
    OK(ct_tensor_baddbmm(c, a3, b3, ct_scalar_float(0.5), ct_scalar_float(2), &m));
    assert_sizes(m, 3, 6, 2);
    ct_tensor_release(m);
    ct_tensor_release(c);
    ct_tensor_release(v);
    ct_tensor_release(ua);
    ct_tensor_release(ub);
    ct_tensor_release(a3);
    ct_tensor_release(b3);
    ct_tensor_release(r3);
    ct_tensor_release(r);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(big);
}

static void test_integer_wrap(void **state) {
    (void)state;
    ct_tensor *a = NULL, *r = NULL;
    OK(ct_tensor_full(SHAPE(2, 3), ct_scalar_int(100), CT_INT8, &CPU, CT_LAYOUT_STRIDED, &a));
    ct_tensor *b = NULL;
    OK(ct_tensor_full(SHAPE(3, 2), ct_scalar_int(100), CT_INT8, &CPU, CT_LAYOUT_STRIDED, &b));
    OK(ct_tensor_mm(a, b, &r));
    double *v = vals(r);
    assert_true(v[0] == (double)(int8_t)(uint8_t)(30000 & 0xff)); /* 3 * 100 * 100 wraps */
    free(v);
    ct_tensor_release(r);
    ct_tensor_release(a);
    ct_tensor_release(b);
}

static void test_errors(void **state) {
    (void)state;
    ct_tensor *f23 = mk(CT_FLOAT32, SHAPE(2, 3), 1), *d34 = mk(CT_FLOAT64, SHAPE(3, 4), 2),
              *f45 = mk(CT_FLOAT32, SHAPE(4, 5), 3), *f3 = mk(CT_FLOAT32, SHAPE(3), 4),
              *s = mk(CT_FLOAT32, NULL, 0, 5), *r = NULL;
    EXPECT_ERR(ct_tensor_mm(f23, d34, &r), CT_ERR_RUNTIME, "expected scalar type Float but found Double");
    assert_null(r);
    EXPECT_ERR(ct_tensor_mm(f23, f45, &r), CT_ERR_RUNTIME,
               "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    EXPECT_ERR(ct_tensor_matmul(s, f3, &r), CT_ERR_RUNTIME,
               "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    EXPECT_ERR(ct_tensor_mm(f3, f23, &r), CT_ERR_RUNTIME, "self must be a matrix");
    EXPECT_ERR(ct_tensor_bmm(f23, f23, &r), CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    EXPECT_ERR(ct_tensor_mv(f23, f45, &r), CT_ERR_RUNTIME,
               "vector + matrix @ vector expected, got 1, 2, 2");
    EXPECT_ERR(ct_tensor_dot(f3, f23, &r), CT_ERR_RUNTIME,
               "1D tensors expected, but got 1D and 2D tensors");
    EXPECT_ERR(ct_tensor_addmm(f23, f3, f23, ct_scalar_int(1), ct_scalar_int(1), &r),
               CT_ERR_RUNTIME, "mat1 must be a matrix, got 1-D tensor");
    ct_tensor *b23 = mk(CT_BOOL, SHAPE(2, 3), 1), *b32 = mk(CT_BOOL, SHAPE(3, 2), 1);
    EXPECT_ERR(ct_tensor_mm(b23, b32, &r), CT_ERR_NOT_IMPLEMENTED,
               "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    ct_tensor *o = mk(CT_FLOAT64, SHAPE(1), 1);
    ct_tensor *f34 = mk(CT_FLOAT32, SHAPE(3, 4), 1);
    EXPECT_ERR(ct_tensor_mm_out(f23, f34, o), CT_ERR_RUNTIME,
               "Expected out tensor to have dtype float, but got double instead");
    EXPECT_ERR(ct_tensor_mm(NULL, f34, &r), CT_ERR_MISUSE, "ct_tensor_mm: tensor is NULL");
    ct_tensor_release(o);
    ct_tensor_release(f34);
    ct_tensor_release(b23);
    ct_tensor_release(b32);
    ct_tensor_release(f23);
    ct_tensor_release(d34);
    ct_tensor_release(f45);
    ct_tensor_release(f3);
    ct_tensor_release(s);
}

static void test_meta_and_out(void **state) {
    (void)state;
    ct_tensor *a = NULL, *b = NULL, *r = NULL;
    OK(ct_tensor_empty(SHAPE(7, 2, 3), CT_FLOAT32, &META, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CONTIGUOUS, &a));
    OK(ct_tensor_empty(SHAPE(3, 4), CT_FLOAT32, &META, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CONTIGUOUS, &b));
    OK(ct_tensor_matmul(a, b, &r));
    assert_sizes(r, 7, 2, 4);
    assert_int_equal(ct_tensor_device(r).type, CT_DEVICE_META);
    ct_tensor_release(r);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor *x = mk(CT_FLOAT64, SHAPE(2, 3), 1), *y = mk(CT_FLOAT64, SHAPE(3, 4), 2), *o = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &o));
    OK(ct_tensor_matmul_out(x, y, o));
    assert_sizes(o, 2, 4);
    check_mm(o, NULL, x, y, 0, 1);
    ct_tensor_release(o);
    ct_tensor_release(x);
    ct_tensor_release(y);
}

static void test_threads(void **state) {
    (void)state;
    int prev = ct_get_num_threads();
    ct_tensor *a = mk(CT_INT32, SHAPE(4, 70, 50), 1), *b = mk(CT_INT32, SHAPE(4, 50, 30), 2);
    ct_tensor *r1 = NULL, *r2 = NULL;
    OK(ct_set_num_threads(1));
    OK(ct_tensor_bmm(a, b, &r1));
    OK(ct_set_num_threads(2));
    OK(ct_tensor_bmm(a, b, &r2));
    double *v1 = vals(r1), *v2 = vals(r2);
    assert_memory_equal(v1, v2, 4 * 70 * 30 * sizeof(double));
    free(v1);
    free(v2);
    OK(ct_set_num_threads(prev));
    ct_tensor_release(r1);
    ct_tensor_release(r2);
    ct_tensor_release(a);
    ct_tensor_release(b);
}

/* The same bytes with 1 and 2 threads: float32 batches split whole over threads (16
 * products, 4 or more per thread) against OpenBLAS threading each product, and bfloat16
 * (the AVX512-BF16 kernel where the CPU has it: panels packed by either thread) with
 * enough work for both threads. */
static void test_threads_same_bytes(void **state) {
    (void)state;
    int prev = ct_get_num_threads();
    static const struct {
        ct_dtype dt;
        int64_t s[3][3];
    } cases[] = {
        {CT_FLOAT32, {{16, 70, 50}, {16, 50, 30}, {16, 70, 30}}},
        {CT_BFLOAT16, {{2, 200, 300}, {2, 300, 260}, {2, 200, 260}}},
        {CT_FLOAT16, {{1, 65, 33}, {1, 33, 17}, {1, 65, 17}}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ct_tensor *a = mk(cases[c].dt, cases[c].s[0], 3, 1);
        ct_tensor *b = mk(cases[c].dt, cases[c].s[1], 3, 2);
        ct_tensor *r1 = NULL, *r2 = NULL;
        OK(ct_set_num_threads(1));
        OK(ct_tensor_bmm(a, b, &r1));
        OK(ct_set_num_threads(2));
        OK(ct_tensor_bmm(a, b, &r2));
        size_t bytes = (size_t)ct_tensor_numel(r1) * ct_dtype_itemsize(cases[c].dt);
        assert_memory_equal(ct_tensor_data_ptr(r1), ct_tensor_data_ptr(r2), bytes);
        ct_tensor *a0 = NULL, *b0 = NULL, *r0 = NULL; /* and a 2-D product of the first */
        OK(ct_tensor_select(a, 0, 0, &a0));
        OK(ct_tensor_select(b, 0, 0, &b0));
        OK(ct_tensor_mm(a0, b0, &r0));
        assert_memory_equal(ct_tensor_data_ptr(r0), ct_tensor_data_ptr(r2),
                            bytes / (size_t)cases[c].s[0][0]);
        ct_tensor_release(a0);
        ct_tensor_release(b0);
        ct_tensor_release(r0);
        ct_tensor_release(r1);
        ct_tensor_release(r2);
        ct_tensor_release(a);
        ct_tensor_release(b);
    }
    OK(ct_set_num_threads(prev));
}

/* bfloat16: the AVX512-BF16 kernel (where the CPU has it) and the sgemm path (forced by the
 * avx2 level) on odd sizes, a transposed and a sliced operand, batches and k = 0. Inputs are
 * small integers, so each float32 sum is exact and both paths round it to the same bf16. */
static ct_tensor *bf16_run(const int64_t *sa, const int64_t *sb, int64_t nd, int layout) {
    ct_tensor *a = mk(CT_BFLOAT16, sa, nd, 1), *b = NULL, *r = NULL;
    if (layout == 1) { /* b: the transpose of a contiguous [.., n, k] */
        int64_t sbt[3];
        memcpy(sbt, sb, (size_t)nd * sizeof *sbt);
        sbt[nd - 2] = sb[nd - 1];
        sbt[nd - 1] = sb[nd - 2];
        ct_tensor *bt = mk(CT_BFLOAT16, sbt, nd, 2);
        OK(ct_tensor_transpose(bt, nd - 2, nd - 1, &b));
        ct_tensor_release(bt);
    } else if (layout == 2) { /* a: every other column of a [.., m, 2k] */
        int64_t sa2[3];
        memcpy(sa2, sa, (size_t)nd * sizeof *sa2);
        sa2[nd - 1] *= 2;
        ct_tensor *wide = mk(CT_BFLOAT16, sa2, nd, 1);
        ct_tensor_release(a);
        int64_t st[3] = {0, 0, 0};
        st[nd - 1] = 2;
        st[nd - 2] = sa2[nd - 1];
        if (nd == 3)
            st[0] = sa2[1] * sa2[2];
        OK(ct_tensor_as_strided(wide, sa, st, nd, NULL, &a));
        ct_tensor_release(wide);
        b = mk(CT_BFLOAT16, sb, nd, 2);
    } else {
        b = mk(CT_BFLOAT16, sb, nd, 2);
    }
    OK(ct_tensor_matmul(a, b, &r));
    if (nd == 2) { /* against the double reference: one bf16 rounding (2^-8 relative) */
        int64_t m = sa[0], k = sa[1], n = sb[1];
        double *va = vals(a), *vb = vals(b), *vr = vals(r);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double want = 0;
                for (int64_t p = 0; p < k; p++)
                    want += va[i * k + p] * vb[p * n + j];
                if (fabs(vr[i * n + j] - want) > fabs(want) / 256)
                    fail_msg("[%d, %d]: got %g, want %g", (int)i, (int)j, vr[i * n + j], want);
            }
        free(va);
        free(vb);
        free(vr);
    }
    ct_tensor_release(a);
    ct_tensor_release(b);
    return r;
}

static void test_bf16_kernel_and_fallback(void **state) {
    (void)state;
    static const struct {
        int64_t nd, sa[3], sb[3];
    } shapes[] = {
        {2, {33, 17}, {17, 100}}, {2, {1, 257}, {257, 3}}, {2, {100, 3}, {3, 33}},
        {2, {5, 0}, {0, 7}},      {2, {1, 1}, {1, 1}},     {3, {3, 33, 17}, {3, 17, 100}},
        {3, {2, 1, 5}, {2, 5, 1}},
    };
    ct_cpu_isa level = ct_cpu_isa_active();
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int layout = 0; layout < 3; layout++) {
            const int64_t *sa = shapes[s].sa, *sb = shapes[s].sb, nd = shapes[s].nd;
            ct_tensor *best = bf16_run(sa, sb, nd, layout);
            OK(ct_cpu_set_isa(level < CT_ISA_AVX2 ? level : CT_ISA_AVX2));
            ct_tensor *sg = bf16_run(sa, sb, nd, layout);
            OK(ct_cpu_set_isa(level));
            int64_t n = ct_tensor_numel(best);
            assert_int_equal(n, ct_tensor_numel(sg));
            if (n > 0)
                assert_memory_equal(ct_tensor_data_ptr(best), ct_tensor_data_ptr(sg), (size_t)n * 2);
            ct_tensor_release(best);
            ct_tensor_release(sg);
        }
}

/* Integer products at every ISA level this CPU has, against a wrapping naive loop: shapes
 * that leave partial row groups and partial panels at every level's micro-kernel (up to 8
 * rows, panels of 16 to 128 bytes), k = 0, and both operands transposed (A then has no unit
 * stride along k and is copied; B's panels gather strided columns). */
static void check_int_wrapping(const ct_tensor *r, const ct_tensor *a, const ct_tensor *b) {
    int64_t m = ct_tensor_sizes(a)[0], k = ct_tensor_sizes(a)[1], n = ct_tensor_sizes(b)[1];
    size_t isz = ct_dtype_itemsize(ct_tensor_dtype(r));
    double *va = vals(a), *vb = vals(b);
    const unsigned char *got = ct_tensor_data_ptr(r);
    uint64_t mask = isz == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * isz)) - 1;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t s = 0;
            for (int64_t p = 0; p < k; p++)
                s += (uint64_t)(int64_t)va[i * k + p] * (uint64_t)(int64_t)vb[p * n + j];
            uint64_t g = 0; /* little-endian element */
            for (size_t q = 0; q < isz; q++)
                g |= (uint64_t)got[(size_t)(i * n + j) * isz + q] << (8 * q);
            if (g != (s & mask))
                fail_msg("[%d, %d] of %dx%dx%d: got %llu, want %llu", (int)i, (int)j, (int)m,
                         (int)k, (int)n, (unsigned long long)g, (unsigned long long)(s & mask));
        }
    free(va);
    free(vb);
}

static void test_int_every_level(void **state) {
    (void)state;
    static const ct_dtype dts[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64};
    static const int64_t mkn[][3] = {{1, 1, 1},    {7, 3, 9},   {13, 0, 5},   {19, 37, 70},
                                     {6, 129, 33}, {9, 5, 130}, {17, 64, 17}, {2, 300, 1}};
    ct_cpu_isa top = ct_cpu_isa_active();
    for (int level = CT_ISA_BASELINE; level <= (int)top; level++) {
        OK(ct_cpu_set_isa((ct_cpu_isa)level));
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
            for (size_t s = 0; s < sizeof mkn / sizeof mkn[0]; s++)
                for (int layout = 0; layout < 2; layout++) {
                    int64_t m = mkn[s][0], k = mkn[s][1], n = mkn[s][2];
                    ct_tensor *a = NULL, *b = NULL, *r = NULL;
                    if (layout == 0) {
                        a = mk(dts[d], SHAPE(m, k), 1);
                        b = mk(dts[d], SHAPE(k, n), 2);
                    } else {
                        ct_tensor *at = mk(dts[d], SHAPE(k, m), 1),
                                  *bt = mk(dts[d], SHAPE(n, k), 2);
                        OK(ct_tensor_t(at, &a));
                        OK(ct_tensor_t(bt, &b));
                        ct_tensor_release(at);
                        ct_tensor_release(bt);
                    }
                    OK(ct_tensor_mm(a, b, &r));
                    check_int_wrapping(r, a, b);
                    ct_tensor_release(a);
                    ct_tensor_release(b);
                    ct_tensor_release(r);
                }
    }
    OK(ct_cpu_set_isa(top));
}

static ct_tensor *fa, *fb, *fv;
static ct_status f_mm(ct_tensor **out) { return ct_tensor_mm(fa, fb, out); }
static ct_status f_matmul(ct_tensor **out) { return ct_tensor_matmul(fa, fv, out); }
static ct_status f_dot(ct_tensor **out) { return ct_tensor_dot(fv, fv, out); }
static ct_status f_addmm(ct_tensor **out) {
    return ct_tensor_addmm(fv, fa, fb, ct_scalar_int(2), ct_scalar_int(1), out);
}

static void test_fault_injection(void **state) {
    (void)state;
    ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT16, CT_INT32, CT_BFLOAT16};
    for (int i = 0; i < 4; i++) {
        ct_tensor *x = mk(dts[i], SHAPE(4, 6), 1);
        /* a sliced a (packed) and a transposed b */
        OK(ct_tensor_as_strided(x, (const int64_t[]){4, 3}, (const int64_t[]){6, 2}, 2, NULL, &fa));
        ct_tensor *y = mk(dts[i], SHAPE(3, 3), 2);
        OK(ct_tensor_transpose(y, 0, 1, &fb));
        fv = mk(dts[i], SHAPE(3), 3);
        ct_allocator prev = ct_get_allocator();
        ct_allocator fail = {NULL, fa_alloc, fa_free};
        OK(ct_set_allocator(&fail));
        assert_true(fault_loop("mm", f_mm) > 0);
        assert_true(fault_loop("matmul", f_matmul) > 0);
        assert_true(fault_loop("dot", f_dot) > 0);
        assert_true(fault_loop("addmm", f_addmm) > 0);
        OK(ct_set_allocator(&prev));
        ct_tensor_release(fa);
        ct_tensor_release(fb);
        ct_tensor_release(fv);
        ct_tensor_release(x);
        ct_tensor_release(y);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm_values),     cmocka_unit_test(test_sliced_and_batched),
        cmocka_unit_test(test_integer_wrap),  cmocka_unit_test(test_errors),
        cmocka_unit_test(test_meta_and_out),  cmocka_unit_test(test_threads),
        cmocka_unit_test(test_fault_injection), cmocka_unit_test(test_bf16_kernel_and_fallback),
        cmocka_unit_test(test_threads_same_bytes), cmocka_unit_test(test_int_every_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
