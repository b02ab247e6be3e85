/* Element-wise arithmetic of global tensors (global.h): the operators + - * / // ** % & | ^
 * << >> with a GlobalTensor on either side, GlobalTensor.add / sub / mul / div, the
 * comparisons (== != < <= > >= and GlobalTensor.eq ... ge with torch's aliases, global bool
 * tensors), maximum / minimum / fmax / fmin, bool(x), and the global path of
 * ctensor.add / sub / subtract / mul / multiply / div / divide / true_divide and of the local
 * Tensor methods (tensor_arith.c sends a call here when some argument is a GlobalTensor).
 *
 * Operands: GlobalTensors and Python / NumPy numbers (ct_global_binary_scalar / _rscalar,
 * the number being a wrapped number); each call ends in one C entry point (compute). A local tensor next to a global one is an error, whichever side
 * it is on, as in OneFlow. There are no in-place or out= forms for global tensors.
 */
#include <string.h>

#include "ctensor_dist_py.h"

/* Python's operator of each op row (ops.def), for messages and reflected method names. */
#define CT_OP(E, name, kind, kernel, alpha, negate, to_float, rounding, swap, symbol, dunder,      \
              pyfunc, partial)                                                                            \
    [CT_OP_##E] = {symbol, dunder},
static const struct {
    const char *symbol, *dunder;
} operators[] = {
#include "ctensor/ops.def"
};
#undef CT_OP
_Static_assert(sizeof operators / sizeof operators[0] == CT_NUM_OPS, "one entry per op row");

enum { K_OTHER = 0, K_GLOBAL = 1, K_NUMBER = 2, K_LOCAL = 3 };

typedef struct {
    const ct_global *g;
    ct_scalar s;
} operand;

static PyObject *mixed_error(void) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Expected all tensors to be global, but found a local tensor");
    return NULL;
}

/* What `obj` is as an operand (K_*), or -1 with an exception. */
static int classify(PyObject *obj, operand *o) {
    if (ctp_global_check(obj)) {
        o->g = ctp_global_get(obj);
        return K_GLOBAL;
    }
    if (ctp_tensor_check(obj))
        return K_LOCAL;
    if (!ctp_is_number_arg(obj))
        return K_OTHER;
    return ctp_int64_scalar_of_arg(obj, &o->s) < 0 ? -1 : K_NUMBER;
}

/* a op b with at least one global operand (ka, kb: K_GLOBAL or K_NUMBER); `op` is the row,
 * div's rounding mode included. One C entry point per operand shape (global.h). */
static PyObject *compute(ct_op op, const operand *a, int ka, const operand *b, int kb,
                         ct_scalar alpha) {
    ct_global *r = NULL;
    ct_status st;
    if (ka == K_GLOBAL && kb == K_GLOBAL)
        st = ct_global_binary(op, a->g, b->g, alpha, &r);
    else if (ka == K_GLOBAL)
        st = ct_global_binary_scalar(op, a->g, b->s, alpha, &r);
    else
        st = ct_global_binary_rscalar(op, a->s, b->g, alpha, &r);
    return ctp_global_result(NULL, st, r);
}

/* ---- operators ---------------------------------------------------------------------------- */

/* Whether `other` (the right operand) may take over through its reflected operator d if
 * GlobalTensor returned NotImplemented: only a class written in Python that defines it. A
 * built-in or extension type (str * x, [1] * x, a NumPy array) knows nothing of global
 * tensors: it would raise on this rank alone, or read the value with a collective the other
 * ranks never enter, so such operands fail here, through the agreement. */
static int defines_reflected(ct_op d, PyObject *other) {
    if (Py_IS_TYPE(other, &ctp_global_type) ||
        !PyType_HasFeature(Py_TYPE(other), Py_TPFLAGS_HEAPTYPE))
        return 0;
    char name[32];
    snprintf(name, sizeof name, "__r%s__", operators[d].dunder);
    return PyObject_HasAttrString((PyObject *)Py_TYPE(other), name);
}

