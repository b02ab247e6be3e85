/* DLPack export and import (include/ctensor/dlpack.h): zero-copy in both directions.
 *
 * Export puts the managed tensor, an alias of the ct_tensor and copies of its shape and
 * strides into ONE allocation (export_block); manager_ctx points at that block, and the
 * deleter releases the alias and frees the block. See Note [Exports hold an alias].
 *
 * Import validates everything the producer wrote before touching memory, then wraps the
 * data in a ct_storage whose finalizer calls the producer's deleter; from the moment the
 * import function is entered it owns the managed tensor, so every failure path ends by
 * running that deleter, either directly (before the storage exists) or by releasing the
 * storage (after). See Note [DLPack import ownership].
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "ctensor/dlpack.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

/* ---- dtypes ----------------------------------------------------------------------------- */

static const char *const code_names[] = {
    "int",
    "uint",
    "float",
    "opaque_handle",
    "bfloat",
    "complex",
    "bool",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
};
#define NUM_CODES ((int)(sizeof code_names / sizeof code_names[0]))

static const char *code_name(int code) {
    return code >= 0 && code < NUM_CODES ? code_names[code] : "unknown";
}

/* Lanes of a dtype on the wire: 1, except float4_e2m1fn_x2 whose byte holds two 4-bit
 * lanes (PyTorch's encoding). */
static int dtype_lanes(ct_dtype d) {
    return (int)(ct_dtype_table[d].itemsize * 8) / ct_dtype_table[d].dl_bits;
}

ct_status ct_dtype_to_dlpack(ct_dtype dtype, ct_dl_data_type *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_dtype_to_dlpack: out is NULL");
    memset(out, 0, sizeof *out);
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_dtype_to_dlpack: invalid dtype value %d",
                            (int)dtype);
    out->code = (uint8_t)ct_dtype_table[dtype].dl_code;
    out->bits = (uint8_t)ct_dtype_table[dtype].dl_bits;
    out->lanes = (uint16_t)dtype_lanes(dtype);
    return CT_OK;
}

ct_status ct_dtype_from_dlpack(ct_dl_data_type type, ct_dtype *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_dtype_from_dlpack: out is NULL");
    *out = CT_DTYPE_UNDEFINED;
    bool known_code = false;
    for (int d = 0; d < CT_NUM_DTYPES; d++) {
        const ct_dtype_info *info = &ct_dtype_table[d];
        if (info->dl_code != type.code)
            continue;
        known_code = true;
        if (info->dl_bits != type.bits)
            continue;
        int lanes = dtype_lanes((ct_dtype)d);
        if (type.lanes != lanes) {
            if (lanes == 2)
                return ct_set_error(CT_ERR_TYPE,
                                    "Unsupported DLPack dtype: float4_e2m1fn with lanes %u; "
                                    "ctensor imports float4 only as PyTorch's "
                                    "float4_e2m1fn_x2 (bits 4, lanes 2: one byte, two values)",
                                    (unsigned)type.lanes);
            return ct_set_error(CT_ERR_TYPE,
                                "Unsupported DLPack dtype: %s%u with lanes %u (only lanes 1 is "
                                "supported)",
                                code_name(type.code), (unsigned)type.bits, (unsigned)type.lanes);
        }
        *out = (ct_dtype)d;
        return CT_OK;
    }
    if (known_code)
        return ct_set_error(CT_ERR_TYPE, "Unsupported DLPack dtype: code %u (%s) with %u bits",
                            (unsigned)type.code, code_name(type.code), (unsigned)type.bits);
    return ct_set_error(CT_ERR_TYPE, "Unsupported DLPack dtype code %u (%s) with %u bits",
                        (unsigned)type.code, code_name(type.code), (unsigned)type.bits);
}

/* ---- devices ---------------------------------------------------------------------------- */

/* ctensor device type <-> DLPack device type for accelerators (both directions). */
static const struct {
    ct_device_type ct;
    ct_dl_device_type dl;
} accel_map[] = {
    {CT_DEVICE_CUDA, CT_DL_CUDA},     {CT_DEVICE_HIP, CT_DL_ROCM},
    {CT_DEVICE_OPENCL, CT_DL_OPENCL}, {CT_DEVICE_VULKAN, CT_DL_VULKAN},
    {CT_DEVICE_MPS, CT_DL_METAL},     {CT_DEVICE_XPU, CT_DL_ONEAPI},
    {CT_DEVICE_MAIA, CT_DL_MAIA},     {CT_DEVICE_PRIVATEUSEONE, CT_DL_EXT_DEV},
};
#define NUM_ACCEL ((int)(sizeof accel_map / sizeof accel_map[0]))

