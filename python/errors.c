/* ct_status -> Python exception. The C library already words its messages as PyTorch does,
 * so only the exception class is chosen here. */
#include <string.h>

#include "ctensor_py.h"

PyObject *ctp_raise_status(ct_status status) {
    PyObject *exc;
    switch (status) {
    case CT_ERR_VALUE:
        exc = PyExc_ValueError;
        break;
    case CT_ERR_TYPE:
        exc = PyExc_TypeError;
        break;
    case CT_ERR_INDEX:
        exc = PyExc_IndexError;
        break;
    case CT_ERR_NOT_IMPLEMENTED:
        exc = PyExc_NotImplementedError;
        break;
    case CT_ERR_NOMEM:
        exc = PyExc_MemoryError;
        break;
    case CT_ERR_RUNTIME:
    case CT_ERR_MISUSE:   /* a wrong call of the C API: PyTorch's internal asserts */
    case CT_ERR_OVERFLOW: /* PyTorch reports overflow (e.g. "Overflow when unpacking long")
                             as RuntimeError, not OverflowError */
    default:              /* statuses added later are errors too: never return without one */
        exc = PyExc_RuntimeError;
        break;
    }
    return ctp_raise_status_as(exc, status);
}

PyObject *ctp_raise_status_as(PyObject *exc, ct_status status) {
    const char *msg = ct_last_error();
    if (status == CT_OK || msg == NULL || msg[0] == '\0') {
        /* A C function failed without a message (or the caller passed CT_OK): still raise,
         * so that the interpreter never sees NULL without an exception. */
        PyErr_Format(exc, "ctensor error %s", ct_status_name(status));
        return NULL;
    }
    /* The C message may end inside a UTF-8 sequence (it is cut at 1023 bytes) or carry bytes
     * of a bytes argument: decode leniently rather than lose the error. */
    PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "backslashreplace");
    if (text == NULL)
        return NULL;
    PyErr_SetObject(exc, text);
    Py_DECREF(text);
    return NULL;
}
