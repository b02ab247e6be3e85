/* bfloat16 matrix products with AVX512-BF16 dot products (vdpbf16ps).
 *
 * Note [bf16 gemm]
 * This file is compiled with AVX-512 F/BW/VL/BF16 flags (CMakeLists.txt); gemm.c calls it
 * only after ct_gemm_bf16_usable() (cpuid plus the active ISA level), so nothing here runs
 * on other CPUs. Per product:
 *  - A and B are packed once into panels of bf16 pairs along k, the layout vdpbf16ps
 *    reads: A as [MR-row panel][k pair][MR] and B as [NR-column panel][k pair][NR], each
 *    element a 32-bit word holding k = 2p in its low half and k = 2p + 1 in its high half.
 *    Panels are zero-padded to MR/NR and k to even, so the micro-kernel never has edges.
 *    Any strides are accepted (a transposed operand only changes the packing loop).
 *  - The micro-kernel keeps an MR x NR float32 block of C in zmm registers across the
 *    whole of k: each k pair costs NR/16 loads of B, MR broadcasts of A and MR * NR/16
 *    vdpbf16ps. The result is rounded once to bfloat16 (round to nearest even, NaN ->
 *    0xFFFF, as ct_convert), after alpha * acc + beta * c in float32.
 *  - Threads (ct_parallel_for) take blocks of MC rows x NC columns of C; MC shrinks as k
 *    grows so a block's A panels stay in L2 while each B panel is reused across them.
 *  - One parallel region packs and multiplies: each thread first takes panels to pack (one
 *    at a time, from a shared counter) and, once none is left, blocks of C. Each panel has
 *    a ready flag; a block that meets a panel another thread is still packing packs its
 *    own copy into scratch rather than wait. The end of an OpenMP region waits for every
 *    thread of the team to have run, so on a machine shared with other jobs each region
 *    can cost a scheduler time slice when the OS has paused a worker: two regions (pack,
 *    then multiply) made 2 threads slower than 1 there, and no step ever waits on another
 *    thread's packing now.
 * Numerics: products of bf16 values are exact in float32 and summed in float32, as the
 * widen-then-sgemm path, but vdpbf16ps treats bf16 subnormal inputs as zero and flushes
 * subnormal sums (its fixed DAZ/FTZ behaviour; oneDNN's bf16 matmul in PyTorch does the
 * same). The sum order differs from sgemm's, so results may differ by float32 rounding
 * before the final bf16 rounding. */
#include "kernels/gemm_bf16.h"

#if defined(__AVX512BF16__) && defined(__AVX512F__) && defined(__AVX512BW__)

#include <immintrin.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/parallel.h"
#include "ctensor/parallel.h"
#include "dtype/convert/codec_impl.h"

#define BF_MR 12 /* rows of the micro-kernel */
#define BF_NR 32 /* columns: two zmm of float32 */
#define BF_NC (BF_NR * 8)

struct bf_pack;

typedef struct bf_job {
    const ct_gemm_args *g;
    const struct bf_pack *op;          /* A's and B's packing */
    atomic_llong next_pack;            /* the next panel to pack: B's first, then A's */
    atomic_uchar *ready;               /* per panel (B's, then A's): 1 once packed */
    atomic_llong next;                 /* the next block to take (dynamic schedule) */
    int64_t total;                     /* blocks in all */
    const uint32_t *pa, *pb;           /* packed operands of all batches */
    int64_t kp;                        /* k pairs */
    int64_t pm, pn;                    /* row / column panels per batch */
    int64_t mc;                        /* rows per block (a multiple of BF_MR) */
    int64_t mblocks, nblocks;          /* blocks per batch */
    float alpha, beta;
} bf_job;

/* ---- packing ------------------------------------------------------------------------------- */

typedef struct bf_pack {
    const uint16_t *src;
    int64_t bs, rs, ks; /* element strides: batch, panel row (m of A, n of B), k */
    int64_t rows, k, kp, panels, total; /* total: panels of all batches */
    int r; /* BF_MR or BF_NR */
    uint32_t *dst;
    size_t bytes;
} bf_pack;

