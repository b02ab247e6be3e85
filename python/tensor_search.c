/* torch.searchsorted and torch.bucketize (torch 1.13 has no Tensor methods for them), and
 * torch.unique_consecutive / Tensor.unique_consecutive (ctensor/unique.h):
 * argument parsing only; ctensor/search.h owns the semantics and messages. A Number value is
 * a wrapped number, as torch's Scalar overloads make it a tensor. */
#include "ctensor_py.h"
#include "ctensor/search.h"
#include "ctensor/unique.h"

#define TEN CTP_PARAM_TENSOR
#define BOO CTP_PARAM_BOOL
#define NUM CTP_PARAM_NUMBER
#define STR CTP_PARAM_STRING

static const ctp_signature searchsorted_sig[] = {
    {7, {{TEN, "sorted_sequence"}, {TEN, "input"}, {BOO, "*out_int32=False"}, {BOO, "right=False"},
         {STR, "side=None"}, {TEN, "sorter=None"}, {TEN, "out=None"}}},
    {6, {{TEN, "sorted_sequence"}, {NUM, "self"}, {BOO, "*out_int32=False"}, {BOO, "right=False"},
         {STR, "side=None"}, {TEN, "sorter=None"}}},
};
static const ctp_signature bucketize_sig[] = {
    {5, {{TEN, "input"}, {TEN, "boundaries"}, {BOO, "*out_int32=False"}, {BOO, "right=False"},
         {TEN, "out=None"}}},
    {4, {{NUM, "self"}, {TEN, "boundaries"}, {BOO, "*out_int32=False"}, {BOO, "right=False"}}},
};

/* The values: a Tensor argument, or a Number as a wrapped number (*owned). */
static const ct_tensor *values_of(const ctp_signature *sig, PyObject **a, ct_tensor **owned) {
    PyObject *v = ctp_arg(sig, a, "input");
    if (v != NULL)
        return ctp_tensor_get(v);
    ct_scalar s;
    if (ctp_scalar_of_arg(ctp_arg(sig, a, "self"), &s) < 0)
        return NULL;
    ct_status st = ct_tensor_wrapped_number(s, owned);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return NULL;
    }
    return *owned;
}

static PyObject *finish(ct_status st, ct_tensor *r, ct_tensor *owned, PyObject *out) {
    ct_tensor_release(owned);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (out != NULL) {
        ct_tensor_release(r);
        return Py_NewRef(out);
    }
    return ctp_tensor_wrap(r);
}

