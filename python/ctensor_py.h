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
#include "pycompat.h" /* CPython 3.9 and 3.10 */

#include "ctensor/ctensor.h"

/* ---- errors (errors.c) ------------------------------------------------------------------ */

/** Raise the Python exception for `status` (which must not be CT_OK) with ct_last_error()
 *  as message, and return NULL. Kinds map as PyTorch's exceptions do: RUNTIME, MISUSE and
 *  OVERFLOW -> RuntimeError, VALUE -> ValueError, TYPE -> TypeError, INDEX -> IndexError,
 *  NOT_IMPLEMENTED -> NotImplementedError, NOMEM -> MemoryError. */
PyObject *ctp_raise_status(ct_status status);
/* The same message as exception class `exc` (the caller chose the class, e.g. BufferError). */
PyObject *ctp_raise_status_as(PyObject *exc, ct_status status);

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
 * "ctensor.dtype", "Number", "Tensor", "ctensor.device", "str", "int", "tuple of ints", ... */
typedef enum ctp_param_kind {
    CTP_PARAM_DTYPE,  /**< a ctensor.dtype, or the Python type float/int/bool/complex */
    CTP_PARAM_NUMBER, /**< a Python or NumPy scalar, or a 0-dim tensor ("Number") */
    CTP_PARAM_TENSOR, /**< a ctensor.Tensor */
    CTP_PARAM_DEVICE, /**< a ctensor.device, a device string or an int ordinal */
    CTP_PARAM_STRING, /**< a str (or bytes) */
    CTP_PARAM_INT64,  /**< an int that is not a bool, or a NumPy integer */
    CTP_PARAM_INT_LIST,      /**< a tuple or list of ints ("tuple of ints"; see below) */
    CTP_PARAM_SYMINT_LIST,   /**< the same, printed "tuple of SymInts" as PyTorch does */
    CTP_PARAM_LAYOUT,        /**< a ctensor.layout */
    CTP_PARAM_MEMORY_FORMAT, /**< a ctensor.memory_format */
    CTP_PARAM_BOOL,          /**< a bool (or NumPy bool) */
    CTP_PARAM_NAME,          /**< a dimension name: str or None ("name"; named tensors) */
    CTP_PARAM_NAME_LIST,     /**< a tuple or list of names ("tuple of names") */
    CTP_PARAM_GENERATOR,     /**< a ctensor.Generator */
    CTP_PARAM_OBJECT,        /**< anything ("object"; tensor(data)) */
    CTP_PARAM_TENSOR_OR_NUMBER, /**< a Tensor, or a Number taken as a wrapped number (to(),
                                     copy_(): PyTorch's "numbers as tensors"); prints "Tensor" */
    CTP_PARAM_STORAGE,          /**< "torch.Storage": nothing matches (ctensor has no storage
                                     objects); for the legacy constructor's messages */
} ctp_param_kind;

#define CTP_MAX_PARAMS 10

/** A parameter. A name with a default, "index=-1", makes it optional: it may be left out or
 *  given as None, and the parser then stores NULL. A name ending in '?' ("names?") is
 *  required but may be None (stored as NULL). A name starting with '*' ("*dtype=None")
 *  makes it and every later parameter keyword-only.
 *
 *  Int lists, as PyTorch's IntArrayRef: a tuple or list whose first element is an int
 *  (the rest is checked by ctp_int_list_of_arg); when such a parameter is the signature's
 *  only positional one, the ints may also be given as separate arguments (zeros(2, 3)), and
 *  the parser then stores the whole argument tuple. */
typedef struct ctp_param {
    ctp_param_kind kind;
    const char *name;
} ctp_param;

/** One signature; its parameters are positional-or-keyword (required ones first), then
 *  keyword-only. */
typedef struct ctp_signature {
    int nparams;
    ctp_param params[CTP_MAX_PARAMS];
} ctp_signature;

/** Raise OneFlow's mixing error for a global tensor given to a function that has no global
 *  form ("cat(): Expected all tensors to be local, but found a global tensor ..."); NULL. */
PyObject *ctp_raise_global_in_local(const char *fname);

