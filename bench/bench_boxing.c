/* Boxing (global -> global conversions of libctensor_dist) against the bare MPI collective
 * that moves the same bytes (bench/README.md, "Boxing"). A benchmark, not a test.
 *
 * Usage: mpirun -np N bench_boxing [--mib 1,16,64] [--rounds R] [--iters-scale F]
 *                                   [--only NAME]
 *
 * Every transition runs on the 1-D placement of all ranks with a float32 tensor of
 * rows x 256 (rows = MiB * 1024), so "1 MiB" is the logical tensor's size:
 *
 *   transition  ctensor                          bare MPI of the same bytes
 *   S(0)->B     ct_global_to_global              MPI_Allgatherv (shard rows -> all rows)
 *   S(1)->B                                      MPI_Allgatherv (the same bytes, no interleave)
 *   P->B                                         MPI_Allreduce(SUM) of the whole tensor
 *   P->S(0)                                      MPI_Reduce_scatter(SUM), counts = shard sizes
 *   P->S(1)                                      MPI_Reduce_scatter(SUM), the same counts
 *   S(0)->S(1)                                   MPI_Alltoallv of the rows_i x cols_j blocks
 *   B->S(0)     (local: no communication)        memcpy of the output's local bytes
 *   B->P        (local)                          memcpy of the output's local bytes
 *   S(0)->P     (local)                          memcpy of the output's local bytes
 *
 * Timing: MPI_Wtime around `iters` calls, a barrier before each round; a round's time is the
 * slowest rank's (MPI_MAX), the figure is the best of R rounds, per call. ctensor's and MPI's
 * rounds alternate. The library
 * allocates each output (as every Tensor.to_global does); the MPI column writes into buffers
 * allocated once, so it is the floor the library is measured against.
 *
 * Output (rank 0): one line per transition and size
 *   RESULT <np> <transition> <MiB> <ct ms> <mpi ms> <ct/mpi> <baseline>
 * and the same as a table. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/ctensor.h"
#include "ctensor/dist.h"

#define COLS 256
#define MAX_SIZES 8

typedef enum { BL_ALLGATHERV, BL_ALLREDUCE, BL_REDUCE_SCATTER, BL_ALLTOALLV, BL_MEMCPY } baseline;

static const char *const baseline_names[] = {"MPI_Allgatherv", "MPI_Allreduce",
                                             "MPI_Reduce_scatter", "MPI_Alltoallv", "memcpy"};

typedef struct transition {
    const char *name;
    char from, to;      /* 'S', 'B', 'P' */
    int from_dim, to_dim; /* split dims */
    baseline bl;
} transition;

static const transition transitions[] = {
    {"S(0)->B", 'S', 'B', 0, -1, BL_ALLGATHERV},    {"S(1)->B", 'S', 'B', 1, -1, BL_ALLGATHERV},
    {"P->B", 'P', 'B', -1, -1, BL_ALLREDUCE},       {"P->S(0)", 'P', 'S', -1, 0, BL_REDUCE_SCATTER},
    {"P->S(1)", 'P', 'S', -1, 1, BL_REDUCE_SCATTER}, {"S(0)->S(1)", 'S', 'S', 0, 1, BL_ALLTOALLV},
    {"B->S(0)", 'B', 'S', -1, 0, BL_MEMCPY},        {"B->P", 'B', 'P', -1, -1, BL_MEMCPY},
    {"S(0)->P", 'S', 'P', 0, -1, BL_MEMCPY},
};
#define N_TRANSITIONS (sizeof transitions / sizeof transitions[0])

static int rank, world;

