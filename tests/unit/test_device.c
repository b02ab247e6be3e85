/* Device values: names, the string grammar (PyTorch's corpus plus generated cases), the
 * torch.device constructors, repr/str/hash/equality, the PrivateUse1 name, OneFlow mode. */
#include <inttypes.h>
#include <stdlib.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

#define EXPECTED                                                                                   \
    "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "    \
    "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device "       \
    "string: "
#define RANGE(i) "Device index " #i " is out of range: device indices must be between 0 and 127"

static int n_cases; /* device strings and constructor forms checked */

static const char *const parser_names[] = {
    "cpu",  "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",  "ve",
    "fpga", "maia", "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "mtia", "privateuseone"};
#define N_PARSER_NAMES (sizeof parser_names / sizeof parser_names[0])

static ct_device dev(ct_device_type t, int32_t i) {
    ct_device d = {t, i};
    return d;
}

static void expect_device(const char *s, ct_device_type type, int32_t index) {
    ct_device d;
    ct_status st = ct_device_from_string(s, &d);
    if (st != CT_OK)
        fail_msg("'%s' failed: %s", s, ct_last_error());
    if (d.type != type || d.index != index)
        fail_msg("'%s' gave type %d index %d, want %d %d", s, (int)d.type, (int)d.index, (int)type,
                 (int)index);
    n_cases++;
}

static void expect_error(const char *s, const char *msg) {
    ct_device d = {CT_DEVICE_CUDA, 5};
    ct_status st = ct_device_from_string(s, &d);
    if (st != CT_ERR_RUNTIME)
        fail_msg("'%s' gave status %d (want CT_ERR_RUNTIME)", s, (int)st);
    if (strcmp(ct_last_error(), msg) != 0)
        fail_msg("'%s':\n got  %s\n want %s", s, ct_last_error(), msg);
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    assert_int_equal(d.index, -1);
    n_cases++;
}

static void expect_invalid(const char *s) {
    char msg[1100];
    snprintf(msg, sizeof msg, "Invalid device string: '%s'", s);
    expect_error(s, msg);
}

static void expect_unknown_type(const char *s, const char *type_part) {
    char msg[1100];
    snprintf(msg, sizeof msg, EXPECTED "%s", type_part);
    expect_error(s, msg);
}

/* ---- names ---- */

static void test_type_names(void **state) {
    (void)state;
    static const char *const lower[CT_NUM_DEVICE_TYPES] = {
        "cpu",  "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
        "fpga", "maia", "xla",    "vulkan", "metal",  "xpu",   "mps",
        "meta", "hpu",  "ve",     "lazy",   "ipu",    "mtia",  "privateuseone"};
    static const char *const upper[CT_NUM_DEVICE_TYPES] = {
        "CPU",  "CUDA", "MKLDNN", "OPENGL", "OPENCL", "IDEEP", "HIP",
        "FPGA", "MAIA", "XLA",    "VULKAN", "METAL",  "XPU",   "MPS",
        "META", "HPU",  "VE",     "LAZY",   "IPU",    "MTIA",  "PRIVATEUSEONE"};
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++) {
        assert_true(ct_device_type_is_valid((ct_device_type)t));
        assert_string_equal(ct_device_type_name((ct_device_type)t), lower[t]);
        assert_string_equal(ct_device_type_upper_name((ct_device_type)t), upper[t]);
    }
    assert_int_equal(CT_DEVICE_PRIVATEUSEONE, 20);
    assert_int_equal(CT_DEVICE_META, 14);
    assert_int_equal(CT_DEVICE_MTIA, 19);
    assert_false(ct_device_type_is_valid(CT_DEVICE_UNDEFINED));
    assert_false(ct_device_type_is_valid(CT_NUM_DEVICE_TYPES));
    assert_null(ct_device_type_name(CT_NUM_DEVICE_TYPES));
    assert_null(ct_device_type_name(CT_DEVICE_UNDEFINED));
    assert_null(ct_device_type_upper_name((ct_device_type)99));
    assert_null(ct_privateuse1_name());
}

/* ---- the string grammar ---- */

