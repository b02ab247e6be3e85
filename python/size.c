/* ctensor.Size: the type of Tensor.shape, a tuple subclass as torch.Size
 * (torch/csrc/Size.cpp).
 *
 * Construction takes any iterable of ints; other items that have __index__ (NumPy ints, bools,
 * one-element integer tensors) are replaced by that int, anything else raises torch's
 * TypeError "ctensor.Size() takes an iterable of 'int' (item 0 is 'float')". Unlike torch,
 * which keeps ints outside int64 and fails later when it prints them, they are refused here
 * ("Overflow when unpacking long"). repr "ctensor.Size([2, 3])"; slicing, `size + tuple` and
 * `size * n` give Sizes (`tuple + size` stays a tuple, as in torch); numel() is the product,
 * wrapping on int64 overflow as torch's does; pickling goes through (ctensor.Size, (tuple,)).
 */
#include "ctensor_py.h"

/* A new Size with the items of the tuple `t` (new references). */
static PyObject *size_from_tuple(PyObject *t) {
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    PyObject *self = ctp_size_type.tp_alloc(&ctp_size_type, n);
    if (self == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(self, i, Py_NewRef(PyTuple_GET_ITEM(t, i)));
    return self;
}

/* Wrap a result of a tuple operation: a plain tuple becomes a Size. Steals `r`. */
static PyObject *as_size(PyObject *r) {
    if (r == NULL || !PyTuple_CheckExact(r))
        return r;
    PyObject *s = size_from_tuple(r);
    Py_DECREF(r);
    return s;
}

PyObject *ctp_size_new(const int64_t *v, int64_t n) {
    PyObject *self = ctp_size_type.tp_alloc(&ctp_size_type, (Py_ssize_t)n);
    if (self == NULL)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        PyObject *item = PyLong_FromLongLong(v[i]);
        if (item == NULL) {
            Py_DECREF(self);
            return NULL;
        }
        PyTuple_SET_ITEM(self, (Py_ssize_t)i, item);
    }
    return self;
}

static PyObject *size_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *self = PyTuple_Type.tp_new(type, args, kwargs);
    if (self == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); i++) {
        PyObject *item = PyTuple_GET_ITEM(self, i);
        int64_t v;
        if (PyLong_CheckExact(item) || ctp_is_index_arg(item) || PyBool_Check(item)) {
            if (ctp_int64_of_arg(item, &v) < 0) {
                Py_DECREF(self);
                return NULL;
            }
            if (!PyLong_CheckExact(item)) { /* keep plain ints, as torch does */
                PyObject *number = PyLong_FromLongLong(v);
                if (number == NULL) {
                    Py_DECREF(self);
                    return NULL;
                }
                /* The tuple is new and ours alone, so its items may still be replaced. */
                PyTuple_SET_ITEM(self, i, number);
                Py_DECREF(item);
            }
            continue;
        }
        PyErr_Format(PyExc_TypeError,
                     "ctensor.Size() takes an iterable of 'int' (item %zd is '%s')", i,
                     Py_TYPE(item)->tp_name);
        Py_DECREF(self);
        return NULL;
    }
    return self;
}

static PyObject *size_repr(PyObject *self) {
    PyObject *list = PySequence_List(self);
    if (list == NULL)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("ctensor.Size(%R)", list);
    Py_DECREF(list);
    return r;
}

static PyObject *size_numel(PyObject *self, PyObject *unused) {
    (void)unused;
    uint64_t n = 1; /* unsigned: overflow wraps as torch's int64 product does in practice */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); i++) {
        int64_t v;
        if (ctp_int64_of_arg(PyTuple_GET_ITEM(self, i), &v) < 0)
            return NULL;
        n *= (uint64_t)v;
    }
    return PyLong_FromLongLong((long long)n);
}

static PyObject *size_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    PyObject *t = PySequence_Tuple(self);
    if (t == NULL)
        return NULL;
    PyObject *r = Py_BuildValue("(O(N))", (PyObject *)Py_TYPE(self), t);
    return r;
}

static PyObject *size_concat(PyObject *a, PyObject *b) {
    return as_size(PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}

static PyObject *size_repeat(PyObject *a, Py_ssize_t n) {
    return as_size(PyTuple_Type.tp_as_sequence->sq_repeat(a, n));
}

static PyObject *size_subscript(PyObject *self, PyObject *index) {
    PyObject *r = PyTuple_Type.tp_as_mapping->mp_subscript(self, index);
    return PySlice_Check(index) ? as_size(r) : r;
}

static PySequenceMethods size_as_sequence; /* tuple's, with concat and repeat replaced */
static PyMappingMethods size_as_mapping;

static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS,
     "numel() -> int\n\nThe number of elements a tensor of this shape has."},
    {"__reduce__", size_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* clang-format off */
PyTypeObject ctp_size_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.Size",
    .tp_basicsize = 0, /* inherited from tuple by PyType_Ready */
    .tp_repr = size_repr,
    .tp_as_sequence = &size_as_sequence,
    .tp_as_mapping = &size_as_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The shape of a tensor: a tuple of ints.",
    .tp_methods = size_methods,
    .tp_new = size_new,
};
/* clang-format on */

int ctp_size_init(PyObject *module) {
    size_as_sequence = *PyTuple_Type.tp_as_sequence;
    size_as_sequence.sq_concat = size_concat;
    size_as_sequence.sq_repeat = size_repeat;
    size_as_mapping = *PyTuple_Type.tp_as_mapping;
    size_as_mapping.mp_subscript = size_subscript;
    ctp_size_type.tp_base = &PyTuple_Type;
    if (PyType_Ready(&ctp_size_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Size", (PyObject *)&ctp_size_type);
}
