/* The ops of one global input (global.h: ct_global_unary, ct_global_round_decimals,
 * ct_global_reduce) and the comparison rows of ct_global_binary on partial_sum operands and
 * in OneFlow's compatibility mode, on 1..4 ranks.
 *
 * Every rank builds the same logical reference tensors; the global inputs are made from
 * slices of them and the results gathered with plain MPI (dist_ops_util.h). Each result is
 * compared with the local op on the whole reference (bitwise for integer and bool results,
 * within a tolerance for floats: a shard can take a kernel's vector path where the whole
 * tensor takes its scalar tail, and a partial sum adds in another order), and its nd-sbp with
 * the rules of global.h, per hierarchy axis. Errors must come back identically on every
 * rank, with the local op's status and message. */
#include "dist_ops_util.h"

#include "ctensor/compat.h"


/* The local op's outcome: its status, and its message when it failed. */
typedef struct outcome {
    ct_status st;
    char msg[512];
} outcome;

static outcome local_outcome(ct_status st) {
    outcome o = {.st = st, .msg = ""};
    if (st != CT_OK)
        snprintf(o.msg, sizeof o.msg, "%s", ct_last_error());
    return o;
}

/* The global op's outcome equals the local one's; on success the values match. */
static void check_result(const char *desc, outcome want_o, ct_status st, const ct_global *z,
                         const ct_tensor *want) {
    if (want_o.st != CT_OK) {
        bool same = st == want_o.st && strcmp(ct_last_error(), want_o.msg) == 0;
        if (!same && R == 0)
            fprintf(stderr, "%s: want \"%s\", got %d \"%s\"\n", desc, want_o.msg, (int)st,
                    ct_last_error());
        CHECK_ALL(same, desc);
        CHECK_ALL(z == NULL, desc);
        return;
    }
    if (st != CT_OK && R == 0)
        fprintf(stderr, "%s: %s\n", desc, ct_last_error());
    CHECK_ALL(st == CT_OK, desc);
    ct_tensor *got = gather_logical(z);
    const ct_dtype t = ct_tensor_dtype(want);
    CHECK_ALL(got != NULL && values_match(got, want, ct_dtype_is_integral(t, true)), desc);
    ct_tensor_release(got);
}

/* ---- unary ops ---------------------------------------------------------------------------- */

static bool unary_linear(ct_unop op) { return op == CT_UNOP_NEG || op == CT_UNOP_POSITIVE; }

/* global.h: split and broadcast pass through; partial_sum stays for neg / positive of a
 * non-bool input, else broadcast. */
static void unary_expected(ct_unop op, ct_dtype dtype, const ct_sbp *in, int64_t nh, ct_sbp *out) {
    for (int64_t k = 0; k < nh; k++) {
        out[k] = in[k];
        if (in[k].kind == CT_SBP_PARTIAL_SUM && !(unary_linear(op) && dtype != CT_BOOL))
            out[k] = B;
    }
}

static void unary_case(ct_unop op, const ct_tensor *ref, const ct_placement *pl, const ct_sbp *sbp) {
    n_cases++;
    const int64_t nh = ct_placement_ndim(pl);
    char desc[200], s[64];
    ct_nd_sbp_format_short(sbp, nh, s, sizeof s);
    snprintf(desc, sizeof desc, "ct_global_unary(%s, %s %s) on %lld ranks", ct_unop_name(op),
             ct_dtype_name(ct_tensor_dtype(ref)), s, (long long)ct_placement_size(pl));
    ct_tensor *want = NULL;
    outcome o = local_outcome(ct_unary(op, ref, &want));
    ct_global *g = make_global(ref, pl, sbp), *z = NULL;
    ct_status st = ct_global_unary(op, g, &z);
    check_result(desc, o, st, z, want);
    if (o.st == CT_OK && st == CT_OK) {
        ct_sbp e[CT_PLACEMENT_MAX_NDIM];
        unary_expected(op, ct_tensor_dtype(ref), sbp, nh, e);
        CHECK_ALL(ct_nd_sbp_equal(ct_global_sbp(z), e, nh), desc);
        CHECK_ALL(op != CT_UNOP_POSITIVE || z == g, desc); /* positive(x) is x */
    }
    ct_tensor_release(want);
    ct_global_release(z);
    ct_global_release(g);
}

/* Every row x {S(0), S(1), B, P} x {float32, int32, bool} on all ranks (errors included: frac
 * of int32, neg of bool, ...). */
