/* Shapes and strides of the element-wise iterator: broadcasting, the layout of new
 * outputs (docs/elementwise.md) and the loop geometry the kernels walk.
 *
 * Note [Output strides]
 * A new output follows its inputs' memory layout, as PyTorch's TensorIterator decides it:
 *  (a) when every operand has the broadcast shape and all are contiguous, or all
 *      channels_last contiguous, or all dense with identical strides, the output takes that
 *      layout (contiguous is tested first, so ambiguous NC11 tensors give contiguous);
 *  (b) otherwise the dims are insertion-sorted by the operands' strides (outputs first,
 *      broadcast dims undecided, ties broken by size), and the output gets dense strides in
 *      that order. The sort is PyTorch's exactly, ambiguities included, because its result
 *      is observable through Tensor.stride().
 * The loop then runs in the same order (innermost first), with size-1 dims dropped and
 * neighbouring dims merged where every operand continues in memory, so a contiguous
 * operation of any rank is a single row. */
#include <inttypes.h>
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "iter/iter.h"
#include "tensor/tensor_impl.h"

/* ---- broadcasting ------------------------------------------------------------------------ */

ct_status ct_iter_broadcast_sizes(const int64_t *sa, int32_t na, const int64_t *sb, int32_t nb,
                                  int64_t *shape, int32_t *ndim) {
    int32_t n = na > nb ? na : nb;
    /* right-aligned; checked from the right so the rightmost mismatch is reported. Writing
     * shape[i] after reading sa[i - (n - na)] lets shape be sa: later steps read lower
     * indices only. */
    for (int32_t i = n - 1; i >= 0; i--) {
        int32_t ia = i - (n - na), ib = i - (n - nb);
        int64_t a = ia >= 0 ? sa[ia] : 1, b = ib >= 0 ? sb[ib] : 1;
        if (a == b || b == 1) {
            shape[i] = a;
        } else if (a == 1) {
            shape[i] = b;
        } else {
            return ct_set_error(CT_ERR_RUNTIME,
                                "The size of tensor a (%" PRId64 ") must match the size of "
                                "tensor b (%" PRId64 ") at non-singleton dimension %d",
                                a, b, (int)i);
        }
    }
    *ndim = n;
    return CT_OK;
}

ct_status ct_iter_broadcast(const ct_tensor *a, const ct_tensor *b, int64_t *shape,
                            int32_t *ndim) {
    return ct_iter_broadcast_sizes(a->sizes, a->ndim, b->sizes, b->ndim, shape, ndim);
}

/* ---- converted inputs ---------------------------------------------------------------------- */

/* Note [Converted inputs]
 * On the cpu, PyTorch's TensorIterator::compute_types swaps each input whose dtype is not the
 * common dtype for `input.to(common)` BEFORE fast_set_up and reorder_dimensions. to() keeps
 * the strides of a non-overlapping and dense input and gives any other one dense strides in
 * its dim order (infer_dense_strides), so an expanded or sliced input of another dtype counts
 * as a dense tensor there: tensor(1.).expand(2,2,2) + complex64 ones(2,2,2).permute(0,2,1)
 * is contiguous (4,2,1) in torch, where the float32 operands alone would give (4,1,2).
 * Element sizes change too, but every comparison of the sort stays within one operand, so
 * only the strides matter. The meta device and other devices convert nothing, and outputs
 * are left alone: an out= of another dtype is swapped for a contiguous temporary of the
 * common dtype, but a given output keeps its strides whatever the loop order, and a resized
 * one takes no part in the decisions, so the swap is not observable. */
