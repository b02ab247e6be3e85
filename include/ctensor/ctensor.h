/* ctensor: a tensor library in C implementing PyTorch's and OneFlow's tensor attributes.
 *
 * This umbrella header includes every public header.
 *
 * Conventions (they hold for every function unless its own comment says otherwise):
 *  - Errors: fallible functions return ct_status and leave a per-thread message readable
 *    through ct_last_error() (status.h). Nothing aborts, exits or prints on bad input.
 *  - Ownership: a function that hands back an object through an out-parameter gives a new
 *    reference; getters that return pointers return borrowed ones and say so.
 *  - Threads: see "Thread safety" below.
 *  - Argument order: shape and ndim first, then dtype, then device (ct_tensor_empty,
 *    ct_tensor_from_data, ct_tensor_from_storage: storage, geometry, dtype); a destination
 *    before its source (ct_convert, ct_float4_pack, ct_device_copy); out-parameters last.
 *  - Devices: an optional device of a factory or conversion is `const ct_device *`, NULL
 *    meaning the default device (ct_tensor_empty, ct_tensor_to). A required one is a value:
 *    the device type's own functions (ct_device_equal / hash / str), a target that must be
 *    named (ct_set_device, ct_tensor_to_device) and raw memory (ct_device_alloc / copy).
 *  - Counts: sizes, strides, ndim, dims and element counts of tensors are int64_t; size_t
 *    is for bytes and lengths of C arrays in memory-level functions (ct_convert,
 *    ct_result_type). `int` stays where it mirrors an int of the API it wraps: OpenMP's
 *    thread count (ct_set_num_threads), an MPI error code (ct_dist_abort), a device count
 *    bounded by the int32_t device index (ct_backend_host_emulated).
 *  - Text: variable-length text comes back as a new `char **` freed by ct_string_free
 *    (print.h): tensor reprs, ct_placement_format. Short names of bounded length
 *    (ct_device_str, ct_sbp_format, ct_nd_sbp_format, ct_tensor_type_string) go into a
 *    caller's buffer of `size` bytes, snprintf-style or CT_ERR_MISUSE when it is too small,
 *    as each function says.
 *  - Names: public functions are declared in include/ctensor/, all prefixed ct_.
 *    Internal ones are declared only in src/ headers; those of a module with a public
 *    prefix take that prefix plus impl_ (ct_dist_impl_, ct_sparse_impl_, ct_device_impl_,
 *    ct_tensor_impl_, ct_dtype_impl_, ct_convert_impl_, ct_binary_impl_, ...); still, what
 *    is public is what include/ctensor/ declares.
 *
 * Thread safety (checked by tests/unit/test_thread_stress.c under ThreadSanitizer,
 * scripts/tsan.sh):
 *  - Any function may be called from any thread, and different threads may call ctensor at
 *    the same time, on shared or separate objects, within the rules below. There is no
 *    global lock: the shared state (backend registry, host memory cache, emulated devices)
 *    has its own short locks and most settings are atomics.
 *  - Per thread: the last error (ct_last_error, ct_last_error_kind, ct_clear_error; a
 *    failure on one thread never changes another's message), the current device of each
 *    device type (ct_set_device / ct_current_device, like CUDA's), the default-device scope
 *    stack (ct_default_device_push / pop). A new thread starts with no error, device 0 and
 *    no scope. Warnings are delivered on the thread that raised them.
 *  - Process-wide, to be set up before other threads use the library: the allocator
 *    (ct_set_allocator; not synchronised, and memory must go back to the allocator that
 *    made it) and the warning handler (ct_set_warning_handler; not synchronised). Registering
 *    a backend may happen at any time; unregistering one must not race with its use.
 *  - Process-wide, synchronised (atomics or a lock): the default dtype, the global default
 *    device, the compatibility mode, the CPU instruction-set level, the OpenMP thread count
 *    (ct_set_num_threads), the print options and the host cache limit. Changing one while
 *    other threads work is not a data race, but they may see the old or the new value, so
 *    set them first as well if results must not depend on timing (ct_set_num_threads and
 *    the cache limit only change speed and memory use, never results).
 *  - Random numbers: concurrent draws from one generator (the default one included) each
 *    reserve their own numbers, so they never repeat one another but their order depends
 *    on timing; for reproducible streams give each thread its own generator. Reseeding or
 *    setting a state while another thread draws from that generator is a logic race.
 *  - Objects: reference counts of tensors and storages are atomic, so references may be
 *    retained and released on any thread (retain only through a reference you own). A
 *    tensor's metadata is read-only except where a call writes it: the `out` of a ct_*_out
 *    operation (which may resize it) and ct_tensor_set_wrapped_number
 *    (ct_sparse_set_coalesced is atomic and may race with readers). So any number of
 *    threads may read, view, cast, print and use as inputs the same tensors at once.
 *  - The caller's job: a tensor written by one thread (an `out=` target, an in-place `self`,
 *    the destination of ct_tensor_copy_ / fill_ / zero_, the wrapped-number flag, data
 *    written through a data pointer or DLPack) must not be read or written by another
 *    thread at the same time, and neither may any tensor whose elements overlap it (views
 *    of one storage). As in PyTorch, such overlap is a data race and is not detected.
 *  - OpenMP: each thread's large operation starts its own team of up to ct_get_num_threads()
 *    workers, so T calling threads may use T x that many; a program that runs ctensor on
 *    many threads of its own may want ct_set_num_threads(1). Called from inside an OpenMP
 *    parallel region, or in a child forked after a team started, operations run serially.
 *  - Global tensors (dist.h) are for one thread at a time per process.
 */
#ifndef CTENSOR_CTENSOR_H
#define CTENSOR_CTENSOR_H

#include "ctensor/alloc.h"
#include "ctensor/backend.h"
#include "ctensor/compat.h"
#include "ctensor/convert.h"
#include "ctensor/cpu.h"
#include "ctensor/device.h"
#include "ctensor/dlpack.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/join.h"
#include "ctensor/index.h"
#include "ctensor/layout.h"
#include "ctensor/linalg.h"
#include "ctensor/linalg_add.h"
#include "ctensor/memformat.h"
#include "ctensor/ops.h"
#include "ctensor/reduce.h"
#include "ctensor/parallel.h"
#include "ctensor/print.h"
#include "ctensor/random.h"
#include "ctensor/reorder.h"
#include "ctensor/range.h"
#include "ctensor/scalar.h"
#include "ctensor/sparse.h"
#include "ctensor/status.h"
#include "ctensor/sort.h"
#include "ctensor/scatter.h"
#include "ctensor/search.h"
#include "ctensor/unique.h"
#include "ctensor/tensor.h"
#include "ctensor/ternary.h"
#include "ctensor/triangle.h"
#include "ctensor/unary.h"
#include "ctensor/version.h"
#include "ctensor/warning.h"

#endif /* CTENSOR_CTENSOR_H */
