/* ctensor.Tensor: a Python object owning one reference to a ct_tensor.
 *
 * The type holds what every tensor answers about itself (shape, sizes, strides, dtype,
 * device, layout, contiguity); views, conversions, indexing and data access live in the
 * other tensor_*.c files, whose method tables are merged into the type when the module
 * initialises. Every fact comes from the C API; this layer converts arguments with PyTorch's
 * parser rules (argparse.c) and raises PyTorch's exceptions.
 *
 * The type may be subclassed (torch.Tensor can be) and supports weak references; operations
 * return plain ctensor.Tensor objects. There is no autograd: requires_grad is always False.
 */
#include <stdatomic.h>
#include <string.h>

#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* is_global, to_global, ... of local tensors */
#endif

/* ---- allocation counting, for the leak tests ------------------------------------------- */

/* The module wraps the host allocator it finds at initialisation (before it creates any
 * tensor) with one that counts live blocks, so tests can check that no call leaks tensor
 * memory: ctensor._live_allocations(). Blocks made before the wrapper was installed may be
 * freed through it, so the count is only meaningful as a difference. */
static ct_allocator inner_allocator;
static atomic_llong live_blocks;

static void *counting_alloc(void *ctx, size_t size, size_t align) {
    (void)ctx;
    void *p = inner_allocator.alloc(inner_allocator.ctx, size, align);
    if (p != NULL)
        atomic_fetch_add(&live_blocks, 1);
    return p;
}

static void counting_free(void *ctx, void *ptr, size_t size, size_t align) {
    (void)ctx;
    if (ptr != NULL)
        atomic_fetch_sub(&live_blocks, 1);
    inner_allocator.free(inner_allocator.ctx, ptr, size, align);
}

static int install_counting_allocator(void) {
    static int installed;
    if (installed)
        return 0;
    inner_allocator = ct_get_allocator();
    ct_allocator counting = {NULL, counting_alloc, counting_free};
    ct_status st = ct_set_allocator(&counting);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    installed = 1;
    return 0;
}

static PyObject *py_live_allocations(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(atomic_load(&live_blocks));
}

static PyMethodDef debug_functions[] = {
    {"_live_allocations", py_live_allocations, METH_NOARGS,
     "_live_allocations() -> int\n\nHost memory blocks ctensor holds (for leak tests)."},
    {NULL, NULL, 0, NULL},
};

PyObject *(*ctp_tensor_repr_hook)(PyObject *tensor) = NULL;

PyTypeObject *ctp_tensor_global_type = NULL;

/* The exact type first: a local tensor pays what PyObject_TypeCheck costs. */
int ctp_tensor_check(PyObject *obj) {
    if (Py_IS_TYPE(obj, &ctp_tensor_type))
        return 1;
    return PyType_IsSubtype(Py_TYPE(obj), &ctp_tensor_type) &&
           Py_TYPE(obj) != ctp_tensor_global_type;
}

ct_tensor *ctp_tensor_get(PyObject *obj) {
    return ctp_tensor_check(obj) ? ((ctp_tensor_object *)obj)->tensor : NULL;
}

PyObject *ctp_tensor_wrap(ct_tensor *t) {
    if (t == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "ctensor: no tensor to wrap");
        return NULL;
    }
    ctp_tensor_object *self = (ctp_tensor_object *)ctp_tensor_type.tp_alloc(&ctp_tensor_type, 0);
    if (self == NULL) {
        ct_tensor_release(t);
        return NULL;
    }
    self->tensor = t;
    self->weakrefs = NULL;
    return (PyObject *)self;
}

PyObject *ctp_tensor_result(PyObject *self, ct_status st, ct_tensor *r) {
    if (st != CT_OK) {
        ct_tensor_release(r);
        return ctp_raise_status(st);
    }
    if (self != NULL && r == ctp_tensor_get(self)) { /* PyTorch returns `self` itself */
        ct_tensor_release(r);
        return Py_NewRef(self);
    }
    return ctp_tensor_wrap(r);
}

static ct_tensor *T(PyObject *self) { return ((ctp_tensor_object *)self)->tensor; }

