/* The indexing family (ctensor/index.h, scatter.h, search.h) on an accelerator, staged through
 * host memory (src/tensor/stage.h), on an emulated cuda whose memory the host cannot read:
 * every result, in-place update and error must be the cpu's, with PyTorch's device rules. */
#include "ctensor/index.h"
#include "ctensor/scatter.h"
#include "ctensor/search.h"
#include "stage_test_util.h"

static const ct_dtype DTS[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_FLOAT16, CT_UINT8};
#define NDTS (sizeof DTS / sizeof DTS[0])

/* A cpu int64 tensor of these values and sizes. */
static ct_tensor *i64(const int64_t *v, const int64_t *sizes, int64_t ndim) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, ndim, CT_INT64, v, &CPU, &t));
    return t;
}

/* A cpu bool tensor of these values and sizes. */
static ct_tensor *mask_of(const unsigned char *v, const int64_t *sizes, int64_t ndim) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, ndim, CT_BOOL, v, &CPU, &t));
    return t;
}

/* Zeros on dev. */
static ct_tensor *zeros_on(ct_dtype dt, const int64_t *sizes, int64_t ndim, ct_device dev) {
    ct_tensor *z = NULL;
    OK(ct_tensor_zeros(sizes, ndim, dt, &CPU, CT_LAYOUT_STRIDED, &z));
    ct_tensor *r = on_dev(z, dev);
    ct_tensor_release(z);
    return r;
}

static void release_all(ct_tensor **ts, size_t n) {
    for (size_t i = 0; i < n; i++) {
        ct_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}

/* cpu result r1 and device result r2 of the same call: both fine and equal, or the same error. */
#define CHECK_SAME(DEV, CPU_CALL, DEV_CALL, r1, r2)                                                \
    do {                                                                                           \
        if (SAME_STATUS(CPU_CALL, DEV_CALL))                                                       \
            expect_same(r2, DEV, r1);                                                              \
        ct_tensor_release(r1);                                                                     \
        ct_tensor_release(r2);                                                                     \
        r1 = r2 = NULL;                                                                            \
    } while (0)

static void test_index_get(void **state) {
    (void)state;
    const int64_t iv[] = {3, -1, 0, 3}, jv[] = {1, 0};
    const unsigned char mv[] = {1, 0, 1, 1, 0};
    for (size_t d = 0; d < NDTS; d++) {
        ct_tensor *c0 = randn_as(DTS[d], SHAPE(5, 4, 3), 3 + d), *c = NULL;
        OK(ct_tensor_transpose(c0, 0, 1, &c)); /* (4, 5, 3), not contiguous */
        ct_tensor *g0 = on_dev(c0, DEV1), *g = NULL;
        OK(ct_tensor_transpose(g0, 0, 1, &g));
        ct_tensor *ic = i64(iv, SHAPE(4)), *jc = i64(jv, SHAPE(2, 1)), *mc = mask_of(mv, SHAPE(5));
        ct_tensor *ig = on_dev(ic, DEV1), *jg = on_dev(jc, DEV1), *mg = on_dev(mc, DEV1);
        ct_tensor *r1 = NULL, *r2 = NULL;
        /* device and cpu index tensors alike */
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){ic}, 1, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){ig}, 1, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){ic}, 1, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){ic}, 1, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){NULL, mc}, 2, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){NULL, mg}, 2, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){jc, NULL, jc}, 3, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){jg, NULL, jc}, 3, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){jc, ic}, 2, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){jg, ig}, 2, &r2), r1, r2);
        /* errors: the cpu's */
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){mc}, 1, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){mg}, 1, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_tensor_index(c, (const ct_tensor *[]){NULL, NULL, ic}, 3, &r1),
                   ct_tensor_index(g, (const ct_tensor *[]){NULL, NULL, ig}, 3, &r2), r1, r2);
        ct_tensor *ts[] = {c0, c, g0, g, ic, jc, mc, ig, jg, mg};
        release_all(ts, sizeof ts / sizeof ts[0]);
    }
}

