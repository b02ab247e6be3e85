/* The values part of a tensor's repr, as PyTorch's _tensor_str lays it out: the printed
 * elements are gathered (only the edge items of summarized dims), formatters are built from
 * exactly those elements (PyTorch builds them from get_summarized_data), and the nested
 * brackets are written with PyTorch's separators and line wrapping. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/print_impl.h"
#include "tensor/tensor_impl.h"

/* Enough for one number at CT_PRINT_MAX_PRECISION: "%.500f" of the largest double is
 * 1 + 309 + 1 + 500 characters. */
#define FMT_CAP 1024

/* What the printed elements are gathered as. */
typedef enum vkind { VK_BOOL, VK_INT, VK_UINT, VK_FLOAT, VK_COMPLEX } vkind;

/* PyTorch's _Formatter: how one column of numbers prints. */
typedef struct formatter {
    bool int_mode; /* every nonzero finite value is integral: "3." */
    bool sci_mode;
    int precision;
    int64_t width; /* every element is right-aligned to this */
} formatter;

typedef struct printer {
    ct_sb *b;
    const ct_print_options *o;
    const int64_t *sizes;
    int64_t ndim;
    bool summarize;
    vkind kind;
    const void *values; /* gathered elements in print order */
    size_t next;        /* the next element to print */
    formatter f1, f2;   /* f2: imaginary parts */
} printer;

/* ---- numbers in Python's notation ---------------------------------------------------- */

/* format(v, ".{prec}{conv}") in Python: correctly rounded digits like glibc's printf, but
 * NaN never shows a sign. Returns the length written into buf (FMT_CAP bytes). */
static int fmt_double(char *buf, double v, char conv, int prec) {
    if (isnan(v)) {
        memcpy(buf, "nan", 4);
        return 3;
    }
    int n = snprintf(buf, FMT_CAP, conv == 'e' ? "%.*e" : "%.*f", prec, v);
    return n < 0 ? 0 : (n >= FMT_CAP ? FMT_CAP - 1 : n);
}

/* Formatter.format without the padding. */
static int fmt_float(const formatter *f, char *buf, double v) {
    if (f->sci_mode)
        return fmt_double(buf, v, 'e', f->precision);
    if (f->int_mode) {
        int n = fmt_double(buf, v, 'f', 0);
        if (isfinite(v)) { /* "3." marks a floating tensor whose values are integral */
            buf[n++] = '.';
            buf[n] = '\0';
        }
        return n;
    }
    return fmt_double(buf, v, 'f', f->precision);
}

static int fmt_int(const printer *p, char *buf, size_t i) {
    switch (p->kind) {
    case VK_BOOL:
        return snprintf(buf, FMT_CAP, "%s", ((const uint8_t *)p->values)[i] ? "True" : "False");
    case VK_UINT:
        return snprintf(buf, FMT_CAP, "%" PRIu64, ((const uint64_t *)p->values)[i]);
    default:
        return snprintf(buf, FMT_CAP, "%" PRId64, ((const int64_t *)p->values)[i]);
    }
}

/* ---- formatters ------------------------------------------------------------------------ */

/* A formatter for n doubles `step` apart: PyTorch looks only at the nonzero finite values
 * to choose the notation and the width; with none it keeps width 1, integer mode and no
 * scientific notation, whatever sci_mode says. */
static void formatter_float(formatter *f, const double *v, size_t n, size_t step,
                            const ct_print_options *o) {
    *f = (formatter){.int_mode = true, .precision = o->precision, .width = 1};
    size_t count = 0;
    double lo = INFINITY, hi = 0.0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i * step];
        if (!isfinite(x) || x == 0.0)
            continue;
        count++;
        double a = fabs(x);
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
        if (x != ceil(x))
            f->int_mode = false;
    }
    if (count == 0)
        return;
    if (o->sci_mode == CT_PRINT_SCI_AUTO)
        f->sci_mode = hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4;
    else /* newest PyTorch measures the width in the forced notation (1.13 did not) */
        f->sci_mode = o->sci_mode == CT_PRINT_SCI_ON;
    char buf[FMT_CAP];
    for (size_t i = 0; i < n; i++) {
        double x = v[i * step];
        if (!isfinite(x) || x == 0.0)
            continue;
        int64_t w = fmt_float(f, buf, x);
        f->width = w > f->width ? w : f->width;
    }
}

static void formatter_int(printer *p, size_t n) {
    p->f1 = (formatter){.width = 1};
    char buf[FMT_CAP];
    for (size_t i = 0; i < n; i++) {
        int64_t w = fmt_int(p, buf, i);
        p->f1.width = w > p->f1.width ? w : p->f1.width;
    }
}

/* ---- writing elements ------------------------------------------------------------------ */

