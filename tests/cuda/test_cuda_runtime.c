/* The cuda backend's runtime on a GPU: devices and the current device per thread, the
 * caching allocator through tensor factories (reuse, statistics, empty_cache, out of
 * memory), copies host <-> device <-> device of many sizes (overlapping ones too), fills,
 * streams (current per thread and device, work on them, freeing a current one), events
 * (timing, waits), pinned memory and asynchronous copies, concurrent threads.
 * Without a GPU it exits 77 (ctest: skipped). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/backend.h"
#include "ctensor/ctensor.h"
#include "ctensor/cuda.h"

#define CHECK_OK(call)                                                         \
    do {                                                                       \
        ct_status st__ = (call);                                               \
        if (st__ != CT_OK)                                                     \
            fail_msg("%s -> %s: %s", #call, ct_status_name(st__), ct_last_error()); \
    } while (0)

static const ct_device CPU = {CT_DEVICE_CPU, -1};
static const ct_device CUDA0 = {CT_DEVICE_CUDA, 0};
static int32_t ndev;

static ct_cuda_memory_stats stats0(void) {
    ct_cuda_memory_stats s;
    CHECK_OK(ct_cuda_memory_stats_get(0, &s));
    return s;
}

/* A reproducible int32 pattern. */
static int32_t pattern(int64_t i, int32_t seed) {
    return (int32_t)((uint32_t)(i + 1) * 2654435761u) ^ seed;
}

static ct_tensor *host_ints(int64_t n, int32_t seed) {
    int32_t *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = pattern(i, seed);
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_data(&n, 1, CT_INT32, v, &CPU, &t));
    free(v);
    return t;
}

static void assert_ints(const ct_tensor *cpu, int64_t n, int32_t seed) {
    assert_int_equal(ct_tensor_device(cpu).type, CT_DEVICE_CPU);
    assert_int_equal(ct_tensor_numel(cpu), n);
    ct_tensor *c = NULL;
    CHECK_OK(ct_tensor_contiguous(cpu, CT_MEMFMT_CONTIGUOUS, &c));
    const int32_t *v = ct_tensor_data_ptr(c);
    for (int64_t i = 0; i < n; i++)
        if (v[i] != pattern(i, seed))
            fail_msg("element %lld of %lld: %d != %d", (long long)i, (long long)n, v[i],
                     pattern(i, seed));
    ct_tensor_release(c);
}

static ct_tensor *to_cpu(const ct_tensor *t) {
    ct_tensor *c = NULL;
    CHECK_OK(ct_tensor_to_device(t, CPU, &c));
    return c;
}

/* ---- devices ---- */

static void *other_thread_device(void *arg) {
    ct_device d;
    *(int32_t *)arg = ct_current_device(CT_DEVICE_CUDA, &d) == CT_OK ? d.index : -100;
    if (ndev > 1 && ct_set_device((ct_device){CT_DEVICE_CUDA, 1}) != CT_OK)
        *(int32_t *)arg = -200;
    return NULL;
}

static void test_devices(void **state) {
    (void)state;
    assert_true(ct_cuda_is_available());
    int32_t n = 0;
    CHECK_OK(ct_device_count(CT_DEVICE_CUDA, &n));
    assert_int_equal(n, ndev);
    char name[128];
    int32_t major = 0, minor = -1, sms = 0;
    int64_t total = 0;
    for (int32_t d = 0; d < ndev; d++) {
        CHECK_OK(ct_cuda_get_device_properties(d, name, sizeof name, &major, &minor, &total, &sms));
        print_message("cuda:%d: %s, sm_%d%d, %lld MiB, %d SMs\n", (int)d, name, (int)major,
                      (int)minor, (long long)(total >> 20), (int)sms);
        assert_true(strlen(name) > 0);
        assert_true(major >= 1);
        assert_true(total > 0);
        assert_true(sms > 0);
    }
    assert_status_msg(ct_cuda_get_device_properties(ndev, name, sizeof name, NULL, NULL, NULL, NULL),
                      CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    assert_status_msg(ct_cuda_synchronize(ndev), CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    CHECK_OK(ct_cuda_synchronize(-1));
    CHECK_OK(ct_device_synchronize(CUDA0));
    /* a small name buffer is truncated, NUL-terminated */
    char tiny[4];
    CHECK_OK(ct_cuda_get_device_properties(0, tiny, sizeof tiny, NULL, NULL, NULL, NULL));
    assert_int_equal(strlen(tiny), 3);
    /* the current device, per thread */
    ct_device d;
    CHECK_OK(ct_current_device(CT_DEVICE_CUDA, &d));
    assert_int_equal(d.index, 0);
    CHECK_OK(ct_set_device(CUDA0));
    ct_device beyond = {CT_DEVICE_CUDA, (int8_t)ndev};
    assert_int_equal(ct_set_device(beyond), CT_ERR_RUNTIME);
    if (ndev > 1) {
        CHECK_OK(ct_set_device((ct_device){CT_DEVICE_CUDA, 1}));
        CHECK_OK(ct_current_device(CT_DEVICE_CUDA, &d));
        assert_int_equal(d.index, 1);
    }
    int32_t seen = -1;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, other_thread_device, &seen), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(seen, 0); /* a new thread starts on device 0 */
    CHECK_OK(ct_current_device(CT_DEVICE_CUDA, &d));
    assert_int_equal(d.index, ndev > 1 ? 1 : 0); /* the other thread's set_device is its own */
    if (ndev > 1) {
        /* a tensor on cuda:0 made while cuda:1 is current lands on cuda:0, and the slots
         * put the caller's device back */
        ct_tensor *h = host_ints(1000, 5), *g = NULL;
        CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));
        assert_int_equal(ct_tensor_get_device(g), 0);
        CHECK_OK(ct_current_device(CT_DEVICE_CUDA, &d));
        assert_int_equal(d.index, 1);
        ct_tensor *back = to_cpu(g);
        assert_ints(back, 1000, 5);
        /* cuda:0 -> cuda:1 */
        ct_tensor *g1 = NULL;
        CHECK_OK(ct_tensor_to_device(g, (ct_device){CT_DEVICE_CUDA, 1}, &g1));
        assert_int_equal(ct_tensor_get_device(g1), 1);
        ct_tensor *back1 = to_cpu(g1);
        assert_ints(back1, 1000, 5);
        ct_tensor_release(back1);
        ct_tensor_release(g1);
        ct_tensor_release(back);
        ct_tensor_release(g);
        ct_tensor_release(h);
        CHECK_OK(ct_set_device(CUDA0));
    }
}

