/* binary.c: element-wise arithmetic on global tensors (global.h) and the sbp inference
 * behind it (ct_dist_impl_global_binary_signature, dist_impl.h).
 *
 * Every public function follows the same collective script, so that every rank takes the
 * same branch and returns the same status:
 *   1. ct_dist_impl_agree over the world with a record of the call (op, scalars, placements,
 *      nd-sbp, logical shapes, dtypes): calls that differ between ranks fail everywhere;
 *   2. checks that depend only on agreed metadata: same placement, then the core op run on
 *      meta tensors of the LOGICAL shapes (PyTorch's broadcast / dtype / alpha errors, the
 *      result dtype and shape), then on tiny cpu tensors of ones (the kernel-support errors
 *      meta tensors skip, e.g. bool floor division);
 *   3. boxing of the operands to the chosen signature (ct_global_to_global);
 *   4. the core op on the local components (members only);
 *   5. a verdict collective: the local op can still fail on some ranks only (an integer
 *      division by zero found in one rank's shard, an allocation failure). Rather than
 *      scanning the divisor globally before the op (an extra pass and collective that
 *      would only cover that one error), every rank reports its outcome in one MPI_MINLOC
 *      allreduce after the op; on failure the lowest failing rank broadcasts its status
 *      and message and every rank returns them (ZeroDivisionError on all ranks alike).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/print.h"
#include "dist/dist_impl.h"

/* ---- sbp inference ------------------------------------------------------------------------ */

/* A candidate signature: the sbp of x, y and z on one hierarchy axis. */
typedef struct cand {
    ct_sbp x, y, z;
} cand;

/* At most one split candidate per output dim below CT_SBP_MAX_SPLIT_AXIS, three partial
 * ones and all-broadcast. */
#define MAX_CANDS (CT_SBP_MAX_SPLIT_AXIS + 4)

static ct_sbp sbp_s(int64_t d) {
    ct_sbp s = {CT_SBP_SPLIT, (int32_t)d};
    return s;
}
static ct_sbp sbp_b(void) {
    ct_sbp s = {CT_SBP_BROADCAST, -1};
    return s;
}
static ct_sbp sbp_p(void) {
    ct_sbp s = {CT_SBP_PARTIAL_SUM, -1};
    return s;
}

/* The sbp an operand (xn dims, sizes xs) takes when the output (on dims, sizes os) is split
 * on output dim d: S of its own (right-aligned) dim when it spans the output there, B when
 * it lacks the dim or broadcasts along it (size 1 against a larger output). When both
 * operands have size 1 (the output too), both are split alike, which is valid. */
static ct_sbp operand_split(const int64_t *xs, int64_t xn, const int64_t *os, int64_t on, int64_t d) {
    int64_t xd = d - (on - xn);
    if (xd < 0 || xs[xd] != os[d])
        return sbp_b();
    return sbp_s(xd);
}

/* Saturating arithmetic for costs; UINT64_MAX is kept for "forbidden". */
#define COST_MAX (UINT64_MAX - 1)
#define COST_FORBIDDEN UINT64_MAX

static uint64_t cost_add(uint64_t a, uint64_t b) {
    if (a == COST_FORBIDDEN || b == COST_FORBIDDEN)
        return COST_FORBIDDEN;
    return a > COST_MAX - b ? COST_MAX : a + b;
}
static uint64_t cost_mul(uint64_t a, uint64_t b) {
    if (a != 0 && b > COST_MAX / a)
        return COST_MAX;
    return a * b;
}

/* OneFlow's newer eager copy cost (table in docs/global-tensors.md) of moving an operand of `bytes`
 * logical bytes from `from` to `to` on an axis of n ranks, multiplied by n so that
 * S(i)->S(j)'s bytes*(n-1)/n stays an integer and ties compare exactly. */
static uint64_t copy_cost(ct_sbp from, ct_sbp to, uint64_t bytes, uint64_t n) {
    if (ct_sbp_equal(from, to))
        return 0;
    if (to.kind == CT_SBP_PARTIAL_SUM)
        return COST_FORBIDDEN; /* never create a partial sum for an op */
    uint64_t moved = cost_mul(bytes, n - 1); /* bytes * (n-1) */
    switch (from.kind) {
    case CT_SBP_BROADCAST:
        return n; /* B -> S: a local slice, cost 1 */
    case CT_SBP_SPLIT:
        return to.kind == CT_SBP_SPLIT ? moved : cost_mul(moved, n);
    case CT_SBP_PARTIAL_SUM:
    default:
        return to.kind == CT_SBP_SPLIT ? cost_mul(moved, n) : cost_mul(cost_mul(moved, n), 2);
    }
}

