/* Addition with sparse COO operands (PyTorch's add_sparse, add_out_sparse_cpu and
 * add_out_dense_sparse_cpu) and the typed element kernels the sparse files share.
 *
 * Element kernels: the sparse files do not use src/kernels (strided inner loops), so the few
 * sums the sparse layer needs are a small typed switch here, written to compute exactly what
 * PyTorch's scalar code computes: integers wrap (done in uint64_t, which is defined), float16
 * and bfloat16 round to their format after each multiply and add (c10::Half arithmetic),
 * complex products use the full (ac - bd, ad + bc) formula, bool "+" is "or". */
#include <inttypes.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "ops/dispatch.h" /* ct_op_impl_alpha_check */
#include "sparse/sparse_impl.h"

static const ct_device host_device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

/* ---- element kernels -------------------------------------------------------------------- */

static float bf2f(uint16_t b) { return ct_bfloat16_to_float(b); }
/* c10::BFloat16 arithmetic rounds with round_to_nearest_even, which makes every NaN 0x7FC0
 * (not the 0xFFFF of Tensor.to(), Note [bfloat16 NaN]). */
static uint16_t f2bf(float f) { return f != f ? 0x7FC0 : ct_float_to_bfloat16(f); }
static float h2f(uint16_t b) { return ct_half_to_float(b); }
static uint16_t f2h(float f) { return ct_float_to_half(f); }

/* y = y + a * x with wrapping integer arithmetic of T's width. */
#define AXPY_INT(T, UT)                                                                            \
    do {                                                                                           \
        T *yy = y, a;                                                                              \
        const T *xx = x;                                                                           \
        memcpy(&a, alpha, sizeof a);                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            uint64_t r =                                                                           \
                (uint64_t)(int64_t)yy[i] + (uint64_t)(int64_t)a * (uint64_t)(int64_t)xx[i];        \
            UT u = (UT)r;                                                                          \
            memcpy(&yy[i], &u, sizeof u);                                                          \
        }                                                                                          \
    } while (0)

#define AXPY_FLOAT(T)                                                                              \
    do {                                                                                           \
        T *yy = y, a;                                                                              \
        const T *xx = x;                                                                           \
        memcpy(&a, alpha, sizeof a);                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            yy[i] = yy[i] + a * xx[i];                                                             \
    } while (0)

/* c10::Half / c10::BFloat16: each operation rounds back to the 16-bit format. */
#define AXPY_HALF(TO_F, FROM_F)                                                                    \
    do {                                                                                           \
        uint16_t *yy = y, a;                                                                       \
        const uint16_t *xx = x;                                                                    \
        memcpy(&a, alpha, sizeof a);                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            yy[i] = FROM_F(TO_F(yy[i]) + TO_F(FROM_F(TO_F(a) * TO_F(xx[i]))));                     \
    } while (0)

#define AXPY_COMPLEX(C)                                                                            \
    do {                                                                                           \
        C *yy = y, a;                                                                              \
        const C *xx = x;                                                                           \
        memcpy(&a, alpha, sizeof a);                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            C p = {a.re * xx[i].re - a.im * xx[i].im, a.re * xx[i].im + a.im * xx[i].re};          \
            yy[i].re = yy[i].re + p.re;                                                            \
            yy[i].im = yy[i].im + p.im;                                                            \
        }                                                                                          \
    } while (0)

bool ct_sparse_impl_axpy_dtype(ct_dtype dtype) {
    switch (dtype) {
    case CT_BOOL:
    case CT_UINT8:
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64:
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_FLOAT32:
    case CT_FLOAT64:
    case CT_COMPLEX32:
    case CT_COMPLEX64:
    case CT_COMPLEX128:
        return true;
    default:
        return false;
    }
}

/* c10::complex<Half> arithmetic: each operation in complex<float>, rounded to half. */
static void axpy_complex32(uint16_t *y, const uint16_t *x, int64_t n, const uint16_t *a) {
    float ar = h2f(a[0]), ai = h2f(a[1]);
    for (int64_t i = 0; i < n; i++) {
        float xr = h2f(x[2 * i]), xi = h2f(x[2 * i + 1]);
        uint16_t pr = f2h(ar * xr - ai * xi), pi = f2h(ar * xi + ai * xr);
        y[2 * i] = f2h(h2f(y[2 * i]) + h2f(pr));
        y[2 * i + 1] = f2h(h2f(y[2 * i + 1]) + h2f(pi));
    }
}

