/* Allocation-failure injection on global operations (global.h), on 1..4 ranks.
 *
 * Every rank counts its allocations (fault_alloc.h installed on all ranks); ONE rank, the
 * victim, fails its allocation N = 1, 2, ... while the others allocate normally, until the
 * operation goes through on the victim. Victims in turn: rank 0, then the last rank. At every
 * failure on the victim: the victim returns CT_ERR_NOMEM, EVERY other rank returns an error too
 * (the agreement's or the readiness check's: a rank that fails locally must not leave the others
 * waiting in a collective, nor let them carry on alone), nobody hangs (ctest's timeout),
 * out-parameters stay NULL, and every rank's live allocation count returns to its baseline.
 * Afterwards a global operation must work normally on all ranks. */
#define _POSIX_C_SOURCE 200809L
#include "dist_test_util.h"

#include <string.h>

#include "ctensor/alloc.h"
#include "ctensor/global.h"
#include "fault_alloc.h"

static int W, R;
static bool verbose;                   /* FAULT_VERBOSE set: trace each attempt (finding a hang) */
static ct_placement *all, *sub, *mesh; /* every rank; ranks 0..W-2 (or {0}); 2-D when W = 4 */
static ct_global *gs0, *gs1, *gb, *gp; /* (W+1, W+2) float32: S(0), S(1), B, P on all */
static ct_tensor *local23;             /* (2, 3) float32 local tensor */

static ct_sbp S(int64_t d) {
    ct_sbp s;
    ct_sbp_split(d, &s);
    return s;
}
#define B ct_sbp_broadcast()
#define P ct_sbp_partial_sum()
#define ONE ct_scalar_int(1)
#define SIZES ((const int64_t[]){5, 3}), 2

/* ---- the operations ---- */

typedef ct_status (*gop)(ct_global **out);

