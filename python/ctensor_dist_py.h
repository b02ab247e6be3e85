/* The global-tensor part of the ctensor module (built only with libctensor_dist, when CMake
 * defines CT_HAVE_DIST): ctensor.placement, ctensor.sbp, ctensor.env, ctensor.GlobalTensor,
 * the global forms of the factories and of the arithmetic, and the global methods of local
 * tensors. The Python API is OneFlow's (docs: tools/dist_python_api.md).
 *
 * SPMD: every rank runs the same Python program. An error raised here before the C layer's
 * first collective (a bad argument on one rank) is reported through that collective
 * (ct_global_fail, via ctp_dist_failed), so that every rank raises and none is left waiting:
 * the failing rank its own exception, the others "global operation div failed on rank 1:
 * ...". An uncaught exception on one rank of several ends the whole job (MPI_Abort).
 */
#ifndef CTENSOR_DIST_PY_H
#define CTENSOR_DIST_PY_H

#include "ctensor/dist.h"
#include "ctensor/ops.h"
#include "ctensor/reduce.h"
#include "ctensor/unary.h"
#include "ctensor_py.h"

/* ---- environment (dist_env.c) -------------------------------------------------------------- */

/** Add everything of the distributed part to `module` (types, submodules sbp and env,
 *  to_global / to_local) and register the finalization of MPI at exit. Does not start MPI.
 *  0, or -1 with an exception set. */
int ctp_dist_init(PyObject *module);

/** Raise the exception of a failed C call of the dist library (ctp_raise_status); NULL. */
PyObject *ctp_dist_raise(ct_status st);

/** A count of the C global operations this process has entered through the module
 *  (ctp_dist_entered is called after each). An entry point takes a mark first; when it
 *  fails with the mark unchanged, the C operation was never reached. */
uint64_t ctp_dist_mark(void);
void ctp_dist_entered(void);

/** For an entry point of global operation `op` that is raising (an exception is set): when
 *  no C global operation was entered since `mark`, join the opening agreement of `op` as
 *  failed (ct_global_fail, the message "<text>" or "<Type>: <text>" of the exception, its
 *  status from the exception's class), so that the other ranks raise too. The exception
 *  itself is kept. Returns NULL. */
PyObject *ctp_dist_failed(const char *op, uint64_t mark);

/** Issue a deprecation warning that is both a UserWarning and a DeprecationWarning (OneFlow
 *  warns with UserWarning; Python code expects DeprecationWarning). 0, or -1 when a filter
 *  made it an error. */
int ctp_dist_warn_deprecated(const char *message);

/* ---- placement (dist_placement.c) ----------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    ct_placement *placement; /* owned reference */
} ctp_placement_object;

extern PyTypeObject ctp_placement_type;

static inline int ctp_placement_check(PyObject *obj) {
    return Py_IS_TYPE(obj, &ctp_placement_type);
}

/** A new ctensor.placement owning `p` (steals the reference, also on failure). */
PyObject *ctp_placement_wrap(ct_placement *p);

/** placement.all(type) (the staticmethod and env.all_device_placement). */
PyObject *ctp_placement_all(PyObject *type);

/** The placement of a `placement=` argument: TypeError "Invalid parameter placement with
 *  type <class 'str'>" for anything but a ctensor.placement. Borrowed. */
int ctp_placement_of_arg(PyObject *obj, const ct_placement **out);

int ctp_placement_init(PyObject *module);

/* ---- sbp (dist_sbp.c) ----------------------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    ct_sbp sbp;
} ctp_sbp_object;

extern PyTypeObject ctp_sbp_type;

static inline int ctp_sbp_check(PyObject *obj) { return Py_IS_TYPE(obj, &ctp_sbp_type); }

/** The interned object of an sbp value (new reference). */
PyObject *ctp_sbp_new_ref(ct_sbp sbp);

/** A tuple of sbp objects (what Tensor.sbp returns). */
PyObject *ctp_nd_sbp_tuple(const ct_sbp *sbp, int64_t n);

/** An `sbp=` argument: one ctensor.sbp.sbp, or a list/tuple of them. TypeErrors "sbp
 *  parameter must be type of ctensor.sbp.sbp or list/tuple of ctensor.sbp.sbp" and "Invalid
 *  parameter sbp with type <class 'int'>"; more entries than a placement may have axes:
 *  ValueError "The number of sbp (7) must match the number of placement hierarchy dims (N)"
 *  with N = `placement_ndim`. 0, or -1 with an exception set. */
