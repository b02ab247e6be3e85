/* Fuzz target: tensor creation from sizes / strides / offsets and every view function.
 * The bytes decode a geometry (ndim, sizes, strides, offset, dtype), which goes unchanged to
 * the factories and to ct_tensor_from_storage over a real storage, then a chain of view
 * operations with decoded arguments. Every successful result must lie inside its storage
 * (fz_check_tensor) and is read in full; small ones are also copied (contiguous) and filled.
 * Geometries whose storage would fit in int64 but exceed FZ_ALLOC_MAX bytes are not passed
 * to allocating factories (they would succeed and allocate); overflowing ones are, since
 * the library must refuse them before allocating. */
#include <stdlib.h>
#include <string.h>

#include "ctensor/ctensor.h"
#include "fuzz_common.h"
#include "fuzz_tensor.h"

#define FZ_ALLOC_MAX ((int64_t)1 << 20)
#define FZ_ARR (CT_MAX_DIMS + 2)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    ct_host_cache_set_limit(0); /* every block straight back to malloc: ASan sees misuse */
    return 0;
}

static int64_t decode_ndim(fz_reader *r) {
    uint8_t b = fz_u8(r);
    if (b < 240)
        return b % 7;
    static const int64_t odd[] = {CT_MAX_DIMS, CT_MAX_DIMS + 1, -1, INT64_MIN, INT64_MAX, 8, 12, 33};
    return odd[b & 7];
}

static ct_dtype decode_dtype(fz_reader *r) {
    uint8_t b = fz_u8(r);
    if (b == 255)
        return (ct_dtype)1000;
    if (b == 254)
        return CT_DTYPE_UNDEFINED;
    return (ct_dtype)(b % CT_NUM_DTYPES);
}

/* Bytes the geometry needs (-1 when it overflows or has a negative entry). */
static int64_t needed_bytes(const int64_t *sz, const int64_t *st, int64_t nd, int64_t off,
                            size_t item) {
    if (nd < 0 || nd > CT_MAX_DIMS)
        return -1;
    int64_t hi = off < 0 ? 0 : off;
    for (int64_t d = 0; d < nd; d++) {
        if (sz[d] < 0 || (st && st[d] < 0))
            return -1;
        if (sz[d] == 0)
            return 0;
    }
    int64_t numel = 1;
    for (int64_t d = 0; d < nd; d++) {
        int64_t span;
        if (st) {
            if (__builtin_mul_overflow(sz[d] - 1, st[d], &span) || __builtin_add_overflow(hi, span, &hi))
                return -1;
        } else if (__builtin_mul_overflow(numel, sz[d], &numel)) {
            return -1;
        }
    }
    int64_t bytes;
    if ((!st && __builtin_add_overflow(hi, numel - 1, &hi)) || hi == INT64_MAX ||
        __builtin_mul_overflow(hi + 1, (int64_t)(item ? item : 1), &bytes))
        return -1;
    return bytes;
}

static bool may_alloc(const int64_t *sz, const int64_t *st, int64_t nd, ct_dtype dt) {
    size_t item = ct_dtype_itemsize(dt);
    if (!item)
        item = 8; /* UNDEFINED / invalid: the default dtype or an error */
    int64_t b = needed_bytes(sz, st, nd, 0, item);
    return b < 0 || b <= FZ_ALLOC_MAX;
}

static void small_ops(const ct_tensor *t, fz_reader *r) {
    fz_check_tensor(t);
    if (ct_tensor_numel(t) > 4096)
        return;
    ct_tensor *c = NULL;
    if (ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &c) == CT_OK) {
        fz_check_tensor(c);
        if (!ct_tensor_is_contiguous(c, CT_MEMFMT_CONTIGUOUS))
            fz_fail("contiguous() result is not contiguous", c);
        ct_tensor_release(c);
    }
    if (fz_bool(r))
        (void)ct_tensor_fill_((ct_tensor *)t, ct_scalar_int(fz_small(r)));
}

