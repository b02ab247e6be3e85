/* Allocation-failure injection over the ops that came after test_fault_all.c's table: the
 * binary rows from pow to logical_xor (ctensor/ops.def), the ternary ops (ternary.def), the
 * reductions beyond sum/prod/mean/amax (std/var, norm, aminmax, cumulative, nan-, count-,
 * logsumexp, softmax / log_softmax), joining and splitting (join.h, hstack and the other
 * NumPy-style joins too), linspace / logspace /
 * eye (range.h), reordering (reorder.h: flip, roll, repeat, tile, diagonal, unfold, transpose_, resize_), tril/triu,
 * linalg_add.h (addbmm, addr, addmv_), gather / scatter / index_add / index_fill /
 * index_copy (scatter.h), searchsorted / bucketize (search.h), unique_dim /
 * unique_consecutive (unique.h) and nonzero. The
 * contract is test_fault_all.c's: fail allocation 1, 2, ... until the call goes through;
 * each failure returns CT_ERR_NOMEM with every result NULL, leaks nothing and leaves an
 * out= / in-place target's metadata as it was. Run under ASan+LSan (build-asan). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "tensor_test_util.h"

#include "ctensor/linalg_add.h"

#include "base/error_impl.h" /* CT_TRY */
#include "fault_table.h"

#define ONE ct_scalar_int(1)
#define U CT_DTYPE_UNDEFINED
#define LIST(...) ((const ct_tensor *const[]){__VA_ARGS__})

/* Inputs made once, outside the faults: f23 float32 (2, 3) 0..5, i21 int32 (2, 1) 1..2,
 * d13 float64 (1, 3), b23 bool (2, 3), h23 float16 (2, 3), x345 float32 (4, 3, 5) permuted
 * (non-contiguous), w0 a wrapped number. */
static ct_tensor *f23, *i21, *d13, *b23, *h23, *x345, *w0;
/* int64 indices: ig (2, 3) in [0, 2), ix2 [1, 0] */
static ct_tensor *ig, *ix2;

/* ---- binary: the rows from pow on ---- */

static ct_status bin(ct_op op, const ct_tensor *a, const ct_tensor *b, ct_tensor **o) {
    return ct_binary(op, a, b, ONE, o);
}
static ct_status op_pow_ff(ct_tensor **o) { return bin(CT_OP_POW, f23, f23, o); }
static ct_status op_pow_mixed(ct_tensor **o) { return bin(CT_OP_POW, i21, d13, o); }
static ct_status op_pow_int(ct_tensor **o) { return bin(CT_OP_POW, i21, i21, o); }
static ct_status op_pow_wrapped(ct_tensor **o) { return bin(CT_OP_POW, h23, w0, o); }
static ct_status op_remainder(ct_tensor **o) { return bin(CT_OP_REMAINDER, i21, f23, o); }
static ct_status op_fmod(ct_tensor **o) { return bin(CT_OP_FMOD, f23, d13, o); }
static ct_status op_atan2_int(ct_tensor **o) { return bin(CT_OP_ATAN2, i21, i21, o); }
static ct_status op_hypot(ct_tensor **o) { return bin(CT_OP_HYPOT, f23, d13, o); }
static ct_status op_bitwise_and(ct_tensor **o) { return bin(CT_OP_BITWISE_AND, i21, b23, o); }
static ct_status op_bitwise_or(ct_tensor **o) { return bin(CT_OP_BITWISE_OR, b23, b23, o); }
static ct_status op_bitwise_xor(ct_tensor **o) { return bin(CT_OP_BITWISE_XOR, i21, i21, o); }
static ct_status op_lshift(ct_tensor **o) { return bin(CT_OP_BITWISE_LEFT_SHIFT, i21, i21, o); }
static ct_status op_rshift(ct_tensor **o) { return bin(CT_OP_BITWISE_RIGHT_SHIFT, i21, b23, o); }
static ct_status op_logical_and(ct_tensor **o) { return bin(CT_OP_LOGICAL_AND, f23, i21, o); }
static ct_status op_logical_or(ct_tensor **o) { return bin(CT_OP_LOGICAL_OR, b23, d13, o); }
static ct_status op_logical_xor(ct_tensor **o) { return bin(CT_OP_LOGICAL_XOR, h23, w0, o); }

