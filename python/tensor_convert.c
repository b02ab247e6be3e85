/* Copies and conversions: to(), copy_(), clone(), the dtype shortcuts (float(), long(), ...),
 * cpu(), cuda(), type(), fill_(), zero_().
 *
 * to() has PyTorch's three overloads: to(device=None, dtype=None, non_blocking=False,
 * copy=False, *, memory_format=None), to(dtype, ...) and to(other, ...); like PyTorch, a
 * Python number passed as `other` (or to copy_) stands for a wrapped number, a 0-dim cpu
 * tensor of dtype bool/int64/float64/complex128. to() returns self itself when nothing
 * changes. non_blocking=True (to, cuda, copy_) makes a copy between pinned cpu memory and a
 * cuda device asynchronous on the current stream (a to() to the host then lands in pinned
 * memory, as in PyTorch); every other copy is synchronous.
 *
 * cuda() moves to the cuda backend when one is registered; without it, it raises
 * AssertionError "Torch not compiled with CUDA enabled", as a CPU-only PyTorch does. With the
 * CUDA backend but no device, moving to cuda raises the library's no-driver RuntimeError, as
 * a CUDA build of PyTorch without driver does (ctp_cuda_lazy_init_device).
 * type() returns or converts through the legacy type strings ("torch.FloatTensor"; the
 * "ctensor." prefix is accepted too).
 */
#include <string.h>

#include "ctensor_py.h"

static ct_tensor *T(PyObject *self) { return ((ctp_tensor_object *)self)->tensor; }

/* PyTorch warns once per process when a copy drops imaginary parts (TORCH_WARN_ONCE).
 * 0, or -1 when the warning was turned into an exception. */
static int warn_complex_to_real(ct_dtype from, ct_dtype to) {
    static int warned;
    if (warned || !ct_dtype_is_complex(from) || to == CT_DTYPE_UNDEFINED || ct_dtype_is_complex(to))
        return 0;
    warned = 1;
    return PyErr_WarnEx(PyExc_UserWarning,
                        "Casting complex values to real discards the imaginary part", 1);
}

/* ---- to ----------------------------------------------------------------------------------- */

