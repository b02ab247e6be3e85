/* Argument parsing that fails in PyTorch's words.
 *
 * PyTorch's C functions parse their arguments with PythonArgParser
 * (torch/csrc/utils/python_arg_parser.cpp) and, when no signature matches, build the message
 * with format_invalid_args (torch/csrc/utils/invalid_arguments.cpp). Users and tests compare
 * those messages, so this file reproduces their rules, as PyTorch 1.13 words them, for the
 * parameter kinds ctensor needs: in particular the quirks ("missing 1 required positional
 * arguments", kwargs-only descriptions ending in ", )"). Two deliberate differences: colours
 * are never used (PyTorch colours the "!" markers when both stdout and stderr are ttys), and
 * keyword arguments are listed in call order (PyTorch lists them in std::unordered_map
 * order). Functions PyTorch writes in Python are mirrored by ctp_check_posonly_call and
 * ctp_parse_python_call.
 *
 * Optional parameters (a name "index=-1" carries its default) follow newest PyTorch, whose
 * signatures print the default ("int index = -1"); 1.13 printed "int index".
 *
 * The tensor functions add PyTorch's keyword-only parameters ("*dtype=None"), parameters that
 * are required but may be None ("names?"), and IntArrayRef's var-args form (zeros(2, 3) for
 * zeros((2, 3))), with the rules of FunctionSignature::parse.
 */
#include <string.h>

#include "ctensor_py.h"

/* ---- a growable message buffer ---------------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
    int failed; /* set once an allocation failed; later appends are ignored */
} strbuf;

static void sb_append(strbuf *sb, const char *s) {
    size_t n = strlen(s);
    if (sb->failed)
        return;
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 128;
        while (cap < sb->len + n + 1)
            cap *= 2;
        char *p = PyMem_Realloc(sb->p, cap);
        if (p == NULL) {
            sb->failed = 1;
            return;
        }
        sb->p = p;
        sb->cap = cap;
    }
    memcpy(sb->p + sb->len, s, n + 1);
    sb->len += n;
}

/* Drop the last `n` characters (the trailing ", " PyTorch erases). */
static void sb_chop(strbuf *sb, size_t n) {
    if (sb->failed || sb->len < n)
        return;
    sb->len -= n;
    sb->p[sb->len] = '\0';
}

/* Raise TypeError with the buffer's text (MemoryError if it could not be built); frees it. */
static void sb_raise(strbuf *sb) {
    if (sb->failed || sb->p == NULL)
        PyErr_NoMemory();
    else
        PyErr_SetString(PyExc_TypeError, sb->p);
    PyMem_Free(sb->p);
    sb->p = NULL;
}

/* ---- parameters ------------------------------------------------------------------------- */

const char *ctp_param_kind_name(ctp_param_kind kind) {
    switch (kind) {
    case CTP_PARAM_DTYPE:
        return "ctensor.dtype";
    case CTP_PARAM_NUMBER:
        return "Number";
    case CTP_PARAM_DEVICE:
        return "ctensor.device";
    case CTP_PARAM_STRING:
        return "str";
    case CTP_PARAM_INT64:
        return "int";
    case CTP_PARAM_INT_LIST:
        return "tuple of ints";
    case CTP_PARAM_SYMINT_LIST:
        return "tuple of SymInts";
    case CTP_PARAM_LAYOUT:
        return "ctensor.layout";
    case CTP_PARAM_MEMORY_FORMAT:
        return "ctensor.memory_format";
    case CTP_PARAM_BOOL:
        return "bool";
    case CTP_PARAM_NAME:
        return "name";
    case CTP_PARAM_NAME_LIST:
        return "tuple of names";
    case CTP_PARAM_GENERATOR:
        return "ctensor.Generator";
    case CTP_PARAM_OBJECT:
        return "object";
    case CTP_PARAM_STORAGE:
        return "ctensor.Storage";
    case CTP_PARAM_TENSOR:
    case CTP_PARAM_TENSOR_OR_NUMBER:
    default:
        return "Tensor";
    }
}

/* A parameter's name is its text after an optional '*' (keyword-only from here on) and up to
 * '=' (what follows is the default of an optional one) or '?' (required but nullable). */
static const char *name_of(const ctp_param *p) { return p->name + (p->name[0] == '*'); }

static size_t name_len(const ctp_param *p) { return strcspn(name_of(p), "=?"); }