static void test_parse_corpus_valid(void **state) {
    (void)state;
    expect_device("cpu", CT_DEVICE_CPU, -1);
    expect_device("cuda", CT_DEVICE_CUDA, -1);
    expect_device("cuda:0", CT_DEVICE_CUDA, 0);
    expect_device("cuda:1", CT_DEVICE_CUDA, 1);
    expect_device("xla:3", CT_DEVICE_XLA, 3);
    expect_device("meta:0", CT_DEVICE_META, 0);
    expect_device("privateuseone:0", CT_DEVICE_PRIVATEUSEONE, 0);
    expect_device("cpu:0", CT_DEVICE_CPU, 0);
    expect_device("cpu:1", CT_DEVICE_CPU, 1); /* accepted, as PyTorch release builds */
    expect_device("cuda:127", CT_DEVICE_CUDA, 127);
    expect_device("cuda:10", CT_DEVICE_CUDA, 10);
    expect_device("cuda:99", CT_DEVICE_CUDA, 99);
    expect_device("maia", CT_DEVICE_MAIA, -1);
    expect_device("mtia:2", CT_DEVICE_MTIA, 2);
    static const struct {
        const char *s;
        ct_device_type t;
    } named[] = {{"ipu", CT_DEVICE_IPU},       {"hpu", CT_DEVICE_HPU},
                 {"hip", CT_DEVICE_HIP},       {"ve", CT_DEVICE_VE},
                 {"fpga", CT_DEVICE_FPGA},     {"lazy", CT_DEVICE_LAZY},
                 {"vulkan", CT_DEVICE_VULKAN}, {"mkldnn", CT_DEVICE_MKLDNN},
                 {"opengl", CT_DEVICE_OPENGL}, {"opencl", CT_DEVICE_OPENCL},
                 {"ideep", CT_DEVICE_IDEEP},   {"mps", CT_DEVICE_MPS},
                 {"xpu", CT_DEVICE_XPU},       {"xla", CT_DEVICE_XLA},
                 {"meta", CT_DEVICE_META},     {"privateuseone", CT_DEVICE_PRIVATEUSEONE}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        expect_device(named[i].s, named[i].t, -1);
}

static void test_parse_corpus_invalid(void **state) {
    (void)state;
    /* clang-format off */
    static const char *const invalid[] = {
        "cuda:01", "cuda:00", "cuda:-1", "cpu:-1", "cuda:1:2", "cuda::1",
        "cpu:0:0", " cuda", "cuda ", "cuda: 1", "cuda:", "cuda:a",
        "cuda:1a", "cuda:+1", "cuda:1.0", "cuda:0x1", ":0", "0",
        "1", "cuda1", "cud\xc3\xa4", "cuda:\xef\xbc\x91", "cuda:\xd9\xa3", "\xd9\xa3",
        ":", "::", "cu da", "cuda\t", "\ncuda", "cuda:0 ",
        "cuda-0", "cuda.0", "cuda/0", "cuda:1e3", "cuda:٣", "cuda:0:",
        "cpu:", "_:", "cuda:007", "cuda:0123456789", "cuda\x7f", "cuda:9\xc2\xb2",
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        expect_invalid(invalid[i]);
    expect_error("", "Device string must not be empty");

    /* clang-format off */
    static const char *const unknown[] = {
        "CUDA", "Cuda", "metal", "autort", "msnpu", "mlc", "foo", "_", "cu_da",
        "cuda_x", "ort", "gpu", "CPU", "npu", "Meta", "__", "mtiA", "ortcuda",
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        expect_unknown_type(unknown[i], unknown[i]);
    expect_unknown_type("foo:0", "foo");
    expect_unknown_type("metal:0", "metal");
    expect_unknown_type("CUDA:1", "CUDA");
    expect_unknown_type("foo:128", "foo"); /* the type is checked before the index range */

    expect_error("cuda:128", RANGE(128));
    expect_error("cuda:255", RANGE(255));
    expect_error("cuda:256", RANGE(256));
    expect_error("cuda:32767", RANGE(32767));
    expect_error("cuda:32768", RANGE(32768));
    expect_error("cuda:65535", RANGE(65535));
    expect_error("cuda:2147483647", RANGE(2147483647));
    expect_error("cuda:2147483648",
                 "Could not parse device index '2147483648' in device string 'cuda:2147483648'");
    expect_error("cuda:99999999999999999999", "Could not parse device index "
                                              "'99999999999999999999' in device string "
                                              "'cuda:99999999999999999999'");
    /* the index's int32 conversion comes before the type lookup */
    expect_error("foo:2147483648",
                 "Could not parse device index '2147483648' in device string 'foo:2147483648'");
}

/* Every parser name x many index spellings, case variants, spaces and foreign bytes. */
static void test_parse_generated(void **state) {
    (void)state;
    /* clang-format off */
    static const struct {
        const char *suffix;
        int32_t index; /* -1 none, -2 invalid, -3 out of range, -4 unparsable */
    } idx[] = {
        {"", -1}, {":0", 0}, {":1", 1}, {":9", 9}, {":10", 10},
        {":42", 42}, {":127", 127}, {":128", -3}, {":255", -3}, {":1000", -3},
        {":2147483647", -3}, {":2147483648", -4}, {":-1", -2}, {":01", -2}, {":00", -2},
        {":+1", -2}, {": 1", -2}, {":1 ", -2}, {":0x1", -2}, {":1.0", -2},
        {":", -2}, {":1:2", -2}, {"::1", -2}, {" ", -2}, {":\xef\xbc\x91", -2},
        {"\xc3\xa4", -2}, {":1\xc3\xa4", -2}, {"0", -2},
    };
    /* clang-format on */
    char s[128], msg[512];
    for (size_t n = 0; n < N_PARSER_NAMES; n++) {
        ct_device_type t;
        ct_device probe;
        assert_int_equal(ct_device_from_string(parser_names[n], &probe), CT_OK);
        t = probe.type;
        for (size_t k = 0; k < sizeof idx / sizeof idx[0]; k++) {
            snprintf(s, sizeof s, "%s%s", parser_names[n], idx[k].suffix);
            switch (idx[k].index) {
            case -2:
                expect_invalid(s);
                break;
            case -3:
                snprintf(msg, sizeof msg,
                         "Device index %s is out of range: device indices must be between 0 "
                         "and 127",
                         idx[k].suffix + 1);
                expect_error(s, msg);
                break;
            case -4:
                snprintf(msg, sizeof msg, "Could not parse device index '%s' in device string '%s'",
                         idx[k].suffix + 1, s);
                expect_error(s, msg);
                break;
            default:
                expect_device(s, t, idx[k].index);
                break;
            }
        }
        /* leading space, and a space inside */
        snprintf(s, sizeof s, " %s", parser_names[n]);
        expect_invalid(s);
        snprintf(s, sizeof s, "%.1s %s", parser_names[n], parser_names[n] + 1);
        expect_invalid(s);
        /* case variants: all upper, first upper, last upper */
        char up[64];
        size_t len = strlen(parser_names[n]);
        for (size_t i = 0; i <= len; i++)
            up[i] =
                (char)(parser_names[n][i] >= 'a' ? parser_names[n][i] - 32 : parser_names[n][i]);
        expect_unknown_type(up, up);
        snprintf(s, sizeof s, "%s:1", up);
        expect_unknown_type(s, up);
        snprintf(s, sizeof s, "%c%s", parser_names[n][0] - 32, parser_names[n] + 1);
        expect_unknown_type(s, s);
        snprintf(s, sizeof s, "%.*s%c", (int)len - 1, parser_names[n],
                 parser_names[n][len - 1] - 32);
        expect_unknown_type(s, s);
        /* extra letters and '_' make another, unknown, type */
        snprintf(s, sizeof s, "%s_", parser_names[n]);
        expect_unknown_type(s, s);
        snprintf(s, sizeof s, "_%s:0", parser_names[n]);
        snprintf(msg, sizeof msg, "_%s", parser_names[n]);
        expect_unknown_type(s, msg);
    }
    /* metal: printable, never parseable, at any index */
    expect_unknown_type("metal:1", "metal");
    expect_unknown_type("metal:128", "metal");
    expect_invalid("metal:01");
}

static void test_parse_misuse(void **state) {
    (void)state;
    ct_device d;
    assert_int_equal(ct_device_from_string(NULL, &d), CT_ERR_MISUSE);
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    assert_int_equal(ct_device_from_string("cpu", NULL), CT_ERR_MISUSE);
    /* a very long string is reported, truncated, without overflowing anything */
    char *big = malloc(5000);
    assert_non_null(big);
    memset(big, 'a', 4999);
    big[4999] = '\0';
    assert_int_equal(ct_device_from_string(big, &d), CT_ERR_RUNTIME);
    assert_int_equal(strncmp(ct_last_error(), EXPECTED, strlen(EXPECTED)), 0);
    assert_int_equal(strlen(ct_last_error()), 1023);
    big[10] = ' ';
    assert_int_equal(ct_device_from_string(big, &d), CT_ERR_RUNTIME);
    assert_int_equal(strncmp(ct_last_error(), "Invalid device string: 'aaa", 27), 0);
    free(big);
}

/* ---- constructors ---- */

static void expect_type_index(const char *type, const int64_t *index, ct_device want) {
    ct_device d;
    ct_status st = ct_device_from_type(type, index, &d);
    if (st != CT_OK)
        fail_msg("device('%s', ...) failed: %s", type, ct_last_error());
    assert_true(ct_device_equal(d, want));
    n_cases++;
}

static void expect_type_error(const char *type, const int64_t *index, const char *msg) {
    ct_device d;
    assert_status_msg(ct_device_from_type(type, index, &d), CT_ERR_RUNTIME, msg);
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    n_cases++;
}

static void test_from_type(void **state) {
    (void)state;
    int64_t i0 = 0, i1 = 1, i2 = 2, m1 = -1, m2 = -2, i127 = 127, i128 = 128, i255 = 255,
            i300 = 300, i383 = 383, big = (int64_t)1 << 40, min = INT64_MIN, max = INT64_MAX;
    expect_type_index("cuda", &i0, dev(CT_DEVICE_CUDA, 0));
    expect_type_index("cuda", &i2, dev(CT_DEVICE_CUDA, 2));
    expect_type_index("cpu", &i0, dev(CT_DEVICE_CPU, 0));
    expect_type_index("cpu", &i1, dev(CT_DEVICE_CPU, 1));
    expect_type_index("cuda", NULL, dev(CT_DEVICE_CUDA, -1));
    expect_type_index("mps", &i0, dev(CT_DEVICE_MPS, 0));
    expect_type_index("xla", &i127, dev(CT_DEVICE_XLA, 127));
    expect_type_index("meta", NULL, dev(CT_DEVICE_META, -1));
    expect_type_error("cuda", &m1, "Device index must not be negative");
    expect_type_error("cuda", &m2, "Device index must not be negative");
    expect_type_error("cuda", &min, "Device index must not be negative");
    expect_type_error("cuda", &i128, RANGE(128));
    expect_type_error("cuda", &i255, RANGE(255));
    expect_type_error("cuda", &i300, RANGE(300));
    expect_type_error("cuda", &i383, RANGE(383));
    expect_type_error("cuda", &big, RANGE(1099511627776));
    expect_type_error("cuda", &max, RANGE(9223372036854775807));
    const char *inc = "type (string) must not include an index because index was passed "
                      "explicitly: ";
    char msg[256];
    static const char *const with_index[] = {"cuda:1", "cpu:0", "meta:0", "xla:3"};
    for (size_t k = 0; k < 4; k++) {
        snprintf(msg, sizeof msg, "%s%s", inc, with_index[k]);
        expect_type_error(with_index[k], &i0, msg);
        expect_type_error(with_index[k], NULL, msg);
        expect_type_error(with_index[k], &m1, msg); /* the string is checked first */
    }
    /* the parser's own errors come first */
    expect_type_error("foo", &i0, EXPECTED "foo");
    expect_type_error("foo:1", &m1, EXPECTED "foo");
    expect_type_error("CUDA", &i0, EXPECTED "CUDA");
    expect_type_error("metal", &i0, EXPECTED "metal");
    expect_type_error("", &i0, "Device string must not be empty");
    expect_type_error("cuda:", &i0, "Invalid device string: 'cuda:'");
    expect_type_error(" cuda", &i0, "Invalid device string: ' cuda'");
    expect_type_error("cuda:128", &i0, RANGE(128));
    ct_device d;
    assert_int_equal(ct_device_from_type(NULL, &i0, &d), CT_ERR_MISUSE);
    assert_int_equal(ct_device_from_type("cuda", &i0, NULL), CT_ERR_MISUSE);
}

static void test_from_ordinal_without_accelerator(void **state) {
    (void)state;
    ct_device d;
    assert_status_msg(ct_device_from_ordinal(0, &d), CT_ERR_RUNTIME,
                      "Cannot access accelerator device when none is available.");
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    assert_status_msg(ct_device_from_ordinal(3, &d), CT_ERR_RUNTIME,
                      "Cannot access accelerator device when none is available.");
    /* the sign is checked before anything else */
    assert_status_msg(ct_device_from_ordinal(-1, &d), CT_ERR_RUNTIME,
                      "Device index must not be negative");
    assert_status_msg(ct_device_from_ordinal(128, &d), CT_ERR_RUNTIME, RANGE(128));
    assert_int_equal(ct_device_from_ordinal(0, NULL), CT_ERR_MISUSE);
    ct_device_type t;
    assert_int_equal(ct_current_accelerator(&t), CT_ERR_RUNTIME);
    assert_int_equal(t, CT_DEVICE_UNDEFINED);
    assert_int_equal(ct_current_accelerator(NULL), CT_ERR_MISUSE);
    n_cases += 4;
}

static void test_make(void **state) {
    (void)state;
    ct_device d;
    assert_int_equal(ct_device_make(CT_DEVICE_METAL, 1, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_METAL, 1)));
    assert_int_equal(ct_device_make(CT_DEVICE_CUDA, -1, &d), CT_OK);
    assert_int_equal(d.index, -1);
    assert_status_msg(ct_device_make(CT_DEVICE_CUDA, -2, &d), CT_ERR_RUNTIME,
                      "Device index must be -1 or non-negative, got -2");
    assert_int_equal(d.type, CT_DEVICE_UNDEFINED);
    assert_status_msg(ct_device_make(CT_DEVICE_CUDA, 128, &d), CT_ERR_RUNTIME, RANGE(128));
    assert_int_equal(ct_device_make((ct_device_type)21, 0, &d), CT_ERR_MISUSE);
    assert_int_equal(strncmp(ct_last_error(), "Unknown device: 21. If you have", 31), 0);
    assert_int_equal(ct_device_make(CT_DEVICE_CPU, 0, NULL), CT_ERR_MISUSE);
    assert_true(ct_device_is_valid(dev(CT_DEVICE_CPU, -1)));
    assert_true(ct_device_is_valid(dev(CT_DEVICE_PRIVATEUSEONE, 127)));
    assert_false(ct_device_is_valid(dev(CT_DEVICE_CPU, -2)));
    assert_false(ct_device_is_valid(dev(CT_DEVICE_CPU, 128)));
    assert_false(ct_device_is_valid(dev(CT_DEVICE_UNDEFINED, -1)));
    assert_false(ct_device_is_valid(dev(CT_NUM_DEVICE_TYPES, 0)));
}

/* ---- formatting, equality, hash ---- */

static void expect_format(ct_device d, const char *str, const char *repr) {
    char buf[CT_DEVICE_STRING_MAX];
    assert_int_equal(ct_device_str(d, buf, sizeof buf), CT_OK);
    assert_string_equal(buf, str);
    assert_int_equal(ct_device_repr(d, buf, sizeof buf), CT_OK);
    assert_string_equal(buf, repr);
}

static void test_format(void **state) {
    (void)state;
    expect_format(dev(CT_DEVICE_CPU, -1), "cpu", "device(type='cpu')");
    expect_format(dev(CT_DEVICE_CPU, 0), "cpu:0", "device(type='cpu', index=0)");
    expect_format(dev(CT_DEVICE_CUDA, 0), "cuda:0", "device(type='cuda', index=0)");
    expect_format(dev(CT_DEVICE_CUDA, -1), "cuda", "device(type='cuda')");
    expect_format(dev(CT_DEVICE_META, -1), "meta", "device(type='meta')");
    expect_format(dev(CT_DEVICE_XLA, 127), "xla:127", "device(type='xla', index=127)");
    expect_format(dev(CT_DEVICE_METAL, 2), "metal:2", "device(type='metal', index=2)");
    expect_format(dev(CT_DEVICE_PRIVATEUSEONE, 1), "privateuseone:1",
                  "device(type='privateuseone', index=1)");
    /* str and repr of every parseable form read back as the same device */
    char buf[CT_DEVICE_STRING_MAX];
    for (size_t n = 0; n < N_PARSER_NAMES; n++) {
        for (int32_t i = -1; i <= 127; i += 16) {
            ct_device d, back;
            assert_int_equal(ct_device_from_string(parser_names[n], &d), CT_OK);
            d.index = i;
            assert_int_equal(ct_device_str(d, buf, sizeof buf), CT_OK);
            assert_int_equal(ct_device_from_string(buf, &back), CT_OK);
            assert_true(ct_device_equal(d, back));
        }
    }
}

static void test_format_errors(void **state) {
    (void)state;
    char buf[CT_DEVICE_STRING_MAX];
    assert_status_msg(ct_device_str(dev((ct_device_type)42, 0), buf, sizeof buf), CT_ERR_MISUSE,
                      "Unknown device: 42. If you have recently updated the caffe2.proto file to "
                      "add a new device type, did you forget to update the DeviceTypeName() "
                      "function to reflect such recent changes?");
    assert_string_equal(buf, "");
    assert_int_equal(ct_device_repr(dev(CT_DEVICE_CUDA, 200), buf, sizeof buf), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(), RANGE(200));
    assert_int_equal(ct_device_repr(dev(CT_DEVICE_CUDA, 0), NULL, 10), CT_ERR_MISUSE);
    char small[7];
    assert_int_equal(ct_device_str(dev(CT_DEVICE_CUDA, 10), small, sizeof small), CT_ERR_MISUSE);
    assert_string_equal(small, "");
    assert_string_equal(ct_last_error(),
                        "ct_device_str: a buffer of 7 bytes is too small (need 8)");
    assert_int_equal(ct_device_str(dev(CT_DEVICE_CUDA, 1), small, sizeof small), CT_OK);
    assert_string_equal(small, "cuda:1");
    assert_int_equal(ct_device_str(dev(CT_DEVICE_CUDA, 1), small, 0), CT_ERR_MISUSE);
}

static void test_equality_and_hash(void **state) {
    (void)state;
    assert_true(ct_device_equal(dev(CT_DEVICE_CUDA, 0), dev(CT_DEVICE_CUDA, 0)));
    assert_false(ct_device_equal(dev(CT_DEVICE_CPU, -1), dev(CT_DEVICE_CPU, 0)));
    assert_false(ct_device_equal(dev(CT_DEVICE_CUDA, -1), dev(CT_DEVICE_CUDA, 0)));
    assert_false(ct_device_equal(dev(CT_DEVICE_CUDA, 1), dev(CT_DEVICE_XLA, 1)));
    assert_int_equal(ct_device_hash(dev(CT_DEVICE_CPU, -1)), 255);
    assert_int_equal(ct_device_hash(dev(CT_DEVICE_CPU, 0)), 0);
    assert_int_equal(ct_device_hash(dev(CT_DEVICE_CUDA, 1)), 65537);
    assert_int_equal(ct_device_hash(dev(CT_DEVICE_CUDA, -1)), 65791);
    assert_int_equal(ct_device_hash(dev(CT_DEVICE_PRIVATEUSEONE, 127)), (20u << 16) | 127u);
    /* distinct valid devices hash differently */
    size_t nslots = (size_t)CT_NUM_DEVICE_TYPES << 16;
    unsigned char *seen = calloc(nslots, 1);
    assert_non_null(seen);
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++)
        for (int i = -1; i <= 127; i++) {
            uint32_t h = ct_device_hash(dev((ct_device_type)t, i));
            assert_true(h < nslots);
            assert_int_equal(seen[h], 0);
            seen[h] = 1;
        }
    free(seen);
    /* a dictionary key: device('cuda:0') and device('cuda', 0) agree */
    ct_device a, b;
    int64_t zero = 0;
    assert_int_equal(ct_device_from_string("cuda:0", &a), CT_OK);
    assert_int_equal(ct_device_from_type("cuda", &zero, &b), CT_OK);
    assert_true(ct_device_equal(a, b));
    assert_int_equal(ct_device_hash(a), ct_device_hash(b));
}

/* ---- the PrivateUse1 name ---- */

static void test_privateuse1_name(void **state) {
    (void)state;
    ct_device d;
    expect_unknown_type("npu:0", "npu");
    assert_int_equal(ct_privateuse1_set_name("npu"), CT_OK);
    assert_string_equal(ct_privateuse1_name(), "npu");
    assert_int_equal(ct_privateuse1_set_name("npu"), CT_OK); /* the same name again is fine */
    expect_device("npu", CT_DEVICE_PRIVATEUSEONE, -1);
    expect_device("npu:3", CT_DEVICE_PRIVATEUSEONE, 3);
    expect_device("privateuseone:3", CT_DEVICE_PRIVATEUSEONE, 3);
    expect_unknown_type("NPU:0", "NPU");
    expect_unknown_type("npux", "npux");
    expect_error("npu:128", RANGE(128));
    expect_invalid("npu:01");
    assert_string_equal(ct_device_type_name(CT_DEVICE_PRIVATEUSEONE), "npu");
    assert_string_equal(ct_device_type_upper_name(CT_DEVICE_PRIVATEUSEONE), "NPU");
    expect_format(dev(CT_DEVICE_PRIVATEUSEONE, 1), "npu:1", "device(type='npu', index=1)");
    expect_format(dev(CT_DEVICE_PRIVATEUSEONE, -1), "npu", "device(type='npu')");
    int64_t one = 1;
    assert_int_equal(ct_device_from_type("npu", &one, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_PRIVATEUSEONE, 1)));
    /* PyTorch's error order: "already set" first, then in-tree names */
    assert_status_msg(ct_privateuse1_set_name("foo"), CT_ERR_RUNTIME,
                      "torch.register_privateuse1_backend() has already been set! Current "
                      "backend: npu");
    assert_status_msg(ct_privateuse1_set_name("cuda"), CT_ERR_RUNTIME,
                      "torch.register_privateuse1_backend() has already been set! Current "
                      "backend: npu");
    /* a name alone is not a backend: no accelerator, no memory */
    ct_device_type t;
    assert_int_equal(ct_current_accelerator(&t), CT_ERR_RUNTIME);
    void *p;
    assert_status_msg(ct_device_alloc(dev(CT_DEVICE_PRIVATEUSEONE, 0), 8, 0, &p, NULL),
                      CT_ERR_RUNTIME, "No backend is registered for device type npu");
    assert_null(p);
    /* unregistering forgets the name (for tests) */
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    assert_null(ct_privateuse1_name());
    assert_string_equal(ct_device_type_name(CT_DEVICE_PRIVATEUSEONE), "privateuseone");
    assert_string_equal(ct_device_type_upper_name(CT_DEVICE_PRIVATEUSEONE), "PRIVATEUSEONE");
    expect_unknown_type("npu:0", "npu");
    assert_status_msg(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_ERR_RUNTIME,
                      "No backend is registered for device type privateuseone");
}

