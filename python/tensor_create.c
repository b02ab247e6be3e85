/* Factory functions: empty, zeros, ones, full, rand, randn, randint, arange,
 * empty_strided, scalar_tensor, and the *_like family.
 *
 * Signatures are PyTorch's (1.13's overloads, printed with newest PyTorch's defaults), so the
 * parser's errors read as PyTorch's: zeros(2, dtype=1) lists both overloads of zeros. Sizes
 * may be given as separate ints or as one sequence (a ctensor.Size too).
 *
 * Devices (PyTorch 2.x's default device): a factory with no device argument, or device=None,
 * allocates on the default device (innermost `with ctensor.device(...)` of the thread, else
 * set_default_device's, else cpu); an explicit device always wins. The *_like functions follow
 * their input instead, as in PyTorch.
 *
 * Global tensors: with placement= and sbp= (module built with libctensor_dist), empty, zeros,
 * ones, full, rand, randn, randint, arange and tensor make a GlobalTensor of that logical
 * shape (ctp_run_factory takes the two keywords out before the normal parsing).
 */

#include "ctensor/sparse.h"
#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h"
#endif

/* The options every factory ends with (PyTorch's TensorOptions, in its order). */
#define OPTIONS                                                                                    \
    {CTP_PARAM_DTYPE, "dtype=None"}, {CTP_PARAM_LAYOUT, "layout=None"},                            \
        {CTP_PARAM_DEVICE, "device=None"}, {CTP_PARAM_BOOL, "pin_memory=False"}, {                 \
        CTP_PARAM_BOOL, "requires_grad=False"                                                      \
    }

/* The same options as the first keyword-only parameters. */
#define KW_OPTIONS                                                                                 \
    {CTP_PARAM_DTYPE, "*dtype=None"}, {CTP_PARAM_LAYOUT, "layout=None"},                           \
        {CTP_PARAM_DEVICE, "device=None"}, {CTP_PARAM_BOOL, "pin_memory=False"}, {                 \
        CTP_PARAM_BOOL, "requires_grad=False"                                                      \
    }

