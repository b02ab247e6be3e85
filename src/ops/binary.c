/* add, sub, mul and div (ops.h): the iterator (src/iter) resolves shapes, dtypes, devices
 * and the output; a prepared kernel (src/kernels) computes each row.
 *
 * Every call goes one of two ways:
 *  - the fast path: two cpu tensors of one dtype and one dense layout, a new result, few
 *    enough elements for one thread. Nothing about them needs deciding (no broadcast,
 *    promotion, overlap or device question), so the result is allocated with the inputs'
 *    strides and the math loop runs once, without building an iterator. This is what makes
 *    `a + b` on tiny tensors cheap.
 *  - the iterator: everything else, with the op-specific checks in its prepare hook so
 *    that they fail before an `out=` tensor is resized.
 * sub is add with -alpha, as in PyTorch, negated as PyTorch's Scalar (see negate_alpha). */
#include <stdint.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/ops.h"
#include "ctensor/reduce.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"
#include "kernels/binary.h"
#include "kernels/compare.h"
#include "ops/dispatch.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

/* Elements per thread chunk (ct_iter_run); also the fast path's upper bound. */
#define GRAIN 32768

/* One row of ctensor/ops.def, as the iterator path and the fast path need it. */
typedef struct binop_spec {
    ct_iter_config cfg;
    ct_binop op;
    bool has_alpha;    /* alpha is checked against the computation dtype and passed on */
    bool negate_alpha; /* the kernel gets -alpha (sub, rsub), and bool operands are refused */
    bool swap;         /* the operands are exchanged before anything else (rsub) */
    const char *kernel_name; /* the name in "not implemented for" errors; NULL: the kernel's */
    bool compare;      /* CT_OP_KIND_COMPARE and the classifications: bool result,
                        * src/kernels/compare.h */
    int cmp;           /* then its ct_cmp */
} binop_spec;

/* ops.def's kernel names, for the comparisons' errors */
static const char *const KERNEL_NAMES[] = {
#define CT_OP_KERNEL(E, cpu_name) [CT_BINOP_##E] = cpu_name,
#include "ctensor/ops.def"
#undef CT_OP_KERNEL
};

/* The ct_cmp of a comparison-kind kernel row (ops.def keeps eq..ge and the logical rows in
 * ct_cmp's order; compare.c asserts it). */
#define CMP_OF(k)                                                                                  \
    ((k) >= CT_BINOP_LOGICAL_AND ? (int)(k) - (int)CT_BINOP_LOGICAL_AND + (int)CT_CMP_LOGICAL_AND \
                                 : (int)(k) - (int)CT_BINOP_EQ)

/* Every row's iterator config is TensorIterator's binary op (or binary float op, when it
 * turns integers into floats); the kernels name themselves in "not implemented for" errors
 * as newest PyTorch's CPU kernels do (ops.def's kernel rows). */
