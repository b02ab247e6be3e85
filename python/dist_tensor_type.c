/* GlobalTensor as a ctensor.Tensor: what the subtype must say for itself so that no Tensor
 * method, attribute or slot reads a global tensor as a local one.
 *
 *  - the Tensor methods with a global meaning that dist_global.c / dist_arith.c /
 *    dist_unary.c / dist_reduce.c do not have: the dtype shortcuts and to(dtype) (collective:
 *    ct_global_to_dtype), type_as, copy_, new_zeros / new_ones / new_empty / new_full / new
 *    (on the tensor's placement and sbp, as OneFlow), __array__, int() / float() / index();
 *  - the slots Tensor has and GlobalTensor would inherit (mapping: dist_index.c, iteration,
 *    construction);
 *  - ctp_global_finish: every other Tensor method and attribute raises NotImplementedError
 *    "flip() is not implemented for global tensors yet ..." on GlobalTensor. The refusal is
 *    decided by the type and the name only, so it is raised alike on every rank without a
 *    collective. A few metadata queries stay inherited: they read the meta stand-in, whose
 *    sizes and dtype are the logical ones.
 */
#include <string.h>

#include "ctensor_dist_py.h"

#define G(obj) (((ctp_global_object *)(obj))->global)
#define KW METH_VARARGS | METH_KEYWORDS

static PyObject *not_implemented(const char *name) {
    PyErr_Format(PyExc_NotImplementedError,
                 "%s is not implemented for global tensors yet (x.to_local() gives this rank's "
                 "local component)",
                 name);
    return NULL;
}

/* ---- dtype conversions ------------------------------------------------------------------------ */

static PyObject *to_dtype(PyObject *self, ct_dtype dtype, const char *op) {
    uint64_t mark = ctp_dist_mark();
    ct_global *r = NULL;
    ct_status st = ct_global_to_dtype(G(self), dtype, &r);
    PyObject *out = ctp_global_result(self, st, r);
    return out != NULL ? out : ctp_dist_failed(op, mark);
}

/* x.float(), x.long(), ...: no arguments but memory_format= (ignored: global components are
 * contiguous). */
static PyObject *shortcut(PyObject *self, PyObject *args, PyObject *kwargs, const char *name,
                          ct_dtype dtype) {
    static char k_f[] = "memory_format";
    static char *kwlist[] = {k_f, NULL};
    PyObject *format = NULL;
    char fmt[48];
    snprintf(fmt, sizeof fmt, "|$O:%s", name);
    uint64_t mark = ctp_dist_mark();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kwlist, &format))
        return ctp_dist_failed("to", mark);
    return to_dtype(self, dtype, "to");
}

#define SHORTCUT(name, dtype)                                                                      \
    static PyObject *g_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                  \
        return shortcut(self, args, kwargs, #name, dtype);                                         \
    }
SHORTCUT(float, CT_FLOAT32)
SHORTCUT(double, CT_FLOAT64)
SHORTCUT(half, CT_FLOAT16)
SHORTCUT(bfloat16, CT_BFLOAT16)
SHORTCUT(int, CT_INT32)
SHORTCUT(long, CT_INT64)
SHORTCUT(short, CT_INT16)
SHORTCUT(char, CT_INT8)
SHORTCUT(byte, CT_UINT8)
SHORTCUT(bool, CT_BOOL)
SHORTCUT(cfloat, CT_COMPLEX64)
SHORTCUT(cdouble, CT_COMPLEX128)
#undef SHORTCUT

/* A device for a global tensor, OneFlow's rule: only a device type as a string ("cpu",
 * "cuda", "gpu"), no index and no device object; it names the placement's device type.
 * Returns a new reference: `self` for the placement's own type (nothing moves, no
 * collective), else the tensor on the placement of that type (ct_global_to_device_type,
 * collective); NULL with an exception. "cuda" without any cuda backend is the CPU-only
 * build's AssertionError. */
