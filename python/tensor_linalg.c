/* Matrix products (include/ctensor/linalg.h): the functions matmul, mm, bmm, mv, dot, outer,
 * ger, addmm, baddbmm, their Tensor methods and the @ operator.
 *
 * A thin skin: it parses PyTorch's signatures and calls the C API, which decides every
 * semantic and words every error. `a @= b` needs no slot of its own: Python falls back to
 * `a = a @ b`, as it does for torch.Tensor.
 */
#include "ctensor/linalg.h"
#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h" /* the global path of matmul, mm, bmm */
#endif

#define TEN CTP_PARAM_TENSOR
#define NUM CTP_PARAM_NUMBER

typedef ct_status (*bin_fn)(const ct_tensor *, const ct_tensor *, ct_tensor **);
typedef ct_status (*bin_out_fn)(const ct_tensor *, const ct_tensor *, ct_tensor *);
typedef ct_status (*add_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *, ct_scalar,
                            ct_scalar, ct_tensor **);
typedef ct_status (*add_out_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *,
                                ct_scalar, ct_scalar, ct_tensor *);

static PyObject *out_result(ct_status st, PyObject *out) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    return ctp_warning_error() < 0 ? NULL : Py_NewRef(out);
}

/* A two-operand product; self NULL for the function form (input is then the first arg). */
static PyObject *run_bin(const char *fname, const char *second, PyObject *self, bin_fn fn,
                         bin_out_fn out_fn, PyObject *args, PyObject *kwargs) {
#ifdef CT_HAVE_DIST
    if (self == NULL && (fn == ct_tensor_matmul || fn == ct_tensor_mm || fn == ct_tensor_bmm) &&
        ctp_dist_any_global(NULL, args, kwargs))
        return ctp_global_matmul_call(fname, NULL, args, kwargs);
#endif
    PyObject *a[CTP_MAX_PARAMS];
    char second_name[32];
    snprintf(second_name, sizeof second_name, "%s", second);
    ctp_signature sig = {3, {{TEN, "input"}, {TEN, second_name}, {TEN, "*out=None"}}};
    ctp_signature msig = {1, {{TEN, second_name}}};
    if (ctp_parse_args(fname, self ? &msig : &sig, 1, args, kwargs, a) < 0)
        return NULL;
    PyObject *x = self ? self : a[0], *y = self ? a[0] : a[1], *out = self ? NULL : a[2];
    if (out != NULL)
        return out_result(out_fn(ctp_tensor_get(x), ctp_tensor_get(y), ctp_tensor_get(out)),
                          out);
    ct_tensor *r = NULL;
    ct_status st = fn(ctp_tensor_get(x), ctp_tensor_get(y), &r);
    return ctp_tensor_result(NULL, st, r);
}

static int scalar_or_one(PyObject *obj, ct_scalar *s) {
    if (obj == NULL) {
        *s = ct_scalar_int(1);
        return 0;
    }
    return ctp_scalar_of_arg(obj, s);
}

static PyObject *run_add(const char *fname, const char *n1, const char *n2, PyObject *self,
                         add_fn fn, add_out_fn out_fn, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ctp_signature sig = {6, {{TEN, "input"}, {TEN, n1}, {TEN, n2}, {NUM, "*beta=1"},
                             {NUM, "alpha=1"}, {TEN, "out=None"}}};
    ctp_signature msig = {4, {{TEN, n1}, {TEN, n2}, {NUM, "*beta=1"}, {NUM, "alpha=1"}}};
    if (ctp_parse_args(fname, self ? &msig : &sig, 1, args, kwargs, a) < 0)
        return NULL;
    PyObject **p = self ? a - 1 : a; /* p[1], p[2]: the matrices; p[3], p[4]: beta, alpha */
    PyObject *input = self ? self : a[0], *out = self ? NULL : a[5];
    ct_scalar beta, alpha;
    if (scalar_or_one(p[3], &beta) < 0 || scalar_or_one(p[4], &alpha) < 0)
        return NULL;
    const ct_tensor *t = ctp_tensor_get(input), *m1 = ctp_tensor_get(p[1]),
                    *m2 = ctp_tensor_get(p[2]);
    if (out != NULL)
        return out_result(out_fn(t, m1, m2, beta, alpha, ctp_tensor_get(out)), out);
    ct_tensor *r = NULL;
    ct_status st = fn(t, m1, m2, beta, alpha, &r);
    return ctp_tensor_result(NULL, st, r);
}

