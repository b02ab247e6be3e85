/* ctensor.GlobalTensor: a ctensor.Tensor whose object owns one reference to a ct_global
 * (global.h).
 *
 * A subtype of Tensor (ctensor_dist_py.h: the meta stand-in in the local slot); the Tensor
 * methods it has no global form of raise (dist_tensor_type.c), so that no local-tensor
 * function silently runs on one rank's shard. Here: logical shape, dtype, placement, sbp,
 * conversions, the logical value, printing. Every method that needs the other ranks
 * (to_global, numpy, tolist, repr, arithmetic) is collective: every rank calls it, in the
 * same order (SPMD).
 */
#include <string.h>

#include "ctensor_dist_py.h"

#define G(obj) (((ctp_global_object *)(obj))->global)

PyObject *ctp_global_wrap(ct_global *g) {
    if (g == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "ctensor: no global tensor to wrap");
        return NULL;
    }
    /* the stand-in: logical sizes and dtype on meta, no storage */
    ct_device meta = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
    ct_tensor *stand_in = NULL;
    ct_status st = ct_tensor_empty(ct_global_sizes(g), ct_global_dim(g), ct_global_dtype(g), &meta,
                                   CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &stand_in);
    if (st != CT_OK) {
        ct_global_release(g);
        return ctp_raise_status(st);
    }
    ctp_global_object *self =
        (ctp_global_object *)ctp_global_type.tp_alloc(&ctp_global_type, 0);
    if (self == NULL) {
        ct_tensor_release(stand_in);
        ct_global_release(g);
        return NULL;
    }
    self->base.tensor = stand_in;
    self->base.weakrefs = NULL;
    self->global = g;
    return (PyObject *)self;
}

PyObject *ctp_global_stand_in(PyObject *global) {
    return ctp_tensor_wrap(ct_tensor_retain(((ctp_global_object *)global)->base.tensor));
}

PyObject *ctp_global_result(PyObject *self, ct_status st, ct_global *r) {
    ctp_dist_entered(); /* the C operation ran: it agreed with the other ranks */
    if (st != CT_OK) {
        ct_global_release(r);
        if (ctp_warning_error() < 0) /* the operation's own error wins */
            PyErr_Clear();
        return ctp_dist_raise(st);
    }
    if (ctp_warning_error() < 0) { /* a warning a filter made an error */
        ct_global_release(r);
        return NULL;
    }
    if (self != NULL && ctp_global_check(self) && r == G(self)) {
        ct_global_release(r);
        return Py_NewRef(self);
    }
    return ctp_global_wrap(r);
}

static void global_dealloc(PyObject *self) {
    ctp_global_object *g = (ctp_global_object *)self;
    if (g->base.weakrefs != NULL)
        PyObject_ClearWeakRefs(self);
    ct_global_release(g->global);
    g->global = NULL;
    ct_tensor_release(g->base.tensor);
    g->base.tensor = NULL;
    Py_TYPE(self)->tp_free(self);
}

/* ---- conversions ------------------------------------------------------------------------------ */

static unsigned flags_of(int check_meta, int copy) {
    return (check_meta ? CT_GLOBAL_CHECK_META : 0u) | (copy ? CT_GLOBAL_COPY : 0u);
}

PyObject *ctp_local_to_global(PyObject *tensor, PyObject *placement, PyObject *sbp, int check_meta,
                              int copy) {
    if (placement == NULL || placement == Py_None || sbp == NULL || sbp == Py_None) {
        PyErr_SetString(PyExc_ValueError, "Converting a local tensor to global tensor must have "
                                          "placement and sbp parameters.");
        return NULL;
    }
    const ct_placement *p;
    ct_sbp s[CT_PLACEMENT_MAX_NDIM];
    int64_t n;
    if (ctp_placement_of_arg(placement, &p) < 0 ||
        ctp_nd_sbp_of_arg(sbp, ct_placement_ndim(p), s, &n) < 0)
        return NULL;
    ct_global *g = NULL;
    ct_status st = ct_global_from_local(ctp_tensor_get(tensor), p, s, n,
                                        flags_of(check_meta != 0, copy), &g);
    return ctp_global_result(NULL, st, g);
}

