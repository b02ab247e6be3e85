/* Element-wise arithmetic from Python (include/ctensor/ops.h): the operators + - * / // and
 * their reflected and in-place forms, the functions ctensor.add / sub / subtract / mul /
 * multiply / div / divide / true_divide, the Tensor methods of the same names (and their
 * in-place forms), ctensor.set_num_threads / get_num_threads, and the warning handler that
 * turns the library's warnings into Python UserWarnings. Also (blocks of their own below)
 * the comparisons eq ne lt le gt ge with their aliases, in-place methods and the rich
 * comparisons == != < <= > >=; isnan-style classifications; maximum minimum fmax fmin;
 * isclose allclose equal.
 *
 * How PyTorch 1.13 binds them, and so this layer:
 *  - Python numbers (bool, int, float, complex, NumPy scalars) become "wrapped numbers"
 *    (ct_tensor_wrapped_number) wherever a Tensor operand may go; the C layer computes the
 *    result dtype. An int outside int64 raises RuntimeError "Overflow when unpacking long".
 *    A 0-dim NumPy array is an ordinary 0-dim tensor to the operators (not a wrapped number).
 *  - The operators answer NotImplemented for operands they do not take, and for any
 *    TypeError on the way (PyTorch's TypeError_to_NotImplemented_), so Python raises its own
 *    "unsupported operand type(s)" TypeError.
 *  - `other + t` is t.add(other), `other * t` t.mul(other), `other - t` is rsub (other - t
 *    with `other` a wrapped number), `other / t` is t.reciprocal() * other (PyTorch's
 *    __rdiv__: the reciprocal rounds once, then the product), `other // t` is
 *    floor_divide(other, t), and `t // other` floor_divide, i.e. div(rounding_mode='floor').
 *  - add and sub accept PyTorch's deprecated overload add(input, alpha, other), with its
 *    one-time UserWarning; the parser errors are those of PyTorch's parser (argparse.c), which
 *    ignores that hidden overload when it words an error.
 *  - Global tensors (CT_HAVE_DIST): a call or operator with a GlobalTensor operand goes to
 *    dist_arith.c, which raises for a local tensor mixed with a global one.
 *  - Every operation is one C call, ct_binary / ct_binary_out / ct_binary_ with the op of
 *    ctensor/ops.def, which routes sparse COO operands itself. An operator whose form the C
 *    layer does not implement for the operands' layouts (ct_binary_supports: `-` on sparse
 *    tensors) answers NotImplemented; the in-place operators then fall back to the
 *    out-of-place ones (so `s += t` rebinds s). The functions raise the C layer's error.
 *  - ops.def rows marked pyfunc get a function ctensor.<name> with the generic signature
 *    (input, other, *, alpha=1 when the op takes alpha).
 *
 * Warnings: the C library calls the handler installed here (ct_set_warning_handler), which
 * issues a UserWarning. When a warnings filter turns it into an exception, the exception is
 * kept (per thread) until the operation returns, and then raised instead of its result, as
 * PyTorch raises a warning that became an error after the operation.
 *
 * Speed: `a + b` (and -, *, /) of two exact ctensor.Tensor objects calls ct_add directly
 * and wraps the result; nothing else is allocated and no argument is parsed.
 */
#include <string.h>

#include "ctensor/ops.h"
#include "ctensor/parallel.h"
#include "ctensor/warning.h"
#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* the global path of the operators and functions */
#endif

/* ---- warnings ---------------------------------------------------------------------------- */

/* An exception a warnings filter made of a library warning, kept until the operation that
 * raised the warning returns. Per thread: a filter may run Python code that lets another
 * thread run its own operation meanwhile. `pending_count` (threads with one, guarded by the
 * GIL) lets the hot paths skip the thread-local lookup. */
static int pending_count;
static _Thread_local PyObject *pending_type, *pending_value, *pending_tb;

static void warning_handler(void *ctx, const char *message) {
    (void)ctx;
    PyGILState_STATE gil = PyGILState_Ensure();
    if (pending_type == NULL) { /* after a first failure the exception propagates: no more */
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb); /* an exception already set stays as it is */
        if (PyErr_WarnEx(PyExc_UserWarning, message, 1) < 0) {
            PyErr_Fetch(&pending_type, &pending_value, &pending_tb);
            if (pending_type == NULL) /* cannot happen; never lose the failure */
                pending_type = Py_NewRef(PyExc_RuntimeError);
            pending_count++;
        }
        PyErr_Restore(et, ev, etb);
    }
    PyGILState_Release(gil);
}

/* Whether the current thread has a pending warning exception. */
static inline int warning_pending(void) { return pending_count != 0 && pending_type != NULL; }

/* Raise the pending warning exception (raise != 0) or drop it. Returns NULL. */
static PyObject *take_pending(int raise) {
    if (pending_type == NULL)
        return NULL;
    PyObject *t = pending_type, *v = pending_value, *tb = pending_tb;
    pending_type = pending_value = pending_tb = NULL;
    pending_count--;
    if (raise) {
        PyErr_Restore(t, v, tb);
    } else {
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
    }
    return NULL;
}

/* Drop what a binding that does not check (ctp_warning_error) left behind, before a C call,
 * so that it is neither raised by nor suppresses the warnings of the next operation. */
static inline void drop_stale(void) {
    if (pending_count != 0)
        take_pending(0);
}

int ctp_warning_error(void) {
    if (!warning_pending())
        return 0;
    take_pending(1);
    return -1;
}

/* The outcome of a C call that made a new tensor `r`. Steals `r`. */
static PyObject *new_result(ct_status st, ct_tensor *r) {
    if (st != CT_OK) {
        take_pending(0); /* the operation's own error wins */
        ct_tensor_release(r);
        return ctp_raise_status(st);
    }
    if (warning_pending()) {
        ct_tensor_release(r);
        return take_pending(1);
    }
    return ctp_tensor_wrap(r);
}

/* The outcome of a C call that wrote into the tensor of `target` (out=, in-place). */
static PyObject *target_result(ct_status st, PyObject *target) {
    if (st != CT_OK) {
        take_pending(0);
        return ctp_raise_status(st);
    }
    if (warning_pending())
        return take_pending(1);
    return Py_NewRef(target);
}

/* ---- operands ---------------------------------------------------------------------------- */

/* A C tensor for an operand: borrowed from a Tensor object, or made here (owned). */
typedef struct {
    ct_tensor *t;
    int owned;
} operand;

static void operand_clear(operand *o) {
    if (o->owned)
        ct_tensor_release(o->t);
    o->t = NULL;
    o->owned = 0;
}

static int wrap_scalar(ct_scalar s, operand *o) {
    ct_status st = ct_tensor_wrapped_number(s, &o->t);
    if (st != CT_OK) {
        ctp_raise_status(st);
        return -1;
    }
    o->owned = 1;
    return 1;
}

static int overflow_error(void) {
    PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    return -1;
}

/* A Python or NumPy number as a wrapped number (PyTorch's THPUtils_checkScalar and
 * scalar_to_tensor): 1 with o set, 0 for anything else (no exception), -1 on error. */
