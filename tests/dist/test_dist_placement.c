/* Placements, sbp values, balanced shards and communicators (libctensor_dist), on 1..4 ranks.
 * Pure functions are also checked on hand-built placements (the struct of dist_impl.h) so
 * that the 2-D examples of docs/global-tensors.md ("What each rank holds") run whatever the
 * world size. */
#include <string.h>

#include "dist/dist_impl.h"
#include "dist_test_util.h"

static int g_rank, g_world;

/* A placement over ranks 0..n-1 built by hand: no world-size check, for pure functions. */
typedef struct fake_placement {
    ct_placement p;
    int64_t ranks[64];
} fake_placement;

static void fake(fake_placement *f, const int64_t *h, int64_t ndim) {
    memset(f, 0, sizeof(*f));
    f->p.ndim = ndim;
    f->p.n = 1;
    for (int64_t k = 0; k < ndim; k++) {
        f->p.hierarchy[k] = h[k];
        f->p.n *= h[k];
    }
    for (int64_t i = 0; i < f->p.n; i++)
        f->ranks[i] = i;
    f->p.ranks = f->ranks;
    f->p.type = CT_DEVICE_CPU;
}

static ct_placement *make(const char *type, const int64_t *ranks, const int64_t *h, int64_t ndim) {
    ct_placement *p = NULL;
    ct_status st = ct_placement_new(type, ranks, h, ndim, &p);
    if (st != CT_OK)
        fprintf(stderr, "ct_placement_new: %s\n", ct_last_error());
    assert_int_equal(st, CT_OK);
    return p;
}

static const char *fmt(const ct_placement *p, const char *module) {
    static char buf[512];
    ct_test_placement_text(p, module, buf, sizeof(buf));
    return buf;
}

/* ---- environment ---------------------------------------------------------------------------- */

static void test_env(void **state) {
    (void)state;
    int64_t r = -1, w = -1, lr = -1, nodes = -1;
    assert_int_equal(ct_dist_rank(&r), CT_OK);
    assert_int_equal(ct_dist_world_size(&w), CT_OK);
    assert_int_equal(ct_dist_local_rank(&lr), CT_OK);
    assert_int_equal(ct_dist_node_size(&nodes), CT_OK);
    assert_int_equal(r, g_rank);
    assert_int_equal(w, g_world);
    assert_int_equal(nodes, 1); /* tests run on one machine */
    assert_int_equal(lr, g_rank);
    assert_int_equal(ct_dist_init(), CT_OK); /* idempotent */
    assert_status_msg(ct_dist_rank(NULL), CT_ERR_MISUSE, "ct_dist_rank: out is NULL");
}

/* ---- placements --------------------------------------------------------------------------- */

static void test_placement_basic(void **state) {
    (void)state;
    int64_t r0[1] = {0}, h1[1] = {1};
    ct_placement *p = make("cpu", r0, h1, 1);
    assert_string_equal(fmt(p, NULL), "ctensor.placement(type=\"cpu\", ranks=[0])");
    assert_string_equal(fmt(p, "oneflow"), "oneflow.placement(type=\"cpu\", ranks=[0])");
    assert_int_equal(ct_placement_device_type(p), CT_DEVICE_CPU);
    assert_string_equal(ct_placement_type_name(p), "cpu");
    assert_int_equal(ct_placement_size(p), 1);
    assert_int_equal(ct_placement_ndim(p), 1);
    assert_int_equal(ct_placement_hierarchy(p)[0], 1);
    assert_int_equal(ct_placement_parallel_id(p, 0), 0);
    assert_int_equal(ct_placement_parallel_id(p, 1), -1);
    assert_true(ct_placement_contains(p, 0));
    assert_false(ct_placement_contains(p, 5));
    /* a new string for ct_string_free; misuse leaves *out NULL */
    char *text = (char *)1;
    assert_int_equal(ct_placement_format(p, NULL, &text), CT_OK);
    assert_string_equal(text, "ctensor.placement(type=\"cpu\", ranks=[0])");
    ct_string_free(text);
    text = (char *)1;
    assert_status_msg(ct_placement_format(NULL, NULL, &text), CT_ERR_MISUSE,
                      "ct_placement_format: placement is NULL");
    assert_null(text);
    assert_status_msg(ct_placement_format(p, NULL, NULL), CT_ERR_MISUSE,
                      "ct_placement_format: out is NULL");
    assert_ptr_equal(ct_placement_retain(p), p);
    ct_placement_release(p);
    ct_placement_release(p);
    ct_placement_release(NULL);

    int64_t h11[2] = {1, 1};
    p = make("cpu", r0, h11, 2);
    assert_string_equal(fmt(p, "oneflow"), "oneflow.placement(type=\"cpu\", ranks=[[0]])");
    ct_placement_release(p);

    /* cuda placements are constructible; the device shows up on use */
    p = make("cuda", r0, h1, 1);
    assert_string_equal(fmt(p, "oneflow"), "oneflow.placement(type=\"cuda\", ranks=[0])");
    ct_device dev;
    assert_int_equal(ct_placement_local_device(p, &dev), CT_OK);
    assert_int_equal(dev.type, CT_DEVICE_CUDA);
    assert_int_equal(dev.index, g_rank); /* local rank on one node */
    ct_placement *q = make("cpu", r0, h1, 1);
    assert_false(ct_placement_equal(p, q));
    assert_int_equal(ct_placement_local_device(q, &dev), CT_OK);
    assert_int_equal(dev.type, CT_DEVICE_CPU);
    assert_int_equal(dev.index, CT_DEVICE_NO_INDEX);
    ct_placement_release(p);
    ct_placement_release(q);
}