static PyObject *global_device(PyObject *self, PyObject *device) {
    const char *text = PyUnicode_Check(device) ? PyUnicode_AsUTF8(device) : NULL;
    if (text == NULL && PyErr_Occurred())
        return NULL;
    const char *type = text != NULL && strcmp(text, "gpu") == 0 ? "cuda" : text;
    if (type == NULL || (strcmp(type, "cpu") != 0 && strcmp(type, "cuda") != 0)) {
        PyObject *repr = text != NULL ? NULL : PyObject_Repr(device);
        if (text == NULL && repr == NULL)
            return NULL;
        PyErr_Format(PyExc_RuntimeError,
                     "Only string device without device id (eg. \"cpu\" or \"cuda\") is "
                     "expected for global tensor, but got %s",
                     text != NULL ? text : PyUnicode_AsUTF8(repr));
        Py_XDECREF(repr);
        return NULL;
    }
    if (strcmp(type, ct_placement_type_name(ct_global_placement(G(self)))) == 0)
        return Py_NewRef(self);
    if (strcmp(type, "cuda") == 0 && !ct_backend_is_registered(CT_DEVICE_CUDA)) {
        PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
        return NULL;
    }
    ct_global *r = NULL;
    ct_status st = ct_global_to_device_type(
        G(self), strcmp(type, "cuda") == 0 ? CT_DEVICE_CUDA : CT_DEVICE_CPU, &r);
    return ctp_global_result(self, st, r);
}

/* to(dtype), to(dtype=...), to(other) with another tensor's dtype, to(device[, dtype]) and
 * to(device=...) with a device type string (global_device, first); copy= and non_blocking=
 * change nothing here. */
static PyObject *to_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *target = NULL, *dtype_kw = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > 2)
        return PyErr_Format(PyExc_TypeError,
                            "to() takes at most 2 positional arguments (%zd "
                            "given)",
                            n);
    if (n >= 1 && PyTuple_GET_ITEM(args, 0) != Py_None &&
        !ctp_dtype_check(PyTuple_GET_ITEM(args, 0)) &&
        !PyObject_TypeCheck(PyTuple_GET_ITEM(args, 0), &ctp_tensor_type)) {
        /* to(device, dtype=None, ...) */
        PyObject *moved = global_device(self, PyTuple_GET_ITEM(args, 0));
        if (moved == NULL)
            return NULL;
        args = PyTuple_GetSlice(args, 1, n);
        PyObject *r = args != NULL ? to_call(moved, args, kwargs) : NULL;
        Py_XDECREF(args);
        Py_DECREF(moved);
        return r;
    }
    if (n > 1)
        return PyErr_Format(PyExc_TypeError,
                            "to() takes 1 positional argument but %zd were "
                            "given",
                            n);
    if (n == 1)
        target = PyTuple_GET_ITEM(args, 0);
    PyObject *device_kw = NULL;
    if (kwargs != NULL) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "dtype") == 0)
                dtype_kw = value;
            else if (PyUnicode_Check(key) &&
                     (PyUnicode_CompareWithASCIIString(key, "copy") == 0 ||
                      PyUnicode_CompareWithASCIIString(key, "non_blocking") == 0 ||
                      PyUnicode_CompareWithASCIIString(key, "memory_format") == 0))
                continue;
            else if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "device") == 0)
                device_kw = value;
            else
                return PyErr_Format(PyExc_TypeError, "to() got an unexpected keyword argument '%S'",
                                    key);
        }
    }
    if (target != NULL && dtype_kw != NULL)
        return PyErr_Format(PyExc_TypeError, "to() got multiple values for argument 'dtype'");
    if (target == NULL)
        target = dtype_kw;
    if (device_kw != NULL && device_kw != Py_None) {
        /* the device first, then the dtype on the moved tensor */
        PyObject *moved = global_device(self, device_kw);
        if (moved == NULL)
            return NULL;
        PyObject *rest = target != NULL ? PyTuple_Pack(1, target) : PyTuple_New(0);
        PyObject *r = rest != NULL ? to_call(moved, rest, NULL) : NULL;
        Py_XDECREF(rest);
        Py_DECREF(moved);
        return r;
    }
    if (target == NULL || target == Py_None)
        return Py_NewRef(self);
    if (ctp_dtype_check(target))
        return to_dtype(self, ctp_dtype_of_arg(target), "to");
    if (PyObject_TypeCheck(target, &ctp_tensor_type)) { /* to(other): other's dtype */
        PyObject *d = PyObject_GetAttrString(target, "dtype");
        if (d == NULL)
            return NULL;
        ct_dtype dt = ctp_dtype_of_arg(d);
        Py_DECREF(d);
        return to_dtype(self, dt, "to");
    }
    return not_implemented("to() with this argument");
}