/* An operator: `d` is the op row whose symbol it is. */
static PyObject *binary(ct_op d, PyObject *a, PyObject *b) {
    operand x = {0}, y = {0};
    int kx = classify(a, &x);
    if (kx < 0)
        return NULL;
    int ky = classify(b, &y);
    if (ky < 0)
        return NULL;
    if (kx != K_GLOBAL && ky != K_GLOBAL)
        Py_RETURN_NOTIMPLEMENTED;
    /* a NumPy array next to a global tensor: OneFlow takes it as a broadcast global tensor of
     * the tensor's dtype on its placement (the array of the placement's first rank) */
    PyObject *converted = NULL;
    if (kx == K_OTHER && ctp_type_has_base(a, "numpy.ndarray"))
        converted = a = ctp_global_from_array(a, b);
    else if (ky == K_OTHER && ctp_type_has_base(b, "numpy.ndarray"))
        converted = b = ctp_global_from_array(b, a);
    if (converted != NULL) {
        PyObject *r = binary(d, a, b);
        Py_DECREF(converted);
        return r;
    }
    if (PyErr_Occurred())
        return NULL;
    if (kx == K_OTHER || ky == K_OTHER) {
        /* NotImplemented only where Python has another method to try; otherwise Python
         * would raise its TypeError on this rank alone, outside the agreement, and the
         * other ranks would wait for it. Raised here with Python's wording instead. */
        if (kx == K_GLOBAL && defines_reflected(d, b))
            Py_RETURN_NOTIMPLEMENTED;
        return PyErr_Format(PyExc_TypeError, "unsupported operand type(s) for %s: '%.100s' and "
                            "'%.100s'", operators[d].symbol, Py_TYPE(a)->tp_name, Py_TYPE(b)->tp_name);
    }
    if (kx == K_LOCAL || ky == K_LOCAL)
        return mixed_error();
    return compute(d, &x, kx, &y, ky, ct_scalar_int(1));
}

PyObject *ctp_global_binary(ct_op d, PyObject *a, PyObject *b) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = binary(d, a, b);
    return r != NULL ? r : ctp_dist_failed(ct_op_name(d), mark);
}

static PyObject *inplace_error(const char *what) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s: in-place operations are not supported on global tensors; use the "
                 "out-of-place form (x = x + y)",
                 what);
    return NULL;
}

/* The operator x op= y of row d: the error, shared with the other ranks. x += y would
 * otherwise quietly rebind x to x + y; global tensors have no in-place form. */
static PyObject *inplace_operator(ct_op d) {
    char what[8];
    snprintf(what, sizeof what, "%s=", operators[d].symbol);
    uint64_t mark = ctp_dist_mark();
    inplace_error(what);
    return ctp_dist_failed(ct_op_name(d), mark);
}

/* The number slots of row `row`: x op y and x op= y. */
#define OPERATOR(name, row)                                                                        \
    static PyObject *nb_##name(PyObject *a, PyObject *b) { return ctp_global_binary(row, a, b); }  \
    static PyObject *nb_i##name(PyObject *a, PyObject *b) {                                        \
        (void)a;                                                                                   \
        (void)b;                                                                                   \
        return inplace_operator(row);                                                              \
    }
OPERATOR(add, CT_OP_ADD)
OPERATOR(sub, CT_OP_SUB)
OPERATOR(mul, CT_OP_MUL)
OPERATOR(div, CT_OP_DIV)
OPERATOR(floordiv, CT_OP_DIV_FLOOR)
OPERATOR(mod, CT_OP_REMAINDER)
OPERATOR(and, CT_OP_BITWISE_AND)
OPERATOR(or, CT_OP_BITWISE_OR)
OPERATOR(xor, CT_OP_BITWISE_XOR)
OPERATOR(lshift, CT_OP_BITWISE_LEFT_SHIFT)
OPERATOR(rshift, CT_OP_BITWISE_RIGHT_SHIFT)
#undef OPERATOR

