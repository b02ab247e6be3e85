/* Printing (print.h): fixed repr strings. Those of dtypes and behaviour PyTorch 1.13 shares
 * were printed by 1.13; the others follow newest PyTorch's rules (see print.h), and
 * tests/python/test_print_vs_torch.py compares far more cases with 1.13 directly. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "tensor_test_util.h"

#include "tensor/print_impl.h"
#include "tensor/tensor_impl.h"

/* A 0-dim shape for mk(). */
#define SCALAR NULL, 0

static ct_tensor *mk(ct_dtype dt, const int64_t *sizes, int64_t nd, const void *data) {
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(sizes, nd, dt, data, &CPU, &t));
    return t;
}

#define F32(shape, ...) mk(CT_FLOAT32, shape, (const float[]){__VA_ARGS__})
#define F64(shape, ...) mk(CT_FLOAT64, shape, (const double[]){__VA_ARGS__})
#define I64(shape, ...) mk(CT_INT64, shape, (const int64_t[]){__VA_ARGS__})

/* repr(t) with `opts` (NULL: the process-wide ones) must be `want`; releases t. */
static void expect_opts(ct_tensor *t, const ct_print_options *opts, const char *want) {
    char *s = NULL;
    OK(ct_tensor_repr(t, opts, &s));
    assert_non_null(s);
    if (strcmp(s, want) != 0)
        fail_msg("got\n%s\nwant\n%s", s, want);
    ct_string_free(s);
    ct_tensor_release(t);
}
static void expect(ct_tensor *t, const char *want) { expect_opts(t, NULL, want); }

static ct_print_options with(int precision, ct_print_sci_mode sci) {
    ct_print_options o = ct_print_options_default();
    o.precision = precision;
    o.sci_mode = sci;
    return o;
}

/* ---- numbers ------------------------------------------------------------------------------ */

static void t_ints_and_bools(void **state) {
    (void)state;
    expect(mk(CT_INT32, SHAPE(3), (const int32_t[]){1, 2, 3}),
           "tensor([1, 2, 3], dtype=torch.int32)");
    expect(I64(SHAPE(2, 2), 7, -100, 30, 4), "tensor([[   7, -100],\n        [  30,    4]])");
    expect(mk(CT_BOOL, SCALAR, (const bool[]){true}), "tensor(True)");
    expect(mk(CT_BOOL, SHAPE(2), (const bool[]){true, false}), "tensor([ True, False])");
    expect(mk(CT_UINT8, SHAPE(2), (const uint8_t[]){255, 0}),
           "tensor([255,   0], dtype=torch.uint8)");
    expect(mk(CT_UINT64, SHAPE(2), (const uint64_t[]){UINT64_MAX, 5}),
           "tensor([18446744073709551615,                    5], dtype=torch.uint64)");
    expect(mk(CT_UINT16, SHAPE(1), (const uint16_t[]){65535}),
           "tensor([65535], dtype=torch.uint16)");
}

static void t_floats(void **state) {
    (void)state;
    expect(F32(SCALAR, 3.0f), "tensor(3.)");
    expect(F32(SCALAR, -0.0f), "tensor(-0.)");
    expect(F32(SCALAR, -NAN), "tensor(nan)"); /* Python never signs a NaN */
    expect(F32(SHAPE(2), -0.0f, 1.0f), "tensor([-0., 1.])");
    expect(F32(SHAPE(2), 1e-5f, 1.0f), "tensor([1.0000e-05, 1.0000e+00])");
    expect(F32(SHAPE(2), 2.5e-5f, 1.0f), "tensor([2.5000e-05, 1.0000e+00])");
    expect(F32(SHAPE(4), NAN, INFINITY, -INFINITY, 1.5f),
           "tensor([   nan,    inf,   -inf, 1.5000])");
    expect(F32(SHAPE(3), NAN, INFINITY, 0.0f), "tensor([nan, inf, 0.])");
    expect(F32(SHAPE(6), 0.5f, 1.5f, 2.5f, 3.5f, 1.25f, 0.125f),
           "tensor([0.5000, 1.5000, 2.5000, 3.5000, 1.2500, 0.1250])");
    expect(F64(SHAPE(2), 0.1, 0.25), "tensor([0.1000, 0.2500], dtype=torch.float64)");
    /* large integral values: scientific by the 1e8 rule, exact digits when forced fixed */
    expect(F32(SHAPE(2), 1e15f, 2e15f), "tensor([1.0000e+15, 2.0000e+15])");
    ct_print_options off = with(4, CT_PRINT_SCI_OFF);
    expect_opts(F32(SHAPE(2), 1e15f, 2e15f), &off,
                "tensor([ 999999986991104., 1999999973982208.])");
    /* half, bfloat16: their exact values */
    expect(mk(CT_FLOAT16, SHAPE(2), (const uint16_t[]){0x3C00, 0x3555}),
           "tensor([1.0000, 0.3333], dtype=torch.float16)");
    expect(mk(CT_BFLOAT16, SHAPE(1), (const uint16_t[]){0x4049}),
           "tensor([3.1406], dtype=torch.bfloat16)");
}

