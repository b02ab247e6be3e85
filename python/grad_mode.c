/* PyTorch's grad-mode switches, for scripts written against PyTorch: no_grad, enable_grad,
 * set_grad_enabled and inference_mode (context managers and decorators), is_grad_enabled and
 * is_inference_mode_enabled, and the Tensor methods detach and requires_grad_ (not detach_:
 * PyTorch refuses it on views, and ctensor does not record which tensors are views).
 *
 * ctensor has no autograd: no tensor ever requires gradients, so every operation already
 * behaves as under no_grad. The switches still keep PyTorch's per-thread state (a new thread
 * starts with grad mode on and inference mode off) so that code which reads it back, or
 * nests the switches, sees what it would see in PyTorch; they change nothing else.
 *
 * Decorating: `@no_grad()`, `@no_grad` (the newest PyTorch's form without parentheses),
 * `@enable_grad()`, `@set_grad_enabled(False)`, `@inference_mode()` and `@inference_mode`
 * wrap a function so that each call runs with the switch applied (functools.update_wrapper
 * gives the wrapper the function's name and doc; it binds as a method in a class body). */
#include "ctensor_py.h"

typedef enum grad_switch {
    SWITCH_NO_GRAD,
    SWITCH_ENABLE_GRAD,
    SWITCH_SET_GRAD_ENABLED, /* applied when constructed, as PyTorch's */
    SWITCH_INFERENCE_MODE,
} grad_switch;

/* Per thread, as PyTorch's GradMode and InferenceMode: stored negated so that a thread's
 * zero-initialised state is PyTorch's default (grad mode on). */
static _Thread_local bool grad_disabled;
static _Thread_local bool inference_enabled;

typedef struct grad_state {
    bool grad_disabled, inference_enabled;
} grad_state;

static grad_state current_state(void) {
    return (grad_state){.grad_disabled = grad_disabled, .inference_enabled = inference_enabled};
}

static void restore_state(grad_state s) {
    grad_disabled = s.grad_disabled;
    inference_enabled = s.inference_enabled;
}

/* inference_mode(mode) sets grad mode to !mode, as PyTorch's InferenceMode guard: inside
 * inference_mode(), inference_mode(False) turns grad mode back on. */
static void apply_switch(grad_switch kind, bool mode) {
    switch (kind) {
    case SWITCH_NO_GRAD:
        grad_disabled = true;
        break;
    case SWITCH_ENABLE_GRAD:
        grad_disabled = false;
        break;
    case SWITCH_SET_GRAD_ENABLED:
        grad_disabled = !mode;
        break;
    case SWITCH_INFERENCE_MODE:
        inference_enabled = mode;
        grad_disabled = mode;
        break;
    }
}

/* ---- the wrapper a decorator returns -------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    PyObject *func;
    PyObject *dict; /* functools.update_wrapper's __name__, __doc__, __wrapped__, ... */
    grad_switch kind;
    bool mode;
} wrapper_object;

static PyTypeObject wrapper_type;

static PyObject *wrap_function(grad_switch kind, bool mode, PyObject *func) {
    if (!PyCallable_Check(func))
        return PyErr_Format(PyExc_TypeError, "a decorated object must be callable, not %s",
                            Py_TYPE(func)->tp_name);
    wrapper_object *w = PyObject_GC_New(wrapper_object, &wrapper_type);
    if (w == NULL)
        return NULL;
    w->func = Py_NewRef(func);
    w->dict = NULL;
    w->kind = kind;
    w->mode = mode;
    PyObject_GC_Track(w);
    PyObject *functools = PyImport_ImportModule("functools");
    PyObject *r = functools != NULL
                      ? PyObject_CallMethod(functools, "update_wrapper", "OO", (PyObject *)w, func)
                      : NULL;
    Py_XDECREF(functools);
    if (r == NULL) {
        Py_DECREF(w);
        return NULL;
    }
    Py_DECREF(r);
    return (PyObject *)w;
}

static PyObject *wrapper_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    wrapper_object *w = (wrapper_object *)self;
    grad_state saved = current_state();
    apply_switch(w->kind, w->mode);
    PyObject *r = PyObject_Call(w->func, args, kwargs);
    restore_state(saved);
    return r;
}

/* A wrapper stored on a class binds to the instance, as the function it wraps would. */
static PyObject *wrapper_get(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static int wrapper_traverse(PyObject *self, visitproc visit, void *arg) {
    wrapper_object *w = (wrapper_object *)self;
    Py_VISIT(w->func);
    Py_VISIT(w->dict);
    return 0;
}

static int wrapper_clear(PyObject *self) {
    wrapper_object *w = (wrapper_object *)self;
    Py_CLEAR(w->func);
    Py_CLEAR(w->dict);
    return 0;
}

static void wrapper_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    wrapper_clear(self);
    PyObject_GC_Del(self);
}

