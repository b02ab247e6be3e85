/* The error model, allocation hooks, CPU level selection and version. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmocka_all.h"
#include "base/alloc_impl.h"
#include "base/hash.h"
#include "base/strbuf.h"
#include "ctensor/ctensor.h"

static void test_error_set_and_clear(void **state) {
    (void)state;
    ct_clear_error();
    assert_string_equal(ct_last_error(), "");
    assert_int_equal(ct_last_error_kind(), CT_OK);
    assert_int_equal(ct_set_error(CT_ERR_VALUE, "bad %s %d", "thing", 7), CT_ERR_VALUE);
    assert_string_equal(ct_last_error(), "bad thing 7");
    assert_int_equal(ct_last_error_kind(), CT_ERR_VALUE);
    ct_clear_error();
    assert_string_equal(ct_last_error(), "");
    assert_int_equal(ct_last_error_kind(), CT_OK);
}

static void test_error_truncates_and_self_reference(void **state) {
    (void)state;
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ct_set_error(CT_ERR_RUNTIME, "%s", big);
    assert_int_equal(strlen(ct_last_error()), 1023);
    /* a message built from the previous one must not be corrupted */
    ct_set_error(CT_ERR_RUNTIME, "first");
    ct_set_error(CT_ERR_RUNTIME, "%s and %s", ct_last_error(), "second");
    assert_string_equal(ct_last_error(), "first and second");
}

static void test_status_names(void **state) {
    (void)state;
    assert_string_equal(ct_status_name(CT_OK), "CT_OK");
    assert_string_equal(ct_status_name(CT_ERR_TYPE), "CT_ERR_TYPE");
    assert_string_equal(ct_status_name(CT_ERR_OVERFLOW), "CT_ERR_OVERFLOW");
    assert_string_equal(ct_status_name((ct_status)99), "CT_ERR_UNKNOWN");
    assert_string_equal(ct_status_name((ct_status)-1), "CT_ERR_UNKNOWN");
    for (int i = 0; i < CT_NUM_STATUS; i++)
        assert_non_null(ct_status_name((ct_status)i));
}

static void *thread_sets_error(void *arg) {
    ct_set_error(CT_ERR_INDEX, "thread %d", *(int *)arg);
    return NULL;
}

static void test_error_is_per_thread(void **state) {
    (void)state;
    ct_set_error(CT_ERR_TYPE, "main thread");
    pthread_t t[4];
    int ids[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_sets_error, &ids[i]), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_string_equal(ct_last_error(), "main thread");
    assert_int_equal(ct_last_error_kind(), CT_ERR_TYPE);
}

typedef struct counting {
    int allocs, frees, fail_after;
    size_t live;
} counting;

static void *counting_alloc(void *ctx, size_t size, size_t align) {
    counting *c = ctx;
    if (c->fail_after >= 0 && c->allocs >= c->fail_after)
        return NULL;
    c->allocs++;
    c->live += size;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) != 0)
        return NULL;
    return p;
}

static void counting_free(void *ctx, void *p, size_t size, size_t align) {
    (void)align;
    counting *c = ctx;
    c->frees++;
    c->live -= size;
    free(p);
}

static void test_allocator_hooks(void **state) {
    (void)state;
    counting c = {0, 0, -1, 0};
    ct_allocator a = {&c, counting_alloc, counting_free};
    assert_int_equal(ct_set_allocator(&a), CT_OK);
    assert_ptr_equal(ct_get_allocator().ctx, &c);
    void *p = ct_alloc(100, 64);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    assert_int_equal(c.live, 100);
    ct_free(p, 100, 64);
    assert_int_equal(c.allocs, 1);
    assert_int_equal(c.frees, 1);
    assert_int_equal(c.live, 0);

    c.fail_after = 1; /* the next allocation fails */
    assert_null(ct_alloc(8, 8));
    assert_int_equal(ct_last_error_kind(), CT_ERR_NOMEM);
    assert_string_equal(ct_last_error(), "out of memory: failed to allocate 8 bytes");

    assert_null(ct_alloc(8, 3));
    assert_int_equal(ct_last_error_kind(), CT_ERR_MISUSE);

    ct_allocator broken = {NULL, NULL, counting_free};
    assert_status_msg(ct_set_allocator(&broken), CT_ERR_MISUSE,
                      "ct_set_allocator: alloc and free must both be set");
    assert_ptr_equal(ct_get_allocator().ctx, &c); /* unchanged */
    assert_int_equal(ct_set_allocator(NULL), CT_OK);
    assert_null(ct_get_allocator().ctx);
    ct_free(NULL, 0, 8); /* accepted */
}

/* The default allocator (Note [Default aligned allocation]): every alignment, sizes around
 * it, each block fully writable and freed with the size and alignment it was asked for. */
