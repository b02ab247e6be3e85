/* Argument conversions shared by the tensor functions: the checks of the parser's tensor
 * parameter kinds (int lists, names, Numbers with NumPy scalars and 0-dim tensors), optional
 * dtype, layout, memory format, device and bool arguments, the factory options ctensor does
 * not implement, and scalars.
 *
 * Strictness (documented in the module's README): there is no autograd, so requires_grad=True
 * raises (RuntimeError with PyTorch's text for dtypes that cannot require gradients,
 * NotImplementedError otherwise) and requires_grad=False is accepted; named tensors
 * (names=...) and out= raise NotImplementedError; pin_memory=True pins the result with the
 * CUDA backend (ctp_cuda_pin) and raises NotImplementedError without it; layouts other than strided
 * raise NotImplementedError until the sparse layer provides them.
 */
#include <string.h>

#include "ctensor_py.h"

/* ---- argument kinds of the parser (argparse.c asks these) ------------------------------- */

/* NumPy types are recognised through the MRO, so NumPy need not be imported or linked. */
int ctp_type_has_base(PyObject *obj, const char *tp_name) {
    PyObject *mro = Py_TYPE(obj)->tp_mro;
    if (mro == NULL || !PyTuple_Check(mro))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (strcmp(t->tp_name, tp_name) == 0)
            return 1;
    }
    return 0;
}

int ctp_is_numpy_bool(PyObject *obj) {
    return ctp_type_has_base(obj, "numpy.bool_") || ctp_type_has_base(obj, "numpy.bool");
}

int ctp_is_index_arg(PyObject *obj) {
    if (PyBool_Check(obj))
        return 0;
    if (ctp_is_int_arg(obj))
        return 1;
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(index);
    return 1;
}

/* PyTorch's is_int_list: a tuple or list, empty or with an index first (the other elements
 * are checked when the list is read). */
int ctp_is_int_list_arg(PyObject *obj) {
    if (!PyTuple_Check(obj) && !PyList_Check(obj))
        return 0;
    if (PySequence_Fast_GET_SIZE(obj) == 0)
        return 1;
    /* __index__ may run code that empties the list: hold the item */
    PyObject *first = Py_NewRef(PySequence_Fast_GET_ITEM(obj, 0));
    int r = ctp_is_index_arg(first);
    Py_DECREF(first);
    return r;
}

/* A dimension name: a str, or None (PyTorch's wildcard). */
int ctp_is_name_arg(PyObject *obj) { return obj == Py_None || PyUnicode_Check(obj); }

int ctp_is_name_list_arg(PyObject *obj) {
    if (!PyTuple_Check(obj) && !PyList_Check(obj))
        return 0;
    return PySequence_Fast_GET_SIZE(obj) == 0 || ctp_is_name_arg(PySequence_Fast_GET_ITEM(obj, 0));
}

/* PyTorch's Scalar parameters also take NumPy scalars (is_numpy_scalar) and 0-dim tensors. */
int ctp_is_number_arg(PyObject *obj) {
    return ctp_is_number(obj) || (ctp_is_tensor(obj) && ct_tensor_dim(ctp_tensor_get(obj)) == 0) ||
           ctp_type_has_base(obj, "numpy.integer") || ctp_is_numpy_bool(obj) ||
           ctp_type_has_base(obj, "numpy.floating") ||
           ctp_type_has_base(obj, "numpy.complexfloating");
}

Py_ssize_t ctp_int_list_of_arg(const char *fname, const ctp_param *param, PyObject *obj,
                               int64_t out[CT_MAX_DIMS]) {
    char name[64];
    ctp_param_name(param, name);
    if (!PyTuple_Check(obj) && !PyList_Check(obj)) { /* only a caller's mistake gets here */
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %s", fname, name,
                     ctp_param_kind_name(param->kind), Py_TYPE(obj)->tp_name);
        return -1;
    }
    /* A tuple copy of a list: __index__ of an element may run code that changes the list. */
    PyObject *items = PyList_Check(obj) ? PyList_AsTuple(obj) : Py_NewRef(obj);
    if (items == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n > CT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "maximum supported dimension for a tensor is %d, found %zd",
                     CT_MAX_DIMS, n);
        Py_DECREF(items);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        /* PyTorch reads each element with THPUtils_unpackIndex (bools pass as 0 and 1) and
         * reports any failure, overflow included, as the element's type. */
        if (ctp_int64_of_arg(item, &out[i]) < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument '%s' must be %s, but found element of type %s at pos %zd",
                         fname, name, ctp_param_kind_name(param->kind), Py_TYPE(item)->tp_name,
                         i + 1);
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return n;
}

/* ---- optional arguments ---------------------------------------------------------------- */

ct_dtype ctp_opt_dtype(PyObject *obj) {
    return obj == NULL ? CT_DTYPE_UNDEFINED : ctp_dtype_of_arg(obj);
}

