/* The strided loop of gather, scatter and index_* (see scatter_impl.h). Elements combine
 * through one small function per (dtype, op); float16 and bfloat16 compute in float32 and
 * round once, complex32 in complex64, as PyTorch's CPU kernels do. Integers wrap (computed
 * unsigned). Rows along `dim` are the unit of parallel work for scatters (two rows never
 * write the same element); gather splits anywhere. */
#include <complex.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "base/error_impl.h"
#include "base/parallel.h"
#include "ctensor/convert.h"
#include "ops/scatter_impl.h"

#define SC_GRAIN 32768

typedef void (*sc_fn)(char *d, const char *s, const void *alpha);

#define LD(T, p) (*(const T *)(const void *)(p))
#define ST(T, p) (*(T *)(void *)(p))

/* Real types: UT is the unsigned type the integers compute in (wide enough that the
 * product of two promoted operands cannot overflow int). */
#define REAL_FNS(N, T, UT, NAN_)                                                                   \
    static void add_##N(char *d, const char *s, const void *a) {                           \
        (void)a;                                                                           \
        ST(T, d) = (T)((UT)LD(T, d) + (UT)LD(T, s));                                       \
    }                                                                                      \
    static void adda_##N(char *d, const char *s, const void *a) {                          \
        ST(T, d) = (T)((UT)LD(T, d) + (UT)LD(T, s) * (UT)LD(T, a));                        \
    }                                                                                      \
    static void mul_##N(char *d, const char *s, const void *a) {                           \
        (void)a;                                                                           \
        ST(T, d) = (T)((UT)LD(T, d) * (UT)LD(T, s));                                       \
    }                                                                                      \
    static void max_##N(char *d, const char *s, const void *a) {                           \
        (void)a;                                                                           \
        T x = LD(T, d), y = LD(T, s);                                                      \
        ST(T, d) = NAN_(y) ? y : (x < y ? y : x); /* NaN propagates, as std::max */        \
    }                                                                                      \
    static void min_##N(char *d, const char *s, const void *a) {                           \
        (void)a;                                                                           \
        T x = LD(T, d), y = LD(T, s);                                                      \
        ST(T, d) = NAN_(y) ? y : (y < x ? y : x);                                          \
    }

#define NO_NAN(x) ((void)(x), 0)
REAL_FNS(u8, uint8_t, uint32_t, NO_NAN)
REAL_FNS(i8, int8_t, uint32_t, NO_NAN)
REAL_FNS(i16, int16_t, uint32_t, NO_NAN)
REAL_FNS(i32, int32_t, uint32_t, NO_NAN)
REAL_FNS(i64, int64_t, uint64_t, NO_NAN)
REAL_FNS(f32, float, float, isnan)
REAL_FNS(f64, double, double, isnan)

static void add_b(char *d, const char *s, const void *a) {
    (void)a;
    *d = (char)(*d || *s);
}
static void adda_b(char *d, const char *s, const void *a) {
    *d = (char)(*d || (*s && *(const char *)a));
}
static void mul_b(char *d, const char *s, const void *a) {
    (void)a;
    *d = (char)(*d && *s);
}

#define CPLX_FNS(N, T)                                                                       \
    static void add_##N(char *d, const char *s, const void *a) {                           \
        (void)a;                                                                           \
        ST(T, d) = LD(T, d) + LD(T, s);                                                    \
    }                                                                                      \
    static void adda_##N(char *d, const char *s, const void *a) {                          \
        ST(T, d) = LD(T, d) + LD(T, s) * LD(T, a);                                         \
    }                                                                                      \
    static void mul_##N(char *d, const char *s, const void *a) {                           \
        (void)a;                                                                           \
        ST(T, d) = LD(T, d) * LD(T, s);                                                    \
    }

CPLX_FNS(c64, float complex)
CPLX_FNS(c128, double complex)