static PyObject *py_searchsorted(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("searchsorted", searchsorted_sig, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &searchsorted_sig[k];
    ct_tensor *owned = NULL, *r = NULL;
    const ct_tensor *v = values_of(sig, a, &owned);
    if (v == NULL)
        return NULL;
    PyObject *side = ctp_arg(sig, a, "side"), *sorter = ctp_arg(sig, a, "sorter");
    PyObject *out = ctp_arg(sig, a, "out");
    const char *side_s = NULL;
    if (side != NULL && (side_s = PyBytes_Check(side) ? PyBytes_AsString(side)
                                                      : PyUnicode_AsUTF8(side)) == NULL) {
        ct_tensor_release(owned);
        return NULL;
    }
    ct_status st = ct_searchsorted(ctp_tensor_get(a[0]), v, ctp_arg(sig, a, "out_int32") == Py_True,
                                   ctp_arg(sig, a, "right") == Py_True, side_s,
                                   sorter != NULL ? ctp_tensor_get(sorter) : NULL,
                                   out != NULL ? ctp_tensor_get(out) : NULL, &r);
    return finish(st, r, owned, out);
}

static PyObject *py_bucketize(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args("bucketize", bucketize_sig, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &bucketize_sig[k];
    ct_tensor *owned = NULL, *r = NULL;
    const ct_tensor *v = values_of(sig, a, &owned);
    if (v == NULL)
        return NULL;
    PyObject *out = ctp_arg(sig, a, "out");
    ct_status st = ct_bucketize(v, ctp_tensor_get(ctp_arg(sig, a, "boundaries")),
                                ctp_arg(sig, a, "out_int32") == Py_True,
                                ctp_arg(sig, a, "right") == Py_True,
                                out != NULL ? ctp_tensor_get(out) : NULL, &r);
    return finish(st, r, owned, out);
}

/* ---- unique_consecutive (torch's Python function and Tensor method) ---- */

static const ctp_signature f_uc_sig[] = {{4, {{TEN, "input"}, {BOO, "return_inverse=False"},
                                               {BOO, "return_counts=False"}, {CTP_PARAM_INT64, "dim=None"}}}};
static const ctp_signature m_uc_sig[] = {{3, {{BOO, "return_inverse=False"},
                                               {BOO, "return_counts=False"}, {CTP_PARAM_INT64, "dim=None"}}}};

static PyObject *uc_call(PyObject *self, const ctp_signature *sig, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("unique_consecutive", sig, 1, args, kwargs, a) < 0)
        return NULL;
    PyObject *in = self != NULL ? self : ctp_arg(sig, a, "input"), *dobj = ctp_arg(sig, a, "dim");
    bool rinv = ctp_arg(sig, a, "return_inverse") == Py_True;
    bool rcnt = ctp_arg(sig, a, "return_counts") == Py_True;
    int64_t dim = 0;
    if (dobj != NULL && ctp_int64_of_arg(dobj, &dim) < 0)
        return NULL;
    ct_tensor *o = NULL, *inv = NULL, *cnt = NULL;
    ct_status st = dobj != NULL ? ct_unique_dim(ctp_tensor_get(in), dim, true, &o, &inv, &cnt)
                                : ct_unique_consecutive(ctp_tensor_get(in), &o, &inv, &cnt);
    if (st != CT_OK)
        return ctp_raise_status(st);
    PyObject *po = ctp_tensor_wrap(o), *pi = ctp_tensor_wrap(inv), *pc = ctp_tensor_wrap(cnt);
    PyObject *r = NULL;
    if (po != NULL && pi != NULL && pc != NULL) {
        if (!rinv && !rcnt)
            r = Py_NewRef(po);
        else if (rinv && rcnt)
            r = PyTuple_Pack(3, po, pi, pc);
        else
            r = PyTuple_Pack(2, po, rinv ? pi : pc);
    }
    Py_XDECREF(po);
    Py_XDECREF(pi);
    Py_XDECREF(pc);
    return r;
}

static PyObject *py_unique_consecutive(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return uc_call(NULL, f_uc_sig, args, kwargs);
}
static PyObject *tensor_unique_consecutive(PyObject *self, PyObject *args, PyObject *kwargs) {
    return uc_call(self, m_uc_sig, args, kwargs);
}

static PyMethodDef search_methods[] = {
    {"unique_consecutive", CTP_KW_FUNC(tensor_unique_consecutive), METH_VARARGS | METH_KEYWORDS,
     "unique_consecutive(return_inverse=False, return_counts=False, dim=None)"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef search_functions[] = {
    {"unique_consecutive", CTP_KW_FUNC(py_unique_consecutive), METH_VARARGS | METH_KEYWORDS,
     "unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)"},
    {"searchsorted", CTP_KW_FUNC(py_searchsorted), METH_VARARGS | METH_KEYWORDS,
     "searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, "
     "sorter=None, out=None) -> Tensor"},
    {"bucketize", CTP_KW_FUNC(py_bucketize), METH_VARARGS | METH_KEYWORDS,
     "bucketize(input, boundaries, *, out_int32=False, right=False, out=None) -> Tensor"},
    {NULL, NULL, 0, NULL},
};

int ctp_search_init(PyObject *module) {
    if (PyModule_AddFunctions(module, search_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(search_methods);
}
