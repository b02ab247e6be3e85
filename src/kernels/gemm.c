/* Batched matrix products on host memory: out[b] = beta * out[b] + alpha * (a[b] @ b[b])
 * (include/ctensor/linalg.h; the ops in src/ops/linalg.c check shapes and dtypes first).
 *
 * Note [gemm kernels]
 * float32/float64/complex go to OpenBLAS's cblas. A matrix operand whose inner stride is 1
 * is passed as is, one whose row stride is 1 as the transpose (a .t() view costs nothing);
 * only an operand with neither stride unit is copied. float16/bfloat16 are converted to
 * float32 once, multiplied by sgemm (float32 accumulation) and rounded once. Integers use
 * our own register-blocked kernels (gemm_int.c, Note [integer gemm]). OpenBLAS's thread count
 * follows ct_get_num_threads(); inside our own parallel loop OpenBLAS (OpenMP build) runs
 * serially.
 * bfloat16 on a CPU with AVX512-BF16 (at the avx512 ISA level) has its own kernel instead
 * (gemm_bf16.c, Note [bf16 gemm]); CT_CPU_ISA=avx2 forces the sgemm path.
 */
#include <cblas.h>
#if defined(CT_HAVE_GEMM_BF16)
#include <cpuid.h>
#endif
#include <complex.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "base/parallel.h"
#include "ctensor/convert.h"
#include "ctensor/cpu.h"
#include "ctensor/parallel.h"
#include "kernels/gemm.h"
#include "kernels/gemm_bf16.h"
#include "kernels/gemm_int.h"
#include "tensor/tensor_impl.h"

static atomic_int blas_threads;

/* Keep OpenBLAS's pool at ctensor's thread setting (checked per call: cheap). */
static void sync_threads(void) {
    int n = ct_get_num_threads();
    if (atomic_exchange_explicit(&blas_threads, n, memory_order_relaxed) != n)
        openblas_set_num_threads(n);
}

/* ---- BLAS types ---------------------------------------------------------------------------- */

/* An operand's transpose flag and leading dimension, if its strides allow a direct call. */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                        enum CBLAS_TRANSPOSE *tr, int64_t *ld) {
    if (cs == 1 && (rs >= (cols > 1 ? cols : 1) || rows <= 1)) {
        *tr = CblasNoTrans;
        *ld = rows <= 1 ? (cols > 1 ? cols : 1) : rs;
        return true;
    }
    if (rs == 1 && (cs >= (rows > 1 ? rows : 1) || cols <= 1)) {
        *tr = CblasTrans;
        *ld = cols <= 1 ? (rows > 1 ? rows : 1) : cs;
        return true;
    }
    return false;
}

typedef struct gemm_job {
    const ct_gemm_args *g;
    char *pa, *pb, *pc;
    int64_t a_bs, a_rs, a_cs, b_bs, b_rs, b_cs, c_bs, c_rs;
    enum CBLAS_TRANSPOSE ta, tb;
    int64_t lda, ldb;
} gemm_job;

static void blas_one(const gemm_job *j, int64_t i) {
    const ct_gemm_args *g = j->g;
    size_t isz = g->itemsize;
    const char *a = j->pa + (size_t)(i * j->a_bs) * isz, *b = j->pb + (size_t)(i * j->b_bs) * isz;
    char *c = j->pc + (size_t)(i * j->c_bs) * isz;
    blasint M = (blasint)g->m, N = (blasint)g->n, K = (blasint)g->k;
    blasint lda = (blasint)j->lda, ldb = (blasint)j->ldb, ldc = (blasint)j->c_rs;
    switch (g->dtype) {
    case CT_FLOAT32:
        cblas_sgemm(CblasRowMajor, j->ta, j->tb, M, N, K, (float)g->alpha_re, (const float *)a,
                    lda, (const float *)b, ldb, (float)g->beta_re, (float *)c, ldc);
        break;
    case CT_FLOAT64:
        cblas_dgemm(CblasRowMajor, j->ta, j->tb, M, N, K, g->alpha_re, (const double *)a, lda,
                    (const double *)b, ldb, g->beta_re, (double *)c, ldc);
        break;
    case CT_COMPLEX64: {
        float al[2] = {(float)g->alpha_re, (float)g->alpha_im};
        float be[2] = {(float)g->beta_re, (float)g->beta_im};
        cblas_cgemm(CblasRowMajor, j->ta, j->tb, M, N, K, al, a, lda, b, ldb, be, c, ldc);
        break;
    }
    default: {
        double al[2] = {g->alpha_re, g->alpha_im}, be[2] = {g->beta_re, g->beta_im};
        cblas_zgemm(CblasRowMajor, j->ta, j->tb, M, N, K, al, a, lda, b, ldb, be, c, ldc);
        break;
    }
    }
}

