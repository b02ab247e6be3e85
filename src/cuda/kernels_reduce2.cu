/* The GPU kernels of the REDUCE launches with multi-number accumulators (ctensor/backend.h
 * CT_LAUNCH_RED_ARGMAX .. NANMEAN): every element read, combined and written by the
 * functions of src/kernels/reduce2_elem.h, the code the tests' host executor runs (Note [One
 * definition per element] in src/kernels/binary_elem.h). Compiled with --fmad=false.
 *
 * The design of kernels_reduce.cu (read it first), with a 32-byte accumulator and one
 * general kernel of each shape (these ops are rarer than sums: nothing is stamped per
 * dtype): inner (the innermost input dim reduced: a block of up to 256 threads per output),
 * outer (the innermost dim kept: 32 outputs x 8 row groups per block), and for few outputs
 * with long rows a split over gridDim.y into a stream-ordered workspace of partials that a
 * final kernel combines by a tree: two passes, no atomics, the same bits on every run. The
 * combines are commutative with the index as tie-break, so the tree's shape never changes
 * an index. */
#include <cuda_runtime.h>

#include "cuda/kernels_impl.h"
#include "kernels/reduce2_elem.h"

#define CT_R2THREADS 256
#define CT_R2OUT_X 32
#define CT_R2OUT_Y 8

typedef struct ct_r2geo {
    int32_t nk, nr, nout;
    int64_t O, R;
    char *out, *out2;
    const char *in;
    int64_t ksize[CT_LAUNCH_MAX_DIMS], kout[CT_LAUNCH_MAX_DIMS], kout2[CT_LAUNCH_MAX_DIMS];
    int64_t kin[CT_LAUNCH_MAX_DIMS];
    int64_t rsize[CT_LAUNCH_MAX_DIMS], rin[CT_LAUNCH_MAX_DIMS];
} ct_r2geo;
static_assert(sizeof(ct_r2geo) + sizeof(ct_r2plan) + 2 * sizeof(int64_t) + sizeof(void *) < 4000,
              "kernel parameters stay within the classic 4 KB limit");

/* Byte offsets of output o in the outputs and the input. */
__device__ __forceinline__ void ct_r2kept(const ct_r2geo &g, int64_t o, int64_t *oo, int64_t *oo2,
                                          int64_t *io) {
    int64_t a = 0, a2 = 0, b = 0;
    for (int32_t k = 0; k < g.nk; k++) {
        int64_t q = o / g.ksize[k], c = o - q * g.ksize[k];
        o = q;
        a += c * g.kout[k];
        a2 += c * g.kout2[k];
        b += c * g.kin[k];
    }
    *oo = a;
    *oo2 = a2;
    *io = b;
}

/* The input byte offset of reduced element r (r counts the reduced dims innermost first). */
__device__ __forceinline__ int64_t ct_r2red(const ct_r2geo &g, int64_t r) {
    if (g.nr == 1)
        return r * g.rin[0];
    int64_t off = 0;
    for (int32_t k = 0; k < g.nr; k++) {
        int64_t q = r / g.rsize[k], c = r - q * g.rsize[k];
        r = q;
        off += c * g.rin[k];
    }
    return off;
}

__device__ __forceinline__ void ct_r2write(const ct_r2geo &g, const ct_r2plan &p, int64_t o,
                                           ct_racc2 a) {
    int64_t oo, oo2, io;
    ct_r2kept(g, o, &oo, &oo2, &io);
    ct_r2finish(&p, a, g.out + oo, g.nout == 2 ? g.out2 + oo2 : NULL);
}

