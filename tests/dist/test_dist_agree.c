/* An error on one rank is an error on every rank (global.h): the last rank fails its own
 * checks (ct_global_fail, or a C function's argument checks) while the others call the
 * operation correctly; every rank must return an error, the failing rank its own message and
 * the others "global operation <op> failed on rank <r>: <Kind>: <message>", and nobody may be
 * left in a collective (a correct operation afterwards must work on every rank). Ranks that
 * run different operations must meet in the agreement and fail with "arguments differ". */
#define _POSIX_C_SOURCE 200809L
#include "dist_test_util.h"

#include <stdio.h>
#include <string.h>

#include "ctensor/global.h"

static int W, R;
static ct_placement *all;
static ct_global *x; /* (W * 2, 3) float32 ones, S(0) on every rank */

static ct_sbp S0(void) {
    ct_sbp s;
    ct_sbp_split(0, &s);
    return s;
}

static bool is_last(void) { return R == W - 1; }

/* The message the other ranks get when the last rank failed with `kind: msg`. */
static void others_message(char *buf, size_t n, const char *op, const char *kind, const char *msg) {
    snprintf(buf, n, "global operation %s failed on rank %d: %s: %s", op, W - 1, kind, msg);
}

static bool starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Every rank still works together: the logical value of x, on every rank. */
static void assert_still_in_step(void) {
    ct_tensor *t = NULL;
    CT_ASSERT_ALL(ct_global_to_logical(x, &t) == CT_OK);
    CT_ASSERT_ALL(t != NULL && ct_tensor_numel(t) == (int64_t)W * 2 * 3);
    ct_tensor_release(t);
}

static void setup(void) {
    int64_t *ranks = test_malloc(sizeof(int64_t) * (size_t)W);
    for (int i = 0; i < W; i++)
        ranks[i] = i;
    int64_t grid[1] = {W};
    assert_int_equal(ct_placement_new("cpu", ranks, grid, 1, &all), CT_OK);
    test_free(ranks);
    ct_sbp s[1] = {S0()};
    CT_ASSERT_ALL(ct_global_ones((const int64_t[]){(int64_t)W * 2, 3}, 2, CT_FLOAT32, all, s, 1,
                                 &x) == CT_OK);
}

static void teardown(void) {
    ct_global_release(x);
    ct_placement_release(all);
}

/* A binding's own check failed on the last rank; the others are in ct_global_div. */
static void test_fail_entry(void **state) {
    (void)state;
    setup();
    ct_global *out = NULL;
    ct_status st;
    char want[512];
    if (is_last()) {
        ct_set_error(CT_ERR_VALUE, "bad rounding mode 'bogus'");
        st = ct_global_fail("div", CT_ERR_VALUE);
        snprintf(want, sizeof want, "bad rounding mode 'bogus'");
    } else {
        st = ct_global_div(x, x, CT_ROUNDING_FLOOR, &out);
        others_message(want, sizeof want, "div", "ValueError", "bad rounding mode 'bogus'");
    }
    CT_ASSERT_ALL(st == CT_ERR_VALUE);
    CT_ASSERT_ALL(strcmp(ct_last_error(), want) == 0);
    CT_ASSERT_ALL(out == NULL);
    /* CT_OK is not a failure: misuse, still shared with the others */
    if (is_last()) {
        st = ct_global_fail("add", CT_OK);
    } else {
        st = ct_global_add(x, x, ct_scalar_int(1), &out);
    }
    CT_ASSERT_ALL(st == CT_ERR_MISUSE);
    CT_ASSERT_ALL(out == NULL);
    assert_still_in_step();
    teardown();
}

