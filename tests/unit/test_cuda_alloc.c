/* The cuda caching allocator's bookkeeping (src/cuda/caching_alloc.c) over a fake raw
 * allocator, so it runs everywhere (no GPU, no CUDA toolkit): size classes, reuse per
 * (device, stream, size class), statistics, empty_cache, the out-of-memory retry and
 * message, misuse, and concurrent use. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"
#include "cuda/caching_alloc.h"

/* ---- the fake raw allocator: host memory, counted, with a byte budget ---- */

typedef struct fake {
    pthread_mutex_t lock;
    int64_t allocs, frees, live_bytes;
    int64_t budget;    /* raw allocations beyond this many live bytes fail with NOMEM */
    int fail_other;    /* > 0: the next raw allocation fails with CT_ERR_RUNTIME */
    int free_fails;    /* > 0: raw frees fail (but still free) this many times */
    int32_t last_device;
} fake;

static ct_status fake_alloc(void *ctx, int32_t device, size_t size, void **out) {
    fake *f = ctx;
    ct_status st = CT_OK;
    pthread_mutex_lock(&f->lock);
    if (f->fail_other > 0) {
        f->fail_other--;
        st = ct_set_error(CT_ERR_RUNTIME, "CUDA error: fake driver failure");
    } else if (f->live_bytes + (int64_t)size > f->budget) {
        st = CT_ERR_NOMEM;
    } else if ((*out = malloc(size)) == NULL) {
        st = CT_ERR_NOMEM;
    } else {
        f->allocs++;
        f->live_bytes += (int64_t)size;
        f->last_device = device;
    }
    pthread_mutex_unlock(&f->lock);
    return st;
}

static ct_status fake_free(void *ctx, int32_t device, void *ptr, size_t size) {
    (void)device;
    fake *f = ctx;
    ct_status st = CT_OK;
    pthread_mutex_lock(&f->lock);
    free(ptr);
    f->frees++;
    f->live_bytes -= (int64_t)size;
    if (f->free_fails > 0) {
        f->free_fails--;
        st = ct_set_error(CT_ERR_RUNTIME, "CUDA error: fake free failure");
    }
    pthread_mutex_unlock(&f->lock);
    return st;
}

static ct_status fake_mem_info(void *ctx, int32_t device, size_t *free_bytes, size_t *total) {
    (void)device;
    fake *f = ctx;
    *total = (size_t)f->budget;
    *free_bytes = (size_t)(f->budget - f->live_bytes);
    return CT_OK;
}

typedef struct fixture {
    fake f;
    ct_cuda_caching_alloc *a;
} fixture;

static int setup(void **state) {
    fixture *x = calloc(1, sizeof *x);
    if (x == NULL)
        return -1;
    pthread_mutex_init(&x->f.lock, NULL);
    x->f.budget = (int64_t)1 << 40;
    ct_cuda_alloc_raw raw = {
        .ctx = &x->f, .alloc = fake_alloc, .free = fake_free, .mem_info = fake_mem_info};
    if (ct_cuda_impl_alloc_new(&raw, &x->a) != CT_OK)
        return -1;
    *state = x;
    return 0;
}

static int teardown(void **state) {
    fixture *x = *state;
    ct_cuda_impl_alloc_destroy(x->a);
    int ok = x->f.live_bytes == 0; /* destroy returned every cached block */
    pthread_mutex_destroy(&x->f.lock);
    free(x);
    return ok ? 0 : -1;
}

static ct_cuda_memory_stats stats(fixture *x, int32_t device) {
    ct_cuda_memory_stats s;
    ct_cuda_impl_alloc_stats(x->a, device, &s);
    return s;
}

static void *stream_a = (void *)0x1000, *stream_b = (void *)0x2000;

/* ---- size classes ---- */

