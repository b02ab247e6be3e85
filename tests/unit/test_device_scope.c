/* The current device (per thread and type), device counts, the current accelerator and
 * ordinals, and the default device (global default, per-thread scopes, resolution). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

static ct_device dev(ct_device_type t, int32_t i) {
    ct_device d = {t, i};
    return d;
}

/* privateuseone "npu": the library's host-emulated accelerator with 4 devices and its own
 * current device, its set_device and synchronize slots wrapped to count calls. */
static ct_backend npu_slots;
static atomic_int n_set, n_sync;

static ct_status count_set_device(void *ctx, int32_t index) {
    atomic_fetch_add(&n_set, 1);
    return npu_slots.set_device(ctx, index);
}

static ct_status count_synchronize(void *ctx, int32_t index) {
    atomic_fetch_add(&n_sync, 1);
    return npu_slots.synchronize(ctx, index);
}

static int register_npu(void) {
    if (ct_backend_host_emulated(CT_DEVICE_PRIVATEUSEONE, 4, &npu_slots) != CT_OK)
        return -1;
    npu_slots.name = "npu";
    ct_backend b = npu_slots;
    b.set_device = count_set_device;
    b.synchronize = count_synchronize;
    return ct_backend_register(&b) == CT_OK ? 0 : -1;
}

/* The emulated backend of `type` with `count` devices. */
static ct_backend emulated(ct_device_type type, int count) {
    ct_backend b;
    if (ct_backend_host_emulated(type, count, &b) != CT_OK)
        fail_msg("ct_backend_host_emulated: %s", ct_last_error());
    return b;
}

static int setup_npu(void **state) {
    (void)state;
    return register_npu();
}

static int teardown_npu(void **state) {
    (void)state;
    ct_set_default_device(NULL);
    ct_default_device_pop(0);
    return ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE) == CT_OK ? 0 : -1;
}

/* ---- counts and the current device ---- */

static void test_counts(void **state) {
    (void)state;
    int32_t n = -5;
    assert_int_equal(ct_device_count(CT_DEVICE_CPU, &n), CT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ct_device_count(CT_DEVICE_META, &n), CT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ct_device_count(CT_DEVICE_CUDA, &n), CT_OK); /* no backend: none */
    assert_int_equal(n, 0);
    assert_int_equal(ct_device_count(CT_DEVICE_PRIVATEUSEONE, &n), CT_OK);
    assert_int_equal(n, 4);
    assert_int_equal(ct_device_count((ct_device_type)30, &n), CT_ERR_MISUSE);
    assert_int_equal(n, 0);
    assert_int_equal(ct_device_count(CT_DEVICE_CPU, NULL), CT_ERR_MISUSE);
}

static void test_current_device(void **state) {
    (void)state;
    ct_device d;
    assert_int_equal(ct_current_device(CT_DEVICE_CPU, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CPU, -1)));
    assert_int_equal(ct_current_device(CT_DEVICE_META, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_META, -1)));
    assert_status_msg(ct_current_device(CT_DEVICE_CUDA, &d), CT_ERR_RUNTIME,
                      "No backend is registered for device type cuda");
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    assert_int_equal(ct_current_device(CT_DEVICE_PRIVATEUSEONE, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_PRIVATEUSEONE, 0)));

    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 2)), CT_OK);
    assert_int_equal(atomic_load(&n_set), 1);
    assert_int_equal(ct_current_device(CT_DEVICE_PRIVATEUSEONE, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_PRIVATEUSEONE, 2)));
    /* no index, cpu and meta: nothing changes */
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, -1)), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_CPU, 3)), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_META, 0)), CT_OK);
    assert_int_equal(atomic_load(&n_set), 1);
    assert_status_msg(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 4)), CT_ERR_RUNTIME,
                      "Device index 4 is out of range for npu: 4 devices are available");
    assert_status_msg(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 127)), CT_ERR_RUNTIME,
                      "Device index 127 is out of range for npu: 4 devices are available");
    assert_status_msg(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 128)), CT_ERR_RUNTIME,
                      "Device index 128 is out of range: device indices must be between 0 and "
                      "127");
    assert_status_msg(ct_set_device(dev(CT_DEVICE_CUDA, 0)), CT_ERR_RUNTIME,
                      "No backend is registered for device type cuda");
    assert_int_equal(ct_set_device(dev((ct_device_type)-3, 0)), CT_ERR_MISUSE);
    assert_int_equal(ct_current_device(CT_DEVICE_PRIVATEUSEONE, &d), CT_OK);
    assert_int_equal(d.index, 2);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
    assert_int_equal(ct_current_device(CT_DEVICE_PRIVATEUSEONE, NULL), CT_ERR_MISUSE);
    /* synchronize goes to the backend with the concrete index */
    assert_int_equal(ct_device_synchronize(dev(CT_DEVICE_PRIVATEUSEONE, 3)), CT_OK);
    assert_int_equal(ct_device_synchronize(dev(CT_DEVICE_PRIVATEUSEONE, -1)), CT_OK);
    assert_int_equal(ct_device_synchronize(dev(CT_DEVICE_CPU, -1)), CT_OK);
    assert_int_equal(ct_device_synchronize(dev(CT_DEVICE_META, -1)), CT_OK);
    assert_int_equal(atomic_load(&n_sync), 2);
    assert_int_equal(ct_device_synchronize(dev(CT_DEVICE_PRIVATEUSEONE, 9)), CT_ERR_RUNTIME);
}

