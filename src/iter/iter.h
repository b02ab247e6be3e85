/* The element-wise iterator (PyTorch's TensorIterator; its rules: docs/elementwise.md).
 *
 * Building an iterator resolves everything about the operands before any kernel runs:
 * broadcast shape, computation dtype and output-cast check, common device, output
 * allocation or resize, overlap checks, the dimension order and dimension coalescing. What
 * is left for the kernel is NumPy's inner-loop contract: base pointers, byte strides and a
 * count.
 *
 * Operands are numbered outputs first: 0 is the output, 1.. are the inputs.
 * Files: build.c (the build in TensorIterator's order: checks, dtype, device, output),
 * overlap.c (overlap checks), strides.c (broadcasting, output strides, loop geometry),
 * run.c (the run, through dtype/convert/walk.c: rows, tiles and threads, shared with copy_).
 * Layering: iter uses base, dtype, device and tensor; kernels and ops sit above it. */
#ifndef CT_ITER_ITER_H
#define CT_ITER_ITER_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/backend.h"
#include "ctensor/tensor.h"

/* one output and up to three inputs (where, clamp, lerp, addcmul: src/ops/ternary.c) */
#define CT_ITER_MAX_INPUTS 3
#define CT_ITER_MAX_OPERANDS (1 + CT_ITER_MAX_INPUTS)

/* What kind of op is being built: TensorIterator's per-op configuration flags. */
typedef struct ct_iter_config {
    const char *name;      /* op name for messages, e.g. "add" */
    bool promote_inputs;   /* common dtype = result_type(inputs) when input dtypes differ */
    /* how many leading inputs take no part in the common dtype (where's condition): they
     * are read in their own dtype, and the layout decisions see them unconverted */
    int unpromoted_inputs;
    /* result_type even when the promoted inputs' dtypes agree: two Python floats give the
     * default dtype (where(c, 2.5, 3.5)), where a binary op keeps them float64 */
    bool result_type_always;
    bool int_to_float;     /* integral or bool common dtype -> default dtype (true div) */
    bool check_out_cast;   /* ct_check_output_cast(common, output dtype) for given outputs */
    bool allow_cpu_scalars;/* a 0-dim cpu input may join another device's tensors */
    /* wrapped numbers are the op's Scalar arguments (clamp's bounds, where's numbers), which
     * PyTorch passes by value: they join any device and are not counted as CPU scalars */
    bool wrapped_numbers_by_value;
    bool check_overlap;    /* internal and partial overlap checks */
    /* out= must have exactly the result dtype: "Found dtype Bool but expected Int" (PyTorch's
     * check_all_same_dtype of the unary ops that are not float ops: neg, floor, ...) */
    bool same_dtype_out;
    /* the dtype of a new output (and what check_out_cast checks an out= against) */
    enum {
        CT_ITER_RESULT_COMMON = 0, /* the computation dtype */
        CT_ITER_RESULT_BOOL,       /* bool (logical_not): computed in the common dtype */
        CT_ITER_RESULT_REAL,       /* the common dtype's real dtype (abs of complex) */
    } result;
} ct_iter_config;

/* The config of add, sub, mul, div(trunc/floor) and of div(None) (binary float op). */
extern const ct_iter_config ct_iter_binary_op;
extern const ct_iter_config ct_iter_binary_float_op;

typedef struct ct_iter {
    int ntensors;  /* 1 output + inputs */
    const ct_iter_config *config; /* the build's (borrowed) */
    /* operand tensors: [0] is the output (a new reference the iterator owns: the given out/
     * self retained, or the result allocated by the build), [1..] borrowed inputs */
    ct_tensor *out;
    const ct_tensor *in[CT_ITER_MAX_INPUTS];
    ct_dtype common_dtype;              /* the computation dtype */
    ct_dtype dtype[CT_ITER_MAX_OPERANDS];/* each operand's own dtype */
    ct_device device;                   /* common device */
    bool is_meta;                       /* nothing to compute (meta device) */
    bool out_allocated;                 /* the build created the output */
    bool out_resized;                   /* the build resized a given output */

    /* The broadcast shape in the user's dim order (what the output has). */
    int32_t ndim_shape;
    int64_t shape_user[CT_MAX_DIMS];
    int64_t numel;

    /* The loop geometry: `ndim` dims, innermost (fastest) first, after dimension reordering
     * and coalescing; size-1 dims dropped. ndim 0 with numel 1 is a single element.
     * strides[op][d] in BYTES (0 for broadcast dims). data[op] = address of element 0. */
    int32_t ndim;
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_ITER_MAX_OPERANDS][CT_MAX_DIMS];
    char *data[CT_ITER_MAX_OPERANDS];
} ct_iter;

