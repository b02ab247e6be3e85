/* The unary ops of ctensor/unary.def in Python: ctensor.<name>(input, *, out=None),
 * Tensor.<name>(), Tensor.<name>_() and ctensor.<name>_(input) (rows with inplace 1; the
 * torch namespace has no sign_ sgn_ logical_not_ bitwise_not_), round's decimals=, and the
 * operators -t, +t, abs(t), ~t. A thin skin: every call is one ct_unary / ct_unary_out /
 * ct_unary_ (or ct_round_decimals*) call; the rows' table makes the functions. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "ctensor/unary.h"
#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* the global path of the functions */
#endif

/* A tensor argument, or PyTorch's TypeError. */
static ct_tensor *tensor_arg(const char *fname, const char *param, int pos, PyObject *obj) {
    if (obj != NULL && ctp_tensor_check(obj))
        return ctp_tensor_get(obj);
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be Tensor, not %s",
                 fname, param, pos, obj == NULL ? "NoneType" : Py_TYPE(obj)->tp_name);
    return NULL;
}

static PyObject *new_result(ct_status st, ct_tensor *r) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_warning_error() < 0) {
        ct_tensor_release(r);
        return NULL;
    }
    return ctp_tensor_wrap(r);
}

static PyObject *target_result(ct_status st, PyObject *target) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_warning_error() < 0)
        return NULL;
    return Py_NewRef(target);
}

/* The rows' out column: whether ctensor.<name> takes out=. */
static const bool takes_out[CT_NUM_UNOPS] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) [CT_UNOP_##E] = (out),
#include "ctensor/unary.def"
#undef CT_UNARY
};

/* op(input, *, out=None), op(input) for rows without out=, and round(input, *, decimals=0,
 * out=None). */
static PyObject *function_call(ct_unop op, const char *fname, PyObject *args, PyObject *kwargs) {
#ifdef CT_HAVE_DIST
    if (ctp_dist_any_global(NULL, args, kwargs))
        return ctp_global_unary_call(op, args, kwargs);
#endif
    PyObject *input = NULL, *out = Py_None, *decimals = NULL;
    if (op == CT_UNOP_ROUND) {
        static char *kw[] = {(char *)"input", (char *)"decimals", (char *)"out", NULL};
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:round", kw, &input, &decimals,
                                         &out))
            return NULL;
    } else if (takes_out[op]) {
        static char *kw[] = {(char *)"input", (char *)"out", NULL};
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O", kw, &input, &out))
            return NULL;
    } else {
        static const ctp_signature input_only[] = {{1, {{CTP_PARAM_TENSOR, "input"}}}};
        PyObject *a[CTP_MAX_PARAMS];
        if (ctp_parse_args(fname, input_only, 1, args, kwargs, a) < 0)
            return NULL;
        input = a[0];
    }
    ct_tensor *t = tensor_arg(fname, "input", 1, input);
    if (t == NULL)
        return NULL;
    ct_tensor *o = NULL;
    if (out != Py_None && (o = tensor_arg(fname, "out", 2, out)) == NULL)
        return NULL;
    int64_t d = 0;
    if (decimals != NULL && decimals != Py_None) {
        if (!ctp_is_int_arg(decimals))
            return PyErr_Format(PyExc_TypeError,
                                "round() received an invalid combination of arguments - got "
                                "decimals of type %s",
                                Py_TYPE(decimals)->tp_name);
        d = PyLong_AsLongLong(decimals);
        if (d == -1 && PyErr_Occurred())
            return NULL;
    }
    /* decimals= given picks PyTorch's round.decimals overload (no sparse kernel) */
    const bool has_dec = op == CT_UNOP_ROUND && decimals != NULL && decimals != Py_None;
    if (o != NULL)
        return target_result(has_dec ? ct_round_decimals_out(t, d, o) : ct_unary_out(op, t, o),
                             out);
    ct_tensor *r = NULL;
    ct_status st = has_dec ? ct_round_decimals(t, d, &r) : ct_unary(op, t, &r);
    if (st == CT_OK && r == t) { /* positive(t): t itself */
        ct_tensor_release(r);
        return Py_NewRef(input);
    }
    return new_result(st, r);
}