static int is_optional(const ctp_param *p) { return name_of(p)[name_len(p)] == '='; }

/* Optional parameters are nullable too, except a Number whose default is a number (PyTorch's
 * "Scalar alpha=1" refuses None, as its non-optional Scalars do). Still a simplification:
 * PyTorch also refuses None for a few other optional ones, such as "bool copy=False". */
static int is_nullable(const ctp_param *p) {
    const char *rest = name_of(p) + name_len(p);
    if (p->kind == CTP_PARAM_NUMBER && rest[0] == '=')
        return strcmp(rest, "=None") == 0;
    return rest[0] != '\0';
}

/* The number of positional-or-keyword parameters (PyTorch's max_pos_args). */
static int max_pos_args(const ctp_signature *sig) {
    for (int i = 0; i < sig->nparams; i++)
        if (sig->params[i].name[0] == '*')
            return i;
    return sig->nparams;
}

static int is_list_kind(ctp_param_kind kind) {
    return kind == CTP_PARAM_INT_LIST || kind == CTP_PARAM_SYMINT_LIST;
}

/* PyTorch's allow_varargs_intlist: a single positional int-list parameter. */
static int allows_varargs(const ctp_signature *sig) {
    return max_pos_args(sig) == 1 && is_list_kind(sig->params[0].kind);
}

/* Whether the str `key` equals the first n bytes of `name`. */
static int key_is(PyObject *key, const char *name, size_t n) {
    Py_ssize_t len;
    const char *k = PyUnicode_AsUTF8AndSize(key, &len);
    if (k == NULL) { /* a key with lone surrogates names no parameter */
        PyErr_Clear();
        return 0;
    }
    return (size_t)len == n && memcmp(k, name, n) == 0;
}

static int key_is_param(PyObject *key, const ctp_param *p) {
    return key_is(key, name_of(p), name_len(p));
}

const char *ctp_param_name(const ctp_param *p, char buf[64]) {
    size_t n = name_len(p);
    if (n >= 64)
        n = 63;
    memcpy(buf, name_of(p), n);
    buf[n] = '\0';
    return buf;
}

static void sb_append_name(strbuf *sb, const ctp_param *p) {
    char buf[64];
    sb_append(sb, ctp_param_name(p, buf));
}

/* The Python types PyTorch accepts where a dtype is expected (THPPythonScalarType_Check;
 * complex is newest PyTorch, 1.13 refused it). */
static int is_python_scalar_type(PyObject *obj) {
    return obj == (PyObject *)&PyFloat_Type || obj == (PyObject *)&PyLong_Type ||
           obj == (PyObject *)&PyBool_Type || obj == (PyObject *)&PyComplex_Type;
}

ct_dtype ctp_dtype_of_arg(PyObject *obj) {
    if (obj == (PyObject *)&PyFloat_Type)
        return CT_FLOAT64;
    if (obj == (PyObject *)&PyLong_Type)
        return CT_INT64;
    if (obj == (PyObject *)&PyBool_Type)
        return CT_BOOL;
    if (obj == (PyObject *)&PyComplex_Type)
        return CT_COMPLEX128;
    return ((ctp_dtype_object *)obj)->dtype;
}

/* numpy.integer (np.int64, np.uint8, ...), which PyTorch accepts wherever it takes an int;
 * found through the MRO, so NumPy need not be imported or linked. */
static int is_numpy_integer(PyObject *obj) { return ctp_type_has_base(obj, "numpy.integer"); }

int ctp_is_int_arg(PyObject *obj) {
    return (PyLong_Check(obj) && !PyBool_Check(obj)) || is_numpy_integer(obj);
}

