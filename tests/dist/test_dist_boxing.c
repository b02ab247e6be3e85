/* Boxing (ct_dist_impl_boxing, ct_global_to_global) and the partial-sum reductions, on 1..4 ranks.
 *
 * Reference: every rank computes the same logical tensor from a hash of the element index
 * (small integers and halves, exact in every tested dtype). An input is built directly with
 * ct_dist_impl_global_make from the slice of the reference each rank holds under the input's
 * placement and nd-sbp (a partial_sum axis holds parts that sum exactly to the reference,
 * or whose logical or is it for bool). After the conversion each rank checks its local
 * component against the reference slice of its output box; outputs with partial_sum are
 * checked by gathering every component and summing the partial groups, and created
 * partial_sum axes must follow OneFlow's layouts (global.h: spread shards from 1-D S, else
 * "coordinate 0 keeps, the others hold zeros").
 * The boxes are recomputed here independently of shard.c.
 *
 * Failures are counted per rank (each failing rank prints the case) and combined with
 * CT_ASSERT_ALL at the end of each test, so the ranks stay in step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/convert.h"
#include "dist/dist_impl.h"
#include "dist_test_util.h"

static int g_rank, g_world;
static long g_cases; /* conversions checked, reported by rank 0 */

#define MUST(call)                                                                              \
    do {                                                                                        \
        ct_status must_st_ = (call);                                                            \
        if (must_st_ != CT_OK) {                                                                \
            fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", g_rank, __FILE__, __LINE__,      \
                    #call, ct_last_error());                                                    \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                       \
        }                                                                                       \
    } while (0)

/* ---- placements and sbp ------------------------------------------------------------------ */

static ct_placement *pl_make(const int64_t *ranks, int64_t n, const int64_t *h, int64_t hd) {
    ct_placement *p = NULL;
    MUST(ct_placement_new("cpu", ranks, h ? h : &n, h ? hd : 1, &p));
    return p;
}

/* 1-D placement of ranks lo..hi-1. */
static ct_placement *pl_range(int64_t lo, int64_t hi) {
    int64_t r[64];
    for (int64_t i = lo; i < hi; i++)
        r[i - lo] = i;
    return pl_make(r, hi - lo, NULL, 1);
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

/* ---- boxes (independent of shard.c) --------------------------------------------------------- */

typedef struct tbox {
    int64_t nd, begin[4], len[4];
} tbox;

static void coords_of(const ct_placement *pl, int64_t pid, int64_t *c) {
    const int64_t *h = ct_placement_hierarchy(pl);
    for (int64_t k = ct_placement_ndim(pl) - 1; k >= 0; k--) {
        c[k] = pid % h[k];
        pid /= h[k];
    }
}

/* The slice parallel id `pid` holds; partial_sum counts as broadcast; pid < 0 is empty. */
static void tbox_of(const int64_t *sizes, int64_t nd, const ct_placement *pl, const ct_sbp *sbp,
                    int64_t pid, tbox *b) {
    b->nd = nd;
    for (int64_t d = 0; d < nd; d++) {
        b->begin[d] = 0;
        b->len[d] = pid < 0 ? 0 : sizes[d];
    }
    if (pid < 0)
        return;
    int64_t c[8];
    coords_of(pl, pid, c);
    const int64_t *h = ct_placement_hierarchy(pl);
    for (int64_t k = 0; k < ct_placement_ndim(pl); k++) {
        if (sbp[k].kind != CT_SBP_SPLIT)
            continue;
        int64_t d = sbp[k].dim, total = b->len[d], base = total / h[k], rem = total % h[k];
        int64_t off = c[k] < rem ? c[k] * (base + 1) : rem * (base + 1) + (c[k] - rem) * base;
        b->begin[d] += off;
        b->len[d] = base + (c[k] < rem ? 1 : 0);
    }
}

static int64_t tbox_numel(const tbox *b) {
    int64_t n = 1;
    for (int64_t d = 0; d < b->nd; d++)
        n *= b->len[d];
    return n;
}

/* Logical linear index of each element of the box, in C order. */
static void tbox_indices(const int64_t *sizes, const tbox *b, int64_t *out) {
    int64_t n = tbox_numel(b), m[4] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t li = 0;
        for (int64_t d = 0; d < b->nd; d++)
            li = li * sizes[d] + b->begin[d] + m[d];
        out[e] = li;
        for (int64_t d = b->nd - 1; d >= 0; d--) {
            if (++m[d] < b->len[d])
                break;
            m[d] = 0;
        }
    }
}

/* Linear index among the partial_sum axes of this rank, and their number of parts. */
static int64_t p_index(const ct_placement *pl, const ct_sbp *sbp, int64_t pid, int64_t *nparts) {
    int64_t c[8], idx = 0, n = 1;
    const int64_t *h = ct_placement_hierarchy(pl);
    if (pid >= 0)
        coords_of(pl, pid, c);
    for (int64_t k = 0; k < ct_placement_ndim(pl); k++)
        if (sbp[k].kind == CT_SBP_PARTIAL_SUM) {
            idx = idx * h[k] + (pid >= 0 ? c[k] : 0);
            n *= h[k];
        }
    *nparts = n;
    return idx;
}

/* ---- reference values ---------------------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static bool is_int(ct_dtype dt) { return ct_dtype_is_integral(dt, false); }

static double ref_val(ct_dtype dt, uint64_t seed, int64_t i) {
    uint64_t h = mix(seed * 1000003u + (uint64_t)i);
    if (dt == CT_BOOL)
        return (double)(h & 1);
    if (is_int(dt))
        return (double)((int64_t)(h % 201) - 100);
    return (double)((int64_t)(h % 33) - 16) * 0.5;
}

/* Part j of nparts: they sum (bool: or) exactly to the reference. */
static double part_val(ct_dtype dt, uint64_t seed, int64_t i, int64_t j, int64_t nparts) {
    double ref = ref_val(dt, seed, i);
    if (nparts <= 1)
        return ref;
    uint64_t k = mix(seed * 7919u + (uint64_t)i * 31u);
    if (dt == CT_BOOL) {
        if (ref == 0)
            return 0;
        return (j == (int64_t)(k % (uint64_t)nparts) || (mix(k + (uint64_t)j) & 1)) ? 1 : 0;
    }
    double step = is_int(dt) ? 1.0 : 0.5, sum = 0;
    for (int64_t q = 0; q < nparts - 1; q++) {
        double v = (double)((int64_t)(mix(k + (uint64_t)q) % 9) - 4) * step;
        if (q == j)
            return v;
        sum += v;
    }
    return ref - sum;
}

/* ---- one case ---------------------------------------------------------------------------- */

typedef struct tcase {
    ct_dtype dt;
    int64_t nd, sizes[4];
    const ct_placement *pin, *pout;
    ct_sbp sin[2], sout[2];
    uint64_t seed;
} tcase;

static void describe(const tcase *c, char *buf, size_t n) {
    char a[128], b[128], sa[64], sb[64], shape[64] = "(";
    ct_test_placement_text(c->pin, NULL, a, sizeof a);
    ct_test_placement_text(c->pout, NULL, b, sizeof b);
    ct_nd_sbp_format_short(c->sin, ct_placement_ndim(c->pin), sa, sizeof sa);
    ct_nd_sbp_format_short(c->sout, ct_placement_ndim(c->pout), sb, sizeof sb);
    for (int64_t d = 0; d < c->nd; d++)
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", d ? ", " : "",
                 (long long)c->sizes[d]);
    strcat(shape, ")");
    snprintf(buf, n, "%s %s: %s %s -> %s %s", ct_dtype_name(c->dt), shape, a, sa, b, sb);
}

/* A rank's local data as doubles; NULL-safe for empty tensors. */
static double *local_values(const ct_tensor *t, int64_t *n) {
    *n = ct_tensor_numel(t);
    double *v = malloc(sizeof(double) * (size_t)(*n > 0 ? *n : 1));
    if (*n > 0)
        MUST(ct_convert(CT_FLOAT64, v, ct_tensor_dtype(t), ct_tensor_data_ptr(t), (size_t)*n));
    return v;
}

static ct_global *make_input(const tcase *c) {
    int64_t pid = ct_placement_parallel_id(c->pin, g_rank);
    ct_tensor *local = NULL;
    if (pid < 0) {
        MUST(ct_dist_impl_global_empty_local(c->dt, c->nd, &local));
    } else {
        tbox b;
        tbox_of(c->sizes, c->nd, c->pin, c->sin, pid, &b);
        int64_t n = tbox_numel(&b), nparts, j = p_index(c->pin, c->sin, pid, &nparts);
        int64_t *li = malloc(sizeof(int64_t) * (size_t)(n + 1));
        double *v = malloc(sizeof(double) * (size_t)(n + 1));
        tbox_indices(c->sizes, &b, li);
        for (int64_t e = 0; e < n; e++)
            v[e] = part_val(c->dt, c->seed, li[e], j, nparts);
        ct_device dev;
        MUST(ct_placement_local_device(c->pin, &dev));
        MUST(ct_tensor_empty(b.len, c->nd, c->dt, &dev, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                             &local));
        if (n > 0)
            MUST(ct_convert(c->dt, ct_tensor_data_ptr(local), CT_FLOAT64, v, (size_t)n));
        free(li);
        free(v);
    }
    ct_global *g = NULL;
    MUST(ct_dist_impl_global_make(c->dt, c->sizes, c->nd, c->pin, c->sin, local, &g));
    return g;
}

static bool same_layout(const ct_placement *a, const ct_placement *b) {
    if (ct_placement_size(a) != ct_placement_size(b) || ct_placement_ndim(a) != ct_placement_ndim(b))
        return false;
    for (int64_t i = 0; i < ct_placement_size(a); i++)
        if (ct_placement_ranks(a)[i] != ct_placement_ranks(b)[i])
            return false;
    for (int64_t k = 0; k < ct_placement_ndim(a); k++)
        if (ct_placement_hierarchy(a)[k] != ct_placement_hierarchy(b)[k])
            return false;
    return true;
}

/* Rank 0 rebuilds the logical value from every rank's component: within a partial group
 * replicas must agree, and the groups sum (or) to the reference. */
static int check_partial_logical(const tcase *c, const double *mine, int64_t nmine, char *why,
                                 size_t nwhy) {
    int cnt = (int)nmine, *counts = malloc(sizeof(int) * (size_t)g_world),
        *displs = malloc(sizeof(int) * (size_t)g_world);
    MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < g_world; r++) {
        displs[r] = total;
        total += counts[r];
    }
    double *all = malloc(sizeof(double) * (size_t)(total + 1));
    MPI_Allgatherv(mine, cnt, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    int ok = 1;
    if (g_rank == 0) {
        int64_t numel = 1, nparts = 1;
        for (int64_t d = 0; d < c->nd; d++)
            numel *= c->sizes[d];
        p_index(c->pout, c->sout, 0, &nparts);
        double *val = calloc((size_t)(nparts * numel + 1), sizeof(double));
        char *seen = calloc((size_t)(nparts * numel + 1), 1);
        int64_t *li = malloc(sizeof(int64_t) * (size_t)(numel + 1));
        for (int64_t q = 0; ok && q < ct_placement_size(c->pout); q++) {
            int64_t r = ct_placement_ranks(c->pout)[q], np;
            int64_t j = p_index(c->pout, c->sout, q, &np);
            tbox b;
            tbox_of(c->sizes, c->nd, c->pout, c->sout, q, &b);
            int64_t n = tbox_numel(&b);
            if (counts[r] != n) {
                snprintf(why, nwhy, "rank %lld holds %d elements, expected %lld", (long long)r,
                         counts[r], (long long)n);
                ok = 0;
                break;
            }
            tbox_indices(c->sizes, &b, li);
            for (int64_t e = 0; e < n; e++) {
                int64_t at = j * numel + li[e];
                double v = all[displs[r] + e];
                if (seen[at] && val[at] != v) {
                    snprintf(why, nwhy, "replicas differ at element %lld", (long long)li[e]);
                    ok = 0;
                    break;
                }
                seen[at] = 1;
                val[at] = v;
            }
        }
        for (int64_t i = 0; ok && i < numel; i++) {
            double sum = 0;
            for (int64_t j = 0; j < nparts; j++) {
                if (!seen[j * numel + i]) {
                    snprintf(why, nwhy, "element %lld of part %lld is held by nobody",
                             (long long)i, (long long)j);
                    ok = 0;
                    break;
                }
                double v = val[j * numel + i];
                sum = c->dt == CT_BOOL ? (double)(sum != 0 || v != 0) : sum + v;
            }
            if (ok && sum != ref_val(c->dt, c->seed, i)) {
                snprintf(why, nwhy, "logical element %lld is %g, expected %g", (long long)i, sum,
                         ref_val(c->dt, c->seed, i));
                ok = 0;
            }
        }
        free(val);
        free(seen);
        free(li);
    }
    free(all);
    free(counts);
    free(displs);
    return ok;
}

/* Checks this rank's view of y (collective when the output has partial_sum). */
static int check_case(const tcase *c, const ct_global *x, const ct_global *y, ct_status st) {
    char why[256] = "";
    int ok = 1;
    int64_t hout = ct_placement_ndim(c->pout);
    int64_t pid = ct_placement_parallel_id(c->pout, g_rank);
    bool has_p = ct_dist_impl_nd_sbp_has_partial(c->sout, hout);
    tbox b;
    tbox_of(c->sizes, c->nd, c->pout, c->sout, pid, &b);
    int64_t n = 0;
    double *got = NULL;
    if (st != CT_OK) {
        snprintf(why, sizeof why, "%s: %s", ct_status_name(st), ct_last_error());
        ok = 0;
    } else if (y == x || ct_global_dtype(y) != c->dt || ct_global_dim(y) != c->nd ||
               memcmp(ct_global_sizes(y), c->sizes, sizeof(int64_t) * (size_t)c->nd) != 0 ||
               !ct_placement_equal(ct_global_placement(y), c->pout) ||
               !ct_nd_sbp_equal(ct_global_sbp(y), c->sout, hout)) {
        snprintf(why, sizeof why, "wrong metadata");
        ok = 0;
    } else {
        const ct_tensor *t = ct_global_local(y);
        bool shape_ok = ct_tensor_dim(t) == c->nd && ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS);
        for (int64_t d = 0; shape_ok && d < c->nd; d++)
            shape_ok = ct_tensor_sizes(t)[d] == b.len[d];
        if (!shape_ok) {
            snprintf(why, sizeof why, "wrong local shape");
            ok = 0;
        } else if (pid >= 0) {
            got = local_values(t, &n);
        }
    }
    if (ok && pid >= 0) {
        int64_t *li = malloc(sizeof(int64_t) * (size_t)(n + 1));
        tbox_indices(c->sizes, &b, li);
        /* Created partial axes: coordinate != 0 holds zeros. Kept ones (same layout, P in
         * and out on the axis) hold parts. */
        bool zeros = false, kept = false;
        int64_t co[8];
        coords_of(c->pout, pid, co);
        for (int64_t k = 0; k < hout; k++) {
            if (c->sout[k].kind != CT_SBP_PARTIAL_SUM)
                continue;
            bool keep = same_layout(c->pin, c->pout) && c->sin[k].kind == CT_SBP_PARTIAL_SUM;
            kept |= keep;
            zeros |= !keep && co[k] != 0;
        }
        /* 1-D S(i) (or a one-rank input) -> 1-D P spreads the shards (OneFlow's
         * naive-s-to-p / naive-1-to-p, global.h): input member i's box goes to its own rank
         * when that rank is in the output placement, else to output id i % size; zeros
         * elsewhere. Everything else: first rank keeps. */
        int64_t nin = ct_placement_size(c->pin);
        bool spread = hout == 1 && ct_placement_ndim(c->pin) == 1 &&
                      c->sout[0].kind == CT_SBP_PARTIAL_SUM &&
                      (c->sin[0].kind == CT_SBP_SPLIT || nin == 1) &&
                      !(same_layout(c->pin, c->pout) && c->sin[0].kind == CT_SBP_PARTIAL_SUM);
        int64_t pos[4];
        for (int64_t e = 0; ok && e < n; e++) {
            double want = zeros ? 0 : ref_val(c->dt, c->seed, li[e]);
            if (spread) {
                int64_t rest = li[e];
                for (int64_t d = c->nd - 1; d >= 0; d--) {
                    pos[d] = rest % c->sizes[d];
                    rest /= c->sizes[d];
                }
                bool mine = false;
                for (int64_t i = 0; i < nin && !mine; i++) {
                    int64_t dest = ct_placement_parallel_id(c->pout, ct_placement_ranks(c->pin)[i]);
                    if ((dest >= 0 ? dest : i % ct_placement_size(c->pout)) != pid)
                        continue;
                    tbox src;
                    tbox_of(c->sizes, c->nd, c->pin, c->sin, i, &src);
                    mine = true;
                    for (int64_t d = 0; d < c->nd; d++)
                        mine &= pos[d] >= src.begin[d] && pos[d] < src.begin[d] + src.len[d];
                }
                want = mine ? ref_val(c->dt, c->seed, li[e]) : 0;
            }
            if (kept && !zeros)
                continue; /* parts: checked through the logical value below */
            if (got[e] != want) {
                snprintf(why, sizeof why, "element %lld is %g, expected %g", (long long)li[e],
                         got[e], want);
                ok = 0;
            }
        }
        free(li);
    }
    if (has_p) {
        char why2[256] = "";
        int lok = check_partial_logical(c, ok ? got : NULL, ok ? n : 0, why2, sizeof why2);
        if (ok && !lok) {
            ok = 0;
            snprintf(why, sizeof why, "%s", why2);
        }
    }
    /* The input is never modified. */
    if (ok && ct_placement_parallel_id(c->pin, g_rank) >= 0) {
        ct_global *again = make_input(c);
        int64_t n1, n2;
        double *v1 = local_values(ct_global_local(x), &n1);
        double *v2 = local_values(ct_global_local(again), &n2);
        if (n1 != n2 || (n1 > 0 && memcmp(v1, v2, sizeof(double) * (size_t)n1) != 0)) {
            snprintf(why, sizeof why, "the input was modified");
            ok = 0;
        }
        free(v1);
        free(v2);
        ct_global_release(again);
    }
    if (!ok) {
        char desc[400];
        describe(c, desc, sizeof desc);
        fprintf(stderr, "rank %d: FAIL %s: %s\n", g_rank, desc, why);
    }
    free(got);
    return ok;
}

