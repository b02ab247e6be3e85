/* agree.c: the opening collective of every global operation. Each rank contributes a fixed-
 * size record (a digest of its arguments plus its local input's metadata); one allgather
 * gives every rank every record, so all of them reach the same verdict without a second
 * round trip. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

uint64_t ct_dist_impl_hash_nd_sbp(uint64_t h, const ct_sbp *sbp, int64_t n) {
    h = ct_hash_bytes(h, &n, sizeof(n));
    for (int64_t i = 0; i < n; i++) {
        /* Hash normalised values, never struct bytes: a non-split dim means nothing. */
        int32_t v[2] = {(int32_t)sbp[i].kind, sbp[i].kind == CT_SBP_SPLIT ? sbp[i].dim : -1};
        h = ct_hash_bytes(h, v, sizeof(v));
    }
    return h;
}

uint64_t ct_dist_impl_hash_scalar(uint64_t h, ct_scalar v) {
    int32_t kind = (int32_t)v.kind;
    h = ct_hash_bytes(h, &kind, sizeof kind);
    switch (v.kind) {
    case CT_SCALAR_BOOL: {
        uint8_t b = v.v.b ? 1 : 0;
        return ct_hash_bytes(h, &b, 1);
    }
    case CT_SCALAR_INT: return ct_hash_bytes(h, &v.v.i, sizeof v.v.i);
    case CT_SCALAR_UINT: return ct_hash_bytes(h, &v.v.u, sizeof v.v.u);
    case CT_SCALAR_FLOAT: return ct_hash_bytes(h, &v.v.f, sizeof v.v.f);
    default:
        h = ct_hash_bytes(h, &v.v.c.re, sizeof v.v.c.re);
        return ct_hash_bytes(h, &v.v.c.im, sizeof v.v.c.im);
    }
}

void ct_dist_impl_agree_set_op(ct_agree_record *rec, const char *op) {
    memset(rec->op, 0, sizeof(rec->op));
    if (op)
        strncpy(rec->op, op, sizeof(rec->op) - 1);
}

ct_status ct_dist_impl_agree_failed(ct_agree_record *mine, ct_status status) {
    mine->has_local = -(int32_t)status;
    strncpy(mine->what, ct_last_error(), sizeof(mine->what) - 1);
    mine->what[sizeof(mine->what) - 1] = '\0';
    return status;
}

/* The Python exception name of a status ("ValueError"; "RuntimeError" for misuse and
 * overflow), as the other ranks' message names the failing rank's error. */
static const char *kind_name(ct_status status) {
    switch (status) {
    case CT_ERR_VALUE: return "ValueError";
    case CT_ERR_TYPE: return "TypeError";
    case CT_ERR_INDEX: return "IndexError";
    case CT_ERR_NOT_IMPLEMENTED: return "NotImplementedError";
    case CT_ERR_NOMEM: return "MemoryError";
    default: return "RuntimeError";
    }
}

/* The buffers of the agreement's collective, kept from ct_dist_init: a rank that could not
 * allocate must take part all the same, or the others would wait for it forever, and after
 * a timeout the abandoned collective may still write into them, so they must outlive it
 * (they are never freed once the runtime is broken). */
static ct_agree_record *g_spare;
static ct_agree_record g_send;
static int g_ready_word;
static pthread_mutex_t g_spare_lock = PTHREAD_MUTEX_INITIALIZER;

ct_status ct_dist_impl_agree_reserve(int64_t n) {
    if (g_spare != NULL)
        return CT_OK; /* kept after a timeout */
    g_spare = ct_dist_impl_calloc((size_t)n, sizeof(*g_spare));
    return g_spare ? CT_OK : ct_set_error(CT_ERR_NOMEM, "out of memory starting the distributed runtime");
}

void ct_dist_impl_agree_unreserve(void) {
    if (ct_dist_impl_is_broken())
        return;
    ct_dist_impl_free(g_spare);
    g_spare = NULL;
}

