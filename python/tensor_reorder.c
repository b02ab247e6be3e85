/* Reordering and reshaping (include/ctensor/reorder.h, triangle.h): the functions flip,
 * fliplr, flipud, roll, tile, tril, triu, diagonal, diag, diag_embed and the methods of the same
 * names plus repeat, unfold, tril_, triu_, resize_, resize_as_ and the in-place view ops t_,
 * transpose_, swapaxes_, swapdims_, squeeze_, unsqueeze_, as_strided_ (which return self).
 *
 * A thin skin: it parses PyTorch's signatures and calls the C API, which decides every
 * semantic and words every error. */
#include "ctensor/reorder.h"
#include "ctensor/triangle.h"
#include "ctensor_py.h"

#define TEN CTP_PARAM_TENSOR
#define OBJ CTP_PARAM_OBJECT
#define I64 CTP_PARAM_INT64
#define ILS CTP_PARAM_INT_LIST
#define SYM CTP_PARAM_SYMINT_LIST
#define MF CTP_PARAM_MEMORY_FORMAT

static ct_tensor *T(PyObject *self) { return ctp_tensor_get(self); }

/* self after an in-place C call, or the call's error. */
static PyObject *self_or_raise(PyObject *self, ct_status st) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    return Py_NewRef(self);
}

/* The ints of an int-list argument `a` of `sig`'s parameter `k`. -1 with an exception. */
static Py_ssize_t ints(const char *fname, const ctp_signature *sig, int k, PyObject *a,
                       int64_t v[CT_MAX_DIMS]) {
    return ctp_int_list_of_arg(fname, &sig->params[k], a, v);
}

/* ---- flip, fliplr, flipud ---------------------------------------------------------------- */

static const ctp_signature flip_sig[] = {{1, {{ILS, "dims"}}}};
static const ctp_signature flip_fn_sig[] = {{2, {{TEN, "input"}, {ILS, "dims"}}}};

