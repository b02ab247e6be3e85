/* Fuzz target: device strings (torch.device(str), torch.device(type, index)).
 * Input: 1 control byte, 8 bytes of index, then the string (NUL-terminated copy).
 * Checks: a parsed device is valid, prints, and the printed form parses back to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/ctensor.h"
#include "fuzz_common.h"

static void check_roundtrip(ct_device d) {
    if (!ct_device_is_valid(d))
        abort();
    char buf[CT_DEVICE_STRING_MAX];
    if (ct_device_str(d, buf, sizeof buf) != CT_OK)
        abort();
    ct_device again;
    if (ct_device_from_string(buf, &again) != CT_OK || !ct_device_equal(d, again)) {
        fprintf(stderr, "round trip failed for '%s'\n", buf);
        abort();
    }
    char repr[CT_DEVICE_STRING_MAX];
    if (ct_device_repr(d, repr, sizeof repr) != CT_OK)
        abort();
    /* A too-small buffer must be refused, not overrun. */
    char small[4];
    (void)ct_device_str(d, small, sizeof small);
    (void)ct_device_hash(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    uint8_t ctl = fz_u8(&r);
    int64_t index = fz_i64_mixed(&r);
    char *s = fz_rest_cstr(&r);
    if (!s)
        return 0;

    ct_device d;
    if (ct_device_from_string(s, &d) == CT_OK)
        check_roundtrip(d);
    else if (d.type != CT_DEVICE_UNDEFINED)
        abort(); /* documented: out-parameter is CT_DEVICE_UNDEFINED on failure */

    if (ct_device_from_type(s, (ctl & 1) ? &index : NULL, &d) == CT_OK)
        check_roundtrip(d);
    if (ct_device_make((ct_device_type)(int8_t)(ctl >> 1), index, &d) == CT_OK &&
        d.type != CT_DEVICE_METAL) /* metal prints but does not parse (device.h) */
        check_roundtrip(d);
    if (ct_device_from_ordinal(index, &d) == CT_OK)
        check_roundtrip(d);
    free(s);
    return 0;
}