static int run_case(const tcase *c) {
    g_cases++;
    ct_global *x = make_input(c), *y = NULL;
    ct_status st = ct_dist_impl_boxing(x, c->pout, c->sout, &y);
    int ok = check_case(c, x, y, st);
    ct_global_release(x);
    ct_global_release(y);
    return ok ? 0 : 1;
}

/* ---- matrices of cases ---------------------------------------------------------------------- */

typedef struct shape {
    int64_t nd, sizes[2];
} shape;

static const shape k_shapes[] = {{2, {7, 5}}, {2, {10, 3}}, {2, {3, 1}}, {2, {0, 4}}, {0, {0, 0}}};
static const ct_dtype k_all_dtypes[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_INT64,
                                        CT_FLOAT16, CT_BFLOAT16, CT_BOOL};

/* Every nd-sbp pair over {S0, S1, B, P} for the two placements, for the given shapes and
 * dtypes (0-dim shapes skip splits). Returns the number of failed cases on this rank. */
static int run_matrix(const ct_placement *pin, const ct_placement *pout, const shape *shapes,
                      int nshapes, const ct_dtype *dts, int ndts, uint64_t *seed) {
    int fails = 0;
    int64_t hin = ct_placement_ndim(pin), hout = ct_placement_ndim(pout);
    int nin = hin == 1 ? 4 : 16, nout = hout == 1 ? 4 : 16;
    for (int a = 0; a < nin; a++)
        for (int b = 0; b < nout; b++)
            for (int s = 0; s < nshapes; s++)
                for (int t = 0; t < ndts; t++) {
                    tcase c = {.dt = dts[t], .nd = shapes[s].nd, .pin = pin, .pout = pout};
                    memcpy(c.sizes, shapes[s].sizes, sizeof shapes[s].sizes);
                    c.sin[0] = sbp_of(hin == 1 ? a : a / 4);
                    c.sin[1] = sbp_of(a % 4);
                    c.sout[0] = sbp_of(hout == 1 ? b : b / 4);
                    c.sout[1] = sbp_of(b % 4);
                    if (c.nd == 0 && (ct_dist_impl_nd_sbp_has_split(c.sin, hin) ||
                                      ct_dist_impl_nd_sbp_has_split(c.sout, hout)))
                        continue;
                    c.seed = ++*seed;
                    fails += run_case(&c);
                }
    return fails;
}

