/* Docstrings and text signatures from the one table python/docs.def (Note [Docs table]).
 *
 * Note [Docs table]
 * ~~~~~~~~~~~~~~~~~
 * Every public name of the module has one row in python/docs.def: its owner (the module, a
 * submodule or a class), its name, its parameters, its return type and one line of meaning.
 * The same rows make the type stubs (python/gen_stubs.py, at build time) and, here, the
 * docstrings: once every function and type is registered, ctp_docs_init finds each row's
 * object and points the ml_doc of its PyMethodDef (or the doc of its PyGetSetDef) at
 * "name(params)\n--\n\nmeaning", the form from which CPython derives __text_signature__, so
 * help() and inspect.signature() show the row's parameters. A row of several signatures
 * (CTP_FUNCX, overloads) lists them without the "--" marker: help() shows them as text.
 * The method tables are left as they are, so adding a function never touches this file:
 * add its row (tests/python/test_stubs.py fails for a public name without one).
 */
#include "ctensor_py.h"

#include <string.h>
#include <structmember.h> /* PyMemberDef before 3.12 */

int ctp_docs_init(PyObject *module);

typedef enum { DOC_FUNC, DOC_FUNCX, DOC_STATIC, DOC_PROP } doc_kind;

typedef struct {
    const char *owner; /* "" (the module), "cuda" (a submodule), "Tensor", "cuda.Stream" */
    const char *name;
    const char *params; /* "(input, other, *, alpha=1)"; overloads joined by " | " */
    const char *meaning;
    doc_kind kind;
} doc_row;

#define CTP_FUNC(owner, name, params, ret, meaning) {owner, name, params, meaning, DOC_FUNC},
#define CTP_FUNCX(owner, name, params, ret, meaning) {owner, name, params, meaning, DOC_FUNCX},
#define CTP_STATIC(owner, name, params, ret, meaning) {owner, name, params, meaning, DOC_STATIC},
#define CTP_PROP(owner, name, type, meaning) {owner, name, NULL, meaning, DOC_PROP},
/* rows that only the stubs use: CPython's slot wrappers carry their own docs */
#define CTP_SLOT(...)
#define CTP_DATA(...)
#define CTP_CLASS(...)
#define CTP_MODULE(...)
static const doc_row doc_rows[] = {
#include "docs.def"
};

/* `owner` ("", "Tensor", "cuda.Stream") resolved from the module: a new reference. */
static PyObject *resolve_owner(PyObject *module, const char *owner) {
    PyObject *obj = Py_NewRef(module);
    const char *p = owner;
    while (*p != '\0') {
        const char *dot = strchr(p, '.');
        size_t len = dot != NULL ? (size_t)(dot - p) : strlen(p);
        PyObject *part = PyUnicode_FromStringAndSize(p, (Py_ssize_t)len);
        PyObject *next = part != NULL ? PyObject_GetAttr(obj, part) : NULL;
        Py_XDECREF(part);
        Py_DECREF(obj);
        if (next == NULL) {
            PyErr_Clear(); /* an optional part (dist, cuda) that this build lacks */
            return NULL;
        }
        obj = next;
        p += len + (dot != NULL);
    }
    return obj;
}

/* "name(<prefix>params)\n--\n\nmeaning", or for overloads "name(a)\nname(b)\n\nmeaning".
 * Allocated once per row and kept for the life of the process (the def points at it). */
