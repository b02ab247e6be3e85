/* ctensor.layout and ctensor.memory_format: one immortal singleton per value, as
 * torch.layout and torch.memory_format (torch/csrc/Layout.cpp, MemoryFormat.cpp).
 *
 * Both behave like ctensor.dtype: no constructor, no subclassing, identity equality and
 * hash, repr and str "ctensor.strided", __reduce__ returning the attribute name so pickle
 * stores a reference to the module attribute. Names and values come from the C API.
 */
#include "ctensor_py.h"

static PyObject *layouts[CT_NUM_LAYOUTS];
static PyObject *formats[CT_NUM_MEMORY_FORMATS];

static ct_layout layout_of(PyObject *self) { return ((ctp_layout_object *)self)->layout; }

static ct_memory_format format_of(PyObject *self) {
    return ((ctp_memory_format_object *)self)->format;
}

static PyObject *layout_repr(PyObject *self) {
    return PyUnicode_FromFormat("ctensor.%s", ct_layout_name(layout_of(self)));
}

static PyObject *layout_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyUnicode_FromString(ct_layout_name(layout_of(self)));
}

static PyObject *format_repr(PyObject *self) {
    return PyUnicode_FromFormat("ctensor.%s", ct_memory_format_name(format_of(self)));
}

static PyObject *format_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyUnicode_FromString(ct_memory_format_name(format_of(self)));
}

static PyMethodDef layout_methods[] = {
    {"__reduce__", layout_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef format_methods[] = {
    {"__reduce__", format_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* tp_new NULL: "cannot create 'ctensor.layout' instances", as torch says for torch.layout. */
/* clang-format off */
PyTypeObject ctp_layout_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.layout",
    .tp_basicsize = sizeof(ctp_layout_object),
    .tp_repr = layout_repr,
    .tp_str = layout_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory layout of a tensor: ctensor.strided (dense) or a sparse layout.",
    .tp_methods = layout_methods,
};

PyTypeObject ctp_memory_format_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.memory_format",
    .tp_basicsize = sizeof(ctp_memory_format_object),
    .tp_repr = format_repr,
    .tp_str = format_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory format a tensor is or will be allocated in: contiguous_format, "
              "channels_last, channels_last_3d, or preserve_format (keep the input's).",
    .tp_methods = format_methods,
};
/* clang-format on */

PyObject *ctp_layout_new_ref(ct_layout layout) {
    if (!ct_layout_is_valid(layout) || layouts[layout] == NULL)
        return PyErr_Format(PyExc_RuntimeError, "ctensor: no layout object for value %d",
                            (int)layout);
    return Py_NewRef(layouts[layout]);
}

PyObject *ctp_memory_format_new_ref(ct_memory_format format) {
    if (!ct_memory_format_is_valid(format) || formats[format] == NULL)
        return PyErr_Format(PyExc_RuntimeError, "ctensor: no memory format object for value %d",
                            (int)format);
    return Py_NewRef(formats[format]);
}

/* Instances report __module__ "ctensor" (the type's dict supplies it), for pickle. */
static int ready_type(PyObject *module, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0)
        return -1;
    if (PyDict_GetItemString(type->tp_dict, "__module__") == NULL) {
        PyObject *mod = PyUnicode_FromString("ctensor");
        if (mod == NULL)
            return -1;
        int rc = PyDict_SetItemString(type->tp_dict, "__module__", mod);
        Py_DECREF(mod);
        if (rc < 0)
            return -1;
        PyType_Modified(type);
    }
    return PyModule_AddObjectRef(module, name, (PyObject *)type);
}

int ctp_layout_init(PyObject *module) {
    if (ready_type(module, &ctp_layout_type, "layout") < 0 ||
        ready_type(module, &ctp_memory_format_type, "memory_format") < 0)
        return -1;
    /* A second initialisation keeps the first objects: identity matters. */
    for (int i = 0; i < CT_NUM_LAYOUTS; i++) {
        if (layouts[i] == NULL) {
            ctp_layout_object *obj = PyObject_New(ctp_layout_object, &ctp_layout_type);
            if (obj == NULL)
                return -1;
            obj->layout = (ct_layout)i;
            layouts[i] = (PyObject *)obj;
        }
        if (PyModule_AddObjectRef(module, ct_layout_name((ct_layout)i), layouts[i]) < 0)
            return -1;
    }
    for (int i = 0; i < CT_NUM_MEMORY_FORMATS; i++) {
        if (formats[i] == NULL) {
            ctp_memory_format_object *obj =
                PyObject_New(ctp_memory_format_object, &ctp_memory_format_type);
            if (obj == NULL)
                return -1;
            obj->format = (ct_memory_format)i;
            formats[i] = (PyObject *)obj;
        }
        if (PyModule_AddObjectRef(module, ct_memory_format_name((ct_memory_format)i), formats[i]) <
            0)
            return -1;
    }
    return 0;
}
