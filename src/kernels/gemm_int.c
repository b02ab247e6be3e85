/* Integer matrix products on host memory: Note [integer gemm]. */
#include "kernels/gemm_int.h"

#include <string.h>

#include "base/alloc_impl.h"
#include "base/parallel.h"
#include "ctensor/cpu.h"
#include "ctensor/parallel.h"

/* Note [integer gemm]
 * PyTorch's CPU multiplies integer matrices with a plain loop; ours is register-blocked.
 * B is packed into panels as wide as two of the ISA level's vectors (panel_bytes of each
 * row), zero-padded, k rows each; a micro-kernel (gemm_int_loops.c, one per level) keeps an
 * mr-row x panel block of C in registers across the whole of k (one broadcast of A and two
 * vector multiply-adds per row and k), so C is written once instead of read and written per
 * k. Threads take rows of C; each runs panel by panel over its rows, so one panel
 * (k x panel_bytes) stays in L2 while its rows stream past. A is read in place when its
 * elements along k are adjacent, else copied once. Arithmetic is unsigned: it wraps as
 * PyTorch's integers do, and the sum order does not change a bit. */

static const ct_gemm_int_kernels *kernels(void) {
    switch ((int)ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_gemm_int_kernels_avx2;
#endif
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_gemm_int_kernels_avx512;
#endif
    default:
        return &ct_gemm_int_kernels_baseline;
    }
}

typedef struct int_job {
    const ct_gemm_args *g;
    const ct_gemm_int_kernels *kn;
    ct_gemm_int_micro micro;
    const char *a;      /* A, unit stride along k */
    int64_t a_bs, a_rs; /* its batch and row strides (elements) */
    const char *bp;     /* B in column panels: [batch][panel][k][panel_bytes] */
    int64_t panels;     /* per batch */
} int_job;

/* C[q][x] = beta * C[q][x] + alpha * t[q][x] for the rows and columns of one block. */
#define INT_STORE(U)                                                                               \
    static void store_##U(const ct_gemm_args *g, char *c, int64_t rows, int64_t cols,              \
                          const void *t_, int64_t t_rs) {                                          \
        U alpha = (U)g->alpha_i, beta = (U)g->beta_i;                                              \
        const U *t = t_;                                                                           \
        for (int64_t q = 0; q < rows; q++) {                                                       \
            U *crow = (U *)c + q * g->c_s[1];                                                      \
            const U *tq = t + q * t_rs;                                                            \
            for (int64_t x = 0; x < cols; x++) {                                                   \
                U *cp = crow + x * g->c_s[2];                                                      \
                /* 0u +: unsigned int arithmetic, so narrow types do not promote to int */         \
                *cp = (U)((g->beta_zero ? (U)0 : (U)((0u + beta) * *cp)) + (0u + alpha) * tq[x]);  \
            }                                                                                      \
        }                                                                                          \
    }
INT_STORE(uint8_t)
INT_STORE(uint16_t)
INT_STORE(uint32_t)
INT_STORE(uint64_t)

/* Rows [lo, hi) of all batches (row index = batch * m + i), in groups of up to mr rows of
 * one batch, panel by panel. */
static void int_rows(void *ctx, int64_t lo, int64_t hi) {
    const int_job *j = ctx;
    const ct_gemm_args *g = j->g;
    size_t isz = g->itemsize;
    int64_t m = g->m, n = g->n, k = g->k, mr = j->kn->mr;
    int64_t nr = j->kn->panel_bytes / (int64_t)isz;
    unsigned char t[CT_GEMM_INT_MR_MAX * CT_GEMM_INT_PANEL_MAX] __attribute__((aligned(64)));
    for (int64_t jp = 0; jp < j->panels; jp++) {
        int64_t j0 = jp * nr, nb = n - j0 < nr ? n - j0 : nr;
        for (int64_t r = lo; r < hi;) {
            int64_t bi = r / m, i = r % m;
            int64_t rows = m - i < mr ? m - i : mr;
            if (hi - r < rows)
                rows = hi - r;
            const char *a0 = j->a + (size_t)(bi * j->a_bs + i * j->a_rs) * isz;
            const char *bp = j->bp + (size_t)((bi * j->panels + jp) * k * nr) * isz;
            j->micro(a0, j->a_rs, rows, bp, k, t);
            char *c = g->c + (size_t)(bi * g->c_s[0] + i * g->c_s[1] + j0 * g->c_s[2]) * isz;
            switch (isz) {
            case 1:
                store_uint8_t(g, c, rows, nb, t, nr);
                break;
            case 2:
                store_uint16_t(g, c, rows, nb, t, nr);
                break;
            case 4:
                store_uint32_t(g, c, rows, nb, t, nr);
                break;
            default:
                store_uint64_t(g, c, rows, nb, t, nr);
                break;
            }
            r += rows;
        }
    }
}

