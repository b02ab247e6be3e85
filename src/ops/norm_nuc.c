/* torch.norm(input, p='nuc'): the nuclear norm, the sum of the singular values of the matrix
 * over two dims (ctensor/reduce.h, ct_norm_str). The two dims are moved last, each matrix is
 * copied into one contiguous buffer of the input's dtype, LAPACK gives the singular values
 * (src/kernels/svd.c), and their sums are converted once into the output. On accelerators the
 * whole op runs on host mirrors (Note [Staging through host memory]). */
#include "base/error_impl.h"
#include "ctensor/reduce.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "iter/reduce_plan.h"
#include "kernels/svd.h"
#include "ops/reduce_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

static ct_status check_input(const ct_tensor *in) {
    ct_dtype d = in->dtype;
    if (!ct_dtype_is_floating_point(d) && !ct_dtype_is_complex(d))
        return ct_set_error(CT_ERR_RUNTIME,
                            "linalg.svd: Expected a floating point or complex tensor as input. "
                            "Got %s",
                            ct_dtype_impl_msg_name(d));
    if (d != CT_FLOAT32 && d != CT_FLOAT64 && d != CT_COMPLEX64 && d != CT_COMPLEX128)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"linalg_svd_cpu\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(d));
    if (in->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "norm: only strided tensors are supported");
    if (in->device.type != CT_DEVICE_META && !ct_device_impl_host_accessible(in->device.type))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "norm: not implemented on %s yet",
                            ct_device_type_name(in->device.type));
    return CT_OK;
}

/* The nuclear norm of accelerator tensors: input and out (one device) staged. */
static ct_status norm_nuc_staged(const ct_tensor *input, const int64_t *dims, int64_t ndims,
                                 bool keepdim, ct_tensor *out, ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, "norm");
    int a = ct_stage_add(&s, input, 0);
    int o = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *hr = NULL, *r = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = ct_reduce_impl_norm_nuc(ct_stage_host(&s, a), dims, ndims, keepdim,
                                     ct_stage_host(&s, o), &hr);
    if (st == CT_OK)
        st = ct_stage_result(&s, hr, &r);
    else
        ct_tensor_release(hr);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *result = r;
    return CT_OK;
}

ct_status ct_reduce_impl_norm_nuc(const ct_tensor *input, const int64_t *dims, int64_t ndims,
                                  bool keepdim, ct_tensor *out, ct_tensor **result) {
    if (ct_stage_wanted(input) || ct_stage_wanted(out))
        return norm_nuc_staged(input, dims, ndims, keepdim, out, result);
    int64_t pair[2] = {0, 1};
    if (dims == NULL) { /* the whole tensor, which must then be a matrix */
        if (input->ndim != 2)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Expected a tensor with 2 dimensions, but got a tensor with %d "
                                "dimension%s instead.",
                                (int)input->ndim, input->ndim == 1 ? "" : "s");
    } else {
        if (ndims != 2)
            return ct_set_error(CT_ERR_RUNTIME, "nuclear norm requires a 'dim' argument of size 2");
        for (int i = 0; i < 2; i++) {
            int64_t d = dims[i], nd = input->ndim > 0 ? input->ndim : 1;
            if (d < -nd || d >= nd)
                return ct_set_error(CT_ERR_INDEX,
                                    "Dimension out of range (expected to be in range of [%lld, "
                                    "%lld], but got %lld)",
                                    (long long)-nd, (long long)(nd - 1), (long long)d);
            pair[i] = d < 0 ? d + nd : d;
        }
        if (pair[0] == pair[1])
            return ct_set_error(CT_ERR_RUNTIME, "duplicate or invalid dimensions");
    }
    CT_TRY(check_input(input));
    ct_reduce_plan pl;
    CT_TRY(ct_reduce_impl_plan(input, pair, 2, keepdim, &pl));
    ct_dtype res = out != NULL ? out->dtype
                   : input->dtype == CT_COMPLEX64 ? CT_FLOAT32
                   : input->dtype == CT_COMPLEX128 ? CT_FLOAT64
                                                   : input->dtype;
    ct_tensor *r = NULL, *moved = NULL, *mats = NULL, *acc = NULL;
    ct_tensor_impl_saved keep; /* a failure after out's resize gives it its old geometry */
    CT_TRY(ct_tensor_impl_save(out, &keep));
    ct_status st = ct_reduce_impl_output(input, &pl, res, out, &r);
    if (st == CT_OK && input->device.type != CT_DEVICE_META && pl.out_numel > 0) {
        int64_t perm[CT_MAX_DIMS], n = 0;
        for (int64_t d = 0; d < input->ndim; d++)
            if (d != pair[0] && d != pair[1])
                perm[n++] = d;
        perm[n++] = pair[0];
        perm[n++] = pair[1];
        int64_t rows = input->sizes[pair[0]], cols = input->sizes[pair[1]];
        st = ct_tensor_permute(input, perm, n, &moved);
        /* always a private copy: LAPACK overwrites the matrices */
        if (st == CT_OK)
            st = ct_tensor_empty(moved->sizes, moved->ndim, input->dtype, &input->device,
                                 CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &mats);
        if (st == CT_OK)
            st = ct_tensor_copy_(mats, moved);
        if (st == CT_OK)
            st = ct_tensor_empty(pl.out_sizes, pl.out_ndim, CT_FLOAT64, &input->device,
                                 CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &acc);
        if (st == CT_OK)
            st = ct_svd_nuclear_sums(input->dtype, pl.out_numel, rows, cols,
                                     ct_tensor_data_ptr(mats), ct_tensor_data_ptr(acc));
        if (st == CT_OK)
            st = ct_tensor_copy_(r, acc);
    }
    ct_tensor_release(moved);
    ct_tensor_release(mats);
    ct_tensor_release(acc);
    CT_TRY(ct_reduce_impl_finish(st, out, &keep, r, &r));
    if (keepdim && out == NULL) {
        /* PyTorch sums the singular values of the matrices moved last, appends the two kept
         * dims (stride 1) and moves them back: strides of the kept dims, contiguous among
         * themselves, and 1 for the two reduced ones. The same memory, other strides. */
        int64_t strides[CT_MAX_DIMS], step = 1;
        for (int64_t d = r->ndim - 1; d >= 0; d--) {
            if (d == pair[0] || d == pair[1]) {
                strides[d] = 1;
            } else {
                strides[d] = step;
                step *= r->sizes[d];
            }
        }
        ct_tensor *view = NULL;
        st = ct_tensor_from_storage(r->storage, r->sizes, strides, r->ndim, r->storage_offset,
                                    r->dtype, &view);
        ct_tensor_release(r);
        if (st != CT_OK)
            return st;
        r = view;
    }
    *result = r;
    return CT_OK;
}
