/* ctensor.tensor(data, dtype=None, device=None) and the legacy constructor ctensor.Tensor(...),
 * following PyTorch's torch/csrc/utils/tensor_new.cpp: dtype inference from
 * the data and the range checks of an explicit dtype.
 *
 * tensor(data):
 *  - a str or bytes is refused: TypeError "new(): invalid data type 'str'";
 *  - a tensor is copied (to `dtype` and `device` if given), with PyTorch's UserWarning;
 *  - a NumPy array is read through the buffer protocol (NumPy is never imported): its dtype
 *    is kept unless `dtype` is given, then the values are cast;
 *  - anything else is nested sequences of scalars. The shape comes from following first
 *    elements (compute_sizes: "too many dimensions 'str'" beyond 64 dims); the dtype, unless
 *    given, is the promote_types fold of the elements' dtypes (bool, int64, the default
 *    dtype for floats, the default complex dtype for complex; a tensor or NumPy scalar
 *    element its own dtype; an empty sequence the default dtype); then every element is
 *    stored with PyTorch's store_scalar rules: integer dtypes check the range ("value cannot
 *    be converted to type uint8 without overflow"; -1 fits uint8 as 255), floating dtypes
 *    round without a check (1e300 -> inf in float32), bool is "non-zero". Ragged data:
 *    ValueError "expected sequence of length 2 at dim 1 (got 3)".
 *  The result is on `device`, else the default device (ctensor.set_default_device / the
 *  innermost `with ctensor.device(...)`).
 *
 * Tensors are no sequences to PySequence_Check (no sq_item), so a tensor inside a list is
 * read as a scalar unless an earlier sibling gave that level a length, as in PyTorch.
 */
#include <string.h>

#include "ctensor_py.h"

/* ---- dtype inference (infer_scalar_type) --------------------------------------------------- */

static int dtype_of_buffer_format(PyObject *obj, const Py_buffer *view, ct_dtype *out);

/* The complex dtype of a Python complex under the current default dtype: tensor() uses its
 * own switch, where bfloat16 has no complex counterpart. */
static int default_complex(ct_dtype *out) {
    switch (ct_get_default_dtype()) {
    case CT_FLOAT32:
        *out = CT_COMPLEX64;
        return 0;
    case CT_FLOAT64:
        *out = CT_COMPLEX128;
        return 0;
    case CT_FLOAT16:
        *out = CT_COMPLEX32;
        return 0;
    default:
        PyErr_SetString(PyExc_RuntimeError, "invalid default scalar type for complex");
        return -1;
    }
}

static int is_numpy_array(PyObject *obj) { return ctp_type_has_base(obj, "numpy.ndarray"); }

static int is_numpy_scalar(PyObject *obj) { return ctp_type_has_base(obj, "numpy.generic"); }

/* The dtype of a NumPy array or scalar. */
static int numpy_dtype(PyObject *obj, ct_dtype *out) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0)
        return -1;
    int rc = dtype_of_buffer_format(obj, &view, out);
    PyBuffer_Release(&view);
    return rc;
}

static int infer_dtype(PyObject *obj, ct_dtype *out) {
    ct_tensor *t = ctp_tensor_get(obj);
    if (is_numpy_array(obj) || is_numpy_scalar(obj))
        return numpy_dtype(obj, out);
    if (PyFloat_Check(obj)) {
        *out = ct_get_default_dtype();
        return 0;
    }
    if (PyBool_Check(obj)) {
        *out = CT_BOOL;
        return 0;
    }
    if (PyLong_Check(obj)) {
        *out = CT_INT64;
        return 0;
    }
    if (PyComplex_Check(obj))
        return default_complex(out);
    if (t != NULL) {
        *out = ct_tensor_dtype(t);
        return 0;
    }
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PySequence_Check(obj)) {
        Py_ssize_t n = PySequence_Length(obj);
        if (n < 0)
            return -1;
        if (n == 0) { /* NumPy's rule, with the default dtype for NumPy's float64 */
            *out = ct_get_default_dtype();
            return 0;
        }
        /* Elements beyond the first are not bounded by compute_sizes' depth limit. */
        if (Py_EnterRecursiveCall(" while inferring the dtype of tensor data"))
            return -1;
        ct_dtype acc = CT_DTYPE_UNDEFINED;
        int rc = 0;
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            PyObject *item = PySequence_GetItem(obj, i);
            ct_dtype d;
            if (item == NULL) {
                rc = -1;
                break;
            }
            if (item == obj) {
                PyErr_SetString(PyExc_TypeError, "new(): self-referential lists are incompatible");
                rc = -1;
            } else if ((rc = infer_dtype(item, &d)) == 0 && acc != CT_DTYPE_UNDEFINED) {
                ct_status st = ct_promote_types(acc, d, &acc);
                if (st != CT_OK) {
                    ctp_raise_status(st);
                    rc = -1;
                }
            } else if (rc == 0) {
                acc = d;
            }
            Py_DECREF(item);
            if (acc == CT_COMPLEX128) /* nothing promotes further */
                break;
        }
        Py_LeaveRecursiveCall();
        *out = acc;
        return rc;
    }
    PyErr_Format(PyExc_RuntimeError, "Could not infer dtype of %s", Py_TYPE(obj)->tp_name);
    return -1;
}

