/* Building a binary element-wise iterator, in the order PyTorch's TensorIterator checks
 * things: overlap, broadcast shape, the output's shape, dtypes and the output-cast check,
 * devices, then the output's allocation or resize and the loop geometry (docs/elementwise.md).
 *
 * Nothing is allocated or changed before the last check has passed (the op's `prepare`
 * hook included), so a failed build leaves `out=` and in-place targets as they were. */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/compat.h"
#include "ctensor/warning.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"
#include "tensor/tensor_impl.h"

const ct_iter_config ct_iter_binary_op = {.name = "binary_op",
                                          .promote_inputs = true,
                                          .check_out_cast = true,
                                          .allow_cpu_scalars = true,
                                          .check_overlap = true,
                                          .result = CT_ITER_RESULT_COMMON};
const ct_iter_config ct_iter_binary_float_op = {.name = "binary_float_op",
                                                .promote_inputs = true,
                                                .int_to_float = true,
                                                .check_out_cast = true,
                                                .allow_cpu_scalars = true,
                                                .check_overlap = true,
                                                .result = CT_ITER_RESULT_COMMON};

static const ct_device cpu_device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

static bool same_sizes(const ct_tensor *t, const int64_t *shape, int32_t ndim) {
    return t->ndim == ndim &&
           (ndim == 0 || memcmp(t->sizes, shape, (size_t)ndim * sizeof *shape) == 0);
}

/* ---- dtype ------------------------------------------------------------------------------- */

/* One input's part in result_type. OneFlow promotes 0-dim tensors like dimensioned ones
 * (int32 tensor + int64 0-dim tensor is int64 there); Python scalars stay a lower group. */
static ct_status result_type_add(ct_result_type_state *state, const ct_tensor *t) {
    if (t->ndim == 0 && !(t->flags & CT_TF_WRAPPED_NUMBER) &&
        ct_get_compat_mode() == CT_COMPAT_ONEFLOW)
        return ct_result_type_update(state, t->dtype, CT_OPERAND_DIMENSIONED);
    return ct_result_type_update_tensor(state, t);
}

static ct_status common_dtype(const ct_iter *it, const ct_iter_config *cfg, ct_dtype *out) {
    int nin = it->ntensors - 1, first = cfg->unpromoted_inputs;
    ct_dtype common = it->in[first]->dtype;
    bool differ = false;
    for (int k = first + 1; k < nin; k++)
        differ |= it->in[k]->dtype != common;
    /* result_type only when the inputs differ: two Python floats stay float64 */
    if (cfg->promote_inputs && (differ || cfg->result_type_always)) {
        ct_result_type_state state = CT_RESULT_TYPE_STATE_INIT;
        for (int k = first; k < nin; k++)
            CT_TRY(result_type_add(&state, it->in[k]));
        CT_TRY(ct_result_type_finish(&state, &common));
    }
    if (cfg->int_to_float && ct_dtype_is_integral(common, true))
        common = ct_get_default_dtype();
    *out = common;
    return CT_OK;
}

/* The dtype of a new output given the computation dtype (config.result). */
static ct_dtype result_dtype(const ct_iter_config *cfg, ct_dtype common) {
    switch (cfg->result) {
    case CT_ITER_RESULT_BOOL:
        return CT_BOOL;
    case CT_ITER_RESULT_REAL:
        return common == CT_COMPLEX64    ? CT_FLOAT32
               : common == CT_COMPLEX128 ? CT_FLOAT64
               : common == CT_COMPLEX32  ? CT_FLOAT16
                                         : common;
    default:
        return common;
    }
}

/* The output-dtype check of an out= or in-place target. */
static ct_status check_output_dtype(const ct_iter_config *cfg, bool inplace, ct_dtype common,
                                    ct_dtype out) {
    if (inplace && ct_get_compat_mode() == CT_COMPAT_ONEFLOW && common != out) {
        /* OneFlow's in-place ops never cast (CheckInplaceCastValid), with its dtype names */
        return ct_set_error(CT_ERR_RUNTIME,
                            "result type oneflow.%s can't be cast to the desired output type "
                            "oneflow.%s",
                            ct_dtype_name(common), ct_dtype_name(out));
    }
    ct_dtype result = result_dtype(cfg, common);
    /* abs of a complex tensor casts its real result to the output like a float op */
    bool same = cfg->same_dtype_out &&
                !(cfg->result == CT_ITER_RESULT_REAL && ct_dtype_is_complex(common));
    if (same && result != out)
        return ct_set_error(CT_ERR_RUNTIME, "Found dtype %s but expected %s",
                            ct_dtype_cpp_name(out), ct_dtype_cpp_name(result));
    if (cfg->check_out_cast && result != out)
        return ct_check_output_cast(result, out);
    return CT_OK;
}

