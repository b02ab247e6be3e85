/* Prepared unary kernels: the loop of the active ISA level for (op, math dtype), and the
 * block pipeline around it. A row is processed in blocks of BLOCK elements:
 *   input (its dtype, any stride) -> [convert] -> the loop's input dtype, contiguous
 *   -> loop -> the loop's output dtype -> [round to the result dtype] -> [convert] -> output
 * Each step is skipped when it is the identity: a contiguous float32 exp reads and writes
 * the tensors directly, a float16 exp widens a block, computes in float32 and rounds once. */
#include <math.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/cpu.h"
#include "dtype/table_impl.h"
#include "dtype/convert/codec_impl.h"
#include "kernels/unary.h"
#include "kernels/unary_elem.h"

#define BLOCK 512
#define MAX_ITEM 16

static const char *const CPU_NAMES[] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) [CT_UNK_##E] = cpu_name,
#include "ctensor/unary.def"
#undef CT_UNARY
};
_Static_assert(sizeof CPU_NAMES / sizeof CPU_NAMES[0] == CT_NUM_UNKS, "one name per row");

static const unsigned DTYPES[] = {
#define CT_UNARY(E, name, cpu_name, result, dtypes, inplace, out, partial, sparse) [CT_UNK_##E] = (dtypes),
#include "ctensor/unary.def"
#undef CT_UNARY
};
_Static_assert(sizeof DTYPES / sizeof DTYPES[0] == CT_NUM_UNKS, "one mask per row");

/* The dtypes-column class of a computation dtype (0: none). */
static unsigned class_of(ct_dtype d) {
    switch (d) {
    case CT_BOOL: return CT_UN_B;
    case CT_UINT8: case CT_INT8: case CT_INT16: case CT_INT32: case CT_INT64: return CT_UN_I;
    case CT_FLOAT16: case CT_BFLOAT16: case CT_FLOAT32: case CT_FLOAT64: return CT_UN_F;
    case CT_COMPLEX64: case CT_COMPLEX128: return CT_UN_C;
    case CT_COMPLEX32: return CT_UN_H;
    default: return 0;
    }
}

static const ct_unary_reduced_table *reduced_table(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_unary_reduced_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_unary_reduced_avx2;
#endif
    default:
        return &ct_unary_reduced_baseline;
    }
}

static const ct_unary_half_table *half_table(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_unary_half_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_unary_half_avx2;
#endif
    default:
        return &ct_unary_half_baseline;
    }
}

static const ct_unary_half_table *lut_table(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_unary_lut_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_unary_lut_avx2;
#endif
    default:
        return &ct_unary_lut_baseline;
    }
}

static const ct_unary_loop_table *active_table(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_unary_loops_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_unary_loops_avx2;
#endif
    default:
        return &ct_unary_loops_baseline;
    }
}

/* The math dtype of a computation dtype and its slot; false when there is none. */
static bool math_of(ct_dtype compute, ct_dtype *math, ct_unary_math *slot) {
    switch (compute) {
    case CT_BOOL: *slot = CT_UNM_B8; break;
    case CT_UINT8: *slot = CT_UNM_U8; break;
    case CT_INT8: *slot = CT_UNM_I8; break;
    case CT_INT16: *slot = CT_UNM_I16; break;
    case CT_INT32: *slot = CT_UNM_I32; break;
    case CT_INT64: *slot = CT_UNM_I64; break;
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_FLOAT32: *slot = CT_UNM_F32; *math = CT_FLOAT32; return true;
    case CT_FLOAT64: *slot = CT_UNM_F64; break;
    case CT_COMPLEX32: *slot = CT_UNM_C64; *math = CT_COMPLEX64; return true;
    case CT_COMPLEX64: *slot = CT_UNM_C64; break;
    case CT_COMPLEX128: *slot = CT_UNM_C128; break;
    default: return false;
    }
    *math = compute;
    return true;
}

static ct_status not_implemented(const char *name, ct_dtype compute) {
    return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_cpp_name(compute));
}

static void init_common(ct_unary_kernel *k, ct_dtype compute, ct_dtype out, ct_dtype in,
                        ct_dtype math) {
    memset(k, 0, sizeof *k);
    k->in = in;
    k->out = out;
    k->compute = compute;
    k->in_math = k->out_math = math;
    k->result = compute;
    k->cvt = ct_convert_impl_active_loops();
}

ct_status ct_unary_impl_kernel_init(ct_unary_kernel *k, ct_unary_kop op, ct_dtype compute,
                                    ct_dtype out, ct_dtype in) {
    if ((unsigned)op >= (unsigned)CT_NUM_UNKS)
        return ct_set_error(CT_ERR_MISUSE, "unary kernel: invalid op %d", (int)op);
    ct_dtype math;
    ct_unary_math slot;
    ct_unary_math_loop loop = NULL;
    if (!(class_of(compute) & DTYPES[op]))
        return not_implemented(CPU_NAMES[op], compute);
    if (math_of(compute, &math, &slot))
        loop = (*active_table())[op][slot];
    if (loop != NULL && (compute == CT_FLOAT16 || compute == CT_BFLOAT16) &&
        (*reduced_table())[op] != NULL)
        loop = (*reduced_table())[op];
    if (loop == NULL) /* the loop table disagrees with unary.def: a bug, not the user's */
        return ct_set_error(CT_ERR_MISUSE, "unary kernel: no loop for %s on %s",
                            CPU_NAMES[op], ct_dtype_cpp_name(compute));
    init_common(k, compute, out, in, math);
    k->loop = loop;
    ct_unary_math_loop half = NULL;
    if (compute == CT_FLOAT16 || compute == CT_BFLOAT16) {
        int h = compute == CT_BFLOAT16 ? CT_UNH_BF16 : CT_UNH_F16;
        half = (*lut_table())[op][h] != NULL ? (*lut_table())[op][h] : (*half_table())[op][h];
    }
    if (half != NULL) { /* the loop reads and writes the 16-bit computation dtype itself */
        k->loop = half;
        k->in_math = k->out_math = compute;
    }
    if (op == CT_UNK_LOGICAL_NOT) {
        k->out_math = k->result = CT_BOOL;
    } else if (op == CT_UNK_ABS && ct_dtype_is_complex(compute)) {
        k->out_math = k->result = compute == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64;
    }
    return CT_OK;
}