static void test_round(void **state) {
    (void)state;
    assert_int_equal(ct_cuda_impl_alloc_round(0), 512);
    assert_int_equal(ct_cuda_impl_alloc_round(1), 512);
    assert_int_equal(ct_cuda_impl_alloc_round(512), 512);
    assert_int_equal(ct_cuda_impl_alloc_round(513), 640);
    assert_int_equal(ct_cuda_impl_alloc_round(1024), 1024);
    assert_int_equal(ct_cuda_impl_alloc_round(1025), 1280);
    assert_int_equal(ct_cuda_impl_alloc_round(4000), 4096);
    assert_int_equal(ct_cuda_impl_alloc_round(5000), 5120);
    /* above 8 MiB the step is 2 MiB */
    size_t mib = (size_t)1 << 20;
    assert_int_equal(ct_cuda_impl_alloc_round(9 * mib + 1), 10 * mib);
    assert_int_equal(ct_cuda_impl_alloc_round(33 * (mib << 10)), 33 * (mib << 10));
    assert_int_equal(ct_cuda_impl_alloc_round(((size_t)1 << 62) + 1), 0);
    assert_int_equal(ct_cuda_impl_alloc_round(SIZE_MAX), 0);
    /* every class covers its request, wastes < 25% and < 2 MiB, and is a multiple of 128 */
    for (size_t s = 1; s < ((size_t)1 << 40); s = s * 3 / 2 + 7) {
        size_t r = ct_cuda_impl_alloc_round(s);
        assert_true(r >= s);
        assert_int_equal(r % 128, 0);
        if (s > 512) {
            assert_true(r - s < s / 4 + 1);
            assert_true(r - s < 2 * mib);
        }
        /* the class of a class is itself */
        assert_int_equal(ct_cuda_impl_alloc_round(r), r);
    }
}

static void test_format_size(void **state) {
    (void)state;
    char buf[32];
    ct_cuda_impl_format_size(512, buf, sizeof buf);
    assert_string_equal(buf, "512 bytes");
    ct_cuda_impl_format_size(1536, buf, sizeof buf);
    assert_string_equal(buf, "1.50 KiB");
    ct_cuda_impl_format_size(20u << 20, buf, sizeof buf);
    assert_string_equal(buf, "20.00 MiB");
    ct_cuda_impl_format_size((uint64_t)2 << 30, buf, sizeof buf);
    assert_string_equal(buf, "2.00 GiB");
}

/* ---- reuse and statistics ---- */

static void test_reuse_same_stream(void **state) {
    fixture *x = *state;
    void *p, *q;
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 1000, &p), CT_OK);
    assert_non_null(p);
    ct_cuda_memory_stats s = stats(x, 0);
    assert_int_equal(s.allocated, 1024);
    assert_int_equal(s.reserved, 1024);
    assert_int_equal(s.num_device_allocs, 1);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_OK);
    s = stats(x, 0);
    assert_int_equal(s.allocated, 0);
    assert_int_equal(s.reserved, 1024);
    assert_int_equal(s.max_allocated, 1024);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, 0), 1);
    /* another request of the same class on the same stream gets the block back */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 900, &q), CT_OK);
    assert_ptr_equal(q, p);
    assert_int_equal(stats(x, 0).num_device_allocs, 1);
    assert_int_equal(x->f.allocs, 1);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, 0), 0);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, q), CT_OK);
}

static void test_no_reuse_across_streams_devices_classes(void **state) {
    fixture *x = *state;
    void *p, *q, *r, *t;
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 4096, &p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_OK);
    /* another stream, another device, another class: fresh raw allocations */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_b, 4096, &q), CT_OK);
    assert_ptr_not_equal(q, p);
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 1, stream_a, 4096, &r), CT_OK);
    assert_ptr_not_equal(r, p);
    assert_int_equal(x->f.last_device, 1);
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 8192, &t), CT_OK);
    assert_ptr_not_equal(t, p);
    assert_int_equal(x->f.allocs, 4);
    assert_int_equal(stats(x, 0).num_device_allocs, 3);
    assert_int_equal(stats(x, 1).num_device_allocs, 1);
    assert_int_equal(stats(x, 1).allocated, 4096);
    assert_int_equal(stats(x, 0).allocated, 4096 + 8192);
    assert_int_equal(stats(x, 0).reserved, 2 * 4096 + 8192);
    /* the default stream (NULL) is a stream of its own */
    void *u;
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, NULL, 4096, &u), CT_OK);
    assert_ptr_not_equal(u, p);
    /* the cached block still serves its own stream */
    void *v;
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 4000, &v), CT_OK);
    assert_ptr_equal(v, p);
    void *all[] = {q, r, t, u, v};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(ct_cuda_impl_alloc_free(x->a, all[i]), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, -1), 5);
    assert_int_equal(stats(x, 0).allocated, 0);
    assert_int_equal(stats(x, 1).allocated, 0);
}