#define BIN(name, second, fn)                                                                      \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                   \
        (void)m;                                                                                   \
        return run_bin(#name, second, NULL, ct_tensor_##fn, ct_tensor_##fn##_out, args, kwargs);  \
    }                                                                                              \
    static PyObject *tensor_##name(PyObject *self, PyObject *args, PyObject *kwargs) {            \
        return run_bin(#name, second, self, ct_tensor_##fn, ct_tensor_##fn##_out, args, kwargs);  \
    }

BIN(matmul, "other", matmul)
BIN(mm, "mat2", mm)
BIN(bmm, "mat2", bmm)
BIN(mv, "vec", mv)
BIN(dot, "tensor", dot)
BIN(outer, "vec2", outer)
BIN(ger, "vec2", ger)

#define ADD(name, n1, n2)                                                                          \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                   \
        (void)m;                                                                                   \
        return run_add(#name, n1, n2, NULL, ct_tensor_##name, ct_tensor_##name##_out, args,       \
                       kwargs);                                                                    \
    }                                                                                              \
    static PyObject *tensor_##name(PyObject *self, PyObject *args, PyObject *kwargs) {            \
        return run_add(#name, n1, n2, self, ct_tensor_##name, ct_tensor_##name##_out, args,       \
                       kwargs);                                                                    \
    }

ADD(addmm, "mat1", "mat2")
ADD(baddbmm, "batch1", "batch2")

/* x @ y: tensors only (anything else: NotImplemented, so Python raises its TypeError). */
static PyObject *nb_matmul(PyObject *a, PyObject *b) {
    if (!ctp_tensor_check(a) || !ctp_tensor_check(b))
        Py_RETURN_NOTIMPLEMENTED;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_matmul(ctp_tensor_get(a), ctp_tensor_get(b), &r);
    return ctp_tensor_result(NULL, st, r);
}

void ctp_linalg_number_slots(PyNumberMethods *nb) { nb->nb_matrix_multiply = nb_matmul; }

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }
#define METHOD(name, doc)                                                                          \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef linalg_functions[] = {
    FN(matmul, "matmul(input, other, *, out=None) -> Tensor"),
    FN(mm, "mm(input, mat2, *, out=None) -> Tensor"),
    FN(bmm, "bmm(input, mat2, *, out=None) -> Tensor"),
    FN(mv, "mv(input, vec, *, out=None) -> Tensor"),
    FN(dot, "dot(input, tensor, *, out=None) -> Tensor"),
    FN(outer, "outer(input, vec2, *, out=None) -> Tensor"),
    FN(ger, "ger(input, vec2, *, out=None) -> Tensor\n\nAlias of outer."),
    FN(addmm, "addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor"),
    FN(baddbmm, "baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef linalg_methods[] = {
    METHOD(matmul, "matmul(other) -> Tensor"),
    METHOD(mm, "mm(mat2) -> Tensor"),
    METHOD(bmm, "bmm(mat2) -> Tensor"),
    METHOD(mv, "mv(vec) -> Tensor"),
    METHOD(dot, "dot(tensor) -> Tensor"),
    METHOD(outer, "outer(vec2) -> Tensor"),
    METHOD(ger, "ger(vec2) -> Tensor"),
    METHOD(addmm, "addmm(mat1, mat2, *, beta=1, alpha=1) -> Tensor"),
    METHOD(baddbmm, "baddbmm(batch1, batch2, *, beta=1, alpha=1) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

int ctp_linalg_init(PyObject *module) {
    if (PyModule_AddFunctions(module, linalg_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(linalg_methods);
}
