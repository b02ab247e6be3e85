/* ctensor.save_file / ctensor.load_file (also as ctensor.safetensors.save_file/load_file),
 * the names of the safetensors package, over include/ctensor/safetensors.h. The C layer
 * parses, checks, maps and writes; this file only moves dicts, paths and tensors across.
 * Argument errors are the package's (ValueError "Expected a dict of [str, torch.Tensor] but
 * received <class 'list'>"). */
#include "ctensor_py.h"

#include "ctensor/safetensors.h"

/* filename: str, bytes or os.PathLike, as open() takes it. New reference to bytes. */
static PyObject *fs_path(PyObject *obj) {
    PyObject *b = NULL;
    return PyUnicode_FSConverter(obj, &b) ? b : NULL;
}

static PyObject *py_save_file(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static char k0[] = "tensors", k1[] = "filename", k2[] = "metadata";
    static char *kwlist[] = {k0, k1, k2, NULL};
    PyObject *dict = NULL, *filename = NULL, *metadata = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:save_file", kwlist, &dict, &filename,
                                     &metadata))
        return NULL;
    if (!PyDict_Check(dict))
        return PyErr_Format(PyExc_ValueError, "Expected a dict of [str, torch.Tensor] but received %R",
                            (PyObject *)Py_TYPE(dict));
    if (metadata != Py_None && !PyDict_Check(metadata))
        return PyErr_Format(PyExc_TypeError, "metadata must be a dict of str to str, not %s",
                            Py_TYPE(metadata)->tp_name);
    Py_ssize_t n = PyDict_Size(dict), nm = metadata != Py_None ? PyDict_Size(metadata) : 0;
    PyObject *path = fs_path(filename);
    const char **names = PyMem_Calloc((size_t)n + 1, sizeof *names);
    const ct_tensor **tensors = PyMem_Calloc((size_t)n + 1, sizeof *tensors);
    const char **keys = PyMem_Calloc((size_t)nm + 1, sizeof *keys);
    const char **values = PyMem_Calloc((size_t)nm + 1, sizeof *values);
    PyObject *result = NULL;
    if (path == NULL || names == NULL || tensors == NULL || keys == NULL || values == NULL) {
        if (path != NULL)
            PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_Format(PyExc_TypeError, "tensor names must be str, not %s", Py_TYPE(key)->tp_name);
            goto done;
        }
        if (!ctp_tensor_check(value)) {
            if (ctp_type_has_base(value, "ctensor.GlobalTensor"))
                PyErr_Format(PyExc_ValueError, "Key `%U` is a global tensor: save its to_local() "
                                               "or a gathered copy", key);
            else
                PyErr_Format(PyExc_ValueError,
                             "Key `%U` is invalid, expected torch.Tensor but received %R", key,
                             (PyObject *)Py_TYPE(value));
            goto done;
        }
        if ((names[i] = PyUnicode_AsUTF8(key)) == NULL)
            goto done;
        tensors[i++] = ctp_tensor_get(value);
    }
    pos = 0;
    i = 0;
    while (metadata != Py_None && PyDict_Next(metadata, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyUnicode_Check(value)) {
            PyErr_SetString(PyExc_TypeError, "metadata must be a dict of str to str");
            goto done;
        }
        if ((keys[i] = PyUnicode_AsUTF8(key)) == NULL ||
            (values[i] = PyUnicode_AsUTF8(value)) == NULL)
            goto done;
        i++;
    }
    ct_status st;
    Py_BEGIN_ALLOW_THREADS
    st = ct_safetensors_save(PyBytes_AS_STRING(path), (size_t)n, names, tensors, (size_t)nm, keys,
                             values);
    Py_END_ALLOW_THREADS
    result = st == CT_OK ? Py_NewRef(Py_None) : ctp_raise_status(st);
done:
    Py_XDECREF(path);
    PyMem_Free(names);
    PyMem_Free(tensors);
    PyMem_Free(keys);
    PyMem_Free(values);
    return result;
}

/* One tensor of the file, moved to `device` when that is not cpu. */
static PyObject *file_tensor(ct_safetensors *f, size_t i, const ct_device *device) {
    ct_tensor *t = NULL;
    ct_status st = ct_safetensors_tensor(f, i, &t);
    if (st == CT_OK && device != NULL && device->type != CT_DEVICE_CPU) {
        ct_tensor *moved = NULL;
        st = ct_tensor_to_device(t, *device, &moved);
        ct_tensor_release(t);
        t = moved;
    }
    return st == CT_OK ? ctp_tensor_wrap(t) : ctp_raise_status(st);
}