int ctp_nd_sbp_of_arg(PyObject *obj, int64_t placement_ndim, ct_sbp out[CT_PLACEMENT_MAX_NDIM],
                      int64_t *n);

/** Create the submodule ctensor.sbp. */
int ctp_sbp_init(PyObject *module);

/* ---- GlobalTensor (dist_global.c) ----------------------------------------------------------- */

/* A global tensor is a ctensor.Tensor (GlobalTensor is a subtype, as OneFlow's global tensors
 * are oneflow.Tensor): isinstance(x, Tensor) holds and the Tensor methods answer with the
 * global meaning or a clear error. The local slot `base.tensor` holds a meta tensor of the
 * logical sizes and dtype, never NULL: the metadata queries GlobalTensor inherits (dim(),
 * numel(), is_floating_point(), element_size(), ...) read it, and a local code path that
 * still meets the object (Tensor.flip(g) called through the base class) sees a tensor
 * without data, never a NULL pointer. ctp_tensor_check() is false for global tensors, so
 * the argument parsers of the local functions never take one as a local tensor. */
typedef struct {
    ctp_tensor_object base; /* base.tensor: the meta stand-in; base.weakrefs */
    ct_global *global;      /* owned reference; never NULL once constructed */
} ctp_global_object;

extern PyTypeObject ctp_global_type;

static inline int ctp_global_check(PyObject *obj) { return Py_IS_TYPE(obj, &ctp_global_type); }

static inline ct_global *ctp_global_get(PyObject *obj) {
    return ((ctp_global_object *)obj)->global;
}

/** A new GlobalTensor owning `g` (steals, also on failure). NULL `g` returns NULL (an
 *  exception is expected to be set). */
PyObject *ctp_global_wrap(ct_global *g);

/** The outcome of a C call that produced `r` (stolen): the status's exception, a pending
 *  warning-made-error, `self` itself when r is self's ct_global, else a new object. */
PyObject *ctp_global_result(PyObject *self, ct_status st, ct_global *r);

/** Tensor.to_global of a local tensor object / of a GlobalTensor. check_meta < 0 means the
 *  default (True for local tensors; global ones ignore it). New reference or NULL. */
PyObject *ctp_local_to_global(PyObject *tensor, PyObject *placement, PyObject *sbp, int check_meta,
                              int copy);
PyObject *ctp_global_to_global(PyObject *self, PyObject *placement, PyObject *sbp, int copy);

/** to_local of a GlobalTensor. */
PyObject *ctp_global_to_local(PyObject *self, int copy);

int ctp_global_init(PyObject *module);

/* ---- GlobalTensor as a Tensor (dist_tensor_type.c) ------------------------------------------ */

/** The Tensor methods of GlobalTensor beyond dist_global.c's: dtype shortcuts, to(dtype),
 *  type_as, copy_, new_zeros / new_ones / new_empty / new_full / new, __array__. Merged into
 *  the type before PyType_Ready. */
extern PyMethodDef ctp_global_tensor_methods[];

/** Fill what GlobalTensor would otherwise inherit from Tensor's C slots (number slots it
 *  lacks, mapping, iteration, construction) with the global form or a clear error. Before
 *  PyType_Ready. */
void ctp_global_fill_slots(PyTypeObject *type);

/** After every part of the module has added its Tensor methods: give GlobalTensor, for each
 *  Tensor method and attribute it has no own form of, one that raises NotImplementedError
 *  "flip() is not implemented for global tensors yet ..." (a few metadata queries that the
 *  meta stand-in answers with the logical value stay inherited). 0, or -1. */
int ctp_global_finish(void);

/** The placement and sbp of a global tensor as a factory's spec (release with
 *  ctp_dist_spec_clear). */
void ctp_dist_spec_of_global(PyObject *global, struct ctp_dist_spec *spec);

/** The *_like factories with a global input or placement= / sbp= (tensor_create.c):
 *  `kind` 0 empty, 1 zeros, 2 ones, 3 full, 4 rand, 5 randn; `input` the input object (a
 *  local or a global tensor); dtype UNDEFINED keeps the input's; `spec` NULL takes the
 *  global input's placement and sbp. */