int ctp_int64_of_arg(PyObject *obj, int64_t *out) {
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow != 0) { /* PyTorch's THPUtils_unpackLong, as a RuntimeError */
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

/* The type name PyTorch prints for an argument: its tensors' type is plain "Tensor" (a
 * Python class), where ctensor's C type is named "ctensor.Tensor". */
static const char *arg_type_name(PyObject *obj) {
    return ctp_is_tensor(obj) ? "Tensor" : Py_TYPE(obj)->tp_name;
}

static int param_accepts(ctp_param_kind kind, PyObject *obj) {
    switch (kind) {
    case CTP_PARAM_DTYPE:
        return ctp_dtype_check(obj) || is_python_scalar_type(obj);
    case CTP_PARAM_NUMBER:
        return ctp_is_number_arg(obj);
    case CTP_PARAM_TENSOR:
        return ctp_is_tensor(obj);
    case CTP_PARAM_TENSOR_OR_NUMBER:
        return ctp_is_tensor(obj) || ctp_is_number_arg(obj);
    case CTP_PARAM_INT_LIST:
    case CTP_PARAM_SYMINT_LIST:
        return ctp_is_int_list_arg(obj);
    case CTP_PARAM_LAYOUT:
        return ctp_layout_check(obj);
    case CTP_PARAM_MEMORY_FORMAT:
        return ctp_memory_format_check(obj);
    case CTP_PARAM_BOOL:
        return PyBool_Check(obj) || ctp_is_numpy_bool(obj);
    case CTP_PARAM_NAME:
        return ctp_is_name_arg(obj);
    case CTP_PARAM_NAME_LIST:
        return ctp_is_name_list_arg(obj);
    case CTP_PARAM_GENERATOR:
        return ctp_generator_check(obj);
    case CTP_PARAM_OBJECT:
        return 1;
    case CTP_PARAM_STORAGE:
        return 0;
    case CTP_PARAM_DEVICE:
        return ctp_is_device_arg(obj);
    case CTP_PARAM_STRING: /* THPUtils_checkString: str, or bytes */
        return PyUnicode_Check(obj) || PyBytes_Check(obj);
    case CTP_PARAM_INT64:
        return ctp_is_int_arg(obj);
    }
    return 0;
}

/* The value of the keyword naming parameter `p` in kwargs, or NULL. Keys are str here. */
static PyObject *kwarg_get(PyObject *kwargs, const ctp_param *p) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    if (kwargs == NULL)
        return NULL;
    while (PyDict_Next(kwargs, &pos, &key, &value))
        if (key_is_param(key, p))
            return value;
    return NULL;
}

static int find_param(const ctp_signature *sig, PyObject *key) {
    for (int i = 0; i < sig->nparams; i++)
        if (key_is_param(key, &sig->params[i]))
            return i;
    return -1;
}

static int min_args(const ctp_signature *sig) {
    int n = 0;
    for (int i = 0; i < sig->nparams; i++)
        n += !is_optional(&sig->params[i]);
    return n;
}

/* ---- one signature (FunctionSignature::parse) ------------------------------------------- */

static void raise_missing(const char *fname, const ctp_signature *sig, int from) {
    strbuf names = {0};
    int n = 0;
    for (int i = from; i < sig->nparams; i++) {
        if (is_optional(&sig->params[i]))
            continue;
        if (n++ > 0)
            sb_append(&names, ", ");
        sb_append(&names, "\"");
        sb_append_name(&names, &sig->params[i]);
        sb_append(&names, "\"");
    }
    if (names.failed || names.p == NULL) {
        PyMem_Free(names.p);
        PyErr_NoMemory();
        return;
    }
    /* PyTorch's plural test is inverted: "1 ... arguments", "2 ... argument". */
    PyErr_Format(PyExc_TypeError, "%s() missing %d required positional argument%s: %s", fname, n,
                 n == 1 ? "s" : "", names.p);
    PyMem_Free(names.p);
}

static void raise_extra_kwargs(const char *fname, const ctp_signature *sig, PyObject *kwargs,
                               Py_ssize_t nargs) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        int idx = find_param(sig, key);
        if (idx < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         key);
            return;
        }
        if (idx < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", fname, key);
            return;
        }
    }
    PyErr_SetString(PyExc_TypeError, "invalid keyword arguments");
}

/* PyTorch's extra_args: too many positional arguments. */
static void raise_extra_args(const char *fname, const ctp_signature *sig, Py_ssize_t nargs) {
    int nmin = min_args(sig), npos = max_pos_args(sig);
    if (nmin != npos)
        PyErr_Format(PyExc_TypeError,
                     "%s() takes from %d to %d positional arguments but %zd were given", fname,
                     nmin, npos, nargs);
    else
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                     fname, npos, npos == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
}

/* 1 if the call matches `sig` (arguments in out[]), else 0; with `raise`, a failure also sets
 * PyTorch's TypeError. */
