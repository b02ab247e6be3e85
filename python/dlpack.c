/* The Python DLPack protocol: Tensor.__dlpack__, Tensor.__dlpack_device__ and
 * ctensor.from_dlpack, over the C API of include/ctensor/dlpack.h.
 *
 * Capsules (the protocol every producer and consumer follows):
 *  - __dlpack__ returns a capsule named "dltensor_versioned" holding a
 *    ct_dl_managed_tensor_versioned when the consumer passes max_version >= (1, 0), and a
 *    "dltensor" capsule holding the unversioned struct otherwise (old consumers such as
 *    PyTorch 1.13 and NumPy 1.x call __dlpack__() without max_version).
 *  - A consumer renames the capsule to "used_dltensor[_versioned]" when it takes the managed
 *    tensor over; the capsule's destructor calls the deleter only while the capsule still
 *    has its original name, i.e. when nobody consumed it.
 *  - from_dlpack renames the capsule BEFORE calling the C import, which owns the managed
 *    tensor from its first line (it calls the deleter itself on failure), so the deleter
 *    runs exactly once whatever happens.
 *
 * from_dlpack(x, /, *, device=None, copy=None) asks a producer for max_version=(1, 1) (plus
 * dl_device and copy when given) and, when the producer's __dlpack__ does not take these
 * keywords (a TypeError: PyTorch 1.13, NumPy < 2), calls it again with no arguments and
 * does the copy itself. It also accepts capsules directly (torch.utils.dlpack.to_dlpack).
 * Tensors flagged read-only are shared anyway: ctensor has no read-only tensors and the
 * Array API recommends sharing over refusing or copying.
 *
 * Streams (CUDA): __dlpack__(stream=s) of a cuda tensor orders the consumer's stream `s`
 * (None: the legacy default stream; -1: no ordering) after the work queued on our current
 * stream of its device; from_dlpack of a cuda producer passes our current stream of that
 * device (1 for the legacy default stream, as the protocol numbers it). Other tensors have
 * no streams: stream must be None or -1.
 *
 * Errors: __dlpack__ and __dlpack_device__ raise BufferError for tensors DLPack cannot
 * describe (meta, sparse); from_dlpack raises the exception of the C status (ValueError for
 * malformed or unsupported tensors, TypeError for unsupported dtypes).
 */
#include <string.h>

#include "ctensor_py.h"

/* Note [Releasing the GIL]
 * The GIL is what keeps a tensor's metadata still while the binding works on it: with it
 * released, another thread may run an out= that resizes the same tensor object (new sizes,
 * strides and storage, the old ones freed). So the GIL is released only around work on
 * objects no other thread can reach: an alias taken while holding the GIL (its geometry is
 * its own and it holds the storage), or a tensor this call has just made. Writes by other
 * threads to the elements themselves remain the caller's data race, as in PyTorch. */

int ctp_dlpack_init(PyObject *module);

/* ---- capsules --------------------------------------------------------------------------- */

/* A capsule destructor may run while an exception is set (garbage collected during
 * unwinding); it must leave that exception as it found it. */
#if PY_VERSION_HEX >= 0x030C0000
#define SAVE_ERROR PyObject *saved_error = PyErr_GetRaisedException()
#define RESTORE_ERROR PyErr_SetRaisedException(saved_error)
#else
#define SAVE_ERROR                                                                                 \
    PyObject *saved_type, *saved_value, *saved_tb;                                                 \
    PyErr_Fetch(&saved_type, &saved_value, &saved_tb)
#define RESTORE_ERROR PyErr_Restore(saved_type, saved_value, saved_tb)
#endif

static void destroy_plain_capsule(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, CT_DLPACK_CAPSULE_NAME))
        return; /* consumed: the consumer owns the deleter now */
    SAVE_ERROR;
    ct_dl_managed_tensor *m = PyCapsule_GetPointer(capsule, CT_DLPACK_CAPSULE_NAME);
    if (m != NULL && m->deleter != NULL)
        m->deleter(m);
    RESTORE_ERROR;
}

static void destroy_versioned_capsule(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, CT_DLPACK_VERSIONED_CAPSULE_NAME))
        return;
    SAVE_ERROR;
    ct_dl_managed_tensor_versioned *m =
        PyCapsule_GetPointer(capsule, CT_DLPACK_VERSIONED_CAPSULE_NAME);
    if (m != NULL && m->deleter != NULL)
        m->deleter(m);
    RESTORE_ERROR;
}