/* ---- the caching allocator ---- */

static void test_allocator(void **state) {
    (void)state;
    CHECK_OK(ct_cuda_empty_cache());
    ct_cuda_memory_stats s = stats0();
    int64_t base_alloc = s.allocated, base_reserved = s.reserved, base_n = s.num_device_allocs;
    assert_int_equal(base_reserved, base_alloc); /* nothing cached after empty_cache */
    int64_t sizes[] = {1000};
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_empty(sizes, 1, CT_FLOAT32, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    assert_int_equal(ct_tensor_get_device(t), 0);
    void *p = ct_tensor_data_ptr(t);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 256, 0);
    s = stats0();
    assert_int_equal(s.allocated, base_alloc + 4096);
    assert_int_equal(s.reserved, base_reserved + 4096);
    assert_int_equal(s.num_device_allocs, base_n + 1);
    assert_true(s.max_allocated >= s.allocated);
    ct_tensor_release(t);
    s = stats0();
    assert_int_equal(s.allocated, base_alloc);
    assert_int_equal(s.reserved, base_reserved + 4096); /* cached */
    /* the same size class on the same stream: the cached block, no cudaMalloc */
    int64_t sizes2[] = {30, 31}; /* 3720 bytes: class 4096 */
    ct_device cuda = {CT_DEVICE_CUDA, -1};
    CHECK_OK(ct_tensor_empty(sizes2, 2, CT_FLOAT32, &cuda, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    assert_ptr_equal(ct_tensor_data_ptr(t), p);
    assert_int_equal(stats0().num_device_allocs, base_n + 1);
    /* many tensors, freed and made again: no new cudaMalloc */
    enum { N = 64 };
    ct_tensor *many[N];
    for (int i = 0; i < N; i++) {
        int64_t n = 1000 * (i + 1);
        CHECK_OK(ct_tensor_empty(&n, 1, CT_UINT8, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &many[i]));
    }
    int64_t n_after = stats0().num_device_allocs;
    for (int i = 0; i < N; i++)
        ct_tensor_release(many[i]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            int64_t n = 1000 * (i + 1);
            CHECK_OK(ct_tensor_empty(&n, 1, CT_UINT8, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &many[i]));
        }
        for (int i = 0; i < N; i++)
            ct_tensor_release(many[i]);
    }
    assert_int_equal(stats0().num_device_allocs, n_after);
    /* peaks */
    CHECK_OK(ct_cuda_reset_peak_memory_stats(0));
    s = stats0();
    assert_int_equal(s.max_allocated, s.allocated);
    assert_int_equal(s.max_reserved, s.reserved);
    /* empty tensors own no memory */
    int64_t zero = 0;
    ct_tensor *e = NULL;
    CHECK_OK(ct_tensor_empty(&zero, 1, CT_FLOAT32, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e));
    assert_int_equal(stats0().allocated, s.allocated);
    ct_tensor_release(e);
    ct_tensor_release(t);
    /* empty_cache gives everything back */
    CHECK_OK(ct_cuda_empty_cache());
    s = stats0();
    assert_int_equal(s.allocated, base_alloc);
    assert_int_equal(s.reserved, base_reserved);
    /* out of memory: PyTorch's message, after emptying the cache and retrying */
    int64_t huge = (int64_t)1 << 50;
    assert_int_equal(ct_tensor_empty(&huge, 1, CT_UINT8, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e),
                     CT_ERR_NOMEM);
    print_message("%s\n", ct_last_error());
    assert_non_null(strstr(ct_last_error(), "CUDA out of memory. Tried to allocate 1048576.00 GiB"));
    assert_null(e);
    /* and the device still works */
    ct_tensor *h = host_ints(777, 1), *g = NULL;
    CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));
    ct_tensor *back = to_cpu(g);
    assert_ints(back, 777, 1);
    ct_tensor_release(back);
    ct_tensor_release(g);
    ct_tensor_release(h);
    /* memory stats of a device that does not exist */
    assert_status_msg(ct_cuda_memory_stats_get(ndev, &s), CT_ERR_RUNTIME,
                      "CUDA error: invalid device ordinal");
}

