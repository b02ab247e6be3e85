/* boxing_fast.c: the collective fast paths of 1-D same-placement boxing (one MPI
 * collective per conversion); see dist_impl.h. Everything else (N-D, placement changes,
 * S(i) -> S(j), zero-size tensors) goes to the generic path of boxing.c.
 *
 * The choice of path depends only on metadata every rank shares, so all ranks take the
 * same one; ranks outside the placement skip the collectives and only build the object.
 * Members allocate everything first and agree that they all succeeded before entering a
 * collective, so a local failure cannot leave the others waiting. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

typedef enum fast_kind {
    FAST_NONE,
    FAST_SAME,     /* X -> X: a copy */
    FAST_S_TO_B,   /* MPI_Allgatherv (MPI_Alltoallw into subarrays for split dims > 0) */
    FAST_B_TO_S,   /* local slice */
    FAST_B_TO_P,   /* first rank keeps, others zeros */
    FAST_S_TO_P,   /* zeros with the own shard in place */
    FAST_P_TO_B,   /* all-reduce */
    FAST_P_TO_S,   /* reduce-scatter (after packing for split dims > 0) */
} fast_kind;

static int64_t prod(const int64_t *s, int64_t from, int64_t to) {
    int64_t p = 1;
    for (int64_t i = from; i < to; i++)
        p *= s[i];
    return p;
}

static fast_kind classify(const ct_global *x, ct_sbp a, ct_sbp b) {
    if (ct_sbp_equal(a, b))
        return FAST_SAME;
    if (a.kind == CT_SBP_BROADCAST)
        return b.kind == CT_SBP_SPLIT ? FAST_B_TO_S : FAST_B_TO_P;
    if (a.kind == CT_SBP_PARTIAL_SUM)
        return b.kind == CT_SBP_SPLIT ? FAST_P_TO_S : FAST_P_TO_B;
    if (b.kind == CT_SBP_PARTIAL_SUM)
        return FAST_S_TO_P;
    if (b.kind == CT_SBP_BROADCAST) {
        /* Allgatherv counts rows of `inner` elements: both must fit an int. */
        int64_t d = a.dim;
        int64_t inner = prod(x->sizes, d + 1, x->ndim);
        int64_t rows = prod(x->sizes, 0, d + 1);
        if (inner <= INT_MAX && rows <= INT_MAX)
            return FAST_S_TO_B;
    }
    return FAST_NONE; /* S(i) -> S(j): the generic all-to-all */
}

/* The view (outer, len, inner) of contiguous `t` starting `offset` elements in, rows
 * `row_stride` elements apart: one block of a split along a middle dim. */
static ct_status view3(const ct_tensor *t, int64_t offset, int64_t outer, int64_t len,
                       int64_t inner, int64_t row_stride, ct_tensor **out) {
    int64_t sizes[3] = {outer, len, inner};
    int64_t strides[3] = {row_stride, inner, 1};
    int64_t at = ct_tensor_storage_offset(t) + offset;
    return ct_tensor_as_strided(t, sizes, strides, 3, &at, out);
}

/* Copy block `len` x `inner` rows between two (outer, *, inner) layouts. */
static ct_status copy_block(ct_tensor *dst, int64_t dst_off, int64_t dst_row, const ct_tensor *src,
                            int64_t src_off, int64_t src_row, int64_t outer, int64_t len,
                            int64_t inner) {
    if (outer == 0 || len == 0 || inner == 0)
        return CT_OK;
    ct_tensor *d = NULL, *s = NULL;
    ct_status st = view3(dst, dst_off, outer, len, inner, dst_row, &d);
    if (st == CT_OK)
        st = view3(src, src_off, outer, len, inner, src_row, &s);
    if (st == CT_OK)
        st = ct_tensor_copy_(d, s);
    ct_tensor_release(d);
    ct_tensor_release(s);
    return st;
}

static ct_status temp_like(const ct_tensor *like, int64_t numel, ct_tensor **out) {
    ct_device dev = ct_tensor_device(like);
    return ct_tensor_empty(&numel, 1, ct_tensor_dtype(like), &dev, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, out);
}

