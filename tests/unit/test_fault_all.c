/* Allocation-failure injection over the public operations of the core library, in the style
 * of SQLite's and Lua's malloc tests: for each operation, fail allocation 1, 2, ... until the
 * call goes through. At every failure the call must return CT_ERR_NOMEM, leave its out-
 * parameters NULL, hold no memory (live allocation count back to where it was) and leave an
 * in-place or out= target's metadata as it was; the final success must release cleanly, and
 * the library must work normally afterwards. Run under ASan+LSan (build-asan).
 *
 * test_tensor_fault.c (factories, views, copies on an emulated npu) and test_ops.c
 * (test_fault_injection: six ct_add/ct_div forms) own their cases; this table covers the
 * other forms and the rest of the API: cpu/meta/emulated-cuda factories, every view,
 * copies and casts, every arithmetic form with broadcasting and mixed dtypes, sparse,
 * DLPack, printing, storages, generators and device-registry calls. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "tensor_test_util.h"

#include "base/error_impl.h" /* CT_TRY */
#include "fault_table.h"

static const ct_device CUDA = {CT_DEVICE_CUDA, 0};
static const ct_device CUDA1 = {CT_DEVICE_CUDA, 1};

#define ONE ct_scalar_int(1)

static void release_all(ct_tensor **ts, size_t n) {
    for (size_t i = 0; i < n; i++)
        ct_tensor_release(ts[i]);
}
#define RELEASE_ALL(...)                                                                           \
    release_all((ct_tensor *[]){__VA_ARGS__},                                                      \
                sizeof((ct_tensor *[]){__VA_ARGS__}) / sizeof(ct_tensor *))

/* Inputs made once, outside the faults. */
static ct_tensor *f23, *i31, *d14, *cl4, *cu23, *h23, *b23, *cx3, *m23, *sp, *spdup, *z0;

/* ---- factories ---- */

