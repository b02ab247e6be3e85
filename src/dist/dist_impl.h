/* Internals of the dist layer (libctensor_dist) shared between its files.
 *
 * Files and what each owns:
 *   env.c        MPI start/stop, the library's private world communicator, rank facts
 *   comm.c       communicators per rank set and per hierarchy axis, cached for the process
 *   mpi_types.c  dtype -> MPI datatype, MPI error -> ct_status
 *   placement.c  ct_placement: construction, canonical order, format, equality, all()
 *   sbp.c        ct_sbp values, formats, parse; nd-sbp checks
 *   shard.c      balanced split and the box (slice of the logical tensor) each rank holds
 *   agree.c      the opening collective of every global op: compare arguments across ranks
 *   global.c     ct_global object, accessors, to_local, from_local, from_tensor, to_global,
 *                to_logical
 *   factory.c    the global factories (empty, zeros, ones, full)
 *   cast.c       to(dtype) and to(device type) of global tensors
 *   reduce.c     partial-sum reductions (MPI_SUM, logical or, ordered float32 sums)
 *   boxing.c     ct_global_to_global: P elimination, S/B redistribution, P creation; the
 *                staging through host memory of devices the host cannot read
 *   boxing_fast.c  the collective fast paths of 1-D same-placement boxing
 *   shm.c        shared-memory windows of same-node communicators (S(d) -> B staging)
 *   shm_cow.c    same-node S(d) -> B results in one file every rank maps copy-on-write
 *   binary.c     element-wise ops on global tensors with sbp inference
 *   oneop.c      the collective script of the ops of one global input (unary.c, reduction.c)
 *   unary.c      the unary.def ops on global tensors
 *   reduction.c  reductions (sum, mean, ...) on global tensors
 *   multiop.c    the collective script of the ops of several global inputs (matmul.c, join.c)
 *   matmul.c     matmul / mm / bmm on global tensors with sbp inference
 *   join.c       cat / stack on global tensors with sbp inference
 *   view.c       basic indexing (getitem / setitem) on each rank's own component
 *
 * Only this layer includes <mpi.h>; public headers never do. */
#ifndef CT_DIST_DIST_IMPL_H
#define CT_DIST_DIST_IMPL_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "base/strbuf.h"
#include "ctensor/dist.h"
#include "ctensor/memformat.h" /* CT_MAX_DIMS */
#include "ctensor/ops.h"
#include "ctensor/tensor.h"

/* ---- mem.c ------------------------------------------------------------------------------- */

/** malloc/calloc/realloc/free through the installed ct_allocator (the dist layer's host
 *  memory must honour the hooks too). A failure records CT_ERR_NOMEM and returns NULL;
 *  realloc then leaves the old block valid. A block is freed by the allocator that made it. */
void *ct_dist_impl_alloc(size_t size);
void *ct_dist_impl_calloc(size_t n, size_t size);
void *ct_dist_impl_realloc(void *ptr, size_t size);
void ct_dist_impl_free(void *ptr);

/* ---- env.c ------------------------------------------------------------------------------ */

/** The library's private duplicate of MPI_COMM_WORLD (errors return, never abort), starting
 *  MPI on first use. Every world-wide collective of the library runs on it. */
ct_status ct_dist_impl_world(MPI_Comm *out);
/** Rank and size of the world, valid after ct_dist_impl_world succeeded. */
int64_t ct_dist_impl_my_rank(void);
int64_t ct_dist_impl_size(void);
/** OneFlow's default (ONEFLOW_TIMEOUT_SECONDS = 300). */
#define CT_DIST_DEFAULT_TIMEOUT 300.0
/** Seconds a rank waits for its peers in an agreement: ct_dist_set_timeout's value, else
 *  CTENSOR_TIMEOUT_SECONDS, else ONEFLOW_TIMEOUT_SECONDS (read at every call), else the
 *  default. May be INFINITY. */
double ct_dist_impl_timeout(void);
/** After a timeout: remember the operation; from then on ct_dist_impl_world (so every global
 *  operation) fails with ct_dist_impl_broken_error's message. */
void ct_dist_impl_mark_broken(const char *op);
bool ct_dist_impl_is_broken(void);
ct_status ct_dist_impl_broken_error(void);

/* ---- mpi_types.c ------------------------------------------------------------------------- */

