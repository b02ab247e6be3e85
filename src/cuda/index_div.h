/* Division by a divisor fixed for a whole kernel, as a multiply-high, an add and a shift.
 *
 * The strided kernels decode each element's coordinates from its linear index, one division
 * per dimension. The GPU has no integer divider: a 32-bit '/' is a sequence of about twenty
 * instructions, and in an add with one channels_last operand those divisions, not memory,
 * set the pace. Here the host computes, once per dimension, a magic number m and a shift s
 * with s = ceil(log2 d) and m = floor(2^32 * (2^s - d) / d) + 1; then for every n < 2^31
 *     n / d = (mulhi32(n, m) + n) >> s
 * exactly (the round-up method of division by invariant integers), and mulhi32(n, m) + n
 * stays below 2^32. The kernels use it only when numel < 2^31, so every dividend and every
 * divisor (a dimension's size) is below 2^31.
 *
 * Plain C as well as CUDA, so that a host unit test (tests/unit/test_index_div.c) checks it
 * against '/'. */
#ifndef CT_CUDA_INDEX_DIV_H
#define CT_CUDA_INDEX_DIV_H

#include <stdint.h>

#if defined(__CUDACC__)
#define CT_KDIV_HD __host__ __device__ __forceinline__
#else
#define CT_KDIV_HD static inline
#endif

typedef struct ct_kdiv {
    uint32_t magic;
    uint32_t shift;
} ct_kdiv;

/* The divider of d, 1 <= d <= 2^31. */
CT_KDIV_HD ct_kdiv ct_kdiv_make(uint32_t d) {
    uint32_t s = 0;
    while (((uint64_t)1 << s) < d)
        s++;
    /* 2^s - d < d, so the quotient is below 2^32 and m fits in 32 bits */
    ct_kdiv v;
    v.magic = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
    v.shift = s;
    return v;
}

/* n / d for n < 2^31. */
CT_KDIV_HD uint32_t ct_kdiv_quot(ct_kdiv v, uint32_t n) {
#if defined(__CUDA_ARCH__)
    uint32_t hi = __umulhi(n, v.magic);
#else
    uint32_t hi = (uint32_t)(((uint64_t)n * v.magic) >> 32);
#endif
    return (hi + n) >> v.shift;
}

#endif /* CT_CUDA_INDEX_DIV_H */