static void test_peaks_and_reset(void **state) {
    fixture *x = *state;
    void *p[10];
    for (int i = 0; i < 10; i++)
        assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 2, stream_a, 512, &p[i]), CT_OK);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ct_cuda_impl_alloc_free(x->a, p[i]), CT_OK);
    ct_cuda_memory_stats s = stats(x, 2);
    assert_int_equal(s.allocated, 0);
    assert_int_equal(s.max_allocated, 10 * 512);
    assert_int_equal(s.reserved, 10 * 512);
    assert_int_equal(s.max_reserved, 10 * 512);
    ct_cuda_impl_alloc_reset_peaks(x->a, 2);
    s = stats(x, 2);
    assert_int_equal(s.max_allocated, 0);
    assert_int_equal(s.max_reserved, 10 * 512);
    /* all ten come back from the cache */
    for (int i = 0; i < 10; i++)
        assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 2, stream_a, 100, &p[i]), CT_OK);
    assert_int_equal(stats(x, 2).num_device_allocs, 10);
    assert_int_equal(stats(x, 2).max_allocated, 10 * 512);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ct_cuda_impl_alloc_free(x->a, p[i]), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_empty_cache(x->a, 2), CT_OK);
    s = stats(x, 2);
    assert_int_equal(s.reserved, 0);
    assert_int_equal(s.max_reserved, 10 * 512);
    ct_cuda_impl_alloc_reset_peaks(x->a, 2);
    assert_int_equal(stats(x, 2).max_reserved, 0);
    /* devices out of range read as zeros */
    ct_cuda_impl_alloc_stats(x->a, -1, &s);
    assert_int_equal(s.num_device_allocs, 0);
    ct_cuda_impl_alloc_stats(x->a, CT_CUDA_ALLOC_MAX_DEVICES, &s);
    assert_int_equal(s.num_device_allocs, 0);
}

static void test_empty_cache(void **state) {
    fixture *x = *state;
    void *p, *q, *live;
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 100, &p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 1, stream_a, 100, &q), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 1, stream_b, 100, &live), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, q), CT_OK);
    assert_int_equal(x->f.frees, 0); /* freeing only caches */
    /* one device's cache */
    assert_int_equal(ct_cuda_impl_alloc_empty_cache(x->a, 1), CT_OK);
    assert_int_equal(x->f.frees, 1);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, 0), 1);
    assert_int_equal(stats(x, 1).reserved, 512); /* the live block stays */
    /* all of them */
    assert_int_equal(ct_cuda_impl_alloc_empty_cache(x->a, -1), CT_OK);
    assert_int_equal(x->f.frees, 2);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, -1), 0);
    assert_int_equal(stats(x, 0).reserved, 0);
    assert_int_equal(x->f.live_bytes, 512);
    /* a raw free error is reported, and the other blocks are still returned */
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, live), CT_OK);
    void *more[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 600 + 600 * (size_t)i, &more[i]),
                         CT_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(ct_cuda_impl_alloc_free(x->a, more[i]), CT_OK);
    x->f.free_fails = 1;
    assert_status_msg(ct_cuda_impl_alloc_empty_cache(x->a, -1), CT_ERR_RUNTIME,
                      "CUDA error: fake free failure");
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, -1), 0);
    assert_int_equal(x->f.live_bytes, 0);
    assert_int_equal(stats(x, 0).reserved, 0);
}

