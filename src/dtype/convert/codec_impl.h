/* Branch-free element codecs for the array loops (loops.c, compiled once per ISA level).
 *
 * Every function here computes all candidate results and selects among them (conditional
 * expressions or masks), so the compiler can turn a plain for-loop over them into vector
 * code. Each one must give exactly the bytes of the scalar codecs in half.c, float8.c and
 * of the reference in convert.c; test_convert checks that at every level. Like PyTorch's,
 * they assume the default floating-point environment (round to nearest, no FTZ/DAZ): the
 * subnormal paths let the FPU do the rounding.
 *
 * The GPU uses these same functions (Note [One definition per element] in
 * src/kernels/binary_elem.h): under nvcc CT_CVT_INLINE is `__host__ __device__
 * __forceinline__`, the bit casts use the CUDA intrinsics, and the .cu files are compiled
 * without FMA contraction and without flushing subnormals (nvcc's defaults -ftz=false,
 * -prec-div=true, plus --fmad=false), so every float step rounds as on the cpu. Keep the code
 * valid C++ (no compound literals), with fixed-size integer casts only. */
#ifndef CT_DTYPE_CONVERT_CODEC_IMPL_H
#define CT_DTYPE_CONVERT_CODEC_IMPL_H

#include <stdint.h>
#include <string.h>

/* Forced inlining: loops.c stamps hundreds of loops into one unit, and gcc's unit-growth
 * limit would otherwise leave calls to these in the hot loops (and so no vectorization). */
#if defined(__CUDACC__) && defined(CT_CUDA_CVT_CALLS)
/* CT_CUDA_COMPILE_CHECK (CMakeLists.txt): conversions as calls, which nvcc compiles about 20
 * times faster than forced inlining into every op x dtype kernel, for slower kernels: a
 * build that only checks that the device code compiles (CI has no GPU) */
#define CT_CVT_INLINE static __host__ __device__ __noinline__
#elif defined(__CUDACC__)
#define CT_CVT_INLINE __host__ __device__ __forceinline__
#elif defined(CT_CVT_INLINE)
/* the includer chose (the tests' host-executed launches: forced inlining of every
 * conversion into every op x dtype instance cost minutes of compile time there) */
#elif defined(__GNUC__)
#define CT_CVT_INLINE static inline __attribute__((always_inline))
#else
#define CT_CVT_INLINE static inline
#endif

CT_CVT_INLINE uint32_t ct_cvt_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

CT_CVT_INLINE float ct_cvt_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* c ? x : y as mask arithmetic, for every select downstream of floating-point work: with
 * plain conditionals gcc turns them into branches, sinks the FP work into one of them, and
 * then (under the default -ftrapping-math) may not speculate it back: no vectorization. */
CT_CVT_INLINE uint32_t ct_cvt_sel(int c, uint32_t x, uint32_t y) {
    uint32_t m = 0u - (uint32_t)(c != 0);
    return (x & m) | (y & ~m);
}

/* ---- float16 ------------------------------------------------------------------------- */

CT_CVT_INLINE uint16_t ct_cvt_f32_to_f16(float x) {
    uint32_t f = ct_cvt_bits(x);
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t a = f & 0x7FFFFFFFu;
    /* |x| < 2^-14: adding 0.5 (whose ulp is 2^-24, the float16 subnormal step) makes the
     * FPU round to nearest-even for us; the low bits are then the subnormal code. */
    uint32_t sub = ct_cvt_bits(ct_cvt_float(a) + 0.5f) - 0x3F000000u;
    /* normal: rebias 127 -> 15, add half an ulp minus one plus the kept lsb, truncate */
    uint32_t nrm = (a - 0x38000000u + 0xFFFu + ((a >> 13) & 1u)) >> 13;
    nrm = nrm < 0x7C00u ? nrm : 0x7C00u; /* overflow is inf: nrm grows with |x| */
    uint32_t r = ct_cvt_sel(a < 0x38800000u, sub, nrm);
    r = ct_cvt_sel(a > 0x7F800000u, 0x7E00u, r); /* NaN: canonical quiet NaN, sign kept */
    return (uint16_t)(sign | r);
}