ct_status ct_sparse_impl_axpy(ct_dtype dtype, void *y, const void *x, int64_t n, const void *alpha,
                              bool blas, const char *fn) {
    switch (dtype) {
    case CT_BOOL: {
        unsigned char *yy = y, a = *(const unsigned char *)alpha;
        const unsigned char *xx = x;
        for (int64_t i = 0; i < n; i++)
            yy[i] = yy[i] || (a && xx[i]);
        return CT_OK;
    }
    case CT_UINT8:
        AXPY_INT(uint8_t, uint8_t);
        return CT_OK;
    case CT_INT8:
        AXPY_INT(int8_t, uint8_t);
        return CT_OK;
    case CT_INT16:
        AXPY_INT(int16_t, uint16_t);
        return CT_OK;
    case CT_INT32:
        AXPY_INT(int32_t, uint32_t);
        return CT_OK;
    case CT_INT64:
        AXPY_INT(int64_t, uint64_t);
        return CT_OK;
    case CT_FLOAT16:
        AXPY_HALF(h2f, f2h);
        return CT_OK;
    case CT_BFLOAT16:
        AXPY_HALF(bf2f, f2bf);
        return CT_OK;
    case CT_FLOAT32:
        AXPY_FLOAT(float);
        return CT_OK;
    case CT_FLOAT64:
        AXPY_FLOAT(double);
        return CT_OK;
    case CT_COMPLEX64:
        AXPY_COMPLEX(ct_complex64);
        return CT_OK;
    case CT_COMPLEX128:
        AXPY_COMPLEX(ct_complex128);
        return CT_OK;
    case CT_COMPLEX32:
        if (blas) /* PyTorch 1.13's cpublas has no ComplexHalf axpy */
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                                "\"cpublas_axpy_impl\" not implemented for 'ComplexHalf'");
        axpy_complex32(y, x, n, alpha);
        return CT_OK;
    default:
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", fn,
                            ct_dtype_impl_msg_name(dtype));
    }
}

#define SCALE_REAL(T)                                                                              \
    do {                                                                                           \
        T *yy = y, q;                                                                              \
        const T *xx = x;                                                                           \
        memcpy(&q, a, sizeof q);                                                                   \
        for (int64_t i = 0; i < n; i++)                                                            \
            yy[i] = xx[i] * q;                                                                     \
    } while (0)

#define SCALE_COMPLEX(C)                                                                           \
    do {                                                                                           \
        C *yy = y, q;                                                                              \
        const C *xx = x;                                                                           \
        memcpy(&q, a, sizeof q);                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                          \
            C p = xx[i];                                                                           \
            yy[i].re = p.re * q.re - p.im * q.im;                                                  \
            yy[i].im = p.re * q.im + p.im * q.re;                                                  \
        }                                                                                          \
    } while (0)

/* y = x * alpha as PyTorch 1.13's mul_kernel computes it with a wrapped scalar: the scalar
 * is cast to the dtype first (unchecked, as TensorIterator casts it); bool is "and";
 * float16/bfloat16 (and complex32's parts) multiply in float and round once; integers wrap;
 * the rest multiply in the dtype. */
