/* Module functions over devices: the default device of factory functions, the current
 * device, device counts, and the compatibility mode.
 *
 * set_default_device and get_default_device are newest PyTorch's (torch/__init__.py), and
 * like them take their arguments as Python functions do. set_device, current_device and
 * device_count are the device-type-generic forms of torch.cuda.set_device,
 * torch.cuda.current_device and torch.cuda.device_count (torch.accelerator, in
 * accelerator.c, has the accelerator-only ones). Every device argument goes through
 * ctp_parse_device_arg, so all of them accept a device, a string or an int ordinal.
 *
 * One difference from PyTorch: set_default_device sets the process-wide default of the C
 * API. (PyTorch keeps it in a threading.local, so each thread has its own.) Scopes entered
 * with `with device:` are per thread in both.
 */
#include <string.h>

#include "ctensor_py.h"

static PyObject *device_or_raise(ct_status st, ct_device d) {
    return st == CT_OK ? ctp_device_new(d) : ctp_raise_status(st);
}

int ctp_device_type_arg(PyObject *obj, ct_device_type *out) {
    ct_device d;
    if (obj == Py_None)
        return ctp_raise_not_a_device(obj);
    if (ctp_parse_device_arg(obj, &d) < 0)
        return -1;
    *out = d.type;
    return 0;
}

/* set_default_device(device): a device, str, int, or None for "no default". */
static PyObject *py_set_default_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device d;
    (void)self;
    if (ctp_parse_python_call("set_default_device", names, 1, 1, 0, args, kwargs, a) < 0 ||
        ctp_parse_device_arg(a[0], &d) < 0)
        return NULL;
    ct_status st = ct_set_default_device(d.type == CT_DEVICE_UNDEFINED ? NULL : &d);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

/* get_default_device(): the innermost `with device:` of this thread, else the default set,
 * else cpu; an accelerator without index answers with its current device. */
static PyObject *py_get_default_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_device d;
    (void)self;
    if (ctp_check_posonly_call("get_default_device", NULL, 0, args, kwargs) < 0)
        return NULL;
    ct_status st = ct_get_default_device(&d);
    return device_or_raise(st, d);
}

