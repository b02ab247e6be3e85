/* Basic indexing: t[index] and t[index] = value, len(t) and iter(t), following PyTorch's
 * torch/csrc/autograd/python_variable_indexing.cpp.
 *
 * An index is an int (select: the dim goes away), a slice (Python's rules, positive steps
 * only: "step must be greater than zero"), None (a new size-1 dim), Ellipsis (the dims not
 * otherwise indexed), a 0-dim integer tensor (as an int), or a tuple of these; a non-tuple
 * sequence counts as a tuple when it contains a slice, None, Ellipsis, a sequence or a tensor
 * (NumPy's legacy rule, as PyTorch). Every result is a view, also t[...] and t[()] (a new
 * alias). Advanced indexing (index tensors, lists of ints, bools) is not implemented:
 * NotImplementedError.
 *
 * Assignment writes into that view: a Python number fills it (range-checked: "value cannot
 * be converted to type int without overflow"), a 0-dim cpu tensor too; another tensor is
 * copied after dropping its leading size-1 dims and broadcasting (expand's errors);
 * anything else raises "can't assign a list to a torch.IntTensor" as PyTorch 1.13 does.
 */
#include "ctensor_py.h"

static ct_tensor *T(PyObject *self) { return ((ctp_tensor_object *)self)->tensor; }

/* ---- classifying index items -------------------------------------------------------------- */

typedef enum { IX_INT, IX_SLICE, IX_NONE, IX_ELLIPSIS, IX_OTHER } index_kind;

/* A 0-dim integer (not bool) tensor indexes as an int. */
static int is_int_tensor(PyObject *obj) {
    ct_tensor *t = ctp_tensor_get(obj);
    return t != NULL && ct_tensor_dim(t) == 0 && ct_dtype_is_integral(ct_tensor_dtype(t), false);
}

static index_kind kind_of(PyObject *obj) {
    if (obj == Py_None)
        return IX_NONE;
    if (obj == Py_Ellipsis)
        return IX_ELLIPSIS;
    if (PySlice_Check(obj))
        return IX_SLICE;
    if (ctp_is_int_arg(obj) || is_int_tensor(obj))
        return IX_INT;
    return IX_OTHER;
}

/* The error for an index item ctensor does not take, in PyTorch's words where it has them. */
static PyObject *raise_bad_index(PyObject *obj) {
    ct_tensor *t = ctp_tensor_get(obj);
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) /* PyTorch tries to make a tensor of it */
        return PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                            Py_TYPE(obj)->tp_name);
    if (t != NULL && !ct_dtype_is_integral(ct_tensor_dtype(t), true))
        return PyErr_Format(PyExc_IndexError,
                            "tensors used as indices must be long, byte or bool tensors");
    if (t != NULL || PyBool_Check(obj) || PySequence_Check(obj))
        return PyErr_Format(PyExc_NotImplementedError,
                            "ctensor supports basic indexing only (ints, slices, None, "
                            "Ellipsis): advanced indexing with %s is not implemented",
                            t != NULL           ? "tensors"
                            : PyBool_Check(obj) ? "bools"
                                                : "sequences");
    return PyErr_Format(PyExc_IndexError,
                        "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                        "Variables are valid indices (got %s)",
                        Py_TYPE(obj)->tp_name);
}

/* PyTorch's treatSequenceAsTuple, for an index that is not a tuple. */
static int sequence_as_tuple(PyObject *index) {
    if (ctp_tensor_check(index) || !PySequence_Check(index))
        return 0;
    Py_ssize_t n = PySequence_Size(index);
    if (n < 0) {
        PyErr_Clear();
        return 0;
    }
    if (n >= 32)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PySequence_GetItem(index, i);
        if (obj == NULL) {
            PyErr_Clear();
            return 0;
        }
        int yes = ctp_tensor_check(obj) || PySequence_Check(obj) || PySlice_Check(obj) ||
                  obj == Py_Ellipsis || obj == Py_None;
        Py_DECREF(obj);
        if (yes)
            return 1;
    }
    return 0;
}

/* ---- applying an index ---------------------------------------------------------------------- */

/* select(dim, index) with getitem's own messages; `real_dim` is what PyTorch names as the
 * dimension: the position of the item in the index tuple. *out gets a new reference. */
