/* Reductions from Python (include/ctensor/reduce.h): ctensor.sum / mean / prod / amax / amin /
 * all / any and the Tensor methods of the same names, with torch 1.13's signatures:
 *   sum(input, *, dtype=None)                 sum(input, dim, keepdim=False, *, dtype=None, out=None)
 *   mean: as sum                              prod(input, *, dtype=None)
 *   prod(input, dim: int, keepdim=False, *, dtype=None, out=None)
 *   amax(input, dim=(), keepdim=False, *, out=None)      amin: as amax
 *   all(input, *, out=None)                   all(input, dim: int, keepdim=False, *, out=None)
 *   max(input)   max(input, dim, keepdim=False) -> return_types.max(values, indices)   (min)
 *   argmax(input, dim=None, keepdim=False)    (argmin)
 * max(input, other) (the element-wise maximum) is not provided here.
 *   nansum(input, dim=None, keepdim=False, *, dtype=None, out=None)    nanmean: as nansum
 *   count_nonzero(input, dim=None)            logsumexp(input, dim, keepdim=False, *, out=None)
 * The statistics, norm, aminmax and the scans are in tensor_reduce2.c.
 * A `dim` of int-list kind also takes one int (PyTorch's int[1]), and `axis=` / `keepdims=`
 * are NumPy's names for dim / keepdim, as PyTorch's parser accepts them. Every call is one C
 * call, ct_reduce or ct_reduce_out; this layer decides nothing. */
#include <string.h>

#include "ctensor/reduce.h"
#include "ctensor_py.h"
#include "tensor_reduce2.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* the global path of the functions */
#endif

#define TEN CTP_PARAM_TENSOR
#define DTY CTP_PARAM_DTYPE
#define ILS CTP_PARAM_INT_LIST
#define I64 CTP_PARAM_INT64
#define BOO CTP_PARAM_BOOL
#define NAM CTP_PARAM_NAME
#define NLS CTP_PARAM_NAME_LIST