/* ---- failures ---- */

static void test_oom_retries_after_emptying(void **state) {
    fixture *x = *state;
    x->f.budget = 4096;
    void *p, *q;
    /* a cached 4 KiB block on another stream fills the budget */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_b, 4096, &p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_OK);
    /* the raw allocation fails, the cache is emptied, the retry succeeds */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 2048, &q), CT_OK);
    assert_int_equal(x->f.frees, 1);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, -1), 0);
    ct_cuda_memory_stats s = stats(x, 0);
    assert_int_equal(s.reserved, 2048);
    assert_int_equal(s.allocated, 2048);
    /* still too much: PyTorch's message, with the rounded request and the usage */
    assert_status_msg(
        ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 3000, &p), CT_ERR_NOMEM,
        "CUDA out of memory. Tried to allocate 3.00 KiB. GPU 0 has a total capacity of 4.00 KiB "
        "of which 2.00 KiB is free. Of the allocated memory 2.00 KiB is allocated by ctensor, and "
        "0 bytes is reserved by ctensor but unallocated. If reserved but unallocated memory is "
        "large, ct_cuda_empty_cache() returns it to the driver.");
    assert_null(p);
    /* nothing changed */
    s = stats(x, 0);
    assert_int_equal(s.reserved, 2048);
    assert_int_equal(s.allocated, 2048);
    assert_int_equal(s.num_device_allocs, 2);
    /* a request too large to round */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, SIZE_MAX, &p), CT_ERR_NOMEM);
    assert_non_null(strstr(ct_last_error(), "CUDA out of memory. Tried to allocate "));
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, q), CT_OK);
}

static void test_oom_message_without_mem_info(void **state) {
    (void)state;
    fake f = {.budget = 1024};
    pthread_mutex_init(&f.lock, NULL);
    ct_cuda_alloc_raw raw = {.ctx = &f, .alloc = fake_alloc, .free = fake_free};
    ct_cuda_caching_alloc *a;
    assert_int_equal(ct_cuda_impl_alloc_new(&raw, &a), CT_OK);
    void *p;
    assert_status_msg(ct_cuda_impl_alloc_malloc(a, 3, NULL, (size_t)2 << 30, &p), CT_ERR_NOMEM,
                      "CUDA out of memory. Tried to allocate 2.00 GiB. Of the allocated memory 0 "
                      "bytes is allocated by ctensor, and 0 bytes is reserved by ctensor but "
                      "unallocated. If reserved but unallocated memory is large, "
                      "ct_cuda_empty_cache() returns it to the driver.");
    ct_cuda_impl_alloc_destroy(a);
    pthread_mutex_destroy(&f.lock);
}

static void test_raw_error_passes_through(void **state) {
    fixture *x = *state;
    void *p;
    x->f.fail_other = 1;
    assert_status_msg(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 64, &p), CT_ERR_RUNTIME,
                      "CUDA error: fake driver failure");
    assert_null(p);
    assert_int_equal(stats(x, 0).num_device_allocs, 0);
    assert_int_equal(stats(x, 0).reserved, 0);
    /* the next one works */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 64, &p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_OK);
}

static void test_misuse(void **state) {
    fixture *x = *state;
    void *p;
    int local;
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, -1, stream_a, 64, &p), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, CT_CUDA_ALLOC_MAX_DEVICES, stream_a, 64, &p),
                     CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 64, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, NULL), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, &local), CT_ERR_MISUSE);
    assert_non_null(strstr(ct_last_error(), "was not allocated by it (or freed twice)"));
    /* a double free is refused and changes nothing */
    assert_int_equal(ct_cuda_impl_alloc_malloc(x->a, 0, stream_a, 64, &p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_free(x->a, p), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, 0), 1);
    assert_int_equal(stats(x, 0).allocated, 0);
    ct_cuda_caching_alloc *a;
    ct_cuda_alloc_raw raw = {0};
    assert_int_equal(ct_cuda_impl_alloc_new(&raw, &a), CT_ERR_MISUSE);
    ct_cuda_impl_alloc_destroy(NULL);
}