/** Record an error for a failed MPI call: CT_ERR_RUNTIME "MPI_Alltoallw failed: <MPI's
 *  error string>". Returns CT_OK when rc == MPI_SUCCESS. */
ct_status ct_dist_impl_mpi_check(int rc, const char *what);
/** The MPI datatype that moves one element of `dtype` (a predefined type, or a committed
 *  contiguous byte type for dtypes MPI has no name for; never freed by the caller). */
ct_status ct_dist_impl_mpi_dtype(ct_dtype dtype, MPI_Datatype *out);
/** Free the datatypes ct_dist_impl_mpi_dtype created (ct_dist_finalize). */
void ct_dist_impl_mpi_types_free(void);

/* ---- comm.c ------------------------------------------------------------------------------ */

/** A communicator over `ranks[0..n)` (sorted ascending, world ranks), rank-in-comm = index.
 *  Created with MPI_Comm_create_group by the members only, on first need, and cached for the
 *  life of the process (keyed by the rank set). MPI_COMM_NULL for a non-member (no call). */
ct_status ct_dist_impl_comm_for_ranks(const int64_t *ranks, int64_t n, MPI_Comm *out);
/** The placement's communicator (rank-in-comm == parallel id). */
ct_status ct_dist_impl_comm_for_placement(const ct_placement *placement, MPI_Comm *out);
/** The communicator of this rank's group along hierarchy axis `axis`: the members that share
 *  every other coordinate; rank-in-comm == coordinate on `axis`. MPI_COMM_NULL for a non-
 *  member. Cached. */
ct_status ct_dist_impl_comm_for_axis(const ct_placement *placement, int64_t axis, MPI_Comm *out);
/** Free every cached communicator (ct_dist_finalize). */
void ct_dist_impl_comm_cache_clear(void);

/* ---- placement.c ------------------------------------------------------------------------- */

struct ct_placement {
    atomic_llong refcount;
    ct_device_type type;
    int64_t n;       /* number of ranks */
    int64_t *ranks;  /* sorted ascending */
    int64_t ndim;    /* hierarchy axes */
    int64_t hierarchy[CT_PLACEMENT_MAX_NDIM];
    uint64_t hash;
};

/** The same ranks and hierarchy on device type `type` (a new reference; `placement` itself
 *  when it already has that type), e.g. the cpu placement that boxing stages through. */
ct_status ct_dist_impl_placement_retype(const ct_placement *placement, ct_device_type type,
                                        ct_placement **out);
/** Row-major coordinates of parallel id `pid` in the hierarchy (coords[0..ndim)). */
void ct_dist_impl_placement_coords(const ct_placement *placement, int64_t pid, int64_t *coords);
/** The parallel id of the given coordinates. */
int64_t ct_dist_impl_placement_pid_of(const ct_placement *placement, const int64_t *coords);
/** This process's parallel id in `placement`, -1 outside (needs MPI started). */
int64_t ct_dist_impl_placement_my_pid(const ct_placement *placement);
/** Append ct_placement_format's text to `b` (bounded builders cut it; NULL appends nothing),
 *  for messages built in place without a separate allocation. */
void ct_dist_impl_placement_append(ct_sb *b, const ct_placement *placement, const char *module);

/* ---- sbp.c ------------------------------------------------------------------------------- */

/** Check an nd-sbp against a placement and a logical tensor of `ndim` dims: n_sbp equals the
 *  placement's ndim ("The number of sbp (2) must match the number of placement hierarchy dims
 *  (1)", CT_ERR_VALUE), kinds valid, split dims < CT_SBP_MAX_SPLIT_AXIS, and split dims <
 *  ndim ("Split axis out of range (expected to be in range of [0, 1), but got 1!)",
 *  CT_ERR_RUNTIME). */
ct_status ct_dist_impl_nd_sbp_check(const ct_sbp *sbp, int64_t n_sbp, const ct_placement *placement,
                                    int64_t ndim);
/** Whether any entry is partial_sum / split. */
bool ct_dist_impl_nd_sbp_has_partial(const ct_sbp *sbp, int64_t n);
bool ct_dist_impl_nd_sbp_has_split(const ct_sbp *sbp, int64_t n);

/* ---- shard.c ------------------------------------------------------------------------------ */

/** Part `i` of `total` split into `n` balanced parts: lower parts get the extra element. */
void ct_dist_impl_balanced_part(int64_t total, int64_t n, int64_t i, int64_t *begin, int64_t *len);

