/* The GPU kernels of REDUCE launches (ctensor/backend.h): every element read, accumulated,
 * combined and written by the functions of src/kernels/reduce_elem.h, the code the host
 * executor of the tests runs (Note [One definition per element] in
 * src/kernels/binary_elem.h). Compiled with --fmad=false.
 *
 * The launch's dims are split into kept ones (the output's stride != 0) and reduced ones,
 * each innermost first, and passed by value (__grid_constant__). Three kernels:
 *  - inner: the innermost input dim is reduced (rows of contiguous elements, the usual
 *    sum(dim=-1) and every full reduction). A block of up to 256 threads per output (grid-
 *    stride over outputs), its threads striding along the row, then a tree in shared memory;
 *  - outer: the innermost input dim is kept (sum(dim=0) of a matrix, channels). Blocks of
 *    32 x 8 threads: 32 adjacent outputs (adjacent in memory, so loads coalesce), 8 row
 *    groups combined by a tree;
 *  - few outputs with long rows (a full reduction of a large tensor): both kernels also
 *    split each output's rows over gridDim.y blocks that write partial accumulators to a
 *    stream-ordered workspace, and a final kernel combines each output's partials by a
 *    tree and writes it: two passes, no atomics, the same bits on every run.
 * The split and the block shapes depend on the sizes and the device's SM count only.
 * Float sums are trees of double partial sums (at least as accurate as the cpu's pairwise
 * float32 blocks); every other op gives the cpu's bits. The loads switch on the input
 * dtype; float32, float16 and bfloat16 sums, the hot case, are stamped with the dtype and
 * op fixed. */
#include <cuda_runtime.h>

#include "cuda/kernels_impl.h"
#include "kernels/reduce_elem.h"

#define CT_RTHREADS 256
#define CT_ROUT_X 32 /* outputs per block of the outer kernel */
#define CT_ROUT_Y 8  /* row groups per block of the outer kernel */

typedef struct ct_rgeo {
    int32_t nk, nr;
    int64_t O, R;
    char *out;
    const char *in;
    int64_t ksize[CT_LAUNCH_MAX_DIMS], kout[CT_LAUNCH_MAX_DIMS], kin[CT_LAUNCH_MAX_DIMS];
    int64_t rsize[CT_LAUNCH_MAX_DIMS], rin[CT_LAUNCH_MAX_DIMS];
} ct_rgeo;
static_assert(sizeof(ct_rgeo) + sizeof(ct_rplan) + 2 * sizeof(int64_t) + sizeof(void *) < 4000,
              "kernel parameters stay within the classic 4 KB limit");

/* The plan with the input dtype and op fixed at compile time (DT / OP >= 0), so that the
 * loads' and the op's switches fold away. */
template <int DT, int OP> __device__ __forceinline__ ct_rplan ct_rfix(const ct_rplan &p) {
    ct_rplan q = p;
    if (DT >= 0)
        q.dt_in = DT;
    if (OP >= 0) {
        q.op = OP;
        q.fl = 1;
        q.f32 = 0;
    }
    return q;
}

/* The byte offsets of output o in the output and the input. */
__device__ __forceinline__ void ct_rkept(const ct_rgeo &g, int64_t o, int64_t *oo, int64_t *io) {
    int64_t a = 0, b = 0;
    for (int32_t k = 0; k < g.nk; k++) {
        int64_t q = o / g.ksize[k], c = o - q * g.ksize[k];
        o = q;
        a += c * g.kout[k];
        b += c * g.kin[k];
    }
    *oo = a;
    *io = b;
}

