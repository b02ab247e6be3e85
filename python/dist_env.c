/* The MPI environment from Python: ctensor.env (get_rank, get_world_size, get_local_rank,
 * get_node_size, all_device_placement), MPI's finalization at exit, and the set-up of the
 * whole distributed part of the module.
 *
 * Importing ctensor does not start MPI: the C library starts it on first use (ct_dist_init,
 * called by every dist function that needs it) or adopts an MPI someone else started
 * (mpi4py). At interpreter exit (the atexit module) ct_dist_finalize frees the library's
 * communicators and finalizes MPI if the library started it; nothing happens when MPI never
 * started or was already finalized (mpi4py's own exit handler may run first).
 *
 * Debian's Open MPI 4.1 loads its components fine from an extension module loaded with
 * RTLD_LOCAL (they link libopen-pal themselves), so libmpi is not re-opened RTLD_GLOBAL as
 * mpi4py does for older MPIs.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "ctensor_dist_py.h"

#ifdef CTP_HAVE_MPI4PY
#include <mpi4py/mpi4py.h>
#endif

PyObject *ctp_dist_raise(ct_status st) { return ctp_raise_status(st); }

/* ---- deprecation warnings ------------------------------------------------------------------- */

static PyObject *deprecation_category;

int ctp_dist_warn_deprecated(const char *message) {
    PyObject *cat = deprecation_category != NULL ? deprecation_category : PyExc_UserWarning;
    return PyErr_WarnEx(cat, message, 1);
}

/* ---- failures on one rank ------------------------------------------------------------------- */

static uint64_t g_entered;

uint64_t ctp_dist_mark(void) { return g_entered; }
void ctp_dist_entered(void) { g_entered++; }

/* The status whose exception is (a base of) `type`; RuntimeError for the others. */
static ct_status status_of_exception(PyObject *type) {
    static const struct {
        PyObject **exc;
        ct_status st;
    } map[] = {
        {&PyExc_TypeError, CT_ERR_TYPE},   {&PyExc_ValueError, CT_ERR_VALUE},
        {&PyExc_IndexError, CT_ERR_INDEX}, {&PyExc_NotImplementedError, CT_ERR_NOT_IMPLEMENTED},
        {&PyExc_MemoryError, CT_ERR_NOMEM}, {&PyExc_RuntimeError, CT_ERR_RUNTIME},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (PyErr_GivenExceptionMatches(type, *map[i].exc))
            return map[i].st;
    return CT_ERR_RUNTIME;
}

PyObject *ctp_dist_failed(const char *op, uint64_t mark) {
    if (!PyErr_Occurred() || mark != g_entered)
        return NULL; /* the C operation ran: it already agreed with the other ranks */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    ct_status st = status_of_exception(type);
    PyObject *text = value != NULL ? PyObject_Str(value) : NULL;
    const char *msg = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
    if (msg == NULL) {
        PyErr_Clear();
        msg = "(no message)";
    }
    /* Python's own exception, formatted for the other ranks; the class name is added where
     * the status's kind does not already say it. */
    const char *name = PyExceptionClass_Check(type) ? PyExceptionClass_Name(type) : "Exception";
    const int same = PyErr_GivenExceptionMatches(type, PyExc_RuntimeError) ||
                     st != CT_ERR_RUNTIME;
    if (same)
        ct_set_error(st, "%s", msg);
    else
        ct_set_error(st, "%s: %s", name, msg);
    Py_XDECREF(text);
    /* the GIL stays held, as in every collective: it keeps MPI use serialized */
    ct_global_fail(op, st);
    ct_clear_error();
    PyErr_Restore(type, value, tb);
    return NULL;
}

/* ---- an uncaught exception ends the job -------------------------------------------------------- */

static PyObject *previous_excepthook;

/* sys.excepthook: the previous hook prints the traceback; then, in a job of several ranks,
 * MPI_Abort ends every rank (the others may be waiting for this one in a collective, and
 * would otherwise hang until MPI_Finalize or forever), as `python -m mpi4py` does. */
static PyObject *py_excepthook(PyObject *m, PyObject *args) {
    (void)m;
    if (previous_excepthook != NULL) {
        PyObject *r = PyObject_Call(previous_excepthook, args, NULL);
        if (r == NULL)
            PyErr_Clear();
        Py_XDECREF(r);
    }
    int initialized = 0, finalized = 0, size = 1, rank = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    if (size > 1) {
        PyObject *r = PyObject_CallMethod(PySys_GetObject("stderr"), "flush", NULL);
        if (r == NULL)
            PyErr_Clear();
        Py_XDECREF(r);
        fprintf(stderr, "ctensor: uncaught exception on rank %d of %d; aborting the MPI job\n",
                rank, size);
        fflush(stderr);
        ct_dist_abort(1);
    }
    Py_RETURN_NONE;
}

static PyMethodDef excepthook_def = {"_dist_excepthook", py_excepthook, METH_VARARGS,
                                     "sys.excepthook of ctensor: the previous hook, then "
                                     "MPI_Abort when MPI runs with several ranks."};

static int install_excepthook(void) {
    if (previous_excepthook != NULL)
        return 0; /* once per process */
    PyObject *prev = PySys_GetObject("excepthook"); /* borrowed; NULL when missing */
    PyObject *hook = PyCFunction_NewEx(&excepthook_def, NULL, NULL);
    if (hook == NULL)
        return -1;
    previous_excepthook = Py_XNewRef(prev);
    if (previous_excepthook == NULL)
        previous_excepthook = Py_NewRef(Py_None);
    int rc = PySys_SetObject("excepthook", hook);
    Py_DECREF(hook);
    return rc;
}

/* ---- MPI start and end ---------------------------------------------------------------------- */

/* atexit: finalize what the library holds, only when MPI is running. Every rank runs it at
 * its exit, so the collective frees match. */
static PyObject *py_finalize(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized && ct_dist_finalize() != CT_OK)
        ct_clear_error(); /* nothing useful to do with an error at exit */
    Py_RETURN_NONE;
}