/* ---- devices ----------------------------------------------------------------------------- */

static ct_status device_mismatch(ct_device common, ct_device other) {
    char x[CT_DEVICE_STRING_MAX], y[CT_DEVICE_STRING_MAX];
    if (ct_device_str(common, x, sizeof x) != CT_OK)
        x[0] = '\0';
    if (ct_device_str(other, y, sizeof y) != CT_OK)
        y[0] = '\0';
    return ct_set_error(CT_ERR_RUNTIME,
                        "Expected all tensors to be on the same device, but found at least two "
                        "devices, %s and %s!",
                        x, y);
}

/* Common device, device checks and the output-dtype check, interleaved per operand as
 * PyTorch does (outputs first), so the first failing operand names the error. */
static ct_status check_devices(ct_iter *it, const ct_iter_config *cfg, const ct_tensor *out,
                               bool inplace) {
    int nt = it->ntensors;
    const ct_tensor *ops[CT_ITER_MAX_OPERANDS] = {out};
    for (int k = 1; k < nt; k++)
        ops[k] = it->in[k - 1];
    ct_device common = cpu_device;
    for (int k = 0; k < nt; k++) {
        if (ops[k] != NULL && ops[k]->device.type != CT_DEVICE_CPU) {
            common = ops[k]->device;
            break;
        }
    }
    int cpu_scalars = 0;
    for (int k = 0; k < nt; k++) {
        const ct_tensor *t = ops[k];
        if (t == NULL)
            continue;
        if (k > 0 && cfg->wrapped_numbers_by_value && (t->flags & CT_TF_WRAPPED_NUMBER) &&
            t->ndim == 0 && t->device.type == CT_DEVICE_CPU) {
            /* a Scalar argument: read by value wherever the op runs */
        } else if (k > 0 && common.type != CT_DEVICE_CPU && cfg->allow_cpu_scalars &&
                   t->ndim == 0 && t->device.type == CT_DEVICE_CPU) {
            if (cpu_scalars++ > 0)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "Trying to pass too many CPU scalars to non-CPU kernel!");
        } else if (!ct_device_equal(t->device, common)) {
            return device_mismatch(common, t->device);
        }
        if (k == 0)
            CT_TRY(check_output_dtype(cfg, inplace, it->common_dtype, t->dtype));
    }
    it->device = common;
    it->is_meta = common.type == CT_DEVICE_META;
    /* memory host code cannot touch needs the backend's own kernels (a launch slot) */
    if (!it->is_meta && !ct_device_impl_host_accessible(common.type) &&
        !ct_device_impl_has_launch(common.type))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: no kernels for device type %s",
                            cfg->name, ct_device_type_name(common.type));
    return CT_OK;
}

/* ---- the output ------------------------------------------------------------------------------ */

