/* The strided walk (dtype/convert/walk_impl.h) that element-wise ops and copy_ share: rows and the
 * cache-blocked transposing tiles against a naive odometer, over many geometries (odd
 * sizes, sizes around the tile edges, 2-D to 4-D permutations, zero strides of broadcast
 * dims, negative strides), element sizes 1..16, two and three operands, the in-place
 * "move" tiles, one and two threads; then the same through the public functions: copy_
 * between dtypes over permuted, expanded and sliced sources, and add over mixed layouts,
 * each against an element-by-element reference. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "dtype/convert/walk_impl.h"
#include "tensor_test_util.h"

/* ---- the walk on raw geometries -------------------------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int64_t pick(const int64_t *v, size_t n) { return v[next_u64() % n]; }

/* The test loop: output byte j of an element = a mix of the inputs' bytes and j, so any
 * element placed wrongly, twice or never shows. */
typedef struct mix_ctx {
    int nops; /* 2..CT_CONVERT_WALK_MAX_OPERANDS: the ternary ops walk four */
    int64_t isz[CT_CONVERT_WALK_MAX_OPERANDS];
} mix_ctx;

/* in[k - 1] is operand k's element (k >= 1) */
static void mix_one(const mix_ctx *c, char *o, const char *const *in) {
    static const unsigned char mult[] = {7, 13, 29, 37};
    for (int64_t j = 0; j < c->isz[0]; j++) {
        unsigned char v = (unsigned char)(3 * j + 1);
        for (int k = 1; k < c->nops; k++)
            v ^= (unsigned char)(in[k - 1][j % c->isz[k]] * mult[k - 1]);
        o[j] = (char)v;
    }
}

static int mix_loop(void *ctx, char *const *data, const int64_t *s, int64_t n) {
    const mix_ctx *c = ctx;
    for (int64_t i = 0; i < n; i++) {
        const char *in[CT_CONVERT_WALK_MAX_OPERANDS];
        for (int k = 1; k < c->nops; k++)
            in[k - 1] = data[k] + i * s[k];
        mix_one(c, data[0] + i * s[0], in);
    }
    return 0;
}

/* A move: element bytes unchanged. */
static int move_loop(void *ctx, char *const *data, const int64_t *s, int64_t n) {
    int64_t isz = *(const int64_t *)ctx;
    for (int64_t i = 0; i < n; i++)
        memcpy(data[0] + i * s[0], data[1] + i * s[1], (size_t)isz);
    return 0;
}

typedef struct operand {
    char *base;         /* the allocation */
    int64_t bytes;      /* its size */
    int64_t strides[4]; /* byte strides per walk dim */
    int64_t origin;     /* byte offset of element 0 in base */
} operand;

/* Lay operand out densely in a random dim order (or, for an input, with broadcast dims and
 * negative strides), over ndim dims of `shape`. out: dense with dim 0 fastest, except that
 * `out_order` may permute its outer dims. */
