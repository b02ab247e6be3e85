/* Matrix products (include/ctensor/linalg.h): PyTorch 1.13's checks, shapes and dtype rule,
 * then the host kernel (src/kernels/gemm.c).
 *
 * Every product reduces to one batched kernel call, out = beta * out + alpha * a @ b on
 * [batch, m, k] x [batch, k, n], with the operands' own strides (no copies of transposed
 * inputs: Note [gemm kernels]). The result is made contiguous; the *_out forms compute it
 * and then resize and fill `out` (PyTorch's resize_output), so an out that overlaps an input
 * still sees the inputs' old values. On accelerators each public function first stages
 * itself whole through host memory when all its tensors are on one device (linalg_stage.c).
 */
#include <inttypes.h>
#include <string.h>

#include "base/error_impl.h"
#include "ctensor/linalg.h"
#include "ctensor/ops.h"
#include "ctensor/warning.h"
#include "device/device_impl.h"
#include "dtype/table_impl.h"
#include "kernels/gemm.h"
#include "ops/linalg_impl.h"
#include "ops/reduce_impl.h"
#include "tensor/tensor_impl.h"

static bool same_device(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }

/* PyTorch's message for two devices. */
static ct_status check_same_device(const ct_tensor *a, const ct_tensor *b) {
    if (!same_device(a->device, b->device)) {
        char da[64], db[64];
        CT_TRY(ct_device_str(a->device, da, sizeof da));
        CT_TRY(ct_device_str(b->device, db, sizeof db));
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s!",
                            da, db);
    }
    return CT_OK;
}

/* check_same_device, then whether the host kernel can run there. Accelerator tensors are
 * staged before (linalg_stage.c), so the refusal is only a guard: an op whose tensors are on
 * two devices fails first on check_same_device, whatever their order. */
static ct_status check_device(const ct_tensor *a, const ct_tensor *b) {
    CT_TRY(check_same_device(a, b));
    /* host kernels run wherever device pointers are host memory (the emulated accelerator) */
    if (a->device.type != CT_DEVICE_META && !ct_device_impl_host_accessible(a->device.type))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "matmul: not implemented on %s yet",
                            ct_device_type_name(a->device.type));
    return CT_OK;
}

static ct_status check_same_dtype(const ct_tensor *a, const ct_tensor *b) {
    if (a->dtype != b->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                            ct_dtype_cpp_name(a->dtype), ct_dtype_cpp_name(b->dtype));
    return CT_OK;
}

/* The dtypes the kernel has; PyTorch's dispatch message for the others. */
static ct_status check_kernel(ct_dtype d, const char *name) {
    switch (d) {
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_FLOAT32:
    case CT_FLOAT64:
    case CT_COMPLEX64:
    case CT_COMPLEX128:
        return CT_OK;
    default:
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                            ct_dtype_cpp_name(d));
    }
}

static void scalar_parts(ct_scalar s, double *re, double *im, int64_t *i) {
    *im = 0.0;
    switch (s.kind) {
    case CT_SCALAR_BOOL: *re = s.v.b; *i = s.v.b; break;
    case CT_SCALAR_INT: *re = (double)s.v.i; *i = s.v.i; break;
    case CT_SCALAR_UINT: *re = (double)s.v.u; *i = (int64_t)s.v.u; break;
    case CT_SCALAR_FLOAT: *re = s.v.f; *i = (int64_t)s.v.f; break;
    default: *re = s.v.c.re; *im = s.v.c.im; *i = (int64_t)s.v.c.re; break;
    }
}

/* Strides of a 2-D or 3-D operand as [batch, rows, cols]. */
static void strides3(const ct_tensor *t, int64_t s[3]) {
    if (t->ndim == 3) {
        memcpy(s, t->strides, 3 * sizeof s[0]);
    } else {
        s[0] = 0;
        s[1] = t->strides[0];
        s[2] = t->strides[1];
    }
}

