/* ctensor: DLPack, the zero-copy tensor interchange ABI.
 *
 * The structs below are ctensor's own spelling of DLPack 1.1's C ABI (dmlc/dlpack,
 * include/dlpack/dlpack.h): same fields, same order, same widths, same enum values, so a
 * pointer to one may be passed wherever the other is expected. They are declared here
 * because the DLPack headers packaged by distributions are often older (Debian 12 ships
 * 0.6, without the versioned struct and the newer type codes); tests/unit/test_dlpack_abi.c
 * checks the layout against <dlpack/dlpack.h> field by field.
 *
 * Two forms of managed tensor exist:
 *  - ct_dl_managed_tensor (DLPack 0.x "DLManagedTensor", Python capsule name "dltensor"),
 *    spoken by old producers and consumers such as PyTorch 1.13 and NumPy 1.x;
 *  - ct_dl_managed_tensor_versioned (DLPack >= 1.0 "DLManagedTensorVersioned", capsule
 *    "dltensor_versioned"), which adds a version and flags (read-only, copied).
 *
 * Ownership (the DLPack contract): whoever holds a managed tensor must call its deleter
 * exactly once (when not NULL), passing the managed tensor itself, and must not touch it
 * afterwards; the deleter frees the struct as well.
 *
 * What ctensor does (src/tensor/dlpack.c):
 *  - Export: the managed tensor's manager_ctx holds a new reference to the tensor, so the
 *    data stays alive until the deleter runs, whatever happens to the caller's reference.
 *    `data` is ct_tensor_data_ptr() (the address of element [0, ..., 0]) and byte_offset is
 *    0, as PyTorch exports CPU and CUDA tensors; shape and strides are always filled (also
 *    for 0-dim tensors, where they point to no entries), in elements, and live in the same
 *    allocation as the struct. Dtypes: bool is {CT_DL_BOOL, 8, 1} in both forms (DLPack
 *    >= 0.8 and newest PyTorch; PyTorch 1.13 and NumPy 1.24 refuse to import it);
 *    complex32 is {CT_DL_COMPLEX, 32, 1}; float8 formats their own codes;
 *    float4_e2m1fn_x2 is {CT_DL_FLOAT4_E2M1FN, 4, 2}, one element per byte holding two
 *    values, with shape counting bytes, exactly as newest PyTorch exports it.
 *    Devices: cpu -> CT_DL_CPU (id 0), cuda -> CT_DL_CUDA, hip -> CT_DL_ROCM, opencl,
 *    vulkan, metal (mps), xpu (oneAPI), maia, privateuseone -> CT_DL_EXT_DEV, with the
 *    device index as id. Meta tensors (no data) and non-strided layouts are refused.
 *  - Import: the data is wrapped (ct_storage_wrap) without copying; when the last
 *    reference to that storage goes, the producer's deleter runs, exactly once. Import
 *    functions TAKE OWNERSHIP of a non-NULL managed tensor at the call, whether they
 *    succeed or fail: on every failure the deleter has been called before they return (on
 *    a major-version mismatch it is the only thing called, as DLPack requires). So the
 *    caller never calls the deleter of a managed tensor it passed in.
 *    Everything is validated before use, and malformed input is an error, never a crash:
 *    ndim in 0..CT_MAX_DIMS and shape non-NULL when ndim > 0; sizes >= 0; strides NULL
 *    (compact row-major, as DLPack < 1.2 allows) or given; lanes 1 (except float4's 2);
 *    bits matching the code; a data pointer for non-empty tensors, aligned for the
 *    element type after byte_offset; no address overflow of data + byte_offset + extent.
 *    Negative strides are refused (ctensor tensors, like PyTorch's, have none; PyTorch
 *    1.13 aborts on them), except in dims of size 0 or 1 and in empty tensors, where a
 *    stride does not address anything and is replaced.
 *    Device types: CT_DL_CPU, CT_DL_CUDA_HOST, CT_DL_ROCM_HOST and CT_DL_CUDA_MANAGED are
 *    host-accessible memory and become cpu tensors; the accelerator types above map back to
 *    their device with the DLPack id as index, and need a registered backend for that
 *    device (ct_device_count); anything else is CT_ERR_VALUE "Unsupported DLPack
 *    device_type ...".
 */
