/* The cuda backend on every machine (built when libctensor_cuda is): ct_cuda_init registers
 * once and concurrently, refuses a slot held by another backend, and without driver or GPU
 * (the CI machine) reports zero devices, PyTorch's no-driver error for everything that needs
 * a device, and nothing pinned. On a machine with a GPU the no-driver asserts are skipped. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "cmocka_all.h"
#include "ctensor/backend.h"
#include "ctensor/ctensor.h"
#include "ctensor/cuda.h"

#define NO_DRIVER                                                                          \
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and " \
    "installed a driver from http://www.nvidia.com/Download/index.aspx"

static const ct_device CPU = {CT_DEVICE_CPU, -1};

static void *init_thread(void *arg) {
    *(ct_status *)arg = ct_cuda_init();
    return NULL;
}

/* Runs first: the slot held by another backend, then the real registration. */
static void test_init(void **state) {
    (void)state;
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 1), CT_OK);
    assert_status_msg(ct_cuda_init(), CT_ERR_RUNTIME,
                      "A backend is already registered for device type cuda");
    assert_false(ct_cuda_is_available());
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    /* concurrent first calls: one registers, all succeed */
    enum { T = 8 };
    pthread_t th[T];
    ct_status st[T];
    for (int i = 0; i < T; i++)
        assert_int_equal(pthread_create(&th[i], NULL, init_thread, &st[i]), 0);
    for (int i = 0; i < T; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(st[i], CT_OK);
    }
    assert_int_equal(ct_cuda_init(), CT_OK);
    assert_true(ct_backend_is_registered(CT_DEVICE_CUDA));
    int32_t n = -1;
    assert_int_equal(ct_device_count(CT_DEVICE_CUDA, &n), CT_OK);
    assert_int_equal(n, ct_cuda_device_count());
    assert_true(ct_cuda_device_count() >= 0);
    assert_int_equal(ct_cuda_is_available(), ct_cuda_device_count() > 0);
    /* unregistered (tests, shutdown): init registers it again */
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    assert_false(ct_cuda_is_available());
    assert_int_equal(ct_cuda_init(), CT_OK);
    assert_true(ct_backend_is_registered(CT_DEVICE_CUDA));
}

