/* The ops of several global inputs (global.h: ct_global_matmul / mm / bmm, ct_global_cat /
 * stack) on 1..4 ranks.
 *
 * Every rank builds the same logical reference tensors; the global inputs are made from slices
 * of them and the results gathered with plain MPI (dist_ops_util.h), which also checks that
 * each component is its rank's box of the result's nd-sbp. Each result is compared with the
 * local op on the whole references (exact: the values are small halves), and its nd-sbp with
 * the rules of global.h. Errors must come back identically on every rank, with the local op's
 * status and message. */
#include "dist_ops_util.h"

#include "ctensor/join.h"
#include "ctensor/linalg.h"


/* The global result equals the local op's (`want`), and its sbp is `want_sbp`. */
static void check(const char *desc, ct_status st, const ct_global *z, const ct_tensor *want,
                  const ct_sbp *want_sbp, int64_t nh) {
    n_cases++;
    if (st != CT_OK && R == 0)
        fprintf(stderr, "%s: %s\n", desc, ct_last_error());
    CHECK_ALL(st == CT_OK, desc);
    ct_tensor *got = gather_logical(z);
    CHECK_ALL(got != NULL && values_match(got, want, true), desc);
    ct_tensor_release(got);
    bool same = ct_nd_sbp_equal(ct_global_sbp(z), want_sbp, nh);
    if (!same && R == 0) {
        char a[64], b[64];
        ct_nd_sbp_format_short(ct_global_sbp(z), nh, a, sizeof a);
        ct_nd_sbp_format_short(want_sbp, nh, b, sizeof b);
        fprintf(stderr, "%s: sbp %s, expected %s\n", desc, a, b);
    }
    CHECK_ALL(same, desc);
}

static void mm_case(const int64_t *sa_sizes, int64_t na, const int64_t *sb_sizes, int64_t nb,
                    const ct_placement *pl, const ct_sbp *sa, const ct_sbp *sb,
                    const ct_sbp *want_sbp) {
    ct_tensor *a = ref_tensor(sa_sizes, na, CT_FLOAT32, 1, false);
    ct_tensor *b = ref_tensor(sb_sizes, nb, CT_FLOAT32, 2, false);
    ct_tensor *want = NULL;
    assert_int_equal(ct_tensor_matmul(a, b, &want), CT_OK);
    ct_global *x = make_global(a, pl, sa), *y = make_global(b, pl, sb), *z = NULL;
    char desc[160], s1[48], s2[48];
    const int64_t nh = ct_placement_ndim(pl);
    ct_nd_sbp_format_short(sa, nh, s1, sizeof s1);
    ct_nd_sbp_format_short(sb, nh, s2, sizeof s2);
    snprintf(desc, sizeof desc, "matmul(%lldD %s, %lldD %s) on %lld ranks", (long long)na, s1,
             (long long)nb, s2, (long long)ct_placement_size(pl));
    ct_status st = ct_global_matmul(x, y, &z);
    check(desc, st, z, want, want_sbp, nh);
    ct_global_release(x);
    ct_global_release(y);
    ct_global_release(z);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(want);
}