CT_CVT_INLINE float ct_cvt_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t a = (uint32_t)h & 0x7FFFu;
    /* exponent 31 (inf/NaN) maps to 255; a NaN is quietened the way vcvtph2ps does it */
    uint32_t rebias = a >= 0x7C00u ? 0x70000000u : 0x38000000u;
    uint32_t quiet = a > 0x7C00u ? 0x00400000u : 0u;
    uint32_t nrm = ((a << 13) + rebias) | quiet;
    uint32_t sub = ct_cvt_bits((float)a * 0x1p-24f); /* exact: a < 2^10 */
    return ct_cvt_float(sign | ct_cvt_sel(a < 0x400u, sub, nrm));
}

/* ---- bfloat16 ------------------------------------------------------------------------ */

/* NaN -> 0xFFFF: see Note [bfloat16 NaN] in half.c. */
CT_CVT_INLINE uint16_t ct_cvt_f32_to_bf16(float x) {
    uint32_t f = ct_cvt_bits(x);
    uint32_t r = (f + 0x7FFFu + ((f >> 16) & 1u)) >> 16;
    return (uint16_t)((f & 0x7FFFFFFFu) > 0x7F800000u ? 0xFFFFu : r);
}

CT_CVT_INLINE float ct_cvt_bf16_to_f32(uint16_t b) { return ct_cvt_float((uint32_t)b << 16); }

/* ---- float8 -------------------------------------------------------------------------- */

/* The special-code families of the float8 formats. */
enum { CT_F8_FN = 0, CT_F8_IEEE = 1, CT_F8_FNUZ = 2 };

/* Generic encoder; every argument is a literal at each call, so it folds into straight-line
 * code per format. `over` is the code of magnitudes that round past the largest finite
 * value: since the normal-range code grows monotonically with |x| (NaN bit patterns being
 * the largest), clamping it there handles overflow, inf and, where `nan` == `over`, NaN. */
CT_CVT_INLINE uint8_t ct_cvt_f8_encode(float x, unsigned mbits, unsigned bias, uint32_t over,
                                       uint32_t nan, int family) {
    uint32_t f = ct_cvt_bits(x);
    uint32_t sign = f & 0x80000000u;
    uint32_t a = f ^ sign;
    /* subnormal range: a constant whose ulp is the format's smallest subnormal */
    uint32_t kbits = (151u - bias - mbits) << 23;
    uint32_t sub = ct_cvt_bits(ct_cvt_float(a) + ct_cvt_float(kbits)) - kbits;
    unsigned sh = 23u - mbits;
    uint32_t nrm = (a - ((127u - bias) << 23) + ((1u << (sh - 1u)) - 1u) + ((a >> sh) & 1u)) >> sh;
    nrm = nrm < over ? nrm : over;
    uint32_t code = ct_cvt_sel(a < ((128u - bias) << 23), sub, nrm);
    if (nan != over)
        code = ct_cvt_sel(a > 0x7F800000u, nan, code);
    uint32_t s8 = sign >> 24;
    if (family == CT_F8_FNUZ)
        s8 = code == 0u ? 0u : s8; /* no negative zero (and 0x80, NaN, has the bit anyway) */
    return (uint8_t)(code | s8);
}

/* e8m0fnu: the exponent field, rounded up when the dropped part is above one half or
 * exactly one half of a normal number (PyTorch's guard/round/sticky rule); inf/NaN -> 0xFF. */
CT_CVT_INLINE uint8_t ct_cvt_f32_to_e8m0(float x) {
    uint32_t f = ct_cvt_bits(x);
    uint32_t e = (f >> 23) & 0xFFu;
    uint32_t rest = (f & 0x3FFFFFu) | (e != 0u ? 1u : 0u); /* lower bits, or implicit bit */
    uint32_t up = ((f >> 22) & 1u) & (rest != 0u ? 1u : 0u);
    return (uint8_t)(e == 0xFFu ? 0xFFu : e + up);
}

