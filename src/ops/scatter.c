/* gather, scatter, scatter_add and scatter_reduce (ctensor/scatter.h): PyTorch 1.13's checks
 * in its order (dim, dtypes, shapes, then the kernel's index bounds), then one
 * ct_scatter_plan over the index's positions (src/ops/scatter_kernel.c). */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/ops.h"
#include "ctensor/scatter.h"
#include "dtype/table_impl.h"
#include "ops/reduce_impl.h"
#include "ops/scatter_impl.h"
#include "tensor/tensor_impl.h"

ct_status ct_scatter_impl_check(const ct_tensor *t, const char *fn) {
    CT_TRY(ct_tensor_impl_check(t, fn));
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported", fn);
    if (t->device.type != CT_DEVICE_CPU)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet", fn,
                            ct_device_type_name(t->device.type));
    return CT_OK;
}

/* The dtypes of torch 1.13's scatter/gather/index kernels. */
ct_status ct_scatter_impl_dtype(ct_dtype dt, const char *kernel) {
    switch (dt) {
    case CT_BOOL:
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_FLOAT32:
    case CT_FLOAT64:
    case CT_COMPLEX64:
    case CT_COMPLEX128: return CT_OK;
    default:
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                            ct_dtype_impl_msg_name(dt));
    }
}

/* sizes/strides of t over nd dims, a 0-dim tensor as one element (ensure_nonempty_*). */
void ct_scatter_impl_dims(const ct_tensor *t, int64_t *sizes, int64_t *strides) {
    if (t->ndim == 0) {
        sizes[0] = 1;
        strides[0] = 0;
        return;
    }
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
}

static int64_t nonempty_dim(const ct_tensor *t) { return t->ndim == 0 ? 1 : t->ndim; }
static int64_t nonempty_size(const ct_tensor *t, int64_t d) {
    return t->ndim == 0 ? 1 : t->sizes[d];
}

/* An out= target takes r (its dtype checked, resized); r is consumed. */
ct_status ct_scatter_impl_finish(ct_tensor *r, ct_tensor *out, ct_tensor **result) {
    if (out == NULL) {
        *result = r;
        return CT_OK;
    }
    ct_status st = ct_reduce_impl_fill_out(out, r);
    ct_tensor_release(r);
    if (st == CT_OK)
        *result = ct_tensor_retain(out);
    return st;
}

ct_status ct_scatter_reduce_parse(const char *name, bool new_options, ct_scatter_mode *out) {
    if (name == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_reduce_parse: NULL argument");
    static const struct {
        const char *name;
        ct_scatter_mode r;
        bool new_option;
    } names[] = {
        {"add", CT_SCATTER_REDUCE_SUM, false},     {"multiply", CT_SCATTER_REDUCE_PROD, false},
        {"sum", CT_SCATTER_REDUCE_SUM, true},      {"prod", CT_SCATTER_REDUCE_PROD, true},
        {"mean", CT_SCATTER_REDUCE_MEAN, true},    {"amax", CT_SCATTER_REDUCE_AMAX, true},
        {"amin", CT_SCATTER_REDUCE_AMIN, true},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].new_option == new_options && strcmp(names[i].name, name) == 0) {
            *out = names[i].r;
            return CT_OK;
        }
    return ct_set_error(CT_ERR_RUNTIME, new_options
                                            ? "reduce argument must be either sum, prod, mean, "
                                              "amax or amin."
                                            : "reduce argument must be either add or multiply.");
}

/* ---- gather ------------------------------------------------------------------------------ */

ct_status ct_gather(const ct_tensor *self, int64_t dim, const ct_tensor *index, ct_tensor *out,
                    ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_gather: result is NULL");
    *result = NULL;
    if (ct_scatter_impl_stage_wanted(self, index, NULL, out))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_GATHER, .dim = dim}, self, index,
            NULL, out, result);
    CT_TRY(ct_scatter_impl_check(self, "gather"));
    CT_TRY(ct_scatter_impl_check(index, "gather"));
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, self->ndim, true, &d));
    bool empty = index->numel == 0;
    if (!empty && index->dtype != CT_INT64)
        return ct_set_error(CT_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
    if (!empty) {
        char a[256], b[256];
        int64_t nd = nonempty_dim(self);
        if (nonempty_dim(index) != nd)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Index tensor must have the same number of dimensions as input "
                                "tensor");
        for (int64_t j = 0; j < nd; j++)
            if (j != d && nonempty_size(index, j) > nonempty_size(self, j))
                return ct_set_error(
                    CT_ERR_RUNTIME,
                    "Size does not match at dimension %lld expected index %s to be smaller than "
                    "self %s apart from dimension %lld",
                    (long long)j, ct_tensor_impl_shape_format(a, sizeof a, index->sizes, index->ndim),
                    ct_tensor_impl_shape_format(b, sizeof b, self->sizes, self->ndim),
                    (long long)d);
        CT_TRY(ct_scatter_impl_dtype(self->dtype, "scatter_gather_tensor_cpu"));
    }
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_empty(index->sizes, index->ndim, self->dtype, NULL, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, &r));
    ct_status st = CT_OK;
    if (!empty) {
        ct_scatter_plan p = {.nd = nonempty_dim(index),
                             .dim = d,
                             .t = ct_tensor_data_ptr(self),
                             .tsize = nonempty_size(self, d),
                             .s = ct_tensor_data_ptr(r),
                             .ix = ct_tensor_data_ptr(index),
                             .gather = true,
                             .dtype = self->dtype,
                             .err = CT_SCATTER_ERR_GATHER,
                             .err_dim = d};
        int64_t tmp[CT_MAX_DIMS];
        ct_scatter_impl_dims(self, tmp, p.ts);
        ct_scatter_impl_dims(r, tmp, p.ss);
        ct_scatter_impl_dims(index, p.sizes, p.is);
        st = ct_scatter_impl_run(&p);
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct_scatter_impl_finish(r, out, result);
}

