/* Comparison kernels (compare.h). Compiled with -O3 (CMakeLists.txt) so that the contiguous
 * loops below vectorize at the baseline level. */
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>

#include "base/error_impl.h"
#include "dtype/convert/loops_impl.h"
#include "kernels/binary.h"
#include "kernels/binary_elem.h"
#include "kernels/compare.h"

/* Bytes per operand buffer of the conversion path. */
#define CMP_CHUNK_BYTES 4096

/* One loop per (comparison, math dtype): contiguous operands, a broadcast b or a with the
 * other contiguous, and the general strided loop. */
#define CMP_LOOP(OP, S, T)                                                                         \
    static void cmp_##OP##_##S(char *out, const char *a, const char *b, int64_t so, int64_t sa,    \
                               int64_t sb, int64_t n) {                                            \
        const int64_t z = (int64_t)sizeof(T);                                                      \
        uint8_t *o = (uint8_t *)out;                                                               \
        if (so == 1 && sa == z && sb == z) {                                                       \
            const T *x = (const T *)(const void *)a, *y = (const T *)(const void *)b;              \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = ct_k##OP##_##S(x[i], y[i]);                                                 \
        } else if (so == 1 && sa == z && sb == 0) {                                                \
            const T *x = (const T *)(const void *)a;                                               \
            T y;                                                                                   \
            memcpy(&y, b, sizeof y);                                                               \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = ct_k##OP##_##S(x[i], y);                                                    \
        } else if (so == 1 && sa == 0 && sb == z) {                                                \
            const T *y = (const T *)(const void *)b;                                               \
            T x;                                                                                   \
            memcpy(&x, a, sizeof x);                                                               \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = ct_k##OP##_##S(x, y[i]);                                                    \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x, y;                                                                            \
                memcpy(&x, a + i * sa, sizeof x);                                                  \
                memcpy(&y, b + i * sb, sizeof y);                                                  \
                out[i * so] = (char)ct_k##OP##_##S(x, y);                                          \
            }                                                                                      \
        }                                                                                          \
    }

#define CMP_REAL(S, T)                                                                             \
    CMP_LOOP(eq, S, T) CMP_LOOP(ne, S, T) CMP_LOOP(lt, S, T) CMP_LOOP(le, S, T)                    \
    CMP_LOOP(gt, S, T) CMP_LOOP(ge, S, T)
#define CMP_COMPLEX(S, T) CMP_LOOP(eq, S, T) CMP_LOOP(ne, S, T)
#define CLASS_REAL(S, T)                                                                           \
    CMP_LOOP(isnan, S, T) CMP_LOOP(isinf, S, T) CMP_LOOP(isfinite, S, T)                           \
    CMP_LOOP(isposinf, S, T) CMP_LOOP(isneginf, S, T) CMP_LOOP(isreal, S, T)
#define CLASS_COMPLEX(S, T)                                                                        \
    CMP_LOOP(isnan, S, T) CMP_LOOP(isinf, S, T) CMP_LOOP(isfinite, S, T) CMP_LOOP(isreal, S, T)