/* Apply one view operation chosen by the bytes; returns the new tensor or NULL. */
static ct_tensor *one_view(ct_tensor *t, fz_reader *r) {
    int64_t a[FZ_ARR], b[FZ_ARR];
    ct_tensor *out = NULL;
    uint8_t op = fz_u8(r);
    int64_t nd = decode_ndim(r);
    int64_t n = nd < 0 ? 0 : (nd > FZ_ARR ? FZ_ARR : nd);
    for (int64_t i = 0; i < n; i++) {
        a[i] = (op & 0x80) ? fz_i64_mixed(r) : fz_small(r);
        b[i] = (op & 0x40) ? fz_i64_mixed(r) : fz_small(r);
    }
    int64_t x = fz_i64_mixed(r), y = fz_i64_mixed(r), z = fz_i64_mixed(r);
    ct_status s;
    switch (op % 15) {
    case 0: s = ct_tensor_view(t, a, nd, &out); break;
    case 1: s = ct_tensor_reshape(t, a, nd, &out); break;
    case 2: s = ct_tensor_narrow(t, x, y, z, &out); break;
    case 3: s = ct_tensor_select(t, x, y, &out); break;
    case 4: s = ct_tensor_slice(t, x, y, z, fz_small(r), &out); break;
    case 5: s = ct_tensor_permute(t, a, nd, &out); break;
    case 6: s = ct_tensor_transpose(t, x, y, &out); break;
    case 7: s = ct_tensor_expand(t, a, nd, &out); break;
    case 8: s = ct_tensor_squeeze(t, &out); break;
    case 9: s = ct_tensor_squeeze_dim(t, x, &out); break;
    case 10: s = ct_tensor_unsqueeze(t, x, &out); break;
    case 11: s = ct_tensor_flatten(t, x, y, &out); break;
    case 12: s = ct_tensor_as_strided(t, a, b, nd, fz_bool(r) ? &x : NULL, &out); break;
    case 13: s = ct_tensor_t(t, &out); break;
    default: s = ct_tensor_alias(t, &out); break;
    }
    if (s != CT_OK) {
        if (out)
            abort(); /* documented: NULL on failure */
        return NULL;
    }
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    uint8_t ctl = fz_u8(&r);
    int64_t nd = decode_ndim(&r);
    int64_t sz[FZ_ARR] = {0}, st[FZ_ARR] = {0};
    int64_t n = nd < 0 ? 0 : (nd > FZ_ARR ? FZ_ARR : nd);
    for (int64_t i = 0; i < n; i++) {
        sz[i] = (ctl & 0x80) ? fz_i64_mixed(&r) : fz_small(&r);
        st[i] = (ctl & 0x40) ? fz_i64_mixed(&r) : fz_small(&r);
    }
    int64_t off = (ctl & 0x20) ? fz_i64_mixed(&r) : fz_small(&r);
    ct_dtype dt = decode_dtype(&r);
    ct_memory_format fmt = (ct_memory_format)(fz_u8(&r) % 5);
    ct_tensor *t = NULL;

    /* Factories: must refuse bad geometry, and give a valid tensor otherwise. */
    if (may_alloc(sz, NULL, nd, dt)) {
        if (ct_tensor_empty(sz, nd, dt, NULL, CT_LAYOUT_STRIDED, fmt, &t) == CT_OK)
            small_ops(t, &r);
        ct_tensor_release(t);
        t = NULL;
        if (ct_tensor_zeros(sz, nd, dt, NULL, (ct_layout)(ctl & 1), &t) == CT_OK)
            small_ops(t, &r);
        ct_tensor_release(t);
        t = NULL;
        if (ct_tensor_full(sz, nd, ct_scalar_float((double)off), dt, NULL, CT_LAYOUT_STRIDED, &t) == CT_OK)
            small_ops(t, &r);
        ct_tensor_release(t);
        t = NULL;
    }
    if (may_alloc(sz, st, nd, dt)) {
        if (ct_tensor_empty_strided(sz, st, nd, dt, NULL, CT_LAYOUT_STRIDED, &t) == CT_OK)
            small_ops(t, &r);
        ct_tensor_release(t);
        t = NULL;
    }

    /* A real storage of a decoded size; views of it are checked, never allocated. */
    size_t nbytes = fz_u16(&r) % 4097;
    void *buf = malloc(nbytes ? nbytes : 1);
    ct_storage *storage = NULL;
    if (!buf || ct_storage_wrap((ct_device){CT_DEVICE_CPU, -1}, buf, nbytes, NULL, NULL, &storage) != CT_OK) {
        free(buf);
        return 0;
    }
    memset(buf, 0x5a, nbytes);
    if (ct_tensor_from_storage(storage, sz, (ctl & 2) ? NULL : st, nd, off, dt, &t) != CT_OK) {
        /* Fall back to a 1-D byte view of everything, to exercise the view chain anyway. */
        int64_t all = (int64_t)nbytes;
        t = NULL;
        if (ct_tensor_from_storage(storage, &all, NULL, 1, 0, CT_UINT8, &t) != CT_OK)
            abort();
    }
    for (int step = 0; step < 6 && r.n > 0 && t; step++) {
        small_ops(t, &r);
        ct_tensor *v = one_view(t, &r);
        if (v) {
            ct_tensor_release(t);
            t = v;
        }
    }
    if (t)
        small_ops(t, &r);
    ct_tensor_release(t);
    ct_storage_release(storage);
    free(buf);
    return 0;
}
