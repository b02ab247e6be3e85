/* dtype traits, names, default dtype, finfo and iinfo. Expected values are written out
 * from the PyTorch documentation (dtype table, default dtype, finfo/iinfo), independently
 * of dtypes.def. */
#include <float.h>
#include <math.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

typedef struct expect_row {
    ct_dtype dtype;
    const char *name, *cpp, *alias;
    size_t itemsize;
    bool is_float, is_complex, is_signed, is_shell;
} expect_row;

static const expect_row rows[] = {
    {CT_BOOL, "bool", "Bool", NULL, 1, false, false, false, false},
    {CT_UINT8, "uint8", "Byte", NULL, 1, false, false, false, false},
    {CT_INT8, "int8", "Char", NULL, 1, false, false, true, false},
    {CT_UINT16, "uint16", "UInt16", NULL, 2, false, false, false, true},
    {CT_INT16, "int16", "Short", "short", 2, false, false, true, false},
    {CT_UINT32, "uint32", "UInt32", NULL, 4, false, false, false, true},
    {CT_INT32, "int32", "Int", "int", 4, false, false, true, false},
    {CT_UINT64, "uint64", "UInt64", NULL, 8, false, false, false, true},
    {CT_INT64, "int64", "Long", "long", 8, false, false, true, false},
    {CT_FLOAT16, "float16", "Half", "half", 2, true, false, true, false},
    {CT_BFLOAT16, "bfloat16", "BFloat16", NULL, 2, true, false, true, false},
    {CT_FLOAT32, "float32", "Float", "float", 4, true, false, true, false},
    {CT_FLOAT64, "float64", "Double", "double", 8, true, false, true, false},
    {CT_COMPLEX32, "complex32", "ComplexHalf", "chalf", 4, false, true, true, false},
    {CT_COMPLEX64, "complex64", "ComplexFloat", "cfloat", 8, false, true, true, false},
    {CT_COMPLEX128, "complex128", "ComplexDouble", "cdouble", 16, false, true, true, false},
    {CT_FLOAT8_E4M3FN, "float8_e4m3fn", "Float8_e4m3fn", NULL, 1, true, false, true, true},
    {CT_FLOAT8_E5M2, "float8_e5m2", "Float8_e5m2", NULL, 1, true, false, true, true},
    {CT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", "Float8_e4m3fnuz", NULL, 1, true, false, true, true},
    {CT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", "Float8_e5m2fnuz", NULL, 1, true, false, true, true},
    {CT_FLOAT8_E8M0FNU, "float8_e8m0fnu", "Float8_e8m0fnu", NULL, 1, true, false, false, true},
    {CT_FLOAT4_E2M1FN_X2, "float4_e2m1fn_x2", "Float4_e2m1fn_x2", NULL, 1, true, false, true, true},
};

static void test_table_matches_spec(void **state) {
    (void)state;
    assert_int_equal(sizeof rows / sizeof rows[0], CT_NUM_DTYPES);
    assert_int_equal(CT_NUM_DTYPES, 22);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const expect_row *r = &rows[i];
        assert_true(ct_dtype_is_valid(r->dtype));
        assert_string_equal(ct_dtype_name(r->dtype), r->name);
        assert_string_equal(ct_dtype_cpp_name(r->dtype), r->cpp);
        if (r->alias)
            assert_string_equal(ct_dtype_alias(r->dtype), r->alias);
        else
            assert_null(ct_dtype_alias(r->dtype));
        assert_int_equal(ct_dtype_itemsize(r->dtype), r->itemsize);
        assert_int_equal(ct_dtype_is_floating_point(r->dtype), r->is_float);
        assert_int_equal(ct_dtype_is_complex(r->dtype), r->is_complex);
        assert_int_equal(ct_dtype_is_signed(r->dtype), r->is_signed);
        assert_int_equal(ct_dtype_is_shell(r->dtype), r->is_shell);
        assert_non_null(ct_dtype_abbr(r->dtype));
        ct_dtype d;
        assert_int_equal(ct_dtype_from_name(r->name, &d), CT_OK);
        assert_int_equal(d, r->dtype);
        if (r->alias) {
            assert_int_equal(ct_dtype_from_name(r->alias, &d), CT_OK);
            assert_int_equal(d, r->dtype);
        }
    }
    assert_string_equal(ct_dtype_abbr(CT_FLOAT32), "f32");
    assert_string_equal(ct_dtype_abbr(CT_BOOL), "b8");
    assert_string_equal(ct_dtype_abbr(CT_FLOAT4_E2M1FN_X2), "f4e2m1fnx2");
}

static void test_invalid_dtypes_are_total(void **state) {
    (void)state;
    ct_dtype bad[] = {CT_DTYPE_UNDEFINED, CT_NUM_DTYPES, (ct_dtype)1000};
    for (size_t i = 0; i < 3; i++) {
        assert_false(ct_dtype_is_valid(bad[i]));
        assert_null(ct_dtype_name(bad[i]));
        assert_null(ct_dtype_cpp_name(bad[i]));
        assert_int_equal(ct_dtype_itemsize(bad[i]), 0);
        assert_false(ct_dtype_is_floating_point(bad[i]));
        assert_false(ct_dtype_is_signed(bad[i]));
        assert_false(ct_dtype_is_integral(bad[i], true));
    }
}

static void test_names(void **state) {
    (void)state;
    ct_dtype d = CT_FLOAT32;
    assert_status_msg(ct_dtype_from_name("float33", &d), CT_ERR_VALUE, "unknown dtype name 'float33'");
    assert_int_equal(d, CT_DTYPE_UNDEFINED);
    /* PyTorch has no byte/char/uint aliases, and names are case-sensitive */
    assert_int_equal(ct_dtype_from_name("byte", &d), CT_ERR_VALUE);
    assert_int_equal(ct_dtype_from_name("Float", &d), CT_ERR_VALUE);
    assert_int_equal(ct_dtype_from_name("", &d), CT_ERR_VALUE);
    assert_int_equal(ct_dtype_from_name(NULL, &d), CT_ERR_MISUSE);
    assert_int_equal(ct_dtype_from_name("float", NULL), CT_ERR_MISUSE);
}

static void test_categories(void **state) {
    (void)state;
    /* isIntegralType includes the barebones unsigned types, excludes bool unless asked */
    ct_dtype integral[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_UINT16, CT_UINT32, CT_UINT64};
    for (size_t i = 0; i < 8; i++)
        assert_true(ct_dtype_is_integral(integral[i], false));
    assert_false(ct_dtype_is_integral(CT_BOOL, false));
    assert_true(ct_dtype_is_integral(CT_BOOL, true));
    assert_false(ct_dtype_is_integral(CT_FLOAT16, true));
    int n8 = 0, nreduced = 0, nbare = 0;
    for (int i = 0; i < CT_NUM_DTYPES; i++) {
        n8 += ct_dtype_is_float8((ct_dtype)i);
        nreduced += ct_dtype_is_reduced_floating((ct_dtype)i);
        nbare += ct_dtype_is_barebones_unsigned((ct_dtype)i);
    }
    assert_int_equal(n8, 5);
    assert_int_equal(nreduced, 8); /* half, bfloat16, five float8, float4 */
    assert_int_equal(nbare, 3);
    assert_false(ct_dtype_is_barebones_unsigned(CT_UINT8));
    assert_int_equal(ct_dtype_kind_of(CT_UINT16), CT_KIND_UINT);
    assert_int_equal(ct_dtype_kind_of(CT_COMPLEX32), CT_KIND_COMPLEX);
}

static void test_to_real_to_complex(void **state) {
    (void)state;
    assert_int_equal(ct_dtype_to_real(CT_COMPLEX32), CT_FLOAT16);
    assert_int_equal(ct_dtype_to_real(CT_COMPLEX64), CT_FLOAT32);
    assert_int_equal(ct_dtype_to_real(CT_COMPLEX128), CT_FLOAT64);
    assert_int_equal(ct_dtype_to_real(CT_INT32), CT_INT32);
    assert_int_equal(ct_dtype_to_real(CT_BFLOAT16), CT_BFLOAT16);
    ct_dtype d;
    assert_int_equal(ct_dtype_to_complex(CT_BFLOAT16, &d), CT_OK);
    assert_int_equal(d, CT_COMPLEX64);
    assert_int_equal(ct_dtype_to_complex(CT_FLOAT16, &d), CT_OK);
    assert_int_equal(d, CT_COMPLEX32);
    assert_int_equal(ct_dtype_to_complex(CT_FLOAT32, &d), CT_OK);
    assert_int_equal(d, CT_COMPLEX64);
    assert_int_equal(ct_dtype_to_complex(CT_FLOAT64, &d), CT_OK);
    assert_int_equal(d, CT_COMPLEX128);
    assert_int_equal(ct_dtype_to_complex(CT_COMPLEX32, &d), CT_OK);
    assert_int_equal(d, CT_COMPLEX32);
    assert_status_msg(ct_dtype_to_complex(CT_INT32, &d), CT_ERR_RUNTIME, "Unknown Complex ScalarType for Int");
    assert_int_equal(d, CT_DTYPE_UNDEFINED);
    assert_status_msg(ct_dtype_to_complex(CT_FLOAT8_E4M3FN, &d), CT_ERR_RUNTIME,
                      "Unknown Complex ScalarType for Float8_e4m3fn");
    assert_status_msg(ct_dtype_to_complex(CT_BOOL, &d), CT_ERR_RUNTIME,
                      "Unknown Complex ScalarType for Bool");
}

static void test_default_dtype(void **state) {
    (void)state;
    assert_int_equal(ct_get_default_dtype(), CT_FLOAT32);
    assert_int_equal(ct_get_default_complex_dtype(), CT_COMPLEX64);
    const struct {
        ct_dtype d, c;
    } ok[] = {{CT_FLOAT64, CT_COMPLEX128}, {CT_FLOAT16, CT_COMPLEX32}, {CT_BFLOAT16, CT_COMPLEX64},
              {CT_FLOAT32, CT_COMPLEX64}};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(ct_set_default_dtype(ok[i].d), CT_OK);
        assert_int_equal(ct_get_default_dtype(), ok[i].d);
        assert_int_equal(ct_get_default_complex_dtype(), ok[i].c);
    }
    const char *only = "only floating-point types are supported as the default type";
    assert_status_msg(ct_set_default_dtype(CT_INT32), CT_ERR_TYPE, only);
    assert_status_msg(ct_set_default_dtype(CT_COMPLEX64), CT_ERR_TYPE, only);
    assert_status_msg(ct_set_default_dtype(CT_BOOL), CT_ERR_TYPE, only);
    assert_status_msg(ct_set_default_dtype(CT_UINT16), CT_ERR_TYPE, only);
    assert_status_msg(ct_set_default_dtype(CT_FLOAT8_E4M3FN), CT_ERR_TYPE,
                      "couldn't find storage object Float8_e4m3fnStorage");
    assert_status_msg(ct_set_default_dtype(CT_FLOAT4_E2M1FN_X2), CT_ERR_TYPE,
                      "couldn't find storage object Float4_e2m1fn_x2Storage");
    assert_int_equal(ct_set_default_dtype(CT_DTYPE_UNDEFINED), CT_ERR_MISUSE);
    assert_int_equal(ct_get_default_dtype(), CT_FLOAT32); /* unchanged by the failures */
}

