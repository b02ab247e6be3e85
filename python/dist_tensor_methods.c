/* The global-tensor API of local tensors (is_global, is_local, placement, sbp, to_global,
 * local_to_global, and the errors of the global-only and removed methods), and the module
 * functions ctensor.to_global / ctensor.to_local, which also walk lists, tuples and dicts
 * (state dicts), as OneFlow's do.
 */
#include "ctensor_dist_py.h"

static PyObject *raise_runtime(const char *message) {
    PyErr_SetString(PyExc_RuntimeError, message);
    return NULL;
}

/* ---- attributes ------------------------------------------------------------------------------ */

static PyObject *get_is_global(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_FALSE;
}

static PyObject *get_is_local(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_TRUE;
}

static PyObject *get_placement(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    return raise_runtime("Only global tensors have 'placement'. Placement is used to describe the "
                         "distribution of global tensor in multiple GPUs. Please use '.device' "
                         "for local tensors.");
}

static PyObject *get_sbp(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    return raise_runtime(
        "Local tensor has no sbp property. sbp is the description in the distributed case, "
        "see ctensor.sbp; for example, create a global tensor like this : 'x = "
        "ctensor.tensor((), placement=ctensor.placement(\"cpu\", [0]), "
        "sbp=ctensor.sbp.broadcast)', then 'x.sbp' is (ctensor.sbp.broadcast,)");
}

static PyObject *get_is_consistent(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    return raise_runtime(".is_consistent has been removed, please use .is_global instead");
}

