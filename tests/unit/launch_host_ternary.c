/* The TERNARY kind of the host-executed launch slot (launch_host.h): each element computed
 * by ct_telem of src/kernels/ternary_plan.h, the code the CUDA kernels
 * (src/cuda/kernels_ternary.cu) compile. host_launch has checked the geometry. */
#include "base/error_impl.h"
#include "kernels/ternary_plan.h"
#include "launch_host.h"

long launches_ternary;

ct_status host_launch_ternary(const ct_kernel_launch *l) {
    launches_ternary++;
    ct_tplan p;
    if (!ct_tplan_init(&p, l))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "test launch: no kernel for %s", l->name);
    /* a by-value input has no memory; an input that is not by value must have it */
    for (int k = 0; k < p.nin; k++)
        if ((l->data[1 + k] == NULL) != (((p.by_value >> k) & 1u) != 0))
            return ct_set_error(CT_ERR_RUNTIME, "test launch: input %d by value and in memory",
                                k);
    for (int64_t i = 0; i < l->numel; i++) {
        const char *in[3] = {NULL, NULL, NULL};
        for (int k = 0; k < p.nin; k++)
            if (l->data[1 + k] != NULL)
                in[k] = l->data[1 + k] + offset_of(l, 1 + k, i);
        ct_telem(&p, l->data[0] + offset_of(l, 0, i), in[0], in[1], in[2]);
    }
    return CT_OK;
}
