/* The entry points of the device code (kernels_binary.cu, kernels_copy.cu), called by
 * launch.c after it has checked the launch, made `index` the current device and picked the
 * stream. Each returns a cudaError_t as an int (0 = cudaSuccess) and only enqueues work on
 * `stream`, except where said. */
#ifndef CT_CUDA_KERNELS_IMPL_H
#define CT_CUDA_KERNELS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/backend.h"
#include "cuda/cuda_impl.h"
#include "kernels/binary_plan.h"
#include "kernels/ternary_plan.h"
#include "kernels/scan_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of 256 threads per SM that keep a grid-stride kernel's device busy. */
#define CT_CUDA_BLOCKS_PER_SM 8

/* out = a op b for a BINARY launch with its plan (numel > 0). `err_flag`: an int in device
 * memory, 0 on entry, that the kernel sets to 1 when an integer division meets a zero
 * divisor (the caller checks it); may be NULL when p->int_div is false. `sm_count`: the
 * device's multiprocessor count. */
int ct_cuda_impl_binary_run(const ct_kernel_launch *l, const ct_kplan *p, int *err_flag,
                            int sm_count, ct_cuda_impl_stream_t stream);

/* The current device's integer-division flag (an int in static device memory that the
 * binary kernels set on a zero divisor; 0 between launches) into *out. */
int ct_cuda_impl_zero_flag(int **out);

/* A COPY launch (numel > 0; dtypes checked: float4_e2m1fn_x2 only to itself). */
int ct_cuda_impl_copy_run(const ct_kernel_launch *l, int sm_count, ct_cuda_impl_stream_t stream);

/* Fill n > 0 bytes at dst with the pattern (1..64 bytes, n a multiple of it). */
int ct_cuda_impl_fill_run(void *dst, size_t n, const void *pattern, size_t pattern_size,
                          int sm_count, ct_cuda_impl_stream_t stream);

/* out = f(in) for a UNARY launch with its plan (kernels_unary.cu; numel > 0; the plan from
 * ct_uplan_init of kernels/unary_plan.h). */
struct ct_uplan;
int ct_cuda_impl_unary_run(const ct_kernel_launch *l, const struct ct_uplan *p, int sm_count,
                           ct_cuda_impl_stream_t stream);
/* The same for the kernel rows after DIV_FLOOR (kernels_binary2.cu; the plan from
 * binary_plan2.h's ct_kplan_init_all, p->op >= CT_KP_EQ): `err_flag` is set by an integer
 * remainder / fmod with a zero divisor (p->int_div). */
int ct_cuda_impl_binary2_run(const ct_kernel_launch *l, const ct_kplan *p, int *err_flag,
                             int sm_count, ct_cuda_impl_stream_t stream);
/* A REDUCE launch (numel > 0; kernels_reduce.cu), its plan checked by ct_rplan_init
 * (src/kernels/reduce_elem.h). Allocates its partial results stream-ordered
 * (cudaMallocAsync) when it splits rows over several blocks. */
int ct_cuda_impl_reduce_run(const ct_kernel_launch *l, int sm_count, ct_cuda_impl_stream_t stream);
/* A TERNARY launch with its plan (numel > 0; kernels_ternary.cu). */
int ct_cuda_impl_ternary_run(const ct_kernel_launch *l, const ct_tplan *p, int sm_count,
                             ct_cuda_impl_stream_t stream);
/* A REDUCE launch of a multi-number accumulator op (reduce_op >= CT_LAUNCH_RED_ARGMAX;
 * numel > 0; kernels_reduce2.cu), its plan checked by ct_r2plan_init
 * (src/kernels/reduce2_elem.h); partials as ct_cuda_impl_reduce_run's. */
int ct_cuda_impl_reduce2_run(const ct_kernel_launch *l, int sm_count,
                             ct_cuda_impl_stream_t stream);
/* A SCAN launch (cumsum, cumprod) of scan_elem.h type `type` (ct_scan_plan_type; numel > 0;
 * kernels_scan.cu). */
int ct_cuda_impl_scan_run(const ct_kernel_launch *l, int type, int sm_count,
                          ct_cuda_impl_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* CT_CUDA_KERNELS_IMPL_H */
