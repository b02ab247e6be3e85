/* Printing tensors from Python: repr()/str() of ctensor.Tensor through ct_tensor_repr with
 * the dtype prefix "ctensor.", and ctensor.set_printoptions / get_printoptions / printoptions
 * with torch's signatures over the process-wide options of the C library (print.h).
 *
 * Stricter than PyTorch, which stores whatever it is given and fails only when printing:
 * precision, edgeitems and linewidth must be ints, threshold a real number, and precision
 * (0..500) and edgeitems (>= 0) are range-checked here (ValueError). As in PyTorch, an
 * unknown profile name is ignored and sci_mode is reset to None when not given.
 */
#include <math.h>
#include <string.h>

#include "ctensor_py.h"

/* ---- repr ---------------------------------------------------------------------------------- */

PyObject *ctp_tensor_repr_with(PyObject *self,
                               ct_status (*repr_named)(const ct_tensor *, const ct_print_options *,
                                                       const char *, char **)) {
    ct_tensor *t = ctp_tensor_get(self);
    if (t == NULL)
        return PyErr_Format(PyExc_TypeError, "expected a ctensor.Tensor, got %s",
                            Py_TYPE(self)->tp_name);
    ct_print_options o = ct_get_printoptions();
    memcpy(o.prefix, "ctensor.", sizeof "ctensor.");
    /* PyTorch prints an instance of a subclass under the subclass's name */
    PyObject *name = NULL;
    const char *cname = "tensor";
    if (Py_TYPE(self) != &ctp_tensor_type) {
        name = PyType_GetName(Py_TYPE(self));
        if (name == NULL || (cname = PyUnicode_AsUTF8(name)) == NULL) {
            Py_XDECREF(name);
            return NULL;
        }
    }
    char *s = NULL;
    ct_status st = repr_named(t, &o, cname, &s);
    Py_XDECREF(name);
    if (st != CT_OK)
        return ctp_raise_status(st);
    PyObject *r = PyUnicode_FromString(s);
    ct_string_free(s);
    return r;
}

static PyObject *tensor_repr(PyObject *self) {
    return ctp_tensor_repr_with(self, ct_tensor_repr_named);
}

/* ---- set_printoptions ---------------------------------------------------------------------- */

static int int_option(const char *what, PyObject *v, int64_t *out) {
    if (!ctp_is_int_arg(v)) {
        PyErr_Format(PyExc_TypeError, "set_printoptions(): %s must be an int, not %s", what,
                     Py_TYPE(v)->tp_name);
        return -1;
    }
    return ctp_int64_of_arg(v, out);
}

/* Apply set_printoptions' arguments to `o`, in PyTorch's order: profile, then each option
 * given, then sci_mode (None when left out). 0, or -1 with an exception set. */
static int apply_arguments(ct_print_options *o, PyObject *args, PyObject *kwargs) {
    static const char *const params[] = {"precision", "threshold", "edgeitems",
                                         "linewidth", "profile",   "sci_mode"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("set_printoptions", params, 6, 0, 0, args, kwargs, a) < 0)
        return -1;
    PyObject *precision = a[0], *threshold = a[1], *edgeitems = a[2], *linewidth = a[3],
             *profile = a[4], *sci_mode = a[5];
    if (profile != NULL && profile != Py_None && PyUnicode_Check(profile)) {
        const char *p = PyUnicode_AsUTF8(profile);
        if (p == NULL)
            return -1;
        if (ct_print_options_apply_profile(o, p) != CT_OK)
            ct_clear_error(); /* PyTorch ignores names it does not know */
    }
    int64_t v;
    if (precision != NULL && precision != Py_None) {
        if (int_option("precision", precision, &v) < 0)
            return -1;
        if (v < 0 || v > CT_PRINT_MAX_PRECISION) {
            PyErr_Format(PyExc_ValueError, "precision must be between 0 and %d, got %lld",
                         CT_PRINT_MAX_PRECISION, (long long)v);
            return -1;
        }
        o->precision = (int32_t)v;
    }
    if (threshold != NULL && threshold != Py_None) {
        if (!PyNumber_Check(threshold) || PyComplex_Check(threshold)) {
            PyErr_Format(PyExc_TypeError, "set_printoptions(): threshold must be a number, not %s",
                         Py_TYPE(threshold)->tp_name);
            return -1;
        }
        double d = PyFloat_AsDouble(threshold);
        if (d == -1.0 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return -1;
            PyErr_Clear(); /* an int beyond any double: as good as infinite */
            PyObject *zero = PyLong_FromLong(0);
            int positive = zero != NULL ? PyObject_RichCompareBool(threshold, zero, Py_GT) : -1;
            Py_XDECREF(zero);
            if (positive < 0)
                return -1;
            d = positive ? INFINITY : -INFINITY;
        }
        o->threshold = d;
    }
    if (edgeitems != NULL && edgeitems != Py_None) {
        if (int_option("edgeitems", edgeitems, &v) < 0)
            return -1;
        o->edgeitems = v;
    }
    if (linewidth != NULL && linewidth != Py_None) {
        if (int_option("linewidth", linewidth, &v) < 0)
            return -1;
        o->linewidth = v;
    }
    if (sci_mode == NULL || sci_mode == Py_None) {
        o->sci_mode = CT_PRINT_SCI_AUTO;
    } else {
        int on = PyObject_IsTrue(sci_mode);
        if (on < 0)
            return -1;
        o->sci_mode = on ? CT_PRINT_SCI_ON : CT_PRINT_SCI_OFF;
    }
    ct_status st = ct_print_options_check(o);
    return st == CT_OK ? 0 : (ctp_raise_status(st), -1);
}

