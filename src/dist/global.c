/* global.c: the ct_global object and its accessors, to_local, from_local, the factories,
 * the public to_global wrapper (agreement and checks around ct_dist_impl_boxing) and to_logical. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/warning.h"
#include "dist/dist_impl.h"

/* ---- object ---------------------------------------------------------------------------- */

ct_status ct_dist_impl_global_make(ct_dtype dtype, const int64_t *sizes, int64_t ndim,
                                   const ct_placement *placement, const ct_sbp *sbp,
                                   ct_tensor *local, ct_global **out) {
    ct_status st = CT_OK;
    if (!out) {
        st = ct_set_error(CT_ERR_MISUSE, "global tensor assembly: out is NULL");
        goto fail;
    }
    *out = NULL;
    if (!placement || !local || (!sizes && ndim > 0) || (!sbp && placement->ndim > 0)) {
        st = ct_set_error(CT_ERR_MISUSE, "global tensor assembly: NULL argument");
        goto fail;
    }
    if (ndim < 0 || ndim > CT_MAX_DIMS || !ct_dtype_is_valid(dtype)) {
        st = ct_set_error(CT_ERR_MISUSE, "global tensor assembly: bad dtype or number of dims");
        goto fail;
    }
    ct_global *g = ct_dist_impl_calloc(1, sizeof(*g));
    if (!g) {
        st = ct_set_error(CT_ERR_NOMEM, "out of memory creating a global tensor");
        goto fail;
    }
    atomic_init(&g->refcount, 1);
    g->dtype = dtype;
    g->ndim = ndim;
    if (ndim > 0)
        memcpy(g->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
    g->placement = ct_placement_retain((ct_placement *)placement);
    /* Stored normalised, so that struct comparisons and hashes never see a stray dim. */
    for (int64_t k = 0; k < placement->ndim; k++) {
        g->sbp[k] = sbp[k];
        if (sbp[k].kind != CT_SBP_SPLIT)
            g->sbp[k].dim = -1;
    }
    g->local = local;
    *out = g;
    return CT_OK;
fail:
    ct_tensor_release(local);
    return st;
}

ct_global *ct_global_retain(ct_global *global) {
    if (global)
        atomic_fetch_add_explicit(&global->refcount, 1, memory_order_relaxed);
    return global;
}

void ct_global_release(ct_global *global) {
    if (!global)
        return;
    if (atomic_fetch_sub_explicit(&global->refcount, 1, memory_order_acq_rel) != 1)
        return;
    ct_tensor_release(global->local);
    ct_placement_release(global->placement);
    ct_dist_impl_free(global);
}

int64_t ct_global_dim(const ct_global *global) { return global ? global->ndim : 0; }
const int64_t *ct_global_sizes(const ct_global *global) { return global ? global->sizes : NULL; }

int64_t ct_global_numel(const ct_global *global) {
    if (!global)
        return 0;
    int64_t n = 1;
    for (int64_t d = 0; d < global->ndim; d++)
        n *= global->sizes[d];
    return n;
}

ct_dtype ct_global_dtype(const ct_global *global) {
    return global ? global->dtype : CT_DTYPE_UNDEFINED;
}
const ct_placement *ct_global_placement(const ct_global *global) {
    return global ? global->placement : NULL;
}
const ct_sbp *ct_global_sbp(const ct_global *global) { return global ? global->sbp : NULL; }
const ct_tensor *ct_global_local(const ct_global *global) { return global ? global->local : NULL; }

ct_status ct_dist_impl_global_empty_local(ct_dtype dtype, int64_t ndim, ct_tensor **out) {
    int64_t zeros[CT_MAX_DIMS] = {0};
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    if (ndim < 0 || ndim > CT_MAX_DIMS) {
        *out = NULL;
        return ct_set_error(CT_ERR_MISUSE, "empty local component: bad number of dims");
    }
    /* ndim 0 cannot have a zero size: a non-member then holds one zero element. */
    if (ndim == 0)
        return ct_tensor_zeros(NULL, 0, dtype, &cpu, CT_LAYOUT_STRIDED, out);
    return ct_tensor_empty(zeros, ndim, dtype, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, out);
}

ct_status ct_dist_impl_global_alloc_local(const ct_box *box, ct_dtype dtype,
                                          const ct_placement *placement, ct_tensor **out) {
    ct_device dev;
    ct_status st = ct_placement_local_device(placement, &dev);
    if (st != CT_OK) {
        *out = NULL;
        return st;
    }
    return ct_tensor_empty(box->len, box->ndim, dtype, &dev, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, out);
}

ct_status ct_global_to_local(const ct_global *global, unsigned flags, ct_tensor **out) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "ct_global_to_local: out is NULL");
    *out = NULL;
    if (!global)
        return ct_set_error(CT_ERR_MISUSE, "ct_global_to_local: global is NULL");
    if (flags & CT_GLOBAL_COPY)
        return ct_tensor_clone(global->local, CT_MEMFMT_CONTIGUOUS, out);
    *out = ct_tensor_retain(global->local);
    return CT_OK;
}