#define CT_OP(E, name_, kind, kernel, alpha, negate, to_float, rounding, swap_, symbol, dunder, \
              pyfunc, partial) \
    [CT_OP_##E] = {.cfg = {.name = name_,                                                          \
                           .promote_inputs = true,                                                 \
                           .int_to_float = (to_float),                                             \
                           .check_out_cast = (kind) != CT_OP_KIND_COMPARE,                         \
                           .allow_cpu_scalars = true,                                              \
                           .check_overlap = true,                                                  \
                           .result = (kind) == CT_OP_KIND_COMPARE ? CT_ITER_RESULT_BOOL            \
                                                                  : CT_ITER_RESULT_COMMON},        \
                   .op = CT_BINOP_##kernel,                                                        \
                   .has_alpha = (alpha),                                                           \
                   .negate_alpha = (negate),                                                       \
                   .swap = (swap_),                                                                \
                   .compare = (kind) == CT_OP_KIND_COMPARE,                                \
                   .cmp = CMP_OF(CT_BINOP_##kernel)},
static const binop_spec SPECS[] = {
#include "ctensor/ops.def"
};
#undef CT_OP
_Static_assert(sizeof SPECS / sizeof SPECS[0] == CT_NUM_OPS, "one spec per op row of ops.def");

/* ops.def's rounding column, for ct_op_div. */
#define CT_OP(E, name_, kind, kernel, alpha, negate, to_float, rounding, swap_, symbol, dunder, \
              pyfunc, partial) \
    [CT_OP_##E] = CT_ROUNDING_##rounding,
static const ct_rounding_mode ROUNDING[] = {
#include "ctensor/ops.def"
};
#undef CT_OP
_Static_assert(sizeof ROUNDING / sizeof ROUNDING[0] == CT_NUM_OPS, "one mode per op row");

/* 1 / t as the unary reciprocal: PyTorch fails it under its own name (ComplexHalf). */
static const binop_spec RECIPROCAL = {.cfg = {.name = "div",
                                              .promote_inputs = true,
                                              .int_to_float = true,
                                              .check_out_cast = true,
                                              .allow_cpu_scalars = true,
                                              .check_overlap = true},
                                      .op = CT_BINOP_DIV,
                                      .kernel_name = "reciprocal_cpu"};

/* pow with a Python-number exponent: PyTorch's pow.Tensor_Scalar, a unary op on the base in
 * result_type(base, exponent) whose out= must have exactly that dtype ("Found dtype Long but
 * expected Float"), computed by the POW_SCALAR kernel (x*x for 2, sqrt for 0.5, ...). */
static const binop_spec POW_SCALAR_SPEC = {.cfg = {.name = "pow",
                                                   .promote_inputs = true,
                                                   .same_dtype_out = true,
                                                   .allow_cpu_scalars = true,
                                                   .check_overlap = true},
                                           .op = CT_BINOP_POW_SCALAR};
/* ... with a bool exponent: the dtype rules, but none of the special exponents (PyTorch's
 * Scalar(true).equal(1.0) is false: True is pow(x, 1+0j) for complex x, not a copy) */
static const binop_spec POW_BOOL_SCALAR_SPEC = {.cfg = {.name = "pow",
                                                        .promote_inputs = true,
                                                        .same_dtype_out = true,
                                                        .allow_cpu_scalars = true,
                                                        .check_overlap = true},
                                                .op = CT_BINOP_POW};

/* ---- op-specific checks -------------------------------------------------------------------- */

/* PyTorch's "Integers to negative integer powers are not allowed." of pow.Tensor_Scalar: an
 * integral (or bool) base with a negative integral exponent. */
static ct_status pow_scalar_check(const ct_tensor *base, const ct_tensor *exp) {
    if (!ct_dtype_is_integral(base->dtype, true) || exp->dtype != CT_INT64)
        return CT_OK;
    int64_t e;
    memcpy(&e, ct_tensor_data_ptr(exp), sizeof e);
    if (e < 0)
        return ct_set_error(CT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    return CT_OK;
}

/* PyTorch's pow.Tensor_Scalar converts the exponent to an integral, float16 or bfloat16
 * computation dtype with Scalar::to, which refuses values out of that dtype's range ("value
 * cannot be converted to type int8_t without overflow"); float, double and complex
 * computations take it as a double or complex double. */
static ct_status pow_scalar_range_check(const ct_tensor *base, const ct_tensor *exp) {
    ct_operand ops[2] = {
        {.dtype = base->dtype,
         .category = base->ndim > 0 ? CT_OPERAND_DIMENSIONED : CT_OPERAND_ZERO_DIM},
        {.dtype = exp->dtype, .category = CT_OPERAND_SCALAR}};
    ct_dtype common;
    if (ct_result_type(ops, 2, &common) != CT_OK)
        return CT_OK; /* the iterator reports it */
    if (!ct_dtype_is_integral(common, true) && common != CT_FLOAT16 && common != CT_BFLOAT16)
        return CT_OK;
    ct_scalar e;
    CT_TRY(ct_tensor_item(exp, &e));
    unsigned char converted[16];
    return ct_scalar_to_dtype(e, common, converted);
}

/* The spec of op(a, b): pow with a wrapped-number exponent is pow.Tensor_Scalar. */
static ct_status spec_of(ct_op op, const ct_tensor *a, const ct_tensor *b,
                         const binop_spec **spec) {
    *spec = &SPECS[op];
    if (op == CT_OP_POW && ct_tensor_is_wrapped_number(b) && !ct_tensor_is_wrapped_number(a)) {
        CT_TRY(pow_scalar_check(a, b));
        CT_TRY(pow_scalar_range_check(a, b));
        *spec = b->dtype == CT_BOOL ? &POW_BOOL_SCALAR_SPEC : &POW_SCALAR_SPEC;
    }
    return CT_OK;
}

static ct_status sub_check(const ct_tensor *a, const ct_tensor *b) {
    if (a->dtype == CT_BOOL && b->dtype == CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with two bool tensors is not "
                            "supported. Use the `^` or `logical_xor()` operator instead.");
    if (a->dtype == CT_BOOL || b->dtype == CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with a bool tensor is not supported. "
                            "If you are trying to invert a mask, use the `~` or `logical_not()` "
                            "operator instead.");
    return CT_OK;
}

/* PyTorch's alpha_check against the computation dtype (dispatch.h). */
ct_status ct_op_impl_alpha_check(ct_dtype dtype, ct_scalar alpha) {
    if ((unsigned)alpha.kind > CT_SCALAR_COMPLEX)
        return ct_set_error(CT_ERR_MISUSE, "alpha: invalid scalar kind %d", (int)alpha.kind);
    if (alpha.kind == CT_SCALAR_BOOL && dtype != CT_BOOL)
        return ct_set_error(CT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if (!ct_dtype_is_floating_point(dtype) && !ct_dtype_is_complex(dtype) &&
        !ct_scalar_is_integral(alpha, true))
        return ct_set_error(CT_ERR_RUNTIME, "For integral input tensors, argument alpha must "
                                            "not be a floating point number.");
    if (!ct_dtype_is_complex(dtype) && alpha.kind == CT_SCALAR_COMPLEX)
        return ct_set_error(CT_ERR_RUNTIME, "For non-complex input tensors, argument alpha must "
                                            "not be a complex number.");
    return CT_OK;
}

/* -alpha for sub, as PyTorch's Scalar::operator-: the int64 payload negated with
 * wrap-around, so -INT64_MIN is INT64_MIN again, also for floating and complex results
 * (sub(int32[1], 1.5, alpha=-2**63) is 1 + INT64_MIN * 1.5 = -1.38e19 there, and here).
 * A uint64 alpha is negated the same way through its int64 bits (Scalar's union: `-v.i`).
 * Bool alphas never get here: they need bool results, which sub refuses. */
static ct_scalar negate_alpha(ct_scalar alpha) {
    uint64_t bits;
    int64_t r;
    switch (alpha.kind) {
    case CT_SCALAR_INT:
        memcpy(&bits, &alpha.v.i, sizeof bits);
        bits = 0u - bits; /* two's complement, without signed overflow */
        memcpy(&r, &bits, sizeof r);
        return ct_scalar_int(r);
    case CT_SCALAR_UINT:
        bits = 0u - alpha.v.u;
        memcpy(&r, &bits, sizeof r);
        return ct_scalar_int(r);
    case CT_SCALAR_FLOAT:
        return ct_scalar_float(-alpha.v.f);
    case CT_SCALAR_COMPLEX:
        return ct_scalar_complex(-alpha.v.c.re, -alpha.v.c.im);
    default:
        return alpha;
    }
}

static bool alpha_is_one(ct_scalar alpha) {
    return alpha.kind == CT_SCALAR_INT && alpha.v.i == 1;
}

/* ---- the iterator path --------------------------------------------------------------------- */

typedef struct prepared {
    const binop_spec *spec;
    double rtol, atol; /* isclose */
    bool equal_nan;
    ct_scalar alpha;
    unsigned kernel_flags; /* CT_BINARY_B_IS_SCALAR when b is one broadcast element */
    ct_binary_kernel kernel;
    ct_compare_kernel cmp; /* comparisons */
} prepared;

static ct_status prepare(void *ctx, const ct_iter *it) {
    prepared *p = ctx;
    ct_binop kop = p->spec->op;
    if ((kop == CT_BINOP_MAXIMUM || kop == CT_BINOP_MINIMUM || kop == CT_BINOP_FMAX ||
         kop == CT_BINOP_FMIN) &&
        ct_dtype_is_complex(it->common_dtype))
        return ct_set_error(CT_ERR_RUNTIME, "%s not implemented for complex tensors.",
                            p->spec->cfg.name);
    /* PyTorch 1.13's atan2 and hypot kernels have no Half loop, its logical ops no
     * ComplexHalf loop */
    if (((kop == CT_BINOP_ATAN2 || kop == CT_BINOP_HYPOT) && it->common_dtype == CT_FLOAT16) ||
        (kop >= CT_BINOP_LOGICAL_AND && kop <= CT_BINOP_LOGICAL_XOR &&
         it->common_dtype == CT_COMPLEX32))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                            KERNEL_NAMES[kop], ct_dtype_cpp_name(it->common_dtype));
    if (p->spec->compare) {
        const char *name = p->spec->kernel_name != NULL ? p->spec->kernel_name
                                                        : KERNEL_NAMES[p->spec->op];
        /* isclose of integers and bool computes in the default dtype, as PyTorch */
        ct_dtype compute = it->common_dtype;
        if (p->spec->cmp == CT_CMP_ISCLOSE && ct_dtype_is_integral(compute, true))
            compute = ct_get_default_dtype();
        CT_TRY(ct_compare_impl_kernel_init(&p->cmp, (ct_cmp)p->spec->cmp, name, compute,
                                           it->dtype[0], it->dtype[1], it->dtype[2]));
        p->cmp.rtol = p->rtol;
        p->cmp.atol = p->atol;
        p->cmp.equal_nan = p->equal_nan;
        return CT_OK;
    }
    ct_scalar alpha = p->alpha;
    if (p->spec->has_alpha) {
        CT_TRY(ct_op_impl_alpha_check(it->common_dtype, alpha));
        if (p->spec->negate_alpha)
            alpha = negate_alpha(alpha);
    }
    /* meta tensors run nothing, but choosing the kernel is where a dtype without one is
     * refused: every device, meta included, makes that choice and fails as cpu would */
    CT_TRY(ct_binary_impl_kernel_init_ex(&p->kernel, p->spec->op, p->spec->kernel_name,
                                         it->common_dtype, it->dtype[0], it->dtype[1],
                                         it->dtype[2], alpha, p->kernel_flags));
    /* complex pow is C's cpow on the cpu, which has no device form (binary_plan2.h) */
    if ((kop == CT_BINOP_POW || kop == CT_BINOP_POW_SCALAR) &&
        ct_dtype_is_complex(it->common_dtype) && ct_iter_needs_launch(it))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "%s: complex tensors are not implemented on %s yet", p->spec->cfg.name,
                            ct_device_type_name(it->device.type));
    return CT_OK;
}

static int kernel_loop(void *ctx, char *const *data, const int64_t *strides, int64_t n) {
    return ct_binary_impl_kernel_run(ctx, data[0], data[1], data[2], strides[0], strides[1],
                                     strides[2], n);
}

static int compare_loop(void *ctx, char *const *data, const int64_t *strides, int64_t n) {
    ct_compare_impl_kernel_run(ctx, data[0], data[1], data[2], strides[0], strides[1],
                               strides[2], n);
    return 0;
}

static ct_status kernel_error(int code) {
    if (code == CT_KERNEL_ZERO_DIVISION)
        return ct_set_error(CT_ERR_RUNTIME, "ZeroDivisionError");
    return ct_set_error(CT_ERR_RUNTIME, "kernel error %d", code);
}

/* PyTorch's iter.is_scalar(2) for b: every dim where b has a stride has size 1 (b is one
 * element, or one element expanded), so b is the same element everywhere in the broadcast.
 * Newest PyTorch's float16 / bfloat16 mul and div read such a b in float32 (binary.h). */
static bool is_scalar_operand(const ct_tensor *b) {
    for (int32_t d = 0; d < b->ndim; d++)
        if (b->sizes[d] != 1 && b->strides[d] != 0)
            return false;
    return true;
}

/* The iterator's work on a device whose backend computes it (ct_iter_needs_launch): the
 * prepared kernel's choices (computation and math dtypes, alpha in the math dtype, whether b
 * is read as one scalar) go into the launch, so the backend computes what the cpu would. A
 * 0-dim cpu input (the cross-device rule lets one join) is not in the device's memory: its
 * one element is copied to a temporary on the device first. */
static ct_status run_launch(const ct_iter *it, const binop_spec *spec, const prepared *p) {
    if (it->numel == 0)
        return CT_OK;
    ct_kernel_launch *l = ct_alloc(sizeof *l, 64); /* 4.7 KB: not on the stack */
    if (l == NULL)
        return CT_ERR_NOMEM;
    ct_iter_fill_launch(it, l);
    l->kind = CT_LAUNCH_BINARY;
    l->binop = (int32_t)spec->op;
    l->name = spec->cfg.name;
    l->flags = (p->kernel_flags & CT_BINARY_B_IS_SCALAR) ? CT_LAUNCH_B_IS_SCALAR : 0u;
    if (spec->compare) {
        /* comparisons and logical ops: the compare kernel's dtypes, no alpha */
        l->compute = p->cmp.compute;
        l->math = p->cmp.math;
        l->has_alpha = false;
        /* the classifications and isclose: an EQ launch saying which (backend.h) */
        _Static_assert(CT_CMP_ISCLOSE - CT_CMP_ISNAN ==
                           CT_LAUNCH_CMP_ISCLOSE - CT_LAUNCH_CMP_ISNAN,
                       "ct_cmp's classifications are in the launch's order");
        if (spec->cmp >= CT_CMP_ISNAN && spec->cmp <= CT_CMP_ISCLOSE)
            l->cmpop = CT_LAUNCH_CMP_ISNAN + (int32_t)(spec->cmp - CT_CMP_ISNAN);
        l->cmp_rtol = p->rtol;
        l->cmp_atol = p->atol;
        l->cmp_equal_nan = p->equal_nan;
    } else {
        l->compute = p->kernel.compute;
        l->math = p->kernel.math;
        l->has_alpha = p->kernel.has_alpha;
        _Static_assert(sizeof l->alpha >= sizeof p->kernel.alpha, "alpha fits the launch");
        memcpy(l->alpha, &p->kernel.alpha, ct_dtype_table[p->kernel.math].itemsize);
    }
    ct_status st = CT_OK;
    ct_tensor *tmp[2] = {NULL, NULL};
    for (int k = 0; k < 2 && st == CT_OK; k++) {
        const ct_tensor *t = it->in[k];
        if (t->device.type == it->device.type)
            continue;
        st = ct_tensor_impl_empty_strided(NULL, NULL, 0, t->dtype, it->device, &tmp[k]);
        if (st == CT_OK)
            st = ct_device_copy(tmp[k]->device, ct_tensor_data_ptr(tmp[k]), t->device,
                                ct_tensor_data_ptr(t), ct_dtype_table[t->dtype].itemsize);
        if (st == CT_OK)
            l->data[k + 1] = ct_tensor_data_ptr(tmp[k]);
    }
    if (st == CT_OK)
        st = ct_iter_launch(it, l);
    /* (a stream-ordered backend may free the temporaries now: their reuse is ordered after
     * the launch on the same stream) */
    ct_tensor_release(tmp[0]);
    ct_tensor_release(tmp[1]);
    ct_free(l, sizeof *l, 64);
    return st;
}

/* One operation through the iterator: out NULL -> a new tensor in *result. */
static ct_status run_iter_ex(const binop_spec *spec, ct_tensor *out, bool inplace,
                             const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                             ct_tensor **result, const prepared *params) {
    /* every field starts at zero (rtol, atol, equal_nan are isclose's, unused elsewhere) */
    prepared p = {.spec = spec};
    if (params != NULL)
        p = *params;
    p.spec = spec;
    p.alpha = alpha;
    p.kernel_flags = is_scalar_operand(b) ? CT_BINARY_B_IS_SCALAR : 0u;
    ct_iter it;
    CT_TRY(ct_iter_build_binary(&it, &spec->cfg, out, inplace, a, b, prepare, &p));
    if (ct_iter_needs_launch(&it)) {
        ct_status st = run_launch(&it, spec, &p);
        if (st == CT_OK && result != NULL)
            *result = ct_iter_take_output(&it);
        ct_iter_release(&it);
        return st;
    }
    int code = spec->compare ? ct_iter_run(&it, compare_loop, &p.cmp, GRAIN)
                             : ct_iter_run(&it, kernel_loop, &p.kernel, GRAIN);
    if (code != 0) {
        ct_iter_release(&it);
        return kernel_error(code);
    }
    if (result != NULL)
        *result = ct_iter_take_output(&it);
    ct_iter_release(&it);
    return CT_OK;
}

/* run_iter_ex through host memory (Note [Staging through host memory]): for what a device
 * has no kernel for (complex pow, a backend's missing dtype). Devices were checked by the
 * attempt on the device, so a cpu operand here is one that may join (a 0-dim tensor). */
static ct_status run_iter_staged(const binop_spec *spec, ct_tensor *out, bool inplace,
                                 const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                                 ct_tensor **result, const prepared *params) {
    ct_stage s;
    ct_stage_init(&s, spec->cfg.name);
    int ka = ct_stage_add(&s, a, CT_STAGE_ANY_DEVICE | (out == a ? CT_STAGE_WRITTEN : 0u));
    int kb = ct_stage_add(&s, b, CT_STAGE_ANY_DEVICE);
    int ko = out == a ? ka : ct_stage_add(&s, out, CT_STAGE_ANY_DEVICE | CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = run_iter_ex(spec, ct_stage_host(&s, ko), inplace, ct_stage_host(&s, ka),
                         ct_stage_host(&s, kb), alpha, result != NULL ? &h : NULL, params);
    return ct_stage_finish(&s, st, h, result);
}

/* run_iter_ex, or through host memory where the device refuses */
static ct_status run_iter_params(const binop_spec *spec, ct_tensor *out, bool inplace,
                                 const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                                 ct_tensor **result, const prepared *params) {
    ct_status st = run_iter_ex(spec, out, inplace, a, b, alpha, result, params);
    if (st == CT_ERR_NOT_IMPLEMENTED &&
        (ct_stage_wanted(a) || ct_stage_wanted(b) || ct_stage_wanted(out)))
        st = run_iter_staged(spec, out, inplace, a, b, alpha, result, params);
    return st;
}

static ct_status run_iter(const binop_spec *spec, ct_tensor *out, bool inplace,
                          const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                          ct_tensor **result) {
    return run_iter_params(spec, out, inplace, a, b, alpha, result, NULL);
}

/* ---- the fast path ------------------------------------------------------------------------- */

/* Whether a and b need none of the iterator's decisions: one dtype that is its own math
 * dtype, cpu, one shape, one dense layout, and the result dtype is that dtype. */
static bool fast_ok(const binop_spec *spec, const ct_tensor *a, const ct_tensor *b) {
    if (spec->compare || a->dtype != b->dtype || a->device.type != CT_DEVICE_CPU ||
        b->device.type != CT_DEVICE_CPU || a->ndim != b->ndim || a->numel > GRAIN ||
        a->layout != CT_LAYOUT_STRIDED || b->layout != CT_LAYOUT_STRIDED)
        return false;
    if (spec->cfg.int_to_float && ct_dtype_is_integral(a->dtype, true))
        return false;
    for (int32_t d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d])
            return false;
    uint32_t both = a->flags & b->flags;
    if (a->numel == 0) /* (and its other sizes may be beyond any stride arithmetic) */
        return false;
    if (both & CT_TF_CONTIGUOUS)
        return true;
    /* channels_last pairs get freshly computed channels_last strides: the iterator's job */
    return (both & CT_TF_NON_OVERLAPPING_DENSE) && !(both & CT_TF_CL_CONTIGUOUS) &&
           memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof(int64_t)) == 0;
}

