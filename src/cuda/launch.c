/* The cuda backend's `launch` and `fill` slots (stubs until the kernels land; the kernels'
 * owner replaces this file). */
#include "base/error_impl.h"
#include "cuda/cuda_impl.h"

ct_status ct_cuda_impl_launch(void *ctx, int32_t index, const ct_kernel_launch *launch)
{
    (void)ctx;
    (void)index;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: kernel '%s' is not implemented yet",
                        launch && launch->name ? launch->name : "?");
}

ct_status ct_cuda_impl_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                            size_t pattern_size)
{
    (void)ctx;
    (void)index;
    (void)dst;
    (void)n;
    (void)pattern;
    (void)pattern_size;
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: fill is not implemented yet");
}