/* Threads each pick their own current device, for the backend that keeps it (npu) and for
 * one whose index ctensor keeps (xpu), and never see each other's choice. */
#define N_THREADS 8
static pthread_barrier_t barrier;

static void *thread_current(void *arg) {
    int id = (int)(intptr_t)arg;
    int32_t mine = id % 4, x = id % 3;
    ct_device d;
    int bad = 0;
    for (int round = 0; round < 200; round++) {
        bad |= ct_current_device(CT_DEVICE_PRIVATEUSEONE, &d) != CT_OK || d.index != 0;
        bad |= ct_current_device(CT_DEVICE_XPU, &d) != CT_OK || d.index != 0;
        bad |= ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, mine)) != CT_OK;
        bad |= ct_set_device(dev(CT_DEVICE_XPU, x)) != CT_OK;
        if (round == 0)
            pthread_barrier_wait(&barrier); /* everyone has set before anyone checks */
        bad |= ct_current_device(CT_DEVICE_PRIVATEUSEONE, &d) != CT_OK || d.index != mine;
        bad |= ct_current_device(CT_DEVICE_XPU, &d) != CT_OK || d.index != x;
        /* an unindexed device means this thread's current one */
        ct_device r;
        bad |= ct_device_resolve(&(ct_device){CT_DEVICE_PRIVATEUSEONE, -1}, &r) != CT_OK ||
               r.index != mine;
        bad |= ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)) != CT_OK;
        bad |= ct_set_device(dev(CT_DEVICE_XPU, 0)) != CT_OK;
    }
    return (void *)(intptr_t)bad;
}

static void test_current_device_per_thread(void **state) {
    (void)state;
    ct_backend b = emulated(CT_DEVICE_XPU, 3);
    b.get_device = NULL; /* 3 devices, current index kept by ctensor */
    b.set_device = NULL;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 3)), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_XPU, 2)), CT_OK);

    pthread_t t[N_THREADS];
    pthread_barrier_init(&barrier, NULL, N_THREADS);
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_current, (void *)(intptr_t)i), 0);
    for (int i = 0; i < N_THREADS; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        assert_null(bad);
    }
    pthread_barrier_destroy(&barrier);
    ct_device d;
    assert_int_equal(ct_current_device(CT_DEVICE_PRIVATEUSEONE, &d), CT_OK);
    assert_int_equal(d.index, 3);
    assert_int_equal(ct_current_device(CT_DEVICE_XPU, &d), CT_OK);
    assert_int_equal(d.index, 2);
    assert_status_msg(ct_set_device(dev(CT_DEVICE_XPU, 3)), CT_ERR_RUNTIME,
                      "Device index 3 is out of range for xpu: 3 devices are available");
    assert_int_equal(ct_set_device(dev(CT_DEVICE_XPU, 0)), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
}

/* ---- the current accelerator and ordinals ---- */

