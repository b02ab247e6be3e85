/* ctensor.placement: a device type, ranks and a hierarchy (include/ctensor/placement.h).
 *
 *   ctensor.placement("cpu", [0, 1])            ranks=[0, 1], hierarchy (2,)
 *   ctensor.placement(type="cpu", ranks=[[0, 1], [2, 3]])    hierarchy (2, 2)
 *   ctensor.placement("cpu", {0: [0, 1]})       deprecated dict form (node id -> local ids)
 *
 * `ranks` is what NumPy would turn into an int64 array: a (nested, rectangular) list or tuple
 * of ints, a range, an integer ndarray, or one int. Anything else (ragged nesting, floats,
 * bools, strings, nothing at all) is OneFlow's RuntimeError "placement ranks shoule be an
 * array of long int" (its typo). The C library checks the rest (type, rank range,
 * duplicates) and canonicalises the ranks (sorted, row-major in the hierarchy).
 */
#include <string.h>

#include "ctensor_dist_py.h"

static const char bad_ranks[] = "placement ranks shoule be an array of long int";

#define P(obj) (((ctp_placement_object *)(obj))->placement)

PyObject *ctp_placement_wrap(ct_placement *p) {
    if (p == NULL)
        return NULL;
    ctp_placement_object *self = PyObject_New(ctp_placement_object, &ctp_placement_type);
    if (self == NULL) {
        ct_placement_release(p);
        return NULL;
    }
    self->placement = p;
    return (PyObject *)self;
}

int ctp_placement_of_arg(PyObject *obj, const ct_placement **out) {
    if (!ctp_placement_check(obj)) {
        PyErr_Format(PyExc_TypeError, "Invalid parameter placement with type %R",
                     (PyObject *)Py_TYPE(obj));
        return -1;
    }
    *out = P(obj);
    return 0;
}

/* ---- ranks ------------------------------------------------------------------------------------ */

/* The ranks of a nested argument, row-major, and the shape of the nesting. */
typedef struct {
    int64_t *ranks;
    Py_ssize_t n, cap;
    int64_t shape[CT_MAX_DIMS];
    int nshape;     /* levels of shape[] fixed so far */
    int leaf_depth; /* depth of the ints; -1 until the first one */
} ranks_acc;

static int acc_push(ranks_acc *acc, int64_t v) {
    if (acc->n == acc->cap) {
        Py_ssize_t cap = acc->cap ? acc->cap * 2 : 16;
        int64_t *r = PyMem_Realloc(acc->ranks, (size_t)cap * sizeof *r);
        if (r == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        acc->ranks = r;
        acc->cap = cap;
    }
    acc->ranks[acc->n++] = v;
    return 0;
}

static int is_ndarray(PyObject *obj) { return ctp_type_has_base(obj, "numpy.ndarray"); }

/* An integer ndarray (any integer kind), as its nested list; 0 for other dtypes. */
static int ndarray_as_list(PyObject *obj, PyObject **out) {
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    PyObject *kind = dtype != NULL ? PyObject_GetAttrString(dtype, "kind") : NULL;
    Py_XDECREF(dtype);
    if (kind == NULL)
        return -1;
    int ok = PyUnicode_Check(kind) && (PyUnicode_CompareWithASCIIString(kind, "i") == 0 ||
                                       PyUnicode_CompareWithASCIIString(kind, "u") == 0);
    Py_DECREF(kind);
    if (!ok)
        return 0;
    *out = PyObject_CallMethod(obj, "tolist", NULL);
    return *out == NULL ? -1 : 1;
}

/* Walk `obj` at nesting `depth`: 0 on success, 1 for ranks that are no int array (the
 * caller raises OneFlow's error), -1 with an exception. */
static int collect(PyObject *obj, int depth, ranks_acc *acc) {
    if (ctp_is_int_arg(obj)) {
        if (acc->leaf_depth < 0)
            acc->leaf_depth = depth;
        if (depth != acc->leaf_depth || depth != acc->nshape)
            return 1; /* ragged */
        int overflow = 0;
        PyObject *index = PyNumber_Index(obj);
        if (index == NULL)
            return -1;
        long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
        Py_DECREF(index);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow != 0)
            return 1; /* NumPy would not make int64 of it */
        return acc_push(acc, (int64_t)v);
    }
    if (is_ndarray(obj)) {
        PyObject *list = NULL;
        int k = ndarray_as_list(obj, &list);
        if (k <= 0)
            return k < 0 ? -1 : 1;
        int r = collect(list, depth, acc);
        Py_DECREF(list);
        return r;
    }
    PyObject *seq;
    if (PyList_Check(obj) || PyTuple_Check(obj) || PyRange_Check(obj))
        seq = PySequence_Tuple(obj);
    else
        return 1;
    if (seq == NULL)
        return -1;
    Py_ssize_t len = PyTuple_GET_SIZE(seq);
    int r = 0;
    if (len == 0 || depth >= CT_MAX_DIMS || (acc->leaf_depth >= 0 && depth >= acc->leaf_depth)) {
        r = 1;
    } else if (depth < acc->nshape) {
        if (acc->shape[depth] != len)
            r = 1;
    } else if (depth == acc->nshape) {
        acc->shape[acc->nshape++] = len;
    } else {
        r = 1;
    }
    for (Py_ssize_t i = 0; r == 0 && i < len; i++)
        r = collect(PyTuple_GET_ITEM(seq, i), depth + 1, acc);
    Py_DECREF(seq);
    return r;
}