static PyObject *g_to(PyObject *self, PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = to_call(self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed("to", mark);
}

/* cpu(): to("cpu") (OneFlow): the tensor itself on a cpu placement. */
static PyObject *g_cpu(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_f[] = "memory_format";
    static char *kwlist[] = {k_f, NULL};
    PyObject *format = NULL;
    uint64_t mark = ctp_dist_mark();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:cpu", kwlist, &format))
        return ctp_dist_failed("to", mark);
    PyObject *cpu = PyUnicode_FromString("cpu");
    PyObject *r = cpu != NULL ? global_device(self, cpu) : NULL;
    Py_XDECREF(cpu);
    return r != NULL ? r : ctp_dist_failed("to", mark);
}

/* cuda(): to("cuda") (OneFlow): the tensor on the cuda placement of the same ranks and sbp.
 * A device index is refused as to("cuda:0") is. */
static PyObject *g_cuda(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_d[] = "device", k_nb[] = "non_blocking", k_f[] = "memory_format";
    static char *kwlist[] = {k_d, k_nb, k_f, NULL};
    PyObject *device = Py_None, *non_blocking = NULL, *format = NULL;
    uint64_t mark = ctp_dist_mark();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO$O:cuda", kwlist, &device, &non_blocking,
                                     &format))
        return ctp_dist_failed("to", mark);
    PyObject *name = device == Py_None ? PyUnicode_FromString("cuda") : NULL;
    PyObject *r = NULL;
    if (device != Py_None) {
        PyObject *repr = PyObject_Str(device);
        if (repr != NULL)
            PyErr_Format(PyExc_RuntimeError,
                         "Only string device without device id (eg. \"cpu\" or \"cuda\") is "
                         "expected for global tensor, but got %U",
                         repr);
        Py_XDECREF(repr);
    } else if (name != NULL) {
        r = global_device(self, name);
    }
    Py_XDECREF(name);
    return r != NULL ? r : ctp_dist_failed("to", mark);
}

static PyObject *g_type_as(PyObject *self, PyObject *other) {
    uint64_t mark = ctp_dist_mark();
    if (!PyObject_TypeCheck(other, &ctp_tensor_type)) {
        PyErr_Format(PyExc_TypeError, "type_as(): argument 'other' (position 1) must be Tensor, "
                                      "not %s",
                     Py_TYPE(other)->tp_name);
        return ctp_dist_failed("to", mark);
    }
    /* the stand-in or the local tensor has the dtype */
    return to_dtype(self, ct_tensor_dtype(((ctp_tensor_object *)other)->tensor), "to");
}

/* ---- copy_ -------------------------------------------------------------------------------------- */

/* x.copy_(src), src a global tensor: src boxed to x's placement and sbp (collective), then
 * each rank copies its component into x's (the same local shapes, by the boxing); the local
 * copy casts to x's dtype. A local src is OneFlow's mixing error. */
static PyObject *copy_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_src[] = "src", k_nb[] = "non_blocking";
    static char *kwlist[] = {k_src, k_nb, NULL};
    PyObject *src;
    int non_blocking = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:copy_", kwlist, &src, &non_blocking))
        return NULL;
    if (ctp_tensor_check(src)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Expected all tensors to be global, but found a local tensor");
        return NULL;
    }
    if (!ctp_global_check(src))
        return PyErr_Format(PyExc_TypeError, "copy_(): argument 'src' (position 1) must be Tensor, "
                                             "not %s",
                            Py_TYPE(src)->tp_name);
    const ct_global *g = G(self);
    ct_global *boxed = NULL;
    ct_status st = ct_global_to_global(G(src), ct_global_placement(g), ct_global_sbp(g),
                                       ct_placement_ndim(ct_global_placement(g)), 0, &boxed);
    ctp_dist_entered();
    if (st != CT_OK)
        return ctp_dist_raise(st);
    /* x's component is x's data: to_local() shares it, as OneFlow's does */
    st = ct_tensor_copy_((ct_tensor *)ct_global_local(g), ct_global_local(boxed));
    ct_global_release(boxed);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    return Py_NewRef(self);
}