static void check_finfo(ct_dtype d, int bits, double eps, double max, double min, double tiny,
                        double res, ct_dtype real) {
    ct_finfo f;
    assert_int_equal(ct_finfo_of(d, &f), CT_OK);
    assert_int_equal(f.bits, bits);
    assert_true(f.has_values);
    assert_true(f.eps == eps);
    assert_true(f.max == max);
    assert_true(f.min == min);
    assert_true(f.tiny == tiny);
    assert_true(f.smallest_normal == tiny);
    assert_true(f.resolution == res);
    assert_int_equal(f.dtype, real);
}

static void test_finfo(void **state) {
    (void)state;
    check_finfo(CT_FLOAT16, 16, 0.0009765625, 65504.0, -65504.0, 6.103515625e-05, 0.001, CT_FLOAT16);
    check_finfo(CT_BFLOAT16, 16, 0.0078125, 3.3895313892515355e+38, -3.3895313892515355e+38,
                1.1754943508222875e-38, 0.01, CT_BFLOAT16);
    check_finfo(CT_FLOAT32, 32, 1.1920928955078125e-07, 3.4028234663852886e+38,
                -3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06, CT_FLOAT32);
    check_finfo(CT_FLOAT64, 64, 2.220446049250313e-16, 1.7976931348623157e+308,
                -1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15, CT_FLOAT64);
    check_finfo(CT_COMPLEX32, 16, 0.0009765625, 65504.0, -65504.0, 6.103515625e-05, 0.001, CT_FLOAT16);
    check_finfo(CT_COMPLEX64, 32, 1.1920928955078125e-07, 3.4028234663852886e+38,
                -3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06, CT_FLOAT32);
    check_finfo(CT_COMPLEX128, 64, 2.220446049250313e-16, 1.7976931348623157e+308,
                -1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15, CT_FLOAT64);
    check_finfo(CT_FLOAT8_E4M3FN, 8, 0.125, 448.0, -448.0, 0.015625, 1.0, CT_FLOAT8_E4M3FN);
    check_finfo(CT_FLOAT8_E5M2, 8, 0.25, 57344.0, -57344.0, 6.103515625e-05, 1.0, CT_FLOAT8_E5M2);
    check_finfo(CT_FLOAT8_E4M3FNUZ, 8, 0.125, 240.0, -240.0, 0.0078125, 1.0, CT_FLOAT8_E4M3FNUZ);
    check_finfo(CT_FLOAT8_E5M2FNUZ, 8, 0.125, 57344.0, -57344.0, 3.0517578125e-05, 1.0,
                CT_FLOAT8_E5M2FNUZ);
    check_finfo(CT_FLOAT8_E8M0FNU, 8, 1.0, 1.7014118346046923e+38, 5.877471754111438e-39,
                5.877471754111438e-39, 1.0, CT_FLOAT8_E8M0FNU);

    ct_finfo f;
    assert_int_equal(ct_finfo_of(CT_FLOAT4_E2M1FN_X2, &f), CT_OK);
    assert_int_equal(f.bits, 8);
    assert_false(f.has_values);
    const char *msg = "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                      "handle 'torch.finfo'";
    ct_dtype nonfloat[] = {CT_BOOL, CT_UINT8, CT_INT64, CT_UINT64};
    for (size_t i = 0; i < 4; i++)
        assert_status_msg(ct_finfo_of(nonfloat[i], &f), CT_ERR_TYPE, msg);
    assert_int_equal(ct_finfo_of(CT_NUM_DTYPES, &f), CT_ERR_MISUSE);
    assert_int_equal(ct_finfo_of(CT_FLOAT32, NULL), CT_ERR_MISUSE);
}