/* ---- copies ---- */

static void test_copies(void **state) {
    (void)state;
    static const int64_t lengths[] = {1, 2, 3, 7, 64, 127, 128, 129, 1000, 4095, 4096, 65539,
                                      (1 << 20) + 1, 3 << 20, 25 << 20};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        int64_t n = lengths[k];
        int32_t seed = (int32_t)k * 77;
        ct_tensor *h = host_ints(n, seed), *g = NULL, *g2 = NULL;
        CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));   /* h2d */
        CHECK_OK(ct_tensor_clone(g, CT_MEMFMT_PRESERVE, &g2)); /* d2d */
        assert_ptr_not_equal(ct_tensor_data_ptr(g), ct_tensor_data_ptr(g2));
        ct_tensor_release(g);
        ct_tensor *back = to_cpu(g2);                   /* d2h */
        assert_ints(back, n, seed);
        /* a part of it, at an offset, into a part of another */
        if (n >= 8) {
            ct_tensor *a = NULL, *b = NULL, *dst = NULL, *dpart = NULL;
            CHECK_OK(ct_tensor_narrow(g2, 0, 3, n - 5, &a));
            CHECK_OK(ct_tensor_zeros(&n, 1, CT_INT32, &CPU, CT_LAYOUT_STRIDED, &b));
            CHECK_OK(ct_tensor_to_device(b, CUDA0, &dst));
            CHECK_OK(ct_tensor_narrow(dst, 0, 1, n - 5, &dpart));
            CHECK_OK(ct_tensor_copy_(dpart, a));
            ct_tensor *r = to_cpu(dst);
            const int32_t *v = ct_tensor_data_ptr(r);
            assert_int_equal(v[0], 0);
            for (int64_t i = 1; i < n - 4; i++)
                if (v[i] != pattern(i + 2, seed))
                    fail_msg("offset copy: element %lld", (long long)i);
            for (int64_t i = n - 4; i < n; i++)
                assert_int_equal(v[i], 0);
            ct_tensor_release(r);
            ct_tensor_release(dpart);
            ct_tensor_release(dst);
            ct_tensor_release(b);
            ct_tensor_release(a);
        }
        ct_tensor_release(back);
        ct_tensor_release(g2);
        ct_tensor_release(h);
    }
    /* doubles, transposed (through the host path) */
    double vals[6 * 5];
    for (int i = 0; i < 30; i++)
        vals[i] = i * 0.25 - 3.0;
    int64_t shape[] = {6, 5};
    ct_tensor *h = NULL, *g = NULL, *gt = NULL, *gtc = NULL;
    CHECK_OK(ct_tensor_from_data(shape, 2, CT_FLOAT64, vals, &CUDA0, &g));
    CHECK_OK(ct_tensor_transpose(g, 0, 1, &gt));
    CHECK_OK(ct_tensor_contiguous(gt, CT_MEMFMT_CONTIGUOUS, &gtc));
    h = to_cpu(gtc);
    const double *v = ct_tensor_data_ptr(h);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++)
            assert_true(v[i * 6 + j] == vals[j * 5 + i]);
    ct_tensor_release(h);
    ct_tensor_release(gtc);
    ct_tensor_release(gt);
    ct_tensor_release(g);
    /* overlapping ranges on one device, both directions (ct_device_copy allows them) */
    int64_t n = 100000;
    ct_tensor *src = host_ints(n, 9);
    CHECK_OK(ct_tensor_to_device(src, CUDA0, &g));
    char *base = ct_tensor_data_ptr(g);
    CHECK_OK(ct_device_copy(CUDA0, base + 4 * 10, CUDA0, base, 4 * (size_t)(n - 10))); /* forward */
    h = to_cpu(g);
    const int32_t *iv = ct_tensor_data_ptr(h);
    for (int64_t i = 10; i < n; i++)
        if (iv[i] != pattern(i - 10, 9))
            fail_msg("overlapping forward copy: element %lld", (long long)i);
    ct_tensor_release(h);
    CHECK_OK(ct_device_copy(CUDA0, base, CUDA0, base + 4 * 10, 4 * (size_t)(n - 10))); /* back */
    h = to_cpu(g);
    iv = ct_tensor_data_ptr(h);
    for (int64_t i = 0; i < n - 10; i++)
        if (iv[i] != pattern(i, 9))
            fail_msg("overlapping backward copy: element %lld", (long long)i);
    ct_tensor_release(h);
    ct_tensor_release(g);
    ct_tensor_release(src);
    /* raw copies with host pointers: the host side is complete on return */
    int32_t in[300], out[300];
    for (int i = 0; i < 300; i++)
        in[i] = i * 3 + 1;
    void *dp = NULL;
    ct_device where;
    CHECK_OK(ct_device_alloc(CUDA0, sizeof in, 0, &dp, &where));
    CHECK_OK(ct_device_copy(CUDA0, dp, CPU, in, sizeof in));
    memset(in, 0, sizeof in); /* a pageable source may be reused at once */
    CHECK_OK(ct_device_copy(CPU, out, CUDA0, dp, sizeof out));
    for (int i = 0; i < 300; i++)
        assert_int_equal(out[i], i * 3 + 1);
    CHECK_OK(ct_device_free(where, dp, sizeof in, 0));
}