static ct_status scale(ct_dtype dtype, void *y, const void *x, int64_t n, ct_scalar alpha) {
    unsigned char a[16];
    if (!ct_sparse_impl_axpy_dtype(dtype))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"mul_cpu\" not implemented for '%s'",
                            ct_dtype_impl_msg_name(dtype));
    CT_TRY(ct_convert(dtype, a, ct_scalar_dtype(alpha), &alpha.v, 1));
    const uint16_t *xh = x, *ah = (const uint16_t *)a;
    uint16_t *yh = y;
    switch (dtype) {
    case CT_BOOL:
        for (int64_t i = 0; i < n; i++)
            ((unsigned char *)y)[i] = ((const unsigned char *)x)[i] && a[0];
        return CT_OK;
    case CT_FLOAT16:
        for (int64_t i = 0; i < n; i++)
            yh[i] = f2h(h2f(xh[i]) * h2f(ah[0]));
        return CT_OK;
    case CT_BFLOAT16:
        for (int64_t i = 0; i < n; i++)
            yh[i] = f2bf(bf2f(xh[i]) * bf2f(ah[0]));
        return CT_OK;
    case CT_COMPLEX32: /* c10::complex<Half>: in complex<float>, each part rounded once */
        for (int64_t i = 0; i < 2 * n; i += 2) {
            float xr = h2f(xh[i]), xi = h2f(xh[i + 1]), qr = h2f(ah[0]), qi = h2f(ah[1]);
            yh[i] = f2h(xr * qr - xi * qi);
            yh[i + 1] = f2h(xr * qi + xi * qr);
        }
        return CT_OK;
    case CT_FLOAT32:
        SCALE_REAL(float);
        return CT_OK;
    case CT_FLOAT64:
        SCALE_REAL(double);
        return CT_OK;
    case CT_COMPLEX64:
        SCALE_COMPLEX(ct_complex64);
        return CT_OK;
    case CT_COMPLEX128:
        SCALE_COMPLEX(ct_complex128);
        return CT_OK;
    default: /* integers: 0 + a * x wraps exactly like a * x */
        memset(y, 0, (size_t)n * ct_dtype_table[dtype].itemsize);
        return ct_sparse_impl_axpy(dtype, y, x, n, a, false, "mul_cpu");
    }
}

/* PyTorch's mul(values, alpha) as a new host tensor of `out_dtype`: computed in
 * result_type(values, alpha), then converted. Meta values give an empty meta tensor. */
static ct_status mul_values(const ct_tensor *v, ct_scalar alpha, ct_dtype out_dtype,
                            ct_tensor **out) {
    *out = NULL;
    if (v->device.type == CT_DEVICE_META)
        return ct_tensor_empty(v->sizes, v->ndim, out_dtype, &v->device, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, out);
    ct_result_type_state rs = CT_RESULT_TYPE_STATE_INIT;
    ct_dtype d;
    CT_TRY(ct_result_type_update(&rs, v->dtype, CT_OPERAND_DIMENSIONED));
    CT_TRY(ct_result_type_update(&rs, ct_scalar_dtype(alpha), CT_OPERAND_SCALAR));
    CT_TRY(ct_result_type_finish(&rs, &d));
    CT_TRY(ct_check_output_cast(d, out_dtype)); /* mul_out into the result's values */
    ct_tensor *h = NULL, *r = NULL, *c = NULL;
    ct_status st = ct_sparse_impl_host(v, d, &h);
    if (st == CT_OK)
        st = ct_sparse_impl_host_empty(v->sizes, v->ndim, d, &r);
    if (st == CT_OK)
        st = scale(d, ct_tensor_data_ptr(r), ct_tensor_data_ptr(h), v->numel, alpha);
    if (st == CT_OK)
        st = ct_tensor_to_dtype(r, out_dtype, &c);
    ct_tensor_release(h);
    ct_tensor_release(r);
    *out = c;
    return st;
}

/* ---- dense += alpha * sparse ----------------------------------------------------------------- */

/* dense[column k] += alpha * row k of the values, for the nnz columns of ix [sd, nnz]. */
static ct_status accumulate(ct_tensor *dense, const int64_t *ix, int64_t sd, int64_t nnz,
                            const char *vals, const void *alpha, bool blas, const char *fn) {
    ct_dtype dt = dense->dtype;
    size_t isz = ct_dtype_table[dt].itemsize;
    char *dst = ct_tensor_data_ptr(dense);
    int64_t block;
    CT_TRY(ct_sparse_impl_prod(dense->sizes, sd, dense->ndim, &block));
    for (int64_t k = 0; k < nnz && block > 0; k++) {
        int64_t off = 0; /* elements; bounded by numel once every index is in range */
        for (int64_t d = 0; d < sd; d++) {
            int64_t i = ix[d * nnz + k];
            /* indices of an unchecked tensor may be anything: never write outside */
            if (i < 0 || i >= dense->sizes[d])
                return ct_set_error(CT_ERR_INDEX,
                                    "index %" PRId64 " is out of bounds for dimension %" PRId64
                                    " with size %" PRId64,
                                    i, d, dense->sizes[d]);
            off += i * dense->strides[d];
        }
        CT_TRY(ct_sparse_impl_axpy(dt, dst + (size_t)off * isz, vals + (size_t)(k * block) * isz,
                                   block, alpha, blas, fn));
    }
    return CT_OK;
}