static void layout(operand *op, int ndim, const int64_t *shape, int64_t isz, bool input,
                   bool allow_negative) {
    int order[4] = {0, 1, 2, 3};
    if (input) { /* a random permutation */
        for (int i = ndim - 1; i > 0; i--) {
            int j = (int)(next_u64() % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    int64_t stride = isz, span = isz;
    for (int i = 0; i < ndim; i++) {
        int d = order[i];
        bool broadcast = input && shape[d] > 1 && next_u64() % 5 == 0;
        op->strides[d] = broadcast ? 0 : stride;
        if (!broadcast) {
            stride *= shape[d];
            span += (shape[d] - 1) * op->strides[d];
        }
    }
    op->origin = 0;
    if (allow_negative) {
        for (int d = 0; d < ndim; d++) {
            if (op->strides[d] != 0 && next_u64() % 3 == 0) {
                op->origin += (shape[d] - 1) * op->strides[d];
                op->strides[d] = -op->strides[d];
            }
        }
    }
    op->bytes = span;
    op->base = malloc((size_t)span);
    assert_non_null(op->base);
    for (int64_t i = 0; i < span; i++)
        op->base[i] = (char)next_u64();
}

/* Every element in C order of the walk's dims, the naive way. */
static void check_walk(int nops, int ndim, const int64_t *shape, const int64_t *isz, bool move,
                       bool neg_out, int threads) {
    operand ops[CT_CONVERT_WALK_MAX_OPERANDS];
    for (int k = 0; k < nops; k++)
        layout(&ops[k], ndim, shape, isz[k], k > 0, k > 0 || neg_out);
    ct_convert_walk w = {.nops = nops, .ndim = ndim, .shape = shape, .move = move};
    for (int k = 0; k < nops; k++) {
        w.strides[k] = ops[k].strides;
        w.data[k] = ops[k].base + ops[k].origin;
        w.itemsize[k] = isz[k];
    }
    char *want = malloc((size_t)ops[0].bytes);
    assert_non_null(want);
    memcpy(want, ops[0].base, (size_t)ops[0].bytes);
    mix_ctx mc = {.nops = nops};
    for (int k = 0; k < nops; k++)
        mc.isz[k] = isz[k];
    int64_t idx[4] = {0}, numel = 1;
    for (int d = 0; d < ndim; d++)
        numel *= shape[d];
    for (int64_t e = 0; e < numel; e++) {
        int64_t rem = e, off[CT_CONVERT_WALK_MAX_OPERANDS];
        for (int k = 0; k < nops; k++)
            off[k] = ops[k].origin;
        for (int d = 0; d < ndim; d++) {
            idx[d] = rem % shape[d];
            rem /= shape[d];
            for (int k = 0; k < nops; k++)
                off[k] += idx[d] * ops[k].strides[d];
        }
        if (move)
            memcpy(want + off[0], ops[1].base + off[1], (size_t)isz[0]);
        else {
            const char *in[CT_CONVERT_WALK_MAX_OPERANDS];
            for (int k = 1; k < nops; k++)
                in[k - 1] = ops[k].base + off[k];
            mix_one(&mc, want + off[0], in);
        }
    }
    OK(ct_set_num_threads(threads));
    int rc = move ? ct_convert_walk_run(&w, move_loop, &w.itemsize[0], 64)
                  : ct_convert_walk_run(&w, mix_loop, &mc, 64);
    OK(ct_set_num_threads(1));
    assert_int_equal(rc, 0);
    if (memcmp(want, ops[0].base, (size_t)ops[0].bytes) != 0) {
        int64_t at = 0;
        while (want[at] == ops[0].base[at])
            at++;
        fail_msg("walk differs at byte %lld: nops %d ndim %d shape %lld %lld %lld %lld isz %lld "
                 "%lld move %d tile dim %d threads %d",
                 (long long)at, nops, ndim, (long long)shape[0],
                 (long long)(ndim > 1 ? shape[1] : 1), (long long)(ndim > 2 ? shape[2] : 1),
                 (long long)(ndim > 3 ? shape[3] : 1), (long long)isz[0], (long long)isz[1],
                 (int)move, ct_convert_walk_tile_dim(&w), threads);
    }
    free(want);
    for (int k = 0; k < nops; k++)
        free(ops[k].base);
}

static void test_walk_geometries(void **state) {
    (void)state;
    static const int64_t sizes[] = {1, 2, 3, 5, 7, 8, 9, 31, 33, 63, 64, 65, 127, 129, 200};
    static const int64_t items[] = {1, 2, 4, 8, 16};
    int tiled = 0;
    for (int trial = 0; trial < 800; trial++) {
        int ndim = 1 + (int)(next_u64() % 4), nops = 2 + (int)(next_u64() % 3);
        int64_t shape[4], numel = 1;
        for (int d = 0; d < ndim; d++) {
            shape[d] = pick(sizes, sizeof sizes / sizeof sizes[0]);
            if (numel * shape[d] > 150000)
                shape[d] = 1 + (int64_t)(next_u64() % 4);
            numel *= shape[d];
        }
        int64_t isz[4] = {pick(items, 5), pick(items, 5), pick(items, 5), pick(items, 5)};
        bool move = nops == 2 && next_u64() % 2 == 0;
        if (move)
            isz[1] = isz[0];
        bool neg_out = next_u64() % 8 == 0;
        int threads = 1 + (int)(next_u64() % 2);
        check_walk(nops, ndim, shape, isz, move, neg_out, threads);
        tiled += ndim >= 2;
    }
    assert_true(tiled > 0);
}

/* The tile decision: a transposed input is tiled, a contiguous pair is not. */
static void test_walk_tile_choice(void **state) {
    (void)state;
    int64_t shape[2] = {100, 90};
    int64_t out_s[2] = {4, 400}, in_t[2] = {360, 4}, in_c[2] = {4, 400};
    ct_convert_walk w = {
        .nops = 2, .ndim = 2, .shape = shape, .strides = {out_s, in_t}, .itemsize = {4, 4}};
    assert_int_equal(ct_convert_walk_tile_dim(&w), 1);
    w.strides[1] = in_c;
    assert_int_equal(ct_convert_walk_tile_dim(&w), -1);
    /* every tiled geometry of every element size, square and odd */
    static const int64_t n[] = {8, 9, 63, 64, 65, 128, 130, 257};
    static const int64_t items[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        for (size_t j = 0; j < sizeof items / sizeof items[0]; j++)
            for (int move = 0; move <= 1; move++)
                for (int threads = 1; threads <= 2; threads++) {
                    int64_t sh[2] = {n[i], n[(i + 3) % 8]};
                    int64_t isz[3] = {items[j], items[j], 4};
                    check_walk(2, 2, sh, isz, move != 0, false, threads);
                }
}

/* Loop errors stop the tiled walk too. */
static int fail_loop(void *ctx, char *const *data, const int64_t *s, int64_t n) {
    (void)data;
    (void)s;
    (void)n;
    int *calls = ctx;
    return ++*calls >= 3 ? 5 : 0;
}

static void test_walk_stops(void **state) {
    (void)state;
    int64_t shape[2] = {64, 64}, out_s[2] = {4, 256}, in_t[2] = {256, 4};
    char *o = calloc(64 * 64, 4), *in = calloc(64 * 64, 4);
    ct_convert_walk w = {.nops = 2,
                         .ndim = 2,
                         .shape = shape,
                         .strides = {out_s, in_t},
                         .data = {o, in},
                         .itemsize = {4, 4}};
    int calls = 0;
    assert_int_equal(ct_convert_walk_run(&w, fail_loop, &calls, 1 << 20), 5);
    assert_int_equal(calls, 3);
    free(o);
    free(in);
}

/* ---- copy_ through the public functions --------------------------------------------------- */

/* A cpu tensor of `dt` with sizes, its elements converted from distinct float64 values. */
static ct_tensor *filled(ct_dtype dt, const int64_t *sizes, int64_t ndim) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(sizes, ndim, dt, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    unsigned char *p = ct_tensor_data_ptr(t);
    size_t isz = ct_dtype_itemsize(dt);
    for (int64_t i = 0; i < ct_tensor_numel(t); i++) {
        double v =
            (double)((i * 37) % 251) - 100.0 + (dt == CT_BOOL ? 0.0 : 0.25 * (double)(i % 3));
        OK(ct_convert(dt, p + i * (int64_t)isz, CT_FLOAT64, &v, 1));
    }
    return t;
}

/* Byte offset of C-order element e of t. */
static int64_t elem_off(const ct_tensor *t, int64_t e) {
    int64_t off = 0;
    for (int64_t d = ct_tensor_dim(t) - 1; d >= 0; d--) {
        int64_t size = ct_tensor_sizes(t)[d];
        off += (e % size) * ct_tensor_strides(t)[d];
        e /= size;
    }
    return off * (int64_t)ct_tensor_element_size(t);
}

/* dst (any layout) holds src converted, element for element. */
static void expect_converted(const ct_tensor *dst, const ct_tensor *src, const char *what) {
    const unsigned char *pd = ct_tensor_data_ptr(dst), *ps = ct_tensor_data_ptr(src);
    size_t dsz = ct_tensor_element_size(dst);
    for (int64_t e = 0; e < ct_tensor_numel(dst); e++) {
        unsigned char want[16];
        OK(ct_convert(ct_tensor_dtype(dst), want, ct_tensor_dtype(src), ps + elem_off(src, e), 1));
        if (memcmp(want, pd + elem_off(dst, e), dsz) != 0)
            fail_msg("%s: %s <- %s, element %lld differs", what,
                     ct_dtype_name(ct_tensor_dtype(dst)), ct_dtype_name(ct_tensor_dtype(src)),
                     (long long)e);
    }
}

static void test_copy_permutations(void **state) {
    (void)state;
    static const int64_t shapes[][4] = {{65, 33, 1, 1},  {64, 64, 1, 1}, {129, 7, 1, 1},
                                        {3, 65, 66, 1},  {2, 17, 9, 70}, {5, 64, 3, 33},
                                        {1, 130, 1, 129}};
    static const int nd[] = {2, 2, 2, 3, 4, 4, 4};
    static const int64_t perms[][4] = {{1, 0, 2, 3}, {2, 0, 1, 3}, {0, 2, 3, 1}, {3, 2, 1, 0}};
    static const ct_dtype pairs[][2] = {
        {CT_FLOAT32, CT_FLOAT32}, {CT_UINT8, CT_UINT8},           {CT_INT16, CT_INT16},
        {CT_FLOAT64, CT_FLOAT64}, {CT_COMPLEX128, CT_COMPLEX128}, {CT_BOOL, CT_BOOL},
        {CT_FLOAT32, CT_INT32},   {CT_BFLOAT16, CT_FLOAT32},      {CT_FLOAT64, CT_FLOAT16},
        {CT_INT8, CT_FLOAT64},    {CT_COMPLEX64, CT_INT64},       {CT_FLOAT8_E4M3FN, CT_FLOAT32},
        {CT_BOOL, CT_FLOAT32},    {CT_UINT16, CT_COMPLEX128}};
    for (int threads = 1; threads <= 2; threads++) {
        OK(ct_set_num_threads(threads));
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            for (size_t q = 0; q < sizeof pairs / sizeof pairs[0]; q++) {
                ct_tensor *src = filled(pairs[q][1], shapes[s], nd[s]);
                for (size_t pi = 0; pi < sizeof perms / sizeof perms[0]; pi++) {
                    bool valid = true;
                    for (int d = 0; d < nd[s]; d++)
                        valid &= perms[pi][d] < nd[s];
                    if (!valid)
                        continue;
                    ct_tensor *p = NULL, *dst = NULL;
                    OK(ct_tensor_permute(src, perms[pi], nd[s], &p));
                    OK(ct_tensor_empty(ct_tensor_sizes(p), nd[s], pairs[q][0], &CPU,
                                       CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &dst));
                    OK(ct_tensor_copy_(dst, p));
                    expect_converted(dst, p, "permuted source");
                    ct_tensor_release(dst);
                    ct_tensor_release(p);
                }
                ct_tensor_release(src);
            }
        }
    }
    OK(ct_set_num_threads(1));
}

/* Expanded (zero-stride) and sliced sources, and a permuted destination. */
static void test_copy_expand_slice(void **state) {
    (void)state;
    static const ct_dtype dts[][2] = {{CT_FLOAT32, CT_FLOAT32},
                                      {CT_FLOAT64, CT_INT32},
                                      {CT_INT16, CT_INT16},
                                      {CT_FLOAT16, CT_FLOAT32}};
    for (size_t q = 0; q < sizeof dts / sizeof dts[0]; q++) {
        ct_tensor *col = filled(dts[q][1], SHAPE(70, 1)), *ex = NULL, *dst = NULL;
        OK(ct_tensor_expand(col, SHAPE(70, 129), &ex));
        ct_tensor *dt_ = NULL, *dstt = NULL;
        /* destination transposed: its rows run along the source's broadcast dim */
        OK(ct_tensor_empty(SHAPE(129, 70), dts[q][0], &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &dt_));
        OK(ct_tensor_transpose(dt_, 0, 1, &dstt));
        OK(ct_tensor_copy_(dstt, ex));
        expect_converted(dstt, ex, "expanded source, transposed destination");
        /* a sliced, transposed source (gaps between rows, odd start) */
        ct_tensor *big = filled(dts[q][1], SHAPE(131, 97)), *sl = NULL, *sl2 = NULL, *slt = NULL;
        OK(ct_tensor_slice(big, 0, 3, 130, 2, &sl));
        OK(ct_tensor_slice(sl, 1, 1, 96, 1, &sl2));
        OK(ct_tensor_transpose(sl2, 0, 1, &slt));
        OK(ct_tensor_empty(ct_tensor_sizes(slt), 2, dts[q][0], &CPU, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, &dst));
        OK(ct_tensor_copy_(dst, slt));
        expect_converted(dst, slt, "sliced transposed source");
        ct_tensor *all[] = {col, ex, dst, dt_, dstt, big, sl, sl2, slt};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            ct_tensor_release(all[k]);
    }
}

/* A copy onto itself through another layout is refused, not tiled (overlap check). */
static void test_copy_overlap_refused(void **state) {
    (void)state;
    ct_tensor *x = filled(CT_FLOAT32, SHAPE(64, 64)), *xt = NULL;
    OK(ct_tensor_transpose(x, 0, 1, &xt));
    assert_int_equal(ct_tensor_copy_(x, xt), CT_ERR_RUNTIME);
    ct_tensor_release(xt);
    ct_tensor_release(x);
}

/* ---- add over mixed layouts ----------------------------------------------------------------- */

static void test_add_mixed_layouts(void **state) {
    (void)state;
    static const int64_t shapes[][4] = {
        {2, 64, 9, 9}, {3, 65, 7, 33}, {1, 3, 130, 66}, {2, 128, 5, 64}};
    static const ct_dtype dts[][2] = {{CT_FLOAT32, CT_FLOAT32},     {CT_INT32, CT_FLOAT32},
                                      {CT_FLOAT16, CT_FLOAT16},     {CT_FLOAT64, CT_INT8},
                                      {CT_COMPLEX64, CT_COMPLEX64}, {CT_UINT8, CT_INT16}};
    for (int threads = 1; threads <= 2; threads++) {
        OK(ct_set_num_threads(threads));
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            for (size_t q = 0; q < sizeof dts / sizeof dts[0]; q++) {
                ct_tensor *a = filled(dts[q][0], shapes[s], 4),
                          *b0 = filled(dts[q][1], shapes[s], 4);
                ct_tensor *b = NULL, *r = NULL, *ra = NULL, *rb = NULL, *want = NULL;
                OK(ct_tensor_to(b0, CT_DTYPE_UNDEFINED, NULL, true, CT_MEMFMT_CHANNELS_LAST, &b));
                OK(ct_add(a, b, ct_scalar_int(1), &r)); /* tiled: b is gathered */
                /* the reference: both inputs contiguous (plain rows) */
                OK(ct_add(a, b0, ct_scalar_int(1), &want));
                assert_int_equal(ct_tensor_dtype(r), ct_tensor_dtype(want));
                size_t isz = ct_tensor_element_size(r);
                const char *pr = ct_tensor_data_ptr(r), *pw = ct_tensor_data_ptr(want);
                for (int64_t e = 0; e < ct_tensor_numel(r); e++)
                    if (memcmp(pr + elem_off(r, e), pw + elem_off(want, e), isz) != 0)
                        fail_msg("add %s + %s (channels_last), element %lld differs",
                                 ct_dtype_name(dts[q][0]), ct_dtype_name(dts[q][1]), (long long)e);
                /* and the other way round: the output follows the channels_last input */
                OK(ct_add(b, a, ct_scalar_int(1), &ra));
                OK(ct_add(b0, a, ct_scalar_int(1), &rb));
                pr = ct_tensor_data_ptr(ra);
                pw = ct_tensor_data_ptr(rb);
                for (int64_t e = 0; e < ct_tensor_numel(ra); e++)
                    if (memcmp(pr + elem_off(ra, e), pw + elem_off(rb, e), isz) != 0)
                        fail_msg("add (channels_last) %s + %s, element %lld differs",
                                 ct_dtype_name(dts[q][1]), ct_dtype_name(dts[q][0]), (long long)e);
                ct_tensor *all[] = {a, b0, b, r, ra, rb, want};
                for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
                    ct_tensor_release(all[k]);
            }
        }
    }
    OK(ct_set_num_threads(1));
}

/* Note [Streamed tiles]: large tiled moves whose units write one dense output block gather
 * it in L1 and stream it out. Forced on at every size, every case above must give the same
 * bytes (blocks of every length and alignment: partial lines at either end take regular
 * stores). */
static void test_walk_streamed(void **state) {
    int64_t before = ct_convert_walk_set_stream_bytes(0);
    test_walk_geometries(state);
    test_walk_tile_choice(state);
    test_copy_permutations(state);
    test_copy_expand_slice(state);
    test_add_mixed_layouts(state);
    /* dim 0 within one tile, the output's blocks dense: the streamed units (moves) */
    static const int64_t shapes[][2] = {{8, 300}, {33, 130}, {64, 129}, {65, 70}, {127, 64}};
    static const int64_t items[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t j = 0; j < sizeof items / sizeof items[0]; j++)
            for (int threads = 1; threads <= 2; threads++) {
                int64_t isz[4] = {items[j], items[j], 4, 1};
                check_walk(2, 2, shapes[i], isz, false, false, threads);
                check_walk(4, 2, shapes[i], isz, false, false, threads);
                check_walk(2, 2, shapes[i], isz, true, false, threads);
            }
    assert_int_equal(ct_convert_walk_set_stream_bytes(before), 0);
    assert_int_equal(ct_convert_walk_set_stream_bytes(-1), before);
}

/* Note [Line-aligned streamed rows]: transposing moves of 4-byte elements, forced to stream
 * at every size. Output rows start at every 4-byte offset within a line (storage offset
 * 0..60 bytes, row pitches that are not a multiple of a line), dim 0 not a multiple of the
 * chunk or of 4, strips not a multiple of 4 or of TILE_B, a source read backwards along dim 0,
 * one and two threads; against the element-by-element move. */
static void check_transpose(int64_t n0, int64_t nk, int64_t out_off, int64_t out_pad,
                            int64_t in_pad, bool in_neg, int threads) {
    int64_t shape[2] = {n0, nk};
    int64_t out_pitch = (n0 + out_pad) * 4, in_pitch = (nk + in_pad) * 4;
    int64_t out_bytes = out_off + nk * out_pitch, in_bytes = n0 * in_pitch;
    char *out = malloc((size_t)out_bytes), *want = malloc((size_t)out_bytes);
    char *in = malloc((size_t)in_bytes);
    assert_true(out != NULL && want != NULL && in != NULL);
    for (int64_t i = 0; i < out_bytes; i++)
        out[i] = want[i] = (char)next_u64();
    for (int64_t i = 0; i < in_bytes; i++)
        in[i] = (char)next_u64();
    int64_t out_s[2] = {4, out_pitch}, in_s[2] = {in_neg ? -in_pitch : in_pitch, 4};
    char *in0 = in + (in_neg ? (n0 - 1) * in_pitch : 0);
    for (int64_t a = 0; a < n0; a++)
        for (int64_t b = 0; b < nk; b++)
            memcpy(want + out_off + a * 4 + b * out_pitch, in0 + a * in_s[0] + b * 4, 4);
    int64_t isz = 4;
    ct_convert_walk w = {.nops = 2, .ndim = 2, .shape = shape, .strides = {out_s, in_s},
                         .data = {out + out_off, in0}, .itemsize = {4, 4}, .move = true};
    OK(ct_set_num_threads(threads));
    int rc = ct_convert_walk_run(&w, move_loop, &isz, 64);
    OK(ct_set_num_threads(1));
    assert_int_equal(rc, 0);
    if (memcmp(want, out, (size_t)out_bytes) != 0)
        fail_msg("transpose %lld x %lld (offset %lld, pads %lld %lld, neg %d, threads %d) differs",
                 (long long)n0, (long long)nk, (long long)out_off, (long long)out_pad,
                 (long long)in_pad, (int)in_neg, threads);
    free(out);
    free(want);
    free(in);
}

static void test_walk_streamed_rows(void **state) {
    (void)state;
    int64_t before = ct_convert_walk_set_stream_bytes(0);
    static const int64_t n0s[] = {0, 1, 31, 32, 33, 47, 64, 65, 100, 129, 200, 301};
    static const int64_t nks[] = {1, 3, 8, 9, 63, 64, 65, 130};
    for (size_t i = 0; i < sizeof n0s / sizeof n0s[0]; i++)
        for (size_t j = 0; j < sizeof nks / sizeof nks[0]; j++) {
            int64_t off = 4 * (int64_t)(next_u64() % 16); /* the first row's head: 0..15 */
            int64_t out_pad = (int64_t)(next_u64() % 5), in_pad = (int64_t)(next_u64() % 3);
            bool neg = next_u64() % 4 == 0;
            check_transpose(n0s[i], nks[j], off, out_pad, in_pad, neg, 1 + (int)(j % 2));
        }
    for (int64_t off = 0; off < 64; off += 4) /* every head length, rows of one pitch */
        check_transpose(97, 20, off, 0, 0, false, 1);
    assert_int_equal(ct_convert_walk_set_stream_bytes(before), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_geometries),   cmocka_unit_test(test_walk_tile_choice),
        cmocka_unit_test(test_walk_stops),        cmocka_unit_test(test_copy_permutations),
        cmocka_unit_test(test_copy_expand_slice), cmocka_unit_test(test_copy_overlap_refused),
        cmocka_unit_test(test_add_mixed_layouts), cmocka_unit_test(test_walk_streamed),
        cmocka_unit_test(test_walk_streamed_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
