/* ctensor: placements (oneflow.placement), part of libctensor_dist.
 *
 * A placement is a device type, a set of ranks and a hierarchy (the "device mesh"): the
 * shape the ranks were given in. It is canonical, as in OneFlow: the ranks are
 * sorted ascending and laid out row-major in the hierarchy, so [3, 1, 2, 0] is [0, 1, 2, 3]
 * and [[0, 2], [1, 3]] is [[0, 1], [2, 3]]. A rank's parallel id is its position in the
 * sorted list; its coordinates are the row-major multi-index of that position.
 *
 * Placements are immutable and reference counted (atomic counts); functions that return
 * one through an out-parameter give a NEW reference. Two placements are equal when their
 * type, ranks and hierarchy are equal (so [0, 1, 2, 3] != [[0, 1], [2, 3]]).
 *
 * Errors of construction (checked eagerly, on every rank alike, unlike OneFlow which defers
 * some to first use and aborts on duplicates):
 *   unknown type        CT_ERR_RUNTIME "Expected one of cpu, cuda device type at start of
 *                       device string: xpu"
 *   no ranks            CT_ERR_RUNTIME "placement ranks shoule be an array of long int"
 *                       (OneFlow's wording, typo included)
 *   rank >= world size  CT_ERR_RUNTIME "Placement is invalid because rank must be less
 *                       than world size!"
 *   negative rank       CT_ERR_RUNTIME "Placement is invalid because rank must be
 *                       non-negative, but got -1!"
 *   duplicate rank      CT_ERR_RUNTIME "Placement is invalid because rank 1 appears more
 *                       than once!"
 *   hierarchy           CT_ERR_VALUE for ndim outside 1..CT_PLACEMENT_MAX_NDIM, a size < 1,
 *                       or a product that does not match the number of ranks.
 */
#ifndef CTENSOR_PLACEMENT_H
#define CTENSOR_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/device.h"
#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

typedef struct ct_placement ct_placement;

/** The most hierarchy axes a placement may have. */
#define CT_PLACEMENT_MAX_NDIM 6

/** A placement of device type `type` ("cpu", "cuda") over `ranks`, given row-major in a
 *  hierarchy of shape `hierarchy[0..ndim)` (so there are prod(hierarchy) ranks). Starts MPI
 *  (the world size bounds the ranks). Errors above; CT_ERR_MISUSE for NULL arguments.
 *  New reference in *out. */
CT_API ct_status ct_placement_new(const char *type, const int64_t *ranks, const int64_t *hierarchy,
                                  int64_t ndim, ct_placement **out);

/** placement.all(type) / env.all_device_placement(type): every process of every node for
 *  "cpu"; for an accelerator type, on each node the first min(processes per node, device
 *  count) local ranks; 1-D. No device at all: CT_ERR_RUNTIME "Can't construct placement
 *  with \"cuda\" type because there is no device!". Unknown type as ct_placement_new. New
 *  reference in *out. */
CT_API ct_status ct_placement_all(const char *type, ct_placement **out);

/** Add a reference; returns `placement`. NULL-safe. */
CT_API ct_placement *ct_placement_retain(ct_placement *placement);
/** Drop a reference. NULL-safe. */
CT_API void ct_placement_release(ct_placement *placement);

/** The device type. */
CT_API ct_device_type ct_placement_device_type(const ct_placement *placement);
/** The device type's name, "cpu" or "cuda" (static string). */
CT_API const char *ct_placement_type_name(const ct_placement *placement);
/** The number of ranks. */
CT_API int64_t ct_placement_size(const ct_placement *placement);
/** The ranks, sorted ascending (row-major in the hierarchy); borrowed, size() entries. */
CT_API const int64_t *ct_placement_ranks(const ct_placement *placement);
/** The number of hierarchy axes (1..CT_PLACEMENT_MAX_NDIM). */
CT_API int64_t ct_placement_ndim(const ct_placement *placement);
/** The hierarchy shape; borrowed, ndim() entries. */
CT_API const int64_t *ct_placement_hierarchy(const ct_placement *placement);
/** The parallel id of `rank` (its index among the sorted ranks), or -1 if not a member. */
CT_API int64_t ct_placement_parallel_id(const ct_placement *placement, int64_t rank);
/** Whether `rank` belongs to the placement. */
CT_API bool ct_placement_contains(const ct_placement *placement, int64_t rank);

/** Type, ranks and hierarchy all equal. NULL equals only NULL. */
CT_API bool ct_placement_equal(const ct_placement *a, const ct_placement *b);
/** A hash consistent with ct_placement_equal, identical on every rank. */
CT_API uint64_t ct_placement_hash(const ct_placement *placement);

/** The device this rank's local component of a tensor on `placement` lives on: cpu, or
 *  the accelerator with index = local rank % device count (OneFlow's cuda:local_rank when
 *  each process has its own device; the local rank is the rank within its node, from
 *  MPI_COMM_TYPE_SHARED). Without any device of the type the index is the local rank. */
CT_API ct_status ct_placement_local_device(const ct_placement *placement, ct_device *out);

/** OneFlow's repr, `<module>.placement(type="cuda", ranks=[[0, 1], [2, 3]])`, as a new
 *  string in *out, freed with ct_string_free (print.h); its length grows with the ranks, so
 *  it is not written into a caller's buffer. `module` NULL means "ctensor".
 *  Errors: CT_ERR_MISUSE for a NULL placement or out; CT_ERR_NOMEM (*out NULL on error). */
CT_API ct_status ct_placement_format(const ct_placement *placement, const char *module, char **out);

CT_EXTERN_C_END

#endif /* CTENSOR_PLACEMENT_H */
