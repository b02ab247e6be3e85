/* Internal parallel-for (OpenMP), used by the iterator and the copy loop. */
#ifndef CT_BASE_PARALLEL_H
#define CT_BASE_PARALLEL_H

#include <stdint.h>

#include "ctensor/parallel.h"

/* Body of a parallel loop: handle [begin, end). Must not fail; record errors itself. */
typedef void (*ct_parallel_body)(void *ctx, int64_t begin, int64_t end);

/* Split [begin, end) into at most ct_get_num_threads() contiguous chunks of at least `grain`
 * items and run `body` on each, in parallel; run it once on the calling thread when the
 * range is at most `grain`, when one thread is set, or when already inside a parallel
 * region. An empty range (end <= begin) runs nothing; a grain below 1 counts as 1.
 * Returns after every chunk has finished. */
void ct_parallel_for(int64_t begin, int64_t end, int64_t grain, ct_parallel_body body, void *ctx);

/* How many chunks ct_parallel_for would use for this range (1 = serial, 0 = empty). */
int ct_parallel_chunks(int64_t begin, int64_t end, int64_t grain);

#endif /* CT_BASE_PARALLEL_H */