/* Called by the build once dtypes and devices are settled, before any output is allocated
 * or resized, so an op can refuse (alpha, dtypes without kernels) while nothing has
 * changed. it->common_dtype, it->dtype[] (the output's: its own, or the common dtype for a
 * new one), it->device and it->is_meta are set. */
typedef ct_status (*ct_iter_prepare)(void *ctx, const ct_iter *it);

/* Build a binary element-wise iterator over inputs a and b.
 *  out == NULL: a new output of the common dtype on the common device, shaped and strided
 *    as docs/elementwise.md "Output strides" says (it->out, owned, it->out_allocated).
 *  out != NULL, inplace false: an `out=` tensor. Dtype checked (check_out_cast); resized
 *    when its shape differs from the broadcast shape (ct_warn'ing when it had elements,
 *    with PyTorch's deprecation text), unless it is also an input (then the shape error).
 *    Its device counts for the common device.
 *  out != NULL, inplace true: `out` is also `a` (self of an in-place op); it cannot grow.
 *    In the OneFlow-compatible mode the common dtype must equal self's dtype.
 * `prepare` (may be NULL) runs as described above; its error aborts the build.
 * On error nothing is allocated or changed and it->out is NULL. On success call
 * ct_iter_release. Errors: the messages of docs/elementwise.md; CT_ERR_NOT_IMPLEMENTED
 * "add: no kernels for device type cuda" for devices whose memory host code cannot touch
 * and whose backend has no launch slot (with one, see ct_iter_needs_launch). */
ct_status ct_iter_build_binary(ct_iter *it, const ct_iter_config *config, ct_tensor *out,
                               bool inplace, const ct_tensor *a, const ct_tensor *b,
                               ct_iter_prepare prepare, void *prepare_ctx);

/* Build an element-wise iterator over inputs in[0 .. nin) (1 <= nin <= CT_ITER_MAX_INPUTS):
 * ct_iter_build_binary's rules with any number of inputs (the broadcast shape folds from the
 * left, as PyTorch's infer_size; the common dtype is the result type of the inputs from
 * config->unpromoted_inputs on, or the first of them when they agree or promote_inputs is
 * false). An in-place `out` must be in[0]. it->ntensors is 1 + nin. */
ct_status ct_iter_build(ct_iter *it, const ct_iter_config *config, ct_tensor *out, bool inplace,
                        const ct_tensor *const *in, int nin, ct_iter_prepare prepare,
                        void *prepare_ctx);

/* Build a unary element-wise iterator over `a` (one output, one input): the binary build's
 * rules (overlap, dtype and output-cast check, device, out= resize, output layout) with a
 * lone operand. it->ntensors is 2: operand 1 is `a`, data[2]/strides[2] are unused. A
 * unary TensorIterator sees its input alone, so its layout decisions are those of the
 * binary build with both inputs `a`. Errors: as ct_iter_build_binary. */
ct_status ct_iter_build_unary(ct_iter *it, const ct_iter_config *config, ct_tensor *out,
                              bool inplace, const ct_tensor *a, ct_iter_prepare prepare,
                              void *prepare_ctx);

/* Drop the iterator's output reference (safe on a failed or zeroed iterator). */
void ct_iter_release(ct_iter *it);

/* Take the output out of the iterator (a new reference for the caller); it->out becomes
 * NULL. */
ct_tensor *ct_iter_take_output(ct_iter *it);

/* The 1-D inner loop a kernel provides: `n` elements, operand k at data[k] + i * strides[k].
 * Returns 0, or a nonzero kernel error code that stops the run (see ct_iter_run). */
typedef int (*ct_iter_loop)(void *ctx, char *const *data, const int64_t *strides, int64_t n);

/* Run `loop` over every element. Work is split across threads (base/parallel.h) when numel is
 * above `grain` elements; loops must then be thread-safe for disjoint ranges. Inner rows are
 * chosen for memory locality (a permuted input is walked in tiles rather than row by row).
 * Returns the first nonzero code a loop returned (0 when all succeeded); the run stops
 * early on a nonzero code (other threads finish their current row). A meta iterator or
 * numel 0 runs nothing. */
int ct_iter_run(const ct_iter *it, ct_iter_loop loop, void *ctx, int64_t grain);

/* ---- devices whose memory host code cannot touch ------------------------------------------
 * The build accepts such a device when its backend has a `launch` slot (backend.h); the op
 * then hands the built geometry to the backend instead of running host loops. */

/* Whether the iterator's operands must be computed by a launch: a device that is neither
 * meta nor host accessible. */
bool ct_iter_needs_launch(const ct_iter *it);

