/* One element converted between any two dtypes, exactly as the cpu copy converts it.
 *
 * The cpu copy (copy_ and every dtype change) goes through the loop table of loops.c, whose
 * pairs are stamped from two row lists: how a source dtype loads (a value of one of seven
 * kinds) and how a destination dtype stores each kind. This header is the same rule spelt
 * as one load (switch on the source dtype) and one store (switch on the destination dtype),
 * for code that has the dtypes at run time: the GPU kernels (src/cuda/kernels_*.cu) compile it under
 * nvcc with the codecs of codec_impl.h (Note [One definition per element] in
 * src/kernels/binary_elem.h). Loading an integer into a 64-bit one of its signedness first
 * changes nothing: integer -> float conversions round the exact value once, and integer
 * stores keep the low bits. test_launch_dispatch compares it with ct_convert pair by pair.
 * Same-dtype pairs are byte copies in loops.c (NaN payloads kept): ct_cvt_elem copies the
 * bytes too, except bool, which is normalised to 0/1 as there. float4_e2m1fn_x2 converts
 * only to itself. */
#ifndef CT_DTYPE_CONVERT_ELEM_IMPL_H
#define CT_DTYPE_CONVERT_ELEM_IMPL_H

#include <stdint.h>
#include <string.h>

#include "ctensor/convert.h"
#include "ctensor/dtype.h"
#include "dtype/convert/codec_impl.h"

/* Element access: typed on the GPU (tensors there are aligned to their element size, and a
 * byte-wise memcpy would cost a load per byte), memcpy in C (strided host buffers need not
 * be aligned). */
#if defined(__CUDACC__)
template <typename T> __host__ __device__ __forceinline__ void ct_cvt_read(T *x, const void *p) {
    *x = *(const T *)p;
}
template <typename T> __host__ __device__ __forceinline__ void ct_cvt_write(void *p, const T *x) {
    *(T *)p = *x;
}
#else
#define ct_cvt_read(x, p) memcpy((x), (p), sizeof *(x))
#define ct_cvt_write(p, x) memcpy((p), (x), sizeof *(x))
#endif

/* The kinds a source element loads as (loops.c's I, F, D, CF, CD, CH; I split by sign). */
enum { CT_CV_S = 0, CT_CV_U, CT_CV_F, CT_CV_D, CT_CV_CF, CT_CV_CD, CT_CV_CH };

typedef struct ct_cvt_value {
    int kind;
    int64_t s;        /* CT_CV_S */
    uint64_t u;       /* CT_CV_U (bool as 0/1) */
    float f, fi;      /* CT_CV_F (float32 and everything narrower, decoded), CT_CV_CF */
    double d, di;     /* CT_CV_D, CT_CV_CD */
    ct_complex32 h;   /* CT_CV_CH: complex32 as stored */
} ct_cvt_value;

CT_CVT_INLINE ct_cvt_value ct_cvt_load(ct_dtype dt, const void *p) {
    ct_cvt_value v;
    v.kind = CT_CV_U;
    v.s = 0;
    v.u = 0;
    v.f = v.fi = 0.0f;
    v.d = v.di = 0.0;
    v.h.re = v.h.im = 0;
#define CT_CV_INT(E, T, K, F)                                                                      \
    case CT_##E: {                                                                                 \
        T x;                                                                                       \
        ct_cvt_read(&x, p);                                                                        \
        v.kind = K;                                                                                \
        v.F = x;                                                                                   \
        break;                                                                                     \
    }
#define CT_CV_NARROW(E, T, DECODE)                                                                 \
    case CT_##E: {                                                                                 \
        T x;                                                                                       \
        ct_cvt_read(&x, p);                                                                        \
        v.kind = CT_CV_F;                                                                          \
        v.f = DECODE(x);                                                                           \
        break;                                                                                     \
    }
    switch (dt) {
    case CT_BOOL: {
        uint8_t x;
        ct_cvt_read(&x, p);
        v.u = x != 0; /* any nonzero byte is true */
        break;
    }
        CT_CV_INT(UINT8, uint8_t, CT_CV_U, u)
        CT_CV_INT(UINT16, uint16_t, CT_CV_U, u)
        CT_CV_INT(UINT32, uint32_t, CT_CV_U, u)
        CT_CV_INT(UINT64, uint64_t, CT_CV_U, u)
        CT_CV_INT(INT8, int8_t, CT_CV_S, s)
        CT_CV_INT(INT16, int16_t, CT_CV_S, s)
        CT_CV_INT(INT32, int32_t, CT_CV_S, s)
        CT_CV_INT(INT64, int64_t, CT_CV_S, s)
        CT_CV_INT(FLOAT32, float, CT_CV_F, f)
        CT_CV_INT(FLOAT64, double, CT_CV_D, d)
        CT_CV_NARROW(FLOAT16, uint16_t, ct_cvt_f16_to_f32)
        CT_CV_NARROW(BFLOAT16, uint16_t, ct_cvt_bf16_to_f32)
        CT_CV_NARROW(FLOAT8_E4M3FN, uint8_t, ct_cvt_e4m3fn_to_f32)
        CT_CV_NARROW(FLOAT8_E5M2, uint8_t, ct_cvt_e5m2_to_f32)
        CT_CV_NARROW(FLOAT8_E4M3FNUZ, uint8_t, ct_cvt_e4m3fnuz_to_f32)
        CT_CV_NARROW(FLOAT8_E5M2FNUZ, uint8_t, ct_cvt_e5m2fnuz_to_f32)
        CT_CV_NARROW(FLOAT8_E8M0FNU, uint8_t, ct_cvt_e8m0_to_f32)
    case CT_COMPLEX32:
        ct_cvt_read(&v.h, p);
        v.kind = CT_CV_CH;
        break;
    case CT_COMPLEX64: {
        ct_complex64 x;
        ct_cvt_read(&x, p);
        v.kind = CT_CV_CF;
        v.f = x.re;
        v.fi = x.im;
        break;
    }
    case CT_COMPLEX128: {
        ct_complex128 x;
        ct_cvt_read(&x, p);
        v.kind = CT_CV_CD;
        v.d = x.re;
        v.di = x.im;
        break;
    }
    default: /* float4_e2m1fn_x2: never converted (only copied to itself) */
        break;
    }
