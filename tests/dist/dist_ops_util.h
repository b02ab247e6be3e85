/* Helpers of the C tests of operations on global tensors (test_dist_ops.c, test_dist_oneop.c):
 * placements, sbp constants, deterministic logical reference tensors, global tensors built
 * directly from slices of them (ct_dist_impl_global_make, so the tests depend on neither
 * ct_global_from_local nor ct_global_to_logical), the logical value of a global tensor
 * gathered with plain MPI, value comparison, and the tests' main (dist_ops_main, which
 * sets W and R, the world size and rank, before the tests run). */
#ifndef CT_TESTS_DIST_OPS_UTIL_H
#define CT_TESTS_DIST_OPS_UTIL_H

#include "dist_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

static int W, R;     /* world size, rank */
static long n_cases; /* counted by the tests, printed by dist_ops_main */

/* ---- placements, sbp ------------------------------------------------------------------- */

static inline ct_placement *placement(const int64_t *ranks, const int64_t *h, int64_t nd) {
    ct_placement *p = NULL;
    assert_int_equal(ct_placement_new("cpu", ranks, h, nd, &p), CT_OK);
    return p;
}

static inline ct_placement *all_ranks(void) {
    int64_t r[64], h = W;
    for (int i = 0; i < W; i++)
        r[i] = i;
    return placement(r, &h, 1);
}

/* ranks 1..W-1: rank 0 is outside (W >= 2). */
static inline ct_placement *tail_ranks(void) {
    int64_t r[64], h = W - 1;
    for (int i = 1; i < W; i++)
        r[i - 1] = i;
    return placement(r, &h, 1);
}

static inline ct_placement *mesh_2x2(void) {
    int64_t r[4] = {0, 1, 2, 3}, h[2] = {2, 2};
    return placement(r, h, 2);
}

static const ct_sbp S0 = {CT_SBP_SPLIT, 0}, S1 = {CT_SBP_SPLIT, 1};
static const ct_sbp B = {CT_SBP_BROADCAST, -1}, P = {CT_SBP_PARTIAL_SUM, -1};

static inline bool nd_valid(const ct_sbp *s, int64_t nh, int64_t ndim) {
    for (int64_t k = 0; k < nh; k++)
        if (s[k].kind == CT_SBP_SPLIT && s[k].dim >= ndim)
            return false;
    return true;
}

static inline bool nd_has_p(const ct_sbp *s, int64_t nh) {
    for (int64_t k = 0; k < nh; k++)
        if (s[k].kind == CT_SBP_PARTIAL_SUM)
            return true;
    return false;
}

/* ---- tensors ------------------------------------------------------------------------------ */

/* A deterministic logical tensor, the same on every rank: small integers (halves for float
 * dtypes), exact in float16; `nonzero` avoids 0 (divisors). */
static inline ct_tensor *ref_tensor(const int64_t *sizes, int64_t ndim, ct_dtype dtype, int seed,
                             bool nonzero) {
    int64_t n = 1;
    for (int64_t i = 0; i < ndim; i++)
        n *= sizes[i];
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) {
        int k = (int)((i * 37 + seed * 11 + 5) % 17) - 8;
        if (nonzero && k == 0)
            k = 3;
        v[i] = ct_dtype_is_floating_point(dtype) ? k * 0.5 : k;
    }
    ct_tensor *t64 = NULL, *t = NULL;
    assert_int_equal(ct_tensor_from_data(sizes, ndim, CT_FLOAT64, v, NULL, &t64), CT_OK);
    assert_int_equal(ct_tensor_to_dtype(t64, dtype, &t), CT_OK);
    ct_tensor_release(t64);
    free(v);
    return t;
}

