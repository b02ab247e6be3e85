/* The backend registry and device memory: registration rules and errors, cpu and meta
 * memory, and the library's host-emulated accelerator registered as privateuseone ("npu",
 * 4 devices) for accelerator rules: current device, copies between devices, fills,
 * optional-slot defaults, allocation errors, concurrent use. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

static ct_device dev(ct_device_type t, int32_t i) {
    ct_device d = {t, i};
    return d;
}

static const ct_device CPU = {CT_DEVICE_CPU, -1};

/* The emulated backend of `type` with `count` devices (a privateuseone one named `name`). */
static ct_backend emulated(ct_device_type type, int count, const char *name) {
    ct_backend b;
    if (ct_backend_host_emulated(type, count, &b) != CT_OK)
        fail_msg("ct_backend_host_emulated: %s", ct_last_error());
    if (name != NULL)
        b.name = name;
    return b;
}

/* Whether [p, p + n) is memory of device d: the emulated backend refuses other pointers. */
static bool owned_by(ct_device d, const void *p, size_t n) {
    unsigned char tmp[256];
    return n <= sizeof tmp && ct_device_copy(CPU, tmp, d, p, n) == CT_OK;
}

static const char *no_driver_message(void *ctx) {
    (void)ctx;
    return "Found no driver";
}

static const char *null_message(void *ctx) {
    (void)ctx;
    return NULL;
}

/* ---- registration ---- */

static void test_builtins(void **state) {
    (void)state;
    assert_true(ct_backend_is_registered(CT_DEVICE_CPU));
    assert_true(ct_backend_is_registered(CT_DEVICE_META));
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++)
        if (t != CT_DEVICE_CPU && t != CT_DEVICE_META)
            assert_false(ct_backend_is_registered((ct_device_type)t));
    assert_false(ct_backend_is_registered((ct_device_type)40));
    assert_status_msg(ct_backend_unregister(CT_DEVICE_CPU), CT_ERR_MISUSE,
                      "The built-in cpu backend cannot be unregistered");
    assert_status_msg(ct_backend_unregister(CT_DEVICE_META), CT_ERR_MISUSE,
                      "The built-in meta backend cannot be unregistered");
    assert_int_equal(ct_backend_unregister((ct_device_type)21), CT_ERR_MISUSE);
    assert_status_msg(ct_backend_unregister(CT_DEVICE_CUDA), CT_ERR_RUNTIME,
                      "No backend is registered for device type cuda");
}

static ct_status never_launch(void *ctx, int32_t index, const ct_kernel_launch *launch) {
    (void)ctx;
    (void)index;
    (void)launch;
    return ct_set_error(CT_ERR_RUNTIME, "never called");
}

static void test_register_errors(void **state) {
    (void)state;
    ct_backend b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    assert_status_msg(ct_backend_register(NULL), CT_ERR_MISUSE,
                      "ct_backend_register: backend is NULL");
    b.api_version = 4;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'npu' has API version 4, but this ctensor supports versions 1 to 3");
    b.api_version = 2; /* the emulated backend has no launch slot: version 2 is fine */
    assert_int_equal(ct_backend_register(&b), CT_OK);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    b.api_version = 2;
    b.launch = never_launch;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'npu' has API version 2, whose launch slot this ctensor cannot "
                      "call (ct_kernel_launch changed in version 3): rebuild it against "
                      "version 3");
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    b.api_version = 0;
    assert_int_equal(ct_backend_register(&b), CT_ERR_MISUSE);
    b.api_version = CT_BACKEND_API_VERSION;
    b.device_type = CT_DEVICE_CPU;
    b.name = NULL;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'cpu': the cpu backend is built in and cannot be replaced");
    b.device_type = CT_DEVICE_META;
    assert_int_equal(ct_backend_register(&b), CT_ERR_MISUSE);
    b.device_type = (ct_device_type)25;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend '?' has an invalid device type 25");
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    b.allocate = NULL;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'npu' lacks the required slot 'allocate'");
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    b.copy_d2h = NULL;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'npu' lacks the required slot 'copy_d2h'");
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    b.set_device = NULL;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'npu' must set both get_device and set_device, or neither");
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, NULL);
    b.name = NULL;
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend for privateuseone needs a name (use \"privateuseone\" to keep the "
                      "default)");
    b = emulated(CT_DEVICE_CUDA, 2, "gpu");
    assert_status_msg(ct_backend_register(&b), CT_ERR_MISUSE,
                      "Backend 'gpu' is for device type cuda; only privateuseone backends choose "
                      "their name");
    /* PrivateUse1 names follow ct_privateuse1_set_name; a refused name registers nothing */
    b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "cuda");
    assert_status_msg(ct_backend_register(&b), CT_ERR_RUNTIME,
                      "Cannot register privateuse1 backend with in-tree device name: cuda");
    assert_false(ct_backend_is_registered(CT_DEVICE_PRIVATEUSEONE));
    assert_null(ct_privateuse1_name());
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++)
        if (t != CT_DEVICE_CPU && t != CT_DEVICE_META)
            assert_false(ct_backend_is_registered((ct_device_type)t));
}

