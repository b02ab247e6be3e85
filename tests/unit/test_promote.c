/* promote_types, can_cast and result_type against the rules and worked examples of the
 * PyTorch documentation. The full 13x13 comparison with torch 1.13 is in the Python
 * differential tests. */
#include "cmocka_all.h"
#include "ctensor/ctensor.h"

static ct_dtype promote_ok(ct_dtype a, ct_dtype b) {
    ct_dtype out = CT_DTYPE_UNDEFINED;
    ct_status st = ct_promote_types(a, b, &out);
    if (st != CT_OK)
        fail_msg("promote(%s, %s) failed: %s", ct_dtype_name(a), ct_dtype_name(b), ct_last_error());
    return out;
}

static void test_promote_properties(void **state) {
    (void)state;
    for (int a = 0; a < CT_NUM_DTYPES; a++) {
        /* equal types promote to themselves before any other rule */
        assert_int_equal(promote_ok((ct_dtype)a, (ct_dtype)a), a);
        for (int b = 0; b < CT_NUM_DTYPES; b++) {
            ct_dtype ab, ba;
            ct_status s1 = ct_promote_types((ct_dtype)a, (ct_dtype)b, &ab);
            ct_status s2 = ct_promote_types((ct_dtype)b, (ct_dtype)a, &ba);
            assert_int_equal(s1, s2); /* symmetric in success and failure */
            if (s1 != CT_OK) {
                assert_int_equal(ab, CT_DTYPE_UNDEFINED);
                continue;
            }
            assert_int_equal(ab, ba);
            /* associative-ish sanity: the result promotes with both inputs to itself */
            assert_int_equal(promote_ok(ab, (ct_dtype)a), ab);
            assert_int_equal(promote_ok(ab, (ct_dtype)b), ab);
        }
    }
}

static void test_promote_classic_cases(void **state) {
    (void)state;
    assert_int_equal(promote_ok(CT_UINT8, CT_INT8), CT_INT16);
    assert_int_equal(promote_ok(CT_INT8, CT_UINT8), CT_INT16);
    assert_int_equal(promote_ok(CT_BOOL, CT_UINT8), CT_UINT8);
    assert_int_equal(promote_ok(CT_BOOL, CT_BFLOAT16), CT_BFLOAT16);
    assert_int_equal(promote_ok(CT_INT64, CT_FLOAT16), CT_FLOAT16);
    assert_int_equal(promote_ok(CT_FLOAT16, CT_BFLOAT16), CT_FLOAT32);
    assert_int_equal(promote_ok(CT_COMPLEX32, CT_BFLOAT16), CT_COMPLEX64);
    assert_int_equal(promote_ok(CT_FLOAT32, CT_COMPLEX32), CT_COMPLEX64);
    assert_int_equal(promote_ok(CT_FLOAT64, CT_COMPLEX64), CT_COMPLEX128);
    assert_int_equal(promote_ok(CT_FLOAT64, CT_COMPLEX32), CT_COMPLEX128);
    assert_int_equal(promote_ok(CT_INT32, CT_INT64), CT_INT64);
    assert_int_equal(promote_ok(CT_UINT8, CT_INT64), CT_INT64);
}

