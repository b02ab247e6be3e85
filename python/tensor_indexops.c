/* index_select, nonzero (as_tuple=), masked_select, take and index_put(_) as torch functions and Tensor
 * methods: argument parsing only; ctensor/index.h owns the semantics and messages. */
#include "ctensor_py.h"
#include "ctensor/index.h"

#define TEN CTP_PARAM_TENSOR
#define I64 CTP_PARAM_INT64
#define BOO CTP_PARAM_BOOL

static const ctp_signature index_select_fn_sig[] = {
    {4, {{TEN, "input"}, {I64, "dim"}, {TEN, "index"}, {TEN, "*out=None"}}}};
static const ctp_signature index_select_sig[] = {{2, {{I64, "dim"}, {TEN, "index"}}}};
static const ctp_signature nonzero_fn_sig[] = {
    {3, {{TEN, "input"}, {TEN, "*out=None"}, {BOO, "as_tuple=False"}}}};
static const ctp_signature nonzero_sig[] = {{1, {{BOO, "*as_tuple=False"}}}};
static const ctp_signature masked_select_fn_sig[] = {
    {3, {{TEN, "input"}, {TEN, "mask"}, {TEN, "*out=None"}}}};
static const ctp_signature masked_select_sig[] = {{1, {{TEN, "mask"}}}};

/* The out= forms: out itself, or the error. */
static PyObject *out_result(ct_status st, PyObject *out) {
    return st == CT_OK ? Py_NewRef(out) : ctp_raise_status(st);
}

static PyObject *index_select_impl(PyObject *self, PyObject *dim, PyObject *index,
                                   PyObject *out) {
    int64_t d;
    if (ctp_int64_of_arg(dim, &d) < 0)
        return NULL;
    if (out != NULL)
        return out_result(ct_tensor_index_select_out(ctp_tensor_get(self), d,
                                                     ctp_tensor_get(index), ctp_tensor_get(out)),
                          out);
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_index_select(ctp_tensor_get(self), d, ctp_tensor_get(index), &r);
    return ctp_tensor_result(NULL, st, r);
}

/* nonzero(as_tuple=True) is the tuple of the result's columns, as PyTorch's. */
static PyObject *nonzero_impl(PyObject *self, PyObject *as_tuple) {
    ct_tensor *r = NULL, *t = ctp_tensor_get(self);
    ct_status st = ct_tensor_nonzero(t, &r);
    if (as_tuple == NULL || as_tuple != Py_True)
        return ctp_tensor_result(NULL, st, r);
    if (st != CT_OK)
        return ctp_raise_status(st);
    /* a 0-dim input has one column, as PyTorch (its nonzero is treated as 1-D) */
    int64_t cols = ct_tensor_dim(t) == 0 ? 1 : ct_tensor_dim(t);
    PyObject *tuple = PyTuple_New((Py_ssize_t)cols);
    for (int64_t j = 0; tuple != NULL && j < cols; j++) {
        ct_tensor *c = NULL, *c1 = NULL;
        int64_t len = ct_tensor_sizes(r)[0];
        st = ct_tensor_dim(t) == 0 ? ct_tensor_zeros(&len, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, &c1)
                                   : ct_tensor_select(r, 1, j, &c);
        if (st == CT_OK && c1 == NULL)
            st = ct_tensor_contiguous(c, CT_MEMFMT_CONTIGUOUS, &c1);
        ct_tensor_release(c);
        PyObject *item = ctp_tensor_result(NULL, st, c1);
        if (item == NULL)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, (Py_ssize_t)j, item);
    }
    ct_tensor_release(r);
    return tuple;
}

PyObject *ctp_nonzero_tuple(PyObject *t) { return nonzero_impl(t, Py_True); }

/* torch.nonzero(input, *, as_tuple=False, out=None) */
static PyObject *nonzero_fn_impl(PyObject *input, PyObject *as_tuple, PyObject *out) {
    if (out == NULL)
        return nonzero_impl(input, as_tuple);
    if (as_tuple == Py_True)
        return PyErr_Format(PyExc_RuntimeError,
                            "nonzero does not support the out kwarg when as_tuple is True");
    return out_result(ct_tensor_nonzero_out(ctp_tensor_get(input), ctp_tensor_get(out)), out);
}

static PyObject *masked_select_impl(PyObject *self, PyObject *mask, PyObject *out) {
    if (out != NULL)
        return out_result(ct_tensor_masked_select_out(ctp_tensor_get(self), ctp_tensor_get(mask),
                                                      ctp_tensor_get(out)),
                          out);
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_masked_select(ctp_tensor_get(self), ctp_tensor_get(mask), &r);
    return ctp_tensor_result(NULL, st, r);
}

