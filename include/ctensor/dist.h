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
 * Communicator: by default the library works on a private duplicate of MPI_COMM_WORLD;
 * ct_dist_init_comm (or ct_dist_init_mpi_comm, below) makes it work on any
 * communicator the program already has, such as one half of a split of MPI_COMM_WORLD:
 * ranks, placements and every collective are then those of that communicator.
 *
 * Deadline: every global operation opens with an agreement among the ranks. A rank that
 * enters an operation its peers never enter (code branched on the rank) waits at most the
 * timeout (ct_dist_set_timeout; else the environment variable CTENSOR_TIMEOUT_SECONDS, else
 * ONEFLOW_TIMEOUT_SECONDS, read at each operation; else 300 s, OneFlow's default), then
 * gets CT_ERR_RUNTIME "Timeout: global operation <op> waited <N> s for the other ranks.
 * Maybe executing different code in different ranks, ...". That error is final for the
 * process's distributed runtime: MPI cannot cancel the abandoned collective, so from then
 * on every global operation fails at once with "the distributed runtime cannot be used
 * after the timeout of global operation <op> ...". What remains possible: reading the
 * facts (ct_dist_rank, ...), local tensors, ct_dist_finalize and ending the process
 * normally, or ct_dist_abort.
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

/** Start the distributed runtime on a communicator the program already has, instead of
 *  MPI_COMM_WORLD: `mpi_comm` is the address of an MPI_Comm (the header needs no
 *  <mpi.h>; ct_dist_init_mpi_comm below is the typed form). The library duplicates it, so the
 *  program may free its own handle afterwards. Ranks (ct_dist_rank), the world size and
 *  placements are then those of that communicator. MPI must already run (the program made
 *  the communicator) and is never finalized by the library. Call it on every member before
 *  any other distributed function; calling it again with a communicator of the same group
 *  in the same order succeeds. Errors: CT_ERR_MISUSE for NULL; CT_ERR_VALUE for
 *  MPI_COMM_NULL; CT_ERR_RUNTIME when MPI is not initialized or already finalized, or when
 *  the runtime already runs on another communicator (ct_dist_init ran, or a global
 *  operation started it on MPI_COMM_WORLD). */
CT_API ct_status ct_dist_init_comm(const void *mpi_comm);

/** Set the deadline, in seconds, of every wait for the other ranks (see the header's
 *  comment): > 0 (INFINITY waits forever), or 0 to go back to the environment variables
 *  and the 300 s default. Needs no MPI. Errors: CT_ERR_VALUE for a negative value or NaN. */
CT_API ct_status ct_dist_set_timeout(double seconds);

/** The deadline in force, in seconds (ct_dist_set_timeout's, the environment's or 300). */
CT_API ct_status ct_dist_get_timeout(double *out);

/** Free the library's communicators and, if ct_dist_init started MPI, finalize it.
 *  Idempotent; a no-op when MPI was never started. After it, ct_dist_init fails (MPI cannot
 *  restart). Collective: every rank must call it. */
CT_API ct_status ct_dist_finalize(void);

/** This process's rank in the runtime's communicator, MPI_COMM_WORLD unless
 *  ct_dist_init_comm chose another (OneFlow's get_rank). Starts MPI. */
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

/** End every process of the job at once: MPI_Abort(MPI_COMM_WORLD, errorcode) (the whole
 *  job, also when the runtime works on a sub-communicator), for a
 *  program that cannot go on (an uncaught exception on one rank, while the others may be
 *  waiting for it in a collective). Does not return while MPI is running; otherwise (never
 *  started, or finalized) returns CT_ERR_RUNTIME "ct_dist_abort: MPI is not running". */
CT_API ct_status ct_dist_abort(int errorcode);

#ifdef MPI_VERSION
/** ct_dist_init_comm with the communicator itself, for programs that include <mpi.h> before
 *  this header: ct_dist_init_mpi_comm(half) runs global tensors on `half`. */
static inline ct_status ct_dist_init_mpi_comm(MPI_Comm comm) { return ct_dist_init_comm(&comm); }
#endif

CT_EXTERN_C_END

#include "ctensor/placement.h"
#include "ctensor/sbp.h"
#include "ctensor/global.h"

#endif /* CTENSOR_DIST_H */
