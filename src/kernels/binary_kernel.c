/* Prepared binary kernels: the math dtype of each operand dtype, the loop tables per ISA
 * level, alpha, and the chunked conversion of operands that are not in the math dtype. */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error_impl.h"
#include "ctensor/cpu.h"
#include "dtype/convert/codec_impl.h"
#include "dtype/convert/loops_impl.h"
#include "kernels/binary_elem_impl.h"

/* Bytes per operand buffer of the conversion path. The four buffers (8 KiB) stay in L1 with
 * room for the streams passing through, and a chunk (512 float32) is still long enough for
 * the vector loops; 2 KiB measured a little faster than 4 or 8 KiB on the mixed pairs. */
#define CT_KCHUNK_BYTES 2048

/* Outputs at least this long are written with streaming stores (see binary_loops.c); tests
 * lower it so that short runs take the streamed path too. */
#define CT_KSTREAM_MIN_BYTES ((int64_t)4 << 20)
static _Atomic int64_t kstream_min_bytes = CT_KSTREAM_MIN_BYTES;

int64_t ct_binary_impl_set_stream_bytes(int64_t bytes) {
    return atomic_exchange(&kstream_min_bytes, bytes < 0 ? CT_KSTREAM_MIN_BYTES : bytes);
}

static int64_t stream_min_bytes(void) {
    return atomic_load_explicit(&kstream_min_bytes, memory_order_relaxed);
}

ct_dtype ct_binary_impl_math_dtype(ct_dtype dtype) {
    switch (dtype) {
    case CT_FLOAT16:
    case CT_BFLOAT16:
        return CT_FLOAT32;
    case CT_COMPLEX32:
        return CT_COMPLEX64;
#define MATH_CASE(E, ...) case CT_##E:
        CT_KMATH_ROWS(MATH_CASE) /* the math dtypes compute in themselves */
#undef MATH_CASE
        return dtype;
    default: /* float8 family, float4_e2m1fn_x2, invalid values */
        return CT_DTYPE_UNDEFINED;
    }
}

static const ct_binary_loop_table *loop_table_at(int level) {
    switch (level) {
    case CT_ISA_BASELINE:
        return &ct_binary_loops_baseline;
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_binary_loops_avx2;
#endif
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_binary_loops_avx512;
#endif
    default:
        return NULL;
    }
}

static const ct_binary_fused_table *fused_table_at(int level) {
    switch (level) {
    case CT_ISA_BASELINE:
        return &ct_binary_fused_baseline;
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_binary_fused_avx2;
#endif
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_binary_fused_avx512;
#endif
    default:
        return NULL;
    }
}

static ct_binary_math_loop table_entry(const ct_binary_loop_table *t, ct_binop op, ct_dtype math) {
    if (t == NULL || (int)op < 0 || (int)op >= CT_NUM_BINOPS || (int)math < 0 ||
        (int)math >= CT_NUM_DTYPES)
        return NULL;
    return (*t)[op][math];
}

ct_binary_math_loop ct_binary_impl_math_loop_at(ct_binop op, ct_dtype math, int isa_level) {
    return table_entry(loop_table_at(isa_level), op, math);
}

ct_binary_math_loop ct_binary_impl_math_loop_get(ct_binop op, ct_dtype math) {
    return ct_binary_impl_math_loop_at(op, math, (int)ct_cpu_isa_active());
}

ct_binary_math_loop ct_binary_impl_math_loop_reference(ct_binop op, ct_dtype math) {
    return table_entry(&ct_binary_loops_reference, op, math);
}

/* The names of the newest PyTorch's CPU dispatch (ops.def's kernel rows), used when the
 * caller passes no name. */
static const char *const default_names[] = {
#define CT_OP_KERNEL(E, cpu_name) [CT_BINOP_##E] = cpu_name,
#include "ctensor/ops.def"
#undef CT_OP_KERNEL
};
_Static_assert(sizeof default_names / sizeof default_names[0] == CT_NUM_BINOPS,
               "one name per kernel row of ops.def");

static bool dtype_ok(ct_dtype d) { return (int)d >= 0 && (int)d < CT_NUM_DTYPES; }