/* Context shared by the cases: the 1-D placement, its comm, this rank's pid, and the
 * logical tensor seen as (outer, dim, inner) around the split dim of interest. */
typedef struct fast_ctx {
    const ct_global *x;
    const ct_placement *pl;
    const ct_sbp *sbp;
    int64_t n, pid;
    int64_t outer, dimlen, inner; /* around split dim d */
    int64_t *begin, *len;         /* balanced parts of dimlen, n entries */
} fast_ctx;

static ct_status out_alloc(const fast_ctx *c, ct_tensor **out) {
    ct_box box;
    ct_dist_impl_local_box(c->x->sizes, c->x->ndim, c->pl, c->sbp, c->pid, &box);
    return ct_dist_impl_global_alloc_local(&box, c->x->dtype, c->pl, out);
}

static ct_status full_alloc(const fast_ctx *c, ct_tensor **out) {
    ct_sbp b[1] = {ct_sbp_broadcast()};
    ct_box box;
    ct_dist_impl_local_box(c->x->sizes, c->x->ndim, c->pl, b, c->pid, &box);
    return ct_dist_impl_global_alloc_local(&box, c->x->dtype, c->pl, out);
}

/* The receive type of rank r's block in the full (outer, dimlen, inner) output of a split
 * along a middle dim: a subarray, so MPI unpacks straight into place. MPI_BYTE with count 0
 * for an empty block (subarrays need sizes >= 1). */
static ct_status block_type(const fast_ctx *c, int64_t r, MPI_Datatype elem, MPI_Datatype *type,
                            int *count) {
    *type = MPI_BYTE;
    *count = 0;
    if (c->outer == 0 || c->len[r] == 0 || c->inner == 0)
        return CT_OK;
    int sizes[3] = {(int)c->outer, (int)c->dimlen, (int)c->inner};
    int sub[3] = {(int)c->outer, (int)c->len[r], (int)c->inner};
    int starts[3] = {0, (int)c->begin[r], 0};
    ct_status st = ct_dist_impl_mpi_check(
        MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, elem, type),
        "MPI_Type_create_subarray");
    if (st == CT_OK)
        st = ct_dist_impl_mpi_check(MPI_Type_commit(type), "MPI_Type_commit");
    if (st != CT_OK) {
        *type = MPI_BYTE;
        return st;
    }
    *count = 1;
    return CT_OK;
}

/* Tensors of at least this many bytes copy with streaming stores (Note [Streamed window
 * copies], shm.c). */
#define SHM_STREAM_BYTES ((size_t)4 << 20)

/* S(d) -> B through a shared-memory window (all ranks on one node): each rank copies its
 * shard into its slot once and, row by row while the rows are in cache, its own block into
 * its output (shm_fill); after the all-ready collective each rank copies the other blocks,
 * row by row, from the slots straight into place (shm_gather). That reads and writes about
 * what MPI_Allgatherv's single copy does (plus the shard's write into the slot), where MPI
 * receiving into strided memory through datatypes copies twice. Large outputs are written
 * with streaming stores, the slot with regular ones (the peers read it next). */
static ct_status shm_fill(const fast_ctx *c, const ct_shm_window *w, char *slot, const char *mine,
                          char *full, size_t isz) {
    size_t row = (size_t)c->inner * isz; /* bytes of one index of the split dim */
    size_t seg = (size_t)c->len[c->pid] * row;
    bool stream = (size_t)(c->outer * c->dimlen) * row >= SHM_STREAM_BYTES;
    for (int64_t o = 0; seg > 0 && o < c->outer; o++) {
        const char *from = mine + (size_t)o * seg;
        char *to = full + (size_t)(o * c->dimlen + c->begin[c->pid]) * row;
        memcpy(slot + (size_t)o * seg, from, seg); /* regular stores: the peers read it next */
        if (stream)
            ct_dist_impl_shm_copy_stream(to, from, seg);
        else
            memcpy(to, from, seg);
    }
    if (stream)
        ct_dist_impl_shm_stream_fence(); /* order the output's stores */
    return ct_dist_impl_shm_sync(w);
}