/* ---- helpers shared by the collective functions ------------------------------------------ */

void ct_dist_impl_global_fmt_shape(char *buf, size_t cap, const int64_t *v, int64_t n) {
    ct_sb s;
    ct_sb_init_buf(&s, buf, cap);
    ct_sb_puts(&s, "[");
    for (int64_t i = 0; i < n; i++)
        ct_sb_appendf(&s, i ? ", %lld" : "%lld", (long long)v[i]);
    ct_sb_puts(&s, "]");
}

/* `what` of an agreement record: "op(placement=..., sbp=(S(0)))", cut to fit. */
void ct_dist_impl_global_describe(ct_agree_record *rec, const char *op, const ct_placement *p,
                                  const ct_sbp *sbp, int64_t n) {
    char sb[128];
    ct_nd_sbp_format_short(sbp, n, sb, sizeof(sb));
    ct_dist_impl_agree_set_op(rec, op);
    rec->placement = p->hash;
    ct_sb s;
    ct_sb_init_buf(&s, rec->what, sizeof(rec->what));
    ct_sb_appendf(&s, "%s(placement=", op);
    ct_dist_impl_placement_append(&s, p, NULL);
    ct_sb_appendf(&s, ", sbp=%s)", sb);
}

uint64_t ct_dist_impl_global_hash_args(const char *op, const ct_placement *p, const ct_sbp *sbp,
                                       int64_t n) {
    uint64_t h = ct_hash_str(0, op);
    uint64_t ph = p->hash;
    h = ct_hash_bytes(h, &ph, sizeof(ph));
    return ct_dist_impl_hash_nd_sbp(h, sbp, n);
}

/* The argument checks every rank can make alone and identically (before any collective). */
ct_status ct_dist_impl_global_check_sbp_arg(const ct_sbp *sbp, int64_t n_sbp,
                                            const ct_placement *placement, const char *fn) {
    if (!placement || (!sbp && n_sbp > 0))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    if (n_sbp < 0 || n_sbp > CT_PLACEMENT_MAX_NDIM || n_sbp != placement->ndim)
        return ct_set_error(CT_ERR_VALUE,
                            "The number of sbp (%lld) must match the number of placement "
                            "hierarchy dims (%lld)",
                            (long long)n_sbp, (long long)placement->ndim);
    return CT_OK;
}

/* This rank's tensor in its agreement record: dtype and shape for every rank to see. */
static void record_tensor(ct_agree_record *r, const ct_tensor *t) {
    r->has_local = 1;
    r->dtype = (int32_t)ct_tensor_dtype(t);
    r->ndim = ct_tensor_dim(t);
    memcpy(r->sizes, ct_tensor_sizes(t), sizeof(int64_t) * (size_t)r->ndim);
}

/* Run the agreement; on success *all holds every rank's record (caller frees). */
ct_status ct_dist_impl_global_agree(const ct_agree_record *mine, ct_agree_record **all) {
    *all = ct_dist_impl_alloc(sizeof(ct_agree_record) * (size_t)ct_dist_impl_size());
    if (!*all)
        return ct_dist_impl_agree_nomem(mine); /* the others wait for this rank's record */
    ct_status st = ct_dist_impl_agree(mine, *all);
    if (st != CT_OK) {
        ct_dist_impl_free(*all);
        *all = NULL;
    }
    return st;
}

/* MPI_Bcast of a contiguous tensor's data, in chunks that fit MPI's int counts. */
static ct_status bcast_tensor(ct_tensor *t, int root, MPI_Comm comm) {
    int64_t count = ct_tensor_numel(t);
    if (count == 0)
        return CT_OK;
    MPI_Datatype type;
    ct_status st = ct_dist_impl_mpi_dtype(ct_tensor_dtype(t), &type);
    size_t item = ct_tensor_element_size(t);
    char *p = ct_tensor_data_ptr(t);
    const int64_t chunk = (int64_t)1 << 30;
    for (int64_t done = 0; st == CT_OK && done < count; done += chunk) {
        int64_t c = count - done < chunk ? count - done : chunk;
        st = ct_dist_impl_mpi_check(MPI_Bcast(p + (size_t)done * item, (int)c, type, root, comm),
                                    "MPI_Bcast");
    }
    return st;
}

bool ct_dist_impl_global_on_partial_copy(const ct_placement *p, const ct_sbp *sbp, int64_t pid) {
    int64_t coords[CT_PLACEMENT_MAX_NDIM];
    ct_dist_impl_placement_coords(p, pid, coords);
    for (int64_t k = 0; k < p->ndim; k++)
        if (sbp[k].kind == CT_SBP_PARTIAL_SUM && coords[k] != 0)
            return true;
    return false;
}

