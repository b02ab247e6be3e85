/* softmax / log_softmax of contiguous rows on the cpu: the active ISA level's row loop
 * (softmax_loops.c), threads over rows. */
#include <stddef.h>

#include "base/parallel.h"
#include "kernels/softmax.h"
#include "ctensor/cpu.h"

typedef void (*row_f32_fn)(bool log, const float *x, float *o, int64_t n);
typedef void (*row_f64_fn)(bool log, const double *x, double *o, int64_t n);

typedef struct rows_ctx {
    bool log;
    const void *x;
    void *out;
    int64_t n;
    row_f32_fn f32;
    row_f64_fn f64;
} rows_ctx;

static void rows_body(void *p, int64_t begin, int64_t end) {
    const rows_ctx *c = p;
    for (int64_t r = begin; r < end; r++) {
        if (c->f64 != NULL)
            c->f64(c->log, (const double *)c->x + r * c->n, (double *)c->out + r * c->n, c->n);
        else
            c->f32(c->log, (const float *)c->x + r * c->n, (float *)c->out + r * c->n, c->n);
    }
}

void ct_softmax_impl_rows(bool log, bool f64, const void *x, void *out, int64_t rows, int64_t n) {
    if (n < 1 || rows < 1)
        return;
    rows_ctx c = {.log = log, .x = x, .out = out, .n = n};
    switch ((int)ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        c.f32 = ct_softmax_impl_row_f32_avx512;
        c.f64 = ct_softmax_impl_row_f64_avx512;
        break;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        c.f32 = ct_softmax_impl_row_f32_avx2;
        c.f64 = ct_softmax_impl_row_f64_avx2;
        break;
#endif
    default:
        c.f32 = ct_softmax_impl_row_f32_baseline;
        c.f64 = ct_softmax_impl_row_f64_baseline;
        break;
    }
    if (!f64)
        c.f64 = NULL;
    /* threads take whole rows, about 16K elements each at least */
    int64_t grain = n >= 16384 ? 1 : 16384 / n;
    ct_parallel_for(0, rows, grain, rows_body, &c);
}