/* Wait for the collective `req` of global operation `op` until the deadline. MPI cannot
 * cancel a collective, so a timeout leaves it pending for good (see ct_dist_set_timeout). */
static ct_status wait_deadline(MPI_Request *req, const char *op) {
    double limit = ct_dist_impl_timeout();
    if (isinf(limit))
        return ct_dist_impl_mpi_check(MPI_Wait(req, MPI_STATUS_IGNORE), "MPI_Wait");
    double start = MPI_Wtime();
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return ct_dist_impl_mpi_check(rc, "MPI_Test");
        if (done)
            return CT_OK;
        if (MPI_Wtime() - start > limit)
            break;
    }
    ct_dist_impl_mark_broken(op);
    return ct_set_error(CT_ERR_RUNTIME,
                        "Timeout: global operation %s waited %g s for the other ranks. Maybe "
                        "executing different code in different ranks, please check if the code "
                        "is branched and operates on the global tensor. (The distributed runtime "
                        "cannot be used after this error; CTENSOR_TIMEOUT_SECONDS or "
                        "ct_dist_set_timeout sets the deadline.)",
                        op != NULL && op[0] ? op : "?", limit);
}

/* A status read from another rank's record, kept within the known kinds. */
static ct_status status_of(int32_t has_local) {
    int32_t s = -has_local;
    return s >= CT_ERR_RUNTIME && s <= CT_ERR_OVERFLOW ? (ct_status)s : CT_ERR_RUNTIME;
}

/* The verdict from every rank's records (identical on every rank). */
static ct_status verdict(const ct_agree_record *all, int64_t n) {
    /* Everyone else learns whose error it was. */
    for (int64_t r = 0; r < n; r++)
        if (all[r].has_local < 0) {
            ct_status fs = status_of(all[r].has_local);
            return ct_set_error(fs, "global operation %s failed on rank %lld: %s: %s",
                                all[r].op[0] ? all[r].op : "?", (long long)r,
                                kind_name(fs), all[r].what);
        }
    for (int64_t r = 1; r < n; r++) {
        /* Records that name no placement (ct_global_begin, ct_global_fail) carry 0. */
        if (strcmp(all[r].op, all[0].op) == 0 && all[r].placement != 0 &&
            all[0].placement != 0 && all[r].placement != all[0].placement)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Inconsistent parallel description: rank 0 called %s, rank %lld "
                                "called %s",
                                all[0].what, (long long)r, all[r].what);
        if (all[r].hash != all[0].hash || strcmp(all[r].op, all[0].op) != 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "global operation arguments differ across ranks: rank 0 called "
                                "%s, rank %lld called %s",
                                all[0].what, (long long)r, all[r].what);
    }
    return CT_OK;
}

/* The collective into the reserved buffer, then the verdict; `all` (optional) gets a copy
 * of every record. */
static ct_status agree_locked(const ct_agree_record *mine, ct_agree_record *all) {
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return mine->has_local < 0 ? status_of(mine->has_local) : st;
    if (g_spare == NULL)
        return ct_set_error(CT_ERR_MISUSE, "global operation agreement: no buffer");
    int64_t n = ct_dist_impl_size();
    g_send = *mine;
    MPI_Request req = MPI_REQUEST_NULL;
    st = ct_dist_impl_mpi_check(MPI_Iallgather(&g_send, (int)sizeof(g_send), MPI_BYTE, g_spare,
                                               (int)sizeof(g_send), MPI_BYTE, world, &req),
                                "MPI_Iallgather");
    if (st == CT_OK)
        st = wait_deadline(&req, mine->op);
    /* A rank that failed on its own keeps its error (and message), whatever MPI said. */
    if (mine->has_local < 0)
        return status_of(mine->has_local);
    if (st != CT_OK)
        return st;
    for (int64_t r = 0; r < n; r++) {
        g_spare[r].op[sizeof(g_spare[r].op) - 1] = '\0';
        g_spare[r].what[sizeof(g_spare[r].what) - 1] = '\0';
    }
    if (all != NULL)
        memcpy(all, g_spare, sizeof(*all) * (size_t)n);
    return verdict(g_spare, n);
}

