/* The ops of ctensor/index.h on an accelerator (tensor/index_stage.h), with PyTorch's device
 * rules: aten::index takes index tensors on the cpu or on self's device; index_put_ takes them
 * on any device (moved to self's), a 0-dim value tensor on any device, and a one-element cpu
 * value when it fills a mask; the other ops want all their tensors on one device. */
#include <string.h>

#include "base/error_impl.h"
#include "tensor/index_stage.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

static const ct_device IX_CPU = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

bool ct_index_stage_wanted(const ct_tensor *self, const ct_tensor *extra,
                           const ct_tensor *const *indices, size_t n) {
    bool want = ct_stage_wanted(self) || ct_stage_wanted(extra);
    for (size_t i = 0; !want && indices != NULL && i < n; i++)
        want = ct_stage_wanted(indices[i]);
    return want;
}

static bool on_cpu_or(const ct_tensor *t, ct_device dev) {
    return t->device.type == CT_DEVICE_CPU || ct_device_equal(t->device, dev);
}

/* More indices than a stage holds: more than a tensor has dims (the cpu op's own error). */
static ct_status too_many(const ct_tensor *self) {
    return ct_set_error(CT_ERR_INDEX, "too many indices for tensor of dimension %d",
                        (int)self->ndim);
}

ct_status ct_index_staged_get(const ct_tensor *self, const ct_tensor *const *indices, size_t n,
                              ct_tensor **out) {
    CT_TRY(ct_tensor_impl_check(self, "ct_tensor_index"));
    if (n > CT_MAX_DIMS)
        return too_many(self);
    /* PyTorch's check_indices_on_cpu_or_selfdevice */
    for (size_t i = 0; i < n; i++)
        if (indices[i] != NULL && !on_cpu_or(indices[i], self->device)) {
            char d[64];
            CT_TRY(ct_device_str(self->device, d, sizeof d));
            return ct_set_error(CT_ERR_INDEX,
                                "indices should be either on cpu or on the same device as the "
                                "indexed tensor (%s)",
                                d);
        }
    if (!ct_stage_wanted(self)) /* cpu indices of a meta tensor */
        return ct_tensor_index(self, indices, n, out);
    ct_stage s;
    ct_stage_init(&s, "index");
    int a = ct_stage_add(&s, self, 0), k[CT_MAX_DIMS];
    for (size_t i = 0; i < n; i++)
        k[i] = ct_stage_add(&s, indices[i], CT_STAGE_ANY_DEVICE);
    ct_tensor *h = NULL;
    const ct_tensor *hl[CT_MAX_DIMS];
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK) {
        for (size_t i = 0; i < n; i++)
            hl[i] = ct_stage_host(&s, k[i]);
        st = ct_tensor_index(ct_stage_host(&s, a), hl, n, &h);
    }
    return ct_stage_finish(&s, st, h, out);
}

