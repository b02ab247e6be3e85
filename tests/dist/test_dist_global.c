/* Global tensors: local -> global, the factories, from_tensor, to_local, to_global's
 * agreement and identity, to_logical (libctensor_dist), on 1..4 ranks. Everything whose
 * outcome may differ between ranks is checked with CT_ASSERT_ALL. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"
#include "dist_test_util.h"
#include "warning_capture.h"

static int g_rank, g_world;
static const ct_device g_cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

/* ---- helpers ---------------------------------------------------------------------------------- */

static ct_placement *place(const int64_t *ranks, const int64_t *h, int64_t nd) {
    ct_placement *p = NULL;
    assert_int_equal(ct_placement_new("cpu", ranks, h, nd, &p), CT_OK);
    return p;
}

static ct_placement *world_placement(void) {
    ct_placement *p = NULL;
    assert_int_equal(ct_placement_all("cpu", &p), CT_OK);
    return p;
}

/* ranks 1..world-1 (world > 1) */
static ct_placement *tail_placement(void) {
    int64_t r[4], h[1] = {g_world - 1};
    for (int i = 1; i < g_world; i++)
        r[i - 1] = i;
    return place(r, h, 1);
}

static ct_tensor *tfull(const int64_t *sizes, int64_t nd, double v, ct_dtype dt) {
    ct_tensor *t = NULL;
    assert_int_equal(ct_tensor_full(sizes, nd, ct_scalar_float(v), dt, &g_cpu, CT_LAYOUT_STRIDED, &t),
                     CT_OK);
    return t;
}

/* The elements of any cpu tensor as doubles (malloc'ed, row-major). */
static double *values(const ct_tensor *t, int64_t *n) {
    ct_tensor *d = NULL, *c = NULL;
    assert_int_equal(ct_tensor_to_dtype(t, CT_FLOAT64, &d), CT_OK);
    assert_int_equal(ct_tensor_contiguous(d, CT_MEMFMT_CONTIGUOUS, &c), CT_OK);
    *n = ct_tensor_numel(c);
    double *v = malloc(sizeof(double) * (size_t)(*n ? *n : 1));
    memcpy(v, ct_tensor_data_ptr(c), sizeof(double) * (size_t)*n);
    ct_tensor_release(d);
    ct_tensor_release(c);
    return v;
}

static bool all_values(const ct_tensor *t, double want) {
    int64_t n;
    double *v = values(t, &n);
    bool ok = true;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == want;
    free(v);
    return ok;
}

static bool shape_is(const ct_tensor *t, const int64_t *sizes, int64_t nd) {
    return ct_tensor_dim(t) == nd &&
           (nd == 0 || memcmp(ct_tensor_sizes(t), sizes, sizeof(int64_t) * (size_t)nd) == 0);
}

static bool gshape_is(const ct_global *g, const int64_t *sizes, int64_t nd) {
    return ct_global_dim(g) == nd &&
           (nd == 0 || memcmp(ct_global_sizes(g), sizes, sizeof(int64_t) * (size_t)nd) == 0);
}

/* The logical value, fetched on every rank. */
static double *logical(const ct_global *g, int64_t *n) {
    ct_tensor *t = NULL;
    ct_status st = ct_global_to_logical(g, &t);
    if (st != CT_OK)
        fprintf(stderr, "rank %d: to_logical: %s\n", g_rank, ct_last_error());
    CT_ASSERT_ALL(st == CT_OK && shape_is(t, ct_global_sizes(g), ct_global_dim(g)) &&
                  ct_tensor_dtype(t) == ct_global_dtype(g) &&
                  ct_tensor_device(t).type == CT_DEVICE_CPU);
    double *v = values(t, n);
    ct_tensor_release(t);
    return v;
}

static bool msg_is(ct_status st, ct_status kind, const char *msg) {
    if (st != kind || strcmp(ct_last_error(), msg) != 0) {
        fprintf(stderr, "rank %d: got %d \"%s\", want %d \"%s\"\n", g_rank, (int)st,
                ct_last_error(), (int)kind, msg);
        return false;
    }
    return true;
}

