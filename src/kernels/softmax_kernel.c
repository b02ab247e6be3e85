/* softmax / log_softmax of contiguous rows on the cpu: the active ISA level's row loop
 * (softmax_loops.c), threads over rows; float16 / bfloat16 rows widened to float32 on the
 * stack, row by row, by the conversion loops. */
#include <stddef.h>

#include "base/parallel.h"
#include "ctensor/cpu.h"
#include "dtype/convert/loops_impl.h"
#include "kernels/softmax.h"

typedef void (*row_f32_fn)(bool log, const float *x, float *o, int64_t n);
typedef void (*row_f64_fn)(bool log, const double *x, double *o, int64_t n);

typedef struct rows_ctx {
    bool log;
    const void *x;
    void *out;
    int64_t n;
    row_f32_fn f32;
    row_f64_fn f64;
    ct_convert_loop_fn widen, narrow; /* half rows: to float32 and back */
} rows_ctx;

enum { HALF_BYTES = 2 }; /* a float16 / bfloat16 element */

static void half_body(void *p, int64_t begin, int64_t end) {
    const rows_ctx *c = p;
    float buf[CT_SOFTMAX_HALF_ROW];
    size_t n = (size_t)c->n;
    for (int64_t r = begin; r < end; r++) {
        c->widen(buf, 4, (const char *)c->x + r * c->n * HALF_BYTES, HALF_BYTES, n);
        c->f32(c->log, buf, buf, c->n);
        c->narrow((char *)c->out + r * c->n * HALF_BYTES, HALF_BYTES, buf, 4, n);
    }
}

static void rows_body(void *p, int64_t begin, int64_t end) {
    const rows_ctx *c = p;
    for (int64_t r = begin; r < end; r++) {
        if (c->f64 != NULL)
            c->f64(c->log, (const double *)c->x + r * c->n, (double *)c->out + r * c->n, c->n);
        else
            c->f32(c->log, (const float *)c->x + r * c->n, (float *)c->out + r * c->n, c->n);
    }
}

static void pick_rows(rows_ctx *c) {
    switch ((int)ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        c->f32 = ct_softmax_impl_row_f32_avx512;
        c->f64 = ct_softmax_impl_row_f64_avx512;
        break;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        c->f32 = ct_softmax_impl_row_f32_avx2;
        c->f64 = ct_softmax_impl_row_f64_avx2;
        break;
#endif
    default:
        c->f32 = ct_softmax_impl_row_f32_baseline;
        c->f64 = ct_softmax_impl_row_f64_baseline;
        break;
    }
}

/* threads take whole rows, about 16K elements each at least */
static int64_t grain_of(int64_t n) { return n >= 16384 ? 1 : 16384 / n; }

void ct_softmax_impl_rows(bool log, bool f64, const void *x, void *out, int64_t rows, int64_t n) {
    if (n < 1 || rows < 1)
        return;
    rows_ctx c = {.log = log, .x = x, .out = out, .n = n};
    pick_rows(&c);
    if (!f64)
        c.f64 = NULL;
    ct_parallel_for(0, rows, grain_of(n), rows_body, &c);
}

void ct_softmax_impl_rows_half(bool log, ct_dtype dtype, const void *x, void *out, int64_t rows,
                               int64_t n) {
    if (n < 1 || rows < 1 || n > CT_SOFTMAX_HALF_ROW)
        return;
    const ct_convert_loop_table *loops = ct_convert_impl_active_loops();
    rows_ctx c = {.log = log, .x = x, .out = out, .n = n,
                  .widen = (*loops)[CT_FLOAT32][dtype], .narrow = (*loops)[dtype][CT_FLOAT32]};
    pick_rows(&c);
    ct_parallel_for(0, rows, grain_of(n), half_body, &c);
}
