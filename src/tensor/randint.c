/* randint: uniform integers in [low, high) for every integral, bool and real floating dtype.
 *
 * Values come from the generator's 32-bit words, never through a double: a span up to 2**32
 * takes one word per value, a wider one two. Each word is mapped onto the span with Lemire's
 * multiply-and-reject (the high half of word * span, redrawn while the low half falls in the
 * 2**k mod span values that would favour some results), so every value is equally likely
 * over the whole int64 range. Redraws come from the call's side stream (random_impl.h), so a
 * call reserves a fixed block range and the stream of later calls never depends on how many
 * redraws happened. The span is high - low computed in uint64 (no signed overflow).
 *
 * Checks follow PyTorch's random_(from, to) in its order: from < to; for floating dtypes the
 * bounds moved to the nearest values the dtype holds inside [from, to); the bounds against the
 * dtype's range (the names are PyTorch's C++ type names); the precision warnings. */
#include <float.h>
#include <math.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/random_impl.h"
#include "tensor/tensor_impl.h"

#include "ctensor/convert.h"
#include "ctensor/warning.h"

/* ---- drawing --------------------------------------------------------------------------- */

/* The 128-bit product a * b: high half returned, low half in *lo. */
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Uniform in [0, span), span in [1, 2**32]: one word, redraws from the side stream. */
static uint64_t draw_small(ct_random_stream *s, uint64_t span) {
    uint32_t x = ct_random_next_word(s);
    if (span == UINT64_C(1) << 32)
        return x;
    uint32_t sp = (uint32_t)span;
    uint64_t m = (uint64_t)x * sp;
    if ((uint32_t)m < sp) {
        uint32_t threshold = (0u - sp) % sp; /* 2**32 mod span */
        while ((uint32_t)m < threshold)
            m = (uint64_t)ct_random_next_retry(s) * sp;
    }
    return m >> 32;
}

/* Uniform in [0, span), span in (2**32, 2**64): two words, as draw_small over 64 bits. */
static uint64_t draw_wide(ct_random_stream *s, uint64_t span) {
    uint64_t x = (uint64_t)ct_random_next_word(s) << 32 | ct_random_next_word(s);
    uint64_t lo, hi = mul_64x64(x, span, &lo);
    if (lo < span) {
        uint64_t threshold = (0 - span) % span; /* 2**64 mod span */
        while (lo < threshold) {
            x = (uint64_t)ct_random_next_retry(s) << 32 | ct_random_next_retry(s);
            hi = mul_64x64(x, span, &lo);
        }
    }
    return hi;
}