/* ---- shape (compute_sizes) ---------------------------------------------------------------- */

static int compute_sizes(PyObject *data, int64_t sizes[CT_MAX_DIMS], int64_t *ndim) {
    PyObject *seq = data, *hold = NULL; /* hold keeps the current element alive */
    *ndim = 0;
    while (PySequence_Check(seq)) {
        Py_ssize_t len = PySequence_Length(seq);
        if (len < 0)
            goto fail;
        if (*ndim == CT_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'", Py_TYPE(seq)->tp_name);
            goto fail;
        }
        sizes[(*ndim)++] = len;
        if (len == 0)
            break;
        PyObject *item = PySequence_GetItem(seq, 0);
        if (item == NULL) {
            PyErr_Format(PyExc_ValueError, "could not determine the shape of object type '%s'",
                         Py_TYPE(seq)->tp_name);
            goto fail;
        }
        Py_XSETREF(hold, item);
        seq = item;
    }
    Py_XDECREF(hold);
    return 0;
fail:
    Py_XDECREF(hold);
    return -1;
}

/* ---- storing elements (store_scalar, recursive_store) ------------------------------------- */

static int raise_overflow(ct_status st, ct_dtype dtype) {
    if (st == CT_ERR_OVERFLOW) /* tensor() names the Python dtype, not the C++ type */
        PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                     ct_dtype_name(dtype));
    else
        ctp_raise_status(st);
    return -1;
}

static int store_integral(ct_dtype dtype, PyObject *obj, void *dst) {
    ct_scalar s;
    if (PyFloat_Check(obj)) {
        s = ct_scalar_float(PyFloat_AS_DOUBLE(obj));
    } else {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow > 0 && dtype == CT_UINT64) {
            unsigned long long u = PyLong_AsUnsignedLongLong(obj);
            if (u == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            s = ct_scalar_uint(u);
        } else if (overflow != 0) {
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return -1;
        } else {
            s = ct_scalar_int(v);
        }
    }
    ct_status st = ct_scalar_to_dtype(s, dtype, dst);
    return st == CT_OK ? 0 : raise_overflow(st, dtype);
}

static int store_scalar(ct_dtype dtype, PyObject *obj, void *dst) {
    ct_status st = CT_OK;
    if (dtype == CT_BOOL) {
        bool b;
        if (PyFloat_Check(obj)) {
            b = PyFloat_AS_DOUBLE(obj) != 0.0;
        } else if (PyComplex_Check(obj)) {
            b = PyComplex_RealAsDouble(obj) != 0.0 || PyComplex_ImagAsDouble(obj) != 0.0;
        } else {
            int overflow = 0; /* an overflowing int is non-zero: true, as NumPy */
            long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
            if (v == -1 && PyErr_Occurred())
                return -1;
            b = v != 0 || overflow != 0;
        }
        memcpy(dst, &b, 1);
        return 0;
    }
    if (ct_dtype_is_integral(dtype, false))
        return store_integral(dtype, obj, dst);
    if (ct_dtype_is_complex(dtype)) {
        Py_complex c = PyComplex_AsCComplex(obj);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        ct_complex128 v = {c.real, c.imag};
        st = ct_convert(dtype, dst, CT_COMPLEX128, &v, 1);
    } else if (dtype == CT_FLOAT4_E2M1FN_X2) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "\"tensor\" not implemented for 'Float4_e2m1fn_x2'");
        return -1;
    } else {
        double d = PyFloat_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred())
            return -1;
        st = ct_convert(dtype, dst, CT_FLOAT64, &d, 1);
    }
    return st == CT_OK ? 0 : raise_overflow(st, dtype);
}

