/* The ternary ops of ctensor/ternary.def in Python, with torch's signatures:
 *   where(condition, input, other, *, out=None)     Tensor.where(condition, other)
 *   clamp(input, min=None, max=None, *, out=None)   (clip; Tensor.clamp, clamp_, clip, clip_;
 *     the functions clamp_, clip_, clamp_min_, clamp_max_ of the torch namespace)
 *     min and max both tensors (or None) or both numbers (or None), as torch's two overloads
 *   clamp_min(input, min, *, out=None)              clamp_max(input, max, *, out=None)
 *   lerp(input, end, weight, *, out=None)           weight a Tensor or a number
 *   addcmul(input, tensor1, tensor2, *, value=1, out=None)     (addcdiv)
 *   masked_fill(input, mask, value)                 Tensor.masked_fill, masked_fill_
 * Python numbers become wrapped numbers (ct_tensor_wrapped_number), so the C layer sees
 * torch's scalar overloads. A thin skin: every call is one ct_ternary / ct_ternary_out /
 * ct_ternary_ call. where(condition) is torch's nonzero(condition, as_tuple=True). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ctensor/ternary.h"
#include "ctensor_py.h"

#define TEN CTP_PARAM_TENSOR
#define NUM CTP_PARAM_NUMBER
#define TON CTP_PARAM_TENSOR_OR_NUMBER

/* The Python parameter names of operands a, b, c of each row (ternary.h's order). */
static const char *const OPERANDS[CT_NUM_TEROPS][3] = {
    [CT_TEROP_WHERE] = {"condition", "input", "other"},
    [CT_TEROP_CLAMP] = {"input", "min", "max"},
    [CT_TEROP_CLAMP_MIN] = {"input", "min", NULL},
    [CT_TEROP_CLAMP_MAX] = {"input", "max", NULL},
    [CT_TEROP_LERP] = {"input", "end", "weight"},
    [CT_TEROP_ADDCMUL] = {"input", "tensor1", "tensor2"},
    [CT_TEROP_ADDCDIV] = {"input", "tensor1", "tensor2"},
    [CT_TEROP_MASKED_FILL] = {"input", "mask", "value"},
};