static void tensor_dealloc(PyObject *self) {
    ctp_tensor_object *t = (ctp_tensor_object *)self;
    if (t->weakrefs != NULL)
        PyObject_ClearWeakRefs(self);
    ct_tensor_release(t->tensor);
    t->tensor = NULL;
    Py_TYPE(self)->tp_free(self);
}

/* ---- repr ------------------------------------------------------------------------------ */

static PyObject *tensor_repr(PyObject *self) {
    if (ctp_tensor_repr_hook != NULL)
        return ctp_tensor_repr_hook(self);
    PyObject *shape = ctp_size_new(ct_tensor_sizes(T(self)), ct_tensor_dim(T(self)));
    if (shape == NULL)
        return NULL;
    PyObject *list = PySequence_List(shape);
    Py_DECREF(shape);
    if (list == NULL)
        return NULL;
    char dev[CT_DEVICE_STRING_MAX];
    ct_status st = ct_device_str(ct_tensor_device(T(self)), dev, sizeof dev);
    if (st != CT_OK) {
        Py_DECREF(list);
        return ctp_raise_status(st);
    }
    PyObject *r = PyUnicode_FromFormat("<ctensor.Tensor shape=%R dtype=ctensor.%s device=%s>", list,
                                       ct_dtype_name(ct_tensor_dtype(T(self))), dev);
    Py_DECREF(list);
    return r;
}

/* ---- attributes ------------------------------------------------------------------------ */

static PyObject *get_shape(PyObject *self, void *closure) {
    (void)closure;
    return ctp_size_new(ct_tensor_sizes(T(self)), ct_tensor_dim(T(self)));
}

static PyObject *get_dtype(PyObject *self, void *closure) {
    (void)closure;
    return ctp_dtype_new_ref(ct_tensor_dtype(T(self)));
}

static PyObject *get_device(PyObject *self, void *closure) {
    (void)closure;
    return ctp_device_new(ct_tensor_device(T(self)));
}

static PyObject *get_layout(PyObject *self, void *closure) {
    (void)closure;
    return ctp_layout_new_ref(ct_tensor_layout(T(self)));
}

static PyObject *get_ndim(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(ct_tensor_dim(T(self)));
}

static PyObject *get_is_type(PyObject *self, void *closure) {
    return PyBool_FromLong(ct_tensor_device(T(self)).type == (ct_device_type)(intptr_t)closure);
}

static PyObject *get_is_sparse(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(ct_tensor_layout(T(self)) == CT_LAYOUT_SPARSE_COO);
}

static PyObject *get_itemsize(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(ct_tensor_element_size(T(self)));
}

static PyObject *get_nbytes(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(ct_tensor_nbytes(T(self)));
}

static PyObject *get_false(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_FALSE;
}

static PyObject *get_true(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_TRUE;
}

static PyObject *get_none(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    Py_RETURN_NONE;
}

