/* Memory-overlap checks of element-wise outputs (as PyTorch's MemoryOverlap.cpp; rules in
 * docs/elementwise.md "Overlap").
 *
 * Writing through an output whose elements share memory, or that partly covers an input,
 * gives results that depend on the loop order, so PyTorch refuses the cases it can prove
 * cheaply and lets the "too hard" ones (non-dense tensors without zero strides) through. */
#include <stdint.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"
#include "tensor/tensor_impl.h"

ct_status ct_iter_check_internal_overlap(const ct_tensor *out) {
    if (out->flags & CT_TF_NON_OVERLAPPING_DENSE)
        return CT_OK;
    for (int32_t i = 0; i < out->ndim; i++)
        if (out->strides[i] == 0 && out->sizes[i] > 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "unsupported operation: more than one element of the written-to "
                                "tensor refers to a single memory location. Please clone() the "
                                "tensor before performing the operation.");
    return CT_OK; /* too hard to tell: allowed */
}

/* Whether two storages are one block of memory (the same object, or two objects wrapping
 * the same address, as DLPack imports of one buffer are). */
static bool same_memory(const ct_storage *x, const ct_storage *y) {
    return x == y || (x != NULL && y != NULL && x->data != NULL && x->data == y->data);
}

ct_status ct_iter_check_partial_overlap(const ct_tensor *out, const ct_tensor *in) {
    if (out == in || out->numel == 0 || in->numel == 0)
        return CT_OK;
    if (!(out->flags & in->flags & CT_TF_NON_OVERLAPPING_DENSE))
        return CT_OK; /* too hard */
    if (!same_memory(out->storage, in->storage))
        return CT_OK;
    /* byte ranges relative to the shared block (meta storages have no address) */
    uintptr_t base = (uintptr_t)out->storage->data;
    size_t osz = ct_dtype_table[out->dtype].itemsize, isz = ct_dtype_table[in->dtype].itemsize;
    uintptr_t ob = base + (uintptr_t)out->storage_offset * osz;
    uintptr_t oe = ob + (uintptr_t)out->numel * osz;
    uintptr_t ib = base + (uintptr_t)in->storage_offset * isz;
    uintptr_t ie = ib + (uintptr_t)in->numel * isz;
    bool partial;
    if (ob == ib && oe == ie) {
        /* the same bytes: fine when walked alike */
        partial = out->ndim != in->ndim;
        for (int32_t i = 0; !partial && i < out->ndim; i++)
            partial = out->strides[i] != in->strides[i];
    } else {
        partial = ob < ie && ib < oe;
    }
    if (partial)
        return ct_set_error(CT_ERR_RUNTIME,
                            "unsupported operation: some elements of the input tensor and the "
                            "written-to tensor refer to a single memory location. Please clone() "
                            "the tensor before performing the operation.");
    return CT_OK;
}