/* index_put_ into a view of a larger device tensor: the cpu's values, neighbours untouched. */
static void test_index_put(void **state) {
    (void)state;
    const int64_t iv[] = {2, 0, 2}, jv[] = {1, 3, 1};
    const unsigned char mv[] = {1, 0, 0, 1};
    for (size_t d = 0; d < NDTS; d++) {
        for (int acc = 0; acc < 2; acc++) {
            ct_tensor *cw = randn_as(DTS[d], SHAPE(4, 6), 20 + d), *gw = on_dev(cw, DEV0);
            ct_tensor *cv = NULL, *gv = NULL, *cvt = NULL, *gvt = NULL;
            OK(ct_tensor_narrow(cw, 1, 1, 4, &cv));
            OK(ct_tensor_narrow(gw, 1, 1, 4, &gv));
            OK(ct_tensor_transpose(cv, 0, 1, &cvt)); /* (4, 4) views, not contiguous */
            OK(ct_tensor_transpose(gv, 0, 1, &gvt));
            ct_tensor *ic = i64(iv, SHAPE(3)), *jc = i64(jv, SHAPE(3)), *ig = on_dev(ic, DEV0);
            ct_tensor *vc = randn_as(DTS[d], SHAPE(3), 7), *vg = on_dev(vc, DEV0);
            SAME_STATUS(ct_tensor_index_put_(cvt, (const ct_tensor *[]){ic, jc}, 2, vc, acc),
                        ct_tensor_index_put_(gvt, (const ct_tensor *[]){ig, jc}, 2, vg, acc));
            expect_same(gw, DEV0, cw);
            /* a 0-dim cpu value, a cpu mask */
            ct_tensor *v0 = NULL, *mc = mask_of(mv, SHAPE(4));
            OK(ct_tensor_scalar_tensor(ct_scalar_int(5), DTS[d], &CPU, &v0));
            SAME_STATUS(ct_tensor_index_put_(cvt, (const ct_tensor *[]){mc}, 1, v0, acc),
                        ct_tensor_index_put_(gvt, (const ct_tensor *[]){mc}, 1, v0, acc));
            expect_same(gw, DEV0, cw);
            /* a one-element cpu value filling a mask */
            ct_tensor *v1 = NULL;
            OK(ct_tensor_view(v0, SHAPE(1, 1), &v1));
            if (!acc)
                SAME_STATUS(ct_tensor_index_put_(cvt, (const ct_tensor *[]){NULL, mc}, 2, v1, 0),
                            ct_tensor_index_put_(gvt, (const ct_tensor *[]){NULL, mc}, 2, v1, 0));
            else /* accumulating is no fill: the value must be on self's device */
                EXPECT_ERR(ct_tensor_index_put_(gvt, (const ct_tensor *[]){NULL, mc}, 2, v1, 1),
                           CT_ERR_RUNTIME,
                           "Expected all tensors to be on the same device, but found at least "
                           "two devices, cuda:0 and cpu!");
            expect_same(gw, DEV0, cw);
            ct_tensor_release(v1);
            /* an index on another device is moved, as PyTorch does */
            ct_tensor *ig1 = on_dev(ic, DEV1);
            SAME_STATUS(ct_tensor_index_put_(cvt, (const ct_tensor *[]){NULL, ic}, 2, v0, acc),
                        ct_tensor_index_put_(gvt, (const ct_tensor *[]){NULL, ig1}, 2, v0, acc));
            expect_same(gw, DEV0, cw);
            /* the cpu's errors */
            SAME_STATUS(ct_tensor_index_put_(cvt, (const ct_tensor *[]){ic, ic, ic}, 3, vc, acc),
                        ct_tensor_index_put_(gvt, (const ct_tensor *[]){ig, ig, ig}, 3, vg, acc));
            /* a value of more than 0 dims must be on self's device */
            EXPECT_ERR(ct_tensor_index_put_(gvt, (const ct_tensor *[]){ic, jc}, 2, vc, acc),
                       CT_ERR_RUNTIME,
                       "Expected all tensors to be on the same device, but found at least two "
                       "devices, cuda:0 and cpu!");
            expect_same(gw, DEV0, cw);
            ct_tensor *ts[] = {cw, gw, cv, gv, cvt, gvt, ic, jc, ig, vc, vg, v0, mc, ig1};
            release_all(ts, sizeof ts / sizeof ts[0]);
        }
    }
}

