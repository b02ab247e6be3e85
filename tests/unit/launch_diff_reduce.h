/* Differential checks of reductions on a device against the cpu (launch_diff.h's device,
 * counters and comparisons): every reduction op x dtype x layout (contiguous, transposed,
 * channels_last, sliced, expanded, 0-dim, one element, empty, long rows) x dims (all, one,
 * negative, tuples) x keepdim, plus dtype=, out= (resized, of another dtype, strided) and
 * NaN / infinity. The values are small multiples of 1/4 (powers of two for products), so
 * every float sum and product is exact in the accumulators and the device's tree order
 * gives the cpu's bits: results are compared byte for byte. lr_random compares large
 * random sums with a tolerance instead. Shared by tests/unit/test_launch_reduce.c (a
 * host-executed launch backend) and tests/cuda/test_cuda_kernels.c (the GPU). */
#ifndef CT_TESTS_LAUNCH_DIFF_REDUCE_H
#define CT_TESTS_LAUNCH_DIFF_REDUCE_H

#include "launch_diff.h"

static const ct_reduce_op lr_ops[] = {
    CT_REDUCE_SUM, CT_REDUCE_MEAN, CT_REDUCE_PROD, CT_REDUCE_NANSUM, CT_REDUCE_AMAX,
    CT_REDUCE_AMIN, CT_REDUCE_ALL, CT_REDUCE_ANY, CT_REDUCE_COUNT_NONZERO, CT_REDUCE_MAX,
    CT_REDUCE_MIN};
#define LR_NOPS (sizeof lr_ops / sizeof lr_ops[0])

static const ct_dtype lr_dtypes[] = {CT_BOOL,    CT_UINT8,    CT_INT8,    CT_INT16,
                                     CT_INT32,   CT_INT64,    CT_FLOAT16, CT_BFLOAT16,
                                     CT_FLOAT32, CT_FLOAT64,  CT_COMPLEX64, CT_UINT16};
#define LR_NDTYPES (sizeof lr_dtypes / sizeof lr_dtypes[0])

/* A cpu tensor of `shape` in dt: multiples of 1/4 in [-2, 2] (integers in [-5, 5]); `prod`:
 * +-1, +-2, +-1/2 only; `specials`: some NaN and infinities. */
static ct_tensor *lr_values(ct_dtype dt, const int64_t *shape, int nd, unsigned seed, bool prod,
                            bool specials) {
    static const double pv[] = {1.0, -1.0, 2.0, 0.5, -2.0, -0.5, 1.0, 2.0, 0.5};
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i * 37 + seed * 11) % 17;
        if (ld_is_int(dt))
            v[i] = (double)(k % 11 - 5);
        else if (prod)
            v[i] = pv[k % 9];
        else
            v[i] = (double)(k - 8) / 4.0;
        if (specials && !ld_is_int(dt) && (i * 7 + seed) % 13 == 5)
            v[i] = (i + seed) % 3 == 0 ? NAN : (i + seed) % 3 == 1 ? INFINITY : -INFINITY;
    }
    ct_tensor *src = NULL, *out = NULL;
    LD_CHECK(ct_tensor_from_data(shape, nd, CT_FLOAT64, v, &ld_cpu, &src));
    free(v);
    LD_CHECK(ct_tensor_to_dtype(src, dt, &out));
    ct_tensor_release(src);
    return out;
}

/* Layouts: a base tensor and the view of it that is reduced (made the same way on both
 * devices, so the device sees the strided view itself). */
typedef enum {
    LR_CONTIG, LR_TRANSPOSED, LR_CHANNELS_LAST, LR_SLICED, LR_EXPANDED, LR_ZERO_DIM, LR_ONE,
    LR_EMPTY, LR_LONG, LR_NLAYOUTS
} lr_layout;
static const char *const lr_layout_names[LR_NLAYOUTS] = {
    "contiguous", "transposed", "channels_last", "sliced", "expanded", "0-dim", "one-element",
    "empty", "long-rows"};