static void t_precision_rounding(void **state) {
    (void)state;
    ct_print_options p0 = with(0, CT_PRINT_SCI_AUTO);
    /* round half to even on the exact binary value, as Python's format */
    expect_opts(F32(SHAPE(4), 0.5f, 1.5f, 2.5f, 3.7f), &p0, "tensor([0, 2, 2, 4])");
    ct_print_options p2 = with(2, CT_PRINT_SCI_AUTO);
    expect_opts(F64(SHAPE(3), 0.125, 0.375, 2.675), &p2,
                "tensor([0.12, 0.38, 2.67], dtype=torch.float64)");
    /* a huge precision neither overflows a buffer nor loses digits */
    ct_print_options big = with(CT_PRINT_MAX_PRECISION, CT_PRINT_SCI_OFF);
    ct_tensor *t = F64(SCALAR, -4503599627370495.5);
    char *s = NULL;
    OK(ct_tensor_repr(t, &big, &s));
    assert_int_equal(strlen(s), strlen("tensor(-4503599627370495.") + CT_PRINT_MAX_PRECISION +
                                    strlen(",\n       dtype=torch.float64)"));
    assert_true(strncmp(s, "tensor(-4503599627370495.5000000000", 35) == 0);
    ct_string_free(s);
    ct_tensor_release(t);
    /* integral values print all their digits, exactly as Python's "{:.0f}" */
    expect_opts(
        F64(SCALAR, -1.7976931348623157e308), &big,
        "tensor(-17976931348623157081452742373170435679807056752584499659891747680315726078002853"
        "876058955863276687817154045895351438246423432132688946418276846754670353751698604991057"
        "655128207624549009038932894407586850845513394230458323690322294816580855933212334827479"
        "7826204144723168738177180919299881250404026184124858368.,\n       dtype=torch.float64)");
}

static void t_sci_mode(void **state) {
    (void)state;
    ct_print_options on = with(4, CT_PRINT_SCI_ON), off = with(4, CT_PRINT_SCI_OFF);
    expect_opts(F32(SHAPE(2), 0.0f, 0.0f), &on, "tensor([0., 0.])"); /* nothing to format */
    expect_opts(F32(SHAPE(2), 1.0f, 2.0f), &on, "tensor([1.0000e+00, 2.0000e+00])");
    /* newest PyTorch measures in the forced notation (1.13: "[        1., 1000000000.]") */
    expect_opts(F32(SHAPE(2), 1.0f, 1e9f), &off, "tensor([         1., 1000000000.])");
    expect_opts(F32(SHAPE(2), 1e-5f, 1.0f), &off, "tensor([0.0000, 1.0000])");
}

static void t_complex(void **state) {
    (void)state;
    expect(mk(CT_COMPLEX64, SHAPE(2), (const float[]){1, 2, -0.0f, 0}),
           "tensor([1.+2.j, -0.+0.j])");
    expect(
        mk(CT_COMPLEX128, SHAPE(2), (const double[]){1.23456789e-7, 2, 3.5, -1e10}),
        "tensor([1.2346e-07+2.0000e+00j, 3.5000e+00-1.0000e+10j],\n       dtype=torch.complex128)");
    expect(mk(CT_COMPLEX64, SCALAR, (const float[]){0.5f, -0.0f}), "tensor(0.5000-0.j)");
    expect(mk(CT_COMPLEX64, SHAPE(2), (const float[]){NAN, NAN, 1, INFINITY}),
           "tensor([nan+nanj, 1.+infj])");
    expect(mk(CT_COMPLEX32, SHAPE(1), (const uint16_t[]){0x3C00, 0xC000}),
           "tensor([1.-2.j], dtype=torch.complex32)");
}