static const char *element(const ct_tensor *t, int64_t isz) {
    return (const char *)t->storage->data + t->storage_offset * isz;
}

/* +1 or -1 in a math dtype, for add's and sub's alpha. */
static ct_status unit_of(ct_dtype math, int sign, ct_kernel_value *v) {
    memset(v, 0, sizeof *v);
    switch (math) {
    case CT_INT8: v->i8 = (int8_t)sign; break;
    case CT_INT16: v->i16 = (int16_t)sign; break;
    case CT_INT32: v->i32 = sign; break;
    case CT_INT64: v->i64 = sign; break;
    /* -1 modulo 2^n, as the conversion of alpha wraps */
    case CT_UINT8: v->u8 = sign > 0 ? 1 : UINT8_MAX; break;
    case CT_UINT16: v->u16 = sign > 0 ? 1 : UINT16_MAX; break;
    case CT_UINT32: v->u32 = sign > 0 ? 1 : UINT32_MAX; break;
    case CT_UINT64: v->u64 = sign > 0 ? 1 : UINT64_MAX; break;
    case CT_FLOAT32: v->f32 = (float)sign; break;
    case CT_FLOAT64: v->f64 = sign; break;
    case CT_COMPLEX64: v->c64[0] = (float)sign; break;
    case CT_COMPLEX128: v->c128[0] = sign; break;
    default: return CT_ERR_NOT_IMPLEMENTED; /* no error set: the caller falls back */
    }
    return CT_OK;
}