/* The emulated backend's own argument checks. */
static void test_emulated_errors(void **state) {
    (void)state;
    ct_backend b;
    assert_status_msg(ct_backend_host_emulated(CT_DEVICE_CUDA, 1, NULL), CT_ERR_MISUSE,
                      "ct_backend_host_emulated: out is NULL");
    assert_status_msg(ct_backend_host_emulated(CT_DEVICE_CPU, 1, &b), CT_ERR_MISUSE,
                      "Cannot emulate the built-in cpu backend");
    assert_true(b.allocate == NULL);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_META, 1, &b), CT_ERR_MISUSE);
    assert_int_equal(ct_backend_host_emulated((ct_device_type)21, 1, &b), CT_ERR_MISUSE);
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_UNDEFINED, 1, &b), CT_ERR_MISUSE);
    assert_status_msg(ct_backend_host_emulated(CT_DEVICE_CUDA, -1, &b), CT_ERR_VALUE,
                      "Cannot emulate -1 devices: the count must be between 0 and 128");
    assert_int_equal(ct_backend_host_emulated(CT_DEVICE_CUDA, 129, &b), CT_ERR_VALUE);
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 129), CT_ERR_VALUE);
    assert_false(ct_backend_is_registered(CT_DEVICE_CUDA));
    /* 128 devices and 0 devices are both fine */
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 128), CT_OK);
    int32_t n;
    assert_int_equal(ct_device_count(CT_DEVICE_CUDA, &n), CT_OK);
    assert_int_equal(n, 128);
    assert_status_msg(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 1), CT_ERR_RUNTIME,
                      "A backend is already registered for device type cuda");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 0), CT_OK);
    assert_int_equal(ct_device_count(CT_DEVICE_CUDA, &n), CT_OK);
    assert_int_equal(n, 0);
    assert_status_msg(ct_set_device(dev(CT_DEVICE_CUDA, 0)), CT_ERR_RUNTIME,
                      "No cuda devices are available");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    /* a backend may word the error itself (the cuda backend: no driver) */
    ct_backend nb = emulated(CT_DEVICE_CUDA, 0, NULL);
    nb.no_devices_message = no_driver_message;
    assert_int_equal(ct_backend_register(&nb), CT_OK);
    void *p;
    ct_device cd;
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_CUDA, 0), 8, 0, &p, NULL), CT_ERR_RUNTIME,
                      "Found no driver");
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_CUDA, -1), 8, 0, &p, NULL), CT_ERR_RUNTIME,
                      "Found no driver");
    assert_status_msg(ct_current_device(CT_DEVICE_CUDA, &cd), CT_ERR_RUNTIME, "Found no driver");
    assert_status_msg(ct_set_device(dev(CT_DEVICE_CUDA, 1)), CT_ERR_RUNTIME, "Found no driver");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    /* a NULL message keeps ctensor's own */
    nb.no_devices_message = null_message;
    assert_int_equal(ct_backend_register(&nb), CT_OK);
    assert_status_msg(ct_set_device(dev(CT_DEVICE_CUDA, 0)), CT_ERR_RUNTIME,
                      "No cuda devices are available");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    /* privateuseone without a registered name keeps the default one */
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 1), CT_OK);
    assert_string_equal(ct_device_type_name(CT_DEVICE_PRIVATEUSEONE), "privateuseone");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    assert_null(ct_privateuse1_name());
    assert_int_equal(ct_privateuse1_set_name("npu"), CT_OK);
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 1), CT_OK);
    assert_string_equal(ct_device_type_name(CT_DEVICE_PRIVATEUSEONE), "npu");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
}

static void test_register_twice(void **state) {
    (void)state;
    ct_backend b = emulated(CT_DEVICE_PRIVATEUSEONE, 2, "npu");
    assert_int_equal(ct_backend_register(&b), CT_OK);
    assert_true(ct_backend_is_registered(CT_DEVICE_PRIVATEUSEONE));
    assert_status_msg(ct_backend_register(&b), CT_ERR_RUNTIME,
                      "A backend is already registered for device type npu");
    ct_backend other = b;
    other.name = "tpu";
    assert_status_msg(ct_backend_register(&other), CT_ERR_RUNTIME,
                      "torch.register_privateuse1_backend() has already been set! Current "
                      "backend: npu");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    assert_false(ct_backend_is_registered(CT_DEVICE_PRIVATEUSEONE));
    /* a name set beforehand is kept when the backend comes with the same one */
    assert_int_equal(ct_privateuse1_set_name("tpu"), CT_OK);
    assert_int_equal(ct_backend_register(&other), CT_OK);
    assert_string_equal(ct_device_type_name(CT_DEVICE_PRIVATEUSEONE), "tpu");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    /* a cuda backend may give its own name or none */
    ct_backend c = emulated(CT_DEVICE_CUDA, 2, "cuda");
    assert_int_equal(ct_backend_register(&c), CT_OK);
    assert_status_msg(ct_backend_register(&c), CT_ERR_RUNTIME,
                      "A backend is already registered for device type cuda");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
}