/* float16 / bfloat16: through float32 with the float32 function. */
#define HALF_FNS(N, TOF, FROMF)                                                              \
    static void via_##N(char *d, const char *s, const void *a, sc_fn f) {                  \
        float x = TOF(LD(uint16_t, d)), y = TOF(LD(uint16_t, s));                          \
        f((char *)&x, (const char *)&y, a);                                                \
        ST(uint16_t, d) = FROMF(x);                                                        \
    }                                                                                      \
    static void add_##N(char *d, const char *s, const void *a) { via_##N(d, s, a, add_f32); } \
    static void adda_##N(char *d, const char *s, const void *a) {                          \
        via_##N(d, s, a, adda_f32);                                                        \
    }                                                                                      \
    static void mul_##N(char *d, const char *s, const void *a) { via_##N(d, s, a, mul_f32); } \
    static void max_##N(char *d, const char *s, const void *a) { via_##N(d, s, a, max_f32); } \
    static void min_##N(char *d, const char *s, const void *a) { via_##N(d, s, a, min_f32); }

HALF_FNS(f16, ct_half_to_float, ct_float_to_half)
HALF_FNS(bf16, ct_bfloat16_to_float, ct_float_to_bfloat16)

static void via_c32(char *d, const char *s, const void *a, sc_fn f) {
    /* float[2] has float complex's layout (C11 6.2.5) */
    float x[2] = {ct_half_to_float(LD(uint16_t, d)), ct_half_to_float(LD(uint16_t, d + 2))};
    float y[2] = {ct_half_to_float(LD(uint16_t, s)), ct_half_to_float(LD(uint16_t, s + 2))};
    f((char *)x, (const char *)y, a);
    ST(uint16_t, d) = ct_float_to_half(x[0]);
    ST(uint16_t, d + 2) = ct_float_to_half(x[1]);
}
static void add_c32(char *d, const char *s, const void *a) { via_c32(d, s, a, add_c64); }
static void adda_c32(char *d, const char *s, const void *a) { via_c32(d, s, a, adda_c64); }
static void mul_c32(char *d, const char *s, const void *a) { via_c32(d, s, a, mul_c64); }

