/* The safetensors header: a small JSON reader for exactly what the format needs (an object
 * of tensor entries and an optional "__metadata__" string map; other values are skipped),
 * then the checks that the entries describe the data exactly (include/ctensor/safetensors.h).
 * Input is untrusted: every read is bounds-checked against the header's end, numbers are
 * overflow-checked, and nesting is limited, so no input can crash or exhaust the stack (the
 * fuzz target fuzz/fuzz_safetensors.c drives this file). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "io/safetensors_impl.h"

static const st_format formats[] = {
    {"BOOL", 8, CT_BOOL},          {"U8", 8, CT_UINT8},
    {"I8", 8, CT_INT8},            {"U16", 16, CT_UINT16},
    {"I16", 16, CT_INT16},         {"U32", 32, CT_UINT32},
    {"I32", 32, CT_INT32},         {"U64", 64, CT_UINT64},
    {"I64", 64, CT_INT64},         {"F16", 16, CT_FLOAT16},
    {"BF16", 16, CT_BFLOAT16},     {"F32", 32, CT_FLOAT32},
    {"F64", 64, CT_FLOAT64},       {"C64", 64, CT_COMPLEX64},
    {"F8_E4M3", 8, CT_FLOAT8_E4M3FN},         {"F8_E5M2", 8, CT_FLOAT8_E5M2},
    {"F8_E4M3FNUZ", 8, CT_FLOAT8_E4M3FNUZ},   {"F8_E5M2FNUZ", 8, CT_FLOAT8_E5M2FNUZ},
    {"F8_E8M0", 8, CT_FLOAT8_E8M0FNU},        {"F4", 4, CT_FLOAT4_E2M1FN_X2},
    {"F6_E2M3", 6, CT_DTYPE_UNDEFINED},       {"F6_E3M2", 6, CT_DTYPE_UNDEFINED},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const st_format *st_format_by_name(const char *name, size_t n) {
    for (size_t i = 0; i < NFORMATS; i++)
        if (strlen(formats[i].name) == n && memcmp(formats[i].name, name, n) == 0)
            return &formats[i];
    return NULL;
}

const st_format *st_format_of(ct_dtype dtype) {
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].dtype == dtype && dtype != CT_DTYPE_UNDEFINED)
            return &formats[i];
    return NULL;
}

/* ---- the reader ---------------------------------------------------------------------------- */

#define MAX_DEPTH 64
#define PREFIX "Error while deserializing header: "

typedef struct reader {
    const unsigned char *start, *p, *end;
} reader;

static ct_status bad(const reader *r, const char *what) {
    return ct_set_error(CT_ERR_VALUE, PREFIX "InvalidHeaderDeserialization: %s at byte %zu of the header",
                        what, (size_t)(r->p - r->start));
}