/* The int64 whose two's complement bits are u, without implementation-defined conversion. */
static int64_t i64_of_bits(uint64_t u) {
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

typedef struct int_draw {
    ct_random_stream s;
    int64_t low;
    uint64_t span;
} int_draw;

static void int_chunk(void *ctx, void *values, size_t m) {
    int_draw *d = ctx;
    int64_t *v = values;
    bool wide = d->span > UINT64_C(1) << 32;
    for (size_t i = 0; i < m; i++)
        v[i] = i64_of_bits((uint64_t)d->low +
                           (wide ? draw_wide(&d->s, d->span) : draw_small(&d->s, d->span)));
}

static ct_status fill(ct_tensor *t, int64_t low, uint64_t span, ct_generator *g) {
    int_draw d = {.low = low, .span = span};
    size_t n = (size_t)t->numel;
    ct_random_reserve(g, (uint64_t)n * (span > UINT64_C(1) << 32 ? 2 : 1), &d.s);
    return ct_random_fill_host(t, t->dtype, n, CT_INT64, int_chunk, &d);
}

/* ---- bounds ---------------------------------------------------------------------------- */

/* PyTorch names the dtype by its C++ type (GCC's spelling) in these messages. */
static const char *type_name(ct_dtype dt) {
    switch (dt) {
    case CT_BOOL:
        return "bool";
    case CT_UINT8:
        return "unsigned char";
    case CT_INT8:
        return "signed char";
    case CT_UINT16:
        return "short unsigned int";
    case CT_INT16:
        return "short int";
    case CT_UINT32:
        return "unsigned int";
    case CT_INT32:
        return "int";
    case CT_UINT64:
        return "long unsigned int";
    case CT_FLOAT16:
        return "c10::Half";
    case CT_BFLOAT16:
        return "c10::BFloat16";
    case CT_FLOAT32:
        return "float";
    case CT_FLOAT64:
        return "double";
    default:
        return "long int";
    }
}

/* Significand bits of the floating dtypes randint fills. */
static int digits_of(ct_dtype dt) {
    return dt == CT_FLOAT16 ? 11 : dt == CT_BFLOAT16 ? 8 : dt == CT_FLOAT32 ? 24 : 53;
}

static double max_of(ct_dtype dt) {
    return dt == CT_FLOAT16    ? 65504.0
           : dt == CT_BFLOAT16 ? 0x1.fep127
           : dt == CT_FLOAT32  ? FLT_MAX
                               : DBL_MAX;
}

/* x cast to `dt` (the 16-bit types through float, as PyTorch casts) and back to int64; false
 * where the value leaves the dtype's finite range or int64's (PyTorch's cast is undefined
 * there: ctensor then leaves the bound as it is, and the range check decides). */
static bool round_trip(ct_dtype dt, int64_t x, int64_t *out) {
    double d;
    if (dt == CT_FLOAT64) {
        d = (double)x;
    } else {
        float f = (float)x, back = f;
        uint16_t h;
        if (dt != CT_FLOAT32) {
            (void)ct_convert(dt, &h, CT_FLOAT32, &f, 1);
            (void)ct_convert(CT_FLOAT32, &back, dt, &h, 1);
        }
        d = back;
    }
    if (!isfinite(d) || d < -0x1p63 || d >= 0x1p63)
        return false;
    *out = (int64_t)d;
    return true;
}

/* The spacing of dtype values around |x| (x not exactly representable). */
static int64_t spacing(int64_t x, int digits) {
    uint64_t a = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    int n = 0;
    while (a >>= 1)
        n++;
    return (int64_t)1 << (n - digits + 1);
}

/* Move [from, to) inward to values the floating dtype holds, as PyTorch does before drawing. */
static void update_bounds(ct_dtype dt, int64_t *from, int64_t *to) {
    int64_t r;
    if (round_trip(dt, *from + 1, &r) && r < *from)
        *from = r + spacing(*from + 1, digits_of(dt));
    if (round_trip(dt, *to - 1, &r) && r >= *to)
        *to = r - spacing(*to - 1, digits_of(dt));
}

static ct_status check_int_range(int64_t from, int64_t to_inc, int64_t lo, int64_t hi,
                                 ct_dtype dt) {
    if (from < lo || from > hi)
        return ct_set_error(CT_ERR_RUNTIME, "from is out of bounds for %s", type_name(dt));
    if (to_inc < lo || to_inc > hi)
        return ct_set_error(CT_ERR_RUNTIME, "to - 1 is out of bounds for %s", type_name(dt));
    return CT_OK;
}

static void warn_precision(const char *name, int64_t v, ct_dtype dt) {
    int digits = digits_of(dt);
    if (v < -((int64_t)1 << digits) || v > ((int64_t)1 << digits))
        ct_warn("%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations %s can support "
                "discrete uniform distribution only within this range. This warning will become "
                "an error in version 1.7 release, please fix the code in advance",
                name, digits, digits, type_name(dt));
}

/* PyTorch's random_(from, to) checks for a tensor of dtype `dt`; may move the bounds. */
static ct_status check_bounds(ct_dtype dt, int64_t *from, int64_t *to) {
    if (*from >= *to)
        return ct_set_error(CT_ERR_RUNTIME,
                            "random_ expects 'from' to be less than 'to', but got from=%lld >= "
                            "to=%lld",
                            (long long)*from, (long long)*to);
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16 || dt == CT_FLOAT32 || dt == CT_FLOAT64) {
        update_bounds(dt, from, to);
        if (*from >= *to)
            return ct_set_error(CT_ERR_RUNTIME,
                                "random_ expects 'from' casted to dtype to be less than 'to' "
                                "casted to dtype, but got from=%lld >= to=%lld",
                                (long long)*from, (long long)*to);
        double max = max_of(dt);
        if ((double)*from < -max || (double)*from > max)
            return ct_set_error(CT_ERR_RUNTIME, "from is out of bounds for %s", type_name(dt));
        if ((double)(*to - 1) < -max || (double)(*to - 1) > max)
            return ct_set_error(CT_ERR_RUNTIME, "to - 1 is out of bounds for %s", type_name(dt));
        warn_precision("from", *from, dt);
        warn_precision("to - 1", *to - 1, dt);
        return CT_OK;
    }
    if (ct_dtype_is_floating_point(dt))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "\"random_update_from_to\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(dt));
    switch (dt) {
    case CT_BOOL:
        return check_int_range(*from, *to - 1, 0, 1, dt);
    case CT_UINT8:
        return check_int_range(*from, *to - 1, 0, UINT8_MAX, dt);
    case CT_INT8:
        return check_int_range(*from, *to - 1, INT8_MIN, INT8_MAX, dt);
    case CT_UINT16:
        return check_int_range(*from, *to - 1, 0, UINT16_MAX, dt);
    case CT_INT16:
        return check_int_range(*from, *to - 1, INT16_MIN, INT16_MAX, dt);
    case CT_UINT32:
        return check_int_range(*from, *to - 1, 0, UINT32_MAX, dt);
    case CT_INT32:
        return check_int_range(*from, *to - 1, INT32_MIN, INT32_MAX, dt);
    /* uint64: PyTorch keeps both bounds in [0, INT64_MAX] */
    case CT_UINT64:
        return check_int_range(*from, *to - 1, 0, INT64_MAX, dt);
    case CT_INT64:
        return CT_OK;
    default:
        return ct_set_error(CT_ERR_RUNTIME,
                            "check_random_bounds handles only integral, floating-point and "
                            "boolean types");
    }
}

/* ---- the factory ----------------------------------------------------------------------- */

ct_status ct_tensor_randint(int64_t low, int64_t high, const int64_t *sizes, int64_t ndim,
                            ct_generator *g, ct_dtype dtype, const ct_device *device,
                            ct_layout layout, ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_randint: out is NULL");
    *out = NULL;
    ct_tensor *t;
    /* PyTorch makes the tensor first (empty's errors come first), then checks the bounds */
    CT_TRY(ct_tensor_empty(sizes, ndim, dtype == CT_DTYPE_UNDEFINED ? CT_INT64 : dtype, device,
                           layout, CT_MEMFMT_CONTIGUOUS, &t));
    ct_status st = check_bounds(t->dtype, &low, &high);
    /* meta tensors have no values to draw */
    if (st == CT_OK && t->numel > 0 && t->device.type != CT_DEVICE_META)
        st = fill(t, low, (uint64_t)high - (uint64_t)low, g);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}
