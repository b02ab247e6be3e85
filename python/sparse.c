/* The Python surface of sparse COO tensors (include/ctensor/sparse.h): the module function
 * ctensor.sparse_coo_tensor, the sparse methods of ctensor.Tensor (coalesce, indices,
 * values, to_dense, to_sparse, ...) and repr() of sparse tensors through
 * ct_sparse_repr_named. Arithmetic on sparse operands is the C layer's (ct_binary routes
 * them to the sparse layer); tensor_arith.c calls it as for any tensor.
 *
 * This file owns none of the Tensor type: like dlpack.c, it adds its methods to the type's
 * dictionary once the type is ready (skipping any the Tensor files define themselves), and
 * wraps the repr hook of the printing layer so that strided tensors still print through it.
 *
 * Behaviour follows PyTorch 1.13 where it has the feature, newest PyTorch otherwise:
 *  - sparse_coo_tensor takes newest PyTorch's check_invariants= and is_coalesced= keywords
 *    (1.13 rejects both). check_invariants=None checks, as 1.13 always does; False skips
 *    the checks that read the indices.
 *  - to_sparse(sparse_dim) of a sparse tensor with that sparse_dim returns it (newest; 1.13
 *    raises NotImplementedError), sparse_dim()/dense_dim() of a strided tensor are 0/dim()
 *    (newest; 1.13 raises).
 *  - + - * / // and their in-place forms are the C layer's (the sparse slots of the op
 *    table); the other operators answer NotImplemented for sparse operands.
 *  - Some Tensor methods (conversions, neg, clone, t, transpose, t_, transpose_, swapaxes,
 *    swapdims and their in-place forms, stride) and
 *    the module function neg are the strided files' own; for sparse tensors this file
 *    replaces them with wrappers that call the sparse C function and hand strided tensors to
 *    the original unchanged. The conversions (to, double(), type(dtype), cpu(), ...) run the
 *    original method on the values, so that they parse their arguments exactly as for
 *    strided tensors, and ct_sparse_with_values makes the result. (ctensor.clone, t,
 *    transpose and negative call the methods: method_functions.c.)
 */
#include <string.h>

#include "ctensor/sparse.h"
#include "ctensor_py.h"

static int is_sparse_obj(PyObject *obj) {
    ct_tensor *t = ctp_tensor_get(obj);
    return t != NULL && ct_sparse_is_sparse(t);
}

/* A tensor argument as torch's sparse constructor reads one (internal_new_from_data with
 * copy=false): a ctensor tensor is converted only when dtype or device differ (so indices
 * and values are shared as in PyTorch); anything else goes through ctensor.tensor's data
 * reader. Sparse tensors pass unchanged so that the C constructor reports PyTorch's
 * "expected indices to be a dense tensor" error. New reference, or NULL with an exception. */
static PyObject *tensor_of_arg(PyObject *obj, ct_dtype dtype, const ct_device *device) {
    ct_tensor *t = ctp_tensor_get(obj);
    if (t == NULL)
        return ctp_tensor_from_data(obj, dtype, device);
    if (ct_sparse_is_sparse(t))
        return Py_NewRef(obj);
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_to(t, dtype, device, false, CT_MEMFMT_PRESERVE, &r);
    return ctp_tensor_result(obj, st, r);
}

/* ---- ctensor.sparse_coo_tensor --------------------------------------------------------- */

#define SPARSE_KW_OPTIONS                                                                          \
    {CTP_PARAM_DTYPE, "*dtype=None"}, {CTP_PARAM_DEVICE, "device=None"},                           \
        {CTP_PARAM_BOOL, "requires_grad=False"}, {                                                 \
        CTP_PARAM_BOOL, "check_invariants=None"                                                    \
    }

