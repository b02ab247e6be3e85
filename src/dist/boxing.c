/* boxing.c: the generic conversion of a global tensor to another placement and nd-sbp
 * (every destination copies the intersections of its box with the source boxes); see
 * dist_impl.h. 1-D same-placement cases first try the
 * collective fast paths of boxing_fast.c.
 *
 * Three steps:
 *  1. Partial sums of the input are summed to broadcast inside their hierarchy axis
 *     (ct_dist_impl_reduce_allreduce on the axis communicator) or, on the same rank layout when the
 *     output splits that axis, reduce-scattered straight to that split. When the output
 *     keeps P on the same axis of the same layout, nothing is summed: the axis is treated
 *     as B for the boxes, and data only moves between ranks with the same coordinate on it.
 *  2. S/B -> S/B redistribution by one MPI_Alltoallw over the library's world communicator.
 *     Every rank computes, from metadata alone and so identically everywhere, the box of
 *     every input and output member. Input members holding identical boxes (and the same
 *     coordinates on kept-P axes) form a replica group; for each destination, each group
 *     whose box meets the destination's box sends the intersection from one designated
 *     member: the destination itself when it belongs to the group (a local copy), else
 *     member[destination rank % group size], which spreads the load over the replicas.
 *     Send and receive types are subarrays of the contiguous local tensors, so nothing is
 *     packed. When no data crosses ranks, the copies are done locally without MPI.
 *  3. Partial sums created on the output, in OneFlow's layouts: from a 1-D split (or a
 *     one-rank input) to 1-D partial_sum, each shard goes to its own rank when that rank is
 *     in the output placement, else to output parallel id (input id % output size), in
 *     place in a tensor of zeros (OneFlow's naive-s-to-p and naive-1-to-p); otherwise the
 *     rank with coordinate 0 on such an axis keeps the data and the others hold zeros
 *     (symmetric-b-to-p after a broadcast); those ranks are not sent anything.
 *
 * SPMD discipline: every fallible local step (plan, allocations, datatypes) happens before
 * the first collective, and all ranks agree on success first, so a rank that fails alone
 * cannot leave the others waiting. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

#define MAXH CT_PLACEMENT_MAX_NDIM

typedef struct plan {
    int64_t ndim;
    const int64_t *sizes;
    const ct_placement *pin, *pout;
    int64_t hin, hout; /* hierarchy ndims */
    bool keep_p[MAXH];   /* input axis keeps its partial sum */
    bool reduce_p[MAXH]; /* input axis is summed first: to broadcast, or scattered */
    bool scatter_p[MAXH]; /* ... by a reduce-scatter to the output's split (in_eff[k]) */
    bool create_p[MAXH]; /* output axis becomes partial: coordinate != 0 holds zeros */
    bool spread;         /* 1-D S (or one rank) -> 1-D P: shards spread over the output */
    int64_t nin, nout;
    ct_box *bin, *bout;  /* box of every input / output member */
    int64_t *cin, *cout; /* coordinates, hin / hout per member */
    int64_t *group;      /* input pid -> its group's leader (smallest pid of the group) */
    int64_t *gcount;     /* leader -> number of members */
    int64_t *gstart;     /* leader -> first index in `members` */
    int64_t *members;    /* input pids ordered by group, then pid */
} plan;

static void plan_free(plan *p) {
    ct_dist_impl_free(p->bin);
    ct_dist_impl_free(p->bout);
    ct_dist_impl_free(p->cin);
    ct_dist_impl_free(p->cout);
    ct_dist_impl_free(p->group);
    ct_dist_impl_free(p->gcount);
    ct_dist_impl_free(p->gstart);
    ct_dist_impl_free(p->members);
}

static bool box_empty(const ct_box *b) {
    for (int64_t d = 0; d < b->ndim; d++)
        if (b->len[d] == 0)
            return true;
    return false; /* a 0-dim box holds one element */
}

