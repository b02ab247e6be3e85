/* What bounds `c = a + b.t()` on one core: ctensor's add against stand-alone forms of the
 * same work, all on one set of buffers, interleaved in rounds (README.md, "What bounds the
 * transposed add").
 *
 * The tiled walk of the library (src/dtype/convert/walk.c) does this add in two phases per
 * tile: a gather that reads b's 256-byte runs (one from each of 2048 rows, 12.6 KB apart) and
 * transposes them into an L2 buffer, then a row loop that streams a and c past that buffer.
 * The forms below time each phase alone, the gather without its stores, the two phases
 * together with the output streamed, and the layouts that avoid the transposed stores or the
 * buffer, so that a run shows which part the time goes to and whether the phases overlap.
 *
 *   bench/transpose_add_probe [n] [rounds]     (default 3162 x 3162 float32, 9 rounds)
 *
 * One thread; times are the thread's CPU time, best of the rounds; "% probe" is a contiguous
 * add of the same bytes (regular stores, numpy's np.add) over the form's time. x86-64 with
 * AVX2 only; elsewhere it says so and exits. */
#define _POSIX_C_SOURCE 200809L
#include <ctensor/ctensor.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define STRIP 64    /* rows of c per strip: the walk's TILE_B */
#define TILE_A 2048 /* rows of b per tile: TILE_BYTES / (TILE_B * 4) */
#define PITCH (TILE_A * 4 + 16)
#define AHEAD 16 /* rows of b prefetched ahead, one line per 4 x 4 block (Note [Tile prefetch]) */

static int64_t n;
static float *pa, *pb, *pc; /* a, b and c of the library's tensors: row-major n x n */
static float *tile;         /* STRIP x TILE_A, transposed (row i of c's strip is a row) */
static float line_buf[1024] __attribute__((aligned(64)));
static volatile float sink;

static double thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef enum store_kind { STORE_TRANSPOSED, STORE_NONE, STORE_NATURAL } store_kind;

/* b's rows a0 .. a0+na, columns i0 .. i0+nb (nb <= STRIP) into the tile: transposed (tile row
 * i holds column i0+i), as read (tile row a holds b's run), or not stored at all. */
static void gather(int64_t i0, int64_t nb, int64_t a0, int64_t na, store_kind kind) {
    const char *src = (const char *)(pb + a0 * n + i0);
    int64_t sa = n * 4, nb4 = nb & ~(int64_t)3, na4 = na & ~(int64_t)3;
    int64_t row_lines = (nb * 4 + 63) / 64, lines = 4 * row_lines;
    __m128 acc = _mm_setzero_ps();
    for (int64_t a = 0; a < na4; a += 4) {
        int ahead = a0 + a + AHEAD + 4 <= n;
        const char *pf = src + (a + AHEAD) * sa;
        int64_t j = 0;
        for (int64_t i = 0; i < nb4; i += 4) {
            if (ahead && j < lines) {
                _mm_prefetch(pf + (j / row_lines) * sa + (j % row_lines) * 64, _MM_HINT_T0);
                j++;
            }
            const char *s = src + a * sa + i * 4;
            __m128 r0 = _mm_loadu_ps((const float *)s), r1 = _mm_loadu_ps((const float *)(s + sa)),
                   r2 = _mm_loadu_ps((const float *)(s + 2 * sa)),
                   r3 = _mm_loadu_ps((const float *)(s + 3 * sa));
            if (kind == STORE_NONE) {
                acc = _mm_add_ps(acc, _mm_add_ps(_mm_add_ps(r0, r1), _mm_add_ps(r2, r3)));
                continue;
            }
            if (kind == STORE_NATURAL) {
                float *d = tile + a * STRIP + i;
                _mm_storeu_ps(d, r0);
                _mm_storeu_ps(d + STRIP, r1);
                _mm_storeu_ps(d + 2 * STRIP, r2);
                _mm_storeu_ps(d + 3 * STRIP, r3);
                continue;
            }
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            char *d = (char *)tile + i * PITCH + a * 4;
            _mm_storeu_ps((float *)d, r0);
            _mm_storeu_ps((float *)(d + PITCH), r1);
            _mm_storeu_ps((float *)(d + 2 * PITCH), r2);
            _mm_storeu_ps((float *)(d + 3 * PITCH), r3);
        }
    }
    for (int64_t a = 0; a < na; a++) /* the edges, element by element */
        for (int64_t i = (a < na4 ? nb4 : 0); i < nb; i++) {
            float v = pb[(a0 + a) * n + i0 + i];
            if (kind == STORE_TRANSPOSED)
                *(float *)((char *)tile + i * PITCH + a * 4) = v;
            else if (kind == STORE_NATURAL)
                tile[a * STRIP + i] = v;
        }
    float lanes[4];
    _mm_storeu_ps(lanes, acc);
    sink = lanes[0];
}

AVX2 static void add_row(float *c, const float *a, const float *t, int64_t m) {
    int64_t j = 0;
    for (; j + 8 <= m; j += 8)
        _mm256_storeu_ps(c + j, _mm256_add_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(t + j)));
    for (; j < m; j++)
        c[j] = a[j] + t[j];
}

