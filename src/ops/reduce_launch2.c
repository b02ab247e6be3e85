/* Reductions with more than one number per accumulator on a device whose memory host code
 * cannot touch: max / min with a dim, argmax / argmin, var / std (and their means) and
 * logsumexp, one REDUCE launch each (ctensor/backend.h, CT_LAUNCH_RED_ARGMAX ..). The ops
 * (reduce.c, reduce_stats.c) decide dtypes, errors and outputs as for the cpu; this file
 * lays the operands out: the input's dims of size > 1 in reverse logical order (innermost
 * first), so that the reduced ones count an element's logical index as the arg ops need,
 * adjacent dims merged where every operand continues them. */
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

/* The launch's operands and loop: out (operand 0), in (1), out2 (2, may be NULL); out and
 * out2 have the plan's output shape. */
static void fill_geometry2(const ct_tensor *in, const ct_reduce_plan *p, const ct_tensor *out,
                           const ct_tensor *out2, ct_kernel_launch *l) {
    const ct_tensor *res[2] = {out, out2};
    int nres = out2 != NULL ? 2 : 1;
    bool keep = out->ndim == in->ndim;
    int64_t shape[CT_MAX_DIMS], sin[CT_MAX_DIMS], so[2][CT_MAX_DIMS];
    int32_t n = 0, j = out->ndim;
    for (int32_t d = in->ndim - 1; d >= 0; d--) {
        int64_t os[2] = {0, 0};
        if (!p->reduced[d] || keep) {
            j--;
            for (int k = 0; k < nres; k++)
                os[k] = p->reduced[d] ? 0 : res[k]->strides[j];
        }
        if (in->sizes[d] == 1)
            continue;
        shape[n] = in->sizes[d];
        sin[n] = in->strides[d];
        so[0][n] = p->reduced[d] ? 0 : os[0];
        so[1][n] = p->reduced[d] ? 0 : os[1];
        /* a kept dim of the output needs a nonzero stride to be told from a reduced one:
         * the core's outputs here are dense, so only size-1 dims (skipped) have stride 0 */
        n++;
    }
    int32_t m = 0;
    for (int32_t k = 0; k < n; k++) {
        bool red = so[0][k] == 0;
        if (m > 0 && red == (so[0][m - 1] == 0) && sin[k] == sin[m - 1] * shape[m - 1] &&
            so[0][k] == so[0][m - 1] * shape[m - 1] && so[1][k] == so[1][m - 1] * shape[m - 1]) {
            shape[m - 1] *= shape[k];
            continue;
        }
        shape[m] = shape[k];
        sin[m] = sin[k];
        so[0][m] = so[0][k];
        so[1][m] = so[1][k];
        m++;
    }
    l->noperands = nres == 2 ? 3 : 2;
    l->ndim = m;
    l->numel = in->numel;
    l->dtype[0] = out->dtype;
    l->dtype[1] = in->dtype;
    l->data[0] = ct_tensor_data_ptr(out);
    l->data[1] = (char *)ct_tensor_data_ptr(in);
    if (out2 != NULL) {
        l->dtype[2] = out2->dtype;
        l->data[2] = ct_tensor_data_ptr(out2);
    }
    int64_t isz = (int64_t)ct_dtype_table[in->dtype].itemsize;
    for (int32_t k = 0; k < m; k++) {
        l->shape[k] = shape[k];
        l->strides[1][k] = sin[k] * isz;
        for (int r = 0; r < nres; r++)
            l->strides[r == 0 ? 0 : 2][k] =
                so[r][k] * (int64_t)ct_dtype_table[res[r]->dtype].itemsize;
    }
}

/* Whether `t` (an output) can be written by the launch directly: dense and
 * non-overlapping, every dim of size > 1 with a nonzero stride. */
static bool direct(const ct_tensor *t) {
    bool ok = ct_tensor_is_non_overlapping_and_dense(t);
    for (int32_t d = 0; ok && d < t->ndim; d++)
        ok = t->sizes[d] == 1 || t->strides[d] != 0;
    return ok;
}