/* ---- signatures: functions (with input and out=), methods (self is input) --------------- */
static const ctp_signature f_where[] = {
    {4, {{TEN, "condition"}, {TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
    {1, {{TEN, "condition"}}},
};
static const ctp_signature m_where[] = {{2, {{TEN, "condition"}, {TON, "other"}}}};
static const ctp_signature f_clamp[] = {
    {4, {{TEN, "input"}, {TEN, "min=None"}, {TEN, "max=None"}, {TEN, "*out=None"}}},
    {4, {{TEN, "input"}, {NUM, "min=None"}, {NUM, "max=None"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_clamp[] = {
    {2, {{TEN, "min=None"}, {TEN, "max=None"}}},
    {2, {{NUM, "min=None"}, {NUM, "max=None"}}},
};
static const ctp_signature f_clamp_min[] = {
    {3, {{TEN, "input"}, {TEN, "min"}, {TEN, "*out=None"}}},
    {3, {{TEN, "input"}, {NUM, "min"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_clamp_min[] = {{1, {{TEN, "min"}}}, {1, {{NUM, "min"}}}};
static const ctp_signature f_clamp_max[] = {
    {3, {{TEN, "input"}, {TEN, "max"}, {TEN, "*out=None"}}},
    {3, {{TEN, "input"}, {NUM, "max"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_clamp_max[] = {{1, {{TEN, "max"}}}, {1, {{NUM, "max"}}}};
/* the Tensor overload first, as torch's parser tries them: a 0-dim weight is a Tensor */
static const ctp_signature f_lerp[] = {
    {4, {{TEN, "input"}, {TEN, "end"}, {TEN, "weight"}, {TEN, "*out=None"}}},
    {4, {{TEN, "input"}, {TEN, "end"}, {NUM, "weight"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_lerp[] = {
    {2, {{TEN, "end"}, {TEN, "weight"}}},
    {2, {{TEN, "end"}, {NUM, "weight"}}},
};
static const ctp_signature f_addc[] = {
    {5, {{TEN, "input"}, {TEN, "tensor1"}, {TEN, "tensor2"}, {NUM, "*value=1"},
         {TEN, "out=None"}}},
};
static const ctp_signature m_addc[] = {
    {3, {{TEN, "tensor1"}, {TEN, "tensor2"}, {NUM, "*value=1"}}},
};
/* a value tensor of any rank reaches the C layer, which names the 0-dim rule */
static const ctp_signature f_fill[] = {
    {3, {{TEN, "input"}, {TEN, "mask"}, {TEN, "value"}}},
    {3, {{TEN, "input"}, {TEN, "mask"}, {NUM, "value"}}},
};
static const ctp_signature m_fill[] = {
    {2, {{TEN, "mask"}, {TEN, "value"}}},
    {2, {{TEN, "mask"}, {NUM, "value"}}},
};

/* torch.clamp_(input, ...) and the like: the in-place forms' functions (no out=) */
static const ctp_signature fi_clamp[] = {
    {3, {{TEN, "input"}, {TEN, "min=None"}, {TEN, "max=None"}}},
    {3, {{TEN, "input"}, {NUM, "min=None"}, {NUM, "max=None"}}},
};
static const ctp_signature fi_clamp_min[] = {
    {2, {{TEN, "input"}, {TEN, "min"}}},
    {2, {{TEN, "input"}, {NUM, "min"}}},
};
static const ctp_signature fi_clamp_max[] = {
    {2, {{TEN, "input"}, {TEN, "max"}}},
    {2, {{TEN, "input"}, {NUM, "max"}}},
};

/* FORM_INPLACE_FUNCTION: ctensor.<name>_(input, ...), the in-place form on its input */
enum { FORM_FUNCTION, FORM_METHOD, FORM_INPLACE, FORM_INPLACE_FUNCTION };

typedef struct ter_entry {
    const char *name;
    ct_terop op;
    int form;
    const ctp_signature *sigs;
    int nsigs;
} ter_entry;

#define SIGS(s) s, (int)(sizeof s / sizeof s[0])
static const ter_entry ENTRIES[] = {
    {"where", CT_TEROP_WHERE, FORM_FUNCTION, SIGS(f_where)},
    {"where", CT_TEROP_WHERE, FORM_METHOD, SIGS(m_where)},
    {"clamp", CT_TEROP_CLAMP, FORM_FUNCTION, SIGS(f_clamp)},
    {"clamp", CT_TEROP_CLAMP, FORM_METHOD, SIGS(m_clamp)},
    {"clamp_", CT_TEROP_CLAMP, FORM_INPLACE, SIGS(m_clamp)},
    {"clip", CT_TEROP_CLAMP, FORM_FUNCTION, SIGS(f_clamp)},
    {"clip", CT_TEROP_CLAMP, FORM_METHOD, SIGS(m_clamp)},
    {"clip_", CT_TEROP_CLAMP, FORM_INPLACE, SIGS(m_clamp)},
    {"clamp_min", CT_TEROP_CLAMP_MIN, FORM_FUNCTION, SIGS(f_clamp_min)},
    {"clamp_min", CT_TEROP_CLAMP_MIN, FORM_METHOD, SIGS(m_clamp_min)},
    {"clamp_min_", CT_TEROP_CLAMP_MIN, FORM_INPLACE, SIGS(m_clamp_min)},
    {"clamp_max", CT_TEROP_CLAMP_MAX, FORM_FUNCTION, SIGS(f_clamp_max)},
    {"clamp_max", CT_TEROP_CLAMP_MAX, FORM_METHOD, SIGS(m_clamp_max)},
    {"clamp_max_", CT_TEROP_CLAMP_MAX, FORM_INPLACE, SIGS(m_clamp_max)},
    {"lerp", CT_TEROP_LERP, FORM_FUNCTION, SIGS(f_lerp)},
    {"lerp", CT_TEROP_LERP, FORM_METHOD, SIGS(m_lerp)},
    {"lerp_", CT_TEROP_LERP, FORM_INPLACE, SIGS(m_lerp)},
    {"addcmul", CT_TEROP_ADDCMUL, FORM_FUNCTION, SIGS(f_addc)},
    {"addcmul", CT_TEROP_ADDCMUL, FORM_METHOD, SIGS(m_addc)},
    {"addcmul_", CT_TEROP_ADDCMUL, FORM_INPLACE, SIGS(m_addc)},
    {"addcdiv", CT_TEROP_ADDCDIV, FORM_FUNCTION, SIGS(f_addc)},
    {"addcdiv", CT_TEROP_ADDCDIV, FORM_METHOD, SIGS(m_addc)},
    {"addcdiv_", CT_TEROP_ADDCDIV, FORM_INPLACE, SIGS(m_addc)},
    {"masked_fill", CT_TEROP_MASKED_FILL, FORM_FUNCTION, SIGS(f_fill)},
    {"masked_fill", CT_TEROP_MASKED_FILL, FORM_METHOD, SIGS(m_fill)},
    {"masked_fill_", CT_TEROP_MASKED_FILL, FORM_INPLACE, SIGS(m_fill)},
    {"clamp_", CT_TEROP_CLAMP, FORM_INPLACE_FUNCTION, SIGS(fi_clamp)},
    {"clip_", CT_TEROP_CLAMP, FORM_INPLACE_FUNCTION, SIGS(fi_clamp)},
    {"clamp_min_", CT_TEROP_CLAMP_MIN, FORM_INPLACE_FUNCTION, SIGS(fi_clamp_min)},
    {"clamp_max_", CT_TEROP_CLAMP_MAX, FORM_INPLACE_FUNCTION, SIGS(fi_clamp_max)},
};
#define NUM_ENTRIES (int)(sizeof ENTRIES / sizeof ENTRIES[0])

/* An operand: a Tensor (borrowed), a number (a wrapped number, owned), or absent (NULL).
 * A 0-dim tensor given for a Number parameter is that number, as torch's Scalar overloads
 * take it (clamp(x, tensor(1.5, dtype=float64), 4) computes in x's float type). */
static int operand_of(PyObject *obj, const ctp_param *param, ct_tensor **t, ct_tensor **owned) {
    *t = NULL;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (ctp_tensor_check(obj) && param->kind != NUM) {
        *t = ctp_tensor_get(obj);
        return 0;
    }
    ct_scalar s;
    if (ctp_scalar_of_arg(obj, &s) < 0)
        return -1;
    ct_status st = ct_tensor_wrapped_number(s, owned);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    *t = *owned;
    return 0;
}

static PyObject *finish(ct_status st, ct_tensor *r, PyObject *target) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_warning_error() < 0) {
        ct_tensor_release(r);
        return NULL;
    }
    return target != NULL ? Py_NewRef(target) : ctp_tensor_wrap(r);
}

static PyObject *ternary_call(const ter_entry *e, PyObject *self, PyObject *args,
                              PyObject *kwargs) {
    PyObject *parsed[CTP_MAX_PARAMS];
    int k = ctp_parse_args(e->name, e->sigs, e->nsigs, args, kwargs, parsed);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &e->sigs[k];
    if (e->op == CT_TEROP_WHERE && sig->nparams == 1) /* torch's nonzero form */
        return ctp_nonzero_tuple(parsed[0]);
    if (e->form == FORM_INPLACE_FUNCTION)
        self = ctp_arg(sig, parsed, "input");
    ct_tensor *ops[3] = {NULL, NULL, NULL}, *owned[3] = {NULL, NULL, NULL};
    PyObject *result = NULL;
    for (int i = 0; i < 3; i++) {
        const char *name = OPERANDS[e->op][i];
        if (name == NULL)
            continue;
        bool is_self = (e->form == FORM_METHOD || e->form == FORM_INPLACE) &&
                       strcmp(name, "input") == 0;
        PyObject *obj = is_self ? self : ctp_arg(sig, parsed, name);
        static const ctp_param self_param = {TEN, "self"};
        if (operand_of(obj, is_self ? &self_param : ctp_param_named(sig, name), &ops[i],
                       &owned[i]) < 0)
            goto done;
    }
    ct_scalar value = ct_scalar_int(1);
    PyObject *v = ctp_param_named(sig, "tensor1") != NULL ? ctp_arg(sig, parsed, "value") : NULL;
    if (v != NULL && ctp_scalar_of_arg(v, &value) < 0)
        goto done;
    PyObject *out = ctp_param_named(sig, "out") != NULL ? ctp_arg(sig, parsed, "out") : NULL;
    if (e->form == FORM_INPLACE || e->form == FORM_INPLACE_FUNCTION) {
        result = finish(ct_ternary_(e->op, ops[0], ops[1], ops[2], value), NULL, self);
    } else if (out != NULL) {
        result = finish(ct_ternary_out(e->op, ops[0], ops[1], ops[2], value, ctp_tensor_get(out)),
                        NULL, out);
    } else {
        ct_tensor *r = NULL;
        ct_status st = ct_ternary(e->op, ops[0], ops[1], ops[2], value, &r);
        result = finish(st, r, NULL);
    }
done:
    for (int i = 0; i < 3; i++)
        ct_tensor_release(owned[i]);
    return result;
}

/* one C function per entry, by index */
#define ENTRY_FN(i)                                                                                \
    static PyObject *fn_##i(PyObject *s, PyObject *a, PyObject *k) {                               \
        int bound = ENTRIES[i].form == FORM_METHOD || ENTRIES[i].form == FORM_INPLACE;            \
        return ternary_call(&ENTRIES[i], bound ? s : NULL, a, k);                                  \
    }
ENTRY_FN(0) ENTRY_FN(1) ENTRY_FN(2) ENTRY_FN(3) ENTRY_FN(4) ENTRY_FN(5) ENTRY_FN(6)
ENTRY_FN(7) ENTRY_FN(8) ENTRY_FN(9) ENTRY_FN(10) ENTRY_FN(11) ENTRY_FN(12) ENTRY_FN(13)
ENTRY_FN(14) ENTRY_FN(15) ENTRY_FN(16) ENTRY_FN(17) ENTRY_FN(18) ENTRY_FN(19) ENTRY_FN(20)
ENTRY_FN(21) ENTRY_FN(22) ENTRY_FN(23) ENTRY_FN(24) ENTRY_FN(25) ENTRY_FN(26) ENTRY_FN(27)
ENTRY_FN(28) ENTRY_FN(29)
static PyObject *(*const FNS[])(PyObject *, PyObject *, PyObject *) = {
    fn_0,  fn_1,  fn_2,  fn_3,  fn_4,  fn_5,  fn_6,  fn_7,  fn_8,  fn_9,  fn_10, fn_11, fn_12,
    fn_13, fn_14, fn_15, fn_16, fn_17, fn_18, fn_19, fn_20, fn_21, fn_22, fn_23, fn_24, fn_25,
    fn_26, fn_27, fn_28, fn_29,
};
_Static_assert(sizeof FNS / sizeof FNS[0] == sizeof ENTRIES / sizeof ENTRIES[0],
               "one C function per entry");

#define KW METH_VARARGS | METH_KEYWORDS
static PyMethodDef functions[NUM_ENTRIES + 1];
static PyMethodDef methods[NUM_ENTRIES + 1];

static int ter_entry_def(int i, PyMethodDef *def) {
    *def = (PyMethodDef){ENTRIES[i].name, CTP_KW_FUNC(FNS[i]), KW,
                         "ternary.def's row (include/ctensor/ternary.h)"};
    return ENTRIES[i].form == FORM_FUNCTION || ENTRIES[i].form == FORM_INPLACE_FUNCTION;
}

int ctp_ternary_init(PyObject *module) {
    return ctp_add_entry_defs(module, NUM_ENTRIES, ter_entry_def, functions, methods);
}
