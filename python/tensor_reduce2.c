/* More reductions from Python (include/ctensor/reduce.h, "more reductions"), torch 1.13's
 * signatures:
 *   var(input, dim, *, correction=None, keepdim=False, out=None)
 *   var(input, dim, unbiased=True, keepdim=False, *, out=None)    var(input, unbiased=True)
 *   std: as var; var_mean / std_mean: as var without out=, returning (var, mean)
 *   norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)   (torch.functional)
 *   aminmax(input, *, dim=None, keepdim=False, out=None) -> return_types.aminmax(min, max)
 *   cumsum(input, dim, *, dtype=None, out=None)   cumprod: as cumsum;  Tensor.cumsum_(dim, *,
 * dtype) nansum, nanmean, count_nonzero and logsumexp are ct_reduce ops (tensor_reduce.c). A `dim`
 * of int-list kind also takes one int (PyTorch's int[1]). Each call is one C call; this layer
 * decides nothing. */
#include <math.h>
#include <string.h>

#include "ctensor/reduce.h"
#include "ctensor_py.h"
#include "tensor_reduce2.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* the global path of cumsum / cumprod */
#endif

#define TEN CTP_PARAM_TENSOR
#define DTY CTP_PARAM_DTYPE
#define ILS CTP_PARAM_INT_LIST
#define I64 CTP_PARAM_INT64
#define BOO CTP_PARAM_BOOL
#define OBJ CTP_PARAM_OBJECT
#define NAM CTP_PARAM_NAME
#define NLS CTP_PARAM_NAME_LIST

/* One int given for the int-list `dim` (positional at dim_pos, or as a keyword) as a 1-tuple:
 * new references in *a2 / *k2, or -1. */