#define DEVICE_CLOSURE(type) ((void *)(intptr_t)(type))

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, NULL, "The sizes, as a ctensor.Size.", NULL},
    {"dtype", get_dtype, NULL, NULL, NULL},
    {"device", get_device, NULL, NULL, NULL},
    {"layout", get_layout, NULL, NULL, NULL},
    {"ndim", get_ndim, NULL, "The number of dimensions (dim()).", NULL},
    {"is_cuda", get_is_type, NULL, NULL, DEVICE_CLOSURE(CT_DEVICE_CUDA)},
    {"is_cpu", get_is_type, NULL, NULL, DEVICE_CLOSURE(CT_DEVICE_CPU)},
    {"is_meta", get_is_type, NULL, NULL, DEVICE_CLOSURE(CT_DEVICE_META)},
    {"is_xpu", get_is_type, NULL, NULL, DEVICE_CLOSURE(CT_DEVICE_XPU)},
    {"is_mps", get_is_type, NULL, NULL, DEVICE_CLOSURE(CT_DEVICE_MPS)},
    {"is_sparse", get_is_sparse, NULL, NULL, NULL},
    {"is_quantized", get_false, NULL, NULL, NULL},
    {"itemsize", get_itemsize, NULL, "Bytes per element (element_size()).", NULL},
    {"nbytes", get_nbytes, NULL, "numel() * element_size().", NULL},
    /* No autograd: the attributes code commonly reads, with their values for a tensor that
     * does not require gradients. */
    {"requires_grad", get_false, ctp_tensor_set_requires_grad,
     "Always False: ctensor has no autograd (setting False is accepted).", NULL},
    {"grad_fn", get_none, NULL, NULL, NULL},
    {"is_leaf", get_true, NULL, NULL, NULL},
    {"grad", get_none, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- size(), stride() and other queries -------------------------------------------------- */

/* What PyTorch says for a dimension name, as no ctensor tensor has names: "Name 'a' not
 * found in Tensor[None, None].", or for None "Please look up dimensions by name, got: name =
 * None.". */
PyObject *ctp_tensor_raise_name(PyObject *self, PyObject *name) {
    if (name == NULL || name == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "Please look up dimensions by name, got: name = None.");
        return NULL;
    }
    PyObject *names = PyUnicode_FromString("");
    for (int64_t i = 0; names != NULL && i < ct_tensor_dim(T(self)); i++) {
        PyObject *more = PyUnicode_FromFormat("%U%s", names, i > 0 ? ", None" : "None");
        Py_SETREF(names, more);
    }
    if (names == NULL)
        return NULL;
    PyErr_Format(PyExc_RuntimeError, "Name '%U' not found in Tensor[%U].", name, names);
    Py_DECREF(names);
    return NULL;
}

static const ctp_signature dim_query_sigs[] = {
    {1, {{CTP_PARAM_INT64, "dim"}}},
    {0, {{0}}},
    {1, {{CTP_PARAM_NAME, "dim"}}},
};

static PyObject *dim_query(PyObject *self, PyObject *args, PyObject *kwargs, const char *fname,
                           const int64_t *all,
                           ct_status (*one)(const ct_tensor *, int64_t, int64_t *)) {
    PyObject *a[CTP_MAX_PARAMS];
    int sig = ctp_parse_args(fname, dim_query_sigs, 3, args, kwargs, a);
    if (sig < 0)
        return NULL;
    if (sig == 1) {
        int64_t n = ct_tensor_dim(T(self));
        PyObject *r = PyTuple_New((Py_ssize_t)n);
        for (int64_t i = 0; r != NULL && i < n; i++) {
            PyObject *v = PyLong_FromLongLong(all[i]);
            if (v == NULL)
                Py_CLEAR(r);
            else
                PyTuple_SET_ITEM(r, (Py_ssize_t)i, v);
        }
        return r;
    }
    if (sig == 2)
        return ctp_tensor_raise_name(self, a[0]);
    int64_t dim, v;
    if (ctp_int64_of_arg(a[0], &dim) < 0)
        return NULL;
    ct_status st = one(T(self), dim, &v);
    return st == CT_OK ? PyLong_FromLongLong(v) : ctp_raise_status(st);
}

static PyObject *tensor_size(PyObject *self, PyObject *args, PyObject *kwargs) {
    /* size() is a ctensor.Size, size(dim) an int */
    if (PyTuple_GET_SIZE(args) == 0 && (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0))
        return get_shape(self, NULL);
    return dim_query(self, args, kwargs, "size", ct_tensor_sizes(T(self)), ct_tensor_size);
}

static PyObject *tensor_stride(PyObject *self, PyObject *args, PyObject *kwargs) {
    const int64_t *strides = ct_tensor_strides(T(self));
    if (strides == NULL) /* sparse: PyTorch's message for layouts without strides */
        return PyErr_Format(PyExc_RuntimeError, "Tensors of type %sTensorImpl do not have strides",
                            ct_tensor_layout(T(self)) == CT_LAYOUT_SPARSE_COO ? "Sparse"
                                                                              : "Nested");
    return dim_query(self, args, kwargs, "stride", strides, ct_tensor_stride);
}

static PyObject *tensor_storage_offset(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(ct_tensor_storage_offset(T(self)));
}

