/* The strided walk (walk_impl.h): rows for the loop, cache-blocked tiles for locality,
 * threads. The element-wise iterator (iter/run.c) and copy_'s host loop
 * (tensor/copy_loop.c) both run through it.
 *
 * Note [Iterator run order]
 * The geometry (strides.c; copy_loop.c for copies) puts the output's fastest dim innermost,
 * so rows write memory in order. Two ways to walk it:
 *  - rows: the flat index space [0, numel) in row-major order of the loop dims; a thread's
 *    range becomes a partial first row, whole rows, and a partial last row. A contiguous
 *    operation of any rank is one row per thread.
 *  - tiles: when an input's own fastest dim is another one (contiguous + channels_last: the
 *    channels_last input steps C elements along W), a row walk would read a new cache line
 *    of it per element, one dependent miss after another. Then the innermost dim and that
 *    input's fastest dim are walked in tiles of TILE_B rows (copy_ takes the same tiles
 *    for transposes, Note [Copy loop order]): each such input's tile is first gathered,
 *    reading its memory in its own order (4 x 4 register transposes for 4-byte elements),
 *    into a small buffer laid out like the output, and the kernel then runs on contiguous
 *    rows. Threads take strips of TILE_B rows. A plain move (a same-dtype copy: transpose,
 *    permutation, NCHW <-> NHWC) needs no kernel: its tile is transposed straight into the
 *    output. Copies between dtypes gather their source and convert rows like any kernel.
 * Every row is one call of the kernel's loop with base pointers, byte strides and a count.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/parallel.h"
#include "dtype/convert/walk_impl.h"

/* Rows along the tiled dim, and bytes of one gathered tile (rows x TILE_BYTES / (rows x
 * itemsize) elements). A whole channel block (64 rows) reads the gathered input strictly in
 * memory order. The tile's length along dim 0 is a trade: its rows are the runs the output
 * and the other input are read and written in, 64 of them at a channel's distance from each
 * other, and short runs keep DRAM pages and prefetch streams switching; but the gathered
 * tile has to stay in cache while the kernel reads it back.
 * Measured on contiguous + channels_last float32 (10, 64, 125, 125), one thread:
 *  - a 2-vCPU Intel VM (48 KB L1): 32 KB tiles (64 x 128) gathered about twice as fast as
 *    64 KB ones, whose 16-byte transposed stores went to L2;
 *  - a 2-vCPU AMD EPYC VM (32 KB L1, 1 MB L2 per core): 128 KB tiles (64 x 512, 2 KB runs)
 *    ran the whole add at about 51% of the bandwidth probe against 36% with 32 KB tiles
 *    (the gather is a small part of the time there; the runs are what counted);
 *  - a 2-vCPU AMD EPYC Zen 3 VM (512 KB L2 per core), four alternating pairs of runs:
 *    512 KB tiles (64 x 2048, 8 KB runs) 51-59% of the probe on one thread and 83-106% on
 *    two, against 38-52% and 62-78% with 128 KB ones; 1 MB and 4 MB tiles were slower
 *    again (53%, 44%): the gathered tile has to come back from L2.
 * So large tiles gather into a heap block of up to TILE_BYTES (the stack of a thread the
 * library does not own may be small); short dims, moves and a failed allocation use
 * TILE_BYTES_STACK on the stack. */