static PyGetSetDef wrapper_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject wrapper_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor._grad_mode_function",
    .tp_basicsize = sizeof(wrapper_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A function that runs with a grad-mode switch applied (a decorator's result).",
    .tp_call = wrapper_call,
    .tp_descr_get = wrapper_get,
    .tp_dictoffset = offsetof(wrapper_object, dict),
    .tp_getset = wrapper_getset,
    .tp_traverse = wrapper_traverse,
    .tp_clear = wrapper_clear,
    .tp_dealloc = wrapper_dealloc,
};

/* ---- the switches ----------------------------------------------------------------------------- */

typedef struct {
    PyObject ob_base;
    grad_switch kind;
    bool mode;
    grad_state saved; /* before __enter__ (before construction for set_grad_enabled) */
} switch_object;

static PyTypeObject no_grad_type, enable_grad_type, set_grad_enabled_type, inference_mode_type;

static PyObject *new_switch(PyTypeObject *type, grad_switch kind, bool mode) {
    switch_object *s = (switch_object *)type->tp_alloc(type, 0);
    if (s == NULL)
        return NULL;
    s->kind = kind;
    s->mode = mode;
    s->saved = current_state();
    if (kind == SWITCH_SET_GRAD_ENABLED)
        apply_switch(kind, mode);
    return (PyObject *)s;
}

/* no_grad() / enable_grad(), or no_grad(func): the newest PyTorch's decorator without
 * parentheses. */
static PyObject *plain_new(PyTypeObject *type, PyObject *args, PyObject *kwargs,
                           grad_switch kind) {
    static const char *const names[] = {"orig_func"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call(type->tp_name + sizeof "ctensor." - 1, names, 1, 0, 0, args,
                              kwargs, a) < 0)
        return NULL;
    if (a[0] != NULL && a[0] != Py_None)
        return wrap_function(kind, true, a[0]);
    return new_switch(type, kind, true);
}

static PyObject *no_grad_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    return plain_new(type, args, kwargs, SWITCH_NO_GRAD);
}

static PyObject *enable_grad_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    return plain_new(type, args, kwargs, SWITCH_ENABLE_GRAD);
}

/* set_grad_enabled(mode), with PyTorch's messages: its __init__ takes `mode`, and the setter
 * it calls wants a bool. */
static PyObject *set_grad_enabled_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"mode"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("set_grad_enabled.__init__", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (!PyBool_Check(a[0]))
        return PyErr_Format(PyExc_TypeError, "enabled must be a bool (got %s)",
                            Py_TYPE(a[0])->tp_name);
    return new_switch(type, SWITCH_SET_GRAD_ENABLED, a[0] == Py_True);
}

/* inference_mode(mode=True), or inference_mode(func) (a decorator without parentheses). */
static PyObject *inference_mode_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"mode"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("inference_mode", names, 1, 0, 0, args, kwargs, a) < 0)
        return NULL;
    if (a[0] == NULL || a[0] == Py_None)
        return new_switch(type, SWITCH_INFERENCE_MODE, true);
    if (PyBool_Check(a[0]))
        return new_switch(type, SWITCH_INFERENCE_MODE, a[0] == Py_True);
    return wrap_function(SWITCH_INFERENCE_MODE, true, a[0]);
}

static PyObject *switch_enter(PyObject *self, PyObject *unused) {
    switch_object *s = (switch_object *)self;
    (void)unused;
    if (s->kind != SWITCH_SET_GRAD_ENABLED) { /* set_grad_enabled applied itself already */
        s->saved = current_state();
        apply_switch(s->kind, s->mode);
    }
    Py_RETURN_NONE;
}

static PyObject *switch_exit(PyObject *self, PyObject *args) {
    (void)args;
    restore_state(((switch_object *)self)->saved);
    Py_RETURN_FALSE;
}

/* switch(func): the decorated function. set_grad_enabled(mode) first undoes its own
 * construction, as PyTorch's does, so that decorating changes no state. */
static PyObject *switch_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    switch_object *s = (switch_object *)self;
    static const char *const names[] = {"orig_func"};
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_python_call("__call__", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    if (s->kind == SWITCH_SET_GRAD_ENABLED)
        restore_state(s->saved);
    return wrap_function(s->kind, s->mode, a[0]);
}

static PyObject *switch_clone(PyObject *self, PyObject *unused) {
    switch_object *s = (switch_object *)self;
    (void)unused;
    return new_switch(Py_TYPE(self), s->kind, s->mode);
}

static PyMethodDef switch_methods[] = {
    {"__enter__", switch_enter, METH_NOARGS, NULL},
    {"__exit__", switch_exit, METH_VARARGS, NULL},
    {"clone", switch_clone, METH_NOARGS, "clone() -> a new switch with the same mode"},
    {NULL, NULL, 0, NULL},
};