/* The exception of a failed export: BufferError (the protocol's), MemoryError for memory. */
static PyObject *raise_export_error(ct_status st) {
    if (st == CT_ERR_NOMEM || st == CT_ERR_MISUSE)
        return ctp_raise_status(st);
    return ctp_raise_status_as(PyExc_BufferError, st);
}

/* ---- Tensor.__dlpack_device__ ----------------------------------------------------------- */

static PyObject *tensor_dlpack_device(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_dl_device dev;
    ct_status st = ct_tensor_dlpack_device(ctp_tensor_get(self), &dev);
    if (st == CT_OK && ct_tensor_layout(ctp_tensor_get(self)) != CT_LAYOUT_STRIDED)
        st = ct_set_error(CT_ERR_RUNTIME,
                          "Can't export tensors with layout other than torch.strided");
    if (st == CT_OK && ct_tensor_is_meta(ctp_tensor_get(self)))
        st = ct_set_error(CT_ERR_RUNTIME, "Cannot pack tensors on meta");
    if (st != CT_OK)
        return raise_export_error(st);
    return Py_BuildValue("(ii)", (int)dev.device_type, (int)dev.device_id);
}

/* ---- Tensor.__dlpack__ ------------------------------------------------------------------ */

/* max_version: None -> 0 (unversioned); a (major, minor) tuple -> its major. -1 on error. */
static int requested_major(PyObject *max_version, long *major) {
    *major = 0;
    if (max_version == NULL || max_version == Py_None)
        return 0;
    if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
        PyErr_SetString(PyExc_TypeError,
                        "__dlpack__(): max_version must be None or a tuple (major, minor)");
        return -1;
    }
    *major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
    if (*major == -1 && PyErr_Occurred())
        return -1;
    if (PyLong_AsLong(PyTuple_GET_ITEM(max_version, 1)) == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* dl_device: NULL/None, or a (device_type, device_id) tuple into *out (*given set). */
static int parse_dl_device(PyObject *obj, ct_dl_device *out, int *given) {
    *given = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_SetString(PyExc_TypeError,
                        "dl_device must be None or a tuple (device_type, device_id)");
        return -1;
    }
    long type = PyLong_AsLong(PyTuple_GET_ITEM(obj, 0));
    if (type == -1 && PyErr_Occurred())
        return -1;
    long id = PyLong_AsLong(PyTuple_GET_ITEM(obj, 1));
    if (id == -1 && PyErr_Occurred())
        return -1;
    if (type < INT32_MIN || type > INT32_MAX || id < INT32_MIN || id > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "dl_device values out of range");
        return -1;
    }
    out->device_type = (int32_t)type;
    out->device_id = (int32_t)id;
    *given = 1;
    return 0;
}

/* copy: NULL/None -> -1 (as needed), False -> 0, True -> 1; -2 with an exception. */
static int parse_copy(PyObject *obj) {
    if (obj == NULL || obj == Py_None)
        return -1;
    if (!PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "copy must be None or a bool, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -2;
    }
    return obj == Py_True;
}

/* The copy __dlpack__ exports: to the cpu, or a clone. Runs without the GIL; consumes
 * `alias`, which no other thread can reach. */
static ct_status export_copy(ct_tensor *alias, bool to_cpu, ct_tensor **out) {
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_status st =
        to_cpu ? ct_tensor_to(alias, CT_DTYPE_UNDEFINED, &cpu, true, CT_MEMFMT_PRESERVE, out)
               : ct_tensor_clone(alias, CT_MEMFMT_PRESERVE, out);
    ct_tensor_release(alias);
    return st;
}