static bool same_layout(const ct_placement *a, const ct_placement *b) {
    if (a->n != b->n || a->ndim != b->ndim)
        return false;
    for (int64_t k = 0; k < a->ndim; k++)
        if (a->hierarchy[k] != b->hierarchy[k])
            return false;
    for (int64_t i = 0; i < a->n; i++)
        if (a->ranks[i] != b->ranks[i])
            return false;
    return true;
}

/* Decide per axis what happens to partial sums (step 1 and 3). Pure. */
static void plan_axes(plan *p, const ct_sbp *in, const ct_sbp *out, ct_sbp *in_eff,
                      ct_sbp *out_eff) {
    bool layout = same_layout(p->pin, p->pout);
    for (int64_t k = 0; k < p->hin; k++) {
        bool partial = in[k].kind == CT_SBP_PARTIAL_SUM;
        p->keep_p[k] = partial && layout && out[k].kind == CT_SBP_PARTIAL_SUM;
        p->reduce_p[k] = partial && !p->keep_p[k];
        in_eff[k] = partial ? ct_sbp_broadcast() : in[k];
        /* Same layout and the output splits this axis: a reduce-scatter moves 1/h of the
         * data of an all-reduce. The result is the box of S(d) on axis k only when no later
         * input axis splits d too (boxes split axis by axis). */
        p->scatter_p[k] = false;
        if (p->reduce_p[k] && layout && out[k].kind == CT_SBP_SPLIT) {
            bool later = false;
            for (int64_t j = k + 1; j < p->hin; j++)
                later |= in[j].kind == CT_SBP_SPLIT && in[j].dim == out[k].dim;
            p->scatter_p[k] = !later;
            if (!later)
                in_eff[k] = out[k];
        }
    }
    for (int64_t k = 0; k < p->hout; k++) {
        bool partial = out[k].kind == CT_SBP_PARTIAL_SUM;
        p->create_p[k] = partial && !(k < p->hin && p->keep_p[k]);
        out_eff[k] = partial ? ct_sbp_broadcast() : out[k];
    }
    p->spread = p->hin == 1 && p->hout == 1 && p->create_p[0] &&
                (in[0].kind == CT_SBP_SPLIT || p->nin == 1);
}

/* In spread mode, the output member that receives input member i's shard: i's own rank
 * when it is in the output placement, else parallel id i % output size. */
static int64_t spread_dest(const plan *p, int64_t i) {
    int64_t q = ct_placement_parallel_id(p->pout, p->pin->ranks[i]);
    return q >= 0 ? q : i % p->nout;
}

/* Boxes, coordinates and replica groups of every member. */
static ct_status plan_members(plan *p, const ct_sbp *in_eff, const ct_sbp *out_eff) {
    int64_t nin = p->nin, nout = p->nout;
    p->bin = ct_dist_impl_alloc((size_t)nin * sizeof(ct_box));
    p->bout = ct_dist_impl_alloc((size_t)nout * sizeof(ct_box));
    p->cin = ct_dist_impl_alloc((size_t)(nin * p->hin) * sizeof(int64_t));
    p->cout = ct_dist_impl_alloc((size_t)(nout * p->hout) * sizeof(int64_t));
    p->group = ct_dist_impl_alloc((size_t)nin * sizeof(int64_t));
    p->gcount = ct_dist_impl_calloc((size_t)nin, sizeof(int64_t));
    p->gstart = ct_dist_impl_alloc((size_t)nin * sizeof(int64_t));
    p->members = ct_dist_impl_alloc((size_t)nin * sizeof(int64_t));
    if (!p->bin || !p->bout || !p->cin || !p->cout || !p->group || !p->gcount || !p->gstart ||
        !p->members)
        return ct_set_error(CT_ERR_NOMEM, "boxing: out of memory");
    for (int64_t i = 0; i < nin; i++) {
        ct_dist_impl_local_box(p->sizes, p->ndim, p->pin, in_eff, i, &p->bin[i]);
        ct_dist_impl_placement_coords(p->pin, i, p->cin + i * p->hin);
    }
    for (int64_t q = 0; q < nout; q++) {
        ct_dist_impl_local_box(p->sizes, p->ndim, p->pout, out_eff, q, &p->bout[q]);
        ct_dist_impl_placement_coords(p->pout, q, p->cout + q * p->hout);
    }
    /* Replicas: same box and same coordinates on the kept-P axes (whose data differ). */
    for (int64_t i = 0; i < nin; i++) {
        p->group[i] = i;
        for (int64_t j = 0; j < i; j++) {
            if (p->group[j] != j || !ct_dist_impl_box_equal(&p->bin[i], &p->bin[j]))
                continue;
            bool same = true;
            for (int64_t k = 0; k < p->hin; k++)
                if (p->keep_p[k] && p->cin[i * p->hin + k] != p->cin[j * p->hin + k])
                    same = false;
            if (same) {
                p->group[i] = j;
                break;
            }
        }
        p->gcount[p->group[i]]++;
    }
    int64_t at = 0;
    for (int64_t g = 0; g < nin; g++) {
        p->gstart[g] = at;
        at += p->gcount[g];
    }
    for (int64_t g = 0, k = 0; g < nin; g++)
        for (int64_t i = g; i < nin && p->gcount[g] > 0; i++)
            if (p->group[i] == g)
                p->members[k++] = i;
    return CT_OK;
}