/* The fast path; *handled false means "take the iterator" (nothing was done). */
static ct_status run_fast(const binop_spec *spec, const ct_tensor *a, const ct_tensor *b,
                          ct_scalar alpha, ct_tensor **result, bool *handled) {
    *handled = false;
    /* add with an alpha goes through the prepared kernel, which converts alpha */
    if ((spec->has_alpha && !alpha_is_one(alpha)) ||
        ct_binary_impl_math_dtype(a->dtype) != a->dtype)
        return CT_OK;
    ct_binary_math_loop loop = ct_binary_impl_math_loop_get(spec->op, a->dtype);
    if (loop == NULL) /* no kernel: the iterator path reports it */
        return CT_OK;
    /* sub is add with alpha -1 (bool never gets here: sub_check refused it); complex add
     * multiplies alpha * b even for alpha 1, as the prepared kernel (and PyTorch) does */
    ct_kernel_value unit, *alpha_value = NULL;
    if (spec->negate_alpha || (spec->op == CT_BINOP_ADD && ct_dtype_is_complex(a->dtype))) {
        if (unit_of(a->dtype, spec->negate_alpha ? -1 : 1, &unit) != CT_OK)
            return CT_OK;
        alpha_value = &unit;
    }
    *handled = true;
    /* The iterator's fast setup: contiguous inputs give a contiguous result (whatever strides
     * their size-1 dims have), dense ones with equal strides give those strides */
    int64_t strides[CT_MAX_DIMS];
    const int64_t *st = a->strides;
    if (a->flags & b->flags & CT_TF_CONTIGUOUS) {
        int64_t next = 1;
        for (int32_t d = a->ndim - 1; d >= 0; d--) {
            strides[d] = next;
            next *= a->sizes[d] > 1 ? a->sizes[d] : 1; /* 0 < numel <= GRAIN: no overflow */
        }
        st = strides;
    }
    /* a dense result of numel elements: no geometry left to check but the constructor's */
    int64_t isz = (int64_t)ct_dtype_table[a->dtype].itemsize;
    ct_tensor *out;
    CT_TRY(ct_tensor_impl_alloc(a->sizes, st, a->ndim, a->dtype, a->device,
                                (size_t)(a->numel * isz), spec->cfg.name, &out));
    int code = 0;
    if (a->numel > 0)
        code = loop(out->storage->data, element(a, isz), element(b, isz), isz, isz, isz, a->numel,
                    alpha_value);
    if (code != 0) {
        ct_tensor_release(out);
        return kernel_error(code);
    }
    *result = out;
    return CT_OK;
}