static ct_tensor *lr_base(lr_layout lay, ct_dtype dt, unsigned seed, bool prod, bool specials) {
    static const int64_t s345[] = {3, 4, 5}, s543[] = {5, 4, 3}, s2345[] = {2, 3, 4, 5},
                         s385[] = {3, 8, 5}, s145[] = {1, 4, 5}, s1[] = {1}, s305[] = {3, 0, 5},
                         slong[] = {3, 700};
    switch (lay) {
    case LR_CONTIG: return lr_values(dt, s345, 3, seed, prod, specials);
    case LR_TRANSPOSED: return lr_values(dt, s543, 3, seed, prod, specials);
    case LR_CHANNELS_LAST: return lr_values(dt, s2345, 4, seed, prod, specials);
    case LR_SLICED: return lr_values(dt, s385, 3, seed, prod, specials);
    case LR_EXPANDED: return lr_values(dt, s145, 3, seed, prod, specials);
    case LR_ZERO_DIM: return lr_values(dt, s1, 0, seed, prod, specials);
    case LR_ONE: return lr_values(dt, s1, 1, seed, prod, specials);
    case LR_EMPTY: return lr_values(dt, s305, 3, seed, prod, specials);
    default: return lr_values(dt, slong, 2, seed, prod, specials);
    }
}

static ct_tensor *lr_view(lr_layout lay, const ct_tensor *base) {
    ct_tensor *v = NULL;
    static const int64_t rev[] = {2, 1, 0}, s345[] = {3, 4, 5};
    switch (lay) {
    case LR_TRANSPOSED: LD_CHECK(ct_tensor_permute(base, rev, 3, &v)); break;
    case LR_CHANNELS_LAST: LD_CHECK(ct_tensor_contiguous(base, CT_MEMFMT_CHANNELS_LAST, &v)); break;
    case LR_SLICED: LD_CHECK(ct_tensor_slice(base, 1, 0, CT_SLICE_END, 2, &v)); break;
    case LR_EXPANDED: LD_CHECK(ct_tensor_expand(base, s345, 3, &v)); break;
    default: v = ct_tensor_retain((ct_tensor *)base); break;
    }
    return v;
}

static const char *lr_op_name(ct_reduce_op op) { return ct_reduce_op_name(op); }

/* op(x, dims) on the cpu and on the device (xd), as a new tensor and (out_dtype not
 * UNDEFINED) into an out= tensor of that dtype, `strided_out`: a transposed one. */
static void lr_case(const char *what, ct_reduce_op op, const ct_tensor *x, const ct_tensor *xd,
                    const int64_t *dims, int64_t ndims, bool keepdim, ct_dtype dtype,
                    ct_dtype out_dtype, bool strided_out) {
    char name[320], msg[1024], dimtxt[64] = "None";
    if (dims != NULL) {
        int w = snprintf(dimtxt, sizeof dimtxt, "(");
        for (int64_t k = 0; k < ndims; k++)
            w += snprintf(dimtxt + w, sizeof dimtxt - (size_t)w, "%lld,", (long long)dims[k]);
        snprintf(dimtxt + w, sizeof dimtxt - (size_t)w, ")");
    }
    snprintf(name, sizeof name, "%s %s(%s, dim=%s, keepdim=%d, dtype=%s, out=%s%s)", what,
             lr_op_name(op), ct_dtype_name(ct_tensor_dtype(x)), dimtxt, (int)keepdim,
             dtype != CT_DTYPE_UNDEFINED ? ct_dtype_name(dtype) : "None",
             out_dtype != CT_DTYPE_UNDEFINED ? ct_dtype_name(out_dtype) : "None",
             strided_out ? " strided" : "");
    ct_tensor *r1 = NULL, *r2 = NULL;
    ct_status s1, s2;
    if (out_dtype == CT_DTYPE_UNDEFINED) {
        s1 = ct_reduce(op, x, dims, ndims, keepdim, dtype, &r1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_reduce(op, xd, dims, ndims, keepdim, dtype, &r2);
    } else {
        int64_t zero = 0;
        if (strided_out) { /* the right shape already, transposed: written through strides */
            ct_tensor *probe = NULL, *t1 = NULL, *t2 = NULL, *e1 = NULL;
            if (ct_reduce(op, x, dims, ndims, keepdim, dtype, &probe) != CT_OK ||
                ct_tensor_dim(probe) != 2) {
                ct_tensor_release(probe);
                return;
            }
            int64_t ts[2] = {ct_tensor_sizes(probe)[1], ct_tensor_sizes(probe)[0]};
            static const int64_t sw[] = {1, 0};
            LD_CHECK(ct_tensor_zeros(ts, 2, out_dtype, &ld_cpu, CT_LAYOUT_STRIDED, &e1));
            LD_CHECK(ct_tensor_permute(e1, sw, 2, &t1));
            ct_tensor *e2 = ld_to_dev(e1);
            LD_CHECK(ct_tensor_permute(e2, sw, 2, &t2));
            ct_tensor_release(e1);
            ct_tensor_release(e2);
            ct_tensor_release(probe);
            r1 = t1;
            r2 = t2;
        } else {
            LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_cpu, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &r1));
            LD_CHECK(ct_tensor_empty(&zero, 1, out_dtype, &ld_device, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &r2));
        }
        s1 = ct_reduce_out(op, x, dims, ndims, keepdim, dtype, r1);
        snprintf(msg, sizeof msg, "%s", s1 != CT_OK ? ct_last_error() : "");
        s2 = ct_reduce_out(op, xd, dims, ndims, keepdim, dtype, r2);
    }
    if (ld_same_outcome(name, s1, msg, s2))
        ld_compare(name, r1, r2);
    ct_tensor_release(r1);
    ct_tensor_release(r2);
}