static ct_status prep_empty_f(void) {
    return ct_tensor_empty(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &target);
}
static ct_status prep_empty_d(void) {
    return ct_tensor_empty(SHAPE(0), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &target);
}
static ct_status prep_empty_b(void) {
    return ct_tensor_empty(SHAPE(0), CT_BOOL, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &target);
}
static ct_status prep_f23(void) {
    return ct_tensor_ones(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &target);
}
static ct_status prep_i23(void) {
    return ct_tensor_ones(SHAPE(2, 3), CT_INT64, &CPU, CT_LAYOUT_STRIDED, &target);
}
static ct_status op_pow_out(ct_tensor **o) {
    (void)o;
    return ct_binary_out(CT_OP_POW, i21, d13, ONE, target);
}
static ct_status op_atan2_out(ct_tensor **o) {
    (void)o;
    return ct_binary_out(CT_OP_ATAN2, f23, d13, ONE, target);
}
static ct_status op_logical_and_out(ct_tensor **o) {
    (void)o;
    return ct_binary_out(CT_OP_LOGICAL_AND, f23, i21, ONE, target);
}
static ct_status op_remainder_(ct_tensor **o) {
    (void)o;
    return ct_binary_(CT_OP_REMAINDER, target, d13, ONE);
}
static ct_status op_pow_(ct_tensor **o) {
    (void)o;
    return ct_binary_(CT_OP_POW, target, h23, ONE);
}
static ct_status op_bitwise_or_(ct_tensor **o) {
    (void)o;
    return ct_binary_(CT_OP_BITWISE_OR, target, b23, ONE);
}

/* ---- ternary ---- */

static ct_status ter(ct_terop op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                     ct_tensor **o) {
    return ct_ternary(op, a, b, c, ct_scalar_float(0.5), o);
}
static ct_status op_where(ct_tensor **o) { return ter(CT_TEROP_WHERE, b23, i21, d13, o); }
static ct_status op_where_wrapped(ct_tensor **o) { return ter(CT_TEROP_WHERE, b23, w0, h23, o); }
static ct_status op_clamp_t(ct_tensor **o) { return ter(CT_TEROP_CLAMP, f23, i21, d13, o); }
static ct_status op_clamp_min(ct_tensor **o) {
    return ter(CT_TEROP_CLAMP_MIN, h23, d13, NULL, o);
}
static ct_status op_clamp_max(ct_tensor **o) {
    return ter(CT_TEROP_CLAMP_MAX, i21, w0, NULL, o);
}
static ct_status op_lerp(ct_tensor **o) { return ter(CT_TEROP_LERP, h23, h23, w0, o); }
static ct_status op_addcmul(ct_tensor **o) { return ter(CT_TEROP_ADDCMUL, i21, f23, d13, o); }
static ct_status op_addcdiv(ct_tensor **o) { return ter(CT_TEROP_ADDCDIV, h23, f23, d13, o); }
static ct_status op_masked_fill(ct_tensor **o) {
    return ter(CT_TEROP_MASKED_FILL, f23, b23, w0, o);
}
static ct_status op_clamp_out(ct_tensor **o) {
    (void)o;
    return ct_ternary_out(CT_TEROP_CLAMP, f23, i21, NULL, ONE, target);
}
static ct_status op_addcdiv_out(ct_tensor **o) {
    (void)o;
    return ct_ternary_out(CT_TEROP_ADDCDIV, d13, f23, h23, ONE, target);
}
static ct_status op_lerp_(ct_tensor **o) {
    (void)o;
    return ct_ternary_(CT_TEROP_LERP, target, f23, w0, ONE);
}
static ct_status op_clamp_min_(ct_tensor **o) { /* the bound a tensor */
    (void)o;
    return ct_ternary_(CT_TEROP_CLAMP_MIN, target, i21, NULL, ONE);
}