/** A box: the slice [begin, begin + len) of each dim of the logical tensor. */
typedef struct ct_box {
    int64_t ndim;
    int64_t begin[CT_MAX_DIMS];
    int64_t len[CT_MAX_DIMS];
} ct_box;

/** The box parallel id `pid` holds of a logical tensor of `sizes` under nd-sbp `sbp` (one
 *  per hierarchy axis): splits applied axis by axis, each dividing what the previous
 *  axes left; broadcast and partial_sum keep
 *  the whole extent. `pid` < 0 (a non-member) gives an all-empty box. */
void ct_dist_impl_local_box(const int64_t *sizes, int64_t ndim, const ct_placement *placement,
                            const ct_sbp *sbp, int64_t pid, ct_box *out);
/** Take the result `r` (stolen) of a local op on this rank's component(s) as this rank's
 *  component of the output (`z_sizes`, `z_ndim`, nd-sbp `z_sbp` over `placement`): checks
 *  that it is this rank's box (it is, by construction of the op's signatures; CT_ERR_RUNTIME
 *  "internal error" naming `what` otherwise) and makes it a contiguous tensor of its own
 *  (a copy also when the op returned its input `input_local` itself: components are never
 *  shared). On success *out is a new reference; on failure r is released. */
ct_status ct_dist_impl_own_component(ct_tensor *r, const ct_tensor *input_local,
                                     const ct_placement *placement, const int64_t *z_sizes,
                                     int64_t z_ndim, const ct_sbp *z_sbp, const char *what,
                                     ct_tensor **out);
/** The intersection of two boxes (len 0 in some dim when they do not meet). */
void ct_dist_impl_box_intersect(const ct_box *a, const ct_box *b, ct_box *out);
/** The number of elements of a box. */
int64_t ct_dist_impl_box_numel(const ct_box *box);
bool ct_dist_impl_box_equal(const ct_box *a, const ct_box *b);

/* ---- agree.c ------------------------------------------------------------------------------ */

/** What a rank brings to a global operation; compared across all ranks. `op` is the
 *  operation's name ("div", "to_global", "tolist"), its identity: records with different
 *  names always disagree. `what` is a short description used in messages
 *  ("to_global(placement=..., sbp=(S(0),))"), `hash` a digest of the arguments that must be
 *  equal everywhere; the rest is this rank's local input (meaningful when has_local > 0).
 *  has_local < 0 marks a rank whose own checks failed: -has_local is its status and `what`
 *  its message. */
typedef struct ct_agree_record {
    uint64_t hash;
    uint64_t placement; /* digest of the placement(s) named; differing: "Inconsistent parallel
                           description" */
    int32_t has_local;
    int32_t dtype;
    int64_t ndim;
    int64_t sizes[CT_MAX_DIMS];
    char op[32];
    char what[256];
} ct_agree_record;

/** A non-blocking allgather of every rank's record over the world, waited for until the
 *  deadline (ct_dist_impl_timeout): past it, CT_ERR_RUNTIME "Timeout: global operation <op>
 *  waited N s for the other ranks. Maybe executing different code in different ranks, ..."
 *  and the runtime is marked broken (ct_dist_impl_mark_broken). Fills all[0..world) (caller
 *  allocates ct_dist_impl_size() records; NULL: a buffer reserved by ct_dist_init, under a lock).
 *  When some record is failed (has_local < 0), every rank fails: a failed rank returns its
 *  own status with its last error untouched, the others the first failed rank's status with
 *  "global operation <op> failed on rank <r>: <Kind>: <message>". Otherwise, when the names
 *  or hashes differ, every rank returns the same CT_ERR_RUNTIME "global operation arguments
 *  differ across ranks: rank 0 called <what>, rank 1 called <what>". */
ct_status ct_dist_impl_agree(const ct_agree_record *mine, ct_agree_record *all);
/** Set the operation's name in a record (cut to fit). */
void ct_dist_impl_agree_set_op(ct_agree_record *rec, const char *op);
/** Mark `mine` as the record of a rank whose own preparation failed with `status` (the
 *  calling thread's last error): has_local = -status and `what` = the message. Returns
 *  `status`. */
ct_status ct_dist_impl_agree_failed(ct_agree_record *mine, ct_status status);
/** ct_dist_impl_agree for a rank that could not allocate `all`: it joins the allgather with a
 *  failed record (the thread's last error, CT_ERR_NOMEM, unless `mine` already failed) in
 *  the reserved buffer so that nobody waits for it, and returns that status. */