/* Whether output member q receives data (it holds zeros when a created-P coordinate != 0). */
static bool dest_needs_data(const plan *p, int64_t q) {
    if (p->spread)
        return true; /* what it holds besides the shards it receives is zero */
    for (int64_t k = 0; k < p->hout; k++)
        if (p->create_p[k] && p->cout[q * p->hout + k] != 0)
            return false;
    return true;
}

/* Whether group leader g holds data for output member q: the kept-P coordinates match
 * (the layouts are equal then, so coordinates compare directly). */
static bool group_serves(const plan *p, int64_t g, int64_t q) {
    if (p->spread)
        return spread_dest(p, g) == q;
    for (int64_t k = 0; k < p->hin; k++)
        if (p->keep_p[k] && p->cin[g * p->hin + k] != p->cout[q * p->hout + k])
            return false;
    return true;
}

/* The world rank that sends group g's part to output member q. */
static int64_t designated_source(const plan *p, int64_t g, int64_t q) {
    int64_t dest = p->pout->ranks[q];
    if (p->spread)
        return p->pin->ranks[g]; /* a shard has one holder (equal boxes are empty ones) */
    int64_t pid = ct_placement_parallel_id(p->pin, dest);
    if (pid >= 0 && p->group[pid] == g)
        return dest;
    return p->pin->ranks[p->members[p->gstart[g] + dest % p->gcount[g]]];
}

/* Whether any transfer crosses ranks (identical on every rank). */
static bool plan_crosses(const plan *p) {
    for (int64_t q = 0; q < p->nout; q++) {
        if (!dest_needs_data(p, q))
            continue;
        for (int64_t g = 0; g < p->nin; g++) {
            if (p->group[g] != g || !group_serves(p, g, q))
                continue;
            ct_box in;
            ct_dist_impl_box_intersect(&p->bin[g], &p->bout[q], &in);
            if (!box_empty(&in) && designated_source(p, g, q) != p->pout->ranks[q])
                return true;
        }
    }
    return false;
}

/* ---- data movement -------------------------------------------------------------------- */

/* The subarray `inter` of a contiguous local tensor holding `box`. */
static ct_status make_subarray(const ct_box *box, const ct_box *inter, MPI_Datatype elem,
                               MPI_Datatype *out) {
    ct_status st;
    if (box->ndim == 0) {
        st = ct_dist_impl_mpi_check(MPI_Type_contiguous(1, elem, out), "MPI_Type_contiguous");
    } else {
        int sizes[CT_MAX_DIMS], sub[CT_MAX_DIMS], starts[CT_MAX_DIMS];
        for (int64_t d = 0; d < box->ndim; d++) {
            sizes[d] = (int)box->len[d];
            sub[d] = (int)inter->len[d];
            starts[d] = (int)(inter->begin[d] - box->begin[d]);
        }
        st = ct_dist_impl_mpi_check(
            MPI_Type_create_subarray((int)box->ndim, sizes, sub, starts, MPI_ORDER_C, elem, out),
            "MPI_Type_create_subarray");
    }
    if (st == CT_OK) {
        st = ct_dist_impl_mpi_check(MPI_Type_commit(out), "MPI_Type_commit");
        if (st != CT_OK)
            MPI_Type_free(out);
    }
    if (st != CT_OK)
        *out = MPI_DATATYPE_NULL;
    return st;
}