static PyObject *tensor_dim(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(ct_tensor_dim(T(self)));
}

static PyObject *tensor_numel(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(ct_tensor_numel(T(self)));
}

static PyObject *tensor_element_size(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromSize_t(ct_tensor_element_size(T(self)));
}

static PyObject *tensor_get_device(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLong(ct_tensor_get_device(T(self)));
}

static PyObject *tensor_is_floating_point(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(ct_tensor_is_floating_point(T(self)));
}

static PyObject *tensor_is_complex(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(ct_tensor_is_complex(T(self)));
}

static PyObject *tensor_data_ptr(PyObject *self, PyObject *unused) {
    (void)unused;
    void *p = NULL;
    ct_status st = ct_tensor_get_data_ptr(T(self), &p);
    return st == CT_OK ? PyLong_FromVoidPtr(p) : ctp_raise_status(st);
}

static const ctp_signature is_contiguous_sig[] = {
    {1, {{CTP_PARAM_MEMORY_FORMAT, "*memory_format=contiguous_format"}}},
};

static PyObject *tensor_is_contiguous(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("is_contiguous", is_contiguous_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_memory_format f = ctp_opt_memory_format(a[0], CT_MEMFMT_CONTIGUOUS);
    return PyBool_FromLong(ct_tensor_is_contiguous(T(self), f));
}

static PyObject *tensor_is_non_overlapping_and_dense(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(ct_tensor_is_non_overlapping_and_dense(T(self)));
}

static PyObject *tensor_refcounts(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("(LL)", (long long)ct_tensor_refcount(T(self)),
                         (long long)ct_storage_refcount(ct_tensor_storage(T(self))));
}

static PyObject *tensor_suggest_memory_format(PyObject *self, PyObject *unused) {
    (void)unused;
    return ctp_memory_format_new_ref(ct_tensor_suggest_memory_format(T(self), false));
}

/* format(t, spec): PyTorch formats a 0-dim tensor's item() (not on meta, which has no value,
 * nor for subclasses); anything else takes object.__format__, which gives str(t) for an
 * empty spec and a TypeError for any other. */
static PyObject *tensor_format(PyObject *self, PyObject *spec) {
    if (Py_IS_TYPE(self, &ctp_tensor_type) && ct_tensor_dim(T(self)) == 0 &&
        !ct_tensor_is_meta(T(self))) {
        PyObject *item = PyObject_CallMethod(self, "item", NULL);
        if (item == NULL)
            return NULL;
        PyObject *r = PyObject_Format(item, spec);
        Py_DECREF(item);
        return r;
    }
    return PyObject_CallMethod((PyObject *)&PyBaseObject_Type, "__format__", "OO", self, spec);
}

static PyMethodDef tensor_methods[] = {
    {"__format__", tensor_format, METH_O, "__format__(format_spec) -> str"},
    {"size", CTP_KW_FUNC(tensor_size), METH_VARARGS | METH_KEYWORDS,
     "size(dim=None) -> ctensor.Size or int"},
    {"stride", CTP_KW_FUNC(tensor_stride), METH_VARARGS | METH_KEYWORDS,
     "stride(dim=None) -> tuple or int\n\nStrides in elements."},
    {"storage_offset", tensor_storage_offset, METH_NOARGS, "storage_offset() -> int"},
    {"dim", tensor_dim, METH_NOARGS, "dim() -> int"},
    {"ndimension", tensor_dim, METH_NOARGS, "Alias for dim()."},
    {"numel", tensor_numel, METH_NOARGS, "numel() -> int"},
    {"nelement", tensor_numel, METH_NOARGS, "Alias for numel()."},
    {"element_size", tensor_element_size, METH_NOARGS, "element_size() -> int"},
    {"get_device", tensor_get_device, METH_NOARGS,
     "get_device() -> int\n\nThe device index; -1 for cpu and meta tensors."},
    {"is_floating_point", tensor_is_floating_point, METH_NOARGS, NULL},
    {"is_complex", tensor_is_complex, METH_NOARGS, NULL},
    {"data_ptr", tensor_data_ptr, METH_NOARGS,
     "data_ptr() -> int\n\nThe address of the first element (0 for meta tensors)."},
    {"is_contiguous", CTP_KW_FUNC(tensor_is_contiguous), METH_VARARGS | METH_KEYWORDS,
     "is_contiguous(*, memory_format=ctensor.contiguous_format) -> bool"},
    {"is_non_overlapping_and_dense", tensor_is_non_overlapping_and_dense, METH_NOARGS,
     "is_non_overlapping_and_dense() -> bool (PyTorch's internal predicate, for tests)"},
    {"_suggest_memory_format", tensor_suggest_memory_format, METH_NOARGS,
     "suggest_memory_format() of PyTorch's C++ API, for tests."},
    {"_refcounts", tensor_refcounts, METH_NOARGS,
     "_refcounts() -> (tensor, storage): the C reference counts, for leak tests."},
    {NULL, NULL, 0, NULL},
};

/* ---- the type ---------------------------------------------------------------------------- */

static PyMappingMethods tensor_as_mapping = {
    .mp_length = ctp_tensor_length,
    .mp_subscript = ctp_tensor_getitem,
    .mp_ass_subscript = ctp_tensor_setitem,
};

/* `element in t`: PyTorch's Tensor.__contains__, (element == t).any(), for a tensor or a
 * number (numbers.Number: numpy's scalars too); anything else is its RuntimeError. */
static int tensor_contains(PyObject *self, PyObject *element) {
    static PyObject *number_type; /* numbers.Number, imported once */
    if (!PyObject_TypeCheck(element, &ctp_tensor_type)) {
        if (number_type == NULL) {
            PyObject *numbers = PyImport_ImportModule("numbers");
            if (numbers == NULL)
                return -1;
            number_type = PyObject_GetAttrString(numbers, "Number");
            Py_DECREF(numbers);
            if (number_type == NULL)
                return -1;
        }
        int is_number = PyObject_IsInstance(element, number_type);
        if (is_number < 0)
            return -1;
        if (!is_number) {
            PyObject *type_repr = PyObject_Repr((PyObject *)Py_TYPE(element));
            if (type_repr != NULL)
                PyErr_Format(PyExc_RuntimeError,
                             "Tensor.__contains__ only supports Tensor or scalar, but you passed "
                             "in a %U.", type_repr);
            Py_XDECREF(type_repr);
            return -1;
        }
    }
    PyObject *eq = PyObject_RichCompare(element, self, Py_EQ);
    if (eq == NULL)
        return -1;
    PyObject *any = PyObject_CallMethod(eq, "any", NULL);
    Py_DECREF(eq);
    if (any == NULL)
        return -1;
    int r = PyObject_IsTrue(any);
    Py_DECREF(any);
    return r;
}

/* sq_contains alone (no sq_item: see the type below) */
static PySequenceMethods tensor_as_sequence = {
    .sq_contains = tensor_contains,
};

/* No sq_item: PySequence_Check() stays false for tensors, so tensor(data) treats a tensor
 * inside a list as an element, as PyTorch does. Messages that name an argument's type say
 * "ctensor.Tensor" where PyTorch's say "Tensor" (its Python class). */
/* clang-format off */
PyTypeObject ctp_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.Tensor",
    .tp_basicsize = sizeof(ctp_tensor_object),
    .tp_dealloc = tensor_dealloc,
    .tp_repr = tensor_repr,
    .tp_as_number = &ctp_tensor_as_number,
    .tp_as_sequence = &tensor_as_sequence,
    .tp_as_mapping = &tensor_as_mapping,
    .tp_str = tensor_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A multi-dimensional array of one dtype on one device: a strided view of a "
              "storage.\n\nCreate tensors with ctensor.tensor(data), ctensor.zeros(2, 3), ...; "
              "ctensor.Tensor(...) is the legacy constructor.",
    .tp_weaklistoffset = offsetof(ctp_tensor_object, weakrefs),
    .tp_iter = ctp_tensor_iter,
    .tp_new = ctp_tensor_legacy_new,
};
/* clang-format on */