/* [dtype][op - ADD]: ADD, ADD_ALPHA, MUL, MAX, MIN */
static sc_fn lookup(ct_dtype dt, ct_scatter_op op) {
#define ROW(ENUM, N) \
    case ENUM: {                                                                           \
        static const sc_fn row[] = {add_##N, adda_##N, mul_##N, max_##N, min_##N};       \
        return row[op - CT_SCATTER_OP_ADD];                                                \
    }
#define ROW3(ENUM, N) \
    case ENUM: {                                                                           \
        static const sc_fn row[] = {add_##N, adda_##N, mul_##N, NULL, NULL};             \
        return row[op - CT_SCATTER_OP_ADD];                                                \
    }
    switch (dt) {
        ROW(CT_UINT8, u8)
        ROW(CT_INT8, i8)
        ROW(CT_INT16, i16)
        ROW(CT_INT32, i32)
        ROW(CT_INT64, i64)
        ROW(CT_FLOAT32, f32)
        ROW(CT_FLOAT64, f64)
        ROW(CT_FLOAT16, f16)
        ROW(CT_BFLOAT16, bf16)
        ROW3(CT_COMPLEX64, c64)
        ROW3(CT_COMPLEX128, c128)
        ROW3(CT_COMPLEX32, c32)
    case CT_BOOL: {
        /* bool max is or, min is and */
        static const sc_fn row[] = {add_b, adda_b, mul_b, add_b, mul_b};
        return row[op - CT_SCATTER_OP_ADD];
    }
    default: return NULL;
    }
#undef ROW
#undef ROW3
}

bool ct_scatter_impl_has_op(ct_dtype dtype, ct_scatter_op op) {
    if (op == CT_SCATTER_OP_COPY)
        return ct_dtype_itemsize(dtype) > 0;
    return lookup(dtype, op) != NULL;
}

/* One row along dim: positions k0..k1 of the row whose offsets are toff / soff / ioff. */
typedef struct sc_row {
    char *t, *s;
    const char *ix;
    int64_t toff, soff, ioff, tsd, ssd, isd, tsize;
    sc_fn fn;
    const void *alpha;
    size_t es;
    bool ix32, wrap, gather;
} sc_row;
/* false with *bad set at an out-of-range index */
typedef bool (*sc_rowfn)(const sc_row *r, int64_t k0, int64_t k1, int64_t *bad);

/* Typed rows for an int64 index without wrapping: the hot cases (gather and plain scatter of
 * every element size, scatter_add of the common dtypes), with the loop's state in locals. */
#define ROWFN(NAME, T, STMT)                                                                 \
    static bool NAME(const sc_row *r, int64_t k0, int64_t k1, int64_t *bad) {               \
        T *t = (T *)(void *)r->t + r->toff, *s = (T *)(void *)r->s + r->soff;               \
        const int64_t *ix = (const int64_t *)(const void *)r->ix + r->ioff;                 \
        const int64_t tsd = r->tsd, ssd = r->ssd, isd = r->isd;                             \
        const uint64_t tsize = (uint64_t)r->tsize;                                          \
        for (int64_t k = k0; k < k1; k++) {                                                 \
            int64_t v = ix[k * isd];                                                        \
            if ((uint64_t)v >= tsize) {                                                     \
                *bad = v;                                                                   \
                return false;                                                               \
            }                                                                               \
            T *tp = t + v * tsd, *sp = s + k * ssd;                                         \
            STMT;                                                                           \
        }                                                                                   \
        return true;                                                                        \
    }

typedef struct {
    uint64_t lo, hi;
} sc_u128;

ROWFN(gather_1, uint8_t, *sp = *tp)
ROWFN(gather_2, uint16_t, *sp = *tp)
ROWFN(gather_4, uint32_t, *sp = *tp)
ROWFN(gather_8, uint64_t, *sp = *tp)
ROWFN(gather_16, sc_u128, *sp = *tp)
ROWFN(copy_1, uint8_t, *tp = *sp)
ROWFN(copy_2, uint16_t, *tp = *sp)
ROWFN(copy_4, uint32_t, *tp = *sp)
ROWFN(copy_8, uint64_t, *tp = *sp)
ROWFN(copy_16, sc_u128, *tp = *sp)
ROWFN(radd_f32, float, *tp += *sp)
ROWFN(radd_f64, double, *tp += *sp)
ROWFN(radd_i64, int64_t, *tp = (int64_t)((uint64_t)*tp + (uint64_t)*sp))
ROWFN(radd_i32, int32_t, *tp = (int32_t)((uint32_t)*tp + (uint32_t)*sp))

/* gather rows with unit strides along dim in self, index and result (dim the last dim of
 * contiguous operands): no stride arithmetic in the loop. */
#define GATHER_UNIT(NAME, T)                                                                       \
    static bool NAME(const sc_row *r, int64_t k0, int64_t k1, int64_t *bad) {                     \
        const T *restrict t = (const T *)(const void *)r->t + r->toff;                             \
        T *restrict s = (T *)(void *)r->s + r->soff;                                               \
        const int64_t *restrict ix = (const int64_t *)(const void *)r->ix + r->ioff;               \
        const uint64_t tsize = (uint64_t)r->tsize;                                                 \
        for (int64_t k = k0; k < k1; k++) {                                                        \
            int64_t v = ix[k];                                                                     \
            if ((uint64_t)v >= tsize) {                                                            \
                *bad = v;                                                                          \
                return false;                                                                      \
            }                                                                                      \
            s[k] = t[v];                                                                           \
        }                                                                                          \
        return true;                                                                               \
    }
GATHER_UNIT(gather_unit_1, uint8_t)
GATHER_UNIT(gather_unit_2, uint16_t)
GATHER_UNIT(gather_unit_4, uint32_t)
GATHER_UNIT(gather_unit_8, uint64_t)

/* Any case: int32 indices, negative ones wrapping, an element function. */
static bool row_generic(const sc_row *r, int64_t k0, int64_t k1, int64_t *bad) {
    int64_t es = (int64_t)r->es;
    for (int64_t k = k0; k < k1; k++) {
        int64_t io = r->ioff + k * r->isd;
        int64_t v = r->ix32 ? LD(int32_t, r->ix + io * 4) : LD(int64_t, r->ix + io * 8);
        int64_t w = (r->wrap && v < 0) ? v + r->tsize : v;
        if ((uint64_t)w >= (uint64_t)r->tsize) {
            *bad = v;
            return false;
        }
        char *te = r->t + (r->toff + w * r->tsd) * es;
        char *se = r->s + (r->soff + k * r->ssd) * es;
        if (r->gather)
            memcpy(se, te, r->es);
        else if (r->fn == NULL)
            memcpy(te, se, r->es);
        else
            r->fn(te, se, r->alpha);
    }
    return true;
}

static sc_rowfn pick_row(const ct_scatter_plan *p, size_t es) {
    if (p->ix32 || p->wrap)
        return row_generic;
    int which = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : es == 16 ? 4 : -1;
    static const sc_rowfn gathers[] = {gather_1, gather_2, gather_4, gather_8, gather_16};
    static const sc_rowfn copies[] = {copy_1, copy_2, copy_4, copy_8, copy_16};
    static const sc_rowfn units[] = {gather_unit_1, gather_unit_2, gather_unit_4, gather_unit_8};
    if (p->gather && which >= 0 && which < 4 && p->ts[p->dim] == 1 && p->is[p->dim] == 1 &&
        p->ss[p->dim] == 1)
        return units[which];
    if (p->gather)
        return which >= 0 ? gathers[which] : row_generic;
    if (p->op == CT_SCATTER_OP_COPY)
        return which >= 0 ? copies[which] : row_generic;
    if (p->op == CT_SCATTER_OP_ADD) {
        switch (p->dtype) {
        case CT_FLOAT32: return radd_f32;
        case CT_FLOAT64: return radd_f64;
        case CT_INT64: return radd_i64;
        case CT_INT32: return radd_i32;
        default: break;
        }
    }
    return row_generic;
}

typedef struct {
    const ct_scatter_plan *p;
    sc_fn fn;
    sc_rowfn rowfn;
    size_t es;
    int64_t n;        /* positions along dim */
    unsigned char alpha[16];
    atomic_int failed;
    atomic_llong bad;
} sc_ctx;

static void sc_fail(sc_ctx *c, int64_t v) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&c->failed, &expected, 1))
        atomic_store(&c->bad, (long long)v);
}

