/* Module functions over dtypes: promote_types, can_cast, result_type, the default dtype, and
 * the private _result_type_of used by the tests before tensors exist. Each one parses its
 * arguments as PyTorch does (argparse.c), calls the C API and wraps the result. */
#include "ctensor_py.h"

/* ---- promote_types / can_cast ----------------------------------------------------------- */

static const ctp_signature promote_types_sig[] = {
    {2, {{CTP_PARAM_DTYPE, "type1"}, {CTP_PARAM_DTYPE, "type2"}}},
};

static PyObject *py_promote_types(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_dtype out;
    (void)self;
    if (ctp_parse_args("promote_types", promote_types_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_status st = ct_promote_types(ctp_dtype_of_arg(a[0]), ctp_dtype_of_arg(a[1]), &out);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return ctp_dtype_new_ref(out);
}

/* Newest PyTorch names the first parameter from_ (1.13 called it "from"). */
static const ctp_signature can_cast_sig[] = {
    {2, {{CTP_PARAM_DTYPE, "from_"}, {CTP_PARAM_DTYPE, "to"}}},
};

static PyObject *py_can_cast(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    (void)self;
    if (ctp_parse_args("can_cast", can_cast_sig, 1, args, kwargs, a) < 0)
        return NULL;
    return PyBool_FromLong(ct_can_cast(ctp_dtype_of_arg(a[0]), ctp_dtype_of_arg(a[1])));
}

/* ---- result_type ------------------------------------------------------------------------ */

/* PyTorch's four overloads, in the order its parser tries and prints them. */
static const ctp_signature result_type_sigs[] = {
    {2, {{CTP_PARAM_TENSOR, "tensor"}, {CTP_PARAM_TENSOR, "other"}}},
    {2, {{CTP_PARAM_NUMBER, "scalar"}, {CTP_PARAM_TENSOR, "tensor"}}},
    {2, {{CTP_PARAM_TENSOR, "tensor"}, {CTP_PARAM_NUMBER, "other"}}},
    {2, {{CTP_PARAM_NUMBER, "scalar1"}, {CTP_PARAM_NUMBER, "scalar2"}}},
};

static PyObject *py_result_type(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_operand ops[2];
    ct_dtype out;
    (void)self;
    int nsigs = (int)(sizeof result_type_sigs / sizeof result_type_sigs[0]);
    if (ctp_parse_args("result_type", result_type_sigs, nsigs, args, kwargs, a) < 0)
        return NULL;
    for (int i = 0; i < 2; i++)
        if (ctp_operand_from_object(a[i], &ops[i]) < 0)
            return NULL;
    ct_status st = ct_result_type(ops, 2, &out);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return ctp_dtype_new_ref(out);
}

/* _result_type_of((dtype, kind), ...): result_type over operands described by dtype and
 * kind, kind being 'tensor' (dimensioned), 'zero_dim' or 'scalar' (a wrapped number; pass the
 * number's own dtype: bool, int64, float64 or complex128). */
static int parse_kind(PyObject *kind, ct_operand_category *out) {
    static const struct {
        const char *name;
        ct_operand_category category;
    } kinds[] = {
        {"tensor", CT_OPERAND_DIMENSIONED},
        {"zero_dim", CT_OPERAND_ZERO_DIM},
        {"scalar", CT_OPERAND_SCALAR},
    };
    if (PyUnicode_Check(kind)) {
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            if (PyUnicode_CompareWithASCIIString(kind, kinds[i].name) == 0) {
                *out = kinds[i].category;
                return 0;
            }
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "_result_type_of(): kind must be 'tensor', 'zero_dim' or 'scalar', not %R", kind);
    return -1;
}

static PyObject *py_result_type_of(PyObject *self, PyObject *args) {
    ct_result_type_state state = CT_RESULT_TYPE_STATE_INIT;
    ct_dtype out;
    (void)self;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
        PyObject *item = PyTuple_GET_ITEM(args, i);
        ct_operand_category category;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 ||
            !ctp_dtype_check(PyTuple_GET_ITEM(item, 0))) {
            PyErr_Format(PyExc_TypeError,
                         "_result_type_of(): operand %zd must be a (ctensor.dtype, kind) tuple, "
                         "not %R",
                         i, item);
            return NULL;
        }
        if (parse_kind(PyTuple_GET_ITEM(item, 1), &category) < 0)
            return NULL;
        ct_dtype dtype = ((ctp_dtype_object *)PyTuple_GET_ITEM(item, 0))->dtype;
        ct_status st = ct_result_type_update(&state, dtype, category);
        if (st != CT_OK)
            return ctp_raise_status(st);
    }
    ct_status st = ct_result_type_finish(&state, &out);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return ctp_dtype_new_ref(out);
}

/* ---- default dtype ---------------------------------------------------------------------- */

static PyObject *py_get_default_dtype(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return ctp_dtype_new_ref(ct_get_default_dtype());
}

/* torch.set_default_dtype is a Python function `def set_default_dtype(d, /)` (newest; 1.13
 * also accepted d=...), so its call errors are CPython's, mirrored here. */
static PyObject *py_set_default_dtype(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"d"};
    (void)self;
    if (ctp_check_posonly_call("set_default_dtype", names, 1, args, kwargs) < 0)
        return NULL;
    PyObject *d = PyTuple_GET_ITEM(args, 0);
    if (!ctp_dtype_check(d)) {
        PyErr_SetString(PyExc_TypeError,
                        "invalid dtype object: only floating-point types are supported as the "
                        "default type");
        return NULL;
    }
    ct_status st = ct_set_default_dtype(((ctp_dtype_object *)d)->dtype);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

/* ---- method table ----------------------------------------------------------------------- */

#define KW_FUNC(f) ((PyCFunction)(void (*)(void))(f))

PyMethodDef ctp_promotion_methods[] = {
    {"promote_types", KW_FUNC(py_promote_types), METH_VARARGS | METH_KEYWORDS,
     "promote_types(type1, type2) -> dtype\n\n"
     "The smallest dtype of the highest kind that both type1 and type2 promote to."},
    {"can_cast", KW_FUNC(py_can_cast), METH_VARARGS | METH_KEYWORDS,
     "can_cast(from_, to) -> bool\n\n"
     "Whether PyTorch's casting rules let a result of dtype from_ be written to dtype to."},
    {"result_type", KW_FUNC(py_result_type), METH_VARARGS | METH_KEYWORDS,
     "result_type(tensor, other) -> dtype\n\n"
     "The dtype an arithmetic operation on the two operands would produce. Operands may be\n"
     "Python numbers (bool, int, float, complex)."},
    {"_result_type_of", py_result_type_of, METH_VARARGS,
     "_result_type_of(*operands) -> dtype\n\n"
     "result_type over operands given as (dtype, kind) pairs, kind being 'tensor',\n"
     "'zero_dim' or 'scalar'. For testing."},
    {"get_default_dtype", py_get_default_dtype, METH_NOARGS,
     "get_default_dtype() -> dtype\n\nThe current default floating point dtype."},
    {"set_default_dtype", KW_FUNC(py_set_default_dtype), METH_VARARGS | METH_KEYWORDS,
     "set_default_dtype(d, /) -> None\n\n"
     "Set the default floating point dtype (float16, bfloat16, float32 or float64)."},
    {NULL, NULL, 0, NULL},
};