#define TILE_B 64
#define TILE_BYTES 524288
#define TILE_BYTES_STACK 32768
#define TILE_PAD 16
/* Note [Tile prefetch]
 * With many short rows in flight (64 rows of the output and of the contiguous input per
 * tile, at a channel's distance from each other) the hardware prefetchers keep up with
 * neither the rows nor the gathered input, and loads wait for L3. So the tile loop asks for
 * memory ahead of use: the gather, GATHER_AHEAD rows of dim 0 ahead of the rows it reads
 * (into the next tile too, while the strip lasts); a direct move, the next tile's part of its
 * output rows, with write intent. When dim 0 fits in one tile (NCHW -> NHWC: dim 0 is the 64
 * channels), the gather asks instead for the whole next unit's tile while it works on this
 * one. Prefetches never fault, but their addresses are kept inside the operands anyway.
 * Measured: 10-40% (gather prefetch) on contiguous + channels_last float32. The gather
 * issues its prefetches one per 4 x 4 block rather than all 16 lines of a group at once:
 * bursts of 16 stalled on the core's miss buffers (17% of the gather's samples sat on the
 * prefetch loop). On the AVX2 Zen 3 VM, one thread, three runs each, thread CPU time:
 * contiguous + channels_last add 12.2-12.4 ms -> 9.5-10.5 ms, contiguous + transposed
 * 16.0-17.2 ms -> 13.4-16.7 ms (torch / ctensor 2.06-2.20 -> 2.37-2.66 and 3.94-4.08 ->
 * 3.97-4.73). The same spreading in the streamed transpose moved nothing; 32 rows ahead
 * was slower.
 * The kernel's dense rows are not prefetched: they are TILE_BYTES / TILE_B = 8 KB runs, which
 * the hardware prefetchers follow once started, and asking for the next tile's part of every
 * row (64 rows x 8 KB per operand, twice L2 beside the gathered tile) evicted lines before
 * their use. Dropping it, on an AVX2 Zen 3 VM, one thread, contiguous + channels_last
 * (10, 64, 125, 125): 16-18 ms -> 13-14 ms (50-53% -> 61-68% of the bandwidth probe);
 * contiguous + transposed 3162^2: 21.9 -> 19.0 ms. */
#define GATHER_AHEAD 16
#define MAX_ITEM 16 /* bytes of the largest element (complex128) */
/* A stride from which every element of a row is a new cache line. */
#define LINE_BYTES 64
/* Note [Streamed tiles]
 * Where a move's unit writes one dense block of the output (dim 0 fits in one tile and the
 * tiled dim follows it in the output: NCHW -> NHWC, a copy into channels_last), a large walk
 * (output of at least STREAM_BYTES, which nothing reads back from cache soon) gathers the
 * tile into an L1 buffer laid out like that block and moves the block to its place with
 * streaming stores: regular stores first read every output line (write allocate). Measured,
 * contiguous -> channels_last float32 (10, 64, 125, 125), one thread, on the 2-vCPU AMD
 * EPYC VM (32 MB L3), interleaved, best of 5: 8.0-8.5 ms -> 4.5-5.8 ms (memcpy of the same
 * bytes: 3.6-4.2 ms). Not streamed, because they measured slower on the same machine:
 *  - output runs that are rows at a distance from each other (a transpose: 0.5-2 KB runs,
 *    misaligned, so partial lines at both ends): about 20% slower (4-byte elements now
 *    stream whole lines only, Note [Line-aligned streamed rows]);
 *  - kernels (an add into a channels_last output) writing the block into a buffer that is
 *    then streamed: about 10% slower.
 * The bytes are the gathered source's either way: results are identical. */
#define STREAM_BYTES ((int64_t)4 << 20)
/* Note [Line-aligned streamed rows]
 * A large move of 4-byte elements whose tiles are not one dense block of the output (a
 * transpose: each of a unit's TILE_B output rows gets a run of dim 0 per tile, rows at a
 * distance) streams whole 64-byte lines of every output row and nothing else: the unit walks
 * dim 0 in chunks of ROW_CHUNK, transposes each chunk (4 x 4 registers, aligned stores) into
 * an L1 buffer that keeps, per row, the 0-15 elements left over past the row's last whole
 * line, and then writes each row's whole lines from there with streaming stores. Only the
 * part of a row before its first line boundary and after its last one takes regular stores,
 * once per row rather than at both ends of every tile (what made streamed transpose tiles
 * about 20% slower than regular stores before). While a chunk is transposed, the source rows
 * of the chunk after next are asked for into L2 (Note [Tile prefetch]).
 * Measured, x.t() copied into a contiguous 3162 x 3162 float32, one thread, thread CPU time,
 * the 2-vCPU AMD EPYC (Zen 4) VM at a load average of about 12, interleaved, best of 9, in a
 * stand-alone probe against an AVX-512 streaming copy of the same bytes (2.0-2.9 ms): the
 * direct 4 x 4 tiles with regular stores 7.7-8.9 ms (24-26%), this loop 5.3-5.9 ms with SSE
 * (33-37%), 5.0-5.3 ms with AVX2 8 x 8 transposes (37-44%); chunks of 32-128 and strips of
 * 64-256 rows within noise of each other, without the prefetch 10-20% slower. */