/* PyTorch's add_out_dense_sparse_cpu picks one of four loops, and they differ in the dtypes
 * they support and in whether the sparse tensor is coalesced first, so we follow its choice:
 * contiguous values and a non-empty result take the coalesced loops ("non_hybrid": scalar
 * arithmetic; "hybrid", with dense dims: cpublas axpy) or, uncoalesced with sparse dims,
 * the loop that adds every column as it comes (cpublas axpy); anything else coalesces first
 * and adds with the dense add kernel. */
ct_status ct_sparse_impl_add_into_dense(ct_tensor *dense, const ct_tensor *sparse,
                                        ct_scalar alpha) {
    const ct_sparse_coo *p = ct_sparse_impl_payload(sparse);
    if (p->nnz == 0)
        return CT_OK;
    ct_dtype dt = dense->dtype;
    bool coalesced = atomic_load(&p->coalesced) || p->nnz == 1;
    bool fast = ct_tensor_is_contiguous(p->values, CT_MEMFMT_CONTIGUOUS) && dense->numel > 0;
    bool hybrid = p->sparse_dim != dense->ndim;
    const char *fn = "add_cpu/sub_cpu";
    bool blas = false;
    if (fast && coalesced) {
        fn = hybrid ? "add_dense_sparse_hybrid" : "add_dense_sparse_non_hybrid";
        blas = hybrid;
    } else if (fast && p->sparse_dim > 0) {
        fn = "add_dense_sparse_worker_non_coalesced";
        blas = true;
    } else {
        fast = false;
    }
    ct_tensor *c = NULL, *hi = NULL, *hv = NULL;
    const ct_sparse_coo *use = p;
    unsigned char a[16];
    ct_status st = CT_OK;
    if (!fast) {
        if ((st = ct_sparse_impl_coalesce(sparse, p, &c)) != CT_OK)
            goto fail;
        use = ct_sparse_impl_payload(c);
    }
    CT_CHECK(ct_sparse_impl_axpy_dtype(dt), CT_ERR_NOT_IMPLEMENTED,
             "\"%s\" not implemented for '%s'", fn, ct_dtype_impl_msg_name(dt));
    if ((st = ct_scalar_to_dtype(alpha, dt, a)) == CT_OK &&
        (st = ct_sparse_impl_host(use->indices, CT_INT64, &hi)) == CT_OK &&
        (st = ct_sparse_impl_host(use->values, dt, &hv)) == CT_OK)
        st = accumulate(dense, ct_tensor_data_ptr(hi), use->sparse_dim, use->nnz,
                        ct_tensor_data_ptr(hv), a, blas, fn);
fail:
    ct_tensor_release(hv);
    ct_tensor_release(hi);
    ct_tensor_release(c);
    return st;
}

/* ---- argument checks ------------------------------------------------------------------------ */

static bool same_sizes(const ct_tensor *a, const ct_tensor *b) {
    return a->ndim == b->ndim &&
           (a->ndim == 0 || memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t)) == 0);
}

/* Promote the operands and check the result can hold the computation dtype. */
static ct_status common_dtype(const ct_tensor *a, const ct_tensor *b, ct_dtype result,
                              ct_dtype *out) {
    CT_TRY(ct_promote_types(a->dtype, b->dtype, out));
    if (!ct_can_cast(*out, result))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Can't convert result type %s to output %s in add operation",
                            ct_dtype_impl_msg_name(*out), ct_dtype_impl_msg_name(result));
    return CT_OK;
}

