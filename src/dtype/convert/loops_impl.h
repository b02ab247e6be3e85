/* The array-conversion loop tables. loops.c is compiled once per instruction-set level
 * (CMakeLists.txt: CT_ISA_SOURCES) with CT_ISA_SUFFIX set to _baseline, _avx2 or _avx512,
 * and each copy defines the table of that name. */
#ifndef CT_DTYPE_CONVERT_LOOPS_IMPL_H
#define CT_DTYPE_CONVERT_LOOPS_IMPL_H

#include <stddef.h>

#include "ctensor/dtype.h"

#define CT_CAT_(a, b) a##b
#define CT_CAT(a, b) CT_CAT_(a, b)

/* Convert n elements `src_stride` / `dst_stride` bytes apart (any sign, zero included).
 * Contiguous, suitably aligned arrays take a vectorized path. dst == src is allowed when
 * both strides are equal (an in-place conversion between same-size dtypes). */
typedef void (*ct_convert_loop_fn)(void *dst, ptrdiff_t dst_stride, const void *src,
                                   ptrdiff_t src_stride, size_t n);

/* [dst][src]; NULL exactly for the pairs with one float4_e2m1fn_x2 side. Same-dtype
 * entries copy bytes, except bool -> bool, which normalises to 0/1. */
typedef ct_convert_loop_fn ct_convert_loop_table[CT_NUM_DTYPES][CT_NUM_DTYPES];

extern const ct_convert_loop_table ct_convert_loops_baseline;
extern const ct_convert_loop_table ct_convert_loops_avx2;
extern const ct_convert_loop_table ct_convert_loops_avx512;

/* The table of the active ISA level (ct_cpu_isa_active), for ct_convert and for the
 * kernels that convert operands inside their loops. */
const ct_convert_loop_table *ct_convert_impl_active_loops(void);

/* Convert n contiguous elements into a contiguous destination aligned to its element, with
 * streaming stores (large copies: Note [Streamed copy rows] in tensor/copy_loop.c), fenced
 * before it returns; the same bytes as the pair's loop. [dst][src]: NULL for the pairs
 * without one (copy_loop.c then streams through a buffer). */
typedef void (*ct_convert_stream_fn)(void *dst, const void *src, size_t n);
typedef ct_convert_stream_fn ct_convert_stream_table[CT_NUM_DTYPES][CT_NUM_DTYPES];

extern const ct_convert_stream_table ct_convert_stream_baseline;
extern const ct_convert_stream_table ct_convert_stream_avx2;
extern const ct_convert_stream_table ct_convert_stream_avx512;

/* The streaming table of the active ISA level. */
const ct_convert_stream_table *ct_convert_impl_active_stream(void);

#endif /* CT_DTYPE_CONVERT_LOOPS_IMPL_H */
