/* mpi_types.c: ctensor dtypes as MPI datatypes, MPI error codes as ct_status. */
#include <pthread.h>

#include "dist/dist_impl.h"

ct_status ct_dist_impl_mpi_check(int rc, const char *what) {
    if (rc == MPI_SUCCESS)
        return CT_OK;
    char text[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        len = 0;
    text[len] = '\0';
    return ct_set_error(CT_ERR_RUNTIME, "%s failed: %s", what, len ? text : "unknown MPI error");
}

/* Contiguous byte types for item sizes MPI has no predefined name for, created on first use
 * and freed by ct_dist_finalize. Index = item size. */
#define MPI_TYPES_MAX_ITEM 64
static pthread_mutex_t g_types_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Datatype g_bytes_types[MPI_TYPES_MAX_ITEM + 1];
static bool g_bytes_made[MPI_TYPES_MAX_ITEM + 1];

static ct_status bytes_type(size_t itemsize, MPI_Datatype *out) {
    switch (itemsize) {
    /* Movement only: any integer type of the right width carries the bits unchanged. */
    case 1: *out = MPI_UINT8_T; return CT_OK;
    case 2: *out = MPI_UINT16_T; return CT_OK;
    case 4: *out = MPI_UINT32_T; return CT_OK;
    case 8: *out = MPI_UINT64_T; return CT_OK;
    default: break;
    }
    if (itemsize == 0 || itemsize > MPI_TYPES_MAX_ITEM)
        return ct_set_error(CT_ERR_MISUSE, "MPI datatype: unsupported item size %zu", itemsize);
    pthread_mutex_lock(&g_types_lock);
    ct_status st = CT_OK;
    if (!g_bytes_made[itemsize]) {
        MPI_Datatype t;
        st = ct_dist_impl_mpi_check(MPI_Type_contiguous((int)itemsize, MPI_BYTE, &t),
                                    "MPI_Type_contiguous");
        if (st == CT_OK) {
            st = ct_dist_impl_mpi_check(MPI_Type_commit(&t), "MPI_Type_commit");
            if (st == CT_OK) {
                g_bytes_types[itemsize] = t;
                g_bytes_made[itemsize] = true;
            } else {
                MPI_Type_free(&t);
            }
        }
    }
    if (st == CT_OK)
        *out = g_bytes_types[itemsize];
    pthread_mutex_unlock(&g_types_lock);
    return st;
}

ct_status ct_dist_impl_mpi_dtype(ct_dtype dtype, MPI_Datatype *out) {
    *out = MPI_DATATYPE_NULL;
    switch (dtype) {
    case CT_BOOL: *out = MPI_C_BOOL; return CT_OK;
    case CT_UINT8: *out = MPI_UINT8_T; return CT_OK;
    case CT_INT8: *out = MPI_INT8_T; return CT_OK;
    case CT_INT16: *out = MPI_INT16_T; return CT_OK;
    case CT_INT32: *out = MPI_INT32_T; return CT_OK;
    case CT_INT64: *out = MPI_INT64_T; return CT_OK;
    case CT_UINT16: *out = MPI_UINT16_T; return CT_OK;
    case CT_UINT32: *out = MPI_UINT32_T; return CT_OK;
    case CT_UINT64: *out = MPI_UINT64_T; return CT_OK;
    case CT_FLOAT32: *out = MPI_FLOAT; return CT_OK;
    case CT_FLOAT64: *out = MPI_DOUBLE; return CT_OK;
    case CT_COMPLEX64: *out = MPI_C_FLOAT_COMPLEX; return CT_OK;
    case CT_COMPLEX128: *out = MPI_C_DOUBLE_COMPLEX; return CT_OK;
    default: break;
    }
    if (!ct_dtype_is_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "MPI datatype: invalid dtype %d", (int)dtype);
    /* float16, bfloat16, complex32, float8, float4: bits only (reduce.c sums them itself). */
    return bytes_type(ct_dtype_itemsize(dtype), out);
}

void ct_dist_impl_mpi_types_free(void) {
    pthread_mutex_lock(&g_types_lock);
    for (int i = 0; i <= MPI_TYPES_MAX_ITEM; i++) {
        if (g_bytes_made[i]) {
            MPI_Type_free(&g_bytes_types[i]);
            g_bytes_made[i] = false;
        }
    }
    pthread_mutex_unlock(&g_types_lock);
}