/* OneFlow's 2-D signatures and the boxing fallbacks (a [6, 5] larger than b [5, 4]). */
static void test_matmul_signatures(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const int64_t as[2] = {6, 5}, bs[2] = {5, 4};
    const struct {
        ct_sbp a, b, z;
    } rows[] = {
        {S0, B, S0}, {B, S1, S1}, {S1, S0, P}, {B, B, B}, {P, B, P}, {B, P, P},
        {S0, S0, S0}, /* b boxed to B */
        {P, P, P},    /* b boxed to B */
        {S1, S1, P},  /* b boxed to S(0) */
        {B, S0, S1},  /* b boxed to S(1) */
        {S1, B, P},   /* b boxed to S(0) */
        {P, S1, P},   /* b boxed to B */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        mm_case(as, 2, bs, 2, pl, &rows[i].a, &rows[i].b, &rows[i].z);
    /* b larger: b keeps S(0), a is boxed to S(1) */
    const int64_t as2[2] = {3, 5}, bs2[2] = {5, 8};
    mm_case(as2, 2, bs2, 2, pl, &S0, &S0, &P);
    /* 1-D and batched */
    const int64_t v5[1] = {5}, b3[3] = {4, 3, 5}, c3[3] = {4, 5, 2};
    mm_case(v5, 1, v5, 1, pl, &S0, &S0, &P);
    mm_case(v5, 1, bs, 2, pl, &B, &S1, &S0);
    mm_case(as, 2, v5, 1, pl, &S0, &B, &S0);
    mm_case(b3, 3, c3, 3, pl, &S0, &S0, &S0);
    const ct_sbp s2 = {CT_SBP_SPLIT, 2};
    mm_case(b3, 3, c3, 3, pl, &s2, &S1, &P);
    ct_placement_release(pl);
    if (W == 4) {
        ct_placement *mesh = mesh_2x2();
        const ct_sbp a2[2] = {S0, S1}, b2[2] = {B, S0}, z2[2] = {S0, P};
        const int64_t am[2] = {8, 6}, bm[2] = {6, 4};
        mm_case(am, 2, bm, 2, mesh, a2, b2, z2);
        ct_placement_release(mesh);
    }
    if (W >= 2) {
        ct_placement *tail = tail_ranks();
        mm_case(as, 2, bs, 2, tail, &S1, &S0, &P);
        ct_placement_release(tail);
    }
}

static void join_case(bool stack, int64_t dim, const int64_t (*sizes)[2], size_t n,
                      const ct_placement *pl, const ct_sbp *const *sbp, const ct_sbp *want_sbp) {
    ct_tensor *refs[4];
    ct_global *xs[4];
    for (size_t i = 0; i < n; i++) {
        refs[i] = ref_tensor(sizes[i], 2, i == 1 ? CT_INT32 : CT_FLOAT32, (int)i + 3, false);
        xs[i] = make_global(refs[i], pl, sbp[i]);
    }
    ct_tensor *want = NULL;
    assert_int_equal(stack ? ct_tensor_stack((const ct_tensor *const *)refs, n, dim, &want)
                           : ct_tensor_cat((const ct_tensor *const *)refs, n, dim, &want),
                     CT_OK);
    ct_global *z = NULL;
    ct_status st = stack ? ct_global_stack((const ct_global *const *)xs, n, dim, &z)
                         : ct_global_cat((const ct_global *const *)xs, n, dim, &z);
    char desc[120];
    snprintf(desc, sizeof desc, "%s(%zu inputs, dim=%lld) on %lld ranks", stack ? "stack" : "cat",
             n, (long long)dim, (long long)ct_placement_size(pl));
    check(desc, st, z, want, want_sbp, ct_placement_ndim(pl));
    for (size_t i = 0; i < n; i++) {
        ct_global_release(xs[i]);
        ct_tensor_release(refs[i]);
    }
    ct_global_release(z);
    ct_tensor_release(want);
}

static void test_join_signatures(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const int64_t wide[2][2] = {{4, 6}, {4, 3}}, tall[2][2] = {{4, 6}, {3, 6}};
    const int64_t same[3][2] = {{4, 6}, {4, 6}, {4, 6}};
    const ct_sbp s2 = {CT_SBP_SPLIT, 2};
    const ct_sbp *s0s0[2] = {&S0, &S0}, *s1s1[2] = {&S1, &S1}, *pp[2] = {&P, &P};
    const ct_sbp *s0b[2] = {&S0, &B}, *bs1[2] = {&B, &S1}, *s0ps1[3] = {&S0, &P, &S1};
    join_case(false, 1, wide, 2, pl, s0s0, &S0); /* shards joined in place */
    join_case(false, 0, tall, 2, pl, s1s1, &S1);
    join_case(false, -1, wide, 2, pl, s0s0, &S0);
    join_case(false, 0, tall, 2, pl, s0s0, &S1); /* split on the cat dim: boxed to S(1) */
    join_case(false, 0, tall, 2, pl, pp, &S1);   /* partial sums: boxed to S(1) */
    join_case(false, 1, wide, 2, pl, s0b, &S0);  /* mixed: the first input's */
    join_case(false, 0, tall, 2, pl, bs1, &B);
    join_case(true, 0, same, 2, pl, s0s0, &S1); /* stack renumbers */
    join_case(true, 1, same, 2, pl, s1s1, &s2);
    join_case(true, 1, same, 3, pl, s0ps1, &S0);
    ct_placement_release(pl);
    if (W == 4) {
        ct_placement *mesh = mesh_2x2();
        const ct_sbp m0[2] = {S0, S1}, want[2] = {S1, S1};
        const ct_sbp *mm[2] = {m0, m0};
        join_case(false, 0, tall, 2, mesh, mm, want);
        ct_placement_release(mesh);
    }
}

/* The local op's errors and the placement check, on every rank alike. */
static void test_errors(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const int64_t s43[2] = {4, 3}, s52[2] = {5, 2}, s32[2] = {3, 2};
    ct_tensor *a = ref_tensor(s43, 2, CT_FLOAT32, 1, false);
    ct_tensor *b = ref_tensor(s52, 2, CT_FLOAT32, 2, false);
    ct_tensor *c = ref_tensor(s32, 2, CT_FLOAT64, 3, false);
    ct_global *x = make_global(a, pl, &S0), *y = make_global(b, pl, &S1),
              *w = make_global(c, pl, &B), *z = NULL;
    ASSERT_ERR_ALL(ct_global_matmul(x, y, &z), CT_ERR_RUNTIME,
                   "mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)");
    CT_ASSERT_ALL(z == NULL);
    ASSERT_ERR_ALL(ct_global_mm(x, w, &z), CT_ERR_RUNTIME,
                   "expected scalar type Float but found Double");
    const ct_global *pair[2] = {x, y};
    ASSERT_ERR_ALL(ct_global_cat(pair, 2, 1, &z), CT_ERR_RUNTIME,
                   "Sizes of tensors must match except in dimension 1. Expected size 4 but got "
                   "size 5 for tensor number 1 in the list.");
    ASSERT_ERR_ALL(ct_global_cat(NULL, 0, 0, &z), CT_ERR_RUNTIME,
                   "torch.cat(): expected a non-empty list of Tensors");
    const ct_global *with_null[2] = {x, NULL};
    ASSERT_ERR_ALL(ct_global_stack(with_null, 2, 0, &z), CT_ERR_MISUSE,
                   "ct_global_stack: NULL argument");
    if (W >= 2) {
        ct_placement *tail = tail_ranks();
        ct_global *t = make_global(c, tail, &B);
        ct_status st = ct_global_matmul(x, t, &z);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME &&
                      strncmp(ct_last_error(), "Expected all tensors to be on the same placement",
                              48) == 0);
        ct_global_release(t);
        ct_placement_release(tail);
    }
    CT_ASSERT_ALL(z == NULL);
    ct_global_release(x);
    ct_global_release(y);
    ct_global_release(w);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(c);
    ct_placement_release(pl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_signatures),
        cmocka_unit_test(test_join_signatures),
        cmocka_unit_test(test_errors),
    };
    return dist_ops_main(tests, sizeof tests / sizeof tests[0], "matmul and join cases");
}
