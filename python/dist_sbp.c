/* ctensor.sbp: the type ctensor.sbp.sbp, split(dim), the singletons broadcast and
 * partial_sum, max_split_axis (include/ctensor/sbp.h).
 *
 * sbp objects are interned, as OneFlow's symbols are: split(0) is split(0), and broadcast()
 * returns broadcast itself (calling any sbp object returns it). Equality is by value,
 * hashing agrees with it, and pickling goes through the state pair OneFlow uses: ("S", dim),
 * ("B", -1), ("P", -1).
 */
#include <string.h>

#include "ctensor_dist_py.h"

static PyObject *split_objs[CT_SBP_MAX_SPLIT_AXIS];
static PyObject *broadcast_obj, *partial_obj;
static PyObject *sbp_module; /* borrowed: sys.modules and ctensor keep it */

static PyObject *make(ct_sbp sbp) {
    ctp_sbp_object *o = PyObject_New(ctp_sbp_object, &ctp_sbp_type);
    if (o != NULL)
        o->sbp = sbp;
    return (PyObject *)o;
}

PyObject *ctp_sbp_new_ref(ct_sbp sbp) {
    switch (sbp.kind) {
    case CT_SBP_BROADCAST:
        return Py_NewRef(broadcast_obj);
    case CT_SBP_PARTIAL_SUM:
        return Py_NewRef(partial_obj);
    case CT_SBP_SPLIT:
    default:
        if (sbp.dim >= 0 && sbp.dim < CT_SBP_MAX_SPLIT_AXIS)
            return Py_NewRef(split_objs[sbp.dim]);
        return make(sbp); /* not reached: the C library keeps dims in range */
    }
}

PyObject *ctp_nd_sbp_tuple(const ct_sbp *sbp, int64_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (int64_t i = 0; t != NULL && i < n; i++) {
        PyObject *o = ctp_sbp_new_ref(sbp[i]);
        if (o == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, o);
    }
    return t;
}

static const char sbp_type_error[] =
    "sbp parameter must be type of ctensor.sbp.sbp or list/tuple of ctensor.sbp.sbp";

int ctp_nd_sbp_of_arg(PyObject *obj, int64_t placement_ndim, ct_sbp out[CT_PLACEMENT_MAX_NDIM],
                      int64_t *n) {
    if (ctp_sbp_check(obj)) {
        out[0] = ((ctp_sbp_object *)obj)->sbp;
        *n = 1;
        return 0;
    }
    if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "Invalid parameter sbp with type %R",
                     (PyObject *)Py_TYPE(obj));
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(obj);
    for (Py_ssize_t i = 0; i < len; i++) {
        if (!ctp_sbp_check(PySequence_Fast_GET_ITEM(obj, i))) {
            PyErr_SetString(PyExc_TypeError, sbp_type_error);
            return -1;
        }
    }
    if (len > CT_PLACEMENT_MAX_NDIM) { /* the C library's message, without the C call */
        PyErr_Format(PyExc_ValueError,
                     "The number of sbp (%zd) must match the number of placement hierarchy dims "
                     "(%lld)",
                     len, (long long)placement_ndim);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++)
        out[i] = ((ctp_sbp_object *)PySequence_Fast_GET_ITEM(obj, i))->sbp;
    *n = (int64_t)len;
    return 0;
}

/* ---- the type ------------------------------------------------------------------------------- */

static void sbp_dealloc(PyObject *self) { Py_TYPE(self)->tp_free(self); }

static PyObject *sbp_repr(PyObject *self) {
    char buf[64];
    ct_sbp_format(((ctp_sbp_object *)self)->sbp, "ctensor", buf, sizeof buf);
    return PyUnicode_FromString(buf);
}

static Py_hash_t sbp_hash(PyObject *self) {
    ct_sbp s = ((ctp_sbp_object *)self)->sbp;
    return (Py_hash_t)(0x5b90 + 16 * (int)s.kind + (s.kind == CT_SBP_SPLIT ? s.dim : 0));
}

static PyObject *sbp_richcompare(PyObject *a, PyObject *b, int op) {
    if (!ctp_sbp_check(a) || !ctp_sbp_check(b) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    bool eq = ct_sbp_equal(((ctp_sbp_object *)a)->sbp, ((ctp_sbp_object *)b)->sbp);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* broadcast() is broadcast: OneFlow's sbp objects return themselves when called. */
static PyObject *sbp_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0))
        return PyErr_Format(PyExc_TypeError, "%R takes no arguments", self);
    return Py_NewRef(self);
}

static PyObject *sbp_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_sbp s = ((ctp_sbp_object *)self)->sbp;
    PyObject *fn = PyObject_GetAttrString(sbp_module, "_from_state");
    if (fn == NULL)
        return NULL;
    const char *kind = s.kind == CT_SBP_SPLIT ? "S" : s.kind == CT_SBP_BROADCAST ? "B" : "P";
    return Py_BuildValue("(N(si))", fn, kind, s.kind == CT_SBP_SPLIT ? (int)s.dim : -1);
}

