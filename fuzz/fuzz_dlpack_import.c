/* Fuzz target: DLPack import of malformed managed tensors, unversioned and versioned.
 * The bytes decode every field: ndim (also negative and > 64), shape, strides (or NULL),
 * dtype code/bits/lanes, device type/id, byte_offset, a data pointer into a real buffer
 * (or NULL), version, flags, options, and whether there is a deleter.
 * Checks: import fails or gives a tensor inside its storage; when the description lies
 * inside the real buffer, every element is read (ASan); the deleter runs exactly once,
 * after the last reference goes (never on a NULL deleter, never twice). */
#include <stdlib.h>
#include <string.h>

#include "ctensor/ctensor.h"
#include "fuzz_common.h"
#include "fuzz_tensor.h"

#define FZ_ARR (CT_MAX_DIMS + 2)

static int deleter_calls;

/* One allocation: the managed struct, then shape and strides. */
typedef struct block {
    union {
        ct_dl_managed_tensor plain;
        ct_dl_managed_tensor_versioned versioned;
    } m;
    int64_t shape[FZ_ARR];
    int64_t strides[FZ_ARR];
} block;

static void del_plain(ct_dl_managed_tensor *self) {
    deleter_calls++;
    free(self); /* first member of block */
}
static void del_versioned(ct_dl_managed_tensor_versioned *self) {
    deleter_calls++;
    free(self);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    ct_host_cache_set_limit(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    uint8_t ctl = fz_u8(&r), ctl2 = fz_u8(&r);
    size_t nbuf = fz_u16(&r) % 2049;
    unsigned char *buf = malloc(nbuf ? nbuf : 1);
    block *b = calloc(1, sizeof *b);
    if (!buf || !b) {
        free(buf);
        free(b);
        return 0;
    }
    memset(buf, 0xa5, nbuf);

    ct_dl_tensor dl;
    memset(&dl, 0, sizeof dl);
    uint8_t nb = fz_u8(&r);
    dl.ndim = nb < 240 ? nb % 6 : (int32_t[]){-1, 64, 65, INT32_MIN, INT32_MAX, 63, 7, 10}[nb & 7];
    int32_t n = dl.ndim < 0 ? 0 : (dl.ndim > FZ_ARR ? FZ_ARR : dl.ndim);
    for (int32_t i = 0; i < n; i++) {
        b->shape[i] = (ctl & 0x80) ? fz_i64_mixed(&r) : fz_small(&r);
        b->strides[i] = (ctl & 0x40) ? fz_i64_mixed(&r) : fz_small(&r);
    }
    dl.shape = (ctl & 0x01) && dl.ndim != 0 && fz_u8(&r) == 0 ? NULL : b->shape;
    dl.strides = (ctl & 0x02) ? NULL : b->strides;
    uint8_t dt = fz_u8(&r);
    if (dt < 200) {
        /* A dtype ctensor knows, perturbed a little now and then. */
        ct_dl_data_type good;
        if (ct_dtype_to_dlpack((ct_dtype)(dt % CT_NUM_DTYPES), &good) != CT_OK)
            abort();
        dl.dtype = good;
        if (dt & 0x80)
            dl.dtype.lanes = (uint16_t)fz_u16(&r);
    } else {
        dl.dtype.code = fz_u8(&r);
        dl.dtype.bits = fz_u8(&r);
        dl.dtype.lanes = fz_u16(&r);
    }
    uint8_t dv = fz_u8(&r);
    dl.device.device_type = dv < 200 ? CT_DL_CPU : (int32_t)(dv - 200) - 4;
    dl.device.device_id = (ctl & 0x04) ? (int32_t)fz_u32(&r) : 0;
    size_t data_off = fz_u16(&r) % (nbuf + 16);
    dl.data = (ctl & 0x08) ? NULL : buf + data_off;
    dl.byte_offset = (ctl & 0x10) ? (uint64_t)fz_i64_mixed(&r) : fz_u8(&r) % 64;

    /* Does the description lie inside buf (then every element must be readable)? */
    bool fits = dl.data != NULL && dl.ndim >= 0 && dl.ndim <= CT_MAX_DIMS && dl.shape;
    if (fits) {
        uint64_t bits = (uint64_t)dl.dtype.bits * dl.dtype.lanes;
        int64_t item = (int64_t)((bits + 7) / 8), hi = 0, numel = 1, span;
        bool empty = false;
        for (int32_t i = dl.ndim - 1; i >= 0 && fits; i--) {
            int64_t stride = dl.strides ? b->strides[i] : numel;
            if (b->shape[i] < 0)
                fits = false;
            else if (b->shape[i] == 0)
                empty = true;
            else if (b->shape[i] > 1 &&
                     (__builtin_mul_overflow(b->shape[i] - 1, stride, &span) || span < 0 ||
                      __builtin_add_overflow(hi, span, &hi)))
                fits = false;
            if (!dl.strides && b->shape[i] > 0 && __builtin_mul_overflow(numel, b->shape[i], &numel))
                fits = false;
        }
        int64_t bytes;
        if (fits && !empty &&
            (hi == INT64_MAX || __builtin_mul_overflow(hi + 1, item, &bytes) || dl.byte_offset > nbuf ||
             (uint64_t)bytes > nbuf || data_off + dl.byte_offset + (uint64_t)bytes > nbuf))
            fits = false;
    }

    bool versioned = ctl & 0x20;
    bool has_deleter = !(ctl2 & 0x01);
    deleter_calls = 0;
    ct_tensor *t = NULL;
    ct_status st;
    uint64_t flags_out = 12345;
    if (versioned) {
        ct_dl_managed_tensor_versioned *m = &b->m.versioned;
        m->version.major = (ctl2 & 0x02) ? fz_u32(&r) : 1;
        m->version.minor = fz_u32(&r);
        m->flags = (ctl2 & 0x04) ? fz_u64(&r) : fz_u8(&r) & 7;
        m->deleter = has_deleter ? del_versioned : NULL;
        m->dl_tensor = dl;
        unsigned options = (ctl2 & 0x08) ? fz_u32(&r) : (ctl2 >> 4) & 1;
        st = ct_tensor_from_dlpack_versioned(m, options, (ctl2 & 0x40) ? NULL : &flags_out, &t);
        if (st != CT_OK && !(ctl2 & 0x40) && flags_out != 0)
            abort(); /* documented: 0 on failure */
    } else {
        ct_dl_managed_tensor *m = &b->m.plain;
        m->deleter = has_deleter ? del_plain : NULL;
        m->dl_tensor = dl;
        st = ct_tensor_from_dlpack(m, &t);
    }

    if (st == CT_OK) {
        if (!t || deleter_calls != 0)
            abort(); /* the tensor owns the deleter now */
        fz_check_tensor_ex(t, false);
        if (fits && ct_tensor_numel(t) > 0 && ct_tensor_numel(t) <= FZ_TOUCH_MAX_NUMEL) {
            const unsigned char *s = ct_storage_data(ct_tensor_storage(t));
            size_t sn = ct_storage_nbytes(ct_tensor_storage(t));
            if (s < buf || s + sn > buf + nbuf)
                fz_fail("imported storage reaches outside the producer's buffer", t);
            (void)fz_read_all(t);
        }
        /* A view and a copy of it, then drop the tensor: the deleter runs at the last one. */
        ct_tensor *v = NULL;
        if (ct_tensor_alias(t, &v) != CT_OK)
            abort();
        ct_tensor_release(t);
        if (deleter_calls != 0)
            abort();
        ct_tensor_release(v);
    } else if (t) {
        abort();
    }
    if (deleter_calls != (has_deleter ? 1 : 0))
        abort();
    if (!has_deleter)
        free(b);
    free(buf);
    return 0;
}
