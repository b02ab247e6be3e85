/* Global tensors on a communicator the program hands over (ct_dist_init_comm): the program
 * starts MPI itself, splits MPI_COMM_WORLD into two disjoint halves (even and odd world
 * ranks) and each half runs global operations at the same time on its own communicator.
 * Ranks, the world size and placements are those of the half; the values differ between
 * the halves, so traffic crossing between them would show. Also the errors of
 * ct_dist_init_comm. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cmocka_all.h"
#include "ctensor/dist.h"
#include "ctensor/tensor.h"

static MPI_Comm half = MPI_COMM_NULL;
static int wrank, wsize, hrank, hsize, color;

/* Every world rank agrees (collective over MPI_COMM_WORLD, never used by the library). */
static int all_ok(int ok) {
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return ok;
}

static void test_facts(void **state) {
    (void)state;
    int64_t r = -1, n = -1;
    int ok = ct_dist_rank(&r) == CT_OK && ct_dist_world_size(&n) == CT_OK;
    ok &= r == hrank && n == hsize;
    assert_true(all_ok(ok));
}

/* (rows, 3) float64 with value 1000 * color + 10 * row + col: S(0) from the half's locals,
 * then S(0) -> B, S(1) -> B, and P -> B of a partial sum. */
static void test_collectives(void **state) {
    (void)state;
    ct_placement *pl = NULL;
    int ok = ct_placement_all("cpu", &pl) == CT_OK && ct_placement_size(pl) == hsize;
    int64_t rows = 2 * hsize, shape[2] = {2, 3};
    double mine[6];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            mine[i * 3 + j] = 1000.0 * color + 10.0 * (2 * hrank + i) + j;
    ct_tensor *local = NULL;
    ok &= ct_tensor_from_data(shape, 2, CT_FLOAT64, mine, NULL, &local) == CT_OK;
    ct_sbp s0, s1, b = ct_sbp_broadcast(), p = ct_sbp_partial_sum();
    ct_sbp_split(0, &s0);
    ct_sbp_split(1, &s1);
    ct_global *x = NULL, *y = NULL, *z = NULL, *w = NULL, *q = NULL;
    ok &= ct_global_from_local(local, pl, &s0, 1, 0, &x) == CT_OK;
    ok &= ct_global_to_global(x, NULL, &b, 1, 0, &y) == CT_OK;
    ok &= ct_global_to_global(x, NULL, &s1, 1, 0, &z) == CT_OK;
    ok &= ct_global_to_global(z, NULL, &b, 1, 0, &w) == CT_OK;
    ok &= ct_global_to_global(y, NULL, &p, 1, 0, &q) == CT_OK; /* B -> P -> logical */
    ct_tensor *ty = NULL, *tw = NULL, *tq = NULL;
    ok &= y && ct_global_to_local(y, 0, &ty) == CT_OK;
    ok &= w && ct_global_to_local(w, 0, &tw) == CT_OK;
    ok &= q && ct_global_to_logical(q, &tq) == CT_OK;
    for (int64_t i = 0; ok && i < rows; i++)
        for (int j = 0; j < 3; j++) {
            double want = 1000.0 * color + 10.0 * (double)i + j;
            const double *a = ct_tensor_data_ptr(ty), *c = ct_tensor_data_ptr(tw),
                         *d = ct_tensor_data_ptr(tq);
            ok &= a[i * 3 + j] == want && c[i * 3 + j] == want && d[i * 3 + j] == want;
        }
    ct_tensor_release(ty);
    ct_tensor_release(tw);
    ct_tensor_release(tq);
    ct_global_release(x);
    ct_global_release(y);
    ct_global_release(z);
    ct_global_release(w);
    ct_global_release(q);
    ct_tensor_release(local);
    ct_placement_release(pl);
    assert_true(all_ok(ok));
}

/* Handing over a communicator again: the same one is fine, another one is refused. */
static void test_errors(void **state) {
    (void)state;
    int ok = ct_dist_init_mpi_comm(half) == CT_OK; /* the same communicator again */
    ok &= ct_dist_init_comm(NULL) == CT_ERR_MISUSE;
    ok &= ct_dist_init_mpi_comm(MPI_COMM_NULL) == CT_ERR_VALUE;
    if (wsize > 1) {
        ok &= ct_dist_init_mpi_comm(MPI_COMM_WORLD) == CT_ERR_RUNTIME;
        ok &= strstr(ct_last_error(), "already runs on another communicator") != NULL;
    }
    assert_true(all_ok(ok));
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    color = wrank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    if (ct_dist_init_mpi_comm(half) != CT_OK) {
        fprintf(stderr, "ct_dist_init_mpi_comm: %s\n", ct_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The program may free its handle: the library keeps a duplicate. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_errors),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ct_dist_finalize(); /* does not finalize MPI: the program started it */
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
        failures++;
    MPI_Comm_free(&half);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
