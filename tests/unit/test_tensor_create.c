/* Creation: empty/zeros/ones/full (every dtype, PyTorch's range checks of values), *_like,
 * empty_strided, from_data, scalar tensors, arange, rand/randn; default dtype, default
 * device scopes, explicit devices on cpu, meta and an accelerator (the host-emulated
 * backend registered as privateuseone "npu" with two devices). */
#include <math.h>

#include "tensor_test_util.h"

static const ct_device NPU = {CT_DEVICE_PRIVATEUSEONE, -1};
static const ct_device NPU1 = {CT_DEVICE_PRIVATEUSEONE, 1};

/* The library's host-emulated accelerator as privateuseone "npu" with two devices. Its
 * unregistration fails while any of its memory is live: the teardown is a leak check. */
static int setup(void **state) {
    (void)state;
    if (ct_privateuse1_set_name("npu") != CT_OK)
        return -1;
    return ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 2) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    if (ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return -1;
    }
    return 0;
}

/* The bytes of a tensor (any device), contiguous in logical order, into buf. */
static void read_bytes(const ct_tensor *t, void *buf, size_t cap) {
    ct_tensor *c = NULL;
    OK(ct_tensor_to(t, CT_DTYPE_UNDEFINED, &CPU, false, CT_MEMFMT_CONTIGUOUS, &c));
    size_t n = (size_t)ct_tensor_nbytes(c);
    assert_true(n <= cap);
    if (n > 0)
        memcpy(buf, ct_tensor_data_ptr(c), n);
    ct_tensor_release(c);
}

/* ---- dtype and device defaults ---- */