/* alpha == 1 in the math dtype (bit patterns of the one value each type has for it) */
static bool alpha_is_one(ct_dtype math, const ct_kernel_value *v) {
    switch (math) {
    case CT_BOOL:
        return v->u8 != 0;
    case CT_UINT8:
    case CT_INT8:
        return v->u8 == 1;
    case CT_UINT16:
    case CT_INT16:
        return v->u16 == 1;
    case CT_UINT32:
    case CT_INT32:
        return v->u32 == 1;
    case CT_UINT64:
    case CT_INT64:
        return v->u64 == 1;
    case CT_FLOAT32:
        return v->f32 == 1.0f;
    case CT_FLOAT64:
        return v->f64 == 1.0;
    default:
        /* complex: never skipped. PyTorch's complex add always multiplies out alpha * b,
         * so (1+0j) * (x+infj) has a NaN real part there; keep its results. */
        return false;
    }
}

/* float16 / bfloat16 trunc and floor division with a tensor divisor, and complex32 add:
 * the element functions are binary_elem.h's (ct_kdivt_rf16 ..., ct_kadd_c32), shared with the
 * GPU kernels. */
CT_KLOOP_STRIDED(loop_divt_f16, float, r = ct_kdivt_rf16(x, y))
CT_KLOOP_STRIDED(loop_divf_f16, float, r = ct_kdivf_rf16(x, y))
CT_KLOOP_STRIDED(loop_divt_bf16, float, r = ct_kdivt_rbf16(x, y))
CT_KLOOP_STRIDED(loop_divf_bf16, float, r = ct_kdivf_rbf16(x, y))
CT_KLOOP_STRIDED(loop_add_c32, ct_complex64, {
    ct_complex64 al_;
    memcpy(&al_, alpha->c64, sizeof al_);
    r = ct_kadd_c32(x, y, al_);
})

static ct_binary_math_loop reduced_div_loop(ct_binop op, ct_dtype compute) {
    if (op == CT_BINOP_DIV_TRUNC)
        return compute == CT_FLOAT16 ? loop_divt_f16 : loop_divt_bf16;
    return compute == CT_FLOAT16 ? loop_divf_f16 : loop_divf_bf16;
}

ct_status ct_binary_impl_kernel_init(ct_binary_kernel *k, ct_binop op, const char *name,
                                     ct_dtype compute, ct_dtype out_dtype, ct_dtype a_dtype,
                                     ct_dtype b_dtype, ct_scalar alpha) {
    return ct_binary_impl_kernel_init_ex(k, op, name, compute, out_dtype, a_dtype, b_dtype, alpha,
                                         0);
}

