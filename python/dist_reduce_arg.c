/* max / min (whole, with a dim, or with another tensor), argmax / argmin and cumsum / cumprod
 * of global tensors: the GlobalTensor methods and the global path of the functions
 * (tensor_reduce.c and tensor_reduce2.c send a call here when an argument is a GlobalTensor).
 * Signatures (torch's):
 *   max(input) / max(input, dim, keepdim=False) -> (values, indices) / max(input, other)
 *   argmax(input, dim=None, keepdim=False)          min, argmin: as max, argmax
 *   cumsum(input, dim, *, dtype=None)                cumprod: as cumsum
 * Each call is one C global operation (global.h), which decides the results' sbp; an argument
 * error is raised on every rank (ctp_dist_failed). */
#include <string.h>

#include "ctensor_dist_py.h"

/* Fill slots[i] from `names` (names[0] "input", given positionally to functions only; the
 * first `npos` names positional, the rest keyword-only; "out" for functions only).
 * 0, or -1 with PyTorch's TypeError. */
static int parse(const char *fname, int method, PyObject *self, PyObject *args, PyObject *kwargs,
                 const char *const *names, int nnames, int npos, PyObject **slots) {
    for (int i = 0; i < nnames; i++)
        slots[i] = NULL;
    const int first = method ? 1 : 0; /* a method's input is self */
    if (method)
        slots[0] = self;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > npos - first) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)",
                     fname, npos - first, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        slots[first + i] = PyTuple_GET_ITEM(args, i);
    if (kwargs == NULL)
        return 0;
    Py_ssize_t at = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &at, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (k == NULL && PyErr_Occurred())
            return -1;
        int found = -1;
        for (int i = first; k != NULL && i < nnames; i++)
            if (strcmp(k, names[i]) == 0 && (!method || strcmp(k, "out") != 0))
                found = i;
        if (found < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", fname,
                         key);
            return -1;
        }
        if (slots[found] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, k);
            return -1;
        }
        slots[found] = value;
    }
    return 0;
}

static int check_input(const char *fname, PyObject *input, PyObject *out) {
    if (input == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'input'", fname);
        return -1;
    }
    if (!ctp_global_check(input) || (out != NULL && ctp_tensor_check(out))) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Expected all tensors to be global, but found a local tensor");
        return -1;
    }
    if (out != NULL && out != Py_None) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s(): out= is not supported for global tensors; use the returned tensor",
                     fname);
        return -1;
    }
    return 0;
}

