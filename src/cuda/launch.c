/* The cuda backend's `launch` and `fill` slots: check what ctensor asks for, make `index`
 * the current device for the call (restored after), pick the calling thread's current
 * stream of that device, and enqueue the kernels (kernels_binary.cu, kernels_copy.cu).
 * Launches are asynchronous in stream order, except an integer division, which waits for
 * its kernel to learn whether a divisor was zero (CT_ERR_RUNTIME "ZeroDivisionError", as on
 * the cpu). */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/error_impl.h"
#include "cuda/cuda_impl.h"
#include "cuda/kernels_impl.h"
#include "kernels/binary_plan2.h"
#include "kernels/unary_plan.h"
#include "kernels/reduce_elem.h"
#include "kernels/reduce2_elem.h"

#define MAX_DEVICES 128

/* Per device, made once: the multiprocessor count (grid sizes). The integer-division flag
 * is static device memory (ct_cuda_impl_zero_flag). Two threads dividing integers on two
 * streams of one device share it: a zero divisor in one may then be reported by the other
 * as well (never missed). */
static atomic_int sm_counts[MAX_DEVICES];

static ct_status sm_count(int32_t index, int *out) {
    int n = atomic_load(&sm_counts[index]);
    if (n == 0) {
        int err = (int)cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, index);
        if (err != 0)
            return ct_cuda_impl_error(err);
        atomic_store(&sm_counts[index], n);
    }
    *out = n;
    return CT_OK;
}

static bool dtype_ok(ct_dtype d) { return (int)d >= 0 && (int)d < CT_NUM_DTYPES; }

/* The launch's own consistency (ctensor builds it; a bad one is a bug, not user input). */
static ct_status check_launch(int32_t index, const ct_kernel_launch *l) {
    if (l == NULL)
        return ct_set_error(CT_ERR_MISUSE, "cuda launch: NULL launch");
    if (index < 0 || index >= MAX_DEVICES)
        return ct_set_error(CT_ERR_MISUSE, "cuda launch: invalid device index %d", (int)index);
    int nops = l->kind == CT_LAUNCH_COPY ? 2 : l->kind == CT_LAUNCH_BINARY ? 3 : 0;
    if (l->kind == CT_LAUNCH_UNARY || l->kind == CT_LAUNCH_REDUCE)
        nops = 2;
    if (l->kind == CT_LAUNCH_TERNARY) /* 4, or 3 for the two-input rows */
        nops = l->noperands == 3 ? 3 : 4;
    if (l->kind == CT_LAUNCH_REDUCE && l->reduce_op >= CT_LAUNCH_RED_ARGMAX) /* 2nd output */
        nops = l->noperands == 3 ? 3 : 2;
    if (l->kind == CT_LAUNCH_SCAN) /* the buffer scanned in place */
        nops = 1;
    if (nops == 0 || l->noperands != nops)
        return ct_set_error(CT_ERR_MISUSE, "cuda launch: invalid kind %d with %d operands",
                            (int)l->kind, (int)l->noperands);
    if (l->ndim < 0 || l->ndim > CT_LAUNCH_MAX_DIMS || l->numel < 0 ||
        (l->ndim == 0 && l->numel > 1))
        return ct_set_error(CT_ERR_MISUSE, "cuda launch: invalid geometry (%d dims, %lld elements)",
                            (int)l->ndim, (long long)l->numel);
    for (int k = 0; k < nops; k++) {
        if (!dtype_ok(l->dtype[k]))
            return ct_set_error(CT_ERR_MISUSE, "cuda launch: invalid dtype %d",
                                (int)l->dtype[k]);
        bool by_value = l->kind == CT_LAUNCH_TERNARY && k > 0 &&
                        ((l->ter_by_value >> (k - 1)) & 1u) != 0;
        if (l->numel > 0 && l->data[k] == NULL && !by_value)
            return ct_set_error(CT_ERR_MISUSE, "cuda launch: operand %d is NULL", k);
    }
    for (int d = 0; d < l->ndim; d++) {
        if (l->shape[d] < 1)
            return ct_set_error(CT_ERR_MISUSE, "cuda launch: dim %d has size %lld", d,
                                (long long)l->shape[d]);
        for (int k = 0; k < nops; k++)
            if (l->strides[k][d] < 0)
                return ct_set_error(CT_ERR_MISUSE, "cuda launch: negative stride");
    }
    return CT_OK;
}