ct_status ct_binary_impl_kernel_init_ex(ct_binary_kernel *k, ct_binop op, const char *name,
                                        ct_dtype compute, ct_dtype out_dtype, ct_dtype a_dtype,
                                        ct_dtype b_dtype, ct_scalar alpha, unsigned flags) {
    ct_status st = CT_OK;
    CT_CHECK(k != NULL, CT_ERR_MISUSE, "binary kernel: the kernel must not be NULL");
    memset(k, 0, sizeof *k);
    k->compute = k->math = k->out_dtype = k->a_dtype = k->b_dtype = CT_DTYPE_UNDEFINED;
    CT_CHECK((int)op >= 0 && (int)op < CT_NUM_BINOPS, CT_ERR_MISUSE,
             "binary kernel: invalid op %d", (int)op);
    CT_CHECK(dtype_ok(compute) && dtype_ok(out_dtype) && dtype_ok(a_dtype) && dtype_ok(b_dtype),
             CT_ERR_MISUSE, "binary kernel: invalid dtype");
    CT_CHECK((flags & ~(unsigned)CT_BINARY_B_IS_SCALAR) == 0, CT_ERR_MISUSE,
             "binary kernel: invalid flags %#x", flags);

    ct_dtype math = ct_binary_impl_math_dtype(compute);
    ct_binary_math_loop loop =
        math == CT_DTYPE_UNDEFINED ? NULL : ct_binary_impl_math_loop_get(op, math);
    /* PyTorch's CPU division kernels do not dispatch ComplexHalf (add and mul do) */
    if (compute == CT_COMPLEX32 && op != CT_BINOP_ADD && op != CT_BINOP_MUL)
        loop = NULL;
    CT_CHECK(loop != NULL, CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
             name != NULL ? name : default_names[op], ct_dtype_cpp_name(compute));

    bool reduced_float = compute == CT_FLOAT16 || compute == CT_BFLOAT16;
    /* newest PyTorch's is_scalar(2) paths (mul_kernel, div_true_kernel, div_trunc_kernel,
     * div_floor_kernel; ufunc add has none): b in float32 from its own dtype */
    /* (pow and the rows after it round b to the dtype, as torch 1.13's kernels) */
    bool b_opmath = (flags & CT_BINARY_B_IS_SCALAR) && reduced_float && op != CT_BINOP_ADD &&
                    op < CT_BINOP_POW;
    if (reduced_float && !b_opmath && (op == CT_BINOP_DIV_TRUNC || op == CT_BINOP_DIV_FLOOR))
        loop = reduced_div_loop(op, compute);
    if (compute == CT_COMPLEX32 && op == CT_BINOP_ADD)
        loop = loop_add_c32;
    /* torch 1.13's pow.Tensor_Scalar on Half is std::pow, without the special exponents */
    if (compute == CT_FLOAT16 && op == CT_BINOP_POW_SCALAR)
        loop = ct_binary_impl_math_loop_get(CT_BINOP_POW, math);

    const ct_convert_loop_table *cvt = ct_convert_impl_active_loops();
    /* Each operand's route (NULL entries: no conversion needed). A computation dtype that is
     * not its math dtype (float16, bfloat16, complex32) is a rounding step of its own: other
     * dtypes pass through it on the way in and the result on the way out. */
    bool via = compute != math;
    bool via_a = via && a_dtype != compute;
    bool via_b = via && b_dtype != compute && !b_opmath;
    bool via_out = via && out_dtype != compute;
    ct_convert_loop_fn pre_a = via_a ? (*cvt)[compute][a_dtype] : NULL;
    ct_convert_loop_fn pre_b = via_b ? (*cvt)[compute][b_dtype] : NULL;
    ct_convert_loop_fn post_out = via_out ? (*cvt)[compute][math] : NULL;
    ct_dtype from_a = via_a ? compute : a_dtype, from_b = via_b ? compute : b_dtype;
    ct_dtype to_out = via_out ? compute : out_dtype;
    ct_convert_loop_fn cvt_a = from_a == math ? NULL : (*cvt)[math][from_a];
    ct_convert_loop_fn cvt_b = from_b == math ? NULL : (*cvt)[math][from_b];
    /* via_out: compute -> out, after post_out's math -> compute */
    ct_convert_loop_fn cvt_out = via_out          ? (*cvt)[out_dtype][compute]
                                 : to_out == math ? NULL
                                                  : (*cvt)[to_out][math];
    /* only float4_e2m1fn_x2 has no conversion loops */
    bool miss_a = via_a ? pre_a == NULL : from_a != math && cvt_a == NULL;
    bool miss_b = via_b ? pre_b == NULL : from_b != math && cvt_b == NULL;
    bool miss_out = (via_out || to_out != math) && cvt_out == NULL;
    ct_dtype no_cvt = miss_a     ? a_dtype
                      : miss_b   ? b_dtype
                      : miss_out ? out_dtype
                                 : CT_DTYPE_UNDEFINED;
    CT_CHECK(no_cvt == CT_DTYPE_UNDEFINED, CT_ERR_NOT_IMPLEMENTED,
             "\"%s\" not implemented for '%s'", name != NULL ? name : default_names[op],
             ct_dtype_cpp_name(no_cvt));

    if (op == CT_BINOP_ADD) {
        /* PyTorch converts alpha to the common dtype first (Scalar::to<scalar_t>, with its
         * overflow check and rounding), then computes in the math dtype */
        ct_kernel_value tmp;
        memset(&tmp, 0, sizeof tmp);
        memset(&k->alpha, 0, sizeof k->alpha);
        CT_TRY(ct_scalar_to_dtype(alpha, compute, &tmp));
        if (compute == math)
            k->alpha = tmp;
        else
            CT_TRY(ct_convert(math, &k->alpha, compute, &tmp, 1));
        k->has_alpha = !alpha_is_one(math, &k->alpha);
    }
    k->op = op;
    k->compute = compute;
    k->math = math;
    k->out_dtype = out_dtype;
    k->a_dtype = a_dtype;
    k->b_dtype = b_dtype;
    k->loop = loop;
    k->cvt_a = (void *)cvt_a;
    k->cvt_b = (void *)cvt_b;
    k->cvt_out = (void *)cvt_out;
    k->pre_a = (void *)pre_a;
    k->pre_b = (void *)pre_b;
    k->post_out = (void *)post_out;
    /* The fused loops replace exactly the chunked route f16/bf16 -> float32 math loop ->
     * f16/bf16 with no rounding steps in between: every operand in the computation dtype
     * (no pre/post conversions), add (alpha applied as fma in float32 by both) or mul,
     * which keep the float32 math loop above. Flags are left to the chunked path: with all
     * operands in the dtype CT_BINARY_B_IS_SCALAR changes nothing today, but it is a rule
     * of its own and may grow. */
    const ct_binary_fused_table *ft = fused_table_at((int)ct_cpu_isa_active());
    if (ft != NULL && flags == 0 && reduced_float && out_dtype == compute && a_dtype == compute &&
        b_dtype == compute && (op == CT_BINOP_ADD || op == CT_BINOP_MUL)) {
        int which = op == CT_BINOP_MUL ? CT_FUSED_MUL
                    : k->has_alpha     ? CT_FUSED_ADD_ALPHA
                                       : CT_FUSED_ADD;
        k->fused = (void *)(*ft)[which][compute == CT_FLOAT16 ? CT_FUSED_F16 : CT_FUSED_BF16];
    }
    return CT_OK;
fail:
    if (k != NULL)
        k->loop = NULL;
    return st;
}

