/* Global tensors on "cuda" placements whose device memory is NOT host accessible, on 1..4 ranks,
 * without a GPU: the process registers the library's opaque host-emulated backend
 * (ct_backend_host_emulated_opaque) as cuda with two devices and runs its launch slot on the
 * host (tests/unit/launch_host.h, host_launch_register_opaque). So MPI can never read a
 * component directly: every transfer must stage through host memory (Note [Boxing through
 * host memory], src/dist/boxing.c), and the element-wise ops and reductions run through the
 * launch slot on each rank's device. With a real cuda backend already registered (a CUDA
 * build on a GPU machine) the same checks run on it; with one that has no device they are
 * skipped.
 *
 * Every result is compared with the same computation on the cpu placement of the same ranks:
 * the logical value, the nd-sbp, and each rank's component (so the partial_sum layouts too).
 * Each rank's component must live on cuda:(local rank % device count), a non-member's on the
 * cpu. Failures are counted per rank and combined with CT_ASSERT_ALL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/backend.h"
#include "ctensor/ctensor.h"
#include "ctensor/global.h"
#include "dist_test_util.h"
#include "launch_host.h"

static int g_rank, g_world;
static long g_cases;
static int g_failures;
static bool g_emulated;
static int32_t g_count;            /* cuda devices */

#define MUST(call)                                                                              \
    do {                                                                                        \
        ct_status must_st_ = (call);                                                            \
        if (must_st_ != CT_OK) {                                                                \
            fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", g_rank, __FILE__, __LINE__,      \
                    #call, ct_last_error());                                                    \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                       \
        }                                                                                       \
    } while (0)

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "rank %d: %s:%d: ", g_rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fprintf(stderr, "\n");                                                              \
            g_failures++;                                                                       \
        }                                                                                       \
    } while (0)

/* ---- set-up ----------------------------------------------------------------------------- */

static int setup(void **state) {
    (void)state;
    if (!ct_backend_is_registered(CT_DEVICE_CUDA)) {
        /* addresses the host cannot read (Note [Device addresses the host cannot read]): a
         * transfer that skips the staging crashes the test instead of passing by accident */
        if (host_launch_register_opaque(CT_DEVICE_CUDA, 2) != CT_OK)
            return -1;
        g_emulated = true;
    }
    if (ct_device_count(CT_DEVICE_CUDA, &g_count) != CT_OK)
        return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    if (g_emulated && ct_backend_unregister(CT_DEVICE_CUDA) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return -1;
    }
    return 0;
}

#define SKIP_WITHOUT_DEVICES()                                                                  \
    do {                                                                                        \
        if (g_count == 0) {                                                                     \
            if (g_rank == 0)                                                                    \
                printf("skipped: a cuda backend without devices is registered\n");              \
            skip();                                                                             \
        }                                                                                       \
    } while (0)

/* ---- helpers ------------------------------------------------------------------------------ */

static ct_placement *pl_new(const char *type, const int64_t *ranks, int64_t n, const int64_t *h,
                            int64_t hd) {
    ct_placement *p = NULL;
    MUST(ct_placement_new(type, ranks, h ? h : &n, h ? hd : 1, &p));
    return p;
}

static ct_placement *pl_range(const char *type, int64_t lo, int64_t hi) {
    int64_t r[64];
    for (int64_t i = lo; i < hi; i++)
        r[i - lo] = i;
    return pl_new(type, r, hi - lo, NULL, 1);
}

/* The same ranks and hierarchy on the cpu. */
static ct_placement *pl_cpu_twin(const ct_placement *p) {
    return pl_new("cpu", ct_placement_ranks(p), ct_placement_size(p), ct_placement_hierarchy(p),
                  ct_placement_ndim(p));
}

static ct_sbp sS(int d) {
    ct_sbp s;
    MUST(ct_sbp_split(d, &s));
    return s;
}
static ct_sbp sB(void) { return ct_sbp_broadcast(); }
static ct_sbp sP(void) { return ct_sbp_partial_sum(); }
/* {S(0), S(1), B, P}[i] */
static ct_sbp sbp_of(int i) { return i < 2 ? sS(i) : (i == 2 ? sB() : sP()); }

