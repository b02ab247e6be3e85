/* The safetensors format (include/ctensor/safetensors.h): the header parser on good and
 * malformed images, save -> open round trips with strided and shell-dtype tensors, views of
 * the mapping outliving the handle, and every allocation failure of parse and open leaving
 * nothing allocated. The cross-checks with the safetensors package are in
 * tests/python/test_safetensors.py. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include "tensor_test_util.h"

#include "ctensor/safetensors.h"
#include "fault_alloc.h"

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    return ct_set_allocator(&a) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ct_host_cache_empty();
    if (live_allocs != 0)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    return live_allocs == 0 && ct_set_allocator(NULL) == CT_OK ? 0 : -1;
}

/* A file image: the 8-byte length of `header`, the header, then `ndata` zero bytes. */
static unsigned char *image(const char *header, size_t ndata, size_t *size) {
    size_t n = strlen(header);
    *size = 8 + n + ndata;
    unsigned char *b = calloc(1, *size);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, header, n);
    return b;
}

static ct_status parse(const char *header, size_t ndata) {
    size_t size = 0;
    unsigned char *b = image(header, ndata, &size);
    ct_safetensors *f = NULL;
    ct_status st = ct_safetensors_parse(b, size, &f);
    ct_safetensors_close(f);
    free(b);
    return st;
}

static void test_parse_good(void **state) {
    (void)state;
    const char *h = "{\"__metadata__\":{\"format\":\"pt\",\"q\\\"\\u00e9\":\"v\"}, "
                    "\"b\":{\"dtype\":\"F4\",\"shape\":[2,4],\"data_offsets\":[24,28]},"
                    "\"a\" : {\"shape\":[2,3],\"dtype\":\"F32\",\"data_offsets\":[0,24],"
                    "\"extra\":[1,{\"x\":null}]},"
                    "\"\\ud83d\\ude00\":{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[28,31]}} ";
    size_t size = 0;
    unsigned char *b = image(h, 31, &size);
    ct_safetensors *f = NULL;
    OK(ct_safetensors_parse(b, size, &f));
    assert_int_equal(ct_safetensors_count(f), 3);
    ct_safetensors_info info;
    OK(ct_safetensors_info_at(f, 0, &info)); /* file order: by offset */
    assert_string_equal(info.name, "a");
    assert_int_equal(info.dtype, CT_FLOAT32);
    assert_i64s(info.shape, info.ndim, SHAPE(2, 3));
    OK(ct_safetensors_info_at(f, 1, &info));
    assert_string_equal(info.format, "F4");
    assert_int_equal(info.dtype, CT_FLOAT4_E2M1FN_X2);
    OK(ct_safetensors_info_at(f, 2, &info));
    assert_string_equal(info.name, "\xf0\x9f\x98\x80");
    assert_int_equal(info.dtype, CT_DTYPE_UNDEFINED);
    assert_int_equal(ct_safetensors_metadata_count(f), 2);
    const char *k = NULL, *v = NULL;
    OK(ct_safetensors_metadata_at(f, 1, &k, &v));
    assert_string_equal(k, "q\"\xc3\xa9");
    assert_string_equal(v, "v");
    ct_tensor *t = NULL;
    assert_int_equal(ct_safetensors_tensor(f, 0, &t), CT_ERR_MISUSE); /* no data */
    assert_int_equal(ct_safetensors_info_at(f, 3, &info), CT_ERR_INDEX);
    ct_safetensors_close(f);
    free(b);
    OK(parse("{}", 0));
    OK(parse("{\"__metadata__\":null}", 0));
    OK(parse("{\"e\":{\"dtype\":\"BOOL\",\"shape\":[0,3],\"data_offsets\":[0,0]}}", 0));
}

#define PRE "Error while deserializing header: "

