/* ctensor.finfo and ctensor.iinfo, as torch/csrc/TypeInfo.cpp defines torch.finfo/iinfo.
 *
 * The values come from ct_finfo_of / ct_iinfo_of. The Python behaviour reproduced here:
 * equality compares the described dtype (finfo(complex64) == finfo(float32)), comparing
 * with anything else is plain identity, ordering raises TypeError, the objects are
 * unhashable and not cached, repr == str with numbers in C++ ostream format (%g, so iinfo
 * prints its integer limits as doubles: "iinfo(min=-2.14748e+09, ...)").
 */
#include "ctensor_py.h"

/* Shared head, so one comparison serves both types. */
typedef struct {
    PyObject ob_base; /* PyObject_HEAD, spelled out for clang-format */
    ct_dtype type;    /* the dtype described: the real dtype for finfo */
} typeinfo_head;

typedef struct {
    typeinfo_head head;
    ct_finfo info;
} finfo_object;

typedef struct {
    typeinfo_head head;
    ct_iinfo info;
} iinfo_object;

static int is_typeinfo(PyObject *obj) {
    return Py_TYPE(obj) == &ctp_finfo_type || Py_TYPE(obj) == &ctp_iinfo_type;
}

static PyObject *typeinfo_richcompare(PyObject *a, PyObject *b, int op) {
    if (!is_typeinfo(a) || !is_typeinfo(b) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    int same = ((typeinfo_head *)a)->type == ((typeinfo_head *)b)->type;
    return PyBool_FromLong(op == Py_EQ ? same : !same);
}

/* %g as C++ ostream prints a double (6 significant digits), independent of the C locale. */
static char *format_g(double x) { return PyOS_double_to_string(x, 'g', 6, 0, NULL); }

/* ---- finfo ------------------------------------------------------------------------------ */

static const ct_finfo *finfo_of(PyObject *self) { return &((finfo_object *)self)->info; }

/* float4_e2m1fn_x2 has no values: PyTorch's getters dispatch on the dtype and fail with the
 * name of the numeric_limits member they wanted, as NotImplementedError (a RuntimeError
 * subclass) in newest PyTorch. */
static int require_values(PyObject *self, const char *member) {
    const ct_finfo *info = finfo_of(self);
    if (info->has_values)
        return 0;
    PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", member,
                 ct_dtype_cpp_name(info->dtype));
    return -1;
}

static PyObject *finfo_bits(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(finfo_of(self)->bits);
}

/* One getter per double field; `label` is the name PyTorch's dispatch reports. */
#define FINFO_GETTER(field, label)                                                                 \
    static PyObject *finfo_##field(PyObject *self, void *closure) {                                \
        (void)closure;                                                                             \
        if (require_values(self, label) < 0)                                                       \
            return NULL;                                                                           \
        return PyFloat_FromDouble(finfo_of(self)->field);                                          \
    }
FINFO_GETTER(eps, "epsilon")
FINFO_GETTER(max, "max")
FINFO_GETTER(min, "lowest")
FINFO_GETTER(smallest_normal, "min")
FINFO_GETTER(tiny, "min")
FINFO_GETTER(resolution, "digits10")
#undef FINFO_GETTER

static PyObject *finfo_dtype(PyObject *self, void *closure) {
    (void)closure;
    if (require_values(self, "dtype") < 0)
        return NULL;
    return PyUnicode_FromString(ct_dtype_name(finfo_of(self)->dtype));
}