#ifndef CTENSOR_DLPACK_H
#define CTENSOR_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** The DLPack version ctensor's structs follow and its exports carry. */
#define CT_DLPACK_MAJOR_VERSION 1
#define CT_DLPACK_MINOR_VERSION 1

/** Python capsule names of the DLPack protocol (fresh and consumed). */
#define CT_DLPACK_CAPSULE_NAME "dltensor"
#define CT_DLPACK_CAPSULE_USED_NAME "used_dltensor"
#define CT_DLPACK_VERSIONED_CAPSULE_NAME "dltensor_versioned"
#define CT_DLPACK_VERSIONED_CAPSULE_USED_NAME "used_dltensor_versioned"

/** DLPackVersion. */
typedef struct ct_dl_pack_version {
    uint32_t major;
    uint32_t minor;
} ct_dl_pack_version;

/** DLDeviceType (values as DLPack defines them; the gaps 5 and 6 are unused there too). */
typedef enum ct_dl_device_type {
    CT_DL_CPU = 1,
    CT_DL_CUDA = 2,
    CT_DL_CUDA_HOST = 3, /**< pinned host memory (cudaMallocHost) */
    CT_DL_OPENCL = 4,
    CT_DL_VULKAN = 7,
    CT_DL_METAL = 8,
    CT_DL_VPI = 9,
    CT_DL_ROCM = 10,
    CT_DL_ROCM_HOST = 11, /**< pinned host memory (hipMallocHost) */
    CT_DL_EXT_DEV = 12,   /**< reserved for extension devices (PyTorch: PrivateUse1) */
    CT_DL_CUDA_MANAGED = 13,
    CT_DL_ONEAPI = 14,
    CT_DL_WEBGPU = 15,
    CT_DL_HEXAGON = 16,
    CT_DL_MAIA = 17,
    CT_DL_TRN = 18,
} ct_dl_device_type;

/** DLDevice. `device_type` holds a ct_dl_device_type (DLPack declares the field with its
 *  enum type, which is 32 bits wide in C and `: int32_t` in C++). */
typedef struct ct_dl_device {
    int32_t device_type;
    int32_t device_id;
} ct_dl_device;

/** DLDataTypeCode. */
typedef enum ct_dl_data_type_code {
    CT_DL_INT = 0,
    CT_DL_UINT = 1,
    CT_DL_FLOAT = 2,
    CT_DL_OPAQUE_HANDLE = 3,
    CT_DL_BFLOAT = 4,
    CT_DL_COMPLEX = 5, /**< bits count both parts: complex64 is 64 */
    CT_DL_BOOL = 6,    /**< bits 8 */
    CT_DL_FLOAT8_E3M4 = 7,
    CT_DL_FLOAT8_E4M3 = 8,
    CT_DL_FLOAT8_E4M3B11FNUZ = 9,
    CT_DL_FLOAT8_E4M3FN = 10,
    CT_DL_FLOAT8_E4M3FNUZ = 11,
    CT_DL_FLOAT8_E5M2 = 12,
    CT_DL_FLOAT8_E5M2FNUZ = 13,
    CT_DL_FLOAT8_E8M0FNU = 14,
    CT_DL_FLOAT6_E2M3FN = 15,
    CT_DL_FLOAT6_E3M2FN = 16,
    CT_DL_FLOAT4_E2M1FN = 17,
} ct_dl_data_type_code;

/** DLDataType: {code, bits per lane, lanes}; float32 is {CT_DL_FLOAT, 32, 1}. */
typedef struct ct_dl_data_type {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} ct_dl_data_type;

