/* Shared helpers of the fuzz targets: a reader that takes typed values off the front of the
 * fuzzer's bytes. Running out of bytes gives zeros, so every input decodes to something. */
#ifndef CT_FUZZ_COMMON_H
#define CT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

static inline uint64_t fz_bytes(fz_reader *r, size_t k) {
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++) {
        v <<= 8;
        if (r->n > 0) {
            v |= *r->p++;
            r->n--;
        }
    }
    return v;
}
static inline uint8_t fz_u8(fz_reader *r) { return (uint8_t)fz_bytes(r, 1); }
static inline uint16_t fz_u16(fz_reader *r) { return (uint16_t)fz_bytes(r, 2); }
static inline uint32_t fz_u32(fz_reader *r) { return (uint32_t)fz_bytes(r, 4); }
static inline uint64_t fz_u64(fz_reader *r) { return fz_bytes(r, 8); }
static inline int fz_bool(fz_reader *r) { return fz_u8(r) & 1; }

/* An int64 that is usually small (so that shapes fit in memory) but sometimes one of the
 * values that break arithmetic: negative, zero, INT64_MIN/MAX, 2^31, 2^32, 2^62. */
static inline int64_t fz_i64_mixed(fz_reader *r) {
    uint8_t sel = fz_u8(r);
    switch (sel >> 4) {
    case 0: return INT64_MAX - (int64_t)(sel & 3);
    case 1: return INT64_MIN + (int64_t)(sel & 3);
    case 2: return ((int64_t)1 << (31 + (sel & 3))) - (sel & 8 ? 1 : 0);
    case 3: return (int64_t)1 << (60 + (sel % 3));
    case 4: return -(int64_t)(sel & 15);
    case 5: return (int64_t)fz_u64(r);
    default: return (int64_t)(sel & 15);
    }
}
/* A small int64 in [-4, 11]. */
static inline int64_t fz_small(fz_reader *r) { return (int64_t)(fz_u8(r) & 15) - 4; }

/* The rest of the bytes as a NUL-terminated string (embedded NULs cut it short, as a C
 * caller's string would be); the caller frees it. NULL when out of memory. */
static inline char *fz_rest_cstr(fz_reader *r) {
    char *s = malloc(r->n + 1);
    if (s != NULL) {
        memcpy(s, r->p, r->n);
        s[r->n] = '\0';
    }
    return s;
}

#endif
