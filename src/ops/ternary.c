/* The ternary ops (ternary.h): one row of ctensor/ternary.def each. The iterator (src/iter,
 * up to three inputs) resolves shapes, dtype, device, output and overlap; the prepared
 * kernel (src/kernels/ternary.h) computes each row. PyTorch's op-specific refusals come
 * first (op_check), as its meta functions check them before building the iterator. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/convert.h"
#include "ctensor/ternary.h"
#include "ctensor/warning.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"
#include "kernels/ternary.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

#define GRAIN 32768

enum { RULE_PROMOTE, RULE_WHERE, RULE_CLAMP, RULE_SAME, RULE_FILL };

/* The iterator configs of each rule: [0] the tensor overload, [1] the scalar one (wrapped
 * bounds or weight), where they differ. */
#define CFG_BASE(n) .name = n, .allow_cpu_scalars = true, .wrapped_numbers_by_value = true
#define CFG_PROMOTE(n)                                                                             \
    {CFG_BASE(n), .promote_inputs = true, .check_out_cast = true, .check_overlap = true}
#define CFG_WHERE(n)                                                                               \
    {CFG_BASE(n), .promote_inputs = true, .unpromoted_inputs = 1, .result_type_always = true,     \
     .check_overlap = true}
/* tensor bounds: TensorIterator's promotion and safe cast; scalar bounds: build_unary_op on
 * self.to(result_type), whose out= must be exactly that dtype */
#define CFG_CLAMP(n) CFG_PROMOTE(n)
#define SCFG_CLAMP(n)                                                                              \
    {CFG_BASE(n), .promote_inputs = true, .same_dtype_out = true, .check_overlap = true}
/* lerp: no promotion (op_check requires one dtype); a tensor weight's out= is exact */
#define CFG_SAME(n) {CFG_BASE(n), .same_dtype_out = true, .check_overlap = true}
#define SCFG_SAME(n) {CFG_BASE(n), .check_out_cast = true, .check_overlap = true}
/* masked_fill_ skips the overlap checks (an expanded self only warns, see fill_check) */
#define CFG_FILL(n) {CFG_BASE(n), .check_out_cast = true}
#define SCFG_PROMOTE CFG_PROMOTE
#define SCFG_WHERE CFG_WHERE
#define SCFG_FILL CFG_FILL

typedef struct terop_spec {
    ct_iter_config cfg[2];
    const char *cpu_name[2];
    int nin;
    int rule;
    bool has_value;
} terop_spec;

#define CT_TERNARY(E, name_, cpu_name_, scalar_cpu_name, nin_, rule_, dtypes, has_value_)          \
    [CT_TEROP_##E] = {.cfg = {CFG_##rule_(name_), SCFG_##rule_(name_)},                            \
                      .cpu_name = {cpu_name_, scalar_cpu_name},                                    \
                      .nin = (nin_),                                                               \
                      .rule = RULE_##rule_,                                                        \
                      .has_value = (has_value_)},
static const terop_spec SPECS[] = {
#include "ctensor/ternary.def"
};
#undef CT_TERNARY
_Static_assert(sizeof SPECS / sizeof SPECS[0] == CT_NUM_TEROPS, "one spec per ternary row");
_Static_assert((int)CT_NUM_TERKS == (int)CT_NUM_TEROPS, "one kernel row per op row");

const char *ct_terop_name(ct_terop op) {
    return (unsigned)op < (unsigned)CT_NUM_TEROPS ? SPECS[op].cfg[0].name : NULL;
}

static bool wrapped(const ct_tensor *t) {
    return t != NULL && (t->flags & CT_TF_WRAPPED_NUMBER) && t->ndim == 0;
}

/* ---- PyTorch's refusals, before the iterator ------------------------------------------------ */

static atomic_flag where_uint8_warned = ATOMIC_FLAG_INIT;

static ct_status where_check(const ct_tensor *cond) {
    if (cond->dtype == CT_UINT8) {
        /* TORCH_WARN_ONCE */
        if (!atomic_flag_test_and_set(&where_uint8_warned))
            ct_warn("where received a uint8 condition tensor. This behavior is deprecated and "
                    "will be removed in a future version of PyTorch. Use a boolean condition "
                    "instead.");
        return CT_OK;
    }
    if (cond->dtype != CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "where expected condition to be a boolean tensor, but got a tensor "
                            "with dtype %s",
                            ct_dtype_impl_msg_name(cond->dtype));
    return CT_OK;
}

