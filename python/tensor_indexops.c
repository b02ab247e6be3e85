/* index_select, nonzero (as_tuple=) and masked_select as torch functions and Tensor
 * methods: argument parsing only; ctensor/index.h owns the semantics and messages. */
#include "ctensor_py.h"
#include "ctensor/index.h"

#define TEN CTP_PARAM_TENSOR
#define I64 CTP_PARAM_INT64
#define BOO CTP_PARAM_BOOL

static const ctp_signature index_select_fn_sig[] = {
    {3, {{TEN, "input"}, {I64, "dim"}, {TEN, "index"}}}};
static const ctp_signature index_select_sig[] = {{2, {{I64, "dim"}, {TEN, "index"}}}};
static const ctp_signature nonzero_fn_sig[] = {{2, {{TEN, "input"}, {BOO, "*as_tuple=False"}}}};
static const ctp_signature nonzero_sig[] = {{1, {{BOO, "*as_tuple=False"}}}};
static const ctp_signature masked_select_fn_sig[] = {{2, {{TEN, "input"}, {TEN, "mask"}}}};
static const ctp_signature masked_select_sig[] = {{1, {{TEN, "mask"}}}};

static PyObject *index_select_impl(PyObject *self, PyObject *dim, PyObject *index) {
    int64_t d;
    if (ctp_int64_of_arg(dim, &d) < 0)
        return NULL;
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

static PyObject *masked_select_impl(PyObject *self, PyObject *mask) {
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

PAIR(index_select, index_select_impl(self, a[0], a[1]), index_select_impl(a[0], a[1], a[2]))
PAIR(nonzero, nonzero_impl(self, a[0]), nonzero_impl(a[0], a[1]))
PAIR(masked_select, masked_select_impl(self, a[0]), masked_select_impl(a[0], a[1]))

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }
#define METHOD(name, doc)                                                                          \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef indexops_functions[] = {
    FN(index_select, "index_select(input, dim, index) -> Tensor"),
    FN(nonzero, "nonzero(input, *, as_tuple=False) -> Tensor or tuple of Tensors"),
    FN(masked_select, "masked_select(input, mask) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef indexops_methods[] = {
    METHOD(index_select, "index_select(dim, index) -> Tensor"),
    METHOD(nonzero, "nonzero(*, as_tuple=False) -> Tensor or tuple of Tensors"),
    METHOD(masked_select, "masked_select(mask) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

int ctp_indexops_init(PyObject *module) {
    if (PyModule_AddFunctions(module, indexops_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(indexops_methods);
}