/* Positions [begin, end) in row-major order of the iteration shape with dim innermost. */
static void sc_range(sc_ctx *c, int64_t begin, int64_t end) {
    const ct_scatter_plan *p = c->p;
    int64_t n = c->n, dim = p->dim;
    int64_t ctr[CT_MAX_DIMS] = {0};
    sc_row r = {.t = p->t, .s = p->s, .ix = p->ix, .tsd = p->ts[dim], .ssd = p->ss[dim],
                .isd = p->is[dim], .tsize = p->tsize, .fn = c->fn, .alpha = c->alpha,
                .es = c->es, .ix32 = p->ix32, .wrap = p->wrap, .gather = p->gather};
    int64_t row = begin / n, k = begin % n;
    for (int64_t j = p->nd - 1; j >= 0; j--) { /* the row's coordinates, dim skipped */
        if (j == dim)
            continue;
        ctr[j] = row % p->sizes[j];
        row /= p->sizes[j];
        r.toff += ctr[j] * p->ts[j];
        r.soff += ctr[j] * p->ss[j];
        r.ioff += ctr[j] * p->is[j];
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t stop = k + (end - pos) < n ? k + (end - pos) : n, bad = 0;
        if (!c->rowfn(&r, k, stop, &bad)) {
            sc_fail(c, bad);
            return;
        }
        pos += stop - k;
        k = 0;
        for (int64_t j = p->nd - 1; j >= 0; j--) { /* the next row */
            if (j == dim)
                continue;
            r.toff += p->ts[j];
            r.soff += p->ss[j];
            r.ioff += p->is[j];
            if (++ctr[j] < p->sizes[j])
                break;
            r.toff -= p->ts[j] * p->sizes[j];
            r.soff -= p->ss[j] * p->sizes[j];
            r.ioff -= p->is[j] * p->sizes[j];
            ctr[j] = 0;
        }
    }
}

static void gather_body(void *vctx, int64_t begin, int64_t end) { sc_range(vctx, begin, end); }

static void scatter_body(void *vctx, int64_t begin, int64_t end) {
    sc_ctx *c = vctx;
    sc_range(c, begin * c->n, end * c->n);
}

/* gather with dim not the last dim and unit strides along the last dim of index, result and
 * self: lines along the last dim in memory order, so index and result stream and only the
 * reads of self jump (the row-wise loop walks index and result down a column). */
typedef struct {
    const ct_scatter_plan *p;
    int64_t len; /* the last dim's size */
    atomic_int failed;
    atomic_llong bad;
} gl_ctx;

