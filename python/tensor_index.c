/* Basic indexing: t[index] and t[index] = value, len(t) and iter(t), following PyTorch's
 * torch/csrc/autograd/python_variable_indexing.cpp.
 *
 * An index is an int (select: the dim goes away), a slice (Python's rules, positive steps
 * only: "step must be greater than zero"), None (a new size-1 dim), Ellipsis (the dims not
 * otherwise indexed), a 0-dim integer tensor (as an int), or a tuple of these; a non-tuple
 * sequence counts as a tuple when it contains a slice, None, Ellipsis, a sequence or a tensor
 * (NumPy's legacy rule, as PyTorch). Every result is a view, also t[...] and t[()] (a new
 * alias). Advanced items (int64/bool/uint8 tensors, sequences, Python bools) are collected
 * per dim while the basic items apply; the copy (get) or index_put_ (set) is then
 * ct_tensor_index / ct_tensor_index_put_ (ctensor/index.h), which own the semantics.
 *
 * Assignment writes into that view: a Python number fills it (range-checked: "value cannot
 * be converted to type int without overflow"), a 0-dim cpu tensor too; another tensor is
 * copied after dropping its leading size-1 dims and broadcasting (expand's errors);
 * anything else raises "can't assign a list to a torch.IntTensor" as PyTorch 1.13 does.
 */
#include "ctensor_py.h"
#include "ctensor/index.h"

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

/* The error for an object that is no index at all, in PyTorch's words. */
static PyObject *raise_bad_index(PyObject *obj) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) /* PyTorch tries to make a tensor of it */
        return PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                            Py_TYPE(obj)->tp_name);
    return PyErr_Format(PyExc_IndexError,
                        "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                        "Variables are valid indices (got %s)",
                        Py_TYPE(obj)->tp_name);
}

/* ---- recording the steps of a basic index ---------------------------------------------------- */

/* Where index_view writes the steps it takes (NULL: it does not); `ok` drops to 0 on an
 * advanced item or when the steps do not fit. */
typedef struct {
    ctp_index_step *steps;
    size_t n, cap;
    int ok;
} recorder;

static void record(recorder *rec, ctp_step_kind kind, int64_t dim, int64_t start,
                   int64_t length, int64_t step) {
    if (rec == NULL)
        return;
    if (rec->n >= rec->cap) {
        rec->ok = 0;
        return;
    }
    rec->steps[rec->n++] = (ctp_index_step){
        .kind = kind, .dim = dim, .start = start, .length = length, .step = step};
}

/* ---- advanced items ------------------------------------------------------------------------ */

typedef struct {
    ct_tensor *items[CT_MAX_DIMS]; /* per dim of the indexed view; NULL = whole dim */
    size_t n;
} adv_list;

static void adv_clear(adv_list *a) {
    for (size_t i = 0; i < a->n; i++)
        ct_tensor_release(a->items[i]);
    a->n = 0;
}

/* Record `t` (stolen) for dim `dim`. */
static int adv_record(adv_list *a, int64_t dim, ct_tensor *t) {
    if (dim >= CT_MAX_DIMS) {
        ct_tensor_release(t);
        PyErr_SetString(PyExc_IndexError, "too many indices");
        return -1;
    }
    while (a->n <= (size_t)dim)
        a->items[a->n++] = NULL;
    a->items[dim] = t;
    return 0;
}

/* A 0-dim bool (or uint8) tensor, or a Python bool: its truth in *truth. */
static int bool_item(PyObject *obj, int *truth) {
    if (PyBool_Check(obj)) {
        *truth = obj == Py_True;
        return 1;
    }
    ct_tensor *t = ctp_tensor_get(obj);
    if (t == NULL || ct_tensor_dim(t) != 0 ||
        (ct_tensor_dtype(t) != CT_BOOL && ct_tensor_dtype(t) != CT_UINT8))
        return 0;
    ct_scalar v;
    if (ct_tensor_item(t, &v) != CT_OK)
        return 0;
    unsigned char b = 0;
    if (ct_scalar_to_dtype(v, CT_BOOL, &b) != CT_OK)
        return 0;
    *truth = b != 0;
    return 1;
}

/* The index tensor of a tensor or sequence item (new reference), as PyTorch's
 * indexing_tensor_from_data: bool and uint8 data keep their dtype, anything else is int64. */