/* ---- local -> global ----------------------------------------------------------------------- */

/* Contiguous, on the placement's local device; shares memory with `local` when possible and
 * COPY was not asked for. */
static ct_status prepare_local(const ct_tensor *local, const ct_placement *placement,
                               unsigned flags, ct_tensor **out) {
    ct_device dev;
    ct_status st = ct_placement_local_device(placement, &dev);
    if (st != CT_OK)
        return st;
    if (ct_device_equal(ct_tensor_device(local), dev)) {
        if (flags & CT_GLOBAL_COPY)
            return ct_tensor_clone(local, CT_MEMFMT_CONTIGUOUS, out);
        return ct_tensor_contiguous(local, CT_MEMFMT_CONTIGUOUS, out);
    }
    ct_tensor *moved = NULL;
    st = ct_tensor_to_device(local, dev, &moved);
    if (st != CT_OK)
        return st;
    st = ct_tensor_contiguous(moved, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(moved);
    return st;
}

static ct_status err_split_sizes(int64_t d, int64_t expected, int64_t got, int64_t rank) {
    return ct_set_error(CT_ERR_RUNTIME,
                        "Sizes of tensors must match except in dimension %lld. Expected size "
                        "%lld but got size %lld for tensor on rank %lld!",
                        (long long)d, (long long)expected, (long long)got, (long long)rank);
}

/* to_global's check_meta: merge the members' shapes axis by axis from the last hierarchy axis to
 * the first; shapes[pid] holds member pid's sizes and ends with the logical shape in shapes[0]. */
static ct_status merge_shapes(int64_t *shapes, int64_t ndim, const ct_placement *p,
                              const ct_sbp *sbp) {
    int64_t stride = 1;
    for (int64_t k = p->ndim - 1; k >= 0; k--) {
        int64_t h = p->hierarchy[k];
        /* Group leaders: coordinate 0 on axes k.. (their rows already hold merged groups). */
        for (int64_t lead = 0; lead < p->n; lead += stride * h) {
            int64_t *first = shapes + lead * ndim;
            int64_t split = sbp[k].kind == CT_SBP_SPLIT ? sbp[k].dim : -1, total = 0;
            for (int64_t c = 0; c < h; c++) {
                int64_t pid = lead + c * stride, *s = shapes + pid * ndim;
                for (int64_t e = 0; e < ndim; e++) {
                    if (e == split || s[e] == first[e])
                        continue;
                    if (split >= 0)
                        return err_split_sizes(split, first[e], s[e], p->ranks[pid]);
                    return ct_set_error(CT_ERR_RUNTIME,
                                        "Sizes of tensors must match for sbp %s. Expected size "
                                        "%lld but got size %lld in dimension %lld for tensor on "
                                        "rank %lld!",
                                        sbp[k].kind == CT_SBP_BROADCAST ? "B" : "P",
                                        (long long)first[e], (long long)s[e], (long long)e,
                                        (long long)p->ranks[pid]);
                }
                if (split >= 0)
                    total += s[split];
            }
            if (split < 0)
                continue;
            for (int64_t c = 0; c < h; c++) {
                int64_t b, l;
                ct_dist_impl_balanced_part(total, h, c, &b, &l);
                if (shapes[(lead + c * stride) * ndim + split] != l)
                    return ct_set_error(
                        CT_ERR_RUNTIME,
                        "Sizes of tensors in dimension %lld must be same or match balanced "
                        "split distribution. See https://github.com/Oneflow-Inc/oneflow/blob/"
                        "master/oneflow/core/common/balanced_splitter.h for details of "
                        "balanced split",
                        (long long)split);
            }
            first[split] = total;
        }
        stride *= h;
    }
    return CT_OK;
}

/* The logical shape and dtype from every member's record, decided identically on every rank
 * (members and not). The final check (each member's shape is its box of the result) keeps a
 * malformed tensor from ever existing, also without CT_GLOBAL_CHECK_META. */
static ct_status logical_from_records(const ct_agree_record *all, const ct_placement *p,
                                      const ct_sbp *sbp, int64_t *shapes, ct_dtype *dtype,
                                      int64_t *ndim, int64_t *sizes) {
    for (int64_t pid = 0; pid < p->n; pid++)
        if (all[p->ranks[pid]].has_local == 0)
            return ct_set_error(CT_ERR_MISUSE,
                                "to_global: rank %lld is in the placement but passed no local "
                                "tensor",
                                (long long)p->ranks[pid]);
    const ct_agree_record *f = &all[p->ranks[0]];
    ct_status st = ct_dist_impl_nd_sbp_check(sbp, p->ndim, p, f->ndim);
    if (st != CT_OK)
        return st;
    for (int64_t pid = 1; pid < p->n; pid++) {
        const ct_agree_record *r = &all[p->ranks[pid]];
        if (r->dtype != f->dtype)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected all tensors on each rank to be the same dtype, but "
                                "found at least two dtypes, ctensor.%s(rank %lld) and "
                                "ctensor.%s(rank %lld)!",
                                ct_dtype_name((ct_dtype)f->dtype), (long long)p->ranks[0],
                                ct_dtype_name((ct_dtype)r->dtype), (long long)p->ranks[pid]);
    }
    for (int64_t pid = 1; pid < p->n; pid++) {
        const ct_agree_record *r = &all[p->ranks[pid]];
        if (r->ndim != f->ndim)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected all tensors on each rank to have the same number of "
                                "dimensions, but found %lld(rank %lld) and %lld(rank %lld)!",
                                (long long)f->ndim, (long long)p->ranks[0], (long long)r->ndim,
                                (long long)p->ranks[pid]);
    }
    int64_t nd = f->ndim;
    if (shapes) { /* check_meta: p->n * CT_MAX_DIMS entries */
        for (int64_t pid = 0; pid < p->n; pid++)
            memcpy(shapes + pid * nd, all[p->ranks[pid]].sizes, sizeof(int64_t) * (size_t)nd);
        st = merge_shapes(shapes, nd, p, sbp);
        if (st == CT_OK)
            memcpy(sizes, shapes, sizeof(int64_t) * (size_t)nd);
        if (st != CT_OK)
            return st;
    } else {
        /* OneFlow's GetLogicalShape: assume equal parts. */
        memcpy(sizes, f->sizes, sizeof(int64_t) * (size_t)nd);
        for (int64_t k = 0; k < p->ndim; k++)
            if (sbp[k].kind == CT_SBP_SPLIT)
                sizes[sbp[k].dim] *= p->hierarchy[k];
    }
    for (int64_t pid = 0; pid < p->n; pid++) {
        ct_box box;
        ct_dist_impl_local_box(sizes, nd, p, sbp, pid, &box);
        const ct_agree_record *r = &all[p->ranks[pid]];
        if (memcmp(box.len, r->sizes, sizeof(int64_t) * (size_t)nd) != 0) {
            char want[128], got[128], logical[128], sb[64];
            ct_dist_impl_global_fmt_shape(want, sizeof(want), box.len, nd);
            ct_dist_impl_global_fmt_shape(got, sizeof(got), r->sizes, nd);
            ct_dist_impl_global_fmt_shape(logical, sizeof(logical), sizes, nd);
            ct_nd_sbp_format_short(sbp, p->ndim, sb, sizeof(sb));
            return ct_set_error(CT_ERR_RUNTIME,
                                "The local tensors do not form a global tensor of shape %s with "
                                "sbp %s: rank %lld holds %s but its part is %s (without "
                                "check_meta every part must be the same size)",
                                logical, sb, (long long)p->ranks[pid], got, want);
        }
    }
    *dtype = (ct_dtype)f->dtype;
    *ndim = nd;
    return CT_OK;
}

