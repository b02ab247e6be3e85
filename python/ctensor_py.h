/* The ctensor CPython module: declarations shared by its files.
 *
 * The module is a thin layer over the public C API (include/ctensor/). Every dtype and device
 * fact comes from there; this layer only converts arguments, maps errors onto exceptions and wraps
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
 * "ctensor.dtype", "Number", "Tensor", "ctensor.device", "str", "int". */
typedef enum ctp_param_kind {
    CTP_PARAM_DTYPE,  /**< a ctensor.dtype, or the Python type float/int/bool/complex */
    CTP_PARAM_NUMBER, /**< a Python bool, int, float or complex ("Number") */
    CTP_PARAM_TENSOR, /**< a tensor (nothing matches yet: ctensor has no Tensor type) */
    CTP_PARAM_DEVICE, /**< a ctensor.device, a device string or an int ordinal */
    CTP_PARAM_STRING, /**< a str (or bytes) */
    CTP_PARAM_INT64,  /**< an int that is not a bool, or a NumPy integer */
} ctp_param_kind;

#define CTP_MAX_PARAMS 4

/** A parameter. A name with a default, "index=-1", makes it optional: it may be left out or
 *  given as None, and the parser then stores NULL. */
typedef struct ctp_param {
    ctp_param_kind kind;
    const char *name;
} ctp_param;

/** One signature; its parameters are positional-or-keyword, required ones first. */
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

/** Bind the arguments of a call to a function PyTorch writes in Python,
 *  `def fname(names[0], ..., names[nposonly - 1], /, ..., names[nparams - 1])`, whose first
 *  `nrequired` parameters are required and the others default to None. Stores the arguments
 *  (borrowed; NULL for one left out) in out[0..nparams) and returns 0, or raises the
 *  TypeError CPython raises for such a call and returns -1. nparams <= CTP_MAX_PARAMS. */
int ctp_parse_python_call(const char *fname, const char *const *names, int nparams, int nrequired,
                          int nposonly, PyObject *args, PyObject *kwargs, PyObject **out);

/** Whether `obj` is an int as PyTorch's int parameters take it: an int but not a bool, or a
 *  NumPy integer. */
int ctp_is_int_arg(PyObject *obj);

/** The value of an int argument; RuntimeError "Overflow when unpacking long" (PyTorch's
 *  words) outside int64. 0, or -1 with an exception set. */
int ctp_int64_of_arg(PyObject *obj, int64_t *out);

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

/* ---- device objects (device_object.c) ---------------------------------------------------- */

/* Where one `with device:` on one thread entered its default-device scope. */
typedef struct ctp_scope_entry {
    unsigned long thread; /* PyThread_get_thread_ident() */
    size_t mark;          /* from ct_default_device_push, for ct_default_device_pop */
} ctp_scope_entry;

typedef struct {
    PyObject ob_base;
    ct_device device;
    /* Scopes this object entered and has not yet left, innermost last; one object may be
     * entered several times, nested or by several threads. */
    ctp_scope_entry *entries;
    Py_ssize_t nentries, capentries;
} ctp_device_object;

extern PyTypeObject ctp_device_type;

static inline int ctp_device_check(PyObject *obj) { return Py_TYPE(obj) == &ctp_device_type; }

/** Add the device type to `module`. 0, or -1 with an exception set. */
int ctp_device_init(PyObject *module);

/** A new ctensor.device object for a valid device; NULL with an exception otherwise. */
PyObject *ctp_device_new(ct_device device);

/** Whether `obj` is what PyTorch's Device parameters take: a device, a str or bytes, or an
 *  int ordinal (not a bool). */
int ctp_is_device_arg(PyObject *obj);

/** Convert a device argument as every device-taking function of the module does (and the
 *  factory functions will): a ctensor.device as it is, a string through the device grammar,
 *  an int as an ordinal of the current accelerator (ctensor.device(int)), None as "no
 *  device" (out->type CT_DEVICE_UNDEFINED, index -1; a factory then passes NULL to
 *  ct_device_resolve, which picks the default device). Returns 0, or -1 with the exception
 *  PyTorch raises: RuntimeError for bad strings and ordinals, the TypeError of
 *  ctensor.device(obj) for any other type. Factories check the argument's type with a
 *  CTP_PARAM_DEVICE parameter first, so their type errors read "zeros(): argument 'device'
 *  must be ctensor.device, not float" as PyTorch's do. */
int ctp_parse_device_arg(PyObject *obj, ct_device *out);

/** Raise the TypeError ctensor.device(obj) raises for an argument that is not a device;
 *  returns -1. For device-taking functions that refuse None. */
int ctp_raise_not_a_device(PyObject *obj);

/* ---- device functions and submodules ----------------------------------------------------- */

/** A METH_VARARGS | METH_KEYWORDS function as the PyCFunction PyMethodDef stores. */
#define CTP_KW_FUNC(f) ((PyCFunction)(void (*)(void))(f))

/** Module functions: default device, current device, device counts, compatibility mode
 *  (device_functions.c). */
extern PyMethodDef ctp_device_functions[];

/** Create the submodule `ctensor.<name>` from `def`, register it in sys.modules and bind it
 *  as an attribute of `module` (module.c). Borrowed reference, or NULL with an exception. */
PyObject *ctp_add_submodule(PyObject *module, struct PyModuleDef *def, const char *name);

/** ctensor.accelerator (accelerator.c), ctensor.utils (utils.c), ctensor._testing
 *  (testing.c). 0, or -1 with an exception set. */
int ctp_accelerator_init(PyObject *module);
int ctp_utils_init(PyObject *module);
int ctp_testing_init(PyObject *module);

/** The device type a submodule function's `type` argument names: a device type name
 *  ("cuda", the PrivateUse1 name), a device string or device (its type), or an int (the
 *  current accelerator). 0, or -1 with an exception set (device_functions.c). */
int ctp_device_type_arg(PyObject *obj, ct_device_type *out);

#endif /* CTENSOR_PY_H */