ct_status ct_dist_impl_agree_nomem(const ct_agree_record *mine);
/** The opening agreement of an op's call (binary.c, oneop.c, multiop.c): names `rec` `op`
 *  (ct_dist_impl_agree_set_op), then ct_dist_impl_agree over the world with a buffer of its
 *  own (ct_dist_impl_agree_nomem when that cannot be allocated). */
ct_status ct_dist_impl_agree_call(ct_agree_record *rec, const char *op);
/** Reserve / free that buffer (ct_dist_init / ct_dist_finalize; n = world size). */
ct_status ct_dist_impl_agree_reserve(int64_t n);
void ct_dist_impl_agree_unreserve(void);
/** Every member of `comm` learns whether all of them got this far: a rank that failed
 *  locally (an allocation) must not leave the others waiting in the collective that
 *  follows. Waits with the agreement's deadline. Returns `mine` on a failed rank (its message kept) and, on the others, the
 *  worst status with "<what> failed on another rank". */
ct_status ct_dist_impl_all_ready(ct_status mine, MPI_Comm comm, const char *what);
/** Helpers to build a record's hash over ct_hash_bytes (base/hash.h): an nd-sbp by its
 *  normalised values, a scalar by its kind and value. */
uint64_t ct_dist_impl_hash_nd_sbp(uint64_t h, const ct_sbp *sbp, int64_t n);
uint64_t ct_dist_impl_hash_scalar(uint64_t h, ct_scalar v);

/* ---- global.c ------------------------------------------------------------------------------ */

struct ct_global {
    atomic_llong refcount;
    ct_dtype dtype;
    int64_t ndim;
    int64_t sizes[CT_MAX_DIMS];
    ct_placement *placement; /* owned reference */
    ct_sbp sbp[CT_PLACEMENT_MAX_NDIM];
    ct_tensor *local;        /* owned reference; contiguous; all sizes 0 outside */
};

/** Assemble a global tensor from parts that are already right (no communication, no check
 *  beyond argument sanity). Takes a new reference to `placement`; STEALS `local` (also on
 *  failure). New reference in *out. */
ct_status ct_dist_impl_global_make(ct_dtype dtype, const int64_t *sizes, int64_t ndim,
                                   const ct_placement *placement, const ct_sbp *sbp,
                                   ct_tensor *local, ct_global **out);
/* The steps global.c and factory.c share. */

/** "[2, 3]" into buf (cut to fit). */
void ct_dist_impl_global_fmt_shape(char *buf, size_t cap, const int64_t *v, int64_t n);
/** A record's name (`op`) and `what`: "op(placement=..., sbp=(S(0)))", cut to fit. */
void ct_dist_impl_global_describe(ct_agree_record *rec, const char *op, const ct_placement *p,
                                  const ct_sbp *sbp, int64_t n);
/** The digest of an operation's name, placement and nd-sbp. */
uint64_t ct_dist_impl_global_hash_args(const char *op, const ct_placement *p, const ct_sbp *sbp,
                                       int64_t n);
/** The argument checks every rank makes alone (NULL arguments, the number of sbp); a
 *  failure must go through the agreement (ct_global_fail), never return early. */
ct_status ct_dist_impl_global_check_sbp_arg(const ct_sbp *sbp, int64_t n_sbp,
                                            const ct_placement *placement, const char *fn);
/** ct_dist_impl_agree with a buffer of every rank's records in *all (caller frees). */
ct_status ct_dist_impl_global_agree(const ct_agree_record *mine, ct_agree_record **all);
/** Whether parallel id `pid` is off coordinate 0 of some partial_sum axis (holds zeros). */
bool ct_dist_impl_global_on_partial_copy(const ct_placement *p, const ct_sbp *sbp, int64_t pid);
/** The closing step of an operation that passed its agreement (`agreed`): a rank that failed
 *  afterwards fails every rank (ct_dist_impl_all_ready). On failure *out is released. */
ct_status ct_dist_impl_global_finish(ct_status st, bool agreed, ct_global **out, const char *what);

/** The local component a non-member holds: every size 0 (a 0-dim zero for ndim 0), on cpu.
 *  New reference. */
ct_status ct_dist_impl_global_empty_local(ct_dtype dtype, int64_t ndim, ct_tensor **out);
/** A contiguous local tensor of the box's shape on the placement's local device,
 *  uninitialised. New reference. */
