/* The binary rows from EQ on (comparisons, logical, maximum ... shifts, pow with a number)
 * of launch_host.h's host-executed launch slot: each element through ct_kelem2_<math> of
 * src/kernels/binary_plan2.h, the code src/cuda/kernels_binary2.cu runs on the GPU. A file
 * of its own so that it compiles beside launch_host_binary.c. */
#include "base/error_impl.h"
#include "kernels/binary_plan2.h"
#include "launch_host.h"

ct_status host_launch_binary2(const ct_kernel_launch *l, const ct_kplan *p) {
    for (int64_t i = 0; i < l->numel; i++) {
        char *o = l->data[0] + offset_of(l, 0, i);
        const char *a = l->data[1] + offset_of(l, 1, i), *b = l->data[2] + offset_of(l, 2, i);
        int code = CT_KP_OK;
        switch (p->math) {
#define CASE(E, S, T)                                                                              \
    case CT_##E:                                                                                   \
        code = ct_kelem2_##S(p, o, a, b);                                                          \
        break;
            CT_KPLAN_MATH_ROWS(CASE)
#undef CASE
        default:
            return ct_set_error(CT_ERR_RUNTIME, "test launch: math dtype %d", p->math);
        }
        if (code == CT_KP_ZERO_DIVISION)
            return ct_set_error(CT_ERR_RUNTIME, "ZeroDivisionError");
    }
    return CT_OK;
}