/** DLTensor: owns nothing. Shape and strides count elements; byte_offset counts bytes from
 *  `data` to element [0, ..., 0]. */
typedef struct ct_dl_tensor {
    void *data;
    ct_dl_device device;
    int32_t ndim;
    ct_dl_data_type dtype;
    int64_t *shape;
    int64_t *strides; /**< NULL means compact row-major (allowed before DLPack 1.2) */
    uint64_t byte_offset;
} ct_dl_tensor;

/** DLManagedTensor (unversioned, DLPack 0.x). */
typedef struct ct_dl_managed_tensor {
    ct_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct ct_dl_managed_tensor *self);
} ct_dl_managed_tensor;

/** Flags of ct_dl_managed_tensor_versioned. */
#define CT_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define CT_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1)
#define CT_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED ((uint64_t)1 << 2)

/** DLManagedTensorVersioned (DLPack >= 1.0). Everything up to `flags` stays put across
 *  major versions, so the deleter of any version can be found. */
typedef struct ct_dl_managed_tensor_versioned {
    ct_dl_pack_version version;
    void *manager_ctx;
    void (*deleter)(struct ct_dl_managed_tensor_versioned *self);
    uint64_t flags;
    ct_dl_tensor dl_tensor;
} ct_dl_managed_tensor_versioned;

/* The ABI on the 64-bit platforms ctensor targets (LP64 and LLP64). */
#if defined(__cplusplus)
#define CT_DLPACK_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define CT_DLPACK_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#if UINTPTR_MAX == UINT64_MAX
CT_DLPACK_STATIC_ASSERT(sizeof(ct_dl_pack_version) == 8, "DLPackVersion is 8 bytes");
CT_DLPACK_STATIC_ASSERT(sizeof(ct_dl_device) == 8, "DLDevice is 8 bytes");
CT_DLPACK_STATIC_ASSERT(sizeof(ct_dl_data_type) == 4, "DLDataType is 4 bytes");
CT_DLPACK_STATIC_ASSERT(sizeof(ct_dl_tensor) == 48, "DLTensor is 48 bytes");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_tensor, ndim) == 16, "DLTensor.ndim at 16");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_tensor, dtype) == 20, "DLTensor.dtype at 20");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_tensor, shape) == 24, "DLTensor.shape at 24");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_tensor, byte_offset) == 40, "byte_offset at 40");
CT_DLPACK_STATIC_ASSERT(sizeof(ct_dl_managed_tensor) == 64, "DLManagedTensor is 64 bytes");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_managed_tensor, deleter) == 56, "deleter at 56");
CT_DLPACK_STATIC_ASSERT(sizeof(ct_dl_managed_tensor_versioned) == 80,
                        "DLManagedTensorVersioned is 80 bytes");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_managed_tensor_versioned, flags) == 24, "flags at 24");
CT_DLPACK_STATIC_ASSERT(offsetof(ct_dl_managed_tensor_versioned, dl_tensor) == 32,
                        "dl_tensor at 32");
#endif

/* ---- export ------------------------------------------------------------------------------ */

/** Export `tensor` as an unversioned managed tensor (DLPack 0.x; capsule "dltensor").
 *  `*out` owns an alias of the tensor (a new tensor object sharing its storage, with its
 *  geometry at the time of the call) until its deleter is called (exactly once, by whoever
 *  holds *out). So the export keeps alive the memory it describes, not `tensor` itself: a
 *  later resize of `tensor` (an `out=` that grows it) gives `tensor` a new storage and
 *  leaves the exported memory, shape and strides as they were. Errors: CT_ERR_MISUSE for
 *  NULL arguments; CT_ERR_RUNTIME "Cannot pack tensors on meta" and "Cannot pack tensors on
 *  <device>" for devices DLPack has no type for; "Can't export tensors with layout other
 *  than torch.strided" (CT_ERR_RUNTIME, PyTorch's wording); CT_ERR_NOMEM. `*out` is NULL
 *  on failure. */
