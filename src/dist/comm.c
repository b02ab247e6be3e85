/* comm.c: communicators per rank set and per hierarchy axis, created on first need by the
 * ranks concerned only (never a world-wide split) and kept for the life of the process.
 * Under SPMD every rank asks for the same communicators in the same order, which is what
 * makes the member-only collectives that create them match up. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

typedef struct comm_entry {
    int64_t n;
    int64_t *ranks;
    int64_t axis; /* -1: the communicator of the rank set itself */
    int64_t ndim; /* hierarchy, for axis communicators */
    int64_t hierarchy[CT_PLACEMENT_MAX_NDIM];
    MPI_Comm comm;
} comm_entry;

/* A small growable array: programs use a handful of placements. The lock is held across
 * creation too, which is fine under MPI_THREAD_SERIALIZED (one thread at a time). */
static pthread_mutex_t g_comm_lock = PTHREAD_MUTEX_INITIALIZER;
static comm_entry *g_entries;
static size_t g_count, g_cap;

static bool entry_matches(const comm_entry *e, const int64_t *ranks, int64_t n, int64_t axis,
                          const int64_t *hierarchy, int64_t ndim) {
    if (e->n != n || e->axis != axis || memcmp(e->ranks, ranks, sizeof(int64_t) * (size_t)n) != 0)
        return false;
    if (axis < 0)
        return true;
    return e->ndim == ndim &&
           memcmp(e->hierarchy, hierarchy, sizeof(int64_t) * (size_t)ndim) == 0;
}

static comm_entry *cache_find(const int64_t *ranks, int64_t n, int64_t axis,
                              const int64_t *hierarchy, int64_t ndim) {
    for (size_t i = 0; i < g_count; i++)
        if (entry_matches(&g_entries[i], ranks, n, axis, hierarchy, ndim))
            return &g_entries[i];
    return NULL;
}

/* Store `comm` under the key; on failure the communicator is freed (the caller must not
 * keep an uncached communicator: nobody would free it). */
static ct_status cache_add(const int64_t *ranks, int64_t n, int64_t axis, const int64_t *hierarchy,
                           int64_t ndim, MPI_Comm *comm) {
    if (g_count == g_cap) {
        size_t cap = g_cap ? 2 * g_cap : 8;
        comm_entry *e = ct_dist_impl_realloc(g_entries, sizeof(comm_entry) * cap);
        if (!e)
            goto nomem;
        g_entries = e;
        g_cap = cap;
    }
    int64_t *copy = ct_dist_impl_alloc(sizeof(int64_t) * (size_t)n);
    if (!copy)
        goto nomem;
    memcpy(copy, ranks, sizeof(int64_t) * (size_t)n);
    comm_entry *e = &g_entries[g_count++];
    memset(e, 0, sizeof(*e));
    e->n = n;
    e->ranks = copy;
    e->axis = axis;
    e->ndim = axis < 0 ? 0 : ndim;
    if (axis >= 0)
        memcpy(e->hierarchy, hierarchy, sizeof(int64_t) * (size_t)ndim);
    e->comm = *comm;
    return CT_OK;
nomem:
    MPI_Comm_free(comm);
    *comm = MPI_COMM_NULL;
    return ct_set_error(CT_ERR_NOMEM, "out of memory caching a communicator");
}

static bool is_member(const int64_t *ranks, int64_t n, int64_t rank) {
    for (int64_t i = 0; i < n; i++)
        if (ranks[i] == rank)
            return true;
    return false;
}