static PyObject *finfo_repr(PyObject *self) {
    const ct_finfo *info = finfo_of(self);
    if (!info->has_values) {
        /* Newest PyTorch's repr feeds each failing getter's NULL to PyFloat_AsDouble, so the
         * exception that survives is CPython's PyErr_BadArgument() from the last one. */
        PyErr_SetString(PyExc_TypeError, "bad argument type for built-in operation");
        return NULL;
    }
    double values[6] = {info->resolution,      info->min, info->max, info->eps,
                        info->smallest_normal, info->tiny};
    char *text[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *result = NULL;
    for (int i = 0; i < 6; i++) {
        text[i] = format_g(values[i]);
        if (text[i] == NULL)
            goto done;
    }
    result = PyUnicode_FromFormat(
        "finfo(resolution=%s, min=%s, max=%s, eps=%s, smallest_normal=%s, tiny=%s, dtype=%s)",
        text[0], text[1], text[2], text[3], text[4], text[5], ct_dtype_name(info->dtype));
done:
    for (int i = 0; i < 6; i++)
        PyMem_Free(text[i]);
    return result;
}

/* finfo(type) and finfo(), tried in this order as PyTorch does. */
static const ctp_signature finfo_sigs[] = {
    {1, {{CTP_PARAM_DTYPE, "type"}}},
    {.nparams = 0},
};

static PyObject *finfo_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_finfo info;
    int sig = ctp_parse_args("finfo", finfo_sigs, 2, args, kwargs, a);
    if (sig < 0)
        return NULL;
    ct_dtype dtype = sig == 0 ? ctp_dtype_of_arg(a[0]) : ct_get_default_dtype();
    ct_status st = ct_finfo_of(dtype, &info);
    if (st != CT_OK)
        return ctp_raise_status(st);
    finfo_object *self = (finfo_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->head.type = info.dtype;
    self->info = info;
    return (PyObject *)self;
}

static PyGetSetDef finfo_getset[] = {
    {"bits", finfo_bits, NULL, NULL, NULL},
    {"eps", finfo_eps, NULL, NULL, NULL},
    {"max", finfo_max, NULL, NULL, NULL},
    {"min", finfo_min, NULL, NULL, NULL},
    {"smallest_normal", finfo_smallest_normal, NULL, NULL, NULL},
    {"tiny", finfo_tiny, NULL, NULL, NULL},
    {"resolution", finfo_resolution, NULL, NULL, NULL},
    {"dtype", finfo_dtype, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* No tp_hash next to tp_richcompare: PyType_Ready then makes the type unhashable, as
 * torch.finfo is ("unhashable type: 'ctensor.finfo'"). */
/* clang-format off */
PyTypeObject ctp_finfo_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.finfo",
    .tp_basicsize = sizeof(finfo_object),
    .tp_repr = finfo_repr,
    .tp_str = finfo_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "finfo(type=None)\n\nMachine limits of a floating point dtype (the default "
              "dtype when omitted).",
    .tp_richcompare = typeinfo_richcompare,
    .tp_getset = finfo_getset,
    .tp_new = finfo_new,
};
/* clang-format on */

/* ---- iinfo ------------------------------------------------------------------------------ */

static const ct_iinfo *iinfo_of(PyObject *self) { return &((iinfo_object *)self)->info; }

static PyObject *iinfo_bits(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(iinfo_of(self)->bits);
}

static PyObject *iinfo_min(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(iinfo_of(self)->min);
}

static PyObject *iinfo_max(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(iinfo_of(self)->max);
}

static PyObject *iinfo_dtype(PyObject *self, void *closure) {
    (void)closure;
    return PyUnicode_FromString(ct_dtype_name(iinfo_of(self)->dtype));
}

static PyObject *iinfo_repr(PyObject *self) {
    const ct_iinfo *info = iinfo_of(self);
    PyObject *result = NULL;
    /* PyTorch prints the limits through PyLong_AsDouble. */
    char *min = format_g((double)info->min);
    char *max = format_g((double)info->max);
    if (min != NULL && max != NULL)
        result = PyUnicode_FromFormat("iinfo(min=%s, max=%s, dtype=%s)", min, max,
                                      ct_dtype_name(info->dtype));
    PyMem_Free(min);
    PyMem_Free(max);
    return result;
}

static const ctp_signature iinfo_sig[] = {
    {1, {{CTP_PARAM_DTYPE, "type"}}},
};

static PyObject *iinfo_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_iinfo info;
    if (ctp_parse_args("iinfo", iinfo_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_status st = ct_iinfo_of(ctp_dtype_of_arg(a[0]), &info);
    if (st != CT_OK)
        return ctp_raise_status(st);
    iinfo_object *self = (iinfo_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->head.type = info.dtype;
    self->info = info;
    return (PyObject *)self;
}

static PyGetSetDef iinfo_getset[] = {
    {"bits", iinfo_bits, NULL, NULL, NULL}, {"max", iinfo_max, NULL, NULL, NULL},
    {"min", iinfo_min, NULL, NULL, NULL},   {"dtype", iinfo_dtype, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* clang-format off */
PyTypeObject ctp_iinfo_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.iinfo",
    .tp_basicsize = sizeof(iinfo_object),
    .tp_repr = iinfo_repr,
    .tp_str = iinfo_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "iinfo(type)\n\nMachine limits of an integer dtype.",
    .tp_richcompare = typeinfo_richcompare,
    .tp_getset = iinfo_getset,
    .tp_new = iinfo_new,
};
/* clang-format on */