/* signatures: functions (with input) and methods (without) */
static const ctp_signature f_sum_sigs[] = {
    {2, {{TEN, "input"}, {DTY, "*dtype=None"}}},
    {5, {{TEN, "input"}, {ILS, "dim?"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"},
         {TEN, "out=None"}}},
    {5, {{TEN, "input"}, {NLS, "dim"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"},
         {TEN, "out=None"}}},
};
static const ctp_signature m_sum_sigs[] = {
    {1, {{DTY, "*dtype=None"}}},
    {3, {{ILS, "dim?"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"}}},
    {3, {{NLS, "dim"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"}}},
};
static const ctp_signature f_prod_sigs[] = {
    {2, {{TEN, "input"}, {DTY, "*dtype=None"}}},
    {5, {{TEN, "input"}, {I64, "dim"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"},
         {TEN, "out=None"}}},
    {5, {{TEN, "input"}, {NAM, "dim"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"},
         {TEN, "out=None"}}},
};
static const ctp_signature m_prod_sigs[] = {
    {1, {{DTY, "*dtype=None"}}},
    {3, {{I64, "dim"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"}}},
    {3, {{NAM, "dim"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"}}},
};
static const ctp_signature f_amax_sigs[] = {
    {4, {{TEN, "input"}, {ILS, "dim=None"}, {BOO, "keepdim=False"}, {TEN, "*out=None"}}},
};
/* (the int-list dim of the last or second signature; see normalise) */
static const ctp_signature m_amax_sigs[] = {
    {2, {{ILS, "dim=None"}, {BOO, "keepdim=False"}}},
};
static const ctp_signature f_all_sigs[] = {
    {2, {{TEN, "input"}, {TEN, "*out=None"}}},
    {4, {{TEN, "input"}, {I64, "dim"}, {BOO, "keepdim=False"}, {TEN, "*out=None"}}},
    {4, {{TEN, "input"}, {NAM, "dim"}, {BOO, "keepdim=False"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_all_sigs[] = {
    {0, {{TEN, ""}}},
    {2, {{I64, "dim"}, {BOO, "keepdim=False"}}},
    {2, {{NAM, "dim"}, {BOO, "keepdim=False"}}},
};

static const ctp_signature f_nansum_sigs[] = {
    {5, {{TEN, "input"}, {ILS, "dim=None"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"},
         {TEN, "out=None"}}},
};
static const ctp_signature m_nansum_sigs[] = {
    {3, {{ILS, "dim=None"}, {BOO, "keepdim=False"}, {DTY, "*dtype=None"}}},
};
static const ctp_signature f_count_sigs[] = {
    {2, {{TEN, "input"}, {ILS, "dim=None"}}},
};
static const ctp_signature m_count_sigs[] = {
    {1, {{ILS, "dim=None"}}},
};
static const ctp_signature f_lse_sigs[] = {
    {4, {{TEN, "input"}, {ILS, "dim"}, {BOO, "keepdim=False"}, {TEN, "*out=None"}}},
    {4, {{TEN, "input"}, {NLS, "dim"}, {BOO, "keepdim=False"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_lse_sigs[] = {
    {2, {{ILS, "dim"}, {BOO, "keepdim=False"}}},
    {2, {{NLS, "dim"}, {BOO, "keepdim=False"}}},
};

typedef struct reduce_entry {
    ct_reduce_op op;
    const char *name;
    const ctp_signature *sigs;
    int nsigs;
    int method;
} reduce_entry;

/* NumPy's names (axis, keepdims) as PyTorch's parser takes them, and one int (or one name)
 * for an int-list dim: the arguments rewritten into new references (*args_out,
 * *kwargs_out), or -1. */
static int normalise(const reduce_entry *e, PyObject *args, PyObject *kwargs,
                     PyObject **args_out, PyObject **kwargs_out) {
    int int_list = 0; /* some signature takes an int-list dim */
    for (int k = 0; k < e->nsigs; k++)
        int_list |= e->sigs[k].nparams > (e->method ? 0 : 1) &&
                    e->sigs[k].params[e->method ? 0 : 1].kind == ILS;
    Py_ssize_t dim_pos = e->method ? 0 : 1;
    *args_out = Py_NewRef(args);
    *kwargs_out = kwargs != NULL ? PyDict_Copy(kwargs) : NULL;
    if (kwargs != NULL && *kwargs_out == NULL)
        goto fail;
    if (*kwargs_out != NULL) {
        static const char *const pairs[2][2] = {{"axis", "dim"}, {"keepdims", "keepdim"}};
        for (int k = 0; k < 2; k++) {
            PyObject *v = PyDict_GetItemString(*kwargs_out, pairs[k][0]);
            if (v != NULL && PyDict_GetItemString(*kwargs_out, pairs[k][1]) == NULL) {
                Py_INCREF(v);
                int rc = PyDict_SetItemString(*kwargs_out, pairs[k][1], v) < 0 ||
                         PyDict_DelItemString(*kwargs_out, pairs[k][0]) < 0;
                Py_DECREF(v);
                if (rc)
                    goto fail;
            }
        }
    }
    if (!int_list)
        return 0;
    if (PyTuple_GET_SIZE(args) > dim_pos && (ctp_is_int_arg(PyTuple_GET_ITEM(args, dim_pos)) ||
                                             PyUnicode_Check(PyTuple_GET_ITEM(args, dim_pos)))) {
        /* a new tuple (a whole-tuple slice would be args itself) */
        Py_ssize_t n = PyTuple_GET_SIZE(args);
        PyObject *a = PyTuple_New(n);
        PyObject *one = a != NULL ? PyTuple_Pack(1, PyTuple_GET_ITEM(args, dim_pos)) : NULL;
        if (one == NULL) {
            Py_XDECREF(a);
            goto fail;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            PyTuple_SET_ITEM(a, i, i == dim_pos ? one : Py_NewRef(PyTuple_GET_ITEM(args, i)));
        Py_SETREF(*args_out, a);
    } else if (*kwargs_out != NULL) {
        PyObject *v = PyDict_GetItemString(*kwargs_out, "dim");
        if (v != NULL && (ctp_is_int_arg(v) || PyUnicode_Check(v))) {
            PyObject *one = PyTuple_Pack(1, v);
            if (one == NULL || PyDict_SetItemString(*kwargs_out, "dim", one) < 0) {
                Py_XDECREF(one);
                goto fail;
            }
            Py_DECREF(one);
        }
    }
    return 0;
fail:
    Py_CLEAR(*args_out);
    Py_CLEAR(*kwargs_out);
    return -1;
}

static PyObject *reduce_call(const reduce_entry *e, PyObject *self, PyObject *args,
                             PyObject *kwargs) {
#ifdef CT_HAVE_DIST
    if (!e->method && ctp_dist_any_global(NULL, args, kwargs)) /* GlobalTensor has its own */
        return ctp_global_reduce_call(e->op, e->name, 0, NULL, args, kwargs);
#endif
    PyObject *a2, *k2;
    if (normalise(e, args, kwargs, &a2, &k2) < 0)
        return NULL;
    PyObject *parsed[CTP_MAX_PARAMS];
    PyObject *r = NULL;
    int k = ctp_parse_args(e->name, e->sigs, e->nsigs, a2, k2, parsed);
    if (k < 0) {
        /* the error in the words of the arguments as given ("got (int, int)") */
        PyErr_Clear();
        if (ctp_parse_args(e->name, e->sigs, e->nsigs, args, kwargs, parsed) >= 0)
            PyErr_SetString(PyExc_TypeError, "invalid arguments"); /* cannot happen */
        goto done;
    }
    const ctp_signature *sig = &e->sigs[k];
    PyObject *input = e->method ? self : ctp_arg(sig, parsed, "input");
    PyObject *dim = ctp_arg(sig, parsed, "dim");
    PyObject *keepdim = ctp_arg(sig, parsed, "keepdim");
    PyObject *dtype = ctp_arg(sig, parsed, "dtype");
    PyObject *out = ctp_arg(sig, parsed, "out");
    int64_t dims[CT_MAX_DIMS];
    int64_t ndims = 0;
    const int64_t *dims_ptr = NULL;
    if (dim != NULL) {
        const ctp_param *p = ctp_param_named(sig, "dim");
        if (p->kind == NAM || p->kind == NLS) { /* no ctensor tensor has dimension names */
            PyObject *name = p->kind == NAM ? dim : PySequence_GetItem(dim, 0);
            if (name == NULL)
                goto done;
            ctp_tensor_raise_name(input, name);
            if (p->kind == NLS)
                Py_DECREF(name);
            goto done;
        }
        if (p->kind == I64) {
            if (ctp_int64_of_arg(dim, &dims[0]) < 0)
                goto done;
            ndims = 1;
        } else {
            Py_ssize_t n = ctp_int_list_of_arg(e->name, p, dim, dims);
            if (n < 0)
                goto done;
            ndims = n;
        }
        dims_ptr = dims;
    }
    int keep = keepdim != NULL ? PyObject_IsTrue(keepdim) : 0;
    if (keep < 0)
        goto done;
    ct_dtype dt = dtype != NULL ? ctp_dtype_of_arg(dtype) : CT_DTYPE_UNDEFINED;
    ct_tensor *t = ctp_tensor_get(input);
    ct_status st;
    if (out != NULL) {
        st = ct_reduce_out(e->op, t, dims_ptr, ndims, keep != 0, dt, ctp_tensor_get(out));
        r = st == CT_OK ? Py_NewRef(out) : ctp_raise_status(st);
    } else {
        ct_tensor *res = NULL;
        st = ct_reduce(e->op, t, dims_ptr, ndims, keep != 0, dt, &res);
        r = st == CT_OK ? ctp_tensor_wrap(res) : ctp_raise_status(st);
    }
done:
    Py_XDECREF(a2);
    Py_XDECREF(k2);
    return r;
}

#define NSIGS(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define REDUCE_FUNCTION(cname, op, name, sigs, method)                                             \
    static const reduce_entry cname##_entry = {op, name, sigs, NSIGS(sigs), method};               \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        return reduce_call(&cname##_entry, self, args, kwargs);                                    \
    }

REDUCE_FUNCTION(f_sum, CT_REDUCE_SUM, "sum", f_sum_sigs, 0)
REDUCE_FUNCTION(f_mean, CT_REDUCE_MEAN, "mean", f_sum_sigs, 0)
REDUCE_FUNCTION(f_prod, CT_REDUCE_PROD, "prod", f_prod_sigs, 0)
REDUCE_FUNCTION(f_amax, CT_REDUCE_AMAX, "amax", f_amax_sigs, 0)
REDUCE_FUNCTION(f_amin, CT_REDUCE_AMIN, "amin", f_amax_sigs, 0)
REDUCE_FUNCTION(f_all, CT_REDUCE_ALL, "all", f_all_sigs, 0)
REDUCE_FUNCTION(f_any, CT_REDUCE_ANY, "any", f_all_sigs, 0)
REDUCE_FUNCTION(m_sum, CT_REDUCE_SUM, "sum", m_sum_sigs, 1)
REDUCE_FUNCTION(m_mean, CT_REDUCE_MEAN, "mean", m_sum_sigs, 1)
REDUCE_FUNCTION(m_prod, CT_REDUCE_PROD, "prod", m_prod_sigs, 1)
REDUCE_FUNCTION(m_amax, CT_REDUCE_AMAX, "amax", m_amax_sigs, 1)
REDUCE_FUNCTION(m_amin, CT_REDUCE_AMIN, "amin", m_amax_sigs, 1)
REDUCE_FUNCTION(m_all, CT_REDUCE_ALL, "all", m_all_sigs, 1)
REDUCE_FUNCTION(m_any, CT_REDUCE_ANY, "any", m_all_sigs, 1)
REDUCE_FUNCTION(f_nansum, CT_REDUCE_NANSUM, "nansum", f_nansum_sigs, 0)
REDUCE_FUNCTION(f_nanmean, CT_REDUCE_NANMEAN, "nanmean", f_nansum_sigs, 0)
REDUCE_FUNCTION(f_count_nonzero, CT_REDUCE_COUNT_NONZERO, "count_nonzero", f_count_sigs, 0)
REDUCE_FUNCTION(f_logsumexp, CT_REDUCE_LOGSUMEXP, "logsumexp", f_lse_sigs, 0)
REDUCE_FUNCTION(m_nansum, CT_REDUCE_NANSUM, "nansum", m_nansum_sigs, 1)
REDUCE_FUNCTION(m_nanmean, CT_REDUCE_NANMEAN, "nanmean", m_nansum_sigs, 1)
REDUCE_FUNCTION(m_count_nonzero, CT_REDUCE_COUNT_NONZERO, "count_nonzero", m_count_sigs, 1)
REDUCE_FUNCTION(m_logsumexp, CT_REDUCE_LOGSUMEXP, "logsumexp", m_lse_sigs, 1)

/* ---- max / min (whole, or with a dim: values and indices) and argmax / argmin ------------ */

static const ctp_signature f_max_sigs[] = {
    {1, {{TEN, "input"}}},
    {4, {{TEN, "input"}, {I64, "dim"}, {BOO, "keepdim=False"}, {CTP_PARAM_OBJECT, "*out=None"}}},
    {4, {{TEN, "input"}, {NAM, "dim"}, {BOO, "keepdim=False"}, {CTP_PARAM_OBJECT, "*out=None"}}},
};
static const ctp_signature m_max_sigs[] = {
    {0, {{TEN, ""}}},
    {2, {{I64, "dim"}, {BOO, "keepdim=False"}}},
    {2, {{NAM, "dim"}, {BOO, "keepdim=False"}}},
};
static const ctp_signature f_argmax_sigs[] = {
    {4, {{TEN, "input"}, {I64, "dim=None"}, {BOO, "keepdim=False"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_argmax_sigs[] = {
    {2, {{I64, "dim=None"}, {BOO, "keepdim=False"}}},
};

/* ctensor.return_types.max / min: named tuples (values, indices), as torch.return_types. */
static PyTypeObject *return_types[2];

PyTypeObject *ctp_reduce_return_type(int is_max) {
    if (return_types[is_max] == NULL) {
        static PyStructSequence_Field fields[] = {
            {"values", "the extreme values"}, {"indices", "their indices (int64)"}, {NULL, NULL}};
        static PyStructSequence_Desc descs[2] = {
            {"ctensor.return_types.min", "(values, indices) of min(dim)", fields, 2},
            {"ctensor.return_types.max", "(values, indices) of max(dim)", fields, 2},
        };
        return_types[is_max] = PyStructSequence_NewType(&descs[is_max]);
    }
    return return_types[is_max];
}

typedef struct arg_entry {
    int is_max, with_values, method;
    const char *name;
    const ctp_signature *sigs;
    int nsigs;
} arg_entry;

static PyObject *arg_call(const arg_entry *e, PyObject *self, PyObject *args, PyObject *kwargs) {
#ifdef CT_HAVE_DIST
    if (!e->method && ctp_dist_any_global(NULL, args, kwargs))
        return ctp_global_arg_call(e->is_max, e->with_values, 0, NULL, args, kwargs);
#endif
    PyObject *parsed[CTP_MAX_PARAMS];
    int k = ctp_parse_args(e->name, e->sigs, e->nsigs, args, kwargs, parsed);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &e->sigs[k];
    PyObject *input = e->method ? self : ctp_arg(sig, parsed, "input");
    PyObject *dim = ctp_arg(sig, parsed, "dim");
    PyObject *keepdim = ctp_arg(sig, parsed, "keepdim");
    ct_tensor *t = ctp_tensor_get(input);
    if (dim != NULL && ctp_param_named(sig, "dim")->kind == NAM)
        return ctp_tensor_raise_name(input, dim);
    int keep = keepdim != NULL ? PyObject_IsTrue(keepdim) : 0;
    if (keep < 0)
        return NULL;
    int64_t d = 0;
    if (dim != NULL && ctp_int64_of_arg(dim, &d) < 0)
        return NULL;
    ct_status st;
    if (e->with_values && dim == NULL) { /* max(input): the whole tensor */
        ct_tensor *r = NULL;
        st = ct_reduce(e->is_max ? CT_REDUCE_MAX : CT_REDUCE_MIN, t, NULL, 0, false,
                       CT_DTYPE_UNDEFINED, &r);
        return st == CT_OK ? ctp_tensor_wrap(r) : ctp_raise_status(st);
    }
    PyObject *out = ctp_arg(sig, parsed, "out");
    if (!e->with_values && out != NULL) {
        st = (e->is_max ? ct_argmax_out : ct_argmin_out)(t, dim != NULL ? &d : NULL, keep != 0,
                                                         ctp_tensor_get(out));
        return st == CT_OK ? Py_NewRef(out) : ctp_raise_status(st);
    }
    if (!e->with_values) {
        ct_tensor *r = NULL;
        st = (e->is_max ? ct_argmax : ct_argmin)(t, dim != NULL ? &d : NULL, keep != 0, &r);
        return st == CT_OK ? ctp_tensor_wrap(r) : ctp_raise_status(st);
    }
    PyObject *pv = NULL, *pi = NULL;
    if (out != NULL) {
        if (ctp_reduce2_max_out(e->is_max, input, d, keep, out, &pv, &pi) < 0)
            return NULL;
    } else {
        ct_tensor *v = NULL, *ix = NULL;
        st = (e->is_max ? ct_max_dim : ct_min_dim)(t, d, keep != 0, &v, &ix);
        if (st != CT_OK)
            return ctp_raise_status(st);
        pv = ctp_tensor_wrap(v);
        pi = ctp_tensor_wrap(ix);
    }
    PyTypeObject *type = ctp_reduce_return_type(e->is_max);
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

#define ARG_FUNCTION(cname, is_max, with_values, method, name, sigs)                               \
    static const arg_entry cname##_entry = {is_max, with_values, method, name, sigs, NSIGS(sigs)}; \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        return arg_call(&cname##_entry, self, args, kwargs);                                       \
    }
ARG_FUNCTION(f_max, 1, 1, 0, "max", f_max_sigs)
ARG_FUNCTION(f_min, 0, 1, 0, "min", f_max_sigs)
ARG_FUNCTION(f_argmax, 1, 0, 0, "argmax", f_argmax_sigs)
ARG_FUNCTION(f_argmin, 0, 0, 0, "argmin", f_argmax_sigs)
ARG_FUNCTION(m_max, 1, 1, 1, "max", m_max_sigs)
ARG_FUNCTION(m_min, 0, 1, 1, "min", m_max_sigs)
ARG_FUNCTION(m_argmax, 1, 0, 1, "argmax", m_argmax_sigs)
ARG_FUNCTION(m_argmin, 0, 0, 1, "argmin", m_argmax_sigs)

#define KW METH_VARARGS | METH_KEYWORDS
PyMethodDef ctp_reduce_functions[] = {
    {"sum", CTP_KW_FUNC(f_sum), KW, "sum(input, dim=None, keepdim=False, *, dtype=None, out=None)"},
    {"mean", CTP_KW_FUNC(f_mean), KW,
     "mean(input, dim=None, keepdim=False, *, dtype=None, out=None)"},
    {"prod", CTP_KW_FUNC(f_prod), KW, "prod(input, dim, keepdim=False, *, dtype=None, out=None)"},
    {"amax", CTP_KW_FUNC(f_amax), KW, "amax(input, dim=(), keepdim=False, *, out=None)"},
    {"amin", CTP_KW_FUNC(f_amin), KW, "amin(input, dim=(), keepdim=False, *, out=None)"},
    {"all", CTP_KW_FUNC(f_all), KW, "all(input, dim, keepdim=False, *, out=None)"},
    {"any", CTP_KW_FUNC(f_any), KW, "any(input, dim, keepdim=False, *, out=None)"},
    {"max", CTP_KW_FUNC(f_max), KW, "max(input) / max(input, dim, keepdim=False) -> (values, indices)"},
    {"min", CTP_KW_FUNC(f_min), KW, "min(input) / min(input, dim, keepdim=False) -> (values, indices)"},
    {"argmax", CTP_KW_FUNC(f_argmax), KW, "argmax(input, dim=None, keepdim=False, *, out=None)"},
    {"argmin", CTP_KW_FUNC(f_argmin), KW, "argmin(input, dim=None, keepdim=False, *, out=None)"},
    {"nansum", CTP_KW_FUNC(f_nansum), KW,
     "nansum(input, dim=None, keepdim=False, *, dtype=None, out=None)"},
    {"nanmean", CTP_KW_FUNC(f_nanmean), KW,
     "nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None)"},
    {"count_nonzero", CTP_KW_FUNC(f_count_nonzero), KW, "count_nonzero(input, dim=None)"},
    {"logsumexp", CTP_KW_FUNC(f_logsumexp), KW, "logsumexp(input, dim, keepdim=False, *, out=None)"},
    {"var", CTP_KW_FUNC(ctp_reduce2_f_var), KW,
     "var(input, dim, *, correction=1, keepdim=False, out=None)"},
    {"std", CTP_KW_FUNC(ctp_reduce2_f_std), KW,
     "std(input, dim, *, correction=1, keepdim=False, out=None)"},
    {"var_mean", CTP_KW_FUNC(ctp_reduce2_f_var_mean), KW,
     "var_mean(input, dim, *, correction=1, keepdim=False) -> (var, mean)"},
    {"std_mean", CTP_KW_FUNC(ctp_reduce2_f_std_mean), KW,
     "std_mean(input, dim, *, correction=1, keepdim=False) -> (std, mean)"},
    {"norm", CTP_KW_FUNC(ctp_reduce2_f_norm), KW,
     "norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)"},
    {"aminmax", CTP_KW_FUNC(ctp_reduce2_f_aminmax), KW,
     "aminmax(input, *, dim=None, keepdim=False, out=None) -> (min, max)"},
    {"cumsum", CTP_KW_FUNC(ctp_reduce2_f_cumsum), KW, "cumsum(input, dim, *, dtype=None, out=None)"},
    {"cumprod", CTP_KW_FUNC(ctp_reduce2_f_cumprod), KW,
     "cumprod(input, dim, *, dtype=None, out=None)"},
    {NULL, NULL, 0, NULL},
};
PyMethodDef ctp_tensor_reduce_methods[] = {
    {"sum", CTP_KW_FUNC(m_sum), KW, "sum(dim=None, keepdim=False, *, dtype=None)"},
    {"mean", CTP_KW_FUNC(m_mean), KW, "mean(dim=None, keepdim=False, *, dtype=None)"},
    {"prod", CTP_KW_FUNC(m_prod), KW, "prod(dim, keepdim=False, *, dtype=None)"},
    {"amax", CTP_KW_FUNC(m_amax), KW, "amax(dim=(), keepdim=False)"},
    {"amin", CTP_KW_FUNC(m_amin), KW, "amin(dim=(), keepdim=False)"},
    {"all", CTP_KW_FUNC(m_all), KW, "all(dim, keepdim=False)"},
    {"any", CTP_KW_FUNC(m_any), KW, "any(dim, keepdim=False)"},
    {"max", CTP_KW_FUNC(m_max), KW, "max() / max(dim, keepdim=False) -> (values, indices)"},
    {"min", CTP_KW_FUNC(m_min), KW, "min() / min(dim, keepdim=False) -> (values, indices)"},
    {"argmax", CTP_KW_FUNC(m_argmax), KW, "argmax(dim=None, keepdim=False)"},
    {"argmin", CTP_KW_FUNC(m_argmin), KW, "argmin(dim=None, keepdim=False)"},
    {"nansum", CTP_KW_FUNC(m_nansum), KW, "nansum(dim=None, keepdim=False, *, dtype=None)"},
    {"nanmean", CTP_KW_FUNC(m_nanmean), KW, "nanmean(dim=None, keepdim=False, *, dtype=None)"},
    {"count_nonzero", CTP_KW_FUNC(m_count_nonzero), KW, "count_nonzero(dim=None)"},
    {"logsumexp", CTP_KW_FUNC(m_logsumexp), KW, "logsumexp(dim, keepdim=False)"},
    {"var", CTP_KW_FUNC(ctp_reduce2_m_var), KW, "var(dim, *, correction=1, keepdim=False)"},
    {"std", CTP_KW_FUNC(ctp_reduce2_m_std), KW, "std(dim, *, correction=1, keepdim=False)"},
    {"norm", CTP_KW_FUNC(ctp_reduce2_m_norm), KW,
     "norm(p='fro', dim=None, keepdim=False, dtype=None)"},
    {"aminmax", CTP_KW_FUNC(ctp_reduce2_m_aminmax), KW, "aminmax(*, dim=None, keepdim=False)"},
    {"cumsum", CTP_KW_FUNC(ctp_reduce2_m_cumsum), KW, "cumsum(dim, *, dtype=None)"},
    {"cumprod", CTP_KW_FUNC(ctp_reduce2_m_cumprod), KW, "cumprod(dim, *, dtype=None)"},
    {"cumsum_", CTP_KW_FUNC(ctp_reduce2_m_cumsum_), KW, "cumsum_(dim, *, dtype=None)"},
    {"cumprod_", CTP_KW_FUNC(ctp_reduce2_m_cumprod_), KW, "cumprod_(dim, *, dtype=None)"},
    {NULL, NULL, 0, NULL},
};