/* The same with streaming stores for c's whole 32-byte blocks. */
AVX2 static void add_row_streamed(float *c, const float *a, const float *t, int64_t m) {
    int64_t j = 0;
    for (; j < m && ((uintptr_t)(c + j) & 31) != 0; j++)
        c[j] = a[j] + t[j];
    for (; j + 8 <= m; j += 8)
        _mm256_stream_ps(c + j, _mm256_add_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(t + j)));
    for (; j < m; j++)
        c[j] = a[j] + t[j];
}

/* The same through a 4 KB L1 buffer that is then streamed (the kernels stay as they are). */
AVX2 static void add_row_buffered(float *c, const float *a, const float *t, int64_t m) {
    for (int64_t o = 0; o < m; o += 1024) {
        int64_t k = m - o < 1024 ? m - o : 1024, j = 0;
        add_row(line_buf, a + o, t + o, k);
        float *d = c + o;
        for (; j < k && ((uintptr_t)(d + j) & 31) != 0; j++)
            d[j] = line_buf[j];
        for (; j + 8 <= k; j += 8)
            _mm256_stream_ps(d + j, _mm256_loadu_ps(line_buf + j));
        for (; j < k; j++)
            d[j] = line_buf[j];
    }
}

AVX2 static void transpose8(__m256 *r) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/* Rows i0 .. i0+nb of c from a natural-order tile: 8 rows of c at a time, each 8 x 8 block
 * transposed in registers on its way to the add. */
AVX2 static void add_from_natural(int64_t i0, int64_t nb, int64_t a0, int64_t na) {
    int64_t na8 = na & ~(int64_t)7, i = 0;
    for (; i + 8 <= nb; i += 8) {
        for (int64_t a = 0; a < na8; a += 8) {
            __m256 r[8];
            for (int k = 0; k < 8; k++)
                r[k] = _mm256_loadu_ps(tile + (a + k) * STRIP + i);
            transpose8(r);
            for (int k = 0; k < 8; k++) {
                int64_t o = (i0 + i + k) * n + a0 + a;
                _mm256_storeu_ps(pc + o, _mm256_add_ps(_mm256_loadu_ps(pa + o), r[k]));
            }
        }
        for (int64_t k = 0; k < 8; k++)
            for (int64_t a = na8; a < na; a++)
                pc[(i0 + i + k) * n + a0 + a] = pa[(i0 + i + k) * n + a0 + a] + tile[a * STRIP + i + k];
    }
    for (; i < nb; i++)
        for (int64_t a = 0; a < na; a++)
            pc[(i0 + i) * n + a0 + a] = pa[(i0 + i) * n + a0 + a] + tile[a * STRIP + i];
}

typedef enum form {
    FORM_PROBE,       /* contiguous c = a + b: the yardstick */
    FORM_LIBRARY,     /* ct_add_out(a, b.t(), out=c) */
    FORM_TILED,       /* the walk's two phases: transposing gather, then row adds */
    FORM_STREAMED,    /* the same, c written with streaming stores */
    FORM_BUFFERED,    /* the same, c streamed out of a 4 KB L1 buffer */
    FORM_GATHER,      /* the gather alone */
    FORM_LOADS,       /* the gather's loads alone (no stores) */
    FORM_NATURAL_GATHER, /* b's runs copied as read (no transpose) */
    FORM_ADD,         /* the row adds alone, over a tile that stays in cache */
    FORM_NATURAL,     /* runs copied as read, transposed 8 x 8 in registers by the add */
    FORM_COUNT
} form;

static const char *const form_names[FORM_COUNT] = {
    "contiguous add (probe)", "ctensor add", "tiled: gather + row adds",
    "tiled, c streamed",      "tiled, c via L1 buffer", "gather alone",
    "gather's loads alone",   "runs copied untransposed", "row adds alone",
    "untransposed + 8x8 adds"};

AVX2 static void probe(void) {
    int64_t total = n * n, j = 0;
    for (; j + 8 <= total; j += 8)
        _mm256_storeu_ps(pc + j, _mm256_add_ps(_mm256_loadu_ps(pa + j), _mm256_loadu_ps(pb + j)));
    for (; j < total; j++)
        pc[j] = pa[j] + pb[j];
}

static void tiled(form f) {
    for (int64_t i0 = 0; i0 < n; i0 += STRIP) {
        int64_t nb = n - i0 < STRIP ? n - i0 : STRIP;
        for (int64_t a0 = 0; a0 < n; a0 += TILE_A) {
            int64_t na = n - a0 < TILE_A ? n - a0 : TILE_A;
            if (f == FORM_NATURAL || f == FORM_NATURAL_GATHER) {
                gather(i0, nb, a0, na, STORE_NATURAL);
                if (f == FORM_NATURAL)
                    add_from_natural(i0, nb, a0, na);
                continue;
            }
            if (f != FORM_ADD)
                gather(i0, nb, a0, na, f == FORM_LOADS ? STORE_NONE : STORE_TRANSPOSED);
            if (f == FORM_GATHER || f == FORM_LOADS)
                continue;
            for (int64_t i = 0; i < nb; i++) {
                float *c = pc + (i0 + i) * n + a0;
                const float *a = pa + (i0 + i) * n + a0;
                const float *t = (const float *)((const char *)tile + i * PITCH);
                if (f == FORM_STREAMED)
                    add_row_streamed(c, a, t, na);
                else if (f == FORM_BUFFERED)
                    add_row_buffered(c, a, t, na);
                else
                    add_row(c, a, t, na);
            }
        }
    }
    _mm_sfence();
}