/* PyTorch's three signatures, in its order (the first that matches wins). */
static const ctp_signature coo_sigs[] = {
    {7,
     {{CTP_PARAM_OBJECT, "indices"},
      {CTP_PARAM_OBJECT, "values"},
      SPARSE_KW_OPTIONS,
      {CTP_PARAM_BOOL, "is_coalesced=None"}}},
    {8,
     {{CTP_PARAM_OBJECT, "indices"},
      {CTP_PARAM_OBJECT, "values"},
      {CTP_PARAM_INT_LIST, "size"},
      SPARSE_KW_OPTIONS,
      {CTP_PARAM_BOOL, "is_coalesced=None"}}},
    {5, {{CTP_PARAM_INT_LIST, "size"}, SPARSE_KW_OPTIONS}},
};

static PyObject *py_sparse_coo_tensor(PyObject *mod, PyObject *args, PyObject *kwargs) {
    (void)mod;
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("sparse_coo_tensor", coo_sigs, 3, args, kwargs, a);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &coo_sigs[k];
    ct_device dev;
    int has_dev = 0;
    if (ctp_opt_device(ctp_arg(sig, a, "device"), &dev, &has_dev) < 0)
        return NULL;
    const ct_device *devp = has_dev ? &dev : NULL;
    const ct_dtype dtype = ctp_opt_dtype(ctp_arg(sig, a, "dtype"));
    int64_t sizes[CT_MAX_DIMS];
    Py_ssize_t ndim = CT_SPARSE_INFER_SIZE;
    PyObject *size_arg = ctp_arg(sig, a, "size");
    if (size_arg != NULL) {
        ndim =
            ctp_int_list_of_arg("sparse_coo_tensor", ctp_param_named(sig, "size"), size_arg, sizes);
        if (ndim < 0)
            return NULL;
    }

    ct_tensor *out = NULL;
    ct_status st;
    if (k == 2) { /* sparse_coo_tensor(size): all zeros, every dim sparse */
        st = ct_sparse_coo_zeros(sizes, ndim, ndim, dtype, devp, &out);
    } else {
        /* values first: indices given as data go to the values' device, as in PyTorch */
        PyObject *values = tensor_of_arg(a[1], dtype, devp);
        if (values == NULL)
            return NULL;
        ct_device idx_dev = ct_tensor_device(ctp_tensor_get(values));
        const ct_device *idx_devp = devp != NULL ? devp : &idx_dev;
        if (devp == NULL && ctp_tensor_check(a[0]))
            idx_devp = NULL; /* a tensor keeps its device; the C check reports a mismatch */
        /* indices are always made int64, whatever their dtype (PyTorch converts too) */
        PyObject *indices = tensor_of_arg(a[0], CT_INT64, idx_devp);
        if (indices == NULL) {
            Py_DECREF(values);
            return NULL;
        }
        ct_sparse_coo_options opts = CT_SPARSE_COO_OPTIONS_INIT;
        PyObject *check = ctp_arg(sig, a, "check_invariants");
        opts.check_invariants = check == NULL || PyObject_IsTrue(check);
        opts.is_coalesced = ctp_opt_bool(ctp_arg(sig, a, "is_coalesced"));
        st = ct_sparse_coo_tensor(ctp_tensor_get(indices), ctp_tensor_get(values),
                                  ndim >= 0 ? sizes : NULL, ndim, &opts, &out);
        Py_DECREF(indices);
        Py_DECREF(values);
    }
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_check_factory_options(ct_tensor_dtype(out), ctp_arg(sig, a, "requires_grad"), NULL,
                                  NULL) < 0) {
        ct_tensor_release(out);
        return NULL;
    }
    return ctp_tensor_wrap(out);
}

/* ---- attribute methods ----------------------------------------------------------------- */

typedef ct_status (*int_getter)(const ct_tensor *, int64_t *);

static PyObject *int_result(PyObject *self, int_getter get) {
    int64_t v = 0;
    ct_status st = get(ctp_tensor_get(self), &v);
    return st == CT_OK ? PyLong_FromLongLong(v) : ctp_raise_status(st);
}