static uint64_t logical_bytes(const ct_global *g) {
    int64_t numel = ct_global_numel(g);
    return cost_mul(numel < 0 ? 0 : (uint64_t)numel, ct_dtype_itemsize(ct_global_dtype(g)));
}

static void push(cand *c, int *nc, ct_sbp x, ct_sbp y, ct_sbp z) {
    c[*nc].x = x;
    c[*nc].y = y;
    c[*nc].z = z;
    (*nc)++;
}

/* Which operands each op is linear in (ops.def's partial column): what a partial_sum
 * operand may stay. */
typedef enum partial_rule { PARTIAL_NONE, PARTIAL_SUM, PARTIAL_EACH, PARTIAL_LEFT } partial_rule;
#define CT_OP(E, name, kind, kernel, alpha, negate, to_float, rounding, swap, symbol, dunder,      \
              pyfunc, partial)                                                                   \
    [CT_OP_##E] = PARTIAL_##partial,
static const partial_rule PARTIAL[] = {
#include "ctensor/ops.def"
};
#undef CT_OP
_Static_assert(sizeof PARTIAL / sizeof PARTIAL[0] == CT_NUM_OPS, "one rule per op row");

/* Candidates for op(x, y) in OneFlow's order: splits by ascending output dim, then
 * partial ones, then all-broadcast. Returns the count. */
static int binary_candidates(ct_op op, const ct_global *x, const ct_global *y,
                             const int64_t *os, int64_t on, cand *c) {
    const int64_t xn = ct_global_dim(x), yn = ct_global_dim(y);
    const int64_t *xs = ct_global_sizes(x), *ys = ct_global_sizes(y);
    int nc = 0;
    for (int64_t d = 0; d < on && d < CT_SBP_MAX_SPLIT_AXIS; d++) {
        /* Same ndim: dims where both have size 1 get no split. Different ndims: OneFlow
         * splits every dim (its quirk); operand_split turns size-1 operands into B. */
        if (xn == yn && xs[d] == 1 && ys[d] == 1)
            continue;
        push(c, &nc, operand_split(xs, xn, os, on, d), operand_split(ys, yn, os, on, d), sbp_s(d));
    }
    /* A partial operand stays partial only when summing commutes with the op. A bool
     * partial is a logical or, which survives only a bool result (add = or, mul = and);
     * summing its 0/1 values in another dtype would count the trues. */
    const bool z_bool = ct_global_dtype(x) == CT_BOOL && ct_global_dtype(y) == CT_BOOL &&
                        (op == CT_OP_ADD || op == CT_OP_MUL);
    const bool x_p = ct_global_dtype(x) != CT_BOOL || z_bool;
    const bool y_p = ct_global_dtype(y) != CT_BOOL || z_bool;
    const partial_rule rule = PARTIAL[op];
    if (rule == PARTIAL_SUM && x_p && y_p)
        push(c, &nc, sbp_p(), sbp_p(), sbp_p());
    if ((rule == PARTIAL_EACH || rule == PARTIAL_LEFT) && x_p)
        push(c, &nc, sbp_p(), sbp_b(), sbp_p());
    if (rule == PARTIAL_EACH && y_p)
        push(c, &nc, sbp_b(), sbp_p(), sbp_p());
    push(c, &nc, sbp_b(), sbp_b(), sbp_b());
    return nc;
}

/* The broadcast shape of x and y; CT_ERR_RUNTIME with PyTorch's text when they do not
 * broadcast. */
static ct_status broadcast_shape(const ct_global *x, const ct_global *y, int64_t *os, int64_t *on) {
    const int64_t xn = ct_global_dim(x), yn = ct_global_dim(y);
    const int64_t *xs = ct_global_sizes(x), *ys = ct_global_sizes(y);
    const int64_t n = xn > yn ? xn : yn;
    for (int64_t i = n - 1; i >= 0; i--) {
        int64_t xd = i - (n - xn), yd = i - (n - yn);
        int64_t a = xd >= 0 ? xs[xd] : 1, b = yd >= 0 ? ys[yd] : 1;
        if (a != b && a != 1 && b != 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%lld) must match the size of tensor b "
                                "(%lld) at non-singleton dimension %lld",
                                (long long)a, (long long)b, (long long)i);
        os[i] = a == 1 ? b : a;
    }
    *on = n;
    return CT_OK;
}