/* ---- reductions ---- */

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
static ct_status op_var_mean(ct_tensor **o) {
    ct_tensor *m = NULL;
    ct_status st = ct_std_var(x345, DIMS(0, 2), 2, 1, true, false, NULL, o, &m);
    if (st != CT_OK && m != NULL)
        fail_msg("mean not NULL after a failure");
    ct_tensor_release(m);
    return st;
}
static ct_status op_std_all(ct_tensor **o) {
    return ct_std_var(h23, NULL, 0, 0, false, true, NULL, o, NULL);
}
static ct_status op_std_out(ct_tensor **o) {
    return ct_std_var(f23, DIMS(1), 1, 1, false, true, target, o, NULL);
}
static ct_status op_norm2(ct_tensor **o) { return ct_norm(x345, 2, DIMS(1), 1, false, U, NULL, o); }
static ct_status op_norm_inf(ct_tensor **o) {
    return ct_norm(f23, INFINITY, NULL, 0, false, CT_FLOAT64, NULL, o);
}
static ct_status op_norm_fro(ct_tensor **o) {
    return ct_norm_str(x345, "fro", DIMS(0, 2), 2, true, U, NULL, o);
}
static ct_status op_norm_nuc(ct_tensor **o) {
    return ct_norm_str(x345, "nuc", DIMS(2, 0), 2, true, U, NULL, o);
}
static ct_status op_norm_nuc_out(ct_tensor **o) {
    return ct_norm_str(f23, "nuc", NULL, 0, false, U, target, o);
}
static ct_status op_norm_out(ct_tensor **o) {
    return ct_norm(h23, 1.5, DIMS(0), 1, false, U, target, o);
}
static ct_status check_pair(ct_status st, ct_tensor *lo, ct_tensor **hi, ct_tensor **o) {
    if (st != CT_OK && (lo != NULL || *hi != NULL))
        fail_msg("aminmax: a result not NULL after a failure");
    ct_tensor_release(lo);
    *o = *hi;
    return st;
}
static ct_status op_aminmax(ct_tensor **o) {
    ct_tensor *lo = NULL, *hi = NULL;
    ct_status st = ct_aminmax(x345, NULL, false, NULL, NULL, &lo, &hi);
    return check_pair(st, lo, &hi, o);
}
static ct_status op_aminmax_out(ct_tensor **o) {
    ct_tensor *lo = NULL, *hi = NULL;
    ct_status st = ct_aminmax(f23, DIMS(-1), true, target, NULL, &lo, &hi);
    return check_pair(st, lo, &hi, o);
}
static ct_status op_max_dim(ct_tensor **o) {
    ct_tensor *idx = NULL, *v = NULL;
    ct_status st = ct_max_dim(x345, 1, true, &v, &idx);
    return check_pair(st, idx, &v, o);
}
static ct_status op_cumprod(ct_tensor **o) {
    return ct_cumulative(true, i21, 0, U, NULL, o);
}
static ct_status op_cumsum_dtype(ct_tensor **o) {
    return ct_cumulative(false, x345, 2, CT_FLOAT64, NULL, o);
}
static ct_status op_cumsum_out(ct_tensor **o) {
    (void)o;
    ct_tensor *r = NULL;
    ct_status st = ct_cumulative(false, f23, 1, U, target, &r);
    ct_tensor_release(r);
    return st;
}
static ct_status op_cumsum_(ct_tensor **o) {
    (void)o;
    return ct_cumulative_(false, target, 0, U);
}
static ct_status op_nansum(ct_tensor **o) {
    return ct_reduce(CT_REDUCE_NANSUM, x345, DIMS(0, 1), 2, false, U, o);
}
static ct_status op_nanmean_h(ct_tensor **o) {
    return ct_reduce(CT_REDUCE_NANMEAN, h23, NULL, 0, false, U, o);
}
static ct_status op_count_nonzero(ct_tensor **o) {
    return ct_reduce(CT_REDUCE_COUNT_NONZERO, x345, DIMS(2), 1, false, U, o);
}
static ct_status op_logsumexp(ct_tensor **o) {
    return ct_reduce(CT_REDUCE_LOGSUMEXP, d13, DIMS(0), 1, true, U, o);
}
static ct_status op_softmax_last(ct_tensor **o) { return ct_softmax(false, x345, 2, U, NULL, o); }
static ct_status op_log_softmax_dim0(ct_tensor **o) {
    return ct_softmax(true, x345, 0, U, NULL, o);
}
static ct_status op_softmax_half(ct_tensor **o) { return ct_softmax(false, h23, -1, U, NULL, o); }
static ct_status op_softmax_dtype(ct_tensor **o) {
    return ct_softmax(false, d13, 0, CT_FLOAT32, NULL, o);
}
static ct_status op_log_softmax_out(ct_tensor **o) {
    (void)o;
    ct_tensor *r = NULL;
    ct_status st = ct_softmax(true, f23, 1, U, target, &r);
    ct_tensor_release(r);
    return st;
}
static ct_status op_nansum_out(ct_tensor **o) {
    (void)o;
    return ct_reduce_out(CT_REDUCE_NANSUM, f23, DIMS(0), 1, false, U, target);
}
static ct_status op_argmin(ct_tensor **o) { return ct_argmin(x345, DIMS(2), false, o); }

