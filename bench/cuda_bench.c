/* The CUDA backend's speed against the bare CUDA runtime (README.md, "GPU"; run by
 * scripts/gpu-check.sh on a GPU machine).
 *
 * Cases: float32 add of 10^8 elements, float16 + float32 and int32 + float32 (float32 out),
 * contiguous + channels_last float32 (10, 64, 125, 125), each in GB/s counting bytes read
 * plus written and as a fraction of a device-to-device copy of as many bytes measured in the
 * same run; a one-element add's host time per call (target: at most 5 us); pinned 256 MB
 * host->device and device->host copies through ct_cuda_copy_async against a bare
 * cudaMemcpyAsync on the same stream. Times are CUDA event times (host wall clock for the
 * one-element add), the median of CT_BENCH_REPS (default 15) after two warm-ups.
 * The float32 sum of the 10^8 elements (into a 0-dim cuda tensor), in GB/s of the input
 * read, against the same copy.
 *
 * Prints `RESULT <case> <ctensor ms> <GB/s> <reference ms> <reference GB/s> <ratio>` lines,
 * then a table. Exit status 77 without a usable cuda device, 1 on an error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (bench_util.h) under -std=c11 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_util.h"
#include "ctensor/ctensor.h"
#include "ctensor/cuda.h"

#define CHECK(expr)                                                                          \
    do {                                                                                     \
        if ((expr) != CT_OK) {                                                               \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,             \
                    ct_last_error());                                                        \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define CUDA_CHECK(expr)                                                                     \
    do {                                                                                     \
        cudaError_t e_ = (expr);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,             \
                    cudaGetErrorString(e_));                                                 \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static int reps = 15;
static const ct_device cuda0 = {.type = CT_DEVICE_CUDA, .index = 0};
static const ct_device cpu = {.type = CT_DEVICE_CPU, .index = -1};

/* one timed thing: run(ctx) issues the work on the current stream */
typedef void (*work_fn)(void *ctx);

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median milliseconds of `reps` runs, each between two events on the current stream */
static double time_events(work_fn run, void *ctx) {
    ct_cuda_event *start, *end;
    CHECK(ct_cuda_event_new(true, &start));
    CHECK(ct_cuda_event_new(true, &end));
    for (int i = 0; i < 2; i++)
        run(ctx);
    CHECK(ct_cuda_synchronize(-1));
    double *ms = malloc(sizeof(double) * (size_t)reps);
    if (ms == NULL)
        exit(1);
    for (int i = 0; i < reps; i++) {
        CHECK(ct_cuda_event_record(start, NULL));
        run(ctx);
        CHECK(ct_cuda_event_record(end, NULL));
        CHECK(ct_cuda_event_synchronize(end));
        float t;
        CHECK(ct_cuda_event_elapsed_ms(start, end, &t));
        ms[i] = t;
    }
    qsort(ms, (size_t)reps, sizeof(double), cmp_double);
    double median = ms[reps / 2];
    free(ms);
    ct_cuda_event_free(start);
    ct_cuda_event_free(end);
    return median;
}

static ct_tensor *filled(const int64_t *sizes, int64_t ndim, ct_dtype dtype, ct_memory_format fmt,
                         double value) {
    ct_tensor *t;
    CHECK(ct_tensor_empty(sizes, ndim, dtype, &cuda0, CT_LAYOUT_STRIDED, fmt, &t));
    CHECK(ct_tensor_fill_(t, ct_scalar_float(value)));
    return t;
}

/* ---- the work ----------------------------------------------------------------------------- */

typedef struct {
    ct_tensor *a, *b, *out;
} binary_ctx;

static void run_add(void *p) {
    binary_ctx *c = p;
    CHECK(ct_add_out(c->a, c->b, ct_scalar_int(1), c->out));
}

typedef struct {
    ct_tensor *in, *out;
} sum_ctx;

static void run_sum(void *p) {
    sum_ctx *c = p;
    CHECK(ct_reduce_out(CT_REDUCE_SUM, c->in, NULL, 0, false, CT_DTYPE_UNDEFINED, c->out));
}

typedef struct {
    ct_tensor *dst, *src;
} copy_ctx;

static void run_tensor_copy(void *p) {
    copy_ctx *c = p;
    CHECK(ct_tensor_copy_(c->dst, c->src));
}

static void run_async_copy(void *p) {
    copy_ctx *c = p;
    CHECK(ct_cuda_copy_async(c->dst, c->src));
}

typedef struct {
    void *dst;
    const void *src;
    size_t nbytes;
    enum cudaMemcpyKind kind;
    cudaStream_t stream;
} raw_copy_ctx;

static void run_raw_copy(void *p) {
    raw_copy_ctx *c = p;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->nbytes, c->kind, c->stream));
}

/* ---- reporting -------------------------------------------------------------------------- */