static void test_promote_newest_rules(void **state) {
    (void)state;
    ct_dtype out;
    assert_int_equal(promote_ok(CT_FLOAT8_E4M3FN, CT_FLOAT8_E4M3FN), CT_FLOAT8_E4M3FN);
    assert_status_msg(ct_promote_types(CT_FLOAT8_E4M3FN, CT_FLOAT32, &out), CT_ERR_RUNTIME,
                      "Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Float");
    /* the float8 rule comes before the uint16 one */
    assert_status_msg(ct_promote_types(CT_UINT16, CT_FLOAT8_E5M2, &out), CT_ERR_RUNTIME,
                      "Promotion for Float8 Types is not supported, attempted to promote UInt16 and Float8_e5m2");
    assert_status_msg(ct_promote_types(CT_FLOAT8_E8M0FNU, CT_FLOAT8_E4M3FN, &out), CT_ERR_RUNTIME,
                      "Promotion for Float8 Types is not supported, attempted to promote Float8_e8m0fnu and Float8_e4m3fn");
    assert_int_equal(promote_ok(CT_UINT16, CT_FLOAT32), CT_FLOAT32);
    assert_int_equal(promote_ok(CT_BFLOAT16, CT_UINT64), CT_BFLOAT16);
    assert_int_equal(promote_ok(CT_FLOAT4_E2M1FN_X2, CT_UINT16), CT_FLOAT4_E2M1FN_X2);
    assert_status_msg(ct_promote_types(CT_UINT16, CT_UINT8, &out), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt16 and Byte");
    assert_status_msg(ct_promote_types(CT_INT32, CT_UINT32, &out), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Int and UInt32");
    assert_status_msg(ct_promote_types(CT_UINT16, CT_BOOL, &out), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt16 and Bool");
    /* complex is not "floating" for this rule */
    assert_status_msg(ct_promote_types(CT_UINT16, CT_COMPLEX64, &out), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt16 and ComplexFloat");
    assert_status_msg(ct_promote_types(CT_UINT64, CT_UINT32, &out), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt64 and UInt32");
    assert_status_msg(ct_promote_types(CT_FLOAT4_E2M1FN_X2, CT_FLOAT32, &out), CT_ERR_RUNTIME,
                      "Promotion for Float4_e2m1fn_x2 is not supported, attempted to promote Float4_e2m1fn_x2 and Float");
    assert_status_msg(ct_promote_types(CT_BOOL, CT_FLOAT4_E2M1FN_X2, &out), CT_ERR_RUNTIME,
                      "Promotion for Float4_e2m1fn_x2 is not supported, attempted to promote Bool and Float4_e2m1fn_x2");
    assert_int_equal(out, CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_promote_types(CT_DTYPE_UNDEFINED, CT_FLOAT32, &out), CT_ERR_MISUSE);
    assert_int_equal(ct_promote_types(CT_FLOAT32, CT_FLOAT32, NULL), CT_ERR_MISUSE);
}

/* torch 1.13's can_cast table, rows/columns u1 i1 i2 i4 i8 f2 f4 f8 c2 c4 c8 b1 bf. */
static const ct_dtype classic[13] = {CT_UINT8,     CT_INT8,      CT_INT16,      CT_INT32, CT_INT64,
                                     CT_FLOAT16,   CT_FLOAT32,   CT_FLOAT64,    CT_COMPLEX32,
                                     CT_COMPLEX64, CT_COMPLEX128, CT_BOOL,      CT_BFLOAT16};
static const char *const can_cast_rows[13] = {
    "YYYYYYYYYYY.Y", "YYYYYYYYYYY.Y", "YYYYYYYYYYY.Y", "YYYYYYYYYYY.Y", "YYYYYYYYYYY.Y",
    ".....YYYYYY.Y", ".....YYYYYY.Y", ".....YYYYYY.Y", "........YYY..", "........YYY..",
    "........YYY..", "YYYYYYYYYYYYY", ".....YYYYYY.Y",
};

static void test_can_cast(void **state) {
    (void)state;
    for (int i = 0; i < 13; i++)
        for (int j = 0; j < 13; j++)
            assert_int_equal(ct_can_cast(classic[i], classic[j]), can_cast_rows[i][j] == 'Y');
    /* newest dtypes, from the predicates */
    assert_false(ct_can_cast(CT_FLOAT32, CT_UINT16)); /* uint16 is integral */
    assert_false(ct_can_cast(CT_FLOAT8_E4M3FN, CT_UINT64));
    assert_true(ct_can_cast(CT_FLOAT32, CT_FLOAT8_E4M3FN));
    assert_true(ct_can_cast(CT_FLOAT32, CT_FLOAT4_E2M1FN_X2));
    assert_false(ct_can_cast(CT_COMPLEX64, CT_FLOAT8_E5M2));
    assert_true(ct_can_cast(CT_UINT64, CT_INT8));
    assert_true(ct_can_cast(CT_BOOL, CT_FLOAT8_E8M0FNU));
    assert_false(ct_can_cast(CT_UINT16, CT_BOOL));
    assert_false(ct_can_cast(CT_DTYPE_UNDEFINED, CT_FLOAT32));
    assert_false(ct_can_cast(CT_FLOAT32, CT_NUM_DTYPES));
}

static void test_check_output_cast(void **state) {
    (void)state;
    assert_int_equal(ct_check_output_cast(CT_INT64, CT_INT32), CT_OK);
    assert_int_equal(ct_check_output_cast(CT_FLOAT64, CT_FLOAT16), CT_OK);
    assert_status_msg(ct_check_output_cast(CT_FLOAT32, CT_INT64), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Long");
    assert_status_msg(ct_check_output_cast(CT_INT64, CT_BOOL), CT_ERR_RUNTIME,
                      "result type Long can't be cast to the desired output type Bool");
    assert_status_msg(ct_check_output_cast(CT_COMPLEX64, CT_FLOAT32), CT_ERR_RUNTIME,
                      "result type ComplexFloat can't be cast to the desired output type Float");
    assert_int_equal(ct_check_output_cast(CT_DTYPE_UNDEFINED, CT_FLOAT32), CT_ERR_MISUSE);
}

/* Operand shorthand: D = dimensioned tensor, Z = zero-dim tensor, S = Python scalar. */
#define D(t) {CT_##t, CT_OPERAND_DIMENSIONED}
#define Z(t) {CT_##t, CT_OPERAND_ZERO_DIM}
#define S(t) {CT_##t, CT_OPERAND_SCALAR}

typedef struct rt_case {
    ct_operand ops[3];
    size_t n;
    ct_dtype want;
} rt_case;

/* PyTorch's result_type examples (each checked against torch 1.13). */
static const rt_case rt_cases[] = {
    {{S(INT64), S(INT64)}, 2, CT_INT64},
    {{S(INT64), S(FLOAT64)}, 2, CT_FLOAT32},
    {{S(FLOAT64), S(FLOAT64)}, 2, CT_FLOAT32}, /* result_type(5.0, 5.0) */
    {{S(BOOL), S(BOOL)}, 2, CT_BOOL},
    {{S(BOOL), S(INT64)}, 2, CT_INT64},
    {{S(INT64), S(COMPLEX128)}, 2, CT_COMPLEX64},
    {{D(INT32), S(INT64)}, 2, CT_INT32},
    {{D(INT32), S(BOOL)}, 2, CT_INT32},
    {{D(INT32), S(FLOAT64)}, 2, CT_FLOAT32},
    {{D(INT32), S(COMPLEX128)}, 2, CT_COMPLEX64},
    {{D(BOOL), S(BOOL)}, 2, CT_BOOL},
    {{D(BOOL), S(INT64)}, 2, CT_INT64},
    {{D(BOOL), S(FLOAT64)}, 2, CT_FLOAT32},
    {{D(UINT8), S(INT64)}, 2, CT_UINT8},
    {{D(UINT8), Z(INT8)}, 2, CT_UINT8},
    {{D(UINT8), Z(INT64)}, 2, CT_UINT8},
    {{D(INT32), Z(INT64)}, 2, CT_INT32},
    {{D(INT32), Z(FLOAT64)}, 2, CT_FLOAT64},
    {{D(INT32), Z(COMPLEX128)}, 2, CT_COMPLEX128},
    {{D(FLOAT16), Z(FLOAT64)}, 2, CT_FLOAT16},
    {{D(FLOAT16), S(FLOAT64)}, 2, CT_FLOAT16},
    {{D(BFLOAT16), S(FLOAT64)}, 2, CT_BFLOAT16},
    {{D(FLOAT16), S(COMPLEX128)}, 2, CT_COMPLEX32},
    {{D(BFLOAT16), S(COMPLEX128)}, 2, CT_COMPLEX64},
    {{D(FLOAT16), Z(COMPLEX128)}, 2, CT_COMPLEX32},
    {{D(BFLOAT16), Z(COMPLEX128)}, 2, CT_COMPLEX64},
    {{D(FLOAT64), Z(COMPLEX64)}, 2, CT_COMPLEX128},
    {{D(FLOAT64), S(COMPLEX128)}, 2, CT_COMPLEX128},
    {{D(COMPLEX64), Z(FLOAT64)}, 2, CT_COMPLEX64},
    {{D(COMPLEX64), D(FLOAT64)}, 2, CT_COMPLEX128},
    {{D(COMPLEX64), Z(COMPLEX128)}, 2, CT_COMPLEX64},
    {{D(FLOAT16), D(BFLOAT16)}, 2, CT_FLOAT32},
    {{D(INT64), D(FLOAT16)}, 2, CT_FLOAT16},
    {{Z(INT64), Z(FLOAT32)}, 2, CT_FLOAT32},
    {{Z(INT64), S(FLOAT64)}, 2, CT_FLOAT32},
    {{Z(FLOAT64), S(FLOAT64)}, 2, CT_FLOAT64},
    {{Z(FLOAT64), D(FLOAT32)}, 2, CT_FLOAT32},
    {{Z(FLOAT64), D(INT32)}, 2, CT_FLOAT64},
    {{Z(BOOL), S(INT64)}, 2, CT_INT64},
    {{Z(BOOL), D(INT8)}, 2, CT_INT8},
    {{Z(INT8), S(INT64)}, 2, CT_INT8},
    {{Z(INT8), S(FLOAT64)}, 2, CT_FLOAT32},
    {{Z(INT8), Z(INT64)}, 2, CT_INT64},
    {{Z(INT8), Z(UINT8)}, 2, CT_INT16},
    {{D(UINT8), Z(INT8)}, 2, CT_UINT8},
    {{Z(FLOAT16), S(COMPLEX128)}, 2, CT_COMPLEX32},
    {{Z(FLOAT64), S(COMPLEX128)}, 2, CT_COMPLEX128},
    {{D(INT8), Z(COMPLEX64)}, 2, CT_COMPLEX64},
    /* the seed page's promotion examples */
    {{D(INT64), D(INT32)}, 2, CT_INT64},
    {{D(BOOL), D(INT64)}, 2, CT_INT64},
    {{D(BOOL), D(UINT8)}, 2, CT_UINT8},
    {{D(FLOAT32), D(FLOAT64)}, 2, CT_FLOAT64},
    {{D(COMPLEX64), D(COMPLEX128)}, 2, CT_COMPLEX128},
    {{D(BOOL), D(INT32)}, 2, CT_INT32},
    {{D(INT64), D(FLOAT32)}, 2, CT_FLOAT32},
    /* examples that hold only in the newest PyTorch */
    {{D(UINT16), S(INT64)}, 2, CT_UINT16},
    {{D(UINT16), S(FLOAT64)}, 2, CT_FLOAT32},
    {{D(FLOAT8_E4M3FN), S(FLOAT64)}, 2, CT_FLOAT8_E4M3FN},
    {{D(FLOAT8_E4M3FN), Z(FLOAT32)}, 2, CT_FLOAT8_E4M3FN},
    /* three operands */
    {{D(INT8), Z(INT64), S(FLOAT64)}, 3, CT_FLOAT32},
    {{D(UINT8), Z(FLOAT16), S(COMPLEX128)}, 3, CT_COMPLEX32},
    {{Z(BOOL), S(BOOL), S(INT64)}, 3, CT_INT64},
};

static void test_result_type_examples(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof rt_cases / sizeof rt_cases[0]; i++) {
        ct_dtype got;
        if (ct_result_type(rt_cases[i].ops, rt_cases[i].n, &got) != CT_OK)
            fail_msg("case %zu failed: %s", i, ct_last_error());
        if (got != rt_cases[i].want)
            fail_msg("case %zu: got %s, want %s", i, ct_dtype_name(got), ct_dtype_name(rt_cases[i].want));
    }
}

static void test_result_type_default_dtype(void **state) {
    (void)state;
    ct_operand ops1[] = {D(INT32), S(FLOAT64)};
    ct_operand ops2[] = {D(INT32), S(COMPLEX128)};
    ct_dtype got;
    const struct {
        ct_dtype def, real, cplx;
    } cases[] = {{CT_FLOAT64, CT_FLOAT64, CT_COMPLEX128},
                 {CT_FLOAT16, CT_FLOAT16, CT_COMPLEX32},
                 {CT_BFLOAT16, CT_BFLOAT16, CT_COMPLEX64}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(ct_set_default_dtype(cases[i].def), CT_OK);
        assert_int_equal(ct_result_type(ops1, 2, &got), CT_OK);
        assert_int_equal(got, cases[i].real);
        assert_int_equal(ct_result_type(ops2, 2, &got), CT_OK);
        assert_int_equal(got, cases[i].cplx);
    }
    assert_int_equal(ct_set_default_dtype(CT_FLOAT32), CT_OK);
}

static void test_result_type_errors(void **state) {
    (void)state;
    ct_dtype got;
    ct_operand u16_i32[] = {D(UINT16), D(INT32)};
    assert_status_msg(ct_result_type(u16_i32, 2, &got), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt16 and Int");
    ct_operand f8_f32[] = {D(FLOAT8_E4M3FN), D(FLOAT32)};
    assert_status_msg(ct_result_type(f8_f32, 2, &got), CT_ERR_RUNTIME,
                      "Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Float");
    ct_operand f8_c[] = {D(FLOAT8_E4M3FN), S(COMPLEX128)};
    assert_status_msg(ct_result_type(f8_c, 2, &got), CT_ERR_RUNTIME,
                      "Unknown Complex ScalarType for Float8_e4m3fn");
    assert_int_equal(got, CT_DTYPE_UNDEFINED);
    assert_status_msg(ct_result_type(NULL, 0, &got), CT_ERR_VALUE, "result_type: no operands");
    assert_int_equal(ct_result_type(NULL, 1, &got), CT_ERR_MISUSE);
    ct_operand bad_cat[] = {{CT_FLOAT32, (ct_operand_category)9}};
    assert_int_equal(ct_result_type(bad_cat, 1, &got), CT_ERR_MISUSE);
    ct_operand bad_dtype[] = {{(ct_dtype)77, CT_OPERAND_SCALAR}};
    assert_int_equal(ct_result_type(bad_dtype, 1, &got), CT_ERR_MISUSE);

    /* the incremental form leaves the state unchanged on error */
    ct_result_type_state st = CT_RESULT_TYPE_STATE_INIT;
    assert_int_equal(ct_result_type_update(&st, CT_UINT16, CT_OPERAND_DIMENSIONED), CT_OK);
    assert_int_equal(ct_result_type_update(&st, CT_INT8, CT_OPERAND_DIMENSIONED), CT_ERR_RUNTIME);
    assert_int_equal(st.dimensioned, CT_UINT16);
    assert_int_equal(ct_result_type_finish(&st, &got), CT_OK);
    assert_int_equal(got, CT_UINT16);
    assert_int_equal(ct_result_type_update(NULL, CT_INT8, CT_OPERAND_SCALAR), CT_ERR_MISUSE);
    assert_int_equal(ct_result_type_finish(NULL, &got), CT_ERR_MISUSE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promote_properties),
        cmocka_unit_test(test_promote_classic_cases),
        cmocka_unit_test(test_promote_newest_rules),
        cmocka_unit_test(test_can_cast),
        cmocka_unit_test(test_check_output_cast),
        cmocka_unit_test(test_result_type_examples),
        cmocka_unit_test(test_result_type_default_dtype),
        cmocka_unit_test(test_result_type_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