__global__ void __launch_bounds__(CT_R2THREADS)
    k_reduce2_inner(const __grid_constant__ ct_r2geo g, const __grid_constant__ ct_r2plan p,
                    int64_t chunk, ct_racc2 *part) {
    __shared__ ct_racc2 sh[CT_R2THREADS];
    const int t = threadIdx.x, bs = blockDim.x;
    for (int64_t o = blockIdx.x; o < g.O; o += gridDim.x) {
        int64_t oo, oo2, io;
        ct_r2kept(g, o, &oo, &oo2, &io);
        int64_t r0 = (int64_t)blockIdx.y * chunk, r1 = r0 + chunk < g.R ? r0 + chunk : g.R;
        ct_racc2 a = ct_r2init(&p);
        for (int64_t r = r0 + t; r < r1; r += bs)
            a = ct_r2combine(&p, a, ct_r2read(&p, g.in + io + ct_r2red(g, r), r));
        sh[t] = a;
        for (int s = bs / 2; s > 0; s /= 2) {
            __syncthreads();
            if (t < s)
                sh[t] = ct_r2combine(&p, sh[t], sh[t + s]);
        }
        __syncthreads();
        if (t == 0) {
            if (gridDim.y == 1)
                ct_r2finish(&p, sh[0], g.out + oo, g.nout == 2 ? g.out2 + oo2 : NULL);
            else
                part[o * gridDim.y + blockIdx.y] = sh[0];
        }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(CT_R2OUT_X *CT_R2OUT_Y)
    k_reduce2_outer(const __grid_constant__ ct_r2geo g, const __grid_constant__ ct_r2plan p,
                    int64_t chunk, ct_racc2 *part) {
    __shared__ ct_racc2 sh[CT_R2OUT_Y][CT_R2OUT_X];
    const int tx = threadIdx.x, ty = threadIdx.y;
    int64_t ngroups = (g.O + CT_R2OUT_X - 1) / CT_R2OUT_X;
    for (int64_t grp = blockIdx.x; grp < ngroups; grp += gridDim.x) {
        int64_t o = grp * CT_R2OUT_X + tx;
        ct_racc2 a = ct_r2init(&p);
        if (o < g.O) {
            int64_t oo, oo2, io;
            ct_r2kept(g, o, &oo, &oo2, &io);
            int64_t r0 = (int64_t)blockIdx.y * chunk, r1 = r0 + chunk < g.R ? r0 + chunk : g.R;
            for (int64_t r = r0 + ty; r < r1; r += CT_R2OUT_Y)
                a = ct_r2combine(&p, a, ct_r2read(&p, g.in + io + ct_r2red(g, r), r));
        }
        for (int s = CT_R2OUT_Y / 2; s > 0; s /= 2) {
            sh[ty][tx] = a;
            __syncthreads();
            if (ty < s)
                a = ct_r2combine(&p, a, sh[ty + s][tx]);
            __syncthreads();
        }
        if (ty == 0 && o < g.O) {
            if (gridDim.y == 1)
                ct_r2write(g, p, o, a);
            else
                part[o * gridDim.y + blockIdx.y] = a;
        }
    }
}

/* Combine each output's G partials by a tree and write it. */
__global__ void __launch_bounds__(CT_R2THREADS)
    k_reduce2_final(const __grid_constant__ ct_r2geo g, const __grid_constant__ ct_r2plan p,
                    int64_t G, const ct_racc2 *part) {
    __shared__ ct_racc2 sh[CT_R2THREADS];
    const int t = threadIdx.x;
    for (int64_t o = blockIdx.x; o < g.O; o += gridDim.x) {
        ct_racc2 a = ct_r2init(&p);
        for (int64_t j = t; j < G; j += CT_R2THREADS)
            a = ct_r2combine(&p, a, part[o * G + j]);
        sh[t] = a;
        for (int s = CT_R2THREADS / 2; s > 0; s /= 2) {
            __syncthreads();
            if (t < s)
                sh[t] = ct_r2combine(&p, sh[t], sh[t + s]);
        }
        __syncthreads();
        if (t == 0)
            ct_r2write(g, p, o, sh[0]);
        __syncthreads();
    }
}

static int64_t ct_r2cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

extern "C" int ct_cuda_impl_reduce2_run(const ct_kernel_launch *l, int sm_count,
                                        ct_cuda_impl_stream_t stream) {
    ct_r2plan p;
    if (!ct_r2plan_init(&p, l))
        return (int)cudaErrorInvalidValue; /* launch.c checked it first */
    ct_r2geo g;
    memset(&g, 0, sizeof g);
    g.out = l->data[0];
    g.in = l->data[1];
    g.nout = p.nout;
    g.out2 = p.nout == 2 ? l->data[2] : NULL;
    g.O = g.R = 1;
    for (int d = 0; d < l->ndim; d++) {
        if (l->strides[0][d] != 0) {
            g.ksize[g.nk] = l->shape[d];
            g.kout[g.nk] = l->strides[0][d];
            g.kout2[g.nk] = p.nout == 2 ? l->strides[2][d] : 0;
            g.kin[g.nk++] = l->strides[1][d];
            g.O *= l->shape[d];
        } else {
            g.rsize[g.nr] = l->shape[d];
            g.rin[g.nr++] = l->strides[1][d];
            g.R *= l->shape[d];
        }
    }
    bool inner = l->ndim == 0 || l->strides[0][0] == 0;
    cudaStream_t s = (cudaStream_t)stream;
    int64_t target = (int64_t)(sm_count > 0 ? sm_count : 1) * CT_CUDA_BLOCKS_PER_SM;
    int64_t units = inner ? g.O : ct_r2cdiv(g.O, CT_R2OUT_X);
    int64_t per = inner ? 4 * CT_R2THREADS : 4 * CT_R2OUT_Y;
    int64_t G = 1;
    if (units < target) {
        G = ct_r2cdiv(target, units);
        int64_t most = ct_r2cdiv(g.R, per);
        if (G > most)
            G = most;
        if (G > 4 * CT_R2THREADS)
            G = 4 * CT_R2THREADS;
        if (G < 1)
            G = 1;
    }
    int64_t chunk = ct_r2cdiv(g.R, G);
    G = ct_r2cdiv(g.R, chunk);
    ct_racc2 *part = NULL;
    bool pooled = true;
    if (G > 1) {
        size_t bytes = (size_t)(g.O * G) * sizeof(ct_racc2);
        cudaError_t e = cudaMallocAsync((void **)&part, bytes, s);
        if (e == cudaErrorNotSupported) {
            (void)cudaGetLastError();
            pooled = false;
            e = cudaMalloc((void **)&part, bytes);
        }
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return (int)e;
        }
    }
    unsigned gx = (unsigned)(units < (1 << 20) ? units : (1 << 20));
    if (inner) {
        int bs = g.R >= CT_R2THREADS ? CT_R2THREADS : g.R > 64 ? 128 : g.R > 32 ? 64 : 32;
        k_reduce2_inner<<<dim3(gx, (unsigned)G), bs, 0, s>>>(g, p, chunk, part);
    } else {
        k_reduce2_outer<<<dim3(gx, (unsigned)G), dim3(CT_R2OUT_X, CT_R2OUT_Y), 0, s>>>(g, p, chunk,
                                                                                    part);
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && G > 1) {
        unsigned fx = (unsigned)(g.O < (1 << 20) ? g.O : (1 << 20));
        k_reduce2_final<<<fx, CT_R2THREADS, 0, s>>>(g, p, G, part);
        e = cudaGetLastError();
    }
    if (part != NULL) {
        cudaError_t f = pooled ? cudaFreeAsync(part, s)
                               : (e == cudaSuccess ? cudaStreamSynchronize(s) : cudaSuccess);
        if (!pooled) {
            cudaError_t f2 = cudaFree(part);
            if (f == cudaSuccess)
                f = f2;
        }
        if (e == cudaSuccess)
            e = f;
    }
    return (int)e;
}