static const char *dl_device_name(int32_t type) {
    switch (type) {
    case CT_DL_CPU:
        return "kDLCPU";
    case CT_DL_CUDA:
        return "kDLCUDA";
    case CT_DL_CUDA_HOST:
        return "kDLCUDAHost";
    case CT_DL_OPENCL:
        return "kDLOpenCL";
    case CT_DL_VULKAN:
        return "kDLVulkan";
    case CT_DL_METAL:
        return "kDLMetal";
    case CT_DL_VPI:
        return "kDLVPI";
    case CT_DL_ROCM:
        return "kDLROCM";
    case CT_DL_ROCM_HOST:
        return "kDLROCMHost";
    case CT_DL_EXT_DEV:
        return "kDLExtDev";
    case CT_DL_CUDA_MANAGED:
        return "kDLCUDAManaged";
    case CT_DL_ONEAPI:
        return "kDLOneAPI";
    case CT_DL_WEBGPU:
        return "kDLWebGPU";
    case CT_DL_HEXAGON:
        return "kDLHexagon";
    case CT_DL_MAIA:
        return "kDLMAIA";
    case CT_DL_TRN:
        return "kDLTrn";
    default:
        return "unknown";
    }
}

static ct_status to_dl_device(ct_device device, ct_dl_device *out) {
    if (device.type == CT_DEVICE_CPU) {
        out->device_type = CT_DL_CPU;
        out->device_id = 0;
        return CT_OK;
    }
    for (int i = 0; i < NUM_ACCEL; i++)
        if (accel_map[i].ct == device.type) {
            out->device_type = accel_map[i].dl;
            out->device_id = device.index < 0 ? 0 : device.index;
            return CT_OK;
        }
    char name[CT_DEVICE_STRING_MAX];
    if (ct_device_str(device, name, sizeof name) != CT_OK)
        snprintf(name, sizeof name, "device type %d", (int)device.type);
    return ct_set_error(CT_ERR_RUNTIME, "Cannot pack tensors on %s", name);
}