ct_status ct_dist_impl_global_alloc_local(const ct_box *box, ct_dtype dtype,
                                          const ct_placement *placement, ct_tensor **out);

/* ---- reduce.c ------------------------------------------------------------------------------ */

/** Sum `local` (contiguous, same shape on every member of `comm`) across `comm` into every
 *  member's `local`, in place (P -> B on one axis). float16/bfloat16/complex32: gathered and
 *  summed in rank-in-comm order in float32, rounded once. */
ct_status ct_dist_impl_reduce_allreduce(ct_tensor *local, MPI_Comm comm);
/** Reduce-scatter of contiguous `full` across `comm`: member r receives the sum of the
 *  elements [offsets[r], offsets[r] + counts[r]) of everyone's `full` into `out_part`
 *  (contiguous, counts[r] elements). Same dtype rules as ct_dist_impl_reduce_allreduce. */
ct_status ct_dist_impl_reduce_scatter(const ct_tensor *full, const int64_t *offsets,
                                      const int64_t *counts, ct_tensor *out_part, MPI_Comm comm);
/** CT_ERR_NOT_IMPLEMENTED "partial_sum is not supported for dtype ..." for dtypes that
 *  cannot be summed. */
ct_status ct_dist_impl_reduce_check_dtype(ct_dtype dtype);

/* ---- boxing.c ------------------------------------------------------------------------------ */

/** The conversion behind ct_global_to_global once the arguments agree across ranks and are
 *  checked: same logical value on (placement, sbp). Never returns `x` itself. */
ct_status ct_dist_impl_boxing(const ct_global *x, const ct_placement *placement, const ct_sbp *sbp,
                              ct_global **out);

/* ---- boxing_fast.c -------------------------------------------------------------------------- */

/** Try a collective fast path for 1-D same-placement boxing (S(0)->B allgatherv, P->B
 *  allreduce, P->S(0) reduce-scatter, B->S / B->P / S->P local). Sets *done = false (and
 *  returns CT_OK) when no fast path applies. */
ct_status ct_dist_impl_boxing_fast(const ct_global *x, const ct_placement *placement,
                                   const ct_sbp *sbp, ct_global **out, bool *done);
/** Reduce-scatter of a contiguous tensor along `dim` inside `comm` (P -> S(dim) on one
 *  axis): member c receives the sum of everyone's balanced part c of sizes[dim] (lower
 *  members get the extra element), as a new contiguous tensor on `local`'s device. Blocks
 *  are packed first when `dim` is not the outermost non-trivial dim. Collective over comm;
 *  a member failing locally fails every member. New reference in *out. */
ct_status ct_dist_impl_boxing_reduce_scatter_dim(const ct_tensor *local, int64_t dim, MPI_Comm comm,
                                                 ct_tensor **out);

/* ---- shm.c --------------------------------------------------------------------------------- */

/** A shared-memory window over a communicator whose ranks all share one node: one slot per
 *  rank, mapped by every rank. Owned by shm.c (kept until ct_dist_finalize). */
typedef struct ct_shm_window ct_shm_window;
/** Whether the windows are on (CTENSOR_BOXING_SHM is not "0"; must be the same on every
 *  rank). */
bool ct_dist_impl_shm_enabled(void);
/** Start a use of the window of `comm` with slots of at least `bytes` bytes, (re)made on
 *  need, or NULL when the communicator cannot have one (ranks on several nodes, windows off
 *  or failed): the caller then takes another path. Collective over comm whenever it makes or
 *  grows a window; every member must call it once per use with the same `bytes`, and *out
 *  is NULL on all or on none. Never fails (CT_OK).
 *  A use: each rank fills its own slot, then a collective over comm that every rank enters
 *  only after filling (and, from the previous use, after reading), then each rank reads the
 *  others' slots; successive uses alternate between two slots per rank, which is what lets
 *  a rank fill its slot while its peers still read the previous use's. */
ct_status ct_dist_impl_shm_window(MPI_Comm comm, size_t bytes, ct_shm_window **out);
/** Rank `rank`'s slot of the current use as mapped in this process; NULL when MPI cannot
 *  say. */
void *ct_dist_impl_shm_slot(const ct_shm_window *w, int rank);
/** MPI_Win_sync (unified memory model): orders this rank's stores and loads on the window
 *  around the use's collective; call it before and after. */
