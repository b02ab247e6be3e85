/* ctensor.device: a device value, as torch.device.
 *
 * Behaviour follows torch/csrc/Device.cpp: two constructor overloads parsed by PyTorch's
 * argument parser (`device(Device device)`, `device(str type, int? index=-1)`), repr and
 * str as the C API formats them, equality and PyTorch's hash on (type, index), ordering
 * refused with "comparison not implemented", `__reduce__` to (ctensor.device, ('cuda', 1)),
 * no subclassing, read-only `type` and `index`. `with device:` makes it the default device of
 * factory functions on the calling thread until the block ends (newest PyTorch).
 *
 * Every rule about devices (grammar, index range, ordinals, the current accelerator) is the
 * C API's; this file converts Python arguments for it. Where PyTorch reads an argument
 * through C strings or fixed-size integers, ctensor refuses what would be cut or wrapped: a
 * NUL inside a device string, ints beyond int64 ("Overflow when unpacking long", as
 * PyTorch), indices above 127 (the C API's error).
 */
#include <string.h>

#include "ctensor_py.h"

/* ---- arguments ---------------------------------------------------------------------------- */

/* The two overloads, in PyTorch's order; "device" is newest PyTorch's spelling (1.13 printed
 * "Device"). */
static const ctp_signature device_sigs[] = {
    {1, {{CTP_PARAM_DEVICE, "device"}}},
    {2, {{CTP_PARAM_STRING, "type"}, {CTP_PARAM_INT64, "index=-1"}}},
};
#define N_DEVICE_SIGS ((int)(sizeof device_sigs / sizeof device_sigs[0]))

/* The UTF-8 text of a str or bytes device string, or NULL with an exception. */
static const char *device_string(PyObject *obj) {
    const char *s;
    Py_ssize_t len;
    if (PyBytes_Check(obj)) {
        s = PyBytes_AS_STRING(obj);
        len = PyBytes_GET_SIZE(obj);
    } else {
        s = PyUnicode_AsUTF8AndSize(obj, &len);
        if (s == NULL) { /* lone surrogates: PyTorch's THPUtils_unpackString message */
            PyErr_Clear();
            PyErr_SetString(PyExc_RuntimeError, "error unpacking string as utf-8");
            return NULL;
        }
    }
    if (strlen(s) != (size_t)len) {
        /* A NUL is outside the grammar, so the string is invalid; say so with all of it
         * (PyTorch's message stops at the NUL, and the C API would only see that prefix). */
        PyObject *text =
            PyBytes_Check(obj) ? PyUnicode_DecodeUTF8(s, len, "backslashreplace") : Py_NewRef(obj);
        if (text != NULL) {
            PyErr_Format(PyExc_RuntimeError, "Invalid device string: '%U'", text);
            Py_DECREF(text);
        }
        return NULL;
    }
    return s;
}

static int check(ct_status st) {
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

int ctp_is_device_arg(PyObject *obj) {
    return ctp_device_check(obj) || PyUnicode_Check(obj) || PyBytes_Check(obj) ||
           ctp_is_int_arg(obj);
}

int ctp_raise_not_a_device(PyObject *obj) {
    /* What ctensor.device(obj) raises: the parser's message for one bad argument. */
    PyObject *a[CTP_MAX_PARAMS];
    PyObject *args = PyTuple_Pack(1, obj);
    if (args == NULL)
        return -1;
    int sig = ctp_parse_args("device", device_sigs, N_DEVICE_SIGS, args, NULL, a);
    Py_DECREF(args);
    if (sig >= 0) /* obj was a device argument after all: a caller's mistake */
        PyErr_Format(PyExc_TypeError, "expected a device, got %s", Py_TYPE(obj)->tp_name);
    return -1;
}

int ctp_parse_device_arg(PyObject *obj, ct_device *out) {
    out->type = CT_DEVICE_UNDEFINED;
    out->index = CT_DEVICE_NO_INDEX;
    if (obj == Py_None)
        return 0;
    if (ctp_device_check(obj)) {
        *out = ((ctp_device_object *)obj)->device;
        return 0;
    }
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        const char *s = device_string(obj);
        return s == NULL ? -1 : check(ct_device_from_string(s, out));
    }
    if (ctp_is_int_arg(obj)) {
        int64_t ordinal;
        if (ctp_int64_of_arg(obj, &ordinal) < 0)
            return -1;
        return check(ct_device_from_ordinal(ordinal, out));
    }
    return ctp_raise_not_a_device(obj);
}

/* device(type, index): `index` NULL means None. */
static int device_from_type(PyObject *type_obj, PyObject *index_obj, ct_device *out) {
    const char *type = device_string(type_obj);
    if (type == NULL)
        return -1;
    /* PyTorch parses the type before it unpacks the index, so the type's errors come first
     * even when the index overflows. */
    if (check(ct_device_from_type(type, NULL, out)) < 0)
        return -1;
    if (index_obj == NULL)
        return 0;
    int64_t index;
    if (ctp_int64_of_arg(index_obj, &index) < 0)
        return -1;
    return check(ct_device_from_type(type, &index, out));
}

/* ---- the type ----------------------------------------------------------------------------- */

static PyObject *device_alloc(PyTypeObject *type, ct_device device) {
    ctp_device_object *self = (ctp_device_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->device = device;
    self->entries = NULL;
    self->nentries = self->capentries = 0;
    return (PyObject *)self;
}

PyObject *ctp_device_new(ct_device device) {
    if (!ct_device_is_valid(device)) {
        PyErr_Format(PyExc_RuntimeError, "ctensor: no device object for type %d index %d",
                     (int)device.type, (int)device.index);
        return NULL;
    }
    return device_alloc(&ctp_device_type, device);
}

static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_device d;
    int sig = ctp_parse_args("device", device_sigs, N_DEVICE_SIGS, args, kwargs, a);
    if (sig < 0)
        return NULL;
    int rc = sig == 0 ? ctp_parse_device_arg(a[0], &d) : device_from_type(a[0], a[1], &d);
    if (rc < 0)
        return NULL;
    return device_alloc(type, d);
}