static PyObject *py_load_file(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static char k0[] = "filename", k1[] = "device";
    static char *kwlist[] = {k0, k1, NULL};
    PyObject *filename = NULL, *devobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:load_file", kwlist, &filename, &devobj))
        return NULL;
    ct_device device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    if (devobj != NULL && devobj != Py_None && ctp_parse_device_arg(devobj, &device) < 0)
        return NULL;
    PyObject *path = fs_path(filename);
    if (path == NULL)
        return NULL;
    ct_safetensors *f = NULL;
    ct_status st;
    Py_BEGIN_ALLOW_THREADS
    st = ct_safetensors_open(PyBytes_AS_STRING(path), &f);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != CT_OK)
        return ctp_raise_status(st);
    PyObject *dict = PyDict_New();
    for (size_t i = 0; dict != NULL && i < ct_safetensors_count(f); i++) {
        ct_safetensors_info info;
        st = ct_safetensors_info_at(f, i, &info);
        PyObject *t = st == CT_OK ? file_tensor(f, i, &device) : ctp_raise_status(st);
        if (t == NULL || PyDict_SetItemString(dict, info.name, t) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(t);
    }
    ct_safetensors_close(f);
    return dict;
}

/* The __metadata__ of a file as a dict (None when it has none). */
static PyObject *py_load_metadata(PyObject *m, PyObject *filename) {
    (void)m;
    PyObject *path = fs_path(filename);
    if (path == NULL)
        return NULL;
    ct_safetensors *f = NULL;
    ct_status st = ct_safetensors_open(PyBytes_AS_STRING(path), &f);
    Py_DECREF(path);
    if (st != CT_OK)
        return ctp_raise_status(st);
    PyObject *dict = ct_safetensors_metadata_count(f) > 0 ? PyDict_New() : Py_NewRef(Py_None);
    for (size_t i = 0; dict != Py_None && dict != NULL && i < ct_safetensors_metadata_count(f);
         i++) {
        const char *k = NULL, *v = NULL;
        (void)ct_safetensors_metadata_at(f, i, &k, &v);
        PyObject *pv = PyUnicode_FromString(v);
        if (pv == NULL || PyDict_SetItemString(dict, k, pv) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(pv);
    }
    ct_safetensors_close(f);
    return dict;
}

static PyMethodDef safetensors_functions[] = {
    {"save_file", CTP_KW_FUNC(py_save_file), METH_VARARGS | METH_KEYWORDS,
     "save_file(tensors, filename, metadata=None) -> None\n\nWrite a dict of str to Tensor "
     "(any strides and device; written contiguous) and an optional dict of str to str as a "
     "safetensors file."},
    {"load_file", CTP_KW_FUNC(py_load_file), METH_VARARGS | METH_KEYWORDS,
     "load_file(filename, device='cpu') -> dict\n\nRead a safetensors file: cpu tensors are "
     "views of the memory-mapped file (no copy); other devices get copies."},
    {"load_metadata", py_load_metadata, METH_O,
     "load_metadata(filename) -> dict or None\n\nThe file's __metadata__."},
    {NULL, NULL, 0, NULL},
};

/* ctensor itself gets the two functions torch users reach for (safetensors.torch's names). */
static PyMethodDef main_functions[] = {
    {"save_file", CTP_KW_FUNC(py_save_file), METH_VARARGS | METH_KEYWORDS, NULL},
    {"load_file", CTP_KW_FUNC(py_load_file), METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef safetensors_module = {
    PyModuleDef_HEAD_INIT, .m_name = "ctensor.safetensors",
    .m_doc = "The safetensors format: save_file, load_file (include/ctensor/safetensors.h).",
    .m_size = -1, .m_methods = safetensors_functions,
};

int ctp_safetensors_init(PyObject *module); /* module.c */
int ctp_safetensors_init(PyObject *module) {
    main_functions[0].ml_doc = safetensors_functions[0].ml_doc;
    main_functions[1].ml_doc = safetensors_functions[1].ml_doc;
    if (PyModule_AddFunctions(module, main_functions) < 0)
        return -1;
    return ctp_add_submodule(module, &safetensors_module, "safetensors") == NULL ? -1 : 0;
}