static void blas_batches(void *ctx, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++)
        blas_one(ctx, i);
}

char *ct_gemm_pack_rows(const char *src, int64_t batch, int64_t rows, int64_t cols, int64_t bs,
                        int64_t rs, int64_t cs, size_t isz, size_t *bytes) {
    *bytes = (size_t)(batch * rows * cols) * isz;
    char *p = ct_alloc(*bytes ? *bytes : 1, 64);
    if (p == NULL)
        return NULL;
    char *d = p;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t r = 0; r < rows; r++) {
            const char *s = src + (size_t)(b * bs + r * rs) * isz;
            if (cs == 1) { /* a contiguous row */
                memcpy(d, s, (size_t)cols * isz);
                d += (size_t)cols * isz;
                continue;
            }
            for (int64_t c = 0; c < cols; c++, d += isz)
                memcpy(d, s + (size_t)(c * cs) * isz, isz);
        }
    return p;
}

static ct_status gemm_blas(const ct_gemm_args *g) {
    size_t isz = g->itemsize, abytes = 0, bbytes = 0;
    gemm_job j = {
        .g = g, .pa = (char *)g->a, .pb = (char *)g->b, .pc = g->c,
        .a_bs = g->a_s[0], .a_rs = g->a_s[1], .a_cs = g->a_s[2],
        .b_bs = g->b_s[0], .b_rs = g->b_s[1], .b_cs = g->b_s[2],
        .c_bs = g->c_s[0], .c_rs = g->c_s[1],
    };
    char *ca = NULL, *cb = NULL;
    if (!blas_layout(g->m, g->k, j.a_rs, j.a_cs, &j.ta, &j.lda)) {
        if ((ca = ct_gemm_pack_rows(g->a, g->batch, g->m, g->k, j.a_bs, j.a_rs, j.a_cs, isz,
                                    &abytes)) == NULL)
            return CT_ERR_NOMEM;
        j = (gemm_job){.g = g, .pa = ca, .pb = j.pb, .pc = j.pc, .a_bs = g->m * g->k,
                       .b_bs = j.b_bs, .b_rs = j.b_rs, .b_cs = j.b_cs, .c_bs = j.c_bs,
                       .c_rs = j.c_rs, .ta = CblasNoTrans, .lda = g->k > 1 ? g->k : 1};
    }
    if (!blas_layout(g->k, g->n, j.b_rs, j.b_cs, &j.tb, &j.ldb)) {
        if ((cb = ct_gemm_pack_rows(g->b, g->batch, g->k, g->n, j.b_bs, j.b_rs, j.b_cs, isz,
                                    &bbytes)) == NULL) {
            ct_free(ca, abytes ? abytes : 1, 64);
            return CT_ERR_NOMEM;
        }
        j.pb = cb;
        j.b_bs = g->k * g->n;
        j.tb = CblasNoTrans;
        j.ldb = g->n > 1 ? g->n : 1;
    }
    sync_threads();
    /* Many small products, or enough products to keep every thread busy: whole products per
     * thread (OpenBLAS serial inside our region), one parallel region for the batch. A few
     * large ones: OpenBLAS threads each product. Threading each of 64 mid-size products
     * costs a team start and a barrier per product, which on a shared machine waits for
     * whichever thread the OS paused (bmm 64 x 256 x 256 ran 4x slower on 2 threads than on
     * 1). Same results either way: OpenBLAS splits m and n between threads, never k. */
    int64_t work = g->m * g->n * g->k;
    if (g->batch > 1 &&
        (work < ((int64_t)1 << 21) || g->batch >= 4 * (int64_t)ct_get_num_threads()))
        ct_parallel_for(0, g->batch, 1, blas_batches, &j);
    else
        blas_batches(&j, 0, g->batch);
    ct_free(ca, abytes ? abytes : 1, 64);
    ct_free(cb, bbytes ? bbytes : 1, 64);
    return CT_OK;
}

/* ---- float16 / bfloat16 ---------------------------------------------------------------------- */

/* n elements from src (element stride ss) to dst (stride ds), converted: one call for a
 * contiguous row (a per-element call costs more than the conversion itself; the row was
 * converted element by element whenever C's batch stride was not m * n, a plain 2-D matmul
 * included, which took a third of a float16 1024 x 1024 product). */
static void half_row(ct_dtype dt, void *dst, int64_t ds, ct_dtype st, const void *src,
                     int64_t ss, int64_t n) {
    size_t dsz = ct_dtype_itemsize(dt), ssz = ct_dtype_itemsize(st);
    if (ds == 1 && ss == 1) {
        (void)ct_convert(dt, dst, st, src, (size_t)n); /* cannot fail: the dtypes are known */
        return;
    }
    for (int64_t x = 0; x < n; x++)
        (void)ct_convert(dt, (char *)dst + (size_t)(x * ds) * dsz, st,
                         (const char *)src + (size_t)(x * ss) * ssz, 1);
}