/* ---- fills (the backend's fill slot) ---- */

static void test_fills(void **state) {
    (void)state;
    int64_t shape[] = {33, 65};
    ct_tensor *z = NULL, *o = NULL, *f = NULL, *c = NULL;
    CHECK_OK(ct_tensor_zeros(shape, 2, CT_FLOAT32, &CUDA0, CT_LAYOUT_STRIDED, &z));
    CHECK_OK(ct_tensor_ones(shape, 2, CT_INT16, &CUDA0, CT_LAYOUT_STRIDED, &o));
    CHECK_OK(ct_tensor_full(shape, 2, ct_scalar_float(2.5), CT_FLOAT64, &CUDA0, CT_LAYOUT_STRIDED, &f));
    c = to_cpu(z);
    for (int64_t i = 0; i < 33 * 65; i++)
        assert_true(((const float *)ct_tensor_data_ptr(c))[i] == 0.0f);
    ct_tensor_release(c);
    c = to_cpu(o);
    for (int64_t i = 0; i < 33 * 65; i++)
        assert_int_equal(((const int16_t *)ct_tensor_data_ptr(c))[i], 1);
    ct_tensor_release(c);
    c = to_cpu(f);
    for (int64_t i = 0; i < 33 * 65; i++)
        assert_true(((const double *)ct_tensor_data_ptr(c))[i] == 2.5);
    ct_tensor_release(c);
    /* fill_ of a column (strided) leaves the rest */
    ct_tensor *col = NULL;
    CHECK_OK(ct_tensor_select(f, 1, 7, &col));
    CHECK_OK(ct_tensor_fill_(col, ct_scalar_float(-1.0)));
    c = to_cpu(f);
    for (int64_t i = 0; i < 33; i++)
        for (int64_t j = 0; j < 65; j++)
            assert_true(((const double *)ct_tensor_data_ptr(c))[i * 65 + j] == (j == 7 ? -1.0 : 2.5));
    ct_tensor_release(c);
    ct_tensor_release(col);
    CHECK_OK(ct_tensor_zero_(f));
    c = to_cpu(f);
    for (int64_t i = 0; i < 33 * 65; i++)
        assert_true(((const double *)ct_tensor_data_ptr(c))[i] == 0.0);
    ct_tensor_release(c);
    ct_tensor_release(z);
    ct_tensor_release(o);
    ct_tensor_release(f);
}

/* Reductions run on their tensor's device (the last one, while device 0 is current), on
 * the current stream; an empty one fills the identity. */