static void test_unary_rows(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const ct_sbp set[4] = {S0, S1, B, P};
    int64_t sizes[2] = {7, 5};
    const ct_dtype dts[3] = {CT_FLOAT32, CT_INT32, CT_BOOL};
    for (int t = 0; t < 3; t++) {
        ct_tensor *ref = ref_tensor(sizes, 2, dts[t], 1, false);
        for (int op = 0; op < CT_NUM_UNOPS; op++)
            for (int i = 0; i < 4; i++)
                unary_case((ct_unop)op, ref, pl, &set[i]);
        ct_tensor_release(ref);
    }
    ct_placement_release(pl);
}

/* Rank 0 outside the placement, and the 2x2 mesh with partial axes next to splits. */
static void test_unary_placements(void **state) {
    (void)state;
    int64_t sizes[2] = {6, 5};
    ct_tensor *ref = ref_tensor(sizes, 2, CT_FLOAT64, 2, false);
    const ct_unop ops[4] = {CT_UNOP_NEG, CT_UNOP_EXP, CT_UNOP_ABS, CT_UNOP_POSITIVE};
    if (W >= 2) {
        ct_placement *pl = tail_ranks();
        const ct_sbp set[3] = {S0, B, P};
        for (int o = 0; o < 4; o++)
            for (int i = 0; i < 3; i++)
                unary_case(ops[o], ref, pl, &set[i]);
        ct_placement_release(pl);
    }
    if (W == 4) {
        ct_placement *pl = mesh_2x2();
        const ct_sbp nd[][2] = {{P, S1}, {S0, P}, {B, S0}, {P, P}, {S1, S0}};
        for (int o = 0; o < 4; o++)
            for (size_t i = 0; i < sizeof nd / sizeof nd[0]; i++)
                unary_case(ops[o], ref, pl, nd[i]);
        ct_placement_release(pl);
    }
    ct_tensor_release(ref);
}

/* round(x, decimals=1): a partial sum is reduced first. */
static void test_round_decimals(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    int64_t sizes[2] = {7, 5};
    ct_tensor *ref = ref_tensor(sizes, 2, CT_FLOAT32, 3, false), *want = NULL, *scaled = NULL;
    assert_int_equal(ct_mul_scalar(ref, ct_scalar_float(0.37), &scaled), CT_OK);
    const ct_sbp set[4] = {S0, S1, B, P};
    for (int i = 0; i < 4; i++) {
        n_cases++;
        ct_global *g = make_global(scaled, pl, &set[i]), *z = NULL;
        outcome o = local_outcome(ct_round_decimals(scaled, 1, &want));
        ct_status st = ct_global_round_decimals(g, 1, &z);
        check_result("round(decimals=1)", o, st, z, want);
        CT_ASSERT_ALL(ct_sbp_equal(ct_global_sbp(z)[0], i == 3 ? B : set[i]));
        ct_tensor_release(want);
        ct_global_release(z);
        ct_global_release(g);
    }
    /* integers: round_cpu's error, on every rank */
    ct_tensor *ints = ref_tensor(sizes, 2, CT_INT64, 3, false);
    ct_global *gi = make_global(ints, pl, &S0), *z = NULL;
    outcome o = local_outcome(ct_round_decimals(ints, 2, &want));
    CT_ASSERT_ALL(o.st == CT_ERR_NOT_IMPLEMENTED);
    ct_status st = ct_global_round_decimals(gi, 2, &z);
    check_result("round(int64, decimals=2)", o, st, z, want);
    ct_global_release(gi);
    ct_tensor_release(ints);
    ct_tensor_release(scaled);
    ct_tensor_release(ref);
    ct_placement_release(pl);
}

