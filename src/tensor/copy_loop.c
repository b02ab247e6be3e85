/* The host loop of copy_: a strided, converting copy between two host buffers.
 *
 * Note [Copy loop order]
 * Every element moves once, so the cost is memory traffic; what matters is the order.
 *  1. Dims of size 1 are dropped, and so are dims along which both strides are 0 (the same
 *     source element written to the same place again: fill of an expanded tensor).
 *  2. The remaining dims are sorted by the destination's stride, innermost first, so writes
 *     run through memory in order (ties by the source's stride).
 *  3. Neighbouring dims that are contiguous in BOTH operands merge into one (a contiguous
 *     copy becomes a single row, however many dims it had), so the inner loop, a
 *     ct_convert_strided call, runs as long as possible; there is no per-element index
 *     arithmetic, only a pointer odometer per row.
 *     A very short innermost dim gives way to a longer one that is still local in both
 *     operands (see make_plan), so that rows stay long.
 *  4. When the source's innermost dim is another one (a transpose or permutation), rows
 *     along the destination would read the source with a large stride, touching a new
 *     cache line per element. Then the two dims are walked in square tiles (Note: 32 x 32
 *     elements keep both sides of a tile in L1), as PyTorch's copy_transpose does.
 *  5. Large copies split the outermost dim across threads with ct_parallel_for (the count
 *     is ct_get_num_threads(): CT_NUM_THREADS or torch.set_num_threads); a chunk runs the
 *     same plan over its own range of that dim.
 */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error_impl.h"
#include "base/parallel.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

#define TILE 32
/* Below this many bytes moved, a copy runs on the calling thread only; above it, each
 * thread moves at least CHUNK_BYTES (waking a team costs microseconds, 1 MiB ~100 us). */
#define PARALLEL_BYTES ((int64_t)1 << 22)
#define CHUNK_BYTES ((int64_t)1 << 20)

typedef struct dimrec {
    int64_t size;
    int64_t ds, ss; /* byte strides of destination and source */
} dimrec;

typedef struct plan {
    int n;      /* dims, innermost first */
    int tile_k; /* the dim tiled together with dim 0, or -1 */
    dimrec d[CT_MAX_DIMS];
    ct_dtype dt, st;
    size_t dsz, ssz;
} plan;

/* ---- building the plan ---------------------------------------------------------------- */

static void make_plan(plan *p, ct_dtype dt, const int64_t *dstr, ct_dtype st, const int64_t *sstr,
                      const int64_t *sizes, int64_t ndim) {
    p->dt = dt;
    p->st = st;
    p->dsz = ct_dtype_table[dt].itemsize;
    p->ssz = ct_dtype_table[st].itemsize;
    int n = 0;
    for (int64_t i = 0; i < ndim; i++) {
        if (sizes[i] == 1 || (dstr[i] == 0 && sstr[i] == 0))
            continue;
        dimrec r = {sizes[i], dstr[i] * (int64_t)p->dsz, sstr[i] * (int64_t)p->ssz};
        /* insertion sort by (ds, ss), innermost first; stable for equal keys */
        int j = n++;
        while (j > 0 &&
               (p->d[j - 1].ds > r.ds || (p->d[j - 1].ds == r.ds && p->d[j - 1].ss > r.ss))) {
            p->d[j] = p->d[j - 1];
            j--;
        }
        p->d[j] = r;
    }
    /* merge dim i+1 into dim i when it continues it in both operands */
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0) {
            dimrec *in = &p->d[m - 1];
            if (p->d[i].ds == in->ds * in->size && p->d[i].ss == in->ss * in->size) {
                in->size *= p->d[i].size;
                continue;
            }
        }
        p->d[m++] = p->d[i];
    }
    p->n = m;
    p->tile_k = -1;
    if (m >= 2 && p->d[0].size >= 8 && p->d[0].ss >= 64) {
        int k = -1;
        for (int i = 1; i < m; i++)
            if (p->d[i].ss > 0 && p->d[i].ss < p->d[0].ss && p->d[i].size >= 8 &&
                (k < 0 || p->d[i].ss < p->d[k].ss))
                k = i;
        p->tile_k = k;
    }
    if (p->tile_k >= 0)
        return;
    /* Without tiles, a short innermost dim makes many short rows (NCHW -> NHWC with 3
     * channels) while another dim may give long rows that are still local on both sides.
     * Pick the row dim by a rough cost per element: the cache-line share of each access
     * plus the row's call spread over its length; ties keep the destination's order. */
    int best = 0;
    double best_cost = 0;
    for (int i = 0; i < m; i++) {
        int64_t a = p->d[i].ds < 64 ? p->d[i].ds : 64, b = p->d[i].ss < 64 ? p->d[i].ss : 64;
        double cost = (double)(a + b) / 64.0 + 20.0 / (double)p->d[i].size;
        if (i == 0 || cost < best_cost - 1e-9) {
            best = i;
            best_cost = cost;
        }
    }
    if (best > 0) { /* move it innermost, the others keep their order */
        dimrec r = p->d[best];
        memmove(&p->d[1], &p->d[0], (size_t)best * sizeof r);
        p->d[0] = r;
    }
}

