/* The strided walk under every element-wise loop on the host: the iterator's runs
 * (ct_iter_run, iter/run.c) and copy_'s host loop (tensor/copy_loop.c) both hand their
 * loop geometry to ct_convert_walk_run, so rows, cache-blocked transposing tiles and
 * threads are one mechanism (Note [Iterator run order] in walk.c). It lives with the
 * array conversions because it is their n-D form (a converting copy is a walk whose loop
 * is a converter) and because both layers that use it sit above dtype; it uses base only. */
#ifndef CT_DTYPE_CONVERT_WALK_IMPL_H
#define CT_DTYPE_CONVERT_WALK_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#define CT_CONVERT_WALK_MAX_OPERANDS 4 /* one output, three inputs (where, clamp, lerp) */
#define CT_CONVERT_WALK_MAX_DIMS 64    /* CT_MAX_DIMS (memformat.h, a higher layer) */

/* The 1-D inner loop: `n` elements, operand k at data[k] + i * strides[k] (bytes).
 * Returns 0, or a nonzero error code that stops the walk. */
typedef int (*ct_convert_walk_loop)(void *ctx, char *const *data, const int64_t *strides,
                                    int64_t n);

/* A loop geometry. Operand 0 is written, 1.. are read; dims are innermost first and dim 0
 * should be the output's fastest one (writes then run through memory in order). Size-1
 * dims are allowed but cost rows; ndim 0 is one element. Arrays are borrowed. */
typedef struct ct_convert_walk {
    int nops;
    int ndim;                                             /* at most CT_CONVERT_WALK_MAX_DIMS */
    const int64_t *shape;                                 /* ndim sizes */
    const int64_t *strides[CT_CONVERT_WALK_MAX_OPERANDS]; /* ndim byte strides each (any sign, 0) */
    char *data[CT_CONVERT_WALK_MAX_OPERANDS];             /* element 0 of each operand */
    int64_t itemsize[CT_CONVERT_WALK_MAX_OPERANDS];       /* bytes per element (1..16) */
    /* The loop only moves operand 1's bytes into operand 0 (same element size, bytes
     * unchanged: a same-dtype copy). Tiles are then transposed straight into operand 0
     * when its dim 0 is dense, without a staging buffer or loop calls. */
    bool move;
} ct_convert_walk;

/* The dim walked in tiles together with dim 0, or -1 for plain rows: some input reads dim
 * 0 a cache line per element while another dim of it is closer in memory (a transposed or
 * permuted input, channels_last against contiguous). */
int ct_convert_walk_tile_dim(const ct_convert_walk *w);

/* Run `loop` over every element of `w`, on several threads (base/parallel.h) when there are
 * more than `grain` elements; the loop must then be thread-safe for disjoint ranges.
 * Returns the first nonzero code a loop returned (0 when all succeeded); the walk stops
 * early on a nonzero code (other threads finish their current row). The output must not
 * overlap an input except element for element (the same strides). */
int ct_convert_walk_run(const ct_convert_walk *w, ct_convert_walk_loop loop, void *ctx,
                        int64_t grain);

/* The output size (bytes) from which tiled moves stream their output blocks (Note [Streamed
 * tiles] in walk.c); a negative value restores the default. Returns the previous value. For
 * tests, which reach the streamed blocks with small tensors; not for concurrent use. */
int64_t ct_convert_walk_set_stream_bytes(int64_t bytes);

#endif /* CT_DTYPE_CONVERT_WALK_IMPL_H */