typedef struct {
    const int64_t *sizes;
    int64_t ndim;
    ct_dtype dtype;
    size_t itemsize;
    char *dst; /* the next element to write, in C order */
} store_state;

static int recursive_store(store_state *s, PyObject *obj, int64_t dim) {
    if (dim == s->ndim) {
        if (store_scalar(s->dtype, obj, s->dst) < 0)
            return -1;
        s->dst += s->itemsize;
        return 0;
    }
    /* A tuple copy of a list: element conversions may run Python code that changes it. */
    PyObject *seq =
        PyList_Check(obj) ? PyList_AsTuple(obj) : PySequence_Fast(obj, "not a sequence");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != s->sizes[dim]) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %lld (got %zd)",
                     (long long)s->sizes[dim], (long long)dim, n);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (recursive_store(s, PySequence_Fast_GET_ITEM(seq, i), dim + 1) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* ---- NumPy through the buffer protocol ----------------------------------------------------- */

static int dtype_of_buffer_format(PyObject *obj, const Py_buffer *view, ct_dtype *out) {
    const char *f = view->format != NULL ? view->format : "B";
    if (*f == '>' || *f == '!') {
        PyErr_SetString(PyExc_ValueError,
                        "given numpy array has byte order different from the native byte order. "
                        "Conversion between byte orders is currently not supported.");
        return -1;
    }
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    static const struct {
        const char *code;
        ct_dtype dtype;
    } codes[] = {{"?", CT_BOOL},       {"b", CT_INT8},        {"B", CT_UINT8},   {"h", CT_INT16},
                 {"H", CT_UINT16},     {"i", CT_INT32},       {"I", CT_UINT32},  {"q", CT_INT64},
                 {"Q", CT_UINT64},     {"e", CT_FLOAT16},     {"f", CT_FLOAT32}, {"d", CT_FLOAT64},
                 {"Zf", CT_COMPLEX64}, {"Zd", CT_COMPLEX128}, {"l", CT_INT64},   {"L", CT_UINT64}};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (strcmp(f, codes[i].code) == 0 &&
            (size_t)view->itemsize == ct_dtype_itemsize(codes[i].dtype)) {
            *out = codes[i].dtype;
            return 0;
        }
        /* 'l' / 'L' are C longs: 4 bytes on some platforms */
        if (strcmp(f, codes[i].code) == 0 && (*f == 'l' || *f == 'L') && view->itemsize == 4) {
            *out = *f == 'l' ? CT_INT32 : CT_UINT32;
            return 0;
        }
    }
    PyObject *np_dtype = PyObject_GetAttrString(obj, "dtype");
    PyObject *type = np_dtype != NULL ? PyObject_GetAttrString(np_dtype, "type") : NULL;
    Py_XDECREF(np_dtype);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "can't convert np.ndarray of type %s. The only supported types are: float64, "
                 "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
                 "uint32, uint16, uint8, and bool.",
                 type != NULL && PyType_Check(type) ? ((PyTypeObject *)type)->tp_name : f);
    Py_XDECREF(type);
    return -1;
}