ct_status ct_dist_impl_shm_sync(const ct_shm_window *w);
/** Free every window (ct_dist_finalize, before the communicators). */
void ct_dist_impl_shm_clear(void);
/** memcpy with streaming stores (Note [Streamed window copies]); the stores are ordered
 *  only by a later ct_dist_impl_shm_stream_fence, which must come before anything (another
 *  rank included) reads the bytes. */
void ct_dist_impl_shm_copy_stream(void *dst, const void *src, size_t n);
void ct_dist_impl_shm_stream_fence(void);
/** Whether all members of `comm` share one node and the windows are on; if so, *cow_state
 *  is the communicator's agreed verdict on shm_cow.c (0 unknown, 1 works, -1 does not; the
 *  caller records it), kept with its window entry. Collective over comm on its first call
 *  (as ct_dist_impl_shm_window); every member must call it alike. Never fails. */
bool ct_dist_impl_shm_node(MPI_Comm comm, int **cow_state);

/* ---- shm_cow.c ----------------------------------------------------------------------------- */

/** One conversion's shared output file (Note [Copy-on-write broadcast results]): `shared`
 *  is the MAP_SHARED mapping the rank writes its blocks into before the collective that
 *  ends the writes, `priv` the copy-on-write mapping that becomes its output. */
typedef struct ct_shm_cow {
    int fd;
    char *shared, *priv;
    size_t bytes;
} ct_shm_cow;
/** Make (rank 0), open and map a shared file of `bytes` bytes (> 0): collective over comm
 *  (one MPI_Bcast); every member calls it with the same `bytes`, `ok` false on a member that
 *  has already failed (it takes part and maps nothing). On failure (also when another rank's
 *  file failed) nothing stays mapped, but rank 0 may still hold the descriptor the others
 *  open: every member calls ct_dist_impl_shm_cow_close (or _storage) after the collective
 *  that follows, whatever this returned. CT_ERR_RUNTIME. */
ct_status ct_dist_impl_shm_cow_open(MPI_Comm comm, size_t bytes, bool ok, ct_shm_cow *c);
/** After the collective that follows every rank's writes: drop the shared mapping and the
 *  descriptor and wrap the private mapping as a storage on `device` whose last reference
 *  unmaps it (new reference in *out). On failure everything is unmapped (CT_ERR_NOMEM). */
ct_status ct_dist_impl_shm_cow_storage(ct_shm_cow *c, ct_device device, ct_storage **out);
/** Unmap and close whatever `c` still holds (after a failure). */
void ct_dist_impl_shm_cow_close(ct_shm_cow *c);

/* ---- binary.c ------------------------------------------------------------------------------- */

/** The signature chosen for op(a, b): the sbp each operand is boxed to and the output's, per
 *  hierarchy axis (global.h's rule). Pure: no communication. */
ct_status ct_dist_impl_global_binary_signature(ct_op op, const ct_global *a, const ct_global *b,
                                               ct_sbp *sbp_a, ct_sbp *sbp_b, ct_sbp *sbp_out);

/* Steps of binary.c's script that the ops of one input share. */

/** "float32[7, 5] (S(0),) on cpu [0, 1]": a global operand in an agreement's description. */
void ct_dist_impl_sb_global(ct_sb *s, const ct_global *g);
/** A global operand's metadata (dtype, sizes, placement, nd-sbp) folded into a digest. */
uint64_t ct_dist_impl_hash_global(uint64_t h, const ct_global *g);
/** A stand-in for the logical tensor of `g`: on meta with the logical sizes (`tiny` false),
 *  or on the cpu with every non-zero size 1, filled with ones (`tiny` true). New reference. */
ct_status ct_dist_impl_stand_in(const ct_global *g, bool tiny, ct_tensor **out);
/** The verdict collective: every rank returns the lowest failing rank's status and message,
 *  or CT_OK when `mine` is CT_OK everywhere. */
ct_status ct_dist_impl_agree_outcome(ct_status mine);
/** Box x to `sbp` (all hierarchy axes) unless it already is. New reference. */
ct_status ct_dist_impl_box_to(const ct_global *x, const ct_sbp *sbp, ct_global **out);
/** CT_OK when p equals q, else CT_ERR_RUNTIME "Expected all tensors to be on the same
 *  placement, but found at least two placements, ... and ...!". */
ct_status ct_dist_impl_same_placement(const ct_placement *p, const ct_placement *q);