/** Parse (args, kwargs) against `sigs` in order, as PyTorch's PythonArgParser does, and
 *  return the index of the first signature that matches, with its arguments (borrowed, in
 *  parameter order) in `out`. On failure returns -1 with the TypeError PyTorch would raise
 *  for `fname` (the function name without "()"). */
int ctp_parse_args(const char *fname, const ctp_signature *sigs, int nsigs, PyObject *args,
                   PyObject *kwargs, PyObject *out[CTP_MAX_PARAMS]);

/** The parameter of `sig` called `name` (without '*', default or '?'), or NULL. */
const ctp_param *ctp_param_named(const ctp_signature *sig, const char *name);

/** The parsed argument (NULL when left out or None) of the parameter `name` of `sig`, whose
 *  arguments ctp_parse_args stored in `parsed`; NULL too when `sig` has no such parameter. */
PyObject *ctp_arg(const ctp_signature *sig, PyObject *const *parsed, const char *name);

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

/** PyTorch's printed name of a parameter kind ("tuple of ints"), and a parameter's name
 *  without '*', default or '?' copied into buf (argparse.c). */
const char *ctp_param_kind_name(ctp_param_kind kind);
const char *ctp_param_name(const ctp_param *p, char buf[64]);

/** The checks of the tensor parameter kinds (tensor_args.c): an int list (a tuple or list,
 *  empty or with an index first), a dimension name (str or None), a list of names, a Number
 *  (Python numbers, NumPy scalars, 0-dim tensors). */
int ctp_is_int_list_arg(PyObject *obj);
int ctp_is_name_arg(PyObject *obj);
int ctp_is_name_list_arg(PyObject *obj);
int ctp_is_number_arg(PyObject *obj);

/** Whether `obj` is an index as PyTorch's THPUtils_checkIndex takes it: an int that is not a
 *  bool, a NumPy integer, or anything else with __index__ (a one-element integer tensor). */
int ctp_is_index_arg(PyObject *obj);

/** Whether `obj` is a NumPy bool (numpy.bool_), found through its type's MRO. */
int ctp_is_numpy_bool(PyObject *obj);

/** Whether the type of `obj` has a class named `tp_name` ("numpy.ndarray") in its MRO. */
int ctp_type_has_base(PyObject *obj, const char *tp_name);

/** The ints of an argument the parser accepted as CTP_PARAM_INT_LIST or SYMINT_LIST for
 *  `param` of `fname` (tensor_args.c): at most CT_MAX_DIMS of them (more: ValueError "maximum
 *  supported dimension for a tensor is 64, found 65"), each an index (bools count as 0/1,
 *  as PyTorch unpacks them). An element that is no int or overflows int64 raises PyTorch's
 *  TypeError "zeros(): argument 'size' must be tuple of SymInts, but found element of type
 *  float at pos 2". Returns the count, or -1 with an exception set. */
Py_ssize_t ctp_int_list_of_arg(const char *fname, const ctp_param *param, PyObject *obj,
                               int64_t out[CT_MAX_DIMS]);

/* ---- result-type operands (operand.c) ---------------------------------------------------- */

/** Whether `obj` is a Python number as PyTorch's "Number" parameters accept it. */
int ctp_is_number(PyObject *obj);

/** Whether `obj` is a tensor (ctp_tensor_check). */
int ctp_is_tensor(PyObject *obj);

/** Describe `obj` (a Number or a Tensor) as a result-type operand: a Python scalar becomes a
 *  wrapped number of its own dtype (bool, int64, float64, complex128); a tensor counts by its
 *  dim() and wrapped-number flag. Returns 0, or -1 with an exception set (RuntimeError
 *  "Overflow when unpacking long" for an int outside int64; TypeError for anything that is
 *  not an operand). */
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

/* ---- ctensor.cuda (cuda.c with the CUDA backend, cuda_none.c without) -------------------- */

/** Register the CUDA backend (ct_cuda_init; ImportError when it fails) and add ctensor.cuda,
 *  Tensor.pin_memory and Tensor.is_pinned. 0, or -1 with an exception set. */
int ctp_cuda_init(PyObject *module);

/** Whether the real CUDA backend holds the cuda slot (not a test's emulation; never without
 *  the backend). */
int ctp_cuda_real_backend(void);

/** PyTorch's device_lazy_init for a tensor going to `device` (NULL: the default device): for
 *  cuda with the real backend and no device, -1 with the library's no-driver RuntimeError;
 *  else 0. */
