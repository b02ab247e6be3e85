/* Basic indexing on the shards (global.h: ct_global_view_is_local, ct_global_view,
 * ct_global_view_set_) against the same steps on the logical tensor, on every placement the
 * world allows and every sbp of a 3-d tensor; the output's sbp against the test's own
 * renumbering; the index that touches a split dim refused alike on every rank. */
#include "dist_ops_util.h"

#include <string.h>

typedef struct {
    const char *name;
    ct_global_step steps[4];
    size_t n;
} step_case;

#define SEL(d, i) {.kind = CT_GLOBAL_STEP_SELECT, .dim = (d), .start = (i)}
#define SLC(d, s, l, k)                                                                            \
    {.kind = CT_GLOBAL_STEP_SLICE, .dim = (d), .start = (s), .length = (l), .step = (k)}
#define NEW(d) {.kind = CT_GLOBAL_STEP_UNSQUEEZE, .dim = (d)}

/* on a (5, 4, 3) tensor */
static const step_case CASES[] = {
    {"[:, 2]", {SLC(0, 0, 5, 1), SEL(1, 2)}, 2},
    {"[1]", {SEL(0, 1)}, 1},
    {"[:, 1:4:2]", {SLC(1, 1, 2, 2)}, 1},
    {"[None, 3, ..., None]", {NEW(0), SEL(1, 3), NEW(3)}, 3},
    {"[..., 0]", {SEL(2, 0)}, 1},
    {"[2:2]", {SLC(0, 2, 0, 1)}, 1},
    {"[:, :, :]", {SLC(0, 0, 5, 1), SLC(1, 0, 4, 1), SLC(2, 0, 3, 1)}, 3},
    {"[4, 3, 2]", {SEL(0, 4), SEL(0, 3), SEL(0, 2)}, 3},
    {"[()]", {SEL(0, 0)}, 0},
};

/* The logical answer: the steps on the reference tensor (a contiguous copy). */
static ct_tensor *apply_steps(const ct_tensor *ref, const step_case *c) {
    ct_tensor *cur = ct_tensor_retain((ct_tensor *)ref), *next = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const ct_global_step *s = &c->steps[i];
        ct_status st;
        if (s->kind == CT_GLOBAL_STEP_SELECT)
            st = ct_tensor_select(cur, s->dim, s->start, &next);
        else if (s->kind == CT_GLOBAL_STEP_SLICE)
            st = ct_tensor_slice(cur, s->dim, s->start, s->start + s->length * s->step, s->step,
                                 &next);
        else
            st = ct_tensor_unsqueeze(cur, s->dim, &next);
        assert_int_equal(st, CT_OK);
        ct_tensor_release(cur);
        cur = next;
    }
    return cur;
}

/* The test's own rule: local unless a select or a partial slice meets a split dim; split
 * dims follow the removed and inserted dims. */
static bool expect_sbp(const ct_tensor *ref, const ct_sbp *in, int64_t nh, const step_case *c,
                       ct_sbp *out) {
    int64_t sizes[CT_MAX_DIMS], nd = ct_tensor_dim(ref);
    memcpy(sizes, ct_tensor_sizes(ref), sizeof(int64_t) * (size_t)nd);
    memcpy(out, in, sizeof(ct_sbp) * (size_t)nh);
    bool local = true;
    for (size_t i = 0; i < c->n; i++) {
        const ct_global_step *s = &c->steps[i];
        for (int64_t k = 0; k < nh; k++) {
            bool on = out[k].kind == CT_SBP_SPLIT && out[k].dim == s->dim;
            if (on && s->kind == CT_GLOBAL_STEP_SELECT)
                local = false;
            if (on && s->kind == CT_GLOBAL_STEP_SLICE &&
                !(s->start == 0 && s->length == sizes[s->dim] && s->step == 1))
                local = false;
            if (out[k].kind == CT_SBP_SPLIT && s->kind == CT_GLOBAL_STEP_SELECT &&
                out[k].dim > s->dim)
                out[k].dim--;
            if (out[k].kind == CT_SBP_SPLIT && s->kind == CT_GLOBAL_STEP_UNSQUEEZE &&
                out[k].dim >= s->dim)
                out[k].dim++;
        }
        if (s->kind == CT_GLOBAL_STEP_SELECT) {
            memmove(sizes + s->dim, sizes + s->dim + 1,
                    sizeof(int64_t) * (size_t)(nd - s->dim - 1));
            nd--;
        } else if (s->kind == CT_GLOBAL_STEP_SLICE) {
            sizes[s->dim] = s->length;
        } else {
            memmove(sizes + s->dim + 1, sizes + s->dim, sizeof(int64_t) * (size_t)(nd - s->dim));
            sizes[s->dim] = 1;
            nd++;
        }
    }
    return local;
}