/* ---- joining, splitting, ranges ---- */

static ct_status op_cat(ct_tensor **o) { return ct_tensor_cat(LIST(f23, b23, h23), 3, 0, o); }
static ct_status op_cat_out(ct_tensor **o) {
    (void)o;
    return ct_tensor_cat_out(LIST(f23, i21), 2, 1, target);
}
static ct_status op_stack(ct_tensor **o) { return ct_tensor_stack(LIST(f23, h23), 2, -1, o); }
static ct_status op_hstack(ct_tensor **o) {
    return ct_tensor_join_kind(CT_JOIN_HSTACK, LIST(f23, b23), 2, o);
}
static ct_status op_dstack(ct_tensor **o) {
    return ct_tensor_join_kind(CT_JOIN_DSTACK, LIST(f23, h23, f23), 3, o);
}
static ct_status op_column_stack_out(ct_tensor **o) {
    (void)o;
    return ct_tensor_join_kind_out(CT_JOIN_COLUMN_STACK, LIST(d13, d13), 2, target);
}
static ct_status op_atleast_3d(ct_tensor **o) { return ct_tensor_atleast(i21, 3, o); }
static ct_status op_stack_out(ct_tensor **o) {
    (void)o;
    return ct_tensor_stack_out(LIST(d13, d13, d13), 3, 1, target);
}
/* Splits give lists: keep the last element as the case's result. */
static ct_status take_last(ct_status st, ct_tensor **l, int64_t n, ct_tensor **o) {
    if (st != CT_OK) {
        if (l != NULL || n != 0)
            fail_msg("list not NULL/0 after a failure");
        return st;
    }
    *o = ct_tensor_retain(l[n - 1]);
    ct_tensor_list_release(l, n);
    return st;
}
static ct_status op_split(ct_tensor **o) {
    ct_tensor **l = NULL;
    int64_t n = 0;
    ct_status st = ct_tensor_split(x345, 2, 1, &l, &n);
    return take_last(st, l, n, o);
}
static ct_status op_meshgrid(ct_tensor **o) {
    ct_tensor **l = NULL;
    ct_status st = ct_tensor_meshgrid(LIST(w0, w0, w0), 3, true, &l);
    return take_last(st, l, st == CT_OK ? 3 : 0, o);
}
static ct_status op_split_sizes(ct_tensor **o) {
    ct_tensor **l = NULL;
    int64_t n = 0;
    ct_status st = ct_tensor_split_with_sizes(x345, DIMS(1, 4), 2, -1, &l, &n);
    return take_last(st, l, n, o);
}
static ct_status op_unbind(ct_tensor **o) {
    ct_tensor **l = NULL;
    int64_t n = 0;
    ct_status st = ct_tensor_unbind(f23, 1, &l, &n);
    return take_last(st, l, n, o);
}
static ct_status op_unflatten(ct_tensor **o) {
    return ct_tensor_unflatten(x345, 2, DIMS(5, -1), 2, o);
}
static ct_status op_movedim(ct_tensor **o) {
    return ct_tensor_movedim(x345, DIMS(0, 1), 2, DIMS(2, 0), 2, o);
}
static ct_status op_linspace(ct_tensor **o) {
    return ct_tensor_linspace(ct_scalar_float(-1), ct_scalar_float(1), 7, CT_FLOAT64, NULL,
                              CT_LAYOUT_STRIDED, o);
}
static ct_status op_linspace_int(ct_tensor **o) {
    return ct_tensor_linspace(ct_scalar_int(0), ct_scalar_int(10), 4, CT_INT64, NULL,
                              CT_LAYOUT_STRIDED, o);
}
static ct_status op_logspace(ct_tensor **o) {
    return ct_tensor_logspace(ct_scalar_int(0), ct_scalar_int(3), 4, 2.0, CT_FLOAT32, NULL,
                              CT_LAYOUT_STRIDED, o);
}
static ct_status op_eye_meta(ct_tensor **o) {
    return ct_tensor_eye(4, 2, CT_BOOL, &META, CT_LAYOUT_STRIDED, o);
}
static ct_status op_eye(ct_tensor **o) {
    return ct_tensor_eye(5, 3, CT_INT16, NULL, CT_LAYOUT_STRIDED, o);
}