int ctp_cuda_lazy_init_device(const ct_device *device);

/** Tests (ctensor._testing): take the real backend out of the cuda slot (1 when it was
 *  there, 0 when not, -1 with an exception: live allocations), and put it back (1 when
 *  restored, 0 when nothing was out, -1 with an exception). */
int ctp_cuda_displace(void);
int ctp_cuda_restore(void);

/** The pin_memory= factory option: when true, replace *t by its pinned copy (releasing it;
 *  *t NULL on failure). 0, or -1 with an exception. */
int ctp_cuda_pin(PyObject *pin_memory, ct_tensor **t);

/** copy_(src, non_blocking): asynchronous between pinned cpu and cuda memory when asked. */
ct_status ctp_cuda_copy(ct_tensor *dst, const ct_tensor *src, int non_blocking);

/** to(..., non_blocking=True) between cpu and cuda without dtype change: 1 with the new
 *  tensor in *out (asynchronous copy; to the host into pinned memory, as PyTorch), 0 when
 *  the call is not such a move (the caller converts as usual), -1 with an exception. */
int ctp_cuda_to_async(ct_tensor *src, ct_dtype dtype, const ct_device *device,
                      ct_memory_format format, ct_tensor **out);

/** DLPack streams: before exporting a tensor on `device`, order the consumer's `stream`
 *  (__dlpack__'s argument, None or an int) after our work (0, or -1 with an exception); and
 *  the stream= a consumer passes to `producer` (new reference) or NULL for none. */
int ctp_cuda_dlpack_export_sync(ct_device device, PyObject *stream);
PyObject *ctp_cuda_dlpack_consumer_stream(PyObject *producer);

/* ---- layouts and memory formats (layout_object.c) --------------------------------------- */

typedef struct {
    PyObject ob_base;
    ct_layout layout;
} ctp_layout_object;

typedef struct {
    PyObject ob_base;
    ct_memory_format format;
} ctp_memory_format_object;

extern PyTypeObject ctp_layout_type;
extern PyTypeObject ctp_memory_format_type;

static inline int ctp_layout_check(PyObject *obj) { return Py_TYPE(obj) == &ctp_layout_type; }
static inline int ctp_memory_format_check(PyObject *obj) {
    return Py_TYPE(obj) == &ctp_memory_format_type;
}

/** Add the two types and their singletons (ctensor.strided, ..., ctensor.channels_last) to
 *  `module`. 0, or -1 with an exception set. */
int ctp_layout_init(PyObject *module);

/** New references to the singletons; RuntimeError for an invalid value. */
PyObject *ctp_layout_new_ref(ct_layout layout);
PyObject *ctp_memory_format_new_ref(ct_memory_format format);

/* ---- ctensor.Size (size.c) --------------------------------------------------------------- */

extern PyTypeObject ctp_size_type;

int ctp_size_init(PyObject *module);

/** A new ctensor.Size holding `n` ints. */
PyObject *ctp_size_new(const int64_t *v, int64_t n);

/* ---- ctensor.Tensor (tensor_object.c and the tensor_*.c files) -------------------------- */

typedef struct {
    PyObject ob_base;
    ct_tensor *tensor; /* owned reference; never NULL once constructed */
    PyObject *weakrefs;
} ctp_tensor_object;

extern PyTypeObject ctp_tensor_type;

/** Whether `obj` is a local ctensor.Tensor (or an instance of a subclass): false for a
 *  global tensor, which is a Tensor to Python (isinstance) but has no local data. */
int ctp_tensor_check(PyObject *obj);

/** The type of global tensors, a subtype of Tensor (set by the dist part of the module;
 *  NULL without it). */
extern PyTypeObject *ctp_tensor_global_type;

/** A new ctensor.Tensor object owning `t`: steals the reference, also on failure (then
 *  releases it). NULL `t` (a failed C call) raises nothing new and returns NULL, so that
 *  `return ctp_tensor_wrap(r)` may follow a call that set an exception. */
PyObject *ctp_tensor_wrap(ct_tensor *t);

/** The C tensor of a ctensor.Tensor (borrowed); NULL (no exception) for anything else. */
ct_tensor *ctp_tensor_get(PyObject *obj);