/* Every op, layout, dims and keepdim for one dtype; dtype= and out= on the contiguous one. */
static void lr_dtype_all(ct_dtype dt, unsigned seed) {
    static const int64_t d0[] = {0}, dm1[] = {-1}, d1[] = {1}, d02[] = {0, 2}, d1m1[] = {1, -1},
                         d012[] = {0, 1, 2}, d13[] = {1, 3}, d023[] = {0, 2, 3};
    struct {
        const int64_t *dims;
        int64_t n;
        int min_ndim;
    } dl[] = {{NULL, 0, 0}, {d0, 1, 0}, {dm1, 1, 0}, {d1, 1, 2}, {d02, 2, 3},
              {d1m1, 2, 3}, {d012, 3, 3}, {d13, 2, 4}, {d023, 3, 4}};
    for (int lay = 0; lay < LR_NLAYOUTS; lay++) {
        for (int pr = 0; pr < 2; pr++) {
            ct_tensor *b = lr_base((lr_layout)lay, dt, seed + (unsigned)lay, pr == 1, false);
            ct_tensor *bd = ld_to_dev(b);
            ct_tensor *x = lr_view((lr_layout)lay, b), *xd = lr_view((lr_layout)lay, bd);
            int nd = (int)ct_tensor_dim(x);
            char what[64];
            snprintf(what, sizeof what, "reduce %s", lr_layout_names[lay]);
            for (size_t o = 0; o < LR_NOPS; o++) {
                ct_reduce_op op = lr_ops[o];
                if ((op == CT_REDUCE_PROD) != (pr == 1))
                    continue;
                /* complex sums and products are refused on launch devices (test_launch_reduce) */
                if (dt == CT_COMPLEX64 &&
                    (op == CT_REDUCE_SUM || op == CT_REDUCE_MEAN || op == CT_REDUCE_PROD))
                    continue;
                for (size_t k = 0; k < sizeof dl / sizeof dl[0]; k++) {
                    if (nd < dl[k].min_ndim || (nd == 0 && dl[k].dims != NULL &&
                                                dl[k].dims[0] != 0 && dl[k].dims[0] != -1))
                        continue;
                    if ((op == CT_REDUCE_MAX || op == CT_REDUCE_MIN) && dl[k].dims != NULL)
                        continue;
                    for (int kd = 0; kd < 2; kd++)
                        lr_case(what, op, x, xd, dl[k].dims, dl[k].n, kd == 1,
                                CT_DTYPE_UNDEFINED, CT_DTYPE_UNDEFINED, false);
                }
                if (lay != LR_CONTIG && lay != LR_TRANSPOSED)
                    continue;
                /* dtype= and out= */
                bool takes_dtype = op == CT_REDUCE_SUM || op == CT_REDUCE_MEAN ||
                                   op == CT_REDUCE_PROD || op == CT_REDUCE_NANSUM;
                static const ct_dtype dts[] = {CT_FLOAT64, CT_FLOAT16, CT_INT32, CT_BFLOAT16,
                                               CT_BOOL};
                for (size_t t = 0; takes_dtype && t < sizeof dts / sizeof dts[0]; t++) {
                    lr_case(what, op, x, xd, d1, 1, false, dts[t], CT_DTYPE_UNDEFINED, false);
                    lr_case(what, op, x, xd, NULL, 0, false, dts[t], CT_DTYPE_UNDEFINED, false);
                }
                static const ct_dtype outs[] = {CT_FLOAT32, CT_INT64, CT_BOOL, CT_FLOAT64};
                for (size_t t = 0; t < sizeof outs / sizeof outs[0]; t++) {
                    lr_case(what, op, x, xd, dm1, 1, false, CT_DTYPE_UNDEFINED, outs[t], false);
                    lr_case(what, op, x, xd, d1, 1, false, CT_DTYPE_UNDEFINED, outs[t], true);
                }
                if (takes_dtype)
                    lr_case(what, op, x, xd, d0, 1, true, CT_FLOAT64, CT_FLOAT64, false);
            }
            ct_tensor_release(x);
            ct_tensor_release(xd);
            ct_tensor_release(b);
            ct_tensor_release(bd);
        }
    }
}