CMP_REAL(b8, uint8_t)
CMP_REAL(u8, uint8_t)
CMP_REAL(i8, int8_t)
CMP_REAL(u16, uint16_t)
CMP_REAL(i16, int16_t)
CMP_REAL(u32, uint32_t)
CMP_REAL(i32, int32_t)
CMP_REAL(u64, uint64_t)
CMP_REAL(i64, int64_t)
CMP_REAL(f32, float)
CMP_REAL(f64, double)
CMP_COMPLEX(c64, ct_complex64)
CMP_COMPLEX(c128, ct_complex128)
CLASS_REAL(b8, uint8_t)
CLASS_REAL(u8, uint8_t)
CLASS_REAL(i8, int8_t)
CLASS_REAL(u16, uint16_t)
CLASS_REAL(i16, int16_t)
CLASS_REAL(u32, uint32_t)
CLASS_REAL(i32, int32_t)
CLASS_REAL(u64, uint64_t)
CLASS_REAL(i64, int64_t)
CLASS_REAL(f32, float)
CLASS_REAL(f64, double)
CLASS_COMPLEX(c64, ct_complex64)
CLASS_COMPLEX(c128, ct_complex128)
#define LOGICAL(S, T) CMP_LOOP(land, S, T) CMP_LOOP(lor, S, T) CMP_LOOP(lxor, S, T)
LOGICAL(b8, uint8_t)
LOGICAL(u8, uint8_t)
LOGICAL(i8, int8_t)
LOGICAL(u16, uint16_t)
LOGICAL(i16, int16_t)
LOGICAL(u32, uint32_t)
LOGICAL(i32, int32_t)
LOGICAL(u64, uint64_t)
LOGICAL(i64, int64_t)
LOGICAL(f32, float)
LOGICAL(f64, double)
LOGICAL(c64, ct_complex64)
LOGICAL(c128, ct_complex128)
#define LOGICAL_ENTRIES(E, S)                                                                      \
    [CT_CMP_LOGICAL_AND][CT_##E] = cmp_land_##S, [CT_CMP_LOGICAL_OR][CT_##E] = cmp_lor_##S,        \
    [CT_CMP_LOGICAL_XOR][CT_##E] = cmp_lxor_##S,

#define CMP_ENTRIES_REAL(E, S)                                                                     \
    [CT_CMP_EQ][CT_##E] = cmp_eq_##S, [CT_CMP_NE][CT_##E] = cmp_ne_##S,                            \
    [CT_CMP_LT][CT_##E] = cmp_lt_##S, [CT_CMP_LE][CT_##E] = cmp_le_##S,                            \
    [CT_CMP_GT][CT_##E] = cmp_gt_##S, [CT_CMP_GE][CT_##E] = cmp_ge_##S,
#define CMP_ENTRIES_COMPLEX(E, S)                                                                  \
    [CT_CMP_EQ][CT_##E] = cmp_eq_##S, [CT_CMP_NE][CT_##E] = cmp_ne_##S,                            \
    [CT_CMP_ISNAN][CT_##E] = cmp_isnan_##S, [CT_CMP_ISINF][CT_##E] = cmp_isinf_##S,                \
    [CT_CMP_ISFINITE][CT_##E] = cmp_isfinite_##S, [CT_CMP_ISREAL][CT_##E] = cmp_isreal_##S,
#define CLASS_ENTRIES(E, S)                                                                        \
    [CT_CMP_ISNAN][CT_##E] = cmp_isnan_##S, [CT_CMP_ISINF][CT_##E] = cmp_isinf_##S,                \
    [CT_CMP_ISFINITE][CT_##E] = cmp_isfinite_##S, [CT_CMP_ISPOSINF][CT_##E] = cmp_isposinf_##S,    \
    [CT_CMP_ISNEGINF][CT_##E] = cmp_isneginf_##S, [CT_CMP_ISREAL][CT_##E] = cmp_isreal_##S,

static const ct_compare_loop LOOPS[CT_NUM_CMPS][CT_NUM_DTYPES] = {
    CMP_ENTRIES_REAL(BOOL, b8) CMP_ENTRIES_REAL(UINT8, u8) CMP_ENTRIES_REAL(INT8, i8)
    CMP_ENTRIES_REAL(UINT16, u16) CMP_ENTRIES_REAL(INT16, i16) CMP_ENTRIES_REAL(UINT32, u32)
    CMP_ENTRIES_REAL(INT32, i32) CMP_ENTRIES_REAL(UINT64, u64) CMP_ENTRIES_REAL(INT64, i64)
    CMP_ENTRIES_REAL(FLOAT32, f32) CMP_ENTRIES_REAL(FLOAT64, f64)
    CMP_ENTRIES_COMPLEX(COMPLEX64, c64) CMP_ENTRIES_COMPLEX(COMPLEX128, c128)
    CLASS_ENTRIES(BOOL, b8) CLASS_ENTRIES(UINT8, u8) CLASS_ENTRIES(INT8, i8)
    CLASS_ENTRIES(UINT16, u16) CLASS_ENTRIES(INT16, i16) CLASS_ENTRIES(UINT32, u32)
    CLASS_ENTRIES(INT32, i32) CLASS_ENTRIES(UINT64, u64) CLASS_ENTRIES(INT64, i64)
    CLASS_ENTRIES(FLOAT32, f32) CLASS_ENTRIES(FLOAT64, f64)
    LOGICAL_ENTRIES(BOOL, b8) LOGICAL_ENTRIES(UINT8, u8) LOGICAL_ENTRIES(INT8, i8)
    LOGICAL_ENTRIES(UINT16, u16) LOGICAL_ENTRIES(INT16, i16) LOGICAL_ENTRIES(UINT32, u32)
    LOGICAL_ENTRIES(INT32, i32) LOGICAL_ENTRIES(UINT64, u64) LOGICAL_ENTRIES(INT64, i64)
    LOGICAL_ENTRIES(FLOAT32, f32) LOGICAL_ENTRIES(FLOAT64, f64)
    LOGICAL_ENTRIES(COMPLEX64, c64) LOGICAL_ENTRIES(COMPLEX128, c128)};

/* isclose in a math dtype (ROUND names the element function's rounding variant) */
#define CLOSE_LOOP(NAME, T, FN)                                                                    \
    static void NAME(const ct_compare_kernel *k, char *out, const char *a, const char *b,         \
                     int64_t so, int64_t sa, int64_t sb, int64_t n) {                              \
        T rtol = (T)k->rtol, atol = (T)k->atol;                                                    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x, y;                                                                                \
            memcpy(&x, a + i * sa, sizeof x);                                                      \
            memcpy(&y, b + i * sb, sizeof y);                                                      \
            out[i * so] = (char)FN(x, y, rtol, atol, k->equal_nan);                                \
        }                                                                                          \
    }
#define CLOSE_LOOP_C(NAME, CT, T, FN)                                                              \
    static void NAME(const ct_compare_kernel *k, char *out, const char *a, const char *b,         \
                     int64_t so, int64_t sa, int64_t sb, int64_t n) {                              \
        T rtol = (T)k->rtol, atol = (T)k->atol;                                                    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            CT x, y;                                                                               \
            memcpy(&x, a + i * sa, sizeof x);                                                      \
            memcpy(&y, b + i * sb, sizeof y);                                                      \
            out[i * so] = (char)FN(x, y, rtol, atol, k->equal_nan);                                \
        }                                                                                          \
    }
CLOSE_LOOP(close_f32, float, ct_kisclose_f32)
CLOSE_LOOP(close_f64, double, ct_kisclose_f64)
CLOSE_LOOP(close_rf16, float, ct_kisclose_rf16)
CLOSE_LOOP(close_rbf16, float, ct_kisclose_rbf16)
CLOSE_LOOP_C(close_c64, ct_complex64, float, ct_kisclose_c64)
CLOSE_LOOP_C(close_c128, ct_complex128, double, ct_kisclose_c128)

typedef void (*close_loop)(const ct_compare_kernel *k, char *out, const char *a, const char *b,
                           int64_t so, int64_t sa, int64_t sb, int64_t n);

static close_loop close_loop_of(ct_dtype compute) {
    switch (compute) {
    case CT_FLOAT32: return close_f32;
    case CT_FLOAT64: return close_f64;
    case CT_FLOAT16: return close_rf16;
    case CT_BFLOAT16: return close_rbf16;
    case CT_COMPLEX32: /* (complex64 arithmetic: PyTorch rounds each step to complex32) */
    case CT_COMPLEX64: return close_c64;
    case CT_COMPLEX128: return close_c128;
    default: return NULL;
    }
}

/* a placeholder entry: isclose runs close_loop_of(compute) instead */
static void close_marker(char *out, const char *a, const char *b, int64_t so, int64_t sa,
                         int64_t sb, int64_t n) {
    (void)out, (void)a, (void)b, (void)so, (void)sa, (void)sb, (void)n;
}

_Static_assert(CT_BINOP_NE - CT_BINOP_EQ == CT_CMP_NE && CT_BINOP_GE - CT_BINOP_EQ == CT_CMP_GE,
               "ops.def's comparison kernel rows are in ct_cmp's order");
_Static_assert(CT_BINOP_LOGICAL_XOR - CT_BINOP_LOGICAL_AND ==
                   CT_CMP_LOGICAL_XOR - CT_CMP_LOGICAL_AND,
               "ops.def's logical kernel rows are in ct_cmp's order");

ct_compare_loop ct_compare_impl_loop(ct_cmp cmp, ct_dtype math) {
    if ((unsigned)cmp >= (unsigned)CT_NUM_CMPS || (int)math < 0 || (int)math >= CT_NUM_DTYPES)
        return NULL;
    return LOOPS[cmp][math];
}

static bool dtype_ok(ct_dtype d) { return (int)d >= 0 && (int)d < CT_NUM_DTYPES; }

ct_status ct_compare_impl_kernel_init(ct_compare_kernel *k, ct_cmp cmp, const char *name,
                                      ct_dtype compute, ct_dtype out_dtype, ct_dtype a_dtype,
                                      ct_dtype b_dtype) {
    ct_status st = CT_OK;
    CT_CHECK(k != NULL, CT_ERR_MISUSE, "compare kernel: the kernel must not be NULL");
    memset(k, 0, sizeof *k);
    CT_CHECK((unsigned)cmp < (unsigned)CT_NUM_CMPS, CT_ERR_MISUSE,
             "compare kernel: invalid comparison %d", (int)cmp);
    CT_CHECK(dtype_ok(compute) && dtype_ok(out_dtype) && dtype_ok(a_dtype) && dtype_ok(b_dtype),
             CT_ERR_MISUSE, "compare kernel: invalid dtype");
    if (name == NULL)
        name = "compare";
    ct_dtype math = ct_binary_impl_math_dtype(compute);
    ct_compare_loop loop = math == CT_DTYPE_UNDEFINED ? NULL : LOOPS[cmp][math];
    if (cmp == CT_CMP_ISCLOSE)
        loop = close_loop_of(compute) != NULL ? close_marker : NULL;
    CT_CHECK(loop != NULL, CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
             ct_dtype_cpp_name(compute));
    const ct_convert_loop_table *cvt = ct_convert_impl_active_loops();
    bool via = compute != math;
    ct_convert_loop_fn pre_a = via && a_dtype != compute ? (*cvt)[compute][a_dtype] : NULL;
    ct_convert_loop_fn pre_b = via && b_dtype != compute ? (*cvt)[compute][b_dtype] : NULL;
    ct_dtype from_a = via ? compute : a_dtype, from_b = via ? compute : b_dtype;
    ct_convert_loop_fn cvt_a = from_a == math ? NULL : (*cvt)[math][from_a];
    ct_convert_loop_fn cvt_b = from_b == math ? NULL : (*cvt)[math][from_b];
    ct_convert_loop_fn cvt_out = out_dtype == CT_BOOL ? NULL : (*cvt)[out_dtype][CT_BOOL];
    bool miss_a = (via && a_dtype != compute && pre_a == NULL) || (from_a != math && !cvt_a);
    bool miss_b = (via && b_dtype != compute && pre_b == NULL) || (from_b != math && !cvt_b);
    bool miss_out = out_dtype != CT_BOOL && cvt_out == NULL;
    ct_dtype no_cvt = miss_a ? a_dtype : miss_b ? b_dtype : miss_out ? out_dtype : CT_DTYPE_UNDEFINED;
    CT_CHECK(no_cvt == CT_DTYPE_UNDEFINED, CT_ERR_NOT_IMPLEMENTED,
             "\"%s\" not implemented for '%s'", name, ct_dtype_cpp_name(no_cvt));
    k->cmp = cmp;
    k->compute = compute;
    k->math = math;
    k->out_dtype = out_dtype;
    k->a_dtype = a_dtype;
    k->b_dtype = b_dtype;
    k->loop = loop;
    k->pre_a = (void *)pre_a;
    k->pre_b = (void *)pre_b;
    k->cvt_a = (void *)cvt_a;
    k->cvt_b = (void *)cvt_b;
    k->cvt_out = (void *)cvt_out;
    return CT_OK;
fail:
    return st;
}

/* An input's chunk in the math dtype: the operand itself, or converted into buf (through tmp
 * in the compute dtype when pre is set). A broadcast operand (stride 0) converts one element
 * and stays broadcast. */
static const char *stage(ct_convert_loop_fn pre, ct_convert_loop_fn cvt, char *tmp, char *buf,
                         const char *src, int64_t s, int64_t m, int64_t csize, int64_t msize,
                         int64_t *stride) {
    if (cvt == NULL) {
        *stride = s;
        return src;
    }
    bool broadcast = s == 0;
    int64_t count = broadcast ? 1 : m;
    if (pre != NULL) {
        pre(tmp, (ptrdiff_t)csize, src, (ptrdiff_t)s, (size_t)count);
        src = tmp;
        s = csize;
    }
    cvt(buf, (ptrdiff_t)msize, src, (ptrdiff_t)s, (size_t)count);
    *stride = broadcast ? 0 : msize;
    return buf;
}

/* One chunk of math-dtype operands into 0/1 bytes. */
static inline void run_loop(const ct_compare_kernel *k, char *out, const char *a, const char *b,
                            int64_t so, int64_t sa, int64_t sb, int64_t n) {
    if (k->cmp == CT_CMP_ISCLOSE)
        close_loop_of(k->compute)(k, out, a, b, so, sa, sb, n);
    else
        k->loop(out, a, b, so, sa, sb, n);
}

void ct_compare_impl_kernel_run(const ct_compare_kernel *k, char *out, const char *a,
                                const char *b, int64_t so, int64_t sa, int64_t sb, int64_t n) {
    if (n <= 0)
        return;
    if (k->cvt_a == NULL && k->cvt_b == NULL && k->cvt_out == NULL) {
        run_loop(k, out, a, b, so, sa, sb, n);
        return;
    }
    ct_convert_loop_fn pre_a = (ct_convert_loop_fn)k->pre_a, pre_b = (ct_convert_loop_fn)k->pre_b;
    ct_convert_loop_fn cvt_a = (ct_convert_loop_fn)k->cvt_a, cvt_b = (ct_convert_loop_fn)k->cvt_b;
    ct_convert_loop_fn cvt_out = (ct_convert_loop_fn)k->cvt_out;
    int64_t msize = (int64_t)ct_dtype_itemsize(k->math);
    int64_t csize = (int64_t)ct_dtype_itemsize(k->compute);
    int64_t chunk = CMP_CHUNK_BYTES / msize;
    alignas(64) char buf_a[CMP_CHUNK_BYTES];
    alignas(64) char buf_b[CMP_CHUNK_BYTES];
    alignas(64) char tmp[CMP_CHUNK_BYTES];
    alignas(64) char buf_o[CMP_CHUNK_BYTES];
    for (int64_t i = 0; i < n; i += chunk) {
        int64_t m = n - i < chunk ? n - i : chunk;
        int64_t xs, ys;
        const char *x = stage(pre_a, cvt_a, tmp, buf_a, a + i * sa, sa, m, csize, msize, &xs);
        const char *y = stage(pre_b, cvt_b, tmp, buf_b, b + i * sb, sb, m, csize, msize, &ys);
        if (cvt_out == NULL) {
            run_loop(k, out + i * so, x, y, so, xs, ys, m);
        } else {
            run_loop(k, buf_o, x, y, 1, xs, ys, m);
            cvt_out(out + i * so, (ptrdiff_t)so, buf_o, 1, (size_t)m);
        }
    }
}