/* The dtypes of AT_DISPATCH_ALL_TYPES_AND_COMPLEX, what sparse + sparse computes in. */
static bool all_types_and_complex(ct_dtype d) {
    return ct_sparse_impl_axpy_dtype(d) && d != CT_BOOL && d != CT_FLOAT16 && d != CT_BFLOAT16 &&
           d != CT_COMPLEX32;
}

/* ---- sparse + sparse ------------------------------------------------------------------------- */

/* Both values contiguous: walk both index lists in order as PyTorch's
 * add_out_sparse_contiguous does, adding equal columns into zero-initialised values. */
static ct_status add_merge(const ct_tensor *t, const ct_sparse_coo *tp, const ct_sparse_coo *sp,
                           ct_dtype dt, ct_scalar alpha, ct_tensor **out) {
    ct_tensor *ti = NULL, *si = NULL, *tv = NULL, *sv = NULL, *ri = NULL, *rv = NULL;
    ct_tensor *fi = NULL, *fv = NULL;
    int64_t sd = sp->sparse_dim, tn = tp->nnz, sn = sp->nnz, max, block, r = 0;
    unsigned char one[16], a[16];
    int64_t vsizes[CT_MAX_DIMS + 1];
    ct_status st = CT_OK;
    CT_CHECK(!ct_checked_add_i64(tn, sn, &max), CT_ERR_OVERFLOW,
             "add: nnz %" PRId64 " + %" PRId64 " overflows", tn, sn);
    memcpy(vsizes + 1, t->sizes + sd, (size_t)(t->ndim - sd) * sizeof(int64_t));
    vsizes[0] = max;
    if ((st = ct_scalar_to_dtype(ct_scalar_int(1), dt, one)) != CT_OK ||
        (st = ct_scalar_to_dtype(alpha, dt, a)) != CT_OK ||
        (st = ct_sparse_impl_prod(t->sizes, sd, t->ndim, &block)) != CT_OK ||
        (st = ct_sparse_impl_host(tp->indices, CT_INT64, &ti)) != CT_OK ||
        (st = ct_sparse_impl_host(sp->indices, CT_INT64, &si)) != CT_OK ||
        (st = ct_sparse_impl_host(tp->values, dt, &tv)) != CT_OK ||
        (st = ct_sparse_impl_host(sp->values, dt, &sv)) != CT_OK ||
        (st = ct_sparse_impl_host_empty((const int64_t[]){sd, max}, 2, CT_INT64, &ri)) != CT_OK ||
        (st = ct_tensor_zeros(vsizes, t->ndim - sd + 1, dt, &host_device, CT_LAYOUT_STRIDED,
                              &rv)) != CT_OK)
        goto fail;
    {
        const int64_t *tix = ct_tensor_data_ptr(ti), *six = ct_tensor_data_ptr(si);
        int64_t *rix = ct_tensor_data_ptr(ri);
        const char *tvals = ct_tensor_data_ptr(tv), *svals = ct_tensor_data_ptr(sv);
        char *rvals = ct_tensor_data_ptr(rv);
        size_t bb = (size_t)block * ct_dtype_table[dt].itemsize;
        int64_t i = 0, j = 0;
        while (i < tn || j < sn) {
            int cmp = i >= tn   ? -1
                      : j >= sn ? 1
                                : -ct_sparse_impl_cmp_cols(tix, tn, i, six, sn, j, sd);
            if (cmp >= 0) {
                for (int64_t d = 0; d < sd; d++)
                    rix[d * max + r] = tix[d * tn + i];
                if (block > 0 &&
                    (st = ct_sparse_impl_axpy(dt, rvals + (size_t)r * bb, tvals + (size_t)i * bb,
                                              block, one, true, "cadd_sparse")) != CT_OK)
                    goto fail;
                i++;
            }
            if (cmp <= 0) {
                for (int64_t d = 0; d < sd; d++)
                    rix[d * max + r] = six[d * sn + j];
                if (block > 0 &&
                    (st = ct_sparse_impl_axpy(dt, rvals + (size_t)r * bb, svals + (size_t)j * bb,
                                              block, a, true, "cadd_sparse")) != CT_OK)
                    goto fail;
                j++;
            }
            r++;
        }
        /* exact-size indices; the values keep PyTorch's narrowed view */
        if ((st = ct_sparse_impl_host_empty((const int64_t[]){sd, r}, 2, CT_INT64, &fi)) != CT_OK ||
            (st = ct_tensor_narrow(rv, 0, 0, r, &fv)) != CT_OK)
            goto fail;
        int64_t *fix = ct_tensor_data_ptr(fi);
        for (int64_t d = 0; d < sd && r > 0; d++)
            memcpy(fix + d * r, rix + d * max, (size_t)r * sizeof(int64_t));
    }
    st = ct_sparse_impl_make_on(fi, fv, t->device, t->sizes, t->ndim, sd,
                                atomic_load(&tp->coalesced) && atomic_load(&sp->coalesced), out);
    fi = fv = NULL; /* consumed */
fail:
    ct_tensor_release(ti);
    ct_tensor_release(si);
    ct_tensor_release(tv);
    ct_tensor_release(sv);
    ct_tensor_release(ri);
    ct_tensor_release(rv);
    ct_tensor_release(fi);
    ct_tensor_release(fv);
    return st;
}

