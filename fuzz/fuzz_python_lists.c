/* Fuzz target: the Python module's parsing of nested sequences and size arguments.
 * CPython is embedded with the module linked in (PyImport_AppendInittab). The bytes build a
 * Python object with the C API (no eval): ints (small, beyond int64, beyond uint64), floats
 * (NaN, inf), bools, complex, None, str, bytes, lists and tuples (ragged, empty, deeply
 * nested), which goes to ctensor.tensor(obj[, dtype=...]); then a size tuple goes to
 * ctensor.zeros/ones/empty(*sizes) and zeros(sizes). Any Python exception is fine; a crash,
 * a sanitizer report or a returned object that is not a tensor is not. Successful tensors
 * are read back (tolist, repr) so that their data is touched. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"

PyMODINIT_FUNC PyInit_ctensor(void);

static PyObject *mod, *tensor_fn, *zeros_fn, *ones_fn, *empty_fn, *tensor_type;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (PyImport_AppendInittab("ctensor", PyInit_ctensor) < 0)
        abort();
    Py_Initialize();
    mod = PyImport_ImportModule("ctensor");
    if (!mod) {
        PyErr_Print();
        abort();
    }
    tensor_fn = PyObject_GetAttrString(mod, "tensor");
    zeros_fn = PyObject_GetAttrString(mod, "zeros");
    ones_fn = PyObject_GetAttrString(mod, "ones");
    empty_fn = PyObject_GetAttrString(mod, "empty");
    tensor_type = PyObject_GetAttrString(mod, "Tensor");
    if (!tensor_fn || !zeros_fn || !ones_fn || !empty_fn || !tensor_type) {
        PyErr_Print();
        abort();
    }
    return 0;
}

static PyObject *build(fz_reader *r, int depth);

/* A list or tuple of n decoded items. */
static PyObject *build_seq(fz_reader *r, int depth, Py_ssize_t n, int tuple) {
    PyObject *seq = tuple ? PyTuple_New(n) : PyList_New(n);
    if (!seq)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = build(r, depth + 1);
        if (!item) {
            Py_DECREF(seq);
            return NULL;
        }
        if (tuple)
            PyTuple_SET_ITEM(seq, i, item);
        else
            PyList_SET_ITEM(seq, i, item);
    }
    return seq;
}

static PyObject *build(fz_reader *r, int depth) {
    uint8_t tag = fz_u8(r);
    if (depth > 12 || r->n == 0)
        tag &= 7; /* leaves only */
    switch (tag % 16) {
    case 0: case 1: case 2:
        return PyLong_FromLongLong(fz_small(r));
    case 3: {
        /* big ints: int64 edges, uint64, and beyond 64 bits */
        uint8_t k = fz_u8(r);
        if (k & 1)
            return PyLong_FromUnsignedLongLong(fz_u64(r));
        if (k & 2) {
            PyObject *hi = PyLong_FromUnsignedLongLong(fz_u64(r)), *sh = PyLong_FromLong(64 + (k >> 2));
            PyObject *v = hi && sh ? PyNumber_Lshift(hi, sh) : NULL;
            Py_XDECREF(hi);
            Py_XDECREF(sh);
            return v;
        }
        return PyLong_FromLongLong(fz_i64_mixed(r));
    }
    case 4: {
        uint64_t bits = fz_u64(r);
        double d;
        memcpy(&d, &bits, sizeof d);
        return PyFloat_FromDouble((tag & 0x10) ? d : (double)fz_small(r) / 4);
    }
    case 5:
        return PyBool_FromLong(tag & 0x10);
    case 6:
        return PyComplex_FromDoubles((double)fz_small(r), (tag & 0x10) ? INFINITY : (double)fz_small(r));
    case 7:
        if (tag & 0x10)
            Py_RETURN_NONE;
        return PyUnicode_FromString((tag & 0x20) ? "1" : "");
    case 8: case 9: case 10:
        return build_seq(r, depth, fz_u8(r) % 5, 0);
    case 11:
        return build_seq(r, depth, fz_u8(r) % 4, 1);
    case 12: {
        /* deep nesting: [[[...x...]]] many levels, built without recursion */
        int levels = (int)(fz_u16(r) % 20000);
        PyObject *v = build(r, depth + 1);
        for (int i = 0; v && i < levels; i++) {
            PyObject *l = PyList_New(1);
            if (!l) {
                Py_DECREF(v);
                return NULL;
            }
            PyList_SET_ITEM(l, 0, v);
            v = l;
        }
        return v;
    }
    case 13: {
        /* a long flat list of one repeated leaf (a size that a ragged check must count) */
        Py_ssize_t n = fz_u16(r) % 3000;
        /* a leaf only: a shared list would multiply the element count by n per level */
        PyObject *leaf = build(r, 13), *l = leaf ? PyList_New(n) : NULL;
        for (Py_ssize_t i = 0; l && i < n; i++) {
            Py_INCREF(leaf);
            PyList_SET_ITEM(l, i, leaf);
        }
        Py_XDECREF(leaf);
        return l;
    }
    case 14:
        return PyBytes_FromStringAndSize("ab", tag & 1);
    default: {
        /* a list holding itself: a cycle (must not recurse forever) */
        PyObject *l = PyList_New(0);
        if (l && (tag & 0x10) && PyList_Append(l, l) < 0) {
            Py_DECREF(l);
            return NULL;
        }
        return l;
    }
    }
}

static const char *const dtype_names[] = {"float32", "float64", "int64", "int32", "bool",
                                          "uint8", "int8", "float16", "bfloat16", "complex64",
                                          "complex128", "uint64", "float8_e4m3fn", "int16"};