#define GATHER_LINE(NAME, T)                                                                       \
    static bool NAME(T *restrict out, const T *restrict t, const int64_t *restrict ix, int64_t n,  \
                     int64_t tsd, uint64_t tsize, int64_t *bad) {                                  \
        for (int64_t j = 0; j < n; j++) {                                                          \
            int64_t v = ix[j];                                                                     \
            if ((uint64_t)v >= tsize) {                                                            \
                *bad = v;                                                                          \
                return false;                                                                      \
            }                                                                                      \
            out[j] = t[v * tsd + j];                                                               \
        }                                                                                          \
        return true;                                                                               \
    }
GATHER_LINE(gline_1, uint8_t)
GATHER_LINE(gline_2, uint16_t)
GATHER_LINE(gline_4, uint32_t)
GATHER_LINE(gline_8, uint64_t)

static void gather_lines_body(void *vctx, int64_t begin, int64_t end) {
    gl_ctx *c = vctx;
    const ct_scatter_plan *p = c->p;
    const int64_t last = p->nd - 1, n = c->len, tsd = p->ts[p->dim];
    const size_t es = ct_dtype_itemsize(p->dtype);
    for (int64_t line = begin; line < end; line++) {
        int64_t rem = line, toff = 0, soff = 0, ioff = 0;
        for (int64_t j = last - 1; j >= 0; j--) {
            int64_t x = rem % p->sizes[j];
            rem /= p->sizes[j];
            if (j != p->dim)
                toff += x * p->ts[j];
            soff += x * p->ss[j];
            ioff += x * p->is[j];
        }
        const int64_t *ix = (const int64_t *)(const void *)p->ix + ioff;
        char *o = p->s + soff * (int64_t)es;
        const char *t = p->t + toff * (int64_t)es;
        int64_t bad = 0;
        bool ok;
        switch (es) {
        case 1:
            ok = gline_1((uint8_t *)o, (const uint8_t *)t, ix, n, tsd, (uint64_t)p->tsize, &bad);
            break;
        case 2:
            ok = gline_2((uint16_t *)(void *)o, (const uint16_t *)(const void *)t, ix, n, tsd,
                         (uint64_t)p->tsize, &bad);
            break;
        case 4:
            ok = gline_4((uint32_t *)(void *)o, (const uint32_t *)(const void *)t, ix, n, tsd,
                         (uint64_t)p->tsize, &bad);
            break;
        default:
            ok = gline_8((uint64_t *)(void *)o, (const uint64_t *)(const void *)t, ix, n, tsd,
                         (uint64_t)p->tsize, &bad);
            break;
        }
        if (!ok) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&c->failed, &expected, 1))
                atomic_store(&c->bad, (long long)bad);
            return;
        }
    }
}

/* The first bad index of a line-wise gather in row-major order, PyTorch's order there (its
 * loop runs dim inside the positions before it and outside the last dim). Error path only. */
static int64_t first_bad_lines(const ct_scatter_plan *p, int64_t lines, int64_t n) {
    for (int64_t line = 0; line < lines; line++) {
        int64_t rem = line, ioff = 0;
        for (int64_t j = p->nd - 2; j >= 0; j--) {
            ioff += (rem % p->sizes[j]) * p->is[j];
            rem /= p->sizes[j];
        }
        const int64_t *ix = (const int64_t *)(const void *)p->ix + ioff;
        for (int64_t k = 0; k < n; k++)
            if ((uint64_t)ix[k] >= (uint64_t)p->tsize)
                return ix[k];
    }
    return 0;
}

/* Whether gather_lines_body runs the plan: int64 index without wrapping, dim not the last
 * dim, unit strides along the last dim, lines long enough to pay for their offsets. */
static bool gather_lines_fit(const ct_scatter_plan *p, size_t es) {
    int64_t last = p->nd - 1;
    return p->gather && p->err == CT_SCATTER_ERR_GATHER && !p->ix32 && !p->wrap && last > 0 &&
           p->dim != last && (es == 1 || es == 2 || es == 4 || es == 8) && p->sizes[last] >= 16 &&
           p->is[last] == 1 && p->ss[last] == 1 && p->ts[last] == 1;
}

/* The bad index PyTorch's kernel meets first: its loop runs along dim outermost unless dim is
 * the last dim (then rows outermost, as ours). Only on the error path. */