/* The C functions' own argument checks go through the agreement too. */
static void test_c_checks(void **state) {
    (void)state;
    setup();
    ct_global *out = NULL;
    ct_sbp two[2] = {ct_sbp_broadcast(), ct_sbp_broadcast()};
    const char *sbp_msg = "The number of sbp (2) must match the number of placement hierarchy "
                          "dims (1)";
    char want[512];
    /* to_global with an sbp list of the wrong length on the last rank only */
    ct_status st = ct_global_to_global(x, NULL, two, is_last() ? 2 : 1, 0, &out);
    if (is_last())
        snprintf(want, sizeof want, "%s", sbp_msg);
    else
        others_message(want, sizeof want, "to_global", "ValueError", sbp_msg);
    CT_ASSERT_ALL(st == CT_ERR_VALUE);
    CT_ASSERT_ALL(strcmp(ct_last_error(), want) == 0);
    CT_ASSERT_ALL(out == NULL);
    assert_still_in_step();

    /* a factory with no placement on the last rank */
    ct_sbp s[1] = {S0()};
    st = ct_global_zeros((const int64_t[]){4, 2}, 2, CT_FLOAT32, is_last() ? NULL : all, s, 1,
                         &out);
    CT_ASSERT_ALL(st == CT_ERR_MISUSE);
    CT_ASSERT_ALL(is_last() ? strcmp(ct_last_error(), "ct_global_zeros: NULL argument") == 0
                            : starts_with(ct_last_error(), "global operation zeros failed on rank"));
    CT_ASSERT_ALL(out == NULL);
    assert_still_in_step();

    /* from_local with a NULL out on the last rank */
    ct_tensor *local = NULL;
    assert_int_equal(ct_tensor_ones((const int64_t[]){2, 3}, 2, CT_FLOAT32, NULL,
                                    CT_LAYOUT_STRIDED, &local),
                     CT_OK);
    st = ct_global_from_local(local, all, s, 1, CT_GLOBAL_CHECK_META, is_last() ? NULL : &out);
    CT_ASSERT_ALL(st == CT_ERR_MISUSE);
    CT_ASSERT_ALL(out == NULL);
    ct_tensor_release(local);

    /* a global factory's bad dtype */
    st = ct_global_ones((const int64_t[]){4}, 1, is_last() ? (ct_dtype)9999 : CT_FLOAT32, all, s,
                        1, &out);
    CT_ASSERT_ALL(st != CT_OK);
    CT_ASSERT_ALL(out == NULL);

    /* to_logical of a NULL tensor on the last rank */
    ct_tensor *t = NULL;
    st = ct_global_to_logical(is_last() ? NULL : x, &t);
    CT_ASSERT_ALL(st == CT_ERR_MISUSE);
    CT_ASSERT_ALL(t == NULL);
    CT_ASSERT_ALL(!is_last() || strcmp(ct_last_error(), "ct_global_to_logical: global is NULL") == 0);
    /* the named form names itself */
    st = ct_global_to_logical_named(is_last() ? NULL : x, "numpy", &t);
    CT_ASSERT_ALL(st == CT_ERR_MISUSE && t == NULL);
    CT_ASSERT_ALL(!is_last() ||
                  strcmp(ct_last_error(), "ct_global_to_logical_named: global is NULL") == 0);
    assert_still_in_step();
    teardown();
}

/* Different operations on different ranks meet in the agreement. */
static void test_different_ops(void **state) {
    (void)state;
    setup();
    if (W < 2) {
        teardown();
        return; /* one rank cannot disagree with itself */
    }
    const char *differ = "global operation arguments differ across ranks: ";
    ct_global *out = NULL;
    ct_tensor *t = NULL;
    ct_sbp b[1] = {ct_sbp_broadcast()};
    ct_status st;
    /* add on rank 0, to_global(B) elsewhere */
    st = R == 0 ? ct_global_add(x, x, ct_scalar_int(1), &out) : ct_global_to_global(x, NULL, b, 1, 0, &out);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && starts_with(ct_last_error(), differ));
    CT_ASSERT_ALL(out == NULL);
    /* reading the value for different purposes */
    st = ct_global_to_logical_named(x, R == 0 ? "tolist" : "numpy", &t);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && starts_with(ct_last_error(), differ));
    CT_ASSERT_ALL(t == NULL);
    /* to_logical against boxing to broadcast (the same data movement) */
    st = R == 0 ? ct_global_to_logical(x, &t) : ct_global_to_global(x, NULL, b, 1, 0, &out);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && starts_with(ct_last_error(), differ));
    CT_ASSERT_ALL(t == NULL && out == NULL);
    /* a factory against arithmetic */
    ct_sbp s[1] = {S0()};
    st = R == 0 ? ct_global_zeros((const int64_t[]){4}, 1, CT_FLOAT32, all, s, 1, &out)
                : ct_global_mul(x, x, &out);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && starts_with(ct_last_error(), differ));
    CT_ASSERT_ALL(out == NULL);
    assert_still_in_step();
    teardown();
}

/* ct_global_begin: ranks that would take different numbers of steps fail together. */
static void test_begin_steps(void **state) {
    (void)state;
    setup();
    CT_ASSERT_ALL(ct_global_begin("to_global", 2) == CT_OK);
    if (W >= 2) {
        ct_status st = ct_global_begin("to_global", R == 0 ? 2 : 3);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME &&
                      starts_with(ct_last_error(), "global operation arguments differ across "
                                                   "ranks: rank 0 called to_global(2 steps)"));
        /* a begin against a real operation */
        ct_global *out = NULL;
        st = R == 0 ? ct_global_begin("to_global", 1) : ct_global_mul(x, x, &out);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && out == NULL);
    }
    /* a negative count on the last rank is its own error, and every rank's */
    ct_status st = ct_global_begin("to_global", is_last() ? -1 : 1);
    CT_ASSERT_ALL(st == CT_ERR_VALUE);
    /* a collective check: every rank takes part, the last one checks its message */
    CT_ASSERT_ALL(!is_last() || starts_with(ct_last_error(), "ct_global_begin: steps must be"));
    assert_still_in_step();
    teardown();
}

int main(void) {
    ct_test_start();
    W = ct_test_world();
    R = ct_test_rank();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_entry),
        cmocka_unit_test(test_c_checks),
        cmocka_unit_test(test_different_ops),
        cmocka_unit_test(test_begin_steps),
    };
    return ct_test_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
