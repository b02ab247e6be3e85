/* A backend `launch` slot executed on the host, element by element, with the same element
 * code the CUDA kernels compile (src/kernels/binary_plan.h for BINARY, src/kernels/
 * unary_plan.h for UNARY, src/kernels/ternary_plan.h for TERNARY, src/kernels/reduce_elem.h
 * for REDUCE, src/dtype/convert/elem_impl.h for COPY), after checking the launch against
 * backend.h's contract. For test backends whose memory is host memory in disguise:
 * tests/unit/test_launch_dispatch.c, test_launch_reduce.c and the CUDA runtime mock
 * (tests/cuda/cudart_mock.c). Each kind lives in its own file (launch_host_<kind>.c) of the
 * ct_launch_host test library: every op x dtype instance of the element code is a great deal
 * of code, and one translation unit for all of it took minutes to compile under the
 * sanitizers. */
#ifndef CT_TESTS_LAUNCH_HOST_H
#define CT_TESTS_LAUNCH_HOST_H

#include <stdint.h>

#include "ctensor/backend.h"

/* The launches run so far, by kind. */
extern long launches_binary, launches_copy, launches_unary, launches_ternary, launches_reduce;

/* The slot itself: checks the launch's geometry, then runs it by kind. Returns CT_OK, or an
 * error naming what the launch got wrong (CT_ERR_RUNTIME) or what has no element code
 * (CT_ERR_NOT_IMPLEMENTED). */
ct_status host_launch(void *ctx, int32_t index, const ct_kernel_launch *l);

/* Registers a host-emulated backend for the xpu device type with 2 devices whose memory
 * counts as not host accessible (so that the core must launch) and whose launch slot is
 * `launch` (host_launch, or a wrapper that records the launches first): the device of the
 * launch tests. Returns ct_backend_register's status. */
ct_status host_launch_register_xpu(ct_status (*launch)(void *ctx, int32_t index,
                                                       const ct_kernel_launch *l));

/* Registers the library's opaque emulated backend (ct_backend_host_emulated_opaque: not host
 * accessible, addresses that fault when the host reads them) for `type` with `count`
 * devices, with host_launch as its launch slot; its copy slots count the transfers in
 * opaque_d2h / opaque_h2d, and while opaque_fail_alloc is set its allocations fail with
 * CT_ERR_NOMEM (launch_host_opaque.c). Returns ct_backend_register's status. */
ct_status host_launch_register_opaque(ct_device_type type, int32_t count);
extern volatile int opaque_fail_alloc;
extern long opaque_d2h, opaque_h2d;

/* The executor's own parts, one per launch kind, each called by host_launch after the
 * geometry check. */
ct_status host_launch_binary(const ct_kernel_launch *l);
struct ct_kplan;
/* The binary rows from EQ on (src/kernels/binary_plan2.h), for host_launch_binary. */
ct_status host_launch_binary2(const ct_kernel_launch *l, const struct ct_kplan *p);
ct_status host_launch_unary(const ct_kernel_launch *l);
ct_status host_launch_ternary(const ct_kernel_launch *l);
ct_status host_launch_reduce(const ct_kernel_launch *l);
/* CT_LAUNCH_RED_ARGMAX and later ops (launch_host_reduce2.c; reached through
 * host_launch_reduce), counted in launches_reduce2. */
extern long launches_reduce2;
ct_status host_launch_reduce2(const ct_kernel_launch *l);
/* SCAN (launch_host_scan.c, src/kernels/scan_elem.h); launches_scan counts them */
extern long launches_scan;
ct_status host_launch_scan(const ct_kernel_launch *l);
/* The byte offset of element i (in row-major order over the launch's shape, innermost dim
 * first) of operand k. */
int64_t offset_of(const ct_kernel_launch *l, int k, int64_t i);

#endif /* CT_TESTS_LAUNCH_HOST_H */