static ct_status op_empty_strided(ct_tensor **o) {
    return ct_tensor_empty_strided(ARR(2, 3), ARR(1, 2), 2, CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_zeros(ct_tensor **o) {
    return ct_tensor_zeros(SHAPE(3, 4), CT_INT64, &CPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_ones(ct_tensor **o) {
    return ct_tensor_ones(SHAPE(5), CT_BOOL, &CPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_ones_meta(ct_tensor **o) {
    return ct_tensor_ones(SHAPE(5, 6), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, o);
}
static ct_status op_full_cuda(ct_tensor **o) {
    return ct_tensor_full(SHAPE(2, 2), ct_scalar_float(1.5), CT_FLOAT16, &CUDA, CT_LAYOUT_STRIDED,
                          o);
}
static ct_status op_empty_like_cl(ct_tensor **o) {
    return ct_tensor_empty_like(cl4, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE, o);
}
static ct_status op_zeros_like_cuda(ct_tensor **o) {
    return ct_tensor_zeros_like(f23, CT_INT16, &CUDA, CT_MEMFMT_PRESERVE, o);
}
static ct_status op_full_like(ct_tensor **o) {
    return ct_tensor_full_like(i31, ct_scalar_int(7), CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE,
                               o);
}
static ct_status op_arange(ct_tensor **o) {
    return ct_tensor_arange(ct_scalar_float(0), ct_scalar_float(2), ct_scalar_float(0.25),
                            CT_DTYPE_UNDEFINED, NULL, CT_LAYOUT_STRIDED, o);
}
static ct_status op_from_data(ct_tensor **o) {
    const double d[3] = {1, 2, 3};
    return ct_tensor_from_data(SHAPE(3), CT_FLOAT64, d, &CPU, o);
}
static ct_status op_scalar_cuda(ct_tensor **o) {
    return ct_tensor_scalar_tensor(ct_scalar_float(2), CT_FLOAT32, &CUDA, o);
}
static ct_status op_rand(ct_tensor **o) {
    return ct_tensor_rand(SHAPE(4, 3), NULL, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, o);
}
static ct_status op_randn_gen(ct_tensor **o) {
    ct_generator *g = NULL;
    CT_TRY(ct_generator_new(7, &g));
    ct_status st = ct_tensor_randn(SHAPE(6), g, CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, o);
    ct_generator_free(g);
    return st;
}
static ct_status op_rand_like_cuda(ct_tensor **o) {
    return ct_tensor_rand_like(cu23, NULL, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE, o);
}
static ct_status op_randint_cuda(ct_tensor **o) {
    return ct_tensor_randint(-5, INT64_MAX, SHAPE(2, 5), NULL, CT_INT64, &CUDA, CT_LAYOUT_STRIDED,
                             o);
}
static ct_status op_from_storage(ct_tensor **o) {
    ct_storage *s = NULL;
    CT_TRY(ct_storage_new(CPU, 64, &s));
    ct_status st = ct_tensor_from_storage(s, ARR(2, 2), ARR(1, 2), 2, 4, CT_INT32, o);
    ct_storage_release(s);
    return st;
}
static float wrapped_mem[8];
static int finalized;
static void on_final(void *ctx, void *data) {
    (void)ctx;
    (void)data;
    finalized++;
}
static ct_status op_storage_wrap(ct_tensor **o) {
    ct_storage *s = NULL;
    CT_TRY(ct_storage_wrap(CPU, wrapped_mem, sizeof wrapped_mem, on_final, NULL, &s));
    ct_status st = ct_tensor_from_storage(s, ARR(8), NULL, 1, 0, CT_FLOAT32, o);
    ct_storage_release(s);
    return st;
}
static ct_status op_storage_new_cuda(ct_tensor **o) {
    (void)o;
    ct_storage *s = NULL;
    ct_status st = ct_storage_new(CUDA, 32, &s);
    if (st != CT_OK && s != NULL)
        fail_msg("storage not NULL after a failure");
    ct_storage_release(s);
    return st;
}
static ct_status op_generator(ct_tensor **o) {
    (void)o;
    ct_generator *g = NULL;
    ct_status st = ct_generator_new(3, &g);
    if (st != CT_OK && g != NULL)
        fail_msg("generator not NULL after a failure");
    ct_generator_free(g);
    return st;
}

static ct_status op_get_data_ptr(ct_tensor **o) { /* allocation-free; sparse: an error */
    (void)o;
    void *p = NULL;
    CT_TRY(ct_tensor_get_data_ptr(f23, &p));
    if (p != ct_tensor_data_ptr(f23) ||
        ct_tensor_get_data_ptr(sp, &p) != CT_ERR_RUNTIME || p != NULL)
        fail_msg("ct_tensor_get_data_ptr");
    return CT_OK;
}

/* ---- views ---- */

static ct_status op_alias(ct_tensor **o) { return ct_tensor_alias(f23, o); }
static ct_status op_t(ct_tensor **o) { return ct_tensor_t(f23, o); }
static ct_status op_transpose_cuda(ct_tensor **o) { return ct_tensor_transpose(cu23, 0, 1, o); }
static ct_status op_permute(ct_tensor **o) { return ct_tensor_permute(cl4, SHAPE(3, 1, 0, 2), o); }
static ct_status op_view_meta(ct_tensor **o) { return ct_tensor_view(m23, SHAPE(6), o); }
static ct_status op_reshape_view(ct_tensor **o) { return ct_tensor_reshape(f23, SHAPE(-1, 2), o); }
static ct_status op_expand_cuda(ct_tensor **o) { return ct_tensor_expand(cu23, SHAPE(4, 2, 3), o); }
static ct_status op_narrow_neg(ct_tensor **o) { return ct_tensor_narrow(f23, -1, 1, 2, o); }
static ct_status op_select_cuda(ct_tensor **o) { return ct_tensor_select(cu23, 1, -1, o); }
static ct_status op_slice_neg(ct_tensor **o) {
    return ct_tensor_slice(i31, 0, -2, CT_SLICE_END, 1, o);
}
static ct_status op_squeeze_dim(ct_tensor **o) { return ct_tensor_squeeze_dim(i31, 1, o); }
static ct_status op_unsqueeze_meta(ct_tensor **o) { return ct_tensor_unsqueeze(m23, -1, o); }
static ct_status op_flatten_cl(ct_tensor **o) { return ct_tensor_flatten(cl4, 0, -1, o); }
static ct_status op_as_strided_off(ct_tensor **o) {
    return ct_tensor_as_strided(cu23, ARR(2), ARR(3), 1, ARR(1), o);
}

/* ---- copies and casts ---- */

static ct_status prep_f23(void) {
    return ct_tensor_zeros(SHAPE(2, 3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &target);
}
static ct_status prep_cuda_i(void) {
    return ct_tensor_zeros(SHAPE(2, 3), CT_INT32, &CUDA1, CT_LAYOUT_STRIDED, &target);
}
static ct_status prep_empty(void) {
    return ct_tensor_empty(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &target);
}
static ct_status prep_empty_i64(void) {
    return ct_tensor_empty(SHAPE(0), CT_INT64, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                           &target);
}
/* out= forms written from a functional result (argmax, nonzero) */
static ct_status op_argmax_out(ct_tensor **o) {
    (void)o;
    int64_t dim = 1;
    return ct_argmax_out(f23, &dim, false, target);
}
static ct_status op_nonzero_out(ct_tensor **o) {
    (void)o;
    return ct_tensor_nonzero_out(f23, target);
}
static ct_status prep_cd(void) { /* complex128 (3, 4): the type of i31 * cx3-like results */
    return ct_tensor_zeros(SHAPE(3, 4), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED, &target);
}
static ct_status op_copy_cast_to_cuda(ct_tensor **o) { /* cpu float -> other cuda device, int */
    (void)o;
    return ct_tensor_copy_(target, f23);
}
static ct_status op_copy_from_cuda_bcast(ct_tensor **o) { /* cuda half (2, 3) <- broadcast */
    (void)o;
    ct_tensor *row = NULL;
    CT_TRY(ct_tensor_select(cu23, 0, 1, &row));
    ct_status st = ct_tensor_copy_(target, row);
    ct_tensor_release(row);
    return st;
}
static ct_status op_zero_(ct_tensor **o) {
    (void)o;
    return ct_tensor_zero_(target);
}
static ct_status op_fill_cuda(ct_tensor **o) {
    (void)o;
    return ct_tensor_fill_(target, ct_scalar_int(4));
}
static ct_status op_clone_cl(ct_tensor **o) { return ct_tensor_clone(cl4, CT_MEMFMT_PRESERVE, o); }
static ct_status op_contiguous_cl(ct_tensor **o) {
    return ct_tensor_contiguous(cl4, CT_MEMFMT_CONTIGUOUS, o);
}
static ct_status op_to_dtype(ct_tensor **o) { return ct_tensor_to_dtype(i31, CT_COMPLEX128, o); }
static ct_status op_to_meta(ct_tensor **o) { return ct_tensor_to_device(f23, META, o); }
static ct_status op_to_cpu(ct_tensor **o) { return ct_tensor_to_device(cu23, CPU, o); }
static ct_status op_to_copy_cl(ct_tensor **o) {
    return ct_tensor_to(cl4, CT_BFLOAT16, &CUDA, true, CT_MEMFMT_CHANNELS_LAST, o);
}
static ct_status op_item_cuda(ct_tensor **o) {
    (void)o;
    ct_tensor *s = NULL;
    CT_TRY(ct_tensor_select(cu23, 0, 0, &s));
    ct_tensor *e = NULL;
    ct_status st = ct_tensor_select(s, 0, 2, &e);
    ct_scalar v;
    if (st == CT_OK)
        st = ct_tensor_item(e, &v);
    ct_tensor_release(e);
    ct_tensor_release(s);
    return st;
}

/* ---- arithmetic: broadcasting, mixed dtypes, non-contiguous operands, devices ---- */

static ct_status op_add_mixed(ct_tensor **o) { return ct_add(i31, d14, ct_scalar_int(2), o); }
static ct_status op_add_reduced(ct_tensor **o) { return ct_add(h23, b23, ONE, o); }
static ct_status op_add_cuda(ct_tensor **o) { return ct_add(cu23, cu23, ct_scalar_float(.5), o); }
static ct_status op_add_wrapped(ct_tensor **o) { return ct_add(f23, z0, ONE, o); }
static ct_status op_add_scalar_tensor_cuda(ct_tensor **o) { return ct_add(z0, cu23, ONE, o); }
/* comparisons and their family (src/kernels/compare.c, maximum's loops) */
static ct_status op_lt_mixed(ct_tensor **o) { return ct_lt(i31, d14, o); }
static ct_status op_eq_scalar(ct_tensor **o) { return ct_eq_scalar(h23, ct_scalar_float(.5), o); }
static ct_status op_isnan(ct_tensor **o) { return ct_isnan(b23, o); }
static ct_status op_maximum_mixed(ct_tensor **o) { return ct_maximum(i31, d14, o); }
static ct_status op_isclose(ct_tensor **o) { return ct_isclose(f23, f23, 1e-5, 1e-8, true, o); }
static ct_status op_add_out_resize(ct_tensor **o) {
    (void)o;
    return ct_add_out(i31, d14, ONE, target);
}
static ct_status op_add_scalar(ct_tensor **o) {
    return ct_add_scalar(i31, ct_scalar_float(1.5), ONE, o);
}
static ct_status op_sub_t(ct_tensor **o) { /* transposed, non-contiguous operand */
    ct_tensor *t = NULL;
    CT_TRY(ct_tensor_t(f23, &t));
    ct_status st = ct_sub(t, i31, ct_scalar_int(3), o);
    ct_tensor_release(t);
    return st;
}
static ct_status op_sub_out(ct_tensor **o) {
    (void)o;
    return ct_sub_out(f23, h23, ONE, target);
}
static ct_status op_sub_(ct_tensor **o) {
    (void)o;
    return ct_sub_(target, b23, ct_scalar_int(2));
}
static ct_status op_sub_scalar(ct_tensor **o) {
    return ct_sub_scalar(cu23, ct_scalar_int(1), ONE, o);
}
static ct_status op_mul_complex(ct_tensor **o) { return ct_mul(i31, cx3, o); }
static ct_status op_mul_out(ct_tensor **o) {
    (void)o;
    return ct_mul_out(i31, d14, target);
}
static ct_status op_mul_(ct_tensor **o) {
    (void)o;
    return ct_mul_(target, d14);
}
static ct_status op_mul_scalar(ct_tensor **o) { return ct_mul_scalar(h23, ct_scalar_float(3), o); }
static ct_status op_div_true(ct_tensor **o) { return ct_div(i31, i31, CT_ROUNDING_NONE, o); }
static ct_status op_div_trunc(ct_tensor **o) { return ct_div(d14, i31, CT_ROUNDING_TRUNC, o); }
static ct_status op_div_floor(ct_tensor **o) { return ct_div(i31, i31, CT_ROUNDING_FLOOR, o); }
static ct_status op_div_out(ct_tensor **o) {
    (void)o;
    return ct_div_out(f23, h23, CT_ROUNDING_FLOOR, target);
}
static ct_status op_div_(ct_tensor **o) {
    (void)o;
    return ct_div_(target, b23, CT_ROUNDING_NONE);
}
static ct_status op_div_scalar(ct_tensor **o) {
    return ct_div_scalar(i31, ct_scalar_int(2), CT_ROUNDING_FLOOR, o);
}
static ct_status op_rsub_scalar(ct_tensor **o) {
    return ct_rsub_scalar(h23, ct_scalar_int(2), ONE, o);
}
static ct_status op_rdiv(ct_tensor **o) { return ct_rdiv(i31, z0, o); }
static ct_status op_rdiv_scalar(ct_tensor **o) {
    return ct_rdiv_scalar(cl4, ct_scalar_float(2.5), o);
}
/* ---- unary ops (ctensor/unary.def) ---- */
static ct_status op_unary_exp_half(ct_tensor **o) { return ct_unary(CT_UNOP_EXP, h23, o); }
static ct_status op_unary_sqrt_int(ct_tensor **o) { return ct_unary(CT_UNOP_SQRT, i31, o); }
static ct_status op_unary_abs_complex(ct_tensor **o) { return ct_unary(CT_UNOP_ABS, cx3, o); }
static ct_status op_unary_relu_half(ct_tensor **o) { return ct_unary(CT_UNOP_RELU, h23, o); }
static ct_status op_unary_out(ct_tensor **o) {
    (void)o;
    return ct_unary_out(CT_UNOP_SIN, i31, target);
}
static ct_status op_unary_(ct_tensor **o) {
    (void)o;
    return ct_unary_(CT_UNOP_NEG, target);
}
static ct_status op_round_decimals(ct_tensor **o) { return ct_round_decimals(f23, 2, o); }

static ct_status op_full_dtype(ct_tensor **o) {
    /* no allocation: the inferred dtype makes the tensor */
    ct_dtype d = CT_DTYPE_UNDEFINED;
    CT_TRY(ct_full_dtype(ct_scalar_complex(1, 1), CT_DTYPE_UNDEFINED, &d));
    return ct_tensor_full(SHAPE(2), ct_scalar_complex(1, 1), d, &CPU, CT_LAYOUT_STRIDED, o);
}

/* ---- sparse ---- */

static ct_status op_coo(ct_tensor **o) {
    const int64_t idx[] = {0, 1, 1, 2, 0, 2};
    ct_tensor *i = NULL, *v = NULL;
    CT_TRY(ct_tensor_from_data(SHAPE(2, 3), CT_INT64, idx, &CPU, &i));
    ct_status st = ct_tensor_ones(SHAPE(3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &v);
    ct_sparse_coo_options opt = {CT_FLOAT64, NULL, true, false};
    if (st == CT_OK)
        st = ct_sparse_coo_tensor(i, v, SHAPE(3, 3), &opt, o);
    ct_tensor_release(i);
    ct_tensor_release(v);
    return st;
}
static ct_status op_coo_zeros(ct_tensor **o) {
    return ct_sparse_coo_zeros(SHAPE(2, 3, 4), 2, CT_FLOAT32, &CPU, o);
}
static ct_status op_coalesce(ct_tensor **o) { return ct_sparse_coalesce(spdup, o); }
static ct_status op_indices(ct_tensor **o) { return ct_sparse_indices(sp, o); }
static ct_status op_values(ct_tensor **o) { return ct_sparse_values(sp, o); }
static ct_status op_raw_values(ct_tensor **o) { return ct_sparse_raw_values(spdup, o); }
static ct_status op_to_dense(ct_tensor **o) { return ct_sparse_to_dense(spdup, o); }
static ct_status op_to_sparse(ct_tensor **o) { return ct_sparse_to_sparse(f23, o); }
static ct_status op_to_sparse_dim(ct_tensor **o) { return ct_sparse_to_sparse_dim(cl4, 2, o); }
static ct_status op_sparse_add(ct_tensor **o) {
    return ct_sparse_add(sp, spdup, ct_scalar_int(2), o);
}
static ct_status op_sparse_add_dense(ct_tensor **o) {
    ct_tensor *d = NULL;
    CT_TRY(ct_sparse_to_dense(sp, &d));
    ct_status st = ct_sparse_add(d, spdup, ONE, o);
    ct_tensor_release(d);
    return st;
}

/* ---- DLPack ---- */

static ct_status op_dlpack_export(ct_tensor **o) {
    (void)o;
    ct_dl_managed_tensor *m = NULL;
    ct_status st = ct_tensor_to_dlpack(f23, &m);
    if (st != CT_OK && m != NULL)
        fail_msg("managed tensor not NULL after a failure");
    if (m != NULL)
        m->deleter(m);
    return st;
}
static ct_status op_dlpack_roundtrip(ct_tensor **o) {
    ct_dl_managed_tensor *m = NULL;
    CT_TRY(ct_tensor_to_dlpack(cl4, &m));
    return ct_tensor_from_dlpack(m, o); /* calls the deleter itself on failure */
}
static ct_status op_dlpack_versioned(ct_tensor **o) {
    ct_dl_managed_tensor_versioned *m = NULL;
    CT_TRY(ct_tensor_to_dlpack_versioned(cu23, 0, &m));
    uint64_t flags = 1;
    ct_status st = ct_tensor_from_dlpack_versioned(m, 0, &flags, o);
    if (st != CT_OK && flags != 0)
        fail_msg("flags not 0 after a failure");
    return st;
}

/* ---- printing ---- */

static ct_status check_string(ct_status st, char **str) {
    char *s = *str;
    if (st != CT_OK && s != NULL)
        fail_msg("string not NULL after a failure");
    ct_string_free(s);
    return st;
}
static ct_status op_repr(ct_tensor **o) {
    (void)o;
    char *s = NULL;
    ct_status st = ct_tensor_repr(d14, NULL, &s);
    return check_string(st, &s);
}
static ct_status op_repr_named_cuda(ct_tensor **o) {
    (void)o;
    char *s = NULL;
    ct_status st = ct_tensor_repr_named(cu23, NULL, "param", &s);
    return check_string(st, &s);
}
static ct_status op_repr_complex(ct_tensor **o) {
    (void)o;
    ct_print_options opt = ct_print_options_default();
    opt.precision = 2;
    char *s = NULL;
    ct_status st = ct_tensor_repr(cx3, &opt, &s);
    return check_string(st, &s);
}
static ct_status op_repr_meta(ct_tensor **o) {
    (void)o;
    char *s = NULL;
    ct_status st = ct_tensor_repr(m23, NULL, &s);
    return check_string(st, &s);
}
static ct_status op_sparse_repr(ct_tensor **o) {
    (void)o;
    char *s = NULL;
    ct_status st = ct_sparse_repr(spdup, NULL, &s);
    return check_string(st, &s);
}
static ct_status op_sparse_repr_named(ct_tensor **o) {
    (void)o;
    char *s = NULL;
    ct_status st = ct_sparse_repr_named(sp, NULL, "w", &s);
    return check_string(st, &s);
}

/* ---- devices and the registry ---- */

static ct_status op_device_alloc(ct_tensor **o) {
    (void)o;
    void *p = NULL;
    ct_status st = ct_device_alloc(CPU, 100, 64, &p, NULL);
    if (st != CT_OK && p != NULL)
        fail_msg("pointer not NULL after a failure");
    if (p != NULL)
        ct_device_free(CPU, p, 100, 64);
    return st;
}
static ct_status op_register_backend(ct_tensor **o) {
    (void)o;
    ct_status st = ct_backend_register_host_emulated(CT_DEVICE_XPU, 1);
    if (st == CT_OK)
        st = ct_backend_unregister(CT_DEVICE_XPU);
    else if (ct_backend_is_registered(CT_DEVICE_XPU))
        fail_msg("backend registered after a failure");
    return st;
}

static const fault_case cases[] = {
    CASE(op_empty_strided),
    CASE(op_zeros),
    CASE(op_ones),
    CASE(op_ones_meta),
    CASE(op_full_cuda),
    CASE(op_empty_like_cl),
    CASE(op_zeros_like_cuda),
    CASE(op_full_like),
    CASE(op_arange),
    CASE(op_from_data),
    CASE(op_scalar_cuda),
    CASE(op_rand),
    CASE(op_randn_gen),
    CASE(op_rand_like_cuda),
    CASE(op_randint_cuda),
    CASE(op_from_storage),
    CASE(op_storage_wrap),
    CASE(op_storage_new_cuda),
    CASE(op_generator),
    CASE_NONE(op_get_data_ptr, NULL),
    CASE(op_alias),
    CASE(op_t),
    CASE(op_transpose_cuda),
    CASE(op_permute),
    CASE(op_view_meta),
    CASE(op_reshape_view),
    CASE(op_expand_cuda),
    CASE(op_narrow_neg),
    CASE(op_select_cuda),
    CASE(op_slice_neg),
    CASE(op_squeeze_dim),
    CASE(op_unsqueeze_meta),
    CASE(op_flatten_cl),
    CASE(op_as_strided_off),
    CASE_ON(op_copy_cast_to_cuda, prep_cuda_i),
    CASE_ON(op_copy_from_cuda_bcast, prep_f23),
    CASE_NONE(op_zero_, prep_f23),
    CASE_NONE(op_fill_cuda, prep_cuda_i),
    CASE(op_clone_cl),
    CASE(op_contiguous_cl),
    CASE(op_to_dtype),
    CASE(op_to_meta),
    CASE(op_to_cpu),
    CASE(op_to_copy_cl),
    CASE(op_item_cuda),
    CASE(op_add_mixed),
    CASE(op_lt_mixed),
    CASE(op_eq_scalar),
    CASE(op_isnan),
    CASE(op_maximum_mixed),
    CASE(op_isclose),
    CASE(op_add_reduced),
    CASE(op_add_cuda),
    CASE(op_add_wrapped),
    CASE(op_add_scalar_tensor_cuda),
    CASE_ON(op_add_out_resize, prep_empty),
    CASE(op_add_scalar),
    CASE(op_sub_t),
    CASE_ON(op_sub_out, prep_empty),
    CASE_NONE(op_sub_, prep_f23),
    CASE(op_sub_scalar),
    CASE(op_mul_complex),
    CASE_ON(op_mul_out, prep_empty),
    CASE_NONE(op_mul_, prep_cd),
    CASE(op_mul_scalar),
    CASE(op_div_true),
    CASE(op_div_trunc),
    CASE(op_div_floor),
    CASE_ON(op_div_out, prep_empty),
    CASE_NONE(op_div_, prep_f23),
    CASE(op_div_scalar),
    CASE(op_rsub_scalar),
    CASE(op_rdiv),
    CASE(op_rdiv_scalar),
    CASE(op_unary_exp_half),
    CASE(op_unary_sqrt_int),
    CASE(op_unary_abs_complex),
    CASE(op_unary_relu_half),
    CASE_ON(op_unary_out, prep_empty),
    CASE_ON(op_argmax_out, prep_empty_i64),
    CASE_ON(op_nonzero_out, prep_empty_i64),
    CASE_NONE(op_unary_, prep_f23),
    CASE(op_round_decimals),
    CASE(op_full_dtype),
    CASE(op_coo),
    CASE(op_coo_zeros),
    CASE(op_coalesce),
    CASE(op_indices),
    CASE(op_values),
    CASE_NONE(op_raw_values, NULL),
    CASE(op_to_dense),
    CASE(op_to_sparse),
    CASE(op_to_sparse_dim),
    CASE(op_sparse_add),
    CASE(op_sparse_add_dense),
    CASE(op_dlpack_export),
    CASE(op_dlpack_roundtrip),
    CASE(op_dlpack_versioned),
    CASE(op_repr),
    CASE(op_repr_named_cuda),
    CASE(op_repr_complex),
    CASE(op_repr_meta),
    CASE(op_sparse_repr),
    CASE(op_sparse_repr_named),
    CASE(op_device_alloc),
    CASE_NONE(op_register_backend, NULL),
};

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    return ct_set_allocator(&a) == CT_OK &&
                   ct_backend_register_host_emulated(CT_DEVICE_CUDA, 2) == CT_OK
               ? 0
               : -1;
}

static int teardown(void **state) {
    (void)state;
    ct_status st = ct_backend_unregister(CT_DEVICE_CUDA);
    bool clean = live_allocs == 0;
    if (!clean)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    ct_set_allocator(NULL);
    return st == CT_OK && clean ? 0 : -1;
}

static void make_inputs(void) {
    f23 = iota(SHAPE(2, 3));
    OK(ct_tensor_arange(ct_scalar_int(1), ct_scalar_int(4), ONE, CT_INT32, &CPU, CT_LAYOUT_STRIDED,
                        &z0)); /* scratch for i31 */
    OK(ct_tensor_view(z0, SHAPE(3, 1), &i31));
    ct_tensor_release(z0);
    OK(ct_tensor_full(SHAPE(1, 4), ct_scalar_float(2.5), CT_FLOAT64, &CPU, CT_LAYOUT_STRIDED,
                      &d14));
    OK(ct_tensor_empty(SHAPE(2, 3, 4, 5), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CHANNELS_LAST, &cl4));
    OK(ct_tensor_fill_(cl4, ct_scalar_float(1)));
    OK(ct_tensor_to(f23, CT_FLOAT16, &CUDA, false, CT_MEMFMT_PRESERVE, &cu23));
    OK(ct_tensor_to_dtype(f23, CT_FLOAT16, &h23));
    OK(ct_tensor_to_dtype(f23, CT_BFLOAT16, &b23));
    OK(ct_tensor_full(SHAPE(3, 1), ct_scalar_complex(1, -1), CT_COMPLEX64, &CPU, CT_LAYOUT_STRIDED,
                      &cx3));
    OK(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &m23));
    OK(ct_tensor_wrapped_number(ct_scalar_float(0.5), &z0));
    /* sp: 3x3 coalesced, 2 entries; spdup: 3x3 with a duplicate index (uncoalesced) */
    ct_tensor *i = NULL, *v = NULL;
    OK(ct_tensor_from_data(SHAPE(2, 2), CT_INT64, ((const int64_t[]){0, 2, 1, 0}), &CPU, &i));
    OK(ct_tensor_ones(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &v));
    ct_sparse_coo_options coalesced = {CT_DTYPE_UNDEFINED, NULL, true, true};
    OK(ct_sparse_coo_tensor(i, v, SHAPE(3, 3), &coalesced, &sp));
    RELEASE_ALL(i, v);
    OK(ct_tensor_from_data(SHAPE(2, 3), CT_INT64, ((const int64_t[]){2, 0, 2, 1, 1, 1}), &CPU, &i));
    OK(ct_tensor_arange(ct_scalar_int(1), ct_scalar_int(4), ONE, CT_FLOAT32, &CPU,
                        CT_LAYOUT_STRIDED, &v));
    OK(ct_sparse_coo_tensor(i, v, SHAPE(3, 3), NULL, &spdup));
    RELEASE_ALL(i, v);
}

static void test_fault_all(void **state) {
    (void)state;
    make_inputs();
    fault_table_run(cases, sizeof cases / sizeof cases[0], "fault_all");

    /* The library still works: a normal broadcasting operation with the right values. */
    ct_tensor *r = NULL;
    OK(ct_add(i31, d14, ct_scalar_int(2), &r));
    assert_sizes(r, 3, 4);
    assert_int_equal(ct_tensor_dtype(r), CT_FLOAT64);
    assert_true(((const double *)ct_tensor_data_ptr(r))[11] == 3 + 5.0);
    ct_tensor_release(r);
    RELEASE_ALL(f23, i31, d14, cl4, cu23, h23, b23, cx3, m23, z0, sp, spdup);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fault_all)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