static PyMethodDef finalize_def = {"_dist_finalize", py_finalize, METH_NOARGS,
                                   "Finalize the distributed runtime (registered with atexit)."};

static int register_atexit(void) {
    PyObject *fn = PyCFunction_NewEx(&finalize_def, NULL, NULL);
    if (fn == NULL)
        return -1;
    PyObject *atexit = PyImport_ImportModule("atexit");
    PyObject *r = atexit != NULL ? PyObject_CallMethod(atexit, "register", "O", fn) : NULL;
    Py_XDECREF(atexit);
    Py_DECREF(fn);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* ---- ctensor.env ---------------------------------------------------------------------------- */

static PyObject *int_fact(ct_status (*fn)(int64_t *)) {
    int64_t v = 0;
    ct_status st = fn(&v);
    return st == CT_OK ? PyLong_FromLongLong(v) : ctp_dist_raise(st);
}

static PyObject *env_get_rank(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return int_fact(ct_dist_rank);
}

static PyObject *env_get_world_size(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return int_fact(ct_dist_world_size);
}

static PyObject *env_get_local_rank(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return int_fact(ct_dist_local_rank);
}

static PyObject *env_get_node_size(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return int_fact(ct_dist_node_size);
}

static PyObject *env_all_device_placement(PyObject *m, PyObject *type) {
    (void)m;
    return ctp_placement_all(type);
}

/* init(comm=None): start the runtime on MPI_COMM_WORLD, or on an mpi4py communicator. */
static PyObject *env_init(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static char k_comm[] = "comm";
    static char *kwlist[] = {k_comm, NULL};
    PyObject *comm = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:init", kwlist, &comm))
        return NULL;
    ct_status st;
    if (comm == Py_None) {
        st = ct_dist_init();
    } else {
#ifdef CTP_HAVE_MPI4PY
        if (import_mpi4py() < 0)
            return NULL;
        MPI_Comm *c = PyMPIComm_Get(comm); /* TypeError for anything but an MPI.Comm */
        if (c == NULL)
            return NULL;
        st = ct_dist_init_comm(c);
#else
        PyErr_SetString(PyExc_RuntimeError,
                        "ctensor.env.init(comm=...) needs mpi4py, but this ctensor was built "
                        "without mpi4py's C headers");
        return NULL;
#endif
    }
    if (st != CT_OK)
        return ctp_dist_raise(st);
    Py_RETURN_NONE;
}

static PyObject *env_set_timeout(PyObject *m, PyObject *arg) {
    (void)m;
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred())
        return NULL;
    ct_status st = ct_dist_set_timeout(seconds);
    if (st != CT_OK)
        return ctp_dist_raise(st);
    Py_RETURN_NONE;
}

