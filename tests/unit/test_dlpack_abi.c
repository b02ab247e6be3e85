/* ctensor's DLPack structs against the system's <dlpack/dlpack.h> (Debian's libdlpack-dev,
 * DLPack 0.6): the unversioned structs must agree in size, alignment and the offset and
 * width of every field, and the enum values 0.6 has must be equal. The versioned struct is
 * not in 0.6; it is checked against the layout DLPack 1.x documents (a DLPackVersion, then
 * manager_ctx, deleter, flags, and the DLTensor at the end), built here from 0.6's pieces.
 * Compile-time checks (_Static_assert) do the work; the test cases repeat them at run time
 * so a report shows what was compared. */
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "cmocka_all.h"
#include "ctensor/dlpack.h"

#define FIELD_SIZE(type, field) sizeof(((type *)0)->field)

/* same offset and width of one field */
#define SAME_FIELD(ct_type, dl_type, ct_field, dl_field)                                           \
    _Static_assert(offsetof(ct_type, ct_field) == offsetof(dl_type, dl_field),                     \
                   #ct_type "." #ct_field " offset");                                              \
    _Static_assert(FIELD_SIZE(ct_type, ct_field) == FIELD_SIZE(dl_type, dl_field),                 \
                   #ct_type "." #ct_field " size")

#define SAME_STRUCT(ct_type, dl_type)                                                              \
    _Static_assert(sizeof(ct_type) == sizeof(dl_type), #ct_type " size");                          \
    _Static_assert(_Alignof(ct_type) == _Alignof(dl_type), #ct_type " alignment")

SAME_STRUCT(ct_dl_device, DLDevice);
SAME_FIELD(ct_dl_device, DLDevice, device_type, device_type);
SAME_FIELD(ct_dl_device, DLDevice, device_id, device_id);

SAME_STRUCT(ct_dl_data_type, DLDataType);
SAME_FIELD(ct_dl_data_type, DLDataType, code, code);
SAME_FIELD(ct_dl_data_type, DLDataType, bits, bits);
SAME_FIELD(ct_dl_data_type, DLDataType, lanes, lanes);

SAME_STRUCT(ct_dl_tensor, DLTensor);
SAME_FIELD(ct_dl_tensor, DLTensor, data, data);
SAME_FIELD(ct_dl_tensor, DLTensor, device, device);
SAME_FIELD(ct_dl_tensor, DLTensor, ndim, ndim);
SAME_FIELD(ct_dl_tensor, DLTensor, dtype, dtype);
SAME_FIELD(ct_dl_tensor, DLTensor, shape, shape);
SAME_FIELD(ct_dl_tensor, DLTensor, strides, strides);
SAME_FIELD(ct_dl_tensor, DLTensor, byte_offset, byte_offset);

SAME_STRUCT(ct_dl_managed_tensor, DLManagedTensor);
SAME_FIELD(ct_dl_managed_tensor, DLManagedTensor, dl_tensor, dl_tensor);
SAME_FIELD(ct_dl_managed_tensor, DLManagedTensor, manager_ctx, manager_ctx);
SAME_FIELD(ct_dl_managed_tensor, DLManagedTensor, deleter, deleter);

/* DLPack 1.x's versioned struct, spelled from 0.6's DLTensor. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} ref_version;
typedef struct ref_versioned {
    ref_version version;
    void *manager_ctx;
    void (*deleter)(struct ref_versioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} ref_versioned;

SAME_STRUCT(ct_dl_pack_version, ref_version);
SAME_FIELD(ct_dl_pack_version, ref_version, major, major);
SAME_FIELD(ct_dl_pack_version, ref_version, minor, minor);
SAME_STRUCT(ct_dl_managed_tensor_versioned, ref_versioned);
SAME_FIELD(ct_dl_managed_tensor_versioned, ref_versioned, version, version);
SAME_FIELD(ct_dl_managed_tensor_versioned, ref_versioned, manager_ctx, manager_ctx);
SAME_FIELD(ct_dl_managed_tensor_versioned, ref_versioned, deleter, deleter);
SAME_FIELD(ct_dl_managed_tensor_versioned, ref_versioned, flags, flags);
SAME_FIELD(ct_dl_managed_tensor_versioned, ref_versioned, dl_tensor, dl_tensor);

/* The device field's enum type is as wide as our int32_t. */
_Static_assert(sizeof(DLDeviceType) == sizeof(int32_t), "DLDeviceType width");

/* enum values present in 0.6 */
#define SAME_VALUE(a, b) _Static_assert((int)(a) == (int)(b), #a " == " #b)
SAME_VALUE(CT_DL_CPU, kDLCPU);
SAME_VALUE(CT_DL_CUDA, kDLCUDA);
SAME_VALUE(CT_DL_CUDA_HOST, kDLCUDAHost);
SAME_VALUE(CT_DL_OPENCL, kDLOpenCL);
SAME_VALUE(CT_DL_VULKAN, kDLVulkan);
SAME_VALUE(CT_DL_METAL, kDLMetal);
SAME_VALUE(CT_DL_VPI, kDLVPI);
SAME_VALUE(CT_DL_ROCM, kDLROCM);
SAME_VALUE(CT_DL_ROCM_HOST, kDLROCMHost);
SAME_VALUE(CT_DL_EXT_DEV, kDLExtDev);
SAME_VALUE(CT_DL_CUDA_MANAGED, kDLCUDAManaged);
SAME_VALUE(CT_DL_INT, kDLInt);
SAME_VALUE(CT_DL_UINT, kDLUInt);
SAME_VALUE(CT_DL_FLOAT, kDLFloat);
SAME_VALUE(CT_DL_OPAQUE_HANDLE, kDLOpaqueHandle);
SAME_VALUE(CT_DL_BFLOAT, kDLBfloat);
SAME_VALUE(CT_DL_COMPLEX, kDLComplex);

typedef struct field_check {
    const char *name;
    size_t ct_off, dl_off, ct_size, dl_size;
} field_check;

#define ROW(ct_type, dl_type, f)                                                                   \
    {                                                                                              \
#ct_type "." #f, offsetof(ct_type, f), offsetof(dl_type, f), FIELD_SIZE(ct_type, f),       \
            FIELD_SIZE(dl_type, f)                                                                 \
    }

static void test_fields_at_run_time(void **state) {
    (void)state;
    static const field_check rows[] = {
        ROW(ct_dl_device, DLDevice, device_type),
        ROW(ct_dl_device, DLDevice, device_id),
        ROW(ct_dl_data_type, DLDataType, code),
        ROW(ct_dl_data_type, DLDataType, bits),
        ROW(ct_dl_data_type, DLDataType, lanes),
        ROW(ct_dl_tensor, DLTensor, data),
        ROW(ct_dl_tensor, DLTensor, device),
        ROW(ct_dl_tensor, DLTensor, ndim),
        ROW(ct_dl_tensor, DLTensor, dtype),
        ROW(ct_dl_tensor, DLTensor, shape),
        ROW(ct_dl_tensor, DLTensor, strides),
        ROW(ct_dl_tensor, DLTensor, byte_offset),
        ROW(ct_dl_managed_tensor, DLManagedTensor, dl_tensor),
        ROW(ct_dl_managed_tensor, DLManagedTensor, manager_ctx),
        ROW(ct_dl_managed_tensor, DLManagedTensor, deleter),
        ROW(ct_dl_managed_tensor_versioned, ref_versioned, version),
        ROW(ct_dl_managed_tensor_versioned, ref_versioned, manager_ctx),
        ROW(ct_dl_managed_tensor_versioned, ref_versioned, deleter),
        ROW(ct_dl_managed_tensor_versioned, ref_versioned, flags),
        ROW(ct_dl_managed_tensor_versioned, ref_versioned, dl_tensor),
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].ct_off != rows[i].dl_off || rows[i].ct_size != rows[i].dl_size)
            fail_msg("%s: offset %zu size %zu, DLPack offset %zu size %zu", rows[i].name,
                     rows[i].ct_off, rows[i].ct_size, rows[i].dl_off, rows[i].dl_size);
    }
    assert_int_equal(sizeof(ct_dl_tensor), sizeof(DLTensor));
    assert_int_equal(sizeof(ct_dl_managed_tensor), sizeof(DLManagedTensor));
    assert_int_equal(sizeof(ct_dl_managed_tensor_versioned), sizeof(ref_versioned));
}

/* The bytes of one declaration read through the other (memcpy: no aliasing games). */
static void test_aliasing_round_trip(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
    float data[6] = {0};
    DLManagedTensor m = {0};
    m.dl_tensor.data = data;
    m.dl_tensor.device.device_type = kDLCPU;
    m.dl_tensor.device.device_id = 0;
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype.code = kDLFloat;
    m.dl_tensor.dtype.bits = 32;
    m.dl_tensor.dtype.lanes = 1;
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = strides;
    m.dl_tensor.byte_offset = 8;
    m.manager_ctx = &m;
    ct_dl_managed_tensor copy;
    memcpy(&copy, &m, sizeof copy);
    const ct_dl_managed_tensor *c = &copy;
    assert_ptr_equal(c->dl_tensor.data, data);
    assert_int_equal(c->dl_tensor.device.device_type, CT_DL_CPU);
    assert_int_equal(c->dl_tensor.ndim, 2);
    assert_int_equal(c->dl_tensor.dtype.code, CT_DL_FLOAT);
    assert_int_equal(c->dl_tensor.dtype.bits, 32);
    assert_int_equal(c->dl_tensor.dtype.lanes, 1);
    assert_ptr_equal(c->dl_tensor.shape, shape);
    assert_ptr_equal(c->dl_tensor.strides, strides);
    assert_int_equal(c->dl_tensor.byte_offset, 8);
    assert_ptr_equal(c->manager_ctx, &m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_at_run_time),
        cmocka_unit_test(test_aliasing_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
