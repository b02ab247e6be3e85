/* Module functions that are forms of a Tensor method: ctensor.transpose(input, dim0, dim1) is
 * input.transpose(dim0, dim1), and likewise t, squeeze, unsqueeze, reshape, permute, narrow,
 * select, broadcast_to (input.expand(size)), is_signed, clone and negative (PyTorch's alias
 * of neg),
 * so that every layout gets what its method gives (sparse tensors their sparse forms, through
 * python/sparse.c's wrappers). The arguments are parsed with PyTorch's signature first, so
 * that a wrong argument raises the TypeError PyTorch raises for the function. */
#include "ctensor_py.h"

static const ctp_signature transpose_sig[] = {
    {3, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim0"}, {CTP_PARAM_INT64, "dim1"}}}};
static const ctp_signature t_sig[] = {{1, {{CTP_PARAM_TENSOR, "input"}}}};
static const ctp_signature clone_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}}};
static const ctp_signature squeeze_sigs[] = {
    {1, {{CTP_PARAM_TENSOR, "input"}}},
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim"}}},
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_NAME, "dim"}}},
};
static const ctp_signature unsqueeze_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim"}}}};
static const ctp_signature is_signed_sig[] = {{1, {{CTP_PARAM_TENSOR, "input"}}}};
static const ctp_signature reshape_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_SYMINT_LIST, "shape"}}}};
static const ctp_signature permute_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT_LIST, "dims"}}}};
static const ctp_signature narrow_sigs[] = {
    {4, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim"}, {CTP_PARAM_TENSOR, "start"},
         {CTP_PARAM_INT64, "length"}}},
    {4, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim"}, {CTP_PARAM_INT64, "start"},
         {CTP_PARAM_INT64, "length"}}},
};
static const ctp_signature select_sigs[] = {
    {3, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_INT64, "dim"}, {CTP_PARAM_INT64, "index"}}},
    {3, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_NAME, "dim"}, {CTP_PARAM_INT64, "index"}}},
};
static const ctp_signature broadcast_to_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_SYMINT_LIST, "size"}}}};
static const ctp_signature size_sig[] = {{1, {{CTP_PARAM_SYMINT_LIST, "size"}}}};
static const ctp_signature negative_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_TENSOR, "*out=None"}}}};

/* input.<method>(positional arguments a[1..npos), memory_format=a[npos] when given). */
static PyObject *call_method(const char *method, PyObject *const *a, int npos, const char *kwname) {
    PyObject *name = PyUnicode_FromString(method);
    if (name == NULL)
        return NULL;
    PyObject *argv[5] = {a[0], npos > 1 ? a[1] : NULL, npos > 2 ? a[2] : NULL,
                         npos > 3 ? a[3] : NULL, NULL};
    PyObject *kwnames = NULL;
    size_t n = (size_t)npos;
    if (kwname != NULL && a[npos] != NULL) {
        kwnames = Py_BuildValue("(s)", kwname);
        if (kwnames == NULL) {
            Py_DECREF(name);
            return NULL;
        }
        argv[npos] = a[npos];
    }
    PyObject *r = PyObject_VectorcallMethod(name, argv, n, kwnames);
    Py_DECREF(name);
    Py_XDECREF(kwnames);
    return r;
}

static PyObject *tensor_broadcast_to(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS + 1];
    if (ctp_parse_args("broadcast_to", size_sig, 1, args, kwargs, a + 1) < 0)
        return NULL;
    a[0] = self;
    return call_method("expand", a, 2, NULL);
}

/* type_as(other): PyTorch's self.to(other.options()), other's dtype and device (self itself
 * when they are self's). */
static const ctp_signature type_as_sig[] = {{1, {{CTP_PARAM_TENSOR, "other"}}}};