/* The Alltoallw arguments of this rank: one entry per world rank. */
typedef struct exchange {
    int world;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *stypes, *rtypes;
} exchange;

static void exchange_free(exchange *e) {
    if (e->stypes != NULL)
        for (int r = 0; r < e->world; r++) {
            if (e->stypes[r] != MPI_BYTE && e->stypes[r] != MPI_DATATYPE_NULL)
                MPI_Type_free(&e->stypes[r]);
            if (e->rtypes[r] != MPI_BYTE && e->rtypes[r] != MPI_DATATYPE_NULL)
                MPI_Type_free(&e->rtypes[r]);
        }
    ct_dist_impl_free(e->scounts);
    ct_dist_impl_free(e->stypes);
}

static ct_status exchange_build(const plan *p, ct_dtype dtype, int64_t me_in, int64_t me_out,
                                exchange *e) {
    int world = (int)ct_dist_impl_size();
    e->world = world;
    e->scounts = ct_dist_impl_calloc((size_t)world * 4, sizeof(int));
    e->stypes = ct_dist_impl_alloc((size_t)world * 2 * sizeof(MPI_Datatype));
    if (e->scounts == NULL || e->stypes == NULL) {
        ct_dist_impl_free(e->scounts);
        ct_dist_impl_free(e->stypes);
        e->scounts = NULL;
        e->stypes = NULL;
        return ct_set_error(CT_ERR_NOMEM, "boxing: out of memory");
    }
    e->sdispls = e->scounts + world;
    e->rcounts = e->scounts + 2 * world;
    e->rdispls = e->scounts + 3 * world;
    e->rtypes = e->stypes + world;
    for (int r = 0; r < world; r++)
        e->stypes[r] = e->rtypes[r] = MPI_BYTE; /* placeholder with count 0 */
    MPI_Datatype elem;
    ct_status st = ct_dist_impl_mpi_dtype(dtype, &elem);
    int64_t me = ct_dist_impl_my_rank();
    /* Sends: to every destination served by my group through me. */
    if (me_in >= 0) {
        int64_t g = p->group[me_in];
        for (int64_t q = 0; st == CT_OK && q < p->nout; q++) {
            if (!dest_needs_data(p, q) || !group_serves(p, g, q))
                continue;
            ct_box in;
            ct_dist_impl_box_intersect(&p->bin[g], &p->bout[q], &in);
            if (box_empty(&in) || designated_source(p, g, q) != me)
                continue;
            int r = (int)p->pout->ranks[q];
            st = make_subarray(&p->bin[me_in], &in, elem, &e->stypes[r]);
            if (st == CT_OK)
                e->scounts[r] = 1;
            else
                e->stypes[r] = MPI_BYTE;
        }
    }
    /* Receives: one part from the designated member of each group meeting my box. */
    if (me_out >= 0 && dest_needs_data(p, me_out)) {
        for (int64_t g = 0; st == CT_OK && g < p->nin; g++) {
            if (p->group[g] != g || !group_serves(p, g, me_out))
                continue;
            ct_box in;
            ct_dist_impl_box_intersect(&p->bin[g], &p->bout[me_out], &in);
            if (box_empty(&in))
                continue;
            int r = (int)designated_source(p, g, me_out);
            st = make_subarray(&p->bout[me_out], &in, elem, &e->rtypes[r]);
            if (st == CT_OK)
                e->rcounts[r] = 1;
            else
                e->rtypes[r] = MPI_BYTE;
        }
    }
    return st;
}