/* NaN and infinities through every op (their sums do not depend on the order). */
static void lr_specials(ct_dtype dt, unsigned seed) {
    static const int64_t s[] = {4, 13}, d0[] = {0}, d1[] = {1};
    ct_tensor *x = lr_values(dt, s, 2, seed, false, true);
    ct_tensor *xd = ld_to_dev(x);
    for (size_t o = 0; o < LR_NOPS; o++) {
        lr_case("specials", lr_ops[o], x, xd, NULL, 0, false, CT_DTYPE_UNDEFINED,
                CT_DTYPE_UNDEFINED, false);
        if (lr_ops[o] == CT_REDUCE_MAX || lr_ops[o] == CT_REDUCE_MIN)
            continue;
        lr_case("specials", lr_ops[o], x, xd, d0, 1, false, CT_DTYPE_UNDEFINED,
                CT_DTYPE_UNDEFINED, false);
        lr_case("specials", lr_ops[o], x, xd, d1, 1, true, CT_DTYPE_UNDEFINED,
                CT_DTYPE_UNDEFINED, false);
    }
    ct_tensor_release(x);
    ct_tensor_release(xd);
}

static void lr_all(void) {
    for (size_t t = 0; t < LR_NDTYPES; t++) {
        lr_dtype_all(lr_dtypes[t], (unsigned)t);
        if (!ld_is_int(lr_dtypes[t]) && lr_dtypes[t] != CT_COMPLEX64 &&
            lr_dtypes[t] != CT_UINT16)
            lr_specials(lr_dtypes[t], (unsigned)t);
    }
}

/* Large random float sums and means (not exact in any order): within a relative `rtol` of
 * the cpu's, or both NaN. shape: rows x cols, reduced over `dim` (-1: everything). */
