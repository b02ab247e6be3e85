/* matmul.c: matmul / mm / bmm on global tensors (global.h), run by the collective script of
 * multiop.c, and their sbp inference.
 *
 * Candidate signatures, OneFlow's matmul GetSbp generalised to every operand rank (a is
 * [..., m, k] or [k], b is [..., k, n] or [k]), in this order:
 *   S(batch) x S(batch) -> S(batch)  per output batch dim (B for an operand that lacks the
 *                                    dim or broadcasts along it);
 *   S(m) x B -> S(m);   B x S(n) -> S(n);   S(k) x S(k) -> P;   P x B -> P;   B x P -> P;
 *   B x B -> B.
 * Each hierarchy axis picks independently: the first candidate both operands already match;
 * else the larger operand (logical bytes; a on a tie) keeps its sbp and the other is boxed to
 * the cheapest candidate with that sbp on the kept side (a partial sum is never created for
 * an operand); else the same with the smaller one kept; else both are boxed to B. */
#include <string.h>

#include "ctensor/linalg.h"
#include "dist/dist_impl.h"

typedef enum mm_kind { MM_MATMUL, MM_MM, MM_BMM } mm_kind;

typedef struct mm_cand {
    ct_sbp a, b, z;
} mm_cand;

/* batch candidates (one per output dim below the split limit), four others, all-broadcast */
#define MM_MAX_CANDS (CT_SBP_MAX_SPLIT_AXIS + 6)

static ct_sbp s_of(int64_t d) { return (ct_sbp){.kind = CT_SBP_SPLIT, .dim = (int32_t)d}; }
static ct_sbp b_of(void) { return (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1}; }
static ct_sbp p_of(void) { return (ct_sbp){.kind = CT_SBP_PARTIAL_SUM, .dim = -1}; }

static void push(mm_cand *c, int *nc, ct_sbp a, ct_sbp b, ct_sbp z) {
    for (int i = 0; i < 3; i++) {
        const ct_sbp s = i == 0 ? a : i == 1 ? b : z;
        if (s.kind == CT_SBP_SPLIT && s.dim >= CT_SBP_MAX_SPLIT_AXIS)
            return; /* a split OneFlow cannot express */
    }
    c[(*nc)++] = (mm_cand){.a = a, .b = b, .z = z};
}

/* An operand's sbp when the output is split on batch dim d of nbz: S of its own batch dim
 * (right-aligned among its nbx batch dims) when it spans the output there, else B. */
static ct_sbp batch_split(const int64_t *xs, int64_t nbx, int64_t nbz, int64_t d, int64_t zsize) {
    const int64_t xd = d - (nbz - nbx);
    return xd >= 0 && xs[xd] == zsize ? s_of(xd) : b_of();
}

static int candidates(const ct_global *a, const ct_global *b, mm_cand *c) {
    const int64_t na = ct_global_dim(a), nb = ct_global_dim(b);
    const int64_t *as = ct_global_sizes(a), *bs = ct_global_sizes(b);
    const int64_t nba = na >= 2 ? na - 2 : 0, nbb = nb >= 2 ? nb - 2 : 0;
    const int64_t nbz = nba > nbb ? nba : nbb;
    const int64_t zn = nbz + (na >= 2) + (nb >= 2);
    int nc = 0;
    for (int64_t d = 0; d < nbz; d++) {
        const int64_t ad = d - (nbz - nba), bd = d - (nbz - nbb);
        const int64_t sa = ad >= 0 ? as[ad] : 1, sb = bd >= 0 ? bs[bd] : 1;
        const int64_t zs = sa == 1 ? sb : sa;
        const ct_sbp xa = batch_split(as, nba, nbz, d, zs), xb = batch_split(bs, nbb, nbz, d, zs);
        if (xa.kind == CT_SBP_SPLIT || xb.kind == CT_SBP_SPLIT)
            push(c, &nc, xa, xb, s_of(d));
    }
    if (na >= 2)
        push(c, &nc, s_of(na - 2), b_of(), s_of(nbz));
    if (nb >= 2)
        push(c, &nc, b_of(), s_of(nb - 1), s_of(zn - 1));
    push(c, &nc, s_of(na - 1), s_of(nb >= 2 ? nb - 2 : 0), p_of());
    push(c, &nc, p_of(), b_of(), p_of());
    push(c, &nc, b_of(), p_of(), p_of());
    push(c, &nc, b_of(), b_of(), b_of());
    return nc;
}