#define ROW_CHUNK 64
#define ROW_CARRY 16 /* elements of one line of 4-byte elements */
static _Atomic int64_t stream_min_bytes = STREAM_BYTES;

int64_t ct_convert_walk_set_stream_bytes(int64_t bytes) {
    return atomic_exchange(&stream_min_bytes, bytes < 0 ? STREAM_BYTES : bytes);
}

#if defined(__SSE2__)
/* Copy `bytes` from an L1 buffer to dst: whole 64-byte lines of dst with streaming stores,
 * the partial lines at either end with regular ones. */
static void stream_out(char *dst, const char *src, int64_t bytes) {
    int64_t head = (int64_t)((LINE_BYTES - ((uintptr_t)dst & (LINE_BYTES - 1))) & (LINE_BYTES - 1));
    if (bytes < head + LINE_BYTES) {
        memcpy(dst, src, (size_t)bytes);
        return;
    }
    memcpy(dst, src, (size_t)head);
    int64_t x = head, lines_end = head + ((bytes - head) & ~(int64_t)(LINE_BYTES - 1));
    for (; x < lines_end; x += LINE_BYTES) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(src + x));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(src + x + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(src + x + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(src + x + 48));
        _mm_stream_si128((__m128i *)(void *)(dst + x), v0);
        _mm_stream_si128((__m128i *)(void *)(dst + x + 16), v1);
        _mm_stream_si128((__m128i *)(void *)(dst + x + 32), v2);
        _mm_stream_si128((__m128i *)(void *)(dst + x + 48), v3);
    }
    memcpy(dst + x, src + x, (size_t)(bytes - x));
}

/* Note [Line-aligned streamed rows]: one unit. Output row b (of nb) starts at out + b * so
 * (4-byte elements, dense along dim 0, n0 of them); source element (a, b) is at
 * src + a * sa + b * 4. buf holds nb rows of ROW_CHUNK + 2 * ROW_CARRY elements, 16-aligned. */
