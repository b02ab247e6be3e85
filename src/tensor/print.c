/* Printing tensors (include/ctensor/print.h): the print options and
 * repr's frame around the values: "tensor(", the values, the suffixes, ")" — PyTorch's
 * _str_intern for dense tensors. The values themselves are laid out in print_format.c. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/print_impl.h"
#include "tensor/tensor_impl.h"

/* ---- options --------------------------------------------------------------------------- */

ct_print_options ct_print_options_default(void) {
    ct_print_options o;
    memset(&o, 0, sizeof o);
    o.precision = 4;
    o.threshold = 1000.0;
    o.edgeitems = 3;
    o.linewidth = 80;
    o.sci_mode = CT_PRINT_SCI_AUTO;
    memcpy(o.prefix, "torch.", sizeof "torch.");
    return o;
}

ct_status ct_print_options_apply_profile(ct_print_options *opts, const char *profile) {
    if (opts == NULL || profile == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_print_options_apply_profile: NULL argument");
    if (strcmp(profile, "default") == 0) {
        opts->precision = 4;
        opts->threshold = 1000.0;
        opts->edgeitems = 3;
    } else if (strcmp(profile, "short") == 0) {
        opts->precision = 2;
        opts->threshold = 1000.0;
        opts->edgeitems = 2;
    } else if (strcmp(profile, "full") == 0) {
        opts->precision = 4;
        opts->threshold = INFINITY;
        opts->edgeitems = 3;
    } else {
        return ct_set_error(CT_ERR_VALUE,
                            "unknown print profile '%.64s' (expected 'default', 'short' or 'full')",
                            profile);
    }
    opts->linewidth = 80;
    return CT_OK;
}

ct_status ct_print_options_check(const ct_print_options *o) {
    if (o == NULL)
        return ct_set_error(CT_ERR_MISUSE, "print options are NULL");
    if (o->precision < 0 || o->precision > CT_PRINT_MAX_PRECISION)
        return ct_set_error(CT_ERR_VALUE, "precision must be between 0 and %d, got %d",
                            CT_PRINT_MAX_PRECISION, (int)o->precision);
    if (o->edgeitems < 0)
        return ct_set_error(CT_ERR_VALUE, "edgeitems must be non-negative, got %lld",
                            (long long)o->edgeitems);
    if (o->sci_mode != CT_PRINT_SCI_AUTO && o->sci_mode != CT_PRINT_SCI_OFF &&
        o->sci_mode != CT_PRINT_SCI_ON)
        return ct_set_error(CT_ERR_VALUE, "invalid sci_mode value %d", (int)o->sci_mode);
    if (memchr(o->prefix, '\0', sizeof o->prefix) == NULL)
        return ct_set_error(CT_ERR_VALUE,
                            "the module prefix must be a NUL-terminated string of at most %d bytes",
                            CT_PRINT_PREFIX_MAX - 1);
    return CT_OK;
}

/* The process-wide options. A spin lock keeps readers from seeing half an update: a copy
 * of a few dozen bytes is all it ever guards. */
static ct_print_options global_opts;
static bool global_set;
static atomic_flag global_lock = ATOMIC_FLAG_INIT;

static void lock(void) {
    while (atomic_flag_test_and_set_explicit(&global_lock, memory_order_acquire))
        ;
}
static void unlock(void) { atomic_flag_clear_explicit(&global_lock, memory_order_release); }

ct_status ct_set_printoptions(const ct_print_options *opts) {
    CT_TRY(ct_print_options_check(opts));
    lock();
    global_opts = *opts;
    global_set = true;
    unlock();
    return CT_OK;
}

ct_print_options ct_get_printoptions(void) {
    lock();
    ct_print_options o = global_set ? global_opts : ct_print_options_default();
    unlock();
    return o;
}

/* Strings from ct_sb_finish are exactly strlen + 1 bytes, so the size is known here. */
void ct_string_free(char *s) {
    if (s != NULL)
        ct_free(s, strlen(s) + 1, 1);
}

/* ---- suffixes -------------------------------------------------------------------------- */

void ct_print_impl_add_suffixes(ct_sb *b, const char *const *suffixes, size_t n, int64_t indent,
                                bool force_newline, const ct_print_options *o) {
    /* PyTorch counts the last line two characters long, then each suffix with its ", " */
    size_t last_nl = 0;
    bool has_nl = false;
    for (size_t i = b->len; i > 0; i--)
        if (b->data[i - 1] == '\n') {
            last_nl = i - 1;
            has_nl = true;
            break;
        }
    int64_t line = has_nl ? (int64_t)(b->len - last_nl) + 1 : (int64_t)b->len + 2;
    for (size_t i = 0; i < n; i++) {
        int64_t len = (int64_t)strlen(suffixes[i]);
        if (force_newline || line + len + 2 > o->linewidth) {
            ct_sb_put(b, ",\n", 2);
            ct_sb_fill(b, ' ', indent);
            line = indent + len;
            force_newline = false;
        } else {
            ct_sb_put(b, ", ", 2);
            line += len + 2;
        }
        ct_sb_puts(b, suffixes[i]);
    }
    ct_sb_put(b, ")", 1);
}

bool ct_print_impl_has_default_dtype(ct_dtype dtype) {
    ct_dtype def = ct_get_default_dtype();
    /* printing's own default complex dtype: PyTorch maps only float64 to complex128 */
    ct_dtype def_complex = def == CT_FLOAT64 ? CT_COMPLEX128 : CT_COMPLEX64;
    return dtype == def || dtype == def_complex || dtype == CT_INT64 || dtype == CT_BOOL;
}

void ct_print_impl_shape(ct_sb *b, const int64_t *sizes, int64_t ndim) {
    char num[24];
    ct_sb_put(b, "(", 1);
    for (int64_t i = 0; i < ndim; i++) {
        if (i > 0)
            ct_sb_put(b, ", ", 2);
        int n = snprintf(num, sizeof num, "%lld", (long long)sizes[i]);
        ct_sb_put(b, num, (size_t)n);
    }
    ct_sb_puts(b, ndim == 1 ? ",)" : ")");
}

/* ---- repr ------------------------------------------------------------------------------ */

enum { MAX_SUFFIXES = 3 };

typedef struct suffixes {
    ct_sb s[MAX_SUFFIXES];
    size_t n;
} suffixes;

static ct_sb *suffix_new(suffixes *sx) { return &sx->s[sx->n++]; }

static void suffix_dtype(suffixes *sx, ct_dtype dtype, const ct_print_options *o) {
    ct_sb *s = suffix_new(sx);
    ct_sb_puts(s, "dtype=");
    ct_sb_puts(s, o->prefix);
    ct_sb_puts(s, ct_dtype_table[dtype].name);
}

static void suffix_size(suffixes *sx, const ct_tensor *t) {
    ct_sb *s = suffix_new(sx);
    ct_sb_puts(s, "size=");
    ct_print_impl_shape(s, t->sizes, t->ndim);
}

/* fn: the public function called, for its misuse messages. */
static ct_status repr(const char *fn, const ct_tensor *t, const ct_print_options *opts,
                      const char *name, char **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensor is NULL", fn);
    ct_print_options o = opts != NULL ? *opts : ct_get_printoptions();
    CT_TRY(ct_print_options_check(&o));
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "printing tensors of layout torch.%s is not implemented by the "
                            "tensor core",
                            ct_layout_name(t->layout));

    if (name == NULL)
        name = "tensor";
    const int64_t indent = (int64_t)strlen(name) + 1; /* values start after "name(" */
    ct_status st = CT_OK;
    suffixes sx = {0};
    ct_sb b;
    ct_sb_init(&b);
    ct_sb_puts(&b, name);
    ct_sb_put(&b, "(", 1);

    /* Note [Print tensor device]: PyTorch names the device of any tensor that is not on
     * its default tensor type's device, which is the cpu here. */
    if (t->device.type != CT_DEVICE_CPU) {
        char dev[CT_DEVICE_STRING_MAX];
        st = ct_device_str(t->device, dev, sizeof dev);
        if (st != CT_OK)
            goto fail;
        ct_sb *s = suffix_new(&sx);
        ct_sb_puts(s, "device='");
        ct_sb_puts(s, dev);
        ct_sb_puts(s, "'");
    }
    if (t->device.type == CT_DEVICE_META) {
        suffix_size(&sx, t);
        if (t->dtype != ct_get_default_dtype())
            suffix_dtype(&sx, t->dtype, &o);
        ct_sb_puts(&b, "...");
    } else if (t->numel == 0) {
        /* shapes other than (0,) are spelled out, as NumPy does; and with no element to
         * show the kind, any dtype but the default one is named (int64 included) */
        if (t->ndim != 1)
            suffix_size(&sx, t);
        if (t->dtype != ct_get_default_dtype())
            suffix_dtype(&sx, t->dtype, &o);
        ct_sb_puts(&b, "[]");
    } else {
        if (o.edgeitems == 0) /* newest PyTorch: the values may all be elided */
            suffix_size(&sx, t);
        if (!ct_print_impl_has_default_dtype(t->dtype))
            suffix_dtype(&sx, t->dtype, &o);
        st = ct_print_impl_body(&b, t, indent, &o);
        if (st != CT_OK)
            goto fail;
    }

    const char *texts[MAX_SUFFIXES];
    for (size_t i = 0; i < sx.n; i++) {
        if (sx.s[i].failed) {
            st = CT_ERR_NOMEM;
            goto fail;
        }
        texts[i] = sx.s[i].data;
    }
    ct_print_impl_add_suffixes(&b, texts, sx.n, indent, false, &o);
    st = ct_sb_finish(&b, out);
fail:
    for (size_t i = 0; i < sx.n; i++)
        ct_sb_free(&sx.s[i]);
    ct_sb_free(&b);
    return st;
}

ct_status ct_tensor_repr(const ct_tensor *t, const ct_print_options *opts, char **out) {
    return repr("ct_tensor_repr", t, opts, NULL, out);
}

ct_status ct_tensor_repr_named(const ct_tensor *t, const ct_print_options *opts, const char *name,
                               char **out) {
    return repr("ct_tensor_repr_named", t, opts, name, out);
}