/* ---- cpu and meta memory ---- */

typedef struct counting {
    int allocs, frees, fail;
} counting;

static void *counting_alloc(void *ctx, size_t size, size_t align) {
    counting *c = ctx;
    if (c->fail)
        return NULL;
    c->allocs++;
    void *p = NULL;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1)
               ? NULL
               : p;
}

static void counting_free(void *ctx, void *ptr, size_t size, size_t align) {
    (void)size;
    (void)align;
    ((counting *)ctx)->frees++;
    free(ptr);
}

static void test_cpu_memory(void **state) {
    (void)state;
    void *a, *b;
    ct_device where;
    assert_int_equal(ct_device_alloc(dev(CT_DEVICE_CPU, 1), 100, 0, &a, &where), CT_OK);
    assert_true(ct_device_equal(where, CPU)); /* 'cpu:1' memory is plain cpu memory */
    assert_int_equal((uintptr_t)a % CT_DEVICE_DEFAULT_ALIGN, 0);
    assert_int_equal(ct_device_alloc(CPU, 0, 4096, &b, NULL), CT_OK);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    assert_int_equal((uintptr_t)b % 4096, 0);
    unsigned char src[100];
    for (int i = 0; i < 100; i++)
        src[i] = (unsigned char)i;
    assert_int_equal(ct_device_copy(CPU, a, CPU, src, 100), CT_OK);
    assert_memory_equal(a, src, 100);
    /* overlapping ranges on the host */
    assert_int_equal(ct_device_copy(CPU, (char *)a + 1, CPU, a, 99), CT_OK);
    assert_int_equal(((unsigned char *)a)[1], 0);
    assert_int_equal(((unsigned char *)a)[99], 98);
    uint32_t pat = 0xdeadbeef;
    assert_int_equal(ct_device_fill(CPU, a, 100, &pat, 4), CT_OK);
    for (int i = 0; i < 25; i++)
        assert_int_equal(((uint32_t *)a)[i], 0xdeadbeef);
    unsigned char big[64];
    for (int i = 0; i < 64; i++)
        big[i] = (unsigned char)(i * 3);
    void *c;
    assert_int_equal(ct_device_alloc(CPU, 64 * 7, 64, &c, NULL), CT_OK);
    assert_int_equal(ct_device_fill(CPU, c, 64 * 7, big, 64), CT_OK);
    for (int k = 0; k < 7; k++)
        assert_memory_equal((char *)c + 64 * k, big, 64);
    unsigned char one = 0x5a;
    assert_int_equal(ct_device_fill(CPU, c, 7, &one, 1), CT_OK);
    assert_int_equal(((unsigned char *)c)[6], 0x5a);
    assert_int_equal(((unsigned char *)c)[7], big[7]);
    assert_int_equal(ct_device_free(CPU, c, 64 * 7, 64), CT_OK);
    assert_int_equal(ct_device_free(CPU, a, 100, 0), CT_OK);
    assert_int_equal(ct_device_free(dev(CT_DEVICE_CPU, 3), b, 0, 4096), CT_OK);
    assert_int_equal(ct_device_free(CPU, NULL, 10, 0), CT_OK);
}