PyObject *ctp_dist_like(int kind, PyObject *input, ct_scalar value, ct_dtype dtype,
                        const struct ctp_dist_spec *spec);

/** ctensor.full(size, fill_value) with a global zero-dim fill_value: its value (collective:
 *  item()), and without placement= and sbp= the fill value's placement with broadcast; then
 *  the factory `fn` as ctp_run_factory_named runs it. */
PyObject *ctp_dist_full_global_fill(ctp_factory_fn fn, const void *what, PyObject *args,
                                    PyObject *kwargs);

/** A NumPy array as the operand of a global tensor `like` in arithmetic, as OneFlow takes
 *  it: a broadcast global tensor of like's dtype on like's placement, the value of the
 *  placement's first rank (collective). New reference or NULL. */
PyObject *ctp_global_from_array(PyObject *array, PyObject *like);

/** The logical value of a global tensor as a local Tensor object, on every rank
 *  (collective; `op` names the operation in the agreement). New reference or NULL. */
PyObject *ctp_global_logical(PyObject *global, const char *op);

/** len(x), x[index], x[index] = value of a global tensor (dist_index.c). */
extern PyMappingMethods ctp_global_as_mapping;

/** The meta stand-in of a global tensor (logical sizes and dtype, no data) as a local Tensor
 *  object, for parsers that read only metadata. New reference. */
PyObject *ctp_global_stand_in(PyObject *global);

/* ---- arithmetic (dist_arith.c) -------------------------------------------------------------- */

/** Whether a GlobalTensor is among `self`, the positional and the keyword arguments (the
 *  arithmetic functions then take the global path). */
int ctp_dist_any_global(PyObject *self, PyObject *args, PyObject *kwargs);

/** ctensor.add / sub / mul / div and aliases (method = 0) or the methods of Tensor and
 *  GlobalTensor (method = 1, `self` the tensor) when some operand is global. `op` is the
 *  ops.def row (CT_OP_DIV for div, whose rounding_mode argument picks the mode); `name`
 *  the Python name ("subtract_"). */
PyObject *ctp_global_arith_call(ct_op op, const char *name, int method, int inplace, PyObject *self,
                                PyObject *args, PyObject *kwargs);

/** The operators with a GlobalTensor on either side: d is the ops.def row whose symbol
 *  the operator is (CT_OP_DIV_FLOOR for //). NotImplemented for operands it does not take. */
PyObject *ctp_global_binary(ct_op d, PyObject *a, PyObject *b);

/** The number slots and the arithmetic methods of GlobalTensor. */
extern PyNumberMethods ctp_global_as_number;
extern PyMethodDef ctp_global_arith_methods[];

/** The comparison slots of GlobalTensor (dist_arith.c): == != < <= > >= give global bool
 *  tensors; hash(x) is id(x). Before PyType_Ready. */
void ctp_global_compare_slots(PyTypeObject *type);

/* ---- unary ops and reductions (dist_unary.c, dist_reduce.c) ---------------------------------- */

/** ctensor.<name>(input, *, out=None) (round: decimals=) with a GlobalTensor input. */
PyObject *ctp_global_unary_call(ct_unop op, PyObject *args, PyObject *kwargs);
/** GlobalTensor.<name>() of every unary.def row, and the in-place names (errors). */
extern PyMethodDef ctp_global_unary_methods[];
/** Compact ctp_global_unary_methods (once) and set the unary operator slots (-x, +x, abs(x),
 *  ~x). Before PyType_Ready. */
void ctp_global_unary_setup(PyNumberMethods *nb);

/** ctensor.sum / mean / prod / amax / amin / all / any / max / min (method = 0) or the
 *  GlobalTensor methods (method = 1, `self` the tensor) with a global input. */
PyObject *ctp_global_reduce_call(ct_reduce_op op, const char *name, int method, PyObject *self,
                                 PyObject *args, PyObject *kwargs);
extern PyMethodDef ctp_global_reduce_methods[];

/** ctensor.max / min / argmax / argmin (method = 0) or the GlobalTensor methods (method = 1,
 *  `self` the tensor) with a global input (dist_reduce_arg.c). */
