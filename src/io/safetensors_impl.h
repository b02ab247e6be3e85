/* The safetensors handle, shared by the header parser (safetensors_header.c) and the file
 * layer (safetensors_file.c: mapping, tensors, saving). */
#ifndef CT_IO_SAFETENSORS_IMPL_H
#define CT_IO_SAFETENSORS_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/safetensors.h"

/* One row per dtype string of the format: its bits per value and ctensor dtype. */
typedef struct st_format {
    const char *name;
    unsigned bits;
    ct_dtype dtype; /* CT_DTYPE_UNDEFINED: no ctensor dtype */
} st_format;

/* The row of a dtype string (n bytes, not NUL-terminated), or NULL. */
const st_format *st_format_by_name(const char *name, size_t n);
/* The row of a ctensor dtype, or NULL when the format has none. */
const st_format *st_format_of(ct_dtype dtype);

typedef struct st_entry {
    char *name;
    const st_format *format;
    int64_t ndim;
    int64_t *shape; /* ndim entries (ct_alloc; NULL when ndim == 0) */
    uint64_t begin, end;
} st_entry;

/* A mapped file, shared by the handle and every tensor's storage (their finalizers). */
typedef struct st_mapping {
    atomic_long refcount;
    void *addr;
    size_t size;
} st_mapping;

struct ct_safetensors {
    st_entry *entries; /* file order (sorted by begin) */
    size_t n, cap;
    char **meta; /* __metadata__: key, value, key, value, ... (2 * meta_cap slots) */
    size_t nmeta, meta_cap;
    const unsigned char *data; /* the data's start; NULL for a parsed image */
    st_mapping *mapping;       /* NULL for a parsed image */
};

/* Parse and check `size` bytes of a whole file into an empty handle (entries and metadata
 * filled; data left to the caller). On error the handle may hold partial entries: the caller
 * frees it with st_handle_free. */
ct_status st_parse_into(struct ct_safetensors *f, const unsigned char *bytes, size_t size,
                        uint64_t *data_start);
/* Free entries and metadata and the handle (not the mapping). */
void st_handle_free(struct ct_safetensors *f);

/* The 8-byte length prefix's limit, as the safetensors package's MAX_HEADER_SIZE. */
#define ST_MAX_HEADER ((uint64_t)100000000)

#endif /* CT_IO_SAFETENSORS_IMPL_H */
