/* S(d) -> B boxing with d > 0 on 1..4 ranks, through both of its paths: the shared-memory
 * window of ranks on one node (shm.c, the default here) and the MPI-datatype path that runs
 * across nodes (CTENSOR_BOXING_SHM=0, set on every rank alike). Every dtype (so every item
 * size, 1 to 16 bytes), uneven splits, ranks holding nothing, 3-D tensors, placements over
 * some of the ranks, windows that grow, and back-to-back conversions with no other
 * collective between them (the slots alternate; shm.c).
 *
 * The logical tensor is a byte pattern (0/1 for bool): each rank builds its S(d) block, and
 * after the conversion every member's component must equal the whole pattern byte for
 * byte. Failures are counted per rank and combined with CT_ASSERT_ALL. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"
#include "dist_test_util.h"

static int g_rank, g_world;
static long g_cases;

#define MUST(call)                                                                                 \
    do {                                                                                           \
        ct_status must_st_ = (call);                                                               \
        if (must_st_ != CT_OK) {                                                                   \
            fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", g_rank, __FILE__, __LINE__, #call,  \
                    ct_last_error());                                                              \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

static ct_placement *pl_range(int64_t lo, int64_t hi) {
    int64_t r[64], n = hi - lo;
    for (int64_t i = lo; i < hi; i++)
        r[i - lo] = i;
    ct_placement *p = NULL;
    MUST(ct_placement_new("cpu", r, &n, 1, &p));
    return p;
}

static unsigned char pattern(ct_dtype dt, uint64_t seed, int64_t byte) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + (uint64_t)byte * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return dt == CT_BOOL ? (unsigned char)(x & 1) : (unsigned char)x;
}

static void part(int64_t total, int64_t n, int64_t i, int64_t *begin, int64_t *len) {
    int64_t base = total / n, rem = total % n;
    *len = base + (i < rem ? 1 : 0);
    *begin = i < rem ? (base + 1) * i : (base + 1) * rem + base * (i - rem);
}

/* The S(dim) input of the pattern on `pl` (members build their block, others nothing). */
static ct_global *make_input(ct_dtype dt, const int64_t *sizes, int64_t nd, int dim,
                             const ct_placement *pl, uint64_t seed) {
    int64_t pid = ct_placement_parallel_id(pl, g_rank);
    ct_sbp s;
    MUST(ct_sbp_split(dim, &s));
    ct_tensor *local = NULL;
    if (pid < 0) {
        MUST(ct_dist_impl_global_empty_local(dt, nd, &local));
    } else {
        int64_t b, l, lsizes[4];
        part(sizes[dim], ct_placement_size(pl), pid, &b, &l);
        memcpy(lsizes, sizes, sizeof(int64_t) * (size_t)nd);
        lsizes[dim] = l;
        MUST(
            ct_tensor_empty(lsizes, nd, dt, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &local));
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < dim; d++)
            outer *= sizes[d];
        for (int64_t d = dim + 1; d < nd; d++)
            inner *= sizes[d];
        int64_t isz = (int64_t)ct_dtype_itemsize(dt), row = inner * isz;
        unsigned char *p = ct_tensor_data_ptr(local);
        for (int64_t o = 0; o < outer; o++)
            for (int64_t k = 0; k < l * row; k++)
                *p++ = pattern(dt, seed, (o * sizes[dim] + b) * row + k);
    }
    ct_global *g = NULL;
    MUST(ct_dist_impl_global_make(dt, sizes, nd, pl, &s, local, &g));
    return g;
}