/* Panel q (index = batch * panels + panel) of one operand, into d (kp * r words). */
static void pack_panel(const bf_pack *p, int64_t q, uint32_t *d) {
    int64_t R = p->r, k = p->k, kp = p->kp, kfull = k / 2;
    int64_t b = q / p->panels, r0 = (q % p->panels) * R;
    int64_t nr = p->rows - r0 < R ? p->rows - r0 : R;
    const uint16_t *s = p->src + b * p->bs + r0 * p->rs;
    if (nr < R) /* padding rows (and everything else, rewritten below) */
        memset(d, 0, (size_t)(kp * R) * sizeof *d);
    if (p->ks == 1) { /* k contiguous: a pair is one 32-bit word of a row */
        const uint16_t *rp[BF_NR];
        for (int64_t r = 0; r < nr; r++)
            rp[r] = s + r * p->rs;
        for (int64_t x = 0; x < kfull; x++, d += R) /* rows read in step, d written in order */
            for (int64_t r = 0; r < nr; r++) {
                uint32_t w;
                memcpy(&w, rp[r] + 2 * x, sizeof w);
                d[r] = w;
            }
        if (k & 1)
            for (int64_t r = 0; r < nr; r++)
                d[r] = rp[r][k - 1];
        return;
    }
    for (int64_t x = 0; x < kp; x++) { /* two k rows interleaved (vectorised when rs == 1) */
        const uint16_t *k0 = s + 2 * x * p->ks, *k1 = k0 + p->ks;
        uint32_t *dx = d + x * R;
        if (2 * x + 1 < k) {
            for (int64_t r = 0; r < nr; r++)
                dx[r] = (uint32_t)k0[r * p->rs] | (uint32_t)k1[r * p->rs] << 16;
        } else {
            for (int64_t r = 0; r < nr; r++)
                dx[r] = k0[r * p->rs];
        }
    }
}

/* How many threads for `items` items of `work` units in all: one per ~2^18 units, at most
 * one per item and per thread, at least one. */
static int64_t bf_workers(int64_t items, int64_t work) {
    int64_t w = work >> 18 < items ? work >> 18 : items;
    int threads = ct_get_num_threads();
    return w < 1 ? 1 : w > threads ? threads : w;
}

/* Sets up the packing of a [batch, rows, k] operand and allocates its buffer: false when
 * out of memory. */
static bool pack_init(bf_pack *p, const ct_gemm_args *g, const char *src, int64_t rows,
                      int64_t bs, int64_t rs, int64_t ks, int r) {
    *p = (bf_pack){
        .src = (const uint16_t *)src, .bs = bs, .rs = rs, .ks = ks, .rows = rows, .k = g->k,
        .kp = (g->k + 1) / 2, .panels = (rows + r - 1) / r, .r = r,
    };
    p->total = g->batch * p->panels;
    p->bytes = (size_t)(p->total * p->kp * r) * sizeof(uint32_t);
    p->dst = ct_alloc(p->bytes ? p->bytes : 1, 64);
    return p->dst != NULL;
}

/* ---- micro-kernel -------------------------------------------------------------------------- */

/* t[MR][NR] = A panel @ B panel over kp pairs. */
static inline void micro(int64_t kp, const uint32_t *restrict a, const uint32_t *restrict b,
                         float *restrict t) {
    __m512 c[BF_MR][2];
    for (int r = 0; r < BF_MR; r++)
        c[r][0] = c[r][1] = _mm512_setzero_ps();
    for (int64_t x = 0; x < kp; x++) {
        __m512bh b0 = (__m512bh)_mm512_loadu_si512(b);
        __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + 16);
        for (int r = 0; r < BF_MR; r++) {
            __m512bh av = (__m512bh)_mm512_set1_epi32((int)a[r]);
            c[r][0] = _mm512_dpbf16_ps(c[r][0], av, b0);
            c[r][1] = _mm512_dpbf16_ps(c[r][1], av, b1);
        }
        a += BF_MR;
        b += BF_NR;
    }
    for (int r = 0; r < BF_MR; r++) {
        _mm512_storeu_ps(t + r * BF_NR, c[r][0]);
        _mm512_storeu_ps(t + r * BF_NR + 16, c[r][1]);
    }
}