static int check(ct_status st, const char *what) {
    if (st == CT_OK)
        return 0;
    fprintf(stderr, "transpose_add_probe: %s: %s\n", what, ct_last_error());
    return 1;
}

/* c must equal a + b.t() after a form that writes all of it. */
static int verify(const char *name) {
    for (int64_t i = 0; i < n; i += 7)
        for (int64_t j = 0; j < n; j += 5)
            if (pc[i * n + j] != pa[i * n + j] + pb[j * n + i]) {
                fprintf(stderr, "transpose_add_probe: %s wrote a wrong c[%lld][%lld]\n", name,
                        (long long)i, (long long)j);
                return 1;
            }
    return 0;
}

int main(int argc, char **argv) {
    n = argc > 1 ? atoll(argv[1]) : 3162;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (n < 8 || n > 40000 || rounds < 1) {
        fprintf(stderr, "usage: transpose_add_probe [n (8..40000)] [rounds]\n");
        return 2;
    }
    if (!__builtin_cpu_supports("avx2")) {
        printf("transpose_add_probe: this CPU has no AVX2; nothing measured\n");
        return 0;
    }
    ct_set_num_threads(1);
    int64_t sizes[2] = {n, n};
    ct_tensor *a = NULL, *b = NULL, *c = NULL, *bt = NULL;
    int failed = 0;
    if (check(ct_tensor_empty(sizes, 2, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &a), "empty") ||
        check(ct_tensor_empty(sizes, 2, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &b), "empty") ||
        check(ct_tensor_empty(sizes, 2, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &c), "empty") ||
        check(ct_tensor_t(b, &bt), "t")) {
        failed = 1;
        goto done;
    }
    pa = ct_tensor_data_ptr(a);
    pb = ct_tensor_data_ptr(b);
    pc = ct_tensor_data_ptr(c);
    tile = aligned_alloc(64, (size_t)STRIP * PITCH);
    if (tile == NULL) {
        failed = 1;
        goto done;
    }
    for (int64_t k = 0; k < n * n; k++) { /* small integers: every sum is exact */
        pa[k] = (float)(k % 7);
        pb[k] = (float)(k % 13);
        pc[k] = 0;
    }
    double best[FORM_COUNT];
    for (int f = 0; f < FORM_COUNT; f++)
        best[f] = 1e30;
    for (int r = 0; r <= rounds; r++) /* round 0 warms up (page faults) and is not counted */
        for (int f = 0; f < FORM_COUNT; f++) {
            double t0 = thread_seconds();
            if (f == FORM_PROBE)
                probe();
            else if (f == FORM_LIBRARY) {
                if (check(ct_add_out(a, bt, ct_scalar_int(1), c), "add")) {
                    failed = 1;
                    goto done;
                }
            } else
                tiled((form)f);
            double dt = thread_seconds() - t0;
            if (r > 0 && dt < best[f])
                best[f] = dt;
            bool writes_all = f == FORM_LIBRARY || f == FORM_TILED || f == FORM_STREAMED ||
                              f == FORM_BUFFERED || f == FORM_NATURAL;
            if (r == 0 && writes_all) {
                if (verify(form_names[f])) {
                    failed = 1;
                    goto done;
                }
                memset(pc, 0, (size_t)(n * n) * sizeof(float));
            }
        }
    printf("c = a + b.t(), %lld x %lld float32, one thread, thread CPU time, best of %d rounds\n",
           (long long)n, (long long)n, rounds);
    printf("%-26s %9s %8s\n", "form", "ms", "% probe");
    for (int f = 0; f < FORM_COUNT; f++)
        printf("%-26s %9.2f %7.0f%%\n", form_names[f], best[f] * 1e3,
               100.0 * best[FORM_PROBE] / best[f]);
    double phases = best[FORM_GATHER] + best[FORM_ADD];
    double floor = best[FORM_LOADS] + best[FORM_ADD];
    printf("gather alone + row adds alone: %.2f ms; the tiled form takes %.0f%% of that\n",
           phases * 1e3, 100.0 * best[FORM_TILED] / phases);
    printf("gather's loads alone + row adds alone: %.2f ms = %.0f%% of the probe (two phases "
           "that do not overlap, with transposing stores for free)\n",
           floor * 1e3, 100.0 * best[FORM_PROBE] / floor);
done:
    free(tile);
    ct_tensor_release(bt);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(c);
    return failed;
}

#else
int main(void) {
    printf("transpose_add_probe: x86-64 only; nothing measured\n");
    return 0;
}
#endif