static PyObject *tensor_sparse_dim(PyObject *self, PyObject *unused) {
    (void)unused;
    return int_result(self, ct_sparse_dim);
}

static PyObject *tensor_dense_dim(PyObject *self, PyObject *unused) {
    (void)unused;
    return int_result(self, ct_sparse_dense_dim);
}

static PyObject *tensor_nnz(PyObject *self, PyObject *unused) {
    (void)unused;
    return int_result(self, ct_sparse_nnz);
}

static PyObject *tensor_is_coalesced(PyObject *self, PyObject *unused) {
    (void)unused;
    bool v = false;
    ct_status st = ct_sparse_is_coalesced(ctp_tensor_get(self), &v);
    return st == CT_OK ? PyBool_FromLong(v) : ctp_raise_status(st);
}

static const ctp_signature coalesced__sig[] = {{1, {{CTP_PARAM_BOOL, "coalesced"}}}};

/* _coalesced_(coalesced): sets the flag (unchecked, as PyTorch) and returns self. */
static PyObject *tensor_coalesced_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("_coalesced_", coalesced__sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_status st = ct_sparse_set_coalesced(ctp_tensor_get(self), a[0] == Py_True);
    return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
}

typedef ct_status (*tensor_getter)(const ct_tensor *, ct_tensor **);

static PyObject *tensor_result(PyObject *self, tensor_getter get) {
    ct_tensor *r = NULL;
    ct_status st = get(ctp_tensor_get(self), &r);
    return ctp_tensor_result(self, st, r);
}

static PyObject *tensor_coalesce(PyObject *self, PyObject *unused) {
    (void)unused;
    return tensor_result(self, ct_sparse_coalesce);
}

static PyObject *tensor_indices(PyObject *self, PyObject *unused) {
    (void)unused;
    return tensor_result(self, ct_sparse_indices);
}

static PyObject *tensor_values(PyObject *self, PyObject *unused) {
    (void)unused;
    return tensor_result(self, ct_sparse_values);
}

static PyObject *tensor_raw_indices(PyObject *self, PyObject *unused) {
    (void)unused;
    return tensor_result(self, ct_sparse_raw_indices);
}

static PyObject *tensor_raw_values(PyObject *self, PyObject *unused) {
    (void)unused;
    return tensor_result(self, ct_sparse_raw_values);
}

/* ---- conversions ----------------------------------------------------------------------- */

static const ctp_signature to_dense_sig[] = {{1, {{CTP_PARAM_DTYPE, "dtype=None"}}}};

/* to_dense(dtype=None): a strided tensor is converted; PyTorch's sparse kernel takes no
 * dtype. */
static PyObject *tensor_to_dense(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("to_dense", to_dense_sig, 1, args, kwargs, a) < 0)
        return NULL;
    if (a[0] != NULL && is_sparse_obj(self)) {
        PyErr_SetString(PyExc_RuntimeError, "dtype argument is not supported by sparse_to_dense");
        return NULL;
    }
    ct_tensor *dense = NULL;
    ct_status st = ct_sparse_to_dense(ctp_tensor_get(self), &dense);
    if (st != CT_OK)
        return ctp_raise_status(st);
    ct_dtype dtype = ctp_opt_dtype(a[0]);
    if (dtype != CT_DTYPE_UNDEFINED) {
        ct_tensor *conv = NULL;
        st = ct_tensor_to_dtype(dense, dtype, &conv);
        ct_tensor_release(dense);
        if (st != CT_OK)
            return ctp_raise_status(st);
        dense = conv;
    }
    return ctp_tensor_result(self, CT_OK, dense);
}

/* PyTorch's two signatures: to_sparse() and to_sparse(sparse_dim). */
static const ctp_signature to_sparse_sigs[] = {
    {0, {{0, NULL}}},
    {1, {{CTP_PARAM_INT64, "sparse_dim"}}},
};