static void test_1d_same_placement(void **state) {
    (void)state;
    uint64_t seed = 100;
    int fails = 0;
    ct_placement *pls[3] = {pl_range(0, g_world), g_world > 1 ? pl_range(1, g_world) : NULL,
                            g_world > 1 ? pl_range(0, 1) : NULL};
    for (int i = 0; i < 3; i++) {
        if (pls[i] == NULL)
            continue;
        fails += run_matrix(pls[i], pls[i], k_shapes, 5, k_all_dtypes, 7, &seed);
        ct_placement_release(pls[i]);
    }
    CT_ASSERT_ALL(fails == 0);
}

/* Zero-size tensors move metadata only, even with a dimension MPI could not address. */
static void test_zero_size_huge_dim(void **state) {
    (void)state;
    static const shape huge[] = {{2, {3000000000LL, 0}}, {2, {0, 3000000000LL}}};
    static const ct_dtype dt[] = {CT_INT8};
    uint64_t seed = 900;
    ct_placement *all = pl_range(0, g_world), *last = pl_range(g_world - 1, g_world);
    int fails = run_matrix(all, all, huge, 2, dt, 1, &seed);
    fails += run_matrix(all, last, huge, 2, dt, 1, &seed);
    ct_placement_release(all);
    ct_placement_release(last);
    CT_ASSERT_ALL(fails == 0);
}

