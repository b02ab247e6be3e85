/* A backend `launch` slot executed on the host, element by element, with the same element
 * code the CUDA kernels compile (src/kernels/binary_plan.h for BINARY, src/dtype/convert/
 * elem_impl.h for COPY, src/kernels/ternary_plan.h for TERNARY: launch_host_ternary.h),
 * after checking the launch against backend.h's contract. For test backends whose memory
 * is host memory in disguise: tests/unit/test_launch_dispatch.c and the CUDA runtime mock
 * (tests/cuda/cudart_mock.c). Counts the launches it ran. */
#ifndef CT_TESTS_LAUNCH_HOST_H
#define CT_TESTS_LAUNCH_HOST_H

#include "base/error_impl.h"
#include "ctensor/backend.h"
#include "dtype/convert/elem_impl.h"
#include "kernels/binary_plan.h"
#include "kernels/binary_plan2.h" /* the kernel rows after DIV_FLOOR */
#include "launch_host_reduce.h"

static int64_t offset_of(const ct_kernel_launch *l, int k, int64_t i);
#include "launch_host_ternary.h"

static long launches_binary, launches_copy;

/* The byte offset of element i of a launch's operand k. */
static int64_t offset_of(const ct_kernel_launch *l, int k, int64_t i) {
    int64_t off = 0;
    for (int d = 0; d < l->ndim; d++) {
        off += (i % l->shape[d]) * l->strides[k][d];
        i /= l->shape[d];
    }
    return off;
}

/* What every launch must look like (backend.h's contract). */
static ct_status check_geometry(const ct_kernel_launch *l) {
    if (l->ndim < 0 || l->ndim > CT_LAUNCH_MAX_DIMS)
        return ct_set_error(CT_ERR_RUNTIME, "test launch: bad ndim %d", (int)l->ndim);
    int64_t n = 1;
    for (int d = 0; d < l->ndim; d++) {
        if (l->shape[d] < 2)
            return ct_set_error(CT_ERR_RUNTIME, "test launch: dim %d of size %lld", d,
                                (long long)l->shape[d]);
        n *= l->shape[d];
        for (int k = 0; k < l->noperands; k++)
            if (l->strides[k][d] < 0)
                return ct_set_error(CT_ERR_RUNTIME, "test launch: negative stride");
    }
    if (n != l->numel || l->numel < 1)
        return ct_set_error(CT_ERR_RUNTIME, "test launch: numel %lld for a shape of %lld",
                            (long long)l->numel, (long long)n);
    for (int k = 0; k < l->noperands; k++)
        if (l->data[k] == NULL && !(l->kind == CT_LAUNCH_TERNARY && k > 0 &&
                                    ((l->ter_by_value >> (k - 1)) & 1u)))
            return ct_set_error(CT_ERR_RUNTIME, "test launch: NULL operand %d", k);
    return CT_OK;
}

#include "launch_host_unary.h"

static __attribute__((unused)) ct_status host_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    (void)ctx;
    (void)index;
    ct_status st = check_geometry(l);
    if (st != CT_OK)
        return st;
    if (l->kind == CT_LAUNCH_REDUCE)
        return host_launch_reduce(l);
    if (l->kind == CT_LAUNCH_COPY) {
        launches_copy++;
        if (l->noperands != 2 || l->compute != l->dtype[0] || l->math != l->dtype[0])
            return ct_set_error(CT_ERR_RUNTIME, "test launch: bad COPY launch");
        for (int64_t i = 0; i < l->numel; i++)
            ct_cvt_elem(l->dtype[0], l->data[0] + offset_of(l, 0, i), l->dtype[1],
                        l->data[1] + offset_of(l, 1, i));
        return CT_OK;
    }
    if (l->kind == CT_LAUNCH_UNARY)
        return host_launch_unary(l);
    if (l->kind == CT_LAUNCH_TERNARY)
        return host_launch_ternary(l);
    launches_binary++;
    ct_kplan p;
    if (!ct_kplan_init_all(&p, l))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "test launch: no kernel for %s", l->name);
    for (int64_t i = 0; i < l->numel; i++) {
        char *o = l->data[0] + offset_of(l, 0, i);
        const char *a = l->data[1] + offset_of(l, 1, i), *b = l->data[2] + offset_of(l, 2, i);
        int code = CT_KP_OK;
        switch (p.math) {
#define CASE(E, S, T)                                                                              \
    case CT_##E:                                                                                   \
        code = CT_KELEM_ANY(S, &p, o, a, b);                                                       \
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

#endif /* CT_TESTS_LAUNCH_HOST_H */