/* ---- entry points -------------------------------------------------------------------------- */

static ct_status check_args(const ct_tensor *a, const ct_tensor *b, const void *out,
                            const char *fn) {
    if (a == NULL || b == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    return CT_OK;
}

static bool op_valid(ct_op op) { return (unsigned)op < (unsigned)CT_NUM_OPS; }

static bool is_sparse(const ct_tensor *t) { return t->layout == CT_LAYOUT_SPARSE_COO; }

/* An op with a sparse COO operand: the sparse layer's implementation, or the refusal. */
static ct_status sparse_call(ct_op op, ct_op_form form, const ct_tensor *a, const ct_tensor *b,
                             ct_scalar alpha, ct_tensor *target, ct_tensor **out) {
    ct_op_layout_fn fn = ct_op_impl_sparse(op, form);
    if (fn == NULL)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "%s%s(): sparse COO operands are not supported%s",
                            SPECS[op].cfg.name, form == CT_OP_FORM_INPLACE ? "_" : "",
                            form == CT_OP_FORM_OUT ? " with out=" : "");
    return fn(op, a, b, alpha, target, out);
}

/* A new result (torch.op(a, b)). */
static ct_status op_new(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                        ct_tensor **out, const char *fn) {
    if (out != NULL)
        *out = NULL;
    CT_TRY(check_args(a, b, out, fn));
    if (!op_valid(op))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid op %d", fn, (int)op);
    if (is_sparse(a) || is_sparse(b))
        return sparse_call(op, CT_OP_FORM_NEW, a, b, alpha, NULL, out);
    const binop_spec *spec = &SPECS[op];
    if (spec->swap) {
        const ct_tensor *t = a;
        a = b;
        b = t;
    }
    if (spec->negate_alpha)
        CT_TRY(sub_check(a, b));
    CT_TRY(spec_of(op, a, b, &spec));
    if (fast_ok(spec, a, b)) {
        bool handled;
        ct_status st = run_fast(spec, a, b, alpha, out, &handled);
        if (handled)
            return st;
    }
    return run_iter(spec, NULL, false, a, b, alpha, out);
}

/* out= (form OUT) or self op= other (form INPLACE, out == a). */
static ct_status op_into(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                         ct_tensor *out, ct_op_form form, const char *fn) {
    CT_TRY(check_args(a, b, out, fn));
    if (!op_valid(op))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid op %d", fn, (int)op);
    if (is_sparse(a) || is_sparse(b) || is_sparse(out))
        return sparse_call(op, form, a, b, alpha, out, NULL);
    const binop_spec *spec = &SPECS[op];
    if (spec->swap) {
        /* self would be the second operand: no such in-place op in PyTorch */
        if (form == CT_OP_FORM_INPLACE)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s_(): there is no in-place form",
                                spec->cfg.name);
        const ct_tensor *t = a;
        a = b;
        b = t;
    }
    if (spec->negate_alpha)
        CT_TRY(sub_check(a, b));
    CT_TRY(spec_of(op, a, b, &spec));
    return run_iter(spec, out, form == CT_OP_FORM_INPLACE, a, b, alpha, NULL);
}

