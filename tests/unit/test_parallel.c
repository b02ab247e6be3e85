/* The parallel-for (base/parallel.h), the thread setting (ctensor/parallel.h) and the host
 * memory cache (ctensor/alloc.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmocka_all.h"
#include "base/parallel.h"
#include "ctensor/ctensor.h"

/* ---- parallel-for ----------------------------------------------------------------------- */

#define MAX_CHUNKS 64
#define MAX_ITEMS 100000

typedef struct chunk {
    int64_t begin, end;
    pthread_t thread;
} chunk;

/* What one ct_parallel_for call did: how often each item ran, and the chunks. */
typedef struct record {
    int64_t base;
    atomic_int hits[MAX_ITEMS];
    atomic_int nchunks;
    chunk chunks[MAX_CHUNKS];
} record;

static record rec;

static void reset(int64_t base) {
    rec.base = base;
    for (int i = 0; i < MAX_ITEMS; i++)
        atomic_init(&rec.hits[i], 0);
    atomic_init(&rec.nchunks, 0);
}

static void body_record(void *ctx, int64_t begin, int64_t end) {
    (void)ctx;
    int k = atomic_fetch_add(&rec.nchunks, 1);
    if (k < MAX_CHUNKS)
        rec.chunks[k] = (chunk){begin, end, pthread_self()};
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(&rec.hits[i - rec.base], 1);
}

static int by_begin(const void *a, const void *b) {
    int64_t x = ((const chunk *)a)->begin, y = ((const chunk *)b)->begin;
    return (x > y) - (x < y);
}

/* Run one range and check: every item exactly once, contiguous chunks that tile the range,
 * as many as ct_parallel_chunks says, at most the thread count, each at least `grain`. */
static void check_range(int64_t begin, int64_t end, int64_t grain) {
    reset(begin);
    ct_parallel_for(begin, end, grain, body_record, NULL);
    for (int64_t i = begin; i < end; i++)
        if (atomic_load(&rec.hits[i - begin]) != 1)
            fail_msg("[%lld, %lld) grain %lld: item %lld ran %d times", (long long)begin,
                     (long long)end, (long long)grain, (long long)i, atomic_load(&rec.hits[i - begin]));
    int n = atomic_load(&rec.nchunks);
    assert_int_equal(n, ct_parallel_chunks(begin, end, grain));
    assert_true(n <= ct_get_num_threads());
    qsort(rec.chunks, (size_t)n, sizeof(chunk), by_begin);
    int64_t at = begin;
    for (int c = 0; c < n; c++) {
        assert_int_equal(rec.chunks[c].begin, at);
        assert_true(rec.chunks[c].end > rec.chunks[c].begin);
        if (n > 1)
            assert_true(rec.chunks[c].end - rec.chunks[c].begin >= grain);
        at = rec.chunks[c].end;
    }
    if (n > 0)
        assert_int_equal(at, end);
}

static void test_chunks_cover_range(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    const int threads[] = {1, 2, 3, 4, 7};
    const int64_t ranges[][2] = {{0, 1}, {0, 2}, {5, 6}, {0, 100}, {-50, 50}, {3, 1003}, {0, 99991}};
    const int64_t grains[] = {1, 2, 7, 32, 100, 1000, 50000};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        assert_int_equal(ct_set_num_threads(threads[t]), CT_OK);
        for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++)
            for (size_t g = 0; g < sizeof grains / sizeof *grains; g++)
                check_range(ranges[r][0], ranges[r][1], grains[g]);
    }
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