/* The rule of global.h, applied to each hierarchy axis independently: the same candidate
 * list on every axis (it depends only on the logical shapes and the op), each axis picking
 * its cheapest candidate by the cost of converting the operands' sbp on THAT axis, with that
 * axis' size n and the operands' whole logical bytes. This is OneFlow's 2-D rule of
 * deriving signatures per axis with the 1-D cost model on each axis. An axis of
 * size 1 is costed as if it had 2 ranks, so that the choice does not depend on the world
 * size (any choice is valid there, every sbp meaning the same data). */
ct_status ct_dist_impl_global_binary_signature(ct_op op, const ct_global *a, const ct_global *b,
                                               ct_sbp *sbp_a, ct_sbp *sbp_b, ct_sbp *sbp_out) {
    if (!a || !b || !sbp_a || !sbp_b || !sbp_out)
        return ct_set_error(CT_ERR_MISUSE, "NULL argument");
    if ((int)op < 0 || (int)op >= CT_NUM_OPS)
        return ct_set_error(CT_ERR_MISUSE, "invalid op %d", (int)op);
    const ct_placement *pl = ct_global_placement(a);
    if (ct_placement_ndim(pl) != ct_placement_ndim(ct_global_placement(b)))
        return ct_set_error(CT_ERR_MISUSE,
                            "operands on different hierarchies");
    int64_t os[CT_MAX_DIMS], on = 0;
    ct_status st = broadcast_shape(a, b, os, &on);
    if (st != CT_OK)
        return st;
    cand c[MAX_CANDS];
    int nc = binary_candidates(op, a, b, os, on, c);
    const uint64_t bytes_a = logical_bytes(a), bytes_b = logical_bytes(b);
    const ct_sbp *in_a = ct_global_sbp(a), *in_b = ct_global_sbp(b);
    const int64_t *h = ct_placement_hierarchy(pl);
    for (int64_t k = 0; k < ct_placement_ndim(pl); k++) {
        uint64_t n = h[k] < 2 ? 2 : (uint64_t)h[k];
        int best = nc - 1; /* all-broadcast is never forbidden */
        uint64_t best_cost = COST_FORBIDDEN;
        for (int i = 0; i < nc; i++) {
            uint64_t cost = cost_add(copy_cost(in_a[k], c[i].x, bytes_a, n),
                                     copy_cost(in_b[k], c[i].y, bytes_b, n));
            if (cost < best_cost) { /* strict: ties keep the earlier candidate */
                best_cost = cost;
                best = i;
            }
        }
        sbp_a[k] = c[best].x;
        sbp_b[k] = c[best].y;
        sbp_out[k] = c[best].z;
    }
    return CT_OK;
}

/* ---- operation descriptions --------------------------------------------------------------- */

typedef struct opdesc {
    ct_op op;        /* the ops.def row (div's rows carry the rounding mode) */
    bool scalar;     /* tensor-scalar form: `s` is the other operand */
    bool reflected;  /* scalar forms only: s op x (rdiv); rsub is a row of its own */
    ct_scalar s;     /* the scalar operand */
    ct_scalar alpha; /* rows with alpha */
    char name[16];   /* "add", "rdiv": for messages and the agreement */
    const char *fn;  /* the public function called, for its misuse messages */
} opdesc;

/* The core op on local tensors; y is ignored for scalar forms, where the scalar is a
 * wrapped number on the right (on the left when reflected). */
static ct_status local_op(const opdesc *d, const ct_tensor *x, const ct_tensor *y, ct_tensor **out) {
    if (!d->scalar)
        return ct_binary(d->op, x, y, d->alpha, out);
    ct_tensor *w = NULL;
    ct_status st = ct_tensor_wrapped_number(d->s, &w);
    if (st != CT_OK)
        return st;
    st = d->reflected ? ct_binary(d->op, w, x, d->alpha, out) : ct_binary(d->op, x, w, d->alpha, out);
    ct_tensor_release(w);
    return st;
}

/* ---- agreement record ------------------------------------------------------------------- */