static void test_accelerator_order(void **state) {
    (void)state;
    ct_device_type t;
    ct_device d;
    /* npu (PrivateUse1) is registered by the group setup: it wins over everything */
    assert_int_equal(ct_current_accelerator(&t), CT_OK);
    assert_int_equal(t, CT_DEVICE_PRIVATEUSEONE);
    assert_int_equal(ct_device_from_ordinal(3, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_PRIVATEUSEONE, 3)));
    /* not checked against the count here (torch.device(5) is fine with one GPU) */
    assert_int_equal(ct_device_from_ordinal(100, &d), CT_OK);
    assert_int_equal(d.index, 100);

    ct_backend cb = emulated(CT_DEVICE_CUDA, 0); /* a cuda backend that found no GPU */
    ct_backend xb = emulated(CT_DEVICE_XPU, 2);
    ct_backend mb = emulated(CT_DEVICE_MTIA, 1);
    assert_int_equal(ct_backend_register(&cb), CT_OK);
    assert_int_equal(ct_backend_register(&xb), CT_OK);
    assert_int_equal(ct_current_accelerator(&t), CT_OK);
    assert_int_equal(t, CT_DEVICE_PRIVATEUSEONE);

    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    assert_int_equal(ct_current_accelerator(&t), CT_OK);
    assert_int_equal(t, CT_DEVICE_XPU); /* cuda has no device */
    assert_int_equal(ct_device_from_ordinal(1, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_XPU, 1)));
    assert_int_equal(ct_backend_register(&mb), CT_OK);
    assert_int_equal(ct_current_accelerator(&t), CT_OK);
    assert_int_equal(t, CT_DEVICE_MTIA); /* mtia comes before xpu */
    /* cuda devices on a cuda backend without any: a clear error for memory */
    void *p;
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_CUDA, 0), 8, 0, &p, NULL), CT_ERR_RUNTIME,
                      "No cuda devices are available");
    assert_status_msg(ct_current_device(CT_DEVICE_CUDA, &d), CT_ERR_RUNTIME,
                      "No cuda devices are available");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    cb = emulated(CT_DEVICE_CUDA, 1); /* now one device: cuda comes first */
    cb.device_count = NULL;           /* (NULL means one device) */
    assert_int_equal(ct_backend_register(&cb), CT_OK);
    assert_int_equal(ct_current_accelerator(&t), CT_OK);
    assert_int_equal(t, CT_DEVICE_CUDA);
    assert_int_equal(ct_device_from_ordinal(0, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CUDA, 0)));
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_MTIA), CT_OK);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    assert_status_msg(ct_device_from_ordinal(0, &d), CT_ERR_RUNTIME,
                      "Cannot access accelerator device when none is available.");
    /* put npu back for the other tests */
    assert_int_equal(register_npu(), 0);
}

/* ---- the default device ---- */

static void expect_default(ct_device want) {
    ct_device d;
    if (ct_get_default_device(&d) != CT_OK)
        fail_msg("ct_get_default_device: %s", ct_last_error());
    assert_true(ct_device_equal(d, want));
}

static void test_default_device_global(void **state) {
    (void)state;
    expect_default(dev(CT_DEVICE_CPU, -1));
    ct_device d = dev(CT_DEVICE_META, -1);
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    expect_default(dev(CT_DEVICE_META, -1));
    d = dev(CT_DEVICE_CPU, 1); /* an explicit index stays, as torch.get_default_device */
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    expect_default(dev(CT_DEVICE_CPU, 1));
    /* an accelerator without index answers with the current device, at each call */
    d = dev(CT_DEVICE_PRIVATEUSEONE, -1);
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    expect_default(dev(CT_DEVICE_PRIVATEUSEONE, 0));
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 2)), CT_OK);
    expect_default(dev(CT_DEVICE_PRIVATEUSEONE, 2));
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
    /* a default without backend can be set; asking for it then fails */
    d = dev(CT_DEVICE_CUDA, -1);
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    ct_device out;
    assert_status_msg(ct_get_default_device(&out), CT_ERR_RUNTIME,
                      "No backend is registered for device type cuda");
    assert_int_equal(out.type, CT_DEVICE_UNDEFINED);
    d = dev(CT_DEVICE_CUDA, 1);
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    expect_default(dev(CT_DEVICE_CUDA, 1));
    /* invalid values change nothing */
    d = dev(CT_DEVICE_CUDA, 300);
    assert_int_equal(ct_set_default_device(&d), CT_ERR_RUNTIME);
    d = dev((ct_device_type)77, 0);
    assert_int_equal(ct_set_default_device(&d), CT_ERR_MISUSE);
    expect_default(dev(CT_DEVICE_CUDA, 1));
    /* none: NULL or an undefined device */
    d = dev(CT_DEVICE_UNDEFINED, -1);
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    expect_default(dev(CT_DEVICE_CPU, -1));
    d = dev(CT_DEVICE_XLA, 5);
    assert_int_equal(ct_set_default_device(&d), CT_OK);
    expect_default(dev(CT_DEVICE_XLA, 5));
    assert_int_equal(ct_set_default_device(NULL), CT_OK);
    expect_default(dev(CT_DEVICE_CPU, -1));
    assert_int_equal(ct_get_default_device(NULL), CT_ERR_MISUSE);
}