/* A wrapped number's value, checked against `dtype` as PyTorch's Scalar::to<T>. */
static ct_status check_scalar_fits(const ct_tensor *t, ct_dtype dtype) {
    if (t == NULL || t->device.type == CT_DEVICE_META)
        return CT_OK;
    ct_scalar s;
    _Alignas(16) unsigned char buf[CT_TERNARY_MAX_VALUE];
    CT_TRY(ct_tensor_item(t, &s));
    return ct_scalar_to_dtype(s, dtype, buf);
}

/* clamp's scalar overload: a floating input keeps its dtype; others take the result type of
 * input and bounds. */
static ct_status clamp_scalar_dtype(const ct_tensor *x, const ct_tensor *lo, const ct_tensor *hi,
                                    ct_dtype *out) {
    if (ct_dtype_is_floating_point(x->dtype)) {
        *out = x->dtype;
        return CT_OK;
    }
    ct_result_type_state state = CT_RESULT_TYPE_STATE_INIT;
    CT_TRY(ct_result_type_update_tensor(&state, x));
    if (lo != NULL)
        CT_TRY(ct_result_type_update_tensor(&state, lo));
    if (hi != NULL)
        CT_TRY(ct_result_type_update_tensor(&state, hi));
    return ct_result_type_finish(&state, out);
}

static ct_status clamp_check(ct_terop op, const ct_tensor *x, const ct_tensor *lo,
                             const ct_tensor *hi, bool scalar, bool inplace) {
    if (ct_dtype_is_complex(x->dtype))
        return ct_set_error(CT_ERR_RUNTIME, "clamp is not supported for complex types");
    if (!scalar)
        return CT_OK;
    ct_dtype rt;
    CT_TRY(clamp_scalar_dtype(x, lo, hi, &rt));
    if (ct_dtype_is_complex(rt))
        return ct_set_error(CT_ERR_RUNTIME, "clamp is not supported for complex types");
    if (rt == CT_BOOL) /* the scalar kernels have no bool case (the tensor ones do) */
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for 'Bool'",
                            SPECS[op].cpu_name[1]);
    if (inplace && rt != x->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "result type %s can't be cast to the desired output type %s",
                            ct_dtype_impl_msg_name(rt), ct_dtype_impl_meta_name(x->dtype));
    CT_TRY(check_scalar_fits(lo, rt));
    return check_scalar_fits(hi, rt);
}

static ct_status lerp_check(const ct_tensor *s, const ct_tensor *e, const ct_tensor *w,
                            bool scalar) {
    if (e->dtype != s->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "expected dtype %s for `end` but got dtype %s",
                            ct_dtype_impl_meta_name(s->dtype), ct_dtype_impl_meta_name(e->dtype));
    if (!scalar && w->dtype != s->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "expected dtype %s for `weight` but got dtype %s",
                            ct_dtype_impl_meta_name(s->dtype), ct_dtype_impl_meta_name(w->dtype));
    return CT_OK;
}

static ct_status fill_check(const ct_tensor *self, const ct_tensor *mask, const ct_tensor *value,
                            bool inplace) {
    if (mask->dtype != CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                            ct_dtype_impl_meta_name(mask->dtype));
    if (value->ndim != 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "masked_fill_ only supports a 0-dimensional value tensor, but got "
                            "tensor with %d dimension(s).",
                            (int)value->ndim);
    CT_TRY(check_scalar_fits(value, self->dtype));
    if (inplace) {
        for (int32_t i = 0; i < self->ndim; i++) {
            if (self->strides[i] == 0 && self->sizes[i] > 1) {
                ct_warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                        "the tensor before performing this operation. This also applies to "
                        "advanced indexing e.g. tensor[mask] = scalar");
                break;
            }
        }
    }
    return CT_OK;
}