static PyObject *tensor_to_sparse(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("to_sparse", to_sparse_sigs, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st;
    if (k == 0) {
        st = ct_sparse_to_sparse(ctp_tensor_get(self), &r);
    } else {
        int64_t sd = 0;
        if (ctp_int64_of_arg(a[0], &sd) < 0)
            return NULL;
        st = ct_sparse_to_sparse_dim(ctp_tensor_get(self), sd, &r);
    }
    return ctp_tensor_result(self, st, r);
}

/* ---- repr ------------------------------------------------------------------------------ */

static PyObject *(*previous_repr_hook)(PyObject *) = NULL;

/* Sparse tensors print through ct_sparse_repr_named (with the "ctensor." prefix, under the
 * subclass's name for subclasses, as the strided printer does); others through the hook the
 * printing layer installed. */
static PyObject *sparse_repr_hook(PyObject *self) {
    ct_tensor *t = ctp_tensor_get(self);
    if (t != NULL && !ct_sparse_is_sparse(t) && previous_repr_hook != NULL)
        return previous_repr_hook(self);
    return ctp_tensor_repr_with(self, ct_sparse_repr_named); /* strided too: it hands over */
}

/* ---- strided methods wrapped for sparse tensors ------------------------------------------ */

/* The wrapped methods; OV_CONVERSIONS come first. The wrappers share one table of the
 * original definitions (static PyMethodDefs of the Tensor files). */
enum {
    OV_TO,
    OV_DOUBLE,
    OV_FLOAT,
    OV_HALF,
    OV_BFLOAT16,
    OV_INT,
    OV_LONG,
    OV_SHORT,
    OV_CHAR,
    OV_BYTE,
    OV_BOOL,
    OV_CFLOAT,
    OV_CDOUBLE,
    OV_CHALF,
    OV_CPU,
    OV_TYPE,
    OV_CONVERSIONS,
    OV_NEG = OV_CONVERSIONS,
    OV_NEGATIVE,
    OV_CLONE,
    OV_T,
    OV_TRANSPOSE,
    OV_STRIDE,
    OV_T_,
    OV_TRANSPOSE_,
    OV_SWAPAXES,
    OV_SWAPDIMS,
    OV_SWAPAXES_,
    OV_SWAPDIMS_,
    OV_ZERO_,
    OV_COUNT
};
static const char *const ov_names[OV_COUNT] = {
    "to",       "double",   "float",     "half",      "bfloat16",  "int",    "long", "short",
    "char",     "byte",     "bool",      "cfloat",    "cdouble",   "chalf",  "cpu",  "type",
    "neg",      "negative", "clone",     "t",         "transpose", "stride", "t_",   "transpose_",
    "swapaxes", "swapdims", "swapaxes_", "swapdims_", "zero_"};
static const PyMethodDef *ov_orig[OV_COUNT];
static PyMethodDef ov_defs[OV_COUNT + 1];

/* The original method with the wrapper's arguments; the messages of CPython's method
 * descriptors for arguments a METH_NOARGS or METH_O method does not take. */
static PyObject *call_orig(int k, PyObject *self, PyObject *args, PyObject *kwargs) {
    const PyMethodDef *m = ov_orig[k];
    int f = m->ml_flags & (METH_VARARGS | METH_KEYWORDS | METH_NOARGS | METH_O);
    Py_ssize_t n = args != NULL ? PyTuple_GET_SIZE(args) : 0;
    if (f == (METH_VARARGS | METH_KEYWORDS))
        return ((PyCFunctionWithKeywords)(void (*)(void))m->ml_meth)(self, args, kwargs);
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0)
        return PyErr_Format(PyExc_TypeError, "Tensor.%s() takes no keyword arguments", m->ml_name);
    if (f == METH_NOARGS) {
        if (n != 0)
            return PyErr_Format(PyExc_TypeError, "Tensor.%s() takes no arguments (%zd given)",
                                m->ml_name, n);
        return m->ml_meth(self, NULL);
    }
    if (f == METH_O) {
        if (n != 1)
            return PyErr_Format(PyExc_TypeError,
                                "Tensor.%s() takes exactly one argument (%zd given)", m->ml_name,
                                n);
        return m->ml_meth(self, PyTuple_GET_ITEM(args, 0));
    }
    return m->ml_meth(self, args);
}