/* r (contiguous, [batch,] m, n) = beta * input + alpha * a @ b. input NULL: a plain product;
 * else broadcastable to r's shape (expand's errors). */
static ct_status product(const ct_tensor *input, const ct_tensor *a, const ct_tensor *b,
                         ct_scalar beta, ct_scalar alpha, ct_tensor *r) {
    bool beta_zero = input == NULL || ct_linalg_impl_scalar_is_zero(beta);
    if (input != NULL) {
        ct_tensor *e = NULL;
        CT_TRY(ct_tensor_expand(input, r->sizes, r->ndim, &e));
        ct_status st = beta_zero || r->device.type == CT_DEVICE_META ? CT_OK
                                                                     : ct_tensor_copy_(r, e);
        ct_tensor_release(e);
        CT_TRY(st);
    }
    if (r->device.type == CT_DEVICE_META || r->numel == 0)
        return CT_OK;
    int32_t nd = a->ndim;
    ct_gemm_args g = {
        .dtype = r->dtype,
        .itemsize = ct_dtype_table[r->dtype].itemsize,
        .batch = nd == 3 ? a->sizes[0] : 1,
        .m = a->sizes[nd - 2],
        .k = a->sizes[nd - 1],
        .n = b->sizes[nd - 1],
        .a = ct_tensor_data_ptr(a),
        .b = ct_tensor_data_ptr(b),
        .c = ct_tensor_data_ptr(r),
        .beta_zero = beta_zero,
    };
    strides3(a, g.a_s);
    strides3(b, g.b_s);
    strides3(r, g.c_s);
    if (g.c_s[1] < 1) /* n == 0 or a single row: BLAS wants ldc >= 1 */
        g.c_s[1] = g.n > 1 ? g.n : 1;
    scalar_parts(alpha, &g.alpha_re, &g.alpha_im, &g.alpha_i);
    scalar_parts(beta_zero ? ct_scalar_int(0) : beta, &g.beta_re, &g.beta_im, &g.beta_i);
    return ct_gemm_run(&g);
}

static ct_status new_result(const int64_t *sizes, int32_t ndim, const ct_tensor *like,
                            ct_tensor **out) {
    return ct_tensor_empty(sizes, ndim, like->dtype, &like->device, CT_LAYOUT_STRIDED,
                           CT_MEMFMT_CONTIGUOUS, out);
}

/* ---- checks of each op ----------------------------------------------------------------------- */

static ct_status mm_shapes(const ct_tensor *a, const ct_tensor *b) {
    if (a->sizes[1] != b->sizes[0])
        return ct_set_error(CT_ERR_RUNTIME,
                            "mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                            " and %" PRId64 "x%" PRId64 ")",
                            a->sizes[0], a->sizes[1], b->sizes[0], b->sizes[1]);
    return CT_OK;
}

static ct_status mm_check(const ct_tensor *a, const ct_tensor *b) {
    CT_TRY(ct_tensor_impl_check(a, "ct_tensor_mm"));
    CT_TRY(ct_tensor_impl_check(b, "ct_tensor_mm"));
    if (a->ndim != 2)
        return ct_set_error(CT_ERR_RUNTIME, "self must be a matrix");
    if (b->ndim != 2)
        return ct_set_error(CT_ERR_RUNTIME, "mat2 must be a matrix");
    CT_TRY(mm_shapes(a, b));
    CT_TRY(check_device(a, b));
    CT_TRY(check_same_dtype(a, b));
    return check_kernel(a->dtype, "addmm_impl_cpu_");
}