PyObject *ctp_global_to_global(PyObject *self, PyObject *placement, PyObject *sbp, int copy) {
    const ct_placement *p = NULL;
    ct_sbp s[CT_PLACEMENT_MAX_NDIM];
    const ct_sbp *sp = NULL;
    int64_t n = 0;
    if (placement != NULL && placement != Py_None && ctp_placement_of_arg(placement, &p) < 0)
        return NULL;
    if (sbp != NULL && sbp != Py_None) {
        const ct_placement *target = p != NULL ? p : ct_global_placement(G(self));
        if (ctp_nd_sbp_of_arg(sbp, ct_placement_ndim(target), s, &n) < 0)
            return NULL;
        sp = s;
    }
    ct_global *r = NULL;
    ct_status st = ct_global_to_global(G(self), p, sp, n, flags_of(0, copy), &r);
    return ctp_global_result(self, st, r);
}

PyObject *ctp_global_to_local(PyObject *self, int copy) {
    ct_tensor *t = NULL;
    ct_status st = ct_global_to_local(G(self), flags_of(0, copy), &t);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    return ctp_tensor_wrap(t);
}

PyObject *ctp_global_logical(PyObject *self, const char *op) {
    ct_tensor *t = NULL;
    ct_status st = ct_global_to_logical_named(G(self), op, &t);
    ctp_dist_entered();
    if (st != CT_OK)
        return ctp_dist_raise(st);
    return ctp_tensor_wrap(t);
}

static PyObject *to_global_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_p[] = "placement", k_s[] = "sbp", k_g[] = "grad_sbp", k_c[] = "check_meta",
                k_copy[] = "copy";
    static char *kwlist[] = {k_p, k_s, k_g, k_c, k_copy, NULL};
    PyObject *placement = NULL, *sbp = NULL, *grad_sbp = NULL;
    int check_meta = 0, copy = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO$Opp:to_global", kwlist, &placement, &sbp,
                                     &grad_sbp, &check_meta, &copy))
        return NULL;
    /* grad_sbp is for autograd, which ctensor does not have; check_meta: the C layer always
     * compares the arguments across ranks */
    return ctp_global_to_global(self, placement, sbp, copy);
}