/* ---- oneop.c ---------------------------------------------------------------------------------- */

/** An operation of one global input whose local op runs on the components. */
typedef struct ct_dist_oneop {
    const char *name;  /* the operation's name in the agreement and in messages ("exp") */
    const char *fn;    /* the public C function, for its misuse messages */
    const void *ctx;   /* the op's arguments, passed to the callbacks */
    /** Append the arguments after the input to the description ("dim=[0], keepdim=False"). */
    void (*describe)(ct_sb *s, const void *ctx);
    /** Fold the arguments into the agreement's digest. */
    uint64_t (*hash)(uint64_t h, const void *ctx);
    /** The local op on `in`. `z_sbp` is NULL for the stand-ins of the logical checks (the
     *  plain local op), else the output's nd-sbp (nh entries) the result is this rank's part
     *  of. New reference. */
    ct_status (*apply)(const void *ctx, const ct_tensor *in, const ct_global *x,
                       const ct_sbp *z_sbp, ct_tensor **out);
    /** The nd-sbp the input is boxed to and the output's, per hierarchy axis, from the input
     *  and the result's logical dtype. Pure. */
    void (*signature)(const void *ctx, const ct_global *x, ct_dtype z_dtype, ct_sbp *in_sbp,
                      ct_sbp *z_sbp);
    /** The op returns its input itself (positive): after the checks, *out is `x`. */
    bool identity;
    /** Ops of two outputs of one shape and nd-sbp (max / min with a dim: values, indices):
     *  the local op giving both, in place of `apply` (then NULL); run by
     *  ct_dist_impl_oneop_run2. NULL for the ops of one output. */
    ct_status (*apply2)(const void *ctx, const ct_tensor *in, const ct_global *x,
                        const ct_sbp *z_sbp, ct_tensor **out0, ct_tensor **out1);
} ct_dist_oneop;

/** Run `op` on x collectively: agreement of the call across the world, the local op on
 *  stand-ins of the logical tensor (errors and the result's dtype and logical shape), the
 *  signature, boxing, the local op on the members' components and a verdict, so that every
 *  rank returns the same status. New reference in *out. */
ct_status ct_dist_impl_oneop_run(const ct_dist_oneop *op, const ct_global *x, ct_global **out);
/** ct_dist_impl_oneop_run for an op with apply2: both outputs (new references), or neither.
 *  The signature callback gets the first output's dtype. */
ct_status ct_dist_impl_oneop_run2(const ct_dist_oneop *op, const ct_global *x, ct_global **out0,
                                  ct_global **out1);

/* ---- multiop.c -------------------------------------------------------------------------------- */

/** An operation of several global inputs (all on one placement) whose local op runs on the
 *  components. */
typedef struct ct_dist_multiop {
    const char *name; /* the operation's name in the agreement and in messages ("matmul") */
    const char *fn;   /* the public C function, for its misuse messages */
    const void *ctx;  /* the op's arguments, passed to the callbacks */
    /** Append the arguments after the inputs to the description (", dim=1"). */
    void (*describe)(ct_sb *s, const void *ctx);
    /** Fold the arguments into the agreement's digest. */
    uint64_t (*hash)(uint64_t h, const void *ctx);
    /** The local op on in[0..n): the stand-ins of the logical checks or this rank's
     *  (boxed) components. New reference in *out. */
    ct_status (*apply)(const void *ctx, const ct_tensor *const *in, size_t n, ct_tensor **out);
    /** The nd-sbp each input is boxed to (in_sbp[i], one entry per hierarchy axis) and the
     *  output's, from the agreed metadata. Pure: the same on every rank. */
    ct_status (*signature)(const void *ctx, const ct_global *const *x, size_t n,
                           ct_sbp (*in_sbp)[CT_PLACEMENT_MAX_NDIM], ct_sbp *z_sbp);
} ct_dist_multiop;

/** Run `op` on x[0..n) collectively: agreement of the call, the same placement for every
 *  input, the local op on stand-ins of the logical tensors (errors, the result's dtype and
 *  logical shape), the signature, boxing, the local op on the members' components and a
 *  verdict, so that every rank returns the same status. New reference in *out. */
ct_status ct_dist_impl_multiop_run(const ct_dist_multiop *op, const ct_global *const *x, size_t n,
                                   ct_global **out);

#endif /* CT_DIST_DIST_IMPL_H */
