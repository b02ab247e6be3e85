/* A consumer of the installed libctensor_cuda: registers the backend and reports the devices;
 * with no GPU or driver that is zero devices, and registering still succeeds. */
#include <ctensor/ctensor.h>
#include <ctensor/cuda.h>
#include <stdio.h>

int main(void) {
    if (ct_cuda_init() != CT_OK) {
        fprintf(stderr, "consumer_cuda: %s\n", ct_last_error());
        return 1;
    }
    int32_t n = ct_cuda_device_count();
    int ok = n >= 0 && ct_cuda_is_available() == (n > 0);
    printf("consumer_cuda %s: %d cuda device%s\n", ok ? "ok" : "FAILED", (int)n, n == 1 ? "" : "s");
    return ok ? 0 : 1;
}