static void test_reductions(void **state) {
    (void)state;
    ct_device dev = {CT_DEVICE_CUDA, ndev > 1 ? 1 : 0};
    int64_t shape[] = {300, 7}, dim0 = 0;
    ct_tensor *a = NULL, *r = NULL, *c = NULL;
    CHECK_OK(ct_tensor_ones(shape, 2, CT_INT16, &dev, CT_LAYOUT_STRIDED, &a));
    CHECK_OK(ct_sum(a, &dim0, 1, false, CT_DTYPE_UNDEFINED, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_INT64);
    c = to_cpu(r);
    for (int64_t j = 0; j < 7; j++)
        assert_int_equal(((const int64_t *)ct_tensor_data_ptr(c))[j], 300);
    ct_tensor_release(c);
    ct_tensor_release(r);
    CHECK_OK(ct_reduce(CT_REDUCE_AMAX, a, NULL, 0, false, CT_DTYPE_UNDEFINED, &r));
    c = to_cpu(r);
    assert_int_equal(((const int16_t *)ct_tensor_data_ptr(c))[0], 1);
    ct_tensor_release(c);
    ct_tensor_release(r);
    /* multi-number accumulators: ties give the first index; max(dim) gives both outputs */
    ct_tensor *ix = NULL;
    CHECK_OK(ct_max_dim(a, 0, false, &r, &ix));
    c = to_cpu(ix);
    for (int64_t j = 0; j < 7; j++)
        assert_int_equal(((const int64_t *)ct_tensor_data_ptr(c))[j], 0);
    ct_tensor_release(c);
    c = to_cpu(r);
    assert_int_equal(((const int16_t *)ct_tensor_data_ptr(c))[6], 1);
    ct_tensor_release(c);
    ct_tensor_release(r);
    ct_tensor_release(ix);
    ct_tensor *af = NULL;
    CHECK_OK(ct_tensor_to_dtype(a, CT_FLOAT32, &af));
    CHECK_OK(ct_std_var(af, &dim0, 1, 1.0, false, false, NULL, &r, NULL));
    c = to_cpu(r);
    assert_true(((const float *)ct_tensor_data_ptr(c))[3] == 0.0f);
    ct_tensor_release(c);
    ct_tensor_release(r);
    ct_tensor_release(af);
    ct_tensor_release(a);
    int64_t empty[] = {3, 0};
    CHECK_OK(ct_tensor_ones(empty, 2, CT_FLOAT32, &dev, CT_LAYOUT_STRIDED, &a));
    int64_t dim1 = 1;
    CHECK_OK(ct_reduce(CT_REDUCE_PROD, a, &dim1, 1, false, CT_DTYPE_UNDEFINED, &r));
    c = to_cpu(r);
    for (int64_t j = 0; j < 3; j++)
        assert_true(((const float *)ct_tensor_data_ptr(c))[j] == 1.0f);
    ct_tensor_release(c);
    ct_tensor_release(r);
    ct_tensor_release(a);
}

/* ---- streams ---- */

typedef struct stream_share {
    pthread_barrier_t step;
    ct_cuda_stream *stream;
    int errors;
} stream_share;

static void *stream_thread(void *arg) {
    stream_share *sh = arg;
    ct_cuda_stream *cur = NULL;
    /* a new thread starts on the default stream */
    if (ct_cuda_current_stream(0, &cur) != CT_OK || ct_cuda_stream_handle(cur) != 0)
        sh->errors++;
    if (ct_cuda_set_stream(sh->stream) != CT_OK)
        sh->errors++;
    if (ct_cuda_current_stream(0, &cur) != CT_OK || cur != sh->stream)
        sh->errors++;
    pthread_barrier_wait(&sh->step); /* the main thread frees the stream now */
    pthread_barrier_wait(&sh->step);
    /* it was current here: this thread is back on the default stream */
    if (ct_cuda_current_stream(0, &cur) != CT_OK || ct_cuda_stream_handle(cur) != 0)
        sh->errors++;
    ct_tensor *h = host_ints(5000, 3), *g = NULL;
    if (ct_tensor_to_device(h, CUDA0, &g) != CT_OK)
        sh->errors++;
    ct_tensor_release(g);
    ct_tensor_release(h);
    return NULL;
}

static void test_streams(void **state) {
    (void)state;
    ct_cuda_stream *def = NULL, *def2 = NULL, *cur = NULL, *s = NULL, *hi = NULL;
    CHECK_OK(ct_cuda_default_stream(-1, &def));
    CHECK_OK(ct_cuda_default_stream(0, &def2));
    assert_ptr_equal(def, def2);
    assert_int_equal(ct_cuda_stream_handle(def), 0);
    assert_int_equal(ct_cuda_stream_device(def), 0);
    CHECK_OK(ct_cuda_current_stream(-1, &cur));
    assert_ptr_equal(cur, def);
    ct_cuda_stream_free(def); /* ignored */
    CHECK_OK(ct_cuda_empty_cache()); /* no cached blocks of earlier tests */
    CHECK_OK(ct_cuda_stream_new(-1, 0, &s));
    CHECK_OK(ct_cuda_stream_new(0, -1000, &hi)); /* clamped to the highest priority */
    assert_int_not_equal(ct_cuda_stream_handle(s), 0);
    assert_int_equal(ct_cuda_stream_device(s), 0);
    assert_status_msg(ct_cuda_stream_new(ndev, 0, &cur), CT_ERR_RUNTIME,
                      "CUDA error: invalid device ordinal");
    /* work on a stream of our own */
    CHECK_OK(ct_cuda_set_stream(s));
    CHECK_OK(ct_cuda_current_stream(0, &cur));
    assert_ptr_equal(cur, s);
    ct_cuda_memory_stats before = stats0();
    int64_t n = 3 << 20;
    ct_tensor *h = host_ints(n, 11), *g = NULL, *g2 = NULL;
    CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));
    CHECK_OK(ct_tensor_clone(g, CT_MEMFMT_PRESERVE, &g2));
    CHECK_OK(ct_cuda_stream_synchronize(s));
    bool done = false;
    CHECK_OK(ct_cuda_stream_query(s, &done));
    assert_true(done);
    ct_tensor *back = to_cpu(g2);
    assert_ints(back, n, 11);
    ct_tensor_release(back);
    /* blocks are cached per stream: one freed on `s` is not used for the default stream */
    void *p = ct_tensor_data_ptr(g2);
    ct_tensor_release(g2);
    CHECK_OK(ct_cuda_set_stream(def));
    CHECK_OK(ct_tensor_clone(g, CT_MEMFMT_PRESERVE, &g2));
    CHECK_OK(ct_cuda_synchronize(0)); /* g is read on the default stream: done before reuse */
    assert_ptr_not_equal(ct_tensor_data_ptr(g2), p);
    assert_int_equal(stats0().num_device_allocs, before.num_device_allocs + 3);
    ct_tensor_release(g2);
    /* ... but serves `s` again */
    CHECK_OK(ct_cuda_set_stream(s));
    CHECK_OK(ct_tensor_clone(g, CT_MEMFMT_PRESERVE, &g2));
    assert_ptr_equal(ct_tensor_data_ptr(g2), p);
    assert_int_equal(stats0().num_device_allocs, before.num_device_allocs + 3);
    ct_tensor_release(g2);
    ct_tensor_release(g);
    ct_tensor_release(h);
    /* the high-priority stream works too */
    CHECK_OK(ct_cuda_set_stream(hi));
    h = host_ints(1000, 12);
    CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));
    back = to_cpu(g);
    assert_ints(back, 1000, 12);
    ct_tensor_release(back);
    ct_tensor_release(g);
    ct_tensor_release(h);
    /* freeing the current stream puts this thread back on the default one */
    ct_cuda_stream_free(hi);
    CHECK_OK(ct_cuda_current_stream(0, &cur));
    assert_ptr_equal(cur, def);
    /* ... and other threads too */
    stream_share sh = {.stream = s};
    pthread_barrier_init(&sh.step, NULL, 2);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stream_thread, &sh), 0);
    pthread_barrier_wait(&sh.step);
    CHECK_OK(ct_cuda_set_stream(def));
    ct_cuda_stream_free(s);
    pthread_barrier_wait(&sh.step);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_barrier_destroy(&sh.step);
    assert_int_equal(sh.errors, 0);
    ct_cuda_stream_free(NULL);
}