static void test_default_device_scopes(void **state) {
    (void)state;
    ct_device g = dev(CT_DEVICE_META, -1);
    assert_int_equal(ct_set_default_device(&g), CT_OK);
    assert_int_equal(ct_default_device_depth(), 0);
    size_t m1, m2, m3;
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_PRIVATEUSEONE, 1), &m1), CT_OK);
    assert_int_equal(m1, 0);
    expect_default(dev(CT_DEVICE_PRIVATEUSEONE, 1)); /* the scope beats the global default */
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_CPU, -1), &m2), CT_OK);
    assert_int_equal(m2, 1);
    expect_default(dev(CT_DEVICE_CPU, -1));
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_PRIVATEUSEONE, -1), &m3), CT_OK);
    expect_default(dev(CT_DEVICE_PRIVATEUSEONE, 0));
    assert_int_equal(ct_default_device_depth(), 3);
    ct_default_device_pop(m3);
    expect_default(dev(CT_DEVICE_CPU, -1));
    ct_default_device_pop(m2);
    expect_default(dev(CT_DEVICE_PRIVATEUSEONE, 1));
    ct_default_device_pop(m2); /* twice: harmless */
    expect_default(dev(CT_DEVICE_PRIVATEUSEONE, 1));
    ct_default_device_pop(m1);
    expect_default(dev(CT_DEVICE_META, -1));
    assert_int_equal(ct_default_device_depth(), 0);

    /* an error path: a failed push reports the depth, and popping to it changes nothing */
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_CPU, 0), &m1), CT_OK);
    assert_status_msg(ct_default_device_push(dev(CT_DEVICE_CUDA, 128), &m2), CT_ERR_RUNTIME,
                      "Device index 128 is out of range: device indices must be between 0 and "
                      "127");
    assert_int_equal(m2, 1);
    ct_default_device_pop(m2);
    expect_default(dev(CT_DEVICE_CPU, 0));
    assert_int_equal(ct_default_device_push(dev((ct_device_type)99, 0), NULL), CT_ERR_MISUSE);
    /* an inner scope left open by an error is dropped with its outer one */
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_META, -1), NULL), CT_OK);
    assert_int_equal(ct_default_device_depth(), 2);
    ct_default_device_pop(m1);
    assert_int_equal(ct_default_device_depth(), 0);
    expect_default(dev(CT_DEVICE_META, -1));

    /* the depth limit */
    size_t first = 99;
    for (int i = 0; i < CT_DEFAULT_DEVICE_MAX_DEPTH; i++)
        assert_int_equal(ct_default_device_push(dev(CT_DEVICE_CPU, i % 128), i ? NULL : &first),
                         CT_OK);
    assert_status_msg(ct_default_device_push(dev(CT_DEVICE_CPU, -1), &m1), CT_ERR_RUNTIME,
                      "Default device scopes are nested too deeply (at most 256)");
    assert_int_equal(m1, CT_DEFAULT_DEVICE_MAX_DEPTH);
    expect_default(dev(CT_DEVICE_CPU, 127));
    ct_default_device_pop(first);
    assert_int_equal(ct_default_device_depth(), 0);
    assert_int_equal(ct_set_default_device(NULL), CT_OK);
}

/* Scopes are per thread; the global default is shared. */
static void *thread_scope(void *arg) {
    int id = (int)(intptr_t)arg;
    int bad = 0;
    ct_device d;
    /* the main thread's scope is invisible here; the global default is visible */
    bad |= ct_get_default_device(&d) != CT_OK || !ct_device_equal(d, dev(CT_DEVICE_META, -1));
    bad |= ct_default_device_depth() != 0;
    for (int round = 0; round < 100; round++) {
        size_t m;
        bad |= ct_default_device_push(dev(CT_DEVICE_PRIVATEUSEONE, id % 4), &m) != CT_OK;
        bad |= ct_default_device_push(dev(CT_DEVICE_CPU, id % 100), NULL) != CT_OK;
        bad |=
            ct_get_default_device(&d) != CT_OK || !ct_device_equal(d, dev(CT_DEVICE_CPU, id % 100));
        ct_device r;
        bad |= ct_device_resolve(NULL, &r) != CT_OK || !ct_device_equal(r, dev(CT_DEVICE_CPU, -1));
        ct_default_device_pop(m + 1);
        bad |= ct_device_resolve(NULL, &r) != CT_OK ||
               !ct_device_equal(r, dev(CT_DEVICE_PRIVATEUSEONE, id % 4));
        ct_default_device_pop(m);
    }
    bad |= ct_default_device_depth() != 0;
    return (void *)(intptr_t)bad;
}