static void test_cpu_memory_hooks_and_errors(void **state) {
    (void)state;
    counting c = {0, 0, 0};
    ct_allocator al = {&c, counting_alloc, counting_free};
    assert_int_equal(ct_set_allocator(&al), CT_OK);
    void *p;
    assert_int_equal(ct_device_alloc(CPU, 32, 0, &p, NULL), CT_OK);
    assert_int_equal(ct_device_free(CPU, p, 32, 0), CT_OK);
    assert_int_equal(c.allocs, 1);
    assert_int_equal(c.frees, 1);
    c.fail = 1;
    ct_device where = CPU;
    p = &c;
    assert_status_msg(ct_device_alloc(CPU, 32, 0, &p, &where), CT_ERR_NOMEM,
                      "out of memory: failed to allocate 32 bytes");
    assert_null(p);
    assert_int_equal(where.type, CT_DEVICE_UNDEFINED);
    assert_int_equal(ct_set_allocator(NULL), CT_OK);

    assert_status_msg(ct_device_alloc(CPU, (size_t)PTRDIFF_MAX + 1, 0, &p, NULL), CT_ERR_OVERFLOW,
                      "Cannot allocate 9223372036854775808 bytes: the size exceeds the largest "
                      "object size (PTRDIFF_MAX)");
    assert_int_equal(ct_device_alloc(CPU, SIZE_MAX, 0, &p, NULL), CT_ERR_OVERFLOW);
    assert_null(p);
    assert_status_msg(ct_device_alloc(CPU, 8, 3, &p, NULL), CT_ERR_MISUSE,
                      "ct_device_alloc: alignment 3 is not a power of two <= 4096");
    assert_int_equal(ct_device_alloc(CPU, 8, 8192, &p, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_device_alloc(CPU, 8, 0, NULL, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_device_free(CPU, &c, 8, 3), CT_ERR_MISUSE);
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_CPU, 128), 8, 0, &p, NULL), CT_ERR_RUNTIME,
                      "Device index 128 is out of range: device indices must be between 0 and "
                      "127");
    assert_int_equal(ct_device_alloc(dev((ct_device_type)33, 0), 8, 0, &p, NULL), CT_ERR_MISUSE);
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_VULKAN, 0), 8, 0, &p, NULL), CT_ERR_RUNTIME,
                      "No backend is registered for device type vulkan");
    char buf[4];
    assert_int_equal(ct_device_copy(CPU, NULL, CPU, buf, 4), CT_ERR_MISUSE);
    assert_string_equal(ct_last_error(), "ct_device_copy: NULL destination pointer for 4 bytes");
    assert_int_equal(ct_device_copy(CPU, buf, CPU, NULL, 4), CT_ERR_MISUSE);
    assert_int_equal(ct_device_copy(CPU, NULL, CPU, NULL, 0), CT_OK);
    assert_int_equal(ct_device_fill(CPU, NULL, 4, buf, 1), CT_ERR_MISUSE);
    assert_status_msg(ct_device_fill(CPU, buf, 3, buf, 2), CT_ERR_VALUE,
                      "Cannot fill 3 bytes with a pattern of 2 bytes: not a multiple");
    assert_int_equal(ct_device_fill(CPU, buf, 4, buf, 0), CT_ERR_MISUSE);
    assert_int_equal(ct_device_fill(CPU, buf, 65, buf, 65), CT_ERR_MISUSE);
    assert_int_equal(ct_device_fill(CPU, buf, 4, NULL, 1), CT_ERR_MISUSE);
}

static void test_meta_memory(void **state) {
    (void)state;
    void *p = &p;
    ct_device where;
    assert_int_equal(ct_device_alloc(dev(CT_DEVICE_META, 0), 1 << 30, 0, &p, &where), CT_OK);
    assert_null(p); /* no data at all, as PyTorch's meta storage */
    assert_true(ct_device_equal(where, dev(CT_DEVICE_META, -1)));
    char host[16] = {0};
    ct_device meta = dev(CT_DEVICE_META, -1);
    assert_int_equal(ct_device_copy(meta, NULL, CPU, host, sizeof host), CT_OK);
    assert_int_equal(ct_device_copy(meta, NULL, meta, NULL, 1 << 20), CT_OK);
    assert_int_equal(ct_device_fill(meta, NULL, 1 << 20, host, 4), CT_OK);
    assert_status_msg(ct_device_copy(CPU, host, meta, NULL, sizeof host), CT_ERR_NOT_IMPLEMENTED,
                      "Cannot copy out of meta tensor; no data!");
    assert_status_msg(ct_device_copy(CPU, host, meta, NULL, 0), CT_ERR_NOT_IMPLEMENTED,
                      "Cannot copy out of meta tensor; no data!");
    assert_int_equal(ct_device_synchronize(meta), CT_OK);
    assert_int_equal(ct_device_free(meta, p, 1 << 30, 0), CT_OK);
}

/* ---- the test accelerator ---- */

/* The npu backend's slots wrapped to count calls, so the tests see which slot the device
 * layer chose (a device-to-device copy, not staging through the host) and what is live. */
static ct_backend npu;
static atomic_int n_alloc, n_live, n_h2d, n_d2h, n_d2d, n_fill;

static ct_status count_allocate(void *ctx, int32_t i, size_t size, size_t align, void **out) {
    atomic_fetch_add(&n_alloc, 1);
    ct_status st = npu.allocate(ctx, i, size, align, out);
    if (st == CT_OK)
        atomic_fetch_add(&n_live, 1);
    return st;
}
static void count_free(void *ctx, int32_t i, void *ptr, size_t size, size_t align) {
    atomic_fetch_sub(&n_live, 1);
    npu.free(ctx, i, ptr, size, align);
}
static ct_status count_h2d(void *ctx, int32_t i, void *dst, const void *src, size_t n) {
    atomic_fetch_add(&n_h2d, 1);
    return npu.copy_h2d(ctx, i, dst, src, n);
}
static ct_status count_d2h(void *ctx, int32_t i, void *dst, const void *src, size_t n) {
    atomic_fetch_add(&n_d2h, 1);
    return npu.copy_d2h(ctx, i, dst, src, n);
}
static ct_status count_d2d(void *ctx, int32_t di, void *dst, int32_t si, const void *src,
                           size_t n) {
    atomic_fetch_add(&n_d2d, 1);
    return npu.copy_d2d(ctx, di, dst, si, src, n);
}
static ct_status count_fill(void *ctx, int32_t i, void *dst, size_t n, const void *p, size_t ps) {
    atomic_fetch_add(&n_fill, 1);
    return npu.fill(ctx, i, dst, n, p, ps);
}

