/* A cmocka group fixture: two host-emulated cuda devices for the tests of the device rules;
 * teardown fails when cuda memory is still live (a leak). */
#ifndef CT_TESTS_EMULATED_CUDA_H
#define CT_TESTS_EMULATED_CUDA_H

#include <stdio.h>

#include "ctensor/backend.h"
#include "ctensor/status.h"

static const ct_device CUDA0 = {CT_DEVICE_CUDA, 0};

static int emulated_cuda_setup(void **state) {
    (void)state;
    return ct_backend_register_host_emulated(CT_DEVICE_CUDA, 2) == CT_OK ? 0 : -1;
}

static int emulated_cuda_teardown(void **state) {
    (void)state;
    if (ct_backend_unregister(CT_DEVICE_CUDA) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return -1;
    }
    return 0;
}

#endif /* CT_TESTS_EMULATED_CUDA_H */