static int number_operand(PyObject *obj, operand *o) {
    if (PyFloat_Check(obj)) /* also np.float64 */
        return wrap_scalar(ct_scalar_float(PyFloat_AsDouble(obj)), o);
    if (PyLong_Check(obj)) {
        if (PyBool_Check(obj))
            return wrap_scalar(ct_scalar_bool(obj == Py_True), o);
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow != 0)
            return overflow_error();
        return wrap_scalar(ct_scalar_int((int64_t)v), o);
    }
    if (PyComplex_Check(obj)) { /* also np.complex128 */
        Py_complex c = PyComplex_AsCComplex(obj);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        return wrap_scalar(ct_scalar_complex(c.real, c.imag), o);
    }
    if (PyUnicode_Check(obj) || PyTuple_Check(obj) || PyList_Check(obj) || obj == Py_None)
        return 0; /* common non-numbers: skip the NumPy look-ups */
    if (ctp_is_numpy_bool(obj)) {
        int b = PyObject_IsTrue(obj);
        return b < 0 ? -1 : wrap_scalar(ct_scalar_bool(b != 0), o);
    }
    if (ctp_type_has_base(obj, "numpy.integer")) {
        int64_t v;
        if (ctp_int64_of_arg(obj, &v) < 0)
            return -1;
        return wrap_scalar(ct_scalar_int(v), o);
    }
    if (ctp_type_has_base(obj, "numpy.floating")) {
        double v = PyFloat_AsDouble(obj);
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        return wrap_scalar(ct_scalar_float(v), o);
    }
    if (ctp_type_has_base(obj, "numpy.complexfloating")) {
        Py_complex c = PyComplex_AsCComplex(obj);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        return wrap_scalar(ct_scalar_complex(c.real, c.imag), o);
    }
    return 0;
}

/* A 0-dim NumPy array as an ordinary 0-dim tensor (not a wrapped number): 1, 0 (not one), or -1. */
static int numpy_0d_operand(PyObject *obj, operand *o) {
    if (!ctp_type_has_base(obj, "numpy.ndarray"))
        return 0;
    PyObject *ndim = PyObject_GetAttrString(obj, "ndim");
    if (ndim == NULL)
        return -1;
    long n = PyLong_AsLong(ndim);
    Py_DECREF(ndim);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (n != 0)
        return 0;
    PyObject *t = ctp_tensor_from_data(obj, CT_DTYPE_UNDEFINED, NULL);
    if (t == NULL)
        return -1;
    o->t = ct_tensor_retain(ctp_tensor_get(t));
    o->owned = 1;
    Py_DECREF(t);
    return 1;
}

/* An operand of an operator: a Tensor, a number, or a 0-dim NumPy array. */
static int operator_operand(PyObject *obj, operand *o) {
    o->t = ctp_tensor_get(obj);
    o->owned = 0;
    if (o->t != NULL)
        return 1;
    int k = number_operand(obj, o);
    return k != 0 ? k : numpy_0d_operand(obj, o);
}

/* A Tensor parameter that takes numbers (PyTorch's allow_numbers_as_tensors): the parser let
 * only tensors and numbers through. -1 with an exception, else 1. */
static int tensor_param(PyObject *obj, operand *o) {
    int k = operator_operand(obj, o);
    if (k == 0) /* not reached through the parser */
        PyErr_Format(PyExc_TypeError, "expected a Tensor or a Number, not %s",
                     Py_TYPE(obj)->tp_name);
    return k == 0 ? -1 : k;
}

/* A Number (Scalar) parameter as a wrapped number: a tensor gives its value. */
static int scalar_param(PyObject *obj, operand *o) {
    if (ctp_tensor_check(obj)) {
        ct_scalar s;
        if (ctp_scalar_of_arg(obj, &s) < 0)
            return -1;
        return wrap_scalar(s, o);
    }
    return tensor_param(obj, o);
}

/* ---- the operations ---------------------------------------------------------------------- */

typedef struct arith_spec {
    ct_op op;
    ct_scalar alpha; /* ops with alpha */
} arith_spec;

/* a op b into a new tensor, into `out` (an object, or NULL), or into `self_obj` (in-place,
 * a being its tensor). */
static PyObject *compute(const arith_spec *s, const operand *a, const operand *b, PyObject *out,
                         PyObject *self_obj) {
    drop_stale();
    if (self_obj != NULL)
        return target_result(ct_binary_(s->op, a->t, b->t, s->alpha), self_obj);
    if (out != NULL)
        return target_result(ct_binary_out(s->op, a->t, b->t, s->alpha, ctp_tensor_get(out)),
                             out);
    ct_tensor *r = NULL;
    ct_status st = ct_binary(s->op, a->t, b->t, s->alpha, &r);
    return new_result(st, r);
}

/* ---- operators --------------------------------------------------------------------------- */

