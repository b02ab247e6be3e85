/* The unary ops (unary.h): one row of ctensor/unary.def each. The unary iterator (src/iter)
 * resolves dtype, device, output and overlap; the prepared kernel (src/kernels/unary.h)
 * computes each row. PyTorch's op-specific refusals (neg of bool, sign of complex, ...) come
 * first, as its meta functions check them before the iterator. */
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "ctensor/unary.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"
#include "kernels/unary.h"
#include "ops/dispatch.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

#define GRAIN 16384

typedef struct unop_spec {
    ct_iter_config cfg;
    ct_unop_sparse_mode sparse;
} unop_spec;

#define RESULT_SAME CT_ITER_RESULT_COMMON
#define RESULT_FLOAT CT_ITER_RESULT_COMMON
#define RESULT_BOOL CT_ITER_RESULT_BOOL
#define RESULT_REAL CT_ITER_RESULT_REAL
#define TO_FLOAT_SAME false
#define TO_FLOAT_FLOAT true
#define TO_FLOAT_BOOL false
#define TO_FLOAT_REAL false
#define CHECK_CAST_BOOL false
#define CHECK_CAST_SAME true
#define CHECK_CAST_FLOAT true
#define CHECK_CAST_REAL true
#define SAME_OUT_SAME true
#define SAME_OUT_FLOAT false
#define SAME_OUT_BOOL false
#define SAME_OUT_REAL true
#define CT_UNARY(E, name_, cpu_name, result_, dtypes, inplace, out, partial, sparse_)                   \
    [CT_UNOP_##E] = {.cfg = {.name = name_,                                                        \
                             .promote_inputs = false,                                              \
                             .int_to_float = TO_FLOAT_##result_,                                   \
                             .check_out_cast = CHECK_CAST_##result_,                               \
                             .allow_cpu_scalars = false,                                           \
                             .check_overlap = true,                                                \
                             .same_dtype_out = SAME_OUT_##result_,                                 \
                             .result = RESULT_##result_},                                          \
                     .sparse = CT_UNOP_SPARSE_##sparse_},
static const unop_spec SPECS[] = {
#include "ctensor/unary.def"
};
#undef CT_UNARY
_Static_assert(sizeof SPECS / sizeof SPECS[0] == CT_NUM_UNOPS, "one spec per unary row");
_Static_assert((int)CT_NUM_UNKS == (int)CT_NUM_UNOPS, "one kernel row per op row");

const char *ct_unop_name(ct_unop op) {
    return (unsigned)op < (unsigned)CT_NUM_UNOPS ? SPECS[op].cfg.name : NULL;
}

/* PyTorch's own refusals, before the iterator. */
static ct_status op_check(ct_unop op, const ct_tensor *t, bool inplace) {
    ct_dtype d = t->dtype;
    switch (op) {
    case CT_UNOP_NEG:
        if (d == CT_BOOL)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Negation, the `-` operator, on a bool tensor is not supported. "
                                "If you are trying to invert a mask, use the `~` or "
                                "`logical_not()` operator instead.");
        break;
    case CT_UNOP_POSITIVE:
        if (d == CT_BOOL)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The `+` operator, on a bool tensor is not supported.");
        break;
    case CT_UNOP_SIGN:
        if (ct_dtype_is_complex(d))
            return ct_set_error(CT_ERR_RUNTIME,
                                "Unlike NumPy, torch.sign is not intended to support complex "
                                "numbers. Please use torch.sgn instead.");
        break;
    case CT_UNOP_FLOOR:
    case CT_UNOP_CEIL:
    case CT_UNOP_TRUNC:
        if (ct_dtype_is_complex(d))
            return ct_set_error(CT_ERR_RUNTIME, "%s is not supported for complex inputs",
                                SPECS[op].cfg.name);
        break;
    case CT_UNOP_RELU: /* clamp_min(x, 0) refuses these before dispatching */
        if (d == CT_BOOL)
            return ct_set_error(CT_ERR_RUNTIME, "Boolean inputs not supported for relu");
        if (ct_dtype_is_complex(d))
            return ct_set_error(CT_ERR_RUNTIME, "clamp is not supported for complex types");
        break;
    case CT_UNOP_ABS:
        if (inplace && ct_dtype_is_complex(d))
            return ct_set_error(CT_ERR_RUNTIME,
                                "In-place abs is not supported for complex tensors.");
        break;
    default:
        break;
    }
    return CT_OK;
}

