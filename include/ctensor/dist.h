/* ctensor: global tensors across processes (the optional libctensor_dist, built on MPI).
 *
 * This header is the umbrella of the distributed part; it is not included by ctensor.h,
 * because its functions live in a second library, libctensor_dist, which links MPI (Open
 * MPI from Debian). The core library never depends on it. Link with ctensor::ctensor_dist
 * (CMake) or `pkg-config --libs ctensor-dist`.
 *
 * The process model is SPMD, as in OneFlow: every rank runs the same
 * program and calls every global operation in the same order, including ranks outside the
 * tensor's placement (those keep the metadata and hold an empty local component). Every
 * global operation starts with one small collective over all ranks that compares what each
 * rank asked for (operation, placement, sbp, shape, dtype); when the ranks disagree, every
 * rank returns the same CT_ERR_RUNTIME instead of hanging in a mismatched collective.
 *
 * MPI is started on first use (ct_dist_init, called by every function here that needs it)
 * with MPI_THREAD_SERIALIZED, or adopted when the program already started it. Run programs
 * with `mpirun -np N prog`; without mpirun a program is a world of one rank.
 *
 * Thread safety: the distributed functions are meant for one thread at a time per process
 * (MPI_THREAD_SERIALIZED); placements and sbp values are immutable and may be shared.
 *
 * Errors: MPI failures are CT_ERR_RUNTIME with MPI's own error string; everything else is
 * documented per function. */
#ifndef CTENSOR_DIST_H
#define CTENSOR_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** Start MPI if nobody has (MPI_Init_thread, MPI_THREAD_SERIALIZED) and set up the
 *  library's private communicator (a duplicate of MPI_COMM_WORLD). Idempotent. Errors:
 *  CT_ERR_RUNTIME when MPI cannot start or was already finalized. */
CT_API ct_status ct_dist_init(void);

/** Free the library's communicators and, if ct_dist_init started MPI, finalize it.
 *  Idempotent; a no-op when MPI was never started. After it, ct_dist_init fails (MPI cannot
 *  restart). Collective: every rank must call it. */
CT_API ct_status ct_dist_finalize(void);

/** This process's rank in MPI_COMM_WORLD (OneFlow's get_rank). Starts MPI. */
CT_API ct_status ct_dist_rank(int64_t *out);

/** The number of processes (get_world_size). Starts MPI. */
CT_API ct_status ct_dist_world_size(int64_t *out);

/** The index of this process among the processes on its node (get_local_rank), from
 *  MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). Starts MPI. */
CT_API ct_status ct_dist_local_rank(int64_t *out);

/** The number of nodes (get_node_size). OneFlow requires the same number of processes on
 *  every node; when they differ: CT_ERR_RUNTIME "every node must run the same number of
 *  processes ...". Starts MPI. */
CT_API ct_status ct_dist_node_size(int64_t *out);

/** End every process of the job at once: MPI_Abort(MPI_COMM_WORLD, errorcode), for a
 *  program that cannot go on (an uncaught exception on one rank, while the others may be
 *  waiting for it in a collective). Does not return while MPI is running; otherwise (never
 *  started, or finalized) returns CT_ERR_RUNTIME "ct_dist_abort: MPI is not running". */
CT_API ct_status ct_dist_abort(int errorcode);

CT_EXTERN_C_END

#include "ctensor/placement.h"
#include "ctensor/sbp.h"
#include "ctensor/global.h"

#endif /* CTENSOR_DIST_H */
