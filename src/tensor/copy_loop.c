/* The host loop of copy_: a strided, converting copy between two host buffers.
 *
 * Note [Copy loop order]
 * Every element moves once, so the cost is memory traffic; what matters is the order.
 *  1. Dims of size 1 are dropped, and so are dims along which both strides are 0 (the same
 *     source element written to the same place again: fill of an expanded tensor).
 *  2. The remaining dims are sorted by the destination's stride, innermost first, so writes
 *     run through memory in order (ties by the source's stride).
 *  3. Neighbouring dims that are contiguous in BOTH operands merge into one (a contiguous
 *     copy becomes a single row, however many dims it had), so the inner loop, one call of
 *     the converter of the dtype pair, runs as long as possible.
 *     A very short innermost dim gives way to a longer one that is still local in both
 *     operands (see make_plan), so that rows stay long.
 *  4. The plan is then run by the walk the element-wise iterator uses
 *     (dtype/convert/walk_impl.h, Note [Iterator run order]): when the source's innermost
 *     dim is another one (a transpose or permutation), rows along the destination would
 *     read the source a cache line per element, so the walk takes both dims in cache-sized
 *     tiles; a same-dtype copy transposes each tile straight into the destination, a
 *     converting one gathers the tile and converts its rows. Large copies run on
 *     ct_get_num_threads() threads (CT_NUM_THREADS or torch.set_num_threads), each moving
 *     at least CHUNK_BYTES.
 *  5. Long dense destination rows of large copies are written with streaming stores
 *     (Note [Streamed copy rows]).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error_impl.h"
#include "dtype/convert/loops_impl.h"
#include "dtype/table_impl.h"
#include "dtype/convert/walk_impl.h"
#include "tensor/tensor_impl.h"

/* Below this many bytes moved, a copy runs on the calling thread only; above it, each
 * thread moves at least CHUNK_BYTES (waking a team costs microseconds, 1 MiB ~100 us). */
#define PARALLEL_BYTES ((int64_t)1 << 22)
#define CHUNK_BYTES ((int64_t)1 << 20)
_Static_assert(CT_CONVERT_WALK_MAX_DIMS >= CT_MAX_DIMS, "the walk takes every dim");

typedef struct dimrec {
    int64_t size;
    int64_t ds, ss; /* byte strides of destination and source */
} dimrec;

