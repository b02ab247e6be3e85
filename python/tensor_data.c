/* Reading values out of tensors: tolist(), item(), bool()/int()/float()/complex()/index(),
 * numpy() and __array__.
 *
 * Conversions follow PyTorch's Tensor.__int__/__float__/__index__: int()/float()/complex() need
 * exactly one element ("only one element tensors can be converted to Python scalars", ValueError);
 * int() truncates floats (NaN and inf raise Python's errors) and range-checks everything else
 * through item ("value cannot be converted to type int64_t without overflow" for a complex with an
 * imaginary part); bool() refuses empty and multi-element tensors (RuntimeError "Boolean value of
 * Tensor with no values is ambiguous" / "with more than one value"); index() takes integer and bool
 * tensors of one element only (TypeError).
 *
 * numpy() shares memory with a cpu tensor through the buffer protocol (NumPy is imported
 * only when called); dtypes NumPy lacks (bfloat16, complex32, float8, float4) raise
 * TypeError "Got unsupported ScalarType BFloat16", as PyTorch, except that the float8 dtypes
 * become arrays of ml_dtypes' types of the same names when ml_dtypes can be imported (still
 * sharing memory). float4_e2m1fn_x2 packs two values in a byte and ml_dtypes.float4_e2m1fn
 * holds one per byte: it becomes such an array with a last dim twice as long, a copy.
 */
#include "ctensor_py.h"

static ct_tensor *T(PyObject *self) { return ((ctp_tensor_object *)self)->tensor; }

static PyObject *raise_status(ct_status st) { return ctp_raise_status(st); }

/* The single element as a scalar, after PyTorch's numel check for Python conversions. */
static int one_element(PyObject *self, ct_scalar *out) {
    if (ct_tensor_numel(T(self)) != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "only one element tensors can be converted to Python scalars");
        return -1;
    }
    ct_status st = ct_tensor_item(T(self), out);
    if (st != CT_OK) {
        raise_status(st);
        return -1;
    }
    return 0;
}

/* ---- item, tolist ------------------------------------------------------------------------- */

static PyObject *tensor_item(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_scalar v;
    ct_status st = ct_tensor_item(T(self), &v);
    return st == CT_OK ? ctp_scalar_to_object(v) : raise_status(st);
}

/* The dtype tolist() reads elements in: what Python objects they become. */
static ct_dtype read_dtype(ct_dtype d) {
    if (d == CT_BOOL || d == CT_UINT64)
        return d;
    if (ct_dtype_is_integral(d, false))
        return CT_INT64;
    return ct_dtype_is_complex(d) ? CT_COMPLEX128 : CT_FLOAT64;
}

static PyObject *element(ct_dtype d, const char *p) {
    switch (d) {
    case CT_BOOL:
        /* a byte, not a bool: empty(), NumPy and DLPack can leave any value there, and
         * loading a bool that is neither 0 nor 1 is undefined; nonzero is True (PyTorch) */
        return PyBool_FromLong(*(const unsigned char *)p != 0);
    case CT_UINT64:
        return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
    case CT_INT64:
        return PyLong_FromLongLong(*(const int64_t *)p);
    case CT_COMPLEX128: {
        const ct_complex128 *c = (const ct_complex128 *)p;
        return PyComplex_FromDoubles(c->re, c->im);
    }
    default:
        return PyFloat_FromDouble(*(const double *)p);
    }
}

