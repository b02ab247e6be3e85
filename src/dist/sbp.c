/* sbp.c: ct_sbp values (oneflow.sbp), their formats and parser, and nd-sbp checks. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dist/dist_impl.h"

static ct_status check_split_dim(int64_t dim) {
    if (dim < 0)
        return ct_set_error(CT_ERR_RUNTIME, "Split axis must not be negative, but got %lld!",
                            (long long)dim);
    if (dim >= CT_SBP_MAX_SPLIT_AXIS)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected split axis to be less than the supported maximum axis (%d), "
                            "but got %lld!",
                            CT_SBP_MAX_SPLIT_AXIS, (long long)dim);
    return CT_OK;
}

ct_status ct_sbp_split(int64_t dim, ct_sbp *out) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "ct_sbp_split: out is NULL");
    out->kind = CT_SBP_BROADCAST;
    out->dim = -1;
    ct_status st = check_split_dim(dim);
    if (st != CT_OK)
        return st;
    out->kind = CT_SBP_SPLIT;
    out->dim = (int32_t)dim;
    return CT_OK;
}

ct_sbp ct_sbp_broadcast(void) { return (ct_sbp){CT_SBP_BROADCAST, -1}; }
ct_sbp ct_sbp_partial_sum(void) { return (ct_sbp){CT_SBP_PARTIAL_SUM, -1}; }

bool ct_sbp_equal(ct_sbp a, ct_sbp b) {
    if (a.kind != b.kind)
        return false;
    return a.kind != CT_SBP_SPLIT || a.dim == b.dim;
}

bool ct_nd_sbp_equal(const ct_sbp *a, const ct_sbp *b, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (!ct_sbp_equal(a[i], b[i]))
            return false;
    return true;
}

/* ---- formats (snprintf-style: the length needed is returned) ------------------------------ */

static void fmt_sbp(ct_sb *f, ct_sbp sbp, const char *module) {
    const char *m = module ? module : "ctensor";
    switch (sbp.kind) {
    case CT_SBP_SPLIT: ct_sb_appendf(f, "%s.sbp.split(dim=%d)", m, (int)sbp.dim); break;
    case CT_SBP_BROADCAST: ct_sb_appendf(f, "%s.sbp.broadcast", m); break;
    case CT_SBP_PARTIAL_SUM: ct_sb_appendf(f, "%s.sbp.partial_sum", m); break;
    default: ct_sb_appendf(f, "%s.sbp.<invalid %d>", m, (int)sbp.kind); break;
    }
}

static void fmt_sbp_short(ct_sb *f, ct_sbp sbp) {
    switch (sbp.kind) {
    case CT_SBP_SPLIT: ct_sb_appendf(f, "S(%d)", (int)sbp.dim); break;
    case CT_SBP_BROADCAST: ct_sb_appendf(f, "B"); break;
    case CT_SBP_PARTIAL_SUM: ct_sb_appendf(f, "P"); break;
    default: ct_sb_appendf(f, "?"); break;
    }
}

size_t ct_sbp_format(ct_sbp sbp, const char *module, char *buf, size_t size) {
    ct_sb f;
    ct_sb_init_buf(&f, buf, size);
    fmt_sbp(&f, sbp, module);
    return ct_sb_len(&f);
}

size_t ct_sbp_format_short(ct_sbp sbp, char *buf, size_t size) {
    ct_sb f;
    ct_sb_init_buf(&f, buf, size);
    fmt_sbp_short(&f, sbp);
    return ct_sb_len(&f);
}

/* The long form is a Python tuple (a 1-tuple keeps its trailing comma, as Tensor.sbp
 * prints); the short form is OneFlow's NdSbpToString, which has none: "(S(0))". */
static size_t fmt_tuple(const ct_sbp *sbp, int64_t n, const char *module, bool short_form,
                        char *buf, size_t size) {
    ct_sb f;
    ct_sb_init_buf(&f, buf, size);
    ct_sb_appendf(&f, "(");
    for (int64_t i = 0; sbp && i < n; i++) {
        if (i > 0)
            ct_sb_appendf(&f, ", ");
        if (short_form)
            fmt_sbp_short(&f, sbp[i]);
        else
            fmt_sbp(&f, sbp[i], module);
    }
    ct_sb_appendf(&f, n == 1 && !short_form ? ",)" : ")");
    return ct_sb_len(&f);
}

size_t ct_nd_sbp_format(const ct_sbp *sbp, int64_t n, const char *module, char *buf, size_t size) {
    return fmt_tuple(sbp, n, module, false, buf, size);
}

size_t ct_nd_sbp_format_short(const ct_sbp *sbp, int64_t n, char *buf, size_t size) {
    return fmt_tuple(sbp, n, NULL, true, buf, size);
}

ct_status ct_sbp_parse(const char *text, ct_sbp *out) {
    if (!text || !out)
        return ct_set_error(CT_ERR_MISUSE, "ct_sbp_parse: NULL argument");
    out->kind = CT_SBP_BROADCAST;
    out->dim = -1;
    if (strcmp(text, "B") == 0)
        return CT_OK;
    if (strcmp(text, "P") == 0) {
        *out = ct_sbp_partial_sum();
        return CT_OK;
    }
    if (text[0] == 'S' && text[1] == '(') {
        const char *p = text + 2;
        int64_t dim = 0;
        int digits = 0;
        /* 18 digits cannot overflow int64; longer numbers are not sbp strings anyway. */
        while (*p >= '0' && *p <= '9' && digits < 18) {
            dim = dim * 10 + (*p - '0');
            p++;
            digits++;
        }
        if (digits > 0 && p[0] == ')' && p[1] == '\0')
            return ct_sbp_split(dim, out);
    }
    return ct_set_error(CT_ERR_VALUE, "invalid sbp string: %s", text);
}

/* ---- internal ---------------------------------------------------------------------------- */

ct_status ct_dist_impl_nd_sbp_check(const ct_sbp *sbp, int64_t n_sbp, const ct_placement *placement,
                                    int64_t ndim) {
    if (!placement || (!sbp && n_sbp > 0))
        return ct_set_error(CT_ERR_MISUSE, "sbp or placement is NULL");
    if (n_sbp != placement->ndim)
        return ct_set_error(CT_ERR_VALUE,
                            "The number of sbp (%lld) must match the number of placement "
                            "hierarchy dims (%lld)",
                            (long long)n_sbp, (long long)placement->ndim);
    for (int64_t i = 0; i < n_sbp; i++) {
        switch (sbp[i].kind) {
        case CT_SBP_BROADCAST:
        case CT_SBP_PARTIAL_SUM: break;
        case CT_SBP_SPLIT: {
            ct_status st = check_split_dim(sbp[i].dim);
            if (st != CT_OK)
                return st;
            if (sbp[i].dim >= ndim)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "Split axis out of range (expected to be in range of [0, "
                                    "%lld), but got %d!)",
                                    (long long)ndim, (int)sbp[i].dim);
            break;
        }
        default:
            return ct_set_error(CT_ERR_VALUE, "invalid sbp kind %d", (int)sbp[i].kind);
        }
    }
    return CT_OK;
}

bool ct_dist_impl_nd_sbp_has_partial(const ct_sbp *sbp, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (sbp[i].kind == CT_SBP_PARTIAL_SUM)
            return true;
    return false;
}

bool ct_dist_impl_nd_sbp_has_split(const ct_sbp *sbp, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (sbp[i].kind == CT_SBP_SPLIT)
            return true;
    return false;
}
