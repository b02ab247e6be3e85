/* Joining and splitting (include/ctensor/join.h): the functions cat (concat, concatenate),
 * stack, hstack, vstack (row_stack), dstack, column_stack, atleast_1d / 2d / 3d, meshgrid,
 * split, chunk,
 * unbind, flatten, unflatten, movedim (moveaxis), swapaxes, swapdims
 * and the methods split, chunk, unflatten, movedim, moveaxis.
 *
 * A thin skin: it parses PyTorch's signatures, turns a sequence of tensors into an array and
 * calls the C API, which decides every semantic and words every error. The functions that
 * PyTorch also has as methods (flatten, swapaxes, ...) call the method, as torch's own
 * functions share one implementation with them.
 */
#include "ctensor/join.h"
#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* the global path of cat and stack */
#endif

#define TEN CTP_PARAM_TENSOR
#define OBJ CTP_PARAM_OBJECT
#define I64 CTP_PARAM_INT64
#define ILS CTP_PARAM_INT_LIST
#define NAM CTP_PARAM_NAME

/* ---- tensor sequences --------------------------------------------------------------------- */

/* The tensors of a tuple or list argument (borrowed pointers in a PyMem block *out, count in
 * *n), with PyTorch's TypeErrors. 0, or -1 with an exception set. */
static int tensors_of(const char *fname, PyObject *seq, ct_tensor ***out, size_t *n) {
    if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument 'tensors' (position 1) must be tuple of Tensors, not %s",
                     fname, ctp_tensor_check(seq) ? "Tensor" : Py_TYPE(seq)->tp_name);
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    ct_tensor **v = PyMem_Malloc((size_t)(len > 0 ? len : 1) * sizeof *v);
    if (v == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!ctp_tensor_check(item)) {
            PyErr_Format(PyExc_TypeError,
                         "expected Tensor as element %zd in argument 0, but got %s", i,
                         Py_TYPE(item)->tp_name);
            PyMem_Free(v);
            return -1;
        }
        v[i] = ctp_tensor_get(item);
    }
    *out = v;
    *n = (size_t)len;
    return 0;
}

PyObject *ctp_tensor_tuple_of_list(ct_status st, ct_tensor **list, int64_t n) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    PyObject *r = PyTuple_New((Py_ssize_t)n);
    for (int64_t i = 0; r != NULL && i < n; i++) {
        PyObject *item = ctp_tensor_wrap(list[i]);
        list[i] = NULL; /* stolen, also on failure */
        if (item == NULL)
            Py_CLEAR(r);
        else
            PyTuple_SET_ITEM(r, (Py_ssize_t)i, item);
    }
    ct_tensor_list_release(list, n);
    return r;
}

/* ---- cat, stack ----------------------------------------------------------------------------- */

typedef ct_status (*join_fn)(const ct_tensor *const *, size_t, int64_t, ct_tensor **);
typedef ct_status (*join_out_fn)(const ct_tensor *const *, size_t, int64_t, ct_tensor *);

static const ctp_signature cat_sigs[] = {
    {3, {{OBJ, "tensors"}, {I64, "dim=0"}, {TEN, "*out=None"}}},
    {3, {{OBJ, "tensors"}, {NAM, "dim"}, {TEN, "*out=None"}}},
};
static const ctp_signature concatenate_sigs[] = {
    {3, {{OBJ, "tensors"}, {I64, "axis=0"}, {TEN, "*out=None"}}},
    {3, {{OBJ, "tensors"}, {NAM, "axis"}, {TEN, "*out=None"}}},
};
static const ctp_signature stack_sigs[] = {
    {3, {{OBJ, "tensors"}, {I64, "dim=0"}, {TEN, "*out=None"}}},
};