/* ---- scatter ----------------------------------------------------------------------------- */

/* scatter_gather_dtype_check and scatter_shape_check; *d the wrapped dim. */
static ct_status scatter_checks(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                                const ct_tensor *src, int64_t *d) {
    CT_TRY(ct_scatter_impl_check(self, "scatter"));
    CT_TRY(ct_scatter_impl_check(index, "scatter"));
    if (src != NULL)
        CT_TRY(ct_scatter_impl_check(src, "scatter"));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, self->ndim, true, d));
    if (index->numel != 0 && index->dtype != CT_INT64)
        return ct_set_error(CT_ERR_RUNTIME, "scatter(): Expected dtype int64 for index");
    if (src != NULL && src->dtype != self->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "scatter(): Expected self.dtype to be equal to src.dtype");
    if (index->numel == 0)
        return CT_OK;
    int64_t nd = nonempty_dim(self);
    if (nonempty_dim(index) != nd)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Index tensor must have the same number of dimensions as self tensor");
    bool wrong = false;
    for (int64_t j = 0; j < nd && !wrong; j++)
        wrong = j != *d && nonempty_size(index, j) > nonempty_size(self, j);
    if (src != NULL)
        for (int64_t j = 0; j < nd && !wrong && nonempty_dim(src) == nd; j++)
            wrong = nonempty_size(index, j) > nonempty_size(src, j);
    char a[256], b[256], c[256];
    ct_tensor_impl_shape_format(a, sizeof a, index->sizes, index->ndim);
    ct_tensor_impl_shape_format(b, sizeof b, self->sizes, self->ndim);
    if (src != NULL) {
        if (nonempty_dim(src) != nonempty_dim(index))
            return ct_set_error(CT_ERR_RUNTIME,
                                "Index tensor must have the same number of dimensions as src "
                                "tensor");
        if (wrong)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected index %s to be smaller than self %s apart from dimension "
                                "%lld and to be smaller size than src %s",
                                a, b, (long long)*d,
                                ct_tensor_impl_shape_format(c, sizeof c, src->sizes, src->ndim));
    } else if (wrong)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected index %s to be smaller than self %s apart from dimension "
                            "%lld",
                            a, b, (long long)*d);
    return CT_OK;
}

static ct_scatter_op op_of(ct_scatter_mode r) {
    switch (r) {
    case CT_SCATTER_REDUCE_SUM:
    case CT_SCATTER_REDUCE_MEAN: return CT_SCATTER_OP_ADD;
    case CT_SCATTER_REDUCE_PROD: return CT_SCATTER_OP_MUL;
    case CT_SCATTER_REDUCE_AMAX: return CT_SCATTER_OP_MAX;
    case CT_SCATTER_REDUCE_AMIN: return CT_SCATTER_OP_MIN;
    default: return CT_SCATTER_OP_COPY;
    }
}