static ct_sbp split(int64_t d) {
    ct_sbp s;
    ct_sbp_split(d, &s);
    return s;
}

/* ---- local -> global ---------------------------------------------------------------------------- */

static void test_from_local_split0(void **state) {
    (void)state;
    ct_placement *p = world_placement();
    int64_t sz[2] = {2, 3};
    ct_tensor *t = tfull(sz, 2, g_rank, CT_INT32);
    ct_sbp s0 = split(0);
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t want[2] = {2 * g_world, 3};
    CT_ASSERT_ALL(gshape_is(g, want, 2) && ct_global_dtype(g) == CT_INT32 &&
                  ct_global_numel(g) == 6 * g_world);
    CT_ASSERT_ALL(ct_placement_equal(ct_global_placement(g), p) &&
                  ct_sbp_equal(ct_global_sbp(g)[0], s0));
    /* the component is the input itself (contiguous, same device) */
    CT_ASSERT_ALL(ct_global_local(g) == t ||
                  ct_tensor_storage(ct_global_local(g)) == ct_tensor_storage(t));
    int64_t n;
    double *v = logical(g, &n);
    bool ok = n == 6 * g_world;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == (double)(i / 6);
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    /* without check_meta the same logical shape (equal parts) */
    CT_ASSERT_ALL(ct_global_from_local(t, p, &s0, 1, 0, &g) == CT_OK && gshape_is(g, want, 2));
    ct_global_release(g);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_from_local_split1_uneven(void **state) {
    (void)state;
    ct_placement *p = world_placement();
    /* logical (3, 7): column j holds j; each rank has its balanced columns */
    int64_t b, l;
    ct_dist_impl_balanced_part(7, g_world, g_rank, &b, &l);
    int64_t sz[2] = {3, l};
    ct_tensor *t = NULL;
    assert_int_equal(ct_tensor_empty(sz, 2, CT_FLOAT32, &g_cpu, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &t),
                     CT_OK);
    float *d = ct_tensor_data_ptr(t);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < l; j++)
            d[i * l + j] = (float)(b + j);
    ct_sbp s1 = split(1);
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &s1, 1, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t want[2] = {3, 7};
    CT_ASSERT_ALL(gshape_is(g, want, 2) && shape_is(ct_global_local(g), sz, 2));
    int64_t n;
    double *v = logical(g, &n);
    bool ok = n == 21;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == (double)(i % 7);
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_from_local_broadcast(void **state) {
    (void)state;
    /* OneFlow's test_local_to_global_broadcast_data: rank 0 ones, the others zeros */
    ct_placement *p = world_placement();
    int64_t sz[2] = {4, 2};
    ct_sbp b = ct_sbp_broadcast();
    ct_tensor *t = tfull(sz, 2, g_rank == 0 ? 1 : 0, CT_FLOAT32);
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &b, 1, CT_GLOBAL_COPY, &g) == CT_OK);
    CT_ASSERT_ALL(gshape_is(g, sz, 2) && all_values(ct_global_local(g), 1.0));
    CT_ASSERT_ALL(all_values(t, g_rank == 0 ? 1.0 : 0.0)); /* COPY: input untouched */
    CT_ASSERT_ALL(ct_tensor_storage(ct_global_local(g)) != ct_tensor_storage(t));
    ct_global_release(g);
    /* without COPY the input itself is overwritten, with one warning per process */
    ct_set_warning_handler(on_warning, NULL);
    nwarnings = 0;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &b, 1, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    CT_ASSERT_ALL(all_values(t, 1.0) && all_values(ct_global_local(g), 1.0));
    CT_ASSERT_ALL(nwarnings == (g_rank == 0 ? 0 : 1));
    CT_ASSERT_ALL(g_rank == 0 || strstr(last_warning, "overwrites the local tensor") != NULL);
    ct_global_release(g);
    CT_ASSERT_ALL(ct_global_from_local(t, p, &b, 1, 0, &g) == CT_OK);
    CT_ASSERT_ALL(nwarnings == (g_rank == 0 ? 0 : 1)); /* once */
    ct_set_warning_handler(NULL, NULL);
    int64_t n;
    double *v = logical(g, &n);
    bool ok = n == 8;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == 1.0;
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_from_local_partial(void **state) {
    (void)state;
    ct_placement *p = world_placement();
    int64_t sz[2] = {2, 2};
    ct_sbp ps = ct_sbp_partial_sum();
    ct_tensor *t = tfull(sz, 2, g_rank + 1, CT_INT64);
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &ps, 1, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    CT_ASSERT_ALL(gshape_is(g, sz, 2) && all_values(ct_global_local(g), g_rank + 1));
    int64_t n;
    double *v = logical(g, &n);
    bool ok = n == 4;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == g_world * (g_world + 1) / 2;
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_from_local_2d(void **state) {
    (void)state;
    if (g_world != 4)
        return;
    int64_t r[4] = {0, 1, 2, 3}, h[2] = {2, 2};
    ct_placement *p = place(r, h, 2);
    int64_t sz[2] = {4, 2};
    ct_tensor *t = tfull(sz, 2, g_rank, CT_FLOAT32);
    ct_global *g = NULL;
    int64_t n;
    /* OneFlow 1n4d: (P, S(0)) -> logical (8, 2); rows 0-3 = 0 + 2, rows 4-7 = 1 + 3 */
    ct_sbp ps0[2] = {ct_sbp_partial_sum(), split(0)};
    CT_ASSERT_ALL(ct_global_from_local(t, p, ps0, 2, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t want[2] = {8, 2};
    CT_ASSERT_ALL(gshape_is(g, want, 2));
    double *v = logical(g, &n);
    bool ok = n == 16;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == (i < 8 ? 2.0 : 4.0);
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    /* (S(0), S(1)) -> (8, 4): block (c0, c1) holds rank 2 c0 + c1 */
    ct_sbp s01[2] = {split(0), split(1)};
    CT_ASSERT_ALL(ct_global_from_local(t, p, s01, 2, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t want2[2] = {8, 4};
    CT_ASSERT_ALL(gshape_is(g, want2, 2));
    v = logical(g, &n);
    ok = n == 32;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == (double)(2 * ((i / 4) / 4) + (i % 4) / 2);
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    /* (B, S(0)): the broadcast group along axis 0 is {r, r + 2}: ranks 2, 3 take 0, 1 */
    ct_sbp bs0[2] = {ct_sbp_broadcast(), split(0)};
    CT_ASSERT_ALL(ct_global_from_local(t, p, bs0, 2, CT_GLOBAL_COPY, &g) == CT_OK);
    CT_ASSERT_ALL(gshape_is(g, want, 2) && all_values(ct_global_local(g), g_rank % 2));
    ct_global_release(g);
    /* (S(0), B) with (S(0), S(0)) shapes of 6 rows: 2, 1, 2, 1 */
    int64_t rows = g_rank % 2 == 0 ? 2 : 1, sz6[1] = {rows};
    ct_tensor *t6 = tfull(sz6, 1, g_rank, CT_FLOAT32);
    ct_sbp ss[2] = {split(0), split(0)};
    CT_ASSERT_ALL(ct_global_from_local(t6, p, ss, 2, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t six[1] = {6};
    CT_ASSERT_ALL(gshape_is(g, six, 1));
    v = logical(g, &n);
    const double w6[6] = {0, 0, 1, 2, 2, 3};
    ok = n == 6 && memcmp(v, w6, sizeof(w6)) == 0;
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    ct_tensor_release(t6);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_from_local_excluded(void **state) {
    (void)state;
    if (g_world < 2)
        return;
    ct_placement *p = tail_placement();
    int64_t sz[2] = {2, 2};
    ct_tensor *t = g_rank == 0 ? NULL : tfull(sz, 2, g_rank, CT_FLOAT64);
    ct_sbp s0 = split(0), b = ct_sbp_broadcast();
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t want[2] = {2 * (g_world - 1), 2}, zero[2] = {0, 0};
    CT_ASSERT_ALL(gshape_is(g, want, 2) && ct_global_dtype(g) == CT_FLOAT64);
    CT_ASSERT_ALL(shape_is(ct_global_local(g), g_rank == 0 ? zero : sz, 2));
    int64_t n;
    double *v = logical(g, &n);
    bool ok = n == 4 * (g_world - 1);
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == (double)(1 + i / 4);
    CT_ASSERT_ALL(ok);
    free(v);
    ct_tensor *local = NULL;
    CT_ASSERT_ALL(ct_global_to_local(g, 0, &local) == CT_OK &&
                  shape_is(local, g_rank == 0 ? zero : sz, 2));
    ct_tensor_release(local);
    ct_global_release(g);
    /* B: the smallest member (rank 1) is the source */
    CT_ASSERT_ALL(ct_global_from_local(t, p, &b, 1, CT_GLOBAL_COPY, &g) == CT_OK);
    CT_ASSERT_ALL(gshape_is(g, sz, 2) &&
                  (g_rank == 0 ? shape_is(ct_global_local(g), zero, 2)
                               : all_values(ct_global_local(g), 1.0)));
    ct_global_release(g);
    /* a 0-dim tensor: outside, the component is a 0-dim zero */
    ct_tensor *s = g_rank == 0 ? NULL : tfull(NULL, 0, 5, CT_INT32);
    CT_ASSERT_ALL(ct_global_from_local(s, p, &b, 1, 0, &g) == CT_OK);
    CT_ASSERT_ALL(ct_global_dim(g) == 0 && ct_global_numel(g) == 1 &&
                  ct_tensor_dim(ct_global_local(g)) == 0 &&
                  all_values(ct_global_local(g), g_rank == 0 ? 0 : 5));
    v = logical(g, &n);
    CT_ASSERT_ALL(n == 1 && v[0] == 5);
    free(v);
    ct_global_release(g);
    ct_tensor_release(s);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_broadcast_shape_dtype(void **state) {
    (void)state;
    /* OneFlow's test_to_global_broadcast_shape_dtype */
    if (g_world < 3)
        return;
    int64_t r[2] = {0, 1}, h[1] = {2};
    ct_placement *p = place(r, h, 1);
    int64_t sz[2] = {16, 16}, one[1] = {1};
    ct_tensor *t = g_rank < 2 ? tfull(sz, 2, 1, CT_INT32) : tfull(one, 1, 1, CT_FLOAT32);
    ct_sbp s0 = split(0);
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g) == CT_OK);
    int64_t want[2] = {32, 16}, zero[2] = {0, 0};
    CT_ASSERT_ALL(gshape_is(g, want, 2) && ct_global_dtype(g) == CT_INT32);
    CT_ASSERT_ALL(shape_is(ct_global_local(g), g_rank < 2 ? sz : zero, 2));
    ct_global_release(g);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_check_meta_errors(void **state) {
    (void)state;
    ct_placement *p = world_placement();
    ct_sbp s0 = split(0), s1 = split(1);
    ct_global *g = (ct_global *)1;
    ct_status st;
    if (g_world >= 2) {
        int64_t sz[2] = {2, 2};
        ct_tensor *t = tfull(sz, 2, 1, g_rank == 0 ? CT_FLOAT32 : CT_INT32);
        st = ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g);
        CT_ASSERT_ALL(g == NULL &&
                      msg_is(st, CT_ERR_RUNTIME,
                             "Expected all tensors on each rank to be the same dtype, but found "
                             "at least two dtypes, ctensor.float32(rank 0) and "
                             "ctensor.int32(rank 1)!"));
        ct_tensor_release(t);

        /* rows 2 and 4 (and 3 elsewhere): the sum splits into equal parts, not these */
        int64_t rows = g_rank == 0 ? 2 : g_rank == 1 ? 4 : 3, szr[2] = {rows, 4};
        t = tfull(szr, 2, 1, CT_FLOAT32);
        st = ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g);
        CT_ASSERT_ALL(msg_is(st, CT_ERR_RUNTIME,
                             "Sizes of tensors in dimension 0 must be same or match balanced "
                             "split distribution. See https://github.com/Oneflow-Inc/oneflow/"
                             "blob/master/oneflow/core/common/balanced_splitter.h for details of "
                             "balanced split"));
        /* S(1) with different row counts */
        st = ct_global_from_local(t, p, &s1, 1, CT_GLOBAL_CHECK_META, &g);
        CT_ASSERT_ALL(msg_is(st, CT_ERR_RUNTIME,
                             "Sizes of tensors must match except in dimension 1. Expected size 2 "
                             "but got size 4 for tensor on rank 1!"));
        /* without check_meta unequal parts are refused too (never a malformed tensor) */
        st = ct_global_from_local(t, p, &s0, 1, 0, &g);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME &&
                      strstr(ct_last_error(), "do not form a global tensor") != NULL);
        /* B needs equal shapes */
        ct_sbp b = ct_sbp_broadcast();
        st = ct_global_from_local(t, p, &b, 1, CT_GLOBAL_CHECK_META, &g);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME && g == NULL);
        ct_tensor_release(t);

        /* ranks with different numbers of dims */
        int64_t sz2[2] = {2, 2}, sz1[1] = {2};
        t = g_rank == 0 ? tfull(sz2, 2, 1, CT_FLOAT32) : tfull(sz1, 1, 1, CT_FLOAT32);
        st = ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g);
        CT_ASSERT_ALL(msg_is(st, CT_ERR_RUNTIME,
                             "Expected all tensors on each rank to have the same number of "
                             "dimensions, but found 2(rank 0) and 1(rank 1)!"));
        ct_tensor_release(t);

        /* a member passing no tensor */
        t = g_rank == 1 ? NULL : tfull(sz2, 2, 1, CT_FLOAT32);
        st = ct_global_from_local(t, p, &s0, 1, CT_GLOBAL_CHECK_META, &g);
        CT_ASSERT_ALL(msg_is(st, CT_ERR_MISUSE,
                             "to_global: rank 1 is in the placement but passed no local tensor"));
        ct_tensor_release(t);
    }
    /* split dim beyond the tensor's dims, and a wrong number of sbp */
    int64_t sz1[1] = {2};
    ct_tensor *t = tfull(sz1, 1, 1, CT_FLOAT32);
    st = ct_global_from_local(t, p, &s1, 1, CT_GLOBAL_CHECK_META, &g);
    CT_ASSERT_ALL(msg_is(st, CT_ERR_RUNTIME,
                         "Split axis out of range (expected to be in range of [0, 1), but got "
                         "1!)"));
    ct_sbp two[2] = {s0, s0};
    st = ct_global_from_local(t, p, two, 2, 0, &g);
    CT_ASSERT_ALL(msg_is(st, CT_ERR_VALUE,
                         "The number of sbp (2) must match the number of placement hierarchy "
                         "dims (1)"));
    CT_ASSERT_ALL(ct_global_from_local(t, NULL, &s0, 1, 0, &g) == CT_ERR_MISUSE);
    CT_ASSERT_ALL(ct_global_from_local(t, p, &s0, 1, 0, NULL) == CT_ERR_MISUSE);
    ct_tensor_release(t);
    ct_placement_release(p);
}

static void test_disagreement(void **state) {
    (void)state;
    if (g_world < 2)
        return;
    ct_placement *p = world_placement();
    int64_t sz[2] = {4, 4};
    ct_tensor *t = tfull(sz, 2, 1, CT_FLOAT32);
    ct_sbp mine = g_rank == 0 ? split(0) : ct_sbp_broadcast();
    ct_global *g = (ct_global *)1;
    char want[1024], pl[256];
    ct_test_placement_text(p, NULL, pl, sizeof(pl));
    snprintf(want, sizeof(want),
             "global operation arguments differ across ranks: rank 0 called "
             "to_global(placement=%s, sbp=(S(0))), rank 1 called to_global(placement=%s, "
             "sbp=(B))",
             pl, pl);
    ct_status st = ct_global_from_local(t, p, &mine, 1, 0, &g);
    CT_ASSERT_ALL(g == NULL && msg_is(st, CT_ERR_RUNTIME, want));
    /* different placements */
    int64_t r0[1] = {0}, h1[1] = {1};
    ct_placement *q = g_rank == 0 ? place(r0, h1, 1) : ct_placement_retain(p);
    ct_sbp b = ct_sbp_broadcast();
    st = ct_global_from_local(t, q, &b, 1, 0, &g);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME &&
                  strncmp(ct_last_error(), "Inconsistent parallel description: rank 0 called "
                                           "to_global(placement=",
                          69) == 0);
    /* global -> global with different targets */
    ct_global *x = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &b, 1, 0, &x) == CT_OK);
    st = ct_global_to_global(x, NULL, &mine, 1, 0, &g);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strstr(ct_last_error(), "differ across ranks") != NULL);
    /* factories with different sizes */
    int64_t fs[1] = {g_rank == 0 ? 4 : 5};
    st = ct_global_zeros(fs, 1, CT_FLOAT32, p, &b, 1, &g);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strstr(ct_last_error(), "differ across ranks") != NULL);
    /* and everything still works afterwards */
    ct_global *y = NULL;
    CT_ASSERT_ALL(ct_global_to_global(x, NULL, &b, 1, 0, &y) == CT_OK && y == x);
    ct_global_release(y);
    ct_global_release(x);
    ct_placement_release(q);
    ct_tensor_release(t);
    ct_placement_release(p);
}

