/* The process-wide default dtype (torch.get_default_dtype / set_default_dtype). */
#include <stdatomic.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"

/* Relaxed atomic: readers only need some consistent value, and PyTorch's default is a
 * plain global too. */
static atomic_int default_dtype = CT_FLOAT32;

ct_dtype ct_get_default_dtype(void) {
    return (ct_dtype)atomic_load_explicit(&default_dtype, memory_order_relaxed);
}

ct_dtype ct_get_default_complex_dtype(void) {
    switch (ct_get_default_dtype()) {
    case CT_FLOAT64: return CT_COMPLEX128;
    case CT_FLOAT16: return CT_COMPLEX32;
    default: return CT_COMPLEX64;
    }
}

ct_status ct_set_default_dtype(ct_dtype dtype) {
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_set_default_dtype: invalid dtype value %d", (int)dtype);
    if (!ct_dtype_is_floating_point(dtype))
        return ct_set_error(CT_ERR_TYPE, "only floating-point types are supported as the default type");
    /* PyTorch then looks up a storage class, which exists only for these four; the other
     * floating dtypes (float8, float4) fail with its message and change nothing. */
    if (dtype != CT_FLOAT16 && dtype != CT_BFLOAT16 && dtype != CT_FLOAT32 && dtype != CT_FLOAT64)
        return ct_set_error(CT_ERR_TYPE, "couldn't find storage object %sStorage",
                            ct_dtype_table[dtype].cpp_name);
    atomic_store_explicit(&default_dtype, (int)dtype, memory_order_relaxed);
    return CT_OK;
}
