/* reduce.c: partial-sum reductions across a communicator (see dist_impl.h).
 *
 * Native dtypes use MPI's own reductions: MPI_SUM (signed integers are summed as their
 * unsigned twins, so overflow wraps with defined behaviour, as global.h promises) and
 * MPI_LOR for bool. float16, bfloat16 and complex32 have no MPI type: their elements are
 * gathered and summed in rank-in-comm order in float32, then rounded once, which makes the
 * result independent of MPI's reduction tree and equal to the serial sum x0 + x1 + ...
 *
 * MPI counts are ints (Open MPI 4.1 has no large-count calls): longer buffers are reduced in
 * chunks of at most CT_REDUCE_MAX_COUNT elements (overridable at compile time so the tests
 * of this file can exercise the chunked paths on small tensors). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/convert.h"
#include "dist/dist_impl.h"

#ifndef CT_REDUCE_MAX_COUNT
#define CT_REDUCE_MAX_COUNT INT_MAX
#endif

/* Elements converted to float32 at a time by the ordered sums (stack buffers). */
#define ORDERED_BLOCK 1024

/* How a dtype is summed: natively by MPI, or as 16-bit float lanes summed in order. */
typedef struct reduce_plan {
    bool ordered;
    MPI_Datatype type; /* native: the element type; ordered: one 16-bit lane */
    MPI_Op op;
    ct_dtype lane;     /* ordered: FLOAT16 or BFLOAT16 */
    int64_t lanes;     /* ordered: lanes per element (2 for complex32) */
} reduce_plan;

static ct_status plan_for(ct_dtype dtype, reduce_plan *p) {
    p->ordered = false;
    p->op = MPI_SUM;
    p->lane = CT_DTYPE_UNDEFINED;
    p->lanes = 1;
    switch (dtype) {
    case CT_BOOL:
        p->type = MPI_C_BOOL;
        p->op = MPI_LOR;
        return CT_OK;
    case CT_UINT8:
    case CT_INT8:
        p->type = MPI_UINT8_T;
        return CT_OK;
    case CT_INT16:
        p->type = MPI_UINT16_T;
        return CT_OK;
    case CT_INT32:
        p->type = MPI_UINT32_T;
        return CT_OK;
    case CT_INT64:
        p->type = MPI_UINT64_T;
        return CT_OK;
    case CT_FLOAT32:
        p->type = MPI_FLOAT;
        return CT_OK;
    case CT_FLOAT64:
        p->type = MPI_DOUBLE;
        return CT_OK;
    case CT_COMPLEX64:
        p->type = MPI_C_FLOAT_COMPLEX;
        return CT_OK;
    case CT_COMPLEX128:
        p->type = MPI_C_DOUBLE_COMPLEX;
        return CT_OK;
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_COMPLEX32:
        p->ordered = true;
        p->type = MPI_UINT16_T;
        p->op = MPI_OP_NULL;
        p->lane = dtype == CT_BFLOAT16 ? CT_BFLOAT16 : CT_FLOAT16;
        p->lanes = dtype == CT_COMPLEX32 ? 2 : 1;
        return CT_OK;
    default:
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "partial_sum is not supported for dtype %s",
                            ct_dtype_is_valid(dtype) ? ct_dtype_name(dtype) : "<invalid>");
    }
}

ct_status ct_dist_impl_reduce_check_dtype(ct_dtype dtype) {
    reduce_plan p;
    return plan_for(dtype, &p);
}

/* dst[i] = src[0][i] + src[1][i] + ... + src[nsrc-1][i] for `n` lanes, the sources laid out
 * `n` lanes apart; summed in float32 in source order, rounded once into the lane type.
 * Conversions go through ct_convert so the rounding is the library's (nearest even, NaN
 * kept). Cannot fail for these dtypes. */