/* A float32 [5, 6] logical tensor of small exact values (the same on every rank). */
static ct_tensor *reference(int salt) {
    float v[30];
    for (int i = 0; i < 30; i++)
        v[i] = (float)((i * 7 + salt * 5) % 13) - 4.0f + (i % 2 ? 0.5f : 0.0f);
    int64_t sizes[2] = {5, 6};
    ct_tensor *t = NULL;
    MUST(ct_tensor_from_data(sizes, 2, CT_FLOAT32, v, NULL, &t));
    return t;
}

/* The values of `t` as float64 on the cpu, contiguous (n entries, at most 64). */
static int64_t values_of(const ct_tensor *t, double *v) {
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_tensor *h = NULL;
    MUST(ct_tensor_to(t, CT_FLOAT64, &cpu, true, CT_MEMFMT_CONTIGUOUS, &h));
    int64_t n = ct_tensor_numel(h);
    if (n > 64)
        n = 64;
    memcpy(v, ct_tensor_data_ptr(h), sizeof(double) * (size_t)n);
    ct_tensor_release(h);
    return n;
}

static bool same_values(const ct_tensor *a, const ct_tensor *b) {
    if (ct_tensor_dim(a) != ct_tensor_dim(b) ||
        memcmp(ct_tensor_sizes(a), ct_tensor_sizes(b), sizeof(int64_t) * (size_t)ct_tensor_dim(a)))
        return false;
    double va[64], vb[64];
    int64_t n = values_of(a, va);
    return values_of(b, vb) == n && memcmp(va, vb, sizeof(double) * (size_t)n) == 0;
}

/* The component lives where the placement says: cuda:(local rank % count) on a member of a
 * cuda placement, the cpu otherwise. */
static bool on_expected_device(const ct_global *g) {
    const ct_placement *p = ct_global_placement(g);
    ct_device d = ct_tensor_device(ct_global_local(g));
    if (!ct_placement_contains(p, g_rank) || ct_placement_device_type(p) == CT_DEVICE_CPU)
        return d.type == CT_DEVICE_CPU;
    int64_t local = 0;
    MUST(ct_dist_local_rank(&local));
    return d.type == CT_DEVICE_CUDA && d.index == local % g_count;
}

/* `g` (a cuda global) against its cpu twin `c`: logical value, metadata, this rank's
 * component and its device. Collective (to_logical). */
static void check_twin(const ct_global *g, const ct_global *c, const char *what) {
    ct_tensor *lg = NULL, *lc = NULL;
    MUST(ct_global_to_logical(g, &lg));
    MUST(ct_global_to_logical(c, &lc));
    CHECK(same_values(lg, lc), "%s: logical values differ from the cpu placement's", what);
    CHECK(ct_nd_sbp_equal(ct_global_sbp(g), ct_global_sbp(c),
                          ct_placement_ndim(ct_global_placement(c))),
          "%s: nd-sbp differs from the cpu placement's", what);
    CHECK(ct_global_dtype(g) == ct_global_dtype(c), "%s: dtype differs", what);
    CHECK(same_values(ct_global_local(g), ct_global_local(c)),
          "%s: the local component differs from the cpu placement's", what);
    CHECK(on_expected_device(g), "%s: component on the wrong device", what);
    ct_tensor_release(lg);
    ct_tensor_release(lc);
    g_cases++;
}

/* ---- tests -------------------------------------------------------------------------------- */