static void test_defaults(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(SHAPE(2), CT_DTYPE_UNDEFINED, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &t));
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT32);
    assert_true(ct_device_equal(ct_tensor_device(t), CPU));
    ct_tensor_release(t);
    OK(ct_set_default_dtype(CT_FLOAT64));
    OK(ct_tensor_zeros(SHAPE(2), CT_DTYPE_UNDEFINED, NULL, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT64);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(1), ct_scalar_complex(1, 1), CT_DTYPE_UNDEFINED, NULL,
                      CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_COMPLEX128);
    ct_tensor_release(t);
    OK(ct_set_default_dtype(CT_FLOAT16));
    OK(ct_tensor_full(SHAPE(1), ct_scalar_complex(1, 1), CT_DTYPE_UNDEFINED, NULL,
                      CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_COMPLEX64); /* infer_full_options, not complex32 */
    ct_tensor_release(t);
    OK(ct_tensor_scalar_tensor(ct_scalar_complex(1, 1), CT_DTYPE_UNDEFINED, NULL, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_COMPLEX32); /* torch.tensor(1j): default complex */
    ct_tensor_release(t);
    OK(ct_set_default_dtype(CT_FLOAT32));

    /* default device scopes: innermost wins; an explicit device beats them */
    size_t mark;
    OK(ct_default_device_push(META, &mark));
    OK(ct_tensor_ones(SHAPE(3), CT_INT32, NULL, CT_LAYOUT_STRIDED, &t));
    assert_true(ct_tensor_is_meta(t));
    ct_tensor_release(t);
    OK(ct_default_device_push(NPU, NULL));
    OK(ct_tensor_ones(SHAPE(3), CT_INT32, NULL, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_device(t).type, CT_DEVICE_PRIVATEUSEONE);
    assert_int_equal(ct_tensor_get_device(t), 0); /* the current device, made concrete */
    ct_tensor_release(t);
    OK(ct_set_device(NPU1));
    OK(ct_tensor_ones(SHAPE(3), CT_INT32, NULL, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_get_device(t), 1);
    ct_tensor_release(t);
    OK(ct_tensor_ones(SHAPE(3), CT_INT32, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_true(ct_device_equal(ct_tensor_device(t), CPU));
    ct_tensor_release(t);
    ct_device cpu1 = {CT_DEVICE_CPU, 1};
    OK(ct_tensor_ones(SHAPE(3), CT_INT32, &cpu1, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_device(t).index, -1); /* cpu tensors carry no index */
    ct_tensor_release(t);
    ct_device npu5 = {CT_DEVICE_PRIVATEUSEONE, 5};
    assert_status_msg(ct_tensor_ones(SHAPE(3), CT_INT32, &npu5, CT_LAYOUT_STRIDED, &t),
                      CT_ERR_RUNTIME,
                      "Device index 5 is out of range for npu: 2 devices are available");
    ct_default_device_pop(mark);
    OK(ct_set_device((ct_device){CT_DEVICE_PRIVATEUSEONE, 0}));
    ct_device cuda = {CT_DEVICE_CUDA, 0};
    assert_status_msg(ct_tensor_zeros(SHAPE(3), CT_INT32, &cuda, CT_LAYOUT_STRIDED, &t),
                      CT_ERR_RUNTIME, "No backend is registered for device type cuda");
}

static void test_layout_and_args(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    assert_status_msg(
        ct_tensor_zeros(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_SPARSE_COO, &t),
        CT_ERR_NOT_IMPLEMENTED,
        "ct_tensor_zeros: layout torch.sparse_coo is not supported by the tensor core");
    assert_status_msg(
        ct_tensor_full(SHAPE(2), ct_scalar_int(1), CT_FLOAT32, &CPU, CT_LAYOUT_SPARSE_COO, &t),
        CT_ERR_RUNTIME, "full(...) is not implemented for sparse layout");
    assert_int_equal(
        ct_tensor_empty(SHAPE(2), CT_FLOAT32, &CPU, (ct_layout)12, CT_MEMFMT_CONTIGUOUS, &t),
        CT_ERR_MISUSE);
    assert_int_equal(
        ct_tensor_empty(SHAPE(2), (ct_dtype)40, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t),
        CT_ERR_MISUSE);
    assert_status_msg(
        ct_tensor_empty(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_PRESERVE, &t),
        CT_ERR_RUNTIME, "unsupported memory format Preserve");
    assert_status_msg(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                                      CT_MEMFMT_CHANNELS_LAST, &t),
                      CT_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
    assert_int_equal(
        ct_tensor_empty(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, NULL),
        CT_ERR_MISUSE);
    assert_null(t);
    /* empty_strided */
    OK(ct_tensor_empty_strided(ARR(2, 3), ARR(1, 4), 2, CT_INT16, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_strides(t, 1, 4);
    assert_int_equal(ct_storage_nbytes(ct_tensor_storage(t)), (1 + 1 + 8) * 2);
    ct_tensor_release(t);
    assert_status_msg(
        ct_tensor_empty_strided(ARR(2), ARR(-1), 1, CT_INT16, &CPU, CT_LAYOUT_STRIDED, &t),
        CT_ERR_RUNTIME,
        "empty_strided: Negative strides are not supported at the moment, got "
        "strides: [-1]");
    OK(ct_tensor_empty_strided(ARR(0, 3), ARR(1, 4), 2, CT_INT16, &META, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_storage_nbytes(ct_tensor_storage(t)), 0);
    ct_tensor_release(t);
}

/* ---- zeros / ones / full for every dtype ---- */

static void test_fill_all_dtypes(void **state) {
    (void)state;
    for (int d = 0; d < CT_NUM_DTYPES; d++) {
        ct_dtype dt = (ct_dtype)d;
        size_t isz = ct_dtype_itemsize(dt);
        unsigned char got[6 * 16], one[16], val[16];
        ct_tensor *t = NULL;
        for (int dev = 0; dev < 2; dev++) {
            const ct_device *where = dev == 0 ? &CPU : &NPU1;
            OK(ct_tensor_zeros(SHAPE(2, 3), dt, where, CT_LAYOUT_STRIDED, &t));
            read_bytes(t, got, sizeof got);
            for (size_t i = 0; i < 6 * isz; i++)
                assert_int_equal(got[i], 0);
            ct_tensor_release(t);
            OK(ct_tensor_ones(SHAPE(2, 3), dt, where, CT_LAYOUT_STRIDED, &t));
            OK(ct_scalar_to_dtype(ct_scalar_int(1), dt, one));
            read_bytes(t, got, sizeof got);
            for (int i = 0; i < 6; i++)
                assert_memory_equal(got + i * isz, one, isz);
            ct_tensor_release(t);
            /* full of 3.0, then fill_ with 0.5 over the transposed view */
            OK(ct_tensor_full(SHAPE(2, 3), ct_scalar_float(3.0), dt, where, CT_LAYOUT_STRIDED, &t));
            OK(ct_scalar_to_dtype(ct_scalar_float(3.0), dt, val));
            read_bytes(t, got, sizeof got);
            for (int i = 0; i < 6; i++)
                assert_memory_equal(got + i * isz, val, isz);
            /* fill_ of a strided slice (columns 0 and 2): the gaps keep 3.0 */
            ct_tensor *tt = NULL;
            OK(ct_tensor_slice(t, 1, 0, CT_SLICE_END, 2, &tt));
            OK(ct_tensor_fill_(tt, ct_scalar_float(0.5)));
            ct_tensor_release(tt);
            OK(ct_scalar_to_dtype(ct_scalar_float(0.5), dt, one));
            read_bytes(t, got, sizeof got);
            for (int i = 0; i < 6; i++)
                assert_memory_equal(got + i * isz, i % 3 == 1 ? val : one, isz);
            /* and of the transposed (dense) view: everything */
            OK(ct_tensor_t(t, &tt));
            OK(ct_tensor_fill_(tt, ct_scalar_float(0.5)));
            ct_tensor_release(tt);
            read_bytes(t, got, sizeof got);
            for (int i = 0; i < 6; i++)
                assert_memory_equal(got + i * isz, one, isz);
            ct_tensor_release(t);
        }
    }
    /* some encodings spelled out */
    unsigned char b[16];
    OK(ct_scalar_to_dtype(ct_scalar_int(1), CT_FLOAT8_E8M0FNU, b));
    assert_int_equal(b[0], 0x7F);
    OK(ct_scalar_to_dtype(ct_scalar_int(1), CT_FLOAT4_E2M1FN_X2, b));
    assert_int_equal(b[0], 0x22);
    OK(ct_scalar_to_dtype(ct_scalar_int(1), CT_FLOAT8_E4M3FN, b));
    assert_int_equal(b[0], 0x38);
    OK(ct_scalar_to_dtype(ct_scalar_int(0), CT_FLOAT8_E8M0FNU, b)); /* integer 0: no overflow */
    assert_int_equal(b[0], 0x00);
    OK(ct_scalar_to_dtype(ct_scalar_int(-4), CT_FLOAT8_E8M0FNU, b)); /* sign ignored */
    assert_int_equal(b[0], 0x81);
    OK(ct_scalar_to_dtype(ct_scalar_float(INFINITY), CT_FLOAT8_E5M2, b));
    assert_int_equal(b[0], 0x7C);
    OK(ct_scalar_to_dtype(ct_scalar_float(-6.0), CT_FLOAT4_E2M1FN_X2, b));
    assert_int_equal(b[0], 0xFF);
    OK(ct_scalar_to_dtype(ct_scalar_complex(1.5, -2), CT_COMPLEX128, b));
    ct_complex128 c;
    memcpy(&c, b, sizeof c);
    assert_true(c.re == 1.5 && c.im == -2);
}

static void expect_overflow(ct_scalar v, ct_dtype dt, const char *type) {
    char msg[128];
    snprintf(msg, sizeof msg, "value cannot be converted to type %s without overflow", type);
    ct_tensor *t = NULL;
    assert_status_msg(ct_tensor_full(SHAPE(1), v, dt, &CPU, CT_LAYOUT_STRIDED, &t), CT_ERR_OVERFLOW,
                      msg);
    assert_null(t);
    OK(ct_tensor_zeros(SHAPE(3), dt, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_status_msg(ct_tensor_fill_(t, v), CT_ERR_OVERFLOW, msg);
    unsigned char z[48] = {0};
    assert_memory_equal(ct_tensor_data_ptr(t), z, 3 * ct_dtype_itemsize(dt)); /* untouched */
    ct_tensor_release(t);
}

static double full_value(ct_scalar v, ct_dtype dt) {
    ct_tensor *t = NULL;
    OK(ct_tensor_full(SHAPE(1), v, dt, &CPU, CT_LAYOUT_STRIDED, &t));
    double r = item_f64(t);
    ct_tensor_release(t);
    return r;
}

static void test_full_range_checks(void **state) {
    (void)state;
    /* PyTorch's overflow rule: a negative integer into an unsigned type overflows only when
     * its magnitude exceeds the type's max (-255 -> 1, -256 refused) */
    expect_overflow(ct_scalar_int(-256), CT_UINT8, "uint8_t");
    assert_true(full_value(ct_scalar_int(-255), CT_UINT8) == 1);
    assert_true(full_value(ct_scalar_int(-1), CT_UINT8) == 255);
    expect_overflow(ct_scalar_int(256), CT_UINT8, "uint8_t");
    expect_overflow(ct_scalar_int(128), CT_INT8, "int8_t");
    expect_overflow(ct_scalar_int(40000), CT_INT16, "int16_t");
    expect_overflow(ct_scalar_float(NAN), CT_INT32, "int");
    expect_overflow(ct_scalar_float(INFINITY), CT_INT32, "int");
    expect_overflow(ct_scalar_float(-INFINITY), CT_INT32, "int");
    expect_overflow(ct_scalar_float(2.7e10), CT_INT32, "int");
    assert_true(isinf(full_value(ct_scalar_float(INFINITY), CT_FLOAT16)));
    assert_true(isnan(full_value(ct_scalar_float(NAN), CT_FLOAT16)));
    expect_overflow(ct_scalar_float(1e39), CT_BFLOAT16, "c10::BFloat16");
    expect_overflow(ct_scalar_float(1e39), CT_FLOAT32, "float");
    expect_overflow(ct_scalar_float(70000), CT_FLOAT16, "c10::Half");
    expect_overflow(ct_scalar_int(65505), CT_FLOAT16, "c10::Half");
    assert_true(full_value(ct_scalar_int(5), CT_BOOL) == 1);
    assert_true(full_value(ct_scalar_float(2.7), CT_BOOL) == 1);
    assert_true(full_value(ct_scalar_float(NAN), CT_BOOL) == 1);
    expect_overflow(ct_scalar_complex(1e39, 0), CT_COMPLEX64, "c10::complex<float>");
    expect_overflow(ct_scalar_complex(0, 1), CT_INT64, "int64_t");
    expect_overflow(ct_scalar_complex(1, 2), CT_FLOAT32, "float");
    expect_overflow(ct_scalar_complex(1, 70000), CT_COMPLEX32, "c10::complex<c10::Half>");
    assert_true(full_value(ct_scalar_complex(2.5, 0), CT_FLOAT64) == 2.5);
    assert_true(full_value(ct_scalar_float(2.7), CT_INT32) == 2); /* truncation */
    assert_true(full_value(ct_scalar_float(-2.7), CT_INT32) == -2);
    expect_overflow(ct_scalar_float(-1.0), CT_UINT8, "uint8_t"); /* floats do not wrap */
    expect_overflow(ct_scalar_uint(UINT64_C(1) << 63), CT_INT64, "int64_t");
    assert_true(full_value(ct_scalar_uint(UINT64_MAX), CT_UINT64) == (double)UINT64_MAX);
    assert_true(full_value(ct_scalar_int(-1), CT_UINT64) == (double)UINT64_MAX); /* wraps */
}

static void test_full_range_shell(void **state) {
    (void)state;
    expect_overflow(ct_scalar_float(500), CT_FLOAT8_E4M3FN, "c10::Float8_e4m3fn");
    expect_overflow(ct_scalar_float(INFINITY), CT_FLOAT8_E4M3FN, "c10::Float8_e4m3fn");
    expect_overflow(ct_scalar_float(241), CT_FLOAT8_E4M3FNUZ, "c10::Float8_e4m3fnuz");
    expect_overflow(ct_scalar_float(1e5), CT_FLOAT8_E5M2FNUZ, "c10::Float8_e5m2fnuz");
    expect_overflow(ct_scalar_float(0.0), CT_FLOAT8_E8M0FNU, "c10::Float8_e8m0fnu");
    expect_overflow(ct_scalar_float(7), CT_FLOAT4_E2M1FN_X2, "c10::Float4_e2m1fn_x2");
    expect_overflow(ct_scalar_float(NAN), CT_FLOAT4_E2M1FN_X2, "c10::Float4_e2m1fn_x2");
    expect_overflow(ct_scalar_int(70000), CT_UINT16, "uint16_t");
    expect_overflow(ct_scalar_int(INT64_C(1) << 32), CT_UINT32, "uint32_t");
    unsigned char b[16];
    OK(ct_scalar_to_dtype(ct_scalar_float(NAN), CT_FLOAT8_E4M3FN, b));
    assert_int_equal(b[0], 0x7F);
    assert_int_equal(ct_scalar_to_dtype(ct_scalar_int(1), (ct_dtype)30, b), CT_ERR_MISUSE);
    assert_int_equal(ct_scalar_to_dtype(ct_scalar_int(1), CT_INT8, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_scalar_dtype(ct_scalar_uint(5)), CT_INT64); /* small: an INT */
    assert_int_equal(ct_scalar_dtype(ct_scalar_uint(UINT64_MAX)), CT_UINT64);
    for (int d = 1; d < CT_NUM_DTYPES; d++) { /* every dtype has a named limit */
        if (d == CT_FLOAT64 || d == CT_COMPLEX128)
            continue; /* nothing a double holds overflows them */
        assert_int_equal(ct_scalar_to_dtype(ct_scalar_float(1e300), (ct_dtype)d, b),
                         CT_ERR_OVERFLOW);
        assert_non_null(strstr(ct_last_error(), "value cannot be converted to type "));
        assert_null(strstr(ct_last_error(), "(null)"));
    }
    OK(ct_scalar_to_dtype(ct_scalar_float(1e300), CT_BOOL, b));
    assert_int_equal(b[0], 1);
    assert_true(ct_scalar_is_integral(ct_scalar_bool(true), true));
    assert_false(ct_scalar_is_integral(ct_scalar_bool(true), false));
    assert_false(ct_scalar_is_integral(ct_scalar_float(1), true));
}

static void test_full_inference(void **state) {
    (void)state;
    ct_tensor *t = NULL;
    OK(ct_tensor_full(SHAPE(2), ct_scalar_float(1.5), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED,
                      &t));
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT32);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(2), ct_scalar_int(2), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_INT64);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(2), ct_scalar_bool(true), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED,
                      &t));
    assert_int_equal(ct_tensor_dtype(t), CT_BOOL);
    ct_tensor_release(t);
    OK(ct_tensor_full(SHAPE(2), ct_scalar_complex(0, 1), CT_DTYPE_UNDEFINED, &CPU,
                      CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_COMPLEX64);
    ct_tensor_release(t);
    assert_status_msg(ct_tensor_full(SHAPE(2), ct_scalar_uint(UINT64_MAX), CT_DTYPE_UNDEFINED, &CPU,
                                     CT_LAYOUT_STRIDED, &t),
                      CT_ERR_OVERFLOW,
                      "value cannot be converted to type int64_t without overflow");
    /* full_like keeps the input's dtype */
    ct_tensor *x = NULL;
    OK(ct_tensor_zeros(SHAPE(2, 2), CT_INT16, &CPU, CT_LAYOUT_STRIDED, &x));
    OK(ct_tensor_full_like(x, ct_scalar_float(7.9), CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE,
                           &t));
    assert_int_equal(ct_tensor_dtype(t), CT_INT16);
    assert_int_equal(((int16_t *)ct_tensor_data_ptr(t))[3], 7);
    ct_tensor_release(t);
    OK(ct_tensor_full_like(x, ct_scalar_float(7.9), CT_FLOAT64, &NPU1, CT_MEMFMT_PRESERVE, &t));
    assert_int_equal(ct_tensor_get_device(t), 1);
    double got[4];
    read_bytes(t, got, sizeof got);
    assert_true(got[0] == 7.9 && got[3] == 7.9);
    ct_tensor_release(t);
    ct_tensor_release(x);
}

/* ---- host data and scalars ---- */

static void test_from_data(void **state) {
    (void)state;
    const int16_t data[6] = {1, -2, 3, -4, 5, -6};
    ct_tensor *t = NULL;
    for (int dev = 0; dev < 3; dev++) {
        const ct_device *where = dev == 0 ? &CPU : dev == 1 ? &NPU1 : &META;
        OK(ct_tensor_from_data(SHAPE(2, 3), CT_INT16, data, where, &t));
        assert_sizes(t, 2, 3);
        assert_strides(t, 3, 1);
        if (dev < 2) {
            int16_t got[6];
            read_bytes(t, got, sizeof got);
            assert_memory_equal(got, data, sizeof data);
        }
        ct_tensor_release(t);
    }
    OK(ct_tensor_from_data(SHAPE(0, 3), CT_INT16, NULL, &CPU, &t));
    ct_tensor_release(t);
    assert_status_msg(ct_tensor_from_data(SHAPE(2), CT_INT16, NULL, &CPU, &t), CT_ERR_MISUSE,
                      "ct_tensor_from_data: data is NULL for 4 bytes");
    assert_null(t);
    assert_status_msg(ct_tensor_from_data(SHAPE(2), CT_DTYPE_UNDEFINED, data, &CPU, &t),
                      CT_ERR_MISUSE, "ct_tensor_from_data: needs a concrete dtype, got -1");

    OK(ct_tensor_scalar_tensor(ct_scalar_int(3), CT_DTYPE_UNDEFINED, &NPU1, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_INT64);
    assert_int_equal(ct_tensor_dim(t), 0);
    assert_true(item_f64(t) == 3);
    assert_false(ct_tensor_is_wrapped_number(t));
    ct_tensor_release(t);
    OK(ct_tensor_scalar_tensor(ct_scalar_float(0.25), CT_BFLOAT16, NULL, &t));
    assert_true(item_f64(t) == 0.25);
    ct_tensor_release(t);
    assert_status_msg(ct_tensor_scalar_tensor(ct_scalar_int(300), CT_INT8, NULL, &t),
                      CT_ERR_OVERFLOW, "value cannot be converted to type int8_t without overflow");
}

/* ---- arange ---- */

static ct_tensor *ar(ct_scalar a, ct_scalar b, ct_scalar s, ct_dtype dt) {
    ct_tensor *t = NULL;
    OK(ct_tensor_arange(a, b, s, dt, &CPU, CT_LAYOUT_STRIDED, &t));
    return t;
}

#define I(x) ct_scalar_int(x)
#define F(x) ct_scalar_float(x)

static void test_arange(void **state) {
    (void)state;
    ct_tensor *t = ar(I(0), I(5), I(1), CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_tensor_dtype(t), CT_INT64);
    assert_sizes(t, 5);
    assert_int_equal(((int64_t *)ct_tensor_data_ptr(t))[4], 4);
    ct_tensor_release(t);
    t = ar(ct_scalar_bool(false), I(3), ct_scalar_bool(true), CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_tensor_dtype(t), CT_INT64); /* bools count as integral */
    assert_sizes(t, 3);
    ct_tensor_release(t);
    /* Note [arange arithmetic]: int64 truncates the bounds first, int32 does not */
    t = ar(I(0), F(2.5), I(1), CT_INT64);
    assert_sizes(t, 2);
    ct_tensor_release(t);
    t = ar(I(0), F(2.5), I(1), CT_INT32);
    assert_sizes(t, 3);
    assert_int_equal(((int32_t *)ct_tensor_data_ptr(t))[2], 2);
    ct_tensor_release(t);
    t = ar(I(1), F(2.5), F(0.5), CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT32);
    const float w1[3] = {1, 1.5f, 2};
    assert_sizes(t, 3);
    assert_memory_equal(ct_tensor_data_ptr(t), w1, sizeof w1);
    ct_tensor_release(t);
    t = ar(I(0), I(1), F(0.1), CT_FLOAT64);
    assert_sizes(t, 10);
    assert_true(((double *)ct_tensor_data_ptr(t))[9] == 0.1 * 9);
    ct_tensor_release(t);
    t = ar(I(10), I(0), I(-3), CT_DTYPE_UNDEFINED);
    const int64_t w2[4] = {10, 7, 4, 1};
    assert_memory_equal(ct_tensor_data_ptr(t), w2, sizeof w2);
    ct_tensor_release(t);
    t = ar(I(250), I(260), I(1), CT_UINT8); /* values wrap into uint8 */
    assert_int_equal(((uint8_t *)ct_tensor_data_ptr(t))[9], 3);
    ct_tensor_release(t);
    t = ar(I(0), I(4), I(1), CT_FLOAT16);
    assert_int_equal(((uint16_t *)ct_tensor_data_ptr(t))[3], 0x4200); /* 3.0 */
    ct_tensor_release(t);
    t = ar(I(5), I(5), I(1), CT_DTYPE_UNDEFINED);
    assert_sizes(t, 0);
    ct_tensor_release(t);
    OK(ct_set_default_dtype(CT_FLOAT64));
    t = ar(I(0), I(1), F(0.5), CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT64);
    ct_tensor_release(t);
    OK(ct_set_default_dtype(CT_FLOAT32));

    /* devices */
    OK(ct_tensor_arange(I(0), I(6), I(2), CT_INT32, &NPU1, CT_LAYOUT_STRIDED, &t));
    int32_t got[3];
    read_bytes(t, got, sizeof got);
    assert_int_equal(got[2], 4);
    ct_tensor_release(t);
    OK(ct_tensor_arange(I(0), I(1000000), I(1), CT_DTYPE_UNDEFINED, &META, CT_LAYOUT_STRIDED, &t));
    assert_sizes(t, 1000000);
    ct_tensor_release(t);

    /* errors */
    ct_tensor *e = NULL;
    assert_status_msg(
        ct_tensor_arange(I(0), I(5), I(0), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_RUNTIME, "step must be nonzero");
    assert_status_msg(
        ct_tensor_arange(F(0), F(5), F(0), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_RUNTIME, "step must be nonzero");
    assert_status_msg(
        ct_tensor_arange(I(0), F(INFINITY), I(1), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_RUNTIME, "unsupported range: 0 -> inf");
    assert_status_msg(
        ct_tensor_arange(I(5), I(0), I(1), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
    assert_status_msg(ct_tensor_arange(I(0), I(5), I(1), CT_BOOL, &CPU, CT_LAYOUT_STRIDED, &e),
                      CT_ERR_NOT_IMPLEMENTED, "\"arange_cpu\" not implemented for 'Bool'");
    assert_status_msg(ct_tensor_arange(I(0), I(5), I(1), CT_COMPLEX64, &CPU, CT_LAYOUT_STRIDED, &e),
                      CT_ERR_NOT_IMPLEMENTED, "\"arange_cpu\" not implemented for 'ComplexFloat'");
    assert_status_msg(ct_tensor_arange(I(0), I(5), I(1), CT_UINT16, &CPU, CT_LAYOUT_STRIDED, &e),
                      CT_ERR_NOT_IMPLEMENTED, "\"arange_cpu\" not implemented for 'UInt16'");
    assert_status_msg(ct_tensor_arange(I(0), F(1e30), I(1), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &e),
                      CT_ERR_OVERFLOW,
                      "value cannot be converted to type int64_t without overflow");
    assert_status_msg(
        ct_tensor_arange(I(0), F(1e39), I(1), CT_FLOAT16, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_OVERFLOW, "value cannot be converted to type float without overflow");
    assert_status_msg(
        ct_tensor_arange(F(0), F(1e20), F(1e-20), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_RUNTIME, "invalid size, possible overflow?");
    assert_status_msg(
        ct_tensor_arange(I(INT64_MIN), I(INT64_MAX), I(1), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &e),
        CT_ERR_RUNTIME, "invalid size, possible overflow?");
    assert_status_msg(ct_tensor_arange(I(0), ct_scalar_complex(1, 1), I(1), CT_DTYPE_UNDEFINED,
                                       &CPU, CT_LAYOUT_STRIDED, &e),
                      CT_ERR_OVERFLOW, "value cannot be converted to type double without overflow");
    assert_status_msg(
        ct_tensor_arange(I(0), I(5), I(1), CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_SPARSE_COO, &e),
        CT_ERR_NOT_IMPLEMENTED,
        "ct_tensor_arange: layout torch.sparse_coo is not supported by the tensor core");
    assert_null(e);
}

/* ---- random ---- */

static void test_philox_kat(void **state) {
    (void)state;
    /* Random123's known-answer vectors for philox4x32-10 */
    uint32_t out[4];
    const uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0};
    ct_philox4x32_10(c0, k0, out);
    assert_true(out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu &&
                out[3] == 0x9b00dbd8u);
    const uint32_t c1[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    const uint32_t k1[2] = {0xffffffffu, 0xffffffffu};
    ct_philox4x32_10(c1, k1, out);
    assert_true(out[0] == 0x408f276du && out[1] == 0x41c83b0eu && out[2] == 0xa20bc7c6u &&
                out[3] == 0x6d5451fdu);
    const uint32_t c2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    const uint32_t k2[2] = {0xa4093822u, 0x299f31d0u};
    ct_philox4x32_10(c2, k2, out);
    assert_true(out[0] == 0xd16cfe09u && out[1] == 0x94fdccebu && out[2] == 0x5001e420u &&
                out[3] == 0x24126ea1u);
}

static void test_rand(void **state) {
    (void)state;
    ct_tensor *a = NULL, *b = NULL;
    ct_manual_seed(123);
    assert_true(ct_initial_seed() == 123);
    OK(ct_tensor_rand(SHAPE(1000), NULL, CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &a));
    ct_manual_seed(123);
    OK(ct_tensor_rand(SHAPE(1000), NULL, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &b));
    assert_memory_equal(ct_tensor_data_ptr(a), ct_tensor_data_ptr(b), 4000);
    double sum = 0;
    const float *p = ct_tensor_data_ptr(a);
    for (int i = 0; i < 1000; i++) {
        assert_true(p[i] >= 0.0f && p[i] < 1.0f);
        sum += p[i];
    }
    assert_true(sum > 450 && sum < 550);
    ct_tensor_release(b);
    OK(ct_tensor_rand(SHAPE(1000), NULL, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &b)); /* moves on */
    assert_memory_not_equal(ct_tensor_data_ptr(a), ct_tensor_data_ptr(b), 4000);
    ct_tensor_release(a);
    ct_tensor_release(b);

    /* a generator of our own, its state saved and replayed */
    ct_generator *g = NULL;
    OK(ct_generator_new(7, &g));
    uint64_t seed, off;
    ct_generator_get_state(g, &seed, &off);
    assert_true(seed == 7 && off == 0);
    OK(ct_tensor_randn(SHAPE(3, 5), g, CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &a));
    ct_generator_set_state(g, 7, 0);
    OK(ct_tensor_randn(SHAPE(15), g, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &b));
    for (int i = 0; i < 15; i++) /* the same normals, rounded once */
        assert_true(((float *)ct_tensor_data_ptr(b))[i] ==
                    (float)((double *)ct_tensor_data_ptr(a))[i]);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_generator_manual_seed(g, 99);
    assert_true(ct_generator_initial_seed(g) == 99);

    /* randn statistics */
    OK(ct_tensor_randn(SHAPE(100000), g, CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &a));
    double m = 0, v = 0;
    const double *q = ct_tensor_data_ptr(a);
    for (int i = 0; i < 100000; i++)
        m += q[i];
    m /= 100000;
    for (int i = 0; i < 100000; i++)
        v += (q[i] - m) * (q[i] - m);
    v /= 100000;
    assert_true(fabs(m) < 0.02 && fabs(v - 1) < 0.02);
    ct_tensor_release(a);
    /* complex: parts with variance 1/2 */
    OK(ct_tensor_randn(SHAPE(50000), g, CT_COMPLEX128, &CPU, CT_LAYOUT_STRIDED, &a));
    v = 0;
    q = ct_tensor_data_ptr(a);
    for (int i = 0; i < 100000; i++)
        v += q[i] * q[i];
    assert_true(fabs(v / 100000 - 0.5) < 0.02);
    ct_tensor_release(a);
    /* narrow dtypes stay in [0, 1) */
    ct_dtype narrow[] = {CT_FLOAT16, CT_BFLOAT16, CT_COMPLEX32, CT_COMPLEX64};
    for (int k = 0; k < 4; k++) {
        OK(ct_tensor_rand(SHAPE(4096), g, narrow[k], &CPU, CT_LAYOUT_STRIDED, &a));
        ct_tensor *f = NULL;
        OK(ct_tensor_to(a, ct_dtype_is_complex(narrow[k]) ? CT_COMPLEX64 : CT_FLOAT32, NULL, false,
                        CT_MEMFMT_PRESERVE, &f));
        const float *r = ct_tensor_data_ptr(f);
        int64_t n = ct_tensor_numel(f) * (ct_dtype_is_complex(narrow[k]) ? 2 : 1);
        for (int64_t i = 0; i < n; i++)
            assert_true(r[i] >= 0.0f && r[i] < 1.0f);
        ct_tensor_release(f);
        ct_tensor_release(a);
    }
    /* devices */
    OK(ct_tensor_rand(SHAPE(10), g, CT_FLOAT32, &NPU1, CT_LAYOUT_STRIDED, &a));
    assert_int_equal(ct_tensor_get_device(a), 1);
    ct_tensor_release(a);
    ct_generator_get_state(g, NULL, &off);
    OK(ct_tensor_rand(SHAPE(10), g, CT_FLOAT32, &META, CT_LAYOUT_STRIDED, &a));
    ct_tensor_release(a);
    ct_generator_get_state(g, NULL, &seed);
    assert_true(seed == off); /* meta consumed nothing */
    /* like */
    OK(ct_tensor_empty(SHAPE(2, 3, 4, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CHANNELS_LAST, &b));
    OK(ct_tensor_rand_like(b, g, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE, &a));
    assert_strides(a, 60, 1, 15, 3);
    ct_tensor_release(a);
    OK(ct_tensor_randn_like(b, g, CT_FLOAT64, NULL, CT_MEMFMT_CONTIGUOUS, &a));
    assert_strides(a, 60, 20, 5, 1);
    ct_tensor_release(a);
    ct_tensor_release(b);
    /* errors */
    assert_status_msg(ct_tensor_rand(SHAPE(3), g, CT_INT32, &CPU, CT_LAYOUT_STRIDED, &a),
                      CT_ERR_NOT_IMPLEMENTED, "\"check_uniform_bounds\" not implemented for 'Int'");
    assert_null(a);
    assert_status_msg(ct_tensor_randn(SHAPE(3), g, CT_FLOAT8_E4M3FN, &CPU, CT_LAYOUT_STRIDED, &a),
                      CT_ERR_NOT_IMPLEMENTED,
                      "\"normal_kernel_cpu\" not implemented for 'Float8_e4m3fn'");
    OK(ct_tensor_rand(SHAPE(0), g, CT_INT32, &CPU, CT_LAYOUT_STRIDED, &a)); /* empty: fine */
    ct_tensor_release(a);
    assert_int_equal(ct_tensor_randn(SHAPE(0), g, CT_INT32, &CPU, CT_LAYOUT_STRIDED, &a),
                     CT_ERR_NOT_IMPLEMENTED);
    ct_generator_free(g);
    ct_generator_free(NULL);
    ct_generator_free(ct_default_generator()); /* ignored */
    ct_manual_seed(CT_DEFAULT_SEED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),         cmocka_unit_test(test_layout_and_args),
        cmocka_unit_test(test_fill_all_dtypes),  cmocka_unit_test(test_full_range_checks),
        cmocka_unit_test(test_full_range_shell), cmocka_unit_test(test_full_inference),
        cmocka_unit_test(test_from_data),        cmocka_unit_test(test_arange),
        cmocka_unit_test(test_philox_kat),       cmocka_unit_test(test_rand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