/* ---- events ---- */

static void test_events(void **state) {
    (void)state;
    ct_cuda_event *start = NULL, *end = NULL, *plain = NULL;
    CHECK_OK(ct_cuda_event_new(true, &start));
    CHECK_OK(ct_cuda_event_new(true, &end));
    CHECK_OK(ct_cuda_event_new(false, &plain));
    ct_cuda_stream *s = NULL;
    CHECK_OK(ct_cuda_stream_new(0, 0, &s));
    int64_t n = 16 << 20;
    ct_tensor *h = host_ints(n, 21), *g = NULL, *g2 = NULL;
    CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));
    CHECK_OK(ct_cuda_set_stream(s));
    CHECK_OK(ct_cuda_event_record(start, NULL)); /* the current stream: s */
    for (int i = 0; i < 8; i++) {
        ct_tensor_release(g2);
        g2 = NULL;
        CHECK_OK(ct_tensor_clone(g, CT_MEMFMT_PRESERVE, &g2));
    }
    CHECK_OK(ct_cuda_event_record(end, s));
    CHECK_OK(ct_cuda_event_record(plain, s));
    /* the default stream waits for `plain` before reading g2 */
    ct_cuda_stream *def = NULL;
    CHECK_OK(ct_cuda_default_stream(0, &def));
    CHECK_OK(ct_cuda_stream_wait_event(def, plain));
    CHECK_OK(ct_cuda_event_synchronize(end));
    bool done = false;
    CHECK_OK(ct_cuda_event_query(end, &done));
    assert_true(done);
    float ms = 0.0f;
    CHECK_OK(ct_cuda_event_elapsed_ms(start, end, &ms));
    print_message("8 copies of 64 MiB: %.3f ms\n", (double)ms);
    assert_true(ms > 0.0f);
    assert_status_msg(ct_cuda_event_elapsed_ms(start, plain, &ms), CT_ERR_RUNTIME,
                      "Both events must be created with argument 'enable_timing=True'.");
    CHECK_OK(ct_cuda_set_stream(def));
    ct_tensor *back = to_cpu(g2);
    assert_ints(back, n, 21);
    ct_tensor_release(back);
    /* an event never recorded: done, nothing to wait for */
    ct_cuda_event *fresh = NULL;
    CHECK_OK(ct_cuda_event_new(false, &fresh));
    CHECK_OK(ct_cuda_event_query(fresh, &done));
    assert_true(done);
    CHECK_OK(ct_cuda_stream_wait_event(NULL, fresh));
    CHECK_OK(ct_cuda_event_synchronize(fresh));
    ct_cuda_event_free(fresh);
    if (ndev > 1) {
        ct_cuda_stream *s1 = NULL;
        CHECK_OK(ct_cuda_stream_new(1, 0, &s1));
        assert_status_msg(ct_cuda_event_record(end, s1), CT_ERR_RUNTIME,
                          "Event device 0 does not match recording stream's device 1.");
        CHECK_OK(ct_cuda_stream_wait_event(s1, plain)); /* across devices is fine */
        CHECK_OK(ct_cuda_stream_synchronize(s1));
        ct_cuda_stream_free(s1);
    }
    ct_tensor_release(g2);
    ct_tensor_release(g);
    ct_tensor_release(h);
    ct_cuda_stream_free(s);
    ct_cuda_event_free(start);
    ct_cuda_event_free(end);
    ct_cuda_event_free(plain);
}