/* Local devices, factories and from_tensor on cuda placements, members and not. */
static void test_placement_devices(void **state) {
    (void)state;
    SKIP_WITHOUT_DEVICES();
    ct_placement *all = pl_range("cuda", 0, g_world), *first = pl_range("cuda", 0, 1);
    ct_device dev;
    MUST(ct_placement_local_device(all, &dev));
    int64_t local = -1;
    MUST(ct_dist_local_rank(&local));
    CHECK(dev.type == CT_DEVICE_CUDA && dev.index == local % g_count, "local device cuda:%d",
          (int)dev.index);
    CHECK(ct_device_type_host_accessible(CT_DEVICE_CPU) &&
              !ct_device_type_host_accessible(CT_DEVICE_META) &&
              !ct_device_type_host_accessible(CT_DEVICE_CUDA) &&
              !ct_device_type_host_accessible(CT_DEVICE_XPU),
          "ct_device_type_host_accessible");
    int64_t sizes[2] = {5, 6};
    ct_sbp s0 = sS(0), b = sB();
    ct_placement *pls[2] = {all, first};
    for (int i = 0; i < 2; i++) {
        ct_global *z = NULL, *t = NULL, *zc = NULL, *tc = NULL;
        ct_placement *cpu = pl_cpu_twin(pls[i]);
        ct_tensor *ref = reference(1);
        MUST(ct_global_ones(sizes, 2, CT_FLOAT32, pls[i], &s0, 1, &z));
        MUST(ct_global_ones(sizes, 2, CT_FLOAT32, cpu, &s0, 1, &zc));
        MUST(ct_global_from_tensor(ref, pls[i], &b, 1, &t));
        MUST(ct_global_from_tensor(ref, cpu, &b, 1, &tc));
        check_twin(z, zc, "ones");
        check_twin(t, tc, "from_tensor");
        ct_tensor_release(ref);
        ct_global_release(z);
        ct_global_release(t);
        ct_global_release(zc);
        ct_global_release(tc);
        ct_placement_release(cpu);
    }
    ct_placement_release(all);
    ct_placement_release(first);
    CT_ASSERT_ALL(g_failures == 0);
}

/* to_global of each rank's cuda tensor (S(0), S(1), B, P), to_local. */
static void test_from_local(void **state) {
    (void)state;
    SKIP_WITHOUT_DEVICES();
    ct_placement *p = pl_range("cuda", 0, g_world), *pc = pl_cpu_twin(p);
    ct_device dev;
    MUST(ct_placement_local_device(p, &dev));
    for (int i = 0; i < 4; i++) {
        ct_sbp s = sbp_of(i);
        ct_tensor *mine = reference(g_rank + 2), *on_dev = NULL, *host = NULL;
        MUST(ct_tensor_to_device(mine, dev, &on_dev));
        MUST(ct_tensor_clone(mine, CT_MEMFMT_CONTIGUOUS, &host));
        ct_global *g = NULL, *c = NULL;
        MUST(ct_global_from_local(on_dev, p, &s, 1, CT_GLOBAL_CHECK_META, &g));
        MUST(ct_global_from_local(host, pc, &s, 1, CT_GLOBAL_CHECK_META, &c));
        check_twin(g, c, "from_local");
        ct_tensor *loc = NULL;
        MUST(ct_global_to_local(g, 0, &loc));
        CHECK(ct_device_equal(ct_tensor_device(loc), dev), "to_local: not on the rank's device");
        CHECK(same_values(loc, ct_global_local(c)), "to_local: values");
        /* without COPY the component is the input itself (broadcast overwrote it in place) */
        CHECK(ct_tensor_storage(loc) == ct_tensor_storage(on_dev), "to_local: not shared");
        ct_tensor_release(loc);
        ct_global_release(g);
        ct_global_release(c);
        ct_tensor_release(mine);
        ct_tensor_release(on_dev);
        ct_tensor_release(host);
    }
    ct_placement_release(p);
    ct_placement_release(pc);
    CT_ASSERT_ALL(g_failures == 0);
}

/* One conversion from (pin, sin) to (pout, sout) (cuda or cpu placements), against the same
 * conversion between their cpu twins. */
static void box_case(const ct_placement *pin, const ct_sbp *sin, const ct_placement *pout,
                     const ct_sbp *sout, const char *what) {
    ct_placement *cin = pl_cpu_twin(pin), *cout = pl_cpu_twin(pout);
    ct_tensor *ref = reference(3);
    ct_global *x = NULL, *xc = NULL, *y = NULL, *yc = NULL;
    MUST(ct_global_from_tensor(ref, pin, sin, ct_placement_ndim(pin), &x));
    MUST(ct_global_from_tensor(ref, cin, sin, ct_placement_ndim(cin), &xc));
    MUST(ct_global_to_global(x, pout, sout, ct_placement_ndim(pout), 0, &y));
    MUST(ct_global_to_global(xc, cout, sout, ct_placement_ndim(cout), 0, &yc));
    check_twin(y, yc, what);
    ct_global_release(x);
    ct_global_release(xc);
    ct_global_release(y);
    ct_global_release(yc);
    ct_tensor_release(ref);
    ct_placement_release(cin);
    ct_placement_release(cout);
}

/* Every 1-D transition B <-> S(0) <-> S(1) <-> P on all ranks, from an input that itself
 * came through boxing (so P inputs have OneFlow's spread layout), and placement changes. */
