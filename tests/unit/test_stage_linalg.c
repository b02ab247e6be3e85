/* Matrix products, the nuclear norm, reordering, triangles and unique_dim on an accelerator,
 * staged through host memory (src/tensor/stage.h), on an emulated cuda whose memory the host
 * cannot read: every result, out= and in-place target equals the cpu's, and every error is
 * the cpu's (status and message). */
#include <string.h>

#include "ctensor/linalg.h"
#include "ctensor/linalg_add.h"
#include "ctensor/reduce.h"
#include "ctensor/reorder.h"
#include "ctensor/triangle.h"
#include "ctensor/unique.h"
#include "stage_test_util.h"

static const ct_dtype DTYPES[] = {CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_INT64};
#define NDTYPES (sizeof DTYPES / sizeof DTYPES[0])

/* dev (on `device`) equals cpu: dtype and sizes; values to rounding (floats), exactly
 * (integers). Consumes neither. */
static void expect_close(const ct_tensor *dev, ct_device device, const ct_tensor *cpu) {
    assert_non_null(dev);
    assert_true(ct_device_equal(ct_tensor_device(dev), device));
    assert_int_equal(ct_tensor_dtype(dev), ct_tensor_dtype(cpu));
    assert_i64s(ct_tensor_sizes(dev), ct_tensor_dim(dev), ct_tensor_sizes(cpu), ct_tensor_dim(cpu));
    ct_tensor *h = NULL;
    OK(ct_tensor_to(dev, CT_DTYPE_UNDEFINED, &CPU, true, CT_MEMFMT_CONTIGUOUS, &h));
    bool same = false;
    OK(ct_allclose(h, cpu, 1e-5, 1e-5, true, &same));
    if (!same)
        fail_msg("the device result differs from the cpu's");
    ct_tensor_release(h);
}

/* A cpu operand of `dtype`; transposed (non-contiguous) when `trans` and 2-D or more. */
static ct_tensor *operand(ct_dtype dtype, const int64_t *sizes, int64_t ndim, uint64_t seed,
                          bool trans) {
    if (!trans || ndim < 2)
        return randn_as(dtype, sizes, ndim, seed);
    int64_t s[CT_MAX_DIMS];
    memcpy(s, sizes, (size_t)ndim * sizeof s[0]);
    s[ndim - 1] = sizes[ndim - 2];
    s[ndim - 2] = sizes[ndim - 1];
    ct_tensor *c = randn_as(dtype, s, ndim, seed), *t = NULL;
    OK(ct_tensor_transpose(c, ndim - 2, ndim - 1, &t));
    ct_tensor_release(c);
    return t;
}

typedef struct shape_pair {
    int64_t a[4], b[4];
    int64_t na, nb;
} shape_pair;

/* matmul, and mm / bmm / mv / dot / outer where the shapes fit: 1-D, 2-D, batched and
 * broadcast batch shapes, contiguous and transposed operands, every dtype. */