static char *compose(const doc_row *row, const char *prefix) {
    size_t name_len = strlen(row->name), n_sigs = 1;
    for (const char *s = strstr(row->params, " | "); s != NULL; s = strstr(s + 3, " | "))
        n_sigs++;
    if (row->kind == DOC_FUNCX)
        prefix = ""; /* no text signature: help() shows the lines as written */
    /* per signature: the name, "<prefix>, " and a newline; then "\n--\n\n" and the NUL */
    size_t cap = strlen(row->params) + strlen(row->meaning) +
                 n_sigs * (name_len + strlen(prefix) + 3) + 8;
    char *doc = PyMem_RawMalloc(cap), *out = doc;
    if (doc == NULL)
        return NULL;
    const char *p = row->params;
    for (;;) {
        const char *bar = strstr(p, " | ");
        size_t len = bar != NULL ? (size_t)(bar - p) : strlen(p);
        memcpy(out, row->name, name_len);
        out += name_len;
        if (*prefix != '\0' && len >= 2 && p[0] == '(') {
            /* "(a, b)" -> "($self, a, b)"; "()" -> "($self)" */
            *out++ = '(';
            size_t plen = strlen(prefix);
            memcpy(out, prefix, plen);
            out += plen;
            if (len > 2) {
                memcpy(out, ", ", 2);
                out += 2;
            }
            memcpy(out, p + 1, len - 1);
            out += len - 1;
        } else {
            memcpy(out, p, len);
            out += len;
        }
        if (bar == NULL)
            break;
        *out++ = '\n';
        p = bar + 3;
    }
    const char *sep = row->kind == DOC_FUNCX ? "\n\n" : "\n--\n\n";
    memcpy(out, sep, strlen(sep));
    out += strlen(sep);
    strcpy(out, row->meaning);
    return doc;
}

static int patch_def(PyMethodDef *def, const doc_row *row, const char *prefix) {
    /* an alias bound to another name's def keeps that name's doc */
    if (def == NULL || strcmp(def->ml_name, row->name) != 0)
        return 0;
    char *doc = compose(row, prefix);
    if (doc == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    def->ml_doc = doc; /* the previous doc was a string literal of the method table */
    return 0;
}

static int apply_row(PyObject *owner, const doc_row *row) {
    PyObject *obj;
    if (PyType_Check(owner)) {
        /* the descriptor itself, not what attribute access binds */
        PyObject *dict = PyObject_GetAttrString(owner, "__dict__");
        obj = dict != NULL ? PyMapping_GetItemString(dict, row->name) : NULL;
        Py_XDECREF(dict);
        if (obj == NULL) {
            PyErr_Clear();
            return 0;
        }
    } else {
        obj = PyObject_GetAttrString(owner, row->name);
        if (obj == NULL) {
            PyErr_Clear();
            return 0;
        }
    }
    int rc = 0;
    if (Py_IS_TYPE(obj, &PyMethodDescr_Type)) {
        rc = patch_def(((PyMethodDescrObject *)obj)->d_method, row, "$self");
    } else if (Py_IS_TYPE(obj, &PyClassMethodDescr_Type)) {
        rc = patch_def(((PyMethodDescrObject *)obj)->d_method, row, "$type");
    } else if (PyCFunction_Check(obj)) {
        rc = patch_def(((PyCFunctionObject *)obj)->m_ml, row, "");
    } else if (Py_IS_TYPE(obj, &PyStaticMethod_Type)) {
        PyObject *func = PyObject_GetAttrString(obj, "__func__");
        if (func == NULL)
            rc = -1;
        else if (PyCFunction_Check(func))
            rc = patch_def(((PyCFunctionObject *)func)->m_ml, row, "");
        Py_XDECREF(func);
    } else if (Py_IS_TYPE(obj, &PyGetSetDescr_Type) && row->kind == DOC_PROP) {
        ((PyGetSetDescrObject *)obj)->d_getset->doc = row->meaning;
    } else if (Py_IS_TYPE(obj, &PyMemberDescr_Type) && row->kind == DOC_PROP) {
        ((PyMemberDescrObject *)obj)->d_member->doc = row->meaning;
    }
    Py_DECREF(obj);
    return rc;
}

int ctp_docs_init(PyObject *module) {
    const char *last_owner = NULL;
    PyObject *owner = NULL;
    int rc = 0;
    for (size_t i = 0; i < sizeof doc_rows / sizeof doc_rows[0] && rc == 0; i++) {
        const doc_row *row = &doc_rows[i];
        if (last_owner == NULL || strcmp(last_owner, row->owner) != 0) {
            Py_XDECREF(owner);
            owner = resolve_owner(module, row->owner);
            last_owner = row->owner;
        }
        if (owner != NULL)
            rc = apply_row(owner, row);
    }
    Py_XDECREF(owner);
    return rc;
}
