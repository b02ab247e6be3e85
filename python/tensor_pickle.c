/* pickle, copy.copy and copy.deepcopy of tensors, as torch 1.13 does them:
 *  - pickle (__reduce_ex__) writes the tensor's whole storage and its geometry (sizes,
 *    strides, storage offset, dtype, device), so a view comes back a view of a storage of the
 *    same bytes; meta tensors write no data. Tensors of one pickle do not share storage
 *    afterwards (torch's pickle.dumps does not either; torch.save does).
 *  - copy.copy (__copy__) is an alias: the same storage, as torch's copy.copy gives.
 *  - copy.deepcopy (__deepcopy__) copies the storage once per deepcopy call (memo), so views
 *    of one base stay views of one new storage, as torch's.
 *  - sparse COO tensors go as (indices, values, size, is_coalesced).
 * Every dtype goes as raw bytes (shell dtypes too); other devices go through a cpu copy of
 * the storage's bytes and come back on the same device. The C API (ct_storage_*,
 * ct_tensor_from_storage, ct_sparse_*) does the work; this file packs tuples. Global tensors
 * (a subtype of Tensor, dist_tensor_type.c) are not picklable. */
#include <string.h>

#include "ctensor_py.h"

#include "ctensor/sparse.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h"
#endif

static const ct_device CPU = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

static PyObject *int_tuple(const int64_t *v, int64_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (int64_t i = 0; t != NULL && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
    }
    return t;
}

/* The storage's bytes as a uint8 tensor viewing all of it (new reference). */
static ct_status storage_bytes_view(ct_storage *s, ct_tensor **out) {
    int64_t n = (int64_t)ct_storage_nbytes(s);
    return ct_tensor_from_storage(s, &n, NULL, 1, 0, CT_UINT8, out);
}

/* A copy of a storage's bytes on its own device (meta: a new meta storage). */
static ct_status storage_copy(ct_storage *s, ct_storage **out) {
    *out = NULL;
    ct_tensor *v = NULL, *c = NULL;
    ct_status st = storage_bytes_view(s, &v);
    if (st == CT_OK)
        st = ct_tensor_clone(v, CT_MEMFMT_CONTIGUOUS, &c);
    ct_tensor_release(v);
    if (st == CT_OK)
        *out = ct_storage_retain(ct_tensor_storage(c));
    ct_tensor_release(c);
    return st;
}

/* The storage's bytes as Python bytes (None for meta). */
static PyObject *storage_to_bytes(ct_storage *s) {
    ct_device dev = ct_storage_device(s);
    if (dev.type == CT_DEVICE_META)
        return Py_NewRef(Py_None);
    if (dev.type == CT_DEVICE_CPU)
        return PyBytes_FromStringAndSize(ct_storage_data(s), (Py_ssize_t)ct_storage_nbytes(s));
    ct_tensor *v = NULL, *c = NULL;
    ct_status st = storage_bytes_view(s, &v);
    if (st == CT_OK)
        st = ct_tensor_to_device(v, CPU, &c);
    ct_tensor_release(v);
    PyObject *r = st == CT_OK ? PyBytes_FromStringAndSize(ct_tensor_data_ptr(c),
                                                          (Py_ssize_t)ct_tensor_nbytes(c))
                              : ctp_raise_status(st);
    ct_tensor_release(c);
    return r;
}

static PyObject *rebuild_function(const char *name) {
    PyObject *mod = PyImport_ImportModule("ctensor");
    PyObject *f = mod != NULL ? PyObject_GetAttrString(mod, name) : NULL;
    Py_XDECREF(mod);
    return f;
}

