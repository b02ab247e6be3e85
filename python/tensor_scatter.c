/* gather, scatter(_), scatter_add(_), scatter_reduce(_), index_add(_), index_fill(_) and
 * index_copy(_) as torch functions (out= where torch has it), Tensor methods and in-place
 * methods: argument parsing only; ctensor/scatter.h owns the semantics and messages. */
#include "ctensor_py.h"
#include "ctensor/scatter.h"

#define TEN CTP_PARAM_TENSOR
#define I64 CTP_PARAM_INT64
#define BOO CTP_PARAM_BOOL
#define NUM CTP_PARAM_NUMBER
#define STR CTP_PARAM_STRING

typedef enum { OP_GATHER, OP_SCATTER, OP_SCATTER_ADD, OP_SCATTER_REDUCE, OP_INDEX_ADD,
               OP_INDEX_FILL, OP_INDEX_COPY } sc_kind;
typedef enum { FORM_FUNCTION, FORM_METHOD, FORM_INPLACE } sc_form;

typedef struct {
    const char *name;
    sc_kind op;
    sc_form form;
    const ctp_signature *sigs;
    int nsigs;
} sc_entry;

#define IN {TEN, "input"}
#define DI {I64, "dim"}, {TEN, "index"}
static const ctp_signature f_gather[] = {
    {5, {IN, DI, {BOO, "*sparse_grad=False"}, {TEN, "out=None"}}}};
static const ctp_signature m_gather[] = {{3, {DI, {BOO, "*sparse_grad=False"}}}};
static const ctp_signature f_scatter[] = {
    {6, {IN, DI, {TEN, "src"}, {STR, "*reduce=None"}, {TEN, "out=None"}}},
    {6, {IN, DI, {NUM, "value"}, {STR, "*reduce=None"}, {TEN, "out=None"}}}};
static const ctp_signature m_scatter[] = {{4, {DI, {TEN, "src"}, {STR, "*reduce=None"}}},
                                          {4, {DI, {NUM, "value"}, {STR, "*reduce=None"}}}};
static const ctp_signature f_scatter_add[] = {{5, {IN, DI, {TEN, "src"}, {TEN, "*out=None"}}}};
static const ctp_signature m_scatter_add[] = {{3, {DI, {TEN, "src"}}}};
static const ctp_signature f_scatter_reduce[] = {
    {7, {IN, DI, {TEN, "src"}, {STR, "reduce"}, {BOO, "*include_self=True"}, {TEN, "out=None"}}}};
static const ctp_signature m_scatter_reduce[] = {
    {5, {DI, {TEN, "src"}, {STR, "reduce"}, {BOO, "*include_self=True"}}}};
static const ctp_signature f_index_add[] = {
    {6, {IN, DI, {TEN, "source"}, {NUM, "*alpha=1"}, {TEN, "out=None"}}}};
static const ctp_signature m_index_add[] = {{4, {DI, {TEN, "source"}, {NUM, "*alpha=1"}}}};
static const ctp_signature f_index_fill[] = {{4, {IN, DI, {TEN, "value"}}},
                                             {4, {IN, DI, {NUM, "value"}}}};
static const ctp_signature m_index_fill[] = {{3, {DI, {TEN, "value"}}}, {3, {DI, {NUM, "value"}}}};
static const ctp_signature f_index_copy[] = {{5, {IN, DI, {TEN, "source"}, {TEN, "*out=None"}}}};
static const ctp_signature m_index_copy[] = {{3, {DI, {TEN, "source"}}}};