/* op(a, scalar) with the scalar as a wrapped number. */
static ct_status op_scalar(ct_op op, const ct_tensor *a, ct_scalar b, ct_scalar alpha,
                           ct_tensor **out, const char *fn) {
    if (out != NULL)
        *out = NULL;
    if (a == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    ct_tensor *w;
    CT_TRY(ct_tensor_wrapped_number(b, &w));
    ct_status st = op_new(op, a, w, alpha, out, fn);
    ct_tensor_release(w);
    return st;
}

/* ---- the op table's entry points ------------------------------------------------------------ */

const char *ct_op_name(ct_op op) { return op_valid(op) ? SPECS[op].cfg.name : NULL; }

ct_rounding_mode ct_op_rounding(ct_op op) { return op_valid(op) ? ROUNDING[op] : CT_ROUNDING_NONE; }

bool ct_op_has_alpha(ct_op op) { return op_valid(op) && SPECS[op].has_alpha; }

ct_status ct_op_div(ct_rounding_mode mode, ct_op *out) {
    for (int op = 0; op < CT_NUM_OPS; op++)
        if (strcmp(SPECS[op].cfg.name, "div") == 0 && ROUNDING[op] == mode) {
            if (out != NULL)
                *out = (ct_op)op;
            return CT_OK;
        }
    return ct_set_error(CT_ERR_MISUSE,
                        "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                        "but found rounding mode value %d",
                        (int)mode);
}

bool ct_binary_supports(ct_op op, ct_op_form form, const ct_tensor *a, const ct_tensor *b) {
    if (a == NULL || b == NULL || !op_valid(op) || (unsigned)form > CT_OP_FORM_INPLACE)
        return false;
    if (is_sparse(a) || is_sparse(b))
        return ct_op_impl_sparse(op, form) != NULL;
    return !(SPECS[op].swap && form == CT_OP_FORM_INPLACE);
}

ct_status ct_binary(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                    ct_tensor **out) {
    return op_new(op, a, b, alpha, out, "ct_binary");
}
ct_status ct_binary_out(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                        ct_tensor *out) {
    return op_into(op, a, b, alpha, out, CT_OP_FORM_OUT, "ct_binary_out");
}
ct_status ct_binary_(ct_op op, ct_tensor *self, const ct_tensor *other, ct_scalar alpha) {
    return op_into(op, self, other, alpha, self, CT_OP_FORM_INPLACE, "ct_binary_");
}

/* ---- the named ops -------------------------------------------------------------------------- */

ct_status ct_add(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor **out) {
    return op_new(CT_OP_ADD, a, b, alpha, out, "ct_add");
}
ct_status ct_add_out(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor *out) {
    return op_into(CT_OP_ADD, a, b, alpha, out, CT_OP_FORM_OUT, "ct_add_out");
}
ct_status ct_add_(ct_tensor *self, const ct_tensor *other, ct_scalar alpha) {
    return op_into(CT_OP_ADD, self, other, alpha, self, CT_OP_FORM_INPLACE, "ct_add_");
}
ct_status ct_add_scalar(const ct_tensor *a, ct_scalar b, ct_scalar alpha, ct_tensor **out) {
    return op_scalar(CT_OP_ADD, a, b, alpha, out, "ct_add_scalar");
}

ct_status ct_sub(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor **out) {
    return op_new(CT_OP_SUB, a, b, alpha, out, "ct_sub");
}
ct_status ct_sub_out(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha, ct_tensor *out) {
    return op_into(CT_OP_SUB, a, b, alpha, out, CT_OP_FORM_OUT, "ct_sub_out");
}
ct_status ct_sub_(ct_tensor *self, const ct_tensor *other, ct_scalar alpha) {
    return op_into(CT_OP_SUB, self, other, alpha, self, CT_OP_FORM_INPLACE, "ct_sub_");
}
ct_status ct_sub_scalar(const ct_tensor *a, ct_scalar b, ct_scalar alpha, ct_tensor **out) {
    return op_scalar(CT_OP_SUB, a, b, alpha, out, "ct_sub_scalar");
}

static const ct_scalar ONE = {CT_SCALAR_INT, {.i = 1}};

ct_status ct_mul(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return op_new(CT_OP_MUL, a, b, ONE, out, "ct_mul");
}
ct_status ct_mul_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    return op_into(CT_OP_MUL, a, b, ONE, out, CT_OP_FORM_OUT, "ct_mul_out");
}
ct_status ct_mul_(ct_tensor *self, const ct_tensor *other) {
    return op_into(CT_OP_MUL, self, other, ONE, self, CT_OP_FORM_INPLACE, "ct_mul_");
}
ct_status ct_mul_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out) {
    return op_scalar(CT_OP_MUL, a, b, ONE, out, "ct_mul_scalar");
}

ct_status ct_div(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    ct_op op;
    CT_TRY(ct_op_div(mode, &op));
    return op_new(op, a, b, ONE, out, "ct_div");
}
ct_status ct_div_out(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode,
                     ct_tensor *out) {
    ct_op op;
    CT_TRY(ct_op_div(mode, &op));
    return op_into(op, a, b, ONE, out, CT_OP_FORM_OUT, "ct_div_out");
}
ct_status ct_div_(ct_tensor *self, const ct_tensor *other, ct_rounding_mode mode) {
    ct_op op;
    CT_TRY(ct_op_div(mode, &op));
    return op_into(op, self, other, ONE, self, CT_OP_FORM_INPLACE, "ct_div_");
}
ct_status ct_div_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode,
                        ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    ct_op op;
    CT_TRY(ct_op_div(mode, &op));
    return op_scalar(op, a, b, ONE, out, "ct_div_scalar");
}

ct_status ct_maximum(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return op_new(CT_OP_MAXIMUM, a, b, ONE, out, "ct_maximum");
}
ct_status ct_maximum_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    return op_into(CT_OP_MAXIMUM, a, b, ONE, out, CT_OP_FORM_OUT, "ct_maximum_out");
}
ct_status ct_minimum(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return op_new(CT_OP_MINIMUM, a, b, ONE, out, "ct_minimum");
}
ct_status ct_minimum_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    return op_into(CT_OP_MINIMUM, a, b, ONE, out, CT_OP_FORM_OUT, "ct_minimum_out");
}
ct_status ct_fmax(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return op_new(CT_OP_FMAX, a, b, ONE, out, "ct_fmax");
}
ct_status ct_fmax_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    return op_into(CT_OP_FMAX, a, b, ONE, out, CT_OP_FORM_OUT, "ct_fmax_out");
}
ct_status ct_fmin(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return op_new(CT_OP_FMIN, a, b, ONE, out, "ct_fmin");
}
ct_status ct_fmin_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    return op_into(CT_OP_FMIN, a, b, ONE, out, CT_OP_FORM_OUT, "ct_fmin_out");
}

ct_status ct_rsub_scalar(const ct_tensor *t, ct_scalar value, ct_scalar alpha, ct_tensor **out) {
    return op_scalar(CT_OP_RSUB, t, value, alpha, out, "ct_rsub_scalar");
}