static ct_tensor *index_tensor_of(PyObject *obj) {
    ct_tensor *t = ctp_tensor_get(obj);
    if (t != NULL)
        return ct_tensor_retain(t);
    if (!PySequence_Check(obj)) {
        raise_bad_index(obj);
        return NULL;
    }
    PyObject *r = ctp_tensor_from_data(obj, CT_DTYPE_UNDEFINED, NULL);
    if (r == NULL)
        return NULL;
    ct_dtype dt = ct_tensor_dtype(ctp_tensor_get(r));
    if (dt != CT_BOOL && dt != CT_UINT8) {
        Py_DECREF(r);
        r = ctp_tensor_from_data(obj, CT_INT64, NULL);
        if (r == NULL)
            return NULL;
    }
    t = ct_tensor_retain(ctp_tensor_get(r));
    Py_DECREF(r);
    return t;
}

/* Apply an advanced item at *dim of cur: bools add a size-1 dim indexed by [0] or [];
 * tensors and sequences are recorded, masks taking as many dims as they have. */
static int apply_advanced(ct_tensor *cur, int64_t *dim, PyObject *obj, adv_list *adv,
                          ct_tensor **next) {
    int truth;
    ct_status st;
    if (bool_item(obj, &truth)) {
        st = ct_tensor_unsqueeze(cur, *dim, next);
        int64_t len = truth ? 1 : 0;
        ct_tensor *ix = NULL;
        if (st == CT_OK)
            st = ct_tensor_zeros(&len, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, &ix);
        if (st != CT_OK) {
            ctp_raise_status(st);
            return -1;
        }
        return adv_record(adv, (*dim)++, ix);
    }
    ct_tensor *ix = index_tensor_of(obj);
    if (ix == NULL)
        return -1;
    ct_dtype dt = ct_tensor_dtype(ix);
    int64_t width = dt == CT_BOOL || dt == CT_UINT8 ? ct_tensor_dim(ix) : 1;
    if (adv_record(adv, *dim, ix) < 0)
        return -1;
    *dim += width;
    *next = ct_tensor_retain(cur);
    return 0;
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
static int apply_int(ct_tensor *t, int64_t dim, PyObject *obj, int64_t real_dim, ct_tensor **out,
                     recorder *rec) {
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
    record(rec, CTP_STEP_SELECT, dim, index < 0 ? index + size : index, 0, 0);
    return 0;
}

static int apply_slice(ct_tensor *t, int64_t dim, PyObject *obj, ct_tensor **out,
                       recorder *rec) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(obj, &start, &stop, &step) < 0)
        return -1;
    ct_status st =
        ct_tensor_slice(t, dim, start, stop == PY_SSIZE_T_MAX ? CT_SLICE_END : stop, step, out);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    if (rec != NULL) { /* Python's clamping, as the slice just taken */
        Py_ssize_t first = start, last = stop;
        PySlice_AdjustIndices((Py_ssize_t)ct_tensor_sizes(t)[dim], &first, &last, step);
        record(rec, CTP_STEP_SLICE, dim, first, ct_tensor_sizes(*out)[dim], step);
    }
    return 0;
}

/* The view t[index] (new reference in *out) and the advanced items left to apply to it
 * (`adv`, empty when there are none); `for_setitem` selects setitem's path. */