static void ordered_sum(ct_dtype lane, uint16_t *dst, const uint16_t *src, int64_t n, int64_t nsrc) {
    float acc[ORDERED_BLOCK], tmp[ORDERED_BLOCK];
    for (int64_t off = 0; off < n; off += ORDERED_BLOCK) {
        size_t c = (size_t)(n - off < ORDERED_BLOCK ? n - off : ORDERED_BLOCK);
        (void)ct_convert(CT_FLOAT32, acc, lane, src + off, c);
        for (int64_t q = 1; q < nsrc; q++) {
            (void)ct_convert(CT_FLOAT32, tmp, lane, src + q * n + off, c);
            for (size_t i = 0; i < c; i++)
                acc[i] += tmp[i];
        }
        (void)ct_convert(lane, dst + off, CT_FLOAT32, acc, c);
    }
}

static ct_status check_contiguous(const ct_tensor *t, const char *fn) {
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL tensor", fn);
    if (!ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS))
        return ct_set_error(CT_ERR_MISUSE, "%s: the tensor must be contiguous", fn);
    return CT_OK;
}

static ct_status comm_facts(MPI_Comm comm, int *rank, int *size) {
    ct_status st = ct_dist_impl_mpi_check(MPI_Comm_size(comm, size), "MPI_Comm_size");
    if (st == CT_OK)
        st = ct_dist_impl_mpi_check(MPI_Comm_rank(comm, rank), "MPI_Comm_rank");
    return st;
}

/* ---- all-reduce ------------------------------------------------------------------------- */

static ct_status allreduce_ordered(const reduce_plan *p, uint16_t *data, int64_t n, MPI_Comm comm,
                                   int size) {
    /* Gather a chunk from everyone, sum it in order; chunks bound both the int counts and
     * the gather buffer (size x chunk lanes). */
    int64_t chunk = (int64_t)CT_REDUCE_MAX_COUNT / size;
    if (chunk > ((int64_t)1 << 20))
        chunk = (int64_t)1 << 20;
    if (chunk > n)
        chunk = n;
    if (chunk < 1)
        chunk = 1;
    uint16_t *gathered = ct_dist_impl_alloc((size_t)(chunk * size) * sizeof(uint16_t));
    ct_status st = gathered ? CT_OK : ct_set_error(CT_ERR_NOMEM, "partial_sum: out of memory");
    st = ct_dist_impl_all_ready(st, comm, "partial_sum");
    for (int64_t off = 0; st == CT_OK && off < n; off += chunk) {
        int c = (int)(n - off < chunk ? n - off : chunk);
        st = ct_dist_impl_mpi_check(
            MPI_Allgather(data + off, c, p->type, gathered, c, p->type, comm), "MPI_Allgather");
        if (st == CT_OK)
            ordered_sum(p->lane, data + off, gathered, c, size);
    }
    ct_dist_impl_free(gathered);
    return st;
}

ct_status ct_dist_impl_reduce_allreduce(ct_tensor *local, MPI_Comm comm) {
    ct_status st = check_contiguous(local, "allreduce");
    reduce_plan p;
    if (st == CT_OK)
        st = plan_for(ct_tensor_dtype(local), &p);
    int rank = 0, size = 1;
    if (st == CT_OK)
        st = comm_facts(comm, &rank, &size);
    if (st != CT_OK)
        return st;
    int64_t n = ct_tensor_numel(local) * p.lanes;
    if (n == 0)
        return CT_OK;
    char *data = ct_tensor_data_ptr(local);
    if (p.ordered)
        return allreduce_ordered(&p, (uint16_t *)(void *)data, n, comm, size);
    int isz = 0;
    MPI_Type_size(p.type, &isz);
    for (int64_t off = 0; off < n; off += CT_REDUCE_MAX_COUNT) {
        int c = (int)(n - off < CT_REDUCE_MAX_COUNT ? n - off : CT_REDUCE_MAX_COUNT);
        st = ct_dist_impl_mpi_check(
            MPI_Allreduce(MPI_IN_PLACE, data + off * isz, c, p.type, p.op, comm), "MPI_Allreduce");
        if (st != CT_OK)
            return st;
    }
    return CT_OK;
}

/* ---- reduce-scatter --------------------------------------------------------------------- */

/* The large-count fallback: one reduction (or ordered gather) per destination, in chunks
 * that fit an int. Slower (size rounds) but only taken for blocks beyond INT_MAX. */