/* false when a result may be empty yet have a huge dim (zeros(2**40, 0)): tolist() of that
 * is a legitimately huge list of empty lists. */
static int touch_ok = 1;

/* How many Python lists tolist() builds for `t`: every dim but the last multiplies them.
 * An empty tensor may still ask for a huge count (shape (24,) * 12 + (0,)), legitimately
 * slow; such results are not touched. */
static int64_t list_count(PyObject *t) {
    PyObject *shape = PyObject_GetAttrString(t, "shape");
    if (shape == NULL || !PyTuple_Check(shape)) {
        Py_XDECREF(shape);
        PyErr_Clear();
        return INT64_MAX;
    }
    int64_t count = 1, lists = 0;
    Py_ssize_t n = PyTuple_GET_SIZE(shape);
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        if (d < 0 || __builtin_mul_overflow(count, (int64_t)d, &count) ||
            __builtin_add_overflow(lists, count, &lists)) {
            lists = INT64_MAX;
            break;
        }
    }
    Py_DECREF(shape);
    PyErr_Clear();
    return lists;
}

static void use_tensor(PyObject *t) {
    if (!PyObject_TypeCheck(t, (PyTypeObject *)tensor_type))
        abort();
    if (!touch_ok || list_count(t) > (1 << 17))
        return;
    PyObject *l = PyObject_CallMethod(t, "tolist", NULL);
    Py_XDECREF(l);
    PyErr_Clear();
    PyObject *s = PyObject_Repr(t);
    Py_XDECREF(s);
    PyErr_Clear();
}

/* Calls fn(*args, **kwargs) and checks the result; exceptions are fine. */
static void call(PyObject *fn, PyObject *args, PyObject *kwargs) {
    if (getenv("FZ_DEBUG")) { /* show the call when replaying one input */
        PyObject_Print(fn, stderr, 0);
        PyObject_Print(args, stderr, 0);
        fputc('\n', stderr);
    }
    PyObject *res = PyObject_Call(fn, args, kwargs);
    if (res)
        use_tensor(res);
    Py_XDECREF(res);
    PyErr_Clear();
}

/* The element count of the shape read off the first elements, as tensor() infers it
 * (PyTorch's compute_sizes) before allocating and then finding out that the data is
 * ragged: a small ragged input may thus ask for gigabytes, legitimately. Over the cap, the
 * input is not passed to tensor(). */
static int64_t first_numel(PyObject *obj) {
    int64_t prod = 1;
    for (int depth = 0; depth < 100 && (PyList_Check(obj) || PyTuple_Check(obj)); depth++) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        if (__builtin_mul_overflow(prod, (int64_t)n, &prod))
            return INT64_MAX;
        if (n == 0)
            break;
        obj = PySequence_Fast_GET_ITEM(obj, 0);
    }
    return prod;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    uint8_t ctl = fz_u8(&r);
    PyObject *obj = build(&r, 0);
    if (!obj) {
        PyErr_Clear();
        return 0;
    }
    PyObject *args = first_numel(obj) <= (1 << 16) ? PyTuple_Pack(1, obj) : NULL, *kwargs = NULL;
    if (ctl & 1) {
        PyObject *dt = PyObject_GetAttrString(mod, dtype_names[(ctl >> 1) % 14]);
        kwargs = dt ? Py_BuildValue("{sO}", "dtype", dt) : NULL;
        Py_XDECREF(dt);
    }
    if (args)
        call(tensor_fn, args, kwargs);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    /* break a self-referencing list's cycle */
    if (PyList_Check(obj))
        (void)PyList_SetSlice(obj, 0, PyList_GET_SIZE(obj), NULL);
    Py_DECREF(obj);

    /* Size arguments: up to 6 ints (or whatever build gives), product capped unless some
     * size is negative or the product overflows (those must be refused, not allocated). */
    Py_ssize_t n = fz_u8(&r) % 7;
    PyObject *sizes = PyTuple_New(n);
    if (!sizes)
        return 0;
    int64_t prod = 1;
    int bad = 0, over = 0;
    touch_ok = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v;
        if (fz_u8(&r) < 200) {
            int64_t x = (ctl & 0x80) ? fz_i64_mixed(&r) : fz_small(&r);
            if (x > (1 << 17))
                touch_ok = 0;
            if (x < 0)
                bad = 1;
            else if (!over && __builtin_mul_overflow(prod, x, &prod))
                over = 1;
            v = PyLong_FromLongLong(x);
        } else {
            v = build(&r, 13); /* a leaf: big int, float, bool, complex, None, str */
            if (v && PyLong_Check(v)) {
                int o = 0;
                long long x = PyLong_AsLongLongAndOverflow(v, &o);
                if (o || x > (1 << 17))
                    touch_ok = 0;
                if (o || x < 0)
                    bad = 1;
                else if (!over && __builtin_mul_overflow(prod, (int64_t)x, &prod))
                    over = 1;
            } else {
                bad = 1; /* not an int: must be refused */
            }
        }
        if (!v) {
            PyErr_Clear();
            Py_DECREF(sizes);
            return 0;
        }
        PyTuple_SET_ITEM(sizes, i, v);
    }
    if (bad || over || prod <= (1 << 17)) {
        PyObject *fn = (ctl & 0x20) ? ones_fn : (ctl & 0x40) ? empty_fn : zeros_fn;
        call(fn, sizes, NULL);
        PyObject *one = PyTuple_Pack(1, sizes);
        if (one)
            call(zeros_fn, one, NULL);
        Py_XDECREF(one);
    }
    touch_ok = 1;
    Py_DECREF(sizes);
    return 0;
}