static ct_status shm_gather(const fast_ctx *c, const ct_shm_window *w, char *const *slots,
                            char *full, size_t isz) {
    ct_status st = ct_dist_impl_shm_sync(w);
    if (st != CT_OK)
        return st;
    size_t row = (size_t)c->inner * isz;
    bool stream = (size_t)(c->outer * c->dimlen) * row >= SHM_STREAM_BYTES;
    for (int64_t o = 0; o < c->outer; o++) {
        char *dst = full + (size_t)(o * c->dimlen) * row;
        for (int64_t r = 0; r < c->n; r++) {
            size_t seg = (size_t)c->len[r] * row;
            if (r == c->pid || seg == 0)
                continue;
            if (stream)
                ct_dist_impl_shm_copy_stream(dst + (size_t)c->begin[r] * row,
                                             slots[r] + (size_t)o * seg, seg);
            else
                memcpy(dst + (size_t)c->begin[r] * row, slots[r] + (size_t)o * seg, seg);
        }
    }
    if (stream)
        ct_dist_impl_shm_stream_fence(); /* before the output is used */
    return CT_OK;
}

/* The window of an S(d) -> B with d > 0 on n > 1 members, or NULL (shm.c): a use of it is
 * collective, so every member calls this once per such conversion, including a member
 * that has already failed locally (it then reports its failure in the all-ready collective).
 * Slots hold the largest shard, the first member's (balanced parts). */
static ct_shm_window *s_to_b_window(const ct_global *x, int64_t d, int64_t n, MPI_Comm comm) {
    int64_t outer = prod(x->sizes, 0, d), inner = prod(x->sizes, d + 1, x->ndim);
    if (outer == 1 || n < 2)
        return NULL;
    int64_t first = (x->sizes[d] + n - 1) / n;
    ct_shm_window *w = NULL;
    (void)ct_dist_impl_shm_window(
        comm, (size_t)(outer * first * inner) * ct_dtype_itemsize(x->dtype), &w);
    return w;
}

/* S(d) -> B of at least this many bytes (logical) on one node: a copy-on-write shared output
 * (shm_cow.c). Below it the window path wins: the file costs a broadcast, a file, two
 * mappings and, on first write, page copies, which small tensors do not earn back. */
#define COW_MIN_BYTES ((size_t)4 << 20)

/* Off unless CTENSOR_BOXING_COW=1 on every rank: on the VM of bench/README.md the page
 * table work of a fresh file per call (mapping, populating, unmapping: microseconds per 4 KiB
 * page) costs more than the copies it saves. */
static bool cow_enabled(void) {
    const char *s = getenv("CTENSOR_BOXING_COW");
    return s != NULL && strcmp(s, "1") == 0;
}

/* Whether S(d) -> B of x (d > 0) on n members goes through the shared copy-on-write output:
 * from metadata every member shares, then (first use, collective) the node and (agreed
 * later) whether the file works on comm. *state is that verdict's slot. */
static bool cow_wanted(const ct_global *x, int64_t d, int64_t n, MPI_Comm comm, int **state) {
    *state = NULL;
    int64_t outer = prod(x->sizes, 0, d);
    size_t bytes = (size_t)prod(x->sizes, 0, x->ndim) * ct_dtype_itemsize(x->dtype);
    ct_device dev = {.type = CT_DEVICE_CPU};
    if (outer == 1 || n < 2 || bytes < COW_MIN_BYTES || !cow_enabled() ||
        ct_placement_local_device(x->placement, &dev) != CT_OK || dev.type != CT_DEVICE_CPU)
        return false;
    return ct_dist_impl_shm_node(comm, state) && **state >= 0;
}

/* S(d) -> B into the shared copy-on-write output: each member writes its column blocks once
 * into the file every member maps (Note [Copy-on-write broadcast results]). `mine` is the
 * member's status so far: a failed member still takes part in every collective (with c's
 * block arrays possibly missing). *taken false (on every member, CT_OK) when the first use
 * on comm found that the file does not work there; the caller then takes the window path. */