PyGetSetDef ctp_dist_tensor_getset[] = {
    {"is_global", get_is_global, NULL, "False: a local tensor.", NULL},
    {"is_local", get_is_local, NULL, "True: a local tensor.", NULL},
    {"placement", get_placement, NULL, "Only global tensors have a placement.", NULL},
    {"sbp", get_sbp, NULL, "Only global tensors have an sbp.", NULL},
    {"is_consistent", get_is_consistent, NULL, "Removed: use is_global.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods ------------------------------------------------------------------------------------- */

static int parse_local_to_global(const char *fname, PyObject *args, PyObject *kwargs,
                                 PyObject **placement, PyObject **sbp, int *check_meta,
                                 int *copy) {
    static char k_p[] = "placement", k_s[] = "sbp", k_c[] = "check_meta", k_copy[] = "copy";
    static char *kwlist[] = {k_p, k_s, k_c, k_copy, NULL};
    char format[64];
    snprintf(format, sizeof format, "|OO$pp:%s", fname);
    *placement = *sbp = NULL;
    *check_meta = 1;
    *copy = 0;
    return PyArg_ParseTupleAndKeywords(args, kwargs, format, kwlist, placement, sbp, check_meta,
                                       copy)
               ? 0
               : -1;
}

/* A local tensor's to_global: every error before the C call is shared with the other ranks
 * (ctp_dist_failed), which are in the agreement of their own to_global. */
static PyObject *local_to_global(const char *fname, PyObject *self, PyObject *args,
                                 PyObject *kwargs) {
    PyObject *placement, *sbp, *r = NULL;
    int check_meta, copy;
    uint64_t mark = ctp_dist_mark();
    if (parse_local_to_global(fname, args, kwargs, &placement, &sbp, &check_meta, &copy) == 0)
        r = ctp_local_to_global(self, placement, sbp, check_meta, copy);
    return r != NULL ? r : ctp_dist_failed("to_global", mark);
}

static PyObject *t_to_global(PyObject *self, PyObject *args, PyObject *kwargs) {
    return local_to_global("to_global", self, args, kwargs);
}

static PyObject *t_local_to_global(PyObject *self, PyObject *args, PyObject *kwargs) {
    return local_to_global("local_to_global", self, args, kwargs);
}

static PyObject *t_to_local(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    (void)args;
    (void)kwargs;
    return raise_runtime("Expected global tensor for to_local but got local tensor!");
}

static PyObject *t_global_to_global(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    (void)args;
    (void)kwargs;
    uint64_t mark = ctp_dist_mark();
    raise_runtime("Expected global tensor for global_to_global but got local tensor!");
    return ctp_dist_failed("to_global", mark);
}

static PyObject *t_to_consistent(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    (void)args;
    (void)kwargs;
    uint64_t mark = ctp_dist_mark();
    raise_runtime(".to_consistent has been removed, please use .to_global instead");
    return ctp_dist_failed("to_global", mark);
}

#define KW METH_VARARGS | METH_KEYWORDS

PyMethodDef ctp_dist_tensor_methods[] = {
    {"to_global", CTP_KW_FUNC(t_to_global), KW,
     "to_global(placement=None, sbp=None, *, check_meta=True, copy=False) -> GlobalTensor\n\n"
     "This tensor becomes this rank's local component of a global tensor. Collective."},
    {"local_to_global", CTP_KW_FUNC(t_local_to_global), KW, "Same as to_global()."},
    {"to_local", CTP_KW_FUNC(t_to_local), KW, "Only for global tensors."},
    {"global_to_global", CTP_KW_FUNC(t_global_to_global), KW, "Only for global tensors."},
    {"to_consistent", CTP_KW_FUNC(t_to_consistent), KW, "Removed: use to_global()."},
    {NULL, NULL, 0, NULL},
};

/* ---- ctensor.to_global / ctensor.to_local -------------------------------------------------------- */

typedef struct {
    int global; /* 1: to_global, 0: to_local */
    PyObject *placement, *sbp;
    int check_meta; /* -1: the default of each kind of tensor */
    int copy;
} convert_ctx;

static PyObject *convert_one(PyObject *obj, const convert_ctx *c) {
    if (c->global) {
        uint64_t mark = ctp_dist_mark();
        PyObject *r = ctp_global_check(obj)
                          ? ctp_global_to_global(obj, c->placement, c->sbp, c->copy)
                          : ctp_local_to_global(obj, c->placement, c->sbp, c->check_meta != 0,
                                                c->copy);
        return r != NULL ? r : ctp_dist_failed("to_global", mark);
    }
    if (ctp_global_check(obj))
        return ctp_global_to_local(obj, c->copy);
    return raise_runtime("Expected global tensor for to_local but got local tensor!");
}

/* A container of the same type holding `items` (a list): list and tuple as they are, a
 * namedtuple from its fields, other subclasses from the list. */
static PyObject *rebuild(PyObject *obj, PyObject *items) {
    if (PyList_CheckExact(obj))
        return Py_NewRef(items);
    PyObject *tuple = PyList_AsTuple(items);
    if (tuple == NULL || PyTuple_CheckExact(obj))
        return tuple;
    PyObject *r;
    if (PyTuple_Check(obj) && PyObject_HasAttrString(obj, "_fields"))
        r = PyObject_Call((PyObject *)Py_TYPE(obj), tuple, NULL);
    else
        r = PyObject_CallOneArg((PyObject *)Py_TYPE(obj), PyList_Check(obj) ? items : tuple);
    Py_DECREF(tuple);
    return r;
}

static PyObject *walk(PyObject *obj, const convert_ctx *c) {
    if (ctp_tensor_check(obj) || ctp_global_check(obj))
        return convert_one(obj, c);
    int is_seq = PyList_Check(obj) || PyTuple_Check(obj);
    if (!is_seq && !PyDict_Check(obj))
        return Py_NewRef(obj);
    if (Py_EnterRecursiveCall(" in to_global/to_local"))
        return NULL;
    PyObject *r = NULL;
    if (is_seq) {
        PyObject *seq = PySequence_Fast(obj, "");
        PyObject *items = seq != NULL ? PyList_New(PySequence_Fast_GET_SIZE(seq)) : NULL;
        for (Py_ssize_t i = 0; items != NULL && i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *v = walk(PySequence_Fast_GET_ITEM(seq, i), c);
            if (v == NULL)
                Py_CLEAR(items);
            else
                PyList_SET_ITEM(items, i, v);
        }
        if (items != NULL)
            r = rebuild(obj, items);
        Py_XDECREF(items);
        Py_XDECREF(seq);
    } else {
        PyObject *pairs = PyDict_Items(obj);
        PyObject *d = pairs != NULL ? PyDict_New() : NULL;
        for (Py_ssize_t i = 0; d != NULL && i < PyList_GET_SIZE(pairs); i++) {
            PyObject *pair = PyList_GET_ITEM(pairs, i);
            PyObject *v = walk(PyTuple_GET_ITEM(pair, 1), c);
            if (v == NULL || PyDict_SetItem(d, PyTuple_GET_ITEM(pair, 0), v) < 0)
                Py_CLEAR(d);
            Py_XDECREF(v);
        }
        if (d != NULL)
            r = PyDict_CheckExact(obj) ? Py_NewRef(d)
                                       : PyObject_CallOneArg((PyObject *)Py_TYPE(obj), d);
        Py_XDECREF(d);
        Py_XDECREF(pairs);
    }
    Py_LeaveRecursiveCall();
    return r;
}

/* How many tensors walk() converts in `obj`: the steps of a to_global over a container. 0,
 * or -1 with an exception. */
static int count_tensors(PyObject *obj, int64_t *n) {
    if (ctp_tensor_check(obj) || ctp_global_check(obj)) {
        (*n)++;
        return 0;
    }
    int is_seq = PyList_Check(obj) || PyTuple_Check(obj);
    if (!is_seq && !PyDict_Check(obj))
        return 0;
    if (Py_EnterRecursiveCall(" in to_global/to_local"))
        return -1;
    PyObject *items = is_seq ? PySequence_Fast(obj, "") : PyDict_Values(obj);
    int rc = items != NULL ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(items); i++)
        rc = count_tensors(PySequence_Fast_GET_ITEM(items, i), n);
    Py_XDECREF(items);
    Py_LeaveRecursiveCall();
    return rc;
}

static PyObject *py_to_global(PyObject *m, PyObject *args, PyObject *kwargs) {
    static char k_in[] = "input", k_p[] = "placement", k_s[] = "sbp", k_g[] = "grad_sbp",
                k_c[] = "check_meta", k_copy[] = "copy";
    static char *kwlist[] = {k_in, k_p, k_s, k_g, k_c, k_copy, NULL};
    convert_ctx c = {1, NULL, NULL, -1, 0};
    PyObject *input, *grad_sbp = NULL, *check_meta = NULL;
    (void)m;
    uint64_t mark = ctp_dist_mark();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO$OOp:to_global", kwlist, &input,
                                     &c.placement, &c.sbp, &grad_sbp, &check_meta, &c.copy))
        return ctp_dist_failed("to_global", mark);
    if (check_meta != NULL && check_meta != Py_None) {
        c.check_meta = PyObject_IsTrue(check_meta);
        if (c.check_meta < 0)
            return ctp_dist_failed("to_global", mark);
    }
    /* A container converts its tensors one by one: the ranks first agree on how many, or a
     * rank with one tensor more would wait in a conversion the others never start. */
    if (!ctp_tensor_check(input) && !ctp_global_check(input)) {
        int64_t n = 0;
        if (count_tensors(input, &n) < 0)
            return ctp_dist_failed("to_global", mark);
        ct_status st = ct_global_begin("to_global", n);
        ctp_dist_entered();
        if (st != CT_OK)
            return ctp_dist_raise(st);
    }
    return walk(input, &c);
}

static PyObject *py_to_local(PyObject *m, PyObject *args, PyObject *kwargs) {
    static char k_in[] = "input", k_copy[] = "copy";
    static char *kwlist[] = {k_in, k_copy, NULL};
    convert_ctx c = {0, NULL, NULL, -1, 0};
    PyObject *input;
    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:to_local", kwlist, &input, &c.copy))
        return NULL;
    return walk(input, &c);
}

PyMethodDef ctp_dist_functions[] = {
    {"to_global", CTP_KW_FUNC(py_to_global), KW,
     "to_global(input, placement=None, sbp=None, *, grad_sbp=None, check_meta=None, copy=False)"
     "\n\nTensor.to_global of a tensor, or of every tensor in nested lists, tuples and dicts "
     "(other objects pass through). Collective."},
    {"to_local", CTP_KW_FUNC(py_to_local), KW,
     "to_local(input, copy=False)\n\nGlobalTensor.to_local of a tensor, or of every tensor in "
     "nested lists, tuples and dicts (other objects pass through)."},
    {NULL, NULL, 0, NULL},
};
