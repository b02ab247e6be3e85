/* ctensor._testing: hooks for tests, not part of the PyTorch API.
 *
 * register_emulated_backend puts the library's host-emulated accelerator
 * (ct_backend_register_host_emulated) under a device type, so the accelerator rules
 * (device(0), device counts, current devices per thread, set_device errors) run for real
 * without a GPU: register_emulated_backend('cuda', 2), or a PrivateUse1 backend under a
 * new name with register_emulated_backend('npu', 4).
 *
 * With the real CUDA backend (registered at import), the cuda slot is taken: registering an
 * emulated 'cuda', or unregister_backend('cuda'), takes the real backend out (refused while
 * it has live allocations), so a test sees the slot as it would be without CUDA; and
 * restore_cuda_backend() puts it back (the tests' conftest calls it after every test).
 */
#include <stdint.h>
#include <string.h>

#include "ctensor_py.h"

/* The device type named by `name` (a type name, no index), or -1 with an exception; a
 * name no type has yet sets *unknown (for register_emulated_backend to name PrivateUse1). */
static int type_of_name(PyObject *obj, ct_device_type *out, int *unknown) {
    *unknown = 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "type_name must be str, not %s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t len;
    const char *name = PyUnicode_AsUTF8AndSize(obj, &len);
    if (name == NULL)
        return -1;
    if (strlen(name) != (size_t)len || strchr(name, ':') != NULL) {
        PyErr_Format(PyExc_ValueError, "type_name must be a device type without index, not %R",
                     obj);
        return -1;
    }
    ct_device d;
    ct_status st = ct_device_from_string(name, &d);
    if (st == CT_OK) {
        *out = d.type;
        return 0;
    }
    /* Lower-case letters and '_' that are no type yet: a candidate PrivateUse1 name. */
    if (len > 0 && strspn(name, "abcdefghijklmnopqrstuvwxyz_") == (size_t)len) {
        *unknown = 1;
        *out = CT_DEVICE_PRIVATEUSEONE;
        return 0;
    }
    ctp_raise_status(st);
    return -1;
}

/* register_emulated_backend(type_name, device_count, host_accessible=True) */
static PyObject *py_register(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"type_name", "device_count", "host_accessible"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device_type type;
    int unknown;
    int64_t count;
    ct_backend b;
    (void)self;
    if (ctp_parse_python_call("register_emulated_backend", names, 3, 2, 0, args, kwargs, a) < 0 ||
        type_of_name(a[0], &type, &unknown) < 0)
        return NULL;
    int host_accessible = a[2] == NULL || a[2] == Py_None ? 1 : PyObject_IsTrue(a[2]);
    if (host_accessible < 0)
        return NULL;
    if (!ctp_is_int_arg(a[1]))
        return PyErr_Format(PyExc_TypeError, "device_count must be int, not %s",
                            Py_TYPE(a[1])->tp_name);
    if (ctp_int64_of_arg(a[1], &count) < 0)
        return NULL;
    if (count < 0 || count > INT32_MAX) /* the C API's words, before narrowing to int */
        return PyErr_Format(PyExc_ValueError,
                            "Cannot emulate %lld devices: the count must be between 0 and %d",
                            (long long)count, CT_DEVICE_MAX_INDEX + 1);
    int displaced = type == CT_DEVICE_CUDA ? ctp_cuda_displace() : 0;
    if (displaced < 0)
        return NULL;
    /* Check the count (and the slot) before a new PrivateUse1 name is set for good.
     * host_accessible=False: addresses that fault when the host reads them and no kernels,
     * as a real GPU seen from the host (every op then runs through the copy slots). */
    ct_status st = host_accessible ? ct_backend_host_emulated(type, (int)count, &b)
                                   : ct_backend_host_emulated_opaque(type, (int)count, &b);
    if (st == CT_OK && unknown) {
        const char *name = PyUnicode_AsUTF8(a[0]);
        st = name != NULL ? ct_privateuse1_set_name(name) : CT_ERR_NOMEM;
        b.name = ct_privateuse1_name();
    }
    if (st == CT_OK)
        st = ct_backend_register(&b);
    if (st != CT_OK) {
        ctp_raise_status(st);
        if (displaced > 0) { /* nothing took the slot: the real backend goes back */
            PyObject *type_, *value, *tb;
            PyErr_Fetch(&type_, &value, &tb);
            if (ctp_cuda_restore() < 0)
                PyErr_Clear();
            PyErr_Restore(type_, value, tb);
        }
        return NULL;
    }
    Py_RETURN_NONE;
}