/* dim: an int (None allowed when `optional`: *has = 0). */
static int dim_of(const char *fname, PyObject *obj, int optional, int64_t *dim, int *has) {
    *has = 0;
    if (obj == NULL || (optional && obj == Py_None))
        return 0;
    if (!ctp_is_int_arg(obj)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'dim' must be int, not %s", fname,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *has = 1;
    return ctp_int64_of_arg(obj, dim);
}

static int keepdim_of(const char *fname, PyObject *obj, int *keep) {
    *keep = 0;
    if (obj == NULL)
        return 0;
    if (!PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'keepdim' must be bool, not %s", fname,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *keep = obj == Py_True;
    return 0;
}

/* (values, indices) as ctensor.return_types.max / min. Steals both (NULL-safe). */
static PyObject *pair(int is_max, PyObject *values, PyObject *indices) {
    PyTypeObject *type = ctp_reduce_return_type(is_max);
    PyObject *r =
        (type != NULL && values != NULL && indices != NULL) ? PyStructSequence_New(type) : NULL;
    if (r == NULL) {
        Py_XDECREF(values);
        Py_XDECREF(indices);
        return NULL;
    }
    PyStructSequence_SET_ITEM(r, 0, values);
    PyStructSequence_SET_ITEM(r, 1, indices);
    return r;
}

static PyObject *arg_call(int is_max, int with_values, int method, PyObject *self, PyObject *args,
                          PyObject *kwargs) {
    static const char *const names[] = {"input", "dim", "keepdim", "out"};
    const char *fname = with_values ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin");
    PyObject *s[4];
    if (parse(fname, method, self, args, kwargs, names, 4, 3, s) < 0)
        return NULL;
    PyObject *input = s[0], *dim = s[1], *keepdim = s[2], *out = s[3];
    if (with_values && dim != NULL && keepdim == NULL && out == NULL &&
        (ctp_global_check(dim) || ctp_tensor_check(dim))) { /* max(input, other): maximum */
        if (input == NULL || !ctp_global_check(input)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Expected all tensors to be global, but found a local tensor");
            return NULL;
        }
        PyObject *r = PyObject_CallMethod(input, is_max ? "maximum" : "minimum", "O", dim);
        ctp_dist_entered(); /* maximum made its own agreement, also when it failed */
        return r;
    }
    if (check_input(fname, input, out) < 0)
        return NULL;
    int64_t d = 0;
    int has_dim = 0, keep = 0;
    if (dim_of(fname, dim, !with_values, &d, &has_dim) < 0 || keepdim_of(fname, keepdim, &keep) < 0)
        return NULL;
    const ct_global *x = ctp_global_get(input);
    ct_status st;
    if (with_values && !has_dim) {
        if (keepdim != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "%s() received an invalid combination of arguments: "
                         "keepdim without dim",
                         fname);
            return NULL;
        }
        ct_global *r = NULL;
        st = ct_global_reduce(is_max ? CT_REDUCE_MAX : CT_REDUCE_MIN, x, NULL, 0, false,
                              CT_DTYPE_UNDEFINED, &r);
        return ctp_global_result(NULL, st, r);
    }
    if (!with_values) {
        ct_global *r = NULL;
        st = (is_max ? ct_global_argmax : ct_global_argmin)(x, has_dim ? &d : NULL, keep != 0, &r);
        return ctp_global_result(NULL, st, r);
    }
    ct_global *v = NULL, *ix = NULL;
    st = (is_max ? ct_global_max_dim : ct_global_min_dim)(x, d, keep != 0, &v, &ix);
    /* the C operation ran (ctp_global_result notes it): no second agreement on failure */
    PyObject *pv = ctp_global_result(NULL, st, v);
    if (pv == NULL) {
        ct_global_release(ix);
        return NULL;
    }
    return pair(is_max, pv, ctp_global_wrap(ix));
}

PyObject *ctp_global_arg_call(int is_max, int with_values, int method, PyObject *self,
                              PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = arg_call(is_max, with_values, method, self, args, kwargs);
    const char *name = with_values ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin");
    return r != NULL ? r : ctp_dist_failed(name, mark);
}

static PyObject *cum_call(int prod, int method, PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"input", "dim", "dtype", "out"};
    const char *fname = prod ? "cumprod" : "cumsum";
    PyObject *s[4];
    if (parse(fname, method, self, args, kwargs, names, 4, 2, s) < 0)
        return NULL;
    PyObject *input = s[0], *dim = s[1], *dtype = s[2], *out = s[3];
    if (check_input(fname, input, out) < 0)
        return NULL;
    if (dim == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'dim'", fname);
        return NULL;
    }
    int64_t d = 0;
    int has_dim = 0;
    if (dim_of(fname, dim, 0, &d, &has_dim) < 0)
        return NULL;
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    if (dtype != NULL && dtype != Py_None) {
        if (!ctp_dtype_check(dtype))
            return PyErr_Format(PyExc_TypeError,
                                "%s(): argument 'dtype' must be torch.dtype, not %s", fname,
                                Py_TYPE(dtype)->tp_name);
        dt = ctp_dtype_of_arg(dtype);
    }
    ct_global *r = NULL;
    ct_status st = ct_global_cumulative(prod != 0, ctp_global_get(input), d, dt, &r);
    return ctp_global_result(NULL, st, r);
}

PyObject *ctp_global_cum_call(int prod, int method, PyObject *self, PyObject *args,
                              PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = cum_call(prod, method, self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed(prod ? "cumprod" : "cumsum", mark);
}

#define ARG_METHOD(cname, is_max, with_values)                                                     \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        return ctp_global_arg_call(is_max, with_values, 1, self, args, kwargs);                    \
    }
ARG_METHOD(g_max, 1, 1)
ARG_METHOD(g_min, 0, 1)
ARG_METHOD(g_argmax, 1, 0)
ARG_METHOD(g_argmin, 0, 0)

static PyObject *g_cumsum(PyObject *self, PyObject *args, PyObject *kwargs) {
    return ctp_global_cum_call(0, 1, self, args, kwargs);
}
static PyObject *g_cumprod(PyObject *self, PyObject *args, PyObject *kwargs) {
    return ctp_global_cum_call(1, 1, self, args, kwargs);
}

#define KW METH_VARARGS | METH_KEYWORDS
PyMethodDef ctp_global_reduce_arg_methods[] = {
    {"max", CTP_KW_FUNC(g_max), KW, "max() / max(dim, keepdim=False) / max(other). Collective."},
    {"min", CTP_KW_FUNC(g_min), KW, "min() / min(dim, keepdim=False) / min(other). Collective."},
    {"argmax", CTP_KW_FUNC(g_argmax), KW, "argmax(dim=None, keepdim=False). Collective."},
    {"argmin", CTP_KW_FUNC(g_argmin), KW, "argmin(dim=None, keepdim=False). Collective."},
    {"cumsum", CTP_KW_FUNC(g_cumsum), KW, "cumsum(dim, *, dtype=None). Collective."},
    {"cumprod", CTP_KW_FUNC(g_cumprod), KW, "cumprod(dim, *, dtype=None). Collective."},
    {NULL, NULL, 0, NULL},
};