/** Turn the result of a C call on `self` into a Python object: on failure raise `st`; when
 *  the call returned self's own ct_tensor (contiguous() of a contiguous tensor, to() without
 *  change), return `self` itself, as PyTorch returns the same Tensor object. Steals `r`. */
PyObject *ctp_tensor_result(PyObject *self, ct_status st, ct_tensor *r);

/** What PyTorch raises when a dimension name is used (no ctensor tensor has names): "Name 'a'
 *  not found in Tensor[None, None]." or, for None, "Please look up dimensions by name, got:
 *  name = None.". Returns NULL. */
PyObject *ctp_tensor_raise_name(PyObject *self, PyObject *name);

/** repr() and str() of tensors call this hook when it is set (the printing layer sets it at
 *  module initialisation); NULL means the plain "<ctensor.Tensor shape=[2, 3]
 *  dtype=ctensor.float32 device=cpu>" text. */
extern PyObject *(*ctp_tensor_repr_hook)(PyObject *tensor);

/** Add the Tensor type (with every method of the tensor_*.c files) to `module`. */
int ctp_tensor_init(PyObject *module);

/** Printing (tensor_print.c): set ctp_tensor_repr_hook and add set_printoptions,
 *  get_printoptions and printoptions to `module`. 0, or -1 with an exception set. */
int ctp_print_init(PyObject *module);

/** repr() of a tensor through `repr_named` (ct_tensor_repr_named or a layout's own, with the
 *  same signature): the "ctensor." prefix, and the subclass's name for an instance of a
 *  subclass, as PyTorch prints it. A new str, or NULL with an exception set. */
PyObject *ctp_tensor_repr_with(PyObject *self,
                               ct_status (*repr_named)(const ct_tensor *, const ct_print_options *,
                                                       const char *, char **));

/** Sparse COO (sparse.c): add sparse_coo_tensor and the sparse methods to the module and
 *  the Tensor type, and wrap ctp_tensor_repr_hook; after ctp_print_init. */
int ctp_sparse_init(PyObject *module);
/* ctensor.transpose, t, clone, negative: the Tensor methods as module functions
 * (method_functions.c). */
int ctp_method_functions_init(PyObject *module);
/** no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
 *  is_inference_mode_enabled and Tensor.detach / requires_grad_ (grad_mode.c). */
int ctp_grad_mode_init(PyObject *module);
/** softmax and log_softmax, functions and methods (tensor_softmax.c). */
int ctp_softmax_init(PyObject *module);
/** The setter of Tensor.requires_grad: False is accepted, True refused (no autograd). */
int ctp_tensor_set_requires_grad(PyObject *self, PyObject *value, void *closure);

/* Method tables of the tensor files, merged into the type at initialisation. */
extern PyMethodDef ctp_tensor_view_methods[];    /* tensor_views.c */
extern PyMethodDef ctp_tensor_convert_methods[]; /* tensor_convert.c */
extern PyMethodDef ctp_tensor_data_methods[];    /* tensor_data.c */
extern PyGetSetDef ctp_tensor_view_getset[];     /* tensor_views.c: T, mT, H */

/* Number and mapping protocols (tensor_data.c, tensor_index.c; the arithmetic slots of the
 * number table are set by ctp_arith_number_slots, tensor_arith.c). */
extern PyNumberMethods ctp_tensor_as_number;
PyObject *ctp_tensor_getitem(PyObject *self, PyObject *index);
/** One step basic indexing takes (ctp_tensor_index_steps), on the view the previous steps
 *  left: a select of `start` at `dim`, a slice of `length` elements from `start`, `step`
 *  apart, or a new size-1 dim at `dim`; select indices and slice starts are non-negative. */
typedef enum { CTP_STEP_SELECT, CTP_STEP_SLICE, CTP_STEP_UNSQUEEZE } ctp_step_kind;
typedef struct ctp_index_step {
    ctp_step_kind kind;
    int64_t dim, start, length, step;
} ctp_index_step;
#define CTP_MAX_INDEX_STEPS (3 * CT_MAX_DIMS)
/** Whether `index` has only ints, slices of ints, None and Ellipsis (a tuple of them or one):
 *  the basic index ctp_tensor_index_steps records. No tensors, sequences or bools. */
