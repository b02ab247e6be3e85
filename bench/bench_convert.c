/* Throughput of ct_convert for the hot conversions (bench/README.md).
 *
 * Usage: bench_convert [--n N] [--reps R] [--isa active|all|baseline|avx2|avx512]
 * Prints one line per (conversion, ISA level), then a memcpy of the float32 array as yardstick:
 *   RESULT <conversion> <isa> <n> <best ms> <GB/s>
 *   REFERENCE memcpy <n> <best ms> <GB/s>
 * GB/s counts the bytes read plus the bytes written (n * (source + destination size)),
 * divided by the best of R timed runs. The destination is written once before timing, so
 * page faults are not part of the measurement. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "ctensor/ctensor.h"

typedef struct bench_case {
    const char *name;
    ct_dtype src, dst;
} bench_case;

static const bench_case cases[] = {
    {"float32->float16", CT_FLOAT32, CT_FLOAT16},
    {"float32->bfloat16", CT_FLOAT32, CT_BFLOAT16},
    {"float32->float8_e4m3fn", CT_FLOAT32, CT_FLOAT8_E4M3FN},
    {"int32->float32", CT_INT32, CT_FLOAT32},
};

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) { return xorshift_next(&rng_state); }

/* Normal-ish floats in about [-4, 4] (sum of uniforms), like torch.randn; a mix of exponents
 * and signs so no branch predictor or value shortcut helps. */
static void fill_source(ct_dtype dtype, void *buf, size_t n) {
    if (dtype == CT_FLOAT32) {
        float *f = buf;
        for (size_t i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += (double)(next_random() >> 11) * 0x1p-53;
            f[i] = (float)((s - 2.0) * 1.7320508);
        }
    } else {
        int32_t *v = buf;
        for (size_t i = 0; i < n; i++)
            v[i] = (int32_t)(uint32_t)next_random();
    }
}

static int run_case(const bench_case *c, ct_cpu_isa isa, size_t n, int reps) {
    size_t in_size = ct_dtype_itemsize(c->src), out_size = ct_dtype_itemsize(c->dst);
    void *src = aligned_alloc(64, (n * in_size + 63) / 64 * 64);
    void *dst = aligned_alloc(64, (n * out_size + 63) / 64 * 64);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "bench_convert: out of memory\n");
        return 1;
    }
    fill_source(c->src, src, n);
    memset(dst, 0, n * out_size);
    if (ct_cpu_set_isa(isa) != CT_OK) {
        fprintf(stderr, "bench_convert: %s\n", ct_last_error());
        return 1;
    }
    double best = 1e30;
    for (int r = 0; r <= reps; r++) { /* run 0 warms caches and TLB, not counted */
        double t0 = now_seconds();
        ct_status st = ct_convert(c->dst, dst, c->src, src, n);
        double t = now_seconds() - t0;
        if (st != CT_OK) {
            fprintf(stderr, "bench_convert: %s\n", ct_last_error());
            return 1;
        }
        if (r > 0 && t < best)
            best = t;
    }
    double bytes = (double)n * (double)(in_size + out_size);
    printf("RESULT %s %s %zu %.3f %.2f\n", c->name, ct_cpu_isa_name(isa), n, best * 1e3,
           bytes / best * 1e-9);
    fflush(stdout);
    free(src);
    free(dst);
    return 0;
}

/* The yardstick: memcpy of the float32 array (40 MB at the default n), read + write. */
static int run_memcpy(size_t n, int reps) {
    size_t bytes = n * sizeof(float);
    void *src = aligned_alloc(64, (bytes + 63) / 64 * 64);
    void *dst = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "bench_convert: out of memory\n");
        return 1;
    }
    fill_source(CT_FLOAT32, src, n);
    memset(dst, 0, bytes);
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
        double t0 = now_seconds();
        memcpy(dst, src, bytes);
        double t = now_seconds() - t0;
        if (r > 0 && t < best)
            best = t;
    }
    printf("REFERENCE memcpy %zu %.3f %.2f\n", n, best * 1e3, 2.0 * (double)bytes / best * 1e-9);
    free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv) {
    size_t n = 10000000;
    int reps = 10;
    const char *isa_arg = "active";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            n = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
            isa_arg = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: %s [--n N] [--reps R] [--isa active|all|baseline|avx2|avx512]\n",
                    argv[0]);
            return 2;
        }
    }
    if (n == 0 || reps < 1) {
        fprintf(stderr, "bench_convert: --n and --reps must be positive\n");
        return 2;
    }
    ct_cpu_isa levels[CT_NUM_ISAS];
    int count = 0;
    if (strcmp(isa_arg, "active") == 0) {
        levels[count++] = ct_cpu_isa_active();
    } else if (strcmp(isa_arg, "all") == 0) {
        for (int l = 0; l <= (int)ct_cpu_isa_detected(); l++)
            levels[count++] = (ct_cpu_isa)l;
    } else {
        for (int l = 0; l < CT_NUM_ISAS; l++) {
            if (strcmp(isa_arg, ct_cpu_isa_name((ct_cpu_isa)l)) == 0)
                levels[count++] = (ct_cpu_isa)l;
        }
        if (count == 0) {
            fprintf(stderr, "bench_convert: unknown ISA level '%s'\n", isa_arg);
            return 2;
        }
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int l = 0; l < count; l++) {
            if (run_case(&cases[c], levels[l], n, reps) != 0)
                return 1;
        }
    }
    return run_memcpy(n, reps);
}