/* A conversion: the original method on the values; a tensor answer becomes the new values,
 * anything else (type() without a dtype) is the method's answer for self. */
static PyObject *convert_values(int k, PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_tensor *v = NULL;
    ct_status st = ct_sparse_raw_values(ctp_tensor_get(self), &v);
    if (st != CT_OK)
        return ctp_raise_status(st);
    PyObject *vobj = ctp_tensor_wrap(v);
    if (vobj == NULL)
        return NULL;
    PyObject *r = call_orig(k, vobj, args, kwargs);
    Py_DECREF(vobj);
    if (r == NULL)
        return NULL;
    if (!ctp_tensor_check(r)) {
        Py_DECREF(r);
        return call_orig(k, self, args, kwargs);
    }
    ct_tensor *out = NULL;
    st = ct_sparse_with_values(ctp_tensor_get(self), ctp_tensor_get(r), &out);
    Py_DECREF(r);
    return ctp_tensor_result(self, st, out);
}

static const ctp_signature transpose_sig[] = {
    {2, {{CTP_PARAM_INT64, "dim0"}, {CTP_PARAM_INT64, "dim1"}}}};
static const ctp_signature swapaxes_sig[] = {
    {2, {{CTP_PARAM_INT64, "axis0"}, {CTP_PARAM_INT64, "axis1"}}}};
static const ctp_signature stride_sig[] = {{1, {{CTP_PARAM_INT64, "dim=None"}}}};