/* An input's view for one chunk: the operand itself or its converted copy in `buf` (through
 * `tmp` in the compute dtype first when `pre` is set). */
static const char *stage_input(ct_convert_loop_fn pre, ct_convert_loop_fn cvt, char *tmp,
                               char *buf, const char *src, int64_t s, int64_t m, int64_t csize,
                               int64_t msize, int64_t *stride) {
    if (cvt == NULL) {
        *stride = s;
        return src;
    }
    if (pre != NULL) {
        pre(tmp, (ptrdiff_t)csize, src, (ptrdiff_t)s, (size_t)m);
        src = tmp;
        s = csize;
    }
    cvt(buf, (ptrdiff_t)msize, src, (ptrdiff_t)s, (size_t)m);
    *stride = msize;
    return buf;
}

/* Math-dtype results to the output dtype (through `tmp` in the compute dtype when `post` is
 * set: the result rounds to the computation dtype before an out= cast, as PyTorch writes
 * into a temporary of the common dtype and copies that). */
static void store_output(ct_convert_loop_fn post, ct_convert_loop_fn cvt, char *tmp, char *dst,
                         int64_t so, const char *res, int64_t m, int64_t csize, int64_t msize) {
    if (post != NULL) {
        post(tmp, (ptrdiff_t)csize, res, (ptrdiff_t)msize, (size_t)m);
        res = tmp;
        msize = csize;
    }
    cvt(dst, (ptrdiff_t)so, res, (ptrdiff_t)msize, (size_t)m);
}

#if defined(__SSE2__)
/* Copy a chunk from an L1 buffer to its place in a long contiguous output with streaming
 * stores: the output's lines are not read first (no write-allocate), a quarter to a third
 * less memory traffic on the mixed-dtype paths. */
static void stream_copy(char *dst, const char *src, size_t bytes) {
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head > bytes)
        head = bytes;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    bytes -= head;
    for (; bytes >= 16; bytes -= 16, dst += 16, src += 16)
        _mm_stream_si128((__m128i *)(void *)dst,
                         _mm_loadu_si128((const __m128i *)(const void *)src));
    memcpy(dst, src, bytes);
}
#define CT_KHAVE_STREAM 1
#endif