static int setup_npu(void **state) {
    (void)state;
    if (ct_backend_host_emulated(CT_DEVICE_PRIVATEUSEONE, 4, &npu) != CT_OK)
        return -1;
    npu.name = "npu";
    ct_backend b = npu;
    b.allocate = count_allocate;
    b.free = count_free;
    b.copy_h2d = count_h2d;
    b.copy_d2h = count_d2h;
    b.copy_d2d = count_d2d;
    b.fill = count_fill;
    return ct_backend_register(&b) == CT_OK ? 0 : -1;
}

static int teardown_npu(void **state) {
    (void)state;
    /* refused while any allocation is live */
    return ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE) == CT_OK && n_live == 0 ? 0 : -1;
}

static void test_npu_alloc(void **state) {
    (void)state;
    void *p, *q;
    ct_device where;
    ct_device npu_any = dev(CT_DEVICE_PRIVATEUSEONE, -1);
    assert_int_equal(ct_device_alloc(npu_any, 64, 0, &p, &where), CT_OK);
    assert_true(ct_device_equal(where, dev(CT_DEVICE_PRIVATEUSEONE, 0)));
    assert_true(owned_by(where, p, 64));
    assert_false(owned_by(dev(CT_DEVICE_PRIVATEUSEONE, 1), p, 64));
    assert_false(owned_by(where, p, 65));
    /* "npu" means the current device at allocation time */
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 2)), CT_OK);
    assert_int_equal(ct_device_alloc(npu_any, 64, 0, &q, &where), CT_OK);
    assert_true(ct_device_equal(where, dev(CT_DEVICE_PRIVATEUSEONE, 2)));
    assert_true(owned_by(where, q, 64));
    assert_true(owned_by(where, (char *)q + 60, 4));
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
    /* a backend with live allocations cannot go away */
    assert_status_msg(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_ERR_RUNTIME,
                      "Cannot unregister the backend of device type npu: 2 allocations are "
                      "still live");
    assert_true(ct_backend_is_registered(CT_DEVICE_PRIVATEUSEONE));
    /* freeing needs the concrete device */
    assert_status_msg(ct_device_free(npu_any, q, 64, 0), CT_ERR_MISUSE,
                      "ct_device_free: device npu has no index; pass the device "
                      "ct_device_alloc reported");
    assert_int_equal(ct_device_free(dev(CT_DEVICE_PRIVATEUSEONE, 2), q, 64, 0), CT_OK);
    assert_int_equal(ct_device_free(dev(CT_DEVICE_PRIVATEUSEONE, 0), p, 64, 0), CT_OK);
    assert_int_equal(n_live, 0);
    assert_false(owned_by(where, q, 64)); /* freed memory belongs to no device */
    /* index beyond the count: a clear error before the backend is asked */
    int before = atomic_load(&n_alloc);
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, 4), 8, 0, &p, &where),
                      CT_ERR_RUNTIME,
                      "Device index 4 is out of range for npu: 4 devices are available");
    assert_null(p);
    assert_int_equal(where.type, CT_DEVICE_UNDEFINED);
    assert_int_equal(atomic_load(&n_alloc), before);
    /* a failing backend: its message and status come through, nothing stays counted (the
     * emulated memory comes from the allocator hooks, so a failing allocator fails it) */
    counting c = {0, 0, 1};
    ct_allocator failing = {&c, counting_alloc, counting_free};
    assert_int_equal(ct_set_allocator(&failing), CT_OK);
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, 3), 8, 0, &p, NULL),
                      CT_ERR_NOMEM, "out of memory: failed to allocate 8 bytes");
    assert_int_equal(ct_set_allocator(NULL), CT_OK);
    assert_null(p);
    assert_int_equal(n_live, 0);
    /* zero bytes and big alignments */
    assert_int_equal(ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, 1), 0, 4096, &p, &where), CT_OK);
    assert_int_equal((uintptr_t)p % 4096, 0);
    assert_int_equal(ct_device_free(where, p, 0, 4096), CT_OK);
    /* a free the backend cannot match (wrong device or size) leaves the memory alone */
    assert_int_equal(ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, 1), 16, 0, &p, &where), CT_OK);
    npu.free(npu.context, 2, p, 16, 64);
    npu.free(npu.context, 1, p, 15, 64);
    assert_true(owned_by(where, p, 16));
    assert_int_equal(ct_device_free(where, p, 16, 0), CT_OK);
    /* slots called with a bad index refuse (the device layer never does this) */
    assert_status_msg(npu.allocate(npu.context, 4, 8, 64, &p), CT_ERR_RUNTIME,
                      "host-emulated npu: there is no device 4 (4 devices)");
    assert_null(p);
    assert_int_equal(npu.set_device(npu.context, -1), CT_ERR_RUNTIME);
    assert_int_equal(npu.synchronize(npu.context, 4), CT_ERR_RUNTIME);
    assert_int_equal(npu.synchronize(npu.context, 3), CT_OK);
}