/* The global tensor whose logical value is `ref`, on `pl` with nd-sbp `sbp`. */
static inline ct_global *make_global(const ct_tensor *ref, const ct_placement *pl, const ct_sbp *sbp) {
    const int64_t ndim = ct_tensor_dim(ref), nh = ct_placement_ndim(pl);
    const ct_dtype dtype = ct_tensor_dtype(ref);
    const int64_t pid = ct_dist_impl_placement_my_pid(pl);
    ct_tensor *local = NULL;
    if (pid < 0) {
        assert_int_equal(ct_dist_impl_global_empty_local(dtype, ndim, &local), CT_OK);
    } else {
        int64_t coords[CT_PLACEMENT_MAX_NDIM], m = 1;
        bool first = true;
        ct_dist_impl_placement_coords(pl, pid, coords);
        for (int64_t k = 0; k < nh; k++)
            if (sbp[k].kind == CT_SBP_PARTIAL_SUM) {
                m *= ct_placement_hierarchy(pl)[k];
                first = first && coords[k] == 0;
            }
        ct_tensor *part = NULL, *ones = NULL;
        assert_int_equal(ct_tensor_ones(ct_tensor_sizes(ref), ndim, dtype, NULL, CT_LAYOUT_STRIDED,
                                        &ones),
                         CT_OK);
        /* bool partial sums are a logical or: every rank holds ref (a sum would count it
         * m times). */
        if (m == 1 || dtype == CT_BOOL)
            part = ct_tensor_retain((ct_tensor *)ref);
        else if (first)
            assert_int_equal(ct_sub(ref, ones, ct_scalar_int(m - 1), &part), CT_OK);
        else
            part = ct_tensor_retain(ones);
        ct_tensor_release(ones);
        ct_box box;
        ct_dist_impl_local_box(ct_tensor_sizes(ref), ndim, pl, sbp, pid, &box);
        for (int64_t d = 0; d < ndim; d++) {
            ct_tensor *v = NULL;
            assert_int_equal(ct_tensor_narrow(part, d, box.begin[d], box.len[d], &v), CT_OK);
            ct_tensor_release(part);
            part = v;
        }
        assert_int_equal(ct_tensor_clone(part, CT_MEMFMT_CONTIGUOUS, &local), CT_OK);
        ct_tensor_release(part);
    }
    ct_global *g = NULL;
    assert_int_equal(
        ct_dist_impl_global_make(dtype, ct_tensor_sizes(ref), ndim, pl, sbp, local, &g), CT_OK);
    return g;
}

/* The logical value of `g` on every rank, from every member's component (gathered with MPI
 * over the world): splits placed at their box, partial sums added, broadcast replicas read
 * from coordinate 0. NULL (on every rank) when some component is not its rank's box. */
static inline ct_tensor *gather_logical(const ct_global *g) {
    const ct_placement *pl = ct_global_placement(g);
    const ct_sbp *sbp = ct_global_sbp(g);
    const int64_t ndim = ct_global_dim(g), nh = ct_placement_ndim(pl);
    const int64_t *sizes = ct_global_sizes(g);
    const ct_dtype dtype = ct_global_dtype(g);
    const size_t item = ct_dtype_itemsize(dtype);
    const int64_t pid = ct_dist_impl_placement_my_pid(pl);
    ct_tensor *mine = NULL;
    assert_int_equal(ct_tensor_contiguous(ct_global_local(g), CT_MEMFMT_CONTIGUOUS, &mine), CT_OK);
    int ok = 1, nbytes = 0;
    if (pid >= 0) {
        ct_box box;
        ct_dist_impl_local_box(sizes, ndim, pl, sbp, pid, &box);
        ok = ct_tensor_dim(mine) == ndim && ct_tensor_dtype(mine) == dtype;
        for (int64_t d = 0; ok && d < ndim; d++)
            ok = ct_tensor_sizes(mine)[d] == box.len[d];
        nbytes = ok ? (int)(ct_tensor_numel(mine) * (int64_t)item) : 0;
    }
    int counts[64], displs[64], total = 0;
    MPI_Allgather(&nbytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < W; r++) {
        displs[r] = total;
        total += counts[r];
    }
    char *buf = malloc((size_t)total + 1);
    assert_non_null(buf);
    MPI_Allgatherv(ct_tensor_data_ptr(mine), nbytes, MPI_BYTE, buf, counts, displs, MPI_BYTE,
                   MPI_COMM_WORLD);
    ct_tensor_release(mine);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    ct_tensor *acc = NULL;
    if (ok)
        assert_int_equal(ct_tensor_zeros(sizes, ndim, dtype, NULL, CT_LAYOUT_STRIDED, &acc), CT_OK);
    for (int64_t j = 0; ok && j < ct_placement_size(pl); j++) {
        int64_t coords[CT_PLACEMENT_MAX_NDIM];
        bool skip = false, first = true;
        ct_dist_impl_placement_coords(pl, j, coords);
        for (int64_t k = 0; k < nh; k++) {
            skip = skip || (sbp[k].kind == CT_SBP_BROADCAST && coords[k] != 0);
            first = first && (sbp[k].kind != CT_SBP_PARTIAL_SUM || coords[k] == 0);
        }
        if (skip)
            continue;
        ct_box box;
        ct_dist_impl_local_box(sizes, ndim, pl, sbp, j, &box);
        int rank = (int)ct_placement_ranks(pl)[j];
        ct_tensor *src = NULL, *view = ct_tensor_retain(acc);
        assert_int_equal(ct_tensor_from_data(box.len, ndim, dtype, buf + displs[rank], NULL, &src),
                         CT_OK);
        for (int64_t d = 0; d < ndim; d++) {
            ct_tensor *v = NULL;
            assert_int_equal(ct_tensor_narrow(view, d, box.begin[d], box.len[d], &v), CT_OK);
            ct_tensor_release(view);
            view = v;
        }
        /* The first of a partial group is copied (keeps -0.0), the others added. */
        if (first)
            assert_int_equal(ct_tensor_copy_(view, src), CT_OK);
        else
            assert_int_equal(ct_add_(view, src, ct_scalar_int(1)), CT_OK);
        ct_tensor_release(view);
        ct_tensor_release(src);
    }
    free(buf);
    return acc;
}

