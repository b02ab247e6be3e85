/* The ctensor CPython module: declarations shared by its files.
 *
 * The module is a thin layer over the public C API (include/ctensor/). Every dtype fact comes
 * from there; this layer only converts arguments, maps errors onto exceptions and wraps
 * results in Python objects. Internal names carry the prefix `ctp_` and stay hidden (the
 * module exports nothing but PyInit_ctensor).
 */
#ifndef CTENSOR_PY_H
#define CTENSOR_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ctensor/ctensor.h"

/* ---- errors (errors.c) ------------------------------------------------------------------ */

/** Raise the Python exception for `status` (which must not be CT_OK) with ct_last_error()
 *  as message, and return NULL. Kinds map as PyTorch's exceptions do: RUNTIME, MISUSE and
 *  OVERFLOW -> RuntimeError, VALUE -> ValueError, TYPE -> TypeError, INDEX -> IndexError,
 *  NOT_IMPLEMENTED -> NotImplementedError, NOMEM -> MemoryError. */
PyObject *ctp_raise_status(ct_status status);

/* ---- dtype objects (dtype_object.c) ------------------------------------------------------ */

typedef struct {
    PyObject ob_base; /* PyObject_HEAD, spelled out for clang-format */
    ct_dtype dtype;
} ctp_dtype_object;

extern PyTypeObject ctp_dtype_type;

/** Create the CT_NUM_DTYPES singletons and bind every primary name and alias as an attribute
 *  of `module`. 0 on success, -1 with an exception set. */
int ctp_dtype_init(PyObject *module);

/** The singleton for a valid dtype (borrowed reference), NULL for an invalid one. */
PyObject *ctp_dtype_borrow(ct_dtype dtype);

/** A new reference to the singleton of `dtype`; RuntimeError for an invalid dtype. */
PyObject *ctp_dtype_new_ref(ct_dtype dtype);

static inline int ctp_dtype_check(PyObject *obj) { return Py_TYPE(obj) == &ctp_dtype_type; }

/* ---- finfo / iinfo (typeinfo.c) ---------------------------------------------------------- */

extern PyTypeObject ctp_finfo_type;
extern PyTypeObject ctp_iinfo_type;

/* ---- argument parsing in PyTorch's words (argparse.c) ------------------------------------ */

/* Kinds of parameter the parser knows. Error messages print them as PyTorch does:
 * "ctensor.dtype", "Number", "Tensor". */
typedef enum ctp_param_kind {
    CTP_PARAM_DTYPE,  /**< a ctensor.dtype, or the Python type float/int/bool/complex */
    CTP_PARAM_NUMBER, /**< a Python bool, int, float or complex ("Number") */
    CTP_PARAM_TENSOR, /**< a tensor (nothing matches yet: ctensor has no Tensor type) */
} ctp_param_kind;

#define CTP_MAX_PARAMS 4

typedef struct ctp_param {
    ctp_param_kind kind;
    const char *name;
} ctp_param;

/** One signature; all its parameters are required and positional-or-keyword. */
typedef struct ctp_signature {
    int nparams;
    ctp_param params[CTP_MAX_PARAMS];
} ctp_signature;

/** Parse (args, kwargs) against `sigs` in order, as PyTorch's PythonArgParser does, and
 *  return the index of the first signature that matches, with its arguments (borrowed, in
 *  parameter order) in `out`. On failure returns -1 with the TypeError PyTorch would raise
 *  for `fname` (the function name without "()"). */
int ctp_parse_args(const char *fname, const ctp_signature *sigs, int nsigs, PyObject *args,
                   PyObject *kwargs, PyObject *out[CTP_MAX_PARAMS]);

/** Convert an argument accepted as CTP_PARAM_DTYPE to its dtype (float -> float64, int ->
 *  int64, bool -> bool, complex -> complex128, as PyTorch maps the Python types). */
ct_dtype ctp_dtype_of_arg(PyObject *obj);

/** Raise the TypeError a Python function `def fname(<posonly>, /)` raises when called with
 *  these arguments, or return 0 when exactly `npos` positional and no keyword arguments were
 *  given. Used to mirror PyTorch functions that are written in Python. */
int ctp_check_posonly_call(const char *fname, const char *const *names, Py_ssize_t npos,
                           PyObject *args, PyObject *kwargs);

/* ---- result-type operands (operand.c) ---------------------------------------------------- */

/** Whether `obj` is a Python number as PyTorch's "Number" parameters accept it. */
int ctp_is_number(PyObject *obj);

/** Whether `obj` is a tensor. Always 0 until ctensor has a Tensor type. */
int ctp_is_tensor(PyObject *obj);

/** Describe `obj` (a Number, or later a Tensor) as a result-type operand: a Python scalar
 *  becomes a wrapped number of its own dtype (bool, int64, float64, complex128). Returns 0, or
 *  -1 with an exception set (RuntimeError "Overflow when unpacking long" for an int outside
 *  int64; TypeError for anything that is not an operand). */
int ctp_operand_from_object(PyObject *obj, ct_operand *out);

/* ---- module-level functions (promotion.c) ------------------------------------------------ */

extern PyMethodDef ctp_promotion_methods[];

#endif /* CTENSOR_PY_H */
