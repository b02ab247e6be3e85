/* The binary element-wise ops after add..div (ops.def's POW..LOGICAL_XOR rows, and
 * floor_divide over div's floor row): PyTorch 1.13's functions with their signatures, the
 * Tensor methods and in-place `_` forms, and the operators ** % & | ^ << >> with their
 * reflected and in-place forms. Parsing, operands, out= and the operator rules are
 * tensor_arith.c's (ctp_arith_call_op, ctp_arith_operator); this file only says which row
 * each name computes and with which signatures. Semantics (dtypes, errors, pow with a number
 * exponent as pow.Tensor_Scalar) are the C layer's (src/ops/binary.c). */
#include "ctensor_py.h"

#define TEN CTP_PARAM_TENSOR
#define NUM CTP_PARAM_NUMBER
#define KW METH_VARARGS | METH_KEYWORDS
#define NSIGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- signatures (PyTorch 1.13's, in its order) --------------------------------------------- */

/* pow: tensor ** tensor, number ** tensor, tensor ** number */
static const ctp_signature fn_pow_sigs[] = {
    {3, {{TEN, "input"}, {TEN, "exponent"}, {TEN, "*out=None"}}},
    {3, {{NUM, "self"}, {TEN, "exponent"}, {TEN, "*out=None"}}},
    {3, {{TEN, "input"}, {NUM, "exponent"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_pow_sigs[] = {
    {1, {{TEN, "exponent"}}},
    {1, {{NUM, "exponent"}}},
};
/* remainder and the bitwise ops: also a number first (without out=) */
static const ctp_signature fn_scalar_self_sigs[] = {
    {3, {{TEN, "input"}, {TEN, "other"}, {TEN, "*out=None"}}},
    {2, {{NUM, "self"}, {TEN, "other"}}},
    {3, {{TEN, "input"}, {NUM, "other"}, {TEN, "*out=None"}}},
};
/* fmod */
static const ctp_signature fn_tensor_or_scalar_sigs[] = {
    {3, {{TEN, "input"}, {TEN, "other"}, {TEN, "*out=None"}}},
    {3, {{TEN, "input"}, {NUM, "other"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_tensor_or_scalar_sigs[] = {
    {1, {{TEN, "other"}}},
    {1, {{NUM, "other"}}},
};
/* atan2 hypot logical_*: tensors only */
static const ctp_signature fn_tensor_sigs[] = {
    {3, {{TEN, "input"}, {TEN, "other"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_tensor_sigs[] = {
    {1, {{TEN, "other"}}},
};
/* floor_divide: numbers as tensors (PyTorch 1.13 allows them); a number other has no out= */
static const ctp_signature fn_floor_divide_sigs[] = {
    {3, {{CTP_PARAM_TENSOR_OR_NUMBER, "input"}, {CTP_PARAM_TENSOR_OR_NUMBER, "other"},
         {TEN, "*out=None"}}},
    {2, {{CTP_PARAM_TENSOR_OR_NUMBER, "input"}, {NUM, "other"}}},
};

/* ---- functions and methods ------------------------------------------------------------------
 * X(python name, row, function signatures, method signatures) */
#define BINARY_NAMES(X)                                                                            \
    X(pow, POW, fn_pow_sigs, m_pow_sigs)                                                           \
    X(remainder, REMAINDER, fn_scalar_self_sigs, m_tensor_or_scalar_sigs)                          \
    X(fmod, FMOD, fn_tensor_or_scalar_sigs, m_tensor_or_scalar_sigs)                               \
    X(atan2, ATAN2, fn_tensor_sigs, m_tensor_sigs)                                                 \
    X(arctan2, ATAN2, fn_tensor_sigs, m_tensor_sigs)                                               \
    X(hypot, HYPOT, fn_tensor_sigs, m_tensor_sigs)                                                 \
    X(bitwise_and, BITWISE_AND, fn_scalar_self_sigs, m_tensor_or_scalar_sigs)                      \
    X(bitwise_or, BITWISE_OR, fn_scalar_self_sigs, m_tensor_or_scalar_sigs)                        \
    X(bitwise_xor, BITWISE_XOR, fn_scalar_self_sigs, m_tensor_or_scalar_sigs)                      \
    X(bitwise_left_shift, BITWISE_LEFT_SHIFT, fn_scalar_self_sigs, m_tensor_or_scalar_sigs)        \
    X(bitwise_right_shift, BITWISE_RIGHT_SHIFT, fn_scalar_self_sigs, m_tensor_or_scalar_sigs)      \
    X(logical_and, LOGICAL_AND, fn_tensor_sigs, m_tensor_sigs)                                     \
    X(logical_or, LOGICAL_OR, fn_tensor_sigs, m_tensor_sigs)                                       \
    X(logical_xor, LOGICAL_XOR, fn_tensor_sigs, m_tensor_sigs)                                     \
    X(floor_divide, DIV_FLOOR, fn_floor_divide_sigs, m_tensor_or_scalar_sigs)

#define BINARY_FUNCTIONS(name, E, fsigs, msigs)                                                    \
    static PyObject *fn_##name(PyObject *module, PyObject *args, PyObject *kwargs) {               \
        (void)module;                                                                              \
        return ctp_arith_call_op(CT_OP_##E, #name, fsigs, NSIGS(fsigs), 0, 0, NULL, args, kwargs); \
    }                                                                                              \
    static PyObject *m_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                  \
        return ctp_arith_call_op(CT_OP_##E, #name, msigs, NSIGS(msigs), 1, 0, self, args, kwargs); \
    }                                                                                              \
    static PyObject *mi_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                 \
        return ctp_arith_call_op(CT_OP_##E, #name "_", msigs, NSIGS(msigs), 1, 1, self, args,      \
                                 kwargs);                                                          \
    }
BINARY_NAMES(BINARY_FUNCTIONS)

#define FN_DEF(name, E, fsigs, msigs)                                                              \
    {#name, CTP_KW_FUNC(fn_##name), KW,                                                            \
     #name "(input, other, *, out=None) -> Tensor\n\nctensor/ops.def's " #E " row."},
#define METHOD_DEFS(name, E, fsigs, msigs)                                                         \
    {#name, CTP_KW_FUNC(m_##name), KW, #name "(other) -> Tensor"},                                 \
    {#name "_", CTP_KW_FUNC(mi_##name), KW, #name "_(other) -> Tensor"},

static PyMethodDef binary_functions[] = {
    BINARY_NAMES(FN_DEF)
    /* true_divide is tensor_arith.c's (div's row) */
    {NULL, NULL, 0, NULL},
};
static PyMethodDef binary_methods[] = {BINARY_NAMES(METHOD_DEFS){NULL, NULL, 0, NULL}};

/* ---- operators --------------------------------------------------------------------------- */

/* x ** y: the three-argument form pow(x, y, m) is not PyTorch's */
static PyObject *nb_power(PyObject *a, PyObject *b, PyObject *m) {
    if (m != Py_None)
        Py_RETURN_NOTIMPLEMENTED;
    return ctp_arith_operator(CT_OP_POW, a, b);
}
static PyObject *nb_inplace_power(PyObject *a, PyObject *b, PyObject *m) {
    if (m != Py_None)
        Py_RETURN_NOTIMPLEMENTED;
    return ctp_arith_inplace_operator(CT_OP_POW, a, b);
}
#define OPERATOR(slot, E)                                                                          \
    static PyObject *nb_##slot(PyObject *a, PyObject *b) {                                         \
        return ctp_arith_operator(CT_OP_##E, a, b);                                                \
    }                                                                                              \
    static PyObject *nb_inplace_##slot(PyObject *a, PyObject *b) {                                 \
        return ctp_arith_inplace_operator(CT_OP_##E, a, b);                                        \
    }
OPERATOR(remainder, REMAINDER)
OPERATOR(and, BITWISE_AND)
OPERATOR(or, BITWISE_OR)
OPERATOR(xor, BITWISE_XOR)
OPERATOR(lshift, BITWISE_LEFT_SHIFT)
OPERATOR(rshift, BITWISE_RIGHT_SHIFT)
#undef OPERATOR

void ctp_binary_number_slots(PyNumberMethods *nb) {
    nb->nb_power = nb_power;
    nb->nb_inplace_power = nb_inplace_power;
    nb->nb_remainder = nb_remainder;
    nb->nb_inplace_remainder = nb_inplace_remainder;
    nb->nb_and = nb_and;
    nb->nb_inplace_and = nb_inplace_and;
    nb->nb_or = nb_or;
    nb->nb_inplace_or = nb_inplace_or;
    nb->nb_xor = nb_xor;
    nb->nb_inplace_xor = nb_inplace_xor;
    nb->nb_lshift = nb_lshift;
    nb->nb_inplace_lshift = nb_inplace_lshift;
    nb->nb_rshift = nb_rshift;
    nb->nb_inplace_rshift = nb_inplace_rshift;
}

int ctp_binary_init(PyObject *module) {
    if (PyModule_AddFunctions(module, binary_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(binary_methods);
}