/* Some values not contiguous: PyTorch's add_out_sparse_non_contiguous concatenates
 * self's and alpha * other's columns, coalescing only when nnz exceeds numel. */
static ct_status add_concat(const ct_tensor *t, const ct_sparse_coo *tp, const ct_sparse_coo *sp,
                            ct_dtype dt, ct_scalar alpha, ct_tensor **out) {
    ct_tensor *ti = NULL, *si = NULL, *tv = NULL, *sv = NULL, *ri = NULL, *rv = NULL;
    ct_tensor *cat = NULL, *co = NULL;
    int64_t sd = sp->sparse_dim, tn = tp->nnz, sn = sp->nnz, n;
    unsigned char one[16], a[16];
    int64_t vsizes[CT_MAX_DIMS + 1];
    ct_status st = CT_OK;
    /* nnz is unbounded when the values have no element (a dense size 0) */
    CT_CHECK(!ct_checked_add_i64(tn, sn, &n), CT_ERR_OVERFLOW,
             "add: nnz %" PRId64 " + %" PRId64 " overflows", tn, sn);
    memcpy(vsizes + 1, t->sizes + sd, (size_t)(t->ndim - sd) * sizeof(int64_t));
    vsizes[0] = n;
    if ((st = ct_scalar_to_dtype(ct_scalar_int(1), dt, one)) != CT_OK ||
        (st = ct_scalar_to_dtype(alpha, dt, a)) != CT_OK ||
        (st = ct_sparse_impl_host(tp->indices, CT_INT64, &ti)) != CT_OK ||
        (st = ct_sparse_impl_host(sp->indices, CT_INT64, &si)) != CT_OK ||
        (st = ct_sparse_impl_host(tp->values, dt, &tv)) != CT_OK)
        goto fail;
    size_t isz = ct_dtype_table[dt].itemsize;
    /* other's values in dt, times alpha only when alpha (as dt) is not 1, as PyTorch */
    st = ct_sparse_impl_host(sp->values, dt, &sv);
    if (st == CT_OK && memcmp(one, a, isz) != 0) {
        ct_tensor *scaled = NULL;
        st = mul_values(sv, alpha, dt, &scaled);
        ct_tensor_release(sv);
        sv = scaled;
    }
    if (st != CT_OK ||
        (st = ct_sparse_impl_host_empty((const int64_t[]){sd, n}, 2, CT_INT64, &ri)) != CT_OK ||
        (st = ct_sparse_impl_host_empty(vsizes, t->ndim - sd + 1, dt, &rv)) != CT_OK)
        goto fail;
    {
        const int64_t *tix = ct_tensor_data_ptr(ti), *six = ct_tensor_data_ptr(si);
        int64_t *rix = ct_tensor_data_ptr(ri);
        for (int64_t d = 0; d < sd; d++) {
            memcpy(rix + d * n, tix + d * tn, (size_t)tn * sizeof(int64_t));
            memcpy(rix + d * n + tn, six + d * sn, (size_t)sn * sizeof(int64_t));
        }
        size_t tb = (size_t)tv->numel * isz; /* the host copies are contiguous */
        if (tb > 0)
            memcpy(ct_tensor_data_ptr(rv), ct_tensor_data_ptr(tv), tb);
        if (sv->numel > 0)
            memcpy((char *)ct_tensor_data_ptr(rv) + tb, ct_tensor_data_ptr(sv),
                   (size_t)sv->numel * isz);
    }
    st = ct_sparse_impl_make_on(ri, rv, t->device, t->sizes, t->ndim, sd, false, &cat);
    ri = rv = NULL; /* consumed */
    if (st != CT_OK)
        goto fail;
    if (n > t->numel) { /* PyTorch's guard against unbounded nnz growth */
        if ((st = ct_sparse_impl_coalesce(cat, ct_sparse_impl_payload(cat), &co)) != CT_OK)
            goto fail;
        /* PyTorch 1.13 stores the parts anew, which flags them coalesced iff nnz < 2 */
        const ct_sparse_coo *cp = ct_sparse_impl_payload(co);
        st = ct_sparse_impl_make(ct_tensor_retain(cp->indices), ct_tensor_retain(cp->values),
                                 t->sizes, t->ndim, sd, cp->nnz < 2, out);
    } else {
        *out = cat;
        cat = NULL;
    }
fail:
    ct_tensor_release(ti);
    ct_tensor_release(si);
    ct_tensor_release(tv);
    ct_tensor_release(sv);
    ct_tensor_release(ri);
    ct_tensor_release(rv);
    ct_tensor_release(cat);
    ct_tensor_release(co);
    return st;
}

