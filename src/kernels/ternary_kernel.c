/* Prepared ternary kernels: the loop of the active ISA level for (op, math dtype), and the
 * block pipeline around it (as unary_kernel.c's). A row is processed in blocks of BLOCK
 * elements; each input is
 *   read in place        its dtype is the loop's and it is contiguous,
 *   read once            stride 0 (a broadcast or 0-dim operand: clamp's scalar bounds), one
 *                        element converted for the whole row and passed with inc 0,
 *   converted per block  otherwise (through the computation dtype when that differs from
 *                        both: an int64 operand of a float16 addcmul rounds to float16 first),
 * and the output is written in place or rounded once to the computation dtype and converted. */
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/cpu.h"
#include "dtype/table_impl.h"
#include "kernels/ternary.h"

#define BLOCK 512
#define MAX_ITEM 16

static const char *const CPU_NAMES[] = {
#define CT_TERNARY(E, name, cpu_name, scalar_cpu_name, nin, rule, dtypes, has_value)               \
    [CT_TERK_##E] = cpu_name,
#include "ctensor/ternary.def"
#undef CT_TERNARY
};
_Static_assert(sizeof CPU_NAMES / sizeof CPU_NAMES[0] == CT_NUM_TERKS, "one name per row");

static const unsigned DTYPES[] = {
#define CT_TERNARY(E, name, cpu_name, scalar_cpu_name, nin, rule, dtypes, has_value)               \
    [CT_TERK_##E] = (dtypes),
#include "ctensor/ternary.def"
#undef CT_TERNARY
};
_Static_assert(sizeof DTYPES / sizeof DTYPES[0] == CT_NUM_TERKS, "one mask per row");

/* The dtypes-column class of a computation dtype (0: none: the shell dtypes, complex32 for
 * arithmetic). */
static unsigned class_of(ct_dtype d) {
    unsigned any = ct_dtype_table[d].is_shell ? 0u : (unsigned)CT_TER_ANY;
    switch (d) {
    case CT_BOOL: return CT_TER_B | any;
    case CT_UINT8: case CT_INT8: case CT_INT16: case CT_INT32: case CT_INT64:
        return CT_TER_I | any;
    case CT_FLOAT16: case CT_BFLOAT16: case CT_FLOAT32: case CT_FLOAT64: return CT_TER_F | any;
    case CT_COMPLEX64: case CT_COMPLEX128: return CT_TER_C | any;
    default: return any;
    }
}

static const ct_ternary_loop_table *active_table(void) {
    switch (ct_cpu_isa_active()) {
#if defined(CT_HAVE_ISA_AVX512)
    case CT_ISA_AVX512:
        return &ct_ternary_loops_avx512;
#endif
#if defined(CT_HAVE_ISA_AVX2)
    case CT_ISA_AVX2:
        return &ct_ternary_loops_avx2;
#endif
    default:
        return &ct_ternary_loops_baseline;
    }
}

static bool is_select(ct_ternary_kop op) { return op == CT_TERK_WHERE || op == CT_TERK_MASKED_FILL; }

ct_dtype ct_ternary_impl_math_dtype(ct_ternary_kop op, ct_dtype compute) {
    if (!is_select(op) && (compute == CT_FLOAT16 || compute == CT_BFLOAT16))
        return CT_FLOAT32;
    return compute;
}

/* The loop slot of a math dtype; false when there is none. */
static bool slot_of(ct_ternary_kop op, ct_dtype math, ct_ternary_math *slot) {
    if (is_select(op)) {
        switch (ct_dtype_table[math].itemsize) {
        case 1: *slot = CT_TERM_W1; return true;
        case 2: *slot = CT_TERM_W2; return true;
        case 4: *slot = CT_TERM_W4; return true;
        case 8: *slot = CT_TERM_W8; return true;
        case 16: *slot = CT_TERM_W16; return true;
        default: return false;
        }
    }
    switch (math) {
    case CT_BOOL: *slot = CT_TERM_B8; return true;
    case CT_UINT8: *slot = CT_TERM_U8; return true;
    case CT_INT8: *slot = CT_TERM_I8; return true;
    case CT_INT16: *slot = CT_TERM_I16; return true;
    case CT_INT32: *slot = CT_TERM_I32; return true;
    case CT_INT64: *slot = CT_TERM_I64; return true;
    case CT_FLOAT32: *slot = CT_TERM_F32; return true;
    case CT_FLOAT64: *slot = CT_TERM_F64; return true;
    case CT_COMPLEX64: *slot = CT_TERM_C64; return true;
    case CT_COMPLEX128: *slot = CT_TERM_C128; return true;
    default: return false;
    }
}

ct_status ct_ternary_impl_kernel_init(ct_ternary_kernel *k, ct_ternary_kop op, const char *cpu_name,
                                      ct_dtype compute, ct_dtype out, const ct_dtype *in, int nin) {
    if ((unsigned)op >= (unsigned)CT_NUM_TERKS || nin < 2 || nin > 3)
        return ct_set_error(CT_ERR_MISUSE, "ternary kernel: invalid op %d", (int)op);
    if (cpu_name == NULL)
        cpu_name = CPU_NAMES[op];
    if (!ct_dtype_impl_valid(compute) || !(class_of(compute) & DTYPES[op]))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", cpu_name,
                            ct_dtype_impl_msg_name(compute));
    ct_dtype math = ct_ternary_impl_math_dtype(op, compute);
    ct_ternary_math slot;
    ct_ternary_math_loop loop = NULL;
    if (slot_of(op, math, &slot))
        loop = (*active_table())[op][slot];
    if (loop == NULL) /* the loop table disagrees with ternary.def: a bug, not the user's */
        return ct_set_error(CT_ERR_MISUSE, "ternary kernel: no loop for %s on %s", cpu_name,
                            ct_dtype_impl_msg_name(compute));
    memset(k, 0, sizeof *k);
    k->loop = loop;
    k->nin = nin;
    k->out = out;
    k->out_math = math;
    k->result = compute;
    for (int i = 0; i < nin; i++) {
        k->in[i] = in[i];
        k->in_math[i] = math;
    }
    /* the condition of a select is read as bytes != 0, in its own dtype (bool or uint8) */
    if (op == CT_TERK_WHERE)
        k->in_math[0] = in[0];
    else if (op == CT_TERK_MASKED_FILL)
        k->in_math[1] = in[1];
    k->cvt = ct_convert_impl_active_loops();
    return CT_OK;
}

typedef enum { MODE_DIRECT, MODE_ONCE, MODE_BLOCK } in_mode;

/* Convert m elements of dtype `from` (stride `ss`) to the contiguous math dtype `to`, through
 * `via` (the computation dtype) when it differs from both. */
static void convert_in(const ct_convert_loop_table *cvt, void *dst, ct_dtype to, ct_dtype via,
                       ct_dtype from, const char *src, int64_t ss, int64_t m, void *tmp) {
    int64_t isz_to = (int64_t)ct_dtype_table[to].itemsize;
    if (from == to || from == via || via == to) {
        (*cvt)[to][from](dst, isz_to, src, ss, (size_t)m);
    } else {
        int64_t isz_via = (int64_t)ct_dtype_table[via].itemsize;
        (*cvt)[via][from](tmp, isz_via, src, ss, (size_t)m);
        (*cvt)[to][via](dst, isz_to, tmp, isz_via, (size_t)m);
    }
}

int ct_ternary_impl_kernel_run(const ct_ternary_kernel *k, char *const *data,
                               const int64_t *strides, int64_t n) {
    _Alignas(64) unsigned char buf[3][BLOCK * MAX_ITEM], obuf[BLOCK * MAX_ITEM],
        tmp[BLOCK * MAX_ITEM];
    _Alignas(16) unsigned char once[3][MAX_ITEM];
    const ct_convert_loop_table *cvt = k->cvt;
    in_mode mode[3];
    int64_t isz_in[3], inc[3];
    const void *ptr[3];
    /* the input loop operand i reads: a two-input loop (nin 2; kernel_init allows only 2 and
     * 3) never reads in[2], its third operand repeats in[1]. A table rather than
     * `i < nin ? i : nin - 1`, whose -1 for nin 0 gcc -O3 flags (-Warray-bounds) */
    const int src_of[3] = {0, 1, k->nin > 2 ? 2 : 1};
    for (int i = 0; i < 3; i++) {
        int j = src_of[i];
        isz_in[i] = (int64_t)ct_dtype_table[k->in[j]].itemsize;
        if (k->in[j] == k->in_math[j] && strides[1 + j] == isz_in[i]) {
            mode[i] = MODE_DIRECT;
            inc[i] = 1;
        } else if (strides[1 + j] == 0) {
            mode[i] = MODE_ONCE;
            inc[i] = 0;
            convert_in(cvt, once[i], k->in_math[j], k->number[j] ? k->in_math[j] : k->result,
                       k->in[j], data[1 + j], 0, 1, tmp);
            ptr[i] = once[i];
        } else {
            mode[i] = MODE_BLOCK;
            inc[i] = 1;
        }
    }
    int64_t isz_out = (int64_t)ct_dtype_table[k->out].itemsize;
    int64_t isz_om = (int64_t)ct_dtype_table[k->out_math].itemsize;
    int64_t isz_r = (int64_t)ct_dtype_table[k->result].itemsize;
    bool direct_out = k->out == k->out_math && strides[0] == isz_out;
    /* nothing to convert: one loop call over the whole row */
    bool whole = direct_out;
    for (int i = 0; i < 3; i++)
        whole &= mode[i] != MODE_BLOCK;
    int64_t block = whole ? n : BLOCK;
    for (int64_t done = 0; done < n;) {
        int64_t m = n - done < block ? n - done : block;
        for (int i = 0; i < 3; i++) {
            int j = src_of[i];
            const char *src = data[1 + j] + done * strides[1 + j];
            if (mode[i] == MODE_DIRECT) {
                ptr[i] = src;
            } else if (mode[i] == MODE_BLOCK) {
                if (i > j) { /* the repeated input of a two-input loop: same block */
                    ptr[i] = ptr[j];
                    continue;
                }
                convert_in(cvt, buf[i], k->in_math[j], k->result, k->in[j], src, strides[1 + j],
                           m, tmp);
                ptr[i] = buf[i];
            }
        }
        char *dst = data[0] + done * strides[0];
        void *y = direct_out ? (void *)dst : (void *)obuf;
        k->loop(y, ptr, inc, m, k->value);
        if (!direct_out) {
            if (k->result == k->out_math || k->out == k->result) {
                (*cvt)[k->out][k->out_math](dst, strides[0], obuf, isz_om, (size_t)m);
            } else { /* round once to the result dtype (float16), then to the output's */
                (*cvt)[k->result][k->out_math](tmp, isz_r, obuf, isz_om, (size_t)m);
                (*cvt)[k->out][k->result](dst, strides[0], tmp, isz_r, (size_t)m);
            }
        }
        done += m;
    }
    return 0;
}