static int wrap_int_dim(PyObject *args, PyObject *kwargs, Py_ssize_t dim_pos, PyObject **a2,
                        PyObject **k2) {
    *a2 = NULL;
    *k2 = NULL;
    if (PyTuple_GET_SIZE(args) > dim_pos && ctp_is_int_arg(PyTuple_GET_ITEM(args, dim_pos))) {
        Py_ssize_t n = PyTuple_GET_SIZE(args);
        PyObject *a = PyTuple_New(n);
        PyObject *one = a != NULL ? PyTuple_Pack(1, PyTuple_GET_ITEM(args, dim_pos)) : NULL;
        if (one == NULL) {
            Py_XDECREF(a);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            PyTuple_SET_ITEM(a, i, i == dim_pos ? one : Py_NewRef(PyTuple_GET_ITEM(args, i)));
        *a2 = a;
    } else {
        *a2 = Py_NewRef(args);
    }
    if (kwargs != NULL) {
        *k2 = PyDict_Copy(kwargs);
        if (*k2 == NULL)
            goto fail;
        PyObject *v = PyDict_GetItemString(*k2, "dim");
        if (v != NULL && ctp_is_int_arg(v)) {
            PyObject *one = PyTuple_Pack(1, v);
            if (one == NULL || PyDict_SetItemString(*k2, "dim", one) < 0) {
                Py_XDECREF(one);
                goto fail;
            }
            Py_DECREF(one);
        }
    }
    return 0;
fail:
    Py_CLEAR(*a2);
    Py_CLEAR(*k2);
    return -1;
}

/* The dims of a parsed int-list argument (NULL: None): *dims_ptr NULL for None. */
static int dims_of(const char *fname, const ctp_signature *sig, PyObject *dim, int64_t *dims,
                   int64_t *ndims, const int64_t **dims_ptr) {
    *ndims = 0;
    *dims_ptr = NULL;
    if (dim == NULL)
        return 0;
    Py_ssize_t n = ctp_int_list_of_arg(fname, ctp_param_named(sig, "dim"), dim, dims);
    if (n < 0)
        return -1;
    *ndims = n;
    *dims_ptr = dims;
    return 0;
}

/* A dimension-name argument (no ctensor tensor has names): 1 with the error raised. */
static int raise_if_named(const ctp_signature *sig, PyObject *input, PyObject *dim) {
    const ctp_param *p = ctp_param_named(sig, "dim");
    if (dim == NULL || p == NULL || (p->kind != NAM && p->kind != NLS))
        return 0;
    PyObject *name = p->kind == NAM ? Py_NewRef(dim) : PySequence_GetItem(dim, 0);
    if (name != NULL) {
        ctp_tensor_raise_name(input, name);
        Py_DECREF(name);
    }
    return 1;
}

/* ---- var / std (and _mean) --------------------------------------------------------------- */

static const ctp_signature f_var_sigs[] = {
    {5,
     {{TEN, "input"},
      {ILS, "dim?"},
      {I64, "*correction=None"},
      {BOO, "keepdim=False"},
      {TEN, "out=None"}}},
    {5,
     {{TEN, "input"},
      {ILS, "dim?"},
      {BOO, "unbiased=True"},
      {BOO, "keepdim=False"},
      {TEN, "*out=None"}}},
    {2, {{TEN, "input"}, {BOO, "unbiased=True"}}},
    {5,
     {{TEN, "input"},
      {NLS, "dim"},
      {I64, "*correction=None"},
      {BOO, "keepdim=False"},
      {TEN, "out=None"}}},
    {5,
     {{TEN, "input"},
      {NLS, "dim"},
      {BOO, "unbiased=True"},
      {BOO, "keepdim=False"},
      {TEN, "*out=None"}}},
};
static const ctp_signature m_var_sigs[] = {
    {3, {{ILS, "dim?"}, {I64, "*correction=None"}, {BOO, "keepdim=False"}}},
    {3, {{ILS, "dim?"}, {BOO, "unbiased=True"}, {BOO, "keepdim=False"}}},
    {1, {{BOO, "unbiased=True"}}},
    {3, {{NLS, "dim"}, {I64, "*correction=None"}, {BOO, "keepdim=False"}}},
    {3, {{NLS, "dim"}, {BOO, "unbiased=True"}, {BOO, "keepdim=False"}}},
};
static const ctp_signature f_var_mean_sigs[] = {
    {4, {{TEN, "input"}, {ILS, "dim?"}, {I64, "*correction=None"}, {BOO, "keepdim=False"}}},
    {4, {{TEN, "input"}, {ILS, "dim?"}, {BOO, "unbiased=True"}, {BOO, "keepdim=False"}}},
    {2, {{TEN, "input"}, {BOO, "unbiased=True"}}},
    {4, {{TEN, "input"}, {NLS, "dim"}, {I64, "*correction=None"}, {BOO, "keepdim=False"}}},
    {4, {{TEN, "input"}, {NLS, "dim"}, {BOO, "unbiased=True"}, {BOO, "keepdim=False"}}},
};

typedef struct var_entry {
    const char *name;
    int take_sqrt, with_mean, method;
    const ctp_signature *sigs;
    int nsigs;
} var_entry;

static PyObject *var_call(const var_entry *e, PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a2, *k2, *r = NULL;
    if (wrap_int_dim(args, kwargs, e->method ? 0 : 1, &a2, &k2) < 0)
        return NULL;
    PyObject *parsed[CTP_MAX_PARAMS];
    int k = ctp_parse_args(e->name, e->sigs, e->nsigs, a2, k2, parsed);
    if (k < 0) { /* the error in the words of the arguments as given */
        PyErr_Clear();
        (void)ctp_parse_args(e->name, e->sigs, e->nsigs, args, kwargs, parsed);
        goto done;
    }
    const ctp_signature *sig = &e->sigs[k];
    PyObject *input = e->method ? self : ctp_arg(sig, parsed, "input");
    PyObject *keepdim = ctp_arg(sig, parsed, "keepdim");
    PyObject *unbiased = ctp_arg(sig, parsed, "unbiased");
    PyObject *correction = ctp_arg(sig, parsed, "correction");
    PyObject *out = ctp_arg(sig, parsed, "out");
    if (raise_if_named(sig, input, ctp_arg(sig, parsed, "dim")))
        goto done;
    int64_t dims[CT_MAX_DIMS], ndims;
    const int64_t *dims_ptr;
    if (dims_of(e->name, sig, ctp_arg(sig, parsed, "dim"), dims, &ndims, &dims_ptr) < 0)
        goto done;
    int keep = keepdim != NULL ? PyObject_IsTrue(keepdim) : 0;
    int unb = unbiased != NULL ? PyObject_IsTrue(unbiased) : 1;
    if (keep < 0 || unb < 0)
        goto done;
    double corr = unb ? 1.0 : 0.0;
    if (correction != NULL) {
        int64_t c;
        if (ctp_int64_of_arg(correction, &c) < 0)
            goto done;
        corr = (double)c;
    }
    ct_tensor *res = NULL, *mean = NULL;
    ct_status st =
        ct_std_var(ctp_tensor_get(input), dims_ptr, ndims, corr, keep != 0, e->take_sqrt != 0,
                   out != NULL ? ctp_tensor_get(out) : NULL, &res, e->with_mean ? &mean : NULL);
    if (st != CT_OK) {
        r = ctp_raise_status(st);
        goto done;
    }
    if (out != NULL) {
        ct_tensor_release(res);
        r = Py_NewRef(out);
    } else if (e->with_mean) {
        PyObject *pv = ctp_tensor_wrap(res), *pm = ctp_tensor_wrap(mean);
        r = pv != NULL && pm != NULL ? PyTuple_Pack(2, pv, pm) : NULL;
        Py_XDECREF(pv);
        Py_XDECREF(pm);
    } else {
        r = ctp_tensor_wrap(res);
    }
done:
    Py_XDECREF(a2);
    Py_XDECREF(k2);
    return r;
}

#define NSIGS(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define VAR_FUNCTION(cname, name, take_sqrt, with_mean, method, sigs)                              \
    static const var_entry cname##_entry = {                                                       \
        name, take_sqrt, with_mean, method, sigs, NSIGS(sigs)};                                    \
    PyObject *ctp_reduce2_##cname(PyObject *self, PyObject *args, PyObject *kwargs) {              \
        return var_call(&cname##_entry, self, args, kwargs);                                       \
    }