static void sb_scalar(ct_sb *s, ct_scalar v) {
    switch (v.kind) {
    case CT_SCALAR_BOOL:
        ct_sb_appendf(s, "%s", v.v.b ? "True" : "False");
        break;
    case CT_SCALAR_INT:
        ct_sb_appendf(s, "%lld", (long long)v.v.i);
        break;
    case CT_SCALAR_UINT:
        ct_sb_appendf(s, "%llu", (unsigned long long)v.v.u);
        break;
    case CT_SCALAR_FLOAT:
        ct_sb_appendf(s, "%.17g", v.v.f);
        break;
    default:
        ct_sb_appendf(s, "(%.17g%+.17gj)", v.v.c.re, v.v.c.im);
        break;
    }
}

/* "float32[7, 5] (S(0),) on [0, 1]" (ranks nested as the hierarchy). */
static void sb_global(ct_sb *s, const ct_global *g) {
    if (!g) {
        ct_sb_appendf(s, "NULL");
        return;
    }
    ct_sb_appendf(s, "%s[", ct_dtype_name(ct_global_dtype(g)));
    for (int64_t i = 0; i < ct_global_dim(g); i++)
        ct_sb_appendf(s, "%s%lld", i ? ", " : "", (long long)ct_global_sizes(g)[i]);
    const ct_placement *pl = ct_global_placement(g);
    char sbp[96];
    ct_nd_sbp_format_short(ct_global_sbp(g), ct_placement_ndim(pl), sbp, sizeof sbp);
    ct_sb_appendf(s, "] %s on %s", sbp, ct_placement_type_name(pl));
    const int64_t nd = ct_placement_ndim(pl), n = ct_placement_size(pl);
    const int64_t *h = ct_placement_hierarchy(pl), *ranks = ct_placement_ranks(pl);
    int64_t block[CT_PLACEMENT_MAX_NDIM];
    int64_t prod = 1;
    for (int64_t k = nd - 1; k >= 0; k--)
        block[k] = prod *= h[k];
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = 0; k < nd; k++)
            if (i % block[k] == 0)
                ct_sb_appendf(s, "[");
        ct_sb_appendf(s, "%lld", (long long)ranks[i]);
        for (int64_t k = 0; k < nd; k++)
            if ((i + 1) % block[k] == 0)
                ct_sb_appendf(s, "]");
        if (i + 1 < n)
            ct_sb_appendf(s, ", ");
    }
}

static uint64_t hash_global(uint64_t h, const ct_global *g) {
    uint8_t present = g != NULL;
    h = ct_hash_bytes(h, &present, 1);
    if (!g)
        return h;
    const ct_placement *pl = ct_global_placement(g);
    int64_t meta[2] = {ct_global_dim(g), (int64_t)ct_global_dtype(g)};
    uint64_t ph = ct_placement_hash(pl);
    h = ct_hash_bytes(h, meta, sizeof meta);
    h = ct_hash_bytes(h, ct_global_sizes(g), (size_t)meta[0] * sizeof(int64_t));
    h = ct_hash_bytes(h, &ph, sizeof ph);
    return ct_dist_impl_hash_nd_sbp(h, ct_global_sbp(g), ct_placement_ndim(pl));
}

/* Step 1: compare the call across the world. */
static ct_status agree_call(const opdesc *d, const ct_global *x, const ct_global *y, bool has_out) {
    ct_agree_record rec;
    memset(&rec, 0, sizeof rec);
    ct_sb s;
    ct_sb_init_buf(&s, rec.what, sizeof rec.what);
    ct_sb_appendf(&s, "%s%s(", d->name, d->scalar ? "_scalar" : "");
    sb_global(&s, x);
    ct_sb_appendf(&s, ", ");
    if (d->scalar)
        sb_scalar(&s, d->s);
    else
        sb_global(&s, y);
    if (ct_op_has_alpha(d->op)) {
        ct_sb_appendf(&s, ", alpha=");
        sb_scalar(&s, d->alpha);
    }
    ct_rounding_mode mode = ct_op_rounding(d->op);
    if (mode != CT_ROUNDING_NONE)
        ct_sb_appendf(&s, ", rounding_mode=%s", mode == CT_ROUNDING_TRUNC ? "'trunc'" : "'floor'");
    ct_sb_appendf(&s, ")");

    int32_t head[4] = {(int32_t)d->op, d->scalar, d->reflected, has_out};
    uint64_t h = ct_hash_bytes(0, head, sizeof head);
    h = ct_dist_impl_hash_scalar(h, d->alpha);
    h = d->scalar ? ct_dist_impl_hash_scalar(h, d->s) : hash_global(h, y);
    rec.hash = hash_global(h, x);
    rec.placement = x ? ct_placement_hash(ct_global_placement(x)) : 0;
    if (!d->scalar && y)
        rec.placement = ct_hash_bytes(rec.placement, &y->placement->hash, sizeof(uint64_t));
    rec.has_local = 0;
    rec.dtype = x ? (int32_t)ct_global_dtype(x) : -1;
    return ct_dist_impl_agree_call(&rec, d->name);
}