/* B ([batch, k, n], any strides) into zero-padded panels of nr columns. */
static char *pack_panels(const ct_gemm_args *g, int64_t nr, int64_t *panels, size_t *bytes) {
    size_t isz = g->itemsize;
    int64_t pn = (g->n + nr - 1) / nr;
    *panels = pn;
    *bytes = (size_t)(g->batch * pn * g->k * nr) * isz;
    char *p = ct_alloc(*bytes ? *bytes : 1, 64);
    if (p == NULL)
        return NULL;
    for (int64_t b = 0; b < g->batch; b++)
        for (int64_t jp = 0; jp < pn; jp++) {
            int64_t j0 = jp * nr, nb = g->n - j0 < nr ? g->n - j0 : nr;
            char *d = p + (size_t)((b * pn + jp) * g->k * nr) * isz;
            for (int64_t q = 0; q < g->k; q++, d += (size_t)nr * isz) {
                const char *s =
                    g->b + (size_t)(b * g->b_s[0] + q * g->b_s[1] + j0 * g->b_s[2]) * isz;
                if (g->b_s[2] == 1)
                    memcpy(d, s, (size_t)nb * isz);
                else
                    for (int64_t x = 0; x < nb; x++)
                        memcpy(d + (size_t)x * isz, s + (size_t)(x * g->b_s[2]) * isz, isz);
                if (nb < nr)
                    memset(d + (size_t)(nb * (int64_t)isz), 0, (size_t)(nr - nb) * isz);
            }
        }
    return p;
}

ct_status ct_gemm_int_run(const ct_gemm_args *g) {
    size_t isz = g->itemsize, abytes = 0, bbytes = 0;
    const ct_gemm_int_kernels *kn = kernels();
    int_job j = {.g = g, .kn = kn, .a = g->a, .a_bs = g->a_s[0], .a_rs = g->a_s[1]};
    j.micro = kn->micro[isz == 1 ? 0 : isz == 2 ? 1 : isz == 4 ? 2 : 3];
    char *ca = NULL;
    if (g->a_s[2] != 1 && g->k > 1) {
        ca = ct_gemm_pack_rows(g->a, g->batch, g->m, g->k, g->a_s[0], g->a_s[1], g->a_s[2], isz,
                               &abytes);
        if (ca == NULL)
            return CT_ERR_NOMEM;
        j = (int_job){
            .g = g, .kn = kn, .micro = j.micro, .a = ca, .a_bs = g->m * g->k, .a_rs = g->k};
    }
    char *cb = pack_panels(g, kn->panel_bytes / (int64_t)isz, &j.panels, &bbytes);
    if (cb == NULL) {
        if (ca)
            ct_free(ca, abytes ? abytes : 1, 64);
        return CT_ERR_NOMEM;
    }
    j.bp = cb;
    int64_t rows = g->batch * g->m;
    int64_t per_row = g->n * g->k > 0 ? g->n * g->k : 1;
    int64_t grain = ((int64_t)1 << 15) / per_row;
    ct_parallel_for(0, rows, grain > 1 ? grain : 1, int_rows, &j);
    if (ca)
        ct_free(ca, abytes ? abytes : 1, 64);
    ct_free(cb, bbytes ? bbytes : 1, 64);
    return CT_OK;
}
