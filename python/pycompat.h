/* The CPython API the module uses that older supported versions (3.9, 3.10) lack, spelled as
 * the newer versions define it, so the module builds for any CPython >= 3.9 (pyproject.toml). */
#ifndef CTENSOR_PYCOMPAT_H
#define CTENSOR_PYCOMPAT_H

#include <Python.h>

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *ctp_compat_new_ref(PyObject *obj) {
    Py_INCREF(obj);
    return obj;
}
static inline PyObject *ctp_compat_xnew_ref(PyObject *obj) {
    Py_XINCREF(obj);
    return obj;
}
#define Py_NewRef(obj) ctp_compat_new_ref((PyObject *)(obj))
#define Py_XNewRef(obj) ctp_compat_xnew_ref((PyObject *)(obj))

static inline int PyModule_AddObjectRef(PyObject *module, const char *name, PyObject *value) {
    if (value == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "PyModule_AddObjectRef() must be called with an "
                                               "exception raised if value is NULL");
        return -1;
    }
    Py_INCREF(value);
    if (PyModule_AddObject(module, name, value) < 0) { /* steals only on success */
        Py_DECREF(value);
        return -1;
    }
    return 0;
}
#endif

#if PY_VERSION_HEX < 0x030B0000
static inline PyObject *PyType_GetName(PyTypeObject *type) {
    return PyObject_GetAttrString((PyObject *)type, "__name__");
}
#endif

#endif /* CTENSOR_PYCOMPAT_H */