/* ---- pinned memory ---- */

static void test_pinned(void **state) {
    (void)state;
    int64_t n = 1 << 20;
    ct_tensor *h = host_ints(n, 31), *p = NULL, *p2 = NULL;
    assert_false(ct_cuda_is_pinned(h));
    CHECK_OK(ct_cuda_pin_memory(h, &p));
    assert_true(ct_cuda_is_pinned(p));
    assert_false(ct_cuda_is_pinned(h));
    assert_int_equal(ct_tensor_dtype(p), CT_INT32);
    assert_ints(p, n, 31);
    CHECK_OK(ct_cuda_pin_memory(p, &p2)); /* already pinned: itself */
    assert_ptr_equal(p2, p);
    ct_tensor_release(p2);
    /* strides are kept; the storage offset is not */
    int64_t shape[] = {64, 48};
    ct_tensor *m = NULL, *mt = NULL, *part = NULL, *pm = NULL;
    CHECK_OK(ct_tensor_view(h, (int64_t[]){1024, 1024}, 2, &m));
    CHECK_OK(ct_tensor_narrow(m, 0, 3, shape[0], &part));
    ct_tensor_release(m);
    CHECK_OK(ct_tensor_narrow(part, 1, 5, shape[1], &m));
    ct_tensor_release(part);
    CHECK_OK(ct_tensor_transpose(m, 0, 1, &mt));
    CHECK_OK(ct_cuda_pin_memory(mt, &pm));
    assert_true(ct_cuda_is_pinned(pm));
    assert_int_equal(ct_tensor_storage_offset(pm), 0);
    assert_memory_equal(ct_tensor_strides(pm), ct_tensor_strides(mt), 2 * sizeof(int64_t));
    assert_memory_equal(ct_tensor_sizes(pm), ct_tensor_sizes(mt), 2 * sizeof(int64_t));
    for (int64_t i = 0; i < shape[1]; i++)
        for (int64_t j = 0; j < shape[0]; j++) {
            const int32_t *a = ct_tensor_data_ptr(pm), *b = ct_tensor_data_ptr(mt);
            assert_int_equal(a[i + j * 1024], b[i + j * 1024]);
        }
    ct_tensor_release(pm);
    ct_tensor_release(mt);
    ct_tensor_release(m);
    /* an empty tensor pins too */
    int64_t zero = 0;
    ct_tensor *e = NULL, *pe = NULL;
    CHECK_OK(ct_tensor_empty(&zero, 1, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &e));
    CHECK_OK(ct_cuda_pin_memory(e, &pe));
    assert_int_equal(ct_tensor_numel(pe), 0);
    ct_tensor_release(pe);
    ct_tensor_release(e);
    /* cuda tensors cannot be pinned and are not pinned */
    ct_tensor *g = NULL;
    CHECK_OK(ct_tensor_to_device(h, CUDA0, &g));
    assert_false(ct_cuda_is_pinned(g));
    assert_status_msg(ct_cuda_pin_memory(g, &p2), CT_ERR_RUNTIME,
                      "cannot pin 'torch.cuda.IntTensor' only dense CPU tensors can be pinned");
    ct_tensor_release(g);
    /* async round trip on a stream of our own: pinned -> cuda -> pinned */
    ct_cuda_stream *s = NULL;
    CHECK_OK(ct_cuda_stream_new(0, 0, &s));
    CHECK_OK(ct_cuda_set_stream(s));
    CHECK_OK(ct_tensor_empty(&n, 1, CT_INT32, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &g));
    ct_tensor *z = NULL, *pz = NULL;
    CHECK_OK(ct_tensor_zeros(&n, 1, CT_INT32, &CPU, CT_LAYOUT_STRIDED, &z));
    CHECK_OK(ct_cuda_pin_memory(z, &pz));
    CHECK_OK(ct_cuda_copy_async(g, p));
    CHECK_OK(ct_cuda_copy_async(pz, g));
    CHECK_OK(ct_cuda_stream_synchronize(s));
    assert_ints(pz, n, 31);
    /* other pairs fall back to copy_ (complete on return) */
    CHECK_OK(ct_cuda_copy_async(z, g)); /* pageable destination */
    assert_ints(z, n, 31);
    ct_tensor *g64 = NULL;
    CHECK_OK(ct_tensor_empty(&n, 1, CT_INT64, &CUDA0, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &g64));
    ct_tensor_release(g64); /* (dtype-converting copies are the kernels' tests) */
    ct_cuda_stream *def = NULL;
    CHECK_OK(ct_cuda_default_stream(0, &def));
    CHECK_OK(ct_cuda_set_stream(def));
    ct_cuda_stream_free(s);
    ct_tensor_release(pz);
    ct_tensor_release(z);
    ct_tensor_release(g);
    ct_tensor_release(p);
    ct_tensor_release(h);
}