static atomic_bool g_warned_overwrite;

/* Broadcast axes: every member takes the data of coordinate 0 of its group, axis by axis. */
static ct_status sync_broadcast(ct_tensor *local, bool shares_input, const ct_placement *p,
                                const ct_sbp *sbp, int64_t pid) {
    int64_t coords[CT_PLACEMENT_MAX_NDIM];
    ct_dist_impl_placement_coords(p, pid, coords);
    for (int64_t k = 0; k < p->ndim; k++) {
        if (sbp[k].kind != CT_SBP_BROADCAST || p->hierarchy[k] == 1)
            continue;
        if (shares_input && coords[k] != 0 && !atomic_exchange(&g_warned_overwrite, true))
            ct_warn("to_global with sbp broadcast overwrites the local tensor of every rank but "
                    "the first of its broadcast group with that rank's data; pass copy=True "
                    "(CT_GLOBAL_COPY) to keep the input unchanged");
        MPI_Comm comm;
        ct_status st = ct_dist_impl_comm_for_axis(p, k, &comm);
        if (st == CT_OK)
            st = bcast_tensor(local, 0, comm);
        if (st != CT_OK)
            return st;
    }
    return CT_OK;
}

/* sync_broadcast on a component MPI cannot read (Note [Boxing through host memory] in
 * boxing.c): the broadcasts run on a host copy, which is then written back. The members
 * agree on their copies first, so that none waits in a broadcast for a member that failed. */