#define SWITCH_TYPE(var, name, new_fn, doc)                                                        \
    static PyTypeObject var = {                                                                    \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ctensor." name,                                  \
        .tp_basicsize = sizeof(switch_object),                                                     \
        .tp_flags = Py_TPFLAGS_DEFAULT,                                                            \
        .tp_doc = doc,                                                                             \
        .tp_new = new_fn,                                                                          \
        .tp_call = switch_call,                                                                    \
        .tp_methods = switch_methods,                                                              \
    }
SWITCH_TYPE(no_grad_type, "no_grad", no_grad_new,
            "Context manager and decorator that turns grad mode off (ctensor has no autograd).");
SWITCH_TYPE(enable_grad_type, "enable_grad", enable_grad_new,
            "Context manager and decorator that turns grad mode on.");
SWITCH_TYPE(set_grad_enabled_type, "set_grad_enabled", set_grad_enabled_new,
            "set_grad_enabled(mode): sets grad mode now; as a context manager, restores it on exit.");
SWITCH_TYPE(inference_mode_type, "inference_mode", inference_mode_new,
            "Context manager and decorator for inference mode (grad mode off inside).");

/* ---- queries ------------------------------------------------------------------------------ */

static PyObject *py_is_grad_enabled(PyObject *mod, PyObject *unused) {
    (void)mod;
    (void)unused;
    return PyBool_FromLong(!grad_disabled);
}

static PyObject *py_is_inference_mode_enabled(PyObject *mod, PyObject *unused) {
    (void)mod;
    (void)unused;
    return PyBool_FromLong(inference_enabled);
}

static PyMethodDef grad_mode_functions[] = {
    {"is_grad_enabled", py_is_grad_enabled, METH_NOARGS, "is_grad_enabled() -> bool"},
    {"is_inference_mode_enabled", py_is_inference_mode_enabled, METH_NOARGS,
     "is_inference_mode_enabled() -> bool"},
    {NULL, NULL, 0, NULL},
};

/* ---- Tensor: detach, requires_grad_ ---------------------------------------------------------- */

/* No tensor is part of a graph: detach() is a new tensor on the same memory (PyTorch's result
 * shares storage too). */
static PyObject *tensor_detach(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_alias(ctp_tensor_get(self), &r);
    return ctp_tensor_result(NULL, st, r);
}

/* Asking for gradients: PyTorch's RuntimeError for a dtype that cannot have them (`message`:
 * requires_grad_ and the attribute's setter word it differently), else the refusal of a
 * library without autograd. */
static int refuse_gradients(PyObject *self, const char *message) {
    ct_dtype dtype = ct_tensor_dtype(ctp_tensor_get(self));
    if (!ct_dtype_is_floating_point(dtype) && !ct_dtype_is_complex(dtype)) {
        PyErr_SetString(PyExc_RuntimeError, message);
        return -1;
    }
    PyErr_SetString(PyExc_NotImplementedError,
                    "ctensor has no autograd: requires_grad=True is not supported");
    return -1;
}

static const ctp_signature requires_grad_sig[] = {
    {1, {{CTP_PARAM_BOOL, "requires_grad=True"}}}};

static PyObject *tensor_requires_grad_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("requires_grad_", requires_grad_sig, 1, args, kwargs, a) < 0)
        return NULL;
    if ((a[0] == NULL || a[0] == Py_True) &&
        refuse_gradients(self, "only Tensors of floating point dtype can require gradients") < 0)
        return NULL;
    return Py_NewRef(self);
}

int ctp_tensor_set_requires_grad(PyObject *self, PyObject *value, void *closure) {
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "cannot delete the requires_grad attribute");
        return -1;
    }
    if (!PyBool_Check(value)) {
        PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool");
        return -1;
    }
    if (value == Py_False)
        return 0;
    return refuse_gradients(self, "only Tensors of floating point and complex dtype can require "
                                  "gradients");
}

static PyMethodDef grad_tensor_methods[] = {
    {"detach", tensor_detach, METH_NOARGS,
     "detach() -> Tensor\n\nA new tensor on the same memory (ctensor has no autograd graph)."},
    {"requires_grad_", CTP_KW_FUNC(tensor_requires_grad_), METH_VARARGS | METH_KEYWORDS,
     "requires_grad_(requires_grad=True) -> Tensor"},
    {NULL, NULL, 0, NULL},
};

static int add_type(PyObject *module, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0)
        return -1;
    if (name == NULL)
        return 0;
    return PyModule_AddObjectRef(module, name, (PyObject *)type);
}

int ctp_grad_mode_init(PyObject *module) {
    if (add_type(module, &wrapper_type, NULL) < 0 ||
        add_type(module, &no_grad_type, "no_grad") < 0 ||
        add_type(module, &enable_grad_type, "enable_grad") < 0 ||
        add_type(module, &set_grad_enabled_type, "set_grad_enabled") < 0 ||
        add_type(module, &inference_mode_type, "inference_mode") < 0 ||
        PyModule_AddFunctions(module, grad_mode_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(grad_tensor_methods);
}