static ct_status op_check(ct_terop op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                          bool scalar, bool inplace) {
    switch (op) {
    case CT_TEROP_WHERE:
        return where_check(a);
    case CT_TEROP_CLAMP:
    case CT_TEROP_CLAMP_MIN:
    case CT_TEROP_CLAMP_MAX:
        return clamp_check(op, a, b, c, scalar, inplace);
    case CT_TEROP_LERP:
        return lerp_check(a, b, c, scalar);
    case CT_TEROP_ADDCDIV:
        if (ct_dtype_is_integral(b->dtype, true) && ct_dtype_is_integral(c->dtype, true))
            return ct_set_error(
                CT_ERR_RUNTIME,
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
        return CT_OK;
    case CT_TEROP_MASKED_FILL:
        return fill_check(a, b, c, inplace);
    default:
        return CT_OK;
    }
}

/* ---- the run ---------------------------------------------------------------------------------- */

typedef struct prepared {
    ct_terop op;
    bool scalar;
    ct_scalar value;
    ct_ternary_kernel kernel;
} prepared;

static ct_status prepare(void *ctx, const ct_iter *it) {
    prepared *p = ctx;
    const terop_spec *spec = &SPECS[p->op];
    if (p->op == CT_TEROP_WHERE && it->dtype[0] != it->common_dtype)
        return ct_set_error(CT_ERR_RUNTIME, "Expected out type to be %s but got %s",
                            ct_dtype_impl_msg_name(it->common_dtype),
                            ct_dtype_impl_msg_name(it->dtype[0]));
    /* every device chooses the kernel, so a dtype without one fails as on cpu */
    CT_TRY(ct_ternary_impl_kernel_init(&p->kernel, (ct_ternary_kop)p->op,
                                       spec->cpu_name[p->scalar ? 1 : 0], it->common_dtype,
                                       it->dtype[0], &it->dtype[1], spec->nin));
    for (int k = 0; k < spec->nin; k++)
        p->kernel.number[k] = wrapped(it->in[k]);
    if (spec->has_value) {
        _Alignas(16) unsigned char check[CT_TERNARY_MAX_VALUE];
        CT_TRY(ct_scalar_to_dtype(p->value, it->common_dtype, check));
        CT_TRY(ct_scalar_to_dtype(p->value,
                                  ct_ternary_impl_math_dtype((ct_ternary_kop)p->op,
                                                             it->common_dtype),
                                  p->kernel.value));
    }
    if (p->op == CT_TEROP_LERP && p->scalar) /* the scalar weight fits start's dtype */
        CT_TRY(check_scalar_fits(it->in[2], it->common_dtype));
    return CT_OK;
}

/* The iterator's work on a device whose backend computes it (ct_iter_needs_launch): the
 * prepared kernel's choices (computation and math dtypes, the value, which inputs are
 * Python numbers) go into a TERNARY launch, so the backend computes what the cpu would. An
 * input that is not in the device's memory (a wrapped number or a 0-dim cpu tensor) travels
 * by value, converted here as the cpu kernel converts a stride-0 input: no copy to the
 * device for clamp(x, 0, 1). */
static ct_status run_launch(const ct_iter *it, const prepared *p) {
    if (it->numel == 0)
        return CT_OK;
    ct_kernel_launch *l = ct_alloc(sizeof *l, 64); /* 4.8 KB: not on the stack */
    if (l == NULL)
        return ct_set_error(CT_ERR_NOMEM, "%s: out of memory", SPECS[p->op].cfg[0].name);
    const ct_ternary_kernel *k = &p->kernel;
    ct_iter_fill_launch(it, l);
    l->kind = CT_LAUNCH_TERNARY;
    l->terop = (int32_t)p->op;
    l->name = SPECS[p->op].cfg[0].name;
    l->compute = k->result;
    l->math = k->out_math;
    _Static_assert(sizeof l->ter_value >= sizeof k->value, "the value fits the launch");
    memcpy(l->ter_value, k->value, sizeof k->value);
    ct_status st = CT_OK;
    for (int j = 0; j < k->nin && st == CT_OK; j++) {
        if (k->number[j])
            l->ter_number |= 1u << j;
        if (it->in[j]->device.type == it->device.type)
            continue;
        /* ternary_kernel.c's MODE_ONCE: through the computation dtype unless a number */
        ct_dtype from = it->dtype[1 + j], to = k->in_math[j];
        ct_dtype via = k->number[j] ? to : k->result;
        _Alignas(16) unsigned char tmp[16];
        if (from == to || from == via || via == to) {
            st = ct_convert(to, l->ter_scalar[j], from, it->data[1 + j], 1);
        } else {
            st = ct_convert(via, tmp, from, it->data[1 + j], 1);
            if (st == CT_OK)
                st = ct_convert(to, l->ter_scalar[j], via, tmp, 1);
        }
        l->ter_by_value |= 1u << j;
        l->data[1 + j] = NULL;
    }
    if (st == CT_OK)
        st = ct_iter_launch(it, l);
    ct_free(l, sizeof *l, 64);
    return st;
}

static int kernel_loop(void *ctx, char *const *data, const int64_t *strides, int64_t n) {
    return ct_ternary_impl_kernel_run(ctx, data, strides, n);
}

/* Whether the call is the op's scalar overload. */
static bool scalar_overload(ct_terop op, const ct_tensor *b, const ct_tensor *c) {
    switch (op) {
    case CT_TEROP_CLAMP:
    case CT_TEROP_CLAMP_MIN:
    case CT_TEROP_CLAMP_MAX:
        return (b == NULL || wrapped(b)) && (c == NULL || wrapped(c));
    case CT_TEROP_LERP:
        return wrapped(c);
    default:
        return false;
    }
}

static bool is_nan_scalar(const ct_tensor *t) {
    ct_scalar s;
    return wrapped(t) && t->device.type != CT_DEVICE_META && ct_tensor_item(t, &s) == CT_OK &&
           s.kind == CT_SCALAR_FLOAT && isnan(s.v.f);
}

static ct_status run_built(ct_terop op, bool scalar, ct_tensor *out, bool inplace,
                           const ct_tensor *const *in, ct_scalar value, ct_tensor **result) {
    const terop_spec *spec = &SPECS[op];
    prepared p = {.op = op, .scalar = scalar, .value = value};
    ct_iter it;
    CT_TRY(ct_iter_build(&it, &spec->cfg[scalar ? 1 : 0], out, inplace, in, spec->nin, prepare,
                         &p));
    if (ct_iter_needs_launch(&it)) {
        ct_status st = run_launch(&it, &p);
        if (st == CT_OK && result != NULL)
            *result = ct_iter_take_output(&it);
        ct_iter_release(&it);
        return st;
    }
    (void)ct_iter_run(&it, kernel_loop, &p.kernel, GRAIN);
    if (result != NULL)
        *result = ct_iter_take_output(&it);
    ct_iter_release(&it);
    return CT_OK;
}

static ct_status run_once(ct_terop op, const ct_tensor *a, const ct_tensor *b,
                          const ct_tensor *c, ct_scalar value, ct_tensor *out, bool inplace,
                          ct_tensor **result) {
    const ct_tensor *all[4] = {a, b, c, out};
    for (int k = 0; k < 4; k++)
        if (all[k] != NULL && all[k]->layout != CT_LAYOUT_STRIDED)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s%s(): sparse COO operands are not "
                                "supported", SPECS[op].cfg[0].name, inplace ? "_" : "");
    /* clamp with one bound is clamp_min or clamp_max */
    bool one_bound_clamp = op == CT_TEROP_CLAMP && (b == NULL || c == NULL);
    if (one_bound_clamp) {
        if (b == NULL && c == NULL)
            return ct_set_error(CT_ERR_RUNTIME,
                                "torch.clamp: At least one of 'min' or 'max' must not be None");
        op = b != NULL ? CT_TEROP_CLAMP_MIN : CT_TEROP_CLAMP_MAX;
        if (b == NULL)
            b = c;
        c = NULL;
    }
    bool scalar = scalar_overload(op, b, c);
    CT_TRY(op_check(op, a, b, c, scalar, inplace));
    const ct_tensor *in[3] = {a, b, c};
    ct_tensor *bound = NULL;
    /* PyTorch's clamp with one scalar bound runs the clamp_min / clamp_max kernel, whose
     * max(x, NaN) keeps x: a NaN bound there is ignored, as an infinite one is through the
     * element function. clamp_min / clamp_max themselves (and clamp with both bounds) fill
     * the result with a NaN bound, as the element function does. */
    if (scalar && one_bound_clamp && is_nan_scalar(b)) {
        CT_TRY(ct_tensor_wrapped_number(
            ct_scalar_float(op == CT_TEROP_CLAMP_MIN ? -INFINITY : INFINITY), &bound));
        in[1] = bound;
    }
    ct_status st;
    if (op == CT_TEROP_MASKED_FILL && out == NULL) {
        /* masked_fill: self broadcast with the mask, cloned contiguous, then masked_fill_ */
        int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
        int32_t ndim;
        ct_tensor *r = NULL;
        st = ct_iter_broadcast(a, b, shape, &ndim);
        if (st == CT_OK)
            st = ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, shape, ndim, strides);
        if (st == CT_OK)
            st = ct_tensor_impl_empty_strided(shape, strides, ndim, a->dtype, a->device, &r);
        if (st == CT_OK)
            st = run_built(op, scalar, r, false, in, value, NULL);
        if (st == CT_OK)
            *result = r;
        else
            ct_tensor_release(r);
    } else {
        st = run_built(op, scalar, out, inplace, in, value, result);
    }
    ct_tensor_release(bound);
    return st;
}