static void test_unary_errors(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    int64_t sizes[2] = {7, 5};
    ct_tensor *ref = ref_tensor(sizes, 2, CT_FLOAT32, 0, false);
    ct_global *g = make_global(ref, pl, &S0), *z = NULL;
    ASSERT_ERR_ALL(ct_global_unary((ct_unop)99, g, &z), CT_ERR_MISUSE,
                   "ct_global_unary: invalid op 99");
    CT_ASSERT_ALL(z == NULL);
    ASSERT_ERR_ALL(ct_global_unary(CT_UNOP_EXP, NULL, &z), CT_ERR_MISUSE,
                   "ct_global_unary: NULL argument");
    ASSERT_ERR_ALL(ct_global_unary(CT_UNOP_EXP, g, NULL), CT_ERR_MISUSE,
                   "ct_global_unary: NULL argument");
    ASSERT_ERR_ALL(ct_global_round_decimals(NULL, 2, &z), CT_ERR_MISUSE,
                   "ct_global_round_decimals: NULL argument");
    if (W >= 2) {
        /* different ops on different ranks: every rank fails, none waits */
        ct_status st = ct_global_unary(R == 1 ? CT_UNOP_SIN : CT_UNOP_EXP, g, &z);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME &&
                      strstr(ct_last_error(), "global operation arguments differ across ranks") &&
                      z == NULL);
        /* one rank's invalid op: its own error there, "failed on rank 1" elsewhere */
        st = ct_global_unary(R == 1 ? (ct_unop)-3 : CT_UNOP_EXP, g, &z);
        CT_ASSERT_ALL(st == CT_ERR_MISUSE && z == NULL &&
                      (R == 1 ? strcmp(ct_last_error(), "ct_global_unary: invalid op -3") == 0
                              : strstr(ct_last_error(), "failed on rank 1") != NULL));
    }
    /* and every rank agrees on the next call */
    CT_ASSERT_ALL(ct_global_unary(CT_UNOP_SQRT, g, &z) == CT_OK);
    ct_global_release(z);
    ct_global_release(g);
    ct_tensor_release(ref);
    ct_placement_release(pl);
}

/* ---- reductions --------------------------------------------------------------------------- */

static const ct_reduce_op REDUCE_OPS[] = {CT_REDUCE_SUM, CT_REDUCE_MEAN, CT_REDUCE_PROD,
                                          CT_REDUCE_AMAX, CT_REDUCE_AMIN, CT_REDUCE_ALL,
                                          CT_REDUCE_ANY, CT_REDUCE_MAX, CT_REDUCE_MIN};
#define N_REDUCE_OPS (sizeof REDUCE_OPS / sizeof REDUCE_OPS[0])

typedef struct dimset {
    int64_t dims[2], n;
} dimset;

static const dimset DIMSETS[] = {{{0, 0}, 0}, {{0, 0}, 1}, {{1, 0}, 1}, {{-2, 0}, 1}, {{0, 1}, 2}};
#define N_DIMSETS (sizeof DIMSETS / sizeof DIMSETS[0])

static bool is_float(ct_dtype t) { return ct_dtype_is_floating_point(t) || ct_dtype_is_complex(t); }

/* global.h's rule for the result's sbp on one axis. */
static ct_sbp reduce_expected_axis(ct_reduce_op op, ct_sbp s, const bool *reduced, bool keepdim,
                                   ct_dtype in, ct_dtype out) {
    const bool linear = op == CT_REDUCE_SUM || op == CT_REDUCE_MEAN;
    if (s.kind == CT_SBP_SPLIT && reduced[s.dim])
        return linear ? P : B;
    if (s.kind == CT_SBP_SPLIT) {
        int32_t d = s.dim;
        for (int32_t i = 0; !keepdim && i < s.dim; i++)
            d -= reduced[i];
        return (ct_sbp){.kind = CT_SBP_SPLIT, .dim = d};
    }
    if (s.kind == CT_SBP_PARTIAL_SUM)
        return linear && ((is_float(in) && is_float(out)) || in == out) ? P : B;
    return B;
}