static ct_status from_local_s0(ct_global **o) {
    ct_sbp s[1] = {S(0)};
    return ct_global_from_local(local23, all, s, 1, CT_GLOBAL_CHECK_META, o);
}
static ct_status from_local_b(ct_global **o) {
    ct_sbp s[1] = {B};
    return ct_global_from_local(local23, all, s, 1, CT_GLOBAL_COPY, o);
}
static ct_status from_local_p_sub(ct_global **o) {
    ct_sbp s[1] = {P};
    return ct_global_from_local(local23, sub, s, 1, CT_GLOBAL_CHECK_META, o);
}
static ct_status to_global(const ct_global *x, const ct_placement *p, ct_sbp sbp, ct_global **o) {
    ct_sbp s[1] = {sbp};
    return ct_global_to_global(x, p, s, 1, 0, o);
}
static ct_status s0_to_b(ct_global **o) { return to_global(gs0, NULL, B, o); }
static ct_status s0_to_s1(ct_global **o) { return to_global(gs0, NULL, S(1), o); }
static ct_status p_to_b(ct_global **o) { return to_global(gp, NULL, B, o); }
static ct_status p_to_s0(ct_global **o) { return to_global(gp, NULL, S(0), o); }
static ct_status p_to_s1(ct_global **o) { return to_global(gp, NULL, S(1), o); }
static ct_status b_to_p(ct_global **o) { return to_global(gb, NULL, P, o); }
static ct_status s1_to_b_sub(ct_global **o) { return to_global(gs1, sub, B, o); }
static ct_status p_to_s0_sub(ct_global **o) { return to_global(gp, sub, S(0), o); }
static ct_status s0_to_mesh(ct_global **o) {
    ct_sbp s[2] = {S(0), P};
    return ct_global_to_global(gs0, mesh, s, 2, 0, o);
}
static ct_status zeros_s1(ct_global **o) {
    ct_sbp s[1] = {S(1)};
    return ct_global_zeros(SIZES, CT_INT32, all, s, 1, o);
}
static ct_status ones_p(ct_global **o) {
    ct_sbp s[1] = {P};
    return ct_global_ones(SIZES, CT_FLOAT64, all, s, 1, o);
}
static ct_status full_b_sub(ct_global **o) {
    ct_sbp s[1] = {B};
    return ct_global_full(SIZES, ct_scalar_float(2), CT_FLOAT16, sub, s, 1, o);
}
static ct_status empty_s0(ct_global **o) {
    ct_sbp s[1] = {S(0)};
    return ct_global_empty(SIZES, CT_INT64, all, s, 1, o);
}
static ct_status from_tensor_s0(ct_global **o) {
    ct_sbp s[1] = {S(0)};
    return ct_global_from_tensor(local23, all, s, 1, o);
}
static ct_status from_tensor_b_sub(ct_global **o) {
    ct_sbp s[1] = {B};
    return ct_global_from_tensor(R == 0 ? local23 : NULL, sub, s, 1, o);
}
/* to_logical gives a tensor: wrapped so that the loop sees a global-shaped result */
static ct_tensor *logical;
static ct_status to_logical_s1(ct_global **o) {
    (void)o;
    return ct_global_to_logical(gs1, &logical);
}
static ct_status to_logical_p(ct_global **o) {
    (void)o;
    return ct_global_to_logical(gp, &logical);
}
static ct_status add_s0_b(ct_global **o) { return ct_global_add(gs0, gb, ct_scalar_int(2), o); }
static ct_status add_s0_s1(ct_global **o) { return ct_global_add(gs0, gs1, ONE, o); }
static ct_status sub_p_p(ct_global **o) { return ct_global_sub(gp, gp, ONE, o); }
static ct_status mul_p_b(ct_global **o) { return ct_global_mul(gp, gb, o); }
static ct_status mul_p_p(ct_global **o) { return ct_global_mul(gp, gp, o); }
static ct_status div_s1_b(ct_global **o) { return ct_global_div(gs1, gb, CT_ROUNDING_NONE, o); }
static ct_status div_floor_p(ct_global **o) { return ct_global_div(gp, gb, CT_ROUNDING_FLOOR, o); }
static ct_status add_scalar_p(ct_global **o) {
    return ct_global_add_scalar(gp, ct_scalar_float(1.5), ONE, o);
}
static ct_status sub_scalar_s0(ct_global **o) { return ct_global_sub_scalar(gs0, ONE, ONE, o); }
static ct_status mul_scalar_p(ct_global **o) {
    return ct_global_mul_scalar(gp, ct_scalar_int(3), o);
}
static ct_status div_scalar_b(ct_global **o) {
    return ct_global_div_scalar(gb, ct_scalar_int(2), CT_ROUNDING_TRUNC, o);
}
static ct_status rsub_scalar_p(ct_global **o) { return ct_global_rsub_scalar(gp, ONE, ONE, o); }
static ct_status rdiv_scalar_s1(ct_global **o) {
    return ct_global_rdiv_scalar(gs1, ONE, CT_ROUNDING_NONE, o);
}

/* the ops of one input (oneop.c): a partial sum boxed first, a split reduced to partial, a
 * split gathered, a partial mean divided locally */
static ct_status exp_p(ct_global **o) { return ct_global_unary(CT_UNOP_EXP, gp, o); }
static ct_status neg_s1(ct_global **o) { return ct_global_unary(CT_UNOP_NEG, gs1, o); }
static ct_status round_decimals_s0(ct_global **o) { return ct_global_round_decimals(gs0, 1, o); }
static ct_status sum_s0(ct_global **o) {
    return ct_global_reduce(CT_REDUCE_SUM, gs0, NULL, 0, false, CT_DTYPE_UNDEFINED, o);
}
static ct_status mean_s1_dim1(ct_global **o) {
    const int64_t d = 1;
    return ct_global_reduce(CT_REDUCE_MEAN, gs1, &d, 1, true, CT_DTYPE_UNDEFINED, o);
}
static ct_status amax_s0_dim0(ct_global **o) {
    const int64_t d = 0;
    return ct_global_reduce(CT_REDUCE_AMAX, gs0, &d, 1, false, CT_DTYPE_UNDEFINED, o);
}
static ct_status eq_p_s0(ct_global **o) { return ct_global_binary(CT_OP_EQ, gp, gs0, ONE, o); }

