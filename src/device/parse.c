/* Device strings and the torch.device constructors (device.h).
 *
 * Note [Device string grammar]
 * PyTorch documents the grammar as the regex ([a-zA-Z_]+)(?::([1-9]\d*|0))? but implements
 * it as a byte state machine, and the order of its checks decides which message a bad
 * string gets: syntax first, then the index's int32 conversion, then the type name (shown
 * alone, without the index). ctensor keeps that order and adds one last check where
 * PyTorch wraps the index into an int8: an index above 127 is an error here.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/compat.h"
#include "device/device_impl.h"

static bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The parser's type list in PyTorch's order (the message is part of the contract). */
static const char expected_types[] =
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone";

/* Parse with PyTorch's grammar; *has_index tells whether the string named an index. */
static ct_status parse(const char *s, ct_device *out, bool *has_index) {
    *out = ct_device_impl_undefined();
    *has_index = false;
    if (s[0] == '\0')
        return ct_set_error(CT_ERR_RUNTIME, "Device string must not be empty");

    /* Scan: type part, then after the first ':' one index without leading zeros. */
    size_t type_len = 0, digits_at = 0, ndigits = 0;
    bool bad = false, in_index = false;
    for (size_t i = 0; s[i] != '\0' && !bad; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!in_index) {
            if (c == ':') {
                in_index = true;
                digits_at = i + 1;
            } else if (is_letter(c) || c == '_') {
                type_len++;
            } else {
                bad = true;
            }
        } else if (!is_digit(c) || (ndigits == 1 && s[digits_at] == '0')) {
            bad = true;
        } else {
            ndigits++;
        }
    }
    if (bad || type_len == 0 || (in_index && ndigits == 0))
        return ct_set_error(CT_ERR_RUNTIME, "Invalid device string: '%s'", s);

    int64_t index = CT_DEVICE_NO_INDEX;
    if (in_index) {
        index = 0;
        for (size_t i = 0; i < ndigits; i++) {
            index = index * 10 + (s[digits_at + i] - '0');
            if (index > INT32_MAX) /* PyTorch's std::stoi fails here */
                return ct_set_error(CT_ERR_RUNTIME,
                                    "Could not parse device index '%.*s' in device string '%s'",
                                    (int)ndigits, s + digits_at, s);
        }
    }

    ct_device_type type;
    if (!ct_device_impl_devval_lookup_name(s, type_len, &type))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected one of %s device type at start of device string: %.*s",
                            expected_types, (int)type_len, s);
    if (index > CT_DEVICE_MAX_INDEX)
        return ct_device_impl_devval_index_range_error(index);
    out->type = type;
    out->index = (int32_t)index;
    *has_index = in_index;
    return CT_OK;
}

/* OneFlow devices always carry an index (see compat.h). */
static ct_device apply_compat(ct_device d) {
    if (ct_get_compat_mode() == CT_COMPAT_ONEFLOW)
        d.index = ct_device_impl_devval_oneflow_index(d);
    return d;
}

ct_status ct_device_from_string(const char *str, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_from_string: out is NULL");
    *out = ct_device_impl_undefined();
    if (str == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_from_string: str is NULL");
    ct_device d;
    bool has_index;
    CT_TRY(parse(str, &d, &has_index));
    *out = apply_compat(d);
    return CT_OK;
}

ct_status ct_device_from_type(const char *type, const int64_t *index, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_from_type: out is NULL");
    *out = ct_device_impl_undefined();
    if (type == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_from_type: type is NULL");
    ct_device d;
    bool has_index;
    CT_TRY(parse(type, &d, &has_index));
    if (has_index)
        return ct_set_error(CT_ERR_RUNTIME,
                            "type (string) must not include an index because index was passed "
                            "explicitly: %s",
                            type);
    if (index != NULL) {
        /* -1 means "no index" in C, but not when a caller spells it out. */
        if (*index < 0)
            return ct_set_error(CT_ERR_RUNTIME, "Device index must not be negative");
        if (*index > CT_DEVICE_MAX_INDEX)
            return ct_device_impl_devval_index_range_error(*index);
        d.index = (int32_t)*index;
    }
    *out = apply_compat(d);
    return CT_OK;
}

ct_status ct_device_from_ordinal(int64_t ordinal, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_device_from_ordinal: out is NULL");
    *out = ct_device_impl_undefined();
    if (ordinal < 0)
        return ct_set_error(CT_ERR_RUNTIME, "Device index must not be negative");
    if (ordinal > CT_DEVICE_MAX_INDEX)
        return ct_device_impl_devval_index_range_error(ordinal);
    ct_device_type type = CT_DEVICE_CUDA; /* OneFlow: "treated as a cuda device" */
    if (ct_get_compat_mode() != CT_COMPAT_ONEFLOW)
        CT_TRY(ct_current_accelerator(&type));
    out->type = type;
    out->index = (int32_t)ordinal;
    return CT_OK;
}