ct_status ct_unary_impl_kernel_init_round(ct_unary_kernel *k, int64_t decimals,
                                          ct_dtype compute, ct_dtype out, ct_dtype in) {
    ct_dtype math;
    ct_unary_math slot;
    if (!math_of(compute, &math, &slot) || (slot != CT_UNM_F32 && slot != CT_UNM_F64))
        return not_implemented("round_cpu", compute);
    init_common(k, compute, out, in, math);
    int64_t d = decimals < 0 ? -decimals : decimals;
    /* PyTorch: ten_pow_decimals = std::pow(10, decimals) in the scalar type */
    k->round_m = math == CT_FLOAT32 ? (double)powf(10.0f, (float)d) : pow(10.0, (double)d);
    k->round_div = decimals < 0;
    return CT_OK;
}

static void round_block(const ct_unary_kernel *k, void *o, const void *i, int64_t n) {
    if (k->in_math == CT_FLOAT32) {
        /* PyTorch's round(decimals) computes each step in the scalar type: float16 and
         * bfloat16 round after every operation (ct_un_round_dec_f32, shared with the GPU) */
        int nw = k->compute == CT_FLOAT16 ? 1 : k->compute == CT_BFLOAT16 ? 2 : 0;
        float m = ct_un_narrow_f32((float)k->round_m, nw), *y = o;
        const float *x = i;
        for (int64_t j = 0; j < n; j++)
            y[j] = ct_un_round_dec_f32(x[j], m, k->round_div, nw);
    } else {
        double m = k->round_m, *y = o;
        const double *x = i;
        for (int64_t j = 0; j < n; j++)
            y[j] = ct_un_round_dec_f64(x[j], m, k->round_div);
    }
}

int ct_unary_impl_kernel_run(const ct_unary_kernel *k, char *out, const char *in,
                             int64_t out_stride, int64_t in_stride, int64_t n) {
    _Alignas(64) unsigned char a[BLOCK * MAX_ITEM], b[BLOCK * MAX_ITEM], c[BLOCK * MAX_ITEM];
    const ct_convert_loop_table *cvt = k->cvt;
    int64_t isz_in = (int64_t)ct_dtype_table[k->in].itemsize;
    int64_t isz_out = (int64_t)ct_dtype_table[k->out].itemsize;
    int64_t isz_im = (int64_t)ct_dtype_table[k->in_math].itemsize;
    int64_t isz_om = (int64_t)ct_dtype_table[k->out_math].itemsize;
    int64_t isz_c = (int64_t)ct_dtype_table[k->compute].itemsize;
    int64_t isz_r = (int64_t)ct_dtype_table[k->result].itemsize;
    bool direct_in = k->in == k->in_math && in_stride == isz_in;
    /* (not when the result must round to a narrower dtype first: float16 exp into a
     * float32 out= rounds to float16, as PyTorch's does) */
    bool direct_out = k->out == k->out_math && out_stride == isz_out &&
                      (k->result == k->out_math || k->out == k->result);
    /* Blocks bound the conversion buffers; a row the loop reads and writes in place needs
     * none, and one call spares the per-block overhead (10^7 bfloat16 exp through its
     * table: 7.3 ms in blocks of 512, 5.6 ms as one call). */
    int64_t block = direct_in && direct_out ? n : BLOCK;
    for (int64_t done = 0; done < n;) {
        int64_t m = n - done < block ? n - done : block;
        const char *src = in + done * in_stride;
        char *dst = out + done * out_stride;
        const void *x;
        if (direct_in) {
            x = src;
        } else if (k->in == k->compute || k->compute == k->in_math) {
            (*cvt)[k->in_math][k->in](a, isz_im, src, in_stride, (size_t)m);
            x = a;
        } else { /* e.g. int -> float16 computation -> float32 math */
            (*cvt)[k->compute][k->in](c, isz_c, src, in_stride, (size_t)m);
            (*cvt)[k->in_math][k->compute](a, isz_im, c, isz_c, (size_t)m);
            x = a;
        }
        void *y = direct_out ? (void *)dst : (void *)b;
        if (k->loop != NULL)
            k->loop(y, x, m);
        else
            round_block(k, y, x, m);
        if (!direct_out) {
            if (k->result == k->out_math || k->out == k->result) {
                (*cvt)[k->out][k->out_math](dst, out_stride, b, isz_om, (size_t)m);
            } else { /* round once to the result dtype (float16), then to the output's */
                (*cvt)[k->result][k->out_math](c, isz_r, b, isz_om, (size_t)m);
                (*cvt)[k->out][k->result](dst, out_stride, c, isz_r, (size_t)m);
            }
        }
        done += m;
    }
    return 0;
}