static PyObject *build_list(const int64_t *sizes, int64_t ndim, ct_dtype d, size_t itemsize,
                            const char **p) {
    if (ndim == 0) {
        PyObject *r = element(d, *p);
        *p += itemsize;
        return r;
    }
    PyObject *list = PyList_New((Py_ssize_t)sizes[0]);
    for (int64_t i = 0; list != NULL && i < sizes[0]; i++) {
        PyObject *item = build_list(sizes + 1, ndim - 1, d, itemsize, p);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *tensor_tolist(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_tensor *t = T(self), *c = NULL;
    if (ct_tensor_dtype(t) == CT_FLOAT4_E2M1FN_X2)
        return PyErr_Format(PyExc_NotImplementedError,
                            "\"tolist\" not implemented for 'Float4_e2m1fn_x2'");
    ct_dtype d = read_dtype(ct_tensor_dtype(t));
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    /* A host tensor of the element type read below, then in C order (to() alone may return
     * a transposed input unchanged: PyTorch's to_will_alias). */
    ct_tensor *h = NULL;
    ct_status st = ct_tensor_to(t, d, &cpu, false, CT_MEMFMT_PRESERVE, &h);
    if (st == CT_OK)
        st = ct_tensor_contiguous(h, CT_MEMFMT_CONTIGUOUS, &c);
    ct_tensor_release(h);
    if (st != CT_OK)
        return raise_status(st);
    const char *p = ct_tensor_data_ptr(c);
    PyObject *r;
    if (p == NULL && ct_tensor_numel(c) > 0)
        r = PyErr_Format(PyExc_RuntimeError, "tolist(): the tensor has no data");
    else
        r = build_list(ct_tensor_sizes(c), ct_tensor_dim(c), d, ct_dtype_itemsize(d), &p);
    ct_tensor_release(c);
    return r;
}

/* ---- number protocol ------------------------------------------------------------------------ */

static int tensor_bool(PyObject *self) {
    int64_t n = ct_tensor_numel(T(self));
    if (n != 1) {
        PyErr_Format(PyExc_RuntimeError, "Boolean value of Tensor with %s is ambiguous",
                     n == 0 ? "no values" : "more than one value");
        return -1;
    }
    ct_scalar v;
    ct_status st = ct_tensor_item(T(self), &v);
    if (st != CT_OK) {
        raise_status(st);
        return -1;
    }
    switch (v.kind) {
    case CT_SCALAR_BOOL:
        return v.v.b;
    case CT_SCALAR_INT:
        return v.v.i != 0;
    case CT_SCALAR_UINT:
        return v.v.u != 0;
    case CT_SCALAR_FLOAT:
        return v.v.f != 0.0; /* NaN is true */
    case CT_SCALAR_COMPLEX:
        return v.v.c.re != 0.0 || v.v.c.im != 0.0;
    }
    return 1;
}

static PyObject *tensor_int(PyObject *self) {
    ct_scalar v;
    if (one_element(self, &v) < 0)
        return NULL;
    if (v.kind == CT_SCALAR_FLOAT) /* truncates; Python's errors for NaN and inf */
        return PyLong_FromDouble(v.v.f);
    int64_t i;
    ct_status st = ct_scalar_to_dtype(v, CT_INT64, &i);
    return st == CT_OK ? PyLong_FromLongLong(i) : raise_status(st);
}

static PyObject *tensor_float(PyObject *self) {
    ct_scalar v;
    if (one_element(self, &v) < 0)
        return NULL;
    double d;
    ct_status st = ct_scalar_to_dtype(v, CT_FLOAT64, &d);
    return st == CT_OK ? PyFloat_FromDouble(d) : raise_status(st);
}

static PyObject *tensor_index(PyObject *self) {
    ct_tensor *t = T(self);
    if (!ct_dtype_is_integral(ct_tensor_dtype(t), true) || ct_tensor_numel(t) != 1) {
        PyErr_SetString(PyExc_TypeError,
                        "only integer tensors of a single element can be converted to an index");
        return NULL;
    }
    return tensor_int(self);
}

static PyObject *tensor_complex(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_scalar v;
    if (one_element(self, &v) < 0)
        return NULL;
    ct_complex128 c;
    ct_status st = ct_scalar_to_dtype(v, CT_COMPLEX128, &c);
    return st == CT_OK ? PyComplex_FromDoubles(c.re, c.im) : raise_status(st);
}

PyNumberMethods ctp_tensor_as_number = {
    .nb_bool = tensor_bool,
    .nb_int = tensor_int,
    .nb_float = tensor_float,
    .nb_index = tensor_index,
};

/* ---- numpy ----------------------------------------------------------------------------------- */

/* A buffer exporter over a cpu tensor: NumPy arrays made from it share the tensor's memory
 * and keep it alive through their base. It holds an alias of the tensor taken at export
 * time, never the tensor itself: an out= that later grows the tensor gives the tensor a new
 * storage, and the array must keep the old one, with the shape and strides it was made with
 * (the rule of the C exports, src/tensor/dlpack.c, Note [Exports hold an alias]). */
typedef struct {
    PyObject ob_base;
    ct_tensor *tensor; /* the alias: nothing else can resize it */
    Py_ssize_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
} buffer_object;

static const char *buffer_format(ct_dtype d) {
    switch (d) {
    case CT_BOOL:
        return "?";
    case CT_UINT8:
        return "B";
    case CT_INT8:
        return "b";
    case CT_INT16:
        return "h";
    case CT_UINT16:
        return "H";
    case CT_INT32:
        return "i";
    case CT_UINT32:
        return "I";
    case CT_INT64:
        return "q";
    case CT_UINT64:
        return "Q";
    case CT_FLOAT16:
        return "e";
    case CT_FLOAT32:
        return "f";
    case CT_FLOAT64:
        return "d";
    case CT_COMPLEX64:
        return "Zf";
    case CT_COMPLEX128:
        return "Zd";
    default:
        return NULL;
    }
}

static int buffer_get(PyObject *obj, Py_buffer *view, int flags) {
    buffer_object *self = (buffer_object *)obj;
    ct_tensor *t = self->tensor;
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES &&
        !ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS)) {
        PyErr_SetString(PyExc_BufferError, "the tensor is not contiguous: strides are needed");
        view->obj = NULL;
        return -1;
    }
    int64_t n = ct_tensor_dim(t);
    size_t itemsize = ct_tensor_element_size(t);
    int empty = ct_tensor_numel(t) == 0; /* NumPy gives empty arrays zero strides */
    for (int64_t i = 0; i < n; i++) {
        self->shape[i] = (Py_ssize_t)ct_tensor_sizes(t)[i];
        self->strides[i] = empty ? 0 : (Py_ssize_t)(ct_tensor_strides(t)[i] * (int64_t)itemsize);
    }
    view->obj = Py_NewRef(obj);
    view->buf = ct_tensor_data_ptr(t);
    view->len = (Py_ssize_t)ct_tensor_nbytes(t);
    view->readonly = 0;
    view->itemsize = (Py_ssize_t)itemsize;
    view->format = (flags & PyBUF_FORMAT) ? (char *)buffer_format(ct_tensor_dtype(t)) : NULL;
    view->ndim = (int)n;
    view->shape = self->shape;
    view->strides = self->strides;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static void buffer_dealloc(PyObject *obj) {
    ct_tensor_release(((buffer_object *)obj)->tensor);
    Py_TYPE(obj)->tp_free(obj);
}

static PyBufferProcs buffer_procs = {.bf_getbuffer = buffer_get};

/* clang-format off */
static PyTypeObject buffer_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor._TensorBuffer",
    .tp_basicsize = sizeof(buffer_object),
    .tp_dealloc = buffer_dealloc,
    .tp_as_buffer = &buffer_procs,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory of a cpu tensor, for numpy().",
};
/* clang-format on */

