/* The string builder (strbuf.h). It uses the public API alone (the installed allocator,
 * ct_set_error), so libctensor_dist, which sees only that API of libctensor, builds this
 * same file into itself. */
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

#include "ctensor/alloc.h"

/* ct_alloc's behaviour, through the public allocator: byte-aligned blocks that
 * ct_string_free can release. */
static char *sb_alloc(size_t size) {
    ct_allocator a = ct_get_allocator();
    char *p = a.alloc(a.ctx, size, 1);
    if (p == NULL)
        ct_set_error(CT_ERR_NOMEM, "out of memory: failed to allocate %zu bytes", size);
    return p;
}

static void sb_release(char *p, size_t size) {
    if (p != NULL) {
        ct_allocator a = ct_get_allocator();
        a.free(a.ctx, p, size, 1);
    }
}

void ct_sb_init(ct_sb *b) { *b = (ct_sb){0}; }

void ct_sb_init_buf(ct_sb *b, char *buf, size_t size) {
    *b = (ct_sb){.data = buf, .cap = buf != NULL ? size : 0, .bounded = true};
    if (b->cap > 0)
        buf[0] = '\0';
}

void ct_sb_free(ct_sb *b) {
    if (!b->bounded) {
        sb_release(b->data, b->cap);
        ct_sb_init(b);
    }
}

/* Room for `extra` more bytes and the NUL in a growing builder. */
static bool reserve(ct_sb *b, size_t extra) {
    if (b->failed)
        return false;
    if (extra < b->cap - b->len)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= extra) {
        if (cap > SIZE_MAX / 2) {
            ct_set_error(CT_ERR_NOMEM, "out of memory: the string is too large");
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *p = sb_alloc(cap);
    if (p == NULL) {
        b->failed = true;
        return false;
    }
    if (b->len)
        memcpy(p, b->data, b->len);
    p[b->len] = '\0';
    sb_release(b->data, b->cap);
    b->data = p;
    b->cap = cap;
    return true;
}

/* Where the next n bytes go and how many of them fit (a bounded builder cuts). */
static size_t room(ct_sb *b, size_t n) {
    if (!b->bounded)
        return reserve(b, n) ? n : 0;
    if (b->len + 1 >= b->cap)
        return 0;
    size_t free_bytes = b->cap - 1 - b->len;
    return n < free_bytes ? n : free_bytes;
}

void ct_sb_put(ct_sb *b, const char *s, size_t n) {
    if (b->failed)
        return;
    size_t k = room(b, n);
    if (b->failed)
        return;
    if (k > 0) {
        memcpy(b->data + b->len, s, k);
        b->data[b->len + k] = '\0';
    }
    b->len += n;
}

void ct_sb_puts(ct_sb *b, const char *s) { ct_sb_put(b, s, strlen(s)); }

void ct_sb_fill(ct_sb *b, char c, int64_t n) {
    if (n <= 0 || b->failed)
        return;
    size_t k = room(b, (size_t)n);
    if (b->failed)
        return;
    if (k > 0) {
        memset(b->data + b->len, c, k);
        b->data[b->len + k] = '\0';
    }
    b->len += (size_t)n;
}

void ct_sb_vappendf(ct_sb *b, const char *fmt, va_list ap) {
    if (b->failed)
        return;
    va_list again;
    va_copy(again, ap);
    size_t avail = b->data != NULL && b->len < b->cap ? b->cap - b->len : 0;
    int n = vsnprintf(avail ? b->data + b->len : NULL, avail, fmt, ap);
    if (n > 0 && !b->bounded && (size_t)n >= avail) {
        /* a growing builder makes room and formats again */
        if (reserve(b, (size_t)n))
            vsnprintf(b->data + b->len, b->cap - b->len, fmt, again);
        else
            n = 0;
    }
    va_end(again);
    if (n > 0)
        b->len += (size_t)n;
}

void ct_sb_appendf(ct_sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ct_sb_vappendf(b, fmt, ap);
    va_end(ap);
}

ct_status ct_sb_finish(ct_sb *b, char **out) {
    *out = NULL;
    if (b->bounded)
        return ct_set_error(CT_ERR_MISUSE, "string builder: a bounded builder owns no text");
    if (!b->failed && b->data == NULL)
        reserve(b, 0);
    if (b->failed) {
        ct_sb_free(b);
        return CT_ERR_NOMEM; /* the message was set when the append failed */
    }
    char *s = sb_alloc(b->len + 1);
    if (s == NULL) {
        ct_sb_free(b);
        return CT_ERR_NOMEM;
    }
    memcpy(s, b->data, b->len + 1);
    ct_sb_free(b);
    *out = s;
    return CT_OK;
}
