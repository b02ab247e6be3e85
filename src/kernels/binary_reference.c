/* The scalar reference loops: one element at a time through the element functions of
 * binary_elem_impl.h, with no fast paths. Every ISA level of binary_loops.c is tested
 * against these. */
#include "kernels/binary_elem_impl.h"

#define CT_REF_LOOPS(E, S, T, K, F) CT_KLOOPS_##K(ref, S, T, F)
CT_KMATH_ROWS(CT_REF_LOOPS)
#undef CT_REF_LOOPS

#define CT_REF_MM_LOOPS(E, S, T, K, F) CT_KLOOPS_MM_##K(ref, S, T)
CT_KMATH_ROWS(CT_REF_MM_LOOPS)
#undef CT_REF_MM_LOOPS

#define CT_REF_EXT_LOOPS(E, S, T, K, F) CT_KLOOPS_EXT_##S(ref, S, T)
CT_KMATH_ROWS(CT_REF_EXT_LOOPS)
#undef CT_REF_EXT_LOOPS

#define CT_REF_ENTRIES(E, S, T, K, F)                                                              \
    CT_KENTRIES_##K(ref, E, S) CT_KENTRIES_MM_##K(ref, E, S) CT_KENTRIES_EXT_##S(ref, E, S)
const ct_binary_loop_table ct_binary_loops_reference = {CT_KMATH_ROWS(CT_REF_ENTRIES)};
#undef CT_REF_ENTRIES