/* ---- running it ----------------------------------------------------------------------- */

/* One tile of a same-dtype copy: plain element moves (memcpy of a constant size compiles to
 * a load and a store, and tolerates unaligned wrapped memory). */
#define TILE_MOVE(SZ)                                                                              \
    static void tile_move_##SZ(char *dp, int64_t da, int64_t db, const char *sp, int64_t sa,       \
                               int64_t sb, int64_t na, int64_t nb) {                               \
        for (int64_t b = 0; b < nb; b++)                                                           \
            for (int64_t a = 0; a < na; a++)                                                       \
                memcpy(dp + a * da + b * db, sp + a * sa + b * sb, SZ);                            \
    }
TILE_MOVE(1)
TILE_MOVE(2)
TILE_MOVE(4)
TILE_MOVE(8)
TILE_MOVE(16)

typedef void (*tile_fn)(char *, int64_t, int64_t, const char *, int64_t, int64_t, int64_t, int64_t);

#if defined(__SSE2__)
/* A 4-byte tile whose destination runs along a and source along b (the plain transpose):
 * 4 x 4 blocks go through registers (loads and stores of whole rows; moves keep every bit
 * pattern), the ragged edges element by element. */
static void tile_transpose_4(char *dp, int64_t da, int64_t db, const char *sp, int64_t sa,
                             int64_t sb, int64_t na, int64_t nb) {
    int64_t a4 = na & ~(int64_t)3, b4 = nb & ~(int64_t)3;
    for (int64_t b = 0; b < b4; b += 4) {
        for (int64_t a = 0; a < a4; a += 4) {
            const char *s = sp + a * sa + b * sb;
            __m128 r0 = _mm_loadu_ps((const float *)s);
            __m128 r1 = _mm_loadu_ps((const float *)(s + sa));
            __m128 r2 = _mm_loadu_ps((const float *)(s + 2 * sa));
            __m128 r3 = _mm_loadu_ps((const float *)(s + 3 * sa));
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            char *d = dp + a * da + b * db;
            _mm_storeu_ps((float *)d, r0);
            _mm_storeu_ps((float *)(d + db), r1);
            _mm_storeu_ps((float *)(d + 2 * db), r2);
            _mm_storeu_ps((float *)(d + 3 * db), r3);
        }
    }
    for (int64_t b = 0; b < nb; b++)
        for (int64_t a = b < b4 ? a4 : 0; a < na; a++)
            memcpy(dp + a * da + b * db, sp + a * sa + b * sb, 4);
}
#endif

static tile_fn same_dtype_tile(const plan *p) {
    if (p->dt != p->st || p->dt == CT_BOOL) /* bool -> bool normalises: ct_convert does it */
        return NULL;
    switch (p->dsz) {
    case 1:
        return tile_move_1;
    case 2:
        return tile_move_2;
    case 4:
        return tile_move_4;
    case 8:
        return tile_move_8;
    case 16:
        return tile_move_16;
    default:
        return NULL;
    }
}

