/* factory.c: the global factories (empty, zeros, ones, full): each rank makes only its
 * part of the logical tensor, after the agreement. */
#include <stdint.h>
#include <string.h>

#include "dist/dist_impl.h"

/* ---- factories ------------------------------------------------------------------------------ */

typedef enum factory_kind { F_EMPTY, F_FULL, F_ZEROS, F_ONES } factory_kind;

/* What ct_tensor_empty would refuse for these sizes and dtype, checked before the agreement
 * (any failure is then shared with every rank). *dtype is made concrete. */
static ct_status factory_prepare(factory_kind kind, const int64_t *sizes, int64_t ndim,
                                 ct_scalar value, ct_dtype *dtype) {
    if (ndim > CT_MAX_DIMS) /* ct_tensor_empty's error, as the header promises */
        return ct_set_error(CT_ERR_VALUE, "maximum supported dimension for a tensor is %d, found %lld",
                            CT_MAX_DIMS, (long long)ndim);
    if (ndim < 0 || (!sizes && ndim > 0))
        return ct_set_error(CT_ERR_MISUSE, "global factory: bad sizes");
    int64_t numel = 1;
    bool overflow = false;
    for (int64_t d = 0; d < ndim; d++) {
        if (sizes[d] < 0) {
            char shape[256];
            ct_dist_impl_global_fmt_shape(shape, sizeof(shape), sizes, ndim);
            return ct_set_error(CT_ERR_RUNTIME,
                                "Trying to create tensor with negative dimension %lld: %s",
                                (long long)sizes[d], shape);
        }
        if (sizes[d] != 0 && numel > INT64_MAX / sizes[d])
            overflow = true;
        else
            numel *= sizes[d];
    }
    if (kind == F_FULL) {
        /* A 0-dim probe infers the dtype and checks the value as torch.full would. */
        ct_tensor *probe = NULL;
        ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        ct_status st = ct_tensor_full(NULL, 0, value, *dtype, &cpu, CT_LAYOUT_STRIDED, &probe);
        if (st != CT_OK)
            return st;
        *dtype = ct_tensor_dtype(probe);
        ct_tensor_release(probe);
    } else if (*dtype == CT_DTYPE_UNDEFINED) {
        *dtype = ct_get_default_dtype();
    }
    if (!ct_dtype_is_valid(*dtype))
        return ct_set_error(CT_ERR_MISUSE, "global factory: invalid dtype %d", (int)*dtype);
    size_t item = ct_dtype_itemsize(*dtype);
    if (overflow || (numel > 0 && (uint64_t)numel > (uint64_t)PTRDIFF_MAX / item)) {
        char shape[256];
        ct_dist_impl_global_fmt_shape(shape, sizeof(shape), sizes, ndim);
        return ct_set_error(CT_ERR_OVERFLOW, "Storage size calculation overflowed with sizes=%s",
                            shape);
    }
    return CT_OK;
}