static void test_parse_malformed(void **state) {
    (void)state;
    ct_safetensors *f = NULL;
    EXPECT_ERR(ct_safetensors_parse("\1\0\0", 3, &f), CT_ERR_VALUE,
               PRE "HeaderTooSmall: the file has 3 bytes, fewer than the 8 of the header length");
    assert_null(f);
    unsigned char big[9] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, '{'};
    EXPECT_ERR(ct_safetensors_parse(big, 9, &f), CT_ERR_VALUE,
               PRE "HeaderTooLarge: 4294967295 bytes (at most 100000000)");
    unsigned char trunc[10] = {5, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    EXPECT_ERR(ct_safetensors_parse(trunc, 10, &f), CT_ERR_VALUE,
               PRE "InvalidHeaderLength: 5 bytes, but the file has only 2 after the length");
    EXPECT_ERR(parse("[]", 0), CT_ERR_VALUE,
               PRE "InvalidHeaderStart: the header must start with '{'");
    EXPECT_ERR(parse("{\"a\xff\":1}", 0), CT_ERR_VALUE,
               PRE "InvalidHeader: the header is not valid UTF-8");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}", 4),
               CT_ERR_VALUE,
               PRE "InvalidHeaderDeserialization: expected ',' or '}' at byte 53 of the header");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"F31\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4),
               CT_ERR_VALUE, PRE "unknown dtype \"F31\"");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4), CT_ERR_VALUE,
               PRE "InvalidHeaderDeserialization: tensor \"a\" lacks shape");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4),
               CT_ERR_VALUE,
               PRE "InvalidHeaderDeserialization: negative number where a size or offset is "
                   "expected at byte 29 of the header");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4),
               CT_ERR_VALUE,
               PRE "TensorInvalidInfo: tensor \"a\" of dtype F32 needs 8 bytes, but its "
                   "data_offsets are [0, 4]");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                     "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}",
                     3),
               CT_ERR_VALUE,
               PRE "InvalidOffset: tensor \"b\" starts at 1, but the data before it ends at 2 "
                   "(overlapping tensors)");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}", 3),
               CT_ERR_VALUE,
               PRE "InvalidOffset: tensor \"a\" starts at 1, but the data before it ends at 0 "
                   "(a gap)");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 5),
               CT_ERR_VALUE,
               PRE "MetadataIncompleteBuffer: the tensors cover 2 bytes, but the file holds 5 "
                   "bytes of data");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                     "\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}",
                     0),
               CT_ERR_VALUE, PRE "tensor \"a\" appears twice");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1),
               CT_ERR_VALUE,
               PRE "tensor \"a\" of dtype F4 has 3 values, not a whole number of bytes");
    EXPECT_ERR(parse("{\"a\":{\"dtype\":\"U64\",\"shape\":[4294967296,4294967296],"
                     "\"data_offsets\":[0,0]}}",
                     0),
               CT_ERR_VALUE, PRE "the shape of tensor \"a\" overflows its byte count");
    EXPECT_ERR(parse("{\"__metadata__\":{\"k\":1}}", 0), CT_ERR_VALUE,
               PRE "InvalidHeaderDeserialization: __metadata__ values must be strings at byte 21 "
                   "of the header");
    EXPECT_ERR(parse("{\"a\\u0000\":{}}", 0), CT_ERR_VALUE,
               PRE "InvalidHeaderDeserialization: NUL character in a string (not supported) at "
                   "byte 9 of the header");
    /* deep nesting in an ignored value is refused, not recursed into without bound */
    char deep[400] = "{\"a\":{\"x\":";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    assert_int_equal(parse(deep, 0), CT_ERR_VALUE);
    assert_int_equal(ct_safetensors_parse(NULL, 0, NULL), CT_ERR_MISUSE);
}

static char path[64];