static ct_status bmm_check(const ct_tensor *a, const ct_tensor *b, const char *kernel) {
    CT_TRY(ct_tensor_impl_check(a, "ct_tensor_bmm"));
    CT_TRY(ct_tensor_impl_check(b, "ct_tensor_bmm"));
    if (a->ndim != 3)
        return ct_set_error(CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b->ndim != 3)
        return ct_set_error(CT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b->sizes[0] != a->sizes[0] || b->sizes[1] != a->sizes[2])
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected size for first two dimensions of batch2 tensor to be: "
                            "[%" PRId64 ", %" PRId64 "] but got: [%" PRId64 ", %" PRId64 "].",
                            a->sizes[0], a->sizes[2], b->sizes[0], b->sizes[1]);
    CT_TRY(check_same_device(a, b)); /* the host check: the callers', after input's device */
    CT_TRY(check_same_dtype(a, b));
    return check_kernel(a->dtype, kernel);
}

/* ---- out= ------------------------------------------------------------------------------------- */

/* Resize `out` to r's shape and copy r into it (PyTorch's resize_output then copy). */
static ct_status deliver(ct_tensor *r, ct_tensor *out, ct_status st) {
    if (st == CT_OK && out->dtype != r->dtype)
        st = ct_set_error(CT_ERR_RUNTIME,
                          "Expected out tensor to have dtype %s, but got %s instead",
                          ct_reduce_impl_meta_name(r->dtype), ct_reduce_impl_meta_name(out->dtype));
    if (st == CT_OK)
        st = ct_linalg_impl_check_out_device(out, r);
    if (st == CT_OK)
        st = ct_linalg_impl_resize_copy(out, r);
    ct_tensor_release(r);
    return st;
}