/* Generic decoder; the NaN bit patterns are those PyTorch's decoders produce. */
CT_CVT_INLINE float ct_cvt_f8_decode(uint8_t b, unsigned mbits, unsigned bias, int family) {
    uint32_t sign = ((uint32_t)b & 0x80u) << 24;
    uint32_t a = (uint32_t)b & 0x7Fu;
    uint32_t m = a & ((1u << mbits) - 1u);
    uint32_t nrm = (a << (23u - mbits)) + ((127u - bias) << 23);
    uint32_t sub = ct_cvt_bits((float)m * ct_cvt_float((128u - bias - mbits) << 23));
    uint32_t r = sign | ct_cvt_sel(a < (1u << mbits), sub, nrm);
    if (family == CT_F8_FN)
        r = ct_cvt_sel(a == 0x7Fu, sign | 0x7FF00000u, r);
    else if (family == CT_F8_IEEE) /* as float16 with the low byte zero, quietened */
        r = ct_cvt_sel(a >= 0x7Cu, sign | 0x7F800000u | (m << 21) | (m != 0u ? 0x00400000u : 0u),
                       r);
    else
        r = ct_cvt_sel(b == 0x80u, 0x7F800001u, r);
    return ct_cvt_float(r);
}

CT_CVT_INLINE float ct_cvt_e8m0_to_f32(uint8_t b) {
    uint32_t r = (uint32_t)b << 23;
    r = b == 0u ? 0x00400000u : r; /* 2^-127, there is no zero */
    r = b == 0xFFu ? 0x7F800001u : r;
    return ct_cvt_float(r);
}

/* One row per float8 format, as PyTorch's Float8_*.h define them: mantissa bits, bias,
 * overflow code, NaN code. */
#define ct_cvt_f32_to_e4m3fn(x) ct_cvt_f8_encode((x), 3u, 7u, 0x7Fu, 0x7Fu, CT_F8_FN)
#define ct_cvt_f32_to_e5m2(x) ct_cvt_f8_encode((x), 2u, 15u, 0x7Cu, 0x7Fu, CT_F8_IEEE)
#define ct_cvt_f32_to_e4m3fnuz(x) ct_cvt_f8_encode((x), 3u, 8u, 0x80u, 0x80u, CT_F8_FNUZ)
#define ct_cvt_f32_to_e5m2fnuz(x) ct_cvt_f8_encode((x), 2u, 16u, 0x80u, 0x80u, CT_F8_FNUZ)
#define ct_cvt_e4m3fn_to_f32(b) ct_cvt_f8_decode((b), 3u, 7u, CT_F8_FN)
#define ct_cvt_e5m2_to_f32(b) ct_cvt_f8_decode((b), 2u, 15u, CT_F8_IEEE)
#define ct_cvt_e4m3fnuz_to_f32(b) ct_cvt_f8_decode((b), 3u, 8u, CT_F8_FNUZ)
#define ct_cvt_e5m2fnuz_to_f32(b) ct_cvt_f8_decode((b), 2u, 16u, CT_F8_FNUZ)

/* ---- float -> integer ----------------------------------------------------------------
 *
 * Note [float to int]
 * C leaves float -> integer undefined outside the target's range (and for NaN/inf);
 * PyTorch keeps whatever x86-64 computes, so ctensor defines exactly that:
 *   t64(x) = trunc(x) if -2^63 <= x < 2^63, else INT64_MIN   (cvttsd2si, 64-bit)
 *   t32(x) = trunc(x) if -2^31 - 1 < x < 2^31, else INT32_MIN (cvttsd2si, 32-bit)
 *   int64 = t64; int32, int16, int8 = low bits of t32; uint8 = low 8 bits of t64 (PyTorch
 *   routes uint8 through int64 on purpose); uint16 = low 16 bits of t32; uint32 = low 32
 *   bits of t64; uint64 = x >= 2^63 ? t64(x - 2^63) with bit 63 flipped : t64(x).
 * The unsigned rules are what gcc emits for static_cast from double on x86-64, which is
 * what newest PyTorch's c10::convert computes there. Against NumPy 1.24 on the same
 * machine: uint16 and uint64 agree for every input (NaN, inf, out of range included);
 * uint32 agrees for -2^31 <= x < 2^32 but not beyond (NumPy returns 0 or 2^31 there, and
 * differs between its own scalar and vector loops for -inf), so NumPy is not the rule.
 * Float32 sources follow the same rules (every float32 is exact in double); float16,
 * bfloat16 and float8 are widened to float32 first.
 * No out-of-range value ever reaches a C cast: the input is replaced by 0 first (UBSan
 * stays clean, and the select keeps the loops vectorizable). */

