/* The process-wide compatibility mode (include/ctensor/compat.h). */
#include <stdatomic.h>

#include "ctensor/compat.h"

/* Relaxed: readers need some valid mode, not ordering with other memory. */
static atomic_int compat_mode = CT_COMPAT_PYTORCH;

ct_compat_mode ct_get_compat_mode(void) {
    return (ct_compat_mode)atomic_load_explicit(&compat_mode, memory_order_relaxed);
}

ct_status ct_set_compat_mode(ct_compat_mode mode) {
    if (mode != CT_COMPAT_PYTORCH && mode != CT_COMPAT_ONEFLOW)
        return ct_set_error(CT_ERR_MISUSE, "ct_set_compat_mode: invalid mode value %d", (int)mode);
    atomic_store_explicit(&compat_mode, (int)mode, memory_order_relaxed);
    return CT_OK;
}
