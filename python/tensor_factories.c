/* Factories and small API (include/ctensor/range.h and tensor.h): linspace, logspace, eye,
 * as_tensor, from_numpy, is_tensor, is_floating_point, is_complex, numel,
 * legacy_contiguous_format, and the Tensor methods new_empty, new_zeros, new_ones, new_full,
 * new_empty_strided, new_tensor and is_signed.
 *
 * A thin skin over the C API: it parses PyTorch's signatures and fills in the defaults
 * PyTorch's bindings fill in (new_* take self's dtype and device).
 */
#include "ctensor/range.h"
#include <string.h>

#include "ctensor/sparse.h"
#include "ctensor_py.h"

#define TEN CTP_PARAM_TENSOR
#define NUM CTP_PARAM_NUMBER
#define I64 CTP_PARAM_INT64
#define OBJ CTP_PARAM_OBJECT

#define OPTIONS                                                                                    \
    {CTP_PARAM_DTYPE, "dtype=None"}, {CTP_PARAM_LAYOUT, "layout=None"},                            \
        {CTP_PARAM_DEVICE, "device=None"}, {CTP_PARAM_BOOL, "pin_memory=False"}, {                 \
        CTP_PARAM_BOOL, "requires_grad=False"                                                      \
    }
#define KW_OPTIONS                                                                                 \
    {CTP_PARAM_DTYPE, "*dtype=None"}, {CTP_PARAM_LAYOUT, "layout=None"},                           \
        {CTP_PARAM_DEVICE, "device=None"}, {CTP_PARAM_BOOL, "pin_memory=False"}, {                 \
        CTP_PARAM_BOOL, "requires_grad=False"                                                      \
    }

typedef struct options {
    ct_dtype dtype;
    ct_layout layout;
    ct_device device;
    const ct_device *devp;
} options;

static int read_options(const char *fname, const ctp_signature *sig, PyObject **a, options *o) {
    int has;
    o->dtype = ctp_opt_dtype(ctp_arg(sig, a, "dtype"));
    o->layout = ctp_opt_layout(ctp_arg(sig, a, "layout"));
    if (ctp_check_strided_layout(fname, o->layout) < 0 ||
        ctp_opt_device(ctp_arg(sig, a, "device"), &o->device, &has) < 0)
        return -1;
    o->devp = has ? &o->device : NULL;
    PyObject *out = ctp_param_named(sig, "out") != NULL ? ctp_arg(sig, a, "out") : NULL;
    if (out == NULL)
        return 0;
    /* out=: the dtype and device default to out's and must match it when given, as PyTorch's
     * binding checks them (check_out_type_matches) before the _out op runs */
    const ct_tensor *t = ctp_tensor_get(out);
    ct_dtype od = ct_tensor_dtype(t);
    ct_device odev = ct_tensor_device(t);
    if (o->dtype != CT_DTYPE_UNDEFINED && o->dtype != od) {
        PyErr_Format(PyExc_RuntimeError, "dtype %s does not match dtype of out parameter (%s)",
                     ct_dtype_cpp_name(o->dtype), ct_dtype_cpp_name(od));
        return -1;
    }
    if (has && o->device.type != odev.type) {
        PyErr_Format(PyExc_RuntimeError,
                     "device type %s does not match device type of out parameter (%s)",
                     ct_device_type_name(o->device.type), ct_device_type_name(odev.type));
        return -1;
    }
    o->dtype = od;
    o->device = odev;
    o->devp = &o->device;
    return 0;
}

/* Wrap a factory's result after the options ctensor refuses were checked on it. */
static PyObject *finish(const ctp_signature *sig, PyObject **a, ct_status st, ct_tensor *r) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_check_factory_options(ct_tensor_dtype(r), ctp_arg(sig, a, "requires_grad"), NULL,
                                  NULL) < 0) {
        ct_tensor_release(r);
        return NULL;
    }
    PyObject *out = ctp_param_named(sig, "out") != NULL ? ctp_arg(sig, a, "out") : NULL;
    if (out != NULL) { /* the _out op: out resized (as PyTorch's, no warning) and filled */
        ct_tensor *o = ctp_tensor_get(out);
        st = ct_tensor_resize_(o, ct_tensor_sizes(r), ct_tensor_dim(r), NULL);
        if (st == CT_OK)
            st = ct_tensor_copy_(o, r);
        ct_tensor_release(r);
        if (st != CT_OK)
            return ctp_raise_status(st);
        return Py_NewRef(out);
    }
    if (ctp_cuda_pin(ctp_arg(sig, a, "pin_memory"), &r) < 0) { /* releases r on failure */
        ct_tensor_release(r);
        return NULL;
    }
    return ctp_tensor_wrap(r);
}