/* x ** y (no three-argument form) */
static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *m) {
    if (m != Py_None)
        Py_RETURN_NOTIMPLEMENTED;
    return ctp_global_binary(CT_OP_POW, a, b);
}
static PyObject *nb_ipow(PyObject *a, PyObject *b, PyObject *m) {
    (void)a;
    (void)b;
    (void)m;
    return inplace_operator(CT_OP_POW);
}

PyNumberMethods ctp_global_as_number = {
    .nb_bool = ctp_global_bool,
    .nb_add = nb_add,
    .nb_subtract = nb_sub,
    .nb_multiply = nb_mul,
    .nb_true_divide = nb_div,
    .nb_floor_divide = nb_floordiv,
    .nb_inplace_add = nb_iadd,
    .nb_inplace_subtract = nb_isub,
    .nb_inplace_multiply = nb_imul,
    .nb_inplace_true_divide = nb_idiv,
    .nb_inplace_floor_divide = nb_ifloordiv,
    .nb_remainder = nb_mod,
    .nb_inplace_remainder = nb_imod,
    .nb_power = nb_pow,
    .nb_inplace_power = nb_ipow,
    .nb_and = nb_and,
    .nb_inplace_and = nb_iand,
    .nb_or = nb_or,
    .nb_inplace_or = nb_ior,
    .nb_xor = nb_xor,
    .nb_inplace_xor = nb_ixor,
    .nb_lshift = nb_lshift,
    .nb_inplace_lshift = nb_ilshift,
    .nb_rshift = nb_rshift,
    .nb_inplace_rshift = nb_irshift,
};

/* ---- functions and methods ------------------------------------------------------------------ */

int ctp_dist_any_global(PyObject *self, PyObject *args, PyObject *kwargs) {
    if (self != NULL && ctp_global_check(self))
        return 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
        if (ctp_global_check(PyTuple_GET_ITEM(args, i)))
            return 1;
    if (kwargs != NULL) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &pos, &key, &value))
            if (ctp_global_check(value))
                return 1;
    }
    return 0;
}

/* rounding_mode: None, 'trunc' or 'floor'; PyTorch's RuntimeError otherwise. */
static int rounding_mode_of(PyObject *obj, ct_rounding_mode *mode) {
    *mode = CT_ROUNDING_NONE;
    if (obj == NULL || obj == Py_None)
        return 0;
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (s == NULL && PyErr_Occurred())
        return -1;
    if (s != NULL && strcmp(s, "trunc") == 0) {
        *mode = CT_ROUNDING_TRUNC;
        return 0;
    }
    if (s != NULL && strcmp(s, "floor") == 0) {
        *mode = CT_ROUNDING_FLOOR;
        return 0;
    }
    if (s == NULL) {
        PyErr_Format(PyExc_TypeError, "rounding_mode must be None or str, not %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                 "'%s'",
                 s);
    return -1;
}

/* The arguments of one call: operands, and the keywords the op takes. */
typedef struct {
    PyObject *input, *other, *alpha, *rounding_mode, *out;
} call_args;

static int bind(const char *name, ct_op op, int method, PyObject *self, PyObject *args,
                PyObject *kwargs, call_args *c) {
    memset(c, 0, sizeof *c);
    const int takes_alpha = ct_op_has_alpha(op);
    const int takes_mode = op == CT_OP_DIV && strncmp(name, "true_divide", 11) != 0;
    Py_ssize_t npos = PyTuple_GET_SIZE(args), nmax = method ? 1 : 2;
    if (npos > nmax) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given",
                     name, nmax, npos);
        return -1;
    }
    PyObject **slots[2] = {&c->input, &c->other};
    if (method)
        c->input = self;
    for (Py_ssize_t i = 0; i < npos; i++)
        *slots[i + method] = PyTuple_GET_ITEM(args, i);
    if (kwargs != NULL) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
            PyObject **slot = NULL;
            if (k == NULL && PyErr_Occurred())
                return -1;
            if (k == NULL)
                slot = NULL;
            else if (strcmp(k, "other") == 0)
                slot = &c->other;
            else if (!method && strcmp(k, "input") == 0)
                slot = &c->input;
            else if (takes_alpha && strcmp(k, "alpha") == 0)
                slot = &c->alpha;
            else if (takes_mode && strcmp(k, "rounding_mode") == 0)
                slot = &c->rounding_mode;
            else if (!method && strcmp(k, "out") == 0)
                slot = &c->out;
            if (slot == NULL) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", name,
                             key);
                return -1;
            }
            if (*slot != NULL) {
                PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                             k);
                return -1;
            }
            *slot = value;
        }
    }
    if (c->input == NULL || c->other == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", name,
                     c->input == NULL ? "input" : "other");
        return -1;
    }
    return 0;
}