static const ctp_signature numpy_sig[] = {{1, {{CTP_PARAM_BOOL, "*force=False"}}}};

static PyObject *numpy_of_bytes(ct_tensor *t);

/* ml_dtypes' type of the same name for a float8 dtype, when ml_dtypes can be imported (NULL
 * without an exception otherwise): float8 arrays are NumPy arrays of those types. */
static PyObject *ml_dtypes_type(ct_dtype d) {
    if (!ct_dtype_is_float8(d))
        return NULL;
    PyObject *ml = PyImport_ImportModule("ml_dtypes");
    if (ml == NULL) {
        if (PyErr_ExceptionMatches(PyExc_ImportError))
            PyErr_Clear();
        return NULL;
    }
    PyObject *type = PyObject_GetAttrString(ml, ct_dtype_name(d));
    Py_DECREF(ml);
    return type;
}

/* float4_e2m1fn_x2 as ml_dtypes' float4_e2m1fn, one value per byte: the pairs unpacked into
 * a last dim twice as long (a copy: no array can share a packed byte). Without ml_dtypes,
 * PyTorch's TypeError. */
static PyObject *numpy_of_float4(ct_tensor *t) {
    PyObject *ml = PyImport_ImportModule("ml_dtypes");
    if (ml == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ImportError))
            return NULL;
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s",
                            ct_dtype_cpp_name(ct_tensor_dtype(t)));
    }
    PyObject *type = PyObject_GetAttrString(ml, "float4_e2m1fn");
    Py_DECREF(ml);
    if (type == NULL)
        return NULL;
    ct_tensor *codes = NULL;
    ct_status st = ct_tensor_float4_codes(t, &codes);
    PyObject *r = st == CT_OK ? numpy_of_bytes(codes) : raise_status(st);
    ct_tensor_release(codes); /* the array holds its own reference */
    if (r != NULL)
        Py_SETREF(r, PyObject_CallMethod(r, "view", "O", type));
    Py_DECREF(type);
    return r;
}