static void test_2d_same_placement(void **state) {
    (void)state;
    if (g_world != 4)
        skip();
    int64_t r[4] = {0, 1, 2, 3}, h[2] = {2, 2};
    ct_placement *p = pl_make(r, 4, h, 2);
    uint64_t seed = 2000;
    /* Every dtype on the uneven shape; element sizes 4, 2, 1 (and the three kinds of sums)
     * on the others, which keeps the np 4 run short under sanitizers. */
    static const ct_dtype some[] = {CT_FLOAT32, CT_BFLOAT16, CT_BOOL};
    int fails = run_matrix(p, p, k_shapes, 1, k_all_dtypes, 7, &seed);
    fails += run_matrix(p, p, k_shapes + 1, 4, some, 3, &seed);
    ct_placement_release(p);
    CT_ASSERT_ALL(fails == 0);
}

static void test_placement_changes(void **state) {
    (void)state;
    if (g_world == 1)
        skip();
    uint64_t seed = 5000;
    int fails = 0;
    static const ct_dtype more[] = {CT_INT64, CT_FLOAT16, CT_BOOL};
    ct_placement *pairs[16][2];
    int np = 0;
    pairs[np][0] = pl_range(0, 1), pairs[np++][1] = pl_range(0, g_world);
    pairs[np][0] = pl_range(0, g_world), pairs[np++][1] = pl_range(g_world - 1, g_world);
    if (g_world >= 3) {
        pairs[np][0] = pl_range(0, 2), pairs[np++][1] = pl_range(1, g_world);
    }
    if (g_world == 4) {
        int64_t r013[3] = {0, 1, 3}, r13[2] = {1, 3}, all[4] = {0, 1, 2, 3}, h22[2] = {2, 2},
                h21[2] = {2, 1}, h14[2] = {1, 4};
        pairs[np][0] = pl_range(0, 2), pairs[np++][1] = pl_range(2, 4);
        pairs[np][0] = pl_make(r013, 3, NULL, 1), pairs[np++][1] = pl_range(0, 4);
        pairs[np][0] = pl_range(0, 4), pairs[np++][1] = pl_make(r13, 2, NULL, 1);
        pairs[np][0] = pl_range(0, 4), pairs[np++][1] = pl_make(all, 4, h22, 2);
        pairs[np][0] = pl_make(all, 4, h22, 2), pairs[np++][1] = pl_range(0, 4);
        pairs[np][0] = pl_make(all, 4, h22, 2), pairs[np++][1] = pl_make(all, 4, h14, 2);
        pairs[np][0] = pl_make(r13, 2, h21, 2), pairs[np++][1] = pl_make(all, 4, h22, 2);
        pairs[np][0] = pl_make(all, 4, h22, 2), pairs[np++][1] = pl_range(1, 4);
    }
    for (int i = 0; i < np; i++) {
        fails += run_matrix(pairs[i][0], pairs[i][1], k_shapes, 5, k_all_dtypes, 1, &seed);
        fails += run_matrix(pairs[i][0], pairs[i][1], k_shapes, 1, more, 3, &seed);
        ct_placement_release(pairs[i][0]);
        ct_placement_release(pairs[i][1]);
    }
    CT_ASSERT_ALL(fails == 0);
}