static void reduce_case(ct_reduce_op op, const ct_tensor *ref, const ct_placement *pl,
                        const ct_sbp *sbp, const dimset *ds, bool keepdim, ct_dtype dtype) {
    n_cases++;
    const int64_t nh = ct_placement_ndim(pl), ndim = ct_tensor_dim(ref);
    char desc[240], s[64];
    ct_nd_sbp_format_short(sbp, nh, s, sizeof s);
    snprintf(desc, sizeof desc,
             "ct_global_reduce(%s, %s %s, dims %lld [%lld, %lld], keepdim %d, dtype %d) on %lld "
             "ranks",
             ct_reduce_op_name(op), ct_dtype_name(ct_tensor_dtype(ref)), s, (long long)ds->n,
             (long long)ds->dims[0], (long long)ds->dims[1], keepdim, (int)dtype,
             (long long)ct_placement_size(pl));
    const int64_t *dims = ds->n ? ds->dims : NULL;
    ct_tensor *want = NULL;
    outcome o = local_outcome(ct_reduce(op, ref, dims, ds->n, keepdim, dtype, &want));
    ct_global *g = make_global(ref, pl, sbp), *z = NULL;
    ct_status st = ct_global_reduce(op, g, dims, ds->n, keepdim, dtype, &z);
    check_result(desc, o, st, z, want);
    if (o.st == CT_OK && st == CT_OK) {
        bool reduced[CT_MAX_DIMS];
        for (int64_t d = 0; d < ndim; d++)
            reduced[d] = ds->n == 0;
        for (int64_t i = 0; i < ds->n; i++) {
            const int64_t d = ds->dims[i] < 0 ? ds->dims[i] + ndim : ds->dims[i];
            if (d >= 0 && d < ndim) /* a 0-dim tensor takes -1 and 0 and has no dim */
                reduced[d] = true;
        }
        ct_sbp e[CT_PLACEMENT_MAX_NDIM];
        for (int64_t k = 0; k < nh; k++)
            e[k] = reduce_expected_axis(op, sbp[k], reduced, keepdim, ct_tensor_dtype(ref),
                                        ct_tensor_dtype(want));
        CHECK_ALL(ct_nd_sbp_equal(ct_global_sbp(z), e, nh), desc);
    }
    ct_tensor_release(want);
    ct_global_release(z);
    ct_global_release(g);
}

/* Every op x dim set x keepdim x {S(0), S(1), B, P} x {float32, int32} on all ranks. */
static void test_reduce_matrix(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const ct_sbp set[4] = {S0, S1, B, P};
    int64_t sizes[2] = {7, 5};
    const ct_dtype dts[2] = {CT_FLOAT32, CT_INT32};
    for (int t = 0; t < 2; t++) {
        ct_tensor *ref = ref_tensor(sizes, 2, dts[t], 4, true);
        for (size_t o = 0; o < N_REDUCE_OPS; o++)
            for (size_t d = 0; d < N_DIMSETS; d++)
                for (int keep = 0; keep < 2; keep++)
                    for (int i = 0; i < 4; i++)
                        reduce_case(REDUCE_OPS[o], ref, pl, &set[i], &DIMSETS[d], keep,
                                    CT_DTYPE_UNDEFINED);
        ct_tensor_release(ref);
    }
    ct_placement_release(pl);
}

/* The unambiguous outcomes of global.h, written out, and the dtype rules of partial sums. */
static void expect_sbp(ct_reduce_op op, ct_dtype dtype, ct_sbp in, const dimset *ds, bool keepdim,
                       ct_dtype out_dtype, ct_sbp want) {
    ct_placement *pl = all_ranks();
    int64_t sizes[2] = {7, 5};
    ct_tensor *ref = ref_tensor(sizes, 2, dtype, 5, false);
    ct_global *g = make_global(ref, pl, &in), *z = NULL;
    reduce_case(op, ref, pl, &in, ds, keepdim, out_dtype); /* values */
    CT_ASSERT_ALL(ct_global_reduce(op, g, ds->n ? ds->dims : NULL, ds->n, keepdim, out_dtype, &z) ==
                      CT_OK &&
                  ct_sbp_equal(ct_global_sbp(z)[0], want));
    ct_global_release(z);
    ct_global_release(g);
    ct_tensor_release(ref);
    ct_placement_release(pl);
}