static int apply_int(ct_tensor *t, int64_t dim, PyObject *obj, int64_t real_dim, ct_tensor **out) {
    int64_t index;
    if (ctp_int64_of_arg(obj, &index) < 0)
        return -1;
    /* A 0-dim tensor has no dim 0; PyTorch reads size 0 there (its message below). */
    int64_t size = dim < ct_tensor_dim(t) ? ct_tensor_sizes(t)[dim] : 0;
    if (ct_tensor_dim(t) == 0 && index == 0) {
        PyErr_SetString(PyExc_IndexError,
                        "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                        "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
        return -1;
    }
    if (index < -size || index >= size) {
        PyErr_Format(PyExc_IndexError,
                     "index %lld is out of bounds for dimension %lld with size %lld",
                     (long long)index, (long long)real_dim, (long long)size);
        return -1;
    }
    ct_status st = ct_tensor_select(t, dim, index, out);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

static int apply_slice(ct_tensor *t, int64_t dim, PyObject *obj, ct_tensor **out) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(obj, &start, &stop, &step) < 0)
        return -1;
    ct_status st =
        ct_tensor_slice(t, dim, start, stop == PY_SSIZE_T_MAX ? CT_SLICE_END : stop, step, out);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

/* The view t[index] (new reference in *out); `for_setitem` selects setitem's path. */
static int index_view(PyObject *self, PyObject *index, int for_setitem, ct_tensor **out) {
    ct_tensor *t = T(self), *cur, *next = NULL;
    ct_status st;
    *out = NULL;
    /* Single items first, as PyTorch (so a 0-dim tensor reports "invalid index"). */
    index_kind k = kind_of(index);
    if (k == IX_INT)
        return apply_int(t, 0, index, 0, out);
    if (k == IX_SLICE && for_setitem && ct_tensor_dim(t) == 0) {
        /* PyTorch's setitem compares the slice with the size of a dim a 0-dim tensor lacks,
         * reading 0: [0:0] (or [:0]) is then the whole tensor, other slices fail as below. */
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(index, &start, &stop, &step) < 0)
            return -1;
        if (start == 0 && stop == 0 && step == 1) {
            st = ct_tensor_alias(t, out);
            return st == CT_OK ? 0 : (ctp_raise_status(st), -1);
        }
    }
    if (k == IX_SLICE)
        return apply_slice(t, 0, index, out);
    if (k == IX_NONE || k == IX_ELLIPSIS) {
        st = k == IX_NONE ? ct_tensor_unsqueeze(t, 0, out) : ct_tensor_alias(t, out);
        return st == CT_OK ? 0 : (ctp_raise_status(st), -1);
    }
    PyObject *items;
    if (PyTuple_Check(index))
        items = Py_NewRef(index);
    else if (sequence_as_tuple(index))
        items = PySequence_Tuple(index);
    else
        items = PyTuple_Pack(1, index);
    if (items == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    /* PyTorch's count_specified_dimensions: everything but None, Ellipsis and bools. */
    int64_t specified = 0, ndim = ct_tensor_dim(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PyTuple_GET_ITEM(items, i);
        specified += obj != Py_None && obj != Py_Ellipsis && !PyBool_Check(obj);
    }
    if (specified > ndim) {
        PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %lld",
                     (long long)ndim);
        Py_DECREF(items);
        return -1;
    }
    cur = ct_tensor_retain(t);
    int64_t dim = 0, ellipses = 0;
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *obj = PyTuple_GET_ITEM(items, i);
        index_kind kind = kind_of(obj);
        next = NULL;
        if ((kind == IX_INT || kind == IX_SLICE) && ellipses > 1 && dim >= ct_tensor_dim(cur)) {
            /* PyTorch reads past the sizes here (undefined behaviour); refuse as NumPy does */
            PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
            rc = -1;
            break;
        }
        switch (kind) {
        case IX_INT:
            rc = apply_int(cur, dim, obj, i, &next);
            break;
        case IX_SLICE:
            rc = apply_slice(cur, dim++, obj, &next);
            break;
        case IX_NONE:
            st = ct_tensor_unsqueeze(cur, dim++, &next);
            rc = st == CT_OK ? 0 : (ctp_raise_status(st), -1);
            break;
        case IX_ELLIPSIS:
            /* Every Ellipsis skips the dims no item names: PyTorch accepts several, unlike
             * NumPy (items after the second then point past the last dim, refused above). */
            ellipses++;
            dim += ndim - specified;
            continue;
        case IX_OTHER:
            raise_bad_index(obj);
            rc = -1;
            break;
        }
        if (rc == 0) {
            ct_tensor_release(cur);
            cur = next;
        }
    }
    Py_DECREF(items);
    if (rc < 0) {
        ct_tensor_release(cur);
        return -1;
    }
    if (cur == t) { /* t[()] and the like: a new alias, never self */
        st = ct_tensor_alias(t, out);
        ct_tensor_release(cur);
        return st == CT_OK ? 0 : (ctp_raise_status(st), -1);
    }
    *out = cur;
    return 0;
}

PyObject *ctp_tensor_getitem(PyObject *self, PyObject *index) {
    ct_tensor *r;
    if (index_view(self, index, 0, &r) < 0)
        return NULL;
    return ctp_tensor_wrap(r);
}