static void device_dealloc(PyObject *self) {
    /* A scope still open here was entered by hand (__enter__ without __exit__); it holds a
     * copy of the device, not the object, so it stays valid until its thread pops it. */
    PyMem_Free(((ctp_device_object *)self)->entries);
    Py_TYPE(self)->tp_free(self);
}

static ct_device device_of(PyObject *self) { return ((ctp_device_object *)self)->device; }

static PyObject *device_repr(PyObject *self) {
    char buf[CT_DEVICE_STRING_MAX];
    ct_status st = ct_device_repr(device_of(self), buf, sizeof buf);
    return st == CT_OK ? PyUnicode_FromString(buf) : ctp_raise_status(st);
}

static PyObject *device_str(PyObject *self) {
    char buf[CT_DEVICE_STRING_MAX];
    ct_status st = ct_device_str(device_of(self), buf, sizeof buf);
    return st == CT_OK ? PyUnicode_FromString(buf) : ctp_raise_status(st);
}

static Py_hash_t device_hash(PyObject *self) {
    return (Py_hash_t)ct_device_hash(device_of(self)); /* < 2^24: never -1 */
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op) {
    if (!ctp_device_check(a) || !ctp_device_check(b))
        Py_RETURN_NOTIMPLEMENTED;
    switch (op) {
    case Py_EQ:
        return PyBool_FromLong(ct_device_equal(device_of(a), device_of(b)));
    case Py_NE:
        return PyBool_FromLong(!ct_device_equal(device_of(a), device_of(b)));
    default:
        PyErr_SetString(PyExc_TypeError, "comparison not implemented");
        return NULL;
    }
}

static PyObject *device_get_type(PyObject *self, void *closure) {
    (void)closure;
    return PyUnicode_FromString(ct_device_type_name(device_of(self).type));
}

static PyObject *device_get_index(PyObject *self, void *closure) {
    (void)closure;
    ct_device d = device_of(self);
    if (d.index == CT_DEVICE_NO_INDEX)
        Py_RETURN_NONE;
    return PyLong_FromLong(d.index);
}

static PyObject *device_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_device d = device_of(self);
    const char *name = ct_device_type_name(d.type);
    if (d.index == CT_DEVICE_NO_INDEX)
        return Py_BuildValue("(O(s))", (PyObject *)Py_TYPE(self), name);
    return Py_BuildValue("(O(si))", (PyObject *)Py_TYPE(self), name, (int)d.index);
}

/* `with device:` pushes a default-device scope on this thread and remembers its mark here,
 * so __exit__ restores exactly the state before __enter__, inner scopes left open included. */
static PyObject *device_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    ctp_device_object *dev = (ctp_device_object *)self;
    if (dev->nentries == dev->capentries) {
        Py_ssize_t cap = dev->capentries ? dev->capentries * 2 : 2;
        ctp_scope_entry *grown = PyMem_Realloc(dev->entries, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return PyErr_NoMemory();
        dev->entries = grown;
        dev->capentries = cap;
    }
    size_t mark;
    ct_status st = ct_default_device_push(dev->device, &mark);
    if (st != CT_OK) {
        ct_default_device_pop(mark);
        return ctp_raise_status(st);
    }
    dev->entries[dev->nentries++] = (ctp_scope_entry){PyThread_get_thread_ident(), mark};
    return Py_NewRef(self);
}

static PyObject *device_exit(PyObject *self, PyObject *args) {
    (void)args; /* (exc_type, exc, tb): the scope ends the same way with or without error */
    ctp_device_object *dev = (ctp_device_object *)self;
    unsigned long me = PyThread_get_thread_ident();
    for (Py_ssize_t i = dev->nentries - 1; i >= 0; i--) {
        if (dev->entries[i].thread != me)
            continue;
        ct_default_device_pop(dev->entries[i].mark);
        memmove(&dev->entries[i], &dev->entries[i + 1],
                (size_t)(dev->nentries - i - 1) * sizeof dev->entries[0]);
        dev->nentries--;
        Py_RETURN_NONE;
    }
    PyErr_SetString(PyExc_RuntimeError,
                    "device.__exit__() without a matching __enter__() on this thread");
    return NULL;
}

static PyGetSetDef device_getset[] = {
    {"type", device_get_type, NULL, NULL, NULL},
    {"index", device_get_index, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef device_methods[] = {
    {"__reduce__", device_reduce, METH_NOARGS, NULL},
    {"__enter__", device_enter, METH_NOARGS, NULL},
    {"__exit__", device_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* No Py_TPFLAGS_BASETYPE: torch.device is final too. */
/* clang-format off */
PyTypeObject ctp_device_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.device",
    .tp_basicsize = sizeof(ctp_device_object),
    .tp_dealloc = device_dealloc,
    .tp_repr = device_repr,
    .tp_hash = device_hash,
    .tp_str = device_str,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The device a tensor is or will be allocated on: a device type and an optional "
              "index.\n\ndevice(type, index=None), device('cuda:1'), device(device), "
              "device(ordinal).\nUse `with device:` to make it the default device of factory "
              "functions.",
    .tp_richcompare = device_richcompare,
    .tp_methods = device_methods,
    .tp_getset = device_getset,
    .tp_new = device_new,
};
/* clang-format on */

int ctp_device_init(PyObject *module) {
    if (PyType_Ready(&ctp_device_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "device", (PyObject *)&ctp_device_type);
}