/* Same dtype and shape, and equal values: bytes, or within a tolerance (NaN == NaN). */
static inline bool values_match(const ct_tensor *got, const ct_tensor *want, bool exact) {
    if (!got || !want || ct_tensor_dtype(got) != ct_tensor_dtype(want) ||
        ct_tensor_dim(got) != ct_tensor_dim(want))
        return false;
    for (int64_t d = 0; d < ct_tensor_dim(got); d++)
        if (ct_tensor_sizes(got)[d] != ct_tensor_sizes(want)[d])
            return false;
    ct_tensor *a = NULL, *b = NULL, *ca = NULL, *cb = NULL;
    ct_dtype as = exact ? ct_tensor_dtype(got) : CT_FLOAT64;
    assert_int_equal(ct_tensor_to_dtype(got, as, &a), CT_OK);
    assert_int_equal(ct_tensor_to_dtype(want, as, &b), CT_OK);
    assert_int_equal(ct_tensor_contiguous(a, CT_MEMFMT_CONTIGUOUS, &ca), CT_OK);
    assert_int_equal(ct_tensor_contiguous(b, CT_MEMFMT_CONTIGUOUS, &cb), CT_OK);
    bool same = true;
    if (exact) {
        same = memcmp(ct_tensor_data_ptr(ca), ct_tensor_data_ptr(cb),
                      (size_t)ct_tensor_nbytes(ca)) == 0;
    } else {
        double tol = ct_tensor_dtype(got) == CT_FLOAT16 || ct_tensor_dtype(got) == CT_BFLOAT16
                         ? 1e-2
                         : 1e-5;
        const double *x = ct_tensor_data_ptr(ca), *y = ct_tensor_data_ptr(cb);
        for (int64_t i = 0; same && i < ct_tensor_numel(ca); i++) {
            if (isnan(x[i]) || isnan(y[i]))
                same = isnan(x[i]) && isnan(y[i]);
            else if (isinf(y[i]))
                same = x[i] == y[i];
            else
                same = fabs(x[i] - y[i]) <= tol + tol * fabs(y[i]);
        }
    }
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(ca);
    ct_tensor_release(cb);
    return same;
}

/* Assert on every rank, naming the case on failure. */
#define CHECK_ALL(cond, desc) assert_true(ct_test_all((cond) ? 1 : 0, (desc), __FILE__, __LINE__))

/* An error with this status and exactly this message, on every rank. */
#define ASSERT_ERR_ALL(call, status, msg)                                                     \
    do {                                                                                      \
        ct_status st_ = (call);                                                               \
        CT_ASSERT_ALL(st_ == (status) && strcmp(ct_last_error(), (msg)) == 0);                \
    } while (0)

/* ---- main ------------------------------------------------------------------------------------ */

/* The main of an ops test: MPI started, W and R set, `tests` run on every rank, rank 0 prints
 * how many cases ran ("<n> <what>"); returns main's exit status (every rank's verdict). */
static inline int dist_ops_main(const struct CMUnitTest *tests, size_t n, const char *what) {
    ct_test_start();
    W = ct_test_world();
    R = ct_test_rank();
    int failures = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
    if (R == 0)
        printf("%ld %s\n", n_cases, what);
    return ct_test_finish(failures);
}

#endif /* CT_TESTS_DIST_OPS_UTIL_H */
