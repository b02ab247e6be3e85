/* Python objects as result-type operands.
 *
 * PyTorch turns a Python number passed where a tensor may go into a 0-dim "wrapped number"
 * tensor of dtype bool, int64, float64 or complex128 (spec §3.1); result-type computation
 * then treats it as the lowest-priority operand. ctensor has no Tensor type yet: when it
 * gets one, ctp_is_tensor and the tensor branch of ctp_operand_from_object are the only
 * places to extend (a dimensioned tensor -> CT_OPERAND_DIMENSIONED, a 0-dim one ->
 * CT_OPERAND_ZERO_DIM, a wrapped number -> CT_OPERAND_SCALAR).
 */
#include "ctensor_py.h"

/* PyTorch's THPUtils_checkScalar without NumPy: bool, int, float, complex and subclasses.
 * NumPy scalars are not recognised unless they subclass these (np.float64 does). */
int ctp_is_number(PyObject *obj) {
    return PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj);
}

int ctp_is_tensor(PyObject *obj) {
    (void)obj;
    return 0;
}

int ctp_operand_from_object(PyObject *obj, ct_operand *out) {
    out->category = CT_OPERAND_SCALAR;
    if (PyBool_Check(obj)) { /* before the int test: bool subclasses int */
        out->dtype = CT_BOOL;
        return 0;
    }
    if (PyLong_Check(obj)) {
        /* PyTorch unpacks the value into an int64 Scalar even though only its dtype counts,
         * so ints outside int64 fail. */
        int overflow = 0;
        (void)PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (PyErr_Occurred())
            return -1;
        if (overflow != 0) {
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return -1;
        }
        out->dtype = CT_INT64;
        return 0;
    }
    if (PyFloat_Check(obj)) {
        out->dtype = CT_FLOAT64;
        return 0;
    }
    if (PyComplex_Check(obj)) {
        out->dtype = CT_COMPLEX128;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected a Number or a Tensor, not %s", Py_TYPE(obj)->tp_name);
    return -1;
}