CT_CVT_INLINE int64_t ct_cvt_f64_t64(double x) {
    int ok = x >= -0x1p63 && x < 0x1p63;
    int64_t r = (int64_t)(ok ? x : 0.0);
    return ok ? r : INT64_MIN;
}

CT_CVT_INLINE int32_t ct_cvt_f64_t32(double x) {
    int ok = x > -0x1.00000002p31 && x < 0x1p31; /* (-2^31 - 1, 2^31) truncates in range */
    int32_t r = (int32_t)(ok ? x : 0.0);
    return ok ? r : INT32_MIN;
}

CT_CVT_INLINE int64_t ct_cvt_f32_t64(float x) {
    int ok = x >= -0x1p63f && x < 0x1p63f;
    int64_t r = (int64_t)(ok ? x : 0.0f);
    return ok ? r : INT64_MIN;
}

CT_CVT_INLINE int32_t ct_cvt_f32_t32(float x) {
    int ok = x >= -0x1p31f && x < 0x1p31f; /* no float32 lies strictly inside (-2^31-1, -2^31) */
    int32_t r = (int32_t)(ok ? x : 0.0f);
    return ok ? r : INT32_MIN;
}

CT_CVT_INLINE uint64_t ct_cvt_f64_u64(double x) {
    int hi = x >= 0x1p63;
    uint64_t r = (uint64_t)ct_cvt_f64_t64(hi ? x - 0x1p63 : x);
    return hi ? r ^ 0x8000000000000000u : r;
}

CT_CVT_INLINE uint64_t ct_cvt_f32_u64(float x) { return ct_cvt_f64_u64((double)x); }

/* Narrow results keep the low bits; the conversions of out-of-range unsigned values to the
 * signed types are modular in gcc and clang (implementation-defined in ISO C). */
#define ct_cvt_f64_to_i64(x) ct_cvt_f64_t64(x)
#define ct_cvt_f64_to_i32(x) ct_cvt_f64_t32(x)
#define ct_cvt_f64_to_i16(x) ((int16_t)(uint16_t)(uint32_t)ct_cvt_f64_t32(x))
#define ct_cvt_f64_to_i8(x) ((int8_t)(uint8_t)(uint32_t)ct_cvt_f64_t32(x))
#define ct_cvt_f64_to_u8(x) ((uint8_t)(uint64_t)ct_cvt_f64_t64(x))
#define ct_cvt_f64_to_u16(x) ((uint16_t)(uint32_t)ct_cvt_f64_t32(x))
#define ct_cvt_f64_to_u32(x) ((uint32_t)(uint64_t)ct_cvt_f64_t64(x))
#define ct_cvt_f64_to_u64(x) ct_cvt_f64_u64(x)
#define ct_cvt_f32_to_i64(x) ct_cvt_f32_t64(x)
#define ct_cvt_f32_to_i32(x) ct_cvt_f32_t32(x)
#define ct_cvt_f32_to_i16(x) ((int16_t)(uint16_t)(uint32_t)ct_cvt_f32_t32(x))
#define ct_cvt_f32_to_i8(x) ((int8_t)(uint8_t)(uint32_t)ct_cvt_f32_t32(x))
/* float32 -> uint8 may use t32: a float32 of magnitude >= 2^31 is a multiple of 2^8, so the
 * low byte of t64 is 0 there, as is that of t32's INT32_MIN (and t32 vectorizes on AVX2). */
#define ct_cvt_f32_to_u8(x) ((uint8_t)(uint32_t)ct_cvt_f32_t32(x))
#define ct_cvt_f32_to_u16(x) ((uint16_t)(uint32_t)ct_cvt_f32_t32(x))
#define ct_cvt_f32_to_u32(x) ((uint32_t)(uint64_t)ct_cvt_f32_t64(x))
#define ct_cvt_f32_to_u64(x) ct_cvt_f32_u64(x)

#endif /* CT_DTYPE_CONVERT_CODEC_IMPL_H */
