/* Page-locked host memory (stubs for now). */
#include "ctensor/cuda.h"

#include "cuda/cuda_impl.h"

ct_status ct_cuda_pin_memory(const ct_tensor *tensor, ct_tensor **out)
{
    (void)tensor, (void)out;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet");
}
bool ct_cuda_is_pinned(const ct_tensor *tensor)
{
    (void)tensor;
    return false;
}
ct_status ct_cuda_copy_async(ct_tensor *dst, const ct_tensor *src)
{
    (void)dst, (void)src;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet");
}