int ctp_index_is_basic(PyObject *index);
/** Run a basic index on `self` (PyTorch's errors, setitem's rules with `for_setitem`) and
 *  record its steps in steps[0..*n) (at most CTP_MAX_INDEX_STEPS). 1 when recorded, 0 when
 *  the index is not basic or has too many steps, -1 with an exception. */
int ctp_tensor_index_steps(PyObject *self, PyObject *index, int for_setitem,
                           ctp_index_step *steps, size_t *n);
int ctp_tensor_setitem(PyObject *self, PyObject *index, PyObject *value);
Py_ssize_t ctp_tensor_length(PyObject *self);
PyObject *ctp_tensor_iter(PyObject *self);

/** Module functions that make tensors: factories (tensor_create.c), tensor() and the
 *  random functions (tensor_new.c, tensor_random.c). */
extern PyMethodDef ctp_tensor_create_functions[];
extern PyMethodDef ctp_tensor_new_functions[];
extern PyMethodDef ctp_tensor_random_functions[];

/** placement= and sbp= of a factory call (ctensor_dist_py.h; only with CT_HAVE_DIST). */
typedef struct ctp_dist_spec ctp_dist_spec;

/** A factory's body: `what` describes it, `spec` is NULL for a local tensor. */
typedef PyObject *(*ctp_factory_fn)(const void *what, PyObject *args, PyObject *kwargs,
                                    const ctp_dist_spec *spec);

/** Run a factory (tensor_create.c): when the module has global tensors and the call has
 *  placement= and sbp=, they are taken out of the keywords first and given as `spec`. */
PyObject *ctp_run_factory(ctp_factory_fn fn, const void *what, PyObject *args, PyObject *kwargs);
/** ctp_run_factory with the factory's Python name ("ones"), the name of the global operation
 *  an error before the C call is reported under to the other ranks (ctp_run_factory:
 *  "factory"). */
PyObject *ctp_run_factory_named(ctp_factory_fn fn, const void *what, const char *name,
                                PyObject *args, PyObject *kwargs);

/** A factory's result: the local tensor object `local` itself (spec NULL), or the global
 *  tensor whose logical value it is (stolen). NULL passes through. */
PyObject *ctp_factory_result(PyObject *local, const ctp_dist_spec *spec);

/** The legacy constructor ctensor.Tensor(...) (tensor_new.c). */
PyObject *ctp_tensor_legacy_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);

/** torch.tensor(data, dtype=...) with `dtype` UNDEFINED for inference and `device` NULL for
 *  the default device (tensor_new.c). New reference, or NULL with an exception. */
PyObject *ctp_tensor_from_data(PyObject *data, ct_dtype dtype, const ct_device *device);

/* ---- argument helpers of the tensor functions (tensor_args.c) ---------------------------- */

/** The dtype of an optional dtype argument (NULL -> CT_DTYPE_UNDEFINED). */
ct_dtype ctp_opt_dtype(PyObject *obj);
/** The layout of an optional layout argument (NULL -> strided). */
ct_layout ctp_opt_layout(PyObject *obj);
/** The format of an optional memory_format argument (NULL -> `dflt`). */
ct_memory_format ctp_opt_memory_format(PyObject *obj, ct_memory_format dflt);
/** An optional bool argument (NULL -> false). */
int ctp_opt_bool(PyObject *obj);

/** An optional device argument: NULL or None leaves *has at 0 (use the default device);
 *  otherwise parses it into *out and sets *has, and initialises cuda as PyTorch does for a
 *  device a tensor goes to (ctp_cuda_lazy_init_device). 0, or -1 with an exception set. */
int ctp_opt_device(PyObject *obj, ct_device *out, int *has);

/** Refuse what ctensor does not implement among the factory options, in PyTorch's order of
 *  checks: requires_grad=True (RuntimeError "Only Tensors of floating point and complex dtype
 *  can require gradients" for other dtypes, else NotImplementedError: no autograd), names
 *  other than None, out= other than None. `dtype` is the dtype the result will have.
 *  pin_memory= is the caller's (ctp_cuda_pin). 0, or -1 with an exception set. */
int ctp_check_factory_options(ct_dtype dtype, PyObject *requires_grad, PyObject *names,
                              PyObject *out);