static void test_privateuse1_name_errors(void **state) {
    (void)state;
    static const char *const in_tree[] = {"cpu", "cuda", "hip", "mps",  "xpu", "mtia", "meta",
                                          "xla", "maia", "ve",  "lazy", "ipu", "hpu"};
    char msg[256];
    for (size_t i = 0; i < sizeof in_tree / sizeof in_tree[0]; i++) {
        snprintf(msg, sizeof msg,
                 "Cannot register privateuse1 backend with in-tree device name: %s", in_tree[i]);
        assert_status_msg(ct_privateuse1_set_name(in_tree[i]), CT_ERR_RUNTIME, msg);
        assert_null(ct_privateuse1_name());
    }
    char too_long[65];
    memset(too_long, 'a', 64);
    too_long[64] = '\0';
    const char *const bad[] = {"", "NPU", "Npu", "npu1", "np u", "npu:0", "n\xc3\xa4", too_long};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(msg, sizeof msg,
                 "Invalid privateuse1 backend name '%s': use 1 to 63 lower-case ASCII letters "
                 "or '_'",
                 bad[i]);
        assert_status_msg(ct_privateuse1_set_name(bad[i]), CT_ERR_RUNTIME, msg);
        assert_null(ct_privateuse1_name());
    }
    assert_int_equal(ct_privateuse1_set_name(NULL), CT_ERR_MISUSE);
    /* "metal" is not parseable, so it is a valid name; "privateuseone" keeps the default */
    assert_int_equal(ct_privateuse1_set_name("metal"), CT_OK);
    expect_device("metal:1", CT_DEVICE_PRIVATEUSEONE, 1);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    assert_int_equal(ct_privateuse1_set_name("privateuseone"), CT_OK);
    assert_string_equal(ct_privateuse1_name(), "privateuseone");
    assert_status_msg(ct_privateuse1_set_name("npu"), CT_ERR_RUNTIME,
                      "torch.register_privateuse1_backend() has already been set! Current "
                      "backend: privateuseone");
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    /* a 63-letter name is the longest */
    char longest[64];
    memset(longest, 'z', 63);
    longest[63] = '\0';
    assert_int_equal(ct_privateuse1_set_name(longest), CT_OK);
    char buf[CT_DEVICE_STRING_MAX];
    assert_int_equal(ct_device_repr(dev(CT_DEVICE_PRIVATEUSEONE, 127), buf, sizeof buf), CT_OK);
    assert_int_equal(strlen(buf), strlen("device(type='', index=127)") + 63);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
}

