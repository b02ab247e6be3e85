/* Tensor views: view, view_as, reshape, reshape_as, t, T, mT, H, transpose, swapaxes, permute,
 * expand, expand_as, narrow, select, unbind, squeeze, unsqueeze, flatten, as_strided,
 * contiguous.
 *
 * Each parses PyTorch's overloads (so argument errors read as PyTorch's) and calls the C
 * API, which words the shape errors as PyTorch does. Overloads taking dimension names exist
 * for the error messages: no ctensor tensor has names, so they raise PyTorch's "Name 'a' not
 * found in Tensor[None, None]." (or NotImplementedError where PyTorch would create a named
 * tensor). Where PyTorch returns `self` (contiguous() of a contiguous tensor, flatten(d, d)),
 * so does ctensor.
 */
#include "ctensor/join.h"
#include "ctensor_py.h"

static ct_tensor *T(PyObject *self) { return ((ctp_tensor_object *)self)->tensor; }

/* *v *= k for k > 0; 0 on overflow (strides of empty tensors are not bounded by a storage). */
static int scale(int64_t *v, int64_t k) {
    if (*v > INT64_MAX / k || *v < INT64_MIN / k)
        return 0;
    *v *= k;
    return 1;
}

static PyObject *named_not_supported(void) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "ctensor does not support named tensors (dimension names)");
    return NULL;
}

/* Read int arguments a[first..first+n) (all present) into v. */
static int ints_of(PyObject **a, int first, int n, int64_t *v) {
    for (int i = 0; i < n; i++)
        if (ctp_int64_of_arg(a[first + i], &v[i]) < 0)
            return -1;
    return 0;
}

/* ---- view(dtype) ------------------------------------------------------------------------- */

/* PyTorch's view(dtype): same element size keeps the geometry; otherwise the last dimension
 * is split or merged, with PyTorch's checks and messages. */
static PyObject *view_dtype(PyObject *self, ct_dtype dtype) {
    ct_tensor *t = T(self), *r = NULL;
    ct_dtype from = ct_tensor_dtype(t);
    int64_t n = ct_tensor_dim(t), sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int64_t offset = ct_tensor_storage_offset(t);
    size_t a = ct_dtype_itemsize(from), b = ct_dtype_itemsize(dtype);
    const char *fn = ct_dtype_cpp_name(from), *tn = ct_dtype_cpp_name(dtype);
    if (ct_tensor_strides(t) == NULL)
        return PyErr_Format(PyExc_NotImplementedError,
                            "view(dtype) is only supported for strided tensors");
    for (int64_t i = 0; i < n; i++) {
        sizes[i] = ct_tensor_sizes(t)[i];
        strides[i] = ct_tensor_strides(t)[i];
    }
    if (a != b && n == 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "self.dim() cannot be 0 to view %s as %s (different element sizes)", fn,
                            tn);
    if (a > b) { /* each element becomes `ratio` smaller ones */
        int64_t ratio = (int64_t)(a / b);
        if (strides[n - 1] != 1)
            return PyErr_Format(PyExc_RuntimeError,
                                "self.stride(-1) must be 1 to view %s as %s (different element "
                                "sizes), but got %lld",
                                fn, tn, (long long)strides[n - 1]);
        int ok = scale(&sizes[n - 1], ratio) && scale(&offset, ratio);
        for (int64_t i = 0; ok && i < n - 1; i++)
            ok = scale(&strides[i], ratio);
        if (!ok)
            return PyErr_Format(PyExc_RuntimeError, "Stride calculation overflowed");
    } else if (a < b) { /* `ratio` elements merge into one */
        int64_t ratio = (int64_t)(b / a);
        const char *tail = " (different element sizes), but got";
        if (sizes[n - 1] % ratio != 0)
            return PyErr_Format(PyExc_RuntimeError,
                                "self.size(-1) must be divisible by %lld to view %s as %s%s %lld",
                                (long long)ratio, fn, tn, tail, (long long)sizes[n - 1]);
        if (offset % ratio != 0)
            return PyErr_Format(
                PyExc_RuntimeError,
                "self.storage_offset() must be divisible by %lld to view %s as %s%s %lld",
                (long long)ratio, fn, tn, tail, (long long)offset);
        if (strides[n - 1] != 1)
            return PyErr_Format(PyExc_RuntimeError,
                                "self.stride(-1) must be 1 to view %s as %s%s %lld", fn, tn, tail,
                                (long long)strides[n - 1]);
        for (int64_t i = 0; i < n - 1; i++) {
            if (strides[i] % ratio != 0)
                return PyErr_Format(
                    PyExc_RuntimeError,
                    "self.stride(%lld) must be divisible by %lld to view %s as %s%s %lld",
                    (long long)i, (long long)ratio, fn, tn, tail, (long long)strides[i]);
            strides[i] /= ratio;
        }
        sizes[n - 1] /= ratio;
        offset /= ratio;
    }
    ct_status st =
        ct_tensor_from_storage(ct_tensor_storage(t), sizes, strides, n, offset, dtype, &r);
    return ctp_tensor_result(NULL, st, r);
}