static PyObject *run_join(const char *fname, const ctp_signature *sigs, int nsigs, join_fn fn,
                          join_out_fn out_fn, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int sig = ctp_parse_args(fname, sigs, nsigs, args, kwargs, a);
    if (sig < 0)
        return NULL;
#ifdef CT_HAVE_DIST
    if (sig == 0 && ctp_dist_seq_has_global(a[0]))
        return ctp_global_join_call(fname, fn == ct_tensor_stack, a[0], a[1], a[2]);
#endif
    ct_tensor **v = NULL;
    size_t n = 0;
    int64_t dim = 0;
    if (tensors_of(fname, a[0], &v, &n) < 0)
        return NULL;
    if (sig == 1) { /* a dimension name: no ctensor tensor has names */
        PyMem_Free(v);
        if (n == 0)
            return PyErr_Format(PyExc_RuntimeError,
                                "torch.cat(): expected a non-empty list of Tensors");
        return ctp_tensor_raise_name(PySequence_Fast_GET_ITEM(a[0], 0), a[1]);
    }
    if (a[1] != NULL && ctp_int64_of_arg(a[1], &dim) < 0) {
        PyMem_Free(v);
        return NULL;
    }
    PyObject *r;
    if (a[2] != NULL) {
        ct_status st = out_fn((const ct_tensor *const *)v, n, dim, ctp_tensor_get(a[2]));
        if (st != CT_OK)
            r = ctp_raise_status(st);
        else
            r = ctp_warning_error() < 0 ? NULL : Py_NewRef(a[2]);
    } else {
        ct_tensor *t = NULL;
        ct_status st = fn((const ct_tensor *const *)v, n, dim, &t);
        r = ctp_tensor_result(NULL, st, t);
    }
    PyMem_Free(v);
    return r;
}

static PyObject *py_cat(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_join("cat", cat_sigs, 2, ct_tensor_cat, ct_tensor_cat_out, args, kwargs);
}

static PyObject *py_concat(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_join("concat", cat_sigs, 2, ct_tensor_cat, ct_tensor_cat_out, args, kwargs);
}

static PyObject *py_concatenate(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_join("concatenate", concatenate_sigs, 2, ct_tensor_cat, ct_tensor_cat_out, args,
                    kwargs);
}

static PyObject *py_stack(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return run_join("stack", stack_sigs, 1, ct_tensor_stack, ct_tensor_stack_out, args, kwargs);
}

/* ---- split, chunk -------------------------------------------------------------------------- */

/* split(split_size_or_sections, dim=0) on `self`: an int splits by size, a sequence by sizes
 * (Tensor.split, written in Python in torch). */
static PyObject *split_impl(PyObject *self, PyObject *sizes, PyObject *dimobj) {
    int64_t dim = 0;
    if (dimobj != NULL && ctp_int64_of_arg(dimobj, &dim) < 0)
        return NULL;
    ct_tensor **list = NULL;
    int64_t n = 0;
    ct_status st;
    if (ctp_is_int_arg(sizes)) {
        int64_t size;
        if (ctp_int64_of_arg(sizes, &size) < 0)
            return NULL;
        st = ct_tensor_split(ctp_tensor_get(self), size, dim, &list, &n);
        return ctp_tensor_tuple_of_list(st, list, n);
    }
    if (!PyTuple_Check(sizes) && !PyList_Check(sizes))
        return PyErr_Format(PyExc_TypeError,
                            "split_with_sizes(): argument 'split_sizes' (position 2) must be "
                            "tuple of ints, not %s",
                            Py_TYPE(sizes)->tp_name);
    Py_ssize_t len = PySequence_Fast_GET_SIZE(sizes);
    int64_t *v = PyMem_Malloc((size_t)(len > 0 ? len : 1) * sizeof *v);
    if (v == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(sizes, i);
        if (!ctp_is_int_arg(item)) {
            PyMem_Free(v);
            return PyErr_Format(PyExc_TypeError,
                                "split_with_sizes(): argument 'split_sizes' (position 1) must be "
                                "tuple of ints, but found element of type %s at pos %zd",
                                Py_TYPE(item)->tp_name, i);
        }
        if (ctp_int64_of_arg(item, &v[i]) < 0) {
            PyMem_Free(v);
            return NULL;
        }
    }
    st = ct_tensor_split_with_sizes(ctp_tensor_get(self), v, len, dim, &list, &n);
    PyMem_Free(v);
    return ctp_tensor_tuple_of_list(st, list, n);
}

static PyObject *tensor_split(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"split_size", "dim"};
    PyObject *a[2];
    if (ctp_parse_python_call("split", names, 2, 1, 0, args, kwargs, a) < 0)
        return NULL;
    return split_impl(self, a[0], a[1]);
}