static void test_products(void **state) {
    (void)state;
    static const shape_pair pairs[] = {
        {.a = {3}, .na = 1, .b = {3}, .nb = 1},
        {.a = {4, 3}, .na = 2, .b = {3}, .nb = 1},
        {.a = {3}, .na = 1, .b = {3, 5}, .nb = 2},
        {.a = {4, 3}, .na = 2, .b = {3, 5}, .nb = 2},
        {.a = {2, 4, 3}, .na = 3, .b = {3, 5}, .nb = 2},
        {.a = {2, 4, 3}, .na = 3, .b = {2, 3, 5}, .nb = 3},
        {.a = {2, 1, 4, 3}, .na = 4, .b = {3, 3, 5}, .nb = 3},
        {.a = {4, 3}, .na = 2, .b = {4, 5}, .nb = 2}, /* a shape error */
        {.a = {3}, .na = 1, .b = {4}, .nb = 1},       /* a size error */
    };
    for (size_t d = 0; d < NDTYPES; d++) {
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            for (int tr = 0; tr < 2; tr++) {
                const shape_pair *sp = &pairs[p];
                ct_tensor *a = operand(DTYPES[d], sp->a, sp->na, 10 + p, tr);
                ct_tensor *b = operand(DTYPES[d], sp->b, sp->nb, 20 + p, tr);
                ct_tensor *ga = on_dev(a, DEV0), *gb = on_dev(b, DEV0);
                if (tr) { /* on_dev keeps strides; the transposes must stay transposed */
                    ct_tensor_release(ga);
                    ct_tensor_release(gb);
                    ct_tensor *ca = NULL, *cb = NULL;
                    OK(ct_tensor_to(a, CT_DTYPE_UNDEFINED, &DEV0, true, CT_MEMFMT_PRESERVE,
                                    &ca));
                    OK(ct_tensor_to(b, CT_DTYPE_UNDEFINED, &DEV0, true, CT_MEMFMT_PRESERVE,
                                    &cb));
                    ga = ca;
                    gb = cb;
                }
                typedef ct_status (*fn2)(const ct_tensor *, const ct_tensor *, ct_tensor **);
                static const fn2 fns[] = {ct_tensor_matmul, ct_tensor_mm, ct_tensor_bmm,
                                          ct_tensor_mv, ct_tensor_dot, ct_tensor_outer};
                for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
                    ct_tensor *r1 = NULL, *r2 = NULL;
                    long d2h = opaque_d2h;
                    if (SAME_STATUS(fns[f](a, b, &r1), fns[f](ga, gb, &r2))) {
                        assert_true(opaque_d2h > d2h);
                        expect_close(r2, DEV0, r1);
                    } else {
                        assert_null(r2);
                    }
                    ct_tensor_release(r1);
                    ct_tensor_release(r2);
                }
                ct_tensor_release(ga);
                ct_tensor_release(gb);
                ct_tensor_release(a);
                ct_tensor_release(b);
            }
        }
    }
}

/* addmm, baddbmm, addbmm, addmv and addr with beta and alpha, every dtype; their out= forms
 * and in-place forms on views of a larger device tensor, whose other elements stay. */