static void put_padded(ct_sb *b, const char *s, int64_t len, int64_t width) {
    ct_sb_fill(b, ' ', width - len);
    ct_sb_put(b, s, (size_t)len);
}

/* One element, padded to its column (complex: "re+imj" with only the real part padded). */
static void put_element(printer *p) {
    char buf[FMT_CAP];
    size_t i = p->next++;
    if (p->kind == VK_FLOAT) {
        double v = ((const double *)p->values)[i];
        put_padded(p->b, buf, fmt_float(&p->f1, buf, v), p->f1.width);
    } else if (p->kind == VK_COMPLEX) {
        const double *c = (const double *)p->values + 2 * i;
        put_padded(p->b, buf, fmt_float(&p->f1, buf, c[0]), p->f1.width);
        /* PyTorch strips the imaginary part's padding and joins with "+" unless it has a
         * sign of its own (negative numbers and -0.) */
        int n = fmt_float(&p->f2, buf, c[1]);
        if (buf[0] != '-')
            ct_sb_put(p->b, "+", 1);
        ct_sb_put(p->b, buf, (size_t)n);
        ct_sb_put(p->b, "j", 1);
    } else {
        put_padded(p->b, buf, fmt_int(p, buf, i), p->f1.width);
    }
}

/* ---- the nested brackets --------------------------------------------------------------- */

static int64_t edge_of(const printer *p) { return p->o->edgeitems; }

/* Whether dim d prints as its first and last edgeitems with "..." between. */
static bool dim_is_cut(bool summarize, int64_t size, int64_t edge) {
    return summarize && size > edge && size - edge > edge;
}

/* The last dim: elements separated by ", ", wrapped every elements_per_line elements (the
 * " ..." of a summarized dim counts as one). */
static void put_vector(printer *p, int64_t indent) {
    int64_t size = p->sizes[p->ndim - 1], edge = edge_of(p);
    bool cut = dim_is_cut(p->summarize, size, edge);
    int64_t elem = p->f1.width + 2;
    if (p->kind == VK_COMPLEX)
        elem += p->f2.width + 1;
    int64_t lw = p->o->linewidth;
    int64_t per_line = lw < indent + elem ? 1 : (lw - indent) / elem;
    int64_t items = cut ? 2 * edge + 1 : size;
    ct_sb_put(p->b, "[", 1);
    for (int64_t k = 0; k < items && !p->b->failed; k++) {
        if (k > 0 && k % per_line == 0) {
            ct_sb_put(p->b, ",\n", 2);
            ct_sb_fill(p->b, ' ', indent + 1);
        } else if (k > 0) {
            ct_sb_put(p->b, ", ", 2);
        }
        if (cut && k == edge)
            ct_sb_put(p->b, " ...", 4);
        else
            put_element(p);
    }
    ct_sb_put(p->b, "]", 1);
}

/* Dim d of ndim: its slices separated by "," plus one newline per remaining inner dim,
 * each one column further in; a summarized dim shows "..." in place of its middle. */
static void put_dim(printer *p, int64_t d, int64_t indent) {
    if (d == p->ndim - 1) {
        put_vector(p, indent);
        return;
    }
    int64_t size = p->sizes[d], edge = edge_of(p);
    bool cut = dim_is_cut(p->summarize, size, edge);
    int64_t items = cut ? 2 * edge + 1 : size;
    ct_sb_put(p->b, "[", 1);
    for (int64_t k = 0; k < items && !p->b->failed; k++) {
        if (k > 0) {
            ct_sb_put(p->b, ",", 1);
            ct_sb_fill(p->b, '\n', p->ndim - d - 1);
            ct_sb_fill(p->b, ' ', indent + 1);
        }
        if (cut && k == edge)
            ct_sb_put(p->b, "...", 3);
        else
            put_dim(p, d + 1, indent + 1);
    }
    ct_sb_put(p->b, "]", 1);
}

/* ---- gathering the printed elements ---------------------------------------------------- */

typedef struct gather {
    const int64_t *sizes, *strides;
    int64_t ndim, edge;
    bool summarize;
    ct_dtype src, dst;
    size_t src_size, dst_size;
    char *out;
    size_t n; /* elements written */
} gather;

static ct_status gather_run(gather *g, const char *p, int64_t stride, int64_t start,
                            int64_t count) {
    ptrdiff_t step = (ptrdiff_t)stride * (ptrdiff_t)g->src_size;
    CT_TRY(ct_convert_strided(g->dst, g->out + g->n * g->dst_size, (ptrdiff_t)g->dst_size, g->src,
                              p + (ptrdiff_t)start * step, step, (size_t)count));
    g->n += (size_t)count;
    return CT_OK;
}