static PyObject *tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {(char *)"stream", (char *)"max_version", (char *)"dl_device",
                             (char *)"copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device_obj = Py_None,
             *copy_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$OOO:__dlpack__", kwlist, &stream,
                                     &max_version, &dl_device_obj, &copy_obj))
        return NULL;
    if (stream != Py_None && (!PyLong_Check(stream) || PyBool_Check(stream))) {
        PyErr_SetString(PyExc_TypeError, "stream must be ``int`` or ``none``");
        return NULL;
    }
    /* Tensors of the CUDA backend take the consumer's stream (ctp_cuda_dlpack_export_sync);
     * others have no streams: None, or -1 ("no synchronization"), are the only values. */
    int cuda_streams =
        ctp_cuda_real_backend() && ct_tensor_device(ctp_tensor_get(self)).type == CT_DEVICE_CUDA;
    if (stream != Py_None && !cuda_streams) {
        long s = PyLong_AsLong(stream);
        if (s == -1 && PyErr_Occurred())
            return NULL;
        if (s != -1) {
            PyErr_Format(PyExc_ValueError,
                         "__dlpack__(): ctensor has no streams; stream must be None or -1, "
                         "got %ld",
                         s);
            return NULL;
        }
    }
    long major;
    ct_dl_device want;
    int want_given, copy = parse_copy(copy_obj);
    if (copy == -2 || requested_major(max_version, &major) < 0 ||
        parse_dl_device(dl_device_obj, &want, &want_given) < 0)
        return NULL;

    ct_tensor *src = ctp_tensor_get(self);
    ct_dl_device have;
    ct_status st = ct_tensor_dlpack_device(src, &have);
    if (st == CT_OK && ct_tensor_layout(src) != CT_LAYOUT_STRIDED)
        st = ct_set_error(CT_ERR_RUNTIME,
                          "Can't export tensors with layout other than torch.strided");
    if (st != CT_OK)
        return raise_export_error(st);

    /* what to export: the tensor itself (the C export takes its own alias), or a copy
     * (asked for, or to reach the cpu) */
    ct_tensor *t = NULL;
    bool copied = false;
    bool to_cpu =
        want_given && (want.device_type != have.device_type || want.device_id != have.device_id);
    if (to_cpu && (want.device_type != CT_DL_CPU || copy == 0)) {
        PyErr_Format(PyExc_BufferError,
                     "__dlpack__(): cannot export a tensor on DLPack device (%d, %d) to "
                     "device (%d, %d)%s",
                     (int)have.device_type, (int)have.device_id, (int)want.device_type,
                     (int)want.device_id, copy == 0 ? " without copying (copy=False)" : "");
        return NULL;
    }
    if (to_cpu || copy == 1) {
        /* See Note [Releasing the GIL]: copy an alias taken under the GIL, not self's tensor. */
        ct_tensor *alias = NULL;
        st = ct_tensor_alias(src, &alias);
        if (st != CT_OK)
            return raise_export_error(st);
        Py_BEGIN_ALLOW_THREADS st = export_copy(alias, to_cpu, &t);
        Py_END_ALLOW_THREADS copied = true;
    } else {
        t = ct_tensor_retain(src);
    }
    if (st != CT_OK)
        return raise_export_error(st);
    /* the consumer's stream must see our work on the memory it gets */
    if (cuda_streams && ct_tensor_device(t).type == CT_DEVICE_CUDA &&
        ctp_cuda_dlpack_export_sync(ct_tensor_device(t), stream) < 0) {
        ct_tensor_release(t);
        return NULL;
    }

    PyObject *capsule = NULL;
    if (major >= 1) {
        ct_dl_managed_tensor_versioned *m = NULL;
        st = ct_tensor_to_dlpack_versioned(t, copied ? CT_DLPACK_FLAG_IS_COPIED : 0, &m);
        ct_tensor_release(t);
        if (st != CT_OK)
            return raise_export_error(st);
        capsule = PyCapsule_New(m, CT_DLPACK_VERSIONED_CAPSULE_NAME, destroy_versioned_capsule);
        if (capsule == NULL)
            m->deleter(m);
    } else {
        ct_dl_managed_tensor *m = NULL;
        st = ct_tensor_to_dlpack(t, &m);
        ct_tensor_release(t);
        if (st != CT_OK)
            return raise_export_error(st);
        capsule = PyCapsule_New(m, CT_DLPACK_CAPSULE_NAME, destroy_plain_capsule);
        if (capsule == NULL)
            m->deleter(m);
    }
    return capsule;
}

/* ---- ctensor.from_dlpack ---------------------------------------------------------------- */

/* Import a capsule (consuming it). New tensor in *out and the producer's flags; 0, or -1
 * with an exception set. */
