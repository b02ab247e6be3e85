/* The mapping protocol of ctensor.GlobalTensor (dist_tensor_type.c installs it): len(x),
 * x[index] and x[index] = value.
 *
 * A basic index (ints, slices, None, Ellipsis) runs first on the meta stand-in, which has the
 * logical shape: PyTorch's errors, the same on every rank, and the steps the index takes
 * (tensor_index.c). When they leave every shard whole (global.h, ct_global_view_is_local)
 * the index runs on each rank's own shard (ct_global_view, ct_global_view_set_); any other
 * index works on the logical value every rank holds after a gather.
 */
#include "ctensor_dist_py.h"

#define G(obj) (((ctp_global_object *)(obj))->global)

static Py_ssize_t mp_length(PyObject *self) {
    if (ct_global_dim(G(self)) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)ct_global_sizes(G(self))[0];
}

/* A basic index's steps on x's logical shape (the meta stand-in: PyTorch's errors, the same
 * on every rank), as global.h's steps: 1 when it runs on the shards (ct_global_view_is_local),
 * 0 when it takes the logical value, -1 with an exception (not yet shared with the others). */
static int shard_steps(PyObject *self, PyObject *index, int for_setitem, ct_global_step *steps,
                       size_t *n) {
    ctp_index_step rec[CTP_MAX_INDEX_STEPS];
    int rc = ctp_tensor_index_steps(self, index, for_setitem, rec, n);
    if (rc <= 0)
        return rc;
    static const ct_global_step_kind kinds[] = {
        [CTP_STEP_SELECT] = CT_GLOBAL_STEP_SELECT,
        [CTP_STEP_SLICE] = CT_GLOBAL_STEP_SLICE,
        [CTP_STEP_UNSQUEEZE] = CT_GLOBAL_STEP_UNSQUEEZE,
    };
    for (size_t i = 0; i < *n; i++)
        steps[i] = (ct_global_step){.kind = kinds[rec[i].kind], .dim = rec[i].dim,
                                    .start = rec[i].start, .length = rec[i].length,
                                    .step = rec[i].step};
    return ct_global_view_is_local(G(self), steps, *n, for_setitem != 0) ? 1 : 0;
}

/* x[index]: a basic index that leaves every shard whole (global.h) runs on each rank's
 * shard and keeps the sbp (OneFlow's rule for a slice off the split dim). Otherwise the
 * local indexing of the logical value, which every rank holds after a gather, so that its
 * errors are every rank's; the result is broadcast on x's placement. The local
 * step's error joins the agreement of the next collective (the result's) as failed, so a
 * rank whose index differs does not leave the others waiting. */
static PyObject *mp_subscript(PyObject *self, PyObject *index) {
    ct_global_step steps[CTP_MAX_INDEX_STEPS];
    size_t n = 0;
    uint64_t mark0 = ctp_dist_mark();
    int local = shard_steps(self, index, 0, steps, &n);
    if (local < 0)
        return ctp_dist_failed("getitem", mark0);
    if (local) { /* on each rank's shard, sbp kept */
        ct_global *r = NULL;
        ct_status st = ct_global_view(G(self), steps, n, &r);
        return ctp_global_result(NULL, st, r);
    }
    PyObject *logical = ctp_global_logical(self, "getitem");
    if (logical == NULL)
        return NULL;
    uint64_t mark = ctp_dist_mark();
    PyObject *r = PyObject_GetItem(logical, index);
    Py_DECREF(logical);
    if (r != NULL && !ctp_tensor_check(r)) { /* cannot happen: indexing gives a tensor */
        Py_CLEAR(r);
        PyErr_SetString(PyExc_RuntimeError, "getitem: no tensor");
    }
    if (r == NULL)
        return ctp_dist_failed("tensor", mark);
    ctp_dist_spec spec;
    ctp_dist_spec_of_global(self, &spec);
    for (int64_t k = 0; k < spec.n_sbp; k++)
        spec.sbp[k] = (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1};
    return ctp_dist_from_logical(r, &spec);
}

/* A number as setitem reads it (local setitem's rules: bools, ints within int64, the rest as
 * scalars), checked against `dtype`. -1 with an exception. */