ct_status ct_iter_decision_input(const ct_iter *it, const ct_tensor *t, ct_tensor *view,
                                 int64_t *strides, const ct_tensor **out) {
    *out = t;
    if (t->dtype == it->common_dtype || t->ndim == 0 || it->device.type != CT_DEVICE_CPU ||
        (t->flags & CT_TF_NON_OVERLAPPING_DENSE))
        return CT_OK;
    CT_TRY(ct_tensor_impl_like_strides(t, CT_MEMFMT_PRESERVE, strides));
    memset(view, 0, sizeof *view);
    view->sizes = t->sizes;
    view->strides = strides;
    view->ndim = t->ndim;
    view->numel = t->numel;
    view->dtype = it->common_dtype;
    view->device = t->device;
    view->layout = t->layout;
    view->flags = ct_tensor_impl_memfmt_flags(t->sizes, strides, t->ndim);
    *out = view;
    return CT_OK;
}

ct_status ct_iter_decision_input_k(const ct_iter *it, int k, ct_tensor *view, int64_t *strides,
                                   const ct_tensor **out) {
    if (k < it->config->unpromoted_inputs) {
        *out = it->in[k];
        return CT_OK;
    }
    return ct_iter_decision_input(it, it->in[k], view, strides, out);
}

/* ---- output strides (a): fast setup ---------------------------------------------------- */

static bool same_strides(const ct_tensor *x, const ct_tensor *y) {
    return x->ndim == y->ndim &&
           (x->ndim == 0 || memcmp(x->strides, y->strides, (size_t)x->ndim * sizeof(int64_t)) == 0);
}

ct_iter_setup ct_iter_fast_setup(const ct_tensor *out, const ct_tensor *const *in, int nin) {
    uint32_t all = out != NULL ? out->flags : ~(uint32_t)0;
    for (int k = 0; k < nin; k++)
        all &= in[k]->flags;
    if (all & CT_TF_CONTIGUOUS)
        return CT_ITER_SETUP_CONTIGUOUS;
    if (all & CT_TF_CL_CONTIGUOUS)
        return CT_ITER_SETUP_CHANNELS_LAST;
    if (!(all & CT_TF_NON_OVERLAPPING_DENSE))
        return CT_ITER_SETUP_NONE;
    const ct_tensor *ref = in[nin - 1];
    for (int k = 0; k + 1 < nin; k++)
        if (!same_strides(in[k], ref))
            return CT_ITER_SETUP_NONE;
    if (out != NULL && !same_strides(out, ref))
        return CT_ITER_SETUP_NONE;
    return CT_ITER_SETUP_DENSE;
}

/* ---- output strides (b): the permutation -------------------------------------------------- */

/* Byte strides of operand t broadcast to the iterator's shape (user order); 0 along
 * broadcast dims and missing leading dims. */
static void broadcast_strides(const ct_iter *it, const ct_tensor *t, int64_t *sb) {
    int32_t n = it->ndim_shape, off = n - t->ndim;
    int64_t isz = (int64_t)ct_dtype_table[t->dtype].itemsize;
    for (int32_t i = 0; i < n; i++) {
        int32_t k = i - off;
        sb[i] = (k < 0 || (t->sizes[k] == 1 && it->shape_user[i] != 1)) ? 0 : t->strides[k] * isz;
    }
}

/* PyTorch's should_swap: 1 if dim0 goes after dim1, -1 if before, 0 if undecided. */
static int should_swap(const ct_iter *it, int64_t (*sb)[CT_MAX_DIMS], int nops, int32_t d0,
                       int32_t d1) {
    for (int k = 0; k < nops; k++) {
        int64_t s0 = sb[k][d0], s1 = sb[k][d1];
        if (s0 == 0 || s1 == 0)
            continue; /* broadcast: this operand cannot tell */
        if (s0 < s1)
            return -1;
        if (s0 > s1)
            return 1;
        if (it->shape_user[d0] > it->shape_user[d1])
            return 1; /* equal strides: the smaller dim goes first */
    }
    return 0;
}