ct_status ct_tensor_dlpack_device(const ct_tensor *tensor, ct_dl_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_dlpack_device: out is NULL");
    out->device_type = 0;
    out->device_id = 0;
    if (tensor == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_dlpack_device: tensor is NULL");
    return to_dl_device(tensor->device, out);
}

/* The ctensor device of a DLPack device; host-accessible memory types become cpu. */
static ct_status from_dl_device(ct_dl_device dl, ct_device *out) {
    switch (dl.device_type) {
    case CT_DL_CPU:
    case CT_DL_CUDA_HOST:
    case CT_DL_ROCM_HOST:
    case CT_DL_CUDA_MANAGED:
        out->type = CT_DEVICE_CPU;
        out->index = CT_DEVICE_NO_INDEX;
        return CT_OK;
    default:
        break;
    }
    for (int i = 0; i < NUM_ACCEL; i++) {
        if ((int32_t)accel_map[i].dl != dl.device_type)
            continue;
        ct_device_type type = accel_map[i].ct;
        if (dl.device_id < 0 || dl.device_id > CT_DEVICE_MAX_INDEX)
            return ct_set_error(CT_ERR_VALUE,
                                "Unsupported DLPack device: %s with device_id %" PRId32
                                " (ctensor device indices are 0 to %d)",
                                dl_device_name(dl.device_type), dl.device_id, CT_DEVICE_MAX_INDEX);
        int32_t count = 0;
        (void)ct_device_count(type, &count);
        if (dl.device_id >= count)
            return ct_set_error(CT_ERR_VALUE,
                                "Cannot import a DLPack tensor on %s:%" PRId32
                                ": ctensor has %" PRId32 " %s device(s) (register a backend)",
                                ct_device_type_name(type), dl.device_id, count,
                                ct_device_type_name(type));
        out->type = type;
        out->index = dl.device_id;
        return CT_OK;
    }
    return ct_set_error(CT_ERR_VALUE, "Unsupported DLPack device_type %" PRId32 " (%s)",
                        dl.device_type, dl_device_name(dl.device_type));
}

/* ---- export ----------------------------------------------------------------------------- */

/* Note [Exports hold an alias]
 * An export keeps alive the memory it handed out, not the tensor object it came from: a
 * later resize_ or out= may give the source a new storage (resize.c), which would free the
 * old one under the consumer if the export only held the source. So the block owns an
 * alias (a new tensor object on the same storage, with the geometry of the moment of
 * export) that nothing else can resize; the source's later storages are its own business.
 * The Python buffer exporter (python/tensor_data.c) follows the same rule. */
typedef struct export_block {
    union {
        ct_dl_managed_tensor plain;
        ct_dl_managed_tensor_versioned versioned;
    } m;
    ct_tensor *tensor; /* the alias the consumer holds through the managed tensor */
    size_t size;       /* of this block, for ct_free */
    int64_t dims[];    /* shape (ndim entries), then strides (ndim entries) */
} export_block;

static void free_block(export_block *b) {
    if (b == NULL)
        return;
    ct_tensor *t = b->tensor;
    ct_free(b, b->size, _Alignof(export_block));
    ct_tensor_release(t);
}

static void delete_plain(ct_dl_managed_tensor *self) {
    if (self != NULL)
        free_block(self->manager_ctx);
}

static void delete_versioned(ct_dl_managed_tensor_versioned *self) {
    if (self != NULL)
        free_block(self->manager_ctx);
}

/* Check the tensor, allocate the block and fill `dl` (inside it) from the tensor. */
static ct_status export_block_new(ct_tensor *t, const char *fn, export_block **out) {
    *out = NULL;
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensor is NULL", fn);
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Can't export tensors with layout other than torch.strided");
    if (t->device.type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_RUNTIME, "Cannot pack tensors on meta");
    ct_dl_device dev;
    ct_dl_data_type type;
    CT_TRY(to_dl_device(t->device, &dev));
    CT_TRY(ct_dtype_to_dlpack(t->dtype, &type));

    ct_tensor *alias;
    CT_TRY(ct_tensor_alias(t, &alias));
    size_t size = sizeof(export_block) + 2 * (size_t)alias->ndim * sizeof(int64_t);
    export_block *b = ct_alloc(size, _Alignof(export_block));
    if (b == NULL) {
        ct_tensor_release(alias);
        return CT_ERR_NOMEM;
    }
    memset(b, 0, size);
    b->size = size;
    if (alias->ndim > 0) {
        memcpy(b->dims, alias->sizes, (size_t)alias->ndim * sizeof(int64_t));
        memcpy(b->dims + alias->ndim, alias->strides, (size_t)alias->ndim * sizeof(int64_t));
    }
    b->tensor = alias;
    *out = b;
    return CT_OK;
}

static void fill_dl_tensor(export_block *b, ct_dl_tensor *dl) {
    const ct_tensor *t = b->tensor;
    dl->data = ct_tensor_data_ptr(t);
    (void)to_dl_device(t->device, &dl->device); /* checked in export_block_new */
    dl->ndim = t->ndim;
    (void)ct_dtype_to_dlpack(t->dtype, &dl->dtype);
    dl->shape = b->dims;
    dl->strides = b->dims + t->ndim;
    dl->byte_offset = 0;
}

ct_status ct_tensor_to_dlpack(ct_tensor *tensor, ct_dl_managed_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_to_dlpack: out is NULL");
    *out = NULL;
    export_block *b;
    CT_TRY(export_block_new(tensor, "ct_tensor_to_dlpack", &b));
    fill_dl_tensor(b, &b->m.plain.dl_tensor);
    b->m.plain.manager_ctx = b;
    b->m.plain.deleter = delete_plain;
    *out = &b->m.plain;
    return CT_OK;
}

ct_status ct_tensor_to_dlpack_versioned(ct_tensor *tensor, uint64_t flags,
                                        ct_dl_managed_tensor_versioned **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_to_dlpack_versioned: out is NULL");
    *out = NULL;
    const uint64_t allowed = CT_DLPACK_FLAG_READ_ONLY | CT_DLPACK_FLAG_IS_COPIED;
    if ((flags & ~allowed) != 0)
        return ct_set_error(CT_ERR_VALUE,
                            "ct_tensor_to_dlpack_versioned: unsupported flags 0x%" PRIx64
                            " (only READ_ONLY and IS_COPIED may be set)",
                            flags & ~allowed);
    export_block *b;
    CT_TRY(export_block_new(tensor, "ct_tensor_to_dlpack_versioned", &b));
    ct_dl_managed_tensor_versioned *m = &b->m.versioned;
    m->version.major = CT_DLPACK_MAJOR_VERSION;
    m->version.minor = CT_DLPACK_MINOR_VERSION;
    m->manager_ctx = b;
    m->deleter = delete_versioned;
    m->flags = flags;
    fill_dl_tensor(b, &m->dl_tensor);
    *out = m;
    return CT_OK;
}

/* ---- import ----------------------------------------------------------------------------- */

/* Note [DLPack import ownership]
 * The import functions own the managed tensor from their first line. Until a storage wraps
 * the data, failing means calling the producer's deleter here; once the storage exists, it
 * owns the deleter (as its finalizer), and failing means releasing the storage. Either way
 * the deleter runs exactly once. The deleter may call back into ctensor (ours releases a
 * tensor), so the error message is saved across it and set again afterwards. */

static void finalize_plain(void *ctx, void *data) {
    (void)data;
    ct_dl_managed_tensor *m = ctx;
    if (m->deleter != NULL)
        m->deleter(m);
}

static void finalize_versioned(void *ctx, void *data) {
    (void)data;
    ct_dl_managed_tensor_versioned *m = ctx;
    if (m->deleter != NULL)
        m->deleter(m);
}

/* Run the finalizer (or release the storage that owns it) keeping the current error. */
static ct_status give_back(ct_status st, ct_storage *storage, ct_storage_finalizer fin, void *ctx) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ct_last_error());
    if (storage != NULL)
        ct_storage_release(storage);
    else
        fin(ctx, NULL);
    return ct_set_error(st, "%s", msg);
}