/** The layout check of the factories: strided passes; sparse_coo raises NotImplementedError
 *  "<fn>: layout ctensor.sparse_coo is not supported yet" (the sparse layer wires it), any
 *  other layout the same. 0, or -1 with an exception set. */
int ctp_check_strided_layout(const char *fname, ct_layout layout);

/** A scalar from a Number argument (bool, int, float, complex, NumPy scalar, 0-dim tensor).
 *  ints beyond int64 but within uint64 become CT_SCALAR_UINT; larger ones raise
 *  RuntimeError "Overflow when unpacking long". 0, or -1 with an exception set. */
int ctp_scalar_of_arg(PyObject *obj, ct_scalar *out);

/** ctp_scalar_of_arg within int64, as PyTorch unpacks a Scalar argument (alpha=, a number
 *  operand): an int beyond it raises RuntimeError "Overflow when unpacking long". 0, or -1
 *  with an exception set. */
int ctp_int64_scalar_of_arg(PyObject *obj, ct_scalar *out);

/** A Python object for a scalar: bool, int, float or complex. */
PyObject *ctp_scalar_to_object(ct_scalar value);

/* ---- reductions (tensor_reduce.c) -------------------------------------------------------- */

extern PyMethodDef ctp_reduce_functions[];
extern PyMethodDef ctp_tensor_reduce_methods[];
/** ctensor.return_types.max (is_max) / min: the (values, indices) named tuple type;
 *  borrowed, NULL with an exception when it cannot be made. */
PyTypeObject *ctp_reduce_return_type(int is_max);

/* ---- element-wise arithmetic (tensor_arith.c) -------------------------------------------- */

/** Module functions add, sub, subtract, mul, multiply, div, divide, true_divide,
 *  set_num_threads and get_num_threads. */
extern PyMethodDef ctp_arith_functions[];

/** Tensor methods add, add_, sub, sub_, subtract(_), mul(_), multiply(_), div(_), divide(_),
 *  true_divide(_), merged into the type by tensor_object.c. */
extern PyMethodDef ctp_tensor_arith_methods[];
/* Add methods defined by a later part of the module (dlpack.c, sparse.c) to the ready Tensor
 * type, skipping names the type already has. `defs` must live as long as the process.
 * 0, or -1 with an exception. */
int ctp_tensor_add_methods(PyMethodDef *defs);

/* Fills a file's row table into module functions and Tensor methods and adds them: entry(i,
 * &def) sets row i's PyMethodDef and returns 1 for a module function, 0 for a Tensor method.
 * `functions` and `methods` hold n + 1 zeroed PyMethodDefs each and must live as long as the
 * process; they are filled once (a later call only adds them again). 0, or -1 with an
 * exception. Defined in utils.c. */
int ctp_add_entry_defs(PyObject *module, int n, int (*entry)(int i, PyMethodDef *def),
                       PyMethodDef *functions, PyMethodDef *methods);

/** Set the operator slots (+ - * / // and their in-place forms) of the Tensor type's number
 *  table; before PyType_Ready. */
void ctp_arith_number_slots(PyNumberMethods *nb);
/* tensor_arith.c's machinery for the binary ops of tensor_binary.c: a function or method call
 * parsed with `sigs` (PyTorch's signatures; parameter names input/self, other/exponent, out)
 * computing row `op`; the operator x op y (reflected: y op x as PyTorch's __r*__, and
 * NotImplemented for operands it does not take); x op= y. */
PyObject *ctp_arith_call_op(ct_op op, const char *name, const ctp_signature *sigs, int nsigs,
                           int method, int inplace, PyObject *self, PyObject *args,
                           PyObject *kwargs);
PyObject *ctp_arith_operator(ct_op op, PyObject *a, PyObject *b);
PyObject *ctp_arith_inplace_operator(ct_op op, PyObject *a, PyObject *b);
/* tensor_binary.c: pow remainder fmod atan2 hypot bitwise_* logical_* floor_divide (functions,
 * methods, in-place forms) and the operators ** % & | ^ << >>. */
