/* max / min with a dim, argmax / argmin and cumsum / cumprod of global tensors (global.h:
 * ct_global_max_dim, ct_global_argmax, ct_global_cumulative) on 1..4 ranks.
 *
 * As test_dist_oneop.c: every rank builds the same logical reference (small integers, many
 * ties; a NaN in float), the global inputs are slices of it, the results are gathered with
 * plain MPI and compared with the local op on the whole reference (indices exactly), and the
 * nd-sbp with global.h's rule per hierarchy axis. Errors come back identically everywhere. */
#include "dist_ops_util.h"


typedef enum kind { K_MAX, K_MIN, K_ARGMAX, K_ARGMIN, K_CUMSUM, K_CUMPROD } kind;
static const char *const KIND_NAMES[] = {"max", "min", "argmax", "argmin", "cumsum", "cumprod"};

/* global.h's rule for one axis; dim < -100: argmax without a dim. */
static ct_sbp expected_axis(kind k, ct_sbp s, int64_t dim, bool keepdim, int64_t ndim, ct_dtype in,
                            ct_dtype out) {
    const bool cum = k == K_CUMSUM || k == K_CUMPROD;
    const int64_t d = dim < -100 ? -1 : (dim < 0 ? dim + ndim : dim);
    if (s.kind == CT_SBP_BROADCAST)
        return B;
    if (s.kind == CT_SBP_PARTIAL_SUM) {
        const bool fl_in = ct_dtype_is_floating_point(in), fl_out = ct_dtype_is_floating_point(out);
        return k == K_CUMSUM && ((fl_in && fl_out) || in == out) ? P : B;
    }
    if (d < 0 || s.dim == d)
        return B;
    if (!cum && !keepdim && s.dim > d)
        return (ct_sbp){.kind = CT_SBP_SPLIT, .dim = s.dim - 1};
    return s;
}

static bool outcomes_match(const char *desc, ct_status want_st, const char *want_msg,
                           ct_status st) {
    bool same = st == want_st && (st == CT_OK || strcmp(ct_last_error(), want_msg) == 0);
    if (!same && R == 0)
        fprintf(stderr, "%s: want %d \"%s\", got %d \"%s\"\n", desc, (int)want_st, want_msg,
                (int)st, ct_last_error());
    return same;
}

static void check_output(const char *desc, const ct_global *z, const ct_tensor *want,
                         const ct_sbp *e, int64_t nh) {
    ct_tensor *got = gather_logical(z);
    const bool exact = ct_dtype_is_integral(ct_tensor_dtype(want), true);
    CHECK_ALL(got != NULL && values_match(got, want, exact), desc);
    CHECK_ALL(ct_nd_sbp_equal(ct_global_sbp(z), e, nh), desc);
    ct_tensor_release(got);
}