/* run_once through host memory (Note [Staging through host memory]) where the device has no
 * kernel. Devices were checked by the attempt on the device, so a cpu operand here is one
 * that may join (a 0-dim tensor, a wrapped number). */
static ct_status run_staged(ct_terop op, const ct_tensor *a, const ct_tensor *b,
                            const ct_tensor *c, ct_scalar value, ct_tensor *out, bool inplace,
                            ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, SPECS[op].cfg[0].name);
    int ka = ct_stage_add(&s, a, CT_STAGE_ANY_DEVICE | (out == a ? CT_STAGE_WRITTEN : 0u));
    int kb = ct_stage_add(&s, b, CT_STAGE_ANY_DEVICE);
    int kc = ct_stage_add(&s, c, CT_STAGE_ANY_DEVICE);
    int ko = out == a ? ka : ct_stage_add(&s, out, CT_STAGE_ANY_DEVICE | CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = run_once(op, ct_stage_host(&s, ka), ct_stage_host(&s, kb), ct_stage_host(&s, kc),
                      value, ct_stage_host(&s, ko), inplace, result != NULL ? &h : NULL);
    return ct_stage_finish(&s, st, h, result);
}

static ct_status run(ct_terop op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                     ct_scalar value, ct_tensor *out, bool inplace, ct_tensor **result) {
    ct_status st = run_once(op, a, b, c, value, out, inplace, result);
    if (st == CT_ERR_NOT_IMPLEMENTED && (ct_stage_wanted(a) || ct_stage_wanted(b) ||
                                         ct_stage_wanted(c) || ct_stage_wanted(out)))
        st = run_staged(op, a, b, c, value, out, inplace, result);
    return st;
}