ct_status ct_dist_impl_agree(const ct_agree_record *mine, ct_agree_record *all) {
    /* Start MPI first: that reserves the buffer. */
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return mine->has_local < 0 ? status_of(mine->has_local) : st;
    pthread_mutex_lock(&g_spare_lock);
    st = agree_locked(mine, all);
    pthread_mutex_unlock(&g_spare_lock);
    return st;
}

ct_status ct_dist_impl_agree_nomem(const ct_agree_record *mine) {
    ct_agree_record failed = *mine;
    if (failed.has_local >= 0)
        ct_dist_impl_agree_failed(&failed, CT_ERR_NOMEM);
    return ct_dist_impl_agree(&failed, NULL);
}

ct_status ct_dist_impl_agree_call(ct_agree_record *rec, const char *op) {
    ct_dist_impl_agree_set_op(rec, op);
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return st;
    ct_agree_record *all = ct_dist_impl_calloc((size_t)ct_dist_impl_size(), sizeof *all);
    if (!all)
        return ct_dist_impl_agree_nomem(rec); /* the others wait for this rank's record */
    st = ct_dist_impl_agree(rec, all);
    ct_dist_impl_free(all);
    return st;
}

ct_status ct_global_fail(const char *op, ct_status status) {
    if (status == CT_OK)
        status = ct_set_error(CT_ERR_MISUSE, "ct_global_fail: status is CT_OK");
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    ct_dist_impl_agree_set_op(&mine, op);
    ct_dist_impl_agree_failed(&mine, status);
    MPI_Comm world;
    if (ct_dist_impl_world(&world) != CT_OK) /* no MPI, no peers waiting: keep the message */
        return ct_set_error(status, "%s", mine.what);
    /* With MPI started the agreement leaves a failed rank's own error untouched. */
    ct_dist_impl_agree(&mine, NULL);
    return status;
}

ct_status ct_global_begin(const char *op, int64_t steps) {
    if (steps < 0)
        return ct_global_fail(op, ct_set_error(CT_ERR_VALUE, "ct_global_begin: steps must be "
                                                             "non-negative, got %lld",
                                               (long long)steps));
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    ct_dist_impl_agree_set_op(&mine, op);
    snprintf(mine.what, sizeof(mine.what), "%s(%lld steps)", mine.op, (long long)steps);
    mine.hash = ct_hash_bytes(ct_hash_bytes(0, mine.op, sizeof(mine.op)), &steps, sizeof(steps));
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return st;
    return ct_dist_impl_agree(&mine, NULL);
}

ct_status ct_dist_impl_all_ready(ct_status mine, MPI_Comm comm, const char *what) {
    if (ct_dist_impl_is_broken())
        return mine != CT_OK ? mine : ct_dist_impl_broken_error();
    pthread_mutex_lock(&g_spare_lock);
    g_ready_word = (int)mine;
    MPI_Request req = MPI_REQUEST_NULL;
    ct_status st = ct_dist_impl_mpi_check(
        MPI_Iallreduce(MPI_IN_PLACE, &g_ready_word, 1, MPI_INT, MPI_MAX, comm, &req),
        "MPI_Iallreduce");
    if (st == CT_OK)
        st = wait_deadline(&req, what);
    int worst = g_ready_word;
    pthread_mutex_unlock(&g_spare_lock);
    if (mine != CT_OK)
        return mine;
    if (st != CT_OK)
        return st;
    if (worst != CT_OK)
        return ct_set_error((ct_status)worst, "%s failed on another rank", what);
    return CT_OK;
}
