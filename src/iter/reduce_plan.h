/* The plan of a reduction (src/ops/reduce.c): which dims are reduced, the output's shape,
 * and how a dense input's memory splits into the O x R x I geometry of the reduction
 * kernels (Note [Reduction kernels], src/kernels/reduce.h).
 * Layering: iter; uses base and tensor. */
#ifndef CT_ITER_REDUCE_PLAN_H
#define CT_ITER_REDUCE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/tensor.h"

typedef struct ct_reduce_plan {
    int32_t ndim;                    /* the input's */
    bool reduced[CT_MAX_DIMS];       /* per input dim */
    int32_t out_ndim;                /* with keepdim: ndim */
    int64_t out_sizes[CT_MAX_DIMS];  /* reduced dims are 1 (keepdim) or left out */
    int64_t count;                   /* elements reduced into each output element */
    int64_t out_numel;
    int32_t first_empty;             /* the first reduced dim of size 0, or -1 */
    int64_t first_empty_arg;         /* that dim as the caller wrote it (the first such in
                                        dims[]; its index when all dims are reduced) */
} ct_reduce_plan;

/* Plan reducing `t` over dims[0 .. ndims) (each in [-ndim, ndim - 1]; a 0-dim tensor takes
 * -1 and 0), or over every dim when ndims == 0 or dims is NULL (PyTorch's dim=None and
 * dim=()). Errors: CT_ERR_INDEX "Dimension out of range (expected to be in range of [-2, 1],
 * but got 2)"; CT_ERR_RUNTIME "dim 0 appears multiple times in the list of dims";
 * CT_ERR_MISUSE for ndims < 0 or > CT_MAX_DIMS. */
ct_status ct_reduce_impl_plan(const ct_tensor *t, const int64_t *dims, int64_t ndims, bool keepdim,
                              ct_reduce_plan *p);

/* The geometry of a reduction over a non-overlapping and dense tensor `t`: its dims of
 * size > 1 in memory order (largest stride first) are perm[0 .. *nperm); when the reduced
 * ones among them are adjacent in that order, the memory is O x R x I (kept dims before
 * them, the reduced ones, kept dims after) and *one_group is true. */
void ct_reduce_impl_geometry(const ct_tensor *t, const ct_reduce_plan *p, int32_t *perm,
                             int32_t *nperm, bool *one_group, int64_t *O, int64_t *R, int64_t *I);

#endif /* CT_ITER_REDUCE_PLAN_H */