static void t_new_dtypes(void **state) {
    (void)state;
    /* float8: exact values; e8m0fnu has 2^-127 and NaN */
    expect(mk(CT_FLOAT8_E4M3FN, SHAPE(3), (const uint8_t[]){0x38, 0x7F, 0x01}),
           "tensor([1.0000,    nan, 0.0020], dtype=torch.float8_e4m3fn)");
    expect(mk(CT_FLOAT8_E4M3FN, SHAPE(4), (const uint8_t[]){0x38, 0x7E, 0x7F, 0x01}),
           "tensor([1.0000e+00, 4.4800e+02,        nan, 1.9531e-03],\n       "
           "dtype=torch.float8_e4m3fn)");
    expect(mk(CT_FLOAT8_E8M0FNU, SHAPE(3), (const uint8_t[]){127, 128, 126}),
           "tensor([1.0000, 2.0000, 0.5000], dtype=torch.float8_e8m0fnu)");
    expect(mk(CT_FLOAT8_E5M2, SHAPE(2), (const uint8_t[]){0x7C, 0x3C}),
           "tensor([inf, 1.], dtype=torch.float8_e5m2)");
    /* float4_e2m1fn_x2: the packed bytes, as uint8 values in a floating formatter */
    expect(mk(CT_FLOAT4_E2M1FN_X2, SHAPE(3), (const uint8_t[]){0x00, 0x21, 0xF7}),
           "tensor([  0.,  33., 247.], dtype=torch.float4_e2m1fn_x2)");
    expect(mk(CT_FLOAT4_E2M1FN_X2, SCALAR, (const uint8_t[]){0x21}),
           "tensor(33., dtype=torch.float4_e2m1fn_x2)");
}

/* ---- shapes -------------------------------------------------------------------------------- */