static ct_status gemm_half(const ct_gemm_args *g) {
    size_t isz = g->itemsize, abytes = 0, bbytes = 0;
    int64_t an = g->batch * g->m * g->k, bn = g->batch * g->k * g->n, cn = g->batch * g->m * g->n;
    char *ha = ct_gemm_pack_rows(g->a, g->batch, g->m, g->k, g->a_s[0], g->a_s[1], g->a_s[2],
                                 isz, &abytes);
    char *hb = ha ? ct_gemm_pack_rows(g->b, g->batch, g->k, g->n, g->b_s[0], g->b_s[1],
                                      g->b_s[2], isz, &bbytes)
                  : NULL;
    size_t fbytes = (size_t)(an + bn + cn) * 4;
    float *f = hb ? ct_alloc(fbytes ? fbytes : 1, 64) : NULL;
    ct_status st = CT_OK;
    if (f == NULL) {
        st = CT_ERR_NOMEM;
        goto done;
    }
    float *fa = f, *fb = f + an, *fc = f + an + bn;
    (void)ct_convert(CT_FLOAT32, fa, g->dtype, ha, (size_t)an);
    (void)ct_convert(CT_FLOAT32, fb, g->dtype, hb, (size_t)bn);
    if (!g->beta_zero) /* out's values, read once in float32 */
        for (int64_t b = 0; b < g->batch; b++)
            for (int64_t i = 0; i < g->m; i++)
                half_row(CT_FLOAT32, fc + (b * g->m + i) * g->n, 1, g->dtype,
                         g->c + (size_t)(b * g->c_s[0] + i * g->c_s[1]) * isz, g->c_s[2], g->n);
    ct_gemm_args f32 = *g;
    f32.dtype = CT_FLOAT32;
    f32.itemsize = 4;
    f32.a = (const char *)fa;
    f32.b = (const char *)fb;
    f32.c = (char *)fc;
    int64_t as[3] = {g->m * g->k, g->k, 1}, bs[3] = {g->k * g->n, g->n, 1},
            cs[3] = {g->m * g->n, g->n, 1};
    memcpy(f32.a_s, as, sizeof as);
    memcpy(f32.b_s, bs, sizeof bs);
    memcpy(f32.c_s, cs, sizeof cs);
    if (f32.n < 1) /* ldc must be >= 1 */
        f32.c_s[1] = 1;
    st = gemm_blas(&f32);
    if (st == CT_OK)
        for (int64_t b = 0; b < g->batch; b++)
            for (int64_t i = 0; i < g->m; i++)
                half_row(g->dtype, g->c + (size_t)(b * g->c_s[0] + i * g->c_s[1]) * isz,
                         g->c_s[2], CT_FLOAT32, fc + (b * g->m + i) * g->n, 1, g->n);
done:
    if (f)
        ct_free(f, fbytes ? fbytes : 1, 64);
    if (hb)
        ct_free(hb, bbytes ? bbytes : 1, 64);
    if (ha)
        ct_free(ha, abytes ? abytes : 1, 64);
    return st;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

/* Here, not in gemm_bf16.c: that file is compiled for AVX-512 and must not run before this
 * check. CPUID leaf 7 subleaf 1, EAX bit 5: AVX512_BF16 (OS support for zmm state is part
 * of the avx512 level's check). */
bool ct_gemm_bf16_usable(void) {
#if defined(CT_HAVE_GEMM_BF16)
    static atomic_int has = -1;
    int h = atomic_load_explicit(&has, memory_order_relaxed);
    if (h < 0) {
        unsigned a = 0, b, c, d;
        h = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)) != 0;
        atomic_store_explicit(&has, h, memory_order_relaxed);
    }
    return h && ct_cpu_isa_active() == CT_ISA_AVX512;
#else
    return false;
#endif
}

ct_status ct_gemm_run(const ct_gemm_args *g) {
    if (g->batch == 0 || g->m == 0 || g->n == 0)
        return CT_OK;
    switch (g->dtype) {
    case CT_FLOAT32:
    case CT_FLOAT64:
    case CT_COMPLEX64:
    case CT_COMPLEX128:
        /* BLAS wants ldc >= max(1, n) and a unit inner stride for C */
        if (g->c_s[2] != 1 || g->c_s[1] < (g->n > 1 ? g->n : 1))
            return ct_set_error(CT_ERR_MISUSE, "ct_gemm_run: output layout");
        return gemm_blas(g);
    case CT_BFLOAT16:
        if (ct_gemm_bf16_usable())
            return ct_gemm_bf16_run(g);
        return gemm_half(g);
    case CT_FLOAT16:
        return gemm_half(g);
    default:
        return ct_gemm_int_run(g);
    }
}
