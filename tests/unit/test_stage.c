/* Ops without device kernels on an accelerator, staged through host memory
 * (src/tensor/stage.h): the staging itself (aliasing arguments, out= tensors written back and
 * resized, views returned, device checks, allocation failures) through the sort family, on
 * an emulated cuda whose memory the host cannot read. Every result must equal the cpu's. */
#include "ctensor/sort.h"
#include "stage_test_util.h"

static void test_sort_family(void **state) {
    (void)state;
    ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_FLOAT16, CT_BFLOAT16, CT_UINT8};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        ct_tensor *c = randn_as(dts[d], SHAPE(7, 13), 11 + d), *ct = NULL;
        OK(ct_tensor_transpose(c, 0, 1, &ct)); /* a non-contiguous input */
        const ct_device devs[] = {DEV0, DEV1};
        for (int k = 0; k < 2; k++) {
            ct_tensor *g = on_dev(c, devs[k]), *gt = NULL;
            OK(ct_tensor_transpose(g, 0, 1, &gt));
            long d2h = opaque_d2h;
            ct_tensor *v1 = NULL, *i1 = NULL, *v2 = NULL, *i2 = NULL;
            if (SAME_STATUS(ct_sort(ct, 1, true, true, NULL, NULL, &v1, &i1),
                            ct_sort(gt, 1, true, true, NULL, NULL, &v2, &i2))) {
                assert_true(opaque_d2h > d2h); /* it went through the host */
                expect_same(v2, devs[k], v1);
                expect_same(i2, devs[k], i1);
            }
            ct_tensor_release(v1);
            ct_tensor_release(i1);
            ct_tensor_release(v2);
            ct_tensor_release(i2);
            if (SAME_STATUS(ct_argsort(ct, 0, false, true, &i1),
                            ct_argsort(gt, 0, false, true, &i2)))
                expect_same(i2, devs[k], i1);
            ct_tensor_release(i1);
            ct_tensor_release(i2);
            if (SAME_STATUS(ct_topk(ct, 3, -1, true, true, &v1, &i1),
                            ct_topk(gt, 3, -1, true, true, &v2, &i2))) {
                expect_same(v2, devs[k], v1);
                expect_same(i2, devs[k], i1);
            }
            ct_tensor_release(v1);
            ct_tensor_release(i1);
            ct_tensor_release(v2);
            ct_tensor_release(i2);
            if (SAME_STATUS(ct_kthvalue(ct, 2, 0, true, &v1, &i1),
                            ct_kthvalue(gt, 2, 0, true, &v2, &i2))) {
                expect_same(v2, devs[k], v1);
                expect_same(i2, devs[k], i1);
            }
            ct_tensor_release(v1);
            ct_tensor_release(i1);
            ct_tensor_release(v2);
            ct_tensor_release(i2);
            ct_tensor *c1 = NULL, *c2 = NULL;
            if (SAME_STATUS(ct_msort(ct, &v1), ct_msort(gt, &v2)))
                expect_same(v2, devs[k], v1);
            ct_tensor_release(v1);
            ct_tensor_release(v2);
            if (SAME_STATUS(ct_unique(ct, true, &v1, &i1, &c1),
                            ct_unique(gt, true, &v2, &i2, &c2))) {
                expect_same(v2, devs[k], v1);
                expect_same(i2, devs[k], i1);
                expect_same(c2, devs[k], c1);
            }
            ct_tensor_release(v1);
            ct_tensor_release(i1);
            ct_tensor_release(c1);
            ct_tensor_release(v2);
            ct_tensor_release(i2);
            ct_tensor_release(c2);
            ct_tensor_release(gt);
            ct_tensor_release(g);
        }
        ct_tensor_release(ct);
        ct_tensor_release(c);
    }
}

/* out= tensors on the device: written in place (views of a larger tensor keep their
 * neighbours), resized when they have the wrong shape, the same objects returned. */
