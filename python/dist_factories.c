/* The global forms of the factories: ctensor.zeros(2, 3, placement=p, sbp=s) and the like
 * make a GlobalTensor of that LOGICAL shape (tensor_create.c and tensor_new.c call here).
 *
 * Constants (empty, zeros, ones, full) are made by ct_global_* directly: each rank
 * materialises only its part. The others (rand, randn, randint, arange, tensor) build the
 * logical tensor with the local code path on every rank (so that their argument errors are
 * raised alike everywhere) and hand it to ct_global_from_tensor, which takes the value of
 * the placement's first rank: every rank then agrees on one random tensor, as in OneFlow.
 */
#include "ctensor_dist_py.h"

static PyObject *str_placement, *str_sbp, *str_device;

static int intern_names(void) {
    if (str_placement != NULL)
        return 0;
    str_placement = PyUnicode_InternFromString("placement");
    str_sbp = PyUnicode_InternFromString("sbp");
    str_device = PyUnicode_InternFromString("device");
    return str_placement != NULL && str_sbp != NULL && str_device != NULL ? 0 : -1;
}

void ctp_dist_spec_clear(ctp_dist_spec *spec) { Py_CLEAR(spec->placement_obj); }

/* kwargs without placement= and sbp= (new dict). */
static PyObject *without_spec(PyObject *kwargs) {
    PyObject *rest = PyDict_Copy(kwargs);
    if (rest == NULL)
        return NULL;
    if ((PyDict_Contains(rest, str_placement) == 1 && PyDict_DelItem(rest, str_placement) < 0) ||
        (PyDict_Contains(rest, str_sbp) == 1 && PyDict_DelItem(rest, str_sbp) < 0) ||
        PyErr_Occurred()) {
        Py_DECREF(rest);
        return NULL;
    }
    return rest;
}

int ctp_dist_take_spec(PyObject *kwargs, PyObject **rest, ctp_dist_spec *spec) {
    spec->placement_obj = NULL;
    *rest = NULL;
    if (intern_names() < 0)
        return -1;
    PyObject *p = PyDict_GetItemWithError(kwargs, str_placement);
    PyObject *s = p != NULL || !PyErr_Occurred() ? PyDict_GetItemWithError(kwargs, str_sbp) : NULL;
    if (PyErr_Occurred())
        return -1;
    if (p == NULL && s == NULL) { /* the common case: a local factory call */
        *rest = Py_NewRef(kwargs);
        return 0;
    }
    const int has_p = p != NULL && p != Py_None, has_s = s != NULL && s != Py_None;
    if (!has_p && !has_s) { /* placement=None, sbp=None: local */
        *rest = without_spec(kwargs);
        return *rest == NULL ? -1 : 0;
    }
    if (has_p != has_s) {
        PyErr_SetString(PyExc_ValueError, "placement and sbp must be given together");
        return -1;
    }
    PyObject *device = PyDict_GetItemWithError(kwargs, str_device);
    if (device == NULL && PyErr_Occurred())
        return -1;
    if (device != NULL && device != Py_None) {
        PyErr_SetString(PyExc_ValueError, "device and placement cannot be given together");
        return -1;
    }
    if (ctp_placement_of_arg(p, &spec->placement) < 0 ||
        ctp_nd_sbp_of_arg(s, ct_placement_ndim(spec->placement), spec->sbp, &spec->n_sbp) < 0)
        return -1;
    if ((*rest = without_spec(kwargs)) == NULL)
        return -1;
    spec->placement_obj = Py_NewRef(p);
    return 1;
}

PyObject *ctp_dist_from_logical(PyObject *local, const ctp_dist_spec *spec) {
    if (local == NULL)
        return NULL;
    ct_global *g = NULL;
    ct_status st = ct_global_from_tensor(ctp_tensor_get(local), spec->placement, spec->sbp,
                                         spec->n_sbp, &g);
    Py_DECREF(local);
    return ctp_global_result(NULL, st, g);
}

PyObject *ctp_dist_constant(int kind, const int64_t *sizes, int64_t ndim, ct_scalar value,
                            ct_dtype dtype, const ctp_dist_spec *spec) {
    if (kind == 3) {
        ct_status inferred = ct_full_dtype(value, dtype, &dtype);
        if (inferred != CT_OK)
            return ctp_raise_status(inferred);
    } else if (dtype == CT_DTYPE_UNDEFINED) {
        dtype = ct_get_default_dtype();
    }
    ct_global *g = NULL;
    ct_status st;
    switch (kind) {
    case 0:
        st = ct_global_empty(sizes, ndim, dtype, spec->placement, spec->sbp, spec->n_sbp, &g);
        break;
    case 1:
        st = ct_global_zeros(sizes, ndim, dtype, spec->placement, spec->sbp, spec->n_sbp, &g);
        break;
    case 2:
        st = ct_global_ones(sizes, ndim, dtype, spec->placement, spec->sbp, spec->n_sbp, &g);
        break;
    default:
        st = ct_global_full(sizes, ndim, value, dtype, spec->placement, spec->sbp, spec->n_sbp,
                            &g);
        break;
    }
    return ctp_global_result(NULL, st, g);
}