static PyObject *py_split(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const char *const names[] = {"tensor", "split_size_or_sections", "dim"};
    PyObject *a[3];
    if (ctp_parse_python_call("split", names, 3, 2, 0, args, kwargs, a) < 0)
        return NULL;
    if (!ctp_tensor_check(a[0]))
        return PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'split'",
                            Py_TYPE(a[0])->tp_name);
    return split_impl(a[0], a[1], a[2]);
}

static const ctp_signature chunk_fn_sig[] = {
    {3, {{TEN, "input"}, {I64, "chunks"}, {I64, "dim=0"}}},
};
static const ctp_signature chunk_sig[] = {{2, {{I64, "chunks"}, {I64, "dim=0"}}}};

static PyObject *chunk_impl(PyObject *self, PyObject *chunks, PyObject *dimobj) {
    int64_t c, dim = 0;
    if (ctp_int64_of_arg(chunks, &c) < 0 || (dimobj != NULL && ctp_int64_of_arg(dimobj, &dim) < 0))
        return NULL;
    ct_tensor **list = NULL;
    int64_t n = 0;
    ct_status st = ct_tensor_chunk(ctp_tensor_get(self), c, dim, &list, &n);
    return ctp_tensor_tuple_of_list(st, list, n);
}

static PyObject *tensor_chunk(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("chunk", chunk_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return chunk_impl(self, a[0], a[1]);
}

static PyObject *py_chunk(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("chunk", chunk_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return chunk_impl(a[0], a[1], a[2]);
}

/* ---- hstack, vstack, dstack, column_stack, atleast_Nd ---------------------------------------- */

/* A global tensor among `seq`'s items: the error of a local function, as these have no
 * global form. */
static int refuse_global(const char *fname, PyObject *seq) {
#ifdef CT_HAVE_DIST
    if (ctp_dist_seq_has_global(seq)) {
        ctp_raise_global_in_local(fname);
        return -1;
    }
#else
    (void)fname;
    (void)seq;
#endif
    return 0;
}

static const ctp_signature join_kind_sig[] = {{2, {{OBJ, "tensors"}, {TEN, "*out=None"}}}};

static PyObject *run_join_kind(const char *fname, ct_join_kind kind, PyObject *args,
                               PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args(fname, join_kind_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor **v = NULL;
    size_t n = 0;
    if (refuse_global(fname, a[0]) < 0)
        return NULL;
    if (tensors_of(fname, a[0], &v, &n) < 0)
        return NULL;
    PyObject *r;
    if (a[1] != NULL) {
        ct_status st = ct_tensor_join_kind_out(kind, (const ct_tensor *const *)v, n,
                                               ctp_tensor_get(a[1]));
        r = st != CT_OK ? ctp_raise_status(st)
                        : ctp_warning_error() < 0 ? NULL : Py_NewRef(a[1]);
    } else {
        ct_tensor *t = NULL;
        ct_status st = ct_tensor_join_kind(kind, (const ct_tensor *const *)v, n, &t);
        r = ctp_tensor_result(NULL, st, t);
    }
    PyMem_Free(v);
    return r;
}

#define JOIN_KIND(name, kind)                                                                      \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                    \
        (void)m;                                                                                   \
        return run_join_kind(#name, kind, args, kwargs);                                           \
    }
JOIN_KIND(hstack, CT_JOIN_HSTACK)
JOIN_KIND(vstack, CT_JOIN_VSTACK)
JOIN_KIND(row_stack, CT_JOIN_VSTACK)
JOIN_KIND(dstack, CT_JOIN_DSTACK)
JOIN_KIND(column_stack, CT_JOIN_COLUMN_STACK)

/* atleast_Nd(*tensors): one tensor gives a tensor (itself when it has the dims), several or
 * one sequence give a tuple, as torch's Python function. */
static PyObject *atleast_one(PyObject *obj, int ndim) {
    ct_tensor *in = ctp_tensor_get(obj), *r = NULL;
    ct_status st = ct_tensor_atleast(in, ndim, &r);
    if (st == CT_OK && r == in) { /* itself: the same Python object */
        ct_tensor_release(r);
        return Py_NewRef(obj);
    }
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *run_atleast(const char *fname, int ndim, PyObject *args, PyObject *kwargs) {
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) { /* torch's `def f(*tensors)` */
        PyObject *key = NULL, *value;
        Py_ssize_t pos = 0;
        PyDict_Next(kwargs, &pos, &key, &value);
        return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'",
                            fname, key);
    }
    if (refuse_global(fname, args) < 0)
        return NULL;
    PyObject *seq = args;
    if (PyTuple_GET_SIZE(args) == 1) {
        PyObject *only = PyTuple_GET_ITEM(args, 0);
        if (ctp_tensor_check(only))
            return atleast_one(only, ndim);
        if (!PyTuple_Check(only) && !PyList_Check(only)) /* the overloads' TypeError */
            return PyErr_Format(
                PyExc_TypeError,
                "%s() received an invalid combination of arguments - got (%s), but expected "
                "one of:\n * (Tensor input)\n      didn't match because some of the arguments "
                "have invalid types: (!%s!)\n * (tuple of Tensors tensors)\n      didn't match "
                "because some of the arguments have invalid types: (!%s!)\n",
                fname, Py_TYPE(only)->tp_name, Py_TYPE(only)->tp_name, Py_TYPE(only)->tp_name);
        seq = only; /* atleast_1d([a, b]) */
    }
    ct_tensor **v = NULL;
    size_t n = 0;
    if (refuse_global(fname, seq) < 0)
        return NULL;
    if (tensors_of(fname, seq, &v, &n) < 0)
        return NULL;
    PyMem_Free(v); /* (checked: every item is a tensor) */
    PyObject *r = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; r != NULL && i < n; i++) {
        PyObject *item = atleast_one(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), ndim);
        if (item == NULL)
            Py_CLEAR(r);
        else
            PyTuple_SET_ITEM(r, (Py_ssize_t)i, item);
    }
    return r;
}