static void test_default_allocator(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 7, 8, 63, 64, 65, 1000, 4096, (size_t)3 << 20};
    void *blocks[13][sizeof sizes / sizeof sizes[0]];
    for (int a = 0; a <= 12; a++) {
        size_t align = (size_t)1 << a;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            void *p = ct_alloc(sizes[i], align);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % align, 0);
            memset(p, 0xab, sizes[i]);
            blocks[a][i] = p;
        }
    }
    for (int a = 0; a <= 12; a++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            ct_free(blocks[a][i], sizes[i], (size_t)1 << a);
    /* a size that cannot carry its alignment padding fails cleanly, before malloc */
    assert_null(ct_alloc(SIZE_MAX - 10, 64));
    assert_int_equal(ct_last_error_kind(), CT_ERR_NOMEM);
}

static void test_cpu_levels(void **state) {
    (void)state;
    ct_cpu_isa detected = ct_cpu_isa_detected();
    ct_cpu_isa active = ct_cpu_isa_active();
    assert_true(active <= detected);
    assert_string_equal(ct_cpu_isa_name(CT_ISA_BASELINE), "baseline");
    assert_string_equal(ct_cpu_isa_name(CT_ISA_AVX2), "avx2");
    assert_string_equal(ct_cpu_isa_name(CT_ISA_AVX512), "avx512");
    assert_null(ct_cpu_isa_name((ct_cpu_isa)3));
    for (int i = 0; i <= (int)detected; i++) {
        assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)i), CT_OK);
        assert_int_equal(ct_cpu_isa_active(), i);
    }
    if (detected < CT_ISA_AVX512) {
        ct_cpu_isa above = (ct_cpu_isa)(detected + 1);
        char msg[128];
        snprintf(msg, sizeof msg, "CPU instruction set '%s' is not supported by this CPU",
                 ct_cpu_isa_name(above));
        assert_status_msg(ct_cpu_set_isa(above), CT_ERR_VALUE, msg);
    }
    assert_int_equal(ct_cpu_set_isa((ct_cpu_isa)7), CT_ERR_MISUSE);
    assert_int_equal(ct_cpu_set_isa(active), CT_OK);
}

static void test_version(void **state) {
    (void)state;
    assert_int_equal(ct_version_number(), CT_VERSION_NUMBER);
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", CT_VERSION_MAJOR, CT_VERSION_MINOR, CT_VERSION_PATCH);
    assert_string_equal(ct_version_string(), expect);
}

/* A bounded builder keeps the prefix that fits and counts the whole length, as snprintf. */
static void test_sb_bounded(void **state) {
    (void)state;
    char buf[8];
    ct_sb b;
    ct_sb_init_buf(&b, buf, sizeof buf);
    assert_string_equal(ct_sb_str(&b), "");
    ct_sb_puts(&b, "ab");
    ct_sb_appendf(&b, "%d-%s", 42, "xyz");
    ct_sb_fill(&b, '.', 3);
    assert_string_equal(buf, "ab42-xy");
    assert_int_equal(ct_sb_len(&b), 11);
    ct_sb_init_buf(&b, NULL, 0); /* measure only */
    ct_sb_appendf(&b, "%s", "hello");
    assert_int_equal(ct_sb_len(&b), 5);
}

static void test_sb_growing(void **state) {
    (void)state;
    ct_sb b = {0};
    for (int i = 0; i < 200; i++)
        ct_sb_appendf(&b, "%03d,", i);
    ct_sb_fill(&b, 'x', 2);
    assert_int_equal(ct_sb_len(&b), 802);
    assert_memory_equal(ct_sb_str(&b), "000,001,", 8);
    assert_string_equal(ct_sb_str(&b) + 796, "199,xx");
    char *s = NULL;
    assert_int_equal(ct_sb_finish(&b, &s), CT_OK);
    assert_int_equal(strlen(s), 802);
    ct_string_free(s);
    ct_sb_init(&b);
    assert_int_equal(ct_sb_finish(&b, &s), CT_OK);
    assert_string_equal(s, "");
    ct_string_free(s);
}

/* FNV-1a's published values: the digest is the same on every rank and every run. */
static void test_hash_fnv1a(void **state) {
    (void)state;
    assert_true(ct_hash_bytes(0, "", 0) == 0xcbf29ce484222325ull);
    assert_true(ct_hash_bytes(0, "a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(ct_hash_bytes(ct_hash_bytes(0, "a", 1), "b", 1) == ct_hash_bytes(0, "ab", 2));
    assert_true(ct_hash_str(0, "ab") == ct_hash_bytes(0, "ab", 3));
    assert_true(ct_hash_u64(7, 1) != ct_hash_u64(7, 2));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_set_and_clear),
        cmocka_unit_test(test_error_truncates_and_self_reference),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_error_is_per_thread),
        cmocka_unit_test(test_allocator_hooks),
        cmocka_unit_test(test_default_allocator),
        cmocka_unit_test(test_cpu_levels),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_sb_bounded),
        cmocka_unit_test(test_sb_growing),
        cmocka_unit_test(test_hash_fnv1a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
