/* ctensor.utils: torch.utils.rename_privateuse1_backend.
 *
 * After rename_privateuse1_backend('npu'), 'npu' parses and prints as the PrivateUse1 device
 * type, as in PyTorch. The rules and messages are the C API's (ct_privateuse1_set_name): one
 * name per process, no in-tree name, and - stricter than PyTorch - only names the device
 * grammar can parse.
 *
 * Also the binding's shared table helper ctp_add_entry_defs (ctensor_py.h).
 */
#include <string.h>

#include "ctensor_py.h"

static PyObject *py_rename_privateuse1_backend(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"backend_name"};
    PyObject *a[CTP_MAX_PARAMS];
    Py_ssize_t len;
    (void)self;
    if (ctp_parse_python_call("rename_privateuse1_backend", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (!PyUnicode_Check(a[0]))
        return PyErr_Format(PyExc_TypeError,
                            "rename_privateuse1_backend(): argument 'backend_name' must be str, "
                            "not %s",
                            Py_TYPE(a[0])->tp_name);
    const char *name = PyUnicode_AsUTF8AndSize(a[0], &len);
    if (name == NULL)
        return NULL;
    if (strlen(name) != (size_t)len) {
        /* The C API would see only the text before the NUL. No such name is valid; report it
         * whole, after the C API's first check (a different name already set). */
        const char *current = ct_privateuse1_name();
        if (current != NULL)
            return PyErr_Format(PyExc_RuntimeError,
                                "torch.register_privateuse1_backend() has already been set! "
                                "Current backend: %s",
                                current);
        return PyErr_Format(PyExc_RuntimeError,
                            "Invalid privateuse1 backend name %R: use 1 to %d lower-case ASCII "
                            "letters or '_'",
                            a[0], CT_BACKEND_MAX_NAME);
    }
    ct_status st = ct_privateuse1_set_name(name);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

static PyMethodDef utils_functions[] = {
    {"rename_privateuse1_backend", CTP_KW_FUNC(py_rename_privateuse1_backend),
     METH_VARARGS | METH_KEYWORDS,
     "rename_privateuse1_backend(backend_name) -> None\n\n"
     "Name the PrivateUse1 device type (e.g. 'npu'): devices then parse and print as\n"
     "'npu:0'. A process may set one name."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef utils_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor.utils",
    .m_doc = "Utilities (torch.utils): naming the PrivateUse1 backend.",
    .m_size = -1,
    .m_methods = utils_functions,
};

int ctp_utils_init(PyObject *module) {
    return ctp_add_submodule(module, &utils_module, "utils") == NULL ? -1 : 0;
}

int ctp_add_entry_defs(PyObject *module, int n, int (*entry)(int i, PyMethodDef *def),
                       PyMethodDef *functions, PyMethodDef *methods) {
    /* n > 0 rows each land in one table: both empty means not filled yet */
    if (functions[0].ml_name == NULL && methods[0].ml_name == NULL) {
        int nf = 0, nm = 0;
        for (int i = 0; i < n; i++) {
            PyMethodDef d;
            if (entry(i, &d))
                functions[nf++] = d;
            else
                methods[nm++] = d;
        }
        functions[nf] = (PyMethodDef){NULL, NULL, 0, NULL};
        methods[nm] = (PyMethodDef){NULL, NULL, 0, NULL};
    }
    if (PyModule_AddFunctions(module, functions) < 0)
        return -1;
    return ctp_tensor_add_methods(methods);
}
