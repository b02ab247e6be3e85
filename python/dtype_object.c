/* ctensor.dtype: one immortal singleton per ct_dtype, as torch.dtype.
 *
 * Behaviour follows torch/csrc/Dtype.cpp: no constructor ("cannot create 'ctensor.dtype'
 * instances"), no subclassing, identity equality and hash (the object defaults), ordering
 * raises TypeError, repr and str "ctensor.<primary name>", __reduce__ returns the primary
 * name so pickle stores a reference to the module attribute. Every fact is asked of the
 * C API; nothing about dtypes is tabulated here.
 */
#include "ctensor_py.h"

/* The singletons, indexed by ct_dtype. They live for the whole process (the module holds
 * them and single-phase init never frees them), so borrowed references to them stay valid. */
static PyObject *singletons[CT_NUM_DTYPES];

PyObject *ctp_dtype_borrow(ct_dtype dtype) {
    if (!ct_dtype_is_valid(dtype))
        return NULL;
    return singletons[dtype];
}

PyObject *ctp_dtype_new_ref(ct_dtype dtype) {
    PyObject *obj = ctp_dtype_borrow(dtype);
    if (obj == NULL) {
        PyErr_Format(PyExc_RuntimeError, "ctensor: no dtype object for value %d", (int)dtype);
        return NULL;
    }
    Py_INCREF(obj);
    return obj;
}

static ct_dtype dtype_of(PyObject *self) { return ((ctp_dtype_object *)self)->dtype; }

static PyObject *dtype_repr(PyObject *self) {
    return PyUnicode_FromFormat("ctensor.%s", ct_dtype_name(dtype_of(self)));
}

static PyObject *dtype_is_floating_point(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(ct_dtype_is_floating_point(dtype_of(self)));
}

static PyObject *dtype_is_complex(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(ct_dtype_is_complex(dtype_of(self)));
}

static PyObject *dtype_is_signed(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(ct_dtype_is_signed(dtype_of(self)));
}

static PyObject *dtype_itemsize(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(ct_dtype_itemsize(dtype_of(self)));
}

static PyObject *dtype_abbr(PyObject *self, void *closure) {
    (void)closure;
    return PyUnicode_FromString(ct_dtype_abbr(dtype_of(self)));
}

static PyObject *dtype_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyUnicode_FromString(ct_dtype_name(dtype_of(self)));
}

/* PyTorch's to_real(): floating types map to themselves, everything else (complex, and
 * integers, which map to themselves too) through toRealValueType. */
static PyObject *dtype_to_real(PyObject *self, PyObject *unused) {
    (void)unused;
    return ctp_dtype_new_ref(ct_dtype_to_real(dtype_of(self)));
}

static PyObject *dtype_to_complex(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_dtype out;
    ct_status st = ct_dtype_to_complex(dtype_of(self), &out);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return ctp_dtype_new_ref(out);
}

static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, NULL, NULL, NULL},
    {"is_complex", dtype_is_complex, NULL, NULL, NULL},
    {"is_signed", dtype_is_signed, NULL, NULL, NULL},
    {"itemsize", dtype_itemsize, NULL, NULL, NULL},
    {"abbr", dtype_abbr, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, NULL},
    {"to_real", dtype_to_real, METH_NOARGS, NULL},
    {"to_complex", dtype_to_complex, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* tp_new stays NULL: Python then refuses instantiation with "cannot create 'ctensor.dtype'
 * instances", torch's message. No Py_TPFLAGS_BASETYPE: torch.dtype is final too. */
/* clang-format off */
PyTypeObject ctp_dtype_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.dtype",
    .tp_basicsize = sizeof(ctp_dtype_object),
    .tp_repr = dtype_repr,
    .tp_str = dtype_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = dtype_methods,
    .tp_getset = dtype_getset,
};
/* clang-format on */

static int create_singletons(void) {
    for (int i = 0; i < CT_NUM_DTYPES; i++) {
        if (singletons[i] != NULL)
            continue; /* a second initialisation keeps the first objects: identity matters */
        ctp_dtype_object *obj = PyObject_New(ctp_dtype_object, &ctp_dtype_type);
        if (obj == NULL)
            return -1;
        obj->dtype = (ct_dtype)i;
        singletons[i] = (PyObject *)obj;
    }
    return 0;
}

int ctp_dtype_init(PyObject *module) {
    if (PyType_Ready(&ctp_dtype_type) < 0)
        return -1;
    /* Instances report __module__ == "ctensor" (the type's dict supplies it), so pickle finds
     * ctensor.<name> directly, as torch does for torch.dtype. */
    if (PyDict_GetItemString(ctp_dtype_type.tp_dict, "__module__") == NULL) {
        PyObject *name = PyUnicode_FromString("ctensor");
        if (name == NULL)
            return -1;
        int rc = PyDict_SetItemString(ctp_dtype_type.tp_dict, "__module__", name);
        Py_DECREF(name);
        if (rc < 0)
            return -1;
        PyType_Modified(&ctp_dtype_type);
    }
    Py_INCREF(&ctp_dtype_type);
    if (PyModule_AddObject(module, "dtype", (PyObject *)&ctp_dtype_type) < 0) {
        Py_DECREF(&ctp_dtype_type);
        return -1;
    }
    if (create_singletons() < 0)
        return -1;
    for (int i = 0; i < CT_NUM_DTYPES; i++) {
        const char *names[2] = {ct_dtype_name((ct_dtype)i), ct_dtype_alias((ct_dtype)i)};
        for (int k = 0; k < 2; k++) {
            if (names[k] == NULL)
                continue;
            /* PyModule_AddObjectRef does not steal: the array keeps its own reference. */
            if (PyModule_AddObjectRef(module, names[k], singletons[i]) < 0)
                return -1;
        }
    }
    return 0;
}