static int parse_one(const char *fname, const ctp_signature *sig, PyObject *args, PyObject *kwargs,
                     PyObject **out, int raise) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    Py_ssize_t remaining = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    int varargs = allows_varargs(sig);
    if (nargs > max_pos_args(sig) && !varargs) {
        if (raise)
            raise_extra_args(fname, sig, nargs);
        return 0;
    }
    Py_ssize_t arg_pos = 0;
    for (int i = 0; i < sig->nparams; i++) {
        const ctp_param *p = &sig->params[i];
        int is_kwd = arg_pos >= nargs;
        if (!is_kwd && i >= max_pos_args(sig)) { /* extra ints after a var-args int list */
            if (raise)
                raise_extra_args(fname, sig, nargs);
            return 0;
        }
        PyObject *obj = is_kwd ? kwarg_get(kwargs, p) : PyTuple_GET_ITEM(args, arg_pos);
        if (obj == NULL && is_optional(p)) {
            out[i] = NULL; /* the default */
            continue;
        }
        if (obj == NULL) {
            if (raise)
                raise_missing(fname, sig, i);
            return 0;
        }
        if (obj == Py_None && is_nullable(p)) {
            out[i] = NULL;
        } else if (param_accepts(p->kind, obj)) {
            out[i] = obj;
        } else if (varargs && i == 0 && !is_kwd && ctp_is_index_arg(obj)) {
            /* zeros(2, 3): every positional argument is an element of the list */
            out[i] = args;
            arg_pos = nargs;
            continue;
        } else {
            char name[64];
            ctp_param_name(p, name);
            if (raise && is_kwd)
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %s", fname, name,
                             ctp_param_kind_name(p->kind), arg_type_name(obj));
            else if (raise)
                PyErr_Format(PyExc_TypeError,
                             "%s(): argument '%s' (position %zd) must be %s, not %s", fname, name,
                             arg_pos + 1, ctp_param_kind_name(p->kind), arg_type_name(obj));
            return 0;
        }
        if (is_kwd)
            remaining--;
        else
            arg_pos++;
    }
    if (remaining > 0) {
        if (raise)
            raise_extra_kwargs(fname, sig, kwargs, nargs);
        return 0;
    }
    return 1;
}

/* ---- no signature matched (format_invalid_args) ----------------------------------------- */

/* PyTorch matches by type *name* here, not by the parser's checks, so "Number" never matches
 * and a Python type passed as dtype shows as "!type!". */
static int name_matches(ctp_param_kind kind, PyObject *obj) {
    return strcmp(arg_type_name(obj), ctp_param_kind_name(kind)) == 0;
}

static int append_key(strbuf *sb, PyObject *key) {
    const char *s = PyUnicode_AsUTF8(key);
    if (s == NULL)
        return -1;
    sb_append(sb, s);
    return 0;
}

/* "(int, str, other=float)" in call order; PyTorch leaves the ", " after a kwarg when there
 * are no positional arguments. */
static int append_arg_desc(strbuf *sb, PyObject *args, PyObject *kwargs) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args), pos = 0;
    PyObject *key, *value;
    sb_append(sb, "(");
    for (Py_ssize_t i = 0; i < nargs; i++) {
        sb_append(sb, arg_type_name(PyTuple_GET_ITEM(args, i)));
        sb_append(sb, ", ");
    }
    while (kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (append_key(sb, key) < 0)
            return -1;
        sb_append(sb, "=");
        sb_append(sb, arg_type_name(value));
        sb_append(sb, ", ");
    }
    if (nargs > 0)
        sb_chop(sb, 2);
    sb_append(sb, ")");
    return 0;
}

/* The parameters as PyTorch's format_invalid_args sees a printed signature: it splits the
 * text at ", ", so the "*" before keyword-only parameters counts as one more (unmatchable)
 * parameter. Entries are NULL for that "*". Returns the count. */
static int printed_params(const ctp_signature *sig, const ctp_param *out[CTP_MAX_PARAMS + 1]) {
    int n = 0;
    for (int i = 0; i < sig->nparams; i++) {
        if (sig->params[i].name[0] == '*')
            out[n++] = NULL;
        out[n++] = &sig->params[i];
    }
    return n;
}

/* The argument list with mismatches between '!': keyword arguments are taken in the order of
 * the signature's parameters (the caller made sure the counts agree). */