static PyObject *py_set_printoptions(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    ct_print_options o = ct_get_printoptions();
    if (apply_arguments(&o, args, kwargs) < 0)
        return NULL;
    ct_status st = ct_set_printoptions(&o);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

/* ---- get_printoptions ---------------------------------------------------------------------- */

static PyObject *options_dict(const ct_print_options *o) {
    /* the threshold comes back as the int it was set as (1000), or a float (inf) */
    double t = o->threshold;
    PyObject *threshold = isfinite(t) && t == floor(t) && fabs(t) < 9.2e18
                              ? PyLong_FromLongLong((long long)t)
                              : PyFloat_FromDouble(t);
    if (threshold == NULL)
        return NULL;
    PyObject *sci = o->sci_mode == CT_PRINT_SCI_AUTO ? Py_None
                    : o->sci_mode == CT_PRINT_SCI_ON ? Py_True
                                                     : Py_False;
    PyObject *d = Py_BuildValue("{s:i,s:N,s:L,s:L,s:O}", "precision", (int)o->precision,
                                "threshold", threshold, "edgeitems", (long long)o->edgeitems,
                                "linewidth", (long long)o->linewidth, "sci_mode", sci);
    return d;
}

static PyObject *py_get_printoptions(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (ctp_check_posonly_call("get_printoptions", NULL, 0, args, kwargs) < 0)
        return NULL;
    ct_print_options o = ct_get_printoptions();
    return options_dict(&o);
}

/* ---- printoptions(**kwargs): a context manager ---------------------------------------------- */

typedef struct {
    PyObject ob_base;
    PyObject *kwargs;          /* what __enter__ passes to set_printoptions */
    ct_print_options saved[8]; /* options before each nested __enter__, innermost last */
    int depth;
} print_context;

static void context_dealloc(PyObject *self) {
    Py_XDECREF(((print_context *)self)->kwargs);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *context_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    print_context *c = (print_context *)self;
    if (c->depth == (int)(sizeof c->saved / sizeof c->saved[0]))
        return PyErr_Format(PyExc_RuntimeError, "printoptions: entered too many times");
    ct_print_options old = ct_get_printoptions(), o = old;
    PyObject *noargs = PyTuple_New(0);
    if (noargs == NULL)
        return NULL;
    int r = apply_arguments(&o, noargs, c->kwargs);
    Py_DECREF(noargs);
    if (r < 0)
        return NULL;
    ct_status st = ct_set_printoptions(&o);
    if (st != CT_OK)
        return ctp_raise_status(st);
    c->saved[c->depth++] = old;
    Py_RETURN_NONE;
}

static PyObject *context_exit(PyObject *self, PyObject *args) {
    (void)args;
    print_context *c = (print_context *)self;
    if (c->depth > 0) {
        ct_status st = ct_set_printoptions(&c->saved[--c->depth]);
        if (st != CT_OK)
            return ctp_raise_status(st);
    }
    Py_RETURN_FALSE; /* exceptions propagate */
}

static PyMethodDef context_methods[] = {
    {"__enter__", context_enter, METH_NOARGS, NULL},
    {"__exit__", context_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject print_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor._PrintOptionsContext",
    .tp_basicsize = sizeof(print_context),
    .tp_dealloc = context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context manager that temporarily changes the print options (printoptions()).",
    .tp_methods = context_methods,
};

static PyObject *py_printoptions(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    if (PyTuple_GET_SIZE(args) != 0)
        return PyErr_Format(PyExc_TypeError,
                            "printoptions() takes 0 positional arguments but %zd %s given",
                            PyTuple_GET_SIZE(args), PyTuple_GET_SIZE(args) == 1 ? "was" : "were");
    print_context *c = PyObject_New(print_context, &print_context_type);
    if (c == NULL)
        return NULL;
    c->kwargs = kwargs != NULL ? PyDict_Copy(kwargs) : PyDict_New();
    c->depth = 0;
    if (c->kwargs == NULL) {
        Py_DECREF(c);
        return NULL;
    }
    return (PyObject *)c;
}

static PyMethodDef print_functions[] = {
    {"set_printoptions", (PyCFunction)(void (*)(void))py_set_printoptions,
     METH_VARARGS | METH_KEYWORDS,
     "set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, "
     "profile=None, sci_mode=None)\n--\n\nSet options for printing tensors, as "
     "torch.set_printoptions."},
    {"get_printoptions", (PyCFunction)(void (*)(void))py_get_printoptions,
     METH_VARARGS | METH_KEYWORDS,
     "get_printoptions()\n--\n\nThe current print options, as a dict that set_printoptions "
     "accepts as keyword arguments."},
    {"printoptions", (PyCFunction)(void (*)(void))py_printoptions, METH_VARARGS | METH_KEYWORDS,
     "printoptions(**kwargs)\n--\n\nContext manager that temporarily changes the print "
     "options; arguments as set_printoptions."},
    {NULL, NULL, 0, NULL},
};

int ctp_print_init(PyObject *module) {
    if (PyType_Ready(&print_context_type) < 0 || PyModule_AddFunctions(module, print_functions) < 0)
        return -1;
    ctp_tensor_repr_hook = tensor_repr;
    return 0;
}