void ctp_binary_number_slots(PyNumberMethods *nb);
int ctp_binary_init(PyObject *module);
/* The comparisons' Tensor methods (eq, eq_, ...; tensor_arith.c). */
extern PyMethodDef ctp_tensor_compare_methods[];
/* tp_richcompare (== != < <= > >= return tensors) and tp_hash (id-based, as torch). */
void ctp_compare_type_slots(PyTypeObject *type);

/** Add the module functions and install the library's warning handler (warnings become
 *  Python UserWarnings). 0, or -1 with an exception set. */
int ctp_arith_init(PyObject *module);

/** After a C call that may raise a library warning (ct_warn): -1 with the exception set when
 *  a warnings filter turned one into an error (the caller then fails, dropping its result),
 *  else 0. The handler keeps such an exception per thread until this is called. */
int ctp_warning_error(void);

/* ---- unary ops (tensor_unary.c) ---------------------------------------------------------- */

/** Set the unary operator slots (- + abs ~) of the Tensor type's number table; before
 *  PyType_Ready. */
void ctp_unary_number_slots(PyNumberMethods *nb);

/** Add ctensor.<name> for every row of ctensor/unary.def and the Tensor methods <name> and
 *  <name>_. 0, or -1 with an exception set. */
int ctp_unary_init(PyObject *module);
/* The ternary.def functions and methods (tensor_ternary.c). */
int ctp_ternary_init(PyObject *module);

/* ---- random generators (tensor_random.c) ------------------------------------------------- */

extern PyTypeObject ctp_generator_type;

static inline int ctp_generator_check(PyObject *obj) {
    return Py_TYPE(obj) == &ctp_generator_type;
}

/** The C generator of a Generator argument (NULL -> the default generator). */
ct_generator *ctp_generator_of_arg(PyObject *obj);

int ctp_generator_init(PyObject *module);

/* ---- joining and splitting (tensor_join.c), factories (tensor_factories.c) --------------- */

/** cat, stack, split, chunk, ... and their Tensor methods; after ctp_tensor_init. */
int ctp_join_init(PyObject *module);
/** A list from the C API (join.h: new references, ct_tensor_list_release frees it) as a
 *  tuple of Tensors; raises the status's exception unless st is CT_OK. Takes the list. */
PyObject *ctp_tensor_tuple_of_list(ct_status st, ct_tensor **list, int64_t n);
/** linspace, logspace, eye, as_tensor, is_tensor, ..., the Tensor.new_* methods and
 *  is_signed; after ctp_tensor_init. */
int ctp_factories_init(PyObject *module);

/* ---- matrix products (tensor_linalg.c) ---------------------------------------------------- */

/** matmul, mm, bmm, mv, dot, outer, ger, addmm, baddbmm and their methods. */
int ctp_linalg_init(PyObject *module);
/** The @ slot. */
void ctp_linalg_number_slots(PyNumberMethods *nb);

/** index_select, nonzero, masked_select (tensor_indexops.c); after ctp_tensor_init. */
int ctp_indexops_init(PyObject *module);

/* ---- sorting and selection (tensor_sort.c) --------------------------------------------- */
/** Adds sort, argsort, msort, topk, kthvalue, unique and their methods: 0, or -1. */
int ctp_sort_init(PyObject *module);

/** flip, roll, repeat, tile, tril, triu, diagonal, unfold, resize_ and the in-place view
 *  ops (tensor_reorder.c); after ctp_tensor_init. 0, or -1. */
int ctp_reorder_init(PyObject *module);
/** addbmm, addmv, addr and the in-place addmm_, baddbmm_, ... (tensor_linalg_add.c). */
int ctp_linalg_add_init(PyObject *module);
/* ---- gather, scatter, index_add/fill/copy (tensor_scatter.c) ----------------------------- */
/** Adds gather, scatter, scatter_add, scatter_reduce, index_add, index_fill, index_copy and
 *  their methods and in-place methods: 0, or -1. */
int ctp_scatter_init(PyObject *module);
/** nonzero(t, as_tuple=True): the tuple of its coordinate columns (tensor_indexops.c); also
 *  torch.where(condition). New reference, or NULL with an exception. */
PyObject *ctp_nonzero_tuple(PyObject *t);
/** Adds searchsorted, bucketize and unique_consecutive (tensor_search.c): 0, or -1. */
int ctp_search_init(PyObject *module);

#endif /* CTENSOR_PY_H */
