/* Sorting and selection from Python (include/ctensor/sort.h), torch 1.13's signatures:
 *   sort(input, dim=-1, descending=False, *, stable=None, out=None) -> return_types.sort
 *   argsort(input, dim=-1, descending=False, *, stable=None)
 *   msort(input)
 *   topk(input, k, dim=-1, largest=True, sorted=True) -> return_types.topk
 *   kthvalue(input, k, dim=-1, keepdim=False) -> return_types.kthvalue
 *   unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)
 * and the Tensor methods of the same names. Each call is one C call; this layer decides
 * nothing. */
#include "ctensor/sort.h"
#include "ctensor/unique.h"
#include "ctensor_py.h"

#define TEN CTP_PARAM_TENSOR
#define I64 CTP_PARAM_INT64
#define BOO CTP_PARAM_BOOL
#define OBJ CTP_PARAM_OBJECT

/* ---- arguments ----------------------------------------------------------------------------- */

static int int_or(PyObject *a, int64_t dflt, int64_t *v) {
    if (a == NULL) {
        *v = dflt;
        return 0;
    }
    return ctp_int64_of_arg(a, v);
}

static int bool_or(PyObject *a, int dflt) { return a == NULL ? dflt : PyObject_IsTrue(a); }

/* ---- named tuples ------------------------------------------------------------------------ */

enum { RT_SORT, RT_TOPK, RT_KTH, RT_COUNT };
static PyTypeObject *return_types[RT_COUNT];

/* The named tuple type of `which` (made on first use), or NULL with an exception. */
static PyTypeObject *return_type(int which) {
    static PyStructSequence_Field fields[] = {
        {"values", "the values"}, {"indices", "their indices"}, {NULL, NULL}};
    static PyStructSequence_Desc descs[RT_COUNT] = {
        {"ctensor.return_types.sort", "(values, indices) of sort", fields, 2},
        {"ctensor.return_types.topk", "(values, indices) of topk", fields, 2},
        {"ctensor.return_types.kthvalue", "(values, indices) of kthvalue", fields, 2},
    };
    if (return_types[which] == NULL)
        return_types[which] = PyStructSequence_NewType(&descs[which]);
    return return_types[which];
}

/* A named tuple of two Python objects (references stolen). */
static PyObject *pair_of(int which, PyObject *pv, PyObject *pi) {
    PyTypeObject *type = return_type(which);
    PyObject *r = (type != NULL && pv != NULL && pi != NULL) ? PyStructSequence_New(type) : NULL;
    if (r == NULL) {
        Py_XDECREF(pv);
        Py_XDECREF(pi);
        return NULL;
    }
    PyStructSequence_SET_ITEM(r, 0, pv);
    PyStructSequence_SET_ITEM(r, 1, pi);
    return r;
}

/* A named tuple of two new tensors (references stolen). */
static PyObject *pair(int which, ct_tensor *v, ct_tensor *ix) {
    PyObject *pv = ctp_tensor_wrap(v);
    return pair_of(which, pv, ctp_tensor_wrap(ix));
}
/* out=(values, indices): a tuple or list of two tensors, else PyTorch's TypeError. */
static int out_pair(const char *fname, PyObject *out, ct_tensor **ov, ct_tensor **oi) {
    if ((!PyTuple_Check(out) && !PyList_Check(out)) || PySequence_Size(out) != 2 ||
        !ctp_is_tensor(PySequence_Fast_GET_ITEM(out, 0)) ||
        !ctp_is_tensor(PySequence_Fast_GET_ITEM(out, 1))) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be tuple of Tensors, not %s",
                     fname, Py_TYPE(out)->tp_name);
        return -1;
    }
    *ov = ctp_tensor_get(PySequence_Fast_GET_ITEM(out, 0));
    *oi = ctp_tensor_get(PySequence_Fast_GET_ITEM(out, 1));
    return 0;
}

/* ---- sort / argsort / msort ------------------------------------------------------------------ */