static void test_placement_canonical(void **state) {
    (void)state;
    int64_t w = g_world;
    int64_t fwd[4] = {0}, rev[4] = {0}, h[1] = {w};
    for (int64_t i = 0; i < w; i++) {
        fwd[i] = i;
        rev[i] = w - 1 - i;
    }
    ct_placement *a = make("cpu", fwd, h, 1), *b = make("cpu", rev, h, 1);
    assert_true(ct_placement_equal(a, b));
    assert_int_equal(ct_placement_hash(a), ct_placement_hash(b));
    for (int64_t i = 0; i < w; i++) {
        assert_int_equal(ct_placement_ranks(b)[i], i);
        assert_int_equal(ct_placement_parallel_id(b, i), i);
    }
    ct_placement_release(a);
    ct_placement_release(b);
    if (w == 4) {
        int64_t r[4] = {3, 1, 2, 0};
        a = make("cpu", r, h, 1);
        assert_string_equal(fmt(a, "oneflow"),
                            "oneflow.placement(type=\"cpu\", ranks=[0, 1, 2, 3])");
        int64_t r2[4] = {0, 2, 1, 3}, r3[4] = {0, 1, 2, 3}, h2[2] = {2, 2};
        b = make("cpu", r2, h2, 2);
        ct_placement *c = make("cpu", r3, h2, 2);
        assert_true(ct_placement_equal(b, c));
        assert_int_equal(ct_placement_hash(b), ct_placement_hash(c));
        assert_string_equal(fmt(b, "oneflow"),
                            "oneflow.placement(type=\"cpu\", ranks=[[0, 1], [2, 3]])");
        assert_string_equal(fmt(c, NULL),
                            "ctensor.placement(type=\"cpu\", ranks=[[0, 1], [2, 3]])");
        /* same ranks, different hierarchy: not equal */
        assert_false(ct_placement_equal(a, b));
        assert_true(ct_placement_hash(a) != ct_placement_hash(b));
        ct_placement *cu = make("cuda", r3, h, 1);
        assert_string_equal(fmt(cu, "oneflow"),
                            "oneflow.placement(type=\"cuda\", ranks=[0, 1, 2, 3])");
        assert_false(ct_placement_equal(a, cu));
        ct_placement_release(cu);
        ct_placement_release(a);
        ct_placement_release(b);
        ct_placement_release(c);
    }
    if (w >= 2) {
        int64_t r[2] = {1, 0}, h21[2] = {2, 1};
        a = make("cpu", r, h21, 2);
        assert_string_equal(fmt(a, "oneflow"),
                            "oneflow.placement(type=\"cpu\", ranks=[[0], [1]])");
        ct_placement_release(a);
    }
    assert_true(ct_placement_equal(NULL, NULL));
}

