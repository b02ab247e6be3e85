/* The UNARY kind of launch_host.h's host-executed launch slot: each element through
 * ct_uelem_<math> of src/kernels/unary_plan.h, the code src/cuda/kernels_unary.cu runs on
 * the GPU. host_launch has checked the geometry. */
#include "base/error_impl.h"
#include "kernels/unary_plan.h"
#include "launch_host.h"

long launches_unary;

/* The message of a device without the kernel (as src/cuda/launch.c words it). */
static ct_status host_unary_refuse(const ct_kernel_launch *l) {
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                        l->name != NULL ? l->name : "unary",
                        ct_dtype_cpp_name(l->compute));
}

ct_status host_launch_unary(const ct_kernel_launch *l) {
    launches_unary++;
    ct_uplan p;
    if (!ct_uplan_init(&p, l))
        return host_unary_refuse(l);
    for (int64_t i = 0; i < l->numel; i++) {
        char *o = l->data[0] + offset_of(l, 0, i);
        const char *x = l->data[1] + offset_of(l, 1, i);
        int code = 1;
        switch (p.math) {
#define CASE(E, S, T)                                                                              \
    case CT_##E:                                                                                   \
        code = ct_uelem_##S(&p, o, x);                                                             \
        break;
            CT_UPLAN_MATH_ROWS(CASE)
#undef CASE
        default:
            break;
        }
        if (code != 0)
            return ct_set_error(CT_ERR_RUNTIME, "test launch: no element for unary op %d",
                                (int)p.op);
    }
    return CT_OK;
}