/* ---- to_local, to_global identity -------------------------------------------------------------- */

static void test_to_local_and_identity(void **state) {
    (void)state;
    ct_placement *p = world_placement();
    int64_t sz[2] = {3, 2};
    ct_tensor *t = tfull(sz, 2, 2, CT_FLOAT32);
    ct_sbp s0 = split(0), b = ct_sbp_broadcast();
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_from_local(t, p, &b, 1, 0, &g) == CT_OK);
    ct_tensor *l = NULL, *c = NULL;
    assert_int_equal(ct_global_to_local(g, 0, &l), CT_OK);
    assert_ptr_equal(l, ct_global_local(g));
    assert_int_equal(ct_global_to_local(g, CT_GLOBAL_COPY, &c), CT_OK);
    assert_true(ct_tensor_storage(c) != ct_tensor_storage(l));
    assert_true(shape_is(c, sz, 2) && all_values(c, 2));
    ct_tensor_release(l);
    ct_tensor_release(c);
    assert_int_equal(ct_global_to_local(NULL, 0, &l), CT_ERR_MISUSE);

    ct_global *y = NULL;
    CT_ASSERT_ALL(ct_global_to_global(g, NULL, NULL, 0, 0, &y) == CT_OK && y == g);
    ct_global_release(y);
    CT_ASSERT_ALL(ct_global_to_global(g, p, &b, 1, 0, &y) == CT_OK && y == g);
    ct_global_release(y);
    CT_ASSERT_ALL(ct_global_to_global(g, NULL, NULL, 0, CT_GLOBAL_COPY, &y) == CT_OK && y != g &&
                  ct_tensor_storage(ct_global_local(y)) != ct_tensor_storage(ct_global_local(g)) &&
                  all_values(ct_global_local(y), 2));
    ct_global_release(y);
    /* B -> S(0) through boxing */
    CT_ASSERT_ALL(ct_global_to_global(g, NULL, &s0, 1, 0, &y) == CT_OK && y != g);
    int64_t bb, ll;
    ct_dist_impl_balanced_part(3, g_world, g_rank, &bb, &ll);
    int64_t want[2] = {ll, 2};
    CT_ASSERT_ALL(gshape_is(y, sz, 2) && shape_is(ct_global_local(y), want, 2) &&
                  all_values(ct_global_local(y), 2));
    ct_global_release(y);
    ct_status st = ct_global_to_global(g, NULL, &s0, 0, 0, &y);
    CT_ASSERT_ALL(msg_is(st, CT_ERR_VALUE,
                         "The number of sbp (0) must match the number of placement hierarchy "
                         "dims (1)"));
    ct_sbp s2 = split(2);
    st = ct_global_to_global(g, NULL, &s2, 1, 0, &y);
    CT_ASSERT_ALL(msg_is(st, CT_ERR_RUNTIME,
                         "Split axis out of range (expected to be in range of [0, 2), but got "
                         "2!)"));
    CT_ASSERT_ALL(ct_global_to_global(g, NULL, NULL, 1, 0, &y) == CT_ERR_MISUSE);
    ct_global_release(g);
    ct_tensor_release(t);
    ct_placement_release(p);
}

