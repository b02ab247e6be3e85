/* Sorting kernels (sort.h): elements become unsigned keys in PyTorch's order, (key, position)
 * pairs are sorted by an LSD radix sort (8-bit digits; digits that every key shares are
 * skipped), which is stable and linear, and values are gathered from the source by position.
 * topk narrows a row to its candidates with one histogram of the keys' top 16 bits before
 * sorting them. Rows are spread over threads (src/base/parallel.h). */
#include <stdatomic.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "base/parallel.h"
#include "kernels/sort.h"

#define SORT_ALIGN 64
#define SORT_SMALL 32 /* rows up to this length: insertion sort */

/* ---- keys --------------------------------------------------------------------------------- */

/* Sign-magnitude float bits `b` (w bits, exponent mask em, sign s) as an ascending key: NaN
 * (any) above +inf, -0.0 as 0.0. */
#define FLOAT_KEY(b, s, em, nan_key)                                                               \
    (((b) & ~(s)) > (em) ? (nan_key) : ((b) & ~(s)) == 0 ? (s) : ((b) & (s)) ? ~(b) : ((b) | (s)))

static int key_bytes(ct_dtype dt) { return (int)ct_dtype_itemsize(dt); }

static void keys32(ct_dtype dt, const void *src, int64_t n, bool desc, uint32_t *key) {
    uint32_t mask = key_bytes(dt) == 4 ? 0xffffffffu : key_bytes(dt) == 2 ? 0xffffu : 0xffu;
    switch (dt) {
    case CT_BOOL:
    case CT_UINT8:
        for (int64_t i = 0; i < n; i++)
            key[i] = ((const uint8_t *)src)[i];
        break;
    case CT_INT8:
        for (int64_t i = 0; i < n; i++)
            key[i] = (uint8_t)(((const uint8_t *)src)[i] ^ 0x80u);
        break;
    case CT_INT16:
        for (int64_t i = 0; i < n; i++)
            key[i] = (uint16_t)(((const uint16_t *)src)[i] ^ 0x8000u);
        break;
    case CT_INT32:
        for (int64_t i = 0; i < n; i++)
            key[i] = ((const uint32_t *)src)[i] ^ 0x80000000u;
        break;
    case CT_FLOAT16:
        for (int64_t i = 0; i < n; i++) {
            uint32_t b = ((const uint16_t *)src)[i];
            key[i] = FLOAT_KEY(b, 0x8000u, 0x7c00u, 0xfe00u) & 0xffffu;
        }
        break;
    case CT_BFLOAT16:
        for (int64_t i = 0; i < n; i++) {
            uint32_t b = ((const uint16_t *)src)[i];
            key[i] = FLOAT_KEY(b, 0x8000u, 0x7f80u, 0xffc0u) & 0xffffu;
        }
        break;
    default: { /* float32: FLOAT_KEY without branches, four lanes at a time (the baseline
                * build vectorizes no loop that needs a scalar epilogue) */
        typedef uint32_t u32x4 __attribute__((vector_size(16)));
        const uint32_t *sb = src;
        uint32_t flip = desc ? 0xffffffffu : 0u;
        int64_t i = 0;
        for (; i + 4 <= n; i += 4) {
            u32x4 b;
            memcpy(&b, sb + i, sizeof b);
            u32x4 a = b & 0x7fffffffu;
            u32x4 k = b ^ ((0u - (b >> 31)) | 0x80000000u); /* ~b if negative, else b | s */
            u32x4 zero = (u32x4)(a == 0u), nan = (u32x4)(a > 0x7f800000u);
            k = (k & ~zero) | (0x80000000u & zero);
            k = ((k & ~nan) | (0xffc00000u & nan)) ^ flip;
            memcpy(key + i, &k, sizeof k);
        }
        for (; i < n; i++)
            key[i] = FLOAT_KEY(sb[i], 0x80000000u, 0x7f800000u, 0xffc00000u) ^ flip;
        return;
    }
    }
    if (desc)
        for (int64_t i = 0; i < n; i++)
            key[i] = ~key[i] & mask;
}

static void keys64(ct_dtype dt, const void *src, int64_t n, bool desc, uint64_t *key) {
    const uint64_t *s = src;
    if (dt == CT_INT64) {
        for (int64_t i = 0; i < n; i++)
            key[i] = s[i] ^ (UINT64_C(1) << 63);
    } else { /* float64 */
        const uint64_t sg = UINT64_C(1) << 63, em = UINT64_C(0x7ff0000000000000);
        const uint64_t nk = UINT64_C(0xfff8000000000000);
        for (int64_t i = 0; i < n; i++)
            key[i] = FLOAT_KEY(s[i], sg, em, nk);
    }
    if (desc)
        for (int64_t i = 0; i < n; i++)
            key[i] = ~key[i];
}