/* ---- reorder.h, triangle.h ---- */

static ct_status op_flip(ct_tensor **o) { return ct_tensor_flip(x345, DIMS(0, -1), 2, o); }
static ct_status op_roll(ct_tensor **o) {
    return ct_tensor_roll(x345, DIMS(1, -2), 2, DIMS(0, 2), 2, o);
}
static ct_status op_roll_flat(ct_tensor **o) {
    return ct_tensor_roll(x345, DIMS(7), 1, NULL, 0, o);
}
static ct_status op_repeat(ct_tensor **o) { return ct_tensor_repeat(h23, DIMS(2, 1, 3), 3, o); }
static ct_status op_tile(ct_tensor **o) { return ct_tensor_tile(x345, DIMS(2), 1, o); }
static ct_status op_tril(ct_tensor **o) { return ct_tensor_tril(x345, -1, o); }
static ct_status op_triu_out(ct_tensor **o) {
    (void)o;
    return ct_tensor_triu_out(x345, 1, target);
}
static ct_status op_diag_embed(ct_tensor **o) {
    return ct_tensor_diag_embed(x345, -1, 0, 2, o);
}
static ct_status op_diagonal(ct_tensor **o) { return ct_tensor_diagonal(x345, 1, 2, 0, o); }
static ct_status op_unfold(ct_tensor **o) { return ct_tensor_unfold(x345, 2, 2, 1, o); }
static ct_status op_transpose_(ct_tensor **o) {
    (void)o;
    return ct_tensor_transpose_(target, 0, 1);
}
static ct_status op_resize_(ct_tensor **o) {
    (void)o;
    return ct_tensor_resize_(target, DIMS(3, 4, 5, 6, 7, 8, 9), 7, NULL);
}
static ct_status op_addbmm(ct_tensor **o) {
    ct_tensor *b = NULL, *row = NULL;
    ct_status st = ct_tensor_transpose(x345, 1, 2, &b); /* (4, 5, 3) */
    if (st == CT_OK)
        st = ct_tensor_select(f23, 0, 1, &row); /* (3,): broadcast to (3, 3) */
    if (st == CT_OK)
        st = ct_tensor_addbmm(row, x345, b, ONE, ct_scalar_int(2), o);
    ct_tensor_release(b);
    ct_tensor_release(row);
    return st;
}
static ct_status op_addr(ct_tensor **o) {
    ct_tensor *v = NULL;
    CT_TRY(ct_tensor_select(f23, 1, 0, &v)); /* (2,), stride 3 */
    ct_status st = ct_tensor_addr(i21, v, v, ct_scalar_int(2), ONE, o);
    ct_tensor_release(v);
    return st;
}
static ct_status op_addmv_(ct_tensor **o) {
    (void)o;
    ct_tensor *v = NULL;
    CT_TRY(ct_tensor_select(f23, 0, 1, &v)); /* (3,) */
    ct_status st = ct_tensor_addmv_(target, f23, v, ONE, ONE);
    ct_tensor_release(v);
    return st;
}
static ct_status prep_f2(void) {
    return ct_tensor_ones(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &target);
}