/* Run `body` with `index` as the current device, restoring the previous one. */
typedef ct_status (*device_body)(int32_t index, void *arg);

static ct_status on_device(int32_t index, device_body body, void *arg) {
    int prev = -1;
    int err = (int)cudaGetDevice(&prev);
    if (err != 0)
        return ct_cuda_impl_error(err);
    if (prev != index) {
        err = (int)cudaSetDevice(index);
        if (err != 0)
            return ct_cuda_impl_error(err);
    }
    ct_status st = body(index, arg);
    if (prev != index) {
        err = (int)cudaSetDevice(prev);
        if (err != 0 && st == CT_OK)
            st = ct_cuda_impl_error(err);
    }
    return st;
}

typedef struct launch_arg {
    const ct_kernel_launch *l;
    const ct_kplan *plan;
    const ct_uplan *uplan; /* UNARY */
    const ct_tplan *tplan; /* TERNARY */
} launch_arg;

static ct_status launch_body(int32_t index, void *arg) {
    const launch_arg *a = arg;
    const ct_kernel_launch *l = a->l;
    int sms = 0;
    CT_TRY(sm_count(index, &sms));
    ct_cuda_impl_stream_t stream = ct_cuda_impl_current_stream(index);
    if (l->kind == CT_LAUNCH_REDUCE) {
        int err = l->reduce_op >= CT_LAUNCH_RED_ARGMAX ? ct_cuda_impl_reduce2_run(l, sms, stream)
                                                       : ct_cuda_impl_reduce_run(l, sms, stream);
        return err != 0 ? ct_cuda_impl_error(err) : CT_OK;
    }
    if (l->kind == CT_LAUNCH_COPY) {
        int err = ct_cuda_impl_copy_run(l, sms, stream);
        return err != 0 ? ct_cuda_impl_error(err) : CT_OK;
    }
    if (l->kind == CT_LAUNCH_UNARY) {
        int err = ct_cuda_impl_unary_run(l, a->uplan, sms, stream);
        return err != 0 ? ct_cuda_impl_error(err) : CT_OK;
    }
    if (l->kind == CT_LAUNCH_TERNARY) {
        int err = ct_cuda_impl_ternary_run(l, a->tplan, sms, stream);
        return err != 0 ? ct_cuda_impl_error(err) : CT_OK;
    }
    if (l->kind == CT_LAUNCH_SCAN) {
        int err = ct_cuda_impl_scan_run(l, ct_scan_plan_type(l), sms, stream);
        return err != 0 ? ct_cuda_impl_error(err) : CT_OK;
    }
    int *flag = NULL;
    int ferr = ct_cuda_impl_zero_flag(&flag);
    if (ferr != 0)
        return ct_cuda_impl_error(ferr);
    int err = a->plan->op >= CT_KP_EQ ? ct_cuda_impl_binary2_run(l, a->plan, flag, sms, stream)
                                      : ct_cuda_impl_binary_run(l, a->plan, flag, sms, stream);
    if (err != 0)
        return ct_cuda_impl_error(err);
    if (!a->plan->int_div)
        return CT_OK;
    /* integer division: wait for the kernel's verdict (the only synchronising launch) */
    int hit = 0;
    err = (int)cudaMemcpyAsync(&hit, flag, sizeof hit, cudaMemcpyDeviceToHost,
                               (cudaStream_t)stream);
    if (err == 0)
        err = (int)cudaStreamSynchronize((cudaStream_t)stream);
    if (err != 0)
        return ct_cuda_impl_error(err);
    if (hit != 0) {
        err = (int)cudaMemsetAsync(flag, 0, sizeof *flag, (cudaStream_t)stream);
        if (err != 0)
            return ct_cuda_impl_error(err);
        return ct_set_error(CT_ERR_RUNTIME, "ZeroDivisionError");
    }
    return CT_OK;
}

