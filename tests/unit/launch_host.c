/* The host-executed launch slot (launch_host.h): the contract check, the COPY kind, and the
 * dispatch to each other kind's file. */
#include "launch_host.h"

#include "base/error_impl.h"
#include "dtype/convert/elem_impl.h"

long launches_copy;

int64_t offset_of(const ct_kernel_launch *l, int k, int64_t i) {
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

static ct_status host_launch_copy(const ct_kernel_launch *l) {
    launches_copy++;
    if (l->noperands != 2 || l->compute != l->dtype[0] || l->math != l->dtype[0])
        return ct_set_error(CT_ERR_RUNTIME, "test launch: bad COPY launch");
    for (int64_t i = 0; i < l->numel; i++)
        ct_cvt_elem(l->dtype[0], l->data[0] + offset_of(l, 0, i), l->dtype[1],
                    l->data[1] + offset_of(l, 1, i));
    return CT_OK;
}

ct_status host_launch(void *ctx, int32_t index, const ct_kernel_launch *l) {
    (void)ctx;
    (void)index;
    ct_status st = check_geometry(l);
    if (st != CT_OK)
        return st;
    switch (l->kind) {
    case CT_LAUNCH_COPY:
        return host_launch_copy(l);
    case CT_LAUNCH_UNARY:
        return host_launch_unary(l);
    case CT_LAUNCH_TERNARY:
        return host_launch_ternary(l);
    case CT_LAUNCH_REDUCE:
        return host_launch_reduce(l);
    case CT_LAUNCH_BINARY:
        return host_launch_binary(l);
    case CT_LAUNCH_SCAN:
        return host_launch_scan(l);
    default:
        return ct_set_error(CT_ERR_RUNTIME, "test launch: unknown kind %d", (int)l->kind);
    }
}

ct_status host_launch_register_xpu(ct_status (*launch)(void *ctx, int32_t index,
                                                       const ct_kernel_launch *l)) {
    ct_backend b;
    ct_status st = ct_backend_host_emulated(CT_DEVICE_XPU, 2, &b);
    if (st != CT_OK)
        return st;
    b.flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b.launch = launch;
    return ct_backend_register(&b);
}