/* The methods of all tensor files in one table (the type keeps a pointer to it for good). */
static PyMethodDef *merge_methods(void) {
    PyMethodDef *tables[] = {
        tensor_methods,
        ctp_tensor_view_methods,
        ctp_tensor_convert_methods,
        ctp_tensor_data_methods,
        ctp_tensor_arith_methods,
        ctp_tensor_reduce_methods,
        ctp_tensor_compare_methods,
#ifdef CT_HAVE_DIST
        ctp_dist_tensor_methods,
#endif
    };
    size_t n = 0;
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
        for (PyMethodDef *m = tables[k]; m->ml_name != NULL; m++)
            n++;
    PyMethodDef *all = PyMem_Calloc(n + 1, sizeof *all);
    if (all == NULL)
        return (PyMethodDef *)PyErr_NoMemory();
    n = 0;
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
        for (PyMethodDef *m = tables[k]; m->ml_name != NULL; m++)
            all[n++] = *m;
    return all;
}

static PyGetSetDef *merge_getset(void) {
    PyGetSetDef *tables[] = {
        tensor_getset,
        ctp_tensor_view_getset,
#ifdef CT_HAVE_DIST
        ctp_dist_tensor_getset,
#endif
    };
    size_t n = 0, k = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (PyGetSetDef *g = tables[t]; g->name != NULL; g++)
            n++;
    PyGetSetDef *all = PyMem_Calloc(n + 1, sizeof *all);
    if (all == NULL)
        return (PyGetSetDef *)PyErr_NoMemory();
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (PyGetSetDef *g = tables[t]; g->name != NULL; g++)
            all[k++] = *g;
    return all;
}