static PyObject *g_copy_(PyObject *self, PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = copy_call(self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed("copy_", mark);
}

/* ---- new_* ------------------------------------------------------------------------------------- */

void ctp_dist_spec_of_global(PyObject *global, ctp_dist_spec *spec) {
    const ct_global *g = G(global);
    spec->placement = ct_global_placement(g);
    spec->placement_obj = NULL;
    spec->n_sbp = ct_placement_ndim(spec->placement);
    memcpy(spec->sbp, ct_global_sbp(g), (size_t)spec->n_sbp * sizeof(ct_sbp));
}

/* Sizes given as ints or as one sequence of ints; -1 with an exception. */
static Py_ssize_t sizes_of(const char *fname, PyObject *args, Py_ssize_t first, int64_t *sizes) {
    PyObject *seq = args;
    Py_ssize_t n = PyTuple_GET_SIZE(args) - first;
    if (n == 1 && !ctp_is_index_arg(PyTuple_GET_ITEM(args, first))) {
        seq = PySequence_Fast(PyTuple_GET_ITEM(args, first), "");
        if (seq == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s(): argument 'size' must be tuple of ints, not %s",
                         fname, Py_TYPE(PyTuple_GET_ITEM(args, first))->tp_name);
            return -1;
        }
        first = 0;
        n = PySequence_Fast_GET_SIZE(seq);
    } else {
        Py_INCREF(seq);
    }
    if (n > CT_MAX_DIMS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "maximum supported dimension for a tensor is %d, found %zd",
                     CT_MAX_DIMS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(seq, first + i);
        if (!ctp_is_index_arg(v) || ctp_int64_of_arg(v, &sizes[i]) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError,
                             "%s(): argument 'size' must be tuple of ints, but found element of "
                             "type %s at pos %zd",
                             fname, Py_TYPE(v)->tp_name, i);
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return n;
}

/* new_empty / new_zeros / new_ones (kind 0, 1, 2) and new_full (3): sizes, fill value, then
 * dtype= (default: self's), placement= and sbp= (default: self's); device= is refused. */
static PyObject *new_call(PyObject *self, int kind, const char *fname, PyObject *args,
                          PyObject *kwargs) {
    int64_t sizes[CT_MAX_DIMS];
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    ct_scalar value = ct_scalar_int(0);
    Py_ssize_t nsize_args = kind == 3 ? nargs - 1 : nargs;
    if (kind == 3 && nargs != 2)
        return PyErr_Format(PyExc_TypeError, "%s() takes 2 positional arguments but %zd were "
                                             "given",
                            fname, nargs);
    if (nsize_args < 1)
        return PyErr_Format(PyExc_TypeError, "%s() missing required argument 'size'", fname);
    PyObject *size_args = PyTuple_GetSlice(args, 0, nsize_args);
    if (size_args == NULL)
        return NULL;
    Py_ssize_t n = sizes_of(fname, size_args, 0, sizes);
    Py_DECREF(size_args);
    if (n < 0 || (kind == 3 && ctp_scalar_of_arg(PyTuple_GET_ITEM(args, 1), &value) < 0))
        return NULL;
    ct_dtype dtype = ct_global_dtype(G(self));
    ctp_dist_spec given, spec;
    PyObject *rest = NULL;
    int k = 0;
    if (kwargs != NULL) {
        k = ctp_dist_take_spec(kwargs, &rest, &given);
        if (k < 0)
            return NULL;
        PyObject *key, *v;
        Py_ssize_t pos = 0;
        while (rest != NULL && PyDict_Next(rest, &pos, &key, &v)) {
            if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "dtype") == 0 &&
                v != Py_None) {
                if (!ctp_dtype_check(v)) {
                    PyErr_Format(PyExc_TypeError, "%s(): argument 'dtype' must be ctensor.dtype, "
                                                  "not %s",
                                 fname, Py_TYPE(v)->tp_name);
                    goto fail;
                }
                dtype = ctp_dtype_of_arg(v);
            } else if (PyUnicode_Check(key) &&
                       PyUnicode_CompareWithASCIIString(key, "requires_grad") == 0) {
                continue; /* no autograd */
            } else if (v != Py_None) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S' for a "
                                              "global tensor",
                             fname, key);
                goto fail;
            }
        }
    }
    if (k > 0) {
        spec = given;
        Py_DECREF(rest);
    } else {
        ctp_dist_spec_of_global(self, &spec);
    }
    PyObject *r = ctp_dist_constant(kind, sizes, n, value, dtype, &spec);
    if (k > 0)
        ctp_dist_spec_clear(&given);
    return r;
