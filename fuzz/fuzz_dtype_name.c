/* Fuzz target: dtype names and aliases, promotion and result types on any enum value.
 * Input: 8 control bytes (dtype values, categories), then a name (NUL-terminated copy).
 * Checks: a found name maps back to a dtype whose name or alias it is; the dtype functions
 * are total on invalid values; promotion is symmetric; the default dtype is restored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/ctensor.h"
#include "fuzz_common.h"

/* Any int, mostly near the valid range, sometimes far out of it. */
static ct_dtype any_dtype(fz_reader *r) {
    uint8_t b = fz_u8(r);
    if (b >= 0xF0)
        return (ct_dtype)(int32_t)((b & 1) ? INT32_MIN + (b & 6) : INT32_MAX - (b & 6));
    return (ct_dtype)((int)(b % (CT_NUM_DTYPES + 4)) - 2);
}

static void touch(ct_dtype d) {
    const char *n = ct_dtype_name(d), *c = ct_dtype_cpp_name(d), *a = ct_dtype_abbr(d);
    const char *al = ct_dtype_alias(d);
    bool valid = ct_dtype_is_valid(d);
    if (valid != (n != NULL) || valid != (c != NULL) || valid != (a != NULL))
        abort();
    if (n && strlen(n) + strlen(c) + strlen(a) == 0)
        abort();
    ct_dtype back;
    if (n && (ct_dtype_from_name(n, &back) != CT_OK || back != d))
        abort();
    if (al && (ct_dtype_from_name(al, &back) != CT_OK || back != d))
        abort();
    (void)ct_dtype_itemsize(d);
    (void)ct_dtype_kind_of(d);
    (void)ct_dtype_is_floating_point(d);
    (void)ct_dtype_is_complex(d);
    (void)ct_dtype_is_signed(d);
    (void)ct_dtype_is_integral(d, true);
    (void)ct_dtype_is_float8(d);
    (void)ct_dtype_is_reduced_floating(d);
    (void)ct_dtype_is_barebones_unsigned(d);
    (void)ct_dtype_is_shell(d);
    (void)ct_dtype_dlpack_code(d);
    (void)ct_dtype_dlpack_bits(d);
    (void)ct_dtype_to_real(d);
    ct_dtype c2;
    (void)ct_dtype_to_complex(d, &c2);
    ct_finfo fi;
    (void)ct_finfo_of(d, &fi);
    ct_iinfo ii;
    (void)ct_iinfo_of(d, &ii);
    ct_dl_data_type dl;
    if (ct_dtype_to_dlpack(d, &dl) == CT_OK) {
        if (ct_dtype_from_dlpack(dl, &back) != CT_OK || back != d)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    ct_dtype a = any_dtype(&r), b = any_dtype(&r);
    ct_operand ops[3];
    for (int i = 0; i < 3; i++) {
        ops[i].dtype = any_dtype(&r);
        uint8_t c = fz_u8(&r);
        ops[i].category = (ct_operand_category)(c < 250 ? c % 3 : (int)c - 256);
    }
    uint8_t ctl = fz_u8(&r);

    char *s = fz_rest_cstr(&r);
    if (!s)
        return 0;
    ct_dtype named;
    if (ct_dtype_from_name(s, &named) == CT_OK) {
        if (!ct_dtype_is_valid(named))
            abort();
        const char *al = ct_dtype_alias(named);
        if (strcmp(s, ct_dtype_name(named)) != 0 && (!al || strcmp(s, al) != 0)) {
            fprintf(stderr, "'%s' found as %s\n", s, ct_dtype_name(named));
            abort();
        }
    }
    free(s);

    touch(a);
    touch(b);
    ct_dtype p1, p2;
    ct_status s1 = ct_promote_types(a, b, &p1), s2 = ct_promote_types(b, a, &p2);
    if (s1 != s2 || (s1 == CT_OK && (p1 != p2 || !ct_dtype_is_valid(p1))))
        abort();
    if (s1 != CT_OK && p1 != CT_DTYPE_UNDEFINED)
        abort();
    (void)ct_can_cast(a, b);
    (void)ct_check_output_cast(a, b);

    /* The default dtype takes part in result_type for float scalars: vary it, restore it. */
    ct_dtype saved = ct_get_default_dtype();
    if (ctl & 1)
        (void)ct_set_default_dtype(a);
    ct_dtype rt;
    if (ct_result_type(ops, (size_t)(ctl >> 1) % 4, &rt) == CT_OK && !ct_dtype_is_valid(rt))
        abort();
    ct_result_type_state st = CT_RESULT_TYPE_STATE_INIT;
    for (int i = 0; i < 3; i++)
        (void)ct_result_type_update(&st, ops[i].dtype, ops[i].category);
    (void)ct_result_type_finish(&st, &rt);
    (void)ct_get_default_complex_dtype();
    if (ct_set_default_dtype(saved) != CT_OK)
        abort();
    return 0;
}