/* Alignment the element type needs: that of its scalar component (complex64: 4). */
static size_t element_align(ct_dtype d) {
    size_t size = ct_dtype_table[d].itemsize;
    return ct_dtype_table[d].kind == CT_KIND_COMPLEX ? size / 2 : size;
}

/* Validate `dl` and build the tensor; consumes (fin, ctx) in every case. */
static ct_status import_dl(const ct_dl_tensor *dl, ct_storage_finalizer fin, void *ctx,
                           ct_tensor **out) {
    ct_status st = CT_OK;
    ct_storage *storage = NULL;
    char buf[300], buf2[300];
    int64_t ndim = dl->ndim;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], dense[CT_MAX_DIMS];
    ct_dtype dtype;
    ct_device device;

    CT_CHECK(ndim >= 0 && ndim <= CT_MAX_DIMS, CT_ERR_VALUE,
             "DLPack tensor has ndim %" PRId64 "; ctensor supports 0 to %d dims", ndim,
             CT_MAX_DIMS);
    CT_CHECK(ndim == 0 || dl->shape != NULL, CT_ERR_VALUE,
             "DLPack tensor has no shape (shape is NULL with ndim %" PRId64 ")", ndim);
    if ((st = ct_dtype_from_dlpack(dl->dtype, &dtype)) != CT_OK ||
        (st = from_dl_device(dl->device, &device)) != CT_OK)
        goto fail;
    if (ndim > 0)
        memcpy(sizes, dl->shape, (size_t)ndim * sizeof(int64_t));
    for (int64_t i = 0; i < ndim; i++)
        CT_CHECK(sizes[i] >= 0, CT_ERR_VALUE, "DLPack tensor has a negative size: shape %s",
                 ct_tensor_impl_shape_format(buf, sizeof buf, sizes, ndim));
    int64_t numel;
    if ((st = ct_tensor_impl_shape_numel(sizes, ndim, &numel)) != CT_OK ||
        (st = ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, sizes, ndim, dense)) != CT_OK)
        goto fail;
    if (dl->strides == NULL) {
        if (ndim > 0)
            memcpy(strides, dense, (size_t)ndim * sizeof(int64_t));
    } else {
        memcpy(strides, dl->strides, (size_t)ndim * sizeof(int64_t));
        for (int64_t i = 0; i < ndim; i++) {
            if (strides[i] >= 0)
                continue;
            /* a stride that never moves (size 0 or 1, or nothing to address) is harmless */
            if (sizes[i] < 2 || numel == 0)
                strides[i] = dense[i];
            else
                CT_CHECK(false, CT_ERR_VALUE,
                         "DLPack tensor has negative strides %s (shape %s); ctensor tensors "
                         "cannot have negative strides: make a copy before exporting",
                         ct_tensor_impl_shape_format(buf, sizeof buf, dl->strides, ndim),
                         ct_tensor_impl_shape_format(buf2, sizeof buf2, sizes, ndim));
        }
    }

    size_t itemsize = ct_dtype_table[dtype].itemsize, nbytes;
    if ((st = ct_tensor_impl_shape_storage_nbytes(sizes, strides, ndim, itemsize, 0, &nbytes)) !=
        CT_OK)
        goto fail;
    uintptr_t base = (uintptr_t)dl->data, start = 0;
    if (dl->data != NULL) {
        CT_CHECK(dl->byte_offset <= UINTPTR_MAX - base, CT_ERR_OVERFLOW,
                 "DLPack tensor's data pointer 0x%" PRIxPTR " plus byte_offset %" PRIu64
                 " overflows the address space",
                 base, dl->byte_offset);
        start = base + (uintptr_t)dl->byte_offset;
        CT_CHECK(nbytes <= (size_t)PTRDIFF_MAX && nbytes <= UINTPTR_MAX - start, CT_ERR_OVERFLOW,
                 "DLPack tensor's extent of %zu bytes from address 0x%" PRIxPTR
                 " overflows the address space",
                 nbytes, start);
    }
    if (numel > 0) {
        CT_CHECK(dl->data != NULL, CT_ERR_VALUE,
                 "DLPack tensor has a NULL data pointer but %" PRId64 " elements", numel);
        CT_CHECK(start % element_align(dtype) == 0, CT_ERR_VALUE,
                 "DLPack tensor's data (0x%" PRIxPTR " + byte_offset %" PRIu64
                 ") is not aligned to %zu bytes, as %s elements need",
                 base, dl->byte_offset, element_align(dtype), ct_dtype_table[dtype].name);
    }

    if ((st = ct_storage_wrap(device, (void *)start, nbytes, fin, ctx, &storage)) != CT_OK)
        goto fail;
    st = ct_tensor_impl_new(storage, dtype, sizes, strides, ndim, 0, "from_dlpack", out);
    if (st != CT_OK)
        goto fail;
    ct_storage_release(storage); /* the tensor holds its own reference */
    return CT_OK;
