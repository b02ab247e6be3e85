/* The BINARY kind of launch_host.h's host-executed launch slot: each element through
 * ct_kelem_<math> of src/kernels/binary_plan.h, the code src/cuda/kernels_binary.cu runs on
 * the GPU; the rows from EQ on in launch_host_binary2.c (compiled beside this file).
 * host_launch has checked the geometry. */
#include "base/error_impl.h"
#include "kernels/binary_plan2.h" /* CT_KP_EQ */
#include "launch_host.h"

long launches_binary;

ct_status host_launch_binary(const ct_kernel_launch *l) {
    launches_binary++;
    ct_kplan p;
    if (!ct_kplan_init_all(&p, l))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "test launch: no kernel for %s", l->name);
    if (p.op >= CT_KP_EQ)
        return host_launch_binary2(l, &p);
    for (int64_t i = 0; i < l->numel; i++) {
        char *o = l->data[0] + offset_of(l, 0, i);
        const char *a = l->data[1] + offset_of(l, 1, i), *b = l->data[2] + offset_of(l, 2, i);
        int code = CT_KP_OK;
        switch (p.math) {
#define CASE(E, S, T)                                                                              \
    case CT_##E:                                                                                   \
        code = ct_kelem_##S(&p, o, a, b);                                                          \
        break;
            CT_KPLAN_MATH_ROWS(CASE)
#undef CASE
        default:
            return ct_set_error(CT_ERR_RUNTIME, "test launch: math dtype %d", p.math);
        }
        if (code == CT_KP_ZERO_DIVISION)
            return ct_set_error(CT_ERR_RUNTIME, "ZeroDivisionError");
    }
    return CT_OK;
}
