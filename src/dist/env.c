/* env.c: starting and stopping MPI, the library's private world communicator and the facts
 * about this process (rank, world size, local rank, node count). See dist_impl.h. */
#include <pthread.h>
#include <stdlib.h>

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

ct_status ct_dist_init(void) {
    pthread_mutex_lock(&g_lock);
    ct_status st = CT_OK;
    if (g_ready)
        goto done;
    int flag = 0;
    MPI_Finalized(&flag);
    if (flag) {
        st = ct_set_error(CT_ERR_RUNTIME,
                          "MPI has already been finalized: the distributed runtime cannot restart");
        goto done;
    }
    MPI_Initialized(&flag);
    if (!flag) {
        int provided = 0;
        st = ct_dist_impl_mpi_check(MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided),
                                    "MPI_Init_thread");
        if (st != CT_OK)
            goto done;
        g_owns_mpi = true;
    }
    /* A private duplicate isolates our traffic from the program's, and lets errors return
     * instead of aborting the job. */
    st = ct_dist_impl_mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &g_world), "MPI_Comm_dup");
    if (st != CT_OK)
        goto done;
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
        goto done;
    }
    g_ready = true;
done:
    pthread_mutex_unlock(&g_lock);
    return st;
}

ct_status ct_dist_finalize(void) {
    pthread_mutex_lock(&g_lock);
    ct_status st = CT_OK;
    if (g_ready) {
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
    ct_status st = ct_dist_init();
    *out = st == CT_OK ? g_world : MPI_COMM_NULL;
    return st;
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
    MPI_Abort(MPI_COMM_WORLD, errorcode);
    return ct_set_error(CT_ERR_RUNTIME, "ct_dist_abort: MPI_Abort returned");
}