fail:
    if (k > 0) {
        Py_DECREF(rest);
        ctp_dist_spec_clear(&given);
    }
    return NULL;
}

#define NEW_METHOD(name, kind)                                                                     \
    static PyObject *g_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                  \
        uint64_t mark = ctp_dist_mark();                                                           \
        PyObject *r = new_call(self, kind, #name, args, kwargs);                                   \
        return r != NULL ? r : ctp_dist_failed(#name, mark);                                       \
    }
NEW_METHOD(new_empty, 0)
NEW_METHOD(new_zeros, 1)
NEW_METHOD(new_ones, 2)
NEW_METHOD(new_full, 3)
#undef NEW_METHOD

/* OneFlow's Tensor.new on a global x: x's dtype, placement and sbp (its own sbp, also for
 * data). x.new() is empty (size 0), x.new(*sizes) / x.new(Size) uninitialised, x.new(data)
 * (one sequence or array that is no Size) holds data as its logical value (the placement's
 * first rank's, as ctensor.tensor(data, placement=, sbp=)); x.new(tensor) is OneFlow's
 * error, and so is a keyword (OneFlow sets dtype, placement and sbp itself). */
static PyObject *g_new(PyObject *self, PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    int64_t sizes[CT_MAX_DIMS] = {0};
    Py_ssize_t n = 1;
    ctp_dist_spec spec;
    ctp_dist_spec_of_global(self, &spec);
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyObject *key = NULL, *v;
        Py_ssize_t pos = 0;
        PyDict_Next(kwargs, &pos, &key, &v);
        PyErr_Format(PyExc_TypeError, "new() got an unexpected keyword argument '%S' for a "
                                      "global tensor",
                     key);
        return ctp_dist_failed("new", mark);
    }
    if (PyTuple_GET_SIZE(args) == 1) {
        PyObject *first = PyTuple_GET_ITEM(args, 0);
        if (ctp_tensor_check(first) || ctp_global_check(first)) {
            PyErr_SetString(PyExc_RuntimeError, "Tensor.new(Tensor) only support local tensor.");
            return ctp_dist_failed("new", mark);
        }
        if (!ctp_is_index_arg(first) && !PyObject_TypeCheck(first, &ctp_size_type)) {
            if (!PySequence_Check(first) && !PyObject_HasAttrString(first, "__array_interface__")) {
                PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                             Py_TYPE(first)->tp_name);
                return ctp_dist_failed("new", mark);
            }
            PyObject *local = ctp_tensor_from_data(first, ct_global_dtype(G(self)), NULL);
            if (local == NULL)
                return ctp_dist_failed("new", mark);
            PyObject *r = ctp_dist_from_logical(local, &spec);
            return r != NULL ? r : ctp_dist_failed("new", mark);
        }
    }
    if (PyTuple_GET_SIZE(args) > 0) {
        n = sizes_of("new", args, 0, sizes);
        if (n < 0)
            return ctp_dist_failed("new", mark);
    }
    PyObject *r = ctp_dist_constant(0, sizes, n, ct_scalar_int(0), ct_global_dtype(G(self)), &spec);
    return r != NULL ? r : ctp_dist_failed("new", mark);
}

/* np.asarray(x): the logical value (collective), as numpy() */
static PyObject *g_array(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char k_dtype[] = "dtype", k_copy[] = "copy";
    static char *kwlist[] = {k_dtype, k_copy, NULL};
    PyObject *dtype = NULL, *copy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kwlist, &dtype, &copy))
        return NULL;
    PyObject *a = PyObject_CallMethod(self, "numpy", NULL);
    if (a == NULL || dtype == NULL || dtype == Py_None)
        return a;
    PyObject *r = PyObject_CallMethod(a, "astype", "O", dtype);
    Py_DECREF(a);
    return r;
}

PyObject *ctp_global_from_array(PyObject *array, PyObject *like) {
    ct_dtype dtype = ct_global_dtype(G(like));
    PyObject *local = ctp_tensor_from_data(array, dtype, NULL);
    if (local == NULL)
        return NULL;
    ctp_dist_spec spec;
    ctp_dist_spec_of_global(like, &spec);
    for (int64_t k = 0; k < spec.n_sbp; k++)
        spec.sbp[k] = (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1};
    return ctp_dist_from_logical(local, &spec);
}

