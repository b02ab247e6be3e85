/* ctensor.accelerator: newest PyTorch's torch.accelerator over the C API.
 *
 * The current accelerator is ct_current_accelerator's: PrivateUse1 when a backend is
 * registered for it, else the first of cuda, mtia, xpu, hip, mps, hpu with a device. The
 * functions are written in Python in PyTorch, so they take arguments as Python functions do
 * (ctp_parse_python_call). Where PyTorch's checks are loose, these are strict:
 * set_device_index(True) is refused rather than read as device 1, and a device of another
 * type than the accelerator is refused (PyTorch's check compares a device with a string and
 * never fires).
 */
#include "ctensor_py.h"

/* The current accelerator, or -1 with the C API's RuntimeError ("Cannot access accelerator
 * device when none is available."). */
static int accelerator(ct_device_type *out) {
    ct_status st = ct_current_accelerator(out);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

static int32_t count_of(ct_device_type type) {
    int32_t n = 0;
    return ct_device_count(type, &n) == CT_OK ? n : 0;
}

/* current_accelerator(check_available=False): device('npu') or None. */
static PyObject *py_current_accelerator(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"check_available"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device_type type;
    (void)self;
    if (ctp_parse_python_call("current_accelerator", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    int check_available = a[0] != NULL ? PyObject_IsTrue(a[0]) : 0;
    if (check_available < 0)
        return NULL;
    if (ct_current_accelerator(&type) != CT_OK || (check_available && count_of(type) == 0))
        Py_RETURN_NONE;
    return ctp_device_new((ct_device){type, CT_DEVICE_NO_INDEX});
}

static PyObject *py_device_count(PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_device_type type;
    (void)self;
    if (ctp_check_posonly_call("device_count", NULL, 0, args, kwargs) < 0)
        return NULL;
    return PyLong_FromLong(ct_current_accelerator(&type) == CT_OK ? count_of(type) : 0);
}

static PyObject *py_is_available(PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_device_type type;
    (void)self;
    if (ctp_check_posonly_call("is_available", NULL, 0, args, kwargs) < 0)
        return NULL;
    return PyBool_FromLong(ct_current_accelerator(&type) == CT_OK && count_of(type) > 0);
}

static PyObject *py_current_device_index(PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_device_type type;
    ct_device d;
    (void)self;
    if (ctp_check_posonly_call("current_device_index", NULL, 0, args, kwargs) < 0 ||
        accelerator(&type) < 0)
        return NULL;
    ct_status st = ct_current_device(type, &d);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return PyLong_FromLong(d.index);
}

/* A device argument of the accelerator functions: an int is an index of the accelerator
 * (negative: none, *out index -1), a string or device must be of the accelerator's type.
 * With `need_index`, a device without index is refused as PyTorch refuses it. */
static int accelerator_device(PyObject *obj, int need_index, ct_device *out) {
    ct_device_type type;
    if (ctp_is_int_arg(obj)) {
        int64_t index;
        if (ctp_int64_of_arg(obj, &index) < 0)
            return -1;
        out->type = CT_DEVICE_UNDEFINED;
        out->index = CT_DEVICE_NO_INDEX;
        if (index < 0) /* PyTorch: a negative index does nothing */
            return 0;
        if (accelerator(&type) < 0)
            return -1;
        ct_status st = ct_device_make(type, index, out);
        if (st != CT_OK) {
            ctp_raise_status(st);
            return -1;
        }
        return 0;
    }
    if (obj == Py_None || !ctp_is_device_arg(obj)) {
        PyErr_Format(PyExc_ValueError,
                     "Expected a ctensor.device with a specified index or an integer, but got:%S",
                     obj);
        return -1;
    }
    if (ctp_parse_device_arg(obj, out) < 0 || accelerator(&type) < 0)
        return -1;
    if (out->type != type) {
        PyErr_Format(PyExc_ValueError, "%s doesn't match the current accelerator %s.",
                     ct_device_type_name(out->type), ct_device_type_name(type));
        return -1;
    }
    if (need_index && out->index == CT_DEVICE_NO_INDEX) {
        PyObject *text = PyObject_Str(obj);
        if (text != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "Expected a ctensor.device with a specified index or an integer, but "
                         "got:%U",
                         text);
            Py_DECREF(text);
        }
        return -1;
    }
    return 0;
}

/* set_device_index(device, /): make it the calling thread's current accelerator device. */
static PyObject *py_set_device_index(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device d;
    (void)self;
    if (ctp_parse_python_call("set_device_index", names, 1, 1, 1, args, kwargs, a) < 0 ||
        accelerator_device(a[0], 1, &d) < 0)
        return NULL;
    if (d.type != CT_DEVICE_UNDEFINED) {
        ct_status st = ct_set_device(d);
        if (st != CT_OK)
            return ctp_raise_status(st);
    }
    Py_RETURN_NONE;
}

/* synchronize(device=None, /): wait for a device of the accelerator (default: current). */
static PyObject *py_synchronize(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device d = {CT_DEVICE_UNDEFINED, CT_DEVICE_NO_INDEX};
    (void)self;
    if (ctp_parse_python_call("synchronize", names, 1, 0, 1, args, kwargs, a) < 0)
        return NULL;
    if (a[0] != NULL && a[0] != Py_None && accelerator_device(a[0], 0, &d) < 0)
        return NULL;
    if (d.type == CT_DEVICE_UNDEFINED) { /* None or a negative index: the current device */
        if (accelerator(&d.type) < 0)
            return NULL;
        d.index = CT_DEVICE_NO_INDEX;
    }
    ct_status st = ct_device_synchronize(d);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

static PyMethodDef accelerator_functions[] = {
    {"current_accelerator", CTP_KW_FUNC(py_current_accelerator), METH_VARARGS | METH_KEYWORDS,
     "current_accelerator(check_available=False) -> device | None\n\n"
     "The accelerator type as a device without index, or None when there is none (or, with\n"
     "check_available, when it has no device)."},
    {"device_count", CTP_KW_FUNC(py_device_count), METH_VARARGS | METH_KEYWORDS,
     "device_count() -> int\n\nThe number of devices of the accelerator; 0 without one."},
    {"is_available", CTP_KW_FUNC(py_is_available), METH_VARARGS | METH_KEYWORDS,
     "is_available() -> bool\n\nWhether there is an accelerator with at least one device."},
    {"current_device_index", CTP_KW_FUNC(py_current_device_index), METH_VARARGS | METH_KEYWORDS,
     "current_device_index() -> int\n\n"
     "The calling thread's current device index of the accelerator."},
    {"set_device_index", CTP_KW_FUNC(py_set_device_index), METH_VARARGS | METH_KEYWORDS,
     "set_device_index(device, /) -> None\n\n"
     "Make `device` (an index, or a device of the accelerator's type with an index) the\n"
     "calling thread's current device; a negative index does nothing."},
    {"synchronize", CTP_KW_FUNC(py_synchronize), METH_VARARGS | METH_KEYWORDS,
     "synchronize(device=None, /) -> None\n\n"
     "Wait for the work queued on a device of the accelerator (default: the current one)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef accelerator_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor.accelerator",
    .m_doc = "The current accelerator (torch.accelerator): its type, devices and current device.",
    .m_size = -1,
    .m_methods = accelerator_functions,
};

int ctp_accelerator_init(PyObject *module) {
    return ctp_add_submodule(module, &accelerator_module, "accelerator") == NULL ? -1 : 0;
}