static void test_reduce_sbp(void **state) {
    (void)state;
    const dimset all = {{0, 0}, 0}, d0 = {{0, 0}, 1}, d1 = {{1, 0}, 1};
    const ct_sbp s0 = S0; /* split(1) of a reduced dim 0 becomes split(0) */
    const ct_dtype U = CT_DTYPE_UNDEFINED;
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, S0, &all, false, U, P);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, S0, &d0, false, U, P);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, S0, &d1, false, U, S0);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, S1, &d0, false, U, s0);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, S1, &d0, true, U, S1);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, B, &d0, false, U, B);
    expect_sbp(CT_REDUCE_MEAN, CT_FLOAT32, S0, &d0, false, U, P);
    expect_sbp(CT_REDUCE_MEAN, CT_FLOAT64, S1, &all, true, U, P);
    expect_sbp(CT_REDUCE_AMAX, CT_FLOAT32, S0, &d0, false, U, B);
    expect_sbp(CT_REDUCE_AMIN, CT_FLOAT32, S0, &d1, false, U, S0);
    expect_sbp(CT_REDUCE_PROD, CT_FLOAT32, S1, &d1, false, U, B);
    /* partial inputs */
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, P, &d0, false, U, P);
    expect_sbp(CT_REDUCE_MEAN, CT_FLOAT32, P, &all, false, U, P);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, P, &all, false, CT_FLOAT64, P);
    expect_sbp(CT_REDUCE_SUM, CT_INT64, P, &d1, false, U, P);
    expect_sbp(CT_REDUCE_SUM, CT_INT32, P, &d1, false, U, B);  /* widened to int64 */
    expect_sbp(CT_REDUCE_SUM, CT_INT32, P, &d1, false, CT_INT32, P);
    expect_sbp(CT_REDUCE_SUM, CT_FLOAT32, P, &d1, false, CT_INT64, B); /* truncation first */
    expect_sbp(CT_REDUCE_SUM, CT_BOOL, P, &all, false, U, B);  /* a logical or, not a count */
    expect_sbp(CT_REDUCE_SUM, CT_BOOL, S0, &all, false, U, P); /* counts of the shards */
    expect_sbp(CT_REDUCE_AMAX, CT_FLOAT32, P, &d1, false, U, B);
    expect_sbp(CT_REDUCE_ANY, CT_BOOL, S0, &d0, false, U, B);
    /* sum of an int32 split over its split dim, in float64 */
    expect_sbp(CT_REDUCE_SUM, CT_INT32, S0, &d0, false, CT_FLOAT64, P);
}

/* Rank 0 outside; the 2x2 mesh (each axis on its own); 0-dim and empty inputs. */
static void test_reduce_placements(void **state) {
    (void)state;
    int64_t sizes[2] = {6, 5};
    ct_tensor *ref = ref_tensor(sizes, 2, CT_FLOAT64, 6, true);
    const ct_reduce_op ops[4] = {CT_REDUCE_SUM, CT_REDUCE_MEAN, CT_REDUCE_AMAX, CT_REDUCE_ALL};
    if (W >= 2) {
        ct_placement *pl = tail_ranks();
        const ct_sbp set[4] = {S0, S1, B, P};
        for (int o = 0; o < 4; o++)
            for (size_t d = 0; d < N_DIMSETS; d++)
                for (int i = 0; i < 4; i++)
                    reduce_case(ops[o], ref, pl, &set[i], &DIMSETS[d], false, CT_DTYPE_UNDEFINED);
        ct_placement_release(pl);
    }
    if (W == 4) {
        ct_placement *pl = mesh_2x2();
        const ct_sbp nd[][2] = {{S0, S1}, {P, S0}, {S1, P}, {B, S0}, {S0, S0}, {P, P}};
        for (int o = 0; o < 4; o++)
            for (size_t d = 0; d < N_DIMSETS; d++)
                for (size_t i = 0; i < sizeof nd / sizeof nd[0]; i++)
                    for (int keep = 0; keep < 2; keep++)
                        reduce_case(ops[o], ref, pl, nd[i], &DIMSETS[d], keep, CT_DTYPE_UNDEFINED);
        ct_placement_release(pl);
    }
    ct_placement *pl = all_ranks();
    /* a 0-dim tensor (dims -1 and 0 both name it) and an empty one (sum 0, mean nan; amax
     * refuses with PyTorch's error on every rank) */
    ct_tensor *r0 = ref_tensor(NULL, 0, CT_FLOAT32, 7, true);
    const dimset none = {{0, 0}, 0}, m1 = {{-1, 0}, 1}, z0 = {{0, 0}, 1};
    reduce_case(CT_REDUCE_SUM, r0, pl, &B, &none, false, CT_DTYPE_UNDEFINED);
    reduce_case(CT_REDUCE_MEAN, r0, pl, &P, &m1, true, CT_DTYPE_UNDEFINED);
    int64_t es[2] = {0, 5};
    ct_tensor *e = ref_tensor(es, 2, CT_FLOAT32, 8, true);
    for (int i = 0; i < 3; i++) {
        const ct_sbp set[3] = {S0, S1, P};
        reduce_case(CT_REDUCE_SUM, e, pl, &set[i], &z0, false, CT_DTYPE_UNDEFINED);
        reduce_case(CT_REDUCE_MEAN, e, pl, &set[i], &z0, false, CT_DTYPE_UNDEFINED);
        reduce_case(CT_REDUCE_AMAX, e, pl, &set[i], &z0, false, CT_DTYPE_UNDEFINED);
        reduce_case(CT_REDUCE_AMAX, e, pl, &set[i], &none, false, CT_DTYPE_UNDEFINED);
    }
    ct_tensor_release(e);
    ct_tensor_release(r0);
    ct_placement_release(pl);
    ct_tensor_release(ref);
}