/* The device a new tensor goes to: `device`, or the default device when NULL. */
static int target_device(const ct_device *device, ct_device *out) {
    ct_status st = ct_device_resolve(device, out);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

/* A tensor copied from a NumPy array, cast to `dtype` (UNDEFINED: the array's).
 * PyTorch wraps the array (tensor_from_numpy) and then copies it with to(), which keeps
 * dense strides (a Fortran-order array stays column-major); so does this. */
static PyObject *from_numpy(PyObject *obj, ct_dtype dtype, const ct_device *device) {
    Py_buffer view;
    ct_dtype src;
    ct_device dev;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    if (target_device(device, &dev) < 0 || PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0)
        return NULL;
    PyObject *result = NULL;
    if (dtype_of_buffer_format(obj, &view, &src) < 0)
        goto done;
    if (view.ndim > CT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "maximum supported dimension for a tensor is %d, found %d",
                     CT_MAX_DIMS, view.ndim);
        goto done;
    }
    /* NumPy's own strides: its buffer export normalises those of empty arrays. */
    PyObject *np_strides = PyObject_GetAttrString(obj, "strides");
    if (np_strides == NULL || !PyTuple_Check(np_strides) ||
        PyTuple_GET_SIZE(np_strides) != view.ndim) {
        Py_XDECREF(np_strides);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "tensor(): the array's strides are not a tuple");
        goto done;
    }
    size_t nbytes = (size_t)view.itemsize;
    for (int i = 0; i < view.ndim; i++) {
        Py_ssize_t stride = PyLong_AsSsize_t(PyTuple_GET_ITEM(np_strides, i));
        if (stride == -1 && PyErr_Occurred()) {
            Py_DECREF(np_strides);
            goto done;
        }
        if (stride < 0) {
            Py_DECREF(np_strides);
            PyErr_SetString(PyExc_ValueError,
                            "At least one stride in the given numpy array is negative, and "
                            "tensors with negative strides are not currently supported. (You can "
                            "probably work around this by making a copy of your array  with "
                            "array.copy().) ");
            goto done;
        }
        if (stride % view.itemsize != 0) {
            Py_DECREF(np_strides);
            PyErr_SetString(PyExc_ValueError,
                            "given numpy array strides not a multiple of the element byte size. "
                            "Copy the numpy array to reallocate the memory.");
            goto done;
        }
        sizes[i] = view.shape[i];
        strides[i] = stride / view.itemsize;
        nbytes += (size_t)(view.shape[i] > 0 ? view.shape[i] - 1 : 0) * (size_t)stride;
    }
    Py_DECREF(np_strides);
    for (int i = 0; i < view.ndim; i++) /* an empty array reaches no element */
        if (view.shape[i] == 0)
            nbytes = 0;
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_storage *storage = NULL;
    ct_tensor *wrapped = NULL, *r = NULL;
    /* The wrapping storage only lives during the copy below: no finalizer is needed. */
    ct_status st = ct_storage_wrap(cpu, view.buf, nbytes, NULL, NULL, &storage);
    if (st == CT_OK)
        st = ct_tensor_from_storage(storage, sizes, strides, view.ndim, 0, src, &wrapped);
    ct_storage_release(storage);
    if (st == CT_OK)
        st = ct_tensor_to(wrapped, dtype == CT_DTYPE_UNDEFINED ? src : dtype, &dev, true,
                          CT_MEMFMT_PRESERVE, &r);
    ct_tensor_release(wrapped);
    result = st == CT_OK ? ctp_tensor_wrap(r) : ctp_raise_status(st);
done:
    PyBuffer_Release(&view);
    return result;
}

/* tensor(t): a copy, to `dtype` and `device`. Without a device argument, the default device
 * applies when one is set (newest PyTorch's device context injects it); else t's device. */
static PyObject *from_tensor(PyObject *obj, ct_dtype dtype, const ct_device *device) {
    ct_tensor *t = ctp_tensor_get(obj), *r = NULL;
    ct_device dev;
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "To copy construct from a tensor, it is recommended to use "
                     "sourceTensor.clone().detach() or "
                     "sourceTensor.clone().detach().requires_grad_(True), rather than "
                     "ctensor.tensor(sourceTensor).",
                     1) < 0)
        return NULL;
    if (device == NULL) {
        if (target_device(NULL, &dev) < 0)
            return NULL;
        if (dev.type != CT_DEVICE_CPU)
            device = &dev;
    }
    ct_status st = ct_tensor_to(t, dtype, device, true, CT_MEMFMT_PRESERVE, &r);
    return st == CT_OK ? ctp_tensor_wrap(r) : ctp_raise_status(st);
}