/* C[i0 + r, j0 + x] = round(alpha * t + beta * C) for the valid part of a tile. */
static void store_tile(const bf_job *j, const float *t, int64_t bi, int64_t i0, int64_t j0) {
    const ct_gemm_args *g = j->g;
    int64_t mr = g->m - i0 < BF_MR ? g->m - i0 : BF_MR;
    int64_t nr = g->n - j0 < BF_NR ? g->n - j0 : BF_NR;
    float alpha = j->alpha, beta = j->beta;
    bool beta_zero = g->beta_zero;
    for (int64_t r = 0; r < mr; r++) {
        uint16_t *c = (uint16_t *)g->c + bi * g->c_s[0] + (i0 + r) * g->c_s[1] + j0 * g->c_s[2];
        const float *tr = t + r * BF_NR;
        if (g->c_s[2] == 1) { /* vectorised: the codecs are branch-free */
            if (beta_zero)
                for (int64_t x = 0; x < nr; x++)
                    c[x] = ct_cvt_f32_to_bf16(alpha * tr[x]);
            else
                for (int64_t x = 0; x < nr; x++)
                    c[x] = ct_cvt_f32_to_bf16(alpha * tr[x] + beta * ct_cvt_bf16_to_f32(c[x]));
        } else {
            int64_t cs = g->c_s[2];
            for (int64_t x = 0; x < nr; x++) {
                float v = alpha * tr[x];
                if (!beta_zero)
                    v += beta * ct_cvt_bf16_to_f32(c[x * cs]);
                c[x * cs] = ct_cvt_f32_to_bf16(v);
            }
        }
    }
}

/* Panel q of operand o (0: A, 1: B), packed: its place in the shared buffer once its ready
 * flag is set; else (another thread is packing it) a copy packed into *scratch, allocated
 * on first use. Without memory for that, it waits for the flag instead. */
static const uint32_t *panel(bf_job *j, int o, int64_t q, uint32_t **scratch) {
    const bf_pack *p = &j->op[o];
    const uint32_t *shared = p->dst + q * p->kp * p->r;
    atomic_uchar *flag = &j->ready[o == 1 ? q : j->op[1].total + q];
    if (atomic_load_explicit(flag, memory_order_acquire))
        return shared;
    if (*scratch == NULL)
        *scratch = ct_alloc((size_t)(j->kp > 0 ? j->kp : 1) * (BF_MR + BF_NR) * sizeof(uint32_t),
                            64);
    if (*scratch == NULL) {
        while (!atomic_load_explicit(flag, memory_order_acquire))
            _mm_pause();
        return shared;
    }
    uint32_t *d = *scratch + (o == 1 ? 0 : (j->kp > 0 ? j->kp : 1) * BF_NR);
    pack_panel(p, q, d);
    return d;
}

/* Each worker packs panels until none is left to take, then takes blocks of C until none is
 * left: index = (batch * mblocks + row block) * nblocks + column block. Both taken one at a
 * time rather than in static chunks, so a thread the OS delays (a shared machine) does not
 * leave the others waiting at the end. */
static void blocks(void *ctx, int64_t lo, int64_t hi) {
    (void)lo;
    (void)hi;
    bf_job *j = ctx;
    const ct_gemm_args *g = j->g;
    int64_t kp = j->kp;
    int64_t btotal = j->op[1].total, ptotal = btotal + j->op[0].total;
    for (;;) {
        int64_t q = (int64_t)atomic_fetch_add_explicit(&j->next_pack, 1, memory_order_relaxed);
        if (q >= ptotal)
            break;
        const bf_pack *p = q < btotal ? &j->op[1] : &j->op[0];
        int64_t pq = q < btotal ? q : q - btotal;
        pack_panel(p, pq, p->dst + pq * p->kp * p->r);
        atomic_store_explicit(&j->ready[q], 1, memory_order_release);
    }
    uint32_t *scratch = NULL;
    float t[BF_MR * BF_NR] __attribute__((aligned(64)));
    for (;;) {
        int64_t q = (int64_t)atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (q >= j->total)
            break;
        int64_t nb = q % j->nblocks, rest = q / j->nblocks;
        int64_t mb = rest % j->mblocks, bi = rest / j->mblocks;
        int64_t i_lo = mb * j->mc, i_hi = i_lo + j->mc < g->m ? i_lo + j->mc : g->m;
        int64_t j_lo = nb * BF_NC, j_hi = j_lo + BF_NC < g->n ? j_lo + BF_NC : g->n;
        for (int64_t j0 = j_lo; j0 < j_hi; j0 += BF_NR) {
            const uint32_t *bp = panel(j, 1, bi * j->pn + j0 / BF_NR, &scratch);
            for (int64_t i0 = i_lo; i0 < i_hi; i0 += BF_MR) {
                const uint32_t *ap = panel(j, 0, bi * j->pm + i0 / BF_MR, &scratch);
                micro(kp, ap, bp, t);
                store_tile(j, t, bi, i0, j0);
            }
        }
    }
    if (scratch != NULL)
        ct_free(scratch, (size_t)(kp > 0 ? kp : 1) * (BF_MR + BF_NR) * sizeof(uint32_t), 64);
}