#define MAX_ROWS 16
typedef struct {
    const char *name;
    double ms, gbs, ref_ms, ref_gbs;
    const char *ref_name;
} row;
static row rows[MAX_ROWS];
static int nrows;

static void report(const char *name, double ms, double bytes, const char *ref_name, double ref_ms,
                   double ref_bytes) {
    row r = {.name = name, .ms = ms, .gbs = bytes / (ms * 1e6), .ref_name = ref_name,
             .ref_ms = ref_ms, .ref_gbs = ref_ms > 0 ? ref_bytes / (ref_ms * 1e6) : 0};
    if (nrows < MAX_ROWS)
        rows[nrows++] = r;
    printf("RESULT %s %.4f %.1f %.4f %.1f %.3f\n", name, ms, r.gbs, ref_ms, r.ref_gbs,
           r.ref_gbs > 0 ? r.gbs / r.ref_gbs : 0.0);
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *env = getenv("CT_BENCH_REPS");
    if (env != NULL && atoi(env) > 0)
        reps = atoi(env);
    int64_t n = 100000000;
    if (argc > 1 && atoll(argv[1]) > 0)
        n = atoll(argv[1]);

    CHECK(ct_cuda_init());
    if (!ct_cuda_is_available()) {
        printf("cuda_bench: no cuda device (ct_cuda_is_available() is false): skipped\n");
        return 77;
    }
    char name[256];
    int32_t major, minor, sms;
    int64_t total;
    CHECK(ct_cuda_get_device_properties(0, name, sizeof name, &major, &minor, &total, &sms));
    printf("device: %s, sm_%d%d, %d SMs, %.1f GiB; n = %lld, median of %d\n", name, major, minor,
           sms, (double)total / (1 << 30), (long long)n, reps);

    /* the yardstick: a device-to-device copy of the float32 array (bytes read + written) */
    ct_tensor *a32 = filled(&n, 1, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 1.5);
    ct_tensor *b32 = filled(&n, 1, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 2.25);
    ct_tensor *o32 = filled(&n, 1, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 0.0);
    copy_ctx cp = {.dst = o32, .src = a32};
    double copy_ms = time_events(run_tensor_copy, &cp);
    double copy_bytes = 8.0 * (double)n;
    ct_cuda_stream *stream;
    CHECK(ct_cuda_current_stream(-1, &stream));
    raw_copy_ctx rawd2d = {.dst = ct_tensor_data_ptr(o32), .src = ct_tensor_data_ptr(a32),
                           .nbytes = 4 * (size_t)n, .kind = cudaMemcpyDeviceToDevice,
                           .stream = (cudaStream_t)ct_cuda_stream_handle(stream)};
    double raw_copy_ms = time_events(run_raw_copy, &rawd2d);
    report("copy_f32_d2d", copy_ms, copy_bytes, "cudaMemcpyAsync", raw_copy_ms, copy_bytes);

    /* element-wise adds against the copy of as many bytes */
    binary_ctx add = {.a = a32, .b = b32, .out = o32};
    double ms = time_events(run_add, &add);
    report("add_f32_f32", ms, 12.0 * (double)n, "d2d copy", copy_ms, copy_bytes);

    ct_tensor *a16 = filled(&n, 1, CT_FLOAT16, CT_MEMFMT_CONTIGUOUS, 1.5);
    add = (binary_ctx){.a = a16, .b = b32, .out = o32};
    ms = time_events(run_add, &add);
    report("add_f16_f32", ms, 10.0 * (double)n, "d2d copy", copy_ms, copy_bytes);
    ct_tensor_release(a16);

    ct_tensor *ai32 = filled(&n, 1, CT_INT32, CT_MEMFMT_CONTIGUOUS, 3);
    add = (binary_ctx){.a = ai32, .b = b32, .out = o32};
    ms = time_events(run_add, &add);
    report("add_i32_f32", ms, 12.0 * (double)n, "d2d copy", copy_ms, copy_bytes);
    ct_tensor_release(ai32);

    /* the float32 sum: bytes read against the copy's read + written */
    ct_tensor *s32 = filled(&n, 0, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 0.0);
    sum_ctx sum = {.in = a32, .out = s32};
    ms = time_events(run_sum, &sum);
    report("sum_f32", ms, 4.0 * (double)n, "d2d copy", copy_ms, copy_bytes);
    ct_tensor_release(s32);
    ct_tensor_release(a32);
    ct_tensor_release(b32);
    ct_tensor_release(o32);

    /* contiguous + channels_last: the output follows the first operand (contiguous) */
    int64_t nchw[4] = {10, 64, 125, 125};
    double ncl = 10.0 * 64 * 125 * 125;
    ct_tensor *c1 = filled(nchw, 4, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 1.0);
    ct_tensor *c2 = filled(nchw, 4, CT_FLOAT32, CT_MEMFMT_CHANNELS_LAST, 2.0);
    ct_tensor *c3 = filled(nchw, 4, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 0.0);
    add = (binary_ctx){.a = c1, .b = c2, .out = c3};
    ms = time_events(run_add, &add);
    cp = (copy_ctx){.dst = c3, .src = c1};
    double copy_cl_ms = time_events(run_tensor_copy, &cp);
    report("add_f32_contig_chlast", ms, 12.0 * ncl, "d2d copy", copy_cl_ms, 8.0 * ncl);
    add = (binary_ctx){.a = c1, .b = c1, .out = c3};
    ms = time_events(run_add, &add);
    report("add_f32_contig_contig", ms, 12.0 * ncl, "d2d copy", copy_cl_ms, 8.0 * ncl);
    ct_tensor_release(c1);
    ct_tensor_release(c2);
    ct_tensor_release(c3);

    /* one-element add: host time per call (the launch path's overhead) */
    int64_t one = 1;
    ct_tensor *e1 = filled(&one, 1, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 1.0);
    ct_tensor *e2 = filled(&one, 1, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 2.0);
    ct_tensor *e3 = filled(&one, 1, CT_FLOAT32, CT_MEMFMT_CONTIGUOUS, 0.0);
    add = (binary_ctx){.a = e1, .b = e2, .out = e3};
    enum { CALLS = 20000 };
    double us[7];
    for (int r = 0; r < 7; r++) {
        CHECK(ct_cuda_synchronize(-1));
        double t0 = now_seconds();
        for (int i = 0; i < CALLS; i++)
            run_add(&add);
        CHECK(ct_cuda_synchronize(-1));
        us[r] = (now_seconds() - t0) * 1e6 / CALLS;
    }
    qsort(us, 7, sizeof(double), cmp_double);
    printf("RESULT add_1elem_us_per_call %.3f target<=5\n", us[3]);
    ct_tensor_release(e1);
    ct_tensor_release(e2);
    ct_tensor_release(e3);

    /* pinned host <-> device, 256 MB each way */
    int64_t nb = 256LL << 20;
    ct_tensor *host, *pinned, *dev;
    CHECK(ct_tensor_empty(&nb, 1, CT_UINT8, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &host));
    CHECK(ct_tensor_fill_(host, ct_scalar_int(7)));
    CHECK(ct_cuda_pin_memory(host, &pinned));
    ct_tensor_release(host);
    if (!ct_cuda_is_pinned(pinned)) {
        fprintf(stderr, "pin_memory gave memory that is not pinned\n");
        return 1;
    }
    CHECK(ct_tensor_empty(&nb, 1, CT_UINT8, &cuda0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &dev));
    cp = (copy_ctx){.dst = dev, .src = pinned};
    ms = time_events(run_async_copy, &cp);
    raw_copy_ctx raw = {.dst = ct_tensor_data_ptr(dev), .src = ct_tensor_data_ptr(pinned),
                        .nbytes = (size_t)nb, .kind = cudaMemcpyHostToDevice,
                        .stream = rawd2d.stream};
    double raw_ms = time_events(run_raw_copy, &raw);
    report("h2d_pinned_256MB", ms, (double)nb, "cudaMemcpyAsync", raw_ms, (double)nb);
    cp = (copy_ctx){.dst = pinned, .src = dev};
    ms = time_events(run_async_copy, &cp);
    raw = (raw_copy_ctx){.dst = ct_tensor_data_ptr(pinned), .src = ct_tensor_data_ptr(dev),
                         .nbytes = (size_t)nb, .kind = cudaMemcpyDeviceToHost,
                         .stream = rawd2d.stream};
    raw_ms = time_events(run_raw_copy, &raw);
    report("d2h_pinned_256MB", ms, (double)nb, "cudaMemcpyAsync", raw_ms, (double)nb);
    ct_tensor_release(dev);
    ct_tensor_release(pinned);

    printf("\n%-24s %11s %9s  %-16s %11s %9s %7s\n", "case", "ctensor ms", "GB/s", "reference",
           "ref ms", "ref GB/s", "ratio");
    for (int i = 0; i < nrows; i++)
        printf("%-24s %11.4f %9.1f  %-16s %11.4f %9.1f %7.3f\n", rows[i].name, rows[i].ms,
               rows[i].gbs, rows[i].ref_name, rows[i].ref_ms, rows[i].ref_gbs,
               rows[i].ref_gbs > 0 ? rows[i].gbs / rows[i].ref_gbs : 0.0);
    printf("%-24s %11.3f us per call (host, target <= 5 us)\n", "add_1elem", us[3]);
    printf("ratio = ctensor GB/s / reference GB/s (1 = as fast as the copy of the same bytes;\n"
           "sum_f32: the input read against the copy's bytes read plus written)\n");
    CHECK(ct_cuda_empty_cache());
    return 0;
}