static void test_placement_errors(void **state) {
    (void)state;
    ct_placement *p = (ct_placement *)1;
    int64_t r0[1] = {0}, h1[1] = {1};
    assert_status_msg(ct_placement_new("xpu", r0, h1, 1, &p), CT_ERR_RUNTIME,
                      "Expected one of cpu, cuda device type at start of device string: xpu");
    assert_null(p);
    assert_status_msg(ct_placement_new("meta", r0, h1, 1, &p), CT_ERR_RUNTIME,
                      "Expected one of cpu, cuda device type at start of device string: meta");
    assert_status_msg(ct_placement_new("cuda:0", r0, h1, 1, &p), CT_ERR_RUNTIME,
                      "Expected one of cpu, cuda device type at start of device string: cuda:0");
    int64_t h0[1] = {0};
    assert_status_msg(ct_placement_new("cpu", NULL, h0, 1, &p), CT_ERR_RUNTIME,
                      "placement ranks shoule be an array of long int");
    int64_t neg[1] = {-1};
    assert_status_msg(ct_placement_new("cpu", neg, h1, 1, &p), CT_ERR_RUNTIME,
                      "Placement is invalid because rank must be non-negative, but got -1!");
    int64_t big[1] = {1000};
    assert_status_msg(ct_placement_new("cpu", big, h1, 1, &p), CT_ERR_RUNTIME,
                      "Placement is invalid because rank must be less than world size!");
    int64_t over[1] = {g_world};
    assert_status_msg(ct_placement_new("cpu", over, h1, 1, &p), CT_ERR_RUNTIME,
                      "Placement is invalid because rank must be less than world size!");
    int64_t dup[2] = {0, 0}, h2[1] = {2};
    assert_status_msg(ct_placement_new("cpu", dup, h2, 1, &p), CT_ERR_RUNTIME,
                      "Placement is invalid because rank 0 appears more than once!");
    assert_int_equal(ct_placement_new("cpu", r0, h1, 0, &p), CT_ERR_VALUE);
    assert_int_equal(ct_placement_new("cpu", r0, h1, CT_PLACEMENT_MAX_NDIM + 1, &p), CT_ERR_VALUE);
    int64_t hneg[2] = {1, -1};
    assert_int_equal(ct_placement_new("cpu", r0, hneg, 2, &p), CT_ERR_VALUE);
    assert_int_equal(ct_placement_new(NULL, r0, h1, 1, &p), CT_ERR_MISUSE);
    assert_int_equal(ct_placement_new("cpu", NULL, h1, 1, &p), CT_ERR_MISUSE);
    assert_int_equal(ct_placement_new("cpu", r0, NULL, 1, &p), CT_ERR_MISUSE);
    assert_int_equal(ct_placement_new("cpu", r0, h1, 1, NULL), CT_ERR_MISUSE);
    assert_null(p);
}

static void test_placement_all(void **state) {
    (void)state;
    ct_placement *p = NULL;
    assert_int_equal(ct_placement_all("cpu", &p), CT_OK);
    assert_int_equal(ct_placement_size(p), g_world);
    assert_int_equal(ct_placement_ndim(p), 1);
    assert_int_equal(ct_placement_hierarchy(p)[0], g_world);
    for (int i = 0; i < g_world; i++)
        assert_int_equal(ct_placement_ranks(p)[i], i);
    assert_int_equal(ct_placement_parallel_id(p, g_rank), g_rank);
    assert_int_equal(ct_dist_impl_placement_my_pid(p), g_rank);
    if (g_world == 4)
        assert_string_equal(fmt(p, "oneflow"),
                            "oneflow.placement(type=\"cpu\", ranks=[0, 1, 2, 3])");
    ct_placement_release(p);
    p = (ct_placement *)1;
    assert_status_msg(ct_placement_all("cuda", &p), CT_ERR_RUNTIME,
                      "Can't construct placement with \"cuda\" type because there is no device!");
    assert_null(p);
    assert_status_msg(ct_placement_all("xpu", &p), CT_ERR_RUNTIME,
                      "Expected one of cpu, cuda device type at start of device string: xpu");
}