static const ctp_signature empty_sigs[] = {
    {8,
     {{CTP_PARAM_INT_LIST, "size"},
      {CTP_PARAM_NAME_LIST, "*names?"},
      {CTP_PARAM_MEMORY_FORMAT, "memory_format=None"},
      OPTIONS}},
    {8,
     {{CTP_PARAM_SYMINT_LIST, "size"},
      {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"},
      {CTP_PARAM_TENSOR, "out=None"},
      OPTIONS}},
};

/* zeros and ones */
static const ctp_signature fill_sigs[] = {
    {7, {{CTP_PARAM_INT_LIST, "size"}, {CTP_PARAM_NAME_LIST, "*names?"}, OPTIONS}},
    {7, {{CTP_PARAM_SYMINT_LIST, "size"}, {CTP_PARAM_TENSOR, "*out=None"}, OPTIONS}},
};

static const ctp_signature full_sigs[] = {
    {8,
     {{CTP_PARAM_INT_LIST, "size"},
      {CTP_PARAM_NUMBER, "fill_value"},
      {CTP_PARAM_NAME_LIST, "*names?"},
      OPTIONS}},
    {8,
     {{CTP_PARAM_SYMINT_LIST, "size"},
      {CTP_PARAM_NUMBER, "fill_value"},
      {CTP_PARAM_TENSOR, "*out=None"},
      OPTIONS}},
};

/* rand and randn */
static const ctp_signature random_sigs[] = {
    {8,
     {{CTP_PARAM_INT_LIST, "size"},
      {CTP_PARAM_GENERATOR, "*generator?"},
      {CTP_PARAM_NAME_LIST, "names?"},
      OPTIONS}},
    {8,
     {{CTP_PARAM_INT_LIST, "size"},
      {CTP_PARAM_GENERATOR, "*generator?"},
      {CTP_PARAM_TENSOR, "out=None"},
      OPTIONS}},
    {7, {{CTP_PARAM_INT_LIST, "size"}, {CTP_PARAM_TENSOR, "*out=None"}, OPTIONS}},
    {7, {{CTP_PARAM_INT_LIST, "size"}, {CTP_PARAM_NAME_LIST, "*names?"}, OPTIONS}},
};

typedef enum { F_EMPTY, F_ZEROS, F_ONES, F_FULL, F_RAND, F_RANDN } factory_kind;

/* ---- global factories ---------------------------------------------------------------------- */

PyObject *ctp_run_factory_named(ctp_factory_fn fn, const void *what, const char *name,
                                PyObject *args, PyObject *kwargs) {
#ifdef CT_HAVE_DIST
    /* a keyword argument is a cheap sign: only then look for placement= and sbp= */
    if (kwargs != NULL) {
        ctp_dist_spec spec;
        PyObject *rest = NULL;
        uint64_t mark = ctp_dist_mark();
        int k = ctp_dist_take_spec(kwargs, &rest, &spec);
        if (k < 0) /* placement= or sbp= was there: the other ranks may be in the factory */
            return ctp_dist_failed(name, mark);
        PyObject *r = fn(what, args, rest, k > 0 ? &spec : NULL);
        Py_XDECREF(rest);
        if (k > 0)
            ctp_dist_spec_clear(&spec);
        /* a global factory that raised before its C call shares the error */
        return r != NULL || k == 0 ? r : ctp_dist_failed(name, mark);
    }
#else
    (void)name;
#endif
    return fn(what, args, kwargs, NULL);
}

PyObject *ctp_run_factory(ctp_factory_fn fn, const void *what, PyObject *args, PyObject *kwargs) {
    return ctp_run_factory_named(fn, what, "factory", args, kwargs);
}

PyObject *ctp_factory_result(PyObject *local, const ctp_dist_spec *spec) {
#ifdef CT_HAVE_DIST
    if (spec != NULL)
        return ctp_dist_from_logical(local, spec);
#else
    (void)spec;
#endif
    return local;
}

/* What one factory function is. */
typedef struct factory_def {
    const char *name;
    factory_kind kind;
    const ctp_signature *sigs;
    int nsigs;
} factory_def;

/* The options shared by every factory, read from the matched signature. */
typedef struct {
    ct_dtype dtype;
    ct_device device;
    const ct_device *devp; /* NULL: the default device (or the input's, for *_like) */
} options;

/* `like`: a *_like function, whose tensor follows its input, not the default device. */
static int read_options(const char *fname, const ctp_signature *sig, PyObject **a, int like,
                        options *o) {
    int has;
    o->dtype = ctp_opt_dtype(ctp_arg(sig, a, "dtype"));
    if (ctp_check_strided_layout(fname, ctp_opt_layout(ctp_arg(sig, a, "layout"))) < 0 ||
        ctp_opt_device(ctp_arg(sig, a, "device"), &o->device, &has) < 0)
        return -1;
    o->devp = has ? &o->device : NULL;
    /* a default device of cuda is initialised as a named one (PyTorch's device mode passes
     * it as device=) */
    return has || like ? 0 : ctp_cuda_lazy_init_device(NULL);
}

/* Wrap a factory's result after the options ctensor refuses have been checked on it. */
static PyObject *finish(const ctp_signature *sig, PyObject **a, ct_status st, ct_tensor *r) {
    if (st != CT_OK)
        return ctp_raise_status(st);
    if (ctp_check_factory_options(ct_tensor_dtype(r), ctp_arg(sig, a, "requires_grad"),
                                  ctp_arg(sig, a, "names"), ctp_arg(sig, a, "out")) < 0) {
        ct_tensor_release(r);
        return NULL;
    }
    if (ctp_cuda_pin(ctp_arg(sig, a, "pin_memory"), &r) < 0) { /* releases r on failure */
        ct_tensor_release(r);
        return NULL;
    }
    return ctp_tensor_wrap(r);
}

/* layout=sparse_coo: empty and zeros give an all-zero sparse tensor with every dim sparse,
 * as PyTorch does; the factories that write values are not defined for sparse tensors and
 * fail with PyTorch's messages. */
static PyObject *sparse_factory(const char *fname, factory_kind kind, const ctp_signature *sig,
                                PyObject **a, const int64_t *sizes, Py_ssize_t n) {
    if (kind == F_ONES || kind == F_FULL) {
        PyErr_SetString(PyExc_RuntimeError, "full(...) is not implemented for sparse layout");
        return NULL;
    }
    if (kind == F_RAND || kind == F_RANDN) {
        PyErr_Format(PyExc_NotImplementedError,
                     "Could not run 'aten::%s' with arguments from the 'SparseCPU' backend.",
                     kind == F_RAND ? "uniform_" : "normal_");
        return NULL;
    }
    options o;
    int has;
    o.dtype = ctp_opt_dtype(ctp_arg(sig, a, "dtype"));
    if (ctp_opt_device(ctp_arg(sig, a, "device"), &o.device, &has) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_sparse_coo_zeros(sizes, (int64_t)n, (int64_t)n, o.dtype,
                                       has ? &o.device : NULL, &r);
    (void)fname;
    return finish(sig, a, st, r);
}

static PyObject *run_factory(const void *what, PyObject *args, PyObject *kwargs,
                             const ctp_dist_spec *spec) {
    const factory_def *def = what;
    const char *fname = def->name;
    const factory_kind kind = def->kind;
    const ctp_signature *sigs = def->sigs;
    const int nsigs = def->nsigs;
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS];
    options o;
    int s = ctp_parse_args(fname, sigs, nsigs, args, kwargs, a);
    if (s < 0)
        return NULL;
    const ctp_signature *sig = &sigs[s];
    Py_ssize_t n = ctp_int_list_of_arg(fname, &sig->params[0], a[0], sizes);
    if (n < 0)
        return NULL;
    ct_layout layout = ctp_opt_layout(ctp_arg(sig, a, "layout"));
    if (layout == CT_LAYOUT_SPARSE_COO && spec == NULL)
        return sparse_factory(fname, kind, sig, a, sizes, n);
    if (read_options(fname, sig, a, 0, &o) < 0)
        return NULL;
#ifdef CT_HAVE_DIST
    if (spec != NULL && kind != F_RAND && kind != F_RANDN) {
        /* constants: each rank makes only its part (ct_global_full and friends) */
        ct_scalar value = ct_scalar_int(0);
        if (kind == F_FULL && ctp_scalar_of_arg(ctp_arg(sig, a, "fill_value"), &value) < 0)
            return NULL;
        if (ctp_check_factory_options(o.dtype == CT_DTYPE_UNDEFINED ? ct_get_default_dtype()
                                                                    : o.dtype,
                                      ctp_arg(sig, a, "requires_grad"), ctp_arg(sig, a, "names"),
                                      ctp_arg(sig, a, "out")) < 0)
            return NULL;
        if (ctp_opt_bool(ctp_arg(sig, a, "pin_memory"))) {
            PyErr_SetString(PyExc_NotImplementedError,
                            "ctensor does not support pinned memory for global tensors");
            return NULL;
        }
        static const int codes[] = {[F_EMPTY] = 0, [F_ZEROS] = 1, [F_ONES] = 2, [F_FULL] = 3};
        return ctp_dist_constant(codes[kind], sizes, n, value, o.dtype, spec);
    }
#endif
    ct_tensor *r = NULL;
    ct_status st = CT_OK;
    switch (kind) {
    case F_EMPTY:
        st = ct_tensor_empty(
            sizes, n, o.dtype, o.devp, CT_LAYOUT_STRIDED,
            ctp_opt_memory_format(ctp_arg(sig, a, "memory_format"), CT_MEMFMT_CONTIGUOUS), &r);
        break;
    case F_ZEROS:
        st = ct_tensor_zeros(sizes, n, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
        break;
    case F_ONES:
        st = ct_tensor_ones(sizes, n, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
        break;
    case F_FULL: {
        ct_scalar value;
        if (ctp_scalar_of_arg(ctp_arg(sig, a, "fill_value"), &value) < 0)
            return NULL;
        st = ct_tensor_full(sizes, n, value, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
        break;
    }
    case F_RAND:
    case F_RANDN: {
        ct_generator *g = ctp_generator_of_arg(ctp_arg(sig, a, "generator"));
        st = (kind == F_RAND ? ct_tensor_rand : ct_tensor_randn)(sizes, n, g, o.dtype, o.devp,
                                                                 CT_LAYOUT_STRIDED, &r);
        break;
    }
    }
    return ctp_factory_result(finish(sig, a, st, r), spec);
}

#define RUN_FACTORY(name, kind, sigs, nsigs)                                                       \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                    \
        static const factory_def def = {#name, kind, sigs, nsigs};                                 \
        (void)m;                                                                                   \
        return ctp_run_factory_named(run_factory, &def, #name, args, kwargs);                      \
    }

RUN_FACTORY(empty, F_EMPTY, empty_sigs, 2)
RUN_FACTORY(zeros, F_ZEROS, fill_sigs, 2)
RUN_FACTORY(ones, F_ONES, fill_sigs, 2)
static PyObject *py_full(PyObject *m, PyObject *args, PyObject *kwargs) {
    static const factory_def def = {"full", F_FULL, full_sigs, 2};
    (void)m;
#ifdef CT_HAVE_DIST
    PyObject *fill = PyTuple_GET_SIZE(args) >= 2 ? PyTuple_GET_ITEM(args, 1)
                     : kwargs != NULL              ? PyDict_GetItemString(kwargs, "fill_value")
                                                   : NULL;
    if (fill != NULL && ctp_global_check(fill)) /* OneFlow's full with a global fill value */
        return ctp_dist_full_global_fill(run_factory, &def, args, kwargs);
#endif
    return ctp_run_factory_named(run_factory, &def, "full", args, kwargs);
}
RUN_FACTORY(rand, F_RAND, random_sigs, 4)
RUN_FACTORY(randn, F_RANDN, random_sigs, 4)

/* ---- randint ----------------------------------------------------------------------------------- */

static const ctp_signature randint_sigs[] = {
    {9,
     {{CTP_PARAM_INT64, "high"},
      {CTP_PARAM_SYMINT_LIST, "size"},
      {CTP_PARAM_GENERATOR, "*generator=None"},
      {CTP_PARAM_TENSOR, "out=None"},
      OPTIONS}},
    {10,
     {{CTP_PARAM_INT64, "low"},
      {CTP_PARAM_INT64, "high"},
      {CTP_PARAM_SYMINT_LIST, "size"},
      {CTP_PARAM_GENERATOR, "*generator=None"},
      {CTP_PARAM_TENSOR, "out=None"},
      OPTIONS}},
};

static PyObject *run_randint(const void *what, PyObject *args, PyObject *kwargs,
                             const ctp_dist_spec *spec) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS], low = 0, high;
    options o;
    (void)what;
    int s = ctp_parse_args("randint", randint_sigs, 2, args, kwargs, a);
    if (s < 0)
        return NULL;
    const ctp_signature *sig = &randint_sigs[s];
    PyObject *low_obj = ctp_arg(sig, a, "low");
    if ((low_obj != NULL && ctp_int64_of_arg(low_obj, &low) < 0) ||
        ctp_int64_of_arg(ctp_arg(sig, a, "high"), &high) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("randint", ctp_param_named(sig, "size"),
                                       ctp_arg(sig, a, "size"), sizes);
    if (n < 0 || read_options("randint", sig, a, 0, &o) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_randint(low, high, sizes, n,
                                     ctp_generator_of_arg(ctp_arg(sig, a, "generator")), o.dtype,
                                     o.devp, CT_LAYOUT_STRIDED, &r);
    return ctp_factory_result(finish(sig, a, st, r), spec);
}

static PyObject *py_randint(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return ctp_run_factory_named(run_randint, NULL, "randint", args, kwargs);
}

/* ---- arange, empty_strided, scalar_tensor ------------------------------------------------ */

static const ctp_signature arange_sigs[] = {
    {7, {{CTP_PARAM_NUMBER, "end"}, {CTP_PARAM_TENSOR, "*out=None"}, OPTIONS}},
    {7, {{CTP_PARAM_NUMBER, "start"}, {CTP_PARAM_NUMBER, "end"}, KW_OPTIONS}},
    {9,
     {{CTP_PARAM_NUMBER, "start"},
      {CTP_PARAM_NUMBER, "end"},
      {CTP_PARAM_NUMBER, "step=1"},
      {CTP_PARAM_TENSOR, "*out=None"},
      OPTIONS}},
};

static PyObject *run_arange(const void *what, PyObject *args, PyObject *kwargs,
                            const ctp_dist_spec *spec) {
    PyObject *a[CTP_MAX_PARAMS];
    options o;
    (void)what;
    int s = ctp_parse_args("arange", arange_sigs, 3, args, kwargs, a);
    if (s < 0)
        return NULL;
    const ctp_signature *sig = &arange_sigs[s];
    ct_scalar start = ct_scalar_int(0), end, step = ct_scalar_int(1);
    PyObject *start_obj = ctp_arg(sig, a, "start"), *step_obj = ctp_arg(sig, a, "step");
    if ((start_obj != NULL && ctp_scalar_of_arg(start_obj, &start) < 0) ||
        ctp_scalar_of_arg(ctp_arg(sig, a, "end"), &end) < 0 ||
        (step_obj != NULL && ctp_scalar_of_arg(step_obj, &step) < 0) ||
        read_options("arange", sig, a, 0, &o) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_arange(start, end, step, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
    return ctp_factory_result(finish(sig, a, st, r), spec);
}

static PyObject *py_arange(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return ctp_run_factory_named(run_arange, NULL, "arange", args, kwargs);
}

static const ctp_signature empty_strided_sig[] = {
    {7, {{CTP_PARAM_SYMINT_LIST, "size"}, {CTP_PARAM_SYMINT_LIST, "stride"}, KW_OPTIONS}},
};

static PyObject *py_empty_strided(PyObject *m, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    options o;
    (void)m;
    const ctp_signature *sig = &empty_strided_sig[0];
    if (ctp_parse_args("empty_strided", sig, 1, args, kwargs, a) < 0)
        return NULL;
    Py_ssize_t n = ctp_int_list_of_arg("empty_strided", &sig->params[0], a[0], sizes);
    if (n < 0)
        return NULL;
    Py_ssize_t ns = ctp_int_list_of_arg("empty_strided", &sig->params[1], a[1], strides);
    if (ns < 0 || read_options("empty_strided", sig, a, 0, &o) < 0)
        return NULL;
    if (ns != n)
        return PyErr_Format(PyExc_RuntimeError,
                            "dimensionality of sizes (%zd) must match dimensionality of strides "
                            "(%zd)",
                            n, ns);
    ct_tensor *r = NULL;
    ct_status st =
        ct_tensor_empty_strided(sizes, strides, n, o.dtype, o.devp, CT_LAYOUT_STRIDED, &r);
    return finish(sig, a, st, r);
}

static const ctp_signature scalar_tensor_sig[] = {
    {6, {{CTP_PARAM_NUMBER, "s"}, KW_OPTIONS}},
};

static PyObject *py_scalar_tensor(PyObject *m, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    options o;
    ct_scalar value;
    (void)m;
    const ctp_signature *sig = &scalar_tensor_sig[0];
    if (ctp_parse_args("scalar_tensor", sig, 1, args, kwargs, a) < 0 ||
        ctp_scalar_of_arg(a[0], &value) < 0 || read_options("scalar_tensor", sig, a, 0, &o) < 0)
        return NULL;
    /* Unlike tensor(), scalar_tensor's dtype is the default dtype whatever the value is. */
    if (o.dtype == CT_DTYPE_UNDEFINED)
        o.dtype = ct_get_default_dtype();
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_scalar_tensor(value, o.dtype, o.devp, &r);
    return finish(sig, a, st, r);
}

/* ---- *_like ------------------------------------------------------------------------------ */

#define LIKE_OPTIONS                                                                               \
    {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}, {CTP_PARAM_DTYPE, "dtype=None"},             \
        {CTP_PARAM_LAYOUT, "layout=None"}, {CTP_PARAM_DEVICE, "device=None"},                      \
        {CTP_PARAM_BOOL, "pin_memory=False"}, {                                                    \
        CTP_PARAM_BOOL, "requires_grad=False"                                                      \
    }

static const ctp_signature like_sig[] = {
    {7, {{CTP_PARAM_TENSOR, "input"}, LIKE_OPTIONS}},
};

static const ctp_signature full_like_sig[] = {
    {8, {{CTP_PARAM_TENSOR, "input"}, {CTP_PARAM_NUMBER, "fill_value"}, LIKE_OPTIONS}},
};

#ifdef CT_HAVE_DIST
/* *_like of a global input (its placement and sbp, unless given) or with placement= and sbp=:
 * the options are parsed with the input's meta stand-in in its place. */
static PyObject *run_like_global(const char *fname, factory_kind kind, PyObject *args,
                                 PyObject *kwargs, const ctp_dist_spec *spec) {
    PyObject *a[CTP_MAX_PARAMS];
    options o;
    ct_scalar value = ct_scalar_int(0);
    const ctp_signature *sig = kind == F_FULL ? &full_like_sig[0] : &like_sig[0];
    int positional = PyTuple_GET_SIZE(args) > 0;
    PyObject *input = positional ? PyTuple_GET_ITEM(args, 0)
                                 : (kwargs != NULL ? PyDict_GetItemString(kwargs, "input") : NULL);
    PyObject *stand_in = NULL, *args2 = NULL, *kwargs2 = NULL, *r = NULL;
    if (input != NULL && ctp_global_check(input)) {
        stand_in = ctp_global_stand_in(input);
        /* a new tuple (a full slice would be `args` itself) */
        args2 = stand_in != NULL ? PyTuple_New(PyTuple_GET_SIZE(args)) : NULL;
        for (Py_ssize_t i = 0; args2 != NULL && i < PyTuple_GET_SIZE(args); i++)
            PyTuple_SET_ITEM(args2, i, Py_NewRef(i == 0 ? stand_in : PyTuple_GET_ITEM(args, i)));
        kwargs2 = kwargs != NULL && args2 != NULL ? PyDict_Copy(kwargs) : NULL;
        if (args2 == NULL || (kwargs != NULL && kwargs2 == NULL))
            goto done;
        if (!positional && PyDict_SetItemString(kwargs2, "input", stand_in) < 0)
            goto done;
    } else {
        args2 = Py_NewRef(args);
        kwargs2 = Py_XNewRef(kwargs);
    }
    if (ctp_parse_args(fname, sig, 1, args2, kwargs2, a) < 0 ||
        (kind == F_FULL && ctp_scalar_of_arg(a[1], &value) < 0) ||
        read_options(fname, sig, a, 1, &o) < 0 ||
        ctp_check_factory_options(CT_FLOAT32, ctp_arg(sig, a, "requires_grad"), NULL, NULL) < 0)
        goto done;
    if (o.devp != NULL) {
        PyErr_SetString(PyExc_ValueError, "device and placement cannot be given together");
        goto done;
    }
    r = ctp_dist_like((int)kind, input, value, o.dtype, spec);
done:
    Py_XDECREF(stand_in);
    Py_XDECREF(args2);
    Py_XDECREF(kwargs2);
    return r;
}
#endif

/* *_like of a sparse input, or with layout=sparse_coo: ct_sparse_like decides. */
static PyObject *sparse_like(factory_kind kind, const ctp_signature *sig, PyObject **a,
                             const ct_tensor *t, ct_scalar value) {
    static const ct_sparse_fill fills[] = {
        [F_EMPTY] = CT_SPARSE_FILL_EMPTY, [F_ZEROS] = CT_SPARSE_FILL_ZEROS,
        [F_ONES] = CT_SPARSE_FILL_ONES,   [F_FULL] = CT_SPARSE_FILL_FULL,
        [F_RAND] = CT_SPARSE_FILL_RAND,   [F_RANDN] = CT_SPARSE_FILL_RANDN};
    ct_sparse_like_options so = CT_SPARSE_LIKE_OPTIONS_INIT;
    ct_device dev;
    int has;
    PyObject *layout = ctp_arg(sig, a, "layout"), *mf = ctp_arg(sig, a, "memory_format");
    so.dtype = ctp_opt_dtype(ctp_arg(sig, a, "dtype"));
    so.has_layout = layout != NULL && layout != Py_None;
    so.layout = ctp_opt_layout(layout);
    so.has_memory_format = mf != NULL && mf != Py_None;
    so.memory_format = ctp_opt_memory_format(mf, CT_MEMFMT_PRESERVE);
    so.fill_value = value;
    if (ctp_opt_device(ctp_arg(sig, a, "device"), &dev, &has) < 0)
        return NULL;
    so.device = has ? &dev : NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_sparse_like(t, fills[kind], &so, &r);
    return finish(sig, a, st, r);
}

static PyObject *run_like(const char *fname, factory_kind kind, PyObject *args, PyObject *kwargs,
                          const ctp_dist_spec *spec) {
    PyObject *a[CTP_MAX_PARAMS];
    options o;
    ct_scalar value = ct_scalar_int(0);
    const ctp_signature *sig = kind == F_FULL ? &full_like_sig[0] : &like_sig[0];
#ifdef CT_HAVE_DIST
    if (spec != NULL || (PyTuple_GET_SIZE(args) > 0 && ctp_global_check(PyTuple_GET_ITEM(args, 0))) ||
        (PyTuple_GET_SIZE(args) == 0 && kwargs != NULL && PyDict_GetItemString(kwargs, "input") &&
         ctp_global_check(PyDict_GetItemString(kwargs, "input"))))
        return run_like_global(fname, kind, args, kwargs, spec);
#else
    (void)spec;
#endif
    if (ctp_parse_args(fname, sig, 1, args, kwargs, a) < 0 ||
        (kind == F_FULL && ctp_scalar_of_arg(a[1], &value) < 0))
        return NULL;
    const ct_tensor *t = ctp_tensor_get(a[0]);
    PyObject *layout_arg = ctp_arg(sig, a, "layout");
    if (ct_sparse_is_sparse(t) ||
        (layout_arg != NULL && ctp_opt_layout(layout_arg) == CT_LAYOUT_SPARSE_COO))
        return sparse_like(kind, sig, a, t, value);
    if (read_options(fname, sig, a, 1, &o) < 0)
        return NULL;
    ct_memory_format f =
        ctp_opt_memory_format(ctp_arg(sig, a, "memory_format"), CT_MEMFMT_PRESERVE);
    ct_tensor *r = NULL;
    ct_status st = CT_OK;
    switch (kind) {
    case F_EMPTY:
        st = ct_tensor_empty_like(t, o.dtype, o.devp, f, &r);
        break;
    case F_ZEROS:
        st = ct_tensor_zeros_like(t, o.dtype, o.devp, f, &r);
        break;
    case F_ONES:
        st = ct_tensor_ones_like(t, o.dtype, o.devp, f, &r);
        break;
    case F_FULL:
        st = ct_tensor_full_like(t, value, o.dtype, o.devp, f, &r);
        break;
    case F_RAND:
        st = ct_tensor_rand_like(t, NULL, o.dtype, o.devp, f, &r);
        break;
    case F_RANDN:
        st = ct_tensor_randn_like(t, NULL, o.dtype, o.devp, f, &r);
        break;
    }
    return finish(sig, a, st, r);
}

typedef struct {
    const char *fname;
    factory_kind kind;
} like_what;

/* placement= and sbp= are taken out by ctp_run_factory_named */
static PyObject *like_body(const void *what, PyObject *args, PyObject *kwargs,
                           const ctp_dist_spec *spec) {
    const like_what *w = what;
    return run_like(w->fname, w->kind, args, kwargs, spec);
}

static PyObject *py_empty_like(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const like_what w = {"empty_like", F_EMPTY};
    return ctp_run_factory_named(like_body, &w, "empty_like", args, kwargs);
}

static PyObject *py_zeros_like(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const like_what w = {"zeros_like", F_ZEROS};
    return ctp_run_factory_named(like_body, &w, "zeros_like", args, kwargs);
}

static PyObject *py_ones_like(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const like_what w = {"ones_like", F_ONES};
    return ctp_run_factory_named(like_body, &w, "ones_like", args, kwargs);
}

static PyObject *py_full_like(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const like_what w = {"full_like", F_FULL};
    return ctp_run_factory_named(like_body, &w, "full_like", args, kwargs);
}

static PyObject *py_rand_like(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const like_what w = {"rand_like", F_RAND};
    return ctp_run_factory_named(like_body, &w, "rand_like", args, kwargs);
}

static PyObject *py_randn_like(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static const like_what w = {"randn_like", F_RANDN};
    return ctp_run_factory_named(like_body, &w, "randn_like", args, kwargs);
}

#define FACTORY(name, doc)                                                                         \
    { #name, CTP_KW_FUNC(py_##name), METH_VARARGS | METH_KEYWORDS, doc }

PyMethodDef ctp_tensor_create_functions[] = {
    FACTORY(empty, "empty(*size, *, memory_format=None, dtype=None, layout=None, device=None, "
                   "pin_memory=False, requires_grad=False) -> Tensor\n\nAn uninitialised tensor."),
    FACTORY(zeros, "zeros(*size, *, dtype=None, layout=None, device=None, pin_memory=False, "
                   "requires_grad=False) -> Tensor"),
    FACTORY(ones, "ones(*size, *, dtype=None, layout=None, device=None, pin_memory=False, "
                  "requires_grad=False) -> Tensor"),
    FACTORY(full, "full(size, fill_value, *, dtype=None, layout=None, device=None, "
                  "pin_memory=False, requires_grad=False) -> Tensor"),
    FACTORY(rand, "rand(*size, *, generator=None, dtype=None, layout=None, device=None, "
                  "pin_memory=False, requires_grad=False) -> Tensor\n\nUniform in [0, 1)."),
    FACTORY(randn, "randn(*size, *, generator=None, dtype=None, layout=None, device=None, "
                   "pin_memory=False, requires_grad=False) -> Tensor\n\nStandard normal."),
    FACTORY(randint, "randint(low=0, high, size, *, generator=None, dtype=None, layout=None, "
                     "device=None, pin_memory=False, requires_grad=False) -> Tensor\n\nUniform "
                     "integers in [low, high); dtype int64 unless given."),
    FACTORY(arange, "arange(start=0, end, step=1, *, dtype=None, layout=None, device=None, "
                    "pin_memory=False, requires_grad=False) -> Tensor"),
    FACTORY(empty_strided, "empty_strided(size, stride, *, dtype=None, layout=None, device=None, "
                           "pin_memory=False, requires_grad=False) -> Tensor"),
    FACTORY(scalar_tensor, "scalar_tensor(s, *, dtype=None, layout=None, device=None, "
                           "pin_memory=False, requires_grad=False) -> Tensor"),
    FACTORY(empty_like, "empty_like(input, *, memory_format=ctensor.preserve_format, dtype=None, "
                        "layout=None, device=None, pin_memory=False, requires_grad=False) -> "
                        "Tensor"),
    FACTORY(zeros_like, "zeros_like(input, *, memory_format=ctensor.preserve_format, dtype=None, "
                        "...) -> Tensor"),
    FACTORY(ones_like, "ones_like(input, *, memory_format=ctensor.preserve_format, dtype=None, "
                       "...) -> Tensor"),
    FACTORY(full_like, "full_like(input, fill_value, *, memory_format=ctensor.preserve_format, "
                       "dtype=None, ...) -> Tensor"),
    FACTORY(rand_like, "rand_like(input, *, memory_format=ctensor.preserve_format, dtype=None, "
                       "...) -> Tensor"),
    FACTORY(randn_like, "randn_like(input, *, memory_format=ctensor.preserve_format, "
                        "dtype=None, ...) -> Tensor"),
    {NULL, NULL, 0, NULL},
};