static void test_npu_copies(void **state) {
    (void)state;
    enum { N = 1000 };
    unsigned char host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = (unsigned char)(i * 7 + 1);
    ct_device d1 = dev(CT_DEVICE_PRIVATEUSEONE, 1), d3 = dev(CT_DEVICE_PRIVATEUSEONE, 3);
    void *a, *b;
    assert_int_equal(ct_device_alloc(d1, N, 0, &a, NULL), CT_OK);
    assert_int_equal(ct_device_alloc(d3, N, 0, &b, NULL), CT_OK);
    int h2d0 = n_h2d, d2d0 = n_d2d, d2h0 = n_d2h;
    /* host -> npu:1 -> npu:3 -> host, each through the slot for that direction */
    assert_int_equal(ct_device_copy(d1, a, CPU, host, N), CT_OK);
    assert_int_equal(ct_device_copy(d3, b, d1, a, N), CT_OK);
    assert_int_equal(ct_device_copy(CPU, back, d3, b, N), CT_OK);
    assert_memory_equal(host, back, N);
    assert_int_equal(atomic_load(&n_h2d) - h2d0, 1);
    assert_int_equal(atomic_load(&n_d2d) - d2d0, 1);
    assert_int_equal(atomic_load(&n_d2h) - d2h0, 1);
    /* parts of allocations (byte offsets), and an unindexed device meaning the current one */
    assert_int_equal(ct_set_device(d3), CT_OK);
    memset(back, 0, N);
    assert_int_equal(
        ct_device_copy(CPU, back, dev(CT_DEVICE_PRIVATEUSEONE, -1), (char *)b + 10, 20), CT_OK);
    assert_memory_equal(back, host + 10, 20);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
    /* the wrong device for a pointer is caught by the backend: the index travels with it */
    char msg[128];
    snprintf(msg, sizeof msg, "host-emulated npu: 8 bytes at %p are not memory of device 1", b);
    assert_status_msg(ct_device_copy(CPU, back, d1, b, 8), CT_ERR_RUNTIME, msg);
    assert_int_equal(ct_device_copy(d1, b, CPU, host, 8), CT_ERR_RUNTIME);
    assert_int_equal(ct_device_copy(d1, a, d3, a, 8), CT_ERR_RUNTIME);
    assert_int_equal(ct_device_fill(d3, a, 8, host, 1), CT_ERR_RUNTIME);
    /* one byte past the end of an allocation */
    assert_int_equal(ct_device_copy(CPU, back, d1, (char *)a + 1, N), CT_ERR_RUNTIME);
    assert_int_equal(ct_device_copy(CPU, back, dev(CT_DEVICE_PRIVATEUSEONE, -1), b, 8),
                     CT_ERR_RUNTIME);
    /* indices out of range and missing backends on either side */
    assert_status_msg(ct_device_copy(dev(CT_DEVICE_PRIVATEUSEONE, 5), a, CPU, host, 8),
                      CT_ERR_RUNTIME,
                      "Device index 5 is out of range for npu: 4 devices are available");
    assert_status_msg(ct_device_copy(CPU, back, dev(CT_DEVICE_CUDA, 0), a, 8), CT_ERR_RUNTIME,
                      "No backend is registered for device type cuda");
    /* fills of every element size, each one call of the fill slot */
    int fill0 = n_fill;
    static const size_t sizes[] = {1, 2, 4, 8, 16, 64};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned char pat[64];
        for (size_t i = 0; i < sizes[k]; i++)
            pat[i] = (unsigned char)(0xa0 + i + k);
        size_t n = (N / sizes[k]) * sizes[k];
        assert_int_equal(ct_device_fill(d1, a, n, pat, sizes[k]), CT_OK);
        assert_int_equal(ct_device_copy(CPU, back, d1, a, n), CT_OK);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(back[i], pat[i % sizes[k]]);
    }
    assert_int_equal(atomic_load(&n_fill) - fill0, 6);
    assert_int_equal(ct_device_fill(d1, a, 0, host, 1), CT_OK);
    assert_int_equal(ct_device_fill(d1, NULL, 8, host, 1), CT_ERR_MISUSE);
    /* meta and npu: into meta is nothing, out of meta is an error */
    assert_int_equal(ct_device_copy(dev(CT_DEVICE_META, -1), NULL, d1, a, 8), CT_OK);
    assert_int_equal(ct_device_copy(d1, a, dev(CT_DEVICE_META, -1), NULL, 8),
                     CT_ERR_NOT_IMPLEMENTED);
    assert_int_equal(ct_device_free(d1, a, N, 0), CT_OK);
    assert_int_equal(ct_device_free(d3, b, N, 0), CT_OK);
}

