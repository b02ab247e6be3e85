/* The "add a product" ops of include/ctensor/linalg_add.h: the functions addbmm, addmv, addr
 * (with out=), their methods and the in-place methods addmm_, baddbmm_, addbmm_, addmv_,
 * addr_ (which return self).
 *
 * A thin skin: it parses PyTorch's signatures and calls the C API, which decides every
 * semantic and words every error. */
#include "ctensor/linalg_add.h"
#include "ctensor_py.h"

#define TEN CTP_PARAM_TENSOR
#define NUM CTP_PARAM_NUMBER

typedef ct_status (*add_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *, ct_scalar,
                            ct_scalar, ct_tensor **);
typedef ct_status (*add_out_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *, ct_scalar,
                                ct_scalar, ct_tensor *);
typedef ct_status (*add_inplace_fn)(ct_tensor *, const ct_tensor *, const ct_tensor *, ct_scalar,
                                    ct_scalar);

static int scalar_or_one(PyObject *obj, ct_scalar *s) {
    if (obj == NULL) {
        *s = ct_scalar_int(1);
        return 0;
    }
    return ctp_scalar_of_arg(obj, s);
}

/* self NULL: the function form (input first, out= allowed); inplace_fn: the `_` method. */
static PyObject *run_add(const char *fname, const char *n1, const char *n2, PyObject *self,
                         add_fn fn, add_out_fn out_fn, add_inplace_fn inplace_fn, PyObject *args,
                         PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ctp_signature sig = {6,
                         {{TEN, "input"},
                          {TEN, n1},
                          {TEN, n2},
                          {NUM, "*beta=1"},
                          {NUM, "alpha=1"},
                          {TEN, "out=None"}}};
    ctp_signature msig = {4, {{TEN, n1}, {TEN, n2}, {NUM, "*beta=1"}, {NUM, "alpha=1"}}};
    if (ctp_parse_args(fname, self ? &msig : &sig, 1, args, kwargs, a) < 0)
        return NULL;
    PyObject **p = self ? a - 1 : a; /* p[1], p[2]: the operands; p[3], p[4]: beta, alpha */
    PyObject *input = self ? self : a[0], *out = self ? NULL : a[5];
    ct_scalar beta, alpha;
    if (scalar_or_one(p[3], &beta) < 0 || scalar_or_one(p[4], &alpha) < 0)
        return NULL;
    ct_tensor *t = ctp_tensor_get(input);
    const ct_tensor *m1 = ctp_tensor_get(p[1]), *m2 = ctp_tensor_get(p[2]);
    ct_status st;
    if (inplace_fn != NULL || out != NULL) {
        PyObject *target = out != NULL ? out : input;
        st = out != NULL ? out_fn(t, m1, m2, beta, alpha, ctp_tensor_get(out))
                         : inplace_fn(t, m1, m2, beta, alpha);
        if (st != CT_OK)
            return ctp_raise_status(st);
        return ctp_warning_error() < 0 ? NULL : Py_NewRef(target);
    }
    ct_tensor *r = NULL;
    st = fn(t, m1, m2, beta, alpha, &r);
    return ctp_tensor_result(NULL, st, r);
}

#define ADD(name, n1, n2)                                                                          \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                    \
        (void)m;                                                                                   \
        return run_add(#name, n1, n2, NULL, ct_tensor_##name, ct_tensor_##name##_out, NULL, args,  \
                       kwargs);                                                                    \
    }                                                                                              \
    static PyObject *tensor_##name(PyObject *self, PyObject *args, PyObject *kwargs) {             \
        return run_add(#name, n1, n2, self, ct_tensor_##name, ct_tensor_##name##_out, NULL, args,  \
                       kwargs);                                                                    \
    }
#define ADD_(name, n1, n2)                                                                         \
    static PyObject *tensor_##name##_(PyObject *self, PyObject *args, PyObject *kwargs) {          \
        return run_add(#name "_", n1, n2, self, NULL, NULL, ct_tensor_##name##_, args, kwargs);    \
    }

ADD(addbmm, "batch1", "batch2")
ADD(addmv, "mat", "vec")
ADD(addr, "vec1", "vec2")
ADD_(addmm, "mat1", "mat2")
ADD_(baddbmm, "batch1", "batch2")
ADD_(addbmm, "batch1", "batch2")
ADD_(addmv, "mat", "vec")
ADD_(addr, "vec1", "vec2")

#define FN(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }
#define METHOD(name, doc)                                                                          \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef linalg_add_functions[] = {
    FN(addbmm, "addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor"),
    FN(addmv, "addmv(input, mat, vec, *, beta=1, alpha=1, out=None) -> Tensor"),
    FN(addr, "addr(input, vec1, vec2, *, beta=1, alpha=1, out=None) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef linalg_add_methods[] = {
    METHOD(addbmm, "addbmm(batch1, batch2, *, beta=1, alpha=1) -> Tensor"),
    METHOD(addmv, "addmv(mat, vec, *, beta=1, alpha=1) -> Tensor"),
    METHOD(addr, "addr(vec1, vec2, *, beta=1, alpha=1) -> Tensor"),
    METHOD(addmm_, "addmm_(mat1, mat2, *, beta=1, alpha=1) -> Tensor"),
    METHOD(baddbmm_, "baddbmm_(batch1, batch2, *, beta=1, alpha=1) -> Tensor"),
    METHOD(addbmm_, "addbmm_(batch1, batch2, *, beta=1, alpha=1) -> Tensor"),
    METHOD(addmv_, "addmv_(mat, vec, *, beta=1, alpha=1) -> Tensor"),
    METHOD(addr_, "addr_(vec1, vec2, *, beta=1, alpha=1) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

int ctp_linalg_add_init(PyObject *module) {
    if (PyModule_AddFunctions(module, linalg_add_functions) < 0)
        return -1;
    return ctp_tensor_add_methods(linalg_add_methods);
}