static int check(ct_status st, const char *what) {
    if (st != CT_OK) {
        fprintf(stderr, "bench_boxing (rank %d): %s: %s\n", rank, what, ct_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 0;
}

static void balanced(int64_t total, int64_t n, int64_t i, int64_t *begin, int64_t *len) {
    int64_t base = total / n, rem = total % n;
    *len = base + (i < rem ? 1 : 0);
    *begin = i < rem ? (base + 1) * i : (base + 1) * rem + base * (i - rem);
}

static ct_sbp make_sbp(char kind, int dim) {
    ct_sbp s;
    if (kind == 'B')
        return ct_sbp_broadcast();
    if (kind == 'P')
        return ct_sbp_partial_sum();
    check(ct_sbp_split(dim, &s), "sbp_split");
    return s;
}

/* The input global tensor of a transition: rows x COLS float32 under its `from` sbp. */
static ct_global *make_input(const transition *t, const ct_placement *pl, int64_t rows) {
    int64_t sizes[2] = {rows, COLS}, b, n;
    if (t->from == 'S') {
        balanced(sizes[t->from_dim], world, rank, &b, &n);
        sizes[t->from_dim] = n;
    }
    ct_tensor *local = NULL;
    check(ct_tensor_full(sizes, 2, ct_scalar_float(1.0 + rank), CT_FLOAT32, NULL,
                         CT_LAYOUT_STRIDED, &local),
          "full");
    ct_sbp s = make_sbp(t->from, t->from_dim);
    ct_global *g = NULL;
    check(ct_global_from_local(local, pl, &s, 1, 0, &g), "from_local");
    ct_tensor_release(local);
    return g;
}

/* Buffers and counts of the MPI baseline of one transition. */
typedef struct mpi_case {
    float *src, *dst;
    int *scounts, *sdispls, *rcounts, *rdispls;
    size_t copy_bytes;
} mpi_case;

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "bench_boxing: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static void mpi_setup(const transition *t, int64_t rows, mpi_case *c) {
    int64_t total = rows * COLS, b, n;
    int64_t rb, rn, cb, cn; /* my row / column parts */
    balanced(rows, world, rank, &rb, &rn);
    balanced(COLS, world, rank, &cb, &cn);
    c->src = xmalloc((size_t)total * sizeof(float));
    c->dst = xmalloc((size_t)total * sizeof(float));
    for (int64_t i = 0; i < total; i++)
        c->src[i] = (float)(1 + rank);
    memset(c->dst, 0, (size_t)total * sizeof(float));
    c->scounts = xmalloc(sizeof(int) * (size_t)world);
    c->sdispls = xmalloc(sizeof(int) * (size_t)world);
    c->rcounts = xmalloc(sizeof(int) * (size_t)world);
    c->rdispls = xmalloc(sizeof(int) * (size_t)world);
    int split_cols = (t->bl == BL_ALLGATHERV && t->from_dim == 1) ||
                     (t->bl == BL_REDUCE_SCATTER && t->to_dim == 1);
    int64_t off = 0;
    for (int r = 0; r < world; r++) {
        if (split_cols) {
            balanced(COLS, world, r, &b, &n);
            n *= rows;
        } else {
            balanced(rows, world, r, &b, &n);
            n *= COLS;
        }
        c->rcounts[r] = (int)n;
        c->rdispls[r] = (int)off;
        off += n;
    }
    if (t->bl == BL_ALLTOALLV) { /* send rows_me x cols_j to j, receive rows_j x cols_me */
        int64_t so = 0, ro = 0;
        for (int r = 0; r < world; r++) {
            int64_t jb, jn, ib, in;
            balanced(COLS, world, r, &jb, &jn);
            balanced(rows, world, r, &ib, &in);
            c->scounts[r] = (int)(rn * jn);
            c->sdispls[r] = (int)so;
            so += rn * jn;
            c->rcounts[r] = (int)(in * cn);
            c->rdispls[r] = (int)ro;
            ro += in * cn;
        }
    }
    /* local transitions: the output's local bytes */
    if (t->to == 'S')
        c->copy_bytes = (size_t)(rn * COLS) * sizeof(float);
    else
        c->copy_bytes = (size_t)total * sizeof(float);
}

static void mpi_free(mpi_case *c) {
    free(c->src);
    free(c->dst);
    free(c->scounts);
    free(c->sdispls);
    free(c->rcounts);
    free(c->rdispls);
}

static void mpi_run(const transition *t, mpi_case *c) {
    int rc = MPI_SUCCESS;
    switch (t->bl) {
    case BL_ALLGATHERV:
        rc = MPI_Allgatherv(c->src, c->rcounts[rank], MPI_FLOAT, c->dst, c->rcounts, c->rdispls,
                            MPI_FLOAT, MPI_COMM_WORLD);
        break;
    case BL_ALLREDUCE: {
        int64_t total = 0;
        for (int r = 0; r < world; r++)
            total += c->rcounts[r];
        rc = MPI_Allreduce(c->src, c->dst, (int)total, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
    case BL_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter(c->src, c->dst, c->rcounts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case BL_ALLTOALLV:
        rc = MPI_Alltoallv(c->src, c->scounts, c->sdispls, MPI_FLOAT, c->dst, c->rcounts,
                           c->rdispls, MPI_FLOAT, MPI_COMM_WORLD);
        break;
    case BL_MEMCPY:
        memcpy(c->dst, c->src, c->copy_bytes);
        break;
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "bench_boxing: %s failed\n", baseline_names[t->bl]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Best over `rounds` of the slowest rank's seconds per call. kind 0 = ctensor, 1 = MPI. */
static double time_it(int kind, const transition *t, ct_global *in, const ct_sbp *to,
                      mpi_case *c, int iters, int rounds) {
    double best = 1e300;
    for (int round = 0; round < rounds; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (kind == 0) {
                ct_global *out = NULL;
                check(ct_global_to_global(in, NULL, to, 1, 0, &out), t->name);
                ct_global_release(out);
            } else {
                mpi_run(t, c);
            }
        }
        double mine = (MPI_Wtime() - t0) / iters, slowest;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest < best)
            best = slowest;
    }
    return best;
}

int main(int argc, char **argv) {
    int mib[MAX_SIZES] = {1, 16, 64}, n_sizes = 3, rounds = 5;
    double iters_scale = 1.0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
            n_sizes = 0;
            for (char *tok = strtok(argv[++i], ","); tok && n_sizes < MAX_SIZES;
                 tok = strtok(NULL, ","))
                mib[n_sizes++] = atoi(tok);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--iters-scale") == 0 && i + 1 < argc) {
            iters_scale = atof(argv[++i]);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_boxing [--mib 1,16,64] [--rounds R] "
                            "[--iters-scale F] [--only TRANSITION]\n");
            return 2;
        }
    }
    if (rounds < 1)
        rounds = 1;
    check(ct_dist_init(), "dist_init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);

    int64_t *ranks = xmalloc(sizeof(int64_t) * (size_t)world);
    for (int r = 0; r < world; r++)
        ranks[r] = r;
    int64_t h = world;
    ct_placement *pl = NULL;
    check(ct_placement_new("cpu", ranks, &h, 1, &pl), "placement");
    free(ranks);

    double results[N_TRANSITIONS][MAX_SIZES][2];
    int ran[N_TRANSITIONS] = {0};
    for (size_t k = 0; k < N_TRANSITIONS; k++) {
        const transition *t = &transitions[k];
        if (only != NULL && strcmp(only, t->name) != 0)
            continue;
        ran[k] = 1;
        for (int s = 0; s < n_sizes; s++) {
            int64_t rows = (int64_t)mib[s] * 1024 * 1024 / (4 * COLS);
            /* about 0.1-0.3 s per round at the speeds of a small machine */
            int iters = (int)((mib[s] <= 1 ? 40 : mib[s] <= 16 ? 6 : 3) * iters_scale);
            if (iters < 1)
                iters = 1;
            ct_global *in = make_input(t, pl, rows);
            ct_sbp to = make_sbp(t->to, t->to_dim);
            mpi_case c;
            mpi_setup(t, rows, &c);
            /* warm-up: communicators, caches, first-touch of the MPI buffers */
            time_it(0, t, in, &to, &c, 1, 1);
            time_it(1, t, in, &to, &c, 1, 1);
            /* Rounds alternate between the two, so that a busy spell on a shared machine
             * hits both alike; each keeps its best round. */
            results[k][s][0] = results[k][s][1] = 1e300;
            for (int round = 0; round < rounds; round++) {
                double ct = time_it(0, t, in, &to, &c, iters, 1);
                double mpi = time_it(1, t, in, &to, &c, iters, 1);
                if (ct < results[k][s][0])
                    results[k][s][0] = ct;
                if (mpi < results[k][s][1])
                    results[k][s][1] = mpi;
            }
            mpi_free(&c);
            ct_global_release(in);
            if (rank == 0) {
                printf("RESULT %d %s %d %.3f %.3f %.2f %s\n", world, t->name, mib[s],
                       1e3 * results[k][s][0], 1e3 * results[k][s][1],
                       results[k][s][0] / results[k][s][1], baseline_names[t->bl]);
                fflush(stdout);
            }
        }
    }
    if (rank == 0) {
        printf("\nnp = %d, float32 rows x %d, best of %d rounds, ms per call "
               "(slowest rank)\n\n",
               world, COLS, rounds);
        printf("| transition | MiB | ct ms | MPI ms | ct/MPI | MPI baseline |\n");
        printf("|---|---:|---:|---:|---:|---|\n");
        for (size_t k = 0; k < N_TRANSITIONS; k++) {
            if (!ran[k])
                continue;
            for (int s = 0; s < n_sizes; s++)
                printf("| %s | %d | %.3f | %.3f | %.2f | %s |\n", transitions[k].name, mib[s],
                       1e3 * results[k][s][0], 1e3 * results[k][s][1],
                       results[k][s][0] / results[k][s][1], baseline_names[transitions[k].bl]);
        }
    }
    ct_placement_release(pl);
    check(ct_dist_finalize(), "dist_finalize");
    return 0;
}