static ct_status add_sparse_sparse(const ct_tensor *t, const ct_tensor *s, ct_dtype result,
                                   ct_scalar alpha, ct_tensor **out) {
    const ct_sparse_coo *tp = ct_sparse_impl_payload(t), *sp = ct_sparse_impl_payload(s);
    char x[400], y[400];
    if (!same_sizes(t, s))
        return ct_set_error(CT_ERR_RUNTIME,
                            "add: expected sizes of 'self' and 'other' to match, but %s != %s",
                            ct_tensor_impl_shape_format(x, sizeof x, t->sizes, t->ndim),
                            ct_tensor_impl_shape_format(y, sizeof y, s->sizes, s->ndim));
    ct_dtype dt;
    CT_TRY(common_dtype(t, s, result, &dt));
    if (sp->nnz == 0) { /* a copy of self (copy_sparse_to_sparse_) */
        ct_tensor *i = NULL, *v = NULL;
        ct_status st =
            ct_tensor_to(tp->indices, CT_DTYPE_UNDEFINED, NULL, true, CT_MEMFMT_PRESERVE, &i);
        if (st == CT_OK)
            st = ct_tensor_to(tp->values, result, NULL, true, CT_MEMFMT_PRESERVE, &v);
        if (st != CT_OK) {
            ct_tensor_release(i);
            return st;
        }
        return ct_sparse_impl_make(i, v, t->sizes, t->ndim, tp->sparse_dim,
                                   atomic_load(&tp->coalesced), out);
    }
    if (tp->nnz == 0) { /* other times alpha (mul_out_sparse_scalar) */
        ct_tensor *i = NULL, *h = NULL, *v = NULL;
        ct_status st = ct_tensor_clone(sp->indices, CT_MEMFMT_CONTIGUOUS, &i);
        if (st == CT_OK && (st = mul_values(sp->values, alpha, result, &h)) == CT_OK)
            st = ct_sparse_impl_to_device(h, s->device, &v);
        if (st != CT_OK) {
            ct_tensor_release(i);
            return st;
        }
        return ct_sparse_impl_make(i, v, s->sizes, s->ndim, sp->sparse_dim,
                                   atomic_load(&sp->coalesced), out);
    }
    if (tp->sparse_dim != sp->sparse_dim)
        return ct_set_error(CT_ERR_RUNTIME,
                            "add: expected 'self' and 'other' to have same density, but 'self' "
                            "has %" PRId64 " sparse dimensions while 'other' has %" PRId64
                            " sparse dimensions",
                            tp->sparse_dim, sp->sparse_dim);
    bool contiguous = ct_tensor_is_contiguous(tp->values, CT_MEMFMT_CONTIGUOUS) &&
                      ct_tensor_is_contiguous(sp->values, CT_MEMFMT_CONTIGUOUS);
    if (!all_types_and_complex(dt))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                            contiguous ? "cadd_sparse" : "add_out_sparse_cpu",
                            ct_dtype_impl_msg_name(dt));
    /* result == dt here: both are dimensioned alike, so result_type is promote_types */
    return contiguous ? add_merge(t, tp, sp, dt, alpha, out)
                      : add_concat(t, tp, sp, dt, alpha, out);
}