ct_layout ctp_opt_layout(PyObject *obj) {
    return obj == NULL ? CT_LAYOUT_STRIDED : ((ctp_layout_object *)obj)->layout;
}

ct_memory_format ctp_opt_memory_format(PyObject *obj, ct_memory_format dflt) {
    return obj == NULL ? dflt : ((ctp_memory_format_object *)obj)->format;
}

int ctp_opt_bool(PyObject *obj) { return obj != NULL && PyObject_IsTrue(obj) == 1; }

int ctp_opt_device(PyObject *obj, ct_device *out, int *has) {
    *has = 0;
    if (obj == NULL)
        return 0;
    if (ctp_parse_device_arg(obj, out) < 0)
        return -1;
    *has = out->type != CT_DEVICE_UNDEFINED;
    /* PyTorch initialises a device named for a new tensor first (maybe_initialize_device):
     * cuda without a device raises the no-driver error before anything else */
    return *has ? ctp_cuda_lazy_init_device(out) : 0;
}

int ctp_check_factory_options(ct_dtype dtype, PyObject *requires_grad, PyObject *names,
                              PyObject *out) {
    if (ctp_opt_bool(requires_grad)) {
        if (!ct_dtype_is_floating_point(dtype) && !ct_dtype_is_complex(dtype)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Only Tensors of floating point and complex dtype can require "
                            "gradients");
            return -1;
        }
        PyErr_SetString(PyExc_NotImplementedError,
                        "ctensor has no autograd: requires_grad=True is not supported");
        return -1;
    }
    if (names != NULL) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "ctensor does not support named tensors (names=...)");
        return -1;
    }
    if (out != NULL) {
        PyErr_SetString(PyExc_NotImplementedError, "ctensor does not support out= arguments");
        return -1;
    }
    return 0;
}

int ctp_check_strided_layout(const char *fname, ct_layout layout) {
    if (layout == CT_LAYOUT_STRIDED)
        return 0;
    PyErr_Format(PyExc_NotImplementedError, "%s(): layout ctensor.%s is not supported yet", fname,
                 ct_layout_name(layout));
    return -1;
}

/* ---- scalars ----------------------------------------------------------------------------- */

static int scalar_of_long(PyObject *obj, ct_scalar *out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow == 0) {
        *out = ct_scalar_int(v);
        return 0;
    }
    if (overflow > 0) { /* PyTorch's Scalar keeps ints up to 2**64 - 1 as unsigned */
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
            *out = ct_scalar_uint(u);
            return 0;
        }
        PyErr_Clear();
    }
    PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    return -1;
}

int ctp_int64_scalar_of_arg(PyObject *obj, ct_scalar *out) {
    if (ctp_scalar_of_arg(obj, out) < 0)
        return -1;
    if (out->kind != CT_SCALAR_UINT)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    return -1;
}

int ctp_scalar_of_arg(PyObject *obj, ct_scalar *out) {
    if (PyBool_Check(obj) || ctp_is_numpy_bool(obj)) {
        int b = PyObject_IsTrue(obj);
        if (b < 0)
            return -1;
        *out = ct_scalar_bool(b);
        return 0;
    }
    if (PyLong_Check(obj))
        return scalar_of_long(obj, out);
    if (ctp_is_int_arg(obj)) { /* NumPy integers */
        PyObject *index = PyNumber_Index(obj);
        if (index == NULL)
            return -1;
        int rc = scalar_of_long(index, out);
        Py_DECREF(index);
        return rc;
    }
    if (PyComplex_Check(obj) || ctp_type_has_base(obj, "numpy.complexfloating")) {
        Py_complex c = PyComplex_AsCComplex(obj);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        *out = ct_scalar_complex(c.real, c.imag);
        return 0;
    }
    ct_tensor *t = ctp_tensor_get(obj);
    if (t != NULL) {
        ct_status st = ct_tensor_item(t, out);
        if (st != CT_OK) {
            ctp_raise_status(st);
            return -1;
        }
        return 0;
    }
    double d = PyFloat_AsDouble(obj);
    if (d == -1.0 && PyErr_Occurred())
        return -1;
    *out = ct_scalar_float(d);
    return 0;
}

PyObject *ctp_scalar_to_object(ct_scalar value) {
    switch (value.kind) {
    case CT_SCALAR_BOOL:
        return PyBool_FromLong(value.v.b);
    case CT_SCALAR_INT:
        return PyLong_FromLongLong(value.v.i);
    case CT_SCALAR_UINT:
        return PyLong_FromUnsignedLongLong(value.v.u);
    case CT_SCALAR_FLOAT:
        return PyFloat_FromDouble(value.v.f);
    case CT_SCALAR_COMPLEX:
        return PyComplex_FromDoubles(value.v.c.re, value.v.c.im);
    }
    return PyErr_Format(PyExc_RuntimeError, "ctensor: invalid scalar kind %d", (int)value.kind);
}