static void t_empty_and_meta(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(SHAPE(0), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &t));
    expect(t, "tensor([])");
    OK(ct_tensor_empty(SHAPE(0, 3), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    expect(t, "tensor([], size=(0, 3), dtype=torch.int64)");
    OK(ct_tensor_empty(SHAPE(0), CT_INT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    expect(t, "tensor([], dtype=torch.int32)");
    OK(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &t));
    expect(t, "tensor(..., device='meta', size=(2, 3))");
    OK(ct_tensor_empty(SHAPE(4), CT_INT64, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    expect(t, "tensor(..., device='meta', size=(4,), dtype=torch.int64)");
    OK(ct_tensor_empty(NULL, 0, CT_BOOL, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    expect(t, "tensor(..., device='meta', size=(), dtype=torch.bool)");
    OK(ct_tensor_empty(SHAPE(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), CT_COMPLEX128, &CPU, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CONTIGUOUS, &t));
    expect(t, "tensor([], size=(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), dtype=torch.complex128)");
}

static void t_nested(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(2, 3, 4)), *q = NULL, *tt = NULL;
    /* arange(24).reshape(2, 3, 4) / 4 */
    float v[24];
    for (int i = 0; i < 24; i++)
        v[i] = (float)i / 4;
    q = mk(CT_FLOAT32, SHAPE(2, 3, 4), v);
    expect(q, "tensor([[[0.0000, 0.2500, 0.5000, 0.7500],\n"
              "         [1.0000, 1.2500, 1.5000, 1.7500],\n"
              "         [2.0000, 2.2500, 2.5000, 2.7500]],\n\n"
              "        [[3.0000, 3.2500, 3.5000, 3.7500],\n"
              "         [4.0000, 4.2500, 4.5000, 4.7500],\n"
              "         [5.0000, 5.2500, 5.5000, 5.7500]]])");
    /* a transposed view */
    OK(ct_tensor_transpose(a, 0, 2, &tt));
    ct_tensor *s = NULL;
    OK(ct_tensor_slice(tt, 0, 1, CT_SLICE_END, 2, &s));
    expect(s, "tensor([[[ 1., 13.],\n         [ 5., 17.],\n         [ 9., 21.]],\n\n"
              "        [[ 3., 15.],\n         [ 7., 19.],\n         [11., 23.]]])");
    ct_tensor_release(tt);
    /* size-1 dims, expanded (stride 0) */
    ct_tensor *e = NULL, *one = F32(SHAPE(1, 1), 7.0f);
    OK(ct_tensor_expand(one, SHAPE(2, 1, 3), &e));
    expect(e, "tensor([[[7., 7., 7.]],\n\n        [[7., 7., 7.]]])");
    ct_tensor_release(one);
    ct_tensor_release(a);
}

static void t_wrapping(void **state) {
    (void)state;
    int64_t v[30];
    for (int i = 0; i < 30; i++)
        v[i] = i * 1000;
    expect(mk(CT_INT64, SHAPE(30), v),
           "tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
           "        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000,\n"
           "        20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000, 28000, 29000])");
    int16_t w[13];
    for (int i = 0; i < 13; i++)
        w[i] = (int16_t)(i * 1111);
    expect(mk(CT_INT16, SHAPE(13), w),
           "tensor([    0,  1111,  2222,  3333,  4444,  5555,  6666,  7777,  8888,  9999,\n"
           "        11110, 12221, 13332], dtype=torch.int16)");
    ct_print_options narrow = ct_print_options_default();
    narrow.linewidth = 10;
    expect_opts(mk(CT_INT8, SCALAR, (const int8_t[]){0}), &narrow,
                "tensor(0,\n       dtype=torch.int8)");
    narrow.linewidth = -5;
    expect_opts(I64(SHAPE(2), 1, 2), &narrow, "tensor([1,\n        2])");
}

static void t_summarize(void **state) {
    (void)state;
    ct_tensor *a = NULL, *r = NULL;
    OK(ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(2000), ct_scalar_int(1), CT_DTYPE_UNDEFINED,
                        &CPU, CT_LAYOUT_STRIDED, &a));
    OK(ct_tensor_to_dtype(a, CT_FLOAT32, &r));
    ct_tensor *m = NULL;
    OK(ct_tensor_view(r, SHAPE(2, 1000), &m));
    expect(m, "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n"
              "         9.9900e+02],\n"
              "        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
              "         1.9990e+03]])");
    expect(ct_tensor_retain(a), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
    ct_print_options o = ct_print_options_default();
    o.threshold = 5;
    o.edgeitems = 1;
    OK(ct_tensor_view(a, SHAPE(4, 5, 100), &m));
    expect_opts(m, &o,
                "tensor([[[   0,  ...,   99],\n         ...,\n         [ 400,  ...,  499]],\n\n"
                "        ...,\n\n"
                "        [[1500,  ..., 1599],\n         ...,\n         [1900,  ..., 1999]]])");
    /* edgeitems 0 (newest PyTorch): nothing but the size */
    o.edgeitems = 0;
    OK(ct_tensor_view(a, SHAPE(4, 500), &m));
    expect_opts(m, &o, "tensor([...], size=(4, 500))");
    expect_opts(I64(SHAPE(2), 1, 2), &o, "tensor([1, 2], size=(2,))");
    expect_opts(F32(SCALAR, 3.0f), &o, "tensor(3., size=())");
    /* only the printed elements are read: 2^40 elements of stride 0 */
    ct_tensor *one = F32(SHAPE(1), 7.0f), *huge = NULL;
    OK(ct_tensor_expand(one, SHAPE(4, (int64_t)1 << 40), &huge));
    o = ct_print_options_default();
    expect_opts(
        huge, &o,
        "tensor([[7., 7., 7.,  ..., 7., 7., 7.],\n        [7., 7., 7.,  ..., 7., 7., 7.],\n"
        "        [7., 7., 7.,  ..., 7., 7., 7.],\n        [7., 7., 7.,  ..., 7., 7., 7.]])");
    ct_tensor_release(one);
    /* threshold infinity ('full'): never summarized */
    OK(ct_print_options_apply_profile(&o, "full"));
    char *s = NULL;
    OK(ct_tensor_repr(a, &o, &s));
    assert_null(strstr(s, "..."));
    ct_string_free(s);
    ct_tensor_release(r);
    ct_tensor_release(a);
}

/* ---- suffixes ------------------------------------------------------------------------------ */

static void t_default_dtype(void **state) {
    (void)state;
    OK(ct_set_default_dtype(CT_FLOAT64));
    expect(F64(SHAPE(1), 1.5), "tensor([1.5000])");
    expect(F32(SHAPE(1), 1.5f), "tensor([1.5000], dtype=torch.float32)");
    expect(mk(CT_COMPLEX128, SHAPE(1), (const double[]){1, 1}), "tensor([1.+1.j])");
    expect(mk(CT_COMPLEX64, SHAPE(1), (const float[]){1, 1}),
           "tensor([1.+1.j], dtype=torch.complex64)");
    expect(mk(CT_FLOAT32, SHAPE(0), NULL), "tensor([], dtype=torch.float32)");
    OK(ct_set_default_dtype(CT_FLOAT16));
    /* printing's default complex dtype stays complex64 for a float16 default */
    expect(mk(CT_COMPLEX64, SHAPE(1), (const float[]){1, 1}), "tensor([1.+1.j])");
    expect(mk(CT_COMPLEX32, SHAPE(1), (const uint16_t[]){0x3C00, 0x3C00}),
           "tensor([1.+1.j], dtype=torch.complex32)");
    expect(mk(CT_FLOAT16, SHAPE(1), (const uint16_t[]){0x3E00}), "tensor([1.5000])");
    OK(ct_set_default_dtype(CT_FLOAT32));
}

static void t_prefix_and_device(void **state) {
    (void)state;
    ct_print_options o = ct_print_options_default();
    strcpy(o.prefix, "ctensor.");
    expect_opts(mk(CT_INT32, SHAPE(1), (const int32_t[]){1}), &o,
                "tensor([1], dtype=ctensor.int32)");
    OK(ct_privateuse1_set_name("npu"));
    OK(ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 2));
    ct_device npu1 = {CT_DEVICE_PRIVATEUSEONE, 1};
    ct_tensor *t = NULL;
    OK(ct_tensor_from_data(SHAPE(2), CT_FLOAT32, (const float[]){1, 2}, &npu1, &t));
    expect(t, "tensor([1., 2.], device='npu:1')");
    OK(ct_tensor_from_data(SHAPE(0), CT_INT16, NULL, &npu1, &t));
    expect(t, "tensor([], device='npu:1', dtype=torch.int16)");
    OK(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE));
}

static void t_named(void **state) {
    (void)state;
    ct_tensor *t = F64(SHAPE(2, 2), 1, 2, 3, 4);
    char *s = NULL;
    OK(ct_tensor_repr_named(t, NULL, "Param", &s));
    assert_string_equal(s, "Param([[1., 2.],\n       [3., 4.]], dtype=torch.float64)");
    ct_string_free(s);
    OK(ct_tensor_repr_named(t, NULL, NULL, &s));
    assert_string_equal(s, "tensor([[1., 2.],\n        [3., 4.]], dtype=torch.float64)");
    ct_string_free(s);
    ct_tensor_release(t);
}

/* ---- options and errors -------------------------------------------------------------------- */

static void t_options(void **state) {
    (void)state;
    ct_print_options d = ct_print_options_default(), o = d;
    assert_int_equal(d.precision, 4);
    assert_true(d.threshold == 1000.0);
    assert_int_equal(d.edgeitems, 3);
    assert_int_equal(d.linewidth, 80);
    assert_int_equal(d.sci_mode, CT_PRINT_SCI_AUTO);
    assert_string_equal(d.prefix, "torch.");
    OK(ct_print_options_apply_profile(&o, "short"));
    assert_int_equal(o.precision, 2);
    assert_int_equal(o.edgeitems, 2);
    OK(ct_print_options_apply_profile(&o, "full"));
    assert_true(isinf(o.threshold));
    assert_int_equal(o.precision, 4);
    assert_status_msg(ct_print_options_apply_profile(&o, "long"), CT_ERR_VALUE,
                      "unknown print profile 'long' (expected 'default', 'short' or 'full')");
    assert_status_msg(ct_print_options_apply_profile(NULL, "full"), CT_ERR_MISUSE,
                      "ct_print_options_apply_profile: NULL argument");

    /* process-wide options */
    ct_print_options g = with(1, CT_PRINT_SCI_AUTO);
    OK(ct_set_printoptions(&g));
    assert_int_equal(ct_get_printoptions().precision, 1);
    expect(F32(SHAPE(1), 0.25f), "tensor([0.2])");
    g.precision = -1;
    assert_status_msg(ct_set_printoptions(&g), CT_ERR_VALUE,
                      "precision must be between 0 and 500, got -1");
    g.precision = 501;
    assert_status_msg(ct_set_printoptions(&g), CT_ERR_VALUE,
                      "precision must be between 0 and 500, got 501");
    g.precision = 2;
    g.edgeitems = -1;
    assert_status_msg(ct_set_printoptions(&g), CT_ERR_VALUE,
                      "edgeitems must be non-negative, got -1");
    g.edgeitems = 3;
    g.sci_mode = (ct_print_sci_mode)7;
    assert_status_msg(ct_set_printoptions(&g), CT_ERR_VALUE, "invalid sci_mode value 7");
    g.sci_mode = CT_PRINT_SCI_AUTO;
    memset(g.prefix, 'x', sizeof g.prefix);
    assert_status_msg(ct_set_printoptions(&g), CT_ERR_VALUE,
                      "the module prefix must be a NUL-terminated string of at most 31 bytes");
    assert_status_msg(ct_set_printoptions(NULL), CT_ERR_MISUSE, "print options are NULL");
    assert_int_equal(ct_get_printoptions().precision, 1); /* unchanged by the failures */
    OK(ct_set_printoptions(&d));
}

static void t_errors(void **state) {
    (void)state;
    char *s = (char *)"x";
    ct_tensor *t = F32(SHAPE(1), 1.0f);
    assert_status_msg(ct_tensor_repr(NULL, NULL, &s), CT_ERR_MISUSE,
                      "ct_tensor_repr: tensor is NULL");
    assert_null(s);
    assert_status_msg(ct_tensor_repr(t, NULL, NULL), CT_ERR_MISUSE, "ct_tensor_repr: out is NULL");
    /* each function names itself */
    assert_status_msg(ct_tensor_repr_named(NULL, NULL, "x", &s), CT_ERR_MISUSE,
                      "ct_tensor_repr_named: tensor is NULL");
    ct_print_options bad = ct_print_options_default();
    bad.edgeitems = -2;
    s = (char *)"x";
    assert_status_msg(ct_tensor_repr(t, &bad, &s), CT_ERR_VALUE,
                      "edgeitems must be non-negative, got -2");
    assert_null(s);
    ct_tensor_release(t);
    ct_tensor *sp = NULL;
    OK(ct_tensor_impl_new_nonstrided(CT_LAYOUT_SPARSE_COO, CT_FLOAT32, CPU, SHAPE(2, 2), NULL, NULL,
                                     &sp));
    assert_status_msg(
        ct_tensor_repr(sp, NULL, &s), CT_ERR_NOT_IMPLEMENTED,
        "printing tensors of layout torch.sparse_coo is not implemented by the tensor core");
    ct_tensor_release(sp);
    ct_string_free(NULL);
}

/* ---- allocation failures ------------------------------------------------------------------- */

static long live, calls, fail_at;

static void *fa_alloc(void *ctx, size_t size, size_t align) {
    (void)ctx;
    if (++calls == fail_at)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) != 0)
        return NULL;
    live++;
    return p;
}
static void fa_free(void *ctx, void *p, size_t size, size_t align) {
    (void)ctx, (void)size, (void)align;
    if (p != NULL) {
        live--;
        free(p);
    }
}

static void t_fault_injection(void **state) {
    (void)state;
    ct_allocator fa = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fa));
    ct_tensor *t = NULL;
    float v[3000];
    for (int i = 0; i < 3000; i++)
        v[i] = (float)i / 3;
    OK(ct_tensor_from_data(SHAPE(30, 100), CT_FLOAT32, v, &CPU, &t));
    ct_print_options o = ct_print_options_default();
    o.edgeitems = 40; /* long enough output to grow the buffer a few times */
    int failures = 0;
    for (long n = 1;; n++) {
        long before = live;
        calls = 0;
        fail_at = n;
        char *s = (char *)"x";
        ct_status st = ct_tensor_repr(t, &o, &s);
        fail_at = 0;
        if (calls < n) { /* nothing failed */
            OK(st);
            assert_true(strlen(s) > 1000);
            ct_string_free(s);
            assert_int_equal(live, before);
            break;
        }
        assert_int_equal(st, CT_ERR_NOMEM);
        assert_null(s);
        assert_int_equal(live, before);
        failures++;
    }
    assert_true(failures >= 3);
    ct_tensor_release(t);
    assert_int_equal(live, 0);
    OK(ct_set_allocator(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_ints_and_bools),
        cmocka_unit_test(t_floats),
        cmocka_unit_test(t_precision_rounding),
        cmocka_unit_test(t_sci_mode),
        cmocka_unit_test(t_complex),
        cmocka_unit_test(t_new_dtypes),
        cmocka_unit_test(t_empty_and_meta),
        cmocka_unit_test(t_nested),
        cmocka_unit_test(t_wrapping),
        cmocka_unit_test(t_summarize),
        cmocka_unit_test(t_default_dtype),
        cmocka_unit_test(t_prefix_and_device),
        cmocka_unit_test(t_named),
        cmocka_unit_test(t_options),
        cmocka_unit_test(t_errors),
        cmocka_unit_test(t_fault_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
