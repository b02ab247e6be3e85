/* float4_e2m1fn_x2 <-> one E2M1 code per byte (ctensor/tensor.h): the form other libraries
 * (ml_dtypes' float4_e2m1fn) hold four-bit floats in. A byte of float4_e2m1fn_x2 carries
 * element 0 in its low nibble and element 1 in its high one, so the pairs become the last
 * dim, doubled. Both directions copy: one byte per value cannot share a packed byte. */
#include "base/error_impl.h"
#include "ctensor/tensor.h"
#include "tensor/tensor_impl.h"

static const ct_device host = {.type = CT_DEVICE_CPU, .index = CT_DEVICE_NO_INDEX};

static ct_status check_host(const ct_tensor *t, const char *name) {
    if (t->layout != CT_LAYOUT_STRIDED || t->device.type != CT_DEVICE_CPU)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: only strided cpu tensors", name);
    return CT_OK;
}

ct_status ct_tensor_float4_codes(const ct_tensor *packed, ct_tensor **codes) {
    if (packed == NULL || codes == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_float4_codes: NULL argument");
    *codes = NULL;
    if (packed->dtype != CT_FLOAT4_E2M1FN_X2)
        return ct_set_error(CT_ERR_TYPE, "ct_tensor_float4_codes: expected a float4_e2m1fn_x2 "
                                         "tensor");
    CT_TRY(check_host(packed, "ct_tensor_float4_codes"));
    int64_t sizes[CT_MAX_DIMS];
    int64_t nd = packed->ndim > 0 ? packed->ndim : 1; /* a 0-dim tensor holds one pair */
    for (int64_t d = 0; d < packed->ndim; d++)
        sizes[d] = packed->sizes[d];
    if (packed->ndim == 0)
        sizes[0] = 1;
    sizes[nd - 1] *= 2;
    ct_tensor *dense = NULL, *out = NULL;
    ct_status st = ct_tensor_contiguous(packed, CT_MEMFMT_CONTIGUOUS, &dense);
    if (st == CT_OK)
        st = ct_tensor_empty(sizes, nd, CT_UINT8, &host, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                             &out);
    if (st == CT_OK) {
        const uint8_t *src = ct_tensor_data_ptr(dense);
        uint8_t *dst = ct_tensor_data_ptr(out);
        for (int64_t i = 0; i < dense->numel; i++) {
            dst[2 * i] = src[i] & 0x0F;
            dst[2 * i + 1] = (uint8_t)(src[i] >> 4);
        }
    }
    ct_tensor_release(dense);
    if (st != CT_OK) {
        ct_tensor_release(out);
        return st;
    }
    *codes = out;
    return CT_OK;
}

ct_status ct_tensor_float4_pack_codes(const ct_tensor *codes, ct_tensor **packed) {
    if (codes == NULL || packed == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_float4_pack_codes: NULL argument");
    *packed = NULL;
    if (codes->dtype != CT_UINT8)
        return ct_set_error(CT_ERR_TYPE, "ct_tensor_float4_pack_codes: expected uint8 codes");
    CT_TRY(check_host(codes, "ct_tensor_float4_pack_codes"));
    if (codes->ndim == 0 || codes->sizes[codes->ndim - 1] % 2 != 0)
        return ct_set_error(CT_ERR_VALUE, "float4_e2m1fn values pack two to a byte of "
                                          "float4_e2m1fn_x2: the last dimension must have an "
                                          "even size");
    int64_t sizes[CT_MAX_DIMS];
    for (int64_t d = 0; d < codes->ndim; d++)
        sizes[d] = codes->sizes[d];
    sizes[codes->ndim - 1] /= 2;
    ct_tensor *dense = NULL, *out = NULL;
    ct_status st = ct_tensor_contiguous(codes, CT_MEMFMT_CONTIGUOUS, &dense);
    if (st == CT_OK)
        st = ct_tensor_empty(sizes, codes->ndim, CT_FLOAT4_E2M1FN_X2, &host, CT_LAYOUT_STRIDED,
                             CT_MEMFMT_CONTIGUOUS, &out);
    if (st == CT_OK) {
        const uint8_t *src = ct_tensor_data_ptr(dense);
        uint8_t *dst = ct_tensor_data_ptr(out);
        for (int64_t i = 0; i < out->numel; i++) {
            if ((src[2 * i] | src[2 * i + 1]) > 0x0F) {
                st = ct_set_error(CT_ERR_VALUE, "float4_e2m1fn code %d is not a 4-bit code",
                                  (int)(src[2 * i] > 0x0F ? src[2 * i] : src[2 * i + 1]));
                break;
            }
            dst[i] = (uint8_t)(src[2 * i] | (src[2 * i + 1] << 4));
        }
    }
    ct_tensor_release(dense);
    if (st != CT_OK) {
        ct_tensor_release(out);
        return st;
    }
    *packed = out;
    return CT_OK;
}