static PyObject *env_get_timeout(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    double seconds = 0;
    ct_status st = ct_dist_get_timeout(&seconds);
    return st == CT_OK ? PyFloat_FromDouble(seconds) : ctp_dist_raise(st);
}

static PyMethodDef env_functions[] = {
    {"init", CTP_KW_FUNC(env_init), METH_VARARGS | METH_KEYWORDS,
     "init(comm=None) -> None\n\nStart the distributed runtime now: on MPI_COMM_WORLD, or on "
     "`comm`, an mpi4py communicator (e.g. a split of COMM_WORLD), before any other global "
     "operation; ranks and placements are then those of `comm`."},
    {"set_timeout", env_set_timeout, METH_O,
     "set_timeout(seconds) -> None\n\nHow long a global operation waits for the other ranks "
     "before raising (default: CTENSOR_TIMEOUT_SECONDS, ONEFLOW_TIMEOUT_SECONDS or 300); 0 "
     "goes back to that default. After a timeout the runtime refuses every global operation."},
    {"get_timeout", env_get_timeout, METH_NOARGS,
     "get_timeout() -> float\n\nThe deadline in force, in seconds."},
    {"get_rank", env_get_rank, METH_NOARGS, "get_rank() -> int\n\nThis process's rank."},
    {"get_world_size", env_get_world_size, METH_NOARGS,
     "get_world_size() -> int\n\nThe number of processes."},
    {"get_local_rank", env_get_local_rank, METH_NOARGS,
     "get_local_rank() -> int\n\nThis process's index among the processes of its node."},
    {"get_node_size", env_get_node_size, METH_NOARGS,
     "get_node_size() -> int\n\nThe number of nodes."},
    {"all_device_placement", env_all_device_placement, METH_O,
     "all_device_placement(type) -> ctensor.placement\n\nEvery process of every node (cpu), "
     "or the processes that have a device (an accelerator type)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef env_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor.env",
    .m_doc = "The process environment of global tensors: ranks, world size, nodes.",
    .m_size = -1,
    .m_methods = env_functions,
};

/* ---- set-up ----------------------------------------------------------------------------------- */

int ctp_dist_init(PyObject *module) {
    if (deprecation_category == NULL) {
        PyObject *bases = PyTuple_Pack(2, PyExc_UserWarning, PyExc_DeprecationWarning);
        if (bases == NULL)
            return -1;
        deprecation_category =
            PyErr_NewExceptionWithDoc("ctensor._DeprecatedWarning",
                                      "A deprecated part of the global tensor API was used.",
                                      bases, NULL);
        Py_DECREF(bases);
        if (deprecation_category == NULL)
            return -1;
    }
    if (ctp_placement_init(module) < 0 || ctp_sbp_init(module) < 0 ||
        ctp_global_init(module) < 0 || ctp_add_submodule(module, &env_module, "env") == NULL ||
        PyModule_AddFunctions(module, ctp_dist_functions) < 0)
        return -1;
    return register_atexit() < 0 ? -1 : install_excepthook();
}
