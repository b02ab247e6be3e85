/* Random generators: ctensor.Generator, ctensor.default_generator, manual_seed, initial_seed,
 * seed.
 *
 * A Generator wraps a ct_generator (Philox4x32-10; values differ from torch's MT19937, the
 * determinism per seed is what ctensor promises). ctensor.default_generator wraps the
 * process-wide default one, which rand/randn use when no generator is given. State is the
 * seed and the offset: get_state() returns them as a uint8 tensor of 16 bytes (little
 * endian), which set_state() takes back.
 *
 * Seeds follow torch.Generator.manual_seed: any int in [-2**63, 2**64) (negative ones wrap
 * to uint64), else RuntimeError "Overflow when unpacking long"; ctensor.manual_seed(x) first
 * converts x with int(), as torch.manual_seed does.
 */
#include <string.h>

#include "ctensor_py.h"

typedef struct {
    PyObject ob_base;
    ct_generator *gen;
    int owned; /* 0 for the default generator, which lives as long as the process */
    ct_device device;
} ctp_generator_object;

static PyObject *default_generator_obj;

ct_generator *ctp_generator_of_arg(PyObject *obj) {
    return obj == NULL ? NULL : ((ctp_generator_object *)obj)->gen;
}

static int seed_of(PyObject *obj, uint64_t *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_RuntimeError, "manual_seed expected a long, but got %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow == 0) {
        *out = (uint64_t)v; /* negative seeds wrap, as torch's */
        return 0;
    }
    unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(obj) : 0;
    if (overflow > 0 && !(u == (unsigned long long)-1 && PyErr_Occurred())) {
        *out = u;
        return 0;
    }
    PyErr_Clear();
    PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    return -1;
}

/* ---- the Generator type ------------------------------------------------------------------ */

static const ctp_signature generator_sig[] = {{1, {{CTP_PARAM_DEVICE, "device=None"}}}};

static PyObject *generator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *a[CTP_MAX_PARAMS];
    ct_device device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    int has;
    /* not ctp_opt_device: a generator allocates nothing, so cuda is not initialised */
    if (ctp_parse_args("Generator", generator_sig, 1, args, kwargs, a) < 0 ||
        (a[0] != NULL && ctp_parse_device_arg(a[0], &device) < 0))
        return NULL;
    has = a[0] != NULL && device.type != CT_DEVICE_UNDEFINED;
    ct_status st = ct_generator_device(has ? &device : NULL, &device);
    if (st != CT_OK)
        return ctp_raise_status(st);
    ctp_generator_object *self = (ctp_generator_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    st = ct_generator_new(CT_DEFAULT_SEED, &self->gen);
    if (st != CT_OK) {
        Py_DECREF(self);
        return ctp_raise_status(st);
    }
    self->owned = 1;
    self->device = device;
    return (PyObject *)self;
}

static void generator_dealloc(PyObject *obj) {
    ctp_generator_object *self = (ctp_generator_object *)obj;
    if (self->owned)
        ct_generator_free(self->gen);
    Py_TYPE(obj)->tp_free(obj);
}

static PyObject *gen_manual_seed(PyObject *self, PyObject *arg) {
    uint64_t seed;
    if (seed_of(arg, &seed) < 0)
        return NULL;
    ct_generator_manual_seed(((ctp_generator_object *)self)->gen, seed);
    return Py_NewRef(self);
}

static PyObject *gen_initial_seed(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(
        ct_generator_initial_seed(((ctp_generator_object *)self)->gen));
}

/* seed(): a nondeterministic seed from os.urandom, set and returned. */
static PyObject *gen_seed(PyObject *self, PyObject *unused) {
    (void)unused;
    PyObject *os = PyImport_ImportModule("os");
    if (os == NULL)
        return NULL;
    PyObject *bytes = PyObject_CallMethod(os, "urandom", "i", 8);
    Py_DECREF(os);
    if (bytes == NULL)
        return NULL;
    uint64_t seed = 0;
    if (PyBytes_Check(bytes) && PyBytes_GET_SIZE(bytes) == 8)
        memcpy(&seed, PyBytes_AS_STRING(bytes), 8);
    Py_DECREF(bytes);
    seed &= (UINT64_C(1) << 63) - 1; /* torch's seed() returns a non-negative int64 */
    ct_generator_manual_seed(((ctp_generator_object *)self)->gen, seed);
    return PyLong_FromUnsignedLongLong(seed);
}

static PyObject *gen_get_state(PyObject *self, PyObject *unused) {
    (void)unused;
    uint64_t seed, offset;
    uint8_t bytes[16];
    ct_generator_get_state(((ctp_generator_object *)self)->gen, &seed, &offset);
    for (int i = 0; i < 8; i++) {
        bytes[i] = (uint8_t)(seed >> (8 * i));
        bytes[8 + i] = (uint8_t)(offset >> (8 * i));
    }
    int64_t n = 16;
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_from_data(&n, 1, CT_UINT8, bytes, &cpu, &r);
    return st == CT_OK ? ctp_tensor_wrap(r) : ctp_raise_status(st);
}

