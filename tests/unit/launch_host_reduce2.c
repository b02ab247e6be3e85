/* REDUCE launches of the multi-number accumulators (ctensor/backend.h CT_LAUNCH_RED_ARGMAX
 * ..) executed on the host with the element code the GPU kernels compile
 * (src/kernels/reduce2_elem.h), after checking the launch's contract: 2 or 3 operands, the
 * outputs' strides 0 exactly along the reduced dims. Each output's elements are read in
 * chunks of 5 whose results are combined pairwise, in a tree (as the GPU's blocks
 * combine), so ct_r2combine is exercised on partial results as well as on elements. */
#include <stdlib.h>

#include "base/error_impl.h"
#include "kernels/reduce2_elem.h"
#include "launch_host.h"

long launches_reduce2;

ct_status host_launch_reduce2(const ct_kernel_launch *l) {
    launches_reduce2++;
    ct_r2plan p;
    if ((l->noperands != 2 && l->noperands != 3) || !ct_r2plan_init(&p, l))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "test launch: no reduce kernel for %s",
                            l->name);
    int kd[CT_LAUNCH_MAX_DIMS], rd[CT_LAUNCH_MAX_DIMS], nk = 0, nr = 0;
    int64_t O = 1, R = 1;
    for (int d = 0; d < l->ndim; d++) {
        bool kept = l->strides[0][d] != 0;
        if (p.nout == 2 && kept != (l->strides[2][d] != 0))
            return ct_set_error(CT_ERR_MISUSE, "test launch: outputs disagree on dim %d", d);
        if (kept) {
            kd[nk++] = d;
            O *= l->shape[d];
        } else {
            rd[nr++] = d;
            R *= l->shape[d];
        }
    }
    enum { CHUNK = 5 };
    int64_t nchunks = (R + CHUNK - 1) / CHUNK;
    ct_racc2 *part = malloc((size_t)(nchunks > 0 ? nchunks : 1) * sizeof *part);
    if (part == NULL)
        return ct_set_error(CT_ERR_NOMEM, "test launch: out of memory");
    for (int64_t o = 0; o < O; o++) {
        int64_t oo = 0, oo2 = 0, io = 0, rest = o;
        for (int k = 0; k < nk; k++) {
            int64_t c = rest % l->shape[kd[k]];
            rest /= l->shape[kd[k]];
            oo += c * l->strides[0][kd[k]];
            io += c * l->strides[1][kd[k]];
            if (p.nout == 2)
                oo2 += c * l->strides[2][kd[k]];
        }
        for (int64_t c = 0; c < nchunks; c++) {
            ct_racc2 a = ct_r2init(&p);
            for (int64_t r = c * CHUNK; r < R && r < (c + 1) * CHUNK; r++) {
                int64_t off = io, q = r;
                for (int k = 0; k < nr; k++) {
                    off += (q % l->shape[rd[k]]) * l->strides[1][rd[k]];
                    q /= l->shape[rd[k]];
                }
                a = ct_r2combine(&p, a, ct_r2read(&p, l->data[1] + off, r));
            }
            part[c] = a;
        }
        for (int64_t w = 1; w < nchunks; w *= 2) /* pairwise, as a tree */
            for (int64_t c = 0; c + w < nchunks; c += 2 * w)
                part[c] = ct_r2combine(&p, part[c], part[c + w]);
        ct_r2finish(&p, nchunks > 0 ? part[0] : ct_r2init(&p), l->data[0] + oo,
                    p.nout == 2 ? l->data[2] + oo2 : NULL);
    }
    free(part);
    return CT_OK;
}