ct_status ct_cuda_impl_launch(void *ctx, int32_t index, const ct_kernel_launch *launch) {
    (void)ctx;
    CT_TRY(check_launch(index, launch));
    if (launch->numel == 0)
        return CT_OK;
    ct_kplan plan;
    memset(&plan, 0, sizeof plan);
    ct_uplan uplan;
    memset(&uplan, 0, sizeof uplan);
    ct_tplan tplan;
    memset(&tplan, 0, sizeof tplan);
    if (launch->kind == CT_LAUNCH_UNARY) {
        /* no device kernel (most complex ops): as the cpu words a dtype it lacks */
        if (!ct_uplan_init(&uplan, launch))
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                                launch->name != NULL ? launch->name : "unary",
                                ct_dtype_cpp_name(launch->compute));
    } else if (launch->kind == CT_LAUNCH_TERNARY) {
        if (!ct_tplan_init(&tplan, launch))
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                                launch->name != NULL ? launch->name : "ternary",
                                ct_dtype_cpp_name(launch->compute));
    } else if (launch->kind == CT_LAUNCH_BINARY) {
        if (!ct_kplan_init_all(&plan, launch))
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                                launch->name != NULL ? launch->name : "binary",
                                ct_dtype_cpp_name(launch->compute));
    } else if (launch->kind == CT_LAUNCH_REDUCE) {
        ct_rplan rp;
        ct_r2plan r2p;
        if (launch->reduce_op >= CT_LAUNCH_RED_ARGMAX ? !ct_r2plan_init(&r2p, launch)
                                                      : !ct_rplan_init(&rp, launch))
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s_cuda\" not implemented for '%s'",
                                launch->name != NULL ? launch->name : "reduce",
                                ct_dtype_cpp_name(launch->dtype[1]));
    } else if (launch->kind == CT_LAUNCH_SCAN) {
        if (ct_scan_plan_type(launch) < 0)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                                launch->name != NULL ? launch->name : "scan",
                                ct_dtype_cpp_name(launch->dtype[0]));
    } else if ((launch->dtype[0] == CT_FLOAT4_E2M1FN_X2) !=
               (launch->dtype[1] == CT_FLOAT4_E2M1FN_X2)) {
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
    }
    launch_arg a = {launch, &plan, &uplan, &tplan};
    return on_device(index, launch_body, &a);
}

typedef struct fill_arg {
    void *dst;
    size_t n;
    const void *pattern;
    size_t pattern_size;
} fill_arg;

static ct_status fill_body(int32_t index, void *arg) {
    const fill_arg *a = arg;
    int sms = 0;
    CT_TRY(sm_count(index, &sms));
    int err = ct_cuda_impl_fill_run(a->dst, a->n, a->pattern, a->pattern_size, sms,
                                    ct_cuda_impl_current_stream(index));
    return err != 0 ? ct_cuda_impl_error(err) : CT_OK;
}

ct_status ct_cuda_impl_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                            size_t pattern_size) {
    (void)ctx;
    if (dst == NULL || pattern == NULL || pattern_size < 1 || pattern_size > 64 ||
        n % pattern_size != 0 || index < 0 || index >= MAX_DEVICES)
        return ct_set_error(CT_ERR_MISUSE, "cuda fill: invalid arguments");
    if (n == 0)
        return CT_OK;
    fill_arg a = {dst, n, pattern, pattern_size};
    return on_device(index, fill_body, &a);
}