static int import_capsule(PyObject *capsule, ct_tensor **out, uint64_t *flags) {
    *out = NULL;
    *flags = 0;
    ct_status st;
    if (PyCapsule_IsValid(capsule, CT_DLPACK_VERSIONED_CAPSULE_NAME)) {
        ct_dl_managed_tensor_versioned *m =
            PyCapsule_GetPointer(capsule, CT_DLPACK_VERSIONED_CAPSULE_NAME);
        if (m == NULL || PyCapsule_SetName(capsule, CT_DLPACK_VERSIONED_CAPSULE_USED_NAME) < 0)
            return -1;
        st = ct_tensor_from_dlpack_versioned(m, CT_DLPACK_IMPORT_DEFAULT, flags, out);
    } else if (PyCapsule_IsValid(capsule, CT_DLPACK_CAPSULE_NAME)) {
        ct_dl_managed_tensor *m = PyCapsule_GetPointer(capsule, CT_DLPACK_CAPSULE_NAME);
        if (m == NULL || PyCapsule_SetName(capsule, CT_DLPACK_CAPSULE_USED_NAME) < 0)
            return -1;
        st = ct_tensor_from_dlpack(m, out);
    } else {
        const char *name = PyCapsule_GetName(capsule);
        if (name == NULL && PyErr_Occurred())
            return -1;
        if (name != NULL && (strcmp(name, CT_DLPACK_CAPSULE_USED_NAME) == 0 ||
                             strcmp(name, CT_DLPACK_VERSIONED_CAPSULE_USED_NAME) == 0))
            PyErr_SetString(PyExc_ValueError,
                            "from_dlpack(): the DLPack capsule was already consumed (a capsule "
                            "can be imported only once)");
        else
            PyErr_Format(PyExc_ValueError,
                         "from_dlpack(): expected a capsule named 'dltensor' or "
                         "'dltensor_versioned', got %s%s%s",
                         name != NULL ? "'" : "", name != NULL ? name : "an unnamed capsule",
                         name != NULL ? "'" : "");
        return -1;
    }
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

/* x.__dlpack__(max_version=(1, 1)[, dl_device=..., copy=..., stream=...]), falling back to
 * x.__dlpack__([stream=...]) for producers that take none of the newer keywords. *fallback
 * tells which. `stream` (NULL: none) is the consumer's stream for a cuda producer. */
static PyObject *call_producer(PyObject *obj, PyObject *dl_device, PyObject *copy, PyObject *stream,
                               int *fallback) {
    *fallback = 0;
    PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
    if (method == NULL)
        return NULL;
    PyObject *kwargs =
        Py_BuildValue("{s:(ii)}", "max_version", CT_DLPACK_MAJOR_VERSION, CT_DLPACK_MINOR_VERSION);
    if (kwargs != NULL && stream != NULL && PyDict_SetItemString(kwargs, "stream", stream) < 0)
        Py_CLEAR(kwargs);
    if (kwargs != NULL && dl_device != NULL && dl_device != Py_None &&
        PyDict_SetItemString(kwargs, "dl_device", dl_device) < 0)
        Py_CLEAR(kwargs);
    if (kwargs != NULL && copy != NULL && copy != Py_None &&
        PyDict_SetItemString(kwargs, "copy", copy) < 0)
        Py_CLEAR(kwargs);
    if (kwargs == NULL) {
        Py_DECREF(method);
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    PyObject *capsule = empty != NULL ? PyObject_Call(method, empty, kwargs) : NULL;
    Py_DECREF(kwargs);
    if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* an old producer: __dlpack__(stream=None) only */
        PyErr_Clear();
        *fallback = 1;
        PyObject *kw = stream != NULL ? Py_BuildValue("{s:O}", "stream", stream) : NULL;
        capsule = stream == NULL || kw != NULL ? PyObject_Call(method, empty, kw) : NULL;
        Py_XDECREF(kw);
    }
    Py_XDECREF(empty);
    Py_DECREF(method);
    return capsule;
}

static PyObject *from_dlpack(PyObject *module, PyObject *args, PyObject *kwargs) {
    (void)module;
    static char *kwlist[] = {(char *)"", (char *)"device", (char *)"copy", NULL};
    PyObject *obj, *device_obj = Py_None, *copy_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:from_dlpack", kwlist, &obj, &device_obj,
                                     &copy_obj))
        return NULL;
    int copy = parse_copy(copy_obj);
    if (copy == -2)
        return NULL;
    ct_device device = {CT_DEVICE_UNDEFINED, CT_DEVICE_NO_INDEX};
    if (device_obj != Py_None && ctp_parse_device_arg(device_obj, &device) < 0)
        return NULL;
    /* a device asked of the producer: only cpu has a DLPack type ctensor can ask for */
    PyObject *dl_device = NULL;
    if (device.type == CT_DEVICE_CPU)
        dl_device = Py_BuildValue("(ii)", CT_DL_CPU, 0);

    PyObject *capsule;
    int fallback = 1;
    if (PyCapsule_CheckExact(obj)) {
        capsule = Py_NewRef(obj);
    } else if (PyObject_HasAttrString(obj, "__dlpack__")) {
        /* a cuda producer orders its work before our current stream of its device */
        PyObject *stream = ctp_cuda_dlpack_consumer_stream(obj);
        capsule =
            PyErr_Occurred() ? NULL : call_producer(obj, dl_device, copy_obj, stream, &fallback);
        Py_XDECREF(stream);
    } else {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack(): expected an object with a __dlpack__ method or a DLPack "
                     "capsule, got %.100s",
                     Py_TYPE(obj)->tp_name);
        capsule = NULL;
    }
    Py_XDECREF(dl_device);
    if (capsule == NULL)
        return NULL;
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "__dlpack__() returned %.100s, not a capsule",
                     Py_TYPE(capsule)->tp_name);
        Py_DECREF(capsule);
        return NULL;
    }
    ct_tensor *t = NULL;
    uint64_t flags = 0;
    int rc = import_capsule(capsule, &t, &flags);
    Py_DECREF(capsule);
    if (rc < 0)
        return NULL;

    /* what the producer could not do for us: move to the device, copy */
    ct_status st = CT_OK;
    bool on_device = device.type == CT_DEVICE_UNDEFINED ||
                     ct_device_equal(ct_tensor_device(t), device) ||
                     (device.type == ct_tensor_device(t).type && device.index < 0);
    bool copied = (flags & CT_DLPACK_FLAG_IS_COPIED) != 0 || (!fallback && copy == 1);
    if (!on_device || (copy == 1 && !copied)) {
        if (!on_device && copy == 0) {
            ct_tensor_release(t);
            PyErr_SetString(PyExc_ValueError,
                            "from_dlpack(): the tensor is on another device and copy=False");
            return NULL;
        }
        /* t was just imported and no Python object refers to it yet: no other thread can
         * resize it (Note [Releasing the GIL]) */
        ct_tensor *c = NULL;
        Py_BEGIN_ALLOW_THREADS st = ct_tensor_to(t, CT_DTYPE_UNDEFINED, on_device ? NULL : &device,
                                                 true, CT_MEMFMT_PRESERVE, &c);
        Py_END_ALLOW_THREADS ct_tensor_release(t);
        if (st != CT_OK)
            return ctp_raise_status(st);
        t = c;
    }
    return ctp_tensor_wrap(t);
}