/* ---- gather, scatter, index_*, searchsorted ---- */

static ct_status prep_empty_l(void) {
    return ct_tensor_empty(SHAPE(0), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &target);
}
static ct_status op_gather(ct_tensor **o) { return ct_gather(f23, 1, ig, NULL, o); }
static ct_status op_gather_out(ct_tensor **o) { return ct_gather(f23, 0, ig, target, o); }
static ct_status op_scatter(ct_tensor **o) {
    return ct_scatter(f23, 0, ig, f23, NULL, CT_SCATTER_REDUCE_NONE, NULL, o);
}
static ct_status op_scatter_value_out(ct_tensor **o) {
    ct_scalar v = ct_scalar_float(2.5);
    return ct_scatter(f23, 1, ig, NULL, &v, CT_SCATTER_REDUCE_PROD, target, o);
}
static ct_status op_scatter_add_self(ct_tensor **o) { /* src shares self's memory: a copy */
    (void)o;
    return ct_scatter_add_(target, 0, ig, target);
}
static ct_status op_scatter_reduce_mean(ct_tensor **o) {
    return ct_scatter_reduce(f23, 0, ig, f23, CT_SCATTER_REDUCE_MEAN, false, NULL, o);
}
static ct_status op_scatter_reduce_out(ct_tensor **o) {
    return ct_scatter_reduce(f23, 0, ig, f23, CT_SCATTER_REDUCE_AMAX, true, target, o);
}
static ct_status op_index_add(ct_tensor **o) {
    return ct_index_add(f23, 0, ix2, f23, ct_scalar_int(2), NULL, o);
}
static ct_status op_index_add_out(ct_tensor **o) {
    return ct_index_add(f23, 0, ix2, f23, ONE, target, o);
}
static ct_status op_index_fill(ct_tensor **o) {
    return ct_index_fill(x345, 2, ix2, ct_scalar_int(7), o);
}
static ct_status op_index_copy(ct_tensor **o) { return ct_index_copy(f23, 0, ix2, f23, NULL, o); }
static ct_status op_searchsorted(ct_tensor **o) {
    return ct_searchsorted(f23, f23, false, true, NULL, NULL, NULL, o);
}
static ct_status op_searchsorted_sorter_out(ct_tensor **o) {
    return ct_searchsorted(ix2, i21, false, false, "left", ix2, target, o);
}
static ct_status op_bucketize(ct_tensor **o) {
    return ct_bucketize(h23, ix2, true, false, NULL, o);
}
static ct_status op_nonzero(ct_tensor **o) { return ct_tensor_nonzero(x345, o); }
static ct_status op_unique_dim(ct_tensor **o) {
    ct_tensor *inv = NULL, *cnt = NULL;
    ct_status st = ct_unique_dim(x345, 1, false, o, &inv, &cnt);
    ct_tensor_release(inv);
    ct_tensor_release(cnt);
    return st;
}
static ct_status op_unique_consecutive(ct_tensor **o) {
    ct_tensor *inv = NULL;
    ct_status st = ct_unique_consecutive(ig, o, &inv, NULL);
    ct_tensor_release(inv);
    return st;
}