static void stream_rows(char *out, int64_t so, const char *src, int64_t sa, int64_t n0,
                        int64_t nb, float *buf) {
    enum { BS = ROW_CHUNK + 2 * ROW_CARRY };
    int64_t done[TILE_B]; /* elements of row b written so far */
    for (int64_t b = 0; b < nb; b++)
        done[b] = 0;
    int64_t b4 = nb & ~(int64_t)3, span = nb * 4;
    for (int64_t a0 = 0; a0 < n0; a0 += ROW_CHUNK) {
        int64_t na = n0 - a0 < ROW_CHUNK ? n0 - a0 : ROW_CHUNK, a4 = na & ~(int64_t)3;
        /* row b's element a0 + a goes to buf[b * BS + ROW_CARRY + a]; the carried elements of
         * the chunk before sit just below ROW_CARRY */
        for (int64_t a = 0; a < a4; a += 4) {
            int64_t pa = a0 + a + 2 * ROW_CHUNK; /* Note [Tile prefetch], into L2 */
            if (pa + 4 <= n0)
                for (int64_t q = 0; q < 4; q++)
                    for (int64_t x = 0; x < span; x += LINE_BYTES)
                        _mm_prefetch(src + (pa + q) * sa + x, _MM_HINT_T1);
            const char *s = src + (a0 + a) * sa;
            for (int64_t b = 0; b < b4; b += 4) {
                __m128 r0 = _mm_loadu_ps((const float *)(const void *)(s + b * 4));
                __m128 r1 = _mm_loadu_ps((const float *)(const void *)(s + sa + b * 4));
                __m128 r2 = _mm_loadu_ps((const float *)(const void *)(s + 2 * sa + b * 4));
                __m128 r3 = _mm_loadu_ps((const float *)(const void *)(s + 3 * sa + b * 4));
                _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                float *d = buf + b * BS + ROW_CARRY + a;
                _mm_store_ps(d, r0);
                _mm_store_ps(d + BS, r1);
                _mm_store_ps(d + 2 * BS, r2);
                _mm_store_ps(d + 3 * BS, r3);
            }
        }
        for (int64_t a = 0; a < na; a++) /* the edges: rows past b4, elements past a4 */
            for (int64_t b = a < a4 ? b4 : 0; b < nb; b++)
                memcpy(buf + b * BS + ROW_CARRY + a, src + (a0 + a) * sa + b * 4, 4);
        int64_t end = a0 + na;
        for (int64_t b = 0; b < nb; b++) {
            /* element j (a0 - 16 <= j < end) is at row[j - a0 + ROW_CARRY]: indices, so no
             * pointer leaves the buffer */
            const float *row = buf + b * BS;
            int64_t at = ROW_CARRY - a0;
            char *o = out + b * so;
            int64_t j = done[b];
            /* elements up to the row's first line boundary (only in its first chunk) */
            int64_t head = (int64_t)(((uintptr_t)LINE_BYTES - ((uintptr_t)o & (LINE_BYTES - 1))) &
                                     (LINE_BYTES - 1)) / 4;
            if (j < head) {
                int64_t e = head < end ? head : end;
                memcpy(o + j * 4, row + j + at, (size_t)(e - j) * 4);
                j = e;
            }
            for (; j + ROW_CARRY <= end; j += ROW_CARRY) {
                const float *q = row + j + at;
                __m128 v0 = _mm_loadu_ps(q), v1 = _mm_loadu_ps(q + 4);
                __m128 v2 = _mm_loadu_ps(q + 8), v3 = _mm_loadu_ps(q + 12);
                float *d = (float *)(void *)(o + j * 4);
                _mm_stream_ps(d, v0);
                _mm_stream_ps(d + 4, v1);
                _mm_stream_ps(d + 8, v2);
                _mm_stream_ps(d + 12, v3);
            }
            if (end == n0) { /* the row's last partial line */
                memcpy(o + j * 4, row + j + at, (size_t)(n0 - j) * 4);
                j = n0;
            } else /* carry this chunk's last line below the next chunk's place */
                memcpy(buf + b * BS, buf + b * BS + ROW_CHUNK, ROW_CARRY * 4);
            done[b] = j;
        }
    }
}
#define CAN_STREAM 1
#else
#define CAN_STREAM 0
#endif

typedef struct run_state {
    const ct_convert_walk *it;
    ct_convert_walk_loop loop;
    void *ctx;
    int tile_k;                                /* the dim tiled with dim 0, or -1 for rows */
    int64_t tile_a;                            /* elements of dim 0 per tile (heap buffers) */
    int64_t tile_a_stack;                      /* the same with the stack buffers, and for moves */
    int64_t widest;                            /* bytes of the widest gathered element */
    int64_t blocks_k;                          /* strips of TILE_B along tile_k */
    bool gather[CT_CONVERT_WALK_MAX_OPERANDS]; /* inputs read through a tile buffer */
    bool direct;                               /* a move whose tiles go straight to the output */
    bool stream;                               /* Note [Streamed tiles] */
    bool stream_rows;                          /* Note [Line-aligned streamed rows] */
    int64_t isz[CT_CONVERT_WALK_MAX_OPERANDS];
    atomic_int result;
} run_state;