static void test_no_driver(void **state) {
    (void)state;
    assert_int_equal(ct_cuda_init(), CT_OK);
    if (ct_cuda_device_count() > 0) {
        skip(); /* a GPU is present: tests/cuda covers it */
        return;
    }
    assert_false(ct_cuda_is_available());
    int64_t sizes[] = {2, 3};
    ct_tensor *t = NULL;
    ct_device cuda = {CT_DEVICE_CUDA, -1}, cuda0 = {CT_DEVICE_CUDA, 0}, cuda1 = {CT_DEVICE_CUDA, 1};
    assert_status_msg(ct_tensor_empty(sizes, 2, CT_FLOAT32, &cuda, CT_LAYOUT_STRIDED,
                                      CT_MEMFMT_CONTIGUOUS, &t),
                      CT_ERR_RUNTIME, NO_DRIVER);
    assert_null(t);
    assert_status_msg(ct_tensor_zeros(sizes, 2, CT_INT64, &cuda0, CT_LAYOUT_STRIDED, &t),
                      CT_ERR_RUNTIME, NO_DRIVER);
    assert_status_msg(ct_tensor_ones(sizes, 2, CT_FLOAT16, &cuda1, CT_LAYOUT_STRIDED, &t),
                      CT_ERR_RUNTIME, NO_DRIVER);
    ct_tensor *c = NULL;
    assert_int_equal(ct_tensor_ones(sizes, 2, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &c), CT_OK);
    assert_status_msg(ct_tensor_to_device(c, cuda, &t), CT_ERR_RUNTIME, NO_DRIVER);
    ct_device d;
    assert_status_msg(ct_current_device(CT_DEVICE_CUDA, &d), CT_ERR_RUNTIME, NO_DRIVER);
    assert_status_msg(ct_set_device(cuda0), CT_ERR_RUNTIME, NO_DRIVER);
    /* the cuda API */
    assert_status_msg(ct_cuda_synchronize(-1), CT_ERR_RUNTIME, NO_DRIVER);
    assert_status_msg(ct_cuda_synchronize(0), CT_ERR_RUNTIME, NO_DRIVER);
    ct_cuda_memory_stats ms;
    assert_status_msg(ct_cuda_memory_stats_get(0, &ms), CT_ERR_RUNTIME, NO_DRIVER);
    assert_status_msg(ct_cuda_reset_peak_memory_stats(-1), CT_ERR_RUNTIME, NO_DRIVER);
    assert_int_equal(ct_cuda_empty_cache(), CT_OK);
    char name[64] = "x";
    int32_t major = -1;
    assert_status_msg(ct_cuda_get_device_properties(0, name, sizeof name, &major, NULL, NULL, NULL),
                      CT_ERR_RUNTIME, NO_DRIVER);
    assert_string_equal(name, "");
    ct_cuda_stream *s = (ct_cuda_stream *)1;
    assert_status_msg(ct_cuda_stream_new(-1, 0, &s), CT_ERR_RUNTIME, NO_DRIVER);
    assert_null(s);
    assert_status_msg(ct_cuda_current_stream(-1, &s), CT_ERR_RUNTIME, NO_DRIVER);
    assert_status_msg(ct_cuda_default_stream(0, &s), CT_ERR_RUNTIME, NO_DRIVER);
    ct_cuda_stream_free(NULL);
    /* events exist without a device until recorded */
    ct_cuda_event *e1, *e2;
    assert_int_equal(ct_cuda_event_new(true, &e1), CT_OK);
    assert_int_equal(ct_cuda_event_new(false, &e2), CT_OK);
    bool done = false;
    assert_int_equal(ct_cuda_event_query(e1, &done), CT_OK);
    assert_true(done);
    assert_int_equal(ct_cuda_event_synchronize(e1), CT_OK);
    assert_status_msg(ct_cuda_event_record(e1, NULL), CT_ERR_RUNTIME, NO_DRIVER);
    float ms_ = 1.0f;
    assert_status_msg(ct_cuda_event_elapsed_ms(e1, e2, &ms_), CT_ERR_RUNTIME,
                      "Both events must be created with argument 'enable_timing=True'.");
    assert_status_msg(ct_cuda_event_elapsed_ms(e1, e1, &ms_), CT_ERR_RUNTIME,
                      "Both events must be recorded before calculating elapsed time.");
    ct_cuda_event_free(e1);
    ct_cuda_event_free(e2);
    ct_cuda_event_free(NULL);
    /* pinned memory */
    assert_false(ct_cuda_is_pinned(c));
    assert_false(ct_cuda_is_pinned(NULL));
    assert_status_msg(ct_cuda_pin_memory(c, &t), CT_ERR_RUNTIME, NO_DRIVER);
    /* copy_async of two cpu tensors is a plain copy */
    ct_tensor *z = NULL;
    assert_int_equal(ct_tensor_zeros(sizes, 2, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &z), CT_OK);
    assert_int_equal(ct_cuda_copy_async(z, c), CT_OK);
    assert_true(((float *)ct_tensor_data_ptr(z))[5] == 1.0f);
    ct_tensor_release(z);
    ct_tensor_release(c);
}

/* Arguments checked before any device is needed. */
static void test_arguments(void **state) {
    (void)state;
    int64_t sizes[] = {4};
    ct_tensor *m = NULL, *t = NULL;
    ct_device meta = {CT_DEVICE_META, -1};
    assert_int_equal(ct_tensor_empty(sizes, 1, CT_FLOAT32, &meta, CT_LAYOUT_STRIDED,
                                     CT_MEMFMT_CONTIGUOUS, &m),
                     CT_OK);
    assert_status_msg(ct_cuda_pin_memory(m, &t), CT_ERR_RUNTIME,
                      "cannot pin 'torch.meta.FloatTensor' only dense CPU tensors can be pinned");
    assert_false(ct_cuda_is_pinned(m));
    ct_tensor_release(m);
    assert_int_equal(ct_cuda_pin_memory(NULL, &t), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_copy_async(NULL, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_event_new(false, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_set_stream(NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_stream_synchronize(NULL), CT_ERR_MISUSE);
    bool done;
    assert_int_equal(ct_cuda_stream_query(NULL, &done), CT_ERR_MISUSE);
    assert_int_equal(ct_cuda_stream_device(NULL), -1);
    assert_int_equal(ct_cuda_stream_handle(NULL), 0);
    assert_int_equal(ct_cuda_memory_stats_get(0, NULL), CT_ERR_MISUSE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_no_driver),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
