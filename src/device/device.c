/* Device values: type names, validity, equality, hash, str and repr (device.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/compat.h"
#include "device/device_impl.h"

typedef struct type_info {
    const char *name;  /* lower case: str, parsing */
    const char *upper; /* C++ DeviceTypeName(type, false) */
    bool parseable;    /* accepted by the string parser */
} type_info;

/* clang-format off */
static const type_info types[CT_NUM_DEVICE_TYPES] = {
    [CT_DEVICE_CPU]           = {"cpu",           "CPU",           true},
    [CT_DEVICE_CUDA]          = {"cuda",          "CUDA",          true},
    [CT_DEVICE_MKLDNN]        = {"mkldnn",        "MKLDNN",        true},
    [CT_DEVICE_OPENGL]        = {"opengl",        "OPENGL",        true},
    [CT_DEVICE_OPENCL]        = {"opencl",        "OPENCL",        true},
    [CT_DEVICE_IDEEP]         = {"ideep",         "IDEEP",         true},
    [CT_DEVICE_HIP]           = {"hip",           "HIP",           true},
    [CT_DEVICE_FPGA]          = {"fpga",          "FPGA",          true},
    [CT_DEVICE_MAIA]          = {"maia",          "MAIA",          true},
    [CT_DEVICE_XLA]           = {"xla",           "XLA",           true},
    [CT_DEVICE_VULKAN]        = {"vulkan",        "VULKAN",        true},
    [CT_DEVICE_METAL]         = {"metal",         "METAL",         false},
    [CT_DEVICE_XPU]           = {"xpu",           "XPU",           true},
    [CT_DEVICE_MPS]           = {"mps",           "MPS",           true},
    [CT_DEVICE_META]          = {"meta",          "META",          true},
    [CT_DEVICE_HPU]           = {"hpu",           "HPU",           true},
    [CT_DEVICE_VE]            = {"ve",            "VE",            true},
    [CT_DEVICE_LAZY]          = {"lazy",          "LAZY",          true},
    [CT_DEVICE_IPU]           = {"ipu",           "IPU",           true},
    [CT_DEVICE_MTIA]          = {"mtia",          "MTIA",          true},
    [CT_DEVICE_PRIVATEUSEONE] = {"privateuseone", "PRIVATEUSEONE", true},
};
/* clang-format on */
_Static_assert(sizeof types / sizeof types[0] == CT_NUM_DEVICE_TYPES, "one row per device type");

bool ct_device_type_is_valid(ct_device_type type) { return ct_device_impl_type_ok(type); }

const char *ct_device_type_name(ct_device_type type) {
    if (!ct_device_impl_type_ok(type))
        return NULL;
    if (type == CT_DEVICE_PRIVATEUSEONE) {
        const char *n = ct_device_impl_registry_pu1_name(false);
        if (n != NULL)
            return n;
    }
    return types[type].name;
}

const char *ct_device_type_upper_name(ct_device_type type) {
    if (!ct_device_impl_type_ok(type))
        return NULL;
    if (type == CT_DEVICE_PRIVATEUSEONE) {
        const char *n = ct_device_impl_registry_pu1_name(true);
        if (n != NULL)
            return n;
    }
    return types[type].upper;
}

bool ct_device_impl_devval_lookup_name(const char *name, size_t n, ct_device_type *out) {
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++) {
        if (types[t].parseable && strlen(types[t].name) == n &&
            memcmp(types[t].name, name, n) == 0) {
            *out = (ct_device_type)t;
            return true;
        }
    }
    const char *pu1 = ct_device_impl_registry_pu1_name(false);
    if (pu1 != NULL && strlen(pu1) == n && memcmp(pu1, name, n) == 0) {
        *out = CT_DEVICE_PRIVATEUSEONE;
        return true;
    }
    return false;
}

bool ct_device_impl_devval_is_builtin_name(const char *name) {
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++)
        if (types[t].parseable && strcmp(types[t].name, name) == 0)
            return true;
    return false;
}

/* ---- values ---- */

ct_status ct_device_impl_devval_index_range_error(int64_t index) {
    return ct_set_error(CT_ERR_RUNTIME,
                        "Device index %" PRId64 " is out of range: device indices must be "
                        "between 0 and %d",
                        index, CT_DEVICE_MAX_INDEX);
}