/* self.op() / self.op_() (round: decimals=0). */
static PyObject *method_call(ct_unop op, const char *fname, int inplace, PyObject *self,
                             PyObject *args, PyObject *kwargs) {
    PyObject *decimals = NULL;
    if (op == CT_UNOP_ROUND) {
        static char *kw[] = {(char *)"decimals", NULL};
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:round", kw, &decimals))
            return NULL;
    } else if (PyTuple_GET_SIZE(args) > 0 || (kwargs != NULL && PyDict_Size(kwargs) > 0)) {
        return PyErr_Format(PyExc_TypeError, "%s%s() takes no arguments", fname,
                            inplace ? "_" : "");
    }
    int64_t d = 0;
    if (decimals != NULL && decimals != Py_None) {
        d = PyLong_AsLongLong(decimals);
        if (d == -1 && PyErr_Occurred())
            return NULL;
    }
    ct_tensor *t = ctp_tensor_get(self);
    const bool has_dec = op == CT_UNOP_ROUND && decimals != NULL && decimals != Py_None;
    if (inplace)
        return target_result(has_dec ? ct_round_decimals_(t, d) : ct_unary_(op, t), self);
    ct_tensor *r = NULL;
    ct_status st = has_dec ? ct_round_decimals(t, d, &r) : ct_unary(op, t, &r);
    if (st == CT_OK && r == t) { /* positive(): self itself */
        ct_tensor_release(r);
        return Py_NewRef(self);
    }
    return new_result(st, r);
}

/* ctensor.<name>_(input) (round_: also decimals=): self.<name>_() of its input, as the
 * functions the torch namespace has for the in-place forms. */
static PyObject *function_inplace_call(ct_unop op, const char *fname, PyObject *args,
                                       PyObject *kwargs) {
    PyObject *input = NULL, *decimals = NULL;
    static char *kw[] = {(char *)"input", (char *)"decimals", NULL};
    static char *kw1[] = {(char *)"input", NULL};
    if (op == CT_UNOP_ROUND ? !PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O:round_", kw,
                                                           &input, &decimals)
                            : !PyArg_ParseTupleAndKeywords(args, kwargs, "O", kw1, &input))
        return NULL;
    if (tensor_arg(fname, "input", 1, input) == NULL)
        return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *kws = decimals != NULL ? Py_BuildValue("{sO}", "decimals", decimals) : NULL;
    PyObject *r = empty != NULL && (decimals == NULL || kws != NULL)
                      ? method_call(op, fname, 1, input, empty, kws)
                      : NULL;
    Py_XDECREF(empty);
    Py_XDECREF(kws);
    return r;
}

/* The in-place rows whose function the torch namespace lacks (Tensor methods only there). */
static const char *const method_only_inplace[] = {"sign", "sgn", "logical_not", "bitwise_not"};

#define KW METH_VARARGS | METH_KEYWORDS
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) \
    static PyObject *fn_##E(PyObject *m, PyObject *a, PyObject *k) {                               \
        (void)m;                                                                                   \
        return function_call(CT_UNOP_##E, name, a, k);                                             \
    }                                                                                              \
    static PyObject *m_##E(PyObject *s, PyObject *a, PyObject *k) {                                \
        return method_call(CT_UNOP_##E, name, 0, s, a, k);                                         \
    }                                                                                              \
    static PyObject *mi_##E(PyObject *s, PyObject *a, PyObject *k) {                               \
        return method_call(CT_UNOP_##E, name, 1, s, a, k);                                         \
    }                                                                                              \
    static PyObject *fi_##E(PyObject *m, PyObject *a, PyObject *k) {                               \
        (void)m;                                                                                   \
        return function_inplace_call(CT_UNOP_##E, name, a, k);                                     \
    }
#include "ctensor/unary.def"
#undef CT_UNARY