static ct_status ranks_comm_locked(const int64_t *ranks, int64_t n, MPI_Comm *out) {
    *out = MPI_COMM_NULL;
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return st;
    if (!is_member(ranks, n, ct_dist_impl_my_rank()))
        return CT_OK;
    comm_entry *e = cache_find(ranks, n, -1, NULL, 0);
    if (e) {
        *out = e->comm;
        return CT_OK;
    }
    if (n > INT32_MAX)
        return ct_set_error(CT_ERR_OVERFLOW, "too many ranks for one communicator");
    int *iranks = ct_dist_impl_alloc(sizeof(int) * (size_t)n);
    if (!iranks)
        return ct_set_error(CT_ERR_NOMEM, "out of memory creating a communicator");
    for (int64_t i = 0; i < n; i++)
        iranks[i] = (int)ranks[i];
    /* The tag only has to agree among the members; deriving it from the set keeps creations
     * over different sets apart. */
    int tag = (int)(ct_hash_bytes(0, ranks, sizeof(int64_t) * (size_t)n) % 32768u);
    MPI_Group world_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    st = ct_dist_impl_mpi_check(MPI_Comm_group(world, &world_group), "MPI_Comm_group");
    if (st == CT_OK)
        st = ct_dist_impl_mpi_check(MPI_Group_incl(world_group, (int)n, iranks, &group),
                                    "MPI_Group_incl");
    if (st == CT_OK)
        st = ct_dist_impl_mpi_check(MPI_Comm_create_group(world, group, tag, &comm),
                                    "MPI_Comm_create_group");
    if (group != MPI_GROUP_NULL)
        MPI_Group_free(&group);
    if (world_group != MPI_GROUP_NULL)
        MPI_Group_free(&world_group);
    ct_dist_impl_free(iranks);
    if (st != CT_OK)
        return st;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    st = cache_add(ranks, n, -1, NULL, 0, &comm);
    if (st == CT_OK)
        *out = comm;
    return st;
}

ct_status ct_dist_impl_comm_for_ranks(const int64_t *ranks, int64_t n, MPI_Comm *out) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "communicator look-up: out is NULL");
    if (!ranks || n < 1) {
        *out = MPI_COMM_NULL;
        return ct_set_error(CT_ERR_MISUSE, "communicator look-up: no ranks");
    }
    pthread_mutex_lock(&g_comm_lock);
    ct_status st = ranks_comm_locked(ranks, n, out);
    pthread_mutex_unlock(&g_comm_lock);
    return st;
}

ct_status ct_dist_impl_comm_for_placement(const ct_placement *placement, MPI_Comm *out) {
    if (!placement || !out) {
        if (out)
            *out = MPI_COMM_NULL;
        return ct_set_error(CT_ERR_MISUSE, "communicator look-up: NULL argument");
    }
    return ct_dist_impl_comm_for_ranks(placement->ranks, placement->n, out);
}

ct_status ct_dist_impl_comm_for_axis(const ct_placement *placement, int64_t axis, MPI_Comm *out) {
    if (!placement || !out) {
        if (out)
            *out = MPI_COMM_NULL;
        return ct_set_error(CT_ERR_MISUSE, "communicator look-up: NULL argument");
    }
    *out = MPI_COMM_NULL;
    if (axis < 0 || axis >= placement->ndim)
        return ct_set_error(CT_ERR_MISUSE, "communicator look-up: axis %lld out of range",
                            (long long)axis);
    pthread_mutex_lock(&g_comm_lock);
    MPI_Comm pcomm;
    ct_status st = ranks_comm_locked(placement->ranks, placement->n, &pcomm);
    if (st != CT_OK || pcomm == MPI_COMM_NULL)
        goto done;
    /* Along the only axis of a 1-D placement the group is the whole placement. */
    if (placement->ndim == 1 || placement->n == placement->hierarchy[axis]) {
        *out = pcomm;
        goto done;
    }
    comm_entry *e =
        cache_find(placement->ranks, placement->n, axis, placement->hierarchy, placement->ndim);
    if (e) {
        *out = e->comm;
        goto done;
    }
    int64_t coords[CT_PLACEMENT_MAX_NDIM];
    ct_dist_impl_placement_coords(placement, ct_dist_impl_placement_my_pid(placement), coords);
    int64_t color = 0;
    for (int64_t k = 0; k < placement->ndim; k++)
        if (k != axis)
            color = color * placement->hierarchy[k] + coords[k];
    MPI_Comm comm = MPI_COMM_NULL;
    st = ct_dist_impl_mpi_check(MPI_Comm_split(pcomm, (int)color, (int)coords[axis], &comm),
                                "MPI_Comm_split");
    if (st != CT_OK)
        goto done;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    st = cache_add(placement->ranks, placement->n, axis, placement->hierarchy, placement->ndim,
                   &comm);
    if (st == CT_OK)
        *out = comm;
done:
    pthread_mutex_unlock(&g_comm_lock);
    return st;
}

void ct_dist_impl_comm_cache_clear(void) {
    pthread_mutex_lock(&g_comm_lock);
    for (size_t i = 0; i < g_count; i++) {
        if (g_entries[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&g_entries[i].comm);
        ct_dist_impl_free(g_entries[i].ranks);
    }
    ct_dist_impl_free(g_entries);
    g_entries = NULL;
    g_count = g_cap = 0;
    pthread_mutex_unlock(&g_comm_lock);
}