/* Allocate or resize the output (fast setup, else the general path), then lay out the loop. */
static ct_status make_output(ct_iter *it, ct_tensor *out, bool will_resize) {
    /* the inputs as the layout decisions see them (Note [Converted inputs], strides.c) */
    int nin = it->ntensors - 1;
    ct_tensor views[CT_ITER_MAX_INPUTS];
    int64_t view_strides[CT_ITER_MAX_INPUTS][CT_MAX_DIMS];
    const ct_tensor *in[CT_ITER_MAX_INPUTS];
    bool converted = false, same_shape = true;
    for (int k = 0; k < nin; k++) {
        CT_TRY(ct_iter_decision_input_k(it, k, &views[k], view_strides[k], &in[k]));
        converted |= in[k] != it->in[k];
        same_shape &= same_sizes(in[k], in[0]->sizes, in[0]->ndim);
    }
    const ct_tensor *given = (out != NULL && !will_resize) ? out : NULL;
    ct_iter_setup setup = CT_ITER_SETUP_NONE;
    /* fast setup needs every input at the broadcast shape (no 0-dim mixed with n-dim) */
    if (same_shape)
        setup = ct_iter_fast_setup(given, in, nin);
    int32_t perm[CT_MAX_DIMS];
    const int32_t *order = NULL;
    if (setup == CT_ITER_SETUP_NONE) {
        ct_iter_permutation(it, given, in, nin, perm);
        order = perm;
    }
    if (given != NULL) {
        it->out = ct_tensor_retain(out);
    } else {
        int64_t strides[CT_MAX_DIMS];
        CT_TRY(ct_iter_output_strides(it, setup, in[nin - 1], order, strides));
        if (out == NULL) {
            CT_TRY(ct_tensor_impl_empty_strided(it->shape_user, strides, it->ndim_shape,
                                                result_dtype(it->config, it->common_dtype),
                                                it->device, &it->out));
            it->out_allocated = true;
        } else {
            int64_t old[CT_MAX_DIMS];
            int32_t old_ndim = out->ndim;
            int64_t old_numel = out->numel;
            if (old_ndim > 0)
                memcpy(old, out->sizes, (size_t)old_ndim * sizeof *old);
            CT_TRY(ct_tensor_impl_resize(out, it->shape_user, it->ndim_shape, strides));
            if (old_numel > 0)
                ct_tensor_impl_warn_out_resized(old, old_ndim, it->shape_user, it->ndim_shape);
            it->out = ct_tensor_retain(out);
            it->out_resized = true;
        }
    }
    if (order == NULL && converted) {
        /* The fast setup was decided on a converted copy's strides, but the input is read in
         * place with its own (an expanded int input, say), so one flat dim cannot cover it:
         * lay the loop out in the output's order instead. */
        ct_iter_permutation(it, it->out, in, nin, perm);
        order = perm;
    }
    it->dtype[0] = it->out->dtype;
    ct_iter_geometry(it, order);
    return CT_OK;
}

/* ---- the build ------------------------------------------------------------------------------ */

ct_status ct_iter_build(ct_iter *it, const ct_iter_config *cfg, ct_tensor *out, bool inplace,
                        const ct_tensor *const *in, int nin, ct_iter_prepare prepare,
                        void *prepare_ctx) {
    if (it == NULL || cfg == NULL || in == NULL)
        return ct_set_error(CT_ERR_MISUSE, "element-wise iterator: NULL argument");
    if (nin < 1 || nin > CT_ITER_MAX_INPUTS || cfg->unpromoted_inputs < 0 ||
        cfg->unpromoted_inputs >= nin)
        return ct_set_error(CT_ERR_MISUSE, "element-wise iterator: %d inputs", nin);
    it->ntensors = 1 + nin;
    it->config = cfg;
    it->out = NULL;
    it->out_allocated = it->out_resized = it->is_meta = false;
    it->ndim = 0;
    for (int k = 0; k < nin; k++) {
        it->in[k] = in[k];
        CT_TRY(ct_tensor_impl_check(in[k], cfg->name));
    }
    if (out != NULL)
        CT_TRY(ct_tensor_impl_check(out, cfg->name));
    if (inplace && out != in[0])
        return ct_set_error(CT_ERR_MISUSE, "%s: an in-place output must be the first input",
                            cfg->name);

    /* 1. overlap */
    if (cfg->check_overlap && out != NULL) {
        CT_TRY(ct_iter_check_internal_overlap(out));
        for (int k = 0; k < nin; k++)
            if (in[k] != out)
                CT_TRY(ct_iter_check_partial_overlap(out, in[k]));
    }
    /* 2. broadcast, folded from the left as PyTorch's infer_size */
    it->ndim_shape = in[0]->ndim;
    if (in[0]->ndim > 0)
        memcpy(it->shape_user, in[0]->sizes, (size_t)in[0]->ndim * sizeof(int64_t));
    for (int k = 1; k < nin; k++)
        CT_TRY(ct_iter_broadcast_sizes(it->shape_user, it->ndim_shape, in[k]->sizes,
                                       in[k]->ndim, it->shape_user, &it->ndim_shape));
    /* (a (2^40, 1) + b (1, 2^40) has too many elements to count) */
    CT_TRY(ct_tensor_impl_shape_numel(it->shape_user, it->ndim_shape, &it->numel));
    /* 3. the output's shape: out= tensors are resized, read-write ones cannot be */
    bool will_resize = false;
    if (out != NULL && !same_sizes(out, it->shape_user, it->ndim_shape)) {
        bool is_input = false;
        for (int k = 0; k < nin; k++)
            is_input |= out == in[k];
        if (is_input) {
            char have[256], want[256];
            return ct_set_error(
                CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                ct_tensor_impl_shape_format(have, sizeof have, out->sizes, out->ndim),
                ct_tensor_impl_shape_format(want, sizeof want, it->shape_user, it->ndim_shape));
        }
        will_resize = true;
    }
    /* 4. dtypes; 5. devices with the output-dtype check */
    CT_TRY(common_dtype(it, cfg, &it->common_dtype));
    CT_TRY(check_devices(it, cfg, out, inplace));
    it->dtype[0] = out != NULL ? out->dtype : result_dtype(cfg, it->common_dtype);
    for (int k = 0; k < nin; k++)
        it->dtype[k + 1] = in[k]->dtype;
    if (prepare != NULL)
        CT_TRY(prepare(prepare_ctx, it));
    /* 6. allocate or resize the output; the loop geometry */
    return make_output(it, out, will_resize);
}