static void test_reduce_errors(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    int64_t sizes[2] = {7, 5}, d2 = 2, dd[2] = {1, 1};
    ct_tensor *ref = ref_tensor(sizes, 2, CT_FLOAT32, 0, false);
    ct_tensor *ints = ref_tensor(sizes, 2, CT_INT32, 0, false);
    ct_global *g = make_global(ref, pl, &S0), *gi = make_global(ints, pl, &P), *z = NULL;
    ASSERT_ERR_ALL(ct_global_reduce(CT_REDUCE_MEAN, gi, NULL, 0, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_RUNTIME,
                   "mean(): could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype. Got: Int");
    ASSERT_ERR_ALL(ct_global_reduce(CT_REDUCE_SUM, g, &d2, 1, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_INDEX,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    ASSERT_ERR_ALL(ct_global_reduce(CT_REDUCE_AMAX, g, dd, 2, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_RUNTIME, "dim 1 appears multiple times in the list of dims");
    ASSERT_ERR_ALL(ct_global_reduce((ct_reduce_op)99, g, NULL, 0, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_MISUSE, "ct_global_reduce: invalid op 99");
    ASSERT_ERR_ALL(ct_global_reduce(CT_REDUCE_SUM, g, NULL, -1, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_MISUSE, "ct_global_reduce: invalid dims (-1 of them)");
    ASSERT_ERR_ALL(ct_global_reduce(CT_REDUCE_SUM, g, NULL, 1, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_MISUSE, "ct_global_reduce: invalid dims (1 of them)");
    ASSERT_ERR_ALL(ct_global_reduce(CT_REDUCE_SUM, NULL, NULL, 0, false, CT_DTYPE_UNDEFINED, &z),
                   CT_ERR_MISUSE, "ct_global_reduce: NULL argument");
    CT_ASSERT_ALL(z == NULL);
    if (W >= 2) {
        /* a dim that differs between ranks, then keepdim: every rank fails */
        int64_t mine = R == 1 ? 1 : 0;
        ct_status st = ct_global_reduce(CT_REDUCE_SUM, g, &mine, 1, false, CT_DTYPE_UNDEFINED, &z);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && z == NULL &&
                      strstr(ct_last_error(), "global operation arguments differ across ranks"));
        st = ct_global_reduce(CT_REDUCE_SUM, g, NULL, 0, R == 1, CT_DTYPE_UNDEFINED, &z);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && z == NULL);
        /* a reduction on one rank, a unary op on another */
        st = R == 1 ? ct_global_unary(CT_UNOP_EXP, g, &z)
                    : ct_global_reduce(CT_REDUCE_SUM, g, NULL, 0, false, CT_DTYPE_UNDEFINED, &z);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && z == NULL);
    }
    CT_ASSERT_ALL(ct_global_reduce(CT_REDUCE_SUM, g, NULL, 0, false, CT_DTYPE_UNDEFINED, &z) ==
                  CT_OK);
    ct_global_release(z);
    ct_global_release(g);
    ct_global_release(gi);
    ct_tensor_release(ref);
    ct_tensor_release(ints);
    ct_placement_release(pl);
}

/* ---- comparisons ------------------------------------------------------------------------------ */

static bool is_compare_row(ct_op op) {
    return op == CT_OP_EQ || op == CT_OP_NE || op == CT_OP_LT || op == CT_OP_LE ||
           op == CT_OP_GT || op == CT_OP_GE;
}

/* A partial_sum operand never stays partial through a comparison (ops.def's partial column
 * NONE): it is boxed, and the values are those of the summed tensor; split / broadcast pairs
 * keep their sbp. Also maximum ... fmin. */
static void test_compare_partial(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const ct_sbp set[4] = {S0, S1, B, P};
    int64_t sizes[2] = {7, 5};
    ct_tensor *ra = ref_tensor(sizes, 2, CT_FLOAT32, 1, false);
    ct_tensor *rb = ref_tensor(sizes, 2, CT_FLOAT32, 2, false);
    const ct_op rows[10] = {CT_OP_EQ, CT_OP_NE, CT_OP_LT, CT_OP_LE, CT_OP_GT, CT_OP_GE,
                            CT_OP_MAXIMUM, CT_OP_MINIMUM, CT_OP_FMAX, CT_OP_FMIN};
    for (int o = 0; o < 10; o++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                n_cases++;
                char desc[120];
                snprintf(desc, sizeof desc, "%s(sbp %d, sbp %d)", ct_op_name(rows[o]), i, j);
                ct_global *a = make_global(ra, pl, &set[i]), *b = make_global(rb, pl, &set[j]);
                ct_global *z = NULL;
                ct_tensor *want = NULL;
                outcome oc = local_outcome(ct_binary(rows[o], ra, rb, ct_scalar_int(1), &want));
                ct_status st = ct_global_binary(rows[o], a, b, ct_scalar_int(1), &z);
                check_result(desc, oc, st, z, want);
                CHECK_ALL(st != CT_OK || (W < 2 || ct_global_sbp(z)[0].kind != CT_SBP_PARTIAL_SUM),
                          desc);
                if (st == CT_OK && i == j && i != 3)
                    CHECK_ALL(ct_sbp_equal(ct_global_sbp(z)[0], set[i]), desc);
                if (st == CT_OK && is_compare_row(rows[o]))
                    CHECK_ALL(ct_global_dtype(z) == CT_BOOL, desc);
                ct_tensor_release(want);
                ct_global_release(z);
                ct_global_release(a);
                ct_global_release(b);
            }
    ct_tensor_release(ra);
    ct_tensor_release(rb);
    ct_placement_release(pl);
}

/* OneFlow's compatibility mode (compat.h): a zero-dim tensor promotes like a dimensioned one,
 * so int8 == int64 zero-dim 259 compares in int64 (no element equal) where PyTorch compares
 * in int8 (259 wraps to 3). The global comparison follows the mode as the local one does. */
static void test_compare_compat(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    int64_t sizes[2] = {7, 5};
    ct_tensor *x = ref_tensor(sizes, 2, CT_INT8, 1, false), *y = NULL;
    ct_scalar v = ct_scalar_int(259);
    assert_int_equal(ct_tensor_full(NULL, 0, v, CT_INT64, NULL, CT_LAYOUT_STRIDED, &y), CT_OK);
    ct_tensor *wants[2] = {NULL, NULL};
    const ct_compat_mode modes[2] = {CT_COMPAT_PYTORCH, CT_COMPAT_ONEFLOW};
    for (int m = 0; m < 2; m++) {
        assert_int_equal(ct_set_compat_mode(modes[m]), CT_OK);
        for (int i = 0; i < 3; i++) {
            const ct_sbp set[3] = {S0, B, P};
            n_cases++;
            ct_global *a = make_global(x, pl, &set[i]), *b = make_global(y, pl, &B), *z = NULL;
            ct_tensor_release(wants[m]);
            wants[m] = NULL;
            outcome o = local_outcome(ct_binary(CT_OP_EQ, x, y, ct_scalar_int(1), &wants[m]));
            ct_status st = ct_global_binary(CT_OP_EQ, a, b, ct_scalar_int(1), &z);
            check_result("eq(int8, int64 0-dim) in a compat mode", o, st, z, wants[m]);
            ct_global_release(z);
            ct_global_release(a);
            ct_global_release(b);
        }
    }
    assert_int_equal(ct_set_compat_mode(CT_COMPAT_PYTORCH), CT_OK);
    /* the modes do differ here: some element equals 3 */
    CT_ASSERT_ALL(!values_match(wants[0], wants[1], true));
    ct_tensor_release(wants[0]);
    ct_tensor_release(wants[1]);
    ct_tensor_release(x);
    ct_tensor_release(y);
    ct_placement_release(pl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_rows),       cmocka_unit_test(test_unary_placements),
        cmocka_unit_test(test_round_decimals),   cmocka_unit_test(test_unary_errors),
        cmocka_unit_test(test_reduce_matrix),    cmocka_unit_test(test_reduce_sbp),
        cmocka_unit_test(test_reduce_placements), cmocka_unit_test(test_reduce_errors),
        cmocka_unit_test(test_compare_partial),  cmocka_unit_test(test_compare_compat),
    };
    return dist_ops_main(tests, sizeof tests / sizeof tests[0], "one-input and comparison cases");
}