static void test_boxing(void **state) {
    (void)state;
    SKIP_WITHOUT_DEVICES();
    ct_placement *all = pl_range("cuda", 0, g_world);
    long d2h = opaque_d2h, h2d = opaque_h2d;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            ct_sbp si = sbp_of(i), sj = sbp_of(j), s0 = sS(0);
            char what[64];
            snprintf(what, sizeof what, "boxing %d -> %d", i, j);
            /* P inputs: made from S(0) by boxing, so their parts are not all on rank 0 */
            ct_placement *cpu = pl_cpu_twin(all);
            ct_tensor *ref = reference(4);
            ct_global *a = NULL, *ac = NULL, *x = NULL, *xc = NULL, *y = NULL, *yc = NULL;
            MUST(ct_global_from_tensor(ref, all, &s0, 1, &a));
            MUST(ct_global_from_tensor(ref, cpu, &s0, 1, &ac));
            MUST(ct_global_to_global(a, NULL, &si, 1, 0, &x));
            MUST(ct_global_to_global(ac, NULL, &si, 1, 0, &xc));
            MUST(ct_global_to_global(x, NULL, &sj, 1, 0, &y));
            MUST(ct_global_to_global(xc, NULL, &sj, 1, 0, &yc));
            check_twin(x, xc, what);
            check_twin(y, yc, what);
            ct_global_release(a);
            ct_global_release(ac);
            ct_global_release(x);
            ct_global_release(xc);
            ct_global_release(y);
            ct_global_release(yc);
            ct_tensor_release(ref);
            ct_placement_release(cpu);
        }
    /* placement changes: to the first rank, to the upper half, between them, cuda <-> cpu */
    ct_placement *first = pl_range("cuda", 0, 1);
    ct_placement *upper = pl_range("cuda", g_world / 2, g_world);
    ct_placement *all_cpu = pl_range("cpu", 0, g_world);
    const ct_placement *ins[3] = {all, first, upper}, *outs[4] = {first, upper, all, all_cpu};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j += 3) { /* to S(0) and to P */
                    ct_sbp si = sbp_of(i), sj = sbp_of(j);
                    char what[64];
                    snprintf(what, sizeof what, "placement %d -> %d, sbp %d -> %d", a, b, i, j);
                    box_case(ins[a], &si, outs[b], &sj, what);
                }
    /* cpu -> cuda, same ranks */
    for (int i = 0; i < 4; i++) {
        ct_sbp si = sbp_of(i);
        box_case(all_cpu, &si, all, &si, "cpu -> cuda");
    }
    /* 2-D hierarchies on 4 ranks */
    if (g_world == 4) {
        int64_t r[4] = {0, 1, 2, 3}, h[2] = {2, 2};
        ct_placement *mesh = pl_new("cuda", r, 4, h, 2);
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j += 5) {
                ct_sbp si[2] = {sbp_of(i / 4), sbp_of(i % 4)}, sj[2] = {sbp_of(j / 4), sbp_of(j % 4)};
                box_case(mesh, si, mesh, sj, "2-D boxing");
            }
        ct_sbp s2[2] = {sS(0), sS(1)}, s1 = sS(0);
        box_case(mesh, s2, all, &s1, "2-D -> 1-D");
        box_case(all, &s1, mesh, s2, "1-D -> 2-D");
        ct_placement_release(mesh);
    }
    ct_placement_release(first);
    ct_placement_release(upper);
    ct_placement_release(all_cpu);
    ct_placement_release(all);
    if (g_emulated)
        CHECK(opaque_d2h > d2h && opaque_h2d > h2d, "boxing never staged through the host");
    if (g_rank == 0)
        printf("boxing: %ld cases checked against the cpu placement\n", g_cases);
    CT_ASSERT_ALL(g_failures == 0);
}

/* to("cuda") / cpu() (ct_global_to_device_type): same ranks and nd-sbp (partial_sum layout
 * included), another type; the own type is the tensor itself; other types fail everywhere. */