#define OUT_FORM(name, call)                                                                       \
    ct_status name(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {                       \
        CT_LINALG_STAGE_AB_OUT(name, a, b, out);                                                   \
        CT_TRY(ct_tensor_impl_check(out, #name));                                                  \
        ct_tensor *r = NULL;                                                                       \
        CT_TRY(call(a, b, &r));                                                                    \
        return deliver(r, out, CT_OK);                                                             \
    }

#define START(fn)                                                                                  \
    do {                                                                                           \
        if (out == NULL)                                                                           \
            return ct_set_error(CT_ERR_MISUSE, fn ": out is NULL");                                \
        *out = NULL;                                                                               \
    } while (0)

/* Finish a new result: keep it or drop it. */
static ct_status finish(ct_status st, ct_tensor *r, ct_tensor **out) {
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* ---- mm, bmm, addmm, baddbmm ------------------------------------------------------------------ */

ct_status ct_tensor_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    START("ct_tensor_mm");
    CT_LINALG_STAGE_AB(ct_tensor_mm, a, b, out);
    CT_TRY(mm_check(a, b));
    int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
    ct_tensor *r = NULL;
    CT_TRY(new_result(sizes, 2, a, &r));
    return finish(product(NULL, a, b, ct_scalar_int(0), ct_scalar_int(1), r), r, out);
}

ct_status ct_tensor_bmm(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    START("ct_tensor_bmm");
    CT_LINALG_STAGE_AB(ct_tensor_bmm, a, b, out);
    CT_TRY(bmm_check(a, b, "bmm"));
    CT_TRY(check_device(a, b));
    int64_t sizes[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
    ct_tensor *r = NULL;
    CT_TRY(new_result(sizes, 3, a, &r));
    return finish(product(NULL, a, b, ct_scalar_int(0), ct_scalar_int(1), r), r, out);
}

ct_status ct_tensor_addmm(const ct_tensor *input, const ct_tensor *a, const ct_tensor *b,
                          ct_scalar beta, ct_scalar alpha, ct_tensor **out) {
    START("ct_tensor_addmm");
    CT_LINALG_STAGE_ADD(ct_tensor_addmm, input, a, b, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(input, "ct_tensor_addmm"));
    CT_TRY(ct_tensor_impl_check(a, "ct_tensor_addmm"));
    CT_TRY(ct_tensor_impl_check(b, "ct_tensor_addmm"));
    if (a->ndim != 2)
        return ct_set_error(CT_ERR_RUNTIME, "mat1 must be a matrix, got %" PRId32 "-D tensor",
                            a->ndim);
    if (b->ndim != 2)
        return ct_set_error(CT_ERR_RUNTIME, "mat2 must be a matrix, got %" PRId32 "-D tensor",
                            b->ndim);
    CT_TRY(mm_shapes(a, b));
    int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
    ct_tensor *e = NULL; /* the broadcast check comes before the dtype checks */
    CT_TRY(ct_tensor_expand(input, sizes, 2, &e));
    ct_tensor_release(e);
    CT_TRY(check_same_device(a, b));
    CT_TRY(check_device(input, b));
    if (input->dtype != b->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    if (a->dtype != b->dtype)
        return ct_set_error(CT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
    CT_TRY(check_kernel(a->dtype, "addmm_impl_cpu_"));
    ct_tensor *r = NULL;
    CT_TRY(new_result(sizes, 2, a, &r));
    return finish(product(input, a, b, beta, alpha, r), r, out);
}

ct_status ct_tensor_baddbmm(const ct_tensor *input, const ct_tensor *a, const ct_tensor *b,
                            ct_scalar beta, ct_scalar alpha, ct_tensor **out) {
    START("ct_tensor_baddbmm");
    CT_LINALG_STAGE_ADD(ct_tensor_baddbmm, input, a, b, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(input, "ct_tensor_baddbmm"));
    CT_TRY(bmm_check(a, b, "baddbmm"));
    int64_t sizes[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
    ct_tensor *e = NULL;
    CT_TRY(ct_tensor_expand(input, sizes, 3, &e));
    ct_tensor_release(e);
    CT_TRY(check_device(input, a));
    CT_TRY(check_same_dtype(input, a));
    ct_tensor *r = NULL;
    CT_TRY(new_result(sizes, 3, a, &r));
    return finish(product(input, a, b, beta, alpha, r), r, out);
}

OUT_FORM(ct_tensor_mm_out, ct_tensor_mm)
OUT_FORM(ct_tensor_bmm_out, ct_tensor_bmm)

ct_status ct_tensor_addmm_out(const ct_tensor *input, const ct_tensor *a, const ct_tensor *b,
                              ct_scalar beta, ct_scalar alpha, ct_tensor *out) {
    CT_LINALG_STAGE_ADD_OUT(ct_tensor_addmm_out, input, a, b, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_addmm_out"));
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_addmm(input, a, b, beta, alpha, &r));
    return deliver(r, out, CT_OK);
}

ct_status ct_tensor_baddbmm_out(const ct_tensor *input, const ct_tensor *a, const ct_tensor *b,
                                ct_scalar beta, ct_scalar alpha, ct_tensor *out) {
    CT_LINALG_STAGE_ADD_OUT(ct_tensor_baddbmm_out, input, a, b, beta, alpha, out);
    CT_TRY(ct_tensor_impl_check(out, "ct_tensor_baddbmm_out"));
    ct_tensor *r = NULL;
    CT_TRY(ct_tensor_baddbmm(input, a, b, beta, alpha, &r));
    return deliver(r, out, CT_OK);
}

/* ---- mv, dot, outer ---------------------------------------------------------------------------- */

/* A 1-D vector as a [rows, cols] view (one of them its length). */
static ct_status as_matrix(const ct_tensor *v, int64_t rows, int64_t cols, ct_tensor **out) {
    int64_t sizes[2] = {rows, cols};
    int64_t s = v->strides[0];
    int64_t strides[2] = {rows == 1 ? (cols * s > 0 ? cols * s : 1) : s,
                          rows == 1 ? s : 1};
    return ct_tensor_impl_view(v, sizes, strides, 2, v->storage_offset, out);
}

/* out (sizes/ndim) = mat2d @ vec-as-column, for mv and dot. */
static ct_status vec_product(const ct_tensor *mat, const ct_tensor *vec, const int64_t *sizes,
                             int32_t ndim, ct_tensor **out) {
    ct_tensor *col = NULL, *r = NULL;
    CT_TRY(as_matrix(vec, vec->sizes[0], 1, &col));
    ct_status st = new_result(sizes, ndim, mat, &r);
    ct_tensor *r2 = NULL;
    if (st == CT_OK) {
        int64_t rs[2] = {mat->sizes[0], 1}, rstr[2] = {1, 1};
        st = ct_tensor_impl_view(r, rs, rstr, 2, r->storage_offset, &r2);
    }
    if (st == CT_OK)
        st = product(NULL, mat, col, ct_scalar_int(0), ct_scalar_int(1), r2);
    ct_tensor_release(r2);
    ct_tensor_release(col);
    return finish(st, r, out);
}

ct_status ct_tensor_mv(const ct_tensor *mat, const ct_tensor *vec, ct_tensor **out) {
    START("ct_tensor_mv");
    CT_LINALG_STAGE_AB(ct_tensor_mv, mat, vec, out);
    CT_TRY(ct_tensor_impl_check(mat, "ct_tensor_mv"));
    CT_TRY(ct_tensor_impl_check(vec, "ct_tensor_mv"));
    if (mat->ndim != 2 || vec->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME,
                            "vector + matrix @ vector expected, got 1, %" PRId32 ", %" PRId32,
                            mat->ndim, vec->ndim);
    if (mat->sizes[1] != vec->sizes[0])
        return ct_set_error(CT_ERR_RUNTIME,
                            "size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64,
                            mat->sizes[0], mat->sizes[0], mat->sizes[1], vec->sizes[0]);
    CT_TRY(check_device(mat, vec));
    int64_t sizes[1] = {mat->sizes[0]};
    /* PyTorch's mv is addmv_(empty of vec's dtype, mat, vec, 0, 1): an empty mat takes its
     * shortcut (zeros, no dtype checks); otherwise the kernel dispatches on mat's dtype and
     * then reads vec as that type */
    if (mat->numel == 0)
        return ct_tensor_zeros(sizes, 1, vec->dtype, &vec->device, CT_LAYOUT_STRIDED, out);
    CT_TRY(check_kernel(mat->dtype, "addmv_impl_cpu"));
    CT_TRY(check_same_dtype(mat, vec));
    return vec_product(mat, vec, sizes, 1, out);
}

ct_status ct_tensor_dot(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    START("ct_tensor_dot");
    CT_LINALG_STAGE_AB(ct_tensor_dot, a, b, out);
    CT_TRY(ct_tensor_impl_check(a, "ct_tensor_dot"));
    CT_TRY(ct_tensor_impl_check(b, "ct_tensor_dot"));
    if (a->ndim != 1 || b->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME,
                            "1D tensors expected, but got %" PRId32 "D and %" PRId32 "D tensors",
                            a->ndim, b->ndim);
    if (a->dtype != b->dtype)
        return ct_set_error(CT_ERR_RUNTIME,
                            "dot : expected both vectors to have same dtype, but found %s and %s",
                            ct_dtype_cpp_name(a->dtype), ct_dtype_cpp_name(b->dtype));
    if (a->sizes[0] != b->sizes[0])
        return ct_set_error(CT_ERR_RUNTIME,
                            "inconsistent tensor size, expected tensor [%" PRId64
                            "] and src [%" PRId64 "] to have the same number of elements, but "
                            "got %" PRId64 " and %" PRId64 " elements respectively",
                            a->sizes[0], b->sizes[0], a->sizes[0], b->sizes[0]);
    CT_TRY(check_device(a, b));
    CT_TRY(check_kernel(a->dtype, "dot"));
    ct_tensor *row = NULL;
    CT_TRY(as_matrix(a, 1, a->sizes[0], &row));
    ct_status st = vec_product(row, b, NULL, 0, out);
    ct_tensor_release(row);
    return st;
}

OUT_FORM(ct_tensor_mv_out, ct_tensor_mv)
OUT_FORM(ct_tensor_dot_out, ct_tensor_dot)

static ct_status outer_check(const ct_tensor *a, const ct_tensor *b) {
    CT_TRY(ct_tensor_impl_check(a, "ct_tensor_outer"));
    CT_TRY(ct_tensor_impl_check(b, "ct_tensor_outer"));
    if (a->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %" PRId32
                            "-D", a->ndim);
    if (b->ndim != 1)
        return ct_set_error(CT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %" PRId32
                            "-D", b->ndim);
    return CT_OK;
}

ct_status ct_tensor_outer(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    START("ct_tensor_outer");
    CT_LINALG_STAGE_AB(ct_tensor_outer, a, b, out);
    CT_TRY(outer_check(a, b));
    ct_tensor *col = NULL;
    CT_TRY(as_matrix(a, a->sizes[0], 1, &col));
    ct_status st = ct_binary(CT_OP_MUL, col, b, ct_scalar_int(1), out);
    ct_tensor_release(col);
    return st;
}

ct_status ct_tensor_outer_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    CT_LINALG_STAGE_AB_OUT(ct_tensor_outer_out, a, b, out);
    CT_TRY(outer_check(a, b));
    ct_tensor *col = NULL;
    CT_TRY(as_matrix(a, a->sizes[0], 1, &col));
    ct_status st = ct_binary_out(CT_OP_MUL, col, b, ct_scalar_int(1), out);
    ct_tensor_release(col);
    return st;
}

ct_status ct_tensor_ger(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct_tensor_outer(a, b, out);
}

ct_status ct_tensor_ger_out(const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    ct_warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use "
            "torch.outer instead.");
    return ct_tensor_outer_out(a, b, out);
}

/* ---- matmul ------------------------------------------------------------------------------------ */

/* PyTorch's infer_size for the batch dims. */
static ct_status broadcast(const int64_t *a, int32_t na, const int64_t *b, int32_t nb,
                           int64_t *out, int32_t *nout) {
    int32_t n = na > nb ? na : nb;
    for (int32_t i = n - 1; i >= 0; i--) {
        int32_t ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%" PRId64 ") must match the size of "
                                "tensor b (%" PRId64 ") at non-singleton dimension %" PRId32,
                                sa, sb, i);
        out[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return CT_OK;
}

/* t expanded to batch + tail, then reshaped to [B, tail0, tail1]. */
static ct_status batch3(const ct_tensor *t, const int64_t *batch, int32_t nbatch, int64_t B,
                        int64_t r, int64_t c, ct_tensor **out) {
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, batch, (size_t)nbatch * sizeof sizes[0]);
    sizes[nbatch] = r;
    sizes[nbatch + 1] = c;
    ct_tensor *e = NULL;
    CT_TRY(ct_tensor_expand(t, sizes, nbatch + 2, &e));
    int64_t s3[3] = {B, r, c};
    ct_status st = ct_tensor_reshape(e, s3, 3, out);
    ct_tensor_release(e);
    return st;
}

static ct_status matmul_batched(const ct_tensor *t1, const ct_tensor *t2, ct_tensor **out) {
    int32_t d1 = t1->ndim, d2 = t2->ndim;
    int64_t n = d1 > 1 ? t1->sizes[d1 - 2] : 1, m1 = t1->sizes[d1 - 1];
    int64_t m2 = d2 > 1 ? t2->sizes[d2 - 2] : t2->sizes[0], p = d2 > 1 ? t2->sizes[d2 - 1] : 1;
    int64_t batch[CT_MAX_DIMS];
    int32_t nbatch = 0;
    CT_TRY(broadcast(t1->sizes, d1 > 2 ? d1 - 2 : 0, t2->sizes, d2 > 2 ? d2 - 2 : 0, batch,
                     &nbatch));
    int64_t B = 1;
    for (int32_t i = 0; i < nbatch; i++)
        B *= batch[i];
    ct_tensor *a = NULL, *b = NULL, *r = NULL, *v1 = NULL, *v2 = NULL;
    ct_status st = d1 == 1 ? ct_tensor_unsqueeze(t1, 0, &v1) : CT_OK;
    if (st == CT_OK)
        st = d2 == 1 ? ct_tensor_unsqueeze(t2, 1, &v2) : CT_OK;
    if (st == CT_OK)
        st = batch3(v1 ? v1 : t1, batch, nbatch, B, n, m1, &a);
    if (st == CT_OK)
        st = batch3(v2 ? v2 : t2, batch, nbatch, B, m2, p, &b);
    if (st == CT_OK)
        st = ct_tensor_bmm(a, b, &r);
    if (st == CT_OK) {
        int64_t sizes[CT_MAX_DIMS];
        int32_t nd = nbatch;
        memcpy(sizes, batch, (size_t)nbatch * sizeof sizes[0]);
        if (d1 > 1)
            sizes[nd++] = n;
        if (d2 > 1)
            sizes[nd++] = p;
        st = ct_tensor_view(r, sizes, nd, out);
    }
    ct_tensor_release(r);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(v1);
    ct_tensor_release(v2);
    return st;
}

/* dim(t1) >= 3, dim(t2) 1 or 2: fold t1's batch into the rows of one mm (PyTorch's path). */
static ct_status matmul_fold(const ct_tensor *t1, const ct_tensor *t2, ct_tensor **out) {
    int32_t d1 = t1->ndim;
    int64_t rows = 1;
    for (int32_t i = 0; i < d1 - 1; i++)
        rows *= t1->sizes[i];
    int64_t s2[2] = {rows, t1->sizes[d1 - 1]};
    ct_tensor *a = NULL, *b = NULL, *r = NULL;
    ct_status st = ct_tensor_reshape(t1, s2, 2, &a);
    if (st == CT_OK)
        st = t2->ndim == 1 ? ct_tensor_unsqueeze(t2, 1, &b) : ct_tensor_view(t2, t2->sizes, 2, &b);
    if (st == CT_OK)
        st = ct_tensor_mm(a, b, &r);
    if (st == CT_OK) {
        int64_t sizes[CT_MAX_DIMS];
        memcpy(sizes, t1->sizes, (size_t)(d1 - 1) * sizeof sizes[0]);
        int32_t nd = d1 - 1;
        if (t2->ndim == 2)
            sizes[nd++] = t2->sizes[1];
        st = ct_tensor_view(r, sizes, nd, out);
    }
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(r);
    return st;
}

ct_status ct_tensor_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    START("ct_tensor_matmul");
    CT_LINALG_STAGE_AB(ct_tensor_matmul, a, b, out);
    CT_TRY(ct_tensor_impl_check(a, "ct_tensor_matmul"));
    CT_TRY(ct_tensor_impl_check(b, "ct_tensor_matmul"));
    int32_t d1 = a->ndim, d2 = b->ndim;
    if (d1 == 0 || d2 == 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "both arguments to matmul need to be at least 1D, but they are "
                            "%" PRId32 "D and %" PRId32 "D",
                            d1, d2);
    if (d1 == 1 && d2 == 1)
        return ct_tensor_dot(a, b, out);
    if (d1 == 2 && d2 == 1)
        return ct_tensor_mv(a, b, out);
    if (d1 == 2 && d2 == 2)
        return ct_tensor_mm(a, b, out);
    if (d1 == 1 && d2 == 2) {
        ct_tensor *row = NULL, *r = NULL;
        CT_TRY(ct_tensor_unsqueeze(a, 0, &row));
        ct_status st = ct_tensor_mm(row, b, &r);
        ct_tensor_release(row);
        if (st == CT_OK)
            st = ct_tensor_squeeze_dim(r, 0, out);
        ct_tensor_release(r);
        return st;
    }
    if (d1 >= 3 && d2 <= 2)
        return matmul_fold(a, b, out);
    return matmul_batched(a, b, out);
}

OUT_FORM(ct_tensor_matmul_out, ct_tensor_matmul)