/* ---- registration ----------------------------------------------------------------------- */

static PyMethodDef dlpack_tensor_methods[] = {
    {"__dlpack__", CTP_KW_FUNC(tensor_dlpack), METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None) -> capsule\n\n"
     "Export as a DLPack capsule: 'dltensor_versioned' when max_version >= (1, 0), else "
     "'dltensor'. Zero-copy unless copy=True or another dl_device is asked for."},
    {"__dlpack_device__", tensor_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id) as DLPack numbers them"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef dlpack_module_functions[] = {
    {"from_dlpack", CTP_KW_FUNC(from_dlpack), METH_VARARGS | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None) -> Tensor\n\n"
     "A tensor sharing the memory of `x` (an object with __dlpack__, or a DLPack capsule)."},
    {NULL, NULL, 0, NULL},
};

/* Add from_dlpack to the module and the protocol methods to ctensor.Tensor (whose type is
 * ready by now). The methods go into the type's dictionary, unless the type already has
 * them, so the Tensor files need no table entry for this file. */
int ctp_dlpack_init(PyObject *module) {
    if (PyModule_AddFunctions(module, dlpack_module_functions) < 0)
        return -1;
    if (ctp_tensor_add_methods(dlpack_tensor_methods) < 0)
        return -1;
    return 0;
}
