/* Singular values through LAPACK's divide-and-conquer SVD (?gesdd, jobz = 'N': values only),
 * which OpenBLAS carries. LAPACK is column-major: a row-major rows x cols matrix is its
 * transpose there, and a matrix and its transpose have the same singular values, so the
 * buffer is handed over as it is, as a cols x rows matrix. */
#include "kernels/svd.h"

#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"

/* The Fortran interface; gfortran appends the length of each character argument. */
typedef int lapack_int;
void sgesdd_(const char *jobz, const lapack_int *m, const lapack_int *n, float *a,
             const lapack_int *lda, float *s, float *u, const lapack_int *ldu, float *vt,
             const lapack_int *ldvt, float *work, const lapack_int *lwork, lapack_int *iwork,
             lapack_int *info, size_t jobz_len);
void dgesdd_(const char *jobz, const lapack_int *m, const lapack_int *n, double *a,
             const lapack_int *lda, double *s, double *u, const lapack_int *ldu, double *vt,
             const lapack_int *ldvt, double *work, const lapack_int *lwork, lapack_int *iwork,
             lapack_int *info, size_t jobz_len);
void cgesdd_(const char *jobz, const lapack_int *m, const lapack_int *n, float complex *a,
             const lapack_int *lda, float *s, float complex *u, const lapack_int *ldu,
             float complex *vt, const lapack_int *ldvt, float complex *work,
             const lapack_int *lwork, float *rwork, lapack_int *iwork, lapack_int *info,
             size_t jobz_len);
void zgesdd_(const char *jobz, const lapack_int *m, const lapack_int *n, double complex *a,
             const lapack_int *lda, double *s, double complex *u, const lapack_int *ldu,
             double complex *vt, const lapack_int *ldvt, double complex *work,
             const lapack_int *lwork, double *rwork, lapack_int *iwork, lapack_int *info,
             size_t jobz_len);

/* One call of the right ?gesdd; work is in elements of the dtype (complex for complex),
 * lwork -1 asks for the best size in work[0]. */
static lapack_int gesdd(ct_dtype dt, lapack_int m, lapack_int n, void *a, void *s, void *work,
                        lapack_int lwork, void *rwork, lapack_int *iwork) {
    const char jobz = 'N';
    lapack_int one = 1, info = 0;
    char dummy[16]; /* u and vt are not referenced for jobz = 'N' */
    switch (dt) {
    case CT_FLOAT32:
        sgesdd_(&jobz, &m, &n, a, &m, s, (float *)dummy, &one, (float *)dummy, &one, work, &lwork,
                iwork, &info, 1);
        break;
    case CT_FLOAT64:
        dgesdd_(&jobz, &m, &n, a, &m, s, (double *)dummy, &one, (double *)dummy, &one, work,
                &lwork, iwork, &info, 1);
        break;
    case CT_COMPLEX64:
        cgesdd_(&jobz, &m, &n, a, &m, s, (float complex *)dummy, &one, (float complex *)dummy,
                &one, work, &lwork, rwork, iwork, &info, 1);
        break;
    default:
        zgesdd_(&jobz, &m, &n, a, &m, s, (double complex *)dummy, &one, (double complex *)dummy,
                &one, work, &lwork, rwork, iwork, &info, 1);
        break;
    }
    return info;
}

/* 0: every value finite; 1: an infinity but no NaN; 2: a NaN. */
static int non_finite(ct_dtype dt, const void *a, int64_t count) {
    /* complex values are pairs of reals: twice the count */
    int64_t reals = (dt == CT_COMPLEX64 || dt == CT_COMPLEX128) ? 2 * count : count;
    int worst = 0;
    for (int64_t i = 0; i < reals; i++) {
        double v = (dt == CT_FLOAT32 || dt == CT_COMPLEX64) ? ((const float *)a)[i]
                                                             : ((const double *)a)[i];
        if (isnan(v))
            return 2;
        if (isinf(v))
            worst = 1;
    }
    return worst;
}

static ct_status not_finite(void) {
    return ct_set_error(CT_ERR_RUNTIME, "linalg.svd: The algorithm failed to converge because "
                                        "the input matrix contained non-finite values.");
}