/* meshgrid(*tensors, indexing=None): the tensors as arguments or as one sequence; indexing
 * 'ij' (PyTorch's default, with its once-per-process warning when not given) or 'xy'. */
static PyObject *py_meshgrid(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static int warned; /* PyTorch's TORCH_WARN_ONCE */
    PyObject *indexing = NULL;
    Py_ssize_t nkw = kwargs != NULL ? PyDict_GET_SIZE(kwargs) : 0;
    if (nkw > 0) {
        indexing = PyDict_GetItemString(kwargs, "indexing");
        if (indexing == NULL || nkw > 1) {
            PyObject *key = NULL, *value;
            Py_ssize_t pos = 0;
            while (PyDict_Next(kwargs, &pos, &key, &value))
                if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "indexing") != 0)
                    break;
            return PyErr_Format(PyExc_TypeError,
                                "meshgrid() got an unexpected keyword argument '%S'", key);
        }
    }
    bool xy = false;
    if (indexing == NULL || indexing == Py_None) {
        if (!warned) {
            warned = 1;
            if (PyErr_WarnEx(PyExc_UserWarning,
                             "torch.meshgrid: in an upcoming release, it will be required to pass "
                             "the indexing argument.",
                             1) < 0)
                return NULL;
        }
    } else if (PyUnicode_Check(indexing) && PyUnicode_CompareWithASCIIString(indexing, "xy") == 0) {
        xy = true;
    } else if (!PyUnicode_Check(indexing) ||
               PyUnicode_CompareWithASCIIString(indexing, "ij") != 0) {
        return PyUnicode_Check(indexing)
                   ? PyErr_Format(PyExc_RuntimeError,
                                  "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", "
                                  "but received: %U",
                                  indexing)
                   : PyErr_Format(PyExc_TypeError,
                                  "meshgrid(): argument 'indexing' must be str, not %s",
                                  Py_TYPE(indexing)->tp_name);
    }
    if (refuse_global("meshgrid", args) < 0)
        return NULL;
    PyObject *seq = args;
    if (PyTuple_GET_SIZE(args) == 1 && !ctp_tensor_check(PyTuple_GET_ITEM(args, 0)))
        seq = PyTuple_GET_ITEM(args, 0); /* meshgrid([a, b]) */
    ct_tensor **v = NULL;
    size_t n = 0;
    if (refuse_global("meshgrid", seq) < 0)
        return NULL;
    if (tensors_of("meshgrid", seq, &v, &n) < 0)
        return NULL;
    ct_tensor **grids = NULL;
    ct_status st = ct_tensor_meshgrid((const ct_tensor *const *)v, n, xy, &grids);
    PyMem_Free(v);
    return ctp_tensor_tuple_of_list(st, grids, (int64_t)n);
}