/* A second backend without any optional slot, under xpu: one device, ctensor's current
 * index, and copies/fills emulated through host memory in chunks. */
static ct_status (*xpu_d2h)(void *, int32_t, void *, const void *, size_t);
static atomic_int n_xpu_d2h;
static ct_status count_xpu_d2h(void *ctx, int32_t i, void *dst, const void *src, size_t n) {
    atomic_fetch_add(&n_xpu_d2h, 1);
    return xpu_d2h(ctx, i, dst, src, n);
}

static void test_optional_slot_defaults(void **state) {
    (void)state;
    ct_backend b = emulated(CT_DEVICE_XPU, 1, NULL);
    xpu_d2h = b.copy_d2h;
    b.device_count = NULL;
    b.get_device = NULL;
    b.set_device = NULL;
    b.copy_d2h = count_xpu_d2h;
    b.copy_d2d = NULL;
    b.fill = NULL;
    b.synchronize = NULL;
    assert_int_equal(ct_backend_register(&b), CT_OK);
    int32_t n;
    assert_int_equal(ct_device_count(CT_DEVICE_XPU, &n), CT_OK);
    assert_int_equal(n, 1);
    ct_device x0 = dev(CT_DEVICE_XPU, 0), x = dev(CT_DEVICE_XPU, -1);
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_XPU, 1), 8, 0, &(void *){NULL}, NULL),
                      CT_ERR_RUNTIME,
                      "Device index 1 is out of range for xpu: 1 device is available");
    /* 2.5 MiB: the host staging works in 1 MiB chunks */
    size_t size = ((size_t)5 << 20) / 2;
    unsigned char *host = malloc(size), *back = malloc(size);
    assert_non_null(host);
    assert_non_null(back);
    for (size_t i = 0; i < size; i++)
        host[i] = (unsigned char)(i * 13 + (i >> 12));
    void *a, *c;
    ct_device where;
    assert_int_equal(ct_device_alloc(x, size, 0, &a, &where), CT_OK);
    assert_true(ct_device_equal(where, x0));
    assert_int_equal(ct_device_alloc(x0, size, 0, &c, NULL), CT_OK);
    assert_int_equal(ct_device_copy(x0, a, CPU, host, size), CT_OK);
    assert_int_equal(ct_device_copy(x0, c, x, a, size), CT_OK); /* staged d2d */
    assert_int_equal(ct_device_copy(CPU, back, x0, c, size), CT_OK);
    assert_memory_equal(host, back, size);
    assert_true(atomic_load(&n_xpu_d2h) >= 3); /* staged in chunks: no copy_d2d slot */
    /* overlapping copies inside one allocation, both directions, across chunk borders */
    size_t shift = 12345, len = size - shift;
    assert_int_equal(ct_device_copy(x0, (char *)a + shift, x0, a, len), CT_OK);
    assert_int_equal(ct_device_copy(CPU, back, x0, a, size), CT_OK);
    assert_memory_equal(back + shift, host, len);
    assert_int_equal(ct_device_copy(x0, a, CPU, host, size), CT_OK);
    assert_int_equal(ct_device_copy(x0, a, x0, (char *)a + shift, len), CT_OK);
    assert_int_equal(ct_device_copy(CPU, back, x0, a, len), CT_OK);
    assert_memory_equal(back, host + shift, len);
    /* staged fill with a pattern that does not divide the chunk size */
    unsigned char pat[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    size_t fill_n = (size / 12) * 12;
    assert_int_equal(ct_device_fill(x, a, fill_n, pat, 12), CT_OK);
    assert_int_equal(ct_device_copy(CPU, back, x0, a, fill_n), CT_OK);
    for (size_t i = 0; i < fill_n; i++)
        if (back[i] != pat[i % 12])
            fail_msg("fill differs at %zu", i);
    /* cross-type copies are refused: nothing moves implicitly */
    void *p;
    ct_device p_where;
    assert_int_equal(ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, 1), 16, 0, &p, &p_where), CT_OK);
    assert_status_msg(ct_device_copy(p_where, p, x, a, 16), CT_ERR_NOT_IMPLEMENTED,
                      "Cannot copy between devices xpu:0 and npu:1 directly: copy through cpu");
    assert_int_equal(ct_device_free(p_where, p, 16, 0), CT_OK);
    assert_int_equal(ct_device_synchronize(x), CT_OK);
    /* the current index ctensor keeps for this backend */
    ct_device cur;
    assert_int_equal(ct_current_device(CT_DEVICE_XPU, &cur), CT_OK);
    assert_true(ct_device_equal(cur, x0));
    assert_int_equal(ct_device_free(x0, a, size, 0), CT_OK);
    assert_int_equal(ct_device_free(x0, c, size, 0), CT_OK);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_XPU), CT_OK);
    free(host);
    free(back);
}