void ct_iter_permutation(const ct_iter *it, const ct_tensor *out, const ct_tensor *const *in,
                         int nin, int32_t *perm) {
    int32_t n = it->ndim_shape;
    for (int32_t i = 0; i < n; i++)
        perm[i] = n - 1 - i;
    if (n <= 1)
        return;
    int64_t sb[CT_ITER_MAX_OPERANDS][CT_MAX_DIMS];
    int nops = 0;
    if (out != NULL)
        broadcast_strides(it, out, sb[nops++]);
    for (int k = 0; k < nin; k++)
        broadcast_strides(it, in[k], sb[nops++]);
    /* insertion sort that steps over undecided pairs instead of stopping at them */
    for (int32_t i = 1; i < n; i++) {
        int32_t d1 = i;
        for (int32_t d0 = i - 1; d0 >= 0; d0--) {
            int c = should_swap(it, sb, nops, perm[d0], perm[d1]);
            if (c > 0) {
                int32_t t = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = t;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

ct_status ct_iter_output_strides(const ct_iter *it, ct_iter_setup setup, const ct_tensor *b,
                                 const int32_t *perm, int64_t *strides) {
    int32_t n = it->ndim_shape;
    switch (setup) {
    case CT_ITER_SETUP_CONTIGUOUS:
        return ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, it->shape_user, n, strides);
    case CT_ITER_SETUP_CHANNELS_LAST:
        return ct_memory_format_strides(CT_MEMFMT_CHANNELS_LAST, it->shape_user, n, strides);
    case CT_ITER_SETUP_DENSE:
        if (n > 0)
            memcpy(strides, b->strides, (size_t)n * sizeof *strides);
        return CT_OK;
    default:
        break;
    }
    bool inverted = true;
    for (int32_t i = 0; i < n; i++)
        inverted &= perm[i] == n - 1 - i;
    if (inverted) /* plain contiguous, with its clamping of zero sizes */
        return ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, it->shape_user, n, strides);
    /* dense along perm; PyTorch multiplies by zero sizes here too (no clamping) */
    int64_t next = 1;
    bool overflow = false;
    for (int32_t i = 0; i < n; i++) {
        strides[perm[i]] = next;
        overflow |= ct_checked_mul_i64(next, it->shape_user[perm[i]], &next);
    }
    if (overflow)
        return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
    return CT_OK;
}

/* ---- loop geometry --------------------------------------------------------------------------- */

static char *element0(const ct_tensor *t) {
    if (t->storage == NULL || t->storage->data == NULL)
        return NULL;
    return (char *)t->storage->data + t->storage_offset * (int64_t)ct_dtype_table[t->dtype].itemsize;
}

void ct_iter_geometry(ct_iter *it, const int32_t *perm) {
    int nt = it->ntensors;
    const ct_tensor *ops[CT_ITER_MAX_OPERANDS] = {it->out};
    for (int k = 1; k < nt; k++)
        ops[k] = it->in[k - 1];
    for (int k = 0; k < nt; k++)
        it->data[k] = element0(ops[k]);
    if (it->numel <= 1) {
        it->ndim = 0;
        return;
    }
    if (perm == NULL) {
        it->ndim = 1;
        it->shape[0] = it->numel;
        for (int k = 0; k < nt; k++)
            it->strides[k][0] = (int64_t)ct_dtype_table[ops[k]->dtype].itemsize;
        return;
    }
    int64_t sb[CT_ITER_MAX_OPERANDS][CT_MAX_DIMS];
    for (int k = 0; k < nt; k++)
        broadcast_strides(it, ops[k], sb[k]);
    int32_t m = 0;
    for (int32_t i = 0; i < it->ndim_shape; i++) {
        int32_t d = perm[i];
        int64_t size = it->shape_user[d];
        if (size == 1)
            continue;
        if (m > 0) { /* merge into the previous dim when every operand continues it */
            bool merge = true;
            for (int k = 0; k < nt; k++)
                merge &= sb[k][d] == it->strides[k][m - 1] * it->shape[m - 1];
            if (merge) {
                it->shape[m - 1] *= size;
                continue;
            }
        }
        it->shape[m] = size;
        for (int k = 0; k < nt; k++)
            it->strides[k][m] = sb[k][d];
        m++;
    }
    it->ndim = m;
}