/* ---- radix sort of (key, position) pairs ------------------------------------------------- */

/* Sorts key[0..n) with pos alongside, stably; k2 / p2 are scratch of n. nbytes: key width. */
#define DEFINE_RADIX(NAME, K)                                                                      \
    static void NAME(K *key, uint32_t *pos, K *k2, uint32_t *p2, int64_t n, int nbytes) {         \
        if (n <= SORT_SMALL) {                                                                     \
            for (int64_t i = 1; i < n; i++) {                                                      \
                K kv = key[i];                                                                     \
                uint32_t pv = pos[i];                                                              \
                int64_t j = i;                                                                     \
                for (; j > 0 && key[j - 1] > kv; j--) {                                            \
                    key[j] = key[j - 1];                                                           \
                    pos[j] = pos[j - 1];                                                           \
                }                                                                                  \
                key[j] = kv;                                                                       \
                pos[j] = pv;                                                                       \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        uint32_t cnt[sizeof(K)][256];                                                              \
        memset(cnt, 0, sizeof cnt);                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            K v = key[i];                                                                          \
            for (int b = 0; b < nbytes; b++)                                                       \
                cnt[b][(v >> (8 * b)) & 0xff]++;                                                   \
        }                                                                                          \
        K *ka = key, *kb = k2;                                                                     \
        uint32_t *pa = pos, *pb = p2;                                                              \
        for (int b = 0; b < nbytes; b++) {                                                         \
            uint32_t *c = cnt[b];                                                                  \
            if (c[(ka[0] >> (8 * b)) & 0xff] == (uint32_t)n)                                       \
                continue; /* every key has this digit */                                           \
            uint32_t sum = 0;                                                                      \
            for (int d = 0; d < 256; d++) {                                                        \
                uint32_t t = c[d];                                                                 \
                c[d] = sum;                                                                        \
                sum += t;                                                                          \
            }                                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                uint32_t at = c[(ka[i] >> (8 * b)) & 0xff]++;                                      \
                kb[at] = ka[i];                                                                    \
                pb[at] = pa[i];                                                                    \
            }                                                                                      \
            K *kt = ka;                                                                            \
            ka = kb;                                                                               \
            kb = kt;                                                                               \
            uint32_t *pt = pa;                                                                     \
            pa = pb;                                                                               \
            pb = pt;                                                                               \
        }                                                                                          \
        if (ka != key) {                                                                           \
            memcpy(key, ka, (size_t)n * sizeof(K));                                                \
            memcpy(pos, pa, (size_t)n * sizeof(uint32_t));                                         \
        }                                                                                          \
    }
DEFINE_RADIX(radix32, uint32_t)
DEFINE_RADIX(radix64, uint64_t)

/* dst[j] = src[pos[j]] for elements of `size` bytes. */
static void gather(size_t size, const void *src, const uint32_t *pos, int64_t n, void *dst) {
    switch (size) {
    case 1:
        for (int64_t j = 0; j < n; j++)
            ((uint8_t *)dst)[j] = ((const uint8_t *)src)[pos[j]];
        break;
    case 2:
        for (int64_t j = 0; j < n; j++)
            ((uint16_t *)dst)[j] = ((const uint16_t *)src)[pos[j]];
        break;
    case 4:
        for (int64_t j = 0; j < n; j++)
            ((uint32_t *)dst)[j] = ((const uint32_t *)src)[pos[j]];
        break;
    default:
        for (int64_t j = 0; j < n; j++)
            ((uint64_t *)dst)[j] = ((const uint64_t *)src)[pos[j]];
        break;
    }
}

/* ---- per-thread scratch and the row driver ------------------------------------------------- */

typedef struct sort_scratch {
    void *mem;
    size_t size;
    void *key, *key2; /* n keys of 4 or 8 bytes */
    uint32_t *pos, *pos2;
    uint32_t *hist; /* topk: 65536 counters */
} sort_scratch;

static bool scratch_get(sort_scratch *s, int64_t n, size_t ksize, bool hist) {
    size_t kb = ((size_t)n * ksize + SORT_ALIGN - 1) / SORT_ALIGN * SORT_ALIGN;
    size_t pb = ((size_t)n * 4 + SORT_ALIGN - 1) / SORT_ALIGN * SORT_ALIGN;
    size_t hb = hist ? 65536 * 4 : 0;
    s->size = 2 * kb + 2 * pb + hb;
    s->mem = ct_alloc(s->size > 0 ? s->size : 1, SORT_ALIGN);
    if (s->mem == NULL)
        return false;
    char *m = s->mem;
    s->key = m;
    s->key2 = m + kb;
    s->pos = (uint32_t *)(m + 2 * kb);
    s->pos2 = (uint32_t *)(m + 2 * kb + pb);
    s->hist = hist ? (uint32_t *)(m + 2 * kb + 2 * pb) : NULL;
    return true;
}

