/* env.c: starting and stopping MPI, the library's private world communicator (a duplicate
 * of MPI_COMM_WORLD or of the communicator the program hands over), the facts about this
 * process (rank, world size, local rank, node count), and the deadline of cross-rank waits.
 * See dist_impl.h. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

/* One mutex guards the whole state: init and finalize are rare, and the accessors only read
 * values that stop changing once `g_ready` is set. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_ready;      /* ct_dist_init succeeded and ct_dist_finalize has not run */
static bool g_owns_mpi;   /* we called MPI_Init_thread, so we finalize */
static MPI_Comm g_world = MPI_COMM_NULL;
static int64_t g_rank;
static int64_t g_size = 1;
static int64_t g_local_rank;
static int64_t g_node_size = 1;
static bool g_nodes_uniform = true; /* every node runs the same number of processes */
/* The timeout of cross-rank waits set by ct_dist_set_timeout; 0: from the environment. */
static _Atomic double g_timeout;
/* Set when a wait timed out: the operation's name; the runtime refuses every later global
 * operation (the abandoned collective can never be cancelled, see ct_dist_set_timeout). */
static char g_broken_op[32];
static atomic_bool g_broken;

/* Node facts: the local rank and local size come from the shared-memory split; every node
 * must run the same number of processes (OneFlow's assumption), checked by gathering the
 * local sizes. Called with the lock held on a fresh g_world. */