#undef CT_CV_INT
#undef CT_CV_NARROW
    return v;
}

/* The real and imaginary parts as float and as double, the way loops.c's stores take them:
 * integers and doubles are rounded to float once ((float)v), complex32 parts decoded. */
CT_CVT_INLINE float ct_cvt_re32(const ct_cvt_value *v) {
    switch (v->kind) {
    case CT_CV_S:
        return (float)v->s;
    case CT_CV_U:
        return (float)v->u;
    case CT_CV_D:
    case CT_CV_CD:
        return (float)v->d;
    case CT_CV_CH:
        return ct_cvt_f16_to_f32(v->h.re);
    default:
        return v->f;
    }
}

CT_CVT_INLINE float ct_cvt_im32(const ct_cvt_value *v) {
    switch (v->kind) {
    case CT_CV_CF:
        return v->fi;
    case CT_CV_CD:
        return (float)v->di;
    case CT_CV_CH:
        return ct_cvt_f16_to_f32(v->h.im);
    default:
        return 0.0f;
    }
}

CT_CVT_INLINE double ct_cvt_re64(const ct_cvt_value *v) {
    switch (v->kind) {
    case CT_CV_S:
        return (double)v->s;
    case CT_CV_U:
        return (double)v->u;
    case CT_CV_D:
    case CT_CV_CD:
        return v->d;
    default: /* F, CF, CH: through their float value */
        return (double)ct_cvt_re32(v);
    }
}

CT_CVT_INLINE double ct_cvt_im64(const ct_cvt_value *v) {
    return v->kind == CT_CV_CD ? v->di : (double)ct_cvt_im32(v);
}

/* Whether the value converts to an integer through double (D, CD) rather than float. */
CT_CVT_INLINE int ct_cvt_wide(const ct_cvt_value *v) {
    return v->kind == CT_CV_D || v->kind == CT_CV_CD;
}

CT_CVT_INLINE void ct_cvt_store(ct_dtype dt, void *p, const ct_cvt_value *v) {
    int isint = v->kind == CT_CV_S || v->kind == CT_CV_U;
    /* integer sources keep their low bits (two's complement) */
    uint64_t bits = v->kind == CT_CV_S ? (uint64_t)v->s : v->u;
#define CT_CV_TOINT(E, T, a)                                                                       \
    case CT_##E: {                                                                                 \
        T x = isint            ? (T)bits                                                           \
              : ct_cvt_wide(v) ? (T)ct_cvt_f64_to_##a(ct_cvt_re64(v))                              \
                               : (T)ct_cvt_f32_to_##a(ct_cvt_re32(v));                             \
        ct_cvt_write(p, &x);                                                                       \
        break;                                                                                     \
    }