/* ---- checks on logical metadata ------------------------------------------------------------- */

static ct_status same_placement(const ct_placement *p, const ct_placement *q) {
    if (ct_placement_equal(p, q))
        return CT_OK;
    char *bp = NULL, *bq = NULL;
    ct_status st = ct_placement_format(p, NULL, &bp);
    if (st == CT_OK)
        st = ct_placement_format(q, NULL, &bq);
    if (st == CT_OK)
        st = ct_set_error(CT_ERR_RUNTIME,
                          "Expected all tensors to be on the same placement, but found at "
                          "least two placements, %s and %s!",
                          bp, bq);
    ct_string_free(bp);
    ct_string_free(bq);
    return st;
}

/* A stand-in for a logical operand: on meta with the logical sizes (`tiny` false), or on the
 * cpu with every non-zero size 1, filled with ones (`tiny` true), so that kernel-support
 * errors appear without data-dependent ones. */
static ct_status stand_in(const ct_global *g, bool tiny, ct_tensor **out) {
    int64_t sizes[CT_MAX_DIMS];
    const int64_t n = ct_global_dim(g);
    ct_device dev;
    ct_status st = ct_device_make(tiny ? CT_DEVICE_CPU : CT_DEVICE_META, CT_DEVICE_NO_INDEX, &dev);
    if (st != CT_OK)
        return st;
    for (int64_t i = 0; i < n; i++)
        sizes[i] = tiny && ct_global_sizes(g)[i] > 1 ? 1 : ct_global_sizes(g)[i];
    if (tiny)
        return ct_tensor_ones(sizes, n, ct_global_dtype(g), &dev, CT_LAYOUT_STRIDED, out);
    return ct_tensor_empty(sizes, n, ct_global_dtype(g), &dev, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, out);
}

/* Step 2: the op on stand-ins of the logical operands, identical on every rank. Gives the
 * result dtype and logical shape (z_sizes, CT_MAX_DIMS entries). */
static ct_status check_logical(const opdesc *d, const ct_global *x, const ct_global *y,
                               ct_dtype *z_dtype, int64_t *z_sizes, int64_t *z_ndim) {
    ct_tensor *mx = NULL, *my = NULL, *mz = NULL;
    ct_status st = CT_OK;
    for (int tiny = 0; tiny <= 1 && st == CT_OK; tiny++) {
        st = stand_in(x, tiny, &mx);
        if (st == CT_OK && !d->scalar)
            st = stand_in(y, tiny, &my);
        if (st == CT_OK)
            st = local_op(d, mx, my, &mz);
        if (st == CT_OK && !tiny) {
            *z_dtype = ct_tensor_dtype(mz);
            *z_ndim = ct_tensor_dim(mz);
            memcpy(z_sizes, ct_tensor_sizes(mz), (size_t)*z_ndim * sizeof(int64_t));
        }
        ct_tensor_release(mx);
        ct_tensor_release(my);
        ct_tensor_release(mz);
        mx = my = mz = NULL;
    }
    return st;
}

/* ---- the verdict -------------------------------------------------------------------------- */

/* Step 5: every rank returns the lowest failing rank's status and message, or CT_OK. */
static ct_status agree_outcome(ct_status mine) {
    MPI_Comm world;
    ct_status st = ct_dist_impl_world(&world);
    if (st != CT_OK)
        return st;
    struct {
        int ok;
        int rank;
    } in = {mine == CT_OK, (int)ct_dist_impl_my_rank()}, low;
    st = ct_dist_impl_mpi_check(MPI_Allreduce(&in, &low, 1, MPI_2INT, MPI_MINLOC, world),
                                "MPI_Allreduce");
    if (st != CT_OK || low.ok)
        return st;
    struct {
        int32_t status;
        char msg[1024];
    } e;
    memset(&e, 0, sizeof e);
    if (low.rank == in.rank) {
        e.status = (int32_t)mine;
        snprintf(e.msg, sizeof e.msg, "%s", ct_last_error());
    }
    st = ct_dist_impl_mpi_check(MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, low.rank, world),
                                "MPI_Bcast");
    if (st != CT_OK)
        return st;
    return ct_set_error((ct_status)e.status, "%s", e.msg);
}