static void one_case(kind k, const ct_tensor *ref, const ct_placement *pl, const ct_sbp *sbp,
                     int64_t dim, bool keepdim, ct_dtype dtype) {
    n_cases++;
    const int64_t nh = ct_placement_ndim(pl), ndim = ct_tensor_dim(ref);
    char desc[200], s[64];
    ct_nd_sbp_format_short(sbp, nh, s, sizeof s);
    snprintf(desc, sizeof desc, "%s(%s %s, dim %lld, keepdim %d, dtype %d) on %lld ranks",
             KIND_NAMES[k], ct_dtype_name(ct_tensor_dtype(ref)), s, (long long)dim, keepdim,
             (int)dtype, (long long)ct_placement_size(pl));
    const bool has_dim = dim >= -100;
    ct_tensor *w0 = NULL, *w1 = NULL;
    ct_status wst;
    switch (k) {
    case K_MAX:
    case K_MIN:
        wst = (k == K_MAX ? ct_max_dim : ct_min_dim)(ref, dim, keepdim, &w0, &w1);
        break;
    case K_ARGMAX:
    case K_ARGMIN:
        wst = (k == K_ARGMAX ? ct_argmax : ct_argmin)(ref, has_dim ? &dim : NULL, keepdim, &w0);
        break;
    default:
        wst = ct_cumulative(k == K_CUMPROD, ref, dim, dtype, NULL, &w0);
    }
    char wmsg[512] = "";
    if (wst != CT_OK)
        snprintf(wmsg, sizeof wmsg, "%s", ct_last_error());
    ct_global *g = make_global(ref, pl, sbp), *z0 = NULL, *z1 = NULL;
    ct_status st;
    switch (k) {
    case K_MAX:
    case K_MIN:
        st = (k == K_MAX ? ct_global_max_dim : ct_global_min_dim)(g, dim, keepdim, &z0, &z1);
        break;
    case K_ARGMAX:
    case K_ARGMIN:
        st = (k == K_ARGMAX ? ct_global_argmax : ct_global_argmin)(g, has_dim ? &dim : NULL,
                                                                   keepdim, &z0);
        break;
    default:
        st = ct_global_cumulative(k == K_CUMPROD, g, dim, dtype, &z0);
    }
    CHECK_ALL(outcomes_match(desc, wst, wmsg, st), desc);
    if (wst == CT_OK && st == CT_OK) {
        ct_sbp e[CT_PLACEMENT_MAX_NDIM];
        for (int64_t i = 0; i < nh; i++)
            e[i] = expected_axis(k, sbp[i], dim, keepdim, ndim, ct_tensor_dtype(ref),
                                 ct_tensor_dtype(w0));
        check_output(desc, z0, w0, e, nh);
        if (w1 != NULL) {
            CHECK_ALL(z1 != NULL && ct_global_dtype(z1) == CT_INT64, desc);
            if (z1 != NULL)
                check_output(desc, z1, w1, e, nh);
        }
    } else {
        CHECK_ALL(z0 == NULL && z1 == NULL, desc);
    }
    ct_tensor_release(w0);
    ct_tensor_release(w1);
    ct_global_release(z0);
    ct_global_release(z1);
    ct_global_release(g);
}

/* A reference with ties and, for float, a NaN. */
static ct_tensor *reference(ct_dtype dtype, int seed) {
    int64_t sizes[2] = {7, 5};
    ct_tensor *ref = ref_tensor(sizes, 2, dtype, seed, false);
    if (ct_dtype_is_floating_point(dtype)) {
        ct_tensor *t = NULL;
        int64_t at = 2 * 5 + 3;
        assert_int_equal(ct_tensor_to_dtype(ref, CT_FLOAT64, &t), CT_OK);
        ((double *)ct_tensor_data_ptr(t))[at] = NAN;
        ct_tensor_release(ref);
        ref = NULL;
        assert_int_equal(ct_tensor_to_dtype(t, dtype, &ref), CT_OK);
        ct_tensor_release(t);
    }
    return ref;
}

static void test_matrix(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const ct_sbp set[4] = {S0, S1, B, P};
    const ct_dtype dts[2] = {CT_FLOAT32, CT_INT32};
    const int64_t dims[] = {0, 1, -1, -200};
    for (int t = 0; t < 2; t++) {
        ct_tensor *ref = reference(dts[t], 3 + t);
        for (int i = 0; i < 4; i++) {
            for (int kk = K_MAX; kk <= K_ARGMIN; kk++)
                for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
                    for (int keep = 0; keep < 2; keep++)
                        if (dims[d] >= -100 || kk >= K_ARGMAX)
                            one_case((kind)kk, ref, pl, &set[i], dims[d], keep, CT_DTYPE_UNDEFINED);
            for (int kk = K_CUMSUM; kk <= K_CUMPROD; kk++)
                for (size_t d = 0; d < 3; d++) {
                    one_case((kind)kk, ref, pl, &set[i], dims[d], false, CT_DTYPE_UNDEFINED);
                    one_case((kind)kk, ref, pl, &set[i], dims[d], false, CT_FLOAT64);
                }
        }
        ct_tensor_release(ref);
    }
    ct_placement_release(pl);
}