static PyObject *raise_bad_ranks(void) {
    PyErr_SetString(PyExc_RuntimeError, bad_ranks);
    return NULL;
}

static int type_of_arg(PyObject *type, const char **out) {
    if (!PyUnicode_Check(type)) {
        PyErr_Format(PyExc_TypeError, "placement(): argument 'type' must be str, not %s",
                     Py_TYPE(type)->tp_name);
        return -1;
    }
    *out = PyUnicode_AsUTF8(type);
    return *out == NULL ? -1 : 0;
}

static PyObject *new_placement(const char *type, const int64_t *ranks, const int64_t *hierarchy,
                               int64_t ndim) {
    ct_placement *p = NULL;
    ct_status st = ct_placement_new(type, ranks, hierarchy, ndim, &p);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    return ctp_placement_wrap(p);
}

static PyObject *from_ranks(const char *type, PyObject *ranks) {
    ranks_acc acc = {.leaf_depth = -1};
    int k = collect(ranks, 0, &acc);
    PyObject *r = NULL;
    if (k == 0 && acc.n == 0)
        k = 1;
    if (k == 0) {
        int64_t one = 1;
        int ndim = acc.leaf_depth;
        r = ndim == 0 ? new_placement(type, acc.ranks, &one, 1)
                      : new_placement(type, acc.ranks, acc.shape, ndim);
    } else if (k > 0) {
        raise_bad_ranks();
    }
    PyMem_Free(acc.ranks);
    return r;
}

/* ---- the deprecated dict form ------------------------------------------------------------------ */

static int dict_value_ids(PyObject *value, int64_t node, int64_t per_node, ranks_acc *acc) {
    if (ctp_is_int_arg(value)) {
        int64_t id;
        if (ctp_int64_of_arg(value, &id) < 0)
            return -1;
        return acc_push(acc, node * per_node + id);
    }
    PyObject *it = PyObject_GetIter(value);
    if (it == NULL) {
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, "Value of device_ids dict must be int, list or range");
        return -1;
    }
    PyObject *item;
    int rc = 0;
    while (rc == 0 && (item = PyIter_Next(it)) != NULL) {
        int64_t id;
        if (!ctp_is_int_arg(item)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Value of device_ids dict must be int, list or range of int.");
            rc = -1;
        } else if (ctp_int64_of_arg(item, &id) < 0 || acc_push(acc, node * per_node + id) < 0) {
            rc = -1;
        }
        Py_DECREF(item);
    }
    Py_DECREF(it);
    return rc < 0 || PyErr_Occurred() ? -1 : 0;
}

