/* ctensor.cuda: torch.cuda over the CUDA backend's API (include/ctensor/cuda.h).
 *
 * The module registers the backend at import (ctp_cuda_init); that needs no driver: without
 * one there are zero devices, is_available() is False, device_count() 0, and whatever needs a
 * device raises the library's RuntimeError, which words PyTorch's ("Found no NVIDIA driver on
 * your system. ..."). As torch.cuda's functions do, each one that needs a device first asks
 * for it (lazy_init), so the message is the driver's whatever the call; functions PyTorch
 * answers without initialising CUDA answer here without a device too: the memory statistics
 * read 0 and empty_cache() does nothing, device(None) and stream(None) are no-ops, and an
 * Event can be made (it binds to a device when first recorded).
 *
 * PyTorch writes torch.cuda in Python, so these functions take arguments as Python functions
 * do (ctp_parse_python_call), and device arguments as torch.cuda._utils._get_device_index:
 * an int, a "cuda[:n]" string or a cuda device; None (or no index) meaning the current device
 * where PyTorch allows it. Device -1 is the C API's "current device".
 *
 * Streams: a Stream object made by Stream() owns its ct_cuda_stream; current_stream() and
 * default_stream() return the owning object when the stream is one (so a borrowed pointer
 * never outlives its owner) and otherwise a wrapper of a default stream (never freed). Two
 * Stream objects are equal when they wrap the same cudaStream_t on the same device.
 *
 * Tests: ctensor._testing may take the real backend out of the cuda slot to put a
 * host-emulated one there (ctp_cuda_displace) and puts it back with ct_cuda_init
 * (ctp_cuda_restore); while it is out, the tensor paths behave as without a real backend.
 */
#include <string.h>

#include "ctensor/cuda.h"
#include "ctensor_py.h"
#include <structmember.h>

/* ct_cuda_init's backend holds the cuda slot (a test may have taken it out). */
static int real_registered;
/* A test took it out (ctensor._testing); ctp_cuda_restore puts it back. */
static int displaced;

/* ---- errors and devices ------------------------------------------------------------------- */

/* torch.cuda._lazy_init: 0 when a device exists, else -1 with the library's error for device
 * work without one (asked of the library by taking the current stream, which needs a
 * device). */
static int lazy_init(void) {
    if (ct_cuda_device_count() > 0)
        return 0;
    ct_cuda_stream *probe = NULL;
    ct_status st = ct_cuda_current_stream(-1, &probe);
    if (st == CT_OK)
        return 0; /* the library found a device after all: let the call go on */
    ctp_raise_status(st);
    return -1;
}

static PyObject *raise_st(ct_status st) { return ctp_raise_status(st); }

/* torch.cuda._utils._get_device_index(obj, optional): the index in *out, -1 for the current
 * device (None or a device without index, when `optional`). Negative ints pass as -1. */