/* The 2x2 mesh (4 ranks) and a placement without rank 0 (2..4 ranks). */
static void test_placements(void **state) {
    (void)state;
    ct_tensor *ref = reference(CT_FLOAT32, 7);
    if (W == 4) {
        ct_placement *pl = mesh_2x2();
        const ct_sbp nds[5][2] = {{S0, S1}, {S1, S0}, {P, S1}, {S0, P}, {S1, S1}};
        for (int i = 0; i < 5; i++) {
            one_case(K_MAX, ref, pl, nds[i], 0, false, CT_DTYPE_UNDEFINED);
            one_case(K_MIN, ref, pl, nds[i], 1, true, CT_DTYPE_UNDEFINED);
            one_case(K_ARGMAX, ref, pl, nds[i], -200, false, CT_DTYPE_UNDEFINED);
            one_case(K_ARGMIN, ref, pl, nds[i], -1, false, CT_DTYPE_UNDEFINED);
            one_case(K_CUMSUM, ref, pl, nds[i], 0, false, CT_DTYPE_UNDEFINED);
            one_case(K_CUMPROD, ref, pl, nds[i], 1, false, CT_DTYPE_UNDEFINED);
        }
        ct_placement_release(pl);
    }
    if (W >= 2) {
        ct_placement *pl = tail_ranks();
        const ct_sbp set[4] = {S0, S1, B, P};
        for (int i = 0; i < 4; i++) {
            one_case(K_MAX, ref, pl, &set[i], 1, false, CT_DTYPE_UNDEFINED);
            one_case(K_ARGMIN, ref, pl, &set[i], 0, true, CT_DTYPE_UNDEFINED);
            one_case(K_CUMSUM, ref, pl, &set[i], 0, false, CT_DTYPE_UNDEFINED);
        }
        ct_placement_release(pl);
    }
    ct_tensor_release(ref);
}

static void test_errors(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    ct_tensor *ref = reference(CT_FLOAT32, 1);
    int64_t empty_sizes[2] = {3, 0}, d2 = 2;
    ct_tensor *empty = ref_tensor(empty_sizes, 2, CT_FLOAT32, 0, false);
    ct_global *g = make_global(ref, pl, &S0), *e = make_global(empty, pl, &B);
    ct_global *v = NULL, *ix = NULL;
    ASSERT_ERR_ALL(ct_global_max_dim(g, 2, false, &v, &ix), CT_ERR_INDEX,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CT_ASSERT_ALL(v == NULL && ix == NULL);
    ASSERT_ERR_ALL(ct_global_min_dim(e, 1, false, &v, &ix), CT_ERR_INDEX,
                   "min(): Expected reduction dim 1 to have non-zero size.");
    ASSERT_ERR_ALL(ct_global_argmax(e, NULL, false, &v), CT_ERR_INDEX,
                   "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
    ASSERT_ERR_ALL(ct_global_argmin(g, &d2, false, &v), CT_ERR_INDEX,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    ASSERT_ERR_ALL(ct_global_cumulative(false, NULL, 0, CT_DTYPE_UNDEFINED, &v), CT_ERR_MISUSE,
                   "ct_global_cumulative: NULL argument");
    ASSERT_ERR_ALL(ct_global_max_dim(g, 0, false, &v, NULL), CT_ERR_MISUSE,
                   "ct_global_max_dim: NULL argument");
    CT_ASSERT_ALL(v == NULL);
    if (W >= 2) {
        /* a dim that differs between ranks, then different ops: every rank fails */
        ct_status st = ct_global_max_dim(g, R == 1 ? 1 : 0, false, &v, &ix);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && v == NULL && ix == NULL &&
                      strstr(ct_last_error(), "global operation arguments differ across ranks"));
        st = R == 1 ? ct_global_cumulative(true, g, 0, CT_DTYPE_UNDEFINED, &v)
                    : ct_global_cumulative(false, g, 0, CT_DTYPE_UNDEFINED, &v);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && v == NULL);
        st = ct_global_argmax(g, NULL, R == 1, &v);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && v == NULL);
    }
    CT_ASSERT_ALL(ct_global_max_dim(g, 0, false, &v, &ix) == CT_OK);
    ct_global_release(v);
    ct_global_release(ix);
    ct_global_release(g);
    ct_global_release(e);
    ct_tensor_release(ref);
    ct_tensor_release(empty);
    ct_placement_release(pl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix),
        cmocka_unit_test(test_placements),
        cmocka_unit_test(test_errors),
    };
    return dist_ops_main(tests, sizeof tests / sizeof tests[0], "arg-reduction and scan cases");
}