static const ctp_signature to_sigs[] = {
    {5,
     {{CTP_PARAM_DEVICE, "device=None"},
      {CTP_PARAM_DTYPE, "dtype=None"},
      {CTP_PARAM_BOOL, "non_blocking=False"},
      {CTP_PARAM_BOOL, "copy=False"},
      {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}},
    {4,
     {{CTP_PARAM_DTYPE, "dtype"},
      {CTP_PARAM_BOOL, "non_blocking=False"},
      {CTP_PARAM_BOOL, "copy=False"},
      {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}},
    {4,
     {{CTP_PARAM_TENSOR_OR_NUMBER, "tensor"},
      {CTP_PARAM_BOOL, "non_blocking=False"},
      {CTP_PARAM_BOOL, "copy=False"},
      {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}},
};

static PyObject *tensor_to(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    int sig = ctp_parse_args("to", to_sigs, 3, args, kwargs, a);
    if (sig < 0)
        return NULL;
    const ctp_signature *s = &to_sigs[sig];
    ct_dtype dtype = ctp_opt_dtype(ctp_arg(s, a, "dtype"));
    ct_device device, cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    const ct_device *devp = NULL;
    int has;
    if (sig == 0) {
        if (ctp_opt_device(a[0], &device, &has) < 0)
            return NULL;
        devp = has ? &device : NULL;
    } else if (sig == 2) {
        ct_tensor *other = ctp_tensor_get(a[0]);
        if (other != NULL) {
            dtype = ct_tensor_dtype(other);
            device = ct_tensor_device(other);
            devp = &device;
        } else { /* a number: a wrapped number's dtype, on the cpu */
            ct_scalar v;
            if (ctp_scalar_of_arg(a[0], &v) < 0)
                return NULL;
            dtype = ct_scalar_dtype(v);
            devp = &cpu;
        }
    }
    ct_memory_format f = ctp_opt_memory_format(ctp_arg(s, a, "memory_format"), CT_MEMFMT_PRESERVE);
    if (warn_complex_to_real(ct_tensor_dtype(T(self)), dtype) < 0)
        return NULL;
    ct_tensor *r = NULL;
    if (ctp_opt_bool(ctp_arg(s, a, "non_blocking"))) {
        int rc = ctp_cuda_to_async(T(self), dtype, devp, f, &r);
        if (rc != 0)
            return rc < 0 ? NULL : ctp_tensor_wrap(r);
    }
    ct_status st = ct_tensor_to(T(self), dtype, devp, ctp_opt_bool(ctp_arg(s, a, "copy")), f, &r);
    return ctp_tensor_result(self, st, r);
}

/* ---- dtype shortcuts, cpu, cuda ------------------------------------------------------------- */

static const ctp_signature format_sig[] = {
    {1, {{CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}},
};

static PyObject *convert(PyObject *self, const char *fname, ct_dtype dtype, const ct_device *dev,
                         PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args(fname, format_sig, 1, args, kwargs, a) < 0 ||
        warn_complex_to_real(ct_tensor_dtype(T(self)), dtype) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_to(T(self), dtype, dev, false,
                                ctp_opt_memory_format(a[0], CT_MEMFMT_PRESERVE), &r);
    return ctp_tensor_result(self, st, r);
}

#define DTYPE_METHOD(name, dtype)                                                                  \
    static PyObject *tensor_##name(PyObject *self, PyObject *args, PyObject *kwargs) {             \
        return convert(self, #name, dtype, NULL, args, kwargs);                                    \
    }

DTYPE_METHOD(float, CT_FLOAT32)
DTYPE_METHOD(double, CT_FLOAT64)
DTYPE_METHOD(half, CT_FLOAT16)
DTYPE_METHOD(bfloat16, CT_BFLOAT16)
DTYPE_METHOD(int, CT_INT32)
DTYPE_METHOD(long, CT_INT64)
DTYPE_METHOD(short, CT_INT16)
DTYPE_METHOD(char, CT_INT8)
DTYPE_METHOD(byte, CT_UINT8)
DTYPE_METHOD(bool, CT_BOOL)
DTYPE_METHOD(cfloat, CT_COMPLEX64)
DTYPE_METHOD(cdouble, CT_COMPLEX128)
DTYPE_METHOD(chalf, CT_COMPLEX32)

static PyObject *tensor_cpu(PyObject *self, PyObject *args, PyObject *kwargs) {
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    return convert(self, "cpu", CT_DTYPE_UNDEFINED, &cpu, args, kwargs);
}

static PyObject *raise_no_cuda(void) {
    PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
    return NULL;
}

static const ctp_signature cuda_sig[] = {
    {3,
     {{CTP_PARAM_DEVICE, "device=None"},
      {CTP_PARAM_BOOL, "non_blocking=False"},
      {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}},
};

static PyObject *tensor_cuda(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_device device = {CT_DEVICE_CUDA, CT_DEVICE_NO_INDEX};
    if (ctp_parse_args("cuda", cuda_sig, 1, args, kwargs, a) < 0)
        return NULL;
    if (!ct_backend_is_registered(CT_DEVICE_CUDA))
        return raise_no_cuda();
    if (a[0] != NULL && ctp_is_int_arg(a[0])) { /* an index of cuda, whatever the accelerator */
        int64_t index;
        if (ctp_int64_of_arg(a[0], &index) < 0)
            return NULL;
        ct_status st = ct_device_make(CT_DEVICE_CUDA, index, &device);
        if (st != CT_OK)
            return ctp_raise_status(st);
    } else if (a[0] != NULL) {
        if (ctp_parse_device_arg(a[0], &device) < 0)
            return NULL;
        if (device.type != CT_DEVICE_CUDA)
            return PyErr_Format(PyExc_RuntimeError, "Invalid device, must be cuda device");
    }
    if (ctp_cuda_lazy_init_device(&device) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_memory_format f = ctp_opt_memory_format(a[2], CT_MEMFMT_PRESERVE);
    if (ctp_opt_bool(a[1])) {
        int rc = ctp_cuda_to_async(T(self), CT_DTYPE_UNDEFINED, &device, f, &r);
        if (rc != 0)
            return rc < 0 ? NULL : ctp_tensor_wrap(r);
    }
    ct_status st = ct_tensor_to(T(self), CT_DTYPE_UNDEFINED, &device, false, f, &r);
    return ctp_tensor_result(self, st, r);
}

/* ---- type() ---------------------------------------------------------------------------------- */

/* The dtype and device of a legacy type string: "[torch|ctensor].[cuda.]<Name>Tensor".
 * 1 when recognised, 0 when not, -1 with an exception (cuda without backend, sparse). */
static int parse_type_string(const char *s, ct_dtype *dtype, int *cuda) {
    const char *prefixes[] = {"torch.", "ctensor."};
    const char *rest = NULL;
    for (size_t i = 0; i < 2 && rest == NULL; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
            rest = s + strlen(prefixes[i]);
    if (rest == NULL)
        return 0;
    *cuda = strncmp(rest, "cuda.", 5) == 0;
    if (*cuda)
        rest += 5;
    if (strncmp(rest, "sparse.", 7) == 0) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "type(): converting to a sparse tensor type is not supported yet");
        return -1;
    }
    for (int d = 0; d < CT_NUM_DTYPES; d++) {
        const char *cpp = ct_dtype_cpp_name((ct_dtype)d);
        size_t n = strlen(cpp);
        if (strncmp(rest, cpp, n) == 0 && strcmp(rest + n, "Tensor") == 0) {
            *dtype = (ct_dtype)d;
            return 1;
        }
    }
    return 0;
}

static const ctp_signature type_sig[] = {
    {3,
     {{CTP_PARAM_OBJECT, "dtype=None"},
      {CTP_PARAM_BOOL, "non_blocking=False"},
      {CTP_PARAM_MEMORY_FORMAT, "*memory_format=None"}}},
};

static PyObject *tensor_type(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    char buf[64];
    if (ctp_parse_args("type", type_sig, 1, args, kwargs, a) < 0)
        return NULL;
    if (a[0] == NULL) {
        ct_status st = ct_tensor_type_string(T(self), buf, sizeof buf);
        return st == CT_OK ? PyUnicode_FromString(buf) : ctp_raise_status(st);
    }
    ct_dtype dtype;
    ct_device cuda = {CT_DEVICE_CUDA, CT_DEVICE_NO_INDEX},
              cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    const ct_device *devp = NULL;
    if (ctp_dtype_check(a[0])) {
        dtype = ctp_dtype_of_arg(a[0]);
    } else if (a[0] == (PyObject *)&ctp_tensor_type) { /* the default tensor type */
        dtype = ct_get_default_dtype();
    } else if (PyUnicode_Check(a[0]) || PyType_Check(a[0])) {
        /* a type other than Tensor goes by its name, as in PyTorch: t.type(float) is
         * "invalid type: 'float'" */
        PyObject *name = PyType_Check(a[0]) ? PyUnicode_FromString(((PyTypeObject *)a[0])->tp_name)
                                            : Py_NewRef(a[0]);
        if (name == NULL)
            return NULL;
        const char *s = PyUnicode_AsUTF8(name);
        int is_cuda = 0;
        int rc = s == NULL ? -1 : parse_type_string(s, &dtype, &is_cuda);
        if (rc == 0)
            PyErr_Format(PyExc_ValueError, "invalid type: '%U'", name);
        Py_DECREF(name);
        if (rc <= 0)
            return NULL;
        if (is_cuda && !ct_backend_is_registered(CT_DEVICE_CUDA))
            return raise_no_cuda();
        if (is_cuda && ctp_cuda_lazy_init_device(&cuda) < 0)
            return NULL;
        if (is_cuda)
            devp = &cuda;
        else if (ct_tensor_device(T(self)).type != CT_DEVICE_CPU) /* torch.XTensor is cpu */
            devp = &cpu;
    } else {
        PyErr_SetString(PyExc_TypeError, "dtype must be a type, str, or dtype object");
        return NULL;
    }
    if (warn_complex_to_real(ct_tensor_dtype(T(self)), dtype) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_to(T(self), dtype, devp, false,
                                ctp_opt_memory_format(a[2], CT_MEMFMT_PRESERVE), &r);
    return ctp_tensor_result(self, st, r);
}

/* ---- clone, copy_, fill_, zero_ ----------------------------------------------------------------
 */

static PyObject *tensor_clone(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("clone", format_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_clone(T(self), ctp_opt_memory_format(a[0], CT_MEMFMT_PRESERVE), &r);
    return ctp_tensor_result(NULL, st, r);
}

static const ctp_signature copy_sig[] = {
    {2, {{CTP_PARAM_TENSOR_OR_NUMBER, "other"}, {CTP_PARAM_BOOL, "non_blocking=False"}}},
};

static PyObject *tensor_copy_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    if (ctp_parse_args("copy_", copy_sig, 1, args, kwargs, a) < 0)
        return NULL;
    ct_tensor *src = ctp_tensor_get(a[0]), *wrapped = NULL;
    ct_status st;
    if (src == NULL) { /* a number is a wrapped-number tensor: cast, not range-checked */
        ct_scalar v;
        if (ctp_scalar_of_arg(a[0], &v) < 0)
            return NULL;
        st = ct_tensor_wrapped_number(v, &wrapped);
        if (st != CT_OK)
            return ctp_raise_status(st);
        src = wrapped;
    }
    if (warn_complex_to_real(ct_tensor_dtype(src), ct_tensor_dtype(T(self))) < 0) {
        ct_tensor_release(wrapped);
        return NULL;
    }
    st = ctp_cuda_copy(T(self), src, ctp_opt_bool(a[1]));
    ct_tensor_release(wrapped);
    return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
}

static const ctp_signature fill_sigs[] = {
    {1, {{CTP_PARAM_TENSOR, "value"}}},
    {1, {{CTP_PARAM_NUMBER, "value"}}},
};

static PyObject *tensor_fill_(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_scalar v;
    int sig = ctp_parse_args("fill_", fill_sigs, 2, args, kwargs, a);
    if (sig < 0)
        return NULL;
    ct_tensor *value = ctp_tensor_get(a[0]);
    if (value != NULL && ct_tensor_dim(value) != 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "fill_ only supports 0-dimension value tensor but got tensor with "
                            "%lld dimensions.",
                            (long long)ct_tensor_dim(value));
    if (ctp_scalar_of_arg(a[0], &v) < 0)
        return NULL;
    ct_status st = ct_tensor_fill_(T(self), v);
    return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
}

static PyObject *tensor_zero_(PyObject *self, PyObject *unused) {
    (void)unused;
    ct_status st = ct_tensor_zero_(T(self));
    return st == CT_OK ? Py_NewRef(self) : ctp_raise_status(st);
}

#define KW(name, doc)                                                                              \
    { #name, CTP_KW_FUNC(tensor_##name), METH_VARARGS | METH_KEYWORDS, doc }

PyMethodDef ctp_tensor_convert_methods[] = {
    KW(to, "to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)\n"
           "to(dtype, non_blocking=False, copy=False, *, memory_format=None)\n"
           "to(other, non_blocking=False, copy=False, *, memory_format=None) -> Tensor\n\n"
           "self when nothing changes, else a converted copy."),
    KW(float, "float(*, memory_format=ctensor.preserve_format) -> Tensor: to(ctensor.float32)"),
    KW(double, "double(...) -> Tensor: to(ctensor.float64)"),
    KW(half, "half(...) -> Tensor: to(ctensor.float16)"),
    KW(bfloat16, "bfloat16(...) -> Tensor: to(ctensor.bfloat16)"),
    KW(int, "int(...) -> Tensor: to(ctensor.int32)"),
    KW(long, "long(...) -> Tensor: to(ctensor.int64)"),
    KW(short, "short(...) -> Tensor: to(ctensor.int16)"),
    KW(char, "char(...) -> Tensor: to(ctensor.int8)"),
    KW(byte, "byte(...) -> Tensor: to(ctensor.uint8)"),
    KW(bool, "bool(...) -> Tensor: to(ctensor.bool)"),
    KW(cfloat, "cfloat(...) -> Tensor: to(ctensor.complex64)"),
    KW(cdouble, "cdouble(...) -> Tensor: to(ctensor.complex128)"),
    KW(chalf, "chalf(...) -> Tensor: to(ctensor.complex32)"),
    KW(cpu, "cpu(*, memory_format=ctensor.preserve_format) -> Tensor"),
    KW(cuda, "cuda(device=None, non_blocking=False, *, memory_format=...) -> Tensor"),
    KW(type, "type(dtype=None, non_blocking=False) -> str or Tensor\n\nWithout argument the "
             "legacy type string ('torch.FloatTensor'); with a dtype or such a string, "
             "a converted tensor."),
    KW(clone, "clone(*, memory_format=ctensor.preserve_format) -> Tensor"),
    KW(copy_, "copy_(other, non_blocking=False) -> Tensor\n\nCopy other (broadcast, "
              "converted) into self."),
    KW(fill_, "fill_(value) -> Tensor"),
    {"zero_", tensor_zero_, METH_NOARGS, "zero_() -> Tensor"},
    {NULL, NULL, 0, NULL},
};
