/* clone, contiguous and to(): new tensors laid out by empty_like's rules, filled by copy_,
 * or the input itself where PyTorch returns self. */
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

static ct_status begin(const ct_tensor *t, ct_tensor **out, const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    return ct_tensor_impl_check(t, fn);
}

/* A copy of t with `dtype` on `device` in `format`. */
static ct_status copy_to(const ct_tensor *t, ct_dtype dtype, ct_device device,
                         ct_memory_format format, ct_tensor **out) {
    ct_tensor *r;
    CT_TRY(ct_tensor_impl_empty_like(t, dtype, device, format, &r));
    ct_status st = ct_tensor_impl_copy(r, t, true);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_tensor_clone(const ct_tensor *t, ct_memory_format format, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_clone"));
    return copy_to(t, t->dtype, t->device, format, out);
}

ct_status ct_tensor_contiguous(const ct_tensor *t, ct_memory_format format, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_contiguous"));
    if (!ct_memory_format_is_valid(format))
        return ct_set_error(CT_ERR_MISUSE, "invalid memory format value %d", (int)format);
    if (ct_tensor_is_contiguous(t, format)) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    if (format == CT_MEMFMT_PRESERVE)
        return ct_set_error(CT_ERR_RUNTIME,
                            "preserve memory format is unsupported by the contiguous operator");
    return copy_to(t, t->dtype, t->device, format, out);
}

ct_status ct_tensor_to(const ct_tensor *t, ct_dtype dtype, const ct_device *device, bool copy,
                       ct_memory_format format, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_to"));
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = t->dtype;
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_to: invalid dtype value %d", (int)dtype);
    if (!ct_memory_format_is_valid(format))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_to: invalid memory format value %d",
                            (int)format);
    ct_device dev;
    CT_TRY(ct_tensor_impl_like_device(t, device, &dev));
    /* PyTorch's to_will_alias */
    if (dtype == t->dtype && ct_device_equal(dev, t->device) && !copy &&
        (format == CT_MEMFMT_PRESERVE || ct_tensor_suggest_memory_format(t, false) == format)) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    return copy_to(t, dtype, dev, format, out);
}

ct_status ct_tensor_to_dtype(const ct_tensor *t, ct_dtype dtype, ct_tensor **out) {
    return ct_tensor_to(t, dtype, NULL, false, CT_MEMFMT_PRESERVE, out);
}

ct_status ct_tensor_to_device(const ct_tensor *t, ct_device device, ct_tensor **out) {
    return ct_tensor_to(t, CT_DTYPE_UNDEFINED, &device, false, CT_MEMFMT_PRESERVE, out);
}