/* The scatter itself, checks done (d wrapped); src NULL: *value. */
static ct_status scatter_run(ct_tensor *self, int64_t d, const ct_tensor *index,
                             const ct_tensor *src, const ct_scalar *value, ct_scatter_op op,
                             const char *kernel) {
    if (index->numel == 0)
        return CT_OK;
    CT_TRY(ct_scatter_impl_dtype(self->dtype, kernel));
    unsigned char vbuf[16] = {0};
    ct_tensor *own = NULL;
    if (src == NULL)
        CT_TRY(ct_scalar_to_dtype(*value, self->dtype, vbuf));
    else if (src->storage == self->storage) { /* read a private copy when they share memory */
        CT_TRY(ct_tensor_clone(src, CT_MEMFMT_CONTIGUOUS, &own));
        src = own;
    }
    ct_scatter_plan p = {.nd = nonempty_dim(index),
                         .dim = d,
                         .t = ct_tensor_data_ptr(self),
                         .tsize = nonempty_size(self, d),
                         .s = src != NULL ? ct_tensor_data_ptr(src) : (char *)vbuf,
                         .ix = ct_tensor_data_ptr(index),
                         .dtype = self->dtype,
                         .op = op,
                         .err = CT_SCATTER_ERR_GATHER,
                         .err_dim = d};
    int64_t tmp[CT_MAX_DIMS];
    ct_scatter_impl_dims(self, tmp, p.ts);
    ct_scatter_impl_dims(index, p.sizes, p.is);
    if (src != NULL)
        ct_scatter_impl_dims(src, tmp, p.ss); /* src has index's number of dims */
    ct_status st = ct_scatter_impl_run(&p);
    ct_tensor_release(own);
    return st;
}

