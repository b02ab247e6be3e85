/* One line of a scan (cumsum, cumprod) in its accumulation dtype, in place: x[r] = x[r - 1]
 * (+ or *) x[r] for r = 1 .. R - 1, elements `step` bytes apart. The cpu's scan
 * (reduce_stats.c), the host-executed SCAN launches (tests/unit/launch_host_scan.c) and the
 * GPU kernel (src/cuda/kernels_scan.cu) all run these functions, in this order, so every
 * device gives the same bits (Note [One definition per element] in binary_elem.h).
 * int64 wraps (computed unsigned); complex products are the plain formula (no C Annex G
 * recovery of infinities), as the cpu has always computed them. */
#ifndef CT_KERNELS_SCAN_ELEM_H
#define CT_KERNELS_SCAN_ELEM_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/binary_elem.h" /* CT_HD */

/* The accumulation types (reduce_stats.h's ct_scan_type values). */
enum { CT_SCAN_ELEM_F64 = 0, CT_SCAN_ELEM_I64 = 1, CT_SCAN_ELEM_C128 = 2 };

CT_HD int64_t ct_scan_i64(bool prod, int64_t prev, int64_t cur) {
    uint64_t a = (uint64_t)prev, b = (uint64_t)cur;
    return (int64_t)(prod ? a * b : a + b);
}
CT_HD double ct_scan_f64(bool prod, double prev, double cur) {
    return prod ? prev * cur : prev + cur;
}
/* prev and cur: (re, im) pairs; the result replaces cur */
CT_HD void ct_scan_c128(bool prod, const double *a, double *b) {
    if (prod) {
        double re = a[0] * b[0] - a[1] * b[1];
        double im = a[0] * b[1] + a[1] * b[0];
        b[0] = re;
        b[1] = im;
    } else {
        b[0] += a[0];
        b[1] += a[1];
    }
}

/* The first element: the identity (+0 or 1) combined with it, as PyTorch's accumulator starts
 * from it (a sum turns -0.0 into +0.0; a product keeps every value). */
CT_HD void ct_scan_first(int type, bool prod, void *x) {
    if (type == CT_SCAN_ELEM_I64) {
        return;
    } else if (type == CT_SCAN_ELEM_F64) {
        double *p = (double *)x;
        p[0] = ct_scan_f64(prod, prod ? 1.0 : 0.0, p[0]);
    } else {
        double one[2] = {prod ? 1.0 : 0.0, 0.0};
        ct_scan_c128(prod, one, (double *)x);
    }
}

/* One line of R elements, `step` elements apart, from x. */
CT_HD void ct_scan_line(int type, bool prod, void *x, int64_t R, int64_t step) {
    ct_scan_first(type, prod, x);
    if (type == CT_SCAN_ELEM_I64) {
        int64_t *p = (int64_t *)x;
        for (int64_t r = 1; r < R; r++)
            p[r * step] = ct_scan_i64(prod, p[(r - 1) * step], p[r * step]);
    } else if (type == CT_SCAN_ELEM_F64) {
        double *p = (double *)x;
        for (int64_t r = 1; r < R; r++)
            p[r * step] = ct_scan_f64(prod, p[(r - 1) * step], p[r * step]);
    } else {
        double *p = (double *)x;
        for (int64_t r = 1; r < R; r++)
            ct_scan_c128(prod, p + 2 * (r - 1) * step, p + 2 * r * step);
    }
}

#endif /* CT_KERNELS_SCAN_ELEM_H */