static int64_t first_bad(const ct_scatter_plan *p, int64_t n, int64_t rows, int64_t fallback) {
    if (p->dim == p->nd - 1)
        return fallback;
    for (int64_t k = 0; k < n; k++)
        for (int64_t r = 0; r < rows; r++) {
            int64_t rem = r, ioff = k * p->is[p->dim];
            for (int64_t j = p->nd - 1; j >= 0; j--) {
                if (j == p->dim)
                    continue;
                ioff += (rem % p->sizes[j]) * p->is[j];
                rem /= p->sizes[j];
            }
            int64_t v = p->ix32 ? LD(int32_t, p->ix + ioff * 4) : LD(int64_t, p->ix + ioff * 8);
            int64_t w = (p->wrap && v < 0) ? v + p->tsize : v;
            if ((uint64_t)w >= (uint64_t)p->tsize)
                return v;
        }
    return fallback;
}

ct_status ct_scatter_impl_run(const ct_scatter_plan *p) {
    int64_t total = 1;
    for (int64_t j = 0; j < p->nd; j++)
        total *= p->sizes[j];
    if (total == 0)
        return CT_OK;
    sc_ctx c = {.p = p, .es = ct_dtype_itemsize(p->dtype), .n = p->sizes[p->dim]};
    c.rowfn = pick_row(p, c.es);
    atomic_init(&c.failed, 0);
    atomic_init(&c.bad, 0);
    if (!p->gather && p->op != CT_SCATTER_OP_COPY) {
        c.fn = lookup(p->dtype, p->op);
        if (c.fn == NULL)
            return ct_set_error(CT_ERR_MISUSE, "scatter: no kernel for this dtype and op");
        if (p->op == CT_SCATTER_OP_ADD_ALPHA) {
            ct_dtype at = p->dtype == CT_FLOAT16 || p->dtype == CT_BFLOAT16 ? CT_FLOAT32
                          : p->dtype == CT_COMPLEX32                       ? CT_COMPLEX64
                                                                           : p->dtype;
            CT_TRY(ct_scalar_to_dtype(p->alpha, at, c.alpha));
        }
    }
    if (gather_lines_fit(p, c.es)) {
        gl_ctx g = {.p = p, .len = p->sizes[p->nd - 1]};
        atomic_init(&g.failed, 0);
        atomic_init(&g.bad, 0);
        int64_t grain = SC_GRAIN / g.len;
        ct_parallel_for(0, total / g.len, grain > 0 ? grain : 1, gather_lines_body, &g);
        if (atomic_load(&g.failed))
            return ct_set_error(CT_ERR_RUNTIME,
                                "index %" PRId64 " is out of bounds for dimension %" PRId64
                                " with size %" PRId64,
                                first_bad_lines(p, total / g.len, g.len), p->err_dim, p->tsize);
        return CT_OK;
    } else if (p->gather) {
        ct_parallel_for(0, total, SC_GRAIN, gather_body, &c);
    } else {
        int64_t grain = SC_GRAIN / c.n;
        ct_parallel_for(0, total / c.n, grain > 0 ? grain : 1, scatter_body, &c);
    }
    if (!atomic_load(&c.failed))
        return CT_OK;
    int64_t v = first_bad(p, c.n, total / c.n, (int64_t)atomic_load(&c.bad));
    switch (p->err) {
    case CT_SCATTER_ERR_GATHER:
        return ct_set_error(CT_ERR_RUNTIME,
                            "index %" PRId64 " is out of bounds for dimension %" PRId64
                            " with size %" PRId64,
                            v, p->err_dim, p->tsize);
    case CT_SCATTER_ERR_SELF: return ct_set_error(CT_ERR_INDEX, "index out of range in self");
    case CT_SCATTER_ERR_FILL:
        return ct_set_error(CT_ERR_INDEX,
                            "index %" PRId64 " is out of bounds for dimension %" PRId64
                            " with size %" PRId64,
                            v, p->err_dim, p->tsize);
    case CT_SCATTER_ERR_COPY:
    default:
        return ct_set_error(CT_ERR_INDEX,
                            "index_copy_(): index %" PRId64 " is out of bounds for dimension %" PRId64
                            " with size %" PRId64,
                            v, p->err_dim, p->tsize);
    }
}