typedef struct prepared {
    ct_unop op;
    bool round_decimals;
    int64_t decimals;
    ct_unary_kernel kernel;
} prepared;

static ct_status prepare(void *ctx, const ct_iter *it) {
    prepared *p = ctx;
    /* every device chooses the kernel, so a dtype without one fails as on cpu */
    if (p->round_decimals)
        CT_TRY(ct_unary_impl_kernel_init_round(&p->kernel, p->decimals, it->common_dtype,
                                               it->dtype[0], it->dtype[1]));
    else
        CT_TRY(ct_unary_impl_kernel_init(&p->kernel, (ct_unary_kop)p->op, it->common_dtype,
                                         it->dtype[0], it->dtype[1]));
    return CT_OK;
}

/* The math dtype of a computation dtype (unary_kernel.c: float16 and bfloat16 compute in
 * float32, complex32 in complex64). */
static ct_dtype launch_math(ct_dtype compute) {
    switch (compute) {
    case CT_FLOAT16:
    case CT_BFLOAT16:
        return CT_FLOAT32;
    case CT_COMPLEX32:
        return CT_COMPLEX64;
    default:
        return compute;
    }
}

/* The op on memory host code cannot touch: one UNARY launch with what the prepared kernel
 * decided (backend.h), so the backend never calls back into the core. */
static ct_status run_launch(const ct_iter *it, const prepared *p) {
    if (it->numel == 0)
        return CT_OK;
    ct_kernel_launch *l = ct_alloc(sizeof *l, 64); /* about 4 KB: not on the stack */
    if (l == NULL)
        return CT_ERR_NOMEM;
    ct_iter_fill_launch(it, l);
    l->kind = CT_LAUNCH_UNARY;
    l->unop = (int32_t)p->op;
    l->name = SPECS[p->op].cfg.name;
    l->compute = p->kernel.compute;
    l->math = launch_math(p->kernel.compute);
    if (p->round_decimals) {
        l->flags |= CT_LAUNCH_ROUND_DECIMALS;
        l->decimals = p->decimals;
    }
    ct_status st = ct_iter_launch(it, l);
    ct_free(l, sizeof *l, 64);
    return st;
}

static int kernel_loop(void *ctx, char *const *data, const int64_t *strides, int64_t n) {
    return ct_unary_impl_kernel_run(ctx, data[0], data[1], strides[0], strides[1], n);
}

static ct_status run_once(ct_unop op, bool round_decimals, int64_t decimals,
                          const ct_tensor *t, ct_tensor *out, bool inplace, ct_tensor **result) {
    if (t->layout != CT_LAYOUT_STRIDED || (out != NULL && out->layout != CT_LAYOUT_STRIDED)) {
        /* the layer of that layout runs it (the sparse one fills the slot before it makes its
         * first tensor); round(decimals=) has no sparse kernel in PyTorch */
        ct_unop_layout_fn fn = ct_unop_impl_sparse();
        if (fn == NULL || round_decimals)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                                "Could not run 'aten::%s%s' with arguments from the '%s' backend.",
                                SPECS[op].cfg.name,
                                round_decimals ? (inplace       ? "_.decimals"
                                                  : out != NULL ? ".decimals_out"
                                                                : ".decimals")
                                               : (inplace       ? "_"
                                                  : out != NULL ? ".out"
                                                                : ""),
                                t->device.type == CT_DEVICE_META ? "SparseMeta" : "SparseCPU");
        ct_op_form form = inplace       ? CT_OP_FORM_INPLACE
                          : out != NULL ? CT_OP_FORM_OUT
                                        : CT_OP_FORM_NEW;
        return fn(op, SPECS[op].sparse, t, out, form, result);
    }
    CT_TRY(op_check(op, t, inplace));
    prepared p = {
        .op = op, .round_decimals = round_decimals && decimals != 0, .decimals = decimals};
    ct_iter it;
    CT_TRY(ct_iter_build_unary(&it, &SPECS[op].cfg, out, inplace, t, prepare, &p));
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