ct_status ct_index_staged_put(ct_tensor *self, const ct_tensor *const *indices, size_t n,
                              const ct_tensor *values, bool accumulate) {
    CT_TRY(ct_tensor_impl_check(self, "ct_tensor_index_put_"));
    CT_TRY(ct_tensor_impl_check(values, "ct_tensor_index_put_"));
    if (n > CT_MAX_DIMS)
        return too_many(self);
    /* PyTorch moves indices on another device, and a 0-dim value, to self's device: here to
     * the cpu, which the stage takes as well. */
    const ct_tensor *il[CT_MAX_DIMS];
    ct_tensor *moved[CT_MAX_DIMS + 1] = {0};
    ct_status st = CT_OK;
    for (size_t i = 0; i < n && st == CT_OK; i++) {
        il[i] = indices[i];
        if (indices[i] != NULL && !on_cpu_or(indices[i], self->device)) {
            st = ct_tensor_to(indices[i], CT_DTYPE_UNDEFINED, &IX_CPU, false,
                              CT_MEMFMT_PRESERVE, &moved[i]);
            il[i] = moved[i];
        }
    }
    const ct_tensor *v = values;
    if (st == CT_OK && values->ndim == 0 && !on_cpu_or(values, self->device)) {
        st = ct_tensor_to(values, CT_DTYPE_UNDEFINED, &IX_CPU, false, CT_MEMFMT_PRESERVE,
                          &moved[n]);
        v = moved[n];
    }
    if (st == CT_OK && !ct_index_stage_wanted(self, v, il, n))
        st = ct_tensor_index_put_(self, il, n, v, accumulate);
    else if (st == CT_OK) {
        /* PyTorch's canDispatchToMaskedFill takes a one-element cpu value of any shape */
        size_t defined = 0, masks = 0;
        for (size_t i = 0; i < n; i++) {
            defined += il[i] != NULL;
            masks += il[i] != NULL && (il[i]->dtype == CT_BOOL || il[i]->dtype == CT_UINT8);
        }
        bool fill = !accumulate && defined == 1 && masks == 1 && v->numel == 1;
        ct_stage s;
        ct_stage_init(&s, "index_put_");
        int a = ct_stage_add(&s, self, CT_STAGE_WRITTEN), k[CT_MAX_DIMS];
        for (size_t i = 0; i < n; i++)
            k[i] = ct_stage_add(&s, il[i], CT_STAGE_ANY_DEVICE);
        int b = ct_stage_add(&s, v, v->ndim == 0 || fill ? CT_STAGE_ANY_DEVICE : 0);
        st = ct_stage_begin(&s);
        if (st == CT_OK) {
            const ct_tensor *hl[CT_MAX_DIMS];
            for (size_t i = 0; i < n; i++)
                hl[i] = ct_stage_host(&s, k[i]);
            st = ct_tensor_index_put_(ct_stage_host(&s, a), hl, n, ct_stage_host(&s, b),
                                      accumulate);
        }
        st = ct_stage_finish(&s, st, NULL, NULL);
    }
    for (size_t i = 0; i <= n; i++)
        ct_tensor_release(moved[i]);
    return st;
}

static const char *const OP_NAMES[] = {"nonzero", "masked_select", "index_select", "take"};

static ct_status run_cpu(ct_index_staged_op op, const ct_tensor *a, int64_t dim,
                         const ct_tensor *b, ct_tensor *out, ct_tensor **r) {
    switch (op) {
    case CT_INDEX_STAGED_NONZERO:
        return out != NULL ? ct_tensor_nonzero_out(a, out) : ct_tensor_nonzero(a, r);
    case CT_INDEX_STAGED_MASKED_SELECT:
        return out != NULL ? ct_tensor_masked_select_out(a, b, out)
                           : ct_tensor_masked_select(a, b, r);
    case CT_INDEX_STAGED_INDEX_SELECT:
        return out != NULL ? ct_tensor_index_select_out(a, dim, b, out)
                           : ct_tensor_index_select(a, dim, b, r);
    case CT_INDEX_STAGED_TAKE:
        return out != NULL ? ct_tensor_take_out(a, b, out) : ct_tensor_take(a, b, r);
    }
    return ct_set_error(CT_ERR_MISUSE, "ct_index_staged_op_run: unknown op");
}

ct_status ct_index_staged_op_run(ct_index_staged_op op, const ct_tensor *a, int64_t dim,
                                 const ct_tensor *b, ct_tensor *out, ct_tensor **result) {
    ct_stage s;
    ct_stage_init(&s, OP_NAMES[op]);
    int ka = ct_stage_add(&s, a, 0), kb = ct_stage_add(&s, b, 0);
    int ko = ct_stage_add(&s, out, CT_STAGE_WRITTEN);
    ct_tensor *h = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK)
        st = run_cpu(op, ct_stage_host(&s, ka), dim, ct_stage_host(&s, kb),
                     ct_stage_host(&s, ko), &h);
    return ct_stage_finish(&s, st, h, result);
}