static ct_status scatter_by_roots(const reduce_plan *p, const char *full, const int64_t *offsets,
                                  const int64_t *counts, char *out, MPI_Comm comm, int rank,
                                  int size) {
    int isz = 0;
    MPI_Type_size(p->type, &isz);
    int64_t chunk = p->ordered ? (int64_t)CT_REDUCE_MAX_COUNT / size : CT_REDUCE_MAX_COUNT;
    if (chunk > ((int64_t)1 << 20) && p->ordered)
        chunk = (int64_t)1 << 20;
    if (chunk < 1)
        chunk = 1;
    uint16_t *gathered = NULL;
    ct_status st = CT_OK;
    if (p->ordered) {
        gathered = ct_dist_impl_alloc((size_t)(chunk * size) * sizeof(uint16_t));
        if (gathered == NULL)
            st = ct_set_error(CT_ERR_NOMEM, "partial_sum: out of memory");
    }
    st = ct_dist_impl_all_ready(st, comm, "partial_sum");
    for (int r = 0; st == CT_OK && r < size; r++) {
        int64_t n = counts[r] * p->lanes, base = offsets[r] * p->lanes;
        for (int64_t off = 0; st == CT_OK && off < n; off += chunk) {
            int c = (int)(n - off < chunk ? n - off : chunk);
            const char *src = full + (base + off) * isz;
            if (p->ordered) {
                st = ct_dist_impl_mpi_check(
                    MPI_Gather(src, c, p->type, gathered, c, p->type, r, comm), "MPI_Gather");
                if (st == CT_OK && rank == r)
                    ordered_sum(p->lane, (uint16_t *)(void *)(out + off * isz), gathered, c, size);
            } else {
                st = ct_dist_impl_mpi_check(
                    MPI_Reduce(src, rank == r ? out + off * isz : NULL, c, p->type, p->op, r, comm),
                    "MPI_Reduce");
            }
        }
    }
    ct_dist_impl_free(gathered);
    return st;
}

/* Ordered reduce-scatter: everyone sends block r to rank r (MPI_Alltoallv), each rank sums
 * the blocks it received in rank order. Lane counts and displacements fit an int. */
static ct_status scatter_ordered(const reduce_plan *p, const char *full, const int64_t *offsets,
                                 const int64_t *counts, char *out, MPI_Comm comm, int rank,
                                 int size) {
    int64_t mine = counts[rank] * p->lanes;
    int *ints = ct_dist_impl_alloc((size_t)size * 4 * sizeof(int));
    uint16_t *gathered =
        ct_dist_impl_alloc((size_t)(mine * size > 0 ? mine * size : 1) * sizeof(uint16_t));
    ct_status st = CT_OK;
    if (ints == NULL || gathered == NULL)
        st = ct_set_error(CT_ERR_NOMEM, "partial_sum: out of memory");
    st = ct_dist_impl_all_ready(st, comm, "partial_sum");
    if (st == CT_OK) {
        int *scounts = ints, *sdispls = ints + size, *rcounts = ints + 2 * size,
            *rdispls = ints + 3 * size;
        for (int r = 0; r < size; r++) {
            scounts[r] = (int)(counts[r] * p->lanes);
            sdispls[r] = (int)(offsets[r] * p->lanes);
            rcounts[r] = (int)mine;
            rdispls[r] = (int)(r * mine);
        }
        st = ct_dist_impl_mpi_check(MPI_Alltoallv(full, scounts, sdispls, p->type, gathered,
                                                  rcounts, rdispls, p->type, comm),
                                    "MPI_Alltoallv");
        if (st == CT_OK)
            ordered_sum(p->lane, (uint16_t *)(void *)out, gathered, mine, size);
    }
    ct_dist_impl_free(ints);
    ct_dist_impl_free(gathered);
    return st;
}

/* Native reduce-scatter. MPI_Reduce_scatter wants the blocks one after another in rank
 * order; blocks given elsewhere are packed into a temporary first. */