static PyMethodDef sbp_methods[] = {
    {"__reduce__", sbp_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* clang-format off */
PyTypeObject ctp_sbp_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.sbp.sbp",
    .tp_basicsize = sizeof(ctp_sbp_object),
    .tp_dealloc = sbp_dealloc,
    .tp_repr = sbp_repr,
    .tp_str = sbp_repr,
    .tp_hash = sbp_hash,
    .tp_call = sbp_call,
    .tp_richcompare = sbp_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "How one hierarchy axis of a placement holds a global tensor: "
              "ctensor.sbp.split(dim), ctensor.sbp.broadcast or ctensor.sbp.partial_sum.",
    .tp_methods = sbp_methods,
};
/* clang-format on */

/* ---- module functions ------------------------------------------------------------------------ */

/* An int beyond int64 cannot be a split dim; word it as the C library would. */
static PyObject *split_of_long(PyObject *dim) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(dim, &overflow);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (overflow < 0)
        return PyErr_Format(PyExc_RuntimeError, "Split axis must not be negative, but got %S!",
                            dim);
    if (overflow > 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "Expected split axis to be less than the supported maximum axis "
                            "(%d), but got %S!",
                            CT_SBP_MAX_SPLIT_AXIS, dim);
    ct_sbp s;
    ct_status st = ct_sbp_split((int64_t)v, &s);
    return st == CT_OK ? ctp_sbp_new_ref(s) : ctp_dist_raise(st);
}

static PyObject *py_split(PyObject *m, PyObject *args, PyObject *kwargs) {
    static char k_dim[] = "dim", k_axis[] = "axis";
    static char *kwlist[] = {k_dim, k_axis, NULL};
    PyObject *dim = NULL, *axis = NULL;
    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$O:split", kwlist, &dim, &axis))
        return NULL;
    if (axis != NULL) {
        if (dim != NULL)
            return PyErr_Format(PyExc_TypeError, "split() got both 'dim' and 'axis'");
        if (PyErr_WarnEx(PyExc_UserWarning, "'axis' is deprecated and will be updated to 'dim'",
                         1) < 0)
            return NULL;
        dim = axis;
    }
    if (dim == NULL)
        return PyErr_Format(PyExc_TypeError, "split() missing required argument 'dim' (pos 1)");
    if (!PyLong_Check(dim) || PyBool_Check(dim))
        return PyErr_Format(PyExc_TypeError, "split(): argument 'dim' must be int, not %s",
                            Py_TYPE(dim)->tp_name);
    return split_of_long(dim);
}

/* _from_state(kind, dim): the inverse of __reduce__'s state. */
static PyObject *py_from_state(PyObject *m, PyObject *args) {
    const char *kind;
    int dim;
    (void)m;
    if (!PyArg_ParseTuple(args, "si:_from_state", &kind, &dim))
        return NULL;
    if (strcmp(kind, "B") == 0)
        return Py_NewRef(broadcast_obj);
    if (strcmp(kind, "P") == 0)
        return Py_NewRef(partial_obj);
    if (strcmp(kind, "S") == 0) {
        ct_sbp s;
        ct_status st = ct_sbp_split(dim, &s);
        return st == CT_OK ? ctp_sbp_new_ref(s) : ctp_dist_raise(st);
    }
    return PyErr_Format(PyExc_RuntimeError, "Invalid sbp signature state: (%s, %d);", kind, dim);
}

static PyMethodDef sbp_functions[] = {
    {"split", CTP_KW_FUNC(py_split), METH_VARARGS | METH_KEYWORDS,
     "split(dim) -> ctensor.sbp.sbp\n\nEach rank of the axis holds a balanced slice along dim "
     "(0 <= dim < max_split_axis)."},
    {"_from_state", py_from_state, METH_VARARGS, "_from_state(kind, dim): for pickle."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef sbp_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor.sbp",
    .m_doc = "SBP signatures of global tensors: split(dim), broadcast, partial_sum.",
    .m_size = -1,
    .m_methods = sbp_functions,
};

int ctp_sbp_init(PyObject *module) {
    if (PyType_Ready(&ctp_sbp_type) < 0)
        return -1;
    if (broadcast_obj == NULL) { /* once per process: the objects are interned for good */
        broadcast_obj = make(ct_sbp_broadcast());
        partial_obj = make(ct_sbp_partial_sum());
        if (broadcast_obj == NULL || partial_obj == NULL)
            return -1;
        for (int i = 0; i < CT_SBP_MAX_SPLIT_AXIS; i++) {
            ct_sbp s = {CT_SBP_SPLIT, i};
            if ((split_objs[i] = make(s)) == NULL)
                return -1;
        }
    }
    PyObject *sub = ctp_add_submodule(module, &sbp_module_def, "sbp");
    if (sub == NULL)
        return -1;
    sbp_module = sub;
    if (PyModule_AddObjectRef(sub, "sbp", (PyObject *)&ctp_sbp_type) < 0 ||
        PyModule_AddObjectRef(sub, "broadcast", broadcast_obj) < 0 ||
        PyModule_AddObjectRef(sub, "partial_sum", partial_obj) < 0 ||
        PyModule_AddIntConstant(sub, "max_split_axis", CT_SBP_MAX_SPLIT_AXIS) < 0)
        return -1;
    return 0;
}
