/* The cuda backend: registration, devices and the backend's slots (stubs for now). */
#include "ctensor/cuda.h"

#include "cuda/cuda_impl.h"

ct_status ct_cuda_impl_error(int cuda_error)
{
    return ct_set_error(CT_ERR_RUNTIME, "CUDA error: %d", cuda_error);
}

ct_status ct_cuda_init(void) { return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet"); }
bool ct_cuda_is_available(void) { return false; }
int32_t ct_cuda_device_count(void) { return 0; }
ct_status ct_cuda_synchronize(int32_t device)
{
    (void)device;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet");
}
ct_status ct_cuda_get_device_properties(int32_t device, char *name, size_t size, int32_t *major,
                                        int32_t *minor, int64_t *total_memory,
                                        int32_t *multi_processor_count)
{
    (void)device, (void)name, (void)size, (void)major, (void)minor, (void)total_memory;
    (void)multi_processor_count;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet");
}
ct_status ct_cuda_memory_stats_get(int32_t device, ct_cuda_memory_stats *out)
{
    (void)device, (void)out;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet");
}
ct_status ct_cuda_reset_peak_memory_stats(int32_t device)
{
    (void)device;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet");
}
ct_status ct_cuda_empty_cache(void) { return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet"); }