static void tiled(const plan *p, char *dp, const char *sp) {
    const dimrec *A = &p->d[0], *B = &p->d[p->tile_k];
    tile_fn move = same_dtype_tile(p);
#if defined(__SSE2__)
    if (p->dt == p->st && p->dsz == 4 && A->ds == 4 && B->ss == 4)
        move = tile_transpose_4;
#endif
    for (int64_t b0 = 0; b0 < B->size; b0 += TILE) {
        int64_t nb = B->size - b0 < TILE ? B->size - b0 : TILE;
        for (int64_t a0 = 0; a0 < A->size; a0 += TILE) {
            int64_t na = A->size - a0 < TILE ? A->size - a0 : TILE;
            char *d = dp + a0 * A->ds + b0 * B->ds;
            const char *s = sp + a0 * A->ss + b0 * B->ss;
            if (move != NULL) {
                move(d, A->ds, B->ds, s, A->ss, B->ss, na, nb);
                continue;
            }
            for (int64_t b = 0; b < nb; b++)
                (void)ct_convert_strided(p->dt, d + b * B->ds, A->ds, p->st, s + b * B->ss, A->ss,
                                         (size_t)na);
        }
    }
}

/* Run the whole plan: an odometer over the outer dims, a row (or tile pair) inside. */
static void run(const plan *p, char *dp, const char *sp) {
    if (p->n == 0) {
        (void)ct_convert(p->dt, dp, p->st, sp, 1);
        return;
    }
    const dimrec *od[CT_MAX_DIMS];
    int64_t idx[CT_MAX_DIMS];
    int m = 0;
    int64_t rows = 1;
    for (int i = 1; i < p->n; i++) {
        if (i == p->tile_k)
            continue;
        od[m] = &p->d[i];
        idx[m++] = 0;
        rows *= p->d[i].size;
    }
    for (int64_t r = 0; r < rows; r++) {
        if (p->tile_k >= 0)
            tiled(p, dp, sp);
        else
            (void)ct_convert_strided(p->dt, dp, p->d[0].ds, p->st, sp, p->d[0].ss,
                                     (size_t)p->d[0].size);
        for (int j = 0; j < m; j++) {
            dp += od[j]->ds;
            sp += od[j]->ss;
            if (++idx[j] < od[j]->size)
                break;
            dp -= od[j]->ds * od[j]->size;
            sp -= od[j]->ss * od[j]->size;
            idx[j] = 0;
        }
    }
}

/* ---- threads -------------------------------------------------------------------------- */

typedef struct job {
    const plan *p;
    char *dp;
    const char *sp;
} job;

/* Rows [lo, hi) of the outermost dim: the same plan over a shorter outer dim. */
static void job_run(void *ctx, int64_t lo, int64_t hi) {
    const job *j = ctx;
    plan part = *j->p;
    dimrec *outer = &part.d[part.n - 1];
    outer->size = hi - lo;
    run(&part, j->dp + lo * outer->ds, j->sp + lo * outer->ss);
}

ct_status ct_tensor_impl_copy_host(void *dst, ct_dtype dst_dtype, const int64_t *dst_strides,
                                   const void *src, ct_dtype src_dtype, const int64_t *src_strides,
                                   const int64_t *sizes, int64_t ndim) {
    plan p;
    make_plan(&p, dst_dtype, dst_strides, src_dtype, src_strides, sizes, ndim);
    int64_t numel = 1;
    for (int i = 0; i < p.n; i++)
        numel *= p.d[i].size;
    int64_t bytes = numel * (int64_t)(p.dsz + p.ssz);
    if (p.n == 0 || p.d[p.n - 1].size < 2 || bytes < PARALLEL_BYTES) {
        run(&p, dst, src);
        return CT_OK;
    }
    /* the grain in outer rows: enough rows to move CHUNK_BYTES */
    int64_t outer = p.d[p.n - 1].size, row_bytes = bytes / outer;
    job j = {&p, dst, src};
    ct_parallel_for(0, outer, (CHUNK_BYTES + row_bytes - 1) / row_bytes, job_run, &j);
    return CT_OK;
}
