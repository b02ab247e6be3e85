/* ct_convert / ct_convert_strided: argument checks and dispatch to the loop table of the
 * active instruction-set level; and the one-element reference converter the tests use as
 * their oracle. */
#include <stdbool.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/convert.h"
#include "ctensor/cpu.h"
#include "dtype/convert/convert_impl.h"
#include "dtype/convert/loops_impl.h"

/* Own copy of the sizes so this module does not depend on the dtype table's code. */
static const unsigned char itemsizes[CT_NUM_DTYPES] = {
#define CT_DTYPE(E, name, cpp, abbr, alias, size, ...) [CT_##E] = size,
#include "ctensor/dtypes.def"
#undef CT_DTYPE
};

static bool valid(ct_dtype d) { return (int)d >= 0 && (int)d < CT_NUM_DTYPES; }

const ct_convert_loop_table *ct_convert_impl_active_loops(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_convert_loops_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_convert_loops_avx2;
#endif
    default:
        return &ct_convert_loops_baseline;
    }
}

const ct_convert_stream_table *ct_convert_impl_active_stream(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_convert_stream_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_convert_stream_avx2;
#endif
    default:
        return &ct_convert_stream_baseline;
    }
}

/* ct_convert_strided under the name of the public function called (fn), for messages. */
static ct_status convert(const char *fn, ct_dtype dst_dtype, void *dst, ptrdiff_t dst_stride,
                         ct_dtype src_dtype, const void *src, ptrdiff_t src_stride, size_t n) {
    ct_status st = CT_OK;
    CT_CHECK(valid(src_dtype), CT_ERR_MISUSE, "%s: invalid dtype value %d", fn, (int)src_dtype);
    CT_CHECK(valid(dst_dtype), CT_ERR_MISUSE, "%s: invalid dtype value %d", fn, (int)dst_dtype);
    CT_CHECK((dst_dtype == CT_FLOAT4_E2M1FN_X2) == (src_dtype == CT_FLOAT4_E2M1FN_X2),
             CT_ERR_NOT_IMPLEMENTED, "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
    if (n == 0)
        return CT_OK;
    CT_CHECK(dst != NULL && src != NULL, CT_ERR_MISUSE,
             "%s: dst and src must not be NULL when n > 0", fn);
    /* same dtype: a byte copy, except bool -> bool, which writes 0/1 like PyTorch's copy_ */
    (*ct_convert_impl_active_loops())[dst_dtype][src_dtype](dst, dst_stride, src, src_stride, n);
    return CT_OK;
fail:
    return st;
}

ct_status ct_convert(ct_dtype dst_dtype, void *dst, ct_dtype src_dtype, const void *src, size_t n) {
    ptrdiff_t ds = valid(dst_dtype) ? (ptrdiff_t)itemsizes[dst_dtype] : 0;
    ptrdiff_t ss = valid(src_dtype) ? (ptrdiff_t)itemsizes[src_dtype] : 0;
    return convert("ct_convert", dst_dtype, dst, ds, src_dtype, src, ss, n);
}

ct_status ct_convert_strided(ct_dtype dst_dtype, void *dst, ptrdiff_t dst_stride,
                             ct_dtype src_dtype, const void *src, ptrdiff_t src_stride, size_t n) {
    return convert("ct_convert_strided", dst_dtype, dst, dst_stride, src_dtype, src, src_stride,
                   n);
}

/* ---- the reference --------------------------------------------------------------------- */

/* An element loaded as one of seven kinds. float32 and complex64 stay in float so that NaN
 * payloads pass through untouched where PyTorch's do (widening a float to double would
 * quieten a signalling NaN). */
typedef enum { V_BOOL, V_I64, V_U64, V_F32, V_F64, V_C64, V_C128 } value_kind;

typedef struct value {
    value_kind kind;
    bool b;
    int64_t i;
    uint64_t u;
    float fre, fim;
    double dre, dim;
} value;

static value load(ct_dtype dt, const void *p) {
    value v;
    memset(&v, 0, sizeof v);
    unsigned char raw[16];
    memcpy(raw, p, itemsizes[dt]);
    switch (dt) {
    case CT_BOOL:
        v.kind = V_BOOL;
        v.b = raw[0] != 0;
        break;
    case CT_UINT8:
    case CT_UINT16:
    case CT_UINT32:
    case CT_UINT64:
        v.kind = V_U64;
        for (size_t k = itemsizes[dt]; k-- > 0;) /* little-endian bytes */
            v.u = (v.u << 8) | raw[k];
        break;
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64: {
        /* sign-extend from the top byte */
        size_t size = itemsizes[dt];
        uint64_t u = (raw[size - 1] & 0x80u) ? UINT64_MAX : 0;
        for (size_t k = size; k-- > 0;)
            u = (u << 8) | raw[k];
        v.kind = V_I64;
        v.i = (int64_t)u; /* two's complement, as everywhere ctensor runs */
        break;
    }
    case CT_FLOAT16:
    case CT_BFLOAT16: {
        uint16_t h;
        memcpy(&h, raw, 2);
        v.kind = V_F32;
        v.fre = dt == CT_FLOAT16 ? ct_half_to_float(h) : ct_bfloat16_to_float(h);
        break;
    }
    case CT_FLOAT32:
        v.kind = V_F32;
        memcpy(&v.fre, raw, 4);
        break;
    case CT_FLOAT64:
        v.kind = V_F64;
        memcpy(&v.dre, raw, 8);
        break;
    case CT_COMPLEX32: {
        ct_complex32 c;
        memcpy(&c, raw, sizeof c);
        v.kind = V_C64;
        v.fre = ct_half_to_float(c.re);
        v.fim = ct_half_to_float(c.im);
        break;
    }
    case CT_COMPLEX64: {
        ct_complex64 c;
        memcpy(&c, raw, sizeof c);
        v.kind = V_C64;
        v.fre = c.re;
        v.fim = c.im;
        break;
    }
    case CT_COMPLEX128: {
        ct_complex128 c;
        memcpy(&c, raw, sizeof c);
        v.kind = V_C128;
        v.dre = c.re;
        v.dim = c.im;
        break;
    }
    default: /* the float8 formats */
        v.kind = V_F32;
        v.fre = ct_float8_to_float(dt, raw[0]);
        break;
    }
    return v;
}

/* x != 0 (NaN is true); complex: either part. */
static bool truth(const value *v) {
    switch (v->kind) {
    case V_BOOL:
        return v->b;
    case V_I64:
        return v->i != 0;
    case V_U64:
        return v->u != 0;
    case V_F32:
        return v->fre != 0.0f;
    case V_F64:
        return v->dre != 0.0;
    case V_C64:
        return v->fre != 0.0f || v->fim != 0.0f;
    default:
        return v->dre != 0.0 || v->dim != 0.0;
    }
}

/* The real part as float32 (integers rounded to nearest even by the C cast). */
static float real_f32(const value *v) {
    switch (v->kind) {
    case V_BOOL:
        return v->b ? 1.0f : 0.0f;
    case V_I64:
        return (float)v->i;
    case V_U64:
        return (float)v->u;
    case V_F32:
    case V_C64:
        return v->fre;
    default:
        return (float)v->dre;
    }
}

static double real_f64(const value *v) {
    switch (v->kind) {
    case V_BOOL:
        return v->b ? 1.0 : 0.0;
    case V_I64:
        return (double)v->i;
    case V_U64:
        return (double)v->u;
    case V_F32:
    case V_C64:
        return (double)v->fre;
    default:
        return v->dre;
    }
}

static float imag_f32(const value *v) {
    return v->kind == V_C64 ? v->fim : v->kind == V_C128 ? (float)v->dim : 0.0f;
}

static double imag_f64(const value *v) {
    return v->kind == V_C64 ? (double)v->fim : v->kind == V_C128 ? v->dim : 0.0;
}

/* Note [float to int] (codec_impl.h) written out with branches. */
static uint64_t truncate_to(ct_dtype dt, double x) {
    int64_t t64 = (x >= -0x1p63 && x < 0x1p63) ? (int64_t)x : INT64_MIN;
    int32_t t32 = (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
    switch (dt) {
    case CT_INT64:
    case CT_UINT8:
    case CT_UINT32:
        return (uint64_t)t64;
    case CT_UINT64:
        if (x >= 0x1p63) {
            double y = x - 0x1p63;
            int64_t t = (y >= -0x1p63 && y < 0x1p63) ? (int64_t)y : INT64_MIN;
            return (uint64_t)t ^ (UINT64_C(1) << 63);
        }
        return (uint64_t)t64;
    default: /* int32, int16, int8, uint16: through the 32-bit truncation */
        return (uint64_t)(uint32_t)t32;
    }
}

/* The integer value (its low bits are kept by the caller). */
static uint64_t integer_bits(ct_dtype dt, const value *v) {
    switch (v->kind) {
    case V_BOOL:
        return v->b;
    case V_I64:
        return (uint64_t)v->i;
    case V_U64:
        return v->u;
    case V_F32:
    case V_C64:
        return truncate_to(dt, (double)v->fre);
    default:
        return truncate_to(dt, v->dre);
    }
}

static void store(ct_dtype dt, void *p, const value *v) {
    unsigned char raw[16];
    switch (dt) {
    case CT_BOOL:
        raw[0] = truth(v) ? 1 : 0;
        break;
    case CT_UINT8:
    case CT_INT8:
    case CT_UINT16:
    case CT_INT16:
    case CT_UINT32:
    case CT_INT32:
    case CT_UINT64:
    case CT_INT64: {
        uint64_t x = integer_bits(dt, v);
        for (size_t k = 0; k < itemsizes[dt]; k++) /* the low bytes, little-endian order */
            raw[k] = (unsigned char)(x >> (8 * k));
        break;
    }
    case CT_FLOAT16:
    case CT_BFLOAT16: {
        float x = real_f32(v);
        uint16_t h = dt == CT_FLOAT16 ? ct_float_to_half(x) : ct_float_to_bfloat16(x);
        memcpy(raw, &h, 2);
        break;
    }
    case CT_FLOAT32: {
        float x = real_f32(v);
        memcpy(raw, &x, 4);
        break;
    }
    case CT_FLOAT64: {
        double x = real_f64(v);
        memcpy(raw, &x, 8);
        break;
    }
    case CT_COMPLEX32: {
        ct_complex32 c = {ct_float_to_half(real_f32(v)), ct_float_to_half(imag_f32(v))};
        memcpy(raw, &c, sizeof c);
        break;
    }
    case CT_COMPLEX64: {
        ct_complex64 c = {real_f32(v), imag_f32(v)};
        memcpy(raw, &c, sizeof c);
        break;
    }
    case CT_COMPLEX128: {
        ct_complex128 c = {real_f64(v), imag_f64(v)};
        memcpy(raw, &c, sizeof c);
        break;
    }
    default: /* float8 */
        raw[0] = ct_float_to_float8(dt, real_f32(v));
        break;
    }
    memcpy(p, raw, itemsizes[dt]);
}

void ct_convert_impl_reference(ct_dtype dst_dtype, void *dst, ct_dtype src_dtype, const void *src) {
    if (dst_dtype == src_dtype && dst_dtype != CT_BOOL) {
        memmove(dst, src, itemsizes[dst_dtype]);
        return;
    }
    if (src_dtype == CT_COMPLEX32 && dst_dtype == CT_FLOAT16) {
        /* the real part as it is, not decoded and re-encoded (PyTorch 1.13 keeps NaN
         * payloads here, while float16 -> complex32 goes through float32) */
        memmove(dst, src, 2);
        return;
    }
    value v = load(src_dtype, src);
    store(dst_dtype, dst, &v);
}