ct_status ct_scatter_(ct_tensor *self, int64_t dim, const ct_tensor *index, const ct_tensor *src,
                      const ct_scalar *value, ct_scatter_mode reduce) {
    if (src == NULL && value == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_: neither src nor value");
    if (reduce != CT_SCATTER_REDUCE_NONE && reduce != CT_SCATTER_REDUCE_SUM &&
        reduce != CT_SCATTER_REDUCE_PROD)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_: reduce must be NONE, SUM or PROD");
    if (ct_scatter_impl_stage_wanted(self, index, src, NULL))
        return ct_scatter_impl_staged(&(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_SCATTER_,
                                                                .dim = dim,
                                                                .value = value,
                                                                .reduce = reduce},
                                      self, index, src, NULL, NULL);
    int64_t d;
    CT_TRY(scatter_checks(self, dim, index, src, &d));
    return scatter_run(self, d, index, src, value, op_of(reduce),
                       src != NULL ? "scatter_gather_tensor_cpu" : "scatter_gather_scalar_cpu");
}

/* A new contiguous copy of self, for the out-of-place forms. */
static ct_status fresh_copy(const ct_tensor *self, ct_tensor **r) {
    CT_TRY(ct_scatter_impl_check(self, "scatter"));
    return ct_tensor_clone(self, CT_MEMFMT_CONTIGUOUS, r);
}

ct_status ct_scatter(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                     const ct_tensor *src, const ct_scalar *value, ct_scatter_mode reduce,
                     ct_tensor *out, ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter: result is NULL");
    *result = NULL;
    if (ct_scatter_impl_stage_wanted(self, index, src, out))
        return ct_scatter_impl_staged(&(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_SCATTER,
                                                                .dim = dim,
                                                                .value = value,
                                                                .reduce = reduce},
                                      self, index, src, out, result);
    ct_tensor *r = NULL;
    CT_TRY(fresh_copy(self, &r));
    ct_status st = ct_scatter_(r, dim, index, src, value, reduce);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct_scatter_impl_finish(r, out, result);
}

ct_status ct_scatter_add_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                          const ct_tensor *src) {
    if (src == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_add_: src is NULL");
    return ct_scatter_(self, dim, index, src, NULL, CT_SCATTER_REDUCE_SUM);
}

ct_status ct_scatter_add(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                         const ct_tensor *src, ct_tensor *out, ct_tensor **result) {
    if (src == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_add: src is NULL");
    return ct_scatter(self, dim, index, src, NULL, CT_SCATTER_REDUCE_SUM, out, result);
}

/* ---- scatter_reduce ---------------------------------------------------------------------- */

/* The identity include_self=false starts from (torch 1.13's init_val). */
static ct_scalar reduce_identity(ct_scatter_mode r, ct_dtype dt) {
    bool fl = ct_dtype_is_floating_point(dt);
    switch (r) {
    case CT_SCATTER_REDUCE_PROD: return ct_scalar_int(1);
    case CT_SCATTER_REDUCE_AMAX:
        if (fl)
            return ct_scalar_float(-__builtin_inf());
        switch (dt) {
        case CT_BOOL: return ct_scalar_bool(false);
        case CT_UINT8: return ct_scalar_int(0);
        case CT_INT8: return ct_scalar_int(INT8_MIN);
        case CT_INT16: return ct_scalar_int(INT16_MIN);
        case CT_INT32: return ct_scalar_int(INT32_MIN);
        default: return ct_scalar_int(INT64_MIN);
        }
    case CT_SCATTER_REDUCE_AMIN:
        if (fl)
            return ct_scalar_float(__builtin_inf());
        switch (dt) {
        case CT_BOOL: return ct_scalar_bool(true);
        case CT_UINT8: return ct_scalar_int(UINT8_MAX);
        case CT_INT8: return ct_scalar_int(INT8_MAX);
        case CT_INT16: return ct_scalar_int(INT16_MAX);
        case CT_INT32: return ct_scalar_int(INT32_MAX);
        default: return ct_scalar_int(INT64_MAX);
        }
    default: return ct_scalar_int(0);
    }
}

/* mean: self / count, count = how many values each place took (1 for self, when included). */
static ct_status reduce_mean(ct_tensor *self, int64_t d, const ct_tensor *index,
                             bool include_self) {
    ct_tensor *count = NULL;
    ct_status st = include_self ? ct_tensor_ones_like(self, CT_INT64, NULL, CT_MEMFMT_CONTIGUOUS, &count)
                                : ct_tensor_zeros_like(self, CT_INT64, NULL, CT_MEMFMT_CONTIGUOUS, &count);
    if (st != CT_OK)
        return st;
    ct_scalar one = ct_scalar_int(1);
    st = scatter_run(count, d, index, NULL, &one, CT_SCATTER_OP_ADD, "scatter_add");
    if (st == CT_OK) {
        int64_t *c = ct_tensor_data_ptr(count);
        for (int64_t e = 0; e < count->numel; e++)
            c[e] = c[e] == 0 ? 1 : c[e];
        bool exact = ct_dtype_is_floating_point(self->dtype) || ct_dtype_is_complex(self->dtype);
        st = ct_binary_(exact ? CT_OP_DIV : CT_OP_DIV_FLOOR, self, count, ct_scalar_int(1));
    }
    ct_tensor_release(count);
    return st;
}

ct_status ct_scatter_reduce_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                             const ct_tensor *src, ct_scatter_mode reduce, bool include_self) {
    if (src == NULL || reduce == CT_SCATTER_REDUCE_NONE || reduce > CT_SCATTER_REDUCE_AMIN)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_reduce_: NULL src or invalid reduce");
    if (ct_scatter_impl_stage_wanted(self, index, src, NULL))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_SCATTER_REDUCE_,
                                      .dim = dim,
                                      .reduce = reduce,
                                      .include_self = include_self},
            self, index, src, NULL, NULL);
    int64_t d;
    CT_TRY(scatter_checks(self, dim, index, src, &d));
    if (index->numel == 0)
        return CT_OK;
    ct_dtype dt = self->dtype;
    bool cplx = dt == CT_COMPLEX64 || dt == CT_COMPLEX128;
    /* torch 1.13's order: the include_self=false initialisation, then the reduction's own
     * kernel (mean: not bool; amax / amin: not complex) */
    if (!include_self)
        CT_TRY(ct_scatter_impl_dtype(dt, "scatter_reduce_exclude_input_init"));
    const char *kernel = "scatter_gather_tensor_cpu";
    bool refused = false;
    if (reduce == CT_SCATTER_REDUCE_MEAN) {
        kernel = "scatter_gather_tensor_cpu_reduce_mean";
        refused = dt == CT_BOOL;
    } else if (reduce == CT_SCATTER_REDUCE_AMAX || reduce == CT_SCATTER_REDUCE_AMIN) {
        kernel = reduce == CT_SCATTER_REDUCE_AMAX ? "scatter_gather_tensor_cpu_reduce_amax"
                                                  : "scatter_gather_tensor_cpu_reduce_amin";
        refused = cplx;
    }
    if (refused)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                            ct_dtype_impl_msg_name(dt));
    CT_TRY(ct_scatter_impl_dtype(dt, kernel));
    if (!include_self) {
        ct_scalar init = reduce_identity(reduce, dt);
        CT_TRY(scatter_run(self, d, index, NULL, &init, CT_SCATTER_OP_COPY, "scatter"));
    }
    CT_TRY(scatter_run(self, d, index, src, NULL, op_of(reduce), "scatter_gather_tensor_cpu"));
    if (reduce == CT_SCATTER_REDUCE_MEAN)
        return reduce_mean(self, d, index, include_self);
    return CT_OK;
}

ct_status ct_scatter_reduce(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                            const ct_tensor *src, ct_scatter_mode reduce, bool include_self,
                            ct_tensor *out, ct_tensor **result) {
    if (result == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_scatter_reduce: result is NULL");
    *result = NULL;
    if (ct_scatter_impl_stage_wanted(self, index, src, out))
        return ct_scatter_impl_staged(
            &(ct_scatter_staged_args){.op = CT_SCATTER_STAGED_SCATTER_REDUCE,
                                      .dim = dim,
                                      .reduce = reduce,
                                      .include_self = include_self},
            self, index, src, out, result);
    ct_tensor *r = NULL;
    CT_TRY(fresh_copy(self, &r));
    ct_status st = ct_scatter_reduce_(r, dim, index, src, reduce, include_self);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct_scatter_impl_finish(r, out, result);
}