static PyObject *reduce_sparse(ct_tensor *t) {
    ct_tensor *ind = NULL, *val = NULL;
    bool coalesced = false;
    ct_status st = ct_sparse_raw_indices(t, &ind);
    if (st == CT_OK)
        st = ct_sparse_raw_values(t, &val);
    if (st == CT_OK)
        st = ct_sparse_is_coalesced(t, &coalesced);
    if (st != CT_OK) {
        ct_tensor_release(ind);
        ct_tensor_release(val);
        return ctp_raise_status(st);
    }
    PyObject *pi = ctp_tensor_wrap(ind), *pv = pi != NULL ? ctp_tensor_wrap(val) : NULL;
    if (pi == NULL)
        ct_tensor_release(val);
    PyObject *size = int_tuple(ct_tensor_sizes(t), ct_tensor_dim(t));
    PyObject *f = rebuild_function("_rebuild_sparse_coo");
    PyObject *r = pi != NULL && pv != NULL && size != NULL && f != NULL
                      ? Py_BuildValue("O(OOOO)", f, pi, pv, size, coalesced ? Py_True : Py_False)
                      : NULL;
    Py_XDECREF(pi);
    Py_XDECREF(pv);
    Py_XDECREF(size);
    Py_XDECREF(f);
    return r;
}

/* __reduce_ex__(protocol) -> (ctensor._rebuild_tensor, (data, nbytes, device, dtype, size,
 * stride, storage_offset)). */
static PyObject *tensor_reduce_ex(PyObject *self, PyObject *protocol) {
    (void)protocol;
    ct_tensor *t = ctp_tensor_get(self);
    if (ct_tensor_layout(t) == CT_LAYOUT_SPARSE_COO)
        return reduce_sparse(t);
    ct_storage *s = ct_tensor_storage(t);
    PyObject *data = storage_to_bytes(s);
    PyObject *dev = data != NULL ? ctp_device_new(ct_storage_device(s)) : NULL;
    PyObject *size = int_tuple(ct_tensor_sizes(t), ct_tensor_dim(t));
    PyObject *stride = int_tuple(ct_tensor_strides(t), ct_tensor_dim(t));
    PyObject *f = rebuild_function("_rebuild_tensor");
    PyObject *r = NULL;
    if (data != NULL && dev != NULL && size != NULL && stride != NULL && f != NULL)
        r = Py_BuildValue("O(OKOOOOL)", f, data, (unsigned long long)ct_storage_nbytes(s), dev,
                          ctp_dtype_borrow(ct_tensor_dtype(t)), size, stride,
                          (long long)ct_tensor_storage_offset(t));
    Py_XDECREF(data);
    Py_XDECREF(dev);
    Py_XDECREF(size);
    Py_XDECREF(stride);
    Py_XDECREF(f);
    return r;
}