/* Convert to B and check every byte; returns 1 on a failure of this rank. */
static int check_one(ct_dtype dt, const int64_t *sizes, int64_t nd, int dim, const ct_placement *pl,
                     uint64_t seed) {
    g_cases++;
    ct_global *x = make_input(dt, sizes, nd, dim, pl, seed), *y = NULL;
    ct_sbp b = ct_sbp_broadcast();
    ct_status st = ct_dist_impl_boxing(x, pl, &b, &y);
    int bad = 0;
    char why[160] = "";
    if (st != CT_OK) {
        snprintf(why, sizeof why, "%s", ct_last_error());
        bad = 1;
    } else if (ct_placement_parallel_id(pl, g_rank) >= 0) {
        const ct_tensor *t = ct_global_local(y);
        int64_t numel = 1;
        for (int64_t d = 0; d < nd; d++)
            numel *= sizes[d];
        int64_t bytes = numel * (int64_t)ct_dtype_itemsize(dt);
        const unsigned char *p = ct_tensor_data_ptr(t);
        if (ct_tensor_numel(t) != numel || !ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS)) {
            snprintf(why, sizeof why, "wrong local shape");
            bad = 1;
        }
        for (int64_t k = 0; !bad && k < bytes; k++)
            if (p[k] != pattern(dt, seed, k)) {
                snprintf(why, sizeof why, "byte %lld is %d, expected %d", (long long)k, p[k],
                         pattern(dt, seed, k));
                bad = 1;
            }
    }
    if (bad) {
        char shape[96] = "";
        for (int64_t d = 0; d < nd; d++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", d ? ", " : "",
                     (long long)sizes[d]);
        fprintf(stderr, "rank %d: FAIL %s S(%d) -> B of (%s) on %lld ranks (%s): %s\n", g_rank,
                ct_dtype_name(dt), dim, shape, (long long)ct_placement_size(pl),
                ct_dist_impl_shm_enabled() ? "shm" : "mpi", why);
    }
    ct_global_release(x);
    ct_global_release(y);
    return bad;
}

typedef struct shape {
    int64_t nd, sizes[3];
    int dim;
} shape;

/* Uneven splits (7, 5 and 9 over 2..4), fewer columns than ranks (3 and 1: some hold
 * nothing), a split middle dim and a split last dim of 3-D tensors. */
static const shape k_shapes[] = {
    {2, {5, 7, 0}, 1}, {2, {4, 3, 0}, 1}, {2, {6, 1, 0}, 1},
    {3, {3, 9, 2}, 1}, {3, {2, 3, 5}, 2}, {3, {4, 2, 1}, 1},
};

static int run_all(const ct_placement *pl, uint64_t *seed) {
    int fails = 0;
    for (int dt = 0; dt < CT_NUM_DTYPES; dt++)
        for (size_t s = 0; s < sizeof k_shapes / sizeof k_shapes[0]; s++)
            fails += check_one((ct_dtype)dt, k_shapes[s].sizes, k_shapes[s].nd, k_shapes[s].dim, pl,
                               ++*seed);
    return fails;
}

/* Both paths, on every rank and on placements of some ranks (their own communicators and
 * windows; the others only build metadata). */
static void test_every_dtype_both_paths(void **state) {
    (void)state;
    int fails = 0;
    uint64_t seed = 1;
    for (int path = 0; path < 2; path++) {
        setenv("CTENSOR_BOXING_SHM", path == 0 ? "1" : "0", 1);
        ct_placement *pls[3] = {pl_range(0, g_world), g_world > 2 ? pl_range(1, g_world) : NULL,
                                g_world > 1 ? pl_range(0, 1) : NULL};
        for (int i = 0; i < 3; i++) {
            if (pls[i] == NULL)
                continue;
            fails += run_all(pls[i], &seed);
            ct_placement_release(pls[i]);
        }
    }
    unsetenv("CTENSOR_BOXING_SHM");
    CT_ASSERT_ALL(fails == 0);
}

/* Growing windows (sizes up, down and up again) and conversions back to back, each
 * overwriting a slot the other ranks may still read without the alternation. */
static void test_grow_and_back_to_back(void **state) {
    (void)state;
    int fails = 0;
    uint64_t seed = 5000;
    ct_placement *pl = pl_range(0, g_world);
    static const int64_t cols[] = {4, 64, 1000, 16, 4096, 9, 20000};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        int64_t sizes[2] = {37, cols[i]};
        fails += check_one(CT_FLOAT32, sizes, 2, 1, pl, ++seed);
        fails += check_one(CT_INT8, sizes, 2, 1, pl, ++seed);
    }
    for (int i = 0; i < 40; i++) {
        int64_t sizes[3] = {8 + i % 3, 64, 3};
        fails += check_one(i % 2 ? CT_FLOAT64 : CT_INT16, sizes, 3, 1, pl, ++seed);
    }
    ct_placement_release(pl);
    CT_ASSERT_ALL(fails == 0);
}

int main(void) {
    ct_test_start();
    g_rank = ct_test_rank();
    g_world = ct_test_world();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_both_paths),
        cmocka_unit_test(test_grow_and_back_to_back),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    if (g_rank == 0)
        printf("test_dist_boxing_shm: %ld conversions checked on %d rank(s)\n", g_cases, g_world);
    return ct_test_finish(failures);
}