static void test_sort_out(void **state) {
    (void)state;
    ct_tensor *c = randn_as(CT_FLOAT32, SHAPE(4, 6), 3), *g = on_dev(c, DEV1);
    ct_tensor *v1 = NULL, *i1 = NULL;
    OK(ct_sort(c, 1, false, true, NULL, NULL, &v1, &i1));
    /* out= views into wider device tensors: columns 1..6 of a (4, 8) */
    ct_tensor *wide_c = randn_as(CT_FLOAT32, SHAPE(4, 8), 9), *wide = on_dev(wide_c, DEV1);
    ct_tensor *wide_i = NULL, *ov = NULL, *oi = NULL;
    OK(ct_tensor_zeros(SHAPE(4, 8), CT_INT64, &DEV1, CT_LAYOUT_STRIDED, &wide_i));
    OK(ct_tensor_narrow(wide, 1, 1, 6, &ov));
    OK(ct_tensor_narrow(wide_i, 1, 1, 6, &oi));
    ct_tensor *v2 = NULL, *i2 = NULL;
    OK(ct_sort(g, 1, false, true, ov, oi, &v2, &i2));
    assert_ptr_equal(v2, ov);
    assert_ptr_equal(i2, oi);
    expect_values(ov, DEV1, v1);
    expect_values(oi, DEV1, i1);
    /* the columns outside the views are untouched */
    ct_tensor *col_d = NULL, *col_c = NULL;
    OK(ct_tensor_narrow(wide, 1, 7, 1, &col_d));
    OK(ct_tensor_narrow(wide_c, 1, 7, 1, &col_c));
    expect_same(col_d, DEV1, col_c);
    ct_tensor_release(col_d);
    ct_tensor_release(col_c);
    ct_tensor_release(v2);
    ct_tensor_release(i2);
    /* out= of the wrong shape: resized (storage grown on the device) */
    ct_tensor *sv = NULL, *si = NULL;
    OK(ct_tensor_empty(SHAPE(2), CT_FLOAT32, &DEV1, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &sv));
    OK(ct_tensor_empty(SHAPE(0), CT_INT64, &DEV1, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &si));
    ct_tensor *tv1 = NULL, *ti1 = NULL, *tv2 = NULL, *ti2 = NULL;
    OK(ct_topk(c, 2, 0, true, true, &tv1, &ti1));
    OK(ct_topk_out(g, 2, 0, true, true, sv, si));
    expect_same(sv, DEV1, tv1);
    expect_same(si, DEV1, ti1);
    (void)tv2;
    (void)ti2;
    ct_tensor_release(tv1);
    ct_tensor_release(ti1);
    ct_tensor_release(sv);
    ct_tensor_release(si);
    /* an out= tensor that is the input: the cpu's overlap error */
    ct_tensor *g2 = on_dev(c, DEV1), *ix = NULL;
    OK(ct_tensor_empty(SHAPE(4, 6), CT_INT64, &DEV1, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &ix));
    ct_tensor *cc = NULL, *cix = NULL;
    OK(ct_tensor_clone(c, CT_MEMFMT_PRESERVE, &cc));
    OK(ct_tensor_empty(SHAPE(4, 6), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &cix));
    ct_status want = ct_sort(cc, 1, false, true, cc, cix, &v2, &i2);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ct_last_error());
    if (want == CT_OK) {
        ct_tensor_release(v2);
        ct_tensor_release(i2);
        OK(ct_sort(g2, 1, false, true, g2, ix, &v2, &i2));
        expect_same(g2, DEV1, cc);
        ct_tensor_release(v2);
        ct_tensor_release(i2);
    } else {
        EXPECT_ERR(ct_sort(g2, 1, false, true, g2, ix, &v2, &i2), want, msg);
    }
    ct_tensor_release(cc);
    ct_tensor_release(cix);
    ct_tensor_release(g2);
    ct_tensor_release(ix);
    ct_tensor_release(ov);
    ct_tensor_release(oi);
    ct_tensor_release(wide);
    ct_tensor_release(wide_c);
    ct_tensor_release(wide_i);
    ct_tensor_release(v1);
    ct_tensor_release(i1);
    ct_tensor_release(g);
    ct_tensor_release(c);
}

static void test_stage_errors(void **state) {
    (void)state;
    ct_tensor *c = randn_as(CT_FLOAT32, SHAPE(5), 1), *g = on_dev(c, DEV0), *v = NULL, *i = NULL;
    ct_tensor *ov = NULL, *oi = NULL;
    OK(ct_tensor_empty(SHAPE(5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &ov));
    OK(ct_tensor_empty(SHAPE(5), CT_INT64, &DEV0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &oi));
    EXPECT_ERR(ct_sort(g, 0, false, true, ov, oi, &v, &i), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two "
               "devices, cuda:0 and cpu!");
    ct_tensor *oi1 = NULL;
    OK(ct_tensor_empty(SHAPE(5), CT_INT64, &DEV1, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &oi1));
    ct_tensor_release(ov);
    OK(ct_tensor_empty(SHAPE(5), CT_FLOAT32, &DEV0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &ov));
    EXPECT_ERR(ct_sort(g, 0, false, true, ov, oi1, &v, &i), CT_ERR_RUNTIME,
               "Expected all tensors to be on the same device, but found at least two "
               "devices, cuda:0 and cuda:1!");
    /* the cpu op's own errors, unchanged */
    EXPECT_ERR(ct_sort(g, 3, false, true, NULL, NULL, &v, &i), CT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-1, 0], but got 3)");
    EXPECT_ERR(ct_topk(g, 9, 0, true, true, &v, &i), CT_ERR_RUNTIME,
               "selected index k out of range");
    /* device allocation failures: an error, nothing leaked (the teardown checks) */
    opaque_fail_alloc = 1;
    ct_status st = ct_sort(g, 0, false, true, NULL, NULL, &v, &i);
    opaque_fail_alloc = 0;
    assert_int_equal(st, CT_ERR_NOMEM);
    assert_null(v);
    assert_null(i);
    ct_tensor_release(ov);
    ct_tensor_release(oi);
    ct_tensor_release(oi1);
    ct_tensor_release(g);
    ct_tensor_release(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_family),
        cmocka_unit_test(test_sort_out),
        cmocka_unit_test(test_stage_errors),
    };
    return cmocka_run_group_tests(tests, stage_setup, stage_teardown);
}
