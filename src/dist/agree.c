/* agree.c: the opening collective of every global operation. Each rank contributes a fixed-
 * size record (a digest of its arguments plus its local input's metadata); one allgather
 * gives every rank every record, so all of them reach the same verdict without a second
 * round trip. */
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

/* A receive buffer kept from ct_dist_init for a rank that could not allocate its own: it
 * must take part in the allgather all the same, or the others would wait for it forever. */
static ct_agree_record *g_spare;
static pthread_mutex_t g_spare_lock = PTHREAD_MUTEX_INITIALIZER;

ct_status ct_dist_impl_agree_reserve(int64_t n) {
    g_spare = ct_dist_impl_calloc((size_t)n, sizeof(*g_spare));
    return g_spare ? CT_OK : ct_set_error(CT_ERR_NOMEM, "out of memory starting the distributed runtime");
}

void ct_dist_impl_agree_unreserve(void) {
    ct_dist_impl_free(g_spare);
    g_spare = NULL;
}

/* A status read from another rank's record, kept within the known kinds. */
static ct_status status_of(int32_t has_local) {
    int32_t s = -has_local;
    return s >= CT_ERR_RUNTIME && s <= CT_ERR_OVERFLOW ? (ct_status)s : CT_ERR_RUNTIME;
}

static ct_status agree_into(const ct_agree_record *mine, ct_agree_record *all) {
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return mine->has_local < 0 ? status_of(mine->has_local) : st;
    int64_t n = ct_dist_impl_size();
    int rc = MPI_Allgather(mine, (int)sizeof(*mine), MPI_BYTE, all, (int)sizeof(*mine), MPI_BYTE,
                           world);
    /* A rank that failed on its own keeps its error (and message), whatever MPI said. */
    if (mine->has_local < 0)
        return status_of(mine->has_local);
    st = ct_dist_impl_mpi_check(rc, "MPI_Allgather");
    if (st != CT_OK)
        return st;
    for (int64_t r = 0; r < n; r++) {
        all[r].op[sizeof(all[r].op) - 1] = '\0';
        all[r].what[sizeof(all[r].what) - 1] = '\0';
    }
    /* Everyone else learns whose error it was. */
    for (int64_t r = 0; r < n; r++)
        if (all[r].has_local < 0) {
            ct_status fs = status_of(all[r].has_local);
            return ct_set_error(fs, "global operation %s failed on rank %lld: %s: %s",
                                all[r].op[0] ? all[r].op : "?", (long long)r,
                                kind_name(fs), all[r].what);
        }
    for (int64_t r = 1; r < n; r++)
        if (all[r].hash != all[0].hash || strcmp(all[r].op, all[0].op) != 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "global operation arguments differ across ranks: rank 0 called "
                                "%s, rank %lld called %s",
                                all[0].what, (long long)r, all[r].what);
    return CT_OK;
}

ct_status ct_dist_impl_agree(const ct_agree_record *mine, ct_agree_record *all) {
    if (all != NULL)
        return agree_into(mine, all);
    /* Start MPI first: that reserves the buffer. */
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return mine->has_local < 0 ? status_of(mine->has_local) : st;
    pthread_mutex_lock(&g_spare_lock);
    st = g_spare ? agree_into(mine, g_spare)
                 : ct_set_error(CT_ERR_MISUSE, "global operation agreement: no buffer");
    pthread_mutex_unlock(&g_spare_lock);
    return st;
}

ct_status ct_dist_impl_agree_nomem(const ct_agree_record *mine) {
    ct_agree_record failed = *mine;
    if (failed.has_local >= 0)
        ct_dist_impl_agree_failed(&failed, CT_ERR_NOMEM);
    return ct_dist_impl_agree(&failed, NULL);
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
    int worst = (int)mine;
    int rc = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, comm);
    if (mine != CT_OK)
        return mine;
    if (rc != MPI_SUCCESS)
        return ct_dist_impl_mpi_check(rc, "MPI_Allreduce");
    if (worst != CT_OK)
        return ct_set_error((ct_status)worst, "%s failed on another rank", what);
    return CT_OK;
}