/* A view of the part `inter` of a local tensor holding `box`. */
static ct_status box_view(const ct_tensor *t, const ct_box *box, const ct_box *inter,
                          ct_tensor **out) {
    ct_tensor *cur = ct_tensor_retain((ct_tensor *)t);
    for (int64_t d = 0; d < box->ndim; d++) {
        ct_tensor *next = NULL;
        ct_status st = ct_tensor_narrow(cur, d, inter->begin[d] - box->begin[d], inter->len[d], &next);
        ct_tensor_release(cur);
        if (st != CT_OK)
            return st;
        cur = next;
    }
    *out = cur;
    return CT_OK;
}

/* No data crosses ranks: every destination copies from its own input. */
static ct_status copy_local(const plan *p, const ct_tensor *src, int64_t me_in, ct_tensor *dst,
                            int64_t me_out) {
    if (me_in < 0 || me_out < 0 || !dest_needs_data(p, me_out) ||
        !group_serves(p, p->group[me_in], me_out))
        return CT_OK;
    ct_box in;
    ct_dist_impl_box_intersect(&p->bin[me_in], &p->bout[me_out], &in);
    if (box_empty(&in))
        return CT_OK;
    ct_tensor *s = NULL, *d = NULL;
    ct_status st = box_view(src, &p->bin[me_in], &in, &s);
    if (st == CT_OK)
        st = box_view(dst, &p->bout[me_out], &in, &d);
    if (st == CT_OK)
        st = ct_tensor_copy_(d, s);
    ct_tensor_release(s);
    ct_tensor_release(d);
    return st;
}

/* Step 1 on this member: sum each reduced P axis inside its axis communicator (in place,
 * or replacing *cur by its scattered part). Members walk the axes in the same order, so
 * the per-axis collectives cannot cross. */
static ct_status reduce_axes(const plan *p, const ct_sbp *in_eff, ct_tensor **cur) {
    for (int64_t k = 0; k < p->hin; k++) {
        if (!p->reduce_p[k])
            continue;
        MPI_Comm comm = MPI_COMM_NULL;
        ct_status st = ct_dist_impl_comm_for_axis(p->pin, k, &comm);
        if (st == CT_OK && !p->scatter_p[k]) {
            st = ct_dist_impl_reduce_allreduce(*cur, comm);
        } else if (st == CT_OK) {
            ct_tensor *part = NULL;
            st = ct_dist_impl_boxing_reduce_scatter_dim(*cur, in_eff[k].dim, comm, &part);
            if (st == CT_OK) {
                ct_tensor_release(*cur);
                *cur = part;
            }
        }
        if (st != CT_OK)
            return st;
    }
    return CT_OK;
}

