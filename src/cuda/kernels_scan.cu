/* The GPU kernel of SCAN launches (cumsum, cumprod; ctensor/backend.h): the dense
 * O x R x I accumulation buffer (int64, double or complex double) scanned in place along R.
 * One thread per line (o, i), each running ct_scan_line of src/kernels/scan_elem.h, the cpu's
 * steps in the cpu's order: every result has the cpu's bits, on every run (no atomics, no
 * reassociation; compiled with --fmad=false). Consecutive threads take consecutive i, so the
 * loads of a column scan (I > 1) are coalesced; a scan along the last dim (I = 1) has one
 * thread per row. A block-wide parallel scan would be faster for few long rows but would
 * add floats in another order than the cpu; not done (docs/cuda.md). One kernel for the
 * three types (a switch on the type, the same for every thread): the PTX stays small. */
#include <cuda_runtime.h>

#include "cuda/kernels_impl.h"

#define CT_SCAN_THREADS 128

__global__ void __launch_bounds__(CT_SCAN_THREADS)
    k_scan_lines(char *x, int type, int prod, int64_t O, int64_t R, int64_t I, int64_t isz) {
    int64_t lines = O * I, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < lines; t += stride) {
        int64_t o = t / I, i = t - o * I;
        ct_scan_line(type, prod != 0, x + (o * R * I + i) * isz, R, I);
    }
}

extern "C" int ct_cuda_impl_scan_run(const ct_kernel_launch *l, int type, int sm_count,
                                     ct_cuda_impl_stream_t stream) {
    if (type < 0)
        return (int)cudaErrorInvalidValue;
    int64_t lines = l->scan_outer * l->scan_inner;
    int64_t want = (lines + CT_SCAN_THREADS - 1) / CT_SCAN_THREADS;
    int64_t cap = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    int64_t blocks = want < 1 ? 1 : want > cap ? cap : want;
    k_scan_lines<<<(unsigned)blocks, CT_SCAN_THREADS, 0, (cudaStream_t)stream>>>(
        l->data[0], type, l->scan_op == CT_LAUNCH_SCAN_PROD, l->scan_outer, l->scan_len,
        l->scan_inner, (int64_t)(l->dtype[0] == CT_COMPLEX128 ? 16 : 8));
    return (int)cudaGetLastError();
}