static void scratch_put(sort_scratch *s) { ct_free(s->mem, s->size > 0 ? s->size : 1, SORT_ALIGN); }

typedef struct sort_ctx {
    ct_dtype dt;
    const char *src;
    char *vals;
    int64_t *idx;
    int64_t n, k; /* k: topk's count; -1 for a full sort */
    bool desc;
    atomic_int failed;
} sort_ctx;

/* Sorts the keys of one row (already in s->key) and its positions. */
static void sort_keys(const sort_ctx *c, sort_scratch *s, int64_t n) {
    int nb = key_bytes(c->dt);
    if (nb == 8)
        radix64(s->key, s->pos, s->key2, s->pos2, n, 8);
    else
        radix32(s->key, s->pos, s->key2, s->pos2, n, nb);
}

static void make_keys(const sort_ctx *c, const void *row, int64_t n, sort_scratch *s) {
    if (key_bytes(c->dt) == 8)
        keys64(c->dt, row, n, c->desc, s->key);
    else
        keys32(c->dt, row, n, c->desc, s->key);
}

/* topk of one row with keys in s->key: the candidates (keys whose top 16 bits are at most
 * the bucket that holds the k-th smallest) are moved to the front in position order, then
 * sorted. Returns how many candidates. */
static int64_t select_candidates(const sort_ctx *c, sort_scratch *s, int64_t n, int64_t k) {
    int nb = key_bytes(c->dt);
    int shift = 8 * nb - 16;
    uint32_t *h = s->hist;
    memset(h, 0, 65536 * sizeof(uint32_t));
    if (nb == 8) {
        const uint64_t *key = s->key;
        for (int64_t i = 0; i < n; i++)
            h[key[i] >> shift]++;
    } else {
        const uint32_t *key = s->key;
        for (int64_t i = 0; i < n; i++)
            h[key[i] >> shift]++;
    }
    uint64_t cum = 0;
    uint32_t b = 0;
    for (; b < 65536; b++) {
        cum += h[b];
        if (cum >= (uint64_t)k)
            break;
    }
    int64_t m = 0;
    if (nb == 8) {
        uint64_t *key = s->key;
        for (int64_t i = 0; i < n; i++)
            if ((key[i] >> shift) <= b) {
                key[m] = key[i];
                s->pos[m++] = (uint32_t)i;
            }
    } else {
        uint32_t *key = s->key;
        for (int64_t i = 0; i < n; i++)
            if ((key[i] >> shift) <= b) {
                key[m] = key[i];
                s->pos[m++] = (uint32_t)i;
            }
    }
    return m;
}

/* topk of a few (k <= TOPK_FEW) from one row with keys in s->key: a sorted buffer of the k
 * best so far at the front of key / pos, which a later element enters only when strictly
 * smaller than the worst (so of equal keys the first positions stay, in order). */