static ct_status scatter_native(const reduce_plan *p, const char *full, const int64_t *offsets,
                                const int64_t *counts, char *out, MPI_Comm comm, int size) {
    int isz = 0;
    MPI_Type_size(p->type, &isz);
    bool consecutive = true;
    int64_t pos = offsets[0];
    for (int r = 0; r < size; r++) {
        if (offsets[r] != pos)
            consecutive = false;
        pos += counts[r];
    }
    int64_t total = 0;
    for (int r = 0; r < size; r++)
        total += counts[r];
    int *rcounts = ct_dist_impl_alloc((size_t)size * sizeof(int));
    char *packed = NULL;
    ct_status st = rcounts ? CT_OK : ct_set_error(CT_ERR_NOMEM, "partial_sum: out of memory");
    if (st == CT_OK && !consecutive) {
        packed = ct_dist_impl_alloc((size_t)(total > 0 ? total : 1) * (size_t)isz);
        if (packed == NULL)
            st = ct_set_error(CT_ERR_NOMEM, "partial_sum: out of memory");
    }
    st = ct_dist_impl_all_ready(st, comm, "partial_sum");
    if (st == CT_OK) {
        const char *send = full + offsets[0] * isz;
        if (!consecutive) {
            int64_t at = 0;
            for (int r = 0; r < size; r++) {
                memcpy(packed + at * isz, full + offsets[r] * isz, (size_t)(counts[r] * isz));
                at += counts[r];
            }
            send = packed;
        }
        for (int r = 0; r < size; r++)
            rcounts[r] = (int)counts[r];
        st = ct_dist_impl_mpi_check(MPI_Reduce_scatter(send, out, rcounts, p->type, p->op, comm),
                                    "MPI_Reduce_scatter");
    }
    ct_dist_impl_free(rcounts);
    ct_dist_impl_free(packed);
    return st;
}

ct_status ct_dist_impl_reduce_scatter(const ct_tensor *full, const int64_t *offsets,
                                      const int64_t *counts, ct_tensor *out_part, MPI_Comm comm) {
    ct_status st = check_contiguous(full, "reduce-scatter");
    if (st == CT_OK)
        st = check_contiguous(out_part, "reduce-scatter");
    if (st == CT_OK && (offsets == NULL || counts == NULL))
        st = ct_set_error(CT_ERR_MISUSE, "reduce-scatter: NULL offsets or counts");
    if (st == CT_OK && ct_tensor_dtype(full) != ct_tensor_dtype(out_part))
        st = ct_set_error(CT_ERR_MISUSE, "reduce-scatter: dtypes differ");
    reduce_plan p;
    if (st == CT_OK)
        st = plan_for(ct_tensor_dtype(full), &p);
    int rank = 0, size = 1;
    if (st == CT_OK)
        st = comm_facts(comm, &rank, &size);
    if (st != CT_OK)
        return st;
    /* Arguments are the same on every member (computed from shared metadata), so these
     * checks and the choice of algorithm below agree across the communicator. */
    int64_t numel = ct_tensor_numel(full), total = 0, largest = 0, end = 0;
    for (int r = 0; r < size; r++) {
        if (offsets[r] < 0 || counts[r] < 0 || offsets[r] + counts[r] > numel)
            return ct_set_error(CT_ERR_MISUSE, "reduce-scatter: block %d is out of range", r);
        total += counts[r];
        largest = counts[r] > largest ? counts[r] : largest;
        end = offsets[r] + counts[r] > end ? offsets[r] + counts[r] : end;
    }
    if (ct_tensor_numel(out_part) != counts[rank])
        return ct_set_error(CT_ERR_MISUSE, "reduce-scatter: output has %lld elements, expected %lld",
                            (long long)ct_tensor_numel(out_part), (long long)counts[rank]);
    if (total == 0)
        return CT_OK;
    const char *src = ct_tensor_data_ptr(full);
    char *dst = ct_tensor_data_ptr(out_part);
    int64_t limit = CT_REDUCE_MAX_COUNT;
    if (p.ordered) {
        if (end * p.lanes <= limit && largest * p.lanes * size <= limit)
            return scatter_ordered(&p, src, offsets, counts, dst, comm, rank, size);
    } else if (total <= limit) {
        return scatter_native(&p, src, offsets, counts, dst, comm, size);
    }
    return scatter_by_roots(&p, src, offsets, counts, dst, comm, rank, size);
}