static int device_index(PyObject *obj, int optional, int32_t *out) {
    *out = -1;
    if (obj == NULL || obj == Py_None) {
        if (optional)
            return 0;
        PyErr_SetString(PyExc_ValueError,
                        "Expected a ctensor.device with a specified index or an integer, but "
                        "got:None");
        return -1;
    }
    if (ctp_is_int_arg(obj)) {
        int64_t v;
        if (ctp_int64_of_arg(obj, &v) < 0)
            return -1;
        if (v > CT_DEVICE_MAX_INDEX) {
            PyErr_Format(PyExc_RuntimeError, "CUDA error: invalid device ordinal");
            return -1;
        }
        *out = v < 0 ? -1 : (int32_t)v;
        return 0;
    }
    if (!ctp_device_check(obj) && !PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "Expected a cuda device: an int, a str or a ctensor.device, not %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    ct_device d;
    if (ctp_parse_device_arg(obj, &d) < 0)
        return -1;
    if (d.type != CT_DEVICE_CUDA) {
        PyErr_Format(PyExc_ValueError, "Expected a cuda device, but got: %S", obj);
        return -1;
    }
    if (d.index == CT_DEVICE_NO_INDEX && !optional) {
        PyErr_Format(PyExc_ValueError,
                     "Expected a ctensor.device with a specified index or an integer, but "
                     "got:%S",
                     obj);
        return -1;
    }
    *out = d.index == CT_DEVICE_NO_INDEX ? -1 : d.index;
    return 0;
}

/* The concrete index of `index` (-1: the calling thread's current cuda device). */
static int concrete_index(int32_t index, int32_t *out) {
    if (index >= 0) {
        *out = index;
        return 0;
    }
    ct_device d;
    ct_status st = ct_current_device(CT_DEVICE_CUDA, &d);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    *out = d.index;
    return 0;
}

/* Make `index` the current cuda device (through the registered backend, as ctensor.set_device
 * does). The CUDA API checks the index first, for its "invalid device ordinal" wording. */
static int set_current(int32_t index) {
    ct_device d;
    ct_cuda_stream *probe = NULL;
    ct_status st = real_registered ? ct_cuda_default_stream(index, &probe) : CT_OK;
    if (st == CT_OK)
        st = ct_device_make(CT_DEVICE_CUDA, index, &d);
    if (st == CT_OK)
        st = ct_set_device(d);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

static PyObject *cuda_device_object(int32_t index) {
    return ctp_device_new((ct_device){CT_DEVICE_CUDA, index});
}

/* ---- hooks for the rest of the module (ctensor_py.h) ----------------------------------------- */

int ctp_cuda_real_backend(void) { return real_registered; }

int ctp_cuda_lazy_init_device(const ct_device *device) {
    ct_device d;
    if (device == NULL) { /* the default device a factory would use */
        if (ct_get_default_device(&d) != CT_OK)
            return 0; /* the factory reports it */
        device = &d;
    }
    if (device->type != CT_DEVICE_CUDA || !real_registered)
        return 0;
    return lazy_init();
}

int ctp_cuda_displace(void) {
    if (!real_registered)
        return 0;
    ct_status st = ct_backend_unregister(CT_DEVICE_CUDA);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    real_registered = 0;
    displaced = 1;
    return 1;
}

int ctp_cuda_restore(void) {
    if (!displaced)
        return 0;
    ct_status st = CT_OK;
    if (ct_backend_is_registered(CT_DEVICE_CUDA))
        st = ct_backend_unregister(CT_DEVICE_CUDA); /* the emulation a test left */
    if (st == CT_OK)
        st = ct_cuda_init();
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    if (!ct_backend_is_registered(CT_DEVICE_CUDA)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "ct_cuda_init did not register the cuda backend again after a test "
                        "unregistered it");
        return -1;
    }
    displaced = 0;
    real_registered = 1;
    return 1;
}

int ctp_cuda_pin(PyObject *pin_memory, ct_tensor **t) {
    if (pin_memory == NULL || !ctp_opt_bool(pin_memory))
        return 0;
    ct_tensor *p = NULL;
    ct_status st = ct_cuda_pin_memory(*t, &p);
    ct_tensor_release(*t);
    *t = p;
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

ct_status ctp_cuda_copy(ct_tensor *dst, const ct_tensor *src, int non_blocking) {
    if (non_blocking && real_registered)
        return ct_cuda_copy_async(dst, src);
    return ct_tensor_copy_(dst, src);
}

int ctp_cuda_to_async(ct_tensor *src, ct_dtype dtype, const ct_device *device,
                      ct_memory_format format, ct_tensor **out) {
    *out = NULL;
    if (!real_registered || device == NULL || format != CT_MEMFMT_PRESERVE)
        return 0;
    ct_device from = ct_tensor_device(src);
    int h2d = from.type == CT_DEVICE_CPU && device->type == CT_DEVICE_CUDA;
    int d2h = from.type == CT_DEVICE_CUDA && device->type == CT_DEVICE_CPU;
    if ((!h2d && !d2h) || (dtype != CT_DTYPE_UNDEFINED && dtype != ct_tensor_dtype(src)) ||
        ct_tensor_layout(src) != CT_LAYOUT_STRIDED)
        return 0;
    if (h2d && lazy_init() < 0)
        return -1;
    /* As PyTorch's _to_copy: the same strides where the source is dense, and a pinned
     * destination for a copy to the host, so that it can be asynchronous too. */
    ct_tensor *dst = NULL;
    ct_status st = ct_tensor_empty_like(src, CT_DTYPE_UNDEFINED, device, CT_MEMFMT_PRESERVE, &dst);
    if (st == CT_OK && d2h) {
        ct_tensor *pinned = NULL;
        st = ct_cuda_pin_memory(dst, &pinned);
        ct_tensor_release(dst);
        dst = pinned;
    }
    if (st == CT_OK)
        st = ct_cuda_copy_async(dst, src);
    if (st != CT_OK) {
        ct_tensor_release(dst);
        ctp_raise_status(st);
        return -1;
    }
    *out = dst;
    return 1;
}

/* ---- DLPack streams (dlpack.c) ------------------------------------------------------------- */

int ctp_cuda_dlpack_export_sync(ct_device device, PyObject *stream) {
    if (!real_registered || device.type != CT_DEVICE_CUDA)
        return 0;
    long long s = 1; /* None: the consumer uses the legacy default stream (the protocol) */
    if (stream != NULL && stream != Py_None) {
        s = PyLong_AsLongLong(stream);
        if (s == -1 && PyErr_Occurred())
            return -1;
    }
    if (s == -1) /* the consumer asks for no synchronisation */
        return 0;
    if (s < -1) {
        PyErr_Format(PyExc_ValueError, "__dlpack__(): invalid CUDA stream %lld", s);
        return -1;
    }
    ct_cuda_stream *cur = NULL;
    ct_status st = ct_cuda_current_stream(device.index, &cur);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    uintptr_t ours = ct_cuda_stream_handle(cur);
    /* 0 and 1 both name the legacy default stream (PyTorch reads 0 so too) */
    if ((ours == 0 && (s == 0 || s == 1)) || (uintptr_t)s == ours)
        return 0; /* the same stream: its order is the consumer's */
    /* The consumer's stream must not run ahead of our work on the data. Making it wait for
     * an event would need a stream object for a foreign cudaStream_t, which cuda.h lacks;
     * waiting for our current stream is always correct. */
    Py_BEGIN_ALLOW_THREADS st = ct_cuda_stream_synchronize(cur);
    Py_END_ALLOW_THREADS if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

PyObject *ctp_cuda_dlpack_consumer_stream(PyObject *producer) {
    if (!real_registered || ct_cuda_device_count() == 0 ||
        !PyObject_HasAttrString(producer, "__dlpack_device__"))
        return NULL;
    PyObject *dev = PyObject_CallMethod(producer, "__dlpack_device__", NULL);
    if (dev == NULL) {
        PyErr_Clear(); /* __dlpack__ reports what is wrong with the producer */
        return NULL;
    }
    long type = -1, id = -1;
    if (PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2) {
        type = PyLong_AsLong(PyTuple_GET_ITEM(dev, 0));
        id = PyLong_AsLong(PyTuple_GET_ITEM(dev, 1));
        PyErr_Clear();
    }
    Py_DECREF(dev);
    if (type != CT_DL_CUDA || id < 0 || id >= ct_cuda_device_count())
        return NULL;
    ct_cuda_stream *cur = NULL;
    if (ct_cuda_current_stream((int32_t)id, &cur) != CT_OK)
        return NULL; /* no stream to name: the producer then assumes the legacy default */
    uintptr_t h = ct_cuda_stream_handle(cur);
    /* the protocol's 1 is the legacy default stream; 0 is ambiguous and disallowed */
    return PyLong_FromUnsignedLongLong(h == 0 ? 1 : (unsigned long long)h);
}

/* ---- Stream ------------------------------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    ct_cuda_stream *stream;
    int owned; /* made by Stream(): freed with the object */
} stream_object;

typedef struct {
    PyObject ob_base;
    ct_cuda_event *event;
} event_object;

static PyTypeObject stream_type, event_type;

/* The owners of the streams Stream() made, to hand out the owner for a stream pointer. */
static stream_object **owners;
static Py_ssize_t nowners, capowners;

static int add_owner(stream_object *s) {
    if (nowners == capowners) {
        Py_ssize_t cap = capowners ? 2 * capowners : 8;
        stream_object **p = PyMem_Realloc(owners, (size_t)cap * sizeof *p);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        owners = p;
        capowners = cap;
    }
    owners[nowners++] = s;
    return 0;
}

static void remove_owner(stream_object *s) {
    for (Py_ssize_t i = 0; i < nowners; i++)
        if (owners[i] == s) {
            owners[i] = owners[--nowners];
            return;
        }
}

/* A Stream object for a stream the library handed out (borrowed): its owner, or a new
 * wrapper of a default stream. */
static PyObject *stream_wrap(ct_cuda_stream *s) {
    for (Py_ssize_t i = 0; i < nowners; i++)
        if (owners[i]->stream == s)
            return Py_NewRef((PyObject *)owners[i]);
    stream_object *o = PyObject_New(stream_object, &stream_type);
    if (o == NULL)
        return NULL;
    o->stream = s;
    o->owned = 0;
    return (PyObject *)o;
}

static int stream_check(PyObject *obj) { return PyObject_TypeCheck(obj, &stream_type); }
static int event_check(PyObject *obj) { return PyObject_TypeCheck(obj, &event_type); }

static ct_cuda_stream *S(PyObject *self) { return ((stream_object *)self)->stream; }
static ct_cuda_event *E(PyObject *self) { return ((event_object *)self)->event; }

/* Stream(device=None, priority=0) */
static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device", "priority"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t index;
    int64_t priority = 0;
    if (ctp_parse_python_call("Stream", names, 2, 0, 0, args, kwargs, a) < 0 ||
        device_index(a[0], 1, &index) < 0)
        return NULL;
    if (a[1] != NULL && a[1] != Py_None) {
        if (!ctp_is_int_arg(a[1]))
            return PyErr_Format(PyExc_TypeError, "priority must be int, not %s",
                                Py_TYPE(a[1])->tp_name);
        if (ctp_int64_of_arg(a[1], &priority) < 0)
            return NULL;
        if (priority < INT32_MIN || priority > INT32_MAX)
            priority = priority < 0 ? INT32_MIN : INT32_MAX; /* clamped to the range anyway */
    }
    if (lazy_init() < 0)
        return NULL;
    ct_cuda_stream *s = NULL;
    ct_status st = ct_cuda_stream_new(index, (int32_t)priority, &s);
    if (st != CT_OK)
        return raise_st(st);
    stream_object *self = (stream_object *)type->tp_alloc(type, 0);
    if (self == NULL) {
        ct_cuda_stream_free(s);
        return NULL;
    }
    self->stream = s;
    self->owned = 1;
    if (add_owner(self) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void stream_dealloc(PyObject *self) {
    stream_object *s = (stream_object *)self;
    if (s->owned) {
        remove_owner(s);
        /* waits for the stream's work, so without the GIL */
        ct_cuda_stream *cs = s->stream;
        Py_BEGIN_ALLOW_THREADS ct_cuda_stream_free(cs);
        Py_END_ALLOW_THREADS
    }
    Py_TYPE(self)->tp_free(self);
}

static PyObject *stream_synchronize(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_status st;
    ct_cuda_stream *s = S(self);
    Py_BEGIN_ALLOW_THREADS st = ct_cuda_stream_synchronize(s);
    Py_END_ALLOW_THREADS if (st != CT_OK) return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *stream_query(PyObject *self, PyObject *unused) {
    (void)unused;
    bool done = false;
    ct_status st = ct_cuda_stream_query(S(self), &done);
    if (st != CT_OK)
        return raise_st(st);
    return PyBool_FromLong(done);
}

static PyObject *stream_wait_event(PyObject *self, PyObject *event) {
    if (!event_check(event))
        return PyErr_Format(PyExc_TypeError, "wait_event(): expected a ctensor.cuda.Event, not %s",
                            Py_TYPE(event)->tp_name);
    ct_status st = ct_cuda_stream_wait_event(S(self), E(event));
    if (st != CT_OK)
        return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *event_create(int enable_timing);

/* wait_stream(stream): later work on self waits for the work queued on `stream` now. */
static PyObject *stream_wait_stream(PyObject *self, PyObject *other) {
    if (!stream_check(other))
        return PyErr_Format(PyExc_TypeError,
                            "wait_stream(): expected a ctensor.cuda.Stream, not %s",
                            Py_TYPE(other)->tp_name);
    if (S(self) == S(other))
        Py_RETURN_NONE;
    PyObject *e = event_create(0);
    if (e == NULL)
        return NULL;
    ct_status st = ct_cuda_event_record(E(e), S(other));
    if (st == CT_OK)
        st = ct_cuda_stream_wait_event(S(self), E(e));
    Py_DECREF(e); /* CUDA keeps a waited-for event until the wait is done */
    if (st != CT_OK)
        return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *stream_record_event(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"event"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("record_event", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    PyObject *e;
    if (a[0] == NULL || a[0] == Py_None) {
        e = event_create(0);
        if (e == NULL)
            return NULL;
    } else if (event_check(a[0])) {
        e = Py_NewRef(a[0]);
    } else {
        return PyErr_Format(PyExc_TypeError,
                            "record_event(): expected a ctensor.cuda.Event, not %s",
                            Py_TYPE(a[0])->tp_name);
    }
    ct_status st = ct_cuda_event_record(E(e), S(self));
    if (st != CT_OK) {
        Py_DECREF(e);
        return raise_st(st);
    }
    return e;
}

static PyObject *stream_get_cuda_stream(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong((unsigned long long)ct_cuda_stream_handle(S(self)));
}

static PyObject *stream_get_device(PyObject *self, void *closure) {
    (void)closure;
    return cuda_device_object(ct_cuda_stream_device(S(self)));
}

static PyObject *stream_get_device_index(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(ct_cuda_stream_device(S(self)));
}

static PyObject *stream_get_device_type(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    return PyLong_FromLong(CT_DEVICE_CUDA); /* PyTorch's DeviceType number of cuda, 1 */
}

static PyObject *stream_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !stream_check(other))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = ct_cuda_stream_handle(S(self)) == ct_cuda_stream_handle(S(other)) &&
             ct_cuda_stream_device(S(self)) == ct_cuda_stream_device(S(other));
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t stream_hash(PyObject *self) {
    /* unsigned arithmetic: no signed overflow */
    uint64_t h = (uint64_t)ct_cuda_stream_handle(S(self));
    h = (h ^ (h >> 17)) * 31u + (uint64_t)(uint32_t)ct_cuda_stream_device(S(self));
    Py_hash_t v = (Py_hash_t)(h & (uint64_t)INT64_MAX);
    return v == -1 ? -2 : v;
}

static PyObject *stream_repr(PyObject *self) {
    char buf[128];
    snprintf(buf, sizeof buf, "<ctensor.cuda.Stream device=cuda:%d cuda_stream=0x%llx>",
             (int)ct_cuda_stream_device(S(self)),
             (unsigned long long)ct_cuda_stream_handle(S(self)));
    return PyUnicode_FromString(buf);
}

static PyMethodDef stream_methods[] = {
    {"synchronize", stream_synchronize, METH_NOARGS,
     "synchronize() -> None\n\nWait for all work queued on the stream."},
    {"query", stream_query, METH_NOARGS,
     "query() -> bool\n\nWhether all work queued on the stream is done."},
    {"wait_event", stream_wait_event, METH_O,
     "wait_event(event) -> None\n\nLater work on the stream waits for the event."},
    {"wait_stream", stream_wait_stream, METH_O,
     "wait_stream(stream) -> None\n\nLater work on this stream waits for the work queued on "
     "`stream` now."},
    {"record_event", CTP_KW_FUNC(stream_record_event), METH_VARARGS | METH_KEYWORDS,
     "record_event(event=None) -> Event\n\nRecord an event (a new one for None) on the "
     "stream."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"cuda_stream", stream_get_cuda_stream, NULL, "The cudaStream_t as an int (0: legacy default).",
     NULL},
    {"device", stream_get_device, NULL, "The stream's device.", NULL},
    {"device_index", stream_get_device_index, NULL, NULL, NULL},
    {"device_type", stream_get_device_type, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject stream_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor.cuda.Stream",
    .tp_basicsize = sizeof(stream_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Stream(device=None, priority=0): a CUDA stream (torch.cuda.Stream).",
    .tp_new = stream_new,
    .tp_dealloc = stream_dealloc,
    .tp_repr = stream_repr,
    .tp_hash = stream_hash,
    .tp_richcompare = stream_richcompare,
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
};

/* ---- Event -------------------------------------------------------------------------------- */

static PyObject *event_alloc(PyTypeObject *type, int enable_timing) {
    ct_cuda_event *e = NULL;
    ct_status st = ct_cuda_event_new(enable_timing != 0, &e);
    if (st != CT_OK)
        return raise_st(st);
    event_object *self = (event_object *)type->tp_alloc(type, 0);
    if (self == NULL) {
        ct_cuda_event_free(e);
        return NULL;
    }
    self->event = e;
    return (PyObject *)self;
}

static PyObject *event_create(int enable_timing) { return event_alloc(&event_type, enable_timing); }

/* Event(enable_timing=False, blocking=False, interprocess=False) */
static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"enable_timing", "blocking", "interprocess"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("Event", names, 3, 0, 0, args, kwargs, a) < 0)
        return NULL;
    int timing = a[0] != NULL ? PyObject_IsTrue(a[0]) : 0;
    int interprocess = a[2] != NULL ? PyObject_IsTrue(a[2]) : 0;
    if (timing < 0 || interprocess < 0)
        return NULL;
    /* blocking (a host wait that sleeps instead of spinning) changes no result */
    if (interprocess) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "ctensor.cuda.Event: interprocess events are not supported");
        return NULL;
    }
    return event_alloc(type, timing);
}

static void event_dealloc(PyObject *self) {
    ct_cuda_event_free(E(self));
    Py_TYPE(self)->tp_free(self);
}

/* The stream argument of Event.record/wait: NULL for None (the current stream). */
static int opt_stream(const char *fname, PyObject *obj, ct_cuda_stream **out) {
    *out = NULL;
    if (obj == NULL || obj == Py_None)
        return lazy_init(); /* PyTorch: torch.cuda.current_stream() */
    if (!stream_check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s(): expected a ctensor.cuda.Stream, not %s", fname,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = S(obj);
    return 0;
}

static PyObject *event_record(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"stream"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_cuda_stream *s;
    if (ctp_parse_python_call("record", names, 1, 0, 0, args, kwargs, a) < 0 ||
        opt_stream("record", a[0], &s) < 0)
        return NULL;
    ct_status st = ct_cuda_event_record(E(self), s);
    if (st != CT_OK)
        return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *event_wait(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"stream"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_cuda_stream *s;
    if (ctp_parse_python_call("wait", names, 1, 0, 0, args, kwargs, a) < 0 ||
        opt_stream("wait", a[0], &s) < 0)
        return NULL;
    ct_status st = ct_cuda_stream_wait_event(s, E(self));
    if (st != CT_OK)
        return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *event_query(PyObject *self, PyObject *unused) {
    (void)unused;
    bool done = true;
    ct_status st = ct_cuda_event_query(E(self), &done);
    if (st != CT_OK)
        return raise_st(st);
    return PyBool_FromLong(done);
}

static PyObject *event_synchronize(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_status st;
    ct_cuda_event *e = E(self);
    Py_BEGIN_ALLOW_THREADS st = ct_cuda_event_synchronize(e);
    Py_END_ALLOW_THREADS if (st != CT_OK) return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *event_elapsed_time(PyObject *self, PyObject *end) {
    if (!event_check(end))
        return PyErr_Format(PyExc_TypeError,
                            "elapsed_time(): expected a ctensor.cuda.Event, not %s",
                            Py_TYPE(end)->tp_name);
    float ms = 0;
    ct_status st = ct_cuda_event_elapsed_ms(E(self), E(end), &ms);
    if (st != CT_OK)
        return raise_st(st);
    return PyFloat_FromDouble(ms);
}

static PyObject *event_repr(PyObject *self) {
    return PyUnicode_FromFormat("<ctensor.cuda.Event %p>", (void *)E(self));
}

static PyMethodDef event_methods[] = {
    {"record", CTP_KW_FUNC(event_record), METH_VARARGS | METH_KEYWORDS,
     "record(stream=None) -> None\n\nRecord the event on `stream` (default: the current "
     "stream)."},
    {"wait", CTP_KW_FUNC(event_wait), METH_VARARGS | METH_KEYWORDS,
     "wait(stream=None) -> None\n\nLater work on `stream` (default: current) waits for the "
     "event."},
    {"query", event_query, METH_NOARGS,
     "query() -> bool\n\nWhether the work before the last record is done (True if never "
     "recorded)."},
    {"synchronize", event_synchronize, METH_NOARGS,
     "synchronize() -> None\n\nWait for the work before the last record."},
    {"elapsed_time", event_elapsed_time, METH_O,
     "elapsed_time(end_event) -> float\n\nMilliseconds from this event to end_event (both "
     "recorded, with enable_timing=True)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject event_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor.cuda.Event",
    .tp_basicsize = sizeof(event_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Event(enable_timing=False, blocking=False, interprocess=False): a CUDA event.",
    .tp_new = event_new,
    .tp_dealloc = event_dealloc,
    .tp_repr = event_repr,
    .tp_methods = event_methods,
};

/* ---- device(d): the current device inside a with block --------------------------------------- */

typedef struct {
    PyObject ob_base;
    int32_t idx;      /* -1: nothing to do (None, or no device) */
    int32_t prev_idx; /* the device before __enter__, -1 when nothing was changed */
} device_ctx_object;

/* torch.cuda._get_current_device_index for optional devices: the current device, or -1 when
 * CUDA has no device (then `with device(None)` does nothing). */
static int optional_current(int32_t *idx) {
    if (*idx >= 0 || ct_cuda_device_count() == 0)
        return 0;
    return concrete_index(-1, idx);
}

static PyObject *device_ctx_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    if (ctp_parse_python_call("device", names, 1, 1, 0, args, kwargs, a) < 0 ||
        device_index(a[0], 1, &idx) < 0 || optional_current(&idx) < 0)
        return NULL;
    device_ctx_object *self = (device_ctx_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->idx = idx;
    self->prev_idx = -1;
    return (PyObject *)self;
}

/* torch.cuda._exchange_device: make idx current and return the previous one. */
static PyObject *device_ctx_enter(PyObject *self, PyObject *unused) {
    device_ctx_object *d = (device_ctx_object *)self;
    (void)unused;
    d->prev_idx = -1;
    if (d->idx < 0)
        Py_RETURN_NONE;
    int32_t prev;
    if (lazy_init() < 0 || concrete_index(-1, &prev) < 0)
        return NULL;
    if (prev != d->idx && set_current(d->idx) < 0)
        return NULL;
    d->prev_idx = prev;
    Py_RETURN_NONE;
}

static PyObject *device_ctx_exit(PyObject *self, PyObject *args) {
    device_ctx_object *d = (device_ctx_object *)self;
    (void)args;
    if (d->prev_idx >= 0) {
        int32_t prev = d->prev_idx;
        d->prev_idx = -1;
        if (set_current(prev) < 0)
            return NULL;
    }
    Py_RETURN_FALSE;
}

static PyObject *device_ctx_get_idx(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(((device_ctx_object *)self)->idx);
}

static PyMethodDef device_ctx_methods[] = {
    {"__enter__", device_ctx_enter, METH_NOARGS, NULL},
    {"__exit__", device_ctx_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_ctx_getset[] = {
    {"idx", device_ctx_get_idx, NULL, "The device index (-1: none).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject device_ctx_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor.cuda.device",
    .tp_basicsize = sizeof(device_ctx_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "device(device): a context manager that makes `device` (int, str, device or None)\n"
              "the current cuda device and restores the previous one on exit.",
    .tp_new = device_ctx_new,
    .tp_methods = device_ctx_methods,
    .tp_getset = device_ctx_getset,
};

/* ---- StreamContext ------------------------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    PyObject *stream;   /* a Stream, or NULL for None */
    PyObject *src_prev; /* the current stream of the current device before __enter__ */
    PyObject *dst_prev; /* the stream's device's current stream, when another device */
} stream_ctx_object;

static PyObject *current_stream_of(int32_t index) {
    ct_cuda_stream *s = NULL;
    ct_status st = ct_cuda_current_stream(index, &s);
    return st == CT_OK ? stream_wrap(s) : raise_st(st);
}

/* torch.cuda.set_stream: the stream becomes current on its device, which becomes the
 * current device. */
static int set_stream(PyObject *stream) {
    int32_t cur;
    ct_status st = ct_cuda_set_stream(S(stream));
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    if (concrete_index(-1, &cur) < 0)
        return -1;
    if (cur != ct_cuda_stream_device(S(stream)) &&
        set_current(ct_cuda_stream_device(S(stream))) < 0)
        return -1;
    return 0;
}

static PyObject *stream_ctx_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"stream"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("StreamContext", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (a[0] != NULL && a[0] != Py_None && !stream_check(a[0]))
        return PyErr_Format(PyExc_TypeError,
                            "StreamContext(): expected a ctensor.cuda.Stream or None, not %s",
                            Py_TYPE(a[0])->tp_name);
    stream_ctx_object *self = (stream_ctx_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->stream = a[0] != NULL && a[0] != Py_None ? Py_NewRef(a[0]) : NULL;
    return (PyObject *)self;
}

static void stream_ctx_dealloc(PyObject *self) {
    stream_ctx_object *c = (stream_ctx_object *)self;
    Py_XDECREF(c->stream);
    Py_XDECREF(c->src_prev);
    Py_XDECREF(c->dst_prev);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *stream_ctx_enter(PyObject *self, PyObject *unused) {
    stream_ctx_object *c = (stream_ctx_object *)self;
    (void)unused;
    if (c->stream == NULL)
        Py_RETURN_NONE;
    Py_CLEAR(c->src_prev);
    Py_CLEAR(c->dst_prev);
    int32_t target = ct_cuda_stream_device(S(c->stream));
    c->src_prev = current_stream_of(-1);
    if (c->src_prev == NULL)
        return NULL;
    if (ct_cuda_stream_device(S(c->src_prev)) != target) {
        c->dst_prev = current_stream_of(target);
        if (c->dst_prev == NULL)
            return NULL;
    }
    if (set_stream(c->stream) < 0)
        return NULL;
    return Py_NewRef(c->stream);
}

static PyObject *stream_ctx_exit(PyObject *self, PyObject *args) {
    stream_ctx_object *c = (stream_ctx_object *)self;
    (void)args;
    if (c->stream == NULL || c->src_prev == NULL)
        Py_RETURN_FALSE;
    PyObject *src = c->src_prev, *dst = c->dst_prev;
    c->src_prev = c->dst_prev = NULL;
    int rc = (dst == NULL || set_stream(dst) == 0) ? set_stream(src) : -1;
    Py_DECREF(src);
    Py_XDECREF(dst);
    if (rc < 0)
        return NULL;
    Py_RETURN_FALSE;
}

static PyMethodDef stream_ctx_methods[] = {
    {"__enter__", stream_ctx_enter, METH_NOARGS, NULL},
    {"__exit__", stream_ctx_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject stream_ctx_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor.cuda.StreamContext",
    .tp_basicsize = sizeof(stream_ctx_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "StreamContext(stream): makes `stream` current inside a with block (None: "
              "nothing).",
    .tp_new = stream_ctx_new,
    .tp_dealloc = stream_ctx_dealloc,
    .tp_methods = stream_ctx_methods,
};

/* ---- device properties -------------------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    PyObject *name;
    int major, minor, multi_processor_count;
    long long total_memory;
} props_object;

static void props_dealloc(PyObject *self) {
    Py_XDECREF(((props_object *)self)->name);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *props_repr(PyObject *self) {
    props_object *p = (props_object *)self;
    return PyUnicode_FromFormat("_CudaDeviceProperties(name=%R, major=%d, minor=%d, "
                                "total_memory=%lldMB, multi_processor_count=%d)",
                                p->name, p->major, p->minor, p->total_memory / (1024 * 1024),
                                p->multi_processor_count);
}

static PyMemberDef props_members[] = {
    {"name", T_OBJECT, offsetof(props_object, name), READONLY, NULL},
    {"major", T_INT, offsetof(props_object, major), READONLY, NULL},
    {"minor", T_INT, offsetof(props_object, minor), READONLY, NULL},
    {"total_memory", T_LONGLONG, offsetof(props_object, total_memory), READONLY, NULL},
    {"multi_processor_count", T_INT, offsetof(props_object, multi_processor_count), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject props_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor.cuda._CudaDeviceProperties",
    .tp_basicsize = sizeof(props_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = props_dealloc,
    .tp_repr = props_repr,
    .tp_members = props_members,
};

/* The properties of an optional device argument; AssertionError "Invalid device id" outside
 * the devices, as PyTorch. */
static PyObject *properties_of(const char *fname, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    if (ctp_parse_python_call(fname, names, 1, 0, 0, args, kwargs, a) < 0 || lazy_init() < 0 ||
        device_index(a[0], 1, &idx) < 0 || concrete_index(idx, &idx) < 0)
        return NULL;
    if (idx < 0 || idx >= ct_cuda_device_count()) {
        PyErr_SetString(PyExc_AssertionError, "Invalid device id");
        return NULL;
    }
    char name[256];
    int32_t major = 0, minor = 0, mp = 0;
    int64_t total = 0;
    ct_status st =
        ct_cuda_get_device_properties(idx, name, sizeof name, &major, &minor, &total, &mp);
    if (st != CT_OK)
        return raise_st(st);
    props_object *p = PyObject_New(props_object, &props_type);
    if (p == NULL)
        return NULL;
    p->name = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace");
    p->major = major;
    p->minor = minor;
    p->total_memory = total;
    p->multi_processor_count = mp;
    if (p->name == NULL) {
        Py_DECREF(p);
        return NULL;
    }
    return (PyObject *)p;
}

/* ---- module functions --------------------------------------------------------------------- */

static PyObject *py_is_available(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("is_available", NULL, 0, args, kwargs) < 0)
        return NULL;
    return PyBool_FromLong(ct_cuda_is_available());
}

static PyObject *py_device_count(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("device_count", NULL, 0, args, kwargs) < 0)
        return NULL;
    return PyLong_FromLong(ct_cuda_device_count());
}

static PyObject *py_is_initialized(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("is_initialized", NULL, 0, args, kwargs) < 0)
        return NULL;
    /* the backend initialises at import; "initialised" means usable, as after _lazy_init */
    return PyBool_FromLong(ct_cuda_device_count() > 0);
}

static PyObject *py_init(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("init", NULL, 0, args, kwargs) < 0 || lazy_init() < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_current_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    int32_t idx;
    (void)self;
    if (ctp_check_posonly_call("current_device", NULL, 0, args, kwargs) < 0 || lazy_init() < 0 ||
        concrete_index(-1, &idx) < 0)
        return NULL;
    return PyLong_FromLong(idx);
}

static PyObject *py_set_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    (void)self;
    if (ctp_parse_python_call("set_device", names, 1, 1, 0, args, kwargs, a) < 0 ||
        device_index(a[0], 0, &idx) < 0)
        return NULL;
    if (idx >= 0 && (lazy_init() < 0 || set_current(idx) < 0)) /* negative: nothing */
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_device_of(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"obj"};
    PyObject *a[CTP_MAX_PARAMS];
    (void)self;
    if (ctp_parse_python_call("device_of", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(a[0]);
    PyObject *arg = t != NULL && ct_tensor_device(t).type == CT_DEVICE_CUDA
                        ? PyLong_FromLong(ct_tensor_device(t).index)
                        : Py_NewRef(Py_None);
    if (arg == NULL)
        return NULL;
    PyObject *r = PyObject_CallOneArg((PyObject *)&device_ctx_type, arg);
    Py_DECREF(arg);
    return r;
}

static PyObject *py_synchronize(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    ct_status st;
    (void)self;
    if (ctp_parse_python_call("synchronize", names, 1, 0, 0, args, kwargs, a) < 0 ||
        lazy_init() < 0 || device_index(a[0], 1, &idx) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS st = ct_cuda_synchronize(idx);
    Py_END_ALLOW_THREADS if (st != CT_OK) return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *py_get_device_properties(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    return properties_of("get_device_properties", args, kwargs);
}

static PyObject *py_get_device_name(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *p = properties_of("get_device_name", args, kwargs);
    if (p == NULL)
        return NULL;
    PyObject *name = Py_NewRef(((props_object *)p)->name);
    Py_DECREF(p);
    return name;
}

static PyObject *py_get_device_capability(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *p = properties_of("get_device_capability", args, kwargs);
    if (p == NULL)
        return NULL;
    PyObject *r = Py_BuildValue("(ii)", ((props_object *)p)->major, ((props_object *)p)->minor);
    Py_DECREF(p);
    return r;
}

/* The memory statistics of an optional device; `*have` 0 when CUDA has no device, where
 * PyTorch (not initialised) reports empty statistics, i.e. 0 everywhere. */
static int memory_stats(const char *fname, PyObject *args, PyObject *kwargs,
                        ct_cuda_memory_stats *out, int *have) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    memset(out, 0, sizeof *out);
    *have = 0;
    if (ctp_parse_python_call(fname, names, 1, 0, 0, args, kwargs, a) < 0)
        return -1;
    if (ct_cuda_device_count() == 0)
        return 0;
    if (device_index(a[0], 1, &idx) < 0)
        return -1;
    ct_status st = ct_cuda_memory_stats_get(idx, out);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    *have = 1;
    return 0;
}

#define MEMORY_STAT(fn, field)                                                                     \
    static PyObject *py_##fn(PyObject *self, PyObject *args, PyObject *kwargs) {                   \
        ct_cuda_memory_stats s;                                                                    \
        int have;                                                                                  \
        (void)self;                                                                                \
        if (memory_stats(#fn, args, kwargs, &s, &have) < 0)                                        \
            return NULL;                                                                           \
        return PyLong_FromLongLong(s.field);                                                       \
    }

MEMORY_STAT(memory_allocated, allocated)
MEMORY_STAT(max_memory_allocated, max_allocated)
MEMORY_STAT(memory_reserved, reserved)
MEMORY_STAT(max_memory_reserved, max_reserved)

/* memory_stats(device=None): PyTorch's keys for what the allocator counts; {} without a
 * device, as PyTorch before initialisation. */
static PyObject *py_memory_stats(PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_cuda_memory_stats s;
    int have;
    (void)self;
    if (memory_stats("memory_stats", args, kwargs, &s, &have) < 0)
        return NULL;
    if (!have)
        return PyDict_New();
    return Py_BuildValue("{sLsLsLsLsL}", "allocated_bytes.all.current", (long long)s.allocated,
                         "allocated_bytes.all.peak", (long long)s.max_allocated,
                         "reserved_bytes.all.current", (long long)s.reserved,
                         "reserved_bytes.all.peak", (long long)s.max_reserved, "num_device_alloc",
                         (long long)s.num_device_allocs);
}

static PyObject *py_reset_peak_memory_stats(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    (void)self;
    if (ctp_parse_python_call("reset_peak_memory_stats", names, 1, 0, 0, args, kwargs, a) < 0 ||
        lazy_init() < 0 || device_index(a[0], 1, &idx) < 0)
        return NULL;
    ct_status st = ct_cuda_reset_peak_memory_stats(idx);
    if (st != CT_OK)
        return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *py_empty_cache(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("empty_cache", NULL, 0, args, kwargs) < 0)
        return NULL;
    if (ct_cuda_device_count() == 0) /* PyTorch: nothing to do before initialisation */
        Py_RETURN_NONE;
    ct_status st = ct_cuda_empty_cache();
    if (st != CT_OK)
        return raise_st(st);
    Py_RETURN_NONE;
}

static PyObject *stream_function(const char *fname, int dflt, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    int32_t idx;
    if (ctp_parse_python_call(fname, names, 1, 0, 0, args, kwargs, a) < 0 || lazy_init() < 0 ||
        device_index(a[0], 1, &idx) < 0)
        return NULL;
    ct_cuda_stream *s = NULL;
    ct_status st = dflt ? ct_cuda_default_stream(idx, &s) : ct_cuda_current_stream(idx, &s);
    return st == CT_OK ? stream_wrap(s) : raise_st(st);
}

static PyObject *py_current_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    return stream_function("current_stream", 0, args, kwargs);
}

static PyObject *py_default_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    return stream_function("default_stream", 1, args, kwargs);
}

static PyObject *py_set_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"stream"};
    PyObject *a[CTP_MAX_PARAMS];
    (void)self;
    if (ctp_parse_python_call("set_stream", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (a[0] == NULL || a[0] == Py_None) /* PyTorch: None does nothing */
        Py_RETURN_NONE;
    if (!stream_check(a[0]))
        return PyErr_Format(PyExc_TypeError, "set_stream(): expected a ctensor.cuda.Stream, not %s",
                            Py_TYPE(a[0])->tp_name);
    if (set_stream(a[0]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"stream"};
    PyObject *a[CTP_MAX_PARAMS];
    (void)self;
    if (ctp_parse_python_call("stream", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    return PyObject_CallOneArg((PyObject *)&stream_ctx_type, a[0] != NULL ? a[0] : Py_None);
}

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef cuda_functions[] = {
    FN(is_available, "is_available() -> bool\n\nWhether CUDA has at least one device."),
    FN(device_count, "device_count() -> int\n\nThe number of CUDA devices (0 without driver)."),
    FN(is_initialized, "is_initialized() -> bool\n\nWhether CUDA is usable (has a device)."),
    FN(init, "init() -> None\n\nInitialise CUDA: the no-driver error when there is no device."),
    FN(current_device, "current_device() -> int\n\nThe calling thread's current cuda device."),
    FN(set_device, "set_device(device) -> None\n\nMake `device` (int, str or device) current; "
                   "a negative index does nothing."),
    FN(device_of, "device_of(obj) -> device\n\nA device context manager for the device of a "
                  "cuda tensor (a no-op one otherwise)."),
    FN(synchronize, "synchronize(device=None) -> None\n\nWait for all work on a device."),
    FN(get_device_properties, "get_device_properties(device=None) -> _CudaDeviceProperties"),
    FN(get_device_name, "get_device_name(device=None) -> str"),
    FN(get_device_capability, "get_device_capability(device=None) -> (major, minor)"),
    FN(memory_allocated, "memory_allocated(device=None) -> int\n\nBytes held by tensors."),
    FN(max_memory_allocated, "max_memory_allocated(device=None) -> int\n\nPeak of "
                             "memory_allocated since the start or the last reset."),
    FN(memory_reserved, "memory_reserved(device=None) -> int\n\nBytes held by the caching "
                        "allocator (allocated plus cached)."),
    FN(max_memory_reserved, "max_memory_reserved(device=None) -> int"),
    FN(memory_stats, "memory_stats(device=None) -> dict\n\nThe allocator's counters under "
                     "PyTorch's keys ({} without a device)."),
    FN(reset_peak_memory_stats, "reset_peak_memory_stats(device=None) -> None"),
    FN(empty_cache, "empty_cache() -> None\n\nReturn cached free blocks to the driver."),
    FN(current_stream, "current_stream(device=None) -> Stream"),
    FN(default_stream, "default_stream(device=None) -> Stream"),
    FN(set_stream, "set_stream(stream) -> None\n\nMake `stream` current on its device (and its "
                   "device current); None does nothing."),
    FN(stream, "stream(stream) -> StreamContext\n\nA context manager that makes `stream` "
               "current (None: nothing)."),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cuda_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor.cuda",
    .m_doc = "torch.cuda: devices, memory statistics, streams and events of the CUDA backend.",
    .m_size = -1,
    .m_methods = cuda_functions,
};

/* ---- Tensor.pin_memory, Tensor.is_pinned --------------------------------------------------- */

static PyObject *tensor_pin_memory(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("pin_memory", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_cuda_pin_memory(ctp_tensor_get(self), &r);
    return ctp_tensor_result(self, st, r);
}

static PyObject *tensor_is_pinned(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("is_pinned", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    return PyBool_FromLong(ct_cuda_is_pinned(ctp_tensor_get(self)));
}

static PyMethodDef cuda_tensor_methods[] = {
    {"pin_memory", CTP_KW_FUNC(tensor_pin_memory), METH_VARARGS | METH_KEYWORDS,
     "pin_memory(device=None) -> Tensor\n\nA copy in page-locked host memory (self when it is "
     "pinned already)."},
    {"is_pinned", CTP_KW_FUNC(tensor_is_pinned), METH_VARARGS | METH_KEYWORDS,
     "is_pinned(device=None) -> bool\n\nWhether the tensor is in page-locked host memory."},
    {NULL, NULL, 0, NULL},
};

/* ---- registration ------------------------------------------------------------------------- */

static int add_type(PyObject *module, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, name, (PyObject *)type);
}

int ctp_cuda_init(PyObject *module) {
    ct_status st = ct_cuda_init();
    if (st != CT_OK) {
        const char *msg = ct_last_error();
        PyErr_Format(PyExc_ImportError, "ctensor: the CUDA backend failed to initialise: %s",
                     msg != NULL ? msg : ct_status_name(st));
        return -1;
    }
    real_registered = 1;
    PyObject *sub = ctp_add_submodule(module, &cuda_module, "cuda");
    if (sub == NULL || add_type(sub, &stream_type, "Stream") < 0 ||
        add_type(sub, &event_type, "Event") < 0 || add_type(sub, &device_ctx_type, "device") < 0 ||
        add_type(sub, &stream_ctx_type, "StreamContext") < 0 ||
        add_type(sub, &props_type, "_CudaDeviceProperties") < 0 ||
        ctp_tensor_add_methods(cuda_tensor_methods) < 0)
        return -1;
    return 0;
}