static PyObject *from_sequence(PyObject *data, ct_dtype dtype, const ct_device *device) {
    int64_t sizes[CT_MAX_DIMS], ndim;
    ct_device dev, cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    if (compute_sizes(data, sizes, &ndim) < 0 ||
        (dtype == CT_DTYPE_UNDEFINED && infer_dtype(data, &dtype) < 0) ||
        target_device(device, &dev) < 0)
        return NULL;
    /* Built on the cpu, then moved, as PyTorch does. */
    ct_tensor *t = NULL, *r = NULL;
    ct_status st =
        ct_tensor_empty(sizes, ndim, dtype, &cpu, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ct_tensor_numel(t) > 0) {
        store_state s = {sizes, ndim, dtype, ct_dtype_itemsize(dtype), ct_tensor_data_ptr(t)};
        if (recursive_store(&s, data, 0) < 0) {
            ct_tensor_release(t);
            return NULL;
        }
    }
    st = ct_tensor_to_device(t, dev, &r);
    ct_tensor_release(t);
    return st == CT_OK ? ctp_tensor_wrap(r) : ctp_raise_status(st);
}

PyObject *ctp_tensor_from_data(PyObject *data, ct_dtype dtype, const ct_device *device) {
    if (PyUnicode_Check(data) || PyBytes_Check(data))
        return PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                            Py_TYPE(data)->tp_name);
    if (ctp_tensor_check(data))
        return from_tensor(data, dtype, device);
    if (is_numpy_array(data)) /* NumPy scalars are read as Python numbers, as PyTorch does */
        return from_numpy(data, dtype, device);
    return from_sequence(data, dtype, device);
}

/* ---- ctensor.tensor ----------------------------------------------------------------------- */

static const ctp_signature tensor_sig[] = {
    {6,
     {{CTP_PARAM_OBJECT, "data"},
      {CTP_PARAM_DTYPE, "*dtype=None"},
      {CTP_PARAM_DEVICE, "device=None"},
      {CTP_PARAM_BOOL, "pin_memory=False"},
      {CTP_PARAM_BOOL, "requires_grad=False"},
      {CTP_PARAM_NAME_LIST, "names=None"}}},
};

static PyObject *run_tensor(const void *what, PyObject *args, PyObject *kwargs,
                            const ctp_dist_spec *spec) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_device device;
    int has;
    (void)what;
    if (ctp_parse_args("tensor", tensor_sig, 1, args, kwargs, a) < 0 ||
        ctp_opt_device(a[2], &device, &has) < 0 || (!has && ctp_cuda_lazy_init_device(NULL) < 0))
        return NULL;
    PyObject *r = ctp_tensor_from_data(a[0], ctp_opt_dtype(a[1]), has ? &device : NULL);
    if (r != NULL &&
        ctp_check_factory_options(ct_tensor_dtype(ctp_tensor_get(r)), a[4], a[5], NULL) < 0)
        Py_CLEAR(r);
    if (r != NULL && ctp_opt_bool(a[3])) {
        if (spec != NULL) {
            Py_CLEAR(r);
            PyErr_SetString(PyExc_NotImplementedError,
                            "ctensor does not support pinned memory for global tensors");
            return NULL;
        }
        ct_tensor *t = ct_tensor_retain(ctp_tensor_get(r));
        Py_CLEAR(r);
        if (ctp_cuda_pin(a[3], &t) < 0)
            return NULL;
        r = ctp_tensor_wrap(t);
    }
    /* with placement= and sbp=, `data` is the logical value (from the first rank) */
    return ctp_factory_result(r, spec);
}

static PyObject *py_tensor(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return ctp_run_factory_named(run_tensor, NULL, "tensor", args, kwargs);
}

PyMethodDef ctp_tensor_new_functions[] = {
    {"tensor", CTP_KW_FUNC(py_tensor), METH_VARARGS | METH_KEYWORDS,
     "tensor(data, *, dtype=None, device=None, pin_memory=False, requires_grad=False) -> "
     "Tensor\n\nA new tensor holding a copy of `data`: nested sequences of numbers, a "
     "tensor, or a NumPy array or scalar. Without dtype, PyTorch's inference: bool, int64, "
     "the default dtype for floats, the default complex dtype for complex numbers."},
    {NULL, NULL, 0, NULL},
};

/* ---- the legacy constructor ctensor.Tensor(...) ------------------------------------------- */