/* ---- factories -------------------------------------------------------------------------------- */

static void check_factory(ct_placement *p, const ct_sbp *sbp, int64_t nsbp, bool excluded) {
    int64_t sz[2] = {5, 3};
    int64_t pid = ct_dist_impl_placement_my_pid(p);
    ct_global *g = NULL;
    CT_ASSERT_ALL(ct_global_full(sz, 2, ct_scalar_float(7), CT_FLOAT32, p, sbp, nsbp, &g) ==
                  CT_OK);
    ct_box box;
    ct_dist_impl_local_box(sz, 2, p, sbp, pid, &box);
    bool partial_zero = false;
    int64_t c[CT_PLACEMENT_MAX_NDIM];
    if (pid >= 0) {
        ct_dist_impl_placement_coords(p, pid, c);
        for (int64_t k = 0; k < nsbp; k++)
            partial_zero = partial_zero || (sbp[k].kind == CT_SBP_PARTIAL_SUM && c[k] != 0);
    }
    CT_ASSERT_ALL(gshape_is(g, sz, 2) && shape_is(ct_global_local(g), box.len, 2) &&
                  ct_global_dtype(g) == CT_FLOAT32);
    CT_ASSERT_ALL(pid < 0 || all_values(ct_global_local(g), partial_zero ? 0 : 7));
    CT_ASSERT_ALL(!excluded || pid >= 0 || ct_tensor_numel(ct_global_local(g)) == 0);
    int64_t n;
    double *v = logical(g, &n);
    bool ok = n == 15;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == 7;
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);

    CT_ASSERT_ALL(ct_global_ones(sz, 2, CT_INT32, p, sbp, nsbp, &g) == CT_OK);
    CT_ASSERT_ALL(pid < 0 || all_values(ct_global_local(g), partial_zero ? 0 : 1));
    v = logical(g, &n);
    ok = n == 15;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == 1;
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);

    CT_ASSERT_ALL(ct_global_zeros(sz, 2, CT_FLOAT64, p, sbp, nsbp, &g) == CT_OK);
    CT_ASSERT_ALL(pid < 0 || all_values(ct_global_local(g), 0));
    ct_global_release(g);
    CT_ASSERT_ALL(ct_global_empty(sz, 2, CT_DTYPE_UNDEFINED, p, sbp, nsbp, &g) == CT_OK &&
                  ct_global_dtype(g) == ct_get_default_dtype() &&
                  shape_is(ct_global_local(g), box.len, 2));
    ct_global_release(g);

    /* from_tensor: the first member's data (row-major 0..14), NULL elsewhere */
    ct_tensor *data = NULL;
    if (pid == 0) {
        ct_scalar start = ct_scalar_int(0), end = ct_scalar_int(15), step = ct_scalar_int(1);
        ct_tensor *a = NULL;
        assert_int_equal(ct_tensor_arange(start, end, step, CT_FLOAT32, &g_cpu, CT_LAYOUT_STRIDED,
                                          &a),
                         CT_OK);
        assert_int_equal(ct_tensor_view(a, sz, 2, &data), CT_OK);
        ct_tensor_release(a);
    }
    CT_ASSERT_ALL(ct_global_from_tensor(data, p, sbp, nsbp, &g) == CT_OK);
    CT_ASSERT_ALL(gshape_is(g, sz, 2) && ct_global_dtype(g) == CT_FLOAT32 &&
                  shape_is(ct_global_local(g), box.len, 2));
    if (pid >= 0) {
        int64_t m;
        double *lv = values(ct_global_local(g), &m);
        ok = m == box.len[0] * box.len[1];
        for (int64_t i = 0; i < box.len[0]; i++)
            for (int64_t j = 0; j < box.len[1]; j++)
                ok = ok && lv[i * box.len[1] + j] ==
                               (partial_zero ? 0 : (double)((box.begin[0] + i) * 3 + box.begin[1] + j));
        free(lv);
    } else {
        ok = true;
    }
    CT_ASSERT_ALL(ok);
    v = logical(g, &n);
    ok = n == 15;
    for (int64_t i = 0; i < n; i++)
        ok = ok && v[i] == (double)i;
    CT_ASSERT_ALL(ok);
    free(v);
    ct_global_release(g);
    ct_tensor_release(data);
}

