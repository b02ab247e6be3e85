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

/* Note [An accelerator the host cannot read]: with host_accessible=False the emulated
 * backend keeps its memory but hands out addresses with bit 62 set (non-canonical on x86-64
 * and AArch64, so any host access faults), its slots clearing the bit again, and it has no
 * launch slot: every op must then reach the memory through the copy slots, as with a real
 * GPU (ops without kernels run through host memory). One such backend at a time. */
#define OPAQUE_BIT ((uintptr_t)1 << 62)
static ct_backend opaque_base;

static void *opaque_addr(void *p) { return p ? (void *)((uintptr_t)p ^ OPAQUE_BIT) : p; }
static const void *opaque_caddr(const void *p) {
    return p ? (const void *)((uintptr_t)p ^ OPAQUE_BIT) : p;
}
static ct_status opaque_allocate(void *ctx, int32_t index, size_t size, size_t align,
                                 void **out) {
    ct_status st = opaque_base.allocate(ctx, index, size, align, out);
    if (st == CT_OK)
        *out = opaque_addr(*out);
    return st;
}
static void opaque_free(void *ctx, int32_t index, void *ptr, size_t size, size_t align) {
    opaque_base.free(ctx, index, opaque_addr(ptr), size, align);
}
static ct_status opaque_h2d(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    return opaque_base.copy_h2d(ctx, index, opaque_addr(dst), src, n);
}
static ct_status opaque_d2h(void *ctx, int32_t index, void *dst, const void *src, size_t n) {
    return opaque_base.copy_d2h(ctx, index, dst, opaque_caddr(src), n);
}
static ct_status opaque_d2d(void *ctx, int32_t di, void *dst, int32_t si, const void *src,
                            size_t n) {
    return opaque_base.copy_d2d(ctx, di, opaque_addr(dst), si, opaque_caddr(src), n);
}
static ct_status opaque_fill(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                             size_t pattern_size) {
    return opaque_base.fill(ctx, index, opaque_addr(dst), n, pattern, pattern_size);
}

static void make_opaque(ct_backend *b) {
    opaque_base = *b;
    b->flags &= ~(uint32_t)CT_BACKEND_HOST_ACCESSIBLE;
    b->allocate = opaque_allocate;
    b->free = opaque_free;
    b->copy_h2d = opaque_h2d;
    b->copy_d2h = opaque_d2h;
    b->copy_d2d = opaque_base.copy_d2d != NULL ? opaque_d2d : NULL;
    b->fill = opaque_base.fill != NULL ? opaque_fill : NULL;
    b->launch = NULL;
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
    /* Check the count (and the slot) before a new PrivateUse1 name is set for good. */
    ct_status st = ct_backend_host_emulated(type, (int)count, &b);
    if (st == CT_OK && unknown) {
        const char *name = PyUnicode_AsUTF8(a[0]);
        st = name != NULL ? ct_privateuse1_set_name(name) : CT_ERR_NOMEM;
        b.name = ct_privateuse1_name();
    }
    if (st == CT_OK && !host_accessible)
        make_opaque(&b);
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