PyObject *ctp_dist_full_global_fill(ctp_factory_fn fn, const void *what, PyObject *args,
                                    PyObject *kwargs) {
    int positional = PyTuple_GET_SIZE(args) >= 2;
    PyObject *fill = positional ? PyTuple_GET_ITEM(args, 1)
                                : PyDict_GetItemString(kwargs, "fill_value");
    uint64_t mark = ctp_dist_mark();
    if (ct_global_dim(G(fill)) != 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "full(): fill_value must be a 0-dimensional tensor, but it has %lld "
                     "dimensions",
                     (long long)ct_global_dim(G(fill)));
        return ctp_dist_failed("item", mark);
    }
    PyObject *value = PyObject_CallMethod(fill, "item", NULL); /* collective */
    if (value == NULL)
        return NULL;
    PyObject *args2 = PyTuple_New(PyTuple_GET_SIZE(args));
    PyObject *kwargs2 = kwargs != NULL ? PyDict_Copy(kwargs) : PyDict_New();
    PyObject *r = NULL;
    if (args2 == NULL || kwargs2 == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
        PyTuple_SET_ITEM(args2, i, Py_NewRef(positional && i == 1 ? value
                                                                   : PyTuple_GET_ITEM(args, i)));
    if (!positional && PyDict_SetItemString(kwargs2, "fill_value", value) < 0)
        goto done;
    PyObject *p = PyDict_GetItemString(kwargs2, "placement");
    PyObject *sbp = PyDict_GetItemString(kwargs2, "sbp");
    if ((p == NULL || p == Py_None) && (sbp == NULL || sbp == Py_None)) {
        const ct_placement *pl = ct_global_placement(G(fill));
        const int64_t nh = ct_placement_ndim(pl);
        PyObject *place = ctp_placement_wrap(ct_placement_retain((ct_placement *)pl));
        PyObject *b = ctp_sbp_new_ref((ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1});
        PyObject *sbps = place != NULL && b != NULL ? PyTuple_New(nh) : NULL;
        for (int64_t k = 0; sbps != NULL && k < nh; k++)
            PyTuple_SET_ITEM(sbps, k, Py_NewRef(b));
        int rc = sbps != NULL && PyDict_SetItemString(kwargs2, "placement", place) == 0 &&
                         PyDict_SetItemString(kwargs2, "sbp", sbps) == 0
                     ? 0
                     : -1;
        Py_XDECREF(place);
        Py_XDECREF(b);
        Py_XDECREF(sbps);
        if (rc < 0)
            goto done;
    }
    r = ctp_run_factory_named(fn, what, "full", args2, kwargs2);
done:
    Py_DECREF(value);
    Py_XDECREF(args2);
    Py_XDECREF(kwargs2);
    return r;
}

/* ---- the *_like factories ------------------------------------------------------------------- */

PyObject *ctp_dist_like(int kind, PyObject *input, ct_scalar value, ct_dtype dtype,
                        const ctp_dist_spec *spec) {
    ctp_dist_spec own;
    const int64_t *sizes;
    int64_t ndim;
    ct_dtype in_dtype;
    if (ctp_global_check(input)) {
        sizes = ct_global_sizes(G(input));
        ndim = ct_global_dim(G(input));
        in_dtype = ct_global_dtype(G(input));
        if (spec == NULL) {
            ctp_dist_spec_of_global(input, &own);
            spec = &own;
        }
    } else {
        const ct_tensor *t = ctp_tensor_get(input);
        sizes = ct_tensor_sizes(t);
        ndim = ct_tensor_dim(t);
        in_dtype = ct_tensor_dtype(t);
    }
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = in_dtype;
    if (kind <= 3)
        return ctp_dist_constant(kind, sizes, ndim, value, dtype, spec);
    /* rand / randn: the logical value drawn on every rank, the first rank's kept */
    ct_tensor *t = NULL;
    ct_status st = kind == 4 ? ct_tensor_rand(sizes, ndim, NULL, dtype, NULL, CT_LAYOUT_STRIDED, &t)
                             : ct_tensor_randn(sizes, ndim, NULL, dtype, NULL, CT_LAYOUT_STRIDED, &t);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return ctp_dist_from_logical(ctp_tensor_wrap(t), spec);
}