static void test_factories(void **state) {
    (void)state;
    ct_placement *p = world_placement();
    ct_sbp kinds[4] = {split(0), split(1), ct_sbp_broadcast(), ct_sbp_partial_sum()};
    for (int i = 0; i < 4; i++)
        check_factory(p, &kinds[i], 1, false);
    if (g_world > 1) {
        ct_placement *q = tail_placement();
        for (int i = 0; i < 4; i++)
            check_factory(q, &kinds[i], 1, true);
        ct_placement_release(q);
    }
    if (g_world == 4) {
        int64_t r[4] = {0, 1, 2, 3}, h[2] = {2, 2};
        ct_placement *q = place(r, h, 2);
        ct_sbp nd[4][2] = {{kinds[0], kinds[1]},
                           {kinds[3], kinds[0]},
                           {kinds[3], kinds[3]},
                           {kinds[2], kinds[3]}};
        for (int i = 0; i < 4; i++)
            check_factory(q, nd[i], 2, false);
        ct_placement_release(q);
    }
    /* errors shared by every rank */
    ct_global *g = (ct_global *)1;
    int64_t bad[2] = {-1, 3};
    ct_status st = ct_global_zeros(bad, 2, CT_FLOAT32, p, &kinds[0], 1, &g);
    CT_ASSERT_ALL(g == NULL && msg_is(st, CT_ERR_RUNTIME,
                                      "Trying to create tensor with negative dimension -1: [-1, 3]"));
    int64_t one[1] = {4};
    st = ct_global_ones(one, 1, CT_FLOAT32, p, &kinds[1], 1, &g);
    CT_ASSERT_ALL(msg_is(st, CT_ERR_RUNTIME,
                         "Split axis out of range (expected to be in range of [0, 1), but got "
                         "1!)"));
    /* full infers int64 from an integer value */
    CT_ASSERT_ALL(ct_global_full(one, 1, ct_scalar_int(3), CT_DTYPE_UNDEFINED, p, &kinds[2], 1,
                                 &g) == CT_OK &&
                  ct_global_dtype(g) == CT_INT64);
    ct_global_release(g);
    /* from_tensor without data on the first rank: its error, and the others learn whose */
    st = ct_global_from_tensor(NULL, p, &kinds[2], 1, &g);
    CT_ASSERT_ALL(msg_is(st, CT_ERR_MISUSE,
                         g_rank == 0 ? "ct_global_from_tensor: the first rank of the placement "
                                       "must pass the data"
                                     : "global operation tensor failed on rank 0: RuntimeError: "
                                       "ct_global_from_tensor: the first rank of the placement "
                                       "must pass the data"));
    ct_placement_release(p);
}

int main(void) {
    ct_test_start();
    g_rank = ct_test_rank();
    g_world = ct_test_world();
    if (g_world > 4) {
        fprintf(stderr, "these tests expect at most 4 ranks\n");
        return ct_test_finish(1);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_local_split0),
        cmocka_unit_test(test_from_local_split1_uneven),
        cmocka_unit_test(test_from_local_broadcast),
        cmocka_unit_test(test_from_local_partial),
        cmocka_unit_test(test_from_local_2d),
        cmocka_unit_test(test_from_local_excluded),
        cmocka_unit_test(test_broadcast_shape_dtype),
        cmocka_unit_test(test_check_meta_errors),
        cmocka_unit_test(test_disagreement),
        cmocka_unit_test(test_to_local_and_identity),
        cmocka_unit_test(test_factories),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    return ct_test_finish(failures);
}