/* Many blocks: the tables grow and still find every block. */
static void test_many_blocks(void **state) {
    fixture *x = *state;
    enum { N = 5000 };
    void **p = calloc(N, sizeof *p);
    assert_non_null(p);
    for (int i = 0; i < N; i++)
        assert_int_equal(
            ct_cuda_impl_alloc_malloc(x->a, i % 3, (void *)(uintptr_t)(i % 5), 64 * (size_t)(i % 40 + 1), &p[i]),
            CT_OK);
    for (int i = 0; i < N; i += 2)
        assert_int_equal(ct_cuda_impl_alloc_free(x->a, p[i]), CT_OK);
    int64_t raw_before = x->f.allocs;
    /* the same requests again are served from the cache */
    for (int i = 0; i < N; i += 2)
        assert_int_equal(
            ct_cuda_impl_alloc_malloc(x->a, i % 3, (void *)(uintptr_t)(i % 5), 64 * (size_t)(i % 40 + 1), &p[i]),
            CT_OK);
    assert_int_equal(x->f.allocs, raw_before);
    for (int i = 0; i < N; i++)
        assert_int_equal(ct_cuda_impl_alloc_free(x->a, p[i]), CT_OK);
    assert_int_equal(ct_cuda_impl_alloc_cached_blocks(x->a, -1), N);
    for (int d = 0; d < 3; d++)
        assert_int_equal(stats(x, d).allocated, 0);
    free(p);
}

/* ---- threads ---- */

typedef struct worker_arg {
    fixture *x;
    int id;
    int errors;
} worker_arg;

static void *worker(void *arg) {
    worker_arg *w = arg;
    void *stream = (void *)(uintptr_t)(0x100 * (w->id + 1));
    void *held[16] = {0};
    for (int round = 0; round < 2000; round++) {
        int k = round % 16;
        if (held[k] != NULL && ct_cuda_impl_alloc_free(w->x->a, held[k]) != CT_OK)
            w->errors++;
        held[k] = NULL;
        size_t size = 128 * (size_t)((round * 7 + w->id) % 33 + 1);
        if (ct_cuda_impl_alloc_malloc(w->x->a, w->id % 2, stream, size, &held[k]) != CT_OK)
            w->errors++;
        else
            memset(held[k], w->id, size); /* the block is ours alone */
        if (round % 500 == 0 && ct_cuda_impl_alloc_empty_cache(w->x->a, -1) != CT_OK)
            w->errors++;
    }
    for (int k = 0; k < 16; k++)
        if (held[k] != NULL && ct_cuda_impl_alloc_free(w->x->a, held[k]) != CT_OK)
            w->errors++;
    return NULL;
}

static void test_threads(void **state) {
    fixture *x = *state;
    enum { T = 6 };
    pthread_t th[T];
    worker_arg args[T];
    for (int i = 0; i < T; i++) {
        args[i] = (worker_arg){.x = x, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(args[i].errors, 0);
    }
    ct_cuda_memory_stats s0 = stats(x, 0), s1 = stats(x, 1);
    assert_int_equal(s0.allocated + s1.allocated, 0);
    assert_int_equal(s0.reserved + s1.reserved, x->f.live_bytes);
    assert_int_equal(ct_cuda_impl_alloc_empty_cache(x->a, -1), CT_OK);
    assert_int_equal(x->f.live_bytes, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_format_size),
        cmocka_unit_test_setup_teardown(test_reuse_same_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_reuse_across_streams_devices_classes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peaks_and_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom_retries_after_emptying, setup, teardown),
        cmocka_unit_test(test_oom_message_without_mem_info),
        cmocka_unit_test_setup_teardown(test_raw_error_passes_through, setup, teardown),
        cmocka_unit_test_setup_teardown(test_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
