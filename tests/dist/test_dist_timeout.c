/* The deadline of cross-rank waits (dist.h): rank 0 enters a global operation the other
 * ranks skip (code branched on the rank); with a short timeout it must get the "Timeout"
 * error naming the operation, within about the deadline, instead of hanging; afterwards
 * every global operation fails at once on that rank, and every rank still ends cleanly
 * (ct_dist_finalize, exit 0). The settings (ct_dist_set_timeout, the environment variables)
 * are checked first, without MPI traffic. Run on 2 ranks (tests/dist/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include "dist_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/global.h"

static double timeout_now(void) {
    double t = -1;
    assert_int_equal(ct_dist_get_timeout(&t), CT_OK);
    return t;
}

static void test_settings(void **state) {
    (void)state;
    unsetenv("CTENSOR_TIMEOUT_SECONDS");
    unsetenv("ONEFLOW_TIMEOUT_SECONDS");
    assert_int_equal(ct_dist_set_timeout(0), CT_OK);
    assert_true(timeout_now() == 300.0); /* OneFlow's default */
    setenv("ONEFLOW_TIMEOUT_SECONDS", "12", 1);
    assert_true(timeout_now() == 12.0);
    setenv("CTENSOR_TIMEOUT_SECONDS", "7.5", 1); /* ours first */
    assert_true(timeout_now() == 7.5);
    setenv("CTENSOR_TIMEOUT_SECONDS", "soon", 1); /* not a number: the next one */
    assert_true(timeout_now() == 12.0);
    assert_int_equal(ct_dist_set_timeout(2.5), CT_OK); /* the call beats the environment */
    assert_true(timeout_now() == 2.5);
    assert_int_equal(ct_dist_set_timeout(-1), CT_ERR_VALUE);
    assert_non_null(strstr(ct_last_error(), "got -1"));
    assert_int_equal(ct_dist_set_timeout(NAN), CT_ERR_VALUE);
    assert_true(timeout_now() == 2.5);
    assert_int_equal(ct_dist_set_timeout(INFINITY), CT_OK);
    assert_true(isinf(timeout_now()));
    assert_int_equal(ct_dist_get_timeout(NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_dist_set_timeout(0), CT_OK);
    unsetenv("CTENSOR_TIMEOUT_SECONDS");
    unsetenv("ONEFLOW_TIMEOUT_SECONDS");
}

static void test_branch_times_out(void **state) {
    (void)state;
    if (ct_test_world() < 2)
        skip(); /* nobody to wait for */
    int rank = ct_test_rank();
    ct_placement *all = NULL;
    CT_ASSERT_ALL(ct_placement_all("cpu", &all) == CT_OK);
    ct_sbp s0, b;
    ct_sbp_split(0, &s0);
    b = ct_sbp_broadcast();
    ct_global *x = NULL;
    CT_ASSERT_ALL(ct_global_ones((const int64_t[]){4, 3}, 2, CT_FLOAT32, all, &s0, 1, &x) ==
                  CT_OK);
    /* Every rank is in step so far; now only rank 0 converts. */
    setenv("ONEFLOW_TIMEOUT_SECONDS", "1", 1); /* as OneFlow's own test sets it */
    int ok = 1;
    if (rank == 0) {
        ct_global *y = NULL;
        double t0 = MPI_Wtime();
        ct_status st = ct_global_to_global(x, NULL, &b, 1, 0, &y);
        double waited = MPI_Wtime() - t0;
        const char *msg = ct_last_error();
        ok &= st == CT_ERR_RUNTIME && y == NULL;
        ok &= strstr(msg, "Timeout: global operation to_global waited 1 s") != NULL;
        ok &= strstr(msg, "Maybe executing different code in different ranks, please check if "
                          "the code is branched and operates on the global tensor") != NULL;
        ok &= waited >= 0.9 && waited < 20;
        if (!ok)
            fprintf(stderr, "rank 0: status %d after %.2f s: %s\n", (int)st, waited, msg);
        /* From now on every global operation fails at once, naming the first timeout. */
        ct_tensor *t = NULL;
        t0 = MPI_Wtime();
        st = ct_global_to_logical(x, &t);
        ok &= st == CT_ERR_RUNTIME && t == NULL && MPI_Wtime() - t0 < 0.5;
        ok &= strstr(ct_last_error(), "cannot be used after the timeout of global operation "
                                      "to_global") != NULL;
        ok &= ct_global_fail("other", CT_ERR_VALUE) == CT_ERR_VALUE;
        /* The facts of the process still read. */
        int64_t r = -1;
        ok &= ct_dist_rank(&r) == CT_OK && r == 0;
    }
    unsetenv("ONEFLOW_TIMEOUT_SECONDS");
    /* The verdict travels on MPI_COMM_WORLD, which the library never used. */
    CT_ASSERT_ALL(ok);
    ct_global_release(x);
    ct_placement_release(all);
}

int main(void) {
    ct_test_start();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_branch_times_out),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    return ct_test_finish(failures);
}