/* ---- dense + sparse -------------------------------------------------------------------------- */

static ct_status add_dense_sparse(const ct_tensor *d, const ct_tensor *s, ct_dtype result,
                                  ct_scalar alpha, ct_tensor **out) {
    char x[400], y[400];
    if (!same_sizes(d, s))
        return ct_set_error(CT_ERR_RUNTIME,
                            "add: expected 'self' and 'other' to have same size, but self has "
                            "size %s while other has size %s (FYI: dense-sparse addition does "
                            "not currently support broadcasting)",
                            ct_tensor_impl_shape_format(x, sizeof x, d->sizes, d->ndim),
                            ct_tensor_impl_shape_format(y, sizeof y, s->sizes, s->ndim));
    ct_dtype dt;
    CT_TRY(common_dtype(d, s, result, &dt));
    if (d->device.type == CT_DEVICE_META) /* metadata only */
        return ct_tensor_empty(d->sizes, d->ndim, result, &d->device, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, out);
    ct_tensor *buf = NULL, *r = NULL;
    /* a private host copy in the computation dtype: it is written */
    ct_status st = ct_sparse_impl_host_empty(d->sizes, d->ndim, dt, &buf);
    if (st == CT_OK && d->numel > 0)
        st = ct_tensor_copy_(buf, d);
    if (st == CT_OK)
        st = ct_sparse_impl_add_into_dense(buf, s, alpha);
    if (st == CT_OK)
        st = ct_tensor_to_dtype(buf, result, &r);
    ct_tensor_release(buf);
    if (st != CT_OK)
        return st;
    return ct_sparse_impl_to_device(r, d->device, out);
}

/* ---- entry point ------------------------------------------------------------------------------
 */

ct_status ct_sparse_add(const ct_tensor *self, const ct_tensor *other, ct_scalar alpha,
                        ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_add: out is NULL");
    *out = NULL;
    if (self == NULL || other == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_sparse_add: tensor is NULL");
    const ct_tensor *both[2] = {self, other};
    for (int k = 0; k < 2; k++)
        if (both[k]->layout != CT_LAYOUT_STRIDED && ct_sparse_impl_payload(both[k]) == NULL)
            return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "add: layout torch.%s is not supported",
                                ct_layout_name(both[k]->layout));
    bool ss = ct_sparse_is_sparse(self), os = ct_sparse_is_sparse(other);
    if (!ss && !os)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "ct_sparse_add: neither operand is sparse (dense addition is not "
                            "part of the sparse layer)");
    if (ss && !os)
        return ct_set_error(CT_ERR_RUNTIME, "add(sparse, dense) is not supported. Use add(dense, "
                                            "sparse) instead.");
    ct_dtype result;
    CT_TRY(ct_tensor_result_type(both, 2, &result));
    CT_TRY(ct_op_impl_alpha_check(result, alpha));
    if (!ct_device_equal(self->device, other->device)) {
        char a[CT_DEVICE_STRING_MAX], b[CT_DEVICE_STRING_MAX];
        CT_TRY(ct_device_str(self->device, a, sizeof a));
        CT_TRY(ct_device_str(other->device, b, sizeof b));
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s!",
                            a, b);
    }
    return ss ? add_sparse_sparse(self, other, result, alpha, out)
              : add_dense_sparse(self, other, result, alpha, out);
}
