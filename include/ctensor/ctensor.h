/* ctensor: a tensor library in C implementing PyTorch's and OneFlow's tensor attributes.
 *
 * This umbrella header includes every public header.
 *
 * Conventions (they hold for every function unless its own comment says otherwise):
 *  - Errors: fallible functions return ct_status and leave a per-thread message readable
 *    through ct_last_error() (status.h). Nothing aborts, exits or prints on bad input.
 *  - Ownership: a function that hands back an object through an out-parameter gives a new
 *    reference; getters that return pointers return borrowed ones and say so.
 *  - Threads: all functions may be called from any thread. Process-wide settings (default
 *    dtype, allocator, CPU level) should be changed before other threads use the library;
 *    the last error is per thread.
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
#include "ctensor/layout.h"
#include "ctensor/memformat.h"
#include "ctensor/ops.h"
#include "ctensor/parallel.h"
#include "ctensor/print.h"
#include "ctensor/random.h"
#include "ctensor/scalar.h"
#include "ctensor/sparse.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"
#include "ctensor/version.h"
#include "ctensor/warning.h"

#endif /* CTENSOR_CTENSOR_H */
