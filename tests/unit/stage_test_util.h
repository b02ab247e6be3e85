/* Helpers of the staging tests (test_stage*.c): ops without device kernels run on an emulated
 * cuda whose memory the host cannot read (launch_host.h, host_launch_register_opaque), and
 * each result is compared with the same op on the cpu: device, dtype, sizes, strides, bytes. */
#ifndef CT_TESTS_STAGE_TEST_UTIL_H
#define CT_TESTS_STAGE_TEST_UTIL_H

#include <stdio.h>

#include "ctensor/backend.h"
#include "launch_host.h"
#include "tensor_test_util.h"

static const ct_device DEV0 = {CT_DEVICE_CUDA, 0};
static const ct_device DEV1 = {CT_DEVICE_CUDA, 1};

static int stage_setup(void **state) {
    (void)state;
    return host_launch_register_opaque(CT_DEVICE_CUDA, 2) == CT_OK ? 0 : -1;
}

/* Fails when device memory is still live (a leak). */
static int stage_teardown(void **state) {
    (void)state;
    if (ct_backend_unregister(CT_DEVICE_CUDA) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return -1;
    }
    return 0;
}

/* A copy of cpu tensor t on `dev` with the same strides (new reference). */
static inline ct_tensor *on_dev(const ct_tensor *t, ct_device dev) {
    ct_tensor *r = NULL;
    OK(ct_tensor_to(t, CT_DTYPE_UNDEFINED, &dev, true, CT_MEMFMT_PRESERVE, &r));
    assert_true(ct_tensor_is_contiguous(r, CT_MEMFMT_CONTIGUOUS) ==
                ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS));
    return r;
}

/* A cpu float32 tensor of standard normal values from a fixed seed, in `dtype`. */
static inline ct_tensor *randn_as(ct_dtype dtype, const int64_t *sizes, int64_t ndim,
                                  uint64_t seed) {
    ct_generator *g = NULL;
    ct_tensor *f = NULL, *r = NULL;
    OK(ct_generator_new(seed, &g));
    OK(ct_tensor_randn(sizes, ndim, g, CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &f));
    OK(ct_tensor_to_dtype(f, dtype, &r));
    ct_tensor_release(f);
    ct_generator_free(g);
    return r;
}

/* dev (on `device`) holds the values cpu holds: dtype, sizes and the same bytes. */
static inline void expect_values(const ct_tensor *dev, ct_device device, const ct_tensor *cpu) {
    assert_non_null(dev);
    assert_non_null(cpu);
    assert_true(ct_device_equal(ct_tensor_device(dev), device));
    assert_int_equal(ct_tensor_dtype(dev), ct_tensor_dtype(cpu));
    assert_i64s(ct_tensor_sizes(dev), ct_tensor_dim(dev), ct_tensor_sizes(cpu), ct_tensor_dim(cpu));
    ct_tensor *a = NULL, *b = NULL;
    OK(ct_tensor_to(dev, CT_DTYPE_UNDEFINED, &CPU, true, CT_MEMFMT_CONTIGUOUS, &a));
    OK(ct_tensor_contiguous(cpu, CT_MEMFMT_CONTIGUOUS, &b));
    size_t n = (size_t)ct_tensor_numel(a) * ct_dtype_itemsize(ct_tensor_dtype(a));
    if (n > 0 && memcmp(ct_tensor_data_ptr(a), ct_tensor_data_ptr(b), n) != 0)
        fail_msg("the device result's bytes differ from the cpu's");
    ct_tensor_release(a);
    ct_tensor_release(b);
}

/* expect_values, and the same strides. */
static inline void expect_same(const ct_tensor *dev, ct_device device, const ct_tensor *cpu) {
    expect_values(dev, device, cpu);
    assert_i64s(ct_tensor_strides(dev), ct_tensor_dim(dev), ct_tensor_strides(cpu),
                ct_tensor_dim(cpu));
}

/* Runs CPU_CALL, then DEV_CALL: both succeed, or DEV_CALL fails with CPU_CALL's status and
 * message. Evaluates to true when both succeeded. */
#define SAME_STATUS(CPU_CALL, DEV_CALL)                                                            \
    (same_status_record_(CPU_CALL), same_status_check_((DEV_CALL), #DEV_CALL))
static char same_status_msg_[1024];
static ct_status same_status_want_;
static inline void same_status_record_(ct_status cpu) {
    same_status_want_ = cpu;
    snprintf(same_status_msg_, sizeof same_status_msg_, "%s", cpu == CT_OK ? "" : ct_last_error());
}
static inline bool same_status_check_(ct_status dev, const char *what) {
    if (dev != same_status_want_)
        fail_msg("%s: got %s (%s), the cpu gave %s (%s)", what, ct_status_name(dev),
                 dev == CT_OK ? "" : ct_last_error(), ct_status_name(same_status_want_),
                 same_status_msg_);
    if (dev != CT_OK && strcmp(ct_last_error(), same_status_msg_) != 0)
        fail_msg("%s: message\n  got  '%s'\n  cpu  '%s'", what, ct_last_error(),
                 same_status_msg_);
    return dev == CT_OK;
}

#endif /* CT_TESTS_STAGE_TEST_UTIL_H */