/* ---- linspace, logspace, eye ----------------------------------------------------------------- */

static const ctp_signature linspace_sig[] = {
    {9, {{NUM, "start"}, {NUM, "end"}, {I64, "steps"}, {TEN, "*out=None"}, OPTIONS}},
};
static const ctp_signature logspace_sig[] = {
    {10,
     {{NUM, "start"},
      {NUM, "end"},
      {I64, "steps"},
      {CTP_PARAM_NUMBER, "base=10.0"},
      {TEN, "*out=None"},
      OPTIONS}},
};

static PyObject *range_impl(const char *fname, const ctp_signature *sig, int log, PyObject *args,
                            PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_scalar start, end, base = {.kind = CT_SCALAR_FLOAT, .v.f = 10.0};
    int64_t steps;
    options o;
    if (ctp_parse_args(fname, sig, 1, args, kwargs, a) < 0)
        return NULL;
    PyObject *base_obj = log ? ctp_arg(sig, a, "base") : NULL;
    if (ctp_scalar_of_arg(a[0], &start) < 0 || ctp_scalar_of_arg(a[1], &end) < 0 ||
        ctp_int64_of_arg(a[2], &steps) < 0 ||
        (base_obj != NULL && ctp_scalar_of_arg(base_obj, &base) < 0) ||
        read_options(fname, sig, a, &o) < 0)
        return NULL;
    if (o.devp == NULL && ctp_cuda_lazy_init_device(NULL) < 0)
        return NULL;
    /* base is a C++ double in PyTorch's signature */
    double b = base.kind == CT_SCALAR_FLOAT  ? base.v.f
               : base.kind == CT_SCALAR_INT  ? (double)base.v.i
               : base.kind == CT_SCALAR_UINT ? (double)base.v.u
               : base.kind == CT_SCALAR_BOOL ? (double)base.v.b
                                             : base.v.c.re;
    ct_tensor *r = NULL;
    ct_status st =
        log ? ct_tensor_logspace(start, end, steps, b, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r)
            : ct_tensor_linspace(start, end, steps, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
    return finish(sig, a, st, r);
}

static PyObject *py_linspace(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return range_impl("linspace", linspace_sig, 0, args, kwargs);
}

static PyObject *py_logspace(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return range_impl("logspace", logspace_sig, 1, args, kwargs);
}

static const ctp_signature eye_sigs[] = {
    {7, {{I64, "n"}, {TEN, "*out=None"}, OPTIONS}},
    {8, {{I64, "n"}, {I64, "m"}, {TEN, "*out=None"}, OPTIONS}},
};

static PyObject *py_eye(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    options o;
    int64_t n, cols;
    int k = ctp_parse_args("eye", eye_sigs, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &eye_sigs[k];
    if (ctp_int64_of_arg(a[0], &n) < 0 || (k == 1 && ctp_int64_of_arg(a[1], &cols) < 0) ||
        read_options("eye", sig, a, &o) < 0)
        return NULL;
    if (k == 0)
        cols = n;
    if (o.devp == NULL && ctp_cuda_lazy_init_device(NULL) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_eye(n, cols, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
    return finish(sig, a, st, r);
}

/* ---- as_tensor ------------------------------------------------------------------------------ */

static const ctp_signature as_tensor_sig[] = {
    {3, {{OBJ, "data"}, {CTP_PARAM_DTYPE, "dtype=None"}, {CTP_PARAM_DEVICE, "device=None"}}},
};

/* A NumPy array's memory as a cpu tensor (through DLPack), or NULL with no exception when
 * the array cannot be shared (read-only, byte-swapped, ...). */
static PyObject *share_numpy(PyObject *data) {
    PyObject *mod = PyImport_ImportModule("ctensor");
    if (mod == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(mod, "from_dlpack", "O", data);
    Py_DECREF(mod);
    if (r == NULL)
        PyErr_Clear();
    return r;
}

static PyObject *py_as_tensor(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    ct_device device;
    int has;
    if (ctp_parse_args("as_tensor", as_tensor_sig, 1, args, kwargs, a) < 0 ||
        ctp_opt_device(a[2], &device, &has) < 0)
        return NULL;
    ct_dtype dtype = ctp_opt_dtype(a[1]);
    const ct_device *devp = has ? &device : NULL;
    PyObject *src = NULL;
    if (ctp_tensor_check(a[0])) {
        src = Py_NewRef(a[0]);
    } else if (ctp_type_has_base(a[0], "numpy.ndarray") &&
               (devp == NULL || device.type == CT_DEVICE_CPU)) {
        src = share_numpy(a[0]);
    }
    if (src == NULL) {
        if (PyErr_Occurred())
            return NULL;
        if (!has && ctp_cuda_lazy_init_device(NULL) < 0)
            return NULL;
        return ctp_tensor_from_data(a[0], dtype, devp);
    }
    /* a tensor (or shared array): itself when dtype and device already match, as PyTorch */
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_to(ctp_tensor_get(src), dtype, devp, false, CT_MEMFMT_PRESERVE, &r);
    PyObject *res = ctp_tensor_result(src, st, r);
    Py_DECREF(src);
    return res;
}

/* from_numpy(ndarray): the array's memory, shared, with PyTorch's refusals (checked on the
 * array's own attributes; the sharing itself is from_dlpack's). */
static PyObject *py_from_numpy(PyObject *m, PyObject *arr) {
    (void)m;
    if (!ctp_type_has_base(arr, "numpy.ndarray"))
        return PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(arr)->tp_name);
    PyObject *strides = PyObject_GetAttrString(arr, "strides");
    if (strides == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_Check(strides) ? PyTuple_GET_SIZE(strides) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i));
        if (v < 0) {
            Py_DECREF(strides);
            if (PyErr_Occurred())
                return NULL;
            return PyErr_Format(
                PyExc_ValueError,
                "At least one stride in the given numpy array is negative, and tensors with "
                "negative strides are not currently supported. (You can probably work around "
                "this by making a copy of your array  with array.copy().) ");
        }
    }
    Py_DECREF(strides);
    PyObject *dt = PyObject_GetAttrString(arr, "dtype");
    PyObject *isnative = dt != NULL ? PyObject_GetAttrString(dt, "isnative") : NULL;
    PyObject *kind = dt != NULL ? PyObject_GetAttrString(dt, "kind") : NULL;
    Py_XDECREF(dt);
    if (isnative == NULL || kind == NULL) {
        Py_XDECREF(isnative);
        Py_XDECREF(kind);
        return NULL;
    }
    int native_order = PyObject_IsTrue(isnative);
    int object = PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "O") == 0;
    int boolean = PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "b") == 0;
    int vtype = PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "V") == 0;
    Py_DECREF(isnative);
    Py_DECREF(kind);
    /* ml_dtypes' float8 types carry ctensor's names (kind 'V', or 'f' for e5m2): shared as
     * bytes, as bool is */
    ct_dtype shared_as = boolean ? CT_BOOL : CT_DTYPE_UNDEFINED;
    PyObject *dt2 = PyObject_GetAttrString(arr, "dtype");
    PyObject *name = dt2 != NULL ? PyObject_GetAttrString(dt2, "name") : NULL;
    Py_XDECREF(dt2);
    const char *cname = name != NULL ? PyUnicode_AsUTF8(name) : NULL;
    if (cname == NULL) {
        Py_XDECREF(name);
        return NULL;
    }
    ct_dtype named = CT_DTYPE_UNDEFINED;
    int float8 = ct_dtype_from_name(cname, &named) == CT_OK && ct_dtype_is_float8(named);
    if (float8)
        shared_as = named;
    /* ml_dtypes' float4_e2m1fn holds one code per byte: packed two to a byte, a copy */
    int float4 = strcmp(cname, "float4_e2m1fn") == 0;
    if (vtype && !float8 && !float4) {
        PyErr_Format(PyExc_TypeError,
                     "can't convert np.ndarray of type %s. The only supported types are: "
                     "float64, float32, float16, complex64, complex128, int64, int32, int16, "
                     "int8, uint8, bool, and ml_dtypes' float8_e4m3fn, float8_e5m2, "
                     "float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn.",
                     cname);
        Py_DECREF(name);
        return NULL;
    }
    Py_DECREF(name);
    if (!native_order)
        return PyErr_Format(PyExc_ValueError,
                            "given numpy array has byte order different from the native byte "
                            "order. Conversion between byte orders is currently not supported.");
    if (object)
        return PyErr_Format(PyExc_TypeError,
                            "can't convert np.ndarray of type numpy.object_. The only supported "
                            "types are: float64, float32, float16, complex64, complex128, int64, "
                            "int32, int16, int8, uint8, and bool.");
    PyObject *mod = PyImport_ImportModule("ctensor");
    if (mod == NULL)
        return NULL;
    if (float4) {
        PyObject *codes = PyObject_CallMethod(arr, "view", "s", "uint8");
        PyObject *c = codes != NULL ? PyObject_CallMethod(mod, "from_dlpack", "O", codes) : NULL;
        Py_XDECREF(codes);
        Py_DECREF(mod);
        if (c == NULL)
            return NULL;
        ct_tensor *packed = NULL;
        ct_status st = ct_tensor_float4_pack_codes(ctp_tensor_get(c), &packed);
        Py_DECREF(c);
        return ctp_tensor_result(NULL, st, packed);
    }
    /* NumPy's DLPack export has no bool (nor float8): share the bytes as uint8, then view
     * them as the dtype */
    int as_bytes = shared_as != CT_DTYPE_UNDEFINED;
    PyObject *src = as_bytes ? PyObject_CallMethod(arr, "view", "s", "uint8") : Py_NewRef(arr);
    PyObject *r = src != NULL ? PyObject_CallMethod(mod, "from_dlpack", "O", src) : NULL;
    Py_XDECREF(src);
    if (r != NULL && as_bytes) {
        ct_tensor *v = ctp_tensor_get(r), *b = NULL;
        ct_status st =
            ct_tensor_from_storage(ct_tensor_storage(v), ct_tensor_sizes(v), ct_tensor_strides(v),
                                   ct_tensor_dim(v), ct_tensor_storage_offset(v), shared_as, &b);
        Py_SETREF(r, ctp_tensor_result(NULL, st, b));
    }
    Py_DECREF(mod);
    return r;
}