ct_status ct_iter_build_binary(ct_iter *it, const ct_iter_config *cfg, ct_tensor *out, bool inplace,
                               const ct_tensor *a, const ct_tensor *b, ct_iter_prepare prepare,
                               void *prepare_ctx) {
    const ct_tensor *in[2] = {a, b};
    return ct_iter_build(it, cfg, out, inplace, in, 2, prepare, prepare_ctx);
}

ct_status ct_iter_build_unary(ct_iter *it, const ct_iter_config *cfg, ct_tensor *out, bool inplace,
                              const ct_tensor *a, ct_iter_prepare prepare, void *prepare_ctx) {
    /* a op a: the same broadcast shape, dtype and layout decisions as `a` alone; the
     * overlap check of `a` runs twice, harmlessly */
    CT_TRY(ct_iter_build_binary(it, cfg, out, inplace, a, a, prepare, prepare_ctx));
    it->ntensors = 2;
    return CT_OK;
}

void ct_iter_release(ct_iter *it) {
    if (it == NULL)
        return;
    ct_tensor_release(it->out);
    it->out = NULL;
}

ct_tensor *ct_iter_take_output(ct_iter *it) {
    ct_tensor *t = it->out;
    it->out = NULL;
    return t;
}

/* ---- launches on a backend's own memory -------------------------------------------------- */

bool ct_iter_needs_launch(const ct_iter *it) {
    return !it->is_meta && !ct_device_impl_host_accessible(it->device.type);
}

void ct_iter_fill_launch(const ct_iter *it, ct_kernel_launch *l) {
    _Static_assert(CT_LAUNCH_MAX_DIMS >= CT_MAX_DIMS, "a launch holds every iterator geometry");
    /* every operand of the iterator: an output and up to three inputs (ternary ops) */
    _Static_assert(CT_LAUNCH_MAX_OPERANDS >= 1 + CT_ITER_MAX_INPUTS,
                   "a launch holds every operand of an iterator");
    memset(l, 0, sizeof *l);
    l->noperands = it->ntensors < CT_LAUNCH_MAX_OPERANDS ? it->ntensors : CT_LAUNCH_MAX_OPERANDS;
    l->ndim = it->ndim;
    l->numel = it->numel;
    for (int k = 0; k < l->noperands; k++) {
        l->dtype[k] = it->dtype[k];
        l->data[k] = it->data[k];
        if (it->ndim > 0)
            memcpy(l->strides[k], it->strides[k], (size_t)it->ndim * sizeof(int64_t));
    }
    if (it->ndim > 0)
        memcpy(l->shape, it->shape, (size_t)it->ndim * sizeof(int64_t));
    l->compute = l->math = it->common_dtype;
}

ct_status ct_iter_launch(const ct_iter *it, const ct_kernel_launch *l) {
    if (it->is_meta || it->numel == 0)
        return CT_OK;
    return ct_device_impl_launch(it->device, l);
}
