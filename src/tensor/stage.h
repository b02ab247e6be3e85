/* Running a host-only operation on an accelerator's tensors through host memory.
 *
 * Note [Staging through host memory]
 * Ops without kernels of their own for an accelerator (sort, advanced indexing, matrix
 * products, ...) still run there: their tensor arguments are mirrored into host memory, the
 * cpu implementation runs on the mirrors, and what it wrote or made is moved back to the
 * device. So those ops give the cpu's values, dtypes, strides and errors on every device,
 * at the price of two transfers.
 *  - Arguments are grouped by device storage, and each group's bytes (the span its
 *    arguments reach, from the lowest first element to the highest last one) are copied to
 *    one host storage, each argument becoming a view of it with its own sizes, strides and
 *    offset: tensors that alias on the device alias on the host, so overlap checks,
 *    in-place updates through views and out= tensors that are inputs behave as on cpu.
 *    Only raw byte copies move data (the backend's copy slots): no device kernel is needed.
 *  - Arguments marked written (self of an in-place op, out= tensors) are written back: the
 *    span of their group once, and their geometry when the op resized them (a storage the
 *    cpu op replaced is replaced on the device too).
 *  - New tensors the op returns become device tensors with the same geometry; one that is a
 *    view of an argument becomes the same view of the argument's device storage, and an
 *    argument itself (the out= tensor an op returns) the device argument.
 *  - Devices are checked first, as the op would on one device: every argument marked
 *    CT_STAGE_SAME_DEVICE must be on the staged device (PyTorch's "Expected all tensors to
 *    be on the same device" otherwise), others may also be on cpu (index tensors).
 * Only strided tensors on a device other than cpu and meta are staged; cpu arguments pass
 * through as they are. */
#ifndef CT_TENSOR_STAGE_H
#define CT_TENSOR_STAGE_H

#include <stdbool.h>

#include "ctensor/tensor.h"

/* an index list (one tensor per dim) and a few more */
#define CT_STAGE_MAX_ARGS (CT_MAX_DIMS + 4)

enum {
    CT_STAGE_WRITTEN = 1u << 0,     /* the op writes the argument (in-place self, out=) */
    CT_STAGE_ANY_DEVICE = 1u << 1,  /* the argument may also be on cpu */
};

typedef struct ct_stage_group {
    ct_storage *device_storage; /* borrowed from the arguments */
    ct_storage *host;           /* the mirror (a reference) */
    size_t start, end;          /* bytes of the device storage mirrored */
    bool written;
} ct_stage_group;

typedef struct ct_stage_arg {
    ct_tensor *device; /* the caller's tensor (written ones are modified) */
    ct_tensor *host;   /* a reference: the mirror view, or the cpu argument itself */
    unsigned flags;
    int group; /* -1: not staged (NULL, cpu, meta) */
} ct_stage_arg;

typedef struct ct_stage {
    const char *fn; /* the op, for messages */
    ct_device device;
    int nargs, ngroups;
    ct_stage_arg args[CT_STAGE_MAX_ARGS];
    ct_stage_group groups[CT_STAGE_MAX_ARGS];
} ct_stage;

/* Should an op without kernels for t's device stage t? True for a strided tensor on a
 * device other than cpu and meta; false for NULL. */
bool ct_stage_wanted(const ct_tensor *t);

/* An empty stage for op `fn` (a string literal). */
void ct_stage_init(ct_stage *s, const char *fn);

/* Adds argument t (NULL allowed: its host tensor is NULL) with CT_STAGE_* flags; returns its
 * number for ct_stage_host. More than CT_STAGE_MAX_ARGS arguments is a programming error
 * reported by ct_stage_begin. */
int ct_stage_add(ct_stage *s, const ct_tensor *t, unsigned flags);

/* Checks the devices and mirrors every staged argument. Errors: CT_ERR_RUNTIME "Expected all
 * tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
 * CT_ERR_NOMEM; device copy errors. On error everything is released (ct_stage_end is still
 * to be called, and does nothing more). */
ct_status ct_stage_begin(ct_stage *s);

/* The host tensor of argument k (borrowed; NULL for a NULL argument). */
ct_tensor *ct_stage_host(const ct_stage *s, int k);

/* A tensor the cpu op returned (`host`, whose reference this call takes, also on error) as a
 * device tensor: a new reference in *out. NULL host gives NULL. */
ct_status ct_stage_result(ct_stage *s, ct_tensor *host, ct_tensor **out);

/* Finishes: when `st` is CT_OK, writes the written arguments back (their bytes and, where
 * the op resized them, their geometry); releases the mirrors either way. Returns st, or the
 * error of the write-back. */
ct_status ct_stage_end(ct_stage *s, ct_status st);

/* The usual end of a staged op: ct_stage_result of `host` (the cpu op's one result, NULL for
 * none; its reference is taken) into *out (when out is not NULL), then ct_stage_end. On error
 * *out is NULL and nothing is left allocated. */
ct_status ct_stage_finish(ct_stage *s, ct_status st, ct_tensor *host, ct_tensor **out);

#endif /* CT_TENSOR_STAGE_H */