static PyObject *tensor_type_as(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("type_as", type_as_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(self), *other = ctp_tensor_get(a[0]), *r = NULL;
    ct_device device = ct_tensor_device(other);
    ct_status st = ct_tensor_to(t, ct_tensor_dtype(other), &device, false,
                                CT_MEMFMT_PRESERVE, &r);
    if (st == CT_OK && r == t) {
        ct_tensor_release(r);
        return Py_NewRef(self);
    }
    return ctp_tensor_result(NULL, st, r);
}

/* name(input, ...): the arguments parsed with PyTorch's signatures of the function (its
 * TypeErrors), then input.<method>(the first npos of them), with memory_format= when kw says
 * so. The method and the C API then decide the rest (a shape's -1, a dim's range, narrow's
 * 0-dim tensor start), with the method's messages, as torch's functions share one
 * implementation with their methods. */
#define METHOD_FORM(name, sigs, nsigs, method, npos, kw)                                           \
    static PyObject *py_##name(PyObject *mod, PyObject *args, PyObject *kwargs) {                  \
        (void)mod;                                                                                 \
        PyObject *a[CTP_MAX_PARAMS];                                                               \
        if (ctp_parse_args(#name, sigs, nsigs, args, kwargs, a) < 0)                               \
            return NULL;                                                                           \
        return call_method(method, a, npos, kw);                                                   \
    }
METHOD_FORM(transpose, transpose_sig, 1, "transpose", 3, NULL)
METHOD_FORM(t, t_sig, 1, "t", 1, NULL)
METHOD_FORM(clone, clone_sig, 1, "clone", 1, "memory_format")
METHOD_FORM(unsqueeze, unsqueeze_sig, 1, "unsqueeze", 2, NULL)
METHOD_FORM(is_signed, is_signed_sig, 1, "is_signed", 1, NULL)
METHOD_FORM(reshape, reshape_sig, 1, "reshape", 2, NULL)
METHOD_FORM(permute, permute_sig, 1, "permute", 2, NULL)
METHOD_FORM(narrow, narrow_sigs, 2, "narrow", 4, NULL)
METHOD_FORM(select, select_sigs, 2, "select", 3, NULL)
/* broadcast_to is expand without expand's `implicit` (PyTorch: at::broadcast_to calls
 * expand, so the messages are expand's). */
METHOD_FORM(broadcast_to, broadcast_to_sig, 1, "expand", 2, NULL)

/* negative is neg: the module's neg with the same arguments (sparse.c routes sparse ones). */
static PyObject *py_negative(PyObject *mod, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("negative", negative_sig, 1, args, kwargs, a) < 0)
        return NULL;
    PyObject *neg = PyObject_GetAttrString(mod, "neg");
    if (neg == NULL)
        return NULL;
    PyObject *r = PyObject_Call(neg, args, kwargs);
    Py_DECREF(neg);
    return r;
}

static PyObject *py_squeeze(PyObject *mod, PyObject *args, PyObject *kwargs) {
    (void)mod;
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("squeeze", squeeze_sigs, 3, args, kwargs, a);
    if (k < 0)
        return NULL;
    return call_method("squeeze", a, k == 0 ? 1 : 2, NULL);
}

/* square is pow(input, 2) in PyTorch (its dtype rules and messages: bool gives int64, bool's
 * square_ "Found dtype Bool but expected Long"): the forms call pow's. */
static const ctp_signature square_sig[] = {
    {2, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_TENSOR, "*out=None"}}}};
static const ctp_signature square__sig[] = {{1, {{CTP_PARAM_TENSOR, "input"}}}};
static const ctp_signature no_args_sig[] = {{0, {{0}}}};

/* obj.<name>(2), or module.pow(input, 2, out=out) for name NULL. */
static PyObject *pow2(PyObject *mod, const char *name, PyObject *input, PyObject *out) {
    PyObject *two = PyLong_FromLong(2);
    if (two == NULL)
        return NULL;
    PyObject *r = NULL;
    if (name != NULL) {
        r = PyObject_CallMethod(input, name, "O", two);
    } else {
        PyObject *pow = PyObject_GetAttrString(mod, "pow");
        PyObject *args = pow != NULL ? PyTuple_Pack(2, input, two) : NULL;
        PyObject *kw = args != NULL && out != NULL ? Py_BuildValue("{sO}", "out", out) : NULL;
        if (args != NULL && (out == NULL || kw != NULL))
            r = PyObject_Call(pow, args, kw);
        Py_XDECREF(pow);
        Py_XDECREF(args);
        Py_XDECREF(kw);
    }
    Py_DECREF(two);
    return r;
}