CT_API ct_status ct_tensor_to_dlpack(ct_tensor *tensor, ct_dl_managed_tensor **out);

/** Export `tensor` as a versioned managed tensor (DLPack 1.1; capsule
 *  "dltensor_versioned") with version {1, 1} and `flags`, which may contain
 *  CT_DLPACK_FLAG_READ_ONLY and CT_DLPACK_FLAG_IS_COPIED (the caller's promises: the
 *  consumer must not write / nothing else refers to the data). `*out` owns an alias of the
 *  tensor, as for ct_tensor_to_dlpack. Errors: those of ct_tensor_to_dlpack; CT_ERR_VALUE
 *  for other flag bits. */
CT_API ct_status ct_tensor_to_dlpack_versioned(ct_tensor *tensor, uint64_t flags,
                                               ct_dl_managed_tensor_versioned **out);

/** The DLPack device of a tensor (what Python's __dlpack_device__ returns), with the
 *  export's errors for devices that have none. */
CT_API ct_status ct_tensor_dlpack_device(const ct_tensor *tensor, ct_dl_device *out);

/** The DLPack data type of a dtype ({CT_DL_FLOAT, 32, 1} for float32). CT_ERR_MISUSE for an
 *  invalid dtype. */
CT_API ct_status ct_dtype_to_dlpack(ct_dtype dtype, ct_dl_data_type *out);

/** The dtype of a DLPack data type. Errors: CT_ERR_TYPE "Unsupported DLPack dtype code 7
 *  (float8_e3m4) with 8 bits" for codes ctensor has no dtype for, "... lanes 4 ..." for
 *  vector types, wrong bits for a known code; CT_ERR_MISUSE for NULL out. */
CT_API ct_status ct_dtype_from_dlpack(ct_dl_data_type type, ct_dtype *out);

/* ---- import ------------------------------------------------------------------------------ */

/** Options of ct_tensor_from_dlpack_versioned. */
typedef enum ct_dlpack_import_options {
    CT_DLPACK_IMPORT_DEFAULT = 0,
    /** Refuse a tensor flagged read-only (CT_ERR_VALUE) instead of sharing it. ctensor has no
     *  read-only tensors; by default a read-only tensor is shared anyway, as the Array API
     *  recommends, and writing to it is then the caller's responsibility. */
    CT_DLPACK_IMPORT_REFUSE_READ_ONLY = 1,
} ct_dlpack_import_options;

/** Import an unversioned managed tensor without copying: a tensor (new reference in *out)
 *  whose storage wraps the producer's memory. Takes ownership of `managed` in every case
 *  (see the header comment): after the call the caller must not use it. Errors:
 *  CT_ERR_MISUSE for NULL arguments (a NULL `out` still consumes `managed`); CT_ERR_VALUE
 *  for malformed or unsupported geometry, devices and byte offsets; CT_ERR_TYPE for
 *  unsupported dtypes; CT_ERR_OVERFLOW for extents that do not fit; CT_ERR_NOMEM. */
CT_API ct_status ct_tensor_from_dlpack(ct_dl_managed_tensor *managed, ct_tensor **out);

/** Import a versioned managed tensor, as ct_tensor_from_dlpack. `options` is a bitwise or of
 *  ct_dlpack_import_options. A major version other than 1 is CT_ERR_VALUE "Unsupported
 *  DLPack major version 2 (ctensor supports 1)" and only the deleter is called; any minor
 *  version is accepted. Flag IS_SUBBYTE_TYPE_PADDED with float4 is refused. `*flags`
 *  (may be NULL) receives the producer's flags on success, 0 on failure. */
CT_API ct_status ct_tensor_from_dlpack_versioned(ct_dl_managed_tensor_versioned *managed,
                                                 unsigned options, uint64_t *flags,
                                                 ct_tensor **out);

CT_EXTERN_C_END

#endif /* CTENSOR_DLPACK_H */