static int run_chunked(const ct_binary_kernel *k, char *out, const char *a, const char *b,
                       int64_t so, int64_t sa, int64_t sb, int64_t n) {
    const ct_kernel_value *alpha = k->has_alpha ? &k->alpha : NULL;
    ct_binary_math_loop loop = k->loop;
    if (k->cvt_a == NULL && k->cvt_b == NULL && k->cvt_out == NULL)
        return loop(out, a, b, so, sa, sb, n, alpha);
    if (n <= 0)
        return CT_KERNEL_OK; /* before the broadcast conversions below read anything */

    ct_convert_loop_fn cvt_a = (ct_convert_loop_fn)k->cvt_a;
    ct_convert_loop_fn cvt_b = (ct_convert_loop_fn)k->cvt_b;
    ct_convert_loop_fn cvt_out = (ct_convert_loop_fn)k->cvt_out;
    ct_convert_loop_fn pre_a = (ct_convert_loop_fn)k->pre_a;
    ct_convert_loop_fn pre_b = (ct_convert_loop_fn)k->pre_b;
    ct_convert_loop_fn post_out = (ct_convert_loop_fn)k->post_out;
    int64_t msize = (int64_t)ct_dtype_itemsize(k->math);
    int64_t csize = (int64_t)ct_dtype_itemsize(k->compute); /* <= msize */
    int64_t osize = (int64_t)ct_dtype_itemsize(k->out_dtype);
    int64_t chunk = CT_KCHUNK_BYTES / msize;
    alignas(64) char buf_a[CT_KCHUNK_BYTES];
    alignas(64) char buf_b[CT_KCHUNK_BYTES];
    alignas(64) char buf_o[CT_KCHUNK_BYTES];
    /* compute-dtype staging between an operand and its math copy (pre_a / pre_b, post_out);
     * used by one conversion at a time */
    alignas(64) char buf_c[CT_KCHUNK_BYTES];
#if defined(CT_KHAVE_STREAM)
    alignas(64) char buf_s[CT_KCHUNK_BYTES]; /* the output chunk in the output dtype */
    bool stream = so == osize && n * osize >= stream_min_bytes() && out != a && out != b;
#endif

    /* a broadcast operand is converted once */
    const char *a0 = a, *b0 = b;
    int64_t unused;
    if (cvt_a != NULL && sa == 0) {
        a0 = stage_input(pre_a, cvt_a, buf_c, buf_a, a, 0, 1, 0, 0, &unused);
        cvt_a = NULL;
    }
    if (cvt_b != NULL && sb == 0) {
        b0 = stage_input(pre_b, cvt_b, buf_c, buf_b, b, 0, 1, 0, 0, &unused);
        cvt_b = NULL;
    }
    int err = CT_KERNEL_OK;
    for (int64_t i = 0; i < n && err == CT_KERNEL_OK; i += chunk) {
        int64_t m = n - i < chunk ? n - i : chunk;
        int64_t ssa, ssb;
        const char *pa =
            stage_input(pre_a, cvt_a, buf_c, buf_a, a0 + i * sa, sa, m, csize, msize, &ssa);
        const char *pb =
            stage_input(pre_b, cvt_b, buf_c, buf_b, b0 + i * sb, sb, m, csize, msize, &ssb);
        char *po = out + i * so;
#if defined(CT_KHAVE_STREAM)
        if (stream) {
            char *res = cvt_out == NULL ? buf_s : buf_o;
            err = loop(res, pa, pb, msize, ssa, ssb, m, alpha);
            if (err != CT_KERNEL_OK)
                break;
            if (cvt_out != NULL)
                store_output(post_out, cvt_out, buf_c, buf_s, osize, buf_o, m, csize, msize);
            stream_copy(po, buf_s, (size_t)(m * osize));
            continue;
        }
#endif
        if (cvt_out == NULL) {
            err = loop(po, pa, pb, so, ssa, ssb, m, alpha);
        } else {
            err = loop(buf_o, pa, pb, msize, ssa, ssb, m, alpha);
            if (err == CT_KERNEL_OK)
                store_output(post_out, cvt_out, buf_c, po, so, buf_o, m, csize, msize);
        }
    }
#if defined(CT_KHAVE_STREAM)
    if (stream)
        _mm_sfence(); /* order the streaming stores before whatever follows */
#endif
    return err;
}

/* The fused loop on the longest whole-vector stretch, the chunked path on the few elements
 * before it (aligning a streamed output) and after it. */
static int run_fused(const ct_binary_kernel *k, char *out, const char *a, const char *b, int64_t sa,
                     int64_t sb, int64_t n) {
    ct_binary_fused_loop fused = (ct_binary_fused_loop)k->fused;
    bool stream = n * 2 >= stream_min_bytes() && out != a && out != b;
    int64_t head = stream ? (int64_t)(((64 - ((uintptr_t)out & 63)) & 63) / 2) : 0;
    int err = run_chunked(k, out, a, b, 2, sa, sb, head);
    if (err != CT_KERNEL_OK)
        return err;
    out += head * 2;
    a += head * sa;
    b += head * sb;
    n -= head;
    int64_t done = fused((uint16_t *)(void *)out, (const uint16_t *)(const void *)a,
                         (const uint16_t *)(const void *)b, sa == 0, sb == 0, n,
                         k->has_alpha ? k->alpha.f32 : 1.0f, stream);
    return run_chunked(k, out + done * 2, a + done * sa, b + done * sb, 2, sa, sb, n - done);
}

int ct_binary_impl_kernel_run(const ct_binary_kernel *k, char *out, const char *a, const char *b,
                              int64_t so, int64_t sa, int64_t sb, int64_t n) {
    /* An empty run may come with NULL pointers (empty tensors own no memory), and even a zero
     * offset applied to NULL is undefined: return before any pointer arithmetic. */
    if (n <= 0)
        return CT_KERNEL_OK;
    /* 16-bit elements: every pointer 2-byte aligned (the chunked path copes with any) */
    if (k->fused != NULL && so == 2 && (sa == 2 || sa == 0) && (sb == 2 || sb == 0) &&
        (((uintptr_t)out | (uintptr_t)a | (uintptr_t)b) & 1) == 0)
        return run_fused(k, out, a, b, sa, sb, n);
    return run_chunked(k, out, a, b, so, sa, sb, n);
}
