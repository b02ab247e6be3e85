/* Matrix products and joins of global tensors: GlobalTensor.matmul / mm / bmm, the operator
 * x @ y, and the global paths of ctensor.matmul / mm / bmm (tensor_linalg.c) and of
 * ctensor.cat / concat / concatenate / stack (tensor_join.c), taken when an operand is a
 * GlobalTensor. Each call is one ct_global_matmul / mm / bmm / cat / stack (global.h), which
 * decides the sbp and words the errors; an argument error found here is raised on every rank
 * (ctp_dist_failed). */
#include <string.h>

#include "ctensor_dist_py.h"

typedef ct_status (*mm_fn)(const ct_global *, const ct_global *, ct_global **);

static PyObject *local_error(void) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Expected all tensors to be global, but found a local tensor");
    return NULL;
}

static PyObject *out_error(const char *name) {
    return PyErr_Format(PyExc_RuntimeError,
                        "%s(): out= is not supported for global tensors; use the returned tensor",
                        name);
}

static mm_fn mm_of(const char *name) {
    if (strcmp(name, "mm") == 0)
        return ct_global_mm;
    if (strcmp(name, "bmm") == 0)
        return ct_global_bmm;
    return ct_global_matmul;
}

/* Both operands global (a local one: the mixed error; anything else: PyTorch's TypeError). */
static PyObject *product(const char *name, const char *second, PyObject *a, PyObject *b) {
    PyObject *objs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (ctp_tensor_check(objs[i]))
            return local_error();
        if (!ctp_global_check(objs[i]))
            return PyErr_Format(PyExc_TypeError,
                                "%s(): argument '%s' (position %d) must be Tensor, not %s", name,
                                i ? second : "input", i + 1, Py_TYPE(objs[i])->tp_name);
    }
    ct_global *r = NULL;
    ct_status st = mm_of(name)(ctp_global_get(a), ctp_global_get(b), &r);
    return ctp_global_result(NULL, st, r);
}

static const char *second_name(const char *name) {
    return strcmp(name, "matmul") == 0 ? "other" : "mat2";
}

static PyObject *matmul_call(const char *name, PyObject *self, PyObject *args, PyObject *kwargs) {
    const char *second = second_name(name);
    PyObject *input = self, *other = NULL, *out = Py_None;
    char fmt[32];
    if (self != NULL) {
        char *kw[] = {(char *)second, NULL};
        snprintf(fmt, sizeof fmt, "O:%s", name);
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &other))
            return NULL;
    } else {
        char *kw[] = {(char *)"input", (char *)second, (char *)"out", NULL};
        snprintf(fmt, sizeof fmt, "OO|$O:%s", name);
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &input, &other, &out))
            return NULL;
    }
    if (out != Py_None)
        return ctp_tensor_check(out) ? local_error() : out_error(name);
    return product(name, second, input, other);
}

PyObject *ctp_global_matmul_call(const char *name, PyObject *self, PyObject *args,
                                 PyObject *kwargs) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = matmul_call(name, self, args, kwargs);
    return r != NULL ? r : ctp_dist_failed(name, mark);
}

PyObject *ctp_global_matmul_operator(PyObject *a, PyObject *b) {
    if (!ctp_global_check(a) && !ctp_tensor_check(a))
        Py_RETURN_NOTIMPLEMENTED; /* Python raises its TypeError */
    if (!ctp_global_check(b) && !ctp_tensor_check(b))
        Py_RETURN_NOTIMPLEMENTED;
    uint64_t mark = ctp_dist_mark();
    PyObject *r = product("matmul", "other", a, b);
    return r != NULL ? r : ctp_dist_failed("matmul", mark);
}

PyObject *ctp_global_imatmul_operator(PyObject *a, PyObject *b) {
    (void)a;
    (void)b;
    uint64_t mark = ctp_dist_mark();
    PyErr_SetString(PyExc_RuntimeError,
                    "@=: in-place operations are not supported on global tensors; use the "
                    "out-of-place form (x = x @ y)");
    return ctp_dist_failed("matmul", mark);
}

int ctp_dist_seq_has_global(PyObject *seq) {
    if (!PyTuple_Check(seq) && !PyList_Check(seq))
        return 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
        if (ctp_global_check(PySequence_Fast_GET_ITEM(seq, i)))
            return 1;
    return 0;
}

static PyObject *join_call(const char *name, int stack, PyObject *tensors, PyObject *dim_obj,
                           PyObject *out) {
    int64_t dim = 0;
    if (dim_obj != NULL && ctp_int64_of_arg(dim_obj, &dim) < 0)
        return NULL;
    if (out != NULL && out != Py_None)
        return ctp_tensor_check(out) ? local_error() : out_error(name);
    const Py_ssize_t len = PySequence_Fast_GET_SIZE(tensors);
    const ct_global **v = PyMem_Malloc((size_t)(len > 0 ? len : 1) * sizeof *v);
    if (v == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(tensors, i);
        if (!ctp_global_check(item)) {
            PyMem_Free(v);
            if (ctp_tensor_check(item))
                return local_error();
            return PyErr_Format(PyExc_TypeError,
                                "expected Tensor as element %zd in argument 0, but got %s", i,
                                Py_TYPE(item)->tp_name);
        }
        v[i] = ctp_global_get(item);
    }
    ct_global *r = NULL;
    ct_status st = stack ? ct_global_stack(v, (size_t)len, dim, &r)
                         : ct_global_cat(v, (size_t)len, dim, &r);
    PyMem_Free(v);
    return ctp_global_result(NULL, st, r);
}

PyObject *ctp_global_join_call(const char *name, int stack, PyObject *tensors, PyObject *dim,
                               PyObject *out) {
    uint64_t mark = ctp_dist_mark();
    PyObject *r = join_call(name, stack, tensors, dim, out);
    return r != NULL ? r : ctp_dist_failed(stack ? "stack" : "cat", mark);
}

#define KW METH_VARARGS | METH_KEYWORDS
#define METHOD(name)                                                                               \
    static PyObject *g_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                  \
        return ctp_global_matmul_call(#name, self, args, kwargs);                                  \
    }
METHOD(matmul)
METHOD(mm)
METHOD(bmm)
#undef METHOD

PyMethodDef ctp_global_linalg_methods[] = {
    {"matmul", CTP_KW_FUNC(g_matmul), KW,
     "matmul(other) -> GlobalTensor\n\nThe sbp follows OneFlow's matmul signatures. Collective."},
    {"mm", CTP_KW_FUNC(g_mm), KW, "mm(mat2) -> GlobalTensor\n\n2-D @ 2-D. Collective."},
    {"bmm", CTP_KW_FUNC(g_bmm), KW, "bmm(mat2) -> GlobalTensor\n\nBatched. Collective."},
    {NULL, NULL, 0, NULL},
};