static ct_status sync_broadcast_staged(ct_tensor *local, bool shares_input, const ct_placement *p,
                                       const ct_sbp *sbp, int64_t pid) {
    bool any = false;
    for (int64_t k = 0; k < p->ndim; k++)
        any |= sbp[k].kind == CT_SBP_BROADCAST && p->hierarchy[k] > 1;
    if (!any)
        return CT_OK;
    MPI_Comm comm = MPI_COMM_NULL;
    ct_status st = ct_dist_impl_comm_for_placement(p, &comm);
    if (st != CT_OK)
        return st;
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_tensor *host = NULL;
    st = ct_tensor_to(local, CT_DTYPE_UNDEFINED, &cpu, true, CT_MEMFMT_CONTIGUOUS, &host);
    st = ct_dist_impl_all_ready(st, comm, "to_global");
    if (st == CT_OK)
        st = sync_broadcast(host, shares_input, p, sbp, pid);
    if (st == CT_OK)
        st = ct_tensor_copy_(local, host);
    ct_tensor_release(host);
    return st;
}

static ct_status from_local(const ct_tensor *local, const ct_placement *placement,
                            const ct_sbp *sbp, int64_t n_sbp, unsigned flags, ct_global **out,
                            bool *agreed) {
    /* Argument errors go through the agreement too: the other ranks must not wait. */
    if (!out)
        return ct_global_fail("to_global",
                              ct_set_error(CT_ERR_MISUSE, "ct_global_from_local: out is NULL"));
    *out = NULL;
    ct_status st = ct_dist_impl_global_check_sbp_arg(sbp, n_sbp, placement, "ct_global_from_local");
    if (st != CT_OK)
        return ct_global_fail("to_global", st);
    MPI_Comm world;
    if ((st = ct_dist_impl_world(&world)) != CT_OK)
        return st;
    bool check_meta = (flags & CT_GLOBAL_CHECK_META) != 0;
    int64_t pid = ct_dist_impl_placement_my_pid(placement);
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    mine.hash = ct_dist_impl_global_hash_args("from_local", placement, sbp, n_sbp);
    mine.hash = ct_hash_bytes(mine.hash, &check_meta, sizeof(check_meta));
    ct_dist_impl_global_describe(&mine, "to_global", placement, sbp, n_sbp);
    mine.dtype = CT_DTYPE_UNDEFINED;
    ct_tensor *prepared = NULL;
    /* check_meta's work buffer is made before the agreement, so that its failure is shared. */
    int64_t *shapes = NULL;
    if (check_meta) {
        shapes = ct_dist_impl_alloc(sizeof(int64_t) * (size_t)placement->n * CT_MAX_DIMS);
        if (!shapes)
            ct_dist_impl_agree_failed(&mine,
                                      ct_set_error(CT_ERR_NOMEM, "out of memory in to_global"));
    }
    if (pid >= 0 && local && mine.has_local == 0) {
        st = prepare_local(local, placement, flags, &prepared);
        if (st != CT_OK) {
            ct_dist_impl_agree_failed(&mine, st);
        } else {
            record_tensor(&mine, prepared);
        }
    }
    ct_agree_record *all = NULL;
    ct_dtype dtype = CT_DTYPE_UNDEFINED;
    int64_t ndim = 0, sizes[CT_MAX_DIMS];
    st = ct_dist_impl_global_agree(&mine, &all);
    *agreed = st == CT_OK;
    if (st == CT_OK)
        st = logical_from_records(all, placement, sbp, shapes, &dtype, &ndim, sizes);
    ct_dist_impl_free(all);
    ct_dist_impl_free(shapes);
    if (st != CT_OK)
        goto fail;
    if (pid >= 0) {
        bool shares = !(flags & CT_GLOBAL_COPY) && ct_tensor_numel(prepared) > 0 &&
                      ct_tensor_storage(prepared) == ct_tensor_storage(local);
        st = ct_device_type_host_accessible(placement->type)
                 ? sync_broadcast(prepared, shares, placement, sbp, pid)
                 : sync_broadcast_staged(prepared, shares, placement, sbp, pid);
        if (st != CT_OK)
            goto fail;
    } else {
        st = ct_dist_impl_global_empty_local(dtype, ndim, &prepared);
        if (st != CT_OK)
            return st;
    }
    return ct_dist_impl_global_make(dtype, sizes, ndim, placement, sbp, prepared, out);
fail:
    ct_tensor_release(prepared);
    return st;
}

/* The closing step of a global operation: a rank that failed after the agreement (an
 * allocation) fails every rank, rather than leaving the others with a result it lacks or
 * waiting in a later collective. A failed agreement failed every rank already, and a rank
 * that failed its own checks took part in nothing else: no closing step then. On failure
 * *out is released. */
ct_status ct_dist_impl_global_finish(ct_status st, bool agreed, ct_global **out, const char *what) {
    MPI_Comm world;
    if (!agreed || !out || ct_dist_impl_world(&world) != CT_OK)
        return st;
    st = ct_dist_impl_all_ready(st, world, what);
    if (st != CT_OK) {
        ct_global_release(*out);
        *out = NULL;
    }
    return st;
}