static ct_status env_node_facts(void) {
    MPI_Comm node = MPI_COMM_NULL;
    ct_status st = ct_dist_impl_mpi_check(
        MPI_Comm_split_type(g_world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
    if (st != CT_OK)
        return st;
    int local_rank = 0, local_size = 1;
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);

    int *sizes = ct_dist_impl_alloc(sizeof(int) * (size_t)g_size);
    if (!sizes)
        return ct_set_error(CT_ERR_NOMEM, "out of memory starting the distributed runtime");
    st = ct_dist_impl_mpi_check(MPI_Allgather(&local_size, 1, MPI_INT, sizes, 1, MPI_INT, g_world),
                                "MPI_Allgather");
    if (st == CT_OK) {
        g_nodes_uniform = true;
        for (int64_t i = 0; i < g_size; i++)
            if (sizes[i] != local_size)
                g_nodes_uniform = false;
        g_local_rank = local_rank;
        g_node_size = g_size / local_size;
    }
    ct_dist_impl_free(sizes);
    return st;
}

/* Start (or adopt) MPI and duplicate `base`. Called with the lock held and !g_ready.
 * `adopt_only`: the program already runs MPI (it has a communicator), never start it. */
static ct_status env_start_locked(MPI_Comm base, bool adopt_only) {
    int flag = 0;
    MPI_Finalized(&flag);
    if (flag)
        return ct_set_error(CT_ERR_RUNTIME,
                            "MPI has already been finalized: the distributed runtime cannot restart");
    MPI_Initialized(&flag);
    if (!flag && adopt_only)
        return ct_set_error(CT_ERR_RUNTIME,
                            "ct_dist_init_comm: MPI is not initialized (the communicator must "
                            "come from a running MPI)");
    if (!flag) {
        int provided = 0;
        ct_status st = ct_dist_impl_mpi_check(
            MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
        if (st != CT_OK)
            return st;
        g_owns_mpi = true;
    }
    /* A private duplicate isolates our traffic from the program's, and lets errors return
     * instead of aborting the job. */
    ct_status st = ct_dist_impl_mpi_check(MPI_Comm_dup(base, &g_world), "MPI_Comm_dup");
    if (st != CT_OK)
        return st;
    MPI_Comm_set_errhandler(g_world, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(g_world, &rank);
    MPI_Comm_size(g_world, &size);
    g_rank = rank;
    g_size = size;
    st = env_node_facts();
    if (st == CT_OK)
        st = ct_dist_impl_agree_reserve(g_size);
    if (st != CT_OK) {
        MPI_Comm_free(&g_world);
        g_world = MPI_COMM_NULL;
        return st;
    }
    g_ready = true;
    return CT_OK;
}

ct_status ct_dist_init(void) {
    pthread_mutex_lock(&g_lock);
    ct_status st = g_ready ? CT_OK : env_start_locked(MPI_COMM_WORLD, false);
    pthread_mutex_unlock(&g_lock);
    return st;
}

ct_status ct_dist_init_comm(const void *mpi_comm) {
    if (mpi_comm == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_dist_init_comm: the communicator is NULL");
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag)
        return ct_set_error(CT_ERR_RUNTIME,
                            "ct_dist_init_comm: MPI is not initialized (the communicator must "
                            "come from a running MPI)");
    MPI_Comm base = *(const MPI_Comm *)mpi_comm;
    if (base == MPI_COMM_NULL)
        return ct_set_error(CT_ERR_VALUE, "ct_dist_init_comm: the communicator is MPI_COMM_NULL "
                                          "(this process is not one of its members)");
    pthread_mutex_lock(&g_lock);
    ct_status st = CT_OK;
    if (g_ready) {
        /* Idempotent for the same group in the same order; anything else would change the
         * ranks of placements that already exist. */
        int same = MPI_UNEQUAL;
        MPI_Comm_compare(g_world, base, &same);
        if (same != MPI_IDENT && same != MPI_CONGRUENT)
            st = ct_set_error(CT_ERR_RUNTIME,
                              "ct_dist_init_comm: the distributed runtime already runs on another "
                              "communicator (the first global operation starts it on "
                              "MPI_COMM_WORLD); hand the communicator over before any other "
                              "distributed call");
    } else {
        st = env_start_locked(base, true);
    }
    pthread_mutex_unlock(&g_lock);
    return st;
}

ct_status ct_dist_finalize(void) {
    pthread_mutex_lock(&g_lock);
    ct_status st = CT_OK;
    if (g_ready) {
        ct_dist_impl_shm_clear(); /* windows live on cached communicators */
        ct_dist_impl_comm_cache_clear();
        ct_dist_impl_mpi_types_free();
        ct_dist_impl_agree_unreserve();
        MPI_Comm_free(&g_world);
        g_world = MPI_COMM_NULL;
        g_ready = false;
        if (g_owns_mpi) {
            g_owns_mpi = false;
            st = ct_dist_impl_mpi_check(MPI_Finalize(), "MPI_Finalize");
        }
    }
    pthread_mutex_unlock(&g_lock);
    return st;
}

ct_status ct_dist_impl_world(MPI_Comm *out) {
    if (atomic_load(&g_broken)) {
        *out = MPI_COMM_NULL;
        return ct_dist_impl_broken_error();
    }
    ct_status st = ct_dist_init();
    *out = st == CT_OK ? g_world : MPI_COMM_NULL;
    return st;
}

/* ---- deadline ---------------------------------------------------------------------------- */

ct_status ct_dist_set_timeout(double seconds) {
    if (isnan(seconds) || seconds < 0)
        return ct_set_error(CT_ERR_VALUE,
                            "ct_dist_set_timeout: the timeout must be a positive number of "
                            "seconds (0 for the environment's), got %g",
                            seconds);
    atomic_store(&g_timeout, seconds);
    return CT_OK;
}

/* A positive number of seconds from the environment variable `name`, or 0. */
static double env_seconds(const char *name) {
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return 0;
    char *end = NULL;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && v > 0 ? v : 0;
}

double ct_dist_impl_timeout(void) {
    double t = atomic_load(&g_timeout);
    if (t > 0)
        return t;
    /* Read at every wait, as OneFlow does, so that a program may change it as it goes. */
    t = env_seconds("CTENSOR_TIMEOUT_SECONDS");
    if (t <= 0)
        t = env_seconds("ONEFLOW_TIMEOUT_SECONDS");
    return t > 0 ? t : CT_DIST_DEFAULT_TIMEOUT;
}

ct_status ct_dist_get_timeout(double *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_dist_get_timeout: out is NULL");
    *out = ct_dist_impl_timeout();
    return CT_OK;
}

void ct_dist_impl_mark_broken(const char *op) {
    if (atomic_load(&g_broken))
        return;
    snprintf(g_broken_op, sizeof g_broken_op, "%s", op != NULL ? op : "?");
    atomic_store(&g_broken, true);
}

bool ct_dist_impl_is_broken(void) { return atomic_load(&g_broken); }

ct_status ct_dist_impl_broken_error(void) {
    return ct_set_error(CT_ERR_RUNTIME,
                        "the distributed runtime cannot be used after the timeout of global "
                        "operation %s (a collective that timed out cannot be cancelled, so the "
                        "ranks no longer agree on which operation comes next); end the job",
                        g_broken_op);
}

int64_t ct_dist_impl_my_rank(void) { return g_rank; }
int64_t ct_dist_impl_size(void) { return g_size; }

/* The public getters share one shape: start MPI, then read a cached value. */
static ct_status env_get(int64_t *out, const int64_t *value, const char *fn) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = 0;
    ct_status st = ct_dist_init();
    if (st != CT_OK)
        return st;
    *out = *value;
    return CT_OK;
}

ct_status ct_dist_rank(int64_t *out) { return env_get(out, &g_rank, "ct_dist_rank"); }
ct_status ct_dist_world_size(int64_t *out) { return env_get(out, &g_size, "ct_dist_world_size"); }
ct_status ct_dist_local_rank(int64_t *out) {
    return env_get(out, &g_local_rank, "ct_dist_local_rank");
}

ct_status ct_dist_node_size(int64_t *out) {
    ct_status st = env_get(out, &g_node_size, "ct_dist_node_size");
    if (st == CT_OK && !g_nodes_uniform) {
        *out = 0;
        return ct_set_error(CT_ERR_RUNTIME,
                            "every node must run the same number of processes, but the nodes of "
                            "this job run different numbers");
    }
    return st;
}

ct_status ct_dist_abort(int errorcode) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return ct_set_error(CT_ERR_RUNTIME, "ct_dist_abort: MPI is not running");
    /* The whole job, whatever communicator the runtime uses: ranks outside it may wait too. */
    MPI_Abort(MPI_COMM_WORLD, errorcode);
    return ct_set_error(CT_ERR_RUNTIME, "ct_dist_abort: MPI_Abort returned");
}