/* The rank of a conversion's cost (OneFlow's eager copy cost, in order): nothing, a local
 * slice, all-to-all, reduce-scatter, all-gather, all-reduce; never to a partial sum. */
static int cost(ct_sbp from, ct_sbp to) {
    if (ct_sbp_equal(from, to))
        return 0;
    if (to.kind == CT_SBP_PARTIAL_SUM)
        return -1;
    if (from.kind == CT_SBP_BROADCAST)
        return 1;
    if (to.kind == CT_SBP_SPLIT)
        return from.kind == CT_SBP_SPLIT ? 2 : 3;
    return from.kind == CT_SBP_SPLIT ? 4 : 5;
}

/* The cheapest candidate whose `keep_a` side (a's, else b's) is `kept`, boxing the other
 * operand from `other`; -1 when none has it. */
static int keep_one(const mm_cand *c, int nc, bool keep_a, ct_sbp kept, ct_sbp other) {
    int best = -1, best_cost = 0;
    for (int i = 0; i < nc; i++) {
        if (!ct_sbp_equal(keep_a ? c[i].a : c[i].b, kept))
            continue;
        const int k = cost(other, keep_a ? c[i].b : c[i].a);
        if (k >= 0 && (best < 0 || k < best_cost)) {
            best = i;
            best_cost = k;
        }
    }
    return best;
}

static ct_status signature(const void *ctx, const ct_global *const *x, size_t n,
                           ct_sbp (*in_sbp)[CT_PLACEMENT_MAX_NDIM], ct_sbp *z_sbp) {
    (void)ctx;
    (void)n;
    const ct_global *a = x[0], *b = x[1];
    mm_cand c[MM_MAX_CANDS];
    const int nc = candidates(a, b, c);
    /* same dtype (checked): compare element counts */
    const bool a_larger = ct_global_numel(a) >= ct_global_numel(b);
    const int64_t nh = ct_placement_ndim(ct_global_placement(a));
    for (int64_t k = 0; k < nh; k++) {
        const ct_sbp sa = ct_global_sbp(a)[k], sb = ct_global_sbp(b)[k];
        int pick = -1;
        for (int i = 0; i < nc && pick < 0; i++)
            if (ct_sbp_equal(c[i].a, sa) && ct_sbp_equal(c[i].b, sb))
                pick = i;
        if (pick < 0)
            pick = a_larger ? keep_one(c, nc, true, sa, sb) : keep_one(c, nc, false, sb, sa);
        if (pick < 0)
            pick = a_larger ? keep_one(c, nc, false, sb, sa) : keep_one(c, nc, true, sa, sb);
        if (pick < 0)
            pick = nc - 1; /* B x B -> B */
        in_sbp[0][k] = c[pick].a;
        in_sbp[1][k] = c[pick].b;
        z_sbp[k] = c[pick].z;
    }
    return CT_OK;
}

static ct_status apply(const void *ctx, const ct_tensor *const *in, size_t n, ct_tensor **out) {
    (void)n;
    switch (*(const mm_kind *)ctx) {
    case MM_MM:
        return ct_tensor_mm(in[0], in[1], out);
    case MM_BMM:
        return ct_tensor_bmm(in[0], in[1], out);
    case MM_MATMUL:
    default:
        return ct_tensor_matmul(in[0], in[1], out);
    }
}

static uint64_t hash(uint64_t h, const void *ctx) {
    const int32_t k = (int32_t) * (const mm_kind *)ctx;
    return ct_hash_bytes(h, &k, sizeof k);
}

static ct_status run(mm_kind kind, const char *name, const char *fn, const ct_global *a,
                     const ct_global *b, ct_global **out) {
    const ct_global *x[2] = {a, b};
    const ct_dist_multiop op = {
        .name = name,
        .fn = fn,
        .ctx = &kind,
        .describe = NULL,
        .hash = hash,
        .apply = apply,
        .signature = signature,
    };
    return ct_dist_impl_multiop_run(&op, x, 2, out);
}

ct_status ct_global_matmul(const ct_global *a, const ct_global *b, ct_global **out) {
    return run(MM_MATMUL, "matmul", "ct_global_matmul", a, b, out);
}

ct_status ct_global_mm(const ct_global *a, const ct_global *b, ct_global **out) {
    return run(MM_MM, "mm", "ct_global_mm", a, b, out);
}

ct_status ct_global_bmm(const ct_global *a, const ct_global *b, ct_global **out) {
    return run(MM_BMM, "bmm", "ct_global_bmm", a, b, out);
}
