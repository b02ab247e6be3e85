/* Large same-node S(d) -> B results in one copy-on-write shared file (shm_cow.c, Note
 * [Copy-on-write broadcast results]), on 1..4 ranks: the bytes, that each rank's output
 * stays private (writes on one rank never show on another), and the lifetime (outputs and
 * views outliving each other, their inputs and the other ranks' outputs; no descriptor or
 * mapping left behind). On 1 rank no file is made: the checks then cover the plain path.
 * The file is opt-in (CTENSOR_BOXING_COW=1, set here on every rank).
 *
 * The logical tensor is a byte pattern; each rank builds its S(d) block. Verdicts that can
 * differ between ranks go through CT_ASSERT_ALL. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"
#include "dist_test_util.h"

static int g_rank, g_world;

#define MUST(call)                                                                                 \
    do {                                                                                           \
        ct_status must_st_ = (call);                                                               \
        if (must_st_ != CT_OK) {                                                                   \
            fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", g_rank, __FILE__, __LINE__, #call,  \
                    ct_last_error());                                                              \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

static unsigned char pattern(uint64_t seed, int64_t byte) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + (uint64_t)byte * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return (unsigned char)x;
}

static void part(int64_t total, int64_t n, int64_t i, int64_t *begin, int64_t *len) {
    int64_t base = total / n, rem = total % n;
    *len = base + (i < rem ? 1 : 0);
    *begin = i < rem ? (base + 1) * i : (base + 1) * rem + base * (i - rem);
}

static int64_t numel_of(const int64_t *sizes, int64_t nd) {
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++)
        n *= sizes[d];
    return n;
}

/* The S(dim) pattern on all ranks, converted to B: the B global (the input is released). */
static ct_global *to_b(ct_dtype dt, const int64_t *sizes, int64_t nd, int dim, uint64_t seed) {
    int64_t all[64], n = g_world;
    for (int64_t i = 0; i < n; i++)
        all[i] = i;
    ct_placement *pl = NULL;
    MUST(ct_placement_new("cpu", all, &n, 1, &pl));
    ct_sbp s;
    MUST(ct_sbp_split(dim, &s));
    int64_t b, l, lsizes[4];
    part(sizes[dim], n, g_rank, &b, &l);
    memcpy(lsizes, sizes, sizeof(int64_t) * (size_t)nd);
    lsizes[dim] = l;
    ct_tensor *local = NULL;
    MUST(ct_tensor_empty(lsizes, nd, dt, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &local));
    int64_t outer = numel_of(sizes, dim), inner = numel_of(sizes + dim + 1, nd - dim - 1);
    int64_t row = inner * (int64_t)ct_dtype_itemsize(dt);
    unsigned char *p = ct_tensor_data_ptr(local);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < l * row; k++)
            *p++ = pattern(seed, (o * sizes[dim] + b) * row + k);
    ct_global *x = NULL, *y = NULL;
    MUST(ct_dist_impl_global_make(dt, sizes, nd, pl, &s, local, &x));
    ct_sbp bc = ct_sbp_broadcast();
    MUST(ct_dist_impl_boxing(x, pl, &bc, &y));
    ct_global_release(x);
    ct_placement_release(pl);
    return y;
}

/* Whether the `n` bytes at `p` are the pattern's bytes from `from` on. */
static int matches(const unsigned char *p, uint64_t seed, int64_t from, int64_t n) {
    for (int64_t k = 0; k < n; k++)
        if (p[k] != pattern(seed, from + k))
            return 0;
    return 1;
}

/* Lines of /proc/self/maps naming the boxing file; -1 when unreadable. */
static int cow_mappings(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) != NULL)
        n += strstr(line, "ctensor-boxing") != NULL;
    fclose(f);
    return n;
}

static int open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

typedef struct shape {
    ct_dtype dt;
    int64_t nd, sizes[3];
    int dim;
} shape;

/* All above the copy-on-write threshold (4 MiB): even and uneven splits, a middle dim. */
static const shape k_shapes[] = {
    {CT_FLOAT32, 2, {1024, 1024, 0}, 1},
    {CT_UINT8, 2, {4099, 1031, 0}, 1},
    {CT_FLOAT64, 3, {3, 701, 263}, 1},
    {CT_INT16, 3, {5, 3, 300007}, 2},
};

/* Every byte, through the file and (CTENSOR_BOXING_COW=0) through the window path, whose
 * copies at these sizes use streaming stores (Note [Streamed window copies]). */