/* ---- local tensor <-> logical value ------------------------------------------------------- */

/* A contiguous cpu tensor with the data of `t` (a new reference; `t` itself when it is one). */
static ct_status to_host_contiguous(const ct_tensor *t, ct_tensor **out) {
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    if (ct_device_equal(ct_tensor_device(t), cpu))
        return ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor *moved = NULL;
    ct_status st = ct_tensor_to_device(t, cpu, &moved);
    if (st != CT_OK)
        return st;
    st = ct_tensor_contiguous(moved, CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor_release(moved);
    return st;
}

/* This member's part of the logical tensor `full` (on cpu): its box, copied to the local
 * device; zeros off coordinate 0 of partial_sum axes. */
static ct_status copy_out_box(const ct_tensor *full, const ct_placement *p, const ct_sbp *sbp,
                              int64_t pid, ct_tensor **out) {
    ct_box box;
    int64_t ndim = ct_tensor_dim(full);
    ct_dist_impl_local_box(ct_tensor_sizes(full), ndim, p, sbp, pid, &box);
    ct_status st = ct_dist_impl_global_alloc_local(&box, ct_tensor_dtype(full), p, out);
    if (st != CT_OK)
        return st;
    bool zero = ct_dist_impl_global_on_partial_copy(p, sbp, pid);
    if (zero)
        st = ct_tensor_zero_(*out);
    ct_tensor *view = ct_tensor_retain((ct_tensor *)full);
    for (int64_t d = 0; !zero && d < ndim && st == CT_OK; d++) {
        ct_tensor *next = NULL;
        st = ct_tensor_narrow(view, d, box.begin[d], box.len[d], &next);
        ct_tensor_release(view);
        view = next;
    }
    if (st == CT_OK && !zero)
        st = ct_tensor_copy_(*out, view);
    ct_tensor_release(view);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

static ct_status from_tensor(const ct_tensor *data, const ct_placement *placement,
                             const ct_sbp *sbp, int64_t n_sbp, ct_global **out, bool *agreed) {
    if (!out)
        return ct_global_fail("tensor",
                              ct_set_error(CT_ERR_MISUSE, "ct_global_from_tensor: out is NULL"));
    *out = NULL;
    ct_status st =
        ct_dist_impl_global_check_sbp_arg(sbp, n_sbp, placement, "ct_global_from_tensor");
    if (st != CT_OK)
        return ct_global_fail("tensor", st);
    MPI_Comm world;
    if ((st = ct_dist_impl_world(&world)) != CT_OK)
        return st;
    int64_t pid = ct_dist_impl_placement_my_pid(placement);
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    ct_dist_impl_global_describe(&mine, "tensor", placement, sbp, n_sbp);
    mine.hash = ct_dist_impl_global_hash_args("from_tensor", placement, sbp, n_sbp);
    ct_tensor *full = NULL;
    if (pid == 0) {
        if (!data)
            st = ct_set_error(CT_ERR_MISUSE,
                              "ct_global_from_tensor: the first rank of the placement must pass "
                              "the data");
        else
            st = to_host_contiguous(data, &full);
        if (st != CT_OK) {
            ct_dist_impl_agree_failed(&mine, st);
        } else {
            record_tensor(&mine, full);
        }
    }
    ct_agree_record *all = NULL;
    st = ct_dist_impl_global_agree(&mine, &all);
    *agreed = st == CT_OK;
    ct_agree_record meta;
    if (st == CT_OK) {
        meta = all[placement->ranks[0]];
        st = ct_dist_impl_nd_sbp_check(sbp, n_sbp, placement, meta.ndim);
    }
    ct_dist_impl_free(all);
    if (st != CT_OK)
        goto done;
    ct_dtype dtype = (ct_dtype)meta.dtype;
    ct_tensor *local = NULL;
    if (pid < 0) {
        st = ct_dist_impl_global_empty_local(dtype, meta.ndim, &local);
    } else {
        ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        MPI_Comm comm = MPI_COMM_NULL;
        st = ct_dist_impl_comm_for_placement(placement, &comm);
        if (st == CT_OK) {
            /* A member that cannot make its buffer must not leave the others in the bcast. */
            ct_status mine_st = CT_OK;
            if (pid > 0)
                mine_st = ct_tensor_empty(meta.sizes, meta.ndim, dtype, &cpu, CT_LAYOUT_STRIDED,
                                          CT_MEMFMT_CONTIGUOUS, &full);
            st = ct_dist_impl_all_ready(mine_st, comm, "global_from_tensor");
        }
        if (st == CT_OK)
            st = bcast_tensor(full, 0, comm);
        if (st == CT_OK)
            st = copy_out_box(full, placement, sbp, pid, &local);
    }
    if (st == CT_OK)
        st = ct_dist_impl_global_make(dtype, meta.sizes, meta.ndim, placement, sbp, local, out);
done:
    ct_tensor_release(full);
    return st;
}

/* ---- global -> global, global -> logical ----------------------------------------------------- */

static ct_status to_global(const ct_global *global, const ct_placement *placement,
                           const ct_sbp *sbp, int64_t n_sbp, unsigned flags, ct_global **out,
                           bool *agreed) {
    if (!out)
        return ct_global_fail("to_global",
                              ct_set_error(CT_ERR_MISUSE, "ct_global_to_global: out is NULL"));
    *out = NULL;
    if (!global)
        return ct_global_fail("to_global",
                              ct_set_error(CT_ERR_MISUSE, "ct_global_to_global: global is NULL"));
    if (!sbp && n_sbp != 0)
        return ct_global_fail("to_global",
                              ct_set_error(CT_ERR_MISUSE,
                                           "ct_global_to_global: sbp is NULL but n_sbp is %lld",
                                           (long long)n_sbp));
    const ct_placement *tp = placement ? placement : global->placement;
    const ct_sbp *ts = sbp ? sbp : global->sbp;
    int64_t tn = sbp ? n_sbp : global->placement->ndim;
    ct_status st = ct_dist_impl_global_check_sbp_arg(ts, tn, tp, "ct_global_to_global");
    if (st != CT_OK)
        return ct_global_fail("to_global", st);
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    ct_dist_impl_global_describe(&mine, "to_global", tp, ts, tn);
    mine.placement = ct_hash_bytes(mine.placement, &global->placement->hash, sizeof(uint64_t));
    /* The input's metadata is part of the digest: ranks holding different tensors disagree. */
    uint64_t h = ct_dist_impl_global_hash_args("to_global", tp, ts, tn);
    h = ct_hash_bytes(h, &global->placement->hash, sizeof(uint64_t));
    h = ct_dist_impl_hash_nd_sbp(h, global->sbp, global->placement->ndim);
    int64_t head[2] = {(int64_t)global->dtype, global->ndim};
    h = ct_hash_bytes(h, head, sizeof(head));
    mine.hash = ct_hash_bytes(h, global->sizes, sizeof(int64_t) * (size_t)global->ndim);
    ct_agree_record *all = NULL;
    st = ct_dist_impl_global_agree(&mine, &all);
    *agreed = st == CT_OK;
    ct_dist_impl_free(all);
    if (st == CT_OK)
        st = ct_dist_impl_nd_sbp_check(ts, tn, tp, global->ndim);
    if (st != CT_OK)
        return st;
    if (ct_placement_equal(tp, global->placement) && ct_nd_sbp_equal(ts, global->sbp, tn)) {
        if (!(flags & CT_GLOBAL_COPY)) {
            *out = ct_global_retain((ct_global *)global);
            return CT_OK;
        }
        ct_tensor *copy = NULL;
        st = ct_tensor_clone(global->local, CT_MEMFMT_CONTIGUOUS, &copy);
        if (st != CT_OK)
            return st;
        return ct_dist_impl_global_make(global->dtype, global->sizes, global->ndim,
                                        global->placement, global->sbp, copy, out);
    }
    return ct_dist_impl_boxing(global, tp, ts, out);
}

/* fn: the public function called, for its misuse messages. */
static ct_status to_logical(const char *fn, const ct_global *global, const char *op,
                            ct_tensor **out, bool *agreed) {
    if (!out)
        return ct_global_fail(op, ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn));
    *out = NULL;
    if (!global)
        return ct_global_fail(op, ct_set_error(CT_ERR_MISUSE, "%s: global is NULL", fn));
    const ct_placement *p = global->placement;
    ct_sbp all_b[CT_PLACEMENT_MAX_NDIM];
    for (int64_t k = 0; k < p->ndim; k++)
        all_b[k] = ct_sbp_broadcast();
    /* Its own agreement, under its own name: a rank printing a tensor while another boxes
     * it to broadcast is a mismatch, not two halves of one collective. */
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    ct_dist_impl_global_describe(&mine, op, p, global->sbp, p->ndim);
    uint64_t h = ct_dist_impl_global_hash_args(op, p, global->sbp, p->ndim);
    int64_t head[2] = {(int64_t)global->dtype, global->ndim};
    h = ct_hash_bytes(h, head, sizeof(head));
    mine.hash = ct_hash_bytes(h, global->sizes, sizeof(int64_t) * (size_t)global->ndim);
    ct_agree_record *all = NULL;
    ct_status st = ct_dist_impl_global_agree(&mine, &all);
    *agreed = st == CT_OK;
    ct_dist_impl_free(all);
    if (st != CT_OK)
        return st;
    ct_global *y = NULL;
    if (ct_nd_sbp_equal(global->sbp, all_b, p->ndim))
        y = ct_global_retain((ct_global *)global);
    else
        st = ct_dist_impl_boxing(global, p, all_b, &y);
    /* Boxing can fail on some ranks only (an allocation): nobody goes on alone. */
    MPI_Comm world_comm = MPI_COMM_NULL;
    if (ct_dist_impl_world(&world_comm) == CT_OK)
        st = ct_dist_impl_all_ready(st, world_comm, op);
    if (st != CT_OK) {
        ct_global_release(y);
        return st;
    }
    int64_t pid = ct_dist_impl_placement_my_pid(p), world = ct_dist_impl_size();
    ct_tensor *result = NULL;
    if (pid >= 0) {
        st = to_host_contiguous(y->local, &result);
        /* Never hand out memory the global tensor still uses. */
        if (st == CT_OK && ct_tensor_storage(result) == ct_tensor_storage(global->local)) {
            ct_tensor *copy = NULL;
            st = ct_tensor_clone(result, CT_MEMFMT_CONTIGUOUS, &copy);
            ct_tensor_release(result);
            result = copy;
        }
    }
    /* Ranks outside the placement get the value from the first member. Everything that can
     * fail locally happens first; then all ranks learn whether all are ready, so that nobody
     * waits in the broadcast for a rank that failed. */
    bool sends = p->n < world && pid <= 0;
    int64_t *ranks = NULL;
    int64_t m = 0, root = 0;
    if (st == CT_OK && sends) {
        ranks = ct_dist_impl_alloc(sizeof(int64_t) * (size_t)(world - p->n + 1));
        if (!ranks)
            st = ct_set_error(CT_ERR_NOMEM, "out of memory in to_logical");
        for (int64_t r = 0; st == CT_OK && r < world; r++) {
            if (r == p->ranks[0])
                root = m;
            if (r == p->ranks[0] || !ct_placement_contains(p, r))
                ranks[m++] = r;
        }
        ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        if (st == CT_OK && pid < 0)
            st = ct_tensor_empty(global->sizes, global->ndim, global->dtype, &cpu,
                                 CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &result);
    }
    if (p->n < world)
        st = ct_dist_impl_all_ready(st, world_comm, "global_to_logical");
    if (st == CT_OK && sends) {
        MPI_Comm comm = MPI_COMM_NULL;
        st = ct_dist_impl_comm_for_ranks(ranks, m, &comm);
        if (st == CT_OK)
            st = bcast_tensor(result, (int)root, comm);
    }
    ct_dist_impl_free(ranks);
    ct_global_release(y);
    if (st != CT_OK) {
        ct_tensor_release(result);
        return st;
    }
    *out = result;
    return CT_OK;
}

/* ---- public entry points: the operation, then the closing step ------------------------------ */

ct_status ct_global_from_local(const ct_tensor *local, const ct_placement *placement,
                               const ct_sbp *sbp, int64_t n_sbp, unsigned flags, ct_global **out) {
    bool agreed = false;
    ct_status st = from_local(local, placement, sbp, n_sbp, flags, out, &agreed);
    return ct_dist_impl_global_finish(st, agreed, out, "global_from_local");
}

ct_status ct_global_from_tensor(const ct_tensor *data, const ct_placement *placement,
                                const ct_sbp *sbp, int64_t n_sbp, ct_global **out) {
    bool agreed = false;
    ct_status st = from_tensor(data, placement, sbp, n_sbp, out, &agreed);
    return ct_dist_impl_global_finish(st, agreed, out, "global_from_tensor");
}

ct_status ct_global_to_global(const ct_global *global, const ct_placement *placement,
                              const ct_sbp *sbp, int64_t n_sbp, unsigned flags, ct_global **out) {
    bool agreed = false;
    ct_status st = to_global(global, placement, sbp, n_sbp, flags, out, &agreed);
    return ct_dist_impl_global_finish(st, agreed, out, "global_to_global");
}

static ct_status logical(const char *fn, const ct_global *global, const char *op,
                         ct_tensor **out) {
    bool agreed = false;
    ct_status st = to_logical(fn, global, op && op[0] ? op : "to_logical", out, &agreed);
    MPI_Comm world;
    if (!agreed || !out || ct_dist_impl_world(&world) != CT_OK)
        return st;
    st = ct_dist_impl_all_ready(st, world, "global_to_logical");
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

ct_status ct_global_to_logical(const ct_global *global, ct_tensor **out) {
    return logical("ct_global_to_logical", global, NULL, out);
}

ct_status ct_global_to_logical_named(const ct_global *global, const char *op, ct_tensor **out) {
    return logical("ct_global_to_logical_named", global, op, out);
}