static void skip_ws(reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static ct_status expect(reader *r, char c, const char *what) {
    skip_ws(r);
    if (r->p >= r->end || *r->p != (unsigned char)c)
        return bad(r, what);
    r->p++;
    return CT_OK;
}

static int hexval(unsigned char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static ct_status read_hex4(reader *r, unsigned *out) {
    if (r->end - r->p < 4)
        return bad(r, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(r->p[i]);
        if (h < 0)
            return bad(r, "invalid \\u escape");
        v = v * 16 + (unsigned)h;
    }
    r->p += 4;
    *out = v;
    return CT_OK;
}

static size_t put_utf8(unsigned char *o, unsigned cp) {
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A JSON string, decoded into a NUL-terminated ct_alloc block of exactly *len + 1 bytes
 * (when out is NULL it is only skipped). The header was checked to be UTF-8 already. */
static ct_status read_string(reader *r, char **out, size_t *len) {
    CT_TRY(expect(r, '"', "expected a string"));
    /* A decoded string is never longer than its source; find the closing quote first. */
    const unsigned char *s = r->p;
    while (s < r->end && *s != '"')
        s += *s == '\\' && r->end - s > 1 ? 2 : 1;
    if (s >= r->end)
        return bad(r, "unterminated string");
    size_t cap = (size_t)(s - r->p) + 1;
    unsigned char *buf = NULL;
    if (out != NULL && (buf = ct_alloc(cap, 1)) == NULL)
        return ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", cap);
    size_t n = 0;
    ct_status st = CT_OK;
    unsigned char tmp[4];
    while (st == CT_OK && *r->p != '"') {
        unsigned char c = *r->p++;
        unsigned char *o = buf != NULL ? buf + n : tmp;
        if (c < 0x20) {
            r->p--;
            st = bad(r, "control character in a string");
        } else if (c != '\\') {
            *o = c;
            n++;
        } else {
            c = *r->p++;
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = c != 0 ? strchr(from, c) : NULL;
            unsigned cp = 0, lo = 0;
            if (k != NULL) {
                *o = (unsigned char)to[k - from];
                n++;
            } else if (c != 'u') {
                r->p--;
                st = bad(r, "invalid escape");
            } else if ((st = read_hex4(r, &cp)) == CT_OK) {
                if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate needs its low half */
                    if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
                        st = bad(r, "lone surrogate");
                    else if (r->p += 2, (st = read_hex4(r, &lo)) == CT_OK &&
                                            (lo < 0xDC00 || lo >= 0xE000))
                        st = bad(r, "lone surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    st = bad(r, "lone surrogate");
                } else if (cp == 0) {
                    st = bad(r, "NUL character in a string (not supported)");
                }
                /* an escape is 6 (or 12) source bytes and at most 4 decoded ones */
                if (st == CT_OK)
                    n += buf != NULL ? put_utf8(o, cp) : put_utf8(tmp, cp);
            }
        }
    }
    if (st != CT_OK) {
        if (buf != NULL)
            ct_free(buf, cap, 1);
        return st;
    }
    r->p++; /* the closing quote */
    if (out == NULL)
        return CT_OK;
    /* shrink to exactly n + 1 bytes so that the owner can free it knowing only the text */
    unsigned char *exact = ct_alloc(n + 1, 1);
    if (exact != NULL) {
        memcpy(exact, buf, n);
        exact[n] = 0;
    }
    ct_free(buf, cap, 1);
    if (exact == NULL)
        return ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", n + 1);
    *out = (char *)exact;
    if (len != NULL)
        *len = n;
    return CT_OK;
}

/* A non-negative integer (what shapes and offsets are). */
static ct_status read_uint(reader *r, uint64_t *out) {
    skip_ws(r);
    if (r->p < r->end && *r->p == '-')
        return bad(r, "negative number where a size or offset is expected");
    if (r->p >= r->end || *r->p < '0' || *r->p > '9')
        return bad(r, "expected a non-negative integer");
    if (*r->p == '0' && r->end - r->p > 1 && r->p[1] >= '0' && r->p[1] <= '9')
        return bad(r, "leading zero in a number");
    uint64_t v = 0;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        unsigned d = (unsigned)(*r->p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return bad(r, "number too large");
        v = v * 10 + d;
        r->p++;
    }
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
        return bad(r, "expected an integer");
    *out = v;
    return CT_OK;
}

static ct_status skip_value(reader *r, int depth);

static ct_status skip_container(reader *r, int depth, char close) {
    if (depth >= MAX_DEPTH)
        return bad(r, "nesting too deep");
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == (unsigned char)close) {
        r->p++;
        return CT_OK;
    }
    for (;;) {
        if (close == '}') {
            CT_TRY(read_string(r, NULL, NULL));
            CT_TRY(expect(r, ':', "expected ':'"));
        }
        CT_TRY(skip_value(r, depth + 1));
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        return expect(r, close, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static ct_status skip_literal(reader *r, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return bad(r, "invalid value");
    r->p += n;
    return CT_OK;
}

static ct_status skip_number(reader *r) {
    const unsigned char *s = r->p;
    if (r->p < r->end && *r->p == '-')
        r->p++;
    size_t digits = 0;
    while (r->p < r->end && ((*r->p >= '0' && *r->p <= '9') || *r->p == '.' || *r->p == 'e' ||
                             *r->p == 'E' || *r->p == '+' || *r->p == '-')) {
        digits += *r->p >= '0' && *r->p <= '9';
        r->p++;
    }
    if (digits == 0) {
        r->p = s;
        return bad(r, "invalid value");
    }
    return CT_OK;
}

static ct_status skip_value(reader *r, int depth) {
    skip_ws(r);
    if (r->p >= r->end)
        return bad(r, "expected a value");
    switch (*r->p) {
    case '{':
        return skip_container(r, depth, '}');
    case '[':
        return skip_container(r, depth, ']');
    case '"':
        return read_string(r, NULL, NULL);
    case 't':
        return skip_literal(r, "true");
    case 'f':
        return skip_literal(r, "false");
    case 'n':
        return skip_literal(r, "null");
    default:
        return skip_number(r);
    }
}

/* ---- the handle ---------------------------------------------------------------------------- */

static void free_string(char *s) {
    if (s != NULL)
        ct_free(s, strlen(s) + 1, 1);
}

void st_handle_free(struct ct_safetensors *f) {
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->n; i++) {
        free_string(f->entries[i].name);
        if (f->entries[i].shape != NULL)
            ct_free(f->entries[i].shape, (size_t)f->entries[i].ndim * sizeof(int64_t),
                    _Alignof(int64_t));
    }
    if (f->entries != NULL)
        ct_free(f->entries, f->cap * sizeof *f->entries, _Alignof(st_entry));
    for (size_t i = 0; i < 2 * f->nmeta; i++)
        free_string(f->meta[i]);
    if (f->meta != NULL)
        ct_free(f->meta, f->meta_cap * 2 * sizeof(char *), _Alignof(char *));
    ct_free(f, sizeof *f, _Alignof(struct ct_safetensors));
}

/* Grow an array of `size`-byte items from *cap to at least n + 1 items. */
static ct_status grow(void **items, size_t *cap, size_t n, size_t size, size_t align) {
    if (n < *cap)
        return CT_OK;
    size_t ncap = *cap != 0 ? *cap * 2 : 8;
    void *p = ct_alloc(ncap * size, align);
    if (p == NULL)
        return ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", ncap * size);
    if (*items != NULL) {
        memcpy(p, *items, *cap * size);
        ct_free(*items, *cap * size, align);
    }
    *items = p;
    *cap = ncap;
    return CT_OK;
}

/* "__metadata__": null or an object of strings. */
static ct_status read_metadata(reader *r, struct ct_safetensors *f) {
    skip_ws(r);
    if (r->p < r->end && *r->p == 'n')
        return skip_literal(r, "null");
    CT_TRY(expect(r, '{', "__metadata__ must be an object of strings"));
    skip_ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return CT_OK;
    }
    for (;;) {
        void *items = f->meta;
        CT_TRY(grow(&items, &f->meta_cap, f->nmeta, 2 * sizeof(char *), _Alignof(char *)));
        f->meta = items;
        char **kv = &f->meta[2 * f->nmeta];
        kv[0] = kv[1] = NULL;
        f->nmeta++; /* counted before it is read: st_handle_free frees what is there */
        CT_TRY(read_string(r, &kv[0], NULL));
        CT_TRY(expect(r, ':', "expected ':'"));
        skip_ws(r);
        if (r->p >= r->end || *r->p != '"')
            return bad(r, "__metadata__ values must be strings");
        CT_TRY(read_string(r, &kv[1], NULL));
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        return expect(r, '}', "expected ',' or '}'");
    }
}

/* {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]} (other keys ignored). */
static ct_status read_info(reader *r, st_entry *e) {
    CT_TRY(expect(r, '{', "a tensor entry must be an object"));
    bool have_dtype = false, have_shape = false, have_offsets = false;
    skip_ws(r);
    bool empty = r->p < r->end && *r->p == '}';
    if (empty)
        r->p++;
    while (!empty) {
        char *key = NULL;
        size_t klen = 0;
        CT_TRY(read_string(r, &key, &klen));
        ct_status st = expect(r, ':', "expected ':'");
        if (st == CT_OK && strcmp(key, "dtype") == 0) {
            char *name = NULL;
            size_t nlen = 0;
            st = read_string(r, &name, &nlen);
            if (st == CT_OK) {
                e->format = st_format_by_name(name, nlen);
                if (e->format == NULL)
                    st = ct_set_error(CT_ERR_VALUE, PREFIX "unknown dtype \"%s\"", name);
                free_string(name);
            }
            have_dtype = true;
        } else if (st == CT_OK && strcmp(key, "shape") == 0 && !have_shape) {
            int64_t dims[CT_MAX_DIMS];
            int64_t nd = 0;
            st = expect(r, '[', "shape must be an array");
            skip_ws(r);
            bool done = st == CT_OK && r->p < r->end && *r->p == ']';
            if (done)
                r->p++;
            while (st == CT_OK && !done) {
                uint64_t v = 0;
                if (nd == CT_MAX_DIMS)
                    st = bad(r, "more than 64 dimensions");
                if (st == CT_OK && (st = read_uint(r, &v)) == CT_OK && v > (uint64_t)INT64_MAX)
                    st = bad(r, "dimension too large");
                if (st != CT_OK)
                    break;
                dims[nd++] = (int64_t)v;
                skip_ws(r);
                if (r->p < r->end && *r->p == ',')
                    r->p++;
                else if ((st = expect(r, ']', "expected ',' or ']'")) == CT_OK)
                    done = true;
            }
            if (st == CT_OK && nd > 0) {
                e->shape = ct_alloc((size_t)nd * sizeof(int64_t), _Alignof(int64_t));
                if (e->shape == NULL)
                    st = ct_set_error(CT_ERR_NOMEM, "out of memory");
                else
                    memcpy(e->shape, dims, (size_t)nd * sizeof(int64_t));
            }
            if (st == CT_OK)
                e->ndim = nd;
            have_shape = true;
        } else if (st == CT_OK && strcmp(key, "data_offsets") == 0) {
            if ((st = expect(r, '[', "data_offsets must be [begin, end]")) == CT_OK &&
                (st = read_uint(r, &e->begin)) == CT_OK &&
                (st = expect(r, ',', "data_offsets must be [begin, end]")) == CT_OK &&
                (st = read_uint(r, &e->end)) == CT_OK)
                st = expect(r, ']', "data_offsets must be [begin, end]");
            have_offsets = true;
        } else if (st == CT_OK && strcmp(key, "shape") == 0) {
            st = bad(r, "duplicate shape");
        } else if (st == CT_OK) {
            st = skip_value(r, 2);
        }
        free_string(key);
        CT_TRY(st);
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        CT_TRY(expect(r, '}', "expected ',' or '}'"));
        break;
    }
    if (!have_dtype || !have_shape || !have_offsets)
        return ct_set_error(CT_ERR_VALUE,
                            PREFIX "InvalidHeaderDeserialization: tensor \"%s\" lacks %s", e->name,
                            !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
    return CT_OK;
}

/* ---- checks -------------------------------------------------------------------------------- */

static bool valid_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t k = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
        if (k == 9 || n - i - 1 < k)
            return false;
        uint32_t cp = k == 0 ? c : k == 1 ? c & 0x1Fu : k == 2 ? c & 0x0Fu : c & 0x07u;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + j] & 0x3Fu);
        }
        static const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
            return false;
        i += k + 1;
    }
    return true;
}