static ct_status check_args(ct_terop op, const ct_tensor *a, const ct_tensor *b,
                            const ct_tensor *c, const void *out, const char *fn) {
    if ((unsigned)op >= (unsigned)CT_NUM_TEROPS)
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid op %d", fn, (int)op);
    bool clamp = op == CT_TEROP_CLAMP;
    if (a == NULL || out == NULL || (b == NULL && !clamp) ||
        (c == NULL && !clamp && SPECS[op].nin == 3))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    if (SPECS[op].nin == 2 && c != NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: %s takes two tensors", fn, SPECS[op].cfg[0].name);
    return CT_OK;
}

ct_status ct_ternary(ct_terop op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                     ct_scalar value, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    CT_TRY(check_args(op, a, b, c, out, "ct_ternary"));
    return run(op, a, b, c, value, NULL, false, out);
}

ct_status ct_ternary_out(ct_terop op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                         ct_scalar value, ct_tensor *out) {
    CT_TRY(check_args(op, a, b, c, out, "ct_ternary_out"));
    return run(op, a, b, c, value, out, false, NULL);
}

ct_status ct_ternary_(ct_terop op, ct_tensor *self, const ct_tensor *b, const ct_tensor *c,
                      ct_scalar value) {
    CT_TRY(check_args(op, self, b, c, self, "ct_ternary_"));
    if (op == CT_TEROP_WHERE)
        return ct_set_error(CT_ERR_MISUSE, "ct_ternary_: where has no in-place form");
    return run(op, self, b, c, value, self, true, NULL);
}