static PyObject *flip_impl(PyObject *self, const ctp_signature *sig, int k, PyObject *arg) {
    int64_t dims[CT_MAX_DIMS];
    Py_ssize_t n = ints("flip", sig, k, arg, dims);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_flip(T(self), dims, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_flip(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("flip", flip_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return flip_impl(self, flip_sig, 0, a[0]);
}

static PyObject *py_flip(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("flip", flip_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return flip_impl(a[0], flip_fn_sig, 1, a[1]);
}

typedef ct_status (*unary_view_fn)(const ct_tensor *, ct_tensor **);

static const ctp_signature none_sig[] = {{0, {{0}}}};
static const ctp_signature input_sig[] = {{1, {{TEN, "input"}}}};

static PyObject *run_unary(const char *fname, unary_view_fn fn, PyObject *self, PyObject *args,
                           PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (self == NULL) {
        if (ctp_parse_args(fname, input_sig, 1, args, kwargs, a) < 0)
            return NULL;
        self = a[0];
    } else if (ctp_parse_args(fname, none_sig, 1, args, kwargs, a) < 0) {
        return NULL;
    }
    ct_tensor *r = NULL;
    ct_status st = fn(T(self), &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_fliplr(PyObject *self, PyObject *args, PyObject *kwargs) {
    return run_unary("fliplr", ct_tensor_fliplr, self, args, kwargs);
}
static PyObject *tensor_flipud(PyObject *self, PyObject *args, PyObject *kwargs) {
    return run_unary("flipud", ct_tensor_flipud, self, args, kwargs);
}
static PyObject *py_fliplr(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_unary("fliplr", ct_tensor_fliplr, NULL, args, kwargs);
}
static PyObject *py_flipud(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_unary("flipud", ct_tensor_flipud, NULL, args, kwargs);
}

/* ---- roll ------------------------------------------------------------------------------- */

/* IntArrayRef[1]: an int or a list of ints. */
static const ctp_signature roll_sigs[] = {
    {2, {{ILS, "shifts"}, {ILS, "dims=[]"}}},
    {2, {{I64, "shifts"}, {ILS, "dims=[]"}}},
    {2, {{ILS, "shifts"}, {I64, "dims"}}},
    {2, {{I64, "shifts"}, {I64, "dims"}}},
};
static const ctp_signature roll_fn_sigs[] = {
    {3, {{TEN, "input"}, {ILS, "shifts"}, {ILS, "dims=[]"}}},
    {3, {{TEN, "input"}, {I64, "shifts"}, {ILS, "dims=[]"}}},
    {3, {{TEN, "input"}, {ILS, "shifts"}, {I64, "dims"}}},
    {3, {{TEN, "input"}, {I64, "shifts"}, {I64, "dims"}}},
};

static Py_ssize_t int_or_ints(const ctp_signature *sig, int k, PyObject *a, int64_t *v) {
    if (a == NULL)
        return 0;
    if (sig->params[k].kind == I64)
        return ctp_int64_of_arg(a, v) < 0 ? -1 : 1;
    return ints("roll", sig, k, a, v);
}

static PyObject *roll_impl(PyObject *self, const ctp_signature *sig, int first, PyObject **a) {
    int64_t shifts[CT_MAX_DIMS], dims[CT_MAX_DIMS];
    Py_ssize_t ns = int_or_ints(sig, first, a[0], shifts);
    if (ns < 0)
        return NULL;
    Py_ssize_t nd = int_or_ints(sig, first + 1, a[1], dims);
    if (nd < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_roll(T(self), shifts, ns, dims, nd, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_roll(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("roll", roll_sigs, 4, args, kwargs, a);
    if (k < 0)
        return NULL;
    return roll_impl(self, &roll_sigs[k], 0, a);
}

static PyObject *py_roll(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("roll", roll_fn_sigs, 4, args, kwargs, a);
    if (k < 0)
        return NULL;
    return roll_impl(a[0], &roll_fn_sigs[k], 1, a + 1);
}

/* ---- repeat, tile ----------------------------------------------------------------------- */

static const ctp_signature repeat_sig[] = {{1, {{SYM, "repeats"}}}};
static const ctp_signature tile_sig[] = {{1, {{ILS, "dims"}}}};
static const ctp_signature tile_fn_sig[] = {{2, {{TEN, "input"}, {ILS, "dims"}}}};

static PyObject *tensor_repeat(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t v[CT_MAX_DIMS];
    if (ctp_parse_args("repeat", repeat_sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ints("repeat", repeat_sig, 0, a[0], v);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_repeat(T(self), v, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tile_impl(PyObject *self, const ctp_signature *sig, int k, PyObject *arg) {
    int64_t v[CT_MAX_DIMS];
    Py_ssize_t n = ints("tile", sig, k, arg, v);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_tile(T(self), v, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_tile(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("tile", tile_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return tile_impl(self, tile_sig, 0, a[0]);
}

static PyObject *py_tile(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("tile", tile_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return tile_impl(a[0], tile_fn_sig, 1, a[1]);
}

/* ---- tril, triu ------------------------------------------------------------------------- */

typedef ct_status (*tri_fn)(const ct_tensor *, int64_t, ct_tensor **);
typedef ct_status (*tri_out_fn)(const ct_tensor *, int64_t, ct_tensor *);
typedef ct_status (*tri_inplace_fn)(ct_tensor *, int64_t);

static const ctp_signature tri_sig[] = {{1, {{I64, "diagonal=0"}}}};
static const ctp_signature tri_fn_sig[] = {
    {3, {{TEN, "input"}, {I64, "diagonal=0"}, {TEN, "*out=None"}}},
};

static PyObject *run_tri(const char *fname, PyObject *self, tri_fn fn, tri_out_fn out_fn,
                         tri_inplace_fn inplace_fn, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t k = 0;
    PyObject *out = NULL;
    if (self == NULL) {
        if (ctp_parse_args(fname, tri_fn_sig, 1, args, kwargs, a) < 0)
            return NULL;
        self = a[0];
        out = a[2];
        if (a[1] != NULL && ctp_int64_of_arg(a[1], &k) < 0)
            return NULL;
    } else {
        if (ctp_parse_args(fname, tri_sig, 1, args, kwargs, a) < 0)
            return NULL;
        if (a[0] != NULL && ctp_int64_of_arg(a[0], &k) < 0)
            return NULL;
    }
    if (inplace_fn != NULL)
        return self_or_raise(self, inplace_fn(T(self), k));
    if (out != NULL) {
        ct_status st = out_fn(T(self), k, T(out));
        if (st != CT_OK)
            return ctp_raise_status(st);
        return ctp_warning_error() < 0 ? NULL : Py_NewRef(out);
    }
    ct_tensor *r = NULL;
    ct_status st = fn(T(self), k, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_tril(PyObject *self, PyObject *args, PyObject *kwargs) {
    return run_tri("tril", self, ct_tensor_tril, NULL, NULL, args, kwargs);
}
static PyObject *tensor_triu(PyObject *self, PyObject *args, PyObject *kwargs) {
    return run_tri("triu", self, ct_tensor_triu, NULL, NULL, args, kwargs);
}
static PyObject *tensor_tril_(PyObject *self, PyObject *args, PyObject *kwargs) {
    return run_tri("tril_", self, NULL, NULL, ct_tensor_tril_, args, kwargs);
}
static PyObject *tensor_triu_(PyObject *self, PyObject *args, PyObject *kwargs) {
    return run_tri("triu_", self, NULL, NULL, ct_tensor_triu_, args, kwargs);
}
static PyObject *py_tril(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_tri("tril", NULL, ct_tensor_tril, ct_tensor_tril_out, NULL, args, kwargs);
}
static PyObject *py_triu(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_tri("triu", NULL, ct_tensor_triu, ct_tensor_triu_out, NULL, args, kwargs);
}

/* ---- diagonal, unfold ------------------------------------------------------------------- */

static const ctp_signature diagonal_sig[] = {
    {3, {{I64, "offset=0"}, {I64, "dim1=0"}, {I64, "dim2=1"}}},
};
static const ctp_signature diagonal_fn_sig[] = {
    {4, {{TEN, "input"}, {I64, "offset=0"}, {I64, "dim1=0"}, {I64, "dim2=1"}}},
};

static PyObject *diagonal_impl(PyObject *self, PyObject **a) {
    int64_t v[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++)
        if (a[i] != NULL && ctp_int64_of_arg(a[i], &v[i]) < 0)
            return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_diagonal(T(self), v[0], v[1], v[2], &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_diagonal(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("diagonal", diagonal_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return diagonal_impl(self, a);
}

static PyObject *py_diagonal(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("diagonal", diagonal_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return diagonal_impl(a[0], a + 1);
}

static const ctp_signature unfold_sig[] = {
    {3, {{I64, "dimension"}, {I64, "size"}, {I64, "step"}}},
};

static PyObject *tensor_unfold(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t v[3];
    if (ctp_parse_args("unfold", unfold_sig, 1, args, kwargs, a) < 0)
        return NULL;
    for (int i = 0; i < 3; i++)
        if (ctp_int64_of_arg(a[i], &v[i]) < 0)
            return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_unfold(T(self), v[0], v[1], v[2], &r);
    return ctp_tensor_result(NULL, st, r);
}

/* ---- diag, diag_embed -------------------------------------------------------------------- */

static const ctp_signature diag_sig[] = {{1, {{I64, "diagonal=0"}}}};
static const ctp_signature diag_fn_sig[] = {
    {3, {{TEN, "input"}, {I64, "diagonal=0"}, {TEN, "*out=None"}}},
};

static PyObject *diag_impl(PyObject *self, PyObject *k_arg, PyObject *out) {
    int64_t k = 0;
    if (k_arg != NULL && ctp_int64_of_arg(k_arg, &k) < 0)
        return NULL;
    if (out != NULL) {
        ct_status st = ct_tensor_diag_out(T(self), k, T(out));
        if (st != CT_OK)
            return ctp_raise_status(st);
        return ctp_warning_error() < 0 ? NULL : Py_NewRef(out);
    }
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_diag(T(self), k, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_diag(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("diag", diag_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return diag_impl(self, a[0], NULL);
}

static PyObject *py_diag(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("diag", diag_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return diag_impl(a[0], a[1], a[2]);
}

static const ctp_signature diag_embed_sig[] = {
    {3, {{I64, "offset=0"}, {I64, "dim1=-2"}, {I64, "dim2=-1"}}},
};
static const ctp_signature diag_embed_fn_sig[] = {
    {4, {{TEN, "input"}, {I64, "offset=0"}, {I64, "dim1=-2"}, {I64, "dim2=-1"}}},
};

static PyObject *diag_embed_impl(PyObject *self, PyObject **a) {
    int64_t v[3] = {0, -2, -1};
    for (int i = 0; i < 3; i++)
        if (a[i] != NULL && ctp_int64_of_arg(a[i], &v[i]) < 0)
            return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_diag_embed(T(self), v[0], v[1], v[2], &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_diag_embed(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("diag_embed", diag_embed_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return diag_embed_impl(self, a);
}

static PyObject *py_diag_embed(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("diag_embed", diag_embed_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return diag_embed_impl(a[0], a + 1);
}

/* ---- resize_, resize_as_ ---------------------------------------------------------------- */

static const ctp_signature resize_sig[] = {
    {2, {{SYM, "size"}, {MF, "*memory_format=None"}}},
};
static const ctp_signature resize_as_sig[] = {
    {2, {{TEN, "the_template"}, {MF, "*memory_format=None"}}},
};

static PyObject *tensor_resize_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t v[CT_MAX_DIMS];
    if (ctp_parse_args("resize_", resize_sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ints("resize_", resize_sig, 0, a[0], v);
    if (n < 0)
        return NULL;
    ct_memory_format f = ctp_opt_memory_format(a[1], CT_MEMFMT_CONTIGUOUS);
    return self_or_raise(self, ct_tensor_resize_(T(self), v, n, a[1] != NULL ? &f : NULL));
}

static PyObject *tensor_resize_as_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("resize_as_", resize_as_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_memory_format f = ctp_opt_memory_format(a[1], CT_MEMFMT_CONTIGUOUS);
    return self_or_raise(self, ct_tensor_resize_as_(T(self), T(a[0]), a[1] != NULL ? &f : NULL));
}

/* ---- in-place view ops ------------------------------------------------------------------ */

static PyObject *tensor_t_(PyObject *self, PyObject *unused) {
    (void)unused;
    return self_or_raise(self, ct_tensor_t_(T(self)));
}

static const ctp_signature transpose_sig[] = {{2, {{I64, "dim0"}, {I64, "dim1"}}}};
static const ctp_signature swapaxes_sig[] = {{2, {{I64, "axis0"}, {I64, "axis1"}}}};

static PyObject *transpose_impl(const char *fname, const ctp_signature *sig, PyObject *self,
                                PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t d0, d1;
    if (ctp_parse_args(fname, sig, 1, args, kwargs, a) < 0 || ctp_int64_of_arg(a[0], &d0) < 0 ||
        ctp_int64_of_arg(a[1], &d1) < 0)
        return NULL;
    return self_or_raise(self, ct_tensor_transpose_(T(self), d0, d1));
}

static PyObject *tensor_transpose_(PyObject *self, PyObject *args, PyObject *kwargs) {
    return transpose_impl("transpose_", transpose_sig, self, args, kwargs);
}
static PyObject *tensor_swapdims_(PyObject *self, PyObject *args, PyObject *kwargs) {
    return transpose_impl("swapdims_", transpose_sig, self, args, kwargs);
}
static PyObject *tensor_swapaxes_(PyObject *self, PyObject *args, PyObject *kwargs) {
    return transpose_impl("swapaxes_", swapaxes_sig, self, args, kwargs);
}

static const ctp_signature squeeze_sigs[] = {{0, {{0}}}, {1, {{I64, "dim"}}}};
static const ctp_signature unsqueeze_sig[] = {{1, {{I64, "dim"}}}};

static PyObject *tensor_squeeze_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dim;
    int k = ctp_parse_args("squeeze_", squeeze_sigs, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    if (k == 0)
        return self_or_raise(self, ct_tensor_squeeze_(T(self)));
    if (ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    return self_or_raise(self, ct_tensor_squeeze_dim_(T(self), dim));
}

static PyObject *tensor_unsqueeze_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t dim;
    if (ctp_parse_args("unsqueeze_", unsqueeze_sig, 1, args, kwargs, a) < 0 ||
        ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    return self_or_raise(self, ct_tensor_unsqueeze_(T(self), dim));
}

static const ctp_signature as_strided_sig[] = {
    {3, {{SYM, "size"}, {SYM, "stride"}, {I64, "storage_offset=None"}}},
};

static PyObject *tensor_as_strided_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], offset;
    if (ctp_parse_args("as_strided_", as_strided_sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ints("as_strided_", as_strided_sig, 0, a[0], sizes);
    if (n < 0)
        return NULL;
    Py_ssize_t ns = ints("as_strided_", as_strided_sig, 1, a[1], strides);
    if (ns < 0 || (a[2] != NULL && ctp_int64_of_arg(a[2], &offset) < 0))
        return NULL;
    if (ns != n)
        return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
    return self_or_raise(
        self, ct_tensor_as_strided_(T(self), sizes, strides, n, a[2] != NULL ? &offset : NULL));
}

/* ---- tables ----------------------------------------------------------------------------- */

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }
#define METHOD(name, doc)                                                                          \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef reorder_functions[] = {
    FN(flip, "flip(input, dims) -> Tensor\n\nReverse the order along dims (a copy)."),
    FN(fliplr, "fliplr(input) -> Tensor"),
    FN(flipud, "flipud(input) -> Tensor"),
    FN(roll, "roll(input, shifts, dims=None) -> Tensor"),
    FN(tile, "tile(input, dims) -> Tensor"),
    FN(tril, "tril(input, diagonal=0, *, out=None) -> Tensor"),
    FN(triu, "triu(input, diagonal=0, *, out=None) -> Tensor"),
    FN(diagonal, "diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor\n\nA view."),
    FN(diag, "diag(input, diagonal=0, *, out=None) -> Tensor"),
    FN(diag_embed, "diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef reorder_methods[] = {
    METHOD(flip, "flip(dims) -> Tensor"),
    METHOD(fliplr, "fliplr() -> Tensor"),
    METHOD(flipud, "flipud() -> Tensor"),
    METHOD(roll, "roll(shifts, dims=None) -> Tensor"),
    METHOD(repeat, "repeat(*repeats) -> Tensor"),
    METHOD(tile, "tile(dims) -> Tensor"),
    METHOD(tril, "tril(diagonal=0) -> Tensor"),
    METHOD(triu, "triu(diagonal=0) -> Tensor"),
    METHOD(tril_, "tril_(diagonal=0) -> Tensor"),
    METHOD(triu_, "triu_(diagonal=0) -> Tensor"),
    METHOD(diagonal, "diagonal(offset=0, dim1=0, dim2=1) -> Tensor"),
    METHOD(diag, "diag(diagonal=0) -> Tensor"),
    METHOD(diag_embed, "diag_embed(offset=0, dim1=-2, dim2=-1) -> Tensor"),
    METHOD(unfold, "unfold(dimension, size, step) -> Tensor\n\nA view of every slice."),
    METHOD(resize_, "resize_(*sizes, memory_format=None) -> Tensor"),
    METHOD(resize_as_, "resize_as_(the_template, memory_format=None) -> Tensor"),
    {"t_", tensor_t_, METH_NOARGS, "t_() -> Tensor"},
    METHOD(transpose_, "transpose_(dim0, dim1) -> Tensor"),
    METHOD(swapaxes_, "swapaxes_(axis0, axis1) -> Tensor"),
    METHOD(swapdims_, "swapdims_(dim0, dim1) -> Tensor"),
    METHOD(squeeze_, "squeeze_(dim=None) -> Tensor"),
    METHOD(unsqueeze_, "unsqueeze_(dim) -> Tensor"),
    METHOD(as_strided_, "as_strided_(size, stride, storage_offset=None) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

int ctp_reorder_init(PyObject *module) {
    if (PyModule_AddFunctions(module, reorder_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(reorder_methods);
}
