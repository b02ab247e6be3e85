/* randint (ct_tensor_randint): values over wide spans (the whole int64 range, spans above
 * 2**53), uniformity on awkward spans where a modulo or unrejected mapping is visibly biased,
 * every dtype's bounds errors with PyTorch's messages, the float precision warnings, devices,
 * generator determinism. */
#include <math.h>

#include "tensor_test_util.h"
#include "warning_capture.h"

static const ct_device NPU = {CT_DEVICE_PRIVATEUSEONE, 0};

static int setup(void **state) {
    (void)state;
    if (ct_privateuse1_set_name("npu") != CT_OK)
        return -1;
    return ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 1) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE) == CT_OK ? 0 : -1;
}

/* n int64 values of randint(low, high) from a generator seeded with `seed` (caller frees). */
static int64_t *draw(int64_t low, int64_t high, int64_t n, uint64_t seed) {
    ct_generator *g = NULL;
    ct_tensor *t = NULL;
    OK(ct_generator_new(seed, &g));
    OK(ct_tensor_randint(low, high, SHAPE(n), g, CT_DTYPE_UNDEFINED, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_INT64);
    int64_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    memcpy(v, ct_tensor_data_ptr(t), (size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        assert_true(v[i] >= low && v[i] < high);
    ct_tensor_release(t);
    ct_generator_free(g);
    return v;
}

static void test_full_int64_range(void **state) {
    (void)state;
    int64_t n = 4000, neg = 0, pos = 0;
    int64_t *v = draw(INT64_MIN, INT64_MAX, n, 1);
    for (int64_t i = 0; i < n; i++) {
        neg += v[i] < 0;
        pos += v[i] > 0;
    }
    /* about half each: 1600 is more than 12 standard deviations from 2000 */
    assert_true(neg > 1600 && pos > 1600);
    free(v);
    /* near the top and the bottom of int64 */
    v = draw(INT64_MAX - 3, INT64_MAX, 200, 2);
    free(v);
    v = draw(INT64_MIN, INT64_MIN + 2, 200, 3);
    for (int i = 0; i < 200; i++)
        assert_true(v[i] == INT64_MIN || v[i] == INT64_MIN + 1);
    free(v);
}

static void test_wide_span_low_bits(void **state) {
    (void)state;
    /* 2**60 + 1: drawn through a double, every value would be a multiple of 2**7 */
    int64_t n = 4000, odd = 0, low7 = 0;
    int64_t *v = draw(0, ((int64_t)1 << 60) + 1, n, 4);
    for (int64_t i = 0; i < n; i++) {
        odd += v[i] & 1;
        low7 += (v[i] & 127) != 0;
    }
    assert_true(odd > 1600 && odd < 2400);
    assert_true(low7 > 3800);
    free(v);
}

/* Chi-square statistic of `counts` against equal expectation. */
static double chi_square(const int64_t *counts, int k, int64_t n) {
    double e = (double)n / k, x = 0;
    for (int i = 0; i < k; i++)
        x += ((double)counts[i] - e) * ((double)counts[i] - e) / e;
    return x;
}

/* Thirds of a span of 3 * 2**shift: mapping a word by modulo would fill the first third twice
 * as often as the others (chi-square in the thousands); uniform gives about 2 (2 degrees of
 * freedom), so 30 fails only with probability about 3e-7 and never for the fixed seed. */
static void thirds(int64_t low, int shift, uint64_t seed) {
    int64_t n = 30000, counts[3] = {0, 0, 0};
    int64_t high = (int64_t)((uint64_t)low + 3 * (UINT64_C(1) << shift));
    int64_t *v = draw(low, high, n, seed);
    for (int64_t i = 0; i < n; i++)
        counts[((uint64_t)v[i] - (uint64_t)low) >> shift]++;
    double x = chi_square(counts, 3, n);
    if (x > 30)
        fail_msg("span 3*2**%d: chi-square %g (%lld %lld %lld)", shift, x, (long long)counts[0],
                 (long long)counts[1], (long long)counts[2]);
    free(v);
}

static void test_unbiased(void **state) {
    (void)state;
    thirds(0, 30, 5);         /* one word per value, 2**32 mod span = 2**30 */
    thirds(INT64_MIN, 62, 6); /* two words per value, 2**64 mod span = 2**62 */
    thirds(-1000, 40, 7);     /* two words, a small awkward remainder */
    /* a small awkward span, every value: 7 buckets, 6 degrees of freedom, bound 45 */
    int64_t n = 70000, counts[7] = {0};
    int64_t *v = draw(-3, 4, n, 8);
    for (int64_t i = 0; i < n; i++)
        counts[v[i] + 3]++;
    assert_true(chi_square(counts, 7, n) < 45);
    free(v);
}

static void test_determinism(void **state) {
    (void)state;
    int64_t *a = draw(0, 1000000007, 100, 9), *b = draw(0, 1000000007, 100, 9);
    assert_memory_equal(a, b, 100 * sizeof *a);
    free(b);
    b = draw(0, 1000000007, 100, 10);
    assert_memory_not_equal(a, b, 100 * sizeof *a);
    free(a);
    free(b);
    /* calls move the generator on; meta tensors consume nothing */
    ct_generator *g = NULL;
    ct_tensor *t = NULL;
    uint64_t off0, off1, off2;
    OK(ct_generator_new(11, &g));
    ct_generator_get_state(g, NULL, &off0);
    OK(ct_tensor_randint(0, 10, SHAPE(8), g, CT_INT32, &META, CT_LAYOUT_STRIDED, &t));
    ct_generator_get_state(g, NULL, &off1);
    assert_true(off1 == off0);
    ct_tensor_release(t);
    OK(ct_tensor_randint(0, 10, SHAPE(8), g, CT_INT32, &CPU, CT_LAYOUT_STRIDED, &t));
    ct_generator_get_state(g, NULL, &off2);
    assert_true(off2 > off1);
    ct_tensor_release(t);
    ct_generator_free(g);
    /* NULL generator: the default one */
    ct_manual_seed(12);
    OK(ct_tensor_randint(0, 10, SHAPE(8), NULL, CT_DTYPE_UNDEFINED, NULL, CT_LAYOUT_STRIDED, &t));
    ct_tensor_release(t);
    uint64_t seed;
    ct_generator_get_state(ct_default_generator(), &seed, &off0);
    assert_true(seed == 12 && off0 > 0);
}

/* Every value of randint(low, high) in `dt` read back as int64, inside [low, high). */
static void check_dtype(ct_dtype dt, int64_t low, int64_t high, const ct_device *dev) {
    ct_tensor *t = NULL, *c = NULL;
    OK(ct_tensor_randint(low, high, SHAPE(500), NULL, dt, dev, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(ct_tensor_dtype(t), dt);
    OK(ct_tensor_to(t, CT_INT64, &CPU, false, CT_MEMFMT_CONTIGUOUS, &c));
    const int64_t *v = ct_tensor_data_ptr(c);
    bool lo_seen = false, hi_seen = false;
    for (int i = 0; i < 500; i++) {
        assert_true(v[i] >= low && v[i] < high);
        lo_seen |= v[i] == low;
        hi_seen |= v[i] == high - 1;
    }
    assert_true(lo_seen && hi_seen); /* spans of at most 4 values here */
    ct_tensor_release(c);
    ct_tensor_release(t);
}

static void test_dtypes(void **state) {
    (void)state;
    check_dtype(CT_BOOL, 0, 2, &CPU);
    check_dtype(CT_UINT8, 252, 256, &CPU);
    check_dtype(CT_INT8, -128, -125, &CPU);
    check_dtype(CT_UINT16, 65533, 65536, &CPU);
    check_dtype(CT_INT16, 32764, 32768, &CPU);
    check_dtype(CT_UINT32, 4294967292, 4294967296, &CPU);
    check_dtype(CT_INT32, INT32_MIN, INT32_MIN + 3, &NPU);
    check_dtype(CT_UINT64, INT64_MAX - 3, INT64_MAX, &CPU);
    check_dtype(CT_FLOAT16, -2048, -2045, &CPU);
    check_dtype(CT_BFLOAT16, 253, 257, &CPU);
    check_dtype(CT_FLOAT32, -5, -1, &NPU);
    check_dtype(CT_FLOAT64, 1, 5, &CPU);
    /* float16 above 2**12 holds multiples of 4: [4097, 4101) moves in to [4100, 4101) */
    nwarnings = 0;
    ct_set_warning_handler(on_warning, NULL);
    ct_tensor *t = NULL, *c = NULL;
    OK(ct_tensor_randint(4097, 4101, SHAPE(20), NULL, CT_FLOAT16, &CPU, CT_LAYOUT_STRIDED, &t));
    OK(ct_tensor_to(t, CT_FLOAT64, &CPU, false, CT_MEMFMT_CONTIGUOUS, &c));
    for (int i = 0; i < 20; i++)
        assert_true(((const double *)ct_tensor_data_ptr(c))[i] == 4100.0);
    ct_tensor_release(c);
    ct_tensor_release(t);
    assert_int_equal(nwarnings, 2); /* from and to - 1 beyond 2**11 */
    assert_string_equal(last_warning,
                        "to - 1 is out of bounds [-(2^11), 2^11]. Due to precision limitations "
                        "c10::Half can support discrete uniform distribution only within this "
                        "range. This warning will become an error in version 1.7 release, please "
                        "fix the code in advance");
    /* the whole int64 range in float64: values spread over it, none infinite */
    OK(ct_tensor_randint(INT64_MIN, INT64_MAX, SHAPE(100), NULL, CT_FLOAT64, &CPU,
                         CT_LAYOUT_STRIDED, &t));
    for (int i = 0; i < 100; i++)
        assert_true(fabs(((const double *)ct_tensor_data_ptr(t))[i]) <= 0x1p63);
    ct_tensor_release(t);
    nwarnings = 0;
    OK(ct_tensor_randint(0, 2048, SHAPE(3), NULL, CT_FLOAT16, &CPU, CT_LAYOUT_STRIDED, &t));
    assert_int_equal(nwarnings, 0);
    ct_tensor_release(t);
    ct_set_warning_handler(NULL, NULL);
}

#define RANDINT_ERR(low, high, n, dt, dev, st, msg)                                                \
    do {                                                                                           \
        ct_tensor *t_ = (ct_tensor *)1;                                                            \
        assert_status_msg(                                                                         \
            ct_tensor_randint(low, high, SHAPE(n), NULL, dt, dev, CT_LAYOUT_STRIDED, &t_), st,     \
            msg);                                                                                  \
        assert_null(t_);                                                                           \
    } while (0)

/* torch.Generator(device=): only cpu (its index dropped); every other type is refused by
 * its upper-case name. */
static void test_generator_device(void **state) {
    (void)state;
    ct_device d = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
    OK(ct_generator_device(NULL, &d));
    assert_true(ct_device_equal(d, CPU));
    ct_device cpu1 = {CT_DEVICE_CPU, 1};
    OK(ct_generator_device(&cpu1, &d));
    assert_true(ct_device_equal(d, CPU));
    ct_device meta = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
    assert_int_equal(ct_generator_device(&meta, &d), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(),
                        "Device type META is not supported for ctensor.Generator() api.");
    assert_int_equal(ct_generator_device(&NPU, &d), CT_ERR_RUNTIME);
    assert_string_equal(ct_last_error(),
                        "Device type NPU is not supported for ctensor.Generator() api.");
    assert_int_equal(ct_generator_device(&CPU, NULL), CT_ERR_MISUSE);
}

static void test_errors(void **state) {
    (void)state;
    const char *lt = "random_ expects 'from' to be less than 'to', but got from=5 >= to=5";
    RANDINT_ERR(5, 5, 3, CT_DTYPE_UNDEFINED, &CPU, CT_ERR_RUNTIME, lt);
    RANDINT_ERR(5, 5, 0, CT_COMPLEX64, &CPU, CT_ERR_RUNTIME, lt); /* before the dtype */
    RANDINT_ERR(0, -1, 3, CT_INT64, &META, CT_ERR_RUNTIME,
                "random_ expects 'from' to be less than 'to', but got from=0 >= to=-1");
    RANDINT_ERR(0, 300, 3, CT_UINT8, &CPU, CT_ERR_RUNTIME,
                "to - 1 is out of bounds for unsigned char");
    RANDINT_ERR(0, 300, 0, CT_UINT8, &CPU, CT_ERR_RUNTIME, /* empty: still checked */
                "to - 1 is out of bounds for unsigned char");
    RANDINT_ERR(0, 300, 3, CT_UINT8, &META, CT_ERR_RUNTIME, /* meta: too */
                "to - 1 is out of bounds for unsigned char");
    RANDINT_ERR(-1, 3, 3, CT_UINT8, &CPU, CT_ERR_RUNTIME,
                "from is out of bounds for unsigned char");
    RANDINT_ERR(-129, 0, 3, CT_INT8, &CPU, CT_ERR_RUNTIME, "from is out of bounds for signed char");
    RANDINT_ERR(0, 32769, 3, CT_INT16, &CPU, CT_ERR_RUNTIME,
                "to - 1 is out of bounds for short int");
    RANDINT_ERR(0, 2147483649, 3, CT_INT32, &NPU, CT_ERR_RUNTIME,
                "to - 1 is out of bounds for int");
    RANDINT_ERR(0, 3, 3, CT_BOOL, &CPU, CT_ERR_RUNTIME, "to - 1 is out of bounds for bool");
    RANDINT_ERR(-1, 2, 3, CT_BOOL, &CPU, CT_ERR_RUNTIME, "from is out of bounds for bool");
    RANDINT_ERR(-1, 2, 3, CT_UINT64, &CPU, CT_ERR_RUNTIME,
                "from is out of bounds for long unsigned int");
    RANDINT_ERR(0, 65537, 3, CT_UINT16, &CPU, CT_ERR_RUNTIME,
                "to - 1 is out of bounds for short unsigned int");
    RANDINT_ERR(0, 65506, 3, CT_FLOAT16, &CPU, CT_ERR_RUNTIME,
                "to - 1 is out of bounds for c10::Half");
    RANDINT_ERR(-65505, 0, 3, CT_FLOAT16, &CPU, CT_ERR_RUNTIME,
                "from is out of bounds for c10::Half");
    RANDINT_ERR(4097, 4099, 3, CT_FLOAT16, &CPU, CT_ERR_RUNTIME,
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
                "got from=4100 >= to=4099");
    RANDINT_ERR(0, 2, 3, CT_COMPLEX64, &CPU, CT_ERR_RUNTIME,
                "check_random_bounds handles only integral, floating-point and boolean types");
    RANDINT_ERR(0, 2, 3, CT_FLOAT8_E4M3FN, &CPU, CT_ERR_NOT_IMPLEMENTED,
                "\"random_update_from_to\" not implemented for 'Float8_e4m3fn'");
    /* ct_tensor_empty's own errors come first */
    RANDINT_ERR(5, 5, -1, CT_INT64, &CPU, CT_ERR_RUNTIME,
                "Trying to create tensor with negative dimension -1: [-1]");
    assert_int_equal(
        ct_tensor_randint(0, 1, SHAPE(1), NULL, CT_INT64, &CPU, CT_LAYOUT_STRIDED, NULL),
        CT_ERR_MISUSE);
    /* the largest bounds each dtype takes */
    ct_tensor *t = NULL;
    OK(ct_tensor_randint(0, 65505, SHAPE(3), NULL, CT_FLOAT16, &CPU, CT_LAYOUT_STRIDED, &t));
    ct_tensor_release(t);
    OK(ct_tensor_randint(0, INT64_MAX, SHAPE(3), NULL, CT_UINT64, &CPU, CT_LAYOUT_STRIDED, &t));
    ct_tensor_release(t);
    OK(ct_tensor_randint(-2147483648, 2147483648, SHAPE(3), NULL, CT_INT32, &CPU, CT_LAYOUT_STRIDED,
                         &t));
    ct_tensor_release(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_int64_range), cmocka_unit_test(test_wide_span_low_bits),
        cmocka_unit_test(test_unbiased),         cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_dtypes),           cmocka_unit_test(test_errors),
        cmocka_unit_test(test_generator_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