/* set_device(device): make `device` the calling thread's current device of its type. */
static PyObject *py_set_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device d;
    (void)self;
    if (ctp_parse_python_call("set_device", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (a[0] == Py_None) {
        ctp_raise_not_a_device(a[0]);
        return NULL;
    }
    if (ctp_parse_device_arg(a[0], &d) < 0)
        return NULL;
    ct_status st = ct_set_device(d);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

/* The type named by an optional `type` argument; None means the current accelerator.
 * Returns 0, 1 when None was given and there is no accelerator, -1 with an exception. */
static int type_or_accelerator(PyObject *obj, ct_device_type *out) {
    if (obj != NULL && obj != Py_None)
        return ctp_device_type_arg(obj, out);
    return ct_current_accelerator(out) == CT_OK ? 0 : 1;
}

/* current_device(type=None): the calling thread's current device of a type (cpu -> cpu). */
static PyObject *py_current_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"type"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device_type type;
    ct_device d;
    (void)self;
    if (ctp_parse_python_call("current_device", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    int rc = type_or_accelerator(a[0], &type);
    if (rc < 0)
        return NULL;
    if (rc > 0) /* the C API's "Cannot access accelerator device when none is available." */
        return ctp_raise_status(CT_ERR_RUNTIME);
    return device_or_raise(ct_current_device(type, &d), d);
}

/* device_count(type=None): devices of a type; 0 without backend (or accelerator). */
static PyObject *py_device_count(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"type"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device_type type;
    int32_t n = 0;
    (void)self;
    if (ctp_parse_python_call("device_count", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    int rc = type_or_accelerator(a[0], &type);
    if (rc < 0)
        return NULL;
    if (rc == 0) {
        ct_status st = ct_device_count(type, &n);
        if (st != CT_OK)
            return ctp_raise_status(st);
    }
    return PyLong_FromLong(n);
}

/* ---- compatibility mode ----------------------------------------------------------------- */

static const struct {
    const char *name;
    ct_compat_mode mode;
} compat_modes[] = {{"pytorch", CT_COMPAT_PYTORCH}, {"oneflow", CT_COMPAT_ONEFLOW}};
#define N_COMPAT_MODES (sizeof compat_modes / sizeof compat_modes[0])

/* set_compat_mode(mode): 'pytorch' (newest PyTorch, the default) or 'oneflow' (OneFlow's
 * documented differences: devices always carry an index, an ordinal means cuda). */
static PyObject *py_set_compat_mode(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"mode"};
    PyObject *a[CTP_MAX_PARAMS];
    (void)self;
    if (ctp_parse_python_call("set_compat_mode", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (!PyUnicode_Check(a[0]))
        return PyErr_Format(PyExc_TypeError,
                            "set_compat_mode(): argument 'mode' must be str, not %s",
                            Py_TYPE(a[0])->tp_name);
    for (size_t i = 0; i < N_COMPAT_MODES; i++) {
        if (PyUnicode_CompareWithASCIIString(a[0], compat_modes[i].name) == 0) {
            ct_status st = ct_set_compat_mode(compat_modes[i].mode);
            if (st != CT_OK)
                return ctp_raise_status(st);
            Py_RETURN_NONE;
        }
    }
    return PyErr_Format(PyExc_ValueError,
                        "Unknown compatibility mode %R: expected 'pytorch' or 'oneflow'", a[0]);
}

static PyObject *py_get_compat_mode(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("get_compat_mode", NULL, 0, args, kwargs) < 0)
        return NULL;
    ct_compat_mode mode = ct_get_compat_mode();
    for (size_t i = 0; i < N_COMPAT_MODES; i++)
        if (compat_modes[i].mode == mode)
            return PyUnicode_FromString(compat_modes[i].name);
    return PyErr_Format(PyExc_RuntimeError, "ctensor: unknown compatibility mode %d", (int)mode);
}

/* clang-format off */
PyMethodDef ctp_device_functions[] = {
    {"set_default_device", CTP_KW_FUNC(py_set_default_device),
     METH_VARARGS | METH_KEYWORDS,
     "set_default_device(device) -> None\n\n"
     "Make `device` (a device, str or int; None for none) the default device of factory "
     "functions."},
    {"get_default_device", CTP_KW_FUNC(py_get_default_device),
     METH_VARARGS | METH_KEYWORDS,
     "get_default_device() -> device\n\n"
     "The device factory functions allocate on by default."},
    {"set_device", CTP_KW_FUNC(py_set_device), METH_VARARGS | METH_KEYWORDS,
     "set_device(device) -> None\n\n"
     "Make `device` the calling thread's current device of its type."},
    {"current_device", CTP_KW_FUNC(py_current_device),
     METH_VARARGS | METH_KEYWORDS,
     "current_device(type=None) -> device\n\n"
     "The calling thread's current device of `type` (default: the current accelerator)."},
    {"device_count", CTP_KW_FUNC(py_device_count), METH_VARARGS | METH_KEYWORDS,
     "device_count(type=None) -> int\n\n"
     "The number of devices of `type` (default: the current accelerator; 0 if none)."},
    {"set_compat_mode", CTP_KW_FUNC(py_set_compat_mode),
     METH_VARARGS | METH_KEYWORDS,
     "set_compat_mode(mode) -> None\n\n"
     "Follow newest PyTorch ('pytorch', the default) or OneFlow's differences ('oneflow')."},
    {"get_compat_mode", CTP_KW_FUNC(py_get_compat_mode),
     METH_VARARGS | METH_KEYWORDS,
     "get_compat_mode() -> str\n\n"
     "The compatibility mode: 'pytorch' or 'oneflow'."},
    {NULL, NULL, 0, NULL},
};
/* clang-format on */
