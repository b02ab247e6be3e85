/* Overflow-checked size arithmetic. Every size, count and byte offset computed from user
 * input goes through these; they return true when the result overflowed. Named
 * ct_checked_* so that they never read as the public ops ct_add / ct_mul. */
#ifndef CT_BASE_CHECKED_H
#define CT_BASE_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool ct_checked_mul_i64(int64_t a, int64_t b, int64_t *out) {
    return __builtin_mul_overflow(a, b, out);
}
static inline bool ct_checked_add_i64(int64_t a, int64_t b, int64_t *out) {
    return __builtin_add_overflow(a, b, out);
}
static inline bool ct_checked_mul_size(size_t a, size_t b, size_t *out) {
    return __builtin_mul_overflow(a, b, out);
}
static inline bool ct_checked_add_size(size_t a, size_t b, size_t *out) {
    return __builtin_add_overflow(a, b, out);
}

#endif /* CT_BASE_CHECKED_H */