/* Is every element of operand k 4-byte aligned (its start and all its strides)? */
static bool aligned4(const ct_convert_walk *it, int k) {
    bool ok = ((uintptr_t)it->data[k] & 3) == 0;
    for (int d = 0; d < it->ndim; d++)
        ok = ok && (it->strides[k][d] & 3) == 0;
    return ok;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* Does operand k run faster along dim d than along dim 0? */
static bool prefers(const ct_convert_walk *it, int k, int d) {
    int64_t s0 = abs64(it->strides[k][0]), s = abs64(it->strides[k][d]);
    return s0 > 0 && s > 0 && s < s0;
}

/* The dim to tile with dim 0, or -1: an input reads dim 0 a cache line per element while
 * another dim of it is closer in memory (the permuted input of a pair). */
static int choose_tile(const ct_convert_walk *it) {
    if (it->ndim < 2 || it->shape[0] < 8)
        return -1;
    int best = -1;
    int64_t worst = 0;
    for (int k = 1; k < it->nops; k++) {
        int64_t s0 = abs64(it->strides[k][0]);
        if (s0 < LINE_BYTES || s0 <= worst)
            continue;
        int kd = -1;
        for (int d = 1; d < it->ndim; d++)
            if (prefers(it, k, d) && it->shape[d] >= 8 &&
                (kd < 0 || abs64(it->strides[k][d]) < abs64(it->strides[k][kd])))
                kd = d;
        if (kd > 0) {
            best = kd;
            worst = s0;
        }
    }
    return best;
}

static bool record(run_state *r, int code) {
    if (code == 0)
        return false;
    int expected = 0;
    atomic_compare_exchange_strong(&r->result, &expected, code);
    return true;
}

static bool stopped(run_state *r) {
    return atomic_load_explicit(&r->result, memory_order_relaxed) != 0;
}

/* ---- rows ------------------------------------------------------------------------------------ */

/* Elements [begin, end) of the flat index space. Offsets are kept as integers so no pointer
 * ever leaves its object between rows. */
static void rows_body(void *p, int64_t begin, int64_t end) {
    run_state *r = p;
    const ct_convert_walk *it = r->it;
    int n = it->ndim, nt = it->nops;
    int64_t idx[CT_CONVERT_WALK_MAX_DIMS], off[CT_CONVERT_WALK_MAX_OPERANDS] = {0},
                                           s0[CT_CONVERT_WALK_MAX_OPERANDS];
    int64_t rem = begin;
    for (int d = 0; d < n; d++) {
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
        for (int k = 0; k < nt; k++)
            off[k] += idx[d] * it->strides[k][d];
    }
    for (int k = 0; k < nt; k++)
        s0[k] = it->strides[k][0];
    for (int64_t pos = begin; pos < end;) {
        if (stopped(r))
            return;
        int64_t len = it->shape[0] - idx[0];
        if (len > end - pos)
            len = end - pos;
        char *ptr[CT_CONVERT_WALK_MAX_OPERANDS];
        for (int k = 0; k < nt; k++)
            ptr[k] = it->data[k] + off[k];
        if (record(r, r->loop(r->ctx, ptr, s0, len)))
            return;
        pos += len;
        /* odometer: step past the row, carrying into outer dims */
        idx[0] += len;
        for (int k = 0; k < nt; k++)
            off[k] += len * s0[k];
        for (int d = 0; d + 1 < n && idx[d] == it->shape[d]; d++) {
            idx[d] = 0;
            idx[d + 1]++;
            for (int k = 0; k < nt; k++)
                off[k] += it->strides[k][d + 1] - it->shape[d] * it->strides[k][d];
        }
    }
}

/* ---- tiles ----------------------------------------------------------------------------------- */

/* Line j of a group of rows of row_lines lines each, from pf on, rows sa bytes apart, into L1
 * (Note [Tile prefetch]). */
static inline void prefetch_line(const char *pf, int64_t sa, int64_t row_lines, int64_t j) {
    __builtin_prefetch(pf + (j / row_lines) * sa + (j % row_lines) * LINE_BYTES, 0, 3);
}

/* Gather an na x nb tile of `isz`-byte elements (src steps sa along the tile's rows, sb
 * across them) into buf, row b at buf + b * row. `avail` (>= na) rows of dim 0 exist from
 * src on, for the prefetch. */
static void gather_tile(char *buf, int64_t row, const char *src, int64_t sa, int64_t sb, int64_t na,
                        int64_t nb, int64_t isz, int64_t avail) {
    int64_t b0 = 0;
#if defined(__SSE2__)
    if (isz == 4 && sb == 4) {
        /* src is contiguous across rows: 4 x 4 blocks through registers, walking src in
         * memory order (all rows of 4 elements of dim 0, then the next 4) */
        int64_t a4 = na & ~(int64_t)3, b4 = nb & ~(int64_t)3;
        int64_t span = (nb - 1) * 4 + 4; /* bytes of one row of dim 0 the tile reads */
        int64_t row_lines = (span + LINE_BYTES - 1) / LINE_BYTES, lines = 4 * row_lines;
        for (int64_t a = 0; a < a4; a += 4) {
            /* Note [Tile prefetch]: the 4 rows' lines, one per 4 x 4 block */
            bool ahead = a + GATHER_AHEAD + 4 <= avail;
            const char *pf = src + (a + GATHER_AHEAD) * sa;
            int64_t j = 0;
            for (int64_t b = 0; b < b4; b += 4) {
                if (ahead && j < lines)
                    prefetch_line(pf, sa, row_lines, j++);
                const char *s = src + a * sa + b * 4;
                __m128 r0 = _mm_loadu_ps((const float *)s);
                __m128 r1 = _mm_loadu_ps((const float *)(s + sa));
                __m128 r2 = _mm_loadu_ps((const float *)(s + 2 * sa));
                __m128 r3 = _mm_loadu_ps((const float *)(s + 3 * sa));
                _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                char *d = buf + b * row + a * 4;
                _mm_storeu_ps((float *)d, r0);
                _mm_storeu_ps((float *)(d + row), r1);
                _mm_storeu_ps((float *)(d + 2 * row), r2);
                _mm_storeu_ps((float *)(d + 3 * row), r3);
            }
            while (ahead && j < lines) /* lines beyond the blocks (rows wider than nb) */
                prefetch_line(pf, sa, row_lines, j++);
        }
        for (int64_t a = a4; a < na; a++) /* the last rows of dim 0 */
            for (int64_t b = 0; b < b4; b++)
                memcpy(buf + b * row + a * 4, src + a * sa + b * 4, 4);
        b0 = b4;
    }
#endif
    /* the rest element by element, in the source's order (b fastest) */
#define GATHER_REST(SZ)                                                                            \
    for (int64_t a = 0; a < na; a++)                                                               \
        for (int64_t b = b0; b < nb; b++)                                                          \
            memcpy(buf + b * row + a * (SZ), src + a * sa + b * sb, SZ);
    switch (isz) {
    case 1:
        GATHER_REST(1) break;
    case 2:
        GATHER_REST(2) break;
    case 4:
        GATHER_REST(4) break;
    case 8:
        GATHER_REST(8) break;
    default:
        GATHER_REST(16) break;
    }
#undef GATHER_REST
}

/* The byte offsets of unit u's first element into off[]; returns its rows of tile_k. */
static int64_t unit_offsets(const run_state *r, int64_t u, int64_t *off) {
    const ct_convert_walk *it = r->it;
    int kd = r->tile_k;
    int64_t strip = u % r->blocks_k, rem = u / r->blocks_k;
    for (int k = 0; k < it->nops; k++)
        off[k] = strip * TILE_B * it->strides[k][kd];
    for (int d = 1; d < it->ndim; d++) {
        if (d == kd)
            continue;
        int64_t i = rem % it->shape[d];
        rem /= it->shape[d];
        for (int k = 0; k < it->nops; k++)
            off[k] += i * it->strides[k][d];
    }
    int64_t nb = it->shape[kd] - strip * TILE_B;
    return nb < TILE_B ? nb : TILE_B;
}

/* Units [begin, end), each a strip of TILE_B rows of dim tile_k at one index of the other
 * outer dims, walked across dim 0 in tiles. */
static void tiles_body(void *p, int64_t begin, int64_t end) {
    run_state *r = p;
    const ct_convert_walk *it = r->it;
    int nt = it->nops, kd = r->tile_k;
    /* a library must not keep big thread-local blocks (dlopen'd TLS): the tile buffers are
     * this call's, on the heap when a long dim 0 pays for them, else on the stack */
    enum { STACK_BUF = TILE_BYTES_STACK + TILE_B * TILE_PAD };
    _Alignas(64) char stack_bufs[CT_CONVERT_WALK_MAX_OPERANDS - 1][STACK_BUF];
    char *bufs[CT_CONVERT_WALK_MAX_OPERANDS - 1];
    for (int k = 0; k + 1 < CT_CONVERT_WALK_MAX_OPERANDS; k++)
        bufs[k] = stack_bufs[k];
    int64_t ta = r->tile_a_stack;
    char *heap = NULL;
    if (!r->direct && it->shape[0] > ta && r->tile_a > ta) {
        /* a dim 0 shorter than a whole tile needs only its own length */
        int64_t want = it->shape[0] < r->tile_a ? it->shape[0] : r->tile_a;
        size_t one = (size_t)(want * TILE_B * r->widest + TILE_B * TILE_PAD);
        heap = malloc((size_t)(nt - 1) * one + 64);
        if (heap != NULL) {
            char *base = heap + ((64 - ((uintptr_t)heap & 63)) & 63);
            for (int k = 0; k + 1 < nt; k++)
                bufs[k] = base + (size_t)k * one;
            ta = want;
        }
    }
    int64_t s0[CT_CONVERT_WALK_MAX_OPERANDS], sk[CT_CONVERT_WALK_MAX_OPERANDS],
        rs[CT_CONVERT_WALK_MAX_OPERANDS];
    int64_t pitch[CT_CONVERT_WALK_MAX_OPERANDS]; /* bytes between rows of a gathered tile */
    for (int k = 0; k < nt; k++) {
        s0[k] = it->strides[k][0];
        sk[k] = it->strides[k][kd];
        rs[k] = r->gather[k] ? r->isz[k] : s0[k]; /* the stride the loop sees */
        pitch[k] = ta * r->isz[k] + TILE_PAD;
    }
    for (int64_t u = begin; u < end; u++) {
        int64_t off[CT_CONVERT_WALK_MAX_OPERANDS];
        int64_t nb = unit_offsets(r, u, off);
        if (it->shape[0] <= ta && u + 1 < end) { /* Note [Tile prefetch]: the next unit */
            int64_t next_off[CT_CONVERT_WALK_MAX_OPERANDS];
            int64_t next_nb = unit_offsets(r, u + 1, next_off);
            for (int k = 1; k < nt; k++)
                if (r->gather[k])
                    for (int64_t a = 0; a < it->shape[0]; a++)
                        for (int64_t x = 0; x < next_nb * r->isz[k]; x += LINE_BYTES)
                            __builtin_prefetch(it->data[k] + next_off[k] + a * s0[k] + x, 0, 2);
        }
#if CAN_STREAM
        if (r->stream_rows) {
            if (stopped(r))
                goto done;
            stream_rows(it->data[0] + off[0], sk[0], it->data[1] + off[1], s0[1], it->shape[0],
                        nb, (float *)(void *)bufs[0]);
            continue;
        }
#endif
        for (int64_t a0 = 0; a0 < it->shape[0]; a0 += ta) {
            int64_t na = it->shape[0] - a0;
            if (na > ta)
                na = ta;
            if (stopped(r))
                goto done;
#if CAN_STREAM
            if (r->stream) { /* a move gathered in L1, then one streamed block */
                gather_tile(bufs[0], na * r->isz[1], it->data[1] + off[1] + a0 * s0[1], s0[1],
                            sk[1], na, nb, r->isz[1], it->shape[0] - a0);
                stream_out(it->data[0] + off[0], bufs[0], nb * na * r->isz[0]);
                continue;
            }
#endif
            if (r->direct) { /* the tile goes straight to the output */
                /* its rows' next part, with write intent (Note [Tile prefetch]) */
                int64_t ahead_n = it->shape[0] - a0 - na;
                if (ahead_n > ta)
                    ahead_n = ta;
                for (int64_t b = 0; b < nb && ahead_n > 0; b++) {
                    const char *q = it->data[0] + off[0] + (a0 + na) * s0[0] + b * sk[0];
                    for (int64_t x = 0; x < ahead_n * s0[0]; x += LINE_BYTES)
                        __builtin_prefetch(q + x, 1, 2);
                }
                gather_tile(it->data[0] + off[0] + a0 * s0[0], sk[0],
                            it->data[1] + off[1] + a0 * s0[1], s0[1], sk[1], na, nb, r->isz[1],
                            it->shape[0] - a0);
                continue;
            }
            for (int k = 1; k < nt; k++)
                if (r->gather[k])
                    gather_tile(bufs[k - 1], pitch[k], it->data[k] + off[k] + a0 * s0[k], s0[k],
                                sk[k], na, nb, r->isz[k], it->shape[0] - a0);
            for (int64_t b = 0; b < nb; b++) {
                char *ptr[CT_CONVERT_WALK_MAX_OPERANDS];
                for (int k = 0; k < nt; k++) {
                    if (r->gather[k]) {
                        ptr[k] = bufs[k - 1] + b * pitch[k];
                        continue;
                    }
                    ptr[k] = it->data[k] + off[k] + a0 * s0[k] + b * sk[k];
                }
                if (record(r, r->loop(r->ctx, ptr, rs, na)))
                    goto done;
            }
        }
    }
done:
#if CAN_STREAM
    if (r->stream || r->stream_rows)
        _mm_sfence(); /* order the streaming stores before whatever follows */
#endif
    free(heap);
}

int ct_convert_walk_tile_dim(const ct_convert_walk *w) { return choose_tile(w); }

int ct_convert_walk_run(const ct_convert_walk *it, ct_convert_walk_loop loop, void *ctx,
                        int64_t grain) {
    if (it->ndim == 0) { /* one element */
        static const int64_t zero[CT_CONVERT_WALK_MAX_OPERANDS] = {0};
        return loop(ctx, it->data, zero, 1);
    }
    int64_t numel = 1;
    for (int d = 0; d < it->ndim; d++)
        numel *= it->shape[d];
    if (numel == 0)
        return 0;
    if (grain < 1)
        grain = 1;
    run_state r;
    r.it = it;
    r.loop = loop;
    r.ctx = ctx;
    r.tile_k = choose_tile(it);
    r.direct = false;
    r.stream = false;
    r.stream_rows = false;
    atomic_init(&r.result, 0);
    if (r.tile_k < 0) {
        ct_parallel_for(0, numel, grain, rows_body, &r);
    } else {
        int64_t widest = 1;
        for (int k = 0; k < it->nops; k++) {
            r.isz[k] = it->itemsize[k];
            /* inputs that prefer the tiled dim are gathered; the output never is */
            r.gather[k] = k > 0 && r.isz[k] <= MAX_ITEM && prefers(it, k, r.tile_k);
            if (r.gather[k] && r.isz[k] > widest)
                widest = r.isz[k];
        }
        /* a move of a gathered input into an output dense along dim 0 gathers in place */
        r.direct = it->move && it->nops == 2 && r.gather[1] && r.isz[0] == r.isz[1] &&
                   it->strides[0][0] == r.isz[0];
        r.widest = widest;
        r.tile_a = TILE_BYTES / (TILE_B * widest);
        r.tile_a_stack = TILE_BYTES_STACK / (TILE_B * widest);
        /* Note [Streamed tiles]: a move whose units write dense blocks of the output (the
         * block, TILE_B x dim 0, fits the stack tile: dim 0 within tile_a_stack) */
        r.stream = CAN_STREAM && r.direct && it->shape[0] <= r.tile_a_stack &&
                   it->strides[0][r.tile_k] == it->shape[0] * r.isz[0] &&
                   numel * r.isz[0] >= atomic_load(&stream_min_bytes);
        /* Note [Line-aligned streamed rows]: the other large moves of 4-byte elements read
         * across the tile's rows from one contiguous run; the output rows long enough to
         * hold whole lines, each 4-aligned */
        r.stream_rows = CAN_STREAM && r.direct && !r.stream && r.isz[0] == 4 &&
                        it->strides[1][r.tile_k] == 4 && it->shape[0] >= 2 * ROW_CARRY &&
                        aligned4(it, 0) && numel * r.isz[0] >= atomic_load(&stream_min_bytes);
        int64_t rows = it->shape[r.tile_k];
        r.blocks_k = (rows + TILE_B - 1) / TILE_B;
        int64_t units = numel / rows / it->shape[0] * r.blocks_k;
        int64_t per_unit = TILE_B * it->shape[0];
        ct_parallel_for(0, units, grain / per_unit > 0 ? grain / per_unit : 1, tiles_body, &r);
    }
    return atomic_load(&r.result);
}