static PyObject *arith_call(ct_op op, const char *name, int method, int inplace, PyObject *self,
                            PyObject *args, PyObject *kwargs) {
    call_args c;
    if (bind(name, op, method, self, args, kwargs, &c) < 0)
        return NULL;
    operand a = {0}, b = {0};
    int ka = classify(c.input, &a);
    if (ka < 0)
        return NULL;
    int kb = classify(c.other, &b);
    if (kb < 0)
        return NULL;
    if (ka == K_LOCAL || kb == K_LOCAL || (c.out != NULL && ctp_tensor_check(c.out)))
        return mixed_error();
    if (ka == K_OTHER || kb == K_OTHER) {
        PyObject *bad = ka == K_OTHER ? c.input : c.other;
        return PyErr_Format(PyExc_TypeError,
                            "%s(): argument '%s' must be ctensor.GlobalTensor or Number, not %s",
                            name, ka == K_OTHER ? "input" : "other", Py_TYPE(bad)->tp_name);
    }
    if (inplace) {
        char what[64];
        snprintf(what, sizeof what, "%s()", name);
        return inplace_error(what);
    }
    if (c.out != NULL && c.out != Py_None)
        return PyErr_Format(PyExc_RuntimeError,
                            "%s(): out= is not supported for global tensors; use the returned "
                            "tensor",
                            name);
    if ((op == CT_OP_MAXIMUM || op == CT_OP_MINIMUM || op == CT_OP_FMAX || op == CT_OP_FMIN) &&
        (ka == K_NUMBER || kb == K_NUMBER)) /* Tensor operands only, as in torch */
        return PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", name,
                            ka == K_NUMBER ? "input" : "other",
                            Py_TYPE(ka == K_NUMBER ? c.input : c.other)->tp_name);
    if (ka != K_GLOBAL && kb != K_GLOBAL) /* the global tensor came as another argument */
        return PyErr_Format(PyExc_TypeError,
                            "%s(): a ctensor.GlobalTensor can only be given as an operand", name);
    ct_scalar alpha = ct_scalar_int(1);
    if (c.alpha != NULL) {
        if (!ctp_is_number_arg(c.alpha) || ctp_tensor_check(c.alpha))
            return PyErr_Format(PyExc_TypeError, "%s(): argument 'alpha' must be Number, not %s",
                                name, Py_TYPE(c.alpha)->tp_name);
        if (ctp_int64_scalar_of_arg(c.alpha, &alpha) < 0)
            return NULL;
    }
    ct_rounding_mode mode;
    if (rounding_mode_of(c.rounding_mode, &mode) < 0)
        return NULL;
    if (op == CT_OP_DIV) { /* the row of the rounding mode */
        ct_status st = ct_op_div(mode, &op);
        if (st != CT_OK)
            return ctp_raise_status(st);
    }
    return compute(op, &a, ka, &b, kb, alpha);
}

PyObject *ctp_global_arith_call(ct_op op, const char *name, int method, int inplace, PyObject *self,
                                PyObject *args, PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = arith_call(op, name, method, inplace, self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed(ct_op_name(op), mark);
}

/* ---- GlobalTensor methods ---------------------------------------------------------------------- */

#define GLOBAL_METHOD(cname, op, name, inplace)                                                    \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        return ctp_global_arith_call(op, name, 1, inplace, self, args, kwargs);                    \
    }

