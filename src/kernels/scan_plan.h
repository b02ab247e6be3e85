/* A SCAN launch (ctensor/backend.h: cumsum, cumprod) checked and turned into scan_elem.h's
 * accumulation type: shared by the CUDA backend (src/cuda/launch.c, kernels_scan.cu) and the
 * host-executed launches of the tests (tests/unit/launch_host_scan.c). */
#ifndef CT_KERNELS_SCAN_PLAN_H
#define CT_KERNELS_SCAN_PLAN_H

#include "ctensor/backend.h"
#include "kernels/scan_elem.h"

/* The scan_elem.h type of a valid SCAN launch, or -1 (a dtype without a device scan, a
 * geometry that is not the dense buffer backend.h describes). Host code only. */
static inline int ct_scan_plan_type(const ct_kernel_launch *l) {
    if (l->kind != CT_LAUNCH_SCAN || l->noperands != 1 || l->data[0] == NULL ||
        (l->scan_op != CT_LAUNCH_SCAN_SUM && l->scan_op != CT_LAUNCH_SCAN_PROD) ||
        l->scan_outer < 1 || l->scan_len < 1 || l->scan_inner < 1 ||
        l->ndim != (l->numel > 1 ? 1 : 0) ||
        l->numel / l->scan_outer / l->scan_len != l->scan_inner ||
        l->numel % (l->scan_outer * l->scan_len) != 0)
        return -1;
    int type;
    int64_t isz;
    switch (l->dtype[0]) {
    case CT_FLOAT64: type = CT_SCAN_ELEM_F64; isz = 8; break;
    case CT_INT64: type = CT_SCAN_ELEM_I64; isz = 8; break;
    case CT_COMPLEX128: type = CT_SCAN_ELEM_C128; isz = 16; break;
    default: return -1;
    }
    if (l->ndim == 1 && (l->shape[0] != l->numel || l->strides[0][0] != isz))
        return -1;
    return type;
}

#endif /* CT_KERNELS_SCAN_PLAN_H */