static void test_chunk_counts(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_int_equal(ct_set_num_threads(4), CT_OK);
    assert_int_equal(ct_parallel_chunks(0, 0, 10), 0);   /* empty */
    assert_int_equal(ct_parallel_chunks(5, 2, 10), 0);   /* reversed: empty */
    assert_int_equal(ct_parallel_chunks(0, 10, 10), 1);  /* at the grain: serial */
    assert_int_equal(ct_parallel_chunks(0, 11, 10), 1);  /* two chunks would be < grain */
    assert_int_equal(ct_parallel_chunks(0, 20, 10), 2);
    assert_int_equal(ct_parallel_chunks(0, 39, 10), 3);
    assert_int_equal(ct_parallel_chunks(0, 1000, 10), 4); /* at most the thread count */
    assert_int_equal(ct_parallel_chunks(0, 4, 0), 4);     /* grain < 1 counts as 1 */
    assert_int_equal(ct_parallel_chunks(0, 4, -3), 4);
    assert_int_equal(ct_parallel_chunks(INT64_MIN / 2, INT64_MAX / 2, 1), 4);
    assert_int_equal(ct_set_num_threads(1), CT_OK);
    assert_int_equal(ct_parallel_chunks(0, 1000, 10), 1);
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

static void test_empty_range_runs_nothing(void **state) {
    (void)state;
    reset(0);
    ct_parallel_for(0, 0, 1, body_record, NULL);
    ct_parallel_for(10, 3, 1, body_record, NULL);
    assert_int_equal(atomic_load(&rec.nchunks), 0);
}

static void test_serial_on_calling_thread(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_int_equal(ct_set_num_threads(4), CT_OK);
    reset(0);
    ct_parallel_for(0, 1000, 1000, body_record, NULL); /* at the grain */
    assert_int_equal(atomic_load(&rec.nchunks), 1);
    assert_true(pthread_equal(rec.chunks[0].thread, pthread_self()));
    assert_int_equal(ct_set_num_threads(1), CT_OK);
    reset(0);
    ct_parallel_for(0, 1000, 1, body_record, NULL); /* one thread set */
    assert_int_equal(atomic_load(&rec.nchunks), 1);
    assert_true(pthread_equal(rec.chunks[0].thread, pthread_self()));
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

static void test_runs_on_several_threads(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_int_equal(ct_set_num_threads(2), CT_OK);
    reset(0);
    ct_parallel_for(0, 1000, 10, body_record, NULL);
    assert_int_equal(atomic_load(&rec.nchunks), 2);
    /* OpenMP's master takes a chunk; a second thread the other (unless the runtime is
     * limited by OMP_THREAD_LIMIT or OMP_DYNAMIC, which the test environment does not set) */
    assert_false(pthread_equal(rec.chunks[0].thread, rec.chunks[1].thread));
    assert_true(pthread_equal(rec.chunks[0].thread, pthread_self()) ||
                pthread_equal(rec.chunks[1].thread, pthread_self()));
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

/* A body that starts another parallel-for: the inner one must stay on its thread. */
typedef struct nest {
    atomic_int outer_chunks, inner_calls, inner_elsewhere, inner_items, bad_count;
} nest;

static void inner_body(void *ctx, int64_t begin, int64_t end) {
    nest *n = ctx;
    atomic_fetch_add(&n->inner_calls, 1);
    atomic_fetch_add(&n->inner_items, (int)(end - begin));
}

typedef struct inner_ctx {
    nest *n;
    pthread_t self;
} inner_ctx;

static void inner_body_thread(void *ctx, int64_t begin, int64_t end) {
    inner_ctx *c = ctx;
    if (!pthread_equal(c->self, pthread_self()))
        atomic_fetch_add(&c->n->inner_elsewhere, 1);
    inner_body(c->n, begin, end);
}

static void outer_body(void *ctx, int64_t begin, int64_t end) {
    nest *n = ctx;
    (void)begin;
    (void)end;
    atomic_fetch_add(&n->outer_chunks, 1);
    if (ct_parallel_chunks(0, 1000, 1) != 1)
        atomic_fetch_add(&n->bad_count, 1);
    inner_ctx c = {n, pthread_self()};
    ct_parallel_for(0, 1000, 1, inner_body_thread, &c);
}

static void test_nested_runs_serially(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_int_equal(ct_set_num_threads(2), CT_OK);
    nest n;
    atomic_init(&n.outer_chunks, 0);
    atomic_init(&n.inner_calls, 0);
    atomic_init(&n.inner_elsewhere, 0);
    atomic_init(&n.inner_items, 0);
    atomic_init(&n.bad_count, 0);
    ct_parallel_for(0, 100, 1, outer_body, &n);
    assert_int_equal(atomic_load(&n.outer_chunks), 2);
    assert_int_equal(atomic_load(&n.inner_calls), 2); /* one serial call per outer chunk */
    assert_int_equal(atomic_load(&n.inner_items), 2000);
    assert_int_equal(atomic_load(&n.inner_elsewhere), 0);
    assert_int_equal(atomic_load(&n.bad_count), 0);
    /* after the region, the same call is parallel again */
    assert_int_equal(ct_parallel_chunks(0, 1000, 1), 2);
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

/* The parallel-for started from several program threads at once (each gets its own team). */
static void add_items(void *ctx, int64_t begin, int64_t end) {
    atomic_fetch_add((atomic_llong *)ctx, end - begin);
}

static void *call_repeatedly(void *arg) {
    for (int k = 0; k < 50; k++)
        ct_parallel_for(0, 4096, 64, add_items, arg);
    return NULL;
}

static void test_concurrent_callers(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_int_equal(ct_set_num_threads(2), CT_OK);
    atomic_llong sum;
    atomic_init(&sum, 0);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, call_repeatedly, &sum), 0);
    call_repeatedly(&sum);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&sum), 4 * 50 * 4096);
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

/* A child forked after a team ran cannot use libgomp's workers: it runs serially, and
 * finishes (alarm: a hang kills the child, which the parent reports). */
static void test_fork_child_runs_serially(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_int_equal(ct_set_num_threads(2), CT_OK);
    atomic_llong sum;
    atomic_init(&sum, 0);
    ct_parallel_for(0, 1000, 1, add_items, &sum); /* the parent's team exists now */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        atomic_init(&sum, 0);
        ct_parallel_for(0, 1000, 1, add_items, &sum);
        _exit(atomic_load(&sum) == 1000 && ct_parallel_chunks(0, 1000, 1) == 1 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* the parent is unaffected */
    assert_int_equal(ct_parallel_chunks(0, 1000, 1), 2);
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
}

static void test_set_get_threads(void **state) {
    (void)state;
    int saved = ct_get_num_threads();
    assert_true(saved >= 1);
    assert_int_equal(ct_set_num_threads(3), CT_OK);
    assert_int_equal(ct_get_num_threads(), 3);
    assert_status_msg(ct_set_num_threads(0), CT_ERR_RUNTIME,
                      "set_num_threads expects a positive integer");
    assert_status_msg(ct_set_num_threads(-2), CT_ERR_RUNTIME,
                      "set_num_threads expects a positive integer");
    assert_int_equal(ct_get_num_threads(), 3); /* unchanged */
    assert_int_equal(ct_set_num_threads(saved), CT_OK);
    assert_int_equal(ct_get_num_threads(), saved);
}

/* The first ct_get_num_threads reads CT_NUM_THREADS, so each case runs in a child: this
 * program with --print-threads, under OMP_NUM_THREADS=5 (the default when the variable is
 * unusable). */
static char self_exe[4096];

static int threads_in_child(const char *env) {
    char cmd[8192];
    if (env != NULL)
        snprintf(cmd, sizeof cmd, "CT_NUM_THREADS='%s' OMP_NUM_THREADS=5 '%s' --print-threads",
                 env, self_exe);
    else
        snprintf(cmd, sizeof cmd, "env -u CT_NUM_THREADS OMP_NUM_THREADS=5 '%s' --print-threads",
                 self_exe);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    int n = -1;
    if (fscanf(f, "%d", &n) != 1)
        n = -1;
    assert_int_equal(pclose(f), 0);
    return n;
}

static void test_env_num_threads(void **state) {
    (void)state;
    ssize_t len = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (len <= 0)
        skip();
    self_exe[len] = '\0';
    assert_int_equal(threads_in_child("3"), 3);
    assert_int_equal(threads_in_child("1"), 1);
    assert_int_equal(threads_in_child("12"), 12);
    assert_int_equal(threads_in_child(NULL), 5);
    const char *unusable[] = {"", "0", "-2", "abc", "2x", " 2", "99999999999"};
    for (size_t i = 0; i < sizeof unusable / sizeof *unusable; i++)
        assert_int_equal(threads_in_child(unusable[i]), 5);
}

/* ---- the host memory cache --------------------------------------------------------------- */

#define MIB ((size_t)1 << 20)
static const ct_device CPU = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

/* A counting allocator that can refuse requests while `cap` blocks are live. */
typedef struct counting {
    long allocs, frees, live, cap; /* cap 0: no cap */
    size_t last_size, last_align, freed_size;
} counting;

static void *count_alloc(void *ctx, size_t size, size_t align) {
    counting *c = ctx;
    if (c->cap > 0 && c->live >= c->cap)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        return NULL;
    c->allocs++;
    c->live++;
    c->last_size = size;
    c->last_align = align;
    return p;
}

static void count_free(void *ctx, void *p, size_t size, size_t align) {
    counting *c = ctx;
    (void)align;
    c->frees++;
    c->live--;
    c->freed_size = size;
    free(p);
}

static void *cpu_alloc(size_t size, size_t align) {
    void *p = NULL;
    assert_int_equal(ct_device_alloc(CPU, size, align, &p, NULL), CT_OK);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % align, 0);
    return p;
}

static void cpu_free(void *p, size_t size, size_t align) {
    assert_int_equal(ct_device_free(CPU, p, size, align), CT_OK);
}

static int cache_setup(void **state) {
    (void)state;
    ct_host_cache_set_limit((size_t)1 << 30);
    ct_host_cache_empty();
    return 0;
}

static int cache_teardown(void **state) {
    (void)state;
    ct_host_cache_empty();
    return ct_set_allocator(NULL) == CT_OK ? 0 : -1;
}

static void test_cache_reuses_freed_block(void **state) {
    (void)state;
    ct_host_cache_stats s0 = ct_host_cache_get_stats();
    assert_int_equal(s0.blocks, 0);
    assert_int_equal(s0.bytes, 0);
    char *p = cpu_alloc(3 * MIB, 64);
    p[0] = 1;
    p[3 * MIB - 1] = 2;
    cpu_free(p, 3 * MIB, 64);
    ct_host_cache_stats s1 = ct_host_cache_get_stats();
    assert_int_equal(s1.blocks, 1);
    assert_int_equal(s1.bytes, 3 * MIB);
    assert_int_equal(s1.misses, s0.misses + 1);
    /* the same size class (4 KiB) takes it back; the cache is then empty */
    char *q = cpu_alloc(3 * MIB - 100, 64);
    assert_ptr_equal(q, p);
    ct_host_cache_stats s2 = ct_host_cache_get_stats();
    assert_int_equal(s2.blocks, 0);
    assert_int_equal(s2.hits, s1.hits + 1);
    /* while it is in use, another request of the class gets a new block */
    char *r = cpu_alloc(3 * MIB, 64);
    assert_ptr_not_equal(r, q);
    cpu_free(q, 3 * MIB - 100, 64);
    cpu_free(r, 3 * MIB, 64);
    assert_int_equal(ct_host_cache_get_stats().blocks, 2);
    /* the newest matching block is handed out first */
    assert_ptr_equal(cpu_alloc(3 * MIB, 64), r);
    cpu_free(r, 3 * MIB, 64);
    /* another size class does not take it */
    void *other = cpu_alloc(3 * MIB + 4096, 64);
    assert_ptr_not_equal(other, p);
    assert_ptr_not_equal(other, r);
    cpu_free(other, 3 * MIB + 4096, 64);
    assert_int_equal(ct_host_cache_get_stats().blocks, 3);
}

static void test_cache_small_blocks_pass_through(void **state) {
    (void)state;
    counting c = {0};
    ct_allocator al = {&c, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    ct_host_cache_stats s0 = ct_host_cache_get_stats();
    void *p = cpu_alloc(MIB - 1, 64);
    assert_int_equal(c.last_size, MIB - 1);
    cpu_free(p, MIB - 1, 64);
    assert_int_equal(c.frees, 1);
    ct_host_cache_stats s1 = ct_host_cache_get_stats();
    assert_int_equal(s1.blocks, 0);
    assert_int_equal(s1.hits + s1.misses, s0.hits + s0.misses);
}

static void test_cache_rounds_sizes(void **state) {
    (void)state;
    counting c = {0};
    ct_allocator al = {&c, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    void *p = cpu_alloc(MIB + 1, 128);
    assert_int_equal(c.last_size, MIB + 4096); /* asked rounded up to 4 KiB */
    assert_int_equal(c.last_align, 128);
    cpu_free(p, MIB + 1, 128);
    ct_host_cache_empty();
    assert_int_equal(c.frees, 1);
    assert_int_equal(c.freed_size, MIB + 4096); /* and freed with the size it was made with */
    /* rounded even with caching off, so a free always matches its allocation */
    ct_host_cache_set_limit(0);
    p = cpu_alloc(MIB + 1, 64);
    assert_int_equal(c.last_size, MIB + 4096);
    ct_host_cache_set_limit((size_t)1 << 30);
    cpu_free(p, MIB + 1, 64);
    ct_host_cache_empty();
    assert_int_equal(c.freed_size, MIB + 4096);
    assert_int_equal(c.live, 0);
}

static void test_cache_alignment_is_part_of_the_class(void **state) {
    (void)state;
    void *p = cpu_alloc(2 * MIB, 64);
    cpu_free(p, 2 * MIB, 64);
    ct_host_cache_stats s0 = ct_host_cache_get_stats();
    void *q = cpu_alloc(2 * MIB, 4096); /* a miss, aligned as asked */
    ct_host_cache_stats s1 = ct_host_cache_get_stats();
    assert_int_equal(s1.misses, s0.misses + 1);
    assert_int_equal(s1.blocks, 1);
    cpu_free(q, 2 * MIB, 4096);
    q = cpu_alloc(2 * MIB, 4096);
    assert_int_equal(ct_host_cache_get_stats().hits, s1.hits + 1);
    cpu_free(q, 2 * MIB, 4096);
    assert_int_equal(ct_host_cache_get_stats().blocks, 2);
}

static void test_cache_block_bound(void **state) {
    (void)state;
    counting c = {0};
    ct_allocator al = {&c, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    enum { N = CT_HOST_CACHE_MAX_BLOCKS + 4 };
    void *p[N];
    for (int i = 0; i < N; i++)
        p[i] = cpu_alloc(MIB + (size_t)i * 4096, 64); /* all different classes */
    for (int i = 0; i < N; i++)
        cpu_free(p[i], MIB + (size_t)i * 4096, 64);
    ct_host_cache_stats s = ct_host_cache_get_stats();
    assert_int_equal(s.blocks, CT_HOST_CACHE_MAX_BLOCKS);
    assert_int_equal(c.frees, N - CT_HOST_CACHE_MAX_BLOCKS);
    assert_int_equal(c.live, CT_HOST_CACHE_MAX_BLOCKS);
    /* the oldest went first: block 0 is gone, the last one is kept */
    long allocs = c.allocs;
    void *q = cpu_alloc(MIB, 64);
    assert_int_equal(c.allocs, allocs + 1);
    cpu_free(q, MIB, 64);
    q = cpu_alloc(MIB + (size_t)(N - 1) * 4096, 64);
    assert_ptr_equal(q, p[N - 1]);
    cpu_free(q, MIB + (size_t)(N - 1) * 4096, 64);
    ct_host_cache_empty();
    assert_int_equal(c.live, 0);
}

static void test_cache_byte_limit(void **state) {
    (void)state;
    counting c = {0};
    ct_allocator al = {&c, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    ct_host_cache_set_limit(5 * MIB);
    assert_int_equal(ct_host_cache_get_stats().limit, 5 * MIB);
    void *a = cpu_alloc(2 * MIB, 64), *b = cpu_alloc(2 * MIB, 64), *d = cpu_alloc(2 * MIB, 64);
    cpu_free(a, 2 * MIB, 64);
    cpu_free(b, 2 * MIB, 64);
    cpu_free(d, 2 * MIB, 64); /* 6 MiB > 5 MiB: the oldest (a) goes */
    ct_host_cache_stats s = ct_host_cache_get_stats();
    assert_int_equal(s.blocks, 2);
    assert_int_equal(s.bytes, 4 * MIB);
    assert_int_equal(c.live, 2);
    /* a block larger than the limit goes straight back */
    void *big = cpu_alloc(6 * MIB, 64);
    cpu_free(big, 6 * MIB, 64);
    assert_int_equal(ct_host_cache_get_stats().blocks, 2);
    assert_int_equal(c.live, 2);
    /* lowering the limit frees down to it */
    ct_host_cache_set_limit(3 * MIB);
    s = ct_host_cache_get_stats();
    assert_int_equal(s.blocks, 1);
    assert_int_equal(s.bytes, 2 * MIB);
    assert_int_equal(c.live, 1);
    /* 0 turns caching off */
    ct_host_cache_set_limit(0);
    assert_int_equal(ct_host_cache_get_stats().blocks, 0);
    assert_int_equal(c.live, 0);
    void *e = cpu_alloc(2 * MIB, 64);
    cpu_free(e, 2 * MIB, 64);
    assert_int_equal(ct_host_cache_get_stats().blocks, 0);
    assert_int_equal(c.live, 0);
    ct_host_cache_set_limit((size_t)1 << 30);
}

static void test_cache_empty(void **state) {
    (void)state;
    counting c = {0};
    ct_allocator al = {&c, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    void *a = cpu_alloc(2 * MIB, 64), *b = cpu_alloc(4 * MIB, 64);
    cpu_free(a, 2 * MIB, 64);
    cpu_free(b, 4 * MIB, 64);
    assert_int_equal(c.live, 2);
    ct_host_cache_empty();
    ct_host_cache_stats s = ct_host_cache_get_stats();
    assert_int_equal(s.blocks, 0);
    assert_int_equal(s.bytes, 0);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.frees, 2);
    ct_host_cache_empty(); /* empty again: nothing happens */
    assert_int_equal(c.frees, 2);
}

static void test_cache_allocator_switch(void **state) {
    (void)state;
    counting ca = {0}, cb = {0};
    ct_allocator a = {&ca, count_alloc, count_free}, b = {&cb, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&a), CT_OK);
    void *p = cpu_alloc(2 * MIB, 64);
    cpu_free(p, 2 * MIB, 64);
    assert_int_equal(ca.live, 1); /* kept */
    /* installing b gives a its block back, through a */
    assert_int_equal(ct_set_allocator(&b), CT_OK);
    assert_int_equal(ca.live, 0);
    assert_int_equal(ca.frees, 1);
    assert_int_equal(ct_host_cache_get_stats().blocks, 0);
    void *q = cpu_alloc(2 * MIB, 64);
    assert_int_equal(cb.allocs, 1);
    /* a refused set_allocator keeps the cache */
    cpu_free(q, 2 * MIB, 64);
    ct_allocator broken = {NULL, count_alloc, NULL};
    assert_int_equal(ct_set_allocator(&broken), CT_ERR_MISUSE);
    assert_int_equal(ct_host_cache_get_stats().blocks, 1);
    /* back to the default: b gets its block back */
    assert_int_equal(ct_set_allocator(NULL), CT_OK);
    assert_int_equal(cb.live, 0);
    assert_int_equal(ca.allocs + cb.allocs, 2);
}

/* Kept blocks are tagged with the allocator in use when they were freed: a request under
 * another allocator never takes them, even if ct_set_allocator was bypassed by a race. */
static void test_cache_owner_tag(void **state) {
    (void)state;
    counting ca = {0}, cb = {0};
    ct_allocator a = {&ca, count_alloc, count_free}, b = {&cb, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&a), CT_OK);
    void *p = cpu_alloc(2 * MIB, 64);
    assert_int_equal(ct_set_allocator(&b), CT_OK);
    cpu_free(p, 2 * MIB, 64); /* freed under b (as ct_free would): kept as b's */
    assert_int_equal(ct_host_cache_get_stats().blocks, 1);
    assert_int_equal(ct_set_allocator(&a), CT_OK); /* b's block goes back through b */
    assert_int_equal(cb.frees, 1);
    assert_int_equal(ca.frees, 0);
    ca.live++; /* that block was a's: rebalance the counts the test keeps */
    cb.live--;
    assert_int_equal(ca.live + cb.live, 0);
}

/* When the allocator refuses, the cache gives its blocks back and the request is retried. */
static void test_cache_retries_after_emptying(void **state) {
    (void)state;
    counting c = {0};
    ct_allocator al = {&c, count_alloc, count_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    void *p = cpu_alloc(2 * MIB, 64);
    cpu_free(p, 2 * MIB, 64);
    c.cap = 1; /* the kept block is the one live block: the next request needs it back */
    void *q = cpu_alloc(3 * MIB, 64);
    assert_int_equal(c.frees, 1);
    assert_int_equal(ct_host_cache_get_stats().blocks, 0);
    /* nothing kept: a refusal is reported */
    void *r = &c;
    assert_status_msg(ct_device_alloc(CPU, 2 * MIB + 1, 64, &r, NULL), CT_ERR_NOMEM,
                      "out of memory: failed to allocate 2097153 bytes"); /* as asked */
    assert_null(r);
    c.cap = 0;
    cpu_free(q, 3 * MIB, 64);
    ct_host_cache_empty();
    assert_int_equal(c.live, 0);
}

/* Tensors: the storage of a large result is reused by the next one. */
static void test_cache_tensor_reuse(void **state) {
    (void)state;
    int64_t shape[] = {1000, 1000};
    ct_tensor *t = NULL;
    assert_int_equal(
        ct_tensor_empty(shape, 2, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t), CT_OK);
    void *data = ct_tensor_data_ptr(t);
    ct_tensor_release(t);
    assert_int_equal(
        ct_tensor_empty(shape, 2, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t), CT_OK);
    assert_ptr_equal(ct_tensor_data_ptr(t), data);
    ct_tensor_release(t);
}

typedef struct churn {
    int seed;
} churn;

static void *churn_main(void *arg) {
    churn *c = arg;
    for (int k = 0; k < 200; k++) {
        size_t size = MIB + (size_t)((c->seed + k) % 5) * 4096;
        char *p = NULL;
        if (ct_device_alloc(CPU, size, 64, (void **)&p, NULL) != CT_OK)
            return arg;
        p[0] = (char)k; /* the block is ours: ASan would see a double hand-out as a race */
        p[size - 1] = (char)k;
        if (p[0] != (char)k)
            return arg;
        (void)ct_device_free(CPU, p, size, 64);
    }
    return NULL;
}

static void test_cache_threads(void **state) {
    (void)state;
    pthread_t t[4];
    churn c[4];
    for (int i = 0; i < 4; i++) {
        c[i].seed = i;
        assert_int_equal(pthread_create(&t[i], NULL, churn_main, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *r = &c[i];
        pthread_join(t[i], &r);
        assert_null(r);
    }
    ct_host_cache_stats s = ct_host_cache_get_stats();
    assert_true(s.blocks <= CT_HOST_CACHE_MAX_BLOCKS);
    assert_true(s.bytes <= s.limit);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--print-threads") == 0) {
        printf("%d\n", ct_get_num_threads());
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_cover_range),
        cmocka_unit_test(test_chunk_counts),
        cmocka_unit_test(test_empty_range_runs_nothing),
        cmocka_unit_test(test_serial_on_calling_thread),
        cmocka_unit_test(test_runs_on_several_threads),
        cmocka_unit_test(test_nested_runs_serially),
        cmocka_unit_test(test_concurrent_callers),
        cmocka_unit_test(test_fork_child_runs_serially),
        cmocka_unit_test(test_set_get_threads),
        cmocka_unit_test(test_env_num_threads),
        cmocka_unit_test_setup_teardown(test_cache_reuses_freed_block, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_small_blocks_pass_through, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_rounds_sizes, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_alignment_is_part_of_the_class, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_block_bound, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_byte_limit, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_empty, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_allocator_switch, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_owner_tag, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_retries_after_emptying, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_tensor_reuse, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_threads, cache_setup, cache_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