static void test_bytes(void **state) {
    (void)state;
    int bad = 0;
    for (int path = 0; path < 2; path++) {
        setenv("CTENSOR_BOXING_COW", path == 0 ? "1" : "0", 1);
        for (size_t i = 0; i < sizeof k_shapes / sizeof k_shapes[0]; i++) {
            const shape *s = &k_shapes[i];
            uint64_t seed = 100 + i + 10 * (uint64_t)path;
            ct_global *y = to_b(s->dt, s->sizes, s->nd, s->dim, seed);
            const ct_tensor *t = ct_global_local(y);
            int64_t bytes = numel_of(s->sizes, s->nd) * (int64_t)ct_dtype_itemsize(s->dt);
            if (ct_tensor_numel(t) * (int64_t)ct_dtype_itemsize(s->dt) != bytes ||
                !matches(ct_tensor_data_ptr(t), seed, 0, bytes)) {
                fprintf(stderr, "rank %d: shape %zu path %d: wrong bytes\n", g_rank, i, path);
                bad++;
            }
            /* The file is mapped once (the private output) while the output lives. */
            int want = path == 0 && g_world > 1 ? 1 : 0;
            if (cow_mappings() != want) {
                fprintf(stderr, "rank %d: %d mappings, expected %d\n", g_rank, cow_mappings(),
                        want);
                bad++;
            }
            ct_global_release(y);
        }
    }
    setenv("CTENSOR_BOXING_COW", "1", 1);
    CT_ASSERT_ALL(bad == 0);
}

/* In-place writes on one rank (through the data pointer and through an op on a view) leave
 * every other rank's output as it was. */
static void test_private(void **state) {
    (void)state;
    int64_t sizes[2] = {2048, 768};
    int64_t bytes = 2048 * 768 * 4;
    ct_global *y = to_b(CT_FLOAT32, sizes, 2, 1, 7);
    ct_tensor *t = (ct_tensor *)ct_global_local(y);
    unsigned char *p = ct_tensor_data_ptr(t);
    /* Rank r overwrites its own eighth of the bytes, and zeroes 10 rows of its own. */
    int64_t stripe = bytes / 8, at = (g_rank % 8) * stripe;
    memset(p + at, 0xA0 + g_rank, (size_t)stripe);
    ct_tensor *rows = NULL;
    MUST(ct_tensor_narrow(t, 0, 1000 + 100 * g_rank, 10, &rows));
    MUST(ct_tensor_zero_(rows));
    ct_tensor_release(rows);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has written */
    int64_t z0 = (1000 + 100 * (int64_t)g_rank) * 768 * 4, z1 = z0 + 10 * 768 * 4;
    int bad = 0;
    for (int64_t k = 0; k < bytes && !bad; k++) {
        unsigned char want = pattern(7, k);
        if (k >= at && k < at + stripe)
            want = (unsigned char)(0xA0 + g_rank);
        if (k >= z0 && k < z1)
            want = 0;
        if (p[k] != want) {
            fprintf(stderr, "rank %d: byte %lld is %d, expected %d\n", g_rank, (long long)k, p[k],
                    want);
            bad = 1;
        }
    }
    ct_global_release(y);
    CT_ASSERT_ALL(bad == 0);
}

/* Outputs released in a different order on each rank, views outliving their global, many
 * conversions back to back: no descriptor or mapping stays once everything is released. */
static void test_lifetime(void **state) {
    (void)state;
    int fds = open_fds();
    int64_t sizes[2] = {1024, 1280};
    int bad = 0;
    for (int round = 0; round < 12; round++) {
        ct_global *y[3];
        for (int i = 0; i < 3; i++)
            y[i] = to_b(CT_FLOAT32, sizes, 2, 1, 300 + 3 * (uint64_t)round + (uint64_t)i);
        /* A view of the middle output keeps its mapping after the global goes. */
        ct_tensor *view = NULL;
        MUST(ct_tensor_narrow(ct_global_local(y[1]), 0, 512, 256, &view));
        /* Each rank releases in its own order, some before the others have looked. */
        for (int i = 0; i < 3; i++)
            ct_global_release(y[(i + g_rank + round) % 3]);
        MPI_Barrier(MPI_COMM_WORLD);
        bad += !matches(ct_tensor_data_ptr(view), 300 + 3 * (uint64_t)round + 1, 512 * 1280 * 4,
                        256 * 1280 * 4);
        ct_tensor_release(view);
    }
    if (cow_mappings() != 0 || open_fds() != fds) {
        fprintf(stderr, "rank %d: %d mappings, %d descriptors (was %d) left\n", g_rank,
                cow_mappings(), open_fds(), fds);
        bad++;
    }
    CT_ASSERT_ALL(bad == 0);
}

int main(void) {
    ct_test_start();
    g_rank = ct_test_rank();
    g_world = ct_test_world();
    setenv("CTENSOR_BOXING_COW", "1", 1); /* the file is opt-in (boxing_fast.c) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_private),
        cmocka_unit_test(test_lifetime),
    };
    return ct_test_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
