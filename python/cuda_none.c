/* ctensor.cuda in a module built without the CUDA backend: PyTorch's CPU-only torch.cuda.
 *
 * is_available() is False and device_count() 0; the memory statistics read 0 and
 * empty_cache() does nothing, as PyTorch answers them before CUDA is initialised;
 * device(None), stream(None), set_device(-1) and set_stream(None) do nothing; everything else
 * raises AssertionError "Torch not compiled with CUDA enabled". Tensors never see a real
 * backend here, so the hooks of ctensor_py.h have nothing to do.
 */
#include "ctensor_py.h"

static PyObject *raise_not_compiled(void) {
    PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
    return NULL;
}

int ctp_cuda_real_backend(void) { return 0; }
int ctp_cuda_lazy_init_device(const ct_device *device) {
    (void)device;
    return 0;
}
int ctp_cuda_displace(void) { return 0; }
int ctp_cuda_restore(void) { return 0; }
int ctp_cuda_pin(PyObject *pin_memory, ct_tensor **t) {
    if (pin_memory != NULL && ctp_opt_bool(pin_memory)) {
        ct_tensor_release(*t);
        *t = NULL;
        PyErr_SetString(PyExc_NotImplementedError,
                        "ctensor does not support pinned memory (pin_memory=True)");
        return -1;
    }
    return 0;
}
ct_status ctp_cuda_copy(ct_tensor *dst, const ct_tensor *src, int non_blocking) {
    (void)non_blocking;
    return ct_tensor_copy_(dst, src);
}
int ctp_cuda_to_async(ct_tensor *src, ct_dtype dtype, const ct_device *device,
                      ct_memory_format format, ct_tensor **out) {
    (void)src, (void)dtype, (void)device, (void)format;
    *out = NULL;
    return 0;
}
int ctp_cuda_dlpack_export_sync(ct_device device, PyObject *stream) {
    (void)device, (void)stream;
    return 0;
}
PyObject *ctp_cuda_dlpack_consumer_stream(PyObject *producer) {
    (void)producer;
    return NULL;
}

static PyObject *py_false(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("is_available", NULL, 0, args, kwargs) < 0)
        return NULL;
    Py_RETURN_FALSE;
}

static PyObject *py_zero(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self, (void)args, (void)kwargs;
    return PyLong_FromLong(0);
}

static PyObject *py_none(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self, (void)args, (void)kwargs;
    Py_RETURN_NONE;
}

static PyObject *py_empty_dict(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self, (void)args, (void)kwargs;
    return PyDict_New();
}

static PyObject *py_not_compiled(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self, (void)args, (void)kwargs;
    return raise_not_compiled();
}

/* The one argument of f(x) (positional or by keyword `name`), or NULL with an exception. */
static PyObject *single_arg(const char *fname, const char *name, PyObject *args, PyObject *kwargs) {
    const char *const names[] = {name};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call(fname, names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    return a[0] != NULL ? a[0] : Py_None;
}

/* Whether x is None or a negative int: what PyTorch's CPU-only torch.cuda lets pass. */
static int is_nothing(PyObject *x) {
    if (x == Py_None)
        return 1;
    if (!ctp_is_int_arg(x))
        return 0;
    int64_t v;
    if (ctp_int64_of_arg(x, &v) < 0) {
        PyErr_Clear();
        return 0;
    }
    return v < 0;
}

static PyObject *null_context(void) {
    PyObject *contextlib = PyImport_ImportModule("contextlib");
    if (contextlib == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(contextlib, "nullcontext", NULL);
    Py_DECREF(contextlib);
    return r;
}

/* device(None), device(-1) and stream(None) do nothing; set_device(-1) and set_stream(None)
 * neither. */
static PyObject *py_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *x = single_arg("device", "device", args, kwargs);
    return x == NULL ? NULL : is_nothing(x) ? null_context() : raise_not_compiled();
}

static PyObject *py_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *x = single_arg("stream", "stream", args, kwargs);
    return x == NULL ? NULL : x == Py_None ? null_context() : raise_not_compiled();
}

static PyObject *py_set_device(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *x = single_arg("set_device", "device", args, kwargs);
    return x == NULL ? NULL : is_nothing(x) ? Py_NewRef(Py_None) : raise_not_compiled();
}

static PyObject *py_set_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    PyObject *x = single_arg("set_stream", "stream", args, kwargs);
    return x == NULL ? NULL : x == Py_None ? Py_NewRef(Py_None) : raise_not_compiled();
}

#define FN(name, impl)                                                                             \
    { #name, CTP_KW_FUNC(impl), METH_VARARGS | METH_KEYWORDS, NULL }

static PyMethodDef cuda_functions[] = {
    FN(is_available, py_false),
    FN(is_initialized, py_false),
    FN(device_count, py_zero),
    FN(memory_allocated, py_zero),
    FN(max_memory_allocated, py_zero),
    FN(memory_reserved, py_zero),
    FN(max_memory_reserved, py_zero),
    FN(memory_stats, py_empty_dict),
    FN(empty_cache, py_none),
    FN(init, py_not_compiled),
    FN(current_device, py_not_compiled),
    FN(set_device, py_set_device),
    FN(device, py_device),
    FN(device_of, py_not_compiled),
    FN(synchronize, py_not_compiled),
    FN(get_device_properties, py_not_compiled),
    FN(get_device_name, py_not_compiled),
    FN(get_device_capability, py_not_compiled),
    FN(reset_peak_memory_stats, py_not_compiled),
    FN(current_stream, py_not_compiled),
    FN(default_stream, py_not_compiled),
    FN(set_stream, py_set_stream),
    FN(stream, py_stream),
    FN(Stream, py_not_compiled),
    FN(Event, py_not_compiled),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cuda_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor.cuda",
    .m_doc = "torch.cuda of a build without the CUDA backend: no devices.",
    .m_size = -1,
    .m_methods = cuda_functions,
};

/* Tensor.is_pinned: never pinned without CUDA. pin_memory is left out, as the tensor type of a
 * CPU-only PyTorch cannot run it either. */
static PyObject *tensor_is_pinned(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"device"};
    PyObject *a[CTP_MAX_PARAMS];
    (void)self;
    if (ctp_parse_python_call("is_pinned", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    Py_RETURN_FALSE;
}

static PyMethodDef cuda_tensor_methods[] = {
    {"is_pinned", CTP_KW_FUNC(tensor_is_pinned), METH_VARARGS | METH_KEYWORDS,
     "is_pinned(device=None) -> bool\n\nAlways False: ctensor was built without CUDA."},
    {NULL, NULL, 0, NULL},
};

int ctp_cuda_init(PyObject *module) {
    if (ctp_add_submodule(module, &cuda_module, "cuda") == NULL ||
        ctp_tensor_add_methods(cuda_tensor_methods) < 0)
        return -1;
    return 0;
}