PyObject *ctp_global_arg_call(int is_max, int with_values, int method, PyObject *self,
                              PyObject *args, PyObject *kwargs);
/** ctensor.cumsum / cumprod (prod) or the GlobalTensor methods with a global input. */
PyObject *ctp_global_cum_call(int prod, int method, PyObject *self, PyObject *args,
                              PyObject *kwargs);
/** GlobalTensor.max / min / argmax / argmin / cumsum / cumprod. */
extern PyMethodDef ctp_global_reduce_arg_methods[];

/** bool(x) of a GlobalTensor (dist_global.c): a one-element tensor's value, read on every
 *  rank (collective); PyTorch's RuntimeError for another number of elements, on every rank.
 *  1, 0, or -1 with an exception. */
int ctp_global_bool(PyObject *self);

/* ---- matrix products and joins (dist_linalg.c) ---------------------------------------------- */

/** ctensor.matmul / mm / bmm (self NULL; `name` the function's) or the GlobalTensor methods
 *  (`self` the tensor) when some operand is global. */
PyObject *ctp_global_matmul_call(const char *name, PyObject *self, PyObject *args,
                                 PyObject *kwargs);
/** x @ y with a GlobalTensor on either side (NotImplemented for non-tensors), and x @= y (an
 *  error: global tensors have no in-place forms). */
PyObject *ctp_global_matmul_operator(PyObject *a, PyObject *b);
PyObject *ctp_global_imatmul_operator(PyObject *a, PyObject *b);
/** Whether the tuple or list `seq` holds a GlobalTensor (cat and stack then take the global
 *  path). */
int ctp_dist_seq_has_global(PyObject *seq);
/** ctensor.cat / concat / concatenate (stack 0) or stack (stack 1) of a sequence holding a
 *  GlobalTensor: `dim` the parsed dim argument (NULL: 0), `out` the out= argument (NULL or
 *  None: none). */
PyObject *ctp_global_join_call(const char *name, int stack, PyObject *tensors, PyObject *dim,
                               PyObject *out);
/** GlobalTensor.matmul / mm / bmm. */
extern PyMethodDef ctp_global_linalg_methods[];

/* ---- local tensors and module functions (dist_tensor_methods.c) ---------------------------- */

/** Tensor attributes is_global, is_local, placement, sbp, is_consistent and methods
 *  to_global, local_to_global, global_to_global, to_local, to_consistent. */
extern PyGetSetDef ctp_dist_tensor_getset[];
extern PyMethodDef ctp_dist_tensor_methods[];

/** ctensor.to_global and ctensor.to_local. */
extern PyMethodDef ctp_dist_functions[];

/* ---- factories (dist_factories.c) ----------------------------------------------------------- */

/* placement= and sbp= of a factory call. */
struct ctp_dist_spec {
    PyObject *placement_obj; /* owned reference */
    const ct_placement *placement;
    ct_sbp sbp[CT_PLACEMENT_MAX_NDIM];
    int64_t n_sbp;
};

/** Take placement= and sbp= out of a factory's keyword arguments. 0 when neither is there
 *  (or both are None): *rest is `kwargs` (borrowed). 1 when they are: *rest is a new dict
 *  without them (and without a None device=) and *spec is filled (release it with
 *  ctp_dist_spec_clear). -1 with ValueError "placement and sbp must be given together",
 *  "device and placement cannot be given together", or the argument TypeErrors. */
int ctp_dist_take_spec(PyObject *kwargs, PyObject **rest, ctp_dist_spec *spec);
void ctp_dist_spec_clear(ctp_dist_spec *spec);

/** A GlobalTensor whose logical value is the local tensor object `local` (stolen; NULL is
 *  passed through): ct_global_from_tensor, the data taken from the placement's first rank. */
PyObject *ctp_dist_from_logical(PyObject *local, const ctp_dist_spec *spec);

/** zeros / ones / full / empty on a placement: `kind` 0 empty, 1 zeros, 2 ones, 3 full.
 *  dtype UNDEFINED is resolved as the local factories do. */
PyObject *ctp_dist_constant(int kind, const int64_t *sizes, int64_t ndim, ct_scalar value,
                            ct_dtype dtype, const ctp_dist_spec *spec);

#endif /* CTENSOR_DIST_PY_H */