static void lr_random(ct_dtype dt, int64_t rows, int64_t cols, int dim, double rtol) {
    int64_t shape[2] = {rows, cols}, n = rows * cols;
    float *v = malloc((size_t)n * sizeof *v);
    unsigned s = 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        v[i] = (float)((double)(s >> 8) / 16777216.0 * 2.0 - 0.5);
    }
    ct_tensor *f = NULL, *x = NULL;
    LD_CHECK(ct_tensor_from_data(shape, 2, CT_FLOAT32, v, &ld_cpu, &f));
    free(v);
    LD_CHECK(ct_tensor_to_dtype(f, dt, &x));
    ct_tensor_release(f);
    ct_tensor *xd = ld_to_dev(x);
    int64_t d = dim;
    static const ct_reduce_op ops[] = {CT_REDUCE_SUM, CT_REDUCE_MEAN, CT_REDUCE_NANSUM,
                                       CT_REDUCE_AMAX};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        ct_tensor *r1 = NULL, *r2 = NULL, *c1 = NULL, *c2 = NULL, *h2 = NULL;
        LD_CHECK(ct_reduce(ops[o], x, dim < 0 ? NULL : &d, dim < 0 ? 0 : 1, false,
                           CT_DTYPE_UNDEFINED, &r1));
        LD_CHECK(ct_reduce(ops[o], xd, dim < 0 ? NULL : &d, dim < 0 ? 0 : 1, false,
                           CT_DTYPE_UNDEFINED, &r2));
        LD_CHECK(ct_tensor_to_device(r2, ld_cpu, &h2));
        LD_CHECK(ct_tensor_to_dtype(r1, CT_FLOAT64, &c1));
        LD_CHECK(ct_tensor_to_dtype(h2, CT_FLOAT64, &c2));
        ct_tensor *k1 = NULL, *k2 = NULL;
        LD_CHECK(ct_tensor_contiguous(c1, CT_MEMFMT_CONTIGUOUS, &k1));
        LD_CHECK(ct_tensor_contiguous(c2, CT_MEMFMT_CONTIGUOUS, &k2));
        const double *a = ct_tensor_data_ptr(k1), *b = ct_tensor_data_ptr(k2);
        ld_checks++;
        for (int64_t i = 0; i < ct_tensor_numel(k1); i++) {
            double tol = rtol * (fabs(a[i]) > 1.0 ? fabs(a[i]) : 1.0);
            if (!(fabs(a[i] - b[i]) <= tol)) {
                printf("DIFF random %s(%s[%lld, %lld], dim=%d): element %lld: cpu %.17g, "
                       "device %.17g\n",
                       lr_op_name(ops[o]), ct_dtype_name(dt), (long long)rows, (long long)cols,
                       dim, (long long)i, a[i], b[i]);
                ld_failures++;
                break;
            }
        }
        ct_tensor_release(k1);
        ct_tensor_release(k2);
        ct_tensor_release(c1);
        ct_tensor_release(c2);
        ct_tensor_release(h2);
        ct_tensor_release(r1);
        ct_tensor_release(r2);
    }
    ct_tensor_release(x);
    ct_tensor_release(xd);
}

/* Long rows and many rows (the GPU's split rows, two-pass and outer paths), with exact
 * values: n elements as (1, n), (n / 64, 64) and (64, n / 64), every dim and all. */
static void lr_big(int64_t n) {
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16, CT_INT32, CT_FLOAT64,
                                   CT_BOOL};
    static const ct_reduce_op ops[] = {CT_REDUCE_SUM, CT_REDUCE_MEAN, CT_REDUCE_AMAX,
                                       CT_REDUCE_AMIN, CT_REDUCE_ALL, CT_REDUCE_ANY,
                                       CT_REDUCE_COUNT_NONZERO};
    static const int64_t d0[] = {0}, d1[] = {1};
    int64_t shapes[3][2] = {{1, n}, {n / 64, 64}, {64, n / 64}};
    for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
        for (int sh = 0; sh < 3; sh++) {
            ct_tensor *x = lr_values(dts[t], shapes[sh], 2, (unsigned)(t + 3 * sh), false, false);
            ct_tensor *xd = ld_to_dev(x);
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                if (ops[o] == CT_REDUCE_MEAN && (dts[t] == CT_INT32 || dts[t] == CT_BOOL))
                    continue;
                lr_case("big", ops[o], x, xd, NULL, 0, false, CT_DTYPE_UNDEFINED,
                        CT_DTYPE_UNDEFINED, false);
                lr_case("big", ops[o], x, xd, d0, 1, false, CT_DTYPE_UNDEFINED,
                        CT_DTYPE_UNDEFINED, false);
                lr_case("big", ops[o], x, xd, d1, 1, false, CT_DTYPE_UNDEFINED,
                        CT_DTYPE_UNDEFINED, false);
            }
            ct_tensor_release(x);
            ct_tensor_release(xd);
        }
    }
}

#endif /* CT_TESTS_LAUNCH_DIFF_REDUCE_H */