ct_status ct_device_impl_devval_check(ct_device d) {
    if (!ct_device_impl_type_ok(d.type))
        return ct_set_error(CT_ERR_MISUSE,
                            "Unknown device: %d. If you have recently updated the caffe2.proto "
                            "file to add a new device type, did you forget to update the "
                            "DeviceTypeName() function to reflect such recent changes?",
                            (int)d.type);
    if (d.index < CT_DEVICE_NO_INDEX)
        return ct_set_error(CT_ERR_RUNTIME, "Device index must be -1 or non-negative, got %d",
                            (int)d.index);
    if (d.index > CT_DEVICE_MAX_INDEX)
        return ct_device_impl_devval_index_range_error(d.index);
    return CT_OK;
}

bool ct_device_is_valid(ct_device device) {
    return ct_device_impl_type_ok(device.type) && device.index >= CT_DEVICE_NO_INDEX &&
           device.index <= CT_DEVICE_MAX_INDEX;
}

ct_status ct_device_make(ct_device_type type, int64_t index, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_make: out is NULL");
    *out = ct_device_impl_undefined();
    ct_device d = {type, CT_DEVICE_NO_INDEX};
    CT_TRY(ct_device_impl_devval_check(d));
    if (index < CT_DEVICE_NO_INDEX)
        return ct_set_error(CT_ERR_RUNTIME, "Device index must be -1 or non-negative, got %" PRId64,
                            index);
    if (index > CT_DEVICE_MAX_INDEX)
        return ct_device_impl_devval_index_range_error(index);
    d.index = (int32_t)index;
    *out = d;
    return CT_OK;
}

bool ct_device_equal(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }

uint32_t ct_device_hash(ct_device device) {
    /* std::hash<c10::Device>: both fields as uint8, type above index. */
    return ((uint32_t)(uint8_t)device.type << 16) | (uint32_t)(uint8_t)device.index;
}

int32_t ct_device_impl_devval_oneflow_index(ct_device d) {
    if (d.index != CT_DEVICE_NO_INDEX)
        return d.index;
    /* Quiet lookups: formatting must not disturb the thread's last error. Without a
     * backend OneFlow shows its local rank, which is 0 in a single process. */
    ct_backend b;
    if (!ct_device_impl_registry_find(d.type, &b) || (b.flags & CT_BACKEND_INDEXLESS) ||
        ct_device_impl_current_count(&b) == 0)
        return 0;
    return ct_device_impl_current_index(&b, d.type);
}

/* Write str (repr = false) or repr of a checked device. */
static ct_status format(ct_device d, bool repr, char *buf, size_t size, const char *fn) {
    if (buf == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: buf is NULL", fn);
    if (size > 0)
        buf[0] = '\0';
    CT_TRY(ct_device_impl_devval_check(d));
    int32_t index = d.index;
    if (ct_get_compat_mode() == CT_COMPAT_ONEFLOW)
        index = ct_device_impl_devval_oneflow_index(d);
    const char *name = ct_device_type_name(d.type);
    int n;
    if (repr && index == CT_DEVICE_NO_INDEX)
        n = snprintf(buf, size, "device(type='%s')", name);
    else if (repr) /* PyTorch prints the index through uint16; equal for 0..127. */
        n = snprintf(buf, size, "device(type='%s', index=%u)", name,
                     (unsigned)(uint16_t)(int16_t)(int8_t)index);
    else if (index == CT_DEVICE_NO_INDEX)
        n = snprintf(buf, size, "%s", name);
    else
        n = snprintf(buf, size, "%s:%d", name, (int)index);
    if (n < 0 || (size_t)n >= size) {
        if (size > 0)
            buf[0] = '\0';
        return ct_set_error(CT_ERR_MISUSE, "%s: a buffer of %zu bytes is too small (need %d)", fn,
                            size, n + 1);
    }
    return CT_OK;
}

ct_status ct_device_str(ct_device device, char *buf, size_t size) {
    return format(device, false, buf, size, "ct_device_str");
}

ct_status ct_device_repr(ct_device device, char *buf, size_t size) {
    return format(device, true, buf, size, "ct_device_repr");
}