static const ctp_signature f_sort_sigs[] = {
    {5, {{TEN, "input"}, {I64, "dim=-1"}, {BOO, "descending=False"}, {BOO, "*stable=None"},
         {OBJ, "out=None"}}},
};
static const ctp_signature m_sort_sigs[] = {
    {3, {{I64, "dim=-1"}, {BOO, "descending=False"}, {BOO, "*stable=None"}}},
};

static PyObject *sort_call(int method, int arg, PyObject *self, PyObject *args,
                           PyObject *kwargs) {
    const char *name = arg ? "argsort" : "sort";
    const ctp_signature *sigs = method ? m_sort_sigs : f_sort_sigs;
    PyObject *parsed[CTP_MAX_PARAMS];
    if (ctp_parse_args(name, sigs, 1, args, kwargs, parsed) < 0)
        return NULL;
    const ctp_signature *sig = sigs;
    PyObject *input = method ? self : ctp_arg(sig, parsed, "input");
    PyObject *out = arg ? NULL : ctp_arg(sig, parsed, "out");
    int64_t dim;
    if (int_or(ctp_arg(sig, parsed, "dim"), -1, &dim) < 0)
        return NULL;
    int desc = bool_or(ctp_arg(sig, parsed, "descending"), 0);
    int stable = bool_or(ctp_arg(sig, parsed, "stable"), 0);
    if (desc < 0 || stable < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(input);
    ct_tensor *v = NULL, *ix = NULL;
    if (arg) {
        ct_status st = ct_argsort(t, dim, desc != 0, stable != 0, &ix);
        return st == CT_OK ? ctp_tensor_wrap(ix) : ctp_raise_status(st);
    }
    ct_tensor *ov = NULL, *oi = NULL;
    if (out != NULL && out_pair("sort", out, &ov, &oi) < 0)
        return NULL;
    ct_status st = ct_sort(t, dim, desc != 0, stable != 0, ov, oi, &v, &ix);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (out != NULL) { /* the out tensors' own Python objects */
        ct_tensor_release(v);
        ct_tensor_release(ix);
        return pair_of(RT_SORT, Py_NewRef(PySequence_Fast_GET_ITEM(out, 0)),
                       Py_NewRef(PySequence_Fast_GET_ITEM(out, 1)));
    }
    return pair(RT_SORT, v, ix);
}

static const ctp_signature f_msort_sigs[] = {{1, {{TEN, "input"}}}};
static const ctp_signature m_msort_sigs[] = {{0, {{0}}}};

static PyObject *msort_call(int method, PyObject *self, PyObject *args, PyObject *kwargs) {
    const ctp_signature *sigs = method ? m_msort_sigs : f_msort_sigs;
    PyObject *parsed[CTP_MAX_PARAMS];
    if (ctp_parse_args("msort", sigs, 1, args, kwargs, parsed) < 0)
        return NULL;
    PyObject *input = method ? self : ctp_arg(sigs, parsed, "input");
    ct_tensor *v = NULL;
    ct_status st = ct_msort(ctp_tensor_get(input), &v);
    return st == CT_OK ? ctp_tensor_wrap(v) : ctp_raise_status(st);
}

/* ---- topk / kthvalue ------------------------------------------------------------------------ */

static const ctp_signature f_topk_sigs[] = {
    {6, {{TEN, "input"}, {I64, "k"}, {I64, "dim=-1"}, {BOO, "largest=True"},
         {BOO, "sorted=True"}, {OBJ, "*out=None"}}},
};
static const ctp_signature m_topk_sigs[] = {
    {4, {{I64, "k"}, {I64, "dim=-1"}, {BOO, "largest=True"}, {BOO, "sorted=True"}}},
};
static const ctp_signature f_kth_sigs[] = {
    {5, {{TEN, "input"}, {I64, "k"}, {I64, "dim=-1"}, {BOO, "keepdim=False"}, {OBJ, "*out=None"}}},
};
static const ctp_signature m_kth_sigs[] = {
    {3, {{I64, "k"}, {I64, "dim=-1"}, {BOO, "keepdim=False"}}},
};

static PyObject *select_call(int method, int kth, PyObject *self, PyObject *args,
                             PyObject *kwargs) {
    const ctp_signature *sigs =
        kth ? (method ? m_kth_sigs : f_kth_sigs) : (method ? m_topk_sigs : f_topk_sigs);
    PyObject *parsed[CTP_MAX_PARAMS];
    if (ctp_parse_args(kth ? "kthvalue" : "topk", sigs, 1, args, kwargs, parsed) < 0)
        return NULL;
    PyObject *input = method ? self : ctp_arg(sigs, parsed, "input");
    PyObject *out = method ? NULL : ctp_arg(sigs, parsed, "out");
    ct_tensor *ov = NULL, *oi = NULL;
    if (out != NULL && out_pair(kth ? "kthvalue" : "topk", out, &ov, &oi) < 0)
        return NULL;
    int64_t k, dim;
    if (int_or(ctp_arg(sigs, parsed, "k"), 0, &k) < 0 ||
        int_or(ctp_arg(sigs, parsed, "dim"), -1, &dim) < 0)
        return NULL;
    ct_tensor *v = NULL, *ix = NULL;
    ct_status st;
    if (kth) {
        int keep = bool_or(ctp_arg(sigs, parsed, "keepdim"), 0);
        if (keep < 0)
            return NULL;
        st = out != NULL ? ct_kthvalue_out(ctp_tensor_get(input), k, dim, keep != 0, ov, oi)
                         : ct_kthvalue(ctp_tensor_get(input), k, dim, keep != 0, &v, &ix);
    } else {
        int largest = bool_or(ctp_arg(sigs, parsed, "largest"), 1);
        int sorted = bool_or(ctp_arg(sigs, parsed, "sorted"), 1);
        if (largest < 0 || sorted < 0)
            return NULL;
        st = out != NULL
                 ? ct_topk_out(ctp_tensor_get(input), k, dim, largest != 0, sorted != 0, ov, oi)
                 : ct_topk(ctp_tensor_get(input), k, dim, largest != 0, sorted != 0, &v, &ix);
    }
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (out != NULL) /* the out tensors' own Python objects */
        return pair_of(kth ? RT_KTH : RT_TOPK, Py_NewRef(PySequence_Fast_GET_ITEM(out, 0)),
                       Py_NewRef(PySequence_Fast_GET_ITEM(out, 1)));
    return pair(kth ? RT_KTH : RT_TOPK, v, ix);
}

/* ---- unique ------------------------------------------------------------------------------------ */

static const ctp_signature f_unique_sigs[] = {
    {5, {{TEN, "input"}, {BOO, "sorted=True"}, {BOO, "return_inverse=False"},
         {BOO, "return_counts=False"}, {I64, "dim=None"}}},
};
static const ctp_signature m_unique_sigs[] = {
    {4, {{BOO, "sorted=True"}, {BOO, "return_inverse=False"}, {BOO, "return_counts=False"},
         {I64, "dim=None"}}},
};

static PyObject *unique_call(int method, PyObject *self, PyObject *args, PyObject *kwargs) {
    const ctp_signature *sigs = method ? m_unique_sigs : f_unique_sigs;
    PyObject *parsed[CTP_MAX_PARAMS];
    if (ctp_parse_args("unique", sigs, 1, args, kwargs, parsed) < 0)
        return NULL;
    PyObject *input = method ? self : ctp_arg(sigs, parsed, "input");
    PyObject *dim_obj = ctp_arg(sigs, parsed, "dim");
    int64_t dim = 0;
    if (dim_obj != NULL && ctp_int64_of_arg(dim_obj, &dim) < 0)
        return NULL;
    int sorted = bool_or(ctp_arg(sigs, parsed, "sorted"), 1);
    int rinv = bool_or(ctp_arg(sigs, parsed, "return_inverse"), 0);
    int rcnt = bool_or(ctp_arg(sigs, parsed, "return_counts"), 0);
    if (sorted < 0 || rinv < 0 || rcnt < 0)
        return NULL;
    ct_tensor *o = NULL, *inv = NULL, *cnt = NULL;
    ct_status st = dim_obj != NULL /* unique.h: slices along dim, always sorted */
                       ? ct_unique_dim(ctp_tensor_get(input), dim, false, &o, rinv ? &inv : NULL,
                                       rcnt ? &cnt : NULL)
                       : ct_unique(ctp_tensor_get(input), sorted != 0, &o, rinv ? &inv : NULL,
                                   rcnt ? &cnt : NULL);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (!rinv && !rcnt)
        return ctp_tensor_wrap(o);
    PyObject *po = ctp_tensor_wrap(o);
    PyObject *pi = rinv ? ctp_tensor_wrap(inv) : NULL;
    PyObject *pc = rcnt ? ctp_tensor_wrap(cnt) : NULL;
    PyObject *r = NULL;
    if (po != NULL && (!rinv || pi != NULL) && (!rcnt || pc != NULL))
        r = rinv && rcnt ? PyTuple_Pack(3, po, pi, pc) : PyTuple_Pack(2, po, rinv ? pi : pc);
    Py_XDECREF(po);
    Py_XDECREF(pi);
    Py_XDECREF(pc);
    return r;
}

/* ---- tables -------------------------------------------------------------------------------------- */

#define SORT_FUNCTION(cname, body)                                                                 \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        (void)self;                                                                                \
        return body;                                                                               \
    }