#define SIGS(s) s, (int)(sizeof s / sizeof s[0])
#define TRIPLE(name, OP, f, m)                                                                     \
    {#name, OP, FORM_FUNCTION, SIGS(f)}, {#name, OP, FORM_METHOD, SIGS(m)},                        \
        {#name "_", OP, FORM_INPLACE, SIGS(m)}
static const sc_entry ENTRIES[] = {
    {"gather", OP_GATHER, FORM_FUNCTION, SIGS(f_gather)},
    {"gather", OP_GATHER, FORM_METHOD, SIGS(m_gather)},
    TRIPLE(scatter, OP_SCATTER, f_scatter, m_scatter),
    TRIPLE(scatter_add, OP_SCATTER_ADD, f_scatter_add, m_scatter_add),
    TRIPLE(scatter_reduce, OP_SCATTER_REDUCE, f_scatter_reduce, m_scatter_reduce),
    TRIPLE(index_add, OP_INDEX_ADD, f_index_add, m_index_add),
    TRIPLE(index_fill, OP_INDEX_FILL, f_index_fill, m_index_fill),
    TRIPLE(index_copy, OP_INDEX_COPY, f_index_copy, m_index_copy),
};
#define NUM_ENTRIES (int)(sizeof ENTRIES / sizeof ENTRIES[0])

static const char *string_of(PyObject *obj) {
    if (PyBytes_Check(obj))
        return PyBytes_AsString(obj);
    return PyUnicode_AsUTF8(obj);
}

static PyObject *sc_call(const sc_entry *e, PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int k = ctp_parse_args(e->name, e->sigs, e->nsigs, args, kwargs, a);
    if (k < 0)
        return NULL;
    const ctp_signature *sig = &e->sigs[k];
    PyObject *in = e->form == FORM_FUNCTION ? ctp_arg(sig, a, "input") : self;
    PyObject *out = ctp_arg(sig, a, "out");
    ct_tensor *t = ctp_tensor_get(in), *o = out != NULL ? ctp_tensor_get(out) : NULL, *r = NULL;
    const ct_tensor *index = ctp_tensor_get(ctp_arg(sig, a, "index"));
    int64_t dim;
    if (ctp_int64_of_arg(ctp_arg(sig, a, "dim"), &dim) < 0)
        return NULL;
    bool inplace = e->form == FORM_INPLACE;
    PyObject *src_obj = ctp_arg(sig, a, "src");
    if (src_obj == NULL)
        src_obj = ctp_arg(sig, a, "source");
    const ct_tensor *src = src_obj != NULL ? ctp_tensor_get(src_obj) : NULL;
    PyObject *vobj = ctp_arg(sig, a, "value"), *robj = ctp_arg(sig, a, "reduce");
    ct_scalar value = ct_scalar_int(0);
    ct_scatter_mode mode = CT_SCATTER_REDUCE_NONE;
    ct_status st = CT_OK;
    if (vobj != NULL && !ctp_tensor_check(vobj) && ctp_scalar_of_arg(vobj, &value) < 0)
        return NULL;
    if (robj != NULL) {
        const char *name = string_of(robj);
        if (name == NULL)
            return NULL;
        st = ct_scatter_reduce_parse(name, e->op == OP_SCATTER_REDUCE, &mode);
        if (st != CT_OK)
            return ctp_raise_status(st);
    }
    switch (e->op) {
    case OP_GATHER: st = ct_gather(t, dim, index, o, &r); break;
    case OP_SCATTER:
    case OP_SCATTER_ADD:
        if (e->op == OP_SCATTER_ADD)
            mode = CT_SCATTER_REDUCE_SUM;
        st = inplace ? ct_scatter_(t, dim, index, src, src ? NULL : &value, mode)
                     : ct_scatter(t, dim, index, src, src ? NULL : &value, mode, o, &r);
        break;
    case OP_SCATTER_REDUCE: {
        PyObject *inc = ctp_arg(sig, a, "include_self");
        bool include = inc == NULL || inc == Py_True;
        st = inplace ? ct_scatter_reduce_(t, dim, index, src, mode, include)
                     : ct_scatter_reduce(t, dim, index, src, mode, include, o, &r);
        break;
    }
    case OP_INDEX_ADD: {
        PyObject *al = ctp_arg(sig, a, "alpha");
        ct_scalar alpha = ct_scalar_int(1);
        if (al != NULL && ctp_scalar_of_arg(al, &alpha) < 0)
            return NULL;
        st = inplace ? ct_index_add_(t, dim, index, src, alpha)
                     : ct_index_add(t, dim, index, src, alpha, o, &r);
        break;
    }
    case OP_INDEX_FILL: {
        const ct_tensor *vt = ctp_tensor_check(vobj) ? ctp_tensor_get(vobj) : NULL;
        ct_tensor *dst = t;
        if (!inplace && (st = ct_tensor_clone(t, CT_MEMFMT_PRESERVE, &r)) == CT_OK)
            dst = r;
        if (st == CT_OK)
            st = vt != NULL ? ct_index_fill_tensor_(dst, dim, index, vt)
                            : ct_index_fill_(dst, dim, index, value);
        break;
    }
    case OP_INDEX_COPY:
        st = inplace ? ct_index_copy_(t, dim, index, src) : ct_index_copy(t, dim, index, src, o, &r);
        break;
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return ctp_raise_status(st);
    }
    if (inplace)
        return Py_NewRef(self);
    if (o != NULL) {
        ct_tensor_release(r);
        return Py_NewRef(out);
    }
    return ctp_tensor_wrap(r);
}

#define FN(i)                                                                                      \
    static PyObject *fn_##i(PyObject *self, PyObject *args, PyObject *kwargs) {                    \
        return sc_call(&ENTRIES[i], self, args, kwargs);                                           \
    }
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7) FN(8) FN(9) FN(10) FN(11) FN(12) FN(13) FN(14)
FN(15) FN(16) FN(17) FN(18) FN(19)
typedef PyObject *(*sc_pyfn)(PyObject *, PyObject *, PyObject *);
static const sc_pyfn FNS[] = {fn_0,  fn_1,  fn_2,  fn_3,  fn_4,  fn_5,  fn_6,
                              fn_7,  fn_8,  fn_9,  fn_10, fn_11, fn_12, fn_13,
                              fn_14, fn_15, fn_16, fn_17, fn_18, fn_19};
_Static_assert(sizeof FNS / sizeof FNS[0] == sizeof ENTRIES / sizeof ENTRIES[0],
               "one C function per entry");

#define KW METH_VARARGS | METH_KEYWORDS
static PyMethodDef functions[NUM_ENTRIES + 1];
static PyMethodDef methods[NUM_ENTRIES + 1];

static int sc_entry_def(int i, PyMethodDef *def) {
    *def = (PyMethodDef){ENTRIES[i].name, CTP_KW_FUNC(FNS[i]), KW,
                         "gather / scatter / index_* (include/ctensor/scatter.h)"};
    return ENTRIES[i].form == FORM_FUNCTION;
}

int ctp_scatter_init(PyObject *module) {
    return ctp_add_entry_defs(module, NUM_ENTRIES, sc_entry_def, functions, methods);
}