#define PAIR(name, CALL_M, CALL_F)                                                                 \
    static PyObject *tensor_##name(PyObject *self, PyObject *args, PyObject *kwargs) {             \
        PyObject *a[CTP_MAX_PARAMS];                                                               \
        if (ctp_parse_args(#name, name##_sig, 1, args, kwargs, a) < 0)                             \
            return NULL;                                                                           \
        return CALL_M;                                                                             \
    }                                                                                              \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                    \
        (void)m;                                                                                   \
        PyObject *a[CTP_MAX_PARAMS];                                                               \
        if (ctp_parse_args(#name, name##_fn_sig, 1, args, kwargs, a) < 0)                          \
            return NULL;                                                                           \
        return CALL_F;                                                                             \
    }

PAIR(index_select, index_select_impl(self, a[0], a[1], NULL),
     index_select_impl(a[0], a[1], a[2], a[3]))
PAIR(nonzero, nonzero_impl(self, a[0]), nonzero_fn_impl(a[0], a[2], a[1]))
PAIR(masked_select, masked_select_impl(self, a[0], NULL), masked_select_impl(a[0], a[1], a[2]))

static const ctp_signature take_fn_sig[] = {
    {3, {{TEN, "input"}, {TEN, "index"}, {TEN, "*out=None"}}}};
static const ctp_signature take_sig[] = {{1, {{TEN, "index"}}}};

static PyObject *take_impl(PyObject *self, PyObject *index, PyObject *out) {
    if (out != NULL)
        return out_result(ct_tensor_take_out(ctp_tensor_get(self), ctp_tensor_get(index),
                                             ctp_tensor_get(out)),
                          out);
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_take(ctp_tensor_get(self), ctp_tensor_get(index), &r);
    return ctp_tensor_result(NULL, st, r);
}

PAIR(take, take_impl(self, a[0], NULL), take_impl(a[0], a[1], a[2]))

/* index_put_(indices, values, accumulate=False): indices a tuple or list of tensors (None
 * refused, as PyTorch's parser does). `inplace` 0 works on a clone (torch.index_put). */
static PyObject *index_put_impl(PyObject *self, PyObject *indices, PyObject *values,
                                PyObject *accumulate, int inplace) {
    if (!PyTuple_Check(indices) && !PyList_Check(indices))
        return PyErr_Format(PyExc_TypeError,
                            "index_put_(): argument 'indices' must be tuple of Tensors, not %s",
                            Py_TYPE(indices)->tp_name);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(indices);
    if (n > CT_MAX_DIMS)
        return PyErr_Format(PyExc_IndexError, "too many indices");
    const ct_tensor *list[CT_MAX_DIMS];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PySequence_Fast_GET_ITEM(indices, i);
        list[i] = ctp_tensor_get(obj);
        if (list[i] == NULL)
            return PyErr_Format(PyExc_TypeError,
                                "expected Tensor as element %d in argument 0, but got %s", (int)i,
                                Py_TYPE(obj)->tp_name);
    }
    ct_tensor *dst = NULL;
    ct_status st = inplace ? (dst = ct_tensor_retain(ctp_tensor_get(self)), CT_OK)
                           : ct_tensor_clone(ctp_tensor_get(self), CT_MEMFMT_PRESERVE, &dst);
    if (st == CT_OK)
        st = ct_tensor_index_put_(dst, list, (size_t)n, ctp_tensor_get(values),
                                  accumulate == Py_True);
    if (st != CT_OK) {
        ct_tensor_release(dst);
        return ctp_raise_status(st);
    }
    if (inplace) {
        ct_tensor_release(dst);
        return Py_NewRef(self);
    }
    return ctp_tensor_wrap(dst);
}

static const ctp_signature index_put__sig[] = {
    {3, {{CTP_PARAM_OBJECT, "indices"}, {TEN, "values"}, {BOO, "accumulate=False"}}}};
static const ctp_signature index_put__fn_sig[] = {
    {4, {{TEN, "input"}, {CTP_PARAM_OBJECT, "indices"}, {TEN, "values"},
         {BOO, "accumulate=False"}}}};
#define index_put_sig index_put__sig
#define index_put_fn_sig index_put__fn_sig

PAIR(index_put_, index_put_impl(self, a[0], a[1], a[2], 1),
     index_put_impl(a[0], a[1], a[2], a[3], 1))
PAIR(index_put, index_put_impl(self, a[0], a[1], a[2], 0),
     index_put_impl(a[0], a[1], a[2], a[3], 0))

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }
#define METHOD(name, doc)                                                                          \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef indexops_functions[] = {
    FN(index_select, "index_select(input, dim, index, *, out=None) -> Tensor"),
    FN(nonzero, "nonzero(input, *, out=None, as_tuple=False) -> Tensor or tuple of Tensors"),
    FN(masked_select, "masked_select(input, mask, *, out=None) -> Tensor"),
    FN(take, "take(input, index, *, out=None) -> Tensor"),
    FN(index_put_, "index_put_(input, indices, values, accumulate=False) -> Tensor"),
    FN(index_put, "index_put(input, indices, values, accumulate=False) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef indexops_methods[] = {
    METHOD(index_select, "index_select(dim, index) -> Tensor"),
    METHOD(nonzero, "nonzero(*, as_tuple=False) -> Tensor or tuple of Tensors"),
    METHOD(masked_select, "masked_select(mask) -> Tensor"),
    METHOD(take, "take(index) -> Tensor"),
    METHOD(index_put_, "index_put_(indices, values, accumulate=False) -> Tensor"),
    METHOD(index_put, "index_put(indices, values, accumulate=False) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

int ctp_indexops_init(PyObject *module) {
    if (PyModule_AddFunctions(module, indexops_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(indexops_methods);
}