/* Fill *l from the built iterator: noperands, dtypes, data pointers, ndim, numel, shape and
 * byte strides (innermost first, coalesced, as the iterator has them), compute = math =
 * the common dtype; everything else zero. The op fills kind, name, binop, flags, compute,
 * math and alpha, and replaces the data pointer of an operand that is not in the device's
 * memory (a 0-dim cpu tensor). */
void ct_iter_fill_launch(const ct_iter *it, ct_kernel_launch *l);

/* Run `l` on the iterator's device through its backend's launch slot (nothing for a meta
 * iterator or numel 0). Errors: the backend's (CT_ERR_RUNTIME "ZeroDivisionError", ...). */
ct_status ct_iter_launch(const ct_iter *it, const ct_kernel_launch *l);

/* ---- internals shared by the iter files -------------------------------------------------- */

/* overlap.c: the internal and partial overlap checks (CT_ERR_RUNTIME with PyTorch's messages). */
ct_status ct_iter_check_internal_overlap(const ct_tensor *out);
ct_status ct_iter_check_partial_overlap(const ct_tensor *out, const ct_tensor *in);

/* strides.c: the broadcast shape of a and b (right-aligned, size 1 stretches) into shape/ndim. */
ct_status ct_iter_broadcast(const ct_tensor *a, const ct_tensor *b, int64_t *shape,
                            int32_t *ndim);
/* The same over sizes: sa[0 .. na) with sb[0 .. nb) into shape/ndim (shape may be sa). */
ct_status ct_iter_broadcast_sizes(const int64_t *sa, int32_t na, const int64_t *sb, int32_t nb,
                                  int64_t *shape, int32_t *ndim);

/* strides.c: how a new or resized output is laid out (fast setup, else the general path). */
typedef enum ct_iter_setup {
    CT_ITER_SETUP_NONE = 0,     /* general path: permutation of the operands' strides */
    CT_ITER_SETUP_CONTIGUOUS,   /* every operand contiguous */
    CT_ITER_SETUP_CHANNELS_LAST,/* every operand channels_last contiguous */
    CT_ITER_SETUP_DENSE,        /* every operand dense with the same strides */
} ct_iter_setup;

/* The fast setup of the operands (out NULL when absent or to be resized; the inputs
 * in[0 .. nin) have the broadcast shape already checked by the caller). */
ct_iter_setup ct_iter_fast_setup(const ct_tensor *out, const ct_tensor *const *in, int nin);

/* The general path's dimension order (strides compared operand by operand) over it->shape_user:
 * perm[0] is the user dim that moves fastest. `out` is the given output unless it is absent or to
 * be resized; in[0 .. nin) are the inputs as the decision sees them (ct_iter_decision_input). */
void ct_iter_permutation(const ct_iter *it, const ct_tensor *out, const ct_tensor *const *in,
                         int nin, int32_t *perm);

/* How input t looks to the layout decisions (fast setup, permutation, dense strides).
 * PyTorch's compute_types replaces every CPU input whose dtype differs from the common dtype
 * by t.to(common) before deciding anything (Note [Converted inputs] in strides.c); ctensor
 * reads t in place and converts in the kernel, so only the decisions see the copy's layout.
 * Returns t itself when the copy would have t's strides (same dtype, 0-dim, not on the cpu,
 * or t non-overlapping and dense: the common case costs one comparison); else fills *view
 * (strides into `strides`, CT_MAX_DIMS entries) and returns view. The view is metadata only
 * (no storage, no reference count): never pass it to anything that reads data. Errors:
 * those of infer_dense_strides (none for valid tensors). */
ct_status ct_iter_decision_input(const ct_iter *it, const ct_tensor *t, ct_tensor *view,
                                 int64_t *strides, const ct_tensor **out);
/* The same for input k of the iterator: an unpromoted input (config->unpromoted_inputs) is
 * never converted, so the decisions see it as it is. */
ct_status ct_iter_decision_input_k(const ct_iter *it, int k, ct_tensor *view, int64_t *strides,
                                   const ct_tensor **out);

/* Strides (elements, user order) of a new or resized output of it->shape_user: `setup` from
 * ct_iter_fast_setup, `perm` from ct_iter_permutation (used with CT_ITER_SETUP_NONE). The
 * dense setup copies b's strides (any input's: they agree). Errors: CT_ERR_OVERFLOW for
 * absurd shapes. */
ct_status ct_iter_output_strides(const ct_iter *it, ct_iter_setup setup, const ct_tensor *b,
                                 const int32_t *perm, int64_t *strides);

/* Fill it->ndim/shape/strides/data from the final operands (it->out set). perm NULL: every
 * operand is dense in one shared layout (a fast setup), so one flat dim covers them. */
void ct_iter_geometry(ct_iter *it, const int32_t *perm);

#endif /* CT_ITER_ITER_H */