ct_status ct_gemm_bf16_run(const ct_gemm_args *g) {
    bf_job j = {.g = g, .kp = (g->k + 1) / 2, .alpha = (float)g->alpha_re,
                .beta = (float)g->beta_re};
    /* A: rows m (stride a_s[1]), k stride a_s[2]; B: rows n (stride b_s[2]), k stride b_s[1] */
    bf_pack p[2];
    if (!pack_init(&p[0], g, g->a, g->m, g->a_s[0], g->a_s[1], g->a_s[2], BF_MR))
        return CT_ERR_NOMEM;
    if (!pack_init(&p[1], g, g->b, g->n, g->b_s[0], g->b_s[2], g->b_s[1], BF_NR)) {
        ct_free(p[0].dst, p[0].bytes ? p[0].bytes : 1, 64);
        return CT_ERR_NOMEM;
    }
    int64_t panels = p[0].total + p[1].total;
    j.ready = ct_alloc((size_t)(panels > 0 ? panels : 1) * sizeof *j.ready, 64);
    if (j.ready == NULL) {
        ct_free(p[0].dst, p[0].bytes ? p[0].bytes : 1, 64);
        ct_free(p[1].dst, p[1].bytes ? p[1].bytes : 1, 64);
        return CT_ERR_NOMEM;
    }
    for (int64_t q = 0; q < panels; q++)
        atomic_init(&j.ready[q], 0);
    atomic_init(&j.next_pack, 0);
    j.op = p;
    j.pa = p[0].dst;
    j.pb = p[1].dst;
    j.pm = p[0].panels;
    j.pn = p[1].panels;
    /* a block's A panels (mc x k bf16) within ~256 KiB of L2 */
    int64_t mc = ((int64_t)256 * 1024 / (4 * (j.kp > 0 ? j.kp : 1))) / BF_MR * BF_MR;
    mc = mc < BF_MR ? BF_MR : mc > 8 * BF_MR ? 8 * BF_MR : mc;
    j.mc = mc;
    j.mblocks = (g->m + mc - 1) / mc;
    j.nblocks = (g->n + BF_NC - 1) / BF_NC;
    j.total = g->batch * j.mblocks * j.nblocks;
    atomic_init(&j.next, 0);
    int64_t work = j.total * mc * BF_NC * (j.kp > 0 ? j.kp : 1);
    ct_parallel_for(0, bf_workers(j.total, work), 1, blocks, &j);
    ct_free(j.ready, (size_t)(panels > 0 ? panels : 1) * sizeof *j.ready, 64);
    ct_free(p[0].dst, p[0].bytes ? p[0].bytes : 1, 64);
    ct_free(p[1].dst, p[1].bytes ? p[1].bytes : 1, 64);
    return CT_OK;
}

#else /* no AVX512-BF16 in this build: ct_gemm_bf16_usable() is false */

#include "base/error_impl.h"

ct_status ct_gemm_bf16_run(const ct_gemm_args *g) {
    (void)g;
    return ct_set_error(CT_ERR_MISUSE, "ct_gemm_bf16_run: not in this build");
}

#endif
