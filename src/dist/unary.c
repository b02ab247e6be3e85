/* unary.c: the unary.def ops on global tensors (global.h, ct_global_unary), run by the
 * collective script of oneop.c.
 *
 * Signature, per hierarchy axis: split(d) and broadcast pass through (the op is element-wise,
 * the output has the input's shape); a partial_sum input stays partial_sum only for the rows
 * whose `partial` column is LINEAR (neg, positive: op(x0 + x1) == op(x0) + op(x1)), and not
 * for bool (whose partial sum is a logical or); otherwise it is reduced to broadcast first,
 * as the tensor-scalar forms of binary.c do for an op not linear in the tensor. */
#include <stdio.h>
#include <string.h>

#include "ctensor/unary.h"
#include "dist/dist_impl.h"

typedef enum unary_partial { PARTIAL_NONE, PARTIAL_LINEAR } unary_partial;
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse)                              \
    [CT_UNOP_##E] = PARTIAL_##partial,
static const unary_partial PARTIAL[] = {
#include "ctensor/unary.def"
};
#undef CT_UNARY
_Static_assert(sizeof PARTIAL / sizeof PARTIAL[0] == CT_NUM_UNOPS, "one rule per unary row");

typedef struct unary_args {
    ct_unop op;
    bool round_decimals; /* ct_global_round_decimals */
    int64_t decimals;
} unary_args;

static void describe(ct_sb *s, const void *ctx) {
    const unary_args *a = ctx;
    if (a->round_decimals)
        ct_sb_appendf(s, ", decimals=%lld", (long long)a->decimals);
}

static uint64_t hash(uint64_t h, const void *ctx) {
    const unary_args *a = ctx;
    int64_t v[3] = {(int64_t)a->op, a->round_decimals, a->decimals};
    return ct_hash_bytes(h, v, sizeof v);
}

static ct_status apply(const void *ctx, const ct_tensor *in, const ct_global *x,
                       const ct_sbp *z_sbp, ct_tensor **out) {
    const unary_args *a = ctx;
    (void)x;
    (void)z_sbp; /* element-wise: every signature computes the same local op */
    if (a->round_decimals)
        return ct_round_decimals(in, a->decimals, out);
    return ct_unary(a->op, in, out);
}

static void signature(const void *ctx, const ct_global *x, ct_dtype z_dtype, ct_sbp *in_sbp,
                      ct_sbp *z_sbp) {
    const unary_args *a = ctx;
    (void)z_dtype;
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    const bool linear = !a->round_decimals && PARTIAL[a->op] == PARTIAL_LINEAR &&
                        ct_global_dtype(x) != CT_BOOL;
    for (int64_t k = 0; k < nh; k++) {
        in_sbp[k] = ct_global_sbp(x)[k];
        if (in_sbp[k].kind == CT_SBP_PARTIAL_SUM && !linear)
            in_sbp[k] = (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1};
        z_sbp[k] = in_sbp[k];
    }
}

static ct_status run(const char *fn, const unary_args *a, const ct_global *x, ct_global **out) {
    char name[32];
    snprintf(name, sizeof name, "%s", a->round_decimals ? "round" : ct_unop_name(a->op));
    const ct_dist_oneop op = {
        .name = name,
        .fn = fn,
        .ctx = a,
        .describe = describe,
        .hash = hash,
        .apply = apply,
        .signature = signature,
        .identity = !a->round_decimals && a->op == CT_UNOP_POSITIVE,
    };
    return ct_dist_impl_oneop_run(&op, x, out);
}

ct_status ct_global_unary(ct_unop op, const ct_global *x, ct_global **out) {
    if ((unsigned)op >= (unsigned)CT_NUM_UNOPS) {
        if (out)
            *out = NULL;
        return ct_global_fail("unary", ct_set_error(CT_ERR_MISUSE,
                                                    "ct_global_unary: invalid op %d", (int)op));
    }
    const unary_args a = {.op = op, .round_decimals = false, .decimals = 0};
    return run("ct_global_unary", &a, x, out);
}

ct_status ct_global_round_decimals(const ct_global *x, int64_t decimals, ct_global **out) {
    const unary_args a = {.op = CT_UNOP_ROUND, .round_decimals = decimals != 0,
                          .decimals = decimals};
    return run("ct_global_round_decimals", &a, x, out);
}