static PyObject *gen_set_state(PyObject *self, PyObject *arg) {
    ct_tensor *t = ctp_tensor_get(arg);
    if (t == NULL || ct_tensor_dtype(t) != CT_UINT8 || ct_tensor_numel(t) != 16 ||
        ct_tensor_device(t).type != CT_DEVICE_CPU) {
        PyErr_SetString(PyExc_RuntimeError,
                        "set_state(): the state must be a cpu uint8 tensor of 16 elements, as "
                        "get_state() returns");
        return NULL;
    }
    ct_tensor *c = NULL;
    ct_status st = ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &c);
    if (st != CT_OK)
        return ctp_raise_status(st);
    const uint8_t *bytes = ct_tensor_data_ptr(c);
    uint64_t seed = 0, offset = 0;
    for (int i = 0; i < 8; i++) {
        seed |= (uint64_t)bytes[i] << (8 * i);
        offset |= (uint64_t)bytes[8 + i] << (8 * i);
    }
    ct_tensor_release(c);
    ct_generator_set_state(((ctp_generator_object *)self)->gen, seed, offset);
    return Py_NewRef(self);
}

static PyObject *gen_get_device(PyObject *self, void *closure) {
    (void)closure;
    return ctp_device_new(((ctp_generator_object *)self)->device);
}

static PyMethodDef generator_methods[] = {
    {"manual_seed", gen_manual_seed, METH_O,
     "manual_seed(seed) -> Generator\n\nReseed (offset 0); returns the generator."},
    {"initial_seed", gen_initial_seed, METH_NOARGS, "initial_seed() -> int"},
    {"seed", gen_seed, METH_NOARGS, "seed() -> int\n\nReseed nondeterministically."},
    {"get_state", gen_get_state, METH_NOARGS,
     "get_state() -> Tensor\n\nThe state (seed and offset) as 16 uint8 values."},
    {"set_state", gen_set_state, METH_O, "set_state(state) -> Generator"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef generator_getset[] = {
    {"device", gen_get_device, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* clang-format off */
PyTypeObject ctp_generator_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctensor.Generator",
    .tp_basicsize = sizeof(ctp_generator_object),
    .tp_dealloc = generator_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Generator(device=None): a Philox4x32-10 random number generator.",
    .tp_methods = generator_methods,
    .tp_getset = generator_getset,
    .tp_new = generator_new,
};
/* clang-format on */

/* ---- module functions -------------------------------------------------------------------- */

/* manual_seed(seed): `def manual_seed(seed)` in torch; int(seed) first, then the default
 * generator's manual_seed. Returns the default generator. */
static PyObject *py_manual_seed(PyObject *m, PyObject *args, PyObject *kwargs) {
    static const char *const names[] = {"seed"};
    PyObject *a[CTP_MAX_PARAMS];
    (void)m;
    if (ctp_parse_python_call("manual_seed", names, 1, 1, 0, args, kwargs, a) < 0)
        return NULL;
    PyObject *seed = PyNumber_Long(a[0]);
    if (seed == NULL)
        return NULL;
    PyObject *r = gen_manual_seed(default_generator_obj, seed);
    Py_DECREF(seed);
    return r;
}

static PyObject *py_initial_seed(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    if (ctp_check_posonly_call("initial_seed", NULL, 0, args, kwargs) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(ct_initial_seed());
}

static PyObject *py_seed(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    if (ctp_check_posonly_call("seed", NULL, 0, args, kwargs) < 0)
        return NULL;
    return gen_seed(default_generator_obj, NULL);
}

PyMethodDef ctp_tensor_random_functions[] = {
    {"manual_seed", CTP_KW_FUNC(py_manual_seed), METH_VARARGS | METH_KEYWORDS,
     "manual_seed(seed) -> Generator\n\nReseed the default generator with int(seed)."},
    {"initial_seed", CTP_KW_FUNC(py_initial_seed), METH_VARARGS | METH_KEYWORDS,
     "initial_seed() -> int\n\nThe default generator's seed."},
    {"seed", CTP_KW_FUNC(py_seed), METH_VARARGS | METH_KEYWORDS,
     "seed() -> int\n\nReseed the default generator nondeterministically."},
    {NULL, NULL, 0, NULL},
};

int ctp_generator_init(PyObject *module) {
    if (PyType_Ready(&ctp_generator_type) < 0 ||
        PyModule_AddObjectRef(module, "Generator", (PyObject *)&ctp_generator_type) < 0)
        return -1;
    if (default_generator_obj == NULL) {
        ctp_generator_object *g = PyObject_New(ctp_generator_object, &ctp_generator_type);
        if (g == NULL)
            return -1;
        g->gen = ct_default_generator();
        g->owned = 0;
        g->device = (ct_device){CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        default_generator_obj = (PyObject *)g;
    }
    return PyModule_AddObjectRef(module, "default_generator", default_generator_obj);
}