static void append_formatted_desc(strbuf *sb, const ctp_signature *sig, PyObject *args,
                                  PyObject *kwargs) {
    const ctp_param *opt[CTP_MAX_PARAMS + 1];
    int nopt = printed_params(sig, opt);
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    Py_ssize_t n = nargs + (kwargs ? PyDict_GET_SIZE(kwargs) : 0);
    sb_append(sb, "(");
    for (Py_ssize_t i = 0; i < n && i < nopt; i++) {
        int is_kwarg = i >= nargs;
        const ctp_param *p = opt[i];
        PyObject *arg = !is_kwarg ? PyTuple_GET_ITEM(args, i)
                        : p != NULL ? kwarg_get(kwargs, p)
                                    : NULL;
        int ok = arg != NULL && p != NULL && name_matches(p->kind, arg);
        sb_append(sb, ok ? "" : "!");
        if (is_kwarg) {
            if (p != NULL)
                sb_append_name(sb, p);
            else
                sb_append(sb, "*");
            sb_append(sb, "=");
        }
        sb_append(sb, arg != NULL ? arg_type_name(arg) : "?");
        sb_append(sb, ok ? "" : "!");
        sb_append(sb, ", ");
    }
    if (nargs > 0)
        sb_chop(sb, 2);
    sb_append(sb, ")");
}

/* Keyword names that are not among the signature's last len(kwargs) printed parameters. */
static int append_unmatched_kwargs(strbuf *sb, const ctp_signature *sig, PyObject *kwargs,
                                   int *count) {
    const ctp_param *opt[CTP_MAX_PARAMS + 1];
    int nopt = printed_params(sig, opt);
    Py_ssize_t nkw = PyDict_GET_SIZE(kwargs), pos = 0;
    Py_ssize_t start = nopt - nkw;
    PyObject *key, *value;
    *count = 0;
    if (start < 0)
        start = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        int found = 0;
        for (Py_ssize_t j = start; j < nopt; j++)
            if (opt[j] != NULL && key_is_param(key, opt[j]))
                found = 1;
        if (found)
            continue;
        if (*count > 0)
            sb_append(sb, ", ");
        if (append_key(sb, key) < 0)
            return -1;
        (*count)++;
    }
    return 0;
}

static void append_signature(strbuf *sb, const ctp_signature *sig) {
    sb_append(sb, "(");
    for (int i = 0; i < sig->nparams; i++) {
        if (i > 0)
            sb_append(sb, ", ");
        const ctp_param *p = &sig->params[i];
        if (p->name[0] == '*')
            sb_append(sb, "*, ");
        sb_append(sb, ctp_param_kind_name(p->kind));
        sb_append(sb, " ");
        sb_append_name(sb, p);
        if (is_optional(p)) { /* newest PyTorch shows defaults */
            sb_append(sb, " = ");
            sb_append(sb, name_of(p) + name_len(p) + 1);
        }
    }
    sb_append(sb, ")");
}

static void raise_invalid_combination(const char *fname, const ctp_signature *sigs, int nsigs,
                                      PyObject *args, PyObject *kwargs) {
    strbuf sb = {0};
    Py_ssize_t nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    Py_ssize_t num_args = PyTuple_GET_SIZE(args) + nkw;
    sb_append(&sb, fname);
    sb_append(&sb, "() received an invalid combination of arguments - got ");
    if (append_arg_desc(&sb, args, kwargs) < 0)
        goto fail;
    sb_append(&sb, ", but expected one of:\n");
    for (int s = 0; s < nsigs; s++) {
        sb_append(&sb, " * ");
        append_signature(&sb, &sigs[s]);
        sb_append(&sb, "\n");
        const ctp_param *opt[CTP_MAX_PARAMS + 1];
        if (printed_params(&sigs[s], opt) != num_args)
            continue;
        strbuf unmatched = {0};
        int count = 0;
        if (nkw > 0 && append_unmatched_kwargs(&unmatched, &sigs[s], kwargs, &count) < 0) {
            PyMem_Free(unmatched.p);
            goto fail;
        }
        if (count > 0) {
            sb_append(&sb, "      didn't match because some of the keywords were incorrect: ");
            sb_append(&sb, unmatched.failed ? "" : unmatched.p);
            sb.failed |= unmatched.failed;
            sb_append(&sb, "\n");
        } else {
            sb_append(&sb, "      didn't match because some of the arguments have invalid types: ");
            append_formatted_desc(&sb, &sigs[s], args, kwargs);
            sb_append(&sb, "\n");
        }
        PyMem_Free(unmatched.p);
    }
    sb_raise(&sb);
    return;
fail:
    PyMem_Free(sb.p);
}