static void one_case(const ct_tensor *ref, const ct_placement *pl, const ct_sbp *sbp,
                     const step_case *c) {
    n_cases++;
    const int64_t nh = ct_placement_ndim(pl);
    char desc[160], s[64];
    ct_nd_sbp_format_short(sbp, nh, s, sizeof s);
    snprintf(desc, sizeof desc, "x%s of %s on %lld ranks", c->name, s,
             (long long)ct_placement_size(pl));
    ct_sbp want_sbp[CT_PLACEMENT_MAX_NDIM];
    const bool local = expect_sbp(ref, sbp, nh, c, want_sbp);
    ct_global *x = make_global(ref, pl, sbp), *z = NULL;
    CT_ASSERT_ALL(ct_global_view_is_local(x, c->steps, c->n, false) == local);
    const bool has_p = nd_has_p(sbp, nh);
    CT_ASSERT_ALL(ct_global_view_is_local(x, c->steps, c->n, true) == (local && !has_p));
    ct_status st = ct_global_view(x, c->steps, c->n, &z);
    ct_tensor *want = apply_steps(ref, c);
    if (!local) {
        CT_ASSERT_ALL(st == CT_ERR_VALUE && z == NULL);
    } else {
        CT_ASSERT_ALL(st == CT_OK);
        ct_tensor *got = gather_logical(z);
        bool ok = got != NULL && values_match(got, want, true) &&
                  ct_nd_sbp_equal(ct_global_sbp(z), want_sbp, nh);
        if (!ok && R == 0)
            fprintf(stderr, "%s: wrong value or sbp\n", desc);
        CT_ASSERT_ALL(ok);
        ct_tensor_release(got);
        ct_global_release(z);
    }
    /* x[steps] = 7, then x[steps] = the view + 1 (broadcast, from its own sbp) */
    st = ct_global_view_set_(x, c->steps, c->n, NULL, ct_scalar_int(7));
    if (!local || has_p) {
        CT_ASSERT_ALL(st == CT_ERR_VALUE);
    } else {
        CT_ASSERT_ALL(st == CT_OK);
        ct_tensor *expect = NULL, *plus = NULL;
        assert_int_equal(ct_tensor_clone(ref, CT_MEMFMT_CONTIGUOUS, &expect), CT_OK);
        ct_tensor *ev = apply_steps(expect, c);
        assert_int_equal(ct_tensor_fill_(ev, ct_scalar_int(7)), CT_OK);
        ct_tensor *got = gather_logical(x);
        CT_ASSERT_ALL(got != NULL && values_match(got, expect, true));
        ct_tensor_release(got);
        assert_int_equal(ct_add_scalar(want, ct_scalar_int(1), ct_scalar_int(1), &plus), CT_OK);
        ct_global *v = make_global(plus, pl, (const ct_sbp[]){B, B});
        CT_ASSERT_ALL(ct_global_view_set_(x, c->steps, c->n, v, ct_scalar_int(0)) == CT_OK);
        assert_int_equal(ct_tensor_copy_(ev, plus), CT_OK);
        got = gather_logical(x);
        CT_ASSERT_ALL(got != NULL && values_match(got, expect, true));
        ct_tensor_release(got);
        ct_global_release(v);
        ct_tensor_release(ev);
        ct_tensor_release(plus);
        ct_tensor_release(expect);
    }
    ct_tensor_release(want);
    ct_global_release(x);
}

static void test_matrix(void **state) {
    (void)state;
    const int64_t sizes[3] = {5, 4, 3};
    ct_tensor *ref = ref_tensor(sizes, 3, CT_FLOAT64, 1, false);
    const ct_sbp one[] = {B, S0, S1, {CT_SBP_SPLIT, 2}, P};
    ct_placement *pl = all_ranks();
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++)
            one_case(ref, pl, &one[i], &CASES[c]);
    ct_placement_release(pl);
    if (W >= 2) { /* rank 0 outside */
        pl = tail_ranks();
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++)
            one_case(ref, pl, &S1, &CASES[c]);
        ct_placement_release(pl);
    }
    if (W == 4) {
        pl = mesh_2x2();
        const ct_sbp two[][2] = {{S0, S1}, {S0, S0}, {B, {CT_SBP_SPLIT, 2}}, {P, S1}};
        for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
            for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++)
                one_case(ref, pl, two[i], &CASES[c]);
        ct_placement_release(pl);
    }
    ct_tensor_release(ref);
}

static void test_errors(void **state) {
    (void)state;
    const int64_t sizes[2] = {4, 3};
    ct_tensor *ref = ref_tensor(sizes, 2, CT_FLOAT32, 2, false);
    ct_placement *pl = all_ranks();
    ct_global *x = make_global(ref, pl, &S0), *z = NULL;
    const ct_global_step bad[][1] = {{SEL(1, 3)}, {SEL(2, 0)}, {SLC(1, 1, 3, 1)},
                                     {SLC(1, 0, 2, 0)}, {NEW(3)}};
    const ct_status want[] = {CT_ERR_INDEX, CT_ERR_INDEX, CT_ERR_VALUE, CT_ERR_VALUE,
                              CT_ERR_INDEX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n_cases++;
        CT_ASSERT_ALL(!ct_global_view_is_local(x, bad[i], 1, false));
        CT_ASSERT_ALL(ct_global_view(x, bad[i], 1, &z) == want[i] && z == NULL);
        CT_ASSERT_ALL(ct_global_view_set_(x, bad[i], 1, NULL, ct_scalar_int(0)) == want[i]);
    }
    /* NULL arguments: misuse, after the agreement, on every rank */
    CT_ASSERT_ALL(ct_global_view(NULL, bad[0], 1, &z) == CT_ERR_MISUSE);
    CT_ASSERT_ALL(ct_global_view(x, NULL, 1, &z) == CT_ERR_MISUSE);
    CT_ASSERT_ALL(!ct_global_view_is_local(NULL, NULL, 0, false));
    /* a step that differs between ranks: every rank fails */
    if (W >= 2) {
        const ct_global_step mine[1] = {SEL(1, R % 2)};
        CT_ASSERT_ALL(ct_global_view(x, mine, 1, &z) == CT_ERR_RUNTIME && z == NULL);
    }
    ct_global_release(x);
    ct_placement_release(pl);
    ct_tensor_release(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix),
        cmocka_unit_test(test_errors),
    };
    return dist_ops_main(tests, sizeof tests / sizeof tests[0], "view cases");
}
