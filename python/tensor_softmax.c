/* softmax and log_softmax from Python (ctensor/reduce.h, ct_softmax): the functions
 * softmax(input, dim, dtype=None, *, out=None) and the methods softmax(dim, dtype=None), with
 * PyTorch's overloads (a dimension name gives its "not found" error: no tensor has names).
 * A thin skin: one ct_softmax call. */
#include "ctensor/reduce.h"
#include "ctensor_py.h"

static const ctp_signature function_sigs[] = {
    {4, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim"}, {CTP_PARAM_DTYPE, "dtype=None"},
         {CTP_PARAM_TENSOR, "*out=None"}}},
    {3, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_NAME, "dim"}, {CTP_PARAM_DTYPE, "*dtype=None"}}},
};
static const ctp_signature method_sigs[] = {
    {2, {{CTP_PARAM_INT64, "dim"}, {CTP_PARAM_DTYPE, "dtype=None"}}},
    {2, {{CTP_PARAM_NAME, "dim"}, {CTP_PARAM_DTYPE, "*dtype=None"}}},
};

static PyObject *softmax_call(bool log, PyObject *self, PyObject *args, PyObject *kwargs) {
    const char *name = log ? "log_softmax" : "softmax";
    const ctp_signature *sigs = self != NULL ? method_sigs : function_sigs;
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args(name, sigs, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    PyObject *input = self != NULL ? self : ctp_arg(&sigs[k], a, "input");
    PyObject *dim = ctp_arg(&sigs[k], a, "dim"), *dtype = ctp_arg(&sigs[k], a, "dtype");
    PyObject *out = ctp_arg(&sigs[k], a, "out");
    if (k == 1)
        return ctp_tensor_raise_name(input, dim);
    int64_t d;
    if (ctp_int64_of_arg(dim, &d) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_softmax(log, ctp_tensor_get(input), d,
                              dtype != NULL ? ctp_dtype_of_arg(dtype) : CT_DTYPE_UNDEFINED,
                              out != NULL ? ctp_tensor_get(out) : NULL, &r);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_warning_error() < 0) { /* out= resized: PyTorch's UserWarning, maybe an error */
        ct_tensor_release(r);
        return NULL;
    }
    if (out != NULL) {
        ct_tensor_release(r);
        return Py_NewRef(out);
    }
    return ctp_tensor_wrap(r);
}

static PyObject *f_softmax(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return softmax_call(false, NULL, args, kwargs);
}

static PyObject *f_log_softmax(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return softmax_call(true, NULL, args, kwargs);
}

static PyObject *m_softmax(PyObject *self, PyObject *args, PyObject *kwargs) {
    return softmax_call(false, self, args, kwargs);
}

static PyObject *m_log_softmax(PyObject *self, PyObject *args, PyObject *kwargs) {
    return softmax_call(true, self, args, kwargs);
}

#define KW (METH_VARARGS | METH_KEYWORDS)
static PyMethodDef softmax_functions[] = {
    {"softmax", CTP_KW_FUNC(f_softmax), KW, "softmax(input, dim, dtype=None, *, out=None)"},
    {"log_softmax", CTP_KW_FUNC(f_log_softmax), KW,
     "log_softmax(input, dim, dtype=None, *, out=None)"},
    {NULL, NULL, 0, NULL},
};
static PyMethodDef softmax_methods[] = {
    {"softmax", CTP_KW_FUNC(m_softmax), KW, "softmax(dim, dtype=None)"},
    {"log_softmax", CTP_KW_FUNC(m_log_softmax), KW, "log_softmax(dim, dtype=None)"},
    {NULL, NULL, 0, NULL},
};

int ctp_softmax_init(PyObject *module) {
    if (PyModule_AddFunctions(module, softmax_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(softmax_methods);
}