/* ---- entry points ----------------------------------------------------------------------- */

const ctp_param *ctp_param_named(const ctp_signature *sig, const char *name) {
    for (int i = 0; i < sig->nparams; i++) {
        const ctp_param *p = &sig->params[i];
        if (strlen(name) == name_len(p) && memcmp(name, name_of(p), name_len(p)) == 0)
            return p;
    }
    return NULL;
}

PyObject *ctp_arg(const ctp_signature *sig, PyObject *const *parsed, const char *name) {
    const ctp_param *p = ctp_param_named(sig, name);
    return p == NULL ? NULL : parsed[p - sig->params];
}

static int check_string_keys(PyObject *kwargs) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "keywords must be strings");
            return -1;
        }
    }
    return 0;
}

static int parse_args(const char *fname, const ctp_signature *sigs, int nsigs, PyObject *args,
                      PyObject *kwargs, PyObject *out[CTP_MAX_PARAMS]);

/* Whether `obj` is a global tensor (a Tensor to Python, without local data). */
static int is_global_tensor(PyObject *obj) {
    return ctp_tensor_global_type != NULL && Py_TYPE(obj) == ctp_tensor_global_type;
}

int ctp_parse_args(const char *fname, const ctp_signature *sigs, int nsigs, PyObject *args,
                   PyObject *kwargs, PyObject *out[CTP_MAX_PARAMS]) {
    int r = parse_args(fname, sigs, nsigs, args, kwargs, out);
    if (r >= 0 || ctp_tensor_global_type == NULL || !PyErr_ExceptionMatches(PyExc_TypeError))
        return r;
    /* A global tensor where a local function takes tensors: OneFlow's mixing error (the
     * mirror of "Expected all tensors to be global, but found a local tensor"), not the
     * TypeError of a wrong type; only on this failure path, so a local call pays nothing. */
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    int global = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args) && !global; i++)
        global = is_global_tensor(PyTuple_GET_ITEM(args, i));
    while (!global && kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value))
        global = is_global_tensor(value);
    if (global) {
        PyErr_Clear();
        ctp_raise_global_in_local(fname);
    }
    return -1;
}

PyObject *ctp_raise_global_in_local(const char *fname) {
    return PyErr_Format(PyExc_RuntimeError,
                        "%s(): Expected all tensors to be local, but found a global tensor (no "
                        "global form of this function yet; x.to_local() gives this rank's "
                        "component)",
                        fname);
}

static int parse_args(const char *fname, const ctp_signature *sigs, int nsigs, PyObject *args,
                      PyObject *kwargs, PyObject *out[CTP_MAX_PARAMS]) {
    if (check_string_keys(kwargs) < 0)
        return -1;
    if (nsigs == 1) /* PyTorch raises the single signature's own error */
        return parse_one(fname, &sigs[0], args, kwargs, out, 1) ? 0 : -1;
    for (int s = 0; s < nsigs; s++)
        if (parse_one(fname, &sigs[s], args, kwargs, out, 0))
            return s;
    /* When exactly one signature has the right number of arguments, its error is the most
     * precise one (PythonArgParser::print_error). */
    Py_ssize_t num_args = PyTuple_GET_SIZE(args) + (kwargs ? PyDict_GET_SIZE(kwargs) : 0);
    int plausible = -1, nplausible = 0;
    for (int s = 0; s < nsigs; s++) {
        if (min_args(&sigs[s]) <= num_args && num_args <= sigs[s].nparams) {
            plausible = s;
            nplausible++;
        }
    }
    if (nplausible == 1) {
        if (parse_one(fname, &sigs[plausible], args, kwargs, out, 1))
            return plausible; /* cannot happen: it failed above */
        return -1;
    }
    raise_invalid_combination(fname, sigs, nsigs, args, kwargs);
    return -1;
}

/* Join names as CPython does in "missing" messages: 'a'; 'a' and 'b'; 'a', 'b', and 'c'. */
static void append_name_list(strbuf *sb, const char *const *names, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i > 0)
            sb_append(sb, n == 2 ? " and " : (i == n - 1 ? ", and " : ", "));
        sb_append(sb, "'");
        sb_append(sb, names[i]);
        sb_append(sb, "'");
    }
}