/* ---- the OneFlow mode ---- */

static void test_oneflow_mode(void **state) {
    (void)state;
    ct_device d;
    assert_int_equal(ct_get_compat_mode(), CT_COMPAT_PYTORCH);
    assert_int_equal(ct_set_compat_mode(CT_COMPAT_ONEFLOW), CT_OK);
    assert_int_equal(ct_get_compat_mode(), CT_COMPAT_ONEFLOW);
    /* OneFlow's page: device('cpu') -> device(type='cpu', index=0) */
    assert_int_equal(ct_device_from_string("cpu", &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CPU, 0)));
    expect_format(d, "cpu:0", "device(type='cpu', index=0)");
    /* 'cuda' shows the current device; without a cuda backend that is 0 */
    assert_int_equal(ct_device_from_string("cuda", &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CUDA, 0)));
    assert_int_equal(ct_device_from_string("cuda:1", &d), CT_OK);
    expect_format(d, "cuda:1", "device(type='cuda', index=1)");
    assert_int_equal(ct_device_from_type("cpu", NULL, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CPU, 0)));
    /* values built elsewhere print with their index too */
    expect_format(dev(CT_DEVICE_CPU, -1), "cpu:0", "device(type='cpu', index=0)");
    expect_format(dev(CT_DEVICE_META, -1), "meta:0", "device(type='meta', index=0)");
    /* legacy ordinal: cuda, with or without an accelerator */
    assert_int_equal(ct_device_from_ordinal(1, &d), CT_OK);
    assert_true(ct_device_equal(d, dev(CT_DEVICE_CUDA, 1)));
    assert_status_msg(ct_device_from_ordinal(-1, &d), CT_ERR_RUNTIME,
                      "Device index must not be negative");
    /* the grammar and its messages do not change */
    expect_error("cuda:01", "Invalid device string: 'cuda:01'");
    assert_int_equal(ct_set_compat_mode((ct_compat_mode)7), CT_ERR_MISUSE);
    assert_int_equal(ct_get_compat_mode(), CT_COMPAT_ONEFLOW);
    assert_int_equal(ct_set_compat_mode(CT_COMPAT_PYTORCH), CT_OK);
    expect_format(dev(CT_DEVICE_CPU, -1), "cpu", "device(type='cpu')");
}