/* The output torch.reciprocal(t) would allocate. A unary TensorIterator sees t alone, so its
 * fast setup applies: a t that is contiguous with odd strides on size-1 dims gives plainly
 * contiguous strides, where 1 / t, with a 0-dim operand, goes the general way (t of shape
 * (1,3,1) and strides (9,1,15): (3,1,1), not (3,1,3)). As in the iterator, an int t on the
 * cpu is first converted to float (Note [Converted inputs], src/iter/strides.c), so a
 * non-dense int t is decided on its dense copy. The general path of a lone operand is
 * infer_dense_strides, i.e. empty_like's preserve format. */
static ct_status reciprocal_output(const ct_tensor *t, ct_tensor **out) {
    ct_dtype rd = (ct_dtype_is_floating_point(t->dtype) || ct_dtype_is_complex(t->dtype))
                      ? t->dtype
                      : ct_get_default_dtype();
    bool converted = rd != t->dtype && t->device.type == CT_DEVICE_CPU;
    const ct_tensor *decide = t;
    ct_tensor *copy = NULL;
    if (!ct_tensor_is_non_overlapping_and_dense(t)) {
        ct_status st = ct_tensor_empty_like(t, rd, NULL, CT_MEMFMT_PRESERVE, &copy);
        if (st != CT_OK || !converted) {
            *out = copy;
            return st;
        }
        decide = copy; /* the converted copy is dense: the fast setup may apply to it */
    }
    ct_memory_format f = ct_tensor_is_contiguous(decide, CT_MEMFMT_CONTIGUOUS)
                             ? CT_MEMFMT_CONTIGUOUS
                         : ct_tensor_is_contiguous(decide, CT_MEMFMT_CHANNELS_LAST)
                             ? CT_MEMFMT_CHANNELS_LAST
                             : CT_MEMFMT_PRESERVE;
    if (copy != NULL && f == CT_MEMFMT_PRESERVE) {
        *out = copy;
        return CT_OK;
    }
    ct_tensor_release(copy);
    /* dense t and no fast layout: the dense setup keeps t's strides, as preserve does */
    return ct_tensor_empty_like(t, rd, NULL, f, out);
}

ct_status ct_rdiv(const ct_tensor *t, const ct_tensor *other, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    if (t == NULL || other == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_rdiv: NULL argument");
    ct_tensor *one, *recip = NULL;
    CT_TRY(ct_tensor_wrapped_number(ONE, &one));
    ct_status st;
    if (t->device.type == CT_DEVICE_CPU || t->device.type == CT_DEVICE_META) {
        st = reciprocal_output(t, &recip);
        if (st == CT_OK)
            st = run_iter(&RECIPROCAL, recip, false, one, t, ONE, NULL);
        if (st != CT_OK) {
            ct_tensor_release(recip);
            recip = NULL;
        }
    } else { /* other devices keep the division's own output */
        st = run_iter(&RECIPROCAL, NULL, false, one, t, ONE, &recip);
    }
    ct_tensor_release(one);
    if (st == CT_OK) {
        st = ct_mul(recip, other, out);
        ct_tensor_release(recip);
    }
    return st;
}

ct_status ct_rdiv_scalar(const ct_tensor *t, ct_scalar value, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    if (t == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_rdiv_scalar: NULL argument");
    ct_tensor *w;
    CT_TRY(ct_tensor_wrapped_number(value, &w));
    ct_status st = ct_rdiv(t, w, out);
    ct_tensor_release(w);
    return st;
}

/* ---- comparisons ------------------------------------------------------------------------------ */

#define CT_COMPARE_NAMED(lower, E)                                                                 \
    ct_status ct_##lower(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {                \
        return op_new(CT_OP_##E, a, b, ONE, out, "ct_" #lower);                                    \
    }                                                                                              \
    ct_status ct_##lower##_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {           \
        return op_into(CT_OP_##E, a, b, ONE, out, CT_OP_FORM_OUT, "ct_" #lower "_out");            \
    }                                                                                              \
    ct_status ct_##lower##_(ct_tensor *self, const ct_tensor *other) {                             \
        return op_into(CT_OP_##E, self, other, ONE, self, CT_OP_FORM_INPLACE, "ct_" #lower "_");   \
    }                                                                                              \
    ct_status ct_##lower##_scalar(const ct_tensor *a, ct_scalar b, ct_tensor **out) {              \
        return op_scalar(CT_OP_##E, a, b, ONE, out, "ct_" #lower "_scalar");                       \
    }
CT_COMPARE_NAMED(eq, EQ)
CT_COMPARE_NAMED(ne, NE)
CT_COMPARE_NAMED(lt, LT)
CT_COMPARE_NAMED(le, LE)
CT_COMPARE_NAMED(gt, GT)
CT_COMPARE_NAMED(ge, GE)

/* ---- classifications: isnan isinf isfinite isposinf isneginf isreal ----------------------------
 * One operand, run as the comparison kernels with the operand twice (the loops read the first
 * only): the iterator sees one tensor, so the result has its shape and layout. */

#define CLASSIFY_SPEC(lower, CMP)                                                                  \
    static const binop_spec lower##_SPEC = {.cfg = {.name = #lower,                               \
                                                    .promote_inputs = true,                        \
                                                    .allow_cpu_scalars = true,                     \
                                                    .check_overlap = true,                         \
                                                    .result = CT_ITER_RESULT_BOOL},                \
                                            .op = CT_BINOP_EQ,                                     \
                                            .kernel_name = #lower,                                 \
                                            .compare = true,                                       \
                                            .cmp = CMP};
CLASSIFY_SPEC(isnan, CT_CMP_ISNAN)
CLASSIFY_SPEC(isinf, CT_CMP_ISINF)
CLASSIFY_SPEC(isfinite, CT_CMP_ISFINITE)
CLASSIFY_SPEC(isposinf, CT_CMP_ISPOSINF)
CLASSIFY_SPEC(isneginf, CT_CMP_ISNEGINF)
CLASSIFY_SPEC(isreal, CT_CMP_ISREAL)