/* ---- the driver --------------------------------------------------------------------------- */

/* Box x to `sbp` (all axes) unless it already is; new reference in *out. */
static ct_status box_to(const ct_global *x, const ct_sbp *sbp, ct_global **out) {
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    if (ct_nd_sbp_equal(ct_global_sbp(x), sbp, nh)) {
        *out = ct_global_retain((ct_global *)x);
        return CT_OK;
    }
    return ct_global_to_global(x, NULL, sbp, nh, 0, out);
}

/* The core op on this rank's components, taken as this rank's part of the output. */
static ct_status member_op(const opdesc *d, const ct_global *x, const ct_global *y,
                           const int64_t *z_sizes, int64_t z_ndim, const ct_sbp *z_sbp,
                           ct_tensor **out) {
    ct_tensor *r = NULL;
    ct_status st = local_op(d, ct_global_local(x), y ? ct_global_local(y) : NULL, &r);
    if (st != CT_OK)
        return st;
    return ct_dist_impl_own_component(r, ct_global_local(x), ct_global_placement(x), z_sizes,
                                      z_ndim, z_sbp, d->name, out);
}

/* Scalar forms: the operand's nd-sbp, with partial axes reduced to broadcast unless the op
 * is linear in the operand alone (mul; true div with the tensor on the left) and the sum
 * survives the result dtype (a bool partial is a logical or: it stays partial only for a
 * bool result). */
static void scalar_signature(const opdesc *d, const ct_global *x, ct_dtype z_dtype, ct_sbp *out) {
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    const partial_rule rule = PARTIAL[d->op];
    bool linear = (rule == PARTIAL_EACH || (rule == PARTIAL_LEFT && !d->reflected)) &&
                  (ct_global_dtype(x) != CT_BOOL || z_dtype == CT_BOOL);
    for (int64_t k = 0; k < nh; k++) {
        out[k] = ct_global_sbp(x)[k];
        if (out[k].kind == CT_SBP_PARTIAL_SUM && !linear)
            out[k] = sbp_b();
    }
}

static ct_status run(const opdesc *d, const ct_global *x, const ct_global *y, ct_global **out) {
    if (out)
        *out = NULL;
    ct_status st = agree_call(d, x, y, out != NULL);
    if (st != CT_OK)
        return st;
    /* After agreement every rank has the same NULL arguments. */
    if (!x || (!d->scalar && !y) || !out)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", d->fn);
    const ct_placement *pl = ct_global_placement(x);
    if (!d->scalar && (st = same_placement(pl, ct_global_placement(y))) != CT_OK)
        return st;
    ct_dtype z_dtype = CT_DTYPE_UNDEFINED;
    int64_t z_sizes[CT_MAX_DIMS], z_ndim = 0;
    st = check_logical(d, x, y, &z_dtype, z_sizes, &z_ndim);
    /* The stand-ins allocate: a rank that failed there must not go on alone. */
    st = agree_outcome(st);
    if (st != CT_OK)
        return st;

    ct_sbp sx[CT_PLACEMENT_MAX_NDIM], sy[CT_PLACEMENT_MAX_NDIM], sz[CT_PLACEMENT_MAX_NDIM];
    if (d->scalar) {
        scalar_signature(d, x, z_dtype, sx);
        memcpy(sz, sx, sizeof sx);
    } else {
        st = ct_dist_impl_global_binary_signature(d->op, x, y, sx, sy, sz);
        if (st != CT_OK)
            return st;
    }

    ct_global *bx = NULL, *by = NULL, *z = NULL;
    ct_tensor *local = NULL;
    st = box_to(x, sx, &bx);
    if (st == CT_OK && !d->scalar)
        st = box_to(y, sy, &by);
    if (st != CT_OK)
        goto done;
    /* Members compute; the others hold an empty component. Either may fail locally. */
    if (ct_dist_impl_placement_my_pid(pl) >= 0)
        st = member_op(d, bx, by, z_sizes, z_ndim, sz, &local);
    else
        st = ct_dist_impl_global_empty_local(z_dtype, z_ndim, &local);
    /* The result is made before the verdict: making it can fail too (an allocation). */
    if (st == CT_OK) {
        st = ct_dist_impl_global_make(z_dtype, z_sizes, z_ndim, pl, sz, local, &z);
        local = NULL; /* stolen */
    }
    st = agree_outcome(st);
    if (st != CT_OK)
        ct_global_release(z);
    else
        *out = z;
done:
    ct_tensor_release(local);
    ct_global_release(bx);
    ct_global_release(by);
    return st;
}