/* PyTorch's overloads but the hidden ones; ctensor has no storage objects, so the Storage one
 * never matches and only shows in messages. */
static const ctp_signature legacy_sigs[] = {
    {1, {{CTP_PARAM_DEVICE, "*device=None"}}},
    {1, {{CTP_PARAM_STORAGE, "storage"}}},
    {1, {{CTP_PARAM_TENSOR, "other"}}},
    {2, {{CTP_PARAM_INT_LIST, "size"}, {CTP_PARAM_DEVICE, "*device=None"}}},
    {2, {{CTP_PARAM_OBJECT, "data"}, {CTP_PARAM_DEVICE, "*device=None"}}},
};

/* A Tensor object of `type` (ctensor.Tensor or a subclass) owning `t`. Steals `t`. */
static PyObject *wrap_as(PyTypeObject *type, ct_tensor *t) {
    if (t == NULL)
        return NULL;
    ctp_tensor_object *self = (ctp_tensor_object *)type->tp_alloc(type, 0);
    if (self == NULL) {
        ct_tensor_release(t);
        return NULL;
    }
    self->tensor = t;
    self->weakrefs = NULL;
    return (PyObject *)self;
}

/* Take the tensor out of a new Tensor object (for wrap_as). */
static ct_tensor *unwrap(PyObject *obj) {
    if (obj == NULL)
        return NULL;
    ct_tensor *t = ct_tensor_retain(ctp_tensor_get(obj));
    Py_DECREF(obj);
    return t;
}

static PyObject *legacy_new_local(PyTypeObject *type, PyObject *args, PyObject *kwargs);

/* ctensor.Tensor(*size, placement=..., sbp=...): OneFlow's global form, an uninitialised
 * global tensor of the default dtype */
static PyObject *legacy_factory(const void *what, PyObject *args, PyObject *kwargs,
                                const ctp_dist_spec *spec) {
    (void)what;
    return ctp_factory_result(legacy_new_local(&ctp_tensor_type, args, kwargs), spec);
}

PyObject *ctp_tensor_legacy_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (kwargs != NULL && type == &ctp_tensor_type)
        return ctp_run_factory_named(legacy_factory, NULL, "Tensor", args, kwargs);
    return legacy_new_local(type, args, kwargs);
}

static PyObject *legacy_new_local(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS];
    ct_device device;
    int has = 0;
    int sig = ctp_parse_args("new", legacy_sigs, 5, args, kwargs, a);
    if (sig < 0)
        return NULL;
    PyObject *dev_arg = ctp_arg(&legacy_sigs[sig], a, "device");
    if (dev_arg != NULL && ctp_opt_device(dev_arg, &device, &has) < 0)
        return NULL;
    const ct_device *devp = has ? &device : NULL;
    ct_dtype dtype = ct_get_default_dtype();
    ct_tensor *r = NULL;
    ct_status st = CT_OK;
    switch (sig) {
    case 0: { /* Tensor(): an empty 1-D tensor */
        int64_t zero = 0;
        st = ct_tensor_empty(&zero, 1, dtype, devp, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &r);
        break;
    }
    case 2: /* Tensor(other): an alias of other, whatever its dtype */
        st = ct_tensor_alias(ctp_tensor_get(a[0]), &r);
        break;
    case 3: {
        /* A sequence given as the one argument is data, unless it is a Size. */
        if (!PyObject_TypeCheck(a[0], &ctp_size_type) && PyTuple_GET_SIZE(args) >= 1 &&
            a[0] == PyTuple_GET_ITEM(args, 0))
            return wrap_as(type, unwrap(ctp_tensor_from_data(a[0], dtype, devp)));
        Py_ssize_t n = ctp_int_list_of_arg("new", &legacy_sigs[3].params[0], a[0], sizes);
        if (n < 0)
            return NULL;
        st = ct_tensor_empty(sizes, n, dtype, devp, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &r);
        break;
    }
    default:
        if (!PySequence_Check(a[0]))
            return PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                                Py_TYPE(a[0])->tp_name);
        return wrap_as(type, unwrap(ctp_tensor_from_data(a[0], dtype, devp)));
    }
    if (st != CT_OK)
        return ctp_raise_status(st);
    return wrap_as(type, r);
}