#define OP(fn)                                                                                     \
    { #fn, fn }
static const struct {
    const char *name;
    gop fn;
} ops[] = {
    OP(from_local_s0), OP(from_local_b),   OP(from_local_p_sub),
    OP(s0_to_b),       OP(s0_to_s1),       OP(p_to_b),
    OP(p_to_s0),       OP(p_to_s1),        OP(b_to_p),
    OP(s1_to_b_sub),   OP(p_to_s0_sub),    OP(s0_to_mesh),
    OP(zeros_s1),      OP(ones_p),         OP(full_b_sub),
    OP(empty_s0),      OP(from_tensor_s0), OP(from_tensor_b_sub),
    OP(to_logical_s1), OP(to_logical_p),   OP(add_s0_b),
    OP(add_s0_s1),     OP(sub_p_p),        OP(mul_p_b),
    OP(mul_p_p),       OP(div_s1_b),       OP(div_floor_p),
    OP(add_scalar_p),  OP(sub_scalar_s0),  OP(mul_scalar_p),
    OP(div_scalar_b),  OP(rsub_scalar_p),  OP(rdiv_scalar_s1),
    OP(exp_p),         OP(neg_s1),         OP(round_decimals_s0),
    OP(sum_s0),        OP(mean_s1_dim1),   OP(amax_s0_dim0),
    OP(eq_p_s0),
};

/* Fail the victim's allocation 1, 2, ... until `fn` succeeds there; returns the failures. */
static long drive(const char *name, gop fn, int victim) {
    for (long n = 1;; n++) {
        long base = live_allocs;
        ct_global *out = NULL;
        if (verbose)
            fprintf(stderr, "rank %d: %s, allocation %ld failing on rank %d\n", R, name, n, victim);
        ct_clear_error();
        calls = 0;
        fail_at = R == victim ? n : 0;
        ct_status st = fn(&out);
        fail_at = 0;
        /* the victim tells everyone whether it faulted and how it ended */
        int mine[2] = {R == victim && calls >= n, R == victim ? (int)st : 0}, v[2];
        MPI_Allreduce(mine, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        bool faulted = v[0] != 0, failed = faulted && v[1] != CT_OK;
        bool ok = true;
        if (!faulted && st != CT_OK) {
            fprintf(stderr, "rank %d: %s failed without a fault: %s\n", R, name, ct_last_error());
            ok = false;
        }
        if (failed) {
            ct_status want = R == victim ? CT_ERR_NOMEM : st;
            if (st == CT_OK || st != want || out != NULL || logical != NULL) {
                fprintf(stderr, "rank %d: %s, allocation %ld failing on rank %d: %s: %s%s\n", R,
                        name, n, victim, ct_status_name(st), ct_last_error(),
                        out != NULL || logical != NULL ? " (out not NULL)" : "");
                ok = false;
            }
        }
        ct_global_release(out);
        ct_tensor_release(logical);
        logical = NULL;
        if (live_allocs != base) {
            fprintf(stderr, "rank %d: %s, allocation %ld failing on rank %d: %ld leaked\n", R, name,
                    n, victim, live_allocs - base);
            ok = false;
        }
        CT_ASSERT_ALL(ok);
        if (!faulted)
            return n - 1;
    }
}

/* Rank r's balanced part of n over W parts (lower ranks get the extra element). */
static int64_t part(int64_t n) { return n / W + (R < n % W ? 1 : 0); }

/* An input of logical shape (W+1, W+2) (uneven splits) with sbp on `all`. */
static ct_global *make(const ct_sbp sbp) {
    ct_sbp s[1] = {sbp};
    bool split = sbp.kind == CT_SBP_SPLIT;
    int64_t shape[2] = {W + 1, W + 2};
    if (split)
        shape[sbp.dim] = part(shape[sbp.dim]);
    ct_tensor *t = NULL, *v = NULL;
    ct_global *g = NULL;
    assert_int_equal(ct_tensor_arange(ct_scalar_int(R), ct_scalar_int(R + shape[0] * shape[1]), ONE,
                                      CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, &t),
                     CT_OK);
    assert_int_equal(ct_tensor_view(t, shape, 2, &v), CT_OK);
    assert_int_equal(ct_global_from_local(v, all, s, 1, CT_GLOBAL_CHECK_META, &g), CT_OK);
    ct_tensor_release(v);
    ct_tensor_release(t);
    return g;
}

static void test_dist_fault(void **state) {
    (void)state;
    int64_t ranks[64], h = W;
    for (int i = 0; i < W; i++)
        ranks[i] = i;
    assert_int_equal(ct_placement_new("cpu", ranks, &h, 1, &all), CT_OK);
    int64_t hs = W > 1 ? W - 1 : 1;
    assert_int_equal(ct_placement_new("cpu", ranks, &hs, 1, &sub), CT_OK);
    int64_t hm[2] = {W % 2 == 0 ? 2 : 1, W % 2 == 0 ? W / 2 : W};
    assert_int_equal(ct_placement_new("cpu", ranks, hm, 2, &mesh), CT_OK);
    assert_int_equal(ct_tensor_full((const int64_t[]){2, 3}, 2, ct_scalar_float(R + 1.0),
                                    CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, &local23),
                     CT_OK);
    gs0 = make(S(0));
    gs1 = make(S(1));
    gb = make(B);
    gp = make(P);
    size_t n = sizeof ops / sizeof ops[0];
    /* A first run of each without faults builds the communicators the library caches for
     * the life of the process, outside the counts. */
    for (size_t k = 0; k < n; k++) {
        ct_global *out = NULL;
        ct_status st = ops[k].fn(&out);
        if (st != CT_OK)
            fprintf(stderr, "rank %d: %s: %s\n", R, ops[k].name, ct_last_error());
        CT_ASSERT_ALL(st == CT_OK);
        ct_global_release(out);
        ct_tensor_release(logical);
        logical = NULL;
    }
    long total = 0;
    /* Victims: rank 0 (the first member, the root of broadcasts) and the last rank (outside
     * the sub-placement); the ranks between behave like one of them. */
    for (int victim = 0; victim < W; victim = victim == W - 1 ? W : W - 1)
        for (size_t k = 0; k < n; k++)
            total += drive(ops[k].name, ops[k].fn, victim);
    if (R == 0)
        print_message("dist_fault: %zu operations, %d ranks, %ld allocation failure points "
                      "injected\n",
                      n, W, total);

    /* the library still works: S(0) -> B, and every rank sees the whole value */
    ct_global *b = NULL;
    ct_tensor *t = NULL;
    assert_int_equal(to_global(gs0, NULL, B, &b), CT_OK);
    assert_int_equal(ct_global_to_logical(b, &t), CT_OK);
    CT_ASSERT_ALL(ct_tensor_numel(t) == (W + 1) * (W + 2));
    ct_tensor_release(t);
    ct_global_release(b);
    ct_global_release(gs0);
    ct_global_release(gs1);
    ct_global_release(gb);
    ct_global_release(gp);
    ct_tensor_release(local23);
    ct_placement_release(all);
    ct_placement_release(sub);
    ct_placement_release(mesh);
}

int main(void) {
    ct_test_start();
    W = ct_test_world();
    R = ct_test_rank();
    verbose = getenv("FAULT_VERBOSE") != NULL;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    if (ct_set_allocator(&a) != CT_OK)
        return 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_dist_fault)};
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    ct_set_allocator(NULL);
    return ct_test_finish(failures);
}