#define ATLEAST(n)                                                                                 \
    static PyObject *py_atleast_##n##d(PyObject *m, PyObject *args, PyObject *kwargs) {            \
        (void)m;                                                                                   \
        return run_atleast("atleast_" #n "d", n, args, kwargs);                                    \
    }
ATLEAST(1)
ATLEAST(2)
ATLEAST(3)

/* ---- unflatten, movedim ---------------------------------------------------------------------- */

static const ctp_signature unflatten_sig[] = {{2, {{I64, "dim"}, {ILS, "sizes"}}}};
static const ctp_signature unflatten_fn_sig[] = {
    {3, {{TEN, "input"}, {I64, "dim"}, {ILS, "sizes"}}},
};

static PyObject *unflatten_impl(PyObject *self, const ctp_signature *sig, PyObject **a) {
    int64_t dim, sizes[CT_MAX_DIMS];
    if (ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("unflatten", &sig->params[sig->nparams - 1], a[1], sizes);
    if (n < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_unflatten(ctp_tensor_get(self), dim, sizes, n, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *tensor_unflatten(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("unflatten", unflatten_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return unflatten_impl(self, &unflatten_sig[0], a);
}

static PyObject *py_unflatten(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("unflatten", unflatten_fn_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return unflatten_impl(a[0], &unflatten_fn_sig[0], a + 1);
}

static const ctp_signature movedim_sigs[] = {
    {2, {{ILS, "source"}, {ILS, "destination"}}},
    {2, {{I64, "source"}, {I64, "destination"}}},
};
static const ctp_signature movedim_fn_sigs[] = {
    {3, {{TEN, "input"}, {ILS, "source"}, {ILS, "destination"}}},
    {3, {{TEN, "input"}, {I64, "source"}, {I64, "destination"}}},
};

static PyObject *movedim_impl(PyObject *self, const char *fname, const ctp_signature *sig, int k,
                              PyObject **a) {
    int64_t src[CT_MAX_DIMS], dst[CT_MAX_DIMS];
    Py_ssize_t ns = 1, nd = 1;
    if (k == 1) {
        if (ctp_int64_of_arg(a[0], &src[0]) < 0 || ctp_int64_of_arg(a[1], &dst[0]) < 0)
            return NULL;
    } else {
        int first = sig->nparams - 2;
        ns = ctp_int_list_of_arg(fname, &sig->params[first], a[0], src);
        if (ns < 0)
            return NULL;
        nd = ctp_int_list_of_arg(fname, &sig->params[first + 1], a[1], dst);
        if (nd < 0)
            return NULL;
    }
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_movedim(ctp_tensor_get(self), src, ns, dst, nd, &r);
    return ctp_tensor_result(NULL, st, r);
}

static PyObject *method_movedim(const char *fname, PyObject *self, PyObject *args,
                                PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args(fname, movedim_sigs, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    return movedim_impl(self, fname, &movedim_sigs[k], k, a);
}

static PyObject *function_movedim(const char *fname, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args(fname, movedim_fn_sigs, 2, args, kwargs, a);
    if (k < 0)
        return NULL;
    return movedim_impl(a[0], fname, &movedim_fn_sigs[k], k, a + 1);
}

static PyObject *tensor_movedim(PyObject *self, PyObject *args, PyObject *kwargs) {
    return method_movedim("movedim", self, args, kwargs);
}
static PyObject *tensor_moveaxis(PyObject *self, PyObject *args, PyObject *kwargs) {
    return method_movedim("moveaxis", self, args, kwargs);
}
static PyObject *py_movedim(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return function_movedim("movedim", args, kwargs);
}
static PyObject *py_moveaxis(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return function_movedim("moveaxis", args, kwargs);
}

/* ---- functions that are methods of their first argument ------------------------------------- */

/* fname(input, *rest): input.fname(*rest) with the same keywords. */
static PyObject *forward_to_method(const char *fname, PyObject *args, PyObject *kwargs) {
    PyObject *input = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > 0) {
        input = PyTuple_GET_ITEM(args, 0);
    } else if (kwargs != NULL) {
        input = PyDict_GetItemString(kwargs, "input");
    }
    if (input == NULL || !ctp_tensor_check(input))
        return PyErr_Format(PyExc_TypeError,
                            "%s(): argument 'input' (position 1) must be Tensor, not %s", fname,
                            input == NULL ? "nothing" : Py_TYPE(input)->tp_name);
    PyObject *method = PyObject_GetAttrString(input, fname);
    if (method == NULL)
        return NULL;
    PyObject *rest = n > 0 ? PyTuple_GetSlice(args, 1, n) : PyTuple_New(0);
    PyObject *kw = NULL;
    if (rest != NULL && kwargs != NULL && n == 0) { /* input= given by keyword */
        kw = PyDict_Copy(kwargs);
        if (kw == NULL || PyDict_DelItemString(kw, "input") < 0)
            Py_CLEAR(rest);
    }
    PyObject *r = rest != NULL ? PyObject_Call(method, rest, kw != NULL ? kw : kwargs) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(rest);
    Py_DECREF(method);
    return r;
}

#define FORWARD(name)                                                                              \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                    \
        (void)m;                                                                                   \
        return forward_to_method(#name, args, kwargs);                                             \
    }
FORWARD(unbind)
FORWARD(flatten)
FORWARD(swapaxes)
FORWARD(swapdims)

/* ---- tables -----------------------------------------------------------------------------------
 */

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }
#define METHOD(name, doc)                                                                          \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef join_functions[] = {
    FN(cat, "cat(tensors, dim=0, *, out=None) -> Tensor\n\nConcatenate along an existing dim."),
    FN(concat, "concat(tensors, dim=0, *, out=None) -> Tensor\n\nAlias of cat."),
    FN(concatenate, "concatenate(tensors, axis=0, out=None) -> Tensor\n\nAlias of cat."),
    FN(stack, "stack(tensors, dim=0, *, out=None) -> Tensor\n\nJoin along a new dim."),
    FN(split, "split(tensor, split_size_or_sections, dim=0) -> tuple of Tensors"),
    FN(chunk, "chunk(input, chunks, dim=0) -> tuple of Tensors"),
    FN(unbind, "unbind(input, dim=0) -> tuple of Tensors"),
    FN(flatten, "flatten(input, start_dim=0, end_dim=-1) -> Tensor"),
    FN(unflatten, "unflatten(input, dim, sizes) -> Tensor"),
    FN(movedim, "movedim(input, source, destination) -> Tensor"),
    FN(moveaxis, "moveaxis(input, source, destination) -> Tensor\n\nAlias of movedim."),
    FN(swapaxes, "swapaxes(input, axis0, axis1) -> Tensor"),
    FN(swapdims, "swapdims(input, dim0, dim1) -> Tensor"),
    FN(hstack, "hstack(tensors, *, out=None) -> Tensor"),
    FN(vstack, "vstack(tensors, *, out=None) -> Tensor"),
    FN(row_stack, "row_stack(tensors, *, out=None) -> Tensor\n\nAlias of vstack."),
    FN(dstack, "dstack(tensors, *, out=None) -> Tensor"),
    FN(column_stack, "column_stack(tensors, *, out=None) -> Tensor"),
    FN(meshgrid, "meshgrid(*tensors, indexing=None) -> tuple of Tensors"),
    FN(atleast_1d, "atleast_1d(*tensors) -> Tensor or tuple of Tensors"),
    FN(atleast_2d, "atleast_2d(*tensors) -> Tensor or tuple of Tensors"),
    FN(atleast_3d, "atleast_3d(*tensors) -> Tensor or tuple of Tensors"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef join_methods[] = {
    METHOD(split, "split(split_size, dim=0) -> tuple of Tensors\n\nViews of split_size "
                  "along dim (an int), or of the given sizes (a list)."),
    METHOD(chunk, "chunk(chunks, dim=0) -> tuple of Tensors"),
    METHOD(unflatten, "unflatten(dim, sizes) -> Tensor"),
    METHOD(movedim, "movedim(source, destination) -> Tensor"),
    METHOD(moveaxis, "moveaxis(source, destination) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

int ctp_join_init(PyObject *module) {
    if (PyModule_AddFunctions(module, join_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(join_methods);
}