int ctp_tensor_add_methods(PyMethodDef *defs) {
    PyObject *dict = ctp_tensor_type.tp_dict;
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ctensor: the Tensor type is not ready");
        return -1;
    }
    for (PyMethodDef *def = defs; def->ml_name != NULL; def++) {
        if (PyDict_GetItemString(dict, def->ml_name) != NULL)
            continue; /* the Tensor type lists it itself */
        PyObject *descr = PyDescr_NewMethod(&ctp_tensor_type, def);
        if (descr == NULL)
            return -1;
        int rc = PyDict_SetItemString(dict, def->ml_name, descr);
        Py_DECREF(descr);
        if (rc < 0)
            return -1;
    }
    PyType_Modified(&ctp_tensor_type);
    return 0;
}

int ctp_tensor_init(PyObject *module) {
    if (install_counting_allocator() < 0 || PyModule_AddFunctions(module, debug_functions) < 0)
        return -1;
    if (ctp_tensor_type.tp_methods == NULL) { /* once per process: the type is static */
        ctp_tensor_type.tp_methods = merge_methods();
        if (ctp_tensor_type.tp_methods == NULL)
            return -1;
        ctp_tensor_type.tp_getset = merge_getset();
        if (ctp_tensor_type.tp_getset == NULL)
            return -1;
        ctp_arith_number_slots(&ctp_tensor_as_number); /* + - * / // and in-place forms */
        ctp_unary_number_slots(&ctp_tensor_as_number); /* - + abs ~ (tensor_unary.c) */
        ctp_compare_type_slots(&ctp_tensor_type);      /* == != < <= > >=, hash */
        ctp_linalg_number_slots(&ctp_tensor_as_number); /* @ (tensor_linalg.c) */
    }
    if (PyType_Ready(&ctp_tensor_type) < 0)
        return -1;
    /* NumPy defers to tensors in binary operations (np.float64(2) + t is t.__radd__), as
     * torch.Tensor's __array_priority__ = 1000 makes it do */
    PyObject *priority = PyLong_FromLong(1000);
    if (priority == NULL)
        return -1;
    int rc = PyDict_SetItemString(ctp_tensor_type.tp_dict, "__array_priority__", priority);
    Py_DECREF(priority);
    if (rc < 0)
        return -1;
    PyType_Modified(&ctp_tensor_type);
    return PyModule_AddObjectRef(module, "Tensor", (PyObject *)&ctp_tensor_type);
}