#define CT_CV_TONARROW(E, T, ENCODE)                                                               \
    case CT_##E: {                                                                                 \
        T x = (T)ENCODE(ct_cvt_re32(v));                                                           \
        ct_cvt_write(p, &x);                                                                       \
        break;                                                                                     \
    }
    switch (dt) {
    case CT_BOOL: {
        uint8_t x;
        if (isint)
            x = (uint8_t)(bits != 0);
        else if (ct_cvt_wide(v)) /* NaN is true, -0.0 false */
            x = (uint8_t)(ct_cvt_re64(v) != 0.0 || ct_cvt_im64(v) != 0.0);
        else
            x = (uint8_t)(ct_cvt_re32(v) != 0.0f || ct_cvt_im32(v) != 0.0f);
        ct_cvt_write(p, &x);
        break;
    }
        CT_CV_TOINT(UINT8, uint8_t, u8)
        CT_CV_TOINT(INT8, int8_t, i8)
        CT_CV_TOINT(UINT16, uint16_t, u16)
        CT_CV_TOINT(INT16, int16_t, i16)
        CT_CV_TOINT(UINT32, uint32_t, u32)
        CT_CV_TOINT(INT32, int32_t, i32)
        CT_CV_TOINT(UINT64, uint64_t, u64)
        CT_CV_TOINT(INT64, int64_t, i64)
    case CT_FLOAT16: {
        /* complex32's real part is stored as it is, payload and all */
        uint16_t x = v->kind == CT_CV_CH ? v->h.re : ct_cvt_f32_to_f16(ct_cvt_re32(v));
        ct_cvt_write(p, &x);
        break;
    }
        CT_CV_TONARROW(BFLOAT16, uint16_t, ct_cvt_f32_to_bf16)
        CT_CV_TONARROW(FLOAT8_E4M3FN, uint8_t, ct_cvt_f32_to_e4m3fn)
        CT_CV_TONARROW(FLOAT8_E5M2, uint8_t, ct_cvt_f32_to_e5m2)
        CT_CV_TONARROW(FLOAT8_E4M3FNUZ, uint8_t, ct_cvt_f32_to_e4m3fnuz)
        CT_CV_TONARROW(FLOAT8_E5M2FNUZ, uint8_t, ct_cvt_f32_to_e5m2fnuz)
        CT_CV_TONARROW(FLOAT8_E8M0FNU, uint8_t, ct_cvt_f32_to_e8m0)
    case CT_FLOAT32: {
        float x = ct_cvt_re32(v);
        ct_cvt_write(p, &x);
        break;
    }
    case CT_FLOAT64: {
        double x = ct_cvt_re64(v);
        ct_cvt_write(p, &x);
        break;
    }
    case CT_COMPLEX32: {
        ct_complex32 x = v->h;
        if (v->kind != CT_CV_CH) {
            x.re = ct_cvt_f32_to_f16(ct_cvt_re32(v));
            x.im = ct_cvt_f32_to_f16(ct_cvt_im32(v));
        }
        ct_cvt_write(p, &x);
        break;
    }
    case CT_COMPLEX64: {
        ct_complex64 x;
        x.re = ct_cvt_re32(v);
        x.im = ct_cvt_im32(v);
        ct_cvt_write(p, &x);
        break;
    }
    case CT_COMPLEX128: {
        ct_complex128 x;
        x.re = ct_cvt_re64(v);
        x.im = ct_cvt_im64(v);
        ct_cvt_write(p, &x);
        break;
    }
    default:
        break;
    }
#undef CT_CV_TOINT
#undef CT_CV_TONARROW
}

/* Bytes per element (CT_NUM_DTYPES entries of dtypes.def), for the same-dtype byte copy. */
CT_CVT_INLINE int ct_cvt_itemsize(ct_dtype dt) {
    switch (dt) {
    case CT_BOOL:
    case CT_UINT8:
    case CT_INT8:
    case CT_FLOAT8_E4M3FN:
    case CT_FLOAT8_E5M2:
    case CT_FLOAT8_E4M3FNUZ:
    case CT_FLOAT8_E5M2FNUZ:
    case CT_FLOAT8_E8M0FNU:
    case CT_FLOAT4_E2M1FN_X2:
        return 1;
    case CT_UINT16:
    case CT_INT16:
    case CT_FLOAT16:
    case CT_BFLOAT16:
        return 2;
    case CT_UINT32:
    case CT_INT32:
    case CT_FLOAT32:
    case CT_COMPLEX32:
        return 4;
    case CT_COMPLEX128:
        return 16;
    default:
        return 8;
    }
}

/* dst (dtype dt) = src (dtype st), as ct_convert does for one element. */
CT_CVT_INLINE void ct_cvt_elem(ct_dtype dt, void *dst, ct_dtype st, const void *src) {
    if (dt == st && dt != CT_BOOL) {
        switch (ct_cvt_itemsize(dt)) {
        case 1: {
            uint8_t x;
            ct_cvt_read(&x, src);
            ct_cvt_write(dst, &x);
            break;
        }
        case 2: {
            uint16_t x;
            ct_cvt_read(&x, src);
            ct_cvt_write(dst, &x);
            break;
        }
        case 4: {
            uint32_t x;
            ct_cvt_read(&x, src);
            ct_cvt_write(dst, &x);
            break;
        }
        case 8: {
            uint64_t x;
            ct_cvt_read(&x, src);
            ct_cvt_write(dst, &x);
            break;
        }
        default: {
            ct_complex128 x; /* moved, never computed with: NaN payloads kept */
            ct_cvt_read(&x, src);
            ct_cvt_write(dst, &x);
            break;
        }
        }
        return;
    }
    ct_cvt_value v = ct_cvt_load(st, src);
    ct_cvt_store(dt, dst, &v);
}

#endif /* CT_DTYPE_CONVERT_ELEM_IMPL_H */
