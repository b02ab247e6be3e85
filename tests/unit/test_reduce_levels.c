/* Reduction kernels (src/kernels/reduce.h) at every ISA level this CPU runs: the block and
 * row kernels of each level give the baseline level's bytes for every (op, type) they
 * support, on random data (NaNs included) and lengths around the lane, run and block sizes;
 * and the float32 sum (CT_REDT_F32D) keeps its error bound where a plain float32 loop does
 * not. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmocka_all.h"
#include "ctensor/cpu.h"
#include "kernels/reduce.h"

typedef struct level {
    const char *name;
    ct_reduce_block_fn block;
    ct_reduce_rows_fn rows;
} level;

/* The levels this build compiled and this CPU runs, baseline first. */
static int levels(level *out) {
    int n = 0;
    out[n++] = (level){.name = "baseline",
                       .block = ct_reduce_impl_block_baseline,
                       .rows = ct_reduce_impl_rows_baseline};
#if defined(CT_HAVE_ISA_AVX2)
    if (ct_cpu_isa_detected() >= CT_ISA_AVX2)
        out[n++] = (level){.name = "avx2",
                           .block = ct_reduce_impl_block_avx2,
                           .rows = ct_reduce_impl_rows_avx2};
#endif
#if defined(CT_HAVE_ISA_AVX512)
    if (ct_cpu_isa_detected() >= CT_ISA_AVX512)
        out[n++] = (level){.name = "avx512",
                           .block = ct_reduce_impl_block_avx512,
                           .rows = ct_reduce_impl_rows_avx512};
#endif
    return n;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
/* uniform in [-1, 1) times 2^e, e in [-4, 4]: sums that round at every step */
static double rnd_real(void) {
    double u = (double)(rnd() >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
    return ldexp(u, (int)(rnd() % 9) - 4);
}

/* n random elements of type t at p; nan_every > 0 puts a NaN at about one in nan_every
 * float elements. */
static void fill(ct_redt t, void *p, int64_t n, int nan_every) {
    for (int64_t i = 0; i < n; i++) {
        int nan = nan_every > 0 && rnd() % (uint64_t)nan_every == 0;
        switch (t) {
        case CT_REDT_F32:
        case CT_REDT_F32D:
            ((float *)p)[i] = nan ? NAN : (float)rnd_real();
            break;
        case CT_REDT_F64:
            ((double *)p)[i] = nan ? NAN : rnd_real();
            break;
        case CT_REDT_C64:
            ((float *)p)[2 * i] = (float)rnd_real();
            ((float *)p)[2 * i + 1] = (float)rnd_real();
            break;
        case CT_REDT_C128:
            ((double *)p)[2 * i] = rnd_real();
            ((double *)p)[2 * i + 1] = rnd_real();
            break;
        case CT_REDT_I64:
            ((int64_t *)p)[i] = (int64_t)rnd(); /* wraps: the bits must still agree */
            break;
        case CT_REDT_I32:
            ((int32_t *)p)[i] = (int32_t)rnd();
            break;
        case CT_REDT_U8:
            ((uint8_t *)p)[i] = (uint8_t)(rnd() % 8 == 0 ? 0 : rnd());
            break;
        default:
            fail();
        }
    }
}

/* Lengths around the lanes (16-64), the float32 sum's runs (512) and a block (4096). */
static const int64_t lengths[] = {0,    1,    7,    31,   32,   33,   63,   64,   65,   100, 255,
                                  511,  512,  513,  1023, 1024, 1025, 2047, 2048, 3001, 4095, 4096};

static void test_block_levels_agree(void **state) {
    (void)state;
    level lv[3];
    int nl = levels(lv);
    void *src = malloc(4096 * 16), *acc0 = malloc(16), *acc = malloc(16);
    assert_non_null(src);
    assert_non_null(acc0);
    assert_non_null(acc);
    int checked = 0;
    for (int op = 0; op < CT_REDK_COUNT; op++)
        for (int t = 0; t < CT_REDT_COUNT; t++) {
            if (!ct_reduce_impl_supported((ct_redk)op, (ct_redt)t))
                continue;
            for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
                for (int nan_every = 0; nan_every <= 500; nan_every += 500) {
                    int64_t n = lengths[li];
                    bool minmax = op == CT_REDK_MAX || op == CT_REDK_MIN;
                    fill((ct_redt)t, src, n, minmax ? nan_every : 0);
                    size_t asz = (size_t)ct_redt_acc_size((ct_redt)t);
                    memset(acc0, 0xA5, 16);
                    lv[0].block((ct_redk)op, (ct_redt)t, src, n, acc0);
                    for (int l = 1; l < nl; l++) {
                        memset(acc, 0x5A, 16);
                        lv[l].block((ct_redk)op, (ct_redt)t, src, n, acc);
                        if (memcmp(acc, acc0, asz) != 0)
                            fail_msg("block op %d type %d n %lld: %s differs from baseline", op,
                                     t, (long long)n, lv[l].name);
                    }
                    checked++;
                }
        }
    assert_true(checked > 0);
    free(src);
    free(acc0);
    free(acc);
}

static void test_rows_levels_agree(void **state) {
    (void)state;
    level lv[3];
    int nl = levels(lv);
    static const int64_t Rs[] = {0, 1, 3, 16, 17, 40};
    static const int64_t ws[] = {1, 7, 33, 100, 512};
    enum { MAXR = 40, MAXW = 512, PAD = 3 };
    void *src = malloc((size_t)MAXR * (MAXW + PAD) * 16);
    void *out0 = malloc(MAXW * 16), *out = malloc(MAXW * 16);
    assert_non_null(src);
    assert_non_null(out0);
    assert_non_null(out);
    for (int op = 0; op < CT_REDK_COUNT; op++)
        for (int t = 0; t < CT_REDT_COUNT; t++) {
            if (!ct_reduce_impl_supported((ct_redk)op, (ct_redt)t))
                continue;
            for (size_t ri = 0; ri < sizeof Rs / sizeof Rs[0]; ri++)
                for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++) {
                    int64_t R = Rs[ri], w = ws[wi], stride = w + PAD;
                    bool minmax = op == CT_REDK_MAX || op == CT_REDK_MIN;
                    fill((ct_redt)t, src, R * stride, minmax ? 50 : 0);
                    size_t bytes = (size_t)w * (size_t)ct_redt_acc_size((ct_redt)t);
                    memset(out0, 0xA5, bytes);
                    lv[0].rows((ct_redk)op, (ct_redt)t, src, R, stride, w, out0);
                    for (int l = 1; l < nl; l++) {
                        memset(out, 0x5A, bytes);
                        lv[l].rows((ct_redk)op, (ct_redt)t, src, R, stride, w, out);
                        if (memcmp(out, out0, bytes) != 0)
                            fail_msg("rows op %d type %d R %lld w %lld: %s differs from baseline",
                                     op, t, (long long)R, (long long)w, lv[l].name);
                    }
                }
        }
    free(src);
    free(out0);
    free(out);
}

/* float32 sums (CT_REDT_F32D): float runs of 16 values per lane, flushed into double lanes.
 * Each value goes through at most 15 float additions, so the error is within
 * 15 * 2^-24 * sum|x| (plus the double part, far smaller) of the exact total, at every level.
 * The data: values of mixed sign and scale whose exact total a long double holds (floats of
 * at most 20 significant bits times 2^-28 .. 2^-9, 4096 of them: below 2^23 with 2^-28
 * steps), and one large value followed by thousands of values below its half ulp, which a
 * float loop in order drops altogether. */
static void check_f32d_bound(const level *lv, int nl, const float *x, int64_t n) {
    long double exact = 0, abs_sum = 0;
    for (int64_t i = 0; i < n; i++) {
        exact += (long double)x[i];
        abs_sum += fabsl((long double)x[i]);
    }
    long double bound = abs_sum * (15.0L / 16777216.0L + 1e-12L);
    for (int l = 0; l < nl; l++) {
        double got = 0;
        lv[l].block(CT_REDK_SUM, CT_REDT_F32D, x, n, &got);
        if (fabsl((long double)got - exact) > bound)
            fail_msg("%s: float32 sum of %lld off by %Lg (bound %Lg)", lv[l].name, (long long)n,
                     fabsl((long double)got - exact), bound);
    }
}

static void test_f32d_accuracy(void **state) {
    (void)state;
    level lv[3];
    int nl = levels(lv);
    enum { N = 4096 };
    float *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < N; i++)
            x[i] = (float)ldexp((double)((int64_t)(rnd() % 2000001) - 1000000),
                                -28 + (int)(rnd() % 20));
        check_f32d_bound(lv, nl, x, N - trial);
    }
    x[0] = 1.0f;
    float naive = x[0];
    for (int i = 1; i < N; i++) {
        x[i] = 0x1p-25f;
        naive += x[i];
    }
    assert_true(naive == 1.0f); /* every small value lost */
    check_f32d_bound(lv, nl, x, N);
    free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_levels_agree),
        cmocka_unit_test(test_rows_levels_agree),
        cmocka_unit_test(test_f32d_accuracy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
