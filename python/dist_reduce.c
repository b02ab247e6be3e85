/* Reductions of global tensors: GlobalTensor.sum / mean / prod / amax / amin / all / any,
 * and the global path of the functions ctensor.sum, ... (tensor_reduce.c sends a call here
 * when an argument is a GlobalTensor; max / min / argmax / cumsum: dist_reduce_arg.c).
 * Signatures (OneFlow's, as torch's):
 *   sum(input, dim=None, keepdim=False, *, dtype=None)     mean, prod: as sum
 *   amax(input, dim=(), keepdim=False)                     amin, all, any: as amax
 * `dim` is an int or a sequence of ints (axis= and keepdims= as NumPy names them). Each call
 * is one ct_global_reduce (global.h), which decides the result's sbp; an argument error is
 * raised on every rank (ctp_dist_failed). */
#include <string.h>

#include "ctensor_dist_py.h"

/* `dim`: None, an int, or a list / tuple of ints. 0, or -1 with an exception. */
static int dims_of(const char *name, PyObject *obj, int64_t *dims, int64_t *ndims) {
    *ndims = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (ctp_is_int_arg(obj)) {
        *ndims = 1;
        return ctp_int64_of_arg(obj, &dims[0]);
    }
    if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'dim' must be int or tuple of ints, not %s",
                     name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    if (n > CT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "%s(): too many dims (%zd)", name, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(obj, i);
        if (!ctp_is_int_arg(v)) {
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument 'dim' must be tuple of ints, but found element of type "
                         "%s at pos %zd",
                         name, Py_TYPE(v)->tp_name, i);
            return -1;
        }
        if (ctp_int64_of_arg(v, &dims[i]) < 0)
            return -1;
    }
    *ndims = (int64_t)n;
    return 0;
}

/* Which keywords an op takes besides dim and keepdim. */
static int takes_dtype(ct_reduce_op op) {
    return op == CT_REDUCE_SUM || op == CT_REDUCE_MEAN || op == CT_REDUCE_PROD;
}

static PyObject *reduce_call(ct_reduce_op op, const char *name, int method, PyObject *self,
                             PyObject *args, PyObject *kwargs) {
    PyObject *input = method ? self : NULL, *dim = NULL, *keepdim = NULL, *dtype = NULL,
             *out = NULL;
    /* positional: [input,] dim, keepdim */
    PyObject **pos[3] = {&input, &dim, &keepdim};
    Py_ssize_t npos = PyTuple_GET_SIZE(args), first = method ? 1 : 0;
    if (npos > 3 - first) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional arguments (%zd given)",
                     name, 3 - first, npos);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < npos; i++)
        *pos[i + first] = PyTuple_GET_ITEM(args, i);
    if (kwargs != NULL) {
        Py_ssize_t at = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &at, &key, &value)) {
            const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
            if (k == NULL && PyErr_Occurred())
                return NULL;
            PyObject **slot = NULL;
            if (k == NULL)
                slot = NULL;
            else if (!method && strcmp(k, "input") == 0)
                slot = &input;
            else if (strcmp(k, "dim") == 0 || strcmp(k, "axis") == 0)
                slot = &dim;
            else if (strcmp(k, "keepdim") == 0 || strcmp(k, "keepdims") == 0)
                slot = &keepdim;
            else if (takes_dtype(op) && strcmp(k, "dtype") == 0)
                slot = &dtype;
            else if (!method && strcmp(k, "out") == 0)
                slot = &out;
            if (slot == NULL) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'",
                             name, key);
                return NULL;
            }
            if (*slot != NULL) {
                PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                             k);
                return NULL;
            }
            *slot = value;
        }
    }
    if (input == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'input'", name);
        return NULL;
    }
    if (!ctp_global_check(input) || (out != NULL && ctp_tensor_check(out))) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Expected all tensors to be global, but found a local tensor");
        return NULL;
    }
    if (out != NULL && out != Py_None)
        return PyErr_Format(PyExc_RuntimeError,
                            "%s(): out= is not supported for global tensors; use the returned "
                            "tensor",
                            name);
    int64_t dims[CT_MAX_DIMS], ndims = 0;
    if (dims_of(name, dim, dims, &ndims) < 0)
        return NULL;
    int keep = 0;
    if (keepdim != NULL && keepdim != Py_None) {
        if (!PyBool_Check(keepdim))
            return PyErr_Format(PyExc_TypeError, "%s(): argument 'keepdim' must be bool, not %s",
                                name, Py_TYPE(keepdim)->tp_name);
        keep = keepdim == Py_True;
    }
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    if (dtype != NULL && dtype != Py_None) {
        if (!ctp_dtype_check(dtype))
            return PyErr_Format(PyExc_TypeError,
                                "%s(): argument 'dtype' must be torch.dtype, not %s", name,
                                Py_TYPE(dtype)->tp_name);
        dt = ctp_dtype_of_arg(dtype);
    }
    ct_global *r = NULL;
    ct_status st = ct_global_reduce(op, ctp_global_get(input), ndims ? dims : NULL, ndims,
                                    keep != 0, dt, &r);
    return ctp_global_result(NULL, st, r);
}

PyObject *ctp_global_reduce_call(ct_reduce_op op, const char *name, int method, PyObject *self,
                                 PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = reduce_call(op, name, method, self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed(name, mark);
}

#define GLOBAL_REDUCE(cname, op, name)                                                             \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        return ctp_global_reduce_call(op, name, 1, self, args, kwargs);                            \
    }
GLOBAL_REDUCE(g_sum, CT_REDUCE_SUM, "sum")
GLOBAL_REDUCE(g_mean, CT_REDUCE_MEAN, "mean")
GLOBAL_REDUCE(g_prod, CT_REDUCE_PROD, "prod")
GLOBAL_REDUCE(g_amax, CT_REDUCE_AMAX, "amax")
GLOBAL_REDUCE(g_amin, CT_REDUCE_AMIN, "amin")
GLOBAL_REDUCE(g_all, CT_REDUCE_ALL, "all")
GLOBAL_REDUCE(g_any, CT_REDUCE_ANY, "any")

#define KW METH_VARARGS | METH_KEYWORDS
#define SUM_DOC(n)                                                                                 \
    n "(dim=None, keepdim=False, *, dtype=None) -> GlobalTensor\n\nOver a split dim: "             \
      "partial_sum. Collective."

PyMethodDef ctp_global_reduce_methods[] = {
    {"sum", CTP_KW_FUNC(g_sum), KW, SUM_DOC("sum")},
    {"mean", CTP_KW_FUNC(g_mean), KW, SUM_DOC("mean")},
    {"prod", CTP_KW_FUNC(g_prod), KW,
     "prod(dim=None, keepdim=False, *, dtype=None) -> GlobalTensor\n\nCollective."},
    {"amax", CTP_KW_FUNC(g_amax), KW, "amax(dim=(), keepdim=False) -> GlobalTensor\n\nCollective."},
    {"amin", CTP_KW_FUNC(g_amin), KW, "amin(dim=(), keepdim=False) -> GlobalTensor\n\nCollective."},
    {"all", CTP_KW_FUNC(g_all), KW, "all(dim=None, keepdim=False) -> GlobalTensor\n\nCollective."},
    {"any", CTP_KW_FUNC(g_any), KW, "any(dim=None, keepdim=False) -> GlobalTensor\n\nCollective."},
    {NULL, NULL, 0, NULL},
};
