/* ctensor: threads used by large operations.
 *
 * Element-wise operations and copies above a grain size split their work across threads
 * (OpenMP from the compiler). The count starts at the CT_NUM_THREADS environment variable
 * when it holds a positive integer, else OpenMP's default (OMP_NUM_THREADS, or one per
 * core). Work started from inside another parallel region runs on the calling thread. */
#ifndef CTENSOR_PARALLEL_H
#define CTENSOR_PARALLEL_H

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** torch.set_num_threads(n): the threads later operations may use (process-wide).
 *  Errors: CT_ERR_RUNTIME "set_num_threads expects a positive integer" for n < 1. */
CT_API ct_status ct_set_num_threads(int n);

/** torch.get_num_threads(): the current setting (>= 1). */
CT_API int ct_get_num_threads(void);

CT_EXTERN_C_END

#endif /* CTENSOR_PARALLEL_H */