static ct_status launch2(int32_t op, const char *name, const ct_tensor *in,
                         const ct_reduce_plan *p, ct_tensor *out, ct_tensor *out2,
                         double correction, uint32_t flags) {
    ct_tensor *t[2] = {out, out2}, *tmp[2] = {NULL, NULL};
    ct_status st = CT_OK;
    for (int k = 0; k < 2 && st == CT_OK; k++)
        if (t[k] != NULL && !direct(t[k]))
            st = ct_tensor_empty(t[k]->sizes, t[k]->ndim, t[k]->dtype, &t[k]->device,
                                 CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &tmp[k]);
    ct_kernel_launch *l = NULL;
    if (st == CT_OK) {
        l = ct_alloc(sizeof *l, 64); /* 4.7 KB: not on the stack */
        if (l == NULL)
            st = ct_set_error(CT_ERR_NOMEM, "%s: out of memory", name);
    }
    if (st == CT_OK) {
        memset(l, 0, sizeof *l);
        l->kind = CT_LAUNCH_REDUCE;
        l->name = name;
        l->compute = l->math = CT_FLOAT64;
        l->acc = CT_FLOAT64;
        l->reduce_op = op;
        l->red_correction = correction;
        l->red_flags = flags;
        fill_geometry2(in, p, tmp[0] != NULL ? tmp[0] : out,
                       out2 == NULL ? NULL : tmp[1] != NULL ? tmp[1] : out2, l);
        st = ct_device_impl_launch(in->device, l);
    }
    for (int k = 0; k < 2; k++) {
        if (st == CT_OK && tmp[k] != NULL)
            st = ct_tensor_copy_(t[k], tmp[k]);
        ct_tensor_release(tmp[k]);
    }
    if (l != NULL)
        ct_free(l, sizeof *l, 64);
    return st;
}

ct_status ct_reduce_impl_launch_arg(bool is_max, const char *name, const ct_tensor *in,
                                    const ct_reduce_plan *p, ct_tensor *indices,
                                    ct_tensor *values) {
    if (p->out_numel == 0)
        return CT_OK; /* nothing to write; an empty reduced dim was refused before */
    return launch2(is_max ? CT_LAUNCH_RED_ARGMAX : CT_LAUNCH_RED_ARGMIN, name, in, p, indices,
                   values, 0.0, 0);
}

ct_status ct_reduce_impl_launch_var(const char *name, const ct_tensor *in,
                                    const ct_reduce_plan *p, double correction, bool take_sqrt,
                                    ct_tensor *res, ct_tensor *mean) {
    if (p->out_numel == 0)
        return CT_OK;
    if (in->numel == 0) { /* 0 / 0 for both, as the cpu's two passes give */
        ct_status st = ct_tensor_fill_(res, ct_scalar_float(NAN));
        if (st == CT_OK && mean != NULL)
            st = ct_tensor_fill_(mean, ct_scalar_float(NAN));
        return st;
    }
    return launch2(CT_LAUNCH_RED_VAR, name, in, p, res, mean, correction,
                   take_sqrt ? CT_LAUNCH_RED_SQRT : 0u);
}

ct_status ct_reduce_impl_launch_lse(const char *name, const ct_tensor *in,
                                    const ct_reduce_plan *p, ct_tensor *res) {
    if (p->out_numel == 0)
        return CT_OK;
    if (in->numel == 0) /* log(0) */
        return ct_tensor_fill_(res, ct_scalar_float(-INFINITY));
    return launch2(CT_LAUNCH_RED_LOGSUMEXP, name, in, p, res, NULL, 0.0, 0);
}

ct_status ct_reduce_impl_launch_nanmean(const char *name, const ct_tensor *in,
                                        const ct_reduce_plan *p, ct_tensor *res) {
    if (p->out_numel == 0)
        return CT_OK;
    if (in->numel == 0) /* 0 / 0 */
        return ct_tensor_fill_(res, ct_scalar_float(NAN));
    return launch2(CT_LAUNCH_RED_NANMEAN, name, in, p, res, NULL, 0.0, 0);
}