/* PyTorch wraps every operator in TypeError_to_NotImplemented_. */
static PyObject *type_error_to_not_implemented(PyObject *r) {
    if (r == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return r;
}

/* other / t as PyTorch's __rdiv__ (ct_rdiv). */
static PyObject *reflected_div(const operand *self, const operand *other) {
    ct_tensor *r = NULL;
    drop_stale();
    ct_status st = ct_rdiv(self->t, other->t, &r);
    return new_result(st, r);
}

/* An operator: `d` is the op whose symbol it is (ops.def), CT_OP_DIV_FLOOR for `//`. */
static PyObject *binary_slow(ct_op d, PyObject *a, PyObject *b) {
#ifdef CT_HAVE_DIST
    if (ctp_global_check(a) || ctp_global_check(b)) /* a local tensor with a global one */
        return ctp_global_binary(d, a, b);
#endif
    const int reflected = !ctp_tensor_check(a);
    PyObject *self_obj = reflected ? b : a;
    operand self = {ctp_tensor_get(self_obj), 0}, other;
    if (self.t == NULL) /* neither operand is a tensor: not called that way */
        Py_RETURN_NOTIMPLEMENTED;
    int k = operator_operand(reflected ? a : b, &other);
    if (k <= 0)
        return type_error_to_not_implemented(k < 0 ? NULL : Py_NewRef(Py_NotImplemented));
    arith_spec s = {d, ct_scalar_int(1)};
    const operand *x = &self, *y = &other;
    /* other + t is t.add(other), other * t t.mul(other); other - t is rsub(t, other) =
     * sub(other, t), other // t floor_divide(other, t) */
    if (reflected && d != CT_OP_ADD && d != CT_OP_MUL && d != CT_OP_DIV) {
        /* (and 2 ** t is pow(2, t), 2 % t remainder(2, t), 2 << t ... : every other row) */
        x = &other;
        y = &self;
    }
    PyObject *r;
    if (!ct_binary_supports(d, CT_OP_FORM_NEW, x->t, y->t))
        r = Py_NewRef(Py_NotImplemented);
    else if (d == CT_OP_DIV && reflected)
        r = reflected_div(&self, &other);
    else
        r = compute(&s, x, y, NULL, NULL);
    operand_clear(&other);
    return type_error_to_not_implemented(r);
}

static PyObject *inplace_slow(ct_op d, PyObject *a, PyObject *b) {
#ifdef CT_HAVE_DIST
    if (ctp_global_check(b))
        return ctp_global_binary(d, a, b);
#endif
    operand self = {ctp_tensor_get(a), 0}, other;
    if (self.t == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    int k = operator_operand(b, &other);
    if (k <= 0)
        return type_error_to_not_implemented(k < 0 ? NULL : Py_NewRef(Py_NotImplemented));
    if (!ct_binary_supports(d, CT_OP_FORM_INPLACE, self.t, other.t)) {
        /* Python falls back to the out-of-place operator, as before in-place existed */
        operand_clear(&other);
        Py_RETURN_NOTIMPLEMENTED;
    }
    arith_spec s = {d, ct_scalar_int(1)};
    PyObject *r = compute(&s, &self, &other, NULL, a);
    operand_clear(&other);
    return type_error_to_not_implemented(r);
}

/* The fast path: two exact ctensor.Tensor objects whose layouts the op takes. */
#define EXACT_TENSORS(a, b) (Py_IS_TYPE(a, &ctp_tensor_type) && Py_IS_TYPE(b, &ctp_tensor_type))
#define TENSOR_OF(o) (((ctp_tensor_object *)(o))->tensor)

static inline PyObject *fast_result(ct_status st, ct_tensor *r) {
    if (st == CT_OK && pending_count == 0)
        return ctp_tensor_wrap(r);
    return new_result(st, r);
}

/* x op y: the fast path for two exact tensors, else binary_slow. Inlined with a constant
 * op in each slot below. */
static inline PyObject *operator_call(ct_op op, PyObject *a, PyObject *b) {
    if (EXACT_TENSORS(a, b)) {
        const ct_tensor *x = TENSOR_OF(a), *y = TENSOR_OF(b);
        if (ct_binary_supports(op, CT_OP_FORM_NEW, x, y)) {
            ct_tensor *r = NULL;
            drop_stale();
            ct_status st = ct_binary(op, x, y, ct_scalar_int(1), &r);
            return fast_result(st, r);
        }
    }
    return binary_slow(op, a, b);
}

static PyObject *nb_add(PyObject *a, PyObject *b) { return operator_call(CT_OP_ADD, a, b); }
static PyObject *nb_subtract(PyObject *a, PyObject *b) { return operator_call(CT_OP_SUB, a, b); }
static PyObject *nb_multiply(PyObject *a, PyObject *b) { return operator_call(CT_OP_MUL, a, b); }
static PyObject *nb_true_divide(PyObject *a, PyObject *b) { return operator_call(CT_OP_DIV, a, b); }
static PyObject *nb_floor_divide(PyObject *a, PyObject *b) { return binary_slow(CT_OP_DIV_FLOOR, a, b); }

static PyObject *nb_inplace_add(PyObject *a, PyObject *b) { return inplace_slow(CT_OP_ADD, a, b); }
static PyObject *nb_inplace_subtract(PyObject *a, PyObject *b) { return inplace_slow(CT_OP_SUB, a, b); }
static PyObject *nb_inplace_multiply(PyObject *a, PyObject *b) { return inplace_slow(CT_OP_MUL, a, b); }
static PyObject *nb_inplace_true_divide(PyObject *a, PyObject *b) {
    return inplace_slow(CT_OP_DIV, a, b);
}
static PyObject *nb_inplace_floor_divide(PyObject *a, PyObject *b) {
    return inplace_slow(CT_OP_DIV_FLOOR, a, b);
}

void ctp_arith_number_slots(PyNumberMethods *nb) {
    nb->nb_add = nb_add;
    nb->nb_subtract = nb_subtract;
    nb->nb_multiply = nb_multiply;
    nb->nb_true_divide = nb_true_divide;
    nb->nb_floor_divide = nb_floor_divide;
    nb->nb_inplace_add = nb_inplace_add;
    nb->nb_inplace_subtract = nb_inplace_subtract;
    nb->nb_inplace_multiply = nb_inplace_multiply;
    nb->nb_inplace_true_divide = nb_inplace_true_divide;
    nb->nb_inplace_floor_divide = nb_inplace_floor_divide;
    ctp_binary_number_slots(nb); /* ** % & | ^ << >> (tensor_binary.c) */
}

PyObject *ctp_arith_operator(ct_op op, PyObject *a, PyObject *b) { return binary_slow(op, a, b); }
PyObject *ctp_arith_inplace_operator(ct_op op, PyObject *a, PyObject *b) {
    return inplace_slow(op, a, b);
}

/* ---- argument parsing -------------------------------------------------------------------- */

/* A function's signatures as PyTorch 1.13 declares them: the visible ones, in order, and a
 * hidden deprecated one tried after them (add and sub). */
typedef struct arith_parser {
    const char *name;
    const ctp_signature *sigs;
    int nsigs;
    const ctp_signature *hidden;
} arith_parser;

static int param_is_optional(const ctp_param *p) { return strchr(p->name, '=') != NULL; }

/* PythonArgParser::print_error counts a visible signature plausible when the number of
 * arguments lies within its bounds. */
static int is_plausible(const ctp_signature *sig, Py_ssize_t nargs) {
    int nmin = 0;
    for (int i = 0; i < sig->nparams; i++)
        nmin += !param_is_optional(&sig->params[i]);
    return nmin <= nargs && nargs <= sig->nparams;
}

/* "Tensor other, *, Number alpha = 1", as argparse.c prints a signature (newest PyTorch's
 * defaults included when `defaults`). New reference. */
static PyObject *signature_text(const ctp_signature *sig, int defaults) {
    PyObject *text = PyUnicode_FromString("");
    for (int i = 0; text != NULL && i < sig->nparams; i++) {
        const ctp_param *p = &sig->params[i];
        char name[64];
        const char *dflt = strchr(p->name, '=');
        PyObject *more = PyUnicode_FromFormat(
            "%U%s%s%s %s%s%s", text, i > 0 ? ", " : "", p->name[0] == '*' ? "*, " : "",
            ctp_param_kind_name(p->kind), ctp_param_name(p, name),
            dflt != NULL && defaults ? " = " : "", dflt != NULL && defaults ? dflt + 1 : "");
        Py_SETREF(text, more);
    }
    return text;
}

/* PyTorch's format_invalid_args for a single visible signature: "add() received an invalid
 * combination of arguments - got (str), but expected (Tensor input, ...)"; the arguments
 * are marked !type! where they do not match when their count is the signature's printed
 * parameter count ('*' included). Type names match by name, ctensor's Tensor as "Tensor". */
static void raise_single_invalid(const char *fname, const ctp_signature *sig, PyObject *args,
                                 PyObject *kwargs) {
    const ctp_param *printed[CTP_MAX_PARAMS * 2];
    int nprinted = 0;
    for (int i = 0; i < sig->nparams; i++) {
        if (sig->params[i].name[0] == '*')
            printed[nprinted++] = NULL;
        printed[nprinted++] = &sig->params[i];
    }
    Py_ssize_t nargs = PyTuple_GET_SIZE(args), nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    const int marked = nargs + nkw == nprinted;
    PyObject *desc = PyUnicode_FromString("");
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; desc != NULL && i < nargs + nkw; i++) {
        const ctp_param *p = i < nprinted ? printed[i] : NULL;
        PyObject *arg, *key = NULL;
        if (i < nargs) {
            arg = PyTuple_GET_ITEM(args, i);
        } else if (!PyDict_Next(kwargs, &pos, &key, &arg)) {
            break;
        }
        const char *tname = ctp_tensor_check(arg) ? "Tensor" : Py_TYPE(arg)->tp_name;
        int ok = !marked || (p != NULL && strcmp(tname, ctp_param_kind_name(p->kind)) == 0);
        PyObject *more =
            key != NULL
                ? PyUnicode_FromFormat("%U%s%s%U=%s%s", desc, i > 0 ? ", " : "", ok ? "" : "!", key,
                                       Py_TYPE(arg)->tp_name, ok ? "" : "!")
                : PyUnicode_FromFormat("%U%s%s%s%s", desc, i > 0 ? ", " : "", ok ? "" : "!",
                                       Py_TYPE(arg)->tp_name, ok ? "" : "!");
        Py_SETREF(desc, more);
    }
    PyObject *sigtext = desc != NULL ? signature_text(sig, 1) : NULL;
    if (sigtext != NULL)
        PyErr_Format(PyExc_TypeError,
                     "%s() received an invalid combination of arguments - got (%U), but "
                     "expected (%U)",
                     fname, desc, sigtext);
    Py_XDECREF(desc);
    Py_XDECREF(sigtext);
}

/* PyTorch's one-time warning for a deprecated overload. 0, or -1 with an exception. */
static int warn_deprecated(const arith_parser *p) {
    static int warned;
    if (warned)
        return 0;
    warned = 1;
    PyObject *old = signature_text(p->hidden, 0), *new = signature_text(&p->sigs[0], 0);
    int rc = -1;
    if (old != NULL && new != NULL) {
        PyObject *msg = PyUnicode_FromFormat(
            "This overload of %s is deprecated:\n\t%s(%U)\nConsider using one of the following "
            "signatures instead:\n\t%s(%U)",
            p->name, p->name, old, p->name, new);
        if (msg != NULL) {
            const char *text = PyUnicode_AsUTF8(msg);
            rc = text == NULL ? -1 : PyErr_WarnEx(PyExc_UserWarning, text, 1);
            Py_DECREF(msg);
        }
    }
    Py_XDECREF(old);
    Py_XDECREF(new);
    return rc;
}

/* The index of the signature that matched (p->nsigs for the hidden one), or -1 with
 * PyTorch's TypeError. */
static int parse(const arith_parser *p, PyObject *args, PyObject *kwargs,
                 PyObject *out[CTP_MAX_PARAMS]) {
    int k = ctp_parse_args(p->name, p->sigs, p->nsigs, args, kwargs, out);
    if (k >= 0 || p->hidden == NULL)
        return k;
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    if (ctp_parse_args(p->name, p->hidden, 1, args, kwargs, out) >= 0) {
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(etb);
        return warn_deprecated(p) < 0 ? -1 : p->nsigs;
    }
    PyErr_Clear();
    Py_ssize_t nargs = PyTuple_GET_SIZE(args) + (kwargs ? PyDict_GET_SIZE(kwargs) : 0);
    if (p->nsigs == 1 && !is_plausible(&p->sigs[0], nargs) &&
        PyErr_GivenExceptionMatches(et, PyExc_TypeError)) {
        /* no visible signature is plausible: PyTorch lists the (single) visible one */
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(etb);
        raise_single_invalid(p->name, &p->sigs[0], args, kwargs);
        return -1;
    }
    PyErr_Restore(et, ev, etb);
    return -1;
}

/* ---- signatures (PyTorch 1.13's, in its order) ------------------------------------------- */

#define TON CTP_PARAM_TENSOR_OR_NUMBER
#define NUM CTP_PARAM_NUMBER
#define TEN CTP_PARAM_TENSOR
#define STR CTP_PARAM_STRING

/* torch.add / torch.sub (and the Tensor methods without input / out) */
static const ctp_signature fn_add_sigs[] = {
    {4, {{TON, "input"}, {TON, "other"}, {NUM, "*alpha=1"}, {TEN, "out=None"}}},
};
static const ctp_signature fn_add_hidden = {
    4, {{TON, "input"}, {NUM, "alpha"}, {TON, "other"}, {TEN, "*out=None"}}};
static const ctp_signature fn_subtract_sigs[] = {
    {4, {{TON, "input"}, {TON, "other"}, {NUM, "*alpha=1"}, {TEN, "out=None"}}},
    {3, {{TON, "input"}, {NUM, "other"}, {NUM, "alpha=1"}}},
};
static const ctp_signature fn_mul_sigs[] = {
    {3, {{TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
};
static const ctp_signature fn_multiply_sigs[] = {
    {3, {{TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
    {2, {{TON, "input"}, {NUM, "other"}}},
};
static const ctp_signature fn_div_sigs[] = {
    {3, {{TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
    {4, {{TON, "input"}, {TON, "other"}, {STR, "*rounding_mode?"}, {TEN, "out=None"}}},
    {3, {{TON, "input"}, {NUM, "other"}, {STR, "*rounding_mode?"}}},
};
static const ctp_signature fn_divide_sigs[] = {
    {3, {{TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
    {4, {{TON, "input"}, {TON, "other"}, {STR, "*rounding_mode?"}, {TEN, "out=None"}}},
    {2, {{TON, "input"}, {NUM, "other"}}},
    {3, {{TON, "input"}, {NUM, "other"}, {STR, "*rounding_mode?"}}},
};
static const ctp_signature fn_true_divide_sigs[] = {
    {3, {{TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
    {2, {{TON, "input"}, {NUM, "other"}}},
};

static const ctp_signature m_add_sigs[] = {
    {2, {{TON, "other"}, {NUM, "*alpha=1"}}},
};
static const ctp_signature m_add_hidden = {2, {{NUM, "alpha"}, {TON, "other"}}};
static const ctp_signature m_subtract_sigs[] = {
    {2, {{TON, "other"}, {NUM, "*alpha=1"}}},
    {2, {{NUM, "other"}, {NUM, "alpha=1"}}},
};
static const ctp_signature m_mul_sigs[] = {
    {1, {{TON, "other"}}},
};
static const ctp_signature m_multiply_sigs[] = {
    {1, {{TON, "other"}}},
    {1, {{NUM, "other"}}},
};
static const ctp_signature m_div_sigs[] = {
    {1, {{TON, "other"}}},
    {2, {{TON, "other"}, {STR, "*rounding_mode?"}}},
    {2, {{NUM, "other"}, {STR, "*rounding_mode?"}}},
};
static const ctp_signature m_divide_sigs[] = {
    {1, {{TON, "other"}}},
    {2, {{TON, "other"}, {STR, "*rounding_mode?"}}},
    {1, {{NUM, "other"}}},
    {2, {{NUM, "other"}, {STR, "*rounding_mode?"}}},
};
static const ctp_signature m_true_divide_sigs[] = {
    {1, {{TON, "other"}}},
    {1, {{NUM, "other"}}},
};

#define NSIGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- functions and methods --------------------------------------------------------------- */

/* What one function or method is: its op, its parser, and whether it is a method and
 * in-place. */
typedef struct arith_entry {
    ct_op op; /* div's rows: CT_OP_DIV, the rounding mode picks the row */
    arith_parser parser;
    int method, inplace;
} arith_entry;

/* rounding_mode: None, 'trunc' or 'floor' (str or bytes); PyTorch's RuntimeError for any
 * other string. 0, or -1 with an exception. */
static int rounding_mode_of(PyObject *obj, ct_rounding_mode *mode) {
    *mode = CT_ROUNDING_NONE;
    if (obj == NULL)
        return 0;
    const char *s;
    Py_ssize_t n;
    if (PyBytes_Check(obj)) {
        s = PyBytes_AS_STRING(obj);
        n = PyBytes_GET_SIZE(obj);
    } else if ((s = PyUnicode_AsUTF8AndSize(obj, &n)) == NULL) {
        return -1;
    }
    if (n == 5 && memcmp(s, "trunc", 5) == 0) {
        *mode = CT_ROUNDING_TRUNC;
        return 0;
    }
    if (n == 5 && memcmp(s, "floor", 5) == 0) {
        *mode = CT_ROUNDING_FLOOR;
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                 "'%s'",
                 s);
    return -1;
}

/* The parsed arguments of a signature by role. The names are known ("input", "other",
 * "alpha", "out", "rounding_mode", with '*' or a default), so a look at their first
 * letters places them; ctp_arg's general look-up costs more than a small operation. */
typedef struct roles {
    PyObject *input, *other, *alpha, *out, *rounding_mode;
    int other_is_scalar;
} roles;

static void roles_of(const ctp_signature *sig, PyObject *const *parsed, roles *r) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < sig->nparams; i++) {
        const ctp_param *p = &sig->params[i];
        const char *name = p->name + (p->name[0] == '*');
        switch (name[0]) {
        case 'i':
        case 's': /* "Scalar self" (pow, remainder, bitwise_and: a number first) */
            r->input = parsed[i];
            break;
        case 'e': /* pow's "exponent" */
            r->other = parsed[i];
            r->other_is_scalar = p->kind == NUM;
            break;
        case 'a':
            r->alpha = parsed[i];
            break;
        case 'r':
            r->rounding_mode = parsed[i];
            break;
        default: /* "other" or "out" */
            if (name[1] == 't') {
                r->other = parsed[i];
                r->other_is_scalar = p->kind == NUM;
            } else {
                r->out = parsed[i];
            }
            break;
        }
    }
}

static PyObject *arith_call(const arith_entry *e, PyObject *self, PyObject *args,
                            PyObject *kwargs) {
    PyObject *parsed[CTP_MAX_PARAMS];
    const arith_parser *p = &e->parser;
#ifdef CT_HAVE_DIST
    if (ctp_dist_any_global(e->method ? self : NULL, args, kwargs))
        return ctp_global_arith_call(e->op, p->name, e->method, e->inplace, self, args,
                                     kwargs);
#endif
    int k = parse(p, args, kwargs, parsed);
    if (k < 0)
        return NULL;
    roles arg = {0};
    roles_of(k < p->nsigs ? &p->sigs[k] : p->hidden, parsed, &arg);
    PyObject *input = e->method ? self : arg.input;

    arith_spec s = {e->op, ct_scalar_int(1)};
    operand a = {NULL, 0}, b = {NULL, 0};
    PyObject *r = NULL;
    if (tensor_param(input, &a) < 0)
        goto done;
    if ((arg.other_is_scalar ? scalar_param(arg.other, &b) : tensor_param(arg.other, &b)) < 0)
        goto done;
    if (arg.alpha != NULL && ctp_int64_scalar_of_arg(arg.alpha, &s.alpha) < 0)
        goto done;
    if (arg.rounding_mode != NULL) {
        ct_rounding_mode mode;
        ct_status st;
        if (rounding_mode_of(arg.rounding_mode, &mode) < 0)
            goto done;
        if ((st = ct_op_div(mode, &s.op)) != CT_OK) {
            ctp_raise_status(st);
            goto done;
        }
    }
    r = compute(&s, &a, &b, arg.out, e->inplace ? self : NULL);
done:
    operand_clear(&a);
    operand_clear(&b);
    return r;
}

PyObject *ctp_arith_call_op(ct_op op, const char *name, const ctp_signature *sigs, int nsigs,
                           int method, int inplace, PyObject *self, PyObject *args,
                           PyObject *kwargs) {
    const arith_entry e = {op, {name, sigs, nsigs, NULL}, method, inplace};
    return arith_call(&e, self, args, kwargs);
}

/* One C function per entry (PyMethodDef has no closure). */
#define ARITH_FUNCTION(cname, op, name, sigs, hidden, method, inplace)                             \
    static const arith_entry cname##_entry = {                                                     \
        op, {name, sigs, NSIGS(sigs), hidden}, method, inplace};                                   \
    static PyObject *cname(PyObject *self, PyObject *args, PyObject *kwargs) {                     \
        return arith_call(&cname##_entry, self, args, kwargs);                                     \
    }

ARITH_FUNCTION(fn_add, CT_OP_ADD, "add", fn_add_sigs, &fn_add_hidden, 0, 0)
ARITH_FUNCTION(fn_sub, CT_OP_SUB, "sub", fn_add_sigs, &fn_add_hidden, 0, 0)
ARITH_FUNCTION(fn_subtract, CT_OP_SUB, "subtract", fn_subtract_sigs, NULL, 0, 0)
ARITH_FUNCTION(fn_mul, CT_OP_MUL, "mul", fn_mul_sigs, NULL, 0, 0)
ARITH_FUNCTION(fn_multiply, CT_OP_MUL, "multiply", fn_multiply_sigs, NULL, 0, 0)
ARITH_FUNCTION(fn_div, CT_OP_DIV, "div", fn_div_sigs, NULL, 0, 0)
ARITH_FUNCTION(fn_divide, CT_OP_DIV, "divide", fn_divide_sigs, NULL, 0, 0)
ARITH_FUNCTION(fn_true_divide, CT_OP_DIV, "true_divide", fn_true_divide_sigs, NULL, 0, 0)

ARITH_FUNCTION(m_add, CT_OP_ADD, "add", m_add_sigs, &m_add_hidden, 1, 0)
ARITH_FUNCTION(m_add_, CT_OP_ADD, "add_", m_add_sigs, &m_add_hidden, 1, 1)
ARITH_FUNCTION(m_sub, CT_OP_SUB, "sub", m_add_sigs, &m_add_hidden, 1, 0)
ARITH_FUNCTION(m_sub_, CT_OP_SUB, "sub_", m_add_sigs, &m_add_hidden, 1, 1)
ARITH_FUNCTION(m_subtract, CT_OP_SUB, "subtract", m_subtract_sigs, NULL, 1, 0)
ARITH_FUNCTION(m_subtract_, CT_OP_SUB, "subtract_", m_subtract_sigs, NULL, 1, 1)
ARITH_FUNCTION(m_mul, CT_OP_MUL, "mul", m_mul_sigs, NULL, 1, 0)
ARITH_FUNCTION(m_mul_, CT_OP_MUL, "mul_", m_mul_sigs, NULL, 1, 1)
ARITH_FUNCTION(m_multiply, CT_OP_MUL, "multiply", m_multiply_sigs, NULL, 1, 0)
ARITH_FUNCTION(m_multiply_, CT_OP_MUL, "multiply_", m_multiply_sigs, NULL, 1, 1)
ARITH_FUNCTION(m_div, CT_OP_DIV, "div", m_div_sigs, NULL, 1, 0)
ARITH_FUNCTION(m_div_, CT_OP_DIV, "div_", m_div_sigs, NULL, 1, 1)
ARITH_FUNCTION(m_divide, CT_OP_DIV, "divide", m_divide_sigs, NULL, 1, 0)
ARITH_FUNCTION(m_divide_, CT_OP_DIV, "divide_", m_divide_sigs, NULL, 1, 1)
ARITH_FUNCTION(m_true_divide, CT_OP_DIV, "true_divide", m_true_divide_sigs, NULL, 1, 0)
ARITH_FUNCTION(m_true_divide_, CT_OP_DIV, "true_divide_", m_true_divide_sigs, NULL, 1, 1)

/* ---- comparisons: eq ne lt le gt ge ------------------------------------------------------------
 * PyTorch 1.13's signatures: (Tensor input, Tensor other, *, Tensor out) and (Tensor input,
 * Number other, *, Tensor out); the aliases greater, greater_equal, less, less_equal and
 * not_equal; the Tensor methods and their in-place forms (self keeps its dtype); the rich
 * comparisons `== != < <= > >=` (below, ctp_compare_type_slots), which return tensors. */
static const ctp_signature fn_cmp_sigs[] = {
    {3, {{TON, "input"}, {TON, "other"}, {TEN, "*out=None"}}},
    {3, {{TON, "input"}, {NUM, "other"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_cmp_sigs[] = {
    {1, {{TON, "other"}}},
    {1, {{NUM, "other"}}},
};

#define COMPARE_FUNCTIONS(alias, E)                                                         \
    ARITH_FUNCTION(fn_##alias, CT_OP_##E, #alias, fn_cmp_sigs, NULL, 0, 0)                         \
    ARITH_FUNCTION(m_##alias, CT_OP_##E, #alias, m_cmp_sigs, NULL, 1, 0)                           \
    ARITH_FUNCTION(m_##alias##_, CT_OP_##E, #alias "_", m_cmp_sigs, NULL, 1, 1)
COMPARE_FUNCTIONS(eq, EQ)
COMPARE_FUNCTIONS(ne, NE)
COMPARE_FUNCTIONS(lt, LT)
COMPARE_FUNCTIONS(le, LE)
COMPARE_FUNCTIONS(gt, GT)
COMPARE_FUNCTIONS(ge, GE)
COMPARE_FUNCTIONS(not_equal, NE)
COMPARE_FUNCTIONS(less, LT)
COMPARE_FUNCTIONS(less_equal, LE)
COMPARE_FUNCTIONS(greater, GT)
COMPARE_FUNCTIONS(greater_equal, GE)

#define COMPARE_FN_DEF(alias)                                                                      \
    {#alias, CTP_KW_FUNC(fn_##alias), METH_VARARGS | METH_KEYWORDS,                                \
     #alias "(input, other, *, out=None) -> Tensor\n\nElement-wise comparison; a bool tensor."},
#define COMPARE_METHOD_DEFS(alias)                                                                 \
    {#alias, CTP_KW_FUNC(m_##alias), METH_VARARGS | METH_KEYWORDS,                                 \
     #alias "(other) -> Tensor\n\nElement-wise comparison; a bool tensor."},                         \
    {#alias "_", CTP_KW_FUNC(m_##alias##_), METH_VARARGS | METH_KEYWORDS,                          \
     #alias "_(other) -> Tensor\n\nIn-place comparison: self keeps its dtype."},
#define COMPARE_NAMES(X)                                                                           \
    X(eq) X(ne) X(lt) X(le) X(gt) X(ge) X(not_equal) X(less) X(less_equal) X(greater)              \
    X(greater_equal)



/* t == other etc.: Python has already swapped the operation for a reflected comparison
 * (2 < t is t > 2), so `a` is the tensor here. Operands other than tensors and numbers give
 * NotImplemented: `t == None` is then False by identity, `t < "x"` Python's TypeError. */
static PyObject *tensor_richcompare(PyObject *a, PyObject *b, int op) {
    static const ct_op rows[] = {[Py_LT] = CT_OP_LT, [Py_LE] = CT_OP_LE, [Py_EQ] = CT_OP_EQ,
                                 [Py_NE] = CT_OP_NE, [Py_GT] = CT_OP_GT, [Py_GE] = CT_OP_GE};
    if (op < 0 || op > Py_GE)
        Py_RETURN_NOTIMPLEMENTED;
    return operator_call(rows[op], a, b);
}

/* hash(t) is id(t), as torch.Tensor.__hash__: a type with its own rich comparison needs its
 * own hash, or Python makes it unhashable. */
static Py_hash_t tensor_hash(PyObject *self) { return (Py_hash_t)(intptr_t)self; }

void ctp_compare_type_slots(PyTypeObject *type) {
    type->tp_richcompare = tensor_richcompare;
    type->tp_hash = tensor_hash;
}

/* ---- classification: isnan isinf isfinite isposinf isneginf isreal ------------------------------
 * (Tensor input) -> Tensor; isposinf / isneginf also take out=. Methods without arguments. */
typedef ct_status (*classify_fn)(const ct_tensor *t, ct_tensor **out);
typedef ct_status (*classify_out_fn)(const ct_tensor *t, ct_tensor *out);

static const ctp_signature fn_classify_sig = {1, {{TEN, "input"}}};
static const ctp_signature fn_classify_out_sig = {2, {{TEN, "input"}, {TEN, "*out=None"}}};
static const ctp_signature m_classify_sig = {0, {{0, NULL}}};

static PyObject *classify_call(const char *name, classify_fn fn, classify_out_fn fn_out,
                               PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *parsed[CTP_MAX_PARAMS];
    const ctp_signature *sig = self != NULL        ? &m_classify_sig
                               : fn_out != NULL    ? &fn_classify_out_sig
                                                   : &fn_classify_sig;
    if (ctp_parse_args(name, sig, 1, args, kwargs, parsed) < 0)
        return NULL;
    PyObject *input = self != NULL ? self : parsed[0];
    PyObject *out = self == NULL && fn_out != NULL ? parsed[1] : NULL;
    drop_stale();
    if (out != NULL && out != Py_None)
        return target_result(fn_out(ctp_tensor_get(input), ctp_tensor_get(out)), out);
    ct_tensor *r = NULL;
    ct_status st = fn(ctp_tensor_get(input), &r);
    return new_result(st, r);
}

#define CLASSIFY_FUNCTIONS(name, out_fn)                                                           \
    static PyObject *fn_##name(PyObject *module, PyObject *args, PyObject *kwargs) {               \
        (void)module;                                                                              \
        return classify_call(#name, ct_##name, out_fn, NULL, args, kwargs);                        \
    }                                                                                              \
    static PyObject *m_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                  \
        return classify_call(#name, ct_##name, out_fn, self, args, kwargs);                        \
    }
CLASSIFY_FUNCTIONS(isnan, NULL)
CLASSIFY_FUNCTIONS(isinf, NULL)
CLASSIFY_FUNCTIONS(isfinite, NULL)
CLASSIFY_FUNCTIONS(isreal, NULL)
CLASSIFY_FUNCTIONS(isposinf, ct_isposinf_out)
CLASSIFY_FUNCTIONS(isneginf, ct_isneginf_out)
#define CLASSIFY_NAMES(X) X(isnan) X(isinf) X(isfinite) X(isreal) X(isposinf) X(isneginf)

/* ---- maximum minimum fmax fmin: (Tensor input, Tensor other, *, Tensor out), methods
 * (Tensor other); no in-place forms (PyTorch has none) */
static const ctp_signature fn_minmax_sigs[] = {
    {3, {{TEN, "input"}, {TEN, "other"}, {TEN, "*out=None"}}},
};
static const ctp_signature m_minmax_sigs[] = {
    {1, {{TEN, "other"}}},
};
#define MINMAX_FUNCTIONS(name, E)                                                                  \
    ARITH_FUNCTION(fn_##name, CT_OP_##E, #name, fn_minmax_sigs, NULL, 0, 0)                        \
    ARITH_FUNCTION(m_##name, CT_OP_##E, #name, m_minmax_sigs, NULL, 1, 0)
MINMAX_FUNCTIONS(maximum, MAXIMUM)
MINMAX_FUNCTIONS(minimum, MINIMUM)
MINMAX_FUNCTIONS(fmax, FMAX)
MINMAX_FUNCTIONS(fmin, FMIN)
#define MINMAX_NAMES(X) X(maximum) X(minimum) X(fmax) X(fmin)

/* ---- isclose allclose equal: (Tensor input, Tensor other, float rtol=1e-05, float
 * atol=1e-08, bool equal_nan=False); equal(Tensor input, Tensor other) -> bool */
static const ctp_signature fn_close_sig = {
    5, {{TEN, "input"}, {TEN, "other"}, {NUM, "rtol=1e-05"}, {NUM, "atol=1e-08"},
        {CTP_PARAM_BOOL, "equal_nan=False"}}};
static const ctp_signature m_close_sig = {
    4, {{TEN, "other"}, {NUM, "rtol=1e-05"}, {NUM, "atol=1e-08"},
        {CTP_PARAM_BOOL, "equal_nan=False"}}};
static const ctp_signature fn_equal_sig = {2, {{TEN, "input"}, {TEN, "other"}}};
static const ctp_signature m_equal_sig = {1, {{TEN, "other"}}};

static int double_arg(PyObject *obj, double dflt, double *out) {
    *out = dflt;
    if (obj == NULL || obj == Py_None)
        return 0;
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred())
        return -1;
    *out = v;
    return 0;
}

static PyObject *close_call(const char *name, int all, PyObject *self, PyObject *args,
                            PyObject *kwargs) {
    PyObject *parsed[CTP_MAX_PARAMS];
    const ctp_signature *sig = self != NULL ? &m_close_sig : &fn_close_sig;
    if (ctp_parse_args(name, sig, 1, args, kwargs, parsed) < 0)
        return NULL;
    PyObject *const *p = self != NULL ? parsed - 1 : parsed; /* p[1] is other */
    PyObject *input = self != NULL ? self : parsed[0];
    double rtol, atol;
    if (double_arg(p[2], 1e-05, &rtol) < 0 || double_arg(p[3], 1e-08, &atol) < 0)
        return NULL;
    int equal_nan = p[4] != NULL && PyObject_IsTrue(p[4]) == 1;
    drop_stale();
    if (all) {
        bool r = false;
        ct_status st = ct_allclose(ctp_tensor_get(input), ctp_tensor_get(p[1]), rtol, atol,
                                   equal_nan != 0, &r);
        if (st != CT_OK)
            return ctp_raise_status(st);
        return PyBool_FromLong(r);
    }
    ct_tensor *r = NULL;
    ct_status st = ct_isclose(ctp_tensor_get(input), ctp_tensor_get(p[1]), rtol, atol,
                              equal_nan != 0, &r);
    return new_result(st, r);
}

static PyObject *equal_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *parsed[CTP_MAX_PARAMS];
    if (ctp_parse_args("equal", self != NULL ? &m_equal_sig : &fn_equal_sig, 1, args, kwargs,
                       parsed) < 0)
        return NULL;
    PyObject *a = self != NULL ? self : parsed[0], *b = self != NULL ? parsed[0] : parsed[1];
    bool r = false;
    ct_status st = ct_equal(ctp_tensor_get(a), ctp_tensor_get(b), &r);
    if (st != CT_OK)
        return ctp_raise_status(st);
    return PyBool_FromLong(r);
}

static PyObject *fn_isclose(PyObject *m, PyObject *args, PyObject *kw) {
    (void)m;
    return close_call("isclose", 0, NULL, args, kw);
}
static PyObject *m_isclose(PyObject *self, PyObject *args, PyObject *kw) {
    return close_call("isclose", 0, self, args, kw);
}
static PyObject *fn_allclose(PyObject *m, PyObject *args, PyObject *kw) {
    (void)m;
    return close_call("allclose", 1, NULL, args, kw);
}
static PyObject *m_allclose(PyObject *self, PyObject *args, PyObject *kw) {
    return close_call("allclose", 1, self, args, kw);
}
static PyObject *fn_equal(PyObject *m, PyObject *args, PyObject *kw) {
    (void)m;
    return equal_call(NULL, args, kw);
}
static PyObject *m_equal(PyObject *self, PyObject *args, PyObject *kw) {
    return equal_call(self, args, kw);
}
#define CLOSE_NAMES(X) X(isclose) X(allclose) X(equal)
#define MINMAX_FN_DEF(name)                                                                        \
    {#name, CTP_KW_FUNC(fn_##name), METH_VARARGS | METH_KEYWORDS,                                  \
     #name "(input, other, *, out=None) -> Tensor"},
#define MINMAX_METHOD_DEF(name)                                                                    \
    {#name, CTP_KW_FUNC(m_##name), METH_VARARGS | METH_KEYWORDS, #name "(other) -> Tensor"},

#define CLASSIFY_FN_DEF(name)                                                                      \
    {#name, CTP_KW_FUNC(fn_##name), METH_VARARGS | METH_KEYWORDS,                                  \
     #name "(input) -> Tensor\n\nElement-wise classification; a bool tensor."},
#define CLASSIFY_METHOD_DEF(name)                                                                  \
    {#name, CTP_KW_FUNC(m_##name), METH_VARARGS | METH_KEYWORDS,                                   \
     #name "() -> Tensor\n\nElement-wise classification; a bool tensor."},

static PyMethodDef compare_functions[] = {
    COMPARE_NAMES(COMPARE_FN_DEF) CLASSIFY_NAMES(CLASSIFY_FN_DEF)
        MINMAX_NAMES(MINMAX_FN_DEF) CLOSE_NAMES(MINMAX_FN_DEF){NULL, NULL, 0, NULL}};
PyMethodDef ctp_tensor_compare_methods[] = {
    COMPARE_NAMES(COMPARE_METHOD_DEFS) CLASSIFY_NAMES(CLASSIFY_METHOD_DEF)
        MINMAX_NAMES(MINMAX_METHOD_DEF) CLOSE_NAMES(MINMAX_METHOD_DEF){NULL, NULL, 0, NULL}};

/* ---- functions generated from the op table ------------------------------------------------ */

/* The generic signature of an ops.def row marked pyfunc: (input, other, *, alpha=1) when the
 * op takes alpha, else (input, other). */
static const ctp_signature generic_alpha_sig = {
    3, {{TON, "input"}, {TON, "other"}, {NUM, "*alpha=1"}}};
static const ctp_signature generic_sig = {2, {{TON, "input"}, {TON, "other"}}};

static PyObject *generic_call(ct_op op, PyObject *args, PyObject *kwargs) {
    const ctp_signature *sig = ct_op_has_alpha(op) ? &generic_alpha_sig : &generic_sig;
    PyObject *parsed[CTP_MAX_PARAMS];
    if (ctp_parse_args(ct_op_name(op), sig, 1, args, kwargs, parsed) < 0)
        return NULL;
    roles arg;
    roles_of(sig, parsed, &arg);
    arith_spec s = {op, ct_scalar_int(1)};
    operand a = {NULL, 0}, b = {NULL, 0};
    PyObject *r = NULL;
    if (tensor_param(arg.input, &a) >= 0 && tensor_param(arg.other, &b) >= 0 &&
        (arg.alpha == NULL || ctp_int64_scalar_of_arg(arg.alpha, &s.alpha) >= 0))
        r = compute(&s, &a, &b, NULL, NULL);
    operand_clear(&a);
    operand_clear(&b);
    return r;
}

/* One C function per row (PyMethodDef has no closure); rows without pyfunc are not added. */
#define CT_OP(E, name, kind, kernel, alpha, negate, to_float, rounding, swap, symbol, dunder,      \
              pyfunc, partial)                                                                            \
    static PyObject *generated_##E(PyObject *module, PyObject *args, PyObject *kwargs) {          \
        (void)module;                                                                              \
        return generic_call(CT_OP_##E, args, kwargs);                                              \
    }
#include "ctensor/ops.def"
#undef CT_OP

#define CT_OP(E, name, kind, kernel, alpha, negate, to_float, rounding, swap, symbol, dunder,      \
              pyfunc, partial)                                                                            \
    {{name, CTP_KW_FUNC(generated_##E), METH_VARARGS | METH_KEYWORDS,                              \
      name "(input, other, ...) -> Tensor\n\nctensor/ops.def's " #E " row."},                      \
     pyfunc},
static const struct {
    PyMethodDef def;
    int added;
} generated[] = {
#include "ctensor/ops.def"
};
#undef CT_OP
_Static_assert(sizeof generated / sizeof generated[0] == CT_NUM_OPS, "one entry per op row");

static int add_generated(PyObject *module) {
    static PyMethodDef defs[CT_NUM_OPS + 1]; /* NULL-terminated; the module keeps pointers */
    int n = 0;
    for (int i = 0; i < CT_NUM_OPS; i++)
        if (generated[i].added)
            defs[n++] = generated[i].def;
    return n > 0 ? PyModule_AddFunctions(module, defs) : 0;
}

/* ---- threads ----------------------------------------------------------------------------- */

/* torch.set_num_threads(int): RuntimeError "set_num_threads expects an int, but got str"
 * for a non-int (bools included), the value cast to a C int as PyTorch does, and
 * RuntimeError "set_num_threads expects a positive integer" below 1. */
static PyObject *py_set_num_threads(PyObject *module, PyObject *arg) {
    (void)module;
    if (!ctp_is_int_arg(arg))
        return PyErr_Format(PyExc_RuntimeError, "set_num_threads expects an int, but got %s",
                            Py_TYPE(arg)->tp_name);
    int64_t v;
    if (ctp_int64_of_arg(arg, &v) < 0)
        return NULL;
    uint32_t low = (uint32_t)(uint64_t)v; /* (int)v, wrapping as C++ does on this platform */
    int n = low <= (uint32_t)INT32_MAX ? (int)low : -(int)(UINT32_MAX - low) - 1;
    ct_status st = ct_set_num_threads(n);
    if (st != CT_OK)
        return ctp_raise_status(st);
    Py_RETURN_NONE;
}

static PyObject *py_get_num_threads(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromLong(ct_get_num_threads());
}

/* ---- tables ------------------------------------------------------------------------------ */

#define KW METH_VARARGS | METH_KEYWORDS

PyMethodDef ctp_arith_functions[] = {
    {"add", CTP_KW_FUNC(fn_add), KW,
     "add(input, other, *, alpha=1, out=None) -> Tensor\n\ninput + alpha * other."},
    {"sub", CTP_KW_FUNC(fn_sub), KW,
     "sub(input, other, *, alpha=1, out=None) -> Tensor\n\ninput - alpha * other."},
    {"subtract", CTP_KW_FUNC(fn_subtract), KW,
     "subtract(input, other, *, alpha=1, out=None) -> Tensor\n\nAlias for sub()."},
    {"mul", CTP_KW_FUNC(fn_mul), KW, "mul(input, other, *, out=None) -> Tensor"},
    {"multiply", CTP_KW_FUNC(fn_multiply), KW,
     "multiply(input, other, *, out=None) -> Tensor\n\nAlias for mul()."},
    {"div", CTP_KW_FUNC(fn_div), KW,
     "div(input, other, *, rounding_mode=None, out=None) -> Tensor\n\n"
     "input / other; rounding_mode None (true division), 'trunc' or 'floor'."},
    {"divide", CTP_KW_FUNC(fn_divide), KW,
     "divide(input, other, *, rounding_mode=None, out=None) -> Tensor\n\nAlias for div()."},
    {"true_divide", CTP_KW_FUNC(fn_true_divide), KW,
     "true_divide(input, other, *, out=None) -> Tensor\n\ndiv() with rounding_mode=None."},
    {"set_num_threads", py_set_num_threads, METH_O,
     "set_num_threads(int) -> None\n\nThe number of threads large operations may use."},
    {"get_num_threads", py_get_num_threads, METH_NOARGS,
     "get_num_threads() -> int\n\nThe number of threads large operations may use."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctp_tensor_arith_methods[] = {
    {"add", CTP_KW_FUNC(m_add), KW,
     "add(other, *, alpha=1) -> Tensor\n\nself + alpha * other (sparse COO operands too)."},
    {"add_", CTP_KW_FUNC(m_add_), KW, "add_(other, *, alpha=1) -> Tensor"},
    {"sub", CTP_KW_FUNC(m_sub), KW, "sub(other, *, alpha=1) -> Tensor"},
    {"sub_", CTP_KW_FUNC(m_sub_), KW, "sub_(other, *, alpha=1) -> Tensor"},
    {"subtract", CTP_KW_FUNC(m_subtract), KW, "subtract(other, *, alpha=1) -> Tensor"},
    {"subtract_", CTP_KW_FUNC(m_subtract_), KW, "subtract_(other, *, alpha=1) -> Tensor"},
    {"mul", CTP_KW_FUNC(m_mul), KW, "mul(other) -> Tensor"},
    {"mul_", CTP_KW_FUNC(m_mul_), KW, "mul_(other) -> Tensor"},
    {"multiply", CTP_KW_FUNC(m_multiply), KW, "multiply(other) -> Tensor"},
    {"multiply_", CTP_KW_FUNC(m_multiply_), KW, "multiply_(other) -> Tensor"},
    {"div", CTP_KW_FUNC(m_div), KW, "div(other, *, rounding_mode=None) -> Tensor"},
    {"div_", CTP_KW_FUNC(m_div_), KW, "div_(other, *, rounding_mode=None) -> Tensor"},
    {"divide", CTP_KW_FUNC(m_divide), KW, "divide(other, *, rounding_mode=None) -> Tensor"},
    {"divide_", CTP_KW_FUNC(m_divide_), KW, "divide_(other, *, rounding_mode=None) -> Tensor"},
    {"true_divide", CTP_KW_FUNC(m_true_divide), KW, "true_divide(other) -> Tensor"},
    {"true_divide_", CTP_KW_FUNC(m_true_divide_), KW, "true_divide_(other) -> Tensor"},
    {NULL, NULL, 0, NULL},
};

int ctp_arith_init(PyObject *module) {
    if (PyModule_AddFunctions(module, ctp_arith_functions) < 0 || add_generated(module) < 0 ||
        PyModule_AddFunctions(module, compare_functions) < 0 || ctp_binary_init(module) < 0)
        return -1;
    ct_set_warning_handler(warning_handler, NULL);
    return 0;
}