static ct_status boxing_generic(const ct_global *x, const ct_placement *pout, const ct_sbp *sbp,
                                ct_global **out) {
    plan p;
    memset(&p, 0, sizeof p);
    p.ndim = x->ndim;
    p.sizes = x->sizes;
    p.pin = x->placement;
    p.pout = pout;
    p.hin = p.pin->ndim;
    p.hout = pout->ndim;
    p.nin = p.pin->n;
    p.nout = pout->n;
    ct_sbp in_eff[MAXH], out_eff[MAXH];
    plan_axes(&p, x->sbp, sbp, in_eff, out_eff);

    bool any_reduce = false, any_create = false;
    for (int64_t k = 0; k < p.hin; k++)
        any_reduce |= p.reduce_p[k];
    for (int64_t k = 0; k < p.hout; k++)
        any_create |= p.create_p[k];
    int64_t numel = 1;
    for (int64_t d = 0; d < p.ndim; d++)
        numel *= p.sizes[d];
    /* Metadata-only checks: every rank decides alike. */
    if (any_reduce || any_create) {
        ct_status st = ct_dist_impl_reduce_check_dtype(x->dtype);
        if (st != CT_OK)
            return st;
    }
    for (int64_t d = 0; d < p.ndim && numel > 0; d++)
        if (p.sizes[d] > INT_MAX)
            return ct_set_error(CT_ERR_OVERFLOW,
                                "boxing: dimension %lld has %lld elements, more than MPI "
                                "subarrays can address (%d)",
                                (long long)d, (long long)p.sizes[d], INT_MAX);

    int64_t me_in = ct_dist_impl_placement_my_pid(p.pin),
            me_out = ct_dist_impl_placement_my_pid(pout);
    ct_tensor *cur = NULL, *res = NULL;
    exchange e;
    memset(&e, 0, sizeof e);
    MPI_Comm world = MPI_COMM_NULL;
    bool crosses = false;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return st;

    /* Prepare everything that can fail locally. */
    if (numel > 0)
        st = plan_members(&p, in_eff, out_eff);
    if (st == CT_OK && me_in >= 0) {
        /* An all-reduce sums in place: it must not touch the input, unless a scatter
         * already replaced it by a new tensor. */
        bool in_place = false;
        for (int64_t k = 0; k < p.hin && numel > 0; k++)
            if (p.reduce_p[k]) {
                in_place = !p.scatter_p[k];
                break;
            }
        if (in_place)
            st = ct_tensor_clone(x->local, CT_MEMFMT_CONTIGUOUS, &cur);
        else
            cur = ct_tensor_retain(x->local);
    }
    if (st == CT_OK) {
        if (me_out >= 0) {
            ct_box box;
            ct_dist_impl_local_box(p.sizes, p.ndim, pout, out_eff, me_out, &box);
            st = ct_dist_impl_global_alloc_local(&box, x->dtype, pout, &res);
            if (st == CT_OK && numel > 0 && (p.spread || !dest_needs_data(&p, me_out)))
                st = ct_tensor_zero_(res);
        } else {
            st = ct_dist_impl_global_empty_local(x->dtype, p.ndim, &res);
        }
    }
    if (numel > 0) {
        /* The plan is complete on every rank that got here; a rank whose plan failed
         * reports it in the agreement below before looking at `crosses`. */
        if (st == CT_OK)
            crosses = plan_crosses(&p);
        if (st == CT_OK && crosses)
            st = exchange_build(&p, x->dtype, me_in, me_out, &e);
        st = ct_dist_impl_all_ready(st, world, "boxing");
        if (st == CT_OK && any_reduce) {
            if (me_in >= 0)
                st = reduce_axes(&p, in_eff, &cur);
            st = ct_dist_impl_all_ready(st, world, "boxing");
        }
        if (st == CT_OK && crosses) {
            const void *sbuf = cur != NULL ? ct_tensor_data_ptr(cur) : NULL;
            void *rbuf = ct_tensor_data_ptr(res);
            st = ct_dist_impl_mpi_check(MPI_Alltoallw(sbuf, e.scounts, e.sdispls, e.stypes, rbuf,
                                                      e.rcounts, e.rdispls, e.rtypes, world),
                                        "MPI_Alltoallw");
        } else if (st == CT_OK) {
            st = copy_local(&p, cur, me_in, res, me_out);
        }
    }
    exchange_free(&e);
    plan_free(&p);
    ct_tensor_release(cur);
    if (st != CT_OK) {
        ct_tensor_release(res);
        return st;
    }
    return ct_dist_impl_global_make(x->dtype, x->sizes, x->ndim, pout, sbp, res, out);
}

/* The conversion on memory MPI can read: the fast paths, else the generic one. */
static ct_status boxing_direct(const ct_global *x, const ct_placement *placement,
                               const ct_sbp *sbp, ct_global **out) {
    bool done = false;
    ct_status st = ct_dist_impl_boxing_fast(x, placement, sbp, out, &done);
    if (st != CT_OK || done)
        return st;
    return boxing_generic(x, placement, sbp, out);
}

/* Note [Boxing through host memory]: MPI (and the shared windows) move host memory, so when
 * the input's or the output's device memory is not host accessible (a GPU), the conversion
 * runs on host copies: each member copies its component to the cpu, the cpu placement with
 * the same ranks and hierarchy does the boxing (any transition, any placement change), and
 * each output member copies its part to its device. One wrapper for every transition: the
 * SBP layouts, partial-sum rules and errors are exactly the cpu ones. A staging copy can
 * fail on one rank only, so all ranks agree after each step. */