/* ---- slots ------------------------------------------------------------------------------------ */

static PyObject *item_as(PyObject *self, PyObject *(*conv)(PyObject *)) {
    PyObject *item = PyObject_CallMethod(self, "item", NULL);
    if (item == NULL)
        return NULL;
    PyObject *r = conv(item);
    Py_DECREF(item);
    return r;
}

static PyObject *nb_int(PyObject *self) { return item_as(self, PyNumber_Long); }
static PyObject *nb_float(PyObject *self) { return item_as(self, PyNumber_Float); }

/* operator.index(x): torch's rule, integer tensors of one element only */
static PyObject *nb_index(PyObject *self) {
    if (!ct_dtype_is_integral(ct_global_dtype(G(self)), true) || ct_global_numel(G(self)) != 1) {
        PyErr_SetString(PyExc_TypeError,
                        "only integer tensors of a single element can be converted to an index");
        return NULL;
    }
    return item_as(self, PyNumber_Index);
}


static PyObject *tp_iter(PyObject *self) {
    (void)self;
    return not_implemented("iteration");
}

static PyObject *tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    (void)type;
    (void)args;
    (void)kwargs;
    PyErr_SetString(PyExc_TypeError,
                    "cannot create 'ctensor.GlobalTensor' instances: use ctensor.Tensor(*size, "
                    "placement=..., sbp=...), the factories with placement= and sbp=, or "
                    "Tensor.to_global");
    return NULL;
}

void ctp_global_fill_slots(PyTypeObject *type) {
    PyNumberMethods *nb = type->tp_as_number;
    nb->nb_int = nb_int;
    nb->nb_float = nb_float;
    nb->nb_index = nb_index;
    nb->nb_matrix_multiply = ctp_global_matmul_operator;
    nb->nb_inplace_matrix_multiply = ctp_global_imatmul_operator;
    type->tp_as_mapping = &ctp_global_as_mapping;
    type->tp_iter = tp_iter;
    type->tp_new = tp_new;
}

/* ---- the refusals ----------------------------------------------------------------------------- */

/* Inherited from Tensor as they are: they read only the meta stand-in's sizes and dtype, the
 * logical ones. */
static const char *const inherited[] = {
    "dim",        "ndimension", "numel",        "nelement",      "element_size",
    "is_complex", "is_signed",  "__format__",   "layout",        "itemsize",
    "nbytes",     "is_sparse",  "is_quantized", "requires_grad", "is_leaf",
    "grad",       "grad_fn",    "is_floating_point",
};

static int is_inherited(const char *name) {
    for (size_t i = 0; i < sizeof inherited / sizeof inherited[0]; i++)
        if (strcmp(name, inherited[i]) == 0)
            return 1;
    return 0;
}

/* `self` is the method's name (a str) */
static PyObject *refused_call(PyObject *name, PyObject *args, PyObject *kwargs) {
    (void)args;
    (void)kwargs;
    char what[128];
    snprintf(what, sizeof what, "%s()", PyUnicode_AsUTF8(name));
    return not_implemented(what);
}

static PyMethodDef refused_def = {"not_implemented_for_global_tensors", CTP_KW_FUNC(refused_call),
                                  KW, "Not implemented for global tensors yet."};

static PyObject *refused_get(PyObject *self, void *closure) {
    (void)self;
    char what[128];
    snprintf(what, sizeof what, "Tensor.%s", (const char *)closure);
    return not_implemented(what);
}