/* Many threads allocate, copy, fill and free on their own devices at once. */
#define N_THREADS 8
static void *thread_memory(void *arg) {
    int id = (int)(intptr_t)arg, bad = 0;
    ct_device mine = dev(CT_DEVICE_PRIVATEUSEONE, id % 4);
    bad |= ct_set_device(mine) != CT_OK;
    unsigned char host[256], back[256];
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 256; i++)
            host[i] = (unsigned char)(id * 31 + round + i);
        void *a = NULL, *b = NULL;
        ct_device wa, wb;
        bad |= ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, -1), 256, 0, &a, &wa) != CT_OK;
        bad |= !ct_device_equal(wa, mine);
        bad |=
            ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, (id + 1) % 4), 256, 0, &b, &wb) != CT_OK;
        bad |= ct_device_copy(wa, a, CPU, host, 256) != CT_OK;
        bad |= ct_device_copy(wb, b, wa, a, 256) != CT_OK;
        bad |= ct_device_copy(CPU, back, wb, b, 256) != CT_OK;
        bad |= memcmp(host, back, 256) != 0;
        uint16_t pat = (uint16_t)(id * 1000 + round);
        bad |= ct_device_fill(wb, b, 256, &pat, 2) != CT_OK;
        bad |= ct_device_copy(CPU, back, wb, b, 2) != CT_OK;
        bad |= memcmp(back, &pat, 2) != 0;
        void *h = NULL;
        bad |= ct_device_alloc(CPU, 64, 0, &h, NULL) != CT_OK;
        bad |= ct_device_free(CPU, h, 64, 0) != CT_OK;
        bad |= ct_device_free(wa, a, 256, 0) != CT_OK;
        bad |= ct_device_free(wb, b, 256, 0) != CT_OK;
    }
    return (void *)(intptr_t)bad;
}

static void test_npu_threads(void **state) {
    (void)state;
    pthread_t t[N_THREADS];
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_memory, (void *)(intptr_t)i), 0);
    for (int i = 0; i < N_THREADS; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        assert_null(bad);
    }
    assert_int_equal(n_live, 0);
    ct_device cur;
    assert_int_equal(ct_current_device(CT_DEVICE_PRIVATEUSEONE, &cur), CT_OK);
    assert_int_equal(cur.index, 0); /* the threads' choices stayed theirs */
}

/* Factory-function flow: resolve the device, allocate there, remember where. */
static void test_factory_flow(void **state) {
    (void)state;
    size_t m;
    assert_int_equal(ct_default_device_push(dev(CT_DEVICE_PRIVATEUSEONE, -1), &m), CT_OK);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 3)), CT_OK);
    ct_device d, where;
    assert_int_equal(ct_device_resolve(NULL, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_PRIVATEUSEONE, 3)));
    void *p;
    assert_int_equal(ct_device_alloc(d, 32, 0, &p, &where), CT_OK);
    assert_true(ct_device_equal(where, d));
    char buf[CT_DEVICE_STRING_MAX];
    assert_int_equal(ct_device_str(where, buf, sizeof buf), CT_OK);
    assert_string_equal(buf, "npu:3");
    assert_int_equal(ct_device_free(where, p, 32, 0), CT_OK);
    /* an explicit cpu device wins over the scope */
    assert_int_equal(ct_device_resolve(&CPU, &d), CT_OK);
    assert_true(ct_device_equal(d, CPU));
    ct_default_device_pop(m);
    assert_int_equal(ct_set_device(dev(CT_DEVICE_PRIVATEUSEONE, 0)), CT_OK);
}

int main(void) {
    /* clang-format off */
    const struct CMUnitTest registry[] = {
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_register_errors),
        cmocka_unit_test(test_emulated_errors),
        cmocka_unit_test(test_register_twice),
        cmocka_unit_test(test_cpu_memory),
        cmocka_unit_test(test_cpu_memory_hooks_and_errors),
        cmocka_unit_test(test_meta_memory),
    };
    const struct CMUnitTest accel[] = {
        cmocka_unit_test(test_npu_alloc),
        cmocka_unit_test(test_npu_copies),
        cmocka_unit_test(test_optional_slot_defaults),
        cmocka_unit_test(test_npu_threads),
        cmocka_unit_test(test_factory_flow),
    };
    /* clang-format on */
    int failed = cmocka_run_group_tests_name("registry", registry, NULL, NULL);
    failed += cmocka_run_group_tests_name("accelerator", accel, setup_npu, teardown_npu);
    return failed;
}