/* ---- threads ---- */

typedef struct worker {
    int id;
    int errors;
    char msg[256];
} worker;

static void *work(void *arg) {
    worker *w = arg;
    ct_cuda_stream *s = NULL;
    if (w->id % 2 == 1) { /* half of them on streams of their own */
        if (ct_cuda_stream_new(0, 0, &s) != CT_OK || ct_cuda_set_stream(s) != CT_OK) {
            w->errors++;
            return NULL;
        }
    }
    for (int round = 0; round < 20; round++) {
        int64_t n = 1000 + 977 * (round + w->id);
        int32_t seed = w->id * 1000 + round;
        ct_tensor *h = host_ints(n, seed), *g = NULL, *g2 = NULL, *back = NULL;
        ct_status st = ct_tensor_to_device(h, CUDA0, &g);
        if (st == CT_OK)
            st = ct_tensor_clone(g, CT_MEMFMT_PRESERVE, &g2);
        if (st == CT_OK)
            st = ct_tensor_to_device(g2, CPU, &back);
        if (st != CT_OK) {
            w->errors++;
            snprintf(w->msg, sizeof w->msg, "%s", ct_last_error());
        } else {
            const int32_t *v = ct_tensor_data_ptr(back);
            for (int64_t i = 0; i < n; i++)
                if (v[i] != pattern(i, seed)) {
                    w->errors++;
                    snprintf(w->msg, sizeof w->msg, "round %d element %lld", round, (long long)i);
                    break;
                }
        }
        ct_tensor_release(back);
        ct_tensor_release(g2);
        ct_tensor_release(g);
        ct_tensor_release(h);
    }
    ct_cuda_stream_free(s);
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    enum { T = 8 };
    pthread_t th[T];
    worker w[T];
    ct_cuda_memory_stats before = stats0();
    for (int i = 0; i < T; i++) {
        w[i] = (worker){.id = i};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        if (w[i].errors != 0)
            fail_msg("thread %d: %d errors (%s)", i, w[i].errors, w[i].msg);
    }
    assert_int_equal(stats0().allocated, before.allocated);
    CHECK_OK(ct_cuda_empty_cache());
    CHECK_OK(ct_cuda_synchronize(-1));
}

/* The caching allocator keeps freed blocks for reuse until empty_cache (as PyTorch's does):
 * they go back to the driver after the last test, whichever it is, so that the leak check
 * of compute-sanitizer sees only real leaks. */
static int give_back_cache(void **state) {
    (void)state;
    return ct_cuda_synchronize(-1) == CT_OK && ct_cuda_empty_cache() == CT_OK ? 0 : -1;
}

int main(void) {
    if (ct_cuda_init() != CT_OK) {
        fprintf(stderr, "ct_cuda_init: %s\n", ct_last_error());
        return 1;
    }
    ndev = ct_cuda_device_count();
    if (ndev == 0) {
        fprintf(stderr, "no cuda device: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices),  cmocka_unit_test(test_allocator),
        cmocka_unit_test(test_copies),   cmocka_unit_test(test_fills),
        cmocka_unit_test(test_streams),  cmocka_unit_test(test_events),
        cmocka_unit_test(test_pinned),   cmocka_unit_test(test_threads),
        cmocka_unit_test(test_reductions),
    };
    return cmocka_run_group_tests(tests, NULL, give_back_cache);
}