static void test_index_devices(void **state) {
    (void)state;
    const int64_t iv[] = {1, 0};
    ct_tensor *c = randn_as(CT_FLOAT32, SHAPE(3, 2), 1), *g = on_dev(c, DEV0), *r = NULL;
    ct_tensor *ic = i64(iv, SHAPE(2)), *ig1 = on_dev(ic, DEV1), *ig0 = on_dev(ic, DEV0);
    EXPECT_ERR(ct_tensor_index(g, (const ct_tensor *[]){ig1}, 1, &r), CT_ERR_INDEX,
               "indices should be either on cpu or on the same device as the indexed tensor "
               "(cuda:0)");
    EXPECT_ERR(ct_tensor_index(c, (const ct_tensor *[]){ig0}, 1, &r), CT_ERR_INDEX,
               "indices should be either on cpu or on the same device as the indexed tensor "
               "(cpu)");
    assert_null(r);
    /* index_put_ moves indices to self, even a cpu self's */
    ct_tensor *c2 = NULL, *v = randn_as(CT_FLOAT32, SHAPE(2, 2), 4);
    OK(ct_tensor_clone(c, CT_MEMFMT_PRESERVE, &c2));
    OK(ct_tensor_index_put_(c2, (const ct_tensor *[]){ig0}, 1, v, false));
    OK(ct_tensor_index_put_(c, (const ct_tensor *[]){ic}, 1, v, false));
    expect_same(c2, CPU, c);
    /* the other ops want one device; PyTorch names the devices in argument order */
    EXPECT_ERR(ct_tensor_index_select(g, 0, ic, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two "
               "devices, cuda:0 and cpu!");
    EXPECT_ERR(ct_tensor_take(c, ig0, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two "
               "devices, cpu and cuda:0!");
    EXPECT_ERR(ct_gather(g, 0, ig1, NULL, &r), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two "
               "devices, cuda:0 and cuda:1!");
    assert_null(r);
    ct_tensor *ts[] = {c, g, ic, ig1, ig0, c2, v};
    release_all(ts, sizeof ts / sizeof ts[0]);
}

static void test_index_ops(void **state) {
    (void)state;
    const int64_t iv[] = {2, 0, 2, 1}, tv[] = {0, -1, 5, 3, 3, 11};
    for (size_t d = 0; d < NDTS; d++) {
        ct_tensor *c0 = randn_as(DTS[d], SHAPE(4, 3), 40 + d), *c = NULL;
        OK(ct_tensor_transpose(c0, 0, 1, &c)); /* (3, 4) */
        ct_tensor *g0 = on_dev(c0, DEV0), *g = NULL;
        OK(ct_tensor_transpose(g0, 0, 1, &g));
        ct_tensor *ic = i64(iv, SHAPE(4)), *ig = on_dev(ic, DEV0);
        ct_tensor *tc = i64(tv, SHAPE(2, 3)), *tg = on_dev(tc, DEV0);
        ct_tensor *mc = NULL, *mg = NULL;
        OK(ct_gt_scalar(c, ct_scalar_int(0), &mc));
        mg = on_dev(mc, DEV0);
        ct_tensor *r1 = NULL, *r2 = NULL;
        CHECK_SAME(DEV0, ct_tensor_nonzero(c, &r1), ct_tensor_nonzero(g, &r2), r1, r2);
        CHECK_SAME(DEV0, ct_tensor_masked_select(c, mc, &r1),
                   ct_tensor_masked_select(g, mg, &r2), r1, r2);
        CHECK_SAME(DEV0, ct_tensor_index_select(c, 1, ic, &r1),
                   ct_tensor_index_select(g, 1, ig, &r2), r1, r2);
        CHECK_SAME(DEV0, ct_tensor_index_select(c, 0, ic, &r1),
                   ct_tensor_index_select(g, 0, ig, &r2), r1, r2); /* out of range */
        CHECK_SAME(DEV0, ct_tensor_take(c, tc, &r1), ct_tensor_take(g, tg, &r2), r1, r2);
        /* out=: a view of a wider device tensor (resized) and a wrong-dtype out */
        ct_tensor *ow = NULL, *ov = NULL, *oc = NULL, *cw = NULL;
        ow = zeros_on(DTS[d], SHAPE(3, 8), DEV0);
        OK(ct_tensor_narrow(ow, 1, 2, 4, &ov));
        OK(ct_tensor_zeros(SHAPE(3, 8), DTS[d], &CPU, CT_LAYOUT_STRIDED, &cw));
        OK(ct_tensor_narrow(cw, 1, 2, 4, &oc));
        if (SAME_STATUS(ct_tensor_index_select_out(c, 1, ic, oc),
                        ct_tensor_index_select_out(g, 1, ig, ov))) {
            expect_same(ov, DEV0, oc);
            ct_tensor *wc = NULL, *wz = NULL;
            OK(ct_tensor_narrow(ow, 1, 0, 2, &wz)); /* the neighbours */
            OK(ct_tensor_zeros(SHAPE(3, 2), DTS[d], &CPU, CT_LAYOUT_STRIDED, &wc));
            expect_values(wz, DEV0, wc);
            ct_tensor_release(wc);
            ct_tensor_release(wz);
        }
        SAME_STATUS(ct_tensor_take_out(c, tc, oc), ct_tensor_take_out(g, tg, ov));
        expect_same(ov, DEV0, oc);
        expect_same(ow, DEV0, cw);
        SAME_STATUS(ct_tensor_masked_select_out(c, mc, oc), ct_tensor_masked_select_out(g, mg, ov));
        expect_same(ov, DEV0, oc);
        ct_tensor *nc = NULL, *ng = NULL;
        OK(ct_tensor_zeros(SHAPE(1), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &nc));
        ng = zeros_on(CT_INT64, SHAPE(1), DEV0);
        SAME_STATUS(ct_tensor_nonzero_out(c, nc), ct_tensor_nonzero_out(g, ng));
        expect_same(ng, DEV0, nc);
        SAME_STATUS(ct_tensor_nonzero_out(c, oc), ct_tensor_nonzero_out(g, ov)); /* dtype */
        EXPECT_ERR(ct_tensor_take_out(g, tg, nc), CT_ERR_RUNTIME,
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:0 and cpu!");
        ct_tensor *ts[] = {c0, c, g0, g, ic, ig, tc, tg, mc, mg, ow, ov, oc, cw, nc, ng};
        release_all(ts, sizeof ts / sizeof ts[0]);
    }
}

/* In-place op OP_ on a transposed view of a wide cpu tensor and of its device copy. */
#define INPLACE_SAME(CALL_C, CALL_G)                                                               \
    do {                                                                                           \
        SAME_STATUS(CALL_C, CALL_G);                                                               \
        expect_same(gw, DEV0, cw);                                                                 \
    } while (0)

static void test_scatter_family(void **state) {
    (void)state;
    const int64_t gv[] = {0, 2, 1, 3, 3, 0, 2, 2}, sv[] = {2, 0, 3}, bad[] = {0, 9};
    for (size_t d = 0; d < NDTS; d++) {
        ct_tensor *cw = randn_as(DTS[d], SHAPE(4, 7), 60 + d), *gw = on_dev(cw, DEV0);
        ct_tensor *cv = NULL, *gv_ = NULL, *c = NULL, *g = NULL;
        OK(ct_tensor_narrow(cw, 1, 2, 4, &cv));
        OK(ct_tensor_narrow(gw, 1, 2, 4, &gv_));
        OK(ct_tensor_transpose(cv, 0, 1, &c)); /* (4, 4) views of the wide tensors */
        OK(ct_tensor_transpose(gv_, 0, 1, &g));
        ct_tensor *xc = i64(gv, SHAPE(2, 4)), *xg = on_dev(xc, DEV0);
        ct_tensor *sc = i64(sv, SHAPE(3)), *sg = on_dev(sc, DEV0);
        ct_tensor *bc = i64(bad, SHAPE(1, 2)), *bg = on_dev(bc, DEV0);
        ct_tensor *src = randn_as(DTS[d], SHAPE(3, 4), 5), *srg = on_dev(src, DEV0);
        ct_tensor *src2 = randn_as(DTS[d], SHAPE(4, 3), 6), *srg2 = on_dev(src2, DEV0);
        ct_tensor *r1 = NULL, *r2 = NULL;
        ct_scalar one = ct_scalar_int(1), two = ct_scalar_int(2);
        CHECK_SAME(DEV0, ct_gather(c, 1, xc, NULL, &r1), ct_gather(g, 1, xg, NULL, &r2), r1, r2);
        CHECK_SAME(DEV0, ct_gather(c, 1, bc, NULL, &r1), ct_gather(g, 1, bg, NULL, &r2), r1, r2);
        CHECK_SAME(DEV0,
                   ct_scatter(c, 0, xc, src, NULL, CT_SCATTER_REDUCE_NONE, NULL, &r1),
                   ct_scatter(g, 0, xg, srg, NULL, CT_SCATTER_REDUCE_NONE, NULL, &r2), r1, r2);
        CHECK_SAME(DEV0, ct_scatter_add(c, 1, xc, src, NULL, &r1),
                   ct_scatter_add(g, 1, xg, srg, NULL, &r2), r1, r2);
        CHECK_SAME(DEV0,
                   ct_scatter_reduce(c, 1, xc, src, CT_SCATTER_REDUCE_AMAX, false, NULL, &r1),
                   ct_scatter_reduce(g, 1, xg, srg, CT_SCATTER_REDUCE_AMAX, false, NULL, &r2),
                   r1, r2);
        CHECK_SAME(DEV0, ct_index_add(c, 0, sc, src, two, NULL, &r1),
                   ct_index_add(g, 0, sg, srg, two, NULL, &r2), r1, r2);
        CHECK_SAME(DEV0, ct_index_fill(c, 1, sc, two, &r1), ct_index_fill(g, 1, sg, two, &r2),
                   r1, r2);
        CHECK_SAME(DEV0, ct_index_copy(c, 1, sc, src2, NULL, &r1),
                   ct_index_copy(g, 1, sg, srg2, NULL, &r2), r1, r2);
        /* in place, on the views */
        INPLACE_SAME(ct_scatter_(c, 1, xc, NULL, &two, CT_SCATTER_REDUCE_NONE),
                     ct_scatter_(g, 1, xg, NULL, &two, CT_SCATTER_REDUCE_NONE));
        INPLACE_SAME(ct_scatter_(c, 0, xc, src, NULL, CT_SCATTER_REDUCE_PROD),
                     ct_scatter_(g, 0, xg, srg, NULL, CT_SCATTER_REDUCE_PROD));
        INPLACE_SAME(ct_scatter_add_(c, 1, xc, src), ct_scatter_add_(g, 1, xg, srg));
        INPLACE_SAME(ct_scatter_reduce_(c, 1, xc, src, CT_SCATTER_REDUCE_MEAN, true),
                     ct_scatter_reduce_(g, 1, xg, srg, CT_SCATTER_REDUCE_MEAN, true));
        INPLACE_SAME(ct_index_add_(c, 0, sc, src, one), ct_index_add_(g, 0, sg, srg, one));
        INPLACE_SAME(ct_index_fill_(c, 0, sc, two), ct_index_fill_(g, 0, sg, two));
        INPLACE_SAME(ct_index_copy_(c, 1, sc, src2), ct_index_copy_(g, 1, sg, srg2));
        ct_tensor *v0 = NULL;
        OK(ct_tensor_scalar_tensor(ct_scalar_int(3), CT_INT64, &CPU, &v0));
        INPLACE_SAME(ct_index_fill_tensor_(c, 1, sc, v0), ct_index_fill_tensor_(g, 1, sg, v0));
        /* errors: the cpu's (an out-of-range index may leave the cpu self partly written; the
         * device self is written back only on success) */
        ct_tensor *cc = NULL, *gg = NULL;
        OK(ct_tensor_clone(c, CT_MEMFMT_PRESERVE, &cc));
        gg = on_dev(cc, DEV0);
        SAME_STATUS(ct_scatter_(cc, 1, bc, NULL, &two, CT_SCATTER_REDUCE_NONE),
                    ct_scatter_(gg, 1, bg, NULL, &two, CT_SCATTER_REDUCE_NONE));
        ct_tensor_release(cc);
        ct_tensor_release(gg);
        INPLACE_SAME(ct_index_add_(c, 0, sc, src2, one), ct_index_add_(g, 0, sg, srg2, one));
        EXPECT_ERR(ct_scatter_(g, 1, xc, NULL, &two, CT_SCATTER_REDUCE_NONE), CT_ERR_RUNTIME,
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:0 and cpu!");
        EXPECT_ERR(ct_index_copy_(g, 1, sg, src2), CT_ERR_RUNTIME,
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:0 and cpu!");
        expect_same(gw, DEV0, cw);
        /* out=: a device tensor of the wrong shape, resized; the same object returned */
        ct_tensor *oc = NULL, *og = NULL;
        OK(ct_tensor_zeros(SHAPE(5), DTS[d], &CPU, CT_LAYOUT_STRIDED, &oc));
        og = zeros_on(DTS[d], SHAPE(5), DEV0);
        if (SAME_STATUS(ct_gather(c, 1, xc, oc, &r1), ct_gather(g, 1, xg, og, &r2))) {
            assert_ptr_equal(r2, og);
            expect_same(og, DEV0, oc);
        }
        ct_tensor_release(r1);
        ct_tensor_release(r2);
        if (SAME_STATUS(ct_index_add(c, 1, sc, src2, one, oc, &r1),
                        ct_index_add(g, 1, sg, srg2, one, og, &r2))) {
            assert_ptr_equal(r2, og);
            expect_same(og, DEV0, oc);
        }
        ct_tensor_release(r1);
        ct_tensor_release(r2);
        ct_tensor *ts[] = {cw, gw, cv, gv_, c, g, xc, xg, sc, sg, bc, bg, src, srg, src2, srg2,
                           v0, oc, og};
        release_all(ts, sizeof ts / sizeof ts[0]);
    }
}

static void test_search(void **state) {
    (void)state;
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_INT64};
    const int64_t sorter_v[] = {2, 0, 1, 3, 1, 0, 3, 2};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        ct_tensor *b0 = randn_as(dts[d], SHAPE(2, 4), 80 + d), *bs = NULL, *bi = NULL;
        OK(ct_sort(b0, 1, false, true, NULL, NULL, &bs, &bi));
        ct_tensor *x0 = randn_as(dts[d], SHAPE(3, 2), 90 + d), *x = NULL;
        OK(ct_tensor_transpose(x0, 0, 1, &x)); /* (2, 3), not contiguous */
        ct_tensor *bsg = on_dev(bs, DEV1), *xg0 = on_dev(x0, DEV1), *xg = NULL;
        OK(ct_tensor_transpose(xg0, 0, 1, &xg));
        ct_tensor *sc = i64(sorter_v, SHAPE(2, 4)), *sg = on_dev(sc, DEV1), *b0g = on_dev(b0, DEV1);
        ct_tensor *r1 = NULL, *r2 = NULL;
        CHECK_SAME(DEV1, ct_searchsorted(bs, x, false, false, NULL, NULL, NULL, &r1),
                   ct_searchsorted(bsg, xg, false, false, NULL, NULL, NULL, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_searchsorted(bs, x, true, true, "right", NULL, NULL, &r1),
                   ct_searchsorted(bsg, xg, true, true, "right", NULL, NULL, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_searchsorted(b0, x, false, false, NULL, sc, NULL, &r1),
                   ct_searchsorted(b0g, xg, false, false, NULL, sg, NULL, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_searchsorted(bs, x, false, true, "left", NULL, NULL, &r1),
                   ct_searchsorted(bsg, xg, false, true, "left", NULL, NULL, &r2), r1, r2);
        ct_tensor *row = NULL, *rowg = NULL;
        OK(ct_tensor_select(bs, 0, 1, &row));
        OK(ct_tensor_select(bsg, 0, 1, &rowg));
        CHECK_SAME(DEV1, ct_bucketize(x, row, false, true, NULL, &r1),
                   ct_bucketize(xg, rowg, false, true, NULL, &r2), r1, r2);
        CHECK_SAME(DEV1, ct_bucketize(x, bs, false, true, NULL, &r1),
                   ct_bucketize(xg, bsg, false, true, NULL, &r2), r1, r2);
        ct_tensor *oc = NULL, *og = NULL;
        OK(ct_tensor_zeros(SHAPE(7), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &oc));
        og = zeros_on(CT_INT32, SHAPE(7), DEV1);
        if (SAME_STATUS(ct_bucketize(x, row, true, false, oc, &r1),
                        ct_bucketize(xg, rowg, true, false, og, &r2))) {
            assert_ptr_equal(r2, og);
            expect_same(og, DEV1, oc);
        }
        ct_tensor_release(r1);
        ct_tensor_release(r2);
        EXPECT_ERR(ct_searchsorted(bsg, x, false, false, NULL, NULL, NULL, &r2), CT_ERR_RUNTIME,
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:1 and cpu!");
        EXPECT_ERR(ct_bucketize(x, rowg, false, false, NULL, &r2), CT_ERR_RUNTIME,
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cpu and cuda:1!");
        ct_tensor *ts[] = {b0, bs, bi, x0, x, bsg, xg0, xg, sc, sg, b0g, row, rowg, oc, og};
        release_all(ts, sizeof ts / sizeof ts[0]);
    }
}

static void test_alloc_failure(void **state) {
    (void)state;
    const int64_t iv[] = {1, 0};
    ct_tensor *c = randn_as(CT_FLOAT32, SHAPE(3, 2), 1), *g = on_dev(c, DEV0), *r = NULL;
    ct_tensor *ic = i64(iv, SHAPE(2)), *ig = on_dev(ic, DEV0);
    opaque_fail_alloc = 1;
    ct_status st = ct_tensor_index(g, (const ct_tensor *[]){ic}, 1, &r);
    opaque_fail_alloc = 0;
    assert_int_equal(st, CT_ERR_NOMEM);
    assert_null(r);
    ct_tensor *ts[] = {c, g, ic, ig};
    release_all(ts, sizeof ts / sizeof ts[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_get),     cmocka_unit_test(test_index_put),
        cmocka_unit_test(test_index_devices), cmocka_unit_test(test_index_ops),
        cmocka_unit_test(test_scatter_family), cmocka_unit_test(test_search),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, stage_setup, stage_teardown);
}