GLOBAL_METHOD(g_add, CT_OP_ADD, "add", 0)
GLOBAL_METHOD(g_sub, CT_OP_SUB, "sub", 0)
GLOBAL_METHOD(g_mul, CT_OP_MUL, "mul", 0)
GLOBAL_METHOD(g_div, CT_OP_DIV, "div", 0)
GLOBAL_METHOD(g_add_, CT_OP_ADD, "add_", 1)
GLOBAL_METHOD(g_sub_, CT_OP_SUB, "sub_", 1)
GLOBAL_METHOD(g_mul_, CT_OP_MUL, "mul_", 1)
GLOBAL_METHOD(g_div_, CT_OP_DIV, "div_", 1)

/* comparisons with torch's aliases (and their in-place names: errors), maximum ... fmin */
#define COMPARE_METHODS(alias, E)                                                                  \
    GLOBAL_METHOD(g_##alias, CT_OP_##E, #alias, 0)                                                 \
    GLOBAL_METHOD(g_##alias##_, CT_OP_##E, #alias "_", 1)
COMPARE_METHODS(eq, EQ)
COMPARE_METHODS(ne, NE)
COMPARE_METHODS(lt, LT)
COMPARE_METHODS(le, LE)
COMPARE_METHODS(gt, GT)
COMPARE_METHODS(ge, GE)
COMPARE_METHODS(not_equal, NE)
COMPARE_METHODS(less, LT)
COMPARE_METHODS(less_equal, LE)
COMPARE_METHODS(greater, GT)
COMPARE_METHODS(greater_equal, GE)
GLOBAL_METHOD(g_maximum, CT_OP_MAXIMUM, "maximum", 0)
GLOBAL_METHOD(g_minimum, CT_OP_MINIMUM, "minimum", 0)
GLOBAL_METHOD(g_fmax, CT_OP_FMAX, "fmax", 0)
GLOBAL_METHOD(g_fmin, CT_OP_FMIN, "fmin", 0)

#define KW METH_VARARGS | METH_KEYWORDS

PyMethodDef ctp_global_arith_methods[] = {
    {"add", CTP_KW_FUNC(g_add), KW,
     "add(other, *, alpha=1) -> GlobalTensor\n\nself + alpha * other. Collective."},
    {"sub", CTP_KW_FUNC(g_sub), KW,
     "sub(other, *, alpha=1) -> GlobalTensor\n\nself - alpha * other. Collective."},
    {"mul", CTP_KW_FUNC(g_mul), KW, "mul(other) -> GlobalTensor\n\nCollective."},
    {"div", CTP_KW_FUNC(g_div), KW,
     "div(other, *, rounding_mode=None) -> GlobalTensor\n\nCollective."},
    {"add_", CTP_KW_FUNC(g_add_), KW, "Not supported: global tensors have no in-place forms."},
    {"sub_", CTP_KW_FUNC(g_sub_), KW, "Not supported: global tensors have no in-place forms."},
    {"mul_", CTP_KW_FUNC(g_mul_), KW, "Not supported: global tensors have no in-place forms."},
    {"div_", CTP_KW_FUNC(g_div_), KW, "Not supported: global tensors have no in-place forms."},
#define COMPARE_DEFS(alias)                                                                        \
    {#alias, CTP_KW_FUNC(g_##alias), KW,                                                           \
     #alias "(other) -> GlobalTensor\n\nElement-wise comparison; a bool tensor. Collective."},   \
    {#alias "_", CTP_KW_FUNC(g_##alias##_), KW,                                                    \
     "Not supported: global tensors have no in-place forms."},
    COMPARE_DEFS(eq) COMPARE_DEFS(ne) COMPARE_DEFS(lt) COMPARE_DEFS(le) COMPARE_DEFS(gt)
    COMPARE_DEFS(ge) COMPARE_DEFS(not_equal) COMPARE_DEFS(less) COMPARE_DEFS(less_equal)
    COMPARE_DEFS(greater) COMPARE_DEFS(greater_equal)
#undef COMPARE_DEFS
    {"maximum", CTP_KW_FUNC(g_maximum), KW, "maximum(other) -> GlobalTensor\n\nCollective."},
    {"minimum", CTP_KW_FUNC(g_minimum), KW, "minimum(other) -> GlobalTensor\n\nCollective."},
    {"fmax", CTP_KW_FUNC(g_fmax), KW, "fmax(other) -> GlobalTensor\n\nCollective."},
    {"fmin", CTP_KW_FUNC(g_fmin), KW, "fmin(other) -> GlobalTensor\n\nCollective."},
    {NULL, NULL, 0, NULL},
};

/* ---- rich comparisons ------------------------------------------------------------------------ */

/* x == y etc.; Python has swapped a reflected comparison (2 < x is x > 2), so `a` is the
 * GlobalTensor. An operand that is neither a tensor nor a number: a class written in Python
 * that defines its own comparison decides (NotImplemented); otherwise == and != answer by
 * identity (False, True) as torch does for `t == None`, after an agreement of their own so
 * that a rank comparing with a tensor elsewhere fails with the others instead of waiting;
 * < <= > >= raise Python's TypeError on every rank. */
static PyObject *richcompare(ct_op d, PyObject *a, PyObject *b) {
    operand x = {0}, y = {0};
    int kx = classify(a, &x);
    if (kx < 0)
        return NULL;
    int ky = classify(b, &y);
    if (ky < 0)
        return NULL;
    if (kx != K_GLOBAL && ky != K_GLOBAL)
        Py_RETURN_NOTIMPLEMENTED;
    if (kx == K_LOCAL || ky == K_LOCAL)
        return mixed_error();
    if (kx == K_OTHER || ky == K_OTHER) {
        PyObject *other = kx == K_OTHER ? a : b;
        if (PyType_HasFeature(Py_TYPE(other), Py_TPFLAGS_HEAPTYPE) &&
            Py_TYPE(other)->tp_richcompare != PyBaseObject_Type.tp_richcompare)
            Py_RETURN_NOTIMPLEMENTED;
        if (d == CT_OP_EQ || d == CT_OP_NE) {
            ct_status st = ct_global_begin(ct_op_name(d), 0);
            ctp_dist_entered();
            if (st != CT_OK)
                return ctp_dist_raise(st);
            return Py_NewRef(d == CT_OP_EQ ? Py_False : Py_True);
        }
        return PyErr_Format(PyExc_TypeError,
                            "'%s' not supported between instances of '%.100s' and '%.100s'",
                            operators[d].symbol, Py_TYPE(a)->tp_name, Py_TYPE(b)->tp_name);
    }
    return compute(d, &x, kx, &y, ky, ct_scalar_int(1));
}

static PyObject *global_richcompare(PyObject *a, PyObject *b, int op) {
    static const ct_op rows[] = {[Py_LT] = CT_OP_LT, [Py_LE] = CT_OP_LE, [Py_EQ] = CT_OP_EQ,
                                 [Py_NE] = CT_OP_NE, [Py_GT] = CT_OP_GT, [Py_GE] = CT_OP_GE};
    if (op < 0 || op > Py_GE)
        Py_RETURN_NOTIMPLEMENTED;
    uint64_t mark = ctp_dist_mark();
    PyObject *r = richcompare(rows[op], a, b);
    return r != NULL ? r : ctp_dist_failed(ct_op_name(rows[op]), mark);
}

/* hash(x) is id(x), as for local tensors: a type with its own rich comparison needs its own
 * hash, or Python makes it unhashable. */
static Py_hash_t global_hash(PyObject *self) { return (Py_hash_t)(intptr_t)self; }

void ctp_global_compare_slots(PyTypeObject *type) {
    type->tp_richcompare = global_richcompare;
    type->tp_hash = global_hash;
}