static void test_add_products(void **state) {
    (void)state;
    for (size_t d = 0; d < NDTYPES; d++) {
        bool integral = DTYPES[d] == CT_INT64;
        ct_scalar beta = integral ? ct_scalar_int(2) : ct_scalar_float(0.5);
        ct_scalar alpha = integral ? ct_scalar_int(3) : ct_scalar_float(-1.5);
        ct_tensor *m1 = operand(DTYPES[d], SHAPE(4, 3), 1, true);
        ct_tensor *m2 = operand(DTYPES[d], SHAPE(3, 5), 2, false);
        ct_tensor *b1 = operand(DTYPES[d], SHAPE(2, 4, 3), 3, false);
        ct_tensor *b2 = operand(DTYPES[d], SHAPE(2, 3, 5), 4, true);
        ct_tensor *v3 = operand(DTYPES[d], SHAPE(3), 5, false);
        ct_tensor *v4 = operand(DTYPES[d], SHAPE(4), 6, false);
        ct_tensor *v5 = operand(DTYPES[d], SHAPE(5), 7, false);
        ct_tensor *in45 = operand(DTYPES[d], SHAPE(5), 8, false); /* broadcast to [4, 5] */
        ct_tensor *in245 = operand(DTYPES[d], SHAPE(2, 4, 5), 9, false);
        ct_tensor *gm1 = NULL, *gb2 = NULL;
        OK(ct_tensor_to(m1, CT_DTYPE_UNDEFINED, &DEV1, true, CT_MEMFMT_PRESERVE, &gm1));
        OK(ct_tensor_to(b2, CT_DTYPE_UNDEFINED, &DEV1, true, CT_MEMFMT_PRESERVE, &gb2));
        ct_tensor *gm2 = on_dev(m2, DEV1), *gb1 = on_dev(b1, DEV1), *gv3 = on_dev(v3, DEV1);
        ct_tensor *gv4 = on_dev(v4, DEV1), *gv5 = on_dev(v5, DEV1), *gin45 = on_dev(in45, DEV1);
        ct_tensor *gin245 = on_dev(in245, DEV1);
        ct_tensor *r1 = NULL, *r2 = NULL;
#define BOTH(FN, I, A, B)                                                                          \
    do {                                                                                           \
        if (SAME_STATUS(FN(I, A, B, beta, alpha, &r1), FN(g##I, g##A, g##B, beta, alpha, &r2)))    \
            expect_close(r2, DEV1, r1);                                                            \
        ct_tensor_release(r1);                                                                     \
        ct_tensor_release(r2);                                                                     \
        r1 = r2 = NULL;                                                                            \
    } while (0)
        BOTH(ct_tensor_addmm, in45, m1, m2);
        BOTH(ct_tensor_baddbmm, in245, b1, b2);
        BOTH(ct_tensor_addbmm, in45, b1, b2);
        BOTH(ct_tensor_addmv, v4, m1, v3);
        BOTH(ct_tensor_addr, in45, v4, v5);
        BOTH(ct_tensor_addmm, in45, m2, m1); /* the cpu's shape error */
#undef BOTH
        /* out= into a [4, 5] block of a [4, 7] device tensor; column 6 must stay */
        ct_tensor *wide_c = randn_as(DTYPES[d], SHAPE(4, 7), 30), *wide = on_dev(wide_c, DEV1);
        ct_tensor *out = NULL, *col_d = NULL, *col_c = NULL;
        OK(ct_tensor_narrow(wide, 1, 1, 5, &out));
        OK(ct_tensor_addmm(in45, m1, m2, beta, alpha, &r1));
        OK(ct_tensor_addmm_out(gin45, gm1, gm2, beta, alpha, out));
        expect_close(out, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_mm(m1, m2, &r1));
        OK(ct_tensor_matmul_out(gm1, gm2, out));
        expect_close(out, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_addr(in45, v4, v5, beta, alpha, &r1));
        OK(ct_tensor_addr_out(gin45, gv4, gv5, beta, alpha, out));
        expect_close(out, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_narrow(wide, 1, 6, 1, &col_d));
        OK(ct_tensor_narrow(wide_c, 1, 6, 1, &col_c));
        expect_same(col_d, DEV1, col_c);
        /* in place on the view: self = beta * self + alpha * m1 @ m2 */
        ct_tensor *self_c = NULL;
        OK(ct_tensor_to(out, CT_DTYPE_UNDEFINED, &CPU, true, CT_MEMFMT_PRESERVE, &self_c));
        OK(ct_tensor_addmm_(self_c, m1, m2, beta, alpha));
        OK(ct_tensor_addmm_(out, gm1, gm2, beta, alpha));
        expect_close(out, DEV1, self_c);
        OK(ct_tensor_addr_(self_c, v4, v5, beta, alpha));
        OK(ct_tensor_addr_(out, gv4, gv5, beta, alpha));
        expect_close(out, DEV1, self_c);
        OK(ct_tensor_addbmm_(self_c, b1, b2, beta, alpha));
        OK(ct_tensor_addbmm_(out, gb1, gb2, beta, alpha));
        expect_close(out, DEV1, self_c);
        expect_same(col_d, DEV1, col_c);
        /* addbmm_ resizes self (as PyTorch 1.13): an empty device self grows */
        ct_tensor *e1 = NULL, *e2 = NULL;
        OK(ct_tensor_zeros(SHAPE(0), DTYPES[d], &CPU, CT_LAYOUT_STRIDED, &e1));
        OK(ct_tensor_zeros(SHAPE(0), DTYPES[d], &DEV1, CT_LAYOUT_STRIDED, &e2));
        if (SAME_STATUS(ct_tensor_addbmm_(e1, b1, b2, ct_scalar_int(0), alpha),
                        ct_tensor_addbmm_(e2, gb1, gb2, ct_scalar_int(0), alpha)))
            expect_close(e2, DEV1, e1);
        ct_tensor_release(e1);
        ct_tensor_release(e2);
        /* out= of another shape: resized on the device */
        ct_tensor *small = NULL;
        OK(ct_tensor_empty(SHAPE(0), DTYPES[d], &DEV1, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &small));
        OK(ct_tensor_bmm(b1, b2, &r1));
        OK(ct_tensor_bmm_out(gb1, gb2, small));
        expect_same(small, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_addmv(v4, m1, v3, beta, alpha, &r1));
        OK(ct_tensor_addmv_out(gv4, gm1, gv3, beta, alpha, small));
        expect_same(small, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_baddbmm(in245, b1, b2, beta, alpha, &r1));
        OK(ct_tensor_baddbmm_out(gin245, gb1, gb2, beta, alpha, small));
        expect_close(small, DEV1, r1);
        OK(ct_tensor_baddbmm_(gin245, gb1, gb2, beta, alpha));
        expect_close(gin245, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_dot(v3, v3, &r1));
        OK(ct_tensor_dot_out(gv3, gv3, small));
        expect_close(small, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_mv(m1, v3, &r1));
        OK(ct_tensor_mv_out(gm1, gv3, small));
        expect_close(small, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_outer(v4, v5, &r1));
        OK(ct_tensor_outer_out(gv4, gv5, small));
        expect_close(small, DEV1, r1);
        ct_tensor_release(r1);
        ct_tensor *v4c = NULL; /* last: it changes gv4 */
        OK(ct_tensor_clone(v4, CT_MEMFMT_PRESERVE, &v4c));
        OK(ct_tensor_addmv_(v4c, m1, v3, beta, alpha));
        OK(ct_tensor_addmv_(gv4, gm1, gv3, beta, alpha));
        expect_close(gv4, DEV1, v4c);
        ct_tensor_release(v4c);
        ct_tensor_release(small);
        ct_tensor_release(self_c);
        ct_tensor_release(col_d);
        ct_tensor_release(col_c);
        ct_tensor_release(out);
        ct_tensor_release(wide);
        ct_tensor_release(wide_c);
        ct_tensor *all[] = {m1,  m2,  b1,  b2,  v3,  v4,  v5,  in45,  in245,
                            gm1, gm2, gb1, gb2, gv3, gv4, gv5, gin45, gin245};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            ct_tensor_release(all[i]);
    }
}

/* Tensors on two devices: PyTorch's messages, nothing staged silently; dtype errors the
 * cpu's. */
static void test_product_errors(void **state) {
    (void)state;
    ct_tensor *a = randn_as(CT_FLOAT32, SHAPE(3, 3), 1), *ga = on_dev(a, DEV0);
    ct_tensor *ga1 = on_dev(a, DEV1), *r = NULL;
    EXPECT_ERR(ct_tensor_mm(ga, a, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:0 and cpu!");
    assert_null(r);
    EXPECT_ERR(ct_tensor_matmul(a, ga, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cpu and cuda:0!");
    EXPECT_ERR(ct_tensor_matmul(ga, ga1, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:0 and cuda:1!");
    EXPECT_ERR(ct_tensor_addmm(a, ga, ga, ct_scalar_int(1), ct_scalar_int(1), &r),
               CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cpu and cuda:0!");
    ct_tensor *out = NULL;
    OK(ct_tensor_empty(SHAPE(3, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &out));
    EXPECT_ERR(ct_tensor_mm_out(ga, ga, out), CT_ERR_RUNTIME,
               "Expected out tensor to have device cuda:0, but got cpu instead");
    EXPECT_ERR(ct_tensor_addmm_(ga, a, a, ct_scalar_int(1), ct_scalar_int(1)), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:0 and cpu!");
    ct_tensor *gd = NULL, *d = NULL;
    OK(ct_tensor_to_dtype(a, CT_FLOAT64, &d));
    gd = on_dev(d, DEV0);
    SAME_STATUS(ct_tensor_mm(a, d, &r), ct_tensor_mm(ga, gd, &r));
    SAME_STATUS(ct_tensor_matmul_out(a, a, d), ct_tensor_matmul_out(ga, ga, gd));
    SAME_STATUS(ct_tensor_addmm_(d, a, a, ct_scalar_int(1), ct_scalar_int(1)),
                ct_tensor_addmm_(gd, ga, ga, ct_scalar_int(1), ct_scalar_int(1)));
    SAME_STATUS(ct_tensor_dot(a, a, &r), ct_tensor_dot(ga, ga, &r));
    /* allocation failure on the device: an error, nothing leaked (the teardown checks) */
    opaque_fail_alloc = 1;
    ct_status st = ct_tensor_matmul(ga, ga, &r);
    opaque_fail_alloc = 0;
    assert_int_equal(st, CT_ERR_NOMEM);
    assert_null(r);
    ct_tensor_release(out);
    ct_tensor_release(d);
    ct_tensor_release(gd);
    ct_tensor_release(ga1);
    ct_tensor_release(ga);
    ct_tensor_release(a);
}

static void test_norm_nuc(void **state) {
    (void)state;
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_INT64};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        ct_tensor *c = operand(dts[d], SHAPE(2, 4, 3), 5, true), *g = NULL;
        OK(ct_tensor_to(c, CT_DTYPE_UNDEFINED, &DEV0, true, CT_MEMFMT_PRESERVE, &g));
        ct_tensor *r1 = NULL, *r2 = NULL;
        const int64_t dims[2] = {1, 2};
        for (int keep = 0; keep < 2; keep++) {
            if (SAME_STATUS(ct_norm_str(c, "nuc", dims, 2, keep, CT_DTYPE_UNDEFINED, NULL, &r1),
                            ct_norm_str(g, "nuc", dims, 2, keep, CT_DTYPE_UNDEFINED, NULL, &r2))) {
                expect_close(r2, DEV0, r1);
                assert_i64s(ct_tensor_strides(r2), ct_tensor_dim(r2), ct_tensor_strides(r1),
                            ct_tensor_dim(r1));
            }
            ct_tensor_release(r1);
            ct_tensor_release(r2);
        }
        /* the whole tensor must be a matrix: the cpu's error */
        SAME_STATUS(ct_norm_str(c, "nuc", NULL, 0, false, CT_DTYPE_UNDEFINED, NULL, &r1),
                    ct_norm_str(g, "nuc", NULL, 0, false, CT_DTYPE_UNDEFINED, NULL, &r2));
        if (dts[d] == CT_FLOAT64) { /* out= on the device */
            ct_tensor *o = NULL;
            OK(ct_tensor_empty(SHAPE(1), CT_FLOAT64, &DEV0, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, &o));
            OK(ct_norm_str(c, "nuc", dims, 2, false, CT_DTYPE_UNDEFINED, NULL, &r1));
            OK(ct_norm_str(g, "nuc", dims, 2, false, CT_DTYPE_UNDEFINED, o, &r2));
            assert_ptr_equal(r2, o);
            expect_close(o, DEV0, r1);
            ct_tensor_release(r1);
            ct_tensor_release(r2);
            ct_tensor_release(o);
            OK(ct_tensor_empty(SHAPE(2), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, &o));
            EXPECT_ERR(ct_norm_str(g, "nuc", dims, 2, false, CT_DTYPE_UNDEFINED, o, &r2),
                       CT_ERR_RUNTIME,
                       "Expected all tensors to be on the same device, but found at least two "
                       "devices, cuda:0 and cpu!");
            assert_null(r2);
            ct_tensor_release(o);
        }
        ct_tensor_release(g);
        ct_tensor_release(c);
    }
}

/* flip, fliplr, flipud, roll, repeat, tile, diag, diag_embed on every dtype, on a transposed
 * input, with the cpu's strides. */
static void test_reorder(void **state) {
    (void)state;
    for (size_t d = 0; d < NDTYPES; d++) {
        ct_tensor *c = operand(DTYPES[d], SHAPE(3, 4), 40 + d, true), *g = NULL;
        OK(ct_tensor_to(c, CT_DTYPE_UNDEFINED, &DEV1, true, CT_MEMFMT_PRESERVE, &g));
        ct_tensor *v = randn_as(DTYPES[d], SHAPE(4), 50 + d), *gv = on_dev(v, DEV1);
        ct_tensor *r1 = NULL, *r2 = NULL;
#define BOTH(CALL_C, CALL_G)                                                                       \
    do {                                                                                           \
        if (SAME_STATUS(CALL_C, CALL_G))                                                           \
            expect_same(r2, DEV1, r1);                                                             \
        ct_tensor_release(r1);                                                                     \
        ct_tensor_release(r2);                                                                     \
        r1 = r2 = NULL;                                                                            \
    } while (0)
        BOTH(ct_tensor_flip(c, ARR(0, 1), 2, &r1), ct_tensor_flip(g, ARR(0, 1), 2, &r2));
        BOTH(ct_tensor_flip(c, ARR(0, 0), 2, &r1), ct_tensor_flip(g, ARR(0, 0), 2, &r2));
        BOTH(ct_tensor_fliplr(c, &r1), ct_tensor_fliplr(g, &r2));
        BOTH(ct_tensor_flipud(c, &r1), ct_tensor_flipud(g, &r2));
        BOTH(ct_tensor_fliplr(v, &r1), ct_tensor_fliplr(gv, &r2));
        BOTH(ct_tensor_roll(c, ARR(1, -2), 2, ARR(0, 1), 2, &r1),
             ct_tensor_roll(g, ARR(1, -2), 2, ARR(0, 1), 2, &r2));
        BOTH(ct_tensor_roll(c, ARR(5), 1, NULL, 0, &r1), ct_tensor_roll(g, ARR(5), 1, NULL, 0, &r2));
        BOTH(ct_tensor_roll(c, ARR(1, 2), 2, ARR(0), 1, &r1),
             ct_tensor_roll(g, ARR(1, 2), 2, ARR(0), 1, &r2));
        BOTH(ct_tensor_repeat(c, ARR(2, 1, 3), 3, &r1), ct_tensor_repeat(g, ARR(2, 1, 3), 3, &r2));
        BOTH(ct_tensor_repeat(c, ARR(2), 1, &r1), ct_tensor_repeat(g, ARR(2), 1, &r2));
        BOTH(ct_tensor_tile(c, ARR(2), 1, &r1), ct_tensor_tile(g, ARR(2), 1, &r2));
        BOTH(ct_tensor_diag(c, 1, &r1), ct_tensor_diag(g, 1, &r2));
        BOTH(ct_tensor_diag(v, -1, &r1), ct_tensor_diag(gv, -1, &r2));
        BOTH(ct_tensor_diag(c, 9, &r1), ct_tensor_diag(g, 9, &r2));
        BOTH(ct_tensor_diag_embed(c, 1, 0, 2, &r1), ct_tensor_diag_embed(g, 1, 0, 2, &r2));
        BOTH(ct_tensor_diag_embed(c, 0, 1, 1, &r1), ct_tensor_diag_embed(g, 0, 1, 1, &r2));
#undef BOTH
        /* diag_out into a device tensor of another shape; on the cpu: the out device error */
        ct_tensor *o = NULL, *oc = NULL;
        OK(ct_tensor_empty(SHAPE(1), DTYPES[d], &DEV1, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &o));
        OK(ct_tensor_diag(c, 0, &r1));
        OK(ct_tensor_diag_out(g, 0, o));
        expect_same(o, DEV1, r1);
        ct_tensor_release(r1);
        OK(ct_tensor_empty(SHAPE(3), DTYPES[d], &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &oc));
        EXPECT_ERR(ct_tensor_diag_out(g, 0, oc), CT_ERR_RUNTIME,
                   "diag: expected out on device cuda, got cpu");
        ct_tensor_release(o);
        ct_tensor_release(oc);
        ct_tensor_release(v);
        ct_tensor_release(gv);
        ct_tensor_release(g);
        ct_tensor_release(c);
    }
}

/* tril / triu, their out= and in-place forms (on a view of a larger device tensor). */
static void test_triangles(void **state) {
    (void)state;
    for (size_t d = 0; d < NDTYPES; d++) {
        ct_tensor *c = operand(DTYPES[d], SHAPE(2, 3, 4), 60 + d, true), *g = NULL;
        OK(ct_tensor_to(c, CT_DTYPE_UNDEFINED, &DEV0, true, CT_MEMFMT_PRESERVE, &g));
        ct_tensor *r1 = NULL, *r2 = NULL;
        const int64_t ks[] = {-1, 0, 2};
        for (size_t k = 0; k < 3; k++) {
            if (SAME_STATUS(ct_tensor_tril(c, ks[k], &r1), ct_tensor_tril(g, ks[k], &r2)))
                expect_same(r2, DEV0, r1);
            ct_tensor_release(r1);
            ct_tensor_release(r2);
            if (SAME_STATUS(ct_tensor_triu(c, ks[k], &r1), ct_tensor_triu(g, ks[k], &r2)))
                expect_same(r2, DEV0, r1);
            ct_tensor_release(r1);
            ct_tensor_release(r2);
        }
        ct_tensor *v = randn_as(DTYPES[d], SHAPE(4), 1), *gv = on_dev(v, DEV0);
        SAME_STATUS(ct_tensor_tril(v, 0, &r1), ct_tensor_tril(gv, 0, &r2));
        assert_null(r2);
        /* out=: resized on the device */
        ct_tensor *o = NULL;
        OK(ct_tensor_empty(SHAPE(0), DTYPES[d], &DEV0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &o));
        OK(ct_tensor_triu(c, 1, &r1));
        OK(ct_tensor_triu_out(g, 1, o));
        expect_same(o, DEV0, r1);
        ct_tensor_release(r1);
        /* in place on rows 1..4 of a (6, 5) device tensor: rows 0 and 5 keep their values */
        ct_tensor *wc = randn_as(DTYPES[d], SHAPE(6, 5), 70 + d), *w = on_dev(wc, DEV0);
        ct_tensor *vc = NULL, *vg = NULL;
        OK(ct_tensor_narrow(wc, 0, 1, 4, &vc));
        OK(ct_tensor_narrow(w, 0, 1, 4, &vg));
        OK(ct_tensor_tril_(vc, 0));
        OK(ct_tensor_tril_(vg, 0));
        expect_same(w, DEV0, wc);
        OK(ct_tensor_triu_(vc, -1));
        OK(ct_tensor_triu_(vg, -1));
        expect_same(w, DEV0, wc);
        /* out= on another device: the out= device message */
        ct_tensor *oc = NULL;
        OK(ct_tensor_empty(SHAPE(2, 3, 4), DTYPES[d], &CPU, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, &oc));
        EXPECT_ERR(ct_tensor_tril_out(g, 0, oc), CT_ERR_RUNTIME,
                   "Expected out tensor to have device cuda:0, but got cpu instead");
        EXPECT_ERR(ct_tensor_tril_out(c, 0, o), CT_ERR_RUNTIME,
                   "Expected out tensor to have device cpu, but got cuda:0 instead");
        ct_tensor *all[] = {oc, vc, vg, w, wc, o, v, gv, g, c};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            ct_tensor_release(all[i]);
    }
}

static void test_unique_dim(void **state) {
    (void)state;
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT64, CT_COMPLEX64};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        ct_tensor *f = randn_as(CT_FLOAT32, SHAPE(5, 3), 80), *i = NULL, *c = NULL;
        ct_tensor *idx = NULL, *rows = NULL;
        /* rows 0, 1, 2, 0, 0, 2, 1, 1 of f: some merge, some runs repeat */
        OK(ct_tensor_empty(SHAPE(8), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &i));
        memcpy(ct_tensor_data_ptr(i), ARR(0, 1, 2, 0, 0, 2, 1, 1), 8 * sizeof(int64_t));
        OK(ct_tensor_index_select(f, 0, i, &rows));
        OK(ct_tensor_to_dtype(rows, dts[d], &c));
        ct_tensor *g = on_dev(c, DEV1);
        ct_tensor *o1 = NULL, *i1 = NULL, *n1 = NULL, *o2 = NULL, *i2 = NULL, *n2 = NULL;
        for (int64_t dim = 0; dim < 3; dim++) {
            if (SAME_STATUS(ct_unique_dim(c, dim, false, &o1, &i1, &n1),
                            ct_unique_dim(g, dim, false, &o2, &i2, &n2))) {
                expect_same(o2, DEV1, o1);
                expect_same(i2, DEV1, i1);
                expect_same(n2, DEV1, n1);
            }
            ct_tensor *all[] = {o1, i1, n1, o2, i2, n2};
            for (size_t k = 0; k < 6; k++)
                ct_tensor_release(all[k]);
            o1 = i1 = n1 = o2 = i2 = n2 = NULL;
        }
        if (SAME_STATUS(ct_unique_consecutive(c, &o1, &i1, NULL),
                        ct_unique_consecutive(g, &o2, &i2, NULL))) {
            expect_same(o2, DEV1, o1);
            expect_same(i2, DEV1, i1);
        }
        ct_tensor *all[] = {o1, i1, o2, i2, g, c, rows, idx, i, f};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            ct_tensor_release(all[k]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_products),     cmocka_unit_test(test_add_products),
        cmocka_unit_test(test_product_errors), cmocka_unit_test(test_norm_nuc),
        cmocka_unit_test(test_reorder),      cmocka_unit_test(test_triangles),
        cmocka_unit_test(test_unique_dim),
    };
    return cmocka_run_group_tests(tests, stage_setup, stage_teardown);
}
