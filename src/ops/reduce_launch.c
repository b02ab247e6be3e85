/* Reductions on a device whose memory host code cannot touch: one REDUCE launch
 * (ctensor/backend.h) per reduction. The ops (reduce.c, reduce_stats.c) decide dtypes,
 * errors, the output and the input conversions exactly as for the cpu; this file lays the
 * input and the output out as the launch's two operands: the input's dims of size > 1,
 * innermost (smallest input stride) first, the output's stride 0 along the reduced ones,
 * adjacent dims merged where both operands allow it. */
#include <math.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/backend.h"
#include "ctensor/reduce.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "ops/reduce_impl.h"
#include "tensor/tensor_impl.h"

bool ct_reduce_impl_on_launch(const ct_tensor *in) {
    return in->device.type != CT_DEVICE_META &&
           !ct_device_impl_host_accessible(in->device.type) &&
           ct_device_impl_has_launch(in->device.type);
}

/* What an empty reduction gives: the identity (sum 0, prod 1, all true, any false), or for
 * mean 0 / 0. */
static ct_scalar identity(int32_t red_op, bool mean) {
    if (mean)
        return ct_scalar_float(NAN);
    return red_op == CT_LAUNCH_RED_PROD || red_op == CT_LAUNCH_RED_ALL ? ct_scalar_int(1)
                                                                       : ct_scalar_int(0);
}

/* Fill the launch's operands and loop from in (operand 1) and res (operand 0). */
static void fill_geometry(const ct_tensor *in, const ct_reduce_plan *p, const ct_tensor *res,
                          ct_kernel_launch *l) {
    int64_t isz = (int64_t)ct_dtype_table[in->dtype].itemsize;
    int64_t osz = (int64_t)ct_dtype_table[res->dtype].itemsize;
    bool keep = res->ndim == in->ndim;
    int64_t shape[CT_MAX_DIMS], sin[CT_MAX_DIMS], sout[CT_MAX_DIMS];
    int32_t n = 0, j = 0;
    for (int32_t d = 0; d < in->ndim; d++) {
        int64_t os = 0;
        if (!p->reduced[d] || keep)
            os = res->strides[j++];
        if (in->sizes[d] == 1)
            continue;
        /* insertion by input stride, innermost first (stable: later dims first on ties,
         * as a contiguous tensor's order) */
        int32_t k = n;
        int64_t s = in->strides[d];
        while (k > 0 && sin[k - 1] >= s) {
            shape[k] = shape[k - 1];
            sin[k] = sin[k - 1];
            sout[k] = sout[k - 1];
            k--;
        }
        shape[k] = in->sizes[d];
        sin[k] = s;
        sout[k] = p->reduced[d] ? 0 : os;
        n++;
    }
    /* merge dim k + 1 into k where both operands continue it */
    int32_t m = 0;
    for (int32_t k = 0; k < n; k++) {
        if (m > 0 && sin[k] == sin[m - 1] * shape[m - 1] &&
            sout[k] == sout[m - 1] * shape[m - 1] && (sout[k] == 0) == (sout[m - 1] == 0)) {
            shape[m - 1] *= shape[k];
            continue;
        }
        shape[m] = shape[k];
        sin[m] = sin[k];
        sout[m] = sout[k];
        m++;
    }
    l->noperands = 2;
    l->ndim = m;
    l->numel = in->numel;
    l->dtype[0] = res->dtype;
    l->dtype[1] = in->dtype;
    l->data[0] = ct_tensor_data_ptr(res);
    l->data[1] = (char *)ct_tensor_data_ptr(in);
    for (int32_t k = 0; k < m; k++) {
        l->shape[k] = shape[k];
        l->strides[0][k] = sout[k] * osz;
        l->strides[1][k] = sin[k] * isz;
    }
}

static ct_status launch_into(int32_t red_op, const char *name, const ct_tensor *in,
                             const ct_reduce_plan *p, ct_tensor *res, ct_dtype acc,
                             int64_t divisor) {
    ct_kernel_launch *l = ct_alloc(sizeof *l, 64); /* 4.7 KB: not on the stack */
    if (l == NULL)
        return ct_set_error(CT_ERR_NOMEM, "%s: out of memory", name);
    memset(l, 0, sizeof *l);
    l->kind = CT_LAUNCH_REDUCE;
    l->name = name;
    l->compute = l->math = acc;
    l->reduce_op = red_op;
    l->acc = acc;
    l->divisor = divisor;
    fill_geometry(in, p, res, l);
    ct_status st = ct_device_impl_launch(in->device, l);
    ct_free(l, sizeof *l, 64);
    return st;
}

ct_status ct_reduce_impl_launch(int32_t red_op, const char *name, const ct_tensor *in,
                                const ct_reduce_plan *p, ct_tensor *res, ct_dtype acc, bool mean) {
    if (p->out_numel == 0)
        return CT_OK;
    if (in->numel == 0)
        return ct_tensor_fill_(res, identity(red_op, mean));
    int64_t divisor = mean ? p->count : 0;
    /* the output's dims must be told apart by their strides: an out= whose kept dims
     * overlap (or that is not dense) gets a temporary */
    bool direct = ct_tensor_is_non_overlapping_and_dense(res);
    for (int32_t d = 0; direct && d < res->ndim; d++)
        direct = res->sizes[d] == 1 || res->strides[d] != 0;
    if (direct)
        return launch_into(red_op, name, in, p, res, acc, divisor);
    ct_tensor *tmp = NULL;
    CT_TRY(ct_tensor_empty(res->sizes, res->ndim, res->dtype, &res->device, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, &tmp));
    ct_status st = launch_into(red_op, name, in, p, tmp, acc, divisor);
    if (st == CT_OK)
        st = ct_tensor_copy_(res, tmp);
    ct_tensor_release(tmp);
    return st;
}