static const fault_case cases[] = {
    CASE(op_pow_ff),
    CASE(op_pow_mixed),
    CASE(op_pow_int),
    CASE(op_pow_wrapped),
    CASE(op_remainder),
    CASE(op_fmod),
    CASE(op_atan2_int),
    CASE(op_hypot),
    CASE(op_bitwise_and),
    CASE(op_bitwise_or),
    CASE(op_bitwise_xor),
    CASE(op_lshift),
    CASE(op_rshift),
    CASE(op_logical_and),
    CASE(op_logical_or),
    CASE(op_logical_xor),
    CASE_ON(op_pow_out, prep_empty_d),
    CASE_ON(op_atan2_out, prep_empty_f),
    CASE_ON(op_logical_and_out, prep_empty_b),
    CASE_NONE(op_remainder_, prep_f23),
    CASE_NONE(op_pow_, prep_f23),
    CASE_NONE(op_bitwise_or_, prep_i23),
    CASE(op_where),
    CASE(op_where_wrapped),
    CASE(op_clamp_t),
    CASE(op_clamp_min),
    CASE(op_clamp_max),
    CASE(op_lerp),
    CASE(op_addcmul),
    CASE(op_addcdiv),
    CASE(op_masked_fill),
    CASE_ON(op_clamp_out, prep_empty_d),
    CASE_ON(op_addcdiv_out, prep_empty_d),
    CASE_NONE(op_lerp_, prep_f23),
    CASE_NONE(op_clamp_min_, prep_f23),
    CASE(op_var_mean),
    CASE(op_std_all),
    CASE_ON(op_std_out, prep_empty_f),
    CASE(op_norm2),
    CASE(op_norm_inf),
    CASE(op_norm_fro),
    CASE(op_norm_nuc),
    CASE_ON(op_norm_nuc_out, prep_empty_f),
    CASE_ON(op_norm_out, prep_empty_f),
    CASE(op_aminmax),
    CASE_ON(op_aminmax_out, prep_empty_f),
    CASE(op_max_dim),
    CASE(op_cumprod),
    CASE(op_cumsum_dtype),
    CASE_ON(op_cumsum_out, prep_empty_f),
    CASE_ON(op_cumsum_, prep_f23),
    CASE(op_nansum),
    CASE(op_nanmean_h),
    CASE(op_count_nonzero),
    CASE(op_logsumexp),
    CASE(op_softmax_last),
    CASE(op_log_softmax_dim0),
    CASE(op_softmax_half),
    CASE(op_softmax_dtype),
    CASE_ON(op_log_softmax_out, prep_empty_f),
    CASE_ON(op_nansum_out, prep_empty_f),
    CASE(op_argmin),
    CASE(op_cat),
    CASE_ON(op_cat_out, prep_empty_d),
    CASE(op_stack),
    CASE(op_hstack),
    CASE(op_dstack),
    CASE_ON(op_column_stack_out, prep_empty_d),
    CASE(op_atleast_3d),
    CASE_ON(op_stack_out, prep_empty_d),
    CASE(op_split),
    CASE(op_split_sizes),
    CASE(op_meshgrid),
    CASE(op_unbind),
    CASE(op_unflatten),
    CASE(op_movedim),
    CASE(op_linspace),
    CASE(op_linspace_int),
    CASE(op_logspace),
    CASE(op_eye_meta),
    CASE(op_eye),
    CASE(op_flip),
    CASE(op_roll),
    CASE(op_roll_flat),
    CASE(op_repeat),
    CASE(op_tile),
    CASE(op_tril),
    CASE_ON(op_triu_out, prep_empty_f),
    CASE(op_diagonal),
    CASE(op_diag_embed),
    CASE(op_unfold),
    CASE_ON(op_transpose_, prep_f23),
    CASE_ON(op_resize_, prep_f23),
    CASE(op_addbmm),
    CASE(op_addr),
    CASE_ON(op_addmv_, prep_f2),
    CASE(op_gather),
    CASE_ON(op_gather_out, prep_empty_f),
    CASE(op_scatter),
    CASE_ON(op_scatter_value_out, prep_empty_f),
    CASE_ON(op_scatter_add_self, prep_f23),
    CASE(op_scatter_reduce_mean),
    CASE_ON(op_scatter_reduce_out, prep_empty_f),
    CASE(op_index_add),
    CASE_ON(op_index_add_out, prep_empty_f),
    CASE(op_index_fill),
    CASE(op_index_copy),
    CASE(op_searchsorted),
    CASE_ON(op_searchsorted_sorter_out, prep_empty_l),
    CASE(op_bucketize),
    CASE(op_nonzero),
    CASE(op_unique_dim),
    CASE(op_unique_consecutive),
};

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    return ct_set_allocator(&a) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    bool clean = live_allocs == 0;
    if (!clean)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    ct_set_allocator(NULL);
    return clean ? 0 : -1;
}