/* ---- exact values of OneFlow's boxing tests ------------------------------------------------ */

/* A local int32 tensor of `rows` x `cols` filled by f(rank, i, j). */
static ct_tensor *local_i32(int64_t rows, int64_t cols, int32_t (*f)(int, int64_t, int64_t)) {
    int64_t sz[2] = {rows, cols};
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_tensor *t = NULL;
    MUST(ct_tensor_empty(sz, 2, CT_INT32, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    int32_t *p = ct_tensor_data_ptr(t);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            p[i * cols + j] = f(g_rank, i, j);
    return t;
}

static int32_t f_ones(int r, int64_t i, int64_t j) { return (void)r, (void)i, (void)j, 1; }
static int32_t f_rank(int r, int64_t i, int64_t j) { return (void)i, (void)j, r; }
/* OneFlow's test_eager_boxing arrays: each rank its own 4x4 A_r. */
static int32_t f_a(int r, int64_t i, int64_t j) { return (int32_t)(r * 100 + i * 4 + j); }
static int32_t f_a0(int r, int64_t i, int64_t j) { return (void)r, f_a(0, i, j); }
static int32_t f_a0col(int r, int64_t i, int64_t j) { return f_a(0, i, r + j); }

/* Global tensor of logical `sizes` whose local component is `local` on members (the
 * OneFlow tests' local_to_global), built directly. */
static ct_global *g_from(ct_tensor *local, const int64_t *sizes, const ct_placement *p,
                         const ct_sbp *sbp) {
    ct_global *g = NULL;
    if (!ct_placement_contains(p, g_rank)) {
        ct_tensor_release(local);
        MUST(ct_dist_impl_global_empty_local(CT_INT32, 2, &local));
    }
    MUST(ct_dist_impl_global_make(CT_INT32, sizes, 2, p, sbp, local, &g));
    return g;
}

/* y = x.to_global(p, sbp) through the public entry point. */
static ct_global *to_global(const ct_global *x, const ct_placement *p, const ct_sbp *sbp) {
    ct_global *y = NULL;
    MUST(ct_global_to_global(x, p, sbp, ct_placement_ndim(p), 0, &y));
    return y;
}

/* Does this rank's local equal rows x cols of g(i, j)? */
static bool local_is(const ct_global *y, int64_t rows, int64_t cols,
                     int32_t (*g)(int64_t, int64_t, const void *), const void *ctx) {
    const ct_tensor *t = ct_global_local(y);
    if (ct_tensor_dim(t) != 2 || ct_tensor_sizes(t)[0] != rows || ct_tensor_sizes(t)[1] != cols)
        return false;
    const int32_t *p = ct_tensor_data_ptr(t);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            if (p[i * cols + j] != g(i, j, ctx))
                return false;
    return true;
}

static int32_t g_const(int64_t i, int64_t j, const void *ctx) {
    return (void)i, (void)j, *(const int32_t *)ctx;
}
/* ctx: {row0, value for rows < row0, value for rows >= row0} */
static int32_t g_rows(int64_t i, int64_t j, const void *ctx) {
    const int32_t *c = ctx;
    return (void)j, i < c[0] ? c[1] : c[2];
}
/* ctx: {col0, ncols_total, rank list count, ranks...}: sum of A_r[i][col0 + j] */
static int32_t g_asum(int64_t i, int64_t j, const void *ctx) {
    const int32_t *c = ctx;
    int32_t s = 0;
    for (int k = 0; k < c[1]; k++)
        s += f_a(c[2 + k], i, c[0] + j);
    return s;
}
/* ctx: {row0, col0, nranks, ranks...}: rows of A_{r0}; A_{r1}; ... from row0, col0 */
static int32_t g_acat(int64_t i, int64_t j, const void *ctx) {
    const int32_t *c = ctx;
    int64_t row = c[0] + i;
    return f_a(c[3 + row / 4], row % 4, c[1] + j);
}

/* ctx: {dim, lo, hi, then g_acat's ctx}: g_acat inside [lo, hi) along dim (0 rows, 1
 * columns), zero outside: a shard spread to a partial_sum rank in place. */
static int32_t g_band(int64_t i, int64_t j, const void *ctx) {
    const int32_t *c = ctx;
    int64_t at = c[0] == 0 ? i : j;
    return at >= c[1] && at < c[2] ? g_acat(i, j, c + 3) : 0;
}

static void test_exact_1n2d(void **state) {
    (void)state;
    if (g_world < 2)
        skip();
    ct_placement *p = pl_range(0, 2);
    ct_sbp s0[1] = {sS(0)}, s1[1] = {sS(1)}, b[1] = {sB()}, pp[1] = {sP()};
    int64_t s32[2] = {32, 16}, s16[2] = {16, 16}, s84[2] = {8, 4};
    bool member = g_rank < 2, ok = true;
    int32_t one = 1, two = 2, zero = 0;

    ct_global *x = g_from(local_i32(16, 16, f_ones), s32, p, s0), *y;
    y = to_global(x, p, b); /* S(0) -> B: ones(32, 16) */
    ok &= !member || local_is(y, 32, 16, g_const, &one);
    ct_global_release(y);
    y = to_global(x, p, pp); /* S(0) -> P: own shard in place, zeros elsewhere */
    int32_t rows[3] = {16, g_rank == 0 ? 1 : 0, g_rank == 0 ? 0 : 1};
    ok &= !member || local_is(y, 32, 16, g_rows, rows);
    ct_global_release(y);
    ct_global_release(x);

    x = g_from(local_i32(16, 16, f_ones), s16, p, b);
    y = to_global(x, p, pp); /* B -> P: rank 0 keeps */
    ok &= !member || local_is(y, 16, 16, g_const, g_rank == 0 ? &one : &zero);
    ct_global_release(y);
    y = to_global(x, p, s0); /* B -> S(0): ones(8, 16) */
    ok &= !member || local_is(y, 8, 16, g_const, &one);
    ct_global_release(y);
    ct_global_release(x);

    x = g_from(local_i32(16, 16, f_ones), s16, p, pp);
    y = to_global(x, p, s0); /* P -> S(0): 2 * ones(8, 16) */
    ok &= !member || local_is(y, 8, 16, g_const, &two);
    ct_global_release(y);
    y = to_global(x, p, b); /* P -> B: 2 * ones(16, 16) */
    ok &= !member || local_is(y, 16, 16, g_const, &two);
    ct_global_release(y);
    ct_global_release(x);

    /* S(0) -> S(1) with rank r holding A_r: rank 0 gets columns 0-1 of [A0; A1]. */
    x = g_from(local_i32(4, 4, f_a), s84, p, s0);
    y = to_global(x, p, s1);
    int32_t cat[5] = {0, g_rank == 0 ? 0 : 2, 2, 0, 1};
    ok &= !member || local_is(y, 8, 2, g_acat, cat);
    ct_global_release(y);
    ct_global_release(x);
    ct_placement_release(p);
    CT_ASSERT_ALL(ok);
}

static void test_exact_eager_boxing_1n4d(void **state) {
    (void)state;
    if (g_world != 4)
        skip();
    int64_t r013[3] = {0, 1, 3}, r13[2] = {1, 3};
    ct_placement *p01 = pl_range(0, 2), *p23 = pl_range(2, 4), *p013 = pl_make(r013, 3, NULL, 1),
                 *pall = pl_range(0, 4), *p13 = pl_make(r13, 2, NULL, 1);
    ct_sbp s0[1] = {sS(0)}, s1[1] = {sS(1)}, b[1] = {sB()}, pp[1] = {sP()};
    int64_t s44[2] = {4, 4}, s84[2] = {8, 4}, s124[2] = {12, 4};
    bool ok = true;
    ct_global *x, *y;
    int c0 = g_rank == 2 ? 0 : 2;

    /* [0,1] P -> [2,3] S(1): columns of A0 + A1. */
    x = g_from(local_i32(4, 4, f_a), s44, p01, pp);
    y = to_global(x, p23, s1);
    int32_t sum01[4] = {c0, 2, 0, 1};
    ok &= g_rank < 2 || local_is(y, 4, 2, g_asum, sum01);
    ct_global_release(y);
    ct_global_release(x);

    /* [0,1] B (rank 0's data) -> [2,3] S(1). */
    x = g_from(local_i32(4, 4, f_a0), s44, p01, b);
    y = to_global(x, p23, s1);
    int32_t a0cols[3] = {c0, 1, 0};
    ok &= g_rank < 2 || local_is(y, 4, 2, g_asum, a0cols);
    ct_global_release(y);
    ct_global_release(x);

    /* [0,1] S(0) -> [2,3] S(1): halves of [A0; A1]; -> [2,3] P (OneFlow's naive-s-to-p):
     * rank 0's shard to output id 0 (rank 2), rank 1's to id 1 (rank 3), zeros elsewhere. */
    x = g_from(local_i32(4, 4, f_a), s84, p01, s0);
    y = to_global(x, p23, s1);
    int32_t cat01[5] = {0, c0, 2, 0, 1};
    ok &= g_rank < 2 || local_is(y, 8, 2, g_acat, cat01);
    ct_global_release(y);
    y = to_global(x, p23, pp);
    int32_t band01[8] = {0, g_rank == 2 ? 0 : 4, g_rank == 2 ? 4 : 8, 0, 0, 2, 0, 1};
    ok &= g_rank < 2 || local_is(y, 8, 4, g_band, band01);
    ct_global_release(y);
    ct_global_release(x);

    /* [0,1,3] P -> all S(1): column r of A0 + A1 + A3. */
    x = g_from(local_i32(4, 4, f_a), s44, p013, pp);
    y = to_global(x, pall, s1);
    int32_t sum013[5] = {g_rank, 3, 0, 1, 3};
    ok &= local_is(y, 4, 1, g_asum, sum013);
    ct_global_release(y);
    ct_global_release(x);

    /* [0,1,3] B (rank 0's data) -> all S(1): column r of A0. */
    x = g_from(local_i32(4, 4, f_a0), s44, p013, b);
    y = to_global(x, pall, s1);
    int32_t a0col[3] = {g_rank, 1, 0};
    ok &= local_is(y, 4, 1, g_asum, a0col);
    ct_global_release(y);
    ct_global_release(x);

    /* [0,1,3] S(0) (12 x 4) -> all S(1): column r of [A0; A1; A3]. */
    x = g_from(local_i32(4, 4, f_a), s124, p013, s0);
    y = to_global(x, pall, s1);
    int32_t cat013[6] = {0, g_rank, 3, 0, 1, 3};
    ok &= local_is(y, 12, 1, g_acat, cat013);
    ct_global_release(y);
    ct_global_release(x);

    /* all B -> [1,3] S(0): rank 1 rows 0-1 of A0, rank 3 rows 2-3. */
    x = g_from(local_i32(4, 4, f_a0), s44, pall, b);
    y = to_global(x, p13, s0);
    int32_t rowsa0[4] = {g_rank == 1 ? 0 : 2, 0, 1, 0};
    ok &= (g_rank != 1 && g_rank != 3) || local_is(y, 2, 4, g_acat, rowsa0);
    ct_global_release(y);
    ct_global_release(x);

    /* S(1) on all -> [1,3] P: columns of ranks 1 and 3 stay; rank 0's go to output id 0
     * (rank 1), rank 2's to id 2 % 2 = 0 (rank 1): rank 1 columns 0-2, rank 3 column 3. */
    x = g_from(local_i32(4, 1, f_a0col), s44, pall, s1);
    y = to_global(x, p13, pp);
    int32_t band13[7] = {1, g_rank == 1 ? 0 : 3, g_rank == 1 ? 3 : 4, 0, 0, 1, 0};
    ok &= (g_rank != 1 && g_rank != 3) || local_is(y, 4, 4, g_band, band13);
    ct_global_release(y);
    ct_global_release(x);

    ct_placement_release(p01);
    ct_placement_release(p23);
    ct_placement_release(p013);
    ct_placement_release(pall);
    ct_placement_release(p13);
    CT_ASSERT_ALL(ok);
}

static void test_exact_2d_1n4d(void **state) {
    (void)state;
    if (g_world != 4)
        skip();
    int64_t r[4] = {0, 1, 2, 3}, h[2] = {2, 2}, s32[2] = {32, 16};
    ct_placement *p = pl_make(r, 4, h, 2);
    ct_sbp ps0[2] = {sP(), sS(0)}, s0p[2] = {sS(0), sP()}, s0s0[2] = {sS(0), sS(0)},
           bb[2] = {sB(), sB()};
    bool ok = true;
    int32_t v;

    ct_global *x = g_from(local_i32(16, 16, f_rank), s32, p, ps0), *y;
    y = to_global(x, p, s0s0); /* (P, S0) -> (S0, S0): 2 on ranks 0-1, 4 on 2-3 */
    v = g_rank < 2 ? 2 : 4;
    ok &= local_is(y, 8, 16, g_const, &v);
    ct_global_release(y);
    ct_global_release(x);

    x = g_from(local_i32(16, 16, f_rank), s32, p, s0p);
    y = to_global(x, p, s0s0); /* (S0, P) -> (S0, S0): 1 on ranks 0-1, 5 on 2-3 */
    v = g_rank < 2 ? 1 : 5;
    ok &= local_is(y, 8, 16, g_const, &v);
    ct_global_release(y);
    ct_global_release(x);

    x = g_from(local_i32(16, 16, f_ones), s32, p, s0p);
    y = to_global(x, p, bb); /* ones: (S0, P) -> (B, B) = 2 * ones(32, 16) */
    v = 2;
    ok &= local_is(y, 32, 16, g_const, &v);
    ct_global_release(y);
    ct_global_release(x);
    ct_placement_release(p);
    CT_ASSERT_ALL(ok);
}

/* ---- reductions ---------------------------------------------------------------------------- */

/* A value of rank r at index i, spread so that float16 sums round. */
static float wide_val(int64_t r, int64_t i) {
    uint64_t h = mix((uint64_t)r * 1000u + (uint64_t)i);
    return (float)((int64_t)(h % 20001) - 10000) / 997.0f;
}

/* float16 / bfloat16 partial sums equal the serial float32 sum in parallel-id order,
 * rounded once, bitwise, on every fast and generic path. */
static void test_half_sums_are_ordered(void **state) {
    (void)state;
    int fails = 0;
    const int64_t sizes[2] = {5, 7};
    const int64_t numel = 35;
    for (int pi = 0; pi < 2; pi++) {
        if (pi == 1 && g_world < 3)
            continue;
        ct_placement *pl = pi == 0 ? pl_range(0, g_world) : pl_range(1, g_world);
        ct_placement *pfirst = pl_range(ct_placement_ranks(pl)[0], ct_placement_ranks(pl)[0] + 1);
        int64_t n = ct_placement_size(pl), pid = ct_placement_parallel_id(pl, g_rank);
        for (int di = 0; di < 2; di++) {
            ct_dtype dt = di == 0 ? CT_FLOAT16 : CT_BFLOAT16;
            uint16_t expect[35];
            for (int64_t i = 0; i < numel; i++) {
                float acc = 0;
                for (int64_t q = 0; q < n; q++) {
                    uint16_t bits;
                    float v = wide_val(ct_placement_ranks(pl)[q], i);
                    MUST(ct_convert(dt, &bits, CT_FLOAT32, &v, 1));
                    float f;
                    MUST(ct_convert(CT_FLOAT32, &f, dt, &bits, 1));
                    acc = q == 0 ? f : acc + f;
                }
                MUST(ct_convert(dt, &expect[i], CT_FLOAT32, &acc, 1));
            }
            ct_tensor *local = NULL;
            if (pid >= 0) {
                float v[35];
                for (int64_t i = 0; i < numel; i++)
                    v[i] = wide_val(g_rank, i);
                ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
                MUST(ct_tensor_empty(sizes, 2, dt, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                                     &local));
                MUST(ct_convert(dt, ct_tensor_data_ptr(local), CT_FLOAT32, v, 35));
            } else {
                MUST(ct_dist_impl_global_empty_local(dt, 2, &local));
            }
            ct_sbp pp[1] = {sP()};
            ct_global *x = NULL;
            MUST(ct_dist_impl_global_make(dt, sizes, 2, pl, pp, local, &x));
            ct_sbp outs[4][1] = {{sB()}, {sS(0)}, {sS(1)}, {sB()}};
            for (int o = 0; o < 4; o++) {
                const ct_placement *po = o == 3 ? pfirst : pl;
                ct_global *y = NULL;
                ct_status st = ct_dist_impl_boxing(x, po, outs[o], &y);
                int64_t q = ct_placement_parallel_id(po, g_rank);
                bool ok = st == CT_OK;
                if (ok && q >= 0) {
                    tbox b;
                    tbox_of(sizes, 2, po, outs[o], q, &b);
                    int64_t li[35];
                    tbox_indices(sizes, &b, li);
                    const uint16_t *got = ct_tensor_data_ptr(ct_global_local(y));
                    for (int64_t e = 0; e < tbox_numel(&b); e++)
                        ok &= got[e] == expect[li[e]];
                }
                if (!ok) {
                    fprintf(stderr, "rank %d: half sum %s placement %d out %d wrong\n", g_rank,
                            ct_dtype_name(dt), pi, o);
                    fails++;
                }
                ct_global_release(y);
            }
            ct_global_release(x);
        }
        ct_placement_release(pl);
        ct_placement_release(pfirst);
    }
    CT_ASSERT_ALL(fails == 0);
}

static ct_tensor *filled(ct_dtype dt, int64_t n, const double *v) {
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_tensor *t = NULL;
    MUST(ct_tensor_empty(&n, 1, dt, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    if (n > 0)
        MUST(ct_convert(dt, ct_tensor_data_ptr(t), CT_FLOAT64, v, (size_t)n));
    return t;
}

static void test_reduce_direct(void **state) {
    (void)state;
    MPI_Comm world;
    MUST(ct_dist_impl_world(&world));
    bool ok = true;

    /* int8 wraps like C unsigned arithmetic: 100 * world mod 256, as signed. */
    double hundred[3] = {100, -128, 1};
    ct_tensor *t = filled(CT_INT8, 3, hundred);
    ok &= ct_dist_impl_reduce_allreduce(t, world) == CT_OK;
    const int8_t *i8 = ct_tensor_data_ptr(t);
    ok &= i8[0] == (int8_t)(uint8_t)(100u * (unsigned)g_world);
    ok &= i8[1] == (int8_t)(uint8_t)(128u * (unsigned)g_world);
    ok &= i8[2] == (int8_t)g_world;
    ct_tensor_release(t);

    /* bool: logical or. */
    double bits[3] = {g_rank == g_world - 1, 0, 1};
    t = filled(CT_BOOL, 3, bits);
    ok &= ct_dist_impl_reduce_allreduce(t, world) == CT_OK;
    const uint8_t *b8 = ct_tensor_data_ptr(t);
    ok &= b8[0] == 1 && b8[1] == 0 && b8[2] == 1;
    ct_tensor_release(t);

    /* complex64 and complex32 (ordered, per lane). */
    for (int ci = 0; ci < 2; ci++) {
        ct_dtype dt = ci == 0 ? CT_COMPLEX64 : CT_COMPLEX32;
        ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        int64_t n = 2;
        MUST(ct_tensor_empty(&n, 1, dt, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
        float v[4] = {1.0f + (float)g_rank, 0.5f, -2.0f, (float)g_rank};
        if (dt == CT_COMPLEX64)
            memcpy(ct_tensor_data_ptr(t), v, sizeof v);
        else
            MUST(ct_convert(CT_FLOAT16, ct_tensor_data_ptr(t), CT_FLOAT32, v, 4));
        ok &= ct_dist_impl_reduce_allreduce(t, world) == CT_OK;
        float got[4];
        if (dt == CT_COMPLEX64)
            memcpy(got, ct_tensor_data_ptr(t), sizeof got);
        else
            MUST(ct_convert(CT_FLOAT32, got, CT_FLOAT16, ct_tensor_data_ptr(t), 4));
        float w = (float)g_world;
        ok &= got[0] == w + w * (w - 1) / 2 && got[1] == 0.5f * w && got[2] == -2.0f * w &&
              got[3] == w * (w - 1) / 2;
        ct_tensor_release(t);
    }

    /* Reduce-scatter with blocks out of rank order (packed first), int32 and bfloat16:
     * rank r receives the block that starts at (world - 1 - r) * 2, of length 2. */
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = di == 0 ? CT_INT32 : CT_BFLOAT16;
        double v[16];
        for (int64_t i = 0; i < 2 * g_world; i++)
            v[i] = (double)(i + g_rank);
        t = filled(dt, 2 * g_world, v);
        int64_t offsets[4], counts[4];
        for (int r = 0; r < g_world; r++) {
            offsets[r] = (g_world - 1 - r) * 2;
            counts[r] = 2;
        }
        ct_tensor *part = filled(dt, 2, v);
        ok &= ct_dist_impl_reduce_scatter(t, offsets, counts, part, world) == CT_OK;
        double got[2];
        MUST(ct_convert(CT_FLOAT64, got, dt, ct_tensor_data_ptr(part), 2));
        double tri = (double)g_world * (g_world - 1) / 2;
        for (int e = 0; e < 2; e++)
            ok &= got[e] == (double)(offsets[g_rank] + e) * g_world + tri;
        ct_tensor_release(t);
        ct_tensor_release(part);
    }

    /* Dtypes without addition. */
    ok &= ct_dist_impl_reduce_check_dtype(CT_UINT16) == CT_ERR_NOT_IMPLEMENTED &&
          strcmp(ct_last_error(), "partial_sum is not supported for dtype uint16") == 0;
    ok &= ct_dist_impl_reduce_check_dtype(CT_FLOAT8_E4M3FN) == CT_ERR_NOT_IMPLEMENTED;
    ok &= ct_dist_impl_reduce_check_dtype(CT_COMPLEX32) == CT_OK &&
          ct_dist_impl_reduce_check_dtype(CT_BOOL) == CT_OK;
    CT_ASSERT_ALL(ok);
}

/* Partial sums of a dtype without addition fail on every rank alike; moving it is fine. */
static void test_unsupported_partial(void **state) {
    (void)state;
    ct_placement *pl = pl_range(0, g_world);
    int64_t sizes[2] = {3, 2};
    ct_sbp pp[1] = {sP()}, b[1] = {sB()}, s0[1] = {sS(0)};
    ct_tensor *local = NULL;
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    MUST(ct_tensor_zeros(sizes, 2, CT_UINT16, &cpu, CT_LAYOUT_STRIDED, &local));
    ct_global *x = NULL, *y = NULL;
    MUST(ct_dist_impl_global_make(CT_UINT16, sizes, 2, pl, pp, local, &x));
    ct_status st = ct_dist_impl_boxing(x, pl, b, &y);
    CT_ASSERT_ALL(st == CT_ERR_NOT_IMPLEMENTED && y == NULL &&
                  strcmp(ct_last_error(), "partial_sum is not supported for dtype uint16") == 0);
    ct_global_release(x);
    MUST(ct_tensor_zeros(sizes, 2, CT_UINT16, &cpu, CT_LAYOUT_STRIDED, &local));
    MUST(ct_dist_impl_global_make(CT_UINT16, sizes, 2, pl, b, local, &x));
    st = ct_dist_impl_boxing(x, pl, s0, &y);
    CT_ASSERT_ALL(st == CT_OK);
    ct_global_release(y);
    ct_global_release(x);
    ct_placement_release(pl);
}

int main(void) {
    ct_test_start();
    g_rank = ct_test_rank();
    g_world = ct_test_world();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_direct),
        cmocka_unit_test(test_unsupported_partial),
        cmocka_unit_test(test_half_sums_are_ordered),
        cmocka_unit_test(test_exact_1n2d),
        cmocka_unit_test(test_exact_eager_boxing_1n4d),
        cmocka_unit_test(test_exact_2d_1n4d),
        cmocka_unit_test(test_1d_same_placement),
        cmocka_unit_test(test_zero_size_huge_dim),
        cmocka_unit_test(test_2d_same_placement),
        cmocka_unit_test(test_placement_changes),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    if (g_rank == 0)
        printf("test_dist_boxing: %ld conversions checked on %d rank(s)\n", g_cases, g_world);
    return ct_test_finish(failures);
}