static void test_to_device_type(void **state) {
    (void)state;
    SKIP_WITHOUT_DEVICES();
    ct_placement *pc = pl_range("cpu", 0, g_world);
    ct_tensor *ref = reference(9);
    for (int i = 0; i < 4; i++) {
        ct_sbp si = sbp_of(i), s0 = sS(0);
        ct_global *a = NULL, *x = NULL, *y = NULL, *z = NULL, *w = NULL;
        MUST(ct_global_from_tensor(ref, pc, &s0, 1, &a));
        MUST(ct_global_to_global(a, NULL, &si, 1, 0, &x)); /* P: the spread layout */
        MUST(ct_global_to_device_type(x, CT_DEVICE_CUDA, &y));
        CHECK(ct_placement_device_type(ct_global_placement(y)) == CT_DEVICE_CUDA &&
                  ct_placement_size(ct_global_placement(y)) == g_world,
              "to cuda: placement");
        check_twin(y, x, "to cuda");
        MUST(ct_global_to_device_type(y, CT_DEVICE_CPU, &z));
        CHECK(ct_placement_equal(ct_global_placement(z), pc), "to cpu: placement");
        check_twin(z, x, "to cpu");
        MUST(ct_global_to_device_type(y, CT_DEVICE_CUDA, &w));
        CHECK(w == y, "to its own type is not the tensor itself");
        ct_global_release(a);
        ct_global_release(x);
        ct_global_release(y);
        ct_global_release(z);
        ct_global_release(w);
    }
    ct_global *x = NULL, *y = NULL;
    ct_sbp b = sB();
    MUST(ct_global_from_tensor(ref, pc, &b, 1, &x));
    ct_status st = ct_global_to_device_type(x, CT_DEVICE_XPU, &y);
    CHECK(st == CT_ERR_RUNTIME && y == NULL &&
              strcmp(ct_last_error(), "Expected one of cpu, cuda device type at start of device "
                                      "string: xpu") == 0,
          "to xpu: %d %s", (int)st, ct_last_error());
    ct_global_release(x);
    ct_tensor_release(ref);
    ct_placement_release(pc);
    CT_ASSERT_ALL(g_failures == 0);
}

/* add, comparisons, a unary op and reductions: the local ops run through the launch slot on
 * each rank's device; the sbp inference is the cpu's. */
static void test_ops(void **state) {
    (void)state;
    SKIP_WITHOUT_DEVICES();
    ct_placement *p = pl_range("cuda", 0, g_world), *pc = pl_cpu_twin(p);
    ct_tensor *ra = reference(5), *rb = reference(6);
    long launches_before = launches_binary + launches_reduce + launches_unary;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            ct_sbp si = sbp_of(i), sj = sbp_of(j);
            ct_global *a = NULL, *b = NULL, *ac = NULL, *bc = NULL;
            MUST(ct_global_from_tensor(ra, p, &si, 1, &a));
            MUST(ct_global_from_tensor(rb, p, &sj, 1, &b));
            MUST(ct_global_from_tensor(ra, pc, &si, 1, &ac));
            MUST(ct_global_from_tensor(rb, pc, &sj, 1, &bc));
            ct_global *z = NULL, *zc = NULL;
            MUST(ct_global_add(a, b, ct_scalar_int(1), &z));
            MUST(ct_global_add(ac, bc, ct_scalar_int(1), &zc));
            check_twin(z, zc, "add");
            ct_global_release(z);
            ct_global_release(zc);
            MUST(ct_global_binary(CT_OP_LT, a, b, ct_scalar_int(1), &z));
            MUST(ct_global_binary(CT_OP_LT, ac, bc, ct_scalar_int(1), &zc));
            check_twin(z, zc, "lt");
            ct_global_release(z);
            ct_global_release(zc);
            if (j == 0) {
                MUST(ct_global_unary(CT_UNOP_NEG, a, &z));
                MUST(ct_global_unary(CT_UNOP_NEG, ac, &zc));
                check_twin(z, zc, "neg");
                ct_global_release(z);
                ct_global_release(zc);
                for (int64_t d = 0; d < 2; d++) {
                    MUST(ct_global_reduce(CT_REDUCE_SUM, a, &d, 1, false, CT_DTYPE_UNDEFINED, &z));
                    MUST(ct_global_reduce(CT_REDUCE_SUM, ac, &d, 1, false, CT_DTYPE_UNDEFINED,
                                          &zc));
                    check_twin(z, zc, "sum");
                    /* OneFlow: a sum over the split dim is partial_sum */
                    if (i == (int)d)
                        CHECK(ct_global_sbp(z)[0].kind == CT_SBP_PARTIAL_SUM,
                              "sum over S(%d) is not partial_sum", (int)d);
                    ct_global_release(z);
                    ct_global_release(zc);
                }
                MUST(ct_global_reduce(CT_REDUCE_AMAX, a, NULL, 0, false, CT_DTYPE_UNDEFINED, &z));
                MUST(ct_global_reduce(CT_REDUCE_AMAX, ac, NULL, 0, false, CT_DTYPE_UNDEFINED,
                                      &zc));
                check_twin(z, zc, "amax");
                ct_global_release(z);
                ct_global_release(zc);
            }
            ct_global_release(a);
            ct_global_release(b);
            ct_global_release(ac);
            ct_global_release(bc);
        }
    /* the emulated launch slot really ran (a real backend counts nothing here) */
    if (g_emulated)
        CHECK(launches_binary + launches_reduce + launches_unary > launches_before,
              "no launch reached the backend");
    ct_tensor_release(ra);
    ct_tensor_release(rb);
    ct_placement_release(p);
    ct_placement_release(pc);
    CT_ASSERT_ALL(g_failures == 0);
}