static int by_offset(const void *a, const void *b) {
    const st_entry *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The entry's byte count from its shape and dtype. */
static ct_status entry_bytes(const st_entry *e, uint64_t *out) {
    uint64_t numel = 1;
    bool zero = false;
    for (int64_t d = 0; d < e->ndim; d++)
        zero = zero || e->shape[d] == 0;
    for (int64_t d = 0; d < e->ndim && !zero; d++) {
        uint64_t s = (uint64_t)e->shape[d];
        if (numel > UINT64_MAX / 8 / s)
            return ct_set_error(CT_ERR_VALUE,
                                PREFIX "the shape of tensor \"%s\" overflows its byte count", e->name);
        numel *= s;
    }
    uint64_t bits = zero ? 0 : numel * e->format->bits;
    if (bits % 8 != 0)
        return ct_set_error(CT_ERR_VALUE,
                            PREFIX "tensor \"%s\" of dtype %s has %llu values, not a whole "
                                   "number of bytes",
                            e->name, e->format->name, (unsigned long long)numel);
    *out = bits / 8;
    return CT_OK;
}

static int by_name(const void *a, const void *b) {
    return strcmp((*(const st_entry *const *)a)->name, (*(const st_entry *const *)b)->name);
}

/* No name twice (the file would not say which one is meant). */
static ct_status check_names(const struct ct_safetensors *f) {
    if (f->n < 2)
        return CT_OK;
    const st_entry **order = ct_alloc(f->n * sizeof *order, _Alignof(st_entry *));
    if (order == NULL)
        return ct_set_error(CT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < f->n; i++)
        order[i] = &f->entries[i];
    qsort(order, f->n, sizeof *order, by_name);
    ct_status st = CT_OK;
    for (size_t i = 1; i < f->n && st == CT_OK; i++)
        if (strcmp(order[i]->name, order[i - 1]->name) == 0)
            st = ct_set_error(CT_ERR_VALUE, PREFIX "tensor \"%s\" appears twice", order[i]->name);
    ct_free(order, f->n * sizeof *order, _Alignof(st_entry *));
    return st;
}

static ct_status check_entries(struct ct_safetensors *f, uint64_t data_size) {
    if (f->n > 1)
        qsort(f->entries, f->n, sizeof *f->entries, by_offset);
    uint64_t at = 0;
    for (size_t i = 0; i < f->n; i++) {
        const st_entry *e = &f->entries[i];
        uint64_t nbytes = 0;
        CT_TRY(entry_bytes(e, &nbytes));
        if (e->begin > e->end || e->end - e->begin != nbytes)
            return ct_set_error(CT_ERR_VALUE,
                                PREFIX "TensorInvalidInfo: tensor \"%s\" of dtype %s needs %llu "
                                       "bytes, but its data_offsets are [%llu, %llu]",
                                e->name, e->format->name, (unsigned long long)nbytes,
                                (unsigned long long)e->begin, (unsigned long long)e->end);
        if (e->begin != at)
            return ct_set_error(CT_ERR_VALUE,
                                PREFIX "InvalidOffset: tensor \"%s\" starts at %llu, but the data "
                                       "before it ends at %llu (%s)",
                                e->name, (unsigned long long)e->begin, (unsigned long long)at,
                                e->begin < at ? "overlapping tensors" : "a gap");
        at = e->end;
    }
    CT_TRY(check_names(f));
    if (at != data_size)
        return ct_set_error(CT_ERR_VALUE,
                            PREFIX "MetadataIncompleteBuffer: the tensors cover %llu bytes, but "
                                   "the file holds %llu bytes of data",
                            (unsigned long long)at, (unsigned long long)data_size);
    return CT_OK;
}

ct_status st_parse_into(struct ct_safetensors *f, const unsigned char *bytes, size_t size,
                        uint64_t *data_start) {
    if (size < 8)
        return ct_set_error(CT_ERR_VALUE, PREFIX "HeaderTooSmall: the file has %zu bytes, fewer "
                                                 "than the 8 of the header length", size);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | bytes[i];
    if (n > ST_MAX_HEADER)
        return ct_set_error(CT_ERR_VALUE, PREFIX "HeaderTooLarge: %llu bytes (at most %llu)",
                            (unsigned long long)n, (unsigned long long)ST_MAX_HEADER);
    if (n > size - 8)
        return ct_set_error(CT_ERR_VALUE,
                            PREFIX "InvalidHeaderLength: %llu bytes, but the file has only %zu "
                                   "after the length",
                            (unsigned long long)n, size - 8);
    const unsigned char *h = bytes + 8;
    if (!valid_utf8(h, (size_t)n))
        return ct_set_error(CT_ERR_VALUE, PREFIX "InvalidHeader: the header is not valid UTF-8");
    if (n == 0 || h[0] != '{')
        return ct_set_error(CT_ERR_VALUE, PREFIX "InvalidHeaderStart: the header must start "
                                                 "with '{'");
    reader r = {.start = h, .p = h, .end = h + n};
    r.p++;
    skip_ws(&r);
    bool done = r.p < r.end && *r.p == '}';
    if (done)
        r.p++;
    bool have_meta = false;
    while (!done) {
        char *key = NULL;
        size_t klen = 0;
        CT_TRY(read_string(&r, &key, &klen));
        ct_status st = expect(&r, ':', "expected ':'");
        if (st == CT_OK && strcmp(key, "__metadata__") == 0) {
            free_string(key);
            if (have_meta)
                return bad(&r, "duplicate __metadata__");
            have_meta = true;
            CT_TRY(read_metadata(&r, f));
        } else {
            void *items = f->entries;
            if (st == CT_OK)
                st = grow(&items, &f->cap, f->n, sizeof(st_entry), _Alignof(st_entry));
            f->entries = items;
            if (st != CT_OK) {
                free_string(key);
                return st;
            }
            st_entry *e = &f->entries[f->n++];
            *e = (st_entry){.name = key};
            CT_TRY(read_info(&r, e));
        }
        skip_ws(&r);
        if (r.p < r.end && *r.p == ',') {
            r.p++;
            continue;
        }
        CT_TRY(expect(&r, '}', "expected ',' or '}'"));
        done = true;
    }
    skip_ws(&r);
    if (r.p != r.end)
        return bad(&r, "trailing characters after the header object");
    *data_start = 8 + n;
    return check_entries(f, (uint64_t)(size - 8 - n));
}
