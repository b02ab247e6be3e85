/* Python objects as result-type operands.
 *
 * PyTorch turns a Python number passed where a tensor may go into a 0-dim "wrapped number"
 * tensor of dtype bool, int64, float64 or complex128; result-type computation
 * then treats it as the lowest-priority operand. Tensors count by their own category: a
 * dimensioned tensor, a 0-dim tensor, or a wrapped number (ct_result_type_update_tensor).
 */
#include "ctensor_py.h"

/* PyTorch's THPUtils_checkScalar without NumPy: bool, int, float, complex and subclasses.
 * NumPy scalars are not recognised here unless they subclass these (np.float64 does); the
 * argument parser's Number parameters add them. */
int ctp_is_number(PyObject *obj) {
    return PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj);
}

int ctp_is_tensor(PyObject *obj) { return ctp_tensor_check(obj); }

int ctp_operand_from_object(PyObject *obj, ct_operand *out) {
    ct_tensor *t = ctp_tensor_get(obj);
    if (t != NULL) {
        int64_t ndim = ct_tensor_dim(t);
        out->dtype = ct_tensor_dtype(t);
        out->category = ndim > 0                          ? CT_OPERAND_DIMENSIONED
                        : ct_tensor_is_wrapped_number(t) ? CT_OPERAND_SCALAR
                                                         : CT_OPERAND_ZERO_DIM;
        return 0;
    }
    out->category = CT_OPERAND_SCALAR;
    if (PyBool_Check(obj) || ctp_is_numpy_bool(obj)) { /* before ints: bool subclasses int */
        out->dtype = CT_BOOL;
        return 0;
    }
    if (PyLong_Check(obj) || ctp_is_int_arg(obj)) {
        /* PyTorch unpacks the value into an int64 Scalar even though only its dtype counts,
         * so ints outside int64 fail. */
        int64_t v;
        if (ctp_int64_of_arg(obj, &v) < 0)
            return -1;
        out->dtype = CT_INT64;
        return 0;
    }
    /* A NumPy scalar is a Python scalar here: its value becomes a double or complex. */
    if (PyFloat_Check(obj) || ctp_type_has_base(obj, "numpy.floating")) {
        out->dtype = CT_FLOAT64;
        return 0;
    }
    if (PyComplex_Check(obj) || ctp_type_has_base(obj, "numpy.complexfloating")) {
        out->dtype = CT_COMPLEX128;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected a Number or a Tensor, not %s", Py_TYPE(obj)->tp_name);
    return -1;
}