VAR_FUNCTION(f_var, "var", 0, 0, 0, f_var_sigs)
VAR_FUNCTION(f_std, "std", 1, 0, 0, f_var_sigs)
VAR_FUNCTION(f_var_mean, "var_mean", 0, 1, 0, f_var_mean_sigs)
VAR_FUNCTION(f_std_mean, "std_mean", 1, 1, 0, f_var_mean_sigs)
VAR_FUNCTION(m_var, "var", 0, 0, 1, m_var_sigs)
VAR_FUNCTION(m_std, "std", 1, 0, 1, m_var_sigs)

/* ---- norm (a Python function in torch: torch.functional.norm, Tensor.norm) ---------------- */

static PyObject *norm_call(int method, PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const f_names[] = {"input", "p", "dim", "keepdim", "out", "dtype"};
    static const char *const m_names[] = {"self", "p", "dim", "keepdim", "dtype"};
    PyObject *a[6] = {NULL};
    PyObject *input, *p, *dim, *keepdim, *out = NULL, *dtype;
    if (method) {
        PyObject *full = PyTuple_New(PyTuple_GET_SIZE(args) + 1);
        if (full == NULL)
            return NULL;
        PyTuple_SET_ITEM(full, 0, Py_NewRef(self));
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
            PyTuple_SET_ITEM(full, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
        int rc = ctp_parse_python_call("norm", m_names, 5, 1, 0, full, kwargs, a);
        Py_DECREF(full);
        if (rc < 0)
            return NULL;
        input = self;
        p = a[1];
        dim = a[2];
        keepdim = a[3];
        dtype = a[4];
    } else {
        if (ctp_parse_python_call("norm", f_names, 6, 1, 0, args, kwargs, a) < 0)
            return NULL;
        input = a[0];
        p = a[1];
        dim = a[2];
        keepdim = a[3];
        out = a[4] == Py_None ? NULL : a[4];
        dtype = a[5];
    }
    if (!ctp_is_tensor(input))
        return PyErr_Format(PyExc_TypeError, "norm(): argument 'input' must be Tensor, not %s",
                            Py_TYPE(input)->tp_name);
    if (out != NULL && !ctp_is_tensor(out))
        return PyErr_Format(PyExc_TypeError, "norm(): argument 'out' must be Tensor, not %s",
                            Py_TYPE(out)->tp_name);
    int64_t dims[CT_MAX_DIMS], ndims = 0;
    const int64_t *dims_ptr = NULL;
    if (dim != NULL && dim != Py_None) {
        if (ctp_is_int_arg(dim)) {
            if (ctp_int64_of_arg(dim, &dims[0]) < 0)
                return NULL;
            ndims = 1;
        } else {
            static const ctp_param dim_param = {ILS, "dim"};
            Py_ssize_t n = ctp_int_list_of_arg("norm", &dim_param, dim, dims);
            if (n < 0)
                return NULL;
            ndims = n;
        }
        dims_ptr = dims;
    }
    int keep = keepdim != NULL && keepdim != Py_None ? PyObject_IsTrue(keepdim) : 0;
    if (keep < 0)
        return NULL;
    ct_dtype dt = dtype != NULL && dtype != Py_None ? ctp_dtype_of_arg(dtype) : CT_DTYPE_UNDEFINED;
    ct_tensor *t = ctp_tensor_get(input), *o = out != NULL ? ctp_tensor_get(out) : NULL;
    ct_tensor *res = NULL;
    ct_status st;
    if (p == NULL || p == Py_None || PyUnicode_Check(p)) {
        const char *ps = p != NULL && p != Py_None ? PyUnicode_AsUTF8(p) : "fro";
        if (ps == NULL)
            return NULL;
        st = ct_norm_str(t, ps, dims_ptr, ndims, keep != 0, dt, o, &res);
    } else {
        double pv = PyFloat_AsDouble(p);
        if (pv == -1.0 && PyErr_Occurred())
            return NULL;
        st = ct_norm(t, pv, dims_ptr, ndims, keep != 0, dt, o, &res);
    }
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (o != NULL) {
        ct_tensor_release(res);
        return Py_NewRef(out);
    }
    return ctp_tensor_wrap(res);
}

PyObject *ctp_reduce2_f_norm(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    return norm_call(0, NULL, args, kwargs);
}
PyObject *ctp_reduce2_m_norm(PyObject *self, PyObject *args, PyObject *kwargs) {
    return norm_call(1, self, args, kwargs);
}

/* ---- aminmax ----------------------------------------------------------------------------- */

static const ctp_signature f_aminmax_sigs[] = {
    {4, {{TEN, "input"}, {I64, "*dim=None"}, {BOO, "keepdim=False"}, {OBJ, "out=None"}}},
};
static const ctp_signature m_aminmax_sigs[] = {
    {2, {{I64, "*dim=None"}, {BOO, "keepdim=False"}}},
};

static PyTypeObject *aminmax_type;

/* A named tuple (min, max), as torch.return_types.aminmax. */
static PyObject *pair_result(PyTypeObject **type, PyStructSequence_Desc *desc, ct_tensor *a,
                             ct_tensor *b) {
    if (*type == NULL)
        *type = PyStructSequence_NewType(desc);
    PyObject *pa = ctp_tensor_wrap(a), *pb = ctp_tensor_wrap(b);
    PyObject *r = (*type != NULL && pa != NULL && pb != NULL) ? PyStructSequence_New(*type) : NULL;
    if (r == NULL) {
        Py_XDECREF(pa);
        Py_XDECREF(pb);
        return NULL;
    }
    PyStructSequence_SET_ITEM(r, 0, pa);
    PyStructSequence_SET_ITEM(r, 1, pb);
    return r;
}

/* An out= tuple of two tensors: 0, or -1 with PyTorch's TypeError. */
static int out_pair(const char *fname, PyObject *out, ct_tensor **a, ct_tensor **b) {
    if (!PyTuple_Check(out) && !PyList_Check(out))
        goto bad;
    if (PySequence_Size(out) != 2 || !ctp_is_tensor(PySequence_Fast_GET_ITEM(out, 0)) ||
        !ctp_is_tensor(PySequence_Fast_GET_ITEM(out, 1)))
        goto bad;
    *a = ctp_tensor_get(PySequence_Fast_GET_ITEM(out, 0));
    *b = ctp_tensor_get(PySequence_Fast_GET_ITEM(out, 1));
    return 0;
bad:
    PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be tuple of Tensors, not %s", fname,
                 Py_TYPE(out)->tp_name);
    return -1;
}