static PyMethodDef unary_functions[] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) \
    {name, CTP_KW_FUNC(fn_##E), KW, name "(input, *, out=None) -> Tensor\n\nunary.def's " #E " row."},
#include "ctensor/unary.def"
#undef CT_UNARY
    {NULL, NULL, 0, NULL},
};

static PyMethodDef unary_inplace_functions[] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) \
    {(inplace) ? name "_" : NULL, CTP_KW_FUNC(fi_##E), KW, name "_(input) -> Tensor"},
#include "ctensor/unary.def"
#undef CT_UNARY
    {NULL, NULL, 0, NULL},
};

static PyMethodDef unary_methods[] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) \
    {name, CTP_KW_FUNC(m_##E), KW, name "() -> Tensor"},
#include "ctensor/unary.def"
#undef CT_UNARY
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) \
    {(inplace) ? name "_" : NULL, CTP_KW_FUNC(mi_##E), KW, name "_() -> Tensor"},
#include "ctensor/unary.def"
#undef CT_UNARY
    {NULL, NULL, 0, NULL},
};

/* ---- aliases ------------------------------------------------------------------------------
 * PyTorch's alias names of unary rows (torch/_refs and native_functions.yaml's aliases): the
 * row's forms under another name. INPLACE_FN: the torch namespace also has <alias>_;
 * FN: it has the function (negative's function lives in method_functions.c, routing sparse
 * tensors). */
#define UNARY_ALIASES(X)                                                                           \
    /*alias      row     FN  INPLACE_FN */                                                         \
    X(absolute,  ABS,    1,  0)                                                                    \
    X(negative,  NEG,    0,  1)                                                                    \
    X(fix,       TRUNC,  1,  1)                                                                    \
    X(arcsin,    ASIN,   1,  1)                                                                    \
    X(arccos,    ACOS,   1,  1)                                                                    \
    X(arctan,    ATAN,   1,  1)                                                                    \
    X(arcsinh,   ASINH,  1,  1)                                                                    \
    X(arccosh,   ACOSH,  1,  1)                                                                    \
    X(arctanh,   ATANH,  1,  1)

#define ALIAS_FNS(alias, E, fn, inplace_fn)                                                        \
    static PyObject *afn_##alias(PyObject *m, PyObject *a, PyObject *k) {                          \
        (void)m;                                                                                   \
        return function_call(CT_UNOP_##E, #alias, a, k);                                           \
    }                                                                                              \
    static PyObject *am_##alias(PyObject *s, PyObject *a, PyObject *k) {                           \
        return method_call(CT_UNOP_##E, #alias, 0, s, a, k);                                       \
    }                                                                                              \
    static PyObject *ami_##alias(PyObject *s, PyObject *a, PyObject *k) {                          \
        return method_call(CT_UNOP_##E, #alias, 1, s, a, k);                                       \
    }                                                                                              \
    static PyObject *afi_##alias(PyObject *m, PyObject *a, PyObject *k) {                          \
        (void)m;                                                                                   \
        return function_inplace_call(CT_UNOP_##E, #alias, a, k);                                   \
    }
UNARY_ALIASES(ALIAS_FNS)

/* rows without the form get a NULL name, dropped by compact() */
static PyMethodDef alias_functions[] = {
#define ALIAS_FN_DEFS(alias, E, fn, inplace_fn)                                                    \
    {(fn) ? #alias : NULL, CTP_KW_FUNC(afn_##alias), KW, #alias "(input, *, out=None) -> Tensor"}, \
        {(inplace_fn) ? #alias "_" : NULL, CTP_KW_FUNC(afi_##alias), KW, #alias "_(input) -> Tensor"},
    UNARY_ALIASES(ALIAS_FN_DEFS)
    {NULL, NULL, 0, NULL},
};
static PyMethodDef alias_methods[] = {
#define ALIAS_METHOD_DEFS(alias, E, fn, inplace_fn)                                                \
    {#alias, CTP_KW_FUNC(am_##alias), KW, #alias "() -> Tensor"},                                  \
        {#alias "_", CTP_KW_FUNC(ami_##alias), KW, #alias "_() -> Tensor"},
    UNARY_ALIASES(ALIAS_METHOD_DEFS)
    {NULL, NULL, 0, NULL},
};

/* Drops the entries with a NULL name, in place (the module keeps pointers to the entries). */
static void compact(PyMethodDef *defs) {
    size_t n = 0;
    for (size_t i = 0; defs[i].ml_meth != NULL; i++)
        if (defs[i].ml_name != NULL)
            defs[n++] = defs[i];
    defs[n] = (PyMethodDef){NULL, NULL, 0, NULL};
}

/* ---- operators --------------------------------------------------------------------------- */

static PyObject *operator_call(ct_unop op, PyObject *self) {
    ct_tensor *r = NULL;
    ct_status st = ct_unary(op, ctp_tensor_get(self), &r);
    if (st == CT_OK && r == ctp_tensor_get(self)) {
        ct_tensor_release(r);
        return Py_NewRef(self);
    }
    return new_result(st, r);
}
static PyObject *nb_negative(PyObject *s) { return operator_call(CT_UNOP_NEG, s); }
static PyObject *nb_positive(PyObject *s) { return operator_call(CT_UNOP_POSITIVE, s); }
static PyObject *nb_absolute(PyObject *s) { return operator_call(CT_UNOP_ABS, s); }
/* ~t: PyTorch's Python operator (THPVariable_invert) refuses floating and complex tensors
 * with a TypeError before dispatching bitwise_not. */
static PyObject *nb_invert(PyObject *s) {
    ct_dtype d = ct_tensor_dtype(ctp_tensor_get(s));
    if (ct_dtype_is_floating_point(d) || ct_dtype_is_complex(d))
        return PyErr_Format(PyExc_TypeError,
                            "~ (operator.invert) is only implemented on integer and Boolean-type "
                            "tensors");
    return operator_call(CT_UNOP_BITWISE_NOT, s);
}

void ctp_unary_number_slots(PyNumberMethods *nb) {
    nb->nb_negative = nb_negative;
    nb->nb_positive = nb_positive;
    nb->nb_absolute = nb_absolute;
    nb->nb_invert = nb_invert;
}

int ctp_unary_init(PyObject *module) {
    /* compact the in-place entries (rows without one have a NULL name) */
    static int compacted;
    if (!compacted) {
        int n = 0;
        for (int i = 0; unary_methods[i].ml_meth != NULL || unary_methods[i].ml_name != NULL;
             i++) {
            if (unary_methods[i].ml_name != NULL)
                unary_methods[n++] = unary_methods[i];
            if (unary_methods[i].ml_meth == NULL)
                break;
        }
        unary_methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};
        compacted = 1;
    }
    if (PyModule_AddFunctions(module, unary_functions) < 0)
        return -1;
    /* the in-place functions: compacted in place (the module keeps pointers to the entries),
     * without the rows lacking one and the method-only ones */
    static int inplace_compacted;
    if (!inplace_compacted) {
        size_t n = 0;
        for (size_t i = 0; unary_inplace_functions[i].ml_meth != NULL; i++) {
            const char *name = unary_inplace_functions[i].ml_name;
            int keep = name != NULL;
            for (size_t j = 0; keep && j < sizeof method_only_inplace / sizeof *method_only_inplace;
                 j++)
                keep = !(strlen(method_only_inplace[j]) == strlen(name) - 1 &&
                         strncmp(name, method_only_inplace[j], strlen(name) - 1) == 0);
            if (keep)
                unary_inplace_functions[n++] = unary_inplace_functions[i];
        }
        unary_inplace_functions[n] = (PyMethodDef){NULL, NULL, 0, NULL};
        inplace_compacted = 1;
    }
    if (PyModule_AddFunctions(module, unary_inplace_functions) < 0)
        return -1;
    static int aliases_compacted;
    if (!aliases_compacted) {
        compact(alias_functions);
        aliases_compacted = 1;
    }
    if (PyModule_AddFunctions(module, alias_functions) < 0 ||
        ctp_tensor_add_methods(alias_methods) < 0)
        return -1;
    return ctp_tensor_add_methods(unary_methods);
}