static ct_status factory(factory_kind kind, const char *name, const int64_t *sizes,
                                int64_t ndim, ct_scalar value, ct_dtype dtype,
                                const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                                ct_global **out, bool *agreed) {
    const char *op = name + strlen("ct_global_");
    if (!out)
        return ct_global_fail(op, ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", name));
    *out = NULL;
    ct_status st = ct_dist_impl_global_check_sbp_arg(sbp, n_sbp, placement, name);
    if (st != CT_OK)
        return ct_global_fail(op, st);
    MPI_Comm world;
    if ((st = ct_dist_impl_world(&world)) != CT_OK)
        return st;
    ct_agree_record mine;
    memset(&mine, 0, sizeof(mine));
    ct_dist_impl_global_describe(&mine, op, placement, sbp, n_sbp);
    st = factory_prepare(kind, sizes, ndim, value, &dtype);
    if (st != CT_OK) {
        ct_dist_impl_agree_failed(&mine, st);
    } else {
        uint64_t h = ct_dist_impl_global_hash_args(name, placement, sbp, n_sbp);
        int64_t head[2] = {(int64_t)dtype, ndim};
        h = ct_hash_bytes(h, head, sizeof(head));
        h = ct_hash_bytes(h, sizes, sizeof(int64_t) * (size_t)ndim);
        mine.hash = kind == F_FULL ? ct_dist_impl_hash_scalar(h, value) : h;
    }
    ct_agree_record *all = NULL;
    st = ct_dist_impl_global_agree(&mine, &all);
    *agreed = st == CT_OK;
    ct_dist_impl_free(all);
    if (st == CT_OK)
        st = ct_dist_impl_nd_sbp_check(sbp, n_sbp, placement, ndim);
    if (st != CT_OK)
        return st;
    int64_t pid = ct_dist_impl_placement_my_pid(placement);
    ct_tensor *local = NULL;
    if (pid < 0) {
        st = ct_dist_impl_global_empty_local(dtype, ndim, &local);
    } else {
        ct_box box;
        ct_device dev;
        ct_dist_impl_local_box(sizes, ndim, placement, sbp, pid, &box);
        st = ct_placement_local_device(placement, &dev);
        /* partial_sum: the first rank of each partial group holds the value, the rest 0. */
        factory_kind k = kind != F_EMPTY && ct_dist_impl_global_on_partial_copy(placement, sbp, pid)
                             ? F_ZEROS
                             : kind;
        if (st == CT_OK && k == F_EMPTY)
            st = ct_tensor_empty(box.len, ndim, dtype, &dev, CT_LAYOUT_STRIDED,
                                 CT_MEMFMT_CONTIGUOUS, &local);
        else if (st == CT_OK && k == F_ZEROS)
            st = ct_tensor_zeros(box.len, ndim, dtype, &dev, CT_LAYOUT_STRIDED, &local);
        else if (st == CT_OK && k == F_ONES)
            st = ct_tensor_ones(box.len, ndim, dtype, &dev, CT_LAYOUT_STRIDED, &local);
        else if (st == CT_OK)
            st = ct_tensor_full(box.len, ndim, value, dtype, &dev, CT_LAYOUT_STRIDED, &local);
    }
    if (st != CT_OK)
        return st;
    return ct_dist_impl_global_make(dtype, sizes, ndim, placement, sbp, local, out);
}

static ct_status global_factory(factory_kind kind, const char *name, const int64_t *sizes,
                                int64_t ndim, ct_scalar value, ct_dtype dtype,
                                const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                                ct_global **out) {
    bool agreed = false;
    ct_status st = factory(kind, name, sizes, ndim, value, dtype, placement, sbp, n_sbp, out,
                           &agreed);
    return ct_dist_impl_global_finish(st, agreed, out, name + strlen("ct_"));
}

ct_status ct_global_empty(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                          const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                          ct_global **out) {
    return global_factory(F_EMPTY, "ct_global_empty", sizes, ndim, ct_scalar_int(0), dtype,
                          placement, sbp, n_sbp, out);
}

ct_status ct_global_full(const int64_t *sizes, int64_t ndim, ct_scalar value, ct_dtype dtype,
                         const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                         ct_global **out) {
    return global_factory(F_FULL, "ct_global_full", sizes, ndim, value, dtype, placement, sbp,
                          n_sbp, out);
}

ct_status ct_global_zeros(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                          const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                          ct_global **out) {
    return global_factory(F_ZEROS, "ct_global_zeros", sizes, ndim, ct_scalar_int(0), dtype,
                          placement, sbp, n_sbp, out);
}

ct_status ct_global_ones(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                         const ct_placement *placement, const ct_sbp *sbp, int64_t n_sbp,
                         ct_global **out) {
    return global_factory(F_ONES, "ct_global_ones", sizes, ndim, ct_scalar_int(1), dtype,
                          placement, sbp, n_sbp, out);
}