static PyObject *aminmax_call(int method, PyObject *self, PyObject *args, PyObject *kwargs) {
    static PyStructSequence_Field fields[] = {
        {"min", "the minimum"}, {"max", "the maximum"}, {NULL, NULL}};
    static PyStructSequence_Desc desc = {"ctensor.return_types.aminmax", "(min, max) of aminmax",
                                         fields, 2};
    const ctp_signature *sigs = method ? m_aminmax_sigs : f_aminmax_sigs;
    PyObject *parsed[CTP_MAX_PARAMS];
    int k = ctp_parse_args("aminmax", sigs, 1, args, kwargs, parsed);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &sigs[k];
    PyObject *input = method ? self : ctp_arg(sig, parsed, "input");
    PyObject *dim = ctp_arg(sig, parsed, "dim");
    PyObject *keepdim = ctp_arg(sig, parsed, "keepdim");
    PyObject *out = ctp_arg(sig, parsed, "out");
    int64_t d = 0;
    if (dim != NULL && ctp_int64_of_arg(dim, &d) < 0)
        return NULL;
    int keep = keepdim != NULL ? PyObject_IsTrue(keepdim) : 0;
    if (keep < 0)
        return NULL;
    ct_tensor *omin = NULL, *omax = NULL, *lo = NULL, *hi = NULL;
    if (out != NULL && out_pair("aminmax", out, &omin, &omax) < 0)
        return NULL;
    ct_status st =
        ct_aminmax(ctp_tensor_get(input), dim != NULL ? &d : NULL, keep != 0, omin, omax, &lo, &hi);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return pair_result(&aminmax_type, &desc, lo, hi);
}

