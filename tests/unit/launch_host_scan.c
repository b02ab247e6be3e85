/* The SCAN kind of launch_host.h's host-executed launch slot: each line of the buffer through
 * ct_scan_line of src/kernels/scan_elem.h, the code src/cuda/kernels_scan.cu runs on the
 * GPU (one line per GPU thread there). host_launch has checked the geometry. */
#include "base/error_impl.h"
#include "kernels/scan_plan.h"
#include "launch_host.h"

long launches_scan;

ct_status host_launch_scan(const ct_kernel_launch *l) {
    launches_scan++;
    int type = ct_scan_plan_type(l);
    if (type < 0)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "test launch: no scan for %s", l->name);
    int64_t O = l->scan_outer, R = l->scan_len, I = l->scan_inner;
    int64_t isz = l->dtype[0] == CT_COMPLEX128 ? 16 : 8;
    bool prod = l->scan_op == CT_LAUNCH_SCAN_PROD;
    for (int64_t line = 0; line < O * I; line++) {
        int64_t o = line / I, i = line % I;
        ct_scan_line(type, prod, l->data[0] + (o * R * I + i) * isz, R, I);
    }
    return CT_OK;
}