/* ---- public functions --------------------------------------------------------------------- */

/* A description of `op` called through the public function `fn`, alpha 1 for rows without
 * alpha (ct_binary ignores it there; so must the agreement, or ranks would differ on it). */
static opdesc desc(const char *fn, ct_op op, bool scalar, bool reflected, ct_scalar alpha) {
    opdesc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.scalar = scalar;
    d.reflected = reflected;
    d.s = ct_scalar_int(0);
    d.alpha = ct_op_has_alpha(op) ? alpha : ct_scalar_int(1);
    d.fn = fn;
    snprintf(d.name, sizeof d.name, "%s%s", reflected ? "r" : "", ct_op_name(op));
    return d;
}

static ct_status run_tensors(const char *fn, ct_op op, const ct_global *a, const ct_global *b,
                             ct_scalar alpha, ct_global **out) {
    opdesc d = desc(fn, op, false, false, alpha);
    return run(&d, a, b, out);
}

static ct_status run_scalar(const char *fn, ct_op op, bool reflected, const ct_global *a,
                            ct_scalar b, ct_scalar alpha, ct_global **out) {
    opdesc d = desc(fn, op, true, reflected, alpha);
    d.s = b;
    return run(&d, a, NULL, out);
}

/* An argument error found before the operation: reported through the agreement, so that
 * the other ranks, already in it, fail too. */
static ct_status fail_early(const char *op, ct_status st, ct_global **out) {
    if (out)
        *out = NULL;
    return ct_global_fail(op, st);
}

/* div's row for `mode`. */
static ct_status div_row(ct_rounding_mode mode, ct_op *op, ct_global **out) {
    ct_status st = ct_op_div(mode, op);
    return st == CT_OK ? st : fail_early("div", st, out);
}

static ct_status check_op(const char *fn, ct_op op, ct_global **out) {
    if ((unsigned)op < (unsigned)CT_NUM_OPS)
        return CT_OK;
    return fail_early("binary", ct_set_error(CT_ERR_MISUSE, "%s: invalid op %d", fn, (int)op), out);
}

ct_status ct_global_binary(ct_op op, const ct_global *a, const ct_global *b, ct_scalar alpha,
                           ct_global **out) {
    ct_status st = check_op("ct_global_binary", op, out);
    return st != CT_OK ? st : run_tensors("ct_global_binary", op, a, b, alpha, out);
}

ct_status ct_global_binary_scalar(ct_op op, const ct_global *a, ct_scalar b, ct_scalar alpha,
                                  ct_global **out) {
    ct_status st = check_op("ct_global_binary_scalar", op, out);
    return st != CT_OK ? st : run_scalar("ct_global_binary_scalar", op, false, a, b, alpha, out);
}

/* a + alpha * b with alpha != 1: the tensor scaled first (mul keeps a partial sum), then the
 * number added. */
static ct_status scaled_add(const char *fn, ct_scalar a, const ct_global *b, ct_scalar alpha,
                            ct_global **out) {
    ct_global *scaled = NULL;
    ct_status st = run_scalar(fn, CT_OP_MUL, false, b, alpha, ct_scalar_int(1), &scaled);
    if (st == CT_OK)
        st = run_scalar(fn, CT_OP_ADD, false, scaled, a, ct_scalar_int(1), out);
    ct_global_release(scaled);
    return st;
}