ct_status ct_svd_nuclear_sums(ct_dtype dt, int64_t batch, int64_t rows, int64_t cols, void *a,
                              double *sums) {
    int64_t k = rows < cols ? rows : cols;
    if (k == 0) { /* no singular values: the sum of nothing */
        for (int64_t b = 0; b < batch; b++)
            sums[b] = 0;
        return CT_OK;
    }
    if (rows > INT_MAX || cols > INT_MAX || rows * cols > INT_MAX)
        return ct_set_error(CT_ERR_RUNTIME, "linalg.svd: a %lld x %lld matrix is too large for "
                                            "LAPACK's 32-bit sizes",
                            (long long)rows, (long long)cols);
    bool cplx = dt == CT_COMPLEX64 || dt == CT_COMPLEX128;
    bool single = dt == CT_FLOAT32 || dt == CT_COMPLEX64;
    size_t real_size = single ? sizeof(float) : sizeof(double);
    size_t elem = cplx ? 2 * real_size : real_size;
    lapack_int m = (lapack_int)cols, n = (lapack_int)rows; /* column-major view */
    /* rwork for jobz = 'N' needs 5 min(m, n) reals (7 in older LAPACKs: take the larger) */
    size_t rwork_n = cplx ? (size_t)(7 * k) : 1;
    size_t s_bytes = (size_t)k * real_size, rwork_bytes = rwork_n * real_size;
    size_t iwork_bytes = (size_t)(8 * k) * sizeof(lapack_int), work_bytes = 0;
    void *s = ct_alloc(s_bytes, 64);
    void *rwork = ct_alloc(rwork_bytes, 64);
    lapack_int *iwork = ct_alloc(iwork_bytes, 64);
    union { float f; double d; float c[4]; } query = {.d = 0}; /* one element of the dtype */
    void *work = NULL;
    ct_status st = CT_OK;
    if (s == NULL || rwork == NULL || iwork == NULL) {
        st = ct_set_error(CT_ERR_NOMEM, "linalg.svd: out of memory");
        goto done;
    }
    if (gesdd(dt, m, n, a, s, &query, -1, rwork, iwork) != 0) {
        st = ct_set_error(CT_ERR_RUNTIME, "linalg.svd: LAPACK refused the workspace query");
        goto done;
    }
    double want = single ? (double)query.f : query.d;
    lapack_int lwork = want < 1 ? 1 : (lapack_int)want;
    work_bytes = (size_t)lwork * elem;
    work = ct_alloc(work_bytes, 64);
    if (work == NULL) {
        st = ct_set_error(CT_ERR_NOMEM, "linalg.svd: out of memory");
        goto done;
    }
    char *mat = a;
    for (int64_t b = 0; b < batch; b++, mat += (size_t)(rows * cols) * elem) {
        /* LAPACK is not asked about NaN or infinity: PyTorch's answers are an error for a
         * NaN (LAPACK does not converge) and NaN for an infinity */
        int bad = non_finite(dt, mat, rows * cols);
        if (bad == 2) {
            st = not_finite();
            goto done;
        }
        if (bad == 1) {
            sums[b] = NAN;
            continue;
        }
        lapack_int info = gesdd(dt, m, n, mat, s, work, lwork, rwork, iwork);
        if (info != 0) {
            st = info > 0 ? ct_set_error(CT_ERR_RUNTIME, "linalg.svd: The algorithm failed to "
                                                         "converge because the input matrix is "
                                                         "ill-conditioned or has too many "
                                                         "repeated singular values.")
                          : ct_set_error(CT_ERR_RUNTIME, "linalg.svd: LAPACK argument %d was "
                                                         "invalid",
                                         (int)-info);
            goto done;
        }
        /* summed smallest first, in double: the values are non-negative and sorted descending */
        double acc = 0;
        for (int64_t i = k - 1; i >= 0; i--)
            acc += single ? (double)((float *)s)[i] : ((double *)s)[i];
        sums[b] = acc;
    }
done:
    ct_free(work, work_bytes, 64);
    ct_free(s, s_bytes, 64);
    ct_free(rwork, rwork_bytes, 64);
    ct_free(iwork, iwork_bytes, 64);
    return st;
}
