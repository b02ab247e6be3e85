/* The parallel-for of base/parallel.h and the thread setting of ctensor/parallel.h.
 *
 * Note [Parallel for]
 * One OpenMP parallel region per call, with one contiguous chunk per thread: the work is
 * memory-bound and evenly spread, so static chunks beat any scheduling. This is the only
 * file built with the compiler's OpenMP flag; the rest of the library calls in through
 * ct_parallel_for and stays plain C.
 *  - Small ranges never touch the OpenMP runtime: the thread count is cached in an atomic,
 *    and the serial path is a compare, a load and the body call.
 *  - A call from inside an active parallel region (a body that calls back in, or a user's
 *    own OpenMP code) runs on the calling thread: nested teams would oversubscribe cores.
 *  - If the runtime grants fewer threads than asked (OMP_DYNAMIC, OMP_THREAD_LIMIT), each
 *    thread takes every k-th chunk, so every chunk still runs exactly once.
 *  - fork: libgomp's workers do not exist in a child process, and its next parallel region
 *    waits for them forever (GCC bug 60035). A child of a process that has started a team
 *    therefore runs every parallel-for on its calling thread (as PyTorch's workers do).
 *  - Waiting: the library sets no OpenMP policy (a library must not setenv). libgomp's
 *    default lets idle workers spin for a short while (GOMP_SPINCOUNT, 300000 spins; far
 *    fewer when threads outnumber cores) and then sleep, which keeps back-to-back calls
 *    cheap. A program that shares its cores may export OMP_WAIT_POLICY=passive so workers
 *    sleep at once; OMP_WAIT_POLICY=active trades CPU for the lowest latency.
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/error_impl.h"
#include "base/parallel.h"

/* libgomp is not built with ThreadSanitizer, so TSan cannot see a team's start and join
 * and would report every hand-over of work as a race. Under TSan the region says it
 * itself: the caller's writes happen before each chunk, each chunk before the caller goes
 * on. No-ops in other builds. */
#if defined(__SANITIZE_THREAD__)
#define CT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CT_TSAN 1
#endif
#endif
#ifdef CT_TSAN
#include <sanitizer/tsan_interface.h>
#define CT_TSAN_RELEASE(p) __tsan_release(p)
#define CT_TSAN_ACQUIRE(p) __tsan_acquire(p)
/* ...and is not checked itself: a worker reads the shared values before its acquire */
#define CT_TSAN_UNCHECKED __attribute__((no_sanitize_thread))
#else
#define CT_TSAN_RELEASE(p) ((void)(p))
#define CT_TSAN_ACQUIRE(p) ((void)(p))
#define CT_TSAN_UNCHECKED
#endif

/* 0 until the first read; then the setting. */
static atomic_int num_threads;
/* Set in a child forked after a team was started: OpenMP is unusable there. */
static atomic_bool forked;
static pthread_once_t fork_guard = PTHREAD_ONCE_INIT;

static void in_child(void) { atomic_store_explicit(&forked, true, memory_order_relaxed); }
static void watch_forks(void) { (void)pthread_atfork(NULL, NULL, in_child); }

/* CT_NUM_THREADS when it is a positive integer (digits only, fits an int), else 0. */
static int env_threads(void) {
    const char *s = getenv("CT_NUM_THREADS");
    if (s == NULL || *s == '\0')
        return 0;
    long v = 0;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (*s - '0');
        if (v > 1 << 20) /* absurd: ignore rather than start a million threads */
            return 0;
    }
    return (int)v;
}

static int init_threads(void) {
    int n = env_threads();
    if (n < 1)
        n = omp_get_max_threads();
    if (n < 1)
        n = 1;
    /* A concurrent ct_set_num_threads wins over the default. */
    int expected = 0;
    if (!atomic_compare_exchange_strong(&num_threads, &expected, n))
        return expected;
    return n;
}

int ct_get_num_threads(void) {
    int n = atomic_load_explicit(&num_threads, memory_order_relaxed);
    return n > 0 ? n : init_threads();
}

ct_status ct_set_num_threads(int n) {
    if (n < 1)
        return ct_set_error(CT_ERR_RUNTIME, "set_num_threads expects a positive integer");
    atomic_store_explicit(&num_threads, n, memory_order_relaxed);
    return CT_OK;
}

/* Chunks for n > grain items, ignoring nesting: at most the thread count, each >= grain. */
static int chunks_for(int64_t n, int64_t grain) {
    int threads = ct_get_num_threads();
    if (threads < 2)
        return 1;
    int64_t k = n / grain;
    return k < threads ? (int)k : threads;
}

/* Whether a team may start here (a range worth splitting was found). */
static bool may_start_team(void) {
    return !omp_in_parallel() && !atomic_load_explicit(&forked, memory_order_relaxed);
}

int ct_parallel_chunks(int64_t begin, int64_t end, int64_t grain) {
    if (end <= begin)
        return 0;
    if (grain < 1)
        grain = 1;
    if (end - begin <= grain || !may_start_team())
        return 1;
    return chunks_for(end - begin, grain);
}

CT_TSAN_UNCHECKED
void ct_parallel_for(int64_t begin, int64_t end, int64_t grain, ct_parallel_body body, void *ctx) {
    if (end <= begin)
        return;
    if (grain < 1)
        grain = 1;
    int64_t n = end - begin;
    int chunks = n > grain ? chunks_for(n, grain) : 1;
    if (chunks < 2 || !may_start_team()) {
        body(ctx, begin, end);
        return;
    }
    pthread_once(&fork_guard, watch_forks); /* before the first team exists */
    /* Chunk c starts at c * per + min(c, extra): sizes differ by at most one, no overflow. */
    int64_t per = n / chunks, extra = n % chunks;
    CT_TSAN_RELEASE(&per);
#pragma omp parallel num_threads(chunks)
    {
        CT_TSAN_ACQUIRE(&per);
        int team = omp_get_num_threads();
        for (int c = omp_get_thread_num(); c < chunks; c += team) {
            int64_t lo = begin + c * per + (c < extra ? c : extra);
            body(ctx, lo, lo + per + (c < extra ? 1 : 0));
        }
        CT_TSAN_RELEASE(&extra);
    }
    CT_TSAN_ACQUIRE(&extra);
}