/* The input byte offset of reduced element r. */
__device__ __forceinline__ int64_t ct_rred(const ct_rgeo &g, int64_t r) {
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

/* A tree over n (a power of two) accumulators in shared memory, lane `t` of `n`; the result
 * in sh[0] (every thread of the block calls it). */
__device__ __forceinline__ void ct_rtree(const ct_rplan &p, ct_racc *sh, int t, int n) {
    for (int s = n / 2; s > 0; s /= 2) {
        __syncthreads();
        if (t < s)
            sh[t] = ct_rcombine(&p, sh[t], sh[t + s]);
    }
    __syncthreads();
}

template <int DT, int OP>
__global__ void __launch_bounds__(CT_RTHREADS)
    k_reduce_inner(const __grid_constant__ ct_rgeo g, const __grid_constant__ ct_rplan p0,
                   int64_t chunk, ct_racc *part) {
    __shared__ ct_racc sh[CT_RTHREADS];
    const ct_rplan p = ct_rfix<DT, OP>(p0);
    const int t = threadIdx.x, bs = blockDim.x;
    for (int64_t o = blockIdx.x; o < g.O; o += gridDim.x) {
        int64_t oo, io;
        ct_rkept(g, o, &oo, &io);
        const char *base = g.in + io;
        int64_t r0 = (int64_t)blockIdx.y * chunk, r1 = r0 + chunk < g.R ? r0 + chunk : g.R;
        ct_racc a = ct_rinit(&p);
        int64_t r = r0 + t;
        if (g.nr == 1) { /* one reduced dim: four loads in flight per thread */
            int64_t st = g.rin[0];
            for (; r + 3 * bs < r1; r += 4 * bs) {
                ct_racc x0 = ct_rread(&p, base + r * st);
                ct_racc x1 = ct_rread(&p, base + (r + bs) * st);
                ct_racc x2 = ct_rread(&p, base + (r + 2 * bs) * st);
                ct_racc x3 = ct_rread(&p, base + (r + 3 * bs) * st);
                a = ct_rcombine(&p, a, ct_rcombine(&p, ct_rcombine(&p, x0, x1),
                                                   ct_rcombine(&p, x2, x3)));
            }
        }
        for (; r < r1; r += bs)
            a = ct_rstep(&p, a, base + ct_rred(g, r));
        sh[t] = a;
        ct_rtree(p, sh, t, bs);
        if (t == 0) {
            if (gridDim.y == 1)
                ct_rfinish(&p, sh[0], g.out + oo);
            else
                part[o * gridDim.y + blockIdx.y] = sh[0];
        }
        __syncthreads();
    }
}

template <int DT, int OP>
__global__ void __launch_bounds__(CT_ROUT_X *CT_ROUT_Y)
    k_reduce_outer(const __grid_constant__ ct_rgeo g, const __grid_constant__ ct_rplan p0,
                   int64_t chunk, ct_racc *part) {
    __shared__ ct_racc sh[CT_ROUT_Y][CT_ROUT_X];
    const ct_rplan p = ct_rfix<DT, OP>(p0);
    const int tx = threadIdx.x, ty = threadIdx.y;
    int64_t ngroups = (g.O + CT_ROUT_X - 1) / CT_ROUT_X;
    for (int64_t grp = blockIdx.x; grp < ngroups; grp += gridDim.x) {
        int64_t o = grp * CT_ROUT_X + tx;
        int64_t oo = 0, io = 0;
        ct_racc a = ct_rinit(&p);
        if (o < g.O) {
            ct_rkept(g, o, &oo, &io);
            int64_t r0 = (int64_t)blockIdx.y * chunk, r1 = r0 + chunk < g.R ? r0 + chunk : g.R;
            for (int64_t r = r0 + ty; r < r1; r += CT_ROUT_Y)
                a = ct_rstep(&p, a, g.in + io + ct_rred(g, r));
        }
        /* the tree runs down the column of row groups */
        for (int s = CT_ROUT_Y / 2; s > 0; s /= 2) {
            sh[ty][tx] = a;
            __syncthreads();
            if (ty < s)
                a = ct_rcombine(&p, a, sh[ty + s][tx]);
            __syncthreads();
        }
        if (ty == 0 && o < g.O) {
            if (gridDim.y == 1)
                ct_rfinish(&p, a, g.out + oo);
            else
                part[o * gridDim.y + blockIdx.y] = a;
        }
    }
}

/* Combine each output's G partials (G <= CT_RTHREADS * 4) by a tree and write it. */
__global__ void __launch_bounds__(CT_RTHREADS)
    k_reduce_final(const __grid_constant__ ct_rgeo g, const __grid_constant__ ct_rplan p,
                   int64_t G, const ct_racc *part) {
    __shared__ ct_racc sh[CT_RTHREADS];
    const int t = threadIdx.x;
    for (int64_t o = blockIdx.x; o < g.O; o += gridDim.x) {
        ct_racc a = ct_rinit(&p);
        for (int64_t j = t; j < G; j += CT_RTHREADS)
            a = ct_rcombine(&p, a, part[o * G + j]);
        sh[t] = a;
        ct_rtree(p, sh, t, CT_RTHREADS);
        if (t == 0) {
            int64_t oo, io;
            ct_rkept(g, o, &oo, &io);
            ct_rfinish(&p, sh[0], g.out + oo);
        }
        __syncthreads();
    }
}

static int64_t ct_rcdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

typedef void (*ct_rkernel)(ct_rgeo, ct_rplan, int64_t, ct_racc *);

/* The kernel for (inner or outer, plan): stamped for the hot float sums, general otherwise. */
static ct_rkernel ct_rpick(bool inner, const ct_rplan &p) {
    bool sum = p.op == CT_LAUNCH_RED_SUM && p.fl && p.divisor >= 0;
#define CT_RPICK(DT)                                                                               \
    if (sum && p.dt_in == DT)                                                                      \
        return inner ? (ct_rkernel)k_reduce_inner<DT, CT_LAUNCH_RED_SUM>                           \
                     : (ct_rkernel)k_reduce_outer<DT, CT_LAUNCH_RED_SUM>;
    CT_RPICK(CT_FLOAT32)
    CT_RPICK(CT_FLOAT16)
    CT_RPICK(CT_BFLOAT16)
#undef CT_RPICK
    return inner ? (ct_rkernel)k_reduce_inner<-1, -1> : (ct_rkernel)k_reduce_outer<-1, -1>;
}

extern "C" int ct_cuda_impl_reduce_run(const ct_kernel_launch *l, int sm_count,
                                       ct_cuda_impl_stream_t stream) {
    ct_rplan p;
    if (!ct_rplan_init(&p, l))
        return (int)cudaErrorInvalidValue; /* launch.c checked it first */
    ct_rgeo g;
    memset(&g, 0, sizeof g);
    g.out = l->data[0];
    g.in = l->data[1];
    g.O = g.R = 1;
    for (int d = 0; d < l->ndim; d++) {
        if (l->strides[0][d] != 0) {
            g.ksize[g.nk] = l->shape[d];
            g.kout[g.nk] = l->strides[0][d];
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
    int64_t units = inner ? g.O : ct_rcdiv(g.O, CT_ROUT_X); /* blocks without a split */
    int64_t per = inner ? 4 * CT_RTHREADS : 4 * CT_ROUT_Y;  /* rows worth a block */
    int64_t G = 1;
    if (units < target) {
        G = ct_rcdiv(target, units);
        int64_t most = ct_rcdiv(g.R, per);
        if (G > most)
            G = most;
        if (G > 4 * CT_RTHREADS)
            G = 4 * CT_RTHREADS;
        if (G < 1)
            G = 1;
    }
    int64_t chunk = ct_rcdiv(g.R, G);
    G = ct_rcdiv(g.R, chunk); /* no empty splits */
    ct_racc *part = NULL;
    bool pooled = true; /* stream-ordered workspace; else cudaMalloc, freed after a wait */
    if (G > 1) {
        size_t bytes = (size_t)(g.O * G) * sizeof(ct_racc);
        cudaError_t e = cudaMallocAsync((void **)&part, bytes, s);
        if (e == cudaErrorNotSupported) { /* a driver without memory pools */
            (void)cudaGetLastError();
            pooled = false;
            e = cudaMalloc((void **)&part, bytes);
        }
        if (e != cudaSuccess) {
            (void)cudaGetLastError(); /* not left for the next launch's check */
            return (int)e;
        }
    }
    unsigned gx = (unsigned)(units < (1 << 20) ? units : (1 << 20));
    ct_rkernel k = ct_rpick(inner, p);
    if (inner) {
        int bs = g.R >= CT_RTHREADS ? CT_RTHREADS : g.R > 64 ? 128 : g.R > 32 ? 64 : 32;
        k<<<dim3(gx, (unsigned)G), bs, 0, s>>>(g, p, chunk, part);
    } else {
        k<<<dim3(gx, (unsigned)G), dim3(CT_ROUT_X, CT_ROUT_Y), 0, s>>>(g, p, chunk, part);
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && G > 1) {
        unsigned fx = (unsigned)(g.O < (1 << 20) ? g.O : (1 << 20));
        k_reduce_final<<<fx, CT_RTHREADS, 0, s>>>(g, p, G, part);
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