int ctp_global_finish(void) {
    PyObject *base = ctp_tensor_type.tp_dict, *own = ctp_global_type.tp_dict;
    PyObject *key, *value;
    Py_ssize_t pos = 0, ngetset = 0;
    while (PyDict_Next(base, &pos, &key, &value))
        ngetset += Py_IS_TYPE(value, &PyGetSetDescr_Type);
    /* the definitions live as long as the process, as the static types do */
    PyGetSetDef *defs = PyMem_Calloc((size_t)ngetset + 1, sizeof *defs);
    if (defs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t k = 0;
    pos = 0;
    while (PyDict_Next(base, &pos, &key, &value)) {
        const int is_method = Py_IS_TYPE(value, &PyMethodDescr_Type);
        const int is_getset = Py_IS_TYPE(value, &PyGetSetDescr_Type);
        if (!PyUnicode_Check(key) || (!is_method && !is_getset))
            continue;
        int has = PyDict_Contains(own, key);
        if (has < 0)
            return -1;
        const char *name = PyUnicode_AsUTF8(key); /* the key lives in Tensor's dict */
        if (name == NULL)
            return -1;
        if (has || is_inherited(name))
            continue;
        PyObject *r;
        if (is_method) {
            r = PyCFunction_NewEx(&refused_def, key, NULL);
        } else {
            defs[k] = (PyGetSetDef){.name = name, .get = refused_get, .closure = (void *)name};
            r = PyDescr_NewGetSet(&ctp_global_type, &defs[k++]);
        }
        if (r == NULL || PyDict_SetItem(own, key, r) < 0) {
            Py_XDECREF(r);
            return -1;
        }
        Py_DECREF(r);
    }
    PyType_Modified(&ctp_global_type);
    return 0;
}

PyMethodDef ctp_global_tensor_methods[] = {
#define DEF(name, doc) {#name, CTP_KW_FUNC(g_##name), KW, doc},
    DEF(float, "float() -> GlobalTensor: to(ctensor.float32). Collective.") DEF(
        double, "double() -> GlobalTensor: to(ctensor.float64). Collective.")
        DEF(half, "half() -> GlobalTensor: to(ctensor.float16). Collective.") DEF(
            bfloat16,
            "bfloat16() -> GlobalTensor. Collective.") DEF(int, "int() -> GlobalTensor: "
                                                                "to(ctensor.int32). Collective.")
            DEF(long, "long() -> GlobalTensor: to(ctensor.int64). Collective.") DEF(
                short, "short() -> GlobalTensor: to(ctensor.int16). Collective.")
                DEF(char, "char() -> GlobalTensor: to(ctensor.int8). Collective.") DEF(
                    byte, "byte() -> GlobalTensor: to(ctensor.uint8). Collective.")
                    DEF(bool, "bool() -> GlobalTensor: to(ctensor.bool). Collective.") DEF(
                        cfloat, "cfloat() -> GlobalTensor: to(ctensor.complex64). Collective.")
                        DEF(cdouble, "cdouble() -> GlobalTensor: to(ctensor.complex128). "
                                     "Collective.") DEF(
                            to, "to(dtype) / to(other) / to(device, dtype=None) -> "
                                "GlobalTensor\n\nThe same "
                                "logical value in another dtype (the tensor itself when "
                                "unchanged); a device is a "
                                "device type string naming the placement's (OneFlow). Collective.")
                            DEF(cpu, "cpu() -> GlobalTensor: to(\"cpu\"): the tensor on the cpu "
                                     "placement of the same ranks and sbp (itself when it is "
                                     "there). Collective when it moves.")
                                DEF(cuda, "cuda() -> GlobalTensor: to(\"cuda\"): the tensor on "
                                          "the cuda placement of the same ranks and sbp. "
                                          "Collective when it moves.") DEF(
                                copy_, "copy_(src) -> self\n\nThe logical value of the global "
                                       "tensor src, in this "
                                       "tensor's placement, sbp and dtype. Collective.")
                                DEF(new_empty,
                                    "new_empty(size, *, dtype=None, placement=None, sbp=None) -> "
                                    "GlobalTensor\n\n"
                                    "On this tensor's placement and sbp unless given. Collective.")
                                    DEF(new_zeros, "new_zeros(size, *, dtype=None, placement=None, "
                                                   "sbp=None). Collective.")
                                        DEF(new_ones, "new_ones(size, *, dtype=None, "
                                                      "placement=None, sbp=None). Collective.") DEF(
                                            new_full, "new_full(size, fill_value, *, dtype=None, "
                                                      "placement=None, sbp=None). "
                                                      "Collective.")
                                            DEF(new, "new(*size) -> GlobalTensor\n\nUninitialised, "
                                                     "of this tensor's dtype, placement "
                                                     "and sbp. Collective."){
                                                "__array__", CTP_KW_FUNC(g_array), KW,
                                                "__array__(dtype=None) -> numpy.ndarray: the "
                                                "logical value. Collective."},
#undef DEF
    {"type_as", g_type_as, METH_O, "type_as(other) -> GlobalTensor: to(other.dtype)."},
    {NULL, NULL, 0, NULL},
};