typedef struct plan {
    int n; /* dims, innermost first */
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
    /* tiles (the walk's decision) keep dim 0 innermost */
    int64_t shape[CT_MAX_DIMS], ds[CT_MAX_DIMS], ss[CT_MAX_DIMS];
    for (int i = 0; i < m; i++) {
        shape[i] = p->d[i].size;
        ds[i] = p->d[i].ds;
        ss[i] = p->d[i].ss;
    }
    ct_convert_walk w = {.nops = 2,
                 .ndim = m,
                 .shape = shape,
                 .strides = {ds, ss},
                 .itemsize = {(int64_t)p->dsz, (int64_t)p->ssz}};
    if (ct_convert_walk_tile_dim(&w) >= 0)
        return;
    /* Without tiles, a short innermost dim makes many short rows (NCHW -> NHWC with 3
     * channels) while another dim may give long rows that are still local on both sides.
     * Pick the row dim by a rough cost per element: the cache-line share of each access
     * plus the row's call spread over its length; ties keep the destination's order. */
    int best = 0;
    double best_cost = 0;
    for (int i = 0; i < m; i++) {
        /* |stride|: flip reads its source backwards (negative strides) */
        int64_t ad = p->d[i].ds < 0 ? -p->d[i].ds : p->d[i].ds;
        int64_t as = p->d[i].ss < 0 ? -p->d[i].ss : p->d[i].ss;
        int64_t a = ad < 64 ? ad : 64, b = as < 64 ? as : 64;
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

/* Note [Streamed copy rows]
 * A long dense row of a large copy writes memory that nothing reads soon; regular stores
 * first read each destination line (write allocate), a third more traffic than the copy
 * itself. So rows of copies above STREAM_BYTES convert in L1-sized chunks into a buffer and
 * move each chunk to its place with streaming stores (measured int32 -> float32, 10^7
 * elements, one thread: 27 GB/s with regular stores, about 40 with streaming ones). The
 * bytes written are the converter's, so results are identical. Pairs with a streaming loop
 * (loops_impl.h: int32 -> float32) skip the buffer: their vectors go straight to memory. */
#define STREAM_BYTES ((int64_t)4 << 20)
#define STREAM_CHUNK 2048

typedef struct copy_ctx {
    ct_convert_loop_fn fn;
    ct_convert_stream_fn sfn; /* the pair's streaming loop, or NULL */
    int64_t dsz, ssz;
    bool stream; /* the copy is large enough for Note [Streamed copy rows] */
} copy_ctx;

#if defined(__SSE2__)
/* Convert n elements into a dense, dsz-aligned destination row with streaming stores. */
static void stream_row(const copy_ctx *c, char *d, const char *s, int64_t ss, int64_t n) {
    _Alignas(64) char buf[STREAM_CHUNK];
    int64_t dsz = c->dsz, head = (int64_t)((16 - ((uintptr_t)d & 15)) & 15) / dsz;
    if (head > n)
        head = n;
    c->fn(d, (ptrdiff_t)dsz, s, (ptrdiff_t)ss, (size_t)head);
    d += head * dsz;
    s += head * ss;
    n -= head;
    int64_t per = STREAM_CHUNK / dsz;
    while (n * dsz >= 16) {
        int64_t m = n < per ? n : per;
        int64_t bytes = m * dsz & ~(int64_t)15; /* whole 16-byte stores */
        m = bytes / dsz;
        c->fn(buf, (ptrdiff_t)dsz, s, (ptrdiff_t)ss, (size_t)m);
        for (int64_t x = 0; x < bytes; x += 16)
            _mm_stream_si128((__m128i *)(void *)(d + x),
                             _mm_load_si128((const __m128i *)(const void *)(buf + x)));
        d += bytes;
        s += m * ss;
        n -= m;
    }
    _mm_sfence(); /* order the streaming stores before whatever follows */
    c->fn(d, (ptrdiff_t)dsz, s, (ptrdiff_t)ss, (size_t)n);
}
#endif

/* The walk's row: one converter call (or a streamed row). */
static int copy_row(void *ctx, char *const *data, const int64_t *strides, int64_t n) {
    const copy_ctx *c = ctx;
#if defined(__SSE2__)
    if (c->stream && strides[0] == c->dsz && n * c->dsz >= 4 * STREAM_CHUNK &&
        (uintptr_t)data[0] % (uintptr_t)c->dsz == 0) {
        if (c->sfn != NULL && strides[1] == c->ssz &&
            (uintptr_t)data[1] % (uintptr_t)c->ssz == 0)
            c->sfn(data[0], data[1], (size_t)n);
        else
            stream_row(c, data[0], data[1], strides[1], n);
        return 0;
    }
#endif
    c->fn(data[0], (ptrdiff_t)strides[0], data[1], (ptrdiff_t)strides[1], (size_t)n);
    return 0;
}

ct_status ct_tensor_impl_copy_host(void *dst, ct_dtype dst_dtype, const int64_t *dst_strides,
                                   const void *src, ct_dtype src_dtype, const int64_t *src_strides,
                                   const int64_t *sizes, int64_t ndim) {
    plan p;
    make_plan(&p, dst_dtype, dst_strides, src_dtype, src_strides, sizes, ndim);
    copy_ctx c = {.fn = (*ct_convert_impl_active_loops())[dst_dtype][src_dtype],
                  .sfn = (*ct_convert_impl_active_stream())[dst_dtype][src_dtype],
                  .dsz = (int64_t)p.dsz,
                  .ssz = (int64_t)p.ssz};
    if (c.fn == NULL) /* one float4_e2m1fn_x2 side: copy.c refuses these first */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
    int64_t numel = 1;
    for (int i = 0; i < p.n; i++)
        numel *= p.d[i].size;
    int64_t bytes = numel * (int64_t)(p.dsz + p.ssz);
    c.stream = numel * (int64_t)p.dsz >= STREAM_BYTES;
    int64_t shape[CT_MAX_DIMS], ds[CT_MAX_DIMS], ss[CT_MAX_DIMS];
    for (int i = 0; i < p.n; i++) {
        shape[i] = p.d[i].size;
        ds[i] = p.d[i].ds;
        ss[i] = p.d[i].ss;
    }
    ct_convert_walk w = {.nops = 2,
                 .ndim = p.n,
                 .shape = shape,
                 .strides = {ds, ss},
                 .data = {dst, (char *)(uintptr_t)src},
                 .itemsize = {(int64_t)p.dsz, (int64_t)p.ssz},
                 /* same dtype: bytes unchanged (bool -> bool normalises: the converter) */
                 .move = dst_dtype == src_dtype && dst_dtype != CT_BOOL};
    /* small copies stay on the calling thread; large ones move CHUNK_BYTES per thread */
    int64_t grain = bytes < PARALLEL_BYTES ? numel : CHUNK_BYTES / (int64_t)(p.dsz + p.ssz);
    (void)ct_convert_walk_run(&w, copy_row, &c, grain);
    return CT_OK;
}