/* Every distinct PrivateUse1 name is kept for the life of the process (names handed out
 * stay valid); the table has room for 16. Runs last: it uses up the table. */
static void test_privateuse1_name_table(void **state) {
    (void)state;
    const char *first = NULL;
    char name[8];
    int ok = 0;
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "n%c%c", 'a' + i / 26, 'a' + i % 26);
        ct_status st = ct_privateuse1_set_name(name);
        if (st != CT_OK) {
            char msg[128];
            snprintf(msg, sizeof msg,
                     "Cannot register privateuse1 backend name %s: a process may register at "
                     "most 16 different names",
                     name);
            assert_string_equal(ct_last_error(), msg);
            break;
        }
        ok++;
        if (first == NULL)
            first = ct_privateuse1_name();
        assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
    }
    assert_true(ok >= 10 && ok <= 16);
    assert_string_equal(first, "naa"); /* still readable after its name was replaced */
    /* names seen before can still be registered again */
    assert_int_equal(ct_privateuse1_set_name("naa"), CT_OK);
    assert_ptr_equal(ct_privateuse1_name(), first);
    assert_int_equal(ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE), CT_OK);
}

static void test_case_count(void **state) {
    (void)state;
    print_message("[ info ] %d device strings and constructor forms checked\n", n_cases);
    assert_true(n_cases >= 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_parse_corpus_valid),
        cmocka_unit_test(test_parse_corpus_invalid),
        cmocka_unit_test(test_parse_generated),
        cmocka_unit_test(test_parse_misuse),
        cmocka_unit_test(test_from_type),
        cmocka_unit_test(test_from_ordinal_without_accelerator),
        cmocka_unit_test(test_make),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_errors),
        cmocka_unit_test(test_equality_and_hash),
        cmocka_unit_test(test_privateuse1_name),
        cmocka_unit_test(test_privateuse1_name_errors),
        cmocka_unit_test(test_oneflow_mode),
        cmocka_unit_test(test_privateuse1_name_table),
        cmocka_unit_test(test_case_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
