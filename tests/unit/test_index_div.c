/* The GPU kernels' division by an invariant divisor (src/cuda/index_div.h) against C's '/',
 * on the host: the same code the kernels run, with the multiply-high spelt in 64-bit C.
 * Divisors: every one below 2^12, every power of two and its neighbours, and a fixed-seed
 * sample of the rest up to 2^31; dividends: the edges (0, d - 1, d, d + 1, multiples of d
 * around 2^31) and a fixed-seed sample below 2^31. No GPU needed. */
#include <stdint.h>

#include "cmocka_all.h"
#include "cuda/index_div.h"

#define DIV_LIMIT ((uint32_t)1 << 31) /* dividends below, divisors up to */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* splitmix64: a fixed sequence, so a failure repeats */
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* the number of (d, n) pairs that disagree with '/'; the first one reported */
static long mismatches;

static void check_pair(ct_kdiv v, uint32_t d, uint32_t n) {
    if (n >= DIV_LIMIT)
        return;
    uint32_t got = ct_kdiv_quot(v, n);
    if (got != n / d) {
        if (mismatches == 0)
            print_error("%u / %u: got %u, want %u\n", n, d, got, n / d);
        mismatches++;
    }
}

static void check_divisor(uint32_t d, int samples) {
    ct_kdiv v = ct_kdiv_make(d);
    const uint32_t edges[] = {0, 1, 2, d - 1, d, d + 1, 2 * d - 1, 2 * d, 2 * d + 1,
                              DIV_LIMIT - 1, DIV_LIMIT - 2, DIV_LIMIT - d};
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++)
        check_pair(v, d, edges[k]);
    /* the multiples of d just below 2^31, where the rounding of m matters most */
    uint32_t top = (DIV_LIMIT - 1) / d * d;
    check_pair(v, d, top);
    check_pair(v, d, top - 1);
    check_pair(v, d, top + (d - 1 < DIV_LIMIT - 1 - top ? d - 1 : DIV_LIMIT - 1 - top));
    for (int k = 0; k < samples; k++)
        check_pair(v, d, (uint32_t)(next_random() % DIV_LIMIT));
}

static void test_small_divisors(void **state) {
    (void)state;
    mismatches = 0;
    for (uint32_t d = 1; d < 4096; d++)
        check_divisor(d, 256);
    assert_int_equal(mismatches, 0);
}

static void test_powers_of_two_and_neighbours(void **state) {
    (void)state;
    mismatches = 0;
    for (int s = 0; s <= 31; s++) {
        uint32_t p = (uint32_t)1 << s;
        check_divisor(p, 1024);
        if (p > 1)
            check_divisor(p - 1, 1024);
        if (p < DIV_LIMIT)
            check_divisor(p + 1, 1024);
    }
    assert_int_equal(mismatches, 0);
}

static void test_sampled_divisors(void **state) {
    (void)state;
    mismatches = 0;
    for (int k = 0; k < 20000; k++)
        check_divisor((uint32_t)(next_random() % DIV_LIMIT) + 1, 64);
    assert_int_equal(mismatches, 0);
}

/* every dividend below 2^20 for a handful of divisors, including typical tensor sizes */
static void test_every_small_dividend(void **state) {
    (void)state;
    const uint32_t divisors[] = {1, 3, 7, 10, 64, 125, 224, 1000, 3162, 65535, 1u << 20};
    mismatches = 0;
    for (size_t k = 0; k < sizeof divisors / sizeof divisors[0]; k++) {
        ct_kdiv v = ct_kdiv_make(divisors[k]);
        for (uint32_t n = 0; n < (1u << 20); n++)
            check_pair(v, divisors[k], n);
    }
    assert_int_equal(mismatches, 0);
}

/* the magic numbers of a few divisors, worked by hand from the formula in index_div.h */
static void test_known_magic(void **state) {
    (void)state;
    ct_kdiv one = ct_kdiv_make(1), seven = ct_kdiv_make(7), top = ct_kdiv_make(DIV_LIMIT);
    assert_int_equal(one.shift, 0);
    assert_int_equal(one.magic, 1);
    assert_int_equal(seven.shift, 3); /* 2^3 = 8 >= 7 */
    /* floor(2^32 * (8 - 7) / 7) + 1 = 613566756 + 1 */
    assert_int_equal(seven.magic, 613566757u);
    assert_int_equal(top.shift, 31);
    assert_int_equal(top.magic, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_magic),
        cmocka_unit_test(test_small_divisors),
        cmocka_unit_test(test_powers_of_two_and_neighbours),
        cmocka_unit_test(test_sampled_divisors),
        cmocka_unit_test(test_every_small_dividend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
