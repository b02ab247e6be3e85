/* The library's one hash: FNV-1a, 64-bit, over bytes, chained from a seed. It digests
 * arguments that every rank of a global operation must agree on, so it has to give the
 * same value on every machine for the same bytes (no per-process randomisation). */
#ifndef CT_BASE_HASH_H
#define CT_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define CT_HASH_FNV_OFFSET 14695981039346656037ull
#define CT_HASH_FNV_PRIME 1099511628211ull

/* Continue digest h over n bytes; a zero h starts from the offset basis. */
static inline uint64_t ct_hash_bytes(uint64_t h, const void *data, size_t n) {
    if (h == 0)
        h = CT_HASH_FNV_OFFSET;
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= CT_HASH_FNV_PRIME;
    }
    return h;
}

/* Continue h over one value (its native bytes), the common case of ct_hash_bytes. */
static inline uint64_t ct_hash_u64(uint64_t h, uint64_t v) { return ct_hash_bytes(h, &v, sizeof v); }
static inline uint64_t ct_hash_i64(uint64_t h, int64_t v) { return ct_hash_bytes(h, &v, sizeof v); }

/* A NUL-terminated string, its terminator included (so "ab"+"c" and "a"+"bc" differ). */
static inline uint64_t ct_hash_str(uint64_t h, const char *s) {
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return ct_hash_bytes(h, s, n + 1);
}

#endif /* CT_BASE_HASH_H */