int ctp_check_posonly_call(const char *fname, const char *const *names, Py_ssize_t npos,
                           PyObject *args, PyObject *kwargs) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        /* CPython looks at the first keyword; as none is accepted, it reports positional-only
         * names given as keywords if there are any, else that first keyword. */
        Py_ssize_t pos = 0;
        PyObject *key, *value, *first = NULL;
        strbuf sb = {0};
        int nposonly = 0;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            if (first == NULL)
                first = key;
            if (!PyUnicode_Check(key)) {
                if (key == first) {
                    PyErr_SetString(PyExc_TypeError, "keywords must be strings");
                    PyMem_Free(sb.p);
                    return -1;
                }
                continue;
            }
            for (Py_ssize_t i = 0; i < npos; i++) {
                if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) {
                    if (nposonly++ > 0)
                        sb_append(&sb, ", ");
                    sb_append(&sb, names[i]);
                }
            }
        }
        if (nposonly > 0) {
            if (sb.failed) {
                PyMem_Free(sb.p);
                PyErr_NoMemory();
                return -1;
            }
            PyErr_Format(PyExc_TypeError,
                         "%s() got some positional-only arguments passed as keyword "
                         "arguments: '%s'",
                         fname, sb.p);
            PyMem_Free(sb.p);
            return -1;
        }
        PyMem_Free(sb.p);
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, first);
        return -1;
    }
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s but %zd %s given",
                     fname, npos, npos == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return -1;
    }
    if (nargs < npos) {
        strbuf sb = {0};
        append_name_list(&sb, names + nargs, npos - nargs);
        if (sb.failed || sb.p == NULL) {
            PyMem_Free(sb.p);
            PyErr_NoMemory();
            return -1;
        }
        PyErr_Format(PyExc_TypeError, "%s() missing %zd required positional argument%s: %s", fname,
                     npos - nargs, npos - nargs == 1 ? "" : "s", sb.p);
        PyMem_Free(sb.p);
        return -1;
    }
    return 0;
}

int ctp_parse_python_call(const char *fname, const char *const *names, int nparams, int nrequired,
                          int nposonly, PyObject *args, PyObject *kwargs, PyObject **out) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args), pos = 0;
    PyObject *key, *value;
    for (int i = 0; i < nparams; i++)
        out[i] = i < nargs ? PyTuple_GET_ITEM(args, i) : NULL;
    /* CPython checks keywords first, then the positional count, then what is missing. */
    while (kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_Format(PyExc_TypeError, "%s() keywords must be strings", fname);
            return -1;
        }
        int j = nposonly;
        while (j < nparams && !key_is(key, names[j], strlen(names[j])))
            j++;
        if (j < nparams && out[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[j]);
            return -1;
        }
        if (j < nparams) {
            out[j] = value;
            continue;
        }
        /* CPython names every positional-only parameter passed as a keyword, if any */
        for (int i = 0; i < nposonly; i++)
            if (PyDict_GetItemString(kwargs, names[i]) != NULL)
                return ctp_check_posonly_call(fname, names, nposonly, args, kwargs);
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
        return -1;
    }
    if (nargs > nparams) {
        if (nrequired == nparams)
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                         fname, nparams, nparams == 1 ? "" : "s", nargs,
                         nargs == 1 ? "was" : "were");
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %d to %d positional arguments but %zd %s given", fname,
                         nrequired, nparams, nargs, nargs == 1 ? "was" : "were");
        return -1;
    }
    const char *missing[CTP_MAX_PARAMS];
    Py_ssize_t nmissing = 0;
    for (int i = 0; i < nrequired && i < CTP_MAX_PARAMS; i++)
        if (out[i] == NULL)
            missing[nmissing++] = names[i];
    if (nmissing > 0) {
        strbuf sb = {0};
        append_name_list(&sb, missing, nmissing);
        if (sb.failed || sb.p == NULL) {
            PyMem_Free(sb.p);
            PyErr_NoMemory();
            return -1;
        }
        PyErr_Format(PyExc_TypeError, "%s() missing %zd required positional argument%s: %s", fname,
                     nmissing, nmissing == 1 ? "" : "s", sb.p);
        PyMem_Free(sb.p);
        return -1;
    }
    return 0;
}