static void test_save_open_round_trip(void **state) {
    (void)state;
    snprintf(path, sizeof path, "/tmp/ct_st_test_%d.safetensors", (int)getpid());
    ct_tensor *a = iota(SHAPE(3, 4)), *at = NULL, *e4 = NULL, *f4 = NULL, *z = NULL;
    OK(ct_tensor_t(a, &at)); /* strided: written contiguous */
    OK(ct_tensor_to_dtype(a, CT_FLOAT8_E4M3FN, &e4));
    OK(ct_tensor_full(SHAPE(2, 3), ct_scalar_int(0x21), CT_UINT8, &CPU, CT_LAYOUT_STRIDED, &z));
    OK(ct_tensor_from_storage(ct_tensor_storage(z), ARR(2, 3), NULL, 2, 0, CT_FLOAT4_E2M1FN_X2,
                              &f4));
    const char *names[] = {"t", "e4", "f4", "a"};
    const ct_tensor *ts[] = {at, e4, f4, a};
    const char *keys[] = {"format"}, *values[] = {"pt"};
    OK(ct_safetensors_save(path, 4, names, ts, 1, keys, values));
    ct_safetensors *f = NULL;
    OK(ct_safetensors_open(path, &f));
    assert_int_equal(ct_safetensors_count(f), 4);
    ct_safetensors_info info;
    OK(ct_safetensors_info_at(f, 0, &info)); /* 4-byte values first, by name */
    assert_string_equal(info.name, "a");
    OK(ct_safetensors_info_at(f, 3, &info));
    assert_string_equal(info.name, "f4");
    assert_i64s(info.shape, info.ndim, SHAPE(2, 6)); /* the file counts 4-bit values */
    ct_tensor *t = NULL, *eq = NULL;
    OK(ct_safetensors_tensor(f, 1, &t));
    ct_safetensors_close(f); /* the tensor keeps the mapping */
    assert_sizes(t, 4, 3);
    assert_true(ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS));
    assert_true(ct_storage_is_external(ct_tensor_storage(t)));
    OK(ct_tensor_contiguous(at, CT_MEMFMT_CONTIGUOUS, &eq));
    assert_memory_equal(ct_tensor_data_ptr(t), ct_tensor_data_ptr(eq), 48);
    ct_tensor_release(eq);
    OK(ct_tensor_fill_(t, ct_scalar_float(7.0))); /* copy-on-write: the file stays */
    ct_tensor_release(t);
    OK(ct_safetensors_open(path, &f));
    OK(ct_safetensors_tensor(f, 1, &t));
    assert_true(((float *)ct_tensor_data_ptr(t))[1] == 4.0f); /* a[0][1] transposed: 4 */
    ct_tensor_release(t);
    OK(ct_safetensors_tensor(f, 3, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT4_E2M1FN_X2);
    assert_sizes(t, 2, 3);
    assert_int_equal(((unsigned char *)ct_tensor_data_ptr(t))[5], 0x21);
    ct_tensor_release(t);
    ct_safetensors_close(f);
    /* refusals */
    ct_tensor *c128 = NULL, *m = NULL;
    OK(ct_tensor_zeros(SHAPE(1), CT_COMPLEX128, &CPU, CT_LAYOUT_STRIDED, &c128));
    EXPECT_ERR(ct_safetensors_save(path, 1, (const char *[]){"w"}, (const ct_tensor *[]){c128}, 0,
                                   NULL, NULL),
               CT_ERR_TYPE, "safetensors: dtype complex128 of 'w' has no safetensors dtype");
    OK(ct_tensor_zeros(SHAPE(1), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, &m));
    EXPECT_ERR(ct_safetensors_save(path, 1, (const char *[]){"w"}, (const ct_tensor *[]){m}, 0,
                                   NULL, NULL),
               CT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    EXPECT_ERR(ct_safetensors_open("/nonexistent/x.safetensors", &f), CT_ERR_RUNTIME,
               "No such file or directory (os error 2): open: /nonexistent/x.safetensors");
    unlink(path);
    ct_tensor_release(c128);
    ct_tensor_release(m);
    ct_tensor_release(a);
    ct_tensor_release(at);
    ct_tensor_release(e4);
    ct_tensor_release(f4);
    ct_tensor_release(z);
}

/* Every allocation of parse and open fails once: an error, and nothing left allocated. */
static void test_alloc_failures(void **state) {
    (void)state;
    const char *h = "{\"__metadata__\":{\"k\":\"v\",\"k2\":\"v2\"},"
                    "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                    "\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[2,3]}}";
    size_t size = 0;
    unsigned char *b = image(h, 3, &size);
    int failures = 0;
    for (long n = 1; n < 100; n++) {
        long before = live_allocs;
        calls = 0;
        fail_at = n;
        ct_safetensors *f = NULL;
        ct_status st = ct_safetensors_parse(b, size, &f);
        fail_at = 0;
        ct_safetensors_close(f);
        assert_int_equal(live_allocs, before);
        if (st == CT_OK)
            break;
        assert_int_equal(st, CT_ERR_NOMEM);
        failures++;
    }
    assert_true(failures > 5);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_save_open_round_trip),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