static bool needs_staging(ct_device_type type) {
    return type != CT_DEVICE_CPU && !ct_device_type_host_accessible(type);
}

/* A contiguous copy of `t` on `device` (never `t`'s memory). */
static ct_status copy_to(const ct_tensor *t, ct_device device, ct_tensor **out) {
    return ct_tensor_to(t, CT_DTYPE_UNDEFINED, &device, true, CT_MEMFMT_CONTIGUOUS, out);
}

/* `x` with its components copied to the cpu, on the cpu placement `hin` (non-members: the
 * usual empty component). */
static ct_status stage_in(const ct_global *x, const ct_placement *hin, ct_global **out) {
    ct_tensor *local = NULL;
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_status st = ct_dist_impl_placement_my_pid(x->placement) >= 0
                       ? copy_to(x->local, cpu, &local)
                       : ct_dist_impl_global_empty_local(x->dtype, x->ndim, &local);
    if (st != CT_OK)
        return st;
    return ct_dist_impl_global_make(x->dtype, x->sizes, x->ndim, hin, x->sbp, local, out);
}

/* The host result `y` moved to the devices of `placement` (same ranks and hierarchy). */
static ct_status stage_out(const ct_global *y, const ct_placement *placement, ct_global **out) {
    ct_tensor *local = NULL;
    ct_status st;
    if (ct_dist_impl_placement_my_pid(placement) >= 0) {
        ct_device dev;
        st = ct_placement_local_device(placement, &dev);
        if (st == CT_OK)
            st = copy_to(y->local, dev, &local);
    } else {
        st = ct_dist_impl_global_empty_local(y->dtype, y->ndim, &local);
    }
    if (st != CT_OK)
        return st;
    return ct_dist_impl_global_make(y->dtype, y->sizes, y->ndim, placement, y->sbp, local, out);
}

static ct_status boxing_staged(const ct_global *x, const ct_placement *placement,
                               const ct_sbp *sbp, ct_global **out) {
    MPI_Comm world = MPI_COMM_NULL;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return st;
    bool in = needs_staging(x->placement->type), outs = needs_staging(placement->type);
    ct_placement *hin = NULL, *hout = NULL;
    ct_global *xh = NULL, *yh = NULL;
    st = ct_dist_impl_placement_retype(x->placement, in ? CT_DEVICE_CPU : x->placement->type,
                                       &hin);
    if (st == CT_OK)
        st = ct_dist_impl_placement_retype(placement, outs ? CT_DEVICE_CPU : placement->type,
                                           &hout);
    if (st == CT_OK)
        st = in ? stage_in(x, hin, &xh) : (xh = ct_global_retain((ct_global *)x), CT_OK);
    st = ct_dist_impl_all_ready(st, world, "boxing");
    if (st == CT_OK) {
        /* A change of device type alone (to("cpu"), to("cuda")): the staged copy is the
         * host result. */
        if (ct_placement_equal(hin, hout) && ct_nd_sbp_equal(x->sbp, sbp, hout->ndim))
            yh = ct_global_retain(xh);
        else
            st = boxing_direct(xh, hout, sbp, &yh);
    }
    if (st == CT_OK && outs)
        st = stage_out(yh, placement, out);
    else if (st == CT_OK)
        *out = ct_global_retain(yh);
    st = ct_dist_impl_all_ready(st, world, "boxing");
    if (st != CT_OK) {
        ct_global_release(*out);
        *out = NULL;
    }
    ct_global_release(yh);
    ct_global_release(xh);
    ct_placement_release(hout);
    ct_placement_release(hin);
    return st;
}

ct_status ct_dist_impl_boxing(const ct_global *x, const ct_placement *placement, const ct_sbp *sbp,
                              ct_global **out) {
    if (out != NULL)
        *out = NULL;
    if (x == NULL || placement == NULL || sbp == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "boxing: NULL argument");
    if (needs_staging(x->placement->type) || needs_staging(placement->type))
        return boxing_staged(x, placement, sbp, out);
    return boxing_direct(x, placement, sbp, out);
}