/* ---- is_tensor, is_floating_point, is_complex, numel ------------------------------------------
 */

static PyObject *py_is_tensor(PyObject *m, PyObject *obj) {
    (void)m;
    return PyBool_FromLong(PyObject_TypeCheck(obj, &ctp_tensor_type)); /* global ones too */
}

static const ctp_signature input_sig[] = {{1, {{TEN, "input"}}}};

static ct_tensor *input_of(const char *fname, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    /* a global tensor's metadata: its meta stand-in has the logical sizes and dtype */
    if (kwargs == NULL && PyTuple_GET_SIZE(args) == 1 &&
        Py_TYPE(PyTuple_GET_ITEM(args, 0)) == ctp_tensor_global_type)
        return ((ctp_tensor_object *)PyTuple_GET_ITEM(args, 0))->tensor;
    if (ctp_parse_args(fname, input_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return ctp_tensor_get(a[0]);
}

static PyObject *py_is_floating_point(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    ct_tensor *t = input_of("is_floating_point", args, kwargs);
    return t == NULL ? NULL : PyBool_FromLong(ct_tensor_is_floating_point(t));
}

static PyObject *py_is_complex(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    ct_tensor *t = input_of("is_complex", args, kwargs);
    return t == NULL ? NULL : PyBool_FromLong(ct_tensor_is_complex(t));
}

static PyObject *py_numel(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    ct_tensor *t = input_of("numel", args, kwargs);
    return t == NULL ? NULL : PyLong_FromLongLong(ct_tensor_numel(t));
}

/* ---- Tensor.new_* ------------------------------------------------------------------------------
 */

static const ctp_signature new_size_sig[] = {
    {6, {{CTP_PARAM_SYMINT_LIST, "size"}, KW_OPTIONS}},
};
static const ctp_signature new_full_sig[] = {
    {7, {{CTP_PARAM_SYMINT_LIST, "size"}, {NUM, "fill_value"}, KW_OPTIONS}},
};
static const ctp_signature new_strided_sig[] = {
    {7, {{CTP_PARAM_SYMINT_LIST, "size"}, {CTP_PARAM_SYMINT_LIST, "stride"}, KW_OPTIONS}},
};

typedef enum { NEW_EMPTY, NEW_ZEROS, NEW_ONES, NEW_FULL, NEW_STRIDED } new_kind;

static PyObject *new_impl(PyObject *self, const char *fname, new_kind kind,
                          const ctp_signature *sig, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    options o;
    ct_scalar value = ct_scalar_int(0);
    if (ctp_parse_args(fname, sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg(fname, &sig->params[0], a[0], sizes);
    if (n < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(self), *r = NULL;
    PyObject *layout = ctp_arg(sig, a, "layout");
    if (kind != NEW_STRIDED &&
        (ct_sparse_is_sparse(t) ||
         (layout != NULL && ctp_opt_layout(layout) == CT_LAYOUT_SPARSE_COO))) {
        /* a sparse self or layout=sparse_coo: ct_sparse_new decides */
        static const ct_sparse_fill fills[] = {[NEW_EMPTY] = CT_SPARSE_FILL_EMPTY,
                                               [NEW_ZEROS] = CT_SPARSE_FILL_ZEROS,
                                               [NEW_ONES] = CT_SPARSE_FILL_ONES,
                                               [NEW_FULL] = CT_SPARSE_FILL_FULL};
        ct_sparse_like_options so = CT_SPARSE_LIKE_OPTIONS_INIT;
        ct_device dev;
        int has;
        if (kind == NEW_FULL && ctp_scalar_of_arg(a[1], &so.fill_value) < 0)
            return NULL;
        so.dtype = ctp_opt_dtype(ctp_arg(sig, a, "dtype"));
        so.has_layout = layout != NULL && layout != Py_None;
        so.layout = ctp_opt_layout(layout);
        if (ctp_opt_device(ctp_arg(sig, a, "device"), &dev, &has) < 0)
            return NULL;
        so.device = has ? &dev : NULL;
        ct_status st = ct_sparse_new(t, fills[kind], sizes, n, &so, &r);
        return finish(sig, a, st, r);
    }
    if (read_options(fname, sig, a, &o) < 0)
        return NULL;
    if (kind == NEW_FULL && ctp_scalar_of_arg(a[1], &value) < 0)
        return NULL;
    ct_dtype dtype = o.dtype != CT_DTYPE_UNDEFINED ? o.dtype : ct_tensor_dtype(t);
    ct_device dev = o.devp != NULL ? o.device : ct_tensor_device(t);
    ct_status st;
    switch (kind) {
    case NEW_EMPTY:
        st = ct_tensor_empty(sizes, n, dtype, &dev, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &r);
        break;
    case NEW_ZEROS:
        st = ct_tensor_zeros(sizes, n, dtype, &dev, CT_LAYOUT_STRIDED, &r);
        break;
    case NEW_ONES:
        st = ct_tensor_ones(sizes, n, dtype, &dev, CT_LAYOUT_STRIDED, &r);
        break;
    case NEW_FULL:
        st = ct_tensor_full(sizes, n, value, dtype, &dev, CT_LAYOUT_STRIDED, &r);
        break;
    default: {
        Py_ssize_t ns = ctp_int_list_of_arg(fname, &sig->params[1], a[1], strides);
        if (ns < 0)
            return NULL;
        if (ns != n)
            return PyErr_Format(PyExc_RuntimeError,
                                "dimensionality of sizes (%zd) must match dimensionality of "
                                "strides (%zd)",
                                n, ns);
        st = ct_tensor_empty_strided(sizes, strides, n, dtype, &dev, CT_LAYOUT_STRIDED, &r);
        break;
    }
    }
    return finish(sig, a, st, r);
}

static PyObject *tensor_new_empty(PyObject *self, PyObject *args, PyObject *kwargs) {
    return new_impl(self, "new_empty", NEW_EMPTY, new_size_sig, args, kwargs);
}
static PyObject *tensor_new_zeros(PyObject *self, PyObject *args, PyObject *kwargs) {
    return new_impl(self, "new_zeros", NEW_ZEROS, new_size_sig, args, kwargs);
}
static PyObject *tensor_new_ones(PyObject *self, PyObject *args, PyObject *kwargs) {
    return new_impl(self, "new_ones", NEW_ONES, new_size_sig, args, kwargs);
}
static PyObject *tensor_new_full(PyObject *self, PyObject *args, PyObject *kwargs) {
    return new_impl(self, "new_full", NEW_FULL, new_full_sig, args, kwargs);
}
static PyObject *tensor_new_empty_strided(PyObject *self, PyObject *args, PyObject *kwargs) {
    return new_impl(self, "new_empty_strided", NEW_STRIDED, new_strided_sig, args, kwargs);
}

static const ctp_signature new_tensor_sig[] = {
    {5, {{OBJ, "data"}, KW_OPTIONS}},
};

static PyObject *tensor_new_tensor(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    options o;
    const ctp_signature *sig = &new_tensor_sig[0];
    if (ctp_parse_args("new_tensor", sig, 1, args, kwargs, a) < 0 ||
        read_options("new_tensor", sig, a, &o) < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(self);
    ct_dtype dtype = o.dtype != CT_DTYPE_UNDEFINED ? o.dtype : ct_tensor_dtype(t);
    ct_device dev = o.devp != NULL ? o.device : ct_tensor_device(t);
    if (ctp_tensor_check(a[0]) &&
        PyErr_WarnEx(PyExc_UserWarning,
                     "To copy construct from a tensor, it is recommended to use "
                     "sourceTensor.clone().detach() or "
                     "sourceTensor.clone().detach().requires_grad_(True), rather than "
                     "tensor.new_tensor(sourceTensor).",
                     1) < 0)
        return NULL;
    PyObject *r = ctp_tensor_from_data(a[0], dtype, &dev);
    if (r != NULL && ctp_tensor_check(a[0]) && r == a[0]) { /* always a copy */
        ct_tensor *c = NULL;
        ct_status st = ct_tensor_clone(ctp_tensor_get(r), CT_MEMFMT_CONTIGUOUS, &c);
        Py_DECREF(r);
        r = ctp_tensor_result(NULL, st, c);
    }
    if (r != NULL &&
        ctp_check_factory_options(dtype, ctp_arg(sig, a, "requires_grad"), NULL, NULL) < 0)
        Py_CLEAR(r);
    return r;
}

static PyObject *tensor_is_signed(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(ct_dtype_is_signed(ct_tensor_dtype(ctp_tensor_get(self))));
}

/* ---- tables
 * -------------------------------------------------------------------------------------- */

#define KW METH_VARARGS | METH_KEYWORDS

static PyMethodDef factory_functions[] = {
    {"linspace", CTP_KW_FUNC(py_linspace), KW,
     "linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, "
     "pin_memory=False, requires_grad=False) -> Tensor"},
    {"logspace", CTP_KW_FUNC(py_logspace), KW,
     "logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, "
     "device=None, pin_memory=False, requires_grad=False) -> Tensor"},
    {"eye", CTP_KW_FUNC(py_eye), KW,
     "eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False, "
     "requires_grad=False) -> Tensor"},
    {"as_tensor", CTP_KW_FUNC(py_as_tensor), KW,
     "as_tensor(data, dtype=None, device=None) -> Tensor\n\ndata itself (a tensor, or a "
     "NumPy array's memory) when dtype and device match, else a converted copy."},
    {"from_numpy", py_from_numpy, METH_O,
     "from_numpy(ndarray) -> Tensor\n\nA cpu tensor sharing the array's memory."},
    {"is_tensor", py_is_tensor, METH_O, "is_tensor(obj) -> bool"},
    {"is_floating_point", CTP_KW_FUNC(py_is_floating_point), KW,
     "is_floating_point(input) -> bool"},
    {"is_complex", CTP_KW_FUNC(py_is_complex), KW, "is_complex(input) -> bool"},
    {"numel", CTP_KW_FUNC(py_numel), KW, "numel(input) -> int"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef factory_methods[] = {
    {"new_empty", CTP_KW_FUNC(tensor_new_empty), KW,
     "new_empty(size, *, dtype=None, device=None, requires_grad=False, layout=torch.strided, "
     "pin_memory=False) -> Tensor"},
    {"new_zeros", CTP_KW_FUNC(tensor_new_zeros), KW, "new_zeros(size, *, dtype=None, ...)"},
    {"new_ones", CTP_KW_FUNC(tensor_new_ones), KW, "new_ones(size, *, dtype=None, ...)"},
    {"new_full", CTP_KW_FUNC(tensor_new_full), KW,
     "new_full(size, fill_value, *, dtype=None, ...)"},
    {"new_empty_strided", CTP_KW_FUNC(tensor_new_empty_strided), KW,
     "new_empty_strided(size, stride, *, dtype=None, ...)"},
    {"new_tensor", CTP_KW_FUNC(tensor_new_tensor), KW,
     "new_tensor(data, *, dtype=None, device=None, requires_grad=False, layout=torch.strided, "
     "pin_memory=False) -> Tensor\n\nA copy of data with self's dtype and device by default."},
    {"is_signed", tensor_is_signed, METH_NOARGS, "is_signed() -> bool"},
    {NULL, NULL, 0, NULL},
};

int ctp_factories_init(PyObject *module) {
    if (PyModule_AddFunctions(module, factory_functions) < 0)
        return -1;
    PyObject *fmt = PyObject_GetAttrString(module, "contiguous_format");
    if (fmt == NULL || PyModule_AddObject(module, "legacy_contiguous_format", fmt) < 0) {
        Py_XDECREF(fmt);
        return -1;
    }
    return ctp_tensor_add_methods(factory_methods);
}