static void test_coords(void **state) {
    (void)state;
    fake_placement f;
    int64_t h22[2] = {2, 2}, c[CT_PLACEMENT_MAX_NDIM];
    fake(&f, h22, 2);
    const int64_t want[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    for (int64_t pid = 0; pid < 4; pid++) {
        ct_dist_impl_placement_coords(&f.p, pid, c);
        assert_int_equal(c[0], want[pid][0]);
        assert_int_equal(c[1], want[pid][1]);
        assert_int_equal(ct_dist_impl_placement_pid_of(&f.p, c), pid);
    }
    int64_t h234[3] = {2, 3, 4};
    fake(&f, h234, 3);
    ct_dist_impl_placement_coords(&f.p, 17, c); /* 17 = 1*12 + 1*4 + 1 */
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 1);
    assert_int_equal(c[2], 1);
    assert_int_equal(ct_dist_impl_placement_pid_of(&f.p, c), 17);
}

/* ---- sbp ------------------------------------------------------------------------------------ */

static void test_sbp(void **state) {
    (void)state;
    ct_sbp s;
    char buf[128];
    for (int d = 0; d < CT_SBP_MAX_SPLIT_AXIS; d++) {
        assert_int_equal(ct_sbp_split(d, &s), CT_OK);
        assert_int_equal(s.kind, CT_SBP_SPLIT);
        assert_int_equal(s.dim, d);
    }
    assert_status_msg(ct_sbp_split(-1, &s), CT_ERR_RUNTIME,
                      "Split axis must not be negative, but got -1!");
    assert_status_msg(ct_sbp_split(7, &s), CT_ERR_RUNTIME,
                      "Expected split axis to be less than the supported maximum axis (6), but "
                      "got 7!");
    assert_status_msg(ct_sbp_split(6, &s), CT_ERR_RUNTIME,
                      "Expected split axis to be less than the supported maximum axis (6), but "
                      "got 6!");
    ct_sbp s0, s1, b = ct_sbp_broadcast(), p = ct_sbp_partial_sum();
    ct_sbp_split(0, &s0);
    ct_sbp_split(1, &s1);
    assert_int_equal(b.kind, CT_SBP_BROADCAST);
    assert_int_equal(p.kind, CT_SBP_PARTIAL_SUM);
    assert_true(ct_sbp_equal(s0, s0));
    assert_false(ct_sbp_equal(s0, s1));
    assert_false(ct_sbp_equal(b, p));
    assert_false(ct_sbp_equal(s0, b));
    assert_true(ct_sbp_equal(b, (ct_sbp){CT_SBP_BROADCAST, 3})); /* dim means nothing for B */
    ct_sbp x[2] = {b, s0}, y[2] = {b, s0}, z[2] = {b, s1};
    assert_true(ct_nd_sbp_equal(x, y, 2));
    assert_false(ct_nd_sbp_equal(x, z, 2));

    ct_sbp_format(s0, "oneflow", buf, sizeof(buf));
    assert_string_equal(buf, "oneflow.sbp.split(dim=0)");
    ct_sbp_format(b, "oneflow", buf, sizeof(buf));
    assert_string_equal(buf, "oneflow.sbp.broadcast");
    ct_sbp_format(p, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "ctensor.sbp.partial_sum");
    ct_sbp_format(s1, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "ctensor.sbp.split(dim=1)");
    ct_sbp_format_short(s1, buf, sizeof(buf));
    assert_string_equal(buf, "S(1)");
    ct_sbp_format_short(b, buf, sizeof(buf));
    assert_string_equal(buf, "B");
    ct_sbp_format_short(p, buf, sizeof(buf));
    assert_string_equal(buf, "P");
    ct_nd_sbp_format(x, 1, "oneflow", buf, sizeof(buf));
    assert_string_equal(buf, "(oneflow.sbp.broadcast,)");
    ct_nd_sbp_format(x, 2, "oneflow", buf, sizeof(buf));
    assert_string_equal(buf, "(oneflow.sbp.broadcast, oneflow.sbp.split(dim=0))");
    ct_nd_sbp_format(&s0, 1, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "(ctensor.sbp.split(dim=0),)");
    ct_nd_sbp_format_short(x, 2, buf, sizeof(buf));
    assert_string_equal(buf, "(B, S(0))");
    ct_nd_sbp_format_short(&s0, 1, buf, sizeof(buf));
    assert_string_equal(buf, "(S(0))"); /* OneFlow's NdSbpToString: no trailing comma */
    char tiny[3];
    assert_int_equal(ct_sbp_format(s0, "oneflow", tiny, sizeof(tiny)), 24);
    assert_string_equal(tiny, "on");

    assert_int_equal(ct_sbp_parse("S(0)", &s), CT_OK);
    assert_true(ct_sbp_equal(s, s0));
    assert_int_equal(ct_sbp_parse("S(5)", &s), CT_OK);
    assert_int_equal(s.dim, 5);
    assert_int_equal(ct_sbp_parse("B", &s), CT_OK);
    assert_true(ct_sbp_equal(s, b));
    assert_int_equal(ct_sbp_parse("P", &s), CT_OK);
    assert_true(ct_sbp_equal(s, p));
    assert_status_msg(ct_sbp_parse("S(12)", &s), CT_ERR_RUNTIME,
                      "Expected split axis to be less than the supported maximum axis (6), but "
                      "got 12!");
    assert_status_msg(ct_sbp_parse("X", &s), CT_ERR_VALUE, "invalid sbp string: X");
    assert_status_msg(ct_sbp_parse("S()", &s), CT_ERR_VALUE, "invalid sbp string: S()");
    assert_status_msg(ct_sbp_parse("S(1", &s), CT_ERR_VALUE, "invalid sbp string: S(1");
    assert_status_msg(ct_sbp_parse("S(-1)", &s), CT_ERR_VALUE, "invalid sbp string: S(-1)");
    assert_status_msg(ct_sbp_parse("B ", &s), CT_ERR_VALUE, "invalid sbp string: B ");
    assert_int_equal(ct_sbp_parse(NULL, &s), CT_ERR_MISUSE);
}

