/* fill_ and zero_: one element's bytes written everywhere. Dense tensors are filled as one
 * byte range by the device's fill; any other strides go through copy_ from a 0-dim tensor
 * (broadcast with stride 0), which also stages accelerator memory through the host. */
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

ct_status ct_tensor_impl_fill_pattern(ct_tensor *t, const void *pattern) {
    if (t->numel == 0 || t->device.type == CT_DEVICE_META)
        return CT_OK;
    size_t isz = ct_dtype_table[t->dtype].itemsize;
    if (t->flags & CT_TF_NON_OVERLAPPING_DENSE) {
        /* strides are >= 0, so element 0 is the lowest address of the dense block */
        return ct_device_fill(t->device, ct_tensor_data_ptr(t), (size_t)t->numel * isz, pattern,
                              isz);
    }
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_tensor *one;
    CT_TRY(ct_tensor_from_data(NULL, 0, t->dtype, pattern, &cpu, &one));
    /* fill is idempotent: expanded (self-overlapping) targets are fine */
    ct_status st = ct_tensor_impl_copy(t, one, false);
    ct_tensor_release(one);
    return st;
}

ct_status ct_tensor_fill_(ct_tensor *t, ct_scalar value) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_fill_"));
    unsigned char pattern[16];
    CT_TRY(ct_scalar_to_dtype(value, t->dtype, pattern));
    return ct_tensor_impl_fill_pattern(t, pattern);
}

ct_status ct_tensor_zero_(ct_tensor *t) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_zero_"));
    static const unsigned char zero[16] = {0};
    return ct_tensor_impl_fill_pattern(t, zero);
}