static PyObject *from_dict(const char *type, PyObject *dict, PyObject *hierarchy) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The way to construct placement is deprecated, and it will be removed in "
                     "next versions. Please use ctensor.placement(type=str, ranks=int list) "
                     "instead",
                     1) < 0)
        return NULL;
    int64_t hier[CT_MAX_DIMS];
    Py_ssize_t nh = 0;
    if (hierarchy != NULL && hierarchy != Py_None) {
        if (!PyTuple_Check(hierarchy) && !PyList_Check(hierarchy))
            return PyErr_Format(PyExc_TypeError,
                                "placement(): argument 'hierarchy' must be a tuple of ints, not %s",
                                Py_TYPE(hierarchy)->tp_name);
        static const ctp_param hparam = {CTP_PARAM_INT_LIST, "hierarchy"};
        nh = ctp_int_list_of_arg("placement", &hparam, hierarchy, hier);
        if (nh < 0)
            return NULL;
    }
    int64_t world, nodes;
    ct_status st = ct_dist_world_size(&world);
    if (st == CT_OK)
        st = ct_dist_node_size(&nodes);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    const int64_t per_node = nodes > 0 ? world / nodes : world;
    /* a snapshot: reading the values may run code that changes the dict */
    PyObject *items = PyDict_Items(dict);
    if (items == NULL)
        return NULL;
    ranks_acc acc = {.leaf_depth = -1};
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *key = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0);
        PyObject *value = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
        int64_t node;
        if (!PyLong_Check(key) && !ctp_is_int_arg(key)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "The key (node id) of placement device_ids must be int64.");
        } else if (ctp_int64_of_arg(key, &node) == 0) {
            dict_value_ids(value, node, per_node, &acc);
        }
        if (PyErr_Occurred()) {
            Py_DECREF(items);
            PyMem_Free(acc.ranks);
            return NULL;
        }
    }
    Py_DECREF(items);
    PyObject *r;
    if (acc.n == 0) {
        r = raise_bad_ranks();
    } else if (nh > 0) {
        /* the C call reads prod(hierarchy) ranks: check the count here */
        int64_t prod = 1;
        for (Py_ssize_t i = 0; i < nh && prod > 0; i++)
            prod = hier[i] < 1 || hier[i] > acc.n ? -1 : prod * hier[i];
        if (prod != acc.n) {
            PyObject *shape = ctp_size_new(hier, nh);
            r = shape == NULL ? NULL
                              : PyErr_Format(PyExc_ValueError,
                                             "placement hierarchy %R does not match the number "
                                             "of ranks (%zd)",
                                             shape, acc.n);
            Py_XDECREF(shape);
        } else {
            r = new_placement(type, acc.ranks, hier, nh);
        }
    } else {
        int64_t n = acc.n;
        r = new_placement(type, acc.ranks, &n, 1);
    }
    PyMem_Free(acc.ranks);
    return r;
}

/* ---- the type ------------------------------------------------------------------------------------ */

static PyObject *placement_new(PyTypeObject *cls, PyObject *args, PyObject *kwargs) {
    static char k_type[] = "type", k_ranks[] = "ranks", k_hier[] = "hierarchy",
                k_dtype[] = "device_type", k_ids[] = "device_ids";
    static char *kwlist[] = {k_type, k_ranks, k_hier, k_dtype, k_ids, NULL};
    PyObject *type = NULL, *ranks = NULL, *hierarchy = NULL, *dtype = NULL, *ids = NULL;
    (void)cls;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOO$OO:placement", kwlist, &type, &ranks,
                                     &hierarchy, &dtype, &ids))
        return NULL;
    /* device_type= and device_ids= are the names of the deprecated form */
    if ((type != NULL && dtype != NULL) || (ranks != NULL && ids != NULL))
        return PyErr_Format(PyExc_TypeError, "placement() got multiple values for argument '%s'",
                            type != NULL && dtype != NULL ? "type" : "ranks");
    if (type == NULL)
        type = dtype;
    if (ranks == NULL)
        ranks = ids;
    if (type == NULL || ranks == NULL)
        return PyErr_Format(PyExc_TypeError, "placement() missing required argument '%s'",
                            type == NULL ? "type" : "ranks");
    const char *tname;
    if (type_of_arg(type, &tname) < 0)
        return NULL;
    if (PyDict_Check(ranks))
        return from_dict(tname, ranks, hierarchy);
    if (hierarchy != NULL && hierarchy != Py_None)
        return PyErr_Format(PyExc_TypeError,
                            "placement(): hierarchy= is only accepted with the deprecated dict of "
                            "device ids; the shape of ranks is the hierarchy");
    return from_ranks(tname, ranks);
}

static void placement_dealloc(PyObject *self) {
    ct_placement_release(P(self));
    Py_TYPE(self)->tp_free(self);
}

static PyObject *placement_repr(PyObject *self) {
    char *s = NULL;
    ct_status st = ct_placement_format(P(self), "ctensor", &s);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    PyObject *r = PyUnicode_FromString(s);
    ct_string_free(s);
    return r;
}

static Py_hash_t placement_hash(PyObject *self) {
    Py_hash_t h = (Py_hash_t)ct_placement_hash(P(self));
    return h == -1 ? -2 : h;
}