static void test_nd_sbp_check(void **state) {
    (void)state;
    fake_placement f;
    int64_t h2[1] = {2}, h22[2] = {2, 2};
    fake(&f, h2, 1);
    ct_sbp s1, two[2] = {ct_sbp_broadcast(), ct_sbp_broadcast()};
    ct_sbp_split(1, &s1);
    assert_status_msg(ct_dist_impl_nd_sbp_check(two, 2, &f.p, 2), CT_ERR_VALUE,
                      "The number of sbp (2) must match the number of placement hierarchy dims "
                      "(1)");
    assert_status_msg(ct_dist_impl_nd_sbp_check(&s1, 1, &f.p, 1), CT_ERR_RUNTIME,
                      "Split axis out of range (expected to be in range of [0, 1), but got 1!)");
    assert_int_equal(ct_dist_impl_nd_sbp_check(&s1, 1, &f.p, 2), CT_OK);
    ct_sbp bad = {(ct_sbp_kind)7, -1};
    assert_int_equal(ct_dist_impl_nd_sbp_check(&bad, 1, &f.p, 2), CT_ERR_VALUE);
    fake(&f, h22, 2);
    two[1] = s1;
    assert_int_equal(ct_dist_impl_nd_sbp_check(two, 2, &f.p, 2), CT_OK);
    assert_true(ct_dist_impl_nd_sbp_has_split(two, 2));
    assert_false(ct_dist_impl_nd_sbp_has_partial(two, 2));
    two[0] = ct_sbp_partial_sum();
    assert_true(ct_dist_impl_nd_sbp_has_partial(two, 2));
}

/* ---- shards ---------------------------------------------------------------------------------- */

static void test_balanced(void **state) {
    (void)state;
    /* N-D splits divide what the previous grid axes left (docs/global-tensors.md) */
    const struct {
        int64_t total, n, len[4], begin[4];
    } t[] = {
        {10, 4, {3, 3, 2, 2}, {0, 3, 6, 8}},
        {7, 4, {2, 2, 2, 1}, {0, 2, 4, 6}},
        {5, 3, {2, 2, 1}, {0, 2, 4}},
        {3, 4, {1, 1, 1, 0}, {0, 1, 2, 3}},
        {0, 2, {0, 0}, {0, 0}},
        {8, 1, {8}, {0}},
    };
    for (size_t c = 0; c < sizeof(t) / sizeof(t[0]); c++) {
        for (int64_t i = 0; i < t[c].n; i++) {
            int64_t b = -1, l = -1;
            ct_dist_impl_balanced_part(t[c].total, t[c].n, i, &b, &l);
            assert_int_equal(b, t[c].begin[i]);
            assert_int_equal(l, t[c].len[i]);
        }
    }
}