static PyObject *numpy_of(ct_tensor *t) {
    if (ct_tensor_dtype(t) == CT_FLOAT4_E2M1FN_X2)
        return numpy_of_float4(t);
    PyObject *ml_type = NULL;
    if (buffer_format(ct_tensor_dtype(t)) == NULL &&
        (ml_type = ml_dtypes_type(ct_tensor_dtype(t))) == NULL && !PyErr_Occurred())
        return PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s",
                            ct_dtype_cpp_name(ct_tensor_dtype(t)));
    if (PyErr_Occurred())
        return NULL;
    PyObject *r = numpy_of_bytes(t);
    if (r != NULL && ml_type != NULL) /* the bytes as uint8, seen as ml_dtypes' type */
        Py_SETREF(r, PyObject_CallMethod(r, "view", "O", ml_type));
    Py_XDECREF(ml_type);
    return r;
}

/* The tensor's memory as an array (uint8 for dtypes without a buffer format). */
static PyObject *numpy_of_bytes(ct_tensor *t) {
    if (ct_tensor_strides(t) == NULL)
        return PyErr_Format(PyExc_NotImplementedError,
                            "numpy() is only supported for strided tensors");
    if (!PyType_HasFeature(&buffer_type, Py_TPFLAGS_READY) && PyType_Ready(&buffer_type) < 0)
        return NULL;
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL)
        return NULL;
    ct_tensor *alias = NULL;
    ct_status st = ct_tensor_alias(t, &alias);
    if (st != CT_OK) {
        Py_DECREF(np);
        return raise_status(st);
    }
    buffer_object *b = PyObject_New(buffer_object, &buffer_type);
    PyObject *r = NULL;
    if (b != NULL) {
        b->tensor = alias;
        r = PyObject_CallMethod(np, "asarray", "O", (PyObject *)b);
        Py_DECREF(b);
    } else {
        ct_tensor_release(alias);
    }
    Py_DECREF(np);
    return r;
}

static PyObject *tensor_numpy(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("numpy", numpy_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *t = T(self);
    ct_device dev = ct_tensor_device(t);
    if (ctp_opt_bool(a[0]) && dev.type != CT_DEVICE_CPU) { /* force: a cpu copy */
        ct_tensor *c = NULL;
        ct_status st = ct_tensor_to_device(t, (ct_device){CT_DEVICE_CPU, CT_DEVICE_NO_INDEX}, &c);
        if (st != CT_OK)
            return raise_status(st);
        PyObject *r = numpy_of(c);
        ct_tensor_release(c);
        return r;
    }
    if (dev.type != CT_DEVICE_CPU) {
        char buf[CT_DEVICE_STRING_MAX];
        ct_status st = ct_device_str(dev, buf, sizeof buf);
        if (st != CT_OK)
            return raise_status(st);
        return PyErr_Format(PyExc_TypeError,
                            "can't convert %s device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first.",
                            buf);
    }
    return numpy_of(t);
}

/* __array__(dtype=None, copy=None): numpy(), then cast when a dtype is asked for. */
static PyObject *tensor_array(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char dtype_kw[] = "dtype", copy_kw[] = "copy";
    static char *kwlist[] = {dtype_kw, copy_kw, NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kwlist, &dtype, &copy))
        return NULL;
    PyObject *none = PyTuple_New(0);
    if (none == NULL)
        return NULL;
    PyObject *arr = tensor_numpy(self, none, NULL);
    Py_DECREF(none);
    if (arr == NULL || dtype == Py_None)
        return arr;
    PyObject *astype = PyObject_GetAttrString(arr, "astype");
    PyObject *cargs = PyTuple_Pack(1, dtype);
    PyObject *ckw = Py_BuildValue("{s:O}", "copy", Py_False);
    PyObject *r =
        astype != NULL && cargs != NULL && ckw != NULL ? PyObject_Call(astype, cargs, ckw) : NULL;
    Py_XDECREF(astype);
    Py_XDECREF(cargs);
    Py_XDECREF(ckw);
    Py_DECREF(arr);
    return r;
}

PyMethodDef ctp_tensor_data_methods[] = {
    {"item", tensor_item, METH_NOARGS, "item() -> number\n\nThe one element as a Python number."},
    {"tolist", tensor_tolist, METH_NOARGS, "tolist() -> list or number"},
    {"__complex__", tensor_complex, METH_NOARGS, NULL},
    {"numpy", CTP_KW_FUNC(tensor_numpy), METH_VARARGS | METH_KEYWORDS,
     "numpy(*, force=False) -> numpy.ndarray\n\nAn array sharing the memory of a cpu tensor "
     "(force=True: of a cpu copy)."},
    {"__array__", CTP_KW_FUNC(tensor_array), METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};
