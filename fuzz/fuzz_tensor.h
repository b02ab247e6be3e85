/* Shared checks of the fuzz targets that produce tensors: the whole extent of a tensor lies
 * inside its storage (checked arithmetically, then by reading every element under ASan). */
#ifndef CT_FUZZ_TENSOR_H
#define CT_FUZZ_TENSOR_H

#include <stdio.h>
#include <stdlib.h>

#include "ctensor/ctensor.h"

/* Above this many elements, a tensor is checked arithmetically only (reading it all would
 * make the fuzzer slow, not find more). */
#define FZ_TOUCH_MAX_NUMEL ((int64_t)1 << 16)

static inline void fz_fail(const char *what, const ct_tensor *t) {
    fprintf(stderr, "fuzz check failed: %s (dim %lld, numel %lld, offset %lld)\n", what,
            (long long)ct_tensor_dim(t), (long long)ct_tensor_numel(t),
            (long long)ct_tensor_storage_offset(t));
    abort();
}

/* XOR of every byte of every element: a read of each (sizes/strides walked here, not by
 * the library). Returns the checksum so the reads cannot be optimised away. */
static inline unsigned fz_read_all(const ct_tensor *t) {
    int64_t nd = ct_tensor_dim(t);
    const int64_t *sz = ct_tensor_sizes(t), *st = ct_tensor_strides(t);
    const unsigned char *base = ct_tensor_data_ptr(t);
    size_t item = ct_tensor_element_size(t);
    int64_t idx[CT_MAX_DIMS] = {0};
    unsigned acc = 0;
    for (int64_t n = ct_tensor_numel(t); n > 0; n--) {
        int64_t off = 0;
        for (int64_t d = 0; d < nd; d++)
            off += idx[d] * st[d];
        const volatile unsigned char *e = base + off * (int64_t)item;
        for (size_t b = 0; b < item; b++)
            acc ^= e[b];
        for (int64_t d = nd - 1; d >= 0; d--) {
            if (++idx[d] < sz[d])
                break;
            idx[d] = 0;
        }
    }
    return acc;
}

/* Every invariant a successfully returned strided tensor must satisfy; `read` also reads
 * every element of small tensors (only when the memory behind the storage is known to be
 * real: an imported DLPack tensor is only as good as its producer's description). */
static inline void fz_check_tensor_ex(const ct_tensor *t, bool read) {
    if (!t)
        abort();
    int64_t nd = ct_tensor_dim(t);
    if (nd < 0 || nd > CT_MAX_DIMS)
        fz_fail("dim out of range", t);
    const int64_t *sz = ct_tensor_sizes(t), *st = ct_tensor_strides(t);
    int64_t numel = 1;
    bool empty = false;
    for (int64_t d = 0; d < nd; d++) {
        if (sz[d] < 0)
            fz_fail("negative size", t);
        if (sz[d] == 0)
            empty = true;
        else if (__builtin_mul_overflow(numel, sz[d], &numel))
            numel = -1; /* an error unless some other size is 0 */
    }
    if (numel < 0 && !empty)
        fz_fail("numel overflows", t);
    if (empty)
        numel = 0;
    if (ct_tensor_numel(t) != numel)
        fz_fail("numel disagrees with sizes", t);
    if (ct_tensor_storage_offset(t) < 0)
        fz_fail("negative storage offset", t);
    if (numel == 0 || ct_tensor_is_meta(t))
        return;
    /* Extent in elements relative to the storage start: [lo, hi]. */
    int64_t lo = ct_tensor_storage_offset(t), hi = lo;
    for (int64_t d = 0; d < nd; d++) {
        int64_t span;
        if (__builtin_mul_overflow(sz[d] - 1, st[d], &span))
            fz_fail("extent overflows", t);
        if (span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi))
            fz_fail("extent overflows", t);
    }
    int64_t item = (int64_t)ct_tensor_element_size(t), hi_bytes;
    if (lo < 0 || hi == INT64_MAX || __builtin_mul_overflow(hi + 1, item, &hi_bytes) ||
        (uint64_t)hi_bytes > ct_storage_nbytes(ct_tensor_storage(t)))
        fz_fail("view reaches outside its storage", t);
    if (read && numel <= FZ_TOUCH_MAX_NUMEL)
        (void)fz_read_all(t);
}

static inline void fz_check_tensor(const ct_tensor *t) { fz_check_tensor_ex(t, true); }

#endif