static ct_status s_to_b_cow(const fast_ctx *c, MPI_Comm comm, int *state, ct_status mine,
                            ct_tensor **out, bool *taken) {
    const ct_global *x = c->x;
    *out = NULL;
    *taken = true;
    size_t isz = ct_dtype_itemsize(x->dtype);
    size_t bytes = (size_t)prod(x->sizes, 0, x->ndim) * isz;
    ct_shm_cow cow;
    ct_status st = ct_dist_impl_shm_cow_open(comm, bytes, mine == CT_OK, &cow);
    if (mine != CT_OK)
        st = mine;
    if (*state == 0) {
        /* First use on comm: agree whether the file works everywhere, else all fall back
         * (a member that failed before says nothing about the file). */
        int v = mine != CT_OK || st == CT_OK;
        if (MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
            v = 0;
        if (!v) {
            ct_dist_impl_shm_cow_close(&cow);
            *state = -1;
            *taken = false;
            return CT_OK;
        }
        *state = 1;
    }
    if (st == CT_OK) {
        size_t row = (size_t)c->inner * isz;
        size_t seg = (size_t)c->len[c->pid] * row;
        const char *mine_data = ct_tensor_data_ptr(x->local);
        for (int64_t o = 0; seg > 0 && o < c->outer; o++) {
            char *to = cow.shared + (size_t)(o * c->dimlen + c->begin[c->pid]) * row;
            ct_dist_impl_shm_copy_stream(to, mine_data + (size_t)o * seg, seg);
        }
        ct_dist_impl_shm_stream_fence(); /* before the peers map the pages */
    }
    st = ct_dist_impl_all_ready(st, comm, "boxing");
    ct_storage *storage = NULL;
    ct_device dev = {.type = CT_DEVICE_CPU};
    if (st == CT_OK)
        st = ct_placement_local_device(x->placement, &dev);
    if (st == CT_OK)
        st = ct_dist_impl_shm_cow_storage(&cow, dev, &storage);
    else
        ct_dist_impl_shm_cow_close(&cow);
    if (st == CT_OK)
        st = ct_tensor_from_storage(storage, x->sizes, NULL, x->ndim, 0, x->dtype, out);
    ct_storage_release(storage);
    return st;
}

/* S(d) -> B. d = 0 (or nothing before d): the blocks are contiguous in the output, one
 * MPI_Allgatherv. Otherwise, ranks on one node go through a shared window (shm_gather);
 * else each rank sends its whole shard to everyone and receives each block through a
 * subarray type (one MPI_Alltoallw, no staging copy). */
static ct_status do_s_to_b(const fast_ctx *c, MPI_Comm comm, ct_tensor **out) {
    const ct_tensor *src = c->x->local;
    bool direct = c->outer == 1;
    int64_t n = c->n;
    size_t isz = ct_dtype_itemsize(c->x->dtype);
    int *cow_state = NULL;
    if (cow_wanted(c->x, c->x->sbp[0].dim, n, comm, &cow_state)) {
        bool taken = false;
        ct_status st = s_to_b_cow(c, comm, cow_state, CT_OK, out, &taken);
        if (taken)
            return st;
    }
    /* Decided from metadata every member shares: all take the same path. */
    ct_shm_window *win = s_to_b_window(c->x, c->x->sbp[0].dim, n, comm);
    bool shm = win != NULL;
    ct_tensor *full = NULL;
    int *ints = ct_dist_impl_alloc((size_t)n * 5 * sizeof(int));
    MPI_Datatype *types =
        direct || shm ? NULL : ct_dist_impl_alloc((size_t)n * 2 * sizeof(MPI_Datatype));
    char **slots = shm ? ct_dist_impl_alloc((size_t)n * sizeof(char *)) : NULL;
    MPI_Datatype elem = MPI_DATATYPE_NULL, row = MPI_DATATYPE_NULL;
    ct_status st = ints && (direct || types || slots)
                       ? CT_OK
                       : ct_set_error(CT_ERR_NOMEM, "boxing: out of memory");
    for (int64_t r = 0; types && r < 2 * n; r++)
        types[r] = MPI_BYTE;
    for (int64_t r = 0; st == CT_OK && shm && r < n; r++) {
        slots[r] = ct_dist_impl_shm_slot(win, (int)r);
        if (slots[r] == NULL)
            st = ct_set_error(CT_ERR_RUNTIME, "boxing: MPI_Win_shared_query failed");
    }
    if (st == CT_OK)
        st = full_alloc(c, &full);
    if (st == CT_OK && !shm)
        st = ct_dist_impl_mpi_dtype(c->x->dtype, &elem);
    if (st == CT_OK && !shm) {
        st = ct_dist_impl_mpi_check(MPI_Type_contiguous((int)c->inner, elem, &row),
                                    "MPI_Type_contiguous");
        if (st == CT_OK)
            st = ct_dist_impl_mpi_check(MPI_Type_commit(&row), "MPI_Type_commit");
    }
    int *counts = ints, *displs = ints ? ints + n : NULL, *rcounts = ints ? ints + 2 * n : NULL;
    int *sdispls = ints ? ints + 3 * n : NULL, *rdispls = ints ? ints + 4 * n : NULL;
    for (int64_t r = 0; st == CT_OK && types && r < n; r++) {
        types[r] = row; /* send: the whole shard, as rows */
        counts[r] = (int)(c->outer * c->len[c->pid]);
        sdispls[r] = rdispls[r] = 0;
        st = block_type(c, r, elem, &types[n + r], &rcounts[r]);
    }
    if (st == CT_OK && shm)
        st =
            shm_fill(c, win, slots[c->pid], ct_tensor_data_ptr(src), ct_tensor_data_ptr(full), isz);
    st = ct_dist_impl_all_ready(st, comm, "boxing");
    if (st == CT_OK && shm) {
        st = shm_gather(c, win, slots, ct_tensor_data_ptr(full), isz);
    } else if (st == CT_OK && direct) {
        for (int64_t r = 0; r < n; r++) {
            counts[r] = (int)(c->outer * c->len[r]);
            displs[r] = (int)(c->outer * c->begin[r]);
        }
        st = ct_dist_impl_mpi_check(MPI_Allgatherv(ct_tensor_data_ptr(src), counts[c->pid], row,
                                                   ct_tensor_data_ptr(full), counts, displs, row,
                                                   comm),
                                    "MPI_Allgatherv");
    } else if (st == CT_OK) {
        st = ct_dist_impl_mpi_check(MPI_Alltoallw(ct_tensor_data_ptr(src), counts, sdispls, types,
                                                  ct_tensor_data_ptr(full), rcounts, rdispls,
                                                  types + n, comm),
                                    "MPI_Alltoallw");
    }
    for (int64_t r = 0; types && r < n; r++)
        if (types[n + r] != MPI_BYTE)
            MPI_Type_free(&types[n + r]);
    if (row != MPI_DATATYPE_NULL)
        MPI_Type_free(&row);
    ct_dist_impl_free(types);
    ct_dist_impl_free(slots);
    ct_dist_impl_free(ints);
    if (st != CT_OK) {
        ct_tensor_release(full);
        return st;
    }
    *out = full;
    return CT_OK;
}

ct_status ct_dist_impl_boxing_reduce_scatter_dim(const ct_tensor *local, int64_t dim, MPI_Comm comm,
                                                 ct_tensor **out) {
    *out = NULL;
    int size = 1, rank = 0;
    ct_status st = ct_dist_impl_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (st == CT_OK)
        st = ct_dist_impl_mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    if (st != CT_OK)
        return st;
    const int64_t *sizes = ct_tensor_sizes(local);
    int64_t ndim = ct_tensor_dim(local);
    int64_t outer = prod(sizes, 0, dim), dimlen = sizes[dim], inner = prod(sizes, dim + 1, ndim);
    bool direct = outer == 1; /* blocks are already contiguous in rank order */
    ct_tensor *part = NULL, *temp = NULL;
    int64_t *blocks = ct_dist_impl_alloc((size_t)size * 4 * sizeof(int64_t));
    if (blocks == NULL)
        st = ct_set_error(CT_ERR_NOMEM, "boxing: out of memory");
    int64_t *begin = blocks, *len = blocks ? blocks + size : NULL;
    int64_t *offsets = blocks ? blocks + 2 * size : NULL, *counts = blocks ? blocks + 3 * size : NULL;
    for (int r = 0; st == CT_OK && r < size; r++) {
        ct_dist_impl_balanced_part(dimlen, size, r, &begin[r], &len[r]);
        offsets[r] = outer * begin[r] * inner;
        counts[r] = outer * len[r] * inner;
    }
    if (st == CT_OK) {
        int64_t psizes[CT_MAX_DIMS];
        for (int64_t d = 0; d < ndim; d++)
            psizes[d] = d == dim ? len[rank] : sizes[d];
        ct_device dev = ct_tensor_device(local);
        st = ct_tensor_empty(psizes, ndim, ct_tensor_dtype(local), &dev, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &part);
    }
    if (st == CT_OK && !direct)
        st = temp_like(local, outer * dimlen * inner, &temp);
    /* Pack so that block r (all outer rows, the slice of rank r) is contiguous: the
     * received block is then already in S(dim) layout. */
    for (int r = 0; st == CT_OK && !direct && r < size; r++)
        st = copy_block(temp, outer * begin[r] * inner, len[r] * inner, local, begin[r] * inner,
                        dimlen * inner, outer, len[r], inner);
    st = ct_dist_impl_all_ready(st, comm, "boxing");
    if (st == CT_OK)
        st = ct_dist_impl_reduce_scatter(direct ? local : temp, offsets, counts, part, comm);
    ct_dist_impl_free(blocks);
    ct_tensor_release(temp);
    if (st != CT_OK) {
        ct_tensor_release(part);
        return st;
    }
    *out = part;
    return CT_OK;
}

/* The local cases: no communication at all. */
static ct_status do_local(fast_kind kind, const fast_ctx *c, ct_tensor **out) {
    const ct_tensor *src = c->x->local;
    ct_tensor *res = NULL;
    ct_status st = CT_OK;
    switch (kind) {
    case FAST_SAME:
        st = ct_tensor_clone(src, CT_MEMFMT_CONTIGUOUS, &res);
        break;
    case FAST_B_TO_S:
        st = out_alloc(c, &res);
        if (st == CT_OK)
            st = copy_block(res, 0, c->len[c->pid] * c->inner, src, c->begin[c->pid] * c->inner,
                            c->dimlen * c->inner, c->outer, c->len[c->pid], c->inner);
        break;
    case FAST_B_TO_P:
        /* OneFlow's symmetric B -> P: parallel id 0 keeps the data. */
        if (c->pid == 0) {
            st = ct_tensor_clone(src, CT_MEMFMT_CONTIGUOUS, &res);
        } else {
            st = out_alloc(c, &res);
            if (st == CT_OK)
                st = ct_tensor_zero_(res);
        }
        break;
    case FAST_S_TO_P:
        /* Zeros of the full shape with the own shard at its offset. */
        st = out_alloc(c, &res);
        if (st == CT_OK)
            st = ct_tensor_zero_(res);
        if (st == CT_OK)
            st = copy_block(res, c->begin[c->pid] * c->inner, c->dimlen * c->inner, src, 0,
                            c->len[c->pid] * c->inner, c->outer, c->len[c->pid], c->inner);
        break;
    default:
        st = ct_set_error(CT_ERR_RUNTIME, "boxing: internal error (fast path %d)", (int)kind);
        break;
    }
    if (st != CT_OK) {
        ct_tensor_release(res);
        return st;
    }
    *out = res;
    return CT_OK;
}

static ct_status run_member(fast_kind kind, const fast_ctx *c, ct_tensor **out) {
    if (kind != FAST_S_TO_B && kind != FAST_P_TO_B && kind != FAST_P_TO_S)
        return do_local(kind, c, out);
    MPI_Comm comm = MPI_COMM_NULL;
    ct_status st = ct_dist_impl_comm_for_placement(c->pl, &comm);
    if (st != CT_OK)
        return st; /* comm creation is collective and fails alike on every member */
    if (kind == FAST_S_TO_B)
        return do_s_to_b(c, comm, out);
    if (kind == FAST_P_TO_S)
        return ct_dist_impl_boxing_reduce_scatter_dim(c->x->local, c->sbp[0].dim, comm, out);
    ct_tensor *sum = NULL;
    st = ct_tensor_clone(c->x->local, CT_MEMFMT_CONTIGUOUS, &sum);
    st = ct_dist_impl_all_ready(st, comm, "boxing");
    if (st == CT_OK)
        st = ct_dist_impl_reduce_allreduce(sum, comm);
    if (st != CT_OK) {
        ct_tensor_release(sum);
        return st;
    }
    *out = sum;
    return CT_OK;
}

ct_status ct_dist_impl_boxing_fast(const ct_global *x, const ct_placement *placement,
                                   const ct_sbp *sbp, ct_global **out, bool *done) {
    if (done == NULL || out == NULL || x == NULL || placement == NULL || sbp == NULL)
        return ct_set_error(CT_ERR_MISUSE, "boxing: NULL argument");
    *done = false;
    *out = NULL;
    const ct_placement *pl = x->placement;
    if (pl->ndim != 1 || !ct_placement_equal(pl, placement))
        return CT_OK;
    if (prod(x->sizes, 0, x->ndim) == 0)
        return CT_OK; /* zero-size: the generic path builds the metadata */
    ct_sbp a = x->sbp[0], b = sbp[0];
    fast_kind kind = classify(x, a, b);
    if (kind == FAST_NONE)
        return CT_OK;
    if ((a.kind == CT_SBP_PARTIAL_SUM) != (b.kind == CT_SBP_PARTIAL_SUM)) {
        ct_status st = ct_dist_impl_reduce_check_dtype(x->dtype);
        if (st != CT_OK)
            return st;
    }

    fast_ctx c = {
        .x = x, .pl = pl, .sbp = sbp, .n = pl->n, .pid = ct_dist_impl_placement_my_pid(pl)};
    ct_tensor *local = NULL;
    ct_status st = CT_OK;
    if (c.pid < 0) {
        st = ct_dist_impl_global_empty_local(x->dtype, x->ndim, &local);
    } else {
        int64_t d = a.kind == CT_SBP_SPLIT ? a.dim : (b.kind == CT_SBP_SPLIT ? b.dim : -1);
        c.outer = d < 0 ? 1 : prod(x->sizes, 0, d);
        c.dimlen = d < 0 ? 1 : x->sizes[d];
        c.inner = d < 0 ? prod(x->sizes, 0, x->ndim) : prod(x->sizes, d + 1, x->ndim);
        c.begin = ct_dist_impl_alloc((size_t)c.n * 2 * sizeof(int64_t));
        if (c.begin == NULL) {
            st = ct_set_error(CT_ERR_NOMEM, "boxing: out of memory");
            /* still take part in the collective, reporting the failure */
            MPI_Comm comm = MPI_COMM_NULL;
            if ((kind == FAST_S_TO_B || kind == FAST_P_TO_B || kind == FAST_P_TO_S) &&
                ct_dist_impl_comm_for_placement(pl, &comm) == CT_OK) {
                int *cow_state = NULL;
                bool taken = false;
                ct_tensor *none = NULL;
                if (kind == FAST_S_TO_B && cow_wanted(x, a.dim, c.n, comm, &cow_state))
                    (void)s_to_b_cow(&c, comm, cow_state, st, &none, &taken); /* theirs */
                if (taken)
                    return st;
                if (kind == FAST_S_TO_B)
                    (void)s_to_b_window(x, a.dim, c.n, comm); /* the others' window use */
                (void)ct_dist_impl_all_ready(st, comm, "boxing");
            }
            return st;
        }
        c.len = c.begin + c.n;
        for (int64_t r = 0; r < c.n; r++)
            ct_dist_impl_balanced_part(c.dimlen, c.n, r, &c.begin[r], &c.len[r]);
        st = run_member(kind, &c, &local);
        ct_dist_impl_free(c.begin);
    }
    if (st != CT_OK) {
        ct_tensor_release(local);
        return st;
    }
    *done = true;
    return ct_dist_impl_global_make(x->dtype, x->sizes, x->ndim, placement, sbp, local, out);
}