/* `dense` / `dense_out`: the public forms, which the sparse layer runs on the values. */
static ct_status classify(const binop_spec *spec, const ct_tensor *t, ct_tensor *out,
                          ct_tensor **result, const char *fn, ct_classify_dense_fn dense,
                          ct_classify_dense_out_fn dense_out) {
    if (result != NULL)
        *result = NULL;
    if (t == NULL || (out == NULL && result == NULL))
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    if (is_sparse(t) || (out != NULL && is_sparse(out))) {
        ct_classify_layout_fn sparse = ct_classify_impl_sparse();
        if (sparse == NULL)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                                "%s(): sparse COO operands are not supported", spec->cfg.name);
        return sparse(spec->cfg.name, dense, dense_out, t, out, result);
    }
    if ((spec->cmp == CT_CMP_ISPOSINF || spec->cmp == CT_CMP_ISNEGINF)) {
        if (ct_dtype_is_complex(t->dtype))
            return ct_set_error(CT_ERR_RUNTIME, "%s does not support complex inputs.",
                                spec->cfg.name);
        if (out != NULL && out->dtype != CT_BOOL)
            return ct_set_error(CT_ERR_RUNTIME, "%s does not support non-boolean outputs.",
                                spec->cfg.name);
    }
    return run_iter(spec, out, false, t, t, ONE, result);
}

ct_status ct_isnan(const ct_tensor *t, ct_tensor **out) {
    return classify(&isnan_SPEC, t, NULL, out, "ct_isnan", ct_isnan, NULL);
}
ct_status ct_isinf(const ct_tensor *t, ct_tensor **out) {
    return classify(&isinf_SPEC, t, NULL, out, "ct_isinf", ct_isinf, NULL);
}
ct_status ct_isfinite(const ct_tensor *t, ct_tensor **out) {
    return classify(&isfinite_SPEC, t, NULL, out, "ct_isfinite", ct_isfinite, NULL);
}
ct_status ct_isposinf(const ct_tensor *t, ct_tensor **out) {
    return classify(&isposinf_SPEC, t, NULL, out, "ct_isposinf", ct_isposinf, ct_isposinf_out);
}
ct_status ct_isposinf_out(const ct_tensor *t, ct_tensor *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_isposinf_out: NULL argument");
    return classify(&isposinf_SPEC, t, out, NULL, "ct_isposinf_out", ct_isposinf, ct_isposinf_out);
}
ct_status ct_isneginf(const ct_tensor *t, ct_tensor **out) {
    return classify(&isneginf_SPEC, t, NULL, out, "ct_isneginf", ct_isneginf, ct_isneginf_out);
}
ct_status ct_isneginf_out(const ct_tensor *t, ct_tensor *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_isneginf_out: NULL argument");
    return classify(&isneginf_SPEC, t, out, NULL, "ct_isneginf_out", ct_isneginf, ct_isneginf_out);
}
ct_status ct_isreal(const ct_tensor *t, ct_tensor **out) {
    return classify(&isreal_SPEC, t, NULL, out, "ct_isreal", ct_isreal, NULL);
}

/* ---- isclose, allclose, equal ------------------------------------------------------------------ */

static const binop_spec ISCLOSE_SPEC = {.cfg = {.name = "isclose",
                                                .promote_inputs = true,
                                                .allow_cpu_scalars = true,
                                                .check_overlap = true,
                                                .result = CT_ITER_RESULT_BOOL},
                                        .op = CT_BINOP_EQ,
                                        .kernel_name = "isclose",
                                        .compare = true,
                                        .cmp = CT_CMP_ISCLOSE};

ct_status ct_isclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol,
                     bool equal_nan, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    CT_TRY(check_args(a, b, out, "ct_isclose"));
    if (is_sparse(a) || is_sparse(b))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "isclose(): sparse COO operands are not supported");
    if (a->dtype != b->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "%s did not match %s", ct_dtype_cpp_name(a->dtype),
                            ct_dtype_cpp_name(b->dtype));
    if (!(rtol >= 0))
        return ct_set_error(CT_ERR_RUNTIME,
                            "rtol must be greater than or equal to zero, but got %g", rtol);
    if (!(atol >= 0))
        return ct_set_error(CT_ERR_RUNTIME,
                            "atol must be greater than or equal to zero, but got %g", atol);
    prepared params;
    memset(&params, 0, sizeof params);
    params.rtol = rtol;
    params.atol = atol;
    params.equal_nan = equal_nan;
    return run_iter_params(&ISCLOSE_SPEC, NULL, false, a, b, ONE, out, &params);
}

/* Whether every byte of a new bool tensor is true (its memory is dense from its data). */
static ct_status all_true(const ct_tensor *t, bool *out) {
    if (t->device.type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "Could not run this operation with arguments from the 'Meta' backend");
    if (!ct_device_impl_host_accessible(t->device.type)) {
        /* (a device tensor: all() there, one element read back) */
        ct_tensor *r = NULL;
        ct_scalar v;
        CT_TRY(ct_reduce(CT_REDUCE_ALL, t, NULL, 0, false, CT_DTYPE_UNDEFINED, &r));
        ct_status st = ct_tensor_item(r, &v);
        ct_tensor_release(r);
        if (st == CT_OK)
            *out = v.v.b;
        return st;
    }
    const unsigned char *p = ct_tensor_data_ptr(t);
    for (int64_t i = 0; i < t->numel; i++)
        if (p[i] == 0) {
            *out = false;
            return CT_OK;
        }
    *out = true;
    return CT_OK;
}

ct_status ct_allclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol,
                      bool equal_nan, bool *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_allclose: NULL argument");
    ct_tensor *r = NULL;
    CT_TRY(ct_isclose(a, b, rtol, atol, equal_nan, &r));
    ct_status st = all_true(r, out);
    ct_tensor_release(r);
    return st;
}

ct_status ct_equal(const ct_tensor *a, const ct_tensor *b, bool *out) {
    if (a == NULL || b == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_equal: NULL argument");
    if (!ct_device_equal(a->device, b->device)) {
        char x[CT_DEVICE_STRING_MAX], y[CT_DEVICE_STRING_MAX];
        if (ct_device_str(a->device, x, sizeof x) != CT_OK)
            x[0] = '\0';
        if (ct_device_str(b->device, y, sizeof y) != CT_OK)
            y[0] = '\0';
        return ct_set_error(CT_ERR_RUNTIME,
                            "Cannot compare two tensors on different devices. Got: %s and %s", x,
                            y);
    }
    if (a->ndim != b->ndim ||
        (a->ndim > 0 && memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t)) != 0)) {
        *out = false;
        return CT_OK;
    }
    ct_tensor *r = NULL;
    CT_TRY(ct_eq(a, b, &r));
    ct_status st = all_true(r, out);
    ct_tensor_release(r);
    return st;
}