static PyObject *py_square(PyObject *mod, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("square", square_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return pow2(mod, NULL, a[0], a[1]);
}

static PyObject *py_square_(PyObject *mod, PyObject *args, PyObject *kwargs) {
    (void)mod;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("square_", square__sig, 1, args, kwargs, a) < 0)
        return NULL;
    return pow2(NULL, "pow_", a[0], NULL);
}

static PyObject *tensor_square(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("square", no_args_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return pow2(NULL, "pow", self, NULL);
}

static PyObject *tensor_square_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("square_", no_args_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return pow2(NULL, "pow_", self, NULL);
}

static PyMethodDef square_methods[] = {
    {"broadcast_to", CTP_KW_FUNC(tensor_broadcast_to), METH_VARARGS | METH_KEYWORDS,
     "broadcast_to(size) -> Tensor"},
    {"square", CTP_KW_FUNC(tensor_square), METH_VARARGS | METH_KEYWORDS, "square() -> Tensor"},
    {"type_as", CTP_KW_FUNC(tensor_type_as), METH_VARARGS | METH_KEYWORDS,
     "type_as(other) -> Tensor"},
    {"square_", CTP_KW_FUNC(tensor_square_), METH_VARARGS | METH_KEYWORDS, "square_() -> Tensor"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef method_functions[] = {
    {"broadcast_to", CTP_KW_FUNC(py_broadcast_to), METH_VARARGS | METH_KEYWORDS,
     "broadcast_to(input, size) -> Tensor"},
    {"clone", CTP_KW_FUNC(py_clone), METH_VARARGS | METH_KEYWORDS,
     "clone(input, *, memory_format=None) -> Tensor"},
    {"narrow", CTP_KW_FUNC(py_narrow), METH_VARARGS | METH_KEYWORDS,
     "narrow(input, dim, start, length) -> Tensor"},
    {"negative", CTP_KW_FUNC(py_negative), METH_VARARGS | METH_KEYWORDS,
     "negative(input, *, out=None) -> Tensor"},
    {"permute", CTP_KW_FUNC(py_permute), METH_VARARGS | METH_KEYWORDS,
     "permute(input, dims) -> Tensor"},
    {"reshape", CTP_KW_FUNC(py_reshape), METH_VARARGS | METH_KEYWORDS,
     "reshape(input, shape) -> Tensor"},
    {"select", CTP_KW_FUNC(py_select), METH_VARARGS | METH_KEYWORDS,
     "select(input, dim, index) -> Tensor"},
    {"t", CTP_KW_FUNC(py_t), METH_VARARGS | METH_KEYWORDS, "t(input) -> Tensor"},
    {"squeeze", CTP_KW_FUNC(py_squeeze), METH_VARARGS | METH_KEYWORDS,
     "squeeze(input, dim=None) -> Tensor"},
    {"unsqueeze", CTP_KW_FUNC(py_unsqueeze), METH_VARARGS | METH_KEYWORDS,
     "unsqueeze(input, dim) -> Tensor"},
    {"is_signed", CTP_KW_FUNC(py_is_signed), METH_VARARGS | METH_KEYWORDS,
     "is_signed(input) -> bool"},
    {"square", CTP_KW_FUNC(py_square), METH_VARARGS | METH_KEYWORDS,
     "square(input, *, out=None) -> Tensor"},
    {"square_", CTP_KW_FUNC(py_square_), METH_VARARGS | METH_KEYWORDS, "square_(input) -> Tensor"},
    {"transpose", CTP_KW_FUNC(py_transpose), METH_VARARGS | METH_KEYWORDS,
     "transpose(input, dim0, dim1) -> Tensor"},
    {NULL, NULL, 0, NULL},
};

int ctp_method_functions_init(PyObject *module) {
    if (PyModule_AddFunctions(module, method_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(square_methods);
}
