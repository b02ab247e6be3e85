/* Integer matrix products on host memory (gemm_int.c, Note [integer gemm]); the
 * micro-kernels are compiled once per ISA level (gemm_int_loops.c). */
#ifndef CT_KERNELS_GEMM_INT_H
#define CT_KERNELS_GEMM_INT_H
#include <stdint.h>

#include "kernels/gemm.h"

/* Most rows any level's micro-kernel computes at once (sizes the caller's scratch). */
#define CT_GEMM_INT_MR_MAX 8
/* Widest panel of B any level uses, in bytes. */
#define CT_GEMM_INT_PANEL_MAX 128

/* t[r][x] = sum over p < k of a_r[p] * bp[p][x] (wrapping, unsigned), for the level's mr
 * rows a_r = a + r * lda (element units; rows past `rows` repeat the last real one and
 * their sums are garbage the caller ignores) and x < the panel's columns. bp is one packed
 * panel of B: k rows of panel_bytes each. t: mr * panel_bytes, any alignment. */
typedef void (*ct_gemm_int_micro)(const void *a, int64_t lda, int64_t rows, const void *bp,
                                  int64_t k, void *t);

typedef struct ct_gemm_int_kernels {
    int mr;                     /* rows per call, <= CT_GEMM_INT_MR_MAX */
    int panel_bytes;            /* bytes of a row of a B panel, <= CT_GEMM_INT_PANEL_MAX */
    ct_gemm_int_micro micro[4]; /* by log2 of the element size: 1, 2, 4, 8 bytes */
} ct_gemm_int_kernels;

extern const ct_gemm_int_kernels ct_gemm_int_kernels_baseline;
extern const ct_gemm_int_kernels ct_gemm_int_kernels_avx2;
extern const ct_gemm_int_kernels ct_gemm_int_kernels_avx512;

/* The integer product (g->dtype an integer or bool type); CT_ERR_NOMEM when a packing
 * buffer cannot be had. */
ct_status ct_gemm_int_run(const ct_gemm_args *g);

#endif /* CT_KERNELS_GEMM_INT_H */