/* ---- assignment ---------------------------------------------------------------------------- */

/* A Python number as setitem reads it: ints must fit int64 ("Overflow when unpacking long"). */
static int setitem_scalar(PyObject *value, ct_scalar *out) {
    if (PyBool_Check(value)) {
        *out = ct_scalar_bool(value == Py_True);
        return 0;
    }
    if (PyLong_Check(value) || ctp_is_int_arg(value)) {
        int64_t v;
        if (ctp_int64_of_arg(value, &v) < 0)
            return -1;
        *out = ct_scalar_int(v);
        return 0;
    }
    return ctp_scalar_of_arg(value, out);
}

/* PyTorch's copy_to: equal shapes copy; a 0-dim cpu source fills (range-checked); otherwise
 * the source loses its leading size-1 dims and is broadcast to the destination. */
static ct_status copy_to(ct_tensor *dst, const ct_tensor *src) {
    int64_t nd = ct_tensor_dim(dst), ns = ct_tensor_dim(src);
    const int64_t *ds = ct_tensor_sizes(dst), *ss = ct_tensor_sizes(src);
    int same = nd == ns;
    for (int64_t i = 0; same && i < nd; i++)
        same = ds[i] == ss[i];
    if (same)
        return ct_tensor_copy_(dst, src);
    if (ns == 0 && ct_tensor_device(src).type == CT_DEVICE_CPU) {
        ct_scalar v;
        ct_status st = ct_tensor_item(src, &v);
        return st == CT_OK ? ct_tensor_fill_(dst, v) : st;
    }
    int64_t skip = 0;
    while (skip < ns && ss[skip] == 1)
        skip++;
    ct_tensor *view = NULL, *expanded = NULL;
    ct_status st = ct_tensor_view(src, ss + skip, ns - skip, &view);
    if (st == CT_OK)
        st = ct_tensor_expand(view, ds, nd, &expanded);
    if (st == CT_OK)
        st = ct_tensor_copy_(dst, expanded);
    ct_tensor_release(view);
    ct_tensor_release(expanded);
    return st;
}

int ctp_tensor_setitem(PyObject *self, PyObject *index, PyObject *value) {
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    ct_tensor *src = ctp_tensor_get(value);
    /* PyTorch's valueToTensor: Python numbers and NumPy ints (not NumPy floats or bools) */
    int is_number = src == NULL && (ctp_is_number(value) || ctp_is_int_arg(value));
    if (src == NULL && !is_number) {
        char type[64];
        ct_status st = ct_tensor_type_string(T(self), type, sizeof type);
        if (st != CT_OK) {
            ctp_raise_status(st);
            return -1;
        }
        PyErr_Format(PyExc_TypeError, "can't assign a %s to a %s", Py_TYPE(value)->tp_name, type);
        return -1;
    }
    /* The value is converted (and range-checked) before the index is looked at, as PyTorch
     * makes a tensor of it first. */
    ct_scalar v;
    if (is_number) {
        unsigned char probe[16]; /* one element of any dtype */
        if (setitem_scalar(value, &v) < 0)
            return -1;
        ct_status cst = ct_scalar_to_dtype(v, ct_tensor_dtype(T(self)), probe);
        if (cst != CT_OK) {
            ctp_raise_status(cst);
            return -1;
        }
    }
    ct_tensor *dst;
    if (index_view(self, index, 1, &dst) < 0)
        return -1;
    ct_status st = is_number ? ct_tensor_fill_(dst, v) : copy_to(dst, src);
    ct_tensor_release(dst);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    return 0;
}

/* ---- len and iteration ----------------------------------------------------------------------- */

Py_ssize_t ctp_tensor_length(PyObject *self) {
    if (ct_tensor_dim(T(self)) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)ct_tensor_sizes(T(self))[0];
}

/* iter(t) is iter(t.unbind(0)), as in PyTorch: a tuple iterator over views. */
PyObject *ctp_tensor_iter(PyObject *self) {
    if (ct_tensor_dim(T(self)) == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d tensor");
        return NULL;
    }
    int64_t n = ct_tensor_sizes(T(self))[0];
    PyObject *items = PyTuple_New((Py_ssize_t)n);
    for (int64_t i = 0; items != NULL && i < n; i++) {
        ct_tensor *s = NULL;
        ct_status st = ct_tensor_select(T(self), 0, i, &s); /* before s is read */
        PyObject *item = ctp_tensor_result(NULL, st, s);
        if (item == NULL)
            Py_CLEAR(items);
        else
            PyTuple_SET_ITEM(items, (Py_ssize_t)i, item);
    }
    if (items == NULL)
        return NULL;
    PyObject *it = PyObject_GetIter(items);
    Py_DECREF(items);
    return it;
}