static void test_local_box(void **state) {
    (void)state;
    fake_placement f;
    ct_box box;
    ct_sbp s0, s1, b = ct_sbp_broadcast(), p = ct_sbp_partial_sum();
    ct_sbp_split(0, &s0);
    ct_sbp_split(1, &s1);
    /* 1-D: S(0) of (10, 3) over 4 */
    int64_t h4[1] = {4}, sz[2] = {10, 3};
    fake(&f, h4, 1);
    const int64_t rows[4] = {3, 3, 2, 2}, begins[4] = {0, 3, 6, 8};
    for (int64_t pid = 0; pid < 4; pid++) {
        ct_dist_impl_local_box(sz, 2, &f.p, &s0, pid, &box);
        assert_int_equal(box.ndim, 2);
        assert_int_equal(box.begin[0], begins[pid]);
        assert_int_equal(box.len[0], rows[pid]);
        assert_int_equal(box.begin[1], 0);
        assert_int_equal(box.len[1], 3);
        ct_dist_impl_local_box(sz, 2, &f.p, &b, pid, &box);
        assert_int_equal(box.len[0], 10);
        ct_dist_impl_local_box(sz, 2, &f.p, &p, pid, &box);
        assert_int_equal(ct_dist_impl_box_numel(&box), 30);
    }
    ct_dist_impl_local_box(sz, 2, &f.p, &s0, -1, &box); /* outside: empty */
    assert_int_equal(box.ndim, 2);
    assert_int_equal(box.len[0], 0);
    assert_int_equal(box.len[1], 0);
    assert_int_equal(ct_dist_impl_box_numel(&box), 0);

    /* (S(0), S(0)) of 6 rows on (2, 2): 2, 1, 2, 1 (not 2, 2, 1, 1) */
    int64_t h22[2] = {2, 2}, six[1] = {6};
    fake(&f, h22, 2);
    ct_sbp ss[2] = {s0, s0};
    const int64_t len6[4] = {2, 1, 2, 1}, beg6[4] = {0, 2, 3, 5};
    for (int64_t pid = 0; pid < 4; pid++) {
        ct_dist_impl_local_box(six, 1, &f.p, ss, pid, &box);
        assert_int_equal(box.len[0], len6[pid]);
        assert_int_equal(box.begin[0], beg6[pid]);
    }
    /* (S(1), S(0)) of (4, 6): rank (c0, c1) holds rows [2c1, 2c1+2), cols [3c0, 3c0+3) */
    int64_t s46[2] = {4, 6}, c[2];
    ct_sbp sx[2] = {s1, s0};
    for (int64_t pid = 0; pid < 4; pid++) {
        ct_dist_impl_placement_coords(&f.p, pid, c);
        ct_dist_impl_local_box(s46, 2, &f.p, sx, pid, &box);
        assert_int_equal(box.begin[0], 2 * c[1]);
        assert_int_equal(box.len[0], 2);
        assert_int_equal(box.begin[1], 3 * c[0]);
        assert_int_equal(box.len[1], 3);
    }
    /* (B, S(0)): ranks differing only in axis 0 hold the same rows */
    ct_sbp bs[2] = {b, s0};
    ct_box b0, b2;
    ct_dist_impl_local_box(s46, 2, &f.p, bs, 0, &b0);
    ct_dist_impl_local_box(s46, 2, &f.p, bs, 2, &b2);
    assert_true(ct_dist_impl_box_equal(&b0, &b2));
    ct_dist_impl_local_box(s46, 2, &f.p, bs, 1, &b2);
    assert_false(ct_dist_impl_box_equal(&b0, &b2));
    /* intersection */
    ct_box x = {.ndim = 2, .begin = {0, 2}, .len = {3, 4}};
    ct_box y = {.ndim = 2, .begin = {1, 5}, .len = {5, 5}};
    ct_box z;
    ct_dist_impl_box_intersect(&x, &y, &z);
    assert_int_equal(z.begin[0], 1);
    assert_int_equal(z.len[0], 2);
    assert_int_equal(z.begin[1], 5);
    assert_int_equal(z.len[1], 1);
    assert_int_equal(ct_dist_impl_box_numel(&z), 2);
    y.begin[1] = 7;
    ct_dist_impl_box_intersect(&x, &y, &z);
    assert_int_equal(z.len[1], 0);
    assert_int_equal(ct_dist_impl_box_numel(&z), 0);
}

