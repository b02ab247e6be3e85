/* Helpers shared by the C benchmarks: a monotonic clock and reproducible random bits. */
#ifndef CT_BENCH_UTIL_H
#define CT_BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

static inline double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* xorshift64: each benchmark seeds its own state so its inputs never change */
static inline uint64_t xorshift_next(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif /* CT_BENCH_UTIL_H */