/* An error on one rank is an error on every rank, and the runtime stays usable. */
static void test_errors(void **state) {
    (void)state;
    SKIP_WITHOUT_DEVICES();
    ct_placement *p = pl_range("cuda", 0, g_world);
    ct_sbp s0 = sS(0), b = sB();
    int last = g_world - 1;
    /* a bad device on one rank: a meta tensor cannot be moved to the rank's cuda device */
    ct_tensor *mine = reference(7), *meta = NULL;
    ct_device m = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
    MUST(ct_tensor_to_device(mine, m, &meta));
    ct_global *g = NULL;
    ct_status st = ct_global_from_local(g_rank == last ? meta : mine, p, &s0, 1, 0, &g);
    CHECK(st != CT_OK && g == NULL, "to_global with a meta tensor on rank %d succeeded", last);
    ct_tensor_release(meta);
    /* a device allocation failing on one rank, at each staging step */
    if (g_emulated) {
        ct_global *x = NULL;
        ct_tensor *ref = reference(8);
        MUST(ct_global_from_tensor(ref, p, &s0, 1, &x));
        opaque_fail_alloc = g_rank == last;
        st = ct_global_to_global(x, NULL, &b, 1, 0, &g); /* staging the result fails */
        CHECK(st != CT_OK && g == NULL, "boxing with a failing device on rank %d succeeded", last);
        if (g_rank != last && st != CT_OK)
            CHECK(strstr(ct_last_error(), "another rank") != NULL ||
                      strstr(ct_last_error(), "failed on rank") != NULL,
                  "unexpected message: %s", ct_last_error());
        int64_t sizes[2] = {5, 6};
        st = ct_global_zeros(sizes, 2, CT_FLOAT32, p, &s0, 1, &g);
        CHECK(st != CT_OK && g == NULL, "zeros with a failing device on rank %d succeeded", last);
        st = ct_global_from_local(mine, p, &b, 1, CT_GLOBAL_COPY, &g);
        CHECK(st != CT_OK && g == NULL, "to_global with a failing device on rank %d", last);
        opaque_fail_alloc = 0;
        /* still usable afterwards */
        MUST(ct_global_to_global(x, NULL, &b, 1, 0, &g));
        ct_tensor *lg = NULL;
        MUST(ct_global_to_logical(g, &lg));
        CHECK(same_values(lg, ref), "boxing after the errors");
        ct_tensor_release(lg);
        ct_global_release(g);
        ct_global_release(x);
        ct_tensor_release(ref);
    }
    ct_tensor_release(mine);
    ct_placement_release(p);
    CT_ASSERT_ALL(g_failures == 0);
}

int main(void) {
    ct_test_start();
    g_rank = ct_test_rank();
    g_world = ct_test_world();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement_devices),
        cmocka_unit_test(test_from_local),
        cmocka_unit_test(test_boxing),
        cmocka_unit_test(test_to_device_type),
        cmocka_unit_test(test_ops),
        cmocka_unit_test(test_errors),
    };
    int failures = cmocka_run_group_tests(tests, setup, teardown);
    return ct_test_finish(failures);
}