static void test_default_device_threads(void **state) {
    (void)state;
    ct_device g = dev(CT_DEVICE_META, -1);
    assert_int_equal(ct_set_default_device(&g), CT_OK);
    size_t m;
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_XLA, 1), &m), CT_OK);
    pthread_t t[N_THREADS];
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_scope, (void *)(intptr_t)i), 0);
    for (int i = 0; i < N_THREADS; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        assert_null(bad);
    }
    expect_default(dev(CT_DEVICE_XLA, 1));
    assert_int_equal(ct_default_device_depth(), 1);
    ct_default_device_pop(m);
    assert_int_equal(ct_set_default_device(NULL), CT_OK);
}

/* ---- resolution for factory functions ---- */

static void expect_resolve(const ct_device *in, ct_device want) {
    ct_device d;
    if (ct_device_resolve(in, &d) != CT_OK)
        fail_msg("ct_device_resolve: %s", ct_last_error());
    assert_true(ct_device_equal(d, want));
}

static void test_resolve(void **state) {
    (void)state;
    ct_device cpu1 = dev(CT_DEVICE_CPU, 1), meta0 = dev(CT_DEVICE_META, 0),
              npu = dev(CT_DEVICE_PRIVATEUSEONE, -1), npu3 = dev(CT_DEVICE_PRIVATEUSEONE, 3);
    expect_resolve(NULL, dev(CT_DEVICE_CPU, -1));
    expect_resolve(&cpu1, dev(CT_DEVICE_CPU, -1)); /* CPU memory never carries an index */
    expect_resolve(&meta0, dev(CT_DEVICE_META, -1));
    expect_resolve(&npu, dev(CT_DEVICE_PRIVATEUSEONE, 0));
    expect_resolve(&npu3, npu3);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 1)), CT_OK);
    expect_resolve(&npu, dev(CT_DEVICE_PRIVATEUSEONE, 1));
    /* the default applies only when no device is given */
    size_t m;
    assert_int_equal(ct_default_device_push(npu3, &m), CT_OK);
    expect_resolve(NULL, npu3);
    expect_resolve(&cpu1, dev(CT_DEVICE_CPU, -1));
    ct_default_device_pop(m);
    assert_int_equal(ct_set_default_device(&npu), CT_OK);
    expect_resolve(NULL, dev(CT_DEVICE_PRIVATEUSEONE, 1));
    assert_int_equal(ct_set_default_device(NULL), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);

    ct_device d, bad = dev(CT_DEVICE_PRIVATEUSEONE, 4);
    assert_status_msg(ct_device_resolve(&bad, &d), CT_ERR_RUNTIME,
                      "Device index 4 is out of range for npu: 4 devices are available");
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    bad = dev(CT_DEVICE_HPU, 0);
    assert_status_msg(ct_device_resolve(&bad, &d), CT_ERR_RUNTIME,
                      "No backend is registered for device type hpu");
    bad = dev(CT_DEVICE_CPU, -7);
    assert_status_msg(ct_device_resolve(&bad, &d), CT_ERR_RUNTIME,
                      "Device index must be -1 or non-negative, got -7");
    assert_int_equal(ct_device_resolve(NULL, NULL), CT_ERR_MISUSE);
}

/* OneFlow mode: an unindexed accelerator shows (and gets) its current device. */
static void test_oneflow_current_index(void **state) {
    (void)state;
    assert_int_equal(ct_set_compat_mode(CT_COMPAT_ONEFLOW), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 2)), CT_OK);
    ct_device d;
    assert_int_equal(ct_device_from_string("npu", &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_PRIVATEUSEONE, 2)));
    char buf[CT_DEVICE_STRING_MAX];
    ct_clear_error();
    assert_int_equal(ct_device_repr(dev(CT_DEVICE_PRIVATEUSEONE, -1), buf, sizeof buf), CT_OK);
    assert_string_equal(buf, "device(type='npu', index=2)");
    assert_int_equal(ct_device_str(dev(CT_DEVICE_PRIVATEUSEONE, -1), buf, sizeof buf), CT_OK);
    assert_string_equal(buf, "npu:2");
    assert_int_equal(ct_device_from_ordinal(1, &d), CT_OK); /* legacy: cuda */
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CUDA, 1)));
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
    assert_int_equal(ct_set_compat_mode(CT_COMPAT_PYTORCH), CT_OK);
    assert_int_equal(ct_device_from_string("npu", &d), CT_OK);
    assert_int_equal(d.index, -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_current_device),
        cmocka_unit_test(test_current_device_per_thread),
        cmocka_unit_test(test_accelerator_order),
        cmocka_unit_test(test_default_device_global),
        cmocka_unit_test(test_default_device_scopes),
        cmocka_unit_test(test_default_device_threads),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_oneflow_current_index),
    };
    return cmocka_run_group_tests(tests, setup_npu, teardown_npu);
}