static int index_view(PyObject *self, PyObject *index, int for_setitem, ct_tensor **out,
                      adv_list *adv, recorder *rec) {
    ct_tensor *t = T(self), *cur, *next = NULL;
    ct_status st;
    *out = NULL;
    /* Single items first, as PyTorch (so a 0-dim tensor reports "invalid index"). */
    index_kind k = kind_of(index);
    if (k == IX_INT)
        return apply_int(t, 0, index, 0, out, rec);
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
        return apply_slice(t, 0, index, out, rec);
    if (k == IX_NONE || k == IX_ELLIPSIS) {
        st = k == IX_NONE ? ct_tensor_unsqueeze(t, 0, out) : ct_tensor_alias(t, out);
        if (st == CT_OK && k == IX_NONE)
            record(rec, CTP_STEP_UNSQUEEZE, 0, 0, 0, 0);
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
    /* PyTorch's count_specified_dimensions: everything but None, Ellipsis and bools; a
     * bool or uint8 tensor counts its dims. */
    int64_t specified = 0, ndim = ct_tensor_dim(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PyTuple_GET_ITEM(items, i);
        ct_tensor *it = ctp_tensor_get(obj);
        if (it != NULL && (ct_tensor_dtype(it) == CT_BOOL || ct_tensor_dtype(it) == CT_UINT8))
            specified += ct_tensor_dim(it);
        else
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
            rc = apply_int(cur, dim, obj, i, &next, rec);
            break;
        case IX_SLICE:
            rc = apply_slice(cur, dim++, obj, &next, rec);
            break;
        case IX_NONE:
            st = ct_tensor_unsqueeze(cur, dim, &next);
            if (st == CT_OK)
                record(rec, CTP_STEP_UNSQUEEZE, dim, 0, 0, 0);
            dim++;
            rc = st == CT_OK ? 0 : (ctp_raise_status(st), -1);
            break;
        case IX_ELLIPSIS:
            /* Every Ellipsis skips the dims no item names: PyTorch accepts several, unlike
             * NumPy (items after the second then point past the last dim, refused above). */
            ellipses++;
            dim += ndim - specified;
            continue;
        case IX_OTHER:
            if (rec != NULL)
                rec->ok = 0;
            rc = apply_advanced(cur, &dim, obj, adv, &next);
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
        adv_clear(adv);
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
    ct_tensor *r, *c = NULL;
    adv_list adv = {.n = 0};
    if (index_view(self, index, 0, &r, &adv, NULL) < 0)
        return NULL;
    if (adv.n == 0)
        return ctp_tensor_wrap(r);
    ct_status st = ct_tensor_index(r, (const ct_tensor *const *)adv.items, adv.n, &c);
    ct_tensor_release(r);
    adv_clear(&adv);
    return ctp_tensor_result(NULL, st, c);
}

/* An int (no bool, no tensor), None, Ellipsis, or a slice whose fields are ints or None. */
static int basic_item(PyObject *obj) {
    if (obj == Py_None || obj == Py_Ellipsis)
        return 1;
    if (PySlice_Check(obj)) {
        PySliceObject *sl = (PySliceObject *)obj;
        PyObject *f[3] = {sl->start, sl->stop, sl->step};
        for (int i = 0; i < 3; i++)
            if (f[i] != Py_None && (!PyLong_Check(f[i]) || PyBool_Check(f[i])))
                return 0;
        return 1;
    }
    return PyLong_Check(obj) && !PyBool_Check(obj);
}

int ctp_index_is_basic(PyObject *index) {
    if (!PyTuple_Check(index))
        return basic_item(index);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(index); i++)
        if (!basic_item(PyTuple_GET_ITEM(index, i)))
            return 0;
    return 1;
}

int ctp_tensor_index_steps(PyObject *self, PyObject *index, int for_setitem,
                           ctp_index_step *steps, size_t *n) {
    recorder rec = {.steps = steps, .n = 0, .cap = CTP_MAX_INDEX_STEPS, .ok = 1};
    adv_list adv = {.n = 0};
    ct_tensor *r = NULL;
    *n = 0;
    if (!ctp_index_is_basic(index))
        return 0;
    if (index_view(self, index, for_setitem, &r, &adv, &rec) < 0)
        return -1;
    ct_tensor_release(r);
    int ok = rec.ok && adv.n == 0;
    adv_clear(&adv);
    *n = rec.n;
    return ok;
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

/* dst[adv] = value: a number as a 0-dim tensor of dst's dtype, a tensor without its leading
 * size-1 dims (PyTorch's slicePrefix1sDims); index_put_ decides the rest. */
static ct_status put_advanced(ct_tensor *dst, const adv_list *adv, const ct_tensor *src,
                              ct_scalar v) {
    ct_tensor *val = NULL;
    ct_status st;
    if (src == NULL)
        st = ct_tensor_scalar_tensor(v, ct_tensor_dtype(dst), NULL, &val);
    else {
        int64_t ns = ct_tensor_dim(src), skip = 0;
        const int64_t *ss = ct_tensor_sizes(src);
        while (skip < ns && ss[skip] == 1)
            skip++;
        st = ct_tensor_view(src, ss + skip, ns - skip, &val);
    }
    if (st == CT_OK)
        st = ct_tensor_index_put_(dst, (const ct_tensor *const *)adv->items, adv->n, val, false);
    ct_tensor_release(val);
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
    adv_list adv = {.n = 0};
    if (index_view(self, index, 1, &dst, &adv, NULL) < 0)
        return -1;
    ct_status st;
    if (adv.n == 0)
        st = is_number ? ct_tensor_fill_(dst, v) : copy_to(dst, src);
    else
        st = put_advanced(dst, &adv, is_number ? NULL : src, v);
    ct_tensor_release(dst);
    adv_clear(&adv);
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