static PyObject *g_to_global(PyObject *self, PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = to_global_call(self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed("to_global", mark);
}

static PyObject *g_to_local(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_copy[] = "copy";
    static char *kwlist[] = {k_copy, NULL};
    int copy = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:to_local", kwlist, &copy))
        return NULL;
    return ctp_global_to_local(self, copy);
}

static PyObject *g_local_to_global(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    (void)args;
    (void)kwargs;
    uint64_t mark = ctp_dist_mark();
    PyErr_SetString(PyExc_RuntimeError,
                    "Expected local tensor for local_to_global but got global tensor!");
    return ctp_dist_failed("to_global", mark);
}

static PyObject *g_to_consistent(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    (void)args;
    (void)kwargs;
    uint64_t mark = ctp_dist_mark();
    PyErr_SetString(PyExc_RuntimeError, ".to_consistent has been removed, please use .to_global instead");
    return ctp_dist_failed("to_global", mark);
}

static PyObject *call_on_logical(PyObject *self, const char *method) {
    PyObject *t = ctp_global_logical(self, method);
    if (t == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(t, method, NULL);
    Py_DECREF(t);
    return r;
}

/* bool(x): the value of a one-element tensor, read on every rank (collective); PyTorch's
 * error for another number of elements, raised on every rank. */
int ctp_global_bool(PyObject *self) {
    const int64_t n = ct_global_numel(G(self));
    if (n != 1) {
        uint64_t mark = ctp_dist_mark();
        PyErr_Format(PyExc_RuntimeError, "Boolean value of Tensor with %s is ambiguous",
                     n == 0 ? "no values" : "more than one value");
        ctp_dist_failed("bool", mark);
        return -1;
    }
    PyObject *t = ctp_global_logical(self, "bool");
    if (t == NULL)
        return -1;
    int r = PyObject_IsTrue(t);
    Py_DECREF(t);
    return r;
}

static PyObject *g_numpy(PyObject *self, PyObject *unused) {
    (void)unused;
    return call_on_logical(self, "numpy");
}

static PyObject *g_tolist(PyObject *self, PyObject *unused) {
    (void)unused;
    return call_on_logical(self, "tolist");
}

/* item(): the local item() of the logical value, so that a tensor of another size fails
 * alike on every rank, after the agreement. */
static PyObject *g_item(PyObject *self, PyObject *unused) {
    (void)unused;
    return call_on_logical(self, "item");
}

/* ---- queries ------------------------------------------------------------------------------------ */

static PyObject *get_shape(PyObject *self, void *closure) {
    (void)closure;
    return ctp_size_new(ct_global_sizes(G(self)), ct_global_dim(G(self)));
}

static PyObject *g_size(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_dim[] = "dim";
    static char *kwlist[] = {k_dim, NULL};
    PyObject *dim = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:size", kwlist, &dim))
        return NULL;
    if (dim == NULL || dim == Py_None)
        return get_shape(self, NULL);
    if (!ctp_is_int_arg(dim))
        return PyErr_Format(PyExc_TypeError, "size(): argument 'dim' must be int, not %s",
                            Py_TYPE(dim)->tp_name);
    int64_t d, v = 0;
    if (ctp_int64_of_arg(dim, &d) < 0)
        return NULL;
    /* a meta tensor of the logical shape words the errors as local tensors do */
    ct_device meta = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
    ct_tensor *t = NULL;
    ct_status st = ct_tensor_empty(ct_global_sizes(G(self)), ct_global_dim(G(self)),
                                   ct_global_dtype(G(self)), &meta, CT_LAYOUT_STRIDED,
                                   CT_MEMFMT_CONTIGUOUS, &t);
    if (st == CT_OK)
        st = ct_tensor_size(t, d, &v);
    ct_tensor_release(t);
    return st == CT_OK ? PyLong_FromLongLong(v) : ctp_dist_raise(st);
}

static PyObject *g_dim(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(ct_global_dim(G(self)));
}

static PyObject *g_numel(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(ct_global_numel(G(self)));
}

static PyObject *get_ndim(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(ct_global_dim(G(self)));
}

static PyObject *get_dtype(PyObject *self, void *closure) {
    (void)closure;
    return ctp_dtype_new_ref(ct_global_dtype(G(self)));
}

static PyObject *get_placement(PyObject *self, void *closure) {
    (void)closure;
    return ctp_placement_wrap(ct_placement_retain((ct_placement *)ct_global_placement(G(self))));
}

static PyObject *get_sbp(PyObject *self, void *closure) {
    (void)closure;
    return ctp_nd_sbp_tuple(ct_global_sbp(G(self)), ct_placement_ndim(ct_global_placement(G(self))));
}

static PyObject *get_true(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_TRUE;
}

static PyObject *get_false(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_FALSE;
}

static PyObject *get_device(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    PyErr_SetString(PyExc_RuntimeError, "Only local tensors have 'device'. Please use "
                                        "'.placement' for global tensors.");
    return NULL;
}

static PyObject *get_is_consistent(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    PyErr_SetString(PyExc_RuntimeError, ".is_consistent has been removed, please use .is_global instead");
    return NULL;
}

/* ---- repr ------------------------------------------------------------------------------------- */

/* The index of the comma that starts the first suffix ("size=", "dtype=", "device=") of a
 * printed tensor's body at or after `from`, or `len`; *key is where its text starts. */
static size_t next_suffix(const char *body, size_t len, size_t from, size_t *key) {
    static const char *const keys[] = {"size=", "dtype=", "device="};
    for (size_t i = from; i < len; i++) {
        if (body[i] != ',')
            continue;
        size_t j = i + 1;
        while (j < len && (body[j] == ' ' || body[j] == '\n'))
            j++;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            size_t kl = strlen(keys[k]);
            if (len - j >= kl && memcmp(body + j, keys[k], kl) == 0) {
                *key = j;
                return i;
            }
        }
    }
    *key = len;
    return len;
}

static int append(PyObject *parts, const char *text, Py_ssize_t n) {
    PyObject *s = PyUnicode_FromStringAndSize(text, n);
    if (s == NULL)
        return -1;
    int rc = PyList_Append(parts, s);
    Py_DECREF(s);
    return rc;
}

/* OneFlow's _add_suffixes: each suffix goes on the current line after ", " unless that line
 * would pass the line width, else on a new line indented under the data. */
static int add_suffix(PyObject *parts, const char *suffix, Py_ssize_t n, int64_t linewidth,
                      int64_t *last_len) {
    const int64_t indent = 7; /* strlen("tensor(") */
    if (*last_len + n + 2 > linewidth) {
        if (append(parts, ",\n       ", 2 + indent) < 0)
            return -1;
        *last_len = indent + n;
    } else {
        if (append(parts, ", ", 2) < 0)
            return -1;
        *last_len += n + 2;
    }
    return append(parts, suffix, n);
}

static PyObject *format_global(PyObject *self, const char *s, int64_t linewidth) {
    const ct_global *g = G(self);
    size_t total = strlen(s);
    if (total < 8 || memcmp(s, "tensor(", 7) != 0 || s[total - 1] != ')')
        return PyUnicode_FromString(s); /* not reached */
    const char *body = s + 7;
    size_t len = total - 8, key;
    size_t data_end = next_suffix(body, len, 0, &key);
    PyObject *parts = PyList_New(0);
    if (parts == NULL || append(parts, s, (Py_ssize_t)(7 + data_end)) < 0)
        goto fail;
    /* last_line_len as OneFlow (and PyTorch) compute it, off-by-two included */
    const char *nl = NULL;
    for (size_t i = 0; i < 7 + data_end; i++)
        if (s[i] == '\n')
            nl = s + i;
    int64_t last_len = (int64_t)(7 + data_end) - (nl != NULL ? (int64_t)(nl - s) : -1) + 1;

    char *pl = NULL;
    ct_status pst = ct_placement_format(ct_global_placement(g), "ctensor", &pl);
    if (pst != CT_OK) {
        ctp_dist_raise(pst);
        goto fail;
    }
    char buf[1024];
    char *text = buf;
    char tiny[1];
    size_t need = strlen(pl);
    size_t need_sbp = ct_nd_sbp_format(ct_global_sbp(g), ct_placement_ndim(ct_global_placement(g)),
                                       "ctensor", tiny, sizeof tiny);
    size_t cap = (need > need_sbp ? need : need_sbp) + 32;
    if (cap > sizeof buf && (text = PyMem_Malloc(cap)) == NULL) {
        ct_string_free(pl);
        PyErr_NoMemory();
        goto fail;
    }
    memcpy(text, "placement=", 10);
    memcpy(text + 10, pl, need + 1);
    ct_string_free(pl);
    int rc = add_suffix(parts, text, (Py_ssize_t)strlen(text), linewidth, &last_len);
    if (rc == 0) {
        memcpy(text, "sbp=", 4);
        ct_nd_sbp_format(ct_global_sbp(g), ct_placement_ndim(ct_global_placement(g)), "ctensor",
                         text + 4, cap - 4);
        rc = add_suffix(parts, text, (Py_ssize_t)strlen(text), linewidth, &last_len);
    }
    if (text != buf)
        PyMem_Free(text);
    if (rc < 0)
        goto fail;
    /* the local printer's suffixes but dtype= (size= of empty tensors), then dtype= always */
    size_t at = key;
    while (at < len) {
        size_t next_key;
        size_t end = next_suffix(body, len, at, &next_key);
        if (memcmp(body + at, "dtype=", 6) != 0 &&
            add_suffix(parts, body + at, (Py_ssize_t)(end - at), linewidth, &last_len) < 0)
            goto fail;
        at = next_key;
    }
    snprintf(buf, sizeof buf, "dtype=ctensor.%s", ct_dtype_name(ct_global_dtype(g)));
    if (add_suffix(parts, buf, (Py_ssize_t)strlen(buf), linewidth, &last_len) < 0 ||
        append(parts, ")", 1) < 0)
        goto fail;
    PyObject *empty = PyUnicode_FromString("");
    PyObject *r = empty != NULL ? PyUnicode_Join(empty, parts) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(parts);
    return r;
fail:
    Py_XDECREF(parts);
    return NULL;
}

/* repr() and str(): the logical value as ctensor prints it, then placement, sbp and dtype
 * (OneFlow always prints the dtype of a global tensor). Collective. */
static PyObject *global_repr(PyObject *self) {
    ct_tensor *logical = NULL;
    ct_status st = ct_global_to_logical_named(G(self), "repr", &logical);
    ctp_dist_entered();
    if (st != CT_OK)
        return ctp_dist_raise(st);
    ct_print_options o = ct_get_printoptions();
    memcpy(o.prefix, "ctensor.", sizeof "ctensor.");
    char *s = NULL;
    st = ct_tensor_repr_named(logical, &o, "tensor", &s);
    ct_tensor_release(logical);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    PyObject *r = format_global(self, s, o.linewidth);
    ct_string_free(s);
    return r;
}

/* ---- the type ---------------------------------------------------------------------------------- */

#define KW METH_VARARGS | METH_KEYWORDS

static PyMethodDef global_methods[] = {
    {"size", CTP_KW_FUNC(g_size), KW, "size(dim=None) -> ctensor.Size or int (logical)"},
    {"dim", g_dim, METH_NOARGS, "dim() -> int"},
    {"numel", g_numel, METH_NOARGS, "numel() -> int (logical)"},
    {"to_local", CTP_KW_FUNC(g_to_local), KW,
     "to_local(copy=False) -> ctensor.Tensor\n\nThis rank's local component (shares memory "
     "unless copy)."},
    {"to_global", CTP_KW_FUNC(g_to_global), KW,
     "to_global(placement=None, sbp=None, *, grad_sbp=None, check_meta=False, copy=False) -> "
     "GlobalTensor\n\nThe same logical value on another placement and/or sbp (boxing); the "
     "tensor itself when nothing changes (unless copy). Collective."},
    {"global_to_global", CTP_KW_FUNC(g_to_global), KW, "Same as to_global()."},
    {"local_to_global", CTP_KW_FUNC(g_local_to_global), KW, "Only for local tensors."},
    {"to_consistent", CTP_KW_FUNC(g_to_consistent), KW, "Removed: use to_global()."},
    {"numpy", g_numpy, METH_NOARGS,
     "numpy() -> numpy.ndarray\n\nThe logical value, on every rank. Collective."},
    {"tolist", g_tolist, METH_NOARGS,
     "tolist() -> list or number\n\nThe logical value, on every rank. Collective."},
    {"item", g_item, METH_NOARGS,
     "item() -> number\n\nThe logical value of a one-element tensor, on every rank. "
     "Collective."},
    {NULL, NULL, 0, NULL},
};

/* x.data: the same global value in a new object (no autograd to detach from) */
static PyObject *get_data(PyObject *self, void *closure) {
    (void)closure;
    return ctp_global_wrap(ct_global_retain(G(self)));
}

static PyGetSetDef global_getset[] = {
    {"data", get_data, NULL, "The same global tensor in a new object.", NULL},
    {"shape", get_shape, NULL, "The logical sizes, as a ctensor.Size.", NULL},
    {"ndim", get_ndim, NULL, "The number of logical dimensions.", NULL},
    {"dtype", get_dtype, NULL, NULL, NULL},
    {"placement", get_placement, NULL, "The ctensor.placement.", NULL},
    {"sbp", get_sbp, NULL, "The sbp of each hierarchy axis (a tuple).", NULL},
    {"is_global", get_true, NULL, NULL, NULL},
    {"is_local", get_false, NULL, NULL, NULL},
    {"device", get_device, NULL, "Only local tensors have a device.", NULL},
    {"is_consistent", get_is_consistent, NULL, "Removed: use is_global.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* clang-format off */
PyTypeObject ctp_global_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.GlobalTensor",
    .tp_basicsize = sizeof(ctp_global_object),
    .tp_dealloc = global_dealloc,
    .tp_repr = global_repr,
    .tp_str = global_repr,
    .tp_as_number = &ctp_global_as_number,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_base = &ctp_tensor_type,
    .tp_doc = "A tensor distributed over the ranks of a placement as its sbp says (OneFlow's "
              "global tensor). Made by Tensor.to_global(placement, sbp) or by the factories "
              "with placement= and sbp=.",
    .tp_weaklistoffset = offsetof(ctp_global_object, base.weakrefs),
    .tp_getset = global_getset,
};
/* clang-format on */

static PyMethodDef *merge_methods(void) {
    PyMethodDef *const parts[] = {global_methods, ctp_global_arith_methods,
                                  ctp_global_unary_methods, ctp_global_reduce_methods,
                                  ctp_global_reduce_arg_methods, ctp_global_linalg_methods,
                                  ctp_global_tensor_methods};
    const size_t n_parts = sizeof parts / sizeof parts[0];
    size_t n = 0, k = 0;
    for (size_t i = 0; i < n_parts; i++)
        for (PyMethodDef *m = parts[i]; m->ml_name != NULL; m++)
            n++;
    PyMethodDef *all = PyMem_Calloc(n + 1, sizeof *all);
    if (all == NULL)
        return (PyMethodDef *)PyErr_NoMemory();
    for (size_t i = 0; i < n_parts; i++)
        for (PyMethodDef *m = parts[i]; m->ml_name != NULL; m++)
            all[k++] = *m;
    return all;
}

int ctp_global_init(PyObject *module) {
    if (ctp_global_type.tp_methods == NULL) { /* once per process: the type is static */
        ctp_global_unary_setup(&ctp_global_as_number);
        ctp_global_compare_slots(&ctp_global_type);
        ctp_global_fill_slots(&ctp_global_type); /* what Tensor's slots would do wrong */
        ctp_global_type.tp_methods = merge_methods();
        if (ctp_global_type.tp_methods == NULL)
            return -1;
    }
    if (PyType_Ready(&ctp_global_type) < 0)
        return -1;
    /* NumPy arrays and scalars defer to global tensors in binary operations (ndarray + x is
     * x.__radd__(ndarray), computed as OneFlow does; dist_arith.c), instead of making an
     * object array of global tensors; np.add(a, x) raises NumPy's TypeError */
    PyObject *priority = PyLong_FromLong(1000);
    if (priority == NULL)
        return -1;
    int rc = PyDict_SetItemString(ctp_global_type.tp_dict, "__array_priority__", priority);
    Py_DECREF(priority);
    if (rc < 0 || PyDict_SetItemString(ctp_global_type.tp_dict, "__array_ufunc__", Py_None) < 0)
        return -1;
    ctp_tensor_global_type = &ctp_global_type;
    PyType_Modified(&ctp_global_type);
    return PyModule_AddObjectRef(module, "GlobalTensor", (PyObject *)&ctp_global_type);
}
