/* REDUCE launches (ctensor/backend.h) executed on the host with the element code the GPU
 * kernels compile (src/kernels/reduce_elem.h), after checking the launch's contract: two
 * operands, the output's stride 0 exactly along the reduced dims. Each output's elements are read in chunks of 5 whose results are combined
 * pairwise (a tree, as the GPU's blocks combine), so ct_rcombine is exercised as well as
 * ct_rstep. */
#include <stdlib.h>

#include "base/error_impl.h"
#include "kernels/reduce_elem.h"
#include "launch_host.h"

long launches_reduce;

ct_status host_launch_reduce(const ct_kernel_launch *l) {
    if (l->reduce_op >= CT_LAUNCH_RED_ARGMAX) /* multi-number accumulators */
        return host_launch_reduce2(l);
    launches_reduce++;
    ct_rplan p;
    if (l->noperands != 2 || !ct_rplan_init(&p, l))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "test launch: no reduce kernel for %s",
                            l->name);
    /* split the dims: kept (output stride != 0) and reduced, each innermost first */
    int kd[CT_LAUNCH_MAX_DIMS], rd[CT_LAUNCH_MAX_DIMS], nk = 0, nr = 0;
    int64_t O = 1, R = 1;
    for (int d = 0; d < l->ndim; d++) {
        if (l->strides[0][d] != 0) {
            kd[nk++] = d;
            O *= l->shape[d];
        } else {
            rd[nr++] = d;
            R *= l->shape[d];
        }
    }
    enum { CHUNK = 5 };
    int64_t nchunks = (R + CHUNK - 1) / CHUNK;
    ct_racc *part = malloc((size_t)nchunks * sizeof *part);
    if (part == NULL)
        return ct_set_error(CT_ERR_NOMEM, "test launch: out of memory");
    for (int64_t o = 0; o < O; o++) {
        int64_t oo = 0, io = 0, rest = o;
        for (int k = 0; k < nk; k++) {
            int64_t c = rest % l->shape[kd[k]];
            rest /= l->shape[kd[k]];
            oo += c * l->strides[0][kd[k]];
            io += c * l->strides[1][kd[k]];
        }
        for (int64_t c = 0; c < nchunks; c++) {
            ct_racc a = ct_rinit(&p);
            for (int64_t r = c * CHUNK; r < R && r < (c + 1) * CHUNK; r++) {
                int64_t off = io, q = r;
                for (int k = 0; k < nr; k++) {
                    off += (q % l->shape[rd[k]]) * l->strides[1][rd[k]];
                    q /= l->shape[rd[k]];
                }
                a = ct_rstep(&p, a, l->data[1] + off);
            }
            part[c] = a;
        }
        for (int64_t w = 1; w < nchunks; w *= 2) /* pairwise, as a tree */
            for (int64_t c = 0; c + w < nchunks; c += 2 * w)
                part[c] = ct_rcombine(&p, part[c], part[c + w]);
        ct_rfinish(&p, part[0], l->data[0] + oo);
    }
    free(part);
    return CT_OK;
}