static void test_iinfo(void **state) {
    (void)state;
    const struct {
        ct_dtype d;
        int bits;
        int64_t min;
        uint64_t max;
    } want[] = {
        {CT_UINT8, 8, 0, 255},
        {CT_INT8, 8, -128, 127},
        {CT_INT16, 16, -32768, 32767},
        {CT_INT32, 32, -2147483648LL, 2147483647},
        {CT_INT64, 64, INT64_MIN, INT64_MAX},
        {CT_UINT16, 16, 0, 65535},
        {CT_UINT32, 32, 0, 4294967295U},
        {CT_UINT64, 64, 0, UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ct_iinfo info;
        assert_int_equal(ct_iinfo_of(want[i].d, &info), CT_OK);
        assert_int_equal(info.bits, want[i].bits);
        assert_true(info.min == want[i].min);
        assert_true(info.max == want[i].max);
        assert_int_equal(info.dtype, want[i].d);
    }
    ct_iinfo info;
    assert_status_msg(ct_iinfo_of(CT_BOOL, &info), CT_ERR_TYPE, "torch.bool is not supported by torch.iinfo");
    const char *msg = "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'";
    assert_status_msg(ct_iinfo_of(CT_FLOAT32, &info), CT_ERR_TYPE, msg);
    assert_status_msg(ct_iinfo_of(CT_COMPLEX64, &info), CT_ERR_TYPE, msg);
    assert_status_msg(ct_iinfo_of(CT_FLOAT8_E5M2, &info), CT_ERR_TYPE, msg);
    assert_int_equal(ct_iinfo_of(CT_DTYPE_UNDEFINED, &info), CT_ERR_MISUSE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_spec),
        cmocka_unit_test(test_invalid_dtypes_are_total),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_categories),
        cmocka_unit_test(test_to_real_to_complex),
        cmocka_unit_test(test_default_dtype),
        cmocka_unit_test(test_finfo),
        cmocka_unit_test(test_iinfo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