PyObject *ctp_reduce2_f_aminmax(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    return aminmax_call(0, NULL, args, kwargs);
}
PyObject *ctp_reduce2_m_aminmax(PyObject *self, PyObject *args, PyObject *kwargs) {
    return aminmax_call(1, self, args, kwargs);
}

/* ---- cumsum / cumprod -------------------------------------------------------------------- */

static const ctp_signature f_cum_sigs[] = {
    {4, {{TEN, "input"}, {I64, "dim"}, {DTY, "*dtype=None"}, {TEN, "out=None"}}},
    {4, {{TEN, "input"}, {NAM, "dim"}, {DTY, "*dtype=None"}, {TEN, "out=None"}}},
};
static const ctp_signature m_cum_sigs[] = {
    {2, {{I64, "dim"}, {DTY, "*dtype=None"}}},
    {2, {{NAM, "dim"}, {DTY, "*dtype=None"}}},
};

static PyObject *cum_call(int prod, int method, int inplace, PyObject *self, PyObject *args,
                          PyObject *kwargs) {
    const char *name = prod ? (inplace ? "cumprod_" : "cumprod") : (inplace ? "cumsum_" : "cumsum");
#ifdef CT_HAVE_DIST
    if (!method && ctp_dist_any_global(NULL, args, kwargs))
        return ctp_global_cum_call(prod, 0, NULL, args, kwargs);
#endif
    const ctp_signature *sigs = method ? m_cum_sigs : f_cum_sigs;
    PyObject *parsed[CTP_MAX_PARAMS];
    int k = ctp_parse_args(name, sigs, 2, args, kwargs, parsed);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &sigs[k];
    PyObject *input = method ? self : ctp_arg(sig, parsed, "input");
    if (raise_if_named(sig, input, ctp_arg(sig, parsed, "dim")))
        return NULL;
    PyObject *dtype = ctp_arg(sig, parsed, "dtype");
    PyObject *out = ctp_arg(sig, parsed, "out");
    int64_t d;
    if (ctp_int64_of_arg(ctp_arg(sig, parsed, "dim"), &d) < 0)
        return NULL;
    ct_dtype dt = dtype != NULL ? ctp_dtype_of_arg(dtype) : CT_DTYPE_UNDEFINED;
    ct_tensor *t = ctp_tensor_get(input);
    ct_status st;
    if (inplace) {
        st = ct_cumulative_(prod != 0, t, d, dt);
        return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
    }
    ct_tensor *res = NULL;
    st = ct_cumulative(prod != 0, t, d, dt, out != NULL ? ctp_tensor_get(out) : NULL, &res);
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (out != NULL) {
        ct_tensor_release(res);
        return Py_NewRef(out);
    }
    return ctp_tensor_wrap(res);
}

#define CUM_FUNCTION(cname, prod, method, inplace)                                                 \
    PyObject *ctp_reduce2_##cname(PyObject *self, PyObject *args, PyObject *kwargs) {              \
        return cum_call(prod, method, inplace, self, args, kwargs);                                \
    }
CUM_FUNCTION(f_cumsum, 0, 0, 0)
CUM_FUNCTION(f_cumprod, 1, 0, 0)
CUM_FUNCTION(m_cumsum, 0, 1, 0)
CUM_FUNCTION(m_cumprod, 1, 1, 0)
CUM_FUNCTION(m_cumsum_, 0, 1, 1)
CUM_FUNCTION(m_cumprod_, 1, 1, 1)

/* ---- max / min with dim and out=(values, indices) ----------------------------------------- */

int ctp_reduce2_max_out(int is_max, PyObject *input, int64_t dim, int keepdim, PyObject *out,
                        PyObject **values, PyObject **indices) {
    ct_tensor *v = NULL, *ix = NULL;
    if (out_pair(is_max ? "max" : "min", out, &v, &ix) < 0)
        return -1;
    ct_status st =
        (is_max ? ct_max_dim_out : ct_min_dim_out)(ctp_tensor_get(input), dim, keepdim != 0, v, ix);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    *values = Py_NewRef(PySequence_Fast_GET_ITEM(out, 0));
    *indices = Py_NewRef(PySequence_Fast_GET_ITEM(out, 1));
    return 0;
}
