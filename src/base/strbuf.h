/* The library's one string builder, for messages, formats and printed tensors.
 *
 * Two storages behind one set of appends:
 *  - growing (ct_sb_init, or a zeroed ct_sb): ct_alloc memory that doubles as needed. An allocation failure
 *    sets CT_ERR_NOMEM once and makes every later append a no-op, so builders check only
 *    at the end (ct_sb_finish, or ct_sb_failed).
 *  - bounded (ct_sb_init_buf): the caller's buffer; the text is cut to fit (always
 *    NUL-terminated when size > 0) while `len` keeps counting, so snprintf-style formats
 *    return the length they needed. A NULL buffer or size 0 only measures. */
#ifndef CT_BASE_STRBUF_H
#define CT_BASE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/status.h"

typedef struct ct_sb {
    char *data;
    size_t len;  /* everything appended, also what a bounded buffer could not hold */
    size_t cap;  /* bytes at data */
    bool bounded; /* the caller's buffer; else ct_alloc storage the builder owns */
    bool failed;  /* a growing builder could not allocate */
} ct_sb;

void ct_sb_init(ct_sb *b);
void ct_sb_init_buf(ct_sb *b, char *buf, size_t size);
/* Release a growing builder's storage (a bounded one owns nothing); b is emptied. */
void ct_sb_free(ct_sb *b);

void ct_sb_put(ct_sb *b, const char *s, size_t n);
void ct_sb_puts(ct_sb *b, const char *s);
/* n copies of c (n <= 0: nothing). */
void ct_sb_fill(ct_sb *b, char c, int64_t n);
void ct_sb_vappendf(ct_sb *b, const char *fmt, va_list ap);
void ct_sb_appendf(ct_sb *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The text so far ("" before the first append); cut for a bounded builder that overflowed. */
static inline const char *ct_sb_str(const ct_sb *b) { return b->data != NULL ? b->data : ""; }
/* The full length appended (more than the text when a bounded builder was cut). */
static inline size_t ct_sb_len(const ct_sb *b) { return b->len; }
static inline bool ct_sb_failed(const ct_sb *b) { return b->failed; }

/* Move a growing builder's text into an exactly sized block for ct_string_free; b is
 * emptied. CT_ERR_NOMEM if any append failed (*out NULL then). */
ct_status ct_sb_finish(ct_sb *b, char **out);

#endif /* CT_BASE_STRBUF_H */