SORT_FUNCTION(f_sort, sort_call(0, 0, NULL, args, kwargs))
SORT_FUNCTION(m_sort, sort_call(1, 0, self, args, kwargs))
SORT_FUNCTION(f_argsort, sort_call(0, 1, NULL, args, kwargs))
SORT_FUNCTION(m_argsort, sort_call(1, 1, self, args, kwargs))
SORT_FUNCTION(f_msort, msort_call(0, NULL, args, kwargs))
SORT_FUNCTION(m_msort, msort_call(1, self, args, kwargs))
SORT_FUNCTION(f_topk, select_call(0, 0, NULL, args, kwargs))
SORT_FUNCTION(m_topk, select_call(1, 0, self, args, kwargs))
SORT_FUNCTION(f_kthvalue, select_call(0, 1, NULL, args, kwargs))
SORT_FUNCTION(m_kthvalue, select_call(1, 1, self, args, kwargs))
SORT_FUNCTION(f_unique, unique_call(0, NULL, args, kwargs))
SORT_FUNCTION(m_unique, unique_call(1, self, args, kwargs))

#define KW METH_VARARGS | METH_KEYWORDS
static PyMethodDef sort_functions[] = {
    {"sort", CTP_KW_FUNC(f_sort), KW,
     "sort(input, dim=-1, descending=False, *, stable=None, out=None) -> (values, indices)"},
    {"argsort", CTP_KW_FUNC(f_argsort), KW,
     "argsort(input, dim=-1, descending=False, *, stable=None)"},
    {"msort", CTP_KW_FUNC(f_msort), KW, "msort(input)"},
    {"topk", CTP_KW_FUNC(f_topk), KW,
     "topk(input, k, dim=-1, largest=True, sorted=True, *, out=None) -> (values, indices)"},
    {"kthvalue", CTP_KW_FUNC(f_kthvalue), KW,
     "kthvalue(input, k, dim=-1, keepdim=False, *, out=None) -> (values, indices)"},
    {"unique", CTP_KW_FUNC(f_unique), KW,
     "unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)"},
    {NULL, NULL, 0, NULL},
};
static PyMethodDef sort_methods[] = {
    {"sort", CTP_KW_FUNC(m_sort), KW, "sort(dim=-1, descending=False, *, stable=None)"},
    {"argsort", CTP_KW_FUNC(m_argsort), KW, "argsort(dim=-1, descending=False, *, stable=None)"},
    {"msort", CTP_KW_FUNC(m_msort), KW, "msort()"},
    {"topk", CTP_KW_FUNC(m_topk), KW, "topk(k, dim=-1, largest=True, sorted=True)"},
    {"kthvalue", CTP_KW_FUNC(m_kthvalue), KW, "kthvalue(k, dim=-1, keepdim=False)"},
    {"unique", CTP_KW_FUNC(m_unique), KW,
     "unique(sorted=True, return_inverse=False, return_counts=False, dim=None)"},
    {NULL, NULL, 0, NULL},
};

int ctp_sort_init(PyObject *module) {
    if (PyModule_AddFunctions(module, sort_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(sort_methods);
}