/* ---- communicators (collective) -------------------------------------------------------------- */

static void test_comm_cache(void **state) {
    (void)state;
    ct_placement *all = NULL;
    assert_int_equal(ct_placement_all("cpu", &all), CT_OK);
    MPI_Comm c1 = MPI_COMM_NULL, c2 = MPI_COMM_NULL;
    int cr = -1, cs = -1;
    CT_ASSERT_ALL(ct_dist_impl_comm_for_placement(all, &c1) == CT_OK);
    MPI_Comm_rank(c1, &cr);
    MPI_Comm_size(c1, &cs);
    CT_ASSERT_ALL(cr == g_rank && cs == g_world);
    CT_ASSERT_ALL(ct_dist_impl_comm_for_placement(all, &c2) == CT_OK && c1 == c2);
    CT_ASSERT_ALL(ct_dist_impl_comm_for_axis(all, 0, &c2) == CT_OK && c1 == c2);

    /* a placement without rank 0 */
    if (g_world > 1) {
        int64_t ranks[4], h[1] = {g_world - 1};
        for (int i = 1; i < g_world; i++)
            ranks[i - 1] = i;
        ct_placement *p = make("cpu", ranks, h, 1);
        MPI_Comm c = (MPI_Comm)0;
        CT_ASSERT_ALL(ct_dist_impl_comm_for_placement(p, &c) == CT_OK);
        int ok;
        if (g_rank == 0) {
            ok = c == MPI_COMM_NULL && ct_dist_impl_placement_my_pid(p) == -1;
        } else {
            MPI_Comm_rank(c, &cr);
            MPI_Comm_size(c, &cs);
            ok = cr == ct_dist_impl_placement_my_pid(p) && cs == g_world - 1 && cr == g_rank - 1;
        }
        CT_ASSERT_ALL(ok);
        ct_placement_release(p);
    }
    /* axis communicators of [[0, 1], [2, 3]]: rank-in-comm == coordinate on the axis */
    if (g_world == 4) {
        int64_t ranks[4] = {0, 1, 2, 3}, h[2] = {2, 2};
        ct_placement *p = make("cpu", ranks, h, 2);
        MPI_Comm a0 = MPI_COMM_NULL, a1 = MPI_COMM_NULL, again;
        CT_ASSERT_ALL(ct_dist_impl_comm_for_axis(p, 0, &a0) == CT_OK &&
                      ct_dist_impl_comm_for_axis(p, 1, &a1) == CT_OK);
        int r0, r1, s0, s1;
        MPI_Comm_rank(a0, &r0);
        MPI_Comm_rank(a1, &r1);
        MPI_Comm_size(a0, &s0);
        MPI_Comm_size(a1, &s1);
        CT_ASSERT_ALL(s0 == 2 && s1 == 2 && r0 == g_rank / 2 && r1 == g_rank % 2);
        /* the group along axis 0 is {r % 2, r % 2 + 2}: check by exchanging world ranks */
        int mine = g_rank, other = -1;
        MPI_Allreduce(&mine, &other, 1, MPI_INT, MPI_SUM, a0);
        CT_ASSERT_ALL(other == 2 * (g_rank % 2) + 2);
        MPI_Allreduce(&mine, &other, 1, MPI_INT, MPI_SUM, a1);
        CT_ASSERT_ALL(other == 4 * (g_rank / 2) + 1);
        CT_ASSERT_ALL(ct_dist_impl_comm_for_axis(p, 1, &again) == CT_OK && again == a1);
        assert_int_equal(ct_dist_impl_comm_for_axis(p, 2, &again), CT_ERR_MISUSE);
        ct_placement_release(p);
    }
    /* hierarchy (w, 1): axis 0 is everyone, axis 1 is each rank alone */
    {
        int64_t ranks[4] = {0, 1, 2, 3}, h[2] = {g_world, 1};
        ct_placement *p = make("cpu", ranks, h, 2);
        MPI_Comm a0 = MPI_COMM_NULL, a1 = MPI_COMM_NULL;
        int s0, s1, r0;
        CT_ASSERT_ALL(ct_dist_impl_comm_for_axis(p, 0, &a0) == CT_OK &&
                      ct_dist_impl_comm_for_axis(p, 1, &a1) == CT_OK);
        MPI_Comm_size(a0, &s0);
        MPI_Comm_size(a1, &s1);
        MPI_Comm_rank(a0, &r0);
        CT_ASSERT_ALL(s0 == g_world && s1 == 1 && r0 == g_rank);
        ct_placement_release(p);
    }
    ct_placement_release(all);
}