ct_status ct_global_binary_rscalar(ct_op op, ct_scalar a, const ct_global *b, ct_scalar alpha,
                                   ct_global **out) {
    static const char fn[] = "ct_global_binary_rscalar";
    ct_status st = check_op(fn, op, out);
    if (st != CT_OK)
        return st;
    switch (op) {
    case CT_OP_ADD: /* commutes: b + a */
        if (alpha.kind == CT_SCALAR_INT && alpha.v.i == 1)
            return run_scalar(fn, CT_OP_ADD, false, b, a, alpha, out);
        return scaled_add(fn, a, b, alpha, out);
    case CT_OP_MUL:
        return run_scalar(fn, CT_OP_MUL, false, b, a, alpha, out);
    case CT_OP_SUB: /* a - alpha * b is rsub(b, a) */
        return run_scalar(fn, CT_OP_RSUB, false, b, a, alpha, out);
    case CT_OP_RSUB: /* rsub(a, b) = b - alpha * a */
        return run_scalar(fn, CT_OP_SUB, false, b, a, alpha, out);
    default: /* the number as the left operand: 2 / x, 2 // x */
        return run_scalar(fn, op, true, b, a, alpha, out);
    }
}

ct_status ct_global_add(const ct_global *a, const ct_global *b, ct_scalar alpha, ct_global **out) {
    return run_tensors("ct_global_add", CT_OP_ADD, a, b, alpha, out);
}

ct_status ct_global_sub(const ct_global *a, const ct_global *b, ct_scalar alpha, ct_global **out) {
    return run_tensors("ct_global_sub", CT_OP_SUB, a, b, alpha, out);
}

ct_status ct_global_mul(const ct_global *a, const ct_global *b, ct_global **out) {
    return run_tensors("ct_global_mul", CT_OP_MUL, a, b, ct_scalar_int(1), out);
}

ct_status ct_global_div(const ct_global *a, const ct_global *b, ct_rounding_mode mode,
                        ct_global **out) {
    ct_op op;
    ct_status st = div_row(mode, &op, out);
    return st != CT_OK ? st : run_tensors("ct_global_div", op, a, b, ct_scalar_int(1), out);
}

ct_status ct_global_add_scalar(const ct_global *a, ct_scalar b, ct_scalar alpha, ct_global **out) {
    return run_scalar("ct_global_add_scalar", CT_OP_ADD, false, a, b, alpha, out);
}

ct_status ct_global_sub_scalar(const ct_global *a, ct_scalar b, ct_scalar alpha, ct_global **out) {
    return run_scalar("ct_global_sub_scalar", CT_OP_SUB, false, a, b, alpha, out);
}

ct_status ct_global_mul_scalar(const ct_global *a, ct_scalar b, ct_global **out) {
    return run_scalar("ct_global_mul_scalar", CT_OP_MUL, false, a, b, ct_scalar_int(1), out);
}

ct_status ct_global_div_scalar(const ct_global *a, ct_scalar b, ct_rounding_mode mode,
                               ct_global **out) {
    ct_op op;
    ct_status st = div_row(mode, &op, out);
    return st != CT_OK ? st
                       : run_scalar("ct_global_div_scalar", op, false, a, b, ct_scalar_int(1), out);
}

ct_status ct_global_rsub_scalar(const ct_global *a, ct_scalar b, ct_scalar alpha, ct_global **out) {
    return run_scalar("ct_global_rsub_scalar", CT_OP_RSUB, false, a, b, alpha, out);
}

ct_status ct_global_rdiv_scalar(const ct_global *a, ct_scalar b, ct_rounding_mode mode,
                                ct_global **out) {
    ct_op op;
    ct_status st = div_row(mode, &op, out);
    return st != CT_OK ? st
                       : run_scalar("ct_global_rdiv_scalar", op, true, a, b, ct_scalar_int(1), out);
}

/* ---- steps shared with the ops of one input (oneop.c) ------------------------------------- */

void ct_dist_impl_sb_global(ct_sb *s, const ct_global *g) { sb_global(s, g); }

uint64_t ct_dist_impl_hash_global(uint64_t h, const ct_global *g) { return hash_global(h, g); }

ct_status ct_dist_impl_stand_in(const ct_global *g, bool tiny, ct_tensor **out) {
    return stand_in(g, tiny, out);
}

ct_status ct_dist_impl_agree_outcome(ct_status mine) { return agree_outcome(mine); }

ct_status ct_dist_impl_box_to(const ct_global *x, const ct_sbp *sbp, ct_global **out) {
    return box_to(x, sbp, out);
}

ct_status ct_dist_impl_same_placement(const ct_placement *p, const ct_placement *q) {
    return same_placement(p, q);
}