/* Read a tuple of ints into v (at most CT_MAX_DIMS); returns the count or -1. */
static Py_ssize_t read_ints(PyObject *tuple, int64_t *v, const char *what) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) > CT_MAX_DIMS) {
        PyErr_Format(PyExc_TypeError, "_rebuild_tensor: %s must be a tuple of at most 64 ints",
                     what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++) {
        v[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return PyTuple_GET_SIZE(tuple);
}

/* A storage of `nbytes` on `device` holding `data` (None: uninitialised, for meta). */
static ct_status storage_from_bytes(PyObject *data, size_t nbytes, ct_device device,
                                    ct_storage **out) {
    *out = NULL;
    if (device.type == CT_DEVICE_META || data == Py_None)
        return ct_storage_new(device, nbytes, out);
    int64_t n = (int64_t)nbytes;
    ct_tensor *c = NULL, *d = NULL;
    ct_status st = ct_tensor_from_data(&n, 1, CT_UINT8, PyBytes_AS_STRING(data), &CPU, &c);
    if (st == CT_OK && device.type != CT_DEVICE_CPU)
        st = ct_tensor_to_device(c, device, &d);
    if (st == CT_OK)
        *out = ct_storage_retain(ct_tensor_storage(d != NULL ? d : c));
    ct_tensor_release(c);
    ct_tensor_release(d);
    return st;
}

static PyObject *py_rebuild_tensor(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *data, *devobj, *dtobj, *size, *stride;
    unsigned long long nbytes;
    long long offset;
    if (!PyArg_ParseTuple(args, "OKOO!OOL:_rebuild_tensor", &data, &nbytes, &devobj,
                          &ctp_dtype_type, &dtobj, &size, &stride, &offset))
        return NULL;
    ct_device device;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    Py_ssize_t nd = read_ints(size, sizes, "size"), ns = nd < 0 ? -1 : read_ints(stride, strides, "stride");
    if (nd < 0 || ns < 0 || ctp_parse_device_arg(devobj, &device) < 0)
        return NULL;
    if (ns != nd || (data != Py_None && (!PyBytes_Check(data) ||
                                         (unsigned long long)PyBytes_GET_SIZE(data) != nbytes)))
        return PyErr_Format(PyExc_ValueError, "_rebuild_tensor: inconsistent arguments");
    ct_storage *s = NULL;
    ct_status st = storage_from_bytes(data, (size_t)nbytes, device, &s);
    ct_tensor *t = NULL;
    if (st == CT_OK)
        st = ct_tensor_from_storage(s, sizes, strides, nd, offset, ctp_opt_dtype(dtobj), &t);
    ct_storage_release(s);
    return ctp_tensor_result(NULL, st, t);
}

static PyObject *py_rebuild_sparse_coo(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *pi, *pv, *size;
    int coalesced;
    if (!PyArg_ParseTuple(args, "O!O!Op:_rebuild_sparse_coo", &ctp_tensor_type, &pi,
                          &ctp_tensor_type, &pv, &size, &coalesced))
        return NULL;
    int64_t sizes[CT_MAX_DIMS];
    Py_ssize_t nd = read_ints(size, sizes, "size");
    if (nd < 0)
        return NULL;
    ct_sparse_coo_options opt = CT_SPARSE_COO_OPTIONS_INIT;
    opt.check_invariants = true;
    ct_tensor *t = NULL;
    ct_status st = ct_sparse_coo_tensor(ctp_tensor_get(pi), ctp_tensor_get(pv), sizes, nd, &opt, &t);
    if (st == CT_OK) /* the flag as it was (an uncoalesced tensor may hold sorted indices) */
        st = ct_sparse_set_coalesced(t, coalesced != 0);
    if (st != CT_OK)
        ct_tensor_release(t);
    return st == CT_OK ? ctp_tensor_wrap(t) : ctp_raise_status(st);
}

/* __copy__: an alias (the same storage, sizes, strides and offset). */
static PyObject *tensor_copy(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_tensor *t = ctp_tensor_get(self), *r = NULL;
    if (ct_tensor_layout(t) == CT_LAYOUT_SPARSE_COO) /* torch: a new sparse tensor object */
        return PyObject_CallMethod(self, "__deepcopy__", "(N)", PyDict_New());
    ct_status st = ct_tensor_alias(t, &r);
    return ctp_tensor_result(NULL, st, r);
}

/* __deepcopy__(memo): the storage copied once per memo, the geometry kept. */
static PyObject *tensor_deepcopy(PyObject *self, PyObject *memo) {
    ct_tensor *t = ctp_tensor_get(self);
    if (ct_tensor_layout(t) == CT_LAYOUT_SPARSE_COO) {
        PyObject *red = tensor_reduce_ex(self, NULL);
        if (red == NULL)
            return NULL;
        PyObject *cm = PyImport_ImportModule("copy");
        PyObject *args = cm != NULL ? PyObject_CallMethod(cm, "deepcopy", "OO",
                                                          PyTuple_GET_ITEM(red, 1), memo)
                                    : NULL;
        PyObject *r = args != NULL ? PyObject_CallObject(PyTuple_GET_ITEM(red, 0), args) : NULL;
        Py_XDECREF(cm);
        Py_XDECREF(args);
        Py_DECREF(red);
        return r;
    }
    ct_storage *s = ct_tensor_storage(t);
    /* the key names the storage, not a Python object: views of one base share the copy */
    PyObject *key = Py_BuildValue("(sK)", "ctensor.storage", (unsigned long long)(uintptr_t)s);
    PyObject *kept = key != NULL && PyDict_Check(memo) ? PyDict_GetItemWithError(memo, key) : NULL;
    if (key == NULL || PyErr_Occurred()) {
        Py_XDECREF(key);
        return NULL;
    }
    ct_storage *copy = NULL;
    ct_status st = CT_OK;
    if (kept != NULL) {
        copy = ct_storage_retain(ct_tensor_storage(ctp_tensor_get(kept)));
    } else {
        st = storage_copy(s, &copy);
    }
    ct_tensor *r = NULL;
    if (st == CT_OK)
        st = ct_tensor_from_storage(copy, ct_tensor_sizes(t), ct_tensor_strides(t),
                                    ct_tensor_dim(t), ct_tensor_storage_offset(t),
                                    ct_tensor_dtype(t), &r);
    ct_storage_release(copy);
    PyObject *res = ctp_tensor_result(NULL, st, r);
    if (res != NULL && kept == NULL && PyDict_Check(memo) && PyDict_SetItem(memo, key, res) < 0)
        Py_CLEAR(res);
    Py_DECREF(key);
    return res;
}

static PyMethodDef ctp_tensor_pickle_methods[] = {
    {"__reduce_ex__", tensor_reduce_ex, METH_O, NULL},
    {"__copy__", tensor_copy, METH_NOARGS, NULL},
    {"__deepcopy__", tensor_deepcopy, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef pickle_functions[] = {
    {"_rebuild_tensor", py_rebuild_tensor, METH_VARARGS,
     "_rebuild_tensor(data, nbytes, device, dtype, size, stride, storage_offset) -> Tensor\n\n"
     "Unpickling: a storage of the bytes on the device, viewed with the geometry."},
    {"_rebuild_sparse_coo", py_rebuild_sparse_coo, METH_VARARGS,
     "_rebuild_sparse_coo(indices, values, size, is_coalesced) -> Tensor\n\nUnpickling."},
    {NULL, NULL, 0, NULL},
};

#ifdef CT_HAVE_DIST
/* A global tensor's data lives on every rank of its placement: no one process can pickle it
 * (pickle, copy and deepcopy all come here). */
static PyObject *global_reduce_ex(PyObject *self, PyObject *protocol) {
    (void)self;
    (void)protocol;
    return PyErr_Format(PyExc_TypeError,
                        "cannot pickle a global tensor (ctensor.GlobalTensor): its data is spread "
                        "over the ranks of its placement; pickle its to_local() part on each "
                        "rank, or a gathered copy (to_global(sbp=ctensor.sbp.broadcast)"
                        ".to_local())");
}

static PyObject *global_copy(PyObject *self, PyObject *unused) {
    (void)unused;
    return global_reduce_ex(self, NULL);
}

/* A GlobalTensor is a Tensor: the Tensor's __copy__ / __deepcopy__ (above) would be
 * inherited, so the global type gets its own refusals for all three entry points. */
static PyMethodDef global_refusals[] = {
    {"__reduce_ex__", global_reduce_ex, METH_O, NULL},
    {"__copy__", global_copy, METH_NOARGS, NULL},
    {"__deepcopy__", global_reduce_ex, METH_O, NULL},
};

static int refuse_global(void) {
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof global_refusals / sizeof global_refusals[0]; i++) {
        PyObject *descr = PyDescr_NewMethod(&ctp_global_type, &global_refusals[i]);
        rc = descr != NULL ? PyDict_SetItemString(ctp_global_type.tp_dict,
                                                  global_refusals[i].ml_name, descr)
                           : -1;
        Py_XDECREF(descr);
    }
    PyType_Modified(&ctp_global_type);
    return rc;
}
#else
static int refuse_global(void) { return 0; }
#endif

int ctp_pickle_init(PyObject *module); /* module.c */
int ctp_pickle_init(PyObject *module) {
    return ctp_tensor_add_methods(ctp_tensor_pickle_methods) < 0 ||
                   PyModule_AddFunctions(module, pickle_functions) < 0 || refuse_global() < 0
               ? -1
               : 0;
}