static PyObject *placement_richcompare(PyObject *a, PyObject *b, int op) {
    if (!ctp_placement_check(a) || !ctp_placement_check(b) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    bool eq = ct_placement_equal(P(a), P(b));
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *get_type(PyObject *self, void *closure) {
    (void)closure;
    return PyUnicode_FromString(ct_placement_type_name(P(self)));
}

static PyObject *get_device_type(PyObject *self, void *closure) {
    if (ctp_dist_warn_deprecated("placement.device_type is deprecated, please use placement.type "
                                 "instead") < 0)
        return NULL;
    return get_type(self, closure);
}

static PyObject *get_hierarchy(PyObject *self, void *closure) {
    (void)closure;
    if (ctp_dist_warn_deprecated("placement.hierarchy is deprecated, please use "
                                 "placement.ranks.shape instead") < 0)
        return NULL;
    return ctp_size_new(ct_placement_hierarchy(P(self)), ct_placement_ndim(P(self)));
}

/* .ranks: a NumPy int64 array shaped like the hierarchy. */
static PyObject *get_ranks(PyObject *self, void *closure) {
    (void)closure;
    const ct_placement *p = P(self);
    int64_t n = ct_placement_size(p);
    const int64_t *ranks = ct_placement_ranks(p);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; list != NULL && i < n; i++) {
        PyObject *v = PyLong_FromLongLong(ranks[i]);
        if (v == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    PyObject *shape = list != NULL ? PyTuple_New((Py_ssize_t)ct_placement_ndim(p)) : NULL;
    for (int64_t i = 0; shape != NULL && i < ct_placement_ndim(p); i++) {
        PyObject *v = PyLong_FromLongLong(ct_placement_hierarchy(p)[i]);
        if (v == NULL)
            Py_CLEAR(shape);
        else
            PyTuple_SET_ITEM(shape, (Py_ssize_t)i, v);
    }
    PyObject *np = shape != NULL ? PyImport_ImportModule("numpy") : NULL;
    PyObject *int64 = np != NULL ? PyObject_GetAttrString(np, "int64") : NULL;
    PyObject *arr = int64 != NULL ? PyObject_CallMethod(np, "array", "OO", list, int64) : NULL;
    PyObject *r = arr != NULL ? PyObject_CallMethod(arr, "reshape", "O", shape) : NULL;
    Py_XDECREF(arr);
    Py_XDECREF(int64);
    Py_XDECREF(np);
    Py_XDECREF(shape);
    Py_XDECREF(list);
    return r;
}

PyObject *ctp_placement_all(PyObject *type) {
    if (!PyUnicode_Check(type))
        return PyErr_Format(PyExc_TypeError, "all(): argument 'type' must be str, not %s",
                            Py_TYPE(type)->tp_name);
    const char *t = PyUnicode_AsUTF8(type);
    if (t == NULL)
        return NULL;
    ct_placement *p = NULL;
    ct_status st = ct_placement_all(t, &p);
    return st == CT_OK ? ctp_placement_wrap(p) : ctp_dist_raise(st);
}

static PyObject *placement_all(PyObject *unused, PyObject *type) {
    (void)unused;
    return ctp_placement_all(type);
}

static PyMethodDef placement_methods[] = {
    {"all", placement_all, METH_O | METH_STATIC,
     "all(type) -> ctensor.placement\n\nEvery process of every node (cpu), or the processes "
     "that have a device; the same as ctensor.env.all_device_placement(type)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef placement_getset[] = {
    {"type", get_type, NULL, "The device type, \"cpu\" or \"cuda\".", NULL},
    {"ranks", get_ranks, NULL, "The ranks, a NumPy int64 array shaped like the hierarchy.", NULL},
    {"hierarchy", get_hierarchy, NULL, "Deprecated: placement.ranks.shape.", NULL},
    {"device_type", get_device_type, NULL, "Deprecated: placement.type.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* clang-format off */
PyTypeObject ctp_placement_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.placement",
    .tp_basicsize = sizeof(ctp_placement_object),
    .tp_dealloc = placement_dealloc,
    .tp_repr = placement_repr,
    .tp_str = placement_repr,
    .tp_hash = placement_hash,
    .tp_richcompare = placement_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "placement(type, ranks)\n--\n\nA device type and the ranks a global tensor is "
              "distributed over; the nesting of ranks is the hierarchy (device mesh):\n"
              "ctensor.placement(type=\"cpu\", ranks=[[0, 1], [2, 3]]).",
    .tp_methods = placement_methods,
    .tp_getset = placement_getset,
    .tp_new = placement_new,
};
/* clang-format on */

int ctp_placement_init(PyObject *module) {
    if (PyType_Ready(&ctp_placement_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "placement", (PyObject *)&ctp_placement_type);
}