/* ---- view, reshape ------------------------------------------------------------------------ */

static const ctp_signature view_sigs[] = {
    {1, {{CTP_PARAM_DTYPE, "dtype"}}},
    {1, {{CTP_PARAM_SYMINT_LIST, "size"}}},
};

static PyObject *tensor_view(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t shape[CT_MAX_DIMS];
    int sig = ctp_parse_args("view", view_sigs, 2, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig == 0)
        return view_dtype(self, ctp_dtype_of_arg(a[0]));
    Py_ssize_t n = ctp_int_list_of_arg("view", &view_sigs[1].params[0], a[0], shape);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_view(T(self), shape, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature other_sig[] = {{1, {{CTP_PARAM_TENSOR, "other"}}}};

static PyObject *tensor_view_as(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("view_as", other_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *o = ctp_tensor_get(a[0]), *r = NULL;
    ct_status st = ct_tensor_view(T(self), ct_tensor_sizes(o), ct_tensor_dim(o), &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature reshape_sig[] = {{1, {{CTP_PARAM_SYMINT_LIST, "shape"}}}};

static PyObject *tensor_reshape(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t shape[CT_MAX_DIMS];
    if (ctp_parse_args("reshape", reshape_sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("reshape", &reshape_sig[0].params[0], a[0], shape);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_reshape(T(self), shape, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_reshape_as(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("reshape_as", other_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *o = ctp_tensor_get(a[0]), *r = NULL;
    ct_status st = ct_tensor_reshape(T(self), ct_tensor_sizes(o), ct_tensor_dim(o), &r);
    return ctp_tensor_result(NULL, st, r);
}

/* ---- transposes --------------------------------------------------------------------------- */

static PyObject *tensor_t(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_t(T(self), &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature transpose_sigs[] = {
    {2, {{CTP_PARAM_INT64, "dim0"}, {CTP_PARAM_INT64, "dim1"}}},
    {2, {{CTP_PARAM_NAME, "dim0"}, {CTP_PARAM_NAME, "dim1"}}},
};

static PyObject *transpose_impl(PyObject *self, const char *fname, const ctp_signature *sigs,
                                int nsigs, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t d[2];
    int sig = ctp_parse_args(fname, sigs, nsigs, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig == 1) /* PyTorch looks the second name up first */
        return ctp_tensor_raise_name(self, a[1]);
    if (ints_of(a, 0, 2, d) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_transpose(T(self), d[0], d[1], &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_transpose(PyObject *self, PyObject *args, PyObject *kwargs) {
    return transpose_impl(self, "transpose", transpose_sigs, 2, args, kwargs);
}

static const ctp_signature swapaxes_sig[] = {
    {2, {{CTP_PARAM_INT64, "axis0"}, {CTP_PARAM_INT64, "axis1"}}},
};

static PyObject *tensor_swapaxes(PyObject *self, PyObject *args, PyObject *kwargs) {
    return transpose_impl(self, "swapaxes", swapaxes_sig, 1, args, kwargs);
}

static PyObject *tensor_swapdims(PyObject *self, PyObject *args, PyObject *kwargs) {
    return transpose_impl(self, "swapdims", transpose_sigs, 1, args, kwargs);
}

static const ctp_signature permute_sig[] = {{1, {{CTP_PARAM_INT_LIST, "dims"}}}};

static PyObject *tensor_permute(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dims[CT_MAX_DIMS];
    if (ctp_parse_args("permute", permute_sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("permute", &permute_sig[0].params[0], a[0], dims);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_permute(T(self), dims, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

/* T: all dims reversed; PyTorch warns (once) for dims other than 0 and 2. */
static PyObject *get_T(PyObject *self, void *closure) {
    static int warned;
    (void)closure;
    int64_t n = ct_tensor_dim(T(self)), dims[CT_MAX_DIMS];
    if (n != 0 && n != 2 && !warned) {
        warned = 1;
        if (PyErr_WarnEx(PyExc_UserWarning,
                         "The use of `x.T` on tensors of dimension other than 2 to reverse their "
                         "shape is deprecated and it will throw an error in a future release. "
                         "Consider `x.mT` to transpose batches of matrices or "
                         "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                         "dimensions of a tensor.",
                         1) < 0)
            return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        dims[i] = n - 1 - i;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_permute(T(self), dims, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *get_mT(PyObject *self, void *closure) {
    (void)closure;
    int64_t n = ct_tensor_dim(T(self));
    if (n == 1) /* a 0-dim tensor passes, as in PyTorch */
        return PyErr_Format(PyExc_RuntimeError,
                            "tensor.mT is only supported on matrices or batches of matrices. Got "
                            "%lld-D tensor.",
                            (long long)n);
    ct_tensor *r = NULL;
    ct_status st = n == 0 ? ct_tensor_alias(T(self), &r) : ct_tensor_transpose(T(self), -2, -1, &r);
    return ctp_tensor_result(NULL, st, r);
}

/* H: the conjugate transpose; ctensor has no conj(), so complex tensors are refused. */
static PyObject *get_H(PyObject *self, void *closure) {
    (void)closure;
    int64_t n = ct_tensor_dim(T(self));
    if (n != 0 && n != 2)
        return PyErr_Format(PyExc_RuntimeError,
                            "tensor.H is only supported on matrices (2-D tensors). Got %lld-D "
                            "tensor.%s",
                            (long long)n,
                            n > 2 ? " For batches of matrices, consider using tensor.mH" : "");
    if (ct_tensor_is_complex(T(self)))
        return PyErr_Format(PyExc_NotImplementedError,
                            "tensor.H of a complex tensor needs conj(), which ctensor lacks");
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_t(T(self), &r);
    return ctp_tensor_result(NULL, st, r);
}

/* ---- expand ------------------------------------------------------------------------------- */

static const ctp_signature expand_sig[] = {
    {2, {{CTP_PARAM_SYMINT_LIST, "size"}, {CTP_PARAM_BOOL, "*implicit=False"}}},
};

static PyObject *tensor_expand(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS];
    if (ctp_parse_args("expand", expand_sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("expand", &expand_sig[0].params[0], a[0], sizes);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_expand(T(self), sizes, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_expand_as(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("expand_as", other_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *o = ctp_tensor_get(a[0]), *r = NULL;
    ct_status st = ct_tensor_expand(T(self), ct_tensor_sizes(o), ct_tensor_dim(o), &r);
    return ctp_tensor_result(NULL, st, r);
}

/* ---- narrow, select, unbind --------------------------------------------------------------- */

static const ctp_signature narrow_sigs[] = {
    {3, {{CTP_PARAM_INT64, "dim"}, {CTP_PARAM_TENSOR, "start"}, {CTP_PARAM_INT64, "length"}}},
    {3, {{CTP_PARAM_INT64, "dim"}, {CTP_PARAM_INT64, "start"}, {CTP_PARAM_INT64, "length"}}},
};

static PyObject *tensor_narrow(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dim, start, length;
    int sig = ctp_parse_args("narrow", narrow_sigs, 2, args, kwargs, a);
    if (sig < 0 || ctp_int64_of_arg(a[0], &dim) < 0 || ctp_int64_of_arg(a[2], &length) < 0)
        return NULL;
    if (sig == 0) { /* start given as a 0-dim integer tensor */
        ct_tensor *s = ctp_tensor_get(a[1]);
        ct_scalar v;
        if (ct_tensor_dim(s) != 0 || !ct_dtype_is_integral(ct_tensor_dtype(s), false))
            return PyErr_Format(PyExc_RuntimeError, "start must be an 0-dim integral Tensor.");
        ct_status st = ct_tensor_item(s, &v);
        if (st != CT_OK)
            return ctp_raise_status(st);
        start = v.kind == CT_SCALAR_INT ? v.v.i : INT64_MAX;
    } else if (ctp_int64_of_arg(a[1], &start) < 0) {
        return NULL;
    }
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_narrow(T(self), dim, start, length, &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature select_sigs[] = {
    {2, {{CTP_PARAM_INT64, "dim"}, {CTP_PARAM_INT64, "index"}}},
    {2, {{CTP_PARAM_NAME, "dim"}, {CTP_PARAM_INT64, "index"}}},
};

static PyObject *tensor_select(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t v[2];
    int sig = ctp_parse_args("select", select_sigs, 2, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig == 1)
        return ctp_tensor_raise_name(self, a[0]);
    if (ints_of(a, 0, 2, v) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_select(T(self), v[0], v[1], &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature unbind_sigs[] = {
    {1, {{CTP_PARAM_INT64, "dim=0"}}},
    {1, {{CTP_PARAM_NAME, "dim"}}},
};

static PyObject *tensor_unbind(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dim = 0;
    int sig = ctp_parse_args("unbind", unbind_sigs, 2, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig == 1)
        return ctp_tensor_raise_name(self, a[0]);
    if (a[0] != NULL && ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    ct_tensor **list = NULL;
    int64_t n = 0;
    ct_status st = ct_tensor_unbind(T(self), dim, &list, &n);
    return ctp_tensor_tuple_of_list(st, list, n);
}

/* ---- squeeze, unsqueeze, flatten ----------------------------------------------------------- */

static const ctp_signature squeeze_sigs[] = {
    {0, {{0}}},
    {1, {{CTP_PARAM_INT64, "dim"}}},
    {1, {{CTP_PARAM_NAME, "dim"}}},
};

static PyObject *tensor_squeeze(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dim;
    int sig = ctp_parse_args("squeeze", squeeze_sigs, 3, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig == 2)
        return ctp_tensor_raise_name(self, a[0]);
    ct_tensor *r = NULL;
    ct_status st;
    if (sig == 0) {
        st = ct_tensor_squeeze(T(self), &r);
    } else {
        if (ctp_int64_of_arg(a[0], &dim) < 0)
            return NULL;
        st = ct_tensor_squeeze_dim(T(self), dim, &r);
    }
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature unsqueeze_sig[] = {{1, {{CTP_PARAM_INT64, "dim"}}}};

static PyObject *tensor_unsqueeze(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dim;
    if (ctp_parse_args("unsqueeze", unsqueeze_sig, 1, args, kwargs, a) < 0 ||
        ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_unsqueeze(T(self), dim, &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature flatten_sigs[] = {
    {3,
     {{CTP_PARAM_INT64, "start_dim"}, {CTP_PARAM_INT64, "end_dim"}, {CTP_PARAM_NAME, "out_dim"}}},
    {2, {{CTP_PARAM_INT64, "start_dim=0"}, {CTP_PARAM_INT64, "end_dim=-1"}}},
    {3, {{CTP_PARAM_NAME, "start_dim"}, {CTP_PARAM_NAME, "end_dim"}, {CTP_PARAM_NAME, "out_dim"}}},
    {2, {{CTP_PARAM_NAME_LIST, "dims"}, {CTP_PARAM_NAME, "out_dim"}}},
};

static PyObject *tensor_flatten(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t start = 0, end = -1;
    int sig = ctp_parse_args("flatten", flatten_sigs, 4, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig != 1)
        return named_not_supported();
    if ((a[0] != NULL && ctp_int64_of_arg(a[0], &start) < 0) ||
        (a[1] != NULL && ctp_int64_of_arg(a[1], &end) < 0))
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_flatten(T(self), start, end, &r);
    return ctp_tensor_result(self, st, r);
}

/* ---- as_strided, contiguous ---------------------------------------------------------------- */

static const ctp_signature as_strided_sig[] = {
    {3,
     {{CTP_PARAM_SYMINT_LIST, "size"},
      {CTP_PARAM_SYMINT_LIST, "stride"},
      {CTP_PARAM_INT64, "storage_offset=None"}}},
};

static PyObject *tensor_as_strided(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], offset;
    const ctp_signature *sig = &as_strided_sig[0];
    if (ctp_parse_args("as_strided", sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("as_strided", &sig->params[0], a[0], sizes);
    if (n < 0)
        return NULL;
    Py_ssize_t ns = ctp_int_list_of_arg("as_strided", &sig->params[1], a[1], strides);
    if (ns < 0 || (a[2] != NULL && ctp_int64_of_arg(a[2], &offset) < 0))
        return NULL;
    if (ns != n)
        return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
    ct_tensor *r = NULL;
    ct_status st =
        ct_tensor_as_strided(T(self), sizes, strides, n, a[2] != NULL ? &offset : NULL, &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature contiguous_sig[] = {
    {1, {{CTP_PARAM_MEMORY_FORMAT, "*memory_format=contiguous_format"}}},
};

static PyObject *tensor_contiguous(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("contiguous", contiguous_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st =
        ct_tensor_contiguous(T(self), ctp_opt_memory_format(a[0], CT_MEMFMT_CONTIGUOUS), &r);
    return ctp_tensor_result(self, st, r);
}

#define KW(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

PyMethodDef ctp_tensor_view_methods[] = {
    KW(view, "view(*shape) -> Tensor, or view(dtype) -> Tensor\n\nA view with another shape "
             "(one size may be -1), or of the same memory as another dtype."),
    KW(view_as, "view_as(other) -> Tensor"),
    KW(reshape, "reshape(*shape) -> Tensor\n\nA view when the strides allow it, else a copy."),
    KW(reshape_as, "reshape_as(other) -> Tensor"),
    {"t", tensor_t, METH_NOARGS, "t() -> Tensor\n\nTranspose a tensor of at most 2 dims."},
    KW(transpose, "transpose(dim0, dim1) -> Tensor"),
    KW(swapaxes, "swapaxes(axis0, axis1) -> Tensor"),
    KW(swapdims, "swapdims(dim0, dim1) -> Tensor"),
    KW(permute, "permute(*dims) -> Tensor"),
    KW(expand, "expand(*sizes) -> Tensor\n\nBroadcast size-1 dims (stride 0); -1 keeps a size."),
    KW(expand_as, "expand_as(other) -> Tensor"),
    KW(narrow, "narrow(dim, start, length) -> Tensor"),
    KW(select, "select(dim, index) -> Tensor"),
    KW(unbind, "unbind(dim=0) -> tuple of Tensors"),
    KW(squeeze, "squeeze(dim=None) -> Tensor"),
    KW(unsqueeze, "unsqueeze(dim) -> Tensor"),
    KW(flatten, "flatten(start_dim=0, end_dim=-1) -> Tensor"),
    KW(as_strided, "as_strided(size, stride, storage_offset=None) -> Tensor"),
    KW(contiguous, "contiguous(*, memory_format=ctensor.contiguous_format) -> Tensor\n\n"
                   "self when already contiguous in that format, else a copy."),
    {NULL, NULL, 0, NULL},
};

PyGetSetDef ctp_tensor_view_getset[] = {
    {"T", get_T, NULL, "All dimensions reversed.", NULL},
    {"mT", get_mT, NULL, "The last two dimensions transposed.", NULL},
    {"H", get_H, NULL, "The conjugate transpose of a matrix.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