/* stride() of a sparse tensor as PyTorch 1.13 answers it (ct_sparse_strides). */
static PyObject *sparse_stride(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("stride", stride_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(self);
    int64_t strides[CT_MAX_DIMS], n = ct_tensor_dim(t);
    ct_status st = ct_sparse_strides(t, strides);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (a[0] == NULL || a[0] == Py_None) {
        PyObject *tup = PyTuple_New((Py_ssize_t)n);
        for (int64_t i = 0; tup != NULL && i < n; i++) {
            PyObject *x = PyLong_FromLongLong(strides[i]);
            if (x == NULL) {
                Py_CLEAR(tup);
                break;
            }
            PyTuple_SET_ITEM(tup, (Py_ssize_t)i, x);
        }
        return tup;
    }
    int64_t dim, v;
    if (ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    st = ct_sparse_stride(t, dim, &v);
    return st == CT_OK ? PyLong_FromLongLong(v) : ctp_raise_status(st);
}

static PyObject *sparse_method(int k, PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_tensor *t = ctp_tensor_get(self), *r = NULL;
    ct_status st;
    PyObject *a[CTP_MAX_PARAMS];
    switch (k) {
    case OV_NEG:
    case OV_NEGATIVE:
    case OV_CLONE: /* PyTorch's sparse clone takes no memory format; neg takes nothing */
        if ((args != NULL && PyTuple_GET_SIZE(args) > 0) ||
            (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0))
            return call_orig(k, self, args, kwargs);
        st = k == OV_CLONE ? ct_sparse_clone(t, &r) : ct_unary(CT_UNOP_NEG, t, &r);
        break;
    case OV_T:
        if (args != NULL && PyTuple_GET_SIZE(args) > 0)
            return call_orig(k, self, args, kwargs);
        st = ct_sparse_t(t, &r);
        break;
    case OV_TRANSPOSE: {
        int64_t d0, d1;
        if (ctp_parse_args("transpose", transpose_sig, 1, args, kwargs, a) < 0 ||
            ctp_int64_of_arg(a[0], &d0) < 0 || ctp_int64_of_arg(a[1], &d1) < 0)
            return NULL;
        st = ct_sparse_transpose(t, d0, d1, &r);
        break;
    }
    case OV_T_:
        if (args != NULL && PyTuple_GET_SIZE(args) > 0)
            return call_orig(k, self, args, kwargs);
        st = ct_sparse_t_(t);
        return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
    case OV_TRANSPOSE_: {
        int64_t d0, d1;
        if (ctp_parse_args("transpose_", transpose_sig, 1, args, kwargs, a) < 0 ||
            ctp_int64_of_arg(a[0], &d0) < 0 || ctp_int64_of_arg(a[1], &d1) < 0)
            return NULL;
        st = ct_sparse_transpose_(t, d0, d1);
        return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
    }
    case OV_SWAPAXES:
    case OV_SWAPDIMS:
    case OV_SWAPAXES_:
    case OV_SWAPDIMS_: { /* PyTorch's aliases of transpose and transpose_ */
        int64_t d0, d1;
        bool axes = k == OV_SWAPAXES || k == OV_SWAPAXES_;
        if (ctp_parse_args(ov_names[k], axes ? swapaxes_sig : transpose_sig, 1, args, kwargs, a) <
                0 ||
            ctp_int64_of_arg(a[0], &d0) < 0 || ctp_int64_of_arg(a[1], &d1) < 0)
            return NULL;
        if (k == OV_SWAPAXES || k == OV_SWAPDIMS) {
            st = ct_sparse_transpose(t, d0, d1, &r);
            break;
        }
        st = ct_sparse_transpose_(t, d0, d1);
        return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
    }
    case OV_STRIDE:
        return sparse_stride(self, args, kwargs);
    case OV_ZERO_:
        if ((args != NULL && PyTuple_GET_SIZE(args) > 0) ||
            (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0))
            return call_orig(k, self, args, kwargs);
        st = ct_sparse_zero_(t);
        return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
    default:
        return convert_values(k, self, args, kwargs);
    }
    return ctp_tensor_result(NULL, st, r);
}

#define OV_WRAPPER(k)                                                                              \
    static PyObject *ov_##k(PyObject *self, PyObject *args, PyObject *kwargs) {                    \
        if (!is_sparse_obj(self))                                                                  \
            return call_orig(k, self, args, kwargs);                                               \
        return sparse_method(k, self, args, kwargs);                                               \
    }
OV_WRAPPER(OV_TO)
OV_WRAPPER(OV_DOUBLE)
OV_WRAPPER(OV_FLOAT)
OV_WRAPPER(OV_HALF)
OV_WRAPPER(OV_BFLOAT16)
OV_WRAPPER(OV_INT)
OV_WRAPPER(OV_LONG)
OV_WRAPPER(OV_SHORT)
OV_WRAPPER(OV_CHAR)
OV_WRAPPER(OV_BYTE)
OV_WRAPPER(OV_BOOL)
OV_WRAPPER(OV_CFLOAT)
OV_WRAPPER(OV_CDOUBLE)
OV_WRAPPER(OV_CHALF)
OV_WRAPPER(OV_CPU)
OV_WRAPPER(OV_TYPE)
OV_WRAPPER(OV_NEG)
OV_WRAPPER(OV_NEGATIVE)
OV_WRAPPER(OV_CLONE)
OV_WRAPPER(OV_T)
OV_WRAPPER(OV_TRANSPOSE)
OV_WRAPPER(OV_STRIDE)
OV_WRAPPER(OV_T_)
OV_WRAPPER(OV_TRANSPOSE_)
OV_WRAPPER(OV_SWAPAXES)
OV_WRAPPER(OV_SWAPDIMS)
OV_WRAPPER(OV_SWAPAXES_)
OV_WRAPPER(OV_SWAPDIMS_)
OV_WRAPPER(OV_ZERO_)

typedef PyObject *(*ov_fn)(PyObject *, PyObject *, PyObject *);
static const ov_fn ov_fns[OV_COUNT] = {
    ov_OV_TO,        ov_OV_DOUBLE,    ov_OV_FLOAT,     ov_OV_HALF,       ov_OV_BFLOAT16,
    ov_OV_INT,       ov_OV_LONG,      ov_OV_SHORT,     ov_OV_CHAR,       ov_OV_BYTE,
    ov_OV_BOOL,      ov_OV_CFLOAT,    ov_OV_CDOUBLE,   ov_OV_CHALF,      ov_OV_CPU,
    ov_OV_TYPE,      ov_OV_NEG,       ov_OV_NEGATIVE,  ov_OV_CLONE,      ov_OV_T,
    ov_OV_TRANSPOSE, ov_OV_STRIDE,    ov_OV_T_,        ov_OV_TRANSPOSE_, ov_OV_SWAPAXES,
    ov_OV_SWAPDIMS,  ov_OV_SWAPAXES_, ov_OV_SWAPDIMS_, ov_OV_ZERO_};

static unaryfunc previous_negative = NULL;

static PyObject *sparse_nb_negative(PyObject *self) {
    if (!is_sparse_obj(self))
        return previous_negative(self);
    ct_tensor *r = NULL;
    ct_status st = ct_unary(CT_UNOP_NEG, ctp_tensor_get(self), &r);
    return ctp_tensor_result(NULL, st, r);
}

/* Replace the Tensor type's methods named in ov_names by the wrappers (once per process;
 * a method the type lacks is left alone). */
static int wrap_methods(void) {
    static int done = 0;
    if (done)
        return 0;
    PyObject *dict = ctp_tensor_type.tp_dict;
    for (int k = 0; k < OV_COUNT; k++) {
        PyObject *d = PyDict_GetItemString(dict, ov_names[k]);
        if (d == NULL || !Py_IS_TYPE(d, &PyMethodDescr_Type))
            continue;
        ov_orig[k] = ((PyMethodDescrObject *)d)->d_method;
        ov_defs[k] = (PyMethodDef){.ml_name = ov_names[k],
                                   .ml_meth = CTP_KW_FUNC(ov_fns[k]),
                                   .ml_flags = METH_VARARGS | METH_KEYWORDS,
                                   .ml_doc = ov_orig[k]->ml_doc};
        PyObject *descr = PyDescr_NewMethod(&ctp_tensor_type, &ov_defs[k]);
        if (descr == NULL)
            return -1;
        int rc = PyDict_SetItemString(dict, ov_names[k], descr);
        Py_DECREF(descr);
        if (rc < 0)
            return -1;
    }
    PyNumberMethods *nb = ctp_tensor_type.tp_as_number;
    if (nb != NULL && nb->nb_negative != NULL) {
        previous_negative = nb->nb_negative;
        nb->nb_negative = sparse_nb_negative;
    }
    PyType_Modified(&ctp_tensor_type);
    done = 1;
    return 0;
}

/* ---- module functions wrapped for sparse tensors ------------------------------------------ */

/* ctensor.neg is the unary table's (tensor_unary.c); a sparse input without out= takes the
 * method's sparse form, anything else the original function. */
static PyObject *orig_neg = NULL;

static PyObject *module_neg(PyObject *mod, PyObject *args, PyObject *kwargs) {
    (void)mod;
    Py_ssize_t n = PyTuple_GET_SIZE(args), nk = kwargs != NULL ? PyDict_GET_SIZE(kwargs) : 0;
    PyObject *input = n == 1 && nk == 0   ? PyTuple_GET_ITEM(args, 0)
                      : n == 0 && nk == 1 ? PyDict_GetItemString(kwargs, "input")
                                          : NULL;
    if (input != NULL && is_sparse_obj(input)) {
        ct_tensor *r = NULL;
        ct_status st = ct_unary(CT_UNOP_NEG, ctp_tensor_get(input), &r);
        return ctp_tensor_result(NULL, st, r);
    }
    return PyObject_Call(orig_neg, args, kwargs);
}

static PyMethodDef module_neg_def = {"neg", CTP_KW_FUNC(module_neg), METH_VARARGS | METH_KEYWORDS,
                                     NULL};

static int wrap_module_functions(PyObject *module) {
    PyObject *f = PyObject_GetAttrString(module, "neg");
    if (f == NULL)
        return -1;
    if (orig_neg == NULL) { /* once per process: later imports keep the first original */
        orig_neg = f;
        module_neg_def.ml_doc = ((PyCFunctionObject *)f)->m_ml->ml_doc;
    } else {
        Py_DECREF(f);
    }
    PyObject *w = PyCFunction_NewEx(&module_neg_def, NULL, NULL);
    if (w == NULL)
        return -1;
    int rc = PyObject_SetAttrString(module, "neg", w);
    Py_DECREF(w);
    return rc;
}

/* ---- registration ---------------------------------------------------------------------- */

static PyMethodDef sparse_tensor_methods[] = {
    {"sparse_dim", tensor_sparse_dim, METH_NOARGS,
     "sparse_dim() -> int\n\nThe number of sparse dims (0 for a strided tensor)."},
    {"dense_dim", tensor_dense_dim, METH_NOARGS,
     "dense_dim() -> int\n\nThe number of dense dims (dim() for a strided tensor)."},
    {"_nnz", tensor_nnz, METH_NOARGS, "_nnz() -> int\n\nThe number of stored elements."},
    {"is_coalesced", tensor_is_coalesced, METH_NOARGS,
     "is_coalesced() -> bool\n\nWhether the sparse tensor is known to be coalesced."},
    {"coalesce", tensor_coalesce, METH_NOARGS,
     "coalesce() -> Tensor\n\nSorted indices, duplicates summed (self when coalesced)."},
    {"indices", tensor_indices, METH_NOARGS, "indices() -> Tensor (coalesced tensors only)"},
    {"values", tensor_values, METH_NOARGS, "values() -> Tensor (coalesced tensors only)"},
    {"_indices", tensor_raw_indices, METH_NOARGS, "_indices() -> Tensor"},
    {"_values", tensor_raw_values, METH_NOARGS, "_values() -> Tensor"},
    {"_coalesced_", CTP_KW_FUNC(tensor_coalesced_), METH_VARARGS | METH_KEYWORDS,
     "_coalesced_(coalesced) -> Tensor\n\nSets the coalesced flag (unchecked); returns self."},
    {"to_dense", CTP_KW_FUNC(tensor_to_dense), METH_VARARGS | METH_KEYWORDS,
     "to_dense(dtype=None) -> Tensor\n\nA strided tensor (self when already strided)."},
    {"to_sparse", CTP_KW_FUNC(tensor_to_sparse), METH_VARARGS | METH_KEYWORDS,
     "to_sparse(sparse_dim=None) -> Tensor\n\nA coalesced sparse COO tensor."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef sparse_module_functions[] = {
    {"sparse_coo_tensor", CTP_KW_FUNC(py_sparse_coo_tensor), METH_VARARGS | METH_KEYWORDS,
     "sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, "
     "requires_grad=False, check_invariants=None, is_coalesced=None) -> Tensor\n"
     "sparse_coo_tensor(size, *, dtype=None, device=None, requires_grad=False) -> Tensor\n\n"
     "A sparse COO tensor from indices (converted to int64) and values, tensors or data."},
    {NULL, NULL, 0, NULL},
};

/* Runs after the Tensor type is ready and the printing layer set its repr hook. */
int ctp_sparse_init(PyObject *module) {
    if (PyModule_AddFunctions(module, sparse_module_functions) < 0)
        return -1;
    if (ctp_tensor_add_methods(sparse_tensor_methods) < 0 || wrap_methods() < 0 ||
        wrap_module_functions(module) < 0)
        return -1;
    if (ctp_tensor_repr_hook != sparse_repr_hook) { /* once per process */
        previous_repr_hook = ctp_tensor_repr_hook;
        ctp_tensor_repr_hook = sparse_repr_hook;
    }
    return 0;
}