fail:
    *out = NULL;
    return give_back(st, storage, fin, ctx);
}

ct_status ct_tensor_from_dlpack(ct_dl_managed_tensor *managed, ct_tensor **out) {
    if (managed == NULL) {
        if (out != NULL)
            *out = NULL;
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_from_dlpack: managed tensor is NULL");
    }
    if (out == NULL) {
        ct_set_error(CT_ERR_MISUSE, "ct_tensor_from_dlpack: out is NULL");
        return give_back(CT_ERR_MISUSE, NULL, finalize_plain, managed);
    }
    return import_dl(&managed->dl_tensor, finalize_plain, managed, out);
}

ct_status ct_tensor_from_dlpack_versioned(ct_dl_managed_tensor_versioned *managed, unsigned options,
                                          uint64_t *flags, ct_tensor **out) {
    if (flags != NULL)
        *flags = 0;
    if (out != NULL)
        *out = NULL;
    if (managed == NULL)
        return ct_set_error(CT_ERR_MISUSE,
                            "ct_tensor_from_dlpack_versioned: managed tensor is NULL");
    ct_status st = CT_OK;
    CT_CHECK(out != NULL, CT_ERR_MISUSE, "ct_tensor_from_dlpack_versioned: out is NULL");
    /* only the deleter may be used when the major version differs */
    CT_CHECK(managed->version.major == CT_DLPACK_MAJOR_VERSION, CT_ERR_VALUE,
             "Unsupported DLPack major version %" PRIu32 " (ctensor supports %d)",
             managed->version.major, CT_DLPACK_MAJOR_VERSION);
    CT_CHECK((options & ~(unsigned)CT_DLPACK_IMPORT_REFUSE_READ_ONLY) == 0, CT_ERR_MISUSE,
             "ct_tensor_from_dlpack_versioned: unknown options 0x%x", options);
    uint64_t f = managed->flags;
    CT_CHECK(!((options & CT_DLPACK_IMPORT_REFUSE_READ_ONLY) && (f & CT_DLPACK_FLAG_READ_ONLY)),
             CT_ERR_VALUE, "DLPack tensor is read-only, and read-only tensors were refused");
    CT_CHECK(!((f & CT_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED) &&
               managed->dl_tensor.dtype.code == CT_DL_FLOAT4_E2M1FN),
             CT_ERR_TYPE,
             "Unsupported DLPack dtype: padded float4_e2m1fn (flag "
             "IS_SUBBYTE_TYPE_PADDED); ctensor needs two values per byte");
    st = import_dl(&managed->dl_tensor, finalize_versioned, managed, out);
    if (st == CT_OK && flags != NULL)
        *flags = f;
    return st;
fail:
    return give_back(st, NULL, finalize_versioned, managed);
}