static void make_inputs(void) {
    f23 = iota(SHAPE(2, 3));
    ct_tensor *s = NULL;
    OK(ct_tensor_arange(ct_scalar_int(1), ct_scalar_int(3), ONE, CT_INT32, &CPU, CT_LAYOUT_STRIDED,
                        &s));
    OK(ct_tensor_view(s, SHAPE(2, 1), &i21));
    ct_tensor_release(s);
    OK(ct_tensor_arange(ct_scalar_float(0.5), ct_scalar_float(3), ONE, CT_FLOAT64, &CPU,
                        CT_LAYOUT_STRIDED, &s));
    OK(ct_tensor_view(s, SHAPE(1, 3), &d13));
    ct_tensor_release(s);
    OK(ct_tensor_to_dtype(f23, CT_BOOL, &b23));
    OK(ct_tensor_to_dtype(f23, CT_FLOAT16, &h23));
    s = iota(SHAPE(3, 4, 5));
    OK(ct_tensor_permute(s, SHAPE(1, 0, 2), &x345));
    ct_tensor_release(s);
    OK(ct_tensor_wrapped_number(ct_scalar_float(1.5), &w0));
    ct_tensor *g = NULL;
    OK(ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(6), ONE, CT_INT64, &CPU,
                        CT_LAYOUT_STRIDED, &g));
    int64_t *gd = ct_tensor_data_ptr(g);
    for (int k = 0; k < 6; k++)
        gd[k] = (k * 7) % 2;
    OK(ct_tensor_view(g, SHAPE(2, 3), &ig));
    ct_tensor_release(g);
    OK(ct_tensor_arange(ct_scalar_int(1), ct_scalar_int(-1), ct_scalar_int(-1), CT_INT64, &CPU,
                        CT_LAYOUT_STRIDED, &ix2));
}

static void test_fault_ops(void **state) {
    (void)state;
    make_inputs();
    fault_table_run(cases, sizeof cases / sizeof cases[0], "fault_ops");

    /* The library still works: pow with broadcasting gives the right values. */
    ct_tensor *r = NULL;
    OK(ct_binary(CT_OP_POW, i21, d13, ONE, &r));
    assert_sizes(r, 2, 3);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT64);
    assert_true(fabs(((const double *)ct_tensor_data_ptr(r))[5] - 4 * sqrt(2.0)) < 1e-12);
    ct_tensor_release(r);
    ct_tensor_release(f23);
    ct_tensor_release(i21);
    ct_tensor_release(d13);
    ct_tensor_release(b23);
    ct_tensor_release(h23);
    ct_tensor_release(x345);
    ct_tensor_release(w0);
    ct_tensor_release(ig);
    ct_tensor_release(ix2);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fault_ops)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