/* Element order is print order: C order over the kept indices of every dim. */
static ct_status gather_dim(gather *g, int64_t d, const char *p) {
    if (g->ndim == 0)
        return gather_run(g, p, 0, 0, 1);
    int64_t size = g->sizes[d], stride = g->strides[d];
    bool cut = dim_is_cut(g->summarize, size, g->edge);
    if (d == g->ndim - 1) {
        if (!cut)
            return gather_run(g, p, stride, 0, size);
        CT_TRY(gather_run(g, p, stride, 0, g->edge));
        return gather_run(g, p, stride, size - g->edge, g->edge);
    }
    int64_t count = cut ? 2 * g->edge : size;
    for (int64_t k = 0; k < count; k++) {
        int64_t i = cut && k >= g->edge ? size - 2 * g->edge + k : k;
        CT_TRY(gather_dim(g, d + 1, p + (ptrdiff_t)i * stride * (ptrdiff_t)g->src_size));
    }
    return CT_OK;
}

/* How a dtype's elements are read: the kind of value and the dtype they are converted to.
 * float4_e2m1fn_x2 has no conversions; newest PyTorch prints its bytes as uint8 values
 * through a floating formatter, so its bytes are read as uint8 and printed as floats. */
static vkind kind_of(ct_dtype dtype, ct_dtype *src, ct_dtype *dst) {
    *src = dtype;
    switch (ct_dtype_kind_of(dtype)) {
    case CT_KIND_BOOL:
        *dst = CT_BOOL;
        return VK_BOOL;
    case CT_KIND_COMPLEX:
        *dst = CT_COMPLEX128;
        return VK_COMPLEX;
    case CT_KIND_FLOAT:
        if (dtype == CT_FLOAT4_E2M1FN_X2)
            *src = CT_UINT8;
        *dst = CT_FLOAT64;
        return VK_FLOAT;
    default:
        if (dtype == CT_UINT64) {
            *dst = CT_UINT64;
            return VK_UINT;
        }
        *dst = CT_INT64;
        return VK_INT;
    }
}

/* ---- _tensor_str ----------------------------------------------------------------------- */

ct_status ct_print_impl_body(ct_sb *b, const ct_tensor *t, int64_t indent,
                             const ct_print_options *o) {
    if (t->numel == 0) {
        ct_sb_puts(b, "[]");
        return CT_OK;
    }
    bool summarize = (double)t->numel > o->threshold;
    if (summarize && o->edgeitems == 0 && t->ndim > 0) { /* newest PyTorch: nothing kept */
        ct_sb_puts(b, "[...]");
        return CT_OK;
    }
    ct_status st = CT_OK;
    ct_tensor *host = NULL;
    void *values = NULL;
    size_t nbytes = 0;
    if (t->device.type == CT_DEVICE_CPU) {
        host = ct_tensor_retain((ct_tensor *)t);
    } else {
        ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
        st = ct_tensor_to_device(t, cpu, &host);
        if (st != CT_OK)
            goto fail;
    }

    gather g = {.sizes = host->sizes,
                .strides = host->strides,
                .ndim = host->ndim,
                .edge = o->edgeitems,
                .summarize = summarize};
    vkind kind = kind_of(host->dtype, &g.src, &g.dst);
    g.src_size = ct_dtype_itemsize(g.src);
    g.dst_size = ct_dtype_itemsize(g.dst);
    size_t count = 1;
    for (int64_t d = 0; d < host->ndim; d++) {
        int64_t kept = dim_is_cut(summarize, host->sizes[d], g.edge) ? 2 * g.edge : host->sizes[d];
        CT_CHECK(!ct_checked_mul_size(count, (size_t)kept, &count), CT_ERR_OVERFLOW,
                 "printing: too many elements to print");
    }
    CT_CHECK(!ct_checked_mul_size(count, g.dst_size, &nbytes), CT_ERR_OVERFLOW,
             "printing: too many elements to print");
    values = ct_alloc(nbytes, 16);
    if (values == NULL) {
        st = CT_ERR_NOMEM;
        goto fail;
    }
    g.out = values;
    st = gather_dim(&g, 0, ct_tensor_data_ptr(host));
    if (st != CT_OK)
        goto fail;

    printer p = {.b = b,
                 .o = o,
                 .sizes = host->sizes,
                 .ndim = host->ndim,
                 .summarize = summarize,
                 .kind = kind,
                 .values = values};
    if (kind == VK_FLOAT) {
        formatter_float(&p.f1, values, count, 1, o);
    } else if (kind == VK_COMPLEX) { /* real and imaginary parts get a formatter each */
        formatter_float(&p.f1, values, count, 2, o);
        formatter_float(&p.f2, (const double *)values + 1, count, 2, o);
    } else {
        formatter_int(&p, count);
    }
    if (host->ndim == 0)
        put_element(&p);
    else
        put_dim(&p, 0, indent);
fail:
    ct_free(values, nbytes, 16);
    ct_tensor_release(host);
    return st;
}