/* run_once through host memory (Note [Staging through host memory]): for what a device has
 * no kernel for (most complex functions, a backend's missing dtype). */
static ct_status run_staged(ct_unop op, bool round_decimals, int64_t decimals,
                            const ct_tensor *t, ct_tensor *out, bool inplace,
                            ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, SPECS[op].cfg.name);
    int kt = ct_stage_add(&s, t, out == t ? CT_STAGE_WRITTEN : 0u);
    int ko = out == t ? kt : ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = run_once(op, round_decimals, decimals, ct_stage_host(&s, kt), ct_stage_host(&s, ko),
                      inplace, result != NULL ? &h : NULL);
    return ct_stage_finish(&s, st, h, result);
}

static ct_status run(ct_unop op, bool round_decimals, int64_t decimals, const ct_tensor *t,
                     ct_tensor *out, bool inplace, ct_tensor **result) {
    ct_status st = run_once(op, round_decimals, decimals, t, out, inplace, result);
    if (st == CT_ERR_NOT_IMPLEMENTED && (ct_stage_wanted(t) || ct_stage_wanted(out)))
        st = run_staged(op, round_decimals, decimals, t, out, inplace, result);
    return st;
}

static ct_status check_op(ct_unop op, const void *t, const void *out, const char *fn) {
    if (t == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: NULL argument", fn);
    if ((unsigned)op >= (unsigned)CT_NUM_UNOPS)
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid op %d", fn, (int)op);
    return CT_OK;
}

ct_status ct_unary(ct_unop op, const ct_tensor *t, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    CT_TRY(check_op(op, t, out, "ct_unary"));
    if (op == CT_UNOP_POSITIVE) {           /* torch.positive(t) is t itself */
        if (t->layout == CT_LAYOUT_STRIDED) /* a sparse tensor is returned itself too */
            CT_TRY(ct_tensor_impl_check(t, "positive"));
        CT_TRY(op_check(op, t, false));
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    return run(op, false, 0, t, NULL, false, out);
}

ct_status ct_unary_out(ct_unop op, const ct_tensor *t, ct_tensor *out) {
    CT_TRY(check_op(op, t, out, "ct_unary_out"));
    return run(op, false, 0, t, out, false, NULL);
}

ct_status ct_unary_(ct_unop op, ct_tensor *self) {
    CT_TRY(check_op(op, self, self, "ct_unary_"));
    return run(op, false, 0, self, self, true, NULL);
}

ct_status ct_round_decimals(const ct_tensor *t, int64_t decimals, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    CT_TRY(check_op(CT_UNOP_ROUND, t, out, "ct_round_decimals"));
    return run(CT_UNOP_ROUND, true, decimals, t, NULL, false, out);
}

ct_status ct_round_decimals_out(const ct_tensor *t, int64_t decimals, ct_tensor *out) {
    CT_TRY(check_op(CT_UNOP_ROUND, t, out, "ct_round_decimals_out"));
    return run(CT_UNOP_ROUND, true, decimals, t, out, false, NULL);
}

ct_status ct_round_decimals_(ct_tensor *self, int64_t decimals) {
    CT_TRY(check_op(CT_UNOP_ROUND, self, self, "ct_round_decimals_"));
    return run(CT_UNOP_ROUND, true, decimals, self, self, true, NULL);
}