/* unregister_backend(type_name): remove a backend (PrivateUse1: and its name). */
static PyObject *py_unregister(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"type_name"};
    PyObject *a[CTP_MAX_PARAMS];
    ct_device_type type;
    int unknown;
    (void)self;
    if (ctp_parse_python_call("unregister_backend", names, 1, 1, 0, args, kwargs, a) < 0 ||
        type_of_name(a[0], &type, &unknown) < 0)
        return NULL;
    if (unknown)
        return PyErr_Format(PyExc_RuntimeError, "No backend is registered for device type %U",
                            a[0]);
    if (type == CT_DEVICE_CUDA && ctp_cuda_real_backend()) /* out until restore_cuda_backend */
        return ctp_cuda_displace() < 0 ? NULL : Py_NewRef(Py_None);
    ct_status st = ct_backend_unregister(type);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

/* restore_cuda_backend(): the real cuda backend back in its slot after a test took it out;
 * True when it was out. */
static PyObject *py_restore_cuda(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    int rc = ctp_cuda_restore();
    return rc < 0 ? NULL : PyBool_FromLong(rc);
}

/* default_device_depth(): the calling thread's open `with device:` scopes. */
static PyObject *py_default_device_depth(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(ct_default_device_depth());
}

static PyMethodDef testing_functions[] = {
    {"register_emulated_backend", CTP_KW_FUNC(py_register), METH_VARARGS | METH_KEYWORDS,
     "register_emulated_backend(type_name, device_count, host_accessible=True) -> None\n\n"
     "Register the host-emulated accelerator under a device type ('cuda', 'xpu', ...), or\n"
     "under PrivateUse1 with a new name ('npu'). host_accessible=False: its addresses fault\n"
     "when the host reads them and it has no kernels, as a real GPU seen from the host."},
    {"unregister_backend", CTP_KW_FUNC(py_unregister), METH_VARARGS | METH_KEYWORDS,
     "unregister_backend(type_name) -> None\n\n"
     "Remove the backend of a device type; for PrivateUse1 also its name."},
    {"restore_cuda_backend", py_restore_cuda, METH_NOARGS,
     "restore_cuda_backend() -> bool\n\n"
     "Put the real CUDA backend back into the cuda slot (unregistering an emulation there)\n"
     "after a test took it out; False when it was in place."},
    {"default_device_depth", py_default_device_depth, METH_NOARGS,
     "default_device_depth() -> int\n\n"
     "The number of default-device scopes the calling thread has open."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef testing_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor._testing",
    .m_doc = "Test hooks: emulated accelerators over host memory.",
    .m_size = -1,
    .m_methods = testing_functions,
};

int ctp_testing_init(PyObject *module) {
    PyObject *sub = ctp_add_submodule(module, &testing_module, "_testing");
#ifdef CT_HAVE_CUDA
    const int cuda_built = 1;
#else
    const int cuda_built = 0;
#endif
    /* CUDA_BUILT: whether the module has the CUDA backend (PyTorch: torch.version.cuda) */
    if (sub == NULL ||
        PyModule_AddObjectRef(sub, "CUDA_BUILT", cuda_built ? Py_True : Py_False) < 0)
        return -1;
    return 0;
}