#define TOPK_FEW 32
#define FEW_RUN 16
#define DEFINE_FEW(NAME, K)                                                                        \
    static void NAME(K *key, uint32_t *pos, int64_t n, int64_t k) {                                \
        int64_t m = 0;                                                                             \
        for (int64_t i = 0; i < n;) {                                                              \
            /* full buffer: a run of FEW_RUN keys none of which beats the worst kept is skipped   \
             * with one vectorizable test; a run with one goes element by element */               \
            if (m == k && i + FEW_RUN <= n) {                                                      \
                K w = key[m - 1];                                                                  \
                unsigned beats = 0;                                                                \
                for (int u = 0; u < FEW_RUN; u++)                                                  \
                    beats |= key[i + u] < w;                                                       \
                if (!beats) {                                                                      \
                    i += FEW_RUN;                                                                  \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            for (int64_t end = n - i < FEW_RUN ? n : i + FEW_RUN; i < end; i++) {                  \
                K v = key[i];                                                                      \
                if (m == k && v >= key[m - 1])                                                     \
                    continue;                                                                      \
                int64_t j = m < k ? m++ : m - 1;                                                   \
                for (; j > 0 && key[j - 1] > v; j--) {                                             \
                    key[j] = key[j - 1];                                                           \
                    pos[j] = pos[j - 1];                                                           \
                }                                                                                  \
                key[j] = v;                                                                        \
                pos[j] = (uint32_t)i;                                                              \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_FEW(few32, uint32_t)
DEFINE_FEW(few64, uint64_t)

static void rows_body(void *ctx, int64_t begin, int64_t end) {
    sort_ctx *c = ctx;
    int64_t n = c->n;
    size_t ksize = key_bytes(c->dt) == 8 ? 8 : 4;
    size_t isz = ct_dtype_itemsize(c->dt);
    int64_t kout = c->k < 0 ? n : c->k;
    /* topk narrows by a histogram when k is small next to the row (16-bit keys or wider) */
    bool few = c->k >= 0 && c->k <= TOPK_FEW && c->k * 4 < n;
    bool select = !few && c->k >= 0 && key_bytes(c->dt) >= 2 && n > 4096 && c->k * 8 < n;
    sort_scratch s;
    if (!scratch_get(&s, n, ksize, select)) {
        atomic_store(&c->failed, 1);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        const char *row = c->src + (size_t)(r * n) * isz;
        make_keys(c, row, n, &s);
        int64_t m = n;
        if (few) {
            /* key[m] for m < i is only written after key[i] was read: in place is safe */
            if (key_bytes(c->dt) == 8)
                few64(s.key, s.pos, n, kout);
            else
                few32(s.key, s.pos, n, kout);
        } else if (select) {
            m = select_candidates(c, &s, n, kout);
        } else {
            for (int64_t i = 0; i < n; i++)
                s.pos[i] = (uint32_t)i;
        }
        if (!few)
            sort_keys(c, &s, m);
        int64_t *ix = c->idx + r * kout;
        for (int64_t j = 0; j < kout; j++)
            ix[j] = s.pos[j];
        if (c->vals != NULL)
            gather(isz, row, s.pos, kout, c->vals + (size_t)(r * kout) * isz);
    }
    scratch_put(&s);
}

static ct_status run_rows(sort_ctx *c, int64_t rows) {
    if (c->n > (int64_t)UINT32_MAX)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "sort: rows of more than 4294967295 elements are not supported");
    if (rows == 0 || c->n == 0)
        return CT_OK;
    atomic_init(&c->failed, 0);
    int64_t grain = c->n >= 16384 ? 1 : 16384 / c->n;
    ct_parallel_for(0, rows, grain, rows_body, c);
    if (atomic_load(&c->failed))
        return ct_set_error(CT_ERR_NOMEM, "sort: out of memory");
    return CT_OK;
}

ct_status ct_sort_kernel_rows(ct_dtype dt, const void *src, void *vals, int64_t *idx,
                              int64_t rows, int64_t n, bool descending) {
    sort_ctx c = {.dt = dt, .src = src, .vals = vals, .idx = idx, .n = n, .k = -1,
                  .desc = descending};
    return run_rows(&c, rows);
}

ct_status ct_sort_kernel_topk(ct_dtype dt, const void *src, void *vals, int64_t *idx,
                              int64_t rows, int64_t n, int64_t k, bool largest) {
    if (k == 0)
        return CT_OK;
    sort_ctx c = {.dt = dt, .src = src, .vals = vals, .idx = idx, .n = n, .k = k,
                  .desc = largest};
    return run_rows(&c, rows);
}

ct_status ct_sort_kernel_unique(ct_dtype dt, const void *src, int64_t n, void *vals,
                                int64_t *inverse, int64_t *counts, int64_t *nunique) {
    *nunique = 0;
    if (n == 0)
        return CT_OK;
    if (n > (int64_t)UINT32_MAX)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "unique: more than 4294967295 elements are not supported");
    size_t ksize = key_bytes(dt) == 8 ? 8 : 4;
    size_t isz = ct_dtype_itemsize(dt);
    sort_scratch s;
    if (!scratch_get(&s, n, ksize, false))
        return ct_set_error(CT_ERR_NOMEM, "unique: out of memory");
    sort_ctx c = {.dt = dt, .src = src, .n = n, .k = -1, .desc = false};
    make_keys(&c, src, n, &s);
    for (int64_t i = 0; i < n; i++)
        s.pos[i] = (uint32_t)i;
    sort_keys(&c, &s, n);
    /* groups of equal keys; each group's value is its first element's */
    int64_t u = -1;
    uint32_t *first = s.pos2; /* the first position of each group */
    for (int64_t j = 0; j < n; j++) {
        bool fresh = j == 0 || (ksize == 8 ? ((uint64_t *)s.key)[j] != ((uint64_t *)s.key)[j - 1]
                                           : ((uint32_t *)s.key)[j] != ((uint32_t *)s.key)[j - 1]);
        if (fresh) {
            u++;
            first[u] = s.pos[j];
            if (counts != NULL)
                counts[u] = 0;
        }
        if (counts != NULL)
            counts[u]++;
        if (inverse != NULL)
            inverse[s.pos[j]] = u;
    }
    *nunique = u + 1;
    gather(isz, src, first, u + 1, vals);
    scratch_put(&s);
    return CT_OK;
}