static int number_value(PyObject *value, ct_dtype dtype, ct_scalar *out) {
    if (PyBool_Check(value)) {
        *out = ct_scalar_bool(value == Py_True);
    } else if (PyLong_Check(value) || ctp_is_int_arg(value)) {
        int64_t v;
        if (ctp_int64_of_arg(value, &v) < 0)
            return -1;
        *out = ct_scalar_int(v);
    } else if (ctp_scalar_of_arg(value, out) < 0) {
        return -1;
    }
    unsigned char probe[16]; /* one element of any dtype */
    ct_status st = ct_scalar_to_dtype(*out, dtype, probe);
    return st == CT_OK ? 0 : (ctp_raise_status(st), -1);
}

/* x[index] = value (a number, or a global tensor: its logical value): into each rank's own
 * shard when the index leaves every shard whole and x has no partial_sum axis; otherwise set
 * on the logical value every rank holds, then laid out again in x's placement and sbp and
 * copied into x's component (x's data: to_local() shares it). A local tensor value is
 * OneFlow's mixing error, on every rank through the first agreement. */
static int ass_subscript(PyObject *self, PyObject *index, PyObject *value) {
    uint64_t mark = ctp_dist_mark();
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "'ctensor.GlobalTensor' object does not support item "
                                         "deletion");
        ctp_dist_failed("setitem", mark);
        return -1;
    }
    if (ctp_tensor_check(value)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Expected all tensors to be global, but found a local tensor");
        ctp_dist_failed("setitem", mark);
        return -1;
    }
    /* PyTorch converts (and range-checks) a number before it looks at the index */
    int is_number = !ctp_global_check(value) && (ctp_is_number(value) || ctp_is_int_arg(value));
    ct_scalar fill = ct_scalar_int(0);
    if (is_number && number_value(value, ct_global_dtype(G(self)), &fill) < 0) {
        ctp_dist_failed("setitem", mark);
        return -1;
    }
    ct_global_step steps[CTP_MAX_INDEX_STEPS];
    size_t n = 0;
    int local = shard_steps(self, index, 1, steps, &n);
    if (local < 0) {
        ctp_dist_failed("setitem", mark);
        return -1;
    }
    if (local && (is_number || ctp_global_check(value))) { /* into each rank's shard */
        ct_status st =
            ct_global_view_set_(G(self), steps, n, is_number ? NULL : G(value), fill);
        ctp_dist_entered();
        if (st != CT_OK) {
            ctp_dist_raise(st);
            return -1;
        }
        return 0;
    }
    PyObject *logical = ctp_global_logical(self, "setitem");
    if (logical == NULL)
        return -1;
    PyObject *v = ctp_global_check(value) ? ctp_global_logical(value, "setitem") : Py_NewRef(value);
    if (v == NULL) {
        Py_DECREF(logical);
        return -1;
    }
    mark = ctp_dist_mark();
    int rc = PyObject_SetItem(logical, index, v);
    Py_DECREF(v);
    if (rc < 0) {
        Py_DECREF(logical);
        ctp_dist_failed("tensor", mark);
        return -1;
    }
    const ct_global *g = G(self);
    ct_global *fresh = NULL;
    ct_status st = ct_global_from_tensor(ctp_tensor_get(logical), ct_global_placement(g),
                                         ct_global_sbp(g),
                                         ct_placement_ndim(ct_global_placement(g)), &fresh);
    ctp_dist_entered();
    Py_DECREF(logical);
    if (st == CT_OK)
        st = ct_tensor_copy_((ct_tensor *)ct_global_local(g), ct_global_local(fresh));
    ct_global_release(fresh);
    if (st != CT_OK) {
        ctp_dist_raise(st);
        return -1;
    }
    return 0;
}

static int mp_ass_subscript(PyObject *self, PyObject *index, PyObject *value) {
    return ass_subscript(self, index, value);
}

PyMappingMethods ctp_global_as_mapping = {
    .mp_length = mp_length,
    .mp_subscript = mp_subscript,
    .mp_ass_subscript = mp_ass_subscript,
};
