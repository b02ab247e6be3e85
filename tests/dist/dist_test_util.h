/* Helpers for the C tests of global tensors, which run on every rank under mpirun.
 *
 * A failed assertion on one rank would leave the others waiting in a collective, so checks
 * whose outcome can differ between ranks go through CT_ASSERT_ALL: the verdict is combined
 * over the world first and every rank fails together (the rank numbers that failed are
 * printed by rank 0). tests/dist/CMakeLists.txt wraps each launch in `timeout` as well. */
#ifndef CT_TESTS_DIST_TEST_UTIL_H
#define CT_TESTS_DIST_TEST_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/dist.h"
#include "ctensor/print.h"

/* ct_placement_format's text copied into a test's fixed buffer (cut to fit), so expected
 * messages can be built with snprintf; a formatting failure fails the test. */
static inline void ct_test_placement_text(const ct_placement *p, const char *module, char *buf,
                                          size_t size) {
    char *s = NULL;
    assert_int_equal(ct_placement_format(p, module, &s), CT_OK);
    snprintf(buf, size, "%s", s);
    ct_string_free(s);
}

static inline int ct_test_rank(void) {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static inline int ct_test_world(void) {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* true on every rank iff `ok` is true on every rank; rank 0 reports which ranks failed. */
static inline int ct_test_all(int ok, const char *expr, const char *file, int line) {
    int n = ct_test_world(), r = ct_test_rank();
    int flags[256] = {0};
    int mine = ok ? 1 : 0;
    if (n > 256)
        n = 256;
    MPI_Gather(&mine, 1, MPI_INT, flags, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int all = mine;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all && r == 0) {
        fprintf(stderr, "%s:%d: check failed on rank(s)", file, line);
        for (int i = 0; i < n; i++)
            if (!flags[i])
                fprintf(stderr, " %d", i);
        fprintf(stderr, ": %s\n", expr);
    }
    return all;
}

/* Assert `cond` on every rank at once (collective). */
#define CT_ASSERT_ALL(cond) assert_true(ct_test_all((cond) ? 1 : 0, #cond, __FILE__, __LINE__))

/* Start MPI through the library; end with ct_test_finish() (returns main's exit status). */
static inline void ct_test_start(void) {
    if (ct_dist_init() != CT_OK) {
        fprintf(stderr, "ct_dist_init: %s\n", ct_last_error());
        exit(1);
    }
}

static inline int ct_test_finish(int failures) {
    int all = failures;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ct_dist_finalize();
    return all == 0 ? 0 : 1;
}

#endif /* CT_TESTS_DIST_TEST_UTIL_H */
