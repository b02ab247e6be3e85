/* The unary.def ops on global tensors: GlobalTensor.<name>() for every row (round with
 * decimals=), the in-place names (an error: global tensors have no in-place forms), the
 * operators -x, +x, abs(x), ~x, and the global path of ctensor.<name>(input, *, out=None)
 * (tensor_unary.c sends a call here when its input is a GlobalTensor). Each call is one
 * ct_global_unary / ct_global_round_decimals (global.h); the table makes the methods. An
 * argument error is raised on every rank (ctp_dist_failed). */
#include "ctensor_dist_py.h"

/* decimals= of round: an int, None or left out (0). 0, or -1 with an exception. */
static int decimals_of(PyObject *obj, int64_t *d) {
    *d = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (!ctp_is_int_arg(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "round() received an invalid combination of arguments - got decimals of "
                     "type %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return ctp_int64_of_arg(obj, d);
}

static PyObject *compute(ct_unop op, int64_t decimals, PyObject *self, PyObject *input) {
    ct_global *r = NULL;
    ct_status st = op == CT_UNOP_ROUND && decimals != 0
                       ? ct_global_round_decimals(ctp_global_get(input), decimals, &r)
                       : ct_global_unary(op, ctp_global_get(input), &r);
    return ctp_global_result(self, st, r);
}

static PyObject *function_call(ct_unop op, PyObject *args, PyObject *kwargs) {
    const char *name = ct_unop_name(op);
    PyObject *input = NULL, *out = Py_None, *decimals = NULL;
    if (op == CT_UNOP_ROUND) {
        static char *kw[] = {(char *)"input", (char *)"decimals", (char *)"out", NULL};
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:round", kw, &input, &decimals,
                                         &out))
            return NULL;
    } else {
        static char *kw[] = {(char *)"input", (char *)"out", NULL};
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O", kw, &input, &out))
            return NULL;
    }
    if (ctp_tensor_check(out) || ctp_tensor_check(input))
        return PyErr_Format(PyExc_RuntimeError,
                            "Expected all tensors to be global, but found a local tensor");
    if (!ctp_global_check(input))
        return PyErr_Format(PyExc_TypeError,
                            "%s(): argument 'input' (position 1) must be Tensor, not %s", name,
                            Py_TYPE(input)->tp_name);
    if (out != Py_None)
        return PyErr_Format(PyExc_RuntimeError,
                            "%s(): out= is not supported for global tensors; use the returned "
                            "tensor",
                            name);
    int64_t d;
    if (decimals_of(decimals, &d) < 0)
        return NULL;
    return compute(op, d, input, input);
}

PyObject *ctp_global_unary_call(ct_unop op, PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = function_call(op, args, kwargs);
    return r != NULL ? r : ctp_dist_failed(ct_unop_name(op), mark);
}

/* self.<name>() and self.round(decimals=d). */
static PyObject *method_call(ct_unop op, PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *decimals = NULL;
    if (op == CT_UNOP_ROUND) {
        static char *kw[] = {(char *)"decimals", NULL};
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:round", kw, &decimals))
            return NULL;
    } else if (PyTuple_GET_SIZE(args) > 0 || (kwargs != NULL && PyDict_Size(kwargs) > 0)) {
        return PyErr_Format(PyExc_TypeError, "%s() takes no arguments", ct_unop_name(op));
    }
    int64_t d;
    if (decimals_of(decimals, &d) < 0)
        return NULL;
    return compute(op, d, self, self);
}

static PyObject *method(ct_unop op, PyObject *self, PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = method_call(op, self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed(ct_unop_name(op), mark);
}

/* self.<name>_(): the in-place error, on every rank. */
static PyObject *inplace_method(ct_unop op) {
    uint64_t mark = ctp_dist_mark();
    PyErr_Format(PyExc_RuntimeError,
                 "%s_(): in-place operations are not supported on global tensors; use the "
                 "out-of-place form (x = x.%s())",
                 ct_unop_name(op), ct_unop_name(op));
    return ctp_dist_failed(ct_unop_name(op), mark);
}

#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse)                              \
    static PyObject *g_##E(PyObject *s, PyObject *a, PyObject *k) {                                \
        return method(CT_UNOP_##E, s, a, k);                                                       \
    }                                                                                              \
    static PyObject *gi_##E(PyObject *s, PyObject *a, PyObject *k) {                               \
        (void)s;                                                                                   \
        (void)a;                                                                                   \
        (void)k;                                                                                   \
        return inplace_method(CT_UNOP_##E);                                                        \
    }
#include "ctensor/unary.def"
#undef CT_UNARY

#define KW METH_VARARGS | METH_KEYWORDS

/* Every row's method, then the in-place names of the rows that have one (compacted at init:
 * the others have a NULL name). */
PyMethodDef ctp_global_unary_methods[] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse)                              \
    {name, CTP_KW_FUNC(g_##E), KW, name "() -> GlobalTensor\n\nunary.def's " #E " row. Collective."},
#include "ctensor/unary.def"
#undef CT_UNARY
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse)                              \
    {(inplace) ? name "_" : NULL, CTP_KW_FUNC(gi_##E), KW,                                         \
     "Not supported: global tensors have no in-place forms."},
#include "ctensor/unary.def"
#undef CT_UNARY
    {NULL, NULL, 0, NULL},
};

/* ---- operators ------------------------------------------------------------------------------ */

static PyObject *operator_call(ct_unop op, PyObject *self) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = compute(op, 0, self, self);
    return r != NULL ? r : ctp_dist_failed(ct_unop_name(op), mark);
}
static PyObject *nb_negative(PyObject *s) { return operator_call(CT_UNOP_NEG, s); }
static PyObject *nb_positive(PyObject *s) { return operator_call(CT_UNOP_POSITIVE, s); }
static PyObject *nb_absolute(PyObject *s) { return operator_call(CT_UNOP_ABS, s); }
/* ~g: PyTorch's operator refuses floating and complex tensors with a TypeError before any
 * op runs; every rank holds the same dtype, so every rank raises it without communicating. */
static PyObject *nb_invert(PyObject *s) {
    ct_dtype d = ct_global_dtype(ctp_global_get(s));
    if (ct_dtype_is_floating_point(d) || ct_dtype_is_complex(d))
        return PyErr_Format(PyExc_TypeError,
                            "~ (operator.invert) is only implemented on integer and Boolean-type "
                            "tensors");
    return operator_call(CT_UNOP_BITWISE_NOT, s);
}

void ctp_global_unary_setup(PyNumberMethods *nb) {
    static int compacted;
    if (!compacted) {
        int n = 0;
        for (int i = 0; ctp_global_unary_methods[i].ml_meth != NULL; i++)
            if (ctp_global_unary_methods[i].ml_name != NULL)
                ctp_global_unary_methods[n++] = ctp_global_unary_methods[i];
        ctp_global_unary_methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};
        compacted = 1;
    }
    nb->nb_negative = nb_negative;
    nb->nb_positive = nb_positive;
    nb->nb_absolute = nb_absolute;
    nb->nb_invert = nb_invert;
}