static void test_agree(void **state) {
    (void)state;
    ct_agree_record mine, all[4];
    memset(&mine, 0, sizeof(mine));
    mine.hash = 42;
    snprintf(mine.what, sizeof(mine.what), "op(%d)", g_rank);
    CT_ASSERT_ALL(ct_dist_impl_agree(&mine, all) == CT_OK);
    CT_ASSERT_ALL(strcmp(all[g_world - 1].what, "") != 0);
    if (g_world > 1) {
        mine.hash = g_rank == 0 ? 1 : 2;
        ct_status st = ct_dist_impl_agree(&mine, all);
        CT_ASSERT_ALL(st == CT_ERR_RUNTIME &&
                      strcmp(ct_last_error(), "global operation arguments differ across ranks: "
                                              "rank 0 called op(0), rank 1 called op(1)") == 0);
    }
    /* different operation names disagree, whatever the hashes */
    if (g_world > 1) {
        mine.hash = 42;
        ct_dist_impl_agree_set_op(&mine, g_rank == 0 ? "add" : "mul");
        CT_ASSERT_ALL(ct_dist_impl_agree(&mine, all) == CT_ERR_RUNTIME);
    }
    /* a rank that failed alone keeps its error; everyone else returns it, naming the rank */
    mine.hash = 42;
    ct_dist_impl_agree_set_op(&mine, "op");
    if (g_rank == g_world - 1)
        ct_dist_impl_agree_failed(&mine, ct_set_error(CT_ERR_VALUE, "bad thing on the last rank"));
    ct_status st = ct_dist_impl_agree(&mine, all);
    char want[128];
    if (g_rank == g_world - 1)
        snprintf(want, sizeof(want), "bad thing on the last rank");
    else
        snprintf(want, sizeof(want),
                 "global operation op failed on rank %d: ValueError: bad thing on the last rank",
                 g_world - 1);
    CT_ASSERT_ALL(st == CT_ERR_VALUE && strcmp(ct_last_error(), want) == 0);
    /* hashes are identical on every rank */
    uint64_t h = ct_hash_bytes(0, "abc", 3), hmax = h, hmin = h;
    MPI_Allreduce(MPI_IN_PLACE, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    CT_ASSERT_ALL(hmax == hmin && h != 0);
}

static void test_mpi_types(void **state) {
    (void)state;
    MPI_Datatype t;
    for (int d = 0; d < CT_NUM_DTYPES; d++) {
        assert_int_equal(ct_dist_impl_mpi_dtype((ct_dtype)d, &t), CT_OK);
        int size = 0;
        MPI_Type_size(t, &size);
        assert_int_equal(size, (int)ct_dtype_itemsize((ct_dtype)d));
    }
    assert_int_equal(ct_dist_impl_mpi_dtype(CT_DTYPE_UNDEFINED, &t), CT_ERR_MISUSE);
    assert_int_equal(ct_dist_impl_mpi_check(MPI_SUCCESS, "x"), CT_OK);
    assert_int_equal(ct_dist_impl_mpi_check(MPI_ERR_COMM, "MPI_Foo"), CT_ERR_RUNTIME);
    assert_true(strncmp(ct_last_error(), "MPI_Foo failed: ", 16) == 0);
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
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_placement_basic),
        cmocka_unit_test(test_placement_canonical),
        cmocka_unit_test(test_placement_errors),
        cmocka_unit_test(test_placement_all),
        cmocka_unit_test(test_coords),
        cmocka_unit_test(test_sbp),
        cmocka_unit_test(test_nd_sbp_check),
        cmocka_unit_test(test_balanced),
        cmocka_unit_test(test_local_box),
        cmocka_unit_test(test_comm_cache),
        cmocka_unit_test(test_agree),
        cmocka_unit_test(test_mpi_types),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    return ct_test_finish(failures);
}
